// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The kernel ULP of the KUnit suites (struct ulp: kunit_ulp.h): a model
 * device on dummy0 as ib_core hands it to a ULP, a PD, one CQ, a
 * DMA-mapped buffer per side and two QPs connected to each other, torn
 * down with the test.
 */
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "ib.h"
#include "sim/mlx5sp_sim.h"
#include "kunit_ulp.h"

void ulp_exit(void *data)
{
	struct ulp *u = data;
	int i;

	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(u->qp[i]))
			ib_destroy_qp(u->qp[i]);
		if (u->dma[i])
			ib_dma_unmap_single(u->ibdev, u->dma[i], ULP_BUF,
					    DMA_BIDIRECTIONAL);
		kfree(u->buf[i]);
	}
	if (!IS_ERR_OR_NULL(u->srq))
		ib_destroy_srq(u->srq);
	if (!IS_ERR_OR_NULL(u->cq))
		ib_destroy_cq(u->cq);
	if (!IS_ERR_OR_NULL(u->pd))
		ib_dealloc_pd(u->pd);
	if (u->ibdev)
		ib_device_put(u->ibdev);
	if (u->sim)
		mlx5sp_sim_destroy(u->sim);
	if (u->ndev)
		dev_put(u->ndev);
}

/* The RoCE v2 GID of the netdev's link-local address. */
static int ulp_find_gid(struct ulp *u)
{
	const struct ib_gid_attr *attr;
	int i, tries;

	for (tries = 0; tries < 100; tries++) {
		for (i = 0; i < 16; i++) {
			attr = rdma_get_gid_attr(u->ibdev, 1, i);
			if (IS_ERR(attr))
				continue;
			if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
			    attr->gid.raw[0] == 0xfe && attr->gid.raw[1] == 0x80) {
				u->gid_index = i;
				u->gid = attr->gid;
				rdma_put_gid_attr(attr);
				return 0;
			}
			rdma_put_gid_attr(attr);
		}
		msleep(50);
	}
	return -ENOENT;
}

/*
 * RESET to RTS with the attributes RC takes (READ, atomics when the device
 * has them, retries, @dest_rd responder and @init_rd initiator READ/atomic
 * depths) or UC takes (WRITE only, no responder resources).
 */
int ulp_connect_depth(struct ulp *u, struct ib_qp *qp, u32 dest, int dest_rd,
		      int init_rd)
{
	bool rc = qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr a = {};
	int err;

	a.qp_state = IB_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	if (rc)
		a.qp_access_flags |= IB_ACCESS_REMOTE_READ;
	if (rc && u->ibdev->attrs.atomic_cap != IB_ATOMIC_NONE)
		a.qp_access_flags |= IB_ACCESS_REMOTE_ATOMIC;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			   IB_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = dest_rd;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &u->gid, 0, u->gid_index, 64, 0);
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
	a.max_rd_atomic = init_rd;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    (rc ? IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			     IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC : 0));
}

static int ulp_connect(struct ulp *u, struct ib_qp *qp, u32 dest)
{
	return ulp_connect_depth(u, qp, dest, 1, 1);
}

int poll_n(struct ulp *u, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(ULP_TIMEOUT_MS);
	int got = 0, r;

	while (got < n && time_before(jiffies, end)) {
		r = ib_poll_cq(u->cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep_range(500, 1000);
	}
	return got;
}

static void ulp_qp_event(struct ib_event *ev, void *ctx)
{
	struct ulp *u = ctx;

	if (ev->event == IB_EVENT_SQ_DRAINED)
		atomic_inc(&u->sq_drained);
}

struct ulp *ulp_open(struct kunit *test, const char *name, int cqe)
{
	struct ib_cq_init_attr cq_attr = { .cqe = cqe };
	struct ulp *u;
	int i, err;

	u = kunit_kzalloc(test, sizeof(*u), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, u);
	init_completion(&u->srq_limit);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, ulp_exit, u));
	u->ndev = dev_get_by_name(&init_net, "dummy0");
	if (!u->ndev)
		kunit_skip(test, "no dummy0 netdev");
	rtnl_lock();
	err = dev_open(u->ndev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);

	u->sim = mlx5sp_sim_create_on(name, NULL, u->ndev);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(u->sim), "create: %ld", PTR_ERR(u->sim));
	u->ibdev = ib_device_get_by_name(name, RDMA_DRIVER_MLX5);
	KUNIT_ASSERT_NOT_NULL(test, u->ibdev);
	KUNIT_ASSERT_EQ(test, ulp_find_gid(u), 0);

	u->pd = ib_alloc_pd(u->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(u->pd), "pd: %ld", PTR_ERR(u->pd));
	u->cq = ib_create_cq(u->ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(u->cq) && PTR_ERR(u->cq) == -EOPNOTSUPP)
		kunit_skip(test, "the model has no CQs");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(u->cq), "cq: %ld", PTR_ERR(u->cq));
	for (i = 0; i < 2; i++) {
		u->buf[i] = kzalloc(ULP_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, u->buf[i]);
		u->dma[i] = ib_dma_map_single(u->ibdev, u->buf[i], ULP_BUF,
					      DMA_BIDIRECTIONAL);
		KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(u->ibdev, u->dma[i]));
	}
	return u;
}

void ulp_pair(struct kunit *test, struct ulp *u, struct ib_qp_init_attr *qa)
{
	int i;

	qa->send_cq = qa->send_cq ?: u->cq;
	qa->recv_cq = qa->recv_cq ?: u->cq;
	qa->event_handler = ulp_qp_event;
	qa->qp_context = u;
	for (i = 0; i < 2; i++) {
		if (i == 1 && u->srq) {
			qa->srq = u->srq;
			qa->cap.max_recv_wr = 0;
		}
		u->qp[i] = ib_create_qp(u->pd, qa);
		if (IS_ERR(u->qp[i]) && PTR_ERR(u->qp[i]) == -EOPNOTSUPP)
			kunit_skip(test, "the model has no QPs");
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(u->qp[i]), "qp: %ld",
				       PTR_ERR(u->qp[i]));
	}
	KUNIT_ASSERT_EQ(test, ulp_connect(u, u->qp[0], u->qp[1]->qp_num), 0);
	KUNIT_ASSERT_EQ(test, ulp_connect(u, u->qp[1], u->qp[0]->qp_num), 0);
}

struct ulp *ulp_setup_flags(struct kunit *test, u32 create_flags)
{
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.create_flags = create_flags,
	};
	struct ulp *u = ulp_open(test, "ku_ib0", 64);

	ulp_pair(test, u, &qa);
	return u;
}
