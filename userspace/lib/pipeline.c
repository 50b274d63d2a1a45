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

struct ibv_qp *mlx5sp_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct mlx5dv_qp_init_attr *dv_attr)
{
	struct mlx5dv_qp_init_attr local = {};

	if (!ctx || !attr || attr->qp_type != IBV_QPT_RC) {
		errno = EINVAL;
		return NULL;
	}
	if (!dv_attr)
		dv_attr = &local;
	dv_attr->comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	dv_attr->create_flags |= MLX5DV_QP_CREATE_SIG_PIPELINING;
	return mlx5dv_create_qp(ctx, attr, dv_attr);
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
