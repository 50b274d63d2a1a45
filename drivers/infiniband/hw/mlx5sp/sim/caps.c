// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * HCA capabilities of the software ConnectX: what a ConnectX-6 reports
 * (general, RoCE, atomic), minus what params.missing_caps removes, and
 * the few current values SET_HCA_CAP may change. A device with a cable
 * (port.c) has a NIC too: Ethernet offloads (checksums, L2 inline) and
 * NIC_RX flow tables, which no other device answers for.
 */

#include <linux/mlx5/vport.h>
#include <linux/slab.h>

#include "counters.h"
#include "limits.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "sim.h"
#include "steer.h"
#include "syndromes.h"

/* A field of a capability layout, to compare and copy it generically. */
struct sim_cap_field {
	u32 off;	/* bit offset, PRM numbering */
	u32 sz;		/* bits, within one dword */
};

#define SIM_FIELD(typ, fld) {						\
	.off = __mlx5_bit_off(typ, fld),				\
	.sz = __mlx5_bit_sz(typ, fld),					\
}

/* Fields SET_HCA_CAP may change, each to at most its maximum. */
static const struct sim_cap_field sim_gen_settable[] = {
	SIM_FIELD(cmd_hca_cap, cmdif_checksum),
	SIM_FIELD(cmd_hca_cap, pkey_table_size),
	SIM_FIELD(cmd_hca_cap, log_uar_page_sz),
	SIM_FIELD(cmd_hca_cap, cqe_version),
	SIM_FIELD(cmd_hca_cap, log_max_qp),
	SIM_FIELD(cmd_hca_cap, uar_4k),
	SIM_FIELD(cmd_hca_cap, cache_line_128byte),
	SIM_FIELD(cmd_hca_cap, roce),
	SIM_FIELD(cmd_hca_cap, dct),
};

static const struct sim_cap_field sim_roce_settable[] = {
	SIM_FIELD(roce_cap, sw_r_roce_src_udp_port),
	SIM_FIELD(roce_cap, qp_ooo_transmit_default),
};

static const struct sim_cap_field sim_atomic_settable[] = {
	SIM_FIELD(atomic_caps, atomic_req_8B_endianness_mode),
};

struct sim_cap_type {
	u16 type;	/* MLX5_CAP_* */
	const struct sim_cap_field *settable;
	unsigned int nr_settable;
	u32 size;	/* bytes of its layout: what QUERY_HCA_CAP must fit */
};

static const struct sim_cap_type sim_cap_types[SIM_NR_CAPS] = {
	[SIM_CAP_GENERAL] = { MLX5_CAP_GENERAL, sim_gen_settable,
			      ARRAY_SIZE(sim_gen_settable),
			      MLX5_ST_SZ_BYTES(cmd_hca_cap) },
	[SIM_CAP_ROCE] = { MLX5_CAP_ROCE, sim_roce_settable,
			   ARRAY_SIZE(sim_roce_settable),
			   MLX5_ST_SZ_BYTES(roce_cap) },
	[SIM_CAP_ATOMIC] = { MLX5_CAP_ATOMIC, sim_atomic_settable,
			     ARRAY_SIZE(sim_atomic_settable),
			     MLX5_ST_SZ_BYTES(atomic_caps) },
	[SIM_CAP_ETH] = { MLX5_CAP_ETHERNET_OFFLOADS, NULL, 0,
			  MLX5_ST_SZ_BYTES(per_protocol_networking_offload_caps) },
	[SIM_CAP_FT] = { MLX5_CAP_FLOW_TABLE, NULL, 0,
			 MLX5_ST_SZ_BYTES(flow_table_nic_cap) },
};

static u32 sim_field_get(const u32 *p, const struct sim_cap_field *f)
{
	u32 dw = be32_to_cpu(((const __be32 *)p)[f->off / 32]);
	u32 shift = 32 - f->sz - (f->off & 31);

	return (dw >> shift) & (u32)(BIT_ULL(f->sz) - 1);
}

