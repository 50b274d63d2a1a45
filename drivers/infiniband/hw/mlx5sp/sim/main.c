// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The software ConnectX: module, device life cycle and platform device.
 */

#include <linux/if_arp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "bar.h"
#include "dma.h"
#include "engine.h"
#include "host.h"
#include "limits.h"
#include "mlx5sp_model.h"
#include "mlx5sp_sim.h"
#include "pages.h"
#include "port.h"
#include "roce.h"
#include "sim.h"
#include "steer.h"
#include "uctx.h"
#include "wire.h"

static LIST_HEAD(sim_list);
static DEFINE_MUTEX(sim_list_lock);	/* protects sim_list and names */
static DEFINE_IDA(sim_pdev_ida);	/* platform device ids */

/* factory release work, flushed before the module goes */
struct workqueue_struct *sim_release_wq;

static const struct mlx5sp_model_ops sim_model_ops = {
	.read32 = sim_read32,
	.write32 = sim_write32,
	.write64 = sim_write64,
	.uar_page = sim_uar_page,
	.uar_touch = sim_uar_touch,
	.uar_store = sim_uar_store,
};

static void sim_release_work(struct work_struct *work);

static void sim_attach_raise_irq(struct mlx5sp_sim *sim, u16 vector)
{
	mlx5sp_model_raise_irq(&sim->mdev, vector);
}

static bool sim_attach_uar_trap(struct mlx5sp_sim *sim)
{
	return mlx5sp_model_uar_trap(&sim->mdev);
}

const struct sim_host_ops sim_attach_host = {
	.dma_va = sim_attach_dma_va,
	.dma_flat = true,
	.raise_irq = sim_attach_raise_irq,
	.uar_trap = sim_attach_uar_trap,
};

void mlx5sp_sim_default_params(struct mlx5sp_sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->boot_pages = 8;
	p->init_pages = 32;
	p->log_cmdq_size = 5;
	p->num_vectors = 8;
	p->boot_delay_ms = 10;
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_default_params);

