// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for the physical Ethernet port of the software ConnectX
 * (sim/port.c, steer.c, eth_sq.c, eth_rq.c): the logic without a device
 * (steering match, send WQE parsing, frame headers and checksums), and a
 * cabled device with the driver attached, its cable a test netdev whose
 * transmit keeps the frames: the gate (caps, commands of uncabled
 * devices), the port's registers and link state, the steering objects'
 * rules, a frame sent from an SQ and one received into an RQ.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mlx5/driver.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/udp.h>

#include "ib.h"
#include "sim/eth_wq.h"
#include "sim/mlx5sp_sim.h"
#include "sim/port.h"
#include "sim/sim.h"
#include "sim/steer.h"
#include "sim/syndromes.h"

/* ---- suite: logic, no device -------------------------------------------- */

static void port_steer_match(struct kunit *test)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x5b, 1, 2, 3, 4 };
	static const u8 other[ETH_ALEN] = { 0x02, 0x5b, 1, 2, 3, 5 };
	static const u8 mcast[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0, 0, 1 };
	struct sim_fg all = { .mce = 0 };
	struct sim_fg exact = { .mce = MLX5_MATCH_OUTER_HEADERS };
	struct sim_fg mc = { .mce = MLX5_MATCH_OUTER_HEADERS };
	struct sim_fte fte = {};

	/* no criteria: every frame */
	KUNIT_EXPECT_TRUE(test, sim_steer_match(&all, &fte, other,
						htons(ETH_P_ARP)));
	memset(exact.dmac_mask, 0xff, ETH_ALEN);
	ether_addr_copy(fte.dmac, mac);
	KUNIT_EXPECT_TRUE(test, sim_steer_match(&exact, &fte, mac,
						htons(ETH_P_IP)));
	KUNIT_EXPECT_FALSE(test, sim_steer_match(&exact, &fte, other,
						 htons(ETH_P_IP)));
	/* and an ethertype */
	exact.etype_mask = htons(0xffff);
	fte.etype = htons(ETH_P_IPV6);
	KUNIT_EXPECT_FALSE(test, sim_steer_match(&exact, &fte, mac,
						 htons(ETH_P_IP)));
	KUNIT_EXPECT_TRUE(test, sim_steer_match(&exact, &fte, mac,
						htons(ETH_P_IPV6)));
	/* the multicast bit alone */
	mc.dmac_mask[0] = 0x01;
	memset(fte.dmac, 0, ETH_ALEN);
	fte.dmac[0] = 0x01;
	fte.etype = 0;
	KUNIT_EXPECT_TRUE(test, sim_steer_match(&mc, &fte, mcast,
						htons(ETH_P_IP)));
	KUNIT_EXPECT_FALSE(test, sim_steer_match(&mc, &fte, mac,
						 htons(ETH_P_IP)));
}

/* A SEND WQE of @ihs inline header bytes and @nseg data segments. */
static u32 put_send_wqe(u8 *wqe, u32 sqn, u16 idx, u16 ihs, u8 nseg,
			u8 cs_flags)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_eth_seg *eth = (void *)(wqe + sizeof(*ctrl));
	u32 off = sizeof(*ctrl) + sizeof(*eth) +
		  ALIGN(ihs - SIM_ETH_INL_START, MLX5_SEND_WQE_DS);
	u32 ds = off / MLX5_SEND_WQE_DS + nseg;

	memset(wqe, 0, SIM_ETH_WQE_MAX);
	ctrl->opmod_idx_opcode = cpu_to_be32((u32)idx << 8 | MLX5_OPCODE_SEND);
	ctrl->qpn_ds = cpu_to_be32(sqn << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	eth->cs_flags = cs_flags;
	eth->inline_hdr.sz = cpu_to_be16(ihs);
	return off;
}

static void port_wqe_parse(struct kunit *test)
{
	u8 *wqe = kunit_kzalloc(test, SIM_ETH_WQE_MAX, GFP_KERNEL);
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_eth_seg *eth = (void *)(wqe + sizeof(*ctrl));
	struct sim_eth_wqe w;
	u32 off;

	KUNIT_ASSERT_NOT_NULL(test, wqe);
	/* the Ethernet header inline: it ends in the eth seg's next 16 bytes */
	off = put_send_wqe(wqe, 0x41, 7, ETH_HLEN, 1, 0);
	KUNIT_EXPECT_EQ(test, off, 48);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w), 0);
	KUNIT_EXPECT_EQ(test, w.ds, 4);
	KUNIT_EXPECT_EQ(test, w.nbb, 1);
	KUNIT_EXPECT_EQ(test, w.ihs, ETH_HLEN);
	KUNIT_EXPECT_EQ(test, w.nseg, 1);
	KUNIT_EXPECT_EQ(test, w.qpn, 0x41);
	KUNIT_EXPECT_TRUE(test, w.signaled);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)w.seg, wqe + off);
	KUNIT_EXPECT_PTR_EQ(test, w.inl, (const u8 *)eth->inline_hdr.data);
	/* 18 bytes (a VLAN tag) still fit there; 34 take one more segment */
	KUNIT_EXPECT_EQ(test, put_send_wqe(wqe, 0x41, 0, VLAN_ETH_HLEN, 2, 0),
			48);
	KUNIT_EXPECT_EQ(test, put_send_wqe(wqe, 0x41, 0, 34, 4, 0), 64);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 128, &w), 0);
	KUNIT_EXPECT_EQ(test, w.ds, 8);
	KUNIT_EXPECT_EQ(test, w.nbb, 2);
	KUNIT_EXPECT_EQ(test, w.nseg, 4);
	/* ... posted only in part: beyond the WQE */
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	KUNIT_EXPECT_EQ(test, w.nbb, 2);

	/* inline header shorter than Ethernet's */
	put_send_wqe(wqe, 0x41, 0, ETH_HLEN - 1, 1, 0);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	/* inline header running past ds */
	put_send_wqe(wqe, 0x41, 0, 34, 0, 0);
	ctrl->qpn_ds = cpu_to_be32(0x41 << 8 | 3);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	/* no segments at all */
	ctrl->qpn_ds = cpu_to_be32(0x41 << 8);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	KUNIT_EXPECT_EQ(test, w.nbb, 1);
	/* LSO, inner checksums, an opcode of RDMA: not the NIC's */
	put_send_wqe(wqe, 0x41, 0, ETH_HLEN, 1, 0);
	eth->mss = cpu_to_be16(1448);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	put_send_wqe(wqe, 0x41, 0, ETH_HLEN, 1, MLX5_ETH_WQE_L3_INNER_CSUM);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	put_send_wqe(wqe, 0x41, 0, ETH_HLEN, 1, 0);
	ctrl->opmod_idx_opcode = cpu_to_be32(MLX5_OPCODE_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w),
			MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	/* a NOP: a segment, nothing else */
	ctrl->opmod_idx_opcode = cpu_to_be32(MLX5_OPCODE_NOP);
	ctrl->qpn_ds = cpu_to_be32(0x41 << 8 | 1);
	KUNIT_EXPECT_EQ(test, sim_eth_wqe_parse(wqe, 64, &w), 0);
	KUNIT_EXPECT_EQ(test, w.opcode, MLX5_OPCODE_NOP);
}

