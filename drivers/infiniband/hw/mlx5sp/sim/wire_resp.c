// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder on the wire: RC requests that came in on the netdev, in
 * PSN order from the QPC's next_rcv_psn, and UD/GSI datagrams.
 *
 * A request with the expected PSN is taken: SEND and RDMA WRITE packets
 * (first/middle packets carry exactly a path MTU, a WRITE no more than
 * its RETH says, no message beyond the device's 1 GiB max_msg) go to
 * memory as they come, as a card places them: the first one has rq.c
 * check the rkey for the whole RETH length, or take the receive WQE (an
 * RNR NAK of that packet when there is none), each one's bytes go to
 * their place, the last one completes the message. A message through a
 * signature key (the rkey's, or a key in the receive WQE) is gathered in
 * wresp.buf instead and goes to rq.c with its last packet; a WRITE longer
 * than the buffer (SIM_WIRE_MAX_MSG) goes to its key a chunk at a time,
 * cut at the key's block boundaries, a SEND no longer than it (its
 * receive WQE takes it whole). An RDMA READ goes to rq.c at once and its
 * data leaves as READ responses, a path MTU each, read from the key as
 * they go (through a signature key: made in wresp.buf first, whole or a
 * window at a time). Then an ACK (for the last packet of a
 * message and whenever the requester asks), an RNR NAK (the packet again
 * after the timer: a SEND's first, a WRITE with immediate's last, what
 * came before it kept), or a NAK with the code of what rq.c refused.
 * An atomic (AtomicETH) is executed by rq.c at once, as for a peer here
 * (8-byte aligned, an rkey with atomic access, the QP's rae, else the NAK
 * a ConnectX sends), and its original value goes back in an
 * ATOMIC_ACKNOWLEDGE; the value is kept by its PSN in the QP's responder
 * resources (SIM_WIRE_ATOMIC_RES of them, the oldest reused).
 * A PSN ahead of the expected one is a sequence error: one NAK until the
 * expected PSN comes. A PSN behind it is a duplicate: ACKed again, a
 * READ executed again (it changes nothing) and its responses re-sent, an
 * atomic answered from the resources without being executed again (one
 * no longer there is dropped: the requester has long had its answer).
 *
 * ACKs are coalesced: a positive ACK waits for the rest of the engine's
 * receive batch, and a later one of the same QP takes its place (it
 * acknowledges every PSN up to its own); any other response of the QP
 * (a NAK, a READ response, an atomic acknowledge), a request for another
 * QP and the end of the batch send it first.
 *
 * UC (IBTA 9.7.5.1, 9.8.3): SEND and RDMA WRITE packets are placed or
 * gathered the same way, with no ACK or NAK ever. A PSN other than the
 * expected one means packets were lost: the message in progress is
 * dropped, and so is every packet up to the next FIRST or ONLY, which
 * starts a message at its own PSN. A message rq.c does not take (no
 * receive WQE, a bad rkey or length) or one that breaks the rules is
 * dropped silently too; the QP stays as it is.
 *
 * Runs in the engine under rcu_read_lock(), taking the QP's rq_lock.
 */

#include "counters.h"
#include "engine.h"
#include "eq.h"
#include "mkey.h"
#include "qp.h"
#include "roce.h"
#include "sgl.h"
#include "sim.h"
#include "wire.h"

static void sim_wire_resp_xmit(struct sim_qp *qp, struct sim_tx_pkt *t,
			       struct sim_cur *c, u32 len)
{
	struct sim_tx_path path;

	if (!sim_net_path_qp(qp, &path)) {
		atomic64_inc(&qp->sim->net.st.tx_dropped);
		return;
	}
	t->dqpn = qp->remote_qpn;
	sim_net_send(qp->sim, &path, t, c, len);
}

static void sim_wire_ack_now(struct sim_qp *qp, u32 psn, u8 syndrome,
			     u32 msn)
{
	struct sim_tx_pkt t = {
		.opcode = SIM_TR_RC | SIM_OP_ACK,
		.hdrs = SIM_HDR_AETH,
		.psn = psn & SIM_PSN_MASK,
		.syndrome = syndrome,
		.msn = msn,
	};

	sim_wire_resp_xmit(qp, &t, NULL, 0);
}

/* The ACK @qp holds back goes out. Under its rq_lock. */
static void sim_wire_ack_flush_qp(struct sim_qp *qp)
{
	struct sim_wire_resp *wr = &qp->wresp;

	if (!wr->ack_pending)
		return;
	wr->ack_pending = false;
	sim_wire_ack_now(qp, wr->ack_psn, SIM_AETH_ACK | SIM_AETH_NO_CREDITS,
			 wr->ack_msn);
}

/* Any response but a coalesced ACK: what is held back goes first. */
static void sim_wire_resp_send(struct sim_qp *qp, struct sim_tx_pkt *t,
			       struct sim_cur *c, u32 len)
{
	sim_wire_ack_flush_qp(qp);
	sim_wire_resp_xmit(qp, t, c, len);
}

static void sim_wire_ack(struct sim_qp *qp, u32 psn, u8 syndrome)
{
	sim_wire_ack_flush_qp(qp);
	sim_wire_ack_now(qp, psn, syndrome, qp->wresp.msn);
}

/* A positive ACK of every PSN up to @psn, held back for the batch. */
static void sim_wire_ack_later(struct sim_engine *eng, struct sim_qp *qp,
			       u32 psn)
{
	struct sim_wire_resp *wr = &qp->wresp;

	if (wr->ack_pending)
		atomic64_inc(&qp->sim->net.st.acks_coalesced);
	wr->ack_pending = true;
	wr->ack_psn = psn;
	wr->ack_msn = wr->msn;
	eng->ack_qp = qp;
}

/*
 * The end of a receive batch, or a request for another QP: the ACK held
 * back goes out. In the engine, under the batch's rcu_read_lock().
 */
void sim_wire_ack_flush(struct sim_engine *eng)
{
	struct sim_qp *qp = eng->ack_qp;

	if (!qp)
		return;
	eng->ack_qp = NULL;
	spin_lock_bh(&qp->rq_lock);
	if (sim_engine_halted(qp->sim))
		qp->wresp.ack_pending = false;
	else
		sim_wire_ack_flush_qp(qp);
	spin_unlock_bh(&qp->rq_lock);
}

static void sim_wire_nak(struct sim_qp *qp, u32 psn, u8 code)
{
	atomic64_inc(&qp->sim->net.st.naks_sent);
	sim_wire_ack(qp, psn, SIM_AETH_NAK | code);
}

static u8 sim_wire_nak_code(u8 cqe_syndrome)
{
	switch (cqe_syndrome) {
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return SIM_NAK_REM_ACCESS;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return SIM_NAK_INV_REQ;
	default:
		return SIM_NAK_REM_OP;
	}
}

/*
 * A request the responder cannot take: NAK, and the QP goes to ERR. UC:
 * the message is dropped, up to the next FIRST or ONLY.
 */
static void sim_wire_invalid(struct sim_qp *qp, u32 psn)
{
	qp->wresp.msg = SIM_MSG_NONE;
	if (qp->st == MLX5_QP_ST_UC) {
		atomic64_inc(&qp->sim->net.st.uc_msgs_dropped);
		return;
	}
	sim_wire_nak(qp, psn, SIM_NAK_INV_REQ);
	sim_qp_set_error(qp);
	sim_post_qp_event(qp->sim, MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR,
			  qp->qpn);
}

/*
 * READ responses from @psn on: @len bytes read from @key, or from
 * wresp.buf where a signature key made them, or made a window at a time
 * by @ss (a signature key's message longer than wresp.buf).
 */
static void sim_wire_read_resp(struct sim_qp *qp, u32 psn, u32 len,
			       const struct sim_sge *key,
			       struct sim_wire_sig_stream *ss)
{
	u32 mtu = sim_wire_mtu(qp), n = len ? DIV_ROUND_UP(len, mtu) : 1;
	struct sim_tx_pkt t = {};
	struct sim_sge sge = { .kva = qp->wresp.buf, .len = len };
	struct sim_cur c;
	u32 i, chunk;

	sim_cur_init(&c, key ?: &sge, 1);
	for (i = 0; i < n; i++) {
		chunk = min(mtu, len - i * mtu);
		/* the requester's local ACK timeout finds what is missing */
		if (ss && !sim_wire_sig_at(ss, &c, (u64)i * mtu, chunk))
			return;
		bool first = !i, last = i == n - 1;

		if (first && last)
			t.opcode = SIM_OP_READ_RESP_ONLY;
		else if (first)
			t.opcode = SIM_OP_READ_RESP_FIRST;
		else if (last)
			t.opcode = SIM_OP_READ_RESP_LAST;
		else
			t.opcode = SIM_OP_READ_RESP_MIDDLE;
		t.hdrs = sim_wire_op_hdrs(t.opcode);
		t.opcode |= SIM_TR_RC;
		t.psn = (psn + i) & SIM_PSN_MASK;
		t.syndrome = SIM_AETH_ACK | SIM_AETH_NO_CREDITS;
		t.msn = qp->wresp.msn;
		sim_wire_resp_send(qp, &t, &c, chunk);
	}
}

static void sim_wire_resp_req(struct sim_engine *eng, struct sim_qp *qp,
			      struct sim_resp_req *r, u32 len)
{
	memset(r, 0, sizeof(*r));
	r->req_sim = qp->sim;
	r->src_qpn = qp->remote_qpn;
	r->len = len;
	r->sig = &eng->sig_log;
	r->sig->n = 0;
	sim_sgl_reset(&eng->lsgl);
	if (qp->wresp.buf)
		sim_sgl_add_kva(&eng->lsgl, qp->wresp.buf, len);
}

/* A packet of a SEND or WRITE placed as it comes: its bytes. */
static void sim_wire_resp_part(struct sim_engine *eng, struct sim_qp *qp,
			       const struct sim_rx_pkt *pkt,
			       struct sim_resp_req *r)
{
	memset(r, 0, sizeof(*r));
	r->req_sim = qp->sim;
	r->src_qpn = qp->remote_qpn;
	r->len = pkt->paylen;
	r->sig = &eng->sig_log;
	r->sig->n = 0;
	sim_sgl_reset(&eng->lsgl);
	/* rq.c only reads from it */
	sim_sgl_add_kva(&eng->lsgl, (void *)pkt->payload, pkt->paylen);
	r->src = &eng->lsgl;
}

/*
 * rq.c did not take a packet of a SEND or WRITE (@res): an RNR NAK (the
 * packet again after the timer, what came before it stays), a NAK, or
 * nothing when the QP no longer receives. UC answers nothing: the
 * message is dropped.
 */
static void sim_wire_resp_refused(struct sim_qp *qp,
				  const struct sim_rx_pkt *pkt, int res,
				  u8 syndrome)
{
	struct sim_wire_resp *wr = &qp->wresp;

	if (res == SIM_RESP_NOT_READY)
		return;
	if (qp->st == MLX5_QP_ST_UC) {
		wr->msg = SIM_MSG_NONE;
		atomic64_inc(&qp->sim->net.st.uc_msgs_dropped);
		return;
	}
	if (res == SIM_RESP_RNR) {
		atomic64_inc(&qp->sim->net.st.rnr_naks_sent);
		sim_wire_ack(qp, pkt->psn,
			     SIM_AETH_RNR_NAK | (qp->min_rnr_nak & 0x1f));
		return;
	}
	wr->msg = SIM_MSG_NONE;
	sim_wire_nak(qp, pkt->psn, sim_wire_nak_code(syndrome));
}

/*
 * An RDMA READ request; @dup: a duplicate, the expected PSN stays. Its
 * responses are read from the key as they go, or made whole in wresp.buf
 * first when it is a signature key (its PI inserted or stripped), or a
 * window of wresp.buf at a time when they are longer (their errors
 * reported by SIGERR CQEs once they are out, a duplicate's not again).
 */
static void sim_wire_resp_read(struct sim_engine *eng, struct sim_qp *qp,
			       const struct sim_rx_pkt *pkt, bool dup)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_wire_sig_stream ss = {
		.eng = eng, .sim = qp->sim, .buf = wr->buf, .n = 1,
		.log = dup ? NULL : &wr->sig_seen, .len = pkt->dmalen,
	};
	u32 mtu = sim_wire_mtu(qp);
	struct sim_resp_req r;
	struct sim_mkey *mk;
	bool whole, stream;
	int res;

	mk = sim_mkey_lookup(qp->sim, pkt->rkey);
	whole = pkt->dmalen && mk && READ_ONCE(mk->bsf_en);
	stream = whole && pkt->dmalen > SIM_WIRE_MAX_MSG;
	if (pkt->dmalen > SIM_MSG_MAX || (whole && !wr->buf) ||
	    (!dup && wr->msg != SIM_MSG_NONE)) {
		sim_wire_invalid(qp, pkt->psn);
		return;
	}
	sim_wire_resp_req(eng, qp, &r, pkt->dmalen);
	r.wqe_opcode = MLX5_OPCODE_RDMA_READ;
	r.raddr = pkt->va;
	r.rkey = pkt->rkey;
	r.dst = whole && !stream ? &eng->lsgl : NULL;
	r.sig_key_ok = stream;
	res = sim_rq_execute_locked(eng, qp, &r);
	if (res == SIM_RESP_NOT_READY)
		return;
	if (res != SIM_RESP_OK) {
		sim_wire_nak(qp, pkt->psn, sim_wire_nak_code(r.syndrome));
		return;
	}
	if (!dup) {
		wr->epsn = (wr->epsn + (pkt->dmalen ?
			    DIV_ROUND_UP(pkt->dmalen, mtu) : 1)) &
			   SIM_PSN_MASK;
		wr->msn = (wr->msn + 1) & SIM_PSN_MASK;
	}
	if (!stream) {
		sim_wire_read_resp(qp, pkt->psn, pkt->dmalen,
				   whole ? NULL : &r.key, NULL);
		return;
	}
	ss.sge = &r.key;
	wr->sig_seen.n = 0;
	sim_wire_read_resp(qp, pkt->psn, pkt->dmalen, NULL, &ss);
	/* our key is the source of a READ: SIGERR CQEs, as rq.c writes */
	if (ss.log && ss.log->n)
		sim_sig_log_cqes(qp->rcq, qp->qpn, ss.log, false);
}

