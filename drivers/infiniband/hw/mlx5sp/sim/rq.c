// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder: what a QP does with a request that reaches it. SENDs
 * consume a receive WQE (data segments up to the stride, ended by the
 * invalid lkey) and complete on the receive CQ; RDMA WRITE, READ and
 * atomics go through the rkey, checked for PD, access, bounds and the
 * QP's rre/rwe/rae. UD datagrams get the 40-byte GRH (RoCE v2: an IPv4
 * header in its last 20 bytes, or an IPv6 header) and a Q_Key check.
 * UC (no READ or atomics, rre/rae never set) drops a request it refuses
 * and a message without a receive WQE, and stays in its state.
 *
 * A QP on an SRQ takes its receive WQEs from the SRQ's free list
 * (srq.c) and names each in its CQE by index; in ERR it flushes nothing
 * of the SRQ and raises LAST_WQE_REACHED once.
 *
 * Runs in the requester's engine (maybe another device's) under
 * rcu_read_lock(), taking the responder QP's rq_lock (then the SRQ's
 * lock).
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "buf.h"
#include "counters.h"
#include "cq.h"
#include "engine.h"
#include "eq.h"
#include "mkey.h"
#include "qp.h"
#include "sgl.h"
#include "sim.h"
#include "wire.h"

#define SIM_INVALID_LKEY	0x100	/* ends a receive WQE's list */
#define SIM_CQE_GRH		BIT(28)	/* flags_rqpn: GRH present */
#define SIM_ROCE_HDRS		(8 + 12 + 8 + 4)	/* UDP BTH DETH ICRC */
#define SIM_IB_NEXT_HDR_BTH	0x1b
#define SIM_DEFAULT_PKEY	0xffff

/* A QP takes requests in RTR and later states, on a live device. */
static bool sim_rq_receiving(struct sim_qp *qp)
{
	u8 state = READ_ONCE(qp->state);

	if (sim_engine_halted(qp->sim))
		return false;
	return state == MLX5_QP_STATE_RTR || state == MLX5_QP_STATE_RTS ||
	       state == MLX5_QP_STATE_SQD || state == MLX5_QP_STATE_SQER;
}

static u16 sim_rq_avail(struct sim_qp *qp)
{
	u16 pi = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_RCV_DBR])) & 0xffff;

	if (!qp->rq_wqe_cnt)
		return 0;
	/* the receive WQEs were written before the doorbell record */
	dma_rmb();
	return pi - qp->rq_ci;
}

/* Receive WQE @idx's data segments. Returns 0 or a CQE syndrome. */
static u8 sim_rq_scatter_list(struct sim_qp *qp, u16 idx, struct sim_sgl *sgl)
{
	u64 base = (u64)(idx & (qp->rq_wqe_cnt - 1)) << qp->rq_stride_shift;
	u32 i, n = BIT(qp->rq_stride_shift) / MLX5_SEND_WQE_DS, lkey;
	struct mlx5_wqe_data_seg *ds;
	u8 synd;

	sim_sgl_reset(sgl);
	for (i = 0; i < n; i++) {
		ds = sim_buf_at(&qp->buf, base + i * MLX5_SEND_WQE_DS);
		lkey = be32_to_cpu(READ_ONCE(ds->lkey));
		if (lkey == SIM_INVALID_LKEY)
			break;
		synd = sim_sgl_add_key(qp->sim, sgl, lkey,
				       be64_to_cpu(READ_ONCE(ds->addr)),
				       be32_to_cpu(READ_ONCE(ds->byte_count)) &
				       ~MLX5_INLINE_SEG, qp->pd, qp->qpn,
				       SIM_ACC_LW);
		if (synd)
			return synd;
	}
	return 0;
}

/* Is there a receive WQE, in the QP's RQ or its SRQ? */
static bool sim_rq_has_wqe(struct sim_qp *qp)
{
	if (qp->srq)
		return qp->wresp.rq_held || sim_srq_has_wqe(qp->srq);
	return sim_rq_avail(qp);
}

