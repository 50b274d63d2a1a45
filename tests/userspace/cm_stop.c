// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A storage client that stops with requests outstanding, against a
 * target that dies on any error completion (issue 48). On a ConnectX the
 * target outlives the client: what it sends to the client's QP in ERR is
 * dropped without an answer, and its QP (timeout 18 and retry_cnt 7 from
 * rdma_cm: 8 local ACK timeouts of 1.07 s at least) fails after 8.6 s,
 * later than the target's own alarm ends the connection.
 *
 * usage: cm_stop SERVER_IP CLIENT_IP RUNS INFLIGHT [PAR [ALARM_MS]]
 *
 * PAR pairs of processes (1) at once, each a target and a client on a
 * port of their own, RUNS connections in all, one after the other in a
 * pair. A connection: the target accepts with INFLIGHT receives posted
 * (rdma_cm's min_rnr_timer 0: 655 ms) and polls its CQ in batches of 16;
 * it serves one request at a time, 20 ms each: an RDMA WRITE of 4 KiB into
 * the client's buffer and a SEND of the response, the receive posted
 * again when the response completed. The client posts INFLIGHT requests
 * at once; at the first response it stops: a STOP SEND (no receive left
 * at the target: RNR NAKs), its QP to ERR 1 ms later, rdma_disconnect.
 * The target goes on (rdma_cm does not move its QP) until its alarm,
 * ALARM_MS (4000) after the accept, and tears down. A target death is any
 * error completion before the alarm.
 *
 * Prints a line per death and "N passed, N failed".
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cm.h"

#define BASE_PORT	18600
#define MAX_Q		32
#define DATA_LEN	4096
#define SERVE_MS	20.0
#define BATCH		16
#define WR_RESP		0x1000
#define WR_WRITE	0x2000

struct req {
	uint32_t idx;
	uint32_t stop;
	uint32_t rkey;
	uint32_t pad;
	uint64_t addr;
};

struct mem {
	struct req rx[MAX_Q];		/* the target's receives */
	struct req tx[MAX_Q + 1];	/* requests, the STOP last */
	struct req resp[MAX_Q];
	unsigned char data[MAX_Q][DATA_LEN];
};

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct mem mem;
};

static int port = BASE_PORT;
/* the next client's CONNECT_REQUEST, come while the target still served */
static struct rdma_cm_id *next_id;
static int alarm_ms = 4000;
static int par_index;

static void setup(struct conn *c, int q)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2 * q + 2, .max_recv_wr = q,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	cm_make_qp(c->id, &qa, 4 * q + 8, &c->mem, sizeof(c->mem),
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &c->pd,
		   &c->cq, &c->mr);
}

static void teardown(struct conn *c)
{
	cm_free_qp(c->id, c->pd, c->cq, c->mr);
}

static void post_recv(struct conn *c, void *buf, uint32_t len, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(c->id->qp, &wr, &bad))
		die("ibv_post_recv", errno);
}

static void post_send(struct conn *c, void *buf, uint32_t len, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len,
			       .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (ibv_post_send(c->id->qp, &wr, &bad))
		die("ibv_post_send", errno);
}

/* The response to rx[slot]: the data by an RDMA WRITE, then a SEND. */
static void respond(struct conn *c, int slot)
{
	struct req *r = &c->mem.rx[slot];
	struct ibv_sge sge = { .addr = (uintptr_t)c->mem.data[slot],
			       .length = DATA_LEN, .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = WR_WRITE + slot, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE },
			   *bad;

	wr.wr.rdma.remote_addr = r->addr;
	wr.wr.rdma.rkey = r->rkey;
	memset(c->mem.data[slot], r->idx, DATA_LEN);
	if (ibv_post_send(c->id->qp, &wr, &bad))
		die("ibv_post_send WRITE", errno);
	c->mem.resp[slot] = *r;
	post_send(c, &c->mem.resp[slot], sizeof(*r), WR_RESP + slot);
}

