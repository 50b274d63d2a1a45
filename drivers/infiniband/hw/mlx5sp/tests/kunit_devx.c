// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for DEVX: the driver's allowlist of general commands, and
 * the model's uid rules through its command interface. A command with the
 * uid of one user context may not name an object of another (or of the
 * kernel), uid 0 reaches everything, commands only the driver may issue
 * are refused to users, and objects over user memory use that memory.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/module.h>

#include "ib.h"
#include "sim/buf.h"
#include "sim/cq.h"
#include "sim/mlx5sp_sim.h"
#include "sim/sim.h"
#include "sim/syndromes.h"
#include "sim/uctx.h"

/* ---- suite: the general-command allowlist (no device) ------------------- */

static bool general(u16 opcode)
{
	u32 in[MLX5_ST_SZ_DW(general_obj_in_cmd_hdr)] = {};

	MLX5_SET(general_obj_in_cmd_hdr, in, opcode, opcode);
	return mlx5sp_devx_is_general_cmd(in);
}

static void devx_general_allowlist(struct kunit *test)
{
	static const u16 allowed[] = {
		MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CMD_OP_QUERY_ISSI,
		MLX5_CMD_OP_QUERY_VPORT_STATE, MLX5_CMD_OP_QUERY_ROCE_ADDRESS,
		MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, MLX5_CMD_OP_NOP,
		MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT, MLX5_CMD_OP_QUERY_LAG,
	};
	static const u16 refused[] = {
		MLX5_CMD_OP_ENABLE_HCA, MLX5_CMD_OP_DISABLE_HCA,
		MLX5_CMD_OP_INIT_HCA, MLX5_CMD_OP_TEARDOWN_HCA,
		MLX5_CMD_OP_SET_HCA_CAP, MLX5_CMD_OP_MANAGE_PAGES,
		MLX5_CMD_OP_QUERY_PAGES, MLX5_CMD_OP_CREATE_EQ,
		MLX5_CMD_OP_DESTROY_EQ, MLX5_CMD_OP_ALLOC_UAR,
		MLX5_CMD_OP_CREATE_UCTX, MLX5_CMD_OP_DESTROY_UCTX,
		MLX5_CMD_OP_CREATE_QP, MLX5_CMD_OP_CREATE_MKEY,
		MLX5_CMD_OP_SET_ROCE_ADDRESS, MLX5_CMD_OP_ACCESS_REG,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		KUNIT_EXPECT_TRUE_MSG(test, general(allowed[i]), "0x%x",
				      allowed[i]);
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		KUNIT_EXPECT_FALSE_MSG(test, general(refused[i]), "0x%x",
				       refused[i]);
}

static struct kunit_case devx_logic_cases[] = {
	KUNIT_CASE(devx_general_allowlist),
	{}
};

static struct kunit_suite devx_logic_suite = {
	.name = "mlx5sp_devx_logic",
	.test_cases = devx_logic_cases,
};

/* ---- suite: uid rules of the model -------------------------------------- */

#define U_MAX_PAGES	8
#define U_CQ_LOG	6		/* 64 CQEs: one page */

struct u_dev {
	struct kunit *test;
	struct mlx5sp_sim *sim;
	struct mlx5sp_dev *dev;
	u32 uar;
	void *pages[U_MAX_PAGES];
	int npages;
};

static void u_dev_down(void *data)
{
	struct u_dev *d = data;
	int i;

	mlx5sp_sim_destroy(d->sim);
	for (i = 0; i < d->npages; i++)
		free_page((unsigned long)d->pages[i]);
}

static void *u_page(struct u_dev *d)
{
	void *p;

	KUNIT_ASSERT_LT(d->test, d->npages, U_MAX_PAGES);
	p = (void *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, p);
	d->pages[d->npages++] = p;
	return p;
}

/* The common header: opcode and uid (ALLOC_PD's input is just that). */
static void u_hdr(void *in, u16 opcode, u16 uid)
{
	MLX5_SET(alloc_pd_in, in, opcode, opcode);
	MLX5_SET(alloc_pd_in, in, uid, uid);
}

/* Runs a command; returns its PRM status (0: done), the syndrome in @synd. */
static u8 u_cmd(struct u_dev *d, void *in, int inlen, void *out, int outlen,
		u32 *synd)
{
	mlx5sp_cmd_exec(d->dev, in, inlen, out, outlen);
	if (synd)
		*synd = MLX5SP_CMD_SYNDROME(out);
	return MLX5SP_CMD_STATUS(out);
}

/* The device lives until the test ends (a deferred action frees it). */
static struct u_dev *u_dev_up(struct kunit *test, const char *name)
{
	u32 out[MLX5_ST_SZ_DW(alloc_uar_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_uar_in)] = {};
	struct u_dev *d;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->test = test;
	d->sim = mlx5sp_sim_create(name, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->sim));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, u_dev_down, d));
	KUNIT_ASSERT_EQ(test, mlx5sp_sim_attach(d->sim), 0);
	d->dev = mlx5sp_model_to_dev(mlx5sp_sim_model(d->sim));
	KUNIT_ASSERT_NOT_NULL(test, d->dev);
	MLX5_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	KUNIT_ASSERT_EQ(test, u_cmd(d, in, sizeof(in), out, sizeof(out), NULL),
			0);
	d->uar = MLX5_GET(alloc_uar_out, out, uar);
	return d;
}

