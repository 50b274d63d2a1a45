// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for the RDMA device of mlx5sp: the QP state-transition
 * table against the IB spec (ib_modify_qp_is_ok), WQE encoding, CQE
 * decoding, page lists, and a kernel ULP that connects two RC QPs on a
 * model device and moves SEND, RDMA WRITE and RDMA READ traffic.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_cache.h>

#include "ib.h"
#include "mlx5sp_ulp.h"
#include "sim/mlx5sp_sim.h"
#include "kunit_ulp.h"

/* QP state transitions */

struct transition {
	enum ib_qp_state cur, next;
	int rc_req;		/* required attributes for RC, -1: illegal */
	int ud_req;		/* for UD, -1: illegal */
	u16 op;			/* the PRM command, 0: none */
};

#define RC_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
#define UD_INIT	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
#define RC_RTR	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN | \
		 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
#define RC_RTS	(IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
		 IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC)

/* Every pair ib_core's table allows; all other pairs are illegal. */
static const struct transition legal[] = {
	{ IB_QPS_RESET, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_RESET, IB_QPS_INIT, RC_INIT, UD_INIT, MLX5_CMD_OP_RST2INIT_QP },
	{ IB_QPS_INIT, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_INIT, IB_QPS_ERR, 0, 0, MLX5_CMD_OP_2ERR_QP },
	{ IB_QPS_INIT, IB_QPS_INIT, 0, 0, MLX5_CMD_OP_INIT2INIT_QP },
	{ IB_QPS_INIT, IB_QPS_RTR, RC_RTR, 0, MLX5_CMD_OP_INIT2RTR_QP },
	{ IB_QPS_RTR, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_RTR, IB_QPS_ERR, 0, 0, MLX5_CMD_OP_2ERR_QP },
	{ IB_QPS_RTR, IB_QPS_RTS, RC_RTS, IB_QP_SQ_PSN, MLX5_CMD_OP_RTR2RTS_QP },
	{ IB_QPS_RTS, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_RTS, IB_QPS_ERR, 0, 0, MLX5_CMD_OP_2ERR_QP },
	{ IB_QPS_RTS, IB_QPS_RTS, 0, 0, MLX5_CMD_OP_RTS2RTS_QP },
	{ IB_QPS_RTS, IB_QPS_SQD, 0, 0, MLX5SP_CMD_OP_RTS2SQD_QP },
	{ IB_QPS_SQD, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_SQD, IB_QPS_ERR, 0, 0, MLX5_CMD_OP_2ERR_QP },
	{ IB_QPS_SQD, IB_QPS_RTS, 0, 0, MLX5_CMD_OP_SQD_RTS_QP },
	{ IB_QPS_SQD, IB_QPS_SQD, 0, 0, 0 },	/* legal, not offered */
	{ IB_QPS_SQE, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_SQE, IB_QPS_ERR, 0, 0, MLX5_CMD_OP_2ERR_QP },
	{ IB_QPS_SQE, IB_QPS_RTS, 0, 0, MLX5_CMD_OP_SQERR2RTS_QP },
	{ IB_QPS_ERR, IB_QPS_RESET, 0, 0, MLX5_CMD_OP_2RST_QP },
	{ IB_QPS_ERR, IB_QPS_ERR, 0, 0, MLX5_CMD_OP_2ERR_QP },
};

static const struct transition *find_legal(enum ib_qp_state c,
					   enum ib_qp_state n)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(legal); i++)
		if (legal[i].cur == c && legal[i].next == n)
			return &legal[i];
	return NULL;
}

static void qp_transition_table(struct kunit *test)
{
	enum ib_qp_state c, n;

	for (c = IB_QPS_RESET; c <= IB_QPS_ERR; c++) {
		for (n = IB_QPS_RESET; n <= IB_QPS_ERR; n++) {
			const struct transition *t = find_legal(c, n);
			int mask = IB_QP_STATE;
			bool rc_ok, ud_ok;

			rc_ok = ib_modify_qp_is_ok(c, n, IB_QPT_RC,
						   mask | (t && t->rc_req > 0 ? t->rc_req : 0));
			ud_ok = ib_modify_qp_is_ok(c, n, IB_QPT_UD,
						   mask | (t && t->ud_req > 0 ? t->ud_req : 0));
			KUNIT_EXPECT_EQ_MSG(test, rc_ok, t && t->rc_req >= 0,
					    "RC %d->%d", c, n);
			KUNIT_EXPECT_EQ_MSG(test, ud_ok, t && t->ud_req >= 0,
					    "UD %d->%d", c, n);
			KUNIT_EXPECT_EQ_MSG(test, mlx5sp_qp_transition_op(c, n),
					    t ? t->op : 0, "op %d->%d", c, n);
			/* A legal transition missing a required attribute is not. */
			if (t && t->rc_req > 0)
				KUNIT_EXPECT_FALSE(test, ib_modify_qp_is_ok(c, n, IB_QPT_RC,
									    mask));
		}
	}
}

