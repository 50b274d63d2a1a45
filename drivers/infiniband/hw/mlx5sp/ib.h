/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mlx5sp: the RDMA device. Speaks mlx5_ib's uverbs ABI (driver_id
 * RDMA_DRIVER_MLX5) so the distribution's libmlx5 drives it, and gives
 * kernel ULPs the ib_core verbs.
 */
#ifndef MLX5SP_IB_H
#define MLX5SP_IB_H

#include <linux/mlx5/cq.h>
#include <linux/mlx5/qp.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/mlx5-abi.h>

#include "mlx5sp.h"

#define MLX5SP_IB_PORT		1
#define MLX5SP_CQE_SIZE		64
/* mlx5_ib's mmap offset encoding (drivers/infiniband/hw/mlx5/mlx5_ib.h). */
#define MLX5SP_MMAP_CMD_SHIFT	8
#define MLX5SP_MMAP_CMD_MASK	0xff
#define MLX5SP_MMAP_OFFSET_START 9
#define MLX5SP_MMAP_OFFSET_END	255
#define MLX5SP_INVALID_BFREG	BIT(31)
#define MLX5SP_INVALID_LKEY	0x100	/* PRM: ends a scatter list */
#define MLX5SP_ATOMIC_SIZE_8B	BIT(3)	/* atomic_size_qp: bit n = 2^n bytes */
#define MLX5SP_IB_ACK_REQ_FREQ	8
/* Pages one fast registration maps (max_fast_reg_page_list_len). */
#define MLX5SP_MAX_FRWR_PAGES	4096
/* data and metadata lists of an integrity MR share one page key */
#define MLX5SP_MAX_PI_PAGES	(MLX5SP_MAX_FRWR_PAGES / 2)
/* A UMR WQE of the kernel: ctrl, UMR ctrl, mkey context, a pointer. */
#define MLX5SP_UMR_WQE_SIZE	(sizeof(struct mlx5_wqe_ctrl_seg) + \
				 sizeof(struct mlx5_wqe_umr_ctrl_seg) + \
				 sizeof(struct mlx5_mkey_seg) + \
				 sizeof(struct mlx5_wqe_data_seg))
/*
 * REG_MR_INTEGRITY: the signature key's UMR WQE (ctrl, UMR ctrl, mkey
 * context, 64 bytes of translations, the BSF), and the basic blocks the
 * whole WR may take: a REG_MR of the internal page key, that UMR and two
 * SET_PSV WQEs.
 */
#define MLX5SP_SIG_XLT_BYTES	64
#define MLX5SP_SIG_UMR_WQE_SIZE	(sizeof(struct mlx5_wqe_ctrl_seg) + \
				 sizeof(struct mlx5_wqe_umr_ctrl_seg) + \
				 sizeof(struct mlx5_mkey_seg) + \
				 MLX5SP_SIG_XLT_BYTES + sizeof(struct mlx5_bsf))
#define MLX5SP_PSV_WQE_SIZE	(sizeof(struct mlx5_wqe_ctrl_seg) + \
				 sizeof(struct mlx5_seg_set_psv))
/*
 * The most basic blocks one kernel send WR takes, with the queue's power-of-2
 * rounding: a REG_MR_INTEGRITY, or a WQE of max_send_sge SGEs (9 each).
 */
#define MLX5SP_MAX_WR_BBS	16
#define MLX5SP_INTEGRITY_BBS	(DIV_ROUND_UP(MLX5SP_UMR_WQE_SIZE, MLX5_SEND_WQE_BB) + \
				 DIV_ROUND_UP(MLX5SP_SIG_UMR_WQE_SIZE, MLX5_SEND_WQE_BB) + \
				 2 * DIV_ROUND_UP(MLX5SP_PSV_WQE_SIZE, MLX5_SEND_WQE_BB))

