// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Firmware commands of the HCA life cycle (ENABLE/INIT/TEARDOWN/DISABLE),
 * ISSI, UARs and PDs. Called from the dispatcher under fw_lock with the
 * lengths, uid, op_mod and device state already checked.
 */

#include <linux/mm.h>

#include "counters.h"
#include "cq.h"
#include "engine.h"
#include "eq.h"
#include "eth_wq.h"
#include "limits.h"
#include "mkey.h"
#include "mlx5sp_prm.h"
#include "pages.h"
#include "port.h"
#include "qp.h"
#include "roce.h"
#include "sig.h"
#include "sim.h"
#include "steer.h"
#include "syndromes.h"
#include "uctx.h"

#define SIM_ISSI_SUPPORTED	(BIT(0) | BIT(1))
#define SIM_ISSI_REQUIRED	1

static int sim_check_function(struct sim_cmd *c)
{
	/* enable_hca_in and disable_hca_in share the layout */
	if (MLX5_GET(enable_hca_in, c->in, function_id) ||
	    MLX5_GET(enable_hca_in, c->in, embedded_cpu_function))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_FUNCTION_ID);
	return 0;
}

int sim_cmd_enable_hca(struct sim_cmd *c)
{
	int err = sim_check_function(c);

	if (err)
		return err;
	c->sim->state = SIM_STATE_ENABLED;
	return 0;
}

static void sim_uar_pages_free(struct mlx5sp_sim *sim)
{
	unsigned long index;
	struct page *page;
	LIST_HEAD(dead);

	xa_for_each(&sim->uar_pages, index, page) {
		xa_erase(&sim->uar_pages, index);
		sim_pollset_del(&sim->poll_uars, page);
		list_add(&page->lru, &dead);
	}
	if (list_empty(&dead))
		return;
	/* the engine looks at the pages under RCU */
	synchronize_rcu();
	put_pages_list(&dead);
}

/*
 * The object tables' teardown, in order: QPs before the SRQs and CQs they
 * use; the NIC's flow tables and TIRs before the RQs these hold, SQs
 * before the TISes they send through, both queues before their CQs; then
 * MKEYs, PSVs, and the EQs the CQs completed to.
 */
static void (*const sim_obj_teardown[])(struct mlx5sp_sim *sim) = {
	sim_qp_destroy_all,
	sim_srq_destroy_all,
	sim_steer_flows_destroy_all,
	sim_eth_sq_destroy_all,
	sim_eth_rq_destroy_all,
	sim_steer_tis_destroy_all,
	sim_cq_destroy_all,
	sim_mkey_destroy_all,
	sim_psv_destroy_all,
	sim_eq_destroy_all,
};

/*
 * Firmware state of an initialized HCA: every object, then UARs, PDs,
 * RoCE addresses, the port's settings, user contexts and their memory.
 */
void sim_release_objects(struct mlx5sp_sim *sim)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sim_obj_teardown); i++)
		sim_obj_teardown[i](sim);
	sim_uar_pages_free(sim);
	bitmap_zero(sim->uar_map, sim->nr_uars);
	xa_destroy(&sim->pds);
	sim_roce_reset(sim);
	sim_port_reset(sim);
	sim_uctx_reset(sim);
	sim_qcnt_reset(sim);
	sim_lim_reset(sim);
	sim->pages.delta = 0;
}

int sim_cmd_disable_hca(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	int err = sim_check_function(c);

	if (err)
		return err;
	/* a card disables an initialized function in one step */
	if (sim->state == SIM_STATE_INITIALIZED)
		sim_release_objects(sim);
	sim_slots_abort(sim);
	if (sim->pages.count)
		sim_pages_forget(sim, "DISABLE_HCA");
	sim->issi = 0;
	sim_caps_reset_cur(sim);
	sim->state = SIM_STATE_CMDQ_READY;
	return 0;
}

int sim_cmd_query_issi(struct sim_cmd *c)
{
	MLX5_SET(query_issi_out, c->out, current_issi, c->sim->issi);
	MLX5_SET(query_issi_out, c->out, supported_issi_dw0,
		 SIM_ISSI_SUPPORTED);
	return 0;
}

