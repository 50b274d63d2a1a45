/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 on the wire (IBTA vol. 1 ch. 9, annex A17): the transport
 * headers as they are on the wire, and the state a QP keeps for packets.
 *
 * A frame: Ethernet (a VLAN tag if the GID has one), IPv4 or IPv6 (by
 * the GIDs: IPv4-mapped or not), UDP to 4791,
 * BTH, then at most one of RETH / DETH / AETH / AtomicETH, then ImmDt or
 * IETH (or after an AETH, an AtomicAckETH), the payload padded to 4
 * bytes, and the ICRC. Every field is big-endian;
 * the ICRC is a CRC32 stored little-endian (net.c).
 * Then the transport's stages, as rxe splits them: frames in and out of
 * the netdev (net.c), the requester (wire_req.c), the responder
 * (wire_resp.c), congestion (cong.c).
 */
#ifndef MLX5SP_SIM_WIRE_H
#define MLX5SP_SIM_WIRE_H

#include <linux/atomic.h>
#include <linux/if_ether.h>
#include <linux/mlx5/qp.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/types.h>

#include "sgl.h"

struct mlx5sp_sim;
struct net_device;
struct seq_file;
struct sim_cmd;
struct sim_cur;
struct sim_engine;
struct sim_qp;
struct sim_resp_req;

#define SIM_ROCE_UDP_PORT	4791
#define SIM_PSN_MASK		0xffffff
#define SIM_QPN_MASK		0xffffff
#define SIM_WIRE_PKEY		0xffff
#define SIM_ICRC_LEN		4
#define SIM_WIRE_MAX_MSG	SZ_1M	/* a signature key's message, whole */
#define SIM_MSG_MAX		SZ_1G	/* caps.c's log_max_msg */
#define SIM_NET_RXQ_MAX		2048	/* frames waiting for the NAPI */
#define SIM_NET_TXQ_MAX		8192	/* frames it has yet to send */
#define SIM_NET_TX_SLICE	64	/* sent per poll: the backlog's weight */

/* BTH opcode: transport in the top 3 bits, operation in the low 5 */
#define SIM_TR_RC		0x00
#define SIM_TR_UC		0x20
#define SIM_TR_UD		0x60
#define SIM_TR_CNP		0x80
#define SIM_TR_MASK		0xe0
#define SIM_OP_CNP		0x81	/* full opcode (cong.c) */
#define SIM_CNP_RSVD		16	/* its reserved bytes after the BTH */

enum sim_bth_op {
	SIM_OP_SEND_FIRST		= 0x00,
	SIM_OP_SEND_MIDDLE		= 0x01,
	SIM_OP_SEND_LAST		= 0x02,
	SIM_OP_SEND_LAST_IMM		= 0x03,
	SIM_OP_SEND_ONLY		= 0x04,
	SIM_OP_SEND_ONLY_IMM		= 0x05,
	SIM_OP_WRITE_FIRST		= 0x06,
	SIM_OP_WRITE_MIDDLE		= 0x07,
	SIM_OP_WRITE_LAST		= 0x08,
	SIM_OP_WRITE_LAST_IMM		= 0x09,
	SIM_OP_WRITE_ONLY		= 0x0a,
	SIM_OP_WRITE_ONLY_IMM		= 0x0b,
	SIM_OP_READ_REQ			= 0x0c,
	SIM_OP_READ_RESP_FIRST		= 0x0d,
	SIM_OP_READ_RESP_MIDDLE		= 0x0e,
	SIM_OP_READ_RESP_LAST		= 0x0f,
	SIM_OP_READ_RESP_ONLY		= 0x10,
	SIM_OP_ACK			= 0x11,
	SIM_OP_ATOMIC_ACK		= 0x12,
	SIM_OP_CMP_SWAP			= 0x13,
	SIM_OP_FETCH_ADD		= 0x14,
	SIM_OP_SEND_LAST_INV		= 0x16,
	SIM_OP_SEND_ONLY_INV		= 0x17,
	SIM_OP_NR			= 0x18,
};

/* BTH byte 1 */
#define SIM_BTH_SE		0x80
#define SIM_BTH_MIG		0x40
#define SIM_BTH_PAD_SHIFT	4
#define SIM_BTH_PAD_MASK	0x30
#define SIM_BTH_TVER_MASK	0x0f
/* BTH word 1, above the destination QP */
#define SIM_BTH_BECN		BIT(30)
/* BTH word 2 */
#define SIM_BTH_ACKREQ		BIT(31)

