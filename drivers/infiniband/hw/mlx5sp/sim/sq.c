// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester: walks the send queue in PRM format (64-byte basic
 * blocks, a control segment, then raddr / atomic / datagram / data /
 * inline segments in 16-byte units), executes each WQE against the peer
 * QP found through the fabric, and completes it on the send CQ.
 *
 * Rules it keeps: WQEs execute in order; a fenced WQE waits for earlier
 * RDMA READs and atomics (execution is synchronous, so they are done, but
 * the rule is checked); a signalled WQE or any error writes a CQE; an
 * error moves the QP to ERR and the rest is flushed; no receive WQE at the
 * peer is an RNR NAK (retried after the peer's min_rnr_nak timer,
 * rnr_retry times, 7 forever); a peer that is missing or not receiving is
 * a lost packet: sent again when the local ACK timer (sim_sq_ack_ns) runs
 * out, retry_count times, and the next timeout is the retry error, on the
 * wire as for a peer of this kernel (one device, or two). UC runs
 * the same path without ACKs: SEND and RDMA WRITE only, and whatever the
 * responder drops is gone, the requester completes successfully.
 *
 * The responder sees a request at once. An RC requester's completion
 * waits for the ACK: with the device's ack_delay_us set, it is written
 * that long after its WQE ran (0: at once, the default). In the meantime
 * the SQ runs on, as a card's does, so a peer may see a later SEND
 * before the requester sees an earlier WRITE complete. SIM_SQ_ACKS
 * completions may wait at a time; a QP that leaves RTS for SQD or ERR
 * writes them first, at once; a reset drops them.
 *
 * RC on the wire (wire_req.c): SENDs, WRITEs, READs and atomics join a
 * window of WQEs in flight, sq_ci moving past them, and complete in SQ
 * order as the ACKs and responses cover them (sim_sq_window:
 * completions, go-back-N on a NAK or a timer, the errors); a fenced one
 * waits until the window is empty and starts it again; one through a
 * signature key, and any other WQE, waits until the window is empty and
 * then runs alone. Their CQEs come before any WQE's after
 * them: an error found before a WQE runs waits for the window too. In
 * SQD the WQEs in flight still take their answers; SQ_DRAINED comes when
 * none is left. In ERR they are flushed first, in order.
 *
 * A command that takes a QP out of RTS first runs what its doorbell
 * record holds (sim_sq_catch_up), as a ConnectX's send engine has by then
 * (on the wire it may put WQEs in flight).
 *
 * Runs in the engine (or that command) with rcu_read_lock() and the QP's
 * sq_lock held.
 */

#include <kunit/visibility.h>
#include <linux/if_vlan.h>

#include "buf.h"
#include "counters.h"
#include "cq.h"
#include "engine.h"
#include "mkey.h"
#include "qp.h"
#include "roce.h"
#include "sgl.h"
#include "sig.h"
#include "sim.h"
#include "wire.h"

#define SIM_SQ_BUDGET		32	/* WQEs per QP per pass */
#define SIM_MAX_WQE_BBS		16	/* max_wqe_sz_sq / 64 */
#define SIM_UNITS_PER_BB	(MLX5_SEND_WQE_BB / MLX5_SEND_WQE_DS)
#define SIM_MIN_RETRY_NS	(100 * NSEC_PER_USEC)
#define SIM_INF_RETRY_NS	(100 * NSEC_PER_MSEC)
#define SIM_QKEY_PRIVILEGED	0x80000000
#define SIM_INFINITE_RNR	7
#define SIM_SQ_ACKS		32	/* completions awaiting their ACK */
#define SIM_MAX_ACK_DELAY_US	(10 * USEC_PER_SEC)

struct sim_sq_ack {
	struct sim_cqe_info ci;
	u64 due;			/* ktime ns */
};

enum sim_wqe_res {
	SIM_WQE_DONE,		/* completed (maybe in error): move on */
	SIM_WQE_WAIT,		/* stays at the head: RNR, retry, fence */
};

/* IB spec: RNR NAK timer field -> microseconds */
static const u32 sim_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* The WQE being executed, decoded from its control segment. */
struct sim_wqe {
	u16 start;		/* first basic block (free running) */
	u16 index;		/* WQE index from the control segment */
	u8 opcode;
	u8 fm_ce_se;
	u8 ds;			/* 16-byte units */
	u8 nbb;
	__be32 imm;
};

static void *sim_wqe_unit(struct sim_qp *qp, u16 start, u32 unit)
{
	u32 bb = (start + unit / SIM_UNITS_PER_BB) & (qp->sq_wqe_cnt - 1);

	return sim_buf_at(&qp->buf, qp->sq_off + (u64)bb * MLX5_SEND_WQE_BB +
			  (unit % SIM_UNITS_PER_BB) * MLX5_SEND_WQE_DS);
}

static void sim_sq_complete(struct sim_qp *qp, const struct sim_wqe *w,
			    u8 opcode, u8 syndrome, u32 byte_cnt)
{
	struct sim_cqe_info ci = {
		.opcode = opcode,
		.syndrome = syndrome,
		.wqe_opcode = w->opcode,
		.wqe_counter = w->index,
		.qpn = qp->qpn,
		.user_index = qp->user_index,
		.byte_cnt = byte_cnt,
	};
	u32 delay = min_t(u32, READ_ONCE(qp->sim->knobs.ack_delay_us),
			  SIM_MAX_ACK_DELAY_US);
	struct sim_sq_ack *a;

	if (!qp->acks || (!delay && !qp->ack_n)) {
		if (qp->scq)
			sim_cqe_write(qp->scq, &ci);
		return;
	}
	/* sim_sq_process leaves a slot for each WQE; keep order if not */
	if (qp->ack_n == SIM_SQ_ACKS)
		sim_sq_acks_write(qp, true);
	a = &qp->acks[(qp->ack_head + qp->ack_n) % SIM_SQ_ACKS];
	a->ci = ci;
	a->due = ktime_get_ns() + (u64)delay * NSEC_PER_USEC;
	qp->ack_n++;
}

/* An RC send queue keeps its completions until their ACK is back. */
int sim_sq_acks_alloc(struct sim_qp *qp)
{
	if (qp->st != MLX5_QP_ST_RC || !qp->sq_wqe_cnt)
		return 0;
	qp->acks = kcalloc(SIM_SQ_ACKS, sizeof(*qp->acks), GFP_KERNEL);
	return qp->acks ? 0 : -ENOMEM;
}

/*
 * Write the completions whose ACK is back, oldest first; @all: every one,
 * now. Under sq_lock. Returns true if it wrote any.
 */
bool sim_sq_acks_write(struct sim_qp *qp, bool all)
{
	struct sim_sq_ack *a;
	bool work = false;
	u64 now = 0;

	while (qp->ack_n) {
		a = &qp->acks[qp->ack_head];
		if (!all) {
			now = now ?: ktime_get_ns();
			if (now < a->due)
				break;
		}
		if (qp->scq)
			sim_cqe_write(qp->scq, &a->ci);
		qp->ack_head = (qp->ack_head + 1) % SIM_SQ_ACKS;
		qp->ack_n--;
		work = true;
	}
	return work;
}

static enum sim_wqe_res sim_sq_error(struct sim_qp *qp,
				     const struct sim_wqe *w, u8 syndrome)
{
	sim_engine_count_err(&qp->sim->estats, syndrome);
	sim_qcnt_cqe_err(qp, true, syndrome);
	sim_sq_complete(qp, w, MLX5_CQE_REQ_ERR, syndrome, 0);
	qp->sq_ci = w->start + w->nbb;
	sim_qp_set_error(qp);
	return SIM_WQE_DONE;
}

