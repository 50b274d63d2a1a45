// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sig_pipeline: signature pipelining from user space, walked with raw
 * ibv_* / mlx5dv_* calls the way mlx5dv_qp_cancel_posted_send_wrs(3)
 * describes it, between two devices (a target and an initiator).
 *
 * The target's QP is created with MLX5DV_QP_CREATE_SIG_PIPELINING. A
 * transaction is an RDMA WRITE of protected blocks through a signature
 * MKEY (memory domain T10-DIF, CRC32 or CRC32C; wire domain none or
 * T10-DIF) followed by a signalled SEND response posted with
 * IBV_SEND_FENCE, either in pairs (W0 S0 W1 S1 ...) or batched (W0 W1 ...
 * S0 S1 ...). Signature errors come from the model's sig_inject (guard,
 * app tag, ref tag) and from a bad guard really written into memory, with
 * the model's run-on (sig_runon) 0, 1 or several, so that several errors
 * may happen before the stop and the failing WR need not be the last.
 *
 * Checked per scenario: one IBV_EVENT_SQ_DRAINED per expected stop, the
 * QP in SQD then; mlx5dv_mkey_check reports exactly the bad transactions
 * with the right type, expected and actual value and offset (and no error
 * for the good ones); mlx5dv_qp_cancel_posted_send_wrs cancels exactly
 * their responses (one each), which complete good (or flushed when the QP
 * goes to ERR) and never reach the initiator; every good response arrives
 * once, with its data; SQD->RTS (IBV_QP_CUR_STATE) works and the QP
 * carries the next scenario. Error cases: cancel on a QP in RTS fails,
 * cancel of an unknown WR ID returns 0, QP to ERR with a response
 * cancelled flushes it. Then the good path of T10-DIF insert (memory none,
 * wire T10-DIF) and strip (memory T10-DIF, wire none) in every block size:
 * the data and the PI bytes.
 *
 * Last, with the target's ACKs late (the model's ack_delay_us): a WRITE
 * completes no earlier than the delay, after the initiator already has
 * the SEND posted behind it; RTS->SQD and QP to ERR complete what waits
 * for its ACK at once (SQ_DRAINED after it); and scenarios run again with
 * every completion 2 ms behind the responses it covers.
 *
 *   sig_pipeline TARGET_DEV INITIATOR_DEV
 *	exit 0: all passed; 1: a check failed (each check prints a line)
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "roce.h"

#define BUF_SIZE	(1 << 20)
#define RESP_LEN	32
#define NR_RECV		64
#define MAX_TXN		8
#define TIMEOUT_MS	15000
#define QUIET_MS	300
#define APP_TAG		0x5a5a

#define WRID_CONF	(1ULL << 60)
#define WRID_DATA	(2ULL << 60)
#define WRID_RESP	(3ULL << 60)
#define WRID_ACK	(4ULL << 60)
#define ACK_DELAY_MS	200
/*
 * The ACK delay of the steps that prove a completion came with a QP's
 * move out of RTS, not with the delay: longer than any such move takes
 * (one took 472 ms on a debug kernel beside two busy guests)
 */
#define ACK_HOLD_MS	5000
#define WRID_KIND(x)	((x) & (0xfULL << 60))
#define WRID_IDX(x)	((unsigned int)((x) & 0xffff))
#define WRID_ROUND(x)	((unsigned int)(((x) >> 16) & 0xffff))

static void fatal(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, strerror(err));
	printf("sig_pipeline: %d passed, %d failed (stopped early)\n", passes,
	       failures + 1);
	exit(1);
}

/* ---- protection information, computed here ----------------------------- */

static uint16_t t10dif_tab[256];
static uint32_t crc32_tab[256], crc32c_tab[256];

static void crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		c = i << 8;
		for (k = 0; k < 8; k++)
			c = c & 0x8000 ? (c << 1) ^ 0x8bb7 : c << 1;
		t10dif_tab[i] = c;
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320 : c >> 1;
		crc32_tab[i] = c;
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
		crc32c_tab[i] = c;
	}
}

/* T10-DIF guard: CRC16 0x8bb7, not reflected, seed 0. */
static uint16_t crc_t10dif(const unsigned char *p, size_t len)
{
	uint16_t crc = 0;

	while (len--)
		crc = (crc << 8) ^ t10dif_tab[((crc >> 8) ^ *p++) & 0xff];
	return crc;
}

/* CRC32 / CRC32C, reflected, seed and final XOR all ones. */
static uint32_t crc32_any(const uint32_t *tab, const unsigned char *p,
			  size_t len)
{
	uint32_t crc = 0xffffffff;

	while (len--)
		crc = (crc >> 8) ^ tab[(crc ^ *p++) & 0xff];
	return crc ^ 0xffffffff;
}

enum memsig { MEM_NONE, MEM_DIF, MEM_CRC32, MEM_CRC32C };

static const char *const memsig_name[] = {
	"none", "T10-DIF", "CRC32", "CRC32C",
};

static unsigned int pi_size(enum memsig s)
{
	return s == MEM_NONE ? 0 : s == MEM_DIF ? 8 : 4;
}

/* The guard of a block as the PI field holds it. */
static uint32_t guard_of(enum memsig s, const unsigned char *p, size_t len)
{
	switch (s) {
	case MEM_DIF:
		return crc_t10dif(p, len);
	case MEM_CRC32:
		return crc32_any(crc32_tab, p, len);
	case MEM_CRC32C:
		return crc32_any(crc32c_tab, p, len);
	default:
		return 0;
	}
}

/* Fill @nblk blocks of @bs data + PI at @p; ref tags from @ref. */
static void format_blocks(unsigned char *p, enum memsig s, unsigned int bs,
			  unsigned int nblk, uint32_t ref, unsigned int seed)
{
	unsigned int b, i, pis = pi_size(s);
	unsigned char *blk;
	uint32_t v;

	for (b = 0; b < nblk; b++) {
		blk = p + (size_t)b * (bs + pis);
		for (i = 0; i < bs; i++)
			blk[i] = (unsigned char)(seed * 31 + b * 7 + i * 13 + (i >> 8));
		v = guard_of(s, blk, bs);
		if (s == MEM_DIF) {
			blk[bs] = v >> 8;
			blk[bs + 1] = v;
			blk[bs + 2] = APP_TAG >> 8;
			blk[bs + 3] = APP_TAG & 0xff;
			v = htonl(ref + b);
			memcpy(blk + bs + 4, &v, 4);
		} else if (s != MEM_NONE) {
			v = htonl(v);
			memcpy(blk + bs, &v, 4);
		}
	}
}

