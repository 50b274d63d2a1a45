// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fuzz_verbs: a seeded, reproducible uverbs/DEVX fuzzer for one device.
 *
 * Every process keeps a few contexts on DEV and what lives in them (PDs,
 * CQs, QPs, SRQs, MRs, MWs, AHs, completion and DEVX event channels,
 * DEVX objects, umems and UARs), and makes random calls on them: most are
 * valid-ish so they reach deep (create, modify, query and destroy in any
 * order with random attributes; DEVX commands laid out with the kernel's
 * mlx5_ifc.h and then mutated), a share are not (handles of freed objects,
 * object ids and umems of other contexts and processes, lying lengths,
 * MKEYs over freed or foreign memory, raw write() and ioctl() commands on
 * the uverbs file with random headers and attributes, random WQEs posted
 * straight into user send queues with the doorbell rung). QPs are also
 * created by mlx5dv_create_qp() with send ops and posted to through
 * ibv_wr_*() and mlx5dv_wr_*(): UMRs configuring MKEYs of
 * mlx5dv_create_mkey() (layouts over live and freed keys, signature
 * blocks), raw WQEs, and cancels of posted sends in SQD. UAR pages take
 * stores and loads of every size and kind at any offset.
 *
 * Call I of process P draws everything from a generator seeded by (SEED,
 * P, I) alone, so a run is reproduced by its seed: --procs 1 --proc P
 * replays process P's calls in order. Each call is noted before it is
 * made (in memory shared with the parent, and with --journal in
 * DIR/journal.P); the parent watches the kernel log (/dev/kmsg) and, when
 * a report (WARNING, BUG, KASAN, lockdep, Oops...) appears or a process
 * dies or hangs, prints the seed with the call each process was in and
 * writes DIR/replay.sh, the command that replays it. Journal lines carry
 * a stamp, the order the calls began in over all processes: --replay DIR
 * makes all the calls of DIR's journals in one process in that order,
 * each with the state of its own process (replay.sh's second command).
 *
 * When more than one runs, the last one runs as nobody (--unpriv): it
 * opens the device as nobody, which rdma-core's udev rules allow (0666),
 * as uverbs refuses write() commands on a file opened with other
 * credentials.
 *
 *   fuzz_verbs DEV [--seed N] [--calls N] [--procs N] [--proc P]
 *                  [--unpriv] [--journal DIR] [--verbose] [--connect W]
 *   fuzz_verbs DEV --replay DIR [--seed N] [--procs N] [--connect W]
 *   fuzz_verbs DEV --regress    replays of what earlier runs found
 *   fuzz_verbs DEV --ctx-leak N ib_core's GET_CONTEXT leak, replayed
 * Ends with "fuzz: N calls, M distinct methods (K succeeded), seed S".
 * Exit 0: no kernel report, every process finished; 1: otherwise.
 */

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __x86_64__
#include <emmintrin.h>
#endif

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "prm.h"

#define NCTX		2	/* contexts per process */
#ifndef __aligned
#define __aligned(n)	__attribute__((aligned(n)))
#endif
#define NOBJ		6	/* slots of each kind per context */
#define NIDS		64	/* ids seen, shared by all processes */
#define BUFSZ		16384
/*
 * Responses: room for any length a command can claim (out_words or an
 * attribute's length, 16 bits of words), then a page nothing may touch, so
 * the kernel copying to a lying length faults instead of writing over the
 * fuzzer's own memory.
 */
#define OUTSZ		(1 << 20)
#define CALL_TIMEOUT	120	/* seconds a call may take under TCG */
#define MAXPROCS	16
#define PROGRESS_TICKS	3000	/* 100 ms ticks of the parent: 5 minutes */

/* ---- the generator: xorshift64*, seeded per call ---- */

static uint64_t rs;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static int chance(unsigned int n)	/* true one time in n */
{
	return rn(n) == 0;
}

static void seed_call(uint64_t seed, unsigned int proc, uint64_t call)
{
	/* splitmix64 of the three, never zero */
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + ((uint64_t)proc << 48) + call;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	rs = (z ^ (z >> 31)) | 1;
}

/* ---- what the parent sees of each process ---- */

struct method {
	const char *name;
	void (*fn)(void);
	unsigned int weight;
};

struct shared {
	uint32_t ids[NIDS];		/* object ids of all contexts */
	uint64_t calls[MAXPROCS];	/* calls made */
	uint64_t cur[MAXPROCS];		/* the call being made */
	char what[MAXPROCS][128];	/* its method and arguments */
	uint64_t tried[64], ok[64];	/* per method */
	int done[MAXPROCS];
	uint64_t stamp;			/* calls begun, all processes */
	uint64_t curstamp[MAXPROCS];	/* the stamp of the call being made */
};

static struct shared *sh;
static unsigned int me;
static int jfd = -1, verbose, nprocs = 1;
static const struct method *cur_m;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	char *w = sh->what[me];
	size_t n = strlen(w);
	va_list ap;

	if (n >= sizeof(sh->what[0]) - 2)
		return;
	w[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(w + n, sizeof(sh->what[0]) - n, fmt, ap);
	va_end(ap);
}

static void see_id(uint32_t id)
{
	if (id && nprocs > 1)
		sh->ids[rn(NIDS)] = id;
	else if (id)
		sh->ids[rn(NIDS / 2)] = id;
}

/* ---- per-context state ---- */

struct qpslot {
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;
	int dvok, raw;
	unsigned int pi;
	/* created by m_create_qpx(): ibv_wr_*() and mlx5dv_wr_*() */
	struct ibv_qp_ex *qpx;
	struct mlx5dv_qp_ex *dvx;
	uint64_t ops, dvops;	/* the send ops it was created with */
	uint64_t wr_id;		/* the last posted, for cancels */
	unsigned int max_sge, max_inline;
};

struct mrslot {
	struct ibv_mr *mr;
	void *buf;
	size_t len;
};

struct umslot {
	struct mlx5dv_devx_umem *um;
	void *buf;
	size_t len;
};

struct dobj {
	struct mlx5dv_devx_obj *o;
	uint16_t type;		/* creating opcode */
	uint32_t id;
};

struct ctx {
	struct ibv_context *c;
	struct ibv_pd *pd[NOBJ];
	struct ibv_cq *cq[NOBJ];
	struct qpslot qp[NOBJ];
	struct ibv_srq *srq[NOBJ];
	struct mrslot mr[NOBJ];
	struct ibv_mw *mw[NOBJ];
	struct ibv_ah *ah[NOBJ];
	struct ibv_comp_channel *ch[NOBJ];
	struct dobj dobj[NOBJ];
	struct umslot um[NOBJ];
	struct mlx5dv_devx_uar *uar[NOBJ];
	struct mlx5dv_devx_event_channel *ev[NOBJ];
	struct mlx5dv_devx_cmd_comp *comp[NOBJ];
	struct mlx5dv_mkey *mkey[NOBJ];	/* mlx5dv_create_mkey() */
	uint32_t mkey_flags[NOBJ];
	uint32_t freed_umem, freed_mkey, freed_dvmkey;
};

/*
 * Per process; --replay keeps one set per replayed process and points
 * these at it before each call.
 */
static struct ctx allctx[MAXPROCS][NCTX];
static uint32_t allfreed[MAXPROCS][8];
static struct ctx *ctxs = allctx[0];
static struct ctx *C;		/* this call's context */
static struct ibv_device *dev;
static uint8_t *scratch;	/* BUFSZ, for command buffers */
static uint8_t *outbuf;		/* BUFSZ, for responses */
static uint32_t *freed_lkeys = allfreed[0];

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SLOT(arr)	((int)rn(NOBJ))
#define PICK(arr)	(arr)[SLOT(arr)]

static int free_slot_idx(void **p, size_t stride)
{
	int i, s = rn(NOBJ);

	for (i = 0; i < NOBJ; i++) {
		int k = (s + i) % NOBJ;

		if (!*(void **)((char *)p + k * stride))
			return k;
	}
	return -1;
}

#define FREE_SLOT(arr)	free_slot_idx((void **)&(arr)[0], sizeof((arr)[0]))

/* A random value that may matter: small, edge, or an id someone has. */
static uint32_t val32(void)
{
	switch (rn(8)) {
	case 0:
		return 0;
	case 1:
		return rn(16);
	case 2:
		return 0xffffffffu >> rn(32);
	case 3:
		return 1u << rn(32);
	case 4:
	case 5:
		return sh->ids[rn(NIDS)];
	default:
		return rnd();
	}
}

static struct ibv_pd *any_pd(void)
{
	struct ibv_pd *pd = PICK(C->pd);

	return pd ?: C->pd[0];
}

static struct ibv_cq *any_cq(void)
{
	return PICK(C->cq);
}

static uint32_t pdn_of(struct ibv_pd *pd)
{
	struct mlx5dv_pd dpd;
	struct mlx5dv_obj o = { .pd = { .in = pd, .out = &dpd } };

	if (!pd || mlx5dv_init_obj(&o, MLX5DV_OBJ_PD))
		return val32();
	return dpd.pdn;
}

static uint32_t cqn_of(struct ibv_cq *cq)
{
	struct mlx5dv_cq dcq;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &dcq } };

	if (!cq || mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ))
		return val32();
	return dcq.cqn;
}

static uint32_t umem_id(void)
{
	struct umslot *u = &PICK(C->um);

	if (chance(8))
		return C->freed_umem;
	if (chance(8))
		return val32();
	return u->um ? u->um->umem_id : val32();
}

static uint32_t uar_page(void)
{
	struct mlx5dv_devx_uar *u = PICK(C->uar);

	return u && !chance(8) ? u->page_id : val32();
}

/* ---- methods: verbs ---- */

static int ok_;		/* the call succeeded */
#define OK(x)	(ok_ = !!(x))

static void m_query(void)
{
	struct ibv_device_attr_ex a;
	struct ibv_port_attr pa;
	struct mlx5dv_context dv = { .comp_mask = ~0ull };
	union ibv_gid gid;

	switch (rn(4)) {
	case 0:
		note("query_device_ex");
		OK(!ibv_query_device_ex(C->c, NULL, &a));
		break;
	case 1:
		note("query_port");
		OK(!ibv_query_port(C->c, rn(3), &pa));
		break;
	case 2:
		note("query_gid");
		OK(!ibv_query_gid(C->c, rn(3), rn(4) == 0 ? rnd() : rn(8), &gid));
		break;
	default:
		note("mlx5dv_query_device");
		OK(!mlx5dv_query_device(C->c, &dv));
	}
}

static int m_alloc_pd_(void)
{
	int i = FREE_SLOT(C->pd);

	if (i < 0)
		return 0;
	C->pd[i] = ibv_alloc_pd(C->c);
	if (C->pd[i])
		see_id(pdn_of(C->pd[i]));
	return C->pd[i] != NULL;
}

static void m_alloc_pd(void)
{
	OK(m_alloc_pd_());
}

static void m_dealloc_pd(void)
{
	int i = SLOT(C->pd);

	if (!C->pd[i] || i == 0)	/* slot 0 stays, for the rest */
		return;
	if (!OK(!ibv_dealloc_pd(C->pd[i])) && errno == EBUSY)
		return;
	C->pd[i] = NULL;
}

static void m_create_cq(void)
{
	int i = FREE_SLOT(C->cq), cqe = chance(4) ? rnd() % 70000 : rn(300);
	struct ibv_comp_channel *ch = chance(2) ? PICK(C->ch) : NULL;

	if (i < 0)
		return;
	note("cqe %d ch %p", cqe, (void *)ch);
	C->cq[i] = ibv_create_cq(C->c, cqe, NULL, ch, rn(4));
	if (OK(C->cq[i]))
		see_id(cqn_of(C->cq[i]));
}

static void m_cq_ops(void)
{
	struct ibv_cq *cq = any_cq();
	struct ibv_wc wc[8];

	if (!cq)
		return;
	switch (rn(3)) {
	case 0:
		note("poll");
		OK(ibv_poll_cq(cq, 1 + rn(8), wc) >= 0);
		break;
	case 1:
		note("req_notify");
		OK(!ibv_req_notify_cq(cq, rn(2)));
		break;
	default:
		note("resize");
		OK(!ibv_resize_cq(cq, rn(400)));
	}
}

static void m_destroy_cq(void)
{
	int i = SLOT(C->cq);

	if (!C->cq[i])
		return;
	if (!OK(!ibv_destroy_cq(C->cq[i])) && errno == EBUSY)
		return;
	C->cq[i] = NULL;
}

/* A QP just created into slot @q: its number seen, its mlx5dv view. */
static void qp_made(struct qpslot *q)
{
	struct mlx5dv_obj o;

	see_id(q->qp->qp_num);
	memset(&o, 0, sizeof(o));
	o.qp.in = q->qp;
	o.qp.out = &q->dv;
	q->dvok = !mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) && q->dv.sq.wqe_cnt;
	q->raw = 0;
	q->pi = 0;
}

static void m_create_qp(void)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET,
		IBV_QPT_XRC_SEND, IBV_QPT_DRIVER,
	};
	int i = FREE_SLOT(C->qp);
	struct ibv_qp_init_attr a = {
		.send_cq = any_cq(),
		.recv_cq = any_cq(),
		.srq = chance(4) ? PICK(C->srq) : NULL,
		.qp_type = chance(6) ? types[rn(6)] : types[rn(3)],
		.sq_sig_all = rn(2),
		.cap = {
			.max_send_wr = chance(8) ? rnd() % 100000 : rn(80),
			.max_recv_wr = chance(8) ? rnd() % 100000 : rn(80),
			.max_send_sge = rn(chance(8) ? 64 : 4),
			.max_recv_sge = rn(chance(8) ? 64 : 4),
			.max_inline_data = chance(4) ? rn(1024) : 0,
		},
	};
	struct qpslot *q;

	if (i < 0)
		return;
	q = &C->qp[i];
	/* libibverbs takes the CQs as given */
	if (!a.send_cq || !a.recv_cq)
		return;
	note("type %d wr %u/%u sge %u/%u", a.qp_type, a.cap.max_send_wr,
	     a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge);
	q->qpx = NULL;
	q->dvx = NULL;
	q->ops = 0;
	q->dvops = 0;
	q->qp = ibv_create_qp(any_pd(), &a);
	if (!OK(q->qp))
		return;
	qp_made(q);
}

static struct qpslot *any_qp(void)
{
	struct qpslot *q = &PICK(C->qp);

	return q->qp ? q : NULL;
}

/*
 * The attributes a move of a QP of @type to @state must carry (IBTA
 * 11.2.4.2, ib_core's qp_state_table): what m_modify_qp() starts from and
 * m_connect() sends.
 */
