// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA device once its firmware is dead (a fatal health syndrome or a
 * stuck health counter: mlx5sp_enter_error_state()), as mlx5_ib behaves in
 * internal error. The device writes no CQE again, so:
 *
 * - every user hears IB_EVENT_DEVICE_FATAL, and the handler of each
 *   kernel CQ with work outstanding is called once, so its owner polls;
 * - poll_cq of a kernel CQ completes, in order and flushed
 *   (IB_WC_WR_FLUSH_ERR), every WR still outstanding on the send and
 *   receive queues of the kernel QPs it serves; receives posted to an SRQ
 *   stay there (mlx5_ib's too);
 * - posts fail with -EIO, except the WR ib_drain_qp() waits for (our
 *   drain_sq/drain_rq), which is flushed like the rest: a ULP that tears
 *   its queues down on a dead device (nvme-rdma's error recovery, the
 *   removal of the device) does not wait forever.
 *
 * User QPs: libmlx5 polls its CQs in memory; users learn from the event
 * and from their verbs failing (-ENOLINK from firmware commands, as
 * mlx5_core answers for a dead device; destroys succeed).
 */
#include "ib.h"

/* From the core's event lock, any context: the work does the rest. */
void mlx5sp_fatal_event(void *ctx)
{
	struct mlx5sp_ib_dev *dev = ctx;

	schedule_work(&dev->fatal_work);
}

/*
 * A kernel CQ's handler, with hard interrupts off as for a completion
 * event. A CQ polled directly has none (ib_cq warns on a call): its owner
 * polls, and drain_wait() does below.
 */
static void fatal_kick_cq(struct mlx5sp_cq *cq)
{
	unsigned long flags;

	if (cq->user || cq->ibcq.poll_ctx == IB_POLL_DIRECT ||
	    !cq->ibcq.comp_handler)
		return;
	local_irq_save(flags);
	cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	local_irq_restore(flags);
}

/*
 * The CQs of a kernel QP with WRs outstanding, as mlx5_ib picks them: the
 * QP is held (its destroy waits), so its CQs are too (a ULP frees a CQ
 * after its QPs), and one being freed is never called.
 */
static void fatal_kick_qp(struct mlx5sp_core_qp *mqp)
{
	struct mlx5sp_qp *qp = container_of(mqp, struct mlx5sp_qp, mqp);

	if (qp->user)
		return;
	if (qp->ibqp.send_cq &&
	    READ_ONCE(qp->sq.tail) != READ_ONCE(qp->sq.head))
		fatal_kick_cq(to_cq(qp->ibqp.send_cq));
	if (qp->ibqp.recv_cq && !qp->ibqp.srq &&
	    READ_ONCE(qp->rq.tail) != READ_ONCE(qp->rq.head))
		fatal_kick_cq(to_cq(qp->ibqp.recv_cq));
}

void mlx5sp_fatal_work(struct work_struct *work)
{
	struct mlx5sp_ib_dev *dev = container_of(work, struct mlx5sp_ib_dev,
						 fatal_work);
	struct ib_event ev = {
		.device = &dev->ib,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = MLX5SP_IB_PORT,
	};

	ibdev_err(&dev->ib, "firmware is dead: outstanding kernel work completes flushed\n");
	/* the flushes below are final only once the device writes no CQE */
	mlx5sp_wait_nic_off(dev->mdev);
	mlx5sp_core_qp_each(dev->mdev, fatal_kick_qp);
	ib_dispatch_event(&ev);
}

static void flush_wc(struct ib_wc *wc, struct mlx5sp_qp *qp, u64 wr_id)
{
	*wc = (struct ib_wc) {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.vendor_err = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
		.qp = &qp->ibqp,
	};
}

/*
 * Up to @num of the SQ's outstanding WRs, oldest first, from the WQE after
 * the last one a CQE completed (poll_bb) to the last posted. A WR of
 * several WQEs completes by its last; one whose earlier WQE already
 * completed in error is not reported again. Bounded by the ring, whatever
 * poll_bb holds. cq->lock and sq.lock held.
 */
static int flush_sq(struct mlx5sp_qp *qp, int num, struct ib_wc *wc)
{
	struct mlx5sp_wq *wq = &qp->sq;
	u32 left = (u16)(wq->cur_post - wq->poll_bb);
	u32 pos, idx, nbb;
	int n = 0;

	left = min(left, wq->wqe_cnt);
	pos = wq->cur_post - left;
	while (n < num && left) {
		idx = pos & (wq->wqe_cnt - 1);
		nbb = min(mlx5sp_sq_wqe_nbb(qp, pos), left);
		pos += nbb;
		left -= nbb;
		wq->poll_bb = pos;
		if (test_bit(idx, wq->partial))
			continue;
		WRITE_ONCE(wq->tail, wq->wqe_head[idx] + 1);
		if (wq->failed && wq->failed_head == wq->wqe_head[idx]) {
			wq->failed = false;
			continue;
		}
		flush_wc(&wc[n++], qp, wq->wrid[idx]);
	}
	/* every WQE posted is accounted for */
	if (!left)
		WRITE_ONCE(wq->tail, wq->head);
	return n;
}

/* Up to @num of the RQ's outstanding WRs. cq->lock and rq.lock held. */
static int flush_rq(struct mlx5sp_qp *qp, int num, struct ib_wc *wc)
{
	struct mlx5sp_wq *wq = &qp->rq;
	int n = 0;

	while (n < num && wq->tail != wq->head) {
		flush_wc(&wc[n++], qp, wq->wrid[wq->tail & (wq->wqe_cnt - 1)]);
		WRITE_ONCE(wq->tail, wq->tail + 1);
	}
	return n;
}

static bool sq_on(struct mlx5sp_qp *qp, struct mlx5sp_cq *cq)
{
	return !qp->user && qp->ibqp.send_cq == &cq->ibcq && qp->sq.wqe_cnt;
}

static bool rq_on(struct mlx5sp_qp *qp, struct mlx5sp_cq *cq)
{
	return !qp->user && qp->ibqp.recv_cq == &cq->ibcq && !qp->ibqp.srq &&
	       qp->rq.wqe_cnt;
}

/*
 * poll_cq of a dead device: the software flush of the QPs @cq serves.
 * Those QPs stay while cq->lock is held (destroy cleans their CQs under
 * it); the table's lock keeps the others while they are looked at.
 * cq->lock held, interrupts off.
 */
int mlx5sp_poll_dead(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
		     int num_entries, struct ib_wc *wc)
{
	struct xarray *qps = &dev->mdev->qp_table;
	struct mlx5sp_core_qp *mqp;
	struct mlx5sp_qp *qp;
	unsigned long i;
	int n = 0;

	xa_lock(qps);
	xa_for_each(qps, i, mqp) {
		if (n >= num_entries)
			break;
		qp = container_of(mqp, struct mlx5sp_qp, mqp);
		if (sq_on(qp, cq)) {
			spin_lock(&qp->sq.lock);
			n += flush_sq(qp, num_entries - n, wc + n);
			spin_unlock(&qp->sq.lock);
		}
		if (n < num_entries && rq_on(qp, cq)) {
			spin_lock(&qp->rq.lock);
			n += flush_rq(qp, num_entries - n, wc + n);
			spin_unlock(&qp->rq.lock);
		}
	}
	xa_unlock(qps);
	return n;
}

/* Is any WR outstanding that poll_dead() has still to complete? */
bool mlx5sp_dead_pending(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq)
{
	struct xarray *qps = &dev->mdev->qp_table;
	struct mlx5sp_core_qp *mqp;
	struct mlx5sp_qp *qp;
	bool pending = false;
	unsigned long i;

	xa_lock(qps);
	xa_for_each(qps, i, mqp) {
		qp = container_of(mqp, struct mlx5sp_qp, mqp);
		if ((sq_on(qp, cq) &&
		     READ_ONCE(qp->sq.tail) != READ_ONCE(qp->sq.head)) ||
		    (rq_on(qp, cq) &&
		     READ_ONCE(qp->rq.tail) != READ_ONCE(qp->rq.head))) {
			pending = true;
			break;
		}
	}
	xa_unlock(qps);
	return pending;
}

/* The WR a drain waits for. */
struct drain_cqe {
	struct ib_cqe cqe;
	struct completion done;
};

static void drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	complete(&container_of(wc->wr_cqe, struct drain_cqe, cqe)->done);
}

