// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libmlx5sp: the SQD procedure of signature pipelining, per
 * mlx5dv_qp_cancel_posted_send_wrs(3).
 *
 * A pipe is used by one thread at a time (the one that polls the QP's send
 * CQ): the procedure polls that CQ itself, so concurrent polling elsewhere
 * would steal completions from it.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <mlx5sp/pipeline.h>

struct mlx5sp_pipe {
	struct ibv_qp *qp;
	struct mlx5dv_qp_ex *dv_qp;
	struct ibv_cq *send_cq;
	mlx5sp_wc_fn on_wc;
	mlx5sp_txn_fn on_txn;
	void *arg;
	struct mlx5sp_txn *open;	/* open transactions, newest first */
	unsigned int nr_open;
};

/*
 * libmlx5's cancel (mlx5dv_qp_cancel_posted_send_wrs(), rdma-core v44 as
 * Debian ships it, and upstream since) walks the posted WQEs through its
 * array of WR sequence numbers, sq.wqe_head[], one slot per basic block:
 * from a WQE it looks for the next slot holding the next number. It fills
 * only the slot of each WQE's first block and mallocs the array
 * uninitialized, so the slots of a multi-block WQE's later blocks (a UMR's)
 * hold what the heap held. A QP created where an earlier QP's arrays were
 * freed finds that QP's numbers there, and one equal to the next WQE's
 * number sends the walk into the middle of the UMR: the cancel fails with
 * EINVAL, or turns a word of the UMR's translations into a NOP opcode
 * (the UMR then fails, the QP goes to ERR), or skips a response it had to
 * cancel. tests/userspace/cm_sig_shutdown.c hit it about once in 50 runs
 * (a new QP per connection), on a model device as it would on a card.
 *
 * Worked around at creation: libmlx5 mallocs the arrays inside
 * mlx5dv_create_qp() while glibc's M_PERTURB is set, which fills what
 * malloc returns with ~PERTURB_BYTE: no sequence number of the ring's
 * first lap matches 0xa5a5a5a5, and later laps find their own older
 * numbers. glibc's per-thread cache hands out chunks of up to 1032 bytes
 * without filling them, so a ring of fewer than 512 basic blocks (arrays
 * of 2 KiB or less) is created again, twice as deep or more. A QP that
 * goes through RESET keeps its arrays: make a new one instead.
 */
#define PERTURB_BYTE		0x5a
#define PERTURB_MIN_WQEBBS	512

/* One window at a time: a second would put the setting back too early. */
static pthread_mutex_t perturb_lock = PTHREAD_MUTEX_INITIALIZER;

/* glibc's own setting (MALLOC_PERTURB_ or its tunable), to put back. */
static int perturb_setting(void)
{
	static const char key[] = "glibc.malloc.perturb=";
	const char *env = getenv("MALLOC_PERTURB_");
	const char *tun = getenv("GLIBC_TUNABLES");
	int val = env ? atoi(env) : 0;

	if (tun && (tun = strstr(tun, key)))
		val = atoi(tun + sizeof(key) - 1);
	return val;
}

static struct ibv_qp *create_perturbed(struct ibv_context *ctx,
				       struct ibv_qp_init_attr_ex *attr,
				       struct mlx5dv_qp_init_attr *dv_attr)
{
	struct ibv_qp *qp;
	int err;

	pthread_mutex_lock(&perturb_lock);
	mallopt(M_PERTURB, PERTURB_BYTE);
	qp = mlx5dv_create_qp(ctx, attr, dv_attr);
	err = errno;
	mallopt(M_PERTURB, perturb_setting());
	pthread_mutex_unlock(&perturb_lock);
	errno = err;
	return qp;
}

