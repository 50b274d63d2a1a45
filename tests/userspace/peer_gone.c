// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What an RC requester sees when its peer went away, and when (issue 48):
 * the time from a SEND's post to its completion against the IBTA's
 * window (vol. 1, 9.7.6.1: a local ACK timeout of 4.096 us << timeout,
 * no shorter, at most four times that; retry_cnt + 1 of them before
 * IBV_WC_RETRY_EXC_ERR; rnr_retry RNR NAK waits of the responder's
 * min_rnr_timer at least before IBV_WC_RNR_RETRY_EXC_ERR; timeout 0 and
 * rnr_retry 7 infinite). One process opens both ends, A (the requester)
 * and B, which may be one device, two model devices of this kernel, or
 * a model device and rxe across a veth pair (the RDMA devices of a
 * shared-netns system are seen from every namespace).
 *
 * usage: peer_gone PATH DEV_A GID_A DEV_B GID_B ROW...
 *
 * Each ROW on new QPs (a SEND from A reaches B first), then:
 *   err:T:R, reset:T:R, destroy:T:R  B's QP to ERR, to RESET, destroyed;
 *	A (timeout T, retry_cnt R) SENDs: IBV_WC_RETRY_EXC_ERR within
 *	(R + 1) x 4.096 us x 2^T x [1, 4]
 *   devdel:T:R:CMD  CMD (rdma link delete DEV_B) with B's context open
 *   devdel-closed:T:R:CMD  the same after B's QP and context are closed
 *	(rxe does not let a device go while a user context is open)
 *   rnr:M:N  B has no receive, its min_rnr_timer M; A's rnr_retry N
 *	(0..6): IBV_WC_RNR_RETRY_EXC_ERR after N RNR timers of M at least
 *   rnrinf:M  the same with rnr_retry 7: no completion for 1 s, then B
 *	posts a receive and the SEND completes successfully
 *   inf:0  B's QP to ERR, A's timeout 0: no completion for 1.5 s; then A
 *	to ERR: the SEND is flushed
 * A devdel row ends the list (B's device is gone).
 *
 * Prints a table row ("row PATH ...") and a PASS/FAIL line per ROW, then
 * "N passed, N failed".
 *
 * Early is always a failure: a requester that gives up before its time
 * is what kills a target. Late is one past PEER_GONE_LATE (1) times the
 * window's end: on a TCG guest of a busy host the model's timers run
 * late with the vCPU that runs them (a row 1.5 times past its end was
 * seen there); such a row passes, marked "late".
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "roce.h"

#define BUF	256
#define WARM_MS	30000

struct end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int gid_index;
	char buf[BUF];
};

static struct end a, b;
static const char *path;
/* PEER_GONE_LATE: how far past its window's end a row may come, 1 at least */
static double late = 1;

/* IBTA: RNR NAK timer field -> microseconds */
static const double rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void open_end(struct end *e, const char *name, int gid_index)
{
	e->name = name;
	e->ctx = open_dev_by_name(name);
	e->gid_index = gid_index;
	if (ibv_query_gid(e->ctx, 1, gid_index, &e->gid))
		fatal_err("ibv_query_gid", errno);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 64, NULL, NULL, 0) : NULL;
	e->mr = e->cq ? ibv_reg_mr(e->pd, e->buf, BUF,
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!e->mr)
		fatal_err("PD/CQ/MR", errno);
}

static void close_end(struct end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	e->qp = NULL;
	ibv_dereg_mr(e->mr);
	ibv_destroy_cq(e->cq);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	e->ctx = NULL;
}

static void create_qp(struct end *e)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .send_cq = e->cq, .recv_cq = e->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->qp = ibv_create_qp(e->pd, &ia);
	if (!e->qp)
		fatal_err("ibv_create_qp", errno);
}

static void to_rts(struct end *e, struct end *peer, int timeout,
		   int retry_cnt, int rnr_retry, int min_rnr_timer)
{
	const struct rc_attrs at = {
		.timeout = timeout, .retry_cnt = retry_cnt,
		.rnr_retry = rnr_retry, .min_rnr_timer = min_rnr_timer,
		.rd_atomic = 1, .psn = 0x42, .access = IBV_ACCESS_LOCAL_WRITE,
	};

	rc_to_rts_or_die(e->qp, &at, peer->qp->qp_num, &peer->gid,
			 e->gid_index);
}

