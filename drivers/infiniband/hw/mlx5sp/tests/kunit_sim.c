// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for the software ConnectX's data path, without the driver's
 * IB layer: the CQE encoder, the QP state machine as firmware sees it,
 * MKEY checks and MTT translation, and RC traffic between two QPs of a
 * model device driven through raw PRM commands, WQEs built with the
 * <linux/mlx5/qp.h> segments and doorbells rung through the BAR.
 */
#include <kunit/test.h>
#include <linux/crc-t10dif.h>
#include <linux/delay.h>
#include <linux/ipv6.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <net/ipv6.h>

#include "mlx5sp.h"
#include "sim/bar.h"
#include "sim/cq.h"
#include "sim/engine.h"
#include "sim/mkey.h"
#include "sim/mlx5sp_sim.h"
#include "sim/qp.h"
#include "sim/sig.h"
#include "sim/sim.h"

/* ---- suite: encoders and tables (no device) --------------------------- */

static void cqe_owner_and_opcode(struct kunit *test)
{
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_REQ,
		.wqe_opcode = MLX5_OPCODE_RDMA_READ,
		.wqe_counter = 0x1234,
		.qpn = 0xabcdef,
		.user_index = 0x123456,
		.byte_cnt = 4096,
	};
	struct mlx5_cqe64 cqe;

	sim_cqe_encode(&cqe, &ci, 0, 4);
	KUNIT_EXPECT_EQ(test, cqe.op_own, MLX5_CQE_REQ << 4 | 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe.sop_drop_qpn),
			MLX5_OPCODE_RDMA_READ << 24 | 0xabcdef);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe.wqe_counter), 0x1234);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe.srqn), 0x123456);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe.byte_cnt), 4096);

	/* the owner bit flips each pass over a CQ of 16 */
	sim_cqe_encode(&cqe, &ci, 15, 4);
	KUNIT_EXPECT_EQ(test, cqe.op_own & MLX5_CQE_OWNER_MASK, 0);
	sim_cqe_encode(&cqe, &ci, 16, 4);
	KUNIT_EXPECT_EQ(test, cqe.op_own & MLX5_CQE_OWNER_MASK, 1);
	sim_cqe_encode(&cqe, &ci, 32, 4);
	KUNIT_EXPECT_EQ(test, cqe.op_own & MLX5_CQE_OWNER_MASK, 0);
}

static void cqe_error_layout(struct kunit *test)
{
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_REQ_ERR,
		.syndrome = MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
		.wqe_opcode = MLX5_OPCODE_RDMA_WRITE,
		.wqe_counter = 7,
		.qpn = 0x48,
		.user_index = 5,
	};
	struct mlx5_cqe64 cqe;
	struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)&cqe;

	sim_cqe_encode(&cqe, &ci, 3, 2);
	KUNIT_EXPECT_EQ(test, cqe.op_own >> 4, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, cqe.op_own & 1, 0);
	KUNIT_EXPECT_EQ(test, err->syndrome,
			MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(err->s_wqe_opcode_qpn),
			MLX5_OPCODE_RDMA_WRITE << 24 | 0x48);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(err->wqe_counter), 7);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(err->srqn), 5);

	ci.opcode = MLX5_CQE_RESP_SEND_IMM;
	ci.imm = cpu_to_be32(0xfeedbeef);
	ci.flags_rqpn = BIT(28) | 2 << 24 | 1;
	sim_cqe_encode(&cqe, &ci, 4, 2);
	KUNIT_EXPECT_EQ(test, cqe.op_own, MLX5_CQE_RESP_SEND_IMM << 4 | 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe.immediate), 0xfeedbeef);
	KUNIT_EXPECT_EQ(test, (be32_to_cpu(cqe.flags_rqpn) >> 28) & 3, 1);
	KUNIT_EXPECT_EQ(test, (be32_to_cpu(cqe.flags_rqpn) >> 24) & 3,
			MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV4);
	/* untagged: no VLAN; tagged: bit 0 and the TCI, as mlx5_ib reads */
	KUNIT_EXPECT_EQ(test, cqe.l4_l3_hdr_type & 1, 0);
	ci.vlan = true;
	ci.vlan_info = 5 << 13 | 10;
	sim_cqe_encode(&cqe, &ci, 5, 2);
	KUNIT_EXPECT_EQ(test, cqe.l4_l3_hdr_type & 1, 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe.vlan_info) & 0xfff, 10);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe.vlan_info) >> 13, 5);
}

#define QPS(s)	BIT(MLX5_QP_STATE_##s)
#define QPS_ALL	(QPS(RST) | QPS(INIT) | QPS(RTR) | QPS(RTS) | QPS(SQER) | \
		 QPS(SQD) | QPS(ERR))

static const struct {
	u16 opcode;
	u32 from;
	u8 to;
} qp_legal[] = {
	{ MLX5_CMD_OP_RST2INIT_QP, QPS(RST), MLX5_QP_STATE_INIT },
	{ MLX5_CMD_OP_INIT2INIT_QP, QPS(INIT), MLX5_QP_STATE_INIT },
	{ MLX5_CMD_OP_INIT2RTR_QP, QPS(INIT), MLX5_QP_STATE_RTR },
	{ MLX5_CMD_OP_RTR2RTS_QP, QPS(RTR), MLX5_QP_STATE_RTS },
	{ MLX5_CMD_OP_RTS2RTS_QP, QPS(RTS), MLX5_QP_STATE_RTS },
	{ MLX5_CMD_OP_SQERR2RTS_QP, QPS(SQER), MLX5_QP_STATE_RTS },
	{ MLX5SP_CMD_OP_RTS2SQD_QP, QPS(RTS), MLX5_QP_STATE_SQD },
	{ MLX5_CMD_OP_SQD_RTS_QP, QPS(SQD), MLX5_QP_STATE_RTS },
	{ MLX5_CMD_OP_2ERR_QP, QPS_ALL, MLX5_QP_STATE_ERR },
	{ MLX5_CMD_OP_2RST_QP, QPS_ALL, MLX5_QP_STATE_RST },
};

/* Every (command, state) pair: legal ones land where PRM says, others fail. */
static void qp_state_table(struct kunit *test)
{
	static const u8 states[] = {
		MLX5_QP_STATE_RST, MLX5_QP_STATE_INIT, MLX5_QP_STATE_RTR,
		MLX5_QP_STATE_RTS, MLX5_QP_STATE_SQER, MLX5_QP_STATE_SQD,
		MLX5_QP_STATE_ERR, MLX5_QP_STATE_SQ_DRAINING,
	};
	int i, j;
	u8 next;

	for (i = 0; i < ARRAY_SIZE(qp_legal); i++) {
		for (j = 0; j < ARRAY_SIZE(states); j++) {
			bool legal = qp_legal[i].from & BIT(states[j]);
			int err = sim_qp_transition(qp_legal[i].opcode,
						    states[j], &next);

			KUNIT_EXPECT_EQ_MSG(test, err, legal ? 0 : -EINVAL,
					    "op 0x%x from %u", qp_legal[i].opcode,
					    states[j]);
			if (legal && !err)
				KUNIT_EXPECT_EQ(test, next, qp_legal[i].to);
		}
	}
	/* not a QP command at all */
	KUNIT_EXPECT_EQ(test, sim_qp_transition(MLX5_CMD_OP_CREATE_QP,
						MLX5_QP_STATE_RST, &next),
			-EINVAL);
}

static void mkey_checks(struct kunit *test)
{
	u64 mtt[3] = { 0x10000, 0x30000, 0x20000 };
	struct sim_mkey mk = {
		.access_mode = MLX5_MKC_ACCESS_MODE_MTT,
		.access = SIM_ACC_LR | SIM_ACC_LW | SIM_ACC_RR,
		.pd = 3,
		.qpn = 0xffffff,
		.start = 0x7000100,	/* 256 bytes into its first page */
		.len = 3 * 4096 - 256,
		.page_shift = 12,
		.nmtt = 3,
		.mtt = mtt,
	};
	u64 avail = 0;

	spin_lock_init(&mk.lock);
	seqcount_spinlock_init(&mk.seq, &mk.lock);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start, mk.len,
					     SIM_ACC_LW), 0);
	/* PD, access, bounds at both ends, overflow */
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 4, 9, mk.start, 1, 0), 2);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start, 1,
					     SIM_ACC_RW), 3);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start, 1,
					     SIM_ACC_A), 3);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start - 1, 1, 0),
			4);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start, mk.len + 1,
					     0), 4);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start + mk.len, 1,
					     0), 4);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start + 8,
					     U64_MAX, 0), 4);
	/* a key bound to one QP */
	mk.qpn = 9;
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 10, mk.start, 1, 0), 2);
	/* a free key (UMR not done) reaches nothing */
	mk.free = true;
	KUNIT_EXPECT_EQ(test, sim_mkey_check(&mk, 3, 9, mk.start, 1, 0), 1);

	/* translation: page by page, offset kept, contiguous bytes left */
	KUNIT_EXPECT_EQ(test, sim_mkey_mtt_pa(&mk, mk.start, &avail),
			0x10100ULL);
	KUNIT_EXPECT_EQ(test, avail, 4096ULL - 256);
	KUNIT_EXPECT_EQ(test, sim_mkey_mtt_pa(&mk, 0x7001000, &avail),
			0x30000ULL);
	KUNIT_EXPECT_EQ(test, avail, 4096ULL);
	KUNIT_EXPECT_EQ(test, sim_mkey_mtt_pa(&mk, 0x7002ffc, &avail),
			0x20ffcULL);
	KUNIT_EXPECT_EQ(test, avail, 4ULL);
	/* beyond the table, and a hole */
	KUNIT_EXPECT_EQ(test, sim_mkey_mtt_pa(&mk, 0x7003000, &avail), 0ULL);
	mtt[1] = 0;
	KUNIT_EXPECT_EQ(test, sim_mkey_mtt_pa(&mk, 0x7001000, &avail), 0ULL);
}

