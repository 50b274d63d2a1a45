// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCE frames on the netdev a model device is bound to, as a ConnectX
 * puts them on its port: Ethernet (with the GID's VLAN tag), then by the
 * source GID's type either RoCEv2 (IPv4 or IPv6 by the GIDs: IPv4-mapped
 * or not; UDP to port 4791) or RoCE v1 (ethertype 0x8915 and the IB GRH,
 * an IPv6 header in layout with next header 0x1b, whatever the GIDs),
 * then the IB transport headers (wire.h), the payload and the ICRC.
 *
 * Out: built here from a QP's address path or a UD address vector,
 * under the QP's sq_lock or rq_lock (in the engine thread, a command
 * that runs the SQ, a process ringing a send doorbell or the receive
 * softirq), queued, and handed to dev_queue_xmit() on the bound netdev by
 * the device's NAPI (sim_net_poll()).
 *
 * In: an rx_handler on the bound netdev takes every IPv4 or IPv6 UDP
 * frame to port 4791 and every RoCE v1 frame, as a card's RoCE steering
 * does before the host stack sees
 * it, so no ICMP port-unreachable answers and no socket in whatever
 * network namespace the netdev lives in (rxe binds a UDP tunnel socket in
 * init_net only; a model device may be bound in any namespace). The
 * handler does nothing else: a frame goes on a bounded queue (full:
 * dropped and counted) and the device's NAPI is scheduled, which runs
 * it in the same softirq, after the frames before it. It validates it
 * (lengths, version, opcode for the transport, pad, destination GID),
 * checks the ICRC (a bad one is dropped and counted), and hands it to the
 * requester (ACK, READ responses) or the responder of the QP it names.
 * The cost: a netdev has one rx_handler; a netdev that already has one
 * (a bridge or bond port) gets no wire, and the device says so once.
 *
 * VLANs: the stack hands a tagged frame to the VLAN netdev of its VID
 * before any rx_handler of the real one runs, so the hook also sits on
 * every VLAN netdev whose real device is the bound one (sim_net_vlan_*,
 * from the device's netdev notifier, under RTNL); a frame taken there is
 * moved to the real netdev (which the device holds) with its VID kept
 * in skb->cb. Its PCP is gone by then (the VLAN netdev maps it to
 * skb->priority): such a datagram's CQE says SL 0. A tagged frame with
 * no VLAN netdev for its VID reaches the real netdev's hook whole.
 */

#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/udp.h>
#include <linux/unaligned.h>
#include <net/checksum.h>
#include <net/gso.h>
#include <net/ip.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>

#include "engine.h"
#include "eth_wq.h"
#include "port.h"
#include "qp.h"
#include "roce.h"
#include "sgl.h"
#include "sim.h"
#include "wire.h"

#define SIM_L3_HDRS		(sizeof(struct iphdr) + sizeof(struct udphdr))
#define SIM_L3_HDRS6		(sizeof(struct ipv6hdr) + sizeof(struct udphdr))
#define SIM_DEFAULT_TTL		64
#define SIM_GRH_NEXT_BTH	0x1b	/* IBTA: the GRH's next header, BTH */

/* What the receive hook keeps of a frame it takes, in skb->cb. */
struct sim_net_cb {
	bool vlan;
	u16 vlan_tci;
	bool eth;		/* the NIC's, at its MAC header (eth_rq.c) */
};

static struct sim_net_cb *sim_net_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sim_net_cb) > sizeof(skb->cb));
	return (struct sim_net_cb *)skb->cb;
}

/* The network header of a frame: RoCEv2 over IPv4 or IPv6, or RoCE v1. */
enum sim_l3 {
	SIM_L3_V4,
	SIM_L3_V6,
	SIM_L3_GRH,
};

static u32 sim_l3_len(enum sim_l3 l3)
{
	return l3 == SIM_L3_V4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
}

/* The network header and, RoCEv2's, the UDP header. */
static u32 sim_l3_hdrs(enum sim_l3 l3)
{
	return sim_l3_len(l3) + (l3 == SIM_L3_GRH ? 0 : sizeof(struct udphdr));
}

/*
 * The headers each RC opcode carries; 0: not an opcode the model takes.
 * UC has SEND and RDMA WRITE of the same layout (opcodes up to
 * SIM_OP_WRITE_ONLY_IMM), UD SEND only with a DETH.
 */
static const u16 sim_op_hdrs[SIM_OP_NR] = {
	[SIM_OP_SEND_FIRST]	= SIM_HDR_PAYLOAD | SIM_HDR_FIRST,
	[SIM_OP_SEND_MIDDLE]	= SIM_HDR_PAYLOAD,
	[SIM_OP_SEND_LAST]	= SIM_HDR_PAYLOAD | SIM_HDR_LAST,
	[SIM_OP_SEND_LAST_IMM]	= SIM_HDR_IMM | SIM_HDR_PAYLOAD |
				  SIM_HDR_LAST,
	[SIM_OP_SEND_ONLY]	= SIM_HDR_PAYLOAD | SIM_HDR_FIRST |
				  SIM_HDR_LAST,
	[SIM_OP_SEND_ONLY_IMM]	= SIM_HDR_IMM | SIM_HDR_PAYLOAD |
				  SIM_HDR_FIRST | SIM_HDR_LAST,
	[SIM_OP_WRITE_FIRST]	= SIM_HDR_RETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_FIRST,
	[SIM_OP_WRITE_MIDDLE]	= SIM_HDR_PAYLOAD,
	[SIM_OP_WRITE_LAST]	= SIM_HDR_PAYLOAD | SIM_HDR_LAST,
	[SIM_OP_WRITE_LAST_IMM]	= SIM_HDR_IMM | SIM_HDR_PAYLOAD |
				  SIM_HDR_LAST,
	[SIM_OP_WRITE_ONLY]	= SIM_HDR_RETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_FIRST | SIM_HDR_LAST,
	[SIM_OP_WRITE_ONLY_IMM]	= SIM_HDR_RETH | SIM_HDR_IMM |
				  SIM_HDR_PAYLOAD | SIM_HDR_FIRST |
				  SIM_HDR_LAST,
	[SIM_OP_READ_REQ]	= SIM_HDR_RETH | SIM_HDR_FIRST | SIM_HDR_LAST,
	[SIM_OP_READ_RESP_FIRST] = SIM_HDR_AETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_FIRST,
	[SIM_OP_READ_RESP_MIDDLE] = SIM_HDR_PAYLOAD,
	[SIM_OP_READ_RESP_LAST]	= SIM_HDR_AETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_LAST,
	[SIM_OP_READ_RESP_ONLY]	= SIM_HDR_AETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_FIRST | SIM_HDR_LAST,
	[SIM_OP_ACK]		= SIM_HDR_AETH | SIM_HDR_FIRST | SIM_HDR_LAST,
	[SIM_OP_ATOMIC_ACK]	= SIM_HDR_AETH | SIM_HDR_ATMACK |
				  SIM_HDR_FIRST | SIM_HDR_LAST,
	[SIM_OP_CMP_SWAP]	= SIM_HDR_ATMETH | SIM_HDR_FIRST |
				  SIM_HDR_LAST,
	[SIM_OP_FETCH_ADD]	= SIM_HDR_ATMETH | SIM_HDR_FIRST |
				  SIM_HDR_LAST,
	[SIM_OP_SEND_LAST_INV]	= SIM_HDR_IETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_LAST,
	[SIM_OP_SEND_ONLY_INV]	= SIM_HDR_IETH | SIM_HDR_PAYLOAD |
				  SIM_HDR_FIRST | SIM_HDR_LAST,
};

