// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event queues: EQ 0 carries command completions on vector 0, the async EQ
 * carries page requests and device events on vector 1, and one completion
 * EQ per further vector carries CQ completions. An EQ's handler is the only
 * one touching its consumer index. Completion and resource events find
 * their CQ or QP by number in the device's tables.
 */
#include <linux/dma-mapping.h>

#include "eth.h"
#include "mlx5sp.h"
#include "trace.h"

#define CMD_EQ_LOG_SIZE		6	/* one CMD EQE per slot at most, twice over */
#define ASYNC_EQ_LOG_SIZE	10	/* page-request storms coalesce here */
#define COMP_EQ_LOG_SIZE	10
#define FIRST_COMP_VECTOR	2
#define EQE_SIZE		sizeof(struct mlx5_eqe)
#define EQE_OWNER_INIT		0x1
/* Interrupts in a row with nothing to take before an EQ counts as stuck. */
#define EQ_STUCK_IRQS		1000

static struct mlx5_eqe *next_eqe(struct mlx5sp_eq *eq)
{
	struct mlx5_eqe *eqe = eq->buf + (eq->cons_index & (eq->nent - 1)) * EQE_SIZE;

	/* Valid when its owner bit matches the pass we are on. */
	if ((eqe->owner & 1) ^ !!(eq->cons_index & eq->nent))
		return NULL;
	/* Read the body only after the owner bit said it is ours. */
	dma_rmb();
	return eqe;
}

static void eq_update_ci(struct mlx5sp_eq *eq, bool arm)
{
	struct mlx5sp_dev *dev = eq->dev;
	u32 off = dev->uar_index * MLX5_ADAPTER_PAGE_SIZE +
		  (arm ? MLX5SP_UAR_EQ_DB_ARM : MLX5SP_UAR_EQ_DB_NOARM);

	mlx5sp_wr32(dev, off, (eq->eqn << 24) | (eq->cons_index & 0xffffff));
}

/*
 * A CQ, QP or SRQ found by number is held while its handler runs: its
 * remove drops the table's reference and waits for the last put.
 */
static struct mlx5sp_core_cq *core_cq_get(struct mlx5sp_dev *dev, u32 cqn)
{
	struct mlx5sp_core_cq *cq;
	unsigned long flags;

	xa_lock_irqsave(&dev->cq_table, flags);
	cq = xa_load(&dev->cq_table, cqn);
	if (cq)
		refcount_inc(&cq->refcount);
	xa_unlock_irqrestore(&dev->cq_table, flags);
	return cq;
}

static void core_cq_put(struct mlx5sp_core_cq *cq)
{
	if (refcount_dec_and_test(&cq->refcount))
		complete(&cq->free);
}

static struct mlx5sp_core_qp *core_qp_get(struct xarray *table, u32 qpn)
{
	struct mlx5sp_core_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(table, flags);
	qp = xa_load(table, qpn);
	if (qp)
		refcount_inc(&qp->refcount);
	xa_unlock_irqrestore(table, flags);
	return qp;
}

static void core_qp_put(struct mlx5sp_core_qp *qp)
{
	if (refcount_dec_and_test(&qp->refcount))
		complete(&qp->free);
}

static bool cq_comp(struct mlx5sp_dev *dev, u32 cqn)
{
	struct mlx5sp_core_cq *cq = core_cq_get(dev, cqn);

	if (!cq)
		return false;
	cq->comp(cq);
	core_cq_put(cq);
	return true;
}

static void cq_event(struct mlx5sp_dev *dev, u32 cqn, u8 type)
{
	struct mlx5sp_core_cq *cq = core_cq_get(dev, cqn);

	if (!cq) {
		dev_warn_ratelimited(dev->dma_dev, "%s: event 0x%x for unknown CQ 0x%x\n",
				     dev->name, type, cqn);
		return;
	}
	if (cq->event)
		cq->event(cq, type);
	core_cq_put(cq);
}

