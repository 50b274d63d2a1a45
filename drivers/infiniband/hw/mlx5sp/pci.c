// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * PCI functions of the ConnectX-4..7 family. The driver has no ID table of
 * its own, so it never binds over mlx5_core by itself: an administrator
 * chooses it per function with driver_override (see Documentation/).
 * Probe still refuses anything that is not an mlx5-family function.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "eth.h"
#include "ib.h"

#define MLX5SP_MAX_VECTORS	8

static const struct pci_device_id mlx5sp_family_ids[] = {
	{ PCI_VDEVICE(MELLANOX, 0x1013) },	/* ConnectX-4 */
	{ PCI_VDEVICE(MELLANOX, 0x1015) },	/* ConnectX-4 Lx */
	{ PCI_VDEVICE(MELLANOX, 0x1017) },	/* ConnectX-5 */
	{ PCI_VDEVICE(MELLANOX, 0x1019) },	/* ConnectX-5 Ex */
	{ PCI_VDEVICE(MELLANOX, 0x101b) },	/* ConnectX-6 */
	{ PCI_VDEVICE(MELLANOX, 0x101d) },	/* ConnectX-6 Dx */
	{ PCI_VDEVICE(MELLANOX, 0x101f) },	/* ConnectX-6 Lx */
	{ PCI_VDEVICE(MELLANOX, 0x1021) },	/* ConnectX-7 */
	{ PCI_VDEVICE(MELLANOX, 0xa2d6) },	/* BlueField-2 integrated ConnectX-6 Dx */
	{ PCI_VDEVICE(MELLANOX, 0xa2dc) },	/* BlueField-3 integrated ConnectX-7 */
	{ }
};

/* Serialises taking a reference on a function's RDMA device with its end. */
static DEFINE_MUTEX(pci_ib_lock);

/*
 * BAR0 is mapped by use, as mlx5_core maps it: the initialization
 * segment and the core's UAR page uncached, each on its own, so that a
 * user's UAR page can still be mapped write-combining (x86 PAT takes the
 * first mapping's type for a range mapped twice).
 */
#define PCI_ISEG_SIZE		sizeof(struct mlx5_init_seg)

struct pci_priv {
	struct pci_dev *pdev;
	void __iomem *iseg;		/* the initialization segment */
	void __iomem *uar;		/* the core's UAR page, NULL without */
	u32 uar_off;			/* its offset in BAR0 */
	bool core_up;			/* under pci_ib_lock */
	bool core_started;		/* core_down will complete */
	struct completion core_down;	/* release has torn the core down */
	struct mlx5sp_dev dev;
};

static struct pci_priv *to_priv(struct mlx5sp_dev *dev)
{
	return container_of(dev, struct pci_priv, dev);
}

/* The mapped register of @width bytes at BAR0 offset @offset, or NULL. */
static void __iomem *pcibus_reg(struct mlx5sp_dev *dev, u32 offset, u32 width)
{
	struct pci_priv *priv = to_priv(dev);

	if (offset + width <= PCI_ISEG_SIZE)
		return priv->iseg + offset;
	if (priv->uar && offset >= priv->uar_off &&
	    offset + width <= priv->uar_off + MLX5_ADAPTER_PAGE_SIZE)
		return priv->uar + (offset - priv->uar_off);
	dev_err_ratelimited(&priv->pdev->dev, "no mapping of BAR0 offset 0x%x\n",
			    offset);
	return NULL;
}

static u32 pcibus_rd32(struct mlx5sp_dev *dev, u32 offset)
{
	void __iomem *p = pcibus_reg(dev, offset, 4);

	/* unmapped reads as a master abort does */
	return p ? ioread32be(p) : U32_MAX;
}

static void pcibus_wr32(struct mlx5sp_dev *dev, u32 offset, u32 val)
{
	void __iomem *p = pcibus_reg(dev, offset, 4);

	if (p)
		iowrite32be(val, p);
}

static int pcibus_request_irq(struct mlx5sp_dev *dev, u16 vector,
			      irq_handler_t handler, void *data)
{
	struct pci_dev *pdev = to_priv(dev)->pdev;

	return request_irq(pci_irq_vector(pdev, vector), handler, 0,
			   MLX5SP_DRV_NAME, data);
}