/*
 * Until the drain WR completed: a CQ polled directly is polled here; any
 * other's handler is called while the device is dead (also when it died
 * during the wait), since no event will come for the software flush.
 */
static void drain_wait(struct mlx5sp_ib_dev *dev, struct ib_cq *ibcq,
		       struct drain_cqe *d)
{
	struct mlx5sp_cq *cq = to_cq(ibcq);

	if (ibcq->poll_ctx == IB_POLL_DIRECT) {
		while (!wait_for_completion_timeout(&d->done, HZ / 10))
			ib_process_cq_direct(ibcq, -1);
		return;
	}
	if (mlx5sp_dev_dead(dev->mdev))
		fatal_kick_cq(cq);
	while (!wait_for_completion_timeout(&d->done, HZ))
		if (mlx5sp_dev_dead(dev->mdev))
			fatal_kick_cq(cq);
}

/* QP to ERR; on a dead device the command "succeeds" (destroy semantics). */
static bool drain_to_err(struct mlx5sp_ib_dev *dev, struct ib_qp *ibqp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int err;

	err = ib_modify_qp(ibqp, &attr, IB_QP_STATE);
	if (err && !mlx5sp_dev_dead(dev->mdev)) {
		ibdev_warn(&dev->ib, "QP 0x%x: drain: to ERR failed: %d\n",
			   ibqp->qp_num, err);
		return false;
	}
	return true;
}

/* ib_drain_sq(): every WR posted before has completed when this returns. */
void mlx5sp_drain_sq(struct ib_qp *ibqp)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct drain_cqe d = { .cqe.done = drain_done };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &d.cqe,
			.opcode = IB_WR_RDMA_WRITE,
		},
	};
	int err;

	if (!drain_to_err(dev, ibqp))
		return;
	init_completion(&d.done);
	err = mlx5sp_post_send_drain(ibqp, &wr.wr);
	if (err) {
		ibdev_warn(&dev->ib, "QP 0x%x: drain: send post failed: %d\n",
			   ibqp->qp_num, err);
		return;
	}
	drain_wait(dev, ibqp->send_cq, &d);
}

/* ib_drain_rq(): every receive posted before has completed on return. */
void mlx5sp_drain_rq(struct ib_qp *ibqp)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct drain_cqe d = { .cqe.done = drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &d.cqe };
	int err;

	if (!drain_to_err(dev, ibqp))
		return;
	init_completion(&d.done);
	err = mlx5sp_post_recv_drain(ibqp, &wr);
	if (err) {
		ibdev_warn(&dev->ib, "QP 0x%x: drain: receive post failed: %d\n",
			   ibqp->qp_num, err);
		return;
	}
	drain_wait(dev, ibqp->recv_cq, &d);
}