/* One connection. 0: the target lived to its alarm; 1: it died. */
static int serve_one(struct rdma_event_channel *ch, int run, int q)
{
	static struct conn c;
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7 };
	struct ibv_wc wc[BATCH];
	struct rdma_cm_event *ev;
	int fifo[MAX_Q], head = 0, n_q = 0, i, n, died = 0, disc = 0;
	int served = 0, stop = 0, after = 0;
	double t0, next = 0, end;

	memset(&c, 0, sizeof(c));
	c.id = next_id;
	next_id = NULL;
	if (!c.id &&
	    !expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &c.id, NULL, 0))
		return 1;
	setup(&c, q);
	for (i = 0; i < q; i++)
		post_recv(&c, &c.mem.rx[i], sizeof(c.mem.rx[i]), i);
	if (rdma_accept(c.id, &cp))
		die("rdma_accept", errno);
	t0 = now_ms();
	end = t0 + alarm_ms;
	if (!run && !par_index) {
		struct ibv_qp_init_attr ia;
		struct ibv_qp_attr at;

		/* rdma_accept took it to RTS: what rdma_cm gave it */
		if (!ibv_query_qp(c.id->qp, &at, IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_MIN_RNR_TIMER, &ia))
			printf("  target QP from rdma_cm: timeout %d, retry_cnt %d, rnr_retry %d, min_rnr_timer %d\n",
			       at.timeout, at.retry_cnt, at.rnr_retry,
			       at.min_rnr_timer);
	}
	while (!died && now_ms() < end) {
		n = ibv_poll_cq(c.cq, BATCH, wc);
		for (i = 0; i < n && !died; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				printf("  target %d, run %d: DIED of %s (wr_id %#lx) %.0f ms after the accept, %d requests served\n",
				       par_index, run,
				       ibv_wc_status_str(wc[i].status),
				       (unsigned long)wc[i].wr_id,
				       now_ms() - t0, served);
				died = 1;
			} else if (wc[i].opcode == IBV_WC_RECV) {
				if (c.mem.rx[wc[i].wr_id].stop)
					stop = 1;
				else
					fifo[(head + n_q++) % MAX_Q] =
						wc[i].wr_id;
			} else if (wc[i].opcode == IBV_WC_SEND &&
				   wc[i].wr_id >= WR_RESP &&
				   wc[i].wr_id < WR_WRITE) {
				/* the response is done: the receive again */
				post_recv(&c, &c.mem.rx[wc[i].wr_id - WR_RESP],
					  sizeof(struct req),
					  wc[i].wr_id - WR_RESP);
			}
		}
		if (died)
			break;
		if (n_q && now_ms() >= next) {
			respond(&c, fifo[head]);
			head = (head + 1) % MAX_Q;
			n_q--;
			served++;
			after += disc;
			next = now_ms() + SERVE_MS;
		}
		ev = next_event(ch, 0);
		if (ev) {
			disc |= ev->event == RDMA_CM_EVENT_DISCONNECTED;
			/* the pair's next client, before this one's alarm */
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				next_id = ev->id;
			rdma_ack_cm_event(ev);
		}
		/* polls, not spins: a VM runs PAR of these at once */
		if (!n)
			usleep(1000);
	}
	if (!disc && !died) {
		ev = next_event(ch, CM_WAIT_MS);
		if (ev) {
			disc = ev->event == RDMA_CM_EVENT_DISCONNECTED;
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				next_id = ev->id;
			rdma_ack_cm_event(ev);
		}
	}
	rdma_disconnect(c.id);
	teardown(&c);
	if (!died)
		printf("  target %d, run %d: lived to its alarm, %d served (%d after the DISCONNECTED), %d left%s%s\n",
		       par_index, run, served, after, n_q,
		       stop ? ", the STOP came" : "",
		       disc ? "" : ", no DISCONNECTED");
	fflush(stdout);
	return died || !disc;
}

static int target(const char *ip, int runs, int q, int ready)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	int run, deaths = 0;

	listen_id = cm_listen(&ch, ip, port, ready);
	for (run = 0; run < runs; run++)
		deaths += serve_one(ch, run, q);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return deaths > 100 ? 100 : deaths;
}

