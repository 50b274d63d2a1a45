#!/bin/bash
# budget: 120
# Object counts at the device's limits (tests/userspace/limits.c): a model
# device with a small firmware profile reports it (ibv_devinfo -v), holds
# exactly that many PDs, CQs, SRQs, QPs and MRs, whoever made them, and
# refuses the one more cleanly, as a ConnectX refuses a create past its
# log_max_* counts; a profile above a ConnectX-6's is refused. Then the
# same on a device that carries a load process's traffic meanwhile.
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
[ $rc = 0 ] || die "limits: status $rc"

# The same under load: lim1, of that profile with a RoCE port on a dummy
# netdev, carries a load process's traffic (tests/userspace/load.c, one
# pair in loopback: RC SENDs, WRITEs, READs and UD datagrams, every byte
# checked) while limits fills every kind up to the count, meets the
# refusals and frees; the load holds its own objects meanwhile (limits
# counts whoever made them) and must end clean.
lprog=$(test_prog load)
ready=/tmp/limits-load.ready
ip link add limdummy0 type dummy
ip link set limdummy0 up
add lim1 log_max_pd=4 log_max_cq=4 log_max_srq=3 log_max_qp=5 log_max_mkey=6 \
	netdev=limdummy0 || die "add lim1 on limdummy0"
wait_gid lim1
rm -f "$ready"
"$lprog" --procs 1 --pairs 1 --seconds 900 --no-overrun --ready "$ready" \
	lim1 >/tmp/limits-load.out 2>&1 &
lpid=$!
for i in $(seq 600); do
	[ -e "$ready" ] && break
	kill -0 $lpid 2>/dev/null || break
	sleep 0.2
done
[ -e "$ready" ] || { cat /tmp/limits-load.out; die "load on lim1 never ran"; }
cat $simfs/lim1/limits
w0=$(stat lim1 wqes_executed)
rc=0
timeout 300 "$prog" lim1 $simfs/lim1/limits || rc=$?
w1=$(stat lim1 wqes_executed)
kill -0 $lpid 2>/dev/null || { cat /tmp/limits-load.out; die "the load ended before limits did"; }
kill -USR1 $lpid
lrc=0
wait $lpid || lrc=$?
cat /tmp/limits-load.out
cat $simfs/lim1/limits
del lim1
ip link del limdummy0
unload
[ $rc = 0 ] || die "limits under load: status $rc"
[ $lrc = 0 ] || die "the load beside limits: status $lrc"
[ $((w1 - w0)) -gt 0 ] || die "no WQE executed on lim1 while limits ran"
echo "ok   limits under load: every count reached and refused past, $((w1 - w0)) WQEs of the load executed meanwhile, the load clean"
echo "campaign: limits under load, $((w1 - w0)) WQEs executed during the fill; $(sed -n 's/^load: \([0-9]* processes,.*\)/\1/p' /tmp/limits-load.out)"
