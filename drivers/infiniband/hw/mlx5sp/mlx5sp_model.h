/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The attach point between the mlx5sp driver and a software ConnectX.
 *
 * A model device offers the driver exactly what a PCI function offers:
 *  - BAR0: 32-bit register reads and writes with ioread32be()/iowrite32be()
 *    semantics (values are CPU order, the registers big-endian as in PRM).
 *    The initialization segment (struct mlx5_init_seg) is at offset 0; UAR
 *    page N (the index ALLOC_UAR returns) is at offset N * 4096.
 *  - MSI-X vectors: the model raises vector V with mlx5sp_model_raise_irq();
 *    the driver's handler then runs in hard interrupt context.
 *  - DMA: the driver maps memory for @dma_dev; the model reaches memory only
 *    through the DMA addresses the driver hands it and validates each one.
 *
 * The model knows nothing else of the driver: everything it reads and
 * writes is in PRM format (the kernel's mlx5 headers, and mlx5sp_prm.h
 * for what they lack).
 */
#ifndef MLX5SP_MODEL_H
#define MLX5SP_MODEL_H

#include <linux/device.h>
#include <linux/types.h>

struct mlx5sp_model_dev;
struct net_device;
struct page;

/*
 * read32/write32/write64 may be called in any context and must not sleep.
 * write64 is a 64-bit doorbell (CQ arm at UAR + 0x20, send doorbell or
 * BlueFlame at UAR + 0x800): @val holds the 8 bytes in memory order, as
 * __raw_writeq() would put them on the bus.
 * uar_page returns the page backing UAR @index while it is allocated (what
 * a BAR page is on a card); the driver maps it into user space.
 * uar_touch (optional): a process accessed UAR page @index after
 * mlx5sp_model_uar_trap() (a doorbell, as a rule), a store at @offset in
 * the page or a read (MLX5SP_UAR_TOUCH_READ); told before the page is
 * mapped again, so the store lands after it returns, and under the lock
 * mlx5sp_model_uar_trap() takes, so no trap comes between the two.
 * Process context, in a page fault: it must not sleep long nor call
 * mlx5sp_model_uar_trap(). With it the driver maps UAR pages on fault.
 * uar_store (optional, with uar_touch): a process stored @size bytes (4 or
 * 8) of @val (the register's value, host order, as the CPU would write it
 * to memory) at @offset of UAR page @index; the driver executed the store
 * for it (the page stays unmapped). Returns false if the model does not
 * take it (the driver then maps the page as for uar_touch). Process
 * context in a page fault, mmap or vma lock held: must not sleep.
 */
#define MLX5SP_UAR_TOUCH_READ	U32_MAX

struct mlx5sp_model_ops {
	u32 (*read32)(struct mlx5sp_model_dev *mdev, u32 offset);
	void (*write32)(struct mlx5sp_model_dev *mdev, u32 offset, u32 val);
	void (*write64)(struct mlx5sp_model_dev *mdev, u32 offset, u64 val);
	struct page *(*uar_page)(struct mlx5sp_model_dev *mdev, u32 index);
	void (*uar_touch)(struct mlx5sp_model_dev *mdev, u32 index,
			  u32 offset);
	bool (*uar_store)(struct mlx5sp_model_dev *mdev, u32 index, u32 offset,
			  u64 val, unsigned int size);
};

struct mlx5sp_model_dev {
	struct device *dma_dev;		/* DMA is mapped for it; parent device */
	const char *name;
	u16 vendor_id;			/* PCI identity the model reports */
	u16 device_id;
	u32 bar_size;			/* bytes of BAR0 */
	u16 num_vectors;		/* MSI-X vectors */
	struct net_device *netdev;	/* RoCE port 1's netdev, held by the model */
	const struct mlx5sp_model_ops *ops;
	void __rcu *drvdata;		/* the driver's; the model never touches it */
};

/*
 * Provided by mlx5sp.ko. attach brings the device up (it sleeps and needs
 * the model's command processing to run meanwhile); detach tears it down
 * and returns every firmware page. raise_irq may be called in any context.
 */
int mlx5sp_model_attach(struct mlx5sp_model_dev *mdev);
void mlx5sp_model_detach(struct mlx5sp_model_dev *mdev);
void mlx5sp_model_raise_irq(struct mlx5sp_model_dev *mdev, u16 vector);
bool mlx5sp_model_uar_trap(struct mlx5sp_model_dev *mdev);

/*
 * How `rdma link add NAME type mlx5sp netdev DEV` reaches a model: the model
 * registers a factory and the driver's rdma_link_ops call newlink, which
 * creates a model device named @ibdev_name on @netdev and attaches it.
 * When the IB device is unregistered from the RDMA side (`rdma link
 * delete`), the driver tears the device down and calls release; the model
 * then frees the device (release must not wait for anything that waits
 * for the IB unregistration). A model-side removal goes through
 * mlx5sp_model_detach() as before, and release is not called then.
 */
struct mlx5sp_model_factory {
	int (*newlink)(const char *ibdev_name, struct net_device *netdev);
	void (*release)(struct mlx5sp_model_dev *mdev);
};

int mlx5sp_model_register_factory(const struct mlx5sp_model_factory *f);
void mlx5sp_model_unregister_factory(const struct mlx5sp_model_factory *f);

#endif /* MLX5SP_MODEL_H */
