// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite mlx5sp_qcounters: the model's Q counter commands as
 * firmware answers them (ALLOC_Q_COUNTER up to max_qp_cnt, DEALLOC and
 * QUERY of a set that does not exist, QUERY's vport and aggregate fields,
 * read-and-clear), and the driver's use of them: the port's set allocated
 * at device add (registration fails without it), the port's counter list
 * through ib_core's hw stats ops, the congestion counters among them
 * (QUERY_CONG_STATISTICS; a failed query fails the read, but not the
 * read ib_core makes while registering the device).
 */
#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "ib.h"
#include "sim/mlx5sp_sim.h"
#include "sim/syndromes.h"

struct qc_ctx {
	struct mlx5sp_sim *sim;
	struct mlx5sp_dev *dev;
};

static void qc_ctx_exit(void *data)
{
	struct qc_ctx *ctx = data;

	if (ctx->sim)
		mlx5sp_sim_destroy(ctx->sim);
}

/* A model device with its driver up, or with the attach error in *err. */
static struct qc_ctx *qc_up(struct kunit *test, const char *name, u16 fail_op,
			    int *err)
{
	struct mlx5sp_sim_params p;
	struct qc_ctx *ctx;
	int ret;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	mlx5sp_sim_default_params(&p);
	ctx->sim = mlx5sp_sim_create(name, &p);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->sim));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, qc_ctx_exit,
							   ctx));
	if (fail_op)
		mlx5sp_sim_fail_cmd(ctx->sim, fail_op, MLX5_CMD_STAT_NO_RES_ERR,
				    0x5b0f0042, 1);
	ret = mlx5sp_sim_attach(ctx->sim);
	if (err)
		*err = ret;
	else
		KUNIT_ASSERT_EQ(test, ret, 0);
	if (!ret)
		ctx->dev = mlx5sp_model_to_dev(mlx5sp_sim_model(ctx->sim));
	return ctx;
}

static int qc_alloc(struct mlx5sp_dev *dev, u16 uid, u32 *id, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(alloc_q_counter_in)] = {};
	int err;

	MLX5_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
	MLX5_SET(alloc_q_counter_in, in, uid, uid);
	err = mlx5sp_cmd_exec(dev, in, sizeof(in), out,
			      MLX5_ST_SZ_BYTES(alloc_q_counter_out));
	if (!err)
		*id = MLX5_GET(alloc_q_counter_out, out, counter_set_id);
	return err;
}

static int qc_dealloc(struct mlx5sp_dev *dev, u32 id, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_q_counter_in)] = {};

	MLX5_SET(dealloc_q_counter_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_Q_COUNTER);
	MLX5_SET(dealloc_q_counter_in, in, counter_set_id, id);
	return mlx5sp_cmd_exec(dev, in, sizeof(in), out,
			       MLX5_ST_SZ_BYTES(dealloc_q_counter_out));
}

/* QUERY_Q_COUNTER of @id; @fld: 0, or a field set to 1 in the input. */
enum qc_bad { QC_OK, QC_OTHER_VPORT, QC_VPORT_NUMBER, QC_AGGREGATE, QC_OP_MOD };

static int qc_query(struct mlx5sp_dev *dev, u32 id, enum qc_bad bad,
		    bool clear, void *out)
{
	u32 in[MLX5_ST_SZ_DW(query_q_counter_in)] = {};

	MLX5_SET(query_q_counter_in, in, opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
	MLX5_SET(query_q_counter_in, in, counter_set_id, id);
	MLX5_SET(query_q_counter_in, in, clear, clear);
	if (bad == QC_OTHER_VPORT)
		MLX5_SET(query_q_counter_in, in, other_vport, 1);
	if (bad == QC_VPORT_NUMBER)
		MLX5_SET(query_q_counter_in, in, vport_number, 1);
	if (bad == QC_AGGREGATE)
		MLX5_SET(query_q_counter_in, in, aggregate, 1);
	if (bad == QC_OP_MOD)
		MLX5_SET(query_q_counter_in, in, op_mod, 1);
	return mlx5sp_cmd_exec(dev, in, sizeof(in), out,
			       MLX5_ST_SZ_BYTES(query_q_counter_out));
}

static void expect_fail(struct kunit *test, const void *out, u8 status,
			u32 synd)
{
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out), status);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_SYNDROME(out), synd);
}

