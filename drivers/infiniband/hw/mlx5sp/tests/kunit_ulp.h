/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel ULP of the KUnit suites (kunit_ulp.c): a model device on
 * dummy0, a PD, one CQ, an SRQ when a suite adds one, two QPs connected
 * to each other and a DMA-mapped buffer for each.
 */
#ifndef MLX5SP_KUNIT_ULP_H
#define MLX5SP_KUNIT_ULP_H

#include <kunit/test.h>
#include <linux/completion.h>
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
	struct ib_srq *srq;		/* set by a suite; QP 1 receives from it */
	struct ib_qp *qp[2];
	void *buf[2];
	u64 dma[2];
	u32 gid_index;
	union ib_gid gid;
	atomic_t sq_drained;		/* IB_EVENT_SQ_DRAINED seen */
	struct completion srq_limit;	/* for a suite's SRQ event handler */
};

/* Device @name, PD, CQ and buffers, no QPs (skips without dummy0). */
struct ulp *ulp_open(struct kunit *test, const char *name, int cqe);
/* Two QPs of @qa (CQs unless set, events filled in here) connected, in RTS. */
void ulp_pair(struct kunit *test, struct ulp *u, struct ib_qp_init_attr *qa);
/* @qp (RESET) to RTS towards QP @dest with these READ/atomic depths. */
int ulp_connect_depth(struct ulp *u, struct ib_qp *qp, u32 dest, int dest_rd,
		      int init_rd);
/* "ku_ib0" with two RC QPs of @create_flags in RTS. */
struct ulp *ulp_setup_flags(struct kunit *test, u32 create_flags);
/* Tear down now rather than with the test (kunit_release_action). */
void ulp_exit(void *data);
/* Poll the CQ for @n completions, up to ULP_TIMEOUT_MS: how many came. */
int poll_n(struct ulp *u, struct ib_wc *wc, int n);

#endif /* MLX5SP_KUNIT_ULP_H */
