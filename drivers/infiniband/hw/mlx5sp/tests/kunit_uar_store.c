// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite mlx5sp_uar_store: the decoder of the user store that faulted
 * on a model's UAR page (uar_store.c). What it takes (MOV r/m32, r32 and
 * MOV r/m64, r64 in their addressing forms) gives the address, size, value
 * and length the CPU would; everything else, and every instruction cut
 * short, is refused, so that the fault maps the page instead.
 */
#include <kunit/test.h>
#include <asm/ptrace.h>

#include "uar_store.h"

/* The registers of the fixture: addresses, a scale index, store values. */
#define RAX	0xa1a2a3a4a5a6a7a8ULL
#define RCX	0x3ULL
#define RDX	0x7f1200001000ULL
#define RBX	0x7f1300000000ULL
#define RSP	0x7ffc00000100ULL
#define RBP	0x7f1500000000ULL
#define RSI	0x7f1600000000ULL
#define RDI	0x7f1700000000ULL
#define R8	0x8081828384858687ULL
#define R9	0x10ULL
#define R10	0x7f1a00000000ULL
#define R11	0x7f1b00000000ULL
#define R12	0x40ULL
#define R13	0x7f1d00000200ULL
#define R14	0x7f1e00000000ULL
#define R15	0x7f1f00000800ULL

static void store_regs(struct pt_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	regs->ax = RAX;
	regs->cx = RCX;
	regs->dx = RDX;
	regs->bx = RBX;
	regs->sp = RSP;
	regs->bp = RBP;
	regs->si = RSI;
	regs->di = RDI;
	regs->r8 = R8;
	regs->r9 = R9;
	regs->r10 = R10;
	regs->r11 = R11;
	regs->r12 = R12;
	regs->r13 = R13;
	regs->r14 = R14;
	regs->r15 = R15;
}

struct store_case {
	const char *name;
	u8 insn[MLX5SP_UAR_STORE_INSN_MAX];
	unsigned int len;
	bool ok;
	u64 addr;
	u64 val;
	unsigned int size;
	unsigned int insn_len;
};

#define INSN(...)	.insn = { __VA_ARGS__ }, \
			.len = sizeof((u8[]){ __VA_ARGS__ })
#define TAKES(n, a, v, s, l)	.name = n, .ok = true, .addr = a, .val = v, \
				.size = s, .insn_len = l

