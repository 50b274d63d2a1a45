// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * DEVX user contexts as firmware enforces them: CREATE_UCTX gives a user
 * context a uid; every object created by a command carrying a uid belongs
 * to it, and a command with a uid may only name objects of that uid. Only
 * commands a user may issue run with a uid at all. uid 0 (the driver)
 * reaches every object.
 *
 * User memory (CREATE_UMEM) is a page list the model keeps; an object
 * created with a umem reference has it resolved here into the page list or
 * address the command would carry from the driver, before the command's
 * own handler (which never sees a umem) runs.
 *
 * Everything here runs under fw_lock.
 */

#include <kunit/visibility.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "dma.h"
#include "mlx5sp_prm.h"
#include "sim.h"
#include "syndromes.h"
#include "uctx.h"

#define SIM_UMEM_MAX_PAGES	BIT(20)		/* 4 GiB of 4 KiB pages */
#define SIM_MAX_REFS		4
#define SIM_UMEM_ID_MASK	0xffffff

struct sim_umem {
	u32 id;
	u16 uid;
	u32 users;			/* objects created over it */
	u64 npages;			/* 4 KiB pages */
	u64 offset;			/* bytes of pages[0] before the data */
	u64 *pa;			/* each 4 KiB page */
};

struct sim_obj_ref {
	enum sim_obj_type type;
	u32 id;
};

void sim_uctx_init(struct mlx5sp_sim *sim)
{
	int i;

	xa_init_flags(&sim->devx.uctxs, XA_FLAGS_ALLOC1);
	xa_init_flags(&sim->devx.umems, XA_FLAGS_ALLOC1);
	xa_init(&sim->devx.umem_users);
	for (i = 0; i < SIM_OBJ_NR; i++)
		xa_init(&sim->devx.owner[i]);
}

/* The HCA's objects are gone (teardown, disable, removal): so are these. */
void sim_uctx_reset(struct mlx5sp_sim *sim)
{
	struct sim_umem *um;
	unsigned long id;
	int i;

	xa_for_each(&sim->devx.umems, id, um) {
		kvfree(um->pa);
		kfree(um);
	}
	xa_destroy(&sim->devx.umems);
	xa_destroy(&sim->devx.umem_users);
	xa_destroy(&sim->devx.uctxs);
	for (i = 0; i < SIM_OBJ_NR; i++)
		xa_destroy(&sim->devx.owner[i]);
}

u16 sim_obj_uid(struct mlx5sp_sim *sim, enum sim_obj_type type, u32 id)
{
	void *e;

	if (type == SIM_OBJ_UMEM) {
		struct sim_umem *um = xa_load(&sim->devx.umems, id);

		return um ? um->uid : 0;
	}
	e = xa_load(&sim->devx.owner[type], id);
	return e ? xa_to_value(e) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_obj_uid);

int sim_cmd_create_uctx(struct sim_cmd *c)
{
	const void *uctx = MLX5_ADDR_OF(create_uctx_in, c->in, uctx);
	struct mlx5sp_sim *sim = c->sim;
	u32 cap = MLX5_GET(uctx, uctx, cap);
	u32 uid;
	int err;

	if (cap & ~SIM_CAP_GEN(sim, uctx_cap))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UCTX_BAD_CAP);
	err = xa_alloc(&sim->devx.uctxs, &uid, xa_mk_value(cap),
		       XA_LIMIT(1, BIT(SIM_CAP_GEN(sim, log_max_uctx)) - 1),
		       GFP_KERNEL);
	if (err == -EBUSY)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_UCTX_EXHAUSTED);
	if (err)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	MLX5_SET(create_uctx_out, c->out, uid, uid);
	return 0;
}

static bool sim_uid_has_objects(struct mlx5sp_sim *sim, u16 uid)
{
	struct sim_umem *um;
	unsigned long id;
	void *e;
	int i;

	for (i = 0; i < SIM_OBJ_NR; i++)
		xa_for_each(&sim->devx.owner[i], id, e)
			if (xa_to_value(e) == uid)
				return true;
	xa_for_each(&sim->devx.umems, id, um)
		if (um->uid == uid)
			return true;
	return false;
}

