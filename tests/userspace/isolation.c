// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * isolation: what one user of a device can reach of another's, as on a
 * ConnectX with mlx5_ib.
 *
 * The owner (root) builds a verbs PD, MR and RC QP, a signature MKEY (with
 * its PSVs) and DEVX PD/CQ/QP/PSV objects, and hands their numbers to a second
 * process running as nobody in a context of its own. That process tries
 * every way to reach them by number:
 *  - uverbs handles of the owner's objects in its own file: ENOENT;
 *  - DEVX: commands naming the owner's QPN, CQN or PD (query through its
 *    own object, create over them, whatever uid the command header
 *    claims) fail; privileged general commands are refused with EINVAL,
 *    an allowed one (QUERY_HCA_CAP) works;
 *  - WQEs on its own QPs with the owner's lkey or signature MKEY: local
 *    protection error; with the owner's rkey: remote access error; with
 *    an rkey of its own other PD: remote access error;
 *  - RLIMIT_MEMLOCK bounds what it may pin (ENOMEM beyond it, released on
 *    deregistration), as ib_umem does for mlx5_ib.
 * Then the owner's objects are checked untouched: the MR's bytes, the QP
 * in RTS passing data, the DEVX QP answering its query, the DEVX PSV the
 * other's DESTROY_PSV named still the owner's to destroy.
 *
 *   isolation DEV        exit 0: all passed; 1: a mismatch (printed)
 */

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "check.h"
#include "roce.h"
#include "prm.h"
#include "devx_qp.h"

#define BUF_SIZE	8192
#define PATTERN		0x5a
#define TIMEOUT_MS	5000

/* What the owner hands to the other process. */
struct owner_nums {
	uint32_t qp_handle, cq_handle, pd_handle, mr_handle;
	uint32_t lkey, rkey, sig_lkey;
	uint64_t addr;
	uint32_t dqpn, dcqn, dpdn, dpsv;
};

/* One process's device: its context, a GID, two PDs, an RC QP pair. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr, *mr2;
	char *buf, *buf2;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

static void find_gid(struct side *s)
{
	s->gid_index = roce_port_gid(s->ctx, &s->gid, &s->mtu);
	if (s->gid_index < 0)
		fatal("no GID");
}

static int to_rts(struct side *s, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = s->mtu;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = s->gid;
	a.ah_attr.grh.sgid_index = s->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* An RC QP that may also configure MKEYs (mlx5dv's UMR). */
static struct ibv_qp *rc_qp(struct side *s)
{
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 128 },
		.pd = s->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};

	return mlx5dv_create_qp(s->ctx, &qa, &dqa);
}

/* A device of its own: context (DEVX), two PDs and MRs, a QP pair. */
static void side_open(struct side *s, const char *dev)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;

	memset(s, 0, sizeof(*s));
	s->ctx = open_ctx(dev);
	find_gid(s);
	s->pd = ibv_alloc_pd(s->ctx);
	s->pd2 = ibv_alloc_pd(s->ctx);
	if (!s->pd || !s->pd2)
		fatal("ibv_alloc_pd");
	if (posix_memalign((void **)&s->buf, 4096, BUF_SIZE) ||
	    posix_memalign((void **)&s->buf2, 4096, BUF_SIZE))
		fatal("posix_memalign");
	memset(s->buf, 0, BUF_SIZE);
	memset(s->buf2, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, acc);
	s->mr2 = ibv_reg_mr(s->pd2, s->buf2, BUF_SIZE, acc);
	if (!s->mr || !s->mr2)
		fatal("ibv_reg_mr");
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->cq)
		fatal("ibv_create_cq");
	s->qp[0] = rc_qp(s);
	s->qp[1] = rc_qp(s);
	if (!s->qp[0] || !s->qp[1])
		fatal("ibv_create_qp");
	if (to_rts(s, s->qp[0], s->qp[1]->qp_num) ||
	    to_rts(s, s->qp[1], s->qp[0]->qp_num))
		fatal("ibv_modify_qp");
}

