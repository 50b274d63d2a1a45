// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The storage initiator's shutdown against a signature-pipelining target
 * over rdma_cm (issue 15, item 4): before the shutdown the target has
 * served READ commands through signature MKEYs with its good responses
 * fenced behind the data, some of them over blocks with bad PI, so that
 * its QP stopped in SQD, libmlx5sp canceled the good responses and
 * resumed it (SQD -> RTS) and the target sent bad responses instead. The
 * initiator takes every response, at once puts RDMA READs of the
 * target's memory in flight, posts its last messages and moves its QP to
 * ERR and disconnects with no pause. A ConnectX executes every WQE whose
 * doorbell rang before the command that took the QP out of RTS: the
 * target must receive every message, the last one too, and none of its
 * own WRs may end with an error completion before the disconnect.
 *
 * usage: cm_sig_shutdown SERVER_IP CLIENT_IP [RUNS [CMDS [READS]]]
 *
 * A child process is the target. Its QP is its own (mlx5sp_create_qp() on
 * a DEVX context of the rdma_cm device), walked through INIT, RTR and
 * RTS with rdma_init_qp_attr() and accepted with its number. In run R,
 * READ command K reads BLOCKS blocks of 512 bytes + 8 bytes of T10-DIF
 * and its PI is bad when (K + R) % 4 == 1 (guard, app tag or ref tag in
 * turn). Ends with "N passed, N failed".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mlx5sp/pipeline.h>

#include "check.h"
#include "cm.h"
#include "t10dif.h"

#define PORT		18516
#define MAX_CMDS	32
#define MSGS		16	/* the last messages, "LAST" the last one */
#define MAX_READS	16
#define READ_LEN	4096
#define RD_DEPTH	16
#define BLOCKS		4
#define BLOCK		512
#define PI		8
#define APP_TAG		0x5a5a
#define MSG_LEN		32
#define WAIT_MS		CM_WAIT_MS

#define WRID_UMR	(1ULL << 60)
#define WRID_DATA	(2ULL << 60)
#define WRID_GOOD	(3ULL << 60)
#define WRID_BAD	(4ULL << 60)
#define WRID_READ	(5ULL << 60)
#define WRID_KIND(x)	((x) & (0xfULL << 60))
#define WRID_IDX(x)	((unsigned int)((x) & 0xffffffff))

/* Where the other side's memory is, in the connection's private data. */
struct peer_mem {
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

/* The target's memory: the disk, then what the initiator READs raw. */
struct target_buf {
	unsigned char disk[MAX_CMDS * BLOCKS][BLOCK + PI];
	unsigned char rd[MAX_READS][READ_LEN];
	char cmd[MAX_CMDS + MSGS][MSG_LEN];	/* receive slots */
};

/* The initiator's: the READ commands' data, responses, raw READs, SENDs. */
struct ini_buf {
	unsigned char data[MAX_CMDS][BLOCKS * BLOCK];
	char resp[MAX_CMDS][MSG_LEN];
	unsigned char rd[MAX_READS][READ_LEN];
	char out[MAX_CMDS + MSGS][MSG_LEN];
};

static unsigned char data_byte(unsigned int lba, unsigned int i, int run)
{
	return (unsigned char)(lba * 7 + i + run * 3);
}

static unsigned char rd_byte(int i, int k, int run)
{
	return (unsigned char)(i * 13 + k * 7 + run + 1);
}

/* The PI of READ @k in @run is bad: 0 no, 1 guard, 2 app tag, 3 ref tag. */
static int bad_kind(int k, int run)
{
	return (k + run) % 4 == 1 ? 1 + (k / 4 + run) % 3 : 0;
}

static enum mlx5dv_mkey_err_type err_type(int kind)
{
	static const enum mlx5dv_mkey_err_type t[] = {
		MLX5DV_MKEY_NO_ERR, MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD,
		MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG, MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG,
	};