int sim_cmd_destroy_uctx(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	u16 uid = MLX5_GET(destroy_uctx_in, c->in, uid);

	if (!uid || !xa_load(&sim->devx.uctxs, uid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_UCTX_NOT_FOUND);
	if (sim_uid_has_objects(sim, uid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_UCTX_IN_USE);
	xa_erase(&sim->devx.uctxs, uid);
	return 0;
}

/* The umem's entries, each a (4 KiB << log_page_size) page, in 4 KiB pages. */
static int sim_umem_read(struct sim_cmd *c, struct sim_umem *um,
			 const void *umem, u64 nmtt, u8 log_page_size)
{
	u64 per = BIT_ULL(log_page_size), i, j, pa;
	const void *mtt;

	for (i = 0; i < nmtt; i++) {
		mtt = MLX5_ADDR_OF(umem, umem, mtt[i]);
		pa = (u64)MLX5_GET(mtt, mtt, ptag_63_32) << 32 |
		     (u64)MLX5_GET(mtt, mtt, ptag_31_8) << 8;
		if (!IS_ALIGNED(pa, SZ_4K << log_page_size))
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_UMEM_BAD_MTT);
		for (j = 0; j < per; j++) {
			u64 sub = pa + j * SZ_4K;

			if (!sim_dma_ram(c->sim, sub, SZ_4K, SZ_4K))
				return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
						MLX5SP_SIM_SYND_UMEM_BAD_MTT);
			um->pa[i * per + j] = sub;
		}
	}
	return 0;
}

int sim_cmd_create_umem(struct sim_cmd *c)
{
	const void *umem = MLX5_ADDR_OF(create_umem_in, c->in, umem);
	struct mlx5sp_sim *sim = c->sim;
	u64 nmtt = MLX5_GET64(umem, umem, num_of_mtt);
	u8 lps = MLX5_GET(umem, umem, log_page_size);
	struct sim_umem *um;
	u32 id;
	int err;

	if (MLX5_GET(umem, umem, ats) || lps > SIM_MAX_LOG_BUF_PAGE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_BAD_PARAM);
	if (!nmtt || nmtt > (SIM_UMEM_MAX_PAGES >> lps))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_BAD_PARAM);
	if (MLX5_ST_SZ_BYTES(create_umem_in) +
	    nmtt * MLX5_ST_SZ_BYTES(mtt) > c->inlen)
		return sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
				MLX5SP_SIM_SYND_UMEM_INLEN);
	if (MLX5_GET(umem, umem, page_offset) >= (SZ_4K << lps))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_BAD_PARAM);

	um = kzalloc(sizeof(*um), GFP_KERNEL);
	if (!um)
		goto err_nomem;
	um->uid = MLX5SP_CMD_UID(c->in);
	um->npages = nmtt << lps;
	um->offset = MLX5_GET(umem, umem, page_offset);
	um->pa = kvcalloc(um->npages, sizeof(*um->pa), GFP_KERNEL);
	if (!um->pa)
		goto err_free_umem;
	err = sim_umem_read(c, um, umem, nmtt, lps);
	if (err)
		goto err_free_pa;
	err = xa_alloc(&sim->devx.umems, &id, um, XA_LIMIT(1, SIM_UMEM_ID_MASK),
		       GFP_KERNEL);
	if (err)
		goto err_free_pa_nomem;
	um->id = id;
	MLX5_SET(create_umem_out, c->out, umem_id, id);
	return 0;

err_free_pa_nomem:
	kvfree(um->pa);
	kfree(um);
	return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			MLX5SP_SIM_SYND_UMEM_EXHAUSTED);
err_free_pa:
	kvfree(um->pa);
	kfree(um);
	return err;
err_free_umem:
	kfree(um);
err_nomem:
	return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			MLX5SP_SIM_SYND_NO_MEMORY);
}

