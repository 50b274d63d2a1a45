#!/bin/bash
# budget: 660
# Load and concurrency (issue 15): tests/userspace/load.c with LOAD_PROCS
# processes (4; 3 on the debug kernel) of LOAD_PAIRS context pairs (2) each, one pair in loopback
# on ld0, one between ld0 and ld1: RC SENDs, WRITEs, READs and UD
# datagrams checked byte for byte, a CQ overrun in every process
# (IBV_EVENT_CQ_ERR, the rest unharmed). After LOAD_SECONDS (10) the
# devices go away under that load: `rdma link delete` of both, then the
# modules unloaded. Every process must see DEVICE_FATAL on each context
# and EIO from a verb and end without a crash, all within 60 s of the
# removal on a quiet host (the bound is stretched by the guest's speed
# factor: lib.bash's scaled); a kernel report fails the VM run. That is
# the short form, in make test on the debug kernel. LOAD_FULL=1 (make
# stress, with 16 processes for 120 s) first runs the load alone,
# checking that every process ends well, then removes the devices under
# load as above, then once more by unloading the modules with the
# devices still there.
# Both forms end with the devices' firmware dying under load (a fatal
# health syndrome, fatal.c) while it holds a command (a CREATE_CQ it
# never answers): every process sees DEVICE_FATAL on each context and
# ENOLINK from a verb, and ends; the command fails; the dead devices are
# deleted and give back every page.
# Before the removals, the load runs LOAD_HOSTILE_SECONDS (8; 60 in the
# full form) while both devices write EQEs that lie about its live
# objects (hostile() below): nothing may fail but the lies themselves.
# Prints "campaign: load ..." lines with the figures.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"
# shellcheck source=tests/integration/ulp.bash
. "$(dirname "$(readlink -f "$0")")/ulp.bash"

# the debug kernel (KASAN, lockdep) under TCG: 3 processes, 12 contexts
procs=4
[ "${MLX5SP_KERNEL:-}" = debug ] && procs=3
procs=${LOAD_PROCS:-$procs}
secs=${LOAD_SECONDS:-10}
pairs=${LOAD_PAIRS:-2}
full=${LOAD_FULL:-0}
prog=$(test_prog load)
ready=/tmp/load.ready
out=/tmp/load.out

up() {
	# shellcheck disable=SC2119 # no module parameters
	load
	sp_link ld0 lddummy0 10.78.0.1/24
	sp_link ld1 lddummy1 10.78.1.1/24
	two_ports lddummy0 10.78.0.1 lddummy1 10.78.1.1
	wait_gid ld0
	wait_gid ld1
}

