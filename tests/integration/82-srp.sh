#!/bin/bash
# SRP over model devices: ib_srp <-> ib_srpt (LIO) over RoCE through
# rdma_cm, a LUN on a fileio backstore (tmpfs), on one device in loopback
# and between two devices.
# Checks: login through rdma_cm on the expected device, data written
# through the initiator's SCSI disk equal to the backstore, logout and
# removal of the target port with nothing left on the devices, then
# rdma link delete with I/O in flight, of the initiator's device (the
# target drops the channel and serves a new login) and of a device holding
# both ends: returns within 60 s, I/O ends with errors, modules unload.
#
# On RoCE ib_srpt has no IB CM: it takes logins only through its rdma_cm
# listener (discovery_auth/rdma_cm_port), and a device added while no
# listener exists is refused (srpt_add_one), as with mlx5_ib: the listener
# comes before the model devices.
#
# ib_srpt's use_srq mode is left out: Debian's 6.12 ib_srpt puts a NULL
# receive buffer cache when an SRQ channel is released
# (srpt_release_channel_work -> srpt_cache_put, WARN_ON_ONCE), whatever
# the device: every logout in that mode warns, on mlx5_ib too.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/ulp.bash"

if ! modinfo ib_srpt >/dev/null 2>&1 && [ ! -d /sys/module/ib_srpt ]; then
	echo "SKIP: this kernel has no ib_srpt"
	exit 77
fi

tgt=/sys/kernel/config/target
srpt=$tgt/srpt
cm_port=5555
back=$tgt/core/fileio_0/srp0

load
modprobe sd_mod 2>/dev/null || true
need_mod target_core_mod
need_mod target_core_file
need_mod ib_srpt
need_mod ib_srp
mkdir -p "$srpt"
echo $cm_port >"$srpt/discovery_auth/rdma_cm_port" || die "ib_srpt: rdma_cm listener on port $cm_port"
[ "$(cat "$srpt/discovery_auth/rdma_cm_port")" = $cm_port ] || die "ib_srpt: rdma_cm_port not kept"