/*
 * A UMR WQE as libmlx5 builds a window bind: ctrl, UMR ctrl, mkey
 * context, @nklm_oct octowords of inline KLMs. Returns its size.
 */
static u32 t_umr_bind(u8 *w, u32 target, u32 mr_key, u64 va, u32 len,
		      u32 nklm_oct)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)w;
	struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(ctrl + 1);
	void *mkc = uc + 1;
	struct mlx5_klm *klm = mkc + sizeof(struct mlx5_mkey_seg);
	u32 size = 128 + nklm_oct * 16;

	memset(w, 0, size);
	ctrl->opmod_idx_opcode = cpu_to_be32(MLX5_OPCODE_UMR);
	ctrl->qpn_ds = cpu_to_be32(0x40 << 8 | size / 16);
	ctrl->umr_mkey = cpu_to_be32(target);
	uc->flags = MLX5_UMR_INLINE | MLX5_UMR_TRANSLATION_OFFSET_EN;
	uc->xlt_octowords = cpu_to_be16(nklm_oct);
	uc->mkey_mask = cpu_to_be64(MLX5_MKEY_MASK_FREE | MLX5_MKEY_MASK_KEY |
				    MLX5_MKEY_MASK_LEN |
				    MLX5_MKEY_MASK_START_ADDR |
				    MLX5_MKEY_MASK_RW | MLX5_MKEY_MASK_QPN);
	MLX5_SET(mkc, mkc, qpn, 0x40);
	MLX5_SET(mkc, mkc, mkey_7_0, (target + 1) & 0xff);
	MLX5_SET(mkc, mkc, rw, 1);
	MLX5_SET64(mkc, mkc, start_addr, va);
	MLX5_SET64(mkc, mkc, len, len);
	if (nklm_oct) {
		klm->bcount = cpu_to_be32(len);
		klm->key = cpu_to_be32(mr_key);
		klm->va = cpu_to_be64(va);
	}
	return size;
}

static void umr_parse(struct kunit *test)
{
	u8 *w = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct mlx5_wqe_umr_ctrl_seg *uc;
	struct sim_umr u;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, w);
	uc = (void *)(w + sizeof(struct mlx5_wqe_ctrl_seg));

	/* a window bind: the parts found where they are */
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 4);
	KUNIT_ASSERT_EQ(test, sim_umr_parse(w, len, &u), 0);
	KUNIT_EXPECT_EQ(test, u.mkey, 0x1234u);
	KUNIT_EXPECT_EQ(test, u.xlt_octowords, 4u);
	KUNIT_EXPECT_EQ(test, u.xlt_offset, 0ULL);
	KUNIT_EXPECT_PTR_EQ(test, u.mkc, (const void *)(w + 64));
	KUNIT_EXPECT_PTR_EQ(test, u.xlt, (const void *)(w + 128));
	KUNIT_EXPECT_NULL(test, u.xlt_ptr);
	KUNIT_EXPECT_NULL(test, u.bsf);
	KUNIT_EXPECT_EQ(test, MLX5_GET(mkc, u.mkc, qpn), 0x40u);
	KUNIT_EXPECT_EQ(test, MLX5_GET64(mkc, u.mkc, len), 4096ULL);
	/* an invalidation: no translations */
	len = t_umr_bind(w, 0x1234, 0, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, sim_umr_parse(w, len, &u), 0);
	KUNIT_EXPECT_NULL(test, u.xlt);
	/* translations by pointer: a data segment after the context */
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 1);
	uc->flags = MLX5_UMR_TRANSLATION_OFFSET_EN;
	uc->xlt_offset = cpu_to_be16(8);
	KUNIT_ASSERT_EQ(test, sim_umr_parse(w, len, &u), 0);
	KUNIT_EXPECT_PTR_EQ(test, (const void *)u.xlt_ptr,
			    (const void *)(w + 128));
	KUNIT_EXPECT_EQ(test, u.xlt_offset, 8ULL);
	/* without the offset flag the offset is 0 */
	uc->flags = 0;
	KUNIT_ASSERT_EQ(test, sim_umr_parse(w, len, &u), 0);
	KUNIT_EXPECT_EQ(test, u.xlt_offset, 0ULL);

	/* malformed: too short for the context, translations past the end */
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 4);
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, 112, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, len - 16, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	uc->flags = 0;
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, 128, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	/* a mask bit no firmware knows, a flag bit, both free checks */
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 4);
	uc->mkey_mask |= cpu_to_be64(BIT_ULL(63));
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, len, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 4);
	uc->flags |= BIT(0);
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, len, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 4);
	uc->flags |= MLX5_UMR_CHECK_FREE | MLX5_UMR_CHECK_NOT_FREE;
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, len, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	/* a BSF the WQE does not hold */
	len = t_umr_bind(w, 0x1234, 0x5601, 0x10000, 4096, 4);
	uc->mkey_mask |= cpu_to_be64(MLX5_MKEY_MASK_BSF_EN);
	uc->bsf_octowords = cpu_to_be16(4);
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, len, &u),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	KUNIT_EXPECT_EQ(test, sim_umr_parse(w, len + 64, &u), 0);
	KUNIT_EXPECT_PTR_EQ(test, u.bsf, (const void *)(w + len));
}

/* pollset.c: growth past its first array, removal by moving the last */
static void pollset_add_del(struct kunit *test)
{
	static int obj[40];
	struct sim_pollset ps;
	unsigned int i, seen;

	sim_pollset_init(&ps);
	KUNIT_EXPECT_EQ(test, sim_pollset_len(&ps), 0U);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, sim_pollset_at(&ps, 0));
	rcu_read_unlock();
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		KUNIT_ASSERT_EQ(test, sim_pollset_add(&ps, &obj[i]), 0);
	KUNIT_EXPECT_EQ(test, sim_pollset_len(&ps), 40U);
	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(obj); i++)
		KUNIT_EXPECT_PTR_EQ(test, sim_pollset_at(&ps, i), &obj[i]);
	KUNIT_EXPECT_NULL(test, sim_pollset_at(&ps, 40));
	rcu_read_unlock();

	/* the last entry takes the removed one's slot */
	sim_pollset_del(&ps, &obj[3]);
	KUNIT_EXPECT_EQ(test, sim_pollset_len(&ps), 39U);
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, sim_pollset_at(&ps, 3), &obj[39]);
	KUNIT_EXPECT_NULL(test, sim_pollset_at(&ps, 39));
	rcu_read_unlock();
	sim_pollset_del(&ps, &obj[39]);
	sim_pollset_del(&ps, &obj[38]);
	KUNIT_EXPECT_EQ(test, sim_pollset_len(&ps), 37U);
	rcu_read_lock();
	for (i = 0, seen = 0; i < sim_pollset_len(&ps); i++) {
		int *o = sim_pollset_at(&ps, i);

		KUNIT_EXPECT_NOT_NULL(test, o);
		KUNIT_EXPECT_TRUE(test, o != &obj[3] && o != &obj[38] &&
				  o != &obj[39]);
		seen++;
	}
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, seen, 37U);
	for (i = 0; i < 38; i++)
		if (i != 3)
			sim_pollset_del(&ps, &obj[i]);
	KUNIT_EXPECT_EQ(test, sim_pollset_len(&ps), 0U);
	/* the grown arrays went through RCU; the last one goes here */
	rcu_barrier();
	sim_pollset_destroy(&ps);
}

static struct kunit_case sim_logic_cases[] = {
	KUNIT_CASE(pollset_add_del),
	KUNIT_CASE(umr_parse),
	KUNIT_CASE(cqe_owner_and_opcode),
	KUNIT_CASE(cqe_error_layout),
	KUNIT_CASE(qp_state_table),
	KUNIT_CASE(mkey_checks),
	{}
};