# watched SECS CMD...: CMD with a timeout; every 10 s it runs, where it
# is in the kernel and what takes the CPUs, to tell slow from stuck.
watched() {
	local secs=$1 pid t=0 rc=0
	shift
	timeout "$secs" "$@" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		[ $((t % 10)) = 0 ] || continue
		echo "  $* running for $t s; in the kernel:"
		cat /proc/$pid/task/*/stack /proc/"$(pgrep -P $pid | head -n1)"/stack 2>/dev/null | sed 's/^/    /' || true
		top -b -n1 | sed -n '7,14p' | sed 's/^/    /'
	done
	wait $pid || rc=$?
	return $rc
}

# figures OUTPUT: load's closing figures, as a campaign line
figures() { sed -n 's/^load: \([0-9]* processes,.*\)/\1/p' "$1" | tail -n1; }

# removal HOW [ARGS]: the load runs until the devices go (HOW: link, the
# rdma links deleted, then the modules unloaded; module, the modules
# unloaded with the devices there; dead, the firmware of both devices
# dies (a fatal health syndrome), the processes end on their own, then
# the links are deleted and the modules unloaded; stuck, as dead, but
# the firmware lives: an EQE of each device is left with the last lap's
# owner bit and the driver gives the device up for its stuck EQ).
removal() {
	local how=$1 pid rc=0 t0 t1 t2 took i pp pp1 wait_pp lim
	shift
	lim=$(scaled 60)
	rm -f "$ready"
	"$prog" --procs "$procs" --pairs "$pairs" --until-removed "$ready" \
		"$@" ld0 ld1 >"$out" 2>&1 &
	pid=$!
	for i in $(seq 2400); do
		[ -e "$ready" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	[ -e "$ready" ] || { wait $pid || true; cat "$out"; die "load ($how): never ran"; }
	mark "load: removal ($how)"
	t0=$SECONDS
	if [ "$how" = dead ]; then
		# mid-command: firmware never answers a CREATE_CQ (rc_pingpong's)
		echo 0x400 >"$simfs/ld0/delay_opcode"
		echo -1 >"$simfs/ld0/delay_ms"
		echo 1 >"$simfs/ld0/delay_count"
		ibv_rc_pingpong -d ld0 -p 18600 >/tmp/load.pp 2>&1 &
		pp=$!
		for i in $(seq 100); do
			[ "$(stat ld0 cmds_dropped)" = 1 ] && break
			sleep 0.1
		done
		[ "$(stat ld0 cmds_dropped)" = 1 ] || die "load (dead): rc_pingpong's CREATE_CQ never reached the device"
		# the firmware of both dies (the removal's 60 s from here); the
		# processes end on their own
		t0=$SECONDS
		echo 8 >"$simfs/ld0/health_syndrome"
		echo 8 >"$simfs/ld1/health_syndrome"
		while kill -0 $pid 2>/dev/null && [ $((SECONDS - t0)) -lt $lim ]; do
			sleep 0.2
		done
		kill -0 $pid 2>/dev/null && echo "  load (dead): processes still running after $lim s"
		wait_pp=0
		while kill -0 $pp 2>/dev/null && [ $wait_pp -lt 100 ]; do
			sleep 0.1
			wait_pp=$((wait_pp + 1))
		done
		kill -0 $pp 2>/dev/null && { kill -9 $pp; die "load (dead): a command in flight when the firmware died never returned"; }
		rc=0
		wait $pp || rc=$?
		[ $rc != 0 ] && grep -q "Couldn't create CQ" /tmp/load.pp ||
			{ cat /tmp/load.pp; die "load (dead): the command in flight did not fail (status $rc)"; }
		rc=0
		ok "dead firmware: the CREATE_CQ it held failed (ibv_rc_pingpong: $(head -n1 /tmp/load.pp))"
	fi
	if [ "$how" = stuck ]; then
		# the next EQE of each device left with the last lap's owner
		# bit: a command's completion (an rc_pingpong's creates on
		# each; the load itself arms no CQ). The EQ stalls, its
		# interrupt fires on, the driver gives the device up and turns
		# its NIC off while WQEs are in flight: processes end on their
		# own
		t0=$SECONDS
		echo 1 >"$simfs/ld0/stale_eqes"
		echo 1 >"$simfs/ld1/stale_eqes"
		ibv_rc_pingpong -d ld0 -p 18601 >/tmp/load.pp0 2>&1 &
		pp=$!
		ibv_rc_pingpong -d ld1 -p 18602 >/tmp/load.pp1 2>&1 &
		pp1=$!
		wait_pp=0
		while { kill -0 $pp || kill -0 $pp1; } 2>/dev/null && [ $wait_pp -lt 600 ]; do
			sleep 0.1
			wait_pp=$((wait_pp + 1))
		done
		kill -0 $pp 2>/dev/null && { kill -9 $pp $pp1; die "load (stuck): a command never returned"; }
		kill -0 $pp1 2>/dev/null && { kill -9 $pp1; die "load (stuck): a command never returned"; }
		wait $pp || true
		wait $pp1 || true
		for i in 0 1; do
			log_since "load: removal (stuck)" | grep -q "ld$i: device in error state: EQ stuck" ||
				die "load (stuck): ld$i not given up for its stuck EQ"
			log_since "load: removal (stuck)" | grep -q "ld$i: NIC interface turned off" ||
				die "load (stuck): ld$i's NIC interface not turned off"
		done
		ok "stuck EQs: both devices given up, their NIC interfaces turned off, the commands failed (ibv_rc_pingpong: $(head -n1 /tmp/load.pp0))"
		while kill -0 $pid 2>/dev/null && [ $((SECONDS - t0)) -lt $lim ]; do
			sleep 0.2
		done
	fi
	if [ "$how" != module ]; then
		watched 60 rdma link delete ld0 || die "rdma link delete ld0 under load"
		watched 60 rdma link delete ld1 || die "rdma link delete ld1 under load"
	fi
	t1=$SECONDS
	watched 60 rmmod mlx5sp_sim || die "rmmod mlx5sp_sim under load ($how)"
	watched 60 rmmod mlx5sp || die "rmmod mlx5sp under load ($how)"
	t2=$SECONDS
	mark "load: modules unloaded ($how)"
	while kill -0 $pid 2>/dev/null && [ $((SECONDS - t0)) -lt $lim ]; do
		sleep 0.2
	done
	if kill -0 $pid 2>/dev/null; then
		kill -9 $pid
		cat "$out"
		die "load ($how): processes still running $lim s after the removal"
	fi
	wait $pid || rc=$?
	took=$((SECONDS - t0))
	cat "$out"
	[ $rc = 0 ] || die "load ($how removal): status $rc"
	[ $took -le $lim ] || die "load ($how removal): $took s (bound $lim s)"
	ok "device removed under load ($how): every process ended with errors, no crash; removal $((t1 - t0)) s, unload $((t2 - t1)) s, all ended after $took s (bound $lim s)"
	echo "campaign: load, devices removed ($how) under $(figures "$out"); every context DEVICE_FATAL and $(case $how in dead|stuck) echo ENOLINK ;; *) echo EIO ;; esac), all ended in $took s"
	ip link del lddummy0
	ip link del lddummy1
}

# hostile SECS: the load runs SECS seconds while both devices write EQEs
# that lie (debugfs hostile_eqes, 128 every 0.1 s each, seeded 1, 2, ...):
# completions, CQ errors and QP and SRQ events naming the load's live
# CQs and QPs (and numbers nobody has), command completions for any slot,
# page requests either way, unknown types. The processes take the lying
# async events as such; every completion must still succeed and every
# byte arrive right, and nothing may break in the kernel.
hostile() {
	local secs=$1 pid rc=0 seed=1 h0 h1
	h0=$(stat ld0 eqes_hostile)
	h1=$(stat ld1 eqes_hostile)
	"$prog" --procs "$procs" --pairs "$pairs" --seconds "$secs" \
		--no-overrun --hostile-events ld0 ld1 >"$out" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		echo "128 $seed" >"$simfs/ld0/hostile_eqes"
		echo "128 $((seed + 1))" >"$simfs/ld1/hostile_eqes"
		seed=$((seed + 2))
		sleep 0.1
	done
	wait $pid || rc=$?
	cat "$out"
	[ $rc = 0 ] || die "load under hostile EQEs: status $rc (seeds 1 to $seed)"
	h0=$(($(stat ld0 eqes_hostile) - h0))
	h1=$(($(stat ld1 eqes_hostile) - h1))
	[ $((h0 + h1)) -gt 0 ] || die "load under hostile EQEs: none written"
	# the lies reached the processes as async events of their QPs and CQs
	[ "$(sed -n 's/.*, \([0-9]*\) lying async events taken$/\1/p' "$out")" -gt 0 ] ||
		die "load under hostile EQEs: no lying event reached a process"
	ok "load under hostile EQEs: $h0 + $h1 lying EQEs written, every process ended well"
	echo "campaign: load under hostile EQEs ($h0 + $h1 written, seeds 1 to $seed), $(figures "$out")"
}

mark load
up
if [ "$full" = 1 ]; then
	t0=$SECONDS
	rc=0
	timeout $((secs + 600)) "$prog" --procs "$procs" --pairs "$pairs" \
		--seconds "$secs" ld0 ld1 >"$out" 2>&1 || rc=$?
	cat "$out"
	[ $rc = 0 ] || die "load: status $rc"
	ok "load: $procs processes x $((2 * pairs)) contexts, RC and UD, CQ overrun ($((SECONDS - t0)) s)"
	echo "campaign: load, $(figures "$out"); CQ overrun in each process, every byte checked"
	hostile "${LOAD_HOSTILE_SECONDS:-60}"
	removal link --seconds 0 --no-overrun
	up
	removal module --seconds 0 --no-overrun
	up
	removal dead --seconds 0 --no-overrun --dead
	up
	removal stuck --seconds 0 --no-overrun --dead
else
	hostile "${LOAD_HOSTILE_SECONDS:-8}"
	removal link --seconds "$secs"
	up
	removal dead --seconds 0 --no-overrun --dead
	up
	removal stuck --seconds 0 --no-overrun --dead
fi
# a dead firmware returns no page: the driver frees them ("did not
# return"), and the model must count none missing
if log_since load | sed '/load: removal (dead)$/q' | grep -q "leak\|did not return"; then
	die "pages leaked"
fi
if log_since "load: removal (dead)" | grep -q "leak\|pages not returned"; then
	die "pages of the dead devices not all back"
fi
echo "49-load: $checks checks passed"
