/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_cm plumbing of the shutdown tests (cm_shutdown.c, cm_sig_shutdown.c):
 * fatal errors, addresses, waiting for the next CM event, and the target
 * process beside the initiator.
 */
#ifndef MLX5SP_TESTS_CM_H
#define MLX5SP_TESTS_CM_H

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* a loaded debug kernel under TCG: a connect took over 5 s */
#define CM_WAIT_MS	30000


static inline void __attribute__((noreturn)) die(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(err));
	exit(2);
}

/*
 * A connection's PD, its one CQ of @cqe entries, an MR with @access over
 * the @len bytes at @mem, and @id's QP as @qa asks, on that CQ; dies on
 * any failure.
 */
static inline void cm_make_qp(struct rdma_cm_id *id,
			      struct ibv_qp_init_attr *qa, int cqe, void *mem,
			      size_t len, int access, struct ibv_pd **pd,
			      struct ibv_cq **cq, struct ibv_mr **mr)
{
	*pd = ibv_alloc_pd(id->verbs);
	*cq = *pd ? ibv_create_cq(id->verbs, cqe, NULL, NULL, 0) : NULL;
	*mr = *cq ? ibv_reg_mr(*pd, mem, len, access) : NULL;
	if (!*mr)
		die("PD/CQ/MR", errno);
	qa->send_cq = *cq;
	qa->recv_cq = *cq;
	if (rdma_create_qp(id, *pd, qa))
		die("rdma_create_qp", errno);
}

/* What cm_make_qp() made, and @id. */
static inline void cm_free_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			      struct ibv_cq *cq, struct ibv_mr *mr)
{
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
}

static inline void addr_of(const char *ip, unsigned short port,
			   struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
		die(ip, EINVAL);
}

/*
 * A target's listening id on @ip:@port, on the event channel it makes
 * (into @ch); one byte on @ready then tells the parent it listens.
 */
static inline struct rdma_cm_id *cm_listen(struct rdma_event_channel **ch,
					   const char *ip, int port,
					   int ready)
{
	struct rdma_cm_id *listen_id;
	struct sockaddr_in sa;

	addr_of(ip, port, &sa);
	*ch = rdma_create_event_channel();
	if (!*ch || rdma_create_id(*ch, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id", errno);
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&sa) ||
	    rdma_listen(listen_id, 4))
		die("rdma_bind_addr/listen", errno);
	if (write(ready, "r", 1) != 1)
		die("write", errno);
	return listen_id;
}

/* The next CM event within @ms, or NULL; the caller acks it. */
static inline struct rdma_cm_event *next_event(struct rdma_event_channel *ch,
					       int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/*
 * The next event, of @type (1), or anything else or nothing within
 * CM_WAIT_MS (0, said on stderr); its cm_id into @id, its private data
 * (@len bytes at least) into @pdata.
 */
static inline int expect_event(struct rdma_event_channel *ch,
			       enum rdma_cm_event_type type,
			       struct rdma_cm_id **id, void *pdata, size_t len)
{
	struct rdma_cm_event *ev = next_event(ch, CM_WAIT_MS);
	int ok;

	if (!ev) {
		fprintf(stderr, "no %s\n", rdma_event_str(type));
		return 0;
	}
	ok = ev->event == type;
	if (!ok)
		fprintf(stderr, "%s instead of %s (status %d)\n",
			rdma_event_str(ev->event), rdma_event_str(type),
			ev->status);
	if (ok && id)
		*id = ev->id;
	if (ok && pdata) {
		ok = ev->param.conn.private_data &&
		     ev->param.conn.private_data_len >= len;
		if (ok)
			memcpy(pdata, ev->param.conn.private_data, len);
		else
			fprintf(stderr, "%s without private data\n",
				rdma_event_str(type));
	}
	rdma_ack_cm_event(ev);
	return ok;
}

/*
 * rdma_connect() @id with @cp and wait for ESTABLISHED (its private data,
 * @len bytes, into @pdata); dies otherwise, with @who, the connect's
 * errno, or ECONNREFUSED once expect_event() said what came instead (a
 * REJECTED and its reason).
 */
static inline void cm_connect(const char *who, struct rdma_cm_id *id,
			      struct rdma_event_channel *ch,
			      struct rdma_conn_param *cp, void *pdata,
			      size_t len)
{
	char what[64];

	snprintf(what, sizeof(what), "%s: rdma_connect", who);
	if (rdma_connect(id, cp))
		die(what, errno);
	if (!expect_event(ch, RDMA_CM_EVENT_ESTABLISHED, NULL, pdata, len)) {
		snprintf(what, sizeof(what), "%s: not established", who);
		die(what, ECONNREFUSED);
	}
}

/* A target: listens on @ip, serves @runs connections of @n requests. */
typedef int (*cm_target_fn)(const char *ip, int runs, int n, int ready);

/*
 * @fn in a child process, which writes a byte to its @ready descriptor once
 * it listens; returns the child's pid after that byte.
 */
static inline pid_t cm_start_target(cm_target_fn fn, const char *ip, int runs,
				    int n)
{
	int fd[2];
	pid_t pid;
	char r;

	if (pipe(fd))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid) {
		close(fd[0]);
		exit(fn(ip, runs, n, fd[1]));
	}
	close(fd[1]);
	if (read(fd[0], &r, 1) != 1)
		die("the target did not start", EIO);
	close(fd[0]);
	return pid;
}

/* Whether the target @pid exited 0. */
static inline int cm_target_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid", errno);
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

#endif
