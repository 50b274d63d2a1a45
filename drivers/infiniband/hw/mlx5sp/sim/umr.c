// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * UMR WQEs: a send queue changing a memory key. The WQE (unwrapped from
 * the ring by sq.c) is a control segment whose umr_mkey names the target,
 * a UMR control segment (struct mlx5_wqe_umr_ctrl_seg: flags, translation
 * size and offset, mkey_mask), a mkey context segment in mkc layout, then
 * the translations (MTTs or KLMs) inline or through a data segment that
 * points at them, then a BSF when mkey_mask has BSF_EN.
 *
 * Rules, as firmware keeps them: the target exists, was created with
 * umr_en, is MTT or KLMS and belongs to the QP's PD; the free checks and
 * the QP check of the flags hold (see sim_umr_apply() for their names);
 * only the fields mkey_mask names change;
 * translations fit what the key was created with; every MTT page is
 * memory and every KLM reaches a live key of the same PD (memory windows:
 * with local write if the window gives remote write or atomic). A bad UMR
 * completes in error (the caller moves the QP to error) and leaves the
 * target free if it had started to change it.
 *
 * A key created with bsf_en gets a BSF (sim_umr_set_bsf()) and becomes a
 * signature key: its KLMs (a list or a repeat block) lay out its memory
 * domain, and transfers through it run the signature engine (xfer.c).
 */

#include <kunit/visibility.h>

#include "mkey.h"
#include "mlx5sp_prm.h"
#include "sgl.h"
#include "sig.h"
#include "sim.h"

#define SIM_UMR_HDR	(sizeof(struct mlx5_wqe_ctrl_seg) + \
			 sizeof(struct mlx5_wqe_umr_ctrl_seg) + \
			 sizeof(struct mlx5_mkey_seg))
#define SIM_UMR_CHUNK	256	/* translation bytes read at a time */

#define SIM_UMR_ACCESS_MASK (MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW | \
			     MLX5_MKEY_MASK_RR | MLX5_MKEY_MASK_RW | \
			     MLX5_MKEY_MASK_A)
#define SIM_UMR_KNOWN_MASK (MLX5_MKEY_MASK_LEN | MLX5_MKEY_MASK_PAGE_SIZE | \
			    MLX5_MKEY_MASK_START_ADDR | MLX5_MKEY_MASK_PD | \
			    MLX5_MKEY_MASK_EN_RINVAL | \
			    MLX5_MKEY_MASK_EN_SIGERR | \
			    MLX5_MKEY_MASK_BSF_EN | MLX5_MKEY_MASK_KEY | \
			    MLX5_MKEY_MASK_QPN | SIM_UMR_ACCESS_MASK | \
			    MLX5_MKEY_MASK_SMALL_FENCE | \
			    MLX5_MKEY_MASK_RELAXED_ORDERING_WRITE | \
			    MLX5_MKEY_MASK_FREE | \
			    MLX5_MKEY_MASK_PAGE_SIZE_5 | \
			    MLX5_MKEY_MASK_RELAXED_ORDERING_READ)
#define SIM_UMR_KNOWN_FLAGS (MLX5_UMR_TRANSLATION_OFFSET_EN | \
			     MLX5SP_UMR_CHECK_MASK | MLX5_UMR_INLINE | \
			     MLX5SP_UMR_CHECK_QPN)

/**
 * sim_umr_parse - find the parts of a UMR WQE
 * @wqe: the WQE from its control segment, unwrapped
 * @len: its size (ds * 16)
 * @u: filled
 *
 * Returns 0 or the CQE syndrome of a malformed WQE.
 */
