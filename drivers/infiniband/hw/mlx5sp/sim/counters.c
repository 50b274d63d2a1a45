// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Q counters of the software ConnectX: ALLOC_Q_COUNTER, DEALLOC_Q_COUNTER
 * and QUERY_Q_COUNTER (query_q_counter_out), and the counting itself. A QP
 * counts into the set its QPC's counter_set_id names (RST2INIT, or a later
 * transition with MLX5_QP_OPTPAR_COUNTER_SET_ID); 0 names none.
 *
 * What the model counts, where a ConnectX would:
 *   requester: error CQEs by syndrome (req_cqe_error and the kind:
 *     remote access, remote invalid request, remote operation, local
 *     length, local protection, RNR and transport retries exceeded),
 *     flushed WQEs (req_cqe_flush_error), RNR NAKs retried
 *     (rnr_nak_retry_err), ACK timeouts retried (local_ack_timeout_err);
 *   responder: RDMA WRITE, READ and atomic requests received, error CQEs
 *     (resp_cqe_error, resp_local_length_error, resp_local_protection,
 *     resp_local_qp_error), NAKs for remote access and invalid requests,
 *     flushed receives (resp_cqe_flush_error), requests that found no
 *     receive WQE (out_of_buffer);
 *   on the wire (wire_req.c, wire_resp.c): RC packets received ahead of
 *     the expected PSN (out_of_sequence) and behind it (duplicate_request)
 *     by the responder; sequence NAKs received (packet_seq_err) and READ
 *     responses ahead of the one awaited (implied_nak_seq_err) by the
 *     requester.
 * Between model devices of one kernel nothing is lost or reordered, so
 * those read 0 there; rx_dct_connect and the roce_adp/slow_restart
 * counters always do.
 *
 * Allocation runs under fw_lock; the data path adds to a set without a
 * lock (atomic_t, 32 bits as in the PRM) through the QP's cached qcnt.
 */

#include "counters.h"
#include "qp.h"
#include "sim.h"
#include "syndromes.h"

/* The byte offset in query_q_counter_out of each counter. */
#define SIM_QC_OFF(fld) MLX5_BYTE_OFF(query_q_counter_out, fld)

static const u32 sim_qc_off[SIM_QC_NR] = {
	[SIM_QC_rx_write_requests] = SIM_QC_OFF(rx_write_requests),
	[SIM_QC_rx_read_requests] = SIM_QC_OFF(rx_read_requests),
	[SIM_QC_rx_atomic_requests] = SIM_QC_OFF(rx_atomic_requests),
	[SIM_QC_out_of_buffer] = SIM_QC_OFF(out_of_buffer),
	[SIM_QC_rnr_nak_retry_err] = SIM_QC_OFF(rnr_nak_retry_err),
	[SIM_QC_local_ack_timeout_err] = SIM_QC_OFF(local_ack_timeout_err),
	[SIM_QC_req_rnr_retries_exceeded] = SIM_QC_OFF(req_rnr_retries_exceeded),
	[SIM_QC_req_transport_retries_exceeded] = SIM_QC_OFF(req_transport_retries_exceeded),
	[SIM_QC_resp_local_length_error] = SIM_QC_OFF(resp_local_length_error),
	[SIM_QC_req_local_length_error] = SIM_QC_OFF(req_local_length_error),
	[SIM_QC_resp_local_qp_error] = SIM_QC_OFF(resp_local_qp_error),
	[SIM_QC_local_operation_error] = SIM_QC_OFF(local_operation_error),
	[SIM_QC_resp_local_protection] = SIM_QC_OFF(resp_local_protection),
	[SIM_QC_req_local_protection] = SIM_QC_OFF(req_local_protection),
	[SIM_QC_resp_cqe_error] = SIM_QC_OFF(resp_cqe_error),
	[SIM_QC_req_cqe_error] = SIM_QC_OFF(req_cqe_error),
	[SIM_QC_req_remote_invalid_request] = SIM_QC_OFF(req_remote_invalid_request),
	[SIM_QC_resp_remote_invalid_request] = SIM_QC_OFF(resp_remote_invalid_request),
	[SIM_QC_req_remote_access_errors] = SIM_QC_OFF(req_remote_access_errors),
	[SIM_QC_resp_remote_access_errors] = SIM_QC_OFF(resp_remote_access_errors),
	[SIM_QC_req_remote_operation_errors] = SIM_QC_OFF(req_remote_operation_errors),
	[SIM_QC_resp_cqe_flush_error] = SIM_QC_OFF(resp_cqe_flush_error),
	[SIM_QC_req_cqe_flush_error] = SIM_QC_OFF(req_cqe_flush_error),
	[SIM_QC_out_of_sequence] = SIM_QC_OFF(out_of_sequence),
	[SIM_QC_duplicate_request] = SIM_QC_OFF(duplicate_request),
	[SIM_QC_packet_seq_err] = SIM_QC_OFF(packet_seq_err),
	[SIM_QC_implied_nak_seq_err] = SIM_QC_OFF(implied_nak_seq_err),
};

static u32 sim_qcnt_max(struct mlx5sp_sim *sim)
{
	return min_t(u32, SIM_CAP_GEN(sim, max_qp_cnt), SIM_MAX_Q_COUNTERS);
}

