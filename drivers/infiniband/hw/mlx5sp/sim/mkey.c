// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory keys of the software ConnectX: CREATE/DESTROY/QUERY_MKEY and the
 * translation the data path uses. A key is (index << 8) | mkey_7_0.
 * Access modes: PA (a physical address range, length64 for all memory:
 * what get_dma_mr makes), MTT (a list of page addresses, checked page by
 * page when they are given) and KLMS (indirect: a list of (key, address,
 * length) entries pointing into other keys, given by UMR; what memory
 * windows and, with a BSF, signature keys are). A key created with umr_en
 * may be changed by UMR WQEs (umr.c) and invalidated by a SEND with
 * invalidate; the locking is at struct sim_mkey. A key leaves the table
 * and a grace period passes before it is freed, so the engine can use one
 * under rcu_read_lock() without a reference.
 */

#include <linux/mm.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "dma.h"
#include "limits.h"
#include "mkey.h"
#include "mlx5sp_prm.h"
#include "sgl.h"
#include "sim.h"
#include "syndromes.h"

static void sim_mkey_free(struct sim_mkey *mk)
{
	kvfree(mk->mtt);
	kvfree(mk->klm);
	kfree(mk);
}

static void sim_mkey_free_rcu(struct rcu_head *rcu)
{
	sim_mkey_free(container_of(rcu, struct sim_mkey, rcu));
}

/* May @pa (a page of 2^@shift bytes) be handed to the data path? */
bool sim_mkey_page_ok(struct mlx5sp_sim *sim, u64 pa, u8 shift)
{
	u64 off;

	if (!IS_ALIGNED(pa, BIT_ULL(shift)))
		return false;
	for (off = 0; off < BIT_ULL(shift); off += SZ_4K)
		if (!sim_dma_ram(sim, pa + off, SZ_4K, SZ_4K))
			return false;
	return true;
}

/* Every 4 KiB page of every entity given must be ordinary memory. */
static int sim_mkey_read_mtt(struct sim_cmd *c, struct sim_mkey *mk,
			     const __be64 *mtt, u32 n)
{
	u64 pa;
	u32 i;

	for (i = 0; i < n; i++) {
		pa = be64_to_cpu(mtt[i]) & ~SIM_MTT_FLAGS;
		if (!pa)
			continue;
		if (!sim_mkey_page_ok(c->sim, pa, mk->page_shift))
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_MKEY_BAD_MTT);
		mk->mtt[i] = pa;
	}
	return 0;
}

static int sim_mkey_parse_mtt(struct sim_cmd *c, struct sim_mkey *mk,
			      const void *mkc)
{
	u32 actual = MLX5_GET(create_mkey_in, c->in,
			      translations_octword_actual_size);
	u64 base = MLX5_ST_SZ_BYTES(create_mkey_in), need, given;

	mk->page_shift = MLX5_GET(mkc, mkc, log_page_size);
	if (mk->page_shift < SIM_MKEY_MIN_SHIFT ||
	    mk->page_shift > SIM_MKEY_MAX_SHIFT)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_BAD_LOG_PAGE_SIZE);
	if (base + (u64)actual * 16 > c->inlen)
		return sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
				MLX5SP_SIM_SYND_MKEY_MTT_INLEN);

	given = (u64)actual * 2;
	need = 0;
	if (!mk->free && mk->len)
		need = DIV_ROUND_UP_ULL((mk->start &
					 (BIT_ULL(mk->page_shift) - 1)) +
					mk->len, BIT_ULL(mk->page_shift));
	if (given < need)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_TOO_FEW_MTTS);
	mk->nmtt = max_t(u64, need, (u64)mk->octwords * 2);
	if (mk->nmtt > SIM_MKEY_MAX_MTT)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_TOO_FEW_MTTS);
	if (!mk->nmtt)
		return 0;
	mk->mtt = kvcalloc(mk->nmtt, sizeof(*mk->mtt), GFP_KERNEL);
	if (!mk->mtt)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	return sim_mkey_read_mtt(c, mk,
				 MLX5_ADDR_OF(create_mkey_in, c->in,
					      klm_pas_mtt),
				 min_t(u64, given, mk->nmtt));
}

