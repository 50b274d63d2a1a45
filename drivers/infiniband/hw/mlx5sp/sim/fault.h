/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Fault injection of the software ConnectX (fault.c, debugfs.c): what
 * each device is told to get wrong.
 */
#ifndef MLX5SP_SIM_FAULT_H
#define MLX5SP_SIM_FAULT_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "sig.h"

struct mlx5sp_sim;

/* Command faults (debugfs NAME/fail_*, delay_*, garble_*, lie_*). */
struct sim_fault {
	u16 fail_opcode;
	u8 fail_status;
	u32 fail_syndrome;
	u32 fail_count;
	u32 fail_nth;		/* the n-th command from now fails, any opcode */
	u16 delay_opcode;
	u32 delay_ms;
	u32 delay_count;
	/* the garble_nth-th execution of garble_opcode answers garbage */
	u16 garble_opcode;
	u32 garble_nth;
	u32 garble_seed;
	/* the lie_nth-th execution of lie_opcode answers lie_val in lie_dw */
	u16 lie_opcode;
	u32 lie_nth;
	u16 lie_dw;
	__be32 lie_val;
};

/*
 * What is injected into a device: command faults, signature errors,
 * hostile and stale CQEs and EQEs.
 */
struct sim_inject {
	spinlock_t lock;		/* protects cmd, sig */
	struct sim_fault cmd;
	struct sim_sig_inject sig;
	atomic_t hostile_cqes;		/* CQEs still to corrupt */
	u32 hostile_qpn;		/* the QPN they may name instead */
	atomic_t stale_cqes;		/* CQEs still to leave not handed over */
	atomic_t stale_eqes;		/* EQEs still to leave not handed over */
};

void sim_fault_garble(struct mlx5sp_sim *sim, u16 opcode, void *out,
		      u32 outlen);

#endif /* MLX5SP_SIM_FAULT_H */