/*
 * Take the next receive WQE: its counter (RQ) or index (SRQ) into @idx,
 * its scatter list into @sgl if given. Returns 0, a CQE syndrome (the WQE
 * is used all the same), or -1 when there is none.
 */
static int sim_rq_take(struct sim_qp *qp, struct sim_sgl *sgl, u16 *idx)
{
	/* one a SEND took at its first packet (sim_rq_direct_begin) */
	if (qp->srq && qp->wresp.rq_held) {
		qp->wresp.rq_held = false;
		*idx = qp->wresp.rq_idx;
		return sgl ? sim_srq_scatter_list(qp->srq, *idx, qp->qpn, sgl) :
			     0;
	}
	if (qp->srq)
		return sim_srq_take(qp->srq, qp->qpn, sgl, idx);
	if (!sim_rq_avail(qp))
		return -1;
	*idx = qp->rq_ci++;
	return sgl ? sim_rq_scatter_list(qp, *idx, sgl) : 0;
}

static void sim_rq_cqe(struct sim_qp *qp, struct sim_cqe_info *ci, u16 idx)
{
	ci->qpn = qp->qpn;
	ci->user_index = qp->user_index;
	ci->wqe_counter = idx;
	if (qp->rcq)
		sim_cqe_write(qp->rcq, ci);
}

/* A receive WQE consumed in error, the QP to ERR unless it is UD. */
static void sim_rq_error_cqe(struct sim_qp *qp, u8 syndrome, bool to_err,
			     u16 idx)
{
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_RESP_ERR,
		.syndrome = syndrome,
	};

	sim_engine_count_err(&qp->sim->estats, syndrome);
	sim_qcnt_cqe_err(qp, false, syndrome);
	sim_rq_cqe(qp, &ci, idx);
	if (to_err)
		sim_qp_set_error(qp);
}

/* A request the responder refuses: NAK, the QP to ERR, an async event. */
static int sim_rq_nak(struct sim_qp *qp, struct sim_resp_req *r,
		      u8 syndrome, u8 event)
{
	r->syndrome = syndrome;
	sim_qcnt_nak(qp, syndrome);
	/* UC: a bad packet is dropped, the QP stays as it was */
	if (qp->st == MLX5_QP_ST_UC)
		return SIM_RESP_ERR;
	sim_qp_set_error(qp);
	if (event)
		sim_post_qp_event(qp->sim, event, qp->qpn);
	return SIM_RESP_ERR;
}

static u8 sim_send_cqe_opcode(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case MLX5_OPCODE_SEND_IMM:
		return MLX5_CQE_RESP_SEND_IMM;
	case MLX5_OPCODE_SEND_INVAL:
		return MLX5_CQE_RESP_SEND_INV;
	default:
		return MLX5_CQE_RESP_SEND;
	}
}

/*
 * SEND with invalidate: the key goes free if it may be invalidated here
 * (created for UMR with en_rinval, valid, this QP's PD, and a type 2
 * window bound to this QP).
 */
static bool sim_rq_invalidate(struct sim_qp *qp, u32 rkey)
{
	struct sim_mkey *mk = sim_mkey_lookup(qp->sim, rkey);

	return mk && sim_mkey_invalidate(mk, qp->pd, qp->qpn);
}

/*
 * SIGERR CQEs on our receive CQ for the errors of our keys: the
 * destination list (@dst) of a SEND or WRITE, the source of a READ.
 */
static void sim_rq_sig_cqes(struct sim_qp *qp, struct sim_resp_req *r,
			    bool dst)
{
	struct sim_sig_log fresh;

	if (!r->sig || !r->sig->n)
		return;
	if (!r->sig_seen) {
		sim_sig_log_cqes(qp->rcq, qp->qpn, r->sig, dst);
		return;
	}
	/* a chunk of a message: a key's first error once per message */
	sim_sig_log_unseen(&fresh, r->sig, r->sig_seen);
	sim_sig_log_cqes(qp->rcq, qp->qpn, &fresh, dst);
}

/*
 * Receive WQE @idx completes with @ci: a SEND with invalidate frees its
 * key first, or fails it.
 */
