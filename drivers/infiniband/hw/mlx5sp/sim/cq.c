// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues of the software ConnectX: CREATE/DESTROY/QUERY/
 * MODIFY_CQ (moderation and resize), and the arm doorbell record the
 * engine polls for user space CQs. 64-byte CQEs only.
 */

#include <linux/slab.h>

#include "buf.h"
#include "cq.h"
#include "engine.h"
#include "eq.h"
#include "limits.h"
#include "mlx5sp_prm.h"
#include "sim.h"
#include "syndromes.h"

#define SIM_CQE_SIZE		64
#define SIM_CQE_SZ_64		0	/* cqc.cqe_sz */
#define SIM_CQ_STATUS_OVERFLOW	0x9	/* cqc.status */

static void sim_cq_free(struct sim_cq *cq)
{
	sim_buf_free(&cq->buf);
	kfree(cq);
}

static int sim_cq_parse(struct sim_cmd *c, struct sim_cq *cq)
{
	const void *cqc = MLX5_ADDR_OF(create_cq_in, c->in, cq_context);
	u32 max_pas = (c->inlen - MLX5_ST_SZ_BYTES(create_cq_in)) /
		      sizeof(__be64);
	struct mlx5sp_sim *sim = c->sim;

	if (MLX5_GET(cqc, cqc, cqe_sz) != SIM_CQE_SZ_64)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_CQE_SIZE);
	if (MLX5_GET(cqc, cqc, cc) || MLX5_GET(cqc, cqc, cqe_comp_en) ||
	    MLX5_GET(cqc, cqc, apu_cq) || MLX5_GET(cqc, cqc, dbr_umem_valid) ||
	    MLX5_GET(create_cq_in, c->in, cq_umem_valid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_UNSUPPORTED);
	cq->log_size = MLX5_GET(cqc, cqc, log_cq_size);
	if (cq->log_size > SIM_CAP_GEN(sim, log_max_cq_sz))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_LOG_SIZE);
	cq->nent = BIT(cq->log_size);
	cq->uar = MLX5_GET(cqc, cqc, uar_page);
	if (!sim_uar_allocated(sim, cq->uar))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_UAR);
	cq->eqn = MLX5_GET(cqc, cqc, c_eqn_or_apu_element);
	if (!sim_eq_exists(sim, cq->eqn))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_EQN);
	cq->dbr_addr = MLX5_GET64(cqc, cqc, dbr_addr);
	cq->dbr = sim_dbr_ptr(sim, cq->dbr_addr);
	if (!cq->dbr)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_DBR);
	cq->oi = MLX5_GET(cqc, cqc, oi);
	cq->cq_period = MLX5_GET(cqc, cqc, cq_period);
	cq->cq_max_count = MLX5_GET(cqc, cqc, cq_max_count);
	return sim_buf_init(c, &cq->buf,
			    MLX5_ADDR_OF(create_cq_in, c->in, pas), max_pas,
			    MLX5_GET(cqc, cqc, log_page_size),
			    MLX5_GET(cqc, cqc, page_offset),
			    (u64)cq->nent * SIM_CQE_SIZE);
}

int sim_cmd_create_cq(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	struct sim_cq *cq;
	u32 cqn;
	int err;

	err = sim_lim_check(c, SIM_LIM_CQ);
	if (err)
		return err;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	cq->sim = sim;
	spin_lock_init(&cq->lock);
	atomic_set(&cq->users, 0);
	err = sim_cq_parse(c, cq);
	if (err)
		goto err_free_cq;
	/* an arm record written before creation is not an arm */
	cq->last_arm = be32_to_cpu(READ_ONCE(cq->dbr[1]));

	err = xa_alloc_cyclic(&sim->cqs, &cqn, cq, XA_LIMIT(1, BIT(24) - 1),
			      &sim->next_cqn, GFP_KERNEL);
	if (err < 0) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       err == -EBUSY ? MLX5SP_SIM_SYND_CQ_EXHAUSTED :
					       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_cq;
	}
	if (sim_pollset_add(&sim->poll_cqs, cq)) {
		xa_erase(&sim->cqs, cqn);
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_cq;
	}
	cq->cqn = cqn;
	sim_lim_add(sim, SIM_LIM_CQ);
	MLX5_SET(create_cq_out, c->out, cqn, cqn);
	sim_engine_kick(sim);
	return 0;

err_free_cq:
	sim_cq_free(cq);
	return err;
}

/* A CQ a QP will use; the QP holds it until it is destroyed. */
struct sim_cq *sim_cq_get(struct mlx5sp_sim *sim, u32 cqn)
{
	struct sim_cq *cq;

	lockdep_assert_held(&sim->fw_lock);
	cq = xa_load(&sim->cqs, cqn);
	if (cq)
		atomic_inc(&cq->users);
	return cq;
}

