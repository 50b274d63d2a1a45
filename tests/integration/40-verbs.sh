#!/bin/bash
# budget: 360
# The RDMA device with the distribution's rdma-core: rdma link add on a dummy
# netdev, ibv_devices / ibv_devinfo with the mlx5 provider, RC and UD
# pingpong, user doorbells trapped (and none lost when a fault is slow to
# map the page), rping over rdma_cm on the IPv6 link-local address, rdma
# res, a clean kernel log, rdma link delete. A part whose prerequisite the model
# lacks is skipped; the script skips (77) only when nothing could run.
. "$(dirname "$0")/lib.bash"

ran=0 skipped=0
pass() { echo "PASS: $*"; ran=$((ran + 1)); }
skip() { echo "SKIP: $*"; skipped=$((skipped + 1)); }

need() { command -v "$1" >/dev/null || { skip "$1 not installed"; return 1; }; }

load
# rdma_cm's user access (rping): a module on the stock kernel, built in on
# the debug kernel.
modprobe -q rdma_ucm 2>/dev/null || true
mark verbs
ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy
ip link set dummy0 up
# The link-local address comes with DAD; wait until it is usable.
for _ in $(seq 50); do
	ll=$(ip -6 -o addr show dev dummy0 scope link 2>/dev/null |
	     awk '!/tentative/ { sub("/.*", "", $4); print $4; exit }')
	[ -n "$ll" ] && break
	sleep 0.2
done

if ! rdma link add mlx0 type mlx5sp netdev dummy0; then
	die "rdma link add failed"
fi
[ -d /sys/class/infiniband/mlx0 ] || die "mlx0 not registered"
pass "rdma link add"

if need ibv_devices; then
	ibv_devices | tee /dev/stderr | grep -q '^ *mlx0 ' || die "ibv_devices does not list mlx0"
	pass "ibv_devices"
fi

devinfo_ok=0
if need ibv_devinfo; then
	out=$(ibv_devinfo -v -d mlx0 2>&1) || { echo "$out"; die "ibv_devinfo failed"; }
	echo "$out"
	echo "$out" | grep -q "transport:.*InfiniBand" || die "no transport line"
	echo "$out" | grep -q "vendor_id:.*0x02c9" || die "vendor_id is not Mellanox"
	echo "$out" | grep -q "link_layer:.*Ethernet" || die "link layer is not Ethernet"
	echo "$out" | grep -q "fw_ver:.*[0-9]\+\.[0-9]\+\.[0-9]\+" || die "no firmware version"
	# The mlx5 provider answered: it reports its own fields only under -v.
	pass "ibv_devinfo -v (mlx5 provider)"
	devinfo_ok=1
fi

# The GID that belongs to the link-local address, RoCE v2.
gid_idx=
for f in /sys/class/infiniband/mlx0/ports/1/gid_attrs/types/*; do
	i=${f##*/}
	t=$(cat "$f" 2>/dev/null || true)
	g=$(cat "/sys/class/infiniband/mlx0/ports/1/gids/$i" 2>/dev/null || true)
	if [ "$t" = "RoCE v2" ] && [ "${g:0:4}" = fe80 ]; then
		gid_idx=$i
		break
	fi
done
echo "RoCE v2 link-local GID index: ${gid_idx:-none}"

# Data path parts need the model's QP engine: a pingpong that cannot even
# create its QP (EOPNOTSUPP from the model) is skipped, anything else fails.
pingpong() {
	local name=$1; shift
	local log=/tmp/$name.server.log rc
	timeout 60 "$name" -d mlx0 -g "$gid_idx" "$@" >"$log" 2>&1 &
	local srv=$!
	# under a loaded host the server may take seconds to listen
	for _ in $(seq 250); do
		ss -ltn 2>/dev/null | grep -q ':18515 ' && break
		sleep 0.2
	done
	rc=0
	timeout 60 "$name" -d mlx0 -g "$gid_idx" "$@" localhost >/tmp/$name.client.log 2>&1 || rc=$?
	wait "$srv" || true
	cat "$log" /tmp/$name.client.log
	if [ "$rc" = 0 ]; then
		pass "$name"
	elif grep -q "Couldn't create QP\|Couldn't create CQ\|Operation not supported" \
		"$log" /tmp/$name.client.log; then
		skip "$name: the model lacks what it needs"
	else
		die "$name failed ($rc)"
	fi
}