static int qp_required_mask(int type, int state)
{
	int m = 0;

	switch (state) {
	case IBV_QPS_INIT:
		m = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		    (type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
		break;
	case IBV_QPS_RTR:
		if (type != IBV_QPT_UD)
			m = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN;
		if (type == IBV_QPT_RC)
			m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		m = IBV_QP_SQ_PSN;
		if (type == IBV_QPT_RC)
			m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	return m;
}

static void m_modify_qp(void)
{
	struct qpslot *q = any_qp();
	struct ibv_qp_attr a = {};
	int mask;

	if (!q)
		return;
	a.qp_state = rn(7);
	a.cur_qp_state = rn(7);
	a.pkey_index = rn(4);
	a.port_num = chance(8) ? rn(4) : 1;
	a.qkey = val32();
	a.qp_access_flags = rn(16);
	a.path_mtu = rn(7);
	a.dest_qp_num = chance(2) ? val32() & 0xffffff : q->qp->qp_num;
	a.rq_psn = rnd() & 0xffffff;
	a.sq_psn = rnd() & 0xffffff;
	a.max_rd_atomic = rn(20);
	a.max_dest_rd_atomic = rn(20);
	a.min_rnr_timer = rn(32);
	a.timeout = rn(32);
	a.retry_cnt = rn(8);
	a.rnr_retry = rn(8);
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.sgid_index = rn(chance(8) ? 256 : 2);
	a.ah_attr.grh.hop_limit = rn(256);
	a.ah_attr.port_num = a.port_num;
	a.ah_attr.dlid = rn(0x10000);
	a.ah_attr.sl = rn(16);
	a.ah_attr.static_rate = rn(20);
	memcpy(a.ah_attr.grh.dgid.raw, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	a.en_sqd_async_notify = rn(2);
	a.sq_draining = rn(2);
	a.cap.max_send_wr = rn(64);
	mask = chance(4) ? (int)rnd() & 0x3fffff : IBV_QP_STATE;
	mask |= qp_required_mask(q->qp->qp_type, a.qp_state);
	if (chance(6))
		mask ^= 1 << rn(22);
	note("qpn 0x%x state %d mask 0x%x", q->qp->qp_num, a.qp_state, mask);
	OK(!ibv_modify_qp(q->qp, &a, mask));
}

/*
 * A QP taken through INIT, RTR and RTS to itself (its own GID and QPN),
 * so that WQEs posted or written raw and rung on it execute instead of
 * being flushed: the random transitions of m_modify_qp() reach RTS too
 * rarely for that (session 31's 10^6 run: no post_send accepted). Drawn
 * only with --connect W, W its weight, so runs without it keep their
 * sequences (a seed replays as before).
 */
static unsigned int connect_weight;

static void connect_qp(struct qpslot *q)
{
	struct ibv_qp_attr a = {};
	int t, s;

	t = q->qp->qp_type;
	if (t != IBV_QPT_RC && t != IBV_QPT_UC && t != IBV_QPT_UD)
		return;
	note("qpn 0x%x type %d", q->qp->qp_num, t);
	a.qp_state = IBV_QPS_RESET;
	if (!OK(!ibv_modify_qp(q->qp, &a, IBV_QP_STATE)))
		return;
	/* libmlx5 and the device start the rings again from 0 */
	q->raw = 0;
	q->pi = 0;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = q->qp->qp_num;
	a.max_dest_rd_atomic = 4;
	a.max_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	if (!OK(!ibv_query_gid(C->c, 1, 0, &a.ah_attr.grh.dgid)))
		return;
	for (s = IBV_QPS_INIT; s <= IBV_QPS_RTS; s++) {
		a.qp_state = s;
		if (!OK(!ibv_modify_qp(q->qp, &a, IBV_QP_STATE |
				       qp_required_mask(t, s))))
			return;
	}
}

static void m_connect(void)
{
	struct qpslot *q = any_qp();

	if (q)
		connect_qp(q);
}

static void m_query_qp(void)
{
	struct qpslot *q = any_qp();
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (q)
		OK(!ibv_query_qp(q->qp, &a, rnd() & 0x3fffff, &ia));
}

/*
 * The fuzzer's CQs are its own, not libmlx5's: cqn_of() takes them with
 * mlx5dv_init_obj(), and from then on libmlx5 no longer cleans a destroyed
 * QP's CQEs out of them (mlx5dv_init_obj(3)). Such a CQE stays, and names
 * by its user index whatever libmlx5 gives that index next: a QP without
 * a send queue, whose NULL work request array libmlx5's poll read (a
 * segfault in libmlx5, make fuzz seed 1795883784, proc 1, call 291874;
 * the model wrote the CQEs as a card does, before the QP was destroyed).
 * As a DV application must, the fuzzer cleans them: each CQE of the QP not
 * yet polled gets a user index libmlx5 never gives out, and polls as an
 * error. Returns the CQEs changed.
 */
/* The 64 bytes of CQE @i of a ring mlx5dv described (the last of 128). */
static struct mlx5_cqe64 *cqe_at(const struct mlx5dv_cq *d, uint32_t i)
{
	return (void *)((char *)d->buf + (i & (d->cqe_cnt - 1)) * d->cqe_size +
			d->cqe_size - sizeof(struct mlx5_cqe64));
}

static int scrub_cq(struct ibv_cq *cq, uint32_t qpn)
{
	struct mlx5dv_cq d;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &d } };
	struct mlx5_cqe64 *cqe;
	uint32_t ci, i;
	int n = 0;

	if (!cq || mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ) || !d.cqe_cnt)
		return 0;
	/*
	 * libmlx5 writes its consumer counter there when it polls; it can
	 * lag (a resize consumes the RESIZE_CQ CQE without writing it), so
	 * the whole ring from there is looked at, not up to the first
	 * entry still the device's: what software owns in this pass.
	 */
	ci = be32toh(d.dbrec[0]) & 0xffffff;
	for (i = ci; i != ci + d.cqe_cnt; i++) {
		cqe = cqe_at(&d, i);
		if (mlx5dv_get_cqe_opcode(cqe) == MLX5_CQE_INVALID ||
		    (mlx5dv_get_cqe_owner(cqe) ^ !!(i & d.cqe_cnt)))
			continue;
		__sync_synchronize();
		if ((be32toh(cqe->sop_drop_qpn) & 0xffffff) == qpn) {
			cqe->srqn_uidx = htobe32(0xffffff);
			n++;
		}
	}
	return n;
}

/* ibv_destroy_qp(), then the cleaning of its CQs (above). */
static int destroy_qp(struct ibv_qp *qp, int *scrubbed)
{
	struct ibv_cq *scq = qp->send_cq, *rcq = qp->recv_cq;
	uint32_t qpn = qp->qp_num;
	int n;

	if (ibv_destroy_qp(qp))
		return -1;
	n = scrub_cq(scq, qpn);
	if (rcq != scq)
		n += scrub_cq(rcq, qpn);
	if (scrubbed)
		*scrubbed = n;
	return 0;
}

static void m_destroy_qp(void)
{
	struct qpslot *q = &PICK(C->qp);

	if (!q->qp)
		return;
	note("qpn 0x%x", q->qp->qp_num);
	if (!OK(!destroy_qp(q->qp, NULL)) && errno == EBUSY)
		return;
	q->qp = NULL;
}

static struct mrslot *any_mr(void)
{
	struct mrslot *m = &PICK(C->mr);

	return m->mr ? m : NULL;
}

static uint32_t any_lkey(void)
{
	struct mrslot *m = any_mr();

	switch (rn(4)) {
	case 0:
		return freed_lkeys[rn(8)];
	case 1:
		return val32();
	default:
		return m ? m->mr->lkey : 0;
	}
}

static void m_post_send(void)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV,
	};
	struct qpslot *q = any_qp();
	struct mrslot *m = any_mr(), *r = any_mr();
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge[2];
	int i;

	if (!q || q->raw)
		return;
	for (i = 0; i < 2; i++) {
		sge[i].addr = m ? (uintptr_t)m->buf + rn(m->len) : rnd();
		sge[i].length = rn(chance(4) ? 1 << 20 : 512);
		sge[i].lkey = any_lkey();
	}
	wr.wr_id = rnd();
	wr.sg_list = sge;
	wr.num_sge = rn(3);
	wr.opcode = ops[rn(9)];
	wr.send_flags = rn(32);
	wr.wr.rdma.remote_addr = r ? (uintptr_t)r->buf + rn(r->len) : rnd();
	wr.wr.rdma.rkey = r && !chance(4) ? r->mr->rkey : val32();
	if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = wr.wr.rdma.remote_addr & ~7ull;
		wr.wr.atomic.rkey = wr.wr.rdma.rkey;
	}
	if (q->qp->qp_type == IBV_QPT_UD) {
		wr.wr.ud.ah = PICK(C->ah);
		wr.wr.ud.remote_qpn = val32() & 0xffffff;
		wr.wr.ud.remote_qkey = val32();
		if (!wr.wr.ud.ah)
			return;
	}
	/*
	 * Inline data is copied by libmlx5 in this process: from memory
	 * that is there (random addresses killed fuzz processes in libc's
	 * memcpy once --connect let posts through). No draw: sequences stay.
	 */
	if (wr.send_flags & IBV_SEND_INLINE)
		for (i = 0; i < 2; i++) {
			sge[i].addr = (uintptr_t)scratch;
			if (sge[i].length > BUFSZ)
				sge[i].length = BUFSZ;
		}
	note("qpn 0x%x op %d nsge %d flags 0x%x", q->qp->qp_num, wr.opcode,
	     wr.num_sge, wr.send_flags);
	/* post calls return the errno, and leave errno alone */
	errno = ibv_post_send(q->qp, &wr, &bad);
	OK(!errno);
}

static void m_post_recv(void)
{
	struct qpslot *q = any_qp();
	struct ibv_srq *srq = PICK(C->srq);
	struct mrslot *m = any_mr();
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;

	sge.addr = m ? (uintptr_t)m->buf + rn(m->len) : rnd();
	sge.length = rn(4096);
	sge.lkey = any_lkey();
	wr.sg_list = &sge;
	wr.num_sge = rn(2);
	if (chance(3) && srq) {
		note("srq");
		errno = ibv_post_srq_recv(srq, &wr, &bad);
		OK(!errno);
	} else if (q && !q->raw) {
		note("qpn 0x%x", q->qp->qp_num);
		errno = ibv_post_recv(q->qp, &wr, &bad);
		OK(!errno);
	}
}

static void m_srq(void)
{
	int i = SLOT(C->srq);
	struct ibv_srq_init_attr ia = {};
	struct ibv_srq_attr a = {};

	if (!C->srq[i]) {
		ia.attr.max_wr = chance(8) ? rnd() % 100000 : rn(100);
		ia.attr.max_sge = rn(chance(8) ? 64 : 4);
		ia.attr.srq_limit = rn(100);
		note("create wr %u sge %u", ia.attr.max_wr, ia.attr.max_sge);
		C->srq[i] = ibv_create_srq(any_pd(), &ia);
		OK(C->srq[i]);
		return;
	}
	switch (rn(3)) {
	case 0:
		note("modify");
		a.max_wr = rn(200);
		a.srq_limit = rn(200);
		OK(!ibv_modify_srq(C->srq[i], &a, rn(4)));
		break;
	case 1:
		note("query");
		OK(!ibv_query_srq(C->srq[i], &a));
		break;
	default:
		note("destroy");
		if (OK(!ibv_destroy_srq(C->srq[i])) || errno != EBUSY)
			C->srq[i] = NULL;
	}
}