enum mlx5sp_mmap_cmd {
	MLX5SP_MMAP_REGULAR_PAGE	= 0,
	MLX5SP_MMAP_WC_PAGE		= 2,
	MLX5SP_MMAP_NC_PAGE		= 3,
	MLX5SP_MMAP_CORE_CLOCK		= 5,
	MLX5SP_MMAP_ALLOC_WC		= 6,
	MLX5SP_MMAP_CLOCK_INFO		= 7,
};

enum mlx5sp_mmap_type {
	MLX5SP_MMAP_TYPE_UAR_WC = 1,
	MLX5SP_MMAP_TYPE_UAR_NC,
};

/* The driver's own counters (counters.c), after the Q counters. */
enum mlx5sp_drv_cnt {
	MLX5SP_DRV_SIG_ERR_GUARD,
	MLX5SP_DRV_SIG_ERR_REFTAG,
	MLX5SP_DRV_SIG_ERR_APPTAG,
	MLX5SP_DRV_SQ_DRAINED,
	MLX5SP_DRV_WQES_CANCELLED,
	MLX5SP_DRV_NR,
};

#define MLX5SP_MAX_Q_STATS	32
#define MLX5SP_CONG_STATS	4	/* QUERY_CONG_STATISTICS's */

/*
 * The port's hardware counters: set at device add (before registration)
 * and constant after, but drv[], which any context adds to.
 */
struct mlx5sp_counters {
	u32 set_id;			/* the port's Q counter set, 0: none */
	u32 nq;				/* Q counters listed */
	u32 ncong;			/* congestion counters after them */
	u32 n;				/* nq + ncong + MLX5SP_DRV_NR */
	u16 q_off[MLX5SP_MAX_Q_STATS];	/* bytes into query_q_counter_out */
	struct rdma_stat_desc descs[MLX5SP_MAX_Q_STATS + MLX5SP_CONG_STATS +
				    MLX5SP_DRV_NR];
	atomic64_t drv[MLX5SP_DRV_NR];
	bool enabled;			/* enable_driver ran: clients may count */
};

struct mlx5sp_ib_dev {
	struct ib_device ib;
	struct mlx5sp_dev *mdev;
	struct net_device *netdev;	/* held by the bus (model), may be NULL */
	__be64 sys_image_guid;		/* the device's, as node_guid */
	atomic_t mkey_var;		/* key byte of the next MKEY */
	/*
	 * Integrity MRs by MKEY index; its xa_lock also protects their
	 * mlx5sp_sig err, err_exists and sigerr_count (the CQ poller records
	 * SIGERR CQEs, check_mr_status reads and clears).
	 */
	struct xarray sig_mrs;
	/* DEVX event subscriptions (devx_event.c), any context */
	spinlock_t devx_ev_lock;
	struct list_head devx_subs;
	unsigned int devx_nsubs;
	bool registered;
	struct mlx5sp_counters cnt;	/* counters.c */
	struct work_struct fatal_work;	/* fatal.c: firmware died */
};

struct mlx5sp_user_db_page {
	struct list_head list;		/* in the context's db_pages */
	struct ib_umem *umem;
	unsigned long user_virt;
	int refcnt;
};

struct mlx5sp_ucontext {
	struct ib_ucontext ibuc;
	u32 tdn;			/* transport domain */
	u8 cqe_version;
	struct mutex db_lock;		/* protects db_pages */
	struct list_head db_pages;
	struct xarray uars;		/* UAR index -> mmap entry it came with */
	u16 devx_uid;			/* firmware uid of a DEVX context, or 0 */
};

struct mlx5sp_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	u8 mmap_flag;
	u32 uar_index;
	unsigned long pfn;
	bool is_mem;
};

struct mlx5sp_pd {
	struct ib_pd ibpd;
	u32 pdn;
	u16 uid;
};

struct mlx5sp_ah {
	struct ib_ah ibah;
	struct mlx5_av av;
	u8 sl;
};

/*
 * The signature state of an integrity MR: its two PSVs, and the last
 * signature error the device reported for its key (dev->sig_mrs' lock).
 */