static void qp_event(struct mlx5sp_dev *dev, struct mlx5_eqe *eqe)
{
	u32 qpn = be32_to_cpu(eqe->data.qp_srq.qp_srq_n) & 0xffffff;
	bool srq = eqe->type == MLX5_EVENT_TYPE_SRQ_RQ_LIMIT ||
		   eqe->type == MLX5_EVENT_TYPE_SRQ_CATAS_ERROR;
	struct xarray *table = srq ? &dev->srq_table : &dev->qp_table;
	struct mlx5sp_core_qp *qp;

	if (eqe->data.qp_srq.type !=
	    (srq ? MLX5SP_EVENT_QUEUE_TYPE_SRQ : MLX5_EVENT_QUEUE_TYPE_QP)) {
		dev_warn_ratelimited(dev->dma_dev, "%s: event 0x%x for resource type %u\n",
				     dev->name, eqe->type, eqe->data.qp_srq.type);
		return;
	}
	qp = core_qp_get(table, qpn);
	if (!qp) {
		dev_dbg_ratelimited(dev->dma_dev, "%s: event 0x%x for unknown QP 0x%x\n",
				    dev->name, eqe->type, qpn);
		return;
	}
	if (qp->event)
		qp->event(qp, eqe->type);
	core_qp_put(qp);
}

static void port_event(struct mlx5sp_dev *dev, struct mlx5_eqe *eqe)
{
	u8 port = eqe->data.port.port >> 4;
	unsigned long flags;

	mlx5sp_dbg(dev, "port %u changed state (subtype 0x%x)\n", port,
		   eqe->sub_type);
	spin_lock_irqsave(&dev->event_lock, flags);
	/* the NIC first: its carrier is what the RDMA port follows */
	if (dev->eth)
		mlx5sp_eth_port_event(dev->eth, port, eqe->sub_type);
	if (dev->listener.port_event)
		dev->listener.port_event(dev->listener.ctx, port, eqe->sub_type);
	spin_unlock_irqrestore(&dev->event_lock, flags);
}

/* To DEVX subscribers, if the IB device listens. */
static void devx_event(struct mlx5sp_dev *dev, struct mlx5_eqe *eqe)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->event_lock, flags);
	if (dev->listener.devx_event)
		dev->listener.devx_event(dev->listener.ctx, eqe);
	spin_unlock_irqrestore(&dev->event_lock, flags);
}

static void handle_eqe(struct mlx5sp_dev *dev, struct mlx5_eqe *eqe)
{
	switch (eqe->type) {
	case MLX5_EVENT_TYPE_COMP:
		/* a CQ that is not the driver's is a DEVX CQ */
		if (!cq_comp(dev, be32_to_cpu(eqe->data.comp.cqn) & 0xffffff))
			devx_event(dev, eqe);
		return;
	case MLX5_EVENT_TYPE_CMD:
		mlx5sp_cmd_comp_handler(dev, be32_to_cpu(eqe->data.cmd.vector));
		return;
	case MLX5_EVENT_TYPE_PAGE_REQUEST:
		mlx5sp_pages_request(dev, (s32)be32_to_cpu(eqe->data.req_pages.num_pages));
		return;
	case MLX5_EVENT_TYPE_PORT_CHANGE:
		trace_mlx5sp_event(dev->name, eqe->type, eqe->sub_type, 0);
		port_event(dev, eqe);
		break;
	case MLX5_EVENT_TYPE_PATH_MIG:
	case MLX5_EVENT_TYPE_COMM_EST:
	case MLX5_EVENT_TYPE_SQ_DRAINED:
	case MLX5_EVENT_TYPE_SRQ_LAST_WQE:
	case MLX5_EVENT_TYPE_WQ_CATAS_ERROR:
	case MLX5_EVENT_TYPE_PATH_MIG_FAILED:
	case MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR:
	case MLX5_EVENT_TYPE_WQ_ACCESS_ERROR:
	case MLX5_EVENT_TYPE_SRQ_RQ_LIMIT:
	case MLX5_EVENT_TYPE_SRQ_CATAS_ERROR:
		trace_mlx5sp_event(dev->name, eqe->type, eqe->sub_type,
				   be32_to_cpu(eqe->data.qp_srq.qp_srq_n) &
				   0xffffff);
		qp_event(dev, eqe);
		break;
	case MLX5_EVENT_TYPE_CQ_ERROR:
		trace_mlx5sp_event(dev->name, eqe->type, eqe->sub_type,
				   be32_to_cpu(eqe->data.cq_err.cqn) & 0xffffff);
		cq_event(dev, be32_to_cpu(eqe->data.cq_err.cqn) & 0xffffff,
			 eqe->type);
		break;
	default:
		dev_warn_ratelimited(dev->dma_dev, "%s: unexpected event type 0x%x\n",
				     dev->name, eqe->type);
		return;
	}
	devx_event(dev, eqe);
}