/* The headers of RC opcode @op (the low 5 bits of a BTH opcode). */
u16 sim_wire_op_hdrs(u8 op)
{
	return op < SIM_OP_NR ? sim_op_hdrs[op] : 0;
}

static u32 sim_ext_len(u16 hdrs)
{
	return (hdrs & SIM_HDR_RETH ? sizeof(struct sim_reth) : 0) +
	       (hdrs & SIM_HDR_DETH ? sizeof(struct sim_deth) : 0) +
	       (hdrs & SIM_HDR_AETH ? sizeof(struct sim_aeth) : 0) +
	       (hdrs & SIM_HDR_ATMETH ? sizeof(struct sim_atmeth) : 0) +
	       (hdrs & SIM_HDR_ATMACK ? sizeof(struct sim_atmack) : 0) +
	       (hdrs & SIM_HDR_CNP ? SIM_CNP_RSVD : 0) +
	       (hdrs & (SIM_HDR_IMM | SIM_HDR_IETH) ? sizeof(__be32) : 0);
}

/* Path MTU in bytes (QPC mtu: 1 = 256 ... 5 = 4096). */
u32 sim_wire_mtu(const struct sim_qp *qp)
{
	u8 mtu = clamp_t(u8, qp->mtu, MLX5_QPC_MTU_256_BYTES,
			 MLX5_QPC_MTU_4K_BYTES);

	return 256U << (mtu - MLX5_QPC_MTU_256_BYTES);
}

bool sim_net_up(struct mlx5sp_sim *sim)
{
	return READ_ONCE(sim->net.up);
}

/*
 * The netdev the wire is on: the bound one (held for the device's life),
 * or a cabled port's cable (NULL once gone). Under RCU or RTNL.
 */
static struct net_device *sim_net_dev(struct mlx5sp_sim *sim)
{
	return sim->mdev.netdev ?: sim_port_cable(sim);
}

static bool sim_gid_v4(const u8 *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid);
}

/*
 * The ICRC (IBTA annex A17.3.3, A16 for RoCE v1): CRC32 over 8 bytes of
 * ones (the LRH a RoCE packet does not have), the IP header or GRH with
 * the fields routers change as ones (IPv4: TOS, TTL and checksum; IPv6
 * and the GRH: traffic class, flow label and hop limit), RoCEv2's UDP
 * header with its checksum as ones, the BTH with its reserved byte
 * before the QPN as ones, then everything after the BTH up to the ICRC.
 * @l3: the IP header or GRH; @len: bytes before the ICRC.
 */
static u32 sim_icrc(const u8 *l3, u32 len, enum sim_l3 kind)
{
	static const u8 ones[8] = { 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0xff, 0xff };
	u8 hdr[SIM_L3_HDRS6 + sizeof(struct sim_bth)];
	u32 l3len = sim_l3_len(kind);
	u32 hlen = sim_l3_hdrs(kind) + sizeof(struct sim_bth);
	struct udphdr *udp = (struct udphdr *)(hdr + l3len);
	struct sim_bth *bth = (struct sim_bth *)(hdr + sim_l3_hdrs(kind));
	struct ipv6hdr *ip6;
	struct iphdr *ip;
	u32 crc;

	memcpy(hdr, l3, hlen);
	if (kind != SIM_L3_V4) {
		ip6 = (struct ipv6hdr *)hdr;
		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	} else {
		ip = (struct iphdr *)hdr;
		ip->tos = 0xff;
		ip->ttl = 0xff;
		ip->check = CSUM_MANGLED_0;
	}
	if (kind != SIM_L3_GRH)
		udp->check = CSUM_MANGLED_0;
	bth->qpn |= cpu_to_be32(~SIM_QPN_MASK);
	crc = crc32_le(~0U, ones, sizeof(ones));
	crc = crc32_le(crc, hdr, hlen);
	crc = crc32_le(crc, l3 + hlen, len - hlen);
	return ~crc;
}

/* Source MAC, VLAN and GID of a port's GID entry. */
bool sim_net_path_gid(struct mlx5sp_sim *sim, u8 port, u8 sgid_index,
		      struct sim_tx_path *p)
{
	struct net_device *nd = sim->mdev.netdev;
	struct sim_gid gid;

	/* a cabled port has a path while the cable is gone: sends drop */
	if ((!nd && !sim->port.cabled) ||
	    !sim_gid_get(sim, port, sgid_index, &gid) ||
	    (gid.version != MLX5_ROCE_VERSION_2 &&
	     gid.version != MLX5_ROCE_VERSION_1))
		return false;
	p->v1 = gid.version == MLX5_ROCE_VERSION_1;
	memcpy(p->sgid, gid.gid, sizeof(p->sgid));
	if (is_valid_ether_addr(gid.mac))
		ether_addr_copy(p->smac, gid.mac);
	else if (sim->port.cabled)
		ether_addr_copy(p->smac, sim->port.mac);
	else
		ether_addr_copy(p->smac, nd->dev_addr);
	p->vlan = gid.vlan_valid;
	p->vlan_id = gid.vlan_id;
	return true;
}