int sim_cmd_destroy_umem(struct sim_cmd *c)
{
	u32 id = MLX5_GET(destroy_umem_in, c->in, umem_id);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_umem *um;

	um = xa_load(&sim->devx.umems, id);
	if (!um)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_UMEM_NOT_FOUND);
	if (um->users)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
				MLX5SP_SIM_SYND_UMEM_IN_USE);
	xa_erase(&sim->devx.umems, id);
	kvfree(um->pa);
	kfree(um);
	return 0;
}

/*
 * Commands a DEVX user may issue (with its uid), and the objects each one
 * names: the uid must own every one of them.
 */
static int sim_uid_refs(const void *in, u16 opcode, struct sim_obj_ref *r)
{
	const void *ctx;
	int n = 0;

#define REF(t, v) do { r[n].type = SIM_OBJ_##t; r[n].id = (v); n++; } while (0)
	switch (opcode) {
	case MLX5_CMD_OP_QUERY_HCA_CAP:
	case MLX5_CMD_OP_QUERY_ISSI:
	case MLX5_CMD_OP_QUERY_VPORT_STATE:
	case MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
	case MLX5_CMD_OP_QUERY_ROCE_ADDRESS:
	case MLX5_CMD_OP_ALLOC_PD:
	case MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
	case MLX5_CMD_OP_CREATE_CQ:
	case MLX5_CMD_OP_CREATE_UMEM:
		break;
	case MLX5_CMD_OP_DEALLOC_PD:
		REF(PD, MLX5_GET(dealloc_pd_in, in, pd));
		break;
	case MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
		REF(TD, MLX5_GET(dealloc_transport_domain_in, in,
				 transport_domain));
		break;
	case MLX5_CMD_OP_CREATE_MKEY:
		ctx = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
		REF(PD, MLX5_GET(mkc, ctx, pd));
		break;
	case MLX5_CMD_OP_DESTROY_MKEY:
		REF(MKEY, MLX5_GET(destroy_mkey_in, in, mkey_index));
		break;
	case MLX5_CMD_OP_QUERY_MKEY:
		REF(MKEY, MLX5_GET(query_mkey_in, in, mkey_index));
		break;
	case MLX5_CMD_OP_DESTROY_CQ:
		REF(CQ, MLX5_GET(destroy_cq_in, in, cqn));
		break;
	case MLX5_CMD_OP_QUERY_CQ:
		REF(CQ, MLX5_GET(query_cq_in, in, cqn));
		break;
	case MLX5_CMD_OP_MODIFY_CQ:
		REF(CQ, MLX5_GET(modify_cq_in, in, cqn));
		break;
	case MLX5_CMD_OP_CREATE_QP:
		ctx = MLX5_ADDR_OF(create_qp_in, in, qpc);
		REF(PD, MLX5_GET(qpc, ctx, pd));
		if (MLX5_GET(qpc, ctx, cqn_snd))
			REF(CQ, MLX5_GET(qpc, ctx, cqn_snd));
		if (MLX5_GET(qpc, ctx, cqn_rcv))
			REF(CQ, MLX5_GET(qpc, ctx, cqn_rcv));
		break;
	case MLX5_CMD_OP_DESTROY_QP:
	case MLX5_CMD_OP_QUERY_QP:
	case MLX5_CMD_OP_RST2INIT_QP:
	case MLX5_CMD_OP_INIT2INIT_QP:
	case MLX5_CMD_OP_INIT2RTR_QP:
	case MLX5_CMD_OP_RTR2RTS_QP:
	case MLX5_CMD_OP_RTS2RTS_QP:
	case MLX5_CMD_OP_SQERR2RTS_QP:
	case MLX5_CMD_OP_SQD_RTS_QP:
	case MLX5SP_CMD_OP_RTS2SQD_QP:
	case MLX5_CMD_OP_2ERR_QP:
	case MLX5_CMD_OP_2RST_QP:
		/* every QP command has qpn where 2ERR_QP has it */
		REF(QP, MLX5_GET(qp_2err_in, in, qpn));
		break;
	case MLX5_CMD_OP_DESTROY_UMEM:
		REF(UMEM, MLX5_GET(destroy_umem_in, in, umem_id));
		break;
	case MLX5_CMD_OP_CREATE_PSV:
		/* one at a time: a context owns each PSV it made */
		if (MLX5_GET(create_psv_in, in, num_psv) != 1)
			return -EPERM;
		REF(PD, MLX5_GET(create_psv_in, in, pd));
		break;
	case MLX5_CMD_OP_DESTROY_PSV:
		REF(PSV, MLX5_GET(destroy_psv_in, in, psvn));
		break;
	default:
		return -EPERM;
	}
#undef REF
	return n;
}