static u16 u_uctx(struct u_dev *d)
{
	u32 out[MLX5_ST_SZ_DW(create_uctx_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_uctx_in)] = {};

	MLX5_SET(create_uctx_in, in, opcode, MLX5_CMD_OP_CREATE_UCTX);
	KUNIT_ASSERT_EQ(d->test, u_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	KUNIT_ASSERT_NE(d->test, MLX5_GET(create_uctx_out, out, uid), 0);
	return MLX5_GET(create_uctx_out, out, uid);
}

static u8 u_destroy_uctx(struct u_dev *d, u16 uid, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(destroy_uctx_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_uctx_in)] = {};

	MLX5_SET(destroy_uctx_in, in, opcode, MLX5_CMD_OP_DESTROY_UCTX);
	MLX5_SET(destroy_uctx_in, in, uid, uid);
	return u_cmd(d, in, sizeof(in), out, sizeof(out), synd);
}

static u8 u_alloc_pd(struct u_dev *d, u16 uid, u32 *pd)
{
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	u8 status;

	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	MLX5_SET(alloc_pd_in, in, uid, uid);
	status = u_cmd(d, in, sizeof(in), out, sizeof(out), NULL);
	*pd = MLX5_GET(alloc_pd_out, out, pd);
	return status;
}

static u8 u_dealloc_pd(struct u_dev *d, u16 uid, u32 pd, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(dealloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(dealloc_pd_in)] = {};

	MLX5_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	MLX5_SET(dealloc_pd_in, in, uid, uid);
	MLX5_SET(dealloc_pd_in, in, pd, pd);
	return u_cmd(d, in, sizeof(in), out, sizeof(out), synd);
}

/* A CQ in one kernel page, or over a umem (@umem != 0) */
static u8 u_create_cq(struct u_dev *d, u16 uid, u32 umem, u32 *cqn, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(create_cq_in) + 8;
	void *in, *cqc;
	u8 status;

	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	MLX5_SET(create_cq_in, in, uid, uid);
	MLX5_SET(cqc, cqc, log_cq_size, U_CQ_LOG);
	MLX5_SET(cqc, cqc, uar_page, d->uar);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, d->dev->async_eq.eqn);
	if (umem) {
		/* buffer at 0, doorbell record in the second page */
		MLX5_SET(create_cq_in, in, cq_umem_valid, 1);
		mlx5sp_set_dw(in, MLX5SP_CREATE_CQ_UMEM_ID, umem);
		MLX5_SET(cqc, cqc, dbr_umem_valid, 1);
		mlx5sp_set_dw(cqc, MLX5SP_CQC_DBR_UMEM_ID, umem);
		MLX5_SET64(cqc, cqc, dbr_addr, SZ_4K);
		inlen = MLX5_ST_SZ_BYTES(create_cq_in);
	} else {
		MLX5_SET64(cqc, cqc, dbr_addr, virt_to_phys(u_page(d)));
		*(__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas) =
			cpu_to_be64(virt_to_phys(u_page(d)));
	}
	status = u_cmd(d, in, inlen, out, sizeof(out), synd);
	*cqn = MLX5_GET(create_cq_out, out, cqn);
	return status;
}

