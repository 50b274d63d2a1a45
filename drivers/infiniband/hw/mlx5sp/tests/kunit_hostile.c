// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Hostile firmware: the driver never trusts what it reads from the device.
 * A model device lies on purpose (fault.c): page requests of absurd counts,
 * EQEs of every type (and of none) naming objects that do not exist or are
 * another's, CQEs naming a QP the CQ does not serve, unknown QPs, reserved
 * opcodes and random WQE counters, command statuses no PRM has, outputs
 * of garbage. The driver logs and drops; no memory
 * error (KASAN), the host's memory stays bounded, no completion names a QP
 * the CQ does not serve, and the device passes data afterwards.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mlx5/device.h>
#include <linux/random.h>
#include <rdma/ib_verbs.h>

#include "ib.h"
#include "kunit_ulp.h"
#include "sim/mlx5sp_sim.h"

#define HOSTILE_EQES	400
#define HOSTILE_CQES	12	/* each of the 6 ways twice */

static u64 pages_held(struct ulp *u)
{
	struct mlx5sp_sim_stats st;

	mlx5sp_sim_get_stats(u->sim, &st);
	return st.pages_held;
}

/*
 * The device's page count once the driver has answered every request:
 * its page work flushed until the count stays put.
 */
static u64 pages_settled(struct ulp *u)
{
	struct mlx5sp_dev *mdev = to_ibdev(u->ibdev)->mdev;
	u64 last = pages_held(u), now;
	int i;

	for (i = 0; i < 100; i++) {
		msleep(200);
		flush_workqueue(mdev->pages.wq);
		now = pages_held(u);
		if (now == last)
			break;
		last = now;
	}
	return now;
}

/* The RC pair the tests build again (ulp_pair() fills in CQs and context). */
static const struct ib_qp_init_attr hostile_pair_qp = {
	.qp_type = IB_QPT_RC,
	.sq_sig_type = IB_SIGNAL_REQ_WR,
	.cap = { .max_send_wr = 16, .max_recv_wr = 16,
		 .max_send_sge = 1, .max_recv_sge = 1 },
};

/* A SEND from QP 0 to QP 1 arrives and both complete: the device works. */
static void hostile_still_works(struct kunit *test, struct ulp *u)
{
	struct ib_sge rsge = { .addr = u->dma[1], .length = 64,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_sge ssge = { .addr = u->dma[0], .length = 64,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 77, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 78, .sg_list = &ssge, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc[2];
	int got;

	memset(u->buf[0], 0xa5, 64);
	memset(u->buf[1], 0, 64);
	KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &swr, NULL), 0);
	got = poll_n(u, wc, 2);
	KUNIT_ASSERT_EQ(test, got, 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(u->buf[0], u->buf[1], 64), 0);
}

/*
 * PAGE_REQUEST EQEs asking for 2^31 - 1 pages, then for all of them back
 * (and S32_MIN, whose negation overflows): the driver gives only up to
 * its bound, takes back what firmware returns, and works after.
 */
static void hostile_page_requests(struct kunit *test)
{
	struct ulp *u = ulp_setup_flags(test, 0);
	struct mlx5_eqe_page_req req = {};
	u64 before, high, after;

	before = pages_settled(u);
	req.num_pages = cpu_to_be32(S32_MAX);
	KUNIT_ASSERT_TRUE(test, mlx5sp_sim_post_eqe(u->sim,
			  MLX5_EVENT_TYPE_PAGE_REQUEST, 0, &req, sizeof(req)));
	high = pages_settled(u);
	kunit_info(test, "pages: %llu before, %llu after asking 2^31 - 1\n",
		   before, high);
	KUNIT_EXPECT_GT(test, high, before);
	/* the driver's bound: 1/8 of RAM, within 128 MiB and 4 GiB */
	KUNIT_EXPECT_LE(test, high - before,
			(u64)clamp_t(unsigned long, totalram_pages() / 8,
				     BIT(15), BIT(20)));

	req.num_pages = cpu_to_be32(-S32_MAX);
	KUNIT_ASSERT_TRUE(test, mlx5sp_sim_post_eqe(u->sim,
			  MLX5_EVENT_TYPE_PAGE_REQUEST, 0, &req, sizeof(req)));
	after = pages_settled(u);
	req.num_pages = cpu_to_be32(S32_MIN);
	KUNIT_ASSERT_TRUE(test, mlx5sp_sim_post_eqe(u->sim,
			  MLX5_EVENT_TYPE_PAGE_REQUEST, 0, &req, sizeof(req)));
	after = pages_settled(u);
	kunit_info(test, "pages: %llu after asking them all back\n", after);
	KUNIT_EXPECT_LE(test, after, before);
	hostile_still_works(test, u);
}

