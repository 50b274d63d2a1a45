// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs of the software ConnectX: CREATE/DESTROY/QUERY_QP and the
 * state machine of the modify commands (RST2INIT, INIT2INIT, INIT2RTR,
 * RTR2RTS, RTS2RTS, SQERR2RTS, RTS2SQD, SQD_RTS, 2ERR, 2RST).
 *
 * Firmware keeps the QPC: each transition applies the fields it owns
 * (always) and the optional ones opt_param_mask selects, then the model
 * decodes what the data path needs. RC, UC, UD and the GSI QP (st QP1,
 * QPN 1).
 * The buffer holds the RQ first and the SQ after it (mlx5_ib's layout).
 *
 * 2ERR, 2RST, RTS2SQD and DESTROY_QP of a QP in RTS first execute every
 * WQE the doorbell record covers when the command starts (sq.c,
 * sim_sq_catch_up), as a ConnectX's send engine has seen those doorbells
 * long before the command completes.
 */

#include <linux/slab.h>

#include <kunit/visibility.h>

#include "buf.h"
#include "counters.h"
#include "cq.h"
#include "engine.h"
#include "eq.h"
#include "limits.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "qp.h"
#include "roce.h"
#include "sim.h"
#include "syndromes.h"
#include "wire.h"

#define SIM_MAX_LOG_RQ_STRIDE	5	/* 512-byte receive WQEs */
#define SIM_PKEY_TABLE_SIZE	128

#define SIM_QPS_ALL	(BIT(MLX5_QP_STATE_RST) | BIT(MLX5_QP_STATE_INIT) | \
			 BIT(MLX5_QP_STATE_RTR) | BIT(MLX5_QP_STATE_RTS) | \
			 BIT(MLX5_QP_STATE_SQER) | BIT(MLX5_QP_STATE_SQD) | \
			 BIT(MLX5_QP_STATE_ERR))

/* Field groups of the QPC a transition may apply. */
enum {
	SIM_QPF_ACCESS		= BIT(0),	/* rre rwe rae atomic_mode */
	SIM_QPF_QKEY		= BIT(1),
	SIM_QPF_PKEY		= BIT(2),	/* primary path pkey_index */
	SIM_QPF_PORT		= BIT(3),	/* primary path vhca_port_num */
	SIM_QPF_PATH		= BIT(4),	/* the primary path */
	SIM_QPF_RTR		= BIT(5),	/* remote_qpn mtu rcv psn ... */
	SIM_QPF_RTS		= BIT(6),	/* send psn, retries, timeout */
	SIM_QPF_RNR_TIMEOUT	= BIT(7),	/* min_rnr_nak */
	SIM_QPF_RETRY		= BIT(8),
	SIM_QPF_RNR_RETRY	= BIT(9),
	SIM_QPF_ACK_TIMEOUT	= BIT(10),
	SIM_QPF_PM		= BIT(11),
	SIM_QPF_SRA		= BIT(12),
	SIM_QPF_RRA		= BIT(13),
	SIM_QPF_UD_RTS		= BIT(14),	/* next_send_psn */
	SIM_QPF_DRAIN_SIGERR	= BIT(15),
	SIM_QPF_COUNTER		= BIT(16),	/* counter_set_id */
};

/* opt_param_mask bit -> field group */
static const struct {
	u32 optpar;
	u32 group;
} sim_optpar[] = {
	{ MLX5_QP_OPTPAR_RRE | MLX5_QP_OPTPAR_RAE | MLX5_QP_OPTPAR_RWE,
	  SIM_QPF_ACCESS },
	{ MLX5_QP_OPTPAR_Q_KEY, SIM_QPF_QKEY },
	{ MLX5_QP_OPTPAR_PKEY_INDEX, SIM_QPF_PKEY },
	{ MLX5_QP_OPTPAR_PRI_PORT, SIM_QPF_PORT },
	{ MLX5_QP_OPTPAR_PRIMARY_ADDR_PATH, SIM_QPF_PATH },
	{ MLX5_QP_OPTPAR_RNR_TIMEOUT, SIM_QPF_RNR_TIMEOUT },
	{ MLX5_QP_OPTPAR_RETRY_COUNT, SIM_QPF_RETRY },
	{ MLX5_QP_OPTPAR_RNR_RETRY, SIM_QPF_RNR_RETRY },
	{ MLX5_QP_OPTPAR_ACK_TIMEOUT, SIM_QPF_ACK_TIMEOUT },
	{ MLX5_QP_OPTPAR_PM_STATE, SIM_QPF_PM },
	{ MLX5_QP_OPTPAR_SRA_MAX, SIM_QPF_SRA },
	{ MLX5_QP_OPTPAR_RRA_MAX, SIM_QPF_RRA },
	{ MLX5SP_QP_OPTPAR_DRAIN_SIGERR, SIM_QPF_DRAIN_SIGERR },
	{ MLX5_QP_OPTPAR_COUNTER_SET_ID, SIM_QPF_COUNTER },
};

