// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The attach point for a software ConnectX: register access goes to the
 * model's callbacks and each MSI-X vector is an irq_work, so EQ handlers run
 * in hard interrupt context exactly as they do on a PCI function, one CPU
 * at a time (model_vector_work()).
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "eth.h"
#include "ib.h"
#include "uar_trap.h"

struct model_vector {
	struct irq_work work;
	irq_handler_t handler;		/* NULL while free; published with release */
	void *data;
	atomic_t flow;			/* MODEL_VEC_*: one CPU at a time */
};

/* A vector's handler runs (RUNNING); it was raised again (PENDING). */
#define MODEL_VEC_RUNNING	BIT(0)
#define MODEL_VEC_PENDING	BIT(1)

enum model_state {
	MODEL_ATTACHING,	/* attach has not returned yet */
	MODEL_LIVE,
	MODEL_DETACHING,	/* the model removes it: no release callback */
};

/* Serialises model_priv.state with publishing and unpublishing drvdata. */
static DEFINE_MUTEX(model_lock);
/* drvdata for callers that sleep (mlx5sp_model_uar_trap()) */
DEFINE_STATIC_SRCU(model_srcu);

struct model_priv {
	struct mlx5sp_model_dev *mdev;
	enum model_state state;		/* under model_lock */
	struct mlx5sp_dev dev;
	struct mlx5sp_uar_trap trap;	/* user mappings of UAR pages */
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

/*
 * A model without a 64-bit doorbell gets the two halves in address order,
 * each as the big-endian register write it is.
 */
static void model_wr64(struct mlx5sp_dev *dev, u32 offset, u64 val)
{
	struct mlx5sp_model_dev *mdev = to_priv(dev)->mdev;
	__be32 half[2];

	if (mdev->ops->write64) {
		mdev->ops->write64(mdev, offset, val);
		return;
	}
	memcpy(half, &val, sizeof(half));
	mdev->ops->write32(mdev, offset, be32_to_cpu(half[0]));
	mdev->ops->write32(mdev, offset + 4, be32_to_cpu(half[1]));
}

static int model_uar_pfn(struct mlx5sp_dev *dev, u32 index, unsigned long *pfn,
			 bool *is_mem)
{
	struct mlx5sp_model_dev *mdev = to_priv(dev)->mdev;
	struct page *page;

	if (!mdev->ops->uar_page)
		return -EOPNOTSUPP;
	page = mdev->ops->uar_page(mdev, index);
	if (!page)
		return -EINVAL;
	*pfn = page_to_pfn(page);
	*is_mem = true;
	return 0;
}

/* A user access to a trapped UAR page: the model's doorbell. */
static void model_uar_touch(struct mlx5sp_uar_trap *trap, u32 index,
			    u32 offset)
{
	struct mlx5sp_model_dev *mdev;

	mdev = container_of(trap, struct model_priv, trap)->mdev;
	mdev->ops->uar_touch(mdev, index, offset);
}

/* A user store to a trapped UAR page, executed by the fault. */
static bool model_uar_store(struct mlx5sp_uar_trap *trap, u32 index,
			    u32 offset, u64 val, unsigned int size)
{
	struct mlx5sp_model_dev *mdev;

	mdev = container_of(trap, struct model_priv, trap)->mdev;
	return mdev->ops->uar_store(mdev, index, offset, val, size);
}

/* A model that is told of user accesses gets its UAR pages trapped. */
static int model_uar_mmap(struct mlx5sp_dev *dev, struct ib_ucontext *uctx,
			  struct vm_area_struct *vma,
			  struct rdma_user_mmap_entry *entry, u32 index,
			  unsigned long pfn)
{
	struct model_priv *priv = to_priv(dev);

	if (!priv->mdev->ops->uar_touch)
		return -EOPNOTSUPP;
	return mlx5sp_uar_trap_mmap(&priv->trap, uctx, vma, entry, index, pfn);
}

static void model_uar_disassociate(struct mlx5sp_dev *dev,
				   struct ib_ucontext *uctx)
{
	mlx5sp_uar_trap_disassociate(&to_priv(dev)->trap, uctx);
}

/*
 * An irq_work raised again while it runs may run on another CPU at the
 * same time; an interrupt handler never does (the IRQ core runs one at a
 * time and has a raise meanwhile run it once more: the edge flow). EQ
 * handlers rely on it: two at once consumed one EQE twice and stepped
 * the consumer index over the next. So the same here: the CPU that finds
 * the handler running leaves PENDING for the runner, which goes again.
 */
static void model_vector_work(struct irq_work *work)
{
	struct model_vector *v = container_of(work, struct model_vector, work);
	irq_handler_t handler;

	atomic_or(MODEL_VEC_PENDING, &v->flow);
	for (;;) {
		if (atomic_fetch_or(MODEL_VEC_RUNNING, &v->flow) &
		    MODEL_VEC_RUNNING)
			return;		/* the runner sees PENDING */
		while (atomic_fetch_andnot(MODEL_VEC_PENDING, &v->flow) &
		       MODEL_VEC_PENDING) {
			/* Pairs with the release in model_request_irq(). */
			handler = smp_load_acquire(&v->handler);
			if (handler)
				handler(0, v->data);
		}
		atomic_fetch_andnot(MODEL_VEC_RUNNING, &v->flow);
		/* a raise between the last look and now found it running */
		if (!(atomic_read(&v->flow) & MODEL_VEC_PENDING))
			return;
	}
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
	.wr64 = model_wr64,
	.uar_pfn = model_uar_pfn,
	.uar_mmap = model_uar_mmap,
	.uar_disassociate = model_uar_disassociate,
	.uar_wc = false,		/* memory: no BlueFlame */
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

/**
 * mlx5sp_model_uar_trap - have the next user access to a UAR page told
 * @mdev: the model device
 *
 * Takes every user mapping of the device's UAR pages down; the next
 * access faults and calls ops->uar_store (a store it takes) or
 * ops->uar_touch. Returns false if no access can be told (the device is
 * not attached): the model must poll. Process context; may sleep; not
 * under a lock the model's uar_touch takes.
 */
bool mlx5sp_model_uar_trap(struct mlx5sp_model_dev *mdev)
{
	struct model_priv *priv;
	bool armed = false;
	int idx;

	idx = srcu_read_lock(&model_srcu);
	priv = srcu_dereference(mdev->drvdata, &model_srcu);
	if (priv && mdev->ops->uar_touch)
		armed = mlx5sp_uar_trap_arm(&priv->trap);
	srcu_read_unlock(&model_srcu, idx);
	return armed;
}
EXPORT_SYMBOL_GPL(mlx5sp_model_uar_trap);

static void model_unpublish(struct model_priv *priv)
{
	int i;

	RCU_INIT_POINTER(priv->mdev->drvdata, NULL);
	synchronize_rcu();
	synchronize_srcu(&model_srcu);
	for (i = 0; i < priv->nvec; i++)
		irq_work_sync(&priv->vec[i].work);
}

/*
 * The RDMA device is gone (dealloc_driver, or its registration failed):
 * tear the core down, and when the RDMA side removed a live device, hand
 * it back to the model.
 */
static void model_release(struct mlx5sp_dev *dev)
{
	struct model_priv *priv = to_priv(dev);
	struct mlx5sp_model_dev *mdev = priv->mdev;
	enum model_state state;

	mlx5sp_eth_destroy(dev);
	mlx5sp_dev_cleanup(dev);
	mutex_lock(&model_lock);
	state = priv->state;
	model_unpublish(priv);
	mutex_unlock(&model_lock);
	mlx5sp_uar_trap_destroy(&priv->trap);
	kfree(priv);
	if (state == MODEL_LIVE)
		mlx5sp_factory_release(mdev);
}

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
	priv->state = MODEL_ATTACHING;
	for (i = 0; i < priv->nvec; i++)
		init_irq_work(&priv->vec[i].work, model_vector_work);
	mlx5sp_uar_trap_init(&priv->trap, model_uar_touch,
			     mdev->ops->uar_store ? model_uar_store : NULL);
	priv->dev.dma_dev = mdev->dma_dev;
	priv->dev.name = mdev->name;
	priv->dev.bus = &mlx5sp_model_bus_ops;
	priv->dev.bus_priv = priv;
	priv->dev.vendor_id = mdev->vendor_id;
	priv->dev.device_id = mdev->device_id;
	priv->dev.num_vectors = mdev->num_vectors;
	priv->dev.release = model_release;
	/* Vectors must reach us during bring-up already. */
	mutex_lock(&model_lock);
	rcu_assign_pointer(mdev->drvdata, priv);
	mutex_unlock(&model_lock);

	err = mlx5sp_dev_init(&priv->dev);
	if (err)
		goto err_unpublish;
	/*
	 * The port: the model's netdev, or (a device with a cable) its own
	 * NIC. On failure the core is torn down and priv freed already.
	 */
	err = mlx5sp_port_add(&priv->dev, mdev->netdev);
	if (err)
		return err;
	mutex_lock(&model_lock);
	priv->state = MODEL_LIVE;
	mutex_unlock(&model_lock);
	return 0;

err_unpublish:
	mutex_lock(&model_lock);
	model_unpublish(priv);
	mutex_unlock(&model_lock);
	mlx5sp_uar_trap_destroy(&priv->trap);
	kfree(priv);
	return err;
}
EXPORT_SYMBOL_GPL(mlx5sp_model_attach);

/* Attach and detach of one model device are serialised by the model. */
static struct model_priv *model_priv(struct mlx5sp_model_dev *mdev)
{
	return rcu_dereference_protected(mdev->drvdata, true);
}

/*
 * The model removes a device: unregister the RDMA device (user contexts
 * are disassociated); its dealloc_driver tears the core down. A device
 * `rdma link delete` already removed is no longer attached.
 */
void mlx5sp_model_detach(struct mlx5sp_model_dev *mdev)
{
	struct mlx5sp_ib_dev *ib = NULL;
	struct model_priv *priv;

	mutex_lock(&model_lock);
	priv = model_priv(mdev);
	if (priv) {
		priv->state = MODEL_DETACHING;
		ib = priv->dev.ib;
		/* ib_core may be freeing it on `rdma link delete` meanwhile. */
		if (ib)
			get_device(&ib->ib.dev);
	}
	mutex_unlock(&model_lock);
	if (!ib)
		return;
	ib_unregister_device(&ib->ib);
	put_device(&ib->ib.dev);
}
EXPORT_SYMBOL_GPL(mlx5sp_model_detach);

/* For KUnit suites: the core device behind an attached model. */
struct mlx5sp_dev *mlx5sp_model_to_dev(struct mlx5sp_model_dev *mdev)
{
	struct model_priv *priv = model_priv(mdev);

	return priv ? &priv->dev : NULL;
}
EXPORT_SYMBOL_GPL(mlx5sp_model_to_dev);