static struct kunit_suite sim_logic_suite = {
	.name = "mlx5sp_sim_logic",
	.test_cases = sim_logic_cases,
};

/* ---- suite: RC traffic through raw commands ----------------------------- */

#define T_CQ_LOG	6		/* 64 CQEs: one page */
#define T_LOG_SQ	4		/* 16 basic blocks */
#define T_LOG_RQ	4		/* 16 receive WQEs of 64 bytes */
#define T_RQ_STRIDE	64
#define T_GID_INDEX	0
#define T_WAIT_MS	2000
#define T_MAX_PAGES	16

struct t_qp {
	u32 qpn;
	void *buf;			/* one page: RQ, then SQ at 1 KiB */
	__be32 *db;
	u16 sq_pi;			/* basic blocks posted */
	u16 rq_pi;
};

struct t_dev {
	struct kunit *test;
	struct mlx5sp_sim *sim;
	struct mlx5sp_dev *dev;
	struct mlx5sp_model_dev *mdev;
	u32 pdn;
	u32 uar;
	u32 cqn;
	u32 dma_key;			/* PA, length64, all access */
	struct mlx5_cqe64 *cq;		/* one page of CQEs */
	__be32 *cq_db;
	u32 cq_ci;
	u8 gid[16];
	void *pages[T_MAX_PAGES];	/* freed after the device is gone */
	int npages;
};

/*
 * A zeroed page the model reaches by its physical address. Like a
 * driver, the test frees such memory only once the device cannot
 * touch it any more.
 */
static void *t_page(struct t_dev *d)
{
	void *p;

	KUNIT_ASSERT_LT(d->test, d->npages, T_MAX_PAGES);
	p = (void *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, p);
	d->pages[d->npages++] = p;
	return p;
}

static u64 t_pa(void *p)
{
	return virt_to_phys(p);
}

static void t_dev_down(void *data)
{
	struct t_dev *d = data;
	int i;

	mlx5sp_sim_destroy(d->sim);
	for (i = 0; i < d->npages; i++)
		free_page((unsigned long)d->pages[i]);
}

static int t_cmd(struct t_dev *d, void *in, int inlen, void *out, int outlen)
{
	return mlx5sp_cmd_exec(d->dev, in, inlen, out, outlen);
}

static void t_dev_up(struct kunit *test, struct t_dev *d, const char *name)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	void *ra, *cin, *cqc;
	void *mkin, *mkc;
	int i;

	d->test = test;
	d->sim = mlx5sp_sim_create(name, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->sim));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, t_dev_down,
							   d));
	KUNIT_ASSERT_EQ(test, mlx5sp_sim_attach(d->sim), 0);
	d->mdev = mlx5sp_sim_model(d->sim);
	d->dev = mlx5sp_model_to_dev(d->mdev);
	KUNIT_ASSERT_NOT_NULL(test, d->dev);

	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	KUNIT_ASSERT_EQ(test, t_cmd(d, in, sizeof(in), out,
				    MLX5_ST_SZ_BYTES(alloc_pd_out)), 0);
	d->pdn = MLX5_GET(alloc_pd_out, out, pd);

	memset(in, 0, sizeof(in));
	MLX5_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	KUNIT_ASSERT_EQ(test, t_cmd(d, in, MLX5_ST_SZ_BYTES(alloc_uar_in), out,
				    MLX5_ST_SZ_BYTES(alloc_uar_out)), 0);
	d->uar = MLX5_GET(alloc_uar_out, out, uar);
	KUNIT_EXPECT_NOT_NULL(test, d->mdev->ops->uar_page(d->mdev, d->uar));

	/* the GID both QPs use: RoCE v2, IPv6 */
	ra = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(set_roce_address_in),
			   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ra);
	for (i = 0; i < 16; i++)
		d->gid[i] = i == 0 ? 0xfe : i == 1 ? 0x80 : i == 15 ? name[3] : 0;
	MLX5_SET(set_roce_address_in, ra, opcode,
		 MLX5_CMD_OP_SET_ROCE_ADDRESS);
	MLX5_SET(set_roce_address_in, ra, roce_address_index, T_GID_INDEX);
	memcpy(MLX5_ADDR_OF(set_roce_address_in, ra,
			    roce_address.source_l3_address), d->gid, 16);
	MLX5_SET(set_roce_address_in, ra, roce_address.roce_version,
		 MLX5_ROCE_VERSION_2);
	MLX5_SET(set_roce_address_in, ra, roce_address.roce_l3_type,
		 MLX5_ROCE_L3_TYPE_IPV6);
	KUNIT_ASSERT_EQ(test, t_cmd(d, ra,
				    MLX5_ST_SZ_BYTES(set_roce_address_in), out,
				    MLX5_ST_SZ_BYTES(set_roce_address_out)),
			0);

	/* get_dma_mr's key: PA, length64 */
	mkin = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(create_mkey_in),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mkin);
	mkc = MLX5_ADDR_OF(create_mkey_in, mkin, memory_key_mkey_entry);
	MLX5_SET(create_mkey_in, mkin, opcode, MLX5_CMD_OP_CREATE_MKEY);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	MLX5_SET(mkc, mkc, length64, 1);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, lw, 1);
	MLX5_SET(mkc, mkc, rr, 1);
	MLX5_SET(mkc, mkc, rw, 1);
	MLX5_SET(mkc, mkc, a, 1);
	MLX5_SET(mkc, mkc, pd, d->pdn);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, mkey_7_0, 0x5a);
	KUNIT_ASSERT_EQ(test, t_cmd(d, mkin, MLX5_ST_SZ_BYTES(create_mkey_in),
				    out, MLX5_ST_SZ_BYTES(create_mkey_out)), 0);
	d->dma_key = MLX5_GET(create_mkey_out, out, mkey_index) << 8 | 0x5a;

	/* one CQ for everything, on the async EQ (never armed) */
	d->cq = t_page(d);
	d->cq_db = t_page(d);
	for (i = 0; i < BIT(T_CQ_LOG); i++)
		d->cq[i].op_own = MLX5_CQE_INVALID << 4;
	cin = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(create_cq_in) + 8,
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cin);
	cqc = MLX5_ADDR_OF(create_cq_in, cin, cq_context);
	MLX5_SET(create_cq_in, cin, opcode, MLX5_CMD_OP_CREATE_CQ);
	MLX5_SET(cqc, cqc, log_cq_size, T_CQ_LOG);
	MLX5_SET(cqc, cqc, uar_page, d->uar);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, d->dev->async_eq.eqn);
	MLX5_SET64(cqc, cqc, dbr_addr, t_pa(d->cq_db));
	*(__be64 *)MLX5_ADDR_OF(create_cq_in, cin, pas) =
		cpu_to_be64(t_pa(d->cq));
	KUNIT_ASSERT_EQ(test, t_cmd(d, cin, MLX5_ST_SZ_BYTES(create_cq_in) + 8,
				    out, MLX5_ST_SZ_BYTES(create_cq_out)), 0);
	d->cqn = MLX5_GET(create_cq_out, out, cqn);
}

/* The next CQE, consumed; NULL after @ms without one. */
static struct mlx5_cqe64 *t_poll(struct t_dev *d, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	struct mlx5_cqe64 *cqe;

	cqe = &d->cq[d->cq_ci & (BIT(T_CQ_LOG) - 1)];
	for (;;) {
		u8 own = READ_ONCE(cqe->op_own);

		if ((own >> 4) != MLX5_CQE_INVALID &&
		    (own & 1) == ((d->cq_ci >> T_CQ_LOG) & 1))
			break;
		if (time_after(jiffies, end))
			return NULL;
		usleep_range(100, 200);
	}
	dma_rmb();
	d->cq_ci++;
	WRITE_ONCE(d->cq_db[0], cpu_to_be32(d->cq_ci & 0xffffff));
	return cqe;
}

static int t_qp_cmd(struct t_dev *d, u16 opcode, u32 qpn, u32 optpar,
		    const void *qpc, u32 *status)
{
	u32 out[MLX5_ST_SZ_DW(rst2init_qp_out)] = {};
	void *in;
	int err;

	in = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(rst2init_qp_in),
			   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	MLX5_SET(rst2init_qp_in, in, opcode, opcode);
	MLX5_SET(rst2init_qp_in, in, qpn, qpn);
	MLX5_SET(rst2init_qp_in, in, opt_param_mask, optpar);
	if (qpc)
		memcpy(MLX5_ADDR_OF(rst2init_qp_in, in, qpc), qpc,
		       MLX5_ST_SZ_BYTES(qpc));
	err = t_cmd(d, in, MLX5_ST_SZ_BYTES(rst2init_qp_in), out, sizeof(out));
	if (status)
		*status = MLX5SP_CMD_STATUS(out);
	return err;
}

