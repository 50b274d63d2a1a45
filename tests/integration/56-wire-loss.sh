#!/bin/bash
# budget: 1800
# RC on the wire against rxe when the wire loses, reorders and duplicates
# packets, and when the peer goes away (issue 16, acceptance 4 and 5).
# The veth pair of 55-wire-rxe.sh (wire.bash): sp0 on vethA in netns sp,
# rxe0 on vethB. netem, in turn: loss 1 %, loss 5 %, delay with
# reordering, duplicate 5 %. Under each, ibv_rc_pingpong -c (rdma-core
# 44 checks a byte a page, at the end, on the server; netem on its
# server's requests only, see impaired) with messages of 5 path MTUs
# must complete every iteration
# (server on either side under 5 % loss and reordering; on the model's
# side under 1 % loss, on rxe's under duplication, to keep make test
# short), and tests/userspace/wire_retry.c's stream (netem on both
# egresses: vethB, and vethA in the namespace)
# (SENDs each way, WRITEs read back by READs each way, every message's
# bytes its own) must see every message once with its data. The model's
# wire counters must move where the impairment makes it certain:
# retransmits and local ACK timeouts under 5 % loss, duplicate requests
# under 5 % loss and under duplication, sequence NAKs under reordering;
# rxe's counters are shown. Atomics under loss 5 % and duplicate 5 %:
# wire_retry's atomic, WIRE_ATOMICS (200; 5 times that under duplication)
# fetch & adds of 1, 4 in flight, and a quarter as many compare & swaps,
# each way, on one counter: it
# ends at exactly the number of operations and every original value comes
# back once (nothing executed twice); the model as responder executed
# exactly rxe's, and under duplication answered duplicates from its
# responder resources (atomic_dups) without executing them. Without
# netem, atomics refused: an address not 8-byte aligned (NAK invalid
# request; model to rxe, rxe does not post one), an rkey without remote
# atomic access (NAK remote access, each way). Then: a peer QP destroyed
# after a first SEND gives IBV_WC_RETRY_EXC_ERR after (retry_cnt + 1)
# local ACK timeouts, within IBTA's [1, 4] x 4.096 us x 2^timeout each
# (timeout 12 / retry_cnt 3, and timeout 18 / retry_cnt 1), with as many
# retransmissions as retry_cnt; a responder without a receive gives RNR
# NAKs and IBV_WC_RNR_RETRY_EXC_ERR after rnr_retry waits of the
# responder's timer, the model as requester (rxe NAKs) and as responder
# (its rnr_naks_sent counts rnr_retry + 1); the requester's QP is in ERR.
# The model's window (go-back-N across WQEs in flight): under loss 5 % and
# under reordering, wire_retry's window, 4 x WIRE_ITERS SENDs, as many
# WRITEs, as many READs, and as many READs and SENDs alternating, 32
# posted at once from the model to rxe: every message once with its data,
# every completion in order (a READ's with its byte count); the model's
# max_inflight above 1; under loss, implied NAKs (READ responses lost);
# at most 5 times the packets the requests take (a go-back-N sends the
# window again a few WQEs at a time).
# Signature WQEs (wire_retry sig, one at a time on the wire): 2 x
# WIRE_ITERS RDMA WRITEs of 16 T10-DIF blocks through a signature MKEY
# (PI checked, stripped: rxe gets the data) and READs back through it (PI
# inserted), loss 5 % on rxe's egress: data and PI right, implied NAKs,
# and retransmissions at once for them, not after a timeout.
# SQD with the window in flight (netem delay 20 ms): 40 SENDs posted (the
# window takes 32), the QP moved to SQD at once: SQ_DRAINED only once
# those begun completed (a window full, or going back for a lost packet,
# begins no more), each received once, nothing more in SQD; SQD to RTS:
# the rest, then one more SEND.
# The window's error paths
# (wire_retry window-err, window-rnr, window-flush): a remote access NAK
# for the middle one of 16 WRITEs in flight (before it done, it
# REM_ACCESS_ERR, the rest flushed), 16 SENDs against 8 receives (RNR
# NAKs until the other 8 are posted, then all in order), 32 SENDs in
# flight (netem delay 20 ms) and the QP to ERR at once (successes, then
# flushes, in order).
# WIRE_ITERS (20) iterations / messages of each.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

iters=${WIRE_ITERS:-20}
natomic=${WIRE_ATOMICS:-200}
size=5000
# rxe's retransmissions under loss take its 67 ms timeouts
export WIRE_PP_TIMEOUT=180

if ! mod sch_netem; then
	echo "SKIP: no netem in this kernel"
	exit 77
fi
prog=$(test_prog wire_retry)
wire_setup wire-loss

