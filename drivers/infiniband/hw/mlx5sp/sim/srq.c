// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues of the software ConnectX: CREATE/DESTROY/
 * QUERY_SRQ and ARM_RQ (op_mod SRQ: the limit watermark), and the free
 * list the responder takes receive WQEs from.
 *
 * An SRQ WQE is a next segment (struct mlx5_wqe_srq_next_seg) and data
 * segments up to the stride, ended by the invalid lkey. The device keeps
 * the index of the next WQE to use (starting at 0) and a counter of WQEs
 * used; software's doorbell record counts WQEs posted. Taking a WQE moves
 * the index to the WQE's next_wqe_index, and the CQE names the WQE by its
 * index in wqe_counter, so software can put it back on its free list.
 * When the WQEs left fall below an armed watermark, the SRQ raises
 * SRQ_RQ_LIMIT once and disarms.
 */

#include <linux/slab.h>

#include "buf.h"
#include "eq.h"
#include "limits.h"
#include "mkey.h"
#include "mlx5sp_prm.h"
#include "qp.h"
#include "sgl.h"
#include "sim.h"
#include "syndromes.h"

#define SIM_SRQ_MAX_LOG_STRIDE	5	/* log_rq_stride: 512-byte WQEs */
#define SIM_SRQ_INVALID_LKEY	0x100

static void sim_srq_free(struct sim_srq *srq)
{
	sim_buf_free(&srq->buf);
	kfree(srq);
}

static int sim_srq_parse(struct sim_cmd *c, struct sim_srq *srq)
{
	const void *srqc = MLX5_ADDR_OF(create_srq_in, c->in,
					srq_context_entry);
	u32 max_pas = (c->inlen - MLX5_ST_SZ_BYTES(create_srq_in)) /
		      sizeof(__be64);
	struct mlx5sp_sim *sim = c->sim;
	u8 stride;

	if (MLX5_GET(srqc, srqc, wq_signature) ||
	    MLX5_GET(srqc, srqc, cont_srq) ||
	    MLX5_GET(srqc, srqc, state) != MLX5_SRQC_STATE_GOOD)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_SRQ_UNSUPPORTED);
	srq->log_size = MLX5_GET(srqc, srqc, log_srq_size);
	stride = MLX5_GET(srqc, srqc, log_rq_stride);
	if (srq->log_size > SIM_CAP_GEN(sim, log_max_srq_sz) ||
	    stride > SIM_SRQ_MAX_LOG_STRIDE || stride < 1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_SRQ_BAD_SIZE);
	srq->stride_shift = stride + 4;
	srq->nent = BIT(srq->log_size);
	srq->pd = MLX5_GET(srqc, srqc, pd);
	if (!sim_pd_exists(sim, srq->pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SRQ_BAD_PD);
	srq->lwm = MLX5_GET(srqc, srqc, lwm);
	srq->dbr_addr = MLX5_GET64(srqc, srqc, dbr_addr);
	srq->dbr = sim_dbr_ptr(sim, srq->dbr_addr);
	if (!srq->dbr)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_SRQ_BAD_DBR);
	return sim_buf_init(c, &srq->buf,
			    MLX5_ADDR_OF(create_srq_in, c->in, pas), max_pas,
			    MLX5_GET(srqc, srqc, log_page_size),
			    MLX5_GET(srqc, srqc, page_offset),
			    (u64)srq->nent << srq->stride_shift);
}

int sim_cmd_create_srq(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	struct sim_srq *srq;
	u32 srqn;
	int err;

	err = sim_lim_check(c, SIM_LIM_SRQ);
	if (err)
		return err;
	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	srq->sim = sim;
	spin_lock_init(&srq->lock);
	atomic_set(&srq->users, 0);
	err = sim_srq_parse(c, srq);
	if (err)
		goto err_free_srq;
	/* posted before creation is not posted: count from the record */
	srq->ci = be32_to_cpu(READ_ONCE(srq->dbr[0])) & 0xffff;
	err = xa_alloc_cyclic(&sim->srqs, &srqn, srq,
			      XA_LIMIT(1, BIT(24) - 1),
			      &sim->next_srqn, GFP_KERNEL);
	if (err < 0) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       err == -EBUSY ? MLX5SP_SIM_SYND_SRQ_EXHAUSTED :
					       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_srq;
	}
	srq->srqn = srqn;
	sim_lim_add(sim, SIM_LIM_SRQ);
	MLX5_SET(create_srq_out, c->out, srqn, srqn);
	return 0;