/* The address path of a connected QP. Under sq_lock or rq_lock. */
bool sim_net_path_qp(struct sim_qp *qp, struct sim_tx_path *p)
{
	const void *ads = MLX5_ADDR_OF(qpc, qp->qpc, primary_address_path);

	if (!sim_net_path_gid(qp->sim, qp->port, qp->sgid_index, p))
		return false;
	ether_addr_copy(p->dmac, MLX5_ADDR_OF(ads, ads, rmac_47_32));
	memcpy(p->dgid, qp->rgid, sizeof(p->dgid));
	p->ttl = MLX5_GET(ads, ads, hop_limit) ?: SIM_DEFAULT_TTL;
	p->tos = MLX5_GET(ads, ads, tclass);
	p->flow_label = MLX5_GET(ads, ads, flow_label);
	p->sport = MLX5_GET(ads, ads, udp_sport) ?:
		   0xc000 | (qp->qpn & 0x3fff);
	p->prio = MLX5_GET(ads, ads, eth_prio);
	return true;
}

static void sim_put_transport(u8 *h, const struct sim_tx_pkt *t, u8 pad)
{
	struct sim_bth *bth = (struct sim_bth *)h;

	bth->opcode = t->opcode;
	bth->flags = (t->se ? SIM_BTH_SE : 0) | pad << SIM_BTH_PAD_SHIFT;
	bth->pkey = htons(SIM_WIRE_PKEY);
	bth->qpn = cpu_to_be32((t->becn ? SIM_BTH_BECN : 0) |
			       (t->dqpn & SIM_QPN_MASK));
	bth->apsn = cpu_to_be32((t->ackreq ? SIM_BTH_ACKREQ : 0) |
				(t->psn & SIM_PSN_MASK));
	h += sizeof(*bth);
	if (t->hdrs & SIM_HDR_RETH) {
		struct sim_reth *reth = (struct sim_reth *)h;

		put_unaligned_be64(t->va, &reth->va);
		put_unaligned_be32(t->rkey, &reth->rkey);
		put_unaligned_be32(t->dmalen, &reth->len);
		h += sizeof(*reth);
	}
	if (t->hdrs & SIM_HDR_DETH) {
		struct sim_deth *deth = (struct sim_deth *)h;

		put_unaligned_be32(t->qkey, &deth->qkey);
		put_unaligned_be32(t->sqpn & SIM_QPN_MASK, &deth->sqpn);
		h += sizeof(*deth);
	}
	if (t->hdrs & SIM_HDR_AETH) {
		put_unaligned_be32((u32)t->syndrome << 24 |
				   (t->msn & SIM_PSN_MASK), h);
		h += sizeof(struct sim_aeth);
	}
	if (t->hdrs & SIM_HDR_ATMETH) {
		struct sim_atmeth *ae = (struct sim_atmeth *)h;

		put_unaligned_be64(t->va, &ae->va);
		put_unaligned_be32(t->rkey, &ae->rkey);
		put_unaligned_be64(t->swap_add, &ae->swap_add);
		put_unaligned_be64(t->compare, &ae->compare);
		h += sizeof(*ae);
	}
	if (t->hdrs & SIM_HDR_ATMACK) {
		put_unaligned_be64(t->orig, h);
		h += sizeof(struct sim_atmack);
	}
	if (t->hdrs & SIM_HDR_CNP)
		memset(h, 0, SIM_CNP_RSVD);
	if (t->hdrs & (SIM_HDR_IMM | SIM_HDR_IETH))
		memcpy(h, &t->imm, sizeof(t->imm));
}

/* The IPv4 header of a packet of @len bytes from its IP header on. */
static void sim_put_ip4(struct iphdr *ip, const struct sim_tx_path *p,
			u8 tos, u32 len)
{
	ip->version = 4;
	ip->ihl = sizeof(*ip) / 4;
	ip->tos = tos;
	ip->tot_len = htons(len);
	ip->id = 0;
	ip->frag_off = htons(IP_DF);
	ip->ttl = p->ttl;
	ip->protocol = IPPROTO_UDP;
	memcpy(&ip->saddr, p->sgid + 12, 4);
	memcpy(&ip->daddr, p->dgid + 12, 4);
	ip->check = 0;
	ip->check = ip_fast_csum(ip, ip->ihl);
}

/*
 * The IPv6 header or RoCE v1's GRH (the same layout, the BTH next):
 * traffic class (@tos), flow label, hop limit from the path.
 */
static void sim_put_ip6(struct ipv6hdr *ip6, const struct sim_tx_path *p,
			u8 tos, u32 len)
{
	ip6_flow_hdr(ip6, tos,
		     htonl(p->flow_label & 0xfffff));
	ip6->payload_len = htons(len - sizeof(*ip6));
	ip6->nexthdr = p->v1 ? SIM_GRH_NEXT_BTH : IPPROTO_UDP;
	ip6->hop_limit = p->ttl;
	memcpy(&ip6->saddr, p->sgid, sizeof(ip6->saddr));
	memcpy(&ip6->daddr, p->dgid, sizeof(ip6->daddr));
}

/*
 * Build and send one packet: @paylen bytes from @payload (NULL when
 * there are none). RoCE v1 when the source GID is of that type, else
 * RoCEv2: IPv4 when both GIDs are IPv4-mapped, IPv6 when neither is.
 * Returns 0, or an errno when it was not sent (counted: the transport's
 * retransmission covers it, as for a lost packet).
 */
