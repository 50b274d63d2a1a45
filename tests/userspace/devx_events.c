// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * devx_events: DEVX event channels through libmlx5, as mlx5dv(3) describes
 * mlx5dv_devx_create_event_channel, mlx5dv_devx_subscribe_devx_event(_fd)
 * and mlx5dv_devx_get_event.
 *
 * The port of DEV goes down and up (ip link on NETDEV): a channel with
 * data reads each PORT_CHANGE with its cookie and EQE; a channel without
 * data reads the cookie once for both (events coalesce) and then nothing;
 * a redirected eventfd counts them. Refused: event numbers that are not
 * of the object named (or need one), more than 16 numbers, a buffer
 * shorter than an event. (libmlx5 44 opens every context with DEVX, so
 * the driver's refusal of a context without it is not reached.) A channel
 * closed with events unread frees them (kmemleak watches in the debug
 * kernel).
 *
 * With --unplug, DEV is removed (rdma link delete) while a channel with
 * subscriptions is open: the channel reads EIO and closes.
 *
 *   devx_events DEV NETDEV [--unplug]
 *                             exit 0: all passed; 1: a mismatch (printed)
 */

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "prm.h"
#include "check.h"
#include "devx_qp.h"

#define TIMEOUT_MS	5000
#define COOKIE_DATA	0x1122334455667788ULL
#define COOKIE_OMIT	0x77ULL

/* One event of a channel with data, or -errno; waits up to TIMEOUT_MS. */
static ssize_t get_event(struct mlx5dv_devx_event_channel *ch, void *buf,
			 size_t len, int timeout)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, timeout) != 1)
		return -ETIMEDOUT;
	n = mlx5dv_devx_get_event(ch, buf, len);
	return n < 0 ? -errno : n;
}

static void link_set(const char *netdev, const char *state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set dev %s %s", netdev, state);
	if (system(cmd))
		fatal(cmd);
}

static int subscribe(struct mlx5dv_devx_event_channel *ch,
		     struct mlx5dv_devx_obj *obj, const uint16_t *ev, int n,
		     uint64_t cookie)
{
	return mlx5dv_devx_subscribe_devx_event(ch, obj, n * sizeof(*ev),
						(uint16_t *)ev, cookie);
}

static void refused(struct ibv_context *ctx, struct mlx5dv_devx_event_channel *ch)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(alloc_pd_out)] = {};
	uint16_t many[17], ev;
	struct mlx5dv_devx_obj *pd;
	uint64_t small;
	int i, err;
	ssize_t n;

	ev = MLX5_EVENT_TYPE_SQ_DRAINED;
	err = subscribe(ch, NULL, &ev, 1, 1);
	check(err == EINVAL, "SQ_DRAINED without an object refused (%d)", err);
	ev = 0x55;
	err = subscribe(ch, NULL, &ev, 1, 1);
	check(err == EINVAL, "unknown event number refused (%d)", err);
	for (i = 0; i < 17; i++)
		many[i] = MLX5_EVENT_TYPE_PORT_CHANGE;
	err = subscribe(ch, NULL, many, 17, 1);
	check(err == EINVAL, "17 event numbers refused (%d)", err);

	DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	pd = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	check(pd != NULL, "a DEVX PD object");
	if (pd) {
		ev = MLX5_EVENT_TYPE_SQ_DRAINED;
		err = subscribe(ch, pd, &ev, 1, 1);
		check(err == EINVAL, "SQ_DRAINED of a PD refused (%d)", err);
		ev = MLX5_EVENT_TYPE_PORT_CHANGE;
		err = subscribe(ch, pd, &ev, 1, 1);
		check(err == EINVAL, "PORT_CHANGE of an object refused (%d)", err);
		check(!mlx5dv_devx_obj_destroy(pd), "PD object destroyed");
	}
	n = mlx5dv_devx_get_event(ch, (void *)&small, sizeof(small));
	err = n < 0 ? errno : 0;
	check(n < 0 && err == EINVAL, "a read shorter than an event refused (%zd, errno %d)",
	      n, err);
}


