// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The physical Ethernet port of the software ConnectX: its cable (a
 * netdev of the host, held, hooked by the wire, net.c), the link state
 * (oper up iff PAOS admin up, the cable running and with carrier) and
 * the PORT_CHANGE events it raises (roce.c), the registers the driver
 * reads and sets it by (ACCESS_REG: PAOS, PMTU, PTYS), the NIC vport's
 * fields (MODIFY_NIC_VPORT_CONTEXT: roce_en, mtu), its counters, and the
 * Ethernet frame helpers of the NIC's data path (checksums).
 */

#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/port.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <kunit/visibility.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>

#include "engine.h"
#include "port.h"
#include "roce.h"
#include "sim.h"
#include "syndromes.h"
#include "wire.h"

#define SIM_PORT_LINK_MODE	MLX5E_PROT_MASK(MLX5E_100GBASE_CR4)
#define SIM_REG_READ		1	/* ACCESS_REG op_mod; 0 writes */

/*
 * A port made with @cable (or none: no port). The port's MAC is locally
 * administered and derived from the device's name, so a device made
 * again under its name has it again. At creation, before anything runs.
 */
void sim_port_init(struct mlx5sp_sim *sim, struct net_device *cable)
{
	struct sim_eth_port *port = &sim->port;
	u32 h;

	spin_lock_init(&port->state_lock);
	xa_init(&port->sqs);
	xa_init(&port->rqs);
	sim_pollset_init(&port->poll_sqs);
	if (!cable)
		return;
	port->cabled = true;
	strscpy(port->cable_name, netdev_name(cable), sizeof(port->cable_name));
	netdev_hold(cable, &port->cable_tracker, GFP_KERNEL);
	RCU_INIT_POINTER(port->cable, cable);
	/*
	 * The port's own MAC, as a card's burned-in one: of the device's
	 * name and of its cable's address at creation, so that two hosts,
	 * each with an "sp0", on the two ends of one link have two
	 */
	h = jhash(cable->dev_addr, ETH_ALEN,
		  jhash(sim->name, strlen(sim->name), 0x5b));
	port->mac[0] = 0x02;		/* locally administered, unicast */
	port->mac[1] = 0x5b;
	put_unaligned_be32(h, &port->mac[2]);
	sim_port_reset(sim);
}

/* The device goes: its cable was let go (sim_net_stop()) before. */
void sim_port_free(struct mlx5sp_sim *sim)
{
	struct sim_eth_port *port = &sim->port;
	struct net_device *nd = rcu_dereference_protected(port->cable, true);

	/* a device whose wire never started */
	if (nd) {
		RCU_INIT_POINTER(port->cable, NULL);
		netdev_put(nd, &port->cable_tracker);
	}
	sim_pollset_destroy(&port->poll_sqs);
	xa_destroy(&port->sqs);
	xa_destroy(&port->rqs);
}

/* The cable while it is there: under RCU or RTNL. */
struct net_device *sim_port_cable(struct mlx5sp_sim *sim)
{
	return rcu_dereference_check(sim->port.cable,
				     rcu_read_lock_any_held() ||
				     lockdep_rtnl_is_held());
}

static bool sim_port_compute_up(struct mlx5sp_sim *sim)
{
	struct net_device *nd;
	bool up;

	if (READ_ONCE(sim->port.admin_status) != MLX5_PORT_UP)
		return false;
	rcu_read_lock();
	nd = sim_port_cable(sim);
	up = nd && netif_running(nd) && netif_carrier_ok(nd);
	rcu_read_unlock();
	return up;
}

/* What a freshly initialized port has. fw_lock, or before anything runs. */
void sim_port_reset(struct mlx5sp_sim *sim)
{
	struct sim_eth_port *port = &sim->port;

	if (!port->cabled)
		return;
	WRITE_ONCE(port->admin_status, MLX5_PORT_UP);
	WRITE_ONCE(port->admin_mtu, SIM_DEFAULT_MTU + SIM_HW_MTU_EXTRA);
	port->eth_proto_admin = SIM_PORT_LINK_MODE;
	port->vport_mtu = SIM_DEFAULT_MTU + SIM_HW_MTU_EXTRA;
	WRITE_ONCE(port->roce_en, false);
	/* no event: the function is not initialized (any more) */
	spin_lock_bh(&port->state_lock);
	WRITE_ONCE(port->oper_up, sim_port_compute_up(sim));
	spin_unlock_bh(&port->state_lock);
}

/*
 * The link state again, after anything it depends on changed: a change
 * is a PORT_CHANGE event (ACTIVE or DOWN, port 1) to the EQs subscribed,
 * once the HCA is initialized. Any context but hard interrupts.
 */
