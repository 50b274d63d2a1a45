// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Scatter/gather lists of the data path: entries behind memory keys
 * (checked once, when the WQE is parsed) or in WQE memory (inline data),
 * and the copy between two of them, page by page, straight from the
 * source pages to the destination pages: no bounce buffer, no allocation.
 */

#include "mkey.h"
#include "sgl.h"
#include "sim.h"

#define SIM_MAX_MSG		BIT_ULL(31)

/*
 * Add @len bytes at @va through @key of @sim. Returns 0 or the CQE
 * syndrome of the failure (the caller turns a local one into a remote one
 * when the key is the peer's).
 */
u8 sim_sgl_add_key(struct mlx5sp_sim *sim, struct sim_sgl *sgl, u32 key,
		   u64 va, u32 len, u32 pd, u32 qpn, u8 access)
{
	struct sim_mkey *mk;
	struct sim_sge *sge;

	if (!len)
		return 0;
	if (sgl->n >= SIM_MAX_SGE || sgl->total + len > SIM_MAX_MSG)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	mk = sim_mkey_lookup(sim, key);
	if (!mk || sim_mkey_check(mk, pd, qpn, va, len, access))
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	sge = &sgl->sge[sgl->n++];
	sge->mk = mk;
	sge->kva = NULL;
	sge->va = va;
	sge->len = len;
	sge->sig = READ_ONCE(mk->bsf_en);
	sgl->sig |= sge->sig;
	sgl->total += len;
	return 0;
}

int sim_sgl_add_kva(struct sim_sgl *sgl, void *kva, u32 len)
{
	struct sim_sge *sge;

	if (!len)
		return 0;
	if (sgl->n >= SIM_MAX_SGE)
		return -E2BIG;
	sge = &sgl->sge[sgl->n++];
	sge->mk = NULL;
	sge->kva = kva;
	sge->va = 0;
	sge->len = len;
	sge->sig = false;
	sgl->total += len;
	return 0;
}

/* Kernel address of the cursor's position, *@len clipped to what follows. */
void *sim_cur_map(struct mlx5sp_sim *sim, struct sim_cur *c, u32 *len)
{
	const struct sim_sge *sge;

	while (c->i < c->n && c->off == c->sge[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i >= c->n)
		return NULL;
	sge = &c->sge[c->i];
	*len = min_t(u64, *len, sge->len - c->off);
	if (sge->kva)
		return sge->kva + c->off;
	return sim_mkey_map(sim, sge->mk, sge->va + c->off, len);
}

/* Copy @len bytes; -EFAULT when a page behind a key is not memory. */
int sim_cur_copy(struct mlx5sp_sim *dsim, struct sim_cur *d,
		 struct mlx5sp_sim *ssim, struct sim_cur *s, u64 len)
{
	u32 dl, sl;
	void *dp, *sp;

	while (len) {
		dl = min_t(u64, len, U32_MAX);
		dp = sim_cur_map(dsim, d, &dl);
		if (!dp)
			return -EFAULT;
		sl = dl;
		sp = sim_cur_map(ssim, s, &sl);
		if (!sp)
			return -EFAULT;
		memcpy(dp, sp, sl);
		d->off += sl;
		s->off += sl;
		len -= sl;
	}
	return 0;
}

/* Move @c on by @off bytes (to a packet's place in a message). */
void sim_cur_skip(struct sim_cur *c, u64 off)
{
	u64 left;

	while (off && c->i < c->n) {
		left = c->sge[c->i].len - c->off;
		if (off < left) {
			c->off += off;
			return;
		}
		off -= left;
		c->i++;
		c->off = 0;
	}
}

int sim_cur_write(struct mlx5sp_sim *sim, struct sim_cur *d, const void *buf,
		  u32 len)
{
	u32 dl;
	void *dp;

	while (len) {
		dl = len;
		dp = sim_cur_map(sim, d, &dl);
		if (!dp)
			return -EFAULT;
		memcpy(dp, buf, dl);
		d->off += dl;
		buf += dl;
		len -= dl;
	}
	return 0;
}
