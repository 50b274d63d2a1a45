/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCE of the software ConnectX (roce.c): the GID table, vports,
 * transport domains and port events.
 */
#ifndef MLX5SP_SIM_ROCE_H
#define MLX5SP_SIM_ROCE_H

#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#define SIM_NUM_PORTS		1
#define SIM_GID_TABLE_SIZE	256

struct mlx5sp_sim;
struct sim_cmd;

struct sim_gid {
	bool valid;
	u8 gid[16];
	u8 mac[ETH_ALEN];
	bool vlan_valid;
	u16 vlan_id;
	u8 l3_type;			/* MLX5_ROCE_L3_TYPE_* */
	u8 version;			/* MLX5_ROCE_VERSION_* */
};

struct sim_port {
	struct sim_gid gids[SIM_GID_TABLE_SIZE];	/* under gid_lock */
};

/* RoCE: the port's netdev (held) and GID table */
struct sim_roce {
	netdevice_tracker netdev_tracker;
	struct notifier_block netdev_nb;
	bool netdev_nb_registered;
	spinlock_t gid_lock;		/* protects ports[].gids */
	struct sim_port ports[SIM_NUM_PORTS];
};

int sim_cmd_set_roce_address(struct sim_cmd *c);
int sim_cmd_query_roce_address(struct sim_cmd *c);
int sim_cmd_query_vport_state(struct sim_cmd *c);
int sim_cmd_query_nic_vport_context(struct sim_cmd *c);
int sim_cmd_alloc_transport_domain(struct sim_cmd *c);
int sim_cmd_dealloc_transport_domain(struct sim_cmd *c);
void sim_roce_reset(struct mlx5sp_sim *sim);
int sim_netdev_watch(struct mlx5sp_sim *sim);
void sim_netdev_unwatch(struct mlx5sp_sim *sim);
bool sim_port_active(struct mlx5sp_sim *sim);
void sim_port_event(struct mlx5sp_sim *sim, u8 sub_type);

#endif /* MLX5SP_SIM_ROCE_H */