/* A command with a uid: a user context's, allowed, naming only its own. */
int sim_uid_admit(struct sim_cmd *c)
{
	struct sim_obj_ref refs[SIM_MAX_REFS];
	struct mlx5sp_sim *sim = c->sim;
	u16 uid = MLX5SP_CMD_UID(c->in);
	int n, i;

	if (!uid)
		return 0;
	if (!xa_load(&sim->devx.uctxs, uid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UID_INVALID);
	n = sim_uid_refs(c->in, c->opcode, refs);
	if (n < 0)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UID_NOT_ALLOWED);
	for (i = 0; i < n; i++)
		if (sim_obj_uid(sim, refs[i].type, refs[i].id) != uid)
			return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
					MLX5SP_SIM_SYND_UID_MISMATCH);
	return 0;
}

/* The id of the object a successful command created, or destroyed. */
static bool sim_uid_created(const struct sim_cmd *c, enum sim_obj_type *t,
			    u32 *id)
{
	switch (c->opcode) {
	case MLX5_CMD_OP_ALLOC_PD:
		*t = SIM_OBJ_PD;
		*id = MLX5_GET(alloc_pd_out, c->out, pd);
		return true;
	case MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN:
		*t = SIM_OBJ_TD;
		*id = MLX5_GET(alloc_transport_domain_out, c->out,
			       transport_domain);
		return true;
	case MLX5_CMD_OP_CREATE_MKEY:
		*t = SIM_OBJ_MKEY;
		*id = MLX5_GET(create_mkey_out, c->out, mkey_index);
		return true;
	case MLX5_CMD_OP_CREATE_CQ:
		*t = SIM_OBJ_CQ;
		*id = MLX5_GET(create_cq_out, c->out, cqn);
		return true;
	case MLX5_CMD_OP_CREATE_QP:
		*t = SIM_OBJ_QP;
		*id = MLX5_GET(create_qp_out, c->out, qpn);
		return true;
	case MLX5_CMD_OP_CREATE_PSV:
		*t = SIM_OBJ_PSV;
		*id = MLX5_GET(create_psv_out, c->out, psv0_index);
		return true;
	default:
		return false;
	}
}

static bool sim_uid_destroyed(const struct sim_cmd *c, enum sim_obj_type *t,
			      u32 *id)
{
	switch (c->opcode) {
	case MLX5_CMD_OP_DEALLOC_PD:
		*t = SIM_OBJ_PD;
		*id = MLX5_GET(dealloc_pd_in, c->in, pd);
		return true;
	case MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
		*t = SIM_OBJ_TD;
		*id = MLX5_GET(dealloc_transport_domain_in, c->in,
			       transport_domain);
		return true;
	case MLX5_CMD_OP_DESTROY_MKEY:
		*t = SIM_OBJ_MKEY;
		*id = MLX5_GET(destroy_mkey_in, c->in, mkey_index);
		return true;
	case MLX5_CMD_OP_DESTROY_CQ:
		*t = SIM_OBJ_CQ;
		*id = MLX5_GET(destroy_cq_in, c->in, cqn);
		return true;
	case MLX5_CMD_OP_DESTROY_QP:
		*t = SIM_OBJ_QP;
		*id = MLX5_GET(destroy_qp_in, c->in, qpn);
		return true;
	case MLX5_CMD_OP_DESTROY_PSV:
		*t = SIM_OBJ_PSV;
		*id = MLX5_GET(destroy_psv_in, c->in, psvn);
		return true;
	default:
		return false;
	}
}

