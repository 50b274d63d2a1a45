#!/bin/bash
# budget: 1140
# RoCE v1 and ECN on the wire, between two model devices (issue 16): sp0
# on vethA (netns sp) and sp1 on vethB, both with debugfs wire_peers set,
# so their packets take the veth as between two hosts (rxe has neither
# RoCE v1 nor ECN: the peer is a model device).
# RoCE v1: ibv_rc_pingpong (5000-byte messages over a 1024-byte path
# MTU, -c) and ibv_ud_pingpong with the IPv4 addresses' "IB/RoCE v1" GIDs,
# server on each side; a capture of vethB holds ethertype 0x8915 frames
# (the GRH, no IP or UDP) from both, tshark reads them without a malformed
# packet, wire_icrc.py recomputes every ICRC (v1 RC and UD from both);
# wire_ud_grh.py: a UD datagram each way, the flow label and traffic
# class of the sender's address handle in the receiver's GRH.
# ECN: netem on vethB's egress, for RoCEv2 requests only (a prio qdisc
# and u32 filters on UDP port 4791: the pingpongs' TCP must not count,
# and ACKs pass, see the filters),
# turns 30 % of sp1's packets into ECN CE marks (netem's ecn: it marks
# what is ECN-capable and drops the rest);
# an rc_pingpong with the RoCE v2 GIDs loses nothing, because every
# packet of a model device with its reaction point on leaves ECT(0)
# (what netem counts as dropped, which includes what it marks, all
# arrived marked); sp0, the notification point, counts the marks
# and answers with CNPs, sp1 handles them: np_ecn_marked_roce_packets,
# np_cnp_sent and rp_cnp_handled of `rdma statistic` (mlx5_ib's names,
# the PRM's QUERY_CONG_STATISTICS) move, CNPs (opcode 0x81) in the
# capture with valid ICRCs. With sp0's notification point off (debugfs
# ecn_np) the marks are counted and no CNP is sent; with sp1's reaction
# point off its packets are not ECN-capable: netem drops 10 % of them,
# the pingpong still completes (retransmission) and sp1's retransmits
# move.
# (Not "no retransmission" in the first case: a TCG stall longer than the
# pingpong's 67 ms local ACK timeout resends with nothing lost, seen
# once on a host loaded by three VMs.)
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

iters=${WIRE_ITERS:-20}

# netem_dropped: what the netem qdisc (30:) on vethB dropped since it was put there
netem_dropped() {
	tc -s qdisc show dev vethB |
		awk '/^qdisc netem 30:/ { f = 1; next } f && /dropped/ { sub(/.*\(dropped /, ""); sub(/,.*/, ""); print; exit }'
}

wire_cleanup_hook() {
	tc qdisc del dev vethB root 2>/dev/null || true
	rdma link delete sp1 2>/dev/null || true
}

if ! mod sch_netem; then
	echo "SKIP: no netem in this kernel"
	exit 77
fi
t0=$(date +%s)
wire_debug_opt_in
wire_setup wire-v1-ecn
rdma link delete rxe0
rdma link add sp1 type mlx5sp netdev vethB || die "rdma link add sp1"
echo 1 >"$simfs/sp0/wire_peers"
echo 1 >"$simfs/sp1/wire_peers"
wire_peer=sp1
gs2=$gs
gr2=$(gid_index sp1 $ipb)
gs1=$(gid_index sp0 $ipa "IB/RoCE v1")
gr1=$(gid_index sp1 $ipb "IB/RoCE v1")
ok "sp0 (netns $ns) and sp1 on the veth, wire_peers: RoCE v1 GIDs $gs1/$gr1, v2 $gs2/$gr2 ($(($(date +%s) - t0)) s)"

# RoCE v1
wire_capture_start
t0=$(date +%s)
gs=$gs1
gr=$gr1
for side in sp rxe; do
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 5000 -m 1024 -c
	wire_pingpong ibv_ud_pingpong $side -n $iters -s 1024
done
ok "RoCE v1 pingpongs: $(($(date +%s) - t0)) s"
# a UD datagram each way: the flow label and traffic class of the sender's
# address handle in the receiver's GRH, both ends the model
/usr/bin/python3 "$(dirname "$(readlink -f "$0")")/wire_ud_grh.py" sp0 $gs1 sp1 $gr1 ||
	die "wire_ud_grh.py (RoCE v1)"
wire_capture_stop
n1=$(wire_count 'ib && etype == "0x8915"')
# 5 packets a message and its ACK, each way, both servers
[ "$n1" -ge $((iters * 4 * 5)) ] || die "tshark: only $n1 RoCE v1 packets"
ok "tshark: $n1 RoCE v1 (ethertype 0x8915) packets"
wire_capture_check $((iters * 4 * 5)) "$ipa" --want v1-model-rc v1-peer-rc v1-model-ud v1-peer-ud
for d in sp0 sp1; do
	for c in rx_bad_icrc rx_bad_hdr rx_not_ours rx_no_qp tx_dropped; do
		[ "$(wire_stat "$simfs/$d/wire" $c)" = 0 ] || { cat "$simfs/$d/wire"; die "$d: $c not 0"; }
	done
done
ok "sp0, sp1: no bad ICRC or header, nothing dropped"