static void sim_wire_atomic_ack(struct sim_qp *qp, u32 psn, u64 orig)
{
	struct sim_tx_pkt t = {
		.opcode = SIM_TR_RC | SIM_OP_ATOMIC_ACK,
		.hdrs = SIM_HDR_AETH | SIM_HDR_ATMACK,
		.psn = psn & SIM_PSN_MASK,
		.syndrome = SIM_AETH_ACK | SIM_AETH_NO_CREDITS,
		.msn = qp->wresp.msn,
		.orig = orig,
	};

	sim_wire_resp_send(qp, &t, NULL, 0);
}

static struct sim_wire_atomic_res *
sim_wire_atomic_find(struct sim_wire_resp *wr, u32 psn)
{
	int i;

	for (i = 0; i < SIM_WIRE_ATOMIC_RES; i++)
		if (wr->atomic_res[i].valid && wr->atomic_res[i].psn == psn)
			return &wr->atomic_res[i];
	return NULL;
}

/* A duplicate atomic: its answer again, never the operation. */
static void sim_wire_resp_atomic_dup(struct sim_qp *qp,
				     const struct sim_rx_pkt *pkt)
{
	struct sim_wire_atomic_res *res;

	res = sim_wire_atomic_find(&qp->wresp, pkt->psn);
	if (!res) {
		atomic64_inc(&qp->sim->net.st.rx_dropped);
		return;
	}
	atomic64_inc(&qp->sim->net.st.atomic_dups);
	sim_wire_atomic_ack(qp, pkt->psn, res->orig);
}

