#!/bin/bash
# budget: 840
# NVMe-oF over model devices: nvme-rdma <-> nvmet-rdma, without PI (a file
# namespace) and with T10-PI (a scsi_debug disk with DIF type 1 and DIX),
# on one device in loopback and between two devices. Checks: I/O queues as
# many as vCPUs, data through the host namespace equal to the backing store,
# PI format on the host, every PI I/O through the signature engine (model
# counters), the backing disk's own PI check on read-back, a PI error
# injected on the target's transfers reaching the host as an I/O error and
# the queue going on, clean disconnects; then each device deleted with I/O
# in flight (removal below), and each device's firmware dying under load
# (fatal below).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/ulp.bash"

load
modprobe sd_mod 2>/dev/null || true	# built in, or the disk check below fails
need_mod nvmet-rdma
need_mod nvme-rdma
# delay=0: answer at once (scsi_debug's default waits a jiffy per command)
pidisk=$(pi_disk 64 delay=0) || die "no scsi_debug disk with T10-DIF-TYPE1-CRC"
truncate -s 64M /tmp/nopi.img

# the events run()'s PI case reads, switched on while no device exists
# (trace_on in ulp.bash says why) and off after the last one is gone
trace_on mlx5sp_sig_err mlx5sp_cqe_err mlx5sp_cmd mlx5sp_qp_modify
sp_link sp0 spd0 10.77.0.1/24
sp_link sp1 spd1 10.77.1.1/24
two_ports spd0 10.77.0.1 spd1 10.77.1.1
nvmet_subsys nqn.2026-11.io.mlx5sp:nopi /tmp/nopi.img 0
nvmet_subsys nqn.2026-11.io.mlx5sp:pi "$pidisk" 1
nvmet_port 1 10.77.0.1 4420 0 nqn.2026-11.io.mlx5sp:nopi
nvmet_port 2 10.77.0.1 4421 1 nqn.2026-11.io.mlx5sp:pi
ncpu=$(nproc)
# the host retries a failed command nvme_core.max_retries times, and in
# loopback both the host's and the target's keys are on sp0: enough
# failing transfers for every try
retries=$((2 * ($(cat /sys/module/nvme_core/parameters/max_retries) + 1)))
fired0=0