struct mlx5sp_sig {
	u32 psv_mem;
	u32 psv_wire;
	struct ib_sig_err err;
	bool err_exists;
	u32 sigerr_count;		/* errors seen; its low bit goes in the UMR */
	bool checked;			/* check_mr_status since the last UMR */
};

/*
 * What map_mr_sg_pi laid out for an integrity MR: data and metadata as
 * (key, address, length) in the memory domain, through the PD's local DMA
 * key (one entry each) or through the internal page key pi_mr.
 */
struct mlx5sp_pi_layout {
	u32 data_key;
	u64 data_va;
	u32 data_len;
	u32 meta_key;
	u64 meta_va;
	u32 meta_len;			/* 0: no separate metadata */
	bool use_pi_mr;			/* pi_mr must be registered first */
};

struct mlx5sp_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	u32 mkey;
	/* fast registration: the page list and the MKEY it is read through */
	__be64 *descs;
	dma_addr_t descs_dma;
	size_t descs_size;
	u32 descs_mkey;
	u32 max_descs;
	u32 ndescs;
	/* integrity MRs: the signature key is mkey */
	struct mlx5sp_sig *sig;
	struct mlx5sp_mr *pi_mr;	/* internal MTT key for data + metadata */
	struct mlx5sp_pi_layout pi;
};

struct mlx5sp_mw {
	struct ib_mw ibmw;
	u32 mkey;
};

struct mlx5sp_cq {
	struct ib_cq ibcq;
	struct mlx5sp_core_cq mcq;
	/* lock: cons_index, buf, nent, rbuf, rnent, resizing, arm (kernel CQ) */
	spinlock_t lock;		/* protects the kernel CQ's state */
	struct mlx5sp_buf buf;		/* kernel CQ */
	struct ib_umem *umem;		/* user CQ */
	struct mlx5sp_db db;
	struct mutex resize_mutex;	/* serialises resizes */
	struct mlx5sp_buf rbuf;		/* kernel CQ: the other buffer of a resize */
	u32 rnent;
	bool resizing;			/* the device may switch to rbuf */
	u32 nent;
	u32 cons_index;
	u32 arm_sn;
	u32 uar_index;
	u16 uid;			/* firmware uid it was created with */
	bool user;
};

/* A basic SRQ; msrq.qpn is its SRQN. */
struct mlx5sp_srq {
	struct ib_srq ibsrq;
	struct mlx5sp_core_qp msrq;
	struct mlx5sp_buf buf;		/* kernel SRQ */
	struct ib_umem *umem;		/* user SRQ */
	u32 page_offset;
	struct mlx5sp_db db;
	u32 max;			/* WQEs, a power of 2 */
	u32 max_gs;
	u32 wqe_shift;
	bool user;
	spinlock_t lock;	/* protects head, tail, counter, wrid, busy */
	u64 *wrid;			/* kernel SRQ: by WQE index */
	/*
	 * Kernel SRQ: the WQEs posted and not yet completed, by index: a
	 * CQE naming another (a device's duplicate or garbage) is dropped
	 * instead of completing a stale WR and looping the free list.
	 */
	unsigned long *busy;
	u16 head;			/* next free WQE to post */
	u16 tail;			/* last free WQE */
	u16 counter;			/* WQEs posted (doorbell record) */
};

