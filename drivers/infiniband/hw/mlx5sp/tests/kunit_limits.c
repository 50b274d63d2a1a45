// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The device attributes a kernel ULP sizes its queues from: every create
 * at a limit ib_query_device reports succeeds, one past it fails with an
 * error and leaves nothing behind (nvmet and ib_srpt ask for the reported
 * maxima, so a limit that is not true breaks them).
 */
#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "kunit_ulp.h"

static struct ulp *lim_open(struct kunit *test)
{
	return ulp_open(test, "ku_lim0", 16);
}

/* An RC QP of @cap on the ULP's CQ: 0 or the create's error. */
static int lim_qp(struct ulp *u, const struct ib_qp_cap *cap, u32 flags,
		  struct ib_qp_cap *got)
{
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = u->cq,
		.recv_cq = u->cq,
		.cap = *cap,
		.create_flags = flags,
	};
	struct ib_qp *qp;

	qp = ib_create_qp(u->pd, &qa);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	if (got)
		*got = qa.cap;
	ib_destroy_qp(qp);
	return 0;
}

static void limits_cq(struct kunit *test)
{
	struct ulp *u = lim_open(test);
	struct ib_device_attr *a = &u->ibdev->attrs;
	struct ib_cq_init_attr ca = { .cqe = a->max_cqe };
	struct ib_cq *cq;

	cq = ib_create_cq(u->ibdev, NULL, NULL, NULL, &ca);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(cq), "CQ of max_cqe %d: %ld",
			       a->max_cqe, PTR_ERR(cq));
	KUNIT_EXPECT_GE(test, cq->cqe, a->max_cqe);
	ib_destroy_cq(cq);

	ca.cqe = a->max_cqe + 1;
	cq = ib_create_cq(u->ibdev, NULL, NULL, NULL, &ca);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(cq), "CQ of max_cqe + 1 created");
	if (!IS_ERR(cq))
		ib_destroy_cq(cq);
	else
		KUNIT_EXPECT_EQ(test, PTR_ERR(cq), -EINVAL);
}

/* Each QP size at its limit together, then each one past it alone. */
static void lim_qp_sizes(struct kunit *test, struct ulp *u, u32 flags)
{
	struct ib_device_attr *a = &u->ibdev->attrs;
	const struct ib_qp_cap max = {
		.max_send_wr = a->max_qp_wr,
		.max_recv_wr = a->max_qp_wr,
		.max_send_sge = a->max_send_sge,
		.max_recv_sge = a->max_recv_sge,
	};
	struct ib_qp_cap cap, got;
	int i, err;

	err = lim_qp(u, &max, flags, &got);
	KUNIT_ASSERT_EQ_MSG(test, err, 0,
			    "QP (flags %#x) of %u/%u WRs, %u/%u SGEs: %d", flags,
			    max.max_send_wr, max.max_recv_wr, max.max_send_sge,
			    max.max_recv_sge, err);
	KUNIT_EXPECT_GE(test, got.max_send_wr, max.max_send_wr);
	KUNIT_EXPECT_GE(test, got.max_recv_wr, max.max_recv_wr);
	KUNIT_EXPECT_GE(test, got.max_send_sge, max.max_send_sge);
	KUNIT_EXPECT_GE(test, got.max_recv_sge, max.max_recv_sge);

	for (i = 0; i < 4; i++) {
		cap = (struct ib_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1,
					  .max_send_sge = 1, .max_recv_sge = 1 };
		switch (i) {
		case 0:
			cap.max_send_wr = max.max_send_wr + 1;
			break;
		case 1:
			cap.max_recv_wr = max.max_recv_wr + 1;
			break;
		case 2:
			cap.max_send_sge = max.max_send_sge + 1;
			break;
		case 3:
			cap.max_recv_sge = max.max_recv_sge + 1;
			break;
		}
		err = lim_qp(u, &cap, flags, NULL);
		KUNIT_EXPECT_TRUE_MSG(test, err == -EINVAL || err == -ENOMEM,
				      "QP (flags %#x) one past limit %d: %d",
				      flags, i, err);
	}
}

static void limits_qp(struct kunit *test)
{
	struct ulp *u = lim_open(test);

	lim_qp_sizes(test, u, 0);
	if (u->ibdev->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER)
		lim_qp_sizes(test, u, IB_QP_CREATE_INTEGRITY_EN);
}