static const u8 hostile_types[] = {
	MLX5_EVENT_TYPE_COMP, MLX5_EVENT_TYPE_PATH_MIG,
	MLX5_EVENT_TYPE_COMM_EST, MLX5_EVENT_TYPE_SQ_DRAINED,
	MLX5_EVENT_TYPE_SRQ_LAST_WQE, MLX5_EVENT_TYPE_SRQ_RQ_LIMIT,
	MLX5_EVENT_TYPE_CQ_ERROR, MLX5_EVENT_TYPE_WQ_CATAS_ERROR,
	MLX5_EVENT_TYPE_PATH_MIG_FAILED, MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR,
	MLX5_EVENT_TYPE_WQ_ACCESS_ERROR, MLX5_EVENT_TYPE_SRQ_CATAS_ERROR,
	MLX5_EVENT_TYPE_INTERNAL_ERROR, MLX5_EVENT_TYPE_PORT_CHANGE,
	MLX5_EVENT_TYPE_GPIO_EVENT, MLX5_EVENT_TYPE_STALL_EVENT,
	MLX5_EVENT_TYPE_DCT_DRAINED, MLX5_EVENT_TYPE_XRQ_ERROR,
	MLX5_EVENT_TYPE_OBJECT_CHANGE, 0x05, 0x1f, 0x2f, 0x7f, 0xff,
};

/*
 * EQEs of every type the driver knows and some it does not, random
 * contents, a quarter of them naming the test's own CQ or QPs: logged,
 * dropped or delivered as events, never a memory error.
 */
static void hostile_eqes(struct kunit *test)
{
	struct ulp *u = ulp_setup_flags(test, 0);
	union ev_data d;
	u32 own[3];
	int i, posted = 0;
	u8 type;

	own[0] = u->qp[0]->qp_num;
	own[1] = u->qp[1]->qp_num;
	own[2] = to_cq(u->cq)->mcq.cqn;
	for (i = 0; i < HOSTILE_EQES; i++) {
		get_random_bytes(&d, sizeof(d));
		type = hostile_types[get_random_u32_below(ARRAY_SIZE(hostile_types))];
		if (!(i % 4)) {
			/* the CQN and QPN fields of the layouts: our own */
			d.comp.cqn = cpu_to_be32(own[i % 3]);
			d.qp_srq.qp_srq_n = cpu_to_be32(own[i % 3]);
		}
		posted += mlx5sp_sim_post_eqe(u->sim, type,
					      get_random_u32_below(8), &d,
					      sizeof(d));
		if (!(i % 32))
			usleep_range(1000, 2000);
	}
	/* the port is up, whatever the EQEs said */
	memset(&d, 0, sizeof(d));
	d.port.port = 1 << 4;
	mlx5sp_sim_post_eqe(u->sim, MLX5_EVENT_TYPE_PORT_CHANGE,
			    MLX5_PORT_CHANGE_SUBTYPE_ACTIVE, &d, sizeof(d));
	kunit_info(test, "%d hostile EQEs written of %d\n", posted, HOSTILE_EQES);
	KUNIT_EXPECT_GT(test, posted, HOSTILE_EQES / 2);
	msleep(200);
	hostile_still_works(test, u);
}

/* Posts CMD EQEs naming every slot until stopped; returns how many. */
static int hostile_cmd_eqe_storm(void *data)
{
	struct mlx5_eqe_cmd ev = { .vector = cpu_to_be32(U32_MAX) };
	struct ulp *u = data;
	int posted = 0;

	while (!kthread_should_stop()) {
		posted += mlx5sp_sim_post_eqe(u->sim, MLX5_EVENT_TYPE_CMD, 0,
					      &ev, sizeof(ev));
		usleep_range(300, 700);
	}
	return posted;
}

/*
 * CMD EQEs for every command slot, busy or not, while QUERY_QPs are in
 * flight (the model holds each 4 ms): the driver takes an event as a
 * wake-up only and goes by each slot's ownership bit, so no command
 * ends early with what its mailbox held before, and slots not in flight
 * are left alone.
 */
static void hostile_cmd_events(struct kunit *test)
{
	struct ulp *u = ulp_setup_flags(test, 0);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct task_struct *t;
	enum ib_qp_state want;
	int i, posted;

	KUNIT_ASSERT_EQ(test, ib_query_qp(u->qp[0], &attr, IB_QP_STATE, &init),
			0);
	want = attr.qp_state;
	t = kthread_run(hostile_cmd_eqe_storm, u, "hostile_cmd_eqes");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	mlx5sp_sim_delay_cmd(u->sim, MLX5_CMD_OP_QUERY_QP, 4, 64);
	for (i = 0; i < 64; i++) {
		memset(&attr, 0xff, sizeof(attr));
		KUNIT_EXPECT_EQ(test, ib_query_qp(u->qp[0], &attr,
						  IB_QP_STATE, &init), 0);
		KUNIT_EXPECT_EQ(test, attr.qp_state, want);
	}
	posted = kthread_stop(t);
	put_task_struct(t);
	kunit_info(test, "%d CMD EQEs for every slot during 64 queries\n",
		   posted);
	KUNIT_EXPECT_GT(test, posted, 16);
	hostile_still_works(test, u);
}

/* The work requests and completions of hostile_cqes (off the stack). */
struct hostile_scratch {
	struct ib_send_wr swr[HOSTILE_CQES];
	struct ib_sge sge[HOSTILE_CQES];
	struct ib_wc wc[2 * HOSTILE_CQES];
};

/*
 * CQEs corrupted in turn (a QP on another CQ, a random QPN, a reserved
 * opcode, a random WQE counter), written twice or lost: no completion
 * names a QP the CQ does not serve, none completes a WR that was not
 * posted or completes one twice (a ULP's wr_cqe would be used after its
 * WR ended); a fresh pair works after. With @use_srq the receiver takes
 * its receives from an SRQ (whose WQEs a CQE names by index).
 */
