// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmlx5sp's SQD procedure on a QP created where the heap holds what an
 * earlier QP left: the replay of the cm_sig_shutdown failure (issue 15).
 *
 * libmlx5's cancel walks the SQ through sq.wqe_head[], an array it mallocs
 * uninitialized and fills at each WQE's first basic block only (see
 * userspace/lib/pipeline.c). Here the heap is filled with the 32-bit value
 * 5 before mlx5sp_create_qp(), and two transactions are posted, A (bad
 * guard) then B (good), each a UMR of its signature MKEY (4 blocks), the
 * SET_PSV libmlx5 adds, the RDMA WRITE through the MKEY and the fenced
 * response SEND: WQE numbers 0-3 at blocks 0-6, 4-7 at 7-13. The QP stops
 * at A's response (block 6); the walk goes on to B's UMR (block 7, number
 * 4) and looks for number 5 from block 8 on, inside the UMR: a stale 5
 * there takes it, and with A's response wr_id 0x0000000500000005 (what the
 * stale wrid[] slot reads) libmlx5 takes block 8 for a WQE to cancel and
 * fails on its "opcode" with EINVAL (or, had wr_data[] said so, writes a
 * NOP over the UMR's translations). Expected: SQ_DRAINED, A found bad and
 * its response canceled, the QP back in RTS, B's data and response at the
 * peer, A's response not.
 *
 * With "small", the QP asks for 8 WRs: a ring of 64 basic blocks, whose
 * arrays (256 and 512 bytes) glibc hands out from its per-thread cache,
 * unfilled by M_PERTURB; the cache is filled with STALE chunks of every
 * size up to 1 KiB first, and libmlx5sp must have made the ring deeper.
 *
 * usage: pipe_heap DEVICE [small]
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <mlx5sp/pipeline.h>

#include "check.h"
#include "roce.h"
#include "t10dif.h"

#define BLOCK		512
#define PI		8
#define APP_TAG		0x5a5a
#define RESP_LEN	32
#define STALE		5u	/* the number the walk looks for in B's UMR */
#define WR_A		(((uint64_t)STALE << 32) | STALE)
#define WR_B		0x4242ULL
#define WR_UMR		0x100ULL
#define WR_DATA		0x200ULL
#define POISON_CHUNKS	24
#define POISON_SIZE	4096

struct mem {
	unsigned char disk[2][BLOCK + PI];	/* A's block, B's block */
	unsigned char data[2][BLOCK];		/* the peer's: WRITE targets */
	char resp[2][RESP_LEN];			/* the peer's receive slots */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *tcq, *icq;
static struct ibv_qp *tqp, *iqp;
static struct ibv_mr *mr;
static struct mem *m;
static struct mlx5dv_mkey *mkey[2];
static union ibv_gid gid;
static enum ibv_mtu mtu;
static int gid_index;

/* @n chunks of @size filled with 32-bit words of STALE, then freed. */
static void poison(size_t size, unsigned int n)
{
	uint32_t *p[POISON_CHUNKS];
	size_t i, j;

	for (i = 0; i < n; i++) {
		p[i] = malloc(size);
		if (!p[i])
			fatal_err("malloc", ENOMEM);
		for (j = 0; j < size / sizeof(*p[i]); j++)
			p[i][j] = STALE;
	}
	for (i = 0; i < n; i++)
		free(p[i]);
}

/* What an earlier QP's freed arrays would leave, in the heap and cache. */
static void poison_heap(void)
{
	size_t size;

	poison(POISON_SIZE, POISON_CHUNKS);
	for (size = 64; size <= 1024; size *= 2)
		poison(size, 7);	/* glibc's tcache_count */
}

static int modify(struct ibv_qp *qp, enum ibv_qp_state state, uint32_t dqpn)
{
	struct ibv_qp_attr a = { .qp_state = state };

	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	case IBV_QPS_RTR:
		a.path_mtu = mtu;
		a.dest_qp_num = dqpn;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
	default:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	}
}

static void setup(const char *name, unsigned int send_wrs)
{
	struct mlx5dv_context_attr dv = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = send_wrs, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 256 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct mlx5dv_mkey_init_attr ma = {
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 1,
	};
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = mlx5dv_open_device(list[i], &dv);
	if (list)
		ibv_free_device_list(list);
	if (!ctx)
		fatal_err(name, errno ? errno : ENODEV);
	gid_index = roce_port_gid(ctx, &gid, &mtu);
	if (gid_index < 0)
		fatal_err("no GID", ENOENT);
	pd = ibv_alloc_pd(ctx);
	tcq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	icq = tcq ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	if (!icq || posix_memalign((void **)&m, 4096, sizeof(*m)))
		fatal_err("PD/CQs/memory", errno);
	memset(m, 0, sizeof(*m));
	mr = ibv_reg_mr(pd, m, sizeof(*m), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		fatal_err("ibv_reg_mr", errno);
	ia.send_cq = ia.recv_cq = icq;
	iqp = ibv_create_qp(pd, &ia);
	if (!iqp)
		fatal_err("ibv_create_qp", errno);

	poison_heap();
	qa.pd = pd;
	qa.send_cq = qa.recv_cq = tcq;
	tqp = mlx5sp_create_qp(ctx, &qa, &dqa);
	if (!tqp)
		fatal_err("mlx5sp_create_qp", errno);
	if (send_wrs < 128) {
		struct mlx5dv_qp dvqp = {};
		struct mlx5dv_obj obj = { .qp = { .in = tqp, .out = &dvqp } };

		if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP))
			fatal_err("mlx5dv_init_obj", EINVAL);
		check(dvqp.sq.wqe_cnt >= 512 && qa.cap.max_send_wr >= send_wrs,
		      "a small ring made deeper: %u WRs asked, %u given, %u basic blocks",
		      send_wrs, qa.cap.max_send_wr, dvqp.sq.wqe_cnt);
	}

	if (modify(tqp, IBV_QPS_INIT, 0) || modify(iqp, IBV_QPS_INIT, 0) ||
	    modify(tqp, IBV_QPS_RTR, iqp->qp_num) ||
	    modify(iqp, IBV_QPS_RTR, tqp->qp_num) ||
	    modify(tqp, IBV_QPS_RTS, 0) || modify(iqp, IBV_QPS_RTS, 0))
		fatal_err("connect", errno);
	ma.pd = pd;
	for (i = 0; i < 2; i++) {
		mkey[i] = mlx5dv_create_mkey(&ma);
		if (!mkey[i])
			fatal_err("mlx5dv_create_mkey", errno);
	}
	for (i = 0; i < 2; i++) {
		struct ibv_sge sge = { (uintptr_t)m->resp[i], RESP_LEN,
				       mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(iqp, &wr, &bad))
			fatal_err("ibv_post_recv", EIO);
	}
}

