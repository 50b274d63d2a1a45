// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: RC, UC, UD and the GSI QP (QP1, a PRM QP1-type QP firmware
 * steers MADs to), for user space (mlx5_ib_create_qp udata) and kernel
 * ULPs, receiving on their own RQ or from an SRQ (rq_type SRQ). Modify
 * follows the IB state machine: ib_modify_qp_is_ok() and our
 * own checks reject a transition or an attribute before any command; the
 * PRM transition commands carry the QPC fields mlx5_ib sets.
 */
#include <linux/etherdevice.h>
#include <linux/slab.h>

#include "ib.h"
#include "mlx5sp_ulp.h"
#include "trace.h"

#define KERNEL_UIDX		0xffffff	/* MLX5_IB_DEFAULT_UIDX */
#define RQ_MIN_STRIDE		16
#define RC_SQ_OVERHEAD		(sizeof(struct mlx5_wqe_ctrl_seg) + \
				 sizeof(struct mlx5_wqe_raddr_seg) + \
				 sizeof(struct mlx5_wqe_atomic_seg))
#define UD_SQ_OVERHEAD		(sizeof(struct mlx5_wqe_ctrl_seg) + \
				 sizeof(struct mlx5_wqe_datagram_seg))

/* Flags of mlx5_ib_create_qp we take: dynamic UARs; scatter-to-CQE is a
 * permission the device may ignore, and this one does.
 */
#define USER_QP_FLAGS	(MLX5_QP_FLAG_UAR_PAGE_INDEX | \
			 MLX5_QP_FLAG_SCATTER_CQE | \
			 MLX5_QP_FLAG_ALLOW_SCATTER_CQE)

static bool is_ud(enum ib_qp_type t)
{
	return t == IB_QPT_UD || t == IB_QPT_GSI;
}

static int to_mlx5_st(enum ib_qp_type t)
{
	switch (t) {
	case IB_QPT_RC:
		return MLX5_QP_ST_RC;
	case IB_QPT_UC:
		return MLX5_QP_ST_UC;
	case IB_QPT_UD:
		return MLX5_QP_ST_UD;
	case IB_QPT_GSI:
		return MLX5_QP_ST_QP1;
	default:
		return -EOPNOTSUPP;
	}
}

static int to_mlx5_state(enum ib_qp_state s)
{
	switch (s) {
	case IB_QPS_RESET:	return MLX5_QP_STATE_RST;
	case IB_QPS_INIT:	return MLX5_QP_STATE_INIT;
	case IB_QPS_RTR:	return MLX5_QP_STATE_RTR;
	case IB_QPS_RTS:	return MLX5_QP_STATE_RTS;
	case IB_QPS_SQD:	return MLX5_QP_STATE_SQD;
	case IB_QPS_SQE:	return MLX5_QP_STATE_SQER;
	case IB_QPS_ERR:	return MLX5_QP_STATE_ERR;
	default:		return -1;
	}
}

static enum ib_qp_state from_qpc_state(u8 s)
{
	switch (s) {
	case MLX5_QPC_STATE_RST:	return IB_QPS_RESET;
	case MLX5_QPC_STATE_INIT:	return IB_QPS_INIT;
	case MLX5_QPC_STATE_RTR:	return IB_QPS_RTR;
	case MLX5_QPC_STATE_RTS:	return IB_QPS_RTS;
	/* SQ drained (5) or still draining (7, which mlx5_ifc.h calls SQD) */
	case MLX5_QP_STATE_SQD:
	case MLX5_QP_STATE_SQ_DRAINING:	return IB_QPS_SQD;
	case MLX5_QPC_STATE_SQER:	return IB_QPS_SQE;
	default:			return IB_QPS_ERR;
	}
}

/**
 * mlx5sp_qp_transition_op - the PRM command that moves a QP between states
 * @cur: current state
 * @next: requested state
 *
 * Returns the opcode, or 0 when there is none (an illegal or unsupported
 * transition). Legality by the IB spec is ib_modify_qp_is_ok()'s.
 */
u16 mlx5sp_qp_transition_op(enum ib_qp_state cur, enum ib_qp_state next)
{
	static const u16 optab[MLX5_QP_NUM_STATE][MLX5_QP_NUM_STATE] = {
		[MLX5_QP_STATE_RST] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_INIT]	= MLX5_CMD_OP_RST2INIT_QP,
		},
		[MLX5_QP_STATE_INIT] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_ERR]	= MLX5_CMD_OP_2ERR_QP,
			[MLX5_QP_STATE_INIT]	= MLX5_CMD_OP_INIT2INIT_QP,
			[MLX5_QP_STATE_RTR]	= MLX5_CMD_OP_INIT2RTR_QP,
		},
		[MLX5_QP_STATE_RTR] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_ERR]	= MLX5_CMD_OP_2ERR_QP,
			[MLX5_QP_STATE_RTS]	= MLX5_CMD_OP_RTR2RTS_QP,
		},
		[MLX5_QP_STATE_RTS] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_ERR]	= MLX5_CMD_OP_2ERR_QP,
			[MLX5_QP_STATE_RTS]	= MLX5_CMD_OP_RTS2RTS_QP,
			[MLX5_QP_STATE_SQD]	= MLX5SP_CMD_OP_RTS2SQD_QP,
		},
		[MLX5_QP_STATE_SQD] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_ERR]	= MLX5_CMD_OP_2ERR_QP,
			[MLX5_QP_STATE_RTS]	= MLX5_CMD_OP_SQD_RTS_QP,
		},
		[MLX5_QP_STATE_SQER] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_ERR]	= MLX5_CMD_OP_2ERR_QP,
			[MLX5_QP_STATE_RTS]	= MLX5_CMD_OP_SQERR2RTS_QP,
		},
		[MLX5_QP_STATE_ERR] = {
			[MLX5_QP_STATE_RST]	= MLX5_CMD_OP_2RST_QP,
			[MLX5_QP_STATE_ERR]	= MLX5_CMD_OP_2ERR_QP,
		},
	};
	int c = to_mlx5_state(cur), n = to_mlx5_state(next);

	if (c < 0 || n < 0 || c >= MLX5_QP_NUM_STATE || n >= MLX5_QP_NUM_STATE)
		return 0;
	return optab[c][n];
}
EXPORT_SYMBOL_GPL(mlx5sp_qp_transition_op);

