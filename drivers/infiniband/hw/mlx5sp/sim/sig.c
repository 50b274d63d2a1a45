// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The signature engine: BSF and PSV decoding, the one-pass transfer that
 * checks, strips, generates and inserts block PI between the memory and
 * the wire domain, the SIGERR CQE, PSV objects (CREATE_PSV, DESTROY_PSV,
 * the SET_PSV WQE) and the sig_inject fault.
 *
 * PI layouts (big-endian, after each block of data):
 *   T10-DIF  guard:16 app tag:16 ref tag:32; guard = crc_t10dif over the
 *            block seeded with 0 or 0xffff, or the IP checksum
 *            (ip_compute_csum, as the block layer's t10_pi_ip_fn);
 *   CRC32    crc32_le / crc32c over the block seeded with 0 or all ones,
 *   CRC32C   then complemented (the check values of "123456789" are
 *            0xcbf43926 and 0xe3069283 with the all-ones seed).
 * check_byte_mask and copy_byte_mask name PI byte i by bit 7 - i.
 *
 * The SIGERR CQE follows mlx5dv_mkey_check(3): "expected" is what the
 * block's PI field holds, "actual" what the device computed from the data
 * (guard) or from the configuration (app tag, ref tag).
 */

#include <kunit/visibility.h>
#include <linux/crc-t10dif.h>
#include <linux/crc32.h>
#include <linux/crc32c.h>
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>
#include <net/checksum.h>

#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "sig.h"
#include "sim.h"
#include "syndromes.h"

#define SIM_MAX_PSV		BIT(20)
#define SIM_PSV_PER_CMD		4

static const u32 sim_sig_bs[] = {
	[MLX5SP_BS_512] = 512,
	[MLX5SP_BS_520] = 520,
	[MLX5SP_BS_4096] = 4096,
	[MLX5SP_BS_4160] = 4160,
	[MLX5SP_BS_1G] = SZ_1G,
	[MLX5SP_BS_4048] = 4048,
};

u32 sim_sig_bs_bytes(u8 selector)
{
	return selector < ARRAY_SIZE(sim_sig_bs) ? sim_sig_bs[selector] : 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_bs_bytes);

/* ---- guards ------------------------------------------------------------ */

static bool sim_sig_is_dif(const struct sim_sig_domain *d)
{
	return d->type == SIM_SIG_T10DIF_CRC || d->type == SIM_SIG_T10DIF_CSUM;
}

/* PI bytes holding the guard, as a check/copy mask */
static u8 sim_sig_guard_bytes(const struct sim_sig_domain *d)
{
	return sim_sig_is_dif(d) ? MLX5_CPY_GRD_MASK : 0xf0;
}

static u32 sim_sig_guard_init(const struct sim_sig_domain *d)
{
	switch (d->type) {
	case SIM_SIG_T10DIF_CRC:
		return d->seed;
	case SIM_SIG_CRC32:
	case SIM_SIG_CRC32C:
		return d->crc_seed;
	default:
		return 0;
	}
}

/*
 * Fold @n bytes at @p, at byte @pos of the block, into the running guard.
 * Inline: it runs once per block and run of a transfer, and a call more
 * per block is a measurable part of a transfer's cost next to a fast CRC.
 */
static __always_inline u32
sim_sig_guard_update(const struct sim_sig_domain *d, u32 crc, const u8 *p,
		     u32 n, u32 pos)
{
	switch (d->type) {
	case SIM_SIG_T10DIF_CRC:
		return crc_t10dif_update(crc, p, n);
	case SIM_SIG_T10DIF_CSUM:
		return (__force u32)csum_block_add((__force __wsum)crc,
						   csum_partial(p, n, 0), pos);
	case SIM_SIG_CRC32:
		return crc32_le(crc, p, n);
	case SIM_SIG_CRC32C:
		return crc32c(crc, p, n);
	default:
		return 0;
	}
}

static u32 sim_sig_guard_final(const struct sim_sig_domain *d, u32 crc)
{
	switch (d->type) {
	case SIM_SIG_T10DIF_CRC:
		return crc & 0xffff;
	case SIM_SIG_T10DIF_CSUM:
		return be16_to_cpu((__force __be16)csum_fold((__force __wsum)crc));
	case SIM_SIG_CRC32:
	case SIM_SIG_CRC32C:
		return crc ^ 0xffffffff;
	default:
		return 0;
	}
}

static u32 sim_sig_ref(const struct sim_sig_domain *d, u64 blk)
{
	return d->ref_inc ? d->ref_tag + (u32)blk : d->ref_tag;
}

/* A 2- or 4-byte field's mask from the mask bits of its bytes. */
static u32 sim_sig_bytes_mask(u8 bits, int nbytes)
{
	u32 m = 0;
	int i;

	for (i = 0; i < nbytes; i++)
		if (bits & BIT(nbytes - 1 - i))
			m |= 0xffu << (8 * (nbytes - 1 - i));
	return m;
}

/* ---- decoding ---------------------------------------------------------- */

static int sim_sig_decode_dom(struct sim_sig_domain *d, u32 bfs_psv,
			      const struct mlx5_bsf_inl *inl, u32 bs, u64 ts)
{
	u8 bfs = bfs_psv >> MLX5SP_BFS_SHIFT;
	u16 vld = be16_to_cpu(inl->vld_refresh);
	u8 flags;

	memset(d, 0, sizeof(*d));
	d->psv = bfs_psv & MLX5SP_BSF_PSV_INDEX_MASK;
	if (bfs) {
		switch (bfs & ~(MLX5SP_BFS_CRC_REPEAT_BIT |
				MLX5SP_BFS_CRC_SEED_BIT)) {
		case MLX5SP_BFS_CRC32_BASE:
			d->type = SIM_SIG_CRC32;
			break;
		case MLX5SP_BFS_CRC32C_BASE:
			d->type = SIM_SIG_CRC32C;
			break;
		case MLX5SP_BFS_CRC64_XP10_BASE:
			return -EOPNOTSUPP;
		default:
			return -EINVAL;
		}
		if (!(bfs & MLX5SP_BFS_CRC_REPEAT_BIT))
			return -EINVAL;
		d->crc_seed = (bfs & MLX5SP_BFS_CRC_SEED_BIT) ? 0 : U32_MAX;
		d->pi_size = 4;
	} else if (vld & MLX5_BSF_INL_VALID) {
		switch (inl->sig_type) {
		case MLX5_DIF_CRC:
			d->type = SIM_SIG_T10DIF_CRC;
			break;
		case MLX5_DIF_IPCS:
			d->type = SIM_SIG_T10DIF_CSUM;
			break;
		default:
			return -EINVAL;
		}
		if (!(inl->rp_inv_seed & MLX5_BSF_REPEAT_BLOCK))
			return -EINVAL;
		d->seed = (inl->rp_inv_seed & MLX5SP_BSF_SEED) ? 0xffff :
			  ts >> 48;
		if (vld & MLX5_BSF_REFRESH_DIF) {
			d->app_tag = be16_to_cpu(inl->dif_apptag);
			d->ref_tag = be32_to_cpu(inl->dif_reftag);
		} else {
			d->app_tag = ts >> 32;
			d->ref_tag = (u32)ts;
		}
		flags = inl->dif_inc_ref_guard_check;
		d->ref_inc = flags & MLX5_BSF_INC_REFTAG;
		d->app_ref_escape = flags & MLX5_BSF_APPREF_ESCAPE;
		d->app_escape = !d->app_ref_escape &&
				(flags & MLX5_BSF_APPTAG_ESCAPE);
		d->app_mask = be16_to_cpu(inl->dif_app_bitmask_check);
		d->pi_size = MLX5_DIF_SIZE;
	} else {
		return 0;
	}
	if (!bs)
		return -EINVAL;
	d->block_size = bs;
	return 0;
}

int sim_sig_ctx_init(struct sim_sig_ctx *ctx, const struct mlx5_bsf *bsf,
		     u64 mem_ts, u64 wire_ts, enum sim_sig_dir dir)
{
	const struct mlx5_bsf_basic *b = &bsf->basic;
	struct sim_sig_domain *mem, *wire, *in, *out;
	u8 size = b->bsf_size_sbs >> MLX5SP_BSF_SIZE_SHIFT;
	u32 mem_bs;
	int err;

	memset(ctx, 0, sizeof(*ctx));
	if (dir != SIM_SIG_MEM_TO_WIRE && dir != SIM_SIG_WIRE_TO_MEM)
		return -EINVAL;
	/* the inline sections describe T10-DIF; crypto BSFs are not modelled */
	if (size != MLX5SP_BSF_SIZE_WITH_INLINE)
		return size == MLX5SP_BSF_SIZE_SIG_AND_CRYPTO ? -EOPNOTSUPP :
								-EINVAL;
	ctx->dir = dir;
	ctx->sbs = b->bsf_size_sbs & MLX5SP_BSF_SBS;
	ctx->check_mask = b->check_byte_mask;
	ctx->raw_data_size = be32_to_cpu(b->raw_data_size);
	mem = &ctx->dom[SIM_SIG_MEM];
	wire = &ctx->dom[SIM_SIG_WIRE];

	mem_bs = sim_sig_bs_bytes(b->mem.bs_selector);
	err = sim_sig_decode_dom(mem, be32_to_cpu(b->m_bfs_psv), &bsf->m_inl,
				 mem_bs, mem_ts);
	if (err)
		return err;
	err = sim_sig_decode_dom(wire, be32_to_cpu(b->w_bfs_psv), &bsf->w_inl,
				 ctx->sbs ? mem_bs :
					    sim_sig_bs_bytes(b->wire.bs_selector),
				 wire_ts);
	if (err)
		return err;
	if (ctx->sbs) {
		/* same block structure: same type family and size */
		if (!mem->type || !wire->type || mem->pi_size != wire->pi_size)
			return -EINVAL;
		ctx->copy_mask = b->wire.copy_byte_mask;
		if (mem->pi_size == 4)
			ctx->copy_mask &= 0xf0;
	}

	in = &ctx->dom[sim_sig_in_dom(ctx)];
	out = &ctx->dom[sim_sig_out_dom(ctx)];
	ctx->in.crc = sim_sig_guard_init(in);
	ctx->out.crc = sim_sig_guard_init(out);
	ctx->in_guard = in->type &&
			(ctx->check_mask & sim_sig_guard_bytes(in));
	ctx->out_guard = out->type &&
			 (ctx->copy_mask & sim_sig_guard_bytes(out)) !=
			 sim_sig_guard_bytes(out);
	ctx->share_guard = ctx->sbs && ctx->in_guard && ctx->out_guard &&
			   in->type == out->type && in->seed == out->seed &&
			   in->crc_seed == out->crc_seed;
	/* once here rather than for every block checked */
	if (sim_sig_is_dif(in))
		ctx->pi_cmask =
			(u64)sim_sig_bytes_mask(ctx->check_mask >> 6, 2) << 48 |
			(u64)(sim_sig_bytes_mask(ctx->check_mask >> 4, 2) &
			      in->app_mask) << 32 |
			sim_sig_bytes_mask(ctx->check_mask, 4);
	else
		ctx->pi_cmask =
			(u64)sim_sig_bytes_mask(ctx->check_mask >> 4, 4) << 32;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_ctx_init);

/* Data bytes in the first @len bytes of a domain's stream (from a block). */
u64 sim_sig_dom_data(const struct sim_sig_domain *d, u64 len)
{
	u64 full, rem;

	if (!d->type)
		return len;
	full = div64_u64_rem(len, d->block_size + d->pi_size, &rem);
	return full * d->block_size + min_t(u64, rem, d->block_size);
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_dom_data);

/*
 * Bytes of a domain's stream (from a block) holding @data data bytes and
 * the PI of every block they complete.
 */
u64 sim_sig_dom_bytes(const struct sim_sig_domain *d, u64 data)
{
	u64 full, rem;

	if (!d->type)
		return data;
	full = div64_u64_rem(data, d->block_size, &rem);
	return full * (d->block_size + d->pi_size) + rem;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_dom_bytes);

/*
 * A BSF a UMR gives a key: 0 when the engine can run transfers through it,
 * and the length of the key's wire domain for @mem_len memory bytes (the
 * wire carries the PI of the blocks complete in memory).
 */
int sim_sig_bsf_wire_len(const struct mlx5_bsf *bsf, u64 mem_len,
			 u64 *wire_len)
{
	struct sim_sig_ctx ctx;
	int err;

	err = sim_sig_ctx_init(&ctx, bsf, 0, 0, SIM_SIG_MEM_TO_WIRE);
	if (err)
		return err;
	*wire_len = sim_sig_dom_bytes(&ctx.dom[SIM_SIG_WIRE],
				      sim_sig_dom_data(&ctx.dom[SIM_SIG_MEM],
						       mem_len));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_bsf_wire_len);

int sim_sig_ctx_seek(struct sim_sig_ctx *ctx, u64 data)
{
	const struct sim_sig_domain *in = &ctx->dom[sim_sig_in_dom(ctx)];
	const struct sim_sig_domain *out = &ctx->dom[sim_sig_out_dom(ctx)];

	if (ctx->data || ctx->in.pos || ctx->out.pos || ctx->in.in_pi ||
	    ctx->out.in_pi)
		return -EBUSY;
	if ((in->type && data % in->block_size) ||
	    (out->type && data % out->block_size))
		return -EINVAL;
	if (in->type)
		ctx->in.blk = div_u64(data, in->block_size);
	if (out->type)
		ctx->out.blk = div_u64(data, out->block_size);
	ctx->data = data;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_ctx_seek);

/* ---- the transfer ------------------------------------------------------ */

static void sim_sig_record(struct sim_sig_ctx *ctx, u8 dom, u16 kind,
			   u64 expected, u64 actual, bool injected)
{
	const struct sim_sig_domain *d = &ctx->dom[dom];
	struct sim_sig_err *e = &ctx->err[dom];
	u64 blk = dom == sim_sig_in_dom(ctx) ? ctx->in.blk : ctx->out.blk;

	if (e->syndrome)
		return;
	e->syndrome = kind;
	e->domain = dom;
	e->injected = injected;
	e->expected = expected;
	e->actual = actual;
	e->offset = blk * (d->block_size + d->pi_size);
}

/* An injected error: the device's value differs in the chosen field. */
static u64 sim_sig_inject_flip(const struct sim_sig_domain *d, u16 *kind)
{
	if (!sim_sig_is_dif(d)) {
		*kind = SIM_SIG_ERR_GUARD;
		return 1ull << 32;
	}
	switch (*kind) {
	case SIM_SIG_ERR_APPTAG:
		return 1ull << 32;
	case SIM_SIG_ERR_REFTAG:
		return 1;
	default:
		*kind = SIM_SIG_ERR_GUARD;
		return 1ull << 48;
	}
}

/*
 * A block whose checked PI bytes differ from what the device computed, or
 * the one an injected error lands on: which field fails, and the record.
 */
static noinline void sim_sig_check_slow(struct sim_sig_ctx *ctx,
					u64 expected, u64 actual)
{
	u8 dom = sim_sig_in_dom(ctx);
	const struct sim_sig_domain *d = &ctx->dom[dom];
	u64 diff = (expected ^ actual) & ctx->pi_cmask;
	u16 kind = 0;
	u16 inj;

	if (sim_sig_is_dif(d)) {
		u16 pa = expected >> 32;
		u32 pr = expected;
		bool escaped = pa == 0xffff &&
			       (d->app_escape ||
				(d->app_ref_escape && pr == 0xffffffff));

		if (escaped)
			;
		else if (diff >> 48)
			kind = SIM_SIG_ERR_GUARD;
		else if ((diff >> 32) & 0xffff)
			kind = SIM_SIG_ERR_APPTAG;
		else if ((u32)diff)
			kind = SIM_SIG_ERR_REFTAG;
	} else if (diff) {
		kind = SIM_SIG_ERR_GUARD;
	}
	if (kind) {
		sim_sig_record(ctx, dom, kind, expected, actual, false);
	} else if (ctx->inject) {
		inj = ctx->inject;
		ctx->inject = 0;
		actual ^= sim_sig_inject_flip(d, &inj);
		sim_sig_record(ctx, dom, inj, expected, actual, true);
	}
}

/*
 * The input block's PI is complete: check it (guard, app tag, ref tag).
 * Inline and one comparison for a good block, the case every block of a
 * transfer but one at most is in; the escapes only excuse a mismatch.
 */
static __always_inline void sim_sig_check(struct sim_sig_ctx *ctx,
					  u32 guard)
{
	const struct sim_sig_domain *d = &ctx->dom[sim_sig_in_dom(ctx)];
	const u8 *pi = ctx->in.pi;
	u64 expected, actual;

	ctx->blocks_checked++;
	if (sim_sig_is_dif(d)) {
		expected = get_unaligned_be64(pi);
		actual = (u64)guard << 48 | (u64)d->app_tag << 32 |
			 sim_sig_ref(d, ctx->in.blk);
	} else {
		expected = (u64)get_unaligned_be32(pi) << 32;
		actual = (u64)guard << 32;
	}
	if (likely(!((expected ^ actual) & ctx->pi_cmask) && !ctx->inject))
		return;
	sim_sig_check_slow(ctx, expected, actual);
}

/* The output block's data is complete: generate its PI. */
static void sim_sig_build(struct sim_sig_ctx *ctx)
{
	u8 dom = sim_sig_out_dom(ctx);
	const struct sim_sig_domain *d = &ctx->dom[dom];
	u8 *pi = ctx->out.pi;
	u32 guard;
	u64 flip;
	u16 inj;
	int i;

	guard = ctx->share_guard ? ctx->last_guard :
				   sim_sig_guard_final(d, ctx->out.crc);
	if (sim_sig_is_dif(d)) {
		put_unaligned_be16(guard, pi);
		put_unaligned_be16(d->app_tag, pi + 2);
		put_unaligned_be32(sim_sig_ref(d, ctx->out.blk), pi + 4);
	} else {
		put_unaligned_be32(guard, pi);
	}
	for (i = 0; i < d->pi_size; i++)
		if (ctx->copy_mask & (0x80 >> i))
			pi[i] = ctx->in.pi[i];

	/* nothing checked on the way in: an injected error lands here */
	if (ctx->inject && !ctx->dom[sim_sig_in_dom(ctx)].type) {
		u64 v = sim_sig_is_dif(d) ?
			(u64)get_unaligned_be16(pi) << 48 |
			(u64)get_unaligned_be16(pi + 2) << 32 |
			get_unaligned_be32(pi + 4) :
			(u64)get_unaligned_be32(pi) << 32;

		inj = ctx->inject;
		ctx->inject = 0;
		flip = sim_sig_inject_flip(d, &inj);
		sim_sig_record(ctx, dom, inj, v, v ^ flip, true);
	}
	ctx->out.pi_built = true;
}

static void sim_sig_run_next(struct sim_sig_run *r, u32 seed)
{
	r->blk++;
	r->pos = 0;
	r->pi_pos = 0;
	r->in_pi = false;
	r->pi_built = false;
	r->crc = seed;
}

static void sim_sig_next_block(struct sim_sig_run *r,
			       const struct sim_sig_domain *d)
{
	sim_sig_run_next(r, sim_sig_guard_init(d));
}

/* The window of @it with at most *@len bytes; NULL: the stream ended. */
static inline u8 *sim_sig_iter_get(struct sim_sig_iter *it, u32 *len)
{
	if (!it->avail && (it->refill(it) || !it->avail))
		return NULL;
	*len = min(*len, it->avail);
	return it->p;
}

static inline void sim_sig_iter_put(struct sim_sig_iter *it, u32 n)
{
	it->p += n;
	it->avail -= n;
}

/* Move @n bytes between a stream and a small buffer. */
static int sim_sig_io(struct sim_sig_iter *it, u8 *buf, u32 n, bool write)
{
	u8 *p;
	u32 l;

	while (n) {
		l = n;
		p = sim_sig_iter_get(it, &l);
		if (!p)
			return -EFAULT;
		if (write)
			memcpy(p, buf, l);
		else
			memcpy(buf, p, l);
		sim_sig_iter_put(it, l);
		buf += l;
		n -= l;
	}
	return 0;
}

/* Copy @n (at most 8) PI bytes: the PI sizes as constants, for a move. */
static __always_inline void sim_sig_pi_move(u8 *to, const u8 *from, u32 n)
{
	if (n == MLX5_DIF_SIZE)
		memcpy(to, from, MLX5_DIF_SIZE);
	else if (n == sizeof(u32))
		memcpy(to, from, sizeof(u32));
	else
		memcpy(to, from, n);
}

/*
 * Move @n PI bytes between a stream and a context's PI: in line when the
 * window holds them, as it does but where a run ends.
 */
static __always_inline int sim_sig_pi_io(struct sim_sig_iter *it, u8 *pi,
					 u32 n, bool write)
{
	if (unlikely(it->avail < n))
		return sim_sig_io(it, pi, n, write);
	if (write)
		sim_sig_pi_move(it->p, pi, n);
	else
		sim_sig_pi_move(pi, it->p, n);
	sim_sig_iter_put(it, n);
	return 0;
}

/* Copy @n data bytes, folding them into the guards that are needed. */
static int sim_sig_copy(struct sim_sig_ctx *ctx, struct sim_sig_iter *dst,
			struct sim_sig_iter *src, u32 n)
{
	const struct sim_sig_domain *in = &ctx->dom[sim_sig_in_dom(ctx)];
	const struct sim_sig_domain *out = &ctx->dom[sim_sig_out_dom(ctx)];
	u8 *sp, *dp;
	u32 l;

	while (n) {
		l = n;
		sp = sim_sig_iter_get(src, &l);
		if (!sp)
			return -EFAULT;
		dp = sim_sig_iter_get(dst, &l);
		if (!dp)
			return -EFAULT;
		memcpy(dp, sp, l);
		/* the guards read the copy while it is hot in the cache */
		if (ctx->in_guard)
			ctx->in.crc = sim_sig_guard_update(in, ctx->in.crc, dp,
							   l, ctx->in.pos);
		if (ctx->out_guard && !ctx->share_guard)
			ctx->out.crc = sim_sig_guard_update(out, ctx->out.crc,
							    dp, l,
							    ctx->out.pos);
		sim_sig_iter_put(src, l);
		sim_sig_iter_put(dst, l);
		ctx->in.pos += l;
		ctx->out.pos += l;
		ctx->data += l;
		n -= l;
	}
	return 0;
}

/*
 * Whole blocks of @bs data bytes with their input and output PI, from a
 * block boundary of the domains that have PI, as long as both windows hold
 * a whole block: what sim_sig_xfer() does over the byte stream
 * (sim_sig_copy(), the input PI, then the output PI it feeds) a block at a
 * time, without the bookkeeping that a block split across runs needs.
 * Consumes input from *@len; returns the bytes written.
 */
static u64 sim_sig_blocks(struct sim_sig_ctx *ctx, struct sim_sig_iter *dst,
			  struct sim_sig_iter *src, u64 *len, u32 bs)
{
	const struct sim_sig_domain *in = &ctx->dom[sim_sig_in_dom(ctx)];
	const struct sim_sig_domain *out = &ctx->dom[sim_sig_out_dom(ctx)];
	u32 in_len = bs + in->pi_size, out_len = bs + out->pi_size;
	u32 s_avail = src->avail, d_avail = dst->avail;
	u8 *sp = src->p, *dp = dst->p;
	u64 left = *len, written = 0;
	/*
	 * Loop invariants in locals: the calls in the loop (the copy, the
	 * CRC) would have them reloaded from ctx for every block.
	 */
	u32 in_seed = sim_sig_guard_init(in);
	u32 out_seed = sim_sig_guard_init(out);
	bool in_guard = ctx->in_guard;
	bool out_guard = ctx->out_guard && !ctx->share_guard;
	bool in_pi = in->type, out_pi = out->type;
	u32 guard;

	while (left >= in_len && s_avail >= in_len && d_avail >= out_len &&
	       ctx->data + bs <= ctx->raw_data_size) {
		memcpy(dp, sp, bs);
		if (in_guard)
			ctx->in.crc = sim_sig_guard_update(in, ctx->in.crc, dp,
							   bs, 0);
		if (out_guard)
			ctx->out.crc = sim_sig_guard_update(out, ctx->out.crc,
							    dp, bs, 0);
		ctx->data += bs;
		if (in_pi) {
			sim_sig_pi_move(ctx->in.pi, sp + bs, in->pi_size);
			guard = sim_sig_guard_final(in, ctx->in.crc);
			ctx->last_guard = guard;
			sim_sig_check(ctx, guard);
			sim_sig_run_next(&ctx->in, in_seed);
		} else {
			ctx->in.pos += bs;
		}
		if (out_pi) {
			sim_sig_build(ctx);
			sim_sig_pi_move(dp + bs, ctx->out.pi, out->pi_size);
			sim_sig_run_next(&ctx->out, out_seed);
		} else {
			ctx->out.pos += bs;
		}
		sp += in_len;
		s_avail -= in_len;
		dp += out_len;
		d_avail -= out_len;
		left -= in_len;
		written += out_len;
	}
	src->p = sp;
	src->avail = s_avail;
	dst->p = dp;
	dst->avail = d_avail;
	*len = left;
	return written;
}

s64 sim_sig_xfer(struct sim_sig_ctx *ctx, struct sim_sig_iter *dst,
		 struct sim_sig_iter *src, u64 len)
{
	const struct sim_sig_domain *in = &ctx->dom[sim_sig_in_dom(ctx)];
	const struct sim_sig_domain *out = &ctx->dom[sim_sig_out_dom(ctx)];
	bool any = in->type || out->type;
	u32 bs = in->type ? in->block_size : out->block_size;
	u64 written = 0, n;
	u32 guard;
	int err;

	/* block by block only where the domains' blocks are the same data */
	if (in->type && out->type && in->block_size != out->block_size)
		bs = 0;
	for (;;) {
		/* at a block boundary of the domains with PI */
		if (bs && (!in->type || (!ctx->in.pos && !ctx->in.in_pi)) &&
		    (!out->type || (!ctx->out.pos && !ctx->out.in_pi)))
			written += sim_sig_blocks(ctx, dst, src, &len, bs);
		if (ctx->in.in_pi) {
			/* the input PI comes before the output PI it feeds */
			if (!len)
				break;
			n = min_t(u64, len, in->pi_size - ctx->in.pi_pos);
			err = sim_sig_pi_io(src, ctx->in.pi + ctx->in.pi_pos,
					    n, false);
			if (err)
				return err;
			len -= n;
			ctx->in.pi_pos += n;
			if (ctx->in.pi_pos < in->pi_size)
				continue;
			guard = sim_sig_guard_final(in, ctx->in.crc);
			ctx->last_guard = guard;
			sim_sig_check(ctx, guard);
			sim_sig_next_block(&ctx->in, in);
			continue;
		}
		if (ctx->out.in_pi) {
			if (!ctx->out.pi_built)
				sim_sig_build(ctx);
			n = out->pi_size - ctx->out.pi_pos;
			err = sim_sig_pi_io(dst, ctx->out.pi + ctx->out.pi_pos,
					    n, true);
			if (err)
				return err;
			written += n;
			sim_sig_next_block(&ctx->out, out);
			continue;
		}
		if (!len)
			break;
		n = len;
		if (in->type)
			n = min_t(u64, n, in->block_size - ctx->in.pos);
		if (out->type)
			n = min_t(u64, n, out->block_size - ctx->out.pos);
		n = min_t(u64, n, SZ_1G);
		if (any && ctx->data + n > ctx->raw_data_size)
			return -ERANGE;
		err = sim_sig_copy(ctx, dst, src, n);
		if (err)
			return err;
		len -= n;
		written += n;
		if (in->type && ctx->in.pos == in->block_size)
			ctx->in.in_pi = true;
		if (out->type && ctx->out.pos == out->block_size)
			ctx->out.in_pi = true;
	}
	return written;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_xfer);

/* Data bytes among the next @n bytes of a domain's stream. */
static u64 sim_sig_data_in(const struct sim_sig_domain *d,
			   const struct sim_sig_run *r, u64 n)
{
	u64 data = 0, k, stride;

	if (!d->type)
		return n;
	if (r->in_pi) {
		k = min_t(u64, n, d->pi_size - r->pi_pos);
		n -= k;
	} else {
		k = min_t(u64, n, d->block_size - r->pos);
		data += k;
		n -= k;
		k = min_t(u64, n, d->pi_size);
		n -= k;
	}
	stride = d->block_size + d->pi_size;
	data += div64_u64_rem(n, stride, &k) * d->block_size;
	data += min_t(u64, k, d->block_size);
	return data;
}

u64 sim_sig_out_len(const struct sim_sig_ctx *ctx, u64 in_len)
{
	const struct sim_sig_domain *in = &ctx->dom[sim_sig_in_dom(ctx)];
	const struct sim_sig_domain *out = &ctx->dom[sim_sig_out_dom(ctx)];
	u64 data = sim_sig_data_in(in, &ctx->in, in_len);
	u64 len = data;

	if (!out->type)
		return len;
	if (ctx->out.in_pi)
		len += out->pi_size - ctx->out.pi_pos;
	len += div64_u64(ctx->out.pos + data, out->block_size) *
	       out->pi_size;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_out_len);

const struct sim_sig_err *sim_sig_first_err(const struct sim_sig_ctx *ctx)
{
	if (ctx->err[sim_sig_in_dom(ctx)].syndrome)
		return &ctx->err[sim_sig_in_dom(ctx)];
	if (ctx->err[sim_sig_out_dom(ctx)].syndrome)
		return &ctx->err[sim_sig_out_dom(ctx)];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_first_err);

/*
 * What the PSV holds after the transfer: for T10-DIF the guard seed, the
 * app tag and the ref tag of the domain's next block; for CRC the seed.
 */
u64 sim_sig_psv_ts(const struct sim_sig_ctx *ctx, u8 domain)
{
	const struct sim_sig_domain *d = &ctx->dom[domain];
	const struct sim_sig_run *r = domain == sim_sig_in_dom(ctx) ?
				      &ctx->in : &ctx->out;

	if (sim_sig_is_dif(d))
		return (u64)d->seed << 48 | (u64)d->app_tag << 32 |
		       sim_sig_ref(d, r->blk);
	if (d->type)
		return (u64)d->crc_seed << 32;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_psv_ts);

static int sim_sig_buf_end(struct sim_sig_iter *it)
{
	return -EFAULT;
}

void sim_sig_buf_iter_init(struct sim_sig_buf_iter *b, void *p, u32 len)
{
	b->it.p = p;
	b->it.avail = len;
	b->it.refill = sim_sig_buf_end;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_buf_iter_init);

/* ---- the SIGERR CQE ---------------------------------------------------- */

void sim_sig_err_cqe_encode(struct mlx5_cqe64 *cqe,
			    const struct sim_sig_err *err, u32 mkey, u32 qpn,
			    u32 index, u8 log_size)
{
	struct mlx5_sig_err_cqe *s = (struct mlx5_sig_err_cqe *)cqe;

	BUILD_BUG_ON(sizeof(*s) != sizeof(*cqe));
	memset(cqe, 0, sizeof(*cqe));
	s->expected_trans_sig = cpu_to_be32(err->expected >> 32);
	s->actual_trans_sig = cpu_to_be32(err->actual >> 32);
	s->expected_reftag = cpu_to_be32((u32)err->expected);
	s->actual_reftag = cpu_to_be32((u32)err->actual);
	s->syndrome = cpu_to_be16(err->syndrome);
	MLX5SP_SIGERR_SIG_TYPE(s) = MLX5SP_SIGERR_SIG_TYPE_BLOCK;
	MLX5SP_SIGERR_DOMAIN(s) = err->domain;
	s->mkey = cpu_to_be32(mkey);
	s->err_offset = cpu_to_be64(err->offset);
	s->qpn = cpu_to_be32(qpn & 0xffffff);
	s->op_own = MLX5_CQE_SIG_ERR << 4 | ((index >> log_size) & 1);
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_err_cqe_encode);

/* ---- PSV objects ------------------------------------------------------- */

static void sim_psv_free(struct mlx5sp_sim *sim, u32 index)
{
	struct sim_psv *psv = xa_erase(&sim->psvs, index);

	if (psv)
		kfree_rcu(psv, rcu);
}

static void sim_psv_out(void *out, int i, u32 index)
{
	switch (i) {
	case 0:
		MLX5_SET(create_psv_out, out, psv0_index, index);
		break;
	case 1:
		MLX5_SET(create_psv_out, out, psv1_index, index);
		break;
	case 2:
		MLX5_SET(create_psv_out, out, psv2_index, index);
		break;
	default:
		MLX5_SET(create_psv_out, out, psv3_index, index);
		break;
	}
}

int sim_cmd_create_psv(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	u32 num = MLX5_GET(create_psv_in, c->in, num_psv);
	u32 pd = MLX5_GET(create_psv_in, c->in, pd);
	u32 idx[SIM_PSV_PER_CMD];
	struct sim_psv *psv;
	int i, err;

	if (!num || num > SIM_PSV_PER_CMD)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_PSV_BAD_NUM);
	if (!sim_pd_exists(sim, pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_PSV_BAD_PD);
	for (i = 0; i < num; i++) {
		psv = kzalloc(sizeof(*psv), GFP_KERNEL);
		if (!psv) {
			sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				 MLX5SP_SIM_SYND_NO_MEMORY);
			goto err_free_psvs;
		}
		psv->pd = pd;
		spin_lock_init(&psv->lock);
		err = xa_alloc(&sim->psvs, &psv->index, psv,
			       XA_LIMIT(1, SIM_MAX_PSV - 1), GFP_KERNEL);
		if (err) {
			kfree(psv);
			sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				 err == -EBUSY ? MLX5SP_SIM_SYND_PSV_EXHAUSTED :
						 MLX5SP_SIM_SYND_NO_MEMORY);
			goto err_free_psvs;
		}
		idx[i] = psv->index;
	}
	for (i = 0; i < num; i++)
		sim_psv_out(c->out, i, idx[i]);
	return 0;

