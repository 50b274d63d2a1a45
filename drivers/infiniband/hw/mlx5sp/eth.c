// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The port's Ethernet NIC: its device objects, open and stop, steering,
 * MTU, MAC and carrier. The data path is eth_tx.c and eth_rx.c.
 *
 * The NIC is made when the device has one (the gate, mlx5sp_eth_gate())
 * and the bus gave no netdev of its own; it is registered before the
 * RDMA device, which gets its netdev as port 1's (mlx5sp_port_add()),
 * and goes after it, in the bus's release, before the core.
 */
#include <linux/etherdevice.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/vport.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "eth.h"
#include "ib.h"

#define ETH_CAP(mdev, fld) \
	MLX5_GET(per_protocol_networking_offload_caps, \
		 (mdev)->caps_cur[MLX5SP_CAPS_ETH], fld)
#define FT_RX_CAP(mdev, fld) \
	MLX5_GET(flow_table_nic_cap, (mdev)->caps_cur[MLX5SP_CAPS_FLOW_TABLE], \
		 flow_table_properties_nic_receive.fld)

#define ETH_PORT		1	/* local_port of the registers */
#define SQ_RECOVER_WAIT_MS	1000

/* The gate of the port contract: the device has a NIC for the host. */
bool mlx5sp_eth_gate(struct mlx5sp_dev *mdev)
{
	return MLX5SP_CAP_GEN_CUR(mdev, eth_net_offloads) &&
	       MLX5SP_CAP_GEN_CUR(mdev, nic_flow_table) &&
	       MLX5SP_CAP_GEN_CUR(mdev, port_type) == MLX5_CAP_PORT_TYPE_ETH;
}

/* What the NIC needs of the device beyond the gate, with one line each. */
static int check_caps(struct mlx5sp_dev *mdev)
{
	int missing = 0;

	if (!FT_RX_CAP(mdev, ft_support) ||
	    FT_RX_CAP(mdev, log_max_ft_size) < MLX5SP_ETH_LOG_FT_SIZE ||
	    !FT_RX_CAP(mdev, ft_field_support.outer_dmac)) {
		mlx5sp_err(mdev, "NIC: no receive flow table matching destination MACs in %u entries\n",
			   1U << MLX5SP_ETH_LOG_FT_SIZE);
		missing++;
	}
	if (ETH_CAP(mdev, wqe_inline_mode) != MLX5_CAP_INLINE_MODE_L2 &&
	    ETH_CAP(mdev, wqe_inline_mode) != MLX5_CAP_INLINE_MODE_VPORT_CONTEXT &&
	    ETH_CAP(mdev, wqe_inline_mode) != MLX5_CAP_INLINE_MODE_NOT_REQUIRED) {
		mlx5sp_err(mdev, "NIC: unknown WQE inline mode %u\n",
			   ETH_CAP(mdev, wqe_inline_mode));
		missing++;
	}
	if (MLX5SP_CAP_GEN_CUR(mdev, log_max_wq_sz) < MLX5SP_ETH_LOG_SQ_SZ ||
	    MLX5SP_CAP_GEN_CUR(mdev, log_max_cq_sz) < MLX5SP_ETH_LOG_SQ_SZ) {
		mlx5sp_err(mdev, "NIC: work queues or CQs of fewer than %u entries\n",
			   1U << MLX5SP_ETH_LOG_SQ_SZ);
		missing++;
	}
	return missing ? -EOPNOTSUPP : 0;
}

/**
 * mlx5sp_eth_access_reg - read or write a port register (ACCESS_REG)
 * @mdev: the device
 * @reg_id: MLX5_REG_*
 * @write: write @data, else read
 * @data: the register's layout as sent
 * @out: the register as firmware answers, @size bytes
 * @size: bytes of the register's layout
 */
int mlx5sp_eth_access_reg(struct mlx5sp_dev *mdev, u16 reg_id, bool write,
			  const void *data, void *out, int size)
{
	int outlen = MLX5_ST_SZ_BYTES(access_register_out) + size;
	int inlen = MLX5_ST_SZ_BYTES(access_register_in) + size;
	void *in, *obuf;
	int err = -ENOMEM;

	in = kzalloc(inlen, GFP_KERNEL);
	obuf = kzalloc(outlen, GFP_KERNEL);
	if (!in || !obuf)
		goto out_free;
	MLX5_SET(access_register_in, in, opcode, MLX5_CMD_OP_ACCESS_REG);
	MLX5_SET(access_register_in, in, op_mod,
		 write ? MLX5_ACCESS_REGISTER_IN_OP_MOD_WRITE :
			 MLX5_ACCESS_REGISTER_IN_OP_MOD_READ);
	MLX5_SET(access_register_in, in, register_id, reg_id);
	memcpy(MLX5_ADDR_OF(access_register_in, in, register_data), data, size);
	err = mlx5sp_cmd_exec(mdev, in, inlen, obuf, outlen);
	if (!err)
		memcpy(out, MLX5_ADDR_OF(access_register_out, obuf, register_data),
		       size);
out_free:
	kfree(obuf);
	kfree(in);
	return err;
}

