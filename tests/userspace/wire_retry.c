// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RC on the wire between two devices of this machine (a model device and
 * rxe on the two ends of a veth pair, 56-wire-loss.sh): one process opens
 * both (the RDMA devices of a shared-netns system are seen from every
 * namespace) and connects an RC QP on A to one on B by their GIDs
 * (uc-sig, for 58-wire-v6-uc.sh, a UC pair beside them).
 *
 * usage: wire_retry MODE DEV_A GID_A DEV_B GID_B N1 N2 [WIRE NAME=N...]
 *
 *   retry TIMEOUT RETRY_CNT  a SEND from A reaches B; then B's QP is
 *	destroyed (the peer vanishes) and the next SEND from A must end in
 *	IBV_WC_RETRY_EXC_ERR after (RETRY_CNT + 1) local ACK timeouts of
 *	4.096 us << TIMEOUT each, no less and at most 4 times that (the
 *	IBTA's bounds of the local ACK timeout); A's QP is in ERR after.
 *   rnr TIMER RNR_RETRY  B posts no receive (its min_rnr_timer TIMER): a
 *	SEND from A gets RNR NAKs and ends in IBV_WC_RNR_RETRY_EXC_ERR
 *	after RNR_RETRY waits of TIMER's time at least; A's QP in ERR.
 *	The roles are the script's: A the requester, B the responder.
 *   rnr-peer TIMER RNR_RETRY  the same with rxe as A: no more than the
 *	lower bound is checked (the model's NAKs carry TIMER); the time
 *	rxe takes to give up is its own, and shown.
 *   stream COUNT SIZE  COUNT SENDs of SIZE (up to 16 MiB) bytes each way, then COUNT
 *	RDMA WRITEs from A read back by COUNT RDMA READs (every other one
 *	fenced), and as many from B (none fenced: rxe may be B): every
 *	message arrives once, in order, with its own data
 *	(the script puts loss, reordering, duplication on the wire).
 *	rxe as B gets retry_cnt 6 (it takes 7 as infinite) and timeout
 *	17; a WQE of rxe's that does not complete while rxe sends and
 *	receives nothing for 5 s fails at once as rxe's stall
 *	(Documentation/mlx5sp/rxe-stall.rst).
 *   big-err 1 SIZE  B's responder on messages of SIZE (above 1 MiB: placed
 *	as they come), each on fresh QPs: a SEND into a receive of half
 *	that (A IBV_WC_REM_INV_REQ_ERR, B IBV_WC_LOC_LEN_ERR); a WRITE
 *	reaching past the end of B's MR (A IBV_WC_REM_ACCESS_ERR, B's
 *	memory untouched: the rkey is checked for the whole length
 *	first); a WRITE with immediate while B has no receive (RNR NAKs),
 *	the receive posted 200 ms later: the WRITE completes once, B's
 *	completion says SIZE bytes and the immediate, the data all there;
 *	B's QP on an SRQ: a SEND into a receive of SIZE (done, the data
 *	there), then one into a receive of half that (as the first).
 *   big-flush 1 SIZE  B's QP on an SRQ with two receives of SIZE; a SEND
 *	of SIZE from A, and 500 ms later (the script slows the wire, so
 *	that it is still coming) B's QP to ERR: the receive its first
 *	packet took completes with IBV_WC_WR_FLUSH_ERR, the other stays the
 *	SRQ's (no completion), A's SEND ends in an error.
 *   atomic COUNT DEPTH  COUNT fetch & adds of 1 from A to a counter in
 *	B's memory, DEPTH at a time, then COUNT / 4 compare & swaps, each
 *	moving it on by one, and one whose compare does not match; then
 *	the same from B to A. Every original value returned is distinct
 *	and in range, and the counter ends at exactly the number of adds
 *	and swaps: no atomic executed twice, whatever the wire duplicated.
 *   window COUNT SIZE  from A to B, in rounds of WINDOW: WINDOW SENDs
 *	of SIZE bytes posted at once (B has a receive for each), then
 *	WINDOW RDMA WRITEs into distinct slots of B's buffer at once: A's
 *	completions come in order, all successful, B receives every
 *	SEND once, in order, with its data, and every WRITE's bytes are
 *	there (the model puts them all on the wire before the first ACK);
 *	then WINDOW RDMA READs of those slots back into A at once, and
 *	WINDOW WQEs alternating READ and SEND (a READ's responses
 *	acknowledge the SEND before it; an ACK of a SEND after a READ
 *	whose responses were lost is an implied NAK): every READ completes
 *	in order with its byte count and brings its slot's bytes, each
 *	SEND arrives once. QPs with 16 READs outstanding
 *	(max_rd_atomic).
 *   sqd COUNT SIZE  COUNT (1..40) SENDs from A posted at once (more
 *	than the model's window of 32), A moved to SQD at once. IBTA's
 *	SQD finishes the messages the send queue had begun and begins
 *	no new one: which
 *	those are, the requester decides (a window full, or going back
 *	for a lost packet, begins none). So IBV_EVENT_SQ_DRAINED comes
 *	once the first N (1..COUNT) completed, all there in order when it
 *	does (those in flight took their ACKs first), and B got each of
 *	them once; in SQD nothing more completes or arrives (500 ms).
 *	Then SQD to RTS: the other COUNT - N go, in order, once each,
 *	and one more SEND after them.
 *   window-err COUNT SIZE  COUNT RDMA WRITEs (2..32) from A posted at
 *	once, the one in the middle by an rkey without remote write
 *	access: those before it complete successfully (their bytes in
 *	B), it in IBV_WC_REM_ACCESS_ERR, every later one in
 *	IBV_WC_WR_FLUSH_ERR, in order; A's QP in ERR.
 *   window-rnr COUNT SIZE  COUNT SENDs (2..32) from A posted at once, B
 *	with receives for half of them: that half completes and the rest
 *	waits (RNR NAKs, rnr_retry 7) for 200 ms with no completion; then
 *	B posts the other receives and the rest completes, in order, each
 *	SEND received once with its data.
 *   window-flush COUNT SIZE  COUNT SENDs (2..32) from A posted at once
 *	and A moved to ERR at once (the script delays the wire): COUNT
 *	completions, in order, successes first, then IBV_WC_WR_FLUSH_ERR
 *	only; B received at least the successful ones, each once, in
 *	order, with its data.
 *   sig COUNT SIZE  signature offload on the wire, A a model device, its
 *	memory T10-DIF (512-byte blocks, 8 bytes of PI after each), the
 *	wire plain data (rxe's side has no PI): COUNT times, an RDMA WRITE
 *	from A's blocks through a signature MKEY (PI checked and stripped)
 *	into B, which gets exactly the SIZE data bytes; then an RDMA READ of
 *	B's SIZE bytes through the MKEY into A's blocks (PI inserted): A
 *	holds B's data with a valid guard, the application tag and the
 *	reference tags from the MKEY's. mlx5dv_mkey_check finds no error.
 *	Each WQE runs alone on the wire (stop-and-wait); the script puts
 *	loss on B's egress, so READ responses get lost.
 *	SIZE up to 16 MiB: beyond 1 MiB the model makes the WRITE's wire
 *	bytes and puts the READ's responses through the MKEY a chunk at a
 *	time.
 *   sig-remote COUNT SIZE  the responder's side: A's MKEY as sig's, with
 *	remote access, over A's blocks; COUNT times, B reads SIZE bytes
 *	through it (A's PI checked and stripped as the responses leave: B
 *	gets the data alone), then writes SIZE bytes of its own through it
 *	(PI inserted as they land: A's blocks hold B's data with valid PI);
 *	mlx5dv_mkey_check finds no error. Up to 16 MiB, as sig.
 *   uc-sig COUNT SIZE  signature keys on UC: the MKEY of sig (configured
 *	on A's RC QP: libmlx5 configures none on UC) used by a UC QP of A,
 *	COUNT times: an RDMA WRITE with immediate from A's blocks through it
 *	(PI checked and stripped: B gets the data alone), and a SEND of B's
 *	data into a receive of A through it (PI inserted); then one WRITE
 *	with a bad guard in its last block: it completes, B gets the data,
 *	mlx5dv_mkey_check names the guard error.
 *   link TIMEOUT RETRY_CNT  the cable goes under RC SENDs in flight: a
 *	SEND from A reaches B; then A keeps LINK_DEPTH SENDs of 4 KiB
 *	outstanding (B reposting a receive for each) while a child runs
 *	$WIRE_RETRY_CUT (the script's: the cable's link down). Once it has
 *	run, A posts nothing more: the SENDs B acknowledged complete
 *	successfully, in order; the first that was not ends in
 *	IBV_WC_RETRY_EXC_ERR within (RETRY_CNT + 1) x 4.096 us x 2^TIMEOUT
 *	x 4 of the cut (the IBTA's upper bound; its timer may have started
 *	before); every later one in IBV_WC_WR_FLUSH_ERR; A's QP is in ERR.
 *	B received, once each and in order, at least the SENDs that
 *	completed, each with its own data.
 *   atomic-err 0 0  on new QPs each time: a fetch & add from A to an
 *	address not 8-byte aligned ends in IBV_WC_REM_INV_REQ_ERR (rxe's
 *	provider refuses to post one, so not from B), and one by an rkey
 *	without remote atomic access, each way, in IBV_WC_REM_ACCESS_ERR;
 *	the target unchanged (the responder's QP goes to ERR: no netem).
 *
 * With WIRE (a model device's debugfs wire file) and NAME=N pairs, each
 * counter NAME of it must move by exactly N over the SEND that fails in
 * retry and rnr (not over the first one, which may have been retried
 * while the neighbours were being resolved).
 *
 * Prints one PASS/FAIL line per expectation and "N passed, N failed";
 * "time_ms" lines carry the measured times for the script's report.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#include "check.h"
#include "roce.h"
#include "t10dif.h"

#define MAX_SIZE	(64 * 1024)
#define MAX_STREAM	(16 * 1024 * 1024)	/* beyond 1 MiB: placed as it comes */
#define MAX_COUNT	4096
#define WAIT_MS		60000
/*
 * rxe's requester stall (Documentation/mlx5sp/rxe-stall.rst): an rxe
 * sender with a WQE outstanding that has sent and received nothing for
 * STALL_MS (nine of its 537 ms ACK timeouts) will send nothing more
 */
#define STALL_MS	5000
/*
 * The requesters' timeout (537 ms) in stream and window: retry_cnt 7 of
 * them is 4.3 s without progress before IBV_WC_RETRY_EXC_ERR
 */
#define SLOW_GUEST_TIMEOUT	17
#define RXE_RETRY_CNT	6

struct end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_srq *srq;	/* big-err: B's QP takes its receives here */
	struct ibv_mr *mr;
	struct ibv_mr *mr_na;	/* the same buffer, no remote atomic access */
	unsigned char *buf;	/* receives / WRITE target */
	unsigned char *src;	/* what it sends */
	size_t buf_len;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
	int pkts_fd[2];		/* rxe's sent_pkts, rcvd_pkts, or -1 */
};

static struct end a, b;
static unsigned int nrecv;	/* stream: messages each way */
static unsigned int sq_depth = 16;	/* max_send_wr */
static int rd_atomic = 1;	/* max_rd_atomic, max_dest_rd_atomic */

/*
 * rxe's counts of the packets it sent and received (rxe_hw_counters.c),
 * to tell a requester that stopped from one that retransmits or takes a
 * READ's responses; none on other devices
 */
static void rxe_pkts_open(struct end *e)
{
	static const char *const names[] = { "sent_pkts", "rcvd_pkts" };
	char path[128];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
			 e->name, names[i]);
		e->pkts_fd[i] = open(path, O_RDONLY);
	}
}

static int is_rxe(const struct end *e)
{
	return e->pkts_fd[0] >= 0 && e->pkts_fd[1] >= 0;
}

/* What rxe sent and received, or -1 */
static long long rxe_pkts(const struct end *e)
{
	long long sum = 0;
	char buf[32];
	ssize_t n;
	int i;

	if (!is_rxe(e))
		return -1;
	for (i = 0; i < 2; i++) {
		n = pread(e->pkts_fd[i], buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return -1;
		buf[n] = 0;
		sum += strtoll(buf, NULL, 10);
	}
	return sum;
}

static void open_end(struct end *e, const char *name, int gid_index,
		     size_t len)
{
	struct ibv_port_attr pa;

	e->name = name;
	e->ctx = open_dev_by_name(name);
	rxe_pkts_open(e);
	e->gid_index = gid_index;
	if (ibv_query_port(e->ctx, 1, &pa) ||
	    ibv_query_gid(e->ctx, 1, gid_index, &e->gid))
		fatal_err("ibv_query_port/gid", errno);
	e->mtu = pa.active_mtu;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 2 * nrecv + 32, NULL, NULL, 0);
	if (!e->pd || !e->cq)
		fatal_err("ibv_alloc_pd/ibv_create_cq", errno);
	e->buf_len = len;
	if (posix_memalign((void **)&e->buf, 4096, 2 * len))
		fatal_err("posix_memalign", ENOMEM);
	e->src = e->buf + len;
	memset(e->buf, 0, 2 * len);
	e->mr = ibv_reg_mr(e->pd, e->buf, 2 * len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!e->mr)
		fatal_err("ibv_reg_mr", errno);
	e->mr_na = ibv_reg_mr(e->pd, e->buf, 2 * len,
			      IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_READ);
	if (!e->mr_na)
		fatal_err("ibv_reg_mr", errno);
}

static void create_qp(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.srq = e->srq,
		.cap = { .max_send_wr = sq_depth, .max_recv_wr = nrecv + 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->qp = ibv_create_qp(e->pd, &ia);
	if (!e->qp)
		fatal_err("ibv_create_qp", errno);
}

struct qp_params {
	int timeout, retry_cnt, rnr_retry, min_rnr_timer;
};

static void connect_one(struct end *e, struct end *peer,
			const struct qp_params *p)
{
	const struct rc_attrs at = {
		.timeout = p->timeout, .retry_cnt = p->retry_cnt,
		.rnr_retry = p->rnr_retry, .min_rnr_timer = p->min_rnr_timer,
		.rd_atomic = rd_atomic, .psn = 0x123,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	rc_to_rts_or_die(e->qp, &at, peer->qp->qp_num, &peer->gid,
			 e->gid_index);
}

static void connect_qps(const struct qp_params *pa, const struct qp_params *pb)
{
	create_qp(&a);
	create_qp(&b);
	connect_one(&a, &b, pa);
	connect_one(&b, &a, pb);
}

/* One completion of @e, WAIT_MS at most; false on none. */
static int poll_one(struct end *e, struct ibv_wc *wc, double wait_ms)
{
	static const struct timespec pause = { .tv_nsec = 100 * 1000 };
	double end = now_ms() + wait_ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(e->cq, 1, wc);
		if (n < 0)
			fatal_err("ibv_poll_cq", EIO);
		if (n)
			return 1;
		if (now_ms() >= end)
			return 0;
		/*
		 * Not a spin: on a slow guest a vCPU spinning here is one
		 * that rxe's work items and the model's softirq lack, and
		 * their ACKs then come too late for the requester's timer.
		 */
		nanosleep(&pause, NULL);
	}
}

static void post_recv(struct end *e, uint64_t id, void *addr, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(e->qp, &wr, &bad))
		fatal_err("ibv_post_recv", errno);
}

static void post_srq_recv(struct end *e, uint64_t id, void *addr,
			  uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_srq_recv(e->srq, &wr, &bad))
		fatal_err("ibv_post_srq_recv", errno);
}

/* A signalled WR with @flags (IBV_SEND_FENCE) besides. */
static void post_send_flags(struct end *e, enum ibv_wr_opcode op,
			    uint64_t id, void *addr, uint32_t len,
			    uint64_t raddr, uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(e->qp, &wr, &bad))
		fatal_err("ibv_post_send", errno);
}