/* Optional parameters each transition may carry, per service type (mlx5_ib). */
static u32 opt_mask(u16 op, int st)
{
	switch (op) {
	case MLX5_CMD_OP_INIT2INIT_QP:
		if (st == MLX5_QP_ST_RC)
			return MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE |
			       MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PKEY_INDEX |
			       MLX5_QP_OPTPAR_PRI_PORT;
		if (st == MLX5_QP_ST_UC)
			return MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_PKEY_INDEX |
			       MLX5_QP_OPTPAR_PRI_PORT;
		if (st == MLX5_QP_ST_UD)
			return MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_Q_KEY |
			       MLX5_QP_OPTPAR_PRI_PORT;
		return 0;
	case MLX5_CMD_OP_INIT2RTR_QP:
		if (st == MLX5_QP_ST_RC)
			return MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RRE |
			       MLX5_QP_OPTPAR_RAE | MLX5_QP_OPTPAR_RWE |
			       MLX5_QP_OPTPAR_PKEY_INDEX;
		if (st == MLX5_QP_ST_UC)
			return MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RWE |
			       MLX5_QP_OPTPAR_PKEY_INDEX;
		if (st == MLX5_QP_ST_UD)
			return MLX5_QP_OPTPAR_PKEY_INDEX | MLX5_QP_OPTPAR_Q_KEY;
		return 0;
	case MLX5_CMD_OP_RTR2RTS_QP:
		if (st == MLX5_QP_ST_RC)
			return MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RRE |
			       MLX5_QP_OPTPAR_RAE | MLX5_QP_OPTPAR_RWE |
			       MLX5_QP_OPTPAR_PM_STATE | MLX5_QP_OPTPAR_RNR_TIMEOUT;
		if (st == MLX5_QP_ST_UC)
			return MLX5_QP_OPTPAR_ALT_ADDR_PATH | MLX5_QP_OPTPAR_RWE |
			       MLX5_QP_OPTPAR_PM_STATE;
		if (st == MLX5_QP_ST_UD)
			return MLX5_QP_OPTPAR_Q_KEY;
		return 0;
	case MLX5_CMD_OP_RTS2RTS_QP:
		if (st == MLX5_QP_ST_RC)
			return MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE |
			       MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_RNR_TIMEOUT |
			       MLX5_QP_OPTPAR_PM_STATE | MLX5_QP_OPTPAR_ALT_ADDR_PATH;
		if (st == MLX5_QP_ST_UC)
			return MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_ALT_ADDR_PATH |
			       MLX5_QP_OPTPAR_PM_STATE;
		if (st == MLX5_QP_ST_UD)
			return MLX5_QP_OPTPAR_Q_KEY | MLX5_QP_OPTPAR_SRQN |
			       MLX5_QP_OPTPAR_CQN_RCV;
		return 0;
	case MLX5_CMD_OP_SQERR2RTS_QP:
		if (st == MLX5_QP_ST_UC)
			return MLX5_QP_OPTPAR_RWE;
		if (st == MLX5_QP_ST_RC)
			return MLX5_QP_OPTPAR_RNR_TIMEOUT | MLX5_QP_OPTPAR_RWE |
			       MLX5_QP_OPTPAR_RAE | MLX5_QP_OPTPAR_RRE;
		if (st == MLX5_QP_ST_UD)
			return MLX5_QP_OPTPAR_Q_KEY;
		return 0;
	default:
		return 0;
	}
}

static u32 ib_nr_to_optpar(int ib_mask)
{
	switch (ib_mask) {
	case IB_QP_ACCESS_FLAGS:
		return MLX5_QP_OPTPAR_RWE | MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE;
	case IB_QP_PKEY_INDEX:
		return MLX5_QP_OPTPAR_PKEY_INDEX;
	case IB_QP_PORT:
		return MLX5_QP_OPTPAR_PRI_PORT;
	case IB_QP_QKEY:
		return MLX5_QP_OPTPAR_Q_KEY;
	case IB_QP_AV:
		return MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH | MLX5_QP_OPTPAR_PRI_PORT;
	case IB_QP_TIMEOUT:
		return MLX5_QP_OPTPAR_ACK_TIMEOUT;
	case IB_QP_RETRY_CNT:
		return MLX5_QP_OPTPAR_RETRY_COUNT;
	case IB_QP_RNR_RETRY:
		return MLX5_QP_OPTPAR_RNR_RETRY;
	case IB_QP_MAX_QP_RD_ATOMIC:
		return MLX5_QP_OPTPAR_SRA_MAX;
	case IB_QP_ALT_PATH:
		return MLX5_QP_OPTPAR_ALT_ADDR_PATH;
	case IB_QP_MIN_RNR_TIMER:
		return MLX5_QP_OPTPAR_RNR_TIMEOUT;
	case IB_QP_MAX_DEST_RD_ATOMIC:
		return MLX5_QP_OPTPAR_RRA_MAX | MLX5_QP_OPTPAR_RWE |
		       MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE;
	case IB_QP_PATH_MIG_STATE:
		return MLX5_QP_OPTPAR_PM_STATE;
	default:
		return 0;
	}
}

static u32 ib_mask_to_optpar(int attr_mask)
{
	u32 r = 0;
	int i;

	for (i = 0; i < 31; i++)
		if (attr_mask & BIT(i))
			r |= ib_nr_to_optpar(BIT(i));
	return r;
}

/*
 * 8-byte compare-swap and fetch-add, responses in host endianness
 * (set_atomic_caps() asked for it): what IB_ATOMIC_HCA promises.
 */
bool mlx5sp_atomic_hca(struct mlx5sp_ib_dev *dev)
{
	u8 ops = MLX5_ATOMIC_OPS_CMP_SWAP | MLX5_ATOMIC_OPS_FETCH_ADD;

	if (!MLX5SP_CAP_GEN(dev, atomic))
		return false;
	return (MLX5SP_CAP_ATOMIC(dev, atomic_operations) & ops) == ops &&
	       (MLX5SP_CAP_ATOMIC(dev, atomic_size_qp) & MLX5SP_ATOMIC_SIZE_8B) &&
	       MLX5SP_CAP_ATOMIC(dev, atomic_req_8B_endianness_mode);
}

/* The QPC atomic_mode of an RC QP, as mlx5_ib's get_atomic_mode(). */
int mlx5sp_atomic_mode(struct mlx5sp_ib_dev *dev)
{
	u8 ops = MLX5SP_CAP_ATOMIC(dev, atomic_operations);
	int mode = -EOPNOTSUPP;
	u32 sizes;

	if (!mlx5sp_atomic_hca(dev))
		return -EOPNOTSUPP;
	sizes = MLX5SP_CAP_ATOMIC(dev, atomic_size_qp) & 0x1ff;
	if ((ops & (MLX5_ATOMIC_OPS_EXTENDED_CMP_SWAP |
		    MLX5_ATOMIC_OPS_EXTENDED_FETCH_ADD)) && sizes)
		mode = __fls(sizes) > 3 ? __fls(sizes) : MLX5_ATOMIC_MODE_8B;
	if (mode <= 0)
		mode = MLX5_ATOMIC_MODE_IB_COMP;
	return mode;
}

u32 mlx5sp_qpn(struct mlx5sp_qp *qp)
{
	return qp->mqp.qpn;
}

/*
 * Asynchronous events of QPs and SRQs reach their handlers from one
 * ordered work item each, in the order the EQ gave them. The work holds
 * the object's reference (its destroy waits for it).
 */
struct ib_event_work {
	struct work_struct work;
	struct ib_event ev;
	void (*handler)(struct ib_event *ev, void *context);
	void *context;
	struct mlx5sp_core_qp *mqp;
};

static struct workqueue_struct *ib_event_wq;

static void ib_event_work(struct work_struct *work)
{
	struct ib_event_work *w = container_of(work, struct ib_event_work,
					       work);

	if (w->handler)
		w->handler(&w->ev, w->context);
	if (refcount_dec_and_test(&w->mqp->refcount))
		complete(&w->mqp->free);
	kfree(w);
}

/**
 * mlx5sp_post_ib_event - deliver @ev to @handler from the event work
 * @mqp: the QP or SRQ the event is about; the EQ dispatcher holds a
 *	 reference while it calls us, and the work takes one of its own
 * @ev: the event (copied)
 * @handler: the object's event handler, may be NULL
 * @context: its context
 *
 * Any context. An event that finds no memory is dropped, as an EQ
 * overrun would drop it.
 */
void mlx5sp_post_ib_event(struct mlx5sp_core_qp *mqp,
			  const struct ib_event *ev,
			  void (*handler)(struct ib_event *, void *),
			  void *context)
{
	struct ib_event_work *w;

	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return;
	INIT_WORK(&w->work, ib_event_work);
	w->ev = *ev;
	w->handler = handler;
	w->context = context;
	w->mqp = mqp;
	refcount_inc(&mqp->refcount);
	queue_work(ib_event_wq, &w->work);
}

