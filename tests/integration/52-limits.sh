#!/bin/bash
# Object counts at the device's limits (tests/userspace/limits.c): a model
# device with a small firmware profile reports it (ibv_devinfo -v), holds
# exactly that many PDs, CQs, SRQs, QPs and MRs, whoever made them, and
# refuses the one more cleanly, as a ConnectX refuses a create past its
# log_max_* counts; a profile above a ConnectX-6's is refused.
. "$(dirname "$(readlink -f "$0")")/lib.bash"

prog=$(test_prog limits)
load
mark limits
# above a ConnectX-6's 2^18 QPs, or an unknown key: no device
for bad in "limbad log_max_qp=19" "limbad log_max_mkey=25" "limbad log_max_foo=3"; do
	if add $bad 2>/dev/null; then die "accepted: $bad"; fi
done
[ -e $simfs/limbad ] && die "a refused profile left a device"

add lim0 log_max_pd=4 log_max_cq=4 log_max_srq=3 log_max_qp=5 log_max_mkey=6 ||
	die "add lim0 with a small profile"
info=$(ibv_devinfo -d lim0 -v) || die "ibv_devinfo lim0"
for kv in max_pd:16 max_cq:16 max_srq:8 max_qp:32 max_mr:64; do
	k=${kv%%:*} v=${kv##*:}
	got=$(echo "$info" | awk -v k="$k" '$1 == k":" { print $2 }')
	[ "$got" = "$v" ] || die "lim0 reports $k $got, not $v"
done
echo "lim0 reports max_pd 16 max_cq 16 max_srq 8 max_qp 32 max_mr 64"
cat $simfs/lim0/limits

rc=0
timeout 300 "$prog" lim0 $simfs/lim0/limits || rc=$?
cat $simfs/lim0/limits
del lim0
unload
[ $rc = 0 ] || die "limits: status $rc"
