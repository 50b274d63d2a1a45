# The wire against rxe, for 55-wire-rxe.sh and 56-wire-loss.sh (sourced
# after lib.bash): a veth pair, the model device sp0 on vethA in a
# network namespace of its own (ns sp), rxe0 on vethB in the initial one
# (rxe receives only there); their IPv4 RoCE v2 GIDs in $gs and $gr, the
# model's wire counters in $wire. wire_setup skips (77) where the kernel
# has no veth; the EXIT trap (wire_cleanup, then
# wire_cleanup_hook if the test defines one) removes the devices, the
# namespace and the modules it loaded, so the tests after it start from
# nothing.

ns=sp
ipa=10.77.0.1
ipb=10.77.0.2
work=$(mktemp -d /tmp/wire.XXXXXX)

# gid_index DEV ADDR [TYPE]: the GID of ADDR (IPv4 or IPv6) in DEV's table
# of type TYPE (sysfs's name: "RoCE v2", the default, or "IB/RoCE v1")
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 want f _ n g ty
	local type=${3:-RoCE v2}
	if [[ "$2" == *:* ]]; then
		want=$(/usr/bin/python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$2")
	else
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	fi
	# read, not $(cat): a fork per GID entry is seconds under TCG
	for _ in $(seq 50); do
		for f in "$d"/gids/*; do
			read -r g <"$f" 2>/dev/null || continue
			[ "$g" = "$want" ] || continue
			n=${f##*/}
			read -r ty <"$d/gid_attrs/types/$n" 2>/dev/null || continue
			if [ "$ty" = "$type" ]; then
				echo "$n"
				return 0
			fi
		done
		sleep 0.2
	done
	die "$1: no $type GID for $2"
}

# wire_stat FILE KEY: the value of KEY in FILE, a model device's debugfs
# wire file ("KEY VALUE" lines); fails the test when FILE has no KEY
wire_stat() {
	local k v
	while read -r k v; do
		if [ "$k" = "$2" ]; then
			[[ $v =~ ^[0-9]+$ ]] || die_test "wire_stat: $1: $2 is \"$v\", not a count"
			echo "$v"
			return 0
		fi
	done <"$1" || die_test "wire_stat: cannot read $1"
	die_test "wire_stat: $1 has no $2"
}

wire_cleanup() {
	if declare -F wire_cleanup_hook >/dev/null; then
		wire_cleanup_hook || true
	fi
	if [ -n "${tpid:-}" ]; then
		kill "$tpid" 2>/dev/null
		tpid=
	fi
	rdma link delete rxe0 2>/dev/null || true
	ip netns exec $ns rdma link delete sp0 2>/dev/null || true
	ip netns del $ns 2>/dev/null || true
	ip link del vethB 2>/dev/null || true
	if [ -n "${loaded:-}" ]; then
		unload || echo "FAIL: the modules did not unload"
		loaded=
	fi
}

# wire_prog MODE ARGS...: tests/userspace/wire_retry.c, its output shown,
# its status checked
wire_prog() {
	local out=$work/prog rc=0
	timeout 600 "$(test_prog wire_retry)" "$@" >"$out" 2>&1 || rc=$?
	cat "$out"
	[ $rc = 0 ] || die "wire_retry $*: status $rc"
}

# The debug kernel (KASAN, lockdep, kmemleak) runs the wire's code paths,
# the stock kernel its behaviour in full: on the debug kernel make test
# runs 56-wire-loss (retransmission, loss, reordering, duplication, the
# window, atomics, signature WQEs, retry and RNR timing) in its short
# form (wire_short) and 61-peer-gone's model rows; the other wire tests
# (wire_debug_opt_in: VLANs, pingpongs and captures, performance, IPv6
# and UC, RoCE v1 and ECN) only with MLX5SP_WIRE_ALL=1 in the guest's
# environment, which also gives the long forms. Each pingpong or capture
# step costs some 10-20 s of process start-up under the debug kernel.
# wire_short: true where a wire test runs its short form (or, through
# wire_debug_opt_in, none)
wire_short() { [ "${MLX5SP_KERNEL:-}" = debug ] && [ -z "${MLX5SP_WIRE_ALL:-}" ]; }

wire_debug_opt_in() {
	if wire_short; then
		echo "SKIP: on the debug kernel with MLX5SP_WIRE_ALL=1 only"
		exit 77
	fi
}

