// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester on the wire: an RC WQE whose peer is not a model device
 * of this kernel becomes packets, and UD/GSI datagrams go out as one.
 *
 * An RC message is cut into path-MTU packets with PSNs from snd_psn (the
 * QPC's next_send_psn), its last one (and every 16th) asking for an ACK.
 *
 * The window (IBTA vol. 1 9.7): SEND, SEND with immediate or invalidate,
 * RDMA WRITE (with immediate), RDMA READ and atomic WQEs not through a
 * signature key (a fenced one only into an empty window: what is before
 * it complete) go out back to back, up to
 * SIM_WIRE_WINDOW of them (and what the SQ holds; READs and atomics at
 * most the 2^log_sra_max the QPC allows outstanding): sq_ci moves past
 * them, what completes them is kept in wreq.win, in SQ order. An ACK of
 * PSN p acknowledges every PSN up to p (the responder may coalesce): sq.c
 * completes each WQE whose last PSN una has passed. A READ's responses
 * take its PSNs, each written into its scatter list (decoded again from
 * the SQ) as it comes, in order; an atomic (compare & swap, fetch & add:
 * one request with an AtomicETH) takes one PSN, and its
 * ATOMIC_ACKNOWLEDGE's original value goes to its 8-byte scatter entry
 * in the endianness the device's atomic caps name, as for a peer here
 * (rq.c). A response acknowledges every request before it. A response
 * or an ACK beyond the response a READ or an atomic still awaits means
 * that one was lost (an implied NAK, 9.7.5.1.5): una stops there and
 * the requester goes back to it at once, once for that PSN (then the
 * timeout does); a READ sent again asks for the rest of its data from
 * there, and the responder answers from a FIRST or ONLY response again;
 * an atomic sent again is the same request, which the responder answers
 * from its cache. A NAK PSN sequence error at p, an RNR NAK at p (after
 * its timer) or the local ACK timeout go back to p (una): the WQE holding
 * it from that packet on, then every later one, decoded again from the
 * SQ, where they still are (go-back-N, a few WQEs at a time: sq.c). A
 * NAK (invalid request, remote access, remote operation) at p: what is
 * before p completes, the WQE holding p fails, the rest are flushed.
 *
 * Everything else is stop-and-wait, once the window is empty: one WQE at
 * the SQ head (wreq.busy) waits for its answer (sq.c): a SEND or WRITE
 * through a signature key, a READ through one (its responses land in
 * rd_buf and go through the scatter list's keys when the last one is
 * in). What comes back for it (net.c, under sq_lock):
 *   ACK      una moves past its PSN; the last PSN acknowledged completes
 *            (not a READ or an atomic: their responses complete them)
 *   a READ response beyond una: una's was lost (an implied NAK): ask
 *            for the rest from una at once, once per PSN
 *   NAK PSN sequence error: go back to its PSN, send from there at once
 *   RNR NAK  go back to its PSN, wait the timer it names, send again
 *   NAK (invalid request, remote access, remote operation): the WQE
 *            completes in error with the matching syndrome
 * Nothing back within the local ACK timeout (4.096 us << timeout) sends
 * again from una (go-back-N), retry_cnt times, then
 * IBV_WC_RETRY_EXC_ERR; RNR NAKs rnr_retry times (7: forever), then
 * IBV_WC_RNR_RETRY_EXC_ERR (sq.c counts and decides).
 *
 * UC: a SEND or RDMA WRITE WQE is cut into packets the same way, with
 * the UC opcodes, and completes when they are out: no ACKs, no
 * retransmission; what is lost is lost (IBTA 9.7.2: the responder drops
 * the rest of the message).
 *
 * Signature keys (RC and UC): the gather list of a SEND or WRITE through
 * one is turned into its wire bytes once, into rd_buf, when the WQE first
 * goes out (xfer.c, as on the direct path: PI inserted, checked or
 * stripped, the errors found logged for sq.c's SIGERR CQEs), and its
 * packets and any retransmission are cut from there; a READ's response
 * data goes through its scatter list's keys when the last response is
 * in. The packets carry the keys' wire domain. The responder's keys are
 * rq.c's, as for a peer here: a message is whole in wresp.buf before it
 * goes through them, so a UC message that lost a packet never does.
 * Those buffers hold SIM_WIRE_MAX_MSG (1 MiB). A longer message goes
 * through them a chunk at a time, cut at block boundaries of the keys
 * (sim_xfer_cut()): a SEND's or WRITE's wire bytes made a window of
 * rd_buf at a time as its packets go (a retransmission makes its window
 * again from the keys' memory, as a card reads it again), a READ's
 * responses put through its keys whenever rd_buf is full; a key's first
 * error is reported once. Every other message is cut from its gather
 * list and placed as it comes, up to the device's max_msg (1 GiB).
 */

#include "counters.h"
#include "engine.h"
#include "qp.h"
#include "sgl.h"
#include "sim.h"
#include "wire.h"

#define SIM_ACKREQ_EVERY	16	/* packets between ACK requests */

static u32 sim_wire_npkts(u32 len, u32 mtu)
{
	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/* The BTH opcode of packet @first/@last of a SEND or WRITE WQE. */
static u8 sim_wire_req_op(u8 wqe_opcode, bool first, bool last)
{
	bool write = wqe_opcode == MLX5_OPCODE_RDMA_WRITE ||
		     wqe_opcode == MLX5_OPCODE_RDMA_WRITE_IMM;
	bool imm = wqe_opcode == MLX5_OPCODE_SEND_IMM ||
		   wqe_opcode == MLX5_OPCODE_RDMA_WRITE_IMM;
	bool inv = wqe_opcode == MLX5_OPCODE_SEND_INVAL;

	if (first && last) {
		if (write)
			return imm ? SIM_OP_WRITE_ONLY_IMM : SIM_OP_WRITE_ONLY;
		if (inv)
			return SIM_OP_SEND_ONLY_INV;
		return imm ? SIM_OP_SEND_ONLY_IMM : SIM_OP_SEND_ONLY;
	}
	if (first)
		return write ? SIM_OP_WRITE_FIRST : SIM_OP_SEND_FIRST;
	if (last) {
		if (write)
			return imm ? SIM_OP_WRITE_LAST_IMM : SIM_OP_WRITE_LAST;
		if (inv)
			return SIM_OP_SEND_LAST_INV;
		return imm ? SIM_OP_SEND_LAST_IMM : SIM_OP_SEND_LAST;
	}
	return write ? SIM_OP_WRITE_MIDDLE : SIM_OP_SEND_MIDDLE;
}

/*
 * Is READ response @pkt, at PSN @d of a READ of @len bytes in @npkts
 * responses from @first_psn whose last request started at @rd_psn, what
 * belongs there? A FIRST (or ONLY) response at its first PSN or where a
 * request sent again started, a LAST (or ONLY) at its last PSN with the
 * rest of the data, a path MTU in every other; an AETH saying ACK.
 */
static bool sim_wire_rd_resp_ok(const struct sim_rx_pkt *pkt, u32 first_psn,
				u32 rd_psn, u32 npkts, u32 len, u32 mtu)
{
	u32 d = sim_psn_diff(pkt->psn, first_psn);
	bool first = pkt->hdrs & SIM_HDR_FIRST;
	bool last = pkt->hdrs & SIM_HDR_LAST;

	if (first ? d && pkt->psn != rd_psn : !d)
		return false;
	if (last != (d == npkts - 1) || pkt->paylen > mtu ||
	    (!last && pkt->paylen != mtu) ||
	    (last && (u64)d * mtu + pkt->paylen != len))
		return false;
	return !(pkt->hdrs & SIM_HDR_AETH) ||
	       (pkt->syndrome & SIM_AETH_TYPE_MASK) == SIM_AETH_ACK;
}

static bool sim_wire_is_read_resp(u8 op)
{
	return op >= SIM_OP_READ_RESP_FIRST && op <= SIM_OP_READ_RESP_ONLY;
}

/*
 * A message through a signature key longer than the buffer it is made in
 * (a SEND or WRITE from rd_buf, READ responses from wresp.buf): its wire
 * bytes are made a window of the buffer at a time, each from a block
 * boundary (sim_xfer_cut()), as its packets need them; a packet sent
 * again has its window made again from the key's memory, as a card
 * reads it again. The errors found go to ss->log when the message first
 * goes out, nowhere when it goes again.
 */
static bool sim_wire_sig_window(struct sim_wire_sig_stream *ss, u64 off)
{
	struct sim_sge wsge = { .kva = ss->buf };
	struct sim_sig_log log;
	u64 base, end;
	struct sim_cur d, s;

	base = sim_xfer_cut(ss->sge, ss->n, off);
	end = ss->len;
	if (end - base > SIM_WIRE_MAX_MSG)
		end = sim_xfer_cut(ss->sge, ss->n, base + SIM_WIRE_MAX_MSG);
	if (end <= off) {
		ss->syndrome = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		return false;
	}
	wsge.len = end - base;
	sim_cur_init(&d, &wsge, 1);
	sim_cur_init(&s, ss->sge, ss->n);
	sim_cur_skip(&s, base);
	if (sim_xfer(ss->eng, ss->sim, &d, ss->sim, &s, end - base, &log)) {
		ss->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		return false;
	}
	if (ss->log)
		sim_sig_log_merge(ss->log, &log);
	ss->base = base;
	ss->end = end;
	return true;
}

/*
 * A cursor over the @n wire bytes at @off of the message, in the buffer.
 * False: the window cannot be made (ss->syndrome).
 */
bool sim_wire_sig_at(struct sim_wire_sig_stream *ss, struct sim_cur *c,
		     u64 off, u32 n)
{
	if ((off < ss->base || off + n > ss->end || !ss->end) &&
	    !sim_wire_sig_window(ss, off))
		return false;
	ss->pkt.kva = ss->buf + (off - ss->base);
	ss->pkt.len = n;
	sim_cur_init(c, &ss->pkt, 1);
	return true;
}

/*
 * The packets (RC or UC: @tr) of a SEND or WRITE message taking @npkts
 * PSNs from @first, from @psn on; from its gather list, or from @ss.
 * Returns 0, or the syndrome of a window @ss could not make (the packets
 * before it are out). Under sq_lock.
 */
static u8 sim_wire_send_msg(struct sim_qp *qp, const struct sim_tx_path *path,
			    struct sim_resp_req *r, u8 tr, u32 first,
			    u32 npkts, u32 psn, struct sim_wire_sig_stream *ss)
{
	u32 mtu = sim_wire_mtu(qp), i, off, n;
	s32 d = sim_psn_diff(psn, first);
	struct sim_tx_pkt t = {};
	struct sim_cur c;

	if (d < 0 || d >= npkts)
		return 0;
	t.dqpn = qp->remote_qpn;
	off = d * mtu;
	sim_cur_init(&c, r->src->sge, r->src->n);
	sim_cur_skip(&c, off);
	for (i = d; i < npkts; i++, off += n) {
		bool last = i == npkts - 1;

		n = min(mtu, r->len - off);
		if (ss && !sim_wire_sig_at(ss, &c, off, n))
			return ss->syndrome;
		t.opcode = tr | sim_wire_req_op(r->wqe_opcode, !i, last);
		t.hdrs = sim_wire_op_hdrs(t.opcode & ~SIM_TR_MASK);
		t.psn = (first + i) & SIM_PSN_MASK;
		/* UC asks for no ACK */
		t.ackreq = tr == SIM_TR_RC &&
			   (last || !((i + 1) % SIM_ACKREQ_EVERY));
		t.se = last && r->solicited;
		t.va = r->raddr;
		t.rkey = r->rkey;
		t.dmalen = r->len;
		t.imm = r->imm;
		/*
		 * A packet not sent: the cursor is lost; on RC the timeout
		 * resends, on UC the message is lost
		 */
		if (sim_net_send(qp->sim, path, &t, &c, n))
			return 0;
	}
	return 0;
}

/* Is @r a message through a signature key longer than rd_buf? */
static bool sim_wire_sig_streamed(const struct sim_resp_req *r)
{
	return r->src && r->src->sig && r->len > SIM_WIRE_MAX_MSG;
}

/*
 * A READ request (@r's) for its data from byte @off on, the response of
 * PSN @psn first; or an atomic's request, sent again the same (the
 * responder's cache answers a duplicate). Under sq_lock.
 */
static void sim_wire_send_rd_atomic(struct sim_qp *qp,
				    const struct sim_tx_path *path,
				    const struct sim_resp_req *r, u32 psn,
				    u32 off, u32 len)
{
	struct sim_tx_pkt t = {
		.dqpn = qp->remote_qpn,
		.psn = psn,
		.ackreq = true,
		.va = r->raddr + off,
		.rkey = r->rkey,
	};

	if (r->wqe_opcode == MLX5_OPCODE_RDMA_READ) {
		t.opcode = SIM_TR_RC | SIM_OP_READ_REQ;
		t.hdrs = SIM_HDR_RETH;
		t.dmalen = len - off;
	} else {
		t.opcode = SIM_TR_RC |
			   (r->wqe_opcode == MLX5_OPCODE_ATOMIC_CS ?
			    SIM_OP_CMP_SWAP : SIM_OP_FETCH_ADD);
		t.hdrs = SIM_HDR_ATMETH;
		t.swap_add = r->swap_add;
		t.compare = r->compare;
	}
	sim_net_send(qp->sim, path, &t, NULL, 0);
}

/*
 * Send the busy WQE's packets from @psn on; @log: the message goes out
 * first, the errors of its signature keys go there. Returns 0 or the
 * syndrome of a message through a signature key that cannot go on.
 * Under sq_lock.
 */
static u8 sim_wire_req_send(struct sim_engine *eng, struct sim_qp *qp,
			    struct sim_resp_req *r, u32 psn,
			    struct sim_sig_log *log)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_wire_sig_stream ss = {
		.eng = eng, .sim = qp->sim, .buf = wq->rd_buf,
		.sge = r->src ? r->src->sge : NULL,
		.n = r->src ? r->src->n : 0, .log = log, .len = r->len,
	};
	bool stream = sim_wire_sig_streamed(r);
	struct sim_tx_path path;
	s32 d = sim_psn_diff(psn, wq->first_psn);

	if (d < 0 || d >= wq->npkts)
		return 0;
	/* through a signature key: the wire bytes made once, in rd_buf */
	if (r->src && r->src->sig && !stream) {
		sim_sgl_reset(r->src);
		sim_sgl_add_kva(r->src, wq->rd_buf, wq->len);
	}
	if (!sim_net_path_qp(qp, &path)) {
		atomic64_inc(&qp->sim->net.st.tx_dropped);
		return 0;
	}
	if (sim_wire_rd_atomic(wq->wqe_opcode)) {
		/* a READ: the rest of the data, from the response missing */
		if (wq->wqe_opcode == MLX5_OPCODE_RDMA_READ)
			wq->rd_psn = psn;
		sim_wire_send_rd_atomic(qp, &path, r, psn, wq->rd_got,
					wq->len);
		return 0;
	}
	return sim_wire_send_msg(qp, &path, r, SIM_TR_RC, wq->first_psn,
				 wq->npkts, psn, stream ? &ss : NULL);
}

/*
 * The window's WQE @e (decoded again into @r) sent from @psn on, or
 * from its start if @psn is before it: a READ asks for its data from the
 * response of that PSN on. Under sq_lock.
 */
void sim_wire_win_send(struct sim_qp *qp, struct sim_resp_req *r,
		       struct sim_wire_wqe *e, u32 psn)
{
	struct sim_tx_path path;
	s32 d;

	if (sim_psn_diff(psn, e->first_psn) < 0)
		psn = e->first_psn;
	d = sim_psn_diff(psn, e->first_psn);
	if (d >= e->npkts)
		return;
	if (!sim_net_path_qp(qp, &path)) {
		atomic64_inc(&qp->sim->net.st.tx_dropped);
		return;
	}
	if (!sim_wire_rd_atomic(e->opcode)) {
		sim_wire_send_msg(qp, &path, r, SIM_TR_RC, e->first_psn,
				  e->npkts, psn, NULL);
		return;
	}
	if (e->opcode == MLX5_OPCODE_RDMA_READ)
		e->rd_psn = psn;
	sim_wire_send_rd_atomic(qp, &path, r, psn, d * sim_wire_mtu(qp),
				e->len);
}

static void sim_wire_max_inflight(struct sim_net_stats *st, s64 n)
{
	s64 old = atomic64_read(&st->max_inflight);

	while (old < n && !atomic64_try_cmpxchg(&st->max_inflight, &old, n))
		;
}

/*
 * A SEND, WRITE, READ or atomic WQE (@r decoded from it, @tmpl its
 * control segment's fields) joins the window: its PSNs from snd_psn, its
 * packets out. sq.c checked there is room and nothing busy. Under
 * sq_lock.
 */
void sim_wire_win_start(struct sim_qp *qp, struct sim_resp_req *r,
			const struct sim_wire_wqe *tmpl)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_wire_wqe *e;

	e = &wq->win[(wq->win_head + wq->win_n) % SIM_WIRE_WINDOW];
	*e = *tmpl;
	e->err = 0;
	e->len = r->len;
	e->first_psn = wq->snd_psn;
	e->npkts = sim_wire_is_atomic(e->opcode) ? 1 :
		   sim_wire_npkts(r->len, sim_wire_mtu(qp));
	wq->snd_psn = (wq->snd_psn + e->npkts) & SIM_PSN_MASK;
	if (!wq->win_n) {
		wq->una = e->first_psn;
		wq->next = SIM_WIRE_WAITING;
		wq->syndrome = 0;
		wq->win_progress = false;
		wq->win_sent = 0;
	}
	wq->win_n++;
	wq->win_sent++;
	if (sim_wire_rd_atomic(e->opcode))
		wq->win_rd_atomic++;
	sim_wire_max_inflight(&qp->sim->net.st, wq->win_n);
	sim_wire_win_send(qp, r, e, e->first_psn);
}

/*
 * The wire bytes of a SEND or WRITE whose gather list has an entry
 * through a signature key, into rd_buf (an RC QP's READ buffer, free for
 * any other WQE; a UC QP's own) when it first goes out: its PI inserted,
 * checked or stripped once, as the direct path does it once (xfer.c), the
 * errors found in r->sig for sq.c's SIGERR CQEs; every packet and
 * retransmission is cut from there. A READ's scatter list through a
 * signature key gets its responses the same way (sim_wire_req_read_done).
 * Returns 0, or the syndrome of a WQE that cannot go (no buffer, too
 * long for it, a key's memory not reachable).
 */
static u8 sim_wire_req_sig_src(struct sim_engine *eng, struct sim_qp *qp,
			       struct sim_resp_req *r)
{
	struct sim_sge sge = { .kva = qp->wreq.rd_buf, .len = r->len };
	struct sim_cur d, s;

	if (!qp->wreq.rd_buf)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	/* longer: made a window at a time as it goes (sim_wire_send_msg) */
	if (r->len > SIM_WIRE_MAX_MSG)
		return 0;
	sim_cur_init(&d, &sge, 1);
	sim_cur_init(&s, r->src->sge, r->src->n);
	if (sim_xfer(eng, qp->sim, &d, qp->sim, &s, r->len, r->sig))
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	return 0;
}

/*
 * A UC WQE whose peer is on the wire: its packets out, once, and done.
 * SEND with invalidate is RC's (IBTA table 38: no UC opcode for it).
 * Through a signature key, the wire bytes are made first, as on RC (the
 * key's errors in r->sig). Returns false (r->syndrome set) for what
 * cannot go. Under sq_lock.
 */
bool sim_wire_req_uc(struct sim_engine *eng, struct sim_qp *qp,
		     struct sim_resp_req *r)
{
	struct sim_wire_sig_stream ss = {
		.eng = eng, .sim = qp->sim, .buf = qp->wreq.rd_buf,
		.sge = r->src->sge, .n = r->src->n, .log = r->sig,
		.len = r->len,
	};
	bool stream = sim_wire_sig_streamed(r);
	u32 npkts, first = qp->wreq.snd_psn;
	struct sim_tx_path path;
	u8 synd;

	if (r->wqe_opcode == MLX5_OPCODE_SEND_INVAL) {
		r->syndrome = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		return false;
	}
	if (r->src->sig) {
		synd = sim_wire_req_sig_src(eng, qp, r);
		if (synd) {
			r->syndrome = synd;
			return false;
		}
		if (!stream) {
			sim_sgl_reset(r->src);
			sim_sgl_add_kva(r->src, qp->wreq.rd_buf, r->len);
		}
	}
	npkts = sim_wire_npkts(r->len, sim_wire_mtu(qp));
	/* a packet not sent is lost (UC does not know): the PSNs go on */
	qp->wreq.snd_psn = (first + npkts) & SIM_PSN_MASK;
	if (!sim_net_path_qp(qp, &path)) {
		/* sent into nothing: as a lost message */
		atomic64_add(npkts, &qp->sim->net.st.tx_dropped);
		return true;
	}
	synd = sim_wire_send_msg(qp, &path, r, SIM_TR_UC, first, npkts, first,
				 stream ? &ss : NULL);
	if (synd) {
		r->syndrome = synd;
		return false;
	}
	return true;
}

/*
 * An atomic's original value to its 8-byte scatter entry, in the
 * endianness the device's atomic caps name, as from a peer here (rq.c).
 */
static int sim_wire_atomic_put(struct sim_qp *qp, struct sim_resp_req *r,
			       u64 orig)
{
	struct sim_cur d;

	if (!sim_atomic_host_endian(qp->sim))
		orig = (__force u64)cpu_to_be64(orig);
	sim_cur_init(&d, r->dst->sge, r->dst->n);
	return sim_cur_write(qp->sim, &d, &orig, sizeof(orig));
}

/*
 * A READ's response data in rd_buf, from rd_base to @to, to its scatter
 * list @dst; the errors of its signature keys to @log.
 */
static int sim_wire_rd_put(struct sim_engine *eng, struct sim_qp *qp,
			   const struct sim_sgl *dst, u32 to,
			   struct sim_sig_log *log)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_sge sge = { .kva = wq->rd_buf, .len = to - wq->rd_base };
	struct sim_cur d, s;

	sim_cur_init(&d, dst->sge, dst->n);
	sim_cur_skip(&d, wq->rd_base);
	if (!dst->sig)
		return sim_cur_write(qp->sim, &d, wq->rd_buf, sge.len);
	sim_cur_init(&s, &sge, 1);
	return sim_xfer(eng, qp->sim, &d, qp->sim, &s, sge.len, log);
}

/*
 * A READ's responses longer than rd_buf: before the one of @need bytes
 * would not fit, what it holds up to a block boundary of the scatter
 * list's keys goes through them (its WQE decoded again), the rest to
 * its front. False: the READ fails (wq->syndrome).
 */
static bool sim_wire_rd_room(struct sim_engine *eng, struct sim_qp *qp,
			     u32 need)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_sig_log log = {};
	struct sim_resp_req r;
	u32 cut;

	if (wq->rd_got - wq->rd_base + need <= SIM_WIRE_MAX_MSG)
		return true;
	wq->syndrome = sim_sq_head_req(eng, qp, &r);
	if (wq->syndrome)
		return false;
	cut = sim_xfer_cut(r.dst->sge, r.dst->n, wq->rd_got);
	if (cut <= wq->rd_base || wq->rd_got - cut + need > SIM_WIRE_MAX_MSG) {
		wq->syndrome = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		return false;
	}
	if (sim_wire_rd_put(eng, qp, r.dst, cut, &log)) {
		wq->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		return false;
	}
	sim_sig_log_merge(&wq->rd_log, &log);
	memmove(wq->rd_buf, wq->rd_buf + (cut - wq->rd_base),
		wq->rd_got - cut);
	wq->rd_base = cut;
	return true;
}