static u8 u_cq_cmd(struct u_dev *d, u16 opcode, u16 uid, u32 cqn, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(query_cq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_cq_in)] = {};

	/* destroy_cq_in and query_cq_in share the layout */
	u_hdr(in, opcode, uid);
	MLX5_SET(query_cq_in, in, cqn, cqn);
	return u_cmd(d, in, sizeof(in), out, sizeof(out), synd);
}

/* Two pages of user memory: what DEVX_UMEM_REG hands firmware. */
static u8 u_create_umem(struct u_dev *d, u16 uid, void **mem, u32 *id,
			u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(create_umem_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(create_umem_in) + 2 * MLX5_ST_SZ_BYTES(mtt);
	void *in, *um, *mtt;
	u8 status;
	int i;

	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	um = MLX5_ADDR_OF(create_umem_in, in, umem);
	MLX5_SET(create_umem_in, in, opcode, MLX5_CMD_OP_CREATE_UMEM);
	MLX5_SET(create_umem_in, in, uid, uid);
	MLX5_SET64(umem, um, num_of_mtt, 2);
	for (i = 0; i < 2; i++) {
		u64 pa;

		mem[i] = u_page(d);
		pa = virt_to_phys(mem[i]);
		mtt = MLX5_ADDR_OF(umem, um, mtt[i]);
		MLX5_SET(mtt, mtt, ptag_63_32, upper_32_bits(pa));
		MLX5_SET(mtt, mtt, ptag_31_8, lower_32_bits(pa) >> 8);
		MLX5_SET(mtt, mtt, rd_en, 1);
		MLX5_SET(mtt, mtt, wr_en, 1);
	}
	status = u_cmd(d, in, inlen, out, sizeof(out), synd);
	*id = MLX5_GET(create_umem_out, out, umem_id);
	return status;
}

static u8 u_destroy_umem(struct u_dev *d, u16 uid, u32 id, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(destroy_umem_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_umem_in)] = {};

	MLX5_SET(destroy_umem_in, in, opcode, MLX5_CMD_OP_DESTROY_UMEM);
	MLX5_SET(destroy_umem_in, in, uid, uid);
	MLX5_SET(destroy_umem_in, in, umem_id, id);
	return u_cmd(d, in, sizeof(in), out, sizeof(out), synd);
}

