// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Load and concurrency (issue 15): many processes, each with several
 * verbs contexts, moving data on RC and UD QPs at once, a CQ overrun in
 * each process, and, with --until-removed, the device taken away under
 * all of it.
 *
 * usage: load [--procs N] [--pairs N] [--seconds S] [--batch K]
 *             [--until-removed READY_FILE [--dead]] [--no-overrun]
 *             [--hostile-events] [--ready FILE] DEV [PEER_DEV]
 *
 * Each of N processes (4) opens 2 x PAIRS contexts (2): pair i is a
 * context on DEV and one on PEER_DEV for odd i, on DEV for even i
 * (loopback). A pair has an RC QP on each side, connected, and a UD QP
 * on each side with an address handle to the other's; one CQ a context
 * takes the completions of both its QPs. A round posts, on every pair,
 * K RC SENDs each way, an RDMA WRITE and an RDMA READ from the first
 * side, and K UD datagrams each way, then polls until every one of them
 * has completed (10 s at most: more is a hang) and checks every byte
 * that arrived. Rounds repeat for S seconds (10).
 *
 * The CQ overrun: before its rounds, every process connects one more RC
 * QP pair on its first pair's contexts, whose requester side has a CQ of
 * a few entries, and posts more signaled SENDs than that CQ holds
 * without polling it. A ConnectX raises the CQ error event for that CQ
 * (IBV_EVENT_CQ_ERR); that event must come, and nothing else: the
 * rounds that follow on the same contexts must run clean.
 *
 * --until-removed: rounds run until the device goes away (rdma link
 * delete, module unload, by the caller, once READY_FILE exists: every
 * process has run its rounds for S seconds, 0 for one round). Each process must then see
 * IBV_EVENT_DEVICE_FATAL on its contexts, verbs that fail (EIO) and no
 * completion that did not happen, and must close everything it had
 * without crashing. A process that sees neither within 60 s of its last
 * completion has hung.
 *
 * --dead: the caller kills the devices' firmware (a fatal health
 * syndrome) instead: the same DEVICE_FATAL, and a verb that needs the
 * firmware fails with ENOLINK, mlx5_core's answer on a dead device (the
 * device is still there: EIO is uverbs' answer once it is gone).
 *
 * --ready FILE: FILE appears once every process has run a round (its
 * objects made), for a caller that does something to the device under
 * the load; the rounds go on for S seconds and are checked as ever.
 * SIGUSR1 to the parent ends them early: after the round under way,
 * each process tears down and ends as after S seconds.
 *
 * --hostile-events: the caller has the devices write EQEs that lie about
 * live objects (the model's hostile_eqes): QP, SRQ and CQ events for
 * QPs and CQs that are fine. Such async events are counted, not failed;
 * everything else holds: every completion successful, every byte right.
 *
 * Ends with one line of figures and "N passed, N failed" (the parent's
 * checks: every process ended well, none killed by a signal).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "roce.h"

#define MAX_PROCS	64
#define MAX_PAIRS	16
#define MAX_BATCH	32
#define MSG_LEN		256
#define RDMA_LEN	4096
#define GRH_LEN		40
#define UD_SLOT		(GRH_LEN + MSG_LEN)
#define QKEY		0x11111111
#define ROUND_MS	10000	/* a round not done in this time hung */
#define REMOVED_MS	60000	/* removal seen within this of a stall */
#define OVERRUN_MS	5000
#define OVERRUN_CQE	4	/* asked for; libmlx5 rounds it up */

/* Buffer layout of one context: send, receive, UD, RDMA source/target. */
#define OFF_SEND	0
#define OFF_RECV	(OFF_SEND + MAX_BATCH * MSG_LEN)
#define OFF_UDSEND	(OFF_RECV + MAX_BATCH * MSG_LEN)
#define OFF_UDRECV	(OFF_UDSEND + MAX_BATCH * MSG_LEN)
#define OFF_RDMA	(OFF_UDRECV + MAX_BATCH * UD_SLOT)
#define OFF_READ	(OFF_RDMA + RDMA_LEN)	/* where READs land */
#define BUF_SIZE	(OFF_READ + RDMA_LEN)

/* wr_id: kind << 32 | index */
enum kind { K_SEND = 1, K_RECV, K_WRITE, K_READ, K_UDSEND, K_UDRECV,
	    K_OVERRUN };

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;
	struct ibv_qp *rc, *ud;
	struct ibv_ah *ah;	/* to the other side's UD QP */
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
	int pending;		/* completions still to come this round */
	int removed;		/* DEVICE_FATAL seen */
};

