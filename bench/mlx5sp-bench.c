// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mlx5sp-bench: message rate, bandwidth and latency of SEND, RDMA WRITE
 * and RDMA READ over two RC QPs of one device connected in one process,
 * for a baseline device (rxe) and a device under test (an mlx5sp model
 * device), plus memcpy bandwidth of 64 KiB buffers on the same machine.
 *
 *   mlx5sp-bench [-t MS] [-q DEPTH] [-s SMALL] [-b BIG] BASE_DEV DEV
 *
 * Prints one table and the ratios DEV/BASE and DEV/memcpy. Latency is
 * one way (half the round trip) for the SEND ping-pong, post to polled
 * completion for WRITE and READ. Exits non-zero only when a verb or a
 * completion fails; the targets are printed, not enforced.
 *
 * Made for a busy machine (a TCG VM sharing its host): a rate or a
 * bandwidth is the best of ROUNDS rounds of MS/ROUNDS each, a latency the
 * median of every iteration's, so the host taking the CPU away now and
 * then does not decide the result.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define NQP		2
#define CQ_DEPTH	512
#define RECV_DEPTH	256
#define MAX_POLL	32
#define ROUNDS		5
#define MAX_SAMPLES	(1 << 20)

enum { OP_SEND, OP_WRITE, OP_READ, NR_OPS };

static const char *const op_name[NR_OPS] = { "SEND", "WRITE", "READ" };

struct result {
	double rate;		/* million messages per second, small */
	double bw;		/* MB/s (1e6 bytes), big */
	double lat;		/* microseconds, small */
};

struct bdev {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq[NQP], *rcq[NQP];
	struct ibv_qp *qp[NQP];
	struct ibv_mr *mr[NQP];
	char *buf[NQP];
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
	int rd_atom;
	unsigned int recvs[NQP];	/* receive WQEs posted, not consumed */
	struct result res[NR_OPS];
};

static unsigned int run_ms = 1000;
static unsigned int depth = 64;
static size_t small = 64;
static size_t big = 64 * 1024;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "mlx5sp-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "mlx5sp-bench: cannot open %s\n", name);
		exit(1);
	}
	return ctx;
}

/* A RoCE v2 GID if there is one, else the first valid GID. */
static void pick_gid(struct bdev *d)
{
	struct ibv_gid_entry e;
	int i, first = -1;

	for (i = 0; i < 16; i++) {
		if (ibv_query_gid_ex(d->ctx, 1, i, &e, 0))
			continue;
		if (first < 0)
			first = i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2) {
			first = i;
			break;
		}
	}
	if (first < 0) {
		fprintf(stderr, "mlx5sp-bench: %s has no GID\n", d->name);
		exit(1);
	}
	d->gid_index = first;
	if (ibv_query_gid(d->ctx, 1, first, &d->gid))
		die("ibv_query_gid", errno);
}

static void post_recv(struct bdev *d, int i, unsigned int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf[i],
		.length = big,
		.lkey = d->mr[i]->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int err;

	while (n--) {
		err = ibv_post_recv(d->qp[i], &wr, &bad);
		if (err)
			die("ibv_post_recv", err);
		d->recvs[i]++;
	}
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *what)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		die(what, err);
}

static void connect_qp(struct bdev *d, int i)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	modify(d->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "modify to INIT");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = d->mtu;
	a.dest_qp_num = d->qp[!i]->qp_num;
	a.max_dest_rd_atomic = d->rd_atom;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = d->gid;
	a.ah_attr.grh.sgid_index = d->gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	modify(d->qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "modify to RTR");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = d->rd_atom;
	modify(d->qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	       "modify to RTS");
}

static void setup(struct bdev *d)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int i;

	d->ctx = open_dev(d->name);
	if (ibv_query_device(d->ctx, &da))
		die("ibv_query_device", errno);
	if (ibv_query_port(d->ctx, 1, &pa))
		die("ibv_query_port", errno);
	d->mtu = pa.active_mtu;
	d->rd_atom = da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16;
	if (da.max_qp_init_rd_atom < d->rd_atom)
		d->rd_atom = da.max_qp_init_rd_atom;
	pick_gid(d);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd", errno);
	for (i = 0; i < NQP; i++) {
		struct ibv_qp_init_attr qa = {
			.qp_type = IBV_QPT_RC,
			.cap = {
				.max_send_wr = depth,
				.max_recv_wr = RECV_DEPTH,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
		};

		d->scq[i] = ibv_create_cq(d->ctx, CQ_DEPTH, NULL, NULL, 0);
		d->rcq[i] = ibv_create_cq(d->ctx, CQ_DEPTH, NULL, NULL, 0);
		if (!d->scq[i] || !d->rcq[i])
			die("ibv_create_cq", errno);
		qa.send_cq = d->scq[i];
		qa.recv_cq = d->rcq[i];
		d->qp[i] = ibv_create_qp(d->pd, &qa);
		if (!d->qp[i])
			die("ibv_create_qp", errno);
		if (posix_memalign((void **)&d->buf[i], 4096, big))
			die("posix_memalign", ENOMEM);
		memset(d->buf[i], i + 1, big);
		d->mr[i] = ibv_reg_mr(d->pd, d->buf[i], big,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ);
		if (!d->mr[i])
			die("ibv_reg_mr", errno);
	}
	for (i = 0; i < NQP; i++) {
		connect_qp(d, i);
		post_recv(d, i, RECV_DEPTH);
	}
}