if [ -n "$gid_idx" ] && [ $devinfo_ok = 1 ]; then
	s0=$(stat mlx0 uar_stores) t0=$(stat mlx0 uar_touches)
	r0=$(stat mlx0 inline_runs)
	need ibv_rc_pingpong && pingpong ibv_rc_pingpong -n 100
	s1=$(stat mlx0 uar_stores) t1=$(stat mlx0 uar_touches)
	r1=$(stat mlx0 inline_runs)
	need ibv_ud_pingpong && pingpong ibv_ud_pingpong -n 100
	# User doorbells: libmlx5 rings each with one 8-byte store to its
	# UAR page (no BlueFlame: the model's UAR is not write-combining);
	# the page stays unmapped, the driver executes the store in the
	# fault (uar_store.c) and the model runs the QP there
	# (sim_sq_doorbell()): 200 SENDs, each after a turnaround of the
	# other side, each a store, none mapping the page again.
	if command -v ibv_rc_pingpong >/dev/null && [ -n "$s0" ]; then
		echo "uar stores: $((s1 - s0)) stores, $((t1 - t0)) mappings told, $((r1 - r0)) SQ runs in place, rc_pingpong -n 100"
		[ $((s1 - s0)) -ge 180 ] ||
			die "user doorbells were not taken as stores ($((s1 - s0)) for 200)"
		[ $((t1 - t0)) -le 10 ] ||
			die "user doorbells mapped the UAR page ($((t1 - t0)) times)"
		[ $((r1 - r0)) -ge 100 ] ||
			die "doorbells did not run their QP in place ($((r1 - r0)))"
		pass "user doorbells taken as stores in the fault, the QP run there"
		# Without it (debugfs uar_store 0) a store maps the page and
		# is told; the idle engine traps the mappings again.
		echo 0 >"$simfs/mlx0/uar_store"
		t0=$(stat mlx0 uar_touches) a0=$(stat mlx0 uar_traps)
		i0=$(stat mlx0 uar_idle_touches)
		pingpong ibv_rc_pingpong -n 100
		t1=$(stat mlx0 uar_touches) a1=$(stat mlx0 uar_traps)
		i1=$(stat mlx0 uar_idle_touches)
		echo "uar trap: $((a1 - a0)) traps, $((t1 - t0)) user doorbells told ($((i1 - i0)) retries), last fault to trap $(stat mlx0 uar_rearm_us) us, rc_pingpong -n 100"
		[ $((t1 - t0)) -ge 50 ] && [ $((a1 - a0)) -ge 50 ] ||
			die "the engine was not told of user doorbells by fault"
		# a trap re-set before the faulting store retried faults it
		# again (the engine waits for the store to land, engine.c):
		# 7,805 faults for these 200 doorbells on the debug kernel
		# with a fixed 50 us wait instead
		[ $((t1 - t0)) -le 600 ] ||
			die "user doorbells fault over and over ($((t1 - t0)) for 200)"
		echo 0 >"$simfs/mlx0/uar_trap"
		t0=$(stat mlx0 uar_touches)
		pingpong ibv_rc_pingpong -n 100
		t1=$(stat mlx0 uar_touches)
		echo 1 >"$simfs/mlx0/uar_trap"
		echo "uar trap off: $((t1 - t0)) user doorbells told"
		[ $((t1 - t0)) -le 20 ] || die "uar_trap 0 still traps ($((t1 - t0)))"
		pass "user doorbells trapped (uar_trap), polled with it off"
		# A fault slow between telling the model and mapping the page
		# (a task preempted there, debugfs touch_delay_us 6 ms): the
		# engine's 4 ms wait for the store ends and it traps again
		# meanwhile. The trap must wait for the mapping (uar_trap.c's
		# lock): one set before it found nothing to take down, the
		# page was mapped after it, and the process's next doorbell
		# went unseen with the engine asleep (session 28: SENDs under
		# loss that never completed). One process, two contexts, RC
		# SENDs, WRITEs and READs each way, each after the last
		# completed: nothing but the doorbell wakes the engine.
		echo 6000 >"$simfs/mlx0/touch_delay_us"
		t0=$(stat mlx0 uar_touches)
		rc=0
		timeout 120 "$(test_prog wire_retry)" stream mlx0 "$gid_idx" \
			mlx0 "$gid_idx" 10 4096 >/tmp/slow-fault.log 2>&1 || rc=$?
		t1=$(stat mlx0 uar_touches)
		echo 0 >"$simfs/mlx0/touch_delay_us"
		echo 1 >"$simfs/mlx0/uar_store"
		cat /tmp/slow-fault.log
		[ $rc = 0 ] || die "doorbells after a slow fault went unseen ($rc)"
		[ $((t1 - t0)) -ge 20 ] ||
			die "slow faults: only $((t1 - t0)) doorbells told"
		pass "a trap set while a fault maps the page waits for it ($((t1 - t0)) faults of 6 ms)"
	fi
