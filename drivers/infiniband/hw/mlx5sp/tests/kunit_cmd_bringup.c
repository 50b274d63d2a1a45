// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites mlx5sp_cmd_codec, mlx5sp_cmd and mlx5sp_bringup: the
 * command layer and bring-up/teardown of the driver against the software
 * ConnectX, with each injected fault.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>

#include "mlx5sp.h"
#include "sim/mlx5sp_sim.h"

/* ---- helpers ---------------------------------------------------------- */

struct sim_ctx {
	struct mlx5sp_sim *sim;
	struct mlx5sp_dev *dev;
};

static void sim_ctx_exit(void *data)
{
	struct sim_ctx *ctx = data;

	if (ctx->sim)
		mlx5sp_sim_destroy(ctx->sim);
}

/* A model device, destroyed when the test ends; attached if @attach. */
static struct sim_ctx *sim_up(struct kunit *test, const char *name,
			      const struct mlx5sp_sim_params *params,
			      bool attach, int *attach_err)
{
	struct mlx5sp_sim_params p;
	struct sim_ctx *ctx;
	int err;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	if (!params) {
		mlx5sp_sim_default_params(&p);
		params = &p;
	}
	ctx->sim = mlx5sp_sim_create(name, params);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ctx->sim), "create: %ld",
			       PTR_ERR(ctx->sim));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, sim_ctx_exit, ctx));
	if (!attach)
		return ctx;
	err = mlx5sp_sim_attach(ctx->sim);
	if (attach_err)
		*attach_err = err;
	else
		KUNIT_ASSERT_EQ(test, err, 0);
	if (!err)
		ctx->dev = mlx5sp_model_to_dev(mlx5sp_sim_model(ctx->sim));
	return ctx;
}

static void destroy_now(struct sim_ctx *ctx)
{
	mlx5sp_sim_destroy(ctx->sim);
	ctx->sim = NULL;
	ctx->dev = NULL;
}

static struct mlx5sp_sim_stats *stats(struct kunit *test, struct sim_ctx *ctx)
{
	struct mlx5sp_sim_stats *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	mlx5sp_sim_get_stats(ctx->sim, st);
	return st;
}

/* Pages the driver has recorded as given to firmware. */
static u32 driver_pages(struct sim_ctx *ctx)
{
	u32 n;

	mutex_lock(&ctx->dev->pages.lock);
	n = ctx->dev->pages.npages;
	mutex_unlock(&ctx->dev->pages.lock);
	return n;
}

static int alloc_pd(struct mlx5sp_dev *dev, u32 *pdn, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	int err;

	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	err = mlx5sp_cmd_exec(dev, in, sizeof(in), out, MLX5_ST_SZ_BYTES(alloc_pd_out));
	if (!err)
		*pdn = MLX5_GET(alloc_pd_out, out, pd);
	return err;
}

static int dealloc_pd(struct mlx5sp_dev *dev, u32 pdn, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_pd_in)] = {};

	MLX5_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	MLX5_SET(dealloc_pd_in, in, pd, pdn);
	return mlx5sp_cmd_exec(dev, in, sizeof(in), out, MLX5_ST_SZ_BYTES(dealloc_pd_out));
}

/* Waits up to @ms for @cond; returns whether it held. */
#define wait_for(cond, ms) ({						\
	unsigned long __end = jiffies + msecs_to_jiffies(ms);		\
	bool __ok;							\
	while (!(__ok = (cond)) && time_before(jiffies, __end))	\
		msleep(20);						\
	__ok;								\
})

/* ---- suite: command codec (no device) --------------------------------- */