static void t_qp_create_st(struct t_dev *d, struct t_qp *qp, u8 st)
{
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	void *in, *qpc;

	qp->buf = t_page(d);
	qp->db = t_page(d);
	in = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(create_qp_in) + 8,
			   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	MLX5_SET(qpc, qpc, st, st);
	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	MLX5_SET(qpc, qpc, pd, d->pdn);
	MLX5_SET(qpc, qpc, uar_page, d->uar);
	MLX5_SET(qpc, qpc, log_rq_stride, ilog2(T_RQ_STRIDE) - 4);
	MLX5_SET(qpc, qpc, log_rq_size, T_LOG_RQ);
	MLX5_SET(qpc, qpc, rq_type, MLX5_NON_ZERO_RQ);
	MLX5_SET(qpc, qpc, log_sq_size, T_LOG_SQ);
	MLX5_SET(qpc, qpc, cqn_snd, d->cqn);
	MLX5_SET(qpc, qpc, cqn_rcv, d->cqn);
	MLX5_SET(qpc, qpc, user_index, 0x77);
	MLX5_SET64(qpc, qpc, dbr_addr, t_pa(qp->db));
	*(__be64 *)MLX5_ADDR_OF(create_qp_in, in, pas) =
		cpu_to_be64(t_pa(qp->buf));
	KUNIT_ASSERT_EQ(d->test, t_cmd(d, in,
				       MLX5_ST_SZ_BYTES(create_qp_in) + 8, out,
				       sizeof(out)), 0);
	qp->qpn = MLX5_GET(create_qp_out, out, qpn);
}

static void t_qp_create(struct t_dev *d, struct t_qp *qp)
{
	t_qp_create_st(d, qp, MLX5_QP_ST_RC);
}

/* RST -> INIT -> RTR -> RTS, connected to @rqpn at @rgid. */
static void t_qp_connect(struct t_dev *d, struct t_qp *qp, u32 rqpn,
			 const u8 *rgid, u8 rnr_retry)
{
	void *qpc = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(qpc), GFP_KERNEL);
	void *path = MLX5_ADDR_OF(qpc, qpc, primary_address_path);

	KUNIT_ASSERT_NOT_NULL(d->test, qpc);
	MLX5_SET(qpc, qpc, rre, 1);
	MLX5_SET(qpc, qpc, rwe, 1);
	MLX5_SET(qpc, qpc, rae, 1);
	MLX5_SET(ads, path, vhca_port_num, 1);
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_RST2INIT_QP, qp->qpn,
					  0, qpc, NULL), 0);

	memcpy(MLX5_ADDR_OF(ads, path, rgid_rip), rgid, 16);
	MLX5_SET(ads, path, src_addr_index, T_GID_INDEX);
	MLX5_SET(ads, path, hop_limit, 64);
	MLX5_SET(qpc, qpc, mtu, MLX5_QPC_MTU_4K_BYTES);
	MLX5_SET(qpc, qpc, log_msg_max, 30);
	MLX5_SET(qpc, qpc, remote_qpn, rqpn);
	MLX5_SET(qpc, qpc, min_rnr_nak, 1);	/* 10 us */
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_INIT2RTR_QP, qp->qpn,
					  0, qpc, NULL), 0);

	MLX5_SET(ads, path, ack_timeout, 1);
	MLX5_SET(qpc, qpc, retry_count, 1);
	MLX5_SET(qpc, qpc, rnr_retry, rnr_retry);
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_RTR2RTS_QP, qp->qpn,
					  0, qpc, NULL), 0);
}

static void t_post_recv(struct t_qp *qp, u32 lkey, void *addr, u32 len)
{
	struct mlx5_wqe_data_seg *ds = qp->buf + (qp->rq_pi & 15) * T_RQ_STRIDE;

	ds[0].byte_count = cpu_to_be32(len);
	ds[0].lkey = cpu_to_be32(lkey);
	ds[0].addr = cpu_to_be64(t_pa(addr));
	ds[1].lkey = MLX5_TERMINATE_SCATTER_LIST_LKEY;
	qp->rq_pi++;
	dma_wmb();
	WRITE_ONCE(qp->db[MLX5_RCV_DBR], cpu_to_be32(qp->rq_pi));
}

/* A WQE in one basic block: ctrl, [raddr], [atomic], one data segment. */
struct t_wr {
	u8 opcode;
	u32 lkey;
	void *addr;
	u64 lva;			/* with lkey_va: addr is not memory */
	bool lkey_va;
	u32 len;
	u32 rkey;
	void *raddr;
	u64 swap_add;
	u64 compare;
	__be32 imm;
};

static void t_post_send(struct t_dev *d, struct t_qp *qp,
			const struct t_wr *wr)
{
	void *wqe = qp->buf + 1024 + (qp->sq_pi & 15) * MLX5_SEND_WQE_BB;
	struct mlx5_wqe_ctrl_seg *ctrl = wqe;
	struct mlx5_wqe_raddr_seg *rseg;
	struct mlx5_wqe_atomic_seg *aseg;
	struct mlx5_wqe_data_seg *dseg;
	void *seg = ctrl + 1;
	u8 ds = 1;

	memset(wqe, 0, MLX5_SEND_WQE_BB);
	if (wr->opcode == MLX5_OPCODE_RDMA_WRITE ||
	    wr->opcode == MLX5_OPCODE_RDMA_READ ||
	    wr->opcode == MLX5_OPCODE_ATOMIC_CS ||
	    wr->opcode == MLX5_OPCODE_ATOMIC_FA) {
		rseg = seg;
		rseg->raddr = cpu_to_be64(t_pa(wr->raddr));
		rseg->rkey = cpu_to_be32(wr->rkey);
		seg = rseg + 1;
		ds++;
	}
	if (wr->opcode == MLX5_OPCODE_ATOMIC_CS ||
	    wr->opcode == MLX5_OPCODE_ATOMIC_FA) {
		aseg = seg;
		aseg->swap_add = cpu_to_be64(wr->swap_add);
		aseg->compare = cpu_to_be64(wr->compare);
		seg = aseg + 1;
		ds++;
	}
	dseg = seg;
	dseg->byte_count = cpu_to_be32(wr->len);
	dseg->lkey = cpu_to_be32(wr->lkey);
	dseg->addr = cpu_to_be64(wr->lkey_va ? wr->lva : t_pa(wr->addr));
	ds++;

	ctrl->opmod_idx_opcode = cpu_to_be32(qp->sq_pi << 8 | wr->opcode);
	ctrl->qpn_ds = cpu_to_be32(qp->qpn << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	ctrl->imm = wr->imm;
	qp->sq_pi++;
	dma_wmb();
	WRITE_ONCE(qp->db[MLX5_SND_DBR], cpu_to_be32(qp->sq_pi));
	/* the kernel's doorbell: the first 8 bytes of the WQE */
	d->mdev->ops->write64(d->mdev, d->uar * SZ_4K + MLX5SP_UAR_BF_OFFSET,
			      *(u64 *)ctrl);
}

/* Two connected RC QPs on one device (loopback). */
struct t_pair {
	struct t_dev d;
	struct t_qp a, b;
	void *src, *dst;
};

static void t_pair_up(struct kunit *test, struct t_pair *p, const char *name,
		      u8 rnr_retry)
{
	t_dev_up(test, &p->d, name);
	t_qp_create(&p->d, &p->a);
	t_qp_create(&p->d, &p->b);
	t_qp_connect(&p->d, &p->a, p->b.qpn, p->d.gid, rnr_retry);
	t_qp_connect(&p->d, &p->b, p->a.qpn, p->d.gid, rnr_retry);
	p->src = t_page(&p->d);
	p->dst = t_page(&p->d);
}

/* An RDMA WRITE of @len bytes from the pair's src page to its dst page. */
static struct t_wr t_pair_write(struct t_pair *p, u32 len)
{
	return (struct t_wr){
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.lkey = p->d.dma_key, .addr = p->src, .len = len,
		.rkey = p->d.dma_key, .raddr = p->dst,
	};
}

static u32 t_qpn(const struct mlx5_cqe64 *cqe)
{
	return be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff;
}

static void rc_send_recv(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct t_wr wr = { .opcode = MLX5_OPCODE_SEND_IMM, .len = 3000 };
	struct mlx5_cqe64 *cqe;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_pair_up(test, p, "kus0", 7);
	for (i = 0; i < 3000; i++)
		((u8 *)p->src)[i] = i * 7;
	t_post_recv(&p->b, p->d.dma_key, p->dst, 4096);
	wr.lkey = p->d.dma_key;
	wr.addr = p->src;
	wr.imm = cpu_to_be32(0x1234abcd);
	t_post_send(&p->d, &p->a, &wr);

	/* the responder's CQE comes first: it completes inside the send */
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_RESP_SEND_IMM);
	KUNIT_EXPECT_EQ(test, t_qpn(cqe), p->b.qpn);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->byte_cnt), 3000);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->immediate), 0x1234abcd);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->srqn) & 0xffffff, 0x77);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, t_qpn(cqe), p->a.qpn);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->sop_drop_qpn) >> 24,
			MLX5_OPCODE_SEND_IMM);
	KUNIT_EXPECT_EQ(test, memcmp(p->src, p->dst, 3000), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)p->dst)[3000], 0);
}

