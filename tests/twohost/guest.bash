#!/bin/bash
# usage: tests/twohost/guest.bash a|b
# One side of tests/twohost/run, in its guest: the guest's one NIC (a
# virtio-net on a QEMU stream netdev shared with the other guest, over a
# Unix socket of the host, or its 127.0.0.1 with --link tcp) gets 10.78.0.1/24 (a) or 10.78.0.2/24 (b) and a
# model device sp0 on it; every peer GID is then another kernel's, so all
# traffic is RoCEv2 on the NIC. Both sides run the same sequence:
# ibv_ud_pingpong, ibv_rc_pingpong (messages below and above the path
# MTU), rping, each with the server on either guest, perftest's six
# benchmarks (send/write/read bandwidth and latency) with the server's
# guest alternating (a captures them: tshark reads every packet, every
# ICRC recomputed); then NVMe-oF from b
# (nvme-rdma) to a (nvmet-rdma on a scsi_debug disk), without PI and
# with T10-PI. The guests synchronise over the link: b reaches a first,
# then each step's server side, once it listens, tells the client side
# over TCP (barrier_post / barrier_wait). The model's wire counters must
# show packets both ways on the NIC and no bad packet. Exits non-zero on
# the first failed check; TWOHOST_ITERS (default 20) iterations a run,
# TWOHOST_CASES (default "verbs nvme") the parts run, TWOHOST_PORT the
# sides whose device's port has the NIC as its cable, its address on the
# driver's netdev for the port (a host with a card, Documentation/mlx5sp/
# port.rst).
# shellcheck source=tests/integration/lib.bash
. "$MLX5SP_TOP/tests/integration/lib.bash"
# shellcheck source=tests/integration/wire.bash
. "$MLX5SP_TOP/tests/integration/wire.bash"
# shellcheck source=tests/integration/ulp.bash
. "$MLX5SP_TOP/tests/integration/ulp.bash"

me=$1
iters=${TWOHOST_ITERS:-20}
cases=${TWOHOST_CASES:-verbs nvme}
# TWOHOST_PORT: the sides ("a", "b", "a b") whose device is made with the
# NIC as its port's cable (debugfs add cable=), as a host with a card
cabled=0
[[ " ${TWOHOST_PORT:-} " == *" $1 "* ]] && cabled=1
ipa=10.78.0.1
ipb=10.78.0.2
case $me in
a) myip=$ipa peer=$ipb mac=52:54:00:78:00:01 ;;
b) myip=$ipb peer=$ipa mac=52:54:00:78:00:02 ;;
*) echo "usage: $0 a|b" >&2; exit 2 ;;
esac
bport=7999	# the barrier's TCP port
t0=$SECONDS
say() { echo "[$me +$((SECONDS - t0))s] $*"; }
ok() { checks=$((checks + 1)); echo "ok   [$me +$((SECONDS - t0))s] $*"; }

