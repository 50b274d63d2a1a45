/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Queue pairs and shared receive queues of the software ConnectX: the
 * objects (qp.c, srq.c), the requester (sq.c) and the responder (rq.c).
 */
#ifndef MLX5SP_SIM_QP_H
#define MLX5SP_SIM_QP_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mlx5/mlx5_ifc.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "buf.h"
#include "sgl.h"
#include "wire.h"

struct mlx5sp_sim;
struct sim_cmd;
struct sim_cq;
struct sim_engine;
struct sim_rx_pkt;
struct sim_gid;

/* A shared receive queue: freed after a grace period, like a CQ. */
struct sim_srq {
	struct mlx5sp_sim *sim;
	u32 srqn;
	u32 pd;
	u8 log_size;
	u8 stride_shift;		/* log2 bytes of a WQE */
	u32 nent;
	u64 dbr_addr;
	__be32 *dbr;			/* [0]: WQEs posted (16 bits) */
	struct sim_buf buf;
	atomic_t users;			/* QPs using it */
	struct list_head dead;		/* out of the table, to be freed */

	spinlock_t lock;		/* protects everything below */
	u16 head;			/* index of the next WQE to use */
	u16 ci;				/* WQEs used (free running) */
	u16 lwm;			/* limit watermark */
	bool armed;			/* SRQ_RQ_LIMIT when below lwm */
};

/* Requester waits: RNR NAK timer or a retransmission timeout. */
enum sim_sq_wait {
	SIM_SQ_RUN,
	SIM_SQ_WAIT_RNR,
	SIM_SQ_WAIT_RETRY,
	SIM_SQ_WAIT_ACK,		/* every ACK slot taken (sq.c) */
};

struct sim_sq_ack;

struct sim_qp {
	struct mlx5sp_sim *sim;
	u32 qpn;
	u16 uid;
	u8 st;				/* MLX5_QP_ST_RC, _UD, _QP1 */
	u32 pd;
	struct sim_cq *scq;		/* NULL without an SQ */
	struct sim_cq *rcq;		/* NULL without an RQ */
	struct sim_srq *srq;		/* receives from an SRQ, or NULL */
	struct sim_buf buf;		/* RQ first, SQ after */
	u64 dbr_addr;
	__be32 *dbr;			/* [MLX5_RCV_DBR], [MLX5_SND_DBR] */
	u32 user_index;
	u32 uar;
	u32 sq_wqe_cnt;			/* basic blocks */
	u32 sq_off;			/* byte offset of the SQ in buf */
	u32 rq_wqe_cnt;
	u8 rq_stride_shift;		/* log2 bytes of an RQ WQE */
	u8 rq_type;
	bool no_sq;
	struct list_head dead;		/* out of the table, to be freed */

	/*
	 * The context as firmware keeps it, and its decoded view. Written by
	 * commands holding sq_lock and rq_lock; read under either.
	 */
	u32 qpc[MLX5_ST_SZ_DW(qpc)];
	u8 state;			/* MLX5_QP_STATE_* */
	u8 port;			/* 1-based */
	u8 sgid_index;
	u8 rgid[16];
	u32 remote_qpn;
	u64 cnp_ns;			/* last CNP sent for it (cong.c) */
	u32 qkey;
	u8 mtu;
	u8 log_msg_max;
	u8 min_rnr_nak;
	u8 retry_count;
	u8 rnr_retry;
	u8 ack_timeout;
	bool rre, rwe, rae;
	u8 qcnt;			/* counter_set_id; READ_ONCE in the data path */

	/*
	 * sq_lock and rq_lock, like every data-path lock of the model (CQ,
	 * SRQ, MKEY, PSV, GID table), are taken with bottom halves off:
	 * frames are run where they arrive, in the receive softirq (net.c).
	 * Order: sq_lock, rq_lock, then the CQ's.
	 */
	spinlock_t sq_lock;		/* protects the requester below */
	u16 sq_ci;			/* next basic block to execute */
	enum sim_sq_wait wait;
	u64 wait_until;			/* ktime ns */
	u8 rnr_left;			/* RNR retries left, 7: infinite */
	u8 retry_left;			/* transport retries left */
	bool ack_lost;			/* the head WQE's request found no
					 * peer: its ACK timer runs (sq.c) */
	u32 rd_atomic_inflight;		/* READ/atomic not yet complete */
	/*
	 * RC: completions waiting for their ACK to come back (the device's
	 * ack_delay_us), oldest first, a ring of SIM_SQ_ACKS (sq.c).
	 */
	struct sim_sq_ack *acks;
	u8 ack_head;
	u8 ack_n;
	/*
	 * drain_sigerr (signature pipelining): after a signature error the
	 * SQ stops in SQD before the next fenced WQE, after at most
	 * sim->knobs.sig_runon more unfenced ones, or when it runs dry.
	 */
	bool drain_sigerr;
	bool sig_draining;		/* a signature error seen, stopping */
	u8 sig_runon_left;		/* unfenced WQEs that may still run */
	u16 sig_checked;		/* sq_ci last counted against it */
	/* in SQD with WQEs still on the wire: SQ_DRAINED once they are done */
	bool sq_drain_pending;
	struct mlx5sp_sim *peer_sim;	/* cached fabric lookup ... */
	u32 peer_gen;			/* ... valid while the fabric is at it; 0: none */