/*
 * An indirect key starts free and gets its KLMs by UMR: room for one KLM
 * per octoword of translations_octword_size.
 */
static int sim_mkey_parse_klms(struct sim_cmd *c, struct sim_mkey *mk)
{
	if (!mk->free || !mk->umr_en || mk->len64 ||
	    MLX5_GET(create_mkey_in, c->in, translations_octword_actual_size))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_UNSUPPORTED);
	if (!mk->octwords || mk->octwords > SIM_MKEY_MAX_MTT)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_TOO_FEW_MTTS);
	mk->nklm = mk->octwords;
	mk->klm = kvcalloc(mk->nklm, sizeof(*mk->klm), GFP_KERNEL);
	if (!mk->klm)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	return 0;
}

static int sim_mkey_parse(struct sim_cmd *c, struct sim_mkey *mk)
{
	const void *mkc = MLX5_ADDR_OF(create_mkey_in, c->in,
				       memory_key_mkey_entry);

	if (MLX5_GET(create_mkey_in, c->in, pg_access) ||
	    MLX5_GET(create_mkey_in, c->in, mkey_umem_valid) ||
	    MLX5_GET(create_mkey_in, c->in, data_direct) ||
	    MLX5_GET(mkc, mkc, crossing_target_vhca_id))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_UNSUPPORTED);

	mk->access_mode = MLX5_GET(mkc, mkc, access_mode_4_2) << 2 |
			  MLX5_GET(mkc, mkc, access_mode_1_0);
	mk->free = MLX5_GET(mkc, mkc, free);
	mk->umr_en = MLX5_GET(mkc, mkc, umr_en);
	mk->access = (MLX5_GET(mkc, mkc, lr) ? SIM_ACC_LR : 0) |
		     (MLX5_GET(mkc, mkc, lw) ? SIM_ACC_LW : 0) |
		     (MLX5_GET(mkc, mkc, rr) ? SIM_ACC_RR : 0) |
		     (MLX5_GET(mkc, mkc, rw) ? SIM_ACC_RW : 0) |
		     (MLX5_GET(mkc, mkc, a) ? SIM_ACC_A : 0);
	mk->qpn = MLX5_GET(mkc, mkc, qpn);
	mk->variant = MLX5_GET(mkc, mkc, mkey_7_0);
	mk->len64 = MLX5_GET(mkc, mkc, length64);
	mk->en_rinval = MLX5_GET(mkc, mkc, en_rinval);
	mk->pd = MLX5_GET(mkc, mkc, pd);
	mk->start = MLX5_GET64(mkc, mkc, start_addr);
	mk->len = MLX5_GET64(mkc, mkc, len);
	mk->octwords = MLX5_GET(mkc, mkc, translations_octword_size);
	mk->bsf_cap = MLX5_GET(mkc, mkc, bsf_en);

	/* a signature key: indirect, free until a UMR gives it a BSF */
	if (mk->bsf_cap &&
	    (mk->access_mode != MLX5_MKC_ACCESS_MODE_KLMS ||
	     MLX5_GET(mkc, mkc, bsf_octword_size) !=
	     sizeof(struct mlx5_bsf) / 16 || !SIM_CAP_GEN(c->sim, sho)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_UNSUPPORTED);

	if (!sim_pd_exists(c->sim, mk->pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_MKEY_BAD_PD);
	if (!mk->len64 && mk->start + mk->len < mk->start)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_BAD_RANGE);

	switch (mk->access_mode) {
	case MLX5_MKC_ACCESS_MODE_PA:
		if (mk->free || mk->umr_en)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_MKEY_UNSUPPORTED);
		return 0;
	case MLX5_MKC_ACCESS_MODE_KLMS:
		return sim_mkey_parse_klms(c, mk);
	case MLX5_MKC_ACCESS_MODE_MTT:
		if (mk->len64)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_MKEY_BAD_RANGE);
		return sim_mkey_parse_mtt(c, mk, mkc);
	default:
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_MKEY_BAD_ACCESS_MODE);
	}
}