struct pair {
	struct side s[2];
};

/* What a process reports to the parent (shared memory). */
struct report {
	unsigned long long ops, bytes, rounds;
	int qps, contexts;
	int overrun_event;	/* IBV_EVENT_CQ_ERR for the small CQ */
	int fatal_events;	/* IBV_EVENT_DEVICE_FATAL, contexts */
	int eio;		/* a verb failed once the device went */
	int flushed;		/* completions with an error status */
	int other_events;	/* other async events while it went */
	int lies;		/* --hostile-events: async events taken as lies */
	int done;		/* 1: ended well */
	int running;		/* a round done (--until-removed) */
	char why[160];		/* else: the first thing that went wrong */
};

static struct {
	int procs, pairs, seconds, batch, until_removed, overrun;
	int dead;	/* --dead: the errno a verb fails with is ENOLINK */
	int hostile;	/* --hostile-events: the device lies in its EQEs */
	const char *dev[2], *ready;
} opt = { 4, 2, 10, 8, 0, 1, 0, 0, { NULL, NULL }, NULL };

static struct report *rep;	/* this process's */
static struct pair pairs[MAX_PAIRS];

/* The process stops at its first failure, saying why. */
static void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->why, sizeof(rep->why), fmt, ap);
	va_end(ap);
	exit(1);
}

static unsigned char pattern(unsigned int seed, unsigned int i)
{
	return (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static void fill(unsigned char *p, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = pattern(seed, i);
}

static int same(const unsigned char *p, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(seed, i))
			return 0;
	return 1;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		fail("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fail("cannot open %s: %s", name, strerror(errno ? errno : ENODEV));
	return ctx;
}

static void open_side(struct side *e, const char *name, int cqe)
{
	e->ctx = open_dev(name);
	e->gid_index = roce_port_gid(e->ctx, &e->gid, &e->mtu);
	if (e->gid_index < 0)
		fail("%s: no GID", name);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, cqe, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		fail("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
	if (posix_memalign((void **)&e->buf, 4096, BUF_SIZE))
		fail("posix_memalign");
	memset(e->buf, 0, BUF_SIZE);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!e->mr)
		fail("ibv_reg_mr: %s", strerror(errno));
	rep->contexts++;
}

static struct ibv_qp *new_qp(struct side *e, enum ibv_qp_type type,
			     struct ibv_cq *scq, struct ibv_cq *rcq, int depth)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type,
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);

	if (!qp)
		fail("ibv_create_qp (%s): %s", type == IBV_QPT_UD ? "UD" : "RC",
		     strerror(errno));
	rep->qps++;
	return qp;
}

static int rc_connect(struct ibv_qp *qp, struct side *e, struct ibv_qp *pqp,
		      struct side *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = e->mtu < p->mtu ? e->mtu : p->mtu;
	a.dest_qp_num = pqp->qp_num;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->gid;
	a.ah_attr.grh.sgid_index = e->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
}