	return t[kind];
}

/* ---- the target ---- */

struct target {
	struct ibv_context *ctx;	/* DEVX context of the rdma_cm device */
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct target_buf *buf;
	struct rdma_cm_id *id;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct mlx5sp_pipe *pipe;
	struct mlx5dv_mkey *mkey[MAX_CMDS];
	struct mlx5sp_txn txn[MAX_CMDS];
	int answered[MAX_CMDS];		/* bad response posted */
	struct peer_mem ini;
	int run, cmds;
	int send_errors, sig_errors, wrong_kind, canceled, resumed;
};

static void format_disk(struct target *t)
{
	unsigned int lba, i;
	unsigned char *b;
	int k;

	for (lba = 0; lba < (unsigned int)t->cmds * BLOCKS; lba++) {
		b = t->buf->disk[lba];
		for (i = 0; i < BLOCK; i++)
			b[i] = data_byte(lba, i, t->run);
		t10dif_pi(b + BLOCK, b, BLOCK, APP_TAG, lba);
	}
	for (k = 0; k < t->cmds; k++) {
		b = t->buf->disk[k * BLOCKS] + BLOCK;
		switch (bad_kind(k, t->run)) {
		case 1:
			b[0] ^= 1;
			break;
		case 2:
			b[2] ^= 1;
			break;
		case 3:
			b[7] ^= 1;
			break;
		}
	}
	for (k = 0; k < MAX_READS * READ_LEN; k++)
		t->buf->rd[k / READ_LEN][k % READ_LEN] =
			rd_byte(k / READ_LEN, k % READ_LEN, t->run);
}

static int post_resp(struct target *t, uint64_t wr_id, const char *text)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(t->qp);
	char resp[MSG_LEN] = {};

	snprintf(resp, sizeof(resp), "%s", text);
	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, resp, MSG_LEN);
	return ibv_wr_complete(qpx);
}

/* READ @k: UMR of its signature MKEY, the WRITE through it, the fenced
 * good response; its transaction open before.
 */
static int serve_read(struct target *t, int k)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(t->qp);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	struct t10dif_sig ts;
	struct mlx5dv_mkey_conf_attr conf = {};
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf->disk[k * BLOCKS],
		.length = BLOCKS * (BLOCK + PI),
		.lkey = t->mr->lkey,
	};
	char resp[MSG_LEN] = {};
	int ret;

	t->txn[k] = (struct mlx5sp_txn){ .sig_mkey = t->mkey[k],
					 .resp_wr_id = WRID_GOOD | k };
	ret = mlx5sp_txn_open(t->pipe, &t->txn[k]);
	if (ret)
		return ret;
	snprintf(resp, sizeof(resp), "GOOD %d", k);
	ibv_wr_start(qpx);
	qpx->wr_id = WRID_UMR | k;
	qpx->wr_flags = IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(dvqp, t->mkey[k], 3, &conf);
	mlx5dv_wr_set_mkey_access_flags(dvqp, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(dvqp, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(dvqp, t10dif_sig_mem(&ts, APP_TAG, k * BLOCKS));
	qpx->wr_id = WRID_DATA | k;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, t->ini.rkey, t->ini.addr +
			  offsetof(struct ini_buf, data[k]));
	ibv_wr_set_sge(qpx, t->mkey[k]->lkey, 0, BLOCKS * BLOCK);
	qpx->wr_id = WRID_GOOD | k;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, resp, MSG_LEN);
	return ibv_wr_complete(qpx);
}

static void on_send_wc(const struct ibv_wc *wc, void *arg)
{
	struct target *t = arg;
	unsigned int k = WRID_IDX(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "  target, run %d: WR 0x%llx: %s\n", t->run,
			(unsigned long long)wc->wr_id,
			ibv_wc_status_str(wc->status));
		t->send_errors++;
		return;
	}
	if (WRID_KIND(wc->wr_id) == WRID_GOOD && k < (unsigned int)t->cmds &&
	    t->txn[k].state == MLX5SP_TXN_OPEN)
		mlx5sp_txn_end(t->pipe, &t->txn[k]);
}

/* SQ_DRAINED: libmlx5sp's four steps, then a bad response for each READ
 * that failed its check.
 */