/* WQE encoding */

static void wqe_rdma_write(struct kunit *test)
{
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x1234 },
		{ .addr = 0x2000, .length = 28, .lkey = 0x5678 },
	};
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .sg_list = sge, .num_sge = 2,
			.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE },
		.remote_addr = 0xabcdef0012345678ULL, .rkey = 0x4242,
	};
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)buf;
	struct mlx5_wqe_raddr_seg *raddr = (void *)(ctrl + 1);
	struct mlx5_wqe_data_seg *d = (void *)(raddr + 1);
	u8 ds;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, mlx5sp_build_send_wqe(buf, 256, 0x123, 7, &wr.wr,
						    0, 0, false, &ds), 0);
	KUNIT_EXPECT_EQ(test, ds, 4);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->opmod_idx_opcode),
			7u << 8 | MLX5_OPCODE_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->qpn_ds), 0x123u << 8 | 4);
	KUNIT_EXPECT_EQ(test, ctrl->fm_ce_se,
			MLX5_WQE_CTRL_CQ_UPDATE | MLX5_FENCE_MODE_FENCE);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(raddr->raddr), 0xabcdef0012345678ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(raddr->rkey), 0x4242u);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d[0].byte_count), 100u);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d[0].lkey), 0x1234u);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(d[0].addr), 0x1000ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d[1].lkey), 0x5678u);
}

static void wqe_send_imm_inline(struct kunit *test)
{
	static const char msg[] = "hello, ConnectX";
	struct ib_sge sge = { .addr = (uintptr_t)msg, .length = sizeof(msg) };
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND_WITH_IMM, .sg_list = &sge, .num_sge = 1,
		.send_flags = IB_SEND_INLINE | IB_SEND_SOLICITED,
		.ex.imm_data = cpu_to_be32(0xfeedbeef),
	};
	u8 *buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)buf;
	struct mlx5_wqe_inline_seg *inl = (void *)(ctrl + 1);
	u8 ds;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, mlx5sp_build_send_wqe(buf, 128, 1, 0, &wr,
						    MLX5_WQE_CTRL_CQ_UPDATE, 64,
						    false, &ds), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->opmod_idx_opcode) & 0xff,
			(u32)MLX5_OPCODE_SEND_IMM);
	KUNIT_EXPECT_EQ(test, ctrl->fm_ce_se,
			MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_SOLICITED);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(ctrl->imm), 0xfeedbeefu);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(inl->byte_count),
			(u32)sizeof(msg) | MLX5_INLINE_SEG);
	KUNIT_EXPECT_EQ(test, memcmp(inl->data, msg, sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, ds, 1 + DIV_ROUND_UP(4 + sizeof(msg), 16));
	/* More inline data than the QP takes */
	KUNIT_EXPECT_EQ(test, mlx5sp_build_send_wqe(buf, 128, 1, 0, &wr, 0, 8,
						    false, &ds), -ENOMEM);
}