static void teardown(struct bdev *d)
{
	int i;

	for (i = 0; i < NQP; i++) {
		ibv_destroy_qp(d->qp[i]);
		ibv_destroy_cq(d->scq[i]);
		ibv_destroy_cq(d->rcq[i]);
		ibv_dereg_mr(d->mr[i]);
		free(d->buf[i]);
	}
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->ctx);
}

/* QP @i posts @op of @len bytes to its peer. */
static void post(struct bdev *d, int i, int op, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)d->buf[i],
		.length = len,
		.lkey = d->mr[i]->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int err;

	switch (op) {
	case OP_SEND:
		wr.opcode = IBV_WR_SEND;
		break;
	case OP_WRITE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		break;
	default:
		wr.opcode = IBV_WR_RDMA_READ;
		break;
	}
	if (op != OP_SEND) {
		wr.wr.rdma.remote_addr = (uintptr_t)d->buf[!i];
		wr.wr.rdma.rkey = d->mr[!i]->rkey;
	}
	err = ibv_post_send(d->qp[i], &wr, &bad);
	if (err)
		die("ibv_post_send", err);
}

/* Completions of @cq, checked; returns how many. */
static int poll(struct ibv_cq *cq)
{
	struct ibv_wc wc[MAX_POLL];
	int n, k;

	n = ibv_poll_cq(cq, MAX_POLL, wc);
	if (n < 0)
		die("ibv_poll_cq", EIO);
	for (k = 0; k < n; k++)
		if (wc[k].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "mlx5sp-bench: completion error %s (opcode %d)\n",
				ibv_wc_status_str(wc[k].status), wc[k].opcode);
			exit(1);
		}
	return n;
}

/* Receive completions of QP @i: the WQEs go back at once. */
static int poll_recv(struct bdev *d, int i)
{
	int n = poll(d->rcq[i]);

	if (n) {
		d->recvs[i] -= n;
		post_recv(d, i, n);
	}
	return n;
}

/* Messages per second with @depth in flight from QP 0 to QP 1, for @ms. */
static double stream_round(struct bdev *d, int op, size_t len, double ms)
{
	uint64_t posted = 0, done = 0;
	double start = now_us(), end = start + ms * 1000.0, t;

	for (;;) {
		t = now_us();
		if (t >= end && done == posted)
			break;
		while (t < end && posted - done < depth) {
			post(d, 0, op, len);
			posted++;
		}
		done += poll(d->scq[0]);
		if (op == OP_SEND)
			poll_recv(d, 1);
	}
	if (op == OP_SEND)
		while (d->recvs[1] < RECV_DEPTH)
			poll_recv(d, 1);
	return done / ((t - start) / 1e6);
}

static double stream(struct bdev *d, int op, size_t len)
{
	double best = 0, r;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		r = stream_round(d, op, len, run_ms / (double)ROUNDS);
		if (r > best)
			best = r;
	}
	return best;
}

static void wait_one(struct ibv_cq *cq)
{
	while (!poll(cq))
		;
}