static void post_send(struct end *e, enum ibv_wr_opcode op, uint64_t id,
		      void *addr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	post_send_flags(e, op, id, addr, len, raddr, rkey, 0);
}

static int qp_state(struct end *e)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;

	if (ibv_query_qp(e->qp, &at, IBV_QP_STATE, &ia))
		fatal_err("ibv_query_qp", errno);
	return at.qp_state;
}

/* A SEND from A to B's posted receive completes on both. */
static void send_ok(const char *what)
{
	struct ibv_wc wc;
	int ok;

	memset(a.src, 0x5a, 64);
	post_recv(&b, 2, b.buf, 64);
	post_send(&a, IBV_WR_SEND, 1, a.src, 64, 0, 0);
	ok = poll_one(&a, &wc, WAIT_MS) && wc.status == IBV_WC_SUCCESS;
	check(ok, "%s: a SEND from %s to %s completes", what, a.name,
	      b.name);
	ok = poll_one(&b, &wc, WAIT_MS) && wc.status == IBV_WC_SUCCESS &&
	     wc.byte_len == 64 && b.buf[63] == 0x5a;
	check(ok, "%s: %s received it", what, b.name);
}

#define MAX_WATCH	8

static const char *wire_file;
static int nwatch;
static struct {
	char name[32];
	long long want, before;
} watch[MAX_WATCH];

/* Counter @name of wire_file; -1 if it is not there. */
static long long wire_counter(const char *name)
{
	FILE *f = fopen(wire_file, "r");
	char k[64];
	long long v, r = -1;

	if (!f)
		fatal_err(wire_file, errno);
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, name))
			r = v;
	fclose(f);
	return r;
}

static void watch_start(void)
{
	int i;

	for (i = 0; i < nwatch; i++)
		watch[i].before = wire_counter(watch[i].name);
}

static void watch_check(const char *what)
{
	long long d;
	int i;

	for (i = 0; i < nwatch; i++) {
		d = wire_counter(watch[i].name) - watch[i].before;
		check(watch[i].before >= 0 && d == watch[i].want,
		      "%s: the model's %s moved by %lld (want %lld)", what,
		      watch[i].name, d, watch[i].want);
	}
}

/*
 * A SEND from A that must end in @want: the time from the post to its
 * completion, in ms; -1 if none came.
 */
static double send_fails(enum ibv_wc_status want, const char *what)
{
	struct ibv_wc wc;
	double t0, t;
	int got;

	watch_start();
	t0 = now_ms();
	post_send(&a, IBV_WR_SEND, 3, a.src, 64, 0, 0);
	got = poll_one(&a, &wc, WAIT_MS);
	t = now_ms() - t0;
	watch_check(what);
	check(got && wc.status == want && wc.wr_id == 3,
	      "%s: the SEND completes with %s (got %s) after %.1f ms", what,
	      ibv_wc_status_str(want),
	      got ? ibv_wc_status_str(wc.status) : "nothing", t);
	check(qp_state(&a) == IBV_QPS_ERR, "%s: %s's QP is in ERR after",
	      what, a.name);
	return got ? t : -1;
}