static int set_port_admin(struct mlx5sp_dev *mdev, bool up)
{
	u32 reg[MLX5_ST_SZ_DW(paos_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(paos_reg)];

	MLX5_SET(paos_reg, reg, local_port, ETH_PORT);
	MLX5_SET(paos_reg, reg, admin_status, up ? MLX5_PORT_UP : MLX5_PORT_DOWN);
	MLX5_SET(paos_reg, reg, ase, 1);
	return mlx5sp_eth_access_reg(mdev, MLX5_REG_PAOS, true, reg, out,
				     sizeof(reg));
}

static int query_port_oper(struct mlx5sp_dev *mdev, bool *up)
{
	u32 reg[MLX5_ST_SZ_DW(paos_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(paos_reg)];
	int err;

	MLX5_SET(paos_reg, reg, local_port, ETH_PORT);
	err = mlx5sp_eth_access_reg(mdev, MLX5_REG_PAOS, false, reg, out,
				    sizeof(reg));
	if (err)
		return err;
	*up = MLX5_GET(paos_reg, out, oper_status) == MLX5_PORT_UP;
	return 0;
}

static int query_port_max_mtu(struct mlx5sp_dev *mdev, u16 *max_mtu)
{
	u32 reg[MLX5_ST_SZ_DW(pmtu_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(pmtu_reg)];
	int err;

	MLX5_SET(pmtu_reg, reg, local_port, ETH_PORT);
	err = mlx5sp_eth_access_reg(mdev, MLX5_REG_PMTU, false, reg, out,
				    sizeof(reg));
	if (err)
		return err;
	*max_mtu = MLX5_GET(pmtu_reg, out, max_mtu);
	return 0;
}

/* MODIFY_NIC_VPORT_CONTEXT of one field: roce_en or mtu. */
static int modify_vport(struct mlx5sp_dev *mdev, bool roce, u32 val)
{
	u32 in[MLX5_ST_SZ_DW(modify_nic_vport_context_in)] = {};

	MLX5_SET(modify_nic_vport_context_in, in, opcode,
		 MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT);
	if (roce) {
		MLX5_SET(modify_nic_vport_context_in, in, field_select.roce_en, 1);
		MLX5_SET(modify_nic_vport_context_in, in,
			 nic_vport_context.roce_en, val);
	} else {
		MLX5_SET(modify_nic_vport_context_in, in, field_select.mtu, 1);
		MLX5_SET(modify_nic_vport_context_in, in, nic_vport_context.mtu,
			 val);
	}
	return mlx5sp_cmd_exec_in(mdev, modify_nic_vport_context, in);
}

/* The port's MTU, hardware bytes: PMTU's admin MTU and the vport's. */
static int set_port_mtu(struct mlx5sp_eth *eth, unsigned int mtu)
{
	u32 reg[MLX5_ST_SZ_DW(pmtu_reg)] = {};
	u32 out[MLX5_ST_SZ_DW(pmtu_reg)];
	u16 hw = MLX5SP_ETH_HW_MTU(mtu);
	int err;

	MLX5_SET(pmtu_reg, reg, local_port, ETH_PORT);
	MLX5_SET(pmtu_reg, reg, admin_mtu, hw);
	err = mlx5sp_eth_access_reg(eth->mdev, MLX5_REG_PMTU, true, reg, out,
				    sizeof(reg));
	if (err)
		return err;
	return modify_vport(eth->mdev, false, hw);
}

/* The port's MAC and the inline mode the vport asks, from its context. */
static int query_vport(struct mlx5sp_dev *mdev, u8 *mac, u8 *min_inline)
{
	u32 in[MLX5_ST_SZ_DW(query_nic_vport_context_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(query_nic_vport_context_out);
	void *out, *ctx;
	int err;

	out = kzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_nic_vport_context_in, in, opcode,
		 MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	err = mlx5sp_cmd_exec(mdev, in, sizeof(in), out, outlen);
	if (!err) {
		ctx = MLX5_ADDR_OF(query_nic_vport_context_out, out,
				   nic_vport_context);
		/* mac_address_layout: 16 reserved bits, then the 48 */
		ether_addr_copy(mac, (u8 *)MLX5_ADDR_OF(nic_vport_context, ctx,
							permanent_address) + 2);
		*min_inline = MLX5_GET(nic_vport_context, ctx,
				       min_wqe_inline_mode);
	}
	kfree(out);
	return err;
}

static int alloc_pd(struct mlx5sp_eth *eth)
{
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	int err;

	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	err = mlx5sp_cmd_exec_inout(eth->mdev, alloc_pd, in, out);
	if (!err)
		eth->pdn = MLX5_GET(alloc_pd_out, out, pd);
	return err;
}

static void dealloc_pd(struct mlx5sp_eth *eth)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_pd_in)] = {};

	MLX5_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	MLX5_SET(dealloc_pd_in, in, pd, eth->pdn);
	mlx5sp_cmd_exec_in(eth->mdev, dealloc_pd, in);
}

static int alloc_td(struct mlx5sp_eth *eth)
{
	u32 out[MLX5_ST_SZ_DW(alloc_transport_domain_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_transport_domain_in)] = {};
	int err;

	MLX5_SET(alloc_transport_domain_in, in, opcode,
		 MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN);
	err = mlx5sp_cmd_exec_inout(eth->mdev, alloc_transport_domain, in, out);
	if (!err)
		eth->tdn = MLX5_GET(alloc_transport_domain_out, out,
				    transport_domain);
	return err;
}

static void dealloc_td(struct mlx5sp_eth *eth)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_transport_domain_in)] = {};

	MLX5_SET(dealloc_transport_domain_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN);
	MLX5_SET(dealloc_transport_domain_in, in, transport_domain, eth->tdn);
	mlx5sp_cmd_exec_in(eth->mdev, dealloc_transport_domain, in);
}

static int create_tis(struct mlx5sp_eth *eth)
{
	u32 out[MLX5_ST_SZ_DW(create_tis_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_tis_in)] = {};
	int err;

	MLX5_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	MLX5_SET(create_tis_in, in, ctx.prio, 0);
	MLX5_SET(create_tis_in, in, ctx.transport_domain, eth->tdn);
	err = mlx5sp_cmd_exec_inout(eth->mdev, create_tis, in, out);
	if (!err)
		eth->tisn = MLX5_GET(create_tis_out, out, tisn);
	return err;
}

static void destroy_tis(struct mlx5sp_eth *eth)
{
	u32 in[MLX5_ST_SZ_DW(destroy_tis_in)] = {};

	MLX5_SET(destroy_tis_in, in, opcode, MLX5_CMD_OP_DESTROY_TIS);
	MLX5_SET(destroy_tis_in, in, tisn, eth->tisn);
	mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "TIS", eth->tisn);
}

/* One MKEY over all of the bus's DMA addresses, for both queues. */
static int create_mkey(struct mlx5sp_eth *eth)
{
	u32 out[MLX5_ST_SZ_DW(create_mkey_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	int err;

	MLX5_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	MLX5_SET(mkc, mkc, lw, 1);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, length64, 1);
	MLX5_SET(mkc, mkc, pd, eth->pdn);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	err = mlx5sp_cmd_exec_inout(eth->mdev, create_mkey, in, out);
	if (!err)
		eth->mkey = MLX5_GET(create_mkey_out, out, mkey_index) << 8;
	return err;
}

static void destroy_mkey(struct mlx5sp_eth *eth)
{
	u32 in[MLX5_ST_SZ_DW(destroy_mkey_in)] = {};

	MLX5_SET(destroy_mkey_in, in, opcode, MLX5_CMD_OP_DESTROY_MKEY);
	MLX5_SET(destroy_mkey_in, in, mkey_index, eth->mkey >> 8);
	mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "MKEY", eth->mkey);
}

static int create_tir(struct mlx5sp_eth *eth)
{
	u32 out[MLX5_ST_SZ_DW(create_tir_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_tir_in)] = {};
	int err;

	MLX5_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	MLX5_SET(create_tir_in, in, ctx.disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	MLX5_SET(create_tir_in, in, ctx.inline_rqn, eth->rq.rqn);
	MLX5_SET(create_tir_in, in, ctx.transport_domain, eth->tdn);
	err = mlx5sp_cmd_exec_inout(eth->mdev, create_tir, in, out);
	if (err)
		return err;
	eth->tirn = MLX5_GET(create_tir_out, out, tirn);
	eth->tir_created = true;
	return 0;
}

static void destroy_tir(struct mlx5sp_eth *eth)
{
	u32 in[MLX5_ST_SZ_DW(destroy_tir_in)] = {};

	if (!eth->tir_created)
		return;
	MLX5_SET(destroy_tir_in, in, opcode, MLX5_CMD_OP_DESTROY_TIR);
	MLX5_SET(destroy_tir_in, in, tirn, eth->tirn);
	mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "TIR", eth->tirn);
	eth->tir_created = false;
}

/* Steering: the root NIC_RX table, its three groups and their entries. */

