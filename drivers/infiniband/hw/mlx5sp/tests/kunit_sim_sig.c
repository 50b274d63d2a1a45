// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for the software ConnectX's signature engine: known answers
 * of the guards, T10-DIF and CRC insert/check/strip round trips for every
 * block size, each error kind with its expected and actual values and
 * offset, the escapes, transfers split anywhere and streams handed out in
 * windows of any size, BSFs built the way libmlx5 and mlx5_ib build them,
 * the SIGERR CQE as libmlx5 decodes it, fault injection, and PSV objects
 * through the command interface.
 */
#include <kunit/test.h>
#include <linux/crc-t10dif.h>
#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/module.h>
#include <linux/unaligned.h>
#include <net/checksum.h>

#include "mlx5sp.h"
#include "sim/cq.h"
#include "sim/mkey.h"
#include "sim/mlx5sp_sim.h"
#include "sim/sgl.h"
#include "sim/sig.h"
#include "sim/sim.h"
#include "sim/syndromes.h"

static const u8 t_check[] = "123456789";

/* ---- building BSFs as software does ------------------------------------ */

enum t_kind { T_NONE, T_DIF_CRC, T_DIF_CSUM, T_CRC32, T_CRC32C };

struct t_dom {
	enum t_kind kind;
	u8 bs;				/* MLX5SP_BS_* */
	u16 seed;			/* T10-DIF: 0 or 0xffff */
	u16 app;
	u32 ref;
	bool ref_inc;
	bool app_escape;
	bool app_ref_escape;
	bool crc_seed_zero;
	u32 psv;
};

/* One domain, encoded as mlx5_umr_fill_sig_bsf() (libmlx5) does. */
static void t_bsf_dom(struct mlx5_bsf *bsf, bool wire, const struct t_dom *d)
{
	struct mlx5_bsf_inl *inl = wire ? &bsf->w_inl : &bsf->m_inl;
	u32 bfs = 0;
	u8 f = 0;

	if (d->kind == T_NONE)
		return;
	if (d->kind == T_CRC32 || d->kind == T_CRC32C) {
		bfs = d->kind == T_CRC32 ? MLX5SP_BFS_CRC32_BASE :
					   MLX5SP_BFS_CRC32C_BASE;
		if (d->crc_seed_zero)
			bfs |= MLX5SP_BFS_CRC_SEED_BIT;
		bfs |= MLX5SP_BFS_CRC_REPEAT_BIT;
		bfs <<= MLX5SP_BFS_SHIFT;
	} else {
		inl->vld_refresh = cpu_to_be16(MLX5_BSF_INL_VALID |
					       MLX5_BSF_REFRESH_DIF);
		inl->dif_apptag = cpu_to_be16(d->app);
		inl->dif_reftag = cpu_to_be32(d->ref);
		inl->rp_inv_seed = MLX5_BSF_REPEAT_BLOCK;
		if (d->seed)
			inl->rp_inv_seed |= MLX5SP_BSF_SEED;
		inl->sig_type = d->kind == T_DIF_CRC ? MLX5_DIF_CRC :
						       MLX5_DIF_IPCS;
		if (d->ref_inc)
			f |= MLX5_BSF_INC_REFTAG;
		if (d->app_ref_escape)
			f |= MLX5_BSF_APPREF_ESCAPE;
		else if (d->app_escape)
			f |= MLX5_BSF_APPTAG_ESCAPE;
		inl->dif_inc_ref_guard_check = f;
		inl->dif_app_bitmask_check = cpu_to_be16(0xffff);
	}
	bfs |= d->psv & MLX5SP_BSF_PSV_INDEX_MASK;
	if (wire) {
		bsf->basic.w_bfs_psv = cpu_to_be32(bfs);
		bsf->basic.wire.bs_selector = d->bs;
	} else {
		bsf->basic.m_bfs_psv = cpu_to_be32(bfs);
		bsf->basic.mem.bs_selector = d->bs;
	}
}

static void t_bsf(struct mlx5_bsf *bsf, const struct t_dom *mem,
		  const struct t_dom *wire, u8 check_mask)
{
	memset(bsf, 0, sizeof(*bsf));
	bsf->basic.bsf_size_sbs = MLX5SP_BSF_SIZE_WITH_INLINE <<
				  MLX5SP_BSF_SIZE_SHIFT;
	bsf->basic.raw_data_size = cpu_to_be32(U32_MAX);
	bsf->basic.check_byte_mask = check_mask;
	if (mem)
		t_bsf_dom(bsf, false, mem);
	if (wire)
		t_bsf_dom(bsf, true, wire);
}

static u8 t_pi_size(enum t_kind k)
{
	return k == T_NONE ? 0 : (k == T_CRC32 || k == T_CRC32C) ? 4 : 8;
}

static u8 t_full_mask(enum t_kind k)
{
	return t_pi_size(k) == 4 ? 0xf0 : 0xff;
}

/* Run one transfer in chunks of @chunk input bytes (0: one call). */
static s64 t_xfer(struct kunit *test, struct sim_sig_ctx *ctx,
		  const struct mlx5_bsf *bsf, enum sim_sig_dir dir,
		  void *dst, u32 dlen, void *src, u32 slen, u32 chunk)
{
	struct sim_sig_buf_iter s, d;
	s64 n, total = 0;
	u32 off = 0, k;

	KUNIT_ASSERT_EQ(test, sim_sig_ctx_init(ctx, bsf, 0, 0, dir), 0);
	sim_sig_buf_iter_init(&s, src, slen);
	sim_sig_buf_iter_init(&d, dst, dlen);
	do {
		k = chunk ? min(chunk, slen - off) : slen;
		n = sim_sig_xfer(ctx, &d.it, &s.it, k);
		if (n < 0)
			return n;
		total += n;
		off += k;
	} while (off < slen);
	return total;
}

static void t_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 7 + seed * 13 + (i >> 8));
}

static u32 t_guard(enum t_kind k, u16 seed, const u8 *p, u32 len)
{
	switch (k) {
	case T_DIF_CRC:
		return crc_t10dif_update(seed, p, len);
	case T_DIF_CSUM:
		return be16_to_cpu((__force __be16)ip_compute_csum(p, len));
	case T_CRC32:
		return crc32_le(~0, p, len) ^ ~0;
	case T_CRC32C:
		return crc32c(~0, p, len) ^ ~0;
	default:
		return 0;
	}
}

/* ---- known answers ------------------------------------------------------- */

