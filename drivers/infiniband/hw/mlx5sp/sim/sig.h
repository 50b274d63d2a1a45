/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The signature engine of the software ConnectX: block signatures
 * (T10-DIF with a CRC16 or IP checksum guard, CRC32, CRC32C) in the memory
 * and the wire domain of a signature MKEY, as its BSF and PSVs describe
 * them, and the PSV objects of the firmware.
 *
 * A transfer through a signature MKEY goes one way, memory to wire (the
 * MKEY is gathered from: SEND, RDMA WRITE source, RDMA READ responder) or
 * wire to memory (it is scattered to). The input domain's protection
 * information (PI) is checked (check_byte_mask) and stripped, the output
 * domain's is generated (or copied, copy_byte_mask when both domains have
 * the same block structure) and inserted, in one pass over the data: each
 * run of bytes is copied once and its CRC computed once per domain.
 *
 * Data offsets are the common currency of the two domains: the n-th data
 * byte is in block n / block_size of either domain, whatever PI surrounds
 * it. A context keeps its position, the running guards and any partial PI
 * across calls, so a transfer split anywhere gives the same result as one
 * call.
 */
#ifndef MLX5SP_SIM_SIG_H
#define MLX5SP_SIM_SIG_H

#include <linux/mlx5/device.h>
#include <linux/mlx5/qp.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "mlx5sp_prm.h"

struct mlx5sp_sim;
struct dentry;
struct sim_cmd;

/* CQE "domain" values (rdma-core: MLX5_SIGERR_CQE_DOMAIN_*) */
enum sim_sig_dom {
	SIM_SIG_WIRE = MLX5SP_SIGERR_DOMAIN_WIRE,
	SIM_SIG_MEM = MLX5SP_SIGERR_DOMAIN_MEMORY,
	SIM_SIG_NR_DOM = 2,
};

enum sim_sig_dir {
	SIM_SIG_MEM_TO_WIRE,		/* gather from the MKEY */
	SIM_SIG_WIRE_TO_MEM,		/* scatter to the MKEY */
};

enum sim_sig_type {
	SIM_SIG_NONE,
	SIM_SIG_T10DIF_CRC,		/* guard: crc_t10dif */
	SIM_SIG_T10DIF_CSUM,		/* guard: IP checksum */
	SIM_SIG_CRC32,
	SIM_SIG_CRC32C,
};

/* A signature error kind: its SIGERR CQE syndrome bit. */
enum sim_sig_err_kind {
	SIM_SIG_ERR_NONE = 0,
	SIM_SIG_ERR_REFTAG = MLX5SP_SIGERR_SYND_REFTAG,
	SIM_SIG_ERR_APPTAG = MLX5SP_SIGERR_SYND_APPTAG,
	SIM_SIG_ERR_GUARD = MLX5SP_SIGERR_SYND_GUARD,
};

/* One domain as the BSF and the PSV configure it. */
struct sim_sig_domain {
	enum sim_sig_type type;
	u8 pi_size;			/* bytes of PI after each block */
	u32 block_size;			/* data bytes per block */
	u32 psv;			/* PSV index in the BSF */
	/* T10-DIF */
	u16 seed;			/* guard seed: 0 or 0xffff */
	u16 app_tag;
	u16 app_mask;			/* dif_app_bitmask_check */
	u32 ref_tag;			/* of block 0 */
	bool ref_inc;			/* MLX5_BSF_INC_REFTAG (ref remap) */
	bool app_escape;		/* app tag 0xffff: block not checked */
	bool app_ref_escape;		/* ... and ref tag 0xffffffff */
	/* CRC32/CRC32C */
	u32 crc_seed;			/* 0 or 0xffffffff */
};

/* The first signature error of a transfer in one domain. */
struct sim_sig_err {
	u16 syndrome;			/* SIM_SIG_ERR_*; 0: none */
	u8 domain;			/* SIM_SIG_WIRE or SIM_SIG_MEM */
	bool injected;			/* by sig_inject, not by the data */
	/* as the SIGERR CQE carries them: trans sig << 32 | ref tag */
	u64 expected;			/* in the block's PI */
	u64 actual;			/* computed by the device */
	u64 offset;			/* of the block, in the domain's bytes */
};

