// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5sp-sigbench: what signature pipelining buys a storage target's READ
 * path, and what the model's signature engine costs against the raw CRC.
 *
 *   mlx5sp-sigbench [-n ITERS] [-r ROUNDS] [-b BLOCKS[,BLOCKS...]]
 *                   [-a US[,US...]] [-S] DEV
 *
 * 1. READ latency. A target QP (MLX5DV_QP_CREATE_SIG_PIPELINING) and an
 *    initiator QP on DEV, connected in this process. One READ sends BLOCKS
 *    512-byte blocks, stored with T10-DIF, through a signature MKEY
 *    (memory T10-DIF checked, wire none: stripped) with an RDMA WRITE and
 *    then a 16-byte response SEND (BLOCKS: 1 and 8 unless given). Pipelined: the WRITE and the fenced
 *    response are posted together. Sequential: the WRITE is posted
 *    signalled, its completion awaited, the MKEY checked
 *    (mlx5dv_mkey_check), then the response posted. The latency is from
 *    the first post to the initiator's receive completion (what the
 *    initiator waits for); the target's remaining work (the response's
 *    completion and, pipelined, the MKEY check) is done after the clock
 *    stops, for both. ROUNDS rounds of ITERS READs take turns between the
 *    two modes; each mode's median over all its READs is printed, and
 *    their ratio (target: pipelined <= 0.6 of sequential). This for
 *    each ACK round trip US (-a; 0, 5, 10 and 20 unless given: the
 *    model's debugfs ack_delay_us, how long after its WQE ran an RC
 *    completion is written; 0 is a fabric without delay, 5 us a RoCE
 *    round trip through a switch or two, 10 and 20 us longer paths or
 *    loaded switches). The response does not wait for the WRITE's ACK,
 *    the sequential READ does: that round trip and the application's
 *    turnaround are what pipelining saves. A summary per size fits the
 *    saving to the round trips and prints the round trip from which the
 *    ratio holds.
 * 2. Signature engine throughput: reads the model's debugfs sig_bench
 *    (/sys/kernel/debug/mlx5sp_sim/DEV/sig_bench: a T10-DIF checked and
 *    stripped transfer against crc_t10dif alone over the same buffers, in
 *    the kernel) and prints the ratio (target >= 0.8), and any further
 *    pair it reports (NAME_check_strip_Bps against NAME_Bps). -S: only
 *    this part.
 *
 * The targets are printed, not enforced; exit status 1 only when a verb,
 * a completion or a check fails.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "t10dif.h"	/* tests/userspace: CRC16 and signature attributes */

#define BLOCK		512
#define PI		8
#define RESP_LEN	16
#define NR_RECV		16
#define APP_TAG		0x1234
#define TIMEOUT_US	10000000.0
#define WARMUP_US	1000000.0

#define WRID_CONF	1
#define WRID_DATA	2
#define WRID_RESP	3

#define MAX_SIZES	8

static unsigned int iters = 200, rounds = 10, nblocks;
static unsigned int sizes[MAX_SIZES] = { 1, 8 }, nsizes = 2;
static unsigned int delays[MAX_SIZES] = { 0, 5, 10, 20 }, ndelays = 4;
static unsigned int cur_delay;		/* this measurement's ACK delay */
/* medians in us: [size][delay][sequential, pipelined] */
static double meds[MAX_SIZES][MAX_SIZES][2];

struct qpend {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf;
	size_t len;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct qpend tgt, ini;
static struct ibv_qp_ex *qpx;
static struct mlx5dv_qp_ex *dvqp;
static struct mlx5dv_mkey *mkey;
static union ibv_gid gid;
static int gid_index = -1;
static enum ibv_mtu mtu;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "mlx5sp-sigbench: %s: %s\n", what, strerror(err));
	exit(1);
}

static void open_dev(const char *name)
{
	struct mlx5dv_context_attr dv = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i;

	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = mlx5dv_open_device(list[i], &dv);
	ibv_free_device_list(list);
	if (!ctx)
		die(name, errno ? errno : ENODEV);
	if (ibv_query_port(ctx, 1, &pa))
		die("ibv_query_port", errno);
	mtu = pa.active_mtu;
	for (i = 0; i < 16; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (gid_index < 0 || e.gid_type == IBV_GID_TYPE_ROCE_V2)
			gid_index = i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
			break;
	}
	if (gid_index < 0 || ibv_query_gid(ctx, 1, gid_index, &gid))
		die("no GID", ENOENT);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno);
}