static void pcibus_free_irq(struct mlx5sp_dev *dev, u16 vector, void *data)
{
	free_irq(pci_irq_vector(to_priv(dev)->pdev, vector), data);
}

static void pcibus_wr64(struct mlx5sp_dev *dev, u32 offset, u64 val)
{
	void __iomem *p = pcibus_reg(dev, offset, 8);

	if (p)
		__raw_writeq(val, p);
}

static int pcibus_map_uar(struct mlx5sp_dev *dev, u32 index)
{
	struct pci_priv *priv = to_priv(dev);
	u64 off = (u64)index * MLX5_ADAPTER_PAGE_SIZE;

	if (off < PCI_ISEG_SIZE ||
	    off + MLX5_ADAPTER_PAGE_SIZE > pci_resource_len(priv->pdev, 0)) {
		dev_err(&priv->pdev->dev, "UAR %u is outside BAR0\n", index);
		return -EIO;
	}
	priv->uar = pci_iomap_range(priv->pdev, 0, off, MLX5_ADAPTER_PAGE_SIZE);
	if (!priv->uar)
		return -ENOMEM;
	priv->uar_off = off;
	return 0;
}

static void pcibus_unmap_uar(struct mlx5sp_dev *dev, u32 index)
{
	struct pci_priv *priv = to_priv(dev);

	if (priv->uar)
		pci_iounmap(priv->pdev, priv->uar);
	priv->uar = NULL;
}

static bool pcibus_offline(struct mlx5sp_dev *dev)
{
	return pci_channel_offline(to_priv(dev)->pdev);
}

/* UAR page N is BAR0 page N (4 KiB UAR pages, as set_caps asks). */
static int pcibus_uar_pfn(struct mlx5sp_dev *dev, u32 index, unsigned long *pfn,
			  bool *is_mem)
{
	struct pci_dev *pdev = to_priv(dev)->pdev;
	u64 off = (u64)index * MLX5_ADAPTER_PAGE_SIZE;

	if (off < PCI_ISEG_SIZE || off + PAGE_SIZE > pci_resource_len(pdev, 0))
		return -EINVAL;
	*pfn = (pci_resource_start(pdev, 0) + off) >> PAGE_SHIFT;
	*is_mem = false;
	return 0;
}

static const struct mlx5sp_bus_ops pcibus_ops = {
	.rd32 = pcibus_rd32,
	.wr32 = pcibus_wr32,
	.request_irq = pcibus_request_irq,
	.free_irq = pcibus_free_irq,
	.wr64 = pcibus_wr64,
	.uar_pfn = pcibus_uar_pfn,
	.map_uar = pcibus_map_uar,
	.unmap_uar = pcibus_unmap_uar,
	.offline = pcibus_offline,
	.uar_wc = true,
};

/* The RDMA device is gone (unbind or `rdma link delete`): core down. */
static void pci_release(struct mlx5sp_dev *dev)
{
	struct pci_priv *priv = to_priv(dev);

	mutex_lock(&pci_ib_lock);
	priv->core_up = false;
	mutex_unlock(&pci_ib_lock);
	mlx5sp_eth_destroy(dev);
	mlx5sp_dev_cleanup(dev);
	complete(&priv->core_down);
}

/* Firmware up, the RDMA device registered: the function in use. */
static int pci_core_up(struct pci_priv *priv)
{
	int err;

	reinit_completion(&priv->core_down);
	err = mlx5sp_dev_init(&priv->dev);
	if (err)
		return err;
	mutex_lock(&pci_ib_lock);
	priv->core_up = true;
	priv->core_started = true;
	mutex_unlock(&pci_ib_lock);
	/* the port's NIC, then the RDMA device on it; down again on error */
	return mlx5sp_port_add(&priv->dev, NULL);
}

/*
 * The RDMA device unregistered (its users told, the ULPs gone) and the
 * firmware torn down; nothing of the core touches the function after.
 */
