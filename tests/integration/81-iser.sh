#!/bin/bash
# iSER over model devices: ib_iser <-> LIO's ib_isert. One target, two
# LUNs: LUN 0 an iblock backstore on a scsi_debug disk with DIF type 1 and
# DIX (the backstore's pi_prot_type 1, the TPG's t10_pi 1), LUN 1 a fileio
# backstore on tmpfs without PI. The initiator logs in with iscsiadm
# through the "iser" iface (iscsid runs here).
# - ib_iser pi_enable=0, loopback on sp0: no integrity on the initiator's
#   disks; LUN 1 without a single signature transfer; LUN 0 with the
#   target's device inserting and stripping the PI.
# - ib_iser pi_enable=1, loopback on sp0 and from sp1 to the target on sp0:
#   LUN 0 T10-DIF-TYPE1 on the initiator, signature transfers on each end's
#   device at least its I/Os; LUN 1 (DIX type 0 on the initiator) none on
#   the target's device; a guard error injected on sp0's transfers reaches
#   the initiator as an I/O error, never as data, a read and a write, and
#   later I/O in the same session succeeds.
# Everywhere: the session's QPs on the expected devices, data written
# through the initiator's disks at random offsets (O_DIRECT, 4 KiB to
# 1 MiB, each in one I/O) equal read back and in the backstore, data put in
# the backstore read through the initiator, clean logouts. Then devices
# deleted with I/O in flight (removal below).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/ulp.bash"

if ! modinfo ib_isert >/dev/null 2>&1 && [ ! -d /sys/module/ib_isert ]; then
	echo "SKIP: this kernel has no ib_isert"
	exit 77
fi
command -v iscsid >/dev/null && command -v iscsiadm >/dev/null ||
	{ echo "SKIP: no open-iscsi (iscsid, iscsiadm)"; exit 77; }

tgt=/sys/kernel/config/target
iqn=iqn.2026-11.io.mlx5sp:iser
tpg=$tgt/iscsi/$iqn/tpgt_1
np=$tpg/np/10.77.0.1:3260
pib=$tgt/core/iblock_0/pi
nopib=$tgt/core/fileio_1/nopi

load
modprobe sd_mod 2>/dev/null || true
need_mod target_core_mod
need_mod target_core_iblock
need_mod target_core_file
need_mod ib_isert
modprobe ib_iser pi_enable=0 || die "no module ib_iser"
pidisk=$(pi_disk 64) || die "no scsi_debug disk with DIF type 1"
truncate -s 64M /tmp/nopi.img

sp_link sp0 spd0 10.77.0.1/24
sp_link sp1 spd1 10.77.1.1/24
two_ports spd0 10.77.0.1 spd1 10.77.1.1

# --- the target: LUN 0 with PI, LUN 1 without ---
mkdir -p "$pib" "$nopib"
echo "udev_path=$pidisk" >"$pib/control"
echo 1 >"$pib/enable" || die "iblock backstore on $pidisk"
[ "$(cat "$pib/attrib/pi_prot_type")" = 1 ] ||
	die "iblock backstore on $pidisk: pi_prot_type $(cat "$pib/attrib/pi_prot_type")"
echo "fd_dev_name=/tmp/nopi.img,fd_dev_size=$((64 << 20))" >"$nopib/control"
echo 1 >"$nopib/enable" || die "fileio backstore on /tmp/nopi.img"
[ "$(cat "$nopib/attrib/pi_prot_type")" = 0 ] || die "fileio backstore with PI"
mkdir -p "$tpg/lun/lun_0" "$tpg/lun/lun_1"
ln -s "$pib" "$tpg/lun/lun_0/pi"
ln -s "$nopib" "$tpg/lun/lun_1/nopi"
for a in authentication=0 generate_node_acls=1 demo_mode_write_protect=0 \
	cache_dynamic_acls=1 t10_pi=1; do
	echo "${a#*=}" >"$tpg/attrib/${a%=*}" || die "TPG attribute $a"