static int create_flow_table(struct mlx5sp_eth *eth)
{
	u32 out[MLX5_ST_SZ_DW(create_flow_table_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_flow_table_in)] = {};
	int err;

	MLX5_SET(create_flow_table_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_TABLE);
	MLX5_SET(create_flow_table_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	MLX5_SET(create_flow_table_in, in, flow_table_context.level, 0);
	MLX5_SET(create_flow_table_in, in, flow_table_context.log_size,
		 MLX5SP_ETH_LOG_FT_SIZE);
	err = mlx5sp_cmd_exec_inout(eth->mdev, create_flow_table, in, out);
	if (!err)
		eth->ft_id = MLX5_GET(create_flow_table_out, out, table_id);
	return err;
}

static void destroy_flow_table(struct mlx5sp_eth *eth)
{
	u32 in[MLX5_ST_SZ_DW(destroy_flow_table_in)] = {};

	MLX5_SET(destroy_flow_table_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_TABLE);
	MLX5_SET(destroy_flow_table_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	MLX5_SET(destroy_flow_table_in, in, table_id, eth->ft_id);
	mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "flow table", eth->ft_id);
}

/* The table as NIC_RX's root, or (@disconnect, as mlx5_core) none. */
static int set_root(struct mlx5sp_eth *eth, bool disconnect)
{
	u32 in[MLX5_ST_SZ_DW(set_flow_table_root_in)] = {};

	MLX5_SET(set_flow_table_root_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	MLX5_SET(set_flow_table_root_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	if (disconnect)
		MLX5_SET(set_flow_table_root_in, in, op_mod, 1);
	else
		MLX5_SET(set_flow_table_root_in, in, table_id, eth->ft_id);
	return mlx5sp_cmd_exec_in(eth->mdev, set_flow_table_root, in);
}

/* A group of entries [@start, @end] matching the DMAC under @mask, or all. */
static int create_flow_group(struct mlx5sp_eth *eth, u32 start, u32 end,
			     const u8 *mask, u32 *id)
{
	int inlen = MLX5_ST_SZ_BYTES(create_flow_group_in);
	u32 out[MLX5_ST_SZ_DW(create_flow_group_out)] = {};
	void *in, *mc;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_flow_group_in, in, opcode, MLX5_CMD_OP_CREATE_FLOW_GROUP);
	MLX5_SET(create_flow_group_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	MLX5_SET(create_flow_group_in, in, table_id, eth->ft_id);
	MLX5_SET(create_flow_group_in, in, start_flow_index, start);
	MLX5_SET(create_flow_group_in, in, end_flow_index, end);
	if (mask) {
		MLX5_SET(create_flow_group_in, in, match_criteria_enable,
			 MLX5_MATCH_OUTER_HEADERS);
		mc = MLX5_ADDR_OF(create_flow_group_in, in,
				  match_criteria.outer_headers.dmac_47_16);
		ether_addr_copy(mc, mask);
	}
	err = mlx5sp_cmd_exec(eth->mdev, in, inlen, out, sizeof(out));
	kfree(in);
	if (!err)
		*id = MLX5_GET(create_flow_group_out, out, group_id);
	return err;
}

static void destroy_flow_group(struct mlx5sp_eth *eth, u32 id)
{
	u32 in[MLX5_ST_SZ_DW(destroy_flow_group_in)] = {};

	MLX5_SET(destroy_flow_group_in, in, opcode, MLX5_CMD_OP_DESTROY_FLOW_GROUP);
	MLX5_SET(destroy_flow_group_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	MLX5_SET(destroy_flow_group_in, in, table_id, eth->ft_id);
	MLX5_SET(destroy_flow_group_in, in, group_id, id);
	mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "flow group", id);
}

/* Entry @index of group @group: frames with DMAC @dmac (or any) to the TIR. */
static int set_fte(struct mlx5sp_eth *eth, u32 index, u32 group,
		   const u8 *dmac)
{
	int inlen = MLX5_ST_SZ_BYTES(set_fte_in) +
		    MLX5_ST_SZ_BYTES(dest_format_struct);
	u32 out[MLX5_ST_SZ_DW(set_fte_out)] = {};
	void *in, *fc, *dest;
	int err;

	in = kzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	MLX5_SET(set_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	MLX5_SET(set_fte_in, in, table_id, eth->ft_id);
	MLX5_SET(set_fte_in, in, flow_index, index);
	fc = MLX5_ADDR_OF(set_fte_in, in, flow_context);
	MLX5_SET(flow_context, fc, group_id, group);
	MLX5_SET(flow_context, fc, action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
	MLX5_SET(flow_context, fc, destination_list_size, 1);
	if (dmac)
		ether_addr_copy(MLX5_ADDR_OF(flow_context, fc,
					     match_value.outer_headers.dmac_47_16),
				dmac);
	dest = MLX5_ADDR_OF(flow_context, fc, destination);
	MLX5_SET(dest_format_struct, dest, destination_type,
		 MLX5_FLOW_CONTEXT_DEST_TYPE_TIR);
	MLX5_SET(dest_format_struct, dest, destination_id, eth->tirn);
	err = mlx5sp_cmd_exec(eth->mdev, in, inlen, out, sizeof(out));
	kfree(in);
	return err;
}

static void delete_fte(struct mlx5sp_eth *eth, u32 index)
{
	u32 in[MLX5_ST_SZ_DW(delete_fte_in)] = {};

	MLX5_SET(delete_fte_in, in, opcode, MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY);
	MLX5_SET(delete_fte_in, in, table_type, MLX5_FLOW_TABLE_TYPE_NIC_RX);
	MLX5_SET(delete_fte_in, in, table_id, eth->ft_id);
	MLX5_SET(delete_fte_in, in, flow_index, index);
	mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "flow table entry", index);
}

static const u8 mac_mask_all[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const u8 mac_mask_mcast[ETH_ALEN] = { 0x01 };

static void destroy_steering(struct mlx5sp_eth *eth)
{
	destroy_flow_group(eth, eth->fg_promisc);
	destroy_flow_group(eth, eth->fg_allmulti);
	destroy_flow_group(eth, eth->fg_exact);
	set_root(eth, true);
	destroy_flow_table(eth);
}

static int create_steering(struct mlx5sp_eth *eth)
{
	int err;

	err = create_flow_table(eth);
	if (err)
		return err;
	err = create_flow_group(eth, 0, MLX5SP_ETH_EXACT_ENTRIES - 1,
				mac_mask_all, &eth->fg_exact);
	if (err)
		goto err_destroy_table;
	err = create_flow_group(eth, MLX5SP_ETH_FTE_ALLMULTI,
				MLX5SP_ETH_FTE_ALLMULTI, mac_mask_mcast,
				&eth->fg_allmulti);
	if (err)
		goto err_destroy_exact;
	/* no criteria: every frame that got this far (promiscuous) */
	err = create_flow_group(eth, MLX5SP_ETH_FTE_PROMISC,
				MLX5SP_ETH_FTE_PROMISC, NULL, &eth->fg_promisc);
	if (err)
		goto err_destroy_allmulti;
	err = set_root(eth, false);
	if (err)
		goto err_destroy_promisc;
	return 0;

err_destroy_promisc:
	destroy_flow_group(eth, eth->fg_promisc);
err_destroy_allmulti:
	destroy_flow_group(eth, eth->fg_allmulti);
err_destroy_exact:
	destroy_flow_group(eth, eth->fg_exact);
err_destroy_table:
	destroy_flow_table(eth);
	return err;
}

/* The addresses the netdev wants; *promisc or *allmulti when they do not fit. */
static int rx_mode_addrs(struct mlx5sp_eth *eth, u8 (*addrs)[ETH_ALEN],
			 bool *promisc, bool *allmulti)
{
	struct net_device *netdev = eth->netdev;
	struct netdev_hw_addr *ha;
	int n = 0;

	ether_addr_copy(addrs[n++], netdev->dev_addr);
	eth_broadcast_addr(addrs[n++]);
	netif_addr_lock_bh(netdev);
	*promisc = netdev->flags & IFF_PROMISC;
	*allmulti = netdev->flags & IFF_ALLMULTI;
	netdev_for_each_uc_addr(ha, netdev) {
		if (n == MLX5SP_ETH_EXACT_ENTRIES) {
			*promisc = true;	/* as mlx5e on a full list */
			break;
		}
		ether_addr_copy(addrs[n++], ha->addr);
	}
	netdev_for_each_mc_addr(ha, netdev) {
		if (n == MLX5SP_ETH_EXACT_ENTRIES) {
			*allmulti = true;
			break;
		}
		ether_addr_copy(addrs[n++], ha->addr);
	}
	netif_addr_unlock_bh(netdev);
	return n;
}

static bool addr_in(u8 (*addrs)[ETH_ALEN], int n, const u8 *addr)
{
	int i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(addrs[i], addr))
			return true;
	return false;
}

/* One catch-all entry on or off: allmulti (@index ALLMULTI) or promisc. */
static void set_catchall(struct mlx5sp_eth *eth, u32 index, bool *on, bool want)
{
	u32 group = index == MLX5SP_ETH_FTE_ALLMULTI ? eth->fg_allmulti :
						       eth->fg_promisc;

	if (*on == want)
		return;
	if (!want) {
		delete_fte(eth, index);
		*on = false;
		return;
	}
	/* the allmulti entry's value is the multicast bit its group masks */
	if (!set_fte(eth, index, group,
		     index == MLX5SP_ETH_FTE_ALLMULTI ? mac_mask_mcast : NULL))
		*on = true;
}

/*
 * Steering to what the netdev asks now; entries that stay are not
 * touched, so their traffic is never cut. eth->lock held, open.
 */
static void apply_rx_mode(struct mlx5sp_eth *eth)
{
	u8 (*addrs)[ETH_ALEN];
	bool promisc, allmulti;
	int n, i, slot;

	addrs = kcalloc(MLX5SP_ETH_EXACT_ENTRIES, ETH_ALEN, GFP_KERNEL);
	if (!addrs)
		return;
	n = rx_mode_addrs(eth, addrs, &promisc, &allmulti);
	for_each_set_bit(slot, eth->exact_used, MLX5SP_ETH_EXACT_ENTRIES) {
		if (addr_in(addrs, n, eth->exact[slot]))
			continue;
		delete_fte(eth, slot);
		__clear_bit(slot, eth->exact_used);
	}
	for (i = 0; i < n; i++) {
		bool have = false;

		for_each_set_bit(slot, eth->exact_used, MLX5SP_ETH_EXACT_ENTRIES)
			if (ether_addr_equal(eth->exact[slot], addrs[i]))
				have = true;
		if (have)
			continue;
		slot = find_first_zero_bit(eth->exact_used,
					   MLX5SP_ETH_EXACT_ENTRIES);
		if (slot >= MLX5SP_ETH_EXACT_ENTRIES)
			break;
		if (set_fte(eth, slot, eth->fg_exact, addrs[i]))
			continue;
		ether_addr_copy(eth->exact[slot], addrs[i]);
		__set_bit(slot, eth->exact_used);
	}
	set_catchall(eth, MLX5SP_ETH_FTE_ALLMULTI, &eth->allmulti_on, allmulti);
	set_catchall(eth, MLX5SP_ETH_FTE_PROMISC, &eth->promisc_on, promisc);
	kfree(addrs);
}

static void clear_rx_mode(struct mlx5sp_eth *eth)
{
	int slot;

	set_catchall(eth, MLX5SP_ETH_FTE_PROMISC, &eth->promisc_on, false);
	set_catchall(eth, MLX5SP_ETH_FTE_ALLMULTI, &eth->allmulti_on, false);
	for_each_set_bit(slot, eth->exact_used, MLX5SP_ETH_EXACT_ENTRIES)
		delete_fte(eth, slot);
	bitmap_zero(eth->exact_used, MLX5SP_ETH_EXACT_ENTRIES);
}

static void rx_mode_work(struct work_struct *work)
{
	struct mlx5sp_eth *eth = container_of(work, struct mlx5sp_eth,
					      rx_mode_work);

	mutex_lock(&eth->lock);
	if (eth->opened)
		apply_rx_mode(eth);
	mutex_unlock(&eth->lock);
}

/* Atomic context (the netdev's address lock): the update is a work's. */
static void eth_set_rx_mode(struct net_device *netdev)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);

	queue_work(system_wq, &eth->rx_mode_work);
}

static int eth_set_mac(struct net_device *netdev, void *addr)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	int err;

	err = eth_prepare_mac_addr_change(netdev, addr);
	if (err)
		return err;
	eth_commit_mac_addr_change(netdev, addr);
	queue_work(system_wq, &eth->rx_mode_work);
	return 0;
}

/* The carrier is the port's operational state while the netdev is up. */
static void update_carrier(struct mlx5sp_eth *eth)
{
	bool up = false;

	/* a port whose state cannot be read is down */
	if (!eth->opened || mlx5sp_dev_dead(eth->mdev) ||
	    query_port_oper(eth->mdev, &up))
		up = false;
	if (up == eth->link_up)
		return;
	eth->link_up = up;
	atomic64_inc(&eth->link_stats[up ? ETH_LINK_UP : ETH_LINK_DOWN]);
	if (up) {
		netdev_info(eth->netdev, "link up\n");
		netif_carrier_on(eth->netdev);
	} else {
		netdev_info(eth->netdev, "link down\n");
		netif_carrier_off(eth->netdev);
	}
}

static void carrier_work(struct work_struct *work)
{
	struct mlx5sp_eth *eth = container_of(work, struct mlx5sp_eth,
					      carrier_work);

	mutex_lock(&eth->lock);
	update_carrier(eth);
	mutex_unlock(&eth->lock);
}

/**
 * mlx5sp_eth_port_event - a PORT_CHANGE EQE for the NIC
 * @eth: the NIC
 * @port: the EQE's port
 * @sub_type: MLX5_PORT_CHANGE_SUBTYPE_*
 *
 * Hard interrupt context, dev->event_lock held: the carrier is read
 * back from PAOS in a work item, the EQE only says it may have moved.
 */
void mlx5sp_eth_port_event(struct mlx5sp_eth *eth, u8 port, u8 sub_type)
{
	if (port != ETH_PORT)
		return;
	queue_work(system_wq, &eth->carrier_work);
}

/* The device is dead (any context, dev->event_lock held): link down. */
void mlx5sp_eth_fatal(struct mlx5sp_eth *eth)
{
	netif_carrier_off(eth->netdev);
}

/* CQs */

static void eth_cq_comp(struct mlx5sp_core_cq *mcq)
{
	struct mlx5sp_eth_cq *cq = container_of(mcq, struct mlx5sp_eth_cq, mcq);

	cq->arm_sn++;
	napi_schedule(&cq->eth->napi);
}

static int destroy_cq_cmd(struct mlx5sp_dev *mdev, u32 cqn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_cq_in)] = {};

	MLX5_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
	MLX5_SET(destroy_cq_in, in, cqn, cqn);
	return mlx5sp_cmd_destroy(mdev, in, sizeof(in), "CQ", cqn);
}