static void mode_retry(int timeout, int retry_cnt)
{
	struct qp_params p = { .timeout = timeout, .retry_cnt = retry_cnt,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	double one = (double)(4096ULL << timeout) / 1e6, lo, hi, t;

	connect_qps(&p, &p);
	send_ok("retry");
	/* the peer vanishes: rxe drops what comes for a QPN it has not */
	if (ibv_destroy_qp(b.qp))
		fatal_err("ibv_destroy_qp", errno);
	b.qp = NULL;
	t = send_fails(IBV_WC_RETRY_EXC_ERR, "retry");
	lo = (retry_cnt + 1) * one;
	hi = 4 * lo;
	printf("time_ms retry timeout=%d retry_cnt=%d measured=%.1f bounds=%.1f..%.1f\n",
	       timeout, retry_cnt, t, lo, hi);
	check(t >= lo && t <= hi,
	      "retry: %.1f ms within (retry_cnt + 1) x 4.096 us x 2^%d x [1, 4] = [%.1f, %.1f] ms",
	      t, timeout, lo, hi);
}

/* IBTA table 45: the RNR NAK timer field in microseconds */
#define LINK_DEPTH	16
#define LINK_SIZE	4096
#define LINK_MAX	100000	/* SENDs: the cut must come before */

/* B's receive for SEND @id, in slot @id % LINK_DEPTH of its buffer */
static void link_recv(unsigned long id)
{
	post_recv(&b, id, b.buf + (id % (2 * LINK_DEPTH)) * LINK_SIZE,
		  LINK_SIZE);
}

static void link_send(unsigned long id)
{
	unsigned char *p = a.src + (id % LINK_DEPTH) * LINK_SIZE;

	memset(p, (int)(id & 0xff), LINK_SIZE);
	memcpy(p, &id, sizeof(id));
	post_send(&a, IBV_WR_SEND, id, p, LINK_SIZE, 0, 0);
}

/* B's completions so far: each the next SEND, with its data */
static void link_rx(unsigned long *rx, unsigned int *bad)
{
	struct ibv_wc wc;
	unsigned char *p;
	unsigned long id;

	while (ibv_poll_cq(b.cq, 1, &wc) == 1) {
		if (wc.status != IBV_WC_SUCCESS) {
			(*bad)++;
			continue;
		}
		p = b.buf + (wc.wr_id % (2 * LINK_DEPTH)) * LINK_SIZE;
		memcpy(&id, p, sizeof(id));
		if (wc.wr_id != *rx + 1 || id != wc.wr_id ||
		    wc.byte_len != LINK_SIZE ||
		    p[LINK_SIZE - 1] != (unsigned char)(id & 0xff))
			(*bad)++;
		*rx = wc.wr_id;
		link_recv(wc.wr_id + 2 * LINK_DEPTH);
	}
}

static void mode_link(int timeout, int retry_cnt)
{
	struct qp_params p = { .timeout = timeout, .retry_cnt = retry_cnt,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	double one = (double)(4096ULL << timeout) / 1e6, hi, t_cut = 0, t;
	unsigned long posted = 0, done = 0, rx = 0, id;
	unsigned int bad = 0, flushed = 0, other = 0;
	char *cut = getenv("WIRE_RETRY_CUT");
	char *argv[] = { "sh", "-c", cut, NULL };
	enum ibv_wc_status err = IBV_WC_SUCCESS;
	struct ibv_wc wc;
	int status;
	pid_t child;

	if (!cut || !*cut)
		fatal_err("link: no WIRE_RETRY_CUT command", EINVAL);
	connect_qps(&p, &p);
	send_ok("link");
	for (id = 1; id <= 2 * LINK_DEPTH; id++)
		link_recv(id);
	for (; posted < LINK_DEPTH; posted++)
		link_send(posted + 1);
	fflush(stdout);
	/* spawned, not forked: no copy of the registered memory's pages */
	status = posix_spawn(&child, "/bin/sh", NULL, NULL, argv, environ);
	if (status)
		fatal_err("posix_spawn", status);
	/* the SQ kept full until the cut has been made */
	while (!t_cut) {
		if (waitpid(child, &status, WNOHANG) == child) {
			t_cut = now_ms();
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				fatal_err("link: WIRE_RETRY_CUT failed", EIO);
		}
		link_rx(&rx, &bad);
		if (!poll_one(&a, &wc, 1))
			continue;
		done++;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != done) {
			err = wc.status;
			break;
		}
		if (posted < LINK_MAX)
			link_send(++posted);
	}
	check(t_cut && err == IBV_WC_SUCCESS,
	      "link: %lu SENDs %s -> %s completed in order before the cut",
	      done, a.name, b.name);
	if (!t_cut)
		return;
	/* the SENDs acknowledged, then the first that was not */
	for (;;) {
		if (!poll_one(&a, &wc, WAIT_MS))
			break;
		done++;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != done) {
			err = wc.status;
			break;
		}
	}
	t = now_ms() - t_cut;
	hi = 4 * (retry_cnt + 1) * one;
	printf("time_ms link timeout=%d retry_cnt=%d measured=%.1f bound=%.1f\n",
	       timeout, retry_cnt, t, hi);
	check(err == IBV_WC_RETRY_EXC_ERR && wc.wr_id == done,
	      "link: SEND %lu of %lu completes with %s (got %s), %.1f ms after the cut",
	      done, posted, ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR),
	      err == IBV_WC_SUCCESS ? "nothing" : ibv_wc_status_str(err), t);
	check(t <= hi,
	      "link: %.1f ms after the cut, within (retry_cnt + 1) x 4.096 us x 2^%d x 4 = %.1f ms",
	      t, timeout, hi);
	for (id = done + 1; id <= posted; id++) {
		if (!poll_one(&a, &wc, WAIT_MS))
			break;
		if (wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id == id)
			flushed++;
		else
			other++;
	}
	check(flushed == posted - done && !other,
	      "link: the %lu SENDs after it flushed: %u IBV_WC_WR_FLUSH_ERR, %u other",
	      posted - done, flushed, other);
	check(qp_state(&a) == IBV_QPS_ERR, "link: %s's QP is in ERR after",
	      a.name);
	link_rx(&rx, &bad);
	check(!bad && rx >= done - 1 && rx <= posted,
	      "link: %s received SENDs 1..%lu in order, each with its data (%u wrong); %lu completed at %s",
	      b.name, rx, bad, done - 1, a.name);
}

static const unsigned int rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * @bounded: A is the model, whose waits must also end in time; with rxe
 * as A only the lower bound is the model's (its NAKs carry the timer),
 * rxe's own timing is shown.
 */
static void mode_rnr(int timer, int rnr_retry, int bounded)
{
	struct qp_params pa = { .timeout = 14, .retry_cnt = 7,
				.rnr_retry = rnr_retry, .min_rnr_timer = 1 };
	struct qp_params pb = { .timeout = 14, .retry_cnt = 7,
				.rnr_retry = 7, .min_rnr_timer = timer };
	double lo, hi, t;

	connect_qps(&pa, &pb);
	send_ok("rnr");
	/* no receive on B now */
	t = send_fails(IBV_WC_RNR_RETRY_EXC_ERR, "rnr");
	lo = rnr_retry * rnr_usec[timer] / 1e3;
	/* the waits, and a local ACK timeout's worth of slack per packet */
	hi = 4 * lo + (rnr_retry + 1) * 67.1;
	if (!bounded)
		hi = WAIT_MS;
	printf("time_ms rnr requester=%s timer=%d rnr_retry=%d measured=%.1f bounds=%.1f..%.1f\n",
	       a.name, timer, rnr_retry, t, lo, hi);
	check(t >= lo && t <= hi,
	      "rnr: %.1f ms within [%.1f, %.1f] ms (%d waits of %.2f ms)", t,
	      lo, hi, rnr_retry, rnr_usec[timer] / 1e3);
}

static unsigned char pat(unsigned int msg, unsigned int i, unsigned int dir)
{
	return (unsigned char)(msg * 131 + i * 7 + dir * 57 + (i >> 8));
}

static void fill(unsigned char *p, unsigned int msg, unsigned int size,
		 unsigned int dir)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = pat(msg, i, dir);
}

static int same(const unsigned char *p, unsigned int msg, unsigned int size,
		unsigned int dir)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		if (p[i] != pat(msg, i, dir))
			return 0;
	return 1;
}

/*
 * rxe (6.12) as the requester of a message of several packets stops for
 * good when the ACK of the message's last PSN comes while it sends the
 * message again after a timeout (rxe_comp.c: the WQE is not "pending"
 * then, so the ACK moves the completer's PSN past it without completing
 * it) and what it sends after that, or the answer to it, is lost: its
 * PSN is then the completer's, so the retransmit timer is not set again
 * and a retry is "no point" (whatever retry_cnt), and the WQE waits for
 * the next one posted. Said as such when @s is rxe and has sent and
 * received nothing for STALL_MS; the seconds of a guest that did not run
 * are not counted.
 */
static void rxe_stalled(struct end *s, unsigned int id, const char *what,
			double quiet, double waited)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr at;

	memset(&at, 0, sizeof(at));
	if (ibv_query_qp(s->qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN, &ia))
		at.qp_state = -1;
	check(0, "%s %u from %s: rxe requester stalled: no completion in %.0f ms and no packet sent or received in the last %.0f ms, QP state %d, sq_psn %#x (rxe stall, see Documentation)",
	      what, id, s->name, waited, quiet, at.qp_state, at.sq_psn);
}

/*
 * COUNT SENDs from @s to @r, one outstanding at a time on the sender's
 * side (what the receiver gets is checked as it comes).
 */
/* @s's completion of its WQE @id, successful; said what it was if not. */
static int stream_wc(struct end *s, unsigned int id, const char *what)
{
	double t0 = now_ms(), t = t0, now, quiet = 0;
	long long pkts = rxe_pkts(s), n;
	struct ibv_wc wc;

	while (!poll_one(s, &wc, 100)) {
		now = now_ms();
		n = rxe_pkts(s);
		quiet = n >= 0 && n == pkts ?
			quiet + (now - t < 200 ? now - t : 200) : 0;
		pkts = n;
		t = now;
		if (quiet >= STALL_MS) {
			rxe_stalled(s, id, what, quiet, now - t0);
			return 0;
		}
		if (now - t0 >= WAIT_MS) {
			check(0, "%s %u from %s: no completion in %.0f ms",
			      what, id, s->name, now - t0);
			return 0;
		}
	}
	if (wc.status == IBV_WC_RETRY_EXC_ERR && is_rxe(s)) {
		check(0, "%s %u from %s: rxe requester gave up: IBV_WC_RETRY_EXC_ERR after %.0f ms (%d retransmissions in a row, none answered)",
		      what, id, s->name, now_ms() - t0, RXE_RETRY_CNT);
		return 0;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != id) {
		check(0, "%s %u from %s: completion of %llu, %s (after %.0f ms)",
		      what, id, s->name, (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status), now_ms() - t0);
		return 0;
	}
	return 1;
}

static void stream_send(struct end *s, struct end *r, unsigned int count,
			unsigned int size, unsigned int dir)
{
	unsigned int i, bad = 0, got = 0, done = 0;
	struct ibv_wc wc;
	double t0 = now_ms();

	memset(r->buf, 0, r->buf_len);
	for (i = 0; i < count; i++)
		post_recv(r, i, r->buf + (size_t)(i % 2) * size, size);
	for (i = 0; i < count; i++) {
		fill(s->src, i, size, dir);
		post_send(s, IBV_WR_SEND, i, s->src, size, 0, 0);
		if (!stream_wc(s, i, "SEND"))
			return;
		done++;
		/* the receive of message i: in its own slot, checked now */
		if (!poll_one(r, &wc, WAIT_MS))
			break;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != i ||
		    wc.byte_len != size ||
		    !same(r->buf + (size_t)(i % 2) * size, i, size, dir))
			bad++;
		got++;
	}
	/* nothing more: each message exactly once */
	while (poll_one(r, &wc, 200))
		got++;
	check(done == count && got == count && !bad,
	      "%u SENDs of %u bytes %s -> %s: %u sent, %u received, %u wrong (%.0f ms)",
	      count, size, s->name, r->name, done, got, bad, now_ms() - t0);
}

/*
 * COUNT WRITEs from @s into @r's buffer, each read back by a READ; with
 * @fence every other READ fenced.
 */
static void stream_rdma(struct end *s, struct end *r, unsigned int count,
			unsigned int size, unsigned int dir, int fence)
{
	unsigned int i, bad = 0;
	double t0 = now_ms();

	for (i = 0; i < count; i++) {
		fill(s->src, i, size, dir);
		post_send(s, IBV_WR_RDMA_WRITE, i, s->src, size,
			  (uintptr_t)r->buf, r->mr->rkey);
		if (!stream_wc(s, i, "WRITE"))
			return;
		if (!same(r->buf, i, size, dir))
			bad++;
		/* and back, by a READ into the sender's receive buffer */
		memset(s->buf, 0, size);
		post_send_flags(s, IBV_WR_RDMA_READ, i, s->buf, size,
				(uintptr_t)r->buf, r->mr->rkey,
				fence && i % 2 ? IBV_SEND_FENCE : 0);
		if (!stream_wc(s, i, "READ"))
			return;
		if (!same(s->buf, i, size, dir))
			bad++;
	}
	check(!bad, "%u WRITEs + READs of %u bytes %s -> %s: %u wrong (%.0f ms)",
	      count, size, s->name, r->name, bad, now_ms() - t0);
}