static void side_close(struct side *s)
{
	if (ibv_destroy_qp(s->qp[0]) || ibv_destroy_qp(s->qp[1]) ||
	    ibv_destroy_cq(s->cq) || ibv_dereg_mr(s->mr) ||
	    ibv_dereg_mr(s->mr2) || ibv_dealloc_pd(s->pd) ||
	    ibv_dealloc_pd(s->pd2) || ibv_close_device(s->ctx))
		fatal("teardown");
	free(s->buf);
	free(s->buf2);
}

/*
 * The completion status of one WRITE of @len bytes at @laddr of @lkey from
 * QP 0 to QP 1; -1: no completion, -2: the post failed.
 */
static int write_from(struct side *s, uint32_t lkey, uint64_t laddr,
		      uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	struct timespec t0, t1;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(s->qp[0], &wr, &bad))
		return -2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0)
			return -2;
		if (n && wc.wr_id == 7)
			return wc.status;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if ((t1.tv_sec - t0.tv_sec) * 1000 +
		    (t1.tv_nsec - t0.tv_nsec) / 1000000 > TIMEOUT_MS)
			return -1;
	}
}

/* A WRITE from the start of @s's buffer. */
static int write_status(struct side *s, uint32_t lkey, uint64_t raddr,
			uint32_t rkey, uint32_t len)
{
	return write_from(s, lkey, (uintptr_t)s->buf, raddr, rkey, len);
}

/*
 * @mkey over the first page of @s's MR (no signature), through QP 0: the
 * completion's status, -1 if none came, -2 if it could not be posted.
 */
static int configure_status(struct side *s, struct mlx5dv_mkey *mkey)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(s->qp[0]);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	struct mlx5dv_mkey_conf_attr conf = {};
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 4096, .lkey = s->mr->lkey,
	};
	struct ibv_wc wc;
	int ret, n, tries;

	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	mlx5dv_wr_mkey_configure(dvqp, mkey, 2, &conf);
	mlx5dv_wr_set_mkey_access_flags(dvqp, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(dvqp, 1, &sge);
	ret = ibv_wr_complete(qpx);
	if (ret)
		return -2;
	for (tries = 0; tries < TIMEOUT_MS; tries++) {
		n = ibv_poll_cq(s->cq, 1, &wc);
		if (n < 0)
			return -2;
		if (n && wc.wr_id == 9)
			return wc.status;
		usleep(1000);
	}
	return -1;
}

/* QP 0 back to RTS after an error (RESET, INIT, RTR, RTS), CQ drained. */
static void side_rearm(struct side *s)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 2; i++)
		if (ibv_modify_qp(s->qp[i], &a, IBV_QP_STATE))
			fatal("modify to RESET");
	while (ibv_poll_cq(s->cq, 1, &wc) > 0)
		;
	if (to_rts(s, s->qp[0], s->qp[1]->qp_num) ||
	    to_rts(s, s->qp[1], s->qp[0]->qp_num))
		fatal("rearm");
}

static void expect_wc(struct side *s, int got, enum ibv_wc_status want,
		      const char *what)
{
	check(got == (int)want, "%s: %s (got %s)", what,
	      ibv_wc_status_str(want),
	      got == -1 ? "no completion" : got < 0 ? "post failed" :
	      ibv_wc_status_str(got));
	side_rearm(s);
}

/* A legacy write() command on @ctx's uverbs file; 0 or the errno. */
static int raw_write(struct ibv_context *ctx, uint32_t cmd, void *req,
		     size_t len)
{
	struct ib_uverbs_cmd_hdr *hdr = req;
	ssize_t n;

	hdr->command = cmd;
	hdr->in_words = len / 4;
	n = write(ctx->cmd_fd, req, len);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EIO;
}