/* RTS to SQD on a DEVX QP: SQ_DRAINED reaches the QP's subscription. */
static void qp_drained(struct ibv_context *ctx)
{
	uint32_t min[DEVX_ST_SZ_DW(sqd2rts_qp_in)] = {};
	struct mlx5dv_devx_async_event_hdr *hdr;
	struct mlx5dv_devx_event_channel *ch;
	uint16_t ev = MLX5_EVENT_TYPE_SQ_DRAINED;
	struct dqp q = {};
	uint8_t buf[128];
	uint32_t qpn;
	ssize_t n;
	int err;

	err = dqp_create(ctx, &q);
	check(!err, "a DEVX UD QP in RTS (%d, errno %d)", err, errno);
	ch = mlx5dv_devx_create_event_channel(ctx, 0);
	if (err || !ch) {
		dqp_destroy(&q);
		return;
	}
	ev = MLX5_EVENT_TYPE_PORT_CHANGE;
	err = subscribe(ch, q.qp, &ev, 1, 1);
	check(err == EINVAL, "PORT_CHANGE of a QP refused (%d)", err);
	ev = MLX5_EVENT_TYPE_SQ_DRAINED;
	err = subscribe(ch, q.cq, &ev, 1, 1);
	check(err == EINVAL, "SQ_DRAINED of a CQ refused (%d)", err);
	check(!subscribe(ch, q.qp, &ev, 1, 0xd4a1), "SQ_DRAINED of the QP subscribed");

	err = qp_modify(&q, MLX5SP_CMD_OP_RTS2SQD_QP, min, DEVX_ST_SZ_BYTES(qp_2err_in));
	check(!err, "RTS2SQD through DEVX (%d)", err);
	n = get_event(ch, buf, sizeof(buf), TIMEOUT_MS);
	hdr = (struct mlx5dv_devx_async_event_hdr *)buf;
	/* EQE data at 0x20; a QP event's qp_srq_n 24 bytes into it */
	memcpy(&qpn, hdr->out_data + 0x38, sizeof(qpn));
	qpn = n > 0 ? be32toh(qpn) & 0xffffff : 0;
	check(n == sizeof(*hdr) + 64 && hdr->cookie == 0xd4a1 &&
	      hdr->out_data[1] == MLX5_EVENT_TYPE_SQ_DRAINED && qpn == q.qpn,
	      "SQ_DRAINED read with the QP's cookie and number (%zd, qpn 0x%x of 0x%x)",
	      n, qpn, q.qpn);
	memset(min, 0, sizeof(min));
	err = qp_modify(&q, MLX5_CMD_OP_SQD_RTS_QP, min, sizeof(min));
	check(!err, "SQD_RTS through DEVX (%d)", err);
	/* the QP goes, and its subscription with it; the channel stays */
	check(!mlx5dv_devx_obj_destroy(q.qp), "QP object destroyed");
	q.qp = NULL;
	n = get_event(ch, buf, sizeof(buf), 0);
	check(n == -ETIMEDOUT, "no more events (%zd)", n);
	mlx5dv_devx_destroy_event_channel(ch);
	dqp_destroy(&q);
}