sp_link sp0 spd0 10.77.0.1/24
sp_link sp1 spd1 10.77.1.1/24
two_ports spd0 10.77.0.1 spd1 10.77.1.1
truncate -s 64M /tmp/srp.img
mkdir -p "$back"
echo "fd_dev_name=/tmp/srp.img,fd_dev_size=$((64 << 20))" >"$back/control"
echo 1 >"$back/enable" || die "fileio backstore on /tmp/srp.img"
# ib_srpt's service GUID (the target port ID the initiator names) is the
# node GUID of the first device it saw
guid=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)
guid=${guid#0x}
[ "$guid" = "$(tr -d : </sys/class/infiniband/sp0/node_guid)" ] ||
	die "ib_srpt service GUID $guid is not sp0's node GUID"

# gid0 DEV: GID 0 of DEV's port as 32 hex digits.
gid0() { tr -d : <"/sys/class/infiniband/$1/ports/1/gids/0"; }

# The target port on sp0 is named by its GID 0 ("0x" and 32 hex digits);
# ib_srp's initiator port IDs are initiator_ext (0) and the port's
# interface ID.
tp=$srpt/0x$(gid0 sp0)
iports=()
for d in sp0 sp1; do iports+=("0x0000000000000000$(gid0 $d | cut -c17-)"); done

# srpt_up: target port on sp0, TPG 1, LUN 0 on the backstore, ACLs for
# the initiator ports of both devices.
srpt_up() {
	local i
	mkdir "$tp" || die "ib_srpt: no target port $tp"
	mkdir "$tp/tpg_1" "$tp/tpg_1/lun/lun_0"
	ln -s "$back" "$tp/tpg_1/lun/lun_0/srp0"
	for i in "${iports[@]}"; do
		mkdir "$tp/tpg_1/acls/$i" "$tp/tpg_1/acls/$i/lun_0"
		ln -s "$tp/tpg_1/lun/lun_0" "$tp/tpg_1/acls/$i/lun_0/lun"
	done
	echo 1 >"$tp/tpg_1/enable" || die "ib_srpt: enable $tp"
}

# srpt_down: remove the target port, configfs bottom up.
srpt_down() {
	local acl
	echo 0 >"$tp/tpg_1/enable" 2>/dev/null || true
	for acl in "$tp"/tpg_1/acls/*; do
		[ -d "$acl" ] || continue
		rm -f "$acl/lun_0/lun"
		rmdir "$acl/lun_0" "$acl"
	done
	rm -f "$tp/tpg_1/lun/lun_0/srp0"
	rmdir "$tp/tpg_1/lun/lun_0" "$tp/tpg_1" "$tp" || die "ib_srpt: removing $tp"
	[ ! -e "$tp" ] || die "ib_srpt: the target port stays"
}

# srp_host DEV: the SCSI host of ib_srp's target port on DEV (hostN).
srp_host() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] || continue
		[ "$(cat "$h/local_ib_device" 2>/dev/null)" = "$1" ] && { basename "$h"; return 0; }
	done
	return 1
}

# srp_disk DEV: the initiator's disk (/dev/sdX) through DEV.
srp_disk() {
	local h b
	h=$(srp_host "$1") || return 1
	for b in /sys/class/scsi_host/"$h"/device/target*/*/block/*; do
		[ -e "$b" ] && { echo "/dev/$(basename "$b")"; return 0; }
	done
	return 1
}

# srp_up DEV [SRC]: ib_srp logs in through DEV to the target at 10.77.0.1.
srp_up() {
	local opts="id_ext=$guid,ioc_guid=$guid,dest=10.77.0.1:$cm_port"
	[ -n "${2:-}" ] && opts+=",src=$2"
	echo "$opts" >"/sys/class/infiniband_srp/srp-$1-1/add_target" ||
		die "ib_srp: add_target through $1: $opts"
	wait_for 30 srp_disk "$1" >/dev/null || die "ib_srp: no disk through $1"
	wait_for 10 test -b "$(srp_disk "$1")" || die "ib_srp: no block device through $1"
}

# srp_down DEV: ib_srp's target port through DEV removed.
srp_down() {
	local h p
	h=$(srp_host "$1") || die "ib_srp: no SCSI host through $1"
	# ib_srp's remote port of SCSI host N is port-N:1
	for p in /sys/class/srp_remote_ports/port-"${h#host}":*; do
		echo 1 >"$p/delete" || die "ib_srp: delete $p"
	done
	wait_for 30 bash -c "! test -e /sys/class/scsi_host/$h" || die "ib_srp: $h stays after logout"
}

# rc_qps DEV: RC QPs on DEV.
rc_qps() { rdma resource show qp link "$1/1" 2>/dev/null | grep -c "type RC" || true; }
no_qps() { [ "$(rc_qps "$1")" = 0 ]; }

# run TOPOLOGY HOSTDEV SRC
run() {
	local topo=$1 hdev=$2 src=$3 disk h ch
	srpt_up
	srp_up "$hdev" "$src"
	disk=$(srp_disk "$hdev")
	h=$(srp_host "$hdev")
	ch=$(cat "/sys/class/scsi_host/$h/ch_count")
	if [ "$topo" = loopback ]; then
		[ "$(rc_qps sp0)" -ge $((2 * ch)) ] || die "$topo: $(rc_qps sp0) RC QPs on sp0 for $ch channels"
	else
		[ "$(rc_qps sp1)" -ge "$ch" ] || die "$topo: $(rc_qps sp1) RC QPs on sp1 for $ch channels"
		[ "$(rc_qps sp0)" -ge "$ch" ] || die "$topo: $(rc_qps sp0) RC QPs on sp0 for $ch channels"
	fi
	ok "$topo: logged in through $hdev to sp0 by rdma_cm, $ch channels, $disk"
	verify_whole "$disk" /tmp/srp.img
	ok "$topo: data at 6 sizes up to 1 MiB equal to the backstore"
	srp_down "$hdev"
	wait_for 20 no_qps sp0 || die "$topo: $(rc_qps sp0) RC QPs left on sp0 after logout"
	[ "$(rc_qps sp1)" = 0 ] || die "$topo: $(rc_qps sp1) RC QPs left on sp1 after logout"
	srpt_down
	ok "$topo: logged out, target port removed, no QPs left"
}

# SRP_TOPOLOGIES: a subset.
topos=${SRP_TOPOLOGIES:-loopback two-devices}
case " $topos " in *" loopback "*) run loopback sp0 "" ;; esac
case " $topos " in *" two-devices "*) run two-devices sp1 10.77.1.1 ;; esac

# --- device removal with I/O in flight ---
# under_load DEV DISK: rdma link delete DEV while I/O runs on DISK; the
# load ends within 60 s. Sets t (seconds the delete took).
under_load() {
	local p
	blk_load "$2" >/dev/null 2>&1 </dev/null &
	p=$!
	sleep 3
	kill -0 $p 2>/dev/null || die "I/O on $2 ended before the delete"
	t=$(link_delete "$1")
	wait_for 60 eval "! kill -0 $p 2>/dev/null" || die "I/O on $2 still running 60 s after deleting $1"
	wait $p || true
}

# the initiator's device goes: its SCSI host goes, the target drops the
# channel and takes a new login through sp0
srpt_up
srp_up sp1 10.77.1.1
under_load sp1 "$(srp_disk sp1)"
! srp_host sp1 >/dev/null || die "ib_srp: SCSI host through the deleted sp1 stays"
wait_for 30 no_qps sp0 || die "ib_srpt: $(rc_qps sp0) RC QPs left on sp0 after the initiator's device went"
ok "initiator's device sp1 deleted with I/O in flight: returned in ${t}s, I/O ended, target channel closed"
srp_up sp0
verify_whole "$(srp_disk sp0)" /tmp/srp.img
ok "the target serves a new login after that: data equal to the backstore"

# one device with both ends goes
mark "srp: delete sp0 under load"
under_load sp0 "$(srp_disk sp0)"
! srp_host sp0 >/dev/null || die "ib_srp: SCSI host through the deleted sp0 stays"
[ ! -e /sys/class/infiniband/sp0 ] || die "sp0 stays"
ok "device sp0 with initiator and target deleted with I/O in flight: returned in ${t}s, I/O ended"

srpt_down
ok "target port of the deleted device removed"
rmdir "$back" "$tgt/core/fileio_0"
echo 0 >"$srpt/discovery_auth/rdma_cm_port"
rmdir "$srpt"
modprobe -r ib_srp || die "ib_srp does not unload"
modprobe -r ib_srpt || die "ib_srpt does not unload"
modprobe -r target_core_file target_core_mod 2>/dev/null || true
unload
ok "modules unloaded"
echo "$checks checks passed"