static enum sim_wqe_res sim_sq_done(struct sim_qp *qp,
				    const struct sim_wqe *w, u32 byte_cnt)
{
	if (w->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE)
		sim_sq_complete(qp, w, MLX5_CQE_REQ, 0, byte_cnt);
	qp->sq_ci = w->start + w->nbb;
	qp->rnr_left = qp->rnr_retry;
	qp->retry_left = qp->retry_count;
	qp->ack_lost = false;
	atomic64_inc(&qp->sim->estats.wqes);
	return SIM_WQE_DONE;
}

static bool sim_wqe_fenced(const struct sim_wqe *w)
{
	u8 fm = w->fm_ce_se & 0xe0;

	return fm == MLX5_FENCE_MODE_FENCE ||
	       fm == MLX5_FENCE_MODE_SMALL_AND_FENCE ||
	       fm == MLX5_FENCE_MODE_STRONG_ORDERING;
}

/*
 * Data and inline segments from @unit to the end of the WQE. Returns 0
 * or a CQE syndrome.
 */
static u8 sim_sq_gather(struct sim_qp *qp, const struct sim_wqe *w,
			u32 unit, struct sim_sgl *sgl, u8 access)
{
	struct mlx5_wqe_data_seg *ds;
	u32 bc, len, off, end, piece;
	u8 synd;

	sim_sgl_reset(sgl);
	while (unit < w->ds) {
		ds = sim_wqe_unit(qp, w->start, unit);
		bc = be32_to_cpu(READ_ONCE(ds->byte_count));
		if (!(bc & MLX5_INLINE_SEG)) {
			/* PRM: a byte count of 0 means 2 GiB */
			len = bc ?: BIT(31);
			synd = sim_sgl_add_key(qp->sim, sgl,
					       be32_to_cpu(READ_ONCE(ds->lkey)),
					       be64_to_cpu(READ_ONCE(ds->addr)),
					       len, qp->pd, qp->qpn, access);
			if (synd)
				return synd;
			unit++;
			continue;
		}
		/* inline: the bytes follow the 4-byte count, across units */
		len = bc & ~MLX5_INLINE_SEG;
		off = unit * MLX5_SEND_WQE_DS + sizeof(__be32);
		end = off + len;
		if (DIV_ROUND_UP(end, MLX5_SEND_WQE_DS) > w->ds)
			return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		while (off < end) {
			piece = min_t(u32, end - off,
				      MLX5_SEND_WQE_BB - off % MLX5_SEND_WQE_BB);
			if (sim_sgl_add_kva(sgl,
					    sim_wqe_unit(qp, w->start,
							 off / MLX5_SEND_WQE_DS) +
					    off % MLX5_SEND_WQE_DS, piece))
				return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
			off += piece;
		}
		unit = DIV_ROUND_UP(end, MLX5_SEND_WQE_DS);
	}
	return 0;
}

static u64 sim_max_msg(const struct sim_qp *qp)
{
	return BIT_ULL(qp->log_msg_max ?: 30);
}

/*
 * The peer of an RC QP: the device owning its GID, cached per fabric
 * generation, none (a peer on the wire) as well: the lookup walks every
 * device's GID table. Under RCU.
 */
static struct sim_qp *sim_sq_peer(struct sim_qp *qp)
{
	u32 gen = sim_fabric_gen();
	struct sim_qp *peer;

	if (qp->peer_gen != gen) {
		qp->peer_sim = sim_fabric_find_gid(qp->rgid, qp->sim);
		qp->peer_gen = gen;
	}
	if (!qp->peer_sim)
		return NULL;
	peer = sim_qp_lookup(qp->peer_sim, qp->remote_qpn);
	if (!peer || peer->st != qp->st)
		return NULL;
	return peer;
}

static enum sim_wqe_res sim_sq_rnr(struct sim_qp *qp, const struct sim_wqe *w,
				   struct sim_qp *peer)
{
	u8 timer = READ_ONCE(peer->min_rnr_nak) & 0x1f;

	atomic64_inc(&qp->sim->estats.rnr_naks);
	if (!qp->rnr_left)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
	if (qp->rnr_left != SIM_INFINITE_RNR)
		qp->rnr_left--;
	sim_qcnt_inc(qp, SIM_QC_rnr_nak_retry_err);
	qp->wait = SIM_SQ_WAIT_RNR;
	qp->wait_until = ktime_get_ns() + (u64)sim_rnr_usec[timer] *
			 NSEC_PER_USEC;
	return SIM_WQE_WAIT;
}

/*
 * The local ACK timeout, for every path (the wire, a peer on this device
 * or another of this kernel): the QPC's 4.096 us << ack_timeout in full
 * (IBTA vol. 1, 9.7.6.1: no shorter, at most four times that), up to the
 * 2.4 hours of 31: a peer slow to answer, or gone, is no reason to resend
 * sooner, and a requester whose peer went away fails no earlier than a
 * ConnectX's would (rdma_cm's timeout 18 and retry_cnt 7: 8.6 s). 0 is
 * infinite: the engine looks again every SIM_INF_RETRY_NS, uncounted.
 */
static u64 sim_sq_ack_ns(const struct sim_qp *qp)
{
	if (!qp->ack_timeout)
		return SIM_INF_RETRY_NS;
	return max_t(u64, 4096ULL << min_t(u8, qp->ack_timeout, 31),
		     SIM_MIN_RETRY_NS);
}

/*
 * An answer moved una past a PSN of the busy WQE (wire_req.c): the local
 * ACK timer starts again, and its retries with it (they count timeouts
 * without progress, as rxe's and a card's do: a READ of many MiB under
 * loss meets more than retry_cnt in all). Under sq_lock.
 */
void sim_sq_wire_progress(struct sim_qp *qp)
{
	qp->retry_left = qp->retry_count;
	if (qp->wait == SIM_SQ_WAIT_RETRY)
		qp->wait_until = ktime_get_ns() + sim_sq_ack_ns(qp);
}

static enum sim_wqe_res sim_sq_wire_wait(struct sim_qp *qp)
{
	qp->wait = SIM_SQ_WAIT_RETRY;
	qp->wait_until = ktime_get_ns() + sim_sq_ack_ns(qp);
	return SIM_WQE_WAIT;
}

/*
 * No answer from a peer of this kernel (its QP in RESET, INIT or ERR,
 * destroyed, on a device going away): the request is lost, as on the
 * wire, and the local ACK timer runs in full. sim_sq_rc counts it when it
 * has run out.
 */
static enum sim_wqe_res sim_sq_lost(struct sim_qp *qp)
{
	qp->ack_lost = true;
	return sim_sq_wire_wait(qp);
}

/*
 * The local ACK timer of the head WQE's lost request ran out: with
 * retries left it goes again (one retry less), without,
 * IBV_WC_RETRY_EXC_ERR: retry_cnt + 1 timeouts in all, as on the wire
 * and on a card. Timeout 0 is infinite: it goes again, uncounted. False
 * when it failed.
 */
