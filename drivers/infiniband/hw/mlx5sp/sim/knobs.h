/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The knobs of a software ConnectX's data path: how far it runs on, how
 * late it answers, where the work runs, what it polls.
 */
#ifndef MLX5SP_SIM_KNOBS_H
#define MLX5SP_SIM_KNOBS_H

#include <linux/types.h>

/* Data path switches and delays, set through debugfs (debugfs.c). */
struct sim_knobs {
	/* WQEs that run on past a signature error (debugfs sig_runon) */
	u8 sig_runon;
	/* an RC request's ACK comes back this late (debugfs ack_delay_us) */
	u32 ack_delay_us;
	/* the engine polls kernel QPs and CQs too (debugfs poll_kernel) */
	bool poll_kernel;
	/*
	 * Idle, the engine has user UAR mappings trapped instead of polling
	 * them (debugfs uar_trap, default on; off: poll, to compare)
	 */
	bool uar_trap;
	/*
	 * Work runs where it arrives: a requester's last answer runs its SQ
	 * in the receive softirq (debugfs inline, default on; off: the
	 * engine does, to compare).
	 */
	bool run_inline;
	/*
	 * User UAR stores are taken as the driver executes them in the
	 * fault (sim_uar_store(); debugfs uar_store, default on; off: the
	 * driver maps the page and tells, sim_uar_touch()).
	 */
	bool uar_store;
	/*
	 * A user access's fault is this slow between telling the model and
	 * mapping the page (debugfs touch_delay_us, a test's knob: a task
	 * preempted there; the trap's 4 ms cap passes meanwhile)
	 */
	u32 touch_delay_us;
	/*
	 * Reach peers on other model devices of this kernel through the
	 * wire, as on separate hosts (debugfs wire_peers, either side's is
	 * enough; set before the QPs are connected).
	 */
	bool wire_peers;
	/* ECN: notification and reaction points (cong.c, debugfs ecn_*) */
	bool ecn_np;
	bool ecn_rp;
};

#endif /* MLX5SP_SIM_KNOBS_H */