void sim_cq_put(struct sim_cq *cq)
{
	if (cq)
		atomic_dec(&cq->users);
}

int sim_cmd_destroy_cq(struct sim_cmd *c)
{
	u32 cqn = MLX5_GET(destroy_cq_in, c->in, cqn);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_cq *cq;

	cq = xa_load(&sim->cqs, cqn);
	if (!cq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_CQ_NOT_FOUND);
	if (atomic_read(&cq->users))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_CQ_IN_USE);
	xa_erase(&sim->cqs, cqn);
	sim_lim_sub(sim, SIM_LIM_CQ);
	sim_pollset_del(&sim->poll_cqs, cq);
	/*
	 * No CQE may be in flight into a buffer the driver frees next.
	 * Expedited, as in every destroy command: ULPs and a link delete
	 * destroy queues by the hundred, and normal grace periods made that
	 * twice as slow (20 ms a QP and its CQ under TCG, 10 expedited).
	 */
	synchronize_rcu_expedited();
	sim_cq_free(cq);
	return 0;
}

void sim_cq_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_cq *cq, *tmp;
	unsigned long cqn;
	LIST_HEAD(dead);

	xa_for_each(&sim->cqs, cqn, cq) {
		xa_erase(&sim->cqs, cqn);
		sim_pollset_del(&sim->poll_cqs, cq);
		list_add(&cq->dead, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(cq, tmp, &dead, dead)
		sim_cq_free(cq);
}

int sim_cmd_query_cq(struct sim_cmd *c)
{
	void *cqc = MLX5_ADDR_OF(query_cq_out, c->out, cq_context);
	u32 cqn = MLX5_GET(query_cq_in, c->in, cqn);
	struct sim_cq *cq;

	cq = xa_load(&c->sim->cqs, cqn);
	if (!cq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_CQ_NOT_FOUND);
	spin_lock_bh(&cq->lock);
	MLX5_SET(cqc, cqc, status, cq->overrun ? SIM_CQ_STATUS_OVERFLOW : 0);
	MLX5_SET(cqc, cqc, cqe_sz, SIM_CQE_SZ_64);
	MLX5_SET(cqc, cqc, oi, cq->oi);
	MLX5_SET(cqc, cqc, page_offset, cq->buf.page_offset);
	MLX5_SET(cqc, cqc, log_cq_size, cq->log_size);
	MLX5_SET(cqc, cqc, uar_page, cq->uar);
	MLX5_SET(cqc, cqc, cq_period, cq->cq_period);
	MLX5_SET(cqc, cqc, cq_max_count, cq->cq_max_count);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, cq->eqn);
	MLX5_SET(cqc, cqc, log_page_size, cq->buf.log_page_size);
	MLX5_SET(cqc, cqc, consumer_counter,
		 be32_to_cpu(READ_ONCE(cq->dbr[0])) & 0xffffff);
	MLX5_SET(cqc, cqc, producer_counter, cq->pi & 0xffffff);
	MLX5_SET64(cqc, cqc, dbr_addr, cq->dbr_addr);
	spin_unlock_bh(&cq->lock);
	return 0;
}

static int sim_cq_moderate(struct sim_cmd *c, struct sim_cq *cq,
			   const void *cqc)
{
	const void *fs = MLX5_ADDR_OF(modify_cq_in, c->in,
				      modify_field_select_resize_field_select);
	u32 sel = MLX5_GET(modify_field_select, fs, modify_field_select);

	spin_lock_bh(&cq->lock);
	if (sel & MLX5_CQ_MODIFY_PERIOD)
		cq->cq_period = MLX5_GET(cqc, cqc, cq_period);
	if (sel & MLX5_CQ_MODIFY_COUNT)
		cq->cq_max_count = MLX5_GET(cqc, cqc, cq_max_count);
	if (sel & MLX5_CQ_MODIFY_OVERRUN)
		cq->oi = MLX5_GET(cqc, cqc, oi);
	spin_unlock_bh(&cq->lock);
	return 0;
}

/*
 * Resize: a RESIZE_CQ CQE ends the old buffer (software copies what is
 * before it), the next CQE goes to the new buffer at the next counter.
 */