/* A compare & swap or fetch & add with the expected PSN. */
static void sim_wire_resp_atomic(struct sim_engine *eng, struct sim_qp *qp,
				 const struct sim_rx_pkt *pkt)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_wire_atomic_res *res;
	struct sim_resp_req r;
	int ret;

	if (wr->msg != SIM_MSG_NONE) {
		sim_wire_invalid(qp, pkt->psn);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.req_sim = qp->sim;
	r.src_qpn = qp->remote_qpn;
	r.wqe_opcode = pkt->op == SIM_OP_CMP_SWAP ? MLX5_OPCODE_ATOMIC_CS :
						    MLX5_OPCODE_ATOMIC_FA;
	r.raddr = pkt->va;
	r.rkey = pkt->rkey;
	r.len = 8;
	r.swap_add = pkt->swap_add;
	r.compare = pkt->compare;
	r.sig = &eng->sig_log;
	r.sig->n = 0;
	ret = sim_rq_execute_locked(eng, qp, &r);
	if (ret == SIM_RESP_NOT_READY)
		return;
	if (ret != SIM_RESP_OK) {
		sim_wire_nak(qp, pkt->psn, sim_wire_nak_code(r.syndrome));
		return;
	}
	atomic64_inc(&qp->sim->net.st.atomics);
	res = &wr->atomic_res[wr->atomic_next];
	wr->atomic_next = (wr->atomic_next + 1) % SIM_WIRE_ATOMIC_RES;
	res->valid = true;
	res->psn = pkt->psn;
	res->orig = r.atomic_old;
	wr->epsn = (wr->epsn + 1) & SIM_PSN_MASK;
	wr->msn = (wr->msn + 1) & SIM_PSN_MASK;
	sim_wire_atomic_ack(qp, pkt->psn, r.atomic_old);
}