/* The owner's uverbs handles, used on another process's file. */
static void test_handles(struct ibv_context *ctx, const struct owner_nums *o)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_query_qp cmd;
	} qq = {};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_cq cmd;
	} dcq = {};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dereg_mr cmd;
	} dmr = {};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dealloc_pd cmd;
	} dpd = {};
	struct ib_uverbs_query_qp_resp qresp;
	struct ib_uverbs_destroy_cq_resp cresp;
	int err;

	qq.hdr.out_words = sizeof(qresp) / 4;
	qq.cmd.response = (uintptr_t)&qresp;
	qq.cmd.qp_handle = o->qp_handle;
	qq.cmd.attr_mask = IBV_QP_STATE;
	err = raw_write(ctx, IB_USER_VERBS_CMD_QUERY_QP, &qq, sizeof(qq));
	check(err == EINVAL || err == ENOENT,
	      "QUERY_QP of the owner's QP handle %u: EINVAL/ENOENT (got %s)",
	      o->qp_handle, strerror(err));

	dcq.hdr.out_words = sizeof(cresp) / 4;
	dcq.cmd.response = (uintptr_t)&cresp;
	dcq.cmd.cq_handle = o->cq_handle;
	err = raw_write(ctx, IB_USER_VERBS_CMD_DESTROY_CQ, &dcq, sizeof(dcq));
	check(err == ENOENT, "DESTROY_CQ of the owner's CQ handle %u: ENOENT (got %s)",
	      o->cq_handle, strerror(err));

	dmr.cmd.mr_handle = o->mr_handle;
	err = raw_write(ctx, IB_USER_VERBS_CMD_DEREG_MR, &dmr, sizeof(dmr));
	check(err == ENOENT, "DEREG_MR of the owner's MR handle %u: ENOENT (got %s)",
	      o->mr_handle, strerror(err));

	dpd.cmd.pd_handle = o->pd_handle;
	err = raw_write(ctx, IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd));
	check(err == ENOENT, "DEALLOC_PD of the owner's PD handle %u: ENOENT (got %s)",
	      o->pd_handle, strerror(err));
}