# wire_neigh ADDR-A ADDR-B: permanent neighbour entries for the two ends
# (ADDR-A on vethA in netns $ns, ADDR-B on vethB), each with the other's
# MAC. A QP's move to RTR resolves its destination MAC through ib_core's
# rdma_addr_find_l2_eth_by_grh(), which waits 1 s for the neighbour: one
# lost ARP request or reply (netem's loss is on every frame) or a guest
# too busy to answer in time and the modify fails with ETIMEDOUT. These
# tests are of RoCE on the wire, not of the host's neighbour discovery.
wire_neigh() {
	local maca macb
	maca=$(ip netns exec $ns cat /sys/class/net/vethA/address)
	macb=$(cat /sys/class/net/vethB/address)
	ip -n $ns neigh replace "$2" lladdr "$macb" dev vethA nud permanent ||
		die "neighbour $2 on vethA"
	ip neigh replace "$1" lladdr "$maca" dev vethB nud permanent ||
		die "neighbour $1 on vethB"
}

# wire_setup MARK: load, the pair, the two devices
wire_setup() {
	# a kernel without veth (said before the clean-up trap)
	if ! mod veth; then
		echo "SKIP: no veth in this kernel"
		exit 77
	fi
	trap wire_cleanup EXIT
	load
	loaded=1
	mod rdma_rxe || die "no rdma_rxe"
	mark "$1"
	ip netns add $ns
	ip link add vethA type veth peer name vethB
	ip link set vethA netns $ns
	ip -n $ns link set lo up
	ip -n $ns addr add $ipa/24 dev vethA
	ip -n $ns link set vethA up
	ip addr add $ipb/24 dev vethB
	ip link set vethB up
	ip netns exec $ns rdma link add sp0 type mlx5sp netdev vethA ||
		die "rdma link add sp0 in netns $ns"
	rdma link add rxe0 type rxe netdev vethB || die "rdma link add rxe0"
	wire_neigh $ipa $ipb
	gs=$(gid_index sp0 $ipa)
	gr=$(gid_index rxe0 $ipb)
	wire=$simfs/sp0/wire
	grep -q '^up 1$' "$wire" || { cat "$wire"; die "sp0: not on the wire"; }
	ok "sp0 on vethA (netns $ns) GID $gs, rxe0 on vethB GID $gr"
}

# wire_done: the clean-up of the EXIT trap, checked
wire_done() {
	trap - EXIT
	wire_cleanup
	! lsmod | grep -q '^mlx5sp ' || die "mlx5sp still loaded after the test"
}

# wire_sides SERVER-SIDE: sdev, sg, sexec (the server's device, GID and
# command prefix), cdev, cg, cexec (the client's) and srv (the server's
# address): sp is sp0 in netns $ns at $ipa with GID $gs, the other side
# the peer ($wire_peer or rxe0) at $ipb with GID $gr
wire_sides() {
	if [ "$1" = sp ]; then
		sdev=sp0; sg=$gs; sexec="ip netns exec $ns"
		cdev=${wire_peer:-rxe0}; cg=$gr; cexec=""; srv=$ipa
	else
		sdev=${wire_peer:-rxe0}; sg=$gr; sexec=""
		cdev=sp0; cg=$gs; cexec="ip netns exec $ns"; srv=$ipb
	fi
}

# wire_listening EXEC PORT CM: wait until a server listens on PORT (TCP,
# or an rdma_cm ID when CM is 1)
wire_listening() {
	local _
	for _ in $(seq 150); do
		if [ "$3" = 1 ]; then
			$1 rdma resource show cm_id 2>/dev/null |
				grep -Eq "LISTEN.*:$2( |$)" && return 0
		else
			$1 ss -ltn | grep -q ":$2 " && return 0
		fi
		sleep 0.2
	done
	return 1
}

