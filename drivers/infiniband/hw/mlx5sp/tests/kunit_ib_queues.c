// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite for the receive and completion queue features of the RDMA
 * device, as a kernel ULP on a model device sees them: an SRQ shared by
 * RC QPs (free list, overflow, the limit event, bad attributes), CQ resize
 * (grow and shrink with CQEs outstanding, and a shrink below them that
 * firmware refuses), and UC QPs (SEND and RDMA WRITE, a message without a
 * receive WQE dropped with the requester unaware, RDMA READ refused).
 */
#include <kunit/test.h>
#include <linux/delay.h>

#include "ib.h"
#include "sim/mlx5sp_sim.h"
#include "kunit_ulp.h"

/* Nothing more arrives within a while. */
static bool qt_cq_quiet(struct ulp *t)
{
	struct ib_wc wc;

	msleep(100);
	return ib_poll_cq(t->cq, 1, &wc) == 0;
}

static void qt_srq_event(struct ib_event *ev, void *ctx)
{
	struct ulp *t = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		complete(&t->srq_limit);
}

/* A model device, a PD, a CQ and an SRQ when asked, no QPs yet. */
static struct ulp *qt_setup(struct kunit *test, int cqe, bool srq)
{
	struct ib_srq_init_attr sa = {
		.event_handler = qt_srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct ulp *t = ulp_open(test, "ku_q0", cqe);

	if (srq) {
		sa.srq_context = t;
		t->srq = ib_create_srq(t->pd, &sa);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->srq), "srq: %ld",
				       PTR_ERR(t->srq));
		/* max_wr + 1 rounded up, one WQE always free */
		KUNIT_EXPECT_EQ(test, sa.attr.max_wr, 7u);
	}
	return t;
}

/* Two connected QPs of @type; QP 1 receives from the SRQ if there is one. */
static void qt_qps(struct kunit *test, struct ulp *t, enum ib_qp_type type)
{
	struct ib_qp_init_attr qa = {
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	ulp_pair(test, t, &qa);
}

static int qt_post_send(struct ulp *t, enum ib_wr_opcode op, u64 wr_id,
			u32 len, u32 off)
{
	struct ib_sge sge = { .addr = t->dma[0] + off, .length = len,
			      .lkey = t->pd->local_dma_lkey };
	struct ib_rdma_wr w = {
		.wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = t->dma[1] + off,
		.rkey = t->pd->unsafe_global_rkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(t->qp[0], &w.wr, &bad);
}

static void qt_fill(void *buf, u8 seed)
{
	u8 *p = buf;
	int i;

	for (i = 0; i < ULP_BUF; i++)
		p[i] = seed + i * 7;
}

static int qt_post_srq(struct ulp *t, u64 wr_id, u32 off)
{
	struct ib_sge sge = { .addr = t->dma[1] + off, .length = 256,
			      .lkey = t->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_srq_recv(t->srq, &wr, &bad);
}

static void srq_traffic(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 64, true);
	struct ib_srq_attr sattr = {};
	struct ib_wc wc[8];
	u64 seen = 0;
	int i, n;

	qt_qps(test, t, IB_QPT_RC);
	qt_fill(t->buf[0], 3);
	/* 7 WQEs fit; the 8th overflows */
	for (i = 0; i < 7; i++)
		KUNIT_ASSERT_EQ(test, qt_post_srq(t, 100 + i, i * 256), 0);
	KUNIT_EXPECT_EQ(test, qt_post_srq(t, 107, 0), -ENOMEM);

	/* armed at 5 with 7 posted: no event until three are used */
	sattr.srq_limit = 5;
	KUNIT_ASSERT_EQ(test, ib_modify_srq(t->srq, &sattr, IB_SRQ_LIMIT), 0);
	KUNIT_ASSERT_EQ(test, ib_query_srq(t->srq, &sattr), 0);
	KUNIT_EXPECT_EQ(test, sattr.srq_limit, 5u);
	KUNIT_EXPECT_EQ(test, sattr.max_wr, 7u);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_SEND, i, 100 + i,
						   i * 256), 0);
	n = poll_n(t, wc, 6);
	KUNIT_ASSERT_EQ(test, n, 6);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].opcode != IB_WC_RECV)
			continue;
		/* WQEs are taken in list order: 100, 101, 102 */
		KUNIT_EXPECT_EQ(test, wc[i].byte_len, 100u + (u32)(wc[i].wr_id - 100));
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, t->qp[1]);
		seen |= BIT_ULL(wc[i].wr_id - 100);
	}
	KUNIT_EXPECT_EQ(test, seen, 0x7ULL);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], 100), 0);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&t->srq_limit,
							  msecs_to_jiffies(ULP_TIMEOUT_MS)),
			0ul);
	/* fired: disarmed */
	KUNIT_ASSERT_EQ(test, ib_query_srq(t->srq, &sattr), 0);
	KUNIT_EXPECT_EQ(test, sattr.srq_limit, 0u);

	/* the three used WQEs are free again, and no more */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, qt_post_srq(t, 200 + i, 0), 0);
	KUNIT_EXPECT_EQ(test, qt_post_srq(t, 203, 0), -ENOMEM);

	/* bad input: no resize, a limit beyond the SRQ */
	sattr.max_wr = 16;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(t->srq, &sattr, IB_SRQ_MAX_WR), -EINVAL);
	sattr.srq_limit = 8;
	KUNIT_EXPECT_EQ(test, ib_modify_srq(t->srq, &sattr, IB_SRQ_LIMIT), -EINVAL);
}