static bool sim_sq_timed_out(struct sim_qp *qp, const struct sim_wqe *w)
{
	qp->ack_lost = false;
	atomic64_inc(&qp->sim->estats.retries);
	if (!qp->ack_timeout)
		return true;
	if (!qp->retry_left) {
		sim_sq_error(qp, w, MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
		return false;
	}
	qp->retry_left--;
	sim_qcnt_inc(qp, SIM_QC_local_ack_timeout_err);
	return true;
}

/*
 * May @w join the window? An RC SEND, WRITE, READ or atomic; a fenced one
 * only starts an empty window (everything before it complete, its READs
 * and atomics too), and what follows may join it there.
 */
static bool sim_sq_win_op(const struct sim_qp *qp, const struct sim_wqe *w)
{
	if (qp->st != MLX5_QP_ST_RC ||
	    (sim_wqe_fenced(w) && qp->wreq.win_n))
		return false;
	switch (w->opcode) {
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
	case MLX5_OPCODE_SEND_INVAL:
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
	case MLX5_OPCODE_RDMA_READ:
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		return true;
	default:
		return false;
	}
}

/* ... and not through a signature key (its bytes are made once, alone) */
static bool sim_sq_win_fits(const struct sim_engine *eng,
			    const struct sim_qp *qp, const struct sim_wqe *w)
{
	return sim_sq_win_op(qp, w) && !eng->lsgl.sig;
}

/*
 * Room for @w in the window: SIM_WIRE_WINDOW WQEs, of them as many READs
 * and atomics as the QPC lets the requester have outstanding
 * (log_sra_max).
 */
static bool sim_sq_win_room(const struct sim_qp *qp, const struct sim_wqe *w)
{
	const struct sim_wire_req *wq = &qp->wreq;

	/* full, or still sending what it went back for */
	if (wq->win_n == SIM_WIRE_WINDOW || wq->win_sent < wq->win_n)
		return false;
	return !sim_wire_rd_atomic(w->opcode) ||
	       wq->win_rd_atomic < 1U << MLX5_GET(qpc, qp->qpc, log_sra_max);
}

/* @w's packets out, into the window; sq_ci moves past it. */
static enum sim_wqe_res sim_sq_win_start(struct sim_qp *qp,
					 const struct sim_wqe *w,
					 struct sim_resp_req *r)
{
	struct sim_wire_wqe e = {
		.start = w->start,
		.index = w->index,
		.opcode = w->opcode,
		.fm_ce_se = w->fm_ce_se,
		.nbb = w->nbb,
	};

	sim_wire_win_start(qp, r, &e);
	/* the local ACK timer runs from the oldest WQE in flight */
	if (qp->wreq.win_n == 1)
		qp->wreq.win_due = ktime_get_ns() + sim_sq_ack_ns(qp);
	qp->sq_ci = w->start + w->nbb;
	return SIM_WQE_DONE;
}

static enum sim_wqe_res sim_sq_wire_fail(struct sim_qp *qp,
					 const struct sim_wqe *w, u8 syndrome)
{
	qp->wreq.busy = false;
	return sim_sq_error(qp, w, syndrome);
}

/*
 * An RC or UC WQE whose peer is not a model device of this kernel:
 * RoCEv2 on the netdev (wire_req.c): into the window, or alone. The retry
 * and RNR budgets are the QP's, as for a peer here; UC has none.
 */
static enum sim_wqe_res sim_sq_wire(struct sim_engine *eng, struct sim_qp *qp,
				    const struct sim_wqe *w,
				    struct sim_resp_req *r)
{
	enum sim_wire_res res;
	u8 timer, synd;

	/* UC: the packets out, done; no ACK comes */
	if (qp->st == MLX5_QP_ST_UC) {
		bool sent = sim_wire_req_uc(eng, qp, r);

		/* our signature keys' errors: SIGERR CQEs first, as on RC */
		if (r->sig->n &&
		    sim_sig_log_cqes(qp->scq, qp->qpn, r->sig, false))
			sim_sq_sig_error(qp);
		if (!sent)
			return sim_sq_error(qp, w, r->syndrome);
		atomic64_add(r->len, &qp->sim->estats.bytes);
		return sim_sq_done(qp, w, 0);
	}
	if (!qp->wreq.busy && sim_sq_win_fits(eng, qp, w)) {
		if (!sim_sq_win_room(qp, w))
			return SIM_WQE_WAIT;
		return sim_sq_win_start(qp, w, r);
	}
	/* the rest waits for the window to empty, then runs alone */
	if (!qp->wreq.busy && qp->wreq.win_n)
		return SIM_WQE_WAIT;
	res = sim_wire_req_rc(eng, qp, r);
	/*
	 * Errors of our signature keys (a SEND's or WRITE's gather list when
	 * it first goes out, a READ's scatter list when its data is in):
	 * SIGERR CQEs before the WQE's own, as on the direct path.
	 */
	if (r->sig->n &&
	    sim_sig_log_cqes(qp->scq, qp->qpn, r->sig,
			     w->opcode == MLX5_OPCODE_RDMA_READ))
		sim_sq_sig_error(qp);
	switch (res) {
	case SIM_WRES_PENDING:
		return sim_sq_wire_wait(qp);
	case SIM_WRES_TIMEOUT:
		atomic64_inc(&qp->sim->estats.retries);
		if (qp->ack_timeout) {
			if (!qp->retry_left)
				return sim_sq_wire_fail(qp, w,
					MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR);
			qp->retry_left--;
			sim_qcnt_inc(qp, SIM_QC_local_ack_timeout_err);
		}
		synd = sim_wire_req_resend(eng, qp, r);
		if (synd)
			return sim_sq_wire_fail(qp, w, synd);
		return sim_sq_wire_wait(qp);
	case SIM_WRES_RNR:
		atomic64_inc(&qp->sim->estats.rnr_naks);
		if (!qp->rnr_left)
			return sim_sq_wire_fail(qp, w,
					MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
		if (qp->rnr_left != SIM_INFINITE_RNR)
			qp->rnr_left--;
		sim_qcnt_inc(qp, SIM_QC_rnr_nak_retry_err);
		timer = qp->wreq.rnr_timer & 0x1f;
		qp->wait = SIM_SQ_WAIT_RNR;
		qp->wait_until = ktime_get_ns() +
				 (u64)sim_rnr_usec[timer] * NSEC_PER_USEC;
		return SIM_WQE_WAIT;
	case SIM_WRES_ERR:
		return sim_sq_error(qp, w, r->syndrome);
	default:
		break;
	}
	atomic64_add(r->len, &qp->sim->estats.bytes);
	if (w->opcode == MLX5_OPCODE_ATOMIC_CS ||
	    w->opcode == MLX5_OPCODE_ATOMIC_FA)
		return sim_sq_done(qp, w, 8);
	return sim_sq_done(qp, w,
			   w->opcode == MLX5_OPCODE_RDMA_READ ? r->len : 0);
}

/*
 * The RC request of @w into @r, its lists in @eng's scratch. Returns 0
 * or a CQE syndrome.
 */
static u8 sim_sq_rc_req(struct sim_engine *eng, struct sim_qp *qp,
			const struct sim_wqe *w, struct sim_resp_req *r)
{
	struct mlx5_wqe_atomic_seg *aseg;
	struct mlx5_wqe_raddr_seg *rseg;
	u8 access = SIM_ACC_LR, synd;
	bool atomic = w->opcode == MLX5_OPCODE_ATOMIC_CS ||
		      w->opcode == MLX5_OPCODE_ATOMIC_FA;
	u32 unit = 1;

	*r = (struct sim_resp_req) {
		.req_sim = qp->sim,
		.wqe_opcode = w->opcode,
		.src_qpn = qp->qpn,
		.imm = w->imm,
		.solicited = w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED,
	};
	switch (w->opcode) {
	case MLX5_OPCODE_RDMA_READ:
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		access = SIM_ACC_LW;
		fallthrough;
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		if (w->ds < 2)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		rseg = sim_wqe_unit(qp, w->start, unit++);
		r->raddr = be64_to_cpu(READ_ONCE(rseg->raddr));
		r->rkey = be32_to_cpu(READ_ONCE(rseg->rkey));
		break;
	default:
		break;
	}
	if (atomic) {
		if (w->ds < 4)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		aseg = sim_wqe_unit(qp, w->start, unit++);
		r->swap_add = be64_to_cpu(READ_ONCE(aseg->swap_add));
		r->compare = be64_to_cpu(READ_ONCE(aseg->compare));
	}

	synd = sim_sq_gather(qp, w, unit, &eng->lsgl, access);
	if (synd)
		return synd;
	if (eng->lsgl.total > sim_max_msg(qp) ||
	    (atomic && eng->lsgl.total < 8))
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	/* an atomic's 8 bytes are not a signature transfer */
	if (eng->lsgl.sig && atomic)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	r->len = eng->lsgl.total;
	if (access == SIM_ACC_LW)
		r->dst = &eng->lsgl;
	else
		r->src = &eng->lsgl;
	r->sig = &eng->sig_log;
	r->sig->n = 0;
	return 0;
}

/*
 * An error before the WQE ran: with WQEs of the window in flight it waits
 * until they completed, its CQE after theirs.
 */
static enum sim_wqe_res sim_sq_fail(struct sim_qp *qp, const struct sim_wqe *w,
				    u8 syndrome)
{
	if (qp->wreq.win_n)
		return SIM_WQE_WAIT;
	return sim_sq_error(qp, w, syndrome);
}

static enum sim_wqe_res sim_sq_rc(struct sim_engine *eng, struct sim_qp *qp,
				  const struct sim_wqe *w)
{
	struct sim_resp_req r;
	struct sim_qp *peer;
	u32 byte_cnt = 0;
	u8 synd;
	int res;

	synd = sim_sq_rc_req(eng, qp, w, &r);
	if (synd)
		return sim_sq_fail(qp, w, synd);
	if (qp->ack_lost && !sim_sq_timed_out(qp, w))
		return SIM_WQE_DONE;
	peer = sim_sq_peer(qp);
	/* no model device here owns the peer's GID: it is on the wire */
	if (!peer && !qp->peer_sim && sim_net_up(qp->sim))
		return sim_sq_wire(eng, qp, w, &r);
	/* the window's WQEs complete first */
	if (qp->wreq.win_n)
		return SIM_WQE_WAIT;
	res = peer ? sim_rq_execute(eng, peer, &r) : SIM_RESP_NOT_READY;
	/*
	 * Errors of our keys (the gather list, or a READ's scatter list):
	 * SIGERR CQEs before the WQE's own, and drain_sigerr stops the SQ.
	 */
	if (r.sig->n &&
	    sim_sig_log_cqes(qp->scq, qp->qpn, r.sig,
			     w->opcode == MLX5_OPCODE_RDMA_READ))
		sim_sq_sig_error(qp);
	/*
	 * UC has no ACKs: what the responder dropped (no receive WQE, an
	 * error, a peer not there) is lost, and the requester never knows.
	 */
	if (qp->st == MLX5_QP_ST_UC && res != SIM_RESP_OK)
		return sim_sq_done(qp, w, 0);
	switch (res) {
	case SIM_RESP_OK:
		break;
	case SIM_RESP_RNR:
		return sim_sq_rnr(qp, w, peer);
	case SIM_RESP_NOT_READY:
		return sim_sq_lost(qp);
	default:
		return sim_sq_error(qp, w, r.syndrome);
	}
	if (w->opcode == MLX5_OPCODE_RDMA_READ)
		byte_cnt = r.len;
	else if (w->opcode == MLX5_OPCODE_ATOMIC_CS ||
		 w->opcode == MLX5_OPCODE_ATOMIC_FA)
		byte_cnt = 8;
	atomic64_add(r.len, &qp->sim->estats.bytes);
	return sim_sq_done(qp, w, byte_cnt);
}

/* UD and GSI: deliver by the address vector, never an error for loss. */
static enum sim_wqe_res sim_sq_ud(struct sim_engine *eng, struct sim_qp *qp,
				  const struct sim_wqe *w)
{
	struct sim_resp_req r = {
		.req_sim = qp->sim,
		.wqe_opcode = w->opcode,
		.src_qpn = qp->qpn,
		.imm = w->imm,
		.solicited = w->fm_ce_se & MLX5_WQE_CTRL_SOLICITED,
	};
	struct mlx5sp_sim *psim;
	struct sim_qp *peer = NULL;
	struct mlx5_av *av;
	struct sim_gid sgid;
	u8 dgid[16], synd, sgid_index;
	u32 dqpn;

	if (w->opcode != MLX5_OPCODE_SEND && w->opcode != MLX5_OPCODE_SEND_IMM)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	/* the datagram segment: three units after the control segment */
	if (w->ds < 4)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	av = sim_wqe_unit(qp, w->start, 1);
	dqpn = be32_to_cpu(READ_ONCE(av->dqp_dct)) & 0xffffff;
	r.qkey = be32_to_cpu(READ_ONCE(av->key.qkey.qkey));
	if (r.qkey & SIM_QKEY_PRIVILEGED)
		r.qkey = qp->qkey;
	r.hop_limit = READ_ONCE(av->hop_limit);
	r.tclass = READ_ONCE(av->tclass);
	r.flow_label = be32_to_cpu(READ_ONCE(av->grh_gid_fl)) & 0xfffff;
	memcpy(dgid, av->rgid, sizeof(dgid));

	synd = sim_sq_gather(qp, w, 4, &eng->lsgl, SIM_ACC_LR);
	if (synd)
		return sim_sq_error(qp, w, synd);
	/* datagrams do not go through signature keys */
	if (eng->lsgl.sig)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	if (eng->lsgl.total > SIM_UD_MTU)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	r.len = eng->lsgl.total;
	r.src = &eng->lsgl;

	sgid_index = (be32_to_cpu(READ_ONCE(av->grh_gid_fl)) >> 20) & 0xff;
	if (!sim_gid_get(qp->sim, qp->port, sgid_index, &sgid))
		goto dropped;
	r.sgid = &sgid;
	r.dgid = dgid;
	/* the GID's VLAN tags it, the SL its priority */
	r.vlan = sgid.vlan_valid;
	r.vlan_tci = sgid.vlan_id & VLAN_VID_MASK;
	if (r.vlan)
		r.vlan_tci |= sim_av_eth_prio(av) << VLAN_PRIO_SHIFT;
	psim = sim_fabric_find_gid(dgid, qp->sim);
	/* not a model device of this kernel: a datagram on the wire */
	if (!psim && sim_net_up(qp->sim)) {
		if (!sim_wire_ud_send(qp, &r, av, sgid_index, dqpn))
			goto dropped;
		atomic64_add(r.len, &qp->sim->estats.bytes);
		return sim_sq_done(qp, w, 0);
	}
	if (psim)
		peer = sim_qp_lookup(psim, dqpn);
	if (!peer || (peer->st != MLX5_QP_ST_UD &&
		      !(peer->st == MLX5_QP_ST_QP1 && dqpn == SIM_GSI_QPN)))
		goto dropped;
	if (sim_rq_deliver_ud(eng, peer, &r) == SIM_RESP_OK) {
		atomic64_add(r.len, &qp->sim->estats.bytes);
		return sim_sq_done(qp, w, 0);
	}
dropped:
	atomic64_inc(&qp->sim->estats.ud_dropped);
	return sim_sq_done(qp, w, 0);
}

/*
 * UMR: the WQE is unwrapped from the ring into the engine's scratch and
 * handed to umr.c. RC and UC QPs may change keys; UD may not.
 */
static enum sim_wqe_res sim_sq_umr(struct sim_engine *eng, struct sim_qp *qp,
				   const struct sim_wqe *w)
{
	u32 bb;
	u8 synd;

	if (qp->st == MLX5_QP_ST_UD || qp->st == MLX5_QP_ST_QP1)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	BUILD_BUG_ON(sizeof(eng->wqe) < SIM_MAX_WQE_BBS * MLX5_SEND_WQE_BB);
	for (bb = 0; bb < w->nbb; bb++)
		memcpy(eng->wqe + bb * MLX5_SEND_WQE_BB,
		       sim_wqe_unit(qp, w->start, bb * SIM_UNITS_PER_BB),
		       MLX5_SEND_WQE_BB);
	synd = sim_umr_execute(qp->sim, &eng->lsgl, qp->pd, qp->qpn, eng->wqe,
			       w->ds * MLX5_SEND_WQE_DS);
	if (synd)
		return sim_sq_error(qp, w, synd);
	return sim_sq_done(qp, w, 0);
}

/* SET_PSV: a PSV of the QP's PD gets a transient signature. */
static enum sim_wqe_res sim_sq_set_psv(struct sim_qp *qp,
				       const struct sim_wqe *w)
{
	struct mlx5_seg_set_psv seg;
	u8 synd;

	BUILD_BUG_ON(sizeof(seg) != MLX5_SEND_WQE_DS);
	if (w->ds < 2 || qp->st == MLX5_QP_ST_UD || qp->st == MLX5_QP_ST_QP1)
		return sim_sq_error(qp, w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	memcpy(&seg, sim_wqe_unit(qp, w->start, 1), sizeof(seg));
	synd = sim_psv_set_wqe(qp->sim, qp->pd, &seg);
	if (synd)
		return sim_sq_error(qp, w, synd);
	return sim_sq_done(qp, w, 0);
}

/* @avail: basic blocks the doorbell record covers from @start. */
static bool sim_sq_decode_at(struct sim_qp *qp, struct sim_wqe *w, u16 start,
			     u16 avail)
{
	struct mlx5_wqe_ctrl_seg *ctrl;
	u32 opmod_idx_opcode, qpn_ds;

	w->start = start;
	ctrl = sim_wqe_unit(qp, w->start, 0);
	opmod_idx_opcode = be32_to_cpu(READ_ONCE(ctrl->opmod_idx_opcode));
	qpn_ds = be32_to_cpu(READ_ONCE(ctrl->qpn_ds));
	w->opcode = opmod_idx_opcode & MLX5_WQE_CTRL_OPCODE_MASK;
	w->index = (opmod_idx_opcode & MLX5_WQE_CTRL_WQE_INDEX_MASK) >>
		   MLX5_WQE_CTRL_WQE_INDEX_SHIFT;
	w->ds = qpn_ds & MLX5_WQE_CTRL_DS_MASK;
	w->fm_ce_se = READ_ONCE(ctrl->fm_ce_se);
	w->imm = READ_ONCE(ctrl->imm);
	w->nbb = DIV_ROUND_UP(w->ds, SIM_UNITS_PER_BB) ?: 1;
	/* a malformed WQE still completes, as one basic block */
	if (!w->ds || w->nbb > SIM_MAX_WQE_BBS || w->nbb > qp->sq_wqe_cnt ||
	    w->nbb > avail ||
	    (qpn_ds >> MLX5_WQE_CTRL_QPN_SHIFT) != qp->qpn) {
		w->nbb = 1;
		return false;
	}
	return true;
}

static bool sim_sq_decode(struct sim_qp *qp, struct sim_wqe *w, u16 avail)
{
	return sim_sq_decode_at(qp, w, qp->sq_ci, avail);
}

/* The window's oldest WQE, taken out. */
static struct sim_wire_wqe *sim_sq_win_pop(struct sim_qp *qp)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_wire_wqe *e = &wq->win[wq->win_head];

	wq->win_head = (wq->win_head + 1) % SIM_WIRE_WINDOW;
	wq->win_n--;
	if (wq->win_sent)
		wq->win_sent--;
	if (sim_wire_rd_atomic(e->opcode))
		wq->win_rd_atomic--;
	return e;
}

static void sim_sq_win_complete(struct sim_qp *qp, const struct sim_wire_wqe *e,
				u8 opcode, u8 syndrome, bool flush)
{
	struct sim_wqe w = {
		.start = e->start,
		/* a flush names the WQE by the hardware's own counter */
		.index = flush ? e->start : e->index,
		.opcode = e->opcode,
		.fm_ce_se = e->fm_ce_se,
		.nbb = e->nbb,
	};
	u32 bytes = 0;

	/* a READ's or an atomic's CQE says how many bytes came */
	if (!syndrome && e->opcode == MLX5_OPCODE_RDMA_READ)
		bytes = e->len;
	else if (!syndrome && sim_wire_rd_atomic(e->opcode))
		bytes = 8;
	sim_sq_complete(qp, &w, opcode, syndrome, bytes);
}

/*
 * The window's oldest WQE failed (a NAK, retries or RNR retries
 * exhausted, a WQE that could not be sent again): its error CQE, the QP
 * to ERR; sim_sq_flush flushes the WQEs after it, then the SQ.
 */
static void sim_sq_win_fail(struct sim_qp *qp, u8 syndrome)
{
	struct sim_wire_wqe *e = sim_sq_win_pop(qp);

	sim_engine_count_err(&qp->sim->estats, syndrome);
	sim_qcnt_cqe_err(qp, true, syndrome);
	sim_sq_win_complete(qp, e, MLX5_CQE_REQ_ERR, syndrome, false);
	sim_qp_set_error(qp);
}

/* Complete, oldest first, what una has passed. True if any. */
static bool sim_sq_win_acked(struct sim_qp *qp)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_wire_wqe *e;
	bool work = false;

	while (wq->win_n) {
		e = &wq->win[wq->win_head];
		if (e->err) {
			sim_sq_win_fail(qp, e->err);
			return true;
		}
		if (sim_psn_diff(wq->una, e->first_psn + e->npkts) < 0)
			break;
		sim_sq_win_pop(qp);
		if (e->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE)
			sim_sq_win_complete(qp, e, MLX5_CQE_REQ, 0, false);
		qp->rnr_left = qp->rnr_retry;
		qp->retry_left = qp->retry_count;
		atomic64_inc(&qp->sim->estats.wqes);
		atomic64_add(e->len, &qp->sim->estats.bytes);
		work = true;
	}
	return work;
}

/*
 * The window's WQE @e decoded again from the SQ into @r, its lists in
 * @eng's scratch: 0, or the syndrome it fails with (it no longer decodes
 * as it did, a key is now invalid, its length changed). Under sq_lock.
 */
u8 sim_sq_win_req(struct sim_engine *eng, struct sim_qp *qp,
		  const struct sim_wire_wqe *e, struct sim_resp_req *r)
{
	struct sim_wqe w;
	u8 synd;

	if (!sim_sq_decode_at(qp, &w, e->start, e->nbb) ||
	    w.opcode != e->opcode || w.nbb != e->nbb)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	synd = sim_sq_rc_req(eng, qp, &w, r);
	if (!synd && (r->len != e->len || eng->lsgl.sig))
		synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	return synd;
}

/*
 * The busy WQE at the SQ head decoded again (wire_req.c: a READ through a
 * signature key whose responses outgrow rd_buf puts a chunk through its
 * scatter list's keys). Returns 0 or a syndrome.
 */
u8 sim_sq_head_req(struct sim_engine *eng, struct sim_qp *qp,
		   struct sim_resp_req *r)
{
	const struct sim_wire_req *wq = &qp->wreq;
	struct sim_wqe w;
	u8 synd;

	if (!wq->busy || !sim_sq_decode(qp, &w, qp->sq_wqe_cnt) ||
	    w.opcode != wq->wqe_opcode)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	synd = sim_sq_rc_req(eng, qp, &w, r);
	if (!synd && (r->len != wq->len || !r->dst))
		synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	return synd;
}

/*
 * More of the window out again: the WQEs after the win_sent already
 * sent in this round, up to @nwqe from the head, the oldest from una on.
 * They are still in the SQ: decoded again, their gather lists too; one
 * that no longer decodes (a key now invalid) is not sent, and fails when
 * it is the oldest.
 */
static void sim_sq_win_send_more(struct sim_engine *eng, struct sim_qp *qp,
				 u8 nwqe)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_resp_req r;
	struct sim_wire_wqe *e;
	u8 synd;

	for (; wq->win_sent < min(wq->win_n, nwqe); wq->win_sent++) {
		e = &wq->win[(wq->win_head + wq->win_sent) % SIM_WIRE_WINDOW];
		if (e->err)
			break;
		synd = sim_sq_win_req(eng, qp, e, &r);
		if (synd) {
			e->err = synd;
			break;
		}
		sim_wire_win_send(qp, &r, e, wq->una);
	}
}

