// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCE of the software ConnectX: the port's GID table as the driver
 * programs it (SET/QUERY_ROCE_ADDRESS), the NIC vport (state, MAC, MTU,
 * GUIDs), transport domains, and port change events that follow the
 * netdev the device was created on.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>

#include "eq.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "port.h"
#include "roce.h"
#include "sim.h"
#include "syndromes.h"
#include "wire.h"

#define SIM_VPORT_ADMIN_UP	1

static bool sim_roce_enabled(struct mlx5sp_sim *sim)
{
	return !(sim->params.missing_caps & MLX5SP_SIM_NO_ROCE);
}

/* vhca_port_num 0 means the function's only port. */
static int sim_roce_port(struct sim_cmd *c, u8 vhca_port, u8 *port)
{
	*port = vhca_port ?: 1;
	if (*port > SIM_NUM_PORTS)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_ROCE_BAD_PORT);
	return 0;
}

int sim_cmd_set_roce_address(struct sim_cmd *c)
{
	const void *ra = MLX5_ADDR_OF(set_roce_address_in, c->in, roce_address);
	u32 index = MLX5_GET(set_roce_address_in, c->in, roce_address_index);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_gid gid = {};
	u8 port;
	int err;

	if (!sim_roce_enabled(sim))
		return sim_fail(c, MLX5_CMD_STAT_BAD_OP_ERR,
				MLX5SP_SIM_SYND_ROCE_DISABLED);
	if (index >= SIM_GID_TABLE_SIZE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_ROCE_BAD_INDEX);
	err = sim_roce_port(c, MLX5_GET(set_roce_address_in, c->in,
					vhca_port_num), &port);
	if (err)
		return err;

	memcpy(gid.gid, MLX5_ADDR_OF(roce_addr_layout, ra, source_l3_address),
	       sizeof(gid.gid));
	gid.version = MLX5_GET(roce_addr_layout, ra, roce_version);
	gid.l3_type = MLX5_GET(roce_addr_layout, ra, roce_l3_type);
	if ((gid.version != MLX5_ROCE_VERSION_1 &&
	     gid.version != MLX5_ROCE_VERSION_2) ||
	    (gid.l3_type != MLX5_ROCE_L3_TYPE_IPV4 &&
	     gid.l3_type != MLX5_ROCE_L3_TYPE_IPV6))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_ROCE_BAD_TYPE);
	gid.vlan_valid = MLX5_GET(roce_addr_layout, ra, vlan_valid);
	gid.vlan_id = MLX5_GET(roce_addr_layout, ra, vlan_id);
	/* source_mac_47_32 and source_mac_31_0 are the 6 bytes in order */
	memcpy(gid.mac, MLX5_ADDR_OF(roce_addr_layout, ra, source_mac_47_32),
	       ETH_ALEN);
	/* an all-zero entry is how the driver deletes a GID */
	gid.valid = !!memchr_inv(gid.gid, 0, sizeof(gid.gid));

	spin_lock_bh(&sim->roce.gid_lock);
	sim->roce.ports[port - 1].gids[index] = gid;
	spin_unlock_bh(&sim->roce.gid_lock);
	sim_fabric_changed();
	return 0;
}

int sim_cmd_query_roce_address(struct sim_cmd *c)
{
	void *ra = MLX5_ADDR_OF(query_roce_address_out, c->out, roce_address);
	u32 index = MLX5_GET(query_roce_address_in, c->in, roce_address_index);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_gid gid;
	u8 port;
	int err;

	if (index >= SIM_GID_TABLE_SIZE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_ROCE_BAD_INDEX);
	err = sim_roce_port(c, MLX5_GET(query_roce_address_in, c->in,
					vhca_port_num), &port);
	if (err)
		return err;
	spin_lock_bh(&sim->roce.gid_lock);
	gid = sim->roce.ports[port - 1].gids[index];
	spin_unlock_bh(&sim->roce.gid_lock);
	if (!gid.valid)
		return 0;

	memcpy(MLX5_ADDR_OF(roce_addr_layout, ra, source_l3_address), gid.gid,
	       sizeof(gid.gid));
	MLX5_SET(roce_addr_layout, ra, vlan_valid, gid.vlan_valid);
	MLX5_SET(roce_addr_layout, ra, vlan_id, gid.vlan_id);
	memcpy(MLX5_ADDR_OF(roce_addr_layout, ra, source_mac_47_32), gid.mac,
	       ETH_ALEN);
	MLX5_SET(roce_addr_layout, ra, roce_l3_type, gid.l3_type);
	MLX5_SET(roce_addr_layout, ra, roce_version, gid.version);
	return 0;
}