static void rc_write_read_atomic(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct t_wr wr = {};
	struct mlx5_cqe64 *cqe;
	u64 *ctr;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_pair_up(test, p, "kus1", 7);
	memset(p->src, 0xab, 4096);

	wr = t_pair_write(p, 4096);
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, memcmp(p->src, p->dst, 4096), 0);

	/* READ the page back into the first half of src */
	memset(p->dst, 0x5c, 2048);
	wr.opcode = MLX5_OPCODE_RDMA_READ;
	wr.len = 2048;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->byte_cnt), 2048);
	KUNIT_EXPECT_EQ(test, memcmp(p->src, p->dst, 2048), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)p->src)[2048], 0xab);

	/* atomics on a host-endian counter: the driver asks for that mode */
	ctr = p->dst + 64;
	*ctr = 40;
	wr.opcode = MLX5_OPCODE_ATOMIC_FA;
	wr.raddr = ctr;
	wr.len = 8;
	wr.swap_add = 2;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->byte_cnt), 8);
	KUNIT_EXPECT_EQ(test, *ctr, 42ULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)p->src, 40ULL);

	wr.opcode = MLX5_OPCODE_ATOMIC_CS;
	wr.compare = 42;
	wr.swap_add = 7;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, *ctr, 7ULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)p->src, 42ULL);

	/* a misaligned atomic is an invalid request */
	wr.raddr = p->dst + 4;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
}

/* Back to RST: the hardware's counters and the doorbell records restart. */
static void t_qp_reset(struct t_dev *d, struct t_qp *qp)
{
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_2RST_QP, qp->qpn, 0,
					  NULL, NULL), 0);
	qp->sq_pi = 0;
	qp->rq_pi = 0;
	qp->db[MLX5_RCV_DBR] = 0;
	qp->db[MLX5_SND_DBR] = 0;
}

static void rc_errors_and_flush(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct mlx5sp_sim_stats *st;
	struct t_wr wr = {};
	struct mlx5_cqe64 *cqe;
	u32 status;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_pair_up(test, p, "kus2", 7);

	/* a bad rkey: remote access error, both QPs go to ERR */
	wr = t_pair_write(p, 64);
	wr.rkey ^= 0xff;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 0);

	/* what follows is flushed, on the receive queue too */
	t_post_recv(&p->a, p->d.dma_key, p->dst, 64);
	wr.rkey = p->d.dma_key;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_WR_FLUSH_ERR);

	/* firmware's view: ERR, where RTR2RTS is not legal */
	KUNIT_EXPECT_EQ(test, t_qp_cmd(&p->d, MLX5_CMD_OP_RTR2RTS_QP, p->a.qpn,
				       0, NULL, &status), -EINVAL);
	KUNIT_EXPECT_EQ(test, status, MLX5_CMD_STAT_BAD_QP_STATE_ERR);

	/* reconnected, a bad lkey: local protection error */
	t_qp_reset(&p->d, &p->a);
	t_qp_reset(&p->d, &p->b);
	t_qp_connect(&p->d, &p->a, p->b.qpn, p->d.gid, 7);
	t_qp_connect(&p->d, &p->b, p->a.qpn, p->d.gid, 7);
	wr.opcode = MLX5_OPCODE_SEND;
	wr.lkey = 0x4242;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	mlx5sp_sim_get_stats(p->d.sim, st);
	KUNIT_EXPECT_EQ(test, st->cqe_errors[MLX5_CQE_SYNDROME_LOCAL_PROT_ERR],
			1ULL);
	KUNIT_EXPECT_EQ(test,
			st->cqe_errors[MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR],
			1ULL);
	KUNIT_EXPECT_EQ(test, st->wqes_flushed, 2ULL);
}

static void rc_rnr(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct mlx5sp_sim_stats *st;
	struct t_wr wr = {};
	struct mlx5_cqe64 *cqe;

	KUNIT_ASSERT_NOT_NULL(test, p);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);

	/* rnr_retry 7: it waits until a receive is posted */
	t_pair_up(test, p, "kus3", 7);
	wr.opcode = MLX5_OPCODE_SEND;
	wr.lkey = p->d.dma_key;
	wr.addr = p->src;
	wr.len = 8;
	t_post_send(&p->d, &p->a, &wr);
	msleep(20);
	KUNIT_EXPECT_NULL(test, t_poll(&p->d, 0));
	t_post_recv(&p->b, p->d.dma_key, p->dst, 64);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	mlx5sp_sim_get_stats(p->d.sim, st);
	KUNIT_EXPECT_GT(test, st->rnr_naks, 0ULL);

	/* rnr_retry 0: the first RNR NAK ends it */
	t_qp_reset(&p->d, &p->a);
	t_qp_reset(&p->d, &p->b);
	t_qp_connect(&p->d, &p->a, p->b.qpn, p->d.gid, 0);
	t_qp_connect(&p->d, &p->b, p->a.qpn, p->d.gid, 0);
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
}

/* A peer that is not there: retransmissions, then retry exceeded. */
static void rc_retry_exceeded(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct t_wr wr = {};
	struct mlx5_cqe64 *cqe;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_pair_up(test, p, "kus4", 7);
	t_qp_reset(&p->d, &p->b);
	wr = t_pair_write(p, 8);
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
}

#define T_QKEY	0x11223344

/* RST -> INIT (Q_Key, port) -> RTR -> RTS for a UD QP. */
static void t_ud_up(struct t_dev *d, struct t_qp *qp)
{
	void *qpc = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(qpc), GFP_KERNEL);
	void *path = MLX5_ADDR_OF(qpc, qpc, primary_address_path);

	KUNIT_ASSERT_NOT_NULL(d->test, qpc);
	t_qp_create_st(d, qp, MLX5_QP_ST_UD);
	MLX5_SET(qpc, qpc, q_key, T_QKEY);
	MLX5_SET(ads, path, vhca_port_num, 1);
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_RST2INIT_QP, qp->qpn,
					  0, qpc, NULL), 0);
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_INIT2RTR_QP, qp->qpn,
					  0, qpc, NULL), 0);
	KUNIT_ASSERT_EQ(d->test, t_qp_cmd(d, MLX5_CMD_OP_RTR2RTS_QP, qp->qpn,
					  0, qpc, NULL), 0);
}

#define T_FLOW_LABEL	0x9abcd
#define T_TCLASS	0x28

/* ctrl, the 48-byte datagram segment, one data segment: 5 units */
static void t_post_ud(struct t_dev *d, struct t_qp *qp, u32 dqpn, u32 qkey,
		      void *addr, u32 len)
{
	void *wqe = qp->buf + 1024 + (qp->sq_pi & 15) * MLX5_SEND_WQE_BB;
	struct mlx5_wqe_ctrl_seg *ctrl = wqe;
	struct mlx5_av *av = (void *)(ctrl + 1);
	struct mlx5_wqe_data_seg *dseg = (void *)(av + 1);

	memset(wqe, 0, 2 * MLX5_SEND_WQE_BB);
	av->dqp_dct = cpu_to_be32(dqpn | MLX5_EXTENDED_UD_AV);
	av->key.qkey.qkey = cpu_to_be32(qkey);
	av->grh_gid_fl = cpu_to_be32(T_GID_INDEX << 20 | T_FLOW_LABEL);
	av->hop_limit = 64;
	av->tclass = T_TCLASS;
	memcpy(av->rgid, d->gid, 16);
	dseg->byte_count = cpu_to_be32(len);
	dseg->lkey = cpu_to_be32(d->dma_key);
	dseg->addr = cpu_to_be64(t_pa(addr));
	ctrl->opmod_idx_opcode = cpu_to_be32(qp->sq_pi << 8 | MLX5_OPCODE_SEND);
	ctrl->qpn_ds = cpu_to_be32(qp->qpn << 8 | 5);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	qp->sq_pi += 2;
	dma_wmb();
	WRITE_ONCE(qp->db[MLX5_SND_DBR], cpu_to_be32(qp->sq_pi));
	d->mdev->ops->write64(d->mdev, d->uar * SZ_4K + MLX5SP_UAR_BF_OFFSET,
			      *(u64 *)ctrl);
}