static void sig_known_answers(struct kunit *test)
{
	static const u8 rfc1071[] = { 0x00, 0x01, 0xf2, 0x03,
				      0xf4, 0xf5, 0xf6, 0xf7 };
	u8 *zero = kunit_kzalloc(test, 512, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, zero);
	KUNIT_EXPECT_EQ(test, crc_t10dif(t_check, 9), 0xd0db);
	KUNIT_EXPECT_EQ(test, crc_t10dif(zero, 512), 0);
	/* seeded 0xffff over zeroes: nonzero, and what the engine uses */
	KUNIT_EXPECT_NE(test, crc_t10dif_update(0xffff, zero, 512), 0);
	/* RFC 1071's example: sum 0xddf2, checksum 0x220d */
	KUNIT_EXPECT_EQ(test, be16_to_cpu((__force __be16)
					  ip_compute_csum(rfc1071, 8)),
			0x220d);
	KUNIT_EXPECT_EQ(test, crc32_le(~0, t_check, 9) ^ ~0, 0xcbf43926);
	KUNIT_EXPECT_EQ(test, crc32c(~0, t_check, 9) ^ ~0, 0xe3069283);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(MLX5SP_BS_512), 512);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(MLX5SP_BS_520), 520);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(MLX5SP_BS_4048), 4048);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(MLX5SP_BS_4096), 4096);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(MLX5SP_BS_4160), 4160);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(0), 0);
	KUNIT_EXPECT_EQ(test, sim_sig_bs_bytes(7), 0);
}

/* ---- round trips ------------------------------------------------------- */

static const u8 t_sels[] = { MLX5SP_BS_512, MLX5SP_BS_520, MLX5SP_BS_4048,
			     MLX5SP_BS_4096, MLX5SP_BS_4160 };
static const enum t_kind t_kinds[] = { T_DIF_CRC, T_DIF_CSUM, T_CRC32,
				       T_CRC32C };

#define T_NBLK	3

/*
 * Insert on the way to memory (wire plain, memory protected), then check
 * and strip on the way back to the wire: the data comes back, every PI is
 * what the definitions give, nothing is reported.
 */
static void sig_roundtrip(struct kunit *test)
{
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 *data = kunit_kzalloc(test, T_NBLK * 4160, GFP_KERNEL);
	u8 *prot = kunit_kzalloc(test, T_NBLK * (4160 + 8), GFP_KERNEL);
	u8 *back = kunit_kzalloc(test, T_NBLK * 4160, GFP_KERNEL);
	struct mlx5_bsf bsf;
	int s, k, b;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_NOT_NULL(test, prot);
	KUNIT_ASSERT_NOT_NULL(test, back);
	for (s = 0; s < ARRAY_SIZE(t_sels); s++) {
		for (k = 0; k < ARRAY_SIZE(t_kinds); k++) {
			u32 bs = sim_sig_bs_bytes(t_sels[s]);
			u8 pis = t_pi_size(t_kinds[k]);
			struct t_dom mem = {
				.kind = t_kinds[k], .bs = t_sels[s],
				.app = 0xabcd, .ref = 0x01234567,
				.ref_inc = true, .psv = 5,
			};
			u32 dlen = T_NBLK * bs, plen = T_NBLK * (bs + pis);

			t_fill(data, dlen, s * 4 + k);
			t_bsf(&bsf, &mem, NULL, t_full_mask(mem.kind));
			KUNIT_ASSERT_EQ(test, t_xfer(test, ctx, &bsf,
						     SIM_SIG_WIRE_TO_MEM, prot,
						     plen, data, dlen, 0),
					(s64)plen);
			KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
			for (b = 0; b < T_NBLK; b++) {
				const u8 *blk = prot + b * (bs + pis);
				const u8 *pi = blk + bs;

				KUNIT_EXPECT_EQ(test, memcmp(blk, data + b * bs,
							     bs), 0);
				if (pis == 4) {
					KUNIT_EXPECT_EQ(test,
							get_unaligned_be32(pi),
							t_guard(mem.kind, 0,
								blk, bs));
					continue;
				}
				KUNIT_EXPECT_EQ(test, get_unaligned_be16(pi),
						t_guard(mem.kind, 0, blk, bs));
				KUNIT_EXPECT_EQ(test,
						get_unaligned_be16(pi + 2),
						0xabcd);
				KUNIT_EXPECT_EQ(test,
						get_unaligned_be32(pi + 4),
						0x01234567 + b);
			}
			memset(back, 0, dlen);
			KUNIT_ASSERT_EQ(test, t_xfer(test, ctx, &bsf,
						     SIM_SIG_MEM_TO_WIRE, back,
						     dlen, prot, plen, 0),
					(s64)dlen);
			KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
			KUNIT_EXPECT_EQ(test, ctx->blocks_checked, T_NBLK);
			KUNIT_EXPECT_EQ(test, memcmp(back, data, dlen), 0);
			if (pis == 8)
				KUNIT_EXPECT_EQ(test,
						(u32)sim_sig_psv_ts(ctx,
								    SIM_SIG_MEM),
						0x01234567 + T_NBLK);
		}
	}
}