static void ud_ready(struct side *e)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };

	if (ibv_modify_qp(e->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		fail("UD to INIT: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(e->ud, &a, IBV_QP_STATE))
		fail("UD to RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(e->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		fail("UD to RTS: %s", strerror(errno));
}

static void make_ah(struct side *e, struct side *p)
{
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = p->gid, .sgid_index = e->gid_index,
			 .hop_limit = 1 },
	};

	e->ah = ibv_create_ah(e->pd, &aa);
	if (!e->ah)
		fail("ibv_create_ah: %s", strerror(errno));
}

static void setup_pair(struct pair *pr, int i)
{
	int cqe = 8 * opt.batch + 16, j;

	open_side(&pr->s[0], opt.dev[0], cqe);
	open_side(&pr->s[1], opt.dev[i & 1], cqe);
	for (j = 0; j < 2; j++) {
		struct side *e = &pr->s[j];

		e->rc = new_qp(e, IBV_QPT_RC, e->cq, e->cq, 2 * opt.batch + 4);
		e->ud = new_qp(e, IBV_QPT_UD, e->cq, e->cq, 2 * opt.batch + 4);
	}
	for (j = 0; j < 2; j++) {
		errno = rc_connect(pr->s[j].rc, &pr->s[j], pr->s[!j].rc,
				   &pr->s[!j]);
		if (errno)
			fail("RC connect: %s", strerror(errno));
		ud_ready(&pr->s[j]);
	}
	for (j = 0; j < 2; j++)
		make_ah(&pr->s[j], &pr->s[!j]);
	/* the READ source: a pattern the first side checks */
	fill(pr->s[1].buf + OFF_RDMA, RDMA_LEN, 0x5a5a + i);
}

static void post_recv(struct ibv_qp *qp, struct side *e, unsigned long off,
		      unsigned int len, enum kind k, int idx)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + off,
			       .length = len, .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)k << 32 | idx,
				  .sg_list = &sge, .num_sge = 1 }, *bad;

	errno = ibv_post_recv(qp, &wr, &bad);
	if (errno)
		fail("ibv_post_recv: %s", strerror(errno));
	e->pending++;
}

static void post_send(struct ibv_qp *qp, struct side *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	errno = ibv_post_send(qp, wr, &bad);
	if (errno)
		fail("ibv_post_send: %s", strerror(errno));
	e->pending++;
}

/* Seeds of the round's messages: the same on both ends. */
static unsigned int seed_of(int pair, int side, int round, int i, int ud)
{
	return (unsigned int)(pair << 24 ^ side << 23 ^ ud << 22 ^ round << 6 ^ i);
}

static void post_round(struct pair *pr, int p, int round)
{
	struct side *a = &pr->s[0], *b = &pr->s[1];
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	int j, i;

	for (j = 0; j < 2; j++) {
		struct side *e = &pr->s[j];

		memset(e->buf + OFF_RECV, 0, MAX_BATCH * MSG_LEN);
		memset(e->buf + OFF_UDRECV, 0, MAX_BATCH * UD_SLOT);
		for (i = 0; i < opt.batch; i++) {
			post_recv(e->rc, e, OFF_RECV + i * MSG_LEN, MSG_LEN,
				  K_RECV, i);
			post_recv(e->ud, e, OFF_UDRECV + i * UD_SLOT, UD_SLOT,
				  K_UDRECV, i);
		}
	}
	for (j = 0; j < 2; j++) {
		struct side *e = &pr->s[j], *peer = &pr->s[!j];

		for (i = 0; i < opt.batch; i++) {
			fill(e->buf + OFF_SEND + i * MSG_LEN, MSG_LEN,
			     seed_of(p, j, round, i, 0));
			sge = (struct ibv_sge){
				.addr = (uintptr_t)e->buf + OFF_SEND + i * MSG_LEN,
				.length = MSG_LEN, .lkey = e->mr->lkey };
			wr = (struct ibv_send_wr){
				.wr_id = (uint64_t)K_SEND << 32 | i,
				.sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND };
			post_send(e->rc, e, &wr);

			fill(e->buf + OFF_UDSEND + i * MSG_LEN, MSG_LEN,
			     seed_of(p, j, round, i, 1));
			sge.addr = (uintptr_t)e->buf + OFF_UDSEND + i * MSG_LEN;
			wr = (struct ibv_send_wr){
				.wr_id = (uint64_t)K_UDSEND << 32 | i,
				.sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND };
			wr.wr.ud.ah = e->ah;
			wr.wr.ud.remote_qpn = peer->ud->qp_num;
			wr.wr.ud.remote_qkey = QKEY;
			post_send(e->ud, e, &wr);
		}
	}
	/* a WRITE of this round's pattern into b, a READ of b's source */
	fill(a->buf + OFF_RDMA, RDMA_LEN, seed_of(p, 0, round, 0, 2));
	sge = (struct ibv_sge){ .addr = (uintptr_t)a->buf + OFF_RDMA,
				.length = RDMA_LEN, .lkey = a->mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = (uint64_t)K_WRITE << 32,
				   .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE };
	wr.wr.rdma.remote_addr = (uintptr_t)b->buf + OFF_READ;
	wr.wr.rdma.rkey = b->mr->rkey;
	post_send(a->rc, a, &wr);
	memset(a->buf + OFF_READ, 0, RDMA_LEN);
	sge = (struct ibv_sge){ .addr = (uintptr_t)a->buf + OFF_READ,
				.length = RDMA_LEN, .lkey = a->mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = (uint64_t)K_READ << 32,
				   .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_READ };
	wr.wr.rdma.remote_addr = (uintptr_t)b->buf + OFF_RDMA;
	wr.wr.rdma.rkey = b->mr->rkey;
	post_send(a->rc, a, &wr);
}