static int on_async(struct target *t)
{
	struct ibv_async_event ev;
	int ret, k;

	if (ibv_get_async_event(t->ctx, &ev))
		return 0;
	ret = mlx5sp_pipe_event(t->pipe, &ev);
	ibv_ack_async_event(&ev);
	if (ret < 0) {
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;
		int st = -1;

		/* which step failed: the cancel wants the QP in SQD */
		if (!ibv_query_qp(t->qp, &qa, IBV_QP_STATE, &qia))
			st = qa.qp_state;
		fprintf(stderr,
			"  target, run %d: SQD handling: %s (QP state %d now, %d SQDs handled before, %d signature errors)\n",
			t->run, strerror(-ret), st, t->resumed, t->sig_errors);
		return ret;
	}
	t->resumed += ret == 1;
	for (k = 0; k < t->cmds; k++) {
		struct mlx5sp_txn *x = &t->txn[k];
		char text[MSG_LEN];

		if (x->state != MLX5SP_TXN_SIG_ERROR || t->answered[k])
			continue;
		t->answered[k] = 1;
		t->sig_errors++;
		t->canceled += x->canceled;
		if (x->err.err_type != err_type(bad_kind(k, t->run)))
			t->wrong_kind++;
		snprintf(text, sizeof(text), "BAD %d", k);
		if (post_resp(t, WRID_BAD | k, text))
			return -EIO;
	}
	return 0;
}

static void target_qp(struct target *t)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4 * MAX_CMDS, .max_recv_wr = MAX_CMDS + MSGS,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 256 },	/* the UMR: KLMs + BSF */
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};
	struct mlx5dv_mkey_init_attr ma = {
		.pd = t->pd,
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 1,
	};
	struct mlx5sp_pipe_attr pa = { .on_wc = on_send_wc, .arg = t };
	struct ibv_recv_wr wr = { .num_sge = 1 }, *bad;
	struct ibv_sge sge = { .length = MSG_LEN, .lkey = t->mr->lkey };
	enum ibv_qp_state st[] = { IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS };
	struct ibv_qp_attr a;
	int mask, i, n, ret;

	t->scq = ibv_create_cq(t->ctx, 8 * MAX_CMDS, NULL, NULL, 0);
	t->rcq = ibv_create_cq(t->ctx, 2 * (MAX_CMDS + MSGS), NULL, NULL, 0);
	if (!t->scq || !t->rcq)
		die("target: ibv_create_cq", errno);
	qa.pd = t->pd;
	qa.send_cq = t->scq;
	qa.recv_cq = t->rcq;
	t->qp = mlx5sp_create_qp(t->ctx, &qa, &dqa);
	if (!t->qp)
		die("target: mlx5sp_create_qp", errno);
	for (i = 0; i < t->cmds; i++) {
		t->mkey[i] = mlx5dv_create_mkey(&ma);
		if (!t->mkey[i])
			die("target: mlx5dv_create_mkey", errno);
	}
	pa.qp = t->qp;
	pa.send_cq = t->scq;
	t->pipe = mlx5sp_pipe_create(&pa);
	if (!t->pipe)
		die("target: mlx5sp_pipe_create", errno);
	/* the QP is ours: rdma_cm gives the attributes of each state */
	for (i = 0; i < 3; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = st[i];
		if (rdma_init_qp_attr(t->id, &a, &mask))
			die("target: rdma_init_qp_attr", errno);
		if (st[i] == IBV_QPS_INIT)
			a.qp_access_flags |= IBV_ACCESS_REMOTE_READ;
		if (ibv_modify_qp(t->qp, &a, mask))
			die("target: ibv_modify_qp", errno);
		if (st[i] != IBV_QPS_INIT)
			continue;
		/* receives from INIT on (libmlx5 refuses them in RESET) */
		wr.sg_list = &sge;
		for (n = 0; n < t->cmds + MSGS; n++) {
			memset(t->buf->cmd[n], 0, MSG_LEN);
			sge.addr = (uintptr_t)t->buf->cmd[n];
			wr.wr_id = n;
			ret = ibv_post_recv(t->qp, &wr, &bad);
			if (ret)
				die("target: ibv_post_recv", ret);
		}
	}
}

static void target_qp_destroy(struct target *t)
{
	int i;

	mlx5sp_pipe_destroy(t->pipe);
	ibv_destroy_qp(t->qp);
	for (i = 0; i < t->cmds; i++)
		mlx5dv_destroy_mkey(t->mkey[i]);
	ibv_destroy_cq(t->scq);
	ibv_destroy_cq(t->rcq);
	rdma_destroy_id(t->id);
}