/* Split anywhere, the bytes and the verdicts are those of one call. */
static void sig_split_equivalence(struct kunit *test)
{
	static const u32 chunks[] = { 1, 3, 7, 8, 13, 511, 513, 1000 };
	struct sim_sig_ctx *c1 = kunit_kzalloc(test, sizeof(*c1), GFP_KERNEL);
	struct sim_sig_ctx *c2 = kunit_kzalloc(test, sizeof(*c2), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 4 * 528, GFP_KERNEL);
	u8 *o1 = kunit_kzalloc(test, 4 * 528, GFP_KERNEL);
	u8 *o2 = kunit_kzalloc(test, 4 * 528, GFP_KERNEL);
	struct t_dom mem = { .kind = T_DIF_CSUM, .bs = MLX5SP_BS_520,
			     .app = 0x1111, .ref = 7, .ref_inc = true };
	struct t_dom wire = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_520,
			      .seed = 0xffff, .app = 0x2222, .ref = 9,
			      .ref_inc = true };
	struct mlx5_bsf bsf;
	int i, b;

	KUNIT_ASSERT_NOT_NULL(test, c1);
	KUNIT_ASSERT_NOT_NULL(test, c2);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, o1);
	KUNIT_ASSERT_NOT_NULL(test, o2);
	/* memory: 4 blocks of 520 + DIF with IP checksum guards */
	for (b = 0; b < 4; b++) {
		u8 *blk = src + b * 528;

		t_fill(blk, 520, b);
		put_unaligned_be16(t_guard(T_DIF_CSUM, 0, blk, 520), blk + 520);
		put_unaligned_be16(0x1111, blk + 522);
		put_unaligned_be32(7 + b, blk + 524);
	}
	src[2 * 528 + 17] ^= 0x40;	/* block 2's guard is wrong */
	/* different guard types: not the same block structure */
	t_bsf(&bsf, &mem, &wire, 0xff);
	KUNIT_ASSERT_EQ(test, t_xfer(test, c1, &bsf, SIM_SIG_MEM_TO_WIRE, o1,
				     4 * 528, src, 4 * 528, 0), 4 * 528);
	KUNIT_EXPECT_EQ(test, c1->err[SIM_SIG_MEM].syndrome,
			SIM_SIG_ERR_GUARD);
	KUNIT_EXPECT_EQ(test, c1->err[SIM_SIG_MEM].offset, 2 * 528);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(o1 + 520),
			t_guard(T_DIF_CRC, 0xffff, src, 520));
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(o1 + 528 + 524), 10);
	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		memset(o2, 0, 4 * 528);
		KUNIT_ASSERT_EQ(test, t_xfer(test, c2, &bsf,
					     SIM_SIG_MEM_TO_WIRE, o2, 4 * 528,
					     src, 4 * 528, chunks[i]),
				4 * 528);
		KUNIT_EXPECT_EQ(test, memcmp(o1, o2, 4 * 528), 0);
		KUNIT_EXPECT_EQ(test, memcmp(&c1->err, &c2->err,
					     sizeof(c1->err)), 0);
	}
	/* the length the caller reserves for the output */
	KUNIT_ASSERT_EQ(test, sim_sig_ctx_init(c2, &bsf, 0, 0,
					       SIM_SIG_MEM_TO_WIRE), 0);
	KUNIT_EXPECT_EQ(test, sim_sig_out_len(c2, 4 * 528), 4 * 528);
	KUNIT_EXPECT_EQ(test, sim_sig_out_len(c2, 528), 528);
	KUNIT_EXPECT_EQ(test, sim_sig_out_len(c2, 100), 100);
}

/* ---- errors ------------------------------------------------------------ */

/* Two 512-byte blocks with good DIF (CRC guard, ref 0x100 + n, app 0x55aa) */
static void t_dif_blocks(u8 *p, int n)
{
	int b;

	for (b = 0; b < n; b++) {
		u8 *blk = p + b * 520;

		t_fill(blk, 512, b + 40);
		put_unaligned_be16(crc_t10dif(blk, 512), blk + 512);
		put_unaligned_be16(0x55aa, blk + 514);
		put_unaligned_be32(0x100 + b, blk + 516);
	}
}

/*
 * A buffer as a stream handed out in windows of @win bytes, as the model's
 * transfers hand out pages and MTT chunks: blocks and PI cross windows.
 */
struct t_win_iter {
	struct sim_sig_iter it;
	u8 *p;
	u32 left;
	u32 win;
};

static int t_win_refill(struct sim_sig_iter *it)
{
	struct t_win_iter *w = container_of(it, struct t_win_iter, it);

	if (!w->left)
		return -EFAULT;
	it->p = w->p;
	it->avail = min(w->left, w->win);
	w->p += it->avail;
	w->left -= it->avail;
	return 0;
}

static void t_win_init(struct t_win_iter *w, u8 *p, u32 len, u32 win)
{
	w->it.p = NULL;
	w->it.avail = 0;
	w->it.refill = t_win_refill;
	w->p = p;
	w->left = len;
	w->win = win;
}

#define T_WIN_NBLK	6
#define T_WIN_MAX	(T_WIN_NBLK * 528)

/*
 * Whatever the windows of the two streams, the bytes and the verdicts are
 * those of one flat buffer each: whole blocks inside a window take the
 * engine's block path, the others the byte stream path, and a transfer
 * mixes them. Check and strip, check and replace PI of another type, and
 * insert.
 */
static void sig_window_equivalence(struct kunit *test)
{
	static const u32 wins[] = { 1, 7, 512, 520, 528, 1000, 4096 };
	struct sim_sig_ctx *c1 = kunit_kzalloc(test, sizeof(*c1), GFP_KERNEL);
	struct sim_sig_ctx *c2 = kunit_kzalloc(test, sizeof(*c2), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, T_WIN_MAX, GFP_KERNEL);
	u8 *o1 = kunit_kzalloc(test, T_WIN_MAX, GFP_KERNEL);
	u8 *o2 = kunit_kzalloc(test, T_WIN_MAX, GFP_KERNEL);
	struct t_dom dif = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_512,
			     .app = 0x55aa, .ref = 0x100, .ref_inc = true };
	struct t_dom csum = { .kind = T_DIF_CSUM, .bs = MLX5SP_BS_520,
			      .app = 0x1111, .ref = 7, .ref_inc = true };
	struct t_dom crc = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_520,
			     .seed = 0xffff, .app = 0x2222, .ref = 9,
			     .ref_inc = true };
	struct t_dom c32c = { .kind = T_CRC32C, .bs = MLX5SP_BS_512 };
	struct t_win_iter s, d;
	struct mlx5_bsf bsf;
	enum sim_sig_dir dir;
	u32 slen, dlen;
	int cfg, i, j, b;
	s64 n;

	KUNIT_ASSERT_NOT_NULL(test, c1);
	KUNIT_ASSERT_NOT_NULL(test, c2);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, o1);
	KUNIT_ASSERT_NOT_NULL(test, o2);
	for (cfg = 0; cfg < 3; cfg++) {
		dir = SIM_SIG_MEM_TO_WIRE;
		switch (cfg) {
		case 0:
			/* check and strip; block 4's ref tag is wrong */
			t_dif_blocks(src, T_WIN_NBLK);
			put_unaligned_be32(0x100, src + 4 * 520 + 516);
			t_bsf(&bsf, &dif, NULL, 0xff);
			slen = T_WIN_NBLK * 520;
			dlen = T_WIN_NBLK * 512;
			break;
		case 1:
			/* IP checksum guards in, CRC out; block 2's is wrong */
			for (b = 0; b < T_WIN_NBLK; b++) {
				u8 *blk = src + b * 528;

				t_fill(blk, 520, b);
				put_unaligned_be16(t_guard(T_DIF_CSUM, 0, blk,
							   520), blk + 520);
				put_unaligned_be16(0x1111, blk + 522);
				put_unaligned_be32(7 + b, blk + 524);
			}
			src[2 * 528 + 17] ^= 0x40;
			t_bsf(&bsf, &csum, &crc, 0xff);
			slen = T_WIN_NBLK * 528;
			dlen = slen;
			break;
		default:
			/* insert CRC32C on the way to memory */
			dir = SIM_SIG_WIRE_TO_MEM;
			t_fill(src, T_WIN_NBLK * 512, 3);
			t_bsf(&bsf, &c32c, NULL, 0xff);
			slen = T_WIN_NBLK * 512;
			dlen = T_WIN_NBLK * 516;
			break;
		}
		memset(o1, 0, T_WIN_MAX);
		KUNIT_ASSERT_EQ(test, t_xfer(test, c1, &bsf, dir, o1, dlen,
					     src, slen, 0), dlen);
		KUNIT_EXPECT_EQ(test, !sim_sig_first_err(c1), cfg == 2);
		for (i = 0; i < ARRAY_SIZE(wins); i++) {
			for (j = 0; j < ARRAY_SIZE(wins); j++) {
				memset(o2, 0, T_WIN_MAX);
				KUNIT_ASSERT_EQ(test,
						sim_sig_ctx_init(c2, &bsf, 0, 0,
								 dir), 0);
				t_win_init(&s, src, slen, wins[i]);
				t_win_init(&d, o2, dlen, wins[j]);
				n = sim_sig_xfer(c2, &d.it, &s.it, slen);
				KUNIT_EXPECT_EQ_MSG(test, n, dlen,
						    "cfg %d windows %u %u", cfg,
						    wins[i], wins[j]);
				KUNIT_EXPECT_EQ_MSG(test,
						    memcmp(o1, o2, T_WIN_MAX),
						    0, "cfg %d windows %u %u",
						    cfg, wins[i], wins[j]);
				KUNIT_EXPECT_EQ_MSG(test,
						    memcmp(&c1->err, &c2->err,
							   sizeof(c1->err)),
						    0, "cfg %d windows %u %u",
						    cfg, wins[i], wins[j]);
				KUNIT_EXPECT_EQ(test, c1->blocks_checked,
						c2->blocks_checked);
			}
		}
	}
}