/* The SQ's depth in basic blocks, 0 if libmlx5 does not say. */
static uint32_t sq_wqebbs(struct ibv_qp *qp)
{
	struct mlx5dv_qp dv = {};
	struct mlx5dv_obj obj = { .qp = { .in = qp, .out = &dv } };

	return mlx5dv_init_obj(&obj, MLX5DV_OBJ_QP) ? 0 : dv.sq.wqe_cnt;
}

struct ibv_qp *mlx5sp_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct mlx5dv_qp_init_attr *dv_attr)
{
	struct mlx5dv_qp_init_attr local = {};
	struct ibv_qp_init_attr_ex deeper;
	struct ibv_qp *qp, *qp2;
	uint32_t wqebbs;

	if (!ctx || !attr || attr->qp_type != IBV_QPT_RC) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_attr)
		dv_attr = &local;
	dv_attr->comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	dv_attr->create_flags |= MLX5DV_QP_CREATE_SIG_PIPELINING;
	deeper = *attr;
	qp = create_perturbed(ctx, attr, dv_attr);
	if (!qp)
		return NULL;
	wqebbs = sq_wqebbs(qp);
	if (!wqebbs || wqebbs >= PERTURB_MIN_WQEBBS || !deeper.cap.max_send_wr)
		return qp;
	/* its arrays may have come from the cache unfilled: deeper */
	deeper.cap.max_send_wr *= PERTURB_MIN_WQEBBS / wqebbs;
	qp2 = create_perturbed(ctx, &deeper, dv_attr);
	if (!qp2)
		return qp;	/* the device's limit: the one asked for */
	ibv_destroy_qp(qp);
	*attr = deeper;
	return qp2;
}

struct mlx5sp_pipe *mlx5sp_pipe_create(const struct mlx5sp_pipe_attr *attr)
{
	struct mlx5sp_pipe *pipe;
	struct ibv_qp_ex *qpx;

	if (!attr || !attr->qp || !attr->send_cq) {
		errno = EINVAL;
		return NULL;
	}
	/* Cancelling needs the mlx5dv view of a QP created with send ops. */
	qpx = ibv_qp_to_qp_ex(attr->qp);
	if (!qpx) {
		errno = EINVAL;
		return NULL;
	}
	pipe = calloc(1, sizeof(*pipe));
	if (!pipe)
		return NULL;
	pipe->dv_qp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	if (!pipe->dv_qp) {
		free(pipe);
		errno = EINVAL;
		return NULL;
	}
	pipe->qp = attr->qp;
	pipe->send_cq = attr->send_cq;
	pipe->on_wc = attr->on_wc;
	pipe->on_txn = attr->on_txn;
	pipe->arg = attr->arg;
	return pipe;
}

void mlx5sp_pipe_destroy(struct mlx5sp_pipe *pipe)
{
	if (!pipe)
		return;
	while (pipe->open)
		mlx5sp_txn_forget(pipe, pipe->open);
	free(pipe);
}

static void unlink_txn(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn)
{
	*txn->pprev = txn->next;
	if (txn->next)
		txn->next->pprev = txn->pprev;
	txn->next = NULL;
	txn->pprev = NULL;
	pipe->nr_open--;
}

int mlx5sp_txn_open(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn)
{
	if (!pipe || !txn || !txn->sig_mkey)
		return -EINVAL;
	if (txn->state == MLX5SP_TXN_OPEN)
		return -EBUSY;
	txn->state = MLX5SP_TXN_OPEN;
	memset(&txn->err, 0, sizeof(txn->err));
	txn->canceled = 0;
	txn->next = pipe->open;
	txn->pprev = &pipe->open;
	if (pipe->open)
		pipe->open->pprev = &txn->next;
	pipe->open = txn;
	pipe->nr_open++;
	return 0;
}

void mlx5sp_txn_forget(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn)
{
	if (!pipe || !txn || txn->state != MLX5SP_TXN_OPEN)
		return;
	unlink_txn(pipe, txn);
	txn->state = MLX5SP_TXN_IDLE;
}