#define T_FRAME_LEN	(ETH_HLEN + sizeof(struct iphdr) + \
			 sizeof(struct udphdr) + 32)

/* An IPv4 UDP frame to @dmac, checksums not filled in. */
static u32 put_udp4(u8 *f, const u8 *dmac, const u8 *smac)
{
	struct ethhdr *eth = (void *)f;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	u32 i;

	memset(f, 0, T_FRAME_LEN);
	ether_addr_copy(eth->h_dest, dmac);
	ether_addr_copy(eth->h_source, smac);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(T_FRAME_LEN - ETH_HLEN);
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	udp->source = htons(1234);
	udp->dest = htons(5678);
	udp->len = htons(T_FRAME_LEN - ETH_HLEN - sizeof(*ip));
	for (i = 0; i < 32; i++)
		((u8 *)(udp + 1))[i] = i;
	return T_FRAME_LEN;
}

static void port_frame_csum(struct kunit *test)
{
	static const u8 a[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 1 };
	u8 f[T_FRAME_LEN + VLAN_HLEN];
	struct sim_eth_hdrs h;
	u32 len = put_udp4(f, a, a);

	KUNIT_ASSERT_TRUE(test, sim_eth_parse(f, len, &h));
	KUNIT_EXPECT_EQ(test, h.ipv, 4);
	KUNIT_EXPECT_EQ(test, h.l3_off, ETH_HLEN);
	KUNIT_EXPECT_EQ(test, h.l4_proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, h.l4_off, ETH_HLEN + sizeof(struct iphdr));
	/* nothing filled in: the IPv4 header does not hold, UDP 0 is none */
	KUNIT_EXPECT_EQ(test, sim_eth_csum_ok(f, &h), 0);
	sim_eth_csum_fill(f, &h, true, true);
	KUNIT_EXPECT_EQ(test, sim_eth_csum_ok(f, &h), CQE_L3_OK | CQE_L4_OK);
	/* a payload byte changes on the way */
	f[len - 1] ^= 0x40;
	KUNIT_EXPECT_EQ(test, sim_eth_csum_ok(f, &h), CQE_L3_OK);
	f[len - 1] ^= 0x40;

	/* the same behind a VLAN tag; a fragment has no L4 header */
	memmove(f + VLAN_ETH_HLEN, f + ETH_HLEN, len - ETH_HLEN);
	((struct vlan_ethhdr *)f)->h_vlan_proto = htons(ETH_P_8021Q);
	((struct vlan_ethhdr *)f)->h_vlan_TCI = htons(5);
	((struct vlan_ethhdr *)f)->h_vlan_encapsulated_proto = htons(ETH_P_IP);
	KUNIT_ASSERT_TRUE(test, sim_eth_parse(f, len + VLAN_HLEN, &h));
	KUNIT_EXPECT_EQ(test, h.l3_off, VLAN_ETH_HLEN);
	KUNIT_EXPECT_EQ(test, sim_eth_csum_ok(f, &h), CQE_L3_OK | CQE_L4_OK);
	((struct iphdr *)(f + VLAN_ETH_HLEN))->frag_off = htons(IP_MF);
	KUNIT_ASSERT_TRUE(test, sim_eth_parse(f, len + VLAN_HLEN, &h));
	KUNIT_EXPECT_EQ(test, h.l4_off, 0);
	/* shorter than Ethernet: not a frame */
	KUNIT_EXPECT_FALSE(test, sim_eth_parse(f, ETH_HLEN - 1, &h));
}

static struct kunit_case port_logic_cases[] = {
	KUNIT_CASE(port_steer_match),
	KUNIT_CASE(port_wqe_parse),
	KUNIT_CASE(port_frame_csum),
	{}
};

static struct kunit_suite port_logic_suite = {
	.name = "mlx5sp_sim_port_logic",
	.test_cases = port_logic_cases,
};

/* ---- suite: a cabled device --------------------------------------------- */

#define P_MAX_PAGES	16
#define P_LOG_Q		6	/* 64 entries */

/* The cable: a netdev whose transmit keeps what it is given. */
struct p_cable {
	struct sk_buff_head tx;
};