int sim_cmd_create_mkey(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	struct sim_mkey *mk;
	u32 index;
	int err;

	err = sim_lim_check(c, SIM_LIM_MKEY);
	if (err)
		return err;
	mk = kzalloc(sizeof(*mk), GFP_KERNEL);
	if (!mk)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	spin_lock_init(&mk->lock);
	seqcount_spinlock_init(&mk->seq, &mk->lock);
	err = sim_mkey_parse(c, mk);
	if (err)
		goto err_free_mkey;

	err = xa_alloc_cyclic(&sim->mkeys, &index, mk,
			      XA_LIMIT(SIM_MKEY_FIRST, BIT(24) - 1),
			      &sim->next_mkey,
			      GFP_KERNEL);
	if (err < 0) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       err == -EBUSY ? MLX5SP_SIM_SYND_MKEY_EXHAUSTED :
					       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_mkey;
	}
	/* published: readers see every field (xa_store orders it) */
	mk->index = index;
	sim_lim_add(sim, SIM_LIM_MKEY);
	MLX5_SET(create_mkey_out, c->out, mkey_index, index);
	return 0;

err_free_mkey:
	sim_mkey_free(mk);
	return err;
}

int sim_cmd_destroy_mkey(struct sim_cmd *c)
{
	u32 index = MLX5_GET(destroy_mkey_in, c->in, mkey_index);
	struct sim_mkey *mk;

	mk = xa_erase(&c->sim->mkeys, index);
	if (!mk)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_MKEY_NOT_FOUND);
	sim_lim_sub(c->sim, SIM_LIM_MKEY);
	/*
	 * The engine may be moving data through it right now: freed after
	 * its readers. Not synchronize_rcu(): a grace period per key made a
	 * ULP's teardown of its MR pools take seconds (a card takes
	 * microseconds a key), long enough for NVMe-oF's keep-alive to expire.
	 */
	call_rcu(&mk->rcu, sim_mkey_free_rcu);
	return 0;
}

int sim_cmd_query_mkey(struct sim_cmd *c)
{
	void *mkc = MLX5_ADDR_OF(query_mkey_out, c->out, memory_key_mkey_entry);
	u32 index = MLX5_GET(query_mkey_in, c->in, mkey_index);
	struct sim_mkey_state st;
	struct sim_mkey *mk;

	/* the engine may be changing it: read under RCU, consistently */
	rcu_read_lock();
	mk = xa_load(&c->sim->mkeys, index);
	if (!mk) {
		rcu_read_unlock();
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_MKEY_NOT_FOUND);
	}
	sim_mkey_snapshot(mk, &st);
	MLX5_SET(mkc, mkc, free, st.free);
	MLX5_SET(mkc, mkc, umr_en, mk->umr_en);
	MLX5_SET(mkc, mkc, access_mode_1_0, mk->access_mode & 3);
	MLX5_SET(mkc, mkc, access_mode_4_2, mk->access_mode >> 2);
	MLX5_SET(mkc, mkc, lr, !!(st.access & SIM_ACC_LR));
	MLX5_SET(mkc, mkc, lw, !!(st.access & SIM_ACC_LW));
	MLX5_SET(mkc, mkc, rr, !!(st.access & SIM_ACC_RR));
	MLX5_SET(mkc, mkc, rw, !!(st.access & SIM_ACC_RW));
	MLX5_SET(mkc, mkc, a, !!(st.access & SIM_ACC_A));
	MLX5_SET(mkc, mkc, qpn, st.qpn);
	MLX5_SET(mkc, mkc, mkey_7_0, st.variant);
	MLX5_SET(mkc, mkc, length64, st.len64);
	MLX5_SET(mkc, mkc, en_rinval, st.en_rinval);
	MLX5_SET(mkc, mkc, pd, st.pd);
	MLX5_SET64(mkc, mkc, start_addr, st.start);
	MLX5_SET64(mkc, mkc, len, st.len);
	MLX5_SET(mkc, mkc, translations_octword_size, mk->octwords);
	MLX5_SET(mkc, mkc, log_page_size, st.page_shift);
	rcu_read_unlock();
	return 0;
}