static void mode_stream(unsigned int count, unsigned int size)
{
	/*
	 * rxe's responder in a starved guest (a loaded host, the debug
	 * kernel) fell 1.1 s behind the model's requests, and retry_cnt 7
	 * of 67 ms timeouts (14) ran out: what a card does with those
	 * values too, but not what this test is about
	 */
	struct qp_params p = { .timeout = SLOW_GUEST_TIMEOUT, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	struct qp_params pb = p;

	/*
	 * rxe takes retry_cnt 7 as infinite (rxe_comp.c), 6 it counts. Its
	 * stall (rxe_stalled()) begins with its timer firing while the ACK
	 * of a message's last packet is on its way, which a slow guest
	 * makes likely at 67 ms: 537 ms makes it rare, and a lost packet
	 * of rxe's still comes again within the step's time.
	 */
	if (is_rxe(&b))
		pb.retry_cnt = RXE_RETRY_CNT;
	connect_qps(&p, &pb);
	/* each part on what the one before left: none after a failure */
	stream_send(&a, &b, count, size, 0);
	if (!failures)
		stream_send(&b, &a, count, size, 1);
	/*
	 * A's every other READ fenced (the model's starts an empty window,
	 * placed as it comes), not B's: rxe waits forever to send again a
	 * fenced READ whose response was lost (its fence check counts the
	 * READ's own outstanding slot)
	 */
	if (!failures)
		stream_rdma(&a, &b, count, size, 2, 1);
	if (!failures)
		stream_rdma(&b, &a, count, size, 3, 0);
}

#define WINDOW	32

/*
 * A's completions of @n WQEs from @id0, in order and successful; those
 * of READs (every one, or every even one with @mixed) with byte count
 * @rd_len.
 */
static int window_done_rd(struct end *s, unsigned int id0, unsigned int n,
			  const char *what, unsigned int rd_len, int mixed)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!poll_one(s, &wc, WAIT_MS)) {
			check(0, "%s %u from %s: no completion", what, id0 + i,
			      s->name);
			return 0;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != id0 + i) {
			check(0, "%s %u from %s: completion %llu, %s", what,
			      id0 + i, s->name, (unsigned long long)wc.wr_id,
			      ibv_wc_status_str(wc.status));
			return 0;
		}
		if (rd_len && (!mixed || !(i & 1)) &&
		    (wc.opcode != IBV_WC_RDMA_READ || wc.byte_len != rd_len)) {
			check(0, "%s %u from %s: opcode %d, %u bytes, not a READ of %u",
			      what, id0 + i, s->name, wc.opcode, wc.byte_len,
			      rd_len);
			return 0;
		}
	}
	return 1;
}

static int window_done(struct end *s, unsigned int id0, unsigned int n,
		       const char *what)
{
	return window_done_rd(s, id0, n, what, 0, 0);
}

static void mode_window(unsigned int count, unsigned int size)
{
	/* SLOW_GUEST_TIMEOUT: see mode_stream() */
	struct qp_params p = { .timeout = SLOW_GUEST_TIMEOUT, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	unsigned int i, k, got = 0, bad = 0, wbad = 0, done = 0, n;
	unsigned int rbad = 0, mgot = 0, mbad = 0, msends = 0;
	struct ibv_wc wc;
	double t0;

	connect_qps(&p, &p);
	t0 = now_ms();
	for (k = 0; k < count; k += n) {
		n = count - k < WINDOW ? count - k : WINDOW;
		memset(b.buf, 0, b.buf_len);
		for (i = 0; i < n; i++)
			post_recv(&b, k + i, b.buf + (size_t)i * size, size);
		for (i = 0; i < n; i++) {
			fill(a.src + (size_t)i * size, k + i, size, 4);
			post_send(&a, IBV_WR_SEND, k + i,
				  a.src + (size_t)i * size, size, 0, 0);
		}
		if (!window_done(&a, k, n, "SEND"))
			return;
		for (i = 0; i < n; i++) {
			if (!poll_one(&b, &wc, WAIT_MS))
				break;
			if (wc.status != IBV_WC_SUCCESS || wc.wr_id != k + i ||
			    wc.byte_len != size ||
			    !same(b.buf + (size_t)i * size, k + i, size, 4))
				bad++;
			got++;
		}
		/* the WRITEs: to the second half of B's buffer, each its own */
		for (i = 0; i < n; i++) {
			fill(a.src + (size_t)i * size, k + i, size, 5);
			post_send(&a, IBV_WR_RDMA_WRITE, k + i,
				  a.src + (size_t)i * size, size,
				  (uintptr_t)b.buf + (size_t)(WINDOW + i) * size,
				  b.mr->rkey);
		}
		if (!window_done(&a, k, n, "WRITE"))
			return;
		for (i = 0; i < n; i++)
			if (!same(b.buf + (size_t)(WINDOW + i) * size, k + i,
				  size, 5))
				wbad++;
		/* those slots READ back into A, all at once */
		memset(a.buf, 0, a.buf_len);
		for (i = 0; i < n; i++)
			post_send(&a, IBV_WR_RDMA_READ, k + i,
				  a.buf + (size_t)i * size, size,
				  (uintptr_t)b.buf + (size_t)(WINDOW + i) * size,
				  b.mr->rkey);
		if (!window_done_rd(&a, k, n, "READ", size, 0))
			return;
		for (i = 0; i < n; i++)
			if (!same(a.buf + (size_t)i * size, k + i, size, 5))
				rbad++;
		/* READ, SEND, READ, SEND, ... at once */
		memset(a.buf, 0, a.buf_len);
		for (i = 1; i < n; i += 2)
			post_recv(&b, k + i, b.buf + (size_t)i * size, size);
		for (i = 0; i < n; i++) {
			if (i & 1) {
				fill(a.src + (size_t)i * size, k + i, size, 6);
				post_send(&a, IBV_WR_SEND, k + i,
					  a.src + (size_t)i * size, size, 0, 0);
				msends++;
				continue;
			}
			post_send(&a, IBV_WR_RDMA_READ, k + i,
				  a.buf + (size_t)i * size, size,
				  (uintptr_t)b.buf + (size_t)(WINDOW + i) * size,
				  b.mr->rkey);
		}
		if (!window_done_rd(&a, k, n, "READ/SEND", size, 1))
			return;
		for (i = 0; i < n; i += 2)
			if (!same(a.buf + (size_t)i * size, k + i, size, 5))
				rbad++;
		for (i = 1; i < n; i += 2) {
			if (!poll_one(&b, &wc, WAIT_MS))
				break;
			if (wc.status != IBV_WC_SUCCESS || wc.wr_id != k + i ||
			    wc.byte_len != size ||
			    !same(b.buf + (size_t)i * size, k + i, size, 6))
				mbad++;
			mgot++;
		}
		done += n;
	}
	/* nothing more: each SEND exactly once */
	while (poll_one(&b, &wc, 200))
		got++;
	check(done == count && got == count && !bad && !wbad,
	      "window %s -> %s: %u SENDs and %u WRITEs of %u bytes, %u at once: %u received, %u wrong, %u WRITEs wrong (%.0f ms)",
	      a.name, b.name, count, count, size, WINDOW, got, bad, wbad,
	      now_ms() - t0);
	check(done == count && !rbad && mgot == msends && !mbad,
	      "window %s -> %s: %u READs back at once and %u READs between %u SENDs: %u READs wrong, %u SENDs received, %u wrong",
	      a.name, b.name, count, count - msends, msends, rbad, mgot,
	      mbad);
}

/* A's IBV_EVENT_SQ_DRAINED within WAIT_MS; false on none. */
static int sq_drained(struct end *e)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	double end = now_ms() + WAIT_MS;
	int t, got = 0;

	while (!got && now_ms() < end) {
		t = (int)(end - now_ms());
		if (poll(&pfd, 1, t > 0 ? t : 0) <= 0)
			continue;
		if (ibv_get_async_event(e->ctx, &ev))
			fatal_err("ibv_get_async_event", errno);
		got = ev.event_type == IBV_EVENT_SQ_DRAINED &&
		      ev.element.qp == e->qp;
		ibv_ack_async_event(&ev);
	}
	return got;
}

/* B's receives @from..@to - 1, one SIZE slot each */
static void window_recvs(unsigned int from, unsigned int to, unsigned int size)
{
	unsigned int i;

	for (i = from; i < to; i++)
		post_recv(&b, i, b.buf + (size_t)i * size, size);
}

/* @count SENDs from A at once, each SIZE bytes of pattern @dir */
static void window_sends(unsigned int count, unsigned int size, int dir)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		fill(a.src + (size_t)i * size, i, size, dir);
		post_send(&a, IBV_WR_SEND, i, a.src + (size_t)i * size, size,
			  0, 0);
	}
}

/*
 * How many of @count SENDs B received in order, each once with its
 * bytes (pattern @dir), each completion within @wait_ms.
 */
static unsigned int window_received(unsigned int count, unsigned int size,
				    int dir, double wait_ms)
{
	unsigned int i;
	struct ibv_wc wc;

	for (i = 0; i < count; i++) {
		if (!poll_one(&b, &wc, wait_ms))
			break;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != i ||
		    wc.byte_len != size ||
		    !same(b.buf + (size_t)i * size, i, size, dir))
			break;
	}
	return i;
}

static void mode_sqd(unsigned int count, unsigned int size)
{
	/* SLOW_GUEST_TIMEOUT: see mode_stream() */
	struct qp_params p = { .timeout = SLOW_GUEST_TIMEOUT, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	unsigned int n = 0, got = 0, bad = 0, late = 0, more = 0;
	struct ibv_qp_attr at;
	struct ibv_wc wc;

	connect_qps(&p, &p);
	window_recvs(0, count, size);
	post_recv(&b, count, b.buf + (size_t)count * size, size);
	window_sends(count, size, 6);
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_SQD;
	at.en_sqd_async_notify = 1;
	if (ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY))
		fatal_err("RTS2SQD", errno);
	if (!sq_drained(&a)) {
		check(0, "sqd: no SQ_DRAINED from %s", a.name);
		return;
	}
	/* drained: what began has completed, in order, all successes */
	while (n < count && ibv_poll_cq(a.cq, 1, &wc) == 1) {
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != n) {
			bad = 1;
			break;
		}
		n++;
	}
	check(n >= 1 && !bad,
	      "sqd: %u of %u SENDs begun before SQD, complete in order when SQ_DRAINED came",
	      n, count);
	got = window_received(n, size, 6, WAIT_MS);
	check(got == n, "sqd: %u of those %u SENDs received once with their data",
	      got, n);
	/* SQD holds: nothing begins, so nothing completes or arrives */
	while (poll_one(&a, &wc, 250))
		late++;
	while (poll_one(&b, &wc, 250))
		more++;
	check(!late && !more,
	      "sqd: in SQD after SQ_DRAINED, %u more completions at %s, %u more receives at %s",
	      late, a.name, more, b.name);
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(a.qp, &at, IBV_QP_STATE))
		fatal_err("SQD2RTS", errno);
	/* the rest go now, in order, then one more SEND */
	fill(a.src + (size_t)count * size, count, size, 6);
	post_send(&a, IBV_WR_SEND, count, a.src + (size_t)count * size, size,
		  0, 0);
	if (!window_done(&a, n, count + 1 - n, "SEND"))
		return;
	for (got = n; got <= count; got++) {
		if (!poll_one(&b, &wc, WAIT_MS) ||
		    wc.status != IBV_WC_SUCCESS || wc.wr_id != got ||
		    wc.byte_len != size ||
		    !same(b.buf + (size_t)got * size, got, size, 6))
			break;
	}
	check(got == count + 1,
	      "sqd: SQD to RTS, the %u SENDs not begun and one more go: %u of %u received in order with their data",
	      count - n, got - n, count + 1 - n);
}