static netdev_tx_t p_cable_xmit(struct sk_buff *skb, struct net_device *nd)
{
	struct p_cable *c = netdev_priv(nd);

	skb_queue_tail(&c->tx, skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops p_cable_ops = {
	.ndo_start_xmit = p_cable_xmit,
};

static void p_cable_setup(struct net_device *nd)
{
	ether_setup(nd);
	nd->netdev_ops = &p_cable_ops;
	/* no IPv6 autoconfiguration chatter in what is captured */
	nd->flags |= IFF_NOARP;
}

struct p_dev {
	struct kunit *test;
	struct net_device *cable;
	struct mlx5sp_sim *sim;
	struct mlx5sp_dev *dev;
	u32 uar;
	u32 pd;
	void *pages[P_MAX_PAGES];
	int npages;
};

static void p_cable_down(void *data)
{
	struct p_dev *d = data;
	struct p_cable *c = netdev_priv(d->cable);

	unregister_netdev(d->cable);
	skb_queue_purge(&c->tx);
	free_netdev(d->cable);
}

static void p_dev_down(void *data)
{
	struct p_dev *d = data;
	int i;

	mlx5sp_sim_destroy(d->sim);
	for (i = 0; i < d->npages; i++)
		free_page((unsigned long)d->pages[i]);
}

static void *p_page(struct p_dev *d)
{
	void *p;

	KUNIT_ASSERT_LT(d->test, d->npages, P_MAX_PAGES);
	p = (void *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, p);
	d->pages[d->npages++] = p;
	return p;
}

/* Runs a command; returns its PRM status, the syndrome in @synd. */
static u8 p_cmd(struct p_dev *d, void *in, int inlen, void *out, int outlen,
		u32 *synd)
{
	mlx5sp_cmd_exec(d->dev, in, inlen, out, outlen);
	if (synd)
		*synd = MLX5SP_CMD_SYNDROME(out);
	return MLX5SP_CMD_STATUS(out);
}

static u32 p_alloc(struct p_dev *d, u16 opcode, int out_dw_off)
{
	u32 out[4] = {}, in[4] = {};

	MLX5_SET(alloc_pd_in, in, opcode, opcode);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	return be32_to_cpu(((__be32 *)out)[out_dw_off]) & 0xffffff;
}

static u8 p_paos(struct p_dev *d, bool write, u8 admin, u8 *oper, u32 *synd);

static struct p_dev *p_dev_up(struct kunit *test, const char *name)
{
	struct p_cable *c;
	struct p_dev *d;
	int err;
	u8 oper;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->test = test;
	d->cable = alloc_netdev(sizeof(*c), "sptc%d", NET_NAME_ENUM,
				p_cable_setup);
	KUNIT_ASSERT_NOT_NULL(test, d->cable);
	c = netdev_priv(d->cable);
	skb_queue_head_init(&c->tx);
	eth_hw_addr_random(d->cable);
	err = register_netdev(d->cable);
	if (err)
		free_netdev(d->cable);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, p_cable_down,
							   d));
	rtnl_lock();
	err = dev_open(d->cable, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	netif_carrier_on(d->cable);

	d->sim = mlx5sp_sim_create_cabled(name, NULL, d->cable);
	KUNIT_ASSERT_FALSE(test, IS_ERR(d->sim));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, p_dev_down, d));
	KUNIT_ASSERT_EQ(test, mlx5sp_sim_attach(d->sim), 0);
	d->dev = mlx5sp_model_to_dev(mlx5sp_sim_model(d->sim));
	KUNIT_ASSERT_NOT_NULL(test, d->dev);
	d->uar = p_alloc(d, MLX5_CMD_OP_ALLOC_UAR, 2);
	d->pd = p_alloc(d, MLX5_CMD_OP_ALLOC_PD, 2);
	/*
	 * The driver's NIC, its netdev closed, holds the port down (as
	 * mlx5e); the test takes it up as the NIC's open would.
	 */
	KUNIT_EXPECT_EQ(test, p_paos(d, false, 0, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_DOWN);
	KUNIT_ASSERT_EQ(test, p_paos(d, true, MLX5_PORT_UP, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_UP);
	return d;
}

static u8 p_query_cap(struct p_dev *d, u16 type, void *out, int outlen)
{
	u32 in[MLX5_ST_SZ_DW(query_hca_cap_in)] = {};

	MLX5_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	MLX5_SET(query_hca_cap_in, in, op_mod,
		 type << 1 | HCA_CAP_OPMOD_GET_CUR);
	return p_cmd(d, in, sizeof(in), out, outlen, NULL);
}

static void port_gate(struct kunit *test)
{
	int outlen = MLX5_ST_SZ_BYTES(query_hca_cap_out);
	u32 in[MLX5_ST_SZ_DW(access_register_in) + 4] = {};
	struct p_dev *d = p_dev_up(test, "kport0");
	struct mlx5sp_sim *plain;
	void *out, *cap;
	u32 synd;

	out = kunit_kzalloc(test, outlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	cap = MLX5_ADDR_OF(query_hca_cap_out, out, capability);
	KUNIT_ASSERT_EQ(test, p_query_cap(d, MLX5_CAP_GENERAL, out, outlen), 0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(cmd_hca_cap, cap, eth_net_offloads), 1);
	KUNIT_EXPECT_EQ(test, MLX5_GET(cmd_hca_cap, cap, nic_flow_table), 1);
	KUNIT_EXPECT_EQ(test, MLX5_GET(cmd_hca_cap, cap, port_type),
			MLX5_CAP_PORT_TYPE_ETH);
	KUNIT_ASSERT_EQ(test, p_query_cap(d, MLX5_CAP_ETHERNET_OFFLOADS, out,
					  outlen), 0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(per_protocol_networking_offload_caps,
				       cap, csum_cap), 1);
	KUNIT_EXPECT_EQ(test, MLX5_GET(per_protocol_networking_offload_caps,
				       cap, max_lso_cap), 0);
	KUNIT_ASSERT_EQ(test, p_query_cap(d, MLX5_CAP_FLOW_TABLE, out, outlen),
			0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(flow_table_nic_cap, cap,
				       flow_table_properties_nic_receive.ft_support),
			1);
	KUNIT_EXPECT_GE(test, MLX5_GET(flow_table_nic_cap, cap,
				       flow_table_properties_nic_receive.log_max_ft_size),
			10);

	/* a device without a cable: as before, no NIC */
	plain = mlx5sp_sim_create("kport0p", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(plain));
	KUNIT_EXPECT_FALSE(test, plain->port.cabled);
	KUNIT_EXPECT_EQ(test, MLX5_GET(cmd_hca_cap,
				       plain->caps->max[SIM_CAP_GENERAL],
				       eth_net_offloads), 0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(cmd_hca_cap,
				       plain->caps->max[SIM_CAP_GENERAL],
				       nic_flow_table), 0);
	mlx5sp_sim_destroy(plain);

	/* a register the port has not */
	MLX5_SET(access_register_in, in, opcode, MLX5_CMD_OP_ACCESS_REG);
	MLX5_SET(access_register_in, in, op_mod, 1);
	MLX5_SET(access_register_in, in, register_id, 0x5001);
	KUNIT_EXPECT_EQ(test, p_cmd(d, in, sizeof(in), out, 64, &synd),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_REG_UNSUPPORTED);
}

/* ACCESS_REG of @reg: @data in (the register layout), the answer out. */
static u8 p_reg(struct p_dev *d, u16 reg, bool write, const void *data,
		u32 size, void *answer, u32 *synd)
{
	u32 inlen = MLX5_ST_SZ_BYTES(access_register_in) + size;
	u32 outlen = MLX5_ST_SZ_BYTES(access_register_out) + size;
	void *in, *out;
	u8 status;

	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	out = kunit_kzalloc(d->test, outlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	KUNIT_ASSERT_NOT_NULL(d->test, out);
	MLX5_SET(access_register_in, in, opcode, MLX5_CMD_OP_ACCESS_REG);
	MLX5_SET(access_register_in, in, op_mod, write ? 0 : 1);
	MLX5_SET(access_register_in, in, register_id, reg);
	memcpy(MLX5_ADDR_OF(access_register_in, in, register_data), data,
	       size);
	status = p_cmd(d, in, inlen, out, outlen, synd);
	if (answer)
		memcpy(answer, MLX5_ADDR_OF(access_register_out, out,
					    register_data), size);
	return status;
}

static u8 p_paos(struct p_dev *d, bool write, u8 admin, u8 *oper, u32 *synd)
{
	u32 reg[MLX5_ST_SZ_DW(paos_reg)] = {}, ans[MLX5_ST_SZ_DW(paos_reg)];
	u8 status;

	MLX5_SET(paos_reg, reg, local_port, 1);
	MLX5_SET(paos_reg, reg, admin_status, admin);
	MLX5_SET(paos_reg, reg, ase, write);
	status = p_reg(d, MLX5_REG_PAOS, write, reg, sizeof(reg), ans, synd);
	if (oper)
		*oper = MLX5_GET(paos_reg, ans, oper_status);
	return status;
}

static u8 p_vport_state(struct p_dev *d)
{
	u32 out[MLX5_ST_SZ_DW(query_vport_state_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_vport_state_in)] = {};

	MLX5_SET(query_vport_state_in, in, opcode,
		 MLX5_CMD_OP_QUERY_VPORT_STATE);
	KUNIT_EXPECT_EQ(d->test, p_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	return MLX5_GET(query_vport_state_out, out, state);
}

static void port_registers(struct kunit *test)
{
	u32 pmtu[MLX5_ST_SZ_DW(pmtu_reg)] = {}, ans[MLX5_ST_SZ_DW(pmtu_reg)];
	struct p_dev *d = p_dev_up(test, "kport1");
	u32 synd;
	u8 oper;

	/* up (p_dev_up), with the cable up */
	KUNIT_EXPECT_EQ(test, p_paos(d, false, 0, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_UP);
	KUNIT_EXPECT_EQ(test, p_vport_state(d),
			MLX5_QUERY_VPORT_STATE_OUT_STATE_UP);
	/* admin down takes it down, and up again */
	KUNIT_EXPECT_EQ(test, p_paos(d, true, MLX5_PORT_DOWN, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_DOWN);
	KUNIT_EXPECT_EQ(test, p_vport_state(d),
			MLX5_QUERY_VPORT_STATE_OUT_STATE_DOWN);
	KUNIT_EXPECT_EQ(test, p_paos(d, true, MLX5_PORT_UP, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_UP);
	KUNIT_EXPECT_EQ(test, p_paos(d, true, 3, NULL, &synd),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_PAOS_BAD_STATUS);
	/* the cable's carrier */
	netif_carrier_off(d->cable);
	KUNIT_EXPECT_EQ(test, p_paos(d, false, 0, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_DOWN);
	netif_carrier_on(d->cable);
	KUNIT_EXPECT_EQ(test, p_paos(d, false, 0, &oper, NULL), 0);
	KUNIT_EXPECT_EQ(test, oper, MLX5_PORT_UP);

	/* PMTU: within max_mtu only, oper follows admin */
	MLX5_SET(pmtu_reg, pmtu, local_port, 1);
	KUNIT_EXPECT_EQ(test, p_reg(d, MLX5_REG_PMTU, false, pmtu, sizeof(pmtu),
				    ans, NULL), 0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(pmtu_reg, ans, max_mtu), 9216);
	KUNIT_EXPECT_EQ(test, MLX5_GET(pmtu_reg, ans, oper_mtu), 1522);
	MLX5_SET(pmtu_reg, pmtu, admin_mtu, 9217);
	KUNIT_EXPECT_EQ(test, p_reg(d, MLX5_REG_PMTU, true, pmtu, sizeof(pmtu),
				    NULL, &synd), MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_PMTU_BAD_MTU);
	MLX5_SET(pmtu_reg, pmtu, admin_mtu, 9022);
	KUNIT_EXPECT_EQ(test, p_reg(d, MLX5_REG_PMTU, true, pmtu, sizeof(pmtu),
				    ans, NULL), 0);
	KUNIT_EXPECT_EQ(test, MLX5_GET(pmtu_reg, ans, oper_mtu), 9022);
	/* another port */
	MLX5_SET(pmtu_reg, pmtu, local_port, 2);
	KUNIT_EXPECT_EQ(test, p_reg(d, MLX5_REG_PMTU, false, pmtu, sizeof(pmtu),
				    NULL, &synd), MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_REG_BAD_PORT);
	/* shorter than the register */
	KUNIT_EXPECT_EQ(test, p_reg(d, MLX5_REG_PMTU, false, pmtu, 4, NULL,
				    &synd), MLX5_CMD_STAT_BAD_INP_LEN_ERR);
}

static u32 p_create_cq(struct p_dev *d, void **buf)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(create_cq_in) + 8;
	void *in, *cqc, *dbr;
	int i;

	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	MLX5_SET(cqc, cqc, log_cq_size, P_LOG_Q);
	MLX5_SET(cqc, cqc, uar_page, d->uar);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, d->dev->async_eq.eqn);
	dbr = p_page(d);
	MLX5_SET64(cqc, cqc, dbr_addr, virt_to_phys(dbr));
	*buf = p_page(d);
	/* every CQE software's: op_own invalid until written */
	for (i = 0; i < BIT(P_LOG_Q); i++)
		((struct mlx5_cqe64 *)*buf)[i].op_own = MLX5_CQE_INVALID << 4 | 1;
	*(__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas) =
		cpu_to_be64(virt_to_phys(*buf));
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, inlen, out, sizeof(out), NULL),
			0);
	return MLX5_GET(create_cq_out, out, cqn);
}

/* The @n-th CQE once hardware wrote it (first pass), waiting up to 2 s. */
static struct mlx5_cqe64 *p_cqe(struct p_dev *d, void *buf, u32 n)
{
	struct mlx5_cqe64 *cqe = (struct mlx5_cqe64 *)buf + n;
	int i;

	for (i = 0; i < 2000; i++) {
		if ((READ_ONCE(cqe->op_own) >> 4) != MLX5_CQE_INVALID)
			return cqe;
		usleep_range(1000, 2000);
	}
	return NULL;
}

static u32 p_td(struct p_dev *d)
{
	return p_alloc(d, MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN, 2);
}

static u32 p_tis(struct p_dev *d, u32 td)
{
	u32 out[MLX5_ST_SZ_DW(create_tis_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_tis_in)] = {};

	MLX5_SET(create_tis_in, in, opcode, MLX5_CMD_OP_CREATE_TIS);
	MLX5_SET(tisc, MLX5_ADDR_OF(create_tis_in, in, ctx), transport_domain,
		 td);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	return MLX5_GET(create_tis_out, out, tisn);
}

/* A PA key over all memory, local read and write: the driver's. */
static u32 p_mkey(struct p_dev *d)
{
	u32 out[MLX5_ST_SZ_DW(create_mkey_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	MLX5_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, lw, 1);
	MLX5_SET(mkc, mkc, length64, 1);
	MLX5_SET(mkc, mkc, pd, d->pd);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	return MLX5_GET(create_mkey_out, out, mkey_index) << 8;
}

/* A WQ of 2^P_LOG_Q entries in one page, its record in another. */
static void p_wq(struct p_dev *d, void *wq, u8 stride, void **buf,
		 __be32 **dbr)
{
	*dbr = p_page(d);
	*buf = p_page(d);
	MLX5_SET(wq, wq, wq_type, MLX5_WQ_TYPE_CYCLIC);
	MLX5_SET(wq, wq, pd, d->pd);
	MLX5_SET(wq, wq, uar_page, d->uar);
	MLX5_SET64(wq, wq, dbr_addr, virt_to_phys(*dbr));
	MLX5_SET(wq, wq, log_wq_stride, stride);
	MLX5_SET(wq, wq, log_wq_sz, P_LOG_Q);
	MLX5_SET(wq, wq, log_wq_pg_sz, 0);
	*(__be64 *)MLX5_ADDR_OF(wq, wq, pas) = cpu_to_be64(virt_to_phys(*buf));
}

static u8 p_modify_wq(struct p_dev *d, bool sq, u32 n, u8 cur, u8 next)
{
	u32 out[MLX5_ST_SZ_DW(modify_sq_out)] = {};
	u32 in[MLX5_ST_SZ_DW(modify_sq_in)] = {};

	/* modify_sq_in and modify_rq_in share the layout */
	MLX5_SET(modify_sq_in, in, opcode, sq ? MLX5_CMD_OP_MODIFY_SQ :
						MLX5_CMD_OP_MODIFY_RQ);
	MLX5_SET(modify_sq_in, in, sq_state, cur);
	MLX5_SET(modify_sq_in, in, sqn, n);
	MLX5_SET(sqc, MLX5_ADDR_OF(modify_sq_in, in, ctx), state, next);
	return p_cmd(d, in, sizeof(in), out, sizeof(out), NULL);
}

struct p_sq {
	u32 sqn;
	u32 cqn;
	void *cq;
	void *buf;
	__be32 *dbr;
};

static void p_sq_up(struct p_dev *d, struct p_sq *s)
{
	int inlen = MLX5_ST_SZ_BYTES(create_sq_in) + 8;
	u32 out[MLX5_ST_SZ_DW(create_sq_out)] = {};
	void *in, *sqc;

	s->cqn = p_create_cq(d, &s->cq);
	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	sqc = MLX5_ADDR_OF(create_sq_in, in, ctx);
	MLX5_SET(create_sq_in, in, opcode, MLX5_CMD_OP_CREATE_SQ);
	MLX5_SET(sqc, sqc, cqn, s->cqn);
	MLX5_SET(sqc, sqc, flush_in_error_en, 1);
	MLX5_SET(sqc, sqc, tis_lst_sz, 1);
	MLX5_SET(sqc, sqc, tis_num_0, p_tis(d, p_td(d)));
	MLX5_SET(sqc, sqc, min_wqe_inline_mode, MLX5_INLINE_MODE_L2);
	p_wq(d, MLX5_ADDR_OF(sqc, sqc, wq), 6, &s->buf, &s->dbr);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, inlen, out, sizeof(out), NULL),
			0);
	s->sqn = MLX5_GET(create_sq_out, out, sqn);
	KUNIT_ASSERT_EQ(d->test, p_modify_wq(d, true, s->sqn,
					     MLX5_SQC_STATE_RST,
					     MLX5_SQC_STATE_RDY), 0);
}

/* Post one SEND of @f (its Ethernet header inline) and ring. */
static void p_sq_send(struct p_dev *d, struct p_sq *s, u16 pc, const u8 *f,
		      u32 len, u32 lkey, u8 cs_flags)
{
	u8 *wqe = s->buf + (pc % BIT(P_LOG_Q)) * MLX5_SEND_WQE_BB;
	struct mlx5_wqe_eth_seg *eth = (void *)(wqe + 16);
	struct mlx5_wqe_data_seg *seg;
	u8 tmp[SIM_ETH_WQE_MAX];
	u32 off;

	off = put_send_wqe(tmp, s->sqn, pc, ETH_HLEN, 1, cs_flags);
	memcpy(wqe, tmp, MLX5_SEND_WQE_BB);
	memcpy(eth->inline_hdr.data, f, ETH_HLEN);
	seg = (void *)(wqe + off);
	seg->byte_count = cpu_to_be32(len - ETH_HLEN);
	seg->lkey = cpu_to_be32(lkey);
	seg->addr = cpu_to_be64(virt_to_phys((void *)(f + ETH_HLEN)));
	dma_wmb();
	WRITE_ONCE(s->dbr[MLX5_SND_DBR], cpu_to_be32(pc + 1));
	/* the record before the doorbell that makes the engine read it */
	wmb();
	mlx5sp_sim_model(d->sim)->ops->write64(mlx5sp_sim_model(d->sim),
					       d->uar * SZ_4K + 0x800, 0);
}

/* The next frame the port sent to @dmac (the host's own are skipped). */
static struct sk_buff *p_cable_frame(struct p_dev *d, const u8 *dmac)
{
	struct p_cable *c = netdev_priv(d->cable);
	struct sk_buff *skb;
	int i;

	for (i = 0; i < 2000; i++) {
		skb = skb_dequeue(&c->tx);
		if (skb && skb->len >= ETH_HLEN &&
		    ether_addr_equal(skb->data, dmac))
			return skb;
		kfree_skb(skb);
		if (!skb)
			usleep_range(1000, 2000);
	}
	return NULL;
}

static void port_tx(struct kunit *test)
{
	static const u8 dmac[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct p_dev *d = p_dev_up(test, "kport2");
	struct mlx5_cqe64 *cqe;
	struct sim_eth_hdrs h;
	struct sk_buff *skb;
	struct p_sq s;
	u32 lkey, len;
	u8 *f;

	p_sq_up(d, &s);
	lkey = p_mkey(d);
	f = p_page(d);
	len = put_udp4(f, dmac, d->sim->port.mac);

	/* a frame out the cable, its checksums filled in, a CQE */
	p_sq_send(d, &s, 0, f, len, lkey,
		  MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM);
	skb = p_cable_frame(d, dmac);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, len);
	KUNIT_ASSERT_TRUE(test, sim_eth_parse(skb->data, skb->len, &h));
	KUNIT_EXPECT_EQ(test, sim_eth_csum_ok(skb->data, &h),
			CQE_L3_OK | CQE_L4_OK);
	kfree_skb(skb);
	cqe = p_cqe(d, s.cq, 0);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, get_cqe_opcode(cqe), MLX5_CQE_REQ);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff, s.sqn);

	/* a bad lkey: an error CQE, the SQ in error, nothing sent */
	p_sq_send(d, &s, 1, f, len, lkey + 0x100, 0);
	cqe = p_cqe(d, s.cq, 1);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	KUNIT_EXPECT_EQ(test, ((struct mlx5_err_cqe *)cqe)->syndrome,
			MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 1);
	KUNIT_EXPECT_EQ(test, p_modify_wq(d, true, s.sqn, MLX5_SQC_STATE_RDY,
					  MLX5_SQC_STATE_ERR),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, p_modify_wq(d, true, s.sqn, MLX5_SQC_STATE_ERR,
					  MLX5_SQC_STATE_RST), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->sim->port.st.tx_err_cqes), 1);
}

