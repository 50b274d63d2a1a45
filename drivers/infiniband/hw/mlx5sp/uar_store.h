/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A user store to a model's UAR page, decoded from the instruction that
 * faulted on it, so that the driver can execute it (uar_store.c).
 */
#ifndef MLX5SP_UAR_STORE_H
#define MLX5SP_UAR_STORE_H

#include <linux/types.h>

struct pt_regs;
struct vm_fault;

/* The longest x86 instruction: what is fetched at the faulting ip. */
#define MLX5SP_UAR_STORE_INSN_MAX	15

struct mlx5sp_uar_store {
	unsigned long addr;		/* effective address of the store */
	u64 val;			/* the source register (low 32 bits for 4) */
	unsigned int size;		/* 4 or 8 */
	unsigned int insn_len;		/* bytes of the instruction */
};

bool mlx5sp_uar_store_decode(const u8 *insn, unsigned int len,
			     struct mlx5sp_uar_store *st,
			     const struct pt_regs *regs);
bool mlx5sp_uar_store_fetch(struct vm_fault *vmf, struct mlx5sp_uar_store *st);
void mlx5sp_uar_store_done(struct mlx5sp_uar_store *st);

#endif /* MLX5SP_UAR_STORE_H */