static void qp_event(struct mlx5sp_core_qp *mqp, u8 type)
{
	struct mlx5sp_qp *qp = container_of(mqp, struct mlx5sp_qp, mqp);
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
	};

	switch (type) {
	case MLX5_EVENT_TYPE_PATH_MIG:
		ev.event = IB_EVENT_PATH_MIG;
		break;
	case MLX5_EVENT_TYPE_COMM_EST:
		ev.event = IB_EVENT_COMM_EST;
		break;
	case MLX5_EVENT_TYPE_SQ_DRAINED:
		ev.event = IB_EVENT_SQ_DRAINED;
		mlx5sp_count(to_ibdev(qp->ibqp.device), MLX5SP_DRV_SQ_DRAINED, 1);
		break;
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
		ev.event = IB_EVENT_QP_LAST_WQE_REACHED;
		break;
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
		ev.event = IB_EVENT_QP_FATAL;
		break;
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
		ev.event = IB_EVENT_PATH_MIG_ERR;
		break;
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
		ev.event = IB_EVENT_QP_REQ_ERR;
		break;
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
		ev.event = IB_EVENT_QP_ACCESS_ERR;
		break;
	default:
		return;
	}
	mlx5sp_post_ib_event(mqp, &ev, qp->ibqp.event_handler,
			     qp->ibqp.qp_context);
}

int mlx5sp_qp_module_init(void)
{
	ib_event_wq = alloc_ordered_workqueue("mlx5sp_qp_event", 0);
	return ib_event_wq ? 0 : -ENOMEM;
}

void mlx5sp_qp_module_exit(void)
{
	destroy_workqueue(ib_event_wq);
}

/* Sizes */

static int check_caps(struct mlx5sp_ib_dev *dev, struct ib_qp_init_attr *attr)
{
	u32 max_wr = mlx5sp_max_qp_wr(dev);
	struct ib_qp_cap *cap = &attr->cap;

	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr)
		return -EINVAL;
	if (cap->max_recv_sge > mlx5sp_max_recv_sge(dev) ||
	    cap->max_send_sge > mlx5sp_max_send_sge(dev))
		return -EINVAL;
	if (cap->max_inline_data > MLX5SP_CAP_GEN(dev, max_wqe_sz_sq) -
				   UD_SQ_OVERHEAD - sizeof(struct mlx5_wqe_inline_seg))
		return -EINVAL;
	return 0;
}

static int set_kernel_rq_size(struct mlx5sp_qp *qp, struct ib_qp_init_attr *attr)
{
	u32 stride;

	if (!attr->cap.max_recv_wr || attr->srq) {
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
		return 0;
	}
	stride = max_t(u32, RQ_MIN_STRIDE, attr->cap.max_recv_sge *
		       sizeof(struct mlx5_wqe_data_seg));
	stride = roundup_pow_of_two(stride);
	qp->rq.wqe_shift = ilog2(stride);
	qp->rq.wqe_cnt = roundup_pow_of_two(attr->cap.max_recv_wr);
	qp->rq.max_gs = stride / sizeof(struct mlx5_wqe_data_seg);
	qp->rq.max_post = qp->rq.wqe_cnt;
	attr->cap.max_recv_wr = qp->rq.max_post;
	attr->cap.max_recv_sge = qp->rq.max_gs;
	return 0;
}

static int set_kernel_sq_size(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			      struct ib_qp_init_attr *attr)
{
	size_t overhead = is_ud(attr->qp_type) ? UD_SQ_OVERHEAD : RC_SQ_OVERHEAD;
	size_t inl = ALIGN(sizeof(struct mlx5_wqe_inline_seg) +
			   attr->cap.max_inline_data, MLX5_SEND_WQE_DS);
	size_t wqe_size, bbs;

	if (!attr->cap.max_send_wr)
		return 0;
	wqe_size = overhead + max_t(size_t, inl, attr->cap.max_send_sge *
				    sizeof(struct mlx5_wqe_data_seg));
	/* RC: room for a fast registration / local invalidate UMR */
	if (!is_ud(attr->qp_type))
		wqe_size = max_t(size_t, wqe_size, MLX5SP_UMR_WQE_SIZE);
	/* and with integrity: for a signature key's UMR */
	if (qp->integrity)
		wqe_size = max_t(size_t, wqe_size, MLX5SP_SIG_UMR_WQE_SIZE);
	wqe_size = ALIGN(wqe_size, MLX5_SEND_WQE_BB);
	if (wqe_size > MLX5SP_CAP_GEN(dev, max_wqe_sz_sq))
		return -EINVAL;
	bbs = wqe_size / MLX5_SEND_WQE_BB;
	/* each WR may take the WQEs of a REG_MR_INTEGRITY */
	if (qp->integrity)
		bbs = max_t(size_t, bbs, MLX5SP_INTEGRITY_BBS);
	qp->sq.wqe_shift = ilog2(MLX5_SEND_WQE_BB);
	qp->sq.wqe_cnt = roundup_pow_of_two(attr->cap.max_send_wr * bbs);
	/* -ENOMEM as mlx5_ib: ULPs (ib_srpt) retry with a smaller queue */
	if (qp->sq.wqe_cnt > (1U << MLX5SP_CAP_GEN(dev, log_max_qp_sz)))
		return -ENOMEM;
	qp->sq.max_post = qp->sq.wqe_cnt / bbs;
	qp->sq.max_gs = (wqe_size - overhead) / sizeof(struct mlx5_wqe_data_seg);
	qp->sq.max_inline = wqe_size - overhead - sizeof(struct mlx5_wqe_inline_seg);
	qp->wqe_size = wqe_size;
	attr->cap.max_send_wr = qp->sq.max_post;
	attr->cap.max_send_sge = qp->sq.max_gs;
	attr->cap.max_inline_data = qp->sq.max_inline;
	return 0;
}

static void free_kernel_qp(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp)
{
	kvfree(qp->sq.wrid);
	kvfree(qp->sq.wqe_head);
	kvfree(qp->sq.wc_op);
	bitmap_free(qp->sq.partial);
	kvfree(qp->rq.wrid);
	kfree(qp->scratch);
	qp->scratch = NULL;
	qp->sq.wrid = NULL;
	qp->sq.wqe_head = NULL;
	qp->sq.wc_op = NULL;
	qp->sq.partial = NULL;
	qp->rq.wrid = NULL;
	mlx5sp_buf_free(dev->mdev, &qp->buf);
	mlx5sp_db_free(dev->mdev, &qp->db);
}