/* One work queue of a kernel QP; head and tail under the queue's lock. */
struct mlx5sp_wq {
	spinlock_t lock;		/* protects head, tail, cur_post, wrid */
	u64 *wrid;
	u32 *wqe_head;			/* SQ: head when the WQE was posted */
	/*
	 * SQ: the IB_WC_* a cancelled WQE keeps; set under lock while the
	 * WQE is pending, read by poll after its CQE.
	 */
	u8 *wc_op;
	/*
	 * SQ: set for a WQE that is not the last of its WR (REG_MR_INTEGRITY
	 * posts several); its flush completion is not reported. Set under
	 * lock while the WQE is pending.
	 */
	unsigned long *partial;
	/*
	 * SQ: the WR (its head) one of whose first WQEs completed in error,
	 * so its last WQE's completion is not reported again. Poll only.
	 */
	u32 failed_head;
	bool failed;
	/*
	 * SQ: the basic block after the last WQE a CQE completed, in the
	 * device's 16 bits: where the oldest outstanding WQE starts (the
	 * software flush of a dead device, fatal.c). Poll only.
	 */
	u16 poll_bb;
	u32 wqe_cnt;
	u32 max_post;
	u32 max_gs;
	u32 wqe_shift;
	u32 offset;			/* in the QP buffer */
	u32 head;
	u32 tail;
	u32 cur_post;			/* SQ: producer, in WQEBBs */
	u32 max_inline;
};

struct mlx5sp_qp {
	struct ib_qp ibqp;
	struct mlx5sp_core_qp mqp;
	enum ib_qp_type type;
	struct mutex mutex;		/* serialises modify and query */
	enum ib_qp_state state;
	u8 port;
	u8 atomic_rd_en;
	u8 resp_depth;
	u8 sq_signal_bits;
	u32 flags;			/* MLX5_QP_FLAG_* the user asked */
	struct mlx5sp_buf buf;		/* kernel QP */
	struct ib_umem *umem;		/* user QP */
	u32 page_offset;
	struct mlx5sp_db db;
	struct mlx5sp_wq sq;
	struct mlx5sp_wq rq;
	u32 uar_index;
	u32 bf_offset;			/* kernel: send doorbell in the UAR */
	u8 *scratch;			/* kernel: a WQE being built; sq.lock */
	u32 wqe_size;			/* kernel: bytes a send WQE may take */
	bool user;
	bool sig_pipelining;		/* kernel: drain on signature error */
	bool integrity;			/* kernel: IB_QP_CREATE_INTEGRITY_EN */
	/* ibqp.counter changed outside RST/RTS: set at the next RTS (mutex) */
	bool counter_pending;
};

/* sq.wc_op of a WQE that was not cancelled */
#define MLX5SP_WC_OP_NONE	0xff

static inline void *mlx5sp_sq_bb(struct mlx5sp_qp *qp, u32 n)
{
	return qp->buf.buf + qp->sq.offset +
	       ((n & (qp->sq.wqe_cnt - 1)) << qp->sq.wqe_shift);
}

/* The basic blocks of the SQ's WQE at @n, by its control segment's size. */
static inline u32 mlx5sp_sq_wqe_nbb(struct mlx5sp_qp *qp, u32 n)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = mlx5sp_sq_bb(qp, n);
	u32 ds = be32_to_cpu(ctrl->qpn_ds) & MLX5_WQE_CTRL_DS_MASK;

	return DIV_ROUND_UP(ds * MLX5_SEND_WQE_DS, MLX5_SEND_WQE_BB) ?: 1;
}

int mlx5sp_qp_enable_drain_sigerr(struct mlx5sp_ib_dev *dev,
				  struct mlx5sp_qp *qp);
bool mlx5sp_qp_sig_stopped(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp);

static inline bool mlx5sp_qp_is_ud(const struct mlx5sp_qp *qp)
{
	return qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI;
}

static inline struct mlx5sp_ib_dev *to_ibdev(struct ib_device *ib)
{
	return container_of(ib, struct mlx5sp_ib_dev, ib);
}

static inline struct mlx5sp_ucontext *to_uctx(struct ib_ucontext *uc)
{
	return container_of(uc, struct mlx5sp_ucontext, ibuc);
}

/*
 * The uid commands for a user's objects carry: its DEVX context's, so the
 * objects are the context's in firmware (and DEVX may name them); 0 for
 * the kernel's and for contexts without DEVX.
 */
static inline u16 mlx5sp_ctx_uid(struct ib_udata *udata)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);

	return uctx ? uctx->devx_uid : 0;
}

static inline struct mlx5sp_pd *to_pd(struct ib_pd *pd)
{
	return container_of(pd, struct mlx5sp_pd, ibpd);
}