/*
 * Go back to una (go-back-N), @nwqe WQEs at once (one after a timeout,
 * a probe); the rest as answers move una, SIM_WIRE_RESEND_BURST out at
 * a time, and nothing new joins before they all went. Sending the whole
 * window at each NAK, under reordering (netem: each copy reordered
 * again, the responder NAKing the next gap), put a window of duplicates
 * per NAK in the responder's queue; rxe on the debug kernel fell more
 * than retry_cnt local ACK timeouts behind and the newest requests
 * timed out (56-wire-loss's window step).
 */
static void sim_sq_win_goback(struct sim_engine *eng, struct sim_qp *qp,
			      u8 nwqe)
{
	struct sim_wire_req *wq = &qp->wreq;

	wq->win_sent = 0;
	sim_sq_win_send_more(eng, qp, nwqe);
}

/* nothing left for the window to do: all acknowledged, or the QP failed */
static bool sim_sq_win_over(struct sim_qp *qp)
{
	return !qp->wreq.win_n || READ_ONCE(qp->state) == MLX5_QP_STATE_ERR;
}

/*
 * The window, under sq_lock: completions for what the ACKs covered, and
 * what a NAK or a timer asks (the retry and RNR budgets are the QP's, as
 * for a WQE alone). True if it did anything.
 */