err_free_psvs:
	while (i--)
		sim_psv_free(sim, idx[i]);
	return -EINVAL;
}

int sim_cmd_destroy_psv(struct sim_cmd *c)
{
	u32 index = MLX5_GET(destroy_psv_in, c->in, psvn);

	if (!index || !xa_load(&c->sim->psvs, index))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_PSV_NOT_FOUND);
	sim_psv_free(c->sim, index);
	return 0;
}

void sim_psv_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_psv *psv;
	unsigned long i;

	xa_for_each(&sim->psvs, i, psv)
		sim_psv_free(sim, i);
	xa_destroy(&sim->psvs);
}

struct sim_psv *sim_psv_lookup(struct mlx5sp_sim *sim, u32 index)
{
	return index ? xa_load(&sim->psvs, index) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sim_psv_lookup);

u64 sim_psv_get_ts(struct sim_psv *psv)
{
	u64 ts;

	spin_lock_bh(&psv->lock);
	ts = psv->ts;
	spin_unlock_bh(&psv->lock);
	return ts;
}
EXPORT_SYMBOL_IF_KUNIT(sim_psv_get_ts);

void sim_psv_set_ts(struct sim_psv *psv, u64 ts)
{
	spin_lock_bh(&psv->lock);
	psv->ts = ts;
	spin_unlock_bh(&psv->lock);
}