/* A's completion @id on @s with @st; false (a FAIL) if not. */
static int want_wc(struct end *s, uint64_t id, enum ibv_wc_status st,
		   const char *what)
{
	struct ibv_wc wc;

	if (!poll_one(s, &wc, WAIT_MS)) {
		check(0, "%s: no completion for %llu", what,
		      (unsigned long long)id);
		return 0;
	}
	if (wc.wr_id != id || wc.status != st) {
		check(0, "%s: completion %llu %s, want %llu %s", what,
		      (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		      (unsigned long long)id, ibv_wc_status_str(st));
		return 0;
	}
	return 1;
}

/* Fresh QPs on both ends (the last test left them in ERR). */
static void fresh_qps(const struct qp_params *p)
{
	if (a.qp && ibv_destroy_qp(a.qp))
		fatal_err("ibv_destroy_qp", errno);
	if (b.qp && ibv_destroy_qp(b.qp))
		fatal_err("ibv_destroy_qp", errno);
	while (ibv_poll_cq(a.cq, 1, &(struct ibv_wc){}) > 0)
		;
	while (ibv_poll_cq(b.cq, 1, &(struct ibv_wc){}) > 0)
		;
	connect_qps(p, p);
}

static unsigned int nonzero_bytes(const unsigned char *p, size_t n)
{
	unsigned int nz = 0;

	while (n--)
		nz += !!*p++;
	return nz;
}

static void mode_big_err(unsigned int size)
{
	struct qp_params p = { .timeout = 14, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	struct ibv_send_wr wr, *bad_wr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	double t0;
	int ok;

	/* a SEND twice the size of B's receive */
	fresh_qps(&p);
	fill(a.src, 0, size, 9);
	post_recv(&b, 1, b.buf, size / 2);
	post_send(&a, IBV_WR_SEND, 2, a.src, size, 0, 0);
	ok = want_wc(&a, 2, IBV_WC_REM_INV_REQ_ERR, "big SEND, A");
	ok = want_wc(&b, 1, IBV_WC_LOC_LEN_ERR, "big SEND, B") && ok;
	check(ok && qp_state(&b) == IBV_QPS_ERR,
	      "SEND of %u bytes %s -> %s into a receive of %u: REM_INV_REQ_ERR, LOC_LEN_ERR, %s's QP in ERR",
	      size, a.name, b.name, size / 2, b.name);

	/* a WRITE reaching half its length past B's MR */
	fresh_qps(&p);
	memset(b.buf, 0, 2 * b.buf_len);
	post_send(&a, IBV_WR_RDMA_WRITE, 3, a.src, size,
		  (uintptr_t)b.buf + 2 * b.buf_len - size / 2, b.mr->rkey);
	ok = want_wc(&a, 3, IBV_WC_REM_ACCESS_ERR, "big WRITE past the MR");
	check(ok && !nonzero_bytes(b.buf, 2 * b.buf_len),
	      "WRITE of %u bytes %s -> %s, %u past the MR's end: REM_ACCESS_ERR, %u bytes written",
	      size, a.name, b.name, size / 2,
	      nonzero_bytes(b.buf, 2 * b.buf_len));

	/* a WRITE with immediate, B's receive posted late */
	fresh_qps(&p);
	memset(b.buf, 0, 2 * b.buf_len);
	fill(a.src, 1, size, 9);
	sge = (struct ibv_sge){ .addr = (uintptr_t)a.src, .length = size,
				.lkey = a.mr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = 4, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x5eed),
	};
	wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
	wr.wr.rdma.rkey = b.mr->rkey;
	t0 = now_ms();
	if (ibv_post_send(a.qp, &wr, &bad_wr))
		fatal_err("ibv_post_send", errno);
	while (now_ms() < t0 + 200)
		;
	post_recv(&b, 5, b.src, 16);
	ok = want_wc(&a, 4, IBV_WC_SUCCESS, "big WRITE with immediate, A");
	ok = ok && poll_one(&b, &wc, WAIT_MS) && wc.wr_id == 5 &&
	     wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	     wc.byte_len == size && wc.imm_data == htobe32(0x5eed);
	check(ok && same(b.buf, 1, size, 9) && !poll_one(&b, &wc, 200),
	      "WRITE with immediate of %u bytes %s -> %s, receive posted after 200 ms: done once, %u bytes and the immediate, data there (%.0f ms)",
	      size, a.name, b.name, size, now_ms() - t0);

	/* B's QP on an SRQ: its WQE taken with the first packet */
	b.srq = ibv_create_srq(b.pd, &(struct ibv_srq_init_attr){
				       .attr = { .max_wr = 4, .max_sge = 1 } });
	if (!b.srq)
		fatal_err("ibv_create_srq", errno);
	fresh_qps(&p);
	memset(b.buf, 0, 2 * b.buf_len);
	fill(a.src, 2, size, 9);
	post_srq_recv(&b, 6, b.buf, size);
	post_send(&a, IBV_WR_SEND, 7, a.src, size, 0, 0);
	ok = want_wc(&a, 7, IBV_WC_SUCCESS, "big SEND into the SRQ, A");
	ok = ok && poll_one(&b, &wc, WAIT_MS) && wc.wr_id == 6 &&
	     wc.status == IBV_WC_SUCCESS && wc.byte_len == size;
	check(ok && same(b.buf, 2, size, 9),
	      "SEND of %u bytes %s -> %s's SRQ: done, the data there", size,
	      a.name, b.name);
	post_srq_recv(&b, 8, b.buf, size / 2);
	post_send(&a, IBV_WR_SEND, 9, a.src, size, 0, 0);
	ok = want_wc(&a, 9, IBV_WC_REM_INV_REQ_ERR, "big SEND, SRQ, A");
	ok = want_wc(&b, 8, IBV_WC_LOC_LEN_ERR, "big SEND, SRQ, B") && ok;
	check(ok, "SEND of %u bytes %s -> %s's SRQ receive of %u: REM_INV_REQ_ERR, LOC_LEN_ERR",
	      size, a.name, b.name, size / 2);
}

static void mode_big_flush(unsigned int size)
{
	struct qp_params pa = { .timeout = 8, .retry_cnt = 1,
				.rnr_retry = 7, .min_rnr_timer = 1 };
	struct qp_params pb = { .timeout = 14, .retry_cnt = 7,
				.rnr_retry = 7, .min_rnr_timer = 1 };
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;
	double t0;
	int got, flushed, other, aerr;

	b.srq = ibv_create_srq(b.pd, &(struct ibv_srq_init_attr){
				       .attr = { .max_wr = 4, .max_sge = 1 } });
	if (!b.srq)
		fatal_err("ibv_create_srq", errno);
	create_qp(&a);
	create_qp(&b);
	connect_one(&a, &b, &pa);
	connect_one(&b, &a, &pb);
	post_srq_recv(&b, 20, b.buf, size);
	post_srq_recv(&b, 21, b.src, size);
	fill(a.src, 3, size, 9);
	post_send(&a, IBV_WR_SEND, 22, a.src, size, 0, 0);
	t0 = now_ms();
	while (now_ms() < t0 + 500)
		;
	if (ibv_modify_qp(b.qp, &at, IBV_QP_STATE))
		fatal_err("2ERR", errno);
	got = poll_one(&b, &wc, WAIT_MS);
	flushed = got && wc.wr_id == 20 && wc.status == IBV_WC_WR_FLUSH_ERR;
	if (!got)
		printf("# %s: no completion in %d ms\n", b.name, WAIT_MS);
	else if (!flushed)
		printf("# %s: %s, wr_id %llu\n", b.name,
		       ibv_wc_status_str(wc.status),
		       (unsigned long long)wc.wr_id);
	other = poll_one(&b, &wc, 200);
	aerr = poll_one(&a, &wc, WAIT_MS) && wc.wr_id == 22 &&
	       wc.status != IBV_WC_SUCCESS;
	check(flushed && !other && aerr,
	      "SEND of %u bytes %s -> %s's SRQ, %s's QP to ERR after 500 ms: the receive it took WR_FLUSH_ERR, the other still the SRQ's, %s's SEND %s",
	      size, a.name, b.name, b.name, a.name,
	      aerr ? ibv_wc_status_str(wc.status) : "not failed");
}

static void mode_window_err(unsigned int count, unsigned int size)
{
	struct qp_params p = { .timeout = 14, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	unsigned int i, bad = count / 2, ok = 1, wrong = 0;
	enum ibv_wc_status st;

	connect_qps(&p, &p);
	for (i = 0; i < count; i++) {
		fill(a.src + (size_t)i * size, i, size, 7);
		post_send(&a, IBV_WR_RDMA_WRITE, i, a.src + (size_t)i * size,
			  size, (uintptr_t)b.buf + (size_t)i * size,
			  i == bad ? b.mr_na->rkey : b.mr->rkey);
	}
	for (i = 0; ok && i < count; i++) {
		st = i < bad ? IBV_WC_SUCCESS : i == bad ?
		     IBV_WC_REM_ACCESS_ERR : IBV_WC_WR_FLUSH_ERR;
		ok = want_wc(&a, i, st, "window-err");
	}
	for (i = 0; i < bad; i++)
		wrong += !same(b.buf + (size_t)i * size, i, size, 7);
	check(ok && !wrong && qp_state(&a) == IBV_QPS_ERR,
	      "window-err %s -> %s: %u WRITEs at once, WRITE %u (from 0) without access: %u before it done (%u wrong), it REM_ACCESS_ERR, %u flushed, QP in ERR",
	      a.name, b.name, count, bad, bad, wrong, count - bad - 1);
}

static void mode_window_rnr(unsigned int count, unsigned int size)
{
	struct qp_params p = { .timeout = 14, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	unsigned int i, half = count / 2, ok = 1, got = 0;
	struct ibv_wc wc;

	connect_qps(&p, &p);
	window_recvs(0, half, size);
	window_sends(count, size, 8);
	for (i = 0; ok && i < half; i++)
		ok = want_wc(&a, i, IBV_WC_SUCCESS, "window-rnr, first half");
	if (!ok)
		return;
	/* the rest is refused with RNR NAKs: nothing completes meanwhile */
	if (poll_one(&a, &wc, 200)) {
		check(0, "window-rnr: completion %llu (%s) with no receive posted",
		      (unsigned long long)wc.wr_id,
		      ibv_wc_status_str(wc.status));
		return;
	}
	window_recvs(half, count, size);
	for (i = half; ok && i < count; i++)
		ok = want_wc(&a, i, IBV_WC_SUCCESS, "window-rnr, second half");
	got = window_received(count, size, 8, WAIT_MS);
	if (poll_one(&b, &wc, 200))
		got = 0;
	check(ok && got == count,
	      "window-rnr %s -> %s: %u SENDs at once, receives for %u: they complete, the rest waits 200 ms, then completes; %u received once with their data",
	      a.name, b.name, count, half, got);
}

static void mode_window_flush(unsigned int count, unsigned int size)
{
	struct qp_params p = { .timeout = 14, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };
	unsigned int i, ok = 0, flushed = 0, order = 1, got = 0;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;

	connect_qps(&p, &p);
	window_recvs(0, count, size);
	window_sends(count, size, 9);
	if (ibv_modify_qp(a.qp, &at, IBV_QP_STATE))
		fatal_err("2ERR", errno);
	for (i = 0; i < count; i++) {
		if (!poll_one(&a, &wc, WAIT_MS)) {
			order = 0;
			break;
		}
		if (wc.wr_id != i)
			order = 0;
		if (wc.status == IBV_WC_SUCCESS && !flushed)
			ok++;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			flushed++;
		else
			order = 0;
	}
	got = window_received(count, size, 9, 500);
	check(order && ok + flushed == count && got >= ok,
	      "window-flush %s -> %s: %u SENDs at once, QP to ERR at once: %u completed, then %u flushed, in order; %u received in order with their data",
	      a.name, b.name, count, ok, flushed, got);
}

static void post_atomic(struct end *e, enum ibv_wr_opcode op, uint64_t id,
			void *addr, uint64_t raddr, uint32_t rkey,
			uint64_t add_swap, uint64_t compare)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = 8,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.compare_add = compare;
		wr.wr.atomic.swap = add_swap;
	} else {
		wr.wr.atomic.compare_add = add_swap;
	}
	if (ibv_post_send(e->qp, &wr, &bad))
		fatal_err("ibv_post_send (atomic)", errno);
}

/* One atomic's completion on @s: its status and opcode checked. */
static int atomic_done(struct end *s, enum ibv_wc_opcode want,
		       struct ibv_wc *wc)
{
	if (!poll_one(s, wc, WAIT_MS)) {
		check(0, "atomic from %s: no completion", s->name);
		return 0;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != want) {
		check(0, "atomic %llu from %s: %s, opcode %d (want %d)",
		      (unsigned long long)wc->wr_id, s->name,
		      ibv_wc_status_str(wc->status), wc->opcode, want);
		return 0;
	}
	return 1;
}

/*
 * @count fetch & adds of 1 from @s to the counter at the start of @r's
 * buffer, @depth outstanding, each original value into its own slot of
 * @s's buffer; then compare & swaps. The counter is read directly: both
 * ends are this process's memory.
 */
static void atomic_run(struct end *s, struct end *r, unsigned int count,
		       unsigned int depth)
{
	volatile uint64_t *ctr = (volatile uint64_t *)r->buf;
	uint64_t *res = (uint64_t *)s->buf;
	unsigned int i, posted = 0, done = 0, ncas = count / 4, bad = 0;
	unsigned char *seen = calloc(count, 1);
	struct ibv_wc wc;
	double t0 = now_ms();

	if (!seen)
		fatal_err("calloc", ENOMEM);
	*ctr = 0;
	memset(res, 0xff, (size_t)count * 8);
	while (done < count) {
		while (posted < count && posted - done < depth) {
			post_atomic(s, IBV_WR_ATOMIC_FETCH_AND_ADD, posted,
				    &res[posted], (uintptr_t)ctr, r->mr->rkey,
				    1, 0);
			posted++;
		}
		if (!atomic_done(s, IBV_WC_FETCH_ADD, &wc))
			goto out;
		if (wc.wr_id >= count || res[wc.wr_id] >= count ||
		    seen[res[wc.wr_id]]++)
			bad++;
		done++;
	}
	check(!bad && *ctr == count,
	      "%u fetch & adds %s -> %s, %u at a time: counter %llu (want %u), %u original values out of range or repeated (%.0f ms)",
	      count, s->name, r->name, depth, (unsigned long long)*ctr, count,
	      bad, now_ms() - t0);
	/* each swap moves the counter on by one, from what it returned */
	t0 = now_ms();
	for (i = 0; i < ncas; i++) {
		res[0] = ~0ULL;
		post_atomic(s, IBV_WR_ATOMIC_CMP_AND_SWP, i, &res[0],
			    (uintptr_t)ctr, r->mr->rkey, count + i + 1,
			    count + i);
		if (!atomic_done(s, IBV_WC_COMP_SWAP, &wc))
			goto out;
		if (res[0] != count + i)
			bad++;
	}
	/* a compare that does not match: the value back, nothing swapped */
	res[0] = ~0ULL;
	post_atomic(s, IBV_WR_ATOMIC_CMP_AND_SWP, ncas, &res[0],
		    (uintptr_t)ctr, r->mr->rkey, 12345, count + ncas + 1);
	if (!atomic_done(s, IBV_WC_COMP_SWAP, &wc))
		goto out;
	check(!bad && res[0] == count + ncas && *ctr == count + ncas,
	      "%u + 1 compare & swaps %s -> %s: counter %llu (want %u), last original %llu, %u wrong (%.0f ms)",
	      ncas, s->name, r->name, (unsigned long long)*ctr, count + ncas,
	      (unsigned long long)res[0], bad, now_ms() - t0);
out:
	free(seen);
}

/* A fetch & add from @s the responder @r refuses, on new QPs. */
static void atomic_refused(struct end *s, struct end *r, int misaligned)
{
	static const struct qp_params p = { .timeout = 14, .retry_cnt = 7,
					    .rnr_retry = 7,
					    .min_rnr_timer = 1 };
	enum ibv_wc_status want = misaligned ? IBV_WC_REM_INV_REQ_ERR :
					       IBV_WC_REM_ACCESS_ERR;
	volatile uint64_t *ctr = (volatile uint64_t *)r->buf;
	uint64_t before = *ctr;
	struct ibv_wc wc;
	int got;

	connect_qps(&p, &p);
	post_atomic(s, IBV_WR_ATOMIC_FETCH_AND_ADD, 7, s->buf,
		    (uintptr_t)r->buf + (misaligned ? 4 : 0),
		    misaligned ? r->mr->rkey : r->mr_na->rkey, 1, 0);
	got = poll_one(s, &wc, WAIT_MS);
	check(got && wc.status == want && *ctr == before,
	      "fetch & add %s -> %s %s: %s (want %s), counter %s", s->name,
	      r->name, misaligned ? "not 8-byte aligned" :
	      "by an rkey without atomic access",
	      got ? ibv_wc_status_str(wc.status) : "nothing",
	      ibv_wc_status_str(want), *ctr == before ? "unchanged" : "CHANGED");
}

static void mode_atomic(unsigned int count, unsigned int depth)
{
	struct qp_params p = { .timeout = 14, .retry_cnt = 7,
			       .rnr_retry = 7, .min_rnr_timer = 1 };

	connect_qps(&p, &p);
	atomic_run(&a, &b, count, depth);
	atomic_run(&b, &a, count, depth);
}

static void mode_atomic_err(void)
{
	atomic_refused(&a, &b, 1);
	atomic_refused(&a, &b, 0);
	atomic_refused(&b, &a, 0);
}

#define PI_BLOCK	512	/* signature blocks: data, then PI */
#define PI_SIZE		8
#define PI_APP_TAG	0x5a17

/* A's QP for signature WQEs: created with mlx5dv for MKEY configure. */
static void create_sig_qp(struct end *e)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = sq_depth, .max_recv_wr = nrecv + 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 256 },	/* the UMR: KLMs + BSF */
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
		.pd = e->pd,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};

	e->qp = mlx5dv_create_qp(e->ctx, &ia, &dqa);
	if (!e->qp)
		fatal_err("mlx5dv_create_qp", errno);
}