snap() { for k in retransmits timeouts dup_reqs naks_sent naks_rcvd rnr_naks_sent atomics atomic_dups; do eval "b_$k=$(wire_stat "$wire" $k)"; done; }
# d NAME: how far it moved since snap
d() { local v; eval "v=\$b_$1"; echo $(($(wire_stat "$wire" "$1") - v)); }
deltas() { local k s=; for k in retransmits timeouts dup_reqs naks_sent naks_rcvd rnr_naks_sent atomics atomic_dups; do s+="$k +$(d $k) "; done; echo "$s"; }

netem() {
	tc qdisc replace dev vethB root netem "$@" || die "tc netem $* (vethB)"
	ip netns exec $ns tc qdisc replace dev vethA root netem "$@" ||
		die "tc netem $* (vethA)"
}
# netem_side SIDE NETEM-ARGS...: netem on SIDE's egress only (sp: vethA,
# rxe: vethB), for its RoCE requests only: a prio qdisc whose band 1:3
# has netem, u32 filters giving it UDP 4791 but ACKs and NAKs (BTH opcode
# 0x11, after 20 bytes of IPv4 and 8 of UDP) to band 1:1
netem_side() {
	local side=$1 dev=vethB run=
	shift
	if [ "$side" = sp ]; then
		dev=vethA
		run="ip netns exec $ns"
	fi
	$run tc qdisc replace dev $dev root handle 1: prio bands 3 &&
		$run tc qdisc add dev $dev parent 1:3 handle 30: netem "$@" &&
		$run tc filter add dev $dev parent 1: prio 1 protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u8 0x11 0xff at 28 flowid 1:1 &&
		$run tc filter add dev $dev parent 1: prio 2 protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			flowid 1:3 || die "tc netem $* for RoCE requests ($dev)"
}
# band_pkts SIDE CLASS: packets netem_side's prio band CLASS sent
band_pkts() {
	local dev=vethB run=
	if [ "$1" = sp ]; then
		dev=vethA
		run="ip netns exec $ns"
	fi
	$run tc -s class show dev $dev | awk -v c="$2" '
		$1 == "class" && $3 == c { f = 1; next }
		f && $1 == "Sent" { print $4; found = 1; exit }
		END { if (!found) exit 1 }' || die "tc: no class $2 on $dev"
}
netem_off() {
	tc qdisc del dev vethB root 2>/dev/null || true
	ip netns exec $ns tc qdisc del dev vethA root 2>/dev/null || true
}


# impaired NAME SIDES NETEM-ARGS...: the transfers under the impairment,
# ibv_rc_pingpong with its server on each of SIDES (sp, rxe: both by
# default; WIRE_ITERS set, always both), then wire_retry's stream.
# The pingpong's impairment is on its server's requests only (netem_side:
# its egress, ACKs and NAKs spared): rc_pingpong has no closing
# handshake, so whichever end finishes first destroys its QP while the
# other may still need an ACK from it. The client exits once its last
# receive is in, without waiting for its ACK of it to reach the server;
# the server exits once its last SEND is ACKed, and its ACK of the
# client's last SEND, lost, would leave the client sending again to a QP
# that is gone (seen: with loss on both egresses, the model's server
# ended in IBV_WC_RETRY_EXC_ERR once; with loss on the server's egress,
# rxe's client never finished once; on a card just the same). wire_retry's stream waits for both
# ends and gets loss of everything, both ways. Both bands must have
# carried packets (the filters work).
impaired() {
	local name=$1 sides=$2 side
	shift 2
	[ -n "${WIRE_ITERS:-}" ] && sides="sp rxe"
	# the short form (debug kernel): the stream only; the pingpongs
	# (rdma-core's tool on the same paths of the model, 10-20 s of
	# process start-up each there) are the stock kernel's
	wire_short && sides=
	snap
	for side in $sides; do
		echo "== netem $* on the egress of the server, $side"
		netem_side "$side" "$@"
		wire_pingpong ibv_rc_pingpong "$side" -n "$iters" -s $size -m 1024 -c
		[ "$(band_pkts "$side" 1:1)" -gt 0 ] && [ "$(band_pkts "$side" 1:3)" -gt 0 ] ||
			die "netem_side: ACKs $(band_pkts "$side" 1:1), requests $(band_pkts "$side" 1:3) packets: a band carried none"
		echo "   ACKs and NAKs $(band_pkts "$side" 1:1) packets, requests through netem $(band_pkts "$side" 1:3)"
		netem_off
	done
	stream_under "$name" "$@"
	echo "model's wire under $name: $(deltas)"
	rdma statistic show link rxe0/1 | tr -s ' ' | fold -s -w 100
}