static int create_cq(struct mlx5sp_eth *eth, struct mlx5sp_eth_cq *cq,
		     u32 log_size)
{
	struct mlx5sp_dev *mdev = eth->mdev;
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	size_t npages;
	void *in, *cqc;
	int inlen, err;
	u32 eqn, i;

	err = mlx5sp_comp_eqn(mdev, 0, &eqn);
	if (err)
		return err;
	cq->eth = eth;
	cq->nent = 1U << log_size;
	cq->cons_index = 0;
	cq->arm_sn = 0;
	err = mlx5sp_db_alloc(mdev, &cq->db);
	if (err)
		return err;
	err = mlx5sp_buf_alloc(mdev, (size_t)cq->nent * sizeof(struct mlx5_cqe64),
			       &cq->buf);
	if (err)
		goto err_free_db;
	for (i = 0; i < cq->nent; i++)
		((struct mlx5_cqe64 *)cq->buf.buf)[i].op_own =
			MLX5_CQE_INVALID << 4 | MLX5_CQE_OWNER_MASK;
	npages = mlx5sp_buf_npages(&cq->buf);
	inlen = MLX5_ST_SZ_BYTES(create_cq_in) + npages * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_free_buf;
	}
	mlx5sp_fill_pas_contig(cq->buf.dma, npages,
			       (__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas));
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, CQE_STRIDE_64);
	MLX5_SET(cqc, cqc, log_cq_size, log_size);
	MLX5_SET(cqc, cqc, uar_page, mdev->uar_index);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size, 0);
	MLX5_SET64(cqc, cqc, dbr_addr, cq->db.dma);
	err = mlx5sp_cmd_exec(mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		goto err_free_buf;
	cq->mcq.cqn = MLX5_GET(create_cq_out, out, cqn);
	cq->mcq.comp = eth_cq_comp;
	cq->mcq.event = NULL;
	cq->mcq.eq_vector = 0;
	err = mlx5sp_core_cq_insert(mdev, &cq->mcq);
	if (err == -EEXIST) {
		/* another CQ's number: not destroyed by it, its memory kept */
		err = -EIO;
		goto err_quarantine;
	}
	if (err)
		goto err_destroy_cq;
	cq->created = true;
	return 0;

err_destroy_cq:
	if (destroy_cq_cmd(mdev, cq->mcq.cqn) && !mlx5sp_dev_dead(mdev))
		goto err_quarantine;
	goto err_free_buf;
err_quarantine:
	mlx5sp_quarantine(mdev, &cq->buf, &cq->db, "NIC CQ", cq->mcq.cqn);
	return err;
err_free_buf:
	mlx5sp_buf_free(mdev, &cq->buf);
err_free_db:
	mlx5sp_db_free(mdev, &cq->db);
	return err;
}