static void status_to_errno(struct kunit *test)
{
	static const struct { u8 status; int err; } map[] = {
		{ MLX5_CMD_STAT_OK, 0 },
		{ MLX5_CMD_STAT_INT_ERR, -EIO },
		{ MLX5_CMD_STAT_BAD_OP_ERR, -EOPNOTSUPP },
		{ MLX5_CMD_STAT_BAD_PARAM_ERR, -EINVAL },
		{ MLX5_CMD_STAT_BAD_SYS_STATE_ERR, -EIO },
		{ MLX5_CMD_STAT_BAD_RES_ERR, -EINVAL },
		{ MLX5_CMD_STAT_RES_BUSY, -EBUSY },
		{ MLX5_CMD_STAT_NOT_READY, -EAGAIN },
		{ MLX5_CMD_STAT_LIM_ERR, -ENOMEM },
		{ MLX5_CMD_STAT_BAD_RES_STATE_ERR, -EINVAL },
		{ MLX5_CMD_STAT_IX_ERR, -EINVAL },
		{ MLX5_CMD_STAT_NO_RES_ERR, -EAGAIN },
		{ MLX5_CMD_STAT_BAD_INP_LEN_ERR, -EMSGSIZE },
		{ MLX5_CMD_STAT_BAD_OUTP_LEN_ERR, -EMSGSIZE },
		{ MLX5_CMD_STAT_BAD_QP_STATE_ERR, -EINVAL },
		{ MLX5_CMD_STAT_BAD_PKT_ERR, -EINVAL },
		{ MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR, -EINVAL },
		{ 0x77, -EIO },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		KUNIT_EXPECT_EQ_MSG(test, mlx5sp_cmd_status_to_err(map[i].status),
				    map[i].err, "status 0x%x", map[i].status);
}

static void opcode_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, mlx5sp_cmd_opcode_str(MLX5_CMD_OP_INIT_HCA), "INIT_HCA");
	KUNIT_EXPECT_STREQ(test, mlx5sp_cmd_opcode_str(MLX5_CMD_OP_MANAGE_PAGES),
			   "MANAGE_PAGES");
	KUNIT_EXPECT_STREQ(test, mlx5sp_cmd_opcode_str(MLX5_CMD_OP_CREATE_EQ), "CREATE_EQ");
	KUNIT_EXPECT_STREQ(test, mlx5sp_cmd_opcode_str(0x7fff), "UNKNOWN_OPCODE");
	KUNIT_EXPECT_STREQ(test, mlx5sp_cmd_opcode_str(0xffff), "UNKNOWN_OPCODE");
}

static void header_codec(struct kunit *test)
{
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	const u8 *b = (const u8 *)in;

	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	MLX5_SET(alloc_pd_in, in, op_mod, 0x1234);
	/* PRM: big-endian opcode in bytes 0-1, op_mod in bytes 6-7. */
	KUNIT_EXPECT_EQ(test, b[0], MLX5_CMD_OP_ALLOC_PD >> 8);
	KUNIT_EXPECT_EQ(test, b[1], MLX5_CMD_OP_ALLOC_PD & 0xff);
	KUNIT_EXPECT_EQ(test, b[6], 0x12);
	KUNIT_EXPECT_EQ(test, b[7], 0x34);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_OPCODE(in), MLX5_CMD_OP_ALLOC_PD);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_OP_MOD(in), 0x1234);
	((u8 *)out)[0] = MLX5_CMD_STAT_BAD_PARAM_ERR;
	((__be32 *)out)[1] = cpu_to_be32(0xdeadbeef);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out), MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_SYNDROME(out), 0xdeadbeef);
}

static void signature_xor(struct kunit *test)
{
	struct mlx5_cmd_layout lay = {};
	u8 buf[8] = { 1, 2, 4, 8, 16, 32, 64, 128 };

	KUNIT_EXPECT_EQ(test, mlx5sp_xor8(buf, sizeof(buf)), 0xff);
	KUNIT_EXPECT_EQ(test, mlx5sp_xor8(buf, 0), 0);
	/* A signed layout xors to 0xff; flipping any bit breaks it. */
	lay.type = MLX5_PCI_CMD_XPORT;
	lay.inlen = cpu_to_be32(0x123);
	lay.token = 0x5a;
	lay.status_own = 1;
	lay.sig = ~mlx5sp_xor8(&lay, sizeof(lay));
	KUNIT_EXPECT_EQ(test, mlx5sp_xor8(&lay, sizeof(lay)), 0xff);
	lay.in[2] ^= cpu_to_be32(0x100);
	KUNIT_EXPECT_NE(test, mlx5sp_xor8(&lay, sizeof(lay)), 0xff);
}

static struct kunit_case codec_cases[] = {
	KUNIT_CASE(status_to_errno),
	KUNIT_CASE(opcode_names),
	KUNIT_CASE(header_codec),
	KUNIT_CASE(signature_xor),
	{}
};

static struct kunit_suite codec_suite = {
	.name = "mlx5sp_cmd_codec",
	.test_cases = codec_cases,
};

/* ---- suite: command layer against the model ---------------------------- */