static void hostile_cqes_run(struct kunit *test, bool use_srq)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 2 * HOSTILE_CQES,
						 .max_sge = 1 } };
	struct ib_qp_init_attr qa = hostile_pair_qp;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct ulp *u = ulp_setup_flags(test, 0);
	struct hostile_scratch *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct ib_send_wr *swr;
	struct ib_sge *sge;
	struct ib_wc *wc;
	struct ib_recv_wr rwr;
	struct ib_qp *other;
	struct ib_cq *cq2;
	struct ib_srq *srq = NULL;
	DECLARE_BITMAP(seen[2], HOSTILE_CQES) = {};
	int i, got;

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (use_srq) {
		/* the pair again, QP 1 on an SRQ */
		for (i = 0; i < 2; i++) {
			ib_destroy_qp(u->qp[i]);
			u->qp[i] = NULL;
		}
		srq = ib_create_srq(u->pd, &sa);
		KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
		u->srq = srq;
		ulp_pair(test, u, &qa);
		qa.srq = NULL;
		qa.cap.max_recv_wr = 16;
		qa.send_cq = NULL;
		qa.recv_cq = NULL;
	}
	swr = s->swr;
	sge = s->sge;
	wc = s->wc;
	cq2 = ib_create_cq(u->ibdev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq2));
	qa.send_cq = cq2;
	qa.recv_cq = cq2;
	other = ib_create_qp(u->pd, &qa);
	if (IS_ERR(other)) {
		ib_destroy_cq(cq2);
		KUNIT_FAIL(test, "third QP: %ld", PTR_ERR(other));
		return;
	}

	mlx5sp_sim_hostile_cqes(u->sim, HOSTILE_CQES, other->qp_num);
	for (i = 0; i < HOSTILE_CQES; i++) {
		sge[i] = (struct ib_sge){ .addr = u->dma[1] + 64 * i,
					  .length = 64,
					  .lkey = u->pd->local_dma_lkey };
		rwr = (struct ib_recv_wr){ .wr_id = 100 + i, .sg_list = &sge[i],
					   .num_sge = 1 };
		if (srq)
			KUNIT_ASSERT_EQ(test, ib_post_srq_recv(srq, &rwr, NULL),
					0);
		else
			KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[1], &rwr, NULL),
					0);
	}
	for (i = 0; i < HOSTILE_CQES; i++) {
		sge[i] = (struct ib_sge){ .addr = u->dma[0] + 64 * i,
					  .length = 64,
					  .lkey = u->pd->local_dma_lkey };
		swr[i] = (struct ib_send_wr){ .wr_id = 200 + i,
					      .sg_list = &sge[i], .num_sge = 1,
					      .opcode = IB_WR_SEND,
					      .send_flags = IB_SEND_SIGNALED,
					      .next = i + 1 < HOSTILE_CQES ?
						      &swr[i + 1] : NULL };
	}
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], swr, NULL), 0);
	got = poll_n(u, wc, 2 * HOSTILE_CQES);
	kunit_info(test, "%d completions of %d WRs with %d CQEs corrupted\n",
		   got, 2 * HOSTILE_CQES, HOSTILE_CQES);
	KUNIT_EXPECT_LT(test, got, 2 * HOSTILE_CQES);
	for (i = 0; i < got; i++) {
		u64 id = wc[i].wr_id;
		bool posted = (id >= 100 && id < 100 + HOSTILE_CQES) ||
			      (id >= 200 && id < 200 + HOSTILE_CQES);
		bool twice;

		KUNIT_EXPECT_TRUE_MSG(test, wc[i].qp == u->qp[0] ||
				      wc[i].qp == u->qp[1],
				      "completion %d names QP 0x%x", i,
				      wc[i].qp ? wc[i].qp->qp_num : 0);
		KUNIT_EXPECT_TRUE_MSG(test, posted,
				      "completion %d: wr_id %llu never posted",
				      i, id);
		if (!posted)
			continue;
		twice = __test_and_set_bit(id % 100, seen[id >= 200]);
		KUNIT_EXPECT_FALSE_MSG(test, twice,
				       "completion %d: wr_id %llu completed twice",
				       i, id);
	}
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq2, 2 * HOSTILE_CQES, wc), 0);

	/* the pair's queues are in an unknown state now: a fresh one */
	for (i = 0; i < 2; i++) {
		ib_destroy_qp(u->qp[i]);
		u->qp[i] = NULL;
	}
	while (ib_poll_cq(u->cq, 2 * HOSTILE_CQES, wc) > 0)
		;
	if (srq) {
		u->srq = NULL;
		ib_destroy_srq(srq);
	}
	qa.send_cq = NULL;
	qa.recv_cq = NULL;
	ulp_pair(test, u, &qa);
	hostile_still_works(test, u);
	ib_destroy_qp(other);
	ib_destroy_cq(cq2);
}

/* The CQEs the model wrote in all. */
static u64 hostile_cqes_written(struct ulp *u)
{
	struct mlx5sp_sim_stats st;

	mlx5sp_sim_get_stats(u->sim, &st);
	return st.cqes_written;
}

/*
 * The first CQE of a SEND and its receive written with the owner bit of
 * the lap before (firmware that never handed it over), the second as it
 * should be: the CQ stalls at the first, as a ConnectX's consumer would,
 * and neither completes (the second is in a later slot, not the driver's
 * to read before the first); the QPs and the stalled CQ are destroyed
 * cleanly, and a new CQ works.
 */
