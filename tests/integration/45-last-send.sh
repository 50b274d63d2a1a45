#!/bin/bash
# budget: 540
# The last message before a shutdown (issue 15). A ConnectX executes every
# WQE whose doorbell rang before a firmware command takes the QP out of
# RTS, and programs rely on it. tests/userspace/last_send.c posts SENDs
# from a user QP (doorbell record, then a doorbell store: libmlx5 writes
# BlueFlame only on a write-combining UAR, which a model's is not) and
# at once moves the QP to ERR, SQD or RESET or destroys it: every message
# must reach the peer, 200 rounds of each (20 on the debug kernel), in
# loopback on one model device and between two, on each way a user
# doorbell reaches a model device: the store executed in the UAR fault
# (the default: the QP runs in the posting process), the page mapped by
# the fault with the engine told (debugfs uar_store 0: the engine or the
# command's catch-up finds the WQEs) and the page mapped with the engine
# polling (uar_trap 0); the sender's counters show which one ran.
# tests/userspace/cm_shutdown.c is the storage initiator's shutdown over
# rdma_cm: 32 SENDs, the QP to ERR at once, rdma_disconnect;
# the target must get all of them, 10 runs in loopback and 10 between the
# two devices (3 and 3 on the debug kernel). LAST_SEND_ROUNDS and CM_RUNS
# override both counts (make stress: 200 runs of each); CM_READS (16, 0
# before session 35) puts that many RDMA READs in flight ahead of the
# last SENDs.
# tests/userspace/cm_sig_shutdown.c is the same shutdown against a
# signature-pipelining target (libmlx5sp): READ commands through
# signature MKEYs, bad PI in a quarter of them (the QP stops in SQD, the
# good responses are canceled, SQD -> RTS, bad responses sent), then 8
# RDMA READs in flight and the last 16 SENDs, ERR and disconnect at once;
# CM_RUNS runs of it too.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/ulp.bash
. "$(dirname "$(readlink -f "$0")")/ulp.bash"

# The debug kernel (KASAN, lockdep) runs a tenth of the rounds: the same
# paths, in the time make test has.
rounds=200 runs=10
[ "${MLX5SP_KERNEL:-}" = debug ] && rounds=20 runs=3
# make stress (scripts/stress): 200 shutdowns in a row over rdma_cm
rounds=${LAST_SEND_ROUNDS:-$rounds} runs=${CM_RUNS:-$runs}
# and CM_READS (16) READs in flight ahead of them
reads=${CM_READS:-16}
prog=$(test_prog last_send)
cm=$(test_prog cm_shutdown -lrdmacm)
cmsig=$(test_prog cm_sig_shutdown -I"$MLX5SP_TOP/userspace/include" \
	"$MLX5SP_TOP/userspace/lib/pipeline.c" -lrdmacm)
# shellcheck disable=SC2119 # no module parameters
load
# rdma_cm's user access: a module on the stock kernel, built in on debug
modprobe -q rdma_ucm 2>/dev/null || true
mark last-send
sp_link ls0 spd0 10.77.0.1/24
sp_link ls1 spd1 10.77.1.1/24
two_ports spd0 10.77.0.1 spd1 10.77.1.1
wait_gid ls0
wait_gid ls1

# the doorbell path: debugfs uar_store and uar_trap of both devices
set_path() {
	local d
	for d in ls0 ls1; do
		echo "$1" >"$simfs/$d/uar_store"
		echo "$2" >"$simfs/$d/uar_trap"
	done
}
for path in "store 1 1" "trap 0 1" "poll 0 0"; do
	# shellcheck disable=SC2086 # words
	set -- $path
	set_path "$2" "$3"
	# the sender's (ls0's) counters
	s0=$(stat ls0 uar_stores) t0=$(stat ls0 uar_touches)
	for pair in "ls0 ls0" "ls0 ls1"; do
		t=$(date +%s)
		rc=0
		# shellcheck disable=SC2086
		timeout 600 "$prog" $pair $rounds || rc=$?
		[ $rc = 0 ] || die "last_send $pair, doorbells by $1: status $rc"
		ok "last_send $pair, doorbells by $1: 4 x $rounds rounds, every message received ($(($(date +%s) - t)) s)"
	done
	s1=$(stat ls0 uar_stores) t1=$(stat ls0 uar_touches)
	echo "doorbells by $1: $((s1 - s0)) stores executed in the fault, $((t1 - t0)) faults that mapped the page"
	# every round rings at least once: 2 pairs x 4 cases x rounds
	case $1 in
	store) [ $((s1 - s0)) -ge $((8 * rounds)) ] && [ $((t1 - t0)) -le 10 ] ;;
	trap) [ $((s1 - s0)) = 0 ] && [ $((t1 - t0)) -ge 1 ] ;;
	poll) [ $((s1 - s0)) = 0 ] && [ $((t1 - t0)) -le 10 ] ;;
	esac || die "doorbells by $1: not the path asked for"
	ok "doorbells by $1: the path taken"
done
set_path 1 1

for ends in "10.77.0.1 10.77.0.1 loopback" "10.77.1.1 10.77.0.1 two-devices"; do
	# shellcheck disable=SC2086 # words
	set -- $ends
	t0=$(date +%s)
	rc=0
	timeout $((300 + 5 * runs)) "$cm" "$1" "$2" "$runs" 32 "$reads" || rc=$?
	[ $rc = 0 ] || die "cm_shutdown $3: status $rc"
	ok "cm_shutdown $3: $runs runs in a row, $reads READs in flight, the target got every message ($(($(date +%s) - t0)) s)"
	t0=$(date +%s)
	rc=0
	timeout $((300 + 10 * runs)) "$cmsig" "$1" "$2" "$runs" 16 8 || rc=$?
	[ $rc = 0 ] || die "cm_sig_shutdown $3: status $rc"
	ok "cm_sig_shutdown $3: $runs runs in a row, signature errors, cancels and SQD -> RTS, then 8 READs in flight and the last 16 SENDs: the target got every message ($(($(date +%s) - t0)) s)"
done

rdma link delete ls1 || die "rdma link delete ls1 failed"
rdma link delete ls0 || die "rdma link delete ls0 failed"
ip link del spd1
ip link del spd0
unload
echo "45-last-send: $checks checks passed"