static int create_kernel_qp(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			    struct ib_qp_init_attr *attr, size_t *npages)
{
	size_t size;
	int err;

	err = set_kernel_rq_size(qp, attr);
	if (err)
		return err;
	err = set_kernel_sq_size(dev, qp, attr);
	if (err)
		return err;
	qp->rq.offset = 0;
	qp->sq.offset = qp->rq.wqe_cnt << qp->rq.wqe_shift;
	size = qp->sq.offset + (qp->sq.wqe_cnt << qp->sq.wqe_shift);
	if (!size)
		return -EINVAL;
	err = mlx5sp_db_alloc(dev->mdev, &qp->db);
	if (err)
		return err;
	err = mlx5sp_buf_alloc(dev->mdev, size, &qp->buf);
	if (err)
		goto err_free;
	*npages = mlx5sp_buf_npages(&qp->buf);
	if (qp->sq.wqe_cnt) {
		qp->sq.wrid = kvcalloc(qp->sq.wqe_cnt, sizeof(u64), GFP_KERNEL);
		qp->sq.wqe_head = kvcalloc(qp->sq.wqe_cnt, sizeof(u32), GFP_KERNEL);
		qp->sq.wc_op = kvmalloc(qp->sq.wqe_cnt, GFP_KERNEL);
		qp->sq.partial = bitmap_zalloc(qp->sq.wqe_cnt, GFP_KERNEL);
		qp->scratch = kzalloc(qp->wqe_size, GFP_KERNEL);
		if (!qp->sq.wrid || !qp->sq.wqe_head || !qp->sq.wc_op ||
		    !qp->sq.partial || !qp->scratch) {
			err = -ENOMEM;
			goto err_free;
		}
		memset(qp->sq.wc_op, MLX5SP_WC_OP_NONE, qp->sq.wqe_cnt);
	}
	if (qp->rq.wqe_cnt) {
		qp->rq.wrid = kvcalloc(qp->rq.wqe_cnt, sizeof(u64), GFP_KERNEL);
		if (!qp->rq.wrid) {
			err = -ENOMEM;
			goto err_free;
		}
	}
	qp->uar_index = dev->mdev->uar_index;
	qp->bf_offset = MLX5SP_UAR_BF_OFFSET;
	qp->sq_signal_bits = attr->sq_sig_type == IB_SIGNAL_ALL_WR ?
			     MLX5_WQE_CTRL_CQ_UPDATE : 0;
	return 0;

err_free:
	free_kernel_qp(dev, qp);
	return err;
}

static int parse_user_qp(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			 struct mlx5sp_ucontext *uctx,
			 struct ib_qp_init_attr *attr,
			 struct mlx5_ib_create_qp *ucmd)
{
	u32 max_wr = 1 << MLX5SP_CAP_GEN(dev, log_max_qp_sz);

	if (ucmd->flags & ~USER_QP_FLAGS)
		return -EOPNOTSUPP;
	if (ucmd->sq_buf_addr || ucmd->ece_options ||
	    ucmd->dci_streams.log_num_concurent || ucmd->dci_streams.log_num_errored ||
	    ucmd->reserved)
		return -EOPNOTSUPP;
	/* The send doorbell goes to a UAR this context allocated. */
	if (!(ucmd->flags & MLX5_QP_FLAG_UAR_PAGE_INDEX) ||
	    !mlx5sp_uctx_owns_uar(uctx, ucmd->bfreg_index))
		return -EINVAL;
	if (uctx->cqe_version ? ucmd->uidx > 0xffffff : ucmd->uidx != KERNEL_UIDX)
		return -EINVAL;
	if (ucmd->sq_wqe_count && (!is_power_of_2(ucmd->sq_wqe_count) ||
				   ucmd->sq_wqe_count > max_wr))
		return -EINVAL;
	/* With an SRQ the QP has no receive queue of its own. */
	if (attr->srq && ucmd->rq_wqe_count)
		return -EINVAL;
	if (ucmd->rq_wqe_count) {
		if (!is_power_of_2(ucmd->rq_wqe_count) ||
		    ucmd->rq_wqe_count > max_wr ||
		    ucmd->rq_wqe_shift < ilog2(RQ_MIN_STRIDE) ||
		    BIT(ucmd->rq_wqe_shift) > MLX5SP_CAP_GEN(dev, max_wqe_sz_rq))
			return -EINVAL;
	}
	if (!ucmd->sq_wqe_count && !ucmd->rq_wqe_count && !attr->srq)
		return -EINVAL;
	/* What the user allocated must hold what it asked the QP to hold. */
	if ((!attr->srq && ucmd->rq_wqe_count < attr->cap.max_recv_wr) ||
	    (attr->cap.max_send_wr && !ucmd->sq_wqe_count))
		return -EINVAL;
	qp->flags = ucmd->flags;
	qp->rq.wqe_cnt = ucmd->rq_wqe_count;
	qp->rq.wqe_shift = ucmd->rq_wqe_count ? ucmd->rq_wqe_shift : 0;
	qp->rq.max_post = qp->rq.wqe_cnt;
	qp->rq.max_gs = ucmd->rq_wqe_count ?
			BIT(qp->rq.wqe_shift) / sizeof(struct mlx5_wqe_data_seg) : 0;
	qp->sq.wqe_cnt = ucmd->sq_wqe_count;
	qp->sq.wqe_shift = ilog2(MLX5_SEND_WQE_BB);
	qp->rq.offset = 0;
	qp->sq.offset = qp->rq.wqe_cnt << qp->rq.wqe_shift;
	qp->uar_index = ucmd->bfreg_index;
	return 0;
}

static int create_user_qp(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			  struct ib_qp_init_attr *attr, struct ib_udata *udata,
			  size_t *npages, u32 *uidx)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);
	struct mlx5_ib_create_qp ucmd = {};
	struct ib_umem *umem;
	size_t size;
	int err;

	if (udata->inlen < offsetofend(struct mlx5_ib_create_qp, bfreg_index))
		return -EINVAL;
	if (udata->inlen > sizeof(ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(ucmd), udata->inlen - sizeof(ucmd)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	err = parse_user_qp(dev, qp, uctx, attr, &ucmd);
	if (err)
		return err;
	*uidx = uctx->cqe_version ? ucmd.uidx : KERNEL_UIDX;
	size = qp->sq.offset + ((size_t)qp->sq.wqe_cnt << qp->sq.wqe_shift);
	umem = mlx5sp_uqueue_get(dev, uctx, ucmd.buf_addr, size, 0, ucmd.db_addr,
				 &qp->db, &qp->page_offset, npages);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	qp->umem = umem;
	qp->user = true;
	return 0;
}

static void destroy_user_qp(struct mlx5sp_qp *qp, struct ib_udata *udata)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);

	mlx5sp_uqueue_put(uctx, qp->umem, &qp->db);
}

static int create_qp_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			 struct ib_qp_init_attr *attr, size_t npages, u32 uidx)
{
	u32 out[MLX5_ST_SZ_DW(create_qp_out)] = {};
	__be64 *pas;
	void *qpc;
	int inlen;
	u32 *in;
	int err;

	inlen = MLX5_ST_SZ_BYTES(create_qp_in) + npages * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	pas = (__be64 *)MLX5_ADDR_OF(create_qp_in, in, pas);
	if (qp->user)
		mlx5sp_fill_pas_umem(qp->umem, MLX5_ADAPTER_PAGE_SIZE, pas, 0);
	else
		mlx5sp_fill_pas_contig(qp->buf.dma, npages, pas);
	MLX5_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
	MLX5_SET(create_qp_in, in, uid, to_pd(qp->ibqp.pd)->uid);
	qpc = MLX5_ADDR_OF(create_qp_in, in, qpc);
	MLX5_SET(qpc, qpc, st, to_mlx5_st(attr->qp_type));
	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	MLX5_SET(qpc, qpc, pd, to_pd(qp->ibqp.pd)->pdn);
	MLX5_SET(qpc, qpc, uar_page, qp->uar_index);
	MLX5_SET(qpc, qpc, log_page_size, 0);	/* 4 KiB, relative to 4 KiB */
	MLX5_SET(qpc, qpc, page_offset, qp->page_offset);
	if (attr->srq) {
		MLX5_SET(qpc, qpc, rq_type, MLX5_SRQ_RQ);
		MLX5_SET(qpc, qpc, srqn_rmpn_xrqn, to_srq(attr->srq)->msrq.qpn);
	} else if (qp->rq.wqe_cnt) {
		MLX5_SET(qpc, qpc, log_rq_stride, qp->rq.wqe_shift - 4);
		MLX5_SET(qpc, qpc, log_rq_size, ilog2(qp->rq.wqe_cnt));
		MLX5_SET(qpc, qpc, rq_type, MLX5_NON_ZERO_RQ);
	} else {
		MLX5_SET(qpc, qpc, rq_type, MLX5_ZERO_LEN_RQ);
	}
	if (qp->sq.wqe_cnt)
		MLX5_SET(qpc, qpc, log_sq_size, ilog2(qp->sq.wqe_cnt));
	else
		MLX5_SET(qpc, qpc, no_sq, 1);
	MLX5_SET(qpc, qpc, cqn_snd, to_cq(attr->send_cq)->mcq.cqn);
	MLX5_SET(qpc, qpc, cqn_rcv, to_cq(attr->recv_cq)->mcq.cqn);
	MLX5_SET64(qpc, qpc, dbr_addr, qp->db.dma);
	MLX5_SET(qpc, qpc, user_index, uidx);
	if (!qp->user) {
		MLX5_SET(qpc, qpc, fre, 1);
		MLX5_SET(qpc, qpc, rlky, 1);
	}
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return err;
	qp->mqp.qpn = MLX5_GET(create_qp_out, out, qpn);
	return 0;
}