static void hostile_cqe_owner(struct kunit *test)
{
	struct ib_qp_init_attr qa = hostile_pair_qp;
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ulp *u = ulp_setup_flags(test, 0);
	struct ib_sge rsge = { .addr = u->dma[1], .length = 64,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_sge ssge = { .addr = u->dma[0], .length = 64,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 100, .sg_list = &rsge,
				  .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 200, .sg_list = &ssge,
				  .num_sge = 1, .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	unsigned long end;
	struct ib_wc wc[2];
	u64 written;
	int i, got = 0;

	written = hostile_cqes_written(u);
	mlx5sp_sim_stale_cqes(u->sim, 1);
	KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[1], &rwr, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &swr, NULL), 0);
	/* both written, then a while more for the driver to (not) see them */
	end = jiffies + msecs_to_jiffies(ULP_TIMEOUT_MS);
	while (hostile_cqes_written(u) < written + 2 && time_before(jiffies, end))
		usleep_range(500, 1000);
	KUNIT_EXPECT_GE(test, hostile_cqes_written(u), written + 2);
	end = jiffies + msecs_to_jiffies(300);
	while (time_before(jiffies, end)) {
		got += max(ib_poll_cq(u->cq, 2, wc), 0);
		usleep_range(1000, 2000);
	}
	KUNIT_EXPECT_EQ_MSG(test, got, 0,
			    "%d completions past a CQE not handed over", got);

	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(u->qp[i]), 0);
		u->qp[i] = NULL;
	}
	ib_destroy_cq(u->cq);
	u->cq = ib_create_cq(u->ibdev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(u->cq));
	ulp_pair(test, u, &qa);
	hostile_still_works(test, u);
}

static void hostile_cqes(struct kunit *test)
{
	hostile_cqes_run(test, false);
}

/* The same with the receives on an SRQ: its posted WQEs are checked. */
static void hostile_cqes_srq(struct kunit *test)
{
	hostile_cqes_run(test, true);
}

static u64 cmds_garbled(struct ulp *u)
{
	struct mlx5sp_sim_stats st;

	mlx5sp_sim_get_stats(u->sim, &st);
	return st.cmds_garbled;
}

/* A small RC QP (its CQs set by the caller) and SRQ, to create and drop. */
static const struct ib_qp_init_attr hostile_small_qp = {
	.qp_type = IB_QPT_RC,
	.sq_sig_type = IB_SIGNAL_REQ_WR,
	.cap = { .max_send_wr = 4, .max_recv_wr = 4,
		 .max_send_sge = 1, .max_recv_sge = 1 },
};

static const struct ib_srq_init_attr hostile_small_srq = {
	.attr = { .max_wr = 4, .max_sge = 1 },
};

/* Statuses no PRM defines, and the PRM's own, on what a ULP creates. */
static const u8 hostile_statuses[] = {
	0x0b, 0x11, 0x52, 0x7f, 0xff, MLX5_CMD_STAT_NO_RES_ERR,
};

/*
 * Every create a ULP makes, and a query, answered with a status no PRM
 * has (or one it has): the verb fails with an errno, nothing is half
 * made, and the device works after.
 */
static void hostile_cmd_status(struct kunit *test)
{
	struct ib_qp_init_attr qa = hostile_small_qp;
	struct ib_srq_init_attr sa = hostile_small_srq;
	struct ulp *u = ulp_setup_flags(test, 0);
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_srq *srq;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_mr *mr;
	struct ib_qp *qp;
	int i, err;

	qa.send_cq = u->cq;
	qa.recv_cq = u->cq;
	for (i = 0; i < ARRAY_SIZE(hostile_statuses); i++) {
		u8 st = hostile_statuses[i];

		mlx5sp_sim_fail_cmd(u->sim, MLX5_CMD_OP_ALLOC_PD, st, 0xbad0, 1);
		pd = ib_alloc_pd(u->ibdev, 0);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(pd), "status 0x%x: a PD", st);
		if (!IS_ERR(pd))
			ib_dealloc_pd(pd);

		mlx5sp_sim_fail_cmd(u->sim, MLX5_CMD_OP_CREATE_CQ, st, 0xbad1, 1);
		cq = ib_alloc_cq(u->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(cq), "status 0x%x: a CQ", st);
		if (!IS_ERR(cq))
			ib_free_cq(cq);

		mlx5sp_sim_fail_cmd(u->sim, MLX5_CMD_OP_CREATE_QP, st, 0xbad2, 1);
		qp = ib_create_qp(u->pd, &qa);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(qp), "status 0x%x: a QP", st);
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);

		mlx5sp_sim_fail_cmd(u->sim, MLX5_CMD_OP_CREATE_SRQ, st, 0xbad3, 1);
		srq = ib_create_srq(u->pd, &sa);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(srq), "status 0x%x: an SRQ",
				      st);
		if (!IS_ERR(srq))
			ib_destroy_srq(srq);

		mlx5sp_sim_fail_cmd(u->sim, MLX5_CMD_OP_CREATE_MKEY, st, 0xbad4, 1);
		mr = ib_alloc_mr(u->pd, IB_MR_TYPE_MEM_REG, 16);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(mr), "status 0x%x: an MR", st);
		if (!IS_ERR(mr))
			ib_dereg_mr(mr);

		mlx5sp_sim_fail_cmd(u->sim, MLX5_CMD_OP_QUERY_QP, st, 0xbad5, 1);
		err = ib_query_qp(u->qp[0], &attr, IB_QP_STATE, &init);
		KUNIT_EXPECT_LT_MSG(test, err, 0, "status 0x%x: a query", st);
	}
	hostile_still_works(test, u);
}

