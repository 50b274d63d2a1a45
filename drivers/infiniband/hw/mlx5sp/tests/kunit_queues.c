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
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "ib.h"
#include "sim/mlx5sp_sim.h"

#define QT_BUF		4096
#define QT_TIMEOUT_MS	10000

struct qt {
	struct mlx5sp_sim *sim;
	struct net_device *ndev;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_srq *srq;
	struct ib_qp *qp[2];
	void *buf[2];
	u64 dma[2];
	u32 gid_index;
	union ib_gid gid;
	struct completion srq_limit;
};

static void qt_exit(void *data)
{
	struct qt *t = data;
	int i;

	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
		if (t->dma[i])
			ib_dma_unmap_single(t->ibdev, t->dma[i], QT_BUF,
					    DMA_BIDIRECTIONAL);
		kfree(t->buf[i]);
	}
	if (!IS_ERR_OR_NULL(t->srq))
		ib_destroy_srq(t->srq);
	if (!IS_ERR_OR_NULL(t->cq))
		ib_destroy_cq(t->cq);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	if (t->ibdev)
		ib_device_put(t->ibdev);
	if (t->sim)
		mlx5sp_sim_destroy(t->sim);
	if (t->ndev)
		dev_put(t->ndev);
}

/* The RoCE v2 GID of the netdev's link-local address. */
static int qt_find_gid(struct qt *t)
{
	const struct ib_gid_attr *attr;
	int i, tries;

	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 16; i++) {
			attr = rdma_get_gid_attr(t->ibdev, 1, i);
			if (IS_ERR(attr))
				continue;
			if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
			    attr->gid.raw[0] == 0xfe && attr->gid.raw[1] == 0x80) {
				t->gid_index = i;
				t->gid = attr->gid;
				rdma_put_gid_attr(attr);
				return 0;
			}
			rdma_put_gid_attr(attr);
		}
		msleep(50);
	}
	return -ENOENT;
}

/* RESET to RTS with the attributes RC or UC (no READ, no retries) takes. */
static int qt_connect(struct qt *t, struct ib_qp *qp, u32 dest)
{
	bool rc = qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	if (rc)
		a.qp_access_flags |= IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &t->gid, 0, t->gid_index, 64, 0);
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   (rc ? IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER : 0));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    (rc ? IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			     IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC : 0));
}

static int qt_poll(struct qt *t, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(QT_TIMEOUT_MS);
	int got = 0, r;

	while (got < n && time_before(jiffies, end)) {
		r = ib_poll_cq(t->cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep_range(500, 1000);
	}
	return got;
}

/* Nothing more arrives within a while. */
static bool qt_cq_quiet(struct qt *t)
{
	struct ib_wc wc;

	msleep(100);
	return ib_poll_cq(t->cq, 1, &wc) == 0;
}

static void qt_srq_event(struct ib_event *ev, void *ctx)
{
	struct qt *t = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		complete(&t->srq_limit);
}

/* A model device, a PD, a CQ and an SRQ when asked, no QPs yet. */
static struct qt *qt_setup(struct kunit *test, int cqe, bool srq)
{
	struct ib_cq_init_attr cq_attr = { .cqe = cqe };
	struct ib_srq_init_attr sa = {
		.event_handler = qt_srq_event,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct qt *t;
	int i, err;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	init_completion(&t->srq_limit);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, qt_exit, t));
	t->ndev = dev_get_by_name(&init_net, "dummy0");
	if (!t->ndev)
		kunit_skip(test, "no dummy0 netdev");
	rtnl_lock();
	err = dev_open(t->ndev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);

	t->sim = mlx5sp_sim_create_on("ku_q0", NULL, t->ndev);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->sim), "create: %ld", PTR_ERR(t->sim));
	t->ibdev = ib_device_get_by_name("ku_q0", RDMA_DRIVER_MLX5);
	KUNIT_ASSERT_NOT_NULL(test, t->ibdev);
	KUNIT_ASSERT_EQ(test, qt_find_gid(t), 0);
	t->pd = ib_alloc_pd(t->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->pd), "pd: %ld", PTR_ERR(t->pd));
	t->cq = ib_create_cq(t->ibdev, NULL, NULL, NULL, &cq_attr);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->cq), "cq: %ld", PTR_ERR(t->cq));
	if (srq) {
		sa.srq_context = t;
		t->srq = ib_create_srq(t->pd, &sa);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->srq), "srq: %ld",
				       PTR_ERR(t->srq));
		/* max_wr + 1 rounded up, one WQE always free */
		KUNIT_EXPECT_EQ(test, sa.attr.max_wr, 7u);
	}
	for (i = 0; i < 2; i++) {
		t->buf[i] = kzalloc(QT_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t->buf[i]);
		t->dma[i] = ib_dma_map_single(t->ibdev, t->buf[i], QT_BUF,
					      DMA_BIDIRECTIONAL);
		KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(t->ibdev, t->dma[i]));
	}
	return t;
}