static void cmd_good_and_bad(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_cmd0", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	u32 pdn, pdn2;

	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn, out), 0);
	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn2, out), 0);
	KUNIT_EXPECT_NE(test, pdn, pdn2);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), 0);
	/* Twice: the PD no longer exists. */
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), -EINVAL);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out), MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_NE(test, MLX5SP_CMD_SYNDROME(out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn2, out), 0);

	/* An opcode firmware does not know. */
	MLX5_SET(alloc_pd_in, in, opcode, 0x7ff0);
	KUNIT_EXPECT_EQ(test, mlx5sp_cmd_exec(ctx->dev, in, sizeof(in), out, sizeof(out)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out), MLX5_CMD_STAT_BAD_OP_ERR);

	/* A capability type firmware does not have: bad op_mod. */
	{
		u32 qin[MLX5_ST_SZ_DW(query_hca_cap_in)] = {};
		void *qout = kunit_kzalloc(test, MLX5_ST_SZ_BYTES(query_hca_cap_out),
					   GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, qout);
		MLX5_SET(query_hca_cap_in, qin, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
		MLX5_SET(query_hca_cap_in, qin, op_mod, 0x7f << 1);
		KUNIT_EXPECT_EQ(test, mlx5sp_cmd_exec(ctx->dev, qin, sizeof(qin), qout,
						      MLX5_ST_SZ_BYTES(query_hca_cap_out)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(qout), MLX5_CMD_STAT_BAD_PARAM_ERR);
	}

	/* Output too short for ALLOC_PD's answer. */
	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	KUNIT_EXPECT_EQ(test, mlx5sp_cmd_exec(ctx->dev, in, sizeof(in), out, 8), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out), MLX5_CMD_STAT_BAD_OUTP_LEN_ERR);

	/* Lengths the driver refuses before the device sees them. */
	KUNIT_EXPECT_EQ(test, mlx5sp_cmd_exec(ctx->dev, in, 4, out, sizeof(out)), -EINVAL);
	KUNIT_EXPECT_EQ(test, mlx5sp_cmd_exec(ctx->dev, in, sizeof(in), out, 4), -EINVAL);

	/* Commands that need INIT_HCA are refused before it: firmware state. */
	KUNIT_EXPECT_GT(test, ctx->dev->cmd_eq.eqes, 0UL);
}

/*
 * Mailbox chaining: requests of every size around the 512-byte block
 * boundaries, in both directions, through the real page-request path.
 */
static void cmd_mailbox_sizes(struct kunit *test)
{
	static const s32 sizes[] = { 1, 2, 62, 63, 64, 65, 127, 128, 129, 300, 512, 700 };
	struct sim_ctx *ctx = sim_up(test, "ku_cmd1", NULL, true, NULL);
	u64 base = stats(test, ctx)->pages_held;
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		s32 n = sizes[i];

		KUNIT_ASSERT_EQ(test, mlx5sp_sim_page_storm(ctx->sim, 1, n), 0);
		/* Firmware counts the pages first, the driver once the command returns. */
		KUNIT_EXPECT_TRUE_MSG(test,
				      wait_for(stats(test, ctx)->pages_held == base + n &&
					       driver_pages(ctx) == base + n, 5000),
				      "give %d: held %llu, driver %u", n,
				      stats(test, ctx)->pages_held, driver_pages(ctx));
		KUNIT_ASSERT_EQ(test, mlx5sp_sim_page_storm(ctx->sim, 1, -n), 0);
		KUNIT_EXPECT_TRUE_MSG(test,
				      wait_for(stats(test, ctx)->pages_held == base &&
					       driver_pages(ctx) == base, 5000),
				      "take %d: held %llu, driver %u", n,
				      stats(test, ctx)->pages_held, driver_pages(ctx));
	}
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->delivery_errors, 0ULL);
}

