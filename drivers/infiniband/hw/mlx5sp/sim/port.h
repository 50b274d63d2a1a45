/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The physical Ethernet port of the software ConnectX (port.c): a device
 * made with a cable (a netdev of the host the model runs on) has one,
 * with the registers the driver reads and sets it by (PAOS, PMTU, PTYS),
 * the NIC vport's fields, the link state and its events, the port's
 * counters, and the Ethernet SQs and RQs of its NIC (eth_sq.c, eth_rq.c,
 * eth_wq.h). A device without a cable has none of it: port.cabled is
 * false and nothing here is reached.
 */
#ifndef MLX5SP_SIM_PORT_H
#define MLX5SP_SIM_PORT_H

#include <linux/atomic.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "engine.h"

struct mlx5sp_sim;
struct seq_file;
struct sim_cmd;

/* what the port adds to the netdev MTU: Ethernet header, VLAN tag, FCS */
#define SIM_HW_MTU_EXTRA	(ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN)
#define SIM_DEFAULT_MTU		1500
#define SIM_PORT_MAX_MTU	9216		/* PMTU max_mtu, hw bytes */
#define SIM_PORT_MIN_MTU	(ETH_MIN_MTU + SIM_HW_MTU_EXTRA)

/* The port's counters (debugfs "port"), updated without locks. */
struct sim_port_stats {
	atomic64_t tx_frames;
	atomic64_t tx_bytes;
	atomic64_t rx_frames;		/* into an RQ */
	atomic64_t rx_bytes;
	atomic64_t rx_roce;		/* to the RDMA engine */
	atomic64_t rx_no_root;		/* no root NIC_RX table */
	atomic64_t rx_no_match;		/* no entry of the root matched */
	atomic64_t rx_out_of_buffer;	/* the RQ had no WQE */
	atomic64_t rx_too_long;		/* above the MTU or the WQE's buffers */
	atomic64_t rx_dropped;		/* link down, RQ not ready, no memory */
	atomic64_t tx_link_down_drops;	/* completed, not sent: link down */
	atomic64_t tx_dropped;		/* completed, not sent: queue full */
	atomic64_t tx_err_cqes;		/* error CQEs of Ethernet SQs */
	atomic64_t tx_flushed;		/* ... of which WR_FLUSH_ERR */
};

struct sim_eth_port {
	/* fixed at creation */
	bool cabled;			/* a physical port with a cable */
	char cable_name[IFNAMSIZ];
	u8 mac[ETH_ALEN];		/* permanent_address */
	/*
	 * The cable, held; NULL once it is unregistered (the port is down
	 * for good then). Changed under RTNL, read under RCU.
	 */
	struct net_device __rcu *cable;
	netdevice_tracker cable_tracker;
	bool promisc;			/* the cable's promiscuity taken; RTNL */

	/* written by commands under fw_lock; the data path reads them once */
	u8 admin_status;		/* PAOS: MLX5_PORT_UP / MLX5_PORT_DOWN */
	u16 admin_mtu;			/* PMTU, hw bytes: the oper MTU too */
	u32 eth_proto_admin;		/* PTYS */
	u16 vport_mtu;			/* NIC vport context, hw bytes */
	bool roce_en;			/* NIC vport context */

	spinlock_t state_lock;		/* protects oper_up; orders its events */
	bool oper_up;

	/* the NIC's queues, numbered from the QP number space (RCU) */
	struct xarray sqs;		/* sqn -> sim_eth_sq */
	struct xarray rqs;		/* rqn -> sim_eth_rq */
	struct sim_pollset poll_sqs;	/* what the engine runs (eth_sq.c) */

	struct sim_port_stats st;
};

/* The headers of an Ethernet frame, as the port parses them. */
struct sim_eth_hdrs {
	__be16 proto;			/* ethertype, after one VLAN tag */
	u32 l3_off;			/* 0: not IPv4 or IPv6 */
	u32 l4_off;			/* 0: not TCP or UDP (or a fragment) */
	u32 l4_len;			/* TCP or UDP header and payload */
	u8 ipv;				/* 4, 6 or 0 */
	u8 l4_proto;			/* IPPROTO_TCP, IPPROTO_UDP or 0 */
};

void sim_port_init(struct mlx5sp_sim *sim, struct net_device *cable);
void sim_port_free(struct mlx5sp_sim *sim);
void sim_port_reset(struct mlx5sp_sim *sim);
struct net_device *sim_port_cable(struct mlx5sp_sim *sim);
void sim_port_cable_release(struct mlx5sp_sim *sim);
bool sim_port_netdev_event(struct mlx5sp_sim *sim, struct net_device *nd,
			   unsigned long event);
void sim_port_update(struct mlx5sp_sim *sim);
void sim_port_show(struct seq_file *m, struct mlx5sp_sim *sim);
int sim_cmd_access_reg(struct sim_cmd *c);
int sim_cmd_modify_nic_vport_context(struct sim_cmd *c);

bool sim_eth_parse(const u8 *frame, u32 len, struct sim_eth_hdrs *h);
void sim_eth_csum_fill(u8 *frame, const struct sim_eth_hdrs *h, bool l3,
		       bool l4);
u8 sim_eth_csum_ok(const u8 *frame, const struct sim_eth_hdrs *h);

#endif /* MLX5SP_SIM_PORT_H */
