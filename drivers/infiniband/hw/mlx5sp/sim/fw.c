// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The command processor of the software ConnectX: picks up rung slots,
 * checks the descriptor and its mailbox chains (delivery), runs the
 * command through the dispatch table and completes it: output, ownership
 * and, when an EQ asks for it, a command-completion EQE.
 *
 * Everything runs on the device's workqueue under fw_lock; a delayed
 * command waits in its slot's delayed work, so other slots go on.
 */

#include <linux/mm.h>
#include <linux/slab.h>

#include "counters.h"
#include "cq.h"
#include "dma.h"
#include "eq.h"
#include "eth_wq.h"
#include "fault.h"
#include "mkey.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "pages.h"
#include "port.h"
#include "qp.h"
#include "roce.h"
#include "sig.h"
#include "sim.h"
#include "steer.h"
#include "syndromes.h"
#include "uctx.h"
#include "wire.h"

#define SIM_CMD_INLINE		16	/* bytes of in[] / out[] in the layout */
#define SIM_CMD_MIN_LEN		8	/* opcode/op_mod, status/syndrome */
#define SIM_OWNER_HW		0x1

typedef int (*sim_cmd_fn)(struct sim_cmd *c);

struct sim_cmd_desc {
	u16 opcode;
	bool op_mod_used;	/* else op_mod must be 0 */
	bool port;		/* the NIC of a cabled port: unknown without */
	u8 states;		/* SIM_ST() mask the command runs in */
	u32 inlen;		/* minimum lengths: the command's layout */
	u32 outlen;
	const char *name;
	sim_cmd_fn fn;
};

#define SIM_CMD(op, in_t, out_t, st, opm, handler) {			\
	.opcode = MLX5_CMD_OP_##op,					\
	.op_mod_used = opm,						\
	.states = st,							\
	.inlen = MLX5_ST_SZ_BYTES(in_t),				\
	.outlen = MLX5_ST_SZ_BYTES(out_t),				\
	.name = #op,							\
	.fn = handler,							\
}

/* A command of the cabled port's NIC (port.c, steer.c, eth_*.c) */
#define SIM_PORT_CMD(op, in_t, out_t, opm, handler) {			\
	.opcode = MLX5_CMD_OP_##op,					\
	.op_mod_used = opm,						\
	.port = true,							\
	.states = SIM_ST(INITIALIZED),					\
	.inlen = MLX5_ST_SZ_BYTES(in_t),				\
	.outlen = MLX5_ST_SZ_BYTES(out_t),				\
	.name = #op,							\
	.fn = handler,							\
}

#define SIM_ST_ENABLED	(SIM_ST(ENABLED) | SIM_ST(INITIALIZED))
#define SIM_ST_INIT	SIM_ST(INITIALIZED)