/* Large inline-padded input and a multi-block output in one command. */
static void cmd_padded_input(struct kunit *test)
{
	static const int inlens[] = { 16, 17, 528, 529, 1040, 1041, 4096 };
	struct sim_ctx *ctx = sim_up(test, "ku_cmd2", NULL, true, NULL);
	int outlen = MLX5_ST_SZ_BYTES(query_hca_cap_out);
	void *in, *out;
	int i;

	in = kunit_kzalloc(test, 4096, GFP_KERNEL);
	out = kunit_kzalloc(test, outlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < ARRAY_SIZE(inlens); i++) {
		memset(in, 0, 4096);
		memset(out, 0xa5, outlen);
		MLX5_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
		MLX5_SET(query_hca_cap_in, in, op_mod,
			 (MLX5_CAP_GENERAL << 1) | HCA_CAP_OPMOD_GET_CUR);
		KUNIT_EXPECT_EQ_MSG(test, mlx5sp_cmd_exec(ctx->dev, in, inlens[i], out, outlen),
				    0, "inlen %d", inlens[i]);
		KUNIT_EXPECT_EQ(test, memcmp(MLX5_ADDR_OF(query_hca_cap_out, out, capability),
					     ctx->dev->caps_cur[MLX5SP_CAPS_GENERAL],
					     MLX5_UN_SZ_BYTES(hca_cap_union)), 0);
	}
}

struct async_ctx {
	struct completion done;
	int status;
};

static void async_cb(int status, void *data)
{
	struct async_ctx *a = data;

	a->status = status;
	complete(&a->done);
}

static void cmd_async(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_cmd3", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	struct async_ctx a;

	init_completion(&a.done);
	a.status = 1;
	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	KUNIT_ASSERT_EQ(test, mlx5sp_cmd_exec_cb(ctx->dev, in, sizeof(in), out,
						 sizeof(out), async_cb, &a), 0);
	KUNIT_ASSERT_TRUE(test, wait_for_completion_timeout(&a.done, 10 * HZ) > 0);
	KUNIT_EXPECT_EQ(test, a.status, 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, MLX5_GET(alloc_pd_out, out, pd), out), 0);
}

static void cmd_injected_status(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_cmd4", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 pdn;

	mlx5sp_sim_fail_cmd(ctx->sim, MLX5_CMD_OP_ALLOC_PD, MLX5_CMD_STAT_LIM_ERR,
			    0x1badf00d, 2);
	KUNIT_EXPECT_EQ(test, alloc_pd(ctx->dev, &pdn, out), -ENOMEM);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out), MLX5_CMD_STAT_LIM_ERR);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_SYNDROME(out), 0x1badf00d);
	KUNIT_EXPECT_EQ(test, alloc_pd(ctx->dev, &pdn, out), -ENOMEM);
	/* Exhausted: the third one executes. */
	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn, out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), 0);
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->cmds_injected, 2ULL);
}

static void cmd_timeout_late(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_cmd5", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 pdn;

	ctx->dev->cmd.timeout_ms = 300;
	mlx5sp_sim_delay_cmd(ctx->sim, MLX5_CMD_OP_ALLOC_PD, 1500, 1);
	KUNIT_EXPECT_EQ(test, alloc_pd(ctx->dev, &pdn, out), -ETIMEDOUT);
	/* Other slots keep working while firmware holds the late one. */
	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn, out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), 0);
	KUNIT_EXPECT_EQ(test, ctx->dev->cmd.slots[0].state, MLX5SP_SLOT_TIMED_OUT);
	msleep(2000);
	/* The late completion came back; the next command reaps its slot. */
	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn, out), 0);
	KUNIT_EXPECT_EQ(test, ctx->dev->cmd.slots[0].state, MLX5SP_SLOT_FREE);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), 0);
	KUNIT_EXPECT_FALSE(test, mlx5sp_dev_dead(ctx->dev));
}

static void cmd_timeout_dropped(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_cmd6", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 pdn;

	ctx->dev->cmd.timeout_ms = 300;
	mlx5sp_sim_delay_cmd(ctx->sim, MLX5_CMD_OP_ALLOC_PD, U32_MAX, 1);
	KUNIT_EXPECT_EQ(test, alloc_pd(ctx->dev, &pdn, out), -ETIMEDOUT);
	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn, out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), 0);
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->cmds_dropped, 1ULL);
	/* Removal with a slot firmware never returned must not hang or leak. */
	destroy_now(ctx);
}

static struct kunit_case cmd_cases[] = {
	KUNIT_CASE(cmd_good_and_bad),
	KUNIT_CASE(cmd_mailbox_sizes),
	KUNIT_CASE(cmd_padded_input),
	KUNIT_CASE(cmd_async),
	KUNIT_CASE(cmd_injected_status),
	KUNIT_CASE_SLOW(cmd_timeout_late),
	KUNIT_CASE_SLOW(cmd_timeout_dropped),
	{}
};

static struct kunit_suite cmd_suite = {
	.name = "mlx5sp_cmd",
	.test_cases = cmd_cases,
};

