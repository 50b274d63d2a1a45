// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NIC's send path: one SEND WQE a frame (a control segment, an
 * Ethernet segment with the L2 header inline, a data segment for the
 * rest of the linear part and one for each fragment, all DMA-mapped on
 * the bus's device and reached through the NIC's PA-mode MKEY), the
 * doorbell record and the UAR doorbell as a QP's, and the reclaim of
 * what the device completed, in the NAPI.
 */
#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mlx5/qp.h>
#include <linux/netdevice.h>

#include "eth.h"

static struct device *eth_dma(struct mlx5sp_eth *eth)
{
	return eth->mdev->dma_dev;
}

/*
 * The checksum flags of a frame: the device fills IPv4/IPv6 TCP/UDP
 * checksums; anything else the stack asks of us is done here.
 */
static int tx_csum(struct sk_buff *skb, u8 *cs, struct mlx5sp_eth_sq *sq)
{
	u8 proto;

	*cs = 0;
	if (skb->ip_summed != CHECKSUM_PARTIAL) {
		mlx5sp_eth_sq_inc(sq, ETH_SQ_CSUM_NONE, 1);
		return 0;
	}
	switch (vlan_get_protocol(skb)) {
	case htons(ETH_P_IP):
		proto = ip_hdr(skb)->protocol;
		break;
	case htons(ETH_P_IPV6):
		proto = ipv6_hdr(skb)->nexthdr;
		break;
	default:
		proto = 0;
		break;
	}
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) &&
	    skb_checksum_start_offset(skb) == skb_transport_offset(skb)) {
		*cs = MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM;
		mlx5sp_eth_sq_inc(sq, ETH_SQ_CSUM_PARTIAL, 1);
		return 0;
	}
	mlx5sp_eth_sq_inc(sq, ETH_SQ_CSUM_NONE, 1);
	return skb_checksum_help(skb);
}

static void unmap_one(struct mlx5sp_eth *eth, struct mlx5sp_eth_tx_dma *d)
{
	if (d->page)
		dma_unmap_page(eth_dma(eth), d->addr, d->len, DMA_TO_DEVICE);
	else
		dma_unmap_single(eth_dma(eth), d->addr, d->len, DMA_TO_DEVICE);
}

/* Undo the last @n mappings of the xmit in progress (tx queue lock). */
static void unmap_last(struct mlx5sp_eth *eth, u32 n)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;

	while (n--) {
		sq->dma_pc--;
		unmap_one(eth, &sq->dma[sq->dma_pc & (sq->dma_cnt - 1)]);
	}
}

static int map_one(struct mlx5sp_eth *eth, struct mlx5_wqe_data_seg *dseg,
		   dma_addr_t addr, u32 len, bool page)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	struct mlx5sp_eth_tx_dma *d;

	if (dma_mapping_error(eth_dma(eth), addr))
		return -ENOMEM;
	d = &sq->dma[sq->dma_pc++ & (sq->dma_cnt - 1)];
	d->addr = addr;
	d->len = len;
	d->page = page;
	dseg->byte_count = cpu_to_be32(len);
	dseg->lkey = cpu_to_be32(eth->mkey);
	dseg->addr = cpu_to_be64(addr);
	return 0;
}

/* Data segments after the inline header: *@nseg of them, mapped. */
static int map_skb(struct mlx5sp_eth *eth, struct sk_buff *skb, u32 ihs,
		   struct mlx5_wqe_data_seg *dseg, u32 *nseg)
{
	u32 headlen = skb_headlen(skb) - ihs;
	dma_addr_t addr;
	u32 n = 0;
	int i, err;

	if (headlen) {
		addr = dma_map_single(eth_dma(eth), skb->data + ihs, headlen,
				      DMA_TO_DEVICE);
		err = map_one(eth, &dseg[n], addr, headlen, false);
		if (err)
			goto err_unmap;
		n++;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 len = skb_frag_size(frag);

		if (!len)
			continue;
		addr = skb_frag_dma_map(eth_dma(eth), frag, 0, len,
					DMA_TO_DEVICE);
		err = map_one(eth, &dseg[n], addr, len, true);
		if (err)
			goto err_unmap;
		n++;
	}
	*nseg = n;
	return 0;

err_unmap:
	unmap_last(eth, n);
	return err;
}