static uint32_t get_be(const unsigned char *p, int n)
{
	uint32_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* ---- devices, QPs ------------------------------------------------------ */

struct end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct mlx5dv_qp_ex *dvqp;
	struct ibv_mr *mr;
	unsigned char *buf;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

static struct end tgt, ini;
static char dbgdir[256];
static unsigned int round_no;

static void open_end(struct end *e, const char *name, int devx)
{
	struct mlx5dv_context_attr dv = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		fatal("ibv_get_device_list", errno);
	e->name = name;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			e->ctx = devx ? mlx5dv_open_device(list[i], &dv) :
					ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!e->ctx)
		fatal(name, errno ? errno : ENODEV);
	e->gid_index = roce_port_gid(e->ctx, &e->gid, &e->mtu);
	if (e->gid_index < 0)
		fatal("no GID", ENOENT);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 512, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		fatal("ibv_alloc_pd/ibv_create_cq", errno);
	if (posix_memalign((void **)&e->buf, 4096, BUF_SIZE))
		fatal("posix_memalign", ENOMEM);
	memset(e->buf, 0, BUF_SIZE);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!e->mr)
		fatal("ibv_reg_mr", errno);
}

static void create_qps(void)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 128, .max_recv_wr = NR_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 256 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
			     MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.create_flags = MLX5DV_QP_CREATE_SIG_PIPELINING |
				MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = NR_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	qa.pd = tgt.pd;
	qa.send_cq = tgt.cq;
	qa.recv_cq = tgt.cq;
	tgt.qp = mlx5dv_create_qp(tgt.ctx, &qa, &dqa);
	check(tgt.qp != NULL, "mlx5dv_create_qp with MLX5DV_QP_CREATE_SIG_PIPELINING (%s)",
	      tgt.qp ? "ok" : strerror(errno));
	if (!tgt.qp)
		fatal("mlx5dv_create_qp", errno);
	tgt.qpx = ibv_qp_to_qp_ex(tgt.qp);
	tgt.dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(tgt.qpx);
	ia.send_cq = ini.cq;
	ia.recv_cq = ini.cq;
	ini.qp = ibv_create_qp(ini.pd, &ia);
	if (!ini.qp)
		fatal("ibv_create_qp (initiator)", errno);
}

static int modify(struct end *e, enum ibv_qp_state state, struct end *peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE;
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE |
				     IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
	case IBV_QPS_RTR:
		a.path_mtu = e->mtu < peer->mtu ? e->mtu : peer->mtu;
		a.dest_qp_num = peer->qp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer->gid;
		a.ah_attr.grh.sgid_index = e->gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	default:
		return ibv_modify_qp(e->qp, &a, IBV_QP_STATE);
	}
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

static unsigned char *resp_slot(unsigned int i)
{
	return ini.buf + BUF_SIZE - (size_t)NR_RECV * RESP_LEN +
	       (size_t)i * RESP_LEN;
}

static void post_recv(unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)resp_slot(i),
		.length = RESP_LEN,
		.lkey = ini.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	memset(resp_slot(i), 0, RESP_LEN);
	errno = ibv_post_recv(ini.qp, &wr, &bad);
	if (errno)
		fatal("ibv_post_recv", errno);
}

static void connect_qps(void)
{
	unsigned int i;

	errno = modify(&tgt, IBV_QPS_INIT, NULL);
	if (!errno)
		errno = modify(&ini, IBV_QPS_INIT, NULL);
	if (errno)
		fatal("modify to INIT", errno);
	for (i = 0; i < NR_RECV; i++)
		post_recv(i);
	errno = modify(&tgt, IBV_QPS_RTR, &ini);
	if (!errno)
		errno = modify(&ini, IBV_QPS_RTR, &tgt);
	if (!errno)
		errno = modify(&tgt, IBV_QPS_RTS, NULL);
	if (!errno)
		errno = modify(&ini, IBV_QPS_RTS, NULL);
	if (errno)
		fatal("connect", errno);
}

/* ---- the model's debugfs ------------------------------------------------ */

static int dbg_write(const char *file, const char *val)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dbgdir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = errno ? errno : EIO;
	close(fd);
	return ret;
}

/* How often sig_inject fired so far ("... fired=N"); -1 if unreadable. */
static int inject_fired(void)
{
	char path[512], buf[256] = "";
	const char *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sig_inject", dbgdir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	p = strstr(buf, "fired=");
	return p ? atoi(p + 6) : -1;
}

static void set_runon(int runon)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", runon);
	errno = dbg_write("sig_runon", v);
	if (errno)
		fatal("sig_runon", errno);
}

/* ---- signature MKEYs ---------------------------------------------------- */

enum bad { OK, INJ_GUARD, INJ_APPTAG, INJ_REFTAG, MEM_GUARD };

static const char *const bad_name[] = {
	"good", "injected guard", "injected apptag", "injected reftag",
	"bad guard in memory",
};

static const char *err_name(enum mlx5dv_mkey_err_type t)
{
	switch (t) {
	case MLX5DV_MKEY_NO_ERR:
		return "none";
	case MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD:
		return "guard";
	case MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG:
		return "apptag";
	case MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG:
		return "reftag";
	}
	return "?";
}

static struct mlx5dv_mkey *sig_mkey_create(void)
{
	struct mlx5dv_mkey_init_attr ma = {
		.pd = tgt.pd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 1,
	};

	return mlx5dv_create_mkey(&ma);
}

static enum mlx5dv_block_size bs_enum(unsigned int bs)
{
	switch (bs) {
	case 520:
		return MLX5DV_BLOCK_SIZE_520;
	case 4048:
		return MLX5DV_BLOCK_SIZE_4048;
	case 4096:
		return MLX5DV_BLOCK_SIZE_4096;
	case 4160:
		return MLX5DV_BLOCK_SIZE_4160;
	default:
		return MLX5DV_BLOCK_SIZE_512;
	}
}