static bool sim_name_valid(const char *name)
{
	size_t len = strnlen(name, MLX5SP_SIM_NAME_MAX + 1);
	size_t i;

	if (!len || len > MLX5SP_SIM_NAME_MAX)
		return false;
	/* the control files live in the same debugfs directory */
	if (!strcmp(name, "add") || !strcmp(name, "del"))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

static int sim_params_valid(const struct mlx5sp_sim_params *p)
{
	if (p->log_cmdq_size > ilog2(SIM_MAX_SLOTS))
		return -EINVAL;
	if (!p->num_vectors || p->num_vectors > 256)
		return -EINVAL;
	if (p->boot_pages > SZ_64K || p->init_pages > SZ_64K)
		return -EINVAL;
	if (p->boot_delay_ms > 60000)
		return -EINVAL;
	if (p->missing_caps & ~MLX5SP_SIM_MISSING_CAPS_ALL)
		return -EINVAL;
	return sim_lim_params_valid(p);
}

static struct mlx5sp_sim *sim_find_locked(const char *name)
{
	struct mlx5sp_sim *sim;

	lockdep_assert_held(&sim_list_lock);
	list_for_each_entry(sim, &sim_list, node)
		if (!strcmp(sim->name, name))
			return sim;
	return NULL;
}

static int sim_platform_add(struct mlx5sp_sim *sim)
{
	struct platform_device *pdev;
	int err;

	sim->pdev_id = ida_alloc(&sim_pdev_ida, GFP_KERNEL);
	if (sim->pdev_id < 0)
		return sim->pdev_id;

	pdev = platform_device_register_simple(SIM_DRV_NAME, sim->pdev_id,
					       NULL, 0);
	if (IS_ERR(pdev)) {
		err = PTR_ERR(pdev);
		goto err_free_id;
	}
	if (!pdev->dev.dma_mask)
		pdev->dev.dma_mask = &pdev->dev.coherent_dma_mask;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_unregister;

	sim->pdev = pdev;
	return 0;

err_unregister:
	platform_device_unregister(pdev);
err_free_id:
	ida_free(&sim_pdev_ida, sim->pdev_id);
	return err;
}

/*
 * A device's platform device, its DMA device, is the parent of what ULPs
 * put on the DMA device: iSER's SCSI host (iscsi_host_add() on the IB
 * device's parent), as on mlx5_ib, where that is the PCI function. The
 * function outlives its RDMA device (driver unbound) while such children
 * are there; deleting the platform device under them would take their
 * sysfs entries along (the iSCSI session iscsiadm logs out by). So a
 * device with children is parked here, and a check each second deletes it
 * once they are gone; module exit deletes what is left.
 */
struct sim_parked {
	struct list_head node;
	struct platform_device *pdev;
	int id;
};

static LIST_HEAD(sim_parked_list);
static DEFINE_MUTEX(sim_parked_lock);
static void sim_parked_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(sim_parked_work, sim_parked_work_fn);

static int sim_any_child(struct device *dev, void *data)
{
	return 1;
}

static bool sim_pdev_has_children(struct platform_device *pdev)
{
	return device_for_each_child(&pdev->dev, NULL, sim_any_child);
}

/* Delete parked devices without children (@all: every one). */
static void sim_parked_reap(bool all)
{
	struct sim_parked *p, *n;
	bool left = false;

	mutex_lock(&sim_parked_lock);
	list_for_each_entry_safe(p, n, &sim_parked_list, node) {
		if (!all && sim_pdev_has_children(p->pdev)) {
			left = true;
			continue;
		}
		list_del(&p->node);
		platform_device_unregister(p->pdev);
		ida_free(&sim_pdev_ida, p->id);
		kfree(p);
	}
	if (left)
		schedule_delayed_work(&sim_parked_work, HZ);
	mutex_unlock(&sim_parked_lock);
}

static void sim_parked_work_fn(struct work_struct *work)
{
	sim_parked_reap(false);
}

static void sim_platform_del(struct mlx5sp_sim *sim)
{
	struct sim_parked *p;

	if (sim_pdev_has_children(sim->pdev)) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (p) {
			p->pdev = sim->pdev;
			p->id = sim->pdev_id;
			mutex_lock(&sim_parked_lock);
			list_add_tail(&p->node, &sim_parked_list);
			schedule_delayed_work(&sim_parked_work, HZ);
			mutex_unlock(&sim_parked_lock);
			return;
		}
	}
	platform_device_unregister(sim->pdev);
	ida_free(&sim_pdev_ida, sim->pdev_id);
}

static void sim_init_slots(struct mlx5sp_sim *sim)
{
	int i;

	for (i = 0; i < SIM_MAX_SLOTS; i++) {
		sim->slots[i].sim = sim;
		sim->slots[i].idx = i;
		INIT_DELAYED_WORK(&sim->slots[i].dwork, sim_slot_work);
	}
}

static struct mlx5sp_sim *sim_alloc(const char *name,
				    const struct mlx5sp_sim_params *p,
				    const struct sim_host_ops *host, void *priv,
				    struct net_device *cable)
{
	struct mlx5sp_sim *sim;
	int err = -ENOMEM;

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return ERR_PTR(-ENOMEM);