static irqreturn_t eq_irq(int irq, void *data)
{
	struct mlx5sp_eq *eq = data;
	struct mlx5_eqe *eqe;
	unsigned int n = 0;

	if (unlikely(eq->stuck))
		return IRQ_NONE;
	while ((eqe = next_eqe(eq))) {
		handle_eqe(eq->dev, eqe);
		eq->cons_index++;
		eq->eqes++;
		/* Hand entries back in batches so long bursts cannot overrun. */
		if (++n % (eq->nent / 2) == 0)
			eq_update_ci(eq, false);
	}
	if (n) {
		eq->empty_irqs = 0;
	} else if (++eq->empty_irqs >= EQ_STUCK_IRQS) {
		/*
		 * Armed, the device fires again while it holds an EQE we
		 * do not own: an entry it wrote without handing it over.
		 * Arming again would only spin; the device is broken.
		 */
		eq->stuck = true;
		mlx5sp_err(eq->dev, "EQ %u stuck at entry %u: %u interrupts in a row without an EQE handed over\n",
			   eq->eqn, eq->cons_index & (eq->nent - 1),
			   eq->empty_irqs);
		mlx5sp_enter_error_state(eq->dev, "EQ stuck");
		return IRQ_HANDLED;
	}
	eq_update_ci(eq, true);
	return n ? IRQ_HANDLED : IRQ_NONE;
}

static int destroy_eq_cmd(struct mlx5sp_dev *dev, u32 eqn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_eq_in)] = {};

	MLX5_SET(destroy_eq_in, in, opcode, MLX5_CMD_OP_DESTROY_EQ);
	MLX5_SET(destroy_eq_in, in, eq_number, eqn);
	return mlx5sp_cmd_exec_in(dev, destroy_eq, in);
}

static int eq_create(struct mlx5sp_dev *dev, struct mlx5sp_eq *eq,
		     const char *name, u8 log_size, u64 mask, u16 vector)
{
	u32 out[MLX5_ST_SZ_DW(create_eq_out)] = {};
	unsigned int npages, i;
	__be64 *pas;
	void *eqc;
	int inlen;
	u32 *in;
	int err;

	eq->dev = dev;
	eq->name = name;
	eq->nent = 1U << log_size;
	eq->buf_size = eq->nent * EQE_SIZE;
	eq->vector = vector;
	eq->mask = mask;
	eq->cons_index = 0;
	npages = DIV_ROUND_UP(eq->buf_size, MLX5_ADAPTER_PAGE_SIZE);
	eq->buf = dma_alloc_coherent(dev->dma_dev, eq->buf_size, &eq->buf_dma,
				     GFP_KERNEL);
	if (!eq->buf)
		return -ENOMEM;
	for (i = 0; i < eq->nent; i++)
		((struct mlx5_eqe *)(eq->buf + i * EQE_SIZE))->owner = EQE_OWNER_INIT;

	inlen = MLX5_ST_SZ_BYTES(create_eq_in) + npages * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_free_buf;
	}
	pas = (__be64 *)MLX5_ADDR_OF(create_eq_in, in, pas);
	for (i = 0; i < npages; i++)
		pas[i] = cpu_to_be64(eq->buf_dma + i * MLX5_ADAPTER_PAGE_SIZE);
	MLX5_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	*(__be64 *)MLX5_ADDR_OF(create_eq_in, in, event_bitmask) = cpu_to_be64(mask);
	eqc = MLX5_ADDR_OF(create_eq_in, in, eq_context_entry);
	MLX5_SET(eqc, eqc, log_eq_size, log_size);
	MLX5_SET(eqc, eqc, uar_page, dev->uar_index);
	MLX5_SET(eqc, eqc, intr, vector);
	MLX5_SET(eqc, eqc, log_page_size, 0);	/* 4 KiB pages */

	err = mlx5sp_cmd_exec(dev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		goto err_free_buf;
	eq->eqn = MLX5_GET(create_eq_out, out, eq_number);

	err = dev->bus->request_irq(dev, vector, eq_irq, eq);
	if (err)
		goto err_destroy_eq;
	eq->irq_requested = true;
	eq_update_ci(eq, true);
	return 0;

err_destroy_eq:
	destroy_eq_cmd(dev, eq->eqn);
err_free_buf:
	dma_free_coherent(dev->dma_dev, eq->buf_size, eq->buf, eq->buf_dma);
	eq->buf = NULL;
	return err;
}