/* One connection of the client: requests, the first response, STOP. */
static int client(const char *sip, const char *cip, int q)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct conn *c = calloc(1, sizeof(*c));
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7 };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct sockaddr_in src, dst;
	int i, got = 0, done = 0;
	struct ibv_wc wc;
	double end;

	if (!c || !ch)
		die("calloc/event channel", ENOMEM);
	addr_of(sip, port, &dst);
	addr_of(cip, 0, &src);
	if (rdma_create_id(ch, &c->id, NULL, RDMA_PS_TCP))
		die("rdma_create_id", errno);
	if (rdma_resolve_addr(c->id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, CM_WAIT_MS) ||
	    !expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL, 0) ||
	    rdma_resolve_route(c->id, CM_WAIT_MS) ||
	    !expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL, 0))
		die("resolve", errno ? errno : EHOSTUNREACH);
	setup(c, q);
	for (i = 0; i < q; i++)
		post_recv(c, &c->mem.resp[i], sizeof(struct req), WR_RESP + i);
	cm_connect("client", c->id, ch, &cp, NULL, 0);
	for (i = 0; i < q; i++) {
		c->mem.tx[i] = (struct req){ .idx = i, .rkey = c->mr->rkey,
			.addr = (uintptr_t)c->mem.data[i] };
		post_send(c, &c->mem.tx[i], sizeof(struct req), i);
	}
	/* the first response: then it stops, the rest outstanding */
	end = now_ms() + CM_WAIT_MS;
	while (!got && now_ms() < end) {
		/* no busy loop: 20 pairs at once leave the engine no CPU */
		if (ibv_poll_cq(c->cq, 1, &wc) <= 0) {
			usleep(100);
			continue;
		}
		done++;
		if (wc.status != IBV_WC_SUCCESS)
			die(ibv_wc_status_str(wc.status), EIO);
		got = wc.opcode == IBV_WC_RECV;
	}
	c->mem.tx[q] = (struct req){ .stop = 1 };
	post_send(c, &c->mem.tx[q], sizeof(struct req), q);
	usleep(1000);
	if (ibv_modify_qp(c->id->qp, &a, IBV_QP_STATE))
		die("ibv_modify_qp ERR", errno);
	rdma_disconnect(c->id);
	/* q requests, the STOP, q receives */
	end = now_ms() + CM_WAIT_MS;
	while (done < 2 * q + 1 && now_ms() < end) {
		if (ibv_poll_cq(c->cq, 1, &wc) > 0)
			done++;
		else
			usleep(100);
	}
	teardown(c);
	rdma_destroy_event_channel(ch);
	free(c);
	return got ? 0 : 1;
}

/* A pair: its target and its client, @runs connections. */
static int pair(const char *sip, const char *cip, int runs, int q)
{
	pid_t pid = cm_start_target(target, sip, runs, q);
	int run, bad = 0, status;

	/*
	 * Pairs connect one after the other, not all at once: ten REQs at
	 * the same moment on a VM under TCG left nine without their REP
	 * within 30 s (ib_cm's retries are seconds apart)
	 */
	usleep(par_index * 500000);
	for (run = 0; run < runs; run++) {
		double t0 = now_ms();

		bad += client(sip, cip, q);
		/*
		 * The next REQ once the target listens again, after its
		 * alarm: one held back for seconds meanwhile timed out in
		 * ib_cm now and then (REJECTED, or a REP for a QP gone)
		 */
		while (run + 1 < runs && now_ms() < t0 + alarm_ms + 300)
			usleep(10000);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid", errno);
	if (bad)
		printf("  client %d: %d runs without a response\n", par_index,
		       bad);
	if (!WIFEXITED(status))
		return 100;
	return WEXITSTATUS(status) + bad;
}

int main(int argc, char **argv)
{
	int runs = argc > 3 ? atoi(argv[3]) : 10;
	int q = argc > 4 ? atoi(argv[4]) : 8;
	int par = argc > 5 ? atoi(argv[5]) : 1;
	int k, status, bad = 0, per;
	pid_t pids[64];
	double t0 = now_ms();

	if (argc > 6)
		alarm_ms = atoi(argv[6]);
	if (argc < 3 || runs <= 0 || q <= 0 || q > MAX_Q || par <= 0 ||
	    par > 64 || par > runs || alarm_ms <= 0) {
		fprintf(stderr, "usage: cm_stop SERVER_IP CLIENT_IP RUNS INFLIGHT [PAR [ALARM_MS]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (k = 0; k < par; k++) {
		per = runs / par + (k < runs % par);
		fflush(stdout);
		pids[k] = fork();
		if (pids[k] < 0)
			die("fork", errno);
		if (!pids[k]) {
			par_index = k;
			port = BASE_PORT + k;
			exit(pair(argv[1], argv[2], per, q));
		}
	}
	for (k = 0; k < par; k++) {
		if (waitpid(pids[k], &status, 0) != pids[k])
			die("waitpid", errno);
		bad += WIFEXITED(status) ? WEXITSTATUS(status) : 100;
	}
	check(!bad, "%d runs (%d at a time), %d requests in flight, the client stopping: %d target deaths or failed runs, every target lived to its %d ms alarm (%.0f s)",
	      runs, par, q, bad, alarm_ms, (now_ms() - t0) / 1e3);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
