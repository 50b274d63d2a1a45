// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * bad_input: what a device does with malformed input from user space, as
 * a ConnectX answers it.
 *
 * WQEs are written straight into the send queue through mlx5dv (the SQ
 * buffer, doorbell record and BlueFlame register of mlx5dv_init_obj) with
 * <infiniband/mlx5dv.h>'s segment layouts: bad opcode, ds of 0 and beyond
 * what was posted, a QPN of another QP, the lkey of another PD, an lkey
 * that does not exist, a length beyond the MR, an rkey range beyond the
 * responder's MR, and a doorbell record beyond the WQEs written. Each must
 * complete with the status a ConnectX gives and leave the QP in ERR; a
 * fresh QP pair must work afterwards.
 *
 * Bad verbs: ibv_reg_mr of unmapped memory, bad access flags, bad CQ and
 * QP sizes, illegal QP transitions and attribute masks, destroying a CQ a
 * QP uses, and bad handles and headers through raw write() commands on
 * the uverbs file.
 *
 *   bad_input DEV       exit 0: all passed; 1: a mismatch (printed)
 */

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "check.h"
#include "roce.h"

#define BUF_SIZE	65536
#define SMALL_MR	4096
#define TIMEOUT_MS	5000

static struct {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd, *pd2;
	char *buf, *buf2, *small;
	struct ibv_mr *mr, *mr2, *mr_small;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
} t;

/* Two RC QPs of one device connected to each other. */
struct pair {
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct mlx5dv_qp dv[2];
	unsigned int pi;		/* QP 0's next basic block */
};

static void fatal(const char *what)
{
	fprintf(stderr, "bad_input: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		fatal("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			t.ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!t.ctx)
		fatal(name);
	if (ibv_query_device(t.ctx, &t.attr))
		fatal("query");
	t.gid_index = roce_port_gid(t.ctx, &t.gid, &t.mtu);
	if (t.gid_index < 0)
		fatal("no GID");
	t.pd = ibv_alloc_pd(t.ctx);
	t.pd2 = ibv_alloc_pd(t.ctx);
	if (!t.pd || !t.pd2)
		fatal("ibv_alloc_pd");
	if (posix_memalign((void **)&t.buf, 4096, BUF_SIZE) ||
	    posix_memalign((void **)&t.buf2, 4096, BUF_SIZE) ||
	    posix_memalign((void **)&t.small, 4096, SMALL_MR))
		fatal("posix_memalign");
	t.mr = ibv_reg_mr(t.pd, t.buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	t.mr2 = ibv_reg_mr(t.pd2, t.buf2, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	t.mr_small = ibv_reg_mr(t.pd, t.small, SMALL_MR,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ);
	if (!t.mr || !t.mr2 || !t.mr_small)
		fatal("ibv_reg_mr");
}

static int modify(struct ibv_qp *qp, enum ibv_qp_state state, uint32_t dqpn)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	case IBV_QPS_RTR:
		a.path_mtu = t.mtu;
		a.dest_qp_num = dqpn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = t.gid;
		a.ah_attr.grh.sgid_index = t.gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	default:
		return ibv_modify_qp(qp, &a, IBV_QP_STATE);
	}
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return ibv_create_qp(pd, &qa);
}

static void make_pair(struct pair *p)
{
	struct mlx5dv_obj obj;
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 2; i++) {
		p->cq[i] = ibv_create_cq(t.ctx, 64, NULL, NULL, 0);
		if (!p->cq[i])
			fatal("ibv_create_cq");
		p->qp[i] = create_qp(t.pd, p->cq[i]);
		if (!p->qp[i])
			fatal("ibv_create_qp");
		memset(&obj, 0, sizeof(obj));
		obj.qp.in = p->qp[i];
		obj.qp.out = &p->dv[i];
		if (mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP))
			fatal("mlx5dv_init_obj");
	}
	for (i = 0; i < 2; i++) {
		errno = modify(p->qp[i], IBV_QPS_INIT, 0);
		if (!errno)
			errno = modify(p->qp[i], IBV_QPS_RTR,
				       p->qp[!i]->qp_num);
		if (!errno)
			errno = modify(p->qp[i], IBV_QPS_RTS, 0);
		if (errno)
			fatal("ibv_modify_qp");
	}
}

