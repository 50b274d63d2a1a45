// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * mlx5sp-read-target: the READ path of a storage target with signature
 * pipelining, over libmlx5sp.
 *
 * The "disk" holds 512-byte blocks, each followed by its 8-byte T10-DIF
 * (CRC guard, app tag, ref tag = LBA). For every READ the target configures
 * a signature MKEY over the blocks (memory domain: T10-DIF, checked; wire
 * domain: none, so the protection is stripped), RDMA WRITEs the data
 * through it to the initiator and posts the good response right behind it
 * with IBV_SEND_FENCE, without waiting. When a block fails its check the QP
 * stops in SQD; libmlx5sp finds the bad READs, cancels their good responses
 * and resumes, and the target sends bad responses instead.
 *
 * Both ends run in this process on one device, connected over RoCE.
 *
 * usage: mlx5sp-read-target -d DEV [-g GID_INDEX] [-n READS] [-b BLOCKS]
 *                           [-c guard|apptag|reftag:K ...] [-v]
 * -c KIND:K corrupts the protection of the first block of READ K. -v tells
 * each stop: the SQ_DRAINED event with the QP's state, the bad READs, the
 * QP resumed by libmlx5sp (make demo shows it). Exit
 * status 0 when every READ ended as expected: corrupted ones with a
 * signature error of their kind and a bad response, the others with their
 * data and a good response.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <arpa/inet.h>

#include <mlx5sp/pipeline.h>

#define BLOCK		512
#define PI		8
#define MAX_READS	64
#define APP_TAG		0x5a5a
#define RESP_LEN	16
#define WRID_UMR	(1ULL << 60)
#define WRID_DATA	(2ULL << 60)
#define WRID_GOOD	(3ULL << 60)
#define WRID_BAD	(4ULL << 60)
#define WRID_KIND(x)	((x) & (0xfULL << 60))
#define WRID_IDX(x)	((unsigned int)((x) & 0xffffffff))

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	size_t len;
};

struct read_req {
	struct mlx5sp_txn txn;
	struct mlx5dv_mkey *mkey;
	enum mlx5dv_mkey_err_type inject;	/* expected outcome */
	int bad_posted;				/* target sent "BAD" */
	int responded;				/* responses the initiator got */
	int bad_response;			/* the initiator got "BAD" */
};

static unsigned int nreads = 8, nblocks = 4, gid_index = 1;
static int verbose;
#define TIMEOUT_S	30
static struct read_req reads[MAX_READS];

/*
 * T10-DIF CRC16: polynomial 0x8bb7, no reflection, initial value 0. The
 * tests have it in tests/userspace/t10dif.h; this example is installed
 * alone (libmlx5sp-dev), so it keeps its own copy and builds by itself.
 */
static uint16_t crc_t10dif(const unsigned char *p, size_t len)
{
	uint16_t crc = 0;
	int i;

	while (len--) {
		crc ^= (uint16_t)(*p++) << 8;
		for (i = 0; i < 8; i++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x8bb7 : crc << 1;
	}
	return crc;
}

static unsigned char *disk_block(struct end *t, unsigned int lba)
{
	return (unsigned char *)t->buf + (size_t)lba * (BLOCK + PI);
}

static void format_disk(struct end *t)
{
	unsigned int lba, i;
	unsigned char *b;
	uint16_t guard, app = htons(APP_TAG);
	uint32_t ref;

	for (lba = 0; lba < nreads * nblocks; lba++) {
		b = disk_block(t, lba);
		for (i = 0; i < BLOCK; i++)
			b[i] = (unsigned char)(lba * 7 + i);
		guard = htons(crc_t10dif(b, BLOCK));
		ref = htonl(lba);
		memcpy(b + BLOCK, &guard, 2);
		memcpy(b + BLOCK + 2, &app, 2);
		memcpy(b + BLOCK + 4, &ref, 4);
	}
}

static void corrupt(struct end *t, unsigned int k, enum mlx5dv_mkey_err_type kind)
{
	unsigned char *pi = disk_block(t, k * nblocks) + BLOCK;

	switch (kind) {
	case MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD:
		pi[0] ^= 0x01;
		break;
	case MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG:
		pi[2] ^= 0x01;
		break;
	case MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG:
		pi[7] ^= 0x01;
		break;
	default:
		break;
	}
}

static int open_end(struct end *e, struct ibv_device *dev, size_t len,
		    int access, int target)
{
	struct mlx5dv_context_attr dv = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4 * MAX_READS, .max_recv_wr = 2 * MAX_READS,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 256 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};

	e->ctx = target ? mlx5dv_open_device(dev, &dv) : ibv_open_device(dev);
	if (!e->ctx)
		return -errno;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 8 * MAX_READS, NULL, NULL, 0) : NULL;
	e->len = len;
	e->buf = calloc(1, len);
	if (!e->cq || !e->buf)
		return -ENOMEM;
	e->mr = ibv_reg_mr(e->pd, e->buf, len, access);
	if (!e->mr)
		return -errno;
	qa.pd = e->pd;
	qa.send_cq = e->cq;
	qa.recv_cq = e->cq;
	e->qp = target ? mlx5sp_create_qp(e->ctx, &qa, &dqa) :
			 ibv_create_qp_ex(e->ctx, &qa);
	return e->qp ? 0 : -errno;
}