static void qc_alloc_to_the_limit(struct kunit *test)
{
	struct qc_ctx *ctx = qc_up(test, "ku_qc0", 0, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	u32 max = MLX5_GET(cmd_hca_cap,
			   ctx->dev->caps_cur[MLX5SP_CAPS_GENERAL], max_qp_cnt);
	unsigned long *seen;
	u32 id, n = 0, first = 0;
	int err;

	KUNIT_ASSERT_GT(test, max, 2U);
	seen = kunit_kcalloc(test, BITS_TO_LONGS(max), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	/* the RDMA device holds the port's set */
	KUNIT_ASSERT_NE(test, ctx->dev->ib->cnt.set_id, 0U);
	__set_bit(ctx->dev->ib->cnt.set_id, seen);
	while (!(err = qc_alloc(ctx->dev, 0, &id, out))) {
		KUNIT_ASSERT_TRUE_MSG(test, id > 0 && id < max, "id %u", id);
		KUNIT_EXPECT_FALSE_MSG(test, __test_and_set_bit(id, seen),
				       "id %u twice", id);
		first = first ?: id;
		n++;
		KUNIT_ASSERT_LT(test, n, max);
	}
	/* 1 .. max_qp_cnt - 1, one of them the port's */
	KUNIT_EXPECT_EQ(test, n, max - 2);
	KUNIT_EXPECT_EQ(test, err, -EAGAIN);
	expect_fail(test, out, MLX5_CMD_STAT_NO_RES_ERR,
		    MLX5SP_SIM_SYND_QCNT_EXHAUSTED);
	/* one freed, one to take */
	KUNIT_EXPECT_EQ(test, qc_dealloc(ctx->dev, first, out), 0);
	KUNIT_EXPECT_EQ(test, qc_alloc(ctx->dev, 0, &id, out), 0);
	KUNIT_EXPECT_EQ(test, id, first);
}

static void qc_bad_input(struct kunit *test)
{
	struct qc_ctx *ctx = qc_up(test, "ku_qc1", 0, NULL);
	void *qout = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(query_q_counter_out),
				   GFP_KERNEL);
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	static const u32 bad_ids[] = { 0, 63, 64, 200, 255 };
	u32 id;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, qout);
	KUNIT_ASSERT_EQ(test, qc_alloc(ctx->dev, 0, &id, out), 0);
	/* sets that were never allocated, or cannot be */
	for (i = 0; i < ARRAY_SIZE(bad_ids); i++) {
		KUNIT_EXPECT_EQ(test, qc_dealloc(ctx->dev, bad_ids[i], out),
				-EINVAL);
		expect_fail(test, out, MLX5_CMD_STAT_BAD_PARAM_ERR,
			    MLX5SP_SIM_SYND_QCNT_NOT_FOUND);
		KUNIT_EXPECT_EQ(test, qc_query(ctx->dev, bad_ids[i], QC_OK,
					       false, qout), -EINVAL);
		expect_fail(test, qout, MLX5_CMD_STAT_BAD_PARAM_ERR,
			    MLX5SP_SIM_SYND_QCNT_NOT_FOUND);
	}
	/* no vports, no aggregation on this device */
	KUNIT_EXPECT_EQ(test, qc_query(ctx->dev, id, QC_OTHER_VPORT, false,
				       qout), -EINVAL);
	expect_fail(test, qout, MLX5_CMD_STAT_BAD_PARAM_ERR,
		    MLX5SP_SIM_SYND_QCNT_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, qc_query(ctx->dev, id, QC_VPORT_NUMBER, false,
				       qout), -EINVAL);
	expect_fail(test, qout, MLX5_CMD_STAT_BAD_PARAM_ERR,
		    MLX5SP_SIM_SYND_QCNT_BAD_PARAM);
	KUNIT_EXPECT_EQ(test, qc_query(ctx->dev, id, QC_AGGREGATE, false,
				       qout), -EINVAL);
	expect_fail(test, qout, MLX5_CMD_STAT_BAD_PARAM_ERR,
		    MLX5SP_SIM_SYND_QCNT_BAD_PARAM);
	/* an op_mod the command has not */
	KUNIT_EXPECT_EQ(test, qc_query(ctx->dev, id, QC_OP_MOD, false, qout),
			-EINVAL);
	expect_fail(test, qout, MLX5_CMD_STAT_BAD_PARAM_ERR,
		    MLX5SP_SIM_SYND_BAD_OP_MOD);
	/* a uid no user context has */
	KUNIT_EXPECT_EQ(test, qc_alloc(ctx->dev, 7, &id, out), -EINVAL);
	expect_fail(test, out, MLX5_CMD_STAT_BAD_PARAM_ERR,
		    MLX5SP_SIM_SYND_UID_INVALID);
	/* freed twice: the second finds nothing */
	KUNIT_EXPECT_EQ(test, qc_alloc(ctx->dev, 0, &id, out), 0);
	KUNIT_EXPECT_EQ(test, qc_dealloc(ctx->dev, id, out), 0);
	KUNIT_EXPECT_EQ(test, qc_dealloc(ctx->dev, id, out), -EINVAL);
	expect_fail(test, out, MLX5_CMD_STAT_BAD_PARAM_ERR,
		    MLX5SP_SIM_SYND_QCNT_NOT_FOUND);
}