void sim_mkey_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_mkey *mk, *tmp;
	unsigned long index;
	LIST_HEAD(dead);

	xa_for_each(&sim->mkeys, index, mk) {
		xa_erase(&sim->mkeys, index);
		list_add(&mk->dead, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(mk, tmp, &dead, dead)
		sim_mkey_free(mk);
}

/* Under rcu_read_lock(). */
struct sim_mkey *sim_mkey_lookup(struct mlx5sp_sim *sim, u32 key)
{
	struct sim_mkey *mk = xa_load(&sim->mkeys, key >> 8);

	if (!mk || READ_ONCE(mk->variant) != (key & 0xff))
		return NULL;
	return mk;
}

void sim_mkey_snapshot(const struct sim_mkey *mk, struct sim_mkey_state *st)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&mk->seq);
		st->page_shift = mk->page_shift;
		st->variant = mk->variant;
		st->access = mk->access;
		st->free = mk->free;
		st->len64 = mk->len64;
		st->en_rinval = mk->en_rinval;
		st->pd = mk->pd;
		st->qpn = mk->qpn;
		st->start = mk->start;
		/* a signature key is addressed in its wire domain */
		st->len = mk->bsf_en ? mk->wire_len : mk->len;
	} while (read_seqcount_retry(&mk->seq, seq));
}
EXPORT_SYMBOL_IF_KUNIT(sim_mkey_snapshot);

/*
 * The BSF of signature key @mk, its start and its memory-domain length,
 * read consistently. False: it is not a signature key (now).
 */
bool sim_mkey_sig_snapshot(const struct sim_mkey *mk, struct mlx5_bsf *bsf,
			   u64 *start, u64 *mem_len)
{
	unsigned int seq;
	bool en;

	do {
		seq = read_seqcount_begin(&mk->seq);
		en = mk->bsf_en;
		*bsf = mk->bsf;
		*start = mk->start;
		*mem_len = mk->len;
	} while (read_seqcount_retry(&mk->seq, seq));
	return en;
}

u8 sim_mkey_state_check(const struct sim_mkey_state *st, u32 pd, u32 qpn,
			u64 va, u64 len, u8 access)
{
	u64 off;

	if (st->free)
		return 1;
	if (st->pd != pd || (st->qpn != SIM_MKEY_ANY_QP && st->qpn != qpn))
		return 2;
	if ((st->access | SIM_ACC_LR) != (st->access | SIM_ACC_LR | access))
		return 3;
	if (st->len64)
		return va + len < va ? 4 : 0;
	if (va < st->start)
		return 4;
	off = va - st->start;
	if (off > st->len || len > st->len - off)
		return 4;
	return 0;
}

/*
 * May @len bytes at @va be reached through @mk by a QP of @pd / @qpn with
 * @access? Returns 0 or the first failed check (1 key state, 2 PD or QP,
 * 3 access, 4 bounds), for logs.
 */
u8 sim_mkey_check(const struct sim_mkey *mk, u32 pd, u32 qpn, u64 va,
		  u64 len, u8 access)
{
	struct sim_mkey_state st;

	sim_mkey_snapshot(mk, &st);
	return sim_mkey_state_check(&st, pd, qpn, va, len, access);
}
EXPORT_SYMBOL_IF_KUNIT(sim_mkey_check);

/*
 * A SEND with invalidate names @mk at a QP of @pd / @qpn: the key goes
 * free if it allows remote invalidation there. False: it may not.
 */
bool sim_mkey_invalidate(struct sim_mkey *mk, u32 pd, u32 qpn)
{
	bool ok;

	spin_lock_bh(&mk->lock);
	ok = mk->umr_en && mk->en_rinval && !mk->free && mk->pd == pd &&
	     (mk->qpn == SIM_MKEY_ANY_QP || mk->qpn == qpn);
	if (ok) {
		write_seqcount_begin(&mk->seq);
		mk->free = true;
		write_seqcount_end(&mk->seq);
	}
	spin_unlock_bh(&mk->lock);
	return ok;
}

