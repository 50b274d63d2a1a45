/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion queues of the software ConnectX (cq.c) and the CQEs it
 * writes (cqe.c).
 */
#ifndef MLX5SP_SIM_CQ_H
#define MLX5SP_SIM_CQ_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mlx5/cq.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "buf.h"

struct mlx5sp_sim;
struct sim_cmd;
struct sim_sig_err;

enum sim_cq_arm {
	SIM_CQ_DISARMED,
	SIM_CQ_ARMED_ANY,
	SIM_CQ_ARMED_SOL,
};

struct sim_cq {
	struct mlx5sp_sim *sim;
	u32 cqn;
	u16 uid;
	u8 log_size;
	u32 nent;
	u32 uar;
	u64 dbr_addr;
	__be32 *dbr;			/* [0] consumer counter, [1] arm */
	struct sim_buf buf;
	bool oi;			/* overrun ignore */
	atomic_t users;			/* QPs using it */
	struct list_head dead;		/* out of the table, to be freed */
	u64 db_arm;			/* arm doorbell not yet taken (xchg) */

	spinlock_t lock;		/* protects everything below */
	u32 eqn;
	u16 cq_period;
	u16 cq_max_count;
	u32 pi;				/* producer counter (free running) */
	u32 last_arm;			/* arm doorbell record last seen */
	enum sim_cq_arm arm;
	u32 arm_sn;
	bool overrun;			/* stopped: CQ error raised */
};

/* cq.c */
int sim_cmd_create_cq(struct sim_cmd *c);
int sim_cmd_destroy_cq(struct sim_cmd *c);
int sim_cmd_query_cq(struct sim_cmd *c);
int sim_cmd_modify_cq(struct sim_cmd *c);
void sim_cq_destroy_all(struct mlx5sp_sim *sim);
struct sim_cq *sim_cq_get(struct mlx5sp_sim *sim, u32 cqn);
void sim_cq_put(struct sim_cq *cq);
bool sim_cq_poll_arm(struct sim_cq *cq);
void sim_cq_doorbell(struct mlx5sp_sim *sim, u32 uar, u64 val);

/* cqe.c */
struct sim_cqe_info {
	u8 opcode;			/* MLX5_CQE_* */
	u8 syndrome;			/* error CQEs */
	u8 wqe_opcode;			/* requester: MLX5_OPCODE_* */
	u16 wqe_counter;
	u32 qpn;
	u32 user_index;
	u32 byte_cnt;
	__be32 imm;			/* immediate, inval rkey or pkey */
	u32 flags_rqpn;
	bool solicited;
	bool vlan;			/* UD: the datagram had a VLAN tag */
	u16 vlan_info;			/* ... its PCP (the SL) and VID */
	/* Ethernet RQs (eth_rq.c): the frame's headers, what was checked */
	u8 l4_l3_hdr_type;		/* l4 type << 4 | l3 type << 2 */
	u8 hds_ip_ext;			/* CQE_L3_OK, CQE_L4_OK */
	/* MLX5_CQE_SIG_ERR: the error and the signature MKEY (sig.c) */
	const struct sim_sig_err *sig_err;
	u32 sig_mkey;
};

bool sim_cqe_write(struct sim_cq *cq, const struct sim_cqe_info *ci);
/* What becomes of a CQE (hostile firmware, fault.c) */
enum sim_cqe_fate {
	SIM_CQE_WRITE,		/* written (maybe corrupted) */
	SIM_CQE_TWICE,		/* written, then again in the next slot */
	SIM_CQE_LOST,		/* never written */
};

enum sim_cqe_fate sim_hostile_cqe(struct mlx5sp_sim *sim,
				  struct mlx5_cqe64 *cqe);
void sim_cqe_encode(struct mlx5_cqe64 *cqe, const struct sim_cqe_info *ci,
		    u32 index, u8 log_size);
void sim_cq_arm(struct sim_cq *cq, u32 arm);

#endif /* MLX5SP_SIM_CQ_H */
