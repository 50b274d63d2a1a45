#!/bin/bash
# budget: 660
# A requester whose peer went away (issue 48): one transport timing on
# every path, as on a ConnectX. tests/userspace/peer_gone.c moves the
# peer QP to ERR or RESET, destroys it or deletes its device, and times
# the requester's next SEND to IBV_WC_RETRY_EXC_ERR against the IBTA's
# window ((retry_cnt + 1) local ACK timeouts of 4.096 us << timeout, x1
# to x4), RNR NAKs to IBV_WC_RNR_RETRY_EXC_ERR (rnr_retry timers of
# min_rnr_timer at least), rnr_retry 7 and timeout 0 infinite: on one
# model device, between two of this kernel, and on the wire against rxe;
# small timeouts, and rdma_cm's 18 / 7 (8.6 to 34 s) on one device only.
# The table is in the log ("row" lines).
# tests/userspace/cm_stop.c is the storage client that stops with
# requests outstanding (a STOP SEND, its QP to ERR 1 ms later,
# rdma_disconnect) against a target that dies on any error completion
# and ends by its own 4 s alarm: it must outlive the client, as on a card
# (its writes to the client's QP in ERR fail after 8.6 s, not before).
# CM_STOP_RUNS runs (3) with 8 and with 32 requests in flight, on one
# device and between two, CM_STOP_PAR (3) at a time; make stress: 500
# each, 1,000 a topology.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/ulp.bash
. "$(dirname "$(readlink -f "$0")")/ulp.bash"
# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

# a row past its window's end on a busy host passes marked late, up to
# 3 times that end (peer_gone.c); early always fails
export PEER_GONE_LATE=${PEER_GONE_LATE:-3}
runs=${CM_STOP_RUNS:-3}
par=${CM_STOP_PAR:-3}
[ "$par" -le "$runs" ] || par=$runs
pg=$(test_prog peer_gone)
cmstop=$(test_prog cm_stop -lrdmacm)

# peer_gone PATH ARGS...: the program, its table kept for the summary
table=$work/table
peer_gone() {
	local rc=0 out=$work/pg.$1
	timeout 300 "$pg" "$@" >"$out" 2>&1 || rc=$?
	cat "$out"
	grep '^row ' "$out" | sed 1d >>"$table" || true
	[ $rc = 0 ] || die "peer_gone $1: status $rc"
	ok "peer_gone $1: $(grep -c '^PASS' "$out") checks, every completion within its window"
}

# shellcheck disable=SC2119 # no module parameters
load
loaded=1
modprobe -q rdma_ucm 2>/dev/null || true
mark peer-gone
sp_link pg0 pgd0 10.78.0.1/24
sp_link pg1 pgd1 10.78.1.1/24
two_ports pgd0 10.78.0.1 pgd1 10.78.1.1
g0=$(gid_index pg0 10.78.0.1)
g1=$(gid_index pg1 10.78.1.1)

# the client that stops, and the target that must live to its alarm
for ends in "10.78.0.1 10.78.0.1 one-device" "10.78.1.1 10.78.0.1 two-devices"; do
	# shellcheck disable=SC2086 # words
	set -- $ends
	for q in 8 32; do
		t0=$(date +%s)
		rc=0
		timeout $((120 + 15 * runs / par)) "$cmstop" "$1" "$2" "$runs" "$q" "$par" \
			>"$work/cm" 2>&1 || rc=$?
		grep -v "lived to its alarm" "$work/cm" || true
		[ $rc = 0 ] || die "cm_stop $3, $q in flight: status $rc"
		ok "cm_stop $3: $runs runs, $q requests in flight, the client stopping: no target death ($(($(date +%s) - t0)) s)"
	done
done

peer_gone one-device pg0 "$g0" pg0 "$g0" \
	err:12:3 reset:13:2 destroy:14:1 rnr:20:3 rnr:18:0 rnrinf:14 inf:0 \
	err:18:7
peer_gone two-devices pg0 "$g0" pg1 "$g1" \
	err:12:3 reset:13:2 destroy:14:1 rnr:20:3 \
	"devdel:13:2:rdma link delete pg1"
rdma link delete pg0 || die "rdma link delete pg0"
ip link del pgd1
ip link del pgd0
unload
loaded=

# the wire: sp0 in netns sp, rxe0 (wire.bash); rxe lets no device go
# with a user context open: devdel-closed closes it first. Not in the
# short form (the debug kernel): 56-wire-loss times the wire's retries
# there.
if ! wire_short; then
	wire_setup peer-gone-wire
	peer_gone wire sp0 "$gs" rxe0 "$gr" \
		err:12:3 reset:13:2 destroy:14:1 \
		"devdel-closed:13:1:rdma link delete rxe0"
	wire_done
fi

echo "peer-gone: what the requester saw, and when (ms)"
printf '%-11s %-14s %7s %9s %9s %9s %11s %11s %11s  %s\n' path peer timeout \
	retry_cnt rnr_retry rnr_timer min_ms max_ms measured completion
sed 's/^row //' "$table"
echo "61-peer-gone: $checks checks passed"
