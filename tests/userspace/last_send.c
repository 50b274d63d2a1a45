// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The last message before a shutdown, from user space: a ConnectX
 * executes every WQE whose doorbell rang before a firmware command takes
 * the QP out of RTS, so a program that posts its last SENDs and at once
 * moves its QP to ERR (SQD, RESET) or destroys it has them sent, not
 * flushed.
 *
 * usage: last_send DEV [PEER_DEV [ROUNDS]]
 *
 * Each round connects an RC QP on DEV to one on PEER_DEV (DEV by
 * default), posts receives on the peer, posts 1 to MAX_MSG SENDs on the
 * first QP through libmlx5's user doorbells (the doorbell record, then a
 * doorbell store per post of one inline WQE in even rounds, one after a
 * chain of WRs in odd rounds; a write-combining UAR of a card takes the
 * inline WQE by BlueFlame, a model's UAR is not one) and at once moves or
 * destroys it. Every message must reach the peer's receive with its data;
 * after ERR and SQD every SEND completes successfully (and SQD raises
 * SQ_DRAINED). ROUNDS (200) rounds for each of the four.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "roce.h"

#define MAX_MSG		24
#define MSG_LEN		64
#define BUF_SIZE	(2 * MAX_MSG * MSG_LEN)
#define WAIT_MS		2000
#define MAX_FAILS	5	/* failed rounds shown; then the next case */

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

enum how { HOW_ERR, HOW_SQD, HOW_RESET, HOW_DESTROY, HOW_NR };

static const char *const how_name[HOW_NR] = {
	"QP to ERR", "QP to SQD", "QP to RESET", "QP destroyed",
};

static struct end snd, rcv;

static void open_end(struct end *e, const char *name)
{
	e->ctx = open_dev_by_name(name);
	e->gid_index = roce_port_gid(e->ctx, &e->gid, &e->mtu);
	if (e->gid_index < 0)
		fatal_err("no GID", ENOENT);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 4 * MAX_MSG, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		fatal_err("ibv_alloc_pd/ibv_create_cq", errno);
	if (posix_memalign((void **)&e->buf, 4096, BUF_SIZE))
		fatal_err("posix_memalign", ENOMEM);
	memset(e->buf, 0, BUF_SIZE);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		fatal_err("ibv_reg_mr", errno);
}

static int modify(struct end *e, enum ibv_qp_state state, struct end *peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE |
				     IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
	case IBV_QPS_RTR:
		a.path_mtu = e->mtu < peer->mtu ? e->mtu : peer->mtu;
		a.dest_qp_num = peer->qp->qp_num;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer->gid;
		a.ah_attr.grh.sgid_index = e->gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	default:
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE);
	}
}

static void create_qp(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = MAX_MSG, .max_recv_wr = MAX_MSG,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = MSG_LEN },
	};

	e->qp = ibv_create_qp(e->pd, &ia);
	if (!e->qp)
		fatal_err("ibv_create_qp", errno);
}

static void connect_qps(void)
{
	create_qp(&snd);
	create_qp(&rcv);
	errno = modify(&snd, IBV_QPS_INIT, NULL);
	if (!errno)
		errno = modify(&rcv, IBV_QPS_INIT, NULL);
	if (!errno)
		errno = modify(&snd, IBV_QPS_RTR, &rcv);
	if (!errno)
		errno = modify(&rcv, IBV_QPS_RTR, &snd);
	if (!errno)
		errno = modify(&snd, IBV_QPS_RTS, NULL);
	if (!errno)
		errno = modify(&rcv, IBV_QPS_RTS, NULL);
	if (errno)
		fatal_err("connect", errno);
}

static void destroy_qps(void)
{
	if (snd.qp && ibv_destroy_qp(snd.qp))
		fatal_err("ibv_destroy_qp", errno);
	if (ibv_destroy_qp(rcv.qp))
		fatal_err("ibv_destroy_qp", errno);
	snd.qp = NULL;
	rcv.qp = NULL;
}

static unsigned char msg_byte(int round, int i)
{
	return (unsigned char)((round * 31 + i * 7) | 1);
}

