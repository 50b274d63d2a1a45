#!/bin/bash
# budget: 180
# Signature pipelining from user space on two model devices (a target and
# an initiator on their own dummy netdevs): tests/userspace/sig_pipeline.c
# walks mlx5dv_qp_cancel_posted_send_wrs(3)'s procedure with raw ibv/mlx5dv
# calls (SQ_DRAINED, mlx5dv_mkey_check, cancel, SQD->RTS, errors injected
# with sig_inject and written into memory, sig_runon 0/1/several, QP to ERR)
# and checks T10-DIF insert/strip in every block size; then libmlx5sp's
# example, mlx5sp-read-target, with good READs and with bad PI of each kind,
# and tests/userspace/pipe_heap.c: libmlx5sp's SQD procedure on a QP
# created over a heap holding an earlier QP's numbers (libmlx5's cancel
# walk reads its uninitialized wqe_head[]; issue 15), a deep and a small ring.
# The programs come from `make userprogs` / `make userspace` (.build/);
# without them, they are built here into /var/tmp.
. "$(dirname "$(readlink -f "$0")")/lib.bash"

top=$MLX5SP_TOP
prog=$(test_prog sig_pipeline)
rt=$(read_target_prog)
heap=$(test_prog pipe_heap -I"$top/userspace/include" "$top/userspace/lib/pipeline.c")

load
mark sig-pipeline
for i in 0 1; do
	ip link add spdummy$i type dummy
	ip link set spdummy$i up
	rdma link add sp$i type mlx5sp netdev spdummy$i || die "rdma link add sp$i failed"
done
wait_gid sp0
wait_gid sp1

rc=0
timeout 300 "$prog" sp0 sp1 || rc=$?
echo "sig_pipeline: status $rc"

rt_rc=0
echo "mlx5sp-read-target: 8 good READs"
timeout 100 "$rt" -d sp0 -n 8 -b 4 || rt_rc=1
echo "mlx5sp-read-target: 12 READs, bad PI in READs 1 (guard), 4 (apptag), 5 (reftag), 11 (guard)"
out=$(timeout 100 "$rt" -d sp0 -n 12 -b 4 -c guard:1 -c apptag:4 -c reftag:5 -c guard:11 2>&1) || rt_rc=1
echo "$out"
echo "$out" | grep -q "12 READs, 4 signature errors, 0 mismatches" || rt_rc=1
echo "mlx5sp-read-target: status $rt_rc"

heap_rc=0
timeout 60 "$heap" sp0 || heap_rc=1
timeout 60 "$heap" sp0 small || heap_rc=1
echo "pipe_heap: status $heap_rc"

for i in 0 1; do
	rdma link delete sp$i || die "rdma link delete sp$i failed"
	ip link del spdummy$i
done
unload
[ $rc = 0 ] || die "sig_pipeline: status $rc"
[ $rt_rc = 0 ] || die "mlx5sp-read-target failed"
[ $heap_rc = 0 ] || die "pipe_heap failed"
