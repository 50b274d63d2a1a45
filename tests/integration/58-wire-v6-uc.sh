#!/bin/bash
# RoCEv2 over IPv6 and UC on the wire, against rxe: the pair of
# 55-wire-rxe.sh (wire.bash) with IPv6 addresses (fd77::1 on the model's
# vethA, fd77::2 on rxe's vethB) and their RoCE v2 GIDs.
# ibv_rc_pingpong (beyond the path MTU) and ibv_ud_pingpong with the IPv6
# GIDs, ibv_uc_pingpong (8192-byte messages, 1024-byte path MTU: UC
# SEND first/middle/last) with the IPv4 and the IPv6 GIDs, each with the
# server on either side, -c checking the data where the program can.
# wire_retry uc-sig: UC through a signature MKEY each way (PI stripped
# going out, inserted coming in; a bad guard named).
# wire_ud_grh.py: a UD datagram each way, the flow label and traffic
# class of the sender's address handle in the receiver's GRH.
# A capture of vethB: tshark reads it without a malformed packet or an
# expert error (rxe's and the model's IPv6 UDP checksum is 0, which RFC
# 6936 allows a tunnel and the IBTA's ICRC covers: the UDP dissector is
# told to take it), and wire_icrc.py recomputes every packet's ICRC, IPv4
# and IPv6, and wants IPv6 RC/UD/UC and IPv4 UC packets from both sides.
# The model's counters: no bad ICRC or header, no UC message dropped.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"

# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

here=$(dirname "$(readlink -f "$0")")
ip6a=fd77::1
ip6b=fd77::2
iters=${WIRE_ITERS:-20}
t0=$(date +%s)
wire_debug_opt_in
wire_setup wire-v6-uc
gs4=$gs
gr4=$gr
ip -n $ns addr add $ip6a/64 dev vethA nodad
ip addr add $ip6b/64 dev vethB nodad
wire_neigh $ip6a $ip6b
gs6=$(gid_index sp0 $ip6a)
gr6=$(gid_index rxe0 $ip6b)
ok "IPv6 RoCE v2 GIDs: sp0 $gs6 ($ip6a), rxe0 $gr6 ($ip6b) ($(($(date +%s) - t0)) s)"

wire_capture_start
ok "dumpcap on vethB ($(($(date +%s) - t0)) s)"

t0=$(date +%s)
gs=$gs6
gr=$gr6
for side in sp rxe; do
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 5000 -m 1024 -c
	wire_pingpong ibv_ud_pingpong $side -n $iters -s 1024
	wire_pingpong ibv_uc_pingpong $side -n $iters -s 8192 -m 1024 -c
done
gs=$gs4
gr=$gr4
for side in sp rxe; do
	wire_pingpong ibv_uc_pingpong $side -n $iters -s 8192 -m 1024 -c
done
ok "pingpongs: $(($(date +%s) - t0)) s"

# UC SEND, WRITE with immediate and WRITE each way, one process on both
# devices (IPv6 GIDs), 32 messages of 8 KiB
t0=$(date +%s)
/usr/bin/python3 "$here/wire_uc.py" sp0 $gs6 rxe0 $gr6 32 8192 ||
	die "wire_uc.py (no loss)"
ok "wire_uc.py: $(($(date +%s) - t0)) s"
# signature keys on UC (wire_retry uc-sig, IPv4 GIDs): WRITEs with
# immediate from the model's T10-DIF blocks through a signature MKEY (PI
# checked and stripped: rxe gets the data), SENDs from rxe into a
# receive through it (PI inserted), a bad guard named by mlx5dv_mkey_check
t0=$(date +%s)
out=$work/uc-sig
rc=0
timeout 600 "$(test_prog wire_retry)" uc-sig sp0 "$gs4" rxe0 "$gr4" \
	"$iters" 8192 >"$out" 2>&1 || rc=$?
cat "$out"
[ $rc = 0 ] || die "wire_retry uc-sig: status $rc"
ok "signature keys on UC: $(($(date +%s) - t0)) s"
# a UD datagram each way over IPv6: the flow label and traffic class the
# sender's address handle gave, in the receiver's GRH (rxe sends 0)
/usr/bin/python3 "$here/wire_ud_grh.py" sp0 $gs6 rxe0 $gr6 ||
	die "wire_ud_grh.py (IPv6)"

wire_capture_stop -o udp.ignore_ipv6_zero_checksum:TRUE
wire_counters_zero rx_bad_icrc rx_bad_hdr rx_not_ours rx_no_qp uc_msgs_dropped tx_dropped

if [ "$(wire_count bad)" != 0 ]; then
	wire_frames bad | head -n 20
	die "tshark: malformed packets or errors"
fi
n6=$(wire_count 'ib && src6 != ""')
nuc=$(wire_count 'ib && op >= 32 && op <= 43')
# 8 KiB UC messages in 1 KiB packets: 8 packets per message
[ "$n6" -ge $((iters * 8)) ] || die "tshark: only $n6 IPv6 RoCEv2 packets"
[ "$nuc" -ge $((iters * 2 * 4 * 8)) ] || die "tshark: only $nuc UC packets"
ok "tshark: $n6 IPv6 RoCEv2 packets, $nuc UC packets, none malformed, no expert error"

/usr/bin/python3 "$here/wire_icrc.py" "$cap" $ipa $ip6a --want \
	v6-model-rc v6-peer-rc v6-model-ud v6-peer-ud v6-model-uc v6-peer-uc \
	v4-model-uc v4-peer-uc || die "ICRC check failed"
ok "ICRC valid on every RoCEv2 packet of the capture (IPv4 and IPv6)"

# UC under 5 % loss on both egresses (IPv4 GIDs): messages that lost a
# packet are dropped whole, the rest arrive whole and in order, and the
# model's responder counts what it dropped
mod sch_netem || die "no netem"
d0=$(wire_stat "$wire" rx_dropped)
u0=$(wire_stat "$wire" uc_msgs_dropped)
tc qdisc replace dev vethB root netem loss 5% || die "netem vethB"
ip netns exec $ns tc qdisc replace dev vethA root netem loss 5% ||
	die "netem vethA"
t0=$(date +%s)
/usr/bin/python3 "$here/wire_uc.py" sp0 $gs4 rxe0 $gr4 32 8192 lossy ||
	die "wire_uc.py (5 % loss)"
tc qdisc del dev vethB root
ip netns exec $ns tc qdisc del dev vethA root
d1=$(wire_stat "$wire" rx_dropped)
u1=$(wire_stat "$wire" uc_msgs_dropped)
if [ "$d1" -le "$d0" ] || [ "$u1" -le "$u0" ]; then
	die "sp0 wire under loss: rx_dropped $d0 -> $d1, uc_msgs_dropped $u0 -> $u1"
fi
ok "UC under 5 % loss ($(($(date +%s) - t0)) s): sp0 dropped $((d1 - d0)) packets of $((u1 - u0)) broken messages, and packets up to the next FIRST"

wire_done
echo "wire-v6-uc: $checks checks passed"