/*
 * Queries whose every output byte after the status is garbage: QUERY_QP,
 * QUERY_SRQ and QUERY_Q_COUNTER 64 times each, and the MANAGE_PAGES that
 * returns pages (addresses and count garbage): no memory error, no
 * unbounded work, and the device works after.
 */
static void hostile_cmd_outputs(struct kunit *test)
{
	struct ib_qp_init_attr qa = hostile_small_qp;
	struct ib_srq_init_attr sa = hostile_small_srq;
	struct ib_qp_attr ma = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ulp *u = ulp_setup_flags(test, 0);
	struct mlx5_eqe_page_req req = {};
	struct rdma_hw_stats *hw = NULL;
	struct ib_qp_init_attr init;
	struct ib_srq_attr srq_attr;
	struct ib_qp_attr attr;
	u64 garbled0, before;
	struct ib_srq *srq;
	struct ib_qp *qp;
	u32 i;

	garbled0 = cmds_garbled(u);
	qa.send_cq = u->cq;
	qa.recv_cq = u->cq;
	qp = ib_create_qp(u->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_ASSERT_EQ(test, ib_modify_qp(qp, &ma, IB_QP_STATE | IB_QP_PKEY_INDEX |
					   IB_QP_PORT | IB_QP_ACCESS_FLAGS), 0);
	for (i = 0; i < 64; i++) {
		mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_QUERY_QP, 1, i);
		ib_query_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_CUR_STATE,
			    &init);
	}
	ib_destroy_qp(qp);

	srq = ib_create_srq(u->pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	for (i = 0; i < 64; i++) {
		mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_QUERY_SRQ, 1, 100 + i);
		ib_query_srq(srq, &srq_attr);
	}
	ib_destroy_srq(srq);

	if (u->ibdev->ops.alloc_hw_port_stats && u->ibdev->ops.get_hw_stats)
		hw = u->ibdev->ops.alloc_hw_port_stats(u->ibdev, 1);
	if (hw) {
		for (i = 0; i < 64; i++) {
			mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_QUERY_Q_COUNTER,
					      1, 200 + i);
			u->ibdev->ops.get_hw_stats(u->ibdev, hw, 1, 0);
		}
		rdma_free_hw_stats_struct(hw);
	}

	/* firmware gives pages back with a garbage list */
	before = pages_settled(u);
	for (i = 0; i < 4; i++) {
		req.num_pages = cpu_to_be32(-8);
		mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_MANAGE_PAGES, 1, 300 + i);
		KUNIT_ASSERT_TRUE(test, mlx5sp_sim_post_eqe(u->sim,
				  MLX5_EVENT_TYPE_PAGE_REQUEST, 0, &req,
				  sizeof(req)));
		pages_settled(u);
	}
	kunit_info(test, "%llu outputs garbled; pages %llu before, %llu after\n",
		   cmds_garbled(u) - garbled0, before, pages_settled(u));
	KUNIT_EXPECT_GE(test, cmds_garbled(u) - garbled0, 64ULL * 2 + 4);
	hostile_still_works(test, u);
}

/* Firmware's @nth @opcode from now answers @n in field @f of @type */
#define hostile_lie_nth(u, opcode, nth, type, f, n) do {			\
	u32 _o[MLX5_ST_SZ_DW(type)] = {};					\
	u16 _dw = MLX5_BYTE_OFF(type, f) / 4;					\
									\
	MLX5_SET(type, _o, f, n);						\
	mlx5sp_sim_lie_cmd((u)->sim, opcode, nth, _dw,				\
			   (__force __be32)_o[_dw]);				\
} while (0)
#define hostile_lie(u, opcode, type, f, n)					\
	hostile_lie_nth(u, opcode, 1, type, f, n)

/*
 * Creates whose output lies about the new object's number. The number of
 * a live object (the ULP's CQ, another SRQ): refused (-EIO), the other
 * object untouched (it still passes data; before, the new one took its
 * place in the event table); a number nobody has: created under it, and
 * its destroy, which firmware answers "bad resource", completes (no
 * WARN). Then 16 creates of each with every output byte garbage. The
 * objects firmware did create stay the device's until it goes.
 */