struct sim_qp_trans {
	u16 opcode;
	u16 from;		/* BIT(state) mask */
	u8 to;
	bool has_qpc;
	u32 rc_required;	/* groups applied for RC */
	u32 ud_required;	/* groups applied for UD and GSI */
	u32 optional;		/* groups opt_param_mask may select */
};

static const struct sim_qp_trans sim_qp_trans[] = {
	{ MLX5_CMD_OP_RST2INIT_QP, BIT(MLX5_QP_STATE_RST), MLX5_QP_STATE_INIT,
	  true, SIM_QPF_ACCESS | SIM_QPF_PKEY | SIM_QPF_PORT | SIM_QPF_COUNTER,
	  SIM_QPF_QKEY | SIM_QPF_PKEY | SIM_QPF_PORT | SIM_QPF_COUNTER,
	  SIM_QPF_PM },
	{ MLX5_CMD_OP_INIT2INIT_QP, BIT(MLX5_QP_STATE_INIT),
	  MLX5_QP_STATE_INIT, true, 0, 0,
	  SIM_QPF_ACCESS | SIM_QPF_QKEY | SIM_QPF_PKEY | SIM_QPF_PORT |
	  SIM_QPF_DRAIN_SIGERR | SIM_QPF_COUNTER },
	{ MLX5_CMD_OP_INIT2RTR_QP, BIT(MLX5_QP_STATE_INIT), MLX5_QP_STATE_RTR,
	  true, SIM_QPF_PATH | SIM_QPF_RTR, 0,
	  SIM_QPF_ACCESS | SIM_QPF_QKEY | SIM_QPF_PKEY | SIM_QPF_RNR_TIMEOUT |
	  SIM_QPF_RRA | SIM_QPF_PM | SIM_QPF_COUNTER },
	{ MLX5_CMD_OP_RTR2RTS_QP, BIT(MLX5_QP_STATE_RTR), MLX5_QP_STATE_RTS,
	  true, SIM_QPF_RTS, SIM_QPF_UD_RTS,
	  SIM_QPF_ACCESS | SIM_QPF_QKEY | SIM_QPF_RNR_TIMEOUT | SIM_QPF_PM |
	  SIM_QPF_PATH | SIM_QPF_SRA | SIM_QPF_COUNTER },
	{ MLX5_CMD_OP_RTS2RTS_QP, BIT(MLX5_QP_STATE_RTS), MLX5_QP_STATE_RTS,
	  true, 0, 0,
	  SIM_QPF_ACCESS | SIM_QPF_QKEY | SIM_QPF_RNR_TIMEOUT | SIM_QPF_PM |
	  SIM_QPF_PATH | SIM_QPF_ACK_TIMEOUT | SIM_QPF_RETRY |
	  SIM_QPF_RNR_RETRY | SIM_QPF_SRA | SIM_QPF_RRA | SIM_QPF_COUNTER },
	{ MLX5_CMD_OP_SQERR2RTS_QP, BIT(MLX5_QP_STATE_SQER),
	  MLX5_QP_STATE_RTS, true, 0, 0,
	  SIM_QPF_ACCESS | SIM_QPF_QKEY | SIM_QPF_RNR_TIMEOUT },
	{ MLX5SP_CMD_OP_RTS2SQD_QP, BIT(MLX5_QP_STATE_RTS), MLX5_QP_STATE_SQD,
	  false, 0, 0, 0 },
	{ MLX5_CMD_OP_SQD_RTS_QP, BIT(MLX5_QP_STATE_SQD), MLX5_QP_STATE_RTS,
	  true, 0, 0,
	  SIM_QPF_ACCESS | SIM_QPF_QKEY | SIM_QPF_RNR_TIMEOUT |
	  SIM_QPF_PATH | SIM_QPF_ACK_TIMEOUT | SIM_QPF_RETRY |
	  SIM_QPF_RNR_RETRY | SIM_QPF_SRA | SIM_QPF_RRA | SIM_QPF_COUNTER },
	{ MLX5_CMD_OP_2ERR_QP, SIM_QPS_ALL, MLX5_QP_STATE_ERR, false, 0, 0, 0 },
	{ MLX5_CMD_OP_2RST_QP, SIM_QPS_ALL, MLX5_QP_STATE_RST, false, 0, 0, 0 },
};

