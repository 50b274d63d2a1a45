// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The engine of a model device: one kthread that finds work and runs it.
 * Kernel doorbells (BAR writes) and commands kick it awake; user space
 * doorbells are stores to memory, so each pass reads the doorbell records
 * of every QP that can move (send counter of RTS QPs, both counters of ERR
 * QPs to flush) and of every CQ (arm), and the CQ doorbell of every UAR
 * page. What it must come back to unkicked makes a pass "pollable": a QP
 * or CQ on a UAR mapped to user space (SIM_POLL_USER), a QP in ERR (a
 * kernel post_recv there rings no doorbell, yet is flushed) and a QP
 * waiting for a time (RNR, retransmission, ACKs). Kernel-only work
 * (ULPs) has none of these in the steady state: the engine sleeps until
 * kicked and runs a pass right after one that worked, giving the CPU up
 * only while passes keep working.
 * User doorbells are trapped when the engine goes idle (after a poll of
 * up to SIM_SPIN_NS while it has its CPU to itself): it has the
 * driver take every user mapping of its UAR pages down
 * (mlx5sp_model_uar_trap()), runs one more pass (for a doorbell written
 * before), and the next user access faults and kicks it (sim_uar_touch())
 * as a BAR write would: no polling for them, and no CPU taken from
 * applications busy-polling their CQs.
 * A QP waiting for a time (SIM_POLL_TIMED: a timer runs, or it waits for
 * ACKs or responses, which the receive softirq takes, kicking for what it
 * leaves) does not keep it polling either: it sleeps until the first
 * timer is due or a kick.
 * Much of the work never reaches it: a process's send doorbell runs its
 * QP in the process (sim_sq_doorbell()), frames run in the receive
 * softirq (net.c), and what they leave waiting for a time arms a timer
 * that kicks (sim_engine_due()).
 * With something else pollable (a QP in ERR, a trap that cannot be set),
 * while passes find work it runs on. Idle,
 * it first spins for a while, but only while it has its CPU to itself: an
 * application busy-polling its CQ on the same CPU gets the CPU at once.
 * Then it polls every few microseconds for a few ms (sleeping in between),
 * then backs off, doubling the sleep up to a few ms, and with nothing to
 * poll it sleeps until kicked. It is a low-priority SCHED_FIFO thread, so
 * a busy-polling application on another CPU does not delay it by a time
 * slice.
 */

#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>

#include "bar.h"
#include "cq.h"
#include "engine.h"
#include "eth_wq.h"
#include "host.h"
#include "mlx5sp_prm.h"
#include "qp.h"
#include "sgl.h"
#include "sim.h"

/* why a pass must be followed by another one unkicked */
#define SIM_POLL_USER		BIT(0)	/* doorbells of a user UAR */
#define SIM_POLL_OTHER		BIT(1)	/* ERR flushes, poll_kernel */
#define SIM_POLL_TIMED		BIT(2)	/* QP timers: until next_due */

#define SIM_SPIN_NS		(1 * NSEC_PER_MSEC)	/* spin after work */
#define SIM_FAST_NS		(5 * NSEC_PER_MSEC)	/* then poll fast */
#define SIM_FAST_SLEEP_US	2
/*
 * Long enough to get off the CPU: a shorter timer expires under TCG
 * before schedule() has switched (seen: 2 us timers firing while the
 * engine was still current, the application on its CPU starved while
 * the engine polled for its doorbell store), and a real-time thread that
 * is woken before it blocks keeps its CPU.
 */
#define SIM_YIELD_US		50
#define SIM_MIN_SLEEP_US	10			/* then back off */
#define SIM_MAX_SLEEP_US	2000
/*
 * After a user access the trap is set again only once the store that
 * faulted has landed (sim_uar_store_landed()): the engine, a real-time
 * thread woken by the fault, may run before it on the same CPU, and a
 * store trapped again before it retries faults again (with a fixed 50 us
 * window, 7,805 faults for 200 doorbells on the debug kernel; with one
 * that adapted to the retries, windows of 0.3-3.5 ms in which the next
 * doorbell waited for a poll). A store that never lands (the process
 * killed in between) is waited for this long.
 */