static void sig_errors(struct kunit *test)
{
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	struct t_dom mem = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_512,
			     .app = 0x55aa, .ref = 0x100, .ref_inc = true };
	const struct sim_sig_err *e;
	struct mlx5_bsf bsf;
	u16 good;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);

	/* guard: a data bit of block 1 flips */
	t_dif_blocks(src, 2);
	good = get_unaligned_be16(src + 520 + 512);
	src[520 + 3] ^= 1;
	t_bsf(&bsf, &mem, NULL, 0xff);
	KUNIT_EXPECT_EQ(test, t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE,
				     dst, 1024, src, 1040, 0), 1024);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_GUARD);
	KUNIT_EXPECT_EQ(test, e->domain, SIM_SIG_MEM);
	KUNIT_EXPECT_EQ(test, e->offset, 520);
	KUNIT_EXPECT_FALSE(test, e->injected);
	KUNIT_EXPECT_EQ(test, e->expected >> 48, good);
	KUNIT_EXPECT_EQ(test, e->actual >> 48, crc_t10dif(src + 520, 512));
	KUNIT_EXPECT_EQ(test, (u32)e->expected, 0x101);
	/* the data still went through */
	KUNIT_EXPECT_EQ(test, memcmp(dst + 512, src + 520, 512), 0);

	/* the guard unchecked (mask): no error */
	t_bsf(&bsf, &mem, NULL, MLX5_CPY_APP_MASK | MLX5_CPY_REF_MASK);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));

	/* app tag: the configuration expects another */
	t_dif_blocks(src, 2);
	mem.app = 0x55ab;
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_APPTAG);
	KUNIT_EXPECT_EQ(test, e->offset, 0);
	KUNIT_EXPECT_EQ(test, (e->expected >> 32) & 0xffff, 0x55aa);
	KUNIT_EXPECT_EQ(test, (e->actual >> 32) & 0xffff, 0x55ab);
	/* only the differing app byte unchecked: fine */
	t_bsf(&bsf, &mem, NULL, 0xff & ~0x10);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	/* ... or left out by the app bitmask */
	t_bsf(&bsf, &mem, NULL, 0xff);
	bsf.m_inl.dif_app_bitmask_check = cpu_to_be16(0xfffe);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	mem.app = 0x55aa;

	/* ref tag: the second block carries block 0's tag */
	put_unaligned_be32(0x100, src + 520 + 516);
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_REFTAG);
	KUNIT_EXPECT_EQ(test, e->offset, 520);
	KUNIT_EXPECT_EQ(test, (u32)e->expected, 0x100);
	KUNIT_EXPECT_EQ(test, (u32)e->actual, 0x101);
	/* without ref remap both blocks must carry the initial tag */
	mem.ref_inc = false;
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	mem.ref_inc = true;

	/* guard, app and ref all wrong: the guard is reported (T10 order) */
	t_dif_blocks(src, 2);
	src[0] ^= 0xff;
	put_unaligned_be16(0x1234, src + 514);
	put_unaligned_be32(0x999, src + 516);
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1024, src, 1040, 0);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_GUARD);

	/* wire domain on the way in: the error's domain is the wire */
	t_dif_blocks(src, 2);
	src[1040 - 1] ^= 1;		/* block 1's ref tag */
	t_bsf(&bsf, NULL, &mem, 0xff);
	KUNIT_EXPECT_EQ(test, t_xfer(test, ctx, &bsf, SIM_SIG_WIRE_TO_MEM,
				     dst, 1024, src, 1040, 0), 1024);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->domain, SIM_SIG_WIRE);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_REFTAG);
	KUNIT_EXPECT_EQ(test, e->offset, 520);
}

static void sig_crc_errors(struct kunit *test)
{
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 516, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, 516, GFP_KERNEL);
	struct t_dom mem = { .kind = T_CRC32, .bs = MLX5SP_BS_512 };
	const struct sim_sig_err *e;
	struct mlx5_bsf bsf;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	/* rdma-core's test_mkey_sig_err: a CRC32 never written */
	t_fill(src, 512, 3);
	t_bsf(&bsf, &mem, NULL, 0xf0);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 516, 0);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_GUARD);
	KUNIT_EXPECT_EQ(test, e->expected >> 32, 0);
	KUNIT_EXPECT_EQ(test, e->actual >> 32, t_guard(T_CRC32, 0, src, 512));
	/* ... the pipelining test's good case does not check: no error */
	t_bsf(&bsf, &mem, NULL, 0);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 516, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	/* CRC32C with a zero seed (libmlx5: the seed bit) */
	mem.kind = T_CRC32C;
	mem.crc_seed_zero = true;
	put_unaligned_be32(crc32c(0, src, 512) ^ ~0, src + 512);
	t_bsf(&bsf, &mem, NULL, 0xf0);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 516, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
}