static void free_pair(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (ibv_destroy_qp(p->qp[i]))
			fatal("ibv_destroy_qp");
		if (ibv_destroy_cq(p->cq[i]))
			fatal("ibv_destroy_cq");
	}
}

/* Basic block @idx of QP 0's send queue. */
static void *sq_bb(struct pair *p, unsigned int idx)
{
	struct mlx5dv_qp *dv = &p->dv[0];

	return (char *)dv->sq.buf + (idx & (dv->sq.wqe_cnt - 1)) * dv->sq.stride;
}

/*
 * Hand QP 0's send queue up to basic block @pi to the device: the
 * doorbell record, then the first 8 bytes of @ctrl to the BlueFlame
 * register, as libmlx5 rings it.
 */
static void ring(struct pair *p, unsigned int pi, void *ctrl)
{
	struct mlx5dv_qp *dv = &p->dv[0];

	__sync_synchronize();
	dv->dbrec[MLX5_SND_DBR] = htobe32(pi & 0xffff);
	__sync_synchronize();
	__atomic_store_n((uint64_t *)dv->bf.reg, *(uint64_t *)ctrl,
			 __ATOMIC_RELEASE);
	__sync_synchronize();
}

struct wqe {
	uint8_t opcode;
	int ds;			/* <0: what the segments need */
	uint32_t qpn;		/* 0: QP 0's */
	int rdma;		/* a remote address segment */
	uint64_t raddr;
	uint32_t rkey;
	int data;		/* a data segment */
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

/* One WQE (one basic block) at QP 0's producer index; returns its ctrl. */
static void *write_wqe(struct pair *p, const struct wqe *w)
{
	struct mlx5_wqe_ctrl_seg *ctrl = sq_bb(p, p->pi);
	struct mlx5_wqe_raddr_seg *rseg;
	struct mlx5_wqe_data_seg *dseg;
	char *seg = (char *)(ctrl + 1);
	int ds = 1;

	memset(ctrl, 0, MLX5_SEND_WQE_BB);
	if (w->rdma) {
		rseg = (void *)seg;
		rseg->raddr = htobe64(w->raddr);
		rseg->rkey = htobe32(w->rkey);
		seg += sizeof(*rseg);
		ds++;
	}
	if (w->data) {
		dseg = (void *)seg;
		mlx5dv_set_data_seg(dseg, w->len, w->lkey, w->addr);
		ds++;
	}
	mlx5dv_set_ctrl_seg(ctrl, p->pi & 0xffff, w->opcode, 0,
			    w->qpn ?: p->qp[0]->qp_num,
			    MLX5_WQE_CTRL_CQ_UPDATE, w->ds < 0 ? ds : w->ds, 0,
			    0);
	p->pi++;
	return ctrl;
}

/* The next completion of @cq within the timeout; 0 if none came. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now_ms() + TIMEOUT_MS;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			fatal("ibv_poll_cq");
		if (n)
			return 1;
	} while (now_ms() < end);
	return 0;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static void expect_wc(struct ibv_cq *cq, enum ibv_wc_status want,
		      const char *name)
{
	struct ibv_wc wc;

	if (!wait_wc(cq, &wc)) {
		check(0, "%s: no completion in %d ms (want %s)", name,
		      TIMEOUT_MS, ibv_wc_status_str(want));
		return;
	}
	check(wc.status == want, "%s: completion %s (want %s)", name,
	      ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
}

static void expect_err_state(struct ibv_qp *qp, const char *name)
{
	double end = now_ms() + TIMEOUT_MS;
	enum ibv_qp_state s;

	do
		s = qp_state(qp);
	while (s != IBV_QPS_ERR && now_ms() < end);
	check(s == IBV_QPS_ERR, "%s: QP 0x%x state %d (want ERR)", name,
	      qp->qp_num, s);
}

/* One malformed WQE on a fresh pair: its completion, QP 0 in ERR. */
static void bad_wqe(const char *name, struct wqe *w,
		    enum ibv_wc_status want, int responder_err)
{
	struct pair p;
	void *ctrl;