static bool sim_sq_window(struct sim_engine *eng, struct sim_qp *qp)
{
	struct sim_wire_req *wq = &qp->wreq;
	bool work, timeout;
	u64 now;
	u8 synd;

	if (!wq->win_n)
		return false;
	work = sim_sq_win_acked(qp);
	if (sim_sq_win_over(qp))
		return work;
	now = ktime_get_ns();
	if (wq->win_progress) {
		/* una moved: the local ACK timer starts again, its retries */
		wq->win_progress = false;
		qp->retry_left = qp->retry_count;
		if (wq->next == SIM_WIRE_WAITING)
			wq->win_due = now + sim_sq_ack_ns(qp);
		/* answers came: more of what it went back for goes again */
		if (wq->win_sent < wq->win_n && wq->next == SIM_WIRE_WAITING) {
			sim_sq_win_send_more(eng, qp, SIM_WIRE_RESEND_BURST);
			sim_sq_win_acked(qp);
			work = true;
			if (sim_sq_win_over(qp))
				return true;
		}
	}
	switch (wq->next) {
	case SIM_WIRE_ANSWERED:
		/* a NAK at una: the WQE holding it fails */
		sim_sq_win_fail(qp, wq->syndrome);
		return true;
	case SIM_WIRE_RNR:
		atomic64_inc(&qp->sim->estats.rnr_naks);
		if (!qp->rnr_left) {
			sim_sq_win_fail(qp, MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR);
			return true;
		}
		if (qp->rnr_left != SIM_INFINITE_RNR)
			qp->rnr_left--;
		sim_qcnt_inc(qp, SIM_QC_rnr_nak_retry_err);
		wq->next = SIM_WIRE_RNR_WAIT;
		wq->win_due = now + (u64)sim_rnr_usec[wq->rnr_timer & 0x1f] *
			      NSEC_PER_USEC;
		return true;
	case SIM_WIRE_RNR_WAIT:
		if (now < wq->win_due)
			return work;
		break;
	case SIM_WIRE_RESEND:
		break;
	default:
		if (now < wq->win_due)
			return work;
		atomic64_inc(&qp->sim->estats.retries);
		if (qp->ack_timeout) {
			if (!qp->retry_left) {
				synd = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR;
				sim_sq_win_fail(qp, synd);
				return true;
			}
			qp->retry_left--;
			sim_qcnt_inc(qp, SIM_QC_local_ack_timeout_err);
		}
		atomic64_inc(&qp->sim->net.st.timeouts);
		break;
	}
	atomic64_inc(&qp->sim->net.st.retransmits);
	/*
	 * After a local ACK timeout only the oldest WQE goes again (a
	 * probe), the rest once an answer moves una: a peer slower than the
	 * timer (rxe on the debug kernel) answered duplicates of whole-window
	 * resends one by one, each timeout added a window more, and una never
	 * moved before retry_cnt ran out (56-wire-loss's window step).
	 */
	timeout = wq->next == SIM_WIRE_WAITING;
	wq->next = SIM_WIRE_WAITING;
	wq->win_due = now + sim_sq_ack_ns(qp);
	sim_sq_win_goback(eng, qp, timeout ? 1 : SIM_WIRE_RESEND_BURST);
	/* the oldest could not be sent again: it fails now */
	sim_sq_win_acked(qp);
	return true;
}

