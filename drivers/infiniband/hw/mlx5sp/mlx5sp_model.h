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
 * writes is in PRM format.
 */
#ifndef MLX5SP_MODEL_H
#define MLX5SP_MODEL_H

#include <linux/device.h>
#include <linux/types.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>

/*
 * Command delivery status: bits 7:1 of mlx5_cmd_layout.status_own (PRM
 * "Command Delivery Status"; the kernel headers do not name these).
 */
enum mlx5sp_cmd_delivery_status {
	MLX5SP_CMD_DELIVERY_OK			= 0x0,
	MLX5SP_CMD_DELIVERY_SIGNATURE_ERR	= 0x1,
	MLX5SP_CMD_DELIVERY_TOKEN_ERR		= 0x2,
	MLX5SP_CMD_DELIVERY_BAD_BLOCK_NUM_ERR	= 0x3,
	MLX5SP_CMD_DELIVERY_OUT_PTR_ALIGN_ERR	= 0x4,
	MLX5SP_CMD_DELIVERY_IN_PTR_ALIGN_ERR	= 0x5,
	MLX5SP_CMD_DELIVERY_FW_ERR		= 0x6,
	MLX5SP_CMD_DELIVERY_IN_LENGTH_ERR	= 0x7,
	MLX5SP_CMD_DELIVERY_OUT_LENGTH_ERR	= 0x8,
	MLX5SP_CMD_DELIVERY_RES_FLD_NOT_CLR_ERR	= 0x9,
	MLX5SP_CMD_DELIVERY_CMD_DESCR_ERR	= 0x10,
};

/*
 * The common command header: every input starts with opcode, uid and
 * op_mod, every output with status and syndrome. The kernel headers name it
 * only per command; ALLOC_PD's in/out are exactly that header.
 */
#define MLX5SP_CMD_HDR_LEN		8
#define MLX5SP_CMD_OPCODE(in)		MLX5_GET(alloc_pd_in, in, opcode)
#define MLX5SP_CMD_UID(in)		MLX5_GET(alloc_pd_in, in, uid)
#define MLX5SP_CMD_OP_MOD(in)		MLX5_GET(alloc_pd_in, in, op_mod)
#define MLX5SP_CMD_STATUS(out)		MLX5_GET(alloc_pd_out, out, status)
#define MLX5SP_CMD_SYNDROME(out)	MLX5_GET(alloc_pd_out, out, syndrome)

/* QUERY_PAGES op_mod and MANAGE_PAGES op_mod (PRM; not in the headers). */
enum {
	MLX5SP_BOOT_PAGES	= 1,
	MLX5SP_INIT_PAGES	= 2,
	MLX5SP_REG_PAGES	= 3,
};

enum {
	MLX5SP_PAGES_CANT_GIVE	= 0,
	MLX5SP_PAGES_GIVE	= 1,
	MLX5SP_PAGES_TAKE	= 2,
};

/* Command mailboxes are 1 KiB aligned (PRM); the low bits of next are 0. */
#define MLX5SP_CMD_MBOX_ALIGN		1024

/* EQ doorbells in a UAR page: arm + consumer index, consumer index only. */
#define MLX5SP_UAR_EQ_DB_ARM		0x40
#define MLX5SP_UAR_EQ_DB_NOARM		0x48

struct mlx5sp_model_dev;

/* Both callbacks may be called in any context and must not sleep. */
struct mlx5sp_model_ops {
	u32 (*read32)(struct mlx5sp_model_dev *mdev, u32 offset);
	void (*write32)(struct mlx5sp_model_dev *mdev, u32 offset, u32 val);
};

struct mlx5sp_model_dev {
	struct device *dma_dev;		/* DMA is mapped for it; parent device */
	const char *name;
	u16 vendor_id;			/* PCI identity the model reports */
	u16 device_id;
	u32 bar_size;			/* bytes of BAR0 */
	u16 num_vectors;		/* MSI-X vectors */
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

#endif /* MLX5SP_MODEL_H */