static void destroy_cq(struct mlx5sp_eth *eth, struct mlx5sp_eth_cq *cq)
{
	struct mlx5sp_dev *mdev = eth->mdev;
	int err;

	if (!cq->created)
		return;
	cq->created = false;
	err = destroy_cq_cmd(mdev, cq->mcq.cqn);
	/* no EQE comes for it now; wait out a handler that runs */
	mlx5sp_core_cq_remove(mdev, &cq->mcq);
	if (err && !mlx5sp_dev_dead(mdev)) {
		mlx5sp_quarantine(mdev, &cq->buf, &cq->db, "NIC CQ", cq->mcq.cqn);
		return;
	}
	mlx5sp_buf_free(mdev, &cq->buf);
	mlx5sp_db_free(mdev, &cq->db);
}

/* The send and receive queues */

static int modify_sq(struct mlx5sp_eth *eth, int cur, int next)
{
	u32 in[MLX5_ST_SZ_DW(modify_sq_in)] = {};

	MLX5_SET(modify_sq_in, in, opcode, MLX5_CMD_OP_MODIFY_SQ);
	MLX5_SET(modify_sq_in, in, sq_state, cur);
	MLX5_SET(modify_sq_in, in, sqn, eth->sq.sqn);
	MLX5_SET(modify_sq_in, in, ctx.state, next);
	return mlx5sp_cmd_exec_in(eth->mdev, modify_sq, in);
}

static int modify_rq(struct mlx5sp_eth *eth, int cur, int next)
{
	u32 in[MLX5_ST_SZ_DW(modify_rq_in)] = {};

	MLX5_SET(modify_rq_in, in, opcode, MLX5_CMD_OP_MODIFY_RQ);
	MLX5_SET(modify_rq_in, in, rq_state, cur);
	MLX5_SET(modify_rq_in, in, rqn, eth->rq.rqn);
	MLX5_SET(modify_rq_in, in, ctx.state, next);
	return mlx5sp_cmd_exec_in(eth->mdev, modify_rq, in);
}

/* The wq context both queues share: cyclic, in 4 KiB pages, its record. */
static void set_wq(struct mlx5sp_eth *eth, void *wq, struct mlx5sp_buf *buf,
		   struct mlx5sp_db *db, u32 log_stride, u32 log_sz)
{
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, eth->pdn);
	MLX5_SET64(wq, wq, dbr_addr, db->dma);
	MLX5_SET(wq, wq, log_wq_stride, log_stride);
	MLX5_SET(wq, wq, log_wq_sz, log_sz);
	MLX5_SET(wq, wq, log_wq_pg_sz, 0);
	MLX5_SET(wq, wq, page_offset, 0);
	mlx5sp_fill_pas_contig(buf->dma, mlx5sp_buf_npages(buf),
			       (__be64 *)MLX5_ADDR_OF(wq, wq, pas));
}

static int create_sq_cmd(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	u32 out[MLX5_ST_SZ_DW(create_sq_out)] = {};
	void *in, *sqc, *wq;
	int inlen, err;

	inlen = MLX5_ST_SZ_BYTES(create_sq_in) +
		mlx5sp_buf_npages(&sq->buf) * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	sqc = MLX5_ADDR_OF(create_sq_in, in, ctx);
	MLX5_SET(sqc, sqc, cqn, eth->tx_cq.mcq.cqn);
	MLX5_SET(sqc, sqc, tis_lst_sz, 1);
	MLX5_SET(sqc, sqc, tis_num_0, eth->tisn);
	MLX5_SET(sqc, sqc, flush_in_error_en, 1);
	/* what the vport asks, where the device says the vport decides */
	if (ETH_CAP(eth->mdev, wqe_inline_mode) ==
	    MLX5_CAP_INLINE_MODE_VPORT_CONTEXT)
		MLX5_SET(sqc, sqc, min_wqe_inline_mode, eth->min_inline);
	MLX5_SET(sqc, sqc, state, MLX5_SQC_STATE_RST);
	wq = MLX5_ADDR_OF(sqc, sqc, wq);
	MLX5_SET(wq, wq, uar_page, eth->mdev->uar_index);
	set_wq(eth, wq, &sq->buf, &sq->db, ilog2(MLX5_SEND_WQE_BB),
	       ilog2(sq->wqe_cnt));
	err = mlx5sp_cmd_exec(eth->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (!err)
		sq->sqn = MLX5_GET(create_sq_out, out, sqn);
	return err;
}

static void sq_free_mem(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;

	kvfree(sq->wqe);
	kvfree(sq->dma);
	sq->wqe = NULL;
	sq->dma = NULL;
	mlx5sp_buf_free(eth->mdev, &sq->buf);
	mlx5sp_db_free(eth->mdev, &sq->db);
}

static int create_sq(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	int err;

	sq->wqe_cnt = 1U << MLX5SP_ETH_LOG_SQ_SZ;
	sq->dma_cnt = sq->wqe_cnt * MLX5_SEND_WQEBB_NUM_DS;
	sq->pc = 0;
	sq->cc = 0;
	sq->dma_pc = 0;
	sq->dma_cc = 0;
	sq->db_pending = NULL;
	sq->in_error = false;
	sq->wqe = kvcalloc(sq->wqe_cnt, sizeof(*sq->wqe), GFP_KERNEL);
	sq->dma = kvcalloc(sq->dma_cnt, sizeof(*sq->dma), GFP_KERNEL);
	err = -ENOMEM;
	if (!sq->wqe || !sq->dma)
		goto err_free;
	err = mlx5sp_db_alloc(eth->mdev, &sq->db);
	if (err)
		goto err_free;
	err = mlx5sp_buf_alloc(eth->mdev, (size_t)sq->wqe_cnt * MLX5_SEND_WQE_BB,
			       &sq->buf);
	if (err)
		goto err_free;
	err = create_sq_cmd(eth);
	if (err)
		goto err_free;
	sq->created = true;
	err = modify_sq(eth, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY);
	if (err)
		return err;	/* destroy_sq() undoes it */
	return 0;

err_free:
	sq_free_mem(eth);
	return err;
}

static void destroy_sq(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	u32 in[MLX5_ST_SZ_DW(destroy_sq_in)] = {};
	int err;

	if (!sq->created)
		return;
	sq->created = false;
	MLX5_SET(destroy_sq_in, in, opcode, MLX5_CMD_OP_DESTROY_SQ);
	MLX5_SET(destroy_sq_in, in, sqn, sq->sqn);
	err = mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "SQ", sq->sqn);
	if (err && !mlx5sp_dev_dead(eth->mdev)) {
		/* it may still read its WQEs and the frames they point at */
		mlx5sp_quarantine(eth->mdev, &sq->buf, &sq->db, "SQ", sq->sqn);
		netdev_err(eth->netdev, "SQ 0x%x not destroyed: its frames are leaked\n",
			   sq->sqn);
		kvfree(sq->wqe);
		kvfree(sq->dma);
		sq->wqe = NULL;
		sq->dma = NULL;
		return;
	}
	mlx5sp_eth_sq_free_all(eth);
	sq_free_mem(eth);
}

