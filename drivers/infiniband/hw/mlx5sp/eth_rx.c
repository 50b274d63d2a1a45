// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NIC's receive path and its NAPI: a cyclic RQ of one data segment a
 * WQE, each an skb sized for the MTU; the poll of the TX and RX CQs, with
 * every CQE checked before it is believed (owner, format, opcode, queue
 * number, WQE counter, byte count): a CQE that fails is counted, said
 * (ratelimited) and dropped, never followed. A slot always holds a
 * buffer: a frame whose replacement cannot be allocated is dropped and
 * its buffer posted again, so the RQ never runs dry.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/qp.h>
#include <linux/netdevice.h>

#include "eth.h"

/* The next CQE software owns, or NULL. */
struct mlx5_cqe64 *mlx5sp_eth_next_cqe(struct mlx5sp_eth_cq *cq)
{
	struct mlx5_cqe64 *cqe = cq->buf.buf +
		(cq->cons_index & (cq->nent - 1)) * sizeof(*cqe);
	u8 op_own = READ_ONCE(cqe->op_own);

	if ((op_own >> 4) == MLX5_CQE_INVALID ||
	    ((op_own & MLX5_CQE_OWNER_MASK) ^ !!(cq->cons_index & cq->nent)))
		return NULL;
	/* the body only after the owner bit said it is ours */
	dma_rmb();
	return cqe;
}

/* A CQE the device should not have written: counted, said, dropped. */
void mlx5sp_eth_cqe_bad(struct mlx5sp_eth *eth, struct mlx5sp_eth_cq *cq,
			const struct mlx5_cqe64 *cqe, const char *why)
{
	bool tx = cq == &eth->tx_cq;

	mlx5sp_eth_poll_inc(eth, tx ? ETH_TXC_CQE_BAD : ETH_RX_CQE_BAD, 1);
	if (net_ratelimit())
		netdev_warn(eth->netdev,
			    "%s CQ 0x%x: CQE dropped (%s): opcode 0x%x qpn 0x%x wqe_counter 0x%x byte_cnt %u\n",
			    tx ? "TX" : "RX", cq->mcq.cqn, why, cqe->op_own >> 4,
			    be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff,
			    be16_to_cpu(cqe->wqe_counter),
			    be32_to_cpu(cqe->byte_cnt));
}

/* Ask for an event at the next CQE: the record, then the doorbell. */
void mlx5sp_eth_cq_arm(struct mlx5sp_eth *eth, struct mlx5sp_eth_cq *cq)
{
	u32 sn = cq->arm_sn & 3;
	u32 ci = cq->cons_index & 0xffffff;
	__be32 db[2];
	u64 val;

	cq->db.db[0] = cpu_to_be32(ci);
	cq->db.db[1] = cpu_to_be32(sn << 28 | MLX5_CQ_DB_REQ_NOT | ci);
	/* the record is in memory before the device hears the doorbell */
	wmb();
	db[0] = cpu_to_be32(sn << 28 | MLX5_CQ_DB_REQ_NOT | ci);
	db[1] = cpu_to_be32(cq->mcq.cqn);
	memcpy(&val, db, sizeof(val));
	mlx5sp_wr64(eth->mdev, eth->mdev->uar_index * MLX5_ADAPTER_PAGE_SIZE +
		    MLX5_CQ_DOORBELL, val);
}

static int rx_buf_alloc(struct mlx5sp_eth *eth, struct mlx5sp_eth_rx_buf *b,
			gfp_t gfp)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = __netdev_alloc_skb_ip_align(eth->netdev, rq->buf_len, gfp);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(eth->mdev->dma_dev, skb->data, rq->buf_len,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(eth->mdev->dma_dev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	b->skb = skb;
	b->dma = dma;
	return 0;
}

static void rx_buf_unmap(struct mlx5sp_eth *eth, struct mlx5sp_eth_rx_buf *b)
{
	dma_unmap_single(eth->mdev->dma_dev, b->dma, eth->rq.buf_len,
			 DMA_FROM_DEVICE);
}

/*
 * Post every free WQE again, each with the buffer its slot holds (a new
 * one for a slot without, at open), then the receive counter.
 */
int mlx5sp_eth_rq_fill(struct mlx5sp_eth *eth, gfp_t gfp)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	struct mlx5_wqe_data_seg *dseg;
	struct mlx5sp_eth_rx_buf *b;
	u32 idx, posted = 0;
	int err = 0;

	while (rq->pc - rq->cc < rq->wqe_cnt) {
		idx = rq->pc & (rq->wqe_cnt - 1);
		b = &rq->bufs[idx];
		if (!b->skb) {
			err = rx_buf_alloc(eth, b, gfp);
			if (err)
				break;
		}
		dseg = rq->buf.buf + idx * sizeof(*dseg);
		dseg->byte_count = cpu_to_be32(rq->buf_len);
		dseg->lkey = cpu_to_be32(eth->mkey);
		dseg->addr = cpu_to_be64(b->dma);
		rq->pc++;
		posted++;
	}
	if (posted) {
		/* the WQEs are in memory before the counter says so */
		dma_wmb();
		rq->db.db[MLX5_RCV_DBR] = cpu_to_be32(rq->pc & 0xffff);
	}
	return err;
}

/* The RQ is gone: every buffer unmapped and freed. */
void mlx5sp_eth_rq_free_all(struct mlx5sp_eth *eth)
{
	struct mlx5sp_eth_rq *rq = &eth->rq;
	u32 i;

	if (!rq->bufs)
		return;
	for (i = 0; i < rq->wqe_cnt; i++) {
		struct mlx5sp_eth_rx_buf *b = &rq->bufs[i];

		if (!b->skb)
			continue;
		rx_buf_unmap(eth, b);
		dev_kfree_skb_any(b->skb);
		b->skb = NULL;
	}
}