/*
 * The MKEY configure WQE, between ibv_wr_start and ibv_wr_complete: the
 * MKEY over @nb blocks at @blocks in A's MR (memory T10-DIF, reference
 * tags from @ref, every tag checked; wire plain).
 */
static void sig_conf_wr_access(struct mlx5dv_qp_ex *dvqp,
			       struct mlx5dv_mkey *mkey, unsigned char *blocks,
			       unsigned int nb, uint32_t ref,
			       unsigned int access)
{
	struct mlx5dv_mkey_conf_attr conf = {};
	struct t10dif_sig sig;
	struct ibv_sge sge = {
		.addr = (uintptr_t)blocks, .lkey = a.mr->lkey,
		.length = nb * (PI_BLOCK + PI_SIZE),
	};

	mlx5dv_wr_mkey_configure(dvqp, mkey, 3, &conf);
	mlx5dv_wr_set_mkey_access_flags(dvqp, access);
	mlx5dv_wr_set_mkey_layout_list(dvqp, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(dvqp,
				     t10dif_sig_mem(&sig, PI_APP_TAG, ref));
}

static void sig_conf_wr(struct mlx5dv_qp_ex *dvqp, struct mlx5dv_mkey *mkey,
			unsigned char *blocks, unsigned int nb, uint32_t ref)
{
	sig_conf_wr_access(dvqp, mkey, blocks, nb, ref,
			   IBV_ACCESS_LOCAL_WRITE);
}

/*
 * The MKEY over @nb blocks at @blocks (sig_conf_wr), then @read ? an RDMA
 * READ of B's buffer into it : an RDMA WRITE from it into B's buffer; the
 * data WQE signaled.
 */
static void sig_post(struct mlx5dv_mkey *mkey, unsigned char *blocks,
		     unsigned int nb, uint32_t ref, int read, uint64_t id)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a.qp);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);

	ibv_wr_start(qpx);
	qpx->wr_id = id | 1ULL << 63;
	qpx->wr_flags = IBV_SEND_INLINE;
	sig_conf_wr(dvqp, mkey, blocks, nb, ref);
	qpx->wr_id = id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (read)
		ibv_wr_rdma_read(qpx, b.mr->rkey, (uintptr_t)b.buf);
	else
		ibv_wr_rdma_write(qpx, b.mr->rkey, (uintptr_t)b.buf);
	ibv_wr_set_sge(qpx, mkey->lkey, 0, nb * PI_BLOCK);
	if (ibv_wr_complete(qpx))
		fatal_err("ibv_wr_complete (MKEY configure + RDMA)", errno);
}

/* The data WQE @id of sig_post completed well, and the MKEY saw no error. */
static int sig_done(struct mlx5dv_mkey *mkey, uint64_t id, const char *what)
{
	struct mlx5dv_mkey_err err;
	struct ibv_wc wc;

	if (!poll_one(&a, &wc, WAIT_MS) || wc.status != IBV_WC_SUCCESS ||
	    wc.wr_id != id) {
		check(0, "%s %llu: %s", what, (unsigned long long)id,
		      ibv_wc_status_str(wc.status));
		return 0;
	}
	if (mlx5dv_mkey_check(mkey, &err) || err.err_type != MLX5DV_MKEY_NO_ERR) {
		check(0, "%s %llu: mlx5dv_mkey_check found error %d", what,
		      (unsigned long long)id, err.err_type);
		return 0;
	}
	return 1;
}