	make_pair(&p);
	ctrl = write_wqe(&p, w);
	ring(&p, p.pi, ctrl);
	expect_wc(p.cq[0], want, name);
	expect_err_state(p.qp[0], name);
	if (responder_err)
		expect_err_state(p.qp[1], name);
	free_pair(&p);
}

/* A good WRITE through @mr's range, for the WQE tests. */
static struct wqe good_write(void)
{
	struct wqe w = {
		.opcode = MLX5_OPCODE_RDMA_WRITE,
		.ds = -1,
		.rdma = 1,
		.raddr = (uintptr_t)t.buf + BUF_SIZE / 2,
		.rkey = t.mr->rkey,
		.data = 1,
		.addr = (uintptr_t)t.buf,
		.len = 64,
		.lkey = t.mr->lkey,
	};

	return w;
}

static void test_wqes(void)
{
	struct wqe w;
	struct pair p;
	void *ctrl;

	w = good_write();
	w.opcode = 0x1f;	/* no such opcode */
	bad_wqe("bad opcode", &w, IBV_WC_LOC_QP_OP_ERR, 0);

	w = good_write();
	w.ds = 0;
	bad_wqe("ds 0", &w, IBV_WC_LOC_QP_OP_ERR, 0);

	/* 63 units = 16 basic blocks, one posted */
	w = good_write();
	w.ds = 63;
	bad_wqe("ds beyond the posted WQE", &w, IBV_WC_LOC_QP_OP_ERR, 0);

	w = good_write();
	w.qpn = 0xfffffe;
	bad_wqe("qpn of another QP", &w, IBV_WC_LOC_QP_OP_ERR, 0);

	w = good_write();
	w.lkey = t.mr2->lkey;
	w.addr = (uintptr_t)t.buf2;
	bad_wqe("lkey of another PD", &w, IBV_WC_LOC_PROT_ERR, 0);

	w = good_write();
	w.lkey = t.mr->lkey ^ 0x00ffff00;
	bad_wqe("lkey that does not exist", &w, IBV_WC_LOC_PROT_ERR, 0);

	w = good_write();
	w.lkey = t.mr_small->lkey;
	w.addr = (uintptr_t)t.small + 64;
	w.len = SMALL_MR;
	bad_wqe("length beyond the MR", &w, IBV_WC_LOC_PROT_ERR, 0);

	w = good_write();
	w.raddr = (uintptr_t)t.small + SMALL_MR - 32;
	w.rkey = t.mr_small->rkey;
	bad_wqe("rkey range beyond the responder's MR", &w,
		IBV_WC_REM_ACCESS_ERR, 1);

	w = good_write();
	w.opcode = MLX5_OPCODE_RDMA_READ;
	w.raddr = (uintptr_t)t.small + SMALL_MR - 32;
	w.rkey = t.mr_small->rkey;
	bad_wqe("READ rkey range beyond the responder's MR", &w,
		IBV_WC_REM_ACCESS_ERR, 1);

	/* one good WQE, then a record two basic blocks beyond it */
	make_pair(&p);
	memset(sq_bb(&p, 1), 0, 2 * MLX5_SEND_WQE_BB);	/* never written */
	w = good_write();
	ctrl = write_wqe(&p, &w);
	ring(&p, p.pi + 2, ctrl);
	expect_wc(p.cq[0], IBV_WC_SUCCESS, "doorbell beyond: the WQE posted");
	expect_wc(p.cq[0], IBV_WC_LOC_QP_OP_ERR,
		  "doorbell beyond: the first WQE never written");
	expect_wc(p.cq[0], IBV_WC_WR_FLUSH_ERR,
		  "doorbell beyond: the second, flushed");
	expect_err_state(p.qp[0], "doorbell beyond");
	free_pair(&p);
}

/* A fresh pair moves data with the ordinary verbs. */
static void test_fresh_pair(const char *when)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t.buf,
		.length = 256,
		.lkey = t.mr->lkey,
	};
	struct ibv_sge rsge = {
		.addr = (uintptr_t)t.buf + 4096,
		.length = 256,
		.lkey = t.mr->lkey,
	};
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	struct pair p;
	int ok;

	make_pair(&p);
	memset(t.buf, 0xa5, 256);
	memset(t.buf + 8192, 0, 256);
	wr.wr.rdma.remote_addr = (uintptr_t)t.buf + 8192;
	wr.wr.rdma.rkey = t.mr->rkey;
	ok = !ibv_post_send(p.qp[0], &wr, &bad) && wait_wc(p.cq[0], &wc) &&
	     wc.status == IBV_WC_SUCCESS &&
	     !memcmp(t.buf, t.buf + 8192, 256);
	check(ok, "%s: a fresh QP pair does an RDMA WRITE", when);

	memset(t.buf + 4096, 0, 256);
	wr.opcode = IBV_WR_SEND;
	ok = !ibv_post_recv(p.qp[1], &rwr, &rbad) &&
	     !ibv_post_send(p.qp[0], &wr, &bad) &&
	     wait_wc(p.cq[0], &wc) && wc.status == IBV_WC_SUCCESS &&
	     wait_wc(p.cq[1], &wc) && wc.status == IBV_WC_SUCCESS &&
	     wc.byte_len == 256 && !memcmp(t.buf, t.buf + 4096, 256);
	check(ok, "%s: a fresh QP pair does a SEND", when);
	free_pair(&p);
}

