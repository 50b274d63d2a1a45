// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A storage initiator's shutdown over rdma_cm (issue 15): the initiator
 * posts its last messages, at once moves its QP to ERR and calls
 * rdma_disconnect(); the target must receive every one of them, the last
 * included, and every SEND completes successfully, because a ConnectX
 * executes each WQE whose doorbell rang before the command that took the
 * QP out of RTS.
 *
 * usage: cm_shutdown SERVER_IP CLIENT_IP [RUNS [MSGS [READS]]]
 *
 * A child process is the target: it listens on SERVER_IP, accepts RUNS
 * connections one after the other, each with MSGS receives posted, and
 * counts what arrives until the disconnect. The parent is the initiator,
 * from CLIENT_IP. With READS, the initiator first posts that many RDMA
 * READs of the target's memory (4 KiB each, the target's address and
 * rkey from its accept's private data) and the SENDs right behind them:
 * every READ must complete successfully with the target's bytes too.
 * Ends with "N passed, N failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cm.h"

#define PORT		18515
#define MAX_MSGS	64
#define MSG_LEN		64
#define WAIT_MS		CM_WAIT_MS
#define MAX_READS	32
#define READ_LEN	4096
#define RD_DEPTH	16	/* READs the initiator keeps in flight */
#define WRID_READ	1000

struct conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct {
		char buf[MAX_MSGS][MSG_LEN];
		unsigned char rd[MAX_READS][READ_LEN];	/* READ source/sink */
	} mem;
};

/* What the target's accept tells the initiator: where to READ from. */
struct target_mem {
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

static unsigned char rd_byte(int i, int k)
{
	return (unsigned char)(i * 13 + k * 7 + 1);
}

/* PD, CQ, MR and the QP of @c->id, @msgs WRs deep. */
static void setup_qp(struct conn *c, int msgs)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = msgs, .max_recv_wr = msgs,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	cm_make_qp(c->id, &qa, 2 * msgs, &c->mem, sizeof(c->mem),
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, &c->pd,
		   &c->cq, &c->mr);
}

static void teardown(struct conn *c)
{
	cm_free_qp(c->id, c->pd, c->cq, c->mr);
}

/* Runs in which the target saw DISCONNECTED before ESTABLISHED. */
static int crossed;

/* The target: one connection; 0 when every message came, the last too. */
static int serve_one(struct rdma_event_channel *ch, int run, int msgs)
{
	static struct conn c;
	struct target_mem tm;
	struct rdma_conn_param cp = { .responder_resources = RD_DEPTH,
				      .initiator_depth = RD_DEPTH,
				      .private_data = &tm,
				      .private_data_len = sizeof(tm) };
	struct ibv_sge sge = { .length = MSG_LEN };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct rdma_cm_event *ev;
	int i, got = 0, flushed = 0, disconnected = 0, last = 0;
	int run_crossed = crossed;
	double end;
	struct ibv_wc wc;

	memset(&c, 0, sizeof(c));
	c.ch = ch;
	if (!expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &c.id, NULL, 0))
		return 1;
	setup_qp(&c, msgs);
	for (i = 0; i < MAX_READS * READ_LEN; i++)
		c.mem.rd[i / READ_LEN][i % READ_LEN] =
			rd_byte(i / READ_LEN, i % READ_LEN + run);
	tm.addr = (uintptr_t)c.mem.rd;
	tm.rkey = c.mr->rkey;
	sge.lkey = c.mr->lkey;
	for (i = 0; i < msgs; i++) {
		sge.addr = (uintptr_t)c.mem.buf[i];
		wr.wr_id = i;
		if (ibv_post_recv(c.id->qp, &wr, &bad))
			die("ibv_post_recv", errno);
	}
	if (rdma_accept(c.id, &cp))
		die("rdma_accept", errno);
	/*
	 * ESTABLISHED, or DISCONNECTED first: the initiator's RTU and DREQ
	 * go out back to back, and ib_cm may handle the DREQ first (its
	 * work queue is not ordered across CPUs), which then drops the RTU;
	 * the QP had everything from RTS on all the same (rdma_accept moved
	 * it there), so what counts is that every message arrives.
	 */
	ev = next_event(ch, WAIT_MS);
	if (!ev) {
		fprintf(stderr, "no ESTABLISHED\n");
		return 1;
	}
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
		disconnected = 1;
		crossed++;
		rdma_disconnect(c.id);
	} else if (ev->event != RDMA_CM_EVENT_ESTABLISHED) {
		fprintf(stderr, "%s instead of ESTABLISHED (status %d)\n",
			rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return 1;
	}
	rdma_ack_cm_event(ev);
	/* what arrives, until the disconnect and the flush of the rest */
	end = now_ms() + WAIT_MS;
	while ((!disconnected || got + flushed < msgs) && now_ms() < end) {
		while (ibv_poll_cq(c.cq, 1, &wc) > 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				flushed++;
				continue;
			}
			got++;
			if (!strcmp(c.mem.buf[wc.wr_id], "LAST"))
				last = 1;
		}
		if (disconnected)
			continue;
		ev = next_event(ch, 1);
		if (!ev)
			continue;
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
			disconnected = 1;
			rdma_disconnect(c.id);
		}
		rdma_ack_cm_event(ev);
	}
	teardown(&c);
	printf("  target, run %d: %d of %d messages received%s, %d receives flushed%s%s\n",
	       run, got, msgs, last ? " (the last one too)" : "", flushed,
	       disconnected ? "" : ", no DISCONNECTED",
	       crossed == run_crossed ? "" :
	       " (DISCONNECTED before ESTABLISHED: the DREQ overtook the RTU)");
	fflush(stdout);
	return !(got == msgs && last && disconnected);
}