/* The record, then the doorbell with the last WQE's first 8 bytes. */
static void ring_doorbell(struct mlx5sp_eth *eth, const void *ctrl)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	u64 val;

	/* the WQEs are in memory before the record says they are there */
	dma_wmb();
	sq->db.db[MLX5_SND_DBR] = cpu_to_be32(sq->pc & 0xffff);
	/* the record is in memory before the device hears the doorbell */
	wmb();
	memcpy(&val, ctrl, sizeof(val));
	mlx5sp_wr64(eth->mdev, eth->mdev->uar_index * MLX5_ADAPTER_PAGE_SIZE +
		    MLX5SP_UAR_BF_OFFSET, val);
	sq->db_pending = NULL;
}

/* Copy the WQE built in the scratch area into the ring (it may wrap). */
static void *commit_wqe(struct mlx5sp_eth_sq *sq, u32 nbb)
{
	u32 i;

	for (i = 0; i < nbb; i++)
		memcpy(sq->buf.buf + (((sq->pc + i) & (sq->wqe_cnt - 1)) *
				      MLX5_SEND_WQE_BB),
		       sq->scratch + i * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
	return sq->buf.buf + (sq->pc & (sq->wqe_cnt - 1)) * MLX5_SEND_WQE_BB;
}

/* No room for the largest WQE: stop, unless completions made some meanwhile. */
static void maybe_stop(struct mlx5sp_eth_sq *sq, struct netdev_queue *txq)
{
	if (likely(mlx5sp_eth_sq_room(sq) >= MLX5SP_ETH_MAX_WQE_BBS))
		return;
	netif_tx_stop_queue(txq);
	/* pairs with the barrier in the NAPI's wake: it sees stopped, or we its cc */
	smp_mb();
	if (mlx5sp_eth_sq_room(sq) >= MLX5SP_ETH_MAX_WQE_BBS)
		netif_tx_start_queue(txq);
	else
		mlx5sp_eth_sq_inc(sq, ETH_SQ_STOPPED, 1);
}

netdev_tx_t mlx5sp_eth_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct mlx5sp_eth *eth = netdev_priv(netdev);
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, 0);
	struct mlx5sp_eth_sq *sq = &eth->sq;
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5_wqe_eth_seg *eseg;
	struct mlx5sp_eth_tx_wqe *wi;
	u32 ihs, inl_ds, nseg, ds, nbb, len;
	u32 dma_start = sq->dma_pc;
	u8 cs;

	if (unlikely(mlx5sp_dev_dead(eth->mdev) || READ_ONCE(sq->in_error)))
		goto drop;
	/* the port's MTU: a longer frame would put the SQ in error */
	if (unlikely(skb->len < ETH_HLEN ||
		     skb->len > netdev->mtu + ETH_HLEN + VLAN_HLEN))
		goto drop;
	ihs = min_t(u32, skb->len, MLX5SP_ETH_INLINE);
	if (unlikely(!pskb_may_pull(skb, ihs)))
		goto drop;
	if (unlikely(tx_csum(skb, &cs, sq)))
		goto drop;
	if (unlikely(mlx5sp_eth_sq_room(sq) < MLX5SP_ETH_MAX_WQE_BBS)) {
		/* stopped at the last frame: the stack should not be here */
		netif_tx_stop_queue(txq);
		return NETDEV_TX_BUSY;
	}

	memset(sq->scratch, 0, sizeof(sq->scratch));
	ctrl = (void *)sq->scratch;
	eseg = (void *)(ctrl + 1);
	eseg->cs_flags = cs;
	eseg->inline_hdr.sz = cpu_to_be16(ihs);
	/*
	 * The header runs on from inline_hdr.start into the next segments:
	 * copied through the flexible view of it (data), which the scratch
	 * area has room for, not the 2-byte start[] that fortify would see.
	 */
	memcpy(eseg->inline_hdr.data, skb->data, ihs);
	inl_ds = DIV_ROUND_UP(offsetof(struct mlx5_wqe_eth_seg, inline_hdr.start) +
			      ihs, MLX5_SEND_WQE_DS);
	if (unlikely(map_skb(eth, skb, ihs,
			     (void *)((u8 *)eseg + inl_ds * MLX5_SEND_WQE_DS),
			     &nseg)))
		goto drop;
	ds = 1 + inl_ds + nseg;
	nbb = DIV_ROUND_UP(ds * MLX5_SEND_WQE_DS, MLX5_SEND_WQE_BB);
	ctrl->opmod_idx_opcode = cpu_to_be32((sq->pc & 0xffff) << 8 |
					     MLX5_OPCODE_SEND);
	ctrl->qpn_ds = cpu_to_be32(sq->sqn << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;

	len = skb->len;
	wi = &sq->wqe[sq->pc & (sq->wqe_cnt - 1)];
	wi->skb = skb;
	wi->nbb = nbb;
	wi->ndma = sq->dma_pc - dma_start;
	wi->bytes = len;
	skb_tx_timestamp(skb);
	ctrl = commit_wqe(sq, nbb);
	/* the NAPI walks only up to pc: the WQE's record comes first */
	smp_store_release(&sq->pc, sq->pc + nbb);

	u64_stats_update_begin(&sq->syncp);
	u64_stats_inc(&sq->stats[ETH_SQ_PACKETS]);
	u64_stats_add(&sq->stats[ETH_SQ_BYTES], len);
	u64_stats_update_end(&sq->syncp);
	maybe_stop(sq, txq);
	if (__netdev_tx_sent_queue(txq, len, netdev_xmit_more()))
		ring_doorbell(eth, ctrl);
	else
		sq->db_pending = ctrl;
	return NETDEV_TX_OK;

drop:
	mlx5sp_eth_sq_inc(sq, ETH_SQ_DROPPED, 1);
	dev_kfree_skb_any(skb);
	/* WQEs an earlier frame left for the doorbell of this one */
	if (sq->db_pending && !netdev_xmit_more())
		ring_doorbell(eth, sq->db_pending);
	return NETDEV_TX_OK;
}