void sim_roce_reset(struct mlx5sp_sim *sim)
{
	spin_lock_bh(&sim->roce.gid_lock);
	memset(sim->roce.ports, 0, sizeof(sim->roce.ports));
	spin_unlock_bh(&sim->roce.gid_lock);
	sim_fabric_changed();
	xa_destroy(&sim->tds);
}

bool sim_port_active(struct mlx5sp_sim *sim)
{
	struct net_device *nd = sim->mdev.netdev;

	/* a cabled port: PAOS and the cable as they are now (port.c) */
	if (sim->port.cabled) {
		sim_port_update(sim);
		return READ_ONCE(sim->port.oper_up);
	}
	/* without a netdev the port is always up */
	return !nd || (netif_running(nd) && netif_carrier_ok(nd));
}

static int sim_check_vport(struct sim_cmd *c, bool other, u16 vport)
{
	if (other || vport)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_VPORT_OTHER);
	return 0;
}

int sim_cmd_query_vport_state(struct sim_cmd *c)
{
	int err;

	if (c->op_mod != MLX5_VPORT_STATE_OP_MOD_VNIC_VPORT &&
	    c->op_mod != MLX5_VPORT_STATE_OP_MOD_UPLINK)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_BAD_OP_MOD);
	err = sim_check_vport(c, MLX5_GET(query_vport_state_in, c->in,
					  other_vport),
			      MLX5_GET(query_vport_state_in, c->in,
				       vport_number));
	if (err)
		return err;
	MLX5_SET(query_vport_state_out, c->out, admin_state,
		 SIM_VPORT_ADMIN_UP);
	MLX5_SET(query_vport_state_out, c->out, state,
		 sim_port_active(c->sim) ? MLX5_QUERY_VPORT_STATE_OUT_STATE_UP :
		 MLX5_QUERY_VPORT_STATE_OUT_STATE_DOWN);
	return 0;
}

/* The port's MAC: the netdev's, or a fixed locally administered one. */
static void sim_port_mac(struct mlx5sp_sim *sim, u8 *mac)
{
	struct net_device *nd = sim->mdev.netdev;

	if (sim->port.cabled) {
		ether_addr_copy(mac, sim->port.mac);
		return;
	}
	if (nd) {
		memcpy(mac, nd->dev_addr, ETH_ALEN);
		return;
	}
	mac[0] = 0x02;
	mac[1] = 0x5b;
	mac[2] = 0x00;
	mac[3] = 0x00;
	mac[4] = sim->pdev_id >> 8;
	mac[5] = sim->pdev_id;
}

static u64 sim_port_guid(const u8 *mac)
{
	u8 eui[8];

	eui[0] = mac[0] ^ 2;
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = mac[3];
	eui[6] = mac[4];
	eui[7] = mac[5];
	return get_unaligned_be64(eui);
}

int sim_cmd_query_nic_vport_context(struct sim_cmd *c)
{
	void *ctx = MLX5_ADDR_OF(query_nic_vport_context_out, c->out,
				 nic_vport_context);
	struct mlx5sp_sim *sim = c->sim;
	struct net_device *nd = sim->mdev.netdev;
	u8 mac[ETH_ALEN], *addr;
	u64 guid;
	int err;

	err = sim_check_vport(c, MLX5_GET(query_nic_vport_context_in, c->in,
					  other_vport),
			      MLX5_GET(query_nic_vport_context_in, c->in,
				       vport_number));
	if (err)
		return err;
	sim_port_mac(sim, mac);
	guid = sim_port_guid(mac);
	if (sim->port.cabled) {
		/* the NIC vport's own, as MODIFY_NIC_VPORT_CONTEXT set them */
		MLX5_SET(nic_vport_context, ctx, roce_en,
			 READ_ONCE(sim->port.roce_en));
		MLX5_SET(nic_vport_context, ctx, mtu, sim->port.vport_mtu);
	} else {
		MLX5_SET(nic_vport_context, ctx, roce_en,
			 sim_roce_enabled(sim));
		MLX5_SET(nic_vport_context, ctx, mtu,
			 (nd ? READ_ONCE(nd->mtu) : SIM_DEFAULT_MTU) +
			 SIM_HW_MTU_EXTRA);
	}
	MLX5_SET64(nic_vport_context, ctx, system_image_guid, guid);
	MLX5_SET64(nic_vport_context, ctx, port_guid, guid);
	MLX5_SET64(nic_vport_context, ctx, node_guid, guid);
	addr = MLX5_ADDR_OF(nic_vport_context, ctx, permanent_address);
	memcpy(addr + 2, mac, ETH_ALEN);
	return 0;
}