struct sim_bth {
	u8 opcode;
	u8 flags;		/* SE, M, pad count, transport version */
	__be16 pkey;
	__be32 qpn;		/* resv8a, destination QP */
	__be32 apsn;		/* AckReq, resv7, PSN */
} __packed;

struct sim_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

struct sim_deth {
	__be32 qkey;
	__be32 sqpn;		/* resv8, source QP */
} __packed;

/* AETH syndrome: bits 7-5 say what it is, 4-0 credits, timer or code */
#define SIM_AETH_ACK		0x00
#define SIM_AETH_RNR_NAK	0x20
#define SIM_AETH_NAK		0x60
#define SIM_AETH_TYPE_MASK	0xe0
#define SIM_AETH_VAL_MASK	0x1f
#define SIM_AETH_NO_CREDITS	0x1f	/* invalid credit count: no limit */
#define SIM_NAK_PSN_SEQ		0
#define SIM_NAK_INV_REQ		1
#define SIM_NAK_REM_ACCESS	2
#define SIM_NAK_REM_OP		3

struct sim_aeth {
	__be32 smsn;		/* syndrome, MSN */
} __packed;

struct sim_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;	/* the swap value, or what to add */
	__be64 compare;
} __packed;

struct sim_atmack {
	__be64 orig;		/* the value before the atomic */
} __packed;

/* ImmDt and IETH: one 32-bit word after the other extension headers */
#define SIM_HDR_RETH		BIT(0)
#define SIM_HDR_DETH		BIT(1)
#define SIM_HDR_AETH		BIT(2)
#define SIM_HDR_IMM		BIT(3)
#define SIM_HDR_IETH		BIT(4)
#define SIM_HDR_PAYLOAD		BIT(5)
#define SIM_HDR_FIRST		BIT(6)	/* the first packet of a message */
#define SIM_HDR_LAST		BIT(7)	/* ... its last (ONLY: both) */
#define SIM_HDR_ATMETH		BIT(8)
#define SIM_HDR_ATMACK		BIT(9)
#define SIM_HDR_CNP		BIT(10)	/* a CNP's reserved bytes */

/* A packet as parsed from the wire, every field checked (net.c). */
struct sim_rx_pkt {
	u8 opcode;		/* full BTH opcode */
	u8 op;			/* opcode & 0x1f */
	u8 tr;			/* opcode & SIM_TR_MASK */
	u16 hdrs;		/* SIM_HDR_* of the opcode */
	bool se;
	bool ackreq;
	u32 dqpn;
	u32 psn;
	u64 va;			/* RETH */
	u32 rkey;
	u32 dmalen;
	u64 swap_add;		/* AtomicETH (va, rkey above) */
	u64 compare;
	u64 orig;		/* AtomicAckETH */
	u8 syndrome;		/* AETH */
	u32 msn;
	u32 qkey;		/* DETH */
	u32 sqpn;
	__be32 imm;		/* ImmDt or IETH */
	const u8 *payload;
	u32 paylen;		/* without the pad */
	/* the network header, for UD's GRH */
	u8 sgid[16];
	u8 dgid[16];
	u8 ttl;			/* or hop limit */
	u8 tos;			/* or traffic class */
	u32 flow_label;		/* IPv6 and the GRH */
	bool v1;		/* RoCE v1: a GRH, no IP and UDP */
	bool vlan;		/* came with a VLAN tag (net.c) */
	u16 vlan_tci;		/* its PCP (0 through a VLAN netdev) and VID */
};

/* Requester of a QP on the wire, under sq_lock (wire_req.c). */
enum sim_wire_next {
	SIM_WIRE_WAITING,	/* packets out, nothing back yet */
	SIM_WIRE_RESEND,	/* a NAK or the RNR timer: from una, now */
	SIM_WIRE_RNR,		/* an RNR NAK came: wait, then resend */
	SIM_WIRE_ANSWERED,	/* acknowledged or NAKed: complete */
	SIM_WIRE_RNR_WAIT,	/* window: the RNR timer runs (win_due) */
};

/*
 * The window (wire_req.c, sq.c): RC SEND, WRITE, READ and atomic WQEs on
 * the wire, past sq_ci, in SQ order, waiting for the ACK of their last
 * PSN (a READ: its last response; an atomic: its ATOMIC_ACKNOWLEDGE).
 * What completes them is kept here; what resends them, and a READ's
 * scatter list, is decoded again from the SQ, where they still are.
 */
#define SIM_WIRE_WINDOW		32
#define SIM_WIRE_RESEND_BURST	4