# wire_rping SERVER-SIDE COUNT [TIMEOUT]: rping (rdma_cm: its MADs are
# GSI datagrams) with the server on SERVER-SIDE (wire_sides), COUNT pings
# with data verified, each side seeing all of them
wire_rping() {
	local side=$1 npings=$2 t=${3:-120} rc=0 n spid f
	local sdev cdev sg cg sexec cexec srv
	wire_sides "$side"
	$sexec timeout "$t" rping -s -a $srv -p 7174 -V -v >"$work/srv" 2>&1 &
	spid=$!
	wire_listening "$sexec" 7174 1 || { cat "$work/srv"; die "rping server on $sdev: not listening"; }
	$cexec timeout "$t" rping -c -a $srv -p 7174 -C "$npings" -V -v >"$work/cli" 2>&1 || rc=$?
	wait $spid || { cat "$work/srv" "$work/cli"; die "rping (server on $sdev): server failed"; }
	[ $rc = 0 ] || { cat "$work/srv" "$work/cli"; die "rping (server on $sdev): client rc $rc"; }
	for f in srv cli; do
		n=$(grep -c "ping data: rdma-ping-" "$work/$f")
		[ "$n" = "$npings" ] || { cat "$work/$f"; die "rping (server on $sdev): $f saw $n pings of $npings"; }
	done
	ok "rping server on $sdev ($srv): $npings pings each way, data verified"
}

# wire_pingpong PROG SERVER-SIDE ARGS...: a pingpong of $iters iterations,
# server on SERVER-SIDE (wire_sides), the other side the client; each within
# ${WIRE_PP_TIMEOUT:-60} s, both exit 0, both did $iters iterations, and
# neither says its data was invalid (ibv_rc_pingpong -c). Line-buffered:
# the side the other's failure leaves waiting is killed by timeout, and
# what it printed must still be in the log.
wire_pingpong() {
	local prog=$1 side=$2 sdev cdev sg cg sexec cexec srv out rc port
	local t=${WIRE_PP_TIMEOUT:-60}
	shift 2
	port=$((18515 + checks))
	wire_sides "$side"
	$sexec timeout "$t" stdbuf -oL "$prog" -d $sdev -g "$sg" -p $port "$@" >"$work/srv" 2>&1 &
	local spid=$! i
	for i in $(seq 100); do
		$sexec ss -ltn | grep -q ":$port " && break
		sleep 0.2
	done
	rc=0
	$cexec timeout "$t" stdbuf -oL "$prog" -d $cdev -g "$cg" -p $port "$@" $srv >"$work/cli" 2>&1 || rc=$?
	wait $spid || { cat "$work/srv" "$work/cli"; die "$prog $* (server on $side): server failed"; }
	[ $rc = 0 ] || { cat "$work/srv" "$work/cli"; die "$prog $* (server on $side): client rc $rc"; }
	out=$(grep " iters in " "$work/cli") ||
		{ cat "$work/cli"; die "$prog $*: no result"; }
	grep -q "^$iters iters in" "$work/cli" || { cat "$work/cli"; die "$prog $*: client short"; }
	grep -q "^$iters iters in" "$work/srv" || { cat "$work/srv"; die "$prog $*: server short"; }
	! grep -qi "invalid data" "$work/srv" "$work/cli" ||
		{ cat "$work/srv" "$work/cli"; die "$prog $*: invalid data"; }
	ok "$prog $* server on $sdev: $out"
}

# wire_rd_atom DEV...: the smallest max_qp_rd_atom of the devices (the
# READs perftest may keep in flight against all of them: rxe 128, mlx5sp
# 16 as ConnectX's log_max_ra_req_qp 4)
wire_rd_atom() {
	local d v min=
	for d in "$@"; do
		v=$(ibv_devinfo -d "$d" -v | awk '$1 == "max_qp_rd_atom:" { print $2 }')
		[ -n "$v" ] || die "$d: no max_qp_rd_atom"
		[ -z "$min" ] || [ "$v" -lt "$min" ] && min=$v
	done
	echo "$min"
}