static void wqe_ud_and_bad(struct kunit *test)
{
	struct mlx5sp_ah *ah = kunit_kzalloc(test, sizeof(*ah), GFP_KERNEL);
	struct ib_sge sge = { .addr = 0x3000, .length = 256, .lkey = 7 };
	struct ib_ud_wr wr = {
		.wr = { .opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1 },
		.remote_qpn = 0x55, .remote_qkey = 0x80010000,
	};
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct mlx5_wqe_datagram_seg *dg = (void *)(buf + 16);
	u8 ds;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, ah);
	ah->av.hop_limit = 64;
	ah->av.rmac[5] = 0x42;
	wr.ah = &ah->ibah;
	KUNIT_ASSERT_EQ(test, mlx5sp_build_send_wqe(buf, 256, 9, 3, &wr.wr, 0, 0,
						    true, &ds), 0);
	KUNIT_EXPECT_EQ(test, ds, 1 + 3 + 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(dg->av.dqp_dct),
			0x55u | MLX5_EXTENDED_UD_AV);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(dg->av.key.qkey.qkey), 0x80010000u);
	KUNIT_EXPECT_EQ(test, dg->av.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, dg->av.rmac[5], 0x42);

	/* RDMA on a UD QP, no AH, unknown opcodes, too many SGEs */
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, mlx5sp_build_send_wqe(buf, 256, 9, 3, &wr.wr, 0, 0,
						    true, &ds), -EINVAL);
	wr.wr.opcode = IB_WR_SEND;
	wr.ah = NULL;
	KUNIT_EXPECT_EQ(test, mlx5sp_build_send_wqe(buf, 256, 9, 3, &wr.wr, 0, 0,
						    true, &ds), -EINVAL);
	wr.wr.opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP;
	KUNIT_EXPECT_EQ(test, mlx5sp_build_send_wqe(buf, 256, 9, 3, &wr.wr, 0, 0,
						    false, &ds), -EINVAL);
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, mlx5sp_build_send_wqe(buf, 16, 9, 3, &wr.wr, 0, 0,
						    false, &ds), -ENOMEM);
}

/* CQE decoding */

static void cqe_req_and_resp(struct kunit *test)
{
	struct mlx5_cqe64 *cqe = kunit_kzalloc(test, sizeof(*cqe), GFP_KERNEL);
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, cqe);
	cqe->op_own = MLX5_CQE_REQ << 4;
	cqe->sop_drop_qpn = cpu_to_be32(MLX5_OPCODE_RDMA_READ << 24 | 0x77);
	cqe->byte_cnt = cpu_to_be32(4096);
	mlx5sp_parse_cqe(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4096u);

	cqe->sop_drop_qpn = cpu_to_be32(MLX5_OPCODE_SEND_IMM << 24 | 0x77);
	mlx5sp_parse_cqe(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_IMM);

	memset(cqe, 0, sizeof(*cqe));
	cqe->op_own = MLX5_CQE_RESP_SEND_IMM << 4 | 1;
	cqe->byte_cnt = cpu_to_be32(300);
	cqe->immediate = cpu_to_be32(0x11223344);
	/* GRH present, RoCE v2 over IPv6, from QP 0xabc */
	cqe->flags_rqpn = cpu_to_be32(1u << 28 | MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV6 << 24 |
				      0xabc);
	mlx5sp_parse_cqe(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 300u);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0x11223344u);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 0xabcu);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, RDMA_NETWORK_IPV6);

	cqe->op_own = MLX5_CQE_RESP_WR_IMM << 4;
	mlx5sp_parse_cqe(cqe, &wc);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
}

static void cqe_errors(struct kunit *test)
{
	static const struct { u8 synd; enum ib_wc_status st; } map[] = {
		{ MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, IB_WC_LOC_LEN_ERR },
		{ MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, IB_WC_LOC_QP_OP_ERR },
		{ MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, IB_WC_LOC_PROT_ERR },
		{ MLX5_CQE_SYNDROME_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, IB_WC_REM_ACCESS_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_OP_ERR, IB_WC_REM_OP_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, IB_WC_REM_INV_REQ_ERR },
		{ MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, IB_WC_RETRY_EXC_ERR },
		{ MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, IB_WC_RNR_RETRY_EXC_ERR },
		{ MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR, IB_WC_REM_ABORT_ERR },
		{ MLX5_CQE_SYNDROME_BAD_RESP_ERR, IB_WC_BAD_RESP_ERR },
		{ 0x7f, IB_WC_GENERAL_ERR },
	};
	struct mlx5_err_cqe *err = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ib_wc wc;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, err);
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		err->op_own = (i & 1 ? MLX5_CQE_RESP_ERR : MLX5_CQE_REQ_ERR) << 4;
		err->syndrome = map[i].synd;
		err->vendor_err_synd = 0x33;
		mlx5sp_parse_cqe((void *)err, &wc);
		KUNIT_EXPECT_EQ_MSG(test, wc.status, map[i].st, "syndrome 0x%x",
				    map[i].synd);
		KUNIT_EXPECT_EQ(test, wc.vendor_err, 0x33u);
	}
}

/* Page lists */