u8 sim_umr_parse(const void *wqe, u32 len, struct sim_umr *u)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = wqe;
	const struct mlx5_wqe_umr_ctrl_seg *uc = wqe + sizeof(*ctrl);
	u32 off = SIM_UMR_HDR, need;

	memset(u, 0, sizeof(*u));
	if (len < SIM_UMR_HDR)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	u->mkey = be32_to_cpu(ctrl->umr_mkey);
	u->flags = uc->flags;
	u->mask = be64_to_cpu(uc->mkey_mask);
	u->xlt_octowords = be16_to_cpu(uc->xlt_octowords);
	if ((u->flags & ~SIM_UMR_KNOWN_FLAGS) ||
	    (u->flags & MLX5SP_UMR_CHECK_MASK) == MLX5SP_UMR_CHECK_MASK ||
	    (u->mask & ~SIM_UMR_KNOWN_MASK))
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	/* the 16 bits are the BSF size or the low bits of the offset */
	if (u->mask & MLX5_MKEY_MASK_BSF_EN)
		u->bsf_octowords = be16_to_cpu(uc->bsf_octowords);
	if (u->flags & MLX5_UMR_TRANSLATION_OFFSET_EN)
		u->xlt_offset = (u64)be32_to_cpu(uc->xlt_offset_47_16) << 16 |
				(u->bsf_octowords ? 0 :
				 be16_to_cpu(uc->xlt_offset));
	u->mkc = wqe + sizeof(*ctrl) + sizeof(*uc);

	if (u->xlt_octowords) {
		if (u->flags & MLX5_UMR_INLINE) {
			need = u->xlt_octowords * 16;
			if (need > len - off)
				return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			u->xlt = wqe + off;
		} else {
			need = sizeof(struct mlx5_wqe_data_seg);
			if (need > len - off)
				return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			u->xlt_ptr = wqe + off;
		}
		off += need;
	}
	if (u->bsf_octowords) {
		need = u->bsf_octowords * 16;
		if (need > len - off)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		u->bsf = wqe + off;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_umr_parse);

/*
 * The signature side of a UMR, under the write seq: BSF_EN in the mask
 * turns the key's BSF on (with the BSF that follows the translations) or
 * off; the wire length follows the (new) memory length. Only a key
 * created with bsf_en may get a BSF, and only one the engine can run.
 */
static u8 sim_umr_set_bsf(struct sim_mkey *mk, const struct sim_umr *u,
			  const struct sim_mkey_state *st, bool *bsf_en)
{
	const struct mlx5_bsf *bsf = &mk->bsf;
	u64 wire_len;

	*bsf_en = mk->bsf_en;
	if (u->mask & MLX5_MKEY_MASK_BSF_EN) {
		*bsf_en = MLX5_GET(mkc, u->mkc, bsf_en);
		if (*bsf_en) {
			if (!mk->bsf_cap ||
			    u->bsf_octowords != sizeof(*bsf) / 16)
				return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			bsf = u->bsf;
		}
	}
	if (!*bsf_en)
		return 0;
	if (sim_sig_bsf_wire_len(bsf, st->len, &wire_len))
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (bsf != &mk->bsf)
		memcpy(&mk->bsf, bsf, sizeof(*bsf));
	mk->wire_len = wire_len;
	return 0;
}

/* The new state: the old one with the fields the mask names replaced. */
static u8 sim_umr_state(const struct sim_mkey *mk, const struct sim_umr *u,
			u32 pd, u32 qpn, struct sim_mkey_state *st)
{
	const void *mkc = u->mkc;
	u64 m = u->mask;

	if (m & MLX5_MKEY_MASK_FREE)
		st->free = MLX5_GET(mkc, mkc, free);
	if (m & MLX5_MKEY_MASK_LEN) {
		st->len = MLX5_GET64(mkc, mkc, len);
		st->len64 = MLX5_GET(mkc, mkc, length64);
	}
	if (m & MLX5_MKEY_MASK_START_ADDR)
		st->start = MLX5_GET64(mkc, mkc, start_addr);
	if (m & MLX5_MKEY_MASK_PD)
		st->pd = MLX5_GET(mkc, mkc, pd);
	if (m & MLX5_MKEY_MASK_EN_RINVAL)
		st->en_rinval = MLX5_GET(mkc, mkc, en_rinval);
	if (m & MLX5_MKEY_MASK_KEY)
		st->variant = MLX5_GET(mkc, mkc, mkey_7_0);
	if (m & MLX5_MKEY_MASK_QPN)
		st->qpn = MLX5_GET(mkc, mkc, qpn);
	if (m & MLX5_MKEY_MASK_LR)
		st->access = (st->access & ~SIM_ACC_LR) |
			     (MLX5_GET(mkc, mkc, lr) ? SIM_ACC_LR : 0);
	if (m & MLX5_MKEY_MASK_LW)
		st->access = (st->access & ~SIM_ACC_LW) |
			     (MLX5_GET(mkc, mkc, lw) ? SIM_ACC_LW : 0);
	if (m & MLX5_MKEY_MASK_RR)
		st->access = (st->access & ~SIM_ACC_RR) |
			     (MLX5_GET(mkc, mkc, rr) ? SIM_ACC_RR : 0);
	if (m & MLX5_MKEY_MASK_RW)
		st->access = (st->access & ~SIM_ACC_RW) |
			     (MLX5_GET(mkc, mkc, rw) ? SIM_ACC_RW : 0);
	if (m & MLX5_MKEY_MASK_A)
		st->access = (st->access & ~SIM_ACC_A) |
			     (MLX5_GET(mkc, mkc, a) ? SIM_ACC_A : 0);
	if (m & (MLX5_MKEY_MASK_PAGE_SIZE | MLX5_MKEY_MASK_PAGE_SIZE_5))
		st->page_shift = MLX5_GET(mkc, mkc, log_page_size);

	/* a key stays in the QP's PD; a window goes to this QP or to none */
	if (st->pd != pd)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	if (st->qpn != SIM_MKEY_ANY_QP && st->qpn != qpn)
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	if (st->len64 || st->start + st->len < st->start)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	if (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT &&
	    (st->page_shift < SIM_MKEY_MIN_SHIFT ||
	     st->page_shift > SIM_MKEY_MAX_SHIFT))
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	return 0;
}