static void pci_core_down(struct pci_priv *priv)
{
	struct mlx5sp_ib_dev *ib = NULL;

	mutex_lock(&pci_ib_lock);
	if (priv->core_up) {
		ib = priv->dev.ib;
		get_device(&ib->ib.dev);
	}
	mutex_unlock(&pci_ib_lock);
	if (ib) {
		ib_unregister_device(&ib->ib);
		put_device(&ib->ib.dev);
	}
	if (priv->core_started)
		wait_for_completion(&priv->core_down);
	priv->core_started = false;
}

/* A 64-bit DMA mask, else 32 bits, as mlx5_core asks. */
static int pci_set_dma(struct pci_dev *pdev)
{
	int err;

	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_warn(&pdev->dev, "no 64-bit DMA, trying 32-bit\n");
		err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
		if (err) {
			dev_err(&pdev->dev, "no usable DMA mask\n");
			return err;
		}
	}
	/* the device takes scatter entries of up to 2 GiB */
	dma_set_max_seg_size(&pdev->dev, SZ_2G);
	return 0;
}

static void pci_enable_features(struct pci_dev *pdev)
{
	/* relaxed ordering and atomics, where the path to the root allows */
	if (pcie_relaxed_ordering_enabled(pdev))
		dev_dbg(&pdev->dev, "relaxed ordering enabled\n");
	if (!pci_enable_atomic_ops_to_root(pdev, PCI_EXP_DEVCAP2_ATOMIC_COMP64))
		dev_dbg(&pdev->dev, "PCIe atomics to the root enabled\n");
}

static int mlx5sp_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct pci_priv *priv;
	int nvec, err;

	if (!pci_match_id(mlx5sp_family_ids, pdev)) {
		dev_err(&pdev->dev, "%04x:%04x is not a ConnectX-4..7 function\n",
			pdev->vendor, pdev->device);
		return -ENODEV;
	}
	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < PCI_ISEG_SIZE + MLX5_ADAPTER_PAGE_SIZE) {
		dev_err(&pdev->dev, "BAR0 of %llu bytes: not a ConnectX BAR\n",
			(u64)pci_resource_len(pdev, 0));
		return -ENODEV;
	}
	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->pdev = pdev;
	init_completion(&priv->core_down);

	err = pci_enable_device(pdev);
	if (err)
		goto err_free_priv;
	err = pci_request_regions(pdev, MLX5SP_DRV_NAME);
	if (err)
		goto err_disable;
	pci_set_master(pdev);
	err = pci_set_dma(pdev);
	if (err)
		goto err_release_regions;
	pci_enable_features(pdev);
	priv->iseg = pci_iomap_range(pdev, 0, 0, PCI_ISEG_SIZE);
	if (!priv->iseg) {
		err = -ENOMEM;
		goto err_release_regions;
	}
	nvec = pci_alloc_irq_vectors(pdev, 2, MLX5SP_MAX_VECTORS, PCI_IRQ_MSIX);
	if (nvec < 0) {
		err = nvec;
		goto err_iounmap;
	}
	pci_save_state(pdev);

	priv->dev.dma_dev = &pdev->dev;
	priv->dev.name = pci_name(pdev);
	priv->dev.ib_name = "mlx5sp_%d";	/* as mlx5_ib's mlx5_%d */
	priv->dev.bus = &pcibus_ops;
	priv->dev.bus_priv = priv;
	priv->dev.vendor_id = pdev->vendor;
	priv->dev.device_id = pdev->device;
	priv->dev.num_vectors = nvec;
	priv->dev.release = pci_release;
	pci_set_drvdata(pdev, priv);
	err = pci_core_up(priv);
	if (err)
		goto err_free_vectors;
	return 0;

err_free_vectors:
	pci_core_down(priv);
	pci_free_irq_vectors(pdev);
err_iounmap:
	pci_iounmap(pdev, priv->iseg);
err_release_regions:
	pci_clear_master(pdev);
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_free_priv:
	kfree(priv);
	return err;
}

static void mlx5sp_pci_remove(struct pci_dev *pdev)
{
	struct pci_priv *priv = pci_get_drvdata(pdev);

	pci_core_down(priv);
	pci_free_irq_vectors(pdev);
	pci_iounmap(pdev, priv->iseg);
	pci_clear_master(pdev);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	kfree(priv);
}

