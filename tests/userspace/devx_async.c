// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * devx_async: the DEVX asynchronous command channel through libmlx5, as
 * mlx5dv_devx_obj_query_async(3) and mlx5dv_devx_create_cmd_comp(3)
 * describe it, on a DEVX UD QP and its DEVX CQ.
 *
 * Queries of both answered each with its wr_id and the synchronous
 * query's output; poll and a non-blocking read with nothing pending
 * (EAGAIN); a buffer shorter than the answer (ENOSPC, the answer stays);
 * a query firmware refuses (the answer carries status and syndrome);
 * queries the driver refuses as it refuses the synchronous one; the 1 MB
 * budget of outstanding output (EAGAIN, then room again after a read);
 * an object destroyed with its query in flight; a channel destroyed with
 * answers unread and queries in flight (kmemleak watches in the debug
 * kernel).
 *
 * With --unplug, DEV is removed (rdma link delete) while a reader blocks
 * on one channel and another has queries in flight and answers unread:
 * the reader gets EIO, reads find EIO, poll says hang-up. With --dead, the
 * model's health syndrome kills DEV (SIMDIR: its debugfs directory): the
 * answers then carry mlx5_core's driver status, "aborted".
 *
 *   devx_async DEV [--unplug | --dead SIMDIR]
 *                             exit 0: all passed; 1: a mismatch (printed)
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "prm.h"
#include "check.h"
#include "devx_qp.h"

#define TIMEOUT_MS	5000
#define WR_ID		0xa5c0000000000000ULL
#define BIG_OUT		65535		/* the largest output a query asks for */
#define BUDGET		(1024 * 1024)	/* outstanding output bytes, as mlx5_ib */
#define STAT_BAD_PARAM	0x3		/* <linux/mlx5/device.h> */
#define NQUERIES	8

#define QP_OUT		DEVX_ST_SZ_BYTES(query_qp_out)
#define CQ_OUT		DEVX_ST_SZ_BYTES(query_cq_out)

/* mlx5_core's status and syndrome of a command the driver did not run */
#define STAT_ABORTED	0xfe
#define SYND_ABORTED	0xbadd00de

/* An answer: the header and up to BIG_OUT bytes of output. */
union answer {
	struct mlx5dv_devx_async_cmd_hdr hdr;
	uint8_t buf[sizeof(struct mlx5dv_devx_async_cmd_hdr) + BIG_OUT];
};

static union answer ans;

static void query_in(uint32_t *in, const struct dqp *q, int cq)
{
	memset(in, 0, DEVX_ST_SZ_BYTES(query_qp_in));
	if (cq) {
		DEVX_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
		DEVX_SET(query_cq_in, in, cqn, q->cqn);
	} else {
		DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
		DEVX_SET(query_qp_in, in, qpn, q->qpn);
	}
}

/* Query the QP (cq 0) or the CQ (cq 1) on @comp. Returns 0 or an errno. */
static int query(const struct dqp *q, int cq, size_t outlen, uint64_t wr_id,
		 struct mlx5dv_devx_cmd_comp *comp)
{
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)];

	query_in(in, q, cq);
	return mlx5dv_devx_obj_query_async(cq ? q->cq : q->qp, in,
					   DEVX_ST_SZ_BYTES(query_qp_in),
					   outlen, wr_id, comp);
}

/* The next answer (waits up to @timeout ms): 0 or an errno. */
static int get(struct mlx5dv_devx_cmd_comp *comp, size_t len, int timeout)
{
	struct pollfd p = { .fd = comp->fd, .events = POLLIN };

	if (poll(&p, 1, timeout) != 1)
		return ETIMEDOUT;
	return mlx5dv_devx_get_async_cmd_comp(comp, &ans.hdr, len);
}

static uint8_t ans_status(void)
{
	return DEVX_GET(query_qp_out, ans.hdr.out_data, status);
}