static void hostile_create_outputs(struct kunit *test)
{
	struct ib_srq_init_attr sa = hostile_small_srq;
	struct ulp *u = ulp_setup_flags(test, 0);
	struct ib_srq *srq, *srq2;
	struct ib_cq *cq;
	u32 i;

	hostile_lie(u, MLX5_CMD_OP_CREATE_CQ, create_cq_out, cqn,
		    to_cq(u->cq)->mcq.cqn);
	cq = ib_alloc_cq(u->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_EXPECT_TRUE(test, IS_ERR(cq));
	if (!IS_ERR(cq))
		ib_free_cq(cq);
	hostile_still_works(test, u);

	hostile_lie(u, MLX5_CMD_OP_CREATE_CQ, create_cq_out, cqn, 0xabcde);
	cq = ib_alloc_cq(u->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	KUNIT_EXPECT_EQ(test, to_cq(cq)->mcq.cqn, 0xabcdeU);
	ib_free_cq(cq);

	srq = ib_create_srq(u->pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	hostile_lie(u, MLX5_CMD_OP_CREATE_SRQ, create_srq_out, srqn,
		    to_srq(srq)->msrq.qpn);
	srq2 = ib_create_srq(u->pd, &sa);
	KUNIT_EXPECT_TRUE(test, IS_ERR(srq2));
	if (!IS_ERR(srq2))
		ib_destroy_srq(srq2);
	hostile_lie(u, MLX5_CMD_OP_CREATE_SRQ, create_srq_out, srqn, 0xbcdef);
	srq2 = ib_create_srq(u->pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq2));
	KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(srq2, NULL), 0);
	KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(srq, NULL), 0);

	for (i = 0; i < 16; i++) {
		mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_CREATE_CQ, 1, 500 + i);
		cq = ib_alloc_cq(u->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
		if (!IS_ERR(cq))
			ib_free_cq(cq);
		mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_CREATE_SRQ, 1, 600 + i);
		srq = ib_create_srq(u->pd, &sa);
		if (!IS_ERR(srq))
			KUNIT_EXPECT_EQ(test, ib_destroy_srq_user(srq, NULL), 0);
	}
	hostile_still_works(test, u);
}

/*
 * A QP created under the number of a live QP: refused, the live one
 * passes data after. A QP firmware made stays the device's and keeps
 * its CQ in use there (a CQ firmware will not destroy, as a card would
 * not): the device dies at the end, and teardown goes on without it.
 */
static void hostile_create_qp_outputs(struct kunit *test)
{
	struct ib_qp_init_attr qa = hostile_small_qp;
	struct ulp *u = ulp_setup_flags(test, 0);
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 i;

	cq = ib_alloc_cq(u->ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	hostile_lie(u, MLX5_CMD_OP_CREATE_QP, create_qp_out, qpn,
		    u->qp[0]->qp_num);
	qp = ib_create_qp(u->pd, &qa);
	KUNIT_EXPECT_TRUE(test, IS_ERR(qp));
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	hostile_still_works(test, u);

	hostile_lie(u, MLX5_CMD_OP_CREATE_QP, create_qp_out, qpn, 0xcdef0);
	qp = ib_create_qp(u->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_EQ(test, qp->qp_num, 0xcdef0U);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	for (i = 0; i < 16; i++) {
		mlx5sp_sim_garble_cmd(u->sim, MLX5_CMD_OP_CREATE_QP, 1, 700 + i);
		qp = ib_create_qp(u->pd, &qa);
		if (!IS_ERR(qp))
			KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	}
	hostile_still_works(test, u);
	mlx5sp_sim_set_health_syndrome(u->sim,
				       MLX5_INITIAL_SEG_HEALTH_SYNDROME_FW_INTERNAL_ERR);
	for (i = 0; i < 1000 && !mlx5sp_dev_dead(to_ibdev(u->ibdev)->mdev); i++)
		msleep(10);
	KUNIT_EXPECT_TRUE(test, mlx5sp_dev_dead(to_ibdev(u->ibdev)->mdev));
	ib_free_cq(cq);
}

/*
 * Keys and PDs whose create output lies. A signature key under the
 * number of a live one: refused (-EIO), and the live one stays in the
 * table signature errors are looked up in (before, the new key took its
 * place, and its dereg took the live one out). An MR and a PSV under
 * numbers nobody has: created, and freed without an error (firmware
 * answers their destroy "bad resource"). A PD under such a number: the
 * DMA MR ib_core makes on it fails, and the PD goes without the WARN a
 * failed kernel PD dealloc is.
 */
static void hostile_create_key_outputs(struct kunit *test)
{
	struct ulp *u = ulp_setup_flags(test, 0);
	struct mlx5sp_ib_dev *dev = to_ibdev(u->ibdev);
	struct ib_mr *mr, *mr2;
	struct ib_pd *pd;

	mr = ib_alloc_mr_integrity(u->pd, 4, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	/* after its page key's list and translation keys: the signature key */
	hostile_lie_nth(u, MLX5_CMD_OP_CREATE_MKEY, 3, create_mkey_out,
			mkey_index, mr->lkey >> 8);
	mr2 = ib_alloc_mr_integrity(u->pd, 4, 4);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mr2));
	if (!IS_ERR(mr2))
		ib_dereg_mr(mr2);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&dev->sig_mrs, mr->lkey >> 8),
			    (void *)to_mr(mr));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->sig_mrs));

	hostile_lie(u, MLX5_CMD_OP_ALLOC_PD, alloc_pd_out, pd, 0xfedcb);
	pd = ib_alloc_pd(u->ibdev, 0);
	KUNIT_EXPECT_TRUE(test, IS_ERR(pd));
	if (!IS_ERR(pd))
		ib_dealloc_pd(pd);

	/* the list's key first, then the one the MR is known by */
	hostile_lie_nth(u, MLX5_CMD_OP_CREATE_MKEY, 2, create_mkey_out,
			mkey_index, 0xedcba);
	mr = ib_alloc_mr(u->pd, IB_MR_TYPE_MEM_REG, 8);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_EQ(test, mr->lkey >> 8, 0xedcbaU);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);

	hostile_lie(u, MLX5_CMD_OP_CREATE_PSV, create_psv_out, psv0_index,
		    0xdcba9);
	mr = ib_alloc_mr_integrity(u->pd, 4, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_EQ(test, to_mr(mr)->sig->psv_mem, 0xdcba9U);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	hostile_still_works(test, u);
}