static int serve_one(struct target *t, struct rdma_event_channel *ch)
{
	struct peer_mem tm = { (uintptr_t)t->buf, t->mr->rkey };
	struct rdma_conn_param cp = { .responder_resources = RD_DEPTH,
				      .initiator_depth = RD_DEPTH,
				      .private_data = &tm,
				      .private_data_len = sizeof(tm) };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	int i, n, cmds = 0, msgs = 0, flushed = 0, last = 0, disc = 0;
	struct rdma_cm_event *ev;
	struct ibv_wc wc[16];
	double end;

	t->send_errors = t->sig_errors = t->wrong_kind = 0;
	t->canceled = t->resumed = 0;
	if (!expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST, &t->id, &t->ini,
			  sizeof(t->ini)))
		return 1;
	format_disk(t);
	/* nothing of the last run: a SQD handled before command K arrives
	 * must not find K's old SIG_ERROR and answer it BAD
	 */
	memset(t->txn, 0, sizeof(t->txn));
	memset(t->answered, 0, sizeof(t->answered));
	target_qp(t);
	cp.qp_num = t->qp->qp_num;
	if (rdma_accept(t->id, &cp))
		die("rdma_accept", errno);
	end = now_ms() + WAIT_MS;
	while ((!disc || cmds + msgs + flushed < t->cmds + MSGS) &&
	       now_ms() < end) {
		if (on_async(t))
			break;
		n = ibv_poll_cq(t->scq, 16, wc);
		for (i = 0; i < n; i++)
			on_send_wc(&wc[i], t);
		n = ibv_poll_cq(t->rcq, 16, wc);
		for (i = 0; i < n; i++) {
			const char *m = t->buf->cmd[wc[i].wr_id];
			int k;

			if (wc[i].status != IBV_WC_SUCCESS) {
				flushed++;
				continue;
			}
			if (sscanf(m, "READ %d", &k) == 1 && k >= 0 &&
			    k < t->cmds) {
				cmds++;
				k = serve_read(t, k);
				if (k)
					die("target: READ", k < 0 ? -k : k);
				continue;
			}
			msgs++;
			last |= !strcmp(m, "LAST");
		}
		if (disc)
			continue;
		ev = next_event(ch, 0);
		if (!ev)
			continue;
		/* ESTABLISHED, or DISCONNECTED (its DREQ may overtake the RTU) */
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED) {
			disc = 1;
			/* our QP: rdma_cm leaves its state to us */
			ibv_modify_qp(t->qp, &err, IBV_QP_STATE);
			rdma_disconnect(t->id);
		}
		rdma_ack_cm_event(ev);
	}
	target_qp_destroy(t);
	printf("  target, run %d: %d of %d READ commands, %d signature errors (%d canceled responses, %d resumes), %d of %d messages%s, %d receives flushed, %d WRs in error%s\n",
	       t->run, cmds, t->cmds, t->sig_errors, t->canceled, t->resumed,
	       msgs, MSGS, last ? " (the last one too)" : "", flushed,
	       t->send_errors, disc ? "" : ", no DISCONNECTED");
	fflush(stdout);
	return !(cmds == t->cmds && msgs == MSGS && last && disc &&
		 !t->send_errors && !t->wrong_kind && t->sig_errors &&
		 t->resumed);
}

static int target(const char *ip, int runs, int cmds, int ready)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct mlx5dv_context_attr dv = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct rdma_cm_id *listen_id;
	struct target t = { .cmds = cmds };
	struct sockaddr_in sa;
	int fails = 0;

	addr_of(ip, PORT, &sa);
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id", errno);
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&sa) ||
	    rdma_listen(listen_id, 4))
		die("rdma_bind_addr/listen", errno);
	if (!listen_id->verbs)
		die("the listener is bound to no device", ENODEV);
	t.ctx = mlx5dv_open_device(listen_id->verbs->device, &dv);
	t.pd = t.ctx ? ibv_alloc_pd(t.ctx) : NULL;
	t.buf = calloc(1, sizeof(*t.buf));
	if (!t.pd || !t.buf)
		die("target: context", errno);
	t.mr = ibv_reg_mr(t.pd, t.buf, sizeof(*t.buf),
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!t.mr)
		die("target: ibv_reg_mr", errno);
	if (fcntl(t.ctx->async_fd, F_SETFL,
		  fcntl(t.ctx->async_fd, F_GETFL) | O_NONBLOCK))
		die("fcntl", errno);
	if (write(ready, "r", 1) != 1)
		die("write", errno);
	for (t.run = 0; t.run < runs; t.run++)
		fails += serve_one(&t, ch);
	printf("  target: %d runs, %d failed\n", runs, fails);
	ibv_dereg_mr(t.mr);
	ibv_dealloc_pd(t.pd);
	ibv_close_device(t.ctx);
	free(t.buf);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return fails ? 1 : 0;
}