static void m_reg_mr(void)
{
	int i = FREE_SLOT(C->mr);
	struct mrslot *m;
	int access = rn(2) ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC :
			     (int)rn(0x100);

	if (i < 0)
		return;
	m = &C->mr[i];
	m->len = 4096 * (1 + rn(16));
	m->buf = mmap(NULL, m->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->buf == MAP_FAILED) {
		m->buf = NULL;
		return;
	}
	note("len %zu access 0x%x", m->len, access);
	m->mr = ibv_reg_mr(any_pd(), m->buf, m->len, access);
	if (!OK(m->mr)) {
		munmap(m->buf, m->len);
		m->buf = NULL;
		return;
	}
	see_id(m->mr->lkey);
	/* one time in four the memory goes while the MR stays */
	if (chance(4)) {
		note("unmapped");
		munmap(m->buf, m->len);
		m->buf = mmap(m->buf, m->len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	}
}

static void m_dereg_mr(void)
{
	struct mrslot *m = &PICK(C->mr);

	if (!m->mr)
		return;
	freed_lkeys[rn(8)] = m->mr->lkey;
	if (rn(2)) {
		note("rereg");
		OK(!ibv_rereg_mr(m->mr, rn(8), any_pd(), m->buf, m->len,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ));
		return;
	}
	if (!OK(!ibv_dereg_mr(m->mr)) && errno == EBUSY)
		return;
	munmap(m->buf, m->len);
	m->mr = NULL;
	m->buf = NULL;
}

static void m_mw(void)
{
	int i = SLOT(C->mw);

	if (!C->mw[i]) {
		C->mw[i] = ibv_alloc_mw(any_pd(), rn(2) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
		OK(C->mw[i]);
		return;
	}
	note("dealloc");
	if (OK(!ibv_dealloc_mw(C->mw[i])) || errno != EBUSY)
		C->mw[i] = NULL;
}

static void m_ah(void)
{
	int i = SLOT(C->ah);
	struct ibv_ah_attr a = {
		.is_global = !chance(8),
		.port_num = chance(8) ? rn(4) : 1,
		.sl = rn(16),
		.dlid = rn(0x10000),
		.grh = {
			.sgid_index = rn(chance(8) ? 256 : 2),
			.hop_limit = rn(256),
			.flow_label = rnd(),
			.traffic_class = rn(256),
		},
	};

	if (!C->ah[i]) {
		memcpy(a.grh.dgid.raw, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\2", 16);
		if (chance(4))
			a.grh.dgid.raw[rn(16)] = rnd();
		note("create port %u sgid %u", a.port_num, a.grh.sgid_index);
		C->ah[i] = ibv_create_ah(any_pd(), &a);
		OK(C->ah[i]);
		return;
	}
	note("destroy");
	OK(!ibv_destroy_ah(C->ah[i]));
	C->ah[i] = NULL;
}

static void m_channel(void)
{
	int i = SLOT(C->ch);
	struct ibv_async_event ev;
	int fl;

	if (!C->ch[i]) {
		C->ch[i] = ibv_create_comp_channel(C->c);
		if (OK(C->ch[i]))
			fcntl(C->ch[i]->fd, F_SETFL, O_NONBLOCK);
		return;
	}
	switch (rn(3)) {
	case 0:
		note("async event");
		fl = fcntl(C->c->async_fd, F_GETFL);
		fcntl(C->c->async_fd, F_SETFL, fl | O_NONBLOCK);
		if (OK(!ibv_get_async_event(C->c, &ev)))
			ibv_ack_async_event(&ev);
		break;
	case 1:
		{
		struct ibv_cq *cq;
		void *cctx;

		note("get cq event");
		if (OK(!ibv_get_cq_event(C->ch[i], &cq, &cctx)))
			ibv_ack_cq_events(cq, 1);
		break;
	}
	default:
		note("destroy");
		if (OK(!ibv_destroy_comp_channel(C->ch[i])) || errno != EBUSY)
			C->ch[i] = NULL;
	}
}

/* ---- random WQEs straight into a user send queue ---- */

static void m_raw_wqe(void)
{
	static const uint8_t ops[] = {
		MLX5_OPCODE_NOP, MLX5_OPCODE_SEND, MLX5_OPCODE_SEND_IMM,
		MLX5_OPCODE_RDMA_WRITE, MLX5_OPCODE_RDMA_WRITE_IMM,
		MLX5_OPCODE_RDMA_READ, MLX5_OPCODE_ATOMIC_CS,
		MLX5_OPCODE_ATOMIC_FA, MLX5_OPCODE_UMR, MLX5_OPCODE_SET_PSV,
		MLX5_OPCODE_SEND_INVAL, MLX5_OPCODE_LOCAL_INVAL,
	};
	struct qpslot *q = any_qp();
	struct mlx5_wqe_ctrl_seg *ctrl;
	unsigned int nbb, b, j, cnt;
	uint8_t op;
	uint32_t *w;

	if (!q || !q->dvok)
		return;
	q->raw = 1;
	cnt = q->dv.sq.wqe_cnt;
	nbb = 1 + rn(4);
	ctrl = (void *)((char *)q->dv.sq.buf + (q->pi & (cnt - 1)) * q->dv.sq.stride);
	for (b = 0; b < nbb; b++) {
		w = (uint32_t *)((char *)q->dv.sq.buf +
				 ((q->pi + b) & (cnt - 1)) * q->dv.sq.stride);
		for (j = 0; j < MLX5_SEND_WQE_BB / 4; j++)
			w[j] = chance(3) ? htobe32(val32()) : rnd();
		/* data segments with keys and addresses that exist */
		for (j = 4; j < MLX5_SEND_WQE_BB / 4; j += 4) {
			struct mrslot *m = any_mr();

			if (chance(2))
				continue;
			mlx5dv_set_data_seg((void *)&w[j], rn(8192), any_lkey(),
					    m ? (uintptr_t)m->buf + rn(m->len) : rnd());
		}
	}
	op = chance(8) ? rnd() : ops[rn(sizeof(ops))];
	mlx5dv_set_ctrl_seg(ctrl, q->pi & 0xffff, op, rn(4) ? 0 : rnd(),
			    chance(8) ? val32() : q->qp->qp_num,
			    rn(2) ? MLX5_WQE_CTRL_CQ_UPDATE : rnd(),
			    chance(4) ? rn(64) : nbb * 4, rn(4) ? 0 : rnd(),
			    rnd());
	q->pi += chance(8) ? rn(cnt * 2) : nbb;
	note("qpn 0x%x op 0x%x bbs %u pi %u", q->qp->qp_num, op, nbb, q->pi);
	__sync_synchronize();
	q->dv.dbrec[MLX5_SND_DBR] = htobe32((chance(8) ? rnd() : q->pi) & 0xffff);
	__sync_synchronize();
	if (!chance(8))
		__atomic_store_n((uint64_t *)q->dv.bf.reg, *(uint64_t *)ctrl,
				 __ATOMIC_RELEASE);
	__sync_synchronize();
	ok_ = 1;
}

/* ---- mlx5dv: QPs with send ops, MKEYs, ibv_wr_*() and mlx5dv_wr_*() ---- */

/*
 * What libmlx5 itself does not survive is not drawn: its wr_*() builders
 * check nothing about the objects they are given (a freed mkey or AH is
 * a use after free in the process), build a WQE on the last one's control
 * segment when the queue is full (NULL on a QP that never had one: each
 * QP gets one at creation below, then aborted), and some builders are
 * NULL for a QP type. So: builders of the QP's type only, setters right
 * after their builder, MKEYs that live (freed ones go by their key, in
 * layouts and invalidations), UD and XRC left to post_send and raw_wqe.
 */
static void m_create_qpx(void)
{
	static const uint64_t ibops[] = {
		IBV_QP_EX_WITH_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		IBV_QP_EX_WITH_SEND, IBV_QP_EX_WITH_SEND_WITH_IMM,
		IBV_QP_EX_WITH_RDMA_READ, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_QP_EX_WITH_LOCAL_INV,
		IBV_QP_EX_WITH_BIND_MW, IBV_QP_EX_WITH_SEND_WITH_INV,
	};
	static const uint64_t dvops[] = {
		MLX5DV_QP_EX_WITH_MR_INTERLEAVED, MLX5DV_QP_EX_WITH_MR_LIST,
		MLX5DV_QP_EX_WITH_MKEY_CONFIGURE, MLX5DV_QP_EX_WITH_RAW_WQE,
	};
	int i = FREE_SLOT(C->qp);
	struct ibv_qp_init_attr_ex a = {
		.send_cq = any_cq(),
		.recv_cq = any_cq(),
		.srq = chance(4) ? PICK(C->srq) : NULL,
		.qp_type = chance(6) ? (rn(2) ? IBV_QPT_UC : IBV_QPT_UD) : IBV_QPT_RC,
		.sq_sig_all = rn(2),
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = any_pd(),
		.cap = {
			.max_send_wr = chance(8) ? rn(5000) : 1 + rn(64),
			.max_recv_wr = rn(32),
			.max_send_sge = chance(8) ? rn(64) : 1 + rn(4),
			.max_recv_sge = rn(4),
			.max_inline_data = rn(2) ? 64 + rn(1024) : rn(64),
		},
	};
	struct mlx5dv_qp_init_attr dva = {};
	struct qpslot *q;
	unsigned int j;

	if (i < 0 || !a.send_cq || !a.recv_cq)
		return;
	q = &C->qp[i];
	for (j = 0; j < ARRAY_SIZE(ibops); j++)
		if (rn(2))
			a.send_ops_flags |= ibops[j];
	if (chance(16))
		a.send_ops_flags |= 1ull << rn(32);
	if (!chance(4)) {
		dva.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
		for (j = 0; j < ARRAY_SIZE(dvops); j++)
			if (rn(2))
				dva.send_ops_flags |= dvops[j];
		if (chance(16))
			dva.send_ops_flags |= MLX5DV_QP_EX_WITH_MEMCPY;
	}
	if (chance(4)) {
		dva.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
		dva.create_flags = chance(2) ? MLX5DV_QP_CREATE_SIG_PIPELINING :
				   rnd() & 0x7f;
	}
	if (chance(16))
		dva.comp_mask |= 1ull << rn(8);
	note("type %d wr %u inline %u ops 0x%llx dv mask 0x%llx ops 0x%llx flags 0x%x",
	     a.qp_type, a.cap.max_send_wr, a.cap.max_inline_data,
	     (unsigned long long)a.send_ops_flags,
	     (unsigned long long)dva.comp_mask,
	     (unsigned long long)dva.send_ops_flags, dva.create_flags);
	q->qpx = NULL;
	q->dvx = NULL;
	q->qp = mlx5dv_create_qp(C->c, &a, &dva);
	if (!OK(q->qp))
		return;
	qp_made(q);
	q->wr_id = 0;
	q->ops = a.send_ops_flags;
	q->max_sge = a.cap.max_send_sge;
	q->max_inline = a.cap.max_inline_data;
	q->dvops = dva.comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS ?
		   dva.send_ops_flags : 0;
	q->qpx = ibv_qp_to_qp_ex(q->qp);
	q->dvx = mlx5dv_qp_ex_from_ibv_qp_ex(q->qpx);
	if (!q->dvok)
		return;
	/* a control segment for libmlx5's builders (above), no doorbell */
	ibv_wr_start(q->qpx);
	ibv_wr_send(q->qpx);
	ibv_wr_abort(q->qpx);
}

static struct mlx5dv_mkey *any_mkey(int *own)
{
	struct ctx *x = chance(6) ? &ctxs[rn(NCTX)] : C;
	int i = SLOT(x->mkey), j;

	if (own)
		*own = x == C;
	/* a live one if there is one */
	for (j = 0; j < NOBJ && !x->mkey[(i + j) % NOBJ]; j++)
		;
	return x->mkey[(i + j) % NOBJ];
}

static void m_mkey(void)
{
	static const uint32_t fl[] = {
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
		MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
		MLX5DV_MKEY_INIT_ATTR_FLAGS_REMOTE_INVALIDATE,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_CRYPTO,
		MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
		MLX5DV_MKEY_INIT_ATTR_FLAGS_UPDATE_TAG,
	};
	int i = SLOT(C->mkey);
	struct mlx5dv_mkey_init_attr a = {};
	struct mlx5dv_mkey_err err;
	uint32_t lkey;

	if (!C->mkey[i]) {
		a.pd = any_pd();
		a.create_flags = chance(8) ? rnd() & 0x3f : fl[rn(6)];
		a.max_entries = chance(8) ? rnd() : chance(4) ? 0 : 1 + rn(64);
		note("create flags 0x%x entries %u", a.create_flags,
		     a.max_entries);
		C->mkey[i] = mlx5dv_create_mkey(&a);
		if (!OK(C->mkey[i]))
			return;
		C->mkey_flags[i] = a.create_flags;
		see_id(C->mkey[i]->lkey);
		return;
	}
	if (rn(2)) {
		/* a signature error the device reported, if any */
		note("check 0x%x flags 0x%x", C->mkey[i]->lkey, C->mkey_flags[i]);
		errno = mlx5dv_mkey_check(C->mkey[i], &err);
		OK(!errno);
		return;
	}
	lkey = C->mkey[i]->lkey;
	note("destroy 0x%x", lkey);
	errno = mlx5dv_destroy_mkey(C->mkey[i]);
	if (OK(!errno)) {
		C->freed_dvmkey = lkey;
		C->mkey[i] = NULL;
	}
}

/* An lkey: of an MR, of an MKEY (live or freed), or any. */
static uint32_t wr_lkey(void)
{
	struct mlx5dv_mkey *k = any_mkey(NULL);

	switch (rn(6)) {
	case 0:
		return k ? k->lkey : C->freed_dvmkey;
	case 1:
		return C->freed_dvmkey;
	default:
		return any_lkey();
	}
}

static void wr_sge(struct ibv_sge *sge, unsigned int n)
{
	unsigned int j;

	for (j = 0; j < n; j++) {
		struct mrslot *m = any_mr();

		sge[j].lkey = wr_lkey();
		sge[j].addr = m ? (uintptr_t)m->buf + rn(m->len) : rnd();
		sge[j].length = chance(8) ? rnd() : rn(8192);
	}
}

/* The data of a send, write or read: an SGE, a list, or inline bytes. */
static void wr_data(struct qpslot *q)
{
	struct ibv_qp_ex *qx = q->qpx;
	struct ibv_sge sge[4];
	struct ibv_data_buf b[2];
	unsigned int n = 1 + rn(chance(4) || !q->max_sge ? 4 :
				q->max_sge < 4 ? q->max_sge : 4);
	unsigned int inl = q->max_inline + 1;

	switch (rn(4)) {
	case 0:
		wr_sge(sge, 1);
		ibv_wr_set_sge(qx, sge[0].lkey, sge[0].addr, sge[0].length);
		break;
	case 1:
		wr_sge(sge, n);
		ibv_wr_set_sge_list(qx, n, sge);
		break;
	case 2:
		/* copied by libmlx5 from memory that is there */
		b[0].addr = scratch;
		b[0].length = rn(chance(4) ? BUFSZ : inl);
		ibv_wr_set_inline_data(qx, b[0].addr, b[0].length);
		break;
	default:
		b[0].addr = scratch;
		b[0].length = rn(inl / 2 + 1);
		b[1].addr = scratch + 4096;
		b[1].length = rn(chance(4) ? BUFSZ - 4096 : inl / 2 + 1);
		ibv_wr_set_inline_data_list(qx, 2, b);
	}
}

static void wr_sig_domain(struct mlx5dv_sig_block_domain *d,
			  struct mlx5dv_sig_t10dif *dif, struct mlx5dv_sig_crc *crc)
{
	memset(d, 0, sizeof(*d));
	d->block_size = chance(8) ? rn(16) : MLX5DV_BLOCK_SIZE_512 + rn(6);
	d->comp_mask = chance(16);
	switch (rn(chance(8) ? 4 : 2)) {
	case 0:
		d->sig_type = MLX5DV_SIG_TYPE_T10DIF;
		dif->bg_type = chance(8) ? rn(4) : rn(2);
		dif->bg = chance(8) ? rnd() : rn(2) ? 0 : 0xffff;
		dif->app_tag = rnd();
		dif->ref_tag = rnd();
		dif->flags = chance(8) ? rnd() : rn(8);
		d->sig.dif = dif;
		break;
	case 1:
		d->sig_type = MLX5DV_SIG_TYPE_CRC;
		crc->type = chance(8) ? rn(8) : rn(3);
		crc->seed = chance(8) ? rnd() : rn(2) ? 0 :
			    crc->type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10 ?
			    UINT64_MAX : UINT32_MAX;
		d->sig.crc = crc;
		break;
	default:
		/* a type libmlx5 refuses: it reads no pointer for it */
		d->sig_type = 2 + rn(100);
		d->sig.dif = dif;
	}
}

/* One setter of an MKEY being configured. */
static void wr_mkey_setter(struct mlx5dv_qp_ex *dx)
{
	static struct ibv_sge sge[1024];
	static struct mlx5dv_mr_interleaved il[1024];
	struct mlx5dv_sig_block_domain mem, wire;
	struct mlx5dv_sig_t10dif dif[2];
	struct mlx5dv_sig_crc crc[2];
	struct mlx5dv_sig_block_attr sa = {};
	unsigned int n = chance(8) ? 1 + rn(1024) : 1 + rn(8), j;
	uint32_t access = chance(8) ? rnd() : rn(16);

	switch (rn(4)) {
	case 0:
		note("access 0x%x", access);
		mlx5dv_wr_set_mkey_access_flags(dx, access);
		break;
	case 1:
		/* more than the MKEY or the WQE holds: refused by libmlx5 */
		if (chance(16))
			n = 0xffff;
		wr_sge(sge, n > 1024 ? 1024 : n);
		note("list %u", n);
		mlx5dv_wr_set_mkey_layout_list(dx, n, sge);
		break;
	case 2:
		if (chance(16))
			n = 0xffff;
		for (j = 0; j < n && j < 1024; j++) {
			il[j].lkey = wr_lkey();
			il[j].addr = rnd();
			il[j].bytes_count = chance(4) ? rnd() : rn(4096);
			il[j].bytes_skip = chance(4) ? rnd() : rn(512);
		}
		note("interleaved %u", n);
		mlx5dv_wr_set_mkey_layout_interleaved(dx, chance(4) ? rnd() : rn(8),
						      n, il);
		break;
	default:
		wr_sig_domain(&mem, &dif[0], &crc[0]);
		wr_sig_domain(&wire, &dif[1], &crc[1]);
		sa.mem = chance(4) ? NULL : &mem;
		sa.wire = chance(4) ? NULL : &wire;
		sa.flags = chance(8) ? rnd() : rn(2);
		sa.check_mask = rnd();
		sa.copy_mask = rnd();
		sa.comp_mask = chance(16);
		note("sig mem %d wire %d", sa.mem ? (int)mem.sig_type : -1,
		     sa.wire ? (int)wire.sig_type : -1);
		mlx5dv_wr_set_mkey_sig_block(dx, &sa);
	}
}

/* A WQE in libmlx5's layout for mlx5dv_wr_raw_wqe(): ds fits the SQ. */
static void wr_raw(struct qpslot *q)
{
	static const uint8_t ops[] = {
		MLX5_OPCODE_NOP, MLX5_OPCODE_SEND, MLX5_OPCODE_RDMA_WRITE,
		MLX5_OPCODE_RDMA_READ, MLX5_OPCODE_UMR, MLX5_OPCODE_SET_PSV,
		MLX5_OPCODE_LOCAL_INVAL, MLX5_OPCODE_ATOMIC_CS,
	};
	uint32_t *w = (uint32_t *)scratch;
	unsigned int ds = 1 + rn(chance(8) ? 63 : 8), j;

	if (ds > 4 * q->dv.sq.wqe_cnt)
		ds = 4 * q->dv.sq.wqe_cnt;
	for (j = 0; j < 64 * 4; j++)
		w[j] = chance(3) ? htobe32(val32()) : rnd();
	for (j = 4; j + 4 <= ds * 4; j += 4)
		if (rn(2))
			mlx5dv_set_data_seg((void *)&w[j], rn(8192), wr_lkey(), rnd());
	mlx5dv_set_ctrl_seg((void *)w, 0, chance(8) ? rnd() : ops[rn(8)],
			    rn(4) ? 0 : rnd(), chance(8) ? val32() : q->qp->qp_num,
			    rn(2) ? MLX5_WQE_CTRL_CQ_UPDATE : rnd(), ds,
			    rn(4) ? 0 : rnd(), rnd());
	note("raw ds %u", ds);
	mlx5dv_wr_raw_wqe(q->dvx, w);
}

static void m_wr(void)
{
	struct qpslot *q = any_qp();
	struct ibv_qp_ex *qx;
	struct mlx5dv_qp_ex *dx;
	struct mlx5dv_mkey_conf_attr ca;
	struct ibv_mw_bind_info bi;
	struct mlx5dv_mkey *k;
	struct ibv_sge sge[8];
	struct mrslot *r;
	unsigned int n, j, s, nset, pick[16], np, bit;
	int type, own, err;
	uint64_t all;

	if (!q || !q->qpx || !q->dvok || q->raw)
		return;
	type = q->qp->qp_type;
	if (type != IBV_QPT_RC && type != IBV_QPT_UC)
		return;
	qx = q->qpx;
	dx = q->dvx;
	/* the builders of ops the QP was created with: bits 0-15 verbs, 16- dv */
	all = (q->ops & 0xffff) | (type == IBV_QPT_RC ? (q->dvops & 0xf) << 16 :
				   (q->dvops & MLX5DV_QP_EX_WITH_RAW_WQE) << 16);
	/* the MKEY builders half the time, if the QP has them */
	if (all >> 16 && rn(2))
		all &= ~0xffffull;
	for (np = 0, bit = 0; bit < 32; bit++)
		if (all & (1ull << bit))
			pick[np++ & 15] = bit;
	if (!np)
		return;
	n = 1 + rn(4);
	note("qpn 0x%x n %u", q->qp->qp_num, n);
	ibv_wr_start(qx);
	for (j = 0; j < n; j++) {
		r = any_mr();
		qx->wr_id = chance(4) && q->wr_id ? q->wr_id : rnd();
		q->wr_id = qx->wr_id;
		qx->wr_flags = chance(8) ? rn(32) : rn(16);
		bit = pick[rn(np < 16 ? np : 16)];
		/* libmlx5 builds MKEY WQEs inline only */
		if (bit >= 16 && !chance(8))
			qx->wr_flags |= IBV_SEND_INLINE;
		note("op %u flags 0x%x", bit, qx->wr_flags);
		switch (1ull << bit) {
		case IBV_QP_EX_WITH_SEND:
			ibv_wr_send(qx);
			wr_data(q);
			break;
		case IBV_QP_EX_WITH_SEND_WITH_IMM:
			ibv_wr_send_imm(qx, rnd());
			wr_data(q);
			break;
		case IBV_QP_EX_WITH_SEND_WITH_INV:
			ibv_wr_send_inv(qx, wr_lkey());
			wr_data(q);
			break;
		case IBV_QP_EX_WITH_RDMA_WRITE:
			ibv_wr_rdma_write(qx, r && !chance(4) ? r->mr->rkey : wr_lkey(),
					  r ? (uintptr_t)r->buf + rn(r->len) : rnd());
			wr_data(q);
			break;
		case IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM:
			ibv_wr_rdma_write_imm(qx, r && !chance(4) ? r->mr->rkey : wr_lkey(),
					      r ? (uintptr_t)r->buf + rn(r->len) : rnd(),
					      rnd());
			wr_data(q);
			break;
		case IBV_QP_EX_WITH_RDMA_READ:
			ibv_wr_rdma_read(qx, r && !chance(4) ? r->mr->rkey : wr_lkey(),
					 r ? (uintptr_t)r->buf + rn(r->len) : rnd());
			wr_sge(sge, 1);
			ibv_wr_set_sge(qx, sge[0].lkey, sge[0].addr, sge[0].length);
			break;
		case IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP:
			ibv_wr_atomic_cmp_swp(qx, r && !chance(4) ? r->mr->rkey : wr_lkey(),
					      r ? ((uintptr_t)r->buf + rn(r->len)) & ~7ull : rnd(),
					      rnd(), rnd());
			wr_sge(sge, 1);
			ibv_wr_set_sge(qx, sge[0].lkey, sge[0].addr, 8);
			break;
		case IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD:
			ibv_wr_atomic_fetch_add(qx, r && !chance(4) ? r->mr->rkey : wr_lkey(),
						r ? ((uintptr_t)r->buf + rn(r->len)) & ~7ull :
						rnd(), rnd());
			wr_sge(sge, 1);
			ibv_wr_set_sge(qx, sge[0].lkey, sge[0].addr, 8);
			break;
		case IBV_QP_EX_WITH_LOCAL_INV:
			ibv_wr_local_inv(qx, wr_lkey());
			break;
		case IBV_QP_EX_WITH_BIND_MW:
			{
			struct ibv_mw *mw = PICK(C->mw);

			/* libmlx5 reads the MW and MR given: live ones */
			memset(&bi, 0, sizeof(bi));
			bi.mr = r ? r->mr : NULL;
			if (r) {
				bi.addr = (uintptr_t)r->buf + rn(r->len);
				bi.length = chance(4) ? rnd() : rn(r->len);
			}
			bi.mw_access_flags = rn(32);
			if (!mw)
				break;
			ibv_wr_bind_mw(qx, mw, val32(), &bi);
			break;
		}
		case (uint64_t)MLX5DV_QP_EX_WITH_MKEY_CONFIGURE << 16:
			k = any_mkey(&own);
			if (!k)
				break;
			memset(&ca, 0, sizeof(ca));
			ca.conf_flags = chance(8) ? rnd() : rn(2);
			ca.comp_mask = chance(16);
			s = chance(8) ? rn(256) : rn(4);
			nset = chance(4) ? rn(5) : s;
			note("configure 0x%x%s setters %u/%u", k->lkey,
			     own ? "" : " foreign", nset, s);
			mlx5dv_wr_mkey_configure(dx, k, s, &ca);
			while (nset--)
				wr_mkey_setter(dx);
			break;
		case (uint64_t)MLX5DV_QP_EX_WITH_MR_LIST << 16:
			k = any_mkey(&own);
			if (!k)
				break;
			s = chance(16) ? rn(64) : 1 + rn(8);
			wr_sge(sge, s > 8 ? 8 : s);
			if (s > 8)
				s = 0xffff;	/* refused: more than it holds */
			note("mr_list 0x%x n %u", k->lkey, s);
			mlx5dv_wr_mr_list(dx, k, rn(16), s, sge);
			break;
		case (uint64_t)MLX5DV_QP_EX_WITH_MR_INTERLEAVED << 16:
			{
			struct mlx5dv_mr_interleaved il[4];

			k = any_mkey(&own);
			if (!k)
				break;
			s = 1 + rn(4);
			for (bit = 0; bit < s; bit++) {
				il[bit].lkey = wr_lkey();
				il[bit].addr = r ? (uintptr_t)r->buf : rnd();
				il[bit].bytes_count = chance(4) ? rnd() : rn(4096);
				il[bit].bytes_skip = chance(4) ? rnd() : rn(512);
			}
			note("mr_interleaved 0x%x n %u", k->lkey, s);
			mlx5dv_wr_mr_interleaved(dx, k, rn(16), chance(4) ? rnd() : rn(8),
						 s, il);
			break;
		}
		case (uint64_t)MLX5DV_QP_EX_WITH_RAW_WQE << 16:
			wr_raw(q);
			break;
		default:
			/* an op drawn at creation no builder takes: none */
			break;
		}
	}
	if (chance(8)) {
		note("abort");
		ibv_wr_abort(qx);
		ok_ = 1;
		return;
	}
	err = ibv_wr_complete(qx);
	errno = err;
	OK(!err);
	/* its completions, so that the queue does not stay full */
	if (rn(2)) {
		struct ibv_wc wc[8];

		ibv_poll_cq(q->qp->send_cq, 8, wc);
	}
}

/*
 * Cancel posted sends: the QP to SQD (and its async event), the WQEs with
 * a wr_id cancelled into NOPs (libmlx5 walks them from the device's
 * counter), back to RTS. Not on QPs with raw WQEs or doorbells: libmlx5's
 * walk then runs off its own records (an endless loop in the process).
 */
static void m_sqd(void)
{
	struct qpslot *q = any_qp();
	struct ibv_qp_attr a = {};
	uint64_t id;
	int r;

	if (!q || !q->dvx || !q->dvok || q->raw)
		return;
	/* from RTS, mostly */
	if (rn(2)) {
		note("connect");
		connect_qp(q);
	}
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = rn(2);
	note("qpn 0x%x sqd notify %d", q->qp->qp_num, a.en_sqd_async_notify);
	if (!OK(!ibv_modify_qp(q->qp, &a, IBV_QP_STATE |
			       (rn(2) ? IBV_QP_EN_SQD_ASYNC_NOTIFY : 0))) &&
	    !chance(4))
		return;
	id = chance(4) ? rnd() : q->wr_id;
	note("cancel 0x%llx", (unsigned long long)id);
	r = mlx5dv_qp_cancel_posted_send_wrs(q->dvx, id);
	note("-> %d", r);
	if (chance(4))
		return;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rnd() & 0xffffff;
	note("rts");
	OK(!ibv_modify_qp(q->qp, &a, IBV_QP_STATE | (rn(2) ? IBV_QP_SQ_PSN : 0)));
}

/* ---- stores and loads anywhere in a mapped UAR page ---- */

/*
 * Relaxed atomics: one MOV of the size, not split or merged by the
 * compiler (unaligned ones too, on x86).
 */
static void uar_store(uint8_t *p, unsigned int how, const uint8_t *v,
		      unsigned int len)
{
	switch (how) {
	case 0:
		__atomic_store_n(p, v[0], __ATOMIC_RELAXED);
		break;
	case 1:
		__atomic_store_n((uint16_t *)p, *(const uint16_t *)v, __ATOMIC_RELAXED);
		break;
	case 2:
		__atomic_store_n((uint32_t *)p, *(const uint32_t *)v, __ATOMIC_RELAXED);
		break;
	case 3:
		__atomic_store_n((uint64_t *)p, *(const uint64_t *)v, __ATOMIC_RELAXED);
		break;
	case 4:
#ifdef __x86_64__
		_mm_storeu_si128((__m128i *)p, _mm_loadu_si128((const __m128i *)v));
		break;
#endif
	case 5:
		memcpy((void *)p, v, len);
		break;
	case 6:
#ifdef __x86_64__
		{
		void *d = (void *)p;
		const void *s = v;
		size_t c = len;

		asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
		break;
	}
#endif
	case 7:
		memcpy((void *)p, v, len);
		break;
	default:
		switch (len) {
		case 1:
			__atomic_load_n(p, __ATOMIC_RELAXED);
			break;
		case 2:
			__atomic_load_n((uint16_t *)p, __ATOMIC_RELAXED);
			break;
		case 4:
			__atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED);
			break;
		default:
			__atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED);
		}
	}
}

/*
 * A UAR page of this process (a live QP's, whose context maps it, or a
 * DEVX UAR's), and a store or load at a random place in it: aligned or
 * not, at the doorbell registers (0x800, 0x900, the CQ's 0x20) or
 * anywhere, by a plain MOV of 1-8 bytes, an SSE store, memcpy or rep
 * movsb of 16-64, with a random value or a doorbell of a QP of this
 * context. The driver executes a MOV of 4 or 8 bytes in the fault and
 * maps the page for anything else. Never outside the page.
 */
static void m_uar_poke(void)
{
	static const unsigned int offs[] = {
		0x800, 0x900, 0x808, 0x908, 0x20, 0x24, 0x28, 0x0, 0xa00, 0xb00,
		0x804, 0x7f8, 0xffc, 0xff8,
	};
	static const unsigned int sizes[] = { 1, 2, 4, 8, 16, 32, 64, 0 };
	struct qpslot *q = any_qp(), *t = any_qp();
	struct mlx5dv_devx_uar *u = PICK(C->uar);
	uint8_t v[64] __aligned(16);
	unsigned int how = rn(9), len, off, j;
	uintptr_t page;

	if (u && rn(2))
		page = (uintptr_t)(rn(2) ? u->base_addr : u->reg_addr) & ~4095ul;
	else if (q && q->dvok && q->dv.bf.reg)
		page = (uintptr_t)q->dv.bf.reg & ~4095ul;
	else
		return;
	len = how == 8 ? 1u << rn(4) : sizes[how < 4 ? how : how == 4 ? 4 :
					    4 + rn(3)];
	if (how == 7)
		len = 1 + rn(64);	/* memcpy of any length */
	off = chance(3) ? rnd() & 4095 : offs[rn(ARRAY_SIZE(offs))] +
	      (chance(4) ? rn(8) : 0);
	if (off > 4096 - len)
		off = 4096 - len;
	for (j = 0; j < sizeof(v); j++)
		v[j] = rnd();
	if (t && t->dvok && chance(4)) {
		/* a doorbell of a QP of this context: its ctrl segment */
		struct mlx5_wqe_ctrl_seg *c = (void *)v;

		mlx5dv_set_ctrl_seg(c, rn(2) ? t->pi + rn(4) : rnd(),
				    chance(4) ? rnd() : MLX5_OPCODE_NOP, 0,
				    t->qp->qp_num, MLX5_WQE_CTRL_CQ_UPDATE,
				    1 + rn(4), 0, 0);
		/* the device may run the SQ past libmlx5's records */
		t->raw = 1;
		note("db qpn 0x%x", t->qp->qp_num);
	}
	note("%s page %s off 0x%x len %u how %u", how == 8 ? "load" : "store",
	     u && page == ((uintptr_t)u->base_addr & ~4095ul) ? "devx" : "qp",
	     off, len, how);
	__sync_synchronize();
	uar_store((uint8_t *)page + off, how, v, len);
	__sync_synchronize();
	ok_ = 1;
}

/* ---- DEVX: commands laid out from mlx5_ifc.h, then mutated ---- */

/* Mutate a command: bits, dwords, the uid, the length it claims. */
static size_t mutate(uint32_t *in, size_t len)
{
	unsigned int n;

	if (chance(3)) {
		for (n = rn(4) + 1; n; n--) {
			if (rn(2))
				in[rn(len / 4)] ^= htobe32(1u << rn(32));
			else
				in[rn(len / 4)] = htobe32(val32());
		}
		note("mutated");
	}
	if (chance(8)) {
		DEVX_SET(general_obj_in_cmd_hdr, in, uid, rnd());
		note("uid");
	}
	if (chance(8)) {
		switch (rn(4)) {
		case 0:
			len = rn(16);
			break;
		case 1:
			len = rn(len + 1);
			break;
		case 2:
			len = len + rn(BUFSZ - len);
			break;
		default:
			len = rnd() & 0xffff;
			break;
		}
		note("len %zu", len);
	}
	return len;
}

static size_t outlen(size_t len)
{
	if (!chance(8))
		return len;
	len = chance(2) ? rn(len + 1) : rn(BUFSZ);
	note("outlen %zu", len);
	return len;
}

/* A DEVX object's creating command in scratch; returns its length. */
static size_t build_create(uint16_t *opp)
{
	uint32_t *in = (uint32_t *)scratch;
	uint32_t eqn = 0;
	unsigned int j;
	void *c;

	memset(scratch, 0, BUFSZ);
	switch (rn(7)) {
	case 0:
		*opp = MLX5_CMD_OP_ALLOC_PD;
		DEVX_SET(alloc_pd_in, in, opcode, *opp);
		return DEVX_ST_SZ_BYTES(alloc_pd_in);
	case 1:
		*opp = MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN;
		DEVX_SET(alloc_transport_domain_in, in, opcode, *opp);
		return DEVX_ST_SZ_BYTES(alloc_transport_domain_in);
	case 2:
		*opp = MLX5_CMD_OP_CREATE_CQ;
		DEVX_SET(create_cq_in, in, opcode, *opp);
		DEVX_SET(create_cq_in, in, cq_umem_valid, !chance(8));
		mlx5sp_set_dw(in, MLX5SP_CREATE_CQ_UMEM_ID, umem_id());
		c = DEVX_ADDR_OF(create_cq_in, in, cq_context);
		DEVX_SET(cqc, c, log_cq_size, chance(4) ? rn(32) : rn(8));
		DEVX_SET(cqc, c, cqe_sz, chance(8) ? rn(4) : 0);
		DEVX_SET(cqc, c, uar_page, uar_page());
		mlx5dv_devx_query_eqn(C->c, 0, &eqn);
		DEVX_SET(cqc, c, c_eqn_or_apu_element, chance(8) ? val32() : eqn);
		DEVX_SET(cqc, c, dbr_umem_valid, !chance(8));
		mlx5sp_set_dw(c, MLX5SP_CQC_DBR_UMEM_ID, umem_id());
		DEVX_SET64(cqc, c, dbr_addr, chance(4) ? rnd() : 0);
		return DEVX_ST_SZ_BYTES(create_cq_in);
	case 3:
		{
		static const int st[] = { MLX5_QPC_ST_RC, MLX5_QPC_ST_UC,
					  MLX5_QPC_ST_UD, MLX5_QPC_ST_XRC };

		*opp = MLX5_CMD_OP_CREATE_QP;
		DEVX_SET(create_qp_in, in, opcode, *opp);
		DEVX_SET(create_qp_in, in, wq_umem_valid, !chance(8));
		DEVX_SET(create_qp_in, in, wq_umem_id, umem_id());
		DEVX_SET64(create_qp_in, in, wq_umem_offset, chance(4) ? rnd() : 0);
		c = DEVX_ADDR_OF(create_qp_in, in, qpc);
		DEVX_SET(qpc, c, st, st[rn(chance(6) ? 4 : 3)]);
		DEVX_SET(qpc, c, pm_state, MLX5_QPC_PM_STATE_MIGRATED);
		DEVX_SET(qpc, c, pd, pdn_of(chance(8) ? NULL : any_pd()));
		DEVX_SET(qpc, c, uar_page, uar_page());
		DEVX_SET(qpc, c, log_rq_size, chance(4) ? rn(32) : rn(8));
		DEVX_SET(qpc, c, log_rq_stride, rn(8));
		DEVX_SET(qpc, c, log_sq_size, chance(4) ? rn(32) : rn(8));
		DEVX_SET(qpc, c, rq_type, chance(8) ? rn(4) : 0);
		DEVX_SET(qpc, c, no_sq, chance(8));
		DEVX_SET(qpc, c, ts_format, 1);
		DEVX_SET(qpc, c, cqn_snd, chance(4) ? val32() : cqn_of(any_cq()));
		DEVX_SET(qpc, c, cqn_rcv, chance(4) ? val32() : cqn_of(any_cq()));
		/*
		 * Its CQEs may land in a verbs CQ this process polls, and
		 * libmlx5 finds a CQE's QP by the user index in it (cqe
		 * version 1): index 0, libmlx5's first QP or SRQ, took a
		 * QP without a send queue's NULL work request array for
		 * this one's (a segfault in libmlx5, make fuzz seed
		 * 1795707109, proc 0, call 48332), as it would on a card.
		 * An index libmlx5 never gives out: such CQEs poll as
		 * errors.
		 */
		DEVX_SET(qpc, c, user_index, 0xffffff);
		DEVX_SET(qpc, c, dbr_umem_valid, !chance(8));
		mlx5sp_set_dw(c, MLX5SP_QPC_DBR_UMEM_ID, umem_id());
		return DEVX_ST_SZ_BYTES(create_qp_in);
	}
	case 4:
		{
		uint32_t ocw = chance(4) ? val32() : 2 * (1 + rn(4));
		struct umslot *u = &PICK(C->um);

		*opp = MLX5_CMD_OP_CREATE_MKEY;
		DEVX_SET(create_mkey_in, in, opcode, *opp);
		DEVX_SET(create_mkey_in, in, mkey_umem_valid, rn(2));
		DEVX_SET(create_mkey_in, in, translations_octword_actual_size, ocw);
		c = DEVX_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
		DEVX_SET(mkc, c, access_mode_1_0, rn(4));
		DEVX_SET(mkc, c, access_mode_4_2, chance(4) ? rn(8) : 0);
		DEVX_SET(mkc, c, lw, 1);
		DEVX_SET(mkc, c, lr, 1);
		DEVX_SET(mkc, c, rw, rn(2));
		DEVX_SET(mkc, c, rr, rn(2));
		DEVX_SET(mkc, c, a, rn(2));
		DEVX_SET(mkc, c, umr_en, rn(2));
		DEVX_SET(mkc, c, free, chance(4));
		DEVX_SET(mkc, c, qpn, 0xffffff);
		DEVX_SET(mkc, c, mkey_7_0, rn(256));
		DEVX_SET(mkc, c, pd, pdn_of(chance(8) ? NULL : any_pd()));
		DEVX_SET64(mkc, c, start_addr, u->buf && !chance(4) ?
			   (uintptr_t)u->buf + rn(64) : rnd());
		/* lengths that lie about the memory behind them */
		DEVX_SET64(mkc, c, len, chance(3) ? rnd() >> rn(64) :
			   u->len ? u->len - rn(64) : 4096);
		DEVX_SET(mkc, c, translations_octword_size, ocw);
		DEVX_SET(mkc, c, log_page_size, chance(4) ? rn(64) : 12);
		/* translations: umem ids, addresses of nobody's memory */
		for (j = 0; j < 8; j++)
			in[DEVX_ST_SZ_DW(create_mkey_in) + j] =
				htobe32(rn(2) ? umem_id() : val32());
		return DEVX_ST_SZ_BYTES(create_mkey_in) + 16 * rn(3);
	}
	case 5:
		*opp = MLX5_CMD_OP_CREATE_PSV;
		DEVX_SET(create_psv_in, in, opcode, *opp);
		DEVX_SET(create_psv_in, in, num_psv, rn(6));
		DEVX_SET(create_psv_in, in, pd, pdn_of(any_pd()));
		return DEVX_ST_SZ_BYTES(create_psv_in);
	default:
		*opp = chance(2) ? MLX5_CMD_OP_CREATE_GENERAL_OBJECT :
		       0x800 + rn(0x200);
		DEVX_SET(general_obj_in_cmd_hdr, in, opcode, *opp);
		DEVX_SET(general_obj_in_cmd_hdr, in, obj_type, rn(0x50));
		return 64 + 4 * rn(64);
	}
}

static void m_devx_create(void)
{
	int i = FREE_SLOT(C->dobj);
	struct dobj *d;
	size_t len, olen;
	uint16_t op;

	if (i < 0)
		return;
	d = &C->dobj[i];
	len = build_create(&op);
	note("op 0x%x", op);
	len = mutate((uint32_t *)scratch, len);
	olen = outlen(256);
	memset(outbuf, 0, BUFSZ);
	d->o = mlx5dv_devx_obj_create(C->c, scratch, len, outbuf, olen);
	if (!OK(d->o))
		return;
	d->type = op;
	/* every create_*_out has its object number in dword 2 */
	d->id = be32toh(((uint32_t *)outbuf)[2]) & 0xffffff;
	if (op == MLX5_CMD_OP_CREATE_MKEY)
		d->id = (d->id << 8) | DEVX_GET(mkc, DEVX_ADDR_OF(create_mkey_in,
				scratch, memory_key_mkey_entry), mkey_7_0);
	note("id 0x%x", d->id);
	see_id(d->id);
}

/* A query or modify of object @d's kind, for @id, in scratch. */
static size_t build_on(struct dobj *d, uint32_t id, int modify)
{
	static const uint16_t qp_mods[] = {
		MLX5_CMD_OP_RST2INIT_QP, MLX5_CMD_OP_INIT2RTR_QP,
		MLX5_CMD_OP_RTR2RTS_QP, MLX5_CMD_OP_RTS2RTS_QP,
		MLX5_CMD_OP_SQERR2RTS_QP, MLX5_CMD_OP_2ERR_QP,
		MLX5_CMD_OP_2RST_QP, MLX5_CMD_OP_INIT2INIT_QP,
		MLX5_CMD_OP_SQD_RTS_QP, MLX5SP_CMD_OP_RTS2SQD_QP,
	};
	uint32_t *in = (uint32_t *)scratch;
	void *c;

	memset(scratch, 0, BUFSZ);
	switch (d->type) {
	case MLX5_CMD_OP_CREATE_QP:
		if (!modify) {
			DEVX_SET(query_qp_in, in, opcode, MLX5_CMD_OP_QUERY_QP);
			DEVX_SET(query_qp_in, in, qpn, id);
			return DEVX_ST_SZ_BYTES(query_qp_in);
		}
		DEVX_SET(rst2init_qp_in, in, opcode, qp_mods[rn(10)]);
		DEVX_SET(rst2init_qp_in, in, qpn, id);
		c = DEVX_ADDR_OF(rst2init_qp_in, in, qpc);
		DEVX_SET(qpc, c, primary_address_path.vhca_port_num,
			 chance(8) ? rn(4) : 1);
		DEVX_SET(qpc, c, primary_address_path.pkey_index, rn(4));
		DEVX_SET(qpc, c, primary_address_path.src_addr_index, rn(4));
		DEVX_SET(qpc, c, primary_address_path.hop_limit, rn(256));
		DEVX_SET(qpc, c, mtu, rn(8));
		DEVX_SET(qpc, c, log_msg_max, rn(32));
		DEVX_SET(qpc, c, remote_qpn, val32());
		DEVX_SET(qpc, c, q_key, val32());
		DEVX_SET(qpc, c, log_sra_max, rn(8));
		DEVX_SET(qpc, c, log_rra_max, rn(8));
		DEVX_SET(qpc, c, retry_count, rn(8));
		DEVX_SET(qpc, c, rnr_retry, rn(8));
		DEVX_SET(qpc, c, next_send_psn, rnd());
		DEVX_SET(qpc, c, next_rcv_psn, rnd());
		DEVX_SET(qpc, c, rre, rn(2));
		DEVX_SET(qpc, c, rwe, rn(2));
		DEVX_SET(qpc, c, rae, rn(2));
		DEVX_SET(qpc, c, min_rnr_nak, rn(32));
		DEVX_SET(qpc, c, primary_address_path.ack_timeout, rn(32));
		return DEVX_ST_SZ_BYTES(rst2init_qp_in) + 4 * rn(4);
	case MLX5_CMD_OP_CREATE_CQ:
		if (!modify) {
			DEVX_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
			DEVX_SET(query_cq_in, in, cqn, id);
			return DEVX_ST_SZ_BYTES(query_cq_in);
		}
		DEVX_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
		DEVX_SET(modify_cq_in, in, cqn, id);
		DEVX_SET(modify_cq_in, in, op_mod, rn(4));
		DEVX_SET64(modify_cq_in, in, modify_field_select_resize_field_select.modify_field_select.modify_field_select,
			   rnd() & 0xff);
		c = DEVX_ADDR_OF(modify_cq_in, in, cq_context);
		DEVX_SET(cqc, c, cq_period, rn(0x1000));
		DEVX_SET(cqc, c, cq_max_count, rn(0x10000));
		DEVX_SET(cqc, c, log_cq_size, rn(32));
		return DEVX_ST_SZ_BYTES(modify_cq_in);
	case MLX5_CMD_OP_CREATE_MKEY:
		DEVX_SET(query_mkey_in, in, opcode, MLX5_CMD_OP_QUERY_MKEY);
		DEVX_SET(query_mkey_in, in, mkey_index, id >> 8);
		return DEVX_ST_SZ_BYTES(query_mkey_in);
	default:
		/* a query of a kind that has none, or a random command */
		DEVX_SET(general_obj_in_cmd_hdr, in, opcode, 0x100 + rn(0x900));
		DEVX_SET(general_obj_in_cmd_hdr, in, obj_id, id);
		return 16 + 4 * rn(64);
	}
}

static void m_devx_obj(void)
{
	struct dobj *d = &PICK(C->dobj);
	uint32_t id;
	size_t len, olen;
	int modify = rn(2);

	if (!d->o)
		return;
	if (chance(4) && !modify) {
		note("destroy type 0x%x id 0x%x", d->type, d->id);
		if (OK(!mlx5dv_devx_obj_destroy(d->o)) || errno != EBUSY) {
			if (d->type == MLX5_CMD_OP_CREATE_MKEY)
				C->freed_mkey = d->id;
			d->o = NULL;
		}
		return;
	}
	/* one in four with an id not the object's (another's, a freed one) */
	id = chance(4) ? val32() : d->id;
	len = mutate((uint32_t *)scratch, build_on(d, id, modify));
	olen = outlen(modify ? 16 : 512);
	note("%s type 0x%x id 0x%x", modify ? "modify" : "query", d->type, id);
	if (modify)
		OK(!mlx5dv_devx_obj_modify(d->o, scratch, len, outbuf, olen));
	else
		OK(!mlx5dv_devx_obj_query(d->o, scratch, len, outbuf, olen));
}

static void m_devx_general(void)
{
	static const uint16_t ops[] = {
		MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_CMD_OP_QUERY_ISSI,
		MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT,
		MLX5_CMD_OP_QUERY_VPORT_STATE, MLX5_CMD_OP_QUERY_ROCE_ADDRESS,
		MLX5_CMD_OP_QUERY_ADAPTER, MLX5_CMD_OP_NOP,
		MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT,
		MLX5_CMD_OP_QUERY_VPORT_COUNTER, MLX5_CMD_OP_QUERY_CONG_STATUS,
		/* object commands through the general path: to be refused */
		MLX5_CMD_OP_QUERY_QP, MLX5_CMD_OP_QUERY_CQ,
		MLX5_CMD_OP_QUERY_MKEY, MLX5_CMD_OP_DESTROY_QP,
		MLX5_CMD_OP_DESTROY_CQ, MLX5_CMD_OP_DESTROY_MKEY,
		MLX5_CMD_OP_DEALLOC_PD, MLX5_CMD_OP_DESTROY_UMEM,
		MLX5_CMD_OP_2ERR_QP, MLX5_CMD_OP_MANAGE_PAGES,
		MLX5_CMD_OP_TEARDOWN_HCA, MLX5_CMD_OP_CREATE_EQ,
	};
	uint32_t *in = (uint32_t *)scratch;
	uint16_t op = chance(8) ? rnd() : ops[rn(sizeof(ops) / 2)];
	size_t len = 16 + 4 * rn(chance(4) ? 256 : 8), olen;

	memset(scratch, 0, BUFSZ);
	DEVX_SET(general_obj_in_cmd_hdr, in, opcode, op);
	DEVX_SET(query_hca_cap_in, in, op_mod, chance(2) ? rn(64) : rnd());
	/* an object number at dword 2, where the object commands keep it */
	in[2] = htobe32(val32());
	if (op == MLX5_CMD_OP_QUERY_MKEY && chance(2))
		in[2] = htobe32(C->freed_mkey >> 8);
	len = mutate(in, len);
	olen = outlen(chance(2) ? 0x1010 : 64);
	note("op 0x%x len %zu", op, len);
	OK(!mlx5dv_devx_general_cmd(C->c, scratch, len, outbuf, olen));
}

static void m_devx_umem(void)
{
	int i = SLOT(C->um);
	struct umslot *u = &C->um[i];
	int access = rn(2) ? IBV_ACCESS_LOCAL_WRITE : (int)rn(0x400);

	if (u->um) {
		note("dereg id %u", u->um->umem_id);
		C->freed_umem = u->um->umem_id;
		if (!OK(!mlx5dv_devx_umem_dereg(u->um)) && errno == EBUSY)
			return;
		u->um = NULL;
		munmap(u->buf, u->len);
		u->buf = NULL;
		return;
	}
	u->len = 4096 * (1 + rn(8));
	u->buf = mmap(NULL, u->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->buf == MAP_FAILED) {
		u->buf = NULL;
		return;
	}
	/* lengths and offsets that lie, sometimes */
	note("reg len %zu access 0x%x", u->len, access);
	u->um = mlx5dv_devx_umem_reg(C->c, (char *)u->buf + (chance(8) ? rn(4096) : 0),
				     chance(8) ? rnd() % (1 << 24) : u->len, access);
	if (!OK(u->um)) {
		munmap(u->buf, u->len);
		u->buf = NULL;
		return;
	}
	see_id(u->um->umem_id);
	if (chance(4)) {
		note("unmapped");
		munmap(u->buf, u->len);
		u->buf = mmap(u->buf, u->len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	}
}

static void m_devx_uar(void)
{
	int i = SLOT(C->uar);
	uint32_t eqn;

	if (chance(4)) {
		note("query_eqn");
		OK(!mlx5dv_devx_query_eqn(C->c, chance(4) ? rnd() : rn(4), &eqn));
		return;
	}
	if (C->uar[i]) {
		note("free");
		mlx5dv_devx_free_uar(C->uar[i]);
		C->uar[i] = NULL;
		ok_ = 1;
		return;
	}
	C->uar[i] = mlx5dv_devx_alloc_uar(C->c, chance(4) ? rnd() :
					  MLX5DV_UAR_ALLOC_TYPE_NC);
	OK(C->uar[i]);
}

static void m_devx_events(void)
{
	static const uint16_t evnums[] = { 0x03, 0x09, 0x0, 0x1, 0x5, 0x7, 0x13 };
	int i = SLOT(C->ev);
	uint16_t ev[20];
	int n, j;

	if (!C->ev[i]) {
		C->ev[i] = mlx5dv_devx_create_event_channel(C->c,
				rn(2) ? MLX5_IB_UAPI_DEVX_CR_EV_CH_FLAGS_OMIT_DATA : 0);
		if (OK(C->ev[i]))
			fcntl(C->ev[i]->fd, F_SETFL, O_NONBLOCK);
		return;
	}
	switch (rn(4)) {
	case 0:
	case 1:
		{
		struct dobj *d = &PICK(C->dobj);

		n = chance(8) ? rn(20) : 1 + rn(3);
		for (j = 0; j < n; j++)
			ev[j] = chance(4) ? rnd() : evnums[rn(7)];
		note("subscribe n %d obj %d", n, !!d->o);
		OK(!mlx5dv_devx_subscribe_devx_event(C->ev[i], chance(2) ? d->o : NULL,
						     n * 2, ev, rnd()));
		break;
	}
	case 2:
		note("read");
		OK(mlx5dv_devx_get_event(C->ev[i], (void *)outbuf,
					 chance(4) ? rn(200) : 256) >= 0);
		break;
	default:
		note("destroy");
		mlx5dv_devx_destroy_event_channel(C->ev[i]);
		C->ev[i] = NULL;
		ok_ = 1;
	}
}

static void m_devx_async(void)
{
	int i = SLOT(C->comp);
	struct dobj *d = &PICK(C->dobj);
	struct mlx5dv_devx_async_cmd_hdr *h = (void *)outbuf;

	if (!C->comp[i]) {
		C->comp[i] = mlx5dv_devx_create_cmd_comp(C->c);
		if (OK(C->comp[i]))
			fcntl(C->comp[i]->fd, F_SETFL, O_NONBLOCK);
		return;
	}
	switch (rn(3)) {
	case 0:
		{
		size_t len;

		if (!d->o)
			return;
		len = mutate((uint32_t *)scratch, build_on(d, d->id, 0));
		note("query_async type 0x%x", d->type);
		OK(!mlx5dv_devx_obj_query_async(d->o, scratch, len,
						chance(8) ? rnd() % 100000 : 256,
						rnd(), C->comp[i]));
		break;
	}
	case 1:
		note("get");
		OK(!mlx5dv_devx_get_async_cmd_comp(C->comp[i], h,
						   chance(4) ? rn(300) : 512));
		break;
	default:
		note("destroy");
		mlx5dv_devx_destroy_cmd_comp(C->comp[i]);
		C->comp[i] = NULL;
		ok_ = 1;
	}
}

/* ---- raw commands on the uverbs file ---- */

static uint64_t any_handle(void)
{
	struct qpslot *q = any_qp();
	struct ibv_cq *cq = any_cq();
	struct mrslot *m = any_mr();

	switch (rn(6)) {
	case 0:
		return q ? q->qp->handle : rn(64);
	case 1:
		return cq ? cq->handle : rn(64);
	case 2:
		return any_pd() ? any_pd()->handle : rn(64);
	case 3:
		return m ? m->mr->handle : rn(64);
	case 4:
		return rn(64);
	default:
		return val32();
	}
}

static void fill_random(uint32_t *p, size_t words)
{
	size_t j;

	for (j = 0; j < words; j++)
		p[j] = rn(3) ? any_handle() : rnd();
}

static void m_raw_write(void)
{
	struct ib_uverbs_cmd_hdr *h = (void *)scratch;
	uint32_t cmd = chance(8) ? rnd() : rn(IB_USER_VERBS_CMD_OPEN_QP + 2);
	size_t words = chance(8) ? rn(BUFSZ / 4) : 2 + rn(40), len;
	uint64_t *resp;

	memset(scratch, 0, BUFSZ);
	fill_random((uint32_t *)(h + 1), words);
	resp = (uint64_t *)(h + 1);
	*resp = chance(8) ? rnd() : (uintptr_t)outbuf;
	if (chance(6)) {
		/* an extended command: the ex header after this one */
		struct ib_uverbs_ex_cmd_hdr *x = (void *)(h + 1);

		cmd = IB_USER_VERBS_CMD_FLAG_EXTENDED |
		      (chance(2) ? rn(IB_USER_VERBS_EX_CMD_MODIFY_CQ + 2) : rnd() & 0xff);
		x->response = chance(8) ? rnd() : (uintptr_t)outbuf;
		x->provider_in_words = rn(8);
		x->provider_out_words = rn(8);
		x->cmd_hdr_reserved = chance(8) ? rnd() : 0;
	}
	h->command = cmd;
	h->in_words = chance(6) ? rnd() : words + 2;
	h->out_words = chance(6) ? rnd() : rn(64);
	len = chance(6) ? rn(BUFSZ) : (words + 2) * 4;
	note("cmd 0x%x in_words %u len %zu", cmd, h->in_words, len);
	OK(write(C->c->cmd_fd, scratch, len) >= 0);
}

static void m_raw_ioctl(void)
{
	static const uint16_t lens[] = { 0, 4, 8, 16, 64, 256, 1024 };
	struct ib_uverbs_ioctl_hdr *h = (void *)scratch;
	unsigned int na = rn(chance(8) ? 40 : 8), j;
	uint16_t ns = chance(2) ? 1u << UVERBS_ID_NS_SHIFT : 0;

	memset(scratch, 0, BUFSZ);
	memset(outbuf, 0, 4096);
	h->object_id = chance(8) ? rnd() : ns + rn(ns ? 16 : 28);
	h->method_id = chance(8) ? rnd() : (rn(2) << UVERBS_ID_NS_SHIFT) + rn(12);
	h->num_attrs = chance(8) ? rnd() : na;
	h->length = chance(8) ? rnd() : sizeof(*h) + na * sizeof(h->attrs[0]);
	h->driver_id = chance(8) ? rnd() : RDMA_DRIVER_MLX5;
	if (chance(16))
		h->reserved1 = rnd();
	for (j = 0; j < na; j++) {
		struct ib_uverbs_attr *a = &h->attrs[j];
		unsigned int l;

		a->attr_id = chance(8) ? rnd() : (rn(2) << UVERBS_ID_NS_SHIFT) + rn(12);
		a->flags = rn(4) ? 0 : rnd() & 3;
		l = rn(5) == 0 ? rnd() & 0xffff : lens[rn(7)];
		a->len = l;
		a->attr_data.enum_data.elem_id = rn(4);
		if (l <= 8 && rn(2))
			a->data = any_handle();
		else if (chance(16))
			a->data = rnd();
		else {
			uint8_t *p = outbuf + 4096 + rn(BUFSZ - 4096 - 1024);

			fill_random((uint32_t *)p, 256);
			if (chance(3))
				DEVX_SET(general_obj_in_cmd_hdr, p, opcode,
					 0x100 + rn(0x900));
			a->data = (uintptr_t)p;
		}
	}
	/*
	 * Not drawn: GET_CONTEXT on a file that has its context. 6.12's
	 * handler frees the new context without dropping the task reference
	 * its resource-tracking entry took when ib_init_ucontext() fails
	 * before the driver (here: EINVAL), so each call leaks the caller's
	 * task_struct: ib_core's bug, the same on mlx5_ib (--ctx-leak).
	 */
	if (h->object_id == UVERBS_OBJECT_DEVICE &&
	    h->method_id == UVERBS_METHOD_GET_CONTEXT)
		h->method_id = UVERBS_METHOD_QUERY_CONTEXT;
	note("obj 0x%x method 0x%x attrs %u", h->object_id, h->method_id, na);
	OK(!ioctl(C->c->cmd_fd, RDMA_VERBS_IOCTL, h));
}

/* ---- the context itself ---- */

static int open_one(struct ctx *c)
{
	struct mlx5dv_context_attr a = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };

	memset(c, 0, sizeof(*c));
	c->c = mlx5dv_open_device(dev, &a);
	if (!c->c)
		return -1;
	c->pd[0] = ibv_alloc_pd(c->c);
	return c->pd[0] ? 0 : -1;
}

/* Closes the context with everything in it alive: the kernel unwinds it. */
static void m_reopen(void)
{
	int i;

	if (!chance(8))
		return;
	/*
	 * Forget the objects; their user memory goes with the process, and
	 * libmlx5's buffers of them (rings, doorbell records) stay in it:
	 * a long run grows by some 3 KiB a call (scripts/fuzz sizes the VM).
	 */
	for (i = 0; i < NOBJ; i++) {
		if (C->mr[i].buf)
			munmap(C->mr[i].buf, C->mr[i].len);
		if (C->um[i].buf)
			munmap(C->um[i].buf, C->um[i].len);
	}
	note("close");
	OK(!ibv_close_device(C->c));
	/*
	 * The files of its event channels and async command queues stay
	 * open past the context (their destroy calls would take its freed
	 * lock): closed here, or a long run reaches the limit of open files
	 * (session 30's did, and those calls then failed with EMFILE).
	 */
	for (i = 0; i < NOBJ; i++) {
		if (C->ch[i])
			close(C->ch[i]->fd);
		if (C->ev[i])
			close(C->ev[i]->fd);
		if (C->comp[i])
			close(C->comp[i]->fd);
	}
	if (open_one(C)) {
		fprintf(stderr, "fuzz: proc %u: cannot reopen: %s\n", me,
			strerror(errno));
		exit(2);
	}
}

/* not const: --connect sets m_connect's weight before the processes fork */
static struct method methods[] = {
	{ "query",		m_query,	2 },
	{ "alloc_pd",		m_alloc_pd,	2 },
	{ "dealloc_pd",		m_dealloc_pd,	1 },
	{ "create_cq",		m_create_cq,	4 },
	{ "cq_ops",		m_cq_ops,	4 },
	{ "destroy_cq",		m_destroy_cq,	2 },
	{ "create_qp",		m_create_qp,	5 },
	{ "modify_qp",		m_modify_qp,	8 },
	{ "query_qp",		m_query_qp,	1 },
	{ "destroy_qp",		m_destroy_qp,	2 },
	{ "post_send",		m_post_send,	6 },
	{ "post_recv",		m_post_recv,	3 },
	{ "srq",		m_srq,		3 },
	{ "reg_mr",		m_reg_mr,	3 },
	{ "dereg_mr",		m_dereg_mr,	2 },
	{ "mw",			m_mw,		2 },
	{ "ah",			m_ah,		2 },
	{ "channel",		m_channel,	2 },
	{ "raw_wqe",		m_raw_wqe,	6 },
	{ "devx_create",	m_devx_create,	8 },
	{ "devx_obj",		m_devx_obj,	8 },
	{ "devx_general",	m_devx_general,	5 },
	{ "devx_umem",		m_devx_umem,	4 },
	{ "devx_uar",		m_devx_uar,	2 },
	{ "devx_events",	m_devx_events,	3 },
	{ "devx_async",		m_devx_async,	3 },
	{ "raw_write",		m_raw_write,	5 },
	{ "raw_ioctl",		m_raw_ioctl,	6 },
	{ "create_qpx",		m_create_qpx,	4 },
	{ "mkey",		m_mkey,		3 },
	{ "wr",			m_wr,		8 },
	{ "sqd",		m_sqd,		2 },
	{ "uar_poke",		m_uar_poke,	4 },
	{ "reopen",		m_reopen,	1 },
	{ "connect",		m_connect,	0 },	/* --connect W */
};
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

static void one_call(uint64_t seed, uint64_t i)
{
	unsigned int total = 0, k, r, tries;
	char line[256];
	uint64_t stamp;
	int n;

	seed_call(seed, me, i);
	/* the order calls begin in, over all processes: for --replay */
	stamp = __atomic_fetch_add(&sh->stamp, 1, __ATOMIC_RELAXED);
	sh->curstamp[me] = stamp;
	for (k = 0; k < NMETHODS; k++)
		total += methods[k].weight;
	sh->cur[me] = i;
	/* a method with nothing to act on (no object yet) draws again */
	for (tries = 0; tries < 16; tries++) {
		r = rn(total);
		for (k = 0; r >= methods[k].weight; k++)
			r -= methods[k].weight;
		cur_m = &methods[k];
		C = &ctxs[rn(NCTX)];
		snprintf(sh->what[me], sizeof(sh->what[0]), "%s ctx %ld",
			 cur_m->name, (long)(C - ctxs));
		ok_ = 0;
		errno = 0;
		alarm(CALL_TIMEOUT);
		cur_m->fn();
		if (ok_ || errno)
			break;
	}
	__atomic_add_fetch(&sh->tried[k], 1, __ATOMIC_RELAXED);
	if (ok_)
		__atomic_add_fetch(&sh->ok[k], 1, __ATOMIC_RELAXED);
	if (jfd >= 0 || verbose) {
		n = snprintf(line, sizeof(line), "%u %llu @%llu %s -> %s\n", me,
			     (unsigned long long)i, (unsigned long long)stamp,
			     sh->what[me],
			     ok_ ? "ok" : strerror(errno));
		if (jfd >= 0 && write(jfd, line, n) < 0)
			jfd = -1;
		if (verbose)
			fputs(line, stdout);
	}
	sh->calls[me]++;
}

static void child(uint64_t seed, uint64_t calls, int unpriv, const char *jdir)
{
	struct passwd *pw;
	uint64_t i;
	int k;

	if (jdir) {
		char p[512];

		snprintf(p, sizeof(p), "%s/journal.%u", jdir, me);
		jfd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	}
	if (unpriv) {
		pw = getpwnam("nobody");
		if (!pw || setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
			fprintf(stderr, "fuzz: proc %u: cannot drop privileges\n", me);
			exit(2);
		}
	}
	for (k = 0; k < NCTX; k++)
		if (open_one(&ctxs[k])) {
			fprintf(stderr, "fuzz: proc %u: cannot open the device: %s\n",
				me, strerror(errno));
			exit(2);
		}
	for (i = 0; i < calls; i++)
		one_call(seed, i);
	sh->done[me] = 1;
	exit(0);
}

static int sim_fault_set(const char *attr, unsigned int val)
{
	char path[256];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/sys/kernel/debug/mlx5sp_sim/%s/%s",
		 ibv_get_device_name(dev), attr);
	f = fopen(path, "w");
	if (!f)
		return -1;
	err = fprintf(f, "%u\n", val) < 0;
	return fclose(f) || err ? -1 : 0;
}