/* DEVX commands naming the owner's objects, from another context. */
static void test_devx(struct ibv_context *ctx, const struct owner_nums *o)
{
	uint32_t in[DEVX_ST_SZ_DW(create_qp_in)] = {};
	uint32_t out[DEVX_ST_SZ_DW(query_qp_out)] = {};
	uint32_t cap_out[DEVX_ST_SZ_DW(query_hca_cap_out)];
	static const struct { uint16_t op; const char *name; } priv[] = {
		{ MLX5_CMD_OP_ENABLE_HCA, "ENABLE_HCA" },
		{ MLX5_CMD_OP_TEARDOWN_HCA, "TEARDOWN_HCA" },
		{ MLX5_CMD_OP_MANAGE_PAGES, "MANAGE_PAGES" },
		{ MLX5_CMD_OP_SET_HCA_CAP, "SET_HCA_CAP" },
		{ MLX5_CMD_OP_CREATE_EQ, "CREATE_EQ" },
		{ MLX5_CMD_OP_DESTROY_QP, "DESTROY_QP" },
		{ MLX5_CMD_OP_2ERR_QP, "2ERR_QP" },
		{ MLX5_CMD_OP_QUERY_QP, "QUERY_QP" },
		{ MLX5_CMD_OP_QUERY_CQ, "QUERY_CQ" },
		{ MLX5_CMD_OP_DESTROY_MKEY, "DESTROY_MKEY" },
		{ MLX5_CMD_OP_DESTROY_PSV, "DESTROY_PSV" },
	};
	struct mlx5dv_obj dv = {};
	struct mlx5dv_pd dvpd;
	struct mlx5dv_devx_obj *obj;
	struct dqp mine = {};
	unsigned int i, uid;
	void *qpc, *mkc;
	int ret;

	/* privileged commands, and object commands as general ones */
	for (i = 0; i < sizeof(priv) / sizeof(priv[0]); i++) {
		memset(in, 0, sizeof(in));
		DEVX_SET(general_obj_in_cmd_hdr, in, opcode, priv[i].op);
		/* the owner's numbers where the layouts keep them */
		if (priv[i].op == MLX5_CMD_OP_DESTROY_PSV)
			DEVX_SET(destroy_psv_in, in, psvn, o->dpsv);
		else
			DEVX_SET(destroy_qp_in, in, qpn, o->dqpn);
		errno = 0;
		ret = mlx5dv_devx_general_cmd(ctx, in, 64, out, sizeof(out));
		check(ret && errno == EINVAL,
		      "DEVX general command %s (0x%x): EINVAL (got %d, %s)",
		      priv[i].name, priv[i].op, ret, strerror(errno));
	}
	memset(in, 0, sizeof(in));
	DEVX_SET(query_hca_cap_in, in, opcode, MLX5_CMD_OP_QUERY_HCA_CAP);
	DEVX_SET(query_hca_cap_in, in, op_mod, 1);	/* current general caps */
	ret = mlx5dv_devx_general_cmd(ctx, in, DEVX_ST_SZ_BYTES(query_hca_cap_in),
				      cap_out, sizeof(cap_out));
	check(!ret, "DEVX general command QUERY_HCA_CAP is allowed (got %d, %s)",
	      ret, strerror(ret ? errno : 0));

	ret = dqp_create(ctx, &mine);
	if (ret) {
		check(0, "a DEVX QP of its own: step %d, %s", ret, strerror(errno));
		goto out;
	}
	dv.pd.in = mine.pd;
	dv.pd.out = &dvpd;
	if (mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD))
		fatal("mlx5dv_init_obj");

	/* its own QP object, queried with the owner's QPN in the command */
	memset(in, 0, sizeof(in));
	DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, in, qpn, o->dqpn);
	errno = 0;
	ret = mlx5dv_devx_obj_query(mine.qp, in, DEVX_ST_SZ_BYTES(query_qp_in),
				    out, sizeof(out));
	check(ret != 0, "QUERY_QP of the owner's QPN 0x%x through its own QP object: refused (%s)",
	      o->dqpn, strerror(errno));
	DEVX_SET(query_qp_in, in, qpn, mine.qpn);
	ret = mlx5dv_devx_obj_query(mine.qp, in, DEVX_ST_SZ_BYTES(query_qp_in),
				    out, sizeof(out));
	check(!ret, "QUERY_QP of its own QPN works (got %d)", ret);

	/*
	 * Objects over the owner's CQ or PD, whatever uid the header claims:
	 * the driver puts the context's own there, the device refuses.
	 */
	for (uid = 0; uid < 4; uid++) {
		memset(in, 0, sizeof(in));
		DEVX_SET(create_qp_in, in, opcode, MLX5_CMD_OP_CREATE_QP);
		DEVX_SET(create_qp_in, in, uid, uid);
		qpc = DEVX_ADDR_OF(create_qp_in, in, qpc);
		DEVX_SET(qpc, qpc, st, MLX5_QPC_ST_UD);
		DEVX_SET(qpc, qpc, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
		DEVX_SET(qpc, qpc, pd, dvpd.pdn);
		DEVX_SET(qpc, qpc, uar_page, mine.uar->page_id);
		DEVX_SET(qpc, qpc, log_rq_size, 6);
		DEVX_SET(qpc, qpc, log_rq_stride, 2);
		DEVX_SET(qpc, qpc, log_sq_size, 6);
		DEVX_SET(qpc, qpc, ts_format, 1);
		DEVX_SET(qpc, qpc, cqn_snd, o->dcqn);
		DEVX_SET(qpc, qpc, cqn_rcv, o->dcqn);
		DEVX_SET(create_qp_in, in, wq_umem_valid, 1);
		DEVX_SET(create_qp_in, in, wq_umem_id, mine.umem[2]->umem_id);
		DEVX_SET(qpc, qpc, dbr_umem_valid, 1);
		mlx5sp_set_dw(qpc, MLX5SP_QPC_DBR_UMEM_ID, mine.umem[3]->umem_id);
		errno = 0;
		obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
		check(!obj, "CREATE_QP on the owner's CQN 0x%x (header uid %u): refused (status 0x%x, %s)",
		      o->dcqn, uid, DEVX_GET(create_qp_out, out, status),
		      strerror(errno));
		if (obj)
			mlx5dv_devx_obj_destroy(obj);

		DEVX_SET(qpc, qpc, cqn_snd, mine.cqn);
		DEVX_SET(qpc, qpc, cqn_rcv, mine.cqn);
		DEVX_SET(qpc, qpc, pd, o->dpdn);
		errno = 0;
		obj = mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
		check(!obj, "CREATE_QP in the owner's PD 0x%x (header uid %u): refused (status 0x%x, %s)",
		      o->dpdn, uid, DEVX_GET(create_qp_out, out, status),
		      strerror(errno));
		if (obj)
			mlx5dv_devx_obj_destroy(obj);
	}

	/* an empty indirect MKEY (as mlx5dv_create_mkey's): own PD, owner's */
	for (i = 0; i < 2; i++) {
		memset(in, 0, sizeof(in));
		DEVX_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
		mkc = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
		DEVX_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
		DEVX_SET(mkc, mkc, free, 1);
		DEVX_SET(mkc, mkc, umr_en, 1);
		DEVX_SET(mkc, mkc, lw, 1);
		DEVX_SET(mkc, mkc, lr, 1);
		DEVX_SET(mkc, mkc, qpn, 0xffffff);
		DEVX_SET(mkc, mkc, translations_octword_size, 4);
		DEVX_SET(mkc, mkc, pd, i ? o->dpdn : dvpd.pdn);
		errno = 0;
		obj = mlx5dv_devx_obj_create(ctx, in,
					     DEVX_ST_SZ_BYTES(create_mkey_in),
					     out, sizeof(out));
		if (i)
			check(!obj, "CREATE_MKEY in the owner's PD 0x%x: refused (status 0x%x, %s)",
			      o->dpdn, DEVX_GET(create_mkey_out, out, status),
			      strerror(errno));
		else
			check(obj != NULL, "CREATE_MKEY in its own PD 0x%x works (%s)",
			      dvpd.pdn, obj ? "ok" : strerror(errno));
		if (obj)
			mlx5dv_devx_obj_destroy(obj);
	}
out:
	dqp_destroy(&mine);
}

