// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A user doorbell store to a model's UAR page, executed by the driver in
 * the page fault it takes (uar_trap.c): the store is decoded from the
 * faulting instruction, its value handed to the model, and the task
 * resumes after it, the page still unmapped. One fault per doorbell, and
 * neither a map nor a zap (a TLB shootdown) of the page.
 *
 * Only what libmlx5 rings a doorbell with on a page that is not
 * write-combining is taken: a 4 or 8 byte MOV from a general register,
 * MOV r/m32, r32 or MOV r/m64, r64 (opcode 0x89, at most one REX prefix,
 * no legacy prefix, a memory operand that is not RIP-relative). Anything
 * else is left to the CPU: the fault maps the page, as for any access.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "uar_store.h"

#ifdef CONFIG_X86_64
#include <asm/ptrace.h>

#define REX_W		0x08
#define REX_R		0x04
#define REX_X		0x02
#define REX_B		0x01

/* General register @r by its number in x86 encodings (REX bit included). */
static u64 uar_store_reg(const struct pt_regs *regs, unsigned int r)
{
	switch (r) {
	case 0:
		return regs->ax;
	case 1:
		return regs->cx;
	case 2:
		return regs->dx;
	case 3:
		return regs->bx;
	case 4:
		return regs->sp;
	case 5:
		return regs->bp;
	case 6:
		return regs->si;
	case 7:
		return regs->di;
	case 8:
		return regs->r8;
	case 9:
		return regs->r9;
	case 10:
		return regs->r10;
	case 11:
		return regs->r11;
	case 12:
		return regs->r12;
	case 13:
		return regs->r13;
	case 14:
		return regs->r14;
	default:
		return regs->r15;
	}
}

/**
 * mlx5sp_uar_store_decode - decode a 64-bit mode MOV of a register to memory
 * @insn: the instruction's bytes
 * @len: how many of them there are (more than the instruction is fine)
 * @st: filled in on success
 * @regs: the task's registers, for the address and the value
 *
 * Returns false for anything but MOV r/m32, r32 or MOV r/m64, r64 with a
 * memory operand, RIP-relative excepted, or when @len cuts it short.
 */
bool mlx5sp_uar_store_decode(const u8 *insn, unsigned int len,
			     struct mlx5sp_uar_store *st,
			     const struct pt_regs *regs)
{
	unsigned int i = 0, mod, reg, rm, base, index, disp_len;
	u64 addr = 0;
	u8 rex = 0;
	s32 disp;

	if (len && insn[0] >= 0x40 && insn[0] <= 0x4f)
		rex = insn[i++];
	/* opcode and ModRM */
	if (len < i + 2 || insn[i] != 0x89)
		return false;
	mod = insn[i + 1] >> 6;
	reg = (insn[i + 1] >> 3 & 7) | (rex & REX_R ? 8 : 0);
	rm = insn[i + 1] & 7;
	i += 2;
	/* a register destination, or RIP-relative */
	if (mod == 3 || (mod == 0 && rm == 5))
		return false;
	disp_len = mod == 1 ? 1 : mod == 2 ? 4 : 0;
	if (rm == 4) {
		if (len < i + 1)
			return false;
		base = insn[i] & 7;
		index = (insn[i] >> 3 & 7) | (rex & REX_X ? 8 : 0);
		/* index 4 without REX.X: none */
		if (index != 4)
			addr = uar_store_reg(regs, index) << (insn[i] >> 6);
		/* base 5 with mod 0: disp32 and no base */
		if (base == 5 && mod == 0)
			disp_len = 4;
		else
			addr += uar_store_reg(regs, base | (rex & REX_B ? 8 : 0));
		i++;
	} else {
		addr = uar_store_reg(regs, rm | (rex & REX_B ? 8 : 0));
	}
	if (len < i + disp_len)
		return false;
	if (disp_len == 1)
		disp = (s8)insn[i];
	else if (disp_len == 4)
		disp = (s32)get_unaligned_le32(&insn[i]);
	else
		disp = 0;
	i += disp_len;

	st->addr = addr + (s64)disp;
	st->size = rex & REX_W ? 8 : 4;
	st->val = uar_store_reg(regs, reg);
	if (st->size == 4)
		st->val = lower_32_bits(st->val);
	st->insn_len = i;
	return true;
}

/**
 * mlx5sp_uar_store_fetch - the store that faulted, if the driver can do it
 * @vmf: a fault on a UAR page
 * @st: filled in on success
 *
 * True for a write fault from the task's own 64-bit user code, not being
 * single-stepped, whose instruction is a store mlx5sp_uar_store_decode()
 * takes to exactly the faulting address, naturally aligned. Under the mmap
 * or vma lock: the instruction is read without faulting.
 */
bool mlx5sp_uar_store_fetch(struct vm_fault *vmf, struct mlx5sp_uar_store *st)
{
	const unsigned int want = FAULT_FLAG_WRITE | FAULT_FLAG_USER;
	u8 insn[MLX5SP_UAR_STORE_INSN_MAX];
	unsigned int len = sizeof(insn);
	struct pt_regs *regs;

	if ((vmf->flags & (want | FAULT_FLAG_REMOTE)) != want ||
	    current->mm != vmf->vma->vm_mm)
		return false;
	regs = task_pt_regs(current);
	if (!user_64bit_mode(regs) || (regs->flags & X86_EFLAGS_TF))
		return false;
	/* an instruction near the end of its page: what the page holds */
	if (copy_from_user_nofault(insn, (const void __user *)regs->ip, len)) {
		len = min_t(unsigned long, len,
			    PAGE_SIZE - offset_in_page(regs->ip));
		if (len == sizeof(insn) ||
		    copy_from_user_nofault(insn, (const void __user *)regs->ip,
					   len))
			return false;
	}
	if (!mlx5sp_uar_store_decode(insn, len, st, regs))
		return false;
	return st->addr == vmf->real_address &&
	       IS_ALIGNED(st->addr, st->size) &&
	       offset_in_page(st->addr) + st->size <= PAGE_SIZE;
}

/* The store is done: the task goes on after it. */
void mlx5sp_uar_store_done(struct mlx5sp_uar_store *st)
{
	task_pt_regs(current)->ip += st->insn_len;
}

#else /* !CONFIG_X86_64: every store is left to the CPU */

bool mlx5sp_uar_store_decode(const u8 *insn, unsigned int len,
			     struct mlx5sp_uar_store *st,
			     const struct pt_regs *regs)
{
	return false;
}

bool mlx5sp_uar_store_fetch(struct vm_fault *vmf, struct mlx5sp_uar_store *st)
{
	return false;
}

void mlx5sp_uar_store_done(struct mlx5sp_uar_store *st)
{
}

#endif /* CONFIG_X86_64 */
EXPORT_SYMBOL_IF_KUNIT(mlx5sp_uar_store_decode);
