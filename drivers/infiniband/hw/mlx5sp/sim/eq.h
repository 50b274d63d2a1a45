/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Event queues of the software ConnectX (eq.c): the EQs the driver
 * creates, the EQEs the device writes into them, and, for tests, EQEs
 * that lie (fault.c).
 */
#ifndef MLX5SP_SIM_EQ_H
#define MLX5SP_SIM_EQ_H

#include <linux/mlx5/device.h>
#include <linux/types.h>

struct mlx5sp_sim;
struct sim_cmd;

struct sim_eq {
	u8 eqn;
	u8 log_size;
	u8 log_page_size;
	u16 intr;
	u32 uar;
	u32 nent;
	u32 npas;
	u64 *pas;			/* physical addresses of the buffer */
	u64 mask[4];			/* event_bitmask: bit T = event type T */
	/* protected by eq_lock */
	u32 ci;				/* consumer counter (free running) */
	u32 pi;				/* producer counter (free running) */
	bool armed;
};

/* eq.c */
int sim_cmd_create_eq(struct sim_cmd *c);
int sim_cmd_destroy_eq(struct sim_cmd *c);
int sim_cmd_query_eq(struct sim_cmd *c);
bool sim_eq_uses_uar(struct mlx5sp_sim *sim, u32 uar);
void sim_eq_destroy_all(struct mlx5sp_sim *sim);
void sim_eq_doorbell(struct mlx5sp_sim *sim, u32 uar, u32 val, bool arm);
bool sim_eq_post(struct mlx5sp_sim *sim, u8 type, u8 sub_type,
		 const union ev_data *data);
bool sim_eq_subscribed(struct mlx5sp_sim *sim, u8 type);
bool sim_eq_exists(struct mlx5sp_sim *sim, u32 eqn);
u32 sim_eq_async_eqn(struct mlx5sp_sim *sim);
bool sim_eq_post_to(struct mlx5sp_sim *sim, u32 eqn, u8 type,
		    const union ev_data *data);
void sim_post_qp_event(struct mlx5sp_sim *sim, u8 type, u32 qpn);

#endif /* MLX5SP_SIM_EQ_H */