static int __sim_net_send(struct mlx5sp_sim *sim, struct net_device *nd,
			  const struct sim_tx_path *p,
			  const struct sim_tx_pkt *t, struct sim_cur *payload,
			  u32 paylen)
{
	u32 ext = sim_ext_len(t->hdrs), tlen, len;
	u8 pad = -paylen & 3, *h;
	struct sim_sge sge;
	struct sim_cur d;
	struct sk_buff *skb;
	enum sim_l3 kind;
	struct udphdr *udp;
	u32 l3len;
	__be16 proto;
	u8 *l3;
	int err;

	if (!nd || !sim_net_up(sim) || !netif_running(nd) ||
	    (sim->port.cabled && !READ_ONCE(sim->port.oper_up))) {
		err = -ENETDOWN;
		goto err_count;
	}
	if (p->v1) {
		/* a GRH carries any two GIDs */
		kind = SIM_L3_GRH;
		proto = htons(ETH_P_IBOE);
	} else if (sim_gid_v4(p->sgid) != sim_gid_v4(p->dgid)) {
		/* one family for both ends: IPv4 cannot reach IPv6 */
		err = -EAFNOSUPPORT;
		goto err_count;
	} else if (sim_gid_v4(p->sgid)) {
		kind = SIM_L3_V4;
		proto = htons(ETH_P_IP);
	} else {
		kind = SIM_L3_V6;
		proto = htons(ETH_P_IPV6);
	}
	l3len = sim_l3_len(kind);
	tlen = sizeof(struct sim_bth) + ext + paylen + pad + SIM_ICRC_LEN;
	len = sim_l3_hdrs(kind) + tlen;
	if (len > READ_ONCE(nd->mtu)) {
		err = -EMSGSIZE;
		goto err_count;
	}
	skb = alloc_skb(LL_RESERVED_SPACE(nd) + len, GFP_ATOMIC);
	if (!skb) {
		err = -ENOMEM;
		goto err_count;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(nd) + sim_l3_hdrs(kind));
	h = skb_put(skb, sizeof(struct sim_bth) + ext);
	sim_put_transport(h, t, pad);
	if (paylen) {
		sge = (struct sim_sge){ .kva = skb_put(skb, paylen),
					.len = paylen };
		sim_cur_init(&d, &sge, 1);
		if (!payload || sim_cur_copy(sim, &d, sim, payload, paylen)) {
			err = -EFAULT;
			goto err_free_skb;
		}
	}
	skb_put_zero(skb, pad + SIM_ICRC_LEN);

	if (kind != SIM_L3_GRH) {
		udp = skb_push(skb, sizeof(*udp));
		udp->source = htons(p->sport);
		udp->dest = htons(SIM_ROCE_UDP_PORT);
		udp->len = htons(sizeof(*udp) + tlen);
		/*
		 * None, on IPv6 too: the ICRC covers the packet, rxe sends 0
		 * and its tunnel socket takes 0 (RFC 6935/6936)
		 */
		udp->check = 0;
	}
	l3 = skb_push(skb, l3len);
	skb_reset_network_header(skb);
	/* RoCEv2's ECN bits are the reaction point's (cong.c) */
	if (kind == SIM_L3_V4)
		sim_put_ip4((struct iphdr *)l3, p, sim_cong_tos(sim, p), len);
	else if (kind == SIM_L3_V6)
		sim_put_ip6((struct ipv6hdr *)l3, p, sim_cong_tos(sim, p), len);
	else
		sim_put_ip6((struct ipv6hdr *)l3, p, p->tos, len);
	put_unaligned_le32(sim_icrc(l3, len - SIM_ICRC_LEN, kind),
			   l3 + len - SIM_ICRC_LEN);

	skb->protocol = proto;
	skb->dev = nd;
	err = dev_hard_header(skb, nd, ntohs(proto), p->dmac, p->smac,
			      skb->len);
	if (err < 0) {
		err = -EINVAL;
		goto err_free_skb;
	}
	skb_reset_mac_header(skb);
	if (p->vlan)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       (p->vlan_id & VLAN_VID_MASK) |
				       (u16)(p->prio & 0x7) << VLAN_PRIO_SHIFT);
	if (skb_queue_len(&sim->net.txq) >= SIM_NET_TXQ_MAX) {
		err = -ENOBUFS;
		goto err_free_skb;
	}
	/*
	 * Sent by the NAPI (sim_net_poll()): frames are made with BHs off
	 * (under a data-path lock, or in the receive softirq), and a burst
	 * handed to the netdev there would pile up in its per-CPU backlog,
	 * drained only once BHs are on, and overflow it (a 1 MiB UC message
	 * lost whole). The NAPI sends them in slices between the backlog's,
	 * from one CPU at a time, in the order they were made.
	 */
	skb_queue_tail(&sim->net.txq, skb);
	local_bh_disable();
	napi_schedule(&sim->net.napi);
	local_bh_enable();
	atomic64_inc(&sim->net.st.tx_pkts);
	return 0;

err_free_skb:
	kfree_skb(skb);
err_count:
	atomic64_inc(&sim->net.st.tx_dropped);
	return err;
}

/* The packet above, on the wire's netdev as it is now. */
int sim_net_send(struct mlx5sp_sim *sim, const struct sim_tx_path *p,
		 const struct sim_tx_pkt *t, struct sim_cur *payload,
		 u32 paylen)
{
	int err;

	/* a cable may go: it is looked at, and the frame queued, under RCU */
	rcu_read_lock();
	err = __sim_net_send(sim, sim_net_dev(sim), p, t, payload, paylen);
	rcu_read_unlock();
	return err;
}

/*
 * Is @skb (at its IP header) UDP to 4791 in IPv4 without options and
 * fragments, or in IPv6 with UDP the next header (no extension headers,
 * as a ConnectX's RoCE steering takes them), or RoCE v1 (a GRH)?
 */
static bool sim_net_is_roce(struct sk_buff *skb)
{
	const struct udphdr *udp;
	const struct ipv6hdr *ip6;
	const struct iphdr *ip;

	if (skb->protocol == htons(ETH_P_IP)) {
		if (!pskb_may_pull(skb, SIM_L3_HDRS))
			return false;
		ip = (const struct iphdr *)skb->data;
		if (ip->version != 4 || ip->ihl != 5 ||
		    ip->protocol != IPPROTO_UDP || ip_is_fragment(ip))
			return false;
		udp = (const struct udphdr *)(ip + 1);
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		if (!pskb_may_pull(skb, SIM_L3_HDRS6))
			return false;
		ip6 = (const struct ipv6hdr *)skb->data;
		if (ip6->version != 6 || ip6->nexthdr != IPPROTO_UDP)
			return false;
		udp = (const struct udphdr *)(ip6 + 1);
	} else if (skb->protocol == htons(ETH_P_IBOE)) {
		if (!pskb_may_pull(skb, sizeof(*ip6)))
			return false;
		ip6 = (const struct ipv6hdr *)skb->data;
		return ip6->version == 6 && ip6->nexthdr == SIM_GRH_NEXT_BTH;
	} else {
		return false;
	}
	return udp->dest == htons(SIM_ROCE_UDP_PORT);
}