# stream_under NAME NETEM-ARGS...: wire_retry's stream, netem on both
# egresses
stream_under() {
	local name=$1
	shift
	netem "$@"
	echo "== netem $* on both egresses"
	wire_prog stream sp0 "$gs" rxe0 "$gr" "$iters" $size
	ok "$name: wire_retry stream, every message once with its data"
	netem_off
}

# window_under NETEM-ARGS...: wire_retry's window, 32 WQEs in flight from
# the model, netem on both egresses
window_under() {
	local im="$*" implied tx npk need

	netem "$@"
	snap
	implied=$(link_stat sp0 implied_nak_seq_err)
	tx=$(wire_stat "$wire" tx_pkts)
	wire_prog window sp0 "$gs" rxe0 "$gr" $((iters * 4)) $size
	netem_off
	implied=$(($(link_stat sp0 implied_nak_seq_err) - implied))
	tx=$(($(wire_stat "$wire" tx_pkts) - tx))
	# READ responses lost between others: implied NAKs, certain at 5 %
	[ "$im" != "loss 5%" ] || [ "$implied" -gt 0 ] ||
		die "window under $im: no implied NAK (READ responses lost)"
	# the packets the requests take (path MTU 1024): SENDs and WRITEs
	# of npk each, one per READ; 2.2-3.4 times that went (debug kernel),
	# 5.6 times in a batch and 14 in a phase when each NAK sent the
	# whole window again, which left rxe retry_cnt timeouts behind
	npk=$(((size + 1023) / 1024))
	need=$((iters * 4 * (2 * npk + 1) + iters * 2 * (npk + 1)))
	[ "$tx" -le $((need * 5)) ] ||
		die "window under $im: the model sent $tx packets for $need (more than 5 times)"
	ok "window under $im: every message once with its data," \
		"completions in order; model $(deltas) implied NAKs +$implied," \
		"$tx packets for $need"
}

# WIRE_LOSS_RUNS=N: the repeat form (make stress; on a busy host with
# scripts/busy-host): N runs of the stream under loss 5 % and the window
# under loss 5 % and under reordering, nothing else; the first failure
# ends it
if [ -n "${WIRE_LOSS_RUNS:-}" ]; then
	for run in $(seq "$WIRE_LOSS_RUNS"); do
		echo "== run $run of $WIRE_LOSS_RUNS"
		stream_under "loss 5%, run $run" loss 5%
		window_under loss 5%
		window_under delay 10ms reorder 25% 50%
	done
	ok "$WIRE_LOSS_RUNS runs of the stream and the window under loss and reordering"
	wire_done
	echo "wire-loss: $checks checks passed"
	exit 0
fi

# atomic_under NAME COUNT NETEM-ARGS...: wire_retry's atomic both ways
atomic_under() {
	local name=$1 n=$2
	shift 2
	netem "$@"
	echo "== atomics, netem $* on both egresses"
	snap
	wire_prog atomic sp0 "$gs" rxe0 "$gr" "$n" 4
	netem_off
	echo "model's wire under $name: $(deltas)"
	[ "$(d atomics)" = $((n + n / 4 + 1)) ] ||
		die "atomics, $name: the model executed $(d atomics) of rxe's $((n + n / 4 + 1))"
	ok "atomics, $name: counter exact both ways, the model executed each of rxe's $(d atomics) once, $(d atomic_dups) duplicates answered from its cache"
}

# the short form (debug kernel, wire.bash): loss 5 % covers loss 1 %
wire_short || impaired "loss 1%" sp loss 1%
impaired "loss 5%" "sp rxe" loss 5%
for k in retransmits timeouts dup_reqs; do
	[ "$(d $k)" -gt 0 ] || die "loss 5%: the model's $k did not move"
done
ok "loss 5%: model retransmits +$(d retransmits), timeouts +$(d timeouts), duplicate requests +$(d dup_reqs)"
impaired reorder "sp rxe" delay 10ms reorder 25% 50%
[ "$(d naks_sent)" -gt 0 ] || die "reorder: the model sent no sequence NAK"
ok "reorder: model sequence NAKs sent +$(d naks_sent), received +$(d naks_rcvd), retransmits +$(d retransmits)"
# the same events in mlx5_ib's hardware counters (the port's Q counters)
for k in out_of_sequence duplicate_request packet_seq_err; do
	[ "$(link_stat sp0 $k)" -gt 0 ] || die "rdma statistic: sp0 $k is 0 after loss and reordering"
done
[ "$(link_stat sp0 out_of_sequence)" -ge "$(wire_stat "$wire" naks_sent)" ] ||
	die "out_of_sequence $(link_stat sp0 out_of_sequence) < sequence NAKs sent $(wire_stat "$wire" naks_sent)"
