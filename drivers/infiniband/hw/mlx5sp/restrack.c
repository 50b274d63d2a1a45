// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * `rdma resource show qp|cq|mr -dd`: what the device says of the object,
 * beside what ib_core fills in. The details come from the firmware's
 * query commands (QUERY_QP, QUERY_CQ, QUERY_MKEY), so they show the QP's
 * state as the hardware has it (a QP a signature error stopped is in SQD
 * while the driver last moved it to RTS), its WQE counters, the Q counter
 * set it counts into, a CQ's producer and consumer counters and EQ. The
 * raw variants (`rdma resource show qp -r`) put the command's whole output
 * (status and syndrome, then the context, big-endian) in the message.
 *
 * ib_core calls these holding a reference on the object, no lock.
 */
#include <rdma/restrack.h>

#include "ib.h"

/* The output of a QUERY_* command; the caller frees *out. */
static int query_obj(struct mlx5sp_ib_dev *dev, const void *in, int inlen,
		     int outlen, void **out)
{
	int err;

	*out = kzalloc(outlen, GFP_KERNEL);
	if (!*out)
		return -ENOMEM;
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, *out, outlen);
	if (err) {
		kfree(*out);
		*out = NULL;
	}
	return err;
}

/* QUERY_QP up to the context: no page list comes back. */
#define QP_OUTLEN	MLX5_BYTE_OFF(query_qp_out, qp_pas_or_qpc_ext_and_pas)

static int query_qp(struct ib_qp *ibqp, void **out)
{
	return mlx5sp_cmd_query_qp(to_ibdev(ibqp->device)->mdev,
				   to_qp(ibqp)->mqp.qpn, QP_OUTLEN, out);
}

static int query_cq(struct ib_cq *ibcq, void **out)
{
	u32 in[MLX5_ST_SZ_DW(query_cq_in)] = {};

	MLX5_SET(query_cq_in, in, opcode, MLX5_CMD_OP_QUERY_CQ);
	MLX5_SET(query_cq_in, in, cqn, to_cq(ibcq)->mcq.cqn);
	return query_obj(to_ibdev(ibcq->device), in, sizeof(in),
			 MLX5_ST_SZ_BYTES(query_cq_out), out);
}

static int query_mkey(struct ib_mr *ibmr, void **out)
{
	u32 in[MLX5_ST_SZ_DW(query_mkey_in)] = {};

	MLX5_SET(query_mkey_in, in, opcode, MLX5_CMD_OP_QUERY_MKEY);
	MLX5_SET(query_mkey_in, in, mkey_index, to_mr(ibmr)->mkey >> 8);
	return query_obj(to_ibdev(ibmr->device), in, sizeof(in),
			 MLX5_ST_SZ_BYTES(query_mkey_out), out);
}

static int put_raw(struct sk_buff *msg, int err, void *out, int outlen)
{
	if (!err)
		err = nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, outlen, out);
	kfree(out);
	return err;
}

static int fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	void *out;
	int err = query_qp(ibqp, &out);

	return put_raw(msg, err, out, QP_OUTLEN);
}

static int fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq)
{
	void *out;
	int err = query_cq(ibcq, &out);

	return put_raw(msg, err, out, MLX5_ST_SZ_BYTES(query_cq_out));
}

static int fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr)
{
	void *out;
	int err = query_mkey(ibmr, &out);

	return put_raw(msg, err, out, MLX5_ST_SZ_BYTES(query_mkey_out));
}

/*
 * The driver's table of an entry from the context at @ctx_off of a query's
 * output @out, which it frees. @put fills it from the object and context.
 */
static int put_driver_table(struct sk_buff *msg,
			    int (*put)(struct sk_buff *msg, void *obj,
				       const void *ctx),
			    void *obj, void *out, size_t ctx_off)
{
	struct nlattr *table;
	int err = -EMSGSIZE;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (table) {
		err = put(msg, obj, out + ctx_off);
		if (err)
			nla_nest_cancel(msg, table);
		else
			nla_nest_end(msg, table);
	}
	kfree(out);
	return err;
}

static int put_qp(struct sk_buff *msg, void *obj, const void *qpc)
{
	struct mlx5sp_qp *qp = obj;

	if (rdma_nl_put_driver_u32_hex(msg, "hw_qpn", qp->mqp.qpn) ||
	    rdma_nl_put_driver_string(msg, "hw_state",
				      mlx5_qp_state_str(MLX5_GET(qpc, qpc, state))) ||
	    rdma_nl_put_driver_u32(msg, "counter_set_id",
				   MLX5_GET(qpc, qpc, counter_set_id)) ||
	    rdma_nl_put_driver_u32(msg, "hw_sq_wqebb_counter",
				   MLX5_GET(qpc, qpc, hw_sq_wqebb_counter)) ||
	    rdma_nl_put_driver_u32(msg, "sw_sq_wqebb_counter",
				   MLX5_GET(qpc, qpc, sw_sq_wqebb_counter)) ||
	    rdma_nl_put_driver_u32(msg, "hw_rq_counter",
				   MLX5_GET(qpc, qpc, hw_rq_counter)) ||
	    rdma_nl_put_driver_u32(msg, "sw_rq_counter",
				   MLX5_GET(qpc, qpc, sw_rq_counter)) ||
	    rdma_nl_put_driver_u32(msg, "drain_sigerr",
				   MLX5_GET(qpc, qpc, drain_sigerr)))
		return -EMSGSIZE;
	return 0;
}