# barrier_wait TAG [SECS]: the peer's barrier_post TAG, within SECS
# (default 300); a listener on our address that takes one connection.
barrier_wait() {
	local got
	got=$(timeout "${2:-300}" /usr/bin/python3 - "$myip" "$bport" <<-'PY'
	import socket, sys
	s = socket.socket()
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	s.bind((sys.argv[1], int(sys.argv[2])))
	s.listen(1)
	c, _ = s.accept()
	print(c.makefile().readline().strip())
	PY
	) || die "barrier: no '$1' from the peer"
	# the peer failed: it is not waiting for us
	[ "${got%% *}" = abort ] && peer_gone=1
	[ "${got%% *}" = "$1" ] || die "barrier: '$got' from the peer, expected '$1'"
	barrier_msg=${got#"$1"}
	barrier_msg=${barrier_msg# }
}

# barrier_post TAG [TEXT]: tell the peer (retried until it listens, 300 s)
barrier_post() {
	local i
	for i in $(seq 600); do
		# shellcheck disable=SC2016 # the inner shell's arguments
		if timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" && echo "$3" >&3' _ \
			"$peer" "$bport" "$*" 2>/dev/null; then
			return 0
		fi
		sleep 0.5
	done
	die "barrier: the peer never took '$1'"
}

# die: also tell the peer, which may be waiting for us (best effort, 25 s)
die() {
	echo "FAIL: [$me +$((SECONDS - t0))s] $*" >&2
	dmesg | tail -n 40 >&2
	local i
	for i in $(seq $((${peer_gone:-0} ? 0 : 10))); do
		# shellcheck disable=SC2016 # the inner shell's arguments
		timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2" && echo "$3" >&3' _ \
			"$peer" "$bport" "abort $me failed: $*" 2>/dev/null && break
		sleep 0.5
	done
	exit 1
}

cleanup() {
	[ -n "${tpid:-}" ] && kill "$tpid" 2>/dev/null
	nvme disconnect-all >/dev/null 2>&1 || true
	nvmet_clear 2>/dev/null || true
	if [ "$cabled" = 1 ]; then
		del sp0 2>/dev/null || true
	else
		rdma link delete sp0 2>/dev/null || true
	fi
}
trap cleanup EXIT

# shellcheck disable=SC2119 # no arguments: no module parameters
load
mod virtio_net || die "no virtio_net"
dev=
for _ in $(seq 50); do
	for n in /sys/class/net/*; do
		[ "$(cat "$n/address" 2>/dev/null)" = "$mac" ] && dev=${n##*/}
	done
	[ -n "$dev" ] && break
	sleep 0.2
done
[ -n "$dev" ] || { ip link; die "no NIC with MAC $mac"; }
if [ "$cabled" = 1 ]; then
	# a host with a card: the NIC is the cable of sp0's physical port,
	# the address goes on the driver's netdev for that port
	sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip link set "$dev" up
	add sp0 "cable=$dev" || die "add sp0 cable=$dev"
	nic=
	for _ in $(seq 100); do
		nic=$(rdma link show sp0/1 2>/dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
		[ -n "$nic" ] && break
		sleep 0.1
	done
	[ -n "$nic" ] || { rdma link show; die "sp0: no netdev on port 1"; }
	ip addr add "$myip/24" dev "$nic"
	ip link set "$nic" up
	for _ in $(seq 100); do
		grep -q ACTIVE /sys/class/infiniband/sp0/ports/1/state && break
		sleep 0.1
	done
	grep -q ACTIVE /sys/class/infiniband/sp0/ports/1/state ||
		die "sp0 port 1: $(cat /sys/class/infiniband/sp0/ports/1/state)"
	where="the port of cable $dev, netdev $nic ($(cat "/sys/class/net/$nic/address"))"
else
	ip addr add "$myip/24" dev "$dev"
	ip link set "$dev" up
	rdma link add sp0 type mlx5sp netdev "$dev" || die "rdma link add sp0 netdev $dev"
	where="$dev ($mac)"
fi
g=$(gid_index sp0 "$myip")
wire=$simfs/sp0/wire
grep -q '^up 1$' "$wire" || { cat "$wire"; die "sp0: not on the wire"; }
ok "sp0 on $where, $myip, RoCE v2 GID index $g"

# the link: b's word reaches a over TCP (retried until a listens: ARP,
# IPv4 and TCP across the NIC both ways)
if [ "$me" = b ]; then
	barrier_post hello
else
	barrier_wait hello 600
fi
ok "the link is up: $ipa <-> $ipb"

step=0
# pp PROG SERVER(a|b) ARGS...: a pingpong of $iters iterations across
# the link, the server on guest SERVER; both exit 0 with $iters iterations
# and no invalid data
pp() {
	local prog=$1 srv=$2 port out rc=0
	shift 2
	step=$((step + 1))
	port=$((18515 + step))
	if [ "$srv" = "$me" ]; then
		timeout 120 "$prog" -d sp0 -g "$g" -p $port "$@" >/tmp/pp.out 2>&1 &
		local pid=$!
		wait_for 30 bash -c "ss -ltn | grep -q ':$port '" || die "$prog: server not listening"
		barrier_post "pp$step"
		wait $pid || rc=$?
	else
		barrier_wait "pp$step"
		timeout 120 "$prog" -d sp0 -g "$g" -p $port "$@" "$peer" >/tmp/pp.out 2>&1 || rc=$?
	fi
	[ $rc = 0 ] || { cat /tmp/pp.out; die "$prog $* (server on $srv): status $rc"; }
	out=$(grep "^$iters iters in" /tmp/pp.out) || { cat /tmp/pp.out; die "$prog $* (server on $srv): short"; }
	! grep -qi "invalid data" /tmp/pp.out || { cat /tmp/pp.out; die "$prog $*: invalid data"; }
	ok "$prog $* server on $srv ($([ "$srv" = "$me" ] && echo server || echo client)): $out"
}

# rp SERVER(a|b): rping of $iters pings with validation (rdma_cm: its
# CM MADs through GSI on the wire), the server on guest SERVER
rp() {
	local srv=$1 rc=0 sip=$ipa n
	step=$((step + 1))
	[ "$srv" = b ] && sip=$ipb
	if [ "$srv" = "$me" ]; then
		timeout 120 rping -s -a "$sip" -p $((7000 + step)) -C "$iters" -S 100 -V -v >/tmp/rp.out 2>&1 &
		local pid=$!
		wait_for 30 bash -c "rdma resource show cm_id 2>/dev/null | grep -q 'state LISTEN.*src-addr $sip:$((7000 + step))'" ||
			{ rdma resource show cm_id; die "rping: server not listening"; }
		barrier_post "rp$step"
		wait $pid || rc=$?
	else
		barrier_wait "rp$step"
		timeout 120 rping -c -a "$sip" -p $((7000 + step)) -C "$iters" -S 100 -V -v >/tmp/rp.out 2>&1 || rc=$?
	fi
	[ $rc = 0 ] || { cat /tmp/rp.out; die "rping (server on $srv): status $rc"; }
	n=$(grep -c "ping data: " /tmp/rp.out || true)
	[ "$n" -ge "$iters" ] || { cat /tmp/rp.out; die "rping (server on $srv): $n pings of $iters"; }
	ok "rping -C $iters -S 100 -V server on $srv: $n pings validated"
}

# pt PROG SERVER(a|b) SIZE: a perftest benchmark of $iters iterations
# of SIZE bytes across the link (QPs exchanged over TCP), the server on
# guest SERVER; both exit 0 and the client prints its result line for
# SIZE x $iters: a bandwidth above zero, or latencies in order (none when
# perftest's clock calibration failed, as under TCG on a loaded host)
pt() {
	local prog=$1 srv=$2 size=$3 port rc=0 line
	step=$((step + 1))
	port=$((19515 + step))
	if [ "$srv" = "$me" ]; then
		timeout 120 "$prog" -d sp0 -x "$g" -p $port -F -s "$size" -n "$iters" >/tmp/pt.out 2>&1 &
		local pid=$!
		wait_for 30 bash -c "ss -ltn | grep -q ':$port '" || die "$prog: server not listening"
		barrier_post "pt$step"
		wait $pid || rc=$?
		[ $rc = 0 ] || { cat /tmp/pt.out; die "$prog -s $size (server on $srv): status $rc"; }
		ok "$prog -s $size -n $iters server on $srv (server): done"
		return 0
	fi
	barrier_wait "pt$step"
	timeout 120 "$prog" -d sp0 -x "$g" -p $port -F -s "$size" -n "$iters" "$peer" >/tmp/pt.out 2>&1 || rc=$?
	[ $rc = 0 ] || { cat /tmp/pt.out; die "$prog -s $size (server on $srv): status $rc"; }
	# the line under "#bytes": bw: bytes iterations peak average msgrate;
	# lat: bytes iterations min max typical average ...
	line=$(awk '/^ *#bytes/ { getline; print; exit }' /tmp/pt.out)
	# shellcheck disable=SC2086 # the fields
	set -- $line
	[ "${1:-}" = "$size" ] && [ "${2:-}" = "$iters" ] ||
		{ cat /tmp/pt.out; die "$prog (server on $srv): no result line for $size x $iters"; }
	if grep -q "^Correlation coefficient r^2" /tmp/pt.out; then
		ok "$prog -s $size -n $iters server on $srv (client): completed (no numbers: clock calibration failed)"
		return 0
	fi
	case $prog in
	*_bw)
		awk -v b="$4" 'BEGIN { exit !(b > 0) }' || { cat /tmp/pt.out; die "$prog: bandwidth $4"; }
		ok "$prog -s $size -n $iters server on $srv (client): $4 MB/s average"
		;;
	*)
		awk -v mn="$3" -v mx="$4" -v ty="$5" -v av="$6" \
			'BEGIN { exit !(mn > 0 && mn <= ty && mn <= av && av <= mx) }' ||
			{ cat /tmp/pt.out; die "$prog: latencies $line"; }
		ok "$prog -s $size -n $iters server on $srv (client): typical $5 us, average $6 us"
		;;
	esac
}

