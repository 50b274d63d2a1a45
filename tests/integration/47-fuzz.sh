#!/bin/bash
# budget: 240
# The uverbs/DEVX fuzzer (tests/userspace/fuzz_verbs.c), short form: 10^4
# seeded random calls (FUZZ_CALLS, FUZZ_SEED, FUZZ_PROCS override) from
# three processes, the last one unprivileged, over two contexts each, on a
# model device; then the device is removed and the modules unloaded with
# whatever the fuzzer left behind closed. A kernel report fails the VM run;
# a process that dies or hangs fails the test, with the seed, the call and
# a replay command (in the results, fuzz/replay.sh, with the last 20000
# calls of each process in fuzz/journal.P). Before it, --regress
# replays what earlier runs found (DEVX creates shorter than their layout).
# --connect 3 (FUZZ_ARGS overrides) takes QPs to RTS on themselves now and
# then, so that posted and raw WQEs execute: user doorbell stores run in
# the UAR fault and their QPs in the posting process (the "campaign:"
# line counts both).
# `make fuzz` is the long form. The program comes from `make userprogs`
# (.build/tests/fuzz_verbs); without it, it is built here into /var/tmp.
. "$(dirname "$(readlink -f "$0")")/lib.bash"

prog=$(test_prog fuzz_verbs)
calls=${FUZZ_CALLS:-10000}
seed=${FUZZ_SEED:-1}
procs=${FUZZ_PROCS:-3}
jdir=${MLX5SP_RESULTS:-/tmp}/fuzz
mkdir -p "$jdir"
# The journals are written in the guest's tmpfs and their tails copied to
# the results at the end: a write per call over 9p took more than half
# the run (3000 calls from 3 processes, debug kernel: 17.9 s against 7.6 s).
# A panic loses them; its console log and the seed remain. The unprivileged
# process journals here too.
jlocal=$(mktemp -d /tmp/fuzz-journal.XXXXXX)
chmod 0777 "$jlocal"
keep_journals() {
	local f

	for f in "$jlocal"/*; do
		[ -f "$f" ] || continue
		case "$f" in
		*/journal.*) tail -n 20000 "$f" > "$jdir/${f##*/}" ;;
		*) cp "$f" "$jdir/" ;;
		esac
	done
}

load
mark fuzz
ip link add fzdummy0 type dummy
ip link set fzdummy0 up
rdma link add fz0 type mlx5sp netdev fzdummy0 || die "rdma link add failed"
wait_gid fz0 0
# rdma-core's udev rules leave the uverbs files 0666; be sure of it here
chmod 0666 /dev/infiniband/uverbs* /dev/infiniband/rdma_cm 2>/dev/null || true

rc=0
# first what earlier runs found, replayed and checked
timeout 60 "$prog" fz0 --regress || rc=$?
[ $rc = 0 ] || die "fuzz_verbs --regress: status $rc"
timeout ${FUZZ_TIMEOUT:-900} "$prog" fz0 --seed "$seed" --calls "$calls" \
	--procs "$procs" --journal "$jlocal" ${FUZZ_ARGS---connect 3} || rc=$?
keep_journals
echo "campaign: fuzz doorbells: $(stat fz0 uar_stores) stores executed in the UAR fault, $(stat fz0 uar_touches) that mapped the page, $(stat fz0 inline_runs) SQ runs in the posting process"

rdma link delete fz0 || die "rdma link delete failed"
ip link del fzdummy0
unload
[ $rc = 0 ] || die "fuzz_verbs: status $rc (seed $seed; replay: $jdir/replay.sh)"