static void srq_bad_input(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 16, true);
	struct ib_srq_init_attr sa = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct ib_sge sge[2] = {};
	struct ib_recv_wr wr = { .sg_list = sge, .num_sge = 2 };
	const struct ib_recv_wr *bad = NULL;
	struct ib_srq *srq;

	/* too many SGEs for one WQE, too many WRs */
	sa.attr.max_sge = 64;
	srq = ib_create_srq(t->pd, &sa);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(srq), -EINVAL);
	sa.attr.max_sge = 1;
	sa.attr.max_wr = t->ibdev->attrs.max_srq_wr + 1;
	srq = ib_create_srq(t->pd, &sa);
	KUNIT_EXPECT_TRUE(test, IS_ERR(srq));
	if (!IS_ERR(srq))
		ib_destroy_srq(srq);
	KUNIT_EXPECT_GT(test, t->ibdev->attrs.max_srq, 0);
	KUNIT_EXPECT_GT(test, t->ibdev->attrs.max_srq_sge, 0);

	/* a WR with more SGEs than the SRQ holds */
	KUNIT_EXPECT_EQ(test, ib_post_srq_recv(t->srq, &wr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_recv_wr *)&wr);
}

static void cq_resize(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 3, false);
	struct ib_wc wc[8];
	int i;

	qt_qps(test, t, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, t->cq->cqe, 3);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(t->cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(t->cq, t->ibdev->attrs.max_cqe + 1),
			-EINVAL);

	/* grow with three CQEs outstanding: they survive, in order */
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, i, 64, 0), 0);
	msleep(100);
	KUNIT_ASSERT_EQ(test, ib_resize_cq(t->cq, 12), 0);
	KUNIT_EXPECT_EQ(test, t->cq->cqe, 15);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 3), 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, (u64)i);
	}

	/* shrink below what is outstanding: refused, nothing lost */
	for (i = 0; i < 6; i++)
		KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 10 + i,
						   64, 0), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(t->cq, 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, t->cq->cqe, 15);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 6), 6);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 10ULL + i);

	/* shrink with one outstanding, and the CQ goes on */
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 20, 64, 0), 0);
	msleep(100);
	KUNIT_ASSERT_EQ(test, ib_resize_cq(t->cq, 3), 0);
	KUNIT_EXPECT_EQ(test, t->cq->cqe, 3);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 21, 64, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 20ULL);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 21ULL);
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));
}