#define SIM_REARM_MAX_NS	(4 * NSEC_PER_MSEC)

/* Any context. */
void sim_engine_kick(struct mlx5sp_sim *sim)
{
	struct task_struct *task;

	atomic64_inc(&sim->estats.kicks);
	atomic_set(&sim->engine.kicked, 1);
	rcu_read_lock();
	task = READ_ONCE(sim->engine.task);
	if (task)
		wake_up_process(task);
	rcu_read_unlock();
}

static enum hrtimer_restart sim_engine_due_fn(struct hrtimer *t)
{
	struct sim_engine *eng = container_of(t, struct sim_engine, due_timer);

	sim_engine_kick(container_of(eng, struct mlx5sp_sim, engine));
	return HRTIMER_NORESTART;
}

/*
 * Wake the engine at @due (ktime ns) at the latest: a QP has a timer
 * (its local ACK timeout, as a rule) that work done outside the engine
 * started. A timer set for earlier stays. Any context.
 */
void sim_engine_due(struct mlx5sp_sim *sim, u64 due)
{
	struct sim_engine *eng = &sim->engine;
	ktime_t at = ns_to_ktime(due);
	unsigned long flags;

	/* sim_engine_stop() cancels the timer a grace period after this */
	rcu_read_lock();
	if (!READ_ONCE(eng->task)) {
		rcu_read_unlock();
		return;
	}
	spin_lock_irqsave(&eng->due_lock, flags);
	if (!hrtimer_is_queued(&eng->due_timer) ||
	    ktime_before(at, hrtimer_get_expires(&eng->due_timer)))
		hrtimer_start_range_ns(&eng->due_timer, at,
				       10 * NSEC_PER_USEC, HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&eng->due_lock, flags);
	rcu_read_unlock();
}

/*
 * The CQ doorbell of a user UAR page (what libmlx5 wrote at UAR + 0x20;
 * the driver's write64 goes to its CQ, cq.c): [be32 sn|cmd|ci][be32 cqn].
 * Taken with an exchange, so a write is seen once.
 */
static bool sim_engine_uar_cq_db(struct mlx5sp_sim *sim, struct page *page)
{
	u64 *slot = page_address(page) + MLX5SP_UAR_CQ_DB;
	__be32 w[2];
	struct sim_cq *cq;
	u64 v;

	v = READ_ONCE(*slot);
	/* a store that faulted here has not landed yet (sim_uar_touch()) */
	if (!v || v == SIM_UAR_UNWRITTEN)
		return false;
	v = xchg(slot, 0);
	memcpy(w, &v, sizeof(w));
	cq = xa_load(&sim->cqs, be32_to_cpu(w[1]) & 0xffffff);
	if (!cq)
		return false;
	WRITE_ONCE(cq->last_arm, be32_to_cpu(READ_ONCE(cq->dbr[1])));
	sim_cq_arm(cq, be32_to_cpu(w[0]));
	return true;
}

/*
 * User space rings doorbells on this UAR (bar.c, sim_uar_page): the
 * engine must come back to what uses it. With debugfs poll_kernel it comes
 * back to everything, as it did before it told the two apart (to compare).
 * Under rcu_read_lock().
 */
static unsigned int sim_engine_user_uar(struct mlx5sp_sim *sim, u32 uar)
{
	if (READ_ONCE(sim->knobs.poll_kernel))
		return SIM_POLL_OTHER;
	return xa_get_mark(&sim->uar_pages, uar, SIM_UAR_MAPPED) ?
	       SIM_POLL_USER : 0;
}