static int sim_cq_resize(struct sim_cmd *c, struct sim_cq *cq,
			 const void *cqc)
{
	u32 max_pas = (c->inlen - MLX5_ST_SZ_BYTES(modify_cq_in)) /
		      sizeof(__be64);
	struct sim_cqe_info ci = { .opcode = MLX5_CQE_RESIZE_CQ };
	struct sim_buf nbuf, obuf;
	struct mlx5_cqe64 tmp, *cqe;
	u8 log_size;
	u32 cons;
	int err;

	log_size = MLX5_GET(cqc, cqc, log_cq_size);
	if (log_size > SIM_CAP_GEN(c->sim, log_max_cq_sz))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_LOG_SIZE);
	err = sim_buf_init(c, &nbuf, MLX5_ADDR_OF(modify_cq_in, c->in, pas),
			   max_pas, MLX5_GET(cqc, cqc, log_page_size),
			   MLX5_GET(cqc, cqc, page_offset),
			   (u64)BIT(log_size) * SIM_CQE_SIZE);
	if (err)
		return err;

	spin_lock_bh(&cq->lock);
	cons = be32_to_cpu(READ_ONCE(cq->dbr[0])) & 0xffffff;
	if (((cq->pi - cons) & 0xffffff) + 1 > BIT(log_size) ||
	    ((cq->pi - cons) & 0xffffff) >= cq->nent) {
		spin_unlock_bh(&cq->lock);
		sim_buf_free(&nbuf);
		return sim_fail(c, MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR,
				MLX5SP_SIM_SYND_CQ_RESIZE_TOO_SMALL);
	}
	sim_cqe_encode(&tmp, &ci, cq->pi, cq->log_size);
	cqe = sim_buf_at(&cq->buf, (u64)(cq->pi & (cq->nent - 1)) *
			 SIM_CQE_SIZE);
	memcpy(cqe, &tmp, offsetof(struct mlx5_cqe64, op_own));
	dma_wmb();
	WRITE_ONCE(cqe->op_own, tmp.op_own);
	cq->pi++;
	obuf = cq->buf;
	cq->buf = nbuf;
	cq->log_size = log_size;
	cq->nent = BIT(log_size);
	spin_unlock_bh(&cq->lock);

	/* no writer still holds the old buffer's pages */
	synchronize_rcu_expedited();
	sim_buf_free(&obuf);
	return 0;
}

int sim_cmd_modify_cq(struct sim_cmd *c)
{
	const void *cqc = MLX5_ADDR_OF(modify_cq_in, c->in, cq_context);
	u32 cqn = MLX5_GET(modify_cq_in, c->in, cqn);
	struct sim_cq *cq;

	if (MLX5_GET(modify_cq_in, c->in, cq_umem_valid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_UNSUPPORTED);
	cq = xa_load(&c->sim->cqs, cqn);
	if (!cq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_CQ_NOT_FOUND);
	switch (c->op_mod) {
	case MLX5_MODIFY_CQ_IN_OP_MOD_MODIFY_CQ:
		return sim_cq_moderate(c, cq, cqc);
	case MLX5_MODIFY_CQ_IN_OP_MOD_RESIZE_CQ:
		return sim_cq_resize(c, cq, cqc);
	default:
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_CQ_BAD_MODIFY);
	}
}

#define SIM_CQ_DB_PENDING	BIT_ULL(32)

/*
 * A CQ doorbell written through the BAR (the driver's write64 at UAR +
 * 0x20): [be32 sn|cmd|ci][be32 cqn]. A card takes each such write for its
 * CQ, so it is kept with the CQ for the engine, not in the UAR page's one
 * slot, where the next CQ's arm would overwrite it: an arm whose record
 * did not change (the first one, 0) would be lost and the CQ never fire.
 * Any context.
 */
void sim_cq_doorbell(struct mlx5sp_sim *sim, u32 uar, u64 val)
{
	bool taken = false;
	struct sim_cq *cq;
	__be32 w[2];

	memcpy(w, &val, sizeof(w));
	rcu_read_lock();
	cq = xa_load(&sim->cqs, be32_to_cpu(w[1]) & 0xffffff);
	if (cq && cq->uar == uar) {
		WRITE_ONCE(cq->db_arm, SIM_CQ_DB_PENDING | be32_to_cpu(w[0]));
		taken = true;
	}
	rcu_read_unlock();
	if (!taken) {
		sim_stat_inc(sim, writes_ignored);
		sim_dbg(sim, "CQ doorbell 0x%llx on UAR %u ignored\n", val, uar);
		return;
	}
	sim_engine_kick(sim);
}

/*
 * The engine's look at a CQ's doorbell and arm record (user space arms by
 * writing the record and a UAR doorbell the model does not see). Returns
 * true if it armed.
 */
bool sim_cq_poll_arm(struct sim_cq *cq)
{
	u64 db = READ_ONCE(cq->db_arm) ? xchg(&cq->db_arm, 0) : 0;
	u32 arm = be32_to_cpu(READ_ONCE(cq->dbr[1]));

	if (db) {
		/* the record was written before the doorbell */
		WRITE_ONCE(cq->last_arm, arm);
		sim_cq_arm(cq, lower_32_bits(db));
		return true;
	}
	if (arm == READ_ONCE(cq->last_arm))
		return false;
	WRITE_ONCE(cq->last_arm, arm);
	sim_cq_arm(cq, arm);
	return true;
}
