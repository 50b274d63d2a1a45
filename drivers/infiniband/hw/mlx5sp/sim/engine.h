/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The engine of the software ConnectX (engine.c): the thread that runs
 * the data path, what it polls (pollset.c) and its counters.
 */
#ifndef MLX5SP_SIM_ENGINE_H
#define MLX5SP_SIM_ENGINE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "mlx5sp_sim.h"
#include "sgl.h"

struct mlx5sp_sim;
struct sim_qp;
struct task_struct;

/* Data path counters, updated without locks. */
struct sim_engine_stats {
	atomic64_t wqes;
	atomic64_t cqes;
	atomic64_t cq_overruns;
	atomic64_t eqes_comp;
	atomic64_t polls;
	atomic64_t kicks;
	atomic64_t sleeps;
	atomic64_t uar_traps;
	atomic64_t uar_touches;
	atomic64_t uar_stores;
	atomic64_t inline_runs;
	atomic64_t uar_idle_touches;
	atomic64_t rnr_naks;
	atomic64_t retries;
	atomic64_t flushed;
	atomic64_t ud_dropped;
	atomic64_t bytes;
	atomic64_t err_synd[MLX5SP_SIM_NR_CQE_SYND];
};

/* pollset.c: objects the engine polls; changed under fw_lock, read RCU */
struct sim_pollset_arr;
struct sim_pollset {
	struct sim_pollset_arr __rcu *arr;
	unsigned int n;			/* entries; read with acquire */
};

void sim_pollset_init(struct sim_pollset *ps);
void sim_pollset_destroy(struct sim_pollset *ps);
int sim_pollset_add(struct sim_pollset *ps, void *obj);
void sim_pollset_del(struct sim_pollset *ps, void *obj);
void *sim_pollset_at(struct sim_pollset *ps, unsigned int i);

static inline unsigned int sim_pollset_len(const struct sim_pollset *ps)
{
	return READ_ONCE(ps->n);
}

struct sim_engine {
	struct task_struct *task;
	atomic_t kicked;		/* a doorbell since the last pass */
	atomic_t uar_touched;		/* a user UAR access since the trap */
	bool uar_armed;			/* user UAR accesses will be told */
	u64 next_due;			/* earliest QP timer of the last pass */
	u64 uar_touch_ns;		/* when the last one was */
	u64 rearm_ns;			/* from the last one to the trap */
	/* the last one (sim_uar_touch), read after uar_touched */
	u32 touch_uar;
	u32 touch_off;			/* of its store; or a read */
	/* the engine's copy: the store it waits for before the trap */
	u32 wait_uar;
	u32 wait_off;
	u32 sleep_us;
	struct sim_sgl lsgl;		/* scratch of the executing WQE */
	u8 wqe[1024];			/* a UMR WQE, unwrapped (max_wqe_sz_sq) */
	struct sim_sgl rsgl;
	u8 *wire;			/* SIM_WIRE_BUF: signature transfers */
	struct sim_sig_log sig_log;	/* of the executing WQE */
	/*
	 * The QP whose responder holds an ACK back for the frames still in
	 * the receive batch (wire_resp.c); valid under the batch's
	 * rcu_read_lock(), NULL outside a batch.
	 */
	struct sim_qp *ack_qp;
	/*
	 * sim->engine's only: a QP that work outside the engine left
	 * waiting for a time (sim_sq_answer()) wakes it then.
	 */
	spinlock_t due_lock;		/* protects due_timer's expiry */
	struct hrtimer due_timer;
};

/* engine.c */
int sim_engine_start(struct mlx5sp_sim *sim);
void sim_engine_stop(struct mlx5sp_sim *sim);
void sim_engine_kick(struct mlx5sp_sim *sim);
void sim_engine_due(struct mlx5sp_sim *sim, u64 due);

/* An error CQE of @syndrome, counted (the engine's stats, by syndrome). */
static inline void sim_engine_count_err(struct sim_engine_stats *st,
					u8 syndrome)
{
	atomic64_inc(&st->err_synd[min_t(u8, syndrome,
					 MLX5SP_SIM_NR_CQE_SYND - 1)]);
}

#endif /* MLX5SP_SIM_ENGINE_H */