/* The WQE at basic block @pos is done: its mappings and its frame freed. */
static void reclaim_one(struct mlx5sp_eth *eth, u32 pos, int budget,
			u32 *pkts, u32 *bytes)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	struct mlx5sp_eth_tx_wqe *wi = &sq->wqe[pos & (sq->wqe_cnt - 1)];
	u32 i;

	for (i = 0; i < wi->ndma; i++)
		unmap_one(eth, &sq->dma[sq->dma_cc++ & (sq->dma_cnt - 1)]);
	if (wi->skb) {
		(*pkts)++;
		*bytes += wi->bytes;
		napi_consume_skb(wi->skb, budget);
	}
	memset(wi, 0, sizeof(*wi));
}

/*
 * A CQE names the WQE at @wqe_counter: everything up to it is done. A
 * counter that is not where an outstanding WQE starts is the device's
 * garbage: returns false and touches nothing.
 */
static bool reclaim_upto(struct mlx5sp_eth *eth, u16 wqe_counter, int budget,
			 u32 *pkts, u32 *bytes)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	u32 pos = sq->cc, end, pc;
	u16 nbb;

	/* pairs with xmit's release: the records up to pc are written */
	pc = smp_load_acquire(&sq->pc);

	for (;;) {
		if (pos == pc)
			return false;
		nbb = sq->wqe[pos & (sq->wqe_cnt - 1)].nbb;
		if (WARN_ON_ONCE(!nbb || nbb > pc - pos))
			return false;	/* our own records: never */
		if ((u16)pos == wqe_counter)
			break;
		pos += nbb;
	}
	end = pos + nbb;
	/* the same walk: each WQE's size read before it is cleared */
	for (pos = sq->cc; pos != end; pos += nbb) {
		nbb = sq->wqe[pos & (sq->wqe_cnt - 1)].nbb;
		reclaim_one(eth, pos, budget, pkts, bytes);
	}
	/* pairs with the xmit path's room check */
	smp_store_release(&sq->cc, end);
	return true;
}