static int connect_qp(struct end *e, uint32_t dest_qpn, union ibv_gid *dgid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return -ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int post_recvs(struct end *ini)
{
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_sge sge;
	unsigned int i;
	int ret;

	for (i = 0; i < 2 * nreads; i++) {
		/* Responses land after the data area, one slot each. */
		sge.addr = (uintptr_t)ini->buf + (size_t)nreads * nblocks * BLOCK +
			   (size_t)i * RESP_LEN;
		sge.length = RESP_LEN;
		sge.lkey = ini->mr->lkey;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ret = ibv_post_recv(ini->qp, &wr, &bad);
		if (ret)
			return -ret;
	}
	return 0;
}

/* UMR + RDMA WRITE through the signature MKEY + fenced good response. */
static int post_read(struct end *t, struct end *ini, unsigned int k)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(t->qp);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	struct read_req *r = &reads[k];
	struct mlx5dv_sig_t10dif dif = {
		.bg_type = MLX5DV_SIG_T10DIF_CRC, .bg = 0,
		.app_tag = APP_TAG, .ref_tag = k * nblocks,
		.flags = MLX5DV_SIG_T10DIF_FLAG_REF_REMAP,
	};
	struct mlx5dv_sig_block_domain mem = {
		.sig_type = MLX5DV_SIG_TYPE_T10DIF, .sig.dif = &dif,
		.block_size = MLX5DV_BLOCK_SIZE_512,
	};
	struct mlx5dv_sig_block_attr sig = {
		.mem = &mem,
		.check_mask = MLX5DV_SIG_MASK_T10DIF_GUARD |
			      MLX5DV_SIG_MASK_T10DIF_APPTAG |
			      MLX5DV_SIG_MASK_T10DIF_REFTAG,
	};
	struct mlx5dv_mkey_conf_attr conf = {};
	struct ibv_sge sge = {
		.addr = (uintptr_t)disk_block(t, k * nblocks),
		.length = nblocks * (BLOCK + PI),
		.lkey = t->mr->lkey,
	};
	char resp[RESP_LEN];
	int ret;

	snprintf(resp, sizeof(resp), "GOOD %u", k);

	ibv_wr_start(qpx);
	qpx->wr_id = WRID_UMR | k;
	qpx->wr_flags = IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(dvqp, r->mkey, 3, &conf);
	mlx5dv_wr_set_mkey_access_flags(dvqp, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(dvqp, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(dvqp, &sig);

	qpx->wr_id = WRID_DATA | k;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, ini->mr->rkey,
			  (uintptr_t)ini->buf + (size_t)k * nblocks * BLOCK);
	ibv_wr_set_sge(qpx, r->mkey->lkey, 0, nblocks * BLOCK);

	qpx->wr_id = WRID_GOOD | k;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, resp, RESP_LEN);
	ret = ibv_wr_complete(qpx);
	return -ret;
}

static int post_bad_response(struct end *t, unsigned int k)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(t->qp);
	char resp[RESP_LEN];

	snprintf(resp, sizeof(resp), "BAD %u", k);
	ibv_wr_start(qpx);
	qpx->wr_id = WRID_BAD | k;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, resp, RESP_LEN);
	return -ibv_wr_complete(qpx);
}

static struct mlx5sp_pipe *the_pipe;

static void on_target_wc(const struct ibv_wc *wc, void *arg __attribute__((unused)))
{
	unsigned int k = WRID_IDX(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "target: wr 0x%llx: %s\n",
			(unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status));
		return;
	}
	/* A good response completed: its READ passed. Canceled ones (NOPs
	 * reported with the original wr_id) belong to ended transactions.
	 */
	if (WRID_KIND(wc->wr_id) == WRID_GOOD && k < nreads &&
	    reads[k].txn.state == MLX5SP_TXN_OPEN)
		mlx5sp_txn_end(the_pipe, &reads[k].txn);
}

