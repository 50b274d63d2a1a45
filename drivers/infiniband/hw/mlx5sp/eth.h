/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The port's Ethernet NIC: the netdev a ConnectX in Ethernet mode gives
 * its host, owned by mlx5sp when mlx5sp owns the function. One channel
 * (a send queue, a receive queue, their CQs and one NAPI), a TIS and a
 * direct TIR, a PA-mode MKEY over bus DMA addresses, and a NIC_RX root
 * flow table that steers the port's own MAC, broadcast, the multicast
 * list (or all multicast) and, under IFF_PROMISC, everything to the TIR.
 * No offloads but checksums.
 */
#ifndef MLX5SP_ETH_H
#define MLX5SP_ETH_H

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/qp.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>

#include "mlx5sp.h"

#define MLX5SP_ETH_LOG_SQ_SZ	10	/* basic blocks */
#define MLX5SP_ETH_LOG_RQ_SZ	10	/* receive WQEs */
/* L2 header inlined in the eth segment: ETH_HLEN + VLAN_HLEN, as mlx5e */
#define MLX5SP_ETH_INLINE	(ETH_HLEN + VLAN_HLEN)
/* ctrl, eth with the inline header, a data seg for the linear part, frags */
#define MLX5SP_ETH_MAX_DS	(3 + 1 + MAX_SKB_FRAGS)
#define MLX5SP_ETH_MAX_WQE_BBS	DIV_ROUND_UP(MLX5SP_ETH_MAX_DS * MLX5_SEND_WQE_DS, \
					     MLX5_SEND_WQE_BB)
/* The largest port MTU used: a receive buffer is one skb of it. */
#define MLX5SP_ETH_MAX_HW_MTU	10240
/* netdev MTU -> the port's (hardware) MTU: Ethernet header, a VLAN, FCS */
#define MLX5SP_ETH_HW_MTU(mtu)	((mtu) + ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN)
#define MLX5SP_ETH_SW_MTU(hw)	((hw) - ETH_HLEN - VLAN_HLEN - ETH_FCS_LEN)

/* Exact-match steering entries: own MAC, broadcast, unicast and multicast lists. */
#define MLX5SP_ETH_EXACT_ENTRIES	64
#define MLX5SP_ETH_FTE_ALLMULTI		MLX5SP_ETH_EXACT_ENTRIES
#define MLX5SP_ETH_FTE_PROMISC		(MLX5SP_ETH_EXACT_ENTRIES + 1)
#define MLX5SP_ETH_LOG_FT_SIZE		7	/* 66 entries used */

/* The NIC's counters, for ethtool -S: see eth_ethtool.c for the names. */
enum mlx5sp_eth_sq_stat {
	ETH_SQ_PACKETS,
	ETH_SQ_BYTES,
	ETH_SQ_CSUM_PARTIAL,
	ETH_SQ_CSUM_NONE,
	ETH_SQ_STOPPED,
	ETH_SQ_DROPPED,
	ETH_SQ_NR,
};

enum mlx5sp_eth_poll_stat {
	ETH_TXC_WAKE,
	ETH_TXC_CQE_ERR,	/* error CQEs of the send queue */
	ETH_TXC_CQE_BAD,	/* CQEs not to be trusted, dropped */
	ETH_TXC_RECOVER,	/* the send queue brought back from error */
	ETH_RX_PACKETS,
	ETH_RX_BYTES,
	ETH_RX_CSUM_UNNECESSARY,
	ETH_RX_CSUM_NONE,
	ETH_RX_CQE_ERR,
	ETH_RX_CQE_BAD,
	ETH_RX_DROPPED,		/* no buffer to replace the one received */
	ETH_RX_RECOVER,		/* the receive queue brought back from error */
	ETH_POLL_NR,
};

enum mlx5sp_eth_link_stat {
	ETH_LINK_UP,
	ETH_LINK_DOWN,
	ETH_LINK_NR,
};

/* A CQ of the NIC; polled by the NAPI only. */
struct mlx5sp_eth_cq {
	struct mlx5sp_core_cq mcq;
	struct mlx5sp_eth *eth;
	struct mlx5sp_buf buf;
	struct mlx5sp_db db;
	u32 nent;
	u32 cons_index;
	u32 arm_sn;		/* moves with each completion event */
	bool created;
};

/* What one send WQE holds, at the index of its first basic block. */
struct mlx5sp_eth_tx_wqe {
	struct sk_buff *skb;
	u16 nbb;		/* 0: no WQE starts here */
	u16 ndma;		/* entries in the DMA fifo */
	u32 bytes;		/* for BQL */
};

struct mlx5sp_eth_tx_dma {
	dma_addr_t addr;
	u32 len;
	bool page;		/* a fragment, else the linear part */
};

/*
 * The send queue. pc and dma_pc are the xmit path's (under the tx
 * queue's lock), cc and dma_cc the NAPI's; each side reads the other's
 * with READ_ONCE and the barriers beside the queue stop and wake.
 */
struct mlx5sp_eth_sq {
	u32 sqn;
	bool created;
	struct mlx5sp_buf buf;
	struct mlx5sp_db db;
	u32 wqe_cnt;		/* basic blocks, a power of 2 */
	u32 pc;			/* producer, in basic blocks */
	u32 cc;			/* consumer, in basic blocks */
	struct mlx5sp_eth_tx_wqe *wqe;	/* by basic block */
	struct mlx5sp_eth_tx_dma *dma;	/* fifo of the mappings */
	u32 dma_cnt;
	u32 dma_pc;
	u32 dma_cc;
	/* the last WQE posted, its doorbell deferred (xmit_more), or NULL */
	void *db_pending;
	bool in_error;		/* an error CQE: recovery pending (NAPI, work) */
	u8 scratch[MLX5SP_ETH_MAX_WQE_BBS * MLX5_SEND_WQE_BB] __aligned(8);
	struct u64_stats_sync syncp;	/* of stats, written by xmit only */
	u64_stats_t stats[ETH_SQ_NR];
};

