// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Fault injection and statistics of the software ConnectX: the exported C
 * API the KUnit suites use; debugfs.c offers the same to the shell.
 */

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "bar.h"
#include "cq.h"
#include "engine.h"
#include "eq.h"
#include "fault.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "pages.h"
#include "sim.h"

void mlx5sp_sim_fail_cmd(struct mlx5sp_sim *sim, u16 opcode, u8 status,
			 u32 syndrome, u32 count)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->inject.lock, flags);
	sim->inject.cmd.fail_opcode = opcode;
	sim->inject.cmd.fail_status = status;
	sim->inject.cmd.fail_syndrome = syndrome;
	sim->inject.cmd.fail_count = count;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_fail_cmd);

void mlx5sp_sim_delay_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 delay_ms,
			  u32 count)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->inject.lock, flags);
	sim->inject.cmd.delay_opcode = opcode;
	sim->inject.cmd.delay_ms = delay_ms;
	sim->inject.cmd.delay_count = count;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_delay_cmd);

void mlx5sp_sim_garble_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 nth,
			   u32 seed)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->inject.lock, flags);
	sim->inject.cmd.garble_opcode = opcode;
	sim->inject.cmd.garble_nth = nth;
	sim->inject.cmd.garble_seed = seed;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_garble_cmd);

void mlx5sp_sim_lie_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 nth, u16 dw,
			__be32 val)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->inject.lock, flags);
	sim->inject.cmd.lie_opcode = opcode;
	sim->inject.cmd.lie_nth = nth;
	sim->inject.cmd.lie_dw = dw;
	sim->inject.cmd.lie_val = val;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_lie_cmd);

/*
 * A command that ran answers garbage: every byte after its status and
 * syndrome random (seeded, so a failure replays), or one dword of it a
 * lie, as firmware with a corrupted mailbox or a bug would. What it did
 * stands: a created object exists under the number the garbage hides.
 */
void sim_fault_garble(struct mlx5sp_sim *sim, u16 opcode, void *out,
		      u32 outlen)
{
	struct sim_fault *f = &sim->inject.cmd;
	struct rnd_state rnd;
	unsigned long flags;
	bool hit = false;
	__be32 lie = 0;
	u32 seed = 0;
	u16 dw = 0;

	spin_lock_irqsave(&sim->inject.lock, flags);
	if (f->garble_nth && f->garble_opcode == opcode && !--f->garble_nth) {
		hit = true;
		seed = f->garble_seed;
	}
	if (f->lie_nth && f->lie_opcode == opcode && !--f->lie_nth) {
		dw = f->lie_dw;
		lie = f->lie_val;
	}
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	/* the header (status, syndrome) stays true */
	if (dw >= 2 && (dw + 1) * 4 <= outlen) {
		((__be32 *)out)[dw] = lie;
		sim_stat_inc(sim, cmds_garbled);
	}
	if (!hit || outlen <= 8)
		return;
	prandom_seed_state(&rnd, seed);
	prandom_bytes_state(&rnd, out + 8, outlen - 8);
	sim_stat_inc(sim, cmds_garbled);
}

void mlx5sp_sim_set_health_syndrome(struct mlx5sp_sim *sim, u8 synd)
{
	sim_health_set_fatal(sim, synd);
	/*
	 * A dead device does no more DMA: the engine looks at the fatal
	 * flag inside each of its RCU sections, so after a grace period
	 * the driver may free what the device had.
	 */
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_set_health_syndrome);

void mlx5sp_sim_stop_health_counter(struct mlx5sp_sim *sim, bool stop)
{
	atomic_set(&sim->health.stopped, stop);
	/* hung firmware does no DMA either: see set_health_syndrome */
	synchronize_rcu();
	if (!stop)
		sim_engine_kick(sim);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_stop_health_counter);

int mlx5sp_sim_page_storm(struct mlx5sp_sim *sim, u32 events, s32 pages)
{
	return sim_pages_storm(sim, events, pages);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_page_storm);