err_free_srq:
	sim_srq_free(srq);
	return err;
}

/* An SRQ a QP will take WQEs from; the QP holds it until destroyed. */
struct sim_srq *sim_srq_get(struct mlx5sp_sim *sim, u32 srqn)
{
	struct sim_srq *srq;

	lockdep_assert_held(&sim->fw_lock);
	srq = xa_load(&sim->srqs, srqn);
	if (srq)
		atomic_inc(&srq->users);
	return srq;
}

void sim_srq_put(struct sim_srq *srq)
{
	if (srq)
		atomic_dec(&srq->users);
}

int sim_cmd_destroy_srq(struct sim_cmd *c)
{
	u32 srqn = MLX5_GET(destroy_srq_in, c->in, srqn);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_srq *srq;

	srq = xa_load(&sim->srqs, srqn);
	if (!srq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SRQ_NOT_FOUND);
	if (atomic_read(&srq->users))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_SRQ_IN_USE);
	xa_erase(&sim->srqs, srqn);
	sim_lim_sub(sim, SIM_LIM_SRQ);
	/* no responder still reads the buffer the driver frees next */
	synchronize_rcu_expedited();
	sim_srq_free(srq);
	return 0;
}

void sim_srq_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_srq *srq, *tmp;
	unsigned long srqn;
	LIST_HEAD(dead);

	xa_for_each(&sim->srqs, srqn, srq) {
		xa_erase(&sim->srqs, srqn);
		list_add(&srq->dead, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(srq, tmp, &dead, dead)
		sim_srq_free(srq);
}

static u16 sim_srq_avail(struct sim_srq *srq)
{
	u16 pi = be32_to_cpu(READ_ONCE(srq->dbr[0])) & 0xffff;

	/* the WQEs were written before the doorbell record */
	dma_rmb();
	return pi - srq->ci;
}

int sim_cmd_query_srq(struct sim_cmd *c)
{
	void *srqc = MLX5_ADDR_OF(query_srq_out, c->out, srq_context_entry);
	u32 srqn = MLX5_GET(query_srq_in, c->in, srqn);
	struct sim_srq *srq;

	srq = xa_load(&c->sim->srqs, srqn);
	if (!srq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SRQ_NOT_FOUND);
	spin_lock_bh(&srq->lock);
	MLX5_SET(srqc, srqc, state, MLX5_SRQC_STATE_GOOD);
	MLX5_SET(srqc, srqc, log_srq_size, srq->log_size);
	MLX5_SET(srqc, srqc, log_rq_stride, srq->stride_shift - 4);
	MLX5_SET(srqc, srqc, page_offset, srq->buf.page_offset);
	MLX5_SET(srqc, srqc, log_page_size, srq->buf.log_page_size);
	MLX5_SET(srqc, srqc, pd, srq->pd);
	MLX5_SET(srqc, srqc, lwm, srq->armed ? srq->lwm : 0);
	MLX5_SET(srqc, srqc, wqe_cnt, sim_srq_avail(srq));
	MLX5_SET64(srqc, srqc, dbr_addr, srq->dbr_addr);
	spin_unlock_bh(&srq->lock);
	return 0;
}

/* Under srq->lock: raise the limit event if it is due. */
static bool sim_srq_limit_due(struct sim_srq *srq)
{
	if (!srq->armed || sim_srq_avail(srq) >= srq->lwm)
		return false;
	srq->armed = false;
	return true;
}

static void sim_srq_limit_event(struct sim_srq *srq)
{
	union ev_data data = {};

	data.qp_srq.type = MLX5SP_EVENT_QUEUE_TYPE_SRQ;
	data.qp_srq.qp_srq_n = cpu_to_be32(srq->srqn & 0xffffff);
	sim_eq_post(srq->sim, MLX5_EVENT_TYPE_SRQ_RQ_LIMIT, 0, &data);
}

/* ARM_RQ, op_mod SRQ: arm the limit at lwm WQEs (0 disarms). */
int sim_cmd_arm_rq(struct sim_cmd *c)
{
	u32 srqn = MLX5_GET(arm_rq_in, c->in, srq_number);
	u16 lwm = MLX5_GET(arm_rq_in, c->in, lwm);
	struct sim_srq *srq;
	bool fire;

	if (c->op_mod != MLX5_ARM_RQ_IN_OP_MOD_SRQ)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_OP_MOD);
	srq = xa_load(&c->sim->srqs, srqn);
	if (!srq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_SRQ_NOT_FOUND);
	if (lwm >= srq->nent)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_SRQ_BAD_LWM);
	spin_lock_bh(&srq->lock);
	srq->lwm = lwm;
	srq->armed = lwm != 0;
	/* below the mark already: the event is due at once */
	fire = sim_srq_limit_due(srq);
	spin_unlock_bh(&srq->lock);
	if (fire)
		sim_srq_limit_event(srq);
	return 0;
}