/* Transaction @i: UMR, WRITE through its MKEY, fenced response. */
static void post_txn(struct ibv_qp_ex *qpx, int i, uint64_t resp_wr_id)
{
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	struct t10dif_sig ts;
	struct mlx5dv_mkey_conf_attr conf = {};
	struct ibv_sge sge = { (uintptr_t)m->disk[i], BLOCK + PI, mr->lkey };
	char resp[RESP_LEN] = {};

	snprintf(resp, sizeof(resp), "RESP %c", 'A' + i);
	qpx->wr_id = WR_UMR | i;
	qpx->wr_flags = IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(dvqp, mkey[i], 3, &conf);
	mlx5dv_wr_set_mkey_access_flags(dvqp, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(dvqp, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(dvqp, t10dif_sig_mem(&ts, APP_TAG, i));
	qpx->wr_id = WR_DATA | i;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, mr->rkey, (uintptr_t)m->data[i]);
	ibv_wr_set_sge(qpx, mkey[i]->lkey, 0, BLOCK);
	qpx->wr_id = resp_wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, resp, RESP_LEN);
}

int main(int argc, char **argv)
{
	struct mlx5sp_txn txn[2] = {
		{ .resp_wr_id = WR_A }, { .resp_wr_id = WR_B },
	};
	struct mlx5sp_pipe_attr pa = {};
	struct ibv_async_event ev;
	struct mlx5sp_pipe *pipe;
	struct ibv_qp_ex *qpx;
	struct ibv_qp_attr qattr;
	struct ibv_qp_init_attr qia;
	struct pollfd pfd;
	int i, ret = -1, got = 0, resp_b = 0, resp_a = 0, sent_b = 0;
	struct ibv_wc wc;
	double end;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "small"))) {
		fprintf(stderr, "usage: pipe_heap DEVICE [small]\n");
		return 2;
	}
	setup(argv[1], argc == 3 ? 8 : 128);
	for (i = 0; i < 2; i++) {
		memset(m->disk[i], 'a' + i, BLOCK);
		t10dif_pi(m->disk[i] + BLOCK, m->disk[i], BLOCK, APP_TAG, i);
	}
	m->disk[0][BLOCK] ^= 1;		/* A's guard */
	pa.qp = tqp;
	pa.send_cq = tcq;
	pipe = mlx5sp_pipe_create(&pa);
	if (!pipe)
		fatal_err("mlx5sp_pipe_create", errno);
	qpx = ibv_qp_to_qp_ex(tqp);
	ibv_wr_start(qpx);
	for (i = 0; i < 2; i++) {
		txn[i].sig_mkey = mkey[i];
		if (mlx5sp_txn_open(pipe, &txn[i]))
			fatal_err("mlx5sp_txn_open", EINVAL);
		post_txn(qpx, i, txn[i].resp_wr_id);
	}
	if (ibv_wr_complete(qpx))
		fatal_err("ibv_wr_complete", EIO);

	/* SQ_DRAINED, then libmlx5sp's procedure */
	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1 || ibv_get_async_event(ctx, &ev))
		fatal_err("no async event", ETIMEDOUT);
	if (ev.event_type == IBV_EVENT_SQ_DRAINED)
		ret = mlx5sp_pipe_event(pipe, &ev);
	else
		fprintf(stderr, "pipe_heap: event %s\n",
			ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
	check(ret == 1, "SQ_DRAINED after A's bad guard, SQD procedure on a QP created over a used heap: %d (1 expected: handled)",
	      ret);
	check(txn[0].state == MLX5SP_TXN_SIG_ERROR && txn[0].canceled == 1 &&
	      txn[0].err.err_type == MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
	      "A: signature error (guard), its response canceled (%d canceled)",
	      txn[0].canceled);
	if (ibv_query_qp(tqp, &qattr, IBV_QP_STATE, &qia))
		fatal_err("ibv_query_qp", errno);
	check(qattr.qp_state == IBV_QPS_RTS, "QP back in RTS (state %d)",
	      qattr.qp_state);

	/* B runs: its response arrives, A's never */
	end = now_ms() + 10000;
	while (now_ms() < end && !(got && sent_b)) {
		while (ibv_poll_cq(tcq, 1, &wc) == 1)
			if (wc.wr_id == WR_B && wc.status == IBV_WC_SUCCESS)
				sent_b = 1;
		if (ibv_poll_cq(icq, 1, &wc) != 1)
			continue;
		got = 1;
		if (wc.status == IBV_WC_SUCCESS && wc.wr_id < 2) {
			resp_b += !strcmp(m->resp[wc.wr_id], "RESP B");
			resp_a += !strcmp(m->resp[wc.wr_id], "RESP A");
		}
	}
	usleep(100000);
	while (ibv_poll_cq(icq, 1, &wc) == 1)
		if (wc.status == IBV_WC_SUCCESS && wc.wr_id < 2)
			resp_a += !strcmp(m->resp[wc.wr_id], "RESP A");
	check(sent_b && resp_b == 1 && !resp_a &&
	      !memcmp(m->data[1], m->disk[1], BLOCK),
	      "B: its data and response at the peer, A's response not (B %d, A %d)",
	      resp_b, resp_a);

	mlx5sp_pipe_destroy(pipe);
	ibv_destroy_qp(tqp);
	ibv_destroy_qp(iqp);
	for (i = 0; i < 2; i++)
		mlx5dv_destroy_mkey(mkey[i]);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(tcq);
	ibv_destroy_cq(icq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(m);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