static void post_recv(struct end *e)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = BUF,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(e->qp, &wr, &bad))
		fatal_err("ibv_post_recv", errno);
}

static void post_send(struct end *e)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 64,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (ibv_post_send(e->qp, &wr, &bad))
		fatal_err("ibv_post_send", errno);
}

/* One completion of @e within @ms: 1, or 0 on none. */
static int poll_one(struct end *e, struct ibv_wc *wc, double ms)
{
	double end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(e->cq, 1, wc);
		if (n < 0)
			fatal_err("ibv_poll_cq", EIO);
		if (n)
			return 1;
	} while (now_ms() < end);
	return 0;
}

static void drain(struct end *e)
{
	struct ibv_wc wc;

	while (e->ctx && ibv_poll_cq(e->cq, 1, &wc) > 0)
		;
}

/* New QPs, connected; a SEND from A to B to start with. */
static void pair_up(int timeout, int retry_cnt, int rnr_retry, int b_rnr)
{
	struct ibv_wc wc;
	int i;

	create_qp(&a);
	create_qp(&b);
	to_rts(&a, &b, timeout, retry_cnt, rnr_retry, 1);
	to_rts(&b, &a, 14, 7, 7, b_rnr);
	post_recv(&b);
	post_send(&a);
	for (i = 0; i < 2; i++) {
		struct end *e = i ? &b : &a;

		if (!poll_one(e, &wc, WARM_MS))
			fatal_err("the first SEND: no completion", ETIMEDOUT);
		if (wc.status != IBV_WC_SUCCESS)
			fatal_err(ibv_wc_status_str(wc.status), EIO);
	}
}

static void unpair(void)
{
	drain(&a);
	drain(&b);
	if (b.qp)
		ibv_destroy_qp(b.qp);
	ibv_destroy_qp(a.qp);
	a.qp = b.qp = NULL;
}

static void set_state(struct end *e, enum ibv_qp_state s)
{
	struct ibv_qp_attr at = { .qp_state = s };

	if (ibv_modify_qp(e->qp, &at, IBV_QP_STATE))
		fatal_err("ibv_modify_qp", errno);
}

static void row(const char *how, int timeout, int retry_cnt, int rnr_retry,
		int timer, enum ibv_wc_status want, double lo, double hi,
		double t, enum ibv_wc_status got, int done)
{
	int ok = done && got == want && t >= lo && t <= hi * late;
	char tm[16];

	char max[32] = "-";

	if (hi < 1e9)
		snprintf(max, sizeof(max), "%.1f", hi);
	printf("row %-11s %-14s %7d %9d %9d %9s %11.1f %11s %11.1f  %s\n",
	       path, how, timeout, retry_cnt, rnr_retry,
	       timer < 0 ? "-" : (snprintf(tm, sizeof(tm), "%d", timer), tm),
	       lo, max, t, done ? ibv_wc_status_str(got) : "(none)");
	check(ok, "%s %s timeout %d retry_cnt %d rnr_retry %d timer %d: %s after %.1f ms, the window %s [%.1f, %.1f] ms%s",
	      path, how, timeout, retry_cnt, rnr_retry, timer,
	      done ? ibv_wc_status_str(got) : "no completion", t,
	      ibv_wc_status_str(want), lo, hi,
	      ok && t > hi ? " (late: a busy host)" : "");
}

/* err, reset, destroy, devdel[-closed]: no answer comes */
static void row_lost(const char *how, int timeout, int retry_cnt,
		     const char *cmd)
{
	double one = 4.096e-3 * (1u << timeout), t0, t;
	struct ibv_wc wc = {};
	int done;

	pair_up(timeout, retry_cnt, 7, 1);
	if (!strcmp(how, "err")) {
		set_state(&b, IBV_QPS_ERR);
	} else if (!strcmp(how, "reset")) {
		set_state(&b, IBV_QPS_RESET);
	} else if (!strcmp(how, "destroy")) {
		ibv_destroy_qp(b.qp);
		b.qp = NULL;
	} else {
		if (!strcmp(how, "devdel-closed"))
			close_end(&b);
		if (!cmd || system(cmd))
			fatal_err(cmd ? cmd : "devdel: no command", EIO);
		b.qp = NULL;
		b.ctx = NULL;
	}
	t0 = now_ms();
	post_send(&a);
	done = poll_one(&a, &wc, 4 * (retry_cnt + 1) * one + 10000);
	t = now_ms() - t0;
	row(how, timeout, retry_cnt, 7, -1, IBV_WC_RETRY_EXC_ERR,
	    (retry_cnt + 1) * one, 4 * (retry_cnt + 1) * one, t, wc.status,
	    done);
	if (b.ctx) {
		unpair();
	} else {
		drain(&a);
		ibv_destroy_qp(a.qp);
		a.qp = NULL;
	}
}