struct p_rq {
	u32 rqn;
	u32 cqn;
	void *cq;
	void *buf;
	__be32 *dbr;
};

static void p_rq_up(struct p_dev *d, struct p_rq *r)
{
	int inlen = MLX5_ST_SZ_BYTES(create_rq_in) + 8;
	u32 out[MLX5_ST_SZ_DW(create_rq_out)] = {};
	void *in, *rqc;

	r->cqn = p_create_cq(d, &r->cq);
	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	rqc = MLX5_ADDR_OF(create_rq_in, in, ctx);
	MLX5_SET(create_rq_in, in, opcode, MLX5_CMD_OP_CREATE_RQ);
	MLX5_SET(rqc, rqc, cqn, r->cqn);
	MLX5_SET(rqc, rqc, vsd, 1);
	MLX5_SET(rqc, rqc, flush_in_error_en, 1);
	p_wq(d, MLX5_ADDR_OF(rqc, rqc, wq), 4, &r->buf, &r->dbr);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, inlen, out, sizeof(out), NULL),
			0);
	r->rqn = MLX5_GET(create_rq_out, out, rqn);
	KUNIT_ASSERT_EQ(d->test, p_modify_wq(d, false, r->rqn,
					     MLX5_RQC_STATE_RST,
					     MLX5_RQC_STATE_RDY), 0);
}