static void sim_field_set(u32 *p, const struct sim_cap_field *f, u32 v)
{
	__be32 *w = (__be32 *)p + f->off / 32;
	u32 shift = 32 - f->sz - (f->off & 31);
	u32 mask = (u32)(BIT_ULL(f->sz) - 1) << shift;

	*w = cpu_to_be32((be32_to_cpu(*w) & ~mask) | ((v << shift) & mask));
}

static void sim_caps_general(struct mlx5sp_sim *sim, u32 *c)
{
	u32 missing = sim->params.missing_caps;

	/*
	 * 8K SRQ entries (a ConnectX has 32K): the driver's kernel SRQs are
	 * one 4 MiB block, and max_srq_wr must hold for user SRQs too.
	 */
	MLX5_SET(cmd_hca_cap, c, log_max_srq_sz, 13);
	MLX5_SET(cmd_hca_cap, c, log_max_qp_sz, 15);
	MLX5_SET(cmd_hca_cap, c, log_max_qp,
		 sim_lim_log(&sim->params, SIM_LIM_QP));
	MLX5_SET(cmd_hca_cap, c, log_max_srq,
		 sim_lim_log(&sim->params, SIM_LIM_SRQ));
	MLX5_SET(cmd_hca_cap, c, log_max_cq_sz, 22);
	MLX5_SET(cmd_hca_cap, c, log_max_cq,
		 sim_lim_log(&sim->params, SIM_LIM_CQ));
	MLX5_SET(cmd_hca_cap, c, log_max_eq_sz, SIM_LOG_MAX_EQ_SZ);
	MLX5_SET(cmd_hca_cap, c, log_max_mkey,
		 sim_lim_log(&sim->params, SIM_LIM_MKEY));
	MLX5_SET(cmd_hca_cap, c, log_max_eq, SIM_LOG_MAX_EQ);
	MLX5_SET(cmd_hca_cap, c, max_num_eqs, SIM_MAX_EQS);
	MLX5_SET(cmd_hca_cap, c, max_indirection, 4);
	MLX5_SET(cmd_hca_cap, c, log_max_mrw_sz, 64);
	MLX5_SET(cmd_hca_cap, c, log_max_bsf_list_size, 4);
	MLX5_SET(cmd_hca_cap, c, log_max_klm_list_size, 16);
	MLX5_SET(cmd_hca_cap, c, umr_extended_translation_offset, 1);
	MLX5_SET(cmd_hca_cap, c, null_mkey, 1);
	MLX5_SET(cmd_hca_cap, c, log_max_ra_req_dc, 4);
	MLX5_SET(cmd_hca_cap, c, log_max_ra_res_dc, 4);
	MLX5_SET(cmd_hca_cap, c, log_max_ra_req_qp, 4);
	MLX5_SET(cmd_hca_cap, c, log_max_ra_res_qp, 4);
	MLX5_SET(cmd_hca_cap, c, gid_table_size, 256);
	MLX5_SET(cmd_hca_cap, c, out_of_seq_cnt, 1);
	MLX5_SET(cmd_hca_cap, c, max_qp_cnt, SIM_MAX_Q_COUNTERS);
	MLX5_SET(cmd_hca_cap, c, retransmission_q_counters, 1);
	/* QUERY_CONG_STATISTICS (cong.c), not MODIFY_CONG_* */
	MLX5_SET(cmd_hca_cap, c, cc_query_allowed, 1);
	MLX5_SET(cmd_hca_cap, c, enhanced_error_q_counters, 1);
	MLX5_SET(cmd_hca_cap, c, rts2rts_qp_counters_set_id, 1);
	/* 0 means 128 entries; RoCE has no P_Keys to speak of */
	MLX5_SET(cmd_hca_cap, c, pkey_table_size, 0);
	MLX5_SET(cmd_hca_cap, c, local_ca_ack_delay, 16);
	MLX5_SET(cmd_hca_cap, c, port_type, sim->params.port_ib ?
		 MLX5_CAP_PORT_TYPE_IB : MLX5_CAP_PORT_TYPE_ETH);
	MLX5_SET(cmd_hca_cap, c, num_ports, 1);
	MLX5_SET(cmd_hca_cap, c, log_max_msg, 30);
	MLX5_SET(cmd_hca_cap, c, max_tc, 8);
	MLX5_SET(cmd_hca_cap, c, stat_rate_support, 0xffff);
	MLX5_SET(cmd_hca_cap, c, cqe_version, 1);
	MLX5_SET(cmd_hca_cap, c, umr_fence, MLX5_CAP_UMR_FENCE_NONE);
	MLX5_SET(cmd_hca_cap, c, drain_sigerr, 1);
	MLX5_SET(cmd_hca_cap, c, cmdif_checksum, 3);
	MLX5_SET(cmd_hca_cap, c, sigerr_cqe, 1);
	MLX5_SET(cmd_hca_cap, c, sho, 1);
	MLX5SP_CAP_SIGERR_DOMAIN(c);
	MLX5SP_CAP_SIG_CRC32C(c);
	MLX5SP_CAP_SIG_BLOCK_4048(c);
	MLX5_SET(cmd_hca_cap, c, roce, 1);
	MLX5_SET(cmd_hca_cap, c, atomic, 1);
	MLX5_SET(cmd_hca_cap, c, cq_oi, 1);
	MLX5_SET(cmd_hca_cap, c, cq_resize, 1);
	MLX5_SET(cmd_hca_cap, c, cq_moderation, 1);
	MLX5_SET(cmd_hca_cap, c, cq_eq_remap, 1);
	MLX5_SET(cmd_hca_cap, c, pg, 0);
	MLX5_SET(cmd_hca_cap, c, umr_ptr_rlky, 1);
	MLX5_SET(cmd_hca_cap, c, xrc, 1);
	MLX5_SET(cmd_hca_cap, c, ud, 1);
	MLX5_SET(cmd_hca_cap, c, uc, 1);
	MLX5_SET(cmd_hca_cap, c, rc, 1);
	MLX5_SET(cmd_hca_cap, c, uar_4k, 1);
	MLX5_SET(cmd_hca_cap, c, uar_sz, ilog2(SIM_BAR_SIZE / SZ_4K));
	MLX5_SET(cmd_hca_cap, c, log_pg_sz, 12);
	MLX5_SET(cmd_hca_cap, c, bf, 1);
	MLX5_SET(cmd_hca_cap, c, log_bf_reg_size, 9);
	MLX5_SET(cmd_hca_cap, c, max_wqe_sz_sq, 1024);
	MLX5_SET(cmd_hca_cap, c, max_wqe_sz_rq, 512);
	MLX5_SET(cmd_hca_cap, c, max_wqe_sz_sq_dc, 1024);
	MLX5_SET(cmd_hca_cap, c, max_qp_mcg, 240);
	MLX5_SET(cmd_hca_cap, c, log_max_mcg, 21);
	MLX5_SET(cmd_hca_cap, c, log_max_transport_domain, 16);
	/*
	 * DEVX: user contexts and user memory. No uctx_cap bits (raw TX,
	 * internal resources), no uid-0 umems, no general object types.
	 */
	MLX5_SET(cmd_hca_cap, c, log_max_uctx, SIM_LOG_MAX_UCTX);
	MLX5_SET(cmd_hca_cap, c, log_max_pd,
		 sim_lim_log(&sim->params, SIM_LIM_PD));
	MLX5_SET(cmd_hca_cap, c, log_max_xrcd, 24);
	MLX5_SET(cmd_hca_cap, c, log_max_rq, 23);
	MLX5_SET(cmd_hca_cap, c, log_max_sq, 23);
	MLX5_SET(cmd_hca_cap, c, log_max_tir, 16);
	MLX5_SET(cmd_hca_cap, c, log_max_tis, 16);
	MLX5_SET(cmd_hca_cap, c, log_max_rqt, 20);
	MLX5_SET(cmd_hca_cap, c, log_max_rqt_size, 20);
	MLX5_SET(cmd_hca_cap, c, log_max_wq_sz, 20);
	MLX5_SET(cmd_hca_cap, c, log_max_current_uc_list, 0);
	MLX5_SET(cmd_hca_cap, c, log_uar_page_sz, 0);
	MLX5_SET(cmd_hca_cap, c, device_frequency_mhz, 1000);
	MLX5_SET(cmd_hca_cap, c, device_frequency_khz, 1000000);
	MLX5_SET(cmd_hca_cap, c, num_of_uars_per_page, 1);

	if (missing & MLX5SP_SIM_NO_ROCE)
		MLX5_SET(cmd_hca_cap, c, roce, 0);
	if (missing & MLX5SP_SIM_NO_SIG) {
		MLX5_SET(cmd_hca_cap, c, sho, 0);
		MLX5_SET(cmd_hca_cap, c, reserved_at_480, 0);
		MLX5_SET(cmd_hca_cap, c, sigerr_cqe, 0);
		MLX5_SET(cmd_hca_cap, c, log_max_bsf_list_size, 0);
		MLX5_SET(cmd_hca_cap, c, drain_sigerr, 0);
	}
	if (missing & MLX5SP_SIM_NO_DRAIN_SIGERR)
		MLX5_SET(cmd_hca_cap, c, drain_sigerr, 0);
	if (missing & MLX5SP_SIM_NO_UMR) {
		MLX5_SET(cmd_hca_cap, c, umr_modify_entity_size_disabled, 1);
		MLX5_SET(cmd_hca_cap, c, umr_modify_atomic_disabled, 1);
		MLX5_SET(cmd_hca_cap, c, umr_indirect_mkey_disabled, 1);
		MLX5_SET(cmd_hca_cap, c, umr_extended_translation_offset, 0);
		MLX5_SET(cmd_hca_cap, c, umr_ptr_rlky, 0);
		MLX5_SET(cmd_hca_cap, c, log_max_klm_list_size, 0);
	}
}