static u8 sim_wire_wqe_opcode(u8 op)
{
	switch (op) {
	case SIM_OP_SEND_LAST_IMM:
	case SIM_OP_SEND_ONLY_IMM:
		return MLX5_OPCODE_SEND_IMM;
	case SIM_OP_SEND_LAST_INV:
	case SIM_OP_SEND_ONLY_INV:
		return MLX5_OPCODE_SEND_INVAL;
	case SIM_OP_WRITE_FIRST:
	case SIM_OP_WRITE_MIDDLE:
	case SIM_OP_WRITE_LAST:
	case SIM_OP_WRITE_ONLY:
		return MLX5_OPCODE_RDMA_WRITE;
	case SIM_OP_WRITE_LAST_IMM:
	case SIM_OP_WRITE_ONLY_IMM:
		return MLX5_OPCODE_RDMA_WRITE_IMM;
	default:
		return MLX5_OPCODE_SEND;
	}
}

/*
 * The rest of a SEND that went to its receive WQE's signature keys in
 * chunks (sim_wire_resp_room), then the WQE completes with the whole
 * length.
 */
static int sim_wire_resp_send_end(struct sim_engine *eng, struct sim_qp *qp,
				  struct sim_resp_req *r)
{
	struct sim_wire_resp *wr = &qp->wresp;
	u32 put;
	int res;