ok "rdma statistic sp0: out_of_sequence $(link_stat sp0 out_of_sequence), duplicate_request $(link_stat sp0 duplicate_request), packet_seq_err $(link_stat sp0 packet_seq_err), implied_nak_seq_err $(link_stat sp0 implied_nak_seq_err), local_ack_timeout_err $(link_stat sp0 local_ack_timeout_err)"
window_under loss 5%
window_under delay 10ms reorder 25% 50%
# signature WQEs (stop-and-wait) with READ responses lost (loss on rxe's
# egress only): a response ahead of the one awaited is an implied NAK and
# the model asks for the rest at once, which only a timeout did before
# (a retransmission without a timeout); data and PI right both ways
tc qdisc replace dev vethB root netem loss 5% || die "tc netem loss 5% (vethB)"
snap
implied=$(link_stat sp0 implied_nak_seq_err)
wire_prog sig sp0 "$gs" rxe0 "$gr" $((iters * 2)) 8192
netem_off
implied=$(($(link_stat sp0 implied_nak_seq_err) - implied))
[ "$implied" -gt 0 ] || die "signature READs under loss 5%: no implied NAK"
[ "$(d retransmits)" -gt "$(d timeouts)" ] ||
	die "signature READs under loss 5%: $implied implied NAKs, yet every one of $(d retransmits) retransmissions waited for a timeout"
ok "signature WRITEs and READs under loss 5% on rxe's egress: PI stripped and inserted right; implied NAKs +$implied, retransmits +$(d retransmits) of which timeouts +$(d timeouts)"
inflight=$(wire_stat "$wire" max_inflight)
[ "${inflight:-0}" -gt 1 ] || die "window: the model never had more than one WQE in flight"
ok "window: up to $inflight WQEs of a QP in flight at once"
netem delay 20ms
wire_prog sqd sp0 "$gs" rxe0 "$gr" 40 3000
netem_off
ok "sqd: SQ_DRAINED after the SENDs in flight completed, none begun in SQD, the rest after RTS"
# the window's error paths: a NAK in the middle, RNR NAKs, 2ERR in flight
wire_prog window-err sp0 "$gs" rxe0 "$gr" 16 3000
ok "window-err: a remote access NAK in the middle of 16 WRITEs: those before done, it failed, the rest flushed, in order"
snap
wire_prog window-rnr sp0 "$gs" rxe0 "$gr" 16 3000
[ "$(d naks_rcvd)" -gt 0 ] || die "window-rnr: the model received no RNR NAK"
ok "window-rnr: 16 SENDs, receives for 8: RNR NAKs (+$(d naks_rcvd)) until the rest were posted, all in order, once"
netem delay 20ms
wire_prog window-flush sp0 "$gs" rxe0 "$gr" 32 3000
netem_off
ok "window-flush: 32 SENDs in flight, QP to ERR at once: completions in order, successes then flushes"
impaired "duplicate 5%" rxe duplicate 5%
[ "$(d dup_reqs)" -gt 0 ] || die "duplicate 5%: the model saw no duplicate request"
ok "duplicate 5%: model duplicate requests +$(d dup_reqs)"
atomic_under "loss 5%" "$natomic" loss 5%
# cheap without loss: enough duplicates to be sure of some
atomic_under "duplicate 5%" $((natomic * 5)) duplicate 5%
[ "$(d atomic_dups)" -gt 0 ] ||
	die "duplicate 5%: the model answered no duplicate atomic from its cache"
wire_prog atomic-err sp0 "$gs" rxe0 "$gr" 0 0
ok "atomics refused: model to rxe not 8-byte aligned (invalid request), an rkey without atomic access both ways (remote access)"

# retry exhaustion: the model's timeouts count the retries, not the last
# (as a ConnectX's local_ack_timeout_err); wire_retry checks the counters
# over the SEND that fails only
for tr in "12 3" "18 1"; do
	# shellcheck disable=SC2086 # two numbers
	set -- $tr
	wire_prog retry sp0 "$gs" rxe0 "$gr" "$1" "$2" "$wire" \
		timeouts="$2" retransmits="$2"
	ok "timeout $1 retry_cnt $2: $(grep '^time_ms' "$work/prog"), $2 retransmissions"
done
# RNR: rxe's responder NAKs the model's SEND, then the model NAKs rxe's
wire_prog rnr sp0 "$gs" rxe0 "$gr" 22 2 "$wire" retransmits=2 timeouts=0
ok "rnr, model requester: $(grep '^time_ms' "$work/prog")"
wire_prog rnr-peer rxe0 "$gr" sp0 "$gs" 22 2 "$wire" rnr_naks_sent=3
ok "rnr, model responder: $(grep '^time_ms' "$work/prog"), rnr_naks_sent +3"
cat "$wire"
for k in rx_bad_icrc rx_bad_hdr; do
	grep -q "^$k 0$" "$wire" || die "sp0 wire: $k not 0"
done

wire_done
echo "wire-loss: $checks checks passed"