static const struct sim_qp_trans *sim_qp_trans_find(u16 opcode)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sim_qp_trans); i++)
		if (sim_qp_trans[i].opcode == opcode)
			return &sim_qp_trans[i];
	return NULL;
}

/* The transition table as firmware sees it: 0 and the next state, or -EINVAL. */
int sim_qp_transition(u16 opcode, u8 cur, u8 *next)
{
	const struct sim_qp_trans *t = sim_qp_trans_find(opcode);

	if (!t || cur >= 16 || !(t->from & BIT(cur)))
		return -EINVAL;
	*next = t->to;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_qp_transition);

static bool sim_qp_is_ud(const struct sim_qp *qp)
{
	return qp->st == MLX5_QP_ST_UD || qp->st == MLX5_QP_ST_QP1;
}

static void sim_qp_free(struct sim_qp *qp)
{
	sim_cq_put(qp->scq);
	sim_cq_put(qp->rcq);
	sim_srq_put(qp->srq);
	sim_buf_free(&qp->buf);
	sim_wire_qp_free(qp);
	kfree(qp->acks);
	kfree(qp);
}

/* Under rcu_read_lock() or fw_lock. */
struct sim_qp *sim_qp_lookup(struct mlx5sp_sim *sim, u32 qpn)
{
	return xa_load(&sim->qps, qpn);
}

/* The decoded view of the QPC the data path reads. */
static void sim_qp_decode(struct sim_qp *qp)
{
	const void *path = MLX5_ADDR_OF(qpc, qp->qpc, primary_address_path);

	qp->port = MLX5_GET(ads, path, vhca_port_num) ?: 1;
	qp->sgid_index = MLX5_GET(ads, path, src_addr_index);
	memcpy(qp->rgid, MLX5_ADDR_OF(ads, path, rgid_rip), sizeof(qp->rgid));
	qp->peer_gen = 0;	/* looked up again (generations start at 1) */
	qp->ack_timeout = MLX5_GET(ads, path, ack_timeout);
	qp->remote_qpn = MLX5_GET(qpc, qp->qpc, remote_qpn);
	qp->qkey = MLX5_GET(qpc, qp->qpc, q_key);
	qp->mtu = MLX5_GET(qpc, qp->qpc, mtu);
	qp->log_msg_max = MLX5_GET(qpc, qp->qpc, log_msg_max);
	qp->min_rnr_nak = MLX5_GET(qpc, qp->qpc, min_rnr_nak);
	qp->retry_count = MLX5_GET(qpc, qp->qpc, retry_count);
	qp->rnr_retry = MLX5_GET(qpc, qp->qpc, rnr_retry);
	/* UC has no READ or atomic responder, whatever the QPC says */
	qp->rre = qp->st == MLX5_QP_ST_RC && MLX5_GET(qpc, qp->qpc, rre);
	qp->rwe = MLX5_GET(qpc, qp->qpc, rwe);
	qp->rae = qp->st == MLX5_QP_ST_RC && MLX5_GET(qpc, qp->qpc, rae);
	qp->drain_sigerr = MLX5_GET(qpc, qp->qpc, drain_sigerr);
	WRITE_ONCE(qp->qcnt, MLX5_GET(qpc, qp->qpc, counter_set_id));
	if (qp->st == MLX5_QP_ST_QP1)
		qp->qkey = SIM_QP1_QKEY;
}

/* copy one field of the QPC (or of the primary path) from the command */
#define SIM_QPC_COPY(dst, src, fld) do {				\
	u32 __v = MLX5_GET(qpc, src, fld);				\
									\
	MLX5_SET(qpc, dst, fld, __v);					\
} while (0)
#define SIM_ADS_COPY(dst, src, fld) do {				\
	u32 __v = MLX5_GET(ads, src, fld);				\
									\
	MLX5_SET(ads, dst, fld, __v);					\
} while (0)