int sim_cmd_set_issi(struct sim_cmd *c)
{
	u32 issi = MLX5_GET(set_issi_in, c->in, current_issi);

	if (issi >= 32 || !(SIM_ISSI_SUPPORTED & BIT(issi)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_ISSI_UNSUPPORTED);
	c->sim->issi = issi;
	return 0;
}

int sim_cmd_init_hca(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;

	if (sim->issi != SIM_ISSI_REQUIRED)
		return sim_fail(c, MLX5_CMD_STAT_BAD_SYS_STATE_ERR,
				MLX5SP_SIM_SYND_INIT_ISSI_NOT_SET);
	if (sim_pages_boot_needed(sim))
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_INIT_BOOT_PAGES);
	if (sim_pages_init_needed(sim))
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_INIT_INIT_PAGES);
	sim->state = SIM_STATE_INITIALIZED;
	return 0;
}

/* Graceful or force close, chosen by profile (or by op_mod 0/1). */
int sim_cmd_teardown_hca(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	u32 profile = MLX5_GET(teardown_hca_in, c->in, profile);

	if (c->op_mod > 1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_OP_MOD);
	if (profile != MLX5_TEARDOWN_HCA_IN_PROFILE_GRACEFUL_CLOSE &&
	    profile != MLX5_TEARDOWN_HCA_IN_PROFILE_FORCE_CLOSE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_TEARDOWN_BAD_PROFILE);

	sim_release_objects(sim);
	sim->state = SIM_STATE_ENABLED;
	MLX5_SET(teardown_hca_out, c->out, state,
		 MLX5_TEARDOWN_HCA_OUT_FORCE_STATE_SUCCESS);
	return 0;
}

/*
 * Each UAR has a zeroed page behind it (a BAR page on a card): the driver
 * maps it to user space, which writes its doorbells there.
 */
int sim_cmd_alloc_uar(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	struct page *page;
	unsigned long idx;
	int err;

	idx = find_first_zero_bit(sim->uar_map, sim->nr_uars);
	if (idx >= sim->nr_uars)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_UAR_EXHAUSTED);
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	err = xa_insert(&sim->uar_pages, idx + SIM_UAR_FIRST, page,
			GFP_KERNEL);
	if (!err) {
		err = sim_pollset_add(&sim->poll_uars, page);
		if (err)
			xa_erase(&sim->uar_pages, idx + SIM_UAR_FIRST);
	}
	if (err) {
		__free_page(page);
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	}
	set_bit(idx, sim->uar_map);
	MLX5_SET(alloc_uar_out, c->out, uar, idx + SIM_UAR_FIRST);
	return 0;
}

int sim_cmd_dealloc_uar(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	u32 uar = MLX5_GET(dealloc_uar_in, c->in, uar);
	struct page *page;

	if (!sim_uar_allocated(sim, uar))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_UAR_NOT_ALLOCATED);
	if (sim_eq_uses_uar(sim, uar))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_UAR_IN_USE);
	page = xa_erase(&sim->uar_pages, uar);
	clear_bit(uar - SIM_UAR_FIRST, sim->uar_map);
	if (page) {
		sim_pollset_del(&sim->poll_uars, page);
		synchronize_rcu_expedited();
		/* a user mapping keeps its own reference */
		put_page(page);
	}
	return 0;
}

int sim_cmd_alloc_pd(struct sim_cmd *c)
{
	u32 pd;
	int err;

	err = sim_lim_check(c, SIM_LIM_PD);
	if (err)
		return err;
	err = xa_alloc(&c->sim->pds, &pd, xa_mk_value(0),
		       XA_LIMIT(1, BIT(SIM_LOG_MAX_PD) - 1), GFP_KERNEL);
	if (err == -EBUSY)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_PD_EXHAUSTED);
	if (err)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	sim_lim_add(c->sim, SIM_LIM_PD);
	MLX5_SET(alloc_pd_out, c->out, pd, pd);
	return 0;
}

int sim_cmd_dealloc_pd(struct sim_cmd *c)
{
	u32 pd = MLX5_GET(dealloc_pd_in, c->in, pd);

	if (!xa_erase(&c->sim->pds, pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_PD_NOT_FOUND);
	sim_lim_sub(c->sim, SIM_LIM_PD);
	return 0;
}