/* Where the translations are when they are not inline: checked now. */
static u8 sim_umr_xlt_src(struct mlx5sp_sim *sim, struct sim_sgl *scratch,
			  const struct sim_mkey *mk, const struct sim_umr *u,
			  u32 pd, u32 qpn, struct sim_cur *src)
{
	u32 bytes = u->xlt_octowords * 16;
	u32 bc = be32_to_cpu(u->xlt_ptr->byte_count);
	u32 lkey = be32_to_cpu(u->xlt_ptr->lkey);
	u8 synd;

	if (bc < bytes)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	/* the target cannot describe itself: it is being rewritten */
	if (lkey >> 8 == mk->index)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	sim_sgl_reset(scratch);
	synd = sim_sgl_add_key(sim, scratch, lkey,
			       be64_to_cpu(u->xlt_ptr->addr), bytes, pd, qpn,
			       SIM_ACC_LR);
	if (synd)
		return synd;
	/* translations are plain memory, not a signature transfer */
	if (scratch->sig)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	sim_cur_init(src, scratch->sge, scratch->n);
	return 0;
}

/*
 * Store @n bytes of translations at entry @first. Under the write seq.
 * KLMs that start with a repeat block header (op MLX5_STRIDE_BLOCK_OP; no
 * key has that value, see SIM_MKEY_FIRST) are an interleaved layout: the
 * entries after the header are strided KLMs.
 */
static u8 sim_umr_store(struct mlx5sp_sim *sim, struct sim_mkey *mk,
			const void *p, u32 n, u64 first, u8 shift)
{
	const struct mlx5_stride_block_ctrl_seg *rb;
	const struct mlx5_stride_block_entry *se;
	const struct mlx5_klm *k;
	const __be64 *mtt = p;
	struct sim_klm *e;
	u64 unit;
	u32 i;
	u64 pa;

	if (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT) {
		for (i = 0; i < n / sizeof(*mtt); i++) {
			pa = be64_to_cpu(mtt[i]) & ~SIM_MTT_FLAGS;
			if (pa && !sim_mkey_page_ok(sim, pa, shift))
				return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			WRITE_ONCE(mk->mtt[first + i], pa);
		}
		return 0;
	}
	for (i = 0; i < n / sizeof(*k); i++) {
		unit = first + i;
		if (!unit) {
			rb = p;
			mk->repeat_count = 0;
			if (be32_to_cpu(rb->op) == MLX5_STRIDE_BLOCK_OP) {
				/* a cycle of nothing repeats nothing */
				if (!rb->repeat_count || !rb->bcount_per_cycle)
					return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
				mk->repeat_count =
					be32_to_cpu(rb->repeat_count);
				mk->cycle_bytes =
					be32_to_cpu(rb->bcount_per_cycle);
				mk->nklm_used = be16_to_cpu(rb->num_entries);
				continue;
			}
		}
		if (mk->repeat_count) {
			if (!unit)
				continue;
			se = p + i * sizeof(*se);
			e = &mk->klm[unit - 1];
			e->key = be32_to_cpu(se->key);
			e->len = be16_to_cpu(se->bcount);
			e->stride = be16_to_cpu(se->stride);
			e->va = be64_to_cpu(se->va);
			continue;
		}
		k = p + i * sizeof(*k);
		e = &mk->klm[unit];
		e->key = be32_to_cpu(k->key);
		e->len = be32_to_cpu(k->bcount);
		e->va = be64_to_cpu(k->va);
		e->stride = 0;
	}
	return 0;
}