/* A READ's response data to its scatter list, the rest of it. */
static int sim_wire_req_read_done(struct sim_engine *eng, struct sim_qp *qp,
				  struct sim_resp_req *r)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_sig_log last;
	int err;

	err = sim_wire_rd_put(eng, qp, r->dst, wq->len, r->sig);
	if (!wq->rd_base || !r->sig)
		return err;
	/* the errors of the chunks before first, a key's first once */
	last = *r->sig;
	*r->sig = wq->rd_log;
	sim_sig_log_merge(r->sig, &last);
	return err;
}

/*
 * An RC WQE at the SQ head whose peer is on the wire, @r decoded from it
 * (again at each call). Under sq_lock.
 */
enum sim_wire_res sim_wire_req_rc(struct sim_engine *eng, struct sim_qp *qp,
				  struct sim_resp_req *r)
{
	struct sim_wire_req *wq = &qp->wreq;
	bool atomic = sim_wire_is_atomic(r->wqe_opcode);

	if (!wq->busy) {
		/*
		 * Alone, a READ's data is gathered in rd_buf (a longer one
		 * goes through its keys a chunk at a time, sim_wire_rd_room)
		 */
		if (r->wqe_opcode == MLX5_OPCODE_RDMA_READ && !wq->rd_buf) {
			r->syndrome = MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
			return SIM_WRES_ERR;
		}
		if (r->src && r->src->sig) {
			u8 synd = sim_wire_req_sig_src(eng, qp, r);

			if (synd) {
				r->syndrome = synd;
				return SIM_WRES_ERR;
			}
		}
		wq->busy = true;
		wq->next = SIM_WIRE_WAITING;
		wq->syndrome = 0;
		wq->wqe_opcode = r->wqe_opcode;
		/* an atomic's 8 bytes come back; sq.c checked it has room */
		wq->len = atomic ? 8 : r->len;
		wq->rd_got = 0;
		wq->rd_base = 0;
		wq->rd_log.n = 0;
		wq->atomic_orig = 0;
		wq->first_psn = wq->snd_psn;
		wq->una = wq->first_psn;
		wq->npkts = atomic ? 1 : sim_wire_npkts(r->len,
							sim_wire_mtu(qp));
		wq->snd_psn = (wq->snd_psn + wq->npkts) & SIM_PSN_MASK;
		r->syndrome = sim_wire_req_send(eng, qp, r, wq->first_psn,
						r->sig);
		if (r->syndrome) {
			wq->busy = false;
			return SIM_WRES_ERR;
		}
		return SIM_WRES_PENDING;
	}
	switch (wq->next) {
	case SIM_WIRE_ANSWERED:
		wq->busy = false;
		if (wq->syndrome) {
			r->syndrome = wq->syndrome;
			return SIM_WRES_ERR;
		}
		if (atomic) {
			if (sim_wire_atomic_put(qp, r, wq->atomic_orig)) {
				r->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
				return SIM_WRES_ERR;
			}
			return SIM_WRES_OK;
		}
		if (wq->wqe_opcode != MLX5_OPCODE_RDMA_READ || !wq->len)
			return SIM_WRES_OK;
		if (sim_wire_req_read_done(eng, qp, r)) {
			r->syndrome = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			return SIM_WRES_ERR;
		}
		return SIM_WRES_OK;
	case SIM_WIRE_RESEND:
		wq->next = SIM_WIRE_WAITING;
		atomic64_inc(&qp->sim->net.st.retransmits);
		r->syndrome = sim_wire_req_send(eng, qp, r, wq->una, NULL);
		if (r->syndrome) {
			wq->busy = false;
			return SIM_WRES_ERR;
		}
		return SIM_WRES_PENDING;
	case SIM_WIRE_RNR:
		/* after the wait sq.c sets, send again */
		wq->next = SIM_WIRE_RESEND;
		return SIM_WRES_RNR;
	default:
		return SIM_WRES_TIMEOUT;
	}
}

