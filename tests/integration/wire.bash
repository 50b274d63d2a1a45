# The wire against rxe, for 55-wire-rxe.sh and 56-wire-loss.sh (sourced
# after lib.bash): a veth pair, the model device sp0 on vethA in a
# network namespace of its own (ns sp), rxe0 on vethB in the initial one
# (rxe receives only there); their IPv4 RoCE v2 GIDs in $gs and $gr, the
# model's wire counters in $wire. wire_setup skips (77) where the kernel
# has no veth (the debug kernel); the EXIT trap (wire_cleanup, then
# wire_cleanup_hook if the test defines one) removes the devices, the
# namespace and the modules it loaded, so the tests after it start from
# nothing.

checks=0
ok() { checks=$((checks + 1)); echo "ok   $*"; }
ns=sp
ipa=10.77.0.1
ipb=10.77.0.2
work=$(mktemp -d /tmp/wire.XXXXXX)

# gid_index DEV IP: the RoCE v2 GID of IP in DEV's table
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 want f i n
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for i in $(seq 50); do
		for f in "$d"/gids/*; do
			n=${f##*/}
			if [ "$(cat "$f")" = "$want" ] &&
			   [ "$(cat "$d/gid_attrs/types/$n" 2>/dev/null)" = "RoCE v2" ]; then
				echo "$n"
				return 0
			fi
		done
		sleep 0.2
	done
	die "$1: no RoCE v2 GID for $2"
}

wire_cleanup() {
	if declare -F wire_cleanup_hook >/dev/null; then
		wire_cleanup_hook || true
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

# wire_setup MARK: load, the pair, the two devices
wire_setup() {
	trap wire_cleanup EXIT
	# the debug kernel has no veth: the wire is a stock-kernel test
	if ! modprobe veth 2>/dev/null; then
		echo "SKIP: no veth in this kernel"
		exit 77
	fi
	load
	loaded=1
	modprobe rdma_rxe
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

# wire_pingpong PROG SERVER-SIDE ARGS...: a pingpong of $iters iterations,
# server on SERVER-SIDE (sp|rxe), the other side the client; each within
# ${WIRE_PP_TIMEOUT:-60} s, both exit 0, both did $iters iterations, and
# neither says its data was invalid (ibv_rc_pingpong -c)
wire_pingpong() {
	local prog=$1 side=$2 sdev cdev sg cg sexec cexec srv out rc port
	local t=${WIRE_PP_TIMEOUT:-60}
	shift 2
	port=$((18515 + checks))
	if [ "$side" = sp ]; then
		sdev=sp0; sg=$gs; sexec="ip netns exec $ns"
		cdev=rxe0; cg=$gr; cexec=""; srv=$ipa
	else
		sdev=rxe0; sg=$gr; sexec=""
		cdev=sp0; cg=$gs; cexec="ip netns exec $ns"; srv=$ipb
	fi
	$sexec timeout "$t" "$prog" -d $sdev -g "$sg" -p $port "$@" >"$work/srv" 2>&1 &
	local spid=$! i
	for i in $(seq 100); do
		$sexec ss -ltn | grep -q ":$port " && break
		sleep 0.2
	done
	rc=0
	$cexec timeout "$t" "$prog" -d $cdev -g "$cg" -p $port "$@" $srv >"$work/cli" 2>&1 || rc=$?
	wait $spid || { cat "$work/srv" "$work/cli"; die "$prog $* (server on $side): server failed"; }
	[ $rc = 0 ] || { cat "$work/srv" "$work/cli"; die "$prog $* (server on $side): client rc $rc"; }
	out=$(grep " iters in " "$work/cli") ||
		{ cat "$work/cli"; die "$prog $*: no result"; }
	grep -q "^$iters iters in" "$work/cli" || { cat "$work/cli"; die "$prog $*: client short"; }
	grep -q "^$iters iters in" "$work/srv" || { cat "$work/srv"; die "$prog $*: server short"; }
	! grep -qi "invalid data" "$work/srv" "$work/cli" ||
		{ cat "$work/srv" "$work/cli"; die "$prog $*: invalid data"; }
	ok "$prog $* server on $side: $out"
}
