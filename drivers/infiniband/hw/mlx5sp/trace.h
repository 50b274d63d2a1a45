/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mlx5sp's trace events (tracefs events/mlx5sp/): what an operator asks
 * of a card and its driver when storage I/O fails or stalls: each firmware
 * command with its status and duration, QP state changes, error CQEs of
 * kernel queues, signature errors and asynchronous events.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mlx5sp

#if !defined(MLX5SP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MLX5SP_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

TRACE_EVENT(mlx5sp_cmd,
	TP_PROTO(const char *dev, const char *name, u16 opcode, u16 op_mod,
		 u8 status, u32 syndrome, int err, u64 ns),
	TP_ARGS(dev, name, opcode, op_mod, status, syndrome, err, ns),
	TP_STRUCT__entry(
		__string(dev, dev)
		__string(name, name)
		__field(u16, opcode)
		__field(u16, op_mod)
		__field(u8, status)
		__field(u32, syndrome)
		__field(int, err)
		__field(u64, ns)
	),
	TP_fast_assign(
		__assign_str(dev);
		__assign_str(name);
		__entry->opcode = opcode;
		__entry->op_mod = op_mod;
		__entry->status = status;
		__entry->syndrome = syndrome;
		__entry->err = err;
		__entry->ns = ns;
	),
	TP_printk("%s %s(0x%x) op_mod 0x%x status 0x%x syndrome 0x%x err %d %llu us",
		  __get_str(dev), __get_str(name), __entry->opcode,
		  __entry->op_mod, __entry->status, __entry->syndrome,
		  __entry->err, __entry->ns / 1000)
);

#define mlx5sp_show_qp_state(state)					\
	__print_symbolic(state, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

TRACE_EVENT(mlx5sp_qp_modify,
	TP_PROTO(const char *dev, u32 qpn, int cur, int new, int err),
	TP_ARGS(dev, qpn, cur, new, err),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(int, cur)
		__field(int, new)
		__field(int, err)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->qpn = qpn;
		__entry->cur = cur;
		__entry->new = new;
		__entry->err = err;
	),
	TP_printk("%s qpn 0x%x %s -> %s err %d", __get_str(dev), __entry->qpn,
		  mlx5sp_show_qp_state(__entry->cur),
		  mlx5sp_show_qp_state(__entry->new),
		  __entry->err)
);

TRACE_EVENT(mlx5sp_cqe_err,
	TP_PROTO(const char *dev, u32 cqn, u32 qpn, u8 syndrome, u8 vendor,
		 u16 wqe_counter, int status),
	TP_ARGS(dev, cqn, qpn, syndrome, vendor, wqe_counter, status),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, cqn)
		__field(u32, qpn)
		__field(u8, syndrome)
		__field(u8, vendor)
		__field(u16, wqe_counter)
		__field(int, status)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->cqn = cqn;
		__entry->qpn = qpn;
		__entry->syndrome = syndrome;
		__entry->vendor = vendor;
		__entry->wqe_counter = wqe_counter;
		__entry->status = status;
	),
	TP_printk("%s cqn 0x%x qpn 0x%x syndrome 0x%x vendor 0x%x wqe %u status %d",
		  __get_str(dev), __entry->cqn, __entry->qpn, __entry->syndrome,
		  __entry->vendor, __entry->wqe_counter, __entry->status)
);

TRACE_EVENT(mlx5sp_sig_err,
	TP_PROTO(const char *dev, u32 key, int type, u32 expected, u32 actual,
		 u64 offset),
	TP_ARGS(dev, key, type, expected, actual, offset),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, key)
		__field(int, type)
		__field(u32, expected)
		__field(u32, actual)
		__field(u64, offset)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->key = key;
		__entry->type = type;
		__entry->expected = expected;
		__entry->actual = actual;
		__entry->offset = offset;
	),
	TP_printk("%s key 0x%x %s expected 0x%x actual 0x%x at byte %llu",
		  __get_str(dev), __entry->key,
		  __print_symbolic(__entry->type, { IB_SIG_BAD_GUARD, "guard" },
				   { IB_SIG_BAD_REFTAG, "reftag" },
				   { IB_SIG_BAD_APPTAG, "apptag" }),
		  __entry->expected, __entry->actual, __entry->offset)
);

/* mlx5sp_qp_cancel_send_wrs(): a ULP's WRs made NOPs in a stopped SQ */
TRACE_EVENT(mlx5sp_cancel,
	TP_PROTO(const char *dev, u32 qpn, u64 wr_id, int n),
	TP_ARGS(dev, qpn, wr_id, n),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(u64, wr_id)
		__field(int, n)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->qpn = qpn;
		__entry->wr_id = wr_id;
		__entry->n = n;
	),
	TP_printk("%s qpn 0x%x wr_id 0x%llx cancelled %d", __get_str(dev),
		  __entry->qpn, __entry->wr_id, __entry->n)
);

TRACE_EVENT(mlx5sp_event,
	TP_PROTO(const char *dev, u8 type, u8 sub_type, u32 rsn),
	TP_ARGS(dev, type, sub_type, rsn),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u8, type)
		__field(u8, sub_type)
		__field(u32, rsn)
	),
	TP_fast_assign(
		__assign_str(dev);
		__entry->type = type;
		__entry->sub_type = sub_type;
		__entry->rsn = rsn;
	),
	TP_printk("%s type 0x%x sub_type 0x%x resource 0x%x", __get_str(dev),
		  __entry->type, __entry->sub_type, __entry->rsn)
);

#endif /* MLX5SP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