static const struct sim_cmd_desc sim_cmds[] = {
	{
		/* the output need only hold the queried type's layout */
		.opcode = MLX5_CMD_OP_QUERY_HCA_CAP,
		.op_mod_used = true,
		.states = SIM_ST_ENABLED,
		.inlen = MLX5_ST_SZ_BYTES(query_hca_cap_in),
		.outlen = MLX5_BYTE_OFF(query_hca_cap_out, capability),
		.name = "QUERY_HCA_CAP",
		.fn = sim_cmd_query_hca_cap,
	},
	SIM_CMD(INIT_HCA, init_hca_in, init_hca_out,
		SIM_ST(ENABLED), false, sim_cmd_init_hca),
	SIM_CMD(TEARDOWN_HCA, teardown_hca_in, teardown_hca_out,
		SIM_ST_INIT, true, sim_cmd_teardown_hca),
	SIM_CMD(ENABLE_HCA, enable_hca_in, enable_hca_out,
		SIM_ST(CMDQ_READY), false, sim_cmd_enable_hca),
	SIM_CMD(DISABLE_HCA, disable_hca_in, disable_hca_out,
		SIM_ST_ENABLED, false, sim_cmd_disable_hca),
	SIM_CMD(QUERY_PAGES, query_pages_in, query_pages_out,
		SIM_ST_ENABLED, true, sim_cmd_query_pages),
	SIM_CMD(MANAGE_PAGES, manage_pages_in, manage_pages_out,
		SIM_ST_ENABLED, true, sim_cmd_manage_pages),
	SIM_CMD(SET_HCA_CAP, set_hca_cap_in, set_hca_cap_out,
		SIM_ST(ENABLED), true, sim_cmd_set_hca_cap),
	SIM_CMD(QUERY_ISSI, query_issi_in, query_issi_out,
		SIM_ST_ENABLED, false, sim_cmd_query_issi),
	SIM_CMD(SET_ISSI, set_issi_in, set_issi_out,
		SIM_ST(ENABLED), false, sim_cmd_set_issi),
	SIM_CMD(CREATE_EQ, create_eq_in, create_eq_out,
		SIM_ST_INIT, false, sim_cmd_create_eq),
	SIM_CMD(DESTROY_EQ, destroy_eq_in, destroy_eq_out,
		SIM_ST_INIT, false, sim_cmd_destroy_eq),
	SIM_CMD(QUERY_EQ, query_eq_in, query_eq_out,
		SIM_ST_INIT, false, sim_cmd_query_eq),
	SIM_CMD(ALLOC_PD, alloc_pd_in, alloc_pd_out,
		SIM_ST_INIT, false, sim_cmd_alloc_pd),
	SIM_CMD(DEALLOC_PD, dealloc_pd_in, dealloc_pd_out,
		SIM_ST_INIT, false, sim_cmd_dealloc_pd),
	SIM_CMD(ALLOC_UAR, alloc_uar_in, alloc_uar_out,
		SIM_ST_INIT, false, sim_cmd_alloc_uar),
	SIM_CMD(DEALLOC_UAR, dealloc_uar_in, dealloc_uar_out,
		SIM_ST_INIT, false, sim_cmd_dealloc_uar),
	SIM_CMD(CREATE_MKEY, create_mkey_in, create_mkey_out,
		SIM_ST_INIT, false, sim_cmd_create_mkey),
	SIM_CMD(DESTROY_MKEY, destroy_mkey_in, destroy_mkey_out,
		SIM_ST_INIT, false, sim_cmd_destroy_mkey),
	SIM_CMD(QUERY_MKEY, query_mkey_in, query_mkey_out,
		SIM_ST_INIT, false, sim_cmd_query_mkey),
	SIM_CMD(CREATE_PSV, create_psv_in, create_psv_out,
		SIM_ST_INIT, false, sim_cmd_create_psv),
	SIM_CMD(DESTROY_PSV, destroy_psv_in, destroy_psv_out,
		SIM_ST_INIT, false, sim_cmd_destroy_psv),
	SIM_CMD(CREATE_CQ, create_cq_in, create_cq_out,
		SIM_ST_INIT, false, sim_cmd_create_cq),
	SIM_CMD(DESTROY_CQ, destroy_cq_in, destroy_cq_out,
		SIM_ST_INIT, false, sim_cmd_destroy_cq),
	SIM_CMD(QUERY_CQ, query_cq_in, query_cq_out,
		SIM_ST_INIT, false, sim_cmd_query_cq),
	SIM_CMD(MODIFY_CQ, modify_cq_in, modify_cq_out,
		SIM_ST_INIT, true, sim_cmd_modify_cq),
	SIM_CMD(CREATE_QP, create_qp_in, create_qp_out,
		SIM_ST_INIT, false, sim_cmd_create_qp),
	SIM_CMD(DESTROY_QP, destroy_qp_in, destroy_qp_out,
		SIM_ST_INIT, false, sim_cmd_destroy_qp),
	{
		/* no PAS come back: the output need only hold the context */
		.opcode = MLX5_CMD_OP_QUERY_QP,
		.states = SIM_ST_INIT,
		.inlen = MLX5_ST_SZ_BYTES(query_qp_in),
		.outlen = MLX5_BYTE_OFF(query_qp_out,
					qp_pas_or_qpc_ext_and_pas),
		.name = "QUERY_QP",
		.fn = sim_cmd_query_qp,
	},
	SIM_CMD(RST2INIT_QP, rst2init_qp_in, rst2init_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(INIT2INIT_QP, init2init_qp_in, init2init_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(INIT2RTR_QP, init2rtr_qp_in, init2rtr_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(RTR2RTS_QP, rtr2rts_qp_in, rtr2rts_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(RTS2RTS_QP, rts2rts_qp_in, rts2rts_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(SQERR2RTS_QP, sqerr2rts_qp_in, sqerr2rts_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(SQD_RTS_QP, sqd2rts_qp_in, sqd2rts_qp_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(2ERR_QP, qp_2err_in, qp_2err_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(2RST_QP, qp_2rst_in, qp_2rst_out,
		SIM_ST_INIT, false, sim_cmd_modify_qp),
	SIM_CMD(CREATE_SRQ, create_srq_in, create_srq_out,
		SIM_ST_INIT, false, sim_cmd_create_srq),
	SIM_CMD(DESTROY_SRQ, destroy_srq_in, destroy_srq_out,
		SIM_ST_INIT, false, sim_cmd_destroy_srq),
	SIM_CMD(QUERY_SRQ, query_srq_in, query_srq_out,
		SIM_ST_INIT, false, sim_cmd_query_srq),
	SIM_CMD(ARM_RQ, arm_rq_in, arm_rq_out,
		SIM_ST_INIT, true, sim_cmd_arm_rq),
	{
		.opcode = MLX5SP_CMD_OP_RTS2SQD_QP,
		.states = SIM_ST_INIT,
		.inlen = MLX5_ST_SZ_BYTES(qp_2err_in),
		.outlen = MLX5_ST_SZ_BYTES(qp_2err_out),
		.name = "RTS2SQD_QP",
		.fn = sim_cmd_modify_qp,
	},
	SIM_CMD(SET_ROCE_ADDRESS, set_roce_address_in, set_roce_address_out,
		SIM_ST_INIT, false, sim_cmd_set_roce_address),
	SIM_CMD(QUERY_ROCE_ADDRESS, query_roce_address_in,
		query_roce_address_out, SIM_ST_INIT, false,
		sim_cmd_query_roce_address),
	SIM_CMD(QUERY_VPORT_STATE, query_vport_state_in,
		query_vport_state_out, SIM_ST_INIT, true,
		sim_cmd_query_vport_state),
	SIM_CMD(QUERY_NIC_VPORT_CONTEXT, query_nic_vport_context_in,
		query_nic_vport_context_out, SIM_ST_INIT, false,
		sim_cmd_query_nic_vport_context),
	SIM_CMD(ALLOC_TRANSPORT_DOMAIN, alloc_transport_domain_in,
		alloc_transport_domain_out, SIM_ST_INIT, false,
		sim_cmd_alloc_transport_domain),
	SIM_CMD(DEALLOC_TRANSPORT_DOMAIN, dealloc_transport_domain_in,
		dealloc_transport_domain_out, SIM_ST_INIT, false,
		sim_cmd_dealloc_transport_domain),
	SIM_CMD(ALLOC_Q_COUNTER, alloc_q_counter_in, alloc_q_counter_out,
		SIM_ST_INIT, false, sim_cmd_alloc_q_counter),
	SIM_CMD(DEALLOC_Q_COUNTER, dealloc_q_counter_in,
		dealloc_q_counter_out, SIM_ST_INIT, false,
		sim_cmd_dealloc_q_counter),
	SIM_CMD(QUERY_Q_COUNTER, query_q_counter_in, query_q_counter_out,
		SIM_ST_INIT, false, sim_cmd_query_q_counter),
	SIM_CMD(QUERY_CONG_STATISTICS, query_cong_statistics_in,
		query_cong_statistics_out, SIM_ST_INIT, false,
		sim_cmd_query_cong_statistics),
	SIM_CMD(CREATE_UCTX, create_uctx_in, create_uctx_out,
		SIM_ST_INIT, false, sim_cmd_create_uctx),
	SIM_CMD(DESTROY_UCTX, destroy_uctx_in, destroy_uctx_out,
		SIM_ST_INIT, false, sim_cmd_destroy_uctx),
	SIM_CMD(CREATE_UMEM, create_umem_in, create_umem_out,
		SIM_ST_INIT, false, sim_cmd_create_umem),
	SIM_CMD(DESTROY_UMEM, destroy_umem_in, destroy_umem_out,
		SIM_ST_INIT, false, sim_cmd_destroy_umem),
	{
		/* the register's data follows: its handler checks the sizes */
		.opcode = MLX5_CMD_OP_ACCESS_REG,
		.op_mod_used = true,
		.port = true,
		.states = SIM_ST_INIT,
		.inlen = MLX5_BYTE_OFF(access_register_in, register_data),
		.outlen = MLX5_BYTE_OFF(access_register_out, register_data),
		.name = "ACCESS_REG",
		.fn = sim_cmd_access_reg,
	},
	SIM_PORT_CMD(MODIFY_NIC_VPORT_CONTEXT, modify_nic_vport_context_in,
		     modify_nic_vport_context_out, false,
		     sim_cmd_modify_nic_vport_context),
	SIM_PORT_CMD(CREATE_TIS, create_tis_in, create_tis_out, false,
		     sim_cmd_create_tis),
	SIM_PORT_CMD(DESTROY_TIS, destroy_tis_in, destroy_tis_out, false,
		     sim_cmd_destroy_tis),
	SIM_PORT_CMD(CREATE_TIR, create_tir_in, create_tir_out, false,
		     sim_cmd_create_tir),
	SIM_PORT_CMD(DESTROY_TIR, destroy_tir_in, destroy_tir_out, false,
		     sim_cmd_destroy_tir),
	SIM_PORT_CMD(CREATE_SQ, create_sq_in, create_sq_out, false,
		     sim_cmd_create_sq),
	SIM_PORT_CMD(MODIFY_SQ, modify_sq_in, modify_sq_out, false,
		     sim_cmd_modify_sq),
	SIM_PORT_CMD(QUERY_SQ, query_sq_in, query_sq_out, false,
		     sim_cmd_query_sq),
	SIM_PORT_CMD(DESTROY_SQ, destroy_sq_in, destroy_sq_out, false,
		     sim_cmd_destroy_sq),
	SIM_PORT_CMD(CREATE_RQ, create_rq_in, create_rq_out, false,
		     sim_cmd_create_rq),
	SIM_PORT_CMD(MODIFY_RQ, modify_rq_in, modify_rq_out, false,
		     sim_cmd_modify_rq),
	SIM_PORT_CMD(QUERY_RQ, query_rq_in, query_rq_out, false,
		     sim_cmd_query_rq),
	SIM_PORT_CMD(DESTROY_RQ, destroy_rq_in, destroy_rq_out, false,
		     sim_cmd_destroy_rq),
	SIM_PORT_CMD(CREATE_FLOW_TABLE, create_flow_table_in,
		     create_flow_table_out, false, sim_cmd_create_flow_table),
	SIM_PORT_CMD(DESTROY_FLOW_TABLE, destroy_flow_table_in,
		     destroy_flow_table_out, false, sim_cmd_destroy_flow_table),
	SIM_PORT_CMD(CREATE_FLOW_GROUP, create_flow_group_in,
		     create_flow_group_out, false, sim_cmd_create_flow_group),
	SIM_PORT_CMD(DESTROY_FLOW_GROUP, destroy_flow_group_in,
		     destroy_flow_group_out, false, sim_cmd_destroy_flow_group),
	SIM_PORT_CMD(SET_FLOW_TABLE_ENTRY, set_fte_in, set_fte_out, true,
		     sim_cmd_set_fte),
	SIM_PORT_CMD(DELETE_FLOW_TABLE_ENTRY, delete_fte_in, delete_fte_out,
		     false, sim_cmd_delete_fte),
	SIM_PORT_CMD(SET_FLOW_TABLE_ROOT, set_flow_table_root_in,
		     set_flow_table_root_out, true,
		     sim_cmd_set_flow_table_root),
};

static const struct sim_cmd_desc *sim_cmd_find(u16 opcode)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sim_cmds); i++)
		if (sim_cmds[i].opcode == opcode)
			return &sim_cmds[i];
	return NULL;
}

const char *sim_cmd_name(u16 opcode)
{
	const struct sim_cmd_desc *d = sim_cmd_find(opcode);

	return d ? d->name : "UNKNOWN";
}

/* A mailbox chain, checked and mapped before the command runs. */
struct sim_chain {
	u32 nblocks;
	struct mlx5_cmd_prot_block **blocks;
};

static u8 sim_xor8(const void *buf, size_t len)
{
	const u8 *p = buf;
	u8 sum = 0;

	while (len--)
		sum ^= *p++;
	return sum;
}

/* As cmd.c signs them: ctrl_sig over rsvd0..token, sig over the block. */
static bool sim_block_sig_ok(const struct mlx5_cmd_prot_block *b)
{
	size_t rsvd0 = offsetof(struct mlx5_cmd_prot_block, rsvd0);
	size_t ctrl = offsetof(struct mlx5_cmd_prot_block, sig) - rsvd0;

	return sim_xor8((const u8 *)b + rsvd0, ctrl) == 0xff &&
	       sim_xor8(b, sizeof(*b)) == 0xff;
}

static void sim_block_sign(struct mlx5_cmd_prot_block *b)
{
	size_t rsvd0 = offsetof(struct mlx5_cmd_prot_block, rsvd0);
	size_t ctrl = offsetof(struct mlx5_cmd_prot_block, ctrl_sig) - rsvd0;

	b->ctrl_sig = ~sim_xor8((const u8 *)b + rsvd0, ctrl);
	b->sig = ~sim_xor8(b, sizeof(*b) - 1);
}

static u32 sim_nblocks(u32 len)
{
	return len > SIM_CMD_INLINE ?
	       DIV_ROUND_UP(len - SIM_CMD_INLINE, MLX5_CMD_DATA_BLOCK_SIZE) : 0;
}

/* Returns a delivery status; on success chain->blocks maps every block. */
static u8 sim_chain_map(struct mlx5sp_sim *sim, u64 ptr, u32 len, u8 token,
			bool input, bool verify, struct sim_chain *chain)
{
	struct mlx5_cmd_prot_block *b;
	u32 i;

	chain->nblocks = sim_nblocks(len);
	if (!chain->nblocks)
		return MLX5SP_CMD_DELIVERY_OK;
	chain->blocks = kvmalloc_array(chain->nblocks, sizeof(*chain->blocks),
				       GFP_KERNEL);
	if (!chain->blocks)
		return MLX5SP_CMD_DELIVERY_FW_ERR;

	for (i = 0; i < chain->nblocks; i++) {
		if (!IS_ALIGNED(ptr, MLX5SP_CMD_MBOX_ALIGN))
			return input ? MLX5SP_CMD_DELIVERY_IN_PTR_ALIGN_ERR :
				       MLX5SP_CMD_DELIVERY_OUT_PTR_ALIGN_ERR;
		b = sim_dma_ptr(sim, ptr, sizeof(*b), MLX5SP_CMD_MBOX_ALIGN);
		if (!b)
			return MLX5SP_CMD_DELIVERY_FW_ERR;
		/* a cycle in the chain shows up as a wrong block number */
		if (be32_to_cpu(READ_ONCE(b->block_num)) != i)
			return MLX5SP_CMD_DELIVERY_BAD_BLOCK_NUM_ERR;
		if (READ_ONCE(b->token) != token)
			return MLX5SP_CMD_DELIVERY_TOKEN_ERR;
		if (input && verify && !sim_block_sig_ok(b))
			return MLX5SP_CMD_DELIVERY_SIGNATURE_ERR;
		chain->blocks[i] = b;
		ptr = be64_to_cpu(READ_ONCE(b->next));
	}
	return MLX5SP_CMD_DELIVERY_OK;
}

static void sim_chain_free(struct sim_chain *chain)
{
	kvfree(chain->blocks);
	chain->blocks = NULL;
}

static void sim_chain_read(const struct sim_chain *chain, u8 *buf, u32 len)
{
	u32 i, n;

	for (i = 0; i < chain->nblocks; i++) {
		n = min_t(u32, len, MLX5_CMD_DATA_BLOCK_SIZE);
		memcpy(buf, chain->blocks[i]->data, n);
		buf += n;
		len -= n;
	}
}

static void sim_chain_write(const struct sim_chain *chain, const u8 *buf,
			    u32 len, bool sign)
{
	u32 i, n;

	for (i = 0; i < chain->nblocks; i++) {
		n = min_t(u32, len, MLX5_CMD_DATA_BLOCK_SIZE);
		memcpy(chain->blocks[i]->data, buf, n);
		if (sign)
			sim_block_sign(chain->blocks[i]);
		buf += n;
		len -= n;
	}
}

static u32 sim_state_syndrome(struct mlx5sp_sim *sim, u8 states)
{
	switch (sim->state) {
	case SIM_STATE_INITIALIZED:
		return MLX5SP_SIM_SYND_HCA_ALREADY_INIT;
	case SIM_STATE_ENABLED:
		if (states & SIM_ST(CMDQ_READY))
			return MLX5SP_SIM_SYND_FUNC_ALREADY_ENABLED;
		return MLX5SP_SIM_SYND_HCA_NOT_INITIALIZED;
	default:
		return MLX5SP_SIM_SYND_FUNC_NOT_ENABLED;
	}
}

static bool sim_fault_fail(struct mlx5sp_sim *sim, struct sim_cmd *c)
{
	struct sim_fault *f = &sim->inject.cmd;
	unsigned long flags;
	bool hit = false;

	spin_lock_irqsave(&sim->inject.lock, flags);
	if (f->fail_nth && !--f->fail_nth) {
		/* as firmware fails a command: a status and a syndrome */
		c->status = f->fail_status ?: MLX5_CMD_STAT_INT_ERR;
		c->syndrome = f->fail_syndrome ?: MLX5SP_SIM_SYND_FAIL_NTH;
		hit = true;
	} else if (f->fail_count && f->fail_opcode == c->opcode) {
		f->fail_count--;
		c->status = f->fail_status;
		c->syndrome = f->fail_syndrome;
		hit = true;
	}
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	return hit;
}

/*
 * A command with a uid runs only if the user context may issue it on the
 * objects it names; umem references become the page lists the handler
 * knows; what it creates is recorded with its uid (uctx.c).
 */
static void sim_cmd_run_uid(struct sim_cmd *c, const struct sim_cmd_desc *d)
{
	const void *in = c->in;
	u32 inlen = c->inlen;
	void *nin;
	u64 pair;

	if (sim_uid_admit(c))
		return;
	if (sim_uid_resolve_umem(c, &nin, &inlen, &pair))
		return;
	if (nin) {
		c->in = nin;
		swap(c->inlen, inlen);
	}
	d->fn(c);
	if (nin) {
		c->in = in;
		c->inlen = inlen;
		kvfree(nin);
	}
	sim_uid_commit(c, pair);
}

static void sim_cmd_dispatch(struct mlx5sp_sim *sim, struct sim_cmd *c)
{
	const struct sim_cmd_desc *d;

	c->opcode = MLX5SP_CMD_OPCODE(c->in);
	c->op_mod = MLX5SP_CMD_OP_MOD(c->in);

	if (sim_fault_fail(sim, c)) {
		sim_stat_inc(sim, cmds_injected);
		return;
	}

	d = sim_cmd_find(c->opcode);
	/* a device without a cable has no NIC: it knows none of its commands */
	if (!d || (d->port && !sim->port.cabled)) {
		sim_fail(c, MLX5_CMD_STAT_BAD_OP_ERR,
			 MLX5SP_SIM_SYND_BAD_OPCODE);
		return;
	}
	if (c->inlen < d->inlen) {
		sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
			 MLX5SP_SIM_SYND_INLEN_SHORT);
		return;
	}
	if (c->outlen < d->outlen) {
		sim_fail(c, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
			 MLX5SP_SIM_SYND_OUTLEN_SHORT);
		return;
	}
	if (!d->op_mod_used && c->op_mod) {
		sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
			 MLX5SP_SIM_SYND_BAD_OP_MOD);
		return;
	}
	if (!(d->states & BIT(sim->state))) {
		sim_fail(c, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
			 sim_state_syndrome(sim, d->states));
		return;
	}
	sim_cmd_run_uid(c, d);
}

static void sim_count_status(struct mlx5sp_sim *sim, u8 status)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->stats_lock, flags);
	sim->stats.cmds_executed++;
	if (status) {
		sim->stats.cmd_errors++;
		if (status < MLX5SP_SIM_NR_STATUS)
			sim->stats.cmd_status[status]++;
		else
			sim->stats.cmd_status_other++;
	}
	spin_unlock_irqrestore(&sim->stats_lock, flags);
}

static void sim_count_delivery(struct mlx5sp_sim *sim, u8 deliv)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->stats_lock, flags);
	sim->stats.delivery_errors++;
	if (deliv < MLX5SP_SIM_NR_DELIVERY)
		sim->stats.delivery_status[deliv]++;
	spin_unlock_irqrestore(&sim->stats_lock, flags);
}