/*
 * The local ACK timeout passed: go back to una. Returns 0 or the syndrome
 * of a message through a signature key that cannot go again. Under
 * sq_lock.
 */
u8 sim_wire_req_resend(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r)
{
	atomic64_inc(&qp->sim->net.st.timeouts);
	atomic64_inc(&qp->sim->net.st.retransmits);
	qp->wreq.next = SIM_WIRE_WAITING;
	return sim_wire_req_send(eng, qp, r, qp->wreq.una, NULL);
}

static u8 sim_wire_nak_syndrome(u8 code)
{
	switch (code) {
	case SIM_NAK_INV_REQ:
		return MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR;
	case SIM_NAK_REM_ACCESS:
		return MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR;
	default:
		return MLX5_CQE_SYNDROME_REMOTE_OP_ERR;
	}
}

/* Is @psn one of the busy WQE's not yet acknowledged? */
static bool sim_wire_unacked(const struct sim_wire_req *wq, u32 psn)
{
	u32 last = (wq->first_psn + wq->npkts - 1) & SIM_PSN_MASK;

	return sim_psn_diff(psn, wq->una) >= 0 &&
	       sim_psn_diff(psn, last) <= 0;
}

/* The SQ head has something to do: the engine runs it on its next look. */
static void sim_wire_answer(struct sim_qp *qp, u8 next)
{
	qp->wreq.next = next;
	qp->wait = SIM_SQ_RUN;
}