/* The next completion on @cq (1), or 0 after the timeout. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now_ms() + TIMEOUT_MS;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			fatal("ibv_poll_cq", EIO);
		if (n)
			return 1;
	} while (now_ms() < end);
	return 0;
}

/*
 * Configure @mkey over @len bytes at @addr of the target's MR: memory
 * domain @mem (or none), wire domain T10-DIF when @wire_dif, block size
 * @bs, ref tags from @ref. Waits for the completion (IBV_WC_DRIVER1).
 */
static int sig_mkey_configure(struct mlx5dv_mkey *mkey, unsigned char *addr,
			      uint32_t len, enum memsig mem, int wire_dif,
			      unsigned int bs, uint32_t ref)
{
	struct mlx5dv_sig_t10dif dif = {
		.bg_type = MLX5DV_SIG_T10DIF_CRC, .bg = 0,
		.app_tag = APP_TAG, .ref_tag = ref,
		.flags = MLX5DV_SIG_T10DIF_FLAG_REF_REMAP,
	};
	struct mlx5dv_sig_crc crc = {
		.type = mem == MEM_CRC32C ? MLX5DV_SIG_CRC_TYPE_CRC32C :
					    MLX5DV_SIG_CRC_TYPE_CRC32,
		.seed = 0xffffffff,
	};
	struct mlx5dv_sig_block_domain mdom = {
		.block_size = bs_enum(bs),
	}, wdom = {
		.sig_type = MLX5DV_SIG_TYPE_T10DIF, .sig.dif = &dif,
		.block_size = bs_enum(bs),
	};
	struct mlx5dv_sig_block_attr sig = {};
	struct mlx5dv_mkey_conf_attr conf = {
		.conf_flags = MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR,
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = tgt.mr->lkey,
	};
	struct ibv_wc wc;
	int ret;

	if (mem == MEM_DIF) {
		mdom.sig_type = MLX5DV_SIG_TYPE_T10DIF;
		mdom.sig.dif = &dif;
		sig.check_mask = MLX5DV_SIG_MASK_T10DIF_GUARD |
				 MLX5DV_SIG_MASK_T10DIF_APPTAG |
				 MLX5DV_SIG_MASK_T10DIF_REFTAG;
	} else if (mem != MEM_NONE) {
		mdom.sig_type = MLX5DV_SIG_TYPE_CRC;
		mdom.sig.crc = &crc;
		sig.check_mask = MLX5DV_SIG_MASK_CRC32;
	}
	sig.mem = mem == MEM_NONE ? NULL : &mdom;
	sig.wire = wire_dif ? &wdom : NULL;

	ibv_wr_start(tgt.qpx);
	tgt.qpx->wr_id = WRID_CONF;
	tgt.qpx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	mlx5dv_wr_mkey_configure(tgt.dvqp, mkey, 3, &conf);
	mlx5dv_wr_set_mkey_access_flags(tgt.dvqp, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(tgt.dvqp, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(tgt.dvqp, &sig);
	ret = ibv_wr_complete(tgt.qpx);
	if (ret)
		return ret;
	if (!wait_wc(tgt.cq, &wc))
		return ETIMEDOUT;
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != WRID_CONF ||
	    wc.opcode != IBV_WC_DRIVER1) {
		printf("    configure completion: wr_id 0x%llx status %s opcode %d\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.opcode);
		return EIO;
	}
	return 0;
}

/* ---- async events -------------------------------------------------------- */

/* The next async event within @ms (1), 0 if none; acked here. */
static int get_event(int ms, struct ibv_async_event *out)
{
	struct pollfd pfd = { .fd = tgt.ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	if (ibv_get_async_event(tgt.ctx, &ev))
		return 0;
	*out = ev;
	ibv_ack_async_event(&ev);
	return 1;
}

/* ---- pipelining scenarios ---------------------------------------------- */

struct scenario {
	const char *name;
	enum memsig mem;
	int wire_dif;
	int batched;		/* W0..Wn-1 S0..Sn-1, else W0 S0 W1 S1 ... */
	int runon;
	unsigned int n;
	enum bad bad[MAX_TXN];
	unsigned int stops;	/* SQ_DRAINED events expected */
	int to_err;		/* at the first stop: cancel, then QP to ERR */
};

#define NBLK	2		/* blocks a transaction, 512 bytes each */
#define BS	512

struct txn {
	struct mlx5dv_mkey *mkey;
	enum bad bad;
	unsigned char *disk;	/* target memory: data + PI */
	unsigned char *dst;	/* initiator memory */
	uint32_t ref;
	uint32_t mem_len, wire_len;
	int open;		/* response not yet completed nor cancelled */
	int found_bad;		/* mlx5dv_mkey_check reported an error */
	int canceled;
	int resp_wcs;		/* completions of the response */
	enum ibv_wc_status resp_status;
	enum ibv_wc_opcode resp_opcode;
	int received;		/* responses the initiator got */
	int data_ok;
};

static struct mlx5dv_mkey *mkeys[MAX_TXN];
static struct txn txns[MAX_TXN];

static uint64_t wrid(uint64_t kind, unsigned int i)
{
	return kind | (uint64_t)round_no << 16 | i;
}

/* What mlx5dv_mkey_check must say about a bad transaction. */
static void expected_err(const struct scenario *sc, const struct txn *t,
			 struct mlx5dv_mkey_err *e)
{
	unsigned int pis = pi_size(sc->mem);
	const unsigned char *pi0 = t->disk + BS;
	const unsigned char *pi1 = t->disk + (BS + pis) + BS;
	uint32_t g;

	memset(e, 0, sizeof(*e));
	switch (t->bad) {
	case INJ_GUARD:
		/* the device's guard differs in bit 0; block 0 */
		e->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD;
		e->err.sig.expected_value = get_be(pi0, sc->mem == MEM_DIF ? 2 : 4);
		e->err.sig.actual_value = e->err.sig.expected_value ^ 1;
		break;
	case INJ_APPTAG:
		e->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG;
		e->err.sig.expected_value = APP_TAG;
		e->err.sig.actual_value = APP_TAG ^ 1;
		break;
	case INJ_REFTAG:
		e->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG;
		e->err.sig.expected_value = t->ref;
		e->err.sig.actual_value = t->ref ^ 1;
		break;
	case MEM_GUARD:
		/* block 1's guard was corrupted in memory */
		e->err_type = MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD;
		g = guard_of(sc->mem, t->disk + BS + pis, BS);
		e->err.sig.expected_value = get_be(pi1, sc->mem == MEM_DIF ? 2 : 4);
		e->err.sig.actual_value = g;
		e->err.sig.offset = BS + pis;
		break;
	default:
		break;
	}
}

static void corrupt_guard(const struct scenario *sc, struct txn *t)
{
	/* the guard's first byte of block 1 */
	t->disk[(BS + pi_size(sc->mem)) + BS] ^= 0x01;
}

static void handle_target_wc(const struct scenario *sc, const struct ibv_wc *wc)
{
	unsigned int i = WRID_IDX(wc->wr_id);
	struct mlx5dv_mkey_err err;
	struct txn *t;
	int ret;

	if (WRID_ROUND(wc->wr_id) != round_no || i >= sc->n) {
		check(0, "[%s] completion of another round: wr_id 0x%llx %s",
		      sc->name, (unsigned long long)wc->wr_id,
		      ibv_wc_status_str(wc->status));
		return;
	}
	t = &txns[i];
	switch (WRID_KIND(wc->wr_id)) {
	case WRID_RESP:
		t->resp_wcs++;
		t->resp_status = wc->status;
		t->resp_opcode = wc->opcode;
		if (!t->open)
			return;	/* cancelled: checked at the end */
		t->open = 0;
		if (wc->status != IBV_WC_SUCCESS)
			return;	/* checked at the end */
		/* its fenced response went: the transfer passed */
		ret = mlx5dv_mkey_check(t->mkey, &err);
		check(!ret && err.err_type == MLX5DV_MKEY_NO_ERR && t->bad == OK,
		      "[%s] txn %u (%s): response completed, mlx5dv_mkey_check: %s",
		      sc->name, i, bad_name[t->bad],
		      ret ? strerror(ret) : err_name(err.err_type));
		break;
	case WRID_DATA:
		/* unsignalled; only a flush on the way to ERR reports it */
		if (!(sc->to_err && wc->status == IBV_WC_WR_FLUSH_ERR))
			check(0, "[%s] txn %u: unexpected WRITE completion %s",
			      sc->name, i, ibv_wc_status_str(wc->status));
		break;
	default:
		check(0, "[%s] unexpected completion wr_id 0x%llx",
		      sc->name, (unsigned long long)wc->wr_id);
	}
}

static int poll_target(const struct scenario *sc)
{
	struct ibv_wc wc[16];
	int n, i, got = 0;

	do {
		n = ibv_poll_cq(tgt.cq, 16, wc);
		if (n < 0)
			fatal("ibv_poll_cq (target)", EIO);
		for (i = 0; i < n; i++)
			handle_target_wc(sc, &wc[i]);
		got += n;
	} while (n > 0);
	return got;
}

static int poll_initiator(const struct scenario *sc)
{
	unsigned int r, i, slot;
	struct ibv_wc wc[16];
	int n, k, got = 0;
	char *resp;

	n = ibv_poll_cq(ini.cq, 16, wc);
	if (n < 0)
		fatal("ibv_poll_cq (initiator)", EIO);
	for (k = 0; k < n; k++) {
		slot = wc[k].wr_id;
		if (wc[k].status != IBV_WC_SUCCESS || wc[k].opcode != IBV_WC_RECV ||
		    slot >= NR_RECV) {
			check(0, "[%s] initiator completion %s opcode %d",
			      sc->name, ibv_wc_status_str(wc[k].status),
			      wc[k].opcode);
			continue;
		}
		resp = (char *)resp_slot(slot);
		if (sscanf(resp, "RESP %u %u", &r, &i) != 2 || r != round_no ||
		    i >= sc->n) {
			check(0, "[%s] initiator got \"%.*s\"", sc->name,
			      RESP_LEN, resp);
		} else {
			struct txn *t = &txns[i];

			t->received++;
			/* RC order: the data came before its response */
			if (sc->wire_dif)
				t->data_ok = !memcmp(t->dst, t->disk, t->wire_len);
			else {
				unsigned int b, pis = pi_size(sc->mem);

				t->data_ok = 1;
				for (b = 0; b < NBLK; b++)
					if (memcmp(t->dst + b * BS,
						   t->disk + b * (BS + pis), BS))
						t->data_ok = 0;
			}
		}
		post_recv(slot);
		got++;
	}
	return got;
}

/*
 * At the first stop: the WRITEs the SQ ran. Paired, it stops before the
 * failing WRITE's fenced response; batched, after sig_runon more WRITEs
 * (unfenced), at the latest before the first (fenced) response. The data
 * of a failing transfer moves all the same, so a region written is a
 * WRITE executed.
 */
static void check_run_on(const struct scenario *sc)
{
	unsigned int i, k, first = MAX_TXN, ran, written;

	for (i = 0; i < sc->n && first == MAX_TXN; i++)
		if (sc->bad[i] != OK)
			first = i;
	if (first == MAX_TXN)
		return;
	ran = first + 1 + (sc->batched ? sc->runon : 0);
	if (ran > sc->n)
		ran = sc->n;
	for (i = 0, written = 0; i < sc->n; i++) {
		for (k = 0; k < txns[i].wire_len && !txns[i].dst[k]; k++)
			;
		if ((k < txns[i].wire_len) == (i < ran))
			written++;
		else
			printf("    txn %u: WRITE %s before the stop\n", i,
			       i < ran ? "not executed" : "executed");
	}
	check(written == sc->n,
	      "[%s] stop 1: the SQ ran WRITEs 0..%u (failing WRITE %u, sig_runon %d)",
	      sc->name, ran - 1, first, sc->runon);
}

/*
 * The SQD procedure of mlx5dv_qp_cancel_posted_send_wrs(3). Returns the
 * number of bad transactions found.
 */
static unsigned int handle_sqd(const struct scenario *sc, unsigned int stop)
{
	struct mlx5dv_mkey_err err, want;
	unsigned int i, found = 0;
	enum ibv_qp_state state;
	struct ibv_qp_attr a;
	int ret;

	check(qp_state(tgt.qp) == IBV_QPS_SQD, "[%s] stop %u: QP in SQD",
	      sc->name, stop);
	/* 1. poll until empty once */
	poll_target(sc);
	if (stop == 1)
		check_run_on(sc);
	if (stop == 1 && round_no == 1) {
		ret = mlx5dv_qp_cancel_posted_send_wrs(tgt.dvqp, 0xdeadbeefULL);
		check(ret == 0, "[%s] cancel of an unknown WR ID in SQD returns 0 (%d)",
		      sc->name, ret);
	}
	/* 2. check the MKEY of every open transaction; 3. cancel the bad */
	for (i = 0; i < sc->n; i++) {
		struct txn *t = &txns[i];

		if (!t->open)
			continue;
		ret = mlx5dv_mkey_check(t->mkey, &err);
		if (ret) {
			check(0, "[%s] txn %u: mlx5dv_mkey_check: %s", sc->name,
			      i, strerror(ret));
			continue;
		}
		if (err.err_type == MLX5DV_MKEY_NO_ERR)
			continue;
		found++;
		t->found_bad = 1;
		t->open = 0;
		expected_err(sc, t, &want);
		check(t->bad != OK && err.err_type == want.err_type &&
		      err.err.sig.expected_value == want.err.sig.expected_value &&
		      err.err.sig.actual_value == want.err.sig.actual_value &&
		      err.err.sig.offset == want.err.sig.offset,
		      "[%s] stop %u: txn %u (%s): %s expected 0x%llx actual 0x%llx offset %llu (want %s 0x%llx 0x%llx %llu)",
		      sc->name, stop, i, bad_name[t->bad], err_name(err.err_type),
		      (unsigned long long)err.err.sig.expected_value,
		      (unsigned long long)err.err.sig.actual_value,
		      (unsigned long long)err.err.sig.offset,
		      err_name(want.err_type),
		      (unsigned long long)want.err.sig.expected_value,
		      (unsigned long long)want.err.sig.actual_value,
		      (unsigned long long)want.err.sig.offset);
		ret = mlx5dv_qp_cancel_posted_send_wrs(tgt.dvqp,
						       wrid(WRID_RESP, i));
		check(ret == 1, "[%s] txn %u: its response cancelled (%d)",
		      sc->name, i, ret);
		t->canceled = ret == 1;
	}
	if (sc->to_err) {
		check(modify(&tgt, IBV_QPS_ERR, NULL) == 0,
		      "[%s] SQD -> ERR with a response cancelled", sc->name);
		return found;
	}
	/* 4. back to RTS */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_SQD;
	ret = ibv_modify_qp(tgt.qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE);
	/* (the SQ may run into the next stop at once: SQD again is fine) */
	state = qp_state(tgt.qp);
	check(!ret && (state == IBV_QPS_RTS ||
		       (state == IBV_QPS_SQD && stop < sc->stops)),
	      "[%s] stop %u: SQD -> RTS (IBV_QP_CUR_STATE): %s, state %d",
	      sc->name, stop, ret ? strerror(ret) : "ok", state);
	return found;
}

static void post_txns(const struct scenario *sc)
{
	unsigned int i, k, order[2 * MAX_TXN], nw = 0;
	char resp[RESP_LEN];
	struct txn *t;
	int ret;

	if (sc->batched) {
		for (i = 0; i < sc->n; i++)
			order[nw++] = i;
		for (i = 0; i < sc->n; i++)
			order[nw++] = MAX_TXN + i;
	} else {
		for (i = 0; i < sc->n; i++) {
			order[nw++] = i;
			order[nw++] = MAX_TXN + i;
		}
	}
	ibv_wr_start(tgt.qpx);
	for (k = 0; k < nw; k++) {
		i = order[k] % MAX_TXN;
		t = &txns[i];
		if (order[k] < MAX_TXN) {
			tgt.qpx->wr_id = wrid(WRID_DATA, i);
			tgt.qpx->wr_flags = 0;
			ibv_wr_rdma_write(tgt.qpx, ini.mr->rkey,
					  (uintptr_t)t->dst);
			ibv_wr_set_sge(tgt.qpx, t->mkey->lkey, 0, t->wire_len);
		} else {
			memset(resp, 0, sizeof(resp));
			snprintf(resp, sizeof(resp), "RESP %u %u", round_no, i);
			tgt.qpx->wr_id = wrid(WRID_RESP, i);
			tgt.qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE |
					    IBV_SEND_INLINE;
			ibv_wr_send(tgt.qpx);
			ibv_wr_set_inline_data(tgt.qpx, resp, RESP_LEN);
		}
	}
	ret = ibv_wr_complete(tgt.qpx);
	if (ret)
		fatal("ibv_wr_complete (transactions)", ret);
}

static void run_scenario(const struct scenario *sc)
{
	unsigned int i, stops = 0, found = 0, done, pis = pi_size(sc->mem);
	unsigned int nbad = 0, first_bad = MAX_TXN;
	unsigned char *disk = tgt.buf, *dst = ini.buf;
	struct ibv_async_event ev;
	double end, quiet;
	int inj = -1, ret, fired0 = 0;
	char line[128];

	round_no++;
	printf("--- scenario %u: %s (memory %s, wire %s, %s, sig_runon %d)\n",
	       round_no, sc->name, memsig_name[sc->mem],
	       sc->wire_dif ? "T10-DIF" : "none",
	       sc->batched ? "batched" : "paired", sc->runon);
	set_runon(sc->runon);
	memset(txns, 0, sizeof(txns));
	memset(ini.buf, 0, BUF_SIZE - (size_t)NR_RECV * RESP_LEN);
	for (i = 0; i < sc->n; i++) {
		struct txn *t = &txns[i];

		t->mkey = mkeys[i];
		t->bad = sc->bad[i];
		t->ref = round_no * 1000 + i * 100;
		t->mem_len = NBLK * (BS + pis);
		t->wire_len = NBLK * (BS + (sc->wire_dif ? 8 : 0));
		t->disk = disk;
		t->dst = dst;
		disk += t->mem_len;
		dst += t->wire_len;
		format_blocks(t->disk, sc->mem, BS, NBLK, t->ref, round_no * 16 + i);
		if (t->bad == MEM_GUARD)
			corrupt_guard(sc, t);
		ret = sig_mkey_configure(t->mkey, t->disk, t->mem_len, sc->mem,
					 sc->wire_dif, BS, t->ref);
		if (ret) {
			check(0, "[%s] txn %u: configure the signature MKEY: %s",
			      sc->name, i, strerror(ret));
			return;
		}
		if (t->bad >= INJ_GUARD && t->bad <= INJ_REFTAG) {
			if (inj >= 0)
				fatal("scenario with two injections", EINVAL);
			inj = i;
		}
		t->open = 1;
		if (t->bad != OK && first_bad == MAX_TXN)
			first_bad = i;
	}
	if (inj >= 0) {
		static const char *const kind[] = {
			[INJ_GUARD] = "guard", [INJ_APPTAG] = "apptag",
			[INJ_REFTAG] = "reftag",
		};

		fired0 = inject_fired();

		snprintf(line, sizeof(line), "mkey=0x%x nth=1 kind=%s",
			 txns[inj].mkey->lkey, kind[txns[inj].bad]);
		ret = dbg_write("sig_inject", line);
		if (ret)
			fatal("sig_inject", ret);
	}

	post_txns(sc);

	end = now_ms() + TIMEOUT_MS;
	quiet = 0;
	for (;;) {
		int progress = 0;

		if (get_event(0, &ev)) {
			progress = 1;
			if (ev.event_type == IBV_EVENT_SQ_DRAINED &&
			    ev.element.qp == tgt.qp) {
				stops++;
				found += handle_sqd(sc, stops);
			} else {
				check(0, "[%s] unexpected async event %s",
				      sc->name, ibv_event_type_str(ev.event_type));
			}
		}
		progress += poll_target(sc);
		progress += poll_initiator(sc);
		if (!progress)
			usleep(20);
		for (i = 0, done = 0; i < sc->n; i++)
			done += txns[i].resp_wcs > 0;
		if (done == sc->n) {
			/* late arrivals (a cancelled response that went) */
			if (!quiet)
				quiet = now_ms() + QUIET_MS;
			if (now_ms() > quiet)
				break;
		}
		if (now_ms() > end) {
			check(0, "[%s] timeout: %u of %u responses completed, QP state %d",
			      sc->name, done, sc->n, qp_state(tgt.qp));
			break;
		}
	}
	/* an event after the last response would be a stop too many */
	while (get_event(0, &ev))
		if (ev.event_type == IBV_EVENT_SQ_DRAINED)
			stops++;

	check(stops == sc->stops, "[%s] %u IBV_EVENT_SQ_DRAINED (want %u)",
	      sc->name, stops, sc->stops);
	for (i = 0; i < sc->n; i++) {
		struct txn *t = &txns[i];
		int bad = t->bad != OK;
		/* going to ERR at the first stop flushes from the first bad on */
		int flushed = sc->to_err && i >= first_bad;
		enum ibv_wc_status want = flushed ? IBV_WC_WR_FLUSH_ERR :
						    IBV_WC_SUCCESS;

		nbad += bad;
		check(t->found_bad == bad,
		      "[%s] txn %u (%s): mlx5dv_mkey_check found %s",
		      sc->name, i, bad_name[t->bad],
		      t->found_bad ? "an error" : "no error");
		check(t->resp_wcs == 1 && t->resp_status == want &&
		      (flushed || t->resp_opcode == IBV_WC_SEND),
		      "[%s] txn %u: %d response completion(s): %s opcode %d (want 1: %s%s)",
		      sc->name, i, t->resp_wcs,
		      t->resp_wcs ? ibv_wc_status_str(t->resp_status) : "-",
		      t->resp_wcs ? (int)t->resp_opcode : -1,
		      ibv_wc_status_str(want), flushed ? "" : ", IBV_WC_SEND");
		if (bad)
			check(t->canceled && !t->received,
			      "[%s] txn %u: response cancelled, the initiator got it %d times",
			      sc->name, i, t->received);
		else if (!flushed)
			check(t->received == 1 && t->data_ok,
			      "[%s] txn %u: the initiator got the response %d times, data %s",
			      sc->name, i, t->received,
			      t->data_ok ? "verified" : "WRONG");
		else
			check(!t->received, "[%s] txn %u: flushed response not received",
			      sc->name, i);
	}
	check(found == nbad, "[%s] %u bad transactions found (want %u)",
	      sc->name, found, nbad);
	if (inj >= 0) {
		int fired = inject_fired();

		check(fired == fired0 + 1, "[%s] sig_inject fired once (%d -> %d)",
		      sc->name, fired0, fired);
		dbg_write("sig_inject", "off");
	}
	if (!sc->to_err)
		check(qp_state(tgt.qp) == IBV_QPS_RTS, "[%s] QP in RTS after",
		      sc->name);
}

/* After the QP went to ERR: both QPs back to RESET and reconnected. */
static void reconnect(void)
{
	struct ibv_wc wc;

	errno = modify(&tgt, IBV_QPS_RESET, NULL);
	if (!errno)
		errno = modify(&ini, IBV_QPS_RESET, NULL);
	if (errno)
		fatal("modify to RESET", errno);
	while (ibv_poll_cq(tgt.cq, 1, &wc) > 0)
		;
	while (ibv_poll_cq(ini.cq, 1, &wc) > 0)
		;
	connect_qps();
	check(qp_state(tgt.qp) == IBV_QPS_RTS, "after ERR: QPs reset and reconnected");
}

/* ---- late ACKs ---------------------------------------------------------- */

static void set_ack_delay(unsigned int us)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", us);
	errno = dbg_write("ack_delay_us", v);
	if (errno)
		fatal("ack_delay_us", errno);
}

/*
 * A signalled 64-byte WRITE of @tag (and a signalled SEND behind it when
 * @send); returns once the initiator's memory has the data, i.e. the
 * model ran the WRITE. Returns the time of the post.
 */
static double post_acked(unsigned char tag, int send)
{
	static const char resp[RESP_LEN] = "ACKED";
	double t0, end;
	int ret;

	memset(tgt.buf, tag, 64);
	t0 = now_ms();
	ibv_wr_start(tgt.qpx);
	tgt.qpx->wr_id = WRID_ACK | 1;
	tgt.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(tgt.qpx, ini.mr->rkey, (uintptr_t)ini.buf);
	ibv_wr_set_sge(tgt.qpx, tgt.mr->lkey, (uintptr_t)tgt.buf, 64);
	if (send) {
		tgt.qpx->wr_id = WRID_ACK | 2;
		tgt.qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_send(tgt.qpx);
		ibv_wr_set_inline_data(tgt.qpx, (void *)resp, RESP_LEN);
	}
	ret = ibv_wr_complete(tgt.qpx);
	if (ret)
		fatal("ibv_wr_complete (late ACKs)", ret);
	for (end = t0 + TIMEOUT_MS; now_ms() < end;)
		if (((volatile unsigned char *)ini.buf)[63] == tag)
			return t0;
	fatal("the WRITE's data never arrived", ETIMEDOUT);
	return t0;
}

static int sq_drained(int ms)
{
	struct ibv_async_event ev;

	while (get_event(ms, &ev))
		if (ev.event_type == IBV_EVENT_SQ_DRAINED)
			return 1;
	return 0;
}

static void late_acks(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS,
				 .cur_qp_state = IBV_QPS_SQD };
	struct ibv_wc wc, rwc;
	double t0, t;
	int got;

	set_ack_delay(ACK_DELAY_MS * 1000);

	t0 = post_acked(0xa1, 1);
	got = wait_wc(tgt.cq, &wc);
	t = now_ms() - t0;
	check(got && wc.status == IBV_WC_SUCCESS && wc.wr_id == (WRID_ACK | 1) &&
	      t >= ACK_DELAY_MS,
	      "ACKs %d ms late: the WRITE completes after %.0f ms", ACK_DELAY_MS, t);
	got = ibv_poll_cq(ini.cq, 1, &rwc);
	check(got == 1 && rwc.status == IBV_WC_SUCCESS &&
	      !memcmp(resp_slot(rwc.wr_id), "ACKED", 6),
	      "... when the initiator already has the SEND posted behind it");
	if (got == 1)
		post_recv(rwc.wr_id);
	got = wait_wc(tgt.cq, &wc);
	check(got && wc.status == IBV_WC_SUCCESS && wc.wr_id == (WRID_ACK | 2),
	      "... then the SEND completes, in order");

	set_ack_delay(ACK_HOLD_MS * 1000);
	t0 = post_acked(0xa2, 0);
	check(modify(&tgt, IBV_QPS_SQD, NULL) == 0, "ACKs late: RTS -> SQD");
	got = ibv_poll_cq(tgt.cq, 1, &wc);
	t = now_ms() - t0;
	check(got == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.wr_id == (WRID_ACK | 1) && t < ACK_HOLD_MS,
	      "... the WRITE waiting for its ACK completed by then (%.0f ms)", t);
	check(sq_drained(1000), "... and SQ_DRAINED came");
	check(ibv_modify_qp(tgt.qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE) == 0,
	      "... SQD -> RTS");

	t0 = post_acked(0xa3, 0);
	check(modify(&tgt, IBV_QPS_ERR, NULL) == 0, "ACKs late: QP to ERR");
	got = wait_wc(tgt.cq, &wc);
	t = now_ms() - t0;
	check(got && wc.status == IBV_WC_SUCCESS && wc.wr_id == (WRID_ACK | 1) &&
	      t < ACK_HOLD_MS,
	      "... the WRITE waiting for its ACK completes, successfully (%.0f ms)", t);
	got = ibv_poll_cq(tgt.cq, 1, &wc);
	check(got == 0, "... and nothing else (%d)", got);
	reconnect();
}

static const struct scenario scenarios[] = {
	{ "paired, injected guard", MEM_DIF, 0, 0, 0, 6,
	  { [2] = INJ_GUARD }, 1, 0 },
	{ "paired, wire T10-DIF, injected apptag + bad guard", MEM_DIF, 1, 0, 0, 6,
	  { [1] = INJ_APPTAG, [4] = MEM_GUARD }, 2, 0 },
	{ "batched, run-on 1, injected reftag + bad guard", MEM_DIF, 0, 1, 1, 6,
	  { [1] = INJ_REFTAG, [3] = MEM_GUARD }, 2, 0 },
	{ "batched, run-on 5, three errors before one stop", MEM_CRC32, 0, 1, 5, 6,
	  { [1] = INJ_GUARD, [2] = MEM_GUARD, [4] = MEM_GUARD }, 1, 0 },
	{ "batched, wire T10-DIF, run-on 2, injected guard + bad guard", MEM_DIF, 1, 1, 2, 5,
	  { [0] = INJ_GUARD, [2] = MEM_GUARD }, 1, 0 },
	{ "paired, CRC32C, run-on 3, bad guard + injected guard", MEM_CRC32C, 0, 0, 3, 4,
	  { [0] = MEM_GUARD, [3] = INJ_GUARD }, 2, 0 },
	{ "all good", MEM_DIF, 0, 1, 0, 4, { 0 }, 0, 0 },
	{ "QP to ERR after a cancel", MEM_DIF, 0, 0, 0, 4,
	  { [1] = INJ_GUARD }, 1, 1 },
};

static const struct scenario after_err = {
	"after reconnect: more traffic", MEM_DIF, 1, 0, 0, 4,
	{ [2] = MEM_GUARD }, 1, 0,
};

/* ---- insert and strip, every block size -------------------------------- */

static void insert_strip(unsigned int bs, int insert)
{
	struct mlx5dv_mkey *mkey = mkeys[0];
	unsigned int nblk = 2, b;
	unsigned int mem_len = nblk * (bs + (insert ? 0 : 8));
	unsigned int wire_len = nblk * (bs + (insert ? 8 : 0));
	unsigned char *src = tgt.buf, *dst = ini.buf;
	uint32_t ref = 0x1000 + bs;
	struct mlx5dv_mkey_err err;
	int ret, data_ok = 1, pi_ok = 1;
	struct ibv_wc wc;

	memset(dst, 0xee, wire_len + 64);
	format_blocks(src, insert ? MEM_NONE : MEM_DIF, bs, nblk, ref, bs);
	ret = sig_mkey_configure(mkey, src, mem_len,
				 insert ? MEM_NONE : MEM_DIF, insert, bs, ref);
	if (ret) {
		check(0, "%s %u: configure: %s", insert ? "insert" : "strip",
		      bs, strerror(ret));
		return;
	}
	ibv_wr_start(tgt.qpx);
	tgt.qpx->wr_id = WRID_DATA;
	tgt.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(tgt.qpx, ini.mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(tgt.qpx, mkey->lkey, 0, wire_len);
	ret = ibv_wr_complete(tgt.qpx);
	if (ret)
		fatal("ibv_wr_complete (insert/strip)", ret);
	if (!wait_wc(tgt.cq, &wc) || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RDMA_WRITE) {
		check(0, "%s %u: WRITE completion %s", insert ? "insert" : "strip",
		      bs, ibv_wc_status_str(wc.status));
		return;
	}
	for (b = 0; b < nblk; b++) {
		const unsigned char *d = src + (size_t)b * (bs + (insert ? 0 : 8));
		const unsigned char *w = dst + (size_t)b * (bs + (insert ? 8 : 0));

		if (memcmp(w, d, bs))
			data_ok = 0;
		if (insert && (get_be(w + bs, 2) != crc_t10dif(d, bs) ||
			       get_be(w + bs + 2, 2) != APP_TAG ||
			       get_be(w + bs + 4, 4) != ref + b))
			pi_ok = 0;
	}
	/* nothing beyond the wire bytes */
	if (dst[wire_len] != 0xee)
		data_ok = 0;
	ret = mlx5dv_mkey_check(mkey, &err);
	check(data_ok && pi_ok && !ret && err.err_type == MLX5DV_MKEY_NO_ERR,
	      "T10-DIF %s, block size %u: data %s, PI %s, mlx5dv_mkey_check %s",
	      insert ? "insert (memory none, wire T10-DIF)" :
		       "strip (memory T10-DIF, wire none)",
	      bs, data_ok ? "ok" : "WRONG", insert ? (pi_ok ? "ok" : "WRONG") : "-",
	      ret ? strerror(ret) : err_name(err.err_type));
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 512, 520, 4048, 4096, 4160 };
	struct mlx5dv_context dvc = { .comp_mask = MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD };
	unsigned int i;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s TARGET_DEV INITIATOR_DEV\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	crc_init();
	snprintf(dbgdir, sizeof(dbgdir), "/sys/kernel/debug/mlx5sp_sim/%s",
		 argv[1]);
	if (access(dbgdir, F_OK))
		fatal(dbgdir, errno);
	open_end(&tgt, argv[1], 1);
	open_end(&ini, argv[2], 0);
	fcntl(tgt.ctx->async_fd, F_SETFL,
	      fcntl(tgt.ctx->async_fd, F_GETFL) | O_NONBLOCK);

	ret = mlx5dv_query_device(tgt.ctx, &dvc);
	check(!ret && (dvc.comp_mask & MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD) &&
	      (dvc.sig_caps.block_prot & MLX5DV_SIG_PROT_CAP_T10DIF) &&
	      (dvc.sig_caps.block_size & MLX5DV_BLOCK_SIZE_CAP_4048) &&
	      (dvc.sig_caps.crc_type & MLX5DV_SIG_CRC_TYPE_CAP_CRC32C),
	      "signature caps: prot 0x%x block sizes 0x%llx crc 0x%x",
	      dvc.sig_caps.block_prot,
	      (unsigned long long)dvc.sig_caps.block_size,
	      dvc.sig_caps.crc_type);

	create_qps();
	connect_qps();

	for (i = 0; i < MAX_TXN; i++) {
		mkeys[i] = sig_mkey_create();
		if (!mkeys[i]) {
			check(0, "mlx5dv_create_mkey (BLOCK_SIGNATURE) %u: %s", i,
			      strerror(errno));
			goto out;
		}
	}
	check(1, "%d signature MKEYs created", MAX_TXN);

	ret = mlx5dv_qp_cancel_posted_send_wrs(tgt.dvqp, 1);
	check(ret < 0, "cancel on a QP in RTS fails (%d%s%s)", ret,
	      ret < 0 ? ": " : "", ret < 0 ? strerror(-ret) : "");

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		insert_strip(sizes[i], 1);
		insert_strip(sizes[i], 0);
	}

	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		run_scenario(&scenarios[i]);
		if (scenarios[i].to_err)
			reconnect();
	}
	run_scenario(&after_err);

	late_acks();
	set_ack_delay(2000);
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		struct scenario late = scenarios[i];
		char name[128];

		snprintf(name, sizeof(name), "%s; ACKs 2 ms late", late.name);
		late.name = name;
		run_scenario(&late);
		if (late.to_err)
			reconnect();
	}
	set_ack_delay(0);

out:
	for (i = 0; i < MAX_TXN; i++)
		if (mkeys[i] && mlx5dv_destroy_mkey(mkeys[i]))
			check(0, "mlx5dv_destroy_mkey %u", i);
	if (ibv_destroy_qp(tgt.qp) || ibv_destroy_qp(ini.qp))
		check(0, "ibv_destroy_qp");
	ibv_dereg_mr(tgt.mr);
	ibv_dereg_mr(ini.mr);
	ibv_destroy_cq(tgt.cq);
	ibv_destroy_cq(ini.cq);
	ibv_dealloc_pd(tgt.pd);
	ibv_dealloc_pd(ini.pd);
	ibv_close_device(tgt.ctx);
	ibv_close_device(ini.ctx);
	printf("sig_pipeline: %d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