/* Run a delivered command; its own status goes in the output header. */
static void sim_cmd_run(struct mlx5sp_sim *sim, void *in, u32 inlen,
			void *out, u32 outlen)
{
	struct sim_cmd c = {
		.sim = sim,
		.in = in,
		.inlen = inlen,
		.out = out,
		.outlen = outlen,
	};

	sim_cmd_dispatch(sim, &c);
	/* a failed command leaves nothing but the header */
	if (c.status)
		memset(out, 0, outlen);
	MLX5_SET(alloc_pd_out, out, status, c.status);	/* the common header */
	MLX5_SET(alloc_pd_out, out, syndrome, c.syndrome);
	if (!c.status)
		sim_fault_garble(sim, c.opcode, out, outlen);
	sim_count_status(sim, c.status);
	if (c.status)
		sim_dbg(sim, "%s(0x%x) op_mod 0x%x: status 0x%x syndrome 0x%x\n",
			sim_cmd_name(c.opcode), c.opcode, c.op_mod, c.status,
			c.syndrome);

	/* catch pages the driver freed while we held them */
	sim_pages_scribble(sim, SIM_SCRIBBLE_PER_CMD);
}

/* Sign the layout as it will read once ownership returns to software. */
static void sim_layout_sign(struct mlx5_cmd_layout *lay, u8 status_own)
{
	size_t own = offsetof(struct mlx5_cmd_layout, status_own);
	u8 x;

	lay->sig = 0;
	x = sim_xor8(lay, own) ^ status_own;
	lay->sig = ~x;
}