static void eq_destroy(struct mlx5sp_dev *dev, struct mlx5sp_eq *eq)
{
	int err;

	if (!eq->buf)
		return;
	err = destroy_eq_cmd(dev, eq->eqn);
	if (err)
		mlx5sp_err(dev, "destroying %s EQ %u failed: %d\n", eq->name,
			   eq->eqn, err);
	/* Firmware no longer writes the EQ; the handler may still be running. */
	if (eq->irq_requested)
		dev->bus->free_irq(dev, eq->vector, eq);
	eq->irq_requested = false;
	dma_free_coherent(dev->dma_dev, eq->buf_size, eq->buf, eq->buf_dma);
	eq->buf = NULL;
}

/* ALLOC_UAR and DEALLOC_UAR: the core's UAR here, a user's in verbs.c. */
int mlx5sp_cmd_alloc_uar(struct mlx5sp_dev *dev, u32 *index)
{
	u32 out[MLX5_ST_SZ_DW(alloc_uar_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_uar_in)] = {};
	int err;

	MLX5_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	err = mlx5sp_cmd_exec_inout(dev, alloc_uar, in, out);
	if (err)
		return err;
	*index = MLX5_GET(alloc_uar_out, out, uar);
	return 0;
}

void mlx5sp_cmd_dealloc_uar(struct mlx5sp_dev *dev, u32 index)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_uar_in)] = {};

	MLX5_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	MLX5_SET(dealloc_uar_in, in, uar, index);
	mlx5sp_cmd_exec_in(dev, dealloc_uar, in);
}

static int alloc_uar(struct mlx5sp_dev *dev)
{
	int err;

	err = mlx5sp_cmd_alloc_uar(dev, &dev->uar_index);
	if (err)
		return err;
	if ((u64)(dev->uar_index + 1) * MLX5_ADAPTER_PAGE_SIZE > U32_MAX) {
		mlx5sp_err(dev, "firmware gave UAR %u outside the BAR\n",
			   dev->uar_index);
		err = -EIO;
		goto err_dealloc;
	}
	if (dev->bus->map_uar) {
		err = dev->bus->map_uar(dev, dev->uar_index);
		if (err)
			goto err_dealloc;
	}
	return 0;

err_dealloc:
	mlx5sp_cmd_dealloc_uar(dev, dev->uar_index);
	return err;
}

static void dealloc_uar(struct mlx5sp_dev *dev)
{
	if (dev->bus->unmap_uar)
		dev->bus->unmap_uar(dev, dev->uar_index);
	mlx5sp_cmd_dealloc_uar(dev, dev->uar_index);
}