static void page_lists(struct kunit *test)
{
	__be64 *pas = kunit_kcalloc(test, 4, sizeof(*pas), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pas);
	mlx5sp_fill_pas_contig(0x100000, 3, pas);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pas[0]), 0x100000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pas[1]), 0x101000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pas[2]), 0x102000ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(pas[3]), 0ULL);
	/* octowords: two 8-byte entries each, pages touched by [addr, addr+len) */
	KUNIT_EXPECT_EQ(test, mlx5sp_octo_len(0x1000, 0x1000, 12), 1u);
	KUNIT_EXPECT_EQ(test, mlx5sp_octo_len(0x1000, 0x2000, 12), 1u);
	KUNIT_EXPECT_EQ(test, mlx5sp_octo_len(0x1800, 0x2000, 12), 2u);
	KUNIT_EXPECT_EQ(test, mlx5sp_octo_len(0x10, 1, 21), 1u);
	KUNIT_EXPECT_EQ(test, mlx5sp_octo_len(0x1fffff, 2, 21), 1u);
	KUNIT_EXPECT_EQ(test, mlx5sp_octo_len(0, 5ULL << 21, 21), 3u);
}

static struct kunit_case ib_logic_cases[] = {
	KUNIT_CASE(qp_transition_table),
	KUNIT_CASE(wqe_rdma_write),
	KUNIT_CASE(wqe_send_imm_inline),
	KUNIT_CASE(wqe_ud_and_bad),
	KUNIT_CASE(cqe_req_and_resp),
	KUNIT_CASE(cqe_errors),
	KUNIT_CASE(page_lists),
	{}
};

static struct kunit_suite ib_logic_suite = {
	.name = "mlx5sp_ib_logic",
	.test_cases = ib_logic_cases,
};

/* A kernel ULP on a model device (struct ulp: kunit_ulp.h) */

static struct ulp *ulp_setup(struct kunit *test)
{
	return ulp_setup_flags(test, 0);
}

static void fill(void *buf, u8 seed)
{
	u8 *p = buf;
	int i;

	for (i = 0; i < ULP_BUF; i++)
		p[i] = seed + i * 7;
}

static void ulp_send_write_read(struct kunit *test)
{
	struct ulp *u = ulp_setup(test);
	struct ib_sge rsge = { .addr = u->dma[1], .length = ULP_BUF,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_sge ssge = { .addr = u->dma[0], .length = 1000,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 2, .sg_list = &ssge, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_rdma_wr rdma = {};
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct ib_wc wc[2];
	int n;

	/* SEND */
	fill(u->buf[0], 1);
	KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[1], &rwr, &rbad), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &swr, &bad), 0);
	n = poll_n(u, wc, 2);
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id + wc[1].wr_id, 3ULL);
	if (wc[0].wr_id == 1)
		KUNIT_EXPECT_EQ(test, wc[0].byte_len, 1000u);
	else
		KUNIT_EXPECT_EQ(test, wc[1].byte_len, 1000u);
	KUNIT_EXPECT_EQ(test, memcmp(u->buf[0], u->buf[1], 1000), 0);

	/* RDMA WRITE: all of buffer 0 over buffer 1 */
	fill(u->buf[0], 77);
	ssge.length = ULP_BUF;
	rdma.wr.wr_id = 3;
	rdma.wr.sg_list = &ssge;
	rdma.wr.num_sge = 1;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.wr.send_flags = IB_SEND_SIGNALED;
	rdma.remote_addr = u->dma[1];
	rdma.rkey = u->pd->unsafe_global_rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &rdma.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, memcmp(u->buf[0], u->buf[1], ULP_BUF), 0);

	/* RDMA READ: buffer 1 (changed) back into buffer 0 */
	fill(u->buf[1], 200);
	memset(u->buf[0], 0, ULP_BUF);
	rdma.wr.wr_id = 4;
	rdma.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &rdma.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, (u32)ULP_BUF);
	KUNIT_EXPECT_EQ(test, memcmp(u->buf[0], u->buf[1], ULP_BUF), 0);
}