	strscpy(sim->name, name, sizeof(sim->name));
	sim->params = *p;
	sim->host = host;
	sim->host_priv = priv;
	sim->knobs.uar_trap = true;
	sim->knobs.run_inline = true;
	sim->knobs.uar_store = true;
	sim->log_cmdq_size = p->log_cmdq_size;
	INIT_LIST_HEAD(&sim->node);
	spin_lock_init(&sim->bar.reg_lock);
	mutex_init(&sim->fw_lock);
	spin_lock_init(&sim->eq_lock);
	spin_lock_init(&sim->inject.lock);
	spin_lock_init(&sim->stats_lock);
	xa_init_flags(&sim->pds, XA_FLAGS_ALLOC1);
	xa_init(&sim->pages.held);
	xa_init(&sim->uar_pages);
	sim_pollset_init(&sim->poll_qps);
	sim_pollset_init(&sim->poll_cqs);
	sim_pollset_init(&sim->poll_uars);
	xa_init_flags(&sim->tds, XA_FLAGS_ALLOC1);
	xa_init_flags(&sim->mkeys, XA_FLAGS_ALLOC1);
	xa_init_flags(&sim->cqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sim->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&sim->psvs, XA_FLAGS_ALLOC1);
	sim_uctx_init(sim);
	xa_init_flags(&sim->srqs, XA_FLAGS_ALLOC1);
	spin_lock_init(&sim->roce.gid_lock);
	/* before the caps: a cabled device has a NIC */
	sim_port_init(sim, cable);
	sim_steer_init(sim);
	spin_lock_init(&sim->tx_lock);
	INIT_LIST_HEAD(&sim->fabric_node);
	INIT_WORK(&sim->release_work, sim_release_work);
	INIT_WORK(&sim->cmd_work, sim_cmd_work);
	INIT_WORK(&sim->health.nic_off_work, sim_nic_off_work);
	spin_lock_init(&sim->health.counter_lock);
	sim_init_slots(sim);
	sim->inject.cmd.fail_nth = sim_debugfs_take_fail_nth();
	/* a ConnectX's RoCE congestion control is on by default */
	sim->knobs.ecn_np = true;
	sim->knobs.ecn_rp = true;

	sim->bar.iseg = kzalloc(sizeof(*sim->bar.iseg), GFP_KERNEL);
	if (!sim->bar.iseg)
		goto err_free_sim;

	sim->nr_uars = SIM_BAR_SIZE / SZ_4K - SIM_UAR_FIRST;
	sim->uar_map = bitmap_zalloc(sim->nr_uars, GFP_KERNEL);
	if (!sim->uar_map)
		goto err_free_iseg;

	err = sim_caps_init(sim);
	if (err)
		goto err_free_uar_map;

	sim->wq = alloc_workqueue("mlx5sp_sim_%s", WQ_UNBOUND, 0, sim->name);
	if (!sim->wq) {
		err = -ENOMEM;
		goto err_free_caps;
	}
	return sim;

err_free_caps:
	kvfree(sim->caps);
err_free_uar_map:
	bitmap_free(sim->uar_map);
err_free_iseg:
	kfree(sim->bar.iseg);
err_free_sim:
	sim_port_free(sim);
	kfree(sim);
	return ERR_PTR(err);
}

static void sim_free(struct mlx5sp_sim *sim)
{
	destroy_workqueue(sim->wq);
	kvfree(sim->caps);
	bitmap_free(sim->uar_map);
	kfree(sim->bar.iseg);
	xa_destroy(&sim->pds);
	xa_destroy(&sim->pages.held);
	xa_destroy(&sim->uar_pages);
	xa_destroy(&sim->tds);
	xa_destroy(&sim->mkeys);
	xa_destroy(&sim->cqs);
	xa_destroy(&sim->qps);
	xa_destroy(&sim->srqs);
	sim_pollset_destroy(&sim->poll_qps);
	sim_pollset_destroy(&sim->poll_cqs);
	sim_pollset_destroy(&sim->poll_uars);
	xa_destroy(&sim->steer.tises);
	xa_destroy(&sim->steer.tirs);
	xa_destroy(&sim->steer.fts);
	sim_port_free(sim);
	mutex_destroy(&sim->fw_lock);
	kfree(sim);
}