# run TOPOLOGY HOST_ADDR HOSTDEV
run() {
	local topo=$1 from=$2 hdev=$3 ns ctrl q before after n fired op

	# --- no PI ---
	if [[ " $cases " == *" nopi "* ]]; then
	nvme_up nqn.2026-11.io.mlx5sp:nopi 10.77.0.1 4420 "$from"
	ns=$(nvme_ns nqn.2026-11.io.mlx5sp:nopi)
	ctrl=$(nvme_ctrl nqn.2026-11.io.mlx5sp:nopi)
	q=$(($(cat /sys/class/nvme/$ctrl/queue_count) - 1))
	[ "$q" = "$ncpu" ] || die "$topo: $q I/O queues, $ncpu vCPUs"
	ok "$topo: no PI: connected, admin + $q I/O queues"
	rdma resource show qp link "$hdev/1" | grep -q "type RC" ||
		die "$topo: the host's queues are not on $hdev"
	[ "$(cat /sys/block/${ns#/dev/}/integrity/format 2>/dev/null || echo none)" = none ] ||
		die "$topo: the no-PI namespace has an integrity format"
	before=$(stat sp0 sig_transfers)
	verify_whole "$ns" /tmp/nopi.img
	after=$(stat sp0 sig_transfers)
	[ "$after" = "$before" ] || die "$topo: no-PI I/O went through signature keys"
	ok "$topo: no PI: data at 6 sizes up to 1 MiB equal to the backing file"
	nvme disconnect -n nqn.2026-11.io.mlx5sp:nopi >/dev/null || die "$topo: disconnect"
	! nvme_ctrl nqn.2026-11.io.mlx5sp:nopi >/dev/null || die "$topo: controller left"
	ok "$topo: no PI: disconnected"
	fi

	# --- T10-PI ---
	[[ " $cases " == *" pi "* ]] || return 0
	nvme_up nqn.2026-11.io.mlx5sp:pi 10.77.0.1 4421 "$from"
	ns=$(nvme_ns nqn.2026-11.io.mlx5sp:pi)
	[ "$(cat /sys/block/${ns#/dev/}/integrity/format)" = T10-DIF-TYPE1-CRC ] ||
		die "$topo: host namespace integrity $(cat /sys/block/${ns#/dev/}/integrity/format)"
	ok "$topo: PI: host namespace $ns reports T10-DIF-TYPE1-CRC"
	before=$(stat sp0 sig_transfers)
	n=$(ios "$ns")
	verify_whole "$ns" "$pidisk" 1
	n=$(($(ios "$ns") - n))
	after=$(stat sp0 sig_transfers)
	[ $((after - before)) -ge "$n" ] ||
		die "$topo: $n PI I/Os, $((after - before)) signature transfers on the target device"
	ok "$topo: PI: data equal to the disk, its DIX check passed; $n I/Os, $((after - before)) signature transfers"

	# a persistent guard error on the target's transfers (it outlasts the
	# host's retries): a read and a write; the trace events show them
	trace_clear
	before=$(stat sp0 sig_errors)
	for op in read write; do
		echo "mkey=any nth=1 kind=guard count=$retries" >"$simfs/sp0/sig_inject"
		rm -f /tmp/r
		if [ $op = read ]; then
			dd if="$ns" of=/tmp/r bs=4096 count=1 iflag=direct status=none 2>/dev/null &&
				die "$topo: read with a PI error succeeded"
			[ ! -s /tmp/r ] || die "$topo: a read with a PI error returned data"
		else
			head -c 4096 /dev/urandom >/tmp/w
			dd if=/tmp/w of="$ns" bs=4096 count=1 oflag=direct status=none 2>/dev/null &&
				die "$topo: write with a PI error succeeded"
		fi
		fired=$(sed -n 's/.*fired=\([0-9]*\).*/\1/p' "$simfs/sp0/sig_inject")
		echo off >"$simfs/sp0/sig_inject"
		[ "$fired" -gt "$fired0" ] || die "$topo: injection did not fire"
		ok "$topo: PI: a guard error on a $op reached the host as an I/O error ($((fired - fired0)) transfers failed)"
		fired0=$fired
	done
	after=$(stat sp0 sig_errors)
	[ $((after - before)) -ge 2 ] || die "$topo: $((after - before)) signature errors counted"
	n=$(grep -c "mlx5sp_sig_err: sp0 key 0x[0-9a-f]* guard expected 0x[0-9a-f]* actual" "$tracefs/trace" || true)
	[ "$n" -ge 2 ] || { cat "$tracefs/trace"; die "$topo: $n mlx5sp_sig_err trace events"; }
	ok "$topo: PI: $n mlx5sp_sig_err trace events (guard) for $((after - before)) signature errors"
	verify_whole "$ns" "$pidisk" 1
	ok "$topo: PI: I/O after the errors succeeds, data equal"
	trace_clear
	nvme disconnect -n nqn.2026-11.io.mlx5sp:pi >/dev/null || die "$topo: disconnect"
	grep -q "mlx5sp_cmd: $hdev DESTROY_QP(0x501) op_mod 0x0 status 0x0 syndrome 0x0 err 0" "$tracefs/trace" &&
		grep -q "mlx5sp_qp_modify: $hdev qpn 0x[0-9a-f]* RTS -> ERR err 0" "$tracefs/trace" ||
		{ tail -n 40 "$tracefs/trace"; die "$topo: no DESTROY_QP or RTS -> ERR trace events on $hdev"; }
	ok "$topo: PI: disconnected (trace: the host's QPs RTS -> ERR, DESTROY_QP)"
}

# fio_load DEV SECS [ARGS...]: 4 KiB random writes at depth 16 on DEV in
# the background for at most SECS (fio's pid in $fio_pid, its log in
# /tmp/fio.log); returns once I/O is moving.
fio_load() {
	local dev=$1 secs=$2 n
	shift 2
	n=$(ios "$dev")
	fio --name=load --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=16 --runtime="$secs" "$@" \
		>/tmp/fio.log 2>&1 &
	fio_pid=$!
	wait_for 30 bash -c "[ \$(awk '{ print \$1 + \$5 }' /sys/block/${dev#/dev/}/stat) -gt $((n + 64)) ]" ||
		die "fio: no I/O on $dev"
}

