// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The one way the model reaches memory the driver hands it: on this front
 * end a DMA address is a physical address of the host.
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "dma.h"

/*
 * The only way to memory the driver gave us: a DMA address is a physical
 * address. Reject 0, misalignment, ranges crossing a page (callers walk
 * page by page) and anything that is not ordinary RAM.
 */
static void *sim_dma_va(u64 addr, size_t len, size_t align)
{
	unsigned long pfn;

	if (!addr || !len || len > PAGE_SIZE)
		return NULL;
	if (align && !IS_ALIGNED(addr, align))
		return NULL;
	if (offset_in_page(addr) + len > PAGE_SIZE)
		return NULL;
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

/* For an access now: the bytes are checked against KASAN's shadow. */
void *sim_dma_ptr(struct mlx5sp_sim *sim, u64 addr, size_t len, size_t align)
{
	void *p = sim_dma_va(addr, len, align);

	return p ? sim_dma_checked(p, len) : NULL;
}

/*
 * For a check of what a command names (page lists, firmware pages): the
 * same rules, no access. A page of a block may lie beyond what its owner
 * uses (an MTT block larger than the buffer), so it is not KASAN-checked.
 */
bool sim_dma_ram(u64 addr, size_t len, size_t align)
{
	return sim_dma_va(addr, len, align);
}