u8 sim_psv_set_wqe(struct mlx5sp_sim *sim, u32 pd,
		   const struct mlx5_seg_set_psv *seg)
{
	struct sim_psv *psv;

	psv = sim_psv_lookup(sim, be32_to_cpu(seg->psv_num) & 0xffffff);
	if (!psv)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (psv->pd != pd)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	sim_psv_set_ts(psv, (u64)be32_to_cpu(seg->transient_sig) << 32 |
			    be32_to_cpu(seg->ref_tag));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_psv_set_wqe);

static u64 sim_sig_psv_read(struct mlx5sp_sim *sim, u32 bfs_psv)
{
	struct sim_psv *psv;

	psv = sim_psv_lookup(sim, bfs_psv & MLX5SP_BSF_PSV_INDEX_MASK);
	return psv ? sim_psv_get_ts(psv) : 0;
}

int sim_sig_begin(struct mlx5sp_sim *sim, struct sim_sig_ctx *ctx, u32 mkey,
		  const struct mlx5_bsf *bsf, enum sim_sig_dir dir)
{
	u16 kind;
	int err;

	err = sim_sig_ctx_init(ctx, bsf,
			       sim_sig_psv_read(sim,
						be32_to_cpu(bsf->basic.m_bfs_psv)),
			       sim_sig_psv_read(sim,
						be32_to_cpu(bsf->basic.w_bfs_psv)),
			       dir);
	if (err)
		return err;
	ctx->t0 = ktime_get_ns();
	if ((ctx->dom[SIM_SIG_MEM].type || ctx->dom[SIM_SIG_WIRE].type) &&
	    sim_sig_inject_take(sim, mkey, &kind))
		ctx->inject = kind;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_begin);

