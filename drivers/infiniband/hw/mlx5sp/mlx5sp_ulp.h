/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What mlx5sp offers kernel ULPs beyond ib_core's verbs: signature
 * pipelining on kernel QPs (the kernel's side of
 * MLX5DV_QP_CREATE_SIG_PIPELINING and mlx5dv_qp_cancel_posted_send_wrs).
 */
#ifndef MLX5SP_ULP_H
#define MLX5SP_ULP_H

#include <rdma/ib_verbs.h>

/*
 * ib_qp_init_attr.create_flags: an RC QP that stops in SQD (and raises
 * IB_EVENT_SQ_DRAINED) after a signature error, before the next WR posted
 * with IB_SEND_FENCE. Refused with -EOPNOTSUPP where unsupported.
 */
#define MLX5SP_QP_CREATE_SIG_PIPELINING	IB_QP_CREATE_RESERVED_START

bool mlx5sp_is_ib_device(struct ib_device *ibdev);
int mlx5sp_qp_cancel_send_wrs(struct ib_qp *ibqp, u64 wr_id);

#endif /* MLX5SP_ULP_H */