static int sim_rq_recv_done(struct sim_qp *qp, struct sim_resp_req *r,
			    struct sim_cqe_info *ci, u16 idx)
{
	if (r->wqe_opcode == MLX5_OPCODE_SEND_INVAL &&
	    !sim_rq_invalidate(qp, be32_to_cpu(r->imm))) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, true,
				 idx);
		r->syndrome = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
		return SIM_RESP_ERR;
	}
	sim_rq_cqe(qp, ci, idx);
	return SIM_RESP_OK;
}

static int sim_rq_send(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r)
{
	struct sim_cqe_info ci = {
		.opcode = sim_send_cqe_opcode(r->wqe_opcode),
		.byte_cnt = r->len,
		.imm = r->imm,
		.flags_rqpn = r->src_qpn,
		.solicited = r->solicited,
	};
	struct sim_cur d, s;
	int synd, err;
	u16 idx;

	synd = sim_rq_take(qp, &eng->rsgl, &idx);
	if (synd < 0)
		return SIM_RESP_RNR;
	if (synd) {
		sim_rq_error_cqe(qp, synd, true, idx);
		r->syndrome = MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
		return SIM_RESP_ERR;
	}
	if (eng->rsgl.total < r->len) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, true,
				 idx);
		r->syndrome = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
		return SIM_RESP_ERR;
	}
	sim_cur_init(&d, eng->rsgl.sge, eng->rsgl.n);
	sim_cur_init(&s, r->src->sge, r->src->n);
	err = sim_xfer(eng, qp->sim, &d, r->req_sim, &s, r->len, r->sig);
	/* errors of the receive WQE's signature keys come before its CQE */
	sim_rq_sig_cqes(qp, r, true);
	if (err) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, true,
				 idx);
		r->syndrome = MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
		return SIM_RESP_ERR;
	}
	return sim_rq_recv_done(qp, r, &ci, idx);
}

/* The remote side of an RDMA access: one entry behind the rkey. */
static int sim_rq_rkey(struct sim_qp *qp, struct sim_resp_req *r, u8 access,
		       struct sim_sge *sge)
{
	struct sim_mkey *mk;

	mk = sim_mkey_lookup(qp->sim, r->rkey);
	if (!mk || sim_mkey_check(mk, qp->pd, qp->qpn, r->raddr, r->len,
				  access))
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	sge->mk = mk;
	sge->kva = NULL;
	sge->va = r->raddr;
	sge->len = r->len;
	sge->sig = READ_ONCE(mk->bsf_en);
	return SIM_RESP_OK;
}

static int sim_rq_write(struct sim_engine *eng, struct sim_qp *qp,
			struct sim_resp_req *r)
{
	bool imm = r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE_IMM;
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_RESP_WR_IMM,
		.byte_cnt = r->len,
		.imm = r->imm,
		.flags_rqpn = r->src_qpn,
		.solicited = r->solicited,
	};
	struct sim_cur d, s;
	struct sim_sge sge;
	u16 idx;
	int res;

	if (!qp->rwe)
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	/* with immediate it needs a receive WQE: RNR before any data moves */
	if (imm && !sim_rq_has_wqe(qp))
		return SIM_RESP_RNR;
	if (r->len) {
		res = sim_rq_rkey(qp, r, SIM_ACC_RW, &sge);
		if (res)
			return res;
		sim_cur_init(&d, &sge, 1);
		sim_cur_init(&s, r->src->sge, r->src->n);
		res = sim_xfer(eng, qp->sim, &d, r->req_sim, &s, r->len,
			       r->sig);
		sim_rq_sig_cqes(qp, r, true);
		if (res)
			return sim_rq_nak(qp, r,
					  MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
					  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	}
	/* an SRQ another QP emptied meanwhile: the immediate is lost */
	if (imm && !sim_rq_take(qp, NULL, &idx))
		sim_rq_cqe(qp, &ci, idx);
	return SIM_RESP_OK;
}

