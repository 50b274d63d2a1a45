// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device bring-up and teardown in PRM order, capabilities, and the module.
 */
#include <linux/dmapool.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "ib.h"

MODULE_AUTHOR("mlx5sp developers");
MODULE_DESCRIPTION("RDMA driver for ConnectX adapters with signature pipelining");
MODULE_LICENSE("Dual BSD/GPL");

/* Capabilities the driver cannot do without, with why, for the refusal message. */
struct required_cap {
	const char *name;
	const char *why;
	unsigned int dw_off;
	unsigned int bit_off;
	u32 mask;
};

#define REQUIRED_CAP(fld, reason) {					\
	.name = #fld, .why = reason,					\
	.dw_off = __mlx5_dw_off(cmd_hca_cap, fld),			\
	.bit_off = __mlx5_dw_bit_off(cmd_hca_cap, fld),			\
	.mask = __mlx5_mask(cmd_hca_cap, fld) }

static const struct required_cap required_caps[] = {
	REQUIRED_CAP(roce, "RoCE ports"),
	REQUIRED_CAP(sho, "signature handover (signature MKEYs)"),
	REQUIRED_CAP(sigerr_cqe, "signature error CQEs"),
	REQUIRED_CAP(drain_sigerr, "drain on signature error (signature pipelining)"),
	REQUIRED_CAP(umr_extended_translation_offset, "UMR"),
};

static u32 cap_get(const void *caps, const struct required_cap *c)
{
	return (be32_to_cpu(((const __be32 *)caps)[c->dw_off]) >> c->bit_off) & c->mask;
}

