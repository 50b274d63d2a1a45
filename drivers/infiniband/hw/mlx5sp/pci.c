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

struct pci_priv {
	struct pci_dev *pdev;
	void __iomem *bar;
	bool core_up;			/* under pci_ib_lock */
	struct completion core_down;	/* release has torn the core down */
	struct mlx5sp_dev dev;
};

static struct pci_priv *to_priv(struct mlx5sp_dev *dev)
{
	return container_of(dev, struct pci_priv, dev);
}

static u32 pcibus_rd32(struct mlx5sp_dev *dev, u32 offset)
{
	return ioread32be(to_priv(dev)->bar + offset);
}

static void pcibus_wr32(struct mlx5sp_dev *dev, u32 offset, u32 val)
{
	iowrite32be(val, to_priv(dev)->bar + offset);
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
	__raw_writeq(val, to_priv(dev)->bar + offset);
}

/* UAR page N is BAR0 page N (4 KiB UAR pages, as set_caps asks). */
static int pcibus_uar_pfn(struct mlx5sp_dev *dev, u32 index, unsigned long *pfn,
			  bool *is_mem)
{
	struct pci_dev *pdev = to_priv(dev)->pdev;
	u64 off = (u64)index * MLX5_ADAPTER_PAGE_SIZE;

	if (off + PAGE_SIZE > pci_resource_len(pdev, 0))
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
	.uar_wc = true,
};

/* The RDMA device is gone (unbind or `rdma link delete`): core down. */
static void pci_release(struct mlx5sp_dev *dev)
{
	struct pci_priv *priv = to_priv(dev);

	mutex_lock(&pci_ib_lock);
	priv->core_up = false;
	mutex_unlock(&pci_ib_lock);
	mlx5sp_dev_cleanup(dev);
	complete(&priv->core_down);
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
	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->pdev = pdev;

	err = pci_enable_device(pdev);
	if (err)
		goto err_free_priv;
	err = pci_request_regions(pdev, MLX5SP_DRV_NAME);
	if (err)
		goto err_disable;
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_release_regions;
	priv->bar = pci_iomap(pdev, 0, 0);
	if (!priv->bar) {
		err = -ENOMEM;
		goto err_release_regions;
	}
	nvec = pci_alloc_irq_vectors(pdev, 2, MLX5SP_MAX_VECTORS, PCI_IRQ_MSIX);
	if (nvec < 0) {
		err = nvec;
		goto err_iounmap;
	}

	priv->dev.dma_dev = &pdev->dev;
	priv->dev.name = pci_name(pdev);
	priv->dev.bus = &pcibus_ops;
	priv->dev.bus_priv = priv;
	priv->dev.vendor_id = pdev->vendor;
	priv->dev.device_id = pdev->device;
	priv->dev.num_vectors = nvec;
	priv->dev.release = pci_release;
	init_completion(&priv->core_down);
	err = mlx5sp_dev_init(&priv->dev);
	if (err)
		goto err_free_vectors;
	priv->core_up = true;
	pci_set_drvdata(pdev, priv);
	/* No netdev of ours on PCI yet: a RoCE port that is down. */
	err = mlx5sp_ib_add(&priv->dev, NULL);
	if (err)
		goto err_free_vectors;	/* the core is down already */
	return 0;

err_free_vectors:
	pci_free_irq_vectors(pdev);
err_iounmap:
	pci_iounmap(pdev, priv->bar);
err_release_regions:
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
	wait_for_completion(&priv->core_down);
	pci_free_irq_vectors(pdev);
	pci_iounmap(pdev, priv->bar);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	kfree(priv);
}

static struct pci_driver mlx5sp_pci_driver = {
	.name = MLX5SP_DRV_NAME,
	.id_table = NULL,	/* bind only by driver_override */
	.probe = mlx5sp_pci_probe,
	.remove = mlx5sp_pci_remove,
};

int mlx5sp_pci_register(void)
{
	return pci_register_driver(&mlx5sp_pci_driver);
}

void mlx5sp_pci_unregister(void)
{
	pci_unregister_driver(&mlx5sp_pci_driver);
}
