// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ethernet SQs of the software ConnectX: CREATE/MODIFY/QUERY/DESTROY_SQ
 * (cyclic, 64-byte basic blocks, one TIS) and the transmit path. The
 * engine runs an SQ in RDY up to its doorbell record's send counter: a
 * SEND WQE (control segment, Ethernet segment with the inline headers,
 * data segments through lkeys of the SQ's PD) becomes a frame, with the
 * checksums its cs_flags ask for, sent on the cable (the wire's NAPI
 * sends it, net.c), or dropped and counted while the link is down; a
 * NOP only completes. A CQE is written for WQEs with CQ_UPDATE. A
 * malformed WQE, a bad lkey or a frame above the port's MTU completes in
 * error and moves the SQ to ERR, where, with flush_in_error_en, every
 * later WQE completes flushed.
 */

#include <linux/skbuff.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "buf.h"
#include "cq.h"
#include "engine.h"
#include "eth_wq.h"
#include "mkey.h"
#include "port.h"
#include "sgl.h"
#include "sim.h"
#include "steer.h"
#include "syndromes.h"
#include "wire.h"

#define SIM_SQ_STRIDE		6	/* log2 MLX5_SEND_WQE_BB */
#define SIM_ETH_CS_FLAGS	(MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM)

/*
 * Decode a send WQE: @len bytes of it are posted (at most
 * SIM_ETH_WQE_MAX), contiguous. Returns 0 or the CQE syndrome of what is
 * wrong with it; w->nbb is set either way (at least 1).
 */
u8 sim_eth_wqe_parse(const void *wqe, u32 len, struct sim_eth_wqe *w)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = wqe;
	const struct mlx5_wqe_eth_seg *eth = wqe + sizeof(*ctrl);
	u32 opc = be32_to_cpu(ctrl->opmod_idx_opcode);
	u32 qpn_ds = be32_to_cpu(ctrl->qpn_ds);
	u32 end, off;

	memset(w, 0, sizeof(*w));
	w->opcode = opc & MLX5_WQE_CTRL_OPCODE_MASK;
	w->ds = qpn_ds & MLX5_WQE_CTRL_DS_MASK;
	w->qpn = qpn_ds >> MLX5_WQE_CTRL_QPN_SHIFT;
	w->nbb = max_t(u8, DIV_ROUND_UP(w->ds, MLX5_SEND_WQEBB_NUM_DS), 1);
	w->signaled = ctrl->fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE;
	end = (u32)w->ds * MLX5_SEND_WQE_DS;
	/* no segments, or more than were posted */
	if (!w->ds || end > len)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	/* opmod: none for these opcodes */
	if (opc >> 24)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (w->opcode == MLX5_OPCODE_NOP)
		return 0;
	if (w->opcode != MLX5_OPCODE_SEND)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (end < sizeof(*ctrl) + sizeof(*eth))
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	/* no LSO, software parser, inner checksums */
	if (eth->mss || eth->swp_outer_l4_offset || eth->swp_outer_l3_offset ||
	    eth->swp_inner_l4_offset || eth->swp_inner_l3_offset ||
	    eth->swp_flags || (eth->cs_flags & ~SIM_ETH_CS_FLAGS))
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	w->cs_flags = eth->cs_flags;
	w->ihs = be16_to_cpu(eth->inline_hdr.sz);
	if (w->ihs < ETH_HLEN)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	w->inl = eth->inline_hdr.data;
	/* the inline headers run on into the next segments */
	off = sizeof(*ctrl) + sizeof(*eth) +
	      ALIGN(w->ihs - SIM_ETH_INL_START, MLX5_SEND_WQE_DS);
	if (off > end)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	w->seg = wqe + off;
	w->nseg = (end - off) / MLX5_SEND_WQE_DS;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_eth_wqe_parse);