struct sim_wire_wqe {
	u16 start;		/* first basic block (free running) */
	u16 index;		/* the control segment's WQE index */
	u8 opcode;		/* MLX5_OPCODE_* */
	u8 fm_ce_se;
	u8 nbb;
	u8 err;			/* could not be sent again: its syndrome */
	u32 first_psn;
	u32 npkts;		/* PSNs it takes (a READ: its responses) */
	u32 len;
	u32 rd_psn;		/* READ: where its last request started */
};

struct sim_wire_req {
	u32 snd_psn;		/* PSN of the next new request */
	bool busy;		/* the WQE at sq_ci is on the wire */
	u8 next;		/* enum sim_wire_next */
	u8 rnr_timer;		/* of the last RNR NAK */
	u8 syndrome;		/* ANSWERED by a NAK: the CQE's */
	u8 wqe_opcode;		/* MLX5_OPCODE_* of the busy WQE */
	u32 first_psn;		/* its first PSN */
	u32 npkts;		/* PSNs it takes (a READ: its responses) */
	u32 una;		/* first PSN not acknowledged */
	u32 len;		/* message bytes */
	u32 rd_got;		/* READ: response bytes so far */
	u32 rd_base;		/* READ: the response byte at rd_buf[0] */
	u32 rd_psn;		/* READ: where its last request started */
	u64 atomic_orig;	/* atomic: the AtomicAckETH's value */
	u8 *rd_buf;		/* READ: the response data; UC: a signature
				 * key's wire bytes (SIM_WIRE_MAX_MSG) */
	/* READ: errors of the chunks gone through its keys before the end */
	struct sim_sig_log rd_log;
	/* the window: una, next, syndrome and rnr_timer above are its too */
	u8 win_head;
	u8 win_n;		/* WQEs in flight; never with busy */
	u8 win_rd_atomic;	/* ... READs and atomics (at most the QPC's sra) */
	bool win_progress;	/* una moved: the timer starts again */
	/*
	 * WQEs from win_head out in this round: win_n, but after a go-back-N
	 * the ones sent again (SIM_WIRE_RESEND_BURST, one after a timeout),
	 * the rest going as answers come; nothing new joins meanwhile
	 */
	u8 win_sent;
	bool implied;		/* went back to implied_una at once already */
	u32 implied_una;
	u64 win_due;		/* ktime ns: the local ACK or RNR timer */
	struct sim_wire_wqe win[SIM_WIRE_WINDOW];
};

/*
 * A message through a signature key longer than the buffer its wire
 * bytes are made in, made a window at a time (wire_req.c).
 */
struct sim_wire_sig_stream {
	struct sim_engine *eng;
	struct mlx5sp_sim *sim;
	u8 *buf;			/* SIM_WIRE_MAX_MSG */
	const struct sim_sge *sge;	/* the list it is gathered from */
	u32 n;
	struct sim_sig_log *log;	/* errors found; NULL: reported */
	u64 len;
	u64 base, end;			/* buf holds wire bytes [base, end) */
	struct sim_sge pkt;		/* a packet's bytes in buf */
	u8 syndrome;			/* of a window that cannot be made */
};

bool sim_wire_sig_at(struct sim_wire_sig_stream *ss, struct sim_cur *c,
		     u64 off, u32 n);

/* Responder of a QP on the wire, under rq_lock (wire_resp.c). */
enum sim_wire_msg {
	SIM_MSG_NONE,
	SIM_MSG_SEND,
	SIM_MSG_WRITE,
};

/*
 * The responder's resources for atomics: what each one executed returned,
 * by its PSN, to answer a duplicate without executing it again. As many
 * as the device's log_max_ra_res_qp allows a QP (caps.c: 4).
 */
#define SIM_WIRE_ATOMIC_RES	16

struct sim_wire_atomic_res {
	bool valid;
	u32 psn;
	u64 orig;
};

struct sim_wire_resp {
	u32 epsn;		/* next expected PSN */
	u32 msn;		/* messages completed (24 bits) */
	bool nak_sent;		/* a sequence error NAK is out */
	bool ack_pending;	/* an ACK to go with the engine's batch */
	u32 ack_psn;		/* ... of this PSN */
	u32 ack_msn;		/* ... and this MSN */
	u8 msg;			/* enum sim_wire_msg in progress */
	u32 first_psn;		/* of that message */
	u32 off;		/* its bytes so far */
	u64 va;			/* a WRITE's RETH */
	u32 rkey;
	u32 dmalen;
	bool direct;		/* placed as it comes (rq.c), not gathered */
	bool rq_held;		/* an SRQ WQE taken for a SEND, not done */
	u16 rq_idx;		/* ... its index */
	u8 *buf;		/* a signature key's message whole, READ data
				 * through one (SIM_WIRE_MAX_MSG) */
	u32 base;		/* ... longer: the message byte at buf[0] */
	/* ... the errors its chunks' SIGERR CQEs reported */
	struct sim_sig_log sig_seen;
	u8 atomic_next;		/* the res entry to use next */
	struct sim_wire_atomic_res atomic_res[SIM_WIRE_ATOMIC_RES];
};