/* --until-removed: the caller may be taking the device away. */
static int going(void)
{
	return opt.until_removed && !access(opt.ready, F_OK);
}

/* Check what a completion says arrived. */
static void check_wc(struct pair *pr, int p, int j, int round,
		     const struct ibv_wc *wc)
{
	struct side *e = &pr->s[j];
	enum kind k = wc->wr_id >> 32;
	int i = wc->wr_id & 0xffffffff;
	unsigned char *m;

	if (wc->status != IBV_WC_SUCCESS) {
		rep->flushed++;
		if (!going())
			fail("pair %d side %d round %d: %s completion of kind %d: %s",
			     p, j, round, wc->qp_num == e->ud->qp_num ? "UD" : "RC",
			     k, ibv_wc_status_str(wc->status));
		return;
	}
	switch (k) {
	case K_RECV:
		m = e->buf + OFF_RECV + i * MSG_LEN;
		if (wc->byte_len != MSG_LEN ||
		    !same(m, MSG_LEN, seed_of(p, !j, round, i, 0)))
			fail("pair %d side %d round %d: RC message %d corrupted (%u bytes)",
			     p, j, round, i, wc->byte_len);
		rep->bytes += MSG_LEN;
		break;
	case K_UDRECV:
		m = e->buf + OFF_UDRECV + i * UD_SLOT;
		if (wc->byte_len != UD_SLOT ||
		    !same(m + GRH_LEN, MSG_LEN, seed_of(p, !j, round, i, 1)) ||
		    wc->src_qp != pr->s[!j].ud->qp_num)
			fail("pair %d side %d round %d: UD datagram %d corrupted (%u bytes, from QP %#x)",
			     p, j, round, i, wc->byte_len, wc->src_qp);
		rep->bytes += MSG_LEN;
		break;
	case K_READ:
		if (!same(e->buf + OFF_READ, RDMA_LEN, 0x5a5a + p))
			fail("pair %d round %d: READ data corrupted", p, round);
		rep->bytes += RDMA_LEN;
		break;
	case K_WRITE:
		rep->bytes += RDMA_LEN;
		break;
	case K_SEND:
	case K_UDSEND:
		break;
	default:
		fail("pair %d side %d: completion with wr_id %#llx", p, j,
		     (unsigned long long)wc->wr_id);
	}
	rep->ops++;
}

/* The async events of a side, without waiting. */
static void drain_events(struct side *e, int p, int j)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	while (poll(&pfd, 1, 0) > 0) {
		if (ibv_get_async_event(e->ctx, &ev))
			return;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL && opt.until_removed) {
			if (!e->removed)
				rep->fatal_events++;
			e->removed = 1;
			continue;
		}
		/* a port going down, QPs failing: the device is going */
		if (going()) {
			rep->other_events++;
			continue;
		}
		/* what a lying device says of live objects, not a failure */
		if (opt.hostile && ev.event_type != IBV_EVENT_DEVICE_FATAL) {
			rep->lies++;
			continue;
		}
		fail("pair %d side %d: unexpected async event %s",
		     p, j, ibv_event_type_str(ev.event_type));
	}
}

static int all_removed(void)
{
	int p, j;

	for (p = 0; p < opt.pairs; p++)
		for (j = 0; j < 2; j++)
			if (!pairs[p].s[j].removed)
				return 0;
	return 1;
}

/*
 * Once the device went: every context has its DEVICE_FATAL, and a verb
 * that reaches the kernel fails. Then close everything.
 */