static struct mlx5sp_sim *__sim_create(const char *name,
				       const struct mlx5sp_sim_params *p,
				       bool from_debugfs,
				       struct net_device *netdev,
				       struct net_device *cable,
				       const struct sim_host_ops *host,
				       void *priv)
{
	struct mlx5sp_sim_params defaults;
	struct mlx5sp_sim *sim;
	int err;

	if (!p) {
		mlx5sp_sim_default_params(&defaults);
		p = &defaults;
	}
	if (!name || !sim_name_valid(name))
		return ERR_PTR(-EINVAL);
	err = sim_params_valid(p);
	if (err)
		return ERR_PTR(err);
	/*
	 * A port with a cable is Ethernet and has no RoCE netdev: the driver
	 * makes its NIC's
	 */
	if (cable && (netdev || p->port_ib))
		return ERR_PTR(-EINVAL);

	mutex_lock(&sim_list_lock);
	if (sim_find_locked(name)) {
		err = -EEXIST;
		goto err_unlock;
	}

	sim = sim_alloc(name, p, host, priv, cable);
	if (IS_ERR(sim)) {
		err = PTR_ERR(sim);
		goto err_unlock;
	}
	sim->from_debugfs = from_debugfs;

	err = sim_platform_add(sim);
	if (err)
		goto err_free_sim;

	sim->mdev.dma_dev = &sim->pdev->dev;
	sim->mdev.name = sim->name;
	sim->mdev.vendor_id = SIM_VENDOR_ID;
	sim->mdev.device_id = SIM_DEVICE_ID;
	sim->mdev.bar_size = SIM_BAR_SIZE;
	sim->mdev.num_vectors = p->num_vectors;
	sim->mdev.ops = &sim_model_ops;
	if (netdev) {
		netdev_hold(netdev, &sim->roce.netdev_tracker, GFP_KERNEL);
		sim->mdev.netdev = netdev;
	}
	/* before the watch: VLAN netdevs there already get the wire's hook */
	err = sim_net_init(sim);
	if (err)
		goto err_put_netdev;
	err = sim_netdev_watch(sim);
	if (err)
		goto err_net_fini;
	err = sim_engine_start(sim);
	if (err)
		goto err_unwatch;
	err = sim_net_start(sim);
	if (err)
		goto err_stop_engine;

	sim_bar_init(sim);
	sim_debugfs_add(sim);
	sim_fabric_add(sim);
	list_add_tail(&sim->node, &sim_list);
	mutex_unlock(&sim_list_lock);
	return sim;

err_stop_engine:
	sim_engine_stop(sim);
err_unwatch:
	/*
	 * Unregistering the notifier replays NETDEV_UNREGISTER, which
	 * queues the release of a live device: ignored only when destroying
	 * (a release on a device freed below: use-after-free, fail-nth).
	 */
	WRITE_ONCE(sim->destroying, true);
	sim_netdev_unwatch(sim);
err_net_fini:
	/* the watch may have hooked VLAN netdevs: off them first */
	sim_net_stop(sim);
	sim_net_fini(sim);
err_put_netdev:
	if (netdev)
		netdev_put(netdev, &sim->roce.netdev_tracker);
	sim_platform_del(sim);
err_free_sim:
	sim_free(sim);
err_unlock:
	mutex_unlock(&sim_list_lock);
	return ERR_PTR(err);
}

/*
 * @netdev: RoCE port 1's netdev, as "rdma link add" gives; @cable: the
 * cable of a physical Ethernet port (port.c), whose NIC the driver makes.
 * At most one of the two.
 */
struct mlx5sp_sim *sim_create(const char *name,
			      const struct mlx5sp_sim_params *p,
			      bool from_debugfs, struct net_device *netdev,
			      struct net_device *cable)
{
	return __sim_create(name, p, from_debugfs, netdev, cable,
			    &sim_attach_host, NULL);
}

/*
 * A device whose DMA, vectors and traps are @host's: never attached to
 * the driver of this kernel, it has no RoCE port netdev; a port with
 * @cable (or NULL), whose NIC the driver in the guest makes.
 */
struct mlx5sp_sim *sim_create_host(const char *name,
				   const struct mlx5sp_sim_params *p,
				   const struct sim_host_ops *host, void *priv,
				   struct net_device *cable)
{
	if (!host || !host->dma_va || !host->raise_irq || !host->uar_trap)
		return ERR_PTR(-EINVAL);
	return __sim_create(name, p, false, NULL, cable, host, priv);
}
EXPORT_SYMBOL_NS_GPL(sim_create_host, MLX5SP_SIM);

/*
 * Can @cable be a port's cable: an Ethernet netdev (a veth end, a tap, a
 * NIC), not loopback, not already a port's or a bridge's (its receive
 * hook is checked when the device starts). 0 or -errno, said once.
 */
