#!/bin/bash
# budget: 120
# Faults through the model's debugfs: a missing capability and a port in
# InfiniBand mode refuse bring-up with a clear message, an injected bring-up failure unwinds, a page-request
# storm is answered, a fatal health syndrome moves the device to error state
# and it is still removed cleanly. Firmware refusing to destroy ib_mad's
# QP1 and its CQ at removal: the device still goes, with no kernel report
# (quarantine.c keeps their memory until the teardown).
. "$(dirname "$0")/lib.bash"

load health_poll_ms=100

mark missing-cap
if add fc0 missing_caps=2 2>/dev/null; then die "bring-up without signature caps succeeded"; fi
log_since missing-cap | grep -q "fc0: device lacks capability sho" || die "no clear refusal message"
[ ! -e "$simfs/fc0" ] || die "refused device left behind"

# a port in InfiniBand mode: refused, never reported as RoCE
mark port-ib
if add fi0 port_ib=1 2>/dev/null; then die "bring-up of an InfiniBand-mode port succeeded"; fi
log_since port-ib | grep -q "fi0: the port is in InfiniBand mode: .*use mlx5_ib" ||
	die "no clear refusal of the InfiniBand port"
[ ! -e "$simfs/fi0" ] && [ ! -e /sys/class/infiniband/fi0 ] || die "refused IB-mode device left behind"

mark storm
add fs0
before=$(stat fs0 pages_held)
echo "50 4" > "$simfs/fs0/page_storm"
for _ in $(seq 1 100); do
	[ "$(stat fs0 pages_held)" = $((before + 200)) ] && break
	sleep 0.1
done
[ "$(stat fs0 pages_held)" = $((before + 200)) ] || die "storm: held $(stat fs0 pages_held), want $((before + 200))"
echo "25 -8" > "$simfs/fs0/page_storm"
for _ in $(seq 1 100); do
	[ "$(stat fs0 pages_held)" = "$before" ] && break
	sleep 0.1
done
[ "$(stat fs0 pages_held)" = "$before" ] || die "storm: pages not taken back"
[ "$(stat fs0 eq_overruns)" = 0 ] || die "EQ overrun during storm"

mark fatal
echo 8 > "$simfs/fs0/health_syndrome"
for _ in $(seq 1 50); do
	log_since fatal | grep -q "fs0: device in error state" && break
	sleep 0.1
done
log_since fatal | grep -q "fs0: fatal firmware error: syndrome 0x8" || die "health syndrome not reported"
log_since fatal | grep -q "fs0: device in error state" || die "no error state"
del fs0
log_since fatal | grep -q "fs0: down" || die "dead device not removed"

mark cmd-fail
add ff0
echo 0x803 > "$simfs/ff0/fail_opcode"	# DEALLOC_UAR, during removal
echo 1 > "$simfs/ff0/fail_status"
echo 0xabc > "$simfs/ff0/fail_syndrome"
echo 1 > "$simfs/ff0/fail_count"
del ff0
log_since cmd-fail | grep -q "DEALLOC_UAR(0x803) op_mod 0x0 failed, status internal error(0x1), syndrome 0xabc" ||
	die "injected failure not logged with opcode, status and syndrome"
log_since cmd-fail | grep -q "ff0: down" || die "ff0 not removed"

# refused OPCODE NAME WHAT...: a device whose firmware refuses the first
# destroy of OPCODE at removal; each WHAT logged as kept
refused() {
	local op=$1 name=$2 what
	shift 2
	mark "refused-$name"
	add "$name"
	echo "$op" > "$simfs/$name/fail_opcode"
	echo 1 > "$simfs/$name/fail_status"
	echo 0 > "$simfs/$name/fail_syndrome"
	echo 1 > "$simfs/$name/fail_count"
	del "$name"
	for what in "$@"; do
		log_since "refused-$name" | grep -q "$name: firmware failed to destroy $what 0x[0-9a-f]*: destroyed for its user" ||
			die "$op: $what not kept after a refused destroy"
	done
	log_since "refused-$name" | grep -q "$name: down" || die "$name not removed"
}
# DESTROY_QP of ib_mad's QP1: firmware keeps it, and so refuses its CQ's
# destroy too (in use); then DESTROY_CQ alone
refused 0x501 fq0 QP CQ
refused 0x401 fq1 CQ
unload