static void ud_grh_and_qkey(struct kunit *test)
{
	struct t_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct mlx5sp_sim_stats *st;
	struct ipv6hdr *ip6;
	struct mlx5_cqe64 *cqe;
	struct t_qp a = {}, b = {};
	void *src, *dst;
	u32 flags;

	KUNIT_ASSERT_NOT_NULL(test, d);
	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	t_dev_up(test, d, "kus5");
	t_ud_up(d, &a);
	t_ud_up(d, &b);
	src = t_page(d);
	dst = t_page(d);
	memset(src, 0x3c, 256);

	t_post_recv(&b, d->dma_key, dst, 1024);
	t_post_ud(d, &a, b.qpn, T_QKEY, src, 256);
	cqe = t_poll(d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->byte_cnt), 256 + 40);
	flags = be32_to_cpu(cqe->flags_rqpn);
	KUNIT_EXPECT_EQ(test, (flags >> 28) & 3, 1);
	KUNIT_EXPECT_EQ(test, (flags >> 24) & 3,
			MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV6);
	KUNIT_EXPECT_EQ(test, flags & 0xffffff, a.qpn);
	ip6 = dst;
	KUNIT_EXPECT_EQ(test, (int)ip6->version, 6);
	KUNIT_EXPECT_EQ(test, ip6->nexthdr, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, memcmp(&ip6->saddr, d->gid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&ip6->daddr, d->gid, 16), 0);
	/* the address vector's, as the wire would carry them */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ip6_flowlabel(ip6)), T_FLOW_LABEL);
	KUNIT_EXPECT_EQ(test, ip6_tclass(ip6_flowinfo(ip6)), T_TCLASS);
	KUNIT_EXPECT_EQ(test, ip6->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, memcmp(dst + 40, src, 256), 0);
	cqe = t_poll(d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);

	/* a wrong Q_Key: the datagram is dropped, the send completes */
	t_post_recv(&b, d->dma_key, dst, 1024);
	t_post_ud(d, &a, b.qpn, T_QKEY + 1, src, 16);
	cqe = t_poll(d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, t_qpn(cqe), a.qpn);
	mlx5sp_sim_get_stats(d->sim, st);
	KUNIT_EXPECT_EQ(test, st->ud_dropped, 1ULL);
	/* and the receive WQE is still there for the next one */
	t_post_ud(d, &a, b.qpn, T_QKEY, src, 16);
	cqe = t_poll(d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 1);
}

/* QUERY_QP: the QPC fields the SQD tests look at. */
static void t_qp_query(struct t_dev *d, struct t_qp *qp, u8 *state,
		       u16 *hw_counter, u8 *drain_sigerr)
{
	u32 in[MLX5_ST_SZ_DW(query_qp_in)] = {};
	void *out, *qpc;

	out = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(query_qp_out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, out);
	MLX5_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	MLX5_SET(query_qp_in, in, qpn, qp->qpn);
	KUNIT_ASSERT_EQ(d->test, t_cmd(d, in, sizeof(in), out,
				       MLX5_ST_SZ_BYTES(query_qp_out)), 0);
	qpc = MLX5_ADDR_OF(query_qp_out, out, qpc);
	*state = MLX5_GET(qpc, qpc, state);
	*hw_counter = MLX5_GET(qpc, qpc, hw_sq_wqebb_counter);
	*drain_sigerr = MLX5_GET(qpc, qpc, drain_sigerr);
}

/* drain_sigerr's stop rule: before a fence, or when the run-on is spent. */
static void sqd_stop_rule(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, sim_sq_sig_stop(true, 0));
	KUNIT_EXPECT_TRUE(test, sim_sq_sig_stop(true, 3));
	KUNIT_EXPECT_TRUE(test, sim_sq_sig_stop(false, 0));
	KUNIT_EXPECT_FALSE(test, sim_sq_sig_stop(false, 1));
	KUNIT_EXPECT_FALSE(test, sim_sq_sig_stop(false, 255));
}

/*
 * A QP stopped in SQD: the WQEs posted meanwhile wait; one is cancelled
 * the way libmlx5 does it (its opcode rewritten to NOP in place), QUERY_QP
 * names where the SQ stopped, and SQD_RTS resumes exactly there: the NOP
 * completes good (it was signalled) and sends nothing, the next one runs.
 */
static void sqd_cancel_and_resume(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct t_wr wr = { .opcode = MLX5_OPCODE_SEND, .len = 64 };
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_cqe64 *cqe;
	u16 counter;
	u8 state, drain;
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_pair_up(test, p, "kusqd", 7);
	memset(p->src, 0xaa, 64);
	memset(p->src + 64, 0xbb, 64);
	t_post_recv(&p->b, p->d.dma_key, p->dst, 256);
	t_post_recv(&p->b, p->d.dma_key, p->dst + 256, 256);

	KUNIT_ASSERT_EQ(test, t_qp_cmd(&p->d, MLX5SP_CMD_OP_RTS2SQD_QP,
				       p->a.qpn, 0, NULL, NULL), 0);
	wr.lkey = p->d.dma_key;
	wr.addr = p->src;
	t_post_send(&p->d, &p->a, &wr);
	wr.addr = p->src + 64;
	t_post_send(&p->d, &p->a, &wr);
	/* nothing runs in SQD */
	KUNIT_EXPECT_NULL(test, t_poll(&p->d, 50));
	t_qp_query(&p->d, &p->a, &state, &counter, &drain);
	KUNIT_EXPECT_EQ(test, state, MLX5_QP_STATE_SQD);
	KUNIT_EXPECT_EQ(test, counter, 0);
	KUNIT_EXPECT_EQ(test, drain, 0);

	/* cancel WQE 0 */
	ctrl = p->a.buf + 1024;
	v = be32_to_cpu(ctrl->opmod_idx_opcode);
	ctrl->opmod_idx_opcode = cpu_to_be32((v & 0xffff00) | MLX5_OPCODE_NOP);
	KUNIT_ASSERT_EQ(test, t_qp_cmd(&p->d, MLX5_CMD_OP_SQD_RTS_QP, p->a.qpn,
				       0, kunit_kzalloc(test, MLX5_ST_SZ_BYTES(qpc),
							GFP_KERNEL), NULL), 0);

	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, t_qpn(cqe), p->a.qpn);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->sop_drop_qpn) >> 24,
			MLX5_OPCODE_NOP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 0);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	KUNIT_EXPECT_EQ(test, t_qpn(cqe), p->b.qpn);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 0);
	cqe = t_poll(&p->d, T_WAIT_MS);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, cqe->op_own >> 4, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 1);
	KUNIT_EXPECT_NULL(test, t_poll(&p->d, 50));
	/* the peer got the second message only, in its first receive */
	KUNIT_EXPECT_EQ(test, ((u8 *)p->dst)[0], 0xbb);
	KUNIT_EXPECT_EQ(test, ((u8 *)p->dst)[63], 0xbb);
	KUNIT_EXPECT_EQ(test, ((u8 *)p->dst)[256], 0);
	t_qp_query(&p->d, &p->a, &state, &counter, &drain);
	KUNIT_EXPECT_EQ(test, state, MLX5_QP_STATE_RTS);
	KUNIT_EXPECT_EQ(test, counter, 2);
}

/* drain_sigerr through INIT2INIT's optional parameter: RC only. */
static void sqd_drain_sigerr_param(struct kunit *test)
{
	struct t_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct t_qp *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	struct t_qp *ud = kunit_kzalloc(test, sizeof(*ud), GFP_KERNEL);
	void *qpc = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(qpc), GFP_KERNEL);
	u32 status;
	u16 counter;
	u8 state, drain;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	KUNIT_ASSERT_NOT_NULL(test, ud);
	KUNIT_ASSERT_NOT_NULL(test, qpc);
	t_dev_up(test, d, "kudrn");
	t_qp_create(d, rc);
	t_qp_create_st(d, ud, MLX5_QP_ST_UD);
	MLX5_SET(ads, MLX5_ADDR_OF(qpc, qpc, primary_address_path),
		 vhca_port_num, 1);
	KUNIT_ASSERT_EQ(test, t_qp_cmd(d, MLX5_CMD_OP_RST2INIT_QP, rc->qpn, 0,
				       qpc, NULL), 0);
	KUNIT_ASSERT_EQ(test, t_qp_cmd(d, MLX5_CMD_OP_RST2INIT_QP, ud->qpn, 0,
				       qpc, NULL), 0);

	/* without the optional-parameter bit the field is not applied */
	MLX5_SET(qpc, qpc, drain_sigerr, 1);
	KUNIT_EXPECT_EQ(test, t_qp_cmd(d, MLX5_CMD_OP_INIT2INIT_QP, rc->qpn, 0,
				       qpc, &status), 0);
	t_qp_query(d, rc, &state, &counter, &drain);
	KUNIT_EXPECT_EQ(test, drain, 0);
	KUNIT_EXPECT_EQ(test, t_qp_cmd(d, MLX5_CMD_OP_INIT2INIT_QP, rc->qpn,
				       MLX5SP_QP_OPTPAR_DRAIN_SIGERR, qpc,
				       &status), 0);
	t_qp_query(d, rc, &state, &counter, &drain);
	KUNIT_EXPECT_EQ(test, state, MLX5_QP_STATE_INIT);
	KUNIT_EXPECT_EQ(test, drain, 1);
	/* a UD QP has no signature pipelining */
	KUNIT_EXPECT_NE(test, t_qp_cmd(d, MLX5_CMD_OP_INIT2INIT_QP, ud->qpn,
				       MLX5SP_QP_OPTPAR_DRAIN_SIGERR, qpc,
				       &status), 0);
	KUNIT_EXPECT_EQ(test, status, MLX5_CMD_STAT_BAD_PARAM_ERR);
}