static void setup_end(struct qpend *e, size_t len, int target)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = NR_RECV,
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

	e->len = len;
	if (posix_memalign((void **)&e->buf, 4096, len))
		die("posix_memalign", ENOMEM);
	memset(e->buf, 0, len);
	e->mr = ibv_reg_mr(pd, e->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	e->cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!e->mr || !e->cq)
		die("ibv_reg_mr/ibv_create_cq", errno);
	qa.pd = pd;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	e->qp = target ? mlx5dv_create_qp(ctx, &qa, &dqa) :
			 ibv_create_qp_ex(ctx, &qa);
	if (!e->qp)
		die(target ? "mlx5dv_create_qp (SIG_PIPELINING)" :
			     "ibv_create_qp_ex", errno);
}

static void modify(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE,
	};

	errno = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (errno)
		die("modify to INIT", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	errno = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			      IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			      IBV_QP_MIN_RNR_TIMER);
	if (errno)
		die("modify to RTR", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	errno = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (errno)
		die("modify to RTS", errno);
}

static unsigned char *resp_slot(unsigned int i)
{
	return ini.buf + (size_t)nblocks * BLOCK + (size_t)i * RESP_LEN;
}

static void post_recv(unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)resp_slot(i), .length = RESP_LEN,
		.lkey = ini.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	errno = ibv_post_recv(ini.qp, &wr, &bad);
	if (errno)
		die("ibv_post_recv", errno);
}

static void wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, uint64_t wr_id)
{
	double end = now_us() + TIMEOUT_US;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq", EIO);
		if (n) {
			if (wc->status != IBV_WC_SUCCESS ||
			    (wr_id != (uint64_t)-1 && wc->wr_id != wr_id)) {
				fprintf(stderr, "mlx5sp-sigbench: completion wr_id %llu: %s\n",
					(unsigned long long)wc->wr_id,
					ibv_wc_status_str(wc->status));
				exit(1);
			}
			return;
		}
	} while (now_us() < end);
	die("completion", ETIMEDOUT);
}

