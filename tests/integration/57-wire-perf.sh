#!/bin/bash
# RoCEv2 on the wire against rxe, with the connection managers and the
# benchmarks (issue 16, acceptance 1 and 3): the veth pair of
# 55-wire-rxe.sh (wire.bash: sp0 on vethA in netns sp, rxe0 on vethB).
# rping (rdma_cm: its CM MADs are GSI datagrams on the wire, then RC
# SENDs, RDMA READs and WRITEs), server on either side, WIRE_RPING (10)
# pings with their data checked (-V) and every one echoed (-v); perftest
# ib_send_bw, ib_write_bw, ib_read_bw (WIRE_PERF_BW (100) messages of
# 4 KiB) and ib_send_lat, ib_write_lat, ib_read_lat (WIRE_PERF_LAT (100)
# iterations of 64 bytes), their connection exchanged over TCP across the
# namespaces, each once with the server's side alternating
# (WIRE_PERF_FULL=1: each with the server on either side; WIRE_PERF_CM=1:
# ib_send_bw and ib_read_lat once more each way with -R, rdma_cm; see
# below why not by default); the READ tests with
# -o the smaller max_qp_rd_atom of the two. Each run: both ends exit 0
# within WIRE_PERF_TIMEOUT (120 s), the client prints its result line
# with the size and the iteration count asked for and a bandwidth above
# zero, or latencies with 0 < min <= typical, min <= average <= max
# (unless perftest says its clock calibration failed: then no numbers).
# 200 SENDs of one packet each into the model, rxe's packets released in
# bursts (netem slot): the model's ACKs coalesced (acks_coalesced).
# tshark captures vethB: no malformed packet, no expert error, every
# ICRC valid (wire.bash); the model's wire counters show no bad ICRC or
# header. WIRE_PERF_BASELINE=1: the same benchmarks from rxe0 to itself
# afterwards, for comparison.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

npings=${WIRE_RPING:-10}
nbw=${WIRE_PERF_BW:-100}
nlat=${WIRE_PERF_LAT:-100}
t=${WIRE_PERF_TIMEOUT:-120}

wire_debug_opt_in
wire_setup wire-perf
mod rdma_ucm || die "no rdma_ucm"
wire_capture_start

# perf PROG SERVER-SIDE ARGS...: one perftest run, server on SERVER-SIDE;
# -n and -s are in ARGS; -R in ARGS: rdma_cm
perf() {
	local prog=$1 side=$2 rc=0 spid cm=0 port line size iters a what
	shift 2
	what="$prog $* server on $side"
	wire_sides "$side"
	port=$((18600 + checks))
	for a in "$@"; do
		[ "$a" = -R ] && cm=1
	done
	size=$(echo " $* " | sed -n 's/.* -s \([0-9]*\) .*/\1/p')
	iters=$(echo " $* " | sed -n 's/.* -n \([0-9]*\) .*/\1/p')
	perf_tx0=$(wire_stat "$simfs/sp0/wire" tx_pkts)
	perf_co0=$(wire_stat "$simfs/sp0/wire" acks_coalesced)
	perf_dup0=$(wire_stat "$simfs/sp0/wire" dup_reqs)
	$sexec timeout "$t" "$prog" -d $sdev -x "$sg" -p $port -F "$@" >"$work/srv" 2>&1 &
	spid=$!
	wire_listening "$sexec" $port $cm || { cat "$work/srv"; die "$prog server on $side: not listening"; }
	$cexec timeout "$t" "$prog" -d $cdev -x "$cg" -p $port -F "$@" $srv >"$work/cli" 2>&1 || rc=$?
	wait $spid || { cat "$work/srv" "$work/cli"; die "$prog $* (server on $side): server failed"; }
	[ $rc = 0 ] || { cat "$work/srv" "$work/cli"; die "$prog $* (server on $side): client rc $rc"; }
	# the line under the "#bytes" header: bw: bytes iterations peak
	# average msgrate; lat: bytes iterations min max typical average ...
	line=$(awk '/^ *#bytes/ { getline; print; exit }' "$work/cli")
	# shellcheck disable=SC2086 # the fields
	set -- $line
	[ "${1:-}" = "$size" ] && [ "${2:-}" = "$iters" ] ||
		{ cat "$work/srv" "$work/cli"; die "$prog (server on $side): no result line for $size bytes x $iters"; }
	# perftest converts cycles to time with a CPU MHz it calibrates
	# against gettimeofday; under TCG on a loaded host that regression can
	# fall below r^2 0.9, and then perftest uses 0 MHz (get_clock.c): the
	# run is complete and checked, its numbers meaningless
	if grep -q "^Correlation coefficient r^2" "$work/cli"; then
		ok "$what: completed (no numbers: perftest's clock calibration failed)"
		return 0
	fi
	case $prog in
	*_bw)
		awk -v b="$4" 'BEGIN { exit !(b > 0) }' ||
			{ cat "$work/cli"; die "$prog (server on $side): bandwidth $4"; }
		ok "$what: $4 MB/s average ($5 Mpps)"
		;;
	*_lat)
		awk -v mn="$3" -v mx="$4" -v ty="$5" -v av="$6" \
			'BEGIN { exit !(mn > 0 && mn <= ty && mn <= av && av <= mx) }' ||
			{ cat "$work/cli"; die "$prog (server on $side): latencies $line"; }
		ok "$what: typical $5 us, average $6 us (min $3, max $4)"
		;;
	esac
}