if [[ " $cases " == *" verbs "* ]]; then
	# a captures its NIC (both guests' packets) for tshark and the ICRCs
	[ "$me" = a ] && wire_capture_start "$dev"
	for srv in a b; do
		pp ibv_ud_pingpong $srv -n "$iters" -s 1024
		pp ibv_rc_pingpong $srv -n "$iters" -s 64 -m 1024
		pp ibv_rc_pingpong $srv -n "$iters" -s 8192 -m 1024
		rp $srv
	done
	# perftest, each benchmark once, the server's guest alternating
	pt ib_send_bw a 4096
	pt ib_write_bw b 4096
	pt ib_read_bw a 4096
	pt ib_send_lat b 64
	pt ib_write_lat a 64
	pt ib_read_lat b 64
	[ "$me" = a ] && wire_capture_check $((iters * 8)) "$ipa" "$ipb" \
		--want v4-model-rc v4-model-ud
fi

# --- NVMe-oF: b (nvme-rdma) -> a (nvmet-rdma), without and with T10-PI ---
nqn_nopi=nqn.2026-11.io.mlx5sp:twohost-nopi
nqn_pi=nqn.2026-11.io.mlx5sp:twohost-pi
# io_check NS: data at 3 sizes written by O_DIRECT and read back equal;
# prints the sha256 of the first 4 MiB (the target compares its own)
io_check() {
	local ns=$1 sz off=0
	for sz in 4096 65536 1048576; do
		head -c "$sz" /dev/urandom >/tmp/w
		dd if=/tmp/w of="$ns" bs="$sz" seek=$((off / sz)) oflag=direct conv=notrunc status=none ||
			die "write of $sz bytes at $off to $ns"
		dd if="$ns" of=/tmp/r bs="$sz" skip=$((off / sz)) count=1 iflag=direct status=none ||
			die "read of $sz bytes at $off from $ns"
		cmp -s /tmp/w /tmp/r || die "$ns: $sz bytes at $off read back differ"
		off=$((off + 1048576))
	done
	dd if="$ns" bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1
}