static u8 sim_umr_xlt(struct mlx5sp_sim *sim, struct sim_mkey *mk,
		      const struct sim_umr *u, struct sim_cur *src, u8 shift)
{
	bool mtt = mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT;
	u32 bytes = u->xlt_octowords * 16, done = 0, n;
	u64 first = u->xlt_offset * (mtt ? 2 : 1);
	u8 buf[SIM_UMR_CHUNK], synd;
	struct sim_sge dsge = {};
	struct sim_cur dst;
	const void *p;

	while (done < bytes) {
		n = min_t(u32, bytes - done, SIM_UMR_CHUNK);
		if (u->xlt) {
			p = u->xlt + done;
		} else {
			dsge.kva = buf;
			dsge.len = n;
			sim_cur_init(&dst, &dsge, 1);
			if (sim_cur_copy(sim, &dst, sim, src, n))
				return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
			p = buf;
		}
		synd = sim_umr_store(sim, mk, p, n,
				     first + done / (mtt ? 8 : 16), shift);
		if (synd)
			return synd;
		done += n;
	}
	return 0;
}

/* Does [@va, @va + @len) of @key reach memory for a KLM of @st? 0: yes. */
static u8 sim_umr_klm_ok(struct mlx5sp_sim *sim,
			 const struct sim_mkey_state *st, u32 key, u64 va,
			 u64 len, u8 need)
{
	struct sim_mkey_state ist;
	struct sim_mkey *inner;

	inner = sim_mkey_lookup(sim, key);
	/* checked before reading it: it cannot be the target */
	if (!inner || inner->access_mode == MLX5_MKC_ACCESS_MODE_KLMS)
		return 1;
	sim_mkey_snapshot(inner, &ist);
	if (ist.pd != st->pd ||
	    sim_mkey_state_check(&ist, st->pd, ist.qpn, va, len, need))
		return 1;
	return 0;
}

/* A repeat block: every entry's stride run is inside its key. */
static u8 sim_umr_covered_repeat(struct mlx5sp_sim *sim, struct sim_mkey *mk,
				 const struct sim_mkey_state *st, u8 need)
{
	u64 cycle = 0, span;
	u32 i;

	if (!mk->nklm_used || mk->nklm_used >= mk->nklm)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	for (i = 0; i < mk->nklm_used; i++) {
		const struct sim_klm *k = &mk->klm[i];

		if (!k->len || k->stride < k->len)
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		span = (u64)(mk->repeat_count - 1) * k->stride + k->len;
		if (sim_umr_klm_ok(sim, st, k->key, k->va, span, need))
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		cycle += k->len;
	}
	if (cycle != mk->cycle_bytes ||
	    cycle * mk->repeat_count < st->len)
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	return 0;
}

/*
 * A mapping the data path may use: MTT pages for the whole range; KLMs
 * covering it, each into a live key of the same PD. Sets nklm_used.
 */
static u8 sim_umr_covered(struct mlx5sp_sim *sim, struct sim_mkey *mk,
			  const struct sim_mkey_state *st)
{
	u64 psize = BIT_ULL(st->page_shift), sum = 0;
	u8 need = 0;
	u32 i;

	if (st->free || !st->len)
		return 0;
	if (mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT)
		return DIV_ROUND_UP_ULL((st->start & (psize - 1)) + st->len,
					psize) > mk->nmtt ?
		       MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR : 0;

	/* a window that gives remote write or atomics needs a writable MR */
	if (st->access & (SIM_ACC_RW | SIM_ACC_A))
		need = SIM_ACC_LW;
	if (mk->repeat_count)
		return sim_umr_covered_repeat(sim, mk, st, need);
	for (i = 0; i < mk->nklm && sum < st->len; i++) {
		const struct sim_klm *k = &mk->klm[i];

		if (!k->len)
			continue;
		if (sim_umr_klm_ok(sim, st, k->key, k->va, k->len, need))
			return MLX5_CQE_SYNDROME_MW_BIND_ERR;
		sum += k->len;
	}
	if (sum < st->len)
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	mk->nklm_used = i;
	return 0;
}