static int sim_rq_read(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r)
{
	struct sim_cur d, s;
	struct sim_sge sge;
	int res;

	if (!qp->rre)
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	if (!r->len)
		return SIM_RESP_OK;
	res = sim_rq_rkey(qp, r, SIM_ACC_RR, &sge);
	if (res)
		return res;
	/* the wire's responder cuts its responses from the key itself */
	if (!r->dst) {
		if (sge.sig && !r->sig_key_ok)
			return sim_rq_nak(qp, r,
					  MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
					  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
		r->key = sge;
		return SIM_RESP_OK;
	}
	sim_cur_init(&s, &sge, 1);
	sim_cur_init(&d, r->dst->sge, r->dst->n);
	res = sim_xfer(eng, r->req_sim, &d, qp->sim, &s, r->len, r->sig);
	/* our key is the source of a READ */
	sim_rq_sig_cqes(qp, r, false);
	if (res)
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	return SIM_RESP_OK;
}

/* Memory is big-endian unless the host asked for its own endianness. */
bool sim_atomic_host_endian(struct mlx5sp_sim *sim)
{
	return MLX5_GET(atomic_caps, sim->caps->cur[SIM_CAP_ATOMIC],
			atomic_req_8B_endianness_mode);
}

static int sim_rq_atomic(struct sim_engine *eng, struct sim_qp *qp,
			 struct sim_resp_req *r)
{
	bool host = sim_atomic_host_endian(qp->sim);
	u64 old_raw, old, new, *p;
	struct sim_cur d;
	struct sim_sge sge;
	u32 len = 8;
	int res;

	if (!qp->rae)
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	if (!IS_ALIGNED(r->raddr, 8))
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
				  MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
	r->len = 8;
	res = sim_rq_rkey(qp, r, SIM_ACC_A, &sge);
	if (res)
		return res;
	if (sge.sig)
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	p = sim_mkey_map(qp->sim, sge.mk, r->raddr, &len);
	if (!p || len != 8)
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
				  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
	do {
		old_raw = READ_ONCE(*p);
		old = host ? old_raw : be64_to_cpu((__force __be64)old_raw);
		if (r->wqe_opcode == MLX5_OPCODE_ATOMIC_CS)
			new = old == r->compare ? r->swap_add : old;
		else
			new = old + r->swap_add;
		if (!host)
			new = (__force u64)cpu_to_be64(new);
	} while (cmpxchg64(p, old_raw, new) != old_raw);

	r->atomic_old = old;
	/* the wire's responder sends it in an AtomicAckETH (wire_resp.c) */
	if (!r->dst)
		return SIM_RESP_OK;
	sim_cur_init(&d, r->dst->sge, r->dst->n);
	if (sim_cur_write(r->req_sim, &d, &old_raw, sizeof(old_raw)))
		return sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_OP_ERR, 0);
	return SIM_RESP_OK;
}

/* An RC request from @r->src_qpn. */
/*
 * Q counters of a request the responder took (an RNR NAK drops it: no
 * receive WQE, out_of_buffer; the requester sends it again).
 */
static void sim_rq_count(struct sim_qp *qp, u8 wqe_opcode, int res)
{
	if (res == SIM_RESP_RNR) {
		sim_qcnt_inc(qp, SIM_QC_out_of_buffer);
		return;
	}
	switch (wqe_opcode) {
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		sim_qcnt_inc(qp, SIM_QC_rx_write_requests);
		break;
	case MLX5_OPCODE_RDMA_READ:
		sim_qcnt_inc(qp, SIM_QC_rx_read_requests);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		sim_qcnt_inc(qp, SIM_QC_rx_atomic_requests);
		break;
	default:
		break;
	}
}

/* May a request come in? */
static bool sim_rq_start(struct sim_qp *qp)
{
	if (!sim_rq_receiving(qp))
		return false;
	/*
	 * A request on a QP still in RTR: communication established (the
	 * passive side's CM may not have its RTU yet; ULPs then rdma_notify).
	 */
	if (READ_ONCE(qp->state) == MLX5_QP_STATE_RTR && !qp->comm_est) {
		qp->comm_est = true;
		sim_post_qp_event(qp->sim, MLX5_EVENT_TYPE_COMM_EST, qp->qpn);
	}
	return true;
}

