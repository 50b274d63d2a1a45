# Helpers for the kernel ULP tests (sourced after lib.bash): model devices
# on dummy netdevs with IPv4 addresses, NVMe-oF targets in nvmet's configfs,
# and data checks through block devices.

nvmet=/sys/kernel/config/nvmet

# sp_link NAME NETDEV ADDR/LEN: a model device on a new dummy netdev.
sp_link() {
	# one VM runs the ULP tests one after the other: a netdev of that
	# name left by an earlier one goes first (its routes go with it)
	ip link del "$2" 2>/dev/null || true
	ip link add "$2" type dummy
	ip link set "$2" up
	ip addr add "$3" dev "$2"
	rdma link add "$1" type mlx5sp netdev "$2" || die "rdma link add $1"
}

# sp_relink NAME NETDEV: the model device again on an existing netdev.
sp_relink() {
	rdma link add "$1" type mlx5sp netdev "$2" || die "rdma link add $1 (again)"
}

# two_ports NETDEV0 ADDR0 NETDEV1 ADDR1: two RDMA ports of one host that
# reach each other as two hosts would. rdma_cm refuses a request whose
# reply would leave by another netdev than it came in on (the peer's
# address is local, on the other port), as with two ConnectX ports of one
# host: each port gets a route to the other's address through itself
# (policy rules by output interface, ahead of the local table) and a
# static neighbour (a dummy netdev answers no ARP).
two_ports() {
	# idempotent: an earlier test in the same VM may have set it up
	ip rule show pref 1000 | grep -q . || ip rule add pref 1000 lookup local
	ip rule del pref 0 2>/dev/null || true
	ip route replace "$4" dev "$1" table 100
	ip rule del pref 100 2>/dev/null || true
	ip rule add pref 100 oif "$1" lookup 100
	ip route replace "$2" dev "$3" table 101
	ip rule del pref 101 2>/dev/null || true
	ip rule add pref 101 oif "$3" lookup 101
	ip neigh replace "$4" lladdr "$(cat "/sys/class/net/$3/address")" dev "$1"
	ip neigh replace "$2" lladdr "$(cat "/sys/class/net/$1/address")" dev "$3"
}

# need_mod MODULE [PARAM=VALUE...]: loaded, built into this kernel, or
# (the debug kernel has no /lib/modules tree for modprobe to read) loaded
# with its dependencies from the build tree of the debug kernel this VM
# runs (tests/kernel/build names it, once: under the debug kernel each of
# its runs costs seconds, and a ULP pulls in a dozen modules).
need_mod_kdir=
need_mod() {
	local name=$1 kdir ko d
	modprobe "$@" 2>/dev/null && return 0
	[ -d "/sys/module/${name//-/_}" ] && return 0
	if [ "${MLX5SP_KERNEL:-}" = debug ] &&
	   kdir=${need_mod_kdir:-$("$MLX5SP_TOP/tests/kernel/build" 2>/dev/null)}; then
		need_mod_kdir=$kdir
		ko=$(sed -n "s#^\(.*/${name}\)\.o\$#\1.ko#p; s#^\(.*/${name//-/_}\)\.o\$#\1.ko#p" \
			"$kdir/modules.order" | head -n1)
		shift
		if [ -n "$ko" ]; then
			for d in $(modinfo -F depends "$kdir/$ko" | tr , ' '); do
				need_mod "$d"
			done
			insmod "$kdir/$ko" "$@" && return 0
		fi
	fi
	die "no module $name"
}

# nvmet_subsys NQN PATH PI: a subsystem with namespace 1 on PATH (a block
# device or a file); PI 1 lets it carry protection information.
nvmet_subsys() {
	local s=$nvmet/subsystems/$1
	mkdir "$s"
	echo 1 >"$s/attr_allow_any_host"
	echo "$3" >"$s/attr_pi_enable"
	mkdir "$s/namespaces/1"
	echo "$2" >"$s/namespaces/1/device_path"
	# a file (on tmpfs) through the page cache
	[ -f "$2" ] && echo 1 >"$s/namespaces/1/buffered_io"
	echo 1 >"$s/namespaces/1/enable" || die "nvmet: namespace of $1 on $2"
}

