/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * DEVX of the software ConnectX (uctx.c): user contexts, the uids that
 * own objects, user memory.
 */
#ifndef MLX5SP_SIM_UCTX_H
#define MLX5SP_SIM_UCTX_H

#include <linux/types.h>
#include <linux/xarray.h>

struct mlx5sp_sim;
struct sim_cmd;

/* Object kinds a DEVX uid may own (uctx.c). */
enum sim_obj_type {
	SIM_OBJ_PD,
	SIM_OBJ_TD,
	SIM_OBJ_MKEY,			/* by index */
	SIM_OBJ_CQ,
	SIM_OBJ_QP,
	SIM_OBJ_PSV,
	SIM_OBJ_UMEM,			/* kept in umems, not in owner[] */
	SIM_OBJ_NR,
};

/* DEVX user contexts and user memory, under fw_lock. */
struct sim_devx {
	struct xarray uctxs;		/* uid -> its uctx cap, as a value */
	struct xarray umems;		/* umem id -> sim_umem */
	struct xarray umem_users;	/* type << 32 | id -> umem ids used */
	struct xarray owner[SIM_OBJ_NR]; /* id -> uid (value), uid != 0 only */
};

void sim_uctx_init(struct mlx5sp_sim *sim);
void sim_uctx_reset(struct mlx5sp_sim *sim);
int sim_cmd_create_uctx(struct sim_cmd *c);
int sim_cmd_destroy_uctx(struct sim_cmd *c);
int sim_cmd_create_umem(struct sim_cmd *c);
int sim_cmd_destroy_umem(struct sim_cmd *c);
u16 sim_obj_uid(struct mlx5sp_sim *sim, enum sim_obj_type type, u32 id);
int sim_uid_admit(struct sim_cmd *c);
int sim_uid_resolve_umem(struct sim_cmd *c, void **nin, u32 *ninlen,
			 u64 *pair);
void sim_uid_commit(struct sim_cmd *c, u64 umem_pair);

#endif /* MLX5SP_SIM_UCTX_H */