/* Two connected QPs of @type; QP 1 receives from the SRQ if there is one. */
static void qt_qps(struct kunit *test, struct qt *t, enum ib_qp_type type)
{
	struct ib_qp_init_attr qa = {
		.send_cq = t->cq,
		.recv_cq = t->cq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	for (i = 0; i < 2; i++) {
		if (i == 1 && t->srq) {
			qa.srq = t->srq;
			qa.cap.max_recv_wr = 0;
		}
		t->qp[i] = ib_create_qp(t->pd, &qa);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(t->qp[i]), "qp: %ld",
				       PTR_ERR(t->qp[i]));
	}
	KUNIT_ASSERT_EQ(test, qt_connect(t, t->qp[0], t->qp[1]->qp_num), 0);
	KUNIT_ASSERT_EQ(test, qt_connect(t, t->qp[1], t->qp[0]->qp_num), 0);
}

static int qt_post_send(struct qt *t, enum ib_wr_opcode op, u64 wr_id,
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

	for (i = 0; i < QT_BUF; i++)
		p[i] = seed + i * 7;
}

static int qt_post_srq(struct qt *t, u64 wr_id, u32 off)
{
	struct ib_sge sge = { .addr = t->dma[1] + off, .length = 256,
			      .lkey = t->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_srq_recv(t->srq, &wr, &bad);
}

static void srq_traffic(struct kunit *test)
{
	struct qt *t = qt_setup(test, 64, true);
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
	n = qt_poll(t, wc, 6);
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
							  msecs_to_jiffies(QT_TIMEOUT_MS)),
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
	struct qt *t = qt_setup(test, 16, true);
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
	struct qt *t = qt_setup(test, 3, false);
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
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 3), 3);
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
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 6), 6);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 10ULL + i);

	/* shrink with one outstanding, and the CQ goes on */
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 20, 64, 0), 0);
	msleep(100);
	KUNIT_ASSERT_EQ(test, ib_resize_cq(t->cq, 3), 0);
	KUNIT_EXPECT_EQ(test, t->cq->cqe, 3);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 21, 64, 0), 0);
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 20ULL);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 21ULL);
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));
}

static void uc_traffic(struct kunit *test)
{
	struct qt *t = qt_setup(test, 64, false);
	struct ib_sge rsge = { .length = QT_BUF, .lkey = 0 };
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
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ULL);
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));

	/* SEND with one: both complete, the data is there */
	qt_fill(t->buf[0], 9);
	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[1], &rwr, &rbad), 0);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_SEND, 2, 500, 0), 0);
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id + wc[1].wr_id, 52ULL);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], 500), 0);

	/* RDMA WRITE */
	qt_fill(t->buf[0], 33);
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_WRITE, 3, QT_BUF, 0), 0);
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], QT_BUF), 0);

	/* UC takes no responder attributes of RC */
	a.max_dest_rd_atomic = 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(t->qp[1], &a, IB_QP_MAX_DEST_RD_ATOMIC),
			-EINVAL);
	a.qp_access_flags = IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_NE(test, ib_modify_qp(t->qp[1], &a, IB_QP_ACCESS_FLAGS), 0);

	/* RDMA READ on UC: an error completion, the QP in error */
	KUNIT_ASSERT_EQ(test, qt_post_send(t, IB_WR_RDMA_READ, 4, 64, 0), 0);
	KUNIT_ASSERT_EQ(test, qt_poll(t, wc, 1), 1);
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
	struct qt *t = qt_setup(test, 64, false);
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
	KUNIT_ASSERT_EQ(test, qt_poll(t, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[0], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTS);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[1], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_TRUE(test, qt_cq_quiet(t));
}

static struct kunit_case queues_cases[] = {
	KUNIT_CASE_SLOW(srq_traffic),
	KUNIT_CASE_SLOW(srq_bad_input),
	KUNIT_CASE_SLOW(cq_resize),
	KUNIT_CASE_SLOW(uc_traffic),
	KUNIT_CASE_SLOW(uc_bad_rkey),
	{}
};

static struct kunit_suite queues_suite = {
	.name = "mlx5sp_ib_queues",
	.test_cases = queues_cases,
};

kunit_test_suites(&queues_suite);