/*
 * Session 17, the hostile-firmware review: a DEVX create whose output a
 * corrupted mailbox garbled kept an id that names nothing; its destroy,
 * answered "bad resource", failed for ever, and closing the context hit
 * ib_core's WARN on objects it could not destroy. Such a destroy is taken
 * as done now. Two ALLOC_PDs garbled by the model (debugfs, root): one
 * destroyed, one left to the context's close.
 */
static int regress_garbled_devx(void)
{
	uint32_t in[DEVX_ST_SZ_DW(alloc_pd_in)] = {};
	struct mlx5dv_devx_obj *o[2];
	int i;

	DEVX_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	for (i = 0; i < 2; i++) {
		if (sim_fault_set("garble_opcode", MLX5_CMD_OP_ALLOC_PD) ||
		    sim_fault_set("garble_seed", 17 + i) ||
		    sim_fault_set("garble_nth", 1)) {
			printf("fuzz: regress: model debugfs: %s\n", strerror(errno));
			return 1;
		}
		o[i] = mlx5dv_devx_obj_create(ctxs[0].c, in, sizeof(in), outbuf,
					      DEVX_ST_SZ_BYTES(alloc_pd_out));
		if (!o[i]) {
			printf("fuzz: regress: garbled DEVX ALLOC_PD: %s\n",
			       strerror(errno));
			return 1;
		}
	}
	errno = mlx5dv_devx_obj_destroy(o[0]);
	if (errno) {
		printf("fuzz: regress: destroy of a garbled DEVX PD: %s\n",
		       strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * Session 31, make fuzz seed 1795883784 (scrub_cq above): a QP flushed
 * into a CQ the application owns, destroyed with its CQEs unpolled; then a
 * QP without a send queue takes its user index. Polling the CQ must not
 * take the new QP for the old one: each CQE polls as an error. Without
 * scrub_cq() this segfaults in libmlx5; with a scrub_cq() that stops at
 * the first CQE still the device's, after the resize too.
 */
static int regress_stale_cqe(struct ctx *x)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_ERR };
	struct ibv_cq *cq = ibv_create_cq(x->c, 15, NULL, NULL, 0);
	struct ibv_qp *qp = NULL, *nosq = NULL;
	int i, n = 0, polled = 0, bad = 1;
	struct ibv_wc wc[4];
	struct mlx5dv_cq d;
	struct mlx5dv_qp dq;
	struct mlx5dv_obj o = { .cq = { .in = cq, .out = &d } };

	if (!cq || mlx5dv_init_obj(&o, MLX5DV_OBJ_CQ)) {
		printf("fuzz: regress: stale CQE: CQ: %s\n", strerror(errno));
		goto out;
	}
	a.send_cq = a.recv_cq = cq;
	qp = ibv_create_qp(x->pd[0], &a);
	if (!qp ||
	    ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ||
	    ibv_modify_qp(qp, &m, IBV_QP_STATE)) {
		printf("fuzz: regress: stale CQE: QP: %s\n", strerror(errno));
		goto out;
	}
	/*
	 * Three NOPs written into the SQ as the run did (libmlx5 posts
	 * from RTS only), flushed in ERR: three CQEs, none polled.
	 */
	o.qp.in = qp;
	o.qp.out = &dq;
	if (mlx5dv_init_obj(&o, MLX5DV_OBJ_QP) || dq.sq.wqe_cnt < 4) {
		printf("fuzz: regress: stale CQE: mlx5dv QP: %s\n",
		       strerror(errno));
		goto out;
	}
	for (i = 0; i < 3; i++)
		mlx5dv_set_ctrl_seg((void *)((char *)dq.sq.buf + i * dq.sq.stride),
				    i, MLX5_OPCODE_NOP, 0, qp->qp_num,
				    MLX5_WQE_CTRL_CQ_UPDATE, 1, 0, 0);
	__sync_synchronize();
	dq.dbrec[MLX5_SND_DBR] = htobe32(3);
	for (i = 0; i < 2000; i++) {
		if (mlx5dv_get_cqe_opcode(cqe_at(&d, 2)) != MLX5_CQE_INVALID)
			break;
		usleep(1000);
	}
	/*
	 * A resize moves them to a new ring and leaves libmlx5's consumer
	 * counter in the doorbell record one behind (make fuzz found both).
	 */
	if (ibv_resize_cq(cq, 60)) {
		printf("fuzz: regress: stale CQE: resize: %s\n", strerror(errno));
		goto out;
	}
	if (destroy_qp(qp, &n)) {
		printf("fuzz: regress: stale CQE: destroy: %s\n", strerror(errno));
		goto out;
	}
	qp = NULL;
	a.cap.max_send_wr = 0;
	a.cap.max_send_sge = 0;
	nosq = ibv_create_qp(x->pd[0], &a);
	if (!nosq) {
		printf("fuzz: regress: stale CQE: QP without SQ: %s\n",
		       strerror(errno));
		goto out;
	}
	for (i = 0; i < 8; i++) {
		int r = ibv_poll_cq(cq, 4, wc);

		if (r > 0)
			polled += r;
	}
	if (n != 3 || polled) {
		printf("fuzz: regress: stale CQE: %d CQEs cleaned (3 expected), %d polled as completions (0 expected)\n",
		       n, polled);
		goto out;
	}
	bad = 0;
out:
	if (nosq)
		ibv_destroy_qp(nosq);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	return bad;
}

/*
 * Replays of what runs found, checked for their result: --regress.
 * Seed 7, proc 1, call ~16650 (stock kernel, 3 processes): DEVX
 * CREATE_CQ/CREATE_QP with an input shorter than the layout had the
 * driver set the umem-valid bits beyond the end of the copied command (a
 * slab redzone overwritten; without slub_debug, a neighbouring key's MTT
 * pointer, freed later: an oops in sim_mkey_free_rcu). Refused now.
 */
static int regress(void)
{
	static const struct {
		uint16_t op;
		size_t full;
	} cmds[] = {
		{ MLX5_CMD_OP_CREATE_CQ, DEVX_ST_SZ_BYTES(create_cq_in) },
		{ MLX5_CMD_OP_CREATE_QP, DEVX_ST_SZ_BYTES(create_qp_in) },
		{ MLX5_CMD_OP_CREATE_MKEY, DEVX_ST_SZ_BYTES(create_mkey_in) },
	};
	size_t lens[3];
	int bad = 0, i, j;

	if (open_one(&ctxs[0]))
		return 2;
	for (i = 0; i < 3; i++) {
		lens[0] = 16;
		lens[1] = cmds[i].full / 2;
		lens[2] = cmds[i].full - 4;
		for (j = 0; j < 3; j++) {
			struct mlx5dv_devx_obj *o;

			memset(scratch, 0, BUFSZ);
			DEVX_SET(general_obj_in_cmd_hdr, scratch, opcode, cmds[i].op);
			o = mlx5dv_devx_obj_create(ctxs[0].c, scratch, lens[j],
						   outbuf, 256);
			if (o || errno != EINVAL) {
				printf("fuzz: regress: op 0x%x with %zu of %zu bytes: %s\n",
				       cmds[i].op, lens[j], cmds[i].full,
				       o ? "created" : strerror(errno));
				bad = 1;
				if (o)
					mlx5dv_devx_obj_destroy(o);
			}
		}
	}
	bad |= regress_garbled_devx();
	bad |= regress_stale_cqe(&ctxs[0]);
	ibv_close_device(ctxs[0].c);
	printf("fuzz: regress: %s\n", bad ? "FAIL" :
	       "short DEVX creates refused, garbled ids destroyed, a destroyed QP's CQEs cleaned");
	return bad;
}

/*
 * The 10^6 run of session 21 (seed 1795763318) ended with one fuzz
 * process's task_struct leaked (kmemleak), from raw ioctls issuing
 * GET_CONTEXT on a file that had its context (m_raw_ioctl). --ctx-leak N
 * replays it: N processes each open DEV and issue that ioctl once, which
 * must fail with EINVAL, and the task_struct objects the slab holds are
 * counted before and after (/proc/slabinfo, root; approximate: objects
 * free in per-CPU slabs count as in use). Not on a kernel with kmemleak:
 * the leaked tasks would fail its run.
 */
static long task_structs(void)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];
	long n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "task_struct %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/*
 * N processes each issue METHOD once on a context's file, with no
 * attributes: the task_struct slab's growth over them.
 */
