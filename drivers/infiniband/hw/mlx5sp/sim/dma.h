/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one way the model reaches memory the driver hands it (dma.c): a DMA
 * address, checked, to a kernel address through the device's front end
 * (host.h).
 */
#ifndef MLX5SP_SIM_DMA_H
#define MLX5SP_SIM_DMA_H

#include <linux/kasan-checks.h>
#include <linux/types.h>

struct mlx5sp_sim;

struct page;

void *sim_dma_ptr(struct mlx5sp_sim *sim, u64 addr, size_t len, size_t align);
bool sim_dma_ram(struct mlx5sp_sim *sim, u64 addr, size_t len, size_t align);
void *sim_dma_run(struct mlx5sp_sim *sim, u64 addr, u32 *len);
struct page *sim_dma_page(struct mlx5sp_sim *sim, u64 addr);
void *sim_attach_dma_va(struct mlx5sp_sim *sim, u64 addr, size_t len);

/*
 * Every byte the device reaches through a DMA address passes here first.
 * With KASAN, memory the kernel has freed is reported at this point, where
 * a driver's or ULP's stale address is used: the kernel's memcpy() and
 * memset() are not checked on x86 with GCC before 13 (GENERIC_ENTRY, no
 * __asan_mem* prefix), so a copy into freed memory would otherwise corrupt
 * whatever reuses it, silently. The check covers reads and writes.
 */
static inline void *sim_dma_checked(void *p, size_t len)
{
	kasan_check_read(p, len);
	return p;
}

#endif /* MLX5SP_SIM_DMA_H */