	res = sim_rq_direct_sig(eng, qp, r, wr->base, true, &put);
	if (res != SIM_RESP_OK)
		return res;
	r->len = wr->off;
	return sim_rq_direct_end(eng, qp, r);
}

/*
 * The last packet of a SEND or WRITE is in: the message completes (rq.c),
 * or, gathered for a signature key, goes to rq.c whole.
 */
static void sim_wire_resp_deliver(struct sim_engine *eng, struct sim_qp *qp,
				  const struct sim_rx_pkt *pkt, u8 msg)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_resp_req r;
	int res;

	if (msg == SIM_MSG_WRITE && wr->off != wr->dmalen) {
		sim_wire_invalid(qp, pkt->psn);
		return;
	}
	/* gathered: what the buffer holds (a long WRITE's last chunk) */
	sim_wire_resp_req(eng, qp, &r, wr->off - wr->base);
	r.wqe_opcode = sim_wire_wqe_opcode(pkt->op);
	r.imm = pkt->imm;
	r.solicited = pkt->se;
	r.src = &eng->lsgl;
	r.raddr = wr->va + wr->base;
	r.rkey = wr->rkey;
	if (!wr->direct)
		r.sig_seen = &wr->sig_seen;
	wr->msg = SIM_MSG_NONE;
	if (wr->direct)
		res = sim_rq_direct_end(eng, qp, &r);
	else if (msg == SIM_MSG_SEND && wr->base)
		res = sim_wire_resp_send_end(eng, qp, &r);
	else
		res = sim_rq_execute_locked(eng, qp, &r);
	if (qp->st == MLX5_QP_ST_UC) {
		/* no answer: what rq.c did not take is gone */
		if (res == SIM_RESP_OK)
			wr->msn = (wr->msn + 1) & SIM_PSN_MASK;
		else
			atomic64_inc(&qp->sim->net.st.uc_msgs_dropped);
		return;
	}
	switch (res) {
	case SIM_RESP_OK:
		wr->msn = (wr->msn + 1) & SIM_PSN_MASK;
		sim_wire_ack_later(eng, qp, pkt->psn);
		break;
	case SIM_RESP_RNR:
		/*
		 * No receive WQE for the immediate (or an SRQ emptied by
		 * another QP): this packet again after the timer, the
		 * message so far kept. Not its first PSN: ACKs the
		 * requester asked for may have taken it past that.
		 */
		wr->msg = msg;
		wr->off -= pkt->paylen;
		wr->epsn = pkt->psn;
		sim_wire_resp_refused(qp, pkt, res, 0);
		break;
	case SIM_RESP_ERR:
		sim_wire_nak(qp, pkt->psn, sim_wire_nak_code(r.syndrome));
		break;
	default:
		wr->epsn = wr->first_psn;
		break;
	}
}

