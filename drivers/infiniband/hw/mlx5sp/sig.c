// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Signature pipelining for kernel ULPs: QPs that drain on a signature
 * error, and cancelling their fenced sends while stopped in SQD.
 *
 * The user side of the same feature lives in libmlx5 (which sets
 * drain_sigerr through DEVX and rewrites WQEs in its own mapping); this is
 * the same procedure over kernel QPs, whose SQ the driver owns.
 */

#include <linux/mlx5/qp.h>

#include "ib.h"
#include "mlx5sp_ulp.h"
#include "trace.h"

/* INIT2INIT with drain_sigerr, right after RST2INIT (as libmlx5 does). */
int mlx5sp_qp_enable_drain_sigerr(struct mlx5sp_ib_dev *dev,
				  struct mlx5sp_qp *qp)
{
	u32 in[MLX5_ST_SZ_DW(init2init_qp_in)] = {};
	void *qpc = MLX5_ADDR_OF(init2init_qp_in, in, qpc);

	MLX5_SET(init2init_qp_in, in, opcode, MLX5_CMD_OP_INIT2INIT_QP);
	MLX5_SET(init2init_qp_in, in, qpn, qp->mqp.qpn);
	MLX5_SET(init2init_qp_in, in, opt_param_mask,
		 MLX5SP_QP_OPTPAR_DRAIN_SIGERR);
	MLX5_SET(qpc, qpc, drain_sigerr, 1);
	return mlx5sp_cmd_exec_in(dev->mdev, init2init_qp, in);
}

/* The QP's state in firmware and where its SQ stands. */
static int query_qpc(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
		     u8 *state, u16 *counter)
{
	void *out, *qpc;
	int err;

	err = mlx5sp_cmd_query_qp(dev->mdev, qp->mqp.qpn,
				  MLX5_ST_SZ_BYTES(query_qp_out), &out);
	if (err)
		return err;
	qpc = MLX5_ADDR_OF(query_qp_out, out, qpc);
	*state = MLX5_GET(qpc, qpc, state);
	*counter = MLX5_GET(qpc, qpc, hw_sq_wqebb_counter);
	kfree(out);
	return 0;
}

/* Where the stopped SQ stands: -EINVAL unless the QP is in SQD. */
static int query_sqd(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
		     u16 *counter)
{
	u8 state;
	int err;

	err = query_qpc(dev, qp, &state, counter);
	if (err)
		return err;
	return state == MLX5_QP_STATE_SQD ? 0 : -EINVAL;
}

/*
 * Did the device stop the QP in SQD after a signature error, while the
 * driver still has it in RTS? Then a ULP's modify to RTS is SQD->RTS.
 * qp->mutex held.
 */
bool mlx5sp_qp_sig_stopped(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp)
{
	u16 counter;

	return qp->sig_pipelining && !qp->user && qp->state == IB_QPS_RTS &&
	       !query_sqd(dev, qp, &counter);
}

/* The completion opcode a cancelled WQE keeps (its CQE says NOP). */
static u8 wc_opcode(u8 mlx5_opcode)
{
	switch (mlx5_opcode) {
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		return IB_WC_RDMA_WRITE;
	case MLX5_OPCODE_RDMA_READ:
		return IB_WC_RDMA_READ;
	case MLX5_OPCODE_ATOMIC_CS:
		return IB_WC_COMP_SWAP;
	case MLX5_OPCODE_ATOMIC_FA:
		return IB_WC_FETCH_ADD;
	case MLX5_OPCODE_UMR:
	case MLX5_OPCODE_SET_PSV:
		return IB_WC_REG_MR;
	case MLX5_OPCODE_NOP:
		return MLX5SP_WC_OP_NONE;
	default:
		return IB_WC_SEND;
	}
}

/**
 * mlx5sp_qp_cancel_send_wrs - turn a stopped QP's pending WRs into NOPs
 * @ibqp: a kernel QP created with MLX5SP_QP_CREATE_SIG_PIPELINING, in SQD
 * @wr_id: the WR ID to cancel
 *
 * Every WR with @wr_id not yet executed becomes a NOP: it completes good
 * if it was signalled (with its own opcode in the work completion), or
 * flushed if the QP goes to error, and sends nothing. Then move the QP
 * back to RTS with ib_modify_qp().
 *
 * Return: the number of WRs cancelled, -EINVAL when the QP is not a kernel
 * mlx5sp QP with signature pipelining in SQD, or another -errno.
 */
int mlx5sp_qp_cancel_send_wrs(struct ib_qp *ibqp, u64 wr_id)
{
	struct mlx5sp_ib_dev *dev;
	struct mlx5_wqe_ctrl_seg *ctrl;
	struct mlx5sp_qp *qp;
	unsigned long flags;
	u32 pos, v, idx;
	int err, n = 0;
	u16 counter;
	u8 op, nbb;

	if (!ibqp || !mlx5sp_is_ib_device(ibqp->device))
		return -EINVAL;
	qp = to_qp(ibqp);
	dev = to_ibdev(ibqp->device);
	if (qp->user || !qp->sig_pipelining)
		return -EINVAL;

	mutex_lock(&qp->mutex);
	err = query_sqd(dev, qp, &counter);
	if (err)
		goto out;
	spin_lock_irqsave(&qp->sq.lock, flags);
	/* the device counts basic blocks in 16 bits */
	pos = qp->sq.cur_post - (u16)(qp->sq.cur_post - counter);
	while (pos != qp->sq.cur_post) {
		ctrl = mlx5sp_sq_bb(qp, pos);
		nbb = mlx5sp_sq_wqe_nbb(qp, pos);
		idx = pos & (qp->sq.wqe_cnt - 1);
		v = be32_to_cpu(ctrl->opmod_idx_opcode);
		op = v & MLX5_WQE_CTRL_OPCODE_MASK;
		if (qp->sq.wrid[idx] == wr_id && op != MLX5_OPCODE_NOP) {
			qp->sq.wc_op[idx] = wc_opcode(op);
			/* opcode and opmod cleared, the WQE index kept */
			ctrl->opmod_idx_opcode = cpu_to_be32((v & 0xffff00) |
							     MLX5_OPCODE_NOP);
			/* a WR of several WQEs counts once, by its last */
			if (!test_bit(idx, qp->sq.partial))
				n++;
		}
		pos += nbb;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	mlx5sp_count(dev, MLX5SP_DRV_WQES_CANCELLED, n);
	trace_mlx5sp_cancel(dev->mdev->name, qp->mqp.qpn, wr_id, n);
out:
	mutex_unlock(&qp->mutex);
	return err ? err : n;
}
EXPORT_SYMBOL_GPL(mlx5sp_qp_cancel_send_wrs);
