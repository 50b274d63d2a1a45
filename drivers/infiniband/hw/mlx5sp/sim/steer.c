// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * NIC steering of the software ConnectX: TIS and TIR objects, NIC_RX flow
 * tables, groups and entries, the root table, and the lookup of a frame
 * from the cable (steer.h says what matches and how it is locked).
 * Everything else a card's steering has (other table types, levels
 * chained by FWD_DEST to a table, counters, reformat, RSS) is refused.
 */

#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "eth_wq.h"
#include "sim.h"
#include "steer.h"
#include "syndromes.h"

#define SIM_STEER_ID_MAX	(BIT(24) - 1)

/*
 * A table's entries are locked (with bottom halves off) under steer.lock,
 * which the receive softirq takes: their xarray lock is a class of its
 * own, not that of the object tables taken in process context.
 */
static struct lock_class_key sim_fte_xa_key;

void sim_steer_init(struct mlx5sp_sim *sim)
{
	struct sim_steer *st = &sim->steer;

	xa_init_flags(&st->tises, XA_FLAGS_ALLOC1);
	xa_init_flags(&st->tirs, XA_FLAGS_ALLOC1);
	xa_init_flags(&st->fts, XA_FLAGS_ALLOC1);
	spin_lock_init(&st->lock);
}

static int sim_steer_alloc(struct sim_cmd *c, struct xarray *xa, void *obj,
			   u32 *id)
{
	int err = xa_alloc(xa, id, obj, XA_LIMIT(1, SIM_STEER_ID_MAX),
			   GFP_KERNEL);

	if (err)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				err == -EBUSY ? MLX5SP_SIM_SYND_STEER_EXHAUSTED :
						MLX5SP_SIM_SYND_NO_MEMORY);
	return 0;
}

static bool sim_td_exists(struct mlx5sp_sim *sim, u32 td)
{
	return td && xa_load(&sim->tds, td);
}

/* ---- TIS ---- */

int sim_cmd_create_tis(struct sim_cmd *c)
{
	const void *ctx = MLX5_ADDR_OF(create_tis_in, c->in, ctx);
	struct sim_tis *tis;
	int err;

	if (MLX5_GET(tisc, ctx, prio) || MLX5_GET(tisc, ctx, tls_en) ||
	    MLX5_GET(tisc, ctx, strict_lag_tx_port_affinity) ||
	    MLX5_GET(tisc, ctx, lag_tx_port_affinity) ||
	    MLX5_GET(tisc, ctx, underlay_qpn) || MLX5_GET(tisc, ctx, pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_TIS_UNSUPPORTED);
	if (!sim_td_exists(c->sim, MLX5_GET(tisc, ctx, transport_domain)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_TD_NOT_FOUND);
	tis = kzalloc(sizeof(*tis), GFP_KERNEL);
	if (!tis)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	tis->td = MLX5_GET(tisc, ctx, transport_domain);
	atomic_set(&tis->users, 0);
	err = sim_steer_alloc(c, &c->sim->steer.tises, tis, &tis->tisn);
	if (err) {
		kfree(tis);
		return err;
	}
	MLX5_SET(create_tis_out, c->out, tisn, tis->tisn);
	return 0;
}

/* The TIS an SQ sends through: held until the SQ goes. fw_lock. */
struct sim_tis *sim_tis_get(struct mlx5sp_sim *sim, u32 tisn)
{
	struct sim_tis *tis;

	lockdep_assert_held(&sim->fw_lock);
	tis = xa_load(&sim->steer.tises, tisn);
	if (tis)
		atomic_inc(&tis->users);
	return tis;
}

void sim_tis_put(struct sim_tis *tis)
{
	if (tis)
		atomic_dec(&tis->users);
}

int sim_cmd_destroy_tis(struct sim_cmd *c)
{
	u32 tisn = MLX5_GET(destroy_tis_in, c->in, tisn);
	struct sim_steer *st = &c->sim->steer;
	struct sim_tis *tis;

	tis = xa_load(&st->tises, tisn);
	if (!tis)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_TIS_NOT_FOUND);
	if (atomic_read(&tis->users))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_TIS_IN_USE);
	xa_erase(&st->tises, tisn);
	kfree(tis);
	return 0;
}