static void removed_end(void)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	double end = now_ms() + REMOVED_MS;
	int p, j;

	while (!all_removed() && now_ms() < end) {
		for (p = 0; p < opt.pairs; p++)
			for (j = 0; j < 2; j++)
				drain_events(&pairs[p].s[j], p, j);
		usleep(10000);
	}
	if (!all_removed())
		fail("device gone: DEVICE_FATAL on %d of %d contexts in %d s",
		     rep->fatal_events, 2 * opt.pairs, REMOVED_MS / 1000);
	for (p = 0; p < opt.pairs; p++)
		for (j = 0; j < 2; j++) {
			struct side *e = &pairs[p].s[j];

			if (ibv_query_qp(e->rc, &a, IBV_QP_STATE, &ia))
				rep->eio += errno == (opt.dead ? ENOLINK : EIO);
			else
				fail("ibv_query_qp succeeded after removal");
			/* the rest may fail: it must not crash or hang */
			ibv_destroy_qp(e->rc);
			ibv_destroy_qp(e->ud);
			ibv_destroy_ah(e->ah);
			ibv_destroy_cq(e->cq);
			ibv_dereg_mr(e->mr);
			ibv_dealloc_pd(e->pd);
			if (ibv_close_device(e->ctx))
				fail("ibv_close_device: %s", strerror(errno));
		}
	rep->done = 1;
	exit(0);
}

static void run_round(int round)
{
	double last = now_ms();
	struct ibv_wc wc[16];
	int p, j, n, i, left;

	for (p = 0; p < opt.pairs; p++)
		post_round(&pairs[p], p, round);
	for (;;) {
		left = 0;
		for (p = 0; p < opt.pairs; p++)
			for (j = 0; j < 2; j++) {
				struct side *e = &pairs[p].s[j];

				if (!e->pending)
					continue;
				n = ibv_poll_cq(e->cq, 16, wc);
				if (n < 0)
					fail("ibv_poll_cq: %d", n);
				for (i = 0; i < n; i++)
					check_wc(&pairs[p], p, j, round, &wc[i]);
				e->pending -= n;
				if (e->pending < 0)
					fail("pair %d side %d: more completions than work",
					     p, j);
				left += e->pending;
				if (n)
					last = now_ms();
			}
		if (!left)
			break;
		/*
		 * Nothing for a millisecond: nap as an idle poller does,
		 * leaving the CPUs to the device and the kernel (2 vCPUs
		 * under TCG: busy polling starves a removal).
		 */
		if (now_ms() - last > 1)
			usleep(500);
		if (now_ms() - last > 200) {
			for (p = 0; p < opt.pairs; p++)
				for (j = 0; j < 2; j++)
					drain_events(&pairs[p].s[j], p, j);
			if (opt.until_removed && rep->fatal_events)
				removed_end();
		}
		if (now_ms() - last > (opt.until_removed ? REMOVED_MS : ROUND_MS))
			fail("round %d: %d completions missing after %d s", round,
			     left, (opt.until_removed ? REMOVED_MS : ROUND_MS) / 1000);
	}
	rep->rounds++;
}

/*
 * The CQ overrun: more signaled SENDs than the requester's CQ holds, that
 * CQ never polled; IBV_EVENT_CQ_ERR for it must come.
 */