static u32 p_tir(struct p_dev *d, u32 td, u32 rqn)
{
	u32 out[MLX5_ST_SZ_DW(create_tir_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_tir_in)] = {};
	void *tirc = MLX5_ADDR_OF(create_tir_in, in, ctx);

	MLX5_SET(create_tir_in, in, opcode, MLX5_CMD_OP_CREATE_TIR);
	MLX5_SET(tirc, tirc, disp_type, MLX5_TIRC_DISP_TYPE_DIRECT);
	MLX5_SET(tirc, tirc, inline_rqn, rqn);
	MLX5_SET(tirc, tirc, transport_domain, td);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	return MLX5_GET(create_tir_out, out, tirn);
}

static u32 p_ft(struct p_dev *d)
{
	u32 out[MLX5_ST_SZ_DW(create_flow_table_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_flow_table_in)] = {};

	MLX5_SET(create_flow_table_in, in, opcode,
		 MLX5_CMD_OP_CREATE_FLOW_TABLE);
	MLX5_SET(create_flow_table_in, in, table_type, SIM_FT_NIC_RX);
	MLX5_SET(create_flow_table_in, in, flow_table_context.log_size, 4);
	KUNIT_ASSERT_EQ(d->test, p_cmd(d, in, sizeof(in), out, sizeof(out),
				       NULL), 0);
	return MLX5_GET(create_flow_table_out, out, table_id);
}