static void tx_cqe_err(struct mlx5sp_eth *eth, const struct mlx5_cqe64 *cqe)
{
	const struct mlx5_err_cqe *err = (const struct mlx5_err_cqe *)cqe;

	mlx5sp_eth_poll_inc(eth, ETH_TXC_CQE_ERR, 1);
	if (err->syndrome != MLX5_CQE_SYNDROME_WR_FLUSH_ERR && net_ratelimit())
		netdev_err(eth->netdev,
			   "SQ 0x%x: error CQE, syndrome 0x%x vendor 0x%x at WQE 0x%x\n",
			   eth->sq.sqn, err->syndrome, err->vendor_err_synd,
			   be16_to_cpu(err->wqe_counter));
	if (!READ_ONCE(eth->sq.in_error)) {
		WRITE_ONCE(eth->sq.in_error, true);
		netif_tx_stop_queue(netdev_get_tx_queue(eth->netdev, 0));
		queue_work(system_wq, &eth->recover_work);
	}
}

/* The TX CQ, in the NAPI. Returns true if @budget CQEs were not enough. */
bool mlx5sp_eth_poll_tx(struct mlx5sp_eth *eth, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(eth->netdev, 0);
	struct mlx5sp_eth_cq *cq = &eth->tx_cq;
	struct mlx5sp_eth_sq *sq = &eth->sq;
	u32 pkts = 0, bytes = 0;
	struct mlx5_cqe64 *cqe;
	int n = 0, limit = budget ?: 64;
	u8 opcode;

	while (n < limit && (cqe = mlx5sp_eth_next_cqe(cq))) {
		cq->cons_index++;
		n++;
		opcode = get_cqe_opcode(cqe);
		if ((be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff) != sq->sqn) {
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "another queue's number");
			continue;
		}
		if (opcode == MLX5_CQE_REQ_ERR) {
			tx_cqe_err(eth, cqe);
		} else if (opcode != MLX5_CQE_REQ) {
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "opcode");
			continue;
		}
		if (!reclaim_upto(eth, be16_to_cpu(cqe->wqe_counter), budget,
				  &pkts, &bytes))
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "WQE counter");
	}
	if (!n)
		return false;
	cq->db.db[0] = cpu_to_be32(cq->cons_index & 0xffffff);
	netdev_tx_completed_queue(txq, pkts, bytes);
	/* pairs with maybe_stop(): it sees our cc, or we its stop */
	smp_mb();
	if (netif_tx_queue_stopped(txq) && !READ_ONCE(sq->in_error) &&
	    mlx5sp_eth_sq_room(sq) >= MLX5SP_ETH_MAX_WQE_BBS) {
		netif_tx_wake_queue(txq);
		mlx5sp_eth_poll_inc(eth, ETH_TXC_WAKE, 1);
	}
	return n == limit;
}

/* The SQ is gone (or reset): every frame it held freed. */
void mlx5sp_eth_sq_free_all(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_sq *sq = &eth->sq;
	u32 pkts = 0, bytes = 0;

	if (!sq->wqe)
		return;
	while (sq->cc != sq->pc) {
		u16 nbb = sq->wqe[sq->cc & (sq->wqe_cnt - 1)].nbb;

		reclaim_one(eth, sq->cc, 0, &pkts, &bytes);
		sq->cc += nbb ?: 1;
	}
	/* mappings of a WQE never completed (none: each has its WQE) */
	while (sq->dma_cc != sq->dma_pc)
		unmap_one(eth, &sq->dma[sq->dma_cc++ & (sq->dma_cnt - 1)]);
}