/* WQEs with the owner's keys, on the other process's own QP pair. */
static void test_keys(struct side *s, const struct owner_nums *o)
{
	int st;

	st = write_status(s, s->mr->lkey, (uintptr_t)s->buf + 4096,
			  s->mr->rkey, 64);
	check(st == IBV_WC_SUCCESS, "a WRITE with its own keys succeeds (got %d)", st);

	st = write_status(s, o->lkey, (uintptr_t)s->buf + 4096, s->mr->rkey, 64);
	expect_wc(s, st, IBV_WC_LOC_PROT_ERR, "a WRITE from the owner's lkey");

	st = write_from(s, o->sig_lkey, 0, (uintptr_t)s->buf + 4096,
			s->mr->rkey, 64);
	expect_wc(s, st, IBV_WC_LOC_PROT_ERR,
		  "a WRITE from the owner's signature MKEY");

	st = write_status(s, s->mr->lkey, o->addr, o->rkey, 64);
	expect_wc(s, st, IBV_WC_REM_ACCESS_ERR, "a WRITE to the owner's rkey");

	st = write_status(s, s->mr->lkey, (uintptr_t)s->buf2, s->mr2->rkey, 64);
	expect_wc(s, st, IBV_WC_REM_ACCESS_ERR,
		  "a WRITE to an rkey of its own other PD");

	st = write_status(s, s->mr->lkey, (uintptr_t)s->buf + BUF_SIZE - 32,
			  s->mr->rkey, 64);
	expect_wc(s, st, IBV_WC_REM_ACCESS_ERR,
		  "a WRITE beyond the end of the responder's MR");

	st = write_status(s, s->mr->lkey, (uintptr_t)s->buf + 4096,
			  s->mr->rkey, 64);
	check(st == IBV_WC_SUCCESS, "a WRITE with its own keys still succeeds (got %d)", st);
}