/* A frame for the NAPI (@eth: the NIC's, at its MAC header). Softirq. */
static void sim_net_queue_rx(struct mlx5sp_sim *sim, struct sk_buff *skb,
			     bool eth)
{
	struct sim_net_cb *cb;

	if (skb_queue_len(&sim->net.rxq) >= SIM_NET_RXQ_MAX) {
		atomic64_inc(&sim->net.st.rx_queue_full);
		kfree_skb(skb);
		return;
	}
	cb = sim_net_cb(skb);
	memset(cb, 0, sizeof(*cb));
	cb->eth = eth;
	if (eth) {
		/* a VLAN tag is the frame's: pushed in before */
	} else if (is_vlan_dev(skb->dev)) {
		/* from a VLAN netdev: its VID; the device holds the real one */
		cb->vlan = true;
		cb->vlan_tci = vlan_dev_vlan_id(skb->dev);
		skb->dev = vlan_dev_real_dev(skb->dev);
	} else if (skb_vlan_tag_present(skb)) {
		cb->vlan = true;
		cb->vlan_tci = skb_vlan_tag_get(skb) & ~VLAN_CFI_MASK;
	}
	skb_queue_tail(&sim->net.rxq, skb);
	napi_schedule(&sim->net.napi);
}

/*
 * A frame from a cabled port's cable: every one is the port's (the cable
 * is the wire). RoCE to the RDMA engine while the NIC vport has RoCE on,
 * everything else to the NIC (eth_rq.c), whole: at its MAC header, a
 * VLAN tag back in it (the RQ strips none), a checksum left to offload
 * filled in, a GSO frame (veth hands over 64 KB TSO frames) cut in the
 * frames a wire would have carried. Softirq, at the network header.
 */
static void sim_net_cable_rx(struct mlx5sp_sim *sim, struct sk_buff *skb)
{
	struct sim_port_stats *st = &sim->port.st;
	struct sk_buff *segs, *seg, *next;

	if (!READ_ONCE(sim->port.oper_up))
		goto drop;
	if (READ_ONCE(sim->port.roce_en) && sim_net_is_roce(skb)) {
		atomic64_inc(&st->rx_roce);
		sim_net_queue_rx(sim, skb, false);
		return;
	}
	/* a GSO frame's segments get their checksums below; never help it */
	if (!skb_is_gso(skb) && skb->ip_summed == CHECKSUM_PARTIAL &&
	    skb_checksum_help(skb))
		goto drop;
	skb_push(skb, skb->data - skb_mac_header(skb));
	if (skb_vlan_tag_present(skb)) {
		skb = __vlan_hwaccel_push_inside(skb);
		if (!skb) {
			atomic64_inc(&st->rx_dropped);
			return;
		}
	}
	if (!skb_is_gso(skb)) {
		sim_net_queue_rx(sim, skb, true);
		return;
	}
	/* what the stack sends: checksums left to offload, or checked */
	if (skb->ip_summed != CHECKSUM_PARTIAL &&
	    skb->ip_summed != CHECKSUM_UNNECESSARY)
		goto drop;
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs))
		goto drop;
	consume_skb(skb);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		sim_net_queue_rx(sim, seg, true);
	}
	return;

drop:
	atomic64_inc(&st->rx_dropped);
	kfree_skb(skb);
}

/*
 * Softirq: take IPv4 and IPv6 UDP frames to 4791 and RoCE v1 frames for
 * the device's NAPI, pass the rest. The checks here only tell ours from
 * others; sim_net_rx_one() checks the rest. On a cable, take everything
 * (sim_net_cable_rx()).
 */
static rx_handler_result_t sim_net_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct mlx5sp_sim *sim = rcu_dereference(skb->dev->rx_handler_data);

	if (sim->port.cabled) {
		skb = skb_share_check(skb, GFP_ATOMIC);
		if (skb)
			sim_net_cable_rx(sim, skb);
		return RX_HANDLER_CONSUMED;
	}
	if (skb->pkt_type != PACKET_HOST || !sim_net_is_roce(skb))
		return RX_HANDLER_PASS;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (skb)
		sim_net_queue_rx(sim, skb, false);
	return RX_HANDLER_CONSUMED;
}

/*
 * A frame of the port's NIC (eth_sq.c) out the cable, after the frames
 * made before it, sent by the NAPI. Under rcu_read_lock(). Consumes
 * @skb; -errno when it was dropped.
 */
int sim_net_xmit(struct mlx5sp_sim *sim, struct sk_buff *skb)
{
	struct net_device *nd = sim_net_dev(sim);

	if (!nd || !sim_net_up(sim) || !netif_running(nd) ||
	    skb_queue_len(&sim->net.txq) >= SIM_NET_TXQ_MAX) {
		kfree_skb(skb);
		return -ENOBUFS;
	}
	skb->dev = nd;
	skb_reset_mac_header(skb);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb_queue_tail(&sim->net.txq, skb);
	local_bh_disable();
	napi_schedule(&sim->net.napi);
	local_bh_enable();
	return 0;
}

/*
 * Is @dgid (an IPv6 address, IPv4-mapped for IPv4) one of the device's
 * GIDs of RoCE version @version?
 */
static bool sim_net_owns(struct mlx5sp_sim *sim, const u8 *dgid, u8 version)
{
	const struct sim_gid *g;
	bool found = false;
	int i;

	spin_lock_bh(&sim->roce.gid_lock);
	for (i = 0; i < SIM_GID_TABLE_SIZE && !found; i++) {
		g = &sim->roce.ports[0].gids[i];
		found = g->valid && g->version == version &&
			!memcmp(g->gid, dgid, sizeof(g->gid));
	}
	spin_unlock_bh(&sim->roce.gid_lock);
	return found;
}

/*
 * The IP header or GRH of a frame: its length in @len, the addresses (as
 * GIDs), TTL or hop limit, TOS or traffic class, flow label. The UDP
 * checksum is not looked at (the ICRC covers the packet; rxe sends 0, on
 * IPv6 too).
 */
static bool sim_net_parse_ip(const u8 *l3, enum sim_l3 kind, u32 *len,
			     struct sim_rx_pkt *pkt)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)l3;
	const struct iphdr *ip = (const struct iphdr *)l3;

	if (kind != SIM_L3_V4) {
		if (ip6->version != 6 ||
		    ip6->nexthdr != (kind == SIM_L3_GRH ? SIM_GRH_NEXT_BTH :
						     IPPROTO_UDP))
			return false;
		*len = sizeof(*ip6) + ntohs(ip6->payload_len);
		memcpy(pkt->sgid, &ip6->saddr, sizeof(pkt->sgid));
		memcpy(pkt->dgid, &ip6->daddr, sizeof(pkt->dgid));
		pkt->v1 = kind == SIM_L3_GRH;
		/* RoCEv2: IPv4 addresses come in IPv4 */
		if (!pkt->v1 &&
		    (sim_gid_v4(pkt->sgid) || sim_gid_v4(pkt->dgid)))
			return false;
		pkt->ttl = ip6->hop_limit;
		pkt->tos = ip6_tclass(ip6_flowinfo(ip6));
		pkt->flow_label = ntohl(ip6_flowlabel(ip6));
		return true;
	}
	if (ip->version != 4 || ip->ihl != 5 || ip_fast_csum(ip, ip->ihl))
		return false;
	*len = ntohs(ip->tot_len);
	ipv6_addr_set_v4mapped(ip->saddr, (struct in6_addr *)pkt->sgid);
	ipv6_addr_set_v4mapped(ip->daddr, (struct in6_addr *)pkt->dgid);
	pkt->ttl = ip->ttl;
	pkt->tos = ip->tos;
	return true;
}