done

# iser_np_up: the portal at 10.77.0.1:3260 takes iSER logins (LIO makes a
# TCP portal with the directory; iser 1 adds an iSER one).
iser_np_up() {
	echo 1 >"$np/iser" || die "iSER portal on 10.77.0.1:3260"
	[ "$(cat "$np/iser")" = 1 ] || die "iSER portal not kept"
}
mkdir "$np" || die "portal 10.77.0.1:3260"
iser_np_up
echo 1 >"$tpg/enable" || die "enable $tpg"
ok "target $iqn: LUN 0 iblock on $pidisk (pi_prot_type 1, t10_pi), LUN 1 fileio without PI, iSER portal"

# --- the initiator ---
# iscsid and iscsiadm lock their node database in /run/lock/iscsi
mkdir -p /run/lock/iscsi
# (its own session: on SIGTERM iscsid signals its whole process group)
setsid iscsid -f >/tmp/iscsid.log 2>&1 &
iscsid_pid=$!
# its control socket (else iscsiadm would try to start it by systemctl)
wait_for 10 grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix || die "iscsid does not listen"
iscsiadm -m iface -I iser >/dev/null || die "iscsiadm: no iser iface"
node=(-m node -T "$iqn" -p 10.77.0.1:3260 -I iser)
iscsiadm "${node[@]}" -o new >/dev/null || die "iscsiadm: new node record"
# a session that loses its connection fails its I/O after 5 s of
# recovery (not Debian's 120 s)
iscsiadm "${node[@]}" -o update -n node.session.timeo.replacement_timeout -v 5 ||
	die "iscsiadm: replacement_timeout"
[ "$(iscsiadm "${node[@]}" | sed -n 's/^iface.transport_name = //p')" = iser ] ||
	die "iscsiadm: the node record is not on the iser transport"

# rc_qps DEV: RC QPs on DEV.
rc_qps() { rdma resource show qp link "$1/1" 2>/dev/null | grep -c "type RC" || true; }
no_qps() { [ "$(rc_qps "$1")" = 0 ]; }

# iscsi_session: the initiator's session (sessionN) to $iqn.
iscsi_session() {
	local s
	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$iqn" ] && { basename "$s"; return 0; }
	done
	return 1
}

# iscsi_disk LUN: the initiator's disk (/dev/sdX) of LUN.
iscsi_disk() {
	local s b
	s=$(iscsi_session) || return 1
	for b in /sys/class/iscsi_session/"$s"/device/target*/*:"$1"/block/*; do
		[ -e "$b" ] && { echo "/dev/$(basename "$b")"; return 0; }
	done
	return 1
}

# session_state STATE: the session is in STATE (LOGGED_IN; FAILED: in
# recovery; FREE: recovery timed out, its I/O failed).
session_state() {
	local s
	s=$(iscsi_session) || return 1
	[ "$(cat "/sys/class/iscsi_session/$s/state")" = "$1" ]
}

# login: log in and wait for both disks.
login() {
	local l
	iscsiadm "${node[@]}" --login >/dev/null || die "iscsiadm login"
	for l in 0 1; do
		wait_for 30 iscsi_disk $l >/dev/null || die "no disk of LUN $l"
		wait_for 10 test -b "$(iscsi_disk $l)" || die "no block device of LUN $l"
	done
}

# logout: log out; no session, no QPs left on the devices.
logout() {
	iscsiadm "${node[@]}" --logout >/dev/null || die "iscsiadm logout"
	! iscsi_session >/dev/null || die "a session stays after logout"
	wait_for 20 no_qps sp0 || die "$(rc_qps sp0) RC QPs left on sp0 after logout"
	wait_for 20 no_qps sp1 || die "$(rc_qps sp1) RC QPs left on sp1 after logout"
}

# sigs: "sp0 sp1" signature transfers so far.
sigs() { echo "$(stat sp0 sig_transfers) $(stat sp1 sig_transfers)"; }

# no_integrity DISK: the disk has no integrity profile.
no_integrity() {
	[ "$(cat "/sys/block/${1#/dev/}/integrity/format" 2>/dev/null || echo none)" = none ]
}

# on_devices TOPOLOGY HOSTDEV: the session is ib_iser's, its QPs where
# TOPOLOGY puts them.
on_devices() {
	[ "$(cat /sys/class/iscsi_session/"$(iscsi_session)"/device/../scsi_host/*/proc_name)" = iscsi_iser ] ||
		die "$1: the session's SCSI host is not ib_iser's"
	if [ "$1" = loopback ]; then
		[ "$(rc_qps sp0)" -ge 2 ] || die "$1: $(rc_qps sp0) RC QPs on sp0"
		[ "$(rc_qps sp1)" = 0 ] || die "$1: $(rc_qps sp1) RC QPs on sp1"
	else
		[ "$(rc_qps sp1)" -ge 1 ] || die "$1: the initiator's QP is not on sp1"
		[ "$(rc_qps sp0)" -ge 1 ] || die "$1: the target's QP is not on sp0"
	fi
	ok "$1: logged in through $2 (iface iser), LUN 0 $(iscsi_disk 0), LUN 1 $(iscsi_disk 1)"
}