void sim_port_update(struct mlx5sp_sim *sim)
{
	struct sim_eth_port *port = &sim->port;
	bool up;

	if (!port->cabled)
		return;
	spin_lock_bh(&port->state_lock);
	up = sim_port_compute_up(sim);
	if (up != port->oper_up) {
		WRITE_ONCE(port->oper_up, up);
		if (READ_ONCE(sim->state) == SIM_STATE_INITIALIZED)
			sim_port_event(sim, up ? MLX5_PORT_CHANGE_SUBTYPE_ACTIVE :
					       MLX5_PORT_CHANGE_SUBTYPE_DOWN);
	}
	spin_unlock_bh(&port->state_lock);
}

/*
 * Let the cable go (it is being unregistered, or the device destroyed):
 * the wire comes off it, no frame made for it remains, the reference
 * goes, and the port is down for good. Under RTNL; sleeps.
 */
void sim_port_cable_release(struct mlx5sp_sim *sim)
{
	struct sim_eth_port *port = &sim->port;
	struct net_device *nd;

	ASSERT_RTNL();
	nd = rtnl_dereference(port->cable);
	if (!nd)
		return;
	RCU_INIT_POINTER(port->cable, NULL);
	sim_net_cable_gone(sim, nd);
	netdev_put(nd, &port->cable_tracker);
	sim_port_update(sim);
}

/*
 * The device's netdev notifier (roce.c) on @nd, under RTNL: true if @nd
 * is the cable, whose state it follows.
 */
bool sim_port_netdev_event(struct mlx5sp_sim *sim, struct net_device *nd,
			   unsigned long event)
{
	if (!sim->port.cabled || rtnl_dereference(sim->port.cable) != nd)
		return false;
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sim_port_update(sim);
		break;
	case NETDEV_UNREGISTER:
		sim_err(sim, "cable %s unregistered: the port is down\n",
			netdev_name(nd));
		sim_port_cable_release(sim);
		break;
	default:
		break;
	}
	return true;
}

/* ---- ACCESS_REG ---- */

static int sim_reg_port(struct sim_cmd *c, u8 local_port)
{
	if (local_port != 1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_REG_BAD_PORT);
	return 0;
}

/* PAOS: admin_status (with ase), oper_status read only */
static int sim_reg_paos(struct sim_cmd *c, const void *in, void *out,
			bool write)
{
	struct sim_eth_port *port = &c->sim->port;
	u8 admin;
	int err;

	err = sim_reg_port(c, MLX5_GET(paos_reg, in, local_port));
	if (err)
		return err;
	if (MLX5_GET(paos_reg, in, swid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_REG_BAD_PORT);
	if (write && MLX5_GET(paos_reg, in, ase)) {
		admin = MLX5_GET(paos_reg, in, admin_status);
		if (admin != MLX5_PORT_UP && admin != MLX5_PORT_DOWN)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_PAOS_BAD_STATUS);
		WRITE_ONCE(port->admin_status, admin);
		sim_port_update(c->sim);
	}
	MLX5_SET(paos_reg, out, local_port, 1);
	MLX5_SET(paos_reg, out, admin_status, READ_ONCE(port->admin_status));
	MLX5_SET(paos_reg, out, oper_status, READ_ONCE(port->oper_up) ?
		 MLX5_PORT_UP : MLX5_PORT_DOWN);
	return 0;
}

/* PMTU: admin_mtu (hw bytes); max_mtu and oper_mtu read only */
static int sim_reg_pmtu(struct sim_cmd *c, const void *in, void *out,
			bool write)
{
	struct sim_eth_port *port = &c->sim->port;
	u32 mtu;
	int err;

	err = sim_reg_port(c, MLX5_GET(pmtu_reg, in, local_port));
	if (err)
		return err;
	if (write) {
		mtu = MLX5_GET(pmtu_reg, in, admin_mtu);
		if (mtu < SIM_PORT_MIN_MTU || mtu > SIM_PORT_MAX_MTU)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_PMTU_BAD_MTU);
		WRITE_ONCE(port->admin_mtu, mtu);
	}
	MLX5_SET(pmtu_reg, out, local_port, 1);
	MLX5_SET(pmtu_reg, out, max_mtu, SIM_PORT_MAX_MTU);
	MLX5_SET(pmtu_reg, out, admin_mtu, READ_ONCE(port->admin_mtu));
	MLX5_SET(pmtu_reg, out, oper_mtu, READ_ONCE(port->admin_mtu));
	return 0;
}