static void sim_wire_req_ack(struct sim_qp *qp, const struct sim_rx_pkt *pkt)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_net_stats *st = &qp->sim->net.st;
	u8 type = pkt->syndrome & SIM_AETH_TYPE_MASK;
	u8 val = pkt->syndrome & SIM_AETH_VAL_MASK;

	if (!sim_wire_unacked(wq, pkt->psn)) {
		/* an old or duplicate answer */
		atomic64_inc(&st->rx_dropped);
		return;
	}
	switch (type) {
	case SIM_AETH_ACK:
		/* a READ or an atomic completes by its responses */
		if (wq->wqe_opcode == MLX5_OPCODE_RDMA_READ ||
		    sim_wire_is_atomic(wq->wqe_opcode))
			return;
		wq->una = (pkt->psn + 1) & SIM_PSN_MASK;
		if (wq->una == ((wq->first_psn + wq->npkts) & SIM_PSN_MASK))
			sim_wire_answer(qp, SIM_WIRE_ANSWERED);
		else
			sim_sq_wire_progress(qp);
		return;
	case SIM_AETH_RNR_NAK:
		atomic64_inc(&st->naks_rcvd);
		/* a READ's responses cannot move una past a PSN it NAKs */
		wq->una = pkt->psn;
		wq->rnr_timer = val;
		sim_wire_answer(qp, SIM_WIRE_RNR);
		return;
	case SIM_AETH_NAK:
		atomic64_inc(&st->naks_rcvd);
		if (val == SIM_NAK_PSN_SEQ) {
			sim_qcnt_inc(qp, SIM_QC_packet_seq_err);
			wq->una = pkt->psn;
			sim_wire_answer(qp, SIM_WIRE_RESEND);
			return;
		}
		wq->syndrome = sim_wire_nak_syndrome(val);
		sim_wire_answer(qp, SIM_WIRE_ANSWERED);
		return;
	default:
		atomic64_inc(&st->rx_bad_hdr);
		return;
	}
}