/* Physical address of @va in an MTT key, and bytes contiguous from it. */
u64 sim_mkey_mtt_pa(const struct sim_mkey *mk, u64 va, u64 *avail)
{
	unsigned int seq;
	u64 psize, rel, idx, pa;

	do {
		seq = read_seqcount_begin(&mk->seq);
		psize = BIT_ULL(mk->page_shift);
		rel = va - (mk->start & ~(psize - 1));
		idx = rel >> mk->page_shift;
		pa = idx < mk->nmtt ? READ_ONCE(mk->mtt[idx]) : 0;
	} while (read_seqcount_retry(&mk->seq, seq));
	if (!pa)
		return 0;
	*avail = psize - (rel & (psize - 1));
	return pa + (rel & (psize - 1));
}
EXPORT_SYMBOL_IF_KUNIT(sim_mkey_mtt_pa);

/*
 * The KLM of indirect @mk holding @va: the inner key and address, and the
 * bytes left in the entry. False: @va is past the list.
 */
static bool sim_mkey_klm_at(const struct sim_mkey *mk, u64 va,
			    struct sim_klm *out, u64 *avail)
{
	unsigned int seq;
	u64 rel, cycle;
	bool found;
	u32 i;

	do {
		seq = read_seqcount_begin(&mk->seq);
		found = false;
		rel = va - mk->start;
		cycle = 0;
		/* a repeat block: the cycle, then the entry within it */
		if (mk->repeat_count) {
			cycle = div64_u64_rem(rel, mk->cycle_bytes, &rel);
			if (cycle >= mk->repeat_count)
				continue;
		}
		for (i = 0; i < mk->nklm_used && i < mk->nklm; i++) {
			if (rel < mk->klm[i].len) {
				*out = mk->klm[i];
				found = true;
				break;
			}
			rel -= mk->klm[i].len;
		}
	} while (read_seqcount_retry(&mk->seq, seq));
	if (!found)
		return false;
	out->va += cycle * out->stride + rel;
	*avail = out->len - rel;
	return true;
}

static void *sim_mkey_map_depth(struct mlx5sp_sim *sim,
				const struct sim_mkey *mk, u64 va, u32 *len,
				int depth)
{
	struct sim_mkey_state st;
	struct sim_mkey *inner;
	struct sim_klm klm;
	u64 pa, avail;

	switch (mk->access_mode) {
	case MLX5_MKC_ACCESS_MODE_MTT:
		pa = sim_mkey_mtt_pa(mk, va, &avail);
		if (!pa)
			return NULL;
		*len = min_t(u64, *len, avail);
		return sim_dma_run(sim, pa, len);
	case MLX5_MKC_ACCESS_MODE_KLMS:
		/* one level of indirection: what a window or a sig key is */
		if (depth || !sim_mkey_klm_at(mk, va, &klm, &avail))
			return NULL;
		inner = sim_mkey_lookup(sim, klm.key);
		if (!inner || inner->access_mode == MLX5_MKC_ACCESS_MODE_KLMS)
			return NULL;
		sim_mkey_snapshot(inner, &st);
		*len = min_t(u64, *len, avail);
		/* the outer key was checked; the inner one must still be there */
		if (sim_mkey_state_check(&st, READ_ONCE(mk->pd), st.qpn, klm.va,
					 *len, 0))
			return NULL;
		return sim_mkey_map_depth(sim, inner, klm.va, len, depth + 1);
	default:
		/* PA: every page is checked as it is used */
		avail = SZ_4K - offset_in_page(va);
		*len = min_t(u64, *len, avail);
		return sim_dma_ptr(sim, va, *len, 0);
	}
}

/*
 * Kernel address of @va through a checked key; *@len is clipped to what
 * is contiguous from there. NULL: a page that is not there (an MTT hole,
 * a PA that is not memory, a KLM whose key went away).
 */
void *sim_mkey_map(struct mlx5sp_sim *sim, const struct sim_mkey *mk,
		   u64 va, u32 *len)
{
	return sim_mkey_map_depth(sim, mk, va, len, 0);
}