static inline struct mlx5sp_ah *to_ah(struct ib_ah *ah)
{
	return container_of(ah, struct mlx5sp_ah, ibah);
}

static inline struct mlx5sp_mr *to_mr(struct ib_mr *mr)
{
	return container_of(mr, struct mlx5sp_mr, ibmr);
}

static inline struct mlx5sp_mw *to_mw(struct ib_mw *mw)
{
	return container_of(mw, struct mlx5sp_mw, ibmw);
}

static inline struct mlx5sp_cq *to_cq(struct ib_cq *cq)
{
	return container_of(cq, struct mlx5sp_cq, ibcq);
}

static inline struct mlx5sp_srq *to_srq(struct ib_srq *srq)
{
	return container_of(srq, struct mlx5sp_srq, ibsrq);
}

static inline struct mlx5sp_qp *to_qp(struct ib_qp *qp)
{
	return container_of(qp, struct mlx5sp_qp, ibqp);
}

static inline struct mlx5sp_mmap_entry *to_mmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct mlx5sp_mmap_entry, rdma_entry);
}

#define MLX5SP_CAP_GEN(ibd, fld) \
	MLX5_GET(cmd_hca_cap, (ibd)->mdev->caps_cur[MLX5SP_CAPS_GENERAL], fld)
#define MLX5SP_CAP_ROCE(ibd, fld) \
	MLX5_GET(roce_cap, (ibd)->mdev->caps_cur[MLX5SP_CAPS_ROCE], fld)
#define MLX5SP_CAP_ATOMIC(ibd, fld) \
	MLX5_GET(atomic_caps, (ibd)->mdev->caps_cur[MLX5SP_CAPS_ATOMIC], fld)

#define ibdev_err_rl(ibd, fmt, ...) \
	ibdev_err_ratelimited(&(ibd)->ib, fmt, ##__VA_ARGS__)

/* ib_main.c */
int mlx5sp_ib_add(struct mlx5sp_dev *mdev, struct net_device *netdev);
void mlx5sp_ib_remove(struct mlx5sp_dev *mdev);
int mlx5sp_ib_module_init(void);
void mlx5sp_ib_module_exit(void);

/* verbs.c */
int mlx5sp_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			struct ib_udata *udata);
int mlx5sp_query_port(struct ib_device *ibdev, u32 port,
		      struct ib_port_attr *props);
int mlx5sp_get_port_immutable(struct ib_device *ibdev, u32 port,
			      struct ib_port_immutable *immutable);
enum rdma_link_layer mlx5sp_get_link_layer(struct ib_device *ibdev, u32 port);
int mlx5sp_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int mlx5sp_add_gid(const struct ib_gid_attr *attr, void **context);
int mlx5sp_del_gid(const struct ib_gid_attr *attr, void **context);
void mlx5sp_get_dev_fw_str(struct ib_device *ibdev, char *str);
int mlx5sp_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void mlx5sp_dealloc_ucontext(struct ib_ucontext *uctx);
void mlx5sp_disassociate_ucontext(struct ib_ucontext *uctx);
int mlx5sp_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void mlx5sp_mmap_free(struct rdma_user_mmap_entry *entry);
int mlx5sp_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mlx5sp_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int mlx5sp_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		     struct ib_udata *udata);
int mlx5sp_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);
int mlx5sp_destroy_ah(struct ib_ah *ibah, u32 flags);
void mlx5sp_fill_av(const struct rdma_ah_attr *ah_attr, struct mlx5_av *av,
		    u16 udp_sport);
bool mlx5sp_uctx_owns_uar(struct mlx5sp_ucontext *uctx, u32 index);
extern const struct uapi_definition mlx5sp_uapi_defs[];

