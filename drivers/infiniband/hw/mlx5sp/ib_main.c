// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA device: registration with ib_core as an mlx5 device, its
 * removal (ib_core frees it through dealloc_driver, which tears the core
 * down), port events, and `rdma link add NAME type mlx5sp netdev DEV`.
 *
 * Lifetime: once mlx5sp_ib_add() is called the core device belongs to the
 * RDMA device. Whoever unregisters it (the bus on removal, ib_core on
 * `rdma link delete`), dealloc_driver calls mdev->release(), the bus's
 * teardown of the core. If registration fails, release has been called too.
 */
#include <linux/dmapool.h>
#include <linux/etherdevice.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "ib.h"
#include "mlx5sp_ulp.h"

static void mlx5sp_dealloc_driver(struct ib_device *ibdev);

static const struct ib_device_ops mlx5sp_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_MLX5,
	.uverbs_abi_ver = MLX5_IB_UVERBS_ABI_VERSION,

	.add_gid = mlx5sp_add_gid,
	.alloc_mr = mlx5sp_alloc_mr,
	.alloc_mr_integrity = mlx5sp_alloc_mr_integrity,
	.alloc_mw = mlx5sp_alloc_mw,
	.alloc_pd = mlx5sp_alloc_pd,
	.alloc_ucontext = mlx5sp_alloc_ucontext,
	.check_mr_status = mlx5sp_check_mr_status,
	.create_ah = mlx5sp_create_ah,
	.create_cq = mlx5sp_create_cq,
	.create_qp = mlx5sp_create_qp,
	.create_srq = mlx5sp_create_srq,
	.create_user_ah = mlx5sp_create_ah,
	.dealloc_driver = mlx5sp_dealloc_driver,
	.dealloc_mw = mlx5sp_dealloc_mw,
	.dealloc_pd = mlx5sp_dealloc_pd,
	.dealloc_ucontext = mlx5sp_dealloc_ucontext,
	.del_gid = mlx5sp_del_gid,
	.dereg_mr = mlx5sp_dereg_mr,
	.destroy_ah = mlx5sp_destroy_ah,
	.destroy_cq = mlx5sp_destroy_cq,
	.destroy_qp = mlx5sp_destroy_qp,
	.destroy_srq = mlx5sp_destroy_srq,
	.disassociate_ucontext = mlx5sp_disassociate_ucontext,
	.drain_rq = mlx5sp_drain_rq,
	.drain_sq = mlx5sp_drain_sq,
	.get_dev_fw_str = mlx5sp_get_dev_fw_str,
	.get_dma_mr = mlx5sp_get_dma_mr,
	.get_link_layer = mlx5sp_get_link_layer,
	.get_port_immutable = mlx5sp_get_port_immutable,
	.map_mr_sg = mlx5sp_map_mr_sg,
	.map_mr_sg_pi = mlx5sp_map_mr_sg_pi,
	.mmap = mlx5sp_mmap,
	.mmap_free = mlx5sp_mmap_free,
	.modify_qp = mlx5sp_modify_qp,
	.modify_srq = mlx5sp_modify_srq,
	.poll_cq = mlx5sp_poll_cq,
	.post_recv = mlx5sp_post_recv,
	.post_send = mlx5sp_post_send,
	.post_srq_recv = mlx5sp_post_srq_recv,
	.query_ah = mlx5sp_query_ah,
	.query_device = mlx5sp_query_device,
	.query_pkey = mlx5sp_query_pkey,
	.query_port = mlx5sp_query_port,
	.query_qp = mlx5sp_query_qp,
	.query_srq = mlx5sp_query_srq,
	.reg_user_mr = mlx5sp_reg_user_mr,
	.req_notify_cq = mlx5sp_req_notify_cq,
	.resize_cq = mlx5sp_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mlx5sp_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mlx5sp_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, mlx5sp_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, mlx5sp_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mlx5sp_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, mlx5sp_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mlx5sp_ucontext, ibuc),
};

bool mlx5sp_is_ib_device(struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == mlx5sp_dealloc_driver;
}
EXPORT_SYMBOL_GPL(mlx5sp_is_ib_device);

static void dispatch_port_event(struct mlx5sp_ib_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ib,
		.event = type,
		.element.port_num = MLX5SP_IB_PORT,
	};

	ib_dispatch_event(&ev);
}

/* Hard interrupt context: ib_dispatch_event() defers to a work item. */
static void devx_event(void *ctx, const struct mlx5_eqe *eqe)
{
	mlx5sp_devx_event(ctx, eqe);
}