static void limits_srq(struct kunit *test)
{
	struct ulp *u = lim_open(test);
	struct ib_device_attr *a = &u->ibdev->attrs;
	struct ib_srq_init_attr sa = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = a->max_srq_wr, .max_sge = a->max_srq_sge },
	};
	struct ib_srq *srq;
	int i;

	srq = ib_create_srq(u->pd, &sa);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(srq), "SRQ of %u WRs, %u SGEs: %ld",
			       a->max_srq_wr, a->max_srq_sge, PTR_ERR(srq));
	KUNIT_EXPECT_GE(test, sa.attr.max_wr, (u32)a->max_srq_wr);
	KUNIT_EXPECT_GE(test, sa.attr.max_sge, (u32)a->max_srq_sge);
	ib_destroy_srq(srq);

	for (i = 0; i < 2; i++) {
		sa.attr.max_wr = i ? 1 : a->max_srq_wr + 1;
		sa.attr.max_sge = i ? a->max_srq_sge + 1 : 1;
		srq = ib_create_srq(u->pd, &sa);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(srq),
				      "SRQ one past max_srq_%s created",
				      i ? "sge" : "wr");
		if (!IS_ERR(srq))
			ib_destroy_srq(srq);
		else
			KUNIT_EXPECT_EQ(test, PTR_ERR(srq), -EINVAL);
	}
}

static void limits_mr(struct kunit *test)
{
	struct ulp *u = lim_open(test);
	struct ib_device_attr *a = &u->ibdev->attrs;
	u32 n = a->max_fast_reg_page_list_len;
	struct ib_mr *mr;

	mr = ib_alloc_mr(u->pd, IB_MR_TYPE_MEM_REG, n);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mr), "MR of %u pages: %ld", n,
			       PTR_ERR(mr));
	ib_dereg_mr(mr);
	mr = ib_alloc_mr(u->pd, IB_MR_TYPE_MEM_REG, n + 1);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(mr), "MR of %u pages created", n + 1);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);

	if (!(a->kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return;
	/* both page lists at the integrity limit, then each one past it */
	n = a->max_pi_fast_reg_page_list_len;
	mr = ib_alloc_mr_integrity(u->pd, n, n);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mr), "integrity MR of %u+%u: %ld",
			       n, n, PTR_ERR(mr));
	ib_dereg_mr(mr);
	mr = ib_alloc_mr_integrity(u->pd, n + 1, 1);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr_integrity(u->pd, 1, n + 1);
	KUNIT_EXPECT_TRUE(test, IS_ERR(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

static void limits_rd_atomic(struct kunit *test)
{
	struct ulp *u = lim_open(test);
	struct ib_device_attr *a = &u->ibdev->attrs;
	const int rd[3][2] = {
		{ a->max_qp_rd_atom, a->max_qp_init_rd_atom },
		{ a->max_qp_rd_atom + 1, 1 },
		{ 1, a->max_qp_init_rd_atom + 1 },
	};
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = u->cq,
		.recv_cq = u->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_init_attr init;
	struct ib_qp_attr got;
	struct ib_qp *qp;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(rd); i++) {
		qp = ib_create_qp(u->pd, &qa);
		KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
		err = ulp_connect_depth(u, qp, qp->qp_num, rd[i][0], rd[i][1]);
		if (!i) {
			KUNIT_EXPECT_EQ_MSG(test, err, 0,
					    "responder %d, initiator %d: %d",
					    rd[i][0], rd[i][1], err);
			err = ib_query_qp(qp, &got, IB_QP_MAX_QP_RD_ATOMIC |
					  IB_QP_MAX_DEST_RD_ATOMIC, &init);
			KUNIT_EXPECT_EQ(test, err, 0);
			KUNIT_EXPECT_EQ(test, got.max_dest_rd_atomic, rd[i][0]);
			KUNIT_EXPECT_EQ(test, got.max_rd_atomic, rd[i][1]);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL,
					    "responder %d, initiator %d",
					    rd[i][0], rd[i][1]);
		}
		ib_destroy_qp(qp);
	}
}

static struct kunit_case limits_cases[] = {
	KUNIT_CASE_SLOW(limits_cq),
	KUNIT_CASE_SLOW(limits_qp),
	KUNIT_CASE_SLOW(limits_srq),
	KUNIT_CASE_SLOW(limits_mr),
	KUNIT_CASE_SLOW(limits_rd_atomic),
	{}
};

static struct kunit_suite limits_suite = {
	.name = "mlx5sp_limits",
	.test_cases = limits_cases,
};

kunit_test_suites(&limits_suite);
