/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Memory keys of the software ConnectX (mkey.c) and the UMR WQEs that
 * change them (umr.c).
 */
#ifndef MLX5SP_SIM_MKEY_H
#define MLX5SP_SIM_MKEY_H

#include <linux/list.h>
#include <linux/mlx5/qp.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct mlx5sp_sim;
struct sim_cmd;
struct sim_sgl;

enum sim_mkey_access {
	SIM_ACC_LR	= BIT(0),
	SIM_ACC_LW	= BIT(1),
	SIM_ACC_RR	= BIT(2),
	SIM_ACC_RW	= BIT(3),
	SIM_ACC_A	= BIT(4),
};

#define SIM_MKEY_MIN_SHIFT	12
#define SIM_MKEY_MAX_SHIFT	30
#define SIM_MKEY_MAX_MTT	BIT(22)
#define SIM_MKEY_ANY_QP		0xffffff
#define SIM_MTT_FLAGS		0x7ULL	/* read/write/present bits of an MTT */

/*
 * One KLM of an indirect key: @len bytes at @va through the key @key. In a
 * repeat block (interleaved layout) an entry is also a stride: cycle c of
 * the block takes @len bytes at @va + c * @stride.
 */
struct sim_klm {
	u32 key;
	u32 len;
	u64 va;
	u32 stride;
};

/* Mkey indexes below this one are the firmware's (0x400: repeat block op) */
#define SIM_MKEY_FIRST		0x10

/*
 * A memory key. The shape (index, access mode, translation capacity, PA
 * range) is fixed at CREATE_MKEY; a key created with umr_en may then be
 * changed by UMR WQEs of its own device, which run only in that device's
 * engine thread, and invalidated by a SEND with invalidate, which runs in
 * the requester's engine (maybe another device's). Writers take lock (a
 * leaf: under sq_lock or rq_lock) and write the state below seq and the
 * translations inside write_seqcount_begin/end; readers on any engine
 * read them with sim_mkey_snapshot() or a retry loop, locklessly.
 * A transfer racing a UMR of its key sees the old or the new mapping
 * (as on the card, a ULP bug), never memory that neither maps.
 * Freed after an RCU grace period once out of the table.
 */
struct sim_mkey {
	u32 index;
	u16 uid;
	u8 access_mode;			/* MLX5_MKC_ACCESS_MODE_PA/MTT/KLMS */
	bool umr_en;			/* UMR may change it */
	u32 octwords;			/* translations_octword_size */
	u32 nmtt;			/* MTT capacity */
	u64 *mtt;			/* page addresses, 0: not present */
	u32 nklm;			/* KLM capacity */
	struct sim_klm *klm;		/* KLMS: the list, by UMR */
	struct list_head dead;		/* out of the table, to be freed */
	struct rcu_head rcu;		/* DESTROY_MKEY frees it after readers */

	spinlock_t lock;		/* serialises writers of the state below */
	seqcount_spinlock_t seq;	/* readers of the state and translations */
	u8 page_shift;			/* MTT entity size */
	u8 variant;			/* mkey_7_0 */
	u8 access;			/* SIM_ACC_* */
	bool free;			/* no access: created free or invalidated */
	bool len64;
	bool en_rinval;
	/*
	 * A signature key: created with bsf_en (bsf_cap), given a BSF by a
	 * UMR with MLX5_MKEY_MASK_BSF_EN (bsf_en, bsf). Its address space is
	 * the wire domain: wire_len bytes from start (len is the memory
	 * domain's, what its KLMs cover).
	 */
	bool bsf_cap;
	bool bsf_en;
	struct mlx5_bsf bsf;
	u64 wire_len;
	u8 sig_err_cnt;			/* mkc sig_err, by UMR EN_SIGERR */
	/* KLMS: the KLMs are a repeat block of repeat_count cycles */
	u32 repeat_count;		/* 0: a plain KLM list */
	u32 cycle_bytes;		/* bytes of one cycle */
	u32 pd;
	u32 qpn;			/* 0xffffff: any QP; else a type 2 MW's */
	u64 start;
	u64 len;
	u32 nklm_used;			/* KLMs of the current mapping */
};

/* The state of @mk that checks use, read consistently. */
struct sim_mkey_state {
	u8 page_shift;
	u8 variant;
	u8 access;
	bool free;
	bool len64;
	bool en_rinval;
	u32 pd;
	u32 qpn;
	u64 start;
	u64 len;
};

static inline u32 sim_mkey_key(const struct sim_mkey *mk)
{
	return mk->index << 8 | mk->variant;
}

/* mkey.c */
int sim_cmd_create_mkey(struct sim_cmd *c);
int sim_cmd_destroy_mkey(struct sim_cmd *c);
int sim_cmd_query_mkey(struct sim_cmd *c);
void sim_mkey_destroy_all(struct mlx5sp_sim *sim);
struct sim_mkey *sim_mkey_lookup(struct mlx5sp_sim *sim, u32 key);
u8 sim_mkey_check(const struct sim_mkey *mk, u32 pd, u32 qpn, u64 va,
		  u64 len, u8 access);
void *sim_mkey_map(struct mlx5sp_sim *sim, const struct sim_mkey *mk,
		   u64 va, u32 *len);
u64 sim_mkey_mtt_pa(const struct sim_mkey *mk, u64 va, u64 *avail);
void sim_mkey_snapshot(const struct sim_mkey *mk, struct sim_mkey_state *st);
bool sim_mkey_page_ok(struct mlx5sp_sim *sim, u64 pa, u8 shift);
u8 sim_mkey_state_check(const struct sim_mkey_state *st, u32 pd, u32 qpn,
			u64 va, u64 len, u8 access);
bool sim_mkey_invalidate(struct sim_mkey *mk, u32 pd, u32 qpn);

/* umr.c: UMR WQEs (the mkey context, translations; BSF comes with sig) */
struct sim_umr {
	u32 mkey;			/* target key (ctrl umr_mkey) */
	u8 flags;			/* MLX5_UMR_* and MLX5SP_UMR_CHECK_QPN */
	u64 mask;			/* MLX5_MKEY_MASK_* */
	u32 xlt_octowords;
	u64 xlt_offset;			/* octowords; with TRANSLATION_OFFSET_EN */
	u16 bsf_octowords;		/* with MLX5_MKEY_MASK_BSF_EN */
	const void *mkc;		/* the mkey context segment (mkc layout) */
	const void *xlt;		/* inline translations, or NULL ... */
	const struct mlx5_wqe_data_seg *xlt_ptr; /* ... where they are */
	const void *bsf;
};

u8 sim_umr_parse(const void *wqe, u32 len, struct sim_umr *u);
u8 sim_umr_execute(struct mlx5sp_sim *sim, struct sim_sgl *scratch, u32 pd,
		   u32 qpn, const void *wqe, u32 len);

#endif /* MLX5SP_SIM_MKEY_H */