static int create_rq_cmd(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	u32 out[MLX5_ST_SZ_DW(create_rq_out)] = {};
	void *in, *rqc, *wq;
	int inlen, err;

	inlen = MLX5_ST_SZ_BYTES(create_rq_in) +
		mlx5sp_buf_npages(&rq->buf) * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	MLX5_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	rqc = MLX5_ADDR_OF(create_rq_in, in, ctx);
	MLX5_SET(rqc, rqc, cqn, eth->rx_cq.mcq.cqn);
	MLX5_SET(rqc, rqc, vsd, 1);
	MLX5_SET(rqc, rqc, mem_rq_type, MLX5_RQC_MEM_RQ_TYPE_MEMORY_RQ_INLINE);
	MLX5_SET(rqc, rqc, flush_in_error_en, 1);
	MLX5_SET(rqc, rqc, state, MLX5_RQC_STATE_RST);
	wq = MLX5_ADDR_OF(rqc, rqc, wq);
	set_wq(eth, wq, &rq->buf, &rq->db,
	       ilog2(sizeof(struct mlx5_wqe_data_seg)), ilog2(rq->wqe_cnt));
	err = mlx5sp_cmd_exec(eth->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (!err)
		rq->rqn = MLX5_GET(create_rq_out, out, rqn);
	return err;
}

static void rq_free_mem(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;

	kvfree(rq->bufs);
	rq->bufs = NULL;
	mlx5sp_buf_free(eth->mdev, &rq->buf);
	mlx5sp_db_free(eth->mdev, &rq->db);
}

static int create_rq(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	int err;

	rq->wqe_cnt = 1U << MLX5SP_ETH_LOG_RQ_SZ;
	rq->pc = 0;
	rq->cc = 0;
	rq->in_error = false;
	rq->buf_len = MLX5SP_ETH_HW_MTU(eth->netdev->mtu);
	rq->bufs = kvcalloc(rq->wqe_cnt, sizeof(*rq->bufs), GFP_KERNEL);
	err = -ENOMEM;
	if (!rq->bufs)
		goto err_free;
	err = mlx5sp_db_alloc(eth->mdev, &rq->db);
	if (err)
		goto err_free;
	err = mlx5sp_buf_alloc(eth->mdev, (size_t)rq->wqe_cnt *
			       sizeof(struct mlx5_wqe_data_seg), &rq->buf);
	if (err)
		goto err_free;
	err = create_rq_cmd(eth);
	if (err)
		goto err_free;
	rq->created = true;
	/* destroy_rq() undoes the rest */
	err = modify_rq(eth, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY);
	if (err)
		return err;
	return mlx5sp_eth_rq_fill(eth, GFP_KERNEL);

err_free:
	rq_free_mem(eth);
	return err;
}

static void destroy_rq(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	u32 in[MLX5_ST_SZ_DW(destroy_rq_in)] = {};
	int err;

	if (!rq->created)
		return;
	rq->created = false;
	MLX5_SET(destroy_rq_in, in, opcode, MLX5_CMD_OP_DESTROY_RQ);
	MLX5_SET(destroy_rq_in, in, rqn, rq->rqn);
	err = mlx5sp_cmd_destroy(eth->mdev, in, sizeof(in), "RQ", rq->rqn);
	if (err && !mlx5sp_dev_dead(eth->mdev)) {
		/* it may still write the buffers: they stay with it */
		mlx5sp_quarantine(eth->mdev, &rq->buf, &rq->db, "RQ", rq->rqn);
		netdev_err(eth->netdev, "RQ 0x%x not destroyed: its buffers are leaked\n",
			   rq->rqn);
		kvfree(rq->bufs);
		rq->bufs = NULL;
		return;
	}
	mlx5sp_eth_rq_free_all(eth);
	rq_free_mem(eth);
}

/* Open and stop, eth->lock held */

static void eth_close_locked(struct mlx5sp_eth *eth)
{
	struct net_device *netdev = eth->netdev;

	if (!eth->opened)
		return;
	eth->opened = false;
	set_port_admin(eth->mdev, false);
	update_carrier(eth);
	netif_tx_disable(netdev);
	clear_rx_mode(eth);
	destroy_tir(eth);
	napi_disable(&eth->napi);
	destroy_sq(eth);
	destroy_rq(eth);
	destroy_cq(eth, &eth->tx_cq);
	destroy_cq(eth, &eth->rx_cq);
	netdev_tx_reset_queue(netdev_get_tx_queue(netdev, 0));
}

static int eth_open_locked(struct mlx5sp_eth *eth)
{
	struct net_device *netdev = eth->netdev;
	int err;

	if (mlx5sp_dev_dead(eth->mdev))
		return -ENOLINK;
	err = create_cq(eth, &eth->tx_cq, MLX5SP_ETH_LOG_SQ_SZ);
	if (err)
		return err;
	err = create_cq(eth, &eth->rx_cq, MLX5SP_ETH_LOG_RQ_SZ);
	if (err)
		goto err_destroy_tx_cq;
	err = create_rq(eth);
	if (err)
		goto err_destroy_rq;
	err = create_sq(eth);
	if (err)
		goto err_destroy_sq;
	err = create_tir(eth);
	if (err)
		goto err_destroy_sq;
	napi_enable(&eth->napi);
	/* a first poll: it takes what came before, then arms both CQs */
	local_bh_disable();
	napi_schedule(&eth->napi);
	local_bh_enable();
	eth->opened = true;
	apply_rx_mode(eth);
	netdev_tx_reset_queue(netdev_get_tx_queue(netdev, 0));
	netif_tx_start_all_queues(netdev);
	err = set_port_admin(eth->mdev, true);
	if (err)
		netdev_warn(netdev, "port admin status up failed: %d\n", err);
	update_carrier(eth);
	return 0;

err_destroy_sq:
	destroy_sq(eth);
err_destroy_rq:
	destroy_rq(eth);
	destroy_cq(eth, &eth->rx_cq);
err_destroy_tx_cq:
	destroy_cq(eth, &eth->tx_cq);
	return err;
}

static int eth_open(struct net_device *netdev)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	int err;

	mutex_lock(&eth->lock);
	err = eth_open_locked(eth);
	mutex_unlock(&eth->lock);
	return err;
}