/* After the SQs (eth_sq.c): nothing holds a TIS any more. fw_lock. */
void sim_steer_tis_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_tis *tis;
	unsigned long id;

	xa_for_each(&sim->steer.tises, id, tis) {
		xa_erase(&sim->steer.tises, id);
		kfree(tis);
	}
}

/* ---- TIR ---- */

int sim_cmd_create_tir(struct sim_cmd *c)
{
	const void *ctx = MLX5_ADDR_OF(create_tir_in, c->in, ctx);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_tir *tir;
	int err;

	/* DIRECT to one RQ: no LRO, TLS, hashing, indirection */
	if (MLX5_GET(tirc, ctx, disp_type) != MLX5_TIRC_DISP_TYPE_DIRECT ||
	    MLX5_GET(tirc, ctx, tls_en) ||
	    MLX5_GET(tirc, ctx, packet_merge_mask) ||
	    MLX5_GET(tirc, ctx, lro_timeout_period_usecs) ||
	    MLX5_GET(tirc, ctx, lro_max_ip_payload_size) ||
	    MLX5_GET(tirc, ctx, indirect_table) ||
	    MLX5_GET(tirc, ctx, rx_hash_fn) ||
	    MLX5_GET(tirc, ctx, tunneled_offload_en) ||
	    MLX5_GET(tirc, ctx, self_lb_block))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_TIR_UNSUPPORTED);
	if (!sim_td_exists(sim, MLX5_GET(tirc, ctx, transport_domain)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_TD_NOT_FOUND);
	tir = kzalloc(sizeof(*tir), GFP_KERNEL);
	if (!tir)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	tir->td = MLX5_GET(tirc, ctx, transport_domain);
	atomic_set(&tir->users, 0);
	tir->rq = sim_eth_rq_get(sim, MLX5_GET(tirc, ctx, inline_rqn));
	if (!tir->rq) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			       MLX5SP_SIM_SYND_TIR_BAD_RQN);
		goto err_free_tir;
	}
	err = sim_steer_alloc(c, &sim->steer.tirs, tir, &tir->tirn);
	if (err)
		goto err_put_rq;
	MLX5_SET(create_tir_out, c->out, tirn, tir->tirn);
	return 0;

err_put_rq:
	sim_eth_rq_put(tir->rq);
err_free_tir:
	kfree(tir);
	return err;
}

int sim_cmd_destroy_tir(struct sim_cmd *c)
{
	u32 tirn = MLX5_GET(destroy_tir_in, c->in, tirn);
	struct sim_steer *st = &c->sim->steer;
	struct sim_tir *tir;

	tir = xa_load(&st->tirs, tirn);
	if (!tir)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_TIR_NOT_FOUND);
	if (atomic_read(&tir->users))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_TIR_IN_USE);
	xa_erase(&st->tirs, tirn);
	sim_eth_rq_put(tir->rq);
	kfree(tir);
	return 0;
}

/* ---- flow tables ---- */

static int sim_ft_check_hdr(struct sim_cmd *c, bool other_vport, u16 vport,
			    u8 table_type)
{
	if (other_vport || vport)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_STEER_OTHER_VPORT);
	if (table_type != SIM_FT_NIC_RX)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FT_BAD_TYPE);
	return 0;
}

/* Commands naming a table share the header (destroy_flow_table_in). */
static struct sim_ft *sim_ft_find(struct sim_cmd *c)
{
	struct sim_ft *ft;

	if (sim_ft_check_hdr(c, MLX5_GET(destroy_flow_table_in, c->in,
					 other_vport),
			     MLX5_GET(destroy_flow_table_in, c->in,
				      vport_number),
			     MLX5_GET(destroy_flow_table_in, c->in,
				      table_type)))
		return NULL;
	ft = xa_load(&c->sim->steer.fts,
		     MLX5_GET(destroy_flow_table_in, c->in, table_id));
	if (!ft)
		sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			 MLX5SP_SIM_SYND_FT_NOT_FOUND);
	return ft;
}