/*
 * A message through a signature key longer than wresp.buf: before a
 * packet of @need bytes would not fit, what the buffer holds up to a
 * block boundary of the keys goes through them (rq.c: a WRITE of that
 * chunk to the rkey, or a SEND's chunk to the receive WQE's scatter list;
 * SIGERR CQEs for a key's first error once), the rest to its front.
 * Returns SIM_RESP_OK or what rq.c answered (@r's syndrome).
 */
static int sim_wire_resp_room(struct sim_engine *eng, struct sim_qp *qp,
			      u32 need, u8 msg, struct sim_resp_req *r)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_sge key = {
		.va = wr->va, .len = wr->dmalen, .sig = true,
	};
	u32 cut, put;
	int res;

	if (wr->off - wr->base + need <= SIM_WIRE_MAX_MSG)
		return SIM_RESP_OK;
	sim_wire_resp_req(eng, qp, r, wr->off - wr->base);
	r->src = &eng->lsgl;
	r->sig_seen = &wr->sig_seen;
	if (msg == SIM_MSG_SEND) {
		r->wqe_opcode = MLX5_OPCODE_SEND;
		res = sim_rq_direct_sig(eng, qp, r, wr->base, false, &put);
		if (res != SIM_RESP_OK)
			return res;
		cut = wr->base + put;
	} else {
		key.mk = sim_mkey_lookup(qp->sim, wr->rkey);
		cut = key.mk ? sim_xfer_cut(&key, 1, wr->off) : 0;
		if (cut > wr->base) {
			/* the chunk's bytes: the buffer's first */
			sim_sgl_reset(&eng->lsgl);
			sim_sgl_add_kva(&eng->lsgl, wr->buf, cut - wr->base);
			r->len = cut - wr->base;
			r->wqe_opcode = MLX5_OPCODE_RDMA_WRITE;
			r->raddr = wr->va + wr->base;
			r->rkey = wr->rkey;
			res = sim_rq_execute_locked(eng, qp, r);
			if (res != SIM_RESP_OK)
				return res;
		}
	}
	r->syndrome = MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
	if (cut <= wr->base || wr->off - cut + need > SIM_WIRE_MAX_MSG)
		return SIM_RESP_ERR;
	memmove(wr->buf, wr->buf + (cut - wr->base), wr->off - cut);
	wr->base = cut;
	return SIM_RESP_OK;
}

/*
 * A SEND or WRITE packet with the expected PSN. The first one decides
 * where the message goes: to memory as its packets come (rq.c checks the
 * rkey or takes the receive WQE with it: RNR there), or, through a
 * signature key, gathered in wresp.buf (at most SIM_WIRE_MAX_MSG) for
 * rq.c with the last.
 */