/* With the QP's rq_lock held (the wire's responder keeps it over more). */
int sim_rq_execute_locked(struct sim_engine *eng, struct sim_qp *qp,
			  struct sim_resp_req *r)
{
	int res;

	if (!sim_rq_start(qp))
		return SIM_RESP_NOT_READY;
	switch (r->wqe_opcode) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
	case MLX5_OPCODE_SEND_INVAL:
		res = sim_rq_send(eng, qp, r);
		break;
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		res = sim_rq_write(eng, qp, r);
		break;
	case MLX5_OPCODE_RDMA_READ:
		res = sim_rq_read(eng, qp, r);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		res = sim_rq_atomic(eng, qp, r);
		break;
	default:
		res = sim_rq_nak(qp, r, MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR,
				 MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR);
		break;
	}
	sim_rq_count(qp, r->wqe_opcode, res);
	return res;
}

/*
 * A SEND or RDMA WRITE that the wire's responder places as its packets
 * come, as a card does (wire_resp.c): sim_rq_direct_begin() with the
 * first packet, sim_rq_direct_part() with each packet's bytes at @off in
 * the message, sim_rq_direct_end() with the last. A SEND has its receive
 * WQE from the first packet, an RNR NAK there if there is none: the RQ's
 * head, taken at the end (a flush still finds it posted), or one taken
 * from the SRQ at once and held (wresp.rq_held: a flush completes it; a
 * UC message lost leaves it for the next). A WRITE's rkey is checked for
 * the whole RETH length first. Keys and the receive WQE's scatter list
 * are looked up again for every packet: a key may go between two. A
 * signature key wants the message whole: begin says so (@whole) and the
 * caller gathers it for sim_rq_execute_locked() instead. @r->src holds
 * the packet's bytes; SEND, SEND with immediate or invalidate, WRITE
 * (begin and part take any WRITE as MLX5_OPCODE_RDMA_WRITE).
 */

/* The receive WQE a SEND in progress fills. */
static u8 sim_rq_direct_sgl(struct sim_qp *qp, struct sim_sgl *sgl)
{
	if (qp->srq)
		return sim_srq_scatter_list(qp->srq, qp->wresp.rq_idx, qp->qpn,
					    sgl);
	return sim_rq_scatter_list(qp, qp->rq_ci, sgl);
}

/* That receive WQE completes in error; NAK @nak, the QP to ERR. */
static int sim_rq_direct_fail(struct sim_qp *qp, struct sim_resp_req *r,
			      u8 cqe_synd, u8 nak)
{
	u16 idx;

	if (!sim_rq_take(qp, NULL, &idx))
		sim_rq_error_cqe(qp, cqe_synd, true, idx);
	r->syndrome = nak;
	return SIM_RESP_ERR;
}

