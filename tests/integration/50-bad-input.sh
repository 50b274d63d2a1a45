#!/bin/bash
# budget: 120
# Malformed input from user space (tests/userspace/bad_input.c): WQEs
# written straight into the send queue through mlx5dv (bad opcode, bad ds,
# foreign or missing lkeys, lengths and rkey ranges beyond the MR, a
# doorbell record beyond the WQEs written) must give a ConnectX's error
# completions and leave the QP in ERR; bad verb arguments and raw uverbs
# commands must fail with mlx5_ib's errno; a fresh QP pair works after.
# The program comes from `make userprogs` (.build/tests/bad_input); without
# it, it is built here into /var/tmp.
. "$(dirname "$(readlink -f "$0")")/lib.bash"

prog=$(test_prog bad_input)

load
mark bad-input
ip link add bidummy0 type dummy
ip link set bidummy0 up
rdma link add m0 type mlx5sp netdev bidummy0 || die "rdma link add failed"
wait_gid m0 0

rc=0
timeout 100 "$prog" m0 || rc=$?
# ib_core's GET_CONTEXT leak, which the fuzzer found (fuzz_verbs
# --ctx-leak): on the stock kernel only, where no kmemleak fails the run
# on the tasks it leaks; 32 of them show in the task_struct slab.
if [ $rc = 0 ] && [ "${MLX5SP_KERNEL:-stock}" = stock ]; then
	timeout 60 "$(test_prog fuzz_verbs)" m0 --ctx-leak 32 || rc=$?
fi

rdma link delete m0 || die "rdma link delete failed"
ip link del bidummy0
unload
[ $rc = 0 ] || die "bad_input: status $rc"