static void sig_escapes(struct kunit *test)
{
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 520, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, 520, GFP_KERNEL);
	struct t_dom mem = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_512,
			     .app = 0x55aa, .ref = 0x100, .ref_inc = true };
	struct mlx5_bsf bsf;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	/* app tag 0xffff, bad guard and ref */
	t_dif_blocks(src, 1);
	put_unaligned_be16(0xbad0, src + 512);
	put_unaligned_be16(0xffff, src + 514);
	put_unaligned_be32(0x12345678, src + 516);
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 520, 0);
	KUNIT_EXPECT_NOT_NULL(test, sim_sig_first_err(ctx));
	mem.app_escape = true;
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 520, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	/* app+ref escape needs the ref tag 0xffffffff too */
	mem.app_escape = false;
	mem.app_ref_escape = true;
	t_bsf(&bsf, &mem, NULL, 0xff);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 520, 0);
	KUNIT_EXPECT_NOT_NULL(test, sim_sig_first_err(ctx));
	put_unaligned_be32(0xffffffff, src + 516);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 520, 0);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	/* app escape alone does not honour an app tag other than 0xffff */
	put_unaligned_be16(0xfffe, src + 514);
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 512, src, 520, 0);
	KUNIT_EXPECT_NOT_NULL(test, sim_sig_first_err(ctx));
}

/* Same block structure: copy_byte_mask carries PI bytes across. */
static void sig_strip_and_copy(struct kunit *test)
{
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	struct t_dom mem = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_512,
			     .app = 0x55aa, .ref = 0x100, .ref_inc = true };
	struct t_dom wire = mem;
	struct mlx5_bsf bsf;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	t_dif_blocks(src, 2);
	wire.app = 0x7777;
	wire.ref = 0x5000;
	t_bsf(&bsf, &mem, &wire, 0xff);
	/* as libmlx5 encodes it: SBS, copy what is equal (the guard) */
	bsf.basic.bsf_size_sbs |= MLX5SP_BSF_SBS;
	bsf.basic.wire.copy_byte_mask = MLX5_CPY_GRD_MASK;
	KUNIT_EXPECT_EQ(test, t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE,
				     dst, 1040, src, 1040, 0), 1040);
	KUNIT_EXPECT_NULL(test, sim_sig_first_err(ctx));
	KUNIT_EXPECT_FALSE(test, ctx->share_guard);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 514), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(dst + 514), 0x7777);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(dst + 520 + 516), 0x5001);
	/* copy everything: the PI passes unchanged */
	bsf.basic.wire.copy_byte_mask = 0xff;
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1040, src, 1040, 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 1040), 0);
	/* copy nothing: one CRC serves both domains */
	bsf.basic.wire.copy_byte_mask = 0;
	t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE, dst, 1040, src, 1040, 0);
	KUNIT_EXPECT_TRUE(test, ctx->share_guard);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(dst + 520 + 512),
			get_unaligned_be16(src + 520 + 512));
	/* strip: memory to a plain wire gives only the data */
	t_bsf(&bsf, &mem, NULL, 0xff);
	memset(dst, 0, 1040);
	KUNIT_EXPECT_EQ(test, t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE,
				     dst, 1024, src, 1040, 0), 1024);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src, 512), 0);
	KUNIT_EXPECT_EQ(test, memcmp(dst + 512, src + 520, 512), 0);
	/* a stream that ends early */
	KUNIT_EXPECT_EQ(test, t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE,
				     dst, 100, src, 1040, 0), -EFAULT);
	/* beyond raw_data_size */
	bsf.basic.raw_data_size = cpu_to_be32(512);
	KUNIT_EXPECT_EQ(test, t_xfer(test, ctx, &bsf, SIM_SIG_MEM_TO_WIRE,
				     dst, 1024, src, 1040, 0), -ERANGE);
}

/* ---- decoding ---------------------------------------------------------- */

static void sig_bsf_decode(struct kunit *test)
{
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct t_dom m = { .kind = T_DIF_CSUM, .bs = MLX5SP_BS_4160,
			   .seed = 0xffff, .app = 0xabcd, .ref = 0x01234567,
			   .ref_inc = true, .app_escape = true, .psv = 0x12 };
	struct t_dom w = { .kind = T_CRC32C, .bs = MLX5SP_BS_4048,
			   .psv = 0x34 };
	struct mlx5_bsf bsf;
	u8 raw[sizeof(bsf)] __aligned(8);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_EXPECT_EQ(test, sizeof(bsf), 64);
	t_bsf(&bsf, &m, &w, 0x3f);
	memcpy(raw, &bsf, sizeof(raw));
	/* the PRM bytes libmlx5 writes */
	KUNIT_EXPECT_EQ(test, raw[0], 0x80);		/* size: with inline */
	KUNIT_EXPECT_EQ(test, raw[1], 0x3f);		/* check_byte_mask */
	KUNIT_EXPECT_EQ(test, raw[2], MLX5SP_BS_4048);	/* wire selector */
	KUNIT_EXPECT_EQ(test, raw[3], MLX5SP_BS_4160);	/* memory selector */
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 8), 0x42000034);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 12), 0x12);

	KUNIT_ASSERT_EQ(test, sim_sig_ctx_init(ctx, (void *)raw, 0, 0,
					       SIM_SIG_MEM_TO_WIRE), 0);
	KUNIT_EXPECT_EQ(test, ctx->check_mask, 0x3f);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].type, SIM_SIG_T10DIF_CSUM);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].block_size, 4160);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].pi_size, 8);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].seed, 0xffff);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].app_tag, 0xabcd);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].ref_tag, 0x01234567);
	KUNIT_EXPECT_TRUE(test, ctx->dom[SIM_SIG_MEM].ref_inc);
	KUNIT_EXPECT_TRUE(test, ctx->dom[SIM_SIG_MEM].app_escape);
	KUNIT_EXPECT_FALSE(test, ctx->dom[SIM_SIG_MEM].app_ref_escape);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].psv, 0x12);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_WIRE].type, SIM_SIG_CRC32C);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_WIRE].block_size, 4048);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_WIRE].pi_size, 4);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_WIRE].crc_seed, U32_MAX);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_WIRE].psv, 0x34);
	/* the guard is not checked (mask 0x3f): no input CRC at all */
	KUNIT_EXPECT_FALSE(test, ctx->in_guard);
	KUNIT_EXPECT_TRUE(test, ctx->out_guard);

	/* mlx5_ib's encoding: no seed bit, the PSV holds the seed; no refresh */
	bsf.m_inl.rp_inv_seed = MLX5_BSF_REPEAT_BLOCK;
	bsf.m_inl.vld_refresh = cpu_to_be16(MLX5_BSF_INL_VALID);
	KUNIT_ASSERT_EQ(test, sim_sig_ctx_init(ctx, &bsf,
					       0x1234beef00000042ull, 0,
					       SIM_SIG_MEM_TO_WIRE), 0);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].seed, 0x1234);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].app_tag, 0xbeef);
	KUNIT_EXPECT_EQ(test, ctx->dom[SIM_SIG_MEM].ref_tag, 0x42);

	/* both domains plain (a reset signature) is a plain copy */
	t_bsf(&bsf, NULL, NULL, 0);
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0,
					       SIM_SIG_WIRE_TO_MEM), 0);

	/* what a device refuses */
	t_bsf(&bsf, &m, NULL, 0xff);
	bsf.basic.mem.bs_selector = 0;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0), -EINVAL);
	bsf.basic.mem.bs_selector = 9;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0), -EINVAL);
	t_bsf(&bsf, &m, NULL, 0xff);
	bsf.m_inl.sig_type = 3;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0), -EINVAL);
	t_bsf(&bsf, &m, NULL, 0xff);
	bsf.m_inl.rp_inv_seed = 0;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0), -EINVAL);
	t_bsf(&bsf, &m, NULL, 0xff);
	bsf.basic.bsf_size_sbs = MLX5SP_BSF_SIZE_BASIC;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0), -EINVAL);
	bsf.basic.bsf_size_sbs = MLX5SP_BSF_SIZE_SIG_AND_CRYPTO <<
				 MLX5SP_BSF_SIZE_SHIFT;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0),
			-EOPNOTSUPP);
	t_bsf(&bsf, NULL, &w, 0xff);
	bsf.basic.w_bfs_psv = cpu_to_be32((MLX5SP_BFS_CRC64_XP10_BASE |
					   MLX5SP_BFS_CRC_REPEAT_BIT) << 24);
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0),
			-EOPNOTSUPP);
	/* the same block structure needs a memory domain */
	t_bsf(&bsf, NULL, &w, 0xff);
	bsf.basic.bsf_size_sbs |= MLX5SP_BSF_SBS;
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sim_sig_ctx_init(ctx, &bsf, 0, 0, 7), -EINVAL);
}