/* devx.c */
extern const struct uapi_definition mlx5sp_devx_defs[];
int mlx5sp_devx_create_uctx(struct mlx5sp_ib_dev *dev, u16 *uid);
void mlx5sp_devx_destroy_uctx(struct mlx5sp_ib_dev *dev, u16 uid);
bool mlx5sp_devx_is_general_cmd(const void *in);
u64 mlx5sp_devx_obj_id(const void *obj);

/* How DEVX names an object: the opcode that created it and its number. */
static inline u64 mlx5sp_devx_enc_id(u16 opcode, u32 id)
{
	return (u64)opcode << 32 | id;
}

/* devx_event.c */
extern const struct uapi_definition mlx5sp_devx_event_defs[];
void mlx5sp_devx_event(struct mlx5sp_ib_dev *dev, const struct mlx5_eqe *eqe);
void mlx5sp_devx_event_obj_gone(struct mlx5sp_ib_dev *dev, const void *obj);

/* devx_async.c */
extern const struct uapi_definition mlx5sp_devx_async_defs[];
int mlx5sp_devx_async_query(struct ib_uobject *fd_uobj, const void *in,
			    int inlen, u16 outlen, u64 wr_id);

/* doorbell.c */
int mlx5sp_db_map_user(struct mlx5sp_ucontext *uctx, unsigned long virt,
		       struct mlx5sp_db *db);
void mlx5sp_db_unmap_user(struct mlx5sp_ucontext *uctx, struct mlx5sp_db *db);

/* buf.c: user queues (kernel buffers: mlx5sp.h) */
void mlx5sp_fill_pas_umem(struct ib_umem *umem, unsigned long page_size,
			  __be64 *pas, u64 flags);
u32 mlx5sp_octo_len(u64 addr, u64 len, unsigned int page_shift);
int mlx5sp_umem_page(struct ib_umem *umem, unsigned long virt, u32 *page_offset,
		     size_t *npages);
struct ib_umem *mlx5sp_uqueue_get(struct mlx5sp_ib_dev *dev,
				  struct mlx5sp_ucontext *uctx, u64 buf_addr,
				  size_t size, int access, u64 db_addr,
				  struct mlx5sp_db *db, u32 *page_offset,
				  size_t *npages);
void mlx5sp_uqueue_put(struct mlx5sp_ucontext *uctx, struct ib_umem *umem,
		       struct mlx5sp_db *db);

/* mr.c */
void mlx5sp_set_umr_mkc(void *mkc, u8 access_mode, u32 pdn);
struct ib_mr *mlx5sp_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *mlx5sp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 virt_addr, int access,
				 struct ib_udata *udata);
int mlx5sp_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *mlx5sp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg);
int mlx5sp_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset);
struct ib_mr *mlx5sp_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_sg,
					u32 max_num_meta_sg);
int mlx5sp_map_mr_sg_pi(struct ib_mr *ibmr, struct scatterlist *data_sg,
			int data_sg_nents, unsigned int *data_sg_offset,
			struct scatterlist *meta_sg, int meta_sg_nents,
			unsigned int *meta_sg_offset);
int mlx5sp_frwr_set_page(struct ib_mr *ibmr, u64 addr);
int mlx5sp_dereg_integrity(struct mlx5sp_ib_dev *dev, struct mlx5sp_mr *mr);
int mlx5sp_check_mr_status(struct ib_mr *ibmr, u32 check_mask,
			   struct ib_mr_status *mr_status);
void mlx5sp_sig_err_cqe(struct mlx5sp_ib_dev *dev,
			const struct mlx5_sig_err_cqe *cqe);
int mlx5sp_create_mkey(struct mlx5sp_ib_dev *dev, u32 *in, int inlen,
		       u32 *mkey);
int mlx5sp_destroy_mkey(struct mlx5sp_ib_dev *dev, u32 mkey);
void mlx5sp_assign_mkey_variant(struct mlx5sp_ib_dev *dev, void *mkc);

/* mw.c */
int mlx5sp_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int mlx5sp_dealloc_mw(struct ib_mw *ibmw);