/* uid X may not name uid Y's objects or the kernel's; uid 0 names all. */
static void uid_confines_objects(struct kunit *test)
{
	struct u_dev *d;
	u32 pd_a, pd_k, cq_a, synd;
	u16 a, b;

	d = u_dev_up(test, "kdx0");
	a = u_uctx(d);
	b = u_uctx(d);
	KUNIT_EXPECT_NE(test, a, b);

	KUNIT_ASSERT_EQ(test, u_alloc_pd(d, a, &pd_a), 0);
	KUNIT_ASSERT_EQ(test, u_alloc_pd(d, 0, &pd_k), 0);
	KUNIT_EXPECT_EQ(test, sim_obj_uid(d->sim, SIM_OBJ_PD, pd_a), a);
	KUNIT_EXPECT_EQ(test, sim_obj_uid(d->sim, SIM_OBJ_PD, pd_k), 0);

	/* another user, and a user on the kernel's */
	KUNIT_EXPECT_EQ(test, u_dealloc_pd(d, b, pd_a, &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UID_MISMATCH);
	KUNIT_EXPECT_EQ(test, u_dealloc_pd(d, a, pd_k, &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);

	KUNIT_ASSERT_EQ(test, u_create_cq(d, a, 0, &cq_a, NULL), 0);
	KUNIT_EXPECT_EQ(test, u_cq_cmd(d, MLX5_CMD_OP_QUERY_CQ, b, cq_a, &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UID_MISMATCH);
	KUNIT_EXPECT_EQ(test, u_cq_cmd(d, MLX5_CMD_OP_QUERY_CQ, a, cq_a, NULL),
			0);
	KUNIT_EXPECT_EQ(test, u_cq_cmd(d, MLX5_CMD_OP_QUERY_CQ, 0, cq_a, NULL),
			0);

	/* a uid that was never created */
	KUNIT_EXPECT_EQ(test, u_cq_cmd(d, MLX5_CMD_OP_QUERY_CQ, 0x3ff, cq_a,
				       &synd), MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UID_INVALID);

	/* a context with objects stays; the kernel frees them, then it goes */
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, a, &synd),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UCTX_IN_USE);
	KUNIT_EXPECT_EQ(test, u_cq_cmd(d, MLX5_CMD_OP_DESTROY_CQ, 0, cq_a,
				       NULL), 0);
	KUNIT_EXPECT_EQ(test, u_dealloc_pd(d, a, pd_a, NULL), 0);
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, a, NULL), 0);
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, a, &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, b, NULL), 0);
	KUNIT_EXPECT_EQ(test, u_dealloc_pd(d, 0, pd_k, NULL), 0);
}

/* A QP or MKEY of a user names that user's PD and CQs only. */
static void uid_create_names_own_objects(struct kunit *test)
{
	u32 out[MLX5_ST_SZ_DW(create_mkey_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(create_mkey_in);
	struct u_dev *d;
	u32 pd_a, pd_b, synd;
	void *in, *mkc;
	u16 a, b;

	d = u_dev_up(test, "kdx1");
	a = u_uctx(d);
	b = u_uctx(d);
	KUNIT_ASSERT_EQ(test, u_alloc_pd(d, a, &pd_a), 0);
	KUNIT_ASSERT_EQ(test, u_alloc_pd(d, b, &pd_b), 0);

	/* a free (UMR-style) MTT key: no memory, only its PD */
	in = kunit_kzalloc(test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MLX5_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	MLX5_SET(create_mkey_in, in, uid, a);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, log_page_size, PAGE_SHIFT);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, pd, pd_b);
	KUNIT_EXPECT_EQ(test, u_cmd(d, in, inlen, out, sizeof(out), &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UID_MISMATCH);
	MLX5_SET(mkc, mkc, pd, pd_a);
	KUNIT_EXPECT_EQ(test, u_cmd(d, in, inlen, out, sizeof(out), NULL), 0);
	KUNIT_EXPECT_EQ(test, sim_obj_uid(d->sim, SIM_OBJ_MKEY,
					  MLX5_GET(create_mkey_out, out,
						   mkey_index)), a);
}

/* Commands only the driver issues are refused to users. */
static void uid_forbidden_commands(struct kunit *test)
{
	int olen = MLX5_ST_SZ_BYTES(query_hca_cap_out);
	u32 in[MLX5_ST_SZ_DW(create_eq_in)] = {};
	static const u16 ops[] = {
		MLX5_CMD_OP_CREATE_EQ, MLX5_CMD_OP_QUERY_PAGES,
		MLX5_CMD_OP_ALLOC_UAR, MLX5_CMD_OP_SET_ROCE_ADDRESS,
		MLX5_CMD_OP_CREATE_UCTX, MLX5_CMD_OP_TEARDOWN_HCA,
	};
	struct u_dev *d;
	void *out;
	u32 synd;
	u16 a;
	int i;

	d = u_dev_up(test, "kdx2");
	out = kunit_kzalloc(test, olen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	a = u_uctx(d);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		memset(in, 0, sizeof(in));
		u_hdr(in, ops[i], a);
		KUNIT_EXPECT_EQ_MSG(test, u_cmd(d, in, sizeof(in), out, olen,
						&synd),
				    MLX5_CMD_STAT_BAD_PARAM_ERR, "0x%x", ops[i]);
		KUNIT_EXPECT_EQ_MSG(test, synd, MLX5SP_SIM_SYND_UID_NOT_ALLOWED,
				    "0x%x", ops[i]);
	}
	/* and the queries a user may make run */
	memset(in, 0, sizeof(in));
	u_hdr(in, MLX5_CMD_OP_QUERY_HCA_CAP, a);
	MLX5_SET(query_hca_cap_in, in, op_mod,
		 MLX5_SET_HCA_CAP_OP_MOD_GENERAL_DEVICE << 1 | 1);
	KUNIT_EXPECT_EQ(test, u_cmd(d, in, MLX5_ST_SZ_BYTES(query_hca_cap_in),
				    out, olen, NULL), 0);
	KUNIT_EXPECT_NE(test, MLX5_GET(query_hca_cap_out, out,
				       capability.cmd_hca_cap.log_max_uctx), 0);
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, a, NULL), 0);
}