/* Reads (and thereby clears) the MKEY's signature error state. */
static int check_txn(struct mlx5sp_txn *txn)
{
	int ret;

	ret = mlx5dv_mkey_check(txn->sig_mkey, &txn->err);
	if (ret)
		return ret > 0 ? -ret : ret;
	return txn->err.err_type == MLX5DV_MKEY_NO_ERR ? MLX5SP_TXN_GOOD :
							 MLX5SP_TXN_SIG_ERROR;
}

int mlx5sp_txn_end(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn)
{
	int state;

	if (!pipe || !txn || txn->state != MLX5SP_TXN_OPEN)
		return -EINVAL;
	state = check_txn(txn);
	if (state < 0)
		return state;
	unlink_txn(pipe, txn);
	txn->state = state;
	return state;
}

/* Step 1: poll everything once, so every SIGERR CQE is seen by libmlx5. */
static int drain_cq(struct mlx5sp_pipe *pipe)
{
	struct ibv_wc wc[16];
	int n, i;

	do {
		n = ibv_poll_cq(pipe->send_cq, 16, wc);
		if (n < 0)
			return -EIO;
		for (i = 0; i < n; i++)
			if (pipe->on_wc)
				pipe->on_wc(&wc[i], pipe->arg);
	} while (n > 0);
	return 0;
}

/*
 * Steps 2 and 3: every open transaction whose MKEY holds an error has its
 * response canceled. A response may already have gone out only if the QP
 * stopped past its fence, which the device guarantees never happens.
 */
static int cancel_bad(struct mlx5sp_pipe *pipe)
{
	struct mlx5sp_txn *txn, *next;
	int bad = 0, state, n;

	for (txn = pipe->open; txn; txn = next) {
		next = txn->next;
		state = check_txn(txn);
		if (state < 0)
			return state;
		if (state != MLX5SP_TXN_SIG_ERROR)
			continue;
		n = mlx5dv_qp_cancel_posted_send_wrs(pipe->dv_qp,
						     txn->resp_wr_id);
		if (n < 0)
			return n;
		txn->canceled = n;
		unlink_txn(pipe, txn);
		txn->state = MLX5SP_TXN_SIG_ERROR;
		bad++;
		if (pipe->on_txn)
			pipe->on_txn(txn, pipe->arg);
	}
	return bad;
}

/* Step 4. */
static int resume(struct mlx5sp_pipe *pipe)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.cur_qp_state = IBV_QPS_SQD,
	};

	return -ibv_modify_qp(pipe->qp, &attr, IBV_QP_STATE | IBV_QP_CUR_STATE);
}

int mlx5sp_pipe_sqd(struct mlx5sp_pipe *pipe)
{
	int bad, ret;

	if (!pipe)
		return -EINVAL;
	ret = drain_cq(pipe);
	if (ret)
		return ret;
	bad = cancel_bad(pipe);
	if (bad < 0)
		return bad;
	ret = resume(pipe);
	return ret ? ret : bad;
}

int mlx5sp_pipe_event(struct mlx5sp_pipe *pipe,
		      const struct ibv_async_event *event)
{
	int ret;

	if (!pipe || !event)
		return -EINVAL;
	if (event->event_type != IBV_EVENT_SQ_DRAINED ||
	    event->element.qp != pipe->qp)
		return 0;
	ret = mlx5sp_pipe_sqd(pipe);
	return ret < 0 ? ret : 1;
}

unsigned int mlx5sp_pipe_open_count(const struct mlx5sp_pipe *pipe)
{
	return pipe ? pipe->nr_open : 0;
}

const char *mlx5sp_sig_err_str(enum mlx5dv_mkey_err_type type)
{
	switch (type) {
	case MLX5DV_MKEY_NO_ERR:
		return "none";
	case MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD:
		return "guard";
	case MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG:
		return "reftag";
	case MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG:
		return "apptag";
	}
	return "unknown";
}