static void post_recvs(int n)
{
	struct ibv_sge sge = { .length = MSG_LEN, .lkey = rcv.mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int i;

	memset(rcv.buf, 0, MAX_MSG * MSG_LEN);
	for (i = 0; i < n; i++) {
		sge.addr = (uintptr_t)rcv.buf + i * MSG_LEN;
		wr.wr_id = 1000 + i;
		errno = ibv_post_recv(rcv.qp, &wr, &bad);
		if (errno)
			fatal_err("ibv_post_recv", errno);
	}
}

/* Even rounds: one inline WQE a post (BlueFlame on a card); odd: a chain. */
static void post_sends(int round, int n)
{
	struct ibv_send_wr wr[MAX_MSG], *bad;
	struct ibv_sge sge[MAX_MSG];
	int i, bf = !(round & 1);

	for (i = 0; i < n; i++) {
		memset(snd.buf + i * MSG_LEN, msg_byte(round, i), MSG_LEN);
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)snd.buf + i * MSG_LEN,
			.length = MSG_LEN, .lkey = snd.mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED |
				      (bf ? IBV_SEND_INLINE : 0),
			.next = !bf && i + 1 < n ? &wr[i + 1] : NULL };
		if (bf) {
			errno = ibv_post_send(snd.qp, &wr[i], &bad);
			if (errno)
				fatal_err("ibv_post_send", errno);
		}
	}
	if (!bf) {
		errno = ibv_post_send(snd.qp, wr, &bad);
		if (errno)
			fatal_err("ibv_post_send", errno);
	}
}

static int move(enum how how)
{
	switch (how) {
	case HOW_ERR:
		return modify(&snd, IBV_QPS_ERR, NULL);
	case HOW_SQD:
		return modify(&snd, IBV_QPS_SQD, NULL);
	case HOW_RESET:
		return modify(&snd, IBV_QPS_RESET, NULL);
	default:
		if (ibv_destroy_qp(snd.qp))
			return errno;
		snd.qp = NULL;
		return 0;
	}
}

/* Up to @n good completions of @cq within WAIT_MS; @bad counts others. */
static int poll_good(struct ibv_cq *cq, int n, int *bad)
{
	double end = now_ms() + WAIT_MS;
	struct ibv_wc wc;
	int good = 0, r;

	*bad = 0;
	while (good + *bad < n && now_ms() < end) {
		r = ibv_poll_cq(cq, 1, &wc);
		if (r < 0)
			fatal_err("ibv_poll_cq", EIO);
		if (!r)
			continue;
		if (wc.status == IBV_WC_SUCCESS)
			good++;
		else
			(*bad)++;
	}
	return good;
}

static int sq_drained(void)
{
	struct pollfd pfd = { .fd = snd.ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	double end = now_ms() + WAIT_MS;
	int seen = 0;

	while (!seen && now_ms() < end) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (ibv_get_async_event(snd.ctx, &ev))
			break;
		seen = ev.event_type == IBV_EVENT_SQ_DRAINED;
		ibv_ack_async_event(&ev);
	}
	return seen;
}

/* One round: 0 when every message arrived (and completed). */
static int round_ok(enum how how, int round)
{
	int n = 1 + round % MAX_MSG, got, sent = n, bad, sbad = 0, i, same = 1;
	struct ibv_wc wc;

	connect_qps();
	post_recvs(n);
	post_sends(round, n);
	errno = move(how);
	if (errno)
		fatal_err(how_name[how], errno);
	got = poll_good(rcv.cq, n, &bad);
	if (how == HOW_ERR || how == HOW_SQD)
		sent = poll_good(snd.cq, n, &sbad);
	for (i = 0; i < got; i++)
		same &= !memcmp(rcv.buf + i * MSG_LEN, snd.buf + i * MSG_LEN,
				MSG_LEN);
	if (how == HOW_SQD && !sq_drained())
		sent = -1;
	if (how == HOW_ERR && ibv_poll_cq(snd.cq, 1, &wc) != 0)
		sent = -1;
	destroy_qps();
	/* what the destroyed or reset QP left in its CQ */
	while (ibv_poll_cq(snd.cq, 1, &wc) > 0)
		;
	if (got == n && !bad && sent == n && same)
		return 0;
	printf("  round %d, %d SENDs (%s): %d received, %d receive errors, %d completed well, %d send errors%s\n",
	       round, n, round & 1 ? "chain" : "one a post", got, bad,
	       sent, sbad, same ? "" : ", data differs");
	return 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 3 ? atoi(argv[3]) : 200, round, fails;
	double t0;
	enum how how;

	if (argc < 2 || rounds <= 0) {
		fprintf(stderr, "usage: last_send DEV [PEER_DEV [ROUNDS]]\n");
		return 2;
	}
	open_end(&snd, argv[1]);
	open_end(&rcv, argc > 2 ? argv[2] : argv[1]);
	for (how = 0; how < HOW_NR; how++) {
		t0 = now_ms();
		fails = 0;
		for (round = 0; round < rounds && fails < MAX_FAILS; round++)
			fails += round_ok(how, round);
		check(!fails, "%s at once after the last post: every message sent and received in %d rounds (%d failed%s, %.1f s)",
		      how_name[how], round, fails,
		      fails < MAX_FAILS ? "" : ", stopped there",
		      (now_ms() - t0) / 1e3);
	}
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
