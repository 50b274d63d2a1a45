#!/bin/bash
# budget: 180
# RoCE over a VLAN on the wire, against rxe (issue 16: "with the GID's
# VLAN"): the veth pair of 55-wire-rxe.sh (wire.bash), VLAN 10 on both
# ends (vethA.10 10.78.0.1 in the model's namespace, vethB.10 10.78.0.2),
# so ib_core gives sp0 and rxe0 RoCE v2 GIDs on those VLAN netdevs.
# ibv_rc_pingpong (5000 bytes over a 1024-byte path MTU, -c, SL 3) and
# ibv_ud_pingpong (SL 5) with the VLAN GIDs, and rping (rdma_cm: the CM's
# MADs are GSI datagrams, and the receiving side's ib_core finds the GID
# to answer from by the VLAN its completion reports), server on either
# side. A capture of vethB: every RoCE frame either side sent is tagged
# VLAN 10, the model's RC frames with priority 3 and UD with 5 (the
# QP's or address vector's SL as the PCP), tshark reads them without a
# malformed packet, every ICRC recomputed; the model counts no bad header
# or ICRC and no frame that is not its own.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

iters=${WIRE_ITERS:-20}
t0=$(date +%s)
wire_debug_opt_in
wire_setup wire-vlan
mod rdma_ucm || die "no rdma_ucm"
ip -n $ns link add link vethA name vethA.10 type vlan id 10
ip -n $ns addr add 10.78.0.1/24 dev vethA.10
ip -n $ns link set vethA.10 up
ip link add link vethB name vethB.10 type vlan id 10
ip addr add 10.78.0.2/24 dev vethB.10
ip link set vethB.10 up
ipa=10.78.0.1
ipb=10.78.0.2
gs=$(gid_index sp0 $ipa)
gr=$(gid_index rxe0 $ipb)
nd=$(cat /sys/class/infiniband/sp0/ports/1/gid_attrs/ndevs/"$gs")
[ "$nd" = vethA.10 ] || die "sp0 GID $gs: netdev $nd, not vethA.10"
ok "VLAN 10: sp0 GID $gs on $nd ($ipa), rxe0 GID $gr ($ipb) ($(($(date +%s) - t0)) s)"

wire_capture_start
t0=$(date +%s)
for side in sp rxe; do
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 5000 -m 1024 -c -l 3
	wire_pingpong ibv_ud_pingpong $side -n $iters -s 1024 -l 5
	wire_rping $side 10
done
ok "pingpongs and rping over VLAN 10: $(($(date +%s) - t0)) s"

wire_capture_check $((iters * 4))
all=$(wire_count ib)
tagged=$(wire_count "ib && vid == 10")
[ "$all" -gt 0 ] && [ "$tagged" = "$all" ] || die "tshark: $tagged of $all RoCE frames tagged VLAN 10"
rc3=$(wire_count "ib && pcp == 3 && src == \"$ipa\" && op >= 0 && op < 32")
ud5=$(wire_count "ib && pcp == 5 && src == \"$ipa\" && op == 100")
# rc_pingpong: $iters messages of 5 packets from the model as client
[ "$rc3" -ge $((iters * 5)) ] || die "tshark: $rc3 model RC frames with PCP 3"
[ "$ud5" -ge "$iters" ] || die "tshark: $ud5 model UD frames with PCP 5"
ok "tshark: $all RoCE frames, all VLAN 10; the model's RC with PCP 3: $rc3, UD with PCP 5: $ud5"
wire_counters_zero rx_bad_icrc rx_bad_hdr rx_not_ours
wire_done
echo "PASS: RoCE over VLAN 10 on the wire ($checks checks)"