/*
 * A UMR WQE aimed at the owner's signature MKEY: libmlx5 builds it from
 * a key object of this process's own whose number is the owner's (the
 * WQE names the key by number, as a hand-made one would). The device
 * refuses a UMR on a key of another PD: a local protection error, the
 * owner's key unchanged (the owner WRITEs through it after).
 */
static void test_umr(struct side *s, const struct owner_nums *o)
{
	struct mlx5dv_mkey_init_attr ma = {
		.pd = s->pd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
		.max_entries = 1,
	};
	struct mlx5dv_mkey *mine = mlx5dv_create_mkey(&ma);
	uint32_t lkey, rkey;
	int st;

	if (!mine)
		fatal("mlx5dv_create_mkey (other)");
	lkey = mine->lkey;
	rkey = mine->rkey;
	mine->lkey = o->sig_lkey;
	mine->rkey = o->sig_lkey;
	st = configure_status(s, mine);
	mine->lkey = lkey;
	mine->rkey = rkey;
	expect_wc(s, st, IBV_WC_LOC_PROT_ERR,
		  "a UMR (mlx5dv_wr_mkey_configure) aimed at the owner's signature MKEY");
	st = configure_status(s, mine);
	check(st == IBV_WC_SUCCESS,
	      "a UMR configuring its own MKEY succeeds (got %d)", st);
	if (mlx5dv_destroy_mkey(mine))
		fatal("mlx5dv_destroy_mkey (other)");
}

/*
 * Pinning @len bytes at @addr (an MR in @pd, or a DEVX umem of @ctx with
 * @umem) must fail with ENOMEM: over the limit.
 */
static void pin_refused(struct ibv_context *ctx, struct ibv_pd *pd,
			bool umem, void *addr, size_t len, const char *what)
{
	struct mlx5dv_devx_umem *u = NULL;
	struct ibv_mr *mr = NULL;

	errno = 0;
	if (umem)
		u = mlx5dv_devx_umem_reg(ctx, addr, len, IBV_ACCESS_LOCAL_WRITE);
	else
		mr = ibv_reg_mr(pd, addr, len, IBV_ACCESS_LOCAL_WRITE);
	check(!u && !mr && errno == ENOMEM, "%s: ENOMEM (got %s)", what,
	      u || mr ? "success" : strerror(errno));
	if (u)
		mlx5dv_devx_umem_dereg(u);
	if (mr)
		ibv_dereg_mr(mr);
}