else
	skip "pingpong: no RoCE v2 link-local GID"
fi

if [ -n "$ll" ] && need rping; then
	timeout 60 rping -s -a "$ll%dummy0" -C 10 -v >/tmp/rping.s.log 2>&1 &
	srv=$!
	sleep 2
	rc=0
	timeout 60 rping -c -a "$ll%dummy0" -C 10 -v >/tmp/rping.c.log 2>&1 || rc=$?
	wait "$srv" || true
	cat /tmp/rping.s.log /tmp/rping.c.log
	if [ "$rc" = 0 ] && grep -q "ping data" /tmp/rping.c.log; then
		pass "rping over $ll%dummy0"
	elif grep -q "Operation not supported\|rdma_create_qp" /tmp/rping.c.log; then
		skip "rping: the model lacks what it needs"
	else
		die "rping failed ($rc)"
	fi
fi

rdma res show qp
rdma res show qp | grep -q "mlx0" && pass "rdma res show qp lists mlx0's QPs" ||
	skip "rdma res show qp: no QP on mlx0 (no GSI QP?)"

if log_since verbs | grep -E "ib_mad|ib_cm|infiniband mlx0" | grep -iE "error|fail|couldn't"; then
	if log_since verbs | grep -q "CREATE_QP.*bad operation\|CREATE_MKEY.*bad operation"; then
		skip "kernel log: ib_mad could not attach (the model lacks QPs/MKEYs)"
	else
		die "ib_mad/ib_cm errors in the kernel log"
	fi
else
	pass "no ib_mad/ib_cm errors"
fi

# A user context stays open (a pingpong server waiting for its peer): the
# device goes anyway, disassociated like a hot-unplugged card.
hold=
if [ $devinfo_ok = 1 ] && command -v ibv_rc_pingpong >/dev/null; then
	ibv_rc_pingpong -d mlx0 -g "${gid_idx:-0}" -p 18999 >/tmp/hold.log 2>&1 &
	hold=$!
	sleep 2
fi
timeout 60 rdma link delete mlx0 || die "rdma link delete failed"
for _ in $(seq 50); do
	[ -d /sys/class/infiniband/mlx0 ] || break
	sleep 0.1
done
[ ! -d /sys/class/infiniband/mlx0 ] || die "mlx0 still registered"
if [ -n "$hold" ]; then
	kill "$hold" 2>/dev/null || true
	wait "$hold" 2>/dev/null || true
	pass "rdma link delete with a user context open"
else
	pass "rdma link delete"
fi
ip link del dummy0 2>/dev/null || true
unload
echo "$ran parts passed, $skipped skipped"
[ $ran -gt 0 ] || exit 77