static void sim_eth_sq_cqe(struct sim_eth_sq *sq, u8 opcode, u8 wqe_opcode,
			   u8 syndrome)
{
	struct sim_cqe_info ci = {
		.opcode = opcode,
		.syndrome = syndrome,
		.wqe_opcode = wqe_opcode,
		.wqe_counter = sq->ci,
		.qpn = sq->sqn,
		.user_index = sq->user_index,
	};

	if (opcode == MLX5_CQE_REQ_ERR) {
		atomic64_inc(&sq->sim->port.st.tx_err_cqes);
		sim_engine_count_err(&sq->sim->estats, syndrome);
	}
	sim_cqe_write(sq->cq, &ci);
}

static u16 sim_eth_sq_pi(struct sim_eth_sq *sq)
{
	u16 pi = be32_to_cpu(READ_ONCE(sq->dbr[MLX5_SND_DBR])) & 0xffff;

	/* the WQEs were written before the counter */
	dma_rmb();
	return pi;
}

static void *sim_eth_sq_bb(struct sim_eth_sq *sq, u16 i)
{
	return sim_buf_at(&sq->buf, (u64)(i & (sq->wqe_cnt - 1)) <<
			  SIM_SQ_STRIDE);
}

/*
 * The WQE at the head into @dst, unwrapped: the basic blocks its ds
 * says, as far as @avail are posted. Returns the bytes copied.
 */
static u32 sim_eth_sq_unwrap(struct sim_eth_sq *sq, u8 *dst, u32 avail)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = sim_eth_sq_bb(sq, sq->ci);
	u32 ds = be32_to_cpu(READ_ONCE(ctrl->qpn_ds)) & MLX5_WQE_CTRL_DS_MASK;
	u32 i, nbb;

	nbb = max_t(u32, DIV_ROUND_UP(ds, MLX5_SEND_WQEBB_NUM_DS), 1);
	nbb = min3(nbb, avail, (u32)SIM_ETH_WQE_MAX / MLX5_SEND_WQE_BB);
	for (i = 0; i < nbb; i++)
		memcpy(dst + i * MLX5_SEND_WQE_BB, sim_eth_sq_bb(sq, sq->ci + i),
		       MLX5_SEND_WQE_BB);
	return nbb * MLX5_SEND_WQE_BB;
}

