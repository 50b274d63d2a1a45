// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbells rung before a command takes a QP out of RTS. A ConnectX's
 * send engine sees a doorbell long before a firmware command completes,
 * so every WQE posted before ib_modify_qp(ERR, SQD, RESET) or
 * ib_destroy_qp is executed, not flushed; programs written on cards rely
 * on it (a storage initiator's last message before it disconnects).
 *
 * Each round connects two RC QPs of one model device, posts as many
 * receives as messages on the second, posts 1 to DB_MAX SENDs (past the
 * model's per-pass budget) on the first in one call and at once moves the
 * first: every message arrives whole, in order, and (while the QP keeps
 * its completions: ERR, SQD) every SEND completes successfully. DB_ROUNDS
 * rounds, each count of SENDs twice, so that it cannot pass by the engine
 * happening to be quick.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <rdma/ib_verbs.h>

#include "kunit_ulp.h"

#define DB_MAX		48
#define DB_ROUNDS	(2 * DB_MAX)
#define DB_MSG		64

enum db_how {
	DB_ERR,
	DB_SQD,
	DB_RESET,
	DB_DESTROY,
};

static int db_move(struct ulp *u, enum db_how how)
{
	struct ib_qp_attr a = {};

	switch (how) {
	case DB_ERR:
		a.qp_state = IB_QPS_ERR;
		break;
	case DB_SQD:
		a.qp_state = IB_QPS_SQD;
		break;
	case DB_RESET:
		a.qp_state = IB_QPS_RESET;
		break;
	case DB_DESTROY:
		ib_destroy_qp(u->qp[0]);
		u->qp[0] = NULL;
		return 0;
	}
	return ib_modify_qp(u->qp[0], &a, IB_QP_STATE);
}

/* The work requests and completions of a round (too big for the stack). */
struct db_scratch {
	struct ib_send_wr swr[DB_MAX];
	struct ib_sge ssge[DB_MAX];
	struct ib_wc wc[2 * DB_MAX];
};

static u8 db_byte(int round, int i)
{
	return (round * 31 + i * 7) | 1;
}

static void db_round(struct kunit *test, struct ulp *u, struct db_scratch *s,
		     enum db_how how, int round)
{
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = DB_MAX, .max_recv_wr = DB_MAX,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	bool keeps_cqes = how == DB_ERR || how == DB_SQD;
	int n = 1 + round % DB_MAX, want = keeps_cqes ? 2 * n : n;
	struct ib_send_wr *swr = s->swr;
	struct ib_sge *ssge = s->ssge;
	struct ib_wc *wc = s->wc;
	int i, got, sends = 0, recvs = 0, drained;
	u8 *src = u->buf[0], *dst = u->buf[1];
	struct ib_sge rsge;
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };

	ulp_pair(test, u, &qa);
	memset(dst, 0, DB_MAX * DB_MSG);
	for (i = 0; i < n; i++) {
		rsge = (struct ib_sge){ .addr = u->dma[1] + i * DB_MSG,
					.length = DB_MSG,
					.lkey = u->pd->local_dma_lkey };
		rwr.wr_id = 1000 + i;
		KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[1], &rwr, NULL), 0);
	}
	for (i = 0; i < n; i++) {
		memset(src + i * DB_MSG, db_byte(round, i), DB_MSG);
		ssge[i] = (struct ib_sge){ .addr = u->dma[0] + i * DB_MSG,
					   .length = DB_MSG,
					   .lkey = u->pd->local_dma_lkey };
		swr[i] = (struct ib_send_wr){ .wr_id = i, .sg_list = &ssge[i],
					      .num_sge = 1,
					      .opcode = IB_WR_SEND,
					      .send_flags = IB_SEND_SIGNALED,
					      .next = i + 1 < n ? &swr[i + 1] :
								  NULL };
	}
	drained = atomic_read(&u->sq_drained);
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], swr, NULL), 0);
	KUNIT_ASSERT_EQ(test, db_move(u, how), 0);

	got = poll_n(u, wc, want);
	for (i = 0; i < got; i++) {
		if (wc[i].status != IB_WC_SUCCESS)
			continue;
		if (wc[i].opcode == IB_WC_RECV && wc[i].byte_len == DB_MSG)
			recvs++;
		else if (wc[i].opcode == IB_WC_SEND)
			sends++;
	}
	KUNIT_ASSERT_EQ_MSG(test, recvs, n,
			    "round %d (%d SENDs): %d received, %d completions",
			    round, n, recvs, got);
	if (keeps_cqes)
		KUNIT_ASSERT_EQ_MSG(test, sends, n,
				    "round %d (%d SENDs): %d completed well",
				    round, n, sends);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_TRUE_MSG(test,
				      !memcmp(dst + i * DB_MSG, src + i * DB_MSG,
					      DB_MSG),
				      "round %d: message %d has other data",
				      round, i);
	/* nothing else: no flush error after the successes */
	KUNIT_ASSERT_EQ(test, ib_poll_cq(u->cq, 1, wc), 0);
	if (how == DB_SQD) {
		for (i = 0; i < 1000 &&
		     atomic_read(&u->sq_drained) == drained; i++)
			usleep_range(500, 1000);
		KUNIT_ASSERT_EQ_MSG(test, atomic_read(&u->sq_drained),
				    drained + 1, "round %d: SQ_DRAINED", round);
	}
	for (i = 0; i < 2; i++) {
		if (u->qp[i])
			ib_destroy_qp(u->qp[i]);
		u->qp[i] = NULL;
	}
}

static void db_run(struct kunit *test, enum db_how how)
{
	struct ulp *u = ulp_open(test, "ku_db0", 4 * DB_MAX);
	struct db_scratch *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	int round;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (round = 0; round < DB_ROUNDS; round++)
		db_round(test, u, s, how, round);
}

/* Posted, then the QP to ERR: sent and completed, never flushed. */
static void db_then_err(struct kunit *test)
{
	db_run(test, DB_ERR);
}

/* RTS->SQD: the SQ drains what was posted before it stops. */
static void db_then_sqd(struct kunit *test)
{
	db_run(test, DB_SQD);
}

/* Reset drops the QP's completions, but what was posted went out. */
static void db_then_reset(struct kunit *test)
{
	db_run(test, DB_RESET);
}

/* DESTROY_QP of a QP with SENDs posted: they went out first. */
static void db_then_destroy(struct kunit *test)
{
	db_run(test, DB_DESTROY);
}

static struct kunit_case doorbell_cases[] = {
	KUNIT_CASE_SLOW(db_then_err),
	KUNIT_CASE_SLOW(db_then_sqd),
	KUNIT_CASE_SLOW(db_then_reset),
	KUNIT_CASE_SLOW(db_then_destroy),
	{}
};

static struct kunit_suite doorbell_suite = {
	.name = "mlx5sp_doorbell",
	.test_cases = doorbell_cases,
};

kunit_test_suites(&doorbell_suite);
