#!/bin/bash
# budget: 120
# Isolation between users (tests/userspace/isolation.c): a process running
# as nobody cannot reach another process's QPs, CQs, MRs, MKEYs or DEVX
# objects by handle, number or key (verbs, mlx5dv, DEVX; a UMR WQE at the
# owner's signature MKEY fails with a local protection error), privileged DEVX
# commands are refused, foreign and out-of-range rkeys end in remote
# access errors, RLIMIT_MEMLOCK bounds what it pins; and the device nodes
# are what the kernel and rdma-core's udev rules make them (uverbs and
# rdma_cm 0666, umad and issm 0600).
. "$(dirname "$(readlink -f "$0")")/lib.bash"

prog=$(test_prog isolation)

# built in on the debug kernel (which has no module tree): modprobe may fail
modprobe rdma_ucm 2>/dev/null || true
modprobe ib_umad 2>/dev/null || true
load
mark isolation
ip link add isdummy0 type dummy
ip link set isdummy0 up
rdma link add m0 type mlx5sp netdev isdummy0 || die "rdma link add failed"
wait_gid m0 0

# mode_is PATH MODE: a character device with that mode, owned by root
mode_is() {
	local got
	[ -c "$1" ] || { echo "FAIL: $1 is not a character device"; return 1; }
	got=$(command stat -c '%a %U:%G' "$1")
	if [ "$got" = "$2 root:root" ]; then
		echo "PASS: $1: $got"
	else
		echo "FAIL: $1: $got, not $2 root:root"
		return 1
	fi
}

bad=0
found=0
for c in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$c/ibdev")" = m0 ] || continue
	found=1
	n=/dev/infiniband/$(basename "$c")
	mode_is "$n" 666 || bad=1
	want=$(cat "$c/dev")
	got=$(printf '%d:%d' 0x"$(command stat -c %t "$n")" 0x"$(command stat -c %T "$n")")
	[ "$got" = "$want" ] || { echo "FAIL: $n is $got, the device is $want"; bad=1; }
done
[ $found = 1 ] || { echo "FAIL: no uverbs device of m0"; bad=1; }
mode_is /dev/infiniband/rdma_cm 666 || bad=1
found=0
for c in /sys/class/infiniband_mad/umad* /sys/class/infiniband_mad/issm*; do
	[ -e "$c/ibdev" ] && [ "$(cat "$c/ibdev")" = m0 ] || continue
	found=1
	mode_is "/dev/infiniband/$(basename "$c")" 600 || bad=1
done
[ $found = 1 ] || { echo "FAIL: no umad device of m0"; bad=1; }

rc=0
out=$(mktemp)
timeout 120 "$prog" m0 | tee "$out" || rc=$?
echo "campaign: isolation: $(grep -c '^PASS' "$out") checks passed," \
	"$(grep -c '^FAIL' "$out") failed (handles, DEVX, keys, MEMLOCK, nodes)"
rm -f "$out"

rdma link delete m0 || die "rdma link delete failed"
ip link del isdummy0
modprobe -r ib_umad rdma_ucm 2>/dev/null || true
unload
[ $bad = 0 ] || die "device nodes"
[ $rc = 0 ] || die "isolation: status $rc"