/* The SIGERR CQE, read back as libmlx5 (cq.c, verbs.c) reads it. */
static void sig_err_cqe(struct kunit *test)
{
	struct sim_sig_err e = {
		.syndrome = SIM_SIG_ERR_APPTAG,
		.domain = SIM_SIG_MEM,
		.expected = 0x1234abcd00000101ull,
		.actual = 0x1234abce00000102ull,
		.offset = 0x10400,
	};
	struct mlx5_cqe64 cqe;
	struct mlx5_sig_err_cqe *s = (struct mlx5_sig_err_cqe *)&cqe;
	u8 *raw = (u8 *)&cqe;
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_SIG_ERR,
		.qpn = 0x48,
		.sig_err = &e,
		.sig_mkey = 0x123456,
	};

	sim_sig_err_cqe_encode(&cqe, &e, 0xabcdef12, 0x48, 16, 4);
	KUNIT_EXPECT_EQ(test, cqe.op_own, MLX5_CQE_SIG_ERR << 4 | 1);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 0x10), 0x1234abcd);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 0x14), 0x1234abce);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 0x18), 0x101);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 0x1c), 0x102);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(raw + 0x20),
			MLX5SP_SIGERR_SYND_APPTAG);
	KUNIT_EXPECT_EQ(test, raw[0x22], MLX5SP_SIGERR_SIG_TYPE_BLOCK);
	KUNIT_EXPECT_EQ(test, raw[0x23], MLX5SP_SIGERR_DOMAIN_MEMORY);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(raw + 0x24), 0xabcdef12);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(raw + 0x28), 0x10400);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(s->qpn), 0x48);
	/* libmlx5's mlx5_decode_sigerr() for the app tag */
	KUNIT_EXPECT_EQ(test, ((u64)be32_to_cpu(s->expected_trans_sig) << 32 |
			       be32_to_cpu(s->expected_reftag)) >> 32 & 0xffff,
			0xabcd);
	/* mlx5_ib's get_sig_err_item() for the app tag */
	KUNIT_EXPECT_EQ(test, be32_to_cpu(s->actual_trans_sig) & 0xffff,
			0xabce);

	/* through the CQE writer's encoder */
	sim_cqe_encode(&cqe, &ci, 3, 4);
	KUNIT_EXPECT_EQ(test, cqe.op_own, MLX5_CQE_SIG_ERR << 4);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(s->mkey), 0x123456);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(s->syndrome),
			MLX5SP_SIGERR_SYND_APPTAG);
}

/* ---- fault injection --------------------------------------------------- */

static struct mlx5sp_sim *t_fake_sim(struct kunit *test)
{
	struct mlx5sp_sim *sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sim);
	spin_lock_init(&sim->inject.lock);
	xa_init_flags(&sim->psvs, XA_FLAGS_ALLOC1);
	return sim;
}