/* Blocks with PI, and each block's PI checked (the memory domain's). */
static void sig_fill(unsigned char *blocks, unsigned int nb, unsigned int msg,
		     uint32_t ref)
{
	unsigned int k;
	unsigned char *p;

	for (k = 0; k < nb; k++) {
		p = blocks + (size_t)k * (PI_BLOCK + PI_SIZE);
		fill(p, msg * nb + k, PI_BLOCK, 4);
		t10dif_pi(p + PI_BLOCK, p, PI_BLOCK, PI_APP_TAG, ref + k);
	}
}

static int sig_same(const unsigned char *blocks, unsigned int nb,
		    unsigned int msg, uint32_t ref)
{
	unsigned char pi[PI_SIZE];
	const unsigned char *p;
	unsigned int k;

	for (k = 0; k < nb; k++) {
		p = blocks + (size_t)k * (PI_BLOCK + PI_SIZE);
		t10dif_pi(pi, p, PI_BLOCK, PI_APP_TAG, ref + k);
		if (!same(p, msg * nb + k, PI_BLOCK, 5) ||
		    memcmp(p + PI_BLOCK, pi, PI_SIZE))
			return 0;
	}
	return 1;
}

/* B's side of message @msg, plain data: what sig_same wants in A's blocks */
static void plain_fill(unsigned char *buf, unsigned int nb, unsigned int msg)
{
	unsigned int k;

	for (k = 0; k < nb; k++)
		fill(buf + (size_t)k * PI_BLOCK, msg * nb + k, PI_BLOCK, 5);
}

/* How many of B's @nb blocks are not A's message @msg (sig_fill) stripped */
static unsigned int plain_bad(const unsigned char *buf, unsigned int nb,
			      unsigned int msg)
{
	unsigned int k, bad = 0;

	for (k = 0; k < nb; k++)
		if (!same(buf + (size_t)k * PI_BLOCK, msg * nb + k,
			  PI_BLOCK, 4))
			bad++;
	return bad;
}

/*
 * sig, uc-sig, sig-remote: A's RC QP for MKEY configure, B's, connected;
 * the MKEY. Messages of @size: beyond 1 MiB the ACK timeout is 1 s, not
 * 67 ms: a READ asked for again from a lost response waits while rxe
 * sends all of the rest of the first one (its responder finishes a
 * READ's responses before it takes the next request, rxe_resp.c
 * get_req()), which on a debug kernel takes longer than 67 ms for 2 MiB,
 * and each timeout meanwhile asks again and is answered from there
 * again (retry_cnt of them in a row: IBV_WC_RETRY_EXC_ERR, 3 of 3 runs
 * at 1 % loss).
 */
static struct mlx5dv_mkey *sig_setup(unsigned int size)
{
	struct qp_params p = { .timeout = size > (1U << 20) ? 18 : 14,
			       .retry_cnt = 7, .rnr_retry = 7,
			       .min_rnr_timer = 1 };
	struct mlx5dv_mkey_init_attr ma = {
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 1,
	};
	struct mlx5dv_mkey *mkey;

	create_sig_qp(&a);
	create_qp(&b);
	connect_one(&a, &b, &p);
	connect_one(&b, &a, &p);
	ma.pd = a.pd;
	mkey = mlx5dv_create_mkey(&ma);
	if (!mkey)
		fatal_err("mlx5dv_create_mkey (signature)", errno);
	return mkey;
}

static void mode_sig(unsigned int count, unsigned int size)
{
	unsigned int nb = size / PI_BLOCK, i, wr_bad = 0, rd_bad = 0;
	struct mlx5dv_mkey *mkey = sig_setup(size);
	double t0 = now_ms();
	uint32_t ref;

	for (i = 0; i < count; i++) {
		ref = 0x1000 + i * nb;
		/* out: PI checked and stripped, B gets the data alone */
		sig_fill(a.src, nb, i, ref);
		memset(b.buf, 0, size);
		sig_post(mkey, a.src, nb, ref, 0, 2 * i);
		if (!sig_done(mkey, 2 * i, "signature WRITE"))
			break;
		wr_bad += plain_bad(b.buf, nb, i);
		/* in: B's data, PI inserted in A's blocks */
		plain_fill(b.buf, nb, i);
		memset(a.buf, 0, (size_t)nb * (PI_BLOCK + PI_SIZE));
		sig_post(mkey, a.buf, nb, ref, 1, 2 * i + 1);
		if (!sig_done(mkey, 2 * i + 1, "signature READ"))
			break;
		if (!sig_same(a.buf, nb, i, ref))
			rd_bad++;
	}
	check(i == count && !wr_bad,
	      "%u signature WRITEs of %u blocks %s -> %s: PI checked and stripped, %u blocks wrong",
	      i, nb, a.name, b.name, wr_bad);
	check(i == count && !rd_bad,
	      "%u signature READs of %u blocks %s <- %s: data with PI inserted, %u wrong (%.0f ms)",
	      i, nb, a.name, b.name, rd_bad, now_ms() - t0);
	mlx5dv_destroy_mkey(mkey);
}

/*
 * sig-remote: the MKEY over A's @nb blocks at @blocks with remote read and
 * write access, its configure WQE signaled and waited for.
 */
static int sig_remote_conf(struct mlx5dv_mkey *mkey, unsigned char *blocks,
			   unsigned int nb, uint32_t ref, uint64_t id)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a.qp);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);

	ibv_wr_start(qpx);
	qpx->wr_id = id;
	qpx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	sig_conf_wr_access(dvqp, mkey, blocks, nb, ref,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE);
	if (ibv_wr_complete(qpx))
		fatal_err("ibv_wr_complete (MKEY configure)", errno);
	return stream_wc(&a, id, "MKEY configure");
}

/*
 * B reads A's blocks through A's signature MKEY (A's PI checked and
 * stripped as the responses leave), then writes its data through it (PI
 * inserted as the packets land), COUNT times: the responder's side of
 * signature keys on the wire, what an NVMe-oF host with T10-PI offers
 * its target.
 */
static void mode_sig_remote(unsigned int count, unsigned int size)
{
	unsigned int nb = size / PI_BLOCK, i, rd_bad = 0, wr_bad = 0;
	struct mlx5dv_mkey *mkey = sig_setup(size);
	struct mlx5dv_mkey_err err;
	double t0 = now_ms();
	uint32_t ref;

	for (i = 0; i < count; i++) {
		ref = 0x2000 + i * nb;
		sig_fill(a.src, nb, i, ref);
		if (!sig_remote_conf(mkey, a.src, nb, ref, 4 * i))
			break;
		memset(b.buf, 0, size);
		post_send(&b, IBV_WR_RDMA_READ, 4 * i + 1, b.buf, size, 0,
			  mkey->rkey);
		if (!stream_wc(&b, 4 * i + 1, "READ through the MKEY"))
			break;
		rd_bad += plain_bad(b.buf, nb, i);
		plain_fill(b.src, nb, i);
		memset(a.src, 0, (size_t)nb * (PI_BLOCK + PI_SIZE));
		post_send(&b, IBV_WR_RDMA_WRITE, 4 * i + 2, b.src, size, 0,
			  mkey->rkey);
		if (!stream_wc(&b, 4 * i + 2, "WRITE through the MKEY"))
			break;
		if (!sig_same(a.src, nb, i, ref))
			wr_bad++;
		if (mlx5dv_mkey_check(mkey, &err) ||
		    err.err_type != MLX5DV_MKEY_NO_ERR) {
			check(0, "sig-remote %u: mlx5dv_mkey_check found error %d",
			      i, err.err_type);
			break;
		}
	}
	check(i == count && !rd_bad,
	      "%u READs of %u blocks %s <- %s's signature MKEY: PI checked and stripped, %u blocks wrong",
	      i, nb, b.name, a.name, rd_bad);
	check(i == count && !wr_bad,
	      "%u WRITEs of %u blocks %s -> %s's signature MKEY: PI inserted, %u wrong (%.0f ms)",
	      i, nb, b.name, a.name, wr_bad, now_ms() - t0);
	mlx5dv_destroy_mkey(mkey);
}

/* uc-sig: a UC QP of @e, beside its RC one, connected to @pqp of @peer. */
static struct ibv_qp *uc_qp(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UC,
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.cap = { .max_send_wr = sq_depth, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);

	if (!qp)
		fatal_err("ibv_create_qp (UC)", errno);
	return qp;
}

static void uc_connect(struct end *e, struct ibv_qp *qp, struct end *peer,
		       struct ibv_qp *pqp)
{
	struct ibv_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		fatal_err("UC INIT", errno);
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = pqp->qp_num;
	at.rq_psn = 0x456;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = peer->gid;
	at.ah_attr.grh.sgid_index = e->gid_index;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		fatal_err("UC RTR", errno);
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0x456;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN))
		fatal_err("UC RTS", errno);
}

/* The MKEY configured alone on A's RC QP (sig_conf_wr), and done. */
static int sig_configure(struct mlx5dv_mkey *mkey, unsigned char *blocks,
			 unsigned int nb, uint32_t ref, uint64_t id)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a.qp);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	struct ibv_wc wc;

	ibv_wr_start(qpx);
	qpx->wr_id = id;
	qpx->wr_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	sig_conf_wr(dvqp, mkey, blocks, nb, ref);
	if (ibv_wr_complete(qpx))
		fatal_err("ibv_wr_complete (MKEY configure)", errno);
	if (poll_one(&a, &wc, WAIT_MS) && wc.status == IBV_WC_SUCCESS &&
	    wc.wr_id == id)
		return 1;
	check(0, "MKEY configure %llu: %s", (unsigned long long)id,
	      ibv_wc_status_str(wc.status));
	return 0;
}

static void uc_post_recv(struct ibv_qp *qp, uint64_t id, uint64_t addr,
			 uint32_t lkey, uint32_t len)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = len ? 1 : 0 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		fatal_err("ibv_post_recv (UC)", errno);
}

static void uc_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op,
			 uint64_t id, uint64_t addr, uint32_t lkey,
			 uint32_t len, uint32_t imm)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(imm),
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
	wr.wr.rdma.rkey = b.mr->rkey;
	if (ibv_post_send(qp, &wr, &bad))
		fatal_err("ibv_post_send (UC)", errno);
}

/* One completion of @e for @id, successful, with @opcode. */
static int uc_wc(struct end *e, uint64_t id, enum ibv_wc_opcode opcode,
		 struct ibv_wc *wc, const char *what)
{
	if (poll_one(e, wc, WAIT_MS) && wc->status == IBV_WC_SUCCESS &&
	    wc->wr_id == id && wc->opcode == opcode)
		return 1;
	check(0, "%s %llu: %s, wr_id %llu, opcode %d", what,
	      (unsigned long long)id, ibv_wc_status_str(wc->status),
	      (unsigned long long)wc->wr_id, wc->opcode);
	return 0;
}

/*
 * uc-sig: signature keys on UC QPs on the wire. The MKEY is configured on
 * A's RC QP (libmlx5 configures none on UC) and used by A's UC QP, as any
 * QP of its PD may: RDMA WRITEs with immediate from A's T10-DIF blocks
 * through it (PI checked and stripped: B gets the data alone), SENDs of
 * B's plain data into a receive through it (PI inserted into A's
 * blocks); then one WRITE from blocks with a bad guard: it completes, B
 * gets the data, and mlx5dv_mkey_check names the guard error.
 */