int sim_cmd_alloc_transport_domain(struct sim_cmd *c)
{
	u32 td;
	int err;

	err = xa_alloc(&c->sim->tds, &td, xa_mk_value(0),
		       XA_LIMIT(1, BIT(24) - 1), GFP_KERNEL);
	if (err)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				err == -EBUSY ? MLX5SP_SIM_SYND_TD_EXHAUSTED :
						MLX5SP_SIM_SYND_NO_MEMORY);
	MLX5_SET(alloc_transport_domain_out, c->out, transport_domain, td);
	return 0;
}

int sim_cmd_dealloc_transport_domain(struct sim_cmd *c)
{
	u32 td = MLX5_GET(dealloc_transport_domain_in, c->in,
			  transport_domain);

	if (!xa_erase(&c->sim->tds, td))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_TD_NOT_FOUND);
	return 0;
}

/* A PORT_CHANGE event of port 1 (the netdev's, or the cable's: port.c) */
void sim_port_event(struct mlx5sp_sim *sim, u8 sub_type)
{
	union ev_data data = {};

	/* the port number sits in the high nibble */
	data.port.port = 1 << 4;
	sim_eq_post(sim, MLX5_EVENT_TYPE_PORT_CHANGE, sub_type, &data);
}

static int sim_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct mlx5sp_sim *sim = container_of(nb, struct mlx5sp_sim,
					      roce.netdev_nb);
	struct net_device *nd = netdev_notifier_info_to_dev(ptr);

	/* the cable of a cabled port (port.c) */
	if (!READ_ONCE(sim->destroying) && sim_port_netdev_event(sim, nd, event))
		return NOTIFY_DONE;
	/* a VLAN netdev on ours: the wire's receive hook on it (net.c) */
	if (sim->mdev.netdev && is_vlan_dev(nd) &&
	    vlan_dev_real_dev(nd) == sim->mdev.netdev) {
		if (event == NETDEV_REGISTER && !READ_ONCE(sim->destroying))
			sim_net_vlan_add(sim, nd);
		else if (event == NETDEV_UNREGISTER)
			sim_net_vlan_del(sim, nd);
		return NOTIFY_DONE;
	}
	/* unregistering the notifier replays DOWN and UNREGISTER: ignore */
	if (nd != sim->mdev.netdev || READ_ONCE(sim->destroying))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		if (READ_ONCE(sim->state) != SIM_STATE_INITIALIZED)
			break;
		sim_port_event(sim, sim_port_active(sim) ?
				    MLX5_PORT_CHANGE_SUBTYPE_ACTIVE :
				    MLX5_PORT_CHANGE_SUBTYPE_DOWN);
		break;
	case NETDEV_UNREGISTER:
		/* our reference holds the netdev: let go of the device */
		queue_work(sim_release_wq, &sim->release_work);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

int sim_netdev_watch(struct mlx5sp_sim *sim)
{
	int err;

	if (!sim->mdev.netdev && !sim->port.cabled)
		return 0;
	sim->roce.netdev_nb.notifier_call = sim_netdev_event;
	err = register_netdevice_notifier(&sim->roce.netdev_nb);
	if (!err)
		sim->roce.netdev_nb_registered = true;
	return err;
}

void sim_netdev_unwatch(struct mlx5sp_sim *sim)
{
	if (!sim->roce.netdev_nb_registered)
		return;
	unregister_netdevice_notifier(&sim->roce.netdev_nb);
	sim->roce.netdev_nb_registered = false;
}
