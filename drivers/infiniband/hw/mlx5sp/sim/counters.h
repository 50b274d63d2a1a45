/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Q counters of the software ConnectX (counters.c): the fields a set
 * counts (query_q_counter_out) and the sets.
 */
#ifndef MLX5SP_SIM_COUNTERS_H
#define MLX5SP_SIM_COUNTERS_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/types.h>

struct mlx5sp_sim;
struct sim_cmd;
struct sim_qp;

/* Q counters (counters.c): the fields a set counts, query_q_counter_out */
enum sim_qc {
	SIM_QC_rx_write_requests,
	SIM_QC_rx_read_requests,
	SIM_QC_rx_atomic_requests,
	SIM_QC_out_of_buffer,
	SIM_QC_rnr_nak_retry_err,
	SIM_QC_local_ack_timeout_err,
	SIM_QC_req_rnr_retries_exceeded,
	SIM_QC_req_transport_retries_exceeded,
	SIM_QC_resp_local_length_error,
	SIM_QC_req_local_length_error,
	SIM_QC_resp_local_qp_error,
	SIM_QC_local_operation_error,
	SIM_QC_resp_local_protection,
	SIM_QC_req_local_protection,
	SIM_QC_resp_cqe_error,
	SIM_QC_req_cqe_error,
	SIM_QC_req_remote_invalid_request,
	SIM_QC_resp_remote_invalid_request,
	SIM_QC_req_remote_access_errors,
	SIM_QC_resp_remote_access_errors,
	SIM_QC_req_remote_operation_errors,
	SIM_QC_resp_cqe_flush_error,
	SIM_QC_req_cqe_flush_error,
	SIM_QC_out_of_sequence,
	SIM_QC_duplicate_request,
	SIM_QC_packet_seq_err,
	SIM_QC_implied_nak_seq_err,
	SIM_QC_NR,
};

#define SIM_MAX_Q_COUNTERS	64	/* max_qp_cnt; set 0 is none */

struct sim_qcnt {
	/* allocated sets: changed under fw_lock, read there */
	DECLARE_BITMAP(map, SIM_MAX_Q_COUNTERS);
	/* values: added to by the data path locklessly, read by QUERY */
	atomic_t val[SIM_MAX_Q_COUNTERS][SIM_QC_NR];
};

/* counters.c: Q counters */
int sim_cmd_alloc_q_counter(struct sim_cmd *c);
int sim_cmd_dealloc_q_counter(struct sim_cmd *c);
int sim_cmd_query_q_counter(struct sim_cmd *c);
bool sim_qcnt_valid(struct mlx5sp_sim *sim, u32 id);
void sim_qcnt_reset(struct mlx5sp_sim *sim);
void sim_qcnt_inc(struct sim_qp *qp, enum sim_qc which);
void sim_qcnt_cqe_err(struct sim_qp *qp, bool req, u8 syndrome);
void sim_qcnt_nak(struct sim_qp *qp, u8 syndrome);

#endif /* MLX5SP_SIM_COUNTERS_H */