# perftest's outstanding reads default to the local device's
# max_qp_rd_atom (rxe 128, mlx5sp 16 as ConnectX's log_max_ra_req_qp 4),
# and ib_read_lat's server asks its QP for the client's in max_rd_atomic:
# mlx5sp refuses more than 16 (qp.c, as mlx5_ib) and the server on sp0
# fails "Failed to modify QP to RTS"; -o the smaller of the two
o=$(wire_rd_atom rxe0 sp0)

# make test's short form: rping both ways, each perftest test once,
# the server's side alternating (send_bw, read_bw and write_lat with the
# server on the model, the others on rxe); WIRE_PERF_FULL=1: every test
# with the server on either side
full=${WIRE_PERF_FULL:-0}
for side in sp rxe; do
	wire_rping $side "$npings" "$t"
done
i=0
for p in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; do
	case $p in
	*_bw) args="-n $nbw -s 4096" ;;
	*) args="-n $nlat -s 64" ;;
	esac
	case $p in
	ib_read_*) args+=" -o $o" ;;
	esac
	if [ "$full" = 1 ]; then
		sidelist="sp rxe"
	elif [ $((i % 2)) = 0 ]; then
		sidelist=sp
	else
		sidelist=rxe
	fi
	i=$((i + 1))
	for side in $sidelist; do
		# shellcheck disable=SC2086 # the options
		perf $p $side $args
	done
done
# ACK coalescing: 200 SENDs of 1 KiB from rxe into the model, one packet
# each and each asking for an ACK, rxe's packets released in bursts
# (netem slot on vethB, as a switch's queue releases a stream), so the
# model's engine takes several in one batch whichever CPU it runs on.
# Fewer ACKs go out than SENDs came in (sp0 sends nothing else
# meanwhile), and sent plus coalesced (acks_coalesced) are exactly the
# ACKs asked for (one more for each duplicate, should a TCG stall outlast
# rxe's 67 ms ACK timeout).
mod sch_netem || die "no netem"
tc qdisc add dev vethB root netem slot 10ms 10ms || die "tc netem slot"
perf ib_send_bw sp -n 200 -s 1024
tc qdisc del dev vethB root
sent=$(($(wire_stat "$simfs/sp0/wire" tx_pkts) - perf_tx0))
co=$(($(wire_stat "$simfs/sp0/wire" acks_coalesced) - perf_co0))
dups=$(($(wire_stat "$simfs/sp0/wire" dup_reqs) - perf_dup0))
[ "$co" -gt 0 ] && [ "$sent" -lt 200 ] && [ $((sent + co)) = $((200 + dups)) ] ||
	die "ACK coalescing: 200 SENDs in ($dups duplicates), $sent ACKs out, $co coalesced"
ok "ACK coalescing: 200 SENDs in ($dups duplicates), $sent ACKs out, $co coalesced"

# WIRE_PERF_CM=1: perftest over rdma_cm as well. Off by default: one run
# in six (server on the model, host loaded by five VMs) the client, on
# rxe, died in librdmacm 44 (general protection fault reading a cm_id in
# its event handling, offset 0xa472) and the server saw
# RDMA_CM_EVENT_REJECTED; not understood yet. rping covers rdma_cm on
# the wire meanwhile.
if [ "${WIRE_PERF_CM:-0}" = 1 ]; then
	for side in sp rxe; do
		perf ib_send_bw $side -R -n $nbw -s 4096
		perf ib_read_lat $side -R -n $nlat -s 64 -o $o
	done
fi

wire_counters_zero

wire_capture_check $((nbw * 6))