static void ulp_atomics(struct kunit *test)
{
	struct ulp *u = ulp_setup(test);
	struct ib_sge sge = { .addr = u->dma[0], .length = 8,
			      .lkey = u->pd->local_dma_lkey };
	struct ib_atomic_wr awr = {};
	const struct ib_send_wr *bad;
	struct ib_mr *mr;
	struct ib_wc wc;
	u64 *local = u->buf[0], *remote = u->buf[1];

	if (u->ibdev->attrs.atomic_cap == IB_ATOMIC_NONE)
		kunit_skip(test, "no atomics");
	/* ib_core's global rkey has no atomic right: a DMA MR that has. */
	mr = u->ibdev->ops.get_dma_mr(u->pd, IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_ATOMIC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	mr->device = u->ibdev;
	mr->pd = u->pd;

	*remote = 40;
	awr.wr.wr_id = 5;
	awr.wr.sg_list = &sge;
	awr.wr.num_sge = 1;
	awr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	awr.wr.send_flags = IB_SEND_SIGNALED;
	awr.remote_addr = u->dma[1];
	awr.rkey = mr->rkey;
	awr.compare_add = 2;
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &awr.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, *local, 40ULL);
	KUNIT_EXPECT_EQ(test, *remote, 42ULL);

	awr.wr.wr_id = 6;
	awr.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
	awr.compare_add = 42;
	awr.swap = 0x1234567890ULL;
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &awr.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, *local, 42ULL);
	KUNIT_EXPECT_EQ(test, *remote, 0x1234567890ULL);
	KUNIT_EXPECT_EQ(test, u->ibdev->ops.dereg_mr(mr, NULL), 0);
}

static void ulp_bad_input(struct kunit *test)
{
	struct ulp *u = ulp_setup(test);
	struct ib_sge sge = { .addr = u->dma[0], .length = 64,
			      .lkey = u->pd->local_dma_lkey };
	struct ib_send_wr swr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
				  .send_flags = IB_SEND_SIGNALED };
	struct mlx5sp_sim_stats *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct ib_qp_attr a = {};
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;
	u64 cmds;

	KUNIT_ASSERT_NOT_NULL(test, st);
	/* A WR the QP cannot carry fails at post, nothing reaches the device. */
	KUNIT_EXPECT_EQ(test, ib_post_send(u->qp[0], &swr, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, (const struct ib_send_wr *)&swr);
	swr.opcode = IB_WR_SEND;
	swr.num_sge = 100;
	KUNIT_EXPECT_EQ(test, ib_post_send(u->qp[0], &swr, &bad), -EINVAL);

	/* Illegal transitions and attributes fail before any command. */
	mlx5sp_sim_get_stats(u->sim, st);
	cmds = st->cmds_executed;
	a.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(u->qp[0], &a, IB_QP_STATE), -EINVAL);
	a.qp_state = IB_QPS_RTS;
	a.min_rnr_timer = 40;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(u->qp[0], &a,
					   IB_QP_STATE | IB_QP_MIN_RNR_TIMER), -EINVAL);
	a.qp_state = IB_QPS_SQD;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(u->qp[0], &a,
					   IB_QP_STATE | IB_QP_PATH_MTU), -EINVAL);
	mlx5sp_sim_get_stats(u->sim, st);
	KUNIT_EXPECT_EQ(test, st->cmds_executed, cmds);

	/* A bad lkey reaches the device: an error completion. */
	swr.num_sge = 1;
	sge.lkey = 0xdead00;
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[0], &swr, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, &wc, 1), 1);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9ULL);
}

/*
 * Firmware failing DESTROY_QP, DESTROY_SRQ or DESTROY_CQ of a kernel
 * object: ib_core takes no error there (ib_destroy_srq(), ib_destroy_cq()
 * and ib_free_cq() WARN; a QP kept would keep its CQ; the _user calls
 * here return what the inline ones would WARN on), so the object goes for its user while the driver
 * keeps its queue memory, which the firmware may still use, until the
 * device goes (quarantine.c); the engine goes on polling the kept CQ's
 * doorbell record meanwhile. KASAN, kmemleak and dma_pool_destroy()
 * watch the teardown.
 */