/*
 * An RTS QP waits for a time: an RNR or retransmission timer, or
 * completions for their ACK. Only the engine sets these (a command that
 * does kicks it after), so a look after its pass is current.
 */
static bool sim_engine_qp_timed(struct sim_qp *qp)
{
	return READ_ONCE(qp->ack_n) || READ_ONCE(qp->wait) != SIM_SQ_RUN ||
	       READ_ONCE(qp->wreq.win_n);
}

/* SQD: WQEs on the wire still take their answers, then SQ_DRAINED. */
static bool sim_engine_qp_draining(struct sim_qp *qp)
{
	return READ_ONCE(qp->wreq.win_n) || READ_ONCE(qp->wreq.busy) ||
	       READ_ONCE(qp->sq_drain_pending);
}

static bool sim_engine_poll_cqs(struct mlx5sp_sim *sim, unsigned int *pollable)
{
	struct sim_cq *cq;
	struct page *page;
	bool work = false;
	unsigned int i;

	rcu_read_lock();
	if (sim_engine_halted(sim))
		goto unlock;
	for (i = 0; i < sim_pollset_len(&sim->poll_uars); i++) {
		page = sim_pollset_at(&sim->poll_uars, i);
		if (page)
			work |= sim_engine_uar_cq_db(sim, page);
	}
	for (i = 0; i < sim_pollset_len(&sim->poll_cqs); i++) {
		cq = sim_pollset_at(&sim->poll_cqs, i);
		if (!cq)
			continue;
		/* a kernel CQ arm is a BAR write: it kicks (cq.c) */
		*pollable |= sim_engine_user_uar(sim, cq->uar);
		work |= sim_cq_poll_arm(cq);
	}
unlock:
	rcu_read_unlock();
	return work;
}

/* A QP at a time under RCU: one may take a while (SIM_SQ_BUDGET WQEs). */
static bool sim_engine_poll_qps(struct sim_engine *eng,
				struct mlx5sp_sim *sim, unsigned int *pollable)
{
	struct sim_qp *qp;
	bool work = false;
	unsigned int i;
	u8 state;

	for (i = 0; i < sim_pollset_len(&sim->poll_qps); i++) {
		rcu_read_lock();
		/* a dead device does no more DMA (see set_health_syndrome) */
		if (sim_engine_halted(sim)) {
			rcu_read_unlock();
			break;
		}
		qp = sim_pollset_at(&sim->poll_qps, i);
		state = qp ? READ_ONCE(qp->state) : MLX5_QP_STATE_RST;
		if (state == MLX5_QP_STATE_RTS ||
		    (state == MLX5_QP_STATE_SQD &&
		     sim_engine_qp_draining(qp))) {
			work |= sim_sq_process(eng, qp);
			*pollable |= sim_engine_user_uar(sim, qp->uar);
			if (sim_engine_qp_timed(qp)) {
				*pollable |= SIM_POLL_TIMED;
				eng->next_due = min(eng->next_due,
						    sim_sq_due(qp));
			}
		} else if (state == MLX5_QP_STATE_ERR) {
			*pollable |= SIM_POLL_OTHER;
			work |= sim_sq_flush(qp);
			work |= sim_rq_flush(qp);
		}
		rcu_read_unlock();
	}
	return work;
}

/* One look at everything. Returns true if anything moved. */
static bool sim_engine_pass(struct mlx5sp_sim *sim, unsigned int *pollable)
{
	struct sim_engine *eng = &sim->engine;
	bool work;

	*pollable = 0;
	eng->next_due = U64_MAX;
	/* a dead firmware moves nothing; a kick or destroy wakes us */
	if (sim_engine_halted(sim))
		return false;
	atomic64_inc(&sim->estats.polls);
	work = sim_engine_poll_cqs(sim, pollable);
	work |= sim_engine_poll_qps(eng, sim, pollable);
	/* a cabled port's Ethernet SQs: only kernel doorbells, which kick */
	work |= sim_eth_sq_poll(eng, sim);
	return work;
}