static void uc_traffic(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 64, false);
	struct ib_sge rsge = { .length = ULP_BUF, .lkey = 0 };
	struct ib_recv_wr rwr = { .wr_id = 50, .sg_list = &rsge, .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	struct ib_qp_init_attr init;
	struct ib_qp_attr a = {};
	struct ib_wc wc[2];

	qt_qps(test, t, IB_QPT_UC);
	rsge.addr = t->dma[1];
	rsge.lkey = t->pd->local_dma_lkey;

	/* SEND without a receive WQE: dropped, the requester completes */
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_SEND, 1, 32, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ULL);
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));

	/* SEND with one: both complete, the data is there */
	qt_fill(t->buf[0], 9);
	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[1], &rwr, &rbad), 0);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_SEND, 2, 500, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id + wc[1].wr_id, 52ULL);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], 500), 0);

	/* RDMA WRITE */
	qt_fill(t->buf[0], 33);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 3, ULP_BUF, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], ULP_BUF), 0);

	/* UC takes no responder attributes of RC */
	a.max_dest_rd_atomic = 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(t->qp[1], &a, IB_QP_MAX_DEST_RD_ATOMIC),
			-EINVAL);
	a.qp_access_flags = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_NE(test, ib_modify_qp(t->qp[1], &a, IB_QP_ACCESS_FLAGS), 0);

	/* RDMA READ on UC: an error completion, the QP in error */
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_READ, 4, 64, 0), 0);
	KUNIT_ASSERT_EQ(test, poll_n(t, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 4ULL);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[0], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_ERR);
	/* the responder never heard of it */
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[1], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTS);
}

static void uc_bad_rkey(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 64, false);
	struct ib_sge sge;
	struct ib_rdma_wr w = {
		.wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED },
		.rkey = 0xbad00,
	};
	const struct ib_send_wr *bad;
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;
	struct ib_wc wc;

	qt_qps(test, t, IB_QPT_UC);
	sge.addr = t->dma[0];
	sge.length = 64;
	sge.lkey = t->pd->local_dma_lkey;
	w.remote_addr = t->dma[1];
	/* a bad rkey at the responder: dropped there, unknown to us */
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &w.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(t, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[0], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTS);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[1], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));
}

/* Completion events of a CQ of the test's own. */
struct qt_cq_ev {
	struct completion done;
	atomic_t n;
};

static void qt_cq_comp(struct ib_cq *cq, void *ctx)
{
	struct qt_cq_ev *ev = ctx;

	atomic_inc(&ev->n);
	complete(&ev->done);
}

struct qt_two_cqs {
	struct ulp *t;
	struct ib_cq *cq[2];
	struct qt_cq_ev ev[2];
};

/* The QPs go before the CQs they use. */
static void qt_two_cqs_exit(void *data)
{
	struct qt_two_cqs *c = data;
	int i;

	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(c->t->qp[i]))
			ib_destroy_qp(c->t->qp[i]);
		c->t->qp[i] = NULL;
	}
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(c->cq[i]))
			ib_destroy_cq(c->cq[i]);
}

static u64 qt_cqes_written(struct kunit *test, struct ulp *t)
{
	struct mlx5sp_sim_stats *st = kunit_kzalloc(test, sizeof(*st),
						     GFP_KERNEL);
	u64 n;

	KUNIT_ASSERT_NOT_NULL(test, st);
	mlx5sp_sim_get_stats(t->sim, st);
	n = st->cqes_written;
	kunit_kfree(test, st);
	return n;
}

/*
 * Two kernel CQs share the driver's UAR page and arm back to back before
 * the device looks (their first arm: sn 0, ci 0, a record of 0 as at
 * creation). A ConnectX takes each doorbell write; both CQs must fire.
 */
static void cq_arm_shared_uar(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 16, false);
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_sge rsge = { .addr = t->dma[1], .length = 64,
			       .lkey = t->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 };
	const struct ib_recv_wr *rbad;
	unsigned long end, left;
	struct qt_two_cqs *c;
	struct ib_wc wc;
	u64 base;
	int i;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->t = t;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, qt_two_cqs_exit, c));
	for (i = 0; i < 2; i++) {
		init_completion(&c->ev[i].done);
		c->cq[i] = ib_create_cq(t->ibdev, qt_cq_comp, NULL, &c->ev[i], &ca);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(c->cq[i]), "cq: %ld",
				       PTR_ERR(c->cq[i]));
	}
	qa.send_cq = c->cq[0];
	qa.recv_cq = c->cq[1];
	ulp_pair(test, t, &qa);

	/* one CQE on each, not polled: both CQs still at ci 0 */
	base = qt_cqes_written(test, t);
	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[1], &rwr, &rbad), 0);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_SEND, 3, 64, 0), 0);
	end = jiffies + msecs_to_jiffies(ULP_TIMEOUT_MS);
	while (qt_cqes_written(test, t) < base + 2 && time_before(jiffies, end))
		usleep_range(5000, 10000);
	KUNIT_ASSERT_EQ(test, qt_cqes_written(test, t), base + 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->ev[0].n) + atomic_read(&c->ev[1].n), 0);

	/* both arms land before the engine looks (it is held meanwhile) */
	mlx5sp_sim_stop_health_counter(t->sim, true);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, ib_req_notify_cq(c->cq[i], IB_CQ_NEXT_COMP), 0);
	mlx5sp_sim_stop_health_counter(t->sim, false);

	for (i = 0; i < 2; i++) {
		left = wait_for_completion_timeout(&c->ev[i].done,
						   msecs_to_jiffies(2000));
		KUNIT_EXPECT_NE_MSG(test, left, 0, "CQ %d: no completion event", i);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(c->cq[i], 1, &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, i ? 7ULL : 3ULL);
	}
}