/* Queries of the QP and the CQ, answered with the synchronous output. */
static void answers(struct mlx5dv_devx_cmd_comp *comp, const struct dqp *q)
{
	uint32_t in[DEVX_ST_SZ_DW(query_qp_in)];
	static uint8_t sync_out[2][QP_OUT];
	const size_t outlen[2] = { QP_OUT, CQ_OUT };
	int seen[NQUERIES] = {}, bad = 0, same = 0, i, err, cq;
	uint64_t n;

	for (cq = 0; cq < 2; cq++) {
		query_in(in, q, cq);
		err = mlx5dv_devx_obj_query(cq ? q->cq : q->qp, in,
					    DEVX_ST_SZ_BYTES(query_qp_in),
					    sync_out[cq], outlen[cq]);
		check(!err, "synchronous QUERY_%s (%d)", cq ? "CQ" : "QP", err);
	}
	for (i = 0; i < NQUERIES; i++) {
		err = query(q, i & 1, outlen[i & 1], WR_ID + i, comp);
		if (err)
			break;
	}
	check(i == NQUERIES, "%d async queries of the QP and the CQ issued (%d)",
	      i, err);
	for (i = 0; i < NQUERIES; i++) {
		err = get(comp, sizeof(ans), TIMEOUT_MS);
		if (err)
			break;
		n = ans.hdr.wr_id - WR_ID;
		if (n >= NQUERIES || seen[n]++) {
			bad++;
			continue;
		}
		if (!memcmp(ans.hdr.out_data, sync_out[n & 1], outlen[n & 1]))
			same++;
	}
	check(i == NQUERIES && !bad, "%d answers, each wr_id once (%d, bad %d)",
	      i, err, bad);
	check(same == NQUERIES,
	      "%d of %d answers carry the synchronous query's output", same,
	      NQUERIES);
	err = get(comp, sizeof(ans), 0);
	check(err == ETIMEDOUT, "poll: nothing more (%d)", err);
	err = mlx5dv_devx_get_async_cmd_comp(comp, &ans.hdr, sizeof(ans));
	check(err == EAGAIN, "non-blocking read with nothing pending: EAGAIN (%d)",
	      err);
}

/* A read too short for the answer fails and leaves it; a full one gets it. */
static void short_read(struct mlx5dv_devx_cmd_comp *comp, const struct dqp *q)
{
	struct pollfd p = { .fd = comp->fd, .events = POLLIN };
	int err;

	check(!query(q, 0, QP_OUT, WR_ID + 100, comp), "a query to read short");
	poll(&p, 1, TIMEOUT_MS);
	err = mlx5dv_devx_get_async_cmd_comp(comp, &ans.hdr,
					     sizeof(ans.hdr) + QP_OUT - 1);
	check(err == ENOSPC, "a read one byte short: ENOSPC (%d)", err);
	err = mlx5dv_devx_get_async_cmd_comp(comp, &ans.hdr, 4);
	check(err == ENOSPC, "a read shorter than the header: ENOSPC (%d)", err);
	err = get(comp, sizeof(ans.hdr) + QP_OUT, 0);
	check(!err && ans.hdr.wr_id == WR_ID + 100 && !ans_status(),
	      "then the answer, whole (%d, wr_id 0x%llx)", err,
	      (unsigned long long)ans.hdr.wr_id);
}

/* What firmware refuses comes back as its answer; what the driver refuses fails now. */
static void refused(struct mlx5dv_devx_cmd_comp *comp, const struct dqp *q)
{
	uint32_t in[DEVX_ST_SZ_DW(rst2init_qp_in)] = {};
	uint32_t syndrome;
	int err;

	query_in(in, q, 1);
	DEVX_SET(query_cq_in, in, op_mod, 1);
	err = mlx5dv_devx_obj_query_async(q->cq, in, DEVX_ST_SZ_BYTES(query_cq_in),
					  CQ_OUT, WR_ID + 200, comp);
	check(!err, "QUERY_CQ with a bad op_mod issued (%d)", err);
	err = get(comp, sizeof(ans), TIMEOUT_MS);
	syndrome = DEVX_GET(query_cq_out, ans.hdr.out_data, syndrome);
	check(!err && ans.hdr.wr_id == WR_ID + 200 &&
	      ans_status() == STAT_BAD_PARAM && syndrome,
	      "its answer: BAD_PARAM and a syndrome (%d, status 0x%x, syndrome 0x%x)",
	      err, ans_status(), syndrome);

	err = query(q, 0, 16, WR_ID + 201, comp);
	check(!err, "QUERY_QP with 16 bytes of output issued (%d)", err);
	err = get(comp, sizeof(ans), TIMEOUT_MS);
	check(!err && ans.hdr.wr_id == WR_ID + 201 && ans_status(),
	      "its answer: a failed status (%d, status 0x%x)", err, ans_status());

	err = query(q, 0, 8, WR_ID, comp);
	check(err == EINVAL, "8 bytes of output, no room for a status: EINVAL (%d)",
	      err);
	query_in(in, q, 1);
	err = mlx5dv_devx_obj_query_async(q->qp, in, DEVX_ST_SZ_BYTES(query_cq_in),
					  CQ_OUT, WR_ID, comp);
	check(err == EINVAL, "QUERY_CQ on the QP's handle: EINVAL (%d)", err);
	memset(in, 0, sizeof(in));
	DEVX_SET(rst2init_qp_in, in, opcode, MLX5_CMD_OP_RST2INIT_QP);
	DEVX_SET(rst2init_qp_in, in, qpn, q->qpn);
	err = mlx5dv_devx_obj_query_async(q->qp, in, sizeof(in), QP_OUT, WR_ID,
					  comp);
	check(err == EINVAL, "a modify command as a query: EINVAL (%d)", err);
	err = get(comp, sizeof(ans), 0);
	check(err == ETIMEDOUT, "no answer to what was refused (%d)", err);
}