int sim_rq_direct_begin(struct sim_engine *eng, struct sim_qp *qp,
			struct sim_resp_req *r, bool *whole)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_sge sge;
	int res;
	u8 synd;

	*whole = false;
	if (!sim_rq_start(qp))
		return SIM_RESP_NOT_READY;
	if (r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE) {
		if (!qp->rwe)
			return sim_rq_nak(qp, r,
					  MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
					  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
		if (!r->len)
			return SIM_RESP_OK;
		res = sim_rq_rkey(qp, r, SIM_ACC_RW, &sge);
		*whole = !res && sge.sig;
		return res;
	}
	if (qp->srq && !wr->rq_held) {
		if (sim_srq_take(qp->srq, qp->qpn, NULL, &wr->rq_idx) < 0)
			goto rnr;
		wr->rq_held = true;
	} else if (!qp->srq && !sim_rq_avail(qp)) {
		goto rnr;
	}
	synd = sim_rq_direct_sgl(qp, &eng->rsgl);
	if (synd)
		return sim_rq_direct_fail(qp, r, synd,
					  MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	*whole = eng->rsgl.sig;
	return SIM_RESP_OK;

rnr:
	sim_rq_count(qp, r->wqe_opcode, SIM_RESP_RNR);
	return SIM_RESP_RNR;
}

/*
 * The held receive WQE's scatter list into eng->rsgl, with room for
 * @r->len bytes at @off; else it completes in error (a NAK).
 */
static int sim_rq_direct_dst(struct sim_engine *eng, struct sim_qp *qp,
			     struct sim_resp_req *r, u64 off)
{
	u8 synd;

	synd = sim_rq_direct_sgl(qp, &eng->rsgl);
	if (synd)
		return sim_rq_direct_fail(qp, r, synd,
					  MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	if (eng->rsgl.total < off + r->len)
		return sim_rq_direct_fail(qp, r,
					  MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR,
					  MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR);
	return SIM_RESP_OK;
}

int sim_rq_direct_part(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r, u64 off)
{
	struct sim_cur d, s;
	struct sim_sge sge;
	int res;

	if (!sim_rq_receiving(qp))
		return SIM_RESP_NOT_READY;
	sim_cur_init(&s, r->src->sge, r->src->n);
	if (r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE) {
		/* @r->raddr is this packet's place */
		res = sim_rq_rkey(qp, r, SIM_ACC_RW, &sge);
		if (res)
			return res;
		sim_cur_init(&d, &sge, 1);
		if (sge.sig ||
		    sim_cur_copy(qp->sim, &d, r->req_sim, &s, r->len))
			return sim_rq_nak(qp, r,
					  MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR,
					  MLX5_EVENT_TYPE_WQ_ACCESS_ERROR);
		return SIM_RESP_OK;
	}
	res = sim_rq_direct_dst(eng, qp, r, off);
	if (res != SIM_RESP_OK)
		return res;
	sim_cur_init(&d, eng->rsgl.sge, eng->rsgl.n);
	sim_cur_skip(&d, off);
	if (eng->rsgl.sig ||
	    sim_cur_copy(qp->sim, &d, r->req_sim, &s, r->len))
		return sim_rq_direct_fail(qp, r,
					  MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
					  MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	return SIM_RESP_OK;
}

/*
 * A SEND through a signature key of its receive WQE, longer than the
 * wire responder's buffer (wire_resp.c): @r->src holds its bytes from
 * @off; those up to a block boundary of the scatter list's keys (all of
 * them with @all: the message ends there) go through them, SIGERR CQEs
 * for a key's first error only (r->sig_seen); *@put: how many. The
 * receive WQE completes with sim_rq_direct_end().
 */
int sim_rq_direct_sig(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r, u64 off, bool all, u32 *put)
{
	struct sim_cur d, s;
	u64 cut;
	int res;

	*put = 0;
	if (!sim_rq_receiving(qp))
		return SIM_RESP_NOT_READY;
	res = sim_rq_direct_dst(eng, qp, r, off);
	if (res != SIM_RESP_OK)
		return res;
	cut = all ? off + r->len :
		    sim_xfer_cut(eng->rsgl.sge, eng->rsgl.n, off + r->len);
	if (cut <= off)
		return SIM_RESP_OK;
	sim_cur_init(&d, eng->rsgl.sge, eng->rsgl.n);
	sim_cur_skip(&d, off);
	sim_cur_init(&s, r->src->sge, r->src->n);
	res = sim_xfer(eng, qp->sim, &d, r->req_sim, &s, cut - off, r->sig);
	sim_rq_sig_cqes(qp, r, true);
	if (res)
		return sim_rq_direct_fail(qp, r,
					  MLX5_CQE_SYNDROME_LOCAL_PROT_ERR,
					  MLX5_CQE_SYNDROME_REMOTE_OP_ERR);
	*put = cut - off;
	return SIM_RESP_OK;
}

/* @r->len: the whole message's; @r->wqe_opcode: the last packet's. */
int sim_rq_direct_end(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r)
{
	bool write = r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE ||
		     r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE_IMM;
	struct sim_cqe_info ci = {
		.opcode = write ? MLX5_CQE_RESP_WR_IMM :
				  sim_send_cqe_opcode(r->wqe_opcode),
		.byte_cnt = r->len,
		.imm = r->imm,
		.flags_rqpn = r->src_qpn,
		.solicited = r->solicited,
	};
	u16 idx;

	if (!sim_rq_receiving(qp))
		return SIM_RESP_NOT_READY;
	if (r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE_IMM &&
	    !sim_rq_has_wqe(qp)) {
		/* its data is in: the last packet again after the timer */
		sim_rq_count(qp, r->wqe_opcode, SIM_RESP_RNR);
		return SIM_RESP_RNR;
	}
	sim_rq_count(qp, r->wqe_opcode, SIM_RESP_OK);
	if (r->wqe_opcode == MLX5_OPCODE_RDMA_WRITE)
		return SIM_RESP_OK;
	/* an SRQ another QP emptied meanwhile: the immediate is lost */
	if (sim_rq_take(qp, NULL, &idx))
		return SIM_RESP_OK;
	return sim_rq_recv_done(qp, r, &ci, idx);
}

int sim_rq_execute(struct sim_engine *eng, struct sim_qp *qp,
		   struct sim_resp_req *r)
{
	int res;

	spin_lock_bh(&qp->rq_lock);
	res = sim_rq_execute_locked(eng, qp, r);
	spin_unlock_bh(&qp->rq_lock);
	return res;
}

static bool sim_gid_v4mapped(const u8 *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid);
}

/*
 * The 40 bytes ahead of a UD payload: the IB GRH (RoCE v1), an IPv6
 * header, or 20 zero bytes and an IPv4 header (RoCE v2). Returns the CQE
 * L3 header type.
 */
static u8 sim_build_grh(u8 *grh, const struct sim_resp_req *r)
{
	u32 payload = SIM_ROCE_HDRS + r->len +
		      (r->wqe_opcode == MLX5_OPCODE_SEND_IMM ? 4 : 0);
	struct ipv6hdr *ip6 = (struct ipv6hdr *)grh;
	struct iphdr *ip4 = (struct iphdr *)(grh + 20);
	bool v2 = r->sgid->version == MLX5_ROCE_VERSION_2;

	memset(grh, 0, SIM_GRH_LEN);
	if (v2 && sim_gid_v4mapped(r->sgid->gid) && sim_gid_v4mapped(r->dgid)) {
		ip4->version = 4;
		ip4->ihl = 5;
		ip4->tos = r->tclass;
		ip4->tot_len = htons(sizeof(*ip4) + payload);
		ip4->frag_off = htons(IP_DF);
		ip4->ttl = r->hop_limit;
		ip4->protocol = IPPROTO_UDP;
		memcpy(&ip4->saddr, r->sgid->gid + 12, 4);
		memcpy(&ip4->daddr, r->dgid + 12, 4);
		ip4->check = ip_fast_csum(ip4, ip4->ihl);
		return MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV4;
	}
	ip6->version = 6;
	ip6->priority = r->tclass >> 4;
	ip6->flow_lbl[0] = (r->tclass & 0xf) << 4 | (r->flow_label >> 16 & 0xf);
	ip6->flow_lbl[1] = r->flow_label >> 8;
	ip6->flow_lbl[2] = r->flow_label;
	ip6->payload_len = htons(payload - (v2 ? 0 : 8));
	ip6->nexthdr = v2 ? IPPROTO_UDP : SIM_IB_NEXT_HDR_BTH;
	ip6->hop_limit = r->hop_limit;
	memcpy(&ip6->saddr, r->sgid->gid, 16);
	memcpy(&ip6->daddr, r->dgid, 16);
	return v2 ? MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV6 :
		    MLX5_CQE_ROCE_L3_HEADER_TYPE_GRH;
}

/* A datagram: SIM_RESP_OK when a receive WQE took it, else dropped. */
int sim_rq_deliver_ud(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r)
{
	struct sim_cqe_info ci = {
		.opcode = sim_send_cqe_opcode(r->wqe_opcode),
		.byte_cnt = SIM_GRH_LEN + r->len,
		.solicited = r->solicited,
	};
	int res = SIM_RESP_NOT_READY, synd;
	struct sim_cur d, s;
	u8 grh[SIM_GRH_LEN], l3;
	u16 idx;

	spin_lock_bh(&qp->rq_lock);
	if (!sim_rq_receiving(qp) || r->qkey != qp->qkey)
		goto unlock;
	synd = sim_rq_take(qp, &eng->rsgl, &idx);
	if (synd < 0)
		goto unlock;
	if (synd) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, false,
				 idx);
		goto unlock;
	}
	if (eng->rsgl.total < SIM_GRH_LEN + r->len) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, false,
				 idx);
		goto unlock;
	}
	/* datagrams do not go through signature keys */
	if (eng->rsgl.sig) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, false,
				 idx);
		goto unlock;
	}
	l3 = sim_build_grh(grh, r);
	sim_cur_init(&d, eng->rsgl.sge, eng->rsgl.n);
	sim_cur_init(&s, r->src->sge, r->src->n);
	if (sim_cur_write(qp->sim, &d, grh, sizeof(grh)) ||
	    sim_cur_copy(qp->sim, &d, r->req_sim, &s, r->len)) {
		sim_rq_error_cqe(qp, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, false,
				 idx);
		goto unlock;
	}
	ci.imm = r->wqe_opcode == MLX5_OPCODE_SEND_IMM ? r->imm :
		 cpu_to_be32(SIM_DEFAULT_PKEY);
	ci.flags_rqpn = SIM_CQE_GRH | (u32)l3 << 24 | (r->src_qpn & 0xffffff);
	ci.vlan = r->vlan;
	ci.vlan_info = r->vlan_tci;
	sim_rq_cqe(qp, &ci, idx);
	res = SIM_RESP_OK;