static void sim_wire_resp_msg(struct sim_engine *eng, struct sim_qp *qp,
			      const struct sim_rx_pkt *pkt, u8 msg)
{
	struct sim_wire_resp *wr = &qp->wresp;
	u32 mtu = sim_wire_mtu(qp);
	bool first = pkt->hdrs & SIM_HDR_FIRST;
	bool last = pkt->hdrs & SIM_HDR_LAST;
	bool write = msg == SIM_MSG_WRITE;
	struct sim_resp_req r;
	bool whole;
	int res;

	if (first ? wr->msg != SIM_MSG_NONE : wr->msg != msg)
		goto invalid;
	if (pkt->paylen > mtu || (!last && pkt->paylen != mtu) ||
	    (write && pkt->paylen > (first ? pkt->dmalen :
					     wr->dmalen - wr->off)) ||
	    (first && write && pkt->dmalen > SIM_MSG_MAX) ||
	    (!first && pkt->paylen > SIM_MSG_MAX - wr->off))
		goto invalid;
	sim_wire_resp_part(eng, qp, pkt, &r);
	r.wqe_opcode = write ? MLX5_OPCODE_RDMA_WRITE : MLX5_OPCODE_SEND;
	if (first) {
		/* the whole message's key range, or its receive WQE */
		r.raddr = pkt->va;
		r.rkey = pkt->rkey;
		r.len = write ? pkt->dmalen : 0;
		res = sim_rq_direct_begin(eng, qp, &r, &whole);
		if (res != SIM_RESP_OK) {
			sim_wire_resp_refused(qp, pkt, res, r.syndrome);
			return;
		}
		r.len = pkt->paylen;
		wr->msg = msg;
		wr->direct = !whole;
		wr->first_psn = pkt->psn;
		wr->off = 0;
		wr->va = pkt->va;
		wr->rkey = pkt->rkey;
		wr->dmalen = pkt->dmalen;
		wr->base = 0;
		wr->sig_seen.n = 0;
	}
	if (!wr->direct) {
		if (!wr->buf)
			goto invalid;
		res = sim_wire_resp_room(eng, qp, pkt->paylen, msg, &r);
		if (res != SIM_RESP_OK) {
			sim_wire_resp_refused(qp, pkt, res, r.syndrome);
			return;
		}
		memcpy(wr->buf + (wr->off - wr->base), pkt->payload,
		       pkt->paylen);
	} else if (pkt->paylen) {
		/* this packet's bytes at their place */
		r.raddr = wr->va + wr->off;
		r.rkey = wr->rkey;
		res = sim_rq_direct_part(eng, qp, &r, wr->off);
		if (res != SIM_RESP_OK) {
			sim_wire_resp_refused(qp, pkt, res, r.syndrome);
			return;
		}
	}
	wr->off += pkt->paylen;
	wr->epsn = (wr->epsn + 1) & SIM_PSN_MASK;
	if (last)
		sim_wire_resp_deliver(eng, qp, pkt, msg);
	else if (pkt->ackreq && qp->st != MLX5_QP_ST_UC)
		sim_wire_ack_later(eng, qp, pkt->psn);
	return;

invalid:
	sim_wire_invalid(qp, pkt->psn);
}

static bool sim_wire_receiving(struct sim_qp *qp)
{
	u8 state = READ_ONCE(qp->state);

	return state == MLX5_QP_STATE_RTR || state == MLX5_QP_STATE_RTS ||
	       state == MLX5_QP_STATE_SQD || state == MLX5_QP_STATE_SQER;
}

/* A UC SEND or RDMA WRITE packet (net.c checked the opcode). */
static void sim_wire_resp_uc(struct sim_engine *eng, struct sim_qp *qp,
			     const struct sim_rx_pkt *pkt)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_net_stats *st = &qp->sim->net.st;
	bool first = pkt->hdrs & SIM_HDR_FIRST;

	if (pkt->psn != wr->epsn || first) {
		/* packets lost, or a new message: the one in progress is gone */
		if (wr->msg != SIM_MSG_NONE) {
			wr->msg = SIM_MSG_NONE;
			atomic64_inc(&st->uc_msgs_dropped);
		}
		if (!first) {
			atomic64_inc(&st->rx_dropped);
			return;
		}
		wr->epsn = pkt->psn;
	} else if (wr->msg == SIM_MSG_NONE) {
		/* the rest of a message dropped before: wait for a FIRST */
		wr->epsn = (pkt->psn + 1) & SIM_PSN_MASK;
		atomic64_inc(&st->rx_dropped);
		return;
	}
	sim_wire_resp_msg(eng, qp, pkt, pkt->op <= SIM_OP_SEND_ONLY_IMM ?
				       SIM_MSG_SEND : SIM_MSG_WRITE);
}