/* A group of [@start, @end]: on the whole dmac, or (!@dmac) on nothing */
static u8 p_fg(struct p_dev *d, u32 ft, u32 start, u32 end, bool dmac,
	       u32 *id, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(create_flow_group_out)] = {};
	u32 *in = kunit_kzalloc(d->test, MLX5_ST_SZ_BYTES(create_flow_group_in),
				GFP_KERNEL);
	void *outer;
	u8 status;

	KUNIT_ASSERT_NOT_NULL(d->test, in);
	outer = MLX5_ADDR_OF(create_flow_group_in, in,
			     match_criteria.outer_headers);
	MLX5_SET(create_flow_group_in, in, opcode,
		 MLX5_CMD_OP_CREATE_FLOW_GROUP);
	MLX5_SET(create_flow_group_in, in, table_type, SIM_FT_NIC_RX);
	MLX5_SET(create_flow_group_in, in, table_id, ft);
	MLX5_SET(create_flow_group_in, in, start_flow_index, start);
	MLX5_SET(create_flow_group_in, in, end_flow_index, end);
	if (dmac) {
		MLX5_SET(create_flow_group_in, in, match_criteria_enable,
			 MLX5_MATCH_OUTER_HEADERS);
		MLX5_SET(fte_match_set_lyr_2_4, outer, dmac_47_16, 0xffffffff);
		MLX5_SET(fte_match_set_lyr_2_4, outer, dmac_15_0, 0xffff);
	}
	status = p_cmd(d, in, MLX5_ST_SZ_BYTES(create_flow_group_in), out,
		       sizeof(out), synd);
	*id = MLX5_GET(create_flow_group_out, out, group_id);
	return status;
}

