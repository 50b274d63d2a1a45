/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * How many objects of each kind a model device holds, against the counts
 * its general capabilities report (limits.c).
 */
#ifndef MLX5SP_SIM_LIMITS_H
#define MLX5SP_SIM_LIMITS_H

#include <linux/types.h>

struct mlx5sp_sim;
struct mlx5sp_sim_params;
struct sim_cmd;

enum sim_lim {
	SIM_LIM_PD,		/* log_max_pd */
	SIM_LIM_CQ,		/* log_max_cq */
	SIM_LIM_QP,		/* log_max_qp, the GSI QP included */
	SIM_LIM_SRQ,		/* log_max_srq */
	SIM_LIM_MKEY,		/* log_max_mkey */
	SIM_NR_LIMS,
};

/* Counts change only in commands, under fw_lock. */
struct sim_limits {
	u32 held[SIM_NR_LIMS];
	u64 refused[SIM_NR_LIMS];	/* creates failed at the limit */
};

/* The log2 count a device made with @p reports for @kind. */
u8 sim_lim_log(const struct mlx5sp_sim_params *p, enum sim_lim kind);
int sim_lim_params_valid(const struct mlx5sp_sim_params *p);
/* 0 when one more fits; otherwise fails @c as a ConnectX does. */
int sim_lim_check(struct sim_cmd *c, enum sim_lim kind);
void sim_lim_add(struct mlx5sp_sim *sim, enum sim_lim kind);
void sim_lim_sub(struct mlx5sp_sim *sim, enum sim_lim kind);
void sim_lim_reset(struct mlx5sp_sim *sim);
const char *sim_lim_name(enum sim_lim kind);

#endif