#define ASYNC_EVENTS (BIT_ULL(MLX5_EVENT_TYPE_PAGE_REQUEST) | \
		      BIT_ULL(MLX5_EVENT_TYPE_PORT_CHANGE) | \
		      BIT_ULL(MLX5_EVENT_TYPE_PATH_MIG) | \
		      BIT_ULL(MLX5_EVENT_TYPE_COMM_EST) | \
		      BIT_ULL(MLX5_EVENT_TYPE_SQ_DRAINED) | \
		      BIT_ULL(MLX5_EVENT_TYPE_SRQ_LAST_WQE) | \
		      BIT_ULL(MLX5_EVENT_TYPE_CQ_ERROR) | \
		      BIT_ULL(MLX5_EVENT_TYPE_WQ_CATAS_ERROR) | \
		      BIT_ULL(MLX5_EVENT_TYPE_PATH_MIG_FAILED) | \
		      BIT_ULL(MLX5_EVENT_TYPE_WQ_INVAL_REQ_ERROR) | \
		      BIT_ULL(MLX5_EVENT_TYPE_WQ_ACCESS_ERROR) | \
		      BIT_ULL(MLX5_EVENT_TYPE_SRQ_RQ_LIMIT) | \
		      BIT_ULL(MLX5_EVENT_TYPE_SRQ_CATAS_ERROR))

static void comp_eqs_destroy(struct mlx5sp_dev *dev)
{
	int i;

	if (!dev->comp_eqs)
		return;
	for (i = dev->num_comp_eqs - 1; i >= 0; i--)
		eq_destroy(dev, &dev->comp_eqs[i]);
	kfree(dev->comp_eqs);
	dev->comp_eqs = NULL;
}

/* One completion EQ per vector from 2 on; with two vectors, the async EQ. */
static int comp_eqs_create(struct mlx5sp_dev *dev)
{
	u16 n = dev->num_vectors > FIRST_COMP_VECTOR ?
		dev->num_vectors - FIRST_COMP_VECTOR : 0;
	int i, err;

	dev->num_comp_eqs = 1;
	if (!n)
		return 0;
	dev->comp_eqs = kcalloc(n, sizeof(*dev->comp_eqs), GFP_KERNEL);
	if (!dev->comp_eqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* Completion EQEs are routed by the CQ's EQ, not by mask. */
		err = eq_create(dev, &dev->comp_eqs[i], "comp", COMP_EQ_LOG_SIZE,
				0, FIRST_COMP_VECTOR + i);
		if (err)
			goto err_destroy;
		dev->num_comp_eqs = i + 1;
	}
	return 0;

err_destroy:
	comp_eqs_destroy(dev);
	dev->num_comp_eqs = 0;
	return err;
}

/**
 * mlx5sp_comp_eqn - the EQ that carries completions of a vector
 * @dev: the device
 * @vector: completion vector, below num_comp_eqs
 * @eqn: the EQ number, for the CQ context
 */
int mlx5sp_comp_eqn(struct mlx5sp_dev *dev, u16 vector, u32 *eqn)
{
	if (vector >= dev->num_comp_eqs)
		return -EINVAL;
	*eqn = dev->comp_eqs ? dev->comp_eqs[vector].eqn : dev->async_eq.eqn;
	return 0;
}

/*
 * A created object's number into the table the event dispatcher reads.
 * A number a live object already has is firmware lying (garbage in the
 * create's output): refused with -EEXIST, and the caller must not destroy
 * by it (that would destroy the other object); what firmware did create
 * stays the device's, under a number the driver never learnt.
 */
static int core_table_insert(struct mlx5sp_dev *dev, struct xarray *xa,
			     u32 n, void *obj, const char *what)
{
	int err = xa_insert_irq(xa, n, obj, GFP_KERNEL);

	if (err != -EBUSY)
		return err;
	mlx5sp_err(dev, "firmware gave a new %s the number 0x%x of a live one\n",
		   what, n);
	return -EEXIST;
}

int mlx5sp_core_cq_insert(struct mlx5sp_dev *dev, struct mlx5sp_core_cq *cq)
{
	refcount_set(&cq->refcount, 1);
	init_completion(&cq->free);
	return core_table_insert(dev, &dev->cq_table, cq->cqn, cq, "CQ");
}

/* After this returns no handler runs for @cq or will. */
void mlx5sp_core_cq_remove(struct mlx5sp_dev *dev, struct mlx5sp_core_cq *cq)
{
	xa_erase_irq(&dev->cq_table, cq->cqn);
	core_cq_put(cq);
	wait_for_completion(&cq->free);
}