static int check_initiator(struct end *ini, unsigned int k, const char *resp,
			   struct end *t)
{
	struct read_req *r = &reads[k];
	int want_bad = r->inject != MLX5DV_MKEY_NO_ERR;
	unsigned int b;

	r->bad_response = !strncmp(resp, "BAD", 3);
	r->responded++;
	if (r->bad_response != want_bad) {
		fprintf(stderr, "READ %u: got \"%s\"\n", k, resp);
		return -1;
	}
	if (want_bad)
		return 0;
	for (b = 0; b < nblocks; b++)
		if (memcmp(ini->buf + ((size_t)k * nblocks + b) * BLOCK,
			   disk_block(t, k * nblocks + b), BLOCK)) {
			fprintf(stderr, "READ %u: block %u differs\n", k, b);
			return -1;
		}
	return 0;
}

static const char *qp_state_str(struct ibv_qp *qp)
{
	static const char * const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return "unknown (query failed)";
	if ((unsigned int)a.qp_state >= sizeof(names) / sizeof(names[0]) ||
	    !names[a.qp_state])
		return "unknown";
	return names[a.qp_state];
}

static enum mlx5dv_mkey_err_type parse_kind(const char *s)
{
	if (!strcmp(s, "guard"))
		return MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD;
	if (!strcmp(s, "apptag"))
		return MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG;
	if (!strcmp(s, "reftag"))
		return MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG;
	return MLX5DV_MKEY_NO_ERR;
}