/* In ERR with flush_in_error_en: what was posted completes flushed. */
static bool sim_eth_sq_flush(struct sim_eth_sq *sq)
{
	const struct mlx5_wqe_ctrl_seg *ctrl;
	bool work = false;
	u16 pi, left;
	u8 nbb;

	if (!sq->flush_in_error)
		return false;
	pi = sim_eth_sq_pi(sq);
	while ((left = pi - sq->ci)) {
		ctrl = sim_eth_sq_bb(sq, sq->ci);
		nbb = DIV_ROUND_UP(be32_to_cpu(READ_ONCE(ctrl->qpn_ds)) &
				   MLX5_WQE_CTRL_DS_MASK, MLX5_SEND_WQEBB_NUM_DS);
		sim_eth_sq_cqe(sq, MLX5_CQE_REQ_ERR,
			       be32_to_cpu(READ_ONCE(ctrl->opmod_idx_opcode)) &
			       MLX5_WQE_CTRL_OPCODE_MASK,
			       MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		atomic64_inc(&sq->sim->port.st.tx_flushed);
		atomic64_inc(&sq->sim->estats.flushed);
		sq->ci += clamp_t(u16, nbb, 1, left);
		work = true;
	}
	return work;
}

static void sim_eth_sq_error(struct sim_eth_sq *sq, const struct sim_eth_wqe *w,
			     u8 syndrome)
{
	sim_eth_sq_cqe(sq, MLX5_CQE_REQ_ERR, w->opcode, syndrome);
	sq->ci += w->nbb;
	sq->state = MLX5_SQC_STATE_ERR;
	sim_eth_sq_flush(sq);
}

/* The data segments of @w into @sgl. Returns 0 or a CQE syndrome. */
static u8 sim_eth_sq_gather(struct sim_eth_sq *sq, const struct sim_eth_wqe *w,
			    struct sim_sgl *sgl)
{
	const struct mlx5_wqe_data_seg *seg;
	u32 len;
	u8 synd;
	int i;

	sim_sgl_reset(sgl);
	for (i = 0; i < w->nseg; i++) {
		seg = &w->seg[i];
		len = be32_to_cpu(seg->byte_count);
		if (!len || (len & MLX5_INLINE_SEG))
			return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		synd = sim_sgl_add_key(sq->sim, sgl, be32_to_cpu(seg->lkey),
				       be64_to_cpu(seg->addr), len, sq->pd,
				       sq->sqn, SIM_ACC_LR);
		if (synd)
			return synd;
	}
	return 0;
}

/*
 * The frame of a SEND: inline headers, then the gathered data, with its
 * checksums. Returns 0 or a CQE syndrome; *@skbp NULL if not sent
 * (link down, no memory: counted, the WQE completes).
 */
static u8 sim_eth_sq_frame(struct sim_eth_sq *sq, const struct sim_eth_wqe *w,
			   struct sim_sgl *sgl, struct sk_buff **skbp)
{
	struct sim_eth_port *port = &sq->sim->port;
	u32 len = w->ihs + sgl->total;
	struct sim_eth_hdrs h;
	struct sk_buff *skb;
	struct sim_cur d, s;
	struct sim_sge dst;

	*skbp = NULL;
	if (len + ETH_FCS_LEN > READ_ONCE(port->admin_mtu))
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	if (!READ_ONCE(port->oper_up)) {
		atomic64_inc(&port->st.tx_link_down_drops);
		return 0;
	}
	skb = alloc_skb(len + NET_IP_ALIGN, GFP_ATOMIC);
	if (!skb) {
		atomic64_inc(&port->st.tx_dropped);
		return 0;
	}
	skb_reserve(skb, NET_IP_ALIGN);
	skb_put_data(skb, w->inl, w->ihs);
	dst = (struct sim_sge){ .kva = skb_put(skb, sgl->total),
				.len = sgl->total };
	sim_cur_init(&d, &dst, 1);
	sim_cur_init(&s, sgl->sge, sgl->n);
	if (sgl->total && sim_cur_copy(sq->sim, &d, sq->sim, &s, sgl->total)) {
		kfree_skb(skb);
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	}
	if (w->cs_flags && sim_eth_parse(skb->data, skb->len, &h))
		sim_eth_csum_fill(skb->data, &h,
				  w->cs_flags & MLX5_ETH_WQE_L3_CSUM,
				  w->cs_flags & MLX5_ETH_WQE_L4_CSUM);
	*skbp = skb;
	return 0;
}

/* One WQE at the head; @avail basic blocks are posted. Under sq->lock. */
static void sim_eth_sq_one(struct sim_engine *eng, struct sim_eth_sq *sq,
			   u16 avail)
{
	struct sim_port_stats *st = &sq->sim->port.st;
	struct sk_buff *skb = NULL;
	struct sim_eth_wqe w;
	u32 len;
	u8 synd;

	len = sim_eth_sq_unwrap(sq, eng->wqe, avail);
	synd = sim_eth_wqe_parse(eng->wqe, len, &w);
	if (!synd && w.qpn != sq->sqn)
		synd = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (!synd && w.opcode == MLX5_OPCODE_SEND) {
		synd = sim_eth_sq_gather(sq, &w, &eng->lsgl);
		if (!synd)
			synd = sim_eth_sq_frame(sq, &w, &eng->lsgl, &skb);
	}
	if (synd) {
		sim_eth_sq_error(sq, &w, synd);
		return;
	}
	if (skb) {
		len = skb->len;
		if (sim_net_xmit(sq->sim, skb)) {
			atomic64_inc(&st->tx_dropped);
		} else {
			atomic64_inc(&st->tx_frames);
			atomic64_add(len, &st->tx_bytes);
		}
	}
	atomic64_inc(&sq->sim->estats.wqes);
	if (w.signaled)
		sim_eth_sq_cqe(sq, MLX5_CQE_REQ, w.opcode, 0);
	sq->ci += w.nbb;
}

/* Run @sq as far as its doorbell record says. Under rcu_read_lock(). */
static bool sim_eth_sq_run(struct sim_engine *eng, struct sim_eth_sq *sq)
{
	bool work = false;
	u16 pi, avail;
	int n;

	spin_lock_bh(&sq->lock);
	if (sq->state == MLX5_SQC_STATE_ERR) {
		work = sim_eth_sq_flush(sq);
		goto unlock;
	}
	if (sq->state != MLX5_SQC_STATE_RDY)
		goto unlock;
	pi = sim_eth_sq_pi(sq);
	for (n = 0; n < SIM_ETH_SQ_BUDGET && sq->state == MLX5_SQC_STATE_RDY;
	     n++) {
		avail = pi - sq->ci;
		if (!avail)
			break;
		/* a counter beyond the ring: what is there, once round */
		sim_eth_sq_one(eng, sq, min_t(u32, avail, sq->wqe_cnt));
		work = true;
	}
unlock:
	spin_unlock_bh(&sq->lock);
	return work;
}

/*
 * The engine's pass over the Ethernet SQs (engine.c): kernel doorbells
 * kick it; an SQ at a time under RCU. Returns true if anything moved.
 */
bool sim_eth_sq_poll(struct sim_engine *eng, struct mlx5sp_sim *sim)
{
	struct sim_pollset *ps = &sim->port.poll_sqs;
	struct sim_eth_sq *sq;
	bool work = false;
	unsigned int i;

	for (i = 0; i < sim_pollset_len(ps); i++) {
		rcu_read_lock();
		if (sim_engine_halted(sim)) {
			rcu_read_unlock();
			break;
		}
		sq = sim_pollset_at(ps, i);
		if (sq)
			work |= sim_eth_sq_run(eng, sq);
		rcu_read_unlock();
	}
	return work;
}

/* ---- commands ---- */

static void sim_eth_sq_free(struct sim_eth_sq *sq)
{
	sim_buf_free(&sq->buf);
	kfree(sq);
}

static int sim_eth_sq_parse(struct sim_cmd *c, struct sim_eth_sq *sq)
{
	const void *sqc = MLX5_ADDR_OF(create_sq_in, c->in, ctx);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_eth_wq_cfg cfg;
	int err;

	if (MLX5_GET(sqc, sqc, rlky) || MLX5_GET(sqc, sqc, cd_master) ||
	    MLX5_GET(sqc, sqc, fre) ||
	    MLX5_GET(sqc, sqc, allow_multi_pkt_send_wqe) ||
	    MLX5_GET(sqc, sqc, min_wqe_inline_mode) > MLX5_INLINE_MODE_L2 ||
	    MLX5_GET(sqc, sqc, reg_umr) || MLX5_GET(sqc, sqc, allow_swp) ||
	    MLX5_GET(sqc, sqc, hairpin) || MLX5_GET(sqc, sqc, non_wire) ||
	    MLX5_GET(sqc, sqc, ts_format) > MLX5_TIMESTAMP_FORMAT_DEFAULT ||
	    MLX5_GET(sqc, sqc, hairpin_peer_rq) ||
	    MLX5_GET(sqc, sqc, hairpin_peer_vhca) ||
	    MLX5_GET(sqc, sqc, ts_cqe_to_dest_cqn) ||
	    MLX5_GET(sqc, sqc, packet_pacing_rate_limit_index) ||
	    MLX5_GET(sqc, sqc, qos_queue_group_id) ||
	    MLX5_GET(sqc, sqc, tis_lst_sz) != 1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_SQ_UNSUPPORTED);
	if (MLX5_GET(sqc, sqc, state) != MLX5_SQC_STATE_RST)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_INIT_STATE);
	err = sim_eth_wq_parse(c, MLX5_ADDR_OF(sqc, sqc, wq), SIM_SQ_STRIDE,
			       SIM_SQ_STRIDE, &cfg, &sq->buf);
	if (err)
		return err;
	if (!sim_uar_allocated(sim, cfg.uar)) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			       MLX5SP_SIM_SYND_WQ_BAD_UAR);
		goto err_free_buf;
	}
	sq->pd = cfg.pd;
	sq->uar = cfg.uar;
	sq->dbr_addr = cfg.dbr_addr;
	sq->dbr = cfg.dbr;
	sq->log_wq_sz = cfg.log_sz;
	sq->wqe_cnt = BIT(cfg.log_sz);
	sq->min_inline = MLX5_GET(sqc, sqc, min_wqe_inline_mode);
	sq->user_index = MLX5_GET(sqc, sqc, user_index);
	sq->flush_in_error = MLX5_GET(sqc, sqc, flush_in_error_en);
	sq->state = MLX5_SQC_STATE_RST;
	sq->cq = sim_cq_get(sim, MLX5_GET(sqc, sqc, cqn));
	if (!sq->cq) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			       MLX5SP_SIM_SYND_WQ_BAD_CQN);
		goto err_free_buf;
	}
	sq->tis = sim_tis_get(sim, MLX5_GET(sqc, sqc, tis_num_0));
	if (!sq->tis) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			       MLX5SP_SIM_SYND_TIS_NOT_FOUND);
		goto err_put_cq;
	}
	return 0;