/* T10-DIF blocks in the target's memory, and the signature MKEY over them. */
static void setup_mkey(void)
{
	struct mlx5dv_mkey_init_attr ma = {
		.pd = pd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 1,
	};
	struct t10dif_sig ts;
	struct mlx5dv_mkey_conf_attr conf = {};
	struct ibv_sge sge = {
		.addr = (uintptr_t)tgt.buf, .length = nblocks * (BLOCK + PI),
		.lkey = tgt.mr->lkey,
	};
	unsigned int b, i;
	unsigned char *blk;
	struct ibv_wc wc;
	uint16_t v16;
	uint32_t v32;

	for (b = 0; b < nblocks; b++) {
		blk = tgt.buf + (size_t)b * (BLOCK + PI);
		for (i = 0; i < BLOCK; i++)
			blk[i] = (unsigned char)(b * 3 + i);
		v16 = htons(crc_t10dif(blk, BLOCK));
		memcpy(blk + BLOCK, &v16, 2);
		v16 = htons(APP_TAG);
		memcpy(blk + BLOCK + 2, &v16, 2);
		v32 = htonl(b);
		memcpy(blk + BLOCK + 4, &v32, 4);
	}
	mkey = mlx5dv_create_mkey(&ma);
	if (!mkey)
		die("mlx5dv_create_mkey (BLOCK_SIGNATURE)", errno);
	ibv_wr_start(qpx);
	qpx->wr_id = WRID_CONF;
	qpx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	mlx5dv_wr_mkey_configure(dvqp, mkey, 3, &conf);
	mlx5dv_wr_set_mkey_access_flags(dvqp, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(dvqp, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(dvqp, t10dif_sig_mem(&ts, APP_TAG, 0));
	errno = ibv_wr_complete(qpx);
	if (errno)
		die("mkey configure", errno);
	wait_wc(tgt.cq, &wc, WRID_CONF);
}

static unsigned int cur_blocks;		/* this measurement's READ size */

static void post_write(int signalled)
{
	qpx->wr_id = WRID_DATA;
	qpx->wr_flags = signalled ? IBV_SEND_SIGNALED : 0;
	ibv_wr_rdma_write(qpx, ini.mr->rkey, (uintptr_t)ini.buf);
	ibv_wr_set_sge(qpx, mkey->lkey, 0, cur_blocks * BLOCK);
}

static void post_resp(void)
{
	static const char resp[RESP_LEN] = "GOOD";

	qpx->wr_id = WRID_RESP;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, (void *)resp, RESP_LEN);
}

static void check_mkey(void)
{
	struct mlx5dv_mkey_err err;
	int ret = mlx5dv_mkey_check(mkey, &err);

	if (ret)
		die("mlx5dv_mkey_check", ret);
	if (err.err_type != MLX5DV_MKEY_NO_ERR) {
		fprintf(stderr, "mlx5sp-sigbench: unexpected signature error %d\n",
			err.err_type);
		exit(1);
	}
}

/* One READ; returns the initiator's latency in microseconds. */
static double one_read(int pipelined)
{
	struct ibv_wc wc;
	double t0, t;

	t0 = now_us();
	ibv_wr_start(qpx);
	post_write(!pipelined);
	if (pipelined) {
		post_resp();
		if ((errno = ibv_wr_complete(qpx)))
			die("ibv_wr_complete", errno);
	} else {
		if ((errno = ibv_wr_complete(qpx)))
			die("ibv_wr_complete", errno);
		wait_wc(tgt.cq, &wc, WRID_DATA);
		check_mkey();
		ibv_wr_start(qpx);
		post_resp();
		if ((errno = ibv_wr_complete(qpx)))
			die("ibv_wr_complete", errno);
	}
	wait_wc(ini.cq, &wc, (uint64_t)-1);
	t = now_us() - t0;
	if (memcmp(resp_slot(wc.wr_id), "GOOD", 4))
		die("response", EIO);
	post_recv(wc.wr_id);
	/* the target's rest, off the clock */
	wait_wc(tgt.cq, &wc, WRID_RESP);
	if (pipelined)
		check_mkey();
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

static void latency(unsigned int blocks, double *res)
{
	double *s[2], med[2], ratio, t0;
	unsigned int r, i, n[2] = { 0, 0 }, b;
	int mode;

	s[0] = calloc((size_t)rounds * iters, sizeof(double));
	s[1] = calloc((size_t)rounds * iters, sizeof(double));
	if (!s[0] || !s[1])
		die("calloc", ENOMEM);
	cur_blocks = blocks;
	memset(ini.buf, 0, (size_t)nblocks * BLOCK);
	/*
	 * Warm up both paths, for a second at least: the first few hundred
	 * ms of a run are up to 1.7 times slower (seen on TCG, for either
	 * ACK delay and size measured first), which would otherwise decide
	 * the first row.
	 */
	t0 = now_us();
	for (i = 0; i < 20 || now_us() - t0 < WARMUP_US; i++) {
		one_read(0);
		one_read(1);
	}
	for (r = 0; r < rounds; r++)
		for (mode = 0; mode < 2; mode++) {
			/* alternate which mode goes first */
			int m = (r & 1) ? !mode : mode;

			for (i = 0; i < iters; i++)
				s[m][n[m]++] = one_read(m);
		}
	/* the stripped data arrived */
	for (b = 0; b < blocks; b++)
		if (memcmp(ini.buf + (size_t)b * BLOCK,
			   tgt.buf + (size_t)b * (BLOCK + PI), BLOCK))
			die("data", EIO);
	med[0] = median(s[0], n[0]);
	med[1] = median(s[1], n[1]);
	ratio = med[0] > 0 ? med[1] / med[0] : 0;
	printf("READ of %u x 512 B (T10-DIF checked and stripped), ACKs after %u us, %u READs per mode\n",
	       blocks, cur_delay, n[0]);
	printf("  sequential (WRITE, wait, mlx5dv_mkey_check, SEND)  median %9.2f us\n",
	       med[0]);
	printf("  pipelined  (WRITE + fenced SEND posted together)   median %9.2f us\n",
	       med[1]);
	printf("  pipelined/sequential %.2f (target <= 0.60) %s\n", ratio,
	       ratio <= 0.6 ? "ok" : "MISSED");
	res[0] = med[0];
	res[1] = med[1];
	free(s[0]);
	free(s[1]);
}

/*
 * Per READ size, over the ACK round trips measured: what pipelining saves
 * (sequential - pipelined median) as a line a + b * round trip, least
 * squares, and the round trip from which pipelined <= 0.6 x sequential
 * holds: where the saving reaches 2/3 of the pipelined latency (which does
 * not depend on the round trip: the median of its rows, so that one row
 * the host slowed down does not move it).
 */
static void summary(void)
{
	unsigned int i, d;

	if (ndelays < 2)
		return;
	printf("pipelined/sequential by ACK round trip; saving = sequential - pipelined\n");
	for (i = 0; i < nsizes; i++) {
		double sa = 0, ss = 0, saa = 0, sas = 0, sp, a, b, den;
		double pip[MAX_SIZES];

		printf("  READ %3u x 512 B:", sizes[i]);
		for (d = 0; d < ndelays; d++) {
			double seq = meds[i][d][0];

			pip[d] = meds[i][d][1];
			printf(" %u us %.2f,", delays[d], seq > 0 ? pip[d] / seq : 0);
			sa += delays[d];
			saa += (double)delays[d] * delays[d];
			ss += seq - pip[d];
			sas += delays[d] * (seq - pip[d]);
		}
		den = ndelays * saa - sa * sa;
		if (den <= 0) {
			printf(" (one round trip: no fit)\n");
			continue;
		}
		b = (ndelays * sas - sa * ss) / den;
		a = (ss - b * sa) / ndelays;
		qsort(pip, ndelays, sizeof(*pip), cmp_double);
		sp = ndelays & 1 ? pip[ndelays / 2] :
			(pip[ndelays / 2 - 1] + pip[ndelays / 2]) / 2;
		printf(" saving %.2f us + %.2f x round trip;", a, b);
		if (b <= 0)
			printf(" 0.6 not reached\n");
		else
			printf(" 0.6 from a round trip of %.1f us\n",
			       a >= sp * 2 / 3 ? 0 : (sp * 2 / 3 - a) / b);
	}
}

/* The model's ACK round trip (debugfs ack_delay_us of @dev). */
static void set_ack_delay(const char *dev, unsigned int us)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/mlx5sp_sim/%s/ack_delay_us", dev);
	f = fopen(path, "w");
	if (!f) {
		if (!us)
			return;		/* no model: no delay to take away */
		die(path, errno);
	}
	if (fprintf(f, "%u\n", us) < 0 || fclose(f))
		die(path, errno ? errno : EIO);
	cur_delay = us;
}

static void sig_bench(const char *dev)
{
	char path[256], key[64][64], line[256];
	unsigned long long val[64];
	unsigned int n = 0, i, j;
	size_t kl;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/mlx5sp_sim/%s/sig_bench", dev);
	f = fopen(path, "r");
	if (!f) {
		printf("signature engine: %s: %s (not a model device?)\n", path,
		       strerror(errno));
		return;
	}
	while (n < 64 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", key[n], &val[n]) == 2)
			n++;
	fclose(f);
	printf("signature engine (the model's sig_bench, in the kernel):\n");
	for (i = 0; i < n; i++)
		printf("  %-28s %10.1f MB/s\n", key[i], val[i] / 1e6);
	/* NAME_check_strip_Bps against NAME_Bps, or T10-DIF's crc_t10dif_Bps */
	for (i = 0; i < n; i++) {
		char base[80];
		const char *cs = strstr(key[i], "_check_strip_Bps");

		if (!cs)
			continue;
		kl = cs - key[i];
		snprintf(base, sizeof(base), "%.*s_Bps", (int)kl, key[i]);
		if (!strncmp(key[i], "t10dif", kl))
			snprintf(base, sizeof(base), "crc_t10dif_Bps");
		for (j = 0; j < n; j++)
			if (!strcmp(key[j], base) && val[j]) {
				double r = (double)val[i] / val[j];

				printf("  %.*s check+strip / raw %s: %.2f (target >= 0.80) %s\n",
				       (int)kl, key[i], base, r,
				       r >= 0.8 ? "ok" : "MISSED");
			}
	}
}

/* "N,N,..." into @v (MAX_SIZES at most); returns how many */
static unsigned int parse_list(char *arg, unsigned int *v)
{
	unsigned int n = 0;
	char *tok;

	for (tok = strtok(arg, ","); tok && n < MAX_SIZES; tok = strtok(NULL, ","))
		v[n++] = atoi(tok);
	return n;
}

int main(int argc, char **argv)
{
	unsigned int i, d;
	int opt, only_engine = 0;

	while ((opt = getopt(argc, argv, "n:r:b:a:S")) != -1) {
		switch (opt) {
		case 'n': iters = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'b': nsizes = parse_list(optarg, sizes); break;
		case 'a': ndelays = parse_list(optarg, delays); break;
		case 'S': only_engine = 1; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || !iters || !rounds || !nsizes || !ndelays)
		goto usage;
	for (i = 0; i < ndelays; i++)
		if (delays[i] > 1000000)
			goto usage;
	for (i = 0; i < nsizes; i++) {
		if (!sizes[i] || sizes[i] > 256)
			goto usage;
		if (sizes[i] > nblocks)
			nblocks = sizes[i];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (only_engine) {
		sig_bench(argv[optind]);
		return 0;
	}
	open_dev(argv[optind]);
	setup_end(&tgt, (size_t)nblocks * (BLOCK + PI), 1);
	setup_end(&ini, (size_t)nblocks * BLOCK + NR_RECV * RESP_LEN, 0);
	qpx = ibv_qp_to_qp_ex(tgt.qp);
	dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	modify(tgt.qp, ini.qp->qp_num);
	modify(ini.qp, tgt.qp->qp_num);
	for (i = 0; i < NR_RECV; i++)
		post_recv(i);
	setup_mkey();
	for (d = 0; d < ndelays; d++) {
		set_ack_delay(argv[optind], delays[d]);
		for (i = 0; i < nsizes; i++)
			latency(sizes[i], meds[i][d]);
	}
	set_ack_delay(argv[optind], 0);
	summary();
	sig_bench(argv[optind]);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-n ITERS] [-r ROUNDS] [-b BLOCKS[,BLOCKS...]] [-a US[,US...]] [-S] DEV\n",
		argv[0]);
	return 2;
}