static void sig_inject(struct kunit *test)
{
	struct mlx5sp_sim *sim = t_fake_sim(test);
	struct sim_sig_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 *src = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	u8 *copy = kunit_kzalloc(test, 2 * 520, GFP_KERNEL);
	struct t_dom mem = { .kind = T_DIF_CRC, .bs = MLX5SP_BS_512,
			     .app = 0x55aa, .ref = 0x100, .ref_inc = true };
	struct sim_sig_buf_iter s, d;
	const struct sim_sig_err *e;
	struct mlx5_bsf bsf;
	u16 kind;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_EXPECT_EQ(test, sim_sig_inject_parse(sim, "mkey=0x12 nth=0 kind=guard"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sim_sig_inject_parse(sim, "mkey=0x12 nth=1 kind=crc"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sim_sig_inject_parse(sim, "garbage"), -EINVAL);
	KUNIT_ASSERT_EQ(test,
			sim_sig_inject_parse(sim, "mkey=0x1234 nth=2 kind=apptag"),
			0);
	KUNIT_EXPECT_FALSE(test, sim_sig_inject_take(sim, 0x1234, &kind));
	KUNIT_EXPECT_FALSE(test, sim_sig_inject_take(sim, 0x9999, &kind));
	KUNIT_EXPECT_TRUE(test, sim_sig_inject_take(sim, 0x1234, &kind));
	KUNIT_EXPECT_EQ(test, kind, SIM_SIG_ERR_APPTAG);
	KUNIT_EXPECT_FALSE(test, sim_sig_inject_take(sim, 0x1234, &kind));
	KUNIT_EXPECT_EQ(test, sim->inject.sig.fired, 1);

	/* through sim_sig_begin: good data, an error reported, data intact */
	t_dif_blocks(src, 2);
	memcpy(copy, src, 1040);
	t_bsf(&bsf, &mem, NULL, 0xff);
	KUNIT_ASSERT_EQ(test,
			sim_sig_inject_parse(sim, "mkey=0x1234 nth=1 kind=reftag"),
			0);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, sim_sig_begin(sim, ctx, 0x1234, &bsf,
					    SIM_SIG_MEM_TO_WIRE), 0);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, ctx->inject, SIM_SIG_ERR_REFTAG);
	sim_sig_buf_iter_init(&s, src, 1040);
	sim_sig_buf_iter_init(&d, dst, 1024);
	KUNIT_EXPECT_EQ(test, sim_sig_xfer(ctx, &d.it, &s.it, 1040), 1024);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, e->injected);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_REFTAG);
	KUNIT_EXPECT_EQ(test, e->offset, 0);
	KUNIT_EXPECT_NE(test, (u32)e->expected, (u32)e->actual);
	KUNIT_EXPECT_EQ(test, memcmp(src, copy, 1040), 0);

	/* the insert direction: the error lands on the output domain */
	KUNIT_ASSERT_EQ(test,
			sim_sig_inject_parse(sim, "mkey=0x1234 nth=1 kind=guard"),
			0);
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, sim_sig_begin(sim, ctx, 0x1234, &bsf,
					    SIM_SIG_WIRE_TO_MEM), 0);
	rcu_read_unlock();
	sim_sig_buf_iter_init(&s, dst, 1024);
	sim_sig_buf_iter_init(&d, src, 1040);
	KUNIT_EXPECT_EQ(test, sim_sig_xfer(ctx, &d.it, &s.it, 1024), 1040);
	e = sim_sig_first_err(ctx);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->domain, SIM_SIG_MEM);
	KUNIT_EXPECT_EQ(test, e->syndrome, SIM_SIG_ERR_GUARD);
	KUNIT_EXPECT_EQ(test, memcmp(src, copy, 1040), 0);
	sim_sig_inject_parse(sim, "off");
	KUNIT_EXPECT_EQ(test, sim->inject.sig.nth, 0);
}

/* ---- throughput (reported, not asserted) -------------------------------- */

static void sig_throughput(struct kunit *test)
{
	struct mlx5sp_sim_sig_rate r = {};

	KUNIT_ASSERT_EQ(test, mlx5sp_sim_sig_bench(SZ_64K, 64, &r), 0);
	kunit_info(test, "T10-DIF check+strip %llu MB/s, crc_t10dif %llu MB/s, memcpy %llu MB/s\n",
		   r.xfer_bps >> 20, r.crc_bps >> 20, r.copy_bps >> 20);
	KUNIT_EXPECT_GT(test, r.xfer_bps, 0);
}

/*
 * Where a message through a signature key may be cut in chunks (a wire
 * message longer than the engine's buffers: xfer.c, wire_req.c): block
 * boundaries of both domains, counted from the key's start, any byte of a
 * plain entry; and a key's first error reported once over the chunks.
 */
static void sig_xfer_cut(struct kunit *test)
{
	const struct t_dom dif512 = { .kind = T_DIF_CRC,
				      .bs = MLX5SP_BS_512 };
	const struct t_dom dif4k = { .kind = T_DIF_CRC,
				     .bs = MLX5SP_BS_4096 };
	struct sim_sig_log log = {}, more = {}, fresh;
	struct sim_mkey *mk;
	struct sim_sge l[3];

	mk = kunit_kzalloc(test, sizeof(*mk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mk);
	spin_lock_init(&mk->lock);
	seqcount_spinlock_init(&mk->seq, &mk->lock);
	mk->bsf_en = true;
	mk->start = 0x10000;
	mk->len = 64 << 10;
	/* PI on the wire (insert): 520-byte blocks there */
	t_bsf(&mk->bsf, NULL, &dif512, 0xff);
	l[0] = (struct sim_sge){ .kva = (void *)1, .len = 100 };
	l[1] = (struct sim_sge){ .mk = mk, .va = 0x10000 + 520, .len = 5200,
				 .sig = true };
	l[2] = (struct sim_sge){ .kva = (void *)1, .len = 77 };
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 99), 99);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100), 100);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 519), 100);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 520), 100 + 520);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 1500), 100 + 1040);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 5200), 100 + 5200);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 5200 + 50),
			100 + 5200 + 50);
	/* past the list: where it is */
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 9999), 9999);
	/* an entry that starts off a boundary: only at its start */
	l[1].va = 0x10000 + 1000;
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 10), 100);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 100), 100 + 40);
	/* PI in memory only (strip): the wire is data, 4 KiB blocks */
	t_bsf(&mk->bsf, &dif4k, NULL, 0xff);
	l[1].va = 0x10000;
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 4095), 100);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 4097), 100 + 4096);
	/* both: 512 in memory, 4 KiB with PI on the wire: 4104 on it */
	t_bsf(&mk->bsf, &dif512, &dif4k, 0xff);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 4103), 100);
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 4104), 100 + 4104);
	/* no longer a signature key: its entry's start */
	mk->bsf_en = false;
	KUNIT_EXPECT_EQ(test, sim_xfer_cut(l, 3, 100 + 4200), 100);

	/* errors over chunks: a key's first once, per list */
	more.n = 2;
	more.hit[0] = (struct sim_sig_hit){ .mkey = 7 };
	more.hit[1] = (struct sim_sig_hit){ .mkey = 8, .dst = true };
	more.hit[0].err.offset = 1;
	sim_sig_log_merge(&log, &more);
	KUNIT_EXPECT_EQ(test, log.n, 2);
	more.hit[0].err.offset = 2;
	more.hit[1].dst = false;
	sim_sig_log_unseen(&fresh, &more, &log);
	KUNIT_EXPECT_EQ(test, fresh.n, 1);
	KUNIT_EXPECT_EQ(test, fresh.hit[0].mkey, 8);
	KUNIT_EXPECT_FALSE(test, fresh.hit[0].dst);
	KUNIT_EXPECT_EQ(test, log.n, 3);
	KUNIT_EXPECT_EQ(test, log.hit[0].err.offset, 1);
	sim_sig_log_unseen(&fresh, &more, &log);
	KUNIT_EXPECT_EQ(test, fresh.n, 0);
}

static struct kunit_case sig_engine_cases[] = {
	KUNIT_CASE(sig_known_answers),
	KUNIT_CASE(sig_roundtrip),
	KUNIT_CASE(sig_split_equivalence),
	KUNIT_CASE(sig_window_equivalence),
	KUNIT_CASE(sig_errors),
	KUNIT_CASE(sig_crc_errors),
	KUNIT_CASE(sig_escapes),
	KUNIT_CASE(sig_strip_and_copy),
	KUNIT_CASE(sig_bsf_decode),
	KUNIT_CASE(sig_err_cqe),
	KUNIT_CASE(sig_inject),
	KUNIT_CASE(sig_xfer_cut),
	KUNIT_CASE(sig_throughput),
	{}
};