/* cq.c */
int mlx5sp_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct uverbs_attr_bundle *attrs);
int mlx5sp_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mlx5sp_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata);
int mlx5sp_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int mlx5sp_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void mlx5sp_cq_clean(struct mlx5sp_cq *cq, u32 qpn, struct mlx5sp_srq *srq);

/* fatal.c */
void mlx5sp_fatal_event(void *ctx);
void mlx5sp_fatal_work(struct work_struct *work);
int mlx5sp_poll_dead(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
		     int num_entries, struct ib_wc *wc);
bool mlx5sp_dead_pending(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq);
void mlx5sp_drain_sq(struct ib_qp *ibqp);
void mlx5sp_drain_rq(struct ib_qp *ibqp);
void mlx5sp_parse_cqe(const struct mlx5_cqe64 *cqe, struct ib_wc *wc);
enum ib_wc_status mlx5sp_syndrome_to_status(u8 syndrome);

/* qp.c */
int mlx5sp_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata);
int mlx5sp_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int attr_mask, struct ib_udata *udata);
int mlx5sp_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_qp_init_attr *init_attr);
int mlx5sp_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mlx5sp_cmd_query_qp(struct mlx5sp_dev *mdev, u32 qpn, int outlen,
			void **out);
u16 mlx5sp_qp_transition_op(enum ib_qp_state cur, enum ib_qp_state next);
int mlx5sp_atomic_mode(struct mlx5sp_ib_dev *dev);
bool mlx5sp_atomic_hca(struct mlx5sp_ib_dev *dev);
u32 mlx5sp_max_send_sge(struct mlx5sp_ib_dev *dev);
u32 mlx5sp_max_recv_sge(struct mlx5sp_ib_dev *dev);
u32 mlx5sp_max_qp_wr(struct mlx5sp_ib_dev *dev);
u32 mlx5sp_max_cqe(struct mlx5sp_ib_dev *dev);
u32 mlx5sp_max_srq_wr(struct mlx5sp_ib_dev *dev);
int mlx5sp_qp_module_init(void);
void mlx5sp_qp_module_exit(void);
u32 mlx5sp_qpn(struct mlx5sp_qp *qp);
void mlx5sp_post_ib_event(struct mlx5sp_core_qp *mqp,
			  const struct ib_event *ev,
			  void (*handler)(struct ib_event *, void *),
			  void *context);

int mlx5sp_qp_set_counter(struct ib_qp *ibqp, struct rdma_counter *counter);

/* counters.c */
extern const struct ib_device_ops mlx5sp_counter_ops;
int mlx5sp_counters_init(struct mlx5sp_ib_dev *dev);
void mlx5sp_counters_cleanup(struct mlx5sp_ib_dev *dev);
u32 mlx5sp_counter_set_id(struct mlx5sp_ib_dev *dev, struct ib_qp *ibqp);
void mlx5sp_count(struct mlx5sp_ib_dev *dev, enum mlx5sp_drv_cnt which,
		  u32 n);

/* restrack.c */
extern const struct ib_device_ops mlx5sp_restrack_ops;

/* srq.c */
int mlx5sp_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		      struct ib_udata *udata);
int mlx5sp_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int mlx5sp_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask attr_mask, struct ib_udata *udata);
int mlx5sp_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int mlx5sp_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);
bool mlx5sp_srq_free_wqe(struct mlx5sp_srq *srq, u16 idx);

/* wr.c */
int mlx5sp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int mlx5sp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
int mlx5sp_post_send_drain(struct ib_qp *ibqp, const struct ib_send_wr *wr);
int mlx5sp_post_recv_drain(struct ib_qp *ibqp, const struct ib_recv_wr *wr);
u8 mlx5sp_ib_opcode(enum ib_wr_opcode op);
int mlx5sp_build_send_wqe(void *wqe, size_t room, u32 qpn, u16 idx,
			  const struct ib_send_wr *wr, u8 fence_bits,
			  u32 max_inline, bool ud, u8 *ds_out);

#endif /* MLX5SP_IB_H */