/* Counters of the wire, lockless. */
struct sim_net_stats {
	atomic64_t tx_pkts;
	atomic64_t tx_dropped;		/* no memory, netdev down, too big */
	atomic64_t rx_pkts;
	atomic64_t rx_queue_full;
	atomic64_t rx_bad_hdr;		/* length, version, opcode, pad */
	atomic64_t rx_bad_icrc;
	atomic64_t rx_not_ours;		/* destination IP not in the GIDs */
	atomic64_t rx_no_qp;		/* no QP, wrong type, not receiving */
	atomic64_t rx_dropped;		/* out of window, stale, unsupported */
	atomic64_t uc_msgs_dropped;	/* UC messages lost or not taken */
	atomic64_t retransmits;		/* packets sent again */
	atomic64_t timeouts;		/* local ACK timeouts */
	atomic64_t max_inflight;	/* most RC WQEs a QP had on the wire */
	atomic64_t acks_coalesced;	/* ACKs a later one made needless */
	atomic64_t naks_sent;
	atomic64_t naks_rcvd;
	atomic64_t rnr_naks_sent;
	atomic64_t dup_reqs;		/* duplicate requests answered */
	atomic64_t atomics;		/* atomic requests executed */
	atomic64_t atomic_dups;		/* ... answered again from the cache */
	/* congestion (cong.c), the PRM's QUERY_CONG_STATISTICS */
	atomic64_t np_ecn_marked;	/* packets in with ECN CE */
	atomic64_t np_cnp_sent;
	atomic64_t rp_cnp_handled;
	atomic64_t rp_cnp_ignored;	/* CNPs in with ecn_rp off */
};

/* The wire of a device: its receive hook and queue (net.c). */
struct sim_net {
	bool up;			/* rx_handler registered */
	struct sk_buff_head rxq;	/* its own lock; frames for the NAPI */
	struct sk_buff_head txq;	/* its own lock; frames it sends */
	/* runs them (sim_net_poll(), with sim->rx_eng), on a dummy netdev */
	struct napi_struct napi;
	struct net_device *napi_dev;
	struct sim_net_stats st;
};

/* net.c: RoCEv2 frames on the bound netdev */
struct sim_tx_path {
	u8 dmac[ETH_ALEN];
	u8 smac[ETH_ALEN];
	bool vlan;
	u16 vlan_id;
	u8 sgid[16];
	u8 dgid[16];
	u8 ttl;
	u8 tos;
	u16 sport;
	u32 flow_label;			/* IPv6 and the GRH */
	bool v1;			/* RoCE v1: the source GID's type */
	bool cnp;			/* a CNP: not ECN-capable */
	u8 prio;			/* the VLAN tag's PCP */
};

/* An Ethernet address vector's SL, the VLAN priority: bits 3:1. */
static inline u8 sim_av_eth_prio(const struct mlx5_av *av)
{
	return (READ_ONCE(av->stat_rate_sl) >> 1) & 0x7;
}

/* What goes in a packet's transport headers. */
struct sim_tx_pkt {
	u8 opcode;
	bool se;
	bool ackreq;
	u32 dqpn;
	u32 psn;
	u16 hdrs;			/* SIM_HDR_RETH ... SIM_HDR_IETH */
	u64 va;
	u32 rkey;
	u32 dmalen;
	u8 syndrome;
	u32 msn;
	u32 qkey;
	u32 sqpn;
	__be32 imm;
	u64 swap_add;			/* AtomicETH */
	u64 compare;
	u64 orig;			/* AtomicAckETH */
	bool becn;			/* a CNP's */
};