/* ---- signature keys in the data path ---------------------------------- */

#define T_SIG_BLOCKS	2
#define T_SIG_APP	0x1234
#define T_SIG_REF	7

/* A PSV and a signature key (KLMS, free, umr_en, bsf_en) of the PD. */
static u32 t_sig_key(struct t_dev *d, bool bsf_cap)
{
	u32 out[MLX5_ST_SZ_DW(create_mkey_out)] = {};
	void *in, *mkc;

	in = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(create_mkey_in),
			   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	MLX5_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, umr_en, 1);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, pd, d->pdn);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, translations_octword_size, 8);
	MLX5_SET(mkc, mkc, bsf_en, bsf_cap);
	MLX5_SET(mkc, mkc, bsf_octword_size, bsf_cap ? 4 : 0);
	KUNIT_ASSERT_EQ(d->test, t_cmd(d, in, MLX5_ST_SZ_BYTES(create_mkey_in),
				       out, sizeof(out)), 0);
	return MLX5_GET(create_mkey_out, out, mkey_index) << 8;
}

static u32 t_psv(struct t_dev *d)
{
	u32 in[MLX5_ST_SZ_DW(create_psv_in)] = {};
	u32 out[MLX5_ST_SZ_DW(create_psv_out)] = {};

	MLX5_SET(create_psv_in, in, opcode, MLX5_CMD_OP_CREATE_PSV);
	MLX5_SET(create_psv_in, in, num_psv, 1);
	MLX5_SET(create_psv_in, in, pd, d->pdn);
	KUNIT_ASSERT_EQ(d->test, t_cmd(d, in, sizeof(in), out, sizeof(out)), 0);
	return MLX5_GET(create_psv_out, out, psv0_index);
}

/* Memory: T10-DIF (CRC guard, seed 0, app tag, ref tag + block), 512. */
static void t_sig_bsf(struct mlx5_bsf *bsf, u32 psv, u8 bs_selector)
{
	memset(bsf, 0, sizeof(*bsf));
	bsf->basic.bsf_size_sbs = MLX5SP_BSF_SIZE_WITH_INLINE <<
				  MLX5SP_BSF_SIZE_SHIFT;
	bsf->basic.check_byte_mask = 0xff;
	bsf->basic.raw_data_size = cpu_to_be32(U32_MAX);
	bsf->basic.mem.bs_selector = bs_selector;
	bsf->basic.m_bfs_psv = cpu_to_be32(psv);
	bsf->m_inl.vld_refresh = cpu_to_be16(MLX5_BSF_INL_VALID |
					     MLX5_BSF_REFRESH_DIF);
	bsf->m_inl.dif_apptag = cpu_to_be16(T_SIG_APP);
	bsf->m_inl.dif_reftag = cpu_to_be32(T_SIG_REF);
	bsf->m_inl.rp_inv_seed = MLX5_BSF_REPEAT_BLOCK;
	bsf->m_inl.sig_type = MLX5_DIF_CRC;
	bsf->m_inl.dif_inc_ref_guard_check = MLX5_BSF_INC_REFTAG;
	bsf->m_inl.dif_app_bitmask_check = cpu_to_be16(0xffff);
}

/*
 * A UMR giving @key the layout @xlt (@nxlt 16-byte units: KLMs or a repeat
 * block) of @len memory bytes, and @bsf (NULL: no BSF_EN). Four basic
 * blocks, signalled.
 */
static void t_post_umr(struct t_dev *d, struct t_qp *qp, u32 key,
		       const void *xlt, u32 nxlt, u64 len,
		       const struct mlx5_bsf *bsf)
{
	u8 w[4 * MLX5_SEND_WQE_BB] = {};
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)w;
	struct mlx5_wqe_umr_ctrl_seg *uc = (void *)(ctrl + 1);
	void *mkc = uc + 1;
	u8 *p = mkc + MLX5_ST_SZ_BYTES(mkc);
	u64 mask = MLX5_MKEY_MASK_FREE | MLX5_MKEY_MASK_LEN |
		   MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW |
		   MLX5_MKEY_MASK_RR | MLX5_MKEY_MASK_RW;
	u32 ds, i;

	uc->flags = MLX5_UMR_INLINE;
	uc->xlt_octowords = cpu_to_be16(4);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, lw, 1);
	MLX5_SET(mkc, mkc, rr, 1);
	MLX5_SET(mkc, mkc, rw, 1);
	MLX5_SET64(mkc, mkc, len, len);
	memcpy(p, xlt, nxlt * 16);
	p += 4 * 16;
	if (bsf) {
		mask |= MLX5_MKEY_MASK_BSF_EN;
		MLX5_SET(mkc, mkc, bsf_en, 1);
		uc->bsf_octowords = cpu_to_be16(sizeof(*bsf) / 16);
		memcpy(p, bsf, sizeof(*bsf));
		p += sizeof(*bsf);
	}
	uc->mkey_mask = cpu_to_be64(mask);
	ds = (p - w) / MLX5_SEND_WQE_DS;
	ctrl->opmod_idx_opcode = cpu_to_be32(qp->sq_pi << 8 | MLX5_OPCODE_UMR);
	ctrl->qpn_ds = cpu_to_be32(qp->qpn << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	ctrl->umr_mkey = cpu_to_be32(key);
	for (i = 0; i < DIV_ROUND_UP(ds, 4); i++)
		memcpy(qp->buf + 1024 + ((qp->sq_pi + i) & 15) *
		       MLX5_SEND_WQE_BB, w + i * MLX5_SEND_WQE_BB,
		       MLX5_SEND_WQE_BB);
	qp->sq_pi += i;
	dma_wmb();
	WRITE_ONCE(qp->db[MLX5_SND_DBR], cpu_to_be32(qp->sq_pi));
	d->mdev->ops->write64(d->mdev, d->uar * SZ_4K + MLX5SP_UAR_BF_OFFSET,
			      *(u64 *)ctrl);
}

/* Blocks of data with their DIF: guard, app tag, ref tag + block. */
static void t_dif_fill(u8 *data, u8 *pi, u32 pi_stride)
{
	int b, i;

	for (b = 0; b < T_SIG_BLOCKS; b++) {
		u8 *blk = data + b * pi_stride;
		u8 *dif = pi + b * pi_stride;

		for (i = 0; i < 512; i++)
			blk[i] = b * 31 + i;
		*(__be16 *)dif = cpu_to_be16(crc_t10dif(blk, 512));
		*(__be16 *)(dif + 2) = cpu_to_be16(T_SIG_APP);
		*(__be32 *)(dif + 4) = cpu_to_be32(T_SIG_REF + b);
	}
}

static struct mlx5_cqe64 *t_expect(struct t_pair *p, u8 opcode)
{
	struct mlx5_cqe64 *cqe = t_poll(&p->d, T_WAIT_MS);

	KUNIT_ASSERT_NOT_NULL(p->d.test, cqe);
	KUNIT_EXPECT_EQ(p->d.test, cqe->op_own >> 4, opcode);
	return cqe;
}

/*
 * RDMA WRITEs through a signature key whose memory holds T10-DIF and whose
 * wire holds none: checked and stripped; a bad guard and an injected app
 * tag error are SIGERR CQEs before the WQE's CQE and the data still moves;
 * an interleaved (repeat block) layout of separate data and metadata works
 * the same; lengths are bounded by the wire domain; a BSF the engine
 * refuses, or a BSF on a key created without bsf_en, fails the UMR.
 */
