// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Firmware pages of the software ConnectX: QUERY_PAGES / MANAGE_PAGES,
 * page-request events, and holding the driver to returning every page.
 *
 * The device wants boot_pages before INIT_HCA's capabilities, init_pages
 * before INIT_HCA, and while initialized boot + init + page_delta, where
 * page requests move page_delta. Pages it holds are scribbled on now and
 * then, so a driver that frees one it gave is caught by KASAN.
 * Everything here runs under fw_lock.
 */

#include <linux/mm.h>

#include "dma.h"
#include "eq.h"
#include "pages.h"
#include "sim.h"
#include "syndromes.h"

#define SIM_FW_PAGE_SIZE	SZ_4K
#define SIM_STORM_MAX_EVENTS	4096
#define SIM_STORM_MAX_PAGES	SZ_64K
#define SIM_PAGE_DELTA_MAX	((s64)BIT_ULL(30))

static u64 sim_sat_sub(u64 a, u64 b)
{
	return a > b ? a - b : 0;
}

u64 sim_pages_boot_needed(struct mlx5sp_sim *sim)
{
	return sim_sat_sub(sim->params.boot_pages, sim->pages.count);
}

u64 sim_pages_init_needed(struct mlx5sp_sim *sim)
{
	u64 beyond_boot = sim_sat_sub(sim->pages.count, sim->params.boot_pages);

	return sim_sat_sub(sim->params.init_pages, beyond_boot);
}

/* Pages the device holds on to: none once it is torn down. */
static u64 sim_pages_required(struct mlx5sp_sim *sim)
{
	s64 target;

	if (sim->state != SIM_STATE_INITIALIZED)
		return 0;
	target = (s64)sim->params.boot_pages + sim->params.init_pages +
		 sim->pages.delta;
	return target > 0 ? target : 0;
}

/* > 0: the device wants more; < 0: the driver should take some back. */
s64 sim_pages_regular_needed(struct mlx5sp_sim *sim)
{
	if (sim->state != SIM_STATE_INITIALIZED)
		return 0;
	return (s64)sim_pages_required(sim) - (s64)sim->pages.count;
}

/* Held pages are keyed by their DMA address's page number. */
static void sim_page_scribble(struct mlx5sp_sim *sim, u64 pfn)
{
	void *p = sim_dma_ptr(sim, PFN_PHYS(pfn), SIM_FW_PAGE_SIZE,
			      SIM_FW_PAGE_SIZE);

	if (p)
		memset(p, SIM_SCRIBBLE_BYTE, SIM_FW_PAGE_SIZE);
}

/* Scribble on up to @max held pages, resuming where the last call ended. */
void sim_pages_scribble(struct mlx5sp_sim *sim, unsigned int max)
{
	unsigned long pfn = sim->pages.scribble_next;
	void *entry;

	lockdep_assert_held(&sim->fw_lock);
	if (!sim->pages.count || sim_is_fatal(sim))
		return;

	while (max--) {
		entry = xa_find(&sim->pages.held, &pfn, ULONG_MAX, XA_PRESENT);
		if (!entry) {
			pfn = 0;
			entry = xa_find(&sim->pages.held, &pfn, ULONG_MAX,
					XA_PRESENT);
			if (!entry)
				break;
		}
		sim_page_scribble(sim, pfn);
		pfn++;
	}
	sim->pages.scribble_next = pfn;
}

/* The driver did not return them: count them and never touch them again. */
void sim_pages_forget(struct mlx5sp_sim *sim, const char *why)
{
	u64 n = sim->pages.count;

	xa_destroy(&sim->pages.held);
	sim->pages.count = 0;
	sim->pages.scribble_next = 0;
	if (!n)
		return;
	sim_stat_add(sim, pages_leaked, n);
	pr_err("%s: %s with %llu firmware pages not returned\n", sim->name,
	       why, n);
}

static int sim_check_function(struct sim_cmd *c)
{
	/* query_pages_in and manage_pages_in share the header */
	if (MLX5_GET(query_pages_in, c->in, function_id) ||
	    MLX5_GET(query_pages_in, c->in, embedded_cpu_function))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_FUNCTION_ID);
	return 0;
}

int sim_cmd_query_pages(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	s64 num;
	int err;

	err = sim_check_function(c);
	if (err)
		return err;

	switch (c->op_mod) {
	case MLX5_QUERY_PAGES_IN_OP_MOD_BOOT_PAGES:
		num = sim_pages_boot_needed(sim);
		break;
	case MLX5_QUERY_PAGES_IN_OP_MOD_INIT_PAGES:
		num = sim_pages_init_needed(sim);
		break;
	case MLX5_QUERY_PAGES_IN_OP_MOD_REGULAR_PAGES:
		num = sim_pages_regular_needed(sim);
		break;
	default:
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_OP_MOD);
	}
	MLX5_SET(query_pages_out, c->out, num_pages, (u32)(s32)num);
	return 0;
}

/* A firmware page is a whole, live page of ordinary RAM. */
static bool sim_fw_page_ok(struct mlx5sp_sim *sim, u64 pa)
{
	struct page *page;

	if (!sim_dma_ram(sim, pa, SIM_FW_PAGE_SIZE, SIM_FW_PAGE_SIZE))
		return false;
	page = sim_dma_page(sim, pa);
	return page && page_count(page) > 0;
}