/* Umem users are counted by the object they back: id -> umems, per type. */
static void sim_umem_unuse(struct mlx5sp_sim *sim, enum sim_obj_type t, u32 id)
{
	unsigned long key = (unsigned long)t << 32 | id;
	struct sim_umem *um;
	void *e;
	int i;

	e = xa_erase(&sim->devx.umem_users, key);
	if (!e)
		return;
	/* up to two umems per object: buffer and doorbell, packed */
	for (i = 0; i < 2; i++) {
		u32 uid = (xa_to_value(e) >> (i * 24)) & SIM_UMEM_ID_MASK;

		um = uid ? xa_load(&sim->devx.umems, uid) : NULL;
		if (um && um->users)
			um->users--;
	}
}

/* After the command: record what it created with its uid, forget destroyed. */
void sim_uid_commit(struct sim_cmd *c, u64 umem_pair)
{
	struct mlx5sp_sim *sim = c->sim;
	u16 uid = MLX5SP_CMD_UID(c->in);
	enum sim_obj_type t;
	u32 id;

	if (c->status)
		return;
	if (sim_uid_created(c, &t, &id)) {
		if (uid && xa_err(xa_store(&sim->devx.owner[t], id, xa_mk_value(uid),
					   GFP_KERNEL)))
			sim_err(sim, "uid %u: object 0x%x not recorded\n", uid,
				id);
		if (umem_pair &&
		    !xa_err(xa_store(&sim->devx.umem_users, (unsigned long)t << 32 | id,
				     xa_mk_value(umem_pair), GFP_KERNEL))) {
			struct sim_umem *um;
			int i;

			for (i = 0; i < 2; i++) {
				um = xa_load(&sim->devx.umems, (umem_pair >> (i * 24)) &
					     SIM_UMEM_ID_MASK);
				if (um)
					um->users++;
			}
		}
	} else if (sim_uid_destroyed(c, &t, &id)) {
		xa_erase(&sim->devx.owner[t], id);
		sim_umem_unuse(sim, t, id);
	}
}

/* A byte range of a umem the uid may use: its 4 KiB page list from there. */
static struct sim_umem *sim_umem_range(struct sim_cmd *c, u32 id, u64 off,
				       u64 len, u64 *abs)
{
	struct sim_umem *um = xa_load(&c->sim->devx.umems, id);
	u16 uid = MLX5SP_CMD_UID(c->in);

	if (!um || (uid && um->uid != uid)) {
		sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			 MLX5SP_SIM_SYND_UMEM_NOT_FOUND);
		return NULL;
	}
	*abs = um->offset + off;
	if (*abs < off || *abs + len < *abs ||
	    *abs + len > um->npages * SZ_4K) {
		sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
			 MLX5SP_SIM_SYND_UMEM_RANGE);
		return NULL;
	}
	return um;
}

/* A doorbell record in a umem: its address, as the driver would give it. */
static int sim_umem_dbr(struct sim_cmd *c, u32 id, u64 off, u64 *pa)
{
	struct sim_umem *um;
	u64 abs;

	if (!IS_ALIGNED(off, 8))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_RANGE);
	um = sim_umem_range(c, id, off, 8, &abs);
	if (!um)
		return -EINVAL;
	*pa = um->pa[abs >> 12] + (abs & (SZ_4K - 1));
	return 0;
}

/*
 * A new input with the page list written at @pas_off: the command as the
 * driver would have sent it with the buffer at umem offset @off. Returns
 * the page_offset quantum (1/64 of a 4 KiB page) or a negative error.
 */
static int sim_umem_pas(struct sim_cmd *c, u32 id, u64 off, u32 align,
			size_t pas_off, void **nin, u32 *ninlen)
{
	struct sim_umem *um;
	u64 abs, first, n, i;
	__be64 *pas;
	void *in;

	um = sim_umem_range(c, id, off, 0, &abs);
	if (!um)
		return -EINVAL;
	if (!IS_ALIGNED(abs, align))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_RANGE);
	first = abs >> 12;
	n = um->npages - first;
	if (!n)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_RANGE);
	*ninlen = pas_off + n * sizeof(*pas);
	in = kvzalloc(*ninlen, GFP_KERNEL);
	if (!in)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	memcpy(in, c->in, min_t(u32, c->inlen, pas_off));
	pas = in + pas_off;
	for (i = 0; i < n; i++)
		pas[i] = cpu_to_be64(um->pa[first + i]);
	*nin = in;
	return (abs & (SZ_4K - 1)) / 64;
}