static void expect_errno(int ok_result, int err, int want, const char *fmt,
			 ...)
{
	char name[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (ok_result) {
		check(0, "%s: succeeded (want %s)", name, strerror(want));
		return;
	}
	check(err == want, "%s: %s (want %s)", name, strerror(err),
	      strerror(want));
}

static void test_reg_mr(void)
{
	struct ibv_mr *mr;
	void *p;

	p = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fatal("mmap");
	munmap(p, BUF_SIZE);
	errno = 0;
	mr = ibv_reg_mr(t.pd, p, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!!mr, errno, EFAULT, "ibv_reg_mr of unmapped memory");
	if (mr)
		ibv_dereg_mr(mr);

	/* remote write without local write */
	errno = 0;
	mr = ibv_reg_mr(t.pd, t.buf, BUF_SIZE, IBV_ACCESS_REMOTE_WRITE);
	expect_errno(!!mr, errno, EINVAL,
		     "ibv_reg_mr with remote but no local write");
	if (mr)
		ibv_dereg_mr(mr);
}

static void test_sizes(void)
{
	struct ibv_qp_init_attr qa;
	struct ibv_cq *cq, *cq2;
	struct ibv_qp *qp;
	int i;

	errno = 0;
	cq = ibv_create_cq(t.ctx, 0, NULL, NULL, 0);
	expect_errno(!!cq, errno, EINVAL, "ibv_create_cq of 0 entries");
	if (cq)
		ibv_destroy_cq(cq);

	cq = ibv_create_cq(t.ctx, 16, NULL, NULL, 0);
	if (!cq)
		fatal("ibv_create_cq");
	for (i = 0; i < 5; i++) {
		static const char *const what[] = {
			"max_send_wr", "max_recv_wr", "max_send_sge",
			"max_recv_sge", "max_inline_data",
		};

		memset(&qa, 0, sizeof(qa));
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 16;
		qa.cap.max_recv_wr = 16;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		switch (i) {
		case 0:
			qa.cap.max_send_wr = t.attr.max_qp_wr + 1;
			break;
		case 1:
			qa.cap.max_recv_wr = t.attr.max_qp_wr + 1;
			break;
		case 2:
			/*
			 * libmlx5 checks the send list against the WQE size,
			 * not max_sge (which the receive side may limit).
			 */
			qa.cap.max_send_sge = 1024;
			break;
		case 3:
			/*
			 * max_sge is the smaller of the send and receive
			 * limits (30 and 32, as on mlx5_ib): past both.
			 */
			qa.cap.max_recv_sge = 1024;
			break;
		default:
			qa.cap.max_inline_data = 1 << 20;
			break;
		}
		errno = 0;
		qp = ibv_create_qp(t.pd, &qa);
		expect_errno(!!qp, errno, EINVAL, "ibv_create_qp with %s too large",
			     what[i]);
		if (qp)
			ibv_destroy_qp(qp);
	}

	/* a CQ a QP uses stays */
	qp = create_qp(t.pd, cq);
	if (!qp)
		fatal("ibv_create_qp");
	errno = ibv_destroy_cq(cq);
	expect_errno(!errno, errno, EBUSY, "ibv_destroy_cq of a CQ a QP uses");
	if (ibv_destroy_qp(qp))
		fatal("ibv_destroy_qp");
	check(!ibv_destroy_cq(cq), "ibv_destroy_cq once the QP is gone");

	/* the same CQ twice for a second QP is fine; a third CQ is unrelated */
	cq2 = ibv_create_cq(t.ctx, 16, NULL, NULL, 0);
	check(!!cq2, "ibv_create_cq after the refusals");
	if (cq2)
		ibv_destroy_cq(cq2);
}

/* A user RC QP of @cap on @cq: created (then destroyed) or not. */
static int try_qp(struct ibv_cq *cq, const struct ibv_qp_cap *cap,
		  struct ibv_qp_cap *got)
{
	struct ibv_qp_init_attr qa;
	struct ibv_qp *qp;

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap = *cap;
	errno = 0;
	qp = ibv_create_qp(t.pd, &qa);
	if (!qp)
		return errno ? errno : EIO;
	if (got)
		*got = qa.cap;
	ibv_destroy_qp(qp);
	return 0;
}

/*
 * Every user object at each limit ibv_query_device reports is created;
 * one past it is refused (test_sizes covers the QP's lists past them).
 */
static void test_limits(void)
{
	struct ibv_srq_init_attr sa;
	struct ibv_qp_cap cap, got;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	int err, i;

	errno = 0;
	cq = ibv_create_cq(t.ctx, t.attr.max_cqe, NULL, NULL, 0);
	check(!!cq && cq->cqe >= t.attr.max_cqe,
	      "ibv_create_cq of max_cqe (%d) entries: %s", t.attr.max_cqe,
	      cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	cq = ibv_create_cq(t.ctx, t.attr.max_cqe + 1, NULL, NULL, 0);
	expect_errno(!!cq, errno, EINVAL, "ibv_create_cq of max_cqe + 1 entries");
	if (cq)
		ibv_destroy_cq(cq);

	cq = ibv_create_cq(t.ctx, 16, NULL, NULL, 0);
	if (!cq)
		fatal("ibv_create_cq");
	memset(&cap, 0, sizeof(cap));
	cap.max_send_wr = t.attr.max_qp_wr;
	cap.max_recv_wr = t.attr.max_qp_wr;
	cap.max_send_sge = t.attr.max_sge;
	cap.max_recv_sge = t.attr.max_sge;
	err = try_qp(cq, &cap, &got);
	check(!err && got.max_send_wr >= cap.max_send_wr &&
	      got.max_recv_wr >= cap.max_recv_wr &&
	      got.max_send_sge >= cap.max_send_sge &&
	      got.max_recv_sge >= cap.max_recv_sge,
	      "ibv_create_qp of max_qp_wr (%d) WRs and max_sge (%d) SGEs each way: %s",
	      t.attr.max_qp_wr, t.attr.max_sge, err ? strerror(err) : "created");
	/* one past max_qp_wr each way (test_sizes: the SGE lists past theirs) */
	for (i = 0; i < 2; i++) {
		memset(&cap, 0, sizeof(cap));
		cap.max_send_wr = i ? 1 : t.attr.max_qp_wr + 1;
		cap.max_recv_wr = i ? t.attr.max_qp_wr + 1 : 1;
		cap.max_send_sge = 1;
		cap.max_recv_sge = 1;
		err = try_qp(cq, &cap, NULL);
		expect_errno(!err, err, EINVAL, "ibv_create_qp of max_qp_wr + 1 %s WRs",
			     i ? "receive" : "send");
	}
	ibv_destroy_cq(cq);

	for (i = 0; i < 3; i++) {
		static const char *const what[] = {
			"max_srq_wr and max_srq_sge", "max_srq_wr + 1 WRs",
			"max_srq_sge + 1 SGEs",
		};

		memset(&sa, 0, sizeof(sa));
		sa.attr.max_wr = i == 1 ? t.attr.max_srq_wr + 1 : t.attr.max_srq_wr;
		sa.attr.max_sge = i == 2 ? t.attr.max_srq_sge + 1 : t.attr.max_srq_sge;
		if (i)
			sa.attr.max_wr = i == 1 ? sa.attr.max_wr : 16;
		errno = 0;
		srq = ibv_create_srq(t.pd, &sa);
		if (!i)
			check(!!srq && sa.attr.max_wr >= (uint32_t)t.attr.max_srq_wr &&
			      sa.attr.max_sge >= (uint32_t)t.attr.max_srq_sge,
			      "ibv_create_srq of %s (%d, %d): %s", what[i],
			      t.attr.max_srq_wr, t.attr.max_srq_sge,
			      srq ? "created" : strerror(errno));
		else
			expect_errno(!!srq, errno, EINVAL, "ibv_create_srq of %s",
				     what[i]);
		if (srq)
			ibv_destroy_srq(srq);
	}
}

static void test_modify(void)
{
	struct ibv_qp_attr a;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int err;

	cq = ibv_create_cq(t.ctx, 16, NULL, NULL, 0);
	qp = cq ? create_qp(t.pd, cq) : NULL;
	if (!qp)
		fatal("create");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	expect_errno(!err, err, EINVAL, "modify_qp RESET->RTR");

	a.qp_state = IBV_QPS_RTS;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	expect_errno(!err, err, EINVAL, "modify_qp RESET->RTS");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_ACCESS_FLAGS);
	expect_errno(!err, err, EINVAL, "modify_qp RESET->INIT without port");

	a.port_num = 1;
	a.timeout = 14;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS | IBV_QP_TIMEOUT);
	expect_errno(!err, err, EINVAL,
		     "modify_qp RESET->INIT with a timeout (not allowed)");

	a.port_num = 2;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	expect_errno(!err, err, EINVAL, "modify_qp RESET->INIT on port 2");

	check(!modify(qp, IBV_QPS_INIT, 0), "modify_qp RESET->INIT");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.sq_psn = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	expect_errno(!err, err, EINVAL,
		     "modify_qp INIT->RTR with only an SQ PSN");

	a.qp_state = IBV_QPS_RTS;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	expect_errno(!err, err, EINVAL, "modify_qp INIT->RTS");

	a.qp_state = IBV_QPS_SQD;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	expect_errno(!err, err, EINVAL, "modify_qp INIT->SQD");

	a.qp_state = 42;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	expect_errno(!err, err, EINVAL, "modify_qp to state 42");

	check(qp_state(qp) == IBV_QPS_INIT, "the QP is still in INIT");
	check(!modify(qp, IBV_QPS_ERR, 0), "modify_qp INIT->ERR");
	check(!modify(qp, IBV_QPS_RESET, 0), "modify_qp ERR->RESET");

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

/* A legacy write() command: header, command, driver data. */
static int raw_write(uint32_t cmd, void *req, size_t len, int words_off)
{
	struct ib_uverbs_cmd_hdr *hdr = req;
	ssize_t n;

	hdr->command = cmd;
	hdr->in_words = len / 4 + words_off;
	n = write(t.ctx->cmd_fd, req, len);
	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? errno : EIO;
}

static void test_raw(void)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_cq cmd;
	} dcq;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp cmd;
	} dqp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dealloc_pd cmd;
	} dpd;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_cq cmd;
		struct mlx5_ib_create_cq drv;
	} ccq;
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct mlx5_ib_create_cq_resp drv;
	} ccq_resp;
	struct ib_uverbs_destroy_cq_resp dcq_resp;
	struct ib_uverbs_destroy_qp_resp dqp_resp;
	void *cqbuf;
	int err;

	memset(&dcq, 0, sizeof(dcq));
	dcq.hdr.out_words = sizeof(dcq_resp) / 4;
	dcq.cmd.response = (uintptr_t)&dcq_resp;
	dcq.cmd.cq_handle = 0x7fff0;
	err = raw_write(IB_USER_VERBS_CMD_DESTROY_CQ, &dcq, sizeof(dcq), 0);
	expect_errno(!err, err, ENOENT, "raw DESTROY_CQ of a bad handle");

	err = raw_write(IB_USER_VERBS_CMD_DESTROY_CQ, &dcq, sizeof(dcq), 1);
	expect_errno(!err, err, EINVAL, "raw DESTROY_CQ with a bad length");

	memset(&dqp, 0, sizeof(dqp));
	dqp.hdr.out_words = sizeof(dqp_resp) / 4;
	dqp.cmd.response = (uintptr_t)&dqp_resp;
	dqp.cmd.qp_handle = 0x7fff1;
	err = raw_write(IB_USER_VERBS_CMD_DESTROY_QP, &dqp, sizeof(dqp), 0);
	expect_errno(!err, err, ENOENT, "raw DESTROY_QP of a bad handle");

	memset(&dpd, 0, sizeof(dpd));
	dpd.cmd.pd_handle = 0x7fff2;
	err = raw_write(IB_USER_VERBS_CMD_DEALLOC_PD, &dpd, sizeof(dpd), 0);
	expect_errno(!err, err, ENOENT, "raw DEALLOC_PD of a bad handle");

	/* CREATE_CQ with mlx5's driver data, one field wrong at a time */
	if (posix_memalign(&cqbuf, 4096, 64 * 64))
		fatal("posix_memalign");
	memset(&ccq, 0, sizeof(ccq));
	ccq.hdr.out_words = sizeof(ccq_resp) / 4;
	ccq.cmd.response = (uintptr_t)&ccq_resp;
	ccq.cmd.comp_channel = -1;
	ccq.drv.buf_addr = (uintptr_t)cqbuf;
	ccq.drv.db_addr = (uintptr_t)cqbuf + 63 * 64;
	ccq.drv.cqe_size = 64;

	ccq.cmd.cqe = 1 << 30;
	err = raw_write(IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq), 0);
	expect_errno(!err, err, EINVAL, "raw CREATE_CQ of 2^30 entries");

	ccq.cmd.cqe = t.attr.max_cqe + 1;
	err = raw_write(IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq), 0);
	expect_errno(!err, err, EINVAL, "raw CREATE_CQ of max_cqe + 1 entries");

	ccq.cmd.cqe = 31;
	ccq.drv.cqe_size = 100;
	err = raw_write(IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq), 0);
	expect_errno(!err, err, EINVAL, "raw CREATE_CQ with a CQE size of 100");

	ccq.drv.cqe_size = 64;
	ccq.drv.reserved1 = 1;
	err = raw_write(IB_USER_VERBS_CMD_CREATE_CQ, &ccq, sizeof(ccq), 0);
	expect_errno(!err, err, EINVAL, "raw CREATE_CQ with a reserved field set");
	free(cqbuf);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bad_input DEV\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_dev(argv[1]);

	test_fresh_pair("before");
	test_wqes();
	test_fresh_pair("after the bad WQEs");
	test_reg_mr();
	test_sizes();
	test_limits();
	test_modify();
	test_raw();
	test_fresh_pair("after the bad verbs");

	ibv_dereg_mr(t.mr);
	ibv_dereg_mr(t.mr2);
	ibv_dereg_mr(t.mr_small);
	ibv_dealloc_pd(t.pd);
	ibv_dealloc_pd(t.pd2);
	if (ibv_close_device(t.ctx))
		fatal("ibv_close_device");
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