/* ---- suite: bring-up and teardown -------------------------------------- */

static void bringup_teardown(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_up0", NULL, true, NULL);
	struct mlx5sp_sim_params p;
	struct mlx5sp_sim_stats *st;

	mlx5sp_sim_default_params(&p);
	KUNIT_EXPECT_TRUE(test, ctx->dev->hca_inited);
	KUNIT_EXPECT_STRNEQ(test, ctx->dev->fw_ver, "");
	KUNIT_EXPECT_EQ(test, ctx->dev->cmd.nslots, 1U << p.log_cmdq_size);
	KUNIT_EXPECT_EQ(test, MLX5_GET(cmd_hca_cap, ctx->dev->caps_cur[MLX5SP_CAPS_GENERAL],
				       cqe_version), 1);
	st = stats(test, ctx);
	KUNIT_EXPECT_EQ(test, st->pages_held, (u64)(p.boot_pages + p.init_pages));
	KUNIT_EXPECT_EQ(test, ctx->dev->pages.npages, p.boot_pages + p.init_pages);
	KUNIT_EXPECT_EQ(test, st->boot_pages_outstanding, 0ULL);
	KUNIT_EXPECT_EQ(test, st->init_pages_outstanding, 0ULL);
	KUNIT_EXPECT_EQ(test, st->delivery_errors, 0ULL);
	KUNIT_EXPECT_EQ(test, st->eq_overruns, 0ULL);

	/* Detach returns every page; the device can be brought up again. */
	mlx5sp_model_detach(mlx5sp_sim_model(ctx->sim));
	st = stats(test, ctx);
	KUNIT_EXPECT_EQ(test, st->pages_held, 0ULL);
	KUNIT_EXPECT_EQ(test, st->pages_leaked, 0ULL);
	KUNIT_EXPECT_EQ(test, mlx5sp_model_attach(mlx5sp_sim_model(ctx->sim)), 0);
	st = stats(test, ctx);
	KUNIT_EXPECT_EQ(test, st->pages_held, (u64)(p.boot_pages + p.init_pages));
}

static void bringup_serialised(struct kunit *test)
{
	struct mlx5sp_sim_params p;
	struct sim_ctx *ctx;
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 pdn;

	mlx5sp_sim_default_params(&p);
	p.log_cmdq_size = 0;
	p.boot_pages = 1000;	/* MANAGE_PAGES in two chained commands */
	ctx = sim_up(test, "ku_up1", &p, true, NULL);
	KUNIT_EXPECT_EQ(test, ctx->dev->cmd.nslots, 1U);
	KUNIT_ASSERT_EQ(test, alloc_pd(ctx->dev, &pdn, out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(ctx->dev, pdn, out), 0);
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->pages_held, 1032ULL);
	destroy_now(ctx);
}