/* IB_EVENT_DEVICE_FATAL seen by a device-wide handler */
struct fatal_seen {
	struct ib_event_handler eh;
	atomic_t n;
};

static void hostile_fatal_event(struct ib_event_handler *eh,
				struct ib_event *ev)
{
	struct fatal_seen *f = container_of(eh, struct fatal_seen, eh);

	if (ev->event == IB_EVENT_DEVICE_FATAL)
		atomic_inc(&f->n);
}

/* @n WRs from @first on, posted in a chain to QP @i; the post's result */
static int hostile_post(struct ulp *u, int i, bool send, u64 first, int n)
{
	struct ib_sge sge = { .addr = u->dma[i], .length = 64,
			      .lkey = u->pd->local_dma_lkey };
	struct ib_send_wr swr[4] = {};
	struct ib_recv_wr rwr[4] = {};
	int k;

	for (k = 0; k < n; k++) {
		swr[k] = (struct ib_send_wr) {
			.wr_id = first + k, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND,
			/* unsignaled ones are flushed too */
			.send_flags = k & 1 ? 0 : IB_SEND_SIGNALED,
			.next = k + 1 < n ? &swr[k + 1] : NULL,
		};
		rwr[k] = (struct ib_recv_wr) {
			.wr_id = first + k, .sg_list = &sge, .num_sge = 1,
			.next = k + 1 < n ? &rwr[k + 1] : NULL,
		};
	}
	return send ? ib_post_send(u->qp[i], swr, NULL) :
		      ib_post_recv(u->qp[i], rwr, NULL);
}

/*
 * Firmware dies with work outstanding (fatal.c). QP 0 has receives posted
 * and SENDs stuck behind RNR NAKs (QP 1 has none; rnr_retry 7 retries for
 * ever). Once the driver sees the health syndrome: DEVICE_FATAL; the
 * kernel CQ gives every outstanding WR back flushed, in the order posted,
 * each once, unsignaled SENDs too; posts fail with -EIO; ib_drain_qp()
 * returns on a directly polled CQ and on a workqueue one (which no event
 * would otherwise poll); everything is destroyed. Before, a ULP's drain
 * of a dead device waited for ever.
 */
static void hostile_fatal_flush(struct kunit *test)
{
	struct ib_qp_init_attr qa = hostile_pair_qp;
	struct ulp *u = ulp_open(test, "ku_ib0", 64);
	struct ib_cq *dcq, *wcq;
	struct fatal_seen f = {};
	struct ib_qp *lone;
	struct ib_wc wc[16];
	int got, i, k;

	dcq = ib_alloc_cq(u->ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(dcq));
	wcq = ib_alloc_cq(u->ibdev, NULL, 64, 0, IB_POLL_WORKQUEUE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(wcq));
	qa.send_cq = dcq;
	qa.recv_cq = dcq;
	ulp_pair(test, u, &qa);
	qa.send_cq = wcq;
	qa.recv_cq = wcq;
	lone = ib_create_qp(u->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lone));
	INIT_IB_EVENT_HANDLER(&f.eh, u->ibdev, hostile_fatal_event);
	ib_register_event_handler(&f.eh);

	KUNIT_ASSERT_EQ(test, hostile_post(u, 0, false, 10, 3), 0);
	KUNIT_ASSERT_EQ(test, hostile_post(u, 0, true, 20, 4), 0);
	msleep(100);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(dcq, 16, wc), 0);

	mlx5sp_sim_set_health_syndrome(u->sim,
				       MLX5_INITIAL_SEG_HEALTH_SYNDROME_FW_INTERNAL_ERR);
	for (i = 0; i < 1000 && !atomic_read(&f.n); i++)
		msleep(10);
	KUNIT_EXPECT_TRUE(test, mlx5sp_dev_dead(to_ibdev(u->ibdev)->mdev));
	KUNIT_EXPECT_EQ(test, atomic_read(&f.n), 1);
	KUNIT_EXPECT_EQ(test, hostile_post(u, 0, true, 30, 1), -EIO);
	KUNIT_EXPECT_EQ(test, hostile_post(u, 1, false, 30, 1), -EIO);

	/* two polls of a few: the flush goes on where it stopped */
	got = ib_poll_cq(dcq, 5, wc);
	KUNIT_EXPECT_EQ(test, got, 5);
	if (got == 5)
		got += ib_poll_cq(dcq, 11, wc + 5);
	KUNIT_ASSERT_EQ(test, got, 7);
	for (k = 0; k < got; k++) {
		KUNIT_EXPECT_EQ(test, wc[k].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_PTR_EQ(test, wc[k].qp, u->qp[0]);
	}
	/* the SQ first (this CQ's QPs one by one), each queue in order */
	for (k = 0; k < 4; k++)
		KUNIT_EXPECT_EQ(test, wc[k].wr_id, 20ULL + k);
	for (k = 0; k < 3; k++)
		KUNIT_EXPECT_EQ(test, wc[4 + k].wr_id, 10ULL + k);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(dcq, 16, wc), 0);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(dcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);

	/* each returns only once its drain WR completed */
	for (i = 0; i < 2; i++)
		ib_drain_qp(u->qp[i]);
	ib_drain_qp(lone);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(dcq, 16, wc), 0);

	ib_unregister_event_handler(&f.eh);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(lone), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(u->qp[i]), 0);
		u->qp[i] = NULL;
	}
	ib_free_cq(wcq);
	ib_free_cq(dcq);
}