static int check_required_caps(struct mlx5sp_dev *dev)
{
	const void *caps = dev->caps_max[MLX5SP_CAPS_GENERAL];
	int i, missing = 0;

	for (i = 0; i < ARRAY_SIZE(required_caps); i++) {
		if (cap_get(caps, &required_caps[i]))
			continue;
		mlx5sp_err(dev, "device lacks capability %s, needed for %s\n",
			   required_caps[i].name, required_caps[i].why);
		missing++;
	}
	if (missing)
		return -EOPNOTSUPP;
	if (dev->num_vectors < 2) {
		mlx5sp_err(dev, "device has %u interrupt vectors, needs 2\n",
			   dev->num_vectors);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int query_cap(struct mlx5sp_dev *dev, enum mlx5sp_cap_idx idx,
		     u16 cap_type, u16 mode, void *dst)
{
	int outlen = MLX5_ST_SZ_BYTES(query_hca_cap_out);
	u32 in[MLX5_ST_SZ_DW(query_hca_cap_in)] = {};
	void *out;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	MLX5_SET(query_hca_cap_in, in, op_mod, (cap_type << 1) | mode);
	err = mlx5sp_cmd_exec(dev, in, sizeof(in), out, outlen);
	if (!err)
		memcpy(dst, MLX5_ADDR_OF(query_hca_cap_out, out, capability),
		       MLX5_UN_SZ_BYTES(hca_cap_union));
	kfree(out);
	return err;
}

static int query_caps(struct mlx5sp_dev *dev)
{
	static const u16 cap_types[MLX5SP_CAPS_NUM] = {
		[MLX5SP_CAPS_GENERAL] = MLX5_CAP_GENERAL,
		[MLX5SP_CAPS_ROCE] = MLX5_CAP_ROCE,
		[MLX5SP_CAPS_ATOMIC] = MLX5_CAP_ATOMIC,
		[MLX5SP_CAPS_ETH] = MLX5_CAP_ETHERNET_OFFLOADS,
		[MLX5SP_CAPS_FLOW_TABLE] = MLX5_CAP_FLOW_TABLE,
	};
	const void *gen = dev->caps_max[MLX5SP_CAPS_GENERAL];
	int i, err;

	for (i = 0; i < MLX5SP_CAPS_NUM; i++) {
		/*
		 * General caps come first and say whether there are atomic,
		 * Ethernet offload and NIC flow table ones.
		 */
		if ((i == MLX5SP_CAPS_ATOMIC && !MLX5_GET(cmd_hca_cap, gen, atomic)) ||
		    (i == MLX5SP_CAPS_ETH &&
		     !MLX5_GET(cmd_hca_cap, gen, eth_net_offloads)) ||
		    (i == MLX5SP_CAPS_FLOW_TABLE &&
		     !MLX5_GET(cmd_hca_cap, gen, nic_flow_table))) {
			memset(dev->caps_max[i], 0, MLX5_UN_SZ_BYTES(hca_cap_union));
			memset(dev->caps_cur[i], 0, MLX5_UN_SZ_BYTES(hca_cap_union));
			continue;
		}
		err = query_cap(dev, i, cap_types[i], HCA_CAP_OPMOD_GET_MAX,
				dev->caps_max[i]);
		if (err)
			return err;
		err = query_cap(dev, i, cap_types[i], HCA_CAP_OPMOD_GET_CUR,
				dev->caps_cur[i]);
		if (err)
			return err;
	}
	/* Firmware signs its output mailboxes while checksums are on. */
	dev->cmd.check_sig = MLX5_GET(cmd_hca_cap, dev->caps_cur[MLX5SP_CAPS_GENERAL],
				      cmdif_checksum);
	/*
	 * An InfiniBand port needs an SMA, LIDs and a subnet manager, which
	 * mlx5sp does not do: refused, never reported as RoCE.
	 */
	if (MLX5_GET(cmd_hca_cap, dev->caps_cur[MLX5SP_CAPS_GENERAL], port_type) !=
	    MLX5_CAP_PORT_TYPE_ETH) {
		mlx5sp_err(dev, "the port is in InfiniBand mode: mlx5sp drives Ethernet (RoCE) ports only; use mlx5_ib, or set the port to Ethernet (mlxconfig LINK_TYPE_P1=2)\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int set_caps(struct mlx5sp_dev *dev)
{
	const void *max = dev->caps_max[MLX5SP_CAPS_GENERAL];
	int inlen = MLX5_ST_SZ_BYTES(set_hca_cap_in);
	void *in, *cap;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cap = MLX5_ADDR_OF(set_hca_cap_in, in, capability);
	memcpy(cap, dev->caps_cur[MLX5SP_CAPS_GENERAL], MLX5_UN_SZ_BYTES(hca_cap_union));
	/* UAR pages as the kernel's pages; CQE version 1 as libmlx5 expects. */
	MLX5_SET(cmd_hca_cap, cap, log_uar_page_sz, PAGE_SHIFT - MLX5_ADAPTER_PAGE_SHIFT);
	if (MLX5_GET(cmd_hca_cap, max, cqe_version) >= 1)
		MLX5_SET(cmd_hca_cap, cap, cqe_version, 1);
	MLX5_SET(set_hca_cap_in, in, opcode, MLX5_CMD_OP_SET_HCA_CAP);
	MLX5_SET(set_hca_cap_in, in, op_mod, MLX5_CAP_GENERAL << 1);
	err = mlx5sp_cmd_exec_in(dev, set_hca_cap, in);
	kfree(in);
	return err;
}

/* Atomic responses in host endianness, as mlx5_core asks when it can. */
static int set_atomic_caps(struct mlx5sp_dev *dev)
{
	const void *max = dev->caps_max[MLX5SP_CAPS_ATOMIC];
	int inlen = MLX5_ST_SZ_BYTES(set_hca_cap_in);
	void *in, *cap;
	int err;

	if (!MLX5_GET(cmd_hca_cap, dev->caps_max[MLX5SP_CAPS_GENERAL], atomic) ||
	    !MLX5_GET(atomic_caps, max, supported_atomic_req_8B_endianness_mode_1))
		return 0;
	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	cap = MLX5_ADDR_OF(set_hca_cap_in, in, capability);
	memcpy(cap, dev->caps_cur[MLX5SP_CAPS_ATOMIC], MLX5_UN_SZ_BYTES(hca_cap_union));
	MLX5_SET(atomic_caps, cap, atomic_req_8B_endianness_mode, 1);
	MLX5_SET(set_hca_cap_in, in, opcode, MLX5_CMD_OP_SET_HCA_CAP);
	MLX5_SET(set_hca_cap_in, in, op_mod, MLX5_CAP_ATOMIC << 1);
	err = mlx5sp_cmd_exec_in(dev, set_hca_cap, in);
	kfree(in);
	return err;
}

static int enable_hca(struct mlx5sp_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(enable_hca_in)] = {};

	MLX5_SET(enable_hca_in, in, opcode, MLX5_CMD_OP_ENABLE_HCA);
	return mlx5sp_cmd_exec_in(dev, enable_hca, in);
}

static int disable_hca(struct mlx5sp_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(disable_hca_in)] = {};

	MLX5_SET(disable_hca_in, in, opcode, MLX5_CMD_OP_DISABLE_HCA);
	return mlx5sp_cmd_exec_in(dev, disable_hca, in);
}

static int set_issi(struct mlx5sp_dev *dev)
{
	u32 out[MLX5_ST_SZ_DW(query_issi_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_issi_in)] = {};
	u32 sin[MLX5_ST_SZ_DW(set_issi_in)] = {};
	u32 supported;
	int err;

	MLX5_SET(query_issi_in, in, opcode, MLX5_CMD_OP_QUERY_ISSI);
	err = mlx5sp_cmd_exec_inout(dev, query_issi, in, out);
	if (err)
		return err;
	supported = MLX5_GET(query_issi_out, out, supported_issi_dw0);
	if (!(supported & BIT(1))) {
		mlx5sp_err(dev, "firmware lacks ISSI 1 (supported 0x%x)\n", supported);
		return -EOPNOTSUPP;
	}
	MLX5_SET(set_issi_in, sin, opcode, MLX5_CMD_OP_SET_ISSI);
	MLX5_SET(set_issi_in, sin, current_issi, 1);
	return mlx5sp_cmd_exec_in(dev, set_issi, sin);
}

static int init_hca(struct mlx5sp_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(init_hca_in)] = {};

	MLX5_SET(init_hca_in, in, opcode, MLX5_CMD_OP_INIT_HCA);
	return mlx5sp_cmd_exec_in(dev, init_hca, in);
}

static int teardown_hca(struct mlx5sp_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(teardown_hca_in)] = {};

	MLX5_SET(teardown_hca_in, in, opcode, MLX5_CMD_OP_TEARDOWN_HCA);
	MLX5_SET(teardown_hca_in, in, profile, MLX5_TEARDOWN_HCA_IN_PROFILE_GRACEFUL_CLOSE);
	return mlx5sp_cmd_exec_in(dev, teardown_hca, in);
}

static void read_fw_rev(struct mlx5sp_dev *dev)
{
	u32 rev = mlx5sp_rd32(dev, MLX5SP_ISEG(fw_rev));
	u32 sub = mlx5sp_rd32(dev, MLX5SP_ISEG(cmdif_rev_fw_sub));

	dev->fw_rev_major = rev & 0xffff;
	dev->fw_rev_minor = rev >> 16;
	dev->fw_rev_sub = sub & 0xffff;
	snprintf(dev->fw_ver, sizeof(dev->fw_ver), "%u.%u.%04u",
		 dev->fw_rev_major, dev->fw_rev_minor, dev->fw_rev_sub);
}

static void log_caps(struct mlx5sp_dev *dev)
{
	const void *c = dev->caps_cur[MLX5SP_CAPS_GENERAL];

	mlx5sp_info(dev, "up: fw %s, %u command slots, %u vectors\n",
		    dev->fw_ver, dev->cmd.nslots, dev->num_vectors);
	mlx5sp_info(dev, "caps: log_max_qp %u log_max_cq %u log_max_mkey %u log_max_pd %u log_max_eq %u ports %u\n",
		    MLX5_GET(cmd_hca_cap, c, log_max_qp),
		    MLX5_GET(cmd_hca_cap, c, log_max_cq),
		    MLX5_GET(cmd_hca_cap, c, log_max_mkey),
		    MLX5_GET(cmd_hca_cap, c, log_max_pd),
		    MLX5_GET(cmd_hca_cap, c, log_max_eq),
		    MLX5_GET(cmd_hca_cap, c, num_ports));
	mlx5sp_info(dev, "caps: roce %u sho %u sigerr_cqe %u drain_sigerr %u umr %u cqe_version %u cmdif_checksum %u\n",
		    MLX5_GET(cmd_hca_cap, c, roce), MLX5_GET(cmd_hca_cap, c, sho),
		    MLX5_GET(cmd_hca_cap, c, sigerr_cqe),
		    MLX5_GET(cmd_hca_cap, c, drain_sigerr),
		    MLX5_GET(cmd_hca_cap, c, umr_extended_translation_offset),
		    MLX5_GET(cmd_hca_cap, c, cqe_version),
		    MLX5_GET(cmd_hca_cap, c, cmdif_checksum));
}

static void free_caps(struct mlx5sp_dev *dev)
{
	int i;

	for (i = 0; i < MLX5SP_CAPS_NUM; i++) {
		kfree(dev->caps_cur[i]);
		kfree(dev->caps_max[i]);
		dev->caps_cur[i] = NULL;
		dev->caps_max[i] = NULL;
	}
}

static int alloc_caps(struct mlx5sp_dev *dev)
{
	int i;

	for (i = 0; i < MLX5SP_CAPS_NUM; i++) {
		dev->caps_cur[i] = kzalloc(MLX5_UN_SZ_BYTES(hca_cap_union), GFP_KERNEL);
		dev->caps_max[i] = kzalloc(MLX5_UN_SZ_BYTES(hca_cap_union), GFP_KERNEL);
		if (!dev->caps_cur[i] || !dev->caps_max[i]) {
			free_caps(dev);
			return -ENOMEM;
		}
	}
	return 0;
}

/* PRM bring-up: every step is undone, in reverse, on failure. */
int mlx5sp_dev_init(struct mlx5sp_dev *dev)
{
	int err;

	spin_lock_init(&dev->state_lock);
	spin_lock_init(&dev->event_lock);
	spin_lock_init(&dev->quarantine_lock);
	INIT_LIST_HEAD(&dev->quarantine);
	xa_init_flags(&dev->cq_table, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qp_table, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srq_table, XA_FLAGS_LOCK_IRQ);
	dev->state = MLX5SP_STATE_UP;
	dev->db_pool = dma_pool_create("mlx5sp_db", dev->dma_dev, 64, 64, 0);
	if (!dev->db_pool)
		return -ENOMEM;
	err = alloc_caps(dev);
	if (err)
		goto err_destroy_pool;
	err = mlx5sp_cmd_init(dev);
	if (err)
		goto err_free_caps;
	read_fw_rev(dev);
	mlx5sp_info(dev, "firmware version %s\n", dev->fw_ver);
	err = mlx5sp_pages_init(dev);
	if (err)
		goto err_cmd_cleanup;
	mlx5sp_health_start(dev);

	err = enable_hca(dev);
	if (err) {
		mlx5sp_err(dev, "ENABLE_HCA failed: %d\n", err);
		goto err_health_stop;
	}
	err = set_issi(dev);
	if (err)
		goto err_disable_hca;
	err = mlx5sp_satisfy_pages(dev, MLX5SP_BOOT_PAGES);
	if (err) {
		mlx5sp_err(dev, "boot pages failed: %d\n", err);
		goto err_reclaim_pages;
	}
	err = query_caps(dev);
	if (err)
		goto err_reclaim_pages;
	err = check_required_caps(dev);
	if (err)
		goto err_reclaim_pages;
	err = set_caps(dev);
	if (err)
		goto err_reclaim_pages;
	err = set_atomic_caps(dev);
	if (err)
		goto err_reclaim_pages;
	err = mlx5sp_satisfy_pages(dev, MLX5SP_INIT_PAGES);
	if (err) {
		mlx5sp_err(dev, "init pages failed: %d\n", err);
		goto err_reclaim_pages;
	}
	err = init_hca(dev);
	if (err) {
		mlx5sp_err(dev, "INIT_HCA failed: %d\n", err);
		goto err_reclaim_pages;
	}
	err = query_caps(dev);
	if (err)
		goto err_teardown_hca;
	err = mlx5sp_eqs_create(dev);
	if (err) {
		mlx5sp_err(dev, "creating EQs failed: %d\n", err);
		goto err_teardown_hca;
	}
	dev->hca_inited = true;
	log_caps(dev);
	return 0;

err_teardown_hca:
	teardown_hca(dev);
err_reclaim_pages:
	mlx5sp_reclaim_all_pages(dev);
err_disable_hca:
	disable_hca(dev);
err_health_stop:
	mlx5sp_health_stop(dev);
	mlx5sp_pages_cleanup(dev);
err_cmd_cleanup:
	mlx5sp_cmd_cleanup(dev);
err_free_caps:
	free_caps(dev);
err_destroy_pool:
	dma_pool_destroy(dev->db_pool);
	return err;
}

void mlx5sp_dev_cleanup(struct mlx5sp_dev *dev)
{
	int err;

	mlx5sp_eqs_destroy(dev);
	err = teardown_hca(dev);
	if (err)
		mlx5sp_err(dev, "TEARDOWN_HCA failed: %d\n", err);
	err = mlx5sp_reclaim_all_pages(dev);
	if (err)
		mlx5sp_err(dev, "reclaiming firmware pages failed: %d\n", err);
	err = disable_hca(dev);
	if (err)
		mlx5sp_err(dev, "DISABLE_HCA failed: %d\n", err);
	mlx5sp_health_stop(dev);
	/* The function is disabled (or dead): firmware no longer touches its pages. */
	mlx5sp_pages_cleanup(dev);
	mlx5sp_quarantine_free(dev);
	dma_pool_destroy(dev->db_pool);
	mlx5sp_cmd_cleanup(dev);
	free_caps(dev);
	dev->hca_inited = false;
	mlx5sp_info(dev, "down\n");
}

static int __init mlx5sp_init(void)
{
	int err;

	err = mlx5sp_ib_module_init();
	if (err)
		return err;
	err = mlx5sp_pci_register();
	if (err)
		mlx5sp_ib_module_exit();
	return err;
}

static void __exit mlx5sp_exit(void)
{
	mlx5sp_pci_unregister();
	mlx5sp_ib_module_exit();
}

module_init(mlx5sp_init);
module_exit(mlx5sp_exit);