static void sim_caps_roce(struct mlx5sp_sim *sim, u32 *c)
{
	if (sim->params.missing_caps & MLX5SP_SIM_NO_ROCE)
		return;
	MLX5_SET(roce_cap, c, sw_r_roce_src_udp_port, 1);
	MLX5_SET(roce_cap, c, fl_rc_qp_when_roce_enabled, 1);
	MLX5_SET(roce_cap, c, l3_type,
		 MLX5_ROCE_L3_TYPE_IPV4_CAP | MLX5_ROCE_L3_TYPE_IPV6_CAP);
	MLX5_SET(roce_cap, c, roce_version,
		 MLX5_ROCE_VERSION_1_CAP | MLX5_ROCE_VERSION_2_CAP);
	MLX5_SET(roce_cap, c, r_roce_dest_udp_port, 4791);
	MLX5_SET(roce_cap, c, r_roce_max_src_udp_port, 0xffff);
	MLX5_SET(roce_cap, c, r_roce_min_src_udp_port, 0xc000);
	MLX5_SET(roce_cap, c, roce_address_table_size, 256);
}

static void sim_caps_atomic(u32 *c)
{
	/* compare-swap, fetch-add and their masked forms, 8 bytes */
	MLX5_SET(atomic_caps, c, atomic_operations, 0xf);
	MLX5_SET(atomic_caps, c, atomic_size_qp, BIT(3));
	MLX5_SET(atomic_caps, c, atomic_size_dc, BIT(3));
	MLX5_SET(atomic_caps, c, supported_atomic_req_8B_endianness_mode_1, 1);
	/* host endianness may be requested with SET_HCA_CAP */
	MLX5_SET(atomic_caps, c, atomic_req_8B_endianness_mode, 1);
}