static int target(const char *ip, int runs, int msgs, int ready)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	int run, fails = 0;

	listen_id = cm_listen(&ch, ip, PORT, ready);
	for (run = 0; run < runs; run++)
		fails += serve_one(ch, run, msgs);
	printf("  target: %d runs, %d failed, %d with DISCONNECTED before ESTABLISHED\n",
	       runs, fails, crossed);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return fails ? 1 : 0;
}

/*
 * The initiator: connect, post @reads READs and @msgs SENDs, ERR at once,
 * disconnect. Returns the WRs that completed successfully (READs with the
 * target's bytes).
 */
static int initiate(const char *sip, const char *cip, int run, int msgs,
		    int reads)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct rdma_conn_param cp = { .responder_resources = RD_DEPTH,
				      .initiator_depth = RD_DEPTH,
				      .retry_count = 7, .rnr_retry_count = 7 };
	struct target_mem tm;
	struct ibv_send_wr rwr = { .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				   .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge rsge = { .length = READ_LEN };
	int k;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge sge = { .length = MSG_LEN };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct sockaddr_in src, dst;
	int i, good = 0, done = 0;
	struct ibv_wc wc;
	double end;

	if (!c)
		die("calloc", ENOMEM);
	addr_of(sip, PORT, &dst);
	addr_of(cip, PORT, &src);
	src.sin_port = 0;
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP))
		die("rdma_create_id", errno);
	if (rdma_resolve_addr(c->id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, WAIT_MS) ||
	    !expect_event(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL, 0) ||
	    rdma_resolve_route(c->id, WAIT_MS) ||
	    !expect_event(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL, 0))
		die("resolve", errno ? errno : EHOSTUNREACH);
	setup_qp(c, msgs + reads);
	cm_connect("initiator", c->id, c->ch, &cp, &tm, sizeof(tm));
	sge.lkey = c->mr->lkey;
	rsge.lkey = c->mr->lkey;
	rwr.sg_list = &rsge;
	rwr.wr.rdma.rkey = tm.rkey;
	for (i = 0; i < reads; i++) {
		rsge.addr = (uintptr_t)c->mem.rd[i];
		rwr.wr_id = WRID_READ + i;
		rwr.wr.rdma.remote_addr = tm.addr + (uint64_t)i * READ_LEN;
		if (ibv_post_send(c->id->qp, &rwr, &bad))
			die("ibv_post_send READ", errno);
	}
	for (i = 0; i < msgs; i++) {
		snprintf(c->mem.buf[i], MSG_LEN, i + 1 < msgs ? "msg %d" : "LAST",
			 i);
		sge.addr = (uintptr_t)c->mem.buf[i];
		wr.wr_id = i;
		if (ibv_post_send(c->id->qp, &wr, &bad))
			die("ibv_post_send", errno);
	}
	/* the shutdown: no pause between the last post and these */
	if (ibv_modify_qp(c->id->qp, &a, IBV_QP_STATE))
		die("ibv_modify_qp ERR", errno);
	rdma_disconnect(c->id);
	end = now_ms() + WAIT_MS;
	while (done < msgs + reads && now_ms() < end) {
		if (ibv_poll_cq(c->cq, 1, &wc) <= 0)
			continue;
		done++;
		if (wc.status != IBV_WC_SUCCESS)
			continue;
		if (wc.wr_id < WRID_READ) {
			good++;
			continue;
		}
		i = wc.wr_id - WRID_READ;
		for (k = 0; k < READ_LEN; k++)
			if (c->mem.rd[i][k] != rd_byte(i, k + run))
				break;
		good += k == READ_LEN;
	}
	teardown(c);
	rdma_destroy_event_channel(c->ch);
	free(c);
	return good;
}

int main(int argc, char **argv)
{
	int runs = argc > 3 ? atoi(argv[3]) : 10;
	int msgs = argc > 4 ? atoi(argv[4]) : 32;
	int reads = argc > 5 ? atoi(argv[5]) : 0;
	int run, good, bad_runs = 0;
	pid_t pid;

	if (argc < 3 || runs <= 0 || msgs <= 0 || msgs > MAX_MSGS ||
	    reads < 0 || reads > MAX_READS) {
		fprintf(stderr, "usage: cm_shutdown SERVER_IP CLIENT_IP [RUNS [MSGS [READS]]]\n");
		return 2;
	}
	pid = cm_start_target(target, argv[1], runs, msgs);
	for (run = 0; run < runs; run++) {
		good = initiate(argv[1], argv[2], run, msgs, reads);
		printf("  initiator, run %d: %d of %d WRs (%d READs, %d SENDs) completed successfully\n",
		       run, good, msgs + reads, reads, msgs);
		fflush(stdout);
		bad_runs += good != msgs + reads;
	}
	check(!bad_runs, "initiator: every READ and SEND before the QP to ERR and rdma_disconnect completed successfully, %d of %d runs (%d READs, %d messages each)",
	      runs - bad_runs, runs, reads, msgs);
	check(cm_target_ok(pid),
	      "target: every message received, the last one too, in each of %d runs",
	      runs);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