int sim_cmd_create_flow_table(struct sim_cmd *c)
{
	const void *ctx = MLX5_ADDR_OF(create_flow_table_in, c->in,
				       flow_table_context);
	struct sim_ft *ft;
	int err;

	err = sim_ft_check_hdr(c, MLX5_GET(create_flow_table_in, c->in,
					   other_vport),
			       MLX5_GET(create_flow_table_in, c->in,
					vport_number),
			       MLX5_GET(create_flow_table_in, c->in,
					table_type));
	if (err)
		return err;
	if (MLX5_GET(flow_table_context, ctx, reformat_en) ||
	    MLX5_GET(flow_table_context, ctx, decap_en) ||
	    MLX5_GET(flow_table_context, ctx, sw_owner) ||
	    MLX5_GET(flow_table_context, ctx, termination_table) ||
	    MLX5_GET(flow_table_context, ctx, table_miss_action) ||
	    MLX5_GET(flow_table_context, ctx, rtc_valid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FT_UNSUPPORTED);
	if (MLX5_GET(flow_table_context, ctx, level) > SIM_FT_MAX_LEVEL ||
	    MLX5_GET(flow_table_context, ctx, log_size) > SIM_FT_LOG_MAX_SIZE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FT_BAD_SIZE);
	ft = kzalloc(sizeof(*ft), GFP_KERNEL);
	if (!ft)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	ft->level = MLX5_GET(flow_table_context, ctx, level);
	ft->log_size = MLX5_GET(flow_table_context, ctx, log_size);
	INIT_LIST_HEAD(&ft->groups);
	xa_init(&ft->ftes);
	lockdep_set_class(&ft->ftes.xa_lock, &sim_fte_xa_key);
	err = sim_steer_alloc(c, &c->sim->steer.fts, ft, &ft->id);
	if (err) {
		kfree(ft);
		return err;
	}
	MLX5_SET(create_flow_table_out, c->out, table_id, ft->id);
	return 0;
}

int sim_cmd_destroy_flow_table(struct sim_cmd *c)
{
	struct sim_steer *st = &c->sim->steer;
	struct sim_ft *ft = sim_ft_find(c);

	if (!ft)
		return -EINVAL;
	if (st->root == ft || !list_empty(&ft->groups))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_FT_IN_USE);
	xa_erase(&st->fts, ft->id);
	xa_destroy(&ft->ftes);
	kfree(ft);
	return 0;
}

int sim_cmd_set_flow_table_root(struct sim_cmd *c)
{
	struct sim_steer *st = &c->sim->steer;
	struct sim_ft *ft = NULL;
	int err;

	err = sim_ft_check_hdr(c, MLX5_GET(set_flow_table_root_in, c->in,
					   other_vport),
			       MLX5_GET(set_flow_table_root_in, c->in,
					vport_number),
			       MLX5_GET(set_flow_table_root_in, c->in,
					table_type));
	if (err)
		return err;
	if (MLX5_GET(set_flow_table_root_in, c->in, table_of_other_vport) ||
	    MLX5_GET(set_flow_table_root_in, c->in, table_vport_number) ||
	    MLX5_GET(set_flow_table_root_in, c->in, underlay_qpn) ||
	    MLX5_GET(set_flow_table_root_in, c->in,
		     table_eswitch_owner_vhca_id_valid) || c->op_mod > 1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FT_UNSUPPORTED);
	/* op_mod 1 disconnects the root */
	if (!c->op_mod) {
		ft = xa_load(&st->fts, MLX5_GET(set_flow_table_root_in, c->in,
						table_id));
		if (!ft)
			return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
					MLX5SP_SIM_SYND_FT_NOT_FOUND);
	}
	spin_lock_bh(&st->lock);
	st->root = ft;
	spin_unlock_bh(&st->lock);
	return 0;
}

/* ---- flow groups ---- */

static bool sim_fg_overlaps(const struct sim_ft *ft, u32 start, u32 end)
{
	const struct sim_fg *fg;

	list_for_each_entry(fg, &ft->groups, node)
		if (start <= fg->end && fg->start <= end)
			return true;
	return false;
}