#define QT_DRAIN_RECVS	255
#define QT_DRAIN_ROUNDS	16

/*
 * ib_drain_rq's pattern: receives posted, the QP to ERR, one more receive
 * posted at once, while the device is still flushing the others. Every
 * one of them completes, flushed, the last one last.
 */
static void rq_flush_drain(struct kunit *test)
{
	struct ulp *t = qt_setup(test, 2 * (QT_DRAIN_RECVS + 1), false);
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = t->cq,
		.recv_cq = t->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = QT_DRAIN_RECVS + 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_sge sge = { .addr = t->dma[1], .length = 64,
			      .lkey = t->pd->local_dma_lkey };
	struct ib_recv_wr *wr, drain = { .wr_id = U32_MAX, .sg_list = &sge,
					 .num_sge = 1 };
	const struct ib_recv_wr *bad;
	struct ib_qp_attr a = {};
	struct ib_wc *wc;
	int i, r, got;

	wr = kunit_kcalloc(test, QT_DRAIN_RECVS, sizeof(*wr), GFP_KERNEL);
	wc = kunit_kcalloc(test, QT_DRAIN_RECVS + 1, sizeof(*wc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wr);
	KUNIT_ASSERT_NOT_NULL(test, wc);
	for (i = 0; i < QT_DRAIN_RECVS; i++) {
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < QT_DRAIN_RECVS ? &wr[i + 1] : NULL;
	}
	t->qp[0] = ib_create_qp(t->pd, &qa);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->qp[0]), "qp: %ld",
			       PTR_ERR(t->qp[0]));

	for (r = 0; r < QT_DRAIN_ROUNDS; r++) {
		a.qp_state = IB_QPS_RESET;
		KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[0], &a, IB_QP_STATE), 0);
		a.qp_state = IB_QPS_INIT;
		a.port_num = 1;
		a.pkey_index = 0;
		a.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
		KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[0], &a, IB_QP_STATE |
						   IB_QP_PKEY_INDEX | IB_QP_PORT |
						   IB_QP_ACCESS_FLAGS), 0);
		for (i = 0; i < QT_DRAIN_RECVS; i++)
			wr[i].wr_id = i;
		KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[0], wr, &bad), 0);
		a.qp_state = IB_QPS_ERR;
		KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[0], &a, IB_QP_STATE), 0);
		KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[0], &drain, &bad), 0);

		got = poll_n(t, wc, QT_DRAIN_RECVS + 1);
		KUNIT_ASSERT_EQ_MSG(test, got, QT_DRAIN_RECVS + 1, "round %d", r);
		for (i = 0; i < got; i++)
			KUNIT_ASSERT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[got - 1].wr_id, (u64)U32_MAX);
	}
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));
}

static struct kunit_case queues_cases[] = {
	KUNIT_CASE_SLOW(srq_traffic),
	KUNIT_CASE_SLOW(srq_bad_input),
	KUNIT_CASE_SLOW(cq_resize),
	KUNIT_CASE_SLOW(uc_traffic),
	KUNIT_CASE_SLOW(uc_bad_rkey),
	KUNIT_CASE_SLOW(cq_arm_shared_uar),
	KUNIT_CASE_SLOW(rq_flush_drain),
	{}
};

static struct kunit_suite queues_suite = {
	.name = "mlx5sp_ib_queues",
	.test_cases = queues_cases,
};

kunit_test_suites(&queues_suite);
