/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * BAR0 of the software ConnectX (bar.c): its registers, the health
 * counter and syndrome, the UAR pages, and what the driver calls on them.
 */
#ifndef MLX5SP_SIM_BAR_H
#define MLX5SP_SIM_BAR_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct mlx5_init_seg;
struct mlx5sp_model_dev;
struct mlx5sp_sim;
struct page;

/* BAR0's registers: the init segment and the command queue's address. */
struct sim_bar {
	/* BAR image of the init segment (big-endian words) */
	struct mlx5_init_seg *iseg;
	ktime_t boot_done;		/* "initializing" clears at this time */
	spinlock_t reg_lock;		/* protects cmdq_addr_h, cmdq_base */
	u32 cmdq_addr_h;
	u64 cmdq_base;			/* 0 until the driver sets it */
	atomic_long_t db_pending;	/* slots rung, not yet picked up */
};

/* The firmware's health as the init segment shows it. */
struct sim_health {
	atomic_t fatal;			/* health syndrome set */
	atomic_t nic_disabled;		/* the driver turned the NIC off */
	struct work_struct nic_off_work; /* reads disabled after a GP */
	atomic_t stopped;		/* counter frozen by a test */
	/*
	 * The counter runs on the firmware's own clock, not on a work item
	 * of the host (a loaded guest once held one off for 3 s, and the
	 * driver saw a healthy device as stuck): base + the SIM_HEALTH_PERIOD_MS
	 * ticks since t0_ns while running; base alone while frozen.
	 */
	spinlock_t counter_lock;	/* protects base, t0_ns, frozen */
	u32 base;
	u64 t0_ns;
	bool frozen;
};

u32 sim_health_counter(struct mlx5sp_sim *sim);

u32 sim_read32(struct mlx5sp_model_dev *mdev, u32 offset);
void sim_write32(struct mlx5sp_model_dev *mdev, u32 offset, u32 val);
void sim_write64(struct mlx5sp_model_dev *mdev, u32 offset, u64 val);
struct page *sim_uar_page(struct mlx5sp_model_dev *mdev, u32 index);
void sim_uar_touch(struct mlx5sp_model_dev *mdev, u32 index, u32 offset);
bool sim_uar_store(struct mlx5sp_model_dev *mdev, u32 index, u32 offset,
		   u64 val, unsigned int size);
/*
 * What sim_uar_touch() puts where a faulting store goes: no doorbell
 * libmlx5 writes is all ones (a CQ number or QPN 0xffffff).
 */
#define SIM_UAR_UNWRITTEN	(~0ULL)
bool sim_uar_store_landed(struct mlx5sp_sim *sim, u32 index, u32 offset);
void sim_bar_init(struct mlx5sp_sim *sim);
void sim_health_set_fatal(struct mlx5sp_sim *sim, u8 synd);
void sim_nic_off_work(struct work_struct *work);

#endif /* MLX5SP_SIM_BAR_H */