/*
 * An implied NAK at @at: go back there at once (next RESEND), once per PSN
 * (a second loss there waits for the timeout), not while an RNR timer or
 * an earlier answer is pending. Returns whether it did.
 */
static bool sim_wire_implied_once(struct sim_qp *qp, u32 at)
{
	struct sim_wire_req *wq = &qp->wreq;

	if (wq->next != SIM_WIRE_WAITING ||
	    (wq->implied && wq->implied_una == at))
		return false;
	/* counted when acted on, as a card's implied_nak_seq_err */
	sim_qcnt_inc(qp, SIM_QC_implied_nak_seq_err);
	wq->implied = true;
	wq->implied_una = at;
	wq->next = SIM_WIRE_RESEND;
	return true;
}

static void sim_wire_req_read_resp(struct sim_engine *eng, struct sim_qp *qp,
				   const struct sim_rx_pkt *pkt)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_net_stats *st = &qp->sim->net.st;
	bool last = pkt->hdrs & SIM_HDR_LAST;

	if (wq->wqe_opcode != MLX5_OPCODE_RDMA_READ || pkt->psn != wq->una) {
		atomic64_inc(&st->rx_dropped);
		/*
		 * Ahead of the one awaited: that one was lost (an implied
		 * NAK). Ask for the rest from there at once, once for that
		 * PSN (the responses still coming for the first request are
		 * dropped, the same data); a second loss there waits for
		 * the timeout, as in the window.
		 */
		if (wq->wqe_opcode == MLX5_OPCODE_RDMA_READ &&
		    sim_wire_unacked(wq, pkt->psn) &&
		    sim_wire_implied_once(qp, wq->una))
			qp->wait = SIM_SQ_RUN;
		return;
	}
	if (!sim_wire_rd_resp_ok(pkt, wq->first_psn, wq->rd_psn, wq->npkts,
				 wq->len, sim_wire_mtu(qp))) {
		atomic64_inc(&st->rx_bad_hdr);
		return;
	}
	if (!sim_wire_rd_room(eng, qp, pkt->paylen)) {
		/* failed: with its syndrome, whatever else still comes */
		sim_wire_answer(qp, SIM_WIRE_ANSWERED);
		return;
	}
	memcpy(wq->rd_buf + (wq->rd_got - wq->rd_base), pkt->payload,
	       pkt->paylen);
	wq->rd_got += pkt->paylen;
	wq->una = (wq->una + 1) & SIM_PSN_MASK;
	if (last)
		sim_wire_answer(qp, SIM_WIRE_ANSWERED);
	else
		sim_sq_wire_progress(qp);
}