static void ulp_destroy_refused(struct kunit *test)
{
	static const u16 ops[] = { MLX5_CMD_OP_DESTROY_QP,
				   MLX5_CMD_OP_DESTROY_SRQ,
				   MLX5_CMD_OP_DESTROY_CQ };
	struct ulp *u = ulp_setup(test);
	struct mlx5sp_dev *mdev = to_ibdev(u->ibdev)->mdev;
	struct mlx5sp_sim_stats *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ib_cq_init_attr ca = { .cqe = 16 };
	struct ib_srq *srq;
	struct ib_cq *cq;
	u64 injected;
	int i, err;

	KUNIT_ASSERT_NOT_NULL(test, st);
	srq = ib_create_srq(u->pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	cq = ib_create_cq(u->ibdev, NULL, NULL, NULL, &ca);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	mlx5sp_sim_get_stats(u->sim, st);
	injected = st->cmds_injected;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		mlx5sp_sim_fail_cmd(u->sim, ops[i], MLX5_CMD_STAT_INT_ERR,
				    0x5b0f0050 + i, 1);
		if (ops[i] == MLX5_CMD_OP_DESTROY_QP) {
			err = ib_destroy_qp(u->qp[0]);
			u->qp[0] = NULL;
		} else if (ops[i] == MLX5_CMD_OP_DESTROY_SRQ) {
			err = ib_destroy_srq_user(srq, NULL);
		} else {
			err = ib_destroy_cq_user(cq, NULL);
		}
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "opcode 0x%x", ops[i]);
	}
	mlx5sp_sim_get_stats(u->sim, st);
	KUNIT_EXPECT_EQ(test, st->cmds_injected, injected + ARRAY_SIZE(ops));
	spin_lock(&mdev->quarantine_lock);
	KUNIT_EXPECT_EQ(test, list_count_nodes(&mdev->quarantine),
			ARRAY_SIZE(ops));
	spin_unlock(&mdev->quarantine_lock);
	/* passes over the kept CQ's record, as over every CQ */
	msleep(20);
}

static int ulp_send(struct ulp *u, u64 wr_id, u64 addr, int flags)
{
	struct ib_sge sge = { .addr = addr, .length = 64,
			      .lkey = u->pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED | flags };

	return ib_post_send(u->qp[0], &wr, NULL);
}

static int ulp_sqd(struct ulp *u, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };

	return ib_modify_qp(u->qp[0], &a, IB_QP_STATE);
}

/*
 * Signature pipelining through ib_core: a stopped QP's fenced send is
 * cancelled (completes good, sends nothing), the other runs after SQD->RTS;
 * a cancelled send flushes when the QP goes to error instead; bad callers
 * get -EINVAL, unknown WR IDs 0.
 */
static void ulp_sig_pipelining_cancel(struct kunit *test)
{
	struct ulp *u = ulp_setup_flags(test, MLX5SP_QP_CREATE_SIG_PIPELINING);
	struct ib_sge rsge = { .length = 256, .lkey = u->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_qp_init_attr qa = {};
	unsigned long end;
	struct ib_wc wc[4];
	struct ib_qp *ud;
	u8 *dst = u->buf[1];
	int i;

	KUNIT_ASSERT_TRUE(test, mlx5sp_is_ib_device(u->ibdev));
	memset(u->buf[0], 0x11, 64);
	memset(u->buf[0] + 64, 0x22, 64);
	for (i = 0; i < 2; i++) {
		rsge.addr = u->dma[1] + i * 256;
		KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[1], &rwr, NULL), 0);
	}

	/* not stopped: nothing to cancel from */
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(u->qp[0], 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, ulp_sqd(u, IB_QPS_SQD), 0);
	end = jiffies + msecs_to_jiffies(ULP_TIMEOUT_MS);
	while (!atomic_read(&u->sq_drained) && time_before(jiffies, end))
		usleep_range(500, 1000);
	KUNIT_EXPECT_EQ(test, atomic_read(&u->sq_drained), 1);

	KUNIT_ASSERT_EQ(test, ulp_send(u, 1, u->dma[0], IB_SEND_FENCE), 0);
	KUNIT_ASSERT_EQ(test, ulp_send(u, 2, u->dma[0] + 64, 0), 0);
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(u->qp[0], 99), 0);
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(u->qp[0], 1), 1);
	/* a QP without signature pipelining */
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(u->qp[1], 1), -EINVAL);
	KUNIT_ASSERT_EQ(test, ulp_sqd(u, IB_QPS_RTS), 0);

	KUNIT_ASSERT_EQ(test, poll_n(u, wc, 3), 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].qp == u->qp[1])
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_RECV);
		else
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_SEND);
	}
	KUNIT_EXPECT_EQ(test, ib_poll_cq(u->cq, 1, wc), 0);
	/* only the second message went out, into the first receive */
	KUNIT_EXPECT_EQ(test, dst[0], 0x22);
	KUNIT_EXPECT_EQ(test, dst[256], 0);

	/* cancelled, then the QP to error: the send flushes */
	KUNIT_ASSERT_EQ(test, ulp_sqd(u, IB_QPS_SQD), 0);
	KUNIT_ASSERT_EQ(test, ulp_send(u, 3, u->dma[0], IB_SEND_FENCE), 0);
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(u->qp[0], 3), 1);
	KUNIT_ASSERT_EQ(test, ulp_sqd(u, IB_QPS_ERR), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 3ULL);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, dst[256], 0);

	/* RC only */
	qa.send_cq = u->cq;
	qa.recv_cq = u->cq;
	qa.qp_type = IB_QPT_UD;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.create_flags = MLX5SP_QP_CREATE_SIG_PIPELINING;
	ud = ib_create_qp(u->pd, &qa);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ud), -EOPNOTSUPP);
	if (!IS_ERR(ud))
		ib_destroy_qp(ud);
}