/* A new set reads 0 in every field, read-and-clear included. */
static void qc_query_fresh(struct kunit *test)
{
	struct qc_ctx *ctx = qc_up(test, "ku_qc2", 0, NULL);
	u32 *qout = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(query_q_counter_out),
				  GFP_KERNEL);
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	u32 id, i;

	KUNIT_ASSERT_NOT_NULL(test, qout);
	KUNIT_ASSERT_EQ(test, qc_alloc(ctx->dev, 0, &id, out), 0);
	KUNIT_ASSERT_EQ(test, qc_query(ctx->dev, id, QC_OK, true, qout), 0);
	for (i = 2; i < MLX5_ST_SZ_DW(query_q_counter_out); i++)
		KUNIT_EXPECT_EQ_MSG(test, qout[i], 0U, "dword %u", i);
	KUNIT_EXPECT_EQ(test, qc_query(ctx->dev, id, QC_OK, false, qout), 0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(query_q_counter_out, qout,
				       rx_write_requests), 0U);
}

/* The driver's port list: mlx5_ib's names, then the driver's own. */
static void qc_port_stats(struct kunit *test)
{
	struct qc_ctx *ctx = qc_up(test, "ku_qc3", 0, NULL);
	struct ib_device *ibdev = &ctx->dev->ib->ib;
	static const char * const want[] = {
		"rx_write_requests", "out_of_sequence", "duplicate_request",
		"local_ack_timeout_err", "req_cqe_error", "resp_cqe_error",
		"req_remote_access_errors", "resp_local_length_error",
		"rp_cnp_ignored", "rp_cnp_handled",
		"np_ecn_marked_roce_packets", "np_cnp_sent", "sig_err_guard", "sig_err_reftag", "sig_err_apptag",
		"sq_drained", "wqes_cancelled",
	};
	struct rdma_hw_stats *st;
	int i, j, n;

	KUNIT_ASSERT_NOT_NULL(test, ibdev->ops.alloc_hw_port_stats);
	st = ibdev->ops.alloc_hw_port_stats(ibdev, 1);
	KUNIT_ASSERT_NOT_NULL(test, st);
	n = ibdev->ops.get_hw_stats(ibdev, st, 1, st->num_counters);
	KUNIT_EXPECT_EQ(test, n, (int)st->num_counters);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		for (j = 0; j < st->num_counters; j++)
			if (!strcmp(st->descs[j].name, want[i]))
				break;
		KUNIT_EXPECT_LT_MSG(test, j, (int)st->num_counters,
				    "%s not listed", want[i]);
		if (j < st->num_counters)
			KUNIT_EXPECT_EQ(test, st->value[j], 0ULL);
	}
	KUNIT_EXPECT_EQ(test, ibdev->ops.get_hw_stats(ibdev, st, 2, 0),
			-EINVAL);
	rdma_free_hw_stats_struct(st);
}