static void overrun(void)
{
	struct side *a = &pairs[0].s[0], *b = &pairs[0].s[1];
	struct ibv_cq *small, *big;
	struct ibv_qp *qa, *qb;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = a->ctx->async_fd, .events = POLLIN };
	struct ibv_wc wc;
	double end;
	int n, i, got = 0;

	small = ibv_create_cq(a->ctx, OVERRUN_CQE, NULL, NULL, 0);
	if (!small)
		fail("ibv_create_cq (small): %s", strerror(errno));
	n = small->cqe + 8;
	big = ibv_create_cq(b->ctx, 2 * n, NULL, NULL, 0);
	if (!big)
		fail("ibv_create_cq: %s", strerror(errno));
	qa = new_qp(a, IBV_QPT_RC, small, small, n);
	qb = new_qp(b, IBV_QPT_RC, big, big, n);
	errno = rc_connect(qa, a, qb, b);
	if (!errno)
		errno = rc_connect(qb, b, qa, a);
	if (errno)
		fail("overrun QPs: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)b->buf + OFF_RECV,
				       .length = MSG_LEN, .lkey = b->mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = K_OVERRUN, .sg_list = &sge,
					   .num_sge = 1 }, *rbad;
		struct ibv_sge ssge = { .addr = (uintptr_t)a->buf + OFF_SEND,
					.length = MSG_LEN, .lkey = a->mr->lkey };
		struct ibv_send_wr swr = { .wr_id = K_OVERRUN, .sg_list = &ssge,
					   .num_sge = 1, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		if (ibv_post_recv(qb, &rwr, &rbad))
			fail("overrun: ibv_post_recv: %s", strerror(errno));
		if (ibv_post_send(qa, &swr, &sbad))
			fail("overrun: ibv_post_send: %s", strerror(errno));
	}
	end = now_ms() + OVERRUN_MS;
	while (!rep->overrun_event && now_ms() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (ibv_get_async_event(a->ctx, &ev))
			fail("ibv_get_async_event: %s", strerror(errno));
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_CQ_ERR &&
		    ev.element.cq == small)
			rep->overrun_event = 1;
		else if (ev.event_type == IBV_EVENT_QP_FATAL &&
			 ev.element.qp == qa)
			continue;	/* its QP may stop, as on a card */
		else
			fail("overrun: unexpected async event %s",
			     ibv_event_type_str(ev.event_type));
	}
	if (!rep->overrun_event)
		fail("overrun: no IBV_EVENT_CQ_ERR for a CQ of %d entries after %d SENDs",
		     small->cqe, n);
	/*
	 * The responder saw at least what the small CQ took before it
	 * overran (the requester may stop there, as a card's does), with
	 * its data.
	 */
	end = now_ms() + 500;
	while (got < n && now_ms() < end) {
		i = ibv_poll_cq(big, 1, &wc);
		if (i < 0)
			fail("ibv_poll_cq: %d", i);
		if (i && wc.status != IBV_WC_SUCCESS)
			fail("overrun: responder completion %s",
			     ibv_wc_status_str(wc.status));
		got += i;
	}
	if (got < small->cqe)
		fail("overrun: the responder got %d of %d messages", got, n);
	if (ibv_destroy_qp(qa) || ibv_destroy_qp(qb) ||
	    ibv_destroy_cq(small) || ibv_destroy_cq(big))
		fail("overrun: destroy: %s", strerror(errno));
	rep->qps -= 2;
}

/* SIGUSR1: end after the round under way (a caller done with the load) */
static volatile sig_atomic_t stop_rounds;
static pid_t pid[MAX_PROCS];

static void on_usr1(int sig)
{
	int i, saved = errno;

	(void)sig;
	stop_rounds = 1;
	for (i = 0; i < opt.procs; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGUSR1);
	errno = saved;
}

static void child(void)
{
	double end;
	int p, round = 0;

	/* its SIGUSR1 ends its rounds only: it has no processes to tell */
	memset(pid, 0, sizeof(pid));
	for (p = 0; p < opt.pairs; p++)
		setup_pair(&pairs[p], p);
	if (opt.overrun)
		overrun();
	end = now_ms() + opt.seconds * 1e3;
	while (opt.until_removed || (now_ms() < end && !stop_rounds)) {
		run_round(round++);
		/* --until-removed: its S seconds run; --ready: a round */
		if (opt.ready && !rep->running &&
		    (!opt.until_removed || now_ms() >= end))
			__atomic_store_n(&rep->running, 1, __ATOMIC_RELEASE);
	}
	for (p = 0; p < opt.pairs; p++) {
		int j;

		for (j = 0; j < 2; j++) {
			struct side *e = &pairs[p].s[j];

			drain_events(e, p, j);
			if (ibv_destroy_qp(e->rc) || ibv_destroy_qp(e->ud) ||
			    ibv_destroy_ah(e->ah) || ibv_destroy_cq(e->cq) ||
			    ibv_dereg_mr(e->mr) || ibv_dealloc_pd(e->pd) ||
			    ibv_close_device(e->ctx))
				fail("teardown: %s", strerror(errno));
		}
	}
	rep->done = 1;
	exit(0);
}

