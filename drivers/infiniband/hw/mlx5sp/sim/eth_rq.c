// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ethernet RQs of the software ConnectX: CREATE/MODIFY/QUERY/DESTROY_RQ
 * (cyclic, memory RQ inline, no VLAN stripping), the WQ context both
 * Ethernet queues share, and the receive path: a frame the NIC steering
 * sent here fills the WQE at the RQ's head (a list of data segments
 * ended by the first invalid lkey), and a receive CQE tells its length,
 * header types and which checksums the model verified. No WQE: dropped,
 * counted (out of buffer). Longer than the WQE's buffers: dropped,
 * counted, the WQE stays. A bad lkey: an error CQE and the RQ in error.
 */

#include <linux/slab.h>
#include <linux/skbuff.h>
#include <kunit/visibility.h>

#include "buf.h"
#include "cq.h"
#include "eth_wq.h"
#include "mkey.h"
#include "port.h"
#include "sgl.h"
#include "sim.h"
#include "steer.h"
#include "syndromes.h"

#define SIM_RQ_MIN_STRIDE	4	/* one mlx5_wqe_data_seg */
#define SIM_RQ_MAX_STRIDE	6	/* four */
#define SIM_CQE_L3_IPV6		0x1	/* CQE l3_hdr_type (PRM) */
#define SIM_CQE_L3_IPV4		0x2

/*
 * The WQ context of an SQ or RQ: cyclic, a PD, a doorbell record and a
 * buffer of 2^log_wq_sz WQEs of 2^log_wq_stride bytes; what a card's
 * striding RQs, umems, signatures and padding are, refused.
 */
int sim_eth_wq_parse(struct sim_cmd *c, const void *wq, u8 min_stride,
		     u8 max_stride, struct sim_eth_wq_cfg *cfg,
		     struct sim_buf *buf)
{
	const void *pas = MLX5_ADDR_OF(wq, wq, pas);
	u32 max_pas = (c->in + c->inlen - pas) / sizeof(__be64);
	struct mlx5sp_sim *sim = c->sim;

	if (MLX5_GET(wq, wq, wq_type) != MLX5_WQ_TYPE_CYCLIC ||
	    MLX5_GET(wq, wq, wq_signature) ||
	    MLX5_GET(wq, wq, end_padding_mode) || MLX5_GET(wq, wq, cd_slave) ||
	    MLX5_GET(wq, wq, hds_skip_first_sge) ||
	    MLX5_GET(wq, wq, log2_hds_buf_size) ||
	    MLX5_GET(wq, wq, dbr_umem_valid) ||
	    MLX5_GET(wq, wq, wq_umem_valid) ||
	    MLX5_GET(wq, wq, log_wqe_num_of_strides) ||
	    MLX5_GET(wq, wq, two_byte_shift_en) ||
	    MLX5_GET(wq, wq, log_wqe_stride_size) ||
	    MLX5_GET(wq, wq, shampo_enable))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_UNSUPPORTED);
	cfg->stride_shift = MLX5_GET(wq, wq, log_wq_stride);
	cfg->log_sz = MLX5_GET(wq, wq, log_wq_sz);
	/* counters are 16 bits: a ring of at most 2^15 */
	if (cfg->stride_shift < min_stride || cfg->stride_shift > max_stride ||
	    cfg->log_sz > SIM_LOG_MAX_WQ_SZ)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_SIZE);
	cfg->pd = MLX5_GET(wq, wq, pd);
	if (!sim_pd_exists(sim, cfg->pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_PD);
	cfg->uar = MLX5_GET(wq, wq, uar_page);
	cfg->dbr_addr = MLX5_GET64(wq, wq, dbr_addr);
	cfg->dbr = sim_dbr_ptr(sim, cfg->dbr_addr);
	if (!cfg->dbr)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_DBR);
	return sim_buf_init(c, buf, pas, max_pas,
			    MLX5_GET(wq, wq, log_wq_pg_sz),
			    MLX5_GET(wq, wq, page_offset),
			    (u64)BIT(cfg->log_sz) << cfg->stride_shift);
}

/* A number of the QP number space, reserved: no QP lookup sees it. */
int sim_eth_wq_number(struct sim_cmd *c, u32 *n)
{
	struct mlx5sp_sim *sim = c->sim;
	int err;

	err = xa_alloc_cyclic(&sim->qps, n, NULL,
			      XA_LIMIT(SIM_QPN_FIRST, SIM_QPN_MAX),
			      &sim->next_qpn, GFP_KERNEL);
	if (err < 0)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				err == -EBUSY ? MLX5SP_SIM_SYND_WQ_EXHAUSTED :
						MLX5SP_SIM_SYND_NO_MEMORY);
	return 0;
}

static void sim_eth_rq_free(struct sim_eth_rq *rq)
{
	sim_buf_free(&rq->buf);
	kfree(rq);
}

