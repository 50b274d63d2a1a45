/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel ULP of the KUnit suites (kunit_ib.c): a model device "ku_ib0"
 * on dummy0, a PD, one CQ, two RC QPs connected to each other and a
 * DMA-mapped buffer for each.
 */
#ifndef MLX5SP_KUNIT_ULP_H
#define MLX5SP_KUNIT_ULP_H

#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#define ULP_BUF		4096
#define ULP_TIMEOUT_MS	10000

struct mlx5sp_sim;

struct ulp {
	struct mlx5sp_sim *sim;
	struct net_device *ndev;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	void *buf[2];
	u64 dma[2];
	u32 gid_index;
	union ib_gid gid;
	atomic_t sq_drained;		/* IB_EVENT_SQ_DRAINED seen */
};

/* Set up (torn down with the test; skips without dummy0), QPs in RTS. */
struct ulp *ulp_setup_flags(struct kunit *test, u32 create_flags);
/* Poll the CQ for @n completions, up to ULP_TIMEOUT_MS: how many came. */
int poll_n(struct ulp *u, struct ib_wc *wc, int n);

#endif /* MLX5SP_KUNIT_ULP_H */