/* Parse and check a frame (linear, at its IPv4 or IPv6 header or GRH). */
static bool sim_net_parse(struct mlx5sp_sim *sim, const u8 *l3, u32 avail,
			  enum sim_l3 kind, struct sim_rx_pkt *pkt)
{
	u32 l3len = sim_l3_len(kind);
	const struct udphdr *udp = (const struct udphdr *)(l3 + l3len);
	const struct sim_bth *bth =
		(const struct sim_bth *)(l3 + sim_l3_hdrs(kind));
	u32 min = sim_l3_hdrs(kind) + sizeof(*bth) + SIM_ICRC_LEN;
	struct sim_net_stats *st = &sim->net.st;
	u32 len, tlen, hlen, paypad, pad, apsn;
	const u8 *h;

	if (avail < min || !sim_net_parse_ip(l3, kind, &len, pkt) ||
	    len > avail || len < min ||
	    (kind != SIM_L3_GRH && ntohs(udp->len) != len - l3len))
		goto bad;
	if (!sim_net_owns(sim, pkt->dgid, pkt->v1 ? MLX5_ROCE_VERSION_1 :
						      MLX5_ROCE_VERSION_2)) {
		atomic64_inc(&st->rx_not_ours);
		return false;
	}
	if ((bth->flags & SIM_BTH_TVER_MASK) ||
	    (ntohs(bth->pkey) & 0x7fff) != (SIM_WIRE_PKEY & 0x7fff))
		goto bad;
	pkt->opcode = bth->opcode;
	pkt->op = bth->opcode & ~SIM_TR_MASK;
	pkt->tr = bth->opcode & SIM_TR_MASK;
	if (pkt->op >= SIM_OP_NR || !sim_op_hdrs[pkt->op])
		goto bad;
	pkt->hdrs = sim_op_hdrs[pkt->op];
	switch (pkt->tr) {
	case SIM_TR_RC:
		break;
	case SIM_TR_UC:
		/* SEND and RDMA WRITE */
		if (pkt->op > SIM_OP_WRITE_ONLY_IMM)
			goto bad;
		break;
	case SIM_TR_UD:
		if (pkt->op != SIM_OP_SEND_ONLY &&
		    pkt->op != SIM_OP_SEND_ONLY_IMM)
			goto bad;
		pkt->hdrs |= SIM_HDR_DETH;
		break;
	case SIM_TR_CNP:
		if (bth->opcode != SIM_OP_CNP || pkt->v1)
			goto bad;
		pkt->hdrs = SIM_HDR_CNP;
		break;
	default:
		/* RD, XRC and the rest are not on the model's wire */
		atomic64_inc(&st->rx_dropped);
		return false;
	}

	tlen = len - sim_l3_hdrs(kind);
	hlen = sizeof(*bth) + sim_ext_len(pkt->hdrs);
	if (tlen < hlen + SIM_ICRC_LEN)
		goto bad;
	paypad = tlen - hlen - SIM_ICRC_LEN;
	pad = (bth->flags & SIM_BTH_PAD_MASK) >> SIM_BTH_PAD_SHIFT;
	if (pad > paypad || (!(pkt->hdrs & SIM_HDR_PAYLOAD) && paypad))
		goto bad;
	if (sim_icrc(l3, len - SIM_ICRC_LEN, kind) !=
	    get_unaligned_le32(l3 + len - SIM_ICRC_LEN)) {
		atomic64_inc(&st->rx_bad_icrc);
		return false;
	}

	pkt->se = bth->flags & SIM_BTH_SE;
	pkt->dqpn = be32_to_cpu(bth->qpn) & SIM_QPN_MASK;
	apsn = be32_to_cpu(bth->apsn);
	pkt->ackreq = apsn & SIM_BTH_ACKREQ;
	pkt->psn = apsn & SIM_PSN_MASK;
	h = (const u8 *)(bth + 1);
	if (pkt->hdrs & SIM_HDR_RETH) {
		const struct sim_reth *reth = (const struct sim_reth *)h;

		pkt->va = get_unaligned_be64(&reth->va);
		pkt->rkey = get_unaligned_be32(&reth->rkey);
		pkt->dmalen = get_unaligned_be32(&reth->len);
		h += sizeof(*reth);
	}
	if (pkt->hdrs & SIM_HDR_DETH) {
		const struct sim_deth *deth = (const struct sim_deth *)h;

		pkt->qkey = get_unaligned_be32(&deth->qkey);
		pkt->sqpn = get_unaligned_be32(&deth->sqpn) & SIM_QPN_MASK;
		h += sizeof(*deth);
	}
	if (pkt->hdrs & SIM_HDR_AETH) {
		u32 smsn = get_unaligned_be32(h);

		pkt->syndrome = smsn >> 24;
		pkt->msn = smsn & SIM_PSN_MASK;
		h += sizeof(struct sim_aeth);
	}
	if (pkt->hdrs & SIM_HDR_ATMETH) {
		const struct sim_atmeth *ae = (const struct sim_atmeth *)h;

		pkt->va = get_unaligned_be64(&ae->va);
		pkt->rkey = get_unaligned_be32(&ae->rkey);
		pkt->swap_add = get_unaligned_be64(&ae->swap_add);
		pkt->compare = get_unaligned_be64(&ae->compare);
		h += sizeof(*ae);
	}
	if (pkt->hdrs & SIM_HDR_ATMACK) {
		pkt->orig = get_unaligned_be64(h);
		h += sizeof(struct sim_atmack);
	}
	if (pkt->hdrs & (SIM_HDR_IMM | SIM_HDR_IETH)) {
		memcpy(&pkt->imm, h, sizeof(pkt->imm));
		h += sizeof(pkt->imm);
	}
	pkt->payload = h;
	pkt->paylen = paypad - pad;
	return true;

bad:
	atomic64_inc(&st->rx_bad_hdr);
	return false;
}