static int sim_eth_rq_parse(struct sim_cmd *c, struct sim_eth_rq *rq)
{
	const void *rqc = MLX5_ADDR_OF(create_rq_in, c->in, ctx);
	struct sim_eth_wq_cfg cfg;
	int err;

	if (!MLX5_GET(rqc, rqc, vsd) ||
	    MLX5_GET(rqc, rqc, mem_rq_type) !=
	    MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE ||
	    MLX5_GET(rqc, rqc, rlky) || MLX5_GET(rqc, rqc, delay_drop_en) ||
	    MLX5_GET(rqc, rqc, scatter_fcs) || MLX5_GET(rqc, rqc, hairpin) ||
	    MLX5_GET(rqc, rqc, ts_format) > MLX5_TIMESTAMP_FORMAT_DEFAULT ||
	    MLX5_GET(rqc, rqc, rmpn) ||
	    MLX5_GET(rqc, rqc, counter_set_id) ||
	    MLX5_GET(rqc, rqc, shampo_match_criteria_type))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_RQ_UNSUPPORTED);
	if (MLX5_GET(rqc, rqc, state) != MLX5_RQC_STATE_RST)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_INIT_STATE);
	err = sim_eth_wq_parse(c, MLX5_ADDR_OF(rqc, rqc, wq),
			       SIM_RQ_MIN_STRIDE, SIM_RQ_MAX_STRIDE, &cfg,
			       &rq->buf);
	if (err)
		return err;
	rq->pd = cfg.pd;
	rq->dbr_addr = cfg.dbr_addr;
	rq->dbr = cfg.dbr;
	rq->log_wq_sz = cfg.log_sz;
	rq->wqe_cnt = BIT(cfg.log_sz);
	rq->stride_shift = cfg.stride_shift;
	rq->user_index = MLX5_GET(rqc, rqc, user_index);
	rq->flush_in_error = MLX5_GET(rqc, rqc, flush_in_error_en);
	rq->state = MLX5_RQC_STATE_RST;
	rq->cq = sim_cq_get(c->sim, MLX5_GET(rqc, rqc, cqn));
	if (!rq->cq) {
		sim_buf_free(&rq->buf);
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_CQN);
	}
	return 0;
}

int sim_cmd_create_rq(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	struct sim_eth_rq *rq;
	int err;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	rq->sim = sim;
	spin_lock_init(&rq->lock);
	atomic_set(&rq->users, 0);
	err = sim_eth_rq_parse(c, rq);
	if (err)
		goto err_free_rq;
	err = sim_eth_wq_number(c, &rq->rqn);
	if (err)
		goto err_put_cq;
	err = xa_insert(&sim->port.rqs, rq->rqn, rq, GFP_KERNEL);
	if (err) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_number;
	}
	MLX5_SET(create_rq_out, c->out, rqn, rq->rqn);
	return 0;

err_free_number:
	xa_erase(&sim->qps, rq->rqn);
err_put_cq:
	sim_cq_put(rq->cq);
	sim_buf_free(&rq->buf);
err_free_rq:
	kfree(rq);
	return err;
}

/* The RQ a TIR sends to: held until the TIR goes. fw_lock. */
struct sim_eth_rq *sim_eth_rq_get(struct mlx5sp_sim *sim, u32 rqn)
{
	struct sim_eth_rq *rq;

	lockdep_assert_held(&sim->fw_lock);
	rq = xa_load(&sim->port.rqs, rqn);
	if (rq)
		atomic_inc(&rq->users);
	return rq;
}

void sim_eth_rq_put(struct sim_eth_rq *rq)
{
	if (rq)
		atomic_dec(&rq->users);
}

static void sim_eth_rq_cqe(struct sim_eth_rq *rq, u8 opcode, u8 syndrome,
			   u32 len, const struct sim_eth_hdrs *h, u8 ok)
{
	struct sim_cqe_info ci = {
		.opcode = opcode,
		.syndrome = syndrome,
		.wqe_counter = rq->ci,
		.qpn = rq->rqn,
		.user_index = rq->user_index,
		.byte_cnt = len,
		.hds_ip_ext = ok,
	};
	u8 l3 = 0, l4 = CQE_L4_HDR_TYPE_NONE;

	if (h && h->ipv)
		l3 = h->ipv == 4 ? SIM_CQE_L3_IPV4 : SIM_CQE_L3_IPV6;
	if (h && h->l4_proto == IPPROTO_UDP)
		l4 = CQE_L4_HDR_TYPE_UDP;
	else if (h && h->l4_proto == IPPROTO_TCP)
		l4 = CQE_L4_HDR_TYPE_TCP_NO_ACK;
	ci.l4_l3_hdr_type = l4 << 4 | l3 << 2;
	if (opcode == MLX5_CQE_RESP_ERR)
		sim_engine_count_err(&rq->sim->estats, syndrome);
	sim_cqe_write(rq->cq, &ci);
}