static void sim_layout_complete(struct mlx5_cmd_layout *lay, u8 deliv,
				bool sign)
{
	u8 status_own = deliv << 1;

	if (sign)
		sim_layout_sign(lay, status_own);
	/* output and signature are visible before ownership moves */
	wmb();
	WRITE_ONCE(lay->status_own, status_own);
}

/*
 * Check the descriptor and the chains, run the command, write the output.
 * Returns the delivery status written to the layout.
 */
static u8 sim_cmd_execute(struct mlx5sp_sim *sim, struct mlx5_cmd_layout *lay,
			  u8 slot)
{
	struct sim_chain ich = {}, och = {};
	bool csum = SIM_CAP_GEN(sim, cmdif_checksum);
	u32 inlen, outlen;
	void *in = NULL, *out = NULL;
	u8 deliv;

	if (READ_ONCE(lay->type) != MLX5_PCI_CMD_XPORT) {
		deliv = MLX5SP_CMD_DELIVERY_CMD_DESCR_ERR;
		goto complete;
	}
	if (csum && sim_xor8(lay, sizeof(*lay)) != 0xff) {
		deliv = MLX5SP_CMD_DELIVERY_SIGNATURE_ERR;
		goto complete;
	}
	inlen = be32_to_cpu(READ_ONCE(lay->inlen));
	outlen = be32_to_cpu(READ_ONCE(lay->outlen));
	if (inlen < SIM_CMD_MIN_LEN || inlen > SIM_MAX_MSG_LEN) {
		deliv = MLX5SP_CMD_DELIVERY_IN_LENGTH_ERR;
		goto complete;
	}
	if (outlen < SIM_CMD_MIN_LEN || outlen > SIM_MAX_MSG_LEN) {
		deliv = MLX5SP_CMD_DELIVERY_OUT_LENGTH_ERR;
		goto complete;
	}

	deliv = sim_chain_map(sim, be64_to_cpu(READ_ONCE(lay->in_ptr)), inlen,
			      lay->token, true, csum, &ich);
	if (deliv)
		goto free_chains;
	deliv = sim_chain_map(sim, be64_to_cpu(READ_ONCE(lay->out_ptr)), outlen,
			      lay->token, false, csum, &och);
	if (deliv)
		goto free_chains;

	/* room for the header even when the lengths are shorter */
	in = kvzalloc(max_t(u32, inlen, SIM_CMD_INLINE), GFP_KERNEL);
	out = kvzalloc(max_t(u32, outlen, SIM_CMD_INLINE), GFP_KERNEL);
	if (!in || !out) {
		deliv = MLX5SP_CMD_DELIVERY_FW_ERR;
		goto free_bufs;
	}
	memcpy(in, lay->in, min_t(u32, inlen, SIM_CMD_INLINE));
	if (inlen > SIM_CMD_INLINE)
		sim_chain_read(&ich, in + SIM_CMD_INLINE,
			       inlen - SIM_CMD_INLINE);

	sim_cmd_run(sim, in, inlen, out, outlen);

	memcpy(lay->out, out, min_t(u32, outlen, SIM_CMD_INLINE));
	if (outlen > SIM_CMD_INLINE)
		sim_chain_write(&och, out + SIM_CMD_INLINE,
				outlen - SIM_CMD_INLINE, csum);

free_bufs:
	kvfree(out);
	kvfree(in);
free_chains:
	sim_chain_free(&och);
	sim_chain_free(&ich);
complete:
	if (deliv) {
		sim_count_delivery(sim, deliv);
		sim_err(sim, "slot %u: command delivery error 0x%x\n", slot,
			deliv);
	}
	sim_layout_complete(lay, deliv, csum);
	return deliv;
}