unlock:
	spin_unlock_bh(&qp->rq_lock);
	return res;
}

/*
 * ERR: every posted receive WQE completes with a flush error. An SRQ's
 * WQEs are not the QP's to flush: the QP says once that it took its last.
 */
static bool sim_rq_srq_last_wqe(struct sim_qp *qp)
{
	if (qp->last_wqe_sent || READ_ONCE(qp->state) != MLX5_QP_STATE_ERR)
		return false;
	qp->last_wqe_sent = true;
	sim_post_qp_event(qp->sim, MLX5_EVENT_TYPE_SRQ_LAST_WQE, qp->qpn);
	return true;
}

/* The receive WQE at @idx (the QP's or its SRQ's) completes flushed. */
static void sim_rq_flush_one(struct sim_qp *qp, u16 idx)
{
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_RESP_ERR,
		.syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
	};

	sim_rq_cqe(qp, &ci, idx);
	atomic64_inc(&qp->sim->estats.flushed);
	sim_qcnt_cqe_err(qp, false, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
}

bool sim_rq_flush(struct sim_qp *qp)
{
	bool work = false;
	u16 n, pi;

	spin_lock_bh(&qp->rq_lock);
	if (qp->srq) {
		/* the WQE a SEND in progress took is the QP's to flush */
		if (qp->wresp.rq_held &&
		    READ_ONCE(qp->state) == MLX5_QP_STATE_ERR) {
			qp->wresp.rq_held = false;
			sim_rq_flush_one(qp, qp->wresp.rq_idx);
			work = true;
		}
		work |= sim_rq_srq_last_wqe(qp);
		goto unlock;
	}
	if (READ_ONCE(qp->state) != MLX5_QP_STATE_ERR)
		goto unlock;
	/*
	 * The record is read once: a receive posted while we flush (the
	 * drain WR of ib_drain_rq) is flushed on the next pass, not skipped.
	 */
	n = sim_rq_avail(qp);
	pi = qp->rq_ci + n;
	if (n > qp->rq_wqe_cnt)
		n = qp->rq_wqe_cnt;
	while (n--) {
		sim_rq_flush_one(qp, qp->rq_ci++);
		work = true;
	}
	/* a record beyond the queue: what was not posted is not flushed */
	qp->rq_ci = pi;
unlock:
	spin_unlock_bh(&qp->rq_lock);
	return work;
}