int sim_net_init(struct mlx5sp_sim *sim);
void sim_net_fini(struct mlx5sp_sim *sim);
int sim_net_start(struct mlx5sp_sim *sim);
void sim_net_stop(struct mlx5sp_sim *sim);
void sim_net_vlan_add(struct mlx5sp_sim *sim, struct net_device *vdev);
void sim_net_vlan_del(struct mlx5sp_sim *sim, struct net_device *vdev);
bool sim_net_up(struct mlx5sp_sim *sim);
bool sim_net_path_qp(struct sim_qp *qp, struct sim_tx_path *p);
bool sim_net_path_gid(struct mlx5sp_sim *sim, u8 port, u8 sgid_index,
		      struct sim_tx_path *p);
int sim_net_send(struct mlx5sp_sim *sim, const struct sim_tx_path *p,
		 const struct sim_tx_pkt *t, struct sim_cur *payload,
		 u32 paylen);
void sim_net_show(struct seq_file *m, struct mlx5sp_sim *sim);
int sim_net_xmit(struct mlx5sp_sim *sim, struct sk_buff *skb);
void sim_net_cable_gone(struct mlx5sp_sim *sim, struct net_device *nd);
u32 sim_wire_mtu(const struct sim_qp *qp);
u16 sim_wire_op_hdrs(u8 op);

/* cong.c: ECN marks and CNPs */
void sim_cong_marked(struct mlx5sp_sim *sim, struct sim_qp *qp,
		     const struct sim_rx_pkt *pkt, const struct sk_buff *skb);
void sim_cong_cnp(struct mlx5sp_sim *sim, struct sim_qp *qp);
u8 sim_cong_tos(struct mlx5sp_sim *sim, const struct sim_tx_path *p);
int sim_cmd_query_cong_statistics(struct sim_cmd *c);

static inline s32 sim_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline bool sim_wire_is_atomic(u8 wqe_opcode)
{
	return wqe_opcode == MLX5_OPCODE_ATOMIC_CS ||
	       wqe_opcode == MLX5_OPCODE_ATOMIC_FA;
}

/* What takes a responder resource: an RDMA READ or an atomic */
static inline bool sim_wire_rd_atomic(u8 wqe_opcode)
{
	return wqe_opcode == MLX5_OPCODE_RDMA_READ ||
	       sim_wire_is_atomic(wqe_opcode);
}

/* wire_req.c: the requester on the wire */
enum sim_wire_res {
	SIM_WRES_PENDING,		/* on the wire: wait */
	SIM_WRES_TIMEOUT,		/* waited, nothing came */
	SIM_WRES_RNR,			/* RNR NAK: wait, then resend */
	SIM_WRES_OK,			/* acknowledged: complete */
	SIM_WRES_ERR,			/* NAK or local error: r->syndrome */
};

enum sim_wire_res sim_wire_req_rc(struct sim_engine *eng, struct sim_qp *qp,
				  struct sim_resp_req *r);
u8 sim_wire_req_resend(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r);
bool sim_wire_req_uc(struct sim_engine *eng, struct sim_qp *qp,
		     struct sim_resp_req *r);
void sim_wire_req_rx(struct sim_engine *eng, struct sim_qp *qp,
		     const struct sim_rx_pkt *pkt);
void sim_wire_win_start(struct sim_qp *qp, struct sim_resp_req *r,
			const struct sim_wire_wqe *tmpl);
void sim_wire_win_send(struct sim_qp *qp, struct sim_resp_req *r,
		       struct sim_wire_wqe *e, u32 psn);
/* sq.c: a WQE of the window, or the busy one, decoded again */
u8 sim_sq_win_req(struct sim_engine *eng, struct sim_qp *qp,
		  const struct sim_wire_wqe *e, struct sim_resp_req *r);
u8 sim_sq_head_req(struct sim_engine *eng, struct sim_qp *qp,
		   struct sim_resp_req *r);
void sim_sq_wire_progress(struct sim_qp *qp);
bool sim_wire_ud_send(struct sim_qp *qp, struct sim_resp_req *r,
		      const struct mlx5_av *av, u8 sgid_index, u32 dqpn);
void sim_wire_qp_reset(struct sim_qp *qp, u8 from, u8 to);
void sim_wire_qp_alloc(struct sim_qp *qp, const void *qpc);
void sim_wire_qp_free(struct sim_qp *qp);

/* wire_resp.c: the responder on the wire */
void sim_wire_ack_flush(struct sim_engine *eng);
void sim_wire_resp_rx(struct sim_engine *eng, struct sim_qp *qp,
		      const struct sim_rx_pkt *pkt);
void sim_wire_ud_rx(struct sim_engine *eng, struct sim_qp *qp,
		    const struct sim_rx_pkt *pkt);

#endif /* MLX5SP_SIM_WIRE_H */