static struct mlx5_cmd_layout *sim_slot_layout(struct mlx5sp_sim *sim,
					       u8 slot)
{
	unsigned long flags;
	u64 base;

	spin_lock_irqsave(&sim->bar.reg_lock, flags);
	base = sim->bar.cmdq_base;
	spin_unlock_irqrestore(&sim->bar.reg_lock, flags);
	if (!base)
		return NULL;
	return sim_dma_ptr(sim, base + ((u64)slot << SIM_LOG_CMDQ_STRIDE),
			   sizeof(struct mlx5_cmd_layout),
			   BIT(SIM_LOG_CMDQ_STRIDE));
}

/* Returns true when the command will complete later (or never). */
static bool sim_slot_delay(struct mlx5sp_sim *sim, struct sim_slot *s,
			   struct mlx5_cmd_layout *lay)
{
	u16 opcode = be32_to_cpu(READ_ONCE(lay->in[0])) >> 16;
	struct sim_fault *f = &sim->inject.cmd;
	unsigned long flags;
	u32 delay_ms = 0;
	bool hit = false;

	spin_lock_irqsave(&sim->inject.lock, flags);
	if (f->delay_count && f->delay_opcode == opcode) {
		f->delay_count--;
		delay_ms = f->delay_ms;
		hit = true;
	}
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	if (!hit)
		return false;

