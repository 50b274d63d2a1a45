#!/bin/bash
# budget: 120
# Two model devices come up, report firmware version and caps, go away clean.
. "$(dirname "$0")/../lib.bash"

load
mark two-devices
add mx0
add mx1
for d in mx0 mx1; do
	log_since two-devices | grep -q "$d: up: fw [0-9]*\.[0-9]*\.[0-9]*" || die "$d did not come up"
	log_since two-devices | grep -q "$d: caps: roce 1 sho 1" || die "$d caps not logged"
	held=$(stat "$d" pages_held)
	[ "$held" -gt 0 ] || die "$d: firmware holds no pages ($held)"
done
log_since two-devices | grep "mx[01]: \(firmware version\|up:\|caps:\)"
del mx0
del mx1
log_since two-devices | grep -q "mx0: down" || die "mx0 not torn down"
log_since two-devices | grep -q "mx1: down" || die "mx1 not torn down"
[ ! -e "$simfs/mx0" ] || die "mx0 still exists"
if log_since two-devices | grep -q "leak\|did not return"; then die "pages leaked"; fi
unload