/* The ATOMIC_ACKNOWLEDGE of the busy atomic: its original value. */
static void sim_wire_req_atomic_ack(struct sim_qp *qp,
				    const struct sim_rx_pkt *pkt)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_net_stats *st = &qp->sim->net.st;

	if (!sim_wire_is_atomic(wq->wqe_opcode) || pkt->psn != wq->una) {
		/* an old or duplicate answer */
		atomic64_inc(&st->rx_dropped);
		return;
	}
	if ((pkt->syndrome & SIM_AETH_TYPE_MASK) != SIM_AETH_ACK) {
		atomic64_inc(&st->rx_bad_hdr);
		return;
	}
	wq->atomic_orig = pkt->orig;
	wq->una = (wq->una + 1) & SIM_PSN_MASK;
	sim_wire_answer(qp, SIM_WIRE_ANSWERED);
}

/*
 * The window's first READ or atomic not answered in full, and the PSN of
 * the response it awaits (@at): no answer may take una past it.
 */
static struct sim_wire_wqe *sim_wire_win_rdat(struct sim_wire_req *wq,
					      u32 *at)
{
	struct sim_wire_wqe *e;
	u8 i;

	for (i = 0; wq->win_rd_atomic && i < wq->win_n; i++) {
		e = &wq->win[(wq->win_head + i) % SIM_WIRE_WINDOW];
		if (!sim_wire_rd_atomic(e->opcode) ||
		    sim_psn_diff(wq->una, e->first_psn + e->npkts) >= 0)
			continue;
		*at = sim_psn_diff(wq->una, e->first_psn) > 0 ? wq->una :
							       e->first_psn;
		return e;
	}
	return NULL;
}