/* Issue BIG_OUT queries until one fails; returns how many went. */
static int fill(struct mlx5dv_devx_cmd_comp *comp, const struct dqp *q,
		uint64_t wr_id, int *err)
{
	int i;

	for (i = 0; i < 64; i++) {
		*err = query(q, 0, BIG_OUT, wr_id + i, comp);
		if (*err)
			break;
	}
	return i;
}

/* 1 MB of outstanding output and no more, until answers are read. */
static void budget(struct mlx5dv_devx_cmd_comp *comp, const struct dqp *q)
{
	int n, i, err, bad = 0;

	n = fill(comp, q, WR_ID + 0x1000, &err);
	check(n == BUDGET / BIG_OUT && err == EAGAIN,
	      "%d queries of %d bytes, then EAGAIN (%d)", n, BIG_OUT, err);
	err = get(comp, sizeof(ans), TIMEOUT_MS);
	check(!err && !ans_status(), "one answer read (%d)", err);
	err = query(q, 0, BIG_OUT, WR_ID + 0x1000 + n, comp);
	check(!err, "then a query goes again (%d)", err);
	err = query(q, 0, BIG_OUT, WR_ID + 0x1000 + n + 1, comp);
	check(err == EAGAIN, "and the next is refused again (%d)", err);
	for (i = 0; i < n; i++) {
		err = get(comp, sizeof(ans), TIMEOUT_MS);
		if (err)
			break;
		if (ans.hdr.wr_id - (WR_ID + 0x1000) > (uint64_t)n || ans_status())
			bad++;
	}
	check(i == n && !bad, "the other %d answers read (%d read, %d bad, %d)",
	      n, i, bad, err);
}

/* The object goes while its query is in flight: the answer still comes. */
static void obj_gone(struct ibv_context *ctx, struct mlx5dv_devx_cmd_comp *comp)
{
	struct dqp q2 = {};
	int err;

	err = dqp_create(ctx, &q2);
	check(!err, "a second DEVX QP (%d)", err);
	if (err) {
		dqp_destroy(&q2);
		return;
	}
	err = query(&q2, 0, BIG_OUT, WR_ID + 300, comp);
	check(!err, "a query of it (%d)", err);
	check(!mlx5dv_devx_obj_destroy(q2.qp), "the QP destroyed meanwhile");
	q2.qp = NULL;
	err = get(comp, sizeof(ans), TIMEOUT_MS);
	check(!err && ans.hdr.wr_id == WR_ID + 300,
	      "the query's answer comes (%d, status 0x%x)", err, ans_status());
	dqp_destroy(&q2);
}

/* A channel destroyed with answers unread and queries in flight. */
static void unread(struct ibv_context *ctx, const struct dqp *q)
{
	struct mlx5dv_devx_cmd_comp *comp = mlx5dv_devx_create_cmd_comp(ctx);
	int n, err;

	check(comp != NULL, "a second channel");
	if (!comp)
		return;
	n = fill(comp, q, WR_ID, &err);
	check(n == BUDGET / BIG_OUT, "%d queries left unread (%d)", n, err);
	mlx5dv_devx_destroy_cmd_comp(comp);

	comp = mlx5dv_devx_create_cmd_comp(ctx);
	if (!comp)
		fatal("mlx5dv_devx_create_cmd_comp");
	err = query(q, 1, CQ_OUT, WR_ID, comp);
	if (!err)
		err = get(comp, sizeof(ans), TIMEOUT_MS);
	check(!err && !ans_status(), "then a new channel answers (%d)", err);
	mlx5dv_devx_destroy_cmd_comp(comp);
}

static void *blocked_reader(void *arg)
{
	static union answer a;
	struct mlx5dv_devx_cmd_comp *comp = arg;

	return (void *)(long)mlx5dv_devx_get_async_cmd_comp(comp, &a.hdr,
							    sizeof(a));
}

