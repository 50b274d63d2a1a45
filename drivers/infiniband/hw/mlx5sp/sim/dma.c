// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The one way the model reaches memory the driver hands it: the generic
 * checks of a DMA address here, its translation by the device's front end
 * (host.h). On the attach point a DMA address is a physical address of
 * the host.
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "dma.h"
#include "host.h"
#include "sim.h"

/*
 * The attach point's translation: a DMA address is a physical address.
 * Anything that is not ordinary RAM is refused.
 */
void *sim_attach_dma_va(struct mlx5sp_sim *sim, u64 addr, size_t len)
{
	unsigned long pfn;

	if (addr != (u64)(phys_addr_t)addr)
		return NULL;
	pfn = PHYS_PFN(addr);
	if (!pfn_valid(pfn))
		return NULL;
	/* kernel image, firmware tables, holes: never device memory */
	if (PageReserved(pfn_to_page(pfn)))
		return NULL;
	return phys_to_virt(addr);
}

/*
 * Reject 0, misalignment and ranges crossing a page (callers walk page by
 * page), then ask the front end.
 */
static void *sim_dma_va(struct mlx5sp_sim *sim, u64 addr, size_t len,
			size_t align)
{
	if (!addr || !len || len > PAGE_SIZE)
		return NULL;
	if (align && !IS_ALIGNED(addr, align))
		return NULL;
	if (offset_in_page(addr) + len > PAGE_SIZE)
		return NULL;
	return sim->host->dma_va(sim, addr, len);
}

/* For an access now: the bytes are checked against KASAN's shadow. */
void *sim_dma_ptr(struct mlx5sp_sim *sim, u64 addr, size_t len, size_t align)
{
	void *p = sim_dma_va(sim, addr, len, align);

	return p ? sim_dma_checked(p, len) : NULL;
}

/*
 * For a check of what a command names (page lists, firmware pages): the
 * same rules, no access. A page of a block may lie beyond what its owner
 * uses (an MTT block larger than the buffer), so it is not KASAN-checked.
 */
bool sim_dma_ram(struct mlx5sp_sim *sim, u64 addr, size_t len, size_t align)
{
	return sim_dma_va(sim, addr, len, align);
}

/*
 * Up to *@len bytes at @addr, in pages a command checked before (an MTT
 * entry): on a flat front end the whole run at once, else up to the end
 * of the page, *@len trimmed to it. NULL if the page is gone.
 */
void *sim_dma_run(struct mlx5sp_sim *sim, u64 addr, u32 *len)
{
	if (sim->host->dma_flat)
		return sim_dma_checked(phys_to_virt(addr), *len);
	*len = min_t(u32, *len, PAGE_SIZE - offset_in_page(addr));
	return sim_dma_ptr(sim, addr, *len, 0);
}

/* The page behind a checked DMA address, for its reference count. */
struct page *sim_dma_page(struct mlx5sp_sim *sim, u64 addr)
{
	void *p = sim_dma_va(sim, addr, 1, 0);

	return p ? virt_to_page(p) : NULL;
}