# --- an initiator without PI (pi_enable=0), loopback ---
nopi() {
	local pd nd b a n
	login
	on_devices loopback sp0
	pd=$(iscsi_disk 0)
	nd=$(iscsi_disk 1)
	no_integrity "$pd" && no_integrity "$nd" ||
		die "no PI: an initiator disk with an integrity format"
	b=$(sigs)
	verify_whole "$nd" /tmp/nopi.img
	a=$(sigs)
	[ "$a" = "$b" ] || die "no PI: I/O without PI went through signature keys ($b -> $a)"
	ok "no PI: LUN 1 data at 6 sizes up to 1 MiB equal to the backstore both ways, no signature transfers"
	# the PI LUN for an initiator without PI: the target's device
	# inserts the PI on writes and checks and strips it on reads
	b=$(stat sp0 sig_transfers)
	n=$(ios "$pd")
	verify_whole "$pd" "$pidisk" 1
	n=$(($(ios "$pd") - n))
	a=$(($(stat sp0 sig_transfers) - b))
	[ "$a" -ge "$n" ] || die "no PI: $n I/Os on LUN 0, $a signature transfers"
	ok "no PI: LUN 0 data equal to the disk both ways, its DIX check passed; the target's device inserted and stripped the PI ($n I/Os, $a signature transfers)"
	logout
	ok "no PI: logged out, no QPs left"
}

fired0=0