static void port_event(void *ctx, u8 port, u8 sub_type)
{
	struct mlx5sp_ib_dev *dev = ctx;

	/*
	 * A port with the device's own NIC is as its netdev is: the NIC
	 * reads the port's state into its carrier and the netdev notifier
	 * below tells ib_core, in that order (event_lock held here).
	 */
	if (port != MLX5SP_IB_PORT || dev->mdev->eth)
		return;
	switch (sub_type) {
	case MLX5_PORT_CHANGE_SUBTYPE_ACTIVE:
		dispatch_port_event(dev, IB_EVENT_PORT_ACTIVE);
		break;
	case MLX5_PORT_CHANGE_SUBTYPE_DOWN:
		dispatch_port_event(dev, IB_EVENT_PORT_ERR);
		break;
	default:
		break;
	}
}

/* The port's state is the netdev's: tell ib_core when it changes. */
static int netdev_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;

	if (event != NETDEV_UP && event != NETDEV_DOWN && event != NETDEV_CHANGE)
		return NOTIFY_DONE;
	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_MLX5);
	if (!ibdev)
		return NOTIFY_DONE;
	if (mlx5sp_is_ib_device(ibdev))
		dispatch_port_event(to_ibdev(ibdev),
				    netif_running(ndev) && netif_carrier_ok(ndev) ?
				    IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block mlx5sp_netdev_nb = {
	.notifier_call = netdev_event,
};

/*
 * The device's own GUIDs (a card's from its flash), from its NIC vport
 * context, as mlx5_ib takes them for a RoCE port.
 */
static bool query_guids(struct mlx5sp_ib_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(query_nic_vport_context_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(query_nic_vport_context_out);
	u64 node, sys;
	void *out, *ctx;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return false;
	MLX5_SET(query_nic_vport_context_in, in, opcode,
		 MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	err = mlx5sp_cmd_exec(dev->mdev, in, sizeof(in), out, outlen);
	ctx = MLX5_ADDR_OF(query_nic_vport_context_out, out, nic_vport_context);
	node = MLX5_GET64(nic_vport_context, ctx, node_guid);
	sys = MLX5_GET64(nic_vport_context, ctx, system_image_guid);
	kfree(out);
	if (err || !node) {
		mlx5sp_warn(dev->mdev, "no node GUID from the device (%d)\n", err);
		return false;
	}
	dev->ib.node_guid = cpu_to_be64(node);
	dev->sys_image_guid = cpu_to_be64(sys ?: node);
	return true;
}

static void set_node_guid(struct mlx5sp_ib_dev *dev, struct net_device *netdev)
{
	u8 guid[8];

	if (query_guids(dev))
		return;
	if (netdev) {
		addrconf_addr_eui48(guid, netdev->dev_addr);
	} else {
		/* No MAC: a Mellanox OUI GUID from the device name. */
		u32 h = jhash(dev->mdev->name, strlen(dev->mdev->name), 0);

		guid[0] = 0x00;
		guid[1] = 0x02;
		guid[2] = 0xc9;
		guid[3] = 0x03;
		put_unaligned_be32(h, &guid[4]);
	}
	memcpy(&dev->ib.node_guid, guid, sizeof(guid));
	dev->sys_image_guid = dev->ib.node_guid;
}

/**
 * mlx5sp_ib_add - register the RDMA device of a core device that is up
 * @mdev: the core device; mdev->release must be set
 * @netdev: RoCE port 1's netdev (held by the caller while the device
 *	    lives), or NULL: a port that is down
 *
 * On failure mdev->release() has been called.
 */
int mlx5sp_ib_add(struct mlx5sp_dev *mdev, struct net_device *netdev)
{
	struct mlx5sp_event_listener l = {
		.port_event = port_event,
		.devx_event = devx_event,
		.fatal = mlx5sp_fatal_event,
	};
	struct mlx5sp_ib_dev *dev;
	int err;

	dev = ib_alloc_device(mlx5sp_ib_dev, ib);
	if (!dev) {
		mdev->release(mdev);
		return -ENOMEM;
	}
	dev->mdev = mdev;
	dev->netdev = netdev;
	atomic_set(&dev->mkey_var, 0);
	xa_init_flags(&dev->sig_mrs, XA_FLAGS_LOCK_IRQ);
	spin_lock_init(&dev->devx_ev_lock);
	INIT_LIST_HEAD(&dev->devx_subs);
	INIT_WORK(&dev->fatal_work, mlx5sp_fatal_work);
	dev->ib.node_type = RDMA_NODE_IB_CA;
	dev->ib.phys_port_cnt = 1;
	dev->ib.num_comp_vectors = mdev->num_comp_eqs;
	dev->ib.dev.parent = mdev->dma_dev;
	dev->ib.driver_def = mlx5sp_uapi_defs;
	strscpy(dev->ib.node_desc, "mlx5sp", sizeof(dev->ib.node_desc));
	set_node_guid(dev, netdev);
	ib_set_device_ops(&dev->ib, &mlx5sp_dev_ops);
	ib_set_device_ops(&dev->ib, &mlx5sp_counter_ops);
	ib_set_device_ops(&dev->ib, &mlx5sp_restrack_ops);

	/* From here dealloc_driver (via ib_dealloc_device) undoes it all. */
	err = mlx5sp_counters_init(dev);
	if (err)
		goto err_dealloc;
	if (netdev) {
		err = ib_device_set_netdev(&dev->ib, netdev, MLX5SP_IB_PORT);
		if (err)
			goto err_dealloc;
	}
	l.ctx = dev;
	mlx5sp_set_event_listener(mdev, &l);
	/* dead before it listened: it missed the event */
	if (mlx5sp_dev_dead(mdev))
		schedule_work(&dev->fatal_work);
	mdev->ib = dev;

	err = ib_register_device(&dev->ib, mdev->ib_name ?: mdev->name,
				 mdev->dma_dev);
	if (err) {
		mlx5sp_err(mdev, "registering the RDMA device failed: %d\n", err);
		goto err_dealloc;
	}
	dev->registered = true;
	mlx5sp_info(mdev, "RDMA device %s registered%s%s\n",
		    dev_name(&dev->ib.dev), netdev ? " on " : "",
		    netdev ? netdev_name(netdev) : "");
	return 0;

err_dealloc:
	ib_dealloc_device(&dev->ib);
	return err;
}

/* The bus removes the device (model removal, PCI unbind). */
void mlx5sp_ib_remove(struct mlx5sp_dev *mdev)
{
	struct mlx5sp_ib_dev *dev = mdev->ib;

	ib_unregister_device(&dev->ib);
}

/* ib_core is done with the device: tear the core down (see the top). */
static void mlx5sp_dealloc_driver(struct ib_device *ibdev)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibdev);
	struct mlx5sp_dev *mdev = dev->mdev;

	mlx5sp_set_event_listener(mdev, NULL);
	/* nothing schedules it now */
	cancel_work_sync(&dev->fatal_work);
	mdev->ib = NULL;
	WARN_ON(!xa_empty(&dev->sig_mrs));
	/* ib_core destroyed every event file, and they their subscriptions */
	WARN_ON(!list_empty(&dev->devx_subs));
	xa_destroy(&dev->sig_mrs);
	mlx5sp_counters_cleanup(dev);
	mdev->release(mdev);
}

/* rdma link add: the model factory creates and attaches a device. */
static DEFINE_MUTEX(factory_lock);	/* protects factory; held across its calls */
static const struct mlx5sp_model_factory *factory;

int mlx5sp_model_register_factory(const struct mlx5sp_model_factory *f)
{
	int err = 0;

	if (!f || !f->newlink || !f->release)
		return -EINVAL;
	mutex_lock(&factory_lock);
	if (factory)
		err = -EBUSY;
	else
		factory = f;
	mutex_unlock(&factory_lock);
	return err;
}
EXPORT_SYMBOL_GPL(mlx5sp_model_register_factory);

/* After this returns no newlink or release of @f runs or will. */
void mlx5sp_model_unregister_factory(const struct mlx5sp_model_factory *f)
{
	mutex_lock(&factory_lock);
	if (factory == f)
		factory = NULL;
	mutex_unlock(&factory_lock);
}
EXPORT_SYMBOL_GPL(mlx5sp_model_unregister_factory);

/* The RDMA side removed a model device: hand it back to the model. */
void mlx5sp_factory_release(struct mlx5sp_model_dev *mdev)
{
	mutex_lock(&factory_lock);
	if (factory)
		factory->release(mdev);
	mutex_unlock(&factory_lock);
}

static int mlx5sp_newlink(const char *ibdev_name, struct net_device *ndev)
{
	int err;

	if (!ndev)
		return -EINVAL;
	mutex_lock(&factory_lock);
	err = factory ? factory->newlink(ibdev_name, ndev) : -ENODEV;
	mutex_unlock(&factory_lock);
	return err;
}

static struct rdma_link_ops mlx5sp_link_ops = {
	.type = "mlx5sp",
	.newlink = mlx5sp_newlink,
};

int mlx5sp_ib_module_init(void)
{
	int err;

	err = mlx5sp_qp_module_init();
	if (err)
		return err;
	err = register_netdevice_notifier(&mlx5sp_netdev_nb);
	if (err)
		goto err_qp_exit;
	rdma_link_register(&mlx5sp_link_ops);
	return 0;

err_qp_exit:
	mlx5sp_qp_module_exit();
	return err;
}

void mlx5sp_ib_module_exit(void)
{
	rdma_link_unregister(&mlx5sp_link_ops);
	unregister_netdevice_notifier(&mlx5sp_netdev_nb);
	mlx5sp_qp_module_exit();
}

MODULE_ALIAS_RDMA_LINK("mlx5sp");