/* Check what the new fields would make of the QP before applying them. */
static int sim_qp_check_fields(struct sim_cmd *c, struct sim_qp *qp,
			       const void *in, u32 groups)
{
	const void *path = MLX5_ADDR_OF(qpc, in, primary_address_path);
	struct sim_gid gid;
	u8 port;

	if (groups & (SIM_QPF_PORT | SIM_QPF_PATH)) {
		port = MLX5_GET(ads, path, vhca_port_num);
		if (port > SIM_NUM_PORTS)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_QP_BAD_PORT);
	}
	if ((groups & SIM_QPF_PKEY) &&
	    MLX5_GET(ads, path, pkey_index) >= SIM_PKEY_TABLE_SIZE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_PKEY_INDEX);
	if ((groups & SIM_QPF_PATH) && !sim_qp_is_ud(qp)) {
		port = MLX5_GET(ads, path, vhca_port_num) ?: qp->port;
		if (!sim_gid_get(c->sim, port,
				 MLX5_GET(ads, path, src_addr_index), &gid))
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_QP_BAD_GID_INDEX);
	}
	/* signature pipelining: RC only, and only with the capability */
	if ((groups & SIM_QPF_DRAIN_SIGERR) && MLX5_GET(qpc, in, drain_sigerr) &&
	    (qp->st != MLX5_QP_ST_RC ||
	     (c->sim->params.missing_caps &
	      (MLX5SP_SIM_NO_SIG | MLX5SP_SIM_NO_DRAIN_SIGERR))))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_UNSUPPORTED);
	/* a Q counter set that exists, or 0: none */
	if ((groups & SIM_QPF_COUNTER) && MLX5_GET(qpc, in, counter_set_id) &&
	    !sim_qcnt_valid(c->sim, MLX5_GET(qpc, in, counter_set_id)))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QCNT_NOT_FOUND);
	if ((groups & SIM_QPF_RTR) &&
	    (MLX5_GET(qpc, in, mtu) < MLX5_QPC_MTU_256_BYTES ||
	     MLX5_GET(qpc, in, mtu) > MLX5_QPC_MTU_4K_BYTES))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_MTU);
	return 0;
}

static void sim_qp_apply(u32 *qpc, const void *in, u32 groups)
{
	void *dpath = MLX5_ADDR_OF(qpc, qpc, primary_address_path);
	const void *spath = MLX5_ADDR_OF(qpc, in, primary_address_path);

	if (groups & SIM_QPF_ACCESS) {
		SIM_QPC_COPY(qpc, in, rre);
		SIM_QPC_COPY(qpc, in, rwe);
		SIM_QPC_COPY(qpc, in, rae);
		SIM_QPC_COPY(qpc, in, atomic_mode);
	}
	if (groups & SIM_QPF_QKEY)
		SIM_QPC_COPY(qpc, in, q_key);
	if (groups & SIM_QPF_PATH)
		memcpy(dpath, spath, MLX5_ST_SZ_BYTES(ads));
	if (groups & SIM_QPF_PKEY)
		SIM_ADS_COPY(dpath, spath, pkey_index);
	if (groups & SIM_QPF_PORT)
		SIM_ADS_COPY(dpath, spath, vhca_port_num);
	if (groups & SIM_QPF_RTR) {
		SIM_QPC_COPY(qpc, in, remote_qpn);
		SIM_QPC_COPY(qpc, in, mtu);
		SIM_QPC_COPY(qpc, in, log_msg_max);
		SIM_QPC_COPY(qpc, in, next_rcv_psn);
		SIM_QPC_COPY(qpc, in, min_rnr_nak);
		SIM_QPC_COPY(qpc, in, log_rra_max);
	}
	if (groups & (SIM_QPF_RTS | SIM_QPF_UD_RTS))
		SIM_QPC_COPY(qpc, in, next_send_psn);
	if (groups & SIM_QPF_RTS) {
		SIM_QPC_COPY(qpc, in, retry_count);
		SIM_QPC_COPY(qpc, in, rnr_retry);
		SIM_QPC_COPY(qpc, in, log_sra_max);
		SIM_ADS_COPY(dpath, spath, ack_timeout);
	}
	if (groups & SIM_QPF_RNR_TIMEOUT)
		SIM_QPC_COPY(qpc, in, min_rnr_nak);
	if (groups & SIM_QPF_RETRY)
		SIM_QPC_COPY(qpc, in, retry_count);
	if (groups & SIM_QPF_RNR_RETRY)
		SIM_QPC_COPY(qpc, in, rnr_retry);
	if (groups & SIM_QPF_ACK_TIMEOUT)
		SIM_ADS_COPY(dpath, spath, ack_timeout);
	if (groups & SIM_QPF_PM)
		SIM_QPC_COPY(qpc, in, pm_state);
	if (groups & SIM_QPF_SRA)
		SIM_QPC_COPY(qpc, in, log_sra_max);
	if (groups & SIM_QPF_RRA)
		SIM_QPC_COPY(qpc, in, log_rra_max);
	if (groups & SIM_QPF_DRAIN_SIGERR)
		SIM_QPC_COPY(qpc, in, drain_sigerr);
	if (groups & SIM_QPF_COUNTER)
		SIM_QPC_COPY(qpc, in, counter_set_id);
}