static long ctx_round(int n, uint16_t method, int *bad)
{
	long before = task_structs();
	int i;

	for (i = 0; i < n; i++) {
		pid_t p = fork();
		int st;

		if (p < 0)
			return 0;
		if (!p) {
			struct {
				struct ib_uverbs_ioctl_hdr h;
				struct ib_uverbs_attr a[1];
			} b = {};
			struct ibv_context *c = ibv_open_device(dev);
			int r;

			if (!c)
				_exit(2);
			b.h.length = sizeof(b.h);
			b.h.object_id = UVERBS_OBJECT_DEVICE;
			b.h.method_id = method;
			b.h.driver_id = RDMA_DRIVER_MLX5;
			r = ioctl(c->cmd_fd, RDMA_VERBS_IOCTL, &b);
			/* the control's answer does not matter */
			if (method == UVERBS_METHOD_GET_CONTEXT &&
			    (!r || errno != EINVAL)) {
				printf("fuzz: ctx-leak: method %u: %s\n", method,
				       r ? strerror(errno) : "succeeded");
				_exit(1);
			}
			ibv_close_device(c);
			_exit(0);
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
			*bad = 1;
	}
	/* exited tasks are freed after an RCU grace period */
	sleep(2);
	return task_structs() - before;
}

static int ctx_leak(int n)
{
	int bad = 0;
	long control = ctx_round(n, UVERBS_METHOD_QUERY_CONTEXT, &bad);
	long leak = ctx_round(n, UVERBS_METHOD_GET_CONTEXT, &bad);

	printf("fuzz: ctx-leak: %d processes, a second GET_CONTEXT ioctl each: %s; task_struct objects %+ld (after a QUERY_CONTEXT each instead: %+ld)\n",
	       n, bad ? "FAIL" : "EINVAL each", leak, control);
	return bad;
}

/*
 * --replay DIR: the calls of DIR/journal.* (and DIR/inflight, the calls
 * the processes were in when the run failed) in the order they began
 * (their stamps), made by this one process, each with the state of the
 * process it came from (its contexts and what lives in them): an
 * interleaving of several processes, under gdb or strace. Not replayed:
 * timing (a call of one process during another's is made after it), the
 * credentials (all run as the caller), and the numbers the kernel gives
 * objects (the draws that take numbers seen, val32(), may differ). The
 * journals must be whole: from call 0 of each process.
 */
struct rcall {
	uint64_t stamp, i;
	unsigned int p;
};

static int rcall_cmp(const void *a, const void *b)
{
	const struct rcall *x = a, *y = b;

	return x->stamp < y->stamp ? -1 : x->stamp > y->stamp;
}

static int replay_journals(const char *dir, uint64_t seed)
{
	uint64_t next[MAXPROCS] = {}, made = 0;
	struct rcall *v = NULL, *nv;
	size_t n = 0, cap = 0, j;
	int opened[MAXPROCS] = {}, k, procs = 0;
	struct dirent *e;
	char p[1024], line[512];
	DIR *d = opendir(dir);

	if (!d) {
		fprintf(stderr, "fuzz: replay: %s: %s\n", dir, strerror(errno));
		return 2;
	}
	while ((e = readdir(d))) {
		unsigned long long i, st;
		unsigned int pr;
		FILE *f;

		if (strncmp(e->d_name, "journal.", 8) &&
		    strcmp(e->d_name, "inflight"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%u %llu @%llu", &pr, &i, &st) != 3 ||
			    pr >= MAXPROCS)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					return 2;
				v = nv;
			}
			v[n].stamp = st;
			v[n].i = i;
			v[n++].p = pr;
		}
		if (f)
			fclose(f);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), rcall_cmp);
	for (j = 0; j < n; j++) {
		struct rcall *c = &v[j];

		if (c->i < next[c->p])
			continue;	/* in the journal and in flight */
		if (c->i != next[c->p]) {
			fprintf(stderr, "fuzz: replay: proc %u: call %llu after %llu: the journal is not whole\n",
				c->p, (unsigned long long)c->i,
				(unsigned long long)next[c->p]);
			return 2;
		}
		next[c->p]++;
		for (k = 0; !opened[c->p] && k < NCTX; k++)
			if (open_one(&allctx[c->p][k])) {
				fprintf(stderr, "fuzz: replay: cannot open the device: %s\n",
					strerror(errno));
				return 2;
			}
		procs += !opened[c->p];
		opened[c->p] = 1;
		me = c->p;
		ctxs = allctx[me];
		freed_lkeys = allfreed[me];
		one_call(seed, c->i);
		made++;
	}
	free(v);
	printf("fuzz: replay: %llu calls of %d processes, in the order they began (see the kernel log), seed %llu\n",
	       (unsigned long long)made, procs, (unsigned long long)seed);
	return 0;
}