/* One receive buffer: an skb mapped for the device, by WQE index. */
struct mlx5sp_eth_rx_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
};

/* The receive queue; the NAPI's only, but at open and stop. */
struct mlx5sp_eth_rq {
	u32 rqn;
	bool created;
	struct mlx5sp_buf buf;
	struct mlx5sp_db db;
	u32 wqe_cnt;
	u32 pc;			/* WQEs posted (the doorbell record's counter) */
	u32 cc;			/* WQEs completed */
	u32 buf_len;		/* bytes a buffer takes, for the MTU */
	bool in_error;		/* an error CQE: recovery pending (NAPI, work) */
	struct mlx5sp_eth_rx_buf *bufs;
};

struct mlx5sp_eth {
	struct mlx5sp_dev *mdev;
	struct net_device *netdev;
	struct napi_struct napi;

	/* device objects that live as long as the NIC */
	u32 pdn;
	u32 tdn;
	u32 tisn;
	u32 mkey;
	u32 ft_id;
	u32 fg_exact;
	u32 fg_allmulti;
	u32 fg_promisc;
	u16 max_mtu;		/* the port's, hardware bytes */
	u8 min_inline;		/* the vport's min_wqe_inline_mode */

	/*
	 * Serialises open, stop, MTU changes, steering updates and the
	 * carrier; protects opened, tirn and the steering state below.
	 */
	struct mutex lock;
	bool opened;
	bool registered;
	u32 tirn;
	bool tir_created;
	u8 exact[MLX5SP_ETH_EXACT_ENTRIES][ETH_ALEN];
	unsigned long exact_used[BITS_TO_LONGS(MLX5SP_ETH_EXACT_ENTRIES)];
	bool allmulti_on;
	bool promisc_on;
	bool link_up;		/* the carrier as last set */

	struct work_struct rx_mode_work;
	struct work_struct carrier_work;
	struct work_struct recover_work;	/* a queue after an error CQE */

	struct mlx5sp_eth_cq tx_cq;
	struct mlx5sp_eth_cq rx_cq;
	struct mlx5sp_eth_sq sq;
	struct mlx5sp_eth_rq rq;

	struct u64_stats_sync poll_syncp;	/* of poll_stats, the NAPI's */
	u64_stats_t poll_stats[ETH_POLL_NR];
	atomic64_t link_stats[ETH_LINK_NR];	/* carrier work */
};

static inline void mlx5sp_eth_poll_inc(struct mlx5sp_eth *eth,
				       enum mlx5sp_eth_poll_stat s, u64 n)
{
	u64_stats_update_begin(&eth->poll_syncp);
	u64_stats_add(&eth->poll_stats[s], n);
	u64_stats_update_end(&eth->poll_syncp);
}

static inline void mlx5sp_eth_sq_inc(struct mlx5sp_eth_sq *sq,
				     enum mlx5sp_eth_sq_stat s, u64 n)
{
	u64_stats_update_begin(&sq->syncp);
	u64_stats_add(&sq->stats[s], n);
	u64_stats_update_end(&sq->syncp);
}

/* The basic blocks of the SQ that no WQE holds (xmit and NAPI). */
static inline u32 mlx5sp_eth_sq_room(const struct mlx5sp_eth_sq *sq)
{
	return sq->wqe_cnt - (READ_ONCE(sq->pc) - READ_ONCE(sq->cc));
}

/* eth.c: the bus and the core's hooks */
bool mlx5sp_eth_gate(struct mlx5sp_dev *mdev);
int mlx5sp_port_add(struct mlx5sp_dev *mdev, struct net_device *bus_netdev);
void mlx5sp_eth_destroy(struct mlx5sp_dev *mdev);
void mlx5sp_eth_port_event(struct mlx5sp_eth *eth, u8 port, u8 sub_type);
void mlx5sp_eth_fatal(struct mlx5sp_eth *eth);
int mlx5sp_eth_access_reg(struct mlx5sp_dev *mdev, u16 reg_id, bool write,
			  const void *data, void *out, int size);
void mlx5sp_eth_get_stats(struct mlx5sp_eth *eth, u64 *sq, u64 *poll);

/* eth_tx.c */
netdev_tx_t mlx5sp_eth_xmit(struct sk_buff *skb, struct net_device *netdev);
bool mlx5sp_eth_poll_tx(struct mlx5sp_eth *eth, int budget);
void mlx5sp_eth_sq_free_all(struct mlx5sp_eth *eth);
void mlx5sp_eth_recover(struct work_struct *work);

/* eth_rx.c */
int mlx5sp_eth_rq_fill(struct mlx5sp_eth *eth, gfp_t gfp);
void mlx5sp_eth_rq_free_all(struct mlx5sp_eth *eth);
int mlx5sp_eth_napi_poll(struct napi_struct *napi, int budget);
void mlx5sp_eth_cq_arm(struct mlx5sp_eth *eth, struct mlx5sp_eth_cq *cq);
struct mlx5_cqe64 *mlx5sp_eth_next_cqe(struct mlx5sp_eth_cq *cq);
void mlx5sp_eth_cqe_bad(struct mlx5sp_eth *eth, struct mlx5sp_eth_cq *cq,
			const struct mlx5_cqe64 *cqe, const char *why);

/* eth_ethtool.c */
extern const struct ethtool_ops mlx5sp_eth_ethtool_ops;

#endif /* MLX5SP_ETH_H */
