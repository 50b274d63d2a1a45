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
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_set_health_syndrome);

void mlx5sp_sim_stop_health_counter(struct mlx5sp_sim *sim, bool stop)
{
	atomic_set(&sim->health_stopped, stop);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_stop_health_counter);

int mlx5sp_sim_page_storm(struct mlx5sp_sim *sim, u32 events, s32 pages)
{
	return sim_pages_storm(sim, events, pages);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_page_storm);

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
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_get_stats);