# wire_counters_zero [COUNTER...]: the model's wire counters shown, and
# each COUNTER (default rx_bad_icrc rx_bad_hdr) still 0
wire_counters_zero() {
	local c
	cat "$wire"
	[ $# -gt 0 ] || set -- rx_bad_icrc rx_bad_hdr
	for c in "$@"; do
		grep -q "^$c 0$" "$wire" || die "sp0 wire: $c not 0"
	done
	ok "sp0 wire counters: $(grep -E '^(tx_pkts|rx_pkts|retransmits|dup_reqs) ' "$wire" | tr '\n' ' ')"
}

# wire_capture_start [IFACE]: dumpcap on IFACE (vethB: both sides' packets) into $cap
# until wire_capture_check; dumpcap, not tshark -i: that starts every
# extcap helper first (minutes under TCG)
wire_capture_start() {
	local _
	cap=$work/veth.pcap
	dumpcap -i "${1:-vethB}" -P -w "$cap" -q 2>"$work/dumpcap.log" &
	tpid=$!
	for _ in $(seq 150); do
		[ -s "$cap" ] && break
		sleep 0.2
	done
	[ -s "$cap" ] || die "dumpcap: $(cat "$work/dumpcap.log")"
}

# wire_capture_stop [TSHARK-OPTION...]: stop the capture, and read it with
# tshark once into $fields, a line per frame: its expert severities, the
# protocols, eth.type, VLAN id and priority, IPv4 and IPv6 source, BTH
# opcode (decimal). wire_count and wire_capture_check read that table: each
# tshark run costs seconds under TCG. tshark 4.0's RPC-over-RDMA heuristic
# takes any SEND payload and throws on one shorter than its header
# (perftest -R's 4-byte synchronisation SENDs, rxe's as the model's):
# "Malformed Packet: RPCoRDMA"; none of these captures is RPC over RDMA.
wire_capture_stop() {
	[ -n "${tpid:-}" ] || return 0
	sleep 1
	kill "$tpid"
	wait "$tpid" 2>/dev/null || true
	tpid=
	fields=$work/fields.tsv
	# TCP in the capture is the tests' own setup (perftest's exchange of
	# QP numbers): read as data, or an ephemeral port that is some
	# protocol's (34980, EtherCAT: session 31's rehearsal) fails the check
	tshark --disable-heuristic rpcrdma_infiniband -d tcp.port==1-65535,data \
		"$@" -r "$cap" -T fields \
		-E separator=/t -E occurrence=a -E aggregator=, \
		-e frame.number -e _ws.expert.severity -e frame.protocols -e eth.type \
		-e vlan.id -e vlan.priority -e ip.src -e ipv6.src -e infiniband.bth.opcode \
		>"$fields" 2>"$work/tshark.log" ||
		die "tshark -r $cap: $(tail -n 5 "$work/tshark.log")"
}

# wire_frames CONDITION: the frames of the stopped capture that meet the
# awk CONDITION, over ib (a RoCE frame: tshark's InfiniBand dissector read
# it), bad (malformed, or an expert error), etype (eth.type, "0x8915"), vid
# and pcp (VLAN id and priority), src, src6 (IP sources) and op (BTH
# opcode, a number); wire_count CONDITION: how many.
wire_frames() {
	awk -F'\t' '{
		n_sev = split($2, sev, ","); bad = $3 ~ /_ws\.malformed/
		for (i = 1; i <= n_sev; i++) if (sev[i] + 0 >= 8388608) bad = 1
		ib = $3 ~ /:infiniband(:|$)/
		etype = $4; vid = $5; pcp = $6; src = $7; src6 = $8
		op = $9 == "" ? -1 : $9 + 0
	}
	'"$1" "$fields"
}
wire_count() { wire_frames "$1" | wc -l; }

# wire_capture_check MIN [MODEL-ADDR... --want KEY...]: stop the capture
# (wire_capture_stop, unless the test did); tshark's InfiniBand (RoCE)
# dissector reads it without a malformed packet or an expert error and
# finds at least MIN RoCEv2 packets, and the ICRC of every one is
# recomputed (wire_icrc.py: by default the model is $ipa and both sides
# must have sent)
wire_capture_check() {
	local min=$1 n
	shift
	[ $# -gt 0 ] || set -- "$ipa" --want v4-model v4-peer
	wire_capture_stop
	if [ "$(wire_count bad)" != 0 ]; then
		wire_frames bad | head -n 20
		# the capture, for a look: the VM run's results directory
		[ -n "${MLX5SP_RESULTS:-}" ] && cp "$cap" "$MLX5SP_RESULTS/"
		die "tshark: malformed packets or errors"
	fi
	n=$(wire_count ib)
	[ "$n" -ge "$min" ] || die "tshark: only $n InfiniBand packets (want $min)"
	ok "tshark: $n RoCE packets, none malformed, no expert error"

	# the ICRC of every RoCEv2 packet, recomputed (wire_icrc.py), from
	# both sides
	/usr/bin/python3 "$MLX5SP_TOP/tests/integration/wire_icrc.py" "$cap" "$@" ||
		die "ICRC check failed"
	ok "ICRC valid on every RoCE packet of the capture"
}