void sim_sig_end(struct mlx5sp_sim *sim, const struct sim_sig_ctx *ctx)
{
	bool sig = false, err = false;
	struct sim_psv *psv;
	u8 dom;

	for (dom = 0; dom < SIM_SIG_NR_DOM; dom++) {
		if (!ctx->dom[dom].type)
			continue;
		sig = true;
		err |= !!ctx->err[dom].syndrome;
		psv = sim_psv_lookup(sim, ctx->dom[dom].psv);
		if (psv)
			sim_psv_set_ts(psv, sim_sig_psv_ts(ctx, dom));
	}
	/* what a storage test shows its I/O went through the engine by */
	if (sig) {
		sim_stat_inc(sim, sig_transfers);
		/* the engine's time on them: what PI costs a storage path */
		sim_stat_add(sim, sig_ns, ktime_get_ns() - ctx->t0);
	}
	if (err)
		sim_stat_inc(sim, sig_errors);
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_end);

/* ---- fault injection --------------------------------------------------- */

bool sim_sig_inject_take(struct mlx5sp_sim *sim, u32 mkey, u16 *kind)
{
	struct sim_sig_inject *in = &sim->inject.sig;
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&sim->inject.lock, flags);
	if (in->nth && (in->any || in->mkey == mkey)) {
		if (in->nth > 1) {
			in->nth--;
		} else {
			*kind = in->kind;
			in->fired++;
			fire = true;
			/* the last of count transfers in a row: off */
			if (--in->count == 0)
				in->nth = 0;
		}
	}
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	return fire;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_inject_take);