/*
 * The state of one domain inside a transfer: the block it is in, the
 * running guard over that block's data and, while the PI is being read or
 * written, the PI bytes.
 */
struct sim_sig_run {
	u64 blk;			/* current block */
	u32 pos;			/* data bytes of blk seen */
	u8 pi_pos;			/* PI bytes read/written; 0: in data */
	bool in_pi;			/* data of blk done, PI pending */
	bool pi_built;			/* output PI generated */
	u32 crc;			/* running guard */
	u8 pi[8];
};

struct sim_sig_ctx {
	enum sim_sig_dir dir;
	struct sim_sig_domain dom[SIM_SIG_NR_DOM];
	u8 check_mask;			/* input bytes checked */
	/*
	 * check_mask (and the app tag's bit mask) over the input PI as
	 * struct sim_sig_err's expected and actual hold it
	 */
	u64 pi_cmask;
	u8 copy_mask;			/* output bytes copied (same structure) */
	bool sbs;			/* same block structure */
	bool in_guard;			/* the input guard is checked */
	bool out_guard;			/* the output guard is generated */
	bool share_guard;		/* one CRC serves both domains */
	u32 last_guard;			/* of the last input block */
	u32 raw_data_size;		/* data bytes the BSF covers */
	u64 data;			/* data bytes transferred */
	struct sim_sig_run in, out;
	struct sim_sig_err err[SIM_SIG_NR_DOM];
	u16 inject;			/* SIM_SIG_ERR_* to force once */
	u64 blocks_checked;
	u64 t0;				/* ns: when the transfer began */
};

static inline u8 sim_sig_in_dom(const struct sim_sig_ctx *ctx)
{
	return ctx->dir == SIM_SIG_MEM_TO_WIRE ? SIM_SIG_MEM : SIM_SIG_WIRE;
}

static inline u8 sim_sig_out_dom(const struct sim_sig_ctx *ctx)
{
	return ctx->dir == SIM_SIG_MEM_TO_WIRE ? SIM_SIG_WIRE : SIM_SIG_MEM;
}

/*
 * Byte streams of a transfer, as a window onto the current contiguous run
 * (a page, an SGE, a KLM entry): the engine consumes @p/@avail inline and
 * calls refill only when the window is empty, to move it to the run that
 * follows. refill returns 0 with @avail > 0, or -EFAULT when the stream
 * cannot go on (its end, memory that is not there).
 */
struct sim_sig_iter {
	u8 *p;
	u32 avail;
	int (*refill)(struct sim_sig_iter *it);
};

/* A flat buffer as a stream. */
struct sim_sig_buf_iter {
	struct sim_sig_iter it;
};

void sim_sig_buf_iter_init(struct sim_sig_buf_iter *b, void *p, u32 len);

/* The PRM tables */
u32 sim_sig_bs_bytes(u8 selector);

/*
 * Decode the BSF and the two PSVs' transient signatures (0 for a domain
 * without PSV) into a context at the start of a transfer. Returns 0 or
 * -EINVAL for a BSF the device would refuse (bad block size selector,
 * unknown signature type, non-repeating block format, copy mask without
 * the same block structure) and -EOPNOTSUPP for CRC64_XP10.
 */
int sim_sig_ctx_init(struct sim_sig_ctx *ctx, const struct mlx5_bsf *bsf,
		     u64 mem_ts, u64 wire_ts, enum sim_sig_dir dir);

int sim_sig_bsf_wire_len(const struct mlx5_bsf *bsf, u64 mem_len,
			 u64 *wire_len);
/* Data bytes of a domain's stream and back, from a block boundary */
u64 sim_sig_dom_data(const struct sim_sig_domain *d, u64 len);
u64 sim_sig_dom_bytes(const struct sim_sig_domain *d, u64 data);