static bool sim_net_is_response(u8 op)
{
	return op >= SIM_OP_READ_RESP_FIRST && op <= SIM_OP_ATOMIC_ACK;
}

/* One frame, in NAPI under rcu_read_lock(). */
static void sim_net_rx_one(struct sim_engine *eng, struct mlx5sp_sim *sim,
			   struct sk_buff *skb)
{
	struct sim_rx_pkt pkt = {};
	enum sim_l3 kind = SIM_L3_V4;
	struct sim_qp *qp;

	if (skb->protocol == htons(ETH_P_IPV6))
		kind = SIM_L3_V6;
	else if (skb->protocol == htons(ETH_P_IBOE))
		kind = SIM_L3_GRH;
	if (skb_linearize(skb) ||
	    !sim_net_parse(sim, skb->data, skb->len, kind, &pkt))
		return;
	atomic64_inc(&sim->net.st.rx_pkts);
	pkt.vlan = sim_net_cb(skb)->vlan;
	pkt.vlan_tci = sim_net_cb(skb)->vlan_tci;
	qp = sim_qp_lookup(sim, pkt.dqpn);
	if (!qp)
		goto no_qp;
	if (pkt.tr == SIM_TR_CNP) {
		sim_cong_cnp(sim, qp);
		/* the rate it sets is the engine's to apply */
		sim_engine_kick(sim);
		return;
	}
	/* Congestion Experienced on the way (RoCEv2): the NP answers */
	if (!pkt.v1 && INET_ECN_is_ce(pkt.tos))
		sim_cong_marked(sim, qp, &pkt, skb);
	if (pkt.tr == SIM_TR_UD) {
		if (qp->st != MLX5_QP_ST_UD &&
		    !(qp->st == MLX5_QP_ST_QP1 && pkt.dqpn == SIM_GSI_QPN))
			goto no_qp;
		sim_wire_ud_rx(eng, qp, &pkt);
		return;
	}
	if (pkt.tr == SIM_TR_UC) {
		if (qp->st != MLX5_QP_ST_UC)
			goto no_qp;
		sim_wire_resp_rx(eng, qp, &pkt);
		return;
	}
	if (qp->st != MLX5_QP_ST_RC)
		goto no_qp;
	if (sim_net_is_response(pkt.op)) {
		sim_sq_answer(eng, qp, &pkt);
		return;
	}
	sim_wire_resp_rx(eng, qp, &pkt);
	return;

no_qp:
	atomic64_inc(&sim->net.st.rx_no_qp);
}

/*
 * NAPI: the frames that came in, run where they arrive, in the receive
 * softirq, one poll at a time (frames of one flow stay in order): the
 * responder writes, answers and completes here, the requester takes its
 * answers (sim_sq_answer()); no engine thread stands in the path of a
 * message. A poll is a batch: the ACK a responder holds back goes out at
 * its end (sim_wire_ack_flush()), so a burst is acknowledged once.
 */
static int sim_net_poll(struct napi_struct *napi, int budget)
{
	struct mlx5sp_sim *sim = container_of(napi, struct mlx5sp_sim,
					      net.napi);
	struct sim_engine *eng = &sim->rx_eng;
	struct sk_buff *skb;
	int n = 0, i;

	/* one read-side section: the QP holding an ACK back stays */
	rcu_read_lock();
	while (n < budget && (skb = skb_dequeue(&sim->net.rxq))) {
		n++;
		/* the NIC's frames through its steering, RoCE's to the QPs */
		if (!sim_engine_halted(sim)) {
			if (sim_net_cb(skb)->eth)
				sim_eth_rx(eng, sim, skb);
			else
				sim_net_rx_one(eng, sim, skb);
		}
		consume_skb(skb);
	}
	sim_wire_ack_flush(eng);
	rcu_read_unlock();
	for (i = 0; i < SIM_NET_TX_SLICE; i++) {
		skb = skb_dequeue(&sim->net.txq);
		if (!skb)
			break;
		dev_queue_xmit(skb);
	}
	/* frames left to send: polled again, after the netdev's backlog */
	if (!skb_queue_empty(&sim->net.txq))
		return budget;
	if (n < budget)
		napi_complete_done(napi, n);
	return n;
}

/*
 * The receive side, before the watch of the netdev can hook it: the
 * queue, the NAPI context on a dummy netdev of its own, and the scratch
 * it runs frames with. Sleeps.
 */
int sim_net_init(struct mlx5sp_sim *sim)
{
	struct sim_net *net = &sim->net;

	skb_queue_head_init(&net->rxq);
	skb_queue_head_init(&net->txq);
	/* signature transfers pass through it (xfer.c) */
	sim->rx_eng.wire = kmalloc(SIM_WIRE_BUF, GFP_KERNEL);
	if (!sim->rx_eng.wire)
		return -ENOMEM;
	net->napi_dev = alloc_netdev_dummy(0);
	if (!net->napi_dev) {
		kfree(sim->rx_eng.wire);
		sim->rx_eng.wire = NULL;
		return -ENOMEM;
	}
	netif_napi_add(net->napi_dev, &net->napi, sim_net_poll);
	napi_enable(&net->napi);
	return 0;
}

/* After sim_net_stop() (no hook left): the NAPI context goes. Sleeps. */
void sim_net_fini(struct mlx5sp_sim *sim)
{
	struct sim_net *net = &sim->net;

	if (!net->napi_dev)
		return;
	napi_disable(&net->napi);
	netif_napi_del(&net->napi);
	free_netdev(net->napi_dev);
	net->napi_dev = NULL;
	skb_queue_purge(&net->rxq);
	skb_queue_purge(&net->txq);
	kfree(sim->rx_eng.wire);
	sim->rx_eng.wire = NULL;
}

/*
 * The hook on a cabled port's cable, which is the port's alone: it
 * hears every frame on it (promiscuous). Under RTNL.
 */
static int sim_net_cable_start(struct mlx5sp_sim *sim)
{
	struct net_device *nd = sim_port_cable(sim);
	int err;

	/* going between the device's creation and its watch: missed */
	if (!nd || nd->reg_state != NETREG_REGISTERED)
		return -ENODEV;
	err = netdev_rx_handler_register(nd, sim_net_rx_handler, sim);
	if (err) {
		sim_err(sim, "cable %s has a receive handler (%d)\n",
			netdev_name(nd), err);
		return err;
	}
	err = dev_set_promiscuity(nd, 1);
	if (err) {
		netdev_rx_handler_unregister(nd);
		return err;
	}
	sim->port.promisc = true;
	WRITE_ONCE(sim->net.up, true);
	return 0;
}