	if (delay_ms == U32_MAX) {
		/* dropped: the slot stays with firmware, nothing is queued */
		sim_stat_inc(sim, cmds_dropped);
		sim_dbg(sim, "%s in slot %u dropped\n", sim_cmd_name(opcode),
			s->idx);
		return true;
	}
	s->busy = true;
	s->token = READ_ONCE(lay->token);
	s->opcode = opcode;
	s->in_ptr = be64_to_cpu(READ_ONCE(lay->in_ptr));
	s->out_ptr = be64_to_cpu(READ_ONCE(lay->out_ptr));
	sim_stat_inc(sim, cmds_delayed);
	queue_delayed_work(sim->wq, &s->dwork, msecs_to_jiffies(delay_ms));
	return true;
}

/* DISABLE_HCA: the function's delayed commands never complete. */
void sim_slots_abort(struct mlx5sp_sim *sim)
{
	int i;

	lockdep_assert_held(&sim->fw_lock);
	for (i = 0; i < SIM_MAX_SLOTS; i++) {
		if (!sim->slots[i].busy)
			continue;
		/* a running work item sees busy clear and does nothing */
		cancel_delayed_work(&sim->slots[i].dwork);
		sim->slots[i].busy = false;
		sim_stat_inc(sim, cmds_stale);
	}
}