static void sim_umr_publish(struct sim_mkey *mk,
			    const struct sim_mkey_state *st)
{
	mk->page_shift = st->page_shift;
	mk->variant = st->variant;
	mk->access = st->access;
	mk->free = st->free;
	mk->len64 = st->len64;
	mk->en_rinval = st->en_rinval;
	mk->pd = st->pd;
	mk->qpn = st->qpn;
	mk->start = st->start;
	mk->len = st->len;
}

/* Under mk->lock. */
static u8 sim_umr_apply(struct mlx5sp_sim *sim, struct sim_sgl *scratch,
			struct sim_mkey *mk, const struct sim_umr *u, u32 pd,
			u32 qpn)
{
	bool mtt = mk->access_mode == MLX5_MKC_ACCESS_MODE_MTT;
	u8 check = u->flags & MLX5SP_UMR_CHECK_MASK, synd;
	struct sim_mkey_state st;
	struct sim_cur src = {};
	u64 cap = mtt ? mk->nmtt / 2 : mk->nklm;
	bool bsf_en = false;

	sim_mkey_snapshot(mk, &st);
	if (st.pd != pd)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	/*
	 * device.h names the check by what fails it: CHECK_NOT_FREE (1, what
	 * libmlx5 calls CHECK_FREE) fails a key that is not free (a bind of
	 * a type 2 window, REG_MR); CHECK_FREE (2) fails a free key.
	 */
	if ((check == MLX5_UMR_CHECK_NOT_FREE && !st.free) ||
	    (check == MLX5_UMR_CHECK_FREE && st.free) ||
	    ((u->flags & MLX5SP_UMR_CHECK_QPN) && st.qpn != qpn &&
	     st.qpn != SIM_MKEY_ANY_QP))
		return MLX5_CQE_SYNDROME_MW_BIND_ERR;
	if (u->xlt_octowords + u->xlt_offset > cap)
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	synd = sim_umr_state(mk, u, pd, qpn, &st);
	if (synd)
		return synd;
	if (u->xlt_ptr) {
		synd = sim_umr_xlt_src(sim, scratch, mk, u, pd, qpn, &src);
		if (synd)
			return synd;
	}

	/*
	 * Inside, sim_umr_covered() reads the keys the KLMs name, never this
	 * one (a KLM into a KLMS key is refused): same lock class, nested.
	 */
	write_seqcount_begin_nested(&mk->seq, SINGLE_DEPTH_NESTING);
	/* entries given for another page size are not pages of this one */
	if (mtt && st.page_shift != mk->page_shift)
		memset(mk->mtt, 0, mk->nmtt * sizeof(*mk->mtt));
	synd = sim_umr_xlt(sim, mk, u, &src, st.page_shift);
	if (!synd)
		synd = sim_umr_covered(sim, mk, &st);
	if (!synd)
		synd = sim_umr_set_bsf(mk, u, &st, &bsf_en);
	if (synd) {
		/* half changed: nothing may use it */
		mk->bsf_en = false;
		mk->free = true;
	} else {
		mk->bsf_en = bsf_en;
		sim_umr_publish(mk, &st);
	}
	write_seqcount_end(&mk->seq);
	return synd;
}

/**
 * sim_umr_execute - run one UMR WQE of a QP
 * @sim: the QP's device
 * @scratch: a scatter list the call may use
 * @pd: the QP's PD
 * @qpn: the QP's number
 * @wqe: the WQE, unwrapped
 * @len: its size in bytes
 *
 * Under rcu_read_lock(), with preemption off (the engine's sq_lock).
 * Returns 0 or the syndrome of the error CQE.
 */
u8 sim_umr_execute(struct mlx5sp_sim *sim, struct sim_sgl *scratch, u32 pd,
		   u32 qpn, const void *wqe, u32 len)
{
	struct sim_mkey *mk;
	struct sim_umr u;
	u8 synd;

	synd = sim_umr_parse(wqe, len, &u);
	if (synd)
		return synd;
	/* the index names the key; the key byte is what UMR may change */
	mk = xa_load(&sim->mkeys, u.mkey >> 8);
	if (!mk || !mk->umr_en ||
	    (mk->access_mode != MLX5_MKC_ACCESS_MODE_MTT &&
	     mk->access_mode != MLX5_MKC_ACCESS_MODE_KLMS))
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	spin_lock_bh(&mk->lock);
	synd = sim_umr_apply(sim, scratch, mk, &u, pd, qpn);
	spin_unlock_bh(&mk->lock);
	return synd;
}
EXPORT_SYMBOL_IF_KUNIT(sim_umr_execute);