void mlx5sp_sim_hostile_cqes(struct mlx5sp_sim *sim, u32 count, u32 qpn)
{
	WRITE_ONCE(sim->inject.hostile_qpn, qpn & 0xffffff);
	atomic_set(&sim->inject.hostile_cqes, count);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_hostile_cqes);

void mlx5sp_sim_stale_cqes(struct mlx5sp_sim *sim, u32 count)
{
	atomic_set(&sim->inject.stale_cqes, count);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_stale_cqes);

void mlx5sp_sim_stale_eqes(struct mlx5sp_sim *sim, u32 count)
{
	atomic_set(&sim->inject.stale_eqes, count);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_stale_eqes);

/* Numbers of live objects of one table, a random sample of them. */
#define SIM_HOSTILE_SAMPLE	32

struct sim_hostile_ids {
	u32 n;
	u32 id[SIM_HOSTILE_SAMPLE];
	u32 eqn[SIM_HOSTILE_SAMPLE];	/* CQs: the EQ of their completions */
};

/* Reservoir sampling over @xa (RCU): every object as likely as another. */
static void sim_hostile_sample(struct xarray *xa, struct sim_hostile_ids *ids,
			       struct rnd_state *rnd, bool cqs)
{
	unsigned long idx;
	u32 seen = 0, k;
	void *e;

	ids->n = 0;
	rcu_read_lock();
	xa_for_each(xa, idx, e) {
		if (xa_is_value(e))
			continue;
		k = seen < SIM_HOSTILE_SAMPLE ? seen :
			prandom_u32_state(rnd) % (seen + 1);
		seen++;
		if (k >= SIM_HOSTILE_SAMPLE)
			continue;
		ids->id[k] = idx;
		ids->eqn[k] = cqs ? READ_ONCE(((struct sim_cq *)e)->eqn) : 0;
	}
	rcu_read_unlock();
	ids->n = min(seen, SIM_HOSTILE_SAMPLE);
}

/* A number out of @ids, or now and then one nobody has. */
static u32 sim_hostile_pick(struct sim_hostile_ids *ids,
			    struct rnd_state *rnd, u32 *eqn)
{
	u32 k;

	if (!ids->n || !(prandom_u32_state(rnd) % 8)) {
		*eqn = SIM_MAX_EQS;
		return prandom_u32_state(rnd) & 0xffffff;
	}
	k = prandom_u32_state(rnd) % ids->n;
	*eqn = ids->eqn[k];
	return ids->id[k];
}

static const u8 sim_hostile_qp_events[] = {
	MLX5_EVENT_TYPE_PATH_MIG, MLX5_EVENT_TYPE_COMM_EST,
	MLX5_EVENT_TYPE_SQ_DRAINED, MLX5_EVENT_TYPE_SRQ_LAST_WQE,
	MLX5_EVENT_TYPE_WQ_CATAS_ERROR, MLX5_EVENT_TYPE_PATH_MIG_FAILED,
	MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR, MLX5_EVENT_TYPE_WQ_ACCESS_ERROR,
};

/*
 * @count EQEs no firmware meant, naming objects that live now (numbers
 * sampled from the model's own tables, an eighth of them random):
 * completions and errors of CQs (a completion to its CQ's EQ, as a
 * card writes it), QP and SRQ events, command completions for any
 * slots, page requests of a few pages either way, types no PRM has.
 * Seeded (@seed), so a run that fails replays. Returns how many were
 * written.
 */