/* Completion events of hostile_eqe_owner's CQ while the device lived */
struct hostile_events {
	struct mlx5sp_dev *mdev;
	atomic_t live;
};

static void hostile_comp_count(struct ib_cq *cq, void *ctx)
{
	struct hostile_events *e = ctx;

	/* a dead device's CQs are kicked for their flushes (fatal.c) */
	if (!mlx5sp_dev_dead(e->mdev))
		atomic_inc(&e->live);
}

/* Polls @cq for up to @n completions for @ms: how many came. */
static int hostile_poll(struct ib_cq *cq, struct ib_wc *wc, int n, int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	int got = 0, r;

	while (got < n && time_before(jiffies, end)) {
		r = ib_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			break;
		got += r;
		if (!r)
			usleep_range(500, 1000);
	}
	return got;
}

/*
 * An EQE written with the owner bit of the lap before: the device holds
 * an entry it never handed over and, armed with it pending, fires the
 * EQ's interrupt again each time, as a card does. The driver takes
 * nothing from that slot (no completion event comes), sees the EQ stuck
 * after a run of interrupts with nothing to take instead of spinning in
 * them for good, and gives the device up: its NIC interface turned off
 * (the device stops, and reads so), DEVICE_FATAL, the work completes;
 * everything is destroyed and the device torn down cleanly.
 */
static void hostile_eqe_owner(struct kunit *test)
{
	struct ib_qp_init_attr qa = hostile_pair_qp;
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ulp *u = ulp_open(test, "ku_ib0", 64);
	struct hostile_events events = {};
	struct fatal_seen f = {};
	struct mlx5sp_dev *mdev;
	struct ib_wc wc[8];
	struct ib_cq *cq;
	int i, got;

	mdev = to_ibdev(u->ibdev)->mdev;
	events.mdev = mdev;
	cq = ib_create_cq(u->ibdev, hostile_comp_count, NULL, &events,
			  &cq_attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	ulp_pair(test, u, &qa);
	INIT_IB_EVENT_HANDLER(&f.eh, u->ibdev, hostile_fatal_event);
	ib_register_event_handler(&f.eh);

	/* first a completion event as it should come */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, hostile_post(u, 1, false, 1, 1), 0);
	KUNIT_EXPECT_EQ(test, hostile_post(u, 0, true, 2, 1), 0);
	KUNIT_EXPECT_EQ(test, hostile_poll(cq, wc, 2, ULP_TIMEOUT_MS), 2);
	for (i = 0; i < 1000 && !atomic_read(&events.live); i++)
		msleep(10);
	KUNIT_EXPECT_EQ(test, atomic_read(&events.live), 1);

	/* then the next EQE left to the lap before */
	mlx5sp_sim_stale_eqes(u->sim, 1);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, hostile_post(u, 1, false, 3, 1), 0);
	KUNIT_EXPECT_EQ(test, hostile_post(u, 0, true, 4, 1), 0);
	for (i = 0; i < 1000 && !atomic_read(&f.n); i++)
		msleep(10);
	KUNIT_EXPECT_EQ(test, atomic_read(&f.n), 1);
	KUNIT_EXPECT_TRUE(test, mlx5sp_dev_dead(mdev));
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&events.live), 1,
			    "a completion event from an EQE not handed over");
	/* each WR completes once: as the device wrote it, or flushed */
	got = hostile_poll(cq, wc, 8, 500);
	KUNIT_EXPECT_EQ(test, got, 2);
	for (i = 0; i < got; i++)
		KUNIT_EXPECT_TRUE(test, wc[i].wr_id == 3 || wc[i].wr_id == 4);
	/* the fatal work waited for the device to read stopped */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(mdev->nic_off));

	ib_unregister_event_handler(&f.eh);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, ib_destroy_qp(u->qp[i]), 0);
		u->qp[i] = NULL;
	}
	ib_destroy_cq(cq);
}

static struct kunit_case hostile_cases[] = {
	KUNIT_CASE_SLOW(hostile_page_requests),
	KUNIT_CASE(hostile_eqes),
	KUNIT_CASE_SLOW(hostile_cmd_events),
	KUNIT_CASE_SLOW(hostile_cqes),
	KUNIT_CASE_SLOW(hostile_cqes_srq),
	KUNIT_CASE_SLOW(hostile_cqe_owner),
	KUNIT_CASE(hostile_cmd_status),
	KUNIT_CASE_SLOW(hostile_cmd_outputs),
	KUNIT_CASE_SLOW(hostile_create_outputs),
	KUNIT_CASE_SLOW(hostile_create_qp_outputs),
	KUNIT_CASE_SLOW(hostile_create_key_outputs),
	KUNIT_CASE_SLOW(hostile_fatal_flush),
	KUNIT_CASE_SLOW(hostile_eqe_owner),
	{}
};

static struct kunit_suite hostile_suite = {
	.name = "mlx5sp_hostile",
	.test_cases = hostile_cases,
};

kunit_test_suites(&hostile_suite);