static void sim_pages_unwind(struct mlx5sp_sim *sim, const __be64 *pas,
			     u32 n)
{
	while (n--)
		xa_erase(&sim->pages.held, PHYS_PFN(be64_to_cpu(pas[n])));
}

static int sim_pages_give(struct sim_cmd *c, u32 n)
{
	const __be64 *pas = MLX5_ADDR_OF(manage_pages_in, c->in, pas);
	struct mlx5sp_sim *sim = c->sim;
	u64 need;
	u32 i;
	int err;

	need = MLX5_ST_SZ_BYTES(manage_pages_in) + (u64)n * sizeof(u64);
	if (need > c->inlen)
		return sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
				MLX5SP_SIM_SYND_PAGES_INLEN_ENTRIES);
	if (sim->pages.count + n > SIM_MAX_FW_PAGES)
		return sim_fail(c, MLX5_CMD_STAT_LIM_ERR,
				MLX5SP_SIM_SYND_PAGES_LIMIT);

	for (i = 0; i < n; i++)
		if (!sim_fw_page_ok(sim, be64_to_cpu(pas[i])))
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_PAGES_BAD_PA);

	for (i = 0; i < n; i++) {
		err = xa_insert(&sim->pages.held, PHYS_PFN(be64_to_cpu(pas[i])),
				xa_mk_value(0), GFP_KERNEL);
		if (err)
			goto err_unwind;
	}
	for (i = 0; i < n; i++)
		sim_page_scribble(sim, PHYS_PFN(be64_to_cpu(pas[i])));
	sim->pages.count += n;
	sim_stat_add(sim, pages_given, n);
	return 0;

err_unwind:
	sim_pages_unwind(sim, pas, i);
	if (err == -EBUSY)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_PAGES_DUP_PA);
	return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			MLX5SP_SIM_SYND_NO_MEMORY);
}

static int sim_pages_take(struct sim_cmd *c, u32 n)
{
	__be64 *pas = MLX5_ADDR_OF(manage_pages_out, c->out, pas);
	struct mlx5sp_sim *sim = c->sim;
	u64 need, spare;
	unsigned long pfn;
	void *entry;
	u32 i = 0;

	need = MLX5_ST_SZ_BYTES(manage_pages_out) + (u64)n * sizeof(u64);
	if (need > c->outlen)
		return sim_fail(c, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
				MLX5SP_SIM_SYND_PAGES_OUTLEN_ENTRIES);

	spare = sim_sat_sub(sim->pages.count, sim_pages_required(sim));
	n = min_t(u64, n, spare);
	xa_for_each(&sim->pages.held, pfn, entry) {
		if (i == n)
			break;
		xa_erase(&sim->pages.held, pfn);
		pas[i++] = cpu_to_be64(PFN_PHYS(pfn));
	}
	sim->pages.count -= i;
	sim_stat_add(sim, pages_returned, i);
	MLX5_SET(manage_pages_out, c->out, output_num_entries, i);
	return 0;
}

int sim_cmd_manage_pages(struct sim_cmd *c)
{
	u32 n = MLX5_GET(manage_pages_in, c->in, input_num_entries);
	int err;

	err = sim_check_function(c);
	if (err)
		return err;

	switch (c->op_mod) {
	case MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_FAIL:
		/* the driver could not give: it will try again */
		return 0;
	case MLX5_MANAGE_PAGES_IN_OP_MOD_ALLOCATION_SUCCESS:
		return sim_pages_give(c, n);
	case MLX5_MANAGE_PAGES_IN_OP_MOD_HCA_RETURN_PAGES:
		return sim_pages_take(c, n);
	default:
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_OP_MOD);
	}
}

static bool sim_pages_request(struct mlx5sp_sim *sim, s32 pages)
{
	union ev_data data = {};

	data.req_pages.func_id = cpu_to_be16(0);
	data.req_pages.num_pages = cpu_to_be32((u32)pages);
	return sim_eq_post(sim, MLX5_EVENT_TYPE_PAGE_REQUEST, 0, &data);
}

/* After the page-request EQ appears: ask for what is still missing. */
void sim_pages_request_outstanding(struct mlx5sp_sim *sim)
{
	s64 n = sim_pages_regular_needed(sim);

	lockdep_assert_held(&sim->fw_lock);
	if (n > 0)
		sim_pages_request(sim, min_t(s64, n, S32_MAX));
}

int sim_pages_storm(struct mlx5sp_sim *sim, u32 events, s32 pages)
{
	int err = 0;
	u32 i;

	if (!events || events > SIM_STORM_MAX_EVENTS || !pages ||
	    pages > SIM_STORM_MAX_PAGES || pages < -SIM_STORM_MAX_PAGES)
		return -EINVAL;

	mutex_lock(&sim->fw_lock);
	if (sim_is_fatal(sim)) {
		err = -EIO;
		goto unlock;
	}
	if (!sim_eq_subscribed(sim, MLX5_EVENT_TYPE_PAGE_REQUEST)) {
		err = -ENOENT;
		goto unlock;
	}
	for (i = 0; i < events; i++) {
		sim->pages.delta = clamp_t(s64, sim->pages.delta + pages,
					  -SIM_PAGE_DELTA_MAX,
					  SIM_PAGE_DELTA_MAX);
		sim_pages_request(sim, pages);
	}
unlock:
	mutex_unlock(&sim->fw_lock);
	return err;
}