static void rx_csum(struct mlx5sp_eth *eth, struct sk_buff *skb,
		    const struct mlx5_cqe64 *cqe)
{
	if ((eth->netdev->features & NETIF_F_RXCSUM) &&
	    (cqe->hds_ip_ext & CQE_L3_OK) && (cqe->hds_ip_ext & CQE_L4_OK) &&
	    ((cqe->l4_l3_hdr_type >> 4) & 0x7) != CQE_L4_HDR_TYPE_NONE) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		mlx5sp_eth_poll_inc(eth, ETH_RX_CSUM_UNNECESSARY, 1);
		return;
	}
	skb->ip_summed = CHECKSUM_NONE;
	mlx5sp_eth_poll_inc(eth, ETH_RX_CSUM_NONE, 1);
}

/* A frame in the buffer of slot @b: up the stack, a new buffer in its place. */
static void rx_frame(struct mlx5sp_eth *eth, struct mlx5sp_eth_rx_buf *b,
		     const struct mlx5_cqe64 *cqe, u32 len)
{
	struct mlx5sp_eth_rx_buf fresh;
	struct sk_buff *skb = b->skb;

	if (rx_buf_alloc(eth, &fresh, GFP_ATOMIC)) {
		/* the frame is dropped, its buffer posted again */
		mlx5sp_eth_poll_inc(eth, ETH_RX_DROPPED, 1);
		return;
	}
	/* unmapping syncs what the device wrote for the CPU */
	rx_buf_unmap(eth, b);
	*b = fresh;
	skb_put(skb, len);
	skb->protocol = eth_type_trans(skb, eth->netdev);
	rx_csum(eth, skb, cqe);
	u64_stats_update_begin(&eth->poll_syncp);
	u64_stats_inc(&eth->poll_stats[ETH_RX_PACKETS]);
	u64_stats_add(&eth->poll_stats[ETH_RX_BYTES], len);
	u64_stats_update_end(&eth->poll_syncp);
	napi_gro_receive(&eth->napi, skb);
}

static int poll_rx(struct mlx5sp_eth *eth, int budget)
{
	struct mlx5sp_eth_cq *cq = &eth->rx_cq;
	struct mlx5sp_eth_rq *rq = &eth->rq;
	struct mlx5sp_eth_rx_buf *b;
	struct mlx5_cqe64 *cqe;
	int n = 0;
	u32 len;
	u8 opcode;

	/* CQEs dropped count too: a device writing garbage gets a budget */
	while (n < budget && (cqe = mlx5sp_eth_next_cqe(cq))) {
		cq->cons_index++;
		n++;
		opcode = get_cqe_opcode(cqe);
		if ((be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff) != rq->rqn) {
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "another queue's number");
			continue;
		}
		/* cyclic: the device takes WQEs in order, only posted ones */
		if (rq->cc == rq->pc ||
		    be16_to_cpu(cqe->wqe_counter) != (u16)rq->cc) {
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "WQE counter");
			continue;
		}
		b = &rq->bufs[rq->cc & (rq->wqe_cnt - 1)];
		rq->cc++;
		if (opcode == MLX5_CQE_RESP_ERR) {
			const struct mlx5_err_cqe *err = (const void *)cqe;

			mlx5sp_eth_poll_inc(eth, ETH_RX_CQE_ERR, 1);
			if (err->syndrome != MLX5_CQE_SYNDROME_WR_FLUSH_ERR &&
			    net_ratelimit())
				netdev_err(eth->netdev, "RQ 0x%x: error CQE, syndrome 0x%x vendor 0x%x\n",
					   rq->rqn, err->syndrome,
					   err->vendor_err_synd);
			/* the RQ is in error: brought back by the work */
			if (!READ_ONCE(rq->in_error)) {
				WRITE_ONCE(rq->in_error, true);
				queue_work(system_wq, &eth->recover_work);
			}
			continue;
		}
		len = be32_to_cpu(cqe->byte_cnt);
		if (opcode != MLX5_CQE_RESP_SEND || mlx5_get_cqe_format(cqe)) {
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "opcode");
			continue;
		}
		if (len < ETH_HLEN || len > rq->buf_len) {
			mlx5sp_eth_cqe_bad(eth, cq, cqe, "byte count");
			continue;
		}
		rx_frame(eth, b, cqe, len);
	}
	if (n) {
		cq->db.db[0] = cpu_to_be32(cq->cons_index & 0xffffff);
		/* a slot never lacks a buffer here: no allocation fails */
		mlx5sp_eth_rq_fill(eth, GFP_ATOMIC);
	}
	return n;
}

int mlx5sp_eth_napi_poll(struct napi_struct *napi, int budget)
{
	struct mlx5sp_eth *eth = container_of(napi, struct mlx5sp_eth, napi);
	bool tx_busy;
	int done;

	tx_busy = mlx5sp_eth_poll_tx(eth, budget);
	if (!budget)
		return 0;	/* netpoll: the send side only */
	done = poll_rx(eth, budget);
	if (tx_busy || done == budget)
		return budget;
	if (napi_complete_done(napi, done)) {
		mlx5sp_eth_cq_arm(eth, &eth->tx_cq);
		mlx5sp_eth_cq_arm(eth, &eth->rx_cq);
	}
	return done;
}