static struct kunit_suite sig_engine_suite = {
	.name = "mlx5sp_sim_sig",
	.test_cases = sig_engine_cases,
};

/* ---- PSV objects through the command interface ------------------------ */

struct t_psv_dev {
	struct mlx5sp_sim *sim;
	struct mlx5sp_dev *dev;
	u32 pdn;
};

static void t_psv_dev_down(void *data)
{
	struct t_psv_dev *d = data;

	mlx5sp_sim_destroy(d->sim);
}

static int t_create_psv(struct t_psv_dev *d, u32 num, u32 pd, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(create_psv_in)] = {};

	MLX5_SET(create_psv_in, in, opcode, MLX5_CMD_OP_CREATE_PSV);
	MLX5_SET(create_psv_in, in, num_psv, num);
	MLX5_SET(create_psv_in, in, pd, pd);
	return mlx5sp_cmd_exec(d->dev, in, sizeof(in), out,
			       MLX5_ST_SZ_BYTES(create_psv_out));
}

static int t_destroy_psv(struct t_psv_dev *d, u32 psvn, u32 *out)
{
	u32 in[MLX5_ST_SZ_DW(destroy_psv_in)] = {};

	MLX5_SET(destroy_psv_in, in, opcode, MLX5_CMD_OP_DESTROY_PSV);
	MLX5_SET(destroy_psv_in, in, psvn, psvn);
	return mlx5sp_cmd_exec(d->dev, in, sizeof(in), out,
			       MLX5_ST_SZ_BYTES(destroy_psv_out));
}

static void psv_commands(struct kunit *test)
{
	u32 out[MLX5_ST_SZ_DW(create_psv_out)] = {};
	u32 pin[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	struct mlx5_seg_set_psv seg = {};
	struct t_psv_dev d = {}, *dp;
	struct sim_psv *psv;
	u32 p0, p1, p2, p3;
	u8 synd;

	/* the device outlives this frame: the cleanup action destroys it */
	dp = kunit_kzalloc(test, sizeof(*dp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dp);
	dp->sim = mlx5sp_sim_create("sgp0", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(dp->sim));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   t_psv_dev_down,
							   dp));
	d.sim = dp->sim;
	KUNIT_ASSERT_EQ(test, mlx5sp_sim_attach(d.sim), 0);
	d.dev = mlx5sp_model_to_dev(mlx5sp_sim_model(d.sim));
	KUNIT_ASSERT_NOT_NULL(test, d.dev);
	MLX5_SET(alloc_pd_in, pin, opcode, MLX5_CMD_OP_ALLOC_PD);
	KUNIT_ASSERT_EQ(test, mlx5sp_cmd_exec(d.dev, pin, sizeof(pin), out,
					      MLX5_ST_SZ_BYTES(alloc_pd_out)),
			0);
	d.pdn = MLX5_GET(alloc_pd_out, out, pd);

	/* two PSVs, as mlx5_ib's signature MR takes them */
	KUNIT_ASSERT_EQ(test, t_create_psv(&d, 2, d.pdn, out), 0);
	p0 = MLX5_GET(create_psv_out, out, psv0_index);
	p1 = MLX5_GET(create_psv_out, out, psv1_index);
	KUNIT_EXPECT_NE(test, p0, 0);
	KUNIT_EXPECT_NE(test, p1, 0);
	KUNIT_EXPECT_NE(test, p0, p1);
	KUNIT_EXPECT_EQ(test, MLX5_GET(create_psv_out, out, psv2_index), 0);
	KUNIT_ASSERT_EQ(test, t_create_psv(&d, 4, d.pdn, out), 0);
	p2 = MLX5_GET(create_psv_out, out, psv2_index);
	p3 = MLX5_GET(create_psv_out, out, psv3_index);
	KUNIT_EXPECT_NE(test, p2, p3);

	/* bad input */
	KUNIT_EXPECT_EQ(test, t_create_psv(&d, 0, d.pdn, out), -EINVAL);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_SYNDROME(out),
			MLX5SP_SIM_SYND_PSV_BAD_NUM);
	KUNIT_EXPECT_EQ(test, t_create_psv(&d, 5, d.pdn, out), -EINVAL);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, t_create_psv(&d, 1, d.pdn + 100, out), -EINVAL);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_SYNDROME(out),
			MLX5SP_SIM_SYND_PSV_BAD_PD);

	/* SET_PSV: the transient signature as the WQE carries it */
	seg.psv_num = cpu_to_be32(p0);
	seg.transient_sig = cpu_to_be32(0xffffabcd);
	seg.ref_tag = cpu_to_be32(0x01234567);
	rcu_read_lock();
	synd = sim_psv_set_wqe(d.sim, d.pdn, &seg);
	KUNIT_EXPECT_EQ(test, synd, 0);
	psv = sim_psv_lookup(d.sim, p0);
	KUNIT_EXPECT_NOT_NULL(test, psv);
	if (psv)
		KUNIT_EXPECT_EQ(test, sim_psv_get_ts(psv),
				0xffffabcd01234567ull);
	KUNIT_EXPECT_EQ(test, sim_psv_set_wqe(d.sim, d.pdn + 1, &seg),
			MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	seg.psv_num = cpu_to_be32(0xfffff);
	KUNIT_EXPECT_EQ(test, sim_psv_set_wqe(d.sim, d.pdn, &seg),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	rcu_read_unlock();

	/* destroy: good, twice, unknown */
	KUNIT_EXPECT_EQ(test, t_destroy_psv(&d, p1, out), 0);
	KUNIT_EXPECT_EQ(test, t_destroy_psv(&d, p1, out), -EINVAL);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_STATUS(out),
			MLX5_CMD_STAT_BAD_RES_ERR);
	KUNIT_EXPECT_EQ(test, MLX5SP_CMD_SYNDROME(out),
			MLX5SP_SIM_SYND_PSV_NOT_FOUND);
	KUNIT_EXPECT_EQ(test, t_destroy_psv(&d, 0, out), -EINVAL);
	KUNIT_EXPECT_EQ(test, t_destroy_psv(&d, p0, out), 0);
	/* p2, p3 and the rest go with the device */
}

static struct kunit_case psv_cases[] = {
	KUNIT_CASE(psv_commands),
	{}
};

static struct kunit_suite psv_suite = {
	.name = "mlx5sp_sim_psv",
	.test_cases = psv_cases,
};

kunit_test_suites(&sig_engine_suite, &psv_suite);