static const char *const reports[] = {
	"WARNING:", "BUG:", "KASAN", "Oops", "general protection",
	"possible circular", "possible recursive", "inconsistent lock",
	"kmemleak", "UBSAN", "refcount_t", "list_add corruption",
	"list_del corruption", "hung task", "soft lockup", "RCU stall",
	"Call Trace",
};

/* Kernel log lines since the start that are reports; 1 if one came. */
static int kmsg_scan(int fd)
{
	char rec[8192];
	int found = 0;
	ssize_t n;
	size_t k;

	if (fd < 0)
		return 0;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		for (k = 0; k < sizeof(reports) / sizeof(reports[0]); k++)
			if (strstr(rec, reports[k])) {
				char *msg = strchr(rec, ';');

				printf("fuzz: kernel report: %s", msg ? msg + 1 : rec);
				found = 1;
				break;
			}
	}
	return found;
}

/* The parent's progress line: the call each process is in. */
static void progress(int first, int procs)
{
	int k;

	printf("fuzz: progress:");
	for (k = first; k < first + procs; k++)
		printf(" proc %d at call %llu", k, (unsigned long long)sh->cur[k]);
	printf("\n");
	fflush(stdout);
}

static void failed(const char *dev_name, uint64_t seed, int first, int procs,
		   int unpriv, uint64_t calls, const char *jdir, const char *why)
{
	char p[512], cw[32] = "";
	FILE *f = NULL;
	int k;

	if (connect_weight)
		snprintf(cw, sizeof(cw), " --connect %u", connect_weight);

	printf("fuzz: FAIL (%s), seed %llu\n", why, (unsigned long long)seed);
	if (jdir) {
		snprintf(p, sizeof(p), "%s/replay.sh", jdir);
		f = fopen(p, "w");
		if (f)
			fprintf(f, "#!/bin/sh\n# fuzz_verbs %s --seed %llu --procs %d --calls %llu: %s\n",
				dev_name, (unsigned long long)seed, procs,
				(unsigned long long)calls, why);
	}
	if (jdir) {
		FILE *fi;

		snprintf(p, sizeof(p), "%s/inflight", jdir);
		fi = fopen(p, "w");
		for (k = first; fi && k < first + procs; k++)
			if (!sh->done[k])
				fprintf(fi, "%d %llu @%llu %s (in flight)\n", k,
					(unsigned long long)sh->cur[k],
					(unsigned long long)sh->curstamp[k],
					sh->what[k]);
		if (fi)
			fclose(fi);
	}
	for (k = first; k < first + procs; k++) {
		const char *u = unpriv == 1 ||
				(unpriv < 0 && procs > 1 && k == first + procs - 1) ?
				" --unpriv" : "";

		if (sh->done[k])
			continue;
		printf("fuzz: proc %d at call %llu: %s\n", k,
		       (unsigned long long)sh->cur[k], sh->what[k]);
		printf("fuzz: replay: fuzz_verbs %s --seed %llu --procs 1 --proc %d%s%s --calls %llu\n",
		       dev_name, (unsigned long long)seed, k, u, cw,
		       (unsigned long long)sh->cur[k] + 1);
		if (f)
			fprintf(f, "# proc %d at call %llu: %s\n%s %s --seed %llu --procs 1 --proc %d%s%s --calls %llu\n",
				k, (unsigned long long)sh->cur[k], sh->what[k],
				"${FUZZ_VERBS:-fuzz_verbs}", dev_name,
				(unsigned long long)seed, k, u, cw,
				(unsigned long long)sh->cur[k] + 1);
	}
	if (f) {
		/* all processes' calls in one, in the order they began */
		fprintf(f, "# all processes in one, in the order their calls began (journals, inflight):\n%s %s --seed %llu --procs %d%s --replay \"$(dirname \"$0\")\"\n",
			"${FUZZ_VERBS:-fuzz_verbs}", dev_name,
			(unsigned long long)seed, procs, cw);
		fclose(f);
		snprintf(p, sizeof(p), "%s/replay.sh", jdir);
		printf("fuzz: replay program: %s\n", p);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", 1, NULL, 's' }, { "calls", 1, NULL, 'c' },
		{ "procs", 1, NULL, 'p' }, { "proc", 1, NULL, 'P' },
		{ "journal", 1, NULL, 'j' }, { "unpriv", 0, NULL, 'u' },
		{ "verbose", 0, NULL, 'v' }, { "regress", 0, NULL, 'r' },
		{ "ctx-leak", 1, NULL, 'L' }, { "connect", 1, NULL, 'C' },
		{ "replay", 1, NULL, 'R' }, {},
	};
	uint64_t seed = time(NULL), calls = 10000, total = 0;
	int procs = 1, first = 0, unpriv = -1, o, k, bad = 0, kfd, alive;
	unsigned int ticks = 0;
	int regress_only = 0, leak_procs = 0;
	const char *jdir = NULL, *dev_name, *rdir = NULL;
	struct ibv_device **list;
	unsigned int distinct = 0, reached = 0;
	pid_t pids[MAXPROCS];
	char why[128] = "";

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			calls = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'P':
			first = atoi(optarg);
			break;
		case 'j':
			jdir = optarg;
			break;
		case 'u':
			unpriv = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'r':
			regress_only = 1;
			break;
		case 'L':
			leak_procs = atoi(optarg);
			break;
		case 'R':
			rdir = optarg;
			break;
		case 'C':
			connect_weight = atoi(optarg);
			for (k = 0; k < (int)NMETHODS; k++)
				if (methods[k].fn == m_connect)
					methods[k].weight = connect_weight;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || procs < 1 || procs > MAXPROCS ||
	    first < 0 || first + procs > MAXPROCS) {
usage:
		fprintf(stderr, "usage: fuzz_verbs DEV [--seed N] [--calls N] [--procs N] [--proc P] [--unpriv] [--journal DIR] [--verbose] [--regress] [--ctx-leak N] [--connect W] [--replay DIR]\n");
		return 2;
	}
	dev_name = argv[optind];
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(NULL);
	for (k = 0; list && list[k]; k++)
		if (!strcmp(ibv_get_device_name(list[k]), dev_name))
			dev = list[k];
	if (!dev) {
		fprintf(stderr, "fuzz: no device %s\n", dev_name);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	scratch = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	outbuf = mmap(NULL, OUTSZ + 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || scratch == MAP_FAILED || outbuf == MAP_FAILED ||
	    mprotect(outbuf + OUTSZ, 4096, PROT_NONE))
		return 2;
	nprocs = procs;
	if (regress_only)
		return regress();
	if (leak_procs > 0)
		return ctx_leak(leak_procs);
	if (rdir)
		return replay_journals(rdir, seed);
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	printf("fuzz: seed %llu, %llu calls, %d processes on %s\n",
	       (unsigned long long)seed, (unsigned long long)calls, procs, dev_name);

	for (k = 0; k < procs; k++) {
		pids[k] = fork();
		if (pids[k] < 0)
			return 2;
		if (!pids[k]) {
			me = first + k;
			child(seed, calls / procs + (k < (int)(calls % procs)),
			      unpriv == 1 || (unpriv < 0 && procs > 1 && k == procs - 1),
			      jdir);
		}
	}
	/* the parent: watch the kernel log until every process is done */
	for (alive = procs; alive;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p == 0) {
			if (kmsg_scan(kfd) && !bad) {
				bad = 1;
				snprintf(why, sizeof(why), "kernel report");
			}
			usleep(100000);
			/* where each process is, should the kernel die */
			if (++ticks % PROGRESS_TICKS == 0)
				progress(first, procs);
			continue;
		}
		if (p < 0)
			break;
		alive--;
		for (k = 0; k < procs && pids[k] != p; k++)
			;
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		if (!bad) {
			bad = 1;
			if (WIFSIGNALED(st))
				snprintf(why, sizeof(why), "proc %d killed by signal %d%s",
					 first + k, WTERMSIG(st),
					 WTERMSIG(st) == SIGALRM ? " (a call hung)" : "");
			else
				snprintf(why, sizeof(why), "proc %d exit %d", first + k,
					 WEXITSTATUS(st));
		}
		/* the others' calls are not at fault; keep their places */
	}
	if (kmsg_scan(kfd) && !bad) {
		bad = 1;
		snprintf(why, sizeof(why), "kernel report");
	}
	if (bad) {
		/* the failed process's place was kept: it is not done */
		failed(dev_name, seed, first, procs, unpriv, calls, jdir, why);
	}
	for (k = 0; k < MAXPROCS; k++)
		total += sh->calls[k];
	for (k = 0; k < (int)NMETHODS; k++) {
		if (!methods[k].weight && !sh->tried[k])
			continue;
		distinct += !!sh->tried[k];
		reached += !!sh->ok[k];
		printf("fuzz: %-14s %8llu calls, %8llu succeeded\n",
			       methods[k].name, (unsigned long long)sh->tried[k],
			       (unsigned long long)sh->ok[k]);
	}
	printf("fuzz: %llu calls, %u distinct methods (%u succeeded), %d kernel reports, seed %llu\n",
	       (unsigned long long)total, distinct, reached, bad && !strcmp(why, "kernel report"),
	       (unsigned long long)seed);
	return bad ? 1 : 0;
}