	/* RoCEv2: the requester's packets and PSNs, under sq_lock */
	struct sim_wire_req wreq;

	spinlock_t rq_lock;		/* protects the responder below */
	u16 rq_ci;			/* next receive WQE */
	bool last_wqe_sent;		/* SRQ: LAST_WQE_REACHED raised in ERR */
	bool comm_est;			/* COMM_EST raised since RESET (rq_lock) */
	/* RoCEv2: the responder's PSNs and reassembly, under rq_lock */
	struct sim_wire_resp wresp;
};

/* srq.c */
int sim_cmd_create_srq(struct sim_cmd *c);
int sim_cmd_destroy_srq(struct sim_cmd *c);
int sim_cmd_query_srq(struct sim_cmd *c);
int sim_cmd_arm_rq(struct sim_cmd *c);
void sim_srq_destroy_all(struct mlx5sp_sim *sim);
struct sim_srq *sim_srq_get(struct mlx5sp_sim *sim, u32 srqn);
void sim_srq_put(struct sim_srq *srq);
int sim_srq_take(struct sim_srq *srq, u32 qpn, struct sim_sgl *sgl, u16 *idx);
bool sim_srq_has_wqe(struct sim_srq *srq);
u8 sim_srq_scatter_list(struct sim_srq *srq, u16 idx, u32 qpn,
			struct sim_sgl *sgl);

/* qp.c */
int sim_cmd_create_qp(struct sim_cmd *c);
int sim_cmd_destroy_qp(struct sim_cmd *c);
int sim_cmd_query_qp(struct sim_cmd *c);
int sim_cmd_modify_qp(struct sim_cmd *c);
void sim_qp_destroy_all(struct mlx5sp_sim *sim);
int sim_qp_transition(u16 opcode, u8 cur, u8 *next);
struct sim_qp *sim_qp_lookup(struct mlx5sp_sim *sim, u32 qpn);
void sim_qp_set_error(struct sim_qp *qp);

/* sq.c: the requester */
bool sim_sq_process(struct sim_engine *eng, struct sim_qp *qp);
bool sim_sq_doorbell(struct mlx5sp_sim *sim, u32 uar, u64 val);
void sim_sq_answer(struct sim_engine *eng, struct sim_qp *qp,
		   const struct sim_rx_pkt *pkt);
u64 sim_sq_due(struct sim_qp *qp);
void sim_sq_catch_up(struct sim_engine *eng, struct sim_qp *qp);
bool sim_sq_flush(struct sim_qp *qp);
int sim_sq_acks_alloc(struct sim_qp *qp);
bool sim_sq_acks_write(struct sim_qp *qp, bool all);
void sim_sq_sig_error(struct sim_qp *qp);
bool sim_sq_sig_stop(bool fenced, u8 runon_left);
void sim_qp_set_drained(struct sim_qp *qp);
void sim_qp_sq_drained(struct sim_qp *qp);

/* rq.c: the responder */
enum sim_resp {
	SIM_RESP_OK,
	SIM_RESP_RNR,			/* no receive WQE */
	SIM_RESP_NOT_READY,		/* peer missing or not receiving */
	SIM_RESP_ERR,			/* NAK: syndrome for the requester */
};

struct sim_resp_req {
	struct mlx5sp_sim *req_sim;	/* the requester's device */
	u8 wqe_opcode;			/* MLX5_OPCODE_* */
	u32 src_qpn;
	__be32 imm;
	bool solicited;
	struct sim_sgl *src;		/* requester's data (send/write) */
	struct sim_sgl *dst;		/* requester's buffer (read/atomic) */
	u64 raddr;
	u32 rkey;
	u32 len;
	u64 swap_add;
	u64 compare;
	u64 atomic_old;			/* out: an atomic's original value */
	/* UD */
	u32 qkey;
	const struct sim_gid *sgid;
	const u8 *dgid;
	u8 hop_limit;
	u8 tclass;
	u32 flow_label;			/* IPv6 and the GRH (20 bits) */
	bool vlan;			/* tagged: PCP and VID in vlan_tci */
	u16 vlan_tci;
	u8 syndrome;			/* out: SIM_RESP_ERR */
	struct sim_sig_log *sig;	/* out: signature errors (RC/UC) */
	struct sim_sge key;		/* out: a READ without @dst, the
					 * entry its data is read from */
	bool sig_key_ok;		/* ... which may be a signature key:
					 * the caller makes its wire bytes */
	/* chunks of one message: the errors their SIGERR CQEs reported */
	struct sim_sig_log *sig_seen;
};

int sim_rq_execute(struct sim_engine *eng, struct sim_qp *qp,
		   struct sim_resp_req *r);
int sim_rq_deliver_ud(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r);
bool sim_rq_flush(struct sim_qp *qp);

bool sim_atomic_host_endian(struct mlx5sp_sim *sim);
int sim_rq_execute_locked(struct sim_engine *eng, struct sim_qp *qp,
			  struct sim_resp_req *r);
int sim_rq_direct_begin(struct sim_engine *eng, struct sim_qp *qp,
			struct sim_resp_req *r, bool *whole);
int sim_rq_direct_part(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r, u64 off);
int sim_rq_direct_sig(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r, u64 off, bool all, u32 *put);
int sim_rq_direct_end(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r);

#endif /* MLX5SP_SIM_QP_H */