err_put_cq:
	sim_cq_put(sq->cq);
err_free_buf:
	sim_buf_free(&sq->buf);
	return err;
}

int sim_cmd_create_sq(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	struct sim_eth_sq *sq;
	int err;

	sq = kzalloc(sizeof(*sq), GFP_KERNEL);
	if (!sq)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	sq->sim = sim;
	spin_lock_init(&sq->lock);
	err = sim_eth_sq_parse(c, sq);
	if (err)
		goto err_free_sq;
	err = sim_eth_wq_number(c, &sq->sqn);
	if (err)
		goto err_put_refs;
	err = xa_insert(&sim->port.sqs, sq->sqn, sq, GFP_KERNEL);
	if (err)
		goto err_no_memory;
	err = sim_pollset_add(&sim->port.poll_sqs, sq);
	if (err) {
		xa_erase(&sim->port.sqs, sq->sqn);
		goto err_no_memory;
	}
	MLX5_SET(create_sq_out, c->out, sqn, sq->sqn);
	return 0;

err_no_memory:
	err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR, MLX5SP_SIM_SYND_NO_MEMORY);
	xa_erase(&sim->qps, sq->sqn);
err_put_refs:
	sim_tis_put(sq->tis);
	sim_cq_put(sq->cq);
	sim_buf_free(&sq->buf);