/*
 * An answer beyond the response a READ or an atomic awaits at @at: that
 * response was lost (an implied NAK). una stops there; go back to it at
 * once, once per PSN (a second loss there waits for the timeout), not
 * while an RNR timer runs.
 */
static void sim_wire_win_implied(struct sim_qp *qp, u32 at)
{
	struct sim_wire_req *wq = &qp->wreq;

	if (wq->una != at)
		wq->win_progress = true;
	wq->una = at;
	sim_wire_implied_once(qp, at);
}

/*
 * A READ response or an ATOMIC_ACKNOWLEDGE for the window: the one the
 * first READ or atomic in flight awaits goes to its WQE's scatter list
 * (decoded again from the SQ: a READ's data at its offset, an atomic's
 * original value to its 8-byte entry); one that no longer decodes, or a
 * write that fails, fails the WQE when it is the oldest.
 */
static void sim_wire_win_resp(struct sim_engine *eng, struct sim_qp *qp,
			      const struct sim_rx_pkt *pkt)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_net_stats *st = &qp->sim->net.st;
	u32 mtu = sim_wire_mtu(qp), at;
	bool read = pkt->op != SIM_OP_ATOMIC_ACK;
	struct sim_resp_req r;
	struct sim_wire_wqe *e;
	struct sim_cur d;
	bool ok;
	u8 synd;

	e = sim_wire_win_rdat(wq, &at);
	if (!e || sim_psn_diff(pkt->psn, at) < 0) {
		/* an old or duplicate answer */
		atomic64_inc(&st->rx_dropped);
		return;
	}
	if (pkt->psn != at) {
		sim_wire_win_implied(qp, at);
		atomic64_inc(&st->rx_dropped);
		return;
	}
	if (read)
		ok = e->opcode == MLX5_OPCODE_RDMA_READ &&
		     sim_wire_rd_resp_ok(pkt, e->first_psn, e->rd_psn,
					 e->npkts, e->len, mtu);
	else
		ok = sim_wire_is_atomic(e->opcode) &&
		     (pkt->syndrome & SIM_AETH_TYPE_MASK) == SIM_AETH_ACK;
	if (!ok) {
		atomic64_inc(&st->rx_bad_hdr);
		return;
	}
	/* it acknowledges every request before it */
	wq->una = (at + 1) & SIM_PSN_MASK;
	wq->win_progress = true;
	if (e->err)
		return;
	synd = sim_sq_win_req(eng, qp, e, &r);
	if (!synd && read) {
		sim_cur_init(&d, r.dst->sge, r.dst->n);
		sim_cur_skip(&d, (u64)sim_psn_diff(at, e->first_psn) * mtu);
		if (sim_cur_write(qp->sim, &d, pkt->payload, pkt->paylen))
			synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	} else if (!synd && sim_wire_atomic_put(qp, &r, pkt->orig)) {
		synd = MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	}
	e->err = synd;
}

/*
 * An ACK or NAK for the window: an ACK of PSN p acknowledges every PSN up
 * to p (coalesced ACKs), a NAK at p every one before p, neither past a
 * READ response not in (an implied NAK). sq.c completes what una passed
 * and acts on next.
 */
static void sim_wire_win_rx(struct sim_engine *eng, struct sim_qp *qp,
			    const struct sim_rx_pkt *pkt)
{
	struct sim_wire_req *wq = &qp->wreq;
	struct sim_net_stats *st = &qp->sim->net.st;
	u8 type = pkt->syndrome & SIM_AETH_TYPE_MASK;
	u8 val = pkt->syndrome & SIM_AETH_VAL_MASK;
	bool rnr = wq->next == SIM_WIRE_RNR || wq->next == SIM_WIRE_RNR_WAIT;
	u32 at;

	if (sim_psn_diff(pkt->psn, wq->una) < 0 ||
	    sim_psn_diff(pkt->psn, wq->snd_psn) >= 0) {
		/* an old or duplicate answer */
		atomic64_inc(&st->rx_dropped);
		return;
	}
	if (sim_wire_is_read_resp(pkt->op) || pkt->op == SIM_OP_ATOMIC_ACK) {
		sim_wire_win_resp(eng, qp, pkt);
		return;
	}
	/* an ACK of p, a NAK at p > at: the response at at was lost */
	if (sim_wire_win_rdat(wq, &at) &&
	    sim_psn_diff(pkt->psn, at) >= (type == SIM_AETH_ACK ? 0 : 1)) {
		if (type != SIM_AETH_ACK)
			atomic64_inc(&st->naks_rcvd);
		sim_wire_win_implied(qp, at);
		return;
	}
	switch (type) {
	case SIM_AETH_ACK:
		wq->una = (pkt->psn + 1) & SIM_PSN_MASK;
		wq->win_progress = true;
		return;
	case SIM_AETH_RNR_NAK:
		atomic64_inc(&st->naks_rcvd);
		/* waiting already: the timer runs once */
		if (rnr)
			return;
		wq->win_progress = wq->una != pkt->psn;
		wq->una = pkt->psn;
		wq->rnr_timer = val;
		wq->next = SIM_WIRE_RNR;
		return;
	case SIM_AETH_NAK:
		atomic64_inc(&st->naks_rcvd);
		if (val == SIM_NAK_PSN_SEQ) {
			sim_qcnt_inc(qp, SIM_QC_packet_seq_err);
			wq->win_progress = wq->una != pkt->psn;
			wq->una = pkt->psn;
			/* after an RNR NAK the timer resends, not this */
			if (!rnr)
				wq->next = SIM_WIRE_RESEND;
			return;
		}
		wq->una = pkt->psn;
		wq->syndrome = sim_wire_nak_syndrome(val);
		wq->next = SIM_WIRE_ANSWERED;
		return;
	default:
		atomic64_inc(&st->rx_bad_hdr);
		return;
	}
}