/* A cabled port's NIC: checksums, L2 inline headers; no LSO, LRO, RSS */
static void sim_caps_eth(u32 *c)
{
	MLX5_SET(per_protocol_networking_offload_caps, c, csum_cap, 1);
	MLX5_SET(per_protocol_networking_offload_caps, c, wqe_inline_mode,
		 MLX5_CAP_INLINE_MODE_L2);
}

/* ... and its NIC_RX flow tables: outer dmac and ethertype, to a TIR */
static void sim_caps_ft(u32 *c)
{
	void *rx = MLX5_ADDR_OF(flow_table_nic_cap, c,
				flow_table_properties_nic_receive);
	void *f = MLX5_ADDR_OF(flow_table_prop_layout, rx, ft_field_support);
	void *m = MLX5_ADDR_OF(flow_table_prop_layout, rx,
			       ft_field_bitmask_support);

	MLX5_SET(flow_table_prop_layout, rx, ft_support, 1);
	MLX5_SET(flow_table_prop_layout, rx, max_ft_level, SIM_FT_MAX_LEVEL);
	MLX5_SET(flow_table_prop_layout, rx, log_max_ft_size,
		 SIM_FT_LOG_MAX_SIZE);
	MLX5_SET(flow_table_prop_layout, rx, log_max_ft_num,
		 SIM_FT_LOG_MAX_NUM);
	MLX5_SET(flow_table_prop_layout, rx, log_max_flow, SIM_FT_LOG_MAX_FLOW);
	/* one destination an entry */
	MLX5_SET(flow_table_prop_layout, rx, log_max_destination, 0);
	MLX5_SET(flow_table_fields_supported, f, outer_dmac, 1);
	MLX5_SET(flow_table_fields_supported, f, outer_ether_type, 1);
	MLX5_SET(flow_table_fields_supported, m, outer_dmac, 1);
	MLX5_SET(flow_table_fields_supported, m, outer_ether_type, 1);
}