static int destroy_qp_cmd(struct mlx5sp_ib_dev *dev, u32 qpn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_qp_in)] = {};

	MLX5_SET(destroy_qp_in, in, opcode, MLX5_CMD_OP_DESTROY_QP);
	MLX5_SET(destroy_qp_in, in, qpn, qpn);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "QP", qpn);
}

static int check_create_attr(struct mlx5sp_ib_dev *dev,
			     struct ib_qp_init_attr *attr, struct ib_udata *udata)
{
	if (to_mlx5_st(attr->qp_type) < 0)
		return -EOPNOTSUPP;
	if (attr->qp_type == IB_QPT_GSI && udata)
		return -EINVAL;
	/*
	 * Blocking multicast loopback holds trivially: the device delivers no
	 * multicast at all.
	 */
	if ((attr->create_flags & ~(MLX5SP_QP_CREATE_SIG_PIPELINING |
				    IB_QP_CREATE_INTEGRITY_EN |
				    IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK)) ||
	    attr->rwq_ind_tbl || attr->xrcd)
		return -EOPNOTSUPP;
	/* signature pipelining: kernel RC QPs (users ask through mlx5dv) */
	if ((attr->create_flags & MLX5SP_QP_CREATE_SIG_PIPELINING) &&
	    (udata || attr->qp_type != IB_QPT_RC ||
	     !MLX5SP_CAP_GEN(dev, drain_sigerr)))
		return -EOPNOTSUPP;
	/* integrity MRs: kernel RC QPs on a device with signature offload */
	if ((attr->create_flags & IB_QP_CREATE_INTEGRITY_EN) &&
	    (udata || attr->qp_type != IB_QPT_RC ||
	     !MLX5SP_CAP_GEN(dev, sho)))
		return -EOPNOTSUPP;
	if (attr->srq && (attr->qp_type == IB_QPT_GSI ||
			  to_srq(attr->srq)->user != !!udata))
		return -EINVAL;
	if (attr->qp_type == IB_QPT_GSI && attr->port_num != MLX5SP_IB_PORT)
		return -EINVAL;
	if (!attr->send_cq || !attr->recv_cq)
		return -EINVAL;
	if (!!udata != to_cq(attr->send_cq)->user ||
	    !!udata != to_cq(attr->recv_cq)->user)
		return -EINVAL;
	return check_caps(dev, attr);
}

int mlx5sp_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		     struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct mlx5sp_qp *qp = to_qp(ibqp);
	u32 uidx = KERNEL_UIDX;
	size_t npages;
	int err;

	err = check_create_attr(dev, attr, udata);
	if (err)
		return err;
	qp->type = attr->qp_type;
	qp->sig_pipelining = attr->create_flags & MLX5SP_QP_CREATE_SIG_PIPELINING;
	qp->integrity = attr->create_flags & IB_QP_CREATE_INTEGRITY_EN;
	qp->state = IB_QPS_RESET;
	qp->port = attr->qp_type == IB_QPT_GSI ? MLX5SP_IB_PORT : 0;
	mutex_init(&qp->mutex);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	qp->mqp.event = qp_event;

	if (udata)
		err = create_user_qp(dev, qp, attr, udata, &npages, &uidx);
	else
		err = create_kernel_qp(dev, qp, attr, &npages);
	if (err)
		goto err_mutex;
	err = create_qp_cmd(dev, qp, attr, npages, uidx);
	if (err)
		goto err_free_buffers;
	err = mlx5sp_core_qp_insert(dev->mdev, &qp->mqp);
	if (err == -EEXIST) {
		/* not by a number another QP has */
		err = -EIO;
		goto err_free_buffers;
	}
	if (err)
		goto err_destroy_qp;
	/* ib_core knows the GSI QP as QP1; firmware by its own number. */
	ibqp->qp_num = attr->qp_type == IB_QPT_GSI ? 1 : qp->mqp.qpn;
	if (udata) {
		struct mlx5_ib_create_qp_resp resp = {
			.bfreg_index = MLX5SP_INVALID_BFREG,
		};

		err = ib_copy_to_udata(udata, &resp, min_t(size_t, udata->outlen,
							   sizeof(resp)));
		if (err)
			goto err_remove;
	}
	return 0;

err_remove:
	mlx5sp_core_qp_remove(dev->mdev, &qp->mqp);
err_destroy_qp:
	destroy_qp_cmd(dev, qp->mqp.qpn);
err_free_buffers:
	if (udata)
		destroy_user_qp(qp, udata);
	else
		free_kernel_qp(dev, qp);
err_mutex:
	mutex_destroy(&qp->mutex);
	return err;
}

/* Modify */