static void mode_uc_sig(unsigned int count, unsigned int size)
{
	unsigned int nb = size / PI_BLOCK, i, k, wr_bad = 0, rd_bad = 0;
	struct mlx5dv_mkey *mkey = sig_setup(size);
	struct ibv_qp *ua = uc_qp(&a), *ub = uc_qp(&b);
	struct mlx5dv_mkey_err err;
	double t0 = now_ms();
	struct ibv_wc wc;
	uint32_t ref;

	uc_connect(&a, ua, &b, ub);
	uc_connect(&b, ub, &a, ua);
	for (i = 0; i < count; i++) {
		ref = 0x2000 + i * nb;
		/* out: PI checked and stripped, B gets the data alone */
		sig_fill(a.src, nb, i, ref);
		memset(b.buf, 0, size);
		if (!sig_configure(mkey, a.src, nb, ref, 4 * i))
			break;
		uc_post_recv(ub, 4 * i + 1, 0, 0, 0);
		uc_post_send(ua, IBV_WR_RDMA_WRITE_WITH_IMM, 4 * i + 1, 0,
			     mkey->lkey, nb * PI_BLOCK, i);
		if (!uc_wc(&a, 4 * i + 1, IBV_WC_RDMA_WRITE, &wc,
			   "UC signature WRITE") ||
		    !uc_wc(&b, 4 * i + 1, IBV_WC_RECV_RDMA_WITH_IMM, &wc,
			   "its immediate at B"))
			break;
		if (ntohl(wc.imm_data) != i)
			wr_bad++;
		if (mlx5dv_mkey_check(mkey, &err) ||
		    err.err_type != MLX5DV_MKEY_NO_ERR) {
			check(0, "UC signature WRITE %u: mlx5dv_mkey_check found error %d",
			      i, err.err_type);
			break;
		}
		wr_bad += plain_bad(b.buf, nb, i);
		/* in: B's data, PI inserted in A's blocks */
		plain_fill(b.src, nb, i);
		memset(a.buf, 0, (size_t)nb * (PI_BLOCK + PI_SIZE));
		if (!sig_configure(mkey, a.buf, nb, ref, 4 * i + 2))
			break;
		uc_post_recv(ua, 4 * i + 3, 0, mkey->lkey, nb * PI_BLOCK);
		uc_post_send(ub, IBV_WR_SEND, 4 * i + 3, (uintptr_t)b.src,
			     b.mr->lkey, nb * PI_BLOCK, 0);
		if (!uc_wc(&b, 4 * i + 3, IBV_WC_SEND, &wc, "UC SEND") ||
		    !uc_wc(&a, 4 * i + 3, IBV_WC_RECV, &wc,
			   "its receive through the MKEY"))
			break;
		if (wc.byte_len != nb * PI_BLOCK)
			rd_bad++;
		if (mlx5dv_mkey_check(mkey, &err) ||
		    err.err_type != MLX5DV_MKEY_NO_ERR) {
			check(0, "UC signature receive %u: mlx5dv_mkey_check found error %d",
			      i, err.err_type);
			break;
		}
		if (!sig_same(a.buf, nb, i, ref))
			rd_bad++;
	}
	check(i == count && !wr_bad,
	      "%u UC RDMA WRITEs with immediate of %u blocks %s -> %s through a signature MKEY: PI checked and stripped, %u wrong",
	      i, nb, a.name, b.name, wr_bad);
	check(i == count && !rd_bad,
	      "%u UC SENDs of %u blocks %s <- %s into a receive through it: PI inserted, %u wrong (%.0f ms)",
	      i, nb, a.name, b.name, rd_bad, now_ms() - t0);
	/* a bad guard in the last block: sent all the same, and named */
	ref = 0x3000;
	sig_fill(a.src, nb, count, ref);
	a.src[(size_t)nb * (PI_BLOCK + PI_SIZE) - PI_SIZE] ^= 0xff;
	memset(b.buf, 0, size);
	if (sig_configure(mkey, a.src, nb, ref, 4 * count)) {
		uc_post_recv(ub, 4 * count + 1, 0, 0, 0);
		uc_post_send(ua, IBV_WR_RDMA_WRITE_WITH_IMM, 4 * count + 1, 0,
			     mkey->lkey, nb * PI_BLOCK, count);
		if (uc_wc(&a, 4 * count + 1, IBV_WC_RDMA_WRITE, &wc,
			  "UC signature WRITE, bad guard") &&
		    uc_wc(&b, 4 * count + 1, IBV_WC_RECV_RDMA_WITH_IMM, &wc,
			  "its immediate at B")) {
			k = !mlx5dv_mkey_check(mkey, &err) &&
			    err.err_type == MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD;
			check(k && same(b.buf, count * nb, PI_BLOCK, 4),
			      "UC signature WRITE with a bad guard in block %u: completed, %s got the data, mlx5dv_mkey_check: error %d (bad guard %d), offset %llu",
			      nb - 1, b.name, err.err_type,
			      MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
			      (unsigned long long)err.err.sig.offset);
		}
	}
	mlx5dv_destroy_mkey(mkey);
	ibv_destroy_qp(ua);
	ibv_destroy_qp(ub);
}

int main(int argc, char **argv)
{
	unsigned long n1, n2;
	size_t len = 4096;
	int i;

	if (argc < 8 || argc > 9 + MAX_WATCH) {
		fprintf(stderr,
			"usage: wire_retry retry|link|rnr|rnr-peer|stream|big-err|big-flush|window|window-err|window-rnr|window-flush|sqd|atomic|atomic-err|sig|uc-sig DEV_A GID_A DEV_B GID_B N1 N2 [WIRE NAME=N...]\n");
		return 2;
	}
	if (argc > 8)
		wire_file = argv[8];
	for (i = 9; i < argc; i++, nwatch++)
		if (sscanf(argv[i], "%31[a-z_]=%lld", watch[nwatch].name,
			   &watch[nwatch].want) != 2)
			fatal_err(argv[i], EINVAL);
	n1 = strtoul(argv[6], NULL, 0);
	n2 = strtoul(argv[7], NULL, 0);
	if (!strcmp(argv[1], "stream")) {
		if (!n1 || n1 > MAX_COUNT || !n2 || n2 > MAX_STREAM)
			fatal_err("COUNT (1..4096) SIZE (1..16 MiB)", EINVAL);
		len = 2 * n2;
		nrecv = n1;
	} else if (!strcmp(argv[1], "window") || !strcmp(argv[1], "sqd") ||
		   !strncmp(argv[1], "window-", 7)) {
		if (!n1 || n1 > MAX_COUNT || !n2 || n2 > MAX_SIZE)
			fatal_err("COUNT (1..4096) SIZE (1..65536)", EINVAL);
		len = (size_t)2 * WINDOW * n2;
		nrecv = WINDOW;
		sq_depth = 2 * WINDOW;
		rd_atomic = 16;
	} else if (!strcmp(argv[1], "sig") || !strcmp(argv[1], "uc-sig") ||
		   !strcmp(argv[1], "sig-remote")) {
		if (!n1 || n1 > MAX_COUNT || !n2 || n2 > MAX_STREAM ||
		    n2 % PI_BLOCK)
			fatal_err("COUNT (1..4096) SIZE (512..16 MiB, blocks of 512)",
			      EINVAL);
		len = n2 / PI_BLOCK * (PI_BLOCK + PI_SIZE);
	} else if (!strcmp(argv[1], "big-err") ||
		   !strcmp(argv[1], "big-flush")) {
		if (n2 < 2 || n2 > MAX_STREAM)
			fatal_err("SIZE (2..16 MiB)", EINVAL);
		len = n2;
		nrecv = 4;
	} else if (!strcmp(argv[1], "link")) {
		len = (size_t)2 * LINK_DEPTH * LINK_SIZE;
		nrecv = 2 * LINK_DEPTH;
	} else if (!strcmp(argv[1], "atomic")) {
		if (!n1 || n1 > MAX_COUNT || !n2 || n2 > 16)
			fatal_err("COUNT (1..4096) DEPTH (1..16)", EINVAL);
		len = (size_t)n1 * 8;
		rd_atomic = n2;
	}
	open_end(&a, argv[2], atoi(argv[3]), len);
	open_end(&b, argv[4], atoi(argv[5]), len);
	if (!strcmp(argv[1], "retry")) {
		if (n1 < 1 || n1 > 20 || n2 > 7)
			fatal_err("TIMEOUT (1..20) RETRY_CNT (0..7)", EINVAL);
		mode_retry(n1, n2);
	} else if (!strcmp(argv[1], "link")) {
		if (n1 < 1 || n1 > 20 || n2 > 7)
			fatal_err("TIMEOUT (1..20) RETRY_CNT (0..7)", EINVAL);
		mode_link(n1, n2);
	} else if (!strcmp(argv[1], "rnr") || !strcmp(argv[1], "rnr-peer")) {
		if (n1 < 1 || n1 > 31 || n2 > 6)
			fatal_err("TIMER (1..31) RNR_RETRY (0..6)", EINVAL);
		mode_rnr(n1, n2, !strcmp(argv[1], "rnr"));
	} else if (!strcmp(argv[1], "stream")) {
		mode_stream(n1, n2);
	} else if (!strcmp(argv[1], "big-err")) {
		mode_big_err(n2);
	} else if (!strcmp(argv[1], "big-flush")) {
		mode_big_flush(n2);
	} else if (!strcmp(argv[1], "window")) {
		mode_window(n1, n2);
	} else if (!strncmp(argv[1], "window-", 7)) {
		if (n1 < 2 || n1 > WINDOW)
			fatal_err("COUNT (2..32)", EINVAL);
		if (!strcmp(argv[1], "window-err"))
			mode_window_err(n1, n2);
		else if (!strcmp(argv[1], "window-rnr"))
			mode_window_rnr(n1, n2);
		else if (!strcmp(argv[1], "window-flush"))
			mode_window_flush(n1, n2);
		else
			fatal_err(argv[1], EINVAL);
	} else if (!strcmp(argv[1], "sqd")) {
		/* COUNT + 1 receives of B's nrecv + 16 */
		if (n1 > WINDOW + 8)
			fatal_err("COUNT (1..40)", EINVAL);
		mode_sqd(n1, n2);
	} else if (!strcmp(argv[1], "atomic")) {
		mode_atomic(n1, n2);
	} else if (!strcmp(argv[1], "atomic-err")) {
		mode_atomic_err();
	} else if (!strcmp(argv[1], "sig")) {
		mode_sig(n1, n2);
	} else if (!strcmp(argv[1], "uc-sig")) {
		mode_uc_sig(n1, n2);
	} else if (!strcmp(argv[1], "sig-remote")) {
		mode_sig_remote(n1, n2);
	} else {
		fatal_err(argv[1], EINVAL);
	}
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
