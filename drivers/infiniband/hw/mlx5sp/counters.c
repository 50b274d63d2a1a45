// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Hardware counters as mlx5_ib has them: `rdma statistic show link
 * DEV/1` and the per-QP counters of `rdma statistic qp`.
 *
 * The device counts in Q counter sets (ALLOC_Q_COUNTER, QUERY_Q_COUNTER,
 * DEALLOC_Q_COUNTER); a QP counts into the set its QPC names. The port has
 * one set, allocated when the device is added, which every QP names at
 * RST2INIT unless ib_core bound it to a counter of its own (auto or manual
 * mode), which then has a set of its own: counter->id. ib_core adds the
 * bound counters to the port's figures, so the port shows the whole.
 * Which Q counters the port lists follows the device's capabilities, with
 * mlx5_ib's names and order.
 *
 * Then, where the device allows QUERY_CONG_STATISTICS (cc_query_allowed),
 * mlx5_ib's four congestion counters of the port (ECN marks seen, CNPs
 * sent, CNPs handled or ignored), 64 bits each; a bound counter shows 0.
 *
 * After them come the driver's own counters for signature pipelining,
 * counted from what the driver sees: SIGERR CQEs polled from kernel CQs
 * (by guard, reference tag and application tag), SQ_DRAINED events of
 * every QP, and WQEs cancelled by mlx5sp_qp_cancel_send_wrs(). A user
 * process polls its own CQs and cancels in its own memory (libmlx5): those
 * the driver never sees. The driver counters are the port's only; a bound
 * counter shows 0 for them.
 *
 * ib_core reads the port's counters once in ib_register_device(), before
 * enable_driver and before any client or user has the device. That read
 * does not ask the device: 6.12's setup_hw_port_stats() leaks the stats it
 * allocated when get_hw_stats() fails (a failed allocation or command,
 * found by make faults), and nothing can have counted on the fresh Q
 * counter set yet. The congestion counters read 0 in that snapshot, which
 * ib_core serves for its 10 ms lifespan at most.
 */
#include <linux/unaligned.h>

#include "ib.h"

#define MLX5SP_Q_OFF(fld) MLX5_BYTE_OFF(query_q_counter_out, fld)
#define MLX5SP_QC(fld) { #fld, MLX5SP_Q_OFF(fld) }

struct mlx5sp_qc_desc {
	const char *name;
	u16 off;			/* bytes into query_q_counter_out */
};

static const struct mlx5sp_qc_desc basic_q_cnts[] = {
	MLX5SP_QC(rx_write_requests),
	MLX5SP_QC(rx_read_requests),
	MLX5SP_QC(rx_atomic_requests),
	MLX5SP_QC(rx_dct_connect),
	MLX5SP_QC(out_of_buffer),
};

static const struct mlx5sp_qc_desc out_of_seq_q_cnts[] = {
	MLX5SP_QC(out_of_sequence),
};

static const struct mlx5sp_qc_desc retrans_q_cnts[] = {
	MLX5SP_QC(duplicate_request),
	MLX5SP_QC(rnr_nak_retry_err),
	MLX5SP_QC(packet_seq_err),
	MLX5SP_QC(implied_nak_seq_err),
	MLX5SP_QC(local_ack_timeout_err),
};

static const struct mlx5sp_qc_desc extended_err_cnts[] = {
	MLX5SP_QC(resp_local_length_error),
	MLX5SP_QC(resp_cqe_error),
	MLX5SP_QC(req_cqe_error),
	MLX5SP_QC(req_remote_invalid_request),
	MLX5SP_QC(req_remote_access_errors),
	MLX5SP_QC(resp_remote_access_errors),
	MLX5SP_QC(resp_cqe_flush_error),
	MLX5SP_QC(req_cqe_flush_error),
	MLX5SP_QC(req_transport_retries_exceeded),
	MLX5SP_QC(req_rnr_retries_exceeded),
	/* not in mlx5_ib's list; the PRM has it beside resp_ */
	MLX5SP_QC(req_local_length_error),
};

#define MLX5SP_CC(fld) \
	{ #fld, MLX5_BYTE_OFF(query_cong_statistics_out, fld##_high) }

static const struct mlx5sp_qc_desc cong_cnts[MLX5SP_CONG_STATS] = {
	MLX5SP_CC(rp_cnp_ignored),
	MLX5SP_CC(rp_cnp_handled),
	MLX5SP_CC(np_ecn_marked_roce_packets),
	MLX5SP_CC(np_cnp_sent),
};

static const char * const drv_cnt_names[MLX5SP_DRV_NR] = {
	[MLX5SP_DRV_SIG_ERR_GUARD] = "sig_err_guard",
	[MLX5SP_DRV_SIG_ERR_REFTAG] = "sig_err_reftag",
	[MLX5SP_DRV_SIG_ERR_APPTAG] = "sig_err_apptag",
	[MLX5SP_DRV_SQ_DRAINED] = "sq_drained",
	[MLX5SP_DRV_WQES_CANCELLED] = "wqes_cancelled",
};

static void add_q_cnts(struct mlx5sp_counters *c,
		       const struct mlx5sp_qc_desc *d, size_t n)
{
	size_t i;

	for (i = 0; i < n && c->nq < MLX5SP_MAX_Q_STATS; i++) {
		c->descs[c->nq].name = d[i].name;
		c->q_off[c->nq] = d[i].off;
		c->nq++;
	}
}

static int alloc_q_counter(struct mlx5sp_ib_dev *dev, u32 *id)
{
	u32 out[MLX5_ST_SZ_DW(alloc_q_counter_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_q_counter_in)] = {};
	int err;

	MLX5_SET(alloc_q_counter_in, in, opcode, MLX5_CMD_OP_ALLOC_Q_COUNTER);
	err = mlx5sp_cmd_exec_inout(dev->mdev, alloc_q_counter, in, out);
	if (!err)
		*id = MLX5_GET(alloc_q_counter_out, out, counter_set_id);
	return err;
}

static int dealloc_q_counter(struct mlx5sp_ib_dev *dev, u32 id)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_q_counter_in)] = {};

	MLX5_SET(dealloc_q_counter_in, in, opcode,
		 MLX5_CMD_OP_DEALLOC_Q_COUNTER);
	MLX5_SET(dealloc_q_counter_in, in, counter_set_id, id);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "Q counter", id);
}

/* Read set @id into the first nq values of @stats. */
static int query_q_counter(struct mlx5sp_ib_dev *dev, u32 id,
			   struct rdma_hw_stats *stats)
{
	struct mlx5sp_counters *c = &dev->cnt;
	u32 in[MLX5_ST_SZ_DW(query_q_counter_in)] = {};
	void *out;
	u32 i;
	int err;

	out = kzalloc(MLX5_ST_SZ_BYTES(query_q_counter_out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_q_counter_in, in, opcode, MLX5_CMD_OP_QUERY_Q_COUNTER);
	MLX5_SET(query_q_counter_in, in, counter_set_id, id);
	err = mlx5sp_cmd_exec(dev->mdev, in, sizeof(in), out,
			      MLX5_ST_SZ_BYTES(query_q_counter_out));
	if (!err)
		for (i = 0; i < c->nq && i < stats->num_counters; i++)
			stats->value[i] = be32_to_cpup(out + c->q_off[i]);
	kfree(out);
	return err;
}

/* The congestion counters into @stats after the Q counters. */
static int query_cong_counters(struct mlx5sp_ib_dev *dev,
			       struct rdma_hw_stats *stats)
{
	struct mlx5sp_counters *c = &dev->cnt;
	u32 in[MLX5_ST_SZ_DW(query_cong_statistics_in)] = {};
	void *out;
	u32 i;
	int err;

	out = kzalloc(MLX5_ST_SZ_BYTES(query_cong_statistics_out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_cong_statistics_in, in, opcode,
		 MLX5_CMD_OP_QUERY_CONG_STATISTICS);
	err = mlx5sp_cmd_exec(dev->mdev, in, sizeof(in), out,
			      MLX5_ST_SZ_BYTES(query_cong_statistics_out));
	if (!err)
		for (i = 0; i < c->ncong && c->nq + i < stats->num_counters;
		     i++)
			stats->value[c->nq + i] =
				get_unaligned_be64(out + cong_cnts[i].off);
	kfree(out);
	return err;
}

/**
 * mlx5sp_counters_init - the port's counter list and its Q counter set
 * @dev: the RDMA device, before registration
 *
 * Return: 0, or the -errno of ALLOC_Q_COUNTER.
 */
int mlx5sp_counters_init(struct mlx5sp_ib_dev *dev)
{
	struct mlx5sp_counters *c = &dev->cnt;
	int i;

	c->nq = 0;
	add_q_cnts(c, basic_q_cnts, ARRAY_SIZE(basic_q_cnts));
	if (MLX5SP_CAP_GEN(dev, out_of_seq_cnt))
		add_q_cnts(c, out_of_seq_q_cnts, ARRAY_SIZE(out_of_seq_q_cnts));
	if (MLX5SP_CAP_GEN(dev, retransmission_q_counters))
		add_q_cnts(c, retrans_q_cnts, ARRAY_SIZE(retrans_q_cnts));
	if (MLX5SP_CAP_GEN(dev, enhanced_error_q_counters))
		add_q_cnts(c, extended_err_cnts, ARRAY_SIZE(extended_err_cnts));
	c->ncong = 0;
	if (MLX5SP_CAP_GEN(dev, cc_query_allowed)) {
		for (i = 0; i < MLX5SP_CONG_STATS; i++)
			c->descs[c->nq + i].name = cong_cnts[i].name;
		c->ncong = MLX5SP_CONG_STATS;
	}
	for (i = 0; i < MLX5SP_DRV_NR; i++) {
		c->descs[c->nq + c->ncong + i].name = drv_cnt_names[i];
		atomic64_set(&c->drv[i], 0);
	}
	c->n = c->nq + c->ncong + MLX5SP_DRV_NR;
	c->set_id = 0;
	c->enabled = false;
	if (!MLX5SP_CAP_GEN(dev, max_qp_cnt))
		return 0;		/* no Q counters: they read 0 */
	return alloc_q_counter(dev, &c->set_id);
}

void mlx5sp_counters_cleanup(struct mlx5sp_ib_dev *dev)
{
	if (dev->cnt.set_id && !mlx5sp_dev_dead(dev->mdev))
		dealloc_q_counter(dev, dev->cnt.set_id);
	dev->cnt.set_id = 0;
}

/* The set a QP names at RST2INIT: its bound counter's, or the port's. */
u32 mlx5sp_counter_set_id(struct mlx5sp_ib_dev *dev, struct ib_qp *ibqp)
{
	return ibqp->counter ? ibqp->counter->id : dev->cnt.set_id;
}

/* Any context. */
void mlx5sp_count(struct mlx5sp_ib_dev *dev, enum mlx5sp_drv_cnt which,
		  u32 n)
{
	if (which < MLX5SP_DRV_NR)
		atomic64_add(n, &dev->cnt.drv[which]);
}

static struct rdma_hw_stats *alloc_hw_port_stats(struct ib_device *ibdev,
						 u32 port)
{
	struct mlx5sp_counters *c = &to_ibdev(ibdev)->cnt;

	return rdma_alloc_hw_stats_struct(c->descs, c->n,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			u32 port, int index)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibdev);
	struct mlx5sp_counters *c = &dev->cnt;
	int err;
	u32 i;

	if (port != MLX5SP_IB_PORT || stats->num_counters != c->n)
		return -EINVAL;
	if (!READ_ONCE(c->enabled)) {
		for (i = 0; i < c->nq + c->ncong; i++)
			stats->value[i] = 0;
		goto drv;
	}
	if (c->set_id) {
		err = query_q_counter(dev, c->set_id, stats);
		if (err)
			return err;
	}
	if (c->ncong) {
		err = query_cong_counters(dev, stats);
		if (err)
			return err;
	}
drv:
	for (i = 0; i < MLX5SP_DRV_NR; i++)
		stats->value[c->nq + c->ncong + i] = atomic64_read(&c->drv[i]);
	return c->n;
}

/* Before ib_core adds its clients: from now on reads ask the device. */
static int counters_enable(struct ib_device *ibdev)
{
	WRITE_ONCE(to_ibdev(ibdev)->cnt.enabled, true);
	return 0;
}

/* A counter of its own (auto or manual mode): the same list, Q part only. */
static struct rdma_hw_stats *counter_alloc_stats(struct rdma_counter *counter)
{
	return alloc_hw_port_stats(counter->device, counter->port);
}

static int counter_update_stats(struct rdma_counter *counter)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(counter->device);

	if (!counter->id)
		return 0;
	return query_q_counter(dev, counter->id, counter->stats);
}

/* Under counter->lock (ib_core). */
static int counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(qp->device);
	bool new = false;
	int err;

	if (!counter->id) {
		err = alloc_q_counter(dev, &counter->id);
		if (err)
			return err;
		new = true;
	}
	err = mlx5sp_qp_set_counter(qp, counter);
	if (err)
		goto err_dealloc;
	return 0;

err_dealloc:
	if (new) {
		dealloc_q_counter(dev, counter->id);
		counter->id = 0;
	}
	return err;
}

static int counter_unbind_qp(struct ib_qp *qp)
{
	return mlx5sp_qp_set_counter(qp, NULL);
}

static int counter_dealloc(struct rdma_counter *counter)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(counter->device);
	int err = 0;

	if (counter->id && !mlx5sp_dev_dead(dev->mdev))
		err = dealloc_q_counter(dev, counter->id);
	counter->id = 0;
	return err;
}

const struct ib_device_ops mlx5sp_counter_ops = {
	.alloc_hw_port_stats = alloc_hw_port_stats,
	.get_hw_stats = get_hw_stats,
	.counter_alloc_stats = counter_alloc_stats,
	.counter_bind_qp = counter_bind_qp,
	.counter_dealloc = counter_dealloc,
	.counter_unbind_qp = counter_unbind_qp,
	.counter_update_stats = counter_update_stats,
	.enable_driver = counters_enable,
};
