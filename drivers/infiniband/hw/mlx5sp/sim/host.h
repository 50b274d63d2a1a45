/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What a model device needs of the bus it sits on (its front end): how a
 * DMA address reaches memory, how an MSI-X vector is signalled, and
 * whether user doorbells can be trapped. The core of the model knows
 * nothing else of its host. Two front ends exist:
 *  - the attach point (main.c, dma.c): the mlx5sp driver in the same
 *    kernel, DMA addresses are physical addresses, a vector is the
 *    driver's irq_work;
 *  - a PCI function through vfio-mdev (vfio_mdev.c): DMA addresses are
 *    the IOVAs of a guest, reached through pages vfio pinned, a vector
 *    is an eventfd.
 */
#ifndef MLX5SP_SIM_HOST_H
#define MLX5SP_SIM_HOST_H

#include <linux/types.h>

struct mlx5sp_sim;

/*
 * dma_va: the kernel address of @len bytes at DMA address @addr, which
 * lie in one page, or NULL if they are not memory the device may reach.
 * Any context (the data path runs in softirq and under spinlocks): a
 * lookup, never a sleep. The address stays valid until the device is
 * destroyed: a front end destroys its device before it lets go of the
 * memory.
 * dma_flat: pages that each passed dma_va are contiguous in the kernel's
 * address space when they are contiguous in DMA space (the direct map):
 * a mapping may then span them at once.
 * raise_irq: signal MSI-X vector @vector; any context.
 * uar_trap: have the next user access to a UAR page told (engine.c);
 * false when it cannot be, so the engine polls.
 */
struct sim_host_ops {
	void *(*dma_va)(struct mlx5sp_sim *sim, u64 addr, size_t len);
	bool dma_flat;
	void (*raise_irq)(struct mlx5sp_sim *sim, u16 vector);
	bool (*uar_trap)(struct mlx5sp_sim *sim);
};

/* the attach point's (main.c), the front end of sim_create() */
extern const struct sim_host_ops sim_attach_host;

#endif /* MLX5SP_SIM_HOST_H */