static u32 sim_qp_groups(const struct sim_qp_trans *t, const struct sim_qp *qp,
			 u32 optpar)
{
	u32 groups = sim_qp_is_ud(qp) ? t->ud_required : t->rc_required;
	int i;

	for (i = 0; i < ARRAY_SIZE(sim_optpar); i++)
		if (optpar & sim_optpar[i].optpar)
			groups |= sim_optpar[i].group & t->optional;
	return groups;
}

/* Entering a state: what the hardware resets or starts. Both locks held. */
static void sim_qp_enter(struct sim_qp *qp, u8 from, u8 to)
{
	WRITE_ONCE(qp->state, to);
	MLX5_SET(qpc, qp->qpc, state, to);
	qp->sig_draining = false;
	qp->sq_drain_pending = false;
	sim_wire_qp_reset(qp, from, to);
	switch (to) {
	case MLX5_QP_STATE_RST:
		qp->sq_ci = 0;
		qp->rq_ci = 0;
		qp->last_wqe_sent = false;
		qp->comm_est = false;
		qp->wait = SIM_SQ_RUN;
		qp->rd_atomic_inflight = 0;
		qp->peer_sim = NULL;
		qp->peer_gen = 0;
		/* what was not acknowledged is gone with the QP's state */
		qp->ack_head = 0;
		qp->ack_n = 0;
		break;
	case MLX5_QP_STATE_RTS:
		qp->rnr_left = qp->rnr_retry;
		qp->retry_left = qp->retry_count;
		qp->ack_lost = false;
		break;
	default:
		break;
	}
}

/*
 * The data path found an error: the QP goes to ERR and the engine
 * flushes what is left. Called with sq_lock or rq_lock held: commands
 * hold both, so they never race with it; the data path only moves to ERR.
 */
void sim_qp_set_error(struct sim_qp *qp)
{
	if (READ_ONCE(qp->state) == MLX5_QP_STATE_RST)
		return;
	WRITE_ONCE(qp->state, MLX5_QP_STATE_ERR);
	sim_engine_kick(qp->sim);
}

/*
 * The SQ stopped in SQD, by RTS2SQD or by a signature stop: no new WQE
 * starts. Once nothing is outstanding (WQEs on the wire still take their
 * answers: sq.c calls again when the last one completed), every
 * completion awaiting its ACK is written before software hears
 * SQ_DRAINED. Called with sq_lock held, the state SQD.
 */
void sim_qp_sq_drained(struct sim_qp *qp)
{
	if (qp->wreq.busy || qp->wreq.win_n) {
		qp->sq_drain_pending = true;
		return;
	}
	qp->sq_drain_pending = false;
	sim_sq_acks_write(qp, true);
	sim_post_qp_event(qp->sim, MLX5_EVENT_TYPE_SQ_DRAINED, qp->qpn);
}

/*
 * The SQ stopped after a signature error (drain_sigerr): the QP is in SQD,
 * hw_sq_wqebb_counter names the WQE it stopped at, and software hears of
 * it through SQ_DRAINED. Called with sq_lock held, from RTS only.
 */
void sim_qp_set_drained(struct sim_qp *qp)
{
	WRITE_ONCE(qp->state, MLX5_QP_STATE_SQD);
	sim_qp_sq_drained(qp);
}