# pi TOPOLOGY HOSTDEV: ib_iser with pi_enable=1
pi() {
	local topo=$1 hdev=$2 pd nd fmt n s0 s1 b a op fired

	[ "$topo" = loopback ] || leave_by_port2 10.77.0.1
	login
	on_devices "$topo" "$hdev"
	pd=$(iscsi_disk 0)
	nd=$(iscsi_disk 1)

	# LUN 1, without PI: the SCSI disk has DIX (type 0, the block layer's
	# PI in memory) as the host offers it, which the initiator's device
	# checks and strips; nothing reaches the target's
	b=$(sigs)
	n=$(ios "$nd")
	verify_whole "$nd" /tmp/nopi.img
	n=$(($(ios "$nd") - n))
	a=$(sigs)
	if [ "$topo" != loopback ]; then
		[ "${a% *}" = "${b% *}" ] || die "$topo: LUN 1 I/O through signature keys on the target's sp0"
		[ $((${a#* } - ${b#* })) -ge "$n" ] ||
			die "$topo: LUN 1: $n I/Os, $((${a#* } - ${b#* })) signature transfers on the initiator's sp1"
	fi
	ok "$topo: LUN 1 (no PI, $(cat "/sys/block/${nd#/dev/}/integrity/format" 2>/dev/null || echo none)) data both ways equal, $n I/Os, signature transfers sp0 sp1: $b -> $a"

	fmt=$(cat "/sys/block/${pd#/dev/}/integrity/format")
	[[ $fmt == T10-DIF-TYPE1-* ]] || die "$topo: LUN 0 integrity $fmt"
	ok "$topo: PI: $pd reports $fmt"
	s0=$(stat sp0 sig_transfers)
	s1=$(stat sp1 sig_transfers)
	n=$(ios "$pd")
	verify_whole "$pd" "$pidisk" 1
	n=$(($(ios "$pd") - n))
	s0=$(($(stat sp0 sig_transfers) - s0))
	s1=$(($(stat sp1 sig_transfers) - s1))
	if [ "$topo" = loopback ]; then
		# both ends' keys on sp0
		[ "$s0" -ge $((2 * n)) ] || die "$topo: $n PI I/Os, $s0 signature transfers on sp0"
	else
		[ "$s0" -ge "$n" ] || die "$topo: $n PI I/Os, $s0 signature transfers on the target's sp0"
		[ "$s1" -ge "$n" ] || die "$topo: $n PI I/Os, $s1 signature transfers on the initiator's sp1"
	fi
	ok "$topo: PI: data equal to the disk both ways, its DIX check passed; $n I/Os, signature transfers $s0 on sp0, $s1 on sp1"

	# a guard error on the next signature transfers of sp0: a read and a
	# write fail (SCSI does not retry a protection error)
	b=$(stat sp0 sig_errors)
	head -c 4096 /dev/urandom >/tmp/w
	for op in read write; do
		echo "mkey=any nth=1 kind=guard count=2" >"$simfs/sp0/sig_inject"
		rm -f /tmp/r
		if [ $op = read ]; then
			dd if="$pd" of=/tmp/r bs=4096 count=1 iflag=direct status=none 2>/dev/null &&
				die "$topo: a read with a PI error succeeded"
			[ ! -s /tmp/r ] || die "$topo: a read with a PI error returned data"
		else
			dd if=/tmp/w of="$pd" bs=4096 count=1 oflag=direct status=none 2>/dev/null &&
				die "$topo: a write with a PI error succeeded"
		fi
		fired=$(sed -n 's/.*fired=\([0-9]*\).*/\1/p' "$simfs/sp0/sig_inject")
		echo off >"$simfs/sp0/sig_inject"
		[ "$fired" -gt "$fired0" ] || die "$topo: the injection did not fire"
		ok "$topo: PI: a guard error on a $op reached the initiator as an I/O error ($((fired - fired0)) transfers failed)"
		fired0=$fired
	done
	a=$(stat sp0 sig_errors)
	[ $((a - b)) -ge 2 ] || die "$topo: $((a - b)) signature errors counted"
	session_state LOGGED_IN || die "$topo: the session did not stay logged in"
	verify_whole "$pd" "$pidisk" 1
	ok "$topo: PI: I/O after the errors succeeds in the same session, data equal"

	logout
	[ "$topo" = loopback ] || leave_by_port2_off 10.77.0.1
	ok "$topo: PI: logged out, no QPs left"
}

# ISER_TOPOLOGIES: a subset.
topos=${ISER_TOPOLOGIES:-loopback two-devices}
nopi
modprobe -r ib_iser || die "ib_iser does not unload"
modprobe ib_iser pi_enable=1 || die "ib_iser pi_enable=1"
[ "$(cat /sys/module/ib_iser/parameters/pi_enable)" = Y ] || die "ib_iser without pi_enable"
case " $topos " in *" loopback "*) pi loopback sp0 ;; esac
case " $topos " in *" two-devices "*) pi two-devices sp1 ;; esac

# --- device removal with I/O in flight ---
# under_load DEV: rdma link delete DEV while I/O runs on both disks; the
# load ends within 60 s (the session's replacement_timeout is 5 s). Sets
# t (seconds the delete took).
under_load() {
	local p0 p1
	blk_load "$(iscsi_disk 0)" >/dev/null 2>&1 </dev/null &
	p0=$!
	blk_load "$(iscsi_disk 1)" >/dev/null 2>&1 </dev/null &
	p1=$!
	sleep 2
	kill -0 $p0 2>/dev/null && kill -0 $p1 2>/dev/null || die "I/O ended before the delete of $1"
	t=$(link_delete "$1")
	wait_for 60 eval "! kill -0 $p0 2>/dev/null && ! kill -0 $p1 2>/dev/null" ||
		die "I/O still running 60 s after deleting $1"
	wait $p0 $p1 || true
}

# Both ends on the deleted device are left out: Debian's 6.12 ib_isert
# returns from its DEVICE_REMOVAL handler (rdma_cm then destroys the ID
# and ib_core tears the device down) as soon as the connection's state is
# DOWN, which isert_release_work sets before the connection's last
# reference, holding its QP, is put; in loopback the initiator's removal
# disconnects the target's connection first, so the handler finds DOWN at
# once, frees the connection in use and the device goes under its QP
# (ib_cq_pool_cleanup and restrack WARNs, a soft lockup in iscsi_ttx), on
# mlx5_ib too.

leave_by_port2 10.77.0.1
login

# the target's device sp0: the connection fails, the initiator's recovery
# finds no target and fails the session's I/O after 5 s; once the device
# is back and the portal listens again (isert drops its listener on
# DEVICE_REMOVAL, as nvmet does), the same session logs in again
under_load sp0
session_state FREE || die "the session to the deleted sp0: $(iscsiadm -m session -P 1)"
! iscsi_disk 0 >/dev/null ||
	! dd if="$(iscsi_disk 0)" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null ||
	die "a read from the target on the deleted sp0 succeeded"
ok "target's device sp0 deleted with I/O in flight: returned in ${t}s, I/O failed when recovery timed out (session FREE)"
sp_relink sp0 spd0
echo 0 >"$np/iser"
iser_np_up
wait_for 60 session_state LOGGED_IN || die "no reconnect within 60 s: $(iscsiadm -m session -P 1)"
wait_for 30 iscsi_disk 0 >/dev/null || die "no disk of LUN 0 after the reconnect"
verify_whole "$(iscsi_disk 0)" "$pidisk" 1
ok "device sp0 added again, portal re-enabled: the session recovered, data equal"

# the initiator's device sp1: the same, recovery finds no way to the target
under_load sp1
session_state FREE || die "the session through the deleted sp1: $(iscsiadm -m session -P 1)"
dd if="$(iscsi_disk 1)" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null &&
	die "a read through the deleted sp1 succeeded"
wait_for 30 no_qps sp0 || die "$(rc_qps sp0) RC QPs left on the target's sp0"
ok "initiator's device sp1 deleted with I/O in flight: returned in ${t}s, I/O failed when recovery timed out (session FREE)"
logout
leave_by_port2_off 10.77.0.1
ok "the failed session logs out"

# --- teardown ---
iscsiadm -k 0 || kill "$iscsid_pid"
wait_for 10 bash -c "! kill -0 $iscsid_pid 2>/dev/null" || die "iscsid does not end"
echo 0 >"$tpg/enable"
rm -f "$tpg/lun/lun_0/pi" "$tpg/lun/lun_1/nopi"
rmdir "$tpg/lun/lun_0" "$tpg/lun/lun_1" "$np" "$tpg" "$tgt/iscsi/$iqn" ||
	die "removing the target"
rmdir "$pib" "$nopib" "$tgt/core/iblock_0" "$tgt/core/fileio_1" || die "removing the backstores"
rdma link delete sp1 2>/dev/null || true
rdma link delete sp0
modprobe -r ib_iser || die "ib_iser does not unload"
modprobe -r ib_isert || die "ib_isert does not unload"
modprobe -r iscsi_target_mod target_core_iblock target_core_file target_core_mod 2>/dev/null || true
rmmod scsi_debug
unload
ok "modules unloaded"
echo "$checks checks passed"