int sim_cable_check(struct net_device *cable)
{
	if (cable->type != ARPHRD_ETHER || (cable->flags & IFF_LOOPBACK) ||
	    cable->addr_len != ETH_ALEN) {
		pr_err("%s: cable %s is not an Ethernet netdev\n", SIM_DRV_NAME,
		       netdev_name(cable));
		return -EINVAL;
	}
	if (rcu_access_pointer(cable->rx_handler)) {
		pr_err("%s: cable %s has a receive handler (bridge, bond or another port)\n",
		       SIM_DRV_NAME, netdev_name(cable));
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_NS_GPL(sim_cable_check, MLX5SP_SIM);

struct mlx5sp_sim *mlx5sp_sim_create(const char *name,
				     const struct mlx5sp_sim_params *p)
{
	return sim_create(name, p, false, NULL, NULL);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_create);

struct mlx5sp_sim *mlx5sp_sim_create_cabled(const char *name,
					    const struct mlx5sp_sim_params *p,
					    struct net_device *cable)
{
	int err;

	if (!cable)
		return ERR_PTR(-EINVAL);
	err = sim_cable_check(cable);
	if (err)
		return ERR_PTR(err);
	return sim_create(name, p, false, NULL, cable);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_create_cabled);

struct mlx5sp_sim *mlx5sp_sim_create_on(const char *name,
					const struct mlx5sp_sim_params *p,
					struct net_device *netdev)
{
	struct mlx5sp_sim *sim;
	int err;

	sim = sim_create(name, p, false, netdev, NULL);
	if (IS_ERR(sim))
		return sim;
	err = mlx5sp_sim_attach(sim);
	if (err) {
		mlx5sp_sim_destroy(sim);
		return ERR_PTR(err);
	}
	return sim;
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_create_on);

int mlx5sp_sim_attach(struct mlx5sp_sim *sim)
{
	int err;

	if (sim->host != &sim_attach_host)
		return -EOPNOTSUPP;
	if (sim->attached)
		return -EBUSY;
	err = mlx5sp_model_attach(&sim->mdev);
	if (!err)
		sim->attached = true;
	return err;
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_attach);

struct mlx5sp_model_dev *mlx5sp_sim_model(struct mlx5sp_sim *sim)
{
	return &sim->mdev;
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_model);

/* Stop every source of work; a dropped command holds no work item. */
static void sim_stop(struct mlx5sp_sim *sim)
{
	int i;

	atomic_set(&sim->stopping, 1);
	cancel_work_sync(&sim->cmd_work);
	for (i = 0; i < SIM_MAX_SLOTS; i++)
		cancel_delayed_work_sync(&sim->slots[i].dwork);
	flush_workqueue(sim->wq);
}

/* Take @sim out of the list; false if another destroyer has it. */
static bool sim_claim(struct mlx5sp_sim *sim)
{
	bool mine;

	mutex_lock(&sim_list_lock);
	mine = !sim->destroying;
	WRITE_ONCE(sim->destroying, true);
	list_del_init(&sim->node);
	mutex_unlock(&sim_list_lock);
	return mine;
}

/* Tear down a claimed device. */
static void sim_destroy_claimed(struct mlx5sp_sim *sim)
{
	/* no fault injection or stats readers from here on */
	sim_debugfs_del(sim);

	if (sim->attached) {
		mlx5sp_model_detach(&sim->mdev);
		sim->attached = false;
	}
	sim_netdev_unwatch(sim);
	/* no more frames in; the engine may still send until it stops */
	sim_net_stop(sim);
	/* a release queued meanwhile finds the device claimed */
	if (current_work() != &sim->release_work)
		cancel_work_sync(&sim->release_work);
	/* no engine reaches this device, then ours stops */
	sim_fabric_del(sim);
	sim_engine_stop(sim);
	/*
	 * Nothing makes frames any more: the NAPI that sends them and runs
	 * those still queued goes, before the QPs they reach
	 */
	sim_net_fini(sim);
	sim_stop(sim);

	mutex_lock(&sim->fw_lock);
	if (!sim_is_fatal(sim))
		sim_pages_forget(sim, "device destroyed");
	else
		xa_destroy(&sim->pages.held);
	sim_release_objects(sim);
	mutex_unlock(&sim->fw_lock);

	if (sim->mdev.netdev)
		netdev_put(sim->mdev.netdev, &sim->roce.netdev_tracker);
	sim_platform_del(sim);
	sim_free(sim);
}

void mlx5sp_sim_destroy(struct mlx5sp_sim *sim)
{
	if (IS_ERR_OR_NULL(sim) || !sim_claim(sim))
		return;
	sim_destroy_claimed(sim);
}
EXPORT_SYMBOL_GPL(mlx5sp_sim_destroy);

/*
 * The RDMA side is done with the device (factory release) or its netdev
 * is going away: destroy it outside the caller's context.
 */
static void sim_release_work(struct work_struct *work)
{
	struct mlx5sp_sim *sim = container_of(work, struct mlx5sp_sim,
					      release_work);

	mlx5sp_sim_destroy(sim);
}

/* rdma link add NAME type mlx5sp netdev DEV */
static int sim_factory_newlink(const char *ibdev_name,
			       struct net_device *netdev)
{
	struct mlx5sp_sim *sim;

	sim = mlx5sp_sim_create_on(ibdev_name, NULL, netdev);
	return PTR_ERR_OR_ZERO(sim);
}

/* The driver has torn the device down: it is detached already. */
static void sim_factory_release(struct mlx5sp_model_dev *mdev)
{
	struct mlx5sp_sim *sim = to_sim(mdev);

	sim->attached = false;
	queue_work(sim_release_wq, &sim->release_work);
}

static const struct mlx5sp_model_factory sim_factory = {
	.newlink = sim_factory_newlink,
	.release = sim_factory_release,
};

/* debugfs "del": only devices that "add" created */
int sim_destroy_by_name(const char *name)
{
	struct mlx5sp_sim *sim;

	mutex_lock(&sim_list_lock);
	sim = sim_find_locked(name);
	if (sim && !sim->from_debugfs) {
		sim = ERR_PTR(-EPERM);
	} else if (sim) {
		/* claimed under the lock: nobody frees it under us */
		WRITE_ONCE(sim->destroying, true);
		list_del_init(&sim->node);
	}
	mutex_unlock(&sim_list_lock);

	if (!sim)
		return -ENODEV;
	if (IS_ERR(sim))
		return PTR_ERR(sim);
	sim_destroy_claimed(sim);
	return 0;
}

static void sim_destroy_all(void)
{
	struct mlx5sp_sim *sim;

	for (;;) {
		mutex_lock(&sim_list_lock);
		sim = list_first_entry_or_null(&sim_list, struct mlx5sp_sim,
					       node);
		if (sim) {
			WRITE_ONCE(sim->destroying, true);
			list_del_init(&sim->node);
		}
		mutex_unlock(&sim_list_lock);
		if (!sim)
			break;
		sim_destroy_claimed(sim);
	}
}

static int __init mlx5sp_sim_init(void)
{
	int err;

	sim_release_wq = alloc_workqueue("mlx5sp_sim_release", WQ_UNBOUND, 0);
	if (!sim_release_wq)
		return -ENOMEM;
	err = sim_debugfs_init();
	if (err)
		goto err_destroy_wq;
	err = mlx5sp_model_register_factory(&sim_factory);
	if (err)
		goto err_debugfs;
	return 0;

err_debugfs:
	sim_debugfs_ctl_exit();
	sim_debugfs_exit();
err_destroy_wq:
	destroy_workqueue(sim_release_wq);
	return err;
}

static void __exit mlx5sp_sim_exit(void)
{
	/* no newlink or release runs after this */
	mlx5sp_model_unregister_factory(&sim_factory);
	/* control files first: waits for an "add" in flight */
	sim_debugfs_ctl_exit();
	flush_workqueue(sim_release_wq);
	sim_destroy_all();
	/* a netdev that went away meanwhile */
	destroy_workqueue(sim_release_wq);
	/* keys DESTROY_MKEY left to RCU */
	rcu_barrier();
	sim_debugfs_exit();
	cancel_delayed_work_sync(&sim_parked_work);
	sim_parked_reap(true);
	ida_destroy(&sim_pdev_ida);
}

module_init(mlx5sp_sim_init);
module_exit(mlx5sp_sim_exit);

MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("Software ConnectX device model for mlx5sp");