/* The posted WQEs complete flushed (flush_in_error_en). Under rq->lock. */
static void sim_eth_rq_flush(struct sim_eth_rq *rq)
{
	u16 pi;

	if (!rq->flush_in_error)
		return;
	pi = be32_to_cpu(READ_ONCE(rq->dbr[MLX5_RCV_DBR])) & 0xffff;
	while (rq->ci != pi) {
		sim_eth_rq_cqe(rq, MLX5_CQE_RESP_ERR,
			       MLX5_CQE_SYNDROME_WR_FLUSH_ERR, 0, NULL, 0);
		atomic64_inc(&rq->sim->estats.flushed);
		rq->ci++;
	}
}

/* The WQE at the head as a scatter list. Returns 0 or a CQE syndrome. */
static u8 sim_eth_rq_sgl(struct sim_eth_rq *rq, struct sim_sgl *sgl)
{
	const struct mlx5_wqe_data_seg *seg;
	u32 i, n = BIT(rq->stride_shift) / sizeof(*seg), len, lkey;
	u8 synd;

	seg = sim_buf_at(&rq->buf, (u64)(rq->ci & (rq->wqe_cnt - 1)) <<
			 rq->stride_shift);
	sim_sgl_reset(sgl);
	for (i = 0; i < n; i++) {
		lkey = be32_to_cpu(READ_ONCE(seg[i].lkey));
		len = be32_to_cpu(READ_ONCE(seg[i].byte_count));
		if (lkey == SIM_INVALID_LKEY)
			break;
		if (len & MLX5_INLINE_SEG)
			return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		synd = sim_sgl_add_key(rq->sim, sgl, lkey,
				       be64_to_cpu(READ_ONCE(seg[i].addr)), len,
				       rq->pd, rq->rqn, SIM_ACC_LW);
		if (synd)
			return synd;
	}
	return 0;
}

static void sim_eth_rq_error(struct sim_eth_rq *rq, u8 syndrome)
{
	sim_eth_rq_cqe(rq, MLX5_CQE_RESP_ERR, syndrome, 0, NULL, 0);
	rq->ci++;
	rq->state = MLX5_RQC_STATE_ERR;
	sim_eth_rq_flush(rq);
}

/* One frame (@frame from its MAC header) into @rq. */
static void sim_eth_rq_deliver(struct sim_engine *eng, struct sim_eth_rq *rq,
			       const u8 *frame, u32 len)
{
	struct sim_port_stats *st = &rq->sim->port.st;
	struct sim_eth_hdrs h;
	struct sim_cur cur;
	u16 pi;
	u8 synd;

	spin_lock_bh(&rq->lock);
	if (rq->state != MLX5_RQC_STATE_RDY) {
		atomic64_inc(&st->rx_dropped);
		goto unlock;
	}
	pi = be32_to_cpu(READ_ONCE(rq->dbr[MLX5_RCV_DBR])) & 0xffff;
	if (rq->ci == pi) {
		atomic64_inc(&st->rx_out_of_buffer);
		goto unlock;
	}
	/* the WQE was written before the counter */
	dma_rmb();
	synd = sim_eth_rq_sgl(rq, &eng->rsgl);
	if (synd) {
		sim_eth_rq_error(rq, synd);
		goto unlock;
	}
	if (len > eng->rsgl.total) {
		atomic64_inc(&st->rx_too_long);
		goto unlock;
	}
	sim_cur_init(&cur, eng->rsgl.sge, eng->rsgl.n);
	if (sim_cur_write(rq->sim, &cur, frame, len)) {
		sim_eth_rq_error(rq, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		goto unlock;
	}
	sim_eth_parse(frame, len, &h);
	sim_eth_rq_cqe(rq, MLX5_CQE_RESP_SEND, 0, len, &h,
		       sim_eth_csum_ok(frame, &h));
	rq->ci++;
	atomic64_inc(&st->rx_frames);
	atomic64_add(len, &st->rx_bytes);
unlock:
	spin_unlock_bh(&rq->lock);
}

/*
 * A frame from the cable that is not the RDMA engine's (net.c), whole
 * and at its MAC header: through the NIC steering into an RQ. In the
 * receive softirq, under the batch's rcu_read_lock().
 */
void sim_eth_rx(struct sim_engine *eng, struct mlx5sp_sim *sim,
		struct sk_buff *skb)
{
	struct sim_port_stats *st = &sim->port.st;
	struct sim_eth_rq *rq;

	if (skb_linearize(skb)) {
		atomic64_inc(&st->rx_dropped);
		return;
	}
	if (skb->len + ETH_FCS_LEN > READ_ONCE(sim->port.admin_mtu)) {
		atomic64_inc(&st->rx_too_long);
		return;
	}
	rq = sim_steer_lookup(sim, skb->data, skb->len);
	if (rq)
		sim_eth_rq_deliver(eng, rq, skb->data, skb->len);
}

static int sim_eth_rq_transition(u8 cur, u8 next)
{
	if (next == MLX5_RQC_STATE_RST)
		return 0;
	if (cur == MLX5_RQC_STATE_RST && next == MLX5_RQC_STATE_RDY)
		return 0;
	if (cur == MLX5_RQC_STATE_RDY && next == MLX5_RQC_STATE_ERR)
		return 0;
	return -EINVAL;
}

int sim_cmd_modify_rq(struct sim_cmd *c)
{
	const void *rqc = MLX5_ADDR_OF(modify_rq_in, c->in, ctx);
	u8 cur = MLX5_GET(modify_rq_in, c->in, rq_state);
	u8 next = MLX5_GET(rqc, rqc, state);
	struct sim_eth_rq *rq;
	int err = 0;

	rq = xa_load(&c->sim->port.rqs, MLX5_GET(modify_rq_in, c->in, rqn));
	if (!rq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_RQ_NOT_FOUND);
	if (MLX5_GET64(modify_rq_in, c->in, modify_bitmask))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_WQ_BAD_MODIFY);
	spin_lock_bh(&rq->lock);
	if (cur != rq->state || sim_eth_rq_transition(cur, next)) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
			       MLX5SP_SIM_SYND_WQ_BAD_STATE);
		goto unlock;
	}
	rq->state = next;
	if (next == MLX5_RQC_STATE_RST)
		rq->ci = 0;
	else if (next == MLX5_RQC_STATE_ERR)
		sim_eth_rq_flush(rq);
