/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the DEVX test programs share: a DEVX context on a device by name,
 * and a DEVX UD QP (with its DEVX CQ, user memory and UAR) in RTS, built
 * with libmlx5's public mlx5dv_devx_* calls as pyverbs' DEVX tests build
 * them. Include after prm.h.
 */
#ifndef MLX5SP_TESTS_DEVX_QP_H
#define MLX5SP_TESTS_DEVX_QP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

/* A setup step failed: not a test result. */
static void fatal(const char *what)
{
	fprintf(stderr, "setup: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct ibv_context *open_ctx(const char *name)
{
	struct mlx5dv_context_attr attr = {
		.flags = MLX5DV_CONTEXT_FLAGS_DEVX,
	};
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		fatal("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = mlx5dv_open_device(list[i], &attr);
	ibv_free_device_list(list);
	if (!ctx)
		fatal("mlx5dv_open_device");
	return ctx;
}

/* A DEVX UD QP (with its DEVX CQ) in RTS, as pyverbs' DEVX tests build them. */
struct dqp {
	struct mlx5dv_devx_obj *cq, *qp;
	struct mlx5dv_devx_umem *umem[4];
	struct mlx5dv_devx_uar *uar;
	struct ibv_pd *pd;
	void *mem[4];
	uint32_t qpn, cqn;
};

static struct mlx5dv_devx_umem *umem(struct ibv_context *ctx, struct dqp *q,
				     int i, size_t size)
{
	if (posix_memalign(&q->mem[i], 4096, size))
		fatal("posix_memalign");
	memset(q->mem[i], 0, size);
	q->umem[i] = mlx5dv_devx_umem_reg(ctx, q->mem[i], size,
					  IBV_ACCESS_LOCAL_WRITE);
	if (!q->umem[i])
		fatal("mlx5dv_devx_umem_reg");
	return q->umem[i];
}

static int qp_modify(struct dqp *q, uint16_t opcode, void *qpc_in, size_t len)
{
	uint32_t out[DEVX_ST_SZ_DW(rtr2rts_qp_out)] = {};
	uint32_t *in = qpc_in;

	DEVX_SET(rst2init_qp_in, in, opcode, opcode);
	DEVX_SET(rst2init_qp_in, in, qpn, q->qpn);
	return mlx5dv_devx_obj_modify(q->qp, in, len, out, sizeof(out));
}

static int dqp_create(struct ibv_context *ctx, struct dqp *q)
{
	uint32_t cin[DEVX_ST_SZ_DW(create_cq_in)] = {};
	uint32_t cout[DEVX_ST_SZ_DW(create_cq_out)] = {};
	uint32_t qin[DEVX_ST_SZ_DW(create_qp_in)] = {};
	uint32_t qout[DEVX_ST_SZ_DW(create_qp_out)] = {};
	uint32_t min[DEVX_ST_SZ_DW(rtr2rts_qp_in)];
	struct mlx5dv_obj dv = {};
	struct mlx5dv_pd dvpd;
	void *cqc, *qpc;
	uint32_t eqn;

	q->pd = ibv_alloc_pd(ctx);
	dv.pd.in = q->pd;
	dv.pd.out = &dvpd;
	q->uar = mlx5dv_devx_alloc_uar(ctx, MLX5DV_UAR_ALLOC_TYPE_NC);
	if (!q->pd || mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD) || !q->uar ||
	    mlx5dv_devx_query_eqn(ctx, 0, &eqn))
		return -1;

	/* 64 CQEs of 64 bytes; 64 receive and 64 send WQEs of 64 bytes */
	DEVX_SET(create_cq_in, cin, opcode, MLX5_CMD_OP_CREATE_CQ);
	DEVX_SET(create_cq_in, cin, cq_umem_valid, 1);
	mlx5sp_set_dw(cin, MLX5SP_CREATE_CQ_UMEM_ID, umem(ctx, q, 0, 4096)->umem_id);
	cqc = DEVX_ADDR_OF(create_cq_in, cin, cq_context);
	DEVX_SET(cqc, cqc, log_cq_size, 6);
	DEVX_SET(cqc, cqc, uar_page, q->uar->page_id);
	DEVX_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	DEVX_SET(cqc, cqc, dbr_umem_valid, 1);
	mlx5sp_set_dw(cqc, MLX5SP_CQC_DBR_UMEM_ID, umem(ctx, q, 1, 4096)->umem_id);
	q->cq = mlx5dv_devx_obj_create(ctx, cin, sizeof(cin), cout, sizeof(cout));
	if (!q->cq)
		return -2;
	q->cqn = DEVX_GET(create_cq_out, cout, cqn);

	DEVX_SET(create_qp_in, qin, opcode, MLX5_CMD_OP_CREATE_QP);
	DEVX_SET(create_qp_in, qin, wq_umem_valid, 1);
	DEVX_SET(create_qp_in, qin, wq_umem_id, umem(ctx, q, 2, 8192)->umem_id);
	qpc = DEVX_ADDR_OF(create_qp_in, qin, qpc);
	DEVX_SET(qpc, qpc, st, MLX5_QPC_ST_UD);
	DEVX_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
	DEVX_SET(qpc, qpc, pd, dvpd.pdn);
	DEVX_SET(qpc, qpc, uar_page, q->uar->page_id);
	DEVX_SET(qpc, qpc, log_rq_size, 6);
	DEVX_SET(qpc, qpc, log_rq_stride, 2);
	DEVX_SET(qpc, qpc, log_sq_size, 6);
	DEVX_SET(qpc, qpc, ts_format, 1);
	DEVX_SET(qpc, qpc, cqn_snd, q->cqn);
	DEVX_SET(qpc, qpc, cqn_rcv, q->cqn);
	DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
	mlx5sp_set_dw(qpc, MLX5SP_QPC_DBR_UMEM_ID, umem(ctx, q, 3, 4096)->umem_id);
	q->qp = mlx5dv_devx_obj_create(ctx, qin, sizeof(qin), qout, sizeof(qout));
	if (!q->qp)
		return -3;
	q->qpn = DEVX_GET(create_qp_out, qout, qpn);

	memset(min, 0, sizeof(min));
	qpc = DEVX_ADDR_OF(rst2init_qp_in, min, qpc);
	DEVX_SET(qpc, qpc, primary_address_path.vhca_port_num, 1);
	DEVX_SET(qpc, qpc, q_key, 0x11111111);
	if (qp_modify(q, MLX5_CMD_OP_RST2INIT_QP, min, DEVX_ST_SZ_BYTES(rst2init_qp_in)))
		return -4;
	memset(min, 0, sizeof(min));
	if (qp_modify(q, MLX5_CMD_OP_INIT2RTR_QP, min, DEVX_ST_SZ_BYTES(init2rtr_qp_in)))
		return -5;
	memset(min, 0, sizeof(min));
	if (qp_modify(q, MLX5_CMD_OP_RTR2RTS_QP, min, DEVX_ST_SZ_BYTES(rtr2rts_qp_in)))
		return -6;
	return 0;
}

static void dqp_destroy(struct dqp *q)
{
	int i;

	if (q->qp)
		mlx5dv_devx_obj_destroy(q->qp);
	if (q->cq)
		mlx5dv_devx_obj_destroy(q->cq);
	for (i = 0; i < 4; i++) {
		if (q->umem[i])
			mlx5dv_devx_umem_dereg(q->umem[i]);
		free(q->mem[i]);
	}
	if (q->uar)
		mlx5dv_devx_free_uar(q->uar);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
}

#endif