/* An allocated set: 1 .. max_qp_cnt - 1. Under fw_lock. */
bool sim_qcnt_valid(struct mlx5sp_sim *sim, u32 id)
{
	return id && id < sim_qcnt_max(sim) && test_bit(id, sim->qcnt.map);
}

int sim_cmd_alloc_q_counter(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	u32 id;

	id = find_next_zero_bit(sim->qcnt.map, sim_qcnt_max(sim), 1);
	if (id >= sim_qcnt_max(sim))
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_QCNT_EXHAUSTED);
	memset(sim->qcnt.val[id], 0, sizeof(sim->qcnt.val[id]));
	set_bit(id, sim->qcnt.map);
	MLX5_SET(alloc_q_counter_out, c->out, counter_set_id, id);
	return 0;
}

/* QPs that counted into a freed set count nowhere from now on. */
static void sim_qcnt_detach(struct mlx5sp_sim *sim, u32 id)
{
	struct sim_qp *qp;
	unsigned long qpn;

	xa_for_each(&sim->qps, qpn, qp) {
		spin_lock_bh(&qp->sq_lock);
		spin_lock_bh(&qp->rq_lock);
		if (qp->qcnt == id) {
			WRITE_ONCE(qp->qcnt, 0);
			MLX5_SET(qpc, qp->qpc, counter_set_id, 0);
		}
		spin_unlock_bh(&qp->rq_lock);
		spin_unlock_bh(&qp->sq_lock);
	}
}

int sim_cmd_dealloc_q_counter(struct sim_cmd *c)
{
	u32 id = MLX5_GET(dealloc_q_counter_in, c->in, counter_set_id);
	struct mlx5sp_sim *sim = c->sim;

	if (!sim_qcnt_valid(sim, id))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QCNT_NOT_FOUND);
	sim_qcnt_detach(sim, id);
	clear_bit(id, sim->qcnt.map);
	return 0;
}

int sim_cmd_query_q_counter(struct sim_cmd *c)
{
	u32 id = MLX5_GET(query_q_counter_in, c->in, counter_set_id);
	struct mlx5sp_sim *sim = c->sim;
	bool clear;
	int i;

	/* one function, no vports; no aggregation (q_counter_aggregation 0) */
	if (MLX5_GET(query_q_counter_in, c->in, other_vport) ||
	    MLX5_GET(query_q_counter_in, c->in, vport_number) ||
	    MLX5_GET(query_q_counter_in, c->in, aggregate))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QCNT_BAD_PARAM);
	if (!sim_qcnt_valid(sim, id))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_QCNT_NOT_FOUND);
	clear = MLX5_GET(query_q_counter_in, c->in, clear);
	for (i = 0; i < SIM_QC_NR; i++) {
		atomic_t *v = &sim->qcnt.val[id][i];
		u32 n = clear ? atomic_xchg(v, 0) : atomic_read(v);

		*(__be32 *)(c->out + sim_qc_off[i]) = cpu_to_be32(n);
	}
	return 0;
}

/* The HCA's objects are gone (teardown, disable, removal): so are these. */
void sim_qcnt_reset(struct mlx5sp_sim *sim)
{
	bitmap_zero(sim->qcnt.map, SIM_MAX_Q_COUNTERS);
}

/* The data path: one event of a QP. Any context. */
void sim_qcnt_inc(struct sim_qp *qp, enum sim_qc which)
{
	u8 id = READ_ONCE(qp->qcnt);

	if (id && id < SIM_MAX_Q_COUNTERS && which < SIM_QC_NR)
		atomic_inc(&qp->sim->qcnt.val[id][which]);
}

/* An error CQE of the requester (@req) or the responder, by syndrome. */
void sim_qcnt_cqe_err(struct sim_qp *qp, bool req, u8 syndrome)
{
	enum sim_qc kind = SIM_QC_NR;

	if (syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR) {
		sim_qcnt_inc(qp, req ? SIM_QC_req_cqe_flush_error :
				       SIM_QC_resp_cqe_flush_error);
		return;
	}
	sim_qcnt_inc(qp, req ? SIM_QC_req_cqe_error : SIM_QC_resp_cqe_error);
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		kind = req ? SIM_QC_req_local_length_error :
			     SIM_QC_resp_local_length_error;
		break;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		kind = req ? SIM_QC_req_local_protection :
			     SIM_QC_resp_local_protection;
		break;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		kind = req ? SIM_QC_local_operation_error :
			     SIM_QC_resp_local_qp_error;
		break;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		if (req)
			kind = SIM_QC_req_remote_access_errors;
		break;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		if (req)
			kind = SIM_QC_req_remote_invalid_request;
		break;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		if (req)
			kind = SIM_QC_req_remote_operation_errors;
		break;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		if (req)
			kind = SIM_QC_req_rnr_retries_exceeded;
		break;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		if (req)
			kind = SIM_QC_req_transport_retries_exceeded;
		break;
	default:
		break;
	}
	if (kind != SIM_QC_NR)
		sim_qcnt_inc(qp, kind);
}

/* The responder refused a request with a NAK of @syndrome. */
void sim_qcnt_nak(struct sim_qp *qp, u8 syndrome)
{
	if (syndrome == MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR)
		sim_qcnt_inc(qp, SIM_QC_resp_remote_access_errors);
	else if (syndrome == MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR)
		sim_qcnt_inc(qp, SIM_QC_resp_remote_invalid_request);
}