/* PTYS: Ethernet only, one 100G link mode; oper 0 while down */
static int sim_reg_ptys(struct sim_cmd *c, const void *in, void *out,
			bool write)
{
	struct sim_eth_port *port = &c->sim->port;
	u32 admin;
	int err;

	err = sim_reg_port(c, MLX5_GET(ptys_reg, in, local_port));
	if (err)
		return err;
	if (MLX5_GET(ptys_reg, in, proto_mask) != MLX5_PTYS_EN ||
	    MLX5_GET(ptys_reg, in, plane_ind))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_PTYS_BAD_PROTO);
	if (write) {
		admin = MLX5_GET(ptys_reg, in, eth_proto_admin);
		if (!admin || (admin & ~SIM_PORT_LINK_MODE) ||
		    MLX5_GET(ptys_reg, in, ext_eth_proto_admin))
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_PTYS_BAD_PROTO);
		port->eth_proto_admin = admin;
	}
	MLX5_SET(ptys_reg, out, local_port, 1);
	MLX5_SET(ptys_reg, out, proto_mask, MLX5_PTYS_EN);
	MLX5_SET(ptys_reg, out, an_disable_cap, 1);
	MLX5_SET(ptys_reg, out, eth_proto_capability, SIM_PORT_LINK_MODE);
	MLX5_SET(ptys_reg, out, eth_proto_admin, port->eth_proto_admin);
	MLX5_SET(ptys_reg, out, eth_proto_oper,
		 READ_ONCE(port->oper_up) ? SIM_PORT_LINK_MODE : 0);
	return 0;
}

struct sim_reg {
	u16 id;
	u32 size;			/* bytes of its layout */
	int (*fn)(struct sim_cmd *c, const void *in, void *out, bool write);
};

static const struct sim_reg sim_regs[] = {
	{ MLX5_REG_PAOS, MLX5_ST_SZ_BYTES(paos_reg), sim_reg_paos },
	{ MLX5_REG_PMTU, MLX5_ST_SZ_BYTES(pmtu_reg), sim_reg_pmtu },
	{ MLX5_REG_PTYS, MLX5_ST_SZ_BYTES(ptys_reg), sim_reg_ptys },
};

/*
 * ACCESS_REG: op_mod 0 writes, 1 reads; the register's data follows the
 * header in the input and is the output's (which must hold it).
 */
int sim_cmd_access_reg(struct sim_cmd *c)
{
	u32 hdr_in = MLX5_BYTE_OFF(access_register_in, register_data);
	u32 hdr_out = MLX5_BYTE_OFF(access_register_out, register_data);
	u16 id = MLX5_GET(access_register_in, c->in, register_id);
	const struct sim_reg *r = NULL;
	int i;

	if (c->op_mod > SIM_REG_READ)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_REG_BAD_OP);
	for (i = 0; i < ARRAY_SIZE(sim_regs); i++)
		if (sim_regs[i].id == id)
			r = &sim_regs[i];
	if (!r)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_REG_UNSUPPORTED);
	/* the link as it is now: a carrier change may not be told yet */
	sim_port_update(c->sim);
	if (c->inlen < hdr_in + r->size)
		return sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
				MLX5SP_SIM_SYND_REG_SHORT);
	if (c->outlen < hdr_out + r->size)
		return sim_fail(c, MLX5_CMD_STAT_BAD_OUTP_LEN_ERR,
				MLX5SP_SIM_SYND_REG_SHORT);
	return r->fn(c, c->in + hdr_in, c->out + hdr_out,
		     c->op_mod != SIM_REG_READ);
}

/* ---- the NIC vport ---- */

/* MODIFY_NIC_VPORT_CONTEXT: roce_en and mtu; other fields are refused */
int sim_cmd_modify_nic_vport_context(struct sim_cmd *c)
{
	const void *fs = MLX5_ADDR_OF(modify_nic_vport_context_in, c->in,
				      field_select);
	const void *ctx = MLX5_ADDR_OF(modify_nic_vport_context_in, c->in,
				       nic_vport_context);
	u32 sel[MLX5_ST_SZ_DW(modify_nic_vport_field_select)] = {};
	struct sim_eth_port *port = &c->sim->port;
	bool roce = MLX5_GET(modify_nic_vport_field_select, fs, roce_en);
	bool mtu = MLX5_GET(modify_nic_vport_field_select, fs, mtu);
	u32 val;

	if (MLX5_GET(modify_nic_vport_context_in, c->in, other_vport) ||
	    MLX5_GET(modify_nic_vport_context_in, c->in, vport_number))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_VPORT_OTHER);
	/* nothing selected but the two fields */
	memcpy(sel, fs, sizeof(sel));
	MLX5_SET(modify_nic_vport_field_select, sel, roce_en, 0);
	MLX5_SET(modify_nic_vport_field_select, sel, mtu, 0);
	if (memchr_inv(sel, 0, sizeof(sel)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_VPORT_BAD_FIELD);
	if (mtu) {
		val = MLX5_GET(nic_vport_context, ctx, mtu);
		if (val < SIM_PORT_MIN_MTU || val > SIM_PORT_MAX_MTU)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_VPORT_BAD_MTU);
		port->vport_mtu = val;
	}
	if (roce)
		WRITE_ONCE(port->roce_en,
			   MLX5_GET(nic_vport_context, ctx, roce_en));
	return 0;
}