static int parse(int argc, char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--procs") && i + 1 < argc)
			opt.procs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
			opt.pairs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			opt.seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			opt.batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--until-removed") && i + 1 < argc) {
			opt.until_removed = 1;
			opt.ready = argv[++i];
		}
		else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
			opt.ready = argv[++i];
		else if (!strcmp(argv[i], "--no-overrun"))
			opt.overrun = 0;
		else if (!strcmp(argv[i], "--dead"))
			opt.dead = 1;
		else if (!strcmp(argv[i], "--hostile-events"))
			opt.hostile = 1;
		else if (argv[i][0] != '-' && n < 2)
			opt.dev[n++] = argv[i];
		else
			return -1;
	}
	if (!n || opt.procs < 1 || opt.procs > MAX_PROCS || opt.pairs < 1 ||
	    opt.pairs > MAX_PAIRS || opt.batch < 1 || opt.batch > MAX_BATCH ||
	    opt.seconds < 0)
		return -1;
	if (n == 1)
		opt.dev[1] = opt.dev[0];
	return 0;
}

/* READY_FILE once every process runs, or one failed. */
static void wait_running(struct report *reps)
{
	double end = now_ms() + 600e3;
	int i, n = 0;
	FILE *f;

	while (n < opt.procs && now_ms() < end) {
		usleep(50000);
		for (i = n = 0; i < opt.procs; i++) {
			if (reps[i].why[0])
				return;
			n += __atomic_load_n(&reps[i].running, __ATOMIC_ACQUIRE);
		}
	}
	if (n < opt.procs)
		return;
	f = fopen(opt.ready, "w");
	if (f)
		fclose(f);
	printf("load: %d processes running%s\n", n,
	       opt.until_removed ? ", device may go" : "");
}

int main(int argc, char **argv)
{
	unsigned long long ops = 0, bytes = 0, rounds = 0;
	int i, st, qps = 0, ctxs = 0, overruns = 0, fatal = 0, eio = 0;
	int flushed = 0, other = 0, lies = 0, ok = 0;
	struct sigaction sa = {};
	struct report *reps;
	double t0 = now_ms();

	if (parse(argc, argv)) {
		fprintf(stderr, "usage: load [--procs N] [--pairs N] [--seconds S] [--batch K] [--until-removed READY_FILE [--dead]] [--no-overrun] [--hostile-events] [--ready FILE] DEV [PEER_DEV]\n");
		return 2;
	}
	reps = mmap(NULL, MAX_PROCS * sizeof(*reps), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reps == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(reps, 0, MAX_PROCS * sizeof(*reps));
	setvbuf(stdout, NULL, _IOLBF, 0);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < opt.procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("fork");
			return 2;
		}
		if (!pid[i]) {
			rep = &reps[i];
			child();
		}
	}
	if (opt.ready)
		wait_running(reps);
	for (i = 0; i < opt.procs; i++) {
		struct report *r = &reps[i];

		if (waitpid(pid[i], &st, 0) < 0) {
			perror("waitpid");
			return 2;
		}
		if (WIFSIGNALED(st))
			check(0, "process %d killed by signal %d (%s)", i,
			      WTERMSIG(st), r->why);
		else if (WEXITSTATUS(st) || !r->done)
			check(0, "process %d: %s", i, r->why[0] ? r->why :
			      "ended with an error");
		else
			ok++;
		ops += r->ops;
		bytes += r->bytes;
		rounds += r->rounds;
		qps += r->qps;
		ctxs += r->contexts;
		overruns += r->overrun_event;
		fatal += r->fatal_events;
		eio += r->eio;
		flushed += r->flushed;
		other += r->other_events;
		lies += r->lies;
	}
	check(ok == opt.procs, "%d of %d processes ended well", ok, opt.procs);
	if (opt.overrun)
		check(overruns == opt.procs,
		      "CQ overrun: IBV_EVENT_CQ_ERR in %d of %d processes, the traffic after it clean",
		      overruns, opt.procs);
	if (opt.until_removed)
		check(fatal == ctxs && eio == ctxs,
		      "device %s: DEVICE_FATAL on %d of %d contexts, %s on %d, %d completions flushed, %d other events",
		      opt.dead ? "dead" : "removed", fatal, ctxs,
		      opt.dead ? "ENOLINK" : "EIO", eio, flushed, other);
	printf("load: %d processes, %d contexts, %d QPs, %llu rounds, %llu completions, %llu MB, %.1f s%s",
	       opt.procs, ctxs, qps, rounds, ops, bytes >> 20,
	       (now_ms() - t0) / 1e3, opt.hostile ? "" : "\n");
	if (opt.hostile)
		printf(", %d lying async events taken\n", lies);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