/*
 * A failed query (the object going away under a dump) leaves the entry
 * with what ib_core filled in: the dump goes on.
 */
static int fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	void *out;

	if (query_qp(ibqp, &out))
		return 0;
	return put_driver_table(msg, put_qp, to_qp(ibqp), out,
				MLX5_BYTE_OFF(query_qp_out, qpc));
}

static int put_cq(struct sk_buff *msg, void *obj, const void *cqc)
{
	struct mlx5sp_cq *cq = obj;

	if (rdma_nl_put_driver_u32_hex(msg, "hw_cqn", cq->mcq.cqn) ||
	    rdma_nl_put_driver_u32(msg, "eqn",
				   MLX5_GET(cqc, cqc, c_eqn_or_apu_element)) ||
	    rdma_nl_put_driver_u32(msg, "log_cq_size",
				   MLX5_GET(cqc, cqc, log_cq_size)) ||
	    rdma_nl_put_driver_string(msg, "cq_status",
				      MLX5_GET(cqc, cqc, status) ? "overflow" :
				      "ok") ||
	    rdma_nl_put_driver_u32(msg, "producer_counter",
				   MLX5_GET(cqc, cqc, producer_counter)) ||
	    rdma_nl_put_driver_u32(msg, "consumer_counter",
				   MLX5_GET(cqc, cqc, consumer_counter)) ||
	    rdma_nl_put_driver_u32(msg, "cq_period",
				   MLX5_GET(cqc, cqc, cq_period)) ||
	    rdma_nl_put_driver_u32(msg, "cq_max_count",
				   MLX5_GET(cqc, cqc, cq_max_count)))
		return -EMSGSIZE;
	if (cq->uid && rdma_nl_put_driver_u32(msg, "uid", cq->uid))
		return -EMSGSIZE;
	return 0;
}

static int fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	void *out;

	if (query_cq(ibcq, &out))
		return 0;
	return put_driver_table(msg, put_cq, to_cq(ibcq), out,
				MLX5_BYTE_OFF(query_cq_out, cq_context));
}

static const char *access_mode_str(u8 mode)
{
	switch (mode) {
	case MLX5_MKC_ACCESS_MODE_PA:	return "PA";
	case MLX5_MKC_ACCESS_MODE_MTT:	return "MTT";
	case MLX5_MKC_ACCESS_MODE_KLMS:	return "KLM";
	case MLX5_MKC_ACCESS_MODE_KSM:	return "KSM";
	default:			return "other";
	}
}

static int put_mr(struct sk_buff *msg, void *obj, const void *mkc)
{
	struct mlx5sp_mr *mr = obj;
	u8 mode = MLX5_GET(mkc, mkc, access_mode_1_0) |
		  MLX5_GET(mkc, mkc, access_mode_4_2) << 2;

	if (rdma_nl_put_driver_u32_hex(msg, "mkey", mr->mkey) ||
	    rdma_nl_put_driver_string(msg, "access_mode",
				      access_mode_str(mode)) ||
	    rdma_nl_put_driver_u32(msg, "free", MLX5_GET(mkc, mkc, free)) ||
	    rdma_nl_put_driver_u32(msg, "umr_en", MLX5_GET(mkc, mkc, umr_en)) ||
	    rdma_nl_put_driver_u32(msg, "translations_octword_size",
				   MLX5_GET(mkc, mkc,
					    translations_octword_size)))
		return -EMSGSIZE;
	/* an integrity MR: its PSVs and the signature errors seen */
	if (mr->sig &&
	    (rdma_nl_put_driver_u32_hex(msg, "psv_mem", mr->sig->psv_mem) ||
	     rdma_nl_put_driver_u32_hex(msg, "psv_wire", mr->sig->psv_wire) ||
	     rdma_nl_put_driver_u32(msg, "sig_errors",
				    READ_ONCE(mr->sig->sigerr_count))))
		return -EMSGSIZE;
	return 0;
}

static int fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	void *out;

	if (query_mkey(ibmr, &out))
		return 0;
	return put_driver_table(msg, put_mr, to_mr(ibmr), out,
				MLX5_BYTE_OFF(query_mkey_out, memory_key_mkey_entry));
}

const struct ib_device_ops mlx5sp_restrack_ops = {
	.fill_res_cq_entry = fill_res_cq_entry,
	.fill_res_cq_entry_raw = fill_res_cq_entry_raw,
	.fill_res_mr_entry = fill_res_mr_entry,
	.fill_res_mr_entry_raw = fill_res_mr_entry_raw,
	.fill_res_qp_entry = fill_res_qp_entry,
	.fill_res_qp_entry_raw = fill_res_qp_entry_raw,
};