int sim_cmd_modify_qp(struct sim_cmd *c)
{
	u32 qpn = MLX5_GET(rst2init_qp_in, c->in, qpn);
	const struct sim_qp_trans *t = sim_qp_trans_find(c->opcode);
	struct mlx5sp_sim *sim = c->sim;
	const void *in_qpc = NULL;
	struct sim_qp *qp;
	u32 groups = 0;
	u8 cur, next;
	int err;

	qp = xa_load(&sim->qps, qpn);
	if (!qp || !t)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_QP_NOT_FOUND);
	if (t->has_qpc) {
		in_qpc = MLX5_ADDR_OF(rst2init_qp_in, c->in, qpc);
		groups = sim_qp_groups(t, qp,
				       MLX5_GET(rst2init_qp_in, c->in,
						opt_param_mask));
		err = sim_qp_check_fields(c, qp, in_qpc, groups);
		if (err)
			return err;
	}
	/* a peer off this kernel: buffers for the wire, before the locks */
	if (in_qpc && t->to == MLX5_QP_STATE_RTR)
		sim_wire_qp_alloc(qp, in_qpc);
	/* out of RTS: the doorbells rung before this command are executed */
	if (t->to == MLX5_QP_STATE_ERR || t->to == MLX5_QP_STATE_RST ||
	    t->to == MLX5_QP_STATE_SQD)
		sim_sq_catch_up(&sim->fw_eng, qp);

	spin_lock_bh(&qp->sq_lock);
	spin_lock_bh(&qp->rq_lock);
	cur = READ_ONCE(qp->state);
	if (sim_qp_transition(c->opcode, cur, &next)) {
		spin_unlock_bh(&qp->rq_lock);
		spin_unlock_bh(&qp->sq_lock);
		return sim_fail(c, MLX5_CMD_STAT_BAD_QP_STATE_ERR,
				MLX5SP_SIM_SYND_QP_BAD_STATE);
	}
	if (in_qpc) {
		sim_qp_apply(qp->qpc, in_qpc, groups);
		sim_qp_decode(qp);
	}
	sim_qp_enter(qp, cur, next);
	/* drained once it is stopped and nothing is on the wire */
	if (next == MLX5_QP_STATE_SQD)
		sim_qp_sq_drained(qp);
	spin_unlock_bh(&qp->rq_lock);
	spin_unlock_bh(&qp->sq_lock);

	sim_engine_kick(sim);
	return 0;
}

static int sim_qp_check_create(struct sim_cmd *c, const void *qpc)
{
	if (MLX5_GET(create_qp_in, c->in, qpc_ext) ||
	    MLX5_GET(create_qp_in, c->in, input_qpn) ||
	    MLX5_GET(create_qp_in, c->in, wq_umem_valid) ||
	    MLX5_GET(qpc, qpc, dbr_umem_valid) ||
	    MLX5_GET(qpc, qpc, offload_type))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_UNSUPPORTED);
	if (MLX5_GET(qpc, qpc, state) != MLX5_QP_STATE_RST)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_INIT_STATE);
	if (MLX5_GET(qpc, qpc, drain_sigerr) &&
	    (MLX5_GET(qpc, qpc, st) != MLX5_QP_ST_RC ||
	     (c->sim->params.missing_caps &
	      (MLX5SP_SIM_NO_SIG | MLX5SP_SIM_NO_DRAIN_SIGERR))))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_UNSUPPORTED);
	return 0;
}

static int sim_qp_parse_wqs(struct sim_cmd *c, struct sim_qp *qp,
			    const void *qpc)
{
	u8 log_sq = MLX5_GET(qpc, qpc, log_sq_size);
	u8 log_rq = MLX5_GET(qpc, qpc, log_rq_size);
	u8 stride = MLX5_GET(qpc, qpc, log_rq_stride);

	qp->no_sq = MLX5_GET(qpc, qpc, no_sq);
	qp->rq_type = MLX5_GET(qpc, qpc, rq_type);
	if (qp->rq_type != MLX5_NON_ZERO_RQ && qp->rq_type != MLX5_ZERO_LEN_RQ &&
	    qp->rq_type != MLX5_SRQ_RQ)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_RQ_TYPE);
	if (log_sq > SIM_LOG_MAX_WQ_SZ || log_rq > SIM_LOG_MAX_WQ_SZ ||
	    stride > SIM_MAX_LOG_RQ_STRIDE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_WQ_SIZE);
	if (!qp->no_sq)
		qp->sq_wqe_cnt = BIT(log_sq);
	if (qp->rq_type == MLX5_NON_ZERO_RQ) {
		qp->rq_wqe_cnt = BIT(log_rq);
		qp->rq_stride_shift = stride + 4;
	}
	qp->sq_off = qp->rq_wqe_cnt << qp->rq_stride_shift;
	return 0;
}