# Messages beyond the 1 MiB a signature key's message is gathered in (the
# device says max_msg_sz 1 GiB, and perftest -a goes to 8 MiB): the
# model places them packet by packet as they come and reads a READ's
# responses from the key as they go. wire_retry stream: WIRE_BIG_N (2)
# SENDs of WIRE_BIG (4 MiB) each way, then as many WRITEs read back by
# READs each way (the model's second one fenced: it starts an empty
# window, gathered nowhere), every byte checked; wire_retry big-err,
# rxe requesting from the model: a SEND of that size into a receive of half
# (REM_INV_REQ_ERR / LOC_LEN_ERR), a WRITE past the end of the MR
# (REM_ACCESS_ERR, nothing written), a WRITE with immediate before the
# receive is posted (RNR NAKs on its last packet, then done once with
# its data; an SRQ's receive of the size and of half), wire_retry
# big-flush (below); ib_write_bw, ib_read_bw and ib_send_bw of that size, 5
# iterations (perftest's least), the server's side alternating. After
# the capture: its ICRC check would take minutes over these.
big=${WIRE_BIG:-4194304}
nbig=${WIRE_BIG_N:-2}
wire_prog stream sp0 "$gs" rxe0 "$gr" "$nbig" "$big"
ok "wire_retry stream: $nbig SENDs, WRITEs, READs of $big bytes each way"
wire_prog big-err rxe0 "$gr" sp0 "$gs" 1 "$big"
ok "wire_retry big-err: refused SEND and WRITE, WRITE with immediate after RNR, $big bytes"
# wire_retry big-flush: the model's QP, on an SRQ, moved to ERR while a
# SEND of that size comes in (rxe's packets slowed to 20 Mbit/s: some
# 1.7 s for 4 MiB): the SRQ receive its first packet took is flushed
tc qdisc add dev vethB root netem rate 20mbit || die "tc netem rate"
wire_prog big-flush rxe0 "$gr" sp0 "$gs" 1 "$big"
tc qdisc del dev vethB root
ok "wire_retry big-flush: the SRQ receive a SEND in progress took is flushed with its QP"
perf ib_write_bw sp -n 5 -s "$big"
perf ib_read_bw rxe -n 5 -s "$big" -o $o
perf ib_send_bw sp -n 5 -s "$big"
wire_counters_zero

# Messages through a signature key beyond the 1 MiB buffer they are made
# in (iSER with max_sectors 2048 and T10-PI puts 1 MiB and 16 KiB on the
# wire for a 1 MiB I/O; mlx5dv applications any size; nvmet-rdma keeps
# PI I/O to 128 KiB): the model makes them a chunk at a time, cut at
# block boundaries. wire_retry sig: WRITEs from the model's T10-DIF blocks
# through its signature MKEY (PI checked and stripped), READs into them
# (PI inserted); sig-remote: rxe reads and writes through the model's
# MKEY as an rkey (the responder's side); uc-sig: a UC WRITE with
# immediate out of the MKEY and a SEND into a receive through it (kept
# under the 2048 frames the model queues: UC has no retransmission);
# a size that is not a multiple of the chunk; then under loss: every
# message once, right (the retransmissions make their chunks again from
# the key's memory, a READ asks for the rest from where its responses
# stopped).
wire_prog sig sp0 "$gs" rxe0 "$gr" 2 "$big"
wire_prog sig-remote sp0 "$gs" rxe0 "$gr" 2 "$big"
wire_prog uc-sig sp0 "$gs" rxe0 "$gr" 2 $((1048576 + 65536))
wire_prog sig sp0 "$gs" rxe0 "$gr" 1 $((1048576 + 3 * 512))
wire_prog sig-remote sp0 "$gs" rxe0 "$gr" 1 $((1048576 + 3 * 512))
ok "signature keys, messages of $big bytes: PI checked, stripped and inserted on both sides of the model"
# under loss 1% both ways, 2 MiB and 3 blocks (the rest of a READ is
# asked for again from a lost response, and rxe sends all of the rest
# of the first request before it answers: 12 s a 4 MiB pair at 2%;
# wire_retry's QPs have a 1 s ACK timeout for these sizes)
lbig=$((2 * 1048576 + 3 * 512))
r0=$(wire_stat "$wire" retransmits)
tc qdisc replace dev vethB root netem loss 1% || die "tc netem loss 1% (vethB)"
ip netns exec $ns tc qdisc replace dev vethA root netem loss 1% ||
	die "tc netem loss 1% (vethA)"
wire_prog sig sp0 "$gs" rxe0 "$gr" 1 "$lbig"
wire_prog sig-remote sp0 "$gs" rxe0 "$gr" 1 "$lbig"
tc qdisc del dev vethB root
ip netns exec $ns tc qdisc del dev vethA root
r=$(($(wire_stat "$wire" retransmits) - r0))
[ "$r" -gt 0 ] || die "signature keys under loss 1%: no retransmission"
ok "signature keys, messages of $lbig bytes under loss 1% both ways: every one right, the model retransmitted $r packets"
wire_counters_zero

# WIRE_PERF_BASELINE=1: the same benchmarks rxe0 to itself (rxe's
# loopback; rxe receives only in the initial namespace, so there is no
# second rxe on this wire), for comparison
if [ "${WIRE_PERF_BASELINE:-0}" = 1 ]; then
	wire_sides() {
		sdev=rxe0; sg=$gr; sexec=""
		cdev=rxe0; cg=$gr; cexec=""; srv=$ipb
	}
	for p in ib_send_bw ib_write_bw; do
		perf $p rxe-self -n $nbw -s 4096
	done
	perf ib_read_bw rxe-self -n $nbw -s 4096 -o $o
	for p in ib_send_lat ib_write_lat; do
		perf $p rxe-self -n $nlat -s 64
	done
	perf ib_read_lat rxe-self -n $nlat -s 64 -o $o
fi

wire_done
echo "wire-perf: $checks checks passed"
