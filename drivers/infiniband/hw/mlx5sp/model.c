// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The attach point for a software ConnectX: register access goes to the
 * model's callbacks and each MSI-X vector is an irq_work, so EQ handlers run
 * in hard interrupt context exactly as they do on a PCI function.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "mlx5sp.h"

struct model_vector {
	struct irq_work work;
	irq_handler_t handler;		/* NULL while free; published with release */
	void *data;
};

struct model_priv {
	struct mlx5sp_model_dev *mdev;
	struct mlx5sp_dev dev;
	u16 nvec;
	struct model_vector vec[] __counted_by(nvec);
};

static struct model_priv *to_priv(struct mlx5sp_dev *dev)
{
	return container_of(dev, struct model_priv, dev);
}

static u32 model_rd32(struct mlx5sp_dev *dev, u32 offset)
{
	struct mlx5sp_model_dev *mdev = to_priv(dev)->mdev;

	return mdev->ops->read32(mdev, offset);
}

static void model_wr32(struct mlx5sp_dev *dev, u32 offset, u32 val)
{
	struct mlx5sp_model_dev *mdev = to_priv(dev)->mdev;

	mdev->ops->write32(mdev, offset, val);
}

static void model_vector_work(struct irq_work *work)
{
	struct model_vector *v = container_of(work, struct model_vector, work);
	/* Pairs with the release in model_request_irq(): data is set first. */
	irq_handler_t handler = smp_load_acquire(&v->handler);

	if (handler)
		handler(0, v->data);
}

static int model_request_irq(struct mlx5sp_dev *dev, u16 vector,
			     irq_handler_t handler, void *data)
{
	struct model_priv *priv = to_priv(dev);

	if (vector >= priv->nvec || priv->vec[vector].handler)
		return -EINVAL;
	priv->vec[vector].data = data;
	/* Publish data before the handler that uses it. */
	smp_store_release(&priv->vec[vector].handler, handler);
	return 0;
}

static void model_free_irq(struct mlx5sp_dev *dev, u16 vector, void *data)
{
	struct model_priv *priv = to_priv(dev);

	if (vector >= priv->nvec || priv->vec[vector].data != data)
		return;
	WRITE_ONCE(priv->vec[vector].handler, NULL);
	/* A handler already running finishes before its EQ goes away. */
	irq_work_sync(&priv->vec[vector].work);
}

static const struct mlx5sp_bus_ops mlx5sp_model_bus_ops = {
	.rd32 = model_rd32,
	.wr32 = model_wr32,
	.request_irq = model_request_irq,
	.free_irq = model_free_irq,
};

/**
 * mlx5sp_model_raise_irq - the model signals an MSI-X vector
 * @mdev: the model device
 * @vector: the vector
 *
 * Any context. Ignored for a device that is not (or no longer) attached.
 */
void mlx5sp_model_raise_irq(struct mlx5sp_model_dev *mdev, u16 vector)
{
	struct model_priv *priv;

	rcu_read_lock();
	priv = rcu_dereference(mdev->drvdata);
	if (priv && vector < priv->nvec)
		irq_work_queue(&priv->vec[vector].work);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(mlx5sp_model_raise_irq);

int mlx5sp_model_attach(struct mlx5sp_model_dev *mdev)
{
	struct model_priv *priv;
	int i, err;

	if (!mdev || !mdev->ops || !mdev->ops->read32 || !mdev->ops->write32 ||
	    !mdev->dma_dev || !mdev->name || !mdev->num_vectors)
		return -EINVAL;
	if (rcu_access_pointer(mdev->drvdata))
		return -EBUSY;

	priv = kzalloc(struct_size(priv, vec, mdev->num_vectors), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->nvec = mdev->num_vectors;
	priv->mdev = mdev;
	for (i = 0; i < priv->nvec; i++)
		init_irq_work(&priv->vec[i].work, model_vector_work);
	priv->dev.dma_dev = mdev->dma_dev;
	priv->dev.name = mdev->name;
	priv->dev.bus = &mlx5sp_model_bus_ops;
	priv->dev.bus_priv = priv;
	priv->dev.vendor_id = mdev->vendor_id;
	priv->dev.device_id = mdev->device_id;
	priv->dev.num_vectors = mdev->num_vectors;
	/* Vectors must reach us during bring-up already. */
	rcu_assign_pointer(mdev->drvdata, priv);

	err = mlx5sp_dev_init(&priv->dev);
	if (err)
		goto err_unpublish;
	return 0;

err_unpublish:
	RCU_INIT_POINTER(mdev->drvdata, NULL);
	synchronize_rcu();
	for (i = 0; i < priv->nvec; i++)
		irq_work_sync(&priv->vec[i].work);
	kfree(priv);
	return err;
}
EXPORT_SYMBOL_GPL(mlx5sp_model_attach);

/* Attach and detach of one model device are serialised by the model. */
static struct model_priv *model_priv(struct mlx5sp_model_dev *mdev)
{
	return rcu_dereference_protected(mdev->drvdata, true);
}

void mlx5sp_model_detach(struct mlx5sp_model_dev *mdev)
{
	struct model_priv *priv = model_priv(mdev);
	int i;

	if (!priv)
		return;
	mlx5sp_dev_cleanup(&priv->dev);
	RCU_INIT_POINTER(mdev->drvdata, NULL);
	synchronize_rcu();
	for (i = 0; i < priv->nvec; i++)
		irq_work_sync(&priv->vec[i].work);
	kfree(priv);
}
EXPORT_SYMBOL_GPL(mlx5sp_model_detach);

/* For KUnit suites: the core device behind an attached model. */
struct mlx5sp_dev *mlx5sp_model_to_dev(struct mlx5sp_model_dev *mdev)
{
	struct model_priv *priv = model_priv(mdev);

	return priv ? &priv->dev : NULL;
}
EXPORT_SYMBOL_GPL(mlx5sp_model_to_dev);
