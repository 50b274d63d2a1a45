#!/bin/bash
# budget: 900
# The port of a ConnectX as mlx5sp gives it to a host (issue 45): a model
# device with a physical port whose cable is vethA (debugfs add
# "cable=vethA"; the cable has no address of its own), rxe0 on vethB, the
# cable's other end, in the initial namespace. The driver's netdev for the
# port is moved to netns sp (10.77.0.1), so that its traffic to rxe0's
# 10.77.0.2 leaves through the cable instead of the loopback.
#
# The NIC: the netdev exists, is the IB device's netdev, `ethtool -i`
# names mlx5sp and the bus device, carrier, ping both ways with
# `ethtool -S` counters moving by at least what was sent, a TCP transfer
# of PORT_TCP_MIB (100) MiB arriving intact (SHA-256), MTU 9000 and a
# ping of 8000 bytes. RoCE: the port ACTIVE, RoCE v1 and v2 GIDs of the
# netdev's IPv4 address, an IPv6 address's GIDs appearing when it is added
# and going when it is removed; ibv_rc_pingpong and ibv_ud_pingpong with
# either side serving; rping (rdma_cm resolving through the port's
# netdev); ib_send_bw and ib_write_lat; tshark on vethB reads the
# capture with no malformed packet, valid ICRCs. The cable: vethB down
# under SENDs in flight from sp0 (wire_retry link) -> carrier off on the
# netdev, the port DOWN, IBV_EVENT_PORT_ERR, the SENDs not acknowledged
# in IBV_WC_RETRY_EXC_ERR (the first) and flushed (the rest); vethB up ->
# ACTIVE, IBV_EVENT_PORT_ACTIVE and a new pingpong works. The debug
# kernel runs the NIC checks (16 MiB of TCP), the GIDs, one RC pingpong
# each way, the capture and the link cycle (wire_short); the stock kernel
# everything.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

iters=${WIRE_ITERS:-50}
mib=${PORT_TCP_MIB:-100}
wire_short && mib=${PORT_TCP_MIB:-16}

port_cleanup() {
	[ -n "${nic:-}" ] && ip -n $ns link set "$nic" netns 1 2>/dev/null
	[ -e "$simfs/sp0" ] && del sp0 2>/dev/null
	ip link del vethA 2>/dev/null || true
}
wire_cleanup_hook() { port_cleanup; }

# nic_stat NAME: ethtool -S counter NAME of the port's netdev
nic_stat() {
	local v
	v=$(ip netns exec $ns ethtool -S "$nic" | awk -v k="$1:" '$1 == k { print $2 }')
	[[ $v =~ ^[0-9]+$ ]] || die_test "ethtool -S $nic: no counter $1"
	echo "$v"
}

# port_state: the IB port's state word (ACTIVE, DOWN) in sysfs
port_state() {
	local s
	read -r _ s </sys/class/infiniband/sp0/ports/1/state
	echo "$s"
}

wait_port() {
	local _
	for _ in $(seq 100); do
		[ "$(port_state)" = "$1" ] && return 0
		sleep 0.1
	done
	die "sp0 port 1: $(port_state), not $1"
}

if ! mod veth; then
	echo "SKIP: no veth in this kernel"
	exit 77
fi
trap wire_cleanup EXIT
load
loaded=1
mod rdma_rxe || die "no rdma_rxe"
mod rdma_ucm || die "no rdma_ucm"
mark port
ip netns add $ns
ip -n $ns link set lo up
ip link add vethA type veth peer name vethB
sysctl -qw net.ipv6.conf.vethA.disable_ipv6=1
ip link set vethA up
ip addr add $ipb/24 dev vethB
ip link set vethB up
rdma link add rxe0 type rxe netdev vethB || die "rdma link add rxe0"

