// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The CQE writer: 64-byte CQEs (cqe_version 1: user_index in srqn_uidx),
 * the owner bit of pass (index >> log_cq_size) & 1 written last, CQ
 * overrun as a CQ error event, and completion EQEs when the CQ is armed
 * (any CQE, or solicited and error CQEs only).
 */

#include <kunit/visibility.h>

#include "buf.h"
#include "cq.h"
#include "eq.h"
#include "sig.h"
#include "sim.h"

#define SIM_CQE_SIZE		64
#define SIM_CQ_CI_MASK		0xffffff
#define SIM_CQ_ARM_SOL		BIT(24)	/* MLX5_CQ_DB_REQ_NOT_SOL */
#define SIM_CQ_ERR_OVERRUN	0x1	/* CQ error EQE syndrome */

static bool sim_cqe_is_error(u8 opcode)
{
	return opcode == MLX5_CQE_REQ_ERR || opcode == MLX5_CQE_RESP_ERR;
}

/* Build CQE @index of a CQ of 2^@log_size entries; op_own included. */
void sim_cqe_encode(struct mlx5_cqe64 *cqe, const struct sim_cqe_info *ci,
		    u32 index, u8 log_size)
{
	struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)cqe;

	/* signature engine (sig.c): the SIGERR CQE has a layout of its own */
	if (ci->opcode == MLX5_CQE_SIG_ERR && ci->sig_err) {
		sim_sig_err_cqe_encode(cqe, ci->sig_err, ci->sig_mkey, ci->qpn,
				       index, log_size);
		return;
	}
	memset(cqe, 0, sizeof(*cqe));
	cqe->srqn = cpu_to_be32(ci->user_index & 0xffffff);
	cqe->wqe_counter = cpu_to_be16(ci->wqe_counter);
	if (sim_cqe_is_error(ci->opcode)) {
		err->syndrome = ci->syndrome;
		err->s_wqe_opcode_qpn = cpu_to_be32((u32)ci->wqe_opcode << 24 |
						    (ci->qpn & 0xffffff));
	} else {
		cqe->sop_drop_qpn = cpu_to_be32((u32)ci->wqe_opcode << 24 |
						(ci->qpn & 0xffffff));
		cqe->byte_cnt = cpu_to_be32(ci->byte_cnt);
		cqe->immediate = ci->imm;
		cqe->flags_rqpn = cpu_to_be32(ci->flags_rqpn);
		cqe->l4_l3_hdr_type = ci->l4_l3_hdr_type;
		cqe->hds_ip_ext = ci->hds_ip_ext;
		if (ci->vlan) {
			/* bit 0: a VLAN tag was stripped, vlan_info holds it */
			cqe->l4_l3_hdr_type |= 1;
			cqe->vlan_info = cpu_to_be16(ci->vlan_info);
		}
	}
	cqe->op_own = ci->opcode << 4 | ((index >> log_size) & 1);
}
EXPORT_SYMBOL_IF_KUNIT(sim_cqe_encode);

/* Fire the completion event: eq and cqn read under the CQ lock. */
static void sim_cq_fire(struct mlx5sp_sim *sim, u32 eqn, u32 cqn)
{
	union ev_data data = {};

	data.comp.cqn = cpu_to_be32(cqn & 0xffffff);
	if (sim_eq_post_to(sim, eqn, MLX5_EVENT_TYPE_COMP, &data))
		atomic64_inc(&sim->estats.eqes_comp);
}

static void sim_cq_overrun(struct sim_cq *cq)
{
	union ev_data data = {};

	atomic64_inc(&cq->sim->estats.cq_overruns);
	sim_err(cq->sim, "CQ 0x%x overrun\n", cq->cqn);
	data.cq_err.cqn = cpu_to_be32(cq->cqn & 0xffffff);
	data.cq_err.syndrome = SIM_CQ_ERR_OVERRUN;
	sim_eq_post(cq->sim, MLX5_EVENT_TYPE_CQ_ERROR, 0, &data);
}