/* Outer dmac and ethertype, nothing else: true if @mc asks for more. */
static bool sim_fg_criteria_unsupported(const void *mc, u8 mce)
{
	u32 rest[MLX5_ST_SZ_DW(fte_match_param)];
	void *outer = MLX5_ADDR_OF(fte_match_param, rest, outer_headers);

	if (mce & ~MLX5_MATCH_OUTER_HEADERS)
		return true;
	memcpy(rest, mc, sizeof(rest));
	MLX5_SET(fte_match_set_lyr_2_4, outer, dmac_47_16, 0);
	MLX5_SET(fte_match_set_lyr_2_4, outer, dmac_15_0, 0);
	MLX5_SET(fte_match_set_lyr_2_4, outer, ethertype, 0);
	return memchr_inv(rest, 0, sizeof(rest));
}

int sim_cmd_create_flow_group(struct sim_cmd *c)
{
	const void *mc = MLX5_ADDR_OF(create_flow_group_in, c->in,
				      match_criteria);
	const void *outer = MLX5_ADDR_OF(fte_match_param, mc, outer_headers);
	u32 start = MLX5_GET(create_flow_group_in, c->in, start_flow_index);
	u32 end = MLX5_GET(create_flow_group_in, c->in, end_flow_index);
	u8 mce = MLX5_GET(create_flow_group_in, c->in, match_criteria_enable);
	struct sim_steer *st = &c->sim->steer;
	struct sim_fg *fg, *pos;
	struct sim_ft *ft;

	ft = sim_ft_find(c);
	if (!ft)
		return -EINVAL;
	if (MLX5_GET(create_flow_group_in, c->in, group_type) ||
	    MLX5_GET(create_flow_group_in, c->in,
		     source_eswitch_owner_vhca_id_valid) ||
	    MLX5_GET(create_flow_group_in, c->in, match_definer_id) ||
	    sim_fg_criteria_unsupported(mc, mce))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FG_UNSUPPORTED);
	if (start > end || end >= BIT(ft->log_size) ||
	    sim_fg_overlaps(ft, start, end))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FG_BAD_RANGE);
	fg = kzalloc(sizeof(*fg), GFP_KERNEL);
	if (!fg)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	fg->start = start;
	fg->end = end;
	fg->mce = mce;
	if (mce & MLX5_MATCH_OUTER_HEADERS) {
		put_unaligned_be32(MLX5_GET(fte_match_set_lyr_2_4, outer,
					    dmac_47_16), fg->dmac_mask);
		put_unaligned_be16(MLX5_GET(fte_match_set_lyr_2_4, outer,
					    dmac_15_0), fg->dmac_mask + 4);
		fg->etype_mask = htons(MLX5_GET(fte_match_set_lyr_2_4, outer,
						ethertype));
	}
	fg->id = ++st->next_fg ?: ++st->next_fg;

	spin_lock_bh(&st->lock);
	/* in flow-index order: the order the lookup tries them */
	list_for_each_entry(pos, &ft->groups, node)
		if (pos->start > start)
			break;
	list_add_tail(&fg->node, &pos->node);
	spin_unlock_bh(&st->lock);
	MLX5_SET(create_flow_group_out, c->out, group_id, fg->id);
	return 0;
}

static struct sim_fg *sim_fg_find(struct sim_ft *ft, u32 id)
{
	struct sim_fg *fg;

	list_for_each_entry(fg, &ft->groups, node)
		if (fg->id == id)
			return fg;
	return NULL;
}

int sim_cmd_destroy_flow_group(struct sim_cmd *c)
{
	struct sim_steer *st = &c->sim->steer;
	struct sim_ft *ft = sim_ft_find(c);
	struct sim_fg *fg;

	if (!ft)
		return -EINVAL;
	fg = sim_fg_find(ft, MLX5_GET(destroy_flow_group_in, c->in, group_id));
	if (!fg)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_FG_NOT_FOUND);
	if (fg->ftes)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_FG_IN_USE);
	spin_lock_bh(&st->lock);
	list_del(&fg->node);
	spin_unlock_bh(&st->lock);
	kfree(fg);
	return 0;
}

/* ---- flow table entries ---- */