static void rc_sig_transfers(struct kunit *test)
{
	struct t_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct t_wr wr = { .opcode = MLX5_OPCODE_RDMA_WRITE, .lkey_va = true,
			   .len = T_SIG_BLOCKS * 512 };
	struct mlx5_stride_block_ctrl_seg *rb;
	struct mlx5_stride_block_entry *se;
	struct mlx5_sig_err_cqe *se_cqe;
	struct mlx5_klm klm[4] = {};
	struct mlx5_bsf bsf;
	struct mlx5_cqe64 *cqe;
	u32 key, key2, plain, psv;
	u8 *meta, *data2;
	char inj[64];
	int b;

	KUNIT_ASSERT_NOT_NULL(test, p);
	t_pair_up(test, p, "kus9", 7);
	psv = t_psv(&p->d);
	key = t_sig_key(&p->d, true);
	t_sig_bsf(&bsf, psv, MLX5SP_BS_512);
	t_dif_fill(p->src, p->src + 512, 520);

	klm[0].bcount = cpu_to_be32(T_SIG_BLOCKS * 520);
	klm[0].key = cpu_to_be32(p->d.dma_key);
	klm[0].va = cpu_to_be64(t_pa(p->src));
	t_post_umr(&p->d, &p->a, key, klm, 1, T_SIG_BLOCKS * 520, &bsf);
	t_expect(p, MLX5_CQE_REQ);

	/* good: the data arrives without its PI, no SIGERR */
	wr.lkey = key;
	wr.rkey = p->d.dma_key;
	wr.raddr = p->dst;
	t_post_send(&p->d, &p->a, &wr);
	t_expect(p, MLX5_CQE_REQ);
	for (b = 0; b < T_SIG_BLOCKS; b++)
		KUNIT_EXPECT_EQ(test, memcmp(p->dst + b * 512,
					     p->src + b * 520, 512), 0);

	/* a bad guard in block 1: SIGERR first, then the WRITE's CQE */
	((u8 *)p->src)[520 + 512] ^= 0xff;
	memset(p->dst, 0, 4096);
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_expect(p, MLX5_CQE_SIG_ERR);
	se_cqe = (struct mlx5_sig_err_cqe *)cqe;
	KUNIT_EXPECT_EQ(test, be16_to_cpu(se_cqe->syndrome),
			MLX5SP_SIGERR_SYND_GUARD);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(se_cqe->mkey), key);
	KUNIT_EXPECT_EQ(test, MLX5SP_SIGERR_DOMAIN(se_cqe),
			MLX5SP_SIGERR_DOMAIN_MEMORY);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(se_cqe->expected_reftag),
			T_SIG_REF + 1);
	t_expect(p, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, memcmp(p->dst + 512, p->src + 520, 512), 0);
	((u8 *)p->src)[520 + 512] ^= 0xff;

	/* an injected app tag error on the next transfer through the key */
	snprintf(inj, sizeof(inj), "mkey=0x%x nth=1 kind=apptag", key);
	KUNIT_ASSERT_EQ(test, sim_sig_inject_parse(p->d.sim, inj), 0);
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_expect(p, MLX5_CQE_SIG_ERR);
	KUNIT_EXPECT_EQ(test,
			be16_to_cpu(((struct mlx5_sig_err_cqe *)cqe)->syndrome),
			MLX5SP_SIGERR_SYND_APPTAG);
	t_expect(p, MLX5_CQE_REQ);

	/* data and metadata apart, interleaved by a repeat block */
	key2 = t_sig_key(&p->d, true);
	data2 = p->src + 2048;
	meta = p->src + 3072;
	t_dif_fill(data2, meta, 512);
	for (b = 0; b < T_SIG_BLOCKS; b++)
		memmove(meta + b * 8, meta + b * 512, 8);
	rb = (void *)klm;
	memset(klm, 0, sizeof(klm));
	rb->op = cpu_to_be32(MLX5_STRIDE_BLOCK_OP);
	rb->bcount_per_cycle = cpu_to_be32(520);
	rb->repeat_count = cpu_to_be32(T_SIG_BLOCKS);
	rb->num_entries = cpu_to_be16(2);
	se = (void *)(rb + 1);
	se[0].stride = cpu_to_be16(512);
	se[0].bcount = cpu_to_be16(512);
	se[0].key = cpu_to_be32(p->d.dma_key);
	se[0].va = cpu_to_be64(t_pa(data2));
	se[1].stride = cpu_to_be16(8);
	se[1].bcount = cpu_to_be16(8);
	se[1].key = cpu_to_be32(p->d.dma_key);
	se[1].va = cpu_to_be64(t_pa(meta));
	t_post_umr(&p->d, &p->a, key2, klm, 3, T_SIG_BLOCKS * 520, &bsf);
	t_expect(p, MLX5_CQE_REQ);
	memset(p->dst, 0, 4096);
	wr.lkey = key2;
	t_post_send(&p->d, &p->a, &wr);
	t_expect(p, MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, memcmp(p->dst, data2, T_SIG_BLOCKS * 512), 0);
	meta[8] ^= 1;			/* block 1's guard */
	t_post_send(&p->d, &p->a, &wr);
	t_expect(p, MLX5_CQE_SIG_ERR);
	t_expect(p, MLX5_CQE_REQ);

	/* a BSF with no block size, and a BSF on a plain KLM key: refused */
	t_sig_bsf(&bsf, psv, 0);
	t_post_umr(&p->d, &p->b, key2, klm, 3, T_SIG_BLOCKS * 520, &bsf);
	cqe = t_expect(p, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	t_qp_reset(&p->d, &p->b);
	t_qp_connect(&p->d, &p->b, p->a.qpn, p->d.gid, 7);
	plain = t_sig_key(&p->d, false);
	t_sig_bsf(&bsf, psv, MLX5SP_BS_512);
	t_post_umr(&p->d, &p->b, plain, klm, 3, T_SIG_BLOCKS * 520, &bsf);
	cqe = t_expect(p, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);

	/* one byte past the wire domain (data only here) */
	wr.lkey = key;
	wr.len = T_SIG_BLOCKS * 512 + 1;
	t_post_send(&p->d, &p->a, &wr);
	cqe = t_expect(p, MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
}

/*
 * A user store that faulted on a trapped UAR page: the model marks where
 * it goes, the engine traps again only once it has landed, and the mark
 * on the CQ doorbell is no CQ arm for the engine's poll.
 */
static void uar_touch_mark(struct kunit *test)
{
	/* freed by kunit after t_dev_down, which t_dev_up registers */
	struct t_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct page *page;
	u64 *bf, *cq_db;
	__be64 first;
	bool landed;

	KUNIT_ASSERT_NOT_NULL(test, d);
	t_dev_up(test, d, "kt-uar-mark");
	page = d->mdev->ops->uar_page(d->mdev, d->uar);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bf = page_address(page) + MLX5SP_UAR_BF_OFFSET;
	cq_db = page_address(page) + MLX5SP_UAR_CQ_DB;

	/* an unaligned store: the word it starts in */
	d->mdev->ops->uar_touch(d->mdev, d->uar, MLX5SP_UAR_BF_OFFSET + 3);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*bf), SIM_UAR_UNWRITTEN);
	rcu_read_lock();
	landed = sim_uar_store_landed(d->sim, d->uar, MLX5SP_UAR_BF_OFFSET);
	rcu_read_unlock();
	KUNIT_EXPECT_FALSE(test, landed);
	/* libmlx5's first BlueFlame word: WQE 1, SEND; QPN 0x12, 2 DS */
	first = cpu_to_be64(0x0000010a00001202ULL);
	memcpy(bf, &first, sizeof(first));
	rcu_read_lock();
	landed = sim_uar_store_landed(d->sim, d->uar, MLX5SP_UAR_BF_OFFSET);
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, landed);

	/* a read waits for nothing, nor does a UAR that is gone */
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, sim_uar_store_landed(d->sim, d->uar,
						     MLX5SP_UAR_TOUCH_READ));
	KUNIT_EXPECT_TRUE(test, sim_uar_store_landed(d->sim, d->uar + 1,
						     MLX5SP_UAR_BF_OFFSET));
	rcu_read_unlock();

	/* the engine, kicked by the touch, leaves the CQ doorbell's mark */
	d->mdev->ops->uar_touch(d->mdev, d->uar, MLX5SP_UAR_CQ_DB);
	msleep(50);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*cq_db), SIM_UAR_UNWRITTEN);
}

static struct kunit_case sim_rc_cases[] = {
	KUNIT_CASE(uar_touch_mark),
	KUNIT_CASE(rc_send_recv),
	KUNIT_CASE(rc_write_read_atomic),
	KUNIT_CASE(rc_errors_and_flush),
	KUNIT_CASE(rc_rnr),
	KUNIT_CASE(rc_retry_exceeded),
	KUNIT_CASE(ud_grh_and_qkey),
	KUNIT_CASE(sqd_stop_rule),
	KUNIT_CASE(sqd_cancel_and_resume),
	KUNIT_CASE(sqd_drain_sigerr_param),
	KUNIT_CASE(rc_sig_transfers),
	{}
};

static struct kunit_suite sim_rc_suite = {
	.name = "mlx5sp_sim_traffic",
	.test_cases = sim_rc_cases,
};

kunit_test_suites(&sim_logic_suite, &sim_rc_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