static const char * const sim_sig_kind_names[] = {
	"guard", "apptag", "reftag",
};

static const u16 sim_sig_kinds[] = {
	SIM_SIG_ERR_GUARD, SIM_SIG_ERR_APPTAG, SIM_SIG_ERR_REFTAG,
};

/*
 * "mkey=0x.. nth=N kind=guard|apptag|reftag [count=C]": the n-th
 * signature transfer through the key fails, and the C-1 after it (a
 * persistent error outlasts a ULP's retries); "mkey=any ...": through any
 * key (a ULP's keys come from pools); or "off".
 */
int sim_sig_inject_parse(struct mlx5sp_sim *sim, const char *line)
{
	struct sim_sig_inject in = { .count = 1 };
	const char *opt;
	char kind[8];
	unsigned long flags;
	int i;

	if (sysfs_streq(line, "off")) {
		spin_lock_irqsave(&sim->inject.lock, flags);
		sim->inject.sig.nth = 0;
		spin_unlock_irqrestore(&sim->inject.lock, flags);
		return 0;
	}
	if (sscanf(line, "mkey=any nth=%u kind=%7s", &in.nth, kind) == 2)
		in.any = true;
	else if (sscanf(line, "mkey=%x nth=%u kind=%7s", &in.mkey, &in.nth,
			kind) != 3)
		return -EINVAL;
	opt = strstr(line, " count=");
	if (opt && (kstrtou32(opt + 7, 0, &in.count) || !in.count))
		return -EINVAL;
	if (!in.nth)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(sim_sig_kind_names); i++)
		if (!strcmp(kind, sim_sig_kind_names[i]))
			in.kind = sim_sig_kinds[i];
	if (!in.kind)
		return -EINVAL;
	spin_lock_irqsave(&sim->inject.lock, flags);
	in.fired = sim->inject.sig.fired;
	sim->inject.sig = in;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_inject_parse);