static void sim_post_cmd_eqe(struct mlx5sp_sim *sim, u8 slot)
{
	union ev_data data = {};

	data.cmd.vector = cpu_to_be32(BIT(slot));
	sim_eq_post(sim, MLX5_EVENT_TYPE_CMD, 0, &data);
}

/* Returns true when the slot completed now. */
static bool sim_slot_ring(struct mlx5sp_sim *sim, u8 slot)
{
	struct sim_slot *s = &sim->slots[slot];
	struct mlx5_cmd_layout *lay;

	lockdep_assert_held(&sim->fw_lock);

	lay = sim_slot_layout(sim, slot);
	if (lay && sim->state == SIM_STATE_RESET)
		sim->state = SIM_STATE_CMDQ_READY;
	if (!lay || s->busy ||
	    !(READ_ONCE(lay->status_own) & SIM_OWNER_HW)) {
		sim_stat_inc(sim, doorbells_ignored);
		sim_dbg(sim, "doorbell for slot %u ignored\n", slot);
		return false;
	}
	/* the descriptor was written before the doorbell */
	rmb();
	if (sim_slot_delay(sim, s, lay))
		return false;
	sim_cmd_execute(sim, lay, slot);
	return true;
}

void sim_cmd_work(struct work_struct *work)
{
	struct mlx5sp_sim *sim = container_of(work, struct mlx5sp_sim,
					      cmd_work);
	unsigned long pending, done = 0;
	unsigned int slot;

	pending = atomic_long_xchg(&sim->bar.db_pending, 0);
	/* a fatal firmware leaves the slots it was given owned */
	if (sim_is_fatal(sim) || atomic_read(&sim->stopping))
		return;

	mutex_lock(&sim->fw_lock);
	/* again under the lock: a device turned off runs none after (bar.c) */
	if (!sim_is_fatal(sim))
		for_each_set_bit(slot, &pending, SIM_MAX_SLOTS)
			if (sim_slot_ring(sim, slot))
				done |= BIT(slot);
	mutex_unlock(&sim->fw_lock);

	for_each_set_bit(slot, &done, SIM_MAX_SLOTS)
		sim_post_cmd_eqe(sim, slot);
}

