// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Buffers the driver describes by a page list (PRM "pas"): CQ and QP
 * buffers. Each 4 KiB page the object will touch is checked once, at
 * creation, and kept as a kernel address; the data path never translates
 * or checks again. Doorbell records are 8 bytes in one page.
 */

#include <linux/mm.h>
#include <linux/slab.h>

#include "buf.h"
#include "dma.h"
#include "sim.h"
#include "syndromes.h"

#define SIM_BUF_PAGE_SHIFT	12

/*
 * @pas: big-endian page addresses; @max_pas: how many fit in the command.
 * @page_offset is in quanta of 1/64 of the page (PRM).
 */
int sim_buf_init(struct sim_cmd *c, struct sim_buf *b, const __be64 *pas,
		 u32 max_pas, u8 log_page_size, u8 page_offset, u64 size)
{
	u8 shift = SIM_BUF_PAGE_SHIFT + log_page_size;
	u64 psize, offset, span, pa, sub;
	u32 npas, i, j, per;

	memset(b, 0, sizeof(*b));
	if (log_page_size > SIM_MAX_LOG_BUF_PAGE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BUF_BAD_LOG_PAGE_SIZE);
	psize = BIT_ULL(shift);
	offset = (u64)page_offset * (psize / 64);
	if (offset >= psize)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BUF_BAD_PAGE_OFFSET);
	b->log_page_size = log_page_size;
	b->page_offset = page_offset;
	b->size = size;
	if (!size)
		return 0;

	span = offset + size;
	npas = DIV_ROUND_UP_ULL(span, psize);
	if (npas > max_pas)
		return sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
				MLX5SP_SIM_SYND_BUF_PAS_INLEN);

	/* the model keeps 4 KiB pages: split the PRM pages */
	per = psize >> SIM_BUF_PAGE_SHIFT;
	b->npages = DIV_ROUND_UP_ULL(span, SZ_4K);
	b->offset = offset;
	b->pages = kvcalloc(b->npages, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);

	for (i = 0; i < npas; i++) {
		pa = be64_to_cpu(pas[i]);
		if (!IS_ALIGNED(pa, psize))
			goto err_bad_pa;
		for (j = 0; j < per; j++) {
			u32 k = i * per + j;

			if (k >= b->npages)
				break;
			sub = pa + ((u64)j << SIM_BUF_PAGE_SHIFT);
			b->pages[k] = sim_dma_ptr(c->sim, sub, SZ_4K, SZ_4K);
			if (!b->pages[k])
				goto err_bad_pa;
		}
	}
	return 0;

err_bad_pa:
	sim_buf_free(b);
	return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
			MLX5SP_SIM_SYND_BUF_BAD_PA);
}

void sim_buf_free(struct sim_buf *b)
{
	kvfree(b->pages);
	b->pages = NULL;
	b->npages = 0;
}

/* A doorbell record: two big-endian words, 8-byte aligned. */
void *sim_dbr_ptr(struct mlx5sp_sim *sim, u64 addr)
{
	return sim_dma_ptr(sim, addr, 2 * sizeof(__be32), 2 * sizeof(__be32));
}