/* ---- debugfs ---- */

void sim_port_show(struct seq_file *m, struct mlx5sp_sim *sim)
{
	struct sim_eth_port *port = &sim->port;
	struct sim_port_stats *st = &port->st;
	struct net_device *nd;
	bool running = false, carrier = false, present;

	if (!port->cabled) {
		seq_puts(m, "cable none\n");
		return;
	}
	rcu_read_lock();
	nd = sim_port_cable(sim);
	present = nd;
	if (nd) {
		running = netif_running(nd);
		carrier = netif_carrier_ok(nd);
	}
	rcu_read_unlock();
	seq_printf(m, "cable %s%s\n", port->cable_name,
		   present ? "" : " (gone)");
	seq_printf(m, "cable_running %d\n", running);
	seq_printf(m, "cable_carrier %d\n", carrier);
	seq_printf(m, "mac %pM\n", port->mac);
	seq_printf(m, "admin %s\n", READ_ONCE(port->admin_status) ==
		   MLX5_PORT_UP ? "up" : "down");
	seq_printf(m, "oper %s\n", READ_ONCE(port->oper_up) ? "up" : "down");
	seq_printf(m, "mtu %u\n", READ_ONCE(port->admin_mtu));
	seq_printf(m, "vport_mtu %u\n", READ_ONCE(port->vport_mtu));
	seq_printf(m, "roce_en %d\n", READ_ONCE(port->roce_en));
	seq_printf(m, "tx_frames %lld\n", atomic64_read(&st->tx_frames));
	seq_printf(m, "tx_bytes %lld\n", atomic64_read(&st->tx_bytes));
	seq_printf(m, "rx_frames %lld\n", atomic64_read(&st->rx_frames));
	seq_printf(m, "rx_bytes %lld\n", atomic64_read(&st->rx_bytes));
	seq_printf(m, "rx_roce %lld\n", atomic64_read(&st->rx_roce));
	seq_printf(m, "rx_no_root %lld\n", atomic64_read(&st->rx_no_root));
	seq_printf(m, "rx_no_match %lld\n", atomic64_read(&st->rx_no_match));
	seq_printf(m, "rx_out_of_buffer %lld\n",
		   atomic64_read(&st->rx_out_of_buffer));
	seq_printf(m, "rx_too_long %lld\n", atomic64_read(&st->rx_too_long));
	seq_printf(m, "rx_dropped %lld\n", atomic64_read(&st->rx_dropped));
	seq_printf(m, "tx_link_down_drops %lld\n",
		   atomic64_read(&st->tx_link_down_drops));
	seq_printf(m, "tx_dropped %lld\n", atomic64_read(&st->tx_dropped));
	seq_printf(m, "tx_err_cqes %lld\n", atomic64_read(&st->tx_err_cqes));
	seq_printf(m, "tx_flushed %lld\n", atomic64_read(&st->tx_flushed));
}

/* ---- Ethernet frames: headers and checksums ---- */

/*
 * The headers of @frame (@len bytes from its MAC header): one VLAN tag,
 * IPv4 (any options) or IPv6 (TCP or UDP right after the fixed header),
 * TCP or UDP unless a fragment. False if the frame is not even Ethernet.
 */