static int sim_sig_inject_show(struct seq_file *m, void *v)
{
	struct mlx5sp_sim *sim = m->private;
	struct sim_sig_inject in;
	unsigned long flags;
	const char *kind = "none";
	int i;

	spin_lock_irqsave(&sim->inject.lock, flags);
	in = sim->inject.sig;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	for (i = 0; i < ARRAY_SIZE(sim_sig_kinds); i++)
		if (in.kind == sim_sig_kinds[i])
			kind = sim_sig_kind_names[i];
	if (in.any)
		seq_puts(m, "mkey=any");
	else
		seq_printf(m, "mkey=0x%x", in.mkey);
	seq_printf(m, " nth=%u kind=%s count=%u fired=%llu\n", in.nth,
		   in.nth ? kind : "off", in.nth ? in.count : 0, in.fired);
	return 0;
}

static int sim_sig_inject_open(struct inode *inode, struct file *file)
{
	return single_open(file, sim_sig_inject_show, inode->i_private);
}

static ssize_t sim_sig_inject_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	char *buf;
	int err;

	if (!count || count > 128)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = sim_sig_inject_parse(m->private, strim(buf));
	kfree(buf);
	return err ? err : count;
}

static const struct file_operations sim_sig_inject_fops = {
	.owner = THIS_MODULE,
	.open = sim_sig_inject_open,
	.read = seq_read,
	.write = sim_sig_inject_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* sig_bench: reading it measures the engine (64 KiB, 256 passes) */
static int sim_sig_bench_show(struct seq_file *m, void *v)
{
	struct mlx5sp_sim_sig_rate r = {};
	int err;

	err = mlx5sp_sim_sig_bench(SZ_64K, 256, &r);
	if (err)
		return err;
	seq_printf(m, "t10dif_check_strip_Bps %llu\ncrc_t10dif_Bps %llu\nmemcpy_Bps %llu\n",
		   r.xfer_bps, r.crc_bps, r.copy_bps);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_sig_bench);

void sim_sig_debugfs_add(struct mlx5sp_sim *sim, struct dentry *dir)
{
	debugfs_create_file("sig_inject", 0600, dir, sim,
			    &sim_sig_inject_fops);
	debugfs_create_file("sig_bench", 0400, dir, sim, &sim_sig_bench_fops);
}

/* ---- throughput self-measurement ---------------------------------------- */

#define SIM_SIG_BENCH_ROUNDS	5

struct sim_sig_bench {
	struct sim_sig_ctx ctx;
	struct mlx5_bsf bsf;
	u8 *src;			/* blocks of 512 + DIF */
	u8 *dst;			/* the data alone */
	u32 nblk;
	u16 guard;
};

static u64 sim_sig_rate(u64 bytes, ktime_t t0)
{
	s64 ns = ktime_to_ns(ktime_sub(ktime_get(), t0));

	return ns > 0 ? div64_u64(bytes * NSEC_PER_SEC, ns) : 0;
}

static void sim_sig_bench_prepare(struct sim_sig_bench *sb)
{
	struct mlx5_bsf *bsf = &sb->bsf;
	u8 *blk;
	u32 b;

	for (b = 0; b < sb->nblk; b++) {
		blk = sb->src + b * 520;
		memset(blk, b, 512);
		put_unaligned_be16(crc_t10dif(blk, 512), blk + 512);
		put_unaligned_be16(0, blk + 514);
		put_unaligned_be32(b, blk + 516);
	}
	bsf->basic.bsf_size_sbs = MLX5SP_BSF_SIZE_WITH_INLINE <<
				  MLX5SP_BSF_SIZE_SHIFT;
	bsf->basic.check_byte_mask = 0xff;
	bsf->basic.raw_data_size = cpu_to_be32(U32_MAX);
	bsf->basic.mem.bs_selector = MLX5SP_BS_512;
	bsf->m_inl.vld_refresh = cpu_to_be16(MLX5_BSF_INL_VALID |
					     MLX5_BSF_REFRESH_DIF);
	bsf->m_inl.sig_type = MLX5_DIF_CRC;
	bsf->m_inl.rp_inv_seed = MLX5_BSF_REPEAT_BLOCK;
	bsf->m_inl.dif_inc_ref_guard_check = MLX5_BSF_INC_REFTAG;
	bsf->m_inl.dif_app_bitmask_check = cpu_to_be16(0xffff);
}

static int sim_sig_bench_xfer(struct sim_sig_bench *sb)
{
	struct sim_sig_buf_iter s, d;
	u32 len = sb->nblk * 512;
	int err;

	err = sim_sig_ctx_init(&sb->ctx, &sb->bsf, 0, 0, SIM_SIG_MEM_TO_WIRE);
	if (err)
		return err;
	sim_sig_buf_iter_init(&s, sb->src, sb->nblk * 520);
	sim_sig_buf_iter_init(&d, sb->dst, len);
	if (sim_sig_xfer(&sb->ctx, &d.it, &s.it, sb->nblk * 520) != len ||
	    sim_sig_first_err(&sb->ctx))
		return -EIO;
	return 0;
}

static void sim_sig_bench_crc(struct sim_sig_bench *sb)
{
	u32 b;

	for (b = 0; b < sb->nblk; b++)
		sb->guard ^= crc_t10dif(sb->src + b * 520, 512);
}

static void sim_sig_bench_copy(struct sim_sig_bench *sb)
{
	u32 b;

	for (b = 0; b < sb->nblk; b++)
		memcpy(sb->dst + b * 512, sb->src + b * 520, 512);
}

/*
 * Bytes per second of a T10-DIF (CRC guard, 512-byte blocks) checked and
 * stripped transfer of @len data bytes, against crc_t10dif alone and memcpy
 * alone over the same buffers: @iters passes of each in rounds that take
 * turns, the best round of each counting (a shared machine's noise only
 * ever slows a round down). Not an assertion: a benchmark calls it and
 * reports. @len is rounded down to blocks.
 */
int mlx5sp_sim_sig_bench(u32 len, u32 iters, struct mlx5sp_sim_sig_rate *r)
{
	struct sim_sig_bench *sb;
	u32 per, round, i;
	u64 bytes;
	ktime_t t0;
	int err = -ENOMEM;

	if (len < 512 || !iters)
		return -EINVAL;
	sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return -ENOMEM;
	sb->nblk = len / 512;
	sb->src = kvmalloc(sb->nblk * 520, GFP_KERNEL);
	sb->dst = kvmalloc(sb->nblk * 512, GFP_KERNEL);
	if (!sb->src || !sb->dst)
		goto out_free;
	sim_sig_bench_prepare(sb);
	memset(r, 0, sizeof(*r));
	per = max_t(u32, iters / SIM_SIG_BENCH_ROUNDS, 1);
	bytes = (u64)sb->nblk * 512 * per;

	/* one pass of each first, so that none pays for a cold cache */
	err = sim_sig_bench_xfer(sb);
	if (err)
		goto out_free;
	sim_sig_bench_crc(sb);
	sim_sig_bench_copy(sb);
	for (round = 0; round < SIM_SIG_BENCH_ROUNDS; round++) {
		t0 = ktime_get();
		for (i = 0; i < per; i++) {
			err = sim_sig_bench_xfer(sb);
			if (err)
				goto out_free;
		}
		r->xfer_bps = max(r->xfer_bps, sim_sig_rate(bytes, t0));

		t0 = ktime_get();
		for (i = 0; i < per; i++)
			sim_sig_bench_crc(sb);
		r->crc_bps = max(r->crc_bps, sim_sig_rate(bytes, t0));

		t0 = ktime_get();
		for (i = 0; i < per; i++)
			sim_sig_bench_copy(sb);
		r->copy_bps = max(r->copy_bps, sim_sig_rate(bytes, t0));
		cond_resched();
	}
	r->guard_xor = sb->guard;
	err = 0;
out_free:
	kvfree(sb->dst);
	kvfree(sb->src);
	kfree(sb);
	return err;
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_sig_bench);