/* A CQ over a umem uses its pages; only the umem's user may use it. */
static void umem_backs_objects(struct kunit *test)
{
	struct u_dev *d;
	u32 umem, cqn, cq_b, synd;
	struct sim_cq *cq;
	void *mem[2];
	u16 a, b;

	d = u_dev_up(test, "kdx3");
	a = u_uctx(d);
	b = u_uctx(d);
	KUNIT_ASSERT_EQ(test, u_create_umem(d, a, mem, &umem, NULL), 0);
	KUNIT_EXPECT_EQ(test, sim_obj_uid(d->sim, SIM_OBJ_UMEM, umem), a);

	KUNIT_EXPECT_EQ(test, u_create_cq(d, b, umem, &cq_b, &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UMEM_NOT_FOUND);
	KUNIT_ASSERT_EQ(test, u_create_cq(d, a, umem, &cqn, NULL), 0);

	/* the buffer is the umem's first page, the doorbell its second */
	rcu_read_lock();
	cq = xa_load(&d->sim->cqs, cqn);
	KUNIT_EXPECT_NOT_NULL(test, cq);
	if (cq) {
		KUNIT_EXPECT_PTR_EQ(test, (void *)cq->dbr, mem[1]);
		KUNIT_EXPECT_PTR_EQ(test, sim_buf_at(&cq->buf, 0), mem[0]);
	}
	rcu_read_unlock();

	KUNIT_EXPECT_EQ(test, u_destroy_umem(d, a, umem, &synd),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_UMEM_IN_USE);
	KUNIT_EXPECT_EQ(test, u_destroy_umem(d, b, umem, &synd),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, u_cq_cmd(d, MLX5_CMD_OP_DESTROY_CQ, a, cqn, NULL),
			0);
	KUNIT_EXPECT_EQ(test, u_destroy_umem(d, a, umem, NULL), 0);
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, a, NULL), 0);
	KUNIT_EXPECT_EQ(test, u_destroy_uctx(d, b, NULL), 0);
}

static struct kunit_case devx_uid_cases[] = {
	KUNIT_CASE(uid_confines_objects),
	KUNIT_CASE(uid_create_names_own_objects),
	KUNIT_CASE(uid_forbidden_commands),
	KUNIT_CASE(umem_backs_objects),
	{}
};

static struct kunit_suite devx_uid_suite = {
	.name = "mlx5sp_devx_uid",
	.test_cases = devx_uid_cases,
};

kunit_test_suites(&devx_logic_suite, &devx_uid_suite);