static void bringup_two_devices(struct kunit *test)
{
	struct sim_ctx *a = sim_up(test, "ku_up2a", NULL, true, NULL);
	struct sim_ctx *b = sim_up(test, "ku_up2b", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 pa, pb;

	KUNIT_ASSERT_EQ(test, alloc_pd(a->dev, &pa, out), 0);
	KUNIT_ASSERT_EQ(test, alloc_pd(b->dev, &pb, out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(a->dev, pa, out), 0);
	KUNIT_EXPECT_EQ(test, dealloc_pd(b->dev, pb, out), 0);
}

/* Each bring-up command failing in turn: attach fails and nothing leaks. */
static const u16 bringup_opcodes[] = {
	MLX5_CMD_OP_ENABLE_HCA, MLX5_CMD_OP_QUERY_ISSI, MLX5_CMD_OP_SET_ISSI,
	MLX5_CMD_OP_QUERY_PAGES, MLX5_CMD_OP_MANAGE_PAGES,
	MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CMD_OP_SET_HCA_CAP,
	MLX5_CMD_OP_INIT_HCA, MLX5_CMD_OP_ALLOC_UAR, MLX5_CMD_OP_CREATE_EQ,
};

static void bringup_op_desc(const u16 *op, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", mlx5sp_cmd_opcode_str(*op));
}

KUNIT_ARRAY_PARAM(bringup_op, bringup_opcodes, bringup_op_desc);

static void bringup_cmd_fails(struct kunit *test)
{
	const u16 *op = test->param_value;
	struct mlx5sp_sim_stats *st;
	struct sim_ctx *ctx;
	int err;

	ctx = sim_up(test, "ku_up3", NULL, false, NULL);
	mlx5sp_sim_fail_cmd(ctx->sim, *op, MLX5_CMD_STAT_INT_ERR, 0x5eed, 1);
	err = mlx5sp_sim_attach(ctx->sim);
	KUNIT_EXPECT_EQ(test, err, -EIO);
	st = stats(test, ctx);
	KUNIT_EXPECT_EQ(test, st->cmds_injected, 1ULL);
	KUNIT_EXPECT_EQ(test, st->pages_held, 0ULL);
	KUNIT_EXPECT_EQ(test, st->pages_leaked, 0ULL);
	/* The same device comes up once the fault is spent. */
	KUNIT_EXPECT_EQ(test, mlx5sp_sim_attach(ctx->sim), 0);
}

/*
 * A bring-up query answering garbage after its status (the n-th execution
 * of the opcode, seeded): the driver either comes up on what it read,
 * within the bounds it checks, or fails cleanly; no memory error, every
 * page back, and the same device comes up once the garbage is spent.
 */
struct garbage_case {
	u16 opcode;
	u32 nth;
};

static const struct garbage_case garbage_cases[] = {
	{ MLX5_CMD_OP_QUERY_ISSI, 1 },
	{ MLX5_CMD_OP_QUERY_PAGES, 2 },
	{ MLX5_CMD_OP_QUERY_HCA_CAP, 1 },
	{ MLX5_CMD_OP_QUERY_HCA_CAP, 2 },
	{ MLX5_CMD_OP_QUERY_HCA_CAP, 3 },
	{ MLX5_CMD_OP_QUERY_HCA_CAP, 4 },
	{ MLX5_CMD_OP_QUERY_HCA_CAP, 5 },
	{ MLX5_CMD_OP_QUERY_HCA_CAP, 6 },
};

static void garbage_desc(const struct garbage_case *g, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, execution %u",
		 mlx5sp_cmd_opcode_str(g->opcode), g->nth);
}

KUNIT_ARRAY_PARAM(garbage, garbage_cases, garbage_desc);

/* Once a device has come up, the model stays attached: up again by hand. */
static int garbage_attach(struct sim_ctx *ctx, bool *was_up)
{
	if (*was_up)
		return mlx5sp_model_attach(mlx5sp_sim_model(ctx->sim));
	return mlx5sp_sim_attach(ctx->sim);
}

static void bringup_garbage_output(struct kunit *test)
{
	const struct garbage_case *g = test->param_value;
	struct mlx5sp_sim_stats *st;
	int nseeds = g->opcode == MLX5_CMD_OP_QUERY_PAGES ? 1 : 2;
	bool was_up = false;
	struct sim_ctx *ctx;
	int seed, err, up = 0;

	ctx = sim_up(test, "ku_up6", NULL, false, NULL);
	/*
	 * Two seeds, one where the garbage is a page count: the driver then
	 * gives pages up to its bound, about 30 s under KASAN.
	 */
	for (seed = 1; seed <= nseeds; seed++) {
		mlx5sp_sim_garble_cmd(ctx->sim, g->opcode, g->nth, seed);
		err = garbage_attach(ctx, &was_up);
		st = stats(test, ctx);
		KUNIT_EXPECT_EQ(test, st->cmds_garbled, (u64)seed);
		if (!err) {
			up++;
			was_up = true;
			mlx5sp_model_detach(mlx5sp_sim_model(ctx->sim));
			st = stats(test, ctx);
		}
		KUNIT_EXPECT_EQ_MSG(test, st->pages_held, 0ULL, "seed %d", seed);
		KUNIT_EXPECT_EQ_MSG(test, st->pages_leaked, 0ULL, "seed %d",
				    seed);
	}
	kunit_info(test, "came up %d times of %d on garbage\n", up, nseeds);
	mlx5sp_sim_garble_cmd(ctx->sim, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, garbage_attach(ctx, &was_up), 0);
}

static const u32 missing_caps[] = {
	MLX5SP_SIM_NO_ROCE, MLX5SP_SIM_NO_SIG, MLX5SP_SIM_NO_DRAIN_SIGERR,
	MLX5SP_SIM_NO_UMR,
};

static void missing_cap_desc(const u32 *m, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "missing_caps 0x%x", *m);
}

KUNIT_ARRAY_PARAM(missing_cap, missing_caps, missing_cap_desc);