static enum sim_wqe_res sim_sq_execute(struct sim_engine *eng,
				       struct sim_qp *qp, u16 avail)
{
	struct sim_wqe w;

	if (!sim_sq_decode(qp, &w, avail))
		return sim_sq_fail(qp, &w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	/* with the window in flight only what may join it runs */
	if (qp->wreq.win_n && !sim_sq_win_op(qp, &w))
		return SIM_WQE_WAIT;
	/* a fenced WQE waits for earlier READs and atomics to complete */
	if (sim_wqe_fenced(&w) && qp->rd_atomic_inflight)
		return SIM_WQE_WAIT;

	switch (w.opcode) {
	case MLX5_OPCODE_NOP:
		return sim_sq_done(qp, &w, 0);
	case MLX5_OPCODE_UMR:
		return sim_sq_umr(eng, qp, &w);
	case MLX5_OPCODE_SET_PSV:
		return sim_sq_set_psv(qp, &w);
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
		if (qp->st != MLX5_QP_ST_RC && qp->st != MLX5_QP_ST_UC)
			return sim_sq_ud(eng, qp, &w);
		return sim_sq_rc(eng, qp, &w);
	case MLX5_OPCODE_SEND_INVAL:
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		if (qp->st != MLX5_QP_ST_RC && qp->st != MLX5_QP_ST_UC)
			break;
		return sim_sq_rc(eng, qp, &w);
	case MLX5_OPCODE_RDMA_READ:
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		if (qp->st != MLX5_QP_ST_RC)
			break;
		return sim_sq_rc(eng, qp, &w);
	default:
		break;
	}
	return sim_sq_error(qp, &w, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
}

/*
 * The stop rule of drain_sigerr, once a signature error was seen: stop
 * before a fenced WQE, or once the unfenced WQEs allowed to run on past
 * the failing one have run.
 */
bool sim_sq_sig_stop(bool fenced, u8 runon_left)
{
	return fenced || !runon_left;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sq_sig_stop);

/*
 * The WQE being executed failed its signature check. With drain_sigerr
 * the SQ starts stopping (sim_sq_sig_gate); without it, it runs on. Under
 * sq_lock.
 */
void sim_sq_sig_error(struct sim_qp *qp)
{
	if (!qp->drain_sigerr || qp->sig_draining)
		return;
	qp->sig_draining = true;
	qp->sig_runon_left = READ_ONCE(qp->sim->knobs.sig_runon);
	/* the failing WQE itself does not count against the run-on */
	qp->sig_checked = qp->sq_ci;
}

/* Before the WQE at sq_ci, while stopping: true when the SQ stops here. */
static bool sim_sq_sig_gate(struct sim_qp *qp)
{
	struct mlx5_wqe_ctrl_seg *ctrl = sim_wqe_unit(qp, qp->sq_ci, 0);
	struct sim_wqe w = { .fm_ce_se = READ_ONCE(ctrl->fm_ce_se) };

	if (sim_sq_sig_stop(sim_wqe_fenced(&w), qp->sig_runon_left)) {
		qp->sig_draining = false;
		sim_qp_set_drained(qp);
		return true;
	}
	/* a WQE that waits (RNR, fence) is counted once */
	if (qp->sig_checked != qp->sq_ci) {
		qp->sig_checked = qp->sq_ci;
		qp->sig_runon_left--;
	}
	return false;
}

/*
 * Execute from sq_ci up to @pi, at most @budget WQEs; stops at a WQE that
 * waits, when every ACK slot is taken, or when the QP leaves RTS (an
 * error, a signature stop). Under sq_lock, the QP in RTS, the WQEs read
 * after the doorbell record. Returns true if it did anything.
 */
static bool sim_sq_run(struct sim_engine *eng, struct sim_qp *qp, u16 pi,
		       int budget)
{
	bool work = false;

	while (qp->sq_ci != pi && budget--) {
		if (qp->ack_n == SIM_SQ_ACKS) {
			/* every slot waits for an ACK: so does the SQ */
			qp->wait = SIM_SQ_WAIT_ACK;
			qp->wait_until = qp->acks[qp->ack_head].due;
			break;
		}
		if (qp->sig_draining && sim_sq_sig_gate(qp)) {
			work = true;
			break;
		}
		if (sim_sq_execute(eng, qp, pi - qp->sq_ci) == SIM_WQE_WAIT)
			break;
		work = true;
		if (READ_ONCE(qp->state) != MLX5_QP_STATE_RTS)
			break;
	}
	return work;
}

/*
 * SQD: no new WQE starts, but what is on the wire (the window, or a WQE
 * alone at the head) still takes its answers and timers; once nothing
 * is, software hears SQ_DRAINED. Under sq_lock.
 */
static bool sim_sq_sqd(struct sim_engine *eng, struct sim_qp *qp)
{
	bool work = false;
	u16 pi;

	if (qp->ack_n)
		work = sim_sq_acks_write(qp, false);
	if (qp->wreq.win_n) {
		work |= sim_sq_window(eng, qp);
	} else if (qp->wreq.busy &&
		   (qp->wait == SIM_SQ_RUN || ktime_get_ns() >= qp->wait_until)) {
		qp->wait = SIM_SQ_RUN;
		pi = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff;
		dma_rmb();
		if (qp->sq_ci != pi)
			sim_sq_execute(eng, qp, pi - qp->sq_ci);
		else
			qp->wreq.busy = false;
		work = true;
	}
	if (qp->sq_drain_pending && !qp->wreq.win_n && !qp->wreq.busy &&
	    READ_ONCE(qp->state) == MLX5_QP_STATE_SQD) {
		sim_qp_sq_drained(qp);
		work = true;
	}
	return work;
}

/*
 * When the send queue next needs the engine unkicked: its earliest timer
 * (ACK coalescing, RNR or retransmission, the window's local ACK or RNR
 * timer), U64_MAX if none runs. Under sq_lock.
 */
static u64 __sim_sq_due(const struct sim_qp *qp)
{
	u64 due = U64_MAX;

	if (qp->ack_n)
		due = qp->acks[qp->ack_head].due;
	if (qp->wait != SIM_SQ_RUN)
		due = min(due, qp->wait_until);
	if (qp->wreq.win_n)
		due = min(due, qp->wreq.win_due);
	return due;
}

/* The same, under rcu_read_lock(). */
u64 sim_sq_due(struct sim_qp *qp)
{
	u64 due;

	spin_lock_bh(&qp->sq_lock);
	due = __sim_sq_due(qp);
	spin_unlock_bh(&qp->sq_lock);
	return due;
}

/* Under sq_lock and rcu_read_lock(). Returns true if it did anything. */
static bool __sim_sq_process(struct sim_engine *eng, struct sim_qp *qp)
{
	bool work = false;
	u8 state;
	u16 pi;

	state = READ_ONCE(qp->state);
	if (!qp->sq_wqe_cnt)
		goto unlock;
	if (state == MLX5_QP_STATE_SQD) {
		work = sim_sq_sqd(eng, qp);
		goto unlock;
	}
	if (state != MLX5_QP_STATE_RTS)
		goto unlock;
	if (qp->ack_n)
		work = sim_sq_acks_write(qp, false);
	if (qp->wreq.win_n) {
		work |= sim_sq_window(eng, qp);
		if (READ_ONCE(qp->state) != MLX5_QP_STATE_RTS)
			goto unlock;
	}
	if (qp->wait != SIM_SQ_RUN) {
		if (ktime_get_ns() < qp->wait_until)
			goto unlock;
		qp->wait = SIM_SQ_RUN;
	}
	pi = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff;
	/* the WQEs were written before the doorbell record */
	dma_rmb();
	work |= sim_sq_run(eng, qp, pi, SIM_SQ_BUDGET);
	/* stopping with nothing left to run: drained */
	if (qp->sig_draining && qp->sq_ci == pi &&
	    READ_ONCE(qp->state) == MLX5_QP_STATE_RTS) {
		qp->sig_draining = false;
		sim_qp_set_drained(qp);
		work = true;
	}
unlock:
	return work;
}

/* Under rcu_read_lock(). Returns true if it did anything. */
bool sim_sq_process(struct sim_engine *eng, struct sim_qp *qp)
{
	bool work;

	spin_lock_bh(&qp->sq_lock);
	work = __sim_sq_process(eng, qp);
	spin_unlock_bh(&qp->sq_lock);
	return work;
}

/*
 * May the SQ run outside the engine? Not while completions wait for the
 * device's ack_delay_us, nor while it stops for a signature error or
 * drains for SQD: the engine sees those through. Its frames may go out
 * from anywhere: they are queued in the order they are made and sent by
 * the device's NAPI (net.c). Under sq_lock.
 */
static bool sim_sq_may_run_inline(const struct sim_qp *qp)
{
	return !qp->ack_n && !qp->sig_draining && !qp->sq_drain_pending;
}

/*
 * After __sim_sq_process() outside the engine: does the QP need it (work
 * left, an error to flush, SQD), or only a time (@due: its timers)?
 * Under sq_lock.
 */
static bool sim_sq_wants_engine(struct sim_qp *qp, u64 *due)
{
	u16 pi = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff;

	if (READ_ONCE(qp->state) != MLX5_QP_STATE_RTS || qp->sig_draining ||
	    qp->sq_drain_pending)
		return true;
	/*
	 * Nothing on the wire, but WQEs left or a request being made: no
	 * answer will run them (sim_sq_answer()), and no timer is for them
	 */
	if (!qp->wreq.win_n && (qp->sq_ci != pi || qp->wreq.busy))
		return true;
	*due = __sim_sq_due(qp);
	return false;
}

/*
 * Run the SQ outside the engine if it may (sim_sq_may_run_inline()):
 * then true, with @kick and @due for sim_sq_after_inline(). Under sq_lock.
 */
static bool sim_sq_run_here(struct sim_engine *eng, struct sim_qp *qp,
			    bool *kick, u64 *due)
{
	if (!qp->sq_wqe_cnt || !sim_sq_may_run_inline(qp))
		return false;
	__sim_sq_process(eng, qp);
	*kick = sim_sq_wants_engine(qp, due);
	return true;
}

/*
 * Wake the engine for what __sim_sq_process() left outside it: work at
 * once, a timer at its time. Under rcu_read_lock(), not under sq_lock.
 */
static void sim_sq_after_inline(struct mlx5sp_sim *sim, bool kick, u64 due)
{
	atomic64_inc(&sim->estats.inline_runs);
	if (kick)
		sim_engine_kick(sim);
	else if (due != U64_MAX)
		sim_engine_due(sim, due);
}

/*
 * A user send doorbell on UAR @uar ([be32 opmod_idx_opcode][be32 qpn_ds],
 * the WQE's first 8 bytes, in memory order), in the process that rang it
 * (sim_uar_store()). The QP it names runs here. False when the engine
 * must run it: the QP not on @uar or not to run outside the engine
 * (sim_sq_may_run_inline()), the scratch taken by another process,
 * debugfs inline off. Under rcu_read_lock(); process context.
 */
bool sim_sq_doorbell(struct mlx5sp_sim *sim, u32 uar, u64 val)
{
	struct sim_engine *eng = &sim->tx_eng;
	bool ran = false, kick = true;
	u64 due = U64_MAX;
	struct sim_qp *qp;
	__be32 w[2];

	memcpy(w, &val, sizeof(w));
	if (!READ_ONCE(sim->knobs.run_inline) || sim_engine_halted(sim))
		return false;
	qp = sim_qp_lookup(sim, be32_to_cpu(w[1]) >> 8);
	if (!qp || qp->uar != uar || READ_ONCE(qp->state) != MLX5_QP_STATE_RTS)
		return false;
	if (!spin_trylock_bh(&sim->tx_lock))
		return false;
	spin_lock_bh(&qp->sq_lock);
	if (eng->wire)
		ran = sim_sq_run_here(eng, qp, &kick, &due);
	spin_unlock_bh(&qp->sq_lock);
	spin_unlock_bh(&sim->tx_lock);
	if (ran)
		sim_sq_after_inline(sim, kick, due);
	return ran;
}

/*
 * An answer for the requester (ACK, NAK, READ response, atomic ACK), in
 * NAPI under rcu_read_lock(). The SQ runs here, where it arrived: the
 * completions it allows, and the WQEs posted meanwhile or waiting for
 * room in the window go out. The engine sleeps on: woken for work left
 * that no answer will run, or by a timer for a time (the window's local
 * ACK timeout).
 */
void sim_sq_answer(struct sim_engine *eng, struct sim_qp *qp,
		   const struct sim_rx_pkt *pkt)
{
	struct mlx5sp_sim *sim = qp->sim;
	bool ran = false, kick = true;
	u64 due = U64_MAX;

	spin_lock_bh(&qp->sq_lock);
	sim_wire_req_rx(eng, qp, pkt);
	if (READ_ONCE(sim->knobs.run_inline) &&
	    READ_ONCE(qp->state) == MLX5_QP_STATE_RTS)
		ran = sim_sq_run_here(eng, qp, &kick, &due);
	spin_unlock_bh(&qp->sq_lock);
	if (ran)
		sim_sq_after_inline(sim, kick, due);
	else
		sim_engine_kick(sim);
}

/*
 * One batch of sim_sq_catch_up, under sq_lock: true while there is more
 * to run towards @target (the doorbell record when the command started).
 */
static bool sim_sq_catch_up_batch(struct sim_engine *eng, struct sim_qp *qp,
				  u16 target, u32 *left)
{
	u16 start = qp->sq_ci, pi;

	if (sim_engine_halted(qp->sim) ||
	    READ_ONCE(qp->state) != MLX5_QP_STATE_RTS || start == target)
		return false;
	pi = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff;
	/* the engine ran past @target meanwhile (the record moved on) */
	if ((u16)(target - start) > (u16)(pi - start))
		return false;
	/* the QP leaves RTS: what waits for its ACK completes now */
	if (qp->wait == SIM_SQ_WAIT_ACK) {
		sim_sq_acks_write(qp, true);
		qp->wait = SIM_SQ_RUN;
	}
	/* a WQE waiting for an RNR or retransmission timer stays there */
	if (qp->wait != SIM_SQ_RUN) {
		if (ktime_get_ns() < qp->wait_until)
			return false;
		qp->wait = SIM_SQ_RUN;
	}
	dma_rmb();
	sim_sq_run(eng, qp, target, SIM_SQ_BUDGET);
	if (qp->sq_ci == start)
		return false;
	*left -= min_t(u32, *left, (u16)(qp->sq_ci - start));
	return *left && READ_ONCE(qp->state) == MLX5_QP_STATE_RTS &&
	       (qp->wait == SIM_SQ_RUN || qp->wait == SIM_SQ_WAIT_ACK);
}

/*
 * A command is about to take @qp out of RTS (2ERR, 2RST, RTS2SQD,
 * DESTROY_QP). A ConnectX's send engine sees a doorbell long before a
 * firmware command completes, so every WQE whose doorbell rang before the
 * command is executed, not flushed, and programs rely on it (a last
 * message posted just before a disconnect). The model's engine finds user
 * doorbells by polling and kernel doorbells when its thread runs, either
 * of which may come after the command: so the command runs the SQ first,
 * up to the producer index the doorbell record holds now, with @eng (the
 * command processor's scratch, under fw_lock). It stops where the engine
 * would: a WQE that waits (RNR, retransmission, fence), an error (the QP
 * goes to ERR), the signature stop of drain_sigerr (SQD). In batches, so
 * the engine and the rest of the machine get the lock and the CPU.
 */
void sim_sq_catch_up(struct sim_engine *eng, struct sim_qp *qp)
{
	u32 left = qp->sq_wqe_cnt;	/* never more than a ring */
	bool more = true;
	u16 target;

	if (!qp->sq_wqe_cnt || !eng->wire)
		return;
	target = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff;
	while (more) {
		rcu_read_lock();
		spin_lock_bh(&qp->sq_lock);
		more = sim_sq_catch_up_batch(eng, qp, target, &left);
		spin_unlock_bh(&qp->sq_lock);
		rcu_read_unlock();
		if (more)
			cond_resched();
	}
}

/* ERR: every posted WQE completes with a flush error. */
bool sim_sq_flush(struct sim_qp *qp)
{
	bool work = false;
	struct sim_wqe w;
	u16 pi;

	spin_lock_bh(&qp->sq_lock);
	if (READ_ONCE(qp->state) != MLX5_QP_STATE_ERR || !qp->sq_wqe_cnt)
		goto unlock;
	qp->wait = SIM_SQ_RUN;
	/* what ran before the error completes before the flush */
	work = sim_sq_acks_write(qp, true);
	/* then what was on the wire, in order */
	while (qp->wreq.win_n) {
		sim_sq_win_complete(qp, sim_sq_win_pop(qp), MLX5_CQE_REQ_ERR,
				    MLX5_CQE_SYNDROME_WR_FLUSH_ERR, true);
		atomic64_inc(&qp->sim->estats.flushed);
		sim_qcnt_cqe_err(qp, true, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		work = true;
	}
	pi = be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff;
	dma_rmb();
	while (qp->sq_ci != pi) {
		sim_sq_decode(qp, &w, pi - qp->sq_ci);
		/* the hardware's own counter names the WQE */
		w.index = qp->sq_ci;
		sim_sq_complete(qp, &w, MLX5_CQE_REQ_ERR,
				MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0);
		qp->sq_ci += w.nbb;
		atomic64_inc(&qp->sim->estats.flushed);
		sim_qcnt_cqe_err(qp, true, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		work = true;
	}
unlock:
	spin_unlock_bh(&qp->sq_lock);
	return work;
}