/* Reboot or kexec: no DMA from the function into the next kernel. */
static void mlx5sp_pci_shutdown(struct pci_dev *pdev)
{
	struct pci_priv *priv = pci_get_drvdata(pdev);

	dev_info(&pdev->dev, "shutdown\n");
	pci_core_down(priv);
	pci_clear_master(pdev);
	pci_disable_device(pdev);
}

/*
 * AER: users hear IB_EVENT_DEVICE_FATAL and their work completes in
 * error (the error state, fatal.c), then the RDMA device goes; after the
 * slot's reset the function comes back with a new one.
 */
static pci_ers_result_t mlx5sp_pci_err_detected(struct pci_dev *pdev,
						pci_channel_state_t state)
{
	struct pci_priv *priv = pci_get_drvdata(pdev);

	dev_err(&pdev->dev, "PCI error detected, channel state %d\n", state);
	mutex_lock(&pci_ib_lock);
	if (priv->core_up)
		mlx5sp_enter_error_state(&priv->dev, "PCI error");
	mutex_unlock(&pci_ib_lock);
	pci_core_down(priv);
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t mlx5sp_pci_slot_reset(struct pci_dev *pdev)
{
	int err;

	err = pci_enable_device(pdev);
	if (err) {
		dev_err(&pdev->dev, "enabling the function after the reset: %d\n",
			err);
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_set_master(pdev);
	pci_restore_state(pdev);
	pci_save_state(pdev);
	return PCI_ERS_RESULT_RECOVERED;
}

static void mlx5sp_pci_resume(struct pci_dev *pdev)
{
	struct pci_priv *priv = pci_get_drvdata(pdev);
	int err;

	err = pci_core_up(priv);
	if (err)
		dev_err(&pdev->dev, "the function did not come back: %d\n", err);
	else
		dev_info(&pdev->dev, "recovered from the PCI error\n");
}

/* An FLR while bound (sysfs reset, vfio): down before, up after. */
static void mlx5sp_pci_reset_prepare(struct pci_dev *pdev)
{
	pci_core_down(pci_get_drvdata(pdev));
}

static void mlx5sp_pci_reset_done(struct pci_dev *pdev)
{
	struct pci_priv *priv = pci_get_drvdata(pdev);
	int err;

	err = pci_core_up(priv);
	if (err)
		dev_err(&pdev->dev, "the function did not come back after its reset: %d\n",
			err);
}

static const struct pci_error_handlers mlx5sp_pci_err_handlers = {
	.error_detected = mlx5sp_pci_err_detected,
	.slot_reset = mlx5sp_pci_slot_reset,
	.resume = mlx5sp_pci_resume,
	.reset_prepare = mlx5sp_pci_reset_prepare,
	.reset_done = mlx5sp_pci_reset_done,
};

/*
 * Suspend: the firmware torn down, as for a reset (a card loses its
 * state); resume brings it up anew.
 */
static int mlx5sp_pci_suspend(struct device *dev)
{
	struct pci_dev *pdev = to_pci_dev(dev);

	pci_core_down(pci_get_drvdata(pdev));
	pci_clear_master(pdev);
	return 0;
}

static int mlx5sp_pci_pm_resume(struct device *dev)
{
	struct pci_dev *pdev = to_pci_dev(dev);

	pci_set_master(pdev);
	return pci_core_up(pci_get_drvdata(pdev));
}

static DEFINE_SIMPLE_DEV_PM_OPS(mlx5sp_pci_pm, mlx5sp_pci_suspend,
				mlx5sp_pci_pm_resume);

static struct pci_driver mlx5sp_pci_driver = {
	.name = MLX5SP_DRV_NAME,
	.id_table = NULL,	/* bind only by driver_override */
	.probe = mlx5sp_pci_probe,
	.remove = mlx5sp_pci_remove,
	.shutdown = mlx5sp_pci_shutdown,
	.err_handler = &mlx5sp_pci_err_handlers,
	.driver.pm = pm_sleep_ptr(&mlx5sp_pci_pm),
};

int mlx5sp_pci_register(void)
{
	return pci_register_driver(&mlx5sp_pci_driver);
}

void mlx5sp_pci_unregister(void)
{
	pci_unregister_driver(&mlx5sp_pci_driver);
}