u32 mlx5sp_sim_hostile_eqes(struct mlx5sp_sim *sim, u32 count, u32 seed)
{
	struct sim_hostile_ids *cqs, *qps, *srqs;
	struct rnd_state rnd;
	union ev_data d;
	u32 i, k, eqn, written = 0;
	bool ok;
	u8 type;

	cqs = kmalloc_array(3, sizeof(*cqs), GFP_KERNEL);
	if (!cqs)
		return 0;
	qps = cqs + 1;
	srqs = cqs + 2;
	prandom_seed_state(&rnd, seed);
	sim_hostile_sample(&sim->cqs, cqs, &rnd, true);
	sim_hostile_sample(&sim->qps, qps, &rnd, false);
	sim_hostile_sample(&sim->srqs, srqs, &rnd, false);
	for (i = 0; i < count; i++) {
		memset(&d, 0, sizeof(d));
		switch ((k = prandom_u32_state(&rnd) % 8)) {
		case 0:
		case 1:
			d.comp.cqn = cpu_to_be32(sim_hostile_pick(cqs, &rnd,
								  &eqn));
			ok = sim_eq_post_to(sim, eqn < SIM_MAX_EQS ? eqn :
					    sim_eq_async_eqn(sim),
					    MLX5_EVENT_TYPE_COMP, &d);
			break;
		case 2:
			d.cq_err.cqn = cpu_to_be32(sim_hostile_pick(cqs, &rnd,
								    &eqn));
			d.cq_err.syndrome = prandom_u32_state(&rnd);
			ok = sim_eq_post(sim, MLX5_EVENT_TYPE_CQ_ERROR, 0, &d);
			break;
		case 3:
		case 4:
		case 5:
			/* events of QPs (3, 4) and of SRQs (5) */
			if (k == 5) {
				type = prandom_u32_state(&rnd) & 1 ?
				       MLX5_EVENT_TYPE_SRQ_RQ_LIMIT :
				       MLX5_EVENT_TYPE_SRQ_CATAS_ERROR;
				d.qp_srq.type = MLX5SP_EVENT_QUEUE_TYPE_SRQ;
			} else {
				type = sim_hostile_qp_events[prandom_u32_state(&rnd) %
						ARRAY_SIZE(sim_hostile_qp_events)];
				d.qp_srq.type = MLX5_EVENT_QUEUE_TYPE_QP;
			}
			d.qp_srq.qp_srq_n = cpu_to_be32(sim_hostile_pick(k == 5 ?
							srqs : qps, &rnd, &eqn));
			ok = sim_eq_post(sim, type, 0, &d);
			break;
		case 6:
			/* any slots, busy or not: the driver reads their bits */
			d.cmd.vector = cpu_to_be32(prandom_u32_state(&rnd));
			ok = sim_eq_post(sim, MLX5_EVENT_TYPE_CMD, 0, &d);
			break;
		default:
			if (prandom_u32_state(&rnd) & 1) {
				d.req_pages.num_pages =
					cpu_to_be32((s32)(prandom_u32_state(&rnd) %
							  17) - 8);
				ok = sim_eq_post(sim,
						 MLX5_EVENT_TYPE_PAGE_REQUEST,
						 0, &d);
				break;
			}
			prandom_bytes_state(&rnd, &d, sizeof(d));
			/* 0x05, 0x1f: no event type of the PRM */
			ok = sim_eq_post_to(sim, sim_eq_async_eqn(sim),
					    prandom_u32_state(&rnd) & 1 ?
					    0x05 : 0x1f, &d);
			break;
		}
		written += ok;
	}
	kfree(cqs);
	sim_stat_add(sim, eqes_hostile, written);
	return written;
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_hostile_eqes);

/*
 * Corrupts @cqe (encoded, owner bit set) as mlx5sp_sim_hostile_cqes says,
 * or has it written twice or not at all; or leaves its owner bit the
 * last lap's (mlx5sp_sim_stale_cqes).
 */
enum sim_cqe_fate sim_hostile_cqe(struct mlx5sp_sim *sim,
				  struct mlx5_cqe64 *cqe)
{
	int left;
	u32 qpn;