bool sim_eth_parse(const u8 *frame, u32 len, struct sim_eth_hdrs *h)
{
	const struct ipv6hdr *ip6;
	const struct iphdr *ip;
	u32 off = ETH_HLEN, l3len;

	memset(h, 0, sizeof(*h));
	if (len < ETH_HLEN)
		return false;
	h->proto = ((const struct ethhdr *)frame)->h_proto;
	if (eth_type_vlan(h->proto)) {
		if (len < VLAN_ETH_HLEN)
			return false;
		h->proto = ((const struct vlan_ethhdr *)frame)->h_vlan_encapsulated_proto;
		off = VLAN_ETH_HLEN;
	}
	if (h->proto == htons(ETH_P_IP) && len >= off + sizeof(*ip)) {
		ip = (const struct iphdr *)(frame + off);
		l3len = ip->ihl * 4;
		if (ip->version != 4 || l3len < sizeof(*ip) ||
		    ntohs(ip->tot_len) < l3len || off + ntohs(ip->tot_len) > len)
			return true;
		h->ipv = 4;
		h->l3_off = off;
		if (ip_is_fragment(ip))
			return true;
		h->l4_proto = ip->protocol;
		h->l4_len = ntohs(ip->tot_len) - l3len;
		off += l3len;
	} else if (h->proto == htons(ETH_P_IPV6) &&
		   len >= off + sizeof(*ip6)) {
		ip6 = (const struct ipv6hdr *)(frame + off);
		if (ip6->version != 6 ||
		    off + sizeof(*ip6) + ntohs(ip6->payload_len) > len)
			return true;
		h->ipv = 6;
		h->l3_off = off;
		h->l4_proto = ip6->nexthdr;
		h->l4_len = ntohs(ip6->payload_len);
		off += sizeof(*ip6);
	} else {
		return true;
	}
	if ((h->l4_proto == IPPROTO_TCP && h->l4_len >= sizeof(struct tcphdr)) ||
	    (h->l4_proto == IPPROTO_UDP && h->l4_len >= sizeof(struct udphdr)))
		h->l4_off = off;
	else
		h->l4_proto = 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sim_eth_parse);

static __sum16 sim_eth_l4_sum(const u8 *frame, const struct sim_eth_hdrs *h)
{
	const u8 *l3 = frame + h->l3_off;
	__wsum sum = csum_partial(frame + h->l4_off, h->l4_len, 0);

	if (h->ipv == 4)
		return csum_tcpudp_magic(((const struct iphdr *)l3)->saddr,
					 ((const struct iphdr *)l3)->daddr,
					 h->l4_len, h->l4_proto, sum);
	return csum_ipv6_magic(&((const struct ipv6hdr *)l3)->saddr,
			       &((const struct ipv6hdr *)l3)->daddr,
			       h->l4_len, h->l4_proto, sum);
}

static __sum16 *sim_eth_l4_check(u8 *frame, const struct sim_eth_hdrs *h)
{
	u8 *l4 = frame + h->l4_off;

	if (h->l4_proto == IPPROTO_TCP)
		return &((struct tcphdr *)l4)->check;
	return &((struct udphdr *)l4)->check;
}

/* The checksums a send WQE's cs_flags ask for (@l3: IPv4 header). */
void sim_eth_csum_fill(u8 *frame, const struct sim_eth_hdrs *h, bool l3,
		       bool l4)
{
	struct iphdr *ip;
	__sum16 *check, sum;

	if (l3 && h->ipv == 4) {
		ip = (struct iphdr *)(frame + h->l3_off);
		ip->check = 0;
		ip->check = ip_fast_csum(ip, ip->ihl);
	}
	if (!l4 || !h->l4_off)
		return;
	check = sim_eth_l4_check(frame, h);
	*check = 0;
	sum = sim_eth_l4_sum(frame, h);
	/* UDP sends a computed 0 as all ones: 0 is "no checksum" */
	if (!sum && h->l4_proto == IPPROTO_UDP)
		sum = CSUM_MANGLED_0;
	*check = sum;
}
EXPORT_SYMBOL_IF_KUNIT(sim_eth_csum_fill);

/*
 * What a receive CQE's hds_ip_ext says of @frame: CQE_L3_OK when the IPv4
 * header checksum holds, CQE_L4_OK when the TCP or UDP one does (a UDP
 * datagram without one over IPv4 is not checked).
 */
u8 sim_eth_csum_ok(const u8 *frame, const struct sim_eth_hdrs *h)
{
	const struct iphdr *ip;
	u8 ok = 0;

	if (h->ipv == 4) {
		ip = (const struct iphdr *)(frame + h->l3_off);
		if (!ip_fast_csum(ip, ip->ihl))
			ok |= CQE_L3_OK;
	}
	if (!h->l4_off)
		return ok;
	if (h->l4_proto == IPPROTO_UDP && h->ipv == 4 &&
	    !*sim_eth_l4_check((u8 *)frame, h))
		return ok;
	if (!sim_eth_l4_sum(frame, h))
		ok |= CQE_L4_OK;
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(sim_eth_csum_ok);