# Device removal under load, as on mlx5_ib: the target's device goes away
# (nvmet closes its queues and drops the port's listener; the host
# reconnects once the device is back and the port re-enabled: I/O waits
# and completes, verified); the host's
# device goes away (nvme-rdma deletes its controllers: I/O fails, no
# hang); one device in loopback goes away. rdma link delete returns within
# 60 s each time.
removal() {
	local nqn=nqn.2026-11.io.mlx5sp:nopi ns t rc

	# the target's device, the host on sp1: I/O waits, then completes
	NVME_CONNECT_OPTS="${NVME_CONNECT_OPTS:-} --reconnect-delay=1 --ctrl-loss-tmo=120" \
		nvme_up "$nqn" 10.77.0.1 4420 10.77.1.1
	ns=$(nvme_ns "$nqn")
	fio_load "$ns" 300 --size="$fio_size" --verify=crc32c --do_verify=1
	t=$(link_delete sp0)
	wait_for 30 ctrl_state "$nqn" connecting ||
		die "removal: the host did not start reconnecting"
	ok "removal: the target's device deleted under load in ${t}s; the host reconnects"
	sp_relink sp0 spd0
	nvmet_port_relisten 1
	nvmet_port_relisten 2
	wait_for 60 ctrl_state "$nqn" live || die "removal: no reconnect within 60 s"
	rc=0
	wait "$fio_pid" || rc=$?
	[ "$rc" = 0 ] || { cat /tmp/fio.log; die "removal: fio across the reconnect: status $rc"; }
	ok "removal: device re-added, the host reconnected, the writes in flight completed and verify"

	# the host's device: the controller is deleted, I/O fails
	fio_load "$ns" 120 --time_based
	t=$(link_delete sp1)
	wait_for 60 bash -c "! kill -0 $fio_pid 2>/dev/null" || die "removal: fio still running 60 s after"
	rc=0
	wait "$fio_pid" || rc=$?
	[ "$rc" != 0 ] || die "removal: I/O on a deleted host device succeeded"
	wait_for 60 bash -c "! grep -qs $nqn /sys/class/nvme/*/subsysnqn" ||
		die "removal: the host's controller outlived its device"
	ok "removal: the host's device deleted under load in ${t}s; controller deleted, I/O failed (fio status $rc)"
	sp_relink sp1 spd1

	# one device in loopback (the stock kernel's; the debug kernel's two
	# removals above took the same paths out from under both sides)
	if [ "$removal_loopback" = 1 ]; then
	nvme_up "$nqn" 10.77.0.1 4420
	ns=$(nvme_ns "$nqn")
	fio_load "$ns" 120 --time_based
	t=$(link_delete sp0)
	wait_for 60 bash -c "! kill -0 $fio_pid 2>/dev/null" || die "removal: fio still running 60 s after"
	wait "$fio_pid" || true
	wait_for 60 bash -c "! grep -qs $nqn /sys/class/nvme/*/subsysnqn" ||
		die "removal: the loopback controller outlived its device"
	ok "removal: the loopback device deleted under load in ${t}s"
	sp_relink sp0 spd0
	nvmet_port_relisten 1
	nvmet_port_relisten 2
	fi
	nvme_up "$nqn" 10.77.0.1 4420
	verify_whole "$(nvme_ns "$nqn")" /tmp/nopi.img
	nvme disconnect -n "$nqn" >/dev/null || die "removal: disconnect"
	ok "removal: device re-added, a new connection verifies"
}

# Firmware death under load, as on mlx5_ib in internal error (fatal.c).
# fatal_one DEV NETDEV: the host on sp1 writes with verification to the
# target on sp0 when DEV's firmware dies (a fatal health syndrome through
# the model's debugfs, as a ConnectX's firmware can die). The queues'
# outstanding work completes flushed, so nvme-rdma starts its error
# recovery at once (no I/O timeout) and its teardown's drains return; the
# host reconnects in vain while the device is dead (nvme-rdma cannot even
# allocate a PD: "no client data found", as on a card), the I/O waiting.
# rdma link delete of the dead device returns within 60 s, the model
# counts every firmware page back; the device re-added, the host
# reconnects and the writes in flight complete and verify; when it is
# the host's device, a write nvme-rdma posted to it while dead may fail
# instead (ENOLINK, as on mlx5_ib). Data written is then verified.
fatal_one() {
	local dev=$1 netdev=$2 nqn=nqn.2026-11.io.mlx5sp:nopi ns t rc

	NVME_CONNECT_OPTS="${NVME_CONNECT_OPTS:-} --reconnect-delay=1 --ctrl-loss-tmo=120" \
		nvme_up "$nqn" 10.77.0.1 4420 10.77.1.1
	ns=$(nvme_ns "$nqn")
	fio_load "$ns" 300 --size="$fio_size" --verify=crc32c --do_verify=1
	mark "fatal $dev"
	echo 8 >"$simfs/$dev/health_syndrome"
	wait_for 30 bash -c "dmesg | grep -q '$dev: device in error state'" ||
		die "fatal: $dev never entered its error state"
	wait_for 60 ctrl_state "$nqn" connecting ||
		die "fatal: the host did not start recovering when $dev died"
	kill -0 "$fio_pid" 2>/dev/null || { cat /tmp/fio.log; die "fatal: fio ended while $dev was dead"; }
	t=$(link_delete "$dev")
	# the driver frees what a dead firmware cannot return; the model
	# must not find a page missing
	if log_since "fatal $dev" | grep -E "leak|pages not returned"; then
		die "fatal: $dev's pages not all back"
	fi
	ok "fatal: $dev's firmware died under load; the host recovering; deleted in ${t}s, every page back"
	sp_relink "$dev" "$netdev"
	if [ "$dev" = sp0 ]; then
		nvmet_port_relisten 1
		nvmet_port_relisten 2
	fi
	wait_for 60 ctrl_state "$nqn" live || die "fatal: no reconnect within 60 s of $dev's return"
	rc=0
	wait "$fio_pid" || rc=$?
	if [ "$rc" = 0 ]; then
		ok "fatal: $dev re-added, the host reconnected, the writes in flight completed and verify"
	elif [ "$dev" = sp1 ] && grep -q "error=Link has been severed" /tmp/fio.log; then
		# a write nvme-rdma posted to the dead device between its death
		# and the recovery: -EIO from post_send, as from mlx5_ib, is a
		# host path error (ENOLINK) the host does not retry for ever
		ok "fatal: $dev re-added, the host reconnected; a write posted to the dead device failed (ENOLINK), as on mlx5_ib"
	else
		cat /tmp/fio.log
		die "fatal: fio across $dev's death: status $rc"
	fi
	verify_whole "$ns" /tmp/nopi.img
	nvme disconnect -n "$nqn" >/dev/null || die "fatal: disconnect"
	ok "fatal: the reconnected namespace verifies"
}