/* QUERY_CONG_STATISTICS failing fails the port's read, once. */
static void qc_port_stats_cong_fails(struct kunit *test)
{
	struct qc_ctx *ctx = qc_up(test, "ku_qc5", 0, NULL);
	struct ib_device *ibdev = &ctx->dev->ib->ib;
	struct rdma_hw_stats *st;

	st = ibdev->ops.alloc_hw_port_stats(ibdev, 1);
	KUNIT_ASSERT_NOT_NULL(test, st);
	mlx5sp_sim_fail_cmd(ctx->sim, MLX5_CMD_OP_QUERY_CONG_STATISTICS,
			    MLX5_CMD_STAT_NO_RES_ERR, 0x5b0f0043, 1);
	KUNIT_EXPECT_LT(test, ibdev->ops.get_hw_stats(ibdev, st, 1,
						      st->num_counters), 0);
	KUNIT_EXPECT_EQ(test, ibdev->ops.get_hw_stats(ibdev, st, 1,
						      st->num_counters),
			(int)st->num_counters);
	rdma_free_hw_stats_struct(st);
}

/*
 * ib_core's read in ib_register_device() does not ask the device: a
 * QUERY_Q_COUNTER or QUERY_CONG_STATISTICS failing there failed the add
 * and leaked ib_core's port stats (6.12's setup_hw_port_stats(); found by
 * make faults). The failure stays armed through the add: the first read
 * after it is the one that asks, and fails.
 */
static void qc_register_read_no_query(struct kunit *test)
{
	static const u16 ops[] = { MLX5_CMD_OP_QUERY_Q_COUNTER,
				   MLX5_CMD_OP_QUERY_CONG_STATISTICS };
	static const char * const names[] = { "ku_qc6", "ku_qc7" };
	struct rdma_hw_stats *st;
	struct ib_device *ibdev;
	struct qc_ctx *ctx;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		err = 0;
		ctx = qc_up(test, names[i], ops[i], &err);
		KUNIT_EXPECT_EQ_MSG(test, err, 0, "opcode 0x%x", ops[i]);
		if (err)
			continue;
		ibdev = &ctx->dev->ib->ib;
		st = ibdev->ops.alloc_hw_port_stats(ibdev, 1);
		KUNIT_ASSERT_NOT_NULL(test, st);
		KUNIT_EXPECT_LT_MSG(test, ibdev->ops.get_hw_stats(ibdev, st, 1,
							st->num_counters),
				    0, "opcode 0x%x", ops[i]);
		KUNIT_EXPECT_EQ(test, ibdev->ops.get_hw_stats(ibdev, st, 1,
							st->num_counters),
				(int)st->num_counters);
		rdma_free_hw_stats_struct(st);
	}
}

/* Without its Q counter set the RDMA device does not come up. */
static void qc_add_fails_without_set(struct kunit *test)
{
	int err = 0;

	qc_up(test, "ku_qc4", MLX5_CMD_OP_ALLOC_Q_COUNTER, &err);
	KUNIT_EXPECT_EQ(test, err, -EAGAIN);
}

static struct kunit_case qc_cases[] = {
	KUNIT_CASE(qc_alloc_to_the_limit),
	KUNIT_CASE(qc_bad_input),
	KUNIT_CASE(qc_query_fresh),
	KUNIT_CASE(qc_port_stats),
	KUNIT_CASE(qc_port_stats_cong_fails),
	KUNIT_CASE(qc_add_fails_without_set),
	KUNIT_CASE(qc_register_read_no_query),
	{}
};

static struct kunit_suite qc_suite = {
	.name = "mlx5sp_qcounters",
	.test_cases = qc_cases,
};

kunit_test_suites(&qc_suite);