/* The device goes with a reader blocked and answers pending. */
static void unplug(struct ibv_context *ctx, const struct dqp *q,
		   const char *dev)
{
	struct mlx5dv_devx_cmd_comp *idle, *busy;
	struct timespec ts;
	struct pollfd p;
	pthread_t th;
	char cmd[128];
	void *ret;
	int n, err;

	idle = mlx5dv_devx_create_cmd_comp(ctx);
	busy = mlx5dv_devx_create_cmd_comp(ctx);
	if (!idle || !busy)
		fatal("mlx5dv_devx_create_cmd_comp");
	if (pthread_create(&th, NULL, blocked_reader, idle))
		fatal("pthread_create");
	n = fill(busy, q, WR_ID, &err);
	check(n == BUDGET / BIG_OUT, "%d queries outstanding at removal (%d)", n,
	      err);
	usleep(100000);		/* the reader is blocked by now */

	snprintf(cmd, sizeof(cmd), "rdma link delete %s", dev);
	check(!system(cmd), "%s with the channels open", cmd);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TIMEOUT_MS / 1000;
	err = pthread_timedjoin_np(th, &ret, &ts);
	check(!err && (long)ret == EIO, "the blocked reader woke with EIO (%d, %ld)",
	      err, err ? 0L : (long)ret);
	if (err) {
		pthread_cancel(th);
		pthread_join(th, NULL);
	}
	err = mlx5dv_devx_get_async_cmd_comp(busy, &ans.hdr, sizeof(ans));
	check(err == EIO, "the channel with answers pending reads EIO (%d)", err);
	p = (struct pollfd){ .fd = idle->fd, .events = POLLIN | POLLRDHUP };
	n = poll(&p, 1, 0);
	check(n == 1 && (p.revents & POLLRDHUP), "poll: hang-up (%d, 0x%x)", n,
	      p.revents);
	err = query(q, 0, QP_OUT, WR_ID, busy);
	check(err != 0, "no query after removal (%d)", err);
	mlx5dv_devx_destroy_cmd_comp(idle);
	mlx5dv_devx_destroy_cmd_comp(busy);
}

/*
 * The device dies (a health syndrome through the model's debugfs dir
 * @simdir): queries still answer, with the driver's "aborted" status.
 */
static void dead(struct mlx5dv_devx_cmd_comp *comp, const struct dqp *q,
		 const char *simdir)
{
	uint32_t syndrome = 0;
	char path[256];
	int i, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/health_syndrome", simdir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "8\n") < 0 || fclose(f))
		fatal(path);
	/* the health poller notices within a second or so */
	for (i = 0; i < 100; i++) {
		err = query(q, 0, QP_OUT, WR_ID + 400 + i, comp);
		if (!err)
			err = get(comp, sizeof(ans), TIMEOUT_MS);
		if (err || ans.hdr.wr_id != WR_ID + 400 + i ||
		    ans_status() == STAT_ABORTED)
			break;
		usleep(100000);
	}
	syndrome = DEVX_GET(query_qp_out, ans.hdr.out_data, syndrome);
	check(!err && i < 100 && ans.hdr.wr_id == WR_ID + 400 + i &&
	      ans_status() == STAT_ABORTED && syndrome == SYND_ABORTED,
	      "a dead device's answer: status 0x%x syndrome 0x%x (%d, after %d)",
	      ans_status(), syndrome, err, i);
	err = get(comp, sizeof(ans), 0);
	check(err == ETIMEDOUT, "nothing more (%d)", err);
}

int main(int argc, char **argv)
{
	struct mlx5dv_devx_cmd_comp *comp;
	struct ibv_context *ctx;
	struct dqp q = {};
	int err;

	if (argc < 2 || argc > 4 || (argc == 3 && strcmp(argv[2], "--unplug")) ||
	    (argc == 4 && strcmp(argv[2], "--dead"))) {
		fprintf(stderr, "usage: devx_async DEV [--unplug | --dead SIMDIR]\n");
		return 2;
	}
	ctx = open_ctx(argv[1]);
	err = dqp_create(ctx, &q);
	check(!err, "a DEVX UD QP and CQ (%d, errno %d)", err, errno);
	if (err)
		return 1;

	if (argc == 3) {
		unplug(ctx, &q, argv[1]);
	} else if (argc == 4) {
		comp = mlx5dv_devx_create_cmd_comp(ctx);
		if (!comp)
			fatal("mlx5dv_devx_create_cmd_comp");
		dead(comp, &q, argv[3]);
		mlx5dv_devx_destroy_cmd_comp(comp);
	} else {
		comp = mlx5dv_devx_create_cmd_comp(ctx);
		if (!comp)
			fatal("mlx5dv_devx_create_cmd_comp");
		if (fcntl(comp->fd, F_SETFL, O_NONBLOCK))
			fatal("fcntl");
		answers(comp, &q);
		short_read(comp, &q);
		refused(comp, &q);
		budget(comp, &q);
		obj_gone(ctx, comp);
		unread(ctx, &q);
		mlx5dv_devx_destroy_cmd_comp(comp);
	}
	dqp_destroy(&q);
	check(!ibv_close_device(ctx), "context closed");

	printf("devx_async: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