static int eth_stop(struct net_device *netdev)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);

	mutex_lock(&eth->lock);
	eth_close_locked(eth);
	mutex_unlock(&eth->lock);
	return 0;
}

/* What the device wrote before the queue was reset: stale, skipped. */
static void drain_cq(struct mlx5sp_eth_cq *cq)
{
	u32 n;

	for (n = 0; n < cq->nent && mlx5sp_eth_next_cqe(cq); n++)
		cq->cons_index++;
	cq->db.db[0] = cpu_to_be32(cq->cons_index & 0xffffff);
}

/*
 * The SQ through RST back to RDY, its frames freed: from ERR, or from
 * RDY if the device said error while it kept the SQ there. NAPI and
 * xmit are off.
 */
static int recover_sq(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	int err;

	err = modify_sq(eth, MLX5_SQC_STATE_ERR, MLX5_SQC_STATE_RST);
	if (err)
		err = modify_sq(eth, MLX5_SQC_STATE_RDY, MLX5_SQC_STATE_RST);
	if (err)
		return err;
	/* the device is done with every WQE: all frames go */
	drain_cq(&eth->tx_cq);
	mlx5sp_eth_sq_free_all(eth);
	sq->pc = 0;
	sq->cc = 0;
	sq->dma_pc = 0;
	sq->dma_cc = 0;
	sq->db_pending = NULL;
	sq->db.db[MLX5_SND_DBR] = 0;
	netdev_tx_reset_queue(netdev_get_tx_queue(eth->netdev, 0));
	err = modify_sq(eth, MLX5_SQC_STATE_RST, MLX5_SQC_STATE_RDY);
	if (err)
		return err;
	WRITE_ONCE(sq->in_error, false);
	mlx5sp_eth_poll_inc(eth, ETH_TXC_RECOVER, 1);
	return 0;
}

/* The RQ likewise; its slots keep their buffers and are posted again. */
static int recover_rq(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	int err;

	err = modify_rq(eth, MLX5_RQC_STATE_ERR, MLX5_RQC_STATE_RST);
	if (err)
		err = modify_rq(eth, MLX5_RQC_STATE_RDY, MLX5_RQC_STATE_RST);
	if (err)
		return err;
	drain_cq(&eth->rx_cq);
	rq->pc = 0;
	rq->cc = 0;
	rq->db.db[MLX5_RCV_DBR] = 0;
	err = modify_rq(eth, MLX5_RQC_STATE_RST, MLX5_RQC_STATE_RDY);
	if (err)
		return err;
	err = mlx5sp_eth_rq_fill(eth, GFP_KERNEL);
	if (err)
		return err;
	WRITE_ONCE(rq->in_error, false);
	mlx5sp_eth_poll_inc(eth, ETH_RX_RECOVER, 1);
	return 0;
}

/*
 * A queue took an error CQE and went to error: bring it back through
 * RST, as mlx5e's TX and RX recovery do. A queue that cannot be brought
 * back stays in error until the interface goes down.
 */
void mlx5sp_eth_recover(struct work_struct *work)
{
	struct mlx5sp_eth *eth = container_of(work, struct mlx5sp_eth,
					      recover_work);
	bool sq_err, rq_err;
	int err;

	mutex_lock(&eth->lock);
	sq_err = READ_ONCE(eth->sq.in_error);
	rq_err = READ_ONCE(eth->rq.in_error);
	if (!eth->opened || (!sq_err && !rq_err)) {
		mutex_unlock(&eth->lock);
		return;
	}
	if (sq_err)
		netif_tx_disable(eth->netdev);
	napi_disable(&eth->napi);
	if (sq_err) {
		err = recover_sq(eth);
		if (err)
			netdev_err(eth->netdev, "SQ 0x%x stays in error: %d\n",
				   eth->sq.sqn, err);
	}
	if (rq_err) {
		err = recover_rq(eth);
		if (err)
			netdev_err(eth->netdev, "RQ 0x%x stays in error: %d\n",
				   eth->rq.rqn, err);
	}
	napi_enable(&eth->napi);
	/* a poll, which arms the CQs; its softirq runs at bh enable */
	local_bh_disable();
	napi_schedule(&eth->napi);
	local_bh_enable();
	if (sq_err && !READ_ONCE(eth->sq.in_error))
		netif_tx_wake_all_queues(eth->netdev);
	mutex_unlock(&eth->lock);
}

static int eth_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	unsigned int old = netdev->mtu;
	bool was_open;
	int err;

	mutex_lock(&eth->lock);
	was_open = eth->opened;
	/* the receive buffers are sized for the MTU: new ones */
	eth_close_locked(eth);
	err = set_port_mtu(eth, new_mtu);
	if (err) {
		netdev_err(netdev, "setting the port's MTU to %d failed: %d\n",
			   new_mtu, err);
		set_port_mtu(eth, old);
	} else {
		WRITE_ONCE(netdev->mtu, new_mtu);
	}
	if (was_open) {
		int oerr = eth_open_locked(eth);

		if (oerr)
			netdev_err(netdev, "reopening after the MTU change failed: %d\n",
				   oerr);
		err = err ?: oerr;
	}
	mutex_unlock(&eth->lock);
	return err;
}

static void eth_get_stats64(struct net_device *netdev,
			    struct rtnl_link_stats64 *s)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	u64 sq[ETH_SQ_NR], poll[ETH_POLL_NR];

	mlx5sp_eth_get_stats(eth, sq, poll);
	s->tx_packets = sq[ETH_SQ_PACKETS];
	s->tx_bytes = sq[ETH_SQ_BYTES];
	s->tx_dropped = sq[ETH_SQ_DROPPED];
	s->tx_errors = poll[ETH_TXC_CQE_ERR];
	s->rx_packets = poll[ETH_RX_PACKETS];
	s->rx_bytes = poll[ETH_RX_BYTES];
	s->rx_dropped = poll[ETH_RX_DROPPED];
	s->rx_errors = poll[ETH_RX_CQE_ERR] + poll[ETH_RX_CQE_BAD];
}

/* The counters, each read consistent (any context). */
void mlx5sp_eth_get_stats(struct mlx5sp_eth *eth, u64 *sq, u64 *poll)
{
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(&eth->sq.syncp);
		for (i = 0; i < ETH_SQ_NR; i++)
			sq[i] = u64_stats_read(&eth->sq.stats[i]);
	} while (u64_stats_fetch_retry(&eth->sq.syncp, start));
	do {
		start = u64_stats_fetch_begin(&eth->poll_syncp);
		for (i = 0; i < ETH_POLL_NR; i++)
			poll[i] = u64_stats_read(&eth->poll_stats[i]);
	} while (u64_stats_fetch_retry(&eth->poll_syncp, start));
}

static const struct net_device_ops eth_netdev_ops = {
	.ndo_open = eth_open,
	.ndo_stop = eth_stop,
	.ndo_start_xmit = mlx5sp_eth_xmit,
	.ndo_set_rx_mode = eth_set_rx_mode,
	.ndo_set_mac_address = eth_set_mac,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_change_mtu = eth_change_mtu,
	.ndo_get_stats64 = eth_get_stats64,
};