static int sim_qp_take_cqs(struct sim_cmd *c, struct sim_qp *qp,
			   const void *qpc)
{
	u32 scqn = MLX5_GET(qpc, qpc, cqn_snd);
	u32 rcqn = MLX5_GET(qpc, qpc, cqn_rcv);

	if ((qp->sq_wqe_cnt && !scqn) ||
	    ((qp->rq_wqe_cnt || qp->rq_type == MLX5_SRQ_RQ) && !rcqn))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_CQN);
	if (scqn) {
		qp->scq = sim_cq_get(c->sim, scqn);
		if (!qp->scq)
			return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
					MLX5SP_SIM_SYND_QP_BAD_CQN);
	}
	if (rcqn) {
		qp->rcq = sim_cq_get(c->sim, rcqn);
		if (!qp->rcq)
			return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
					MLX5SP_SIM_SYND_QP_BAD_CQN);
	}
	return 0;
}

static int sim_qp_parse(struct sim_cmd *c, struct sim_qp *qp)
{
	const void *qpc = MLX5_ADDR_OF(create_qp_in, c->in, qpc);
	u32 max_pas = (c->inlen - MLX5_ST_SZ_BYTES(create_qp_in)) /
		      sizeof(__be64);
	struct mlx5sp_sim *sim = c->sim;
	int err;

	err = sim_qp_check_create(c, qpc);
	if (err)
		return err;
	qp->st = MLX5_GET(qpc, qpc, st);
	if (qp->st != MLX5_QP_ST_RC && qp->st != MLX5_QP_ST_UC &&
	    qp->st != MLX5_QP_ST_UD && qp->st != MLX5_QP_ST_QP1)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_ST);
	qp->pd = MLX5_GET(qpc, qpc, pd);
	if (!sim_pd_exists(sim, qp->pd))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_QP_BAD_PD);
	qp->uar = MLX5_GET(qpc, qpc, uar_page);
	if (!sim_uar_allocated(sim, qp->uar))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_QP_BAD_UAR);
	qp->dbr_addr = MLX5_GET64(qpc, qpc, dbr_addr);
	qp->dbr = sim_dbr_ptr(sim, qp->dbr_addr);
	if (!qp->dbr)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QP_BAD_DBR);
	qp->user_index = MLX5_GET(qpc, qpc, user_index);
	err = sim_qp_parse_wqs(c, qp, qpc);
	if (err)
		return err;
	err = sim_qp_take_cqs(c, qp, qpc);
	if (err)
		return err;
	if (qp->rq_type == MLX5_SRQ_RQ) {
		if (sim_qp_is_ud(qp) && qp->st == MLX5_QP_ST_QP1)
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_QP_BAD_RQ_TYPE);
		qp->srq = sim_srq_get(sim, MLX5_GET(qpc, qpc, srqn_rmpn_xrqn));
		if (!qp->srq)
			return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
					MLX5SP_SIM_SYND_QP_BAD_SRQN);
	}
	err = sim_buf_init(c, &qp->buf, MLX5_ADDR_OF(create_qp_in, c->in, pas),
			   max_pas, MLX5_GET(qpc, qpc, log_page_size),
			   MLX5_GET(qpc, qpc, page_offset),
			   (u64)qp->sq_off + (u64)qp->sq_wqe_cnt *
			   MLX5_SEND_WQE_BB);
	if (err)
		return err;
	memcpy(qp->qpc, qpc, sizeof(qp->qpc));
	sim_qp_decode(qp);
	return 0;
}

