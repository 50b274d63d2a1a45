#!/bin/bash
# NFS over RDMA over model devices: nfsd with an RDMA listener (svcrdma,
# port 20049) exporting a tmpfs directory, mounted with proto=rdma from the
# same guest (xprtrdma), NFSv4.2 and NFSv3 on one device in loopback and
# NFSv4.2 between two devices. Checks: the mount's connection on the
# expected devices, files of several sizes (random data, up to 4 MiB)
# written through the mount equal on the server's directory and read back
# through the mount after dropping caches, a file written on the server
# read through the mount, clean unmounts (no QP left), nfsd stops,
# modules unload.
#
# Then (NFS_REMOVAL=0 leaves it out) rdma link delete of the device with
# I/O in flight on a hard NFSv4.2 mount: the delete returns, the device and
# nfsd's RDMA listener (gone with the device) come back, the mount
# reconnects by itself and a new file reads back equal.
#
# xprtrdma binds no source address (rdma_resolve_addr without one), so the
# two-device mount reaches the server by an address of sp0's (10.77.0.2)
# that locally generated traffic routes out of spd1. NFSv3 goes there only
# in loopback: its MOUNT and NLM traffic is TCP/UDP, and a dummy netdev
# carries no IP between the ports.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/ulp.bash"

for m in rpcrdma nfsd; do
	if ! modinfo "$m" >/dev/null 2>&1 && [ ! -d "/sys/module/$m" ]; then
		echo "SKIP: this kernel has no $m"
		exit 77
	fi
done
command -v rpc.nfsd >/dev/null || { echo "SKIP: no nfs-kernel-server"; exit 77; }

export_dir=/srv/nfs
mnt=/mnt/nfs-rdma

load
need_mod nfsd
need_mod rpcrdma
sp_link sp0 spd0 10.77.0.1/24
sp_link sp1 spd1 10.77.1.1/24
two_ports spd0 10.77.0.1 spd1 10.77.1.1
ip addr add 10.77.0.2/32 dev spd0
ip route add 10.77.0.2 dev spd1 table 101
ip rule add pref 99 to 10.77.0.2 iif lo lookup 101
ip neigh add 10.77.0.2 lladdr "$(cat /sys/class/net/spd0/address)" dev spd1

# nfsd: the exported tmpfs (the NFSv4 root), rpcbind, mountd, 2 threads,
# TCP and the RDMA listener
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
mkdir -p "$export_dir" "$mnt" /run/rpcbind /var/lib/nfs/rpc_pipefs
mount -t tmpfs tmpfs "$export_dir"
mountpoint -q /var/lib/nfs/rpc_pipefs || mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs
echo "$export_dir *(rw,no_root_squash,insecure,fsid=0,no_subtree_check)" >/etc/exports
# in the foreground, so that the test stops them by their own process ID
rpcbind -f -w &
rpcbind_pid=$!
wait_for 10 test -S /run/rpcbind.sock || die "rpcbind"
exportfs -ra || die "exportfs"
rpc.mountd -F &
mountd_pid=$!
rpc.nfsd 2 || die "rpc.nfsd"
echo "rdma 20049" >/proc/fs/nfsd/portlist || die "nfsd: no RDMA listener"
grep -qx "rdma 20049" /proc/fs/nfsd/portlist || die "nfsd: portlist without rdma 20049"
ok "nfsd listens on rdma 20049"

# rc_qps DEV: RC QPs on DEV.
rc_qps() { rdma resource show qp link "$1/1" 2>/dev/null | grep -c "type RC" || true; }
no_qps() { [ "$(rc_qps sp0)" = 0 ] && [ "$(rc_qps sp1)" = 0 ]; }

# nfs_up VERS ADDR PATH
nfs_up() {
	timeout 90 mount -t nfs -o "proto=rdma,port=20049,vers=$1" "$2:$3" "$mnt" ||
		die "mount vers=$1 $2:$3 over RDMA"
	grep -q " $mnt nfs.* .*proto=rdma" /proc/mounts || die "$mnt is no NFS over RDMA mount"
}

# nfs_down: unmount, and every connection goes (the server's QP once its
# transport is freed).
nfs_down() {
	timeout 60 umount "$mnt" || die "umount $mnt"
	wait_for 60 no_qps || die "QPs left after umount: sp0 $(rc_qps sp0), sp1 $(rc_qps sp1)"
}