static void setup_netdev(struct mlx5sp_eth *eth, const u8 *mac)
{
	struct net_device *netdev = eth->netdev;
	netdev_features_t f = 0;

	SET_NETDEV_DEV(netdev, eth->mdev->dma_dev);
	netdev->netdev_ops = &eth_netdev_ops;
	netdev->ethtool_ops = &mlx5sp_eth_ethtool_ops;
	/* steering follows the address and the lists (rx_mode_work) */
	netdev->priv_flags |= IFF_UNICAST_FLT | IFF_LIVE_ADDR_CHANGE;
	if (ETH_CAP(eth->mdev, csum_cap))
		f = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
		    NETIF_F_RXCSUM;
	netdev->hw_features = f;
	netdev->features = f;
	netdev->vlan_features = f;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = MLX5SP_ETH_SW_MTU(eth->max_mtu);
	eth_hw_addr_set(netdev, mac);
}

static void destroy_objects(struct mlx5sp_eth *eth)
{
	destroy_steering(eth);
	destroy_mkey(eth);
	destroy_tis(eth);
	dealloc_td(eth);
	dealloc_pd(eth);
}

static int create_objects(struct mlx5sp_eth *eth)
{
	int err;

	err = alloc_pd(eth);
	if (err)
		return err;
	err = alloc_td(eth);
	if (err)
		goto err_dealloc_pd;
	err = create_tis(eth);
	if (err)
		goto err_dealloc_td;
	err = create_mkey(eth);
	if (err)
		goto err_destroy_tis;
	err = create_steering(eth);
	if (err)
		goto err_destroy_mkey;
	return 0;

err_destroy_mkey:
	destroy_mkey(eth);
err_destroy_tis:
	destroy_tis(eth);
err_dealloc_td:
	dealloc_td(eth);
err_dealloc_pd:
	dealloc_pd(eth);
	return err;
}

/* The port as the vport, the port's registers and the netdev find it. */
static int query_port(struct mlx5sp_eth *eth, u8 *mac)
{
	struct mlx5sp_dev *mdev = eth->mdev;
	u8 min_inline = 0;
	int err;

	err = query_vport(mdev, mac, &min_inline);
	eth->min_inline = min_inline;
	if (err)
		return err;
	if (!is_valid_ether_addr(mac)) {
		mlx5sp_warn(mdev, "NIC: the port's MAC %pM is not valid: a random one\n",
			    mac);
		eth_random_addr(mac);
	}
	if (ETH_CAP(mdev, wqe_inline_mode) == MLX5_CAP_INLINE_MODE_VPORT_CONTEXT &&
	    min_inline > MLX5_INLINE_MODE_L2) {
		mlx5sp_err(mdev, "NIC: the vport wants WQE inline mode %u, mlx5sp inlines L2\n",
			   min_inline);
		return -EOPNOTSUPP;
	}
	err = query_port_max_mtu(mdev, &eth->max_mtu);
	if (err)
		return err;
	eth->max_mtu = min_t(u16, eth->max_mtu, MLX5SP_ETH_MAX_HW_MTU);
	if (eth->max_mtu < MLX5SP_ETH_HW_MTU(ETH_DATA_LEN)) {
		mlx5sp_err(mdev, "NIC: the port's MTU of %u bytes is too small\n",
			   eth->max_mtu);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int eth_create(struct mlx5sp_dev *mdev)
{
	struct net_device *netdev;
	struct mlx5sp_eth *eth;
	u8 mac[ETH_ALEN];
	int err;

	err = check_caps(mdev);
	if (err)
		return err;
	netdev = alloc_etherdev(sizeof(*eth));
	if (!netdev)
		return -ENOMEM;
	eth = netdev_priv(netdev);
	eth->netdev = netdev;
	eth->mdev = mdev;
	mutex_init(&eth->lock);
	INIT_WORK(&eth->rx_mode_work, rx_mode_work);
	INIT_WORK(&eth->carrier_work, carrier_work);
	INIT_WORK(&eth->recover_work, mlx5sp_eth_recover);
	u64_stats_init(&eth->sq.syncp);
	u64_stats_init(&eth->poll_syncp);
	netif_napi_add(netdev, &eth->napi, mlx5sp_eth_napi_poll);
	netif_carrier_off(netdev);

	err = query_port(eth, mac);
	if (err)
		goto err_free_netdev;
	setup_netdev(eth, mac);
	err = create_objects(eth);
	if (err)
		goto err_free_netdev;
	/* down until the netdev opens, as mlx5e leaves it */
	set_port_admin(mdev, false);
	err = set_port_mtu(eth, netdev->mtu);
	if (err)
		goto err_destroy_objects;
	/* RoCE on the vport before the RDMA device comes (mlx5_core's order) */
	err = modify_vport(mdev, true, 1);
	if (err) {
		mlx5sp_err(mdev, "NIC: enabling RoCE on the vport failed: %d\n", err);
		goto err_destroy_objects;
	}
	err = register_netdev(netdev);
	if (err)
		goto err_disable_roce;
	eth->registered = true;
	spin_lock_irq(&mdev->event_lock);
	mdev->eth = eth;
	spin_unlock_irq(&mdev->event_lock);
	/* the link may have come before we listened */
	queue_work(system_wq, &eth->carrier_work);
	mlx5sp_info(mdev, "NIC %s, MAC %pM, port MTU up to %u\n",
		    netdev_name(netdev), netdev->dev_addr, eth->max_mtu);
	return 0;

err_disable_roce:
	modify_vport(mdev, true, 0);
err_destroy_objects:
	destroy_objects(eth);
err_free_netdev:
	netif_napi_del(&eth->napi);
	mutex_destroy(&eth->lock);
	free_netdev(netdev);
	return err;
}

/**
 * mlx5sp_eth_destroy - the port's NIC goes (after the RDMA device)
 * @mdev: the core device; nothing happens without a NIC
 *
 * Process context, not under RTNL.
 */
void mlx5sp_eth_destroy(struct mlx5sp_dev *mdev)
{
	struct mlx5sp_eth *eth = mdev->eth;
	struct net_device *netdev;

	if (!eth)
		return;
	netdev = eth->netdev;
	spin_lock_irq(&mdev->event_lock);
	mdev->eth = NULL;
	spin_unlock_irq(&mdev->event_lock);
	unregister_netdev(netdev);
	cancel_work_sync(&eth->rx_mode_work);
	cancel_work_sync(&eth->carrier_work);
	cancel_work_sync(&eth->recover_work);
	modify_vport(mdev, true, 0);
	destroy_objects(eth);
	netif_napi_del(&eth->napi);
	mutex_destroy(&eth->lock);
	free_netdev(netdev);
}

/**
 * mlx5sp_port_add - the port of a core device that is up: NIC and RDMA
 * @mdev: the core device; mdev->release must be set and destroy the NIC
 * @bus_netdev: the netdev the bus has for the port (a model device's),
 *		or NULL
 *
 * Without a netdev of the bus's and with the gate's capabilities the
 * device gets its NIC, registered before the RDMA device whose port 1 it
 * is. On failure mdev->release() has been called, as by mlx5sp_ib_add().
 */
int mlx5sp_port_add(struct mlx5sp_dev *mdev, struct net_device *bus_netdev)
{
	int err;

	if (bus_netdev || !mlx5sp_eth_gate(mdev))
		return mlx5sp_ib_add(mdev, bus_netdev);
	err = eth_create(mdev);
	if (err) {
		mlx5sp_err(mdev, "creating the port's NIC failed: %d\n", err);
		mdev->release(mdev);
		return err;
	}
	return mlx5sp_ib_add(mdev, mdev->eth->netdev);
}