/* A delayed command's time has come: run it if it is still there. */
void sim_slot_work(struct work_struct *work)
{
	struct sim_slot *s = container_of(to_delayed_work(work),
					  struct sim_slot, dwork);
	struct mlx5sp_sim *sim = s->sim;
	struct mlx5_cmd_layout *lay;
	bool done = false;

	mutex_lock(&sim->fw_lock);
	/* aborted by DISABLE_HCA meanwhile */
	if (!s->busy)
		goto unlock;
	s->busy = false;
	if (sim_is_fatal(sim) || atomic_read(&sim->stopping))
		goto unlock;

	lay = sim_slot_layout(sim, s->idx);
	/* the driver may have freed the queue while the command waited */
	if (lay && !page_count(virt_to_page(lay)))
		lay = NULL;
	if (!lay || !(READ_ONCE(lay->status_own) & SIM_OWNER_HW)) {
		/* the driver took the slot back */
		sim_stat_inc(sim, cmds_stale);
		goto unlock;
	}
	/* read the descriptor only after seeing it owned */
	rmb();
	/*
	 * Another command in the slot: the driver gave up on the delayed
	 * one and rang the slot again while it was busy. Run what is there.
	 */
	if (READ_ONCE(lay->token) != s->token ||
	    (be32_to_cpu(READ_ONCE(lay->in[0])) >> 16) != s->opcode ||
	    be64_to_cpu(READ_ONCE(lay->in_ptr)) != s->in_ptr ||
	    be64_to_cpu(READ_ONCE(lay->out_ptr)) != s->out_ptr)
		sim_stat_inc(sim, cmds_stale);
	sim_cmd_execute(sim, lay, s->idx);
	done = true;
unlock:
	mutex_unlock(&sim->fw_lock);
	if (done)
		sim_post_cmd_eqe(sim, s->idx);
}