# The host's device dies; on the stock kernel the target's too.
fatal() {
	fatal_one sp1 spd1
	[ -z "${FATAL_TARGET:-}" ] || fatal_one sp0 spd0
}

# NVMEOF_TOPOLOGIES, NVMEOF_CASES: subsets; NVMEOF_REMOVAL_LOOPBACK=0|1:
# the removal case's third deletion (on by default on the stock kernel
# only). The debug kernel (KASAN,
# lockdep, kmemleak under TCG: about 8 minutes a topology) runs the PI case
# in loopback, the path with the most driver and model code, and the
# removals under load; the stock kernel runs everything (the flush of a
# dead device runs under KASAN in KUnit's hostile_fatal_flush).
if [ "${MLX5SP_KERNEL:-stock}" = debug ]; then
	topos=${NVMEOF_TOPOLOGIES:-loopback} cases=${NVMEOF_CASES:-pi removal}
	removal_loopback=${NVMEOF_REMOVAL_LOOPBACK:-0}
	fio_size=4M
	# A PI queue of 128 entries takes ~640 integrity MRs a side (about
	# 4 firmware commands each): under KASAN on a busy host its connect
	# outlasts rdma_cm's timeouts (ECONNRESET). 32 entries keep it short.
	export NVME_CONNECT_OPTS="--queue-size=32"
else
	topos=${NVMEOF_TOPOLOGIES:-loopback two-devices} cases=${NVMEOF_CASES:-nopi pi removal fatal}
	export FATAL_TARGET=1
	removal_loopback=${NVMEOF_REMOVAL_LOOPBACK:-1}
	fio_size=16M
fi
case " $topos " in *" loopback "*) run loopback "" sp0 ;; esac
case " $topos " in *" two-devices "*) run two-devices 10.77.1.1 sp1 ;; esac
# Built into the kernel, nvme-rdma's and nvmet-rdma's ib_clients register
# before rdma_cm's and are removed after it: a device removal with live
# queues deadlocks in rdma_cm (it waits for cm_ids only their remove
# callbacks destroy). Debian builds them as modules.
modular=
[ -e /sys/module/nvme_rdma/initstate ] && [ -e /sys/module/nvmet_rdma/initstate ] && modular=1
for c in removal fatal; do
	[[ " $cases " == *" $c "* ]] || continue
	if [ -n "$modular" ]; then
		$c
	else
		echo "skip $c: nvme-rdma or nvmet-rdma built into this kernel"
	fi
done

# The devices go before the ports: unlinking a port's last subsystem
# destroys its listener under nvmet_config_sem, while a connect command
# that arrived before its queue's ESTABLISHED event runs in the CM handler
# and takes nvmet_config_sem there: an inverted lock order in nvmet (the
# same on mlx5_ib), which lockdep reports on the debug kernel whenever a
# connect raced ahead (rare). A device removal drops the listeners first.
rdma link delete sp1
rdma link delete sp0
nvmet_clear
trace_off
rmmod nvme_rdma nvmet_rdma 2>/dev/null || true
rmmod scsi_debug
unload
echo "$checks checks passed"