# files_check TAG: files of several sizes through the mount equal on the
# server and read back after dropping caches; a file written on the server
# read through the mount.
files_check() {
	local size f
	for size in 1 4096 65536 1048576 3000001 4194304; do
		f=$1-$size
		head -c "$size" /dev/urandom >/tmp/w
		cp /tmp/w "$mnt/$f" || die "write of $size B to $mnt/$f"
		sync -f "$mnt/$f" 2>/dev/null || sync
		cmp -s /tmp/w "$export_dir/$f" || die "$f: the server's file differs from what was written"
		echo 3 >/proc/sys/vm/drop_caches
		cmp -s /tmp/w "$mnt/$f" || die "$f: read back through the mount differs"
	done
	head -c 2097152 /dev/urandom >"$export_dir/$1-server"
	dd if="$mnt/$1-server" of=/tmp/r bs=1M iflag=direct status=none || die "O_DIRECT read of $1-server"
	cmp -s /tmp/r "$export_dir/$1-server" || die "$1-server: read through the mount differs"
}

# run TOPOLOGY VERS ADDR PATH CLIENTDEV
run() {
	local topo=$1 vers=$2 dev=$5
	nfs_up "$vers" "$3" "$4"
	if [ "$dev" = sp0 ]; then
		[ "$(rc_qps sp0)" -ge 2 ] || die "$topo: $(rc_qps sp0) RC QPs on sp0"
	else
		[ "$(rc_qps sp1)" -ge 1 ] || die "$topo: no RC QP on sp1"
		[ "$(rc_qps sp0)" -ge 1 ] || die "$topo: no RC QP on sp0"
	fi
	ok "$topo: NFSv$vers mounted over RDMA from $dev"
	files_check "$topo-v$vers"
	ok "$topo: NFSv$vers: 6 files up to 4 MiB equal on the server and read back, a server file read"
	nfs_down
	ok "$topo: NFSv$vers: unmounted, no QPs left"
}

# NFS_CASES: a subset of loopback-4.2 loopback-3 two-devices-4.2.
cases=${NFS_CASES:-loopback-4.2 loopback-3 two-devices-4.2}
case " $cases " in *" loopback-4.2 "*) run loopback 4.2 10.77.0.1 / sp0 ;; esac
case " $cases " in *" loopback-3 "*) run loopback 3 10.77.0.1 "$export_dir" sp0 ;; esac
case " $cases " in *" two-devices-4.2 "*) run two-devices 4.2 10.77.0.2 / sp1 ;; esac

# --- device removal with I/O in flight ---
# io_load: write and read files through the mount until that fails.
io_load() {
	local i=0
	while dd if=/dev/urandom of="$mnt/load-$((i % 4))" bs=64k count=16 conv=fsync status=none &&
		dd if="$mnt/load-$((i % 4))" of=/dev/null bs=64k iflag=direct status=none; do
		i=$((i + 1))
	done
}

if [ "${NFS_REMOVAL:-1}" = 1 ]; then
nfs_up 4.2 10.77.0.1 /
io_load >/dev/null 2>&1 </dev/null &
load_pid=$!
sleep 3
kill -0 $load_pid 2>/dev/null || die "I/O on $mnt ended before the delete"
mark "nfs-rdma: delete sp0 under load"
t=$(link_delete sp0)
[ ! -e /sys/class/infiniband/sp0 ] || die "sp0 stays"
ok "device sp0 deleted with I/O on the mount: returned in ${t}s"
# A hard mount retries until the server is back (on mlx5_ib too): the
# device again, and nfsd's RDMA listener, which went with it.
sp_relink sp0 spd0
grep -q "^rdma 20049" /proc/fs/nfsd/portlist || echo "rdma 20049" >/proc/fs/nfsd/portlist ||
	die "nfsd: rdma 20049 again"
n=$(ls "$mnt" | wc -l)
wait_for 120 timeout 20 stat "$mnt/load-0" >/dev/null ||
	die "the mount did not come back within 120 s of the device"
kill $load_pid 2>/dev/null || true
wait $load_pid || true
head -c 1048576 /dev/urandom >/tmp/w
cp /tmp/w "$mnt/after" && sync && echo 3 >/proc/sys/vm/drop_caches && cmp -s /tmp/w "$mnt/after" &&
	cmp -s /tmp/w "$export_dir/after" || die "a file written after the reconnect differs"
timeout 60 umount "$mnt" || die "umount $mnt after the reconnect"
ok "device re-added, nfsd listening again: the mount reconnected ($n files), a new file equal, unmounted"
fi

rpc.nfsd 0 || die "rpc.nfsd 0"
exportfs -ua
kill $mountd_pid $rpcbind_pid
wait $mountd_pid $rpcbind_pid || true
umount /proc/fs/nfsd
umount "$export_dir"
ok "nfsd stopped"
[ -e /sys/class/infiniband/sp0 ] && rdma link delete sp0
rdma link delete sp1
modprobe -r rpcrdma || die "rpcrdma does not unload"
modprobe -r nfsd 2>/dev/null || true
unload
ok "modules unloaded"
echo "$checks checks passed"