/* ---- the initiator ---- */

struct ini {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ini_buf *buf;
};

static int post_send(struct ini *c, int slot, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)c->buf->out[slot], MSG_LEN,
			       c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(c->id->qp, &wr, &bad);
}

/* The READ commands and their responses; 0 when each was as expected. */
static int commands(struct ini *c, int run, int cmds)
{
	int k, got = 0, wrong = 0, sent = 0, i, n, b;
	struct ibv_wc wc[16];
	double end;

	for (k = 0; k < cmds; k++) {
		snprintf(c->buf->out[k], MSG_LEN, "READ %d", k);
		b = post_send(c, k, k);
		if (b)
			die("initiator: ibv_post_send READ command", b);
	}
	end = now_ms() + WAIT_MS;
	while ((got < cmds || sent < cmds) && now_ms() < end) {
		n = ibv_poll_cq(c->cq, 16, wc);
		for (i = 0; i < n; i++) {
			const char *r;
			int bad;

			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "  initiator, run %d: %s\n", run,
					ibv_wc_status_str(wc[i].status));
				return 1;
			}
			if (wc[i].opcode != IBV_WC_RECV) {
				sent++;
				continue;
			}
			got++;
			r = c->buf->resp[wc[i].wr_id];
			bad = !strncmp(r, "BAD ", 4);
			if (sscanf(r + (bad ? 4 : 5), "%d", &k) != 1 || k < 0 ||
			    k >= cmds || bad != !!bad_kind(k, run)) {
				fprintf(stderr, "  initiator, run %d: response \"%.16s\"\n",
					run, r);
				wrong++;
				continue;
			}
			for (b = 0; !bad && b < BLOCKS * BLOCK; b++)
				if (c->buf->data[k][b] !=
				    data_byte(k * BLOCKS + b / BLOCK, b % BLOCK, run))
					break;
			if (!bad && b < BLOCKS * BLOCK) {
				fprintf(stderr, "  initiator, run %d: READ %d: data differ at %d\n",
					run, k, b);
				wrong++;
			}
		}
	}
	return got != cmds || sent != cmds || wrong;
}

/*
 * One run: connect, the READ commands, then raw READs, the last messages,
 * ERR and disconnect without a pause. Returns 0 when every WR of the
 * initiator completed successfully with its data.
 */