err_free_sq:
	kfree(sq);
	return err;
}

static int sim_eth_sq_transition(u8 cur, u8 next)
{
	if (next == MLX5_SQC_STATE_RST)
		return 0;
	if (cur == MLX5_SQC_STATE_RST && next == MLX5_SQC_STATE_RDY)
		return 0;
	if (cur == MLX5_SQC_STATE_RDY && next == MLX5_SQC_STATE_ERR)
		return 0;
	return -EINVAL;
}

int sim_cmd_modify_sq(struct sim_cmd *c)
{
	const void *sqc = MLX5_ADDR_OF(modify_sq_in, c->in, ctx);
	u8 cur = MLX5_GET(modify_sq_in, c->in, sq_state);
	u8 next = MLX5_GET(sqc, sqc, state);
	struct sim_eth_sq *sq;
	int err = 0;

	sq = xa_load(&c->sim->port.sqs, MLX5_GET(modify_sq_in, c->in, sqn));
	if (!sq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SQ_NOT_FOUND);
	if (MLX5_GET64(modify_sq_in, c->in, modify_bitmask))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_MODIFY);
	spin_lock_bh(&sq->lock);
	if (cur != sq->state || sim_eth_sq_transition(cur, next)) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
			       MLX5SP_SIM_SYND_WQ_BAD_STATE);
		goto unlock;
	}
	sq->state = next;
	if (next == MLX5_SQC_STATE_RST)
		sq->ci = 0;
	else if (next == MLX5_SQC_STATE_ERR)
		sim_eth_sq_flush(sq);