static int sim_resolve_cq(struct sim_cmd *c, void **nin, u32 *ninlen,
			  u64 *pair)
{
	const void *cqc = MLX5_ADDR_OF(create_cq_in, c->in, cq_context);
	u32 id = mlx5sp_get_dw(c->in, MLX5SP_CREATE_CQ_UMEM_ID);
	void *ncqc;
	u64 dbr;
	int q, err;

	if (!MLX5_GET(create_cq_in, c->in, cq_umem_valid) ||
	    !MLX5_GET(cqc, cqc, dbr_umem_valid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_PARTIAL);
	err = sim_umem_dbr(c, mlx5sp_get_dw(cqc, MLX5SP_CQC_DBR_UMEM_ID),
			   MLX5_GET64(cqc, cqc, dbr_addr), &dbr);
	if (err)
		return err;
	q = sim_umem_pas(c, id, mlx5sp_get_qw(c->in, MLX5SP_CREATE_CQ_UMEM_OFFSET),
			 64, MLX5_ST_SZ_BYTES(create_cq_in), nin, ninlen);
	if (q < 0)
		return q;
	MLX5_SET(create_cq_in, *nin, cq_umem_valid, 0);
	mlx5sp_set_dw(*nin, MLX5SP_CREATE_CQ_UMEM_ID, 0);
	mlx5sp_set_qw(*nin, MLX5SP_CREATE_CQ_UMEM_OFFSET, 0);
	ncqc = MLX5_ADDR_OF(create_cq_in, *nin, cq_context);
	MLX5_SET(cqc, ncqc, dbr_umem_valid, 0);
	mlx5sp_set_dw(ncqc, MLX5SP_CQC_DBR_UMEM_ID, 0);
	MLX5_SET64(cqc, ncqc, dbr_addr, dbr);
	MLX5_SET(cqc, ncqc, log_page_size, 0);
	MLX5_SET(cqc, ncqc, page_offset, q);
	*pair = id | (u64)mlx5sp_get_dw(cqc, MLX5SP_CQC_DBR_UMEM_ID) << 24;
	return 0;
}

static int sim_resolve_qp(struct sim_cmd *c, void **nin, u32 *ninlen,
			  u64 *pair)
{
	const void *qpc = MLX5_ADDR_OF(create_qp_in, c->in, qpc);
	u32 id = MLX5_GET(create_qp_in, c->in, wq_umem_id);
	void *nqpc;
	u64 dbr;
	int q, err;

	if (!MLX5_GET(create_qp_in, c->in, wq_umem_valid) ||
	    !MLX5_GET(qpc, qpc, dbr_umem_valid))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_PARTIAL);
	err = sim_umem_dbr(c, mlx5sp_get_dw(qpc, MLX5SP_QPC_DBR_UMEM_ID),
			   MLX5_GET64(qpc, qpc, dbr_addr), &dbr);
	if (err)
		return err;
	q = sim_umem_pas(c, id, MLX5_GET64(create_qp_in, c->in, wq_umem_offset),
			 64, MLX5_ST_SZ_BYTES(create_qp_in), nin, ninlen);
	if (q < 0)
		return q;
	MLX5_SET(create_qp_in, *nin, wq_umem_valid, 0);
	MLX5_SET(create_qp_in, *nin, wq_umem_id, 0);
	MLX5_SET64(create_qp_in, *nin, wq_umem_offset, 0);
	nqpc = MLX5_ADDR_OF(create_qp_in, *nin, qpc);
	MLX5_SET(qpc, nqpc, dbr_umem_valid, 0);
	mlx5sp_set_dw(nqpc, MLX5SP_QPC_DBR_UMEM_ID, 0);
	MLX5_SET64(qpc, nqpc, dbr_addr, dbr);
	MLX5_SET(qpc, nqpc, log_page_size, 0);
	MLX5_SET(qpc, nqpc, page_offset, q);
	*pair = id | (u64)mlx5sp_get_dw(qpc, MLX5SP_QPC_DBR_UMEM_ID) << 24;
	return 0;
}