/*
 * A cabled port's cable goes (port.c, under RTNL): the hook comes off,
 * and once no one queues frames for it any more, those still queued go
 * without the NAPI running. Sleeps.
 */
void sim_net_cable_gone(struct mlx5sp_sim *sim, struct net_device *nd)
{
	ASSERT_RTNL();
	if (sim_net_up(sim)) {
		WRITE_ONCE(sim->net.up, false);
		netdev_rx_handler_unregister(nd);
	}
	if (sim->port.promisc) {
		dev_set_promiscuity(nd, -1);
		sim->port.promisc = false;
	}
	/* senders looked at the cable under RCU */
	synchronize_rcu();
	if (sim->net.napi_dev) {
		napi_disable(&sim->net.napi);
		skb_queue_purge(&sim->net.txq);
		skb_queue_purge(&sim->net.rxq);
		napi_enable(&sim->net.napi);
	}
}

/* Put the receive hook on the bound netdev or the cable. Sleeps (RTNL). */
int sim_net_start(struct mlx5sp_sim *sim)
{
	struct net_device *nd = sim->mdev.netdev;
	int err;

	if (sim->port.cabled) {
		rtnl_lock();
		err = sim_net_cable_start(sim);
		rtnl_unlock();
		return err;
	}
	if (!nd)
		return 0;
	rtnl_lock();
	err = netdev_rx_handler_register(nd, sim_net_rx_handler, sim);
	rtnl_unlock();
	if (err) {
		/* another user of the hook: the device works, off the wire */
		sim_err(sim, "%s has a receive handler: no RoCEv2 on it (%d)\n",
			netdev_name(nd), err);
		return 0;
	}
	WRITE_ONCE(sim->net.up, true);
	return 0;
}

/*
 * A VLAN netdev on the bound one appeared (or is there when the device
 * starts watching: the notifier replays it): the hook goes on it too.
 * Under RTNL (the netdev notifier).
 */
void sim_net_vlan_add(struct mlx5sp_sim *sim, struct net_device *vdev)
{
	int err;

	err = netdev_rx_handler_register(vdev, sim_net_rx_handler, sim);
	if (err)
		sim_err(sim, "%s has a receive handler: no RoCE on it (%d)\n",
			netdev_name(vdev), err);
}

/* ... and goes: the hook comes off if it is ours. Under RTNL. */
void sim_net_vlan_del(struct mlx5sp_sim *sim, struct net_device *vdev)
{
	if (rcu_access_pointer(vdev->rx_handler) == sim_net_rx_handler &&
	    rtnl_dereference(vdev->rx_handler_data) == sim)
		netdev_rx_handler_unregister(vdev);
}

/* Take the hook off and drop what waits. Sleeps (RTNL). */
void sim_net_stop(struct mlx5sp_sim *sim)
{
	struct net_device *nd = sim->mdev.netdev;

	if (sim->port.cabled) {
		/* and the cable goes with it */
		rtnl_lock();
		sim_port_cable_release(sim);
		rtnl_unlock();
		return;
	}
	if (sim_net_up(sim)) {
		rtnl_lock();
		netdev_rx_handler_unregister(nd);
		rtnl_unlock();
		WRITE_ONCE(sim->net.up, false);
	}
	/* the handler is gone after the grace period unregister waits for */
	skb_queue_purge(&sim->net.rxq);
}

void sim_net_show(struct seq_file *m, struct mlx5sp_sim *sim)
{
	struct sim_net_stats *st = &sim->net.st;

	seq_printf(m, "up %d\n", sim_net_up(sim));
	seq_printf(m, "tx_pkts %lld\n", atomic64_read(&st->tx_pkts));
	seq_printf(m, "tx_dropped %lld\n", atomic64_read(&st->tx_dropped));
	seq_printf(m, "rx_pkts %lld\n", atomic64_read(&st->rx_pkts));
	seq_printf(m, "rx_queue_full %lld\n",
		   atomic64_read(&st->rx_queue_full));
	seq_printf(m, "rx_bad_hdr %lld\n", atomic64_read(&st->rx_bad_hdr));
	seq_printf(m, "rx_bad_icrc %lld\n", atomic64_read(&st->rx_bad_icrc));
	seq_printf(m, "rx_not_ours %lld\n", atomic64_read(&st->rx_not_ours));
	seq_printf(m, "rx_no_qp %lld\n", atomic64_read(&st->rx_no_qp));
	seq_printf(m, "rx_dropped %lld\n", atomic64_read(&st->rx_dropped));
	seq_printf(m, "uc_msgs_dropped %lld\n",
		   atomic64_read(&st->uc_msgs_dropped));
	seq_printf(m, "retransmits %lld\n", atomic64_read(&st->retransmits));
	seq_printf(m, "timeouts %lld\n", atomic64_read(&st->timeouts));
	seq_printf(m, "max_inflight %lld\n",
		   atomic64_read(&st->max_inflight));
	seq_printf(m, "acks_coalesced %lld\n",
		   atomic64_read(&st->acks_coalesced));
	seq_printf(m, "naks_sent %lld\n", atomic64_read(&st->naks_sent));
	seq_printf(m, "naks_rcvd %lld\n", atomic64_read(&st->naks_rcvd));
	seq_printf(m, "rnr_naks_sent %lld\n",
		   atomic64_read(&st->rnr_naks_sent));
	seq_printf(m, "dup_reqs %lld\n", atomic64_read(&st->dup_reqs));
	seq_printf(m, "atomics %lld\n", atomic64_read(&st->atomics));
	seq_printf(m, "atomic_dups %lld\n", atomic64_read(&st->atomic_dups));
	seq_printf(m, "np_ecn_marked %lld\n", atomic64_read(&st->np_ecn_marked));
	seq_printf(m, "np_cnp_sent %lld\n", atomic64_read(&st->np_cnp_sent));
	seq_printf(m, "rp_cnp_handled %lld\n",
		   atomic64_read(&st->rp_cnp_handled));
	seq_printf(m, "rp_cnp_ignored %lld\n",
		   atomic64_read(&st->rp_cnp_ignored));
}