if [[ " $cases " == *" nvme "* ]] && [ "$me" = a ]; then
	need_mod nvmet-rdma
	modprobe sd_mod 2>/dev/null || true	# built in, or no disk for scsi_debug
	pidisk=$(pi_disk 16 delay=0) || die "no scsi_debug disk with T10-DIF-TYPE1-CRC"
	truncate -s 16M /tmp/nopi.img
	nvmet_subsys $nqn_nopi /tmp/nopi.img 0
	nvmet_subsys $nqn_pi "$pidisk" 1
	nvmet_port 1 $ipa 4420 0 $nqn_nopi
	nvmet_port 2 $ipa 4421 1 $nqn_pi
	ok "nvmet-rdma: $nqn_nopi (file) on $ipa:4420, $nqn_pi ($pidisk, DIF type 1 + DIX) on $ipa:4421 with PI"
	barrier_post nvmet-ready
	barrier_wait nopi-done 600
	sum=$(dd if=/tmp/nopi.img bs=1M count=4 status=none | sha256sum | cut -d' ' -f1)
	[ "$sum" = "$barrier_msg" ] || die "no PI: the host's data ($barrier_msg) is not in the file ($sum)"
	ok "no PI: the first 4 MiB of the file are what the host wrote"
	sig0=$(stat sp0 sig_transfers)
	barrier_post nopi-checked
	barrier_wait pi-done 600
	sig1=$(stat sp0 sig_transfers)
	# O_DIRECT from the disk: its integrity profile checks the PI written
	sum=$(dd if="$pidisk" bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1) ||
		die "PI: reading $pidisk (its PI check) failed"
	[ "$sum" = "$barrier_msg" ] || die "PI: the host's data ($barrier_msg) is not on the disk ($sum)"
	[ $((sig1 - sig0)) -gt 0 ] || die "PI: no signature transfers on the target's sp0"
	ok "PI: the first 4 MiB of the disk are what the host wrote, its DIX check passed; $((sig1 - sig0)) signature transfers on sp0"
	barrier_post pi-checked
	nvmet_clear
	rmmod scsi_debug 2>/dev/null || true