/* An RC or UC request for @qp. */
void sim_wire_resp_rx(struct sim_engine *eng, struct sim_qp *qp,
		      const struct sim_rx_pkt *pkt)
{
	struct sim_wire_resp *wr = &qp->wresp;
	struct sim_net_stats *st = &qp->sim->net.st;
	s32 d;

	if (eng->ack_qp != qp)
		sim_wire_ack_flush(eng);
	spin_lock_bh(&qp->rq_lock);
	if (!sim_wire_receiving(qp)) {
		atomic64_inc(&st->rx_no_qp);
		goto unlock;
	}
	if (qp->st == MLX5_QP_ST_UC) {
		sim_wire_resp_uc(eng, qp, pkt);
		goto unlock;
	}
	d = sim_psn_diff(pkt->psn, wr->epsn);
	if (d > 0) {
		/* a packet lost before this one: say where to go back to */
		if (!wr->nak_sent) {
			wr->nak_sent = true;
			sim_wire_nak(qp, wr->epsn, SIM_NAK_PSN_SEQ);
		}
		sim_qcnt_inc(qp, SIM_QC_out_of_sequence);
		atomic64_inc(&st->rx_dropped);
		goto unlock;
	}
	if (d < 0) {
		sim_qcnt_inc(qp, SIM_QC_duplicate_request);
		atomic64_inc(&st->dup_reqs);
		if (pkt->op == SIM_OP_READ_REQ)
			sim_wire_resp_read(eng, qp, pkt, true);
		else if (pkt->op == SIM_OP_CMP_SWAP ||
			 pkt->op == SIM_OP_FETCH_ADD)
			sim_wire_resp_atomic_dup(qp, pkt);
		else
			sim_wire_ack_later(eng, qp, wr->epsn - 1);
		goto unlock;
	}
	wr->nak_sent = false;
	switch (pkt->op) {
	case SIM_OP_SEND_FIRST:
	case SIM_OP_SEND_MIDDLE:
	case SIM_OP_SEND_LAST:
	case SIM_OP_SEND_LAST_IMM:
	case SIM_OP_SEND_ONLY:
	case SIM_OP_SEND_ONLY_IMM:
	case SIM_OP_SEND_LAST_INV:
	case SIM_OP_SEND_ONLY_INV:
		sim_wire_resp_msg(eng, qp, pkt, SIM_MSG_SEND);
		break;
	case SIM_OP_WRITE_FIRST:
	case SIM_OP_WRITE_MIDDLE:
	case SIM_OP_WRITE_LAST:
	case SIM_OP_WRITE_LAST_IMM:
	case SIM_OP_WRITE_ONLY:
	case SIM_OP_WRITE_ONLY_IMM:
		sim_wire_resp_msg(eng, qp, pkt, SIM_MSG_WRITE);
		break;
	case SIM_OP_READ_REQ:
		sim_wire_resp_read(eng, qp, pkt, false);
		break;
	case SIM_OP_CMP_SWAP:
	case SIM_OP_FETCH_ADD:
		sim_wire_resp_atomic(eng, qp, pkt);
		break;
	default:
		sim_wire_invalid(qp, pkt->psn);
		break;
	}
unlock:
	spin_unlock_bh(&qp->rq_lock);
}

/* A datagram for a UD QP or the GSI QP. */
void sim_wire_ud_rx(struct sim_engine *eng, struct sim_qp *qp,
		    const struct sim_rx_pkt *pkt)
{
	struct sim_gid sgid = {
		.valid = true,
		.version = pkt->v1 ? MLX5_ROCE_VERSION_1 : MLX5_ROCE_VERSION_2,
		.l3_type = ipv6_addr_v4mapped((const struct in6_addr *)
					      pkt->sgid) ?
			   MLX5_ROCE_L3_TYPE_IPV4 : MLX5_ROCE_L3_TYPE_IPV6,
	};
	struct sim_resp_req r = {
		.req_sim = qp->sim,
		.wqe_opcode = pkt->op == SIM_OP_SEND_ONLY_IMM ?
			      MLX5_OPCODE_SEND_IMM : MLX5_OPCODE_SEND,
		.src_qpn = pkt->sqpn,
		.imm = pkt->imm,
		.solicited = pkt->se,
		.qkey = pkt->qkey,
		.sgid = &sgid,
		.dgid = pkt->dgid,
		.hop_limit = pkt->ttl,
		.tclass = pkt->tos,
		.flow_label = pkt->flow_label,
		.vlan = pkt->vlan,
		.vlan_tci = pkt->vlan_tci,
		.len = pkt->paylen,
		.src = &eng->lsgl,
	};

	memcpy(sgid.gid, pkt->sgid, sizeof(sgid.gid));
	sim_sgl_reset(&eng->lsgl);
	/* rq.c only reads from it */
	sim_sgl_add_kva(&eng->lsgl, (void *)pkt->payload, pkt->paylen);
	if (sim_rq_deliver_ud(eng, qp, &r) != SIM_RESP_OK)
		atomic64_inc(&qp->sim->estats.ud_dropped);
}