/* FWD_DEST to one TIR, nothing else: the TIR (held), or NULL. */
static struct sim_tir *sim_fte_dest(struct sim_cmd *c, const void *fc)
{
	const void *dest = MLX5_ADDR_OF(flow_context, fc, destination);
	struct sim_tir *tir;

	if (c->inlen < MLX5_ST_SZ_BYTES(set_fte_in) +
		       MLX5_ST_SZ_BYTES(dest_format_struct)) {
		sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
			 MLX5SP_SIM_SYND_INLEN_SHORT);
		return NULL;
	}
	if (MLX5_GET(flow_context, fc, action) !=
	    MLX5_FLOW_CONTEXT_ACTION_FWD_DEST ||
	    MLX5_GET(flow_context, fc, destination_list_size) != 1 ||
	    MLX5_GET(flow_context, fc, flow_counter_list_size) ||
	    MLX5_GET(flow_context, fc, extended_destination) ||
	    MLX5_GET(flow_context, fc, flow_tag) ||
	    MLX5_GET(flow_context, fc, packet_reformat_id) ||
	    MLX5_GET(flow_context, fc, modify_header_id) ||
	    MLX5_GET(dest_format_struct, dest, destination_type) !=
	    MLX5_IFC_FLOW_DESTINATION_TYPE_TIR ||
	    MLX5_GET(dest_format_struct, dest, packet_reformat) ||
	    MLX5_GET(dest_format_struct, dest,
		     destination_eswitch_owner_vhca_id_valid)) {
		sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
			 MLX5SP_SIM_SYND_FTE_UNSUPPORTED);
		return NULL;
	}
	tir = xa_load(&c->sim->steer.tirs,
		      MLX5_GET(dest_format_struct, dest, destination_id));
	if (!tir) {
		sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			 MLX5SP_SIM_SYND_TIR_NOT_FOUND);
		return NULL;
	}
	atomic_inc(&tir->users);
	return tir;
}

int sim_cmd_set_fte(struct sim_cmd *c)
{
	const void *fc = MLX5_ADDR_OF(set_fte_in, c->in, flow_context);
	const void *mv = MLX5_ADDR_OF(flow_context, fc, match_value);
	const void *outer = MLX5_ADDR_OF(fte_match_param, mv, outer_headers);
	u32 index = MLX5_GET(set_fte_in, c->in, flow_index);
	struct sim_steer *st = &c->sim->steer;
	struct sim_fte *fte;
	struct sim_fg *fg;
	struct sim_ft *ft;
	int err, i;

	ft = sim_ft_find(c);
	if (!ft)
		return -EINVAL;
	if (c->op_mod || MLX5_GET(set_fte_in, c->in, modify_enable_mask) ||
	    MLX5_GET(set_fte_in, c->in, ignore_flow_level))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FTE_UNSUPPORTED);
	fg = sim_fg_find(ft, MLX5_GET(flow_context, fc, group_id));
	if (!fg || index < fg->start || index > fg->end)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FTE_BAD_INDEX);
	if (xa_load(&ft->ftes, index))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_FTE_EXISTS);
	fte = kzalloc(sizeof(*fte), GFP_KERNEL);
	if (!fte)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	fte->tir = sim_fte_dest(c, fc);
	if (!fte->tir) {
		err = -EINVAL;
		goto err_free_fte;
	}
	fte->index = index;
	fte->fg = fg;
	/* the value as the group's criteria see it */
	put_unaligned_be32(MLX5_GET(fte_match_set_lyr_2_4, outer, dmac_47_16),
			   fte->dmac);
	put_unaligned_be16(MLX5_GET(fte_match_set_lyr_2_4, outer, dmac_15_0),
			   fte->dmac + 4);
	for (i = 0; i < ETH_ALEN; i++)
		fte->dmac[i] &= fg->dmac_mask[i];
	fte->etype = htons(MLX5_GET(fte_match_set_lyr_2_4, outer, ethertype)) &
		     fg->etype_mask;

	spin_lock_bh(&st->lock);
	err = xa_insert_bh(&ft->ftes, index, fte, GFP_ATOMIC);
	if (!err)
		fg->ftes++;
	spin_unlock_bh(&st->lock);
	if (err) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_put_tir;
	}
	return 0;

err_put_tir:
	atomic_dec(&fte->tir->users);