unlock:
	spin_unlock_bh(&rq->lock);
	return err;
}

int sim_cmd_query_rq(struct sim_cmd *c)
{
	void *rqc = MLX5_ADDR_OF(query_rq_out, c->out, rq_context);
	void *wq = MLX5_ADDR_OF(rqc, rqc, wq);
	struct sim_eth_rq *rq;

	rq = xa_load(&c->sim->port.rqs, MLX5_GET(query_rq_in, c->in, rqn));
	if (!rq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_RQ_NOT_FOUND);
	spin_lock_bh(&rq->lock);
	MLX5_SET(rqc, rqc, state, rq->state);
	MLX5_SET(wq, wq, hw_counter, rq->ci);
	spin_unlock_bh(&rq->lock);
	MLX5_SET(rqc, rqc, vsd, 1);
	MLX5_SET(rqc, rqc, mem_rq_type, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE);
	MLX5_SET(rqc, rqc, flush_in_error_en, rq->flush_in_error);
	MLX5_SET(rqc, rqc, user_index, rq->user_index);
	MLX5_SET(rqc, rqc, cqn, rq->cq->cqn);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, rq->pd);
	MLX5_SET64(wq, wq, dbr_addr, rq->dbr_addr);
	MLX5_SET(wq, wq, sw_counter,
		 be32_to_cpu(READ_ONCE(rq->dbr[MLX5_RCV_DBR])) & 0xffff);
	MLX5_SET(wq, wq, log_wq_stride, rq->stride_shift);
	MLX5_SET(wq, wq, log_wq_pg_sz, rq->buf.log_page_size);
	MLX5_SET(wq, wq, log_wq_sz, rq->log_wq_sz);
	MLX5_SET(wq, wq, page_offset, rq->buf.page_offset);
	return 0;
}

int sim_cmd_destroy_rq(struct sim_cmd *c)
{
	u32 rqn = MLX5_GET(destroy_rq_in, c->in, rqn);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_eth_rq *rq;

	rq = xa_load(&sim->port.rqs, rqn);
	if (!rq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_RQ_NOT_FOUND);
	if (atomic_read(&rq->users))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_RQ_IN_USE);
	xa_erase(&sim->port.rqs, rqn);
	xa_erase(&sim->qps, rqn);
	/* no frame is being written into a buffer the driver frees next */
	synchronize_rcu_expedited();
	sim_cq_put(rq->cq);
	sim_eth_rq_free(rq);
	return 0;
}

/* After the TIRs (steer.c), before the CQs. fw_lock. */
void sim_eth_rq_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_eth_rq *rq, *tmp;
	unsigned long rqn;
	LIST_HEAD(dead);

	xa_for_each(&sim->port.rqs, rqn, rq) {
		xa_erase(&sim->port.rqs, rqn);
		xa_erase(&sim->qps, rqn);
		list_add(&rq->dead, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(rq, tmp, &dead, dead) {
		sim_cq_put(rq->cq);
		sim_eth_rq_free(rq);
	}
}
