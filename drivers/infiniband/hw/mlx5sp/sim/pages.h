/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Firmware pages of the software ConnectX (pages.c): QUERY_PAGES,
 * MANAGE_PAGES, page requests, and scribbling on what it holds.
 */
#ifndef MLX5SP_SIM_PAGES_H
#define MLX5SP_SIM_PAGES_H

#include <linux/types.h>
#include <linux/xarray.h>

struct mlx5sp_sim;
struct sim_cmd;

/* Firmware pages the driver gave, under fw_lock. */
struct sim_pages {
	struct xarray held;		/* held firmware pages, by PFN */
	u64 count;			/* entries in held */
	s64 delta;			/* regular pages wanted (+) or not */
	unsigned long scribble_next;	/* PFN where scribbling resumes */
};

int sim_cmd_query_pages(struct sim_cmd *c);
int sim_cmd_manage_pages(struct sim_cmd *c);
u64 sim_pages_boot_needed(struct mlx5sp_sim *sim);
u64 sim_pages_init_needed(struct mlx5sp_sim *sim);
s64 sim_pages_regular_needed(struct mlx5sp_sim *sim);
void sim_pages_scribble(struct mlx5sp_sim *sim, unsigned int max);
void sim_pages_forget(struct mlx5sp_sim *sim, const char *why);
int sim_pages_storm(struct mlx5sp_sim *sim, u32 events, s32 pages);
void sim_pages_request_outstanding(struct mlx5sp_sim *sim);

#endif /* MLX5SP_SIM_PAGES_H */