/* Current values a freshly enabled function starts with. */
void sim_caps_reset_cur(struct mlx5sp_sim *sim)
{
	struct sim_caps *caps = sim->caps;

	memcpy(caps->cur, caps->max, sizeof(caps->cur));
	MLX5_SET(atomic_caps, caps->cur[SIM_CAP_ATOMIC],
		 atomic_req_8B_endianness_mode, 0);
	MLX5_SET(roce_cap, caps->cur[SIM_CAP_ROCE], sw_r_roce_src_udp_port, 0);
}

int sim_caps_init(struct mlx5sp_sim *sim)
{
	sim->caps = kvzalloc(sizeof(*sim->caps), GFP_KERNEL);
	if (!sim->caps)
		return -ENOMEM;
	sim_caps_general(sim, sim->caps->max[SIM_CAP_GENERAL]);
	sim_caps_roce(sim, sim->caps->max[SIM_CAP_ROCE]);
	sim_caps_atomic(sim->caps->max[SIM_CAP_ATOMIC]);
	if (sim->port.cabled) {
		MLX5_SET(cmd_hca_cap, sim->caps->max[SIM_CAP_GENERAL],
			 eth_net_offloads, 1);
		MLX5_SET(cmd_hca_cap, sim->caps->max[SIM_CAP_GENERAL],
			 nic_flow_table, 1);
		sim_caps_eth(sim->caps->max[SIM_CAP_ETH]);
		sim_caps_ft(sim->caps->max[SIM_CAP_FT]);
	}
	sim_caps_reset_cur(sim);
	return 0;
}

/* The NIC's types are a cabled device's only: others read them as zero. */
static int sim_cap_index(struct mlx5sp_sim *sim, u16 type)
{
	int i;

	for (i = 0; i < SIM_NR_CAPS; i++) {
		if (sim_cap_types[i].type != type)
			continue;
		if ((i == SIM_CAP_ETH || i == SIM_CAP_FT) && !sim->port.cabled)
			return -1;
		return i;
	}
	return -1;
}

static int sim_check_other_function(struct sim_cmd *c)
{
	/* query_hca_cap_in and set_hca_cap_in share the header */
	if (MLX5_GET(query_hca_cap_in, c->in, other_function) ||
	    MLX5_GET(query_hca_cap_in, c->in, ec_vf_function) ||
	    MLX5_GET(query_hca_cap_in, c->in, function_id))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_FUNCTION_ID);
	return 0;
}

/*
 * Capability types a ConnectX-6 has whose features the model implements
 * none of: they read as all zero (DEVX users such as libmlx5 and its tests
 * query them directly and take zero for "not supported").
 */