static void wait_recv(struct bdev *d, int i)
{
	while (!poll_recv(d, i))
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Microseconds per operation: one way for SEND, post to poll otherwise. */
static double latency(struct bdev *d, int op)
{
	static double sample[MAX_SAMPLES];
	double start = now_us(), end = start + run_ms * 1000.0, t, t0;
	size_t n = 0;

	t = start;
	do {
		t0 = t;
		if (op == OP_SEND) {
			post(d, 0, op, small);
			wait_recv(d, 1);
			post(d, 1, op, small);
			wait_recv(d, 0);
			wait_one(d->scq[0]);
			wait_one(d->scq[1]);
		} else {
			post(d, 0, op, small);
			wait_one(d->scq[0]);
		}
		t = now_us();
		sample[n++] = t - t0;
	} while (t < end && n < MAX_SAMPLES);
	qsort(sample, n, sizeof(*sample), cmp_double);
	return sample[n / 2] / (op == OP_SEND ? 2 : 1);
}

static void bench_dev(struct bdev *d)
{
	int op;

	setup(d);
	for (op = 0; op < NR_OPS; op++) {
		/* a short warm-up: page faults, caches, the model's engine */
		stream_round(d, op, small, run_ms / 10.0);
		d->res[op].rate = stream(d, op, small) / 1e6;
		d->res[op].bw = stream(d, op, big) * big / 1e6;
		d->res[op].lat = latency(d, op);
		fprintf(stderr, "%s %s: %.3f Mmsg/s, %.1f MB/s, %.2f us\n",
			d->name, op_name[op], d->res[op].rate, d->res[op].bw,
			d->res[op].lat);
	}
	teardown(d);
}

static double memcpy_bw(void)
{
	double start, end, t, r, best = 0;
	unsigned char *src, *dst;
	uint64_t n;
	int i;

	if (posix_memalign((void **)&src, 4096, big) ||
	    posix_memalign((void **)&dst, 4096, big))
		die("posix_memalign", ENOMEM);
	memset(src, 0x5a, big);
	memset(dst, 0, big);
	for (i = 0; i < ROUNDS; i++) {
		n = 0;
		start = now_us();
		end = start + run_ms * 1000.0 / ROUNDS;
		do {
			memcpy(dst, src, big);
			/* the copy is used: the compiler keeps it */
			__asm__ __volatile__("" : : "r"(dst) : "memory");
			n++;
			t = now_us();
		} while (t < end);
		r = n * big / ((t - start) / 1e6);
		if (r > best)
			best = r;
	}
	free(src);
	free(dst);
	return best;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: mlx5sp-bench [-t MS] [-q DEPTH] [-s SMALL] [-b BIG] BASE_DEV DEV\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct bdev base = {}, dut = {};
	double mem, r;
	int c, op;

	while ((c = getopt(argc, argv, "t:q:s:b:")) != -1) {
		switch (c) {
		case 't':
			run_ms = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			depth = strtoul(optarg, NULL, 0);
			break;
		case 's':
			small = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			big = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage();
		}
	}
	if (argc - optind != 2 || !run_ms || !depth || depth > RECV_DEPTH / 2 ||
	    !small || small > big)
		print_usage();
	base.name = argv[optind];
	dut.name = argv[optind + 1];

	mem = memcpy_bw() / 1e6;
	bench_dev(&base);
	bench_dev(&dut);

	printf("mlx5sp-bench: RC, two QPs of one device in one process; "
	       "%zu B messages at depth %u, bandwidth at %zu B;\n"
	       "rate, bw: best of %d rounds in %u ms; "
	       "lat: median (SEND: half the ping-pong round trip)\n",
	       small, depth, big, ROUNDS, run_ms);
	printf("%-10s %-6s %14s %14s %12s\n", "device", "op", "rate (Mmsg/s)",
	       "bw (MB/s)", "lat (us)");
	for (op = 0; op < NR_OPS; op++)
		printf("%-10s %-6s %14.3f %14.1f %12.2f\n", base.name,
		       op_name[op], base.res[op].rate, base.res[op].bw,
		       base.res[op].lat);
	for (op = 0; op < NR_OPS; op++)
		printf("%-10s %-6s %14.3f %14.1f %12.2f\n", dut.name,
		       op_name[op], dut.res[op].rate, dut.res[op].bw,
		       dut.res[op].lat);
	printf("%-10s %-6s %14s %14.1f %12s\n", "memcpy", "64K", "-", mem, "-");
	printf("\nratios %s/%s (rate, bw: higher is better; "
	       "lat: lower is better) and %s/memcpy (bw)\n",
	       dut.name, base.name, dut.name);
	printf("%-6s %10s %10s %10s %12s\n", "op", "rate", "bw", "lat",
	       "bw/memcpy");
	for (op = 0; op < NR_OPS; op++)
		printf("%-6s %9.2fx %9.2fx %9.2fx %11.1f%%\n", op_name[op],
		       dut.res[op].rate / base.res[op].rate,
		       dut.res[op].bw / base.res[op].bw,
		       dut.res[op].lat / base.res[op].lat,
		       100 * dut.res[op].bw / mem);
	printf("\ntargets: bw >= 10x %s and >= 30%% of memcpy; latency <= 0.33x %s\n",
	       base.name, base.name);
	for (op = 0; op < NR_OPS; op++) {
		r = dut.res[op].bw / base.res[op].bw;
		printf("%-6s bw %6.2fx %-4s bw/memcpy %5.1f%% %-4s lat %5.2fx %s\n",
		       op_name[op], r, r >= 10 ? "ok" : "MISS",
		       100 * dut.res[op].bw / mem,
		       dut.res[op].bw >= 0.3 * mem ? "ok" : "MISS",
		       dut.res[op].lat / base.res[op].lat,
		       dut.res[op].lat <= base.res[op].lat / 3 ? "ok" : "MISS");
	}
	return 0;
}