# nvmet_port ID ADDR SVCID PI NQN...: an RDMA port exporting the subsystems.
nvmet_port() {
	local p=$nvmet/ports/$1 n
	mkdir "$p"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$2" >"$p/addr_traddr"
	echo "$3" >"$p/addr_trsvcid"
	echo "$4" >"$p/param_pi_enable"
	shift 4
	for n in "$@"; do
		ln -s "$nvmet/subsystems/$n" "$p/subsystems/$n" || die "nvmet: port $p: $n"
	done
}

# nvmet_port_relisten ID: listen again after the port's device went away
# (nvmet_rdma drops a listener on DEVICE_REMOVAL and, unlike on an address
# change, does not retry it: an administrator re-enables the port, on
# mlx5_ib as here). Unlinking the last subsystem disables the port.
nvmet_port_relisten() {
	local p=$nvmet/ports/$1 l n
	for l in "$p"/subsystems/*; do
		n=$(basename "$l")
		rm "$l"
		ln -s "$nvmet/subsystems/$n" "$p/subsystems/$n" || die "nvmet: port $1 again: $n"
	done
}

nvmet_clear() {
	local p s
	for p in "$nvmet"/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p"/subsystems/*
		rmdir "$p"
	done
	for s in "$nvmet"/subsystems/*; do
		[ -d "$s" ] || continue
		[ -d "$s/namespaces/1" ] && { echo 0 >"$s/namespaces/1/enable"; rmdir "$s/namespaces/1"; }
		rmdir "$s"
	done
}

# nvme_ns NQN: the host's block device of namespace 1 of subsystem NQN.
nvme_ns() {
	local s b
	# with multipath (Debian's kernel) under the subsystem, else under
	# the controller (the debug kernel)
	for s in /sys/class/nvme-subsystem/* /sys/class/nvme/*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		for b in "$s"/nvme*n1; do
			[ -e "$b" ] && { echo "/dev/$(basename "$b")"; return 0; }
		done
	done
	return 1
}

# nvme_ctrl NQN: the host's controller (nvmeN) of subsystem NQN.
nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] && { basename "$c"; return 0; }
	done
	return 1
}

# nvme_up NQN ADDR SVCID [HOST_ADDR]: connect and wait for the namespace
# (NVME_CONNECT_OPTS: more options of nvme connect).
nvme_up() {
	local i extra=()
	[ -n "${4:-}" ] && extra=(--host-traddr "$4")
	# shellcheck disable=SC2086 # NVME_CONNECT_OPTS: words
	nvme connect -t rdma -a "$2" -s "$3" -n "$1" "${extra[@]}" ${NVME_CONNECT_OPTS:-} >/dev/null ||
		die "nvme connect $1 at $2:$3 ${4:+from $4}"
	for i in $(seq 150); do
		nvme_ns "$1" >/dev/null && [ -b "$(nvme_ns "$1")" ] && return 0
		sleep 0.2
	done
	die "no namespace for $1"
}

# ios DEV: reads + writes completed on block device DEV.
ios() { awk '{ print $1 + $5 }' "/sys/block/$(basename "$1")/stat"; }

# trace_on EVENT...: an empty trace buffer and mlx5sp's EVENTs on;
# trace_off: all of them off again; trace_clear: the buffer emptied.
# Switching an event on or off patches its call sites (a static key: an
# int3 first, then the new instruction), and QEMU's TCG can run a stale
# int3 of that patch on another vCPU: "Oops: int3" in cmd_trace while
# 80-nvmeof's trace_off ran beside nvmet's queue release (a clean-clone
# rehearsal of cf2dea7). So a test switches events only while no device
# exists (before the first rdma link add, after the last delete) and
# clears the buffer in between. Without record-cmd for the same reason:
# with it, enabling an event also hooks sched_wakeup and sched_switch,
# which patches the scheduler's wake-up path while every CPU runs it (an
# "Oops: int3" in ttwu_do_activate, the rehearsal of 08ce82d). The tests
# read only the events' own fields.
tracefs=/sys/kernel/tracing
trace_on() {
	local e
	mountpoint -q "$tracefs" || mount -t tracefs nodev "$tracefs" || die "no tracefs"
	echo 0 >"$tracefs/options/record-cmd" || die "tracefs: record-cmd"
	: >"$tracefs/trace"
	for e in "$@"; do
		echo 1 >"$tracefs/events/mlx5sp/$e/enable" || die "no trace event mlx5sp:$e"
	done
}
trace_off() { echo 0 >"$tracefs/events/mlx5sp/enable"; }
trace_clear() { : >"$tracefs/trace"; }

# wait_for SECS CMD...: CMD succeeds within SECS seconds (polled).
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# ctrl_state NQN STATE: the host's controller of NQN is in STATE.
ctrl_state() {
	local c
	c=$(nvme_ctrl "$1") || return 1
	[ "$(cat "/sys/class/nvme/$c/state")" = "$2" ]
}

# link_delete NAME: rdma link delete, which must return within 60 s (it
# waits for every ULP to let go of the device); prints how long it took.
link_delete() {
	local t0=$SECONDS
	timeout 60 rdma link delete "$1" || die "rdma link delete $1: no return within 60 s (or failed)"
	echo $((SECONDS - t0))
}

# pi_disk MB [PARAM=VALUE...]: load scsi_debug (need_mod) with one disk of
# MB MiB with DIF type 1 and DIX (CRC guard), more module parameters after,
# and print it (/dev/sdX).
pi_disk() {
	local mb=$1 d
	shift
	need_mod scsi_debug dev_size_mb="$mb" dif=1 dix=1 guard=0 "$@"
	for _ in $(seq 50); do
		d=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/ 2>/dev/null | head -n1)
		[ -n "$d" ] && break
		sleep 0.2
	done
	[ -n "$d" ] && [ "$(cat "/sys/block/$d/integrity/format")" = T10-DIF-TYPE1-CRC ] || return 1
	echo "/dev/$d"
}

# verify_whole DEV BACKING [BACKING_DIRECT]: data written through DEV at
# random offsets, each size (4 KiB to 1 MiB) in one O_DIRECT write and one
# read, so the ULP gets the whole size at once, reads back through DEV and
# is what BACKING (the target's file or disk) holds; then data put
# in BACKING at random offsets reads back through DEV. BACKING_DIRECT 1:
# the backing disk by O_DIRECT (its integrity profile generates and checks
# the PI). One program does it all (blkverify.py): under TCG each program
# started costs a few hundred milliseconds.
verify_whole() {
	local direct=()
	[ "${3:-0}" = 1 ] && direct=(--backing-direct)
	/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/blkverify.py" "$1" "$2" "${direct[@]}" ||
		die "data through $1 and in $2"
}

# leave_by_port2 ADDR: locally generated traffic to ADDR (local on the
# first port of two_ports) leaves by the second port, for a ULP that binds
# no source address (iSER's ep_connect takes the destination only);
# leave_by_port2_off ADDR undoes it.
leave_by_port2() { ip rule add pref 50 to "$1" iif lo lookup 101; }
leave_by_port2_off() { ip rule del pref 50 to "$1" iif lo lookup 101; }

# blk_load DISK: O_DIRECT writes and reads in a loop until they fail (or
# the disk is gone: nocreat, no regular file in its place).
blk_load() {
	local i=0
	while [ -b "$1" ] &&
		dd if=/dev/urandom of="$1" bs=64k count=16 seek=$((i % 64 * 16)) oflag=direct conv=nocreat,notrunc status=none &&
		dd if="$1" of=/dev/null bs=64k count=16 skip=$((i % 64 * 16)) iflag=direct status=none; do
		i=$((i + 1))
	done
}
