// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Fault injection and statistics of the software ConnectX: the exported C
 * API the KUnit suites use; debugfs.c offers the same to the shell.
 */

#include <linux/module.h>

#include "sim.h"

void mlx5sp_sim_fail_cmd(struct mlx5sp_sim *sim, u16 opcode, u8 status,
			 u32 syndrome, u32 count)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->fault_lock, flags);
	sim->fault.fail_opcode = opcode;
	sim->fault.fail_status = status;
	sim->fault.fail_syndrome = syndrome;
	sim->fault.fail_count = count;
	spin_unlock_irqrestore(&sim->fault_lock, flags);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_fail_cmd);

void mlx5sp_sim_delay_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 delay_ms,
			  u32 count)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->fault_lock, flags);
	sim->fault.delay_opcode = opcode;
	sim->fault.delay_ms = delay_ms;
	sim->fault.delay_count = count;
	spin_unlock_irqrestore(&sim->fault_lock, flags);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_delay_cmd);

void mlx5sp_sim_set_health_syndrome(struct mlx5sp_sim *sim, u8 synd)
{
	sim_health_set_fatal(sim, synd);
	/*
	 * A dead device does no more DMA: the engine looks at the fatal
	 * flag inside each of its RCU sections, so after a grace period
	 * the driver may free what the device had.
	 */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_set_health_syndrome);

void mlx5sp_sim_stop_health_counter(struct mlx5sp_sim *sim, bool stop)
{
	atomic_set(&sim->health_stopped, stop);
	/* hung firmware does no DMA either: see set_health_syndrome */
	synchronize_rcu();
	if (!stop)
		sim_engine_kick(sim);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_stop_health_counter);

int mlx5sp_sim_page_storm(struct mlx5sp_sim *sim, u32 events, s32 pages)
{
	return sim_pages_storm(sim, events, pages);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_page_storm);

static void sim_engine_stats(struct mlx5sp_sim *sim,
			     struct mlx5sp_sim_stats *st)
{
	struct sim_engine_stats *e = &sim->estats;
	int i;

	st->wqes_executed = atomic64_read(&e->wqes);
	st->cqes_written = atomic64_read(&e->cqes);
	st->cq_overruns = atomic64_read(&e->cq_overruns);
	st->comp_eqes = atomic64_read(&e->eqes_comp);
	st->doorbell_polls = atomic64_read(&e->polls);
	st->kicks = atomic64_read(&e->kicks);
	st->engine_sleeps = atomic64_read(&e->sleeps);
	st->rnr_naks = atomic64_read(&e->rnr_naks);
	st->retries = atomic64_read(&e->retries);
	st->wqes_flushed = atomic64_read(&e->flushed);
	st->ud_dropped = atomic64_read(&e->ud_dropped);
	st->bytes = atomic64_read(&e->bytes);
	for (i = 0; i < MLX5SP_SIM_NR_CQE_SYND; i++)
		st->cqe_errors[i] = atomic64_read(&e->err_synd[i]);
}

void mlx5sp_sim_get_stats(struct mlx5sp_sim *sim, struct mlx5sp_sim_stats *st)
{
	unsigned long flags;

	mutex_lock(&sim->fw_lock);
	spin_lock_irqsave(&sim->stats_lock, flags);
	*st = sim->stats;
	spin_unlock_irqrestore(&sim->stats_lock, flags);
	st->pages_held = sim->npages;
	st->boot_pages_outstanding = sim_pages_boot_needed(sim);
	st->init_pages_outstanding = sim_pages_init_needed(sim);
	st->regular_pages_outstanding = sim_pages_regular_needed(sim);
	mutex_unlock(&sim->fw_lock);
	sim_engine_stats(sim, st);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_get_stats);
