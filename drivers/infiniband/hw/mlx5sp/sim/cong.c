// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Congestion signals on the wire, as a ConnectX's RoCE congestion
 * control has them (DCQCN's notification and reaction points; the
 * rate algorithm itself is not modelled):
 *
 * - reaction point (debugfs ecn_rp, on by default): the device's RoCEv2
 *   packets leave as ECN-capable (ECT(0) in the IP header's ECN bits,
 *   whatever the address vector's traffic class says there); a CNP that
 *   comes in for one of its QPs is counted as handled (rp_cnp_handled),
 *   or as ignored with the reaction point off (rp_cnp_ignored);
 * - notification point (debugfs ecn_np, on by default): a RoCEv2 packet
 *   that arrives marked Congestion Experienced is counted
 *   (np_ecn_marked_roce_packets) and answered with a CNP to the QP that
 *   sent it (np_cnp_sent), at most one per QP every SIM_CNP_MIN_NS.
 *
 * A CNP (IBTA annex A17.9.3): BTH opcode 0x81, the sender's QP as the
 * destination, PSN 0, BECN set, 16 reserved bytes, the ICRC; not
 * ECN-capable itself, DSCP 48 and VLAN priority 6 (mlx5's defaults
 * cnp_dscp and cnp_802p_prio). The counters are
 * the PRM's congestion statistics (QUERY_CONG_STATISTICS), which mlx5_ib
 * and mlx5sp list as hardware counters when cc_query_allowed is set.
 * RoCE v1 has no IP header and so no ECN.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/unaligned.h>
#include <net/inet_ecn.h>

#include "qp.h"
#include "sim.h"
#include "wire.h"

#define SIM_CNP_MIN_NS		(4 * NSEC_PER_USEC)	/* per QP */
#define SIM_CNP_DSCP		48
#define SIM_CNP_PRIO		6	/* mlx5's default cnp_802p_prio */

/*
 * A marked packet @pkt (RC, UC or UD, not a CNP) came in for @qp: count
 * it and answer with a CNP, from the engine (rcu_read_lock). The CNP goes
 * back the way the packet came (its addresses and MACs swapped), so no
 * QP lock is needed.
 */
void sim_cong_marked(struct mlx5sp_sim *sim, struct sim_qp *qp,
		     const struct sim_rx_pkt *pkt, const struct sk_buff *skb)
{
	struct sim_net_stats *st = &sim->net.st;
	const struct ethhdr *eth = eth_hdr(skb);
	struct sim_tx_path path = {};
	struct sim_tx_pkt t = {};
	u64 now;

	atomic64_inc(&st->np_ecn_marked);
	if (!READ_ONCE(sim->knobs.ecn_np) || !skb_mac_header_was_set(skb))
		return;
	now = ktime_get_ns();
	if (qp->cnp_ns && now - READ_ONCE(qp->cnp_ns) < SIM_CNP_MIN_NS)
		return;
	WRITE_ONCE(qp->cnp_ns, now);

	memcpy(path.sgid, pkt->dgid, sizeof(path.sgid));
	memcpy(path.dgid, pkt->sgid, sizeof(path.dgid));
	ether_addr_copy(path.smac, eth->h_dest);
	ether_addr_copy(path.dmac, eth->h_source);
	path.vlan = pkt->vlan;
	path.vlan_id = pkt->vlan_tci & VLAN_VID_MASK;
	path.prio = SIM_CNP_PRIO;
	path.ttl = 64;
	path.tos = SIM_CNP_DSCP << 2;
	path.sport = 0xc000 | (qp->qpn & 0x3fff);
	path.cnp = true;
	t.opcode = SIM_OP_CNP;
	t.hdrs = SIM_HDR_CNP;
	t.becn = true;
	t.dqpn = pkt->tr == SIM_TR_UD ? pkt->sqpn : READ_ONCE(qp->remote_qpn);
	if (!sim_net_send(sim, &path, &t, NULL, 0))
		atomic64_inc(&st->np_cnp_sent);
}

/* A CNP for @qp: the reaction point takes it or, off, ignores it. */
void sim_cong_cnp(struct mlx5sp_sim *sim, struct sim_qp *qp)
{
	struct sim_net_stats *st = &sim->net.st;

	if (READ_ONCE(sim->knobs.ecn_rp))
		atomic64_inc(&st->rp_cnp_handled);
	else
		atomic64_inc(&st->rp_cnp_ignored);
}

/* The ECN bits a RoCEv2 packet of this device leaves with. */
u8 sim_cong_tos(struct mlx5sp_sim *sim, const struct sim_tx_path *p)
{
	if (p->cnp || !READ_ONCE(sim->knobs.ecn_rp))
		return p->tos & ~INET_ECN_MASK;
	return (p->tos & ~INET_ECN_MASK) | INET_ECN_ECT_0;
}

static u64 sim_cong_take(atomic64_t *v, bool clear)
{
	return clear ? atomic64_xchg(v, 0) : atomic64_read(v);
}

#define SIM_CONG_PUT(out, fld, v) \
	put_unaligned_be64(v, (u8 *)(out) + \
			   MLX5_BYTE_OFF(query_cong_statistics_out, fld##_high))

/* QUERY_CONG_STATISTICS: the congestion counters, 64 bits each. */
int sim_cmd_query_cong_statistics(struct sim_cmd *c)
{
	struct sim_net_stats *st = &c->sim->net.st;
	bool clear = MLX5_GET(query_cong_statistics_in, c->in, clear);

	SIM_CONG_PUT(c->out, rp_cnp_ignored,
		     sim_cong_take(&st->rp_cnp_ignored, clear));
	SIM_CONG_PUT(c->out, rp_cnp_handled,
		     sim_cong_take(&st->rp_cnp_handled, clear));
	SIM_CONG_PUT(c->out, np_ecn_marked_roce_packets,
		     sim_cong_take(&st->np_ecn_marked, clear));
	SIM_CONG_PUT(c->out, np_cnp_sent,
		     sim_cong_take(&st->np_cnp_sent, clear));
	return 0;
}
