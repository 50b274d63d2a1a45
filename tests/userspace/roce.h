/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What every RC test program asks of port 1 first: its active MTU and the
 * GID to address a QP of the same device by, the first RoCE v2 GID of the
 * table (else the first GID at all).
 */
#ifndef MLX5SP_TESTS_ROCE_H
#define MLX5SP_TESTS_ROCE_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* The GID index (and @gid, @mtu) of port 1; -1 when there is none. */
static inline int roce_port_gid(struct ibv_context *ctx, union ibv_gid *gid,
				enum ibv_mtu *mtu)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i, index = -1;

	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	*mtu = pa.active_mtu;
	for (i = 0; i < 16; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (index < 0 || e.gid_type == IBV_GID_TYPE_ROCE_V2)
			index = i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
			break;
	}
	if (index < 0 || ibv_query_gid(ctx, 1, index, gid))
		return -1;
	return index;
}

/* What an RC QP is given on its way to RTS (rc_to_rts()). */
struct rc_attrs {
	int timeout, retry_cnt, rnr_retry, min_rnr_timer;
	int rd_atomic;		/* max_rd_atomic and max_dest_rd_atomic */
	unsigned int access;	/* qp_access_flags */
	uint32_t psn;		/* its sq_psn, and the peer's (rq_psn) */
};

/*
 * @qp from RESET through INIT and RTR to RTS on port 1, path MTU 1024,
 * towards QP @dqpn at @dgid from GID @sgid_index: 0, or the errno of the
 * step that failed with its name in *@step.
 */
static inline int rc_to_rts(struct ibv_qp *qp, const struct rc_attrs *p,
			    uint32_t dqpn, const union ibv_gid *dgid,
			    int sgid_index, const char **step)
{
	struct ibv_qp_attr at = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = p->access,
	};

	*step = "INIT";
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	at.dest_qp_num = dqpn;
	at.rq_psn = p->psn;
	at.max_dest_rd_atomic = p->rd_atomic;
	at.min_rnr_timer = p->min_rnr_timer;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = *dgid;
	at.ah_attr.grh.sgid_index = sgid_index;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.port_num = 1;
	*step = "RTR";
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.timeout = p->timeout;
	at.retry_cnt = p->retry_cnt;
	at.rnr_retry = p->rnr_retry;
	at.sq_psn = p->psn;
	at.max_rd_atomic = p->rd_atomic;
	*step = "RTS";
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		return errno;
	return 0;
}

/* rc_to_rts(), the program ended by fatal_err() when a step fails. */
static inline void rc_to_rts_or_die(struct ibv_qp *qp, const struct rc_attrs *p,
				    uint32_t dqpn, const union ibv_gid *dgid,
				    int sgid_index)
{
	const char *step;
	int err;

	err = rc_to_rts(qp, p, dqpn, dgid, sgid_index, &step);
	if (err)
		fatal_err(step, err);
}

#endif