/* RLIMIT_MEMLOCK against what an unprivileged process pins. */
static void test_memlock(const char *dev)
{
	struct rlimit rl = { .rlim_cur = 256 << 10, .rlim_max = 256 << 10 };
	struct ibv_context *ctx = open_ctx(dev);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct mlx5dv_devx_umem *umem;
	struct ibv_mr *mr;
	char *big;

	if (!pd || posix_memalign((void **)&big, 4096, 1 << 20))
		fatal("memlock setup");
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		fatal("setrlimit");
	pin_refused(ctx, pd, false, big, 1 << 20,
		    "ibv_reg_mr of 1 MiB with RLIMIT_MEMLOCK 256 KiB");
	mr = ibv_reg_mr(pd, big, 160 << 10, IBV_ACCESS_LOCAL_WRITE);
	check(mr != NULL, "ibv_reg_mr of 160 KiB under the limit works (%s)",
	      mr ? "ok" : strerror(errno));
	pin_refused(ctx, pd, false, big + (512 << 10), 160 << 10,
		    "a second 160 KiB (320 KiB pinned in all)");
	/* DEVX umems pin against the same limit as MRs */
	pin_refused(ctx, pd, true, big + (512 << 10), 160 << 10,
		    "a DEVX umem of 160 KiB next to a 160 KiB MR");
	if (mr)
		ibv_dereg_mr(mr);
	umem = mlx5dv_devx_umem_reg(ctx, big + (512 << 10), 160 << 10,
				    IBV_ACCESS_LOCAL_WRITE);
	check(umem != NULL,
	      "after deregistration the pinned pages are given back: a DEVX umem of 160 KiB works (%s)",
	      umem ? "ok" : strerror(errno));
	pin_refused(ctx, pd, false, big, 160 << 10,
		    "an MR of 160 KiB next to that umem");
	if (umem)
		mlx5dv_devx_umem_dereg(umem);
	mr = ibv_reg_mr(pd, big, 160 << 10, IBV_ACCESS_LOCAL_WRITE);
	check(mr != NULL,
	      "after the umem's deregistration an MR of 160 KiB works (%s)",
	      mr ? "ok" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(big);
}

static int other_process(const char *dev, int rfd)
{
	struct passwd *pw = getpwnam("nobody");
	struct owner_nums o;
	struct side s;

	if (!pw || setgroups(0, NULL) || setgid(pw->pw_gid) ||
	    setuid(pw->pw_uid))
		fatal("becoming nobody");
	if (read(rfd, &o, sizeof(o)) != sizeof(o))
		fatal("read owner numbers");

	/* before it has any object of its own, so no handle is its own */
	{
		struct ibv_context *ctx = open_ctx(dev);

		test_handles(ctx, &o);
		test_devx(ctx, &o);
		ibv_close_device(ctx);
	}
	side_open(&s, dev);
	test_keys(&s, &o);
	test_umr(&s, &o);
	side_close(&s);
	test_memlock(dev);
	printf("other process: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct mlx5dv_mkey_init_attr ma = {};
	struct mlx5dv_obj dv = {};
	struct mlx5dv_pd dvpd;
	struct mlx5dv_mkey *sig;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct owner_nums o = {};
	struct dqp dq = {};
	struct side s;
	int fds[2], status, i, st, bad = 0;
	uint32_t qout[DEVX_ST_SZ_DW(query_qp_out)];
	uint32_t qin[DEVX_ST_SZ_DW(query_qp_in)] = {};
	uint32_t pin[DEVX_ST_SZ_DW(create_psv_in)] = {};
	uint32_t pout[DEVX_ST_SZ_DW(create_psv_out)] = {};
	struct mlx5dv_devx_obj *psv;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: isolation DEV\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	/*
	 * The other process is forked before the owner maps anything of the
	 * device: fork() copying a verbs mmap takes ib_core's
	 * disassociation_lock under mmap_lock, the reverse of device removal,
	 * and a debug kernel that saw a removal earlier in its boot reports
	 * that ib_core order (Documentation/mlx5sp/locking.rst).
	 */
	if (pipe(fds))
		fatal("pipe");
	pid = fork();
	if (pid < 0)
		fatal("fork");
	if (!pid) {
		close(fds[1]);
		_exit(other_process(argv[1], fds[0]));
	}
	close(fds[0]);

	side_open(&s, argv[1]);
	memset(s.buf, PATTERN, BUF_SIZE);
	ma.pd = s.pd;
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE |
			  MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	ma.max_entries = 1;
	sig = mlx5dv_create_mkey(&ma);
	if (!sig)
		fatal("mlx5dv_create_mkey");
	st = configure_status(&s, sig);
	check(st == IBV_WC_SUCCESS,
	      "the owner configures its signature MKEY over its MR (got %d)", st);
	st = write_from(&s, sig->lkey, 0, (uintptr_t)s.buf + 4096, s.mr->rkey,
			64);
	check(st == IBV_WC_SUCCESS,
	      "the owner WRITEs from its signature MKEY (got %d)", st);
	i = dqp_create(s.ctx, &dq);
	if (i)
		fatal("owner's DEVX QP");
	dv.pd.in = dq.pd;
	dv.pd.out = &dvpd;
	if (mlx5dv_init_obj(&dv, MLX5DV_OBJ_PD))
		fatal("mlx5dv_init_obj");
	/* a PSV of its own, by number for the other to aim at */
	DEVX_SET(create_psv_in, pin, opcode, MLX5_CMD_OP_CREATE_PSV);
	DEVX_SET(create_psv_in, pin, num_psv, 1);
	DEVX_SET(create_psv_in, pin, pd, dvpd.pdn);
	psv = mlx5dv_devx_obj_create(s.ctx, pin, sizeof(pin), pout,
				     sizeof(pout));
	if (!psv)
		fatal("owner's DEVX PSV");
	o.dpsv = DEVX_GET(create_psv_out, pout, psv0_index);
	o.qp_handle = s.qp[0]->handle;
	o.cq_handle = s.cq->handle;
	o.pd_handle = s.pd->handle;
	o.mr_handle = s.mr->handle;
	o.lkey = s.mr->lkey;
	o.rkey = s.mr->rkey;
	o.addr = (uintptr_t)s.buf;
	o.sig_lkey = sig->lkey;
	o.dqpn = dq.qpn;
	o.dcqn = dq.cqn;
	o.dpdn = dvpd.pdn;
	printf("owner: QP handle %u, CQ handle %u, lkey 0x%x, rkey 0x%x, sig MKEY 0x%x, DEVX QPN 0x%x CQN 0x%x PD 0x%x PSV 0x%x\n",
	       o.qp_handle, o.cq_handle, o.lkey, o.rkey, o.sig_lkey, o.dqpn,
	       o.dcqn, o.dpdn, o.dpsv);

	if (write(fds[1], &o, sizeof(o)) != sizeof(o))
		fatal("write owner numbers");
	if (waitpid(pid, &status, 0) != pid)
		fatal("waitpid");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the other process ran its checks clean (status 0x%x)", status);

	/* the owner's objects are untouched and work */
	for (i = 0; i < BUF_SIZE; i++)
		bad += (unsigned char)s.buf[i] != PATTERN;
	check(!bad, "the owner's MR holds its bytes (%d changed)", bad);
	check(!ibv_query_qp(s.qp[0], &qa, IBV_QP_STATE, &qia) &&
	      qa.qp_state == IBV_QPS_RTS, "the owner's QP is in RTS");
	st = write_status(&s, s.mr->lkey, (uintptr_t)s.buf + 4096,
			  s.mr->rkey, 64);
	check(st == IBV_WC_SUCCESS, "the owner's QP passes data (got %d)", st);
	/* the other's UMR at it changed nothing: still over the owner's MR */
	memset(s.buf + BUF_SIZE / 2, 0, 64);
	st = write_from(&s, o.sig_lkey, 0, (uintptr_t)s.buf + BUF_SIZE / 2,
			s.mr->rkey, 64);
	bad = 0;
	for (i = 0; i < 64; i++)
		bad += (unsigned char)s.buf[BUF_SIZE / 2 + i] != PATTERN;
	check(st == IBV_WC_SUCCESS && !bad,
	      "the owner WRITEs from its signature MKEY after the other's UMR at it (got %d, %d bytes wrong)",
	      st, bad);
	DEVX_SET(query_qp_in, qin, opcode, MLX5_CMD_OP_QUERY_QP);
	DEVX_SET(query_qp_in, qin, qpn, dq.qpn);
	check(!mlx5dv_devx_obj_query(dq.qp, qin, sizeof(qin), qout, sizeof(qout)),
	      "the owner's DEVX QP answers its query");

	/* gone already if the other's DESTROY_PSV had reached firmware */
	check(!mlx5dv_devx_obj_destroy(psv),
	      "the owner's DEVX PSV 0x%x was still its own to destroy", o.dpsv);
	dqp_destroy(&dq);
	if (mlx5dv_destroy_mkey(sig))
		fatal("mlx5dv_destroy_mkey");
	side_close(&s);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