elif [[ " $cases " == *" nvme "* ]]; then
	need_mod nvme-rdma
	# a transfer that fails on the wire: the controller gives up and its
	# I/O fails within half a minute (not nvme's 10-minute reconnecting)
	export NVME_CONNECT_OPTS="--reconnect-delay=2 --ctrl-loss-tmo=30"
	barrier_wait nvmet-ready 600
	for kind in nopi pi; do
		if [ $kind = nopi ]; then nqn=$nqn_nopi svc=4420; else nqn=$nqn_pi svc=4421; fi
		nvme_up $nqn $ipa $svc
		ns=$(nvme_ns $nqn)
		fmt=$(cat "/sys/block/${ns#/dev/}/integrity/format" 2>/dev/null || echo none)
		if [ $kind = pi ]; then
			[ "$fmt" = T10-DIF-TYPE1-CRC ] || die "PI: $ns integrity format $fmt"
		else
			[ "$fmt" = none ] || die "no PI: $ns integrity format $fmt"
		fi
		ok "$kind: connected to $ipa:$svc, $ns (integrity $fmt)"
		sig0=$(stat sp0 sig_transfers)
		sum=$(io_check "$ns")
		sig1=$(stat sp0 sig_transfers)
		# the host's keys: through signature keys with PI, never without
		if [ $kind = pi ]; then
			[ $((sig1 - sig0)) -gt 0 ] || die "PI: no signature transfers on the host's sp0"
		else
			[ "$sig1" = "$sig0" ] || die "no PI: I/O went through signature keys"
		fi
		ok "$kind: 4 KiB, 64 KiB, 1 MiB O_DIRECT written and read back equal; $((sig1 - sig0)) signature transfers on sp0"
		nvme disconnect -n $nqn >/dev/null || die "$kind: disconnect"
		! nvme_ctrl $nqn >/dev/null || die "$kind: controller left after disconnect"
		ok "$kind: disconnected"
		barrier_post $kind-done "$sum"
		barrier_wait $kind-checked 600
	done
fi

cat "$wire"
for c in rx_bad_icrc rx_bad_hdr; do
	grep -q "^$c 0$" "$wire" || die "sp0 wire: $c not 0"
done
tx=$(awk '$1 == "tx_pkts" { print $2 }' "$wire")
rx=$(awk '$1 == "rx_pkts" { print $2 }' "$wire")
[ "${tx:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] ||
	die "sp0 wire: tx_pkts ${tx:-?} rx_pkts ${rx:-?}"
ok "sp0 wire counters: $(grep -E '^(tx_pkts|rx_pkts|retransmits|dup_reqs) ' "$wire" | tr '\n' ' ')"
# the last word: neither side leaves before the other has finished
if [ "$me" = a ]; then barrier_wait bye; else barrier_post bye; fi
trap - EXIT
cleanup
unload || die "the modules did not unload"
echo "twohost $me: $checks checks passed in $((SECONDS - t0))s"