	if (atomic_dec_if_positive(&sim->inject.stale_cqes) >= 0) {
		cqe->op_own ^= MLX5_CQE_OWNER_MASK;
		sim_err(sim, "hostile: CQE left with the last lap's owner bit\n");
		return SIM_CQE_WRITE;
	}
	left = atomic_dec_if_positive(&sim->inject.hostile_cqes);
	if (left < 0)
		return SIM_CQE_WRITE;
	switch (left % 6) {
	case 0:
	case 1:
		qpn = left % 4 ? get_random_u32() & 0xffffff :
				 READ_ONCE(sim->inject.hostile_qpn);
		cqe->sop_drop_qpn = cpu_to_be32((be32_to_cpu(cqe->sop_drop_qpn) &
						 0xff000000) | qpn);
		break;
	case 2:
		/* 0x6..0xb are no CQE opcode of the PRM */
		cqe->op_own = (6 + get_random_u32_below(6)) << 4 |
			      (cqe->op_own & 0xf);
		break;
	case 3:
		cqe->wqe_counter = cpu_to_be16(get_random_u16());
		break;
	case 4:
		sim_err(sim, "hostile: CQE written twice (%d more)\n", left);
		return SIM_CQE_TWICE;
	default:
		sim_err(sim, "hostile: CQE lost (%d more)\n", left);
		return SIM_CQE_LOST;
	}
	sim_err(sim, "hostile: CQE corrupted (%d more)\n", left);
	return SIM_CQE_WRITE;
}

/* A type no EQ asked for goes where the port's events go: the async EQ. */
bool mlx5sp_sim_post_eqe(struct mlx5sp_sim *sim, u8 type, u8 sub_type,
			 const void *data, size_t len)
{
	union ev_data d = {};

	memcpy(&d, data, min(len, sizeof(d)));
	if (sim_eq_subscribed(sim, type))
		return sim_eq_post(sim, type, sub_type, &d);
	return sim_eq_post_to(sim, sim_eq_async_eqn(sim), type, &d);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_post_eqe);

static void sim_engine_stats(struct mlx5sp_sim *sim,
			     struct mlx5sp_sim_stats *st)
{
	struct sim_engine_stats *e = &sim->estats;
	int i;

	st->wqes_executed = atomic64_read(&e->wqes);
	st->cqes_written = atomic64_read(&e->cqes);
	st->cq_overruns = atomic64_read(&e->cq_overruns);
	st->comp_eqes = atomic64_read(&e->eqes_comp);
	st->doorbell_polls = atomic64_read(&e->polls);
	st->kicks = atomic64_read(&e->kicks);
	st->engine_sleeps = atomic64_read(&e->sleeps);
	st->uar_traps = atomic64_read(&e->uar_traps);
	st->uar_touches = atomic64_read(&e->uar_touches);
	st->uar_stores = atomic64_read(&e->uar_stores);
	st->inline_runs = atomic64_read(&e->inline_runs);
	st->uar_idle_touches = atomic64_read(&e->uar_idle_touches);
	st->uar_rearm_us = div_u64(READ_ONCE(sim->engine.rearm_ns),
				   NSEC_PER_USEC);
	st->rnr_naks = atomic64_read(&e->rnr_naks);
	st->retries = atomic64_read(&e->retries);
	st->wqes_flushed = atomic64_read(&e->flushed);
	st->ud_dropped = atomic64_read(&e->ud_dropped);
	st->bytes = atomic64_read(&e->bytes);
	for (i = 0; i < MLX5SP_SIM_NR_CQE_SYND; i++)
		st->cqe_errors[i] = atomic64_read(&e->err_synd[i]);
}

void mlx5sp_sim_get_stats(struct mlx5sp_sim *sim, struct mlx5sp_sim_stats *st)
{
	unsigned long flags;

	mutex_lock(&sim->fw_lock);
	spin_lock_irqsave(&sim->stats_lock, flags);
	*st = sim->stats;
	spin_unlock_irqrestore(&sim->stats_lock, flags);
	st->pages_held = sim->pages.count;
	st->boot_pages_outstanding = sim_pages_boot_needed(sim);
	st->init_pages_outstanding = sim_pages_init_needed(sim);
	st->regular_pages_outstanding = sim_pages_regular_needed(sim);
	mutex_unlock(&sim->fw_lock);
	sim_engine_stats(sim, st);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_get_stats);