# ECN: marks instead of losses, answered with CNPs
gs=$gs2
gr=$gr2
declare -A b
b[marked]=$(link_stat sp0 np_ecn_marked_roce_packets $ns)
b[sent]=$(link_stat sp0 np_cnp_sent $ns)
b[handled]=$(link_stat sp1 rp_cnp_handled)
tc qdisc replace dev vethB root handle 1: prio bands 3 || die "tc prio"
tc qdisc add dev vethB parent 1:3 handle 30: netem loss 30% ecn || die "tc netem loss ecn"
# ACKs and NAKs (BTH opcode 0x11 after 20 bytes of IPv4 and 8 of UDP)
# pass: rc_pingpong has no closing handshake, and sp1's ACK of the
# server's last SEND, dropped, left the server retrying into a QP that
# was gone (IBV_WC_RETRY_EXC_ERR, with the reaction point off)
tc filter add dev vethB parent 1: prio 1 protocol ip u32 match ip protocol 17 0xff \
	match ip dport 4791 0xffff match u8 0x11 0xff at 28 flowid 1:1 ||
	die "tc filter: RoCEv2 ACKs past netem"
tc filter add dev vethB parent 1: prio 2 protocol ip u32 match ip protocol 17 0xff \
	match ip dport 4791 0xffff flowid 1:3 || die "tc filter: RoCEv2 to netem"
[ "$(netem_dropped)" = 0 ] || die "no netem 30: on vethB"
wire_capture_start
t0=$(date +%s)
wire_pingpong ibv_rc_pingpong sp -n $iters -s 5000 -m 1024 -c
ok "rc_pingpong under netem loss 30% ecn: $(($(date +%s) - t0)) s"
marked=$(($(link_stat sp0 np_ecn_marked_roce_packets $ns) - b[marked]))
sent=$(($(link_stat sp0 np_cnp_sent $ns) - b[sent]))
handled=$(($(link_stat sp1 rp_cnp_handled) - b[handled]))
dropped=$(netem_dropped)
[ "$marked" -gt 0 ] || die "sp0: no ECN-marked packet counted"
[ "$sent" -gt 0 ] && [ "$sent" -le "$marked" ] || die "sp0: $sent CNPs for $marked marks"
[ "$handled" -gt 0 ] && [ "$handled" -le "$sent" ] || die "sp1: $handled CNPs handled, $sent sent"
# netem counts a packet it marks as dropped: every one it "dropped"
# must have arrived marked, else some were not ECN-capable
[ "$dropped" = "$marked" ] || die "netem dropped $dropped RoCE packets, $marked arrived marked"
ok "sp0: $marked CE marks (netem: $dropped), $sent CNPs sent; sp1: $handled handled"
wire_capture_stop
ncnp=$(wire_count 'ib && op == 129')
[ "$ncnp" -gt 0 ] || die "tshark: no CNP in the capture"
ok "tshark: $ncnp CNPs"
wire_capture_check $((iters * 5)) "$ipa" --want v4-model-rc v4-peer-rc v4-model-cnp

# the notification point off: marks counted, no CNP
echo 0 >"$simfs/sp0/ecn_np"
b[marked]=$(link_stat sp0 np_ecn_marked_roce_packets $ns)
b[sent]=$(link_stat sp0 np_cnp_sent $ns)
wire_pingpong ibv_rc_pingpong sp -n $iters -s 5000 -m 1024 -c
marked=$(($(link_stat sp0 np_ecn_marked_roce_packets $ns) - b[marked]))
sent=$(($(link_stat sp0 np_cnp_sent $ns) - b[sent]))
[ "$marked" -gt 0 ] && [ "$sent" = 0 ] || die "ecn_np off: $marked marks, $sent CNPs"
ok "sp0 ecn_np off: $marked marks, no CNP"
echo 1 >"$simfs/sp0/ecn_np"

# the reaction point off: not ECN-capable, netem drops, RC recovers. At
# 10 %, not 30 %: a retry_cnt of 7 counts local ACK timeouts, and the
# responder NAKs a sequence error once until the expected PSN comes, so
# a 5-packet message whose resent first packet is lost again times out;
# at 30 % 8 timeouts in a row end about 1 message in 800 in
# IBV_WC_RETRY_EXC_ERR, as they would on a card (2.5 % of the runs, seen
# in CI); at 10 % none of 3 million simulated, and 100 packets still
# lose some.
tc qdisc change dev vethB parent 1:3 handle 30: netem loss 10% ecn ||
	die "tc netem loss 10% ecn"
echo 0 >"$simfs/sp1/ecn_rp"
b[retx]=$(wire_stat "$simfs/sp1/wire" retransmits)
b[dropped]=$(netem_dropped)
b[marked]=$(link_stat sp0 np_ecn_marked_roce_packets $ns)
wire_pingpong ibv_rc_pingpong sp -n $iters -s 5000 -m 1024 -c
retx=$(($(wire_stat "$simfs/sp1/wire" retransmits) - b[retx]))
dropped=$(($(netem_dropped) - b[dropped]))
marked=$(($(link_stat sp0 np_ecn_marked_roce_packets $ns) - b[marked]))
[ "$dropped" -gt 0 ] && [ "$retx" -gt 0 ] && [ "$marked" = 0 ] ||
	die "sp1 ecn_rp off: netem dropped $dropped, $marked marked, $retx retransmissions"
ok "sp1 ecn_rp off: netem dropped $dropped of its packets, $retx retransmissions, every iteration done"
tc qdisc del dev vethB root

wire_done
echo "PASS: RoCE v1 and ECN on the wire ($checks checks)"