static void row_rnr(int timer, int rnr_retry)
{
	double lo = rnr_retry * rnr_us[timer] / 1e3, t0, t;
	struct ibv_wc wc = {};
	int done;

	pair_up(14, 7, rnr_retry, timer);
	t0 = now_ms();
	post_send(&a);
	if (rnr_retry == 7) {
		/* infinite: nothing for 1 s, then a receive lets it in */
		done = poll_one(&a, &wc, 1000);
		t = now_ms() - t0;
		check(!done, "%s rnrinf timer %d rnr_retry 7: no completion for %.0f ms (%s)",
		      path, timer, t,
		      done ? ibv_wc_status_str(wc.status) : "none");
		post_recv(&b);
		done = poll_one(&a, &wc, 10000);
		t = now_ms() - t0;
		row("rnr", 14, 7, 7, timer, IBV_WC_SUCCESS, 1000, 1e9, t,
		    wc.status, done);
	} else {
		done = poll_one(&a, &wc, 4 * lo + 10000);
		t = now_ms() - t0;
		/* no upper bound in the IBTA: 4x and a timer's slack here */
		row("rnr", 14, 7, rnr_retry, timer, IBV_WC_RNR_RETRY_EXC_ERR,
		    lo, 4 * lo + 4 * rnr_us[timer] / 1e3 + 50, t, wc.status,
		    done);
	}
	unpair();
}

/* timeout 0: no end; then A to ERR flushes the SEND */
static void row_inf(void)
{
	struct ibv_wc wc = {};
	double t0, t;
	int done;

	pair_up(0, 7, 7, 1);
	set_state(&b, IBV_QPS_ERR);
	t0 = now_ms();
	post_send(&a);
	done = poll_one(&a, &wc, 1500);
	t = now_ms() - t0;
	check(!done, "%s err timeout 0 (infinite): no completion for %.0f ms (%s)",
	      path, t, done ? ibv_wc_status_str(wc.status) : "none");
	set_state(&a, IBV_QPS_ERR);
	done = poll_one(&a, &wc, 10000);
	t = now_ms() - t0;
	row("err", 0, 7, 7, -1, IBV_WC_WR_FLUSH_ERR, 1500, 1e9, t,
	    wc.status, done);
	unpair();
}

int main(int argc, char **argv)
{
	const char *env = getenv("PEER_GONE_LATE");
	struct ibv_device_attr da;
	int i, x, y;
	char how[32], cmd[256];

	if (env && atof(env) > 1)
		late = atof(env);
	if (argc < 7) {
		fprintf(stderr, "usage: peer_gone PATH DEV_A GID_A DEV_B GID_B ROW...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	path = argv[1];
	open_end(&a, argv[2], atoi(argv[3]));
	open_end(&b, argv[4], atoi(argv[5]));
	if (ibv_query_device(a.ctx, &da))
		fatal_err("ibv_query_device", errno);
	printf("%s: requester %s (local_ca_ack_delay %d), peer %s\n", path,
	       a.name, da.local_ca_ack_delay, b.name);
	printf("row %-11s %-14s %7s %9s %9s %9s %11s %11s %11s  %s\n", "path",
	       "peer", "timeout", "retry_cnt", "rnr_retry", "rnr_timer",
	       "min_ms", "max_ms", "measured", "completion");
	for (i = 6; i < argc; i++) {
		cmd[0] = 0;
		x = y = 0;
		if (sscanf(argv[i], "%31[^:]:%d:%d:%255[^\n]", how, &x, &y,
			   cmd) < 2)
			fatal_err(argv[i], EINVAL);
		if (!strcmp(how, "rnr"))
			row_rnr(x, y);
		else if (!strcmp(how, "rnrinf"))
			row_rnr(x, 7);
		else if (!strcmp(how, "inf"))
			row_inf();
		else if (x < 1 || x > 20 || y < 0 || y > 7)
			fatal_err(argv[i], EINVAL);
		else
			row_lost(how, x, y, cmd[0] ? cmd : NULL);
	}
	if (b.ctx)
		close_end(&b);
	close_end(&a);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
