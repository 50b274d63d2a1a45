#!/bin/bash
# budget: 120
# Hardware counters and resource views through the standard tools, on a
# model device: `rdma statistic show link` lists mlx5_ib's Q counters and
# the driver's signature pipelining counters; with `rdma statistic qp set
# ... auto type on` a known workload of user RC QPs (counters.py, pyverbs)
# moves the QPs' own counter and the port's by exactly what it did (RDMA
# WRITE/READ/atomic requests received, a remote access error, a local
# length error, the flushes after them), `rdma resource show qp|cq|mr -dd`
# and `rdma -r resource show qp` show the driver's fields and the firmware
# context; the example read target's 4 bad-PI READs raise 4 SQ_DRAINED
# events, counted as sq_drained.
. "$(dirname "$(readlink -f "$0")")/../lib.bash"
# shellcheck source=tests/integration/ulp.bash
. "$(dirname "$(readlink -f "$0")")/../ulp.bash"

top=$MLX5SP_TOP
dev=cx0

load
mark counters
ip link add cxd0 type dummy
ip link set cxd0 up
# the bring-up's firmware commands in the trace (mlx5sp:mlx5sp_cmd), in
# the order a ConnectX needs them, each answered with status 0 (the event
# on while no device exists, off after the delete: trace_on says why)
trace_on mlx5sp_cmd
rdma link add $dev type mlx5sp netdev cxd0 || die "rdma link add $dev"
wait_gid $dev
seq=$(sed -n 's/.*mlx5sp_cmd: [^ ]* \([A-Z_0-9]*\)(0x[0-9a-f]*) op_mod 0x[0-9a-f]* status 0x0 syndrome 0x0 err 0 .*/\1/p' \
	"$tracefs/trace" | awk '!seen[$0]++' | tr '\n' ' ')
for op in ENABLE_HCA QUERY_HCA_CAP MANAGE_PAGES INIT_HCA CREATE_EQ ALLOC_Q_COUNTER; do
	[[ " $seq" == *" $op "* ]] || { tail -n 30 "$tracefs/trace"; die "bring-up trace: no $op (saw: $seq)"; }
done
[[ $seq =~ ENABLE_HCA.*QUERY_HCA_CAP.*INIT_HCA.*CREATE_EQ.*ALLOC_Q_COUNTER ]] ||
	die "bring-up trace: commands out of order: $seq"
ok "trace mlx5sp:mlx5sp_cmd of rdma link add: $(grep -c 'mlx5sp_cmd:' "$tracefs/trace") commands, $seq"

out=$(rdma statistic show link $dev/1) || die "rdma statistic show link"
echo "$out"
for c in rx_write_requests rx_read_requests rx_atomic_requests out_of_buffer \
	 out_of_sequence duplicate_request rnr_nak_retry_err packet_seq_err \
	 implied_nak_seq_err local_ack_timeout_err resp_local_length_error \
	 resp_cqe_error req_cqe_error req_remote_invalid_request \
	 req_remote_access_errors resp_remote_access_errors \
	 resp_cqe_flush_error req_cqe_flush_error \
	 req_transport_retries_exceeded req_rnr_retries_exceeded \
	 sig_err_guard sig_err_reftag sig_err_apptag sq_drained wqes_cancelled; do
	echo "$out" | grep -qw "$c" || die "rdma statistic show link: no $c"
	[ -e /sys/class/infiniband/$dev/ports/1/hw_counters/$c ] ||
		die "no hw_counters/$c in sysfs"
done
ok "rdma statistic show link and sysfs hw_counters: mlx5_ib's Q counters and the driver's"

rdma statistic qp set link $dev/1 auto type on || die "auto mode"
rdma statistic qp mode link $dev/1 | grep -q "auto type on" ||
	die "auto mode not on: $(rdma statistic qp mode link $dev/1)"
ok "rdma statistic qp set link $dev/1 auto type on"

rc=0
timeout 300 /usr/bin/python3 "$top/tests/integration/counters.py" $dev 1 >/tmp/counters.out 2>&1 || rc=$?
cat /tmp/counters.out
[ $rc = 0 ] || die "counters.py: status $rc"
checks=$((checks + $(grep -c '^ok ' /tmp/counters.out)))

# Signature pipelining from user space: the example read target, 12 READs
# with bad PI in 4. Each stops the send queue: 4 SQ_DRAINED events reach
# the driver. The SIGERR CQEs and the cancels are the process's own (user
# CQ, libmlx5 rewriting its WQEs): the driver never sees them, and its
# counters of them stay.
rt=$(read_target_prog)
declare -A before
for c in sq_drained sig_err_guard sig_err_reftag sig_err_apptag wqes_cancelled; do
	before[$c]=$(link_stat $dev $c)
done
out=$(timeout 100 "$rt" -d $dev -n 12 -b 4 -c guard:1 -c apptag:4 -c reftag:5 \
	-c guard:11 2>&1) || { echo "$out"; die "mlx5sp-read-target failed"; }
echo "$out" | grep -q "12 READs, 4 signature errors, 0 mismatches" ||
	{ echo "$out"; die "mlx5sp-read-target: not 4 signature errors"; }
d=$(($(link_stat $dev sq_drained) - ${before[sq_drained]}))
[ $d = 4 ] || die "sq_drained moved by $d, expected 4"
for c in sig_err_guard sig_err_reftag sig_err_apptag wqes_cancelled; do
	[ "$(link_stat $dev $c)" = "${before[$c]}" ] || die "$c moved on user-space events"
done
ok "read target, 4 bad-PI READs: sq_drained +4 (user-space SIGERR CQEs and cancels not the driver's)"

rdma statistic qp set link $dev/1 auto off || die "auto off"
if log_since counters | grep -E "Q_COUNTER|RTS2RTS_QP|QUERY_(QP|CQ|MKEY)" | grep -q failed; then
	log_since counters | grep failed
	die "a counter or query command failed"
fi
ok "no counter or query command failed"

timeout 60 rdma link delete $dev || die "rdma link delete $dev"
trace_off
ip link del cxd0
unload
echo "46-counters: $checks checks passed"