static void sim_engine_idle(struct mlx5sp_sim *sim, u64 idle_since,
			    unsigned int pollable)
{
	struct sim_engine *eng = &sim->engine;
	u64 idle = ktime_get_ns() - idle_since;
	ktime_t delay;

	if (idle < SIM_FAST_NS)
		eng->sleep_us = SIM_FAST_SLEEP_US;
	else
		eng->sleep_us = clamp_t(u32, eng->sleep_us * 2,
					SIM_MIN_SLEEP_US, SIM_MAX_SLEEP_US);
	set_current_state(TASK_INTERRUPTIBLE);
	if (atomic_read(&eng->kicked) || kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	atomic64_inc(&sim->estats.sleeps);
	if (!pollable) {
		schedule();
		return;
	}
	delay = ns_to_ktime((u64)eng->sleep_us * NSEC_PER_USEC);
	schedule_hrtimeout_range(&delay, eng->sleep_us * NSEC_PER_USEC / 2,
				 HRTIMER_MODE_REL);
}

/*
 * A real-time thread still lets in whoever else wants its CPU (the
 * application posting the next WQE, maybe): the polling loop is short, so
 * single_task_running() is current enough. A kick ends the sleep (unlike
 * usleep_range(), which sleeps on to its timer: ~80 us under TCG).
 */
static void sim_engine_share_cpu(struct sim_engine *eng)
{
	ktime_t delay = ns_to_ktime(SIM_YIELD_US * NSEC_PER_USEC);

	if (single_task_running()) {
		cond_resched();
		return;
	}
	set_current_state(TASK_INTERRUPTIBLE);
	if (atomic_read(&eng->kicked) || kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	schedule_hrtimeout_range(&delay, SIM_FAST_SLEEP_US * NSEC_PER_USEC,
				 HRTIMER_MODE_REL);
}

/*
 * Idle with nothing to poll but QP timers: sleep until the first is due
 * (at most SIM_MAX_SLEEP_US), or until a packet, doorbell or command
 * kicks. What a QP on the wire waits for (ACKs, responses) comes in
 * packets, which kick.
 */
static void sim_engine_sleep_until(struct mlx5sp_sim *sim, u64 due, u64 now)
{
	struct sim_engine *eng = &sim->engine;
	u64 ns = min_t(u64, due - now, SIM_MAX_SLEEP_US * NSEC_PER_USEC);
	ktime_t delay = ns_to_ktime(ns);

	set_current_state(TASK_INTERRUPTIBLE);
	if (atomic_read(&eng->kicked) || kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	atomic64_inc(&sim->estats.sleeps);
	schedule_hrtimeout_range(&delay, min_t(u64, ns / 8, 10 * NSEC_PER_USEC),
				 HRTIMER_MODE_REL);
}

/* User doorbells to watch, not trapped: the engine must see them itself. */
static bool sim_engine_watching(struct sim_engine *eng, unsigned int pollable)
{
	return (pollable & SIM_POLL_USER) && !eng->uar_armed;
}

/*
 * Have the next user access told, and count how long after the last one.
 * False if it cannot be (debugfs uar_trap off, the driver detached).
 */
static bool sim_engine_trap(struct mlx5sp_sim *sim, u64 now)
{
	struct sim_engine *eng = &sim->engine;

	if (!READ_ONCE(sim->knobs.uar_trap) || !sim->host->uar_trap(sim))
		return false;
	atomic64_inc(&sim->estats.uar_traps);
	eng->uar_armed = true;
	WRITE_ONCE(eng->rearm_ns, now - eng->uar_touch_ns);
	return true;
}

/*
 * A user access since the trap: which store to wait for. One whose pass
 * finds no work on the page of the one before is, as a rule, that store
 * retried after the trap (a doorbell record is written before the UAR
 * store that faults); counted.
 */
static void sim_engine_touched(struct mlx5sp_sim *sim, bool work, u64 now)
{
	struct sim_engine *eng = &sim->engine;
	u32 uar = READ_ONCE(eng->touch_uar);

	if (!work && uar == eng->wait_uar)
		atomic64_inc(&sim->estats.uar_idle_touches);
	eng->wait_uar = uar;
	eng->wait_off = READ_ONCE(eng->touch_off);
	eng->uar_touch_ns = now;
}

/* May the trap be set again: has the store that faulted landed? */
static bool sim_engine_may_trap(struct mlx5sp_sim *sim, u64 now)
{
	struct sim_engine *eng = &sim->engine;
	bool landed;

	if (now - eng->uar_touch_ns >= SIM_REARM_MAX_NS)
		return true;
	rcu_read_lock();
	landed = sim_uar_store_landed(sim, eng->wait_uar, eng->wait_off);
	rcu_read_unlock();
	return landed;
}

static int sim_engine_thread(void *data)
{
	struct mlx5sp_sim *sim = data;
	struct sim_engine *eng = &sim->engine;
	bool worked = false, work;
	unsigned int pollable;
	u64 idle_since = 0, now, due;
	int touched;

	while (!kthread_should_stop()) {
		/*
		 * Ordered before the pass reads doorbell records: a plain
		 * store could land after a kicker's, who wrote its record
		 * before, and the kick would be lost (x86 orders no store
		 * before a later load).
		 */
		atomic_xchg(&eng->kicked, 0);
		/*
		 * A user access mapped a UAR page again: no longer trapped.
		 * Fully ordered: where it went is read below.
		 */
		touched = atomic_xchg(&eng->uar_touched, 0);
		if (touched)
			eng->uar_armed = false;
		if (!READ_ONCE(sim->knobs.uar_trap))
			eng->uar_armed = false;
		work = sim_engine_pass(sim, &pollable);
		if (touched)
			sim_engine_touched(sim, work, ktime_get_ns());
		if (work) {
			eng->sleep_us = 0;
			idle_since = 0;
			/*
			 * The CPU wanted and user doorbells to watch: trap
			 * them now, and the pass after this one can sleep
			 * until kicked. Sleeping on a timer here would wait
			 * for it while the application's next doorbell goes
			 * unseen, and under TCG, with both vCPUs busy, the
			 * host runs QEMU's timers milliseconds late.
			 */
			now = ktime_get_ns();
			if (sim_engine_watching(eng, pollable) &&
			    !single_task_running() &&
			    sim_engine_may_trap(sim, now) &&
			    sim_engine_trap(sim, now)) {
				worked = true;
				continue;
			}
			/*
			 * Kicked work: the next pass comes at once, and finds
			 * nothing more often than not, then sleeps.
			 */
			if (pollable || worked)
				sim_engine_share_cpu(eng);
			worked = true;
			continue;
		}
		worked = false;
		if (atomic_read(&eng->kicked))
			continue;
		now = ktime_get_ns();
		if (!idle_since)
			idle_since = now;
		/*
		 * User doorbells are polled while the engine has its CPU to
		 * itself, for SIM_SPIN_NS at most (a fault and a zap cost more
		 * than that poll), and trapped when another task wants the CPU
		 * or after that.
		 */
		if (sim_engine_watching(eng, pollable) &&
		    sim_engine_may_trap(sim, now)) {
			/* one more pass: a doorbell written before the trap */
			if ((!single_task_running() ||
			     now - idle_since >= SIM_SPIN_NS) &&
			    sim_engine_trap(sim, now))
				continue;
		} else if (sim_engine_watching(eng, pollable) &&
			   READ_ONCE(sim->knobs.uar_trap)) {
			/*
			 * The faulting store has not landed: it is about to
			 * (its task runs on another CPU, or wants this one).
			 * Watch for it closely, not with the idle back-off
			 * below; and when the CPU is wanted (by the task that
			 * stores, as a rule), let that run rather than poll
			 * beside it.
			 */
			if (single_task_running() &&
			    now - idle_since < SIM_SPIN_NS) {
				cond_resched();
				cpu_relax();
				continue;
			}
			due = now + SIM_YIELD_US * NSEC_PER_USEC;
			if (pollable & SIM_POLL_TIMED)
				due = min(due, eng->next_due);
			if (due > now) {
				sim_engine_sleep_until(sim, due, now);
				continue;
			}
		}
		if (eng->uar_armed)
			pollable &= ~SIM_POLL_USER;
		/* a timer already due polls on, as below */
		if (pollable == SIM_POLL_TIMED && eng->next_due > now) {
			sim_engine_sleep_until(sim, eng->next_due, now);
			continue;
		}
		if (pollable && now - idle_since < SIM_SPIN_NS) {
			sim_engine_share_cpu(eng);
			cpu_relax();
			continue;
		}
		sim_engine_idle(sim, idle_since, pollable);
	}
	return 0;
}

int sim_engine_start(struct mlx5sp_sim *sim)
{
	struct task_struct *task;
	int err;

	/*
	 * Signature transfers pass through it (xfer.c), a page at a time:
	 * plain kmalloc memory, which KASAN watches.
	 */
	sim->engine.wire = kmalloc(SIM_WIRE_BUF, GFP_KERNEL);
	if (!sim->engine.wire)
		return -ENOMEM;
	/* and the WQEs a command runs before it takes a QP out of RTS */
	sim->fw_eng.wire = kmalloc(SIM_WIRE_BUF, GFP_KERNEL);
	if (!sim->fw_eng.wire) {
		err = -ENOMEM;
		goto err_free_wire;
	}
	spin_lock_init(&sim->engine.due_lock);
	hrtimer_init(&sim->engine.due_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	sim->engine.due_timer.function = sim_engine_due_fn;
	/* and the send doorbells run in the process (sim_sq_doorbell()) */
	sim->tx_eng.wire = kmalloc(SIM_WIRE_BUF, GFP_KERNEL);
	if (!sim->tx_eng.wire) {
		err = -ENOMEM;
		goto err_free_fw_wire;
	}
	task = kthread_create(sim_engine_thread, sim, "mlx5sp_sim/%s",
			      sim->name);
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		goto err_free_tx_wire;
	}
	/*
	 * Applications busy-poll their CQs: a normal thread waits for
	 * their time slice to end before it sees the next doorbell.
	 */
	sched_set_fifo_low(task);
	WRITE_ONCE(sim->engine.task, task);
	wake_up_process(task);
	return 0;

err_free_tx_wire:
	kfree(sim->tx_eng.wire);
	sim->tx_eng.wire = NULL;
err_free_fw_wire:
	kfree(sim->fw_eng.wire);
	sim->fw_eng.wire = NULL;
err_free_wire:
	kfree(sim->engine.wire);
	sim->engine.wire = NULL;
	return err;
}

void sim_engine_stop(struct mlx5sp_sim *sim)
{
	struct task_struct *task = sim->engine.task;

	if (!task)
		return;
	WRITE_ONCE(sim->engine.task, NULL);
	/* kickers that saw the task are done with it */
	synchronize_rcu();
	hrtimer_cancel(&sim->engine.due_timer);
	kthread_stop(task);
	kfree(sim->engine.wire);
	sim->engine.wire = NULL;
	/* a process ringing a doorbell now leaves it to the (gone) engine */
	spin_lock_bh(&sim->tx_lock);
	kfree(sim->tx_eng.wire);
	sim->tx_eng.wire = NULL;
	spin_unlock_bh(&sim->tx_lock);
	/* commands still running from here on execute no more WQEs */
	mutex_lock(&sim->fw_lock);
	kfree(sim->fw_eng.wire);
	sim->fw_eng.wire = NULL;
	mutex_unlock(&sim->fw_lock);
}