static int sim_qp_insert(struct sim_cmd *c, struct sim_qp *qp)
{
	struct mlx5sp_sim *sim = c->sim;
	u32 qpn;
	int err;

	if (qp->st == MLX5_QP_ST_QP1) {
		err = xa_insert(&sim->qps, SIM_GSI_QPN, qp, GFP_KERNEL);
		if (err == -EBUSY)
			return sim_fail(c, MLX5_CMD_STAT_BAD_RES_STATE_ERR,
					MLX5SP_SIM_SYND_QP_GSI_EXISTS);
		qpn = SIM_GSI_QPN;
	} else {
		err = xa_alloc_cyclic(&sim->qps, &qpn, qp,
				      XA_LIMIT(SIM_QPN_FIRST, SIM_QPN_MAX),
				      &sim->next_qpn, GFP_KERNEL);
		if (err == -EBUSY)
			return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
					MLX5SP_SIM_SYND_QP_EXHAUSTED);
	}
	if (err < 0)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	if (sim_pollset_add(&sim->poll_qps, qp)) {
		xa_erase(&sim->qps, qpn);
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	}
	qp->qpn = qpn;
	return 0;
}

int sim_cmd_create_qp(struct sim_cmd *c)
{
	struct sim_qp *qp;
	int err;

	err = sim_lim_check(c, SIM_LIM_QP);
	if (err)
		return err;
	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	qp->sim = c->sim;
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->state = MLX5_QP_STATE_RST;
	err = sim_qp_parse(c, qp);
	if (err)
		goto err_free_qp;
	if (sim_sq_acks_alloc(qp)) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_qp;
	}
	err = sim_qp_insert(c, qp);
	if (err)
		goto err_free_qp;
	sim_lim_add(c->sim, SIM_LIM_QP);
	MLX5_SET(create_qp_out, c->out, qpn, qp->qpn);
	return 0;

err_free_qp:
	sim_qp_free(qp);
	return err;
}

int sim_cmd_destroy_qp(struct sim_cmd *c)
{
	u32 qpn = MLX5_GET(destroy_qp_in, c->in, qpn);
	struct mlx5sp_sim *sim = c->sim;
	struct sim_qp *qp;

	qp = xa_load(&sim->qps, qpn);
	if (!qp)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_QP_NOT_FOUND);
	/* what its doorbells rang for goes out first, as from 2ERR */
	sim_sq_catch_up(&sim->fw_eng, qp);
	xa_erase(&sim->qps, qpn);
	sim_lim_sub(sim, SIM_LIM_QP);
	sim_pollset_del(&sim->poll_qps, qp);
	spin_lock_bh(&qp->sq_lock);
	spin_lock_bh(&qp->rq_lock);
	WRITE_ONCE(qp->state, MLX5_QP_STATE_RST);
	spin_unlock_bh(&qp->rq_lock);
	spin_unlock_bh(&qp->sq_lock);
	/* the engines let go of it before its buffers go back (cq.c) */
	synchronize_rcu_expedited();
	sim_qp_free(qp);
	return 0;
}

void sim_qp_destroy_all(struct mlx5sp_sim *sim)
{
	struct sim_qp *qp, *tmp;
	unsigned long qpn;
	LIST_HEAD(dead);

	xa_for_each(&sim->qps, qpn, qp) {
		xa_erase(&sim->qps, qpn);
		sim_pollset_del(&sim->poll_qps, qp);
		list_add(&qp->dead, &dead);
	}
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(qp, tmp, &dead, dead)
		sim_qp_free(qp);
}

int sim_cmd_query_qp(struct sim_cmd *c)
{
	void *qpc = MLX5_ADDR_OF(query_qp_out, c->out, qpc);
	u32 qpn = MLX5_GET(query_qp_in, c->in, qpn);
	struct sim_qp *qp;

	qp = xa_load(&c->sim->qps, qpn);
	if (!qp)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_QP_NOT_FOUND);
	spin_lock_bh(&qp->sq_lock);
	spin_lock_bh(&qp->rq_lock);
	memcpy(qpc, qp->qpc, sizeof(qp->qpc));
	MLX5_SET(qpc, qpc, state, READ_ONCE(qp->state));
	MLX5_SET(qpc, qpc, hw_sq_wqebb_counter, qp->sq_ci);
	MLX5_SET(qpc, qpc, sw_sq_wqebb_counter,
		 be32_to_cpu(READ_ONCE(qp->dbr[MLX5_SND_DBR])) & 0xffff);
	MLX5_SET(qpc, qpc, hw_rq_counter, qp->rq_ci);
	MLX5_SET(qpc, qpc, sw_rq_counter,
		 be32_to_cpu(READ_ONCE(qp->dbr[MLX5_RCV_DBR])) & 0xffff);
	spin_unlock_bh(&qp->rq_lock);
	spin_unlock_bh(&qp->sq_lock);
	return 0;
}