/* Is there a free slot? Under cq->lock. */
static bool sim_cq_room(struct sim_cq *cq)
{
	u32 cons = be32_to_cpu(READ_ONCE(cq->dbr[0])) & SIM_CQ_CI_MASK;

	return cq->oi || ((cq->pi - cons) & SIM_CQ_CI_MASK) < cq->nent;
}

/* @tmp (encoded for slot pi) into the next slot. Under cq->lock. */
static void sim_cqe_put(struct sim_cq *cq, const struct mlx5_cqe64 *tmp)
{
	struct mlx5_cqe64 *cqe;

	cqe = sim_buf_at(&cq->buf, (u64)(cq->pi & (cq->nent - 1)) *
			 SIM_CQE_SIZE);
	memcpy(cqe, tmp, offsetof(struct mlx5_cqe64, op_own));
	/* the CQE is visible before its owner bit hands it over */
	dma_wmb();
	WRITE_ONCE(cqe->op_own, tmp->op_own);
	cq->pi++;
}

/*
 * Write one CQE. Returns false when the CQ is full (overrun: the CQE is
 * lost and the CQ stops) or already in error.
 */
bool sim_cqe_write(struct sim_cq *cq, const struct sim_cqe_info *ci)
{
	bool fire = false, overrun = false, written = false;
	enum sim_cqe_fate fate = SIM_CQE_WRITE;
	struct mlx5_cqe64 tmp;
	u32 eqn = 0;

	spin_lock_bh(&cq->lock);
	if (cq->overrun)
		goto unlock;
	if (!sim_cq_room(cq)) {
		cq->overrun = true;
		overrun = true;
		goto unlock;
	}
	sim_cqe_encode(&tmp, ci, cq->pi, cq->log_size);
	if (unlikely(atomic_read(&cq->sim->inject.hostile_cqes) ||
		     atomic_read(&cq->sim->inject.stale_cqes)))
		fate = sim_hostile_cqe(cq->sim, &tmp);
	/* a lost CQE is one the device believes written: it arms, counts */
	if (fate != SIM_CQE_LOST)
		sim_cqe_put(cq, &tmp);
	written = true;
	if (fate == SIM_CQE_TWICE && sim_cq_room(cq)) {
		/* the same CQE, its owner bit the next slot's */
		sim_cqe_encode(&tmp, ci, cq->pi, cq->log_size);
		sim_cqe_put(cq, &tmp);
	}

	if (cq->arm == SIM_CQ_ARMED_ANY ||
	    (cq->arm == SIM_CQ_ARMED_SOL &&
	     (ci->solicited || sim_cqe_is_error(ci->opcode)))) {
		cq->arm = SIM_CQ_DISARMED;
		fire = true;
		eqn = cq->eqn;
	}
unlock:
	spin_unlock_bh(&cq->lock);

	if (written)
		atomic64_inc(&cq->sim->estats.cqes);
	if (overrun)
		sim_cq_overrun(cq);
	if (fire)
		sim_cq_fire(cq->sim, eqn, cq->cqn);
	return written;
}

/*
 * An arm doorbell: sn << 28 | cmd | consumer counter. Arming with CQEs
 * beyond that counter fires at once.
 */
void sim_cq_arm(struct sim_cq *cq, u32 arm)
{
	u32 ci = arm & SIM_CQ_CI_MASK, eqn = 0;
	bool fire = false;

	spin_lock_bh(&cq->lock);
	cq->arm_sn = arm >> 28;
	cq->arm = (arm & SIM_CQ_ARM_SOL) ? SIM_CQ_ARMED_SOL : SIM_CQ_ARMED_ANY;
	if (cq->arm == SIM_CQ_ARMED_ANY && !cq->overrun &&
	    ((cq->pi - ci) & SIM_CQ_CI_MASK)) {
		cq->arm = SIM_CQ_DISARMED;
		fire = true;
		eqn = cq->eqn;
	}
	spin_unlock_bh(&cq->lock);
	if (fire)
		sim_cq_fire(cq->sim, eqn, cq->cqn);
}