add sp0 cable=vethA || die "add sp0 cable=vethA"
for _ in $(seq 100); do
	nic=$(rdma link show sp0/1 2>/dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	[ -n "$nic" ] && break
	sleep 0.1
done
[ -n "$nic" ] || { rdma link show; die "sp0: no netdev on port 1"; }
ok "sp0 on cable vethA: port 1's netdev is $nic"

drv=$(ethtool -i "$nic" | awk '$1 == "driver:" { print $2 }')
bus=$(ethtool -i "$nic" | awk '$1 == "bus-info:" { print $2 }')
parent=$(basename "$(readlink -f /sys/class/infiniband/sp0/device)")
[ "$drv" = mlx5sp ] || { ethtool -i "$nic"; die "$nic: driver $drv, not mlx5sp"; }
[ "$bus" = "$parent" ] || { ethtool -i "$nic"; die "$nic: bus-info $bus, not $parent"; }
mac=$(cat "/sys/class/net/$nic/address")
grep -q "^mac $mac$" "$simfs/sp0/port" || { cat "$simfs/sp0/port"; die "$nic: MAC $mac is not the vport's"; }
ok "ethtool -i $nic: driver mlx5sp, bus-info $bus, MAC $mac (the vport's)"

ip link set "$nic" netns $ns
ip -n $ns addr add $ipa/24 dev "$nic"
ip -n $ns link set "$nic" up
for _ in $(seq 100); do
	ip -n $ns link show "$nic" | grep -q 'LOWER_UP' && break
	sleep 0.1
done
ip -n $ns link show "$nic" | grep -q 'LOWER_UP' ||
	{ ip -n $ns link show "$nic"; die "$nic: no carrier"; }
wait_port ACTIVE
ok "$nic up with carrier, sp0 port 1 ACTIVE"

tx0=$(nic_stat tx_packets)
rx0=$(nic_stat rx_packets)
ip netns exec $ns ping -c 20 -i 0.05 -W 5 $ipb >"$work/ping" ||
	{ cat "$work/ping"; die "ping $ipb from $nic"; }
ping -c 20 -i 0.05 -W 5 $ipa >"$work/ping" ||
	{ cat "$work/ping"; die "ping $ipa (rxe0's side to $nic)"; }
tx1=$(nic_stat tx_packets)
rx1=$(nic_stat rx_packets)
[ $((tx1 - tx0)) -ge 40 ] && [ $((rx1 - rx0)) -ge 40 ] ||
	die "ethtool -S $nic: tx_packets +$((tx1 - tx0)), rx_packets +$((rx1 - rx0)) for 40 each way"
ok "ping both ways, 20 each: ethtool -S tx_packets +$((tx1 - tx0)), rx_packets +$((rx1 - rx0))"

# TCP: $mib MiB from the port's netns to rxe0's side, hashed at both ends
head -c "${mib}M" /dev/urandom >"$work/blob"
want=$(sha256sum <"$work/blob" | cut -d' ' -f1)
timeout 300 /usr/bin/python3 -c '
import hashlib, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5201)); s.listen(1)
c, _ = s.accept(); h = hashlib.sha256(); n = 0
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    h.update(b); n += len(b)
print(n, h.hexdigest())' $ipb >"$work/tcp" 2>&1 &
spid=$!
wire_listening "" 5201 0 || die "TCP server on $ipb: not listening"
ip netns exec $ns timeout 300 /usr/bin/python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], 5201))
with open(sys.argv[2], "rb") as f:
    s.sendfile(f)
s.close()' $ipb "$work/blob" || die "TCP client from $nic"
wait $spid || { cat "$work/tcp"; die "TCP server failed"; }
read -r n got <"$work/tcp"
[ "$n" = $((mib << 20)) ] && [ "$got" = "$want" ] ||
	die "TCP: $n bytes, sha256 $got; sent $((mib << 20)), $want"
ok "TCP: $mib MiB from $nic arrived intact (sha256 ${want:0:16}...)"

ip -n $ns link set "$nic" mtu 9000 || die "$nic: mtu 9000"
ip link set vethA mtu 9000
ip link set vethB mtu 9000
ip netns exec $ns ping -c 3 -W 5 -M do -s 8000 $ipb >"$work/ping" ||
	{ cat "$work/ping"; die "ping -s 8000 at MTU 9000"; }
ok "MTU 9000: ping of 8000 bytes unfragmented"
ip -n $ns link set "$nic" mtu 1500