/*
 * WQE @idx's scatter list into @sgl (lkeys of the SRQ's PD). Returns 0 or
 * a CQE syndrome. Again for each packet of a message placed as it comes
 * (rq.c): a key may go between two.
 */
u8 sim_srq_scatter_list(struct sim_srq *srq, u16 idx, u32 qpn,
			struct sim_sgl *sgl)
{
	u64 base = (u64)(idx & (srq->nent - 1)) << srq->stride_shift;
	struct mlx5_wqe_data_seg *ds;
	u32 i, n, lkey;
	u8 synd;

	sim_sgl_reset(sgl);
	n = (BIT(srq->stride_shift) -
	     sizeof(struct mlx5_wqe_srq_next_seg)) / MLX5_SEND_WQE_DS;
	for (i = 0; i < n; i++) {
		ds = sim_buf_at(&srq->buf,
				base + sizeof(struct mlx5_wqe_srq_next_seg) +
				i * MLX5_SEND_WQE_DS);
		lkey = be32_to_cpu(READ_ONCE(ds->lkey));
		if (lkey == SIM_SRQ_INVALID_LKEY)
			break;
		synd = sim_sgl_add_key(srq->sim, sgl, lkey,
				       be64_to_cpu(READ_ONCE(ds->addr)),
				       be32_to_cpu(READ_ONCE(ds->byte_count)) &
				       ~MLX5_INLINE_SEG, srq->pd, qpn,
				       SIM_ACC_LW);
		if (synd)
			return synd;
	}
	return 0;
}

/*
 * Take the next WQE: its index into @idx and, with @sgl, its scatter
 * list. Returns 0, a CQE syndrome (the WQE is used all the same), or -1
 * when the SRQ is empty. The responder's rq_lock is held.
 */
int sim_srq_take(struct sim_srq *srq, u32 qpn, struct sim_sgl *sgl, u16 *idx)
{
	struct mlx5_wqe_srq_next_seg *next;
	bool fire;

	spin_lock_bh(&srq->lock);
	if (!sim_srq_avail(srq)) {
		spin_unlock_bh(&srq->lock);
		return -1;
	}
	*idx = srq->head;
	next = sim_buf_at(&srq->buf, (u64)srq->head << srq->stride_shift);
	srq->head = be16_to_cpu(READ_ONCE(next->next_wqe_index)) &
		    (srq->nent - 1);
	srq->ci++;
	fire = sim_srq_limit_due(srq);
	spin_unlock_bh(&srq->lock);
	if (fire)
		sim_srq_limit_event(srq);
	return sgl ? sim_srq_scatter_list(srq, *idx, qpn, sgl) : 0;
}

bool sim_srq_has_wqe(struct sim_srq *srq)
{
	bool avail;

	spin_lock_bh(&srq->lock);
	avail = sim_srq_avail(srq);
	spin_unlock_bh(&srq->lock);
	return avail;
}