int main(int argc, char **argv)
{
	struct mlx5dv_devx_event_channel *ch, *omit, *spare;
	struct mlx5dv_devx_async_event_hdr *hdr;
	uint16_t ev = MLX5_EVENT_TYPE_PORT_CHANGE;
	uint8_t buf[256], *eqe;
	int down = 0, up = 0, bad = 0, efd, err, i;
	struct ibv_context *ctx;
	uint64_t cookie, count;
	ssize_t n;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--unplug"))) {
		fprintf(stderr, "usage: devx_events DEV NETDEV [--unplug]\n");
		return 2;
	}
	ctx = open_ctx(argv[1]);
	ch = mlx5dv_devx_create_event_channel(ctx, 0);
	omit = mlx5dv_devx_create_event_channel(ctx,
				MLX5_IB_UAPI_DEVX_CR_EV_CH_FLAGS_OMIT_DATA);
	spare = mlx5dv_devx_create_event_channel(ctx, 0);
	if (!ch || !omit || !spare)
		fatal("mlx5dv_devx_create_event_channel");
	if (fcntl(omit->fd, F_SETFL, O_NONBLOCK))
		fatal("fcntl");

	refused(ctx, ch);
	qp_drained(ctx);

	check(!subscribe(ch, NULL, &ev, 1, COOKIE_DATA), "PORT_CHANGE subscribed");
	check(!subscribe(omit, NULL, &ev, 1, COOKIE_OMIT),
	      "PORT_CHANGE subscribed without data");
	check(!subscribe(spare, NULL, &ev, 1, 9), "a channel left unread");
	efd = eventfd(0, EFD_NONBLOCK);
	if (efd < 0)
		fatal("eventfd");
	err = mlx5dv_devx_subscribe_devx_event_fd(ch, efd, NULL, ev);
	check(!err, "PORT_CHANGE redirected to an eventfd (%d)", err);
	n = get_event(ch, buf, sizeof(buf), 0);
	check(n == -ETIMEDOUT, "nothing before the port changes (%zd)", n);

	link_set(argv[2], "down");
	link_set(argv[2], "up");

	/* down, then up: each an event with the cookie and the EQE */
	for (i = 0; i < 8 && !(down && up); i++) {
		n = get_event(ch, buf, sizeof(buf), TIMEOUT_MS);
		if (n < 0)
			break;
		hdr = (struct mlx5dv_devx_async_event_hdr *)buf;
		eqe = hdr->out_data;
		if (n != sizeof(*hdr) + 64 || hdr->cookie != COOKIE_DATA ||
		    eqe[1] != MLX5_EVENT_TYPE_PORT_CHANGE) {
			bad++;
			continue;
		}
		if (eqe[3] == MLX5_PORT_CHANGE_SUBTYPE_DOWN)
			down++;
		else if (eqe[3] == MLX5_PORT_CHANGE_SUBTYPE_ACTIVE && down)
			up++;
	}
	check(down && up && !bad,
	      "port down then active read with cookie and EQE (down %d up %d bad %d, last %zd)",
	      down, up, bad, n);

	n = read(omit->fd, &cookie, sizeof(cookie));
	check(n == sizeof(cookie) && cookie == COOKIE_OMIT,
	      "without data: the cookie (%zd, 0x%llx)", n,
	      (unsigned long long)cookie);
	n = read(omit->fd, &cookie, sizeof(cookie));
	check(n < 0 && errno == EAGAIN,
	      "without data the events coalesced: nothing more (%zd, errno %d)",
	      n, errno);
	n = read(efd, &count, sizeof(count));
	check(n == sizeof(count) && count >= 2, "the eventfd counted %llu",
	      (unsigned long long)count);

	/* closed with its events unread: they are freed with it */
	mlx5dv_devx_destroy_event_channel(spare);
	mlx5dv_devx_destroy_event_channel(omit);

	/*
	 * The device goes while a channel with subscriptions is open: the
	 * channel reports it (poll: hang-up; read: EIO), and closes after.
	 */
	if (argc == 4) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rdma link delete %s", argv[1]);
		check(!system(cmd), "%s with the channel open", cmd);
		n = get_event(ch, buf, sizeof(buf), TIMEOUT_MS);
		check(n == -EIO, "the channel's read after removal: EIO (%zd)", n);
	}
	mlx5dv_devx_destroy_event_channel(ch);
	close(efd);
	check(!ibv_close_device(ctx), "context closed");

	printf("devx_events: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