static bool sim_cap_all_zero(u16 type)
{
	switch (type) {
	case MLX5_CAP_ETHERNET_OFFLOADS:
	case MLX5_CAP_ODP:
	case MLX5_CAP_FLOW_TABLE:
	case MLX5_CAP_ESWITCH_FLOW_TABLE:
	case MLX5_CAP_ESWITCH:
	case MLX5_CAP_QOS:
	case MLX5_CAP_DEBUG:
	case MLX5_CAP_DEV_MEM:
	case MLX5_CAP_DEV_EVENT:
		return true;
	default:
		return false;
	}
}

int sim_cmd_query_hca_cap(struct sim_cmd *c)
{
	struct sim_caps *caps = c->sim->caps;
	int idx = sim_cap_index(c->sim, c->op_mod >> 1);
	void *dst;
	u32 room;
	int err;

	if (idx < 0 && !sim_cap_all_zero(c->op_mod >> 1))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CAP_BAD_TYPE);
	err = sim_check_other_function(c);
	if (err)
		return err;
	if (idx < 0)
		return 0;	/* the output is zeroed */

	/* the output must hold the type's layout, not the whole union */
	room = c->outlen - MLX5_BYTE_OFF(query_hca_cap_out, capability);
	if (room < sim_cap_types[idx].size)
		return sim_fail(c, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
				MLX5SP_SIM_SYND_OUTLEN_SHORT);
	room = min_t(u32, room, sizeof(caps->cur[idx]));
	dst = MLX5_ADDR_OF(query_hca_cap_out, c->out, capability);
	if ((c->op_mod & 1) == HCA_CAP_OPMOD_GET_CUR)
		memcpy(dst, caps->cur[idx], room);
	else
		memcpy(dst, caps->max[idx], room);
	return 0;
}

/*
 * Settable fields: at most their maximum. Every other dword must be what
 * the driver read (current or maximum): nothing else changes.
 */
static int sim_set_cap_check(struct sim_cmd *c, int idx, const u32 *req)
{
	const struct sim_cap_type *t = &sim_cap_types[idx];
	struct sim_caps *caps = c->sim->caps;
	unsigned int i;
	u32 *tmp;
	int err = 0;

	tmp = kmemdup(req, sizeof(caps->cur[idx]), GFP_KERNEL);
	if (!tmp)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);

	for (i = 0; i < t->nr_settable; i++) {
		const struct sim_cap_field *f = &t->settable[i];

		if (sim_field_get(tmp, f) > sim_field_get(caps->max[idx], f)) {
			err = sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				       MLX5SP_SIM_SYND_SET_CAP_ABOVE_MAX);
			goto out_free;
		}
		sim_field_set(tmp, f, sim_field_get(caps->cur[idx], f));
	}
	for (i = 0; i < SIM_CAP_DW; i++) {
		if (tmp[i] != caps->cur[idx][i] && tmp[i] != caps->max[idx][i]) {
			err = sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				       MLX5SP_SIM_SYND_SET_CAP_READ_ONLY);
			goto out_free;
		}
	}
out_free:
	kfree(tmp);
	return err;
}

int sim_cmd_set_hca_cap(struct sim_cmd *c)
{
	struct sim_caps *caps = c->sim->caps;
	const struct sim_cap_type *t;
	const u32 *req;
	unsigned int i;
	int idx, err;

	if (c->op_mod & 1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_OP_MOD);
	idx = sim_cap_index(c->sim, c->op_mod >> 1);
	if (idx < 0)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CAP_BAD_TYPE);
	err = sim_check_other_function(c);
	if (err)
		return err;

	req = MLX5_ADDR_OF(set_hca_cap_in, c->in, capability);
	err = sim_set_cap_check(c, idx, req);
	if (err)
		return err;

	t = &sim_cap_types[idx];
	for (i = 0; i < t->nr_settable; i++)
		sim_field_set(caps->cur[idx], &t->settable[i],
			      sim_field_get(req, &t->settable[i]));
	return 0;
}