/* MTT MKEY over a umem: 4 KiB translations from the umem's pages. */
static int sim_resolve_mkey(struct sim_cmd *c, void **nin, u32 *ninlen,
			    u64 *pair)
{
	const void *mkc = MLX5_ADDR_OF(create_mkey_in, c->in,
				       memory_key_mkey_entry);
	u32 id = mlx5sp_get_dw(c->in, MLX5SP_CREATE_MKEY_UMEM_ID);
	u64 start = MLX5_GET64(mkc, mkc, start_addr);
	u64 off = mlx5sp_get_qw(c->in, MLX5SP_CREATE_MKEY_UMEM_OFFSET);
	u8 mode = MLX5_GET(mkc, mkc, access_mode_4_2) << 2 |
		  MLX5_GET(mkc, mkc, access_mode_1_0);
	struct sim_umem *um;
	u64 abs, n;
	void *nmkc;
	int q;

	if (mode != MLX5_MKC_ACCESS_MODE_MTT)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_PARTIAL);
	um = sim_umem_range(c, id, off, MLX5_GET64(mkc, mkc, len), &abs);
	if (!um)
		return -EINVAL;
	/* translation keeps the offset in the page */
	if ((abs & (SZ_4K - 1)) != (start & (SZ_4K - 1)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_UMEM_RANGE);
	q = sim_umem_pas(c, id, off, 1, MLX5_ST_SZ_BYTES(create_mkey_in), nin,
			 ninlen);
	if (q < 0)
		return q;
	n = (*ninlen - MLX5_ST_SZ_BYTES(create_mkey_in)) / sizeof(__be64);
	MLX5_SET(create_mkey_in, *nin, mkey_umem_valid, 0);
	mlx5sp_set_dw(*nin, MLX5SP_CREATE_MKEY_UMEM_ID, 0);
	mlx5sp_set_qw(*nin, MLX5SP_CREATE_MKEY_UMEM_OFFSET, 0);
	MLX5_SET(create_mkey_in, *nin, translations_octword_actual_size,
		 DIV_ROUND_UP(n, 2));
	nmkc = MLX5_ADDR_OF(create_mkey_in, *nin, memory_key_mkey_entry);
	MLX5_SET(mkc, nmkc, log_page_size, PAGE_SHIFT);
	MLX5_SET(mkc, nmkc, translations_octword_size, DIV_ROUND_UP(n, 2));
	*ninlen = MLX5_ST_SZ_BYTES(create_mkey_in) + DIV_ROUND_UP(n, 2) * 16;
	*pair = id;
	return 0;
}

/*
 * Resolve umem references: @nin is the input the handler should see (NULL:
 * the original), @pair the umems the object will use.
 */
int sim_uid_resolve_umem(struct sim_cmd *c, void **nin, u32 *ninlen,
			 u64 *pair)
{
	const void *ctx;

	*nin = NULL;
	*pair = 0;
	switch (c->opcode) {
	case MLX5_CMD_OP_CREATE_CQ:
		ctx = MLX5_ADDR_OF(create_cq_in, c->in, cq_context);
		if (!MLX5_GET(create_cq_in, c->in, cq_umem_valid) &&
		    !MLX5_GET(cqc, ctx, dbr_umem_valid))
			return 0;
		return sim_resolve_cq(c, nin, ninlen, pair);
	case MLX5_CMD_OP_CREATE_QP:
		ctx = MLX5_ADDR_OF(create_qp_in, c->in, qpc);
		if (!MLX5_GET(create_qp_in, c->in, wq_umem_valid) &&
		    !MLX5_GET(qpc, ctx, dbr_umem_valid))
			return 0;
		return sim_resolve_qp(c, nin, ninlen, pair);
	case MLX5_CMD_OP_CREATE_MKEY:
		if (!MLX5_GET(create_mkey_in, c->in, mkey_umem_valid))
			return 0;
		return sim_resolve_mkey(c, nin, ninlen, pair);
	default:
		return 0;
	}
}