/* Post one WR on @qp and wait for its completion. */
static enum ib_wc_status ulp_post_one(struct kunit *test, struct ulp *u,
				      struct ib_qp *qp, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	wr->send_flags |= IB_SEND_SIGNALED;
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, wr, &bad), 0);
	if (poll_n(u, &wc, 1) != 1)
		return IB_WC_GENERAL_ERR;
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr->wr_id);
	return wc.status;
}

/*
 * Fast registration as nvmet-rdma and iSER use it: ib_alloc_mr,
 * ib_map_mr_sg, IB_WR_REG_MR, the peer's RDMA WRITE and READ through the
 * rkey, IB_WR_LOCAL_INV (then the peer's access fails), re-registration
 * with the next key, and the peer's SEND with invalidate.
 */
static void ulp_frwr(struct kunit *test)
{
	struct ulp *u = ulp_setup(test);
	struct ib_sge sge = { .addr = u->dma[1], .length = ULP_BUF,
			      .lkey = u->pd->local_dma_lkey };
	struct ib_sge rsge = { .addr = u->dma[0], .length = 64,
			       .lkey = u->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_id = 20, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr inv = { .wr_id = 12, .opcode = IB_WR_LOCAL_INV };
	struct ib_reg_wr reg = {};
	struct ib_rdma_wr rdma = {};
	const struct ib_recv_wr *rbad;
	const struct ib_send_wr *bad;
	struct scatterlist sg[2];
	struct ib_wc wc[2];
	struct ib_mr *mr;
	u8 *mine;
	int n;

	mr = ib_alloc_mr(u->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mr), "alloc_mr: %ld", PTR_ERR(mr));
	/* qp[0] registers buffer 0 (two halves, one per entry) for qp[1] */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = u->dma[0];
	sg_dma_len(&sg[0]) = ULP_BUF / 2;
	sg_dma_address(&sg[1]) = u->dma[0] + ULP_BUF / 2;
	sg_dma_len(&sg[1]) = ULP_BUF / 2;
	n = ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, n, 2);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.wr.wr_id = 10;
	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, ulp_post_one(test, u, u->qp[0], &reg.wr),
			IB_WC_SUCCESS);

	/* the peer writes buffer 1 into it, then reads it back changed */
	fill(u->buf[1], 33);
	rdma.wr.wr_id = 11;
	rdma.wr.sg_list = &sge;
	rdma.wr.num_sge = 1;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.remote_addr = mr->iova;
	rdma.rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, ulp_post_one(test, u, u->qp[1], &rdma.wr),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(u->buf[0], u->buf[1], ULP_BUF), 0);
	mine = u->buf[0];
	mine[ULP_BUF - 1] ^= 0xff;
	rdma.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_EXPECT_EQ(test, ulp_post_one(test, u, u->qp[1], &rdma.wr),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, memcmp(u->buf[0], u->buf[1], ULP_BUF), 0);
	/* past the registered length: a remote access error */
	rdma.remote_addr = mr->iova + 1;
	KUNIT_EXPECT_EQ(test, ulp_post_one(test, u, u->qp[1], &rdma.wr),
			IB_WC_REM_ACCESS_ERR);
	/* that moved both QPs to error: start over on fresh ones */
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	kunit_release_action(test, ulp_exit, u);

	u = ulp_setup(test);
	/* the SGEs pointed at the first ULP's buffers, unmapped and freed */
	sge.addr = u->dma[1];
	sge.lkey = u->pd->local_dma_lkey;
	rsge.addr = u->dma[0];
	rsge.lkey = u->pd->local_dma_lkey;
	mr = ib_alloc_mr(u->pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sg_dma_address(&sg[0]) = u->dma[0];
	sg_dma_address(&sg[1]) = u->dma[0] + ULP_BUF / 2;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 2);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.mr = mr;
	reg.key = mr->rkey;
	KUNIT_ASSERT_EQ(test, ulp_post_one(test, u, u->qp[0], &reg.wr),
			IB_WC_SUCCESS);
	/* local invalidate, re-register with the next key */
	inv.ex.invalidate_rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, ulp_post_one(test, u, u->qp[0], &inv),
			IB_WC_SUCCESS);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.key = mr->rkey;
	KUNIT_ASSERT_EQ(test, ulp_post_one(test, u, u->qp[0], &reg.wr),
			IB_WC_SUCCESS);
	/* the peer invalidates it with its SEND */
	KUNIT_ASSERT_EQ(test, ib_post_recv(u->qp[0], &rwr, &rbad), 0);
	sge.length = 64;
	inv.wr_id = 13;
	inv.opcode = IB_WR_SEND_WITH_INV;
	inv.sg_list = &sge;
	inv.num_sge = 1;
	inv.ex.invalidate_rkey = mr->rkey;
	inv.send_flags = IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, ib_post_send(u->qp[1], &inv, &bad), 0);
	KUNIT_ASSERT_EQ(test, poll_n(u, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	if (wc[0].wr_id != 20)
		wc[0] = wc[1];
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 20ULL);
	KUNIT_EXPECT_TRUE(test, wc[0].wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc[0].ex.invalidate_rkey, mr->rkey);
	/* now the peer's access through the old rkey fails */
	sge.length = ULP_BUF;
	rdma.wr.wr_id = 14;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.remote_addr = mr->iova;
	rdma.rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, ulp_post_one(test, u, u->qp[1], &rdma.wr),
			IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* A UMR the device refuses: an MR of another PD. Error CQE, QP to ERR. */
static void ulp_frwr_bad(struct kunit *test)
{
	struct ulp *u = ulp_setup(test);
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	struct ib_qp_attr a;
	struct ib_qp_init_attr ia;
	struct ib_pd *pd2;
	struct ib_mr *mr;

	pd2 = ib_alloc_pd(u->ibdev, 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pd2));
	mr = ib_alloc_mr(pd2, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	KUNIT_EXPECT_TRUE(test, IS_ERR(ib_alloc_mr(pd2, IB_MR_TYPE_MEM_REG,
						   0)));
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr(pd2, IB_MR_TYPE_SG_GAPS, 4)),
			-EOPNOTSUPP);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = u->dma[0];
	sg_dma_len(&sg) = ULP_BUF;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	reg.wr.wr_id = 30;
	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = mr;
	reg.access = IB_ACCESS_LOCAL_WRITE;
	/* a key of another MKEY index fails at post */
	reg.key = mr->rkey + 0x100;
	KUNIT_EXPECT_EQ(test, ib_post_send(u->qp[0], &reg.wr, &bad), -EINVAL);
	reg.key = mr->rkey;
	KUNIT_EXPECT_EQ(test, ulp_post_one(test, u, u->qp[0], &reg.wr),
			IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, ib_query_qp(u->qp[0], &a, IB_QP_STATE, &ia), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	ib_dealloc_pd(pd2);
}

static struct kunit_case ib_ulp_cases[] = {
	KUNIT_CASE_SLOW(ulp_frwr),
	KUNIT_CASE_SLOW(ulp_frwr_bad),
	KUNIT_CASE_SLOW(ulp_send_write_read),
	KUNIT_CASE_SLOW(ulp_atomics),
	KUNIT_CASE_SLOW(ulp_bad_input),
	KUNIT_CASE_SLOW(ulp_destroy_refused),
	KUNIT_CASE_SLOW(ulp_sig_pipelining_cancel),
	{}
};

static struct kunit_suite ib_ulp_suite = {
	.name = "mlx5sp_ib_ulp",
	.test_cases = ib_ulp_cases,
};

kunit_test_suites(&ib_logic_suite, &ib_ulp_suite);