# GIDs: RoCE v1 and v2 of the netdev's addresses, kept current
gs=$(gid_index sp0 $ipa)
g1=$(gid_index sp0 $ipa "IB/RoCE v1")
gr=$(gid_index rxe0 $ipb)
ok "sp0 GIDs of $ipa: RoCE v2 $gs, RoCE v1 $g1"
ip -n $ns addr add fd77::1/64 dev "$nic" nodad
g6=$(gid_index sp0 fd77::1)
ip -n $ns addr del fd77::1/64 dev "$nic"
for _ in $(seq 50); do
	grep -q '^fd77:0000' /sys/class/infiniband/sp0/ports/1/gids/* 2>/dev/null || break
	sleep 0.2
done
! grep -q '^fd77:0000' /sys/class/infiniband/sp0/ports/1/gids/* 2>/dev/null ||
	die "sp0: the GID of fd77::1 stays after the address went"
ok "IPv6 address fd77::1: GID $g6 added, gone with the address"

wire=$simfs/sp0/wire
wire_capture_start
wire_pingpong ibv_rc_pingpong sp -n $iters -s 4096 -m 1024
wire_pingpong ibv_rc_pingpong rxe -n $iters -s 4096 -m 1024
if ! wire_short; then
	wire_pingpong ibv_ud_pingpong sp -n $iters -s 1024
	wire_pingpong ibv_ud_pingpong rxe -n $iters -s 1024
	wire_rping sp 10
	wire_rping rxe 10
	# 4 KiB SENDs, 64-byte WRITEs (as 57-wire-perf): tshark 4.0 reads
	# a WRITE of 2 bytes, ib_write_lat's default, as an ethertype
	# header and calls it malformed (cRTP)
	for prog in "ib_send_bw -s 4096" "ib_write_lat -s 64"; do
		wire_sides sp
		# shellcheck disable=SC2086 # the program and its size
		$sexec timeout 120 $prog -d $sdev -x "$sg" -p 18700 -F -n 100 >"$work/srv" 2>&1 &
		spid=$!
		wire_listening "$sexec" 18700 0 || { cat "$work/srv"; die "$prog: not listening"; }
		# shellcheck disable=SC2086 # the program and its size
		$cexec timeout 120 $prog -d $cdev -x "$cg" -p 18700 -F -n 100 $srv >"$work/cli" 2>&1 ||
			{ cat "$work/srv" "$work/cli"; die "$prog: client"; }
		wait $spid || { cat "$work/srv" "$work/cli"; die "$prog: server"; }
		line=$(awk '/^ *#bytes/ { getline; print; exit }' "$work/cli")
		[ -n "$line" ] || { cat "$work/cli"; die "$prog: no result line"; }
		ok "$prog sp0 serving, rxe0 client: $line"
	done
fi
wire_capture_check $((iters * 2)) $ipa --want v4-model v4-peer
wire_counters_zero

# The cable: down under RC SENDs in flight, then up again. wire_retry
# link keeps 16 SENDs of 4 KiB in flight from sp0 to rxe0 while it runs
# WIRE_RETRY_CUT (vethB down: the cable loses its carrier): the SENDs
# acknowledged complete, the first that was not ends in
# IBV_WC_RETRY_EXC_ERR within the IBTA's bound of timeout 14, retry_cnt 7
# (at most 2.2 s after the cut), the rest flushed.
ibv_asyncwatch -d sp0 >"$work/async" 2>&1 &
apid=$!
sleep 1
WIRE_RETRY_CUT="ip link set vethB down" wire_prog link sp0 "$gs" rxe0 "$gr" 14 7
for _ in $(seq 100); do
	ip -n $ns link show "$nic" | grep -q NO-CARRIER && break
	sleep 0.1
done
ip -n $ns link show "$nic" | grep -q NO-CARRIER ||
	{ ip -n $ns link show "$nic"; die "$nic: carrier stays with the cable down"; }
wait_port DOWN
for _ in $(seq 50); do
	grep -q PORT_ERR "$work/async" && break
	sleep 0.2
done
grep -q PORT_ERR "$work/async" || { cat "$work/async"; die "no IBV_EVENT_PORT_ERR"; }
ok "vethB down: $nic NO-CARRIER, port DOWN, IBV_EVENT_PORT_ERR; SENDs in flight: IBV_WC_RETRY_EXC_ERR ($(grep '^time_ms' "$work/prog")), the rest flushed"
ip link set vethB up
wait_port ACTIVE
for _ in $(seq 50); do
	grep -q PORT_ACTIVE "$work/async" && break
	sleep 0.2
done
grep -q PORT_ACTIVE "$work/async" || { cat "$work/async"; die "no IBV_EVENT_PORT_ACTIVE"; }
kill $apid 2>/dev/null; wait $apid 2>/dev/null || true
wire_pingpong ibv_rc_pingpong sp -n $iters -s 4096 -m 1024
ok "vethB up: port ACTIVE, IBV_EVENT_PORT_ACTIVE, a new RC pingpong"
cat "$simfs/sp0/port"

wire_done
echo "port: $checks checks passed"