static int initiate(const char *sip, const char *cip, int run, int cmds,
		    int reads)
{
	struct ini c = {};
	struct peer_mem im, tm;
	struct rdma_conn_param cp = { .responder_resources = RD_DEPTH,
				      .initiator_depth = RD_DEPTH,
				      .retry_count = 7, .rnr_retry_count = 7,
				      .private_data = &im,
				      .private_data_len = sizeof(im) };
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = MAX_CMDS + MAX_READS + MSGS,
			 .max_recv_wr = MAX_CMDS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct sockaddr_in src, dst;
	int i, k, good = 0, done = 0, fail;
	struct ibv_wc wc;
	double end;

	addr_of(sip, PORT, &dst);
	addr_of(cip, PORT, &src);
	src.sin_port = 0;
	c.buf = calloc(1, sizeof(*c.buf));
	c.ch = rdma_create_event_channel();
	if (!c.buf || !c.ch || rdma_create_id(c.ch, &c.id, NULL, RDMA_PS_TCP))
		die("initiator: rdma_create_id", errno);
	if (rdma_resolve_addr(c.id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, WAIT_MS) ||
	    !expect_event(c.ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL, 0) ||
	    rdma_resolve_route(c.id, WAIT_MS) ||
	    !expect_event(c.ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL, 0))
		die("initiator: resolve", errno ? errno : EHOSTUNREACH);
	c.pd = ibv_alloc_pd(c.id->verbs);
	c.cq = c.pd ? ibv_create_cq(c.id->verbs, 2 * (MAX_CMDS + MAX_READS + MSGS),
				    NULL, NULL, 0) : NULL;
	c.mr = c.cq ? ibv_reg_mr(c.pd, c.buf, sizeof(*c.buf),
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!c.mr)
		die("initiator: PD/CQ/MR", errno);
	qa.send_cq = c.cq;
	qa.recv_cq = c.cq;
	if (rdma_create_qp(c.id, c.pd, &qa))
		die("initiator: rdma_create_qp", errno);
	for (i = 0; i < cmds; i++) {
		struct ibv_sge sge = { (uintptr_t)c.buf->resp[i], MSG_LEN,
				       c.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		k = ibv_post_recv(c.id->qp, &wr, &bad);
		if (k)
			die("initiator: ibv_post_recv", k);
	}
	im.addr = (uintptr_t)c.buf;
	im.rkey = c.mr->rkey;
	cm_connect("initiator", c.id, c.ch, &cp, &tm, sizeof(tm));
	fail = commands(&c, run, cmds);
	/* the shutdown, right behind the last response */
	for (i = 0; i < reads; i++) {
		struct ibv_sge sge = { (uintptr_t)c.buf->rd[i], READ_LEN,
				       c.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = WRID_READ | i, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		wr.wr.rdma.rkey = tm.rkey;
		wr.wr.rdma.remote_addr = tm.addr +
			offsetof(struct target_buf, rd[i]);
		k = ibv_post_send(c.id->qp, &wr, &bad);
		if (k)
			die("initiator: ibv_post_send READ", k);
	}
	for (i = 0; i < MSGS; i++) {
		snprintf(c.buf->out[cmds + i], MSG_LEN,
			 i + 1 < MSGS ? "msg %d" : "LAST", i);
		k = post_send(&c, cmds + i, cmds + i);
		if (k)
			die("initiator: ibv_post_send", k);
	}
	if (ibv_modify_qp(c.id->qp, &err, IBV_QP_STATE))
		die("initiator: ibv_modify_qp ERR", errno);
	rdma_disconnect(c.id);
	end = now_ms() + WAIT_MS;
	while (done < MSGS + reads && now_ms() < end) {
		if (ibv_poll_cq(c.cq, 1, &wc) <= 0)
			continue;
		if (wc.opcode == IBV_WC_RECV && wc.status != IBV_WC_SUCCESS)
			continue;	/* the receives nothing used, flushed */
		done++;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "  initiator, run %d: WR 0x%llx: %s\n",
				run, (unsigned long long)wc.wr_id,
				ibv_wc_status_str(wc.status));
			continue;
		}
		if (WRID_KIND(wc.wr_id) != WRID_READ) {
			good++;
			continue;
		}
		i = WRID_IDX(wc.wr_id);
		for (k = 0; k < READ_LEN; k++)
			if (c.buf->rd[i][k] != rd_byte(i, k, run))
				break;
		good += k == READ_LEN;
	}
	printf("  initiator, run %d: %d READ commands %s, %d of %d last WRs (%d READs, %d SENDs) completed successfully\n",
	       run, cmds, fail ? "NOT as expected" : "answered as expected",
	       good, MSGS + reads, reads, MSGS);
	fflush(stdout);
	rdma_destroy_qp(c.id);
	ibv_dereg_mr(c.mr);
	ibv_destroy_cq(c.cq);
	ibv_dealloc_pd(c.pd);
	rdma_destroy_id(c.id);
	rdma_destroy_event_channel(c.ch);
	free(c.buf);
	return fail || good != MSGS + reads;
}

int main(int argc, char **argv)
{
	int runs = argc > 3 ? atoi(argv[3]) : 10;
	int cmds = argc > 4 ? atoi(argv[4]) : 16;
	int reads = argc > 5 ? atoi(argv[5]) : 8;
	int run, bad_runs = 0;
	pid_t pid;

	if (argc < 3 || runs <= 0 || cmds < 4 || cmds > MAX_CMDS ||
	    reads < 0 || reads > MAX_READS) {
		fprintf(stderr, "usage: cm_sig_shutdown SERVER_IP CLIENT_IP [RUNS [CMDS(4-%d) [READS(0-%d)]]]\n",
			MAX_CMDS, MAX_READS);
		return 2;
	}
	pid = cm_start_target(target, argv[1], runs, cmds);
	for (run = 0; run < runs; run++)
		bad_runs += initiate(argv[1], argv[2], run, cmds, reads);
	check(!bad_runs, "initiator: every READ command answered as its PI says, then every READ and SEND before the QP to ERR and rdma_disconnect completed successfully, %d of %d runs",
	      runs - bad_runs, runs);
	check(cm_target_ok(pid),
	      "target: signature errors, canceled responses and SQD -> RTS in each run, then every message received, the last one too, no WR in error, in each of %d runs",
	      runs);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
