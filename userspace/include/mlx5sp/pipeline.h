/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libmlx5sp: signature pipelining over libibverbs + mlx5dv, done once.
 *
 * A QP created with MLX5DV_QP_CREATE_SIG_PIPELINING stops in SQD after a
 * transfer fails its signature check, before the next WQE posted with
 * IBV_SEND_FENCE, and raises IBV_EVENT_SQ_DRAINED. mlx5sp_pipe_sqd() then
 * walks the procedure of mlx5dv_qp_cancel_posted_send_wrs(3): poll the CQ
 * until empty once, check the MKEY of every open transaction, cancel the
 * responses of the bad ones, and move the QP back to RTS. See mlx5sp_pipe(3).
 */
#ifndef MLX5SP_PIPELINE_H
#define MLX5SP_PIPELINE_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mlx5sp_txn_state {
	MLX5SP_TXN_IDLE,	/* not tracked */
	MLX5SP_TXN_OPEN,	/* between mlx5sp_txn_open() and its end */
	MLX5SP_TXN_GOOD,	/* ended, the MKEY reported no error */
	MLX5SP_TXN_SIG_ERROR,	/* ended with a signature error */
};

/*
 * One transaction, owned by the caller: a transfer through a signature MKEY
 * followed by a response SEND posted with IBV_SEND_FENCE and wr_id
 * resp_wr_id. Fill sig_mkey, resp_wr_id and ctx before mlx5sp_txn_open();
 * the library fills the rest.
 */
struct mlx5sp_txn {
	struct mlx5dv_mkey *sig_mkey;
	uint64_t resp_wr_id;
	void *ctx;			/* the caller's */

	enum mlx5sp_txn_state state;
	struct mlx5dv_mkey_err err;	/* valid in MLX5SP_TXN_SIG_ERROR */
	int canceled;			/* response WRs turned into NOPs */

	struct mlx5sp_txn *next;	/* library's: the open list */
	struct mlx5sp_txn **pprev;
};

struct mlx5sp_pipe;

/* Called for every completion the library polls while handling SQD. */
typedef void (*mlx5sp_wc_fn)(const struct ibv_wc *wc, void *arg);
/*
 * Called for every transaction mlx5sp_pipe_sqd() ends with a signature
 * error (mlx5sp_txn_end() returns its result instead).
 */
typedef void (*mlx5sp_txn_fn)(struct mlx5sp_txn *txn, void *arg);

struct mlx5sp_pipe_attr {
	struct ibv_qp *qp;	/* created by mlx5sp_create_qp() */
	struct ibv_cq *send_cq;	/* the QP's send CQ */
	mlx5sp_wc_fn on_wc;	/* may be NULL: completions dropped */
	mlx5sp_txn_fn on_txn;	/* may be NULL */
	void *arg;
};

/*
 * Create an RC QP with MLX5DV_QP_CREATE_SIG_PIPELINING (added to
 * dv_attr->create_flags; dv_attr may be NULL). attr must ask for
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS if the caller uses ibv_wr_* or
 * mlx5dv_wr_mkey_configure(). NULL with errno on failure (EOPNOTSUPP when
 * the device cannot resume from SQD). A ring of fewer than 512 basic blocks
 * is made deeper (attr->cap says what it got), and libmlx5's cancel is
 * kept from reading stale heap memory: see mlx5sp_pipe(3), NOTES.
 */
struct ibv_qp *mlx5sp_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct mlx5dv_qp_init_attr *dv_attr);

struct mlx5sp_pipe *mlx5sp_pipe_create(const struct mlx5sp_pipe_attr *attr);
void mlx5sp_pipe_destroy(struct mlx5sp_pipe *pipe);

/* Track txn from now on: call before posting its transfer. */
int mlx5sp_txn_open(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn);
/*
 * End txn after its response completed: checks its MKEY (a good
 * completion of the fenced response means the transfer passed, the check
 * also clears the MKEY's error state for reuse). Returns the final state,
 * or -errno.
 */
int mlx5sp_txn_end(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn);
/* Stop tracking txn without checking (e.g. the caller tears down). */
void mlx5sp_txn_forget(struct mlx5sp_pipe *pipe, struct mlx5sp_txn *txn);

/*
 * The SQD procedure. Returns the number of transactions found bad (they
 * are ended, their responses canceled, on_txn called), or -errno; the QP is
 * back in RTS when it returns >= 0.
 */
int mlx5sp_pipe_sqd(struct mlx5sp_pipe *pipe);

/*
 * Feed an async event (from ibv_get_async_event, not yet acked). Returns 1
 * when it was this QP's IBV_EVENT_SQ_DRAINED and was handled, 0 when the
 * event is not ours, -errno when handling failed.
 */
int mlx5sp_pipe_event(struct mlx5sp_pipe *pipe,
		      const struct ibv_async_event *event);

/* Number of open transactions. */
unsigned int mlx5sp_pipe_open_count(const struct mlx5sp_pipe *pipe);

const char *mlx5sp_sig_err_str(enum mlx5dv_mkey_err_type type);

#ifdef __cplusplus
}
#endif
#endif /* MLX5SP_PIPELINE_H */