unlock:
	spin_unlock_bh(&sq->lock);
	/* a doorbell rung before the move is run now */
	if (!err && next == MLX5_SQC_STATE_RDY)
		sim_engine_kick(c->sim);
	return err;
}

int sim_cmd_query_sq(struct sim_cmd *c)
{
	void *sqc = MLX5_ADDR_OF(query_sq_out, c->out, sq_context);
	void *wq = MLX5_ADDR_OF(sqc, sqc, wq);
	struct sim_eth_sq *sq;

	sq = xa_load(&c->sim->port.sqs, MLX5_GET(query_sq_in, c->in, sqn));
	if (!sq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SQ_NOT_FOUND);
	spin_lock_bh(&sq->lock);
	MLX5_SET(sqc, sqc, state, sq->state);
	MLX5_SET(wq, wq, hw_counter, sq->ci);
	spin_unlock_bh(&sq->lock);
	MLX5_SET(sqc, sqc, flush_in_error_en, sq->flush_in_error);
	MLX5_SET(sqc, sqc, min_wqe_inline_mode, sq->min_inline);
	MLX5_SET(sqc, sqc, user_index, sq->user_index);
	MLX5_SET(sqc, sqc, cqn, sq->cq->cqn);
	MLX5_SET(sqc, sqc, tis_lst_sz, 1);
	MLX5_SET(sqc, sqc, tis_num_0, sq->tis->tisn);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, sq->pd);
	MLX5_SET(wq, wq, uar_page, sq->uar);
	MLX5_SET64(wq, wq, dbr_addr, sq->dbr_addr);
	MLX5_SET(wq, wq, sw_counter,
		 be32_to_cpu(READ_ONCE(sq->dbr[MLX5_SND_DBR])) & 0xffff);
	MLX5_SET(wq, wq, log_wq_stride, SIM_SQ_STRIDE);
	MLX5_SET(wq, wq, log_wq_pg_sz, sq->buf.log_page_size);
	MLX5_SET(wq, wq, log_wq_sz, sq->log_wq_sz);
	return 0;
}

static void sim_eth_sq_unref(struct sim_eth_sq *sq)
{
	sim_tis_put(sq->tis);
	sim_cq_put(sq->cq);
	sim_eth_sq_free(sq);
}

int sim_cmd_destroy_sq(struct sim_cmd *c)
{
	u32 sqn = MLX5_GET(destroy_sq_in, c->in, sqn);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_eth_sq *sq;

	sq = xa_load(&sim->port.sqs, sqn);
	if (!sq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SQ_NOT_FOUND);
	xa_erase(&sim->port.sqs, sqn);
	sim_pollset_del(&sim->port.poll_sqs, sq);
	xa_erase(&sim->qps, sqn);
	/* the engine is done with the SQ's WQEs and CQ */
	synchronize_rcu_expedited();
	sim_eth_sq_unref(sq);
	return 0;
}

/* Before the TISes (steer.c) and CQs. fw_lock. */
void sim_eth_sq_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_eth_sq *sq, *tmp;
	unsigned long sqn;
	LIST_HEAD(dead);

	xa_for_each(&sim->port.sqs, sqn, sq) {
		xa_erase(&sim->port.sqs, sqn);
		sim_pollset_del(&sim->port.poll_sqs, sq);
		xa_erase(&sim->qps, sqn);
		list_add(&sq->dead, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(sq, tmp, &dead, dead)
		sim_eth_sq_unref(sq);
}