static u8 p_fte(struct p_dev *d, u32 ft, u32 fg, u32 index, const u8 *dmac,
		u32 tirn, u32 *synd)
{
	int inlen = MLX5_ST_SZ_BYTES(set_fte_in) +
		    MLX5_ST_SZ_BYTES(dest_format_struct);
	u32 out[MLX5_ST_SZ_DW(set_fte_out)] = {};
	void *in, *fc, *outer, *dest;

	in = kunit_kzalloc(d->test, inlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(d->test, in);
	fc = MLX5_ADDR_OF(set_fte_in, in, flow_context);
	outer = MLX5_ADDR_OF(flow_context, fc, match_value.outer_headers);
	dest = MLX5_ADDR_OF(flow_context, fc, destination);
	MLX5_SET(set_fte_in, in, opcode, MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY);
	MLX5_SET(set_fte_in, in, table_type, SIM_FT_NIC_RX);
	MLX5_SET(set_fte_in, in, table_id, ft);
	MLX5_SET(set_fte_in, in, flow_index, index);
	MLX5_SET(flow_context, fc, group_id, fg);
	MLX5_SET(flow_context, fc, action, MLX5_FLOW_CONTEXT_ACTION_FWD_DEST);
	MLX5_SET(flow_context, fc, destination_list_size, 1);
	if (dmac) {
		MLX5_SET(fte_match_set_lyr_2_4, outer, dmac_47_16,
			 get_unaligned_be32(dmac));
		MLX5_SET(fte_match_set_lyr_2_4, outer, dmac_15_0,
			 get_unaligned_be16(dmac + 4));
	}
	MLX5_SET(dest_format_struct, dest, destination_type,
		 MLX5_IFC_FLOW_DESTINATION_TYPE_TIR);
	MLX5_SET(dest_format_struct, dest, destination_id, tirn);
	return p_cmd(d, in, inlen, out, sizeof(out), synd);
}

/* DESTROY_TIR, _RQ, _FLOW_TABLE or _FLOW_GROUP of @id (in table @ft) */
static u8 p_destroy(struct p_dev *d, u16 opcode, u32 ft, u32 id, u32 *synd)
{
	u32 out[MLX5_ST_SZ_DW(destroy_flow_group_out)] = {};
	u32 in[MLX5_ST_SZ_DW(destroy_flow_group_in)] = {};

	MLX5_SET(destroy_flow_group_in, in, opcode, opcode);
	if (opcode == MLX5_CMD_OP_DESTROY_TIR) {
		MLX5_SET(destroy_tir_in, in, tirn, id);
	} else if (opcode == MLX5_CMD_OP_DESTROY_RQ) {
		MLX5_SET(destroy_rq_in, in, rqn, id);
	} else {
		MLX5_SET(destroy_flow_group_in, in, table_type, SIM_FT_NIC_RX);
		MLX5_SET(destroy_flow_group_in, in, table_id, ft);
		MLX5_SET(destroy_flow_group_in, in, group_id, id);
	}
	return p_cmd(d, in, sizeof(in), out, sizeof(out), synd);
}

static u8 p_root(struct p_dev *d, u32 ft)
{
	u32 out[MLX5_ST_SZ_DW(set_flow_table_root_out)] = {};
	u32 in[MLX5_ST_SZ_DW(set_flow_table_root_in)] = {};

	MLX5_SET(set_flow_table_root_in, in, opcode,
		 MLX5_CMD_OP_SET_FLOW_TABLE_ROOT);
	MLX5_SET(set_flow_table_root_in, in, table_type, SIM_FT_NIC_RX);
	MLX5_SET(set_flow_table_root_in, in, table_id, ft);
	/* no table: the root disconnected (op_mod 1) */
	MLX5_SET(set_flow_table_root_in, in, op_mod, !ft);
	return p_cmd(d, in, sizeof(in), out, sizeof(out), NULL);
}

/* A frame from the far end of the cable, as its driver hands it up. */
static void p_cable_rx(struct p_dev *d, const u8 *f, u32 len)
{
	struct sk_buff *skb = netdev_alloc_skb(d->cable, len);

	KUNIT_ASSERT_NOT_NULL(d->test, skb);
	skb_put_data(skb, f, len);
	skb->protocol = eth_type_trans(skb, d->cable);
	local_bh_disable();
	netif_receive_skb(skb);
	local_bh_enable();
}

/* Post RQ WQE @pc over @buf (2 KiB) and ring the receive counter. */
static void p_rq_post(struct p_rq *r, u16 pc, void *buf, u32 lkey)
{
	struct mlx5_wqe_data_seg *seg = r->buf + (pc % BIT(P_LOG_Q)) * 16;

	seg->byte_count = cpu_to_be32(SZ_2K);
	seg->lkey = cpu_to_be32(lkey);
	seg->addr = cpu_to_be64(virt_to_phys(buf));
	dma_wmb();
	WRITE_ONCE(r->dbr[MLX5_RCV_DBR], cpu_to_be32(pc + 1));
}

static void port_steer_rx(struct kunit *test)
{
	struct p_dev *d = p_dev_up(test, "kport3");
	static const u8 other[ETH_ALEN] = { 0x02, 0x01, 2, 3, 4, 5 };
	const u8 *mac = d->sim->port.mac;
	u32 td = p_td(d), tirn, ft, fg_mac, fg_all, fg, synd, lkey;
	s64 frames, nomatch, noroot;
	struct sim_eth_hdrs h;
	struct mlx5_cqe64 *cqe;
	struct p_rq r;
	u8 *f, *rx;
	u32 len;

	p_rq_up(d, &r);
	tirn = p_tir(d, td, r.rqn);
	/* the RQ is the TIR's */
	KUNIT_EXPECT_EQ(test, p_destroy(d, MLX5_CMD_OP_DESTROY_RQ, 0, r.rqn,
					&synd),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_RQ_IN_USE);
	ft = p_ft(d);
	KUNIT_ASSERT_EQ(test, p_fg(d, ft, 0, 0, true, &fg_mac, NULL), 0);
	KUNIT_ASSERT_EQ(test, p_fg(d, ft, 1, 1, false, &fg_all, NULL), 0);
	/* groups do not overlap, and stay in the table */
	KUNIT_EXPECT_EQ(test, p_fg(d, ft, 1, 3, true, &fg, &synd),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_FG_BAD_RANGE);
	KUNIT_EXPECT_EQ(test, p_fg(d, ft, 2, 16, true, &fg, &synd),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	/* an entry outside its group */
	KUNIT_EXPECT_EQ(test, p_fte(d, ft, fg_mac, 1, mac, tirn, &synd),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_FTE_BAD_INDEX);
	KUNIT_ASSERT_EQ(test, p_fte(d, ft, fg_mac, 0, mac, tirn, NULL), 0);
	KUNIT_EXPECT_EQ(test, p_fte(d, ft, fg_mac, 0, mac, tirn, &synd),
			MLX5_CMD_STAT_BAD_PARAM_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_FTE_EXISTS);
	/* what is in use stays */
	KUNIT_EXPECT_EQ(test, p_destroy(d, MLX5_CMD_OP_DESTROY_TIR, 0, tirn,
					&synd),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_TIR_IN_USE);
	KUNIT_EXPECT_EQ(test, p_destroy(d, MLX5_CMD_OP_DESTROY_FLOW_GROUP, ft,
					fg_mac, &synd),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_FG_IN_USE);

	lkey = p_mkey(d);
	f = p_page(d);
	rx = p_page(d);
	len = put_udp4(f, mac, other);
	KUNIT_ASSERT_TRUE(test, sim_eth_parse(f, len, &h));
	sim_eth_csum_fill(f, &h, true, true);

	/* no root (the driver's NIC set its own: disconnected): dropped */
	KUNIT_ASSERT_EQ(test, p_root(d, 0), 0);
	noroot = atomic64_read(&d->sim->port.st.rx_no_root);
	p_cable_rx(d, f, len);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->sim->port.st.rx_no_root),
			noroot + 1);
	KUNIT_ASSERT_EQ(test, p_root(d, ft), 0);
	KUNIT_EXPECT_EQ(test, p_destroy(d, MLX5_CMD_OP_DESTROY_FLOW_TABLE, ft,
					0, &synd),
			MLX5_CMD_STAT_BAD_RES_STATE_ERR);
	KUNIT_EXPECT_EQ(test, synd, MLX5SP_SIM_SYND_FT_IN_USE);

	/* to our MAC, no WQE: out of buffer; then into the WQE posted */
	p_cable_rx(d, f, len);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->sim->port.st.rx_out_of_buffer),
			1);
	p_rq_post(&r, 0, rx, lkey);
	frames = atomic64_read(&d->sim->port.st.rx_frames);
	p_cable_rx(d, f, len);
	cqe = p_cqe(d, r.cq, 0);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->byte_cnt), len);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff, r.rqn);
	KUNIT_EXPECT_EQ(test, cqe->hds_ip_ext, CQE_L3_OK | CQE_L4_OK);
	KUNIT_EXPECT_EQ(test, (cqe->l4_l3_hdr_type >> 4) & 0x7,
			CQE_L4_HDR_TYPE_UDP);
	KUNIT_EXPECT_EQ(test, (cqe->l4_l3_hdr_type >> 2) & 0x3, 2);
	KUNIT_EXPECT_EQ(test, memcmp(rx, f, len), 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->sim->port.st.rx_frames),
			frames + 1);

	/* another MAC: the catch-all group after ours, or nothing */
	nomatch = atomic64_read(&d->sim->port.st.rx_no_match);
	ether_addr_copy(f, other);
	p_cable_rx(d, f, len);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic64_read(&d->sim->port.st.rx_no_match),
			nomatch + 1);
	KUNIT_ASSERT_EQ(test, p_fte(d, ft, fg_all, 1, NULL, tirn, NULL), 0);
	p_rq_post(&r, 1, rx + SZ_2K, lkey);
	p_cable_rx(d, f, len);
	cqe = p_cqe(d, r.cq, 1);
	KUNIT_ASSERT_NOT_NULL(test, cqe);
	KUNIT_EXPECT_EQ(test, get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(cqe->wqe_counter), 1);
}

static struct kunit_case port_dev_cases[] = {
	KUNIT_CASE(port_gate),
	KUNIT_CASE(port_registers),
	KUNIT_CASE(port_tx),
	KUNIT_CASE(port_steer_rx),
	{}
};

static struct kunit_suite port_dev_suite = {
	.name = "mlx5sp_sim_port",
	.test_cases = port_dev_cases,
};

kunit_test_suites(&port_logic_suite, &port_dev_suite);
