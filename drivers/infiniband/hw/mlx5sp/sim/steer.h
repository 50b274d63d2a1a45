/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * NIC steering of the software ConnectX (steer.c): transport interface
 * send and receive objects (TIS, TIR) and the NIC_RX flow tables, their
 * groups and entries, the root table, and the lookup a frame from the
 * cable goes through: groups in flow-index order, the first entry whose
 * masked outer dmac and ethertype match; a group without criteria
 * matches every frame. A TIR names one RQ (DIRECT).
 *
 * Locking: commands change everything under fw_lock; the tables, their
 * groups and entries and the root are changed under steer.lock too, which
 * the receive softirq takes for the lookup. An entry holds its TIR, a TIR
 * its RQ (users counts): neither goes while named, and an RQ is freed a
 * grace period after it left its table, so the RQ a lookup found stays
 * for the rest of the receive batch's RCU read-side section.
 */
#ifndef MLX5SP_SIM_STEER_H
#define MLX5SP_SIM_STEER_H

#include <linux/atomic.h>
#include <linux/if_ether.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct mlx5sp_sim;
struct sim_cmd;
struct sim_eth_rq;

#define SIM_FT_NIC_RX		0x0	/* PRM flow table_type NIC_RX */
#define SIM_FT_MAX_LEVEL	1
#define SIM_FT_LOG_MAX_SIZE	16
#define SIM_FT_LOG_MAX_NUM	8
#define SIM_FT_LOG_MAX_FLOW	16

struct sim_tis {
	u32 tisn;
	u32 td;
	atomic_t users;			/* SQs sending through it */
};

struct sim_tir {
	u32 tirn;
	u32 td;
	struct sim_eth_rq *rq;		/* held (its users) */
	atomic_t users;			/* flow table entries naming it */
};

struct sim_fg {
	struct list_head node;		/* in its table, by start index */
	u32 id;
	u32 start;
	u32 end;			/* inclusive */
	u8 mce;				/* match_criteria_enable */
	u8 dmac_mask[ETH_ALEN];
	__be16 etype_mask;
	u32 ftes;			/* entries in it */
};

struct sim_fte {
	u32 index;
	struct sim_fg *fg;
	u8 dmac[ETH_ALEN];		/* masked by the group's criteria */
	__be16 etype;
	struct sim_tir *tir;		/* held (its users) */
};

struct sim_ft {
	u32 id;
	u8 level;
	u8 log_size;
	struct list_head groups;	/* sim_fg, by start index */
	struct xarray ftes;		/* flow_index -> sim_fte */
};

struct sim_steer {
	struct xarray tises;		/* tisn -> sim_tis, fw_lock */
	struct xarray tirs;		/* tirn -> sim_tir, fw_lock */
	struct xarray fts;		/* table_id -> sim_ft, fw_lock */
	u32 next_fg;			/* flow group ids, fw_lock */
	spinlock_t lock;		/* protects groups, entries, root */
	struct sim_ft *root;		/* NIC_RX root, or NULL */
};

void sim_steer_init(struct mlx5sp_sim *sim);
void sim_steer_flows_destroy_all(struct mlx5sp_sim *sim);
void sim_steer_tis_destroy_all(struct mlx5sp_sim *sim);
struct sim_tis *sim_tis_get(struct mlx5sp_sim *sim, u32 tisn);
void sim_tis_put(struct sim_tis *tis);

struct sim_eth_rq *sim_steer_lookup(struct mlx5sp_sim *sim, const u8 *frame,
				    u32 len);
bool sim_steer_match(const struct sim_fg *fg, const struct sim_fte *fte,
		     const u8 *dmac, __be16 etype);

int sim_cmd_create_tis(struct sim_cmd *c);
int sim_cmd_destroy_tis(struct sim_cmd *c);
int sim_cmd_create_tir(struct sim_cmd *c);
int sim_cmd_destroy_tir(struct sim_cmd *c);
int sim_cmd_create_flow_table(struct sim_cmd *c);
int sim_cmd_destroy_flow_table(struct sim_cmd *c);
int sim_cmd_create_flow_group(struct sim_cmd *c);
int sim_cmd_destroy_flow_group(struct sim_cmd *c);
int sim_cmd_set_fte(struct sim_cmd *c);
int sim_cmd_delete_fte(struct sim_cmd *c);
int sim_cmd_set_flow_table_root(struct sim_cmd *c);

#endif /* MLX5SP_SIM_STEER_H */