/* QPs and SRQs: the event dispatcher finds them by number in @xa. */
static int core_qp_table_insert(struct mlx5sp_dev *dev, struct xarray *xa,
				struct mlx5sp_core_qp *qp, const char *what)
{
	refcount_set(&qp->refcount, 1);
	init_completion(&qp->free);
	return core_table_insert(dev, xa, qp->qpn, qp, what);
}

/* After this returns no handler runs for @qp or will. */
static void core_qp_table_remove(struct xarray *xa, struct mlx5sp_core_qp *qp)
{
	xa_erase_irq(xa, qp->qpn);
	core_qp_put(qp);
	wait_for_completion(&qp->free);
}

int mlx5sp_core_qp_insert(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *qp)
{
	return core_qp_table_insert(dev, &dev->qp_table, qp, "QP");
}

void mlx5sp_core_qp_remove(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *qp)
{
	core_qp_table_remove(&dev->qp_table, qp);
}

int mlx5sp_core_srq_insert(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *srq)
{
	return core_qp_table_insert(dev, &dev->srq_table, srq, "SRQ");
}

void mlx5sp_core_srq_remove(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *srq)
{
	core_qp_table_remove(&dev->srq_table, srq);
}

/* @l NULL: nobody listens any more; no callback runs after this returns. */
void mlx5sp_set_event_listener(struct mlx5sp_dev *dev,
			       const struct mlx5sp_event_listener *l)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->event_lock, flags);
	if (l)
		dev->listener = *l;
	else
		memset(&dev->listener, 0, sizeof(dev->listener));
	spin_unlock_irqrestore(&dev->event_lock, flags);
}

/* The device is dead: whoever listens learns it (from any context). */
void mlx5sp_notify_fatal(struct mlx5sp_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->event_lock, flags);
	if (dev->eth)
		mlx5sp_eth_fatal(dev->eth);
	if (dev->listener.fatal)
		dev->listener.fatal(dev->listener.ctx);
	spin_unlock_irqrestore(&dev->event_lock, flags);
}

/*
 * @fn on every QP of the device, each held as the EQ holds one it
 * dispatches an event to (its destroy waits), none locked while @fn runs.
 * Process context.
 */
void mlx5sp_core_qp_each(struct mlx5sp_dev *dev,
			 void (*fn)(struct mlx5sp_core_qp *qp))
{
	struct mlx5sp_core_qp *qp;
	unsigned long idx = 0;

	for (;;) {
		xa_lock_irq(&dev->qp_table);
		qp = xa_find(&dev->qp_table, &idx, ULONG_MAX, XA_PRESENT);
		if (qp)
			refcount_inc(&qp->refcount);
		xa_unlock_irq(&dev->qp_table);
		if (!qp)
			return;
		fn(qp);
		core_qp_put(qp);
		idx++;
	}
}

int mlx5sp_eqs_create(struct mlx5sp_dev *dev)
{
	int err;

	err = alloc_uar(dev);
	if (err)
		return err;
	err = eq_create(dev, &dev->cmd_eq, "cmd", CMD_EQ_LOG_SIZE,
			BIT_ULL(MLX5_EVENT_TYPE_CMD), 0);
	if (err)
		goto err_dealloc_uar;
	mlx5sp_cmd_use_events(dev);
	err = eq_create(dev, &dev->async_eq, "async", ASYNC_EQ_LOG_SIZE,
			ASYNC_EVENTS, 1);
	if (err)
		goto err_destroy_cmd_eq;
	err = comp_eqs_create(dev);
	if (err)
		goto err_destroy_async_eq;
	return 0;

err_destroy_async_eq:
	eq_destroy(dev, &dev->async_eq);
err_destroy_cmd_eq:
	mlx5sp_cmd_use_polling(dev);
	eq_destroy(dev, &dev->cmd_eq);
err_dealloc_uar:
	dealloc_uar(dev);
	return err;
}

void mlx5sp_eqs_destroy(struct mlx5sp_dev *dev)
{
	comp_eqs_destroy(dev);
	eq_destroy(dev, &dev->async_eq);
	mlx5sp_cmd_use_polling(dev);
	eq_destroy(dev, &dev->cmd_eq);
	dealloc_uar(dev);
}