/* An answer to our requests (ACK, NAK, READ response, atomic ACK). */
void sim_wire_req_rx(struct sim_engine *eng, struct sim_qp *qp,
		     const struct sim_rx_pkt *pkt)
{
	struct sim_wire_req *wq = &qp->wreq;

	u8 state = READ_ONCE(qp->state);

	/* SQD: what is in flight still takes its answers */
	if ((state != MLX5_QP_STATE_RTS && state != MLX5_QP_STATE_SQD) ||
	    (!wq->busy && !wq->win_n) || wq->next == SIM_WIRE_ANSWERED) {
		atomic64_inc(&qp->sim->net.st.rx_dropped);
		return;
	}
	if (wq->win_n) {
		sim_wire_win_rx(eng, qp, pkt);
		return;
	}
	switch (pkt->op) {
	case SIM_OP_ACK:
		sim_wire_req_ack(qp, pkt);
		break;
	case SIM_OP_READ_RESP_FIRST:
	case SIM_OP_READ_RESP_MIDDLE:
	case SIM_OP_READ_RESP_LAST:
	case SIM_OP_READ_RESP_ONLY:
		sim_wire_req_read_resp(eng, qp, pkt);
		break;
	case SIM_OP_ATOMIC_ACK:
		sim_wire_req_atomic_ack(qp, pkt);
		break;
	default:
		atomic64_inc(&qp->sim->net.st.rx_dropped);
		break;
	}
}

/*
 * A UD or GSI datagram by address vector @av. Returns false if it was
 * not sent (no such source GID, too big for the netdev, no memory): lost,
 * as UD allows.
 */
bool sim_wire_ud_send(struct sim_qp *qp, struct sim_resp_req *r,
		      const struct mlx5_av *av, u8 sgid_index, u32 dqpn)
{
	bool imm = r->wqe_opcode == MLX5_OPCODE_SEND_IMM;
	struct sim_tx_pkt t = {};
	struct sim_tx_path path;
	struct sim_cur c;

	if (!sim_net_path_gid(qp->sim, qp->port, sgid_index, &path))
		return false;
	memcpy(path.dmac, av->rmac, ETH_ALEN);
	memcpy(path.dgid, av->rgid, sizeof(path.dgid));
	path.ttl = READ_ONCE(av->hop_limit) ?: 64;
	path.tos = READ_ONCE(av->tclass);
	path.flow_label = be32_to_cpu(READ_ONCE(av->grh_gid_fl)) & 0xfffff;
	path.prio = sim_av_eth_prio(av);
	path.sport = be16_to_cpu(READ_ONCE(av->udp_sport)) ?:
		     0xc000 | (qp->qpn & 0x3fff);
	t.opcode = SIM_TR_UD | (imm ? SIM_OP_SEND_ONLY_IMM : SIM_OP_SEND_ONLY);
	t.hdrs = SIM_HDR_DETH | (imm ? SIM_HDR_IMM : 0);
	t.dqpn = dqpn;
	t.psn = qp->wreq.snd_psn;
	qp->wreq.snd_psn = (qp->wreq.snd_psn + 1) & SIM_PSN_MASK;
	t.se = r->solicited;
	t.qkey = r->qkey;
	t.sqpn = qp->qpn;
	t.imm = r->imm;
	sim_cur_init(&c, r->src->sge, r->src->n);
	return !sim_net_send(qp->sim, &path, &t, &c, r->len);
}

/* Entering state @to from @from: both locks held (qp.c). */
void sim_wire_qp_reset(struct sim_qp *qp, u8 from, u8 to)
{
	u8 *rd_buf = qp->wreq.rd_buf, *buf = qp->wresp.buf;

	switch (to) {
	case MLX5_QP_STATE_RST:
		memset(&qp->wreq, 0, sizeof(qp->wreq));
		memset(&qp->wresp, 0, sizeof(qp->wresp));
		qp->wreq.rd_buf = rd_buf;
		qp->wresp.buf = buf;
		break;
	case MLX5_QP_STATE_RTR:
		qp->wresp.epsn = MLX5_GET(qpc, qp->qpc, next_rcv_psn);
		qp->wresp.msn = 0;
		qp->wresp.msg = SIM_MSG_NONE;
		qp->wresp.nak_sent = false;
		qp->wresp.ack_pending = false;
		break;
	case MLX5_QP_STATE_RTS:
		if (from != MLX5_QP_STATE_RTR)
			break;
		qp->wreq.snd_psn = MLX5_GET(qpc, qp->qpc, next_send_psn);
		qp->wreq.busy = false;
		qp->wreq.win_n = 0;
		qp->wreq.win_rd_atomic = 0;
		qp->wreq.implied = false;
		break;
	default:
		break;
	}
}

/*
 * INIT2RTR of an RC or UC QP whose peer (the new path's rgid) is not a model
 * device here: the buffers the wire needs. Without them (no memory) the
 * QP still works; its READs and incoming messages fail. Sleeps; before
 * the command takes the QP's locks (the QP is not receiving yet).
 */
void sim_wire_qp_alloc(struct sim_qp *qp, const void *qpc)
{
	const void *ads = MLX5_ADDR_OF(qpc, qpc, primary_address_path);
	bool rc = qp->st == MLX5_QP_ST_RC;
	bool local;

	if ((!rc && qp->st != MLX5_QP_ST_UC) || !sim_net_up(qp->sim) ||
	    (qp->wreq.rd_buf && qp->wresp.buf))
		return;
	rcu_read_lock();
	local = sim_fabric_find_gid(MLX5_ADDR_OF(ads, ads, rgid_rip),
				    qp->sim);
	rcu_read_unlock();
	if (local)
		return;
	/* UC has no READ: its buffer holds what a signature key makes */
	if (!qp->wreq.rd_buf)
		qp->wreq.rd_buf = kvmalloc(SIM_WIRE_MAX_MSG, GFP_KERNEL);
	if (!qp->wresp.buf)
		qp->wresp.buf = kvmalloc(SIM_WIRE_MAX_MSG, GFP_KERNEL);
}

void sim_wire_qp_free(struct sim_qp *qp)
{
	kvfree(qp->wreq.rd_buf);
	kvfree(qp->wresp.buf);
}