/* Start at data byte @data (a block boundary of both domains) instead of 0. */
int sim_sig_ctx_seek(struct sim_sig_ctx *ctx, u64 data);

/*
 * Move @len input bytes (data and input PI) from @src to @dst, writing the
 * output domain's layout. Returns the bytes written to @dst, or -EFAULT
 * (a stream ended) or -ERANGE (beyond raw_data_size). Errors of the data
 * are not failures: they are recorded in ctx->err[] (the first per
 * domain) and the transfer goes on.
 */
s64 sim_sig_xfer(struct sim_sig_ctx *ctx, struct sim_sig_iter *dst,
		 struct sim_sig_iter *src, u64 len);

/* Bytes of output for @in bytes of input from the context's position. */
u64 sim_sig_out_len(const struct sim_sig_ctx *ctx, u64 in);

/* The first error of the transfer, input domain first; NULL: none. */
const struct sim_sig_err *sim_sig_first_err(const struct sim_sig_ctx *ctx);

/* The transient signature a domain's PSV holds after the transfer. */
u64 sim_sig_psv_ts(const struct sim_sig_ctx *ctx, u8 domain);

/* The SIGERR CQE (MLX5_CQE_SIG_ERR) of @err on @mkey, op_own included. */
void sim_sig_err_cqe_encode(struct mlx5_cqe64 *cqe,
			    const struct sim_sig_err *err, u32 mkey, u32 qpn,
			    u32 index, u8 log_size);

/* ---- PSV objects ------------------------------------------------------ */

struct sim_psv {
	u32 index;
	u32 pd;
	spinlock_t lock;		/* protects ts */
	u64 ts;				/* transient signature << 32 | ref tag */
	struct rcu_head rcu;
};

int sim_cmd_create_psv(struct sim_cmd *c);
int sim_cmd_destroy_psv(struct sim_cmd *c);
void sim_psv_destroy_all(struct mlx5sp_sim *sim);

/* Under rcu_read_lock(); NULL when there is no such PSV. */
struct sim_psv *sim_psv_lookup(struct mlx5sp_sim *sim, u32 index);
u64 sim_psv_get_ts(struct sim_psv *psv);
void sim_psv_set_ts(struct sim_psv *psv, u64 ts);

/*
 * A SET_PSV WQE segment posted on a QP of @pd: 0 or the CQE syndrome of
 * the failure (unknown PSV, PSV of another PD). Under rcu_read_lock().
 */
u8 sim_psv_set_wqe(struct mlx5sp_sim *sim, u32 pd,
		   const struct mlx5_seg_set_psv *seg);

/*
 * Start a transfer through signature MKEY @mkey: decode as
 * sim_sig_ctx_init() with the PSVs the BSF names (absent ones read as 0),
 * and arm an injected error when this is the transfer sig_inject waits for.
 * Under rcu_read_lock().
 */
int sim_sig_begin(struct mlx5sp_sim *sim, struct sim_sig_ctx *ctx, u32 mkey,
		  const struct mlx5_bsf *bsf, enum sim_sig_dir dir);
/* Write the transient signatures back to the PSVs. Under rcu_read_lock(). */
void sim_sig_end(struct mlx5sp_sim *sim, const struct sim_sig_ctx *ctx);

/* ---- fault injection: force an error on the Nth transfer of an MKEY ---- */

struct sim_sig_inject {
	u32 mkey;
	bool any;			/* any key: mkey is not looked at */
	u32 nth;			/* transfers left until it fires; 0: off */
	u16 kind;			/* SIM_SIG_ERR_* */
	u32 count;			/* transfers in a row it fails, from the nth */
	u64 fired;
};

bool sim_sig_inject_take(struct mlx5sp_sim *sim, u32 mkey, u16 *kind);
int sim_sig_inject_parse(struct mlx5sp_sim *sim, const char *line);
void sim_sig_debugfs_add(struct mlx5sp_sim *sim, struct dentry *dir);

#endif /* MLX5SP_SIM_SIG_H */