/* The transitions that carry a QPC share the RTS2RTS layout. */
#define SAME_LAYOUT(cmd)						\
	(MLX5_BYTE_OFF(cmd##_in, qpn) == MLX5_BYTE_OFF(rts2rts_qp_in, qpn) && \
	 MLX5_BYTE_OFF(cmd##_in, opt_param_mask) ==			\
	 MLX5_BYTE_OFF(rts2rts_qp_in, opt_param_mask) &&		\
	 MLX5_BYTE_OFF(cmd##_in, qpc) == MLX5_BYTE_OFF(rts2rts_qp_in, qpc) && \
	 MLX5_ST_SZ_BYTES(cmd##_in) == MLX5_ST_SZ_BYTES(rts2rts_qp_in))

static_assert(SAME_LAYOUT(rst2init_qp));
static_assert(SAME_LAYOUT(init2init_qp));
static_assert(SAME_LAYOUT(init2rtr_qp));
static_assert(SAME_LAYOUT(rtr2rts_qp));
static_assert(SAME_LAYOUT(sqerr2rts_qp));
static_assert(SAME_LAYOUT(sqd2rts_qp));

static int qp_modify_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			 u16 op, u32 optpar, const void *qpc)
{
	u32 in[MLX5_ST_SZ_DW(rts2rts_qp_in)] = {};
	u32 out[MLX5_ST_SZ_DW(rts2rts_qp_out)] = {};
	u32 qpn = qp->mqp.qpn;

	switch (op) {
	case MLX5_CMD_OP_2RST_QP:
		MLX5_SET(qp_2rst_in, in, opcode, op);
		MLX5_SET(qp_2rst_in, in, qpn, qpn);
		return mlx5sp_cmd_exec_inout(dev->mdev, qp_2rst, in, out);
	case MLX5_CMD_OP_2ERR_QP:
		MLX5_SET(qp_2err_in, in, opcode, op);
		MLX5_SET(qp_2err_in, in, qpn, qpn);
		return mlx5sp_cmd_exec_inout(dev->mdev, qp_2err, in, out);
	case MLX5SP_CMD_OP_RTS2SQD_QP:
		/* PRM RTS2SQD_QP: the 2ERR_QP layout (header and qpn). */
		MLX5_SET(qp_2err_in, in, opcode, op);
		MLX5_SET(qp_2err_in, in, qpn, qpn);
		return mlx5sp_cmd_exec_inout(dev->mdev, qp_2err, in, out);
	case MLX5_CMD_OP_RST2INIT_QP:
	case MLX5_CMD_OP_INIT2INIT_QP:
	case MLX5_CMD_OP_INIT2RTR_QP:
	case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP:
	case MLX5_CMD_OP_SQERR2RTS_QP:
	case MLX5_CMD_OP_SQD_RTS_QP:
		/* These share one layout: qpn, opt_param_mask, (ece), qpc. */
		MLX5_SET(rts2rts_qp_in, in, opcode, op);
		MLX5_SET(rts2rts_qp_in, in, qpn, qpn);
		MLX5_SET(rts2rts_qp_in, in, opt_param_mask, optpar);
		memcpy(MLX5_ADDR_OF(rts2rts_qp_in, in, qpc), qpc,
		       MLX5_ST_SZ_BYTES(qpc));
		return mlx5sp_cmd_exec_inout(dev->mdev, rts2rts_qp, in, out);
	default:
		return -EINVAL;
	}
}

static int set_path(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
		    const struct ib_qp_attr *attr, int attr_mask, void *path)
{
	const struct rdma_ah_attr *ah = &attr->ah_attr;
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	u8 sl = rdma_ah_get_sl(ah);

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	if (grh->sgid_index >= MLX5SP_CAP_ROCE(dev, roce_address_table_size))
		return -EINVAL;
	ether_addr_copy(MLX5_ADDR_OF(ads, path, rmac_47_32), ah->roce.dmac);
	if ((qp->type == IB_QPT_RC || qp->type == IB_QPT_UC) && grh->sgid_attr &&
	    grh->sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
	    (attr_mask & IB_QP_DEST_QPN))
		MLX5_SET(ads, path, udp_sport,
			 rdma_get_udp_sport(grh->flow_label, qp->ibqp.qp_num,
					    attr->dest_qp_num));
	MLX5_SET(ads, path, eth_prio, sl & 0x7);
	if (grh->sgid_attr &&
	    grh->sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		MLX5_SET(ads, path, dscp, grh->traffic_class >> 2);
	MLX5_SET(ads, path, src_addr_index, grh->sgid_index);
	MLX5_SET(ads, path, hop_limit, grh->hop_limit);
	MLX5_SET(ads, path, tclass, grh->traffic_class);
	MLX5_SET(ads, path, flow_label, grh->flow_label);
	memcpy(MLX5_ADDR_OF(ads, path, rgid_rip), grh->dgid.raw,
	       sizeof(grh->dgid.raw));
	MLX5_SET(ads, path, stat_rate, 0);
	MLX5_SET(ads, path, vhca_port_num, MLX5SP_IB_PORT);
	if (attr_mask & IB_QP_TIMEOUT)
		MLX5_SET(ads, path, ack_timeout, attr->timeout);
	return 0;
}

/* What IB checks leave to the device; all before any command. */
static int check_modify_attr(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			     const struct ib_qp_attr *attr, int attr_mask)
{
	if ((attr_mask & IB_QP_PORT) && attr->port_num != MLX5SP_IB_PORT)
		return -EINVAL;
	if ((attr_mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((attr_mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((attr_mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > (1 << MLX5SP_CAP_GEN(dev, log_max_ra_req_qp)))
		return -EINVAL;
	if ((attr_mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > (1 << MLX5SP_CAP_GEN(dev, log_max_ra_res_qp)))
		return -EINVAL;
	if ((attr_mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((attr_mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((attr_mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((attr_mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((attr_mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	if ((attr_mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & IB_ACCESS_REMOTE_ATOMIC) &&
	    (qp->type != IB_QPT_RC || mlx5sp_atomic_mode(dev) < 0))
		return -EOPNOTSUPP;
	if (attr_mask & (IB_QP_ALT_PATH | IB_QP_RATE_LIMIT))
		return -EOPNOTSUPP;
	if ((attr_mask & IB_QP_PATH_MIG_STATE) &&
	    attr->path_mig_state != IB_MIG_MIGRATED)
		return -EOPNOTSUPP;
	return 0;
}

static int check_modify_udata(struct ib_udata *udata)
{
	struct mlx5_ib_modify_qp ucmd = {};
	int err;

	if (!udata || !udata->inlen)
		return 0;
	if (udata->inlen > sizeof(ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(ucmd), udata->inlen - sizeof(ucmd)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	/* No ECE, no burst control, no out-of-order placement. */
	if (ucmd.comp_mask || ucmd.ece_options || ucmd.burst_info.max_burst_sz ||
	    ucmd.burst_info.typical_pkt_sz || ucmd.burst_info.reserved)
		return -EOPNOTSUPP;
	return 0;
}

static void fill_modify_qpc(struct mlx5sp_qp *qp, const struct ib_qp_attr *attr,
			    int attr_mask, enum ib_qp_state cur,
			    enum ib_qp_state new, void *qpc)
{
	void *path = MLX5_ADDR_OF(qpc, qpc, primary_address_path);
	u32 access;
	u8 dest_rd;

	MLX5_SET(qpc, qpc, st, to_mlx5_st(qp->type));
	MLX5_SET(qpc, qpc, pm_state, MLX5_QP_PM_MIGRATED);
	if (qp->type == IB_QPT_GSI) {
		MLX5_SET(qpc, qpc, mtu, IB_MTU_256);
		MLX5_SET(qpc, qpc, log_msg_max, 8);
	} else if (qp->type == IB_QPT_UD) {
		MLX5_SET(qpc, qpc, mtu, IB_MTU_4096);
		MLX5_SET(qpc, qpc, log_msg_max, 12);
	} else if (attr_mask & IB_QP_PATH_MTU) {
		MLX5_SET(qpc, qpc, mtu, attr->path_mtu);
		MLX5_SET(qpc, qpc, log_msg_max,
			 MLX5SP_CAP_GEN(to_ibdev(qp->ibqp.device), log_max_msg));
	}
	if (attr_mask & IB_QP_DEST_QPN)
		MLX5_SET(qpc, qpc, remote_qpn, attr->dest_qp_num);
	if (attr_mask & IB_QP_PKEY_INDEX)
		MLX5_SET(ads, path, pkey_index, attr->pkey_index);
	if (qp->type == IB_QPT_GSI)
		MLX5_SET(ads, path, vhca_port_num, qp->port);
	if (attr_mask & IB_QP_PORT)
		MLX5_SET(ads, path, vhca_port_num, attr->port_num);
	if (attr_mask & IB_QP_TIMEOUT)
		MLX5_SET(ads, path, ack_timeout, attr->timeout);

	MLX5_SET(qpc, qpc, pd, to_pd(qp->ibqp.pd)->pdn);
	MLX5_SET(qpc, qpc, cqn_snd, to_cq(qp->ibqp.send_cq)->mcq.cqn);
	MLX5_SET(qpc, qpc, cqn_rcv, to_cq(qp->ibqp.recv_cq)->mcq.cqn);
	MLX5_SET(qpc, qpc, log_ack_req_freq, MLX5SP_IB_ACK_REQ_FREQ);
	if (attr_mask & IB_QP_RNR_RETRY)
		MLX5_SET(qpc, qpc, rnr_retry, attr->rnr_retry);
	if (attr_mask & IB_QP_RETRY_CNT)
		MLX5_SET(qpc, qpc, retry_count, attr->retry_cnt);
	if ((attr_mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic)
		MLX5_SET(qpc, qpc, log_sra_max, fls(attr->max_rd_atomic - 1));
	if (attr_mask & IB_QP_SQ_PSN)
		MLX5_SET(qpc, qpc, next_send_psn, attr->sq_psn);
	if ((attr_mask & IB_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic)
		MLX5_SET(qpc, qpc, log_rra_max, fls(attr->max_dest_rd_atomic - 1));
	if (attr_mask & (IB_QP_ACCESS_FLAGS | IB_QP_MAX_DEST_RD_ATOMIC)) {
		dest_rd = attr_mask & IB_QP_MAX_DEST_RD_ATOMIC ?
			  attr->max_dest_rd_atomic : qp->resp_depth;
		access = attr_mask & IB_QP_ACCESS_FLAGS ?
			 attr->qp_access_flags : qp->atomic_rd_en;
		if (!dest_rd || qp->type == IB_QPT_UC)
			access &= IB_ACCESS_REMOTE_WRITE;
		MLX5_SET(qpc, qpc, rre, !!(access & IB_ACCESS_REMOTE_READ));
		MLX5_SET(qpc, qpc, rwe, !!(access & IB_ACCESS_REMOTE_WRITE));
		/* check_modify_attr() refused atomics a device lacks. */
		if (access & IB_ACCESS_REMOTE_ATOMIC) {
			MLX5_SET(qpc, qpc, rae, 1);
			MLX5_SET(qpc, qpc, atomic_mode,
				 mlx5sp_atomic_mode(to_ibdev(qp->ibqp.device)));
		}
	}
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		MLX5_SET(qpc, qpc, min_rnr_nak, attr->min_rnr_timer);
	if (attr_mask & IB_QP_RQ_PSN)
		MLX5_SET(qpc, qpc, next_rcv_psn, attr->rq_psn);
	if (attr_mask & IB_QP_QKEY)
		MLX5_SET(qpc, qpc, q_key, attr->qkey);
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT) {
		if (qp->rq.wqe_cnt)
			MLX5_SET64(qpc, qpc, dbr_addr, qp->db.dma);
		MLX5_SET(qpc, qpc, counter_set_id,
			 mlx5sp_counter_set_id(to_ibdev(qp->ibqp.device),
					       &qp->ibqp));
		if (!qp->user)
			MLX5_SET(qpc, qpc, rlky, 1);
	}
}

static void reset_kernel_qp(struct mlx5sp_qp *qp)
{
	struct mlx5sp_srq *srq = qp->ibqp.srq ? to_srq(qp->ibqp.srq) : NULL;

	mlx5sp_cq_clean(to_cq(qp->ibqp.recv_cq), qp->mqp.qpn, srq);
	if (qp->ibqp.send_cq != qp->ibqp.recv_cq)
		mlx5sp_cq_clean(to_cq(qp->ibqp.send_cq), qp->mqp.qpn, NULL);
	qp->rq.head = 0;
	qp->rq.tail = 0;
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->sq.cur_post = 0;
	qp->sq.poll_bb = 0;
	qp->sq.failed = false;
	qp->db.db[MLX5_RCV_DBR] = 0;
	qp->db.db[MLX5_SND_DBR] = 0;
}

static int query_qp_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			struct ib_qp_attr *attr);

/* Whether the device has the QP in RTS (not stopped, not in ERR). */
static bool hw_in_rts(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp)
{
	struct ib_qp_attr *attr;
	bool rts = false;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return false;
	if (!query_qp_cmd(dev, qp, attr))
		rts = attr->qp_state == IB_QPS_RTS;
	kfree(attr);
	return rts;
}

/* An RTS QP counts into @counter's Q counter set, or the port's. */
static int set_counter_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			   struct rdma_counter *counter)
{
	void *qpc;
	int err;

	qpc = kzalloc(MLX5_ST_SZ_BYTES(qpc), GFP_KERNEL);
	if (!qpc)
		return -ENOMEM;
	MLX5_SET(qpc, qpc, counter_set_id,
		 counter ? counter->id : dev->cnt.set_id);
	err = qp_modify_cmd(dev, qp, MLX5_CMD_OP_RTS2RTS_QP,
			    MLX5_QP_OPTPAR_COUNTER_SET_ID, qpc);
	kfree(qpc);
	return err;
}

/**
 * mlx5sp_qp_set_counter - bind a QP to a counter of ib_core, or unbind it
 * @ibqp: the QP
 * @counter: the counter, NULL: the port's again
 *
 * In RST the QP names the set at RST2INIT; in RTS at once (RTS2RTS); in
 * another state at the next transition to RTS, as mlx5_ib does.
 */
int mlx5sp_qp_set_counter(struct ib_qp *ibqp, struct rdma_counter *counter)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct mlx5sp_qp *qp = to_qp(ibqp);
	int err = 0;

	mutex_lock(&qp->mutex);
	if (qp->state == IB_QPS_RESET) {
		ibqp->counter = counter;
		goto out;
	}
	if (!MLX5SP_CAP_GEN(dev, rts2rts_qp_counters_set_id)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	/* the device may have moved it on its own (ERR, a signature stop) */
	if (qp->state == IB_QPS_RTS && hw_in_rts(dev, qp)) {
		err = set_counter_cmd(dev, qp, counter);
		if (!err)
			ibqp->counter = counter;
		goto out;
	}
	qp->counter_pending = true;
	ibqp->counter = counter;
out:
	mutex_unlock(&qp->mutex);
	return err;
}

static int modify_qp_locked(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			    struct ib_qp_attr *attr, int attr_mask)
{
	enum ib_qp_state cur, new;
	u32 optpar;
	void *qpc;
	u16 op;
	int err;

	cur = attr_mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	/* stopped by a signature error (drain_sigerr): it is in SQD */
	if (!(attr_mask & IB_QP_CUR_STATE) && mlx5sp_qp_sig_stopped(dev, qp))
		cur = IB_QPS_SQD;
	new = attr_mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, qp->ibqp.qp_type, attr_mask))
		return -EINVAL;
	err = check_modify_attr(dev, qp, attr, attr_mask);
	if (err)
		return err;
	op = mlx5sp_qp_transition_op(cur, new);
	if (!op)
		return -EOPNOTSUPP;	/* legal for IB, not offered (SQD->SQD) */

	qpc = kzalloc(MLX5_ST_SZ_BYTES(qpc), GFP_KERNEL);
	if (!qpc)
		return -ENOMEM;
	fill_modify_qpc(qp, attr, attr_mask, cur, new, qpc);
	if (attr_mask & IB_QP_AV) {
		err = set_path(dev, qp, attr, attr_mask,
			       MLX5_ADDR_OF(qpc, qpc, primary_address_path));
		if (err)
			goto out_free;
	}
	optpar = ib_mask_to_optpar(attr_mask) &
		 opt_mask(op, to_mlx5_st(qp->type));
	err = qp_modify_cmd(dev, qp, op, optpar, qpc);
	if (err)
		goto out_free;

	qp->state = new;
	if (attr_mask & IB_QP_ACCESS_FLAGS)
		qp->atomic_rd_en = attr->qp_access_flags;
	if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->resp_depth = attr->max_dest_rd_atomic;
	if (attr_mask & IB_QP_PORT)
		qp->port = attr->port_num;
	if (new == IB_QPS_RESET && !qp->user)
		reset_kernel_qp(qp);
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT && qp->sig_pipelining)
		err = mlx5sp_qp_enable_drain_sigerr(dev, qp);
	if (cur == IB_QPS_RESET && new == IB_QPS_INIT)
		qp->counter_pending = false;	/* the QPC named it */
	if (!err && new == IB_QPS_RTS && qp->counter_pending) {
		err = set_counter_cmd(dev, qp, qp->ibqp.counter);
		if (!err)
			qp->counter_pending = false;
	}
out_free:
	kfree(qpc);
	return err;
}

int mlx5sp_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int attr_mask, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct mlx5sp_qp *qp = to_qp(ibqp);
	enum ib_qp_state cur;
	int err;

	if (attr_mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	err = check_modify_udata(udata);
	if (err)
		return err;
	mutex_lock(&qp->mutex);
	cur = qp->state;
	err = modify_qp_locked(dev, qp, attr, attr_mask);
	trace_mlx5sp_qp_modify(dev->mdev->name, ibqp->qp_num, cur,
			       attr_mask & IB_QP_STATE ? attr->qp_state : cur,
			       err);
	mutex_unlock(&qp->mutex);
	if (!err && udata && udata->outlen) {
		struct mlx5_ib_modify_qp_resp resp = {};

		resp.response_length = min_t(u32, udata->outlen, sizeof(resp));
		err = ib_copy_to_udata(udata, &resp, resp.response_length);
	}
	return err;
}

/* Query */

static void path_to_ah(struct mlx5sp_ib_dev *dev, const void *path,
		       struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, MLX5_GET(ads, path, vhca_port_num));
	rdma_ah_set_sl(ah, MLX5_GET(ads, path, eth_prio));
	ether_addr_copy(ah->roce.dmac, MLX5_ADDR_OF(ads, path, rmac_47_32));
	rdma_ah_set_grh(ah, NULL, MLX5_GET(ads, path, flow_label),
			MLX5_GET(ads, path, src_addr_index),
			MLX5_GET(ads, path, hop_limit),
			MLX5_GET(ads, path, tclass));
	rdma_ah_set_dgid_raw(ah, MLX5_ADDR_OF(ads, path, rgid_rip));
}

/*
 * QUERY_QP: the first outlen bytes of the answer (the context, and the page
 * list if outlen reaches it) in *out, kfree()d by the caller.
 */
int mlx5sp_cmd_query_qp(struct mlx5sp_dev *mdev, u32 qpn, int outlen,
			void **out)
{
	u32 in[MLX5_ST_SZ_DW(query_qp_in)] = {};
	int err;

	*out = kzalloc(outlen, GFP_KERNEL);
	if (!*out)
		return -ENOMEM;
	MLX5_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	MLX5_SET(query_qp_in, in, qpn, qpn);
	err = mlx5sp_cmd_exec(mdev, in, sizeof(in), *out, outlen);
	if (err) {
		kfree(*out);
		*out = NULL;
	}
	return err;
}

static int query_qp_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			struct ib_qp_attr *attr)
{
	void *out, *qpc, *path;
	int err;

	err = mlx5sp_cmd_query_qp(dev->mdev, qp->mqp.qpn,
				  MLX5_ST_SZ_BYTES(query_qp_out), &out);
	if (err)
		return err;
	qpc = MLX5_ADDR_OF(query_qp_out, out, qpc);
	path = MLX5_ADDR_OF(qpc, qpc, primary_address_path);
	attr->qp_state = from_qpc_state(MLX5_GET(qpc, qpc, state));
	attr->sq_draining = MLX5_GET(qpc, qpc, state) == MLX5_QP_STATE_SQ_DRAINING;
	attr->path_mtu = MLX5_GET(qpc, qpc, mtu);
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = MLX5_GET(qpc, qpc, q_key);
	attr->rq_psn = MLX5_GET(qpc, qpc, next_rcv_psn);
	attr->sq_psn = MLX5_GET(qpc, qpc, next_send_psn);
	attr->dest_qp_num = MLX5_GET(qpc, qpc, remote_qpn);
	attr->qp_access_flags =
		(MLX5_GET(qpc, qpc, rre) ? IB_ACCESS_REMOTE_READ : 0) |
		(MLX5_GET(qpc, qpc, rwe) ? IB_ACCESS_REMOTE_WRITE : 0) |
		(MLX5_GET(qpc, qpc, rae) ? IB_ACCESS_REMOTE_ATOMIC : 0);
	if (qp->type == IB_QPT_RC || qp->type == IB_QPT_UC)
		path_to_ah(dev, path, &attr->ah_attr);
	attr->pkey_index = MLX5_GET(ads, path, pkey_index);
	attr->port_num = MLX5_GET(ads, path, vhca_port_num);
	attr->max_rd_atomic = 1 << MLX5_GET(qpc, qpc, log_sra_max);
	attr->max_dest_rd_atomic = 1 << MLX5_GET(qpc, qpc, log_rra_max);
	attr->min_rnr_timer = MLX5_GET(qpc, qpc, min_rnr_nak);
	attr->timeout = MLX5_GET(ads, path, ack_timeout);
	attr->retry_cnt = MLX5_GET(qpc, qpc, retry_count);
	attr->rnr_retry = MLX5_GET(qpc, qpc, rnr_retry);
	kfree(out);
	return 0;
}

int mlx5sp_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct mlx5sp_qp *qp = to_qp(ibqp);
	int err = 0;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));
	mutex_lock(&qp->mutex);
	if (qp->state == IB_QPS_RESET) {
		attr->qp_state = IB_QPS_RESET;
		attr->sq_draining = 0;
	} else {
		err = query_qp_cmd(dev, qp, attr);
		if (!err)
			qp->state = attr->qp_state;
	}
	mutex_unlock(&qp->mutex);
	if (err)
		return err;
	attr->cur_qp_state = attr->qp_state;
	attr->cap.max_recv_wr = qp->rq.wqe_cnt;
	attr->cap.max_recv_sge = qp->rq.max_gs;
	if (!qp->user) {
		attr->cap.max_send_wr = qp->sq.max_post;
		attr->cap.max_send_sge = qp->sq.max_gs;
		attr->cap.max_inline_data = qp->sq.max_inline;
	}
	init_attr->event_handler = ibqp->event_handler;
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sq_signal_bits & MLX5_WQE_CTRL_CQ_UPDATE ?
				 IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init_attr->port_num = qp->port;
	return 0;
}

int mlx5sp_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct mlx5sp_qp *qp = to_qp(ibqp);
	int err;

	if (qp->state != IB_QPS_RESET)
		qp_modify_cmd(dev, qp, MLX5_CMD_OP_2RST_QP, 0, NULL);
	err = destroy_qp_cmd(dev, qp->mqp.qpn);
	if (err && !mlx5sp_dev_dead(dev->mdev)) {
		/* a user may try again; ib_core takes no error for its own */
		if (qp->user)
			return err;
		mlx5sp_quarantine(dev->mdev, &qp->buf, &qp->db, "QP", qp->mqp.qpn);
	}
	/* No event handler runs after this; no poller holds the QP after the cleans. */
	mlx5sp_core_qp_remove(dev->mdev, &qp->mqp);
	if (qp->user) {
		destroy_user_qp(qp, udata);
	} else {
		mlx5sp_cq_clean(to_cq(ibqp->recv_cq), qp->mqp.qpn,
				ibqp->srq ? to_srq(ibqp->srq) : NULL);
		if (ibqp->send_cq != ibqp->recv_cq)
			mlx5sp_cq_clean(to_cq(ibqp->send_cq), qp->mqp.qpn,
					NULL);
		free_kernel_qp(dev, qp);
	}
	mutex_destroy(&qp->mutex);
	return 0;
}