int main(int argc, char **argv)
{
	struct mlx5dv_mkey_init_attr ma = {
		.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE,
		.max_entries = 1,
	};
	const char *devname = NULL, *kindp;
	struct ibv_device **list, *dev = NULL;
	struct end t = {}, ini = {};
	struct mlx5sp_pipe_attr pa = {};
	struct mlx5sp_pipe *pipe;
	union ibv_gid gid;
	unsigned int k, got = 0, bad_seen = 0;
	struct timespec now, end;
	int opt, i, n, ret, errors = 0;
	struct ibv_wc wc[16];
	char *colon;

	while ((opt = getopt(argc, argv, "d:g:n:b:c:v")) != -1) {
		switch (opt) {
		case 'd': devname = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'n': nreads = atoi(optarg); break;
		case 'b': nblocks = atoi(optarg); break;
		case 'c':
			colon = strchr(optarg, ':');
			if (!colon)
				goto usage;
			*colon = 0;
			kindp = optarg;
			k = atoi(colon + 1);
			if (k >= MAX_READS || parse_kind(kindp) == MLX5DV_MKEY_NO_ERR)
				goto usage;
			reads[k].inject = parse_kind(kindp);
			break;
		case 'v': verbose = 1; break;
		default:
			goto usage;
		}
	}
	if (!devname || !nreads || nreads > MAX_READS || !nblocks || nblocks > 64)
		goto usage;

	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			dev = list[i];
	if (!dev) {
		fprintf(stderr, "no device %s\n", devname);
		return 1;
	}
	ret = open_end(&t, dev, (size_t)nreads * nblocks * (BLOCK + PI),
		       IBV_ACCESS_LOCAL_WRITE, 1);
	if (!ret)
		ret = open_end(&ini, dev, (size_t)nreads * nblocks * BLOCK +
			       2 * nreads * RESP_LEN,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 0);
	if (ret) {
		fprintf(stderr, "setup: %s\n", strerror(-ret));
		return 1;
	}
	if (ibv_query_gid(t.ctx, 1, gid_index, &gid) ||
	    connect_qp(&t, ini.qp->qp_num, &gid) ||
	    connect_qp(&ini, t.qp->qp_num, &gid) || post_recvs(&ini)) {
		fprintf(stderr, "connect: %s\n", strerror(errno));
		return 1;
	}
	fcntl(t.ctx->async_fd, F_SETFL, fcntl(t.ctx->async_fd, F_GETFL) | O_NONBLOCK);

	format_disk(&t);
	ma.pd = t.pd;
	for (k = 0; k < nreads; k++) {
		corrupt(&t, k, reads[k].inject);
		reads[k].mkey = mlx5dv_create_mkey(&ma);
		if (!reads[k].mkey) {
			fprintf(stderr, "mlx5dv_create_mkey: %s\n", strerror(errno));
			return 1;
		}
	}
	pa.qp = t.qp;
	pa.send_cq = t.cq;
	pa.on_wc = on_target_wc;
	pipe = mlx5sp_pipe_create(&pa);
	if (!pipe) {
		perror("mlx5sp_pipe_create");
		return 1;
	}
	the_pipe = pipe;

	for (k = 0; k < nreads; k++) {
		/* the transaction names its MKEY and response before it opens */
		reads[k].txn.sig_mkey = reads[k].mkey;
		reads[k].txn.resp_wr_id = WRID_GOOD | k;
		reads[k].txn.ctx = &reads[k];
		ret = mlx5sp_txn_open(pipe, &reads[k].txn);
		if (!ret)
			ret = post_read(&t, &ini, k);
		if (ret) {
			fprintf(stderr, "READ %u: %s\n", k, strerror(-ret));
			return 1;
		}
	}

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += TIMEOUT_S;
	while (got < nreads) {
		struct ibv_async_event ev;

		if (ibv_get_async_event(t.ctx, &ev) == 0) {
			if (verbose && ev.event_type == IBV_EVENT_SQ_DRAINED)
				printf("SQ_DRAINED: QP 0x%x stopped, in %s\n",
				       ev.element.qp->qp_num,
				       qp_state_str(ev.element.qp));
			ret = mlx5sp_pipe_event(pipe, &ev);
			ibv_ack_async_event(&ev);
			if (ret < 0) {
				fprintf(stderr, "SQD handling: %s\n", strerror(-ret));
				return 1;
			}
			for (k = 0; k < nreads; k++) {
				struct read_req *r = &reads[k];

				if (r->txn.state != MLX5SP_TXN_SIG_ERROR ||
				    r->bad_posted)
					continue;
				printf("READ %u: signature error %s expected 0x%llx actual 0x%llx offset %llu, %d response(s) canceled\n",
				       k, mlx5sp_sig_err_str(r->txn.err.err_type),
				       (unsigned long long)r->txn.err.err.sig.expected_value,
				       (unsigned long long)r->txn.err.err.sig.actual_value,
				       (unsigned long long)r->txn.err.err.sig.offset,
				       r->txn.canceled);
				if (r->txn.err.err_type != r->inject)
					errors++;
				r->bad_posted = 1;
				bad_seen++;
				if (post_bad_response(&t, k))
					return 1;
			}
			/* >= 0: libmlx5sp moved the QP SQD->RTS (it may stop
			 * again at once, on the next bad READ)
			 */
			if (verbose && ret == 1)
				printf("QP 0x%x resumed: SQD -> RTS\n", t.qp->qp_num);
		}
		n = ibv_poll_cq(t.cq, 16, wc);
		for (i = 0; i < n; i++)
			on_target_wc(&wc[i], NULL);
		n = ibv_poll_cq(ini.cq, 16, wc);
		for (i = 0; i < n; i++) {
			const char *resp;

			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "initiator: %s\n",
					ibv_wc_status_str(wc[i].status));
				return 1;
			}
			resp = ini.buf + (size_t)nreads * nblocks * BLOCK +
			       (size_t)wc[i].wr_id * RESP_LEN;
			if (sscanf(resp + (resp[0] == 'B' ? 4 : 5), "%u", &k) != 1 ||
			    k >= nreads) {
				fprintf(stderr, "initiator: bad response \"%.16s\"\n", resp);
				return 1;
			}
			if (check_initiator(&ini, k, resp, &t))
				errors++;
			got++;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec > end.tv_nsec)) {
			fprintf(stderr, "timeout: %u of %u responses after %d s\n",
				got, nreads, TIMEOUT_S);
			errors++;
			break;
		}
	}
	for (k = 0; k < nreads; k++) {
		if (reads[k].responded != 1) {
			fprintf(stderr, "READ %u: %d responses\n", k, reads[k].responded);
			errors++;
		}
		printf("READ %u: %s\n", k, reads[k].bad_response ? "bad response" : "good, data verified");
	}
	printf("%u READs, %u signature errors, %d mismatches\n", nreads, bad_seen, errors);
	mlx5sp_pipe_destroy(pipe);
	return errors ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s -d DEV [-g GID] [-n READS] [-b BLOCKS] [-c guard|apptag|reftag:K ...] [-v]\n",
		argv[0]);
	return 2;
}