static const struct store_case store_cases[] = {
	{ TAKES("mov %rax,(%rdx)", RDX, RAX, 8, 3), INSN(0x48, 0x89, 0x02) },
	{ TAKES("mov %eax,(%rdx)", RDX, 0xa5a6a7a8, 4, 2), INSN(0x89, 0x02) },
	{ TAKES("mov %eax,(%rdx) empty REX", RDX, 0xa5a6a7a8, 4, 3),
	  INSN(0x40, 0x89, 0x02) },
	{ TAKES("mov %rax,0x20(%rdx)", RDX + 0x20, RAX, 8, 4),
	  INSN(0x48, 0x89, 0x42, 0x20) },
	{ TAKES("mov %rax,-0x8(%rdx)", RDX - 8, RAX, 8, 4),
	  INSN(0x48, 0x89, 0x42, 0xf8) },
	{ TAKES("mov %rax,0x800(%rdx)", RDX + 0x800, RAX, 8, 7),
	  INSN(0x48, 0x89, 0x82, 0x00, 0x08, 0x00, 0x00) },
	{ TAKES("mov %r8,(%rax)", RAX, R8, 8, 3), INSN(0x4c, 0x89, 0x00) },
	{ TAKES("mov %r8d,(%rdx)", RDX, 0x84858687, 4, 3),
	  INSN(0x44, 0x89, 0x02) },
	{ TAKES("mov %rax,(%r15)", R15, RAX, 8, 3), INSN(0x49, 0x89, 0x07) },
	{ TAKES("mov %r12,-0x10(%r15)", R15 - 0x10, R12, 8, 4),
	  INSN(0x4d, 0x89, 0x67, 0xf0) },
	{ TAKES("mov %rsp,(%rdx)", RDX, RSP, 8, 3), INSN(0x48, 0x89, 0x22) },
	{ TAKES("mov %rax,(%rsp)", RSP, RAX, 8, 4),
	  INSN(0x48, 0x89, 0x04, 0x24) },
	{ TAKES("mov %rax,0x8(%rsp)", RSP + 8, RAX, 8, 5),
	  INSN(0x48, 0x89, 0x44, 0x24, 0x08) },
	{ TAKES("mov %rax,(%rdx,%rcx,4)", RDX + RCX * 4, RAX, 8, 4),
	  INSN(0x48, 0x89, 0x04, 0x8a) },
	{ TAKES("mov %rax,(%rdx,%r9,1)", RDX + R9, RAX, 8, 4),
	  INSN(0x4a, 0x89, 0x04, 0x0a) },
	{ TAKES("mov %rax,(%rdx,%r12,4)", RDX + R12 * 4, RAX, 8, 4),
	  INSN(0x4a, 0x89, 0x04, 0xa2) },
	{ TAKES("mov %rax,0x1000 (SIB, no base)", 0x1000, RAX, 8, 8),
	  INSN(0x48, 0x89, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00) },
	{ TAKES("mov %rax,0x0(%r13) (SIB)", R13, RAX, 8, 5),
	  INSN(0x49, 0x89, 0x44, 0x25, 0x00) },
	{ TAKES("mov %rax,(%rdx) and more bytes", RDX, RAX, 8, 3),
	  INSN(0x48, 0x89, 0x02, 0x90, 0x90) },

	{ .name = "nothing", .len = 0 },
	{ .name = "0x66 prefix", INSN(0x66, 0x89, 0x02) },
	{ .name = "0x67 prefix", INSN(0x67, 0x48, 0x89, 0x02) },
	{ .name = "fs override", INSN(0x64, 0x48, 0x89, 0x02) },
	{ .name = "lock", INSN(0xf0, 0x48, 0x89, 0x02) },
	{ .name = "two REX", INSN(0x48, 0x48, 0x89, 0x02) },
	{ .name = "rip-relative", INSN(0x48, 0x89, 0x05, 0x00, 0x10, 0x00, 0x00) },
	{ .name = "rip-relative, REX.B",
	  INSN(0x49, 0x89, 0x05, 0x00, 0x10, 0x00, 0x00) },
	{ .name = "register destination", INSN(0x48, 0x89, 0xc2) },
	{ .name = "byte store (0x88)", INSN(0x88, 0x02) },
	{ .name = "immediate store (0xc7)",
	  INSN(0x48, 0xc7, 0x02, 0x01, 0x00, 0x00, 0x00) },
	{ .name = "movups", INSN(0x0f, 0x11, 0x02) },
};

static void store_desc(const struct store_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(store, store_cases, store_desc);

static void store_decode(struct kunit *test)
{
	const struct store_case *c = test->param_value;
	struct mlx5sp_uar_store st = {};
	struct pt_regs regs;

	store_regs(&regs);
	KUNIT_ASSERT_EQ(test, mlx5sp_uar_store_decode(c->insn, c->len, &st,
						      &regs), c->ok);
	if (!c->ok)
		return;
	KUNIT_EXPECT_EQ(test, st.addr, (unsigned long)c->addr);
	KUNIT_EXPECT_EQ(test, st.size, c->size);
	KUNIT_EXPECT_EQ(test, st.val, c->val);
	KUNIT_EXPECT_EQ(test, st.insn_len, c->insn_len);
}

/* Every instruction taken, cut short at each byte: refused. */
static void store_truncated(struct kunit *test)
{
	struct mlx5sp_uar_store st;
	struct pt_regs regs;
	unsigned int i, len;

	store_regs(&regs);
	for (i = 0; i < ARRAY_SIZE(store_cases); i++) {
		const struct store_case *c = &store_cases[i];

		if (!c->ok)
			continue;
		for (len = 0; len < c->insn_len; len++) {
			bool ok = mlx5sp_uar_store_decode(c->insn, len, &st,
							  &regs);

			KUNIT_EXPECT_FALSE_MSG(test, ok, "%s cut to %u bytes",
					       c->name, len);
		}
	}
}

static struct kunit_case uar_store_cases[] = {
	KUNIT_CASE_PARAM(store_decode, store_gen_params),
	KUNIT_CASE(store_truncated),
	{}
};

static struct kunit_suite uar_store_suite = {
	.name = "mlx5sp_uar_store",
	.test_cases = uar_store_cases,
};

kunit_test_suites(&uar_store_suite);
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
