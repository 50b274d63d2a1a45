/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The NIC's work queues of the software ConnectX: Ethernet SQs and their
 * transmit path (eth_sq.c), Ethernet RQs and the receive path into them
 * (eth_rq.c). Their numbers come from the QP number space (reserved in
 * sim->qps, so a doorbell's qpn field names an SQ as it names a QP);
 * the objects are in the port's sqs and rqs, freed a grace period after
 * they leave them.
 *
 * An SQ runs in the engine thread (a kernel doorbell kicks it), a WQE at
 * a time under rcu_read_lock() and sq->lock; an RQ takes frames in the
 * receive softirq (net.c's NAPI) under rq->lock. Commands change their
 * state under fw_lock and the queue's lock. Order: queue lock, then the
 * CQ's (cqe.c).
 */
#ifndef MLX5SP_SIM_ETH_WQ_H
#define MLX5SP_SIM_ETH_WQ_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "buf.h"

struct mlx5sp_sim;
struct sim_cmd;
struct sim_cq;
struct sim_engine;
struct sim_tis;
struct sk_buff;

#define SIM_ETH_SQ_BUDGET	64	/* WQEs of one SQ per engine pass */
#define SIM_ETH_WQE_MAX		1024	/* max_wqe_sz_sq */
#define SIM_ETH_INL_START	2	/* inline_hdr.start[] in the eth seg */
#define SIM_INVALID_LKEY	0x100	/* PRM: ends a receive WQE's list */

/* The WQ context both queues share, as CREATE_SQ/RQ give it. */
struct sim_eth_wq_cfg {
	u32 pd;
	u32 uar;
	u8 log_sz;
	u8 stride_shift;
	u64 dbr_addr;
	__be32 *dbr;
};

struct sim_eth_sq {
	struct mlx5sp_sim *sim;
	u32 sqn;
	u32 user_index;
	u32 pd;
	u32 uar;
	struct sim_cq *cq;		/* held */
	struct sim_tis *tis;		/* held */
	bool flush_in_error;
	u8 log_wq_sz;
	u8 min_inline;			/* sqc min_wqe_inline_mode */
	u32 wqe_cnt;			/* 64-byte basic blocks */
	struct sim_buf buf;
	u64 dbr_addr;
	__be32 *dbr;			/* [MLX5_SND_DBR]: the send counter */
	struct list_head dead;		/* out of the table, to be freed */

	spinlock_t lock;		/* protects state and ci */
	u8 state;			/* MLX5_SQC_STATE_* */
	u16 ci;				/* next basic block (free running) */
};

struct sim_eth_rq {
	struct mlx5sp_sim *sim;
	u32 rqn;
	u32 user_index;
	u32 pd;
	struct sim_cq *cq;		/* held */
	bool flush_in_error;
	u8 log_wq_sz;
	u8 stride_shift;		/* log2 bytes of a WQE */
	u32 wqe_cnt;
	struct sim_buf buf;
	u64 dbr_addr;
	__be32 *dbr;			/* [MLX5_RCV_DBR]: the receive counter */
	atomic_t users;			/* TIRs naming it */
	struct list_head dead;

	spinlock_t lock;		/* protects state and ci */
	u8 state;			/* MLX5_RQC_STATE_* */
	u16 ci;				/* next WQE to fill (free running) */
};

/* A send WQE as the port reads it (eth_sq.c, and KUnit). */
struct sim_eth_wqe {
	u8 opcode;			/* MLX5_OPCODE_SEND or _NOP */
	u8 ds;				/* 16-byte segments */
	u8 nbb;				/* 64-byte basic blocks */
	u32 qpn;			/* the SQ it names */
	bool signaled;			/* CQ_UPDATE */
	u8 cs_flags;
	u16 ihs;			/* inline header bytes */
	const u8 *inl;			/* ... where they start */
	u8 nseg;			/* data segments */
	const struct mlx5_wqe_data_seg *seg;
};

/* eth_sq.c */
int sim_cmd_create_sq(struct sim_cmd *c);
int sim_cmd_modify_sq(struct sim_cmd *c);
int sim_cmd_query_sq(struct sim_cmd *c);
int sim_cmd_destroy_sq(struct sim_cmd *c);
void sim_eth_sq_destroy_all(struct mlx5sp_sim *sim);
bool sim_eth_sq_poll(struct sim_engine *eng, struct mlx5sp_sim *sim);
u8 sim_eth_wqe_parse(const void *wqe, u32 len, struct sim_eth_wqe *w);

/* eth_rq.c */
int sim_eth_wq_parse(struct sim_cmd *c, const void *wq, u8 min_stride,
		     u8 max_stride, struct sim_eth_wq_cfg *cfg,
		     struct sim_buf *buf);
int sim_eth_wq_number(struct sim_cmd *c, u32 *n);
int sim_cmd_create_rq(struct sim_cmd *c);
int sim_cmd_modify_rq(struct sim_cmd *c);
int sim_cmd_query_rq(struct sim_cmd *c);
int sim_cmd_destroy_rq(struct sim_cmd *c);
void sim_eth_rq_destroy_all(struct mlx5sp_sim *sim);
struct sim_eth_rq *sim_eth_rq_get(struct mlx5sp_sim *sim, u32 rqn);
void sim_eth_rq_put(struct sim_eth_rq *rq);
void sim_eth_rx(struct sim_engine *eng, struct mlx5sp_sim *sim,
		struct sk_buff *skb);

#endif /* MLX5SP_SIM_ETH_WQ_H */