static void bringup_missing_cap(struct kunit *test)
{
	const u32 *missing = test->param_value;
	struct mlx5sp_sim_params p;
	struct sim_ctx *ctx;
	int err;

	mlx5sp_sim_default_params(&p);
	p.missing_caps = *missing;
	ctx = sim_up(test, "ku_up4", &p, true, &err);
	KUNIT_EXPECT_EQ(test, err, -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->pages_held, 0ULL);
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->pages_leaked, 0ULL);
}

static void bringup_page_storm(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_up5", NULL, true, NULL);
	u64 base = stats(test, ctx)->pages_held;

	KUNIT_ASSERT_EQ(test, mlx5sp_sim_page_storm(ctx->sim, 200, 3), 0);
	KUNIT_EXPECT_TRUE_MSG(test, wait_for(stats(test, ctx)->pages_held == base + 600, 20000),
			      "held %llu", stats(test, ctx)->pages_held);
	KUNIT_ASSERT_EQ(test, mlx5sp_sim_page_storm(ctx->sim, 100, -6), 0);
	KUNIT_EXPECT_TRUE_MSG(test, wait_for(stats(test, ctx)->pages_held == base &&
					     driver_pages(ctx) == base, 20000),
			      "held %llu, driver %u", stats(test, ctx)->pages_held,
			      driver_pages(ctx));
	KUNIT_EXPECT_EQ(test, stats(test, ctx)->eq_overruns, 0ULL);
	destroy_now(ctx);
}

static void health_fatal_syndrome(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_hl0", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 pdn;

	mlx5sp_sim_set_health_syndrome(ctx->sim, MLX5_INITIAL_SEG_HEALTH_SYNDROME_HW_FATAL_ERR);
	KUNIT_EXPECT_TRUE(test, wait_for(mlx5sp_dev_dead(ctx->dev), 10000));
	KUNIT_EXPECT_EQ(test, alloc_pd(ctx->dev, &pdn, out), -ENOLINK);
	/* Teardown of a dead device frees everything without firmware. */
	destroy_now(ctx);
}

static void health_fatal_while_waiting(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_hl1", NULL, true, NULL);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	unsigned long start = jiffies;
	u32 pdn;

	/* A command firmware never answers, then firmware dies: the waiter is woken. */
	mlx5sp_sim_delay_cmd(ctx->sim, MLX5_CMD_OP_ALLOC_PD, U32_MAX, 1);
	mlx5sp_sim_set_health_syndrome(ctx->sim, MLX5_INITIAL_SEG_HEALTH_SYNDROME_FW_INTERNAL_ERR);
	KUNIT_EXPECT_EQ(test, alloc_pd(ctx->dev, &pdn, out), -ENOLINK);
	KUNIT_EXPECT_LT(test, jiffies - start, 20UL * HZ);
	destroy_now(ctx);
}

static void health_counter_stuck(struct kunit *test)
{
	struct sim_ctx *ctx = sim_up(test, "ku_hl2", NULL, true, NULL);

	mlx5sp_sim_stop_health_counter(ctx->sim, true);
	KUNIT_EXPECT_TRUE(test, wait_for(mlx5sp_dev_dead(ctx->dev), 15000));
	destroy_now(ctx);
}

static struct kunit_case bringup_cases[] = {
	KUNIT_CASE(bringup_teardown),
	KUNIT_CASE(bringup_serialised),
	KUNIT_CASE(bringup_two_devices),
	KUNIT_CASE_PARAM(bringup_cmd_fails, bringup_op_gen_params),
	KUNIT_CASE_PARAM(bringup_missing_cap, missing_cap_gen_params),
	KUNIT_CASE_PARAM(bringup_garbage_output, garbage_gen_params),
	KUNIT_CASE_SLOW(bringup_page_storm),
	KUNIT_CASE_SLOW(health_fatal_syndrome),
	KUNIT_CASE_SLOW(health_fatal_while_waiting),
	KUNIT_CASE_SLOW(health_counter_stuck),
	{}
};

static struct kunit_suite bringup_suite = {
	.name = "mlx5sp_bringup",
	.test_cases = bringup_cases,
};

kunit_test_suites(&codec_suite, &cmd_suite, &bringup_suite);

MODULE_DESCRIPTION("KUnit suites for mlx5sp and its software ConnectX");
MODULE_LICENSE("Dual BSD/GPL");
