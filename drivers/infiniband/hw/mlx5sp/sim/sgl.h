/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Scatter/gather lists of the software ConnectX (sgl.c) and a message
 * moved between two of them, through signature keys (xfer.c).
 */
#ifndef MLX5SP_SIM_SGL_H
#define MLX5SP_SIM_SGL_H

#include <linux/mlx5/qp.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "sig.h"

struct mlx5sp_sim;
struct sim_cq;
struct sim_engine;
struct sim_mkey;

#define SIM_MAX_SGE		64	/* data segments a WQE may hold */

/*
 * One scatter/gather entry: memory behind a key, or WQE memory (inline).
 * Through a signature key (sig) @va and @len are in its wire domain.
 */
struct sim_sge {
	struct sim_mkey *mk;		/* NULL: kva is set */
	void *kva;
	u64 va;
	u32 len;
	bool sig;
};

/* Signature errors of a transfer (xfer.c) */
#define SIM_WIRE_BUF		SZ_4K	/* a chunk of wire bytes */
#define SIM_SIG_MAX_HITS	4

/* A signature error a transfer found: in which list, through which key. */
struct sim_sig_hit {
	bool dst;			/* in the destination list */
	u32 mkey;
	struct sim_sig_err err;
};

struct sim_sig_log {
	u8 n;
	struct sim_sig_hit hit[SIM_SIG_MAX_HITS];
};

struct sim_sgl {
	u32 n;
	u64 total;
	bool sig;			/* an entry is through a signature key */
	struct sim_sge sge[SIM_MAX_SGE];
};

/* sgl.c: scatter/gather lists and moving data between them */
struct sim_cur {
	const struct sim_sge *sge;
	u32 n;
	u32 i;
	u64 off;
};

static inline void sim_cur_init(struct sim_cur *c, const struct sim_sge *sge,
				u32 n)
{
	c->sge = sge;
	c->n = n;
	c->i = 0;
	c->off = 0;
}

static inline void sim_sgl_reset(struct sim_sgl *sgl)
{
	sgl->n = 0;
	sgl->total = 0;
	sgl->sig = false;
}

u8 sim_sgl_add_key(struct mlx5sp_sim *sim, struct sim_sgl *sgl, u32 key,
		   u64 va, u32 len, u32 pd, u32 qpn, u8 access);
int sim_sgl_add_kva(struct sim_sgl *sgl, void *kva, u32 len);
int sim_cur_copy(struct mlx5sp_sim *dsim, struct sim_cur *d,
		 struct mlx5sp_sim *ssim, struct sim_cur *s, u64 len);
void sim_cur_skip(struct sim_cur *c, u64 off);
int sim_cur_write(struct mlx5sp_sim *sim, struct sim_cur *d, const void *buf,
		  u32 len);
void *sim_cur_map(struct mlx5sp_sim *sim, struct sim_cur *c, u32 *len);

/* xfer.c: a message between two lists, through signature keys */
int sim_xfer(struct sim_engine *eng, struct mlx5sp_sim *dsim,
	     struct sim_cur *d, struct mlx5sp_sim *ssim, struct sim_cur *s,
	     u64 len, struct sim_sig_log *log);
bool sim_mkey_sig_snapshot(const struct sim_mkey *mk, struct mlx5_bsf *bsf,
			   u64 *start, u64 *mem_len);
u64 sim_xfer_cut(const struct sim_sge *sge, u32 n, u64 pos);
void sim_sig_log_merge(struct sim_sig_log *log, const struct sim_sig_log *more);
void sim_sig_log_unseen(struct sim_sig_log *out, const struct sim_sig_log *log,
			struct sim_sig_log *seen);
u8 sim_sig_log_cqes(struct sim_cq *cq, u32 qpn, const struct sim_sig_log *log,
		    bool dst);

#endif /* MLX5SP_SIM_SGL_H */