err_free_fte:
	kfree(fte);
	return err;
}

static void sim_fte_free(struct sim_fte *fte)
{
	atomic_dec(&fte->tir->users);
	kfree(fte);
}

int sim_cmd_delete_fte(struct sim_cmd *c)
{
	u32 index = MLX5_GET(delete_fte_in, c->in, flow_index);
	struct sim_steer *st = &c->sim->steer;
	struct sim_fte *fte;
	struct sim_ft *ft;

	ft = sim_ft_find(c);
	if (!ft)
		return -EINVAL;
	spin_lock_bh(&st->lock);
	fte = xa_erase_bh(&ft->ftes, index);
	if (fte)
		fte->fg->ftes--;
	spin_unlock_bh(&st->lock);
	if (!fte)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_FTE_NOT_FOUND);
	sim_fte_free(fte);
	return 0;
}

/*
 * Tables, groups, entries and TIRs, before the RQs the TIRs hold
 * (sim_release_objects()). fw_lock.
 */
void sim_steer_flows_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_steer *st = &sim->steer;
	struct sim_fg *fg, *tmp;
	struct sim_fte *fte;
	struct sim_tir *tir;
	struct sim_ft *ft;
	unsigned long id, idx;

	spin_lock_bh(&st->lock);
	st->root = NULL;
	spin_unlock_bh(&st->lock);
	/* no lookup reaches a table from here on */
	xa_for_each(&st->fts, id, ft) {
		xa_erase(&st->fts, id);
		/* the entries' lock is taken in the receive softirq's too */
		xa_for_each(&ft->ftes, idx, fte) {
			xa_erase_bh(&ft->ftes, idx);
			kfree(fte);
		}
		xa_destroy(&ft->ftes);
		list_for_each_entry_safe(fg, tmp, &ft->groups, node) {
			list_del(&fg->node);
			kfree(fg);
		}
		kfree(ft);
	}
	xa_for_each(&st->tirs, id, tir) {
		xa_erase(&st->tirs, id);
		sim_eth_rq_put(tir->rq);
		kfree(tir);
	}
}

/* Does @fte of group @fg take a frame to @dmac of @etype? */
bool sim_steer_match(const struct sim_fg *fg, const struct sim_fte *fte,
		     const u8 *dmac, __be16 etype)
{
	int i;

	if (!(fg->mce & MLX5_MATCH_OUTER_HEADERS))
		return true;
	for (i = 0; i < ETH_ALEN; i++)
		if ((dmac[i] & fg->dmac_mask[i]) != fte->dmac[i])
			return false;
	return (etype & fg->etype_mask) == fte->etype;
}
EXPORT_SYMBOL_IF_KUNIT(sim_steer_match);

/*
 * The RQ a frame from the cable goes to (@frame from its MAC header),
 * or NULL (no root, no match: counted). Under the receive batch's
 * rcu_read_lock(), which keeps the RQ.
 */
struct sim_eth_rq *sim_steer_lookup(struct mlx5sp_sim *sim, const u8 *frame,
				    u32 len)
{
	struct sim_steer *st = &sim->steer;
	struct sim_eth_rq *rq = NULL;
	const struct ethhdr *eth = (const struct ethhdr *)frame;
	struct sim_fte *fte;
	unsigned long idx;
	__be16 etype;

	if (len < ETH_HLEN)
		return NULL;
	etype = eth->h_proto;
	if (eth_type_vlan(etype) && len >= VLAN_ETH_HLEN)
		etype = ((const struct vlan_ethhdr *)frame)->h_vlan_encapsulated_proto;
	spin_lock_bh(&st->lock);
	if (!st->root) {
		atomic64_inc(&sim->port.st.rx_no_root);
		goto unlock;
	}
	/* groups do not overlap: entries in index order are groups in order */
	xa_for_each(&st->root->ftes, idx, fte) {
		if (sim_steer_match(fte->fg, fte, eth->h_dest, etype)) {
			rq = fte->tir->rq;
			break;
		}
	}
	if (!rq)
		atomic64_inc(&sim->port.st.rx_no_match);
unlock:
	spin_unlock_bh(&st->lock);
	return rq;
}
