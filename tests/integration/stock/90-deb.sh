#!/bin/bash
# budget: 1200
# The Debian packages of `make deb` (.build/deb) on the stock kernel, as a
# host installs them. The full form (MLX5SP_DEB_FULL=1, `make deb-test`):
# apt installs mlx5sp-dkms, libmlx5sp1 and libmlx5sp-dev; DKMS builds
# mlx5sp.ko and mlx5sp_sim.ko for the running kernel into updates/dkms;
# modprobe loads them with their dependencies (depmod's); a model device
# comes up with `rdma link add`; the example program shipped in
# libmlx5sp-dev, built with `pkg-config --cflags --libs libmlx5sp`, serves
# READs with good and corrupted T10-DIF against it; purging the packages
# removes the modules, the sources, DKMS's tree and the library. The short
# form (make test) leaves out mlx5sp-dkms, whose DKMS build takes a quarter
# of an hour under TCG (scripts/deb builds its sources on the host), and
# runs the example on the build tree's modules. Stock kernel only (DKMS
# needs the running kernel's headers, the host's linux-headers). Leaves
# nothing installed: the other tests insmod the modules of the build tree.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/../lib.bash"

debs=$MLX5SP_TOP/.build/deb
kver=$(uname -r)
dkms_dir=/lib/modules/$kver/updates/dkms
full=${MLX5SP_DEB_FULL:-0}
pkgs=(libmlx5sp1 libmlx5sp-dev)
[ "$full" = 1 ] && pkgs=(mlx5sp-dkms "${pkgs[@]}")
step() { echo "---- $* ($SECONDS s)"; }

dkms_deb=("$debs"/mlx5sp-dkms_*_all.deb)
[ -f "${dkms_deb[0]}" ] || die "no $debs/mlx5sp-dkms_*.deb: run make deb first (make test and make stock-test do)"
version=$(dpkg-deb -f "${dkms_deb[0]}" Version)
files=()
for p in "${pkgs[@]}"; do
	f=("$debs/${p}_${version}_"*.deb)
	[ -f "${f[0]}" ] || die "no $debs/${p}_${version}_*.deb"
	files+=("${f[0]}")
done
# The modules loaded now would be what modprobe "loads".
for m in mlx5sp_sim mlx5sp; do
	[ ! -d /sys/module/$m ] || die "$m is loaded already (left by an earlier test)"
done

devfd=
purge() { apt-get purge -y -q "${pkgs[@]}" </dev/null; }
cleanup() {
	set +e
	rdma link delete dp0 2>/dev/null
	ip link del dpd0 2>/dev/null
	# DKMS's modules (full form) or the build tree's (insmod, short form)
	modprobe -r mlx5sp_sim mlx5sp 2>/dev/null || rmmod mlx5sp_sim mlx5sp 2>/dev/null
	dpkg -s libmlx5sp1 >/dev/null 2>&1 && purge >/dev/null 2>&1
	[ -z "$devfd" ] || rm -f /dev/fd
}
trap cleanup EXIT

# What udev makes on a host and this VM's init does not: DKMS reads
# <(...), i.e. /dev/fd/N.
[ -e /dev/fd ] || { ln -s /proc/self/fd /dev/fd && devfd=made; }
# No index of the manual pages to update in a throw-away VM.
echo "man-db man-db/auto-update boolean false" | debconf-set-selections

step "apt-get install ${files[*]##*/}"
t0=$SECONDS
out=$(apt-get install -y -q --no-install-recommends "${files[@]}" </dev/null 2>&1) ||
	{ echo "$out"; tail -n 30 /var/lib/dkms/mlx5sp/"$version"/build/make.log 2>/dev/null
	  die "apt-get install failed"; }
echo "$out" | grep -iE 'dkms|mlx5sp|Building|Signing|Installing|depmod|error' | head -n 40
ok "apt-get install of ${pkgs[*]}: $((SECONDS - t0)) s"
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" | grep -q "install ok installed" || die "$p not installed"
done
ok "dpkg: ${pkgs[*]} installed ($version)"

if [ "$full" != 1 ]; then
	step "mlx5sp-dkms's contents (the short form: no DKMS build)"
	c=$(dpkg-deb -c "${dkms_deb[0]}")
	for f in dkms.conf Kbuild drivers/infiniband/hw/mlx5sp/Kbuild drivers/infiniband/hw/mlx5sp/main.c \
		 drivers/infiniband/hw/mlx5sp/sim/Kbuild drivers/infiniband/hw/mlx5sp/sim/main.c; do
		grep -q " \./usr/src/mlx5sp-$version/$f\$" <<<"$c" || die "mlx5sp-dkms lacks /usr/src/mlx5sp-$version/$f"
	done
	! grep -q "/tests/" <<<"$c" || die "mlx5sp-dkms ships the KUnit suites"
	ok "mlx5sp-dkms: dkms.conf, the driver's and the model's sources, no tests"
	load
fi

if [ "$full" = 1 ]; then
[ -f "/usr/src/mlx5sp-$version/dkms.conf" ] || die "no /usr/src/mlx5sp-$version/dkms.conf"
dkms status -m mlx5sp -v "$version" -k "$kver" | grep -q ": installed" ||
	die "dkms status: $(dkms status -m mlx5sp)"
ok "dkms status: $(dkms status -m mlx5sp -v "$version" -k "$kver")"

step "the modules DKMS installed, as modprobe finds them"
for m in mlx5sp mlx5sp_sim mlx5sp_sim_vfio; do
	ko=("$dkms_dir/$m.ko"*)
	[ -f "${ko[0]}" ] || die "no $dkms_dir/$m.ko*"
	[ "$(modinfo -n $m)" = "${ko[0]}" ] || die "modinfo -n $m: $(modinfo -n $m), not ${ko[0]}"
	[ "$(modinfo -F vermagic $m | cut -d' ' -f1)" = "$kver" ] ||
		die "$m: vermagic $(modinfo -F vermagic $m), not $kver"
done
ok "mlx5sp.ko, mlx5sp_sim.ko and mlx5sp_sim_vfio.ko in $dkms_dir, for $kver"
deps=$(modprobe --show-depends mlx5sp_sim) || die "modprobe --show-depends mlx5sp_sim"
echo "$deps"
for m in ib_core ib_uverbs mlx5sp mlx5sp_sim; do
	echo "$deps" | grep -q "/$m\.ko" || die "modprobe --show-depends mlx5sp_sim: no $m"
done
echo "$deps" | grep -q "$dkms_dir/mlx5sp\.ko" || die "mlx5sp_sim's mlx5sp is not DKMS's"
ok "depmod: mlx5sp_sim -> mlx5sp -> ib_uverbs, ib_core resolve"

step "modprobe"
modprobe mlx5sp || die "modprobe mlx5sp"
[ -d /sys/module/mlx5sp ] || die "modprobe mlx5sp: not loaded"
[ -d /sys/module/ib_uverbs ] || die "modprobe mlx5sp: ib_uverbs (a dependency) not loaded"
modprobe mlx5sp_sim || die "modprobe mlx5sp_sim"
[ -d /sys/module/mlx5sp_sim ] || die "modprobe mlx5sp_sim: not loaded"
for m in mlx5sp mlx5sp_sim; do
	[ "$(cat /sys/module/$m/srcversion)" = "$(modinfo -F srcversion $m)" ] ||
		die "the loaded $m is not DKMS's"
done
ok "modprobe mlx5sp, modprobe mlx5sp_sim: DKMS's modules loaded"
fi

step "a model device"
mark deb
ip link add dpd0 type dummy
ip link set dpd0 up
rdma link add dp0 type mlx5sp netdev dpd0 || die "rdma link add dp0"
for _ in $(seq 50); do
	grep -q '^fe80' /sys/class/infiniband/dp0/ports/1/gids/1 2>/dev/null && break
	sleep 0.2
done
rdma link show dp0/1 | grep -q "state ACTIVE" || die "dp0: $(rdma link show dp0/1)"
ibv_devinfo -d dp0 | grep -E 'hca_id|transport|fw_ver|vendor_id|state'
ok "rdma link add dp0 type mlx5sp netdev dpd0: $(rdma link show dp0/1)"

step "the example of libmlx5sp-dev, built with pkg-config"
ex=/usr/share/doc/libmlx5sp-dev/examples/read_target.c
[ -f $ex ] || die "no $ex"
pc=$(pkg-config --cflags --libs libmlx5sp) || die "pkg-config libmlx5sp"
echo "pkg-config --cflags --libs libmlx5sp: $pc"
rt=/tmp/read-target
# shellcheck disable=SC2086 # pkg-config's words
gcc -O2 -Wall -Werror -o $rt $ex $pc || die "gcc $ex $pc"
lib=$(ldd $rt | awk '$1 == "libmlx5sp.so.1" { print $3 }')
# /lib is /usr/lib on Debian 12 (merged /usr): ld.so may name either
[ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libmlx5sp.so.1")" ] ||
	die "read-target links $lib, not libmlx5sp1's"
ok "read_target.c built with \$(pkg-config --cflags --libs libmlx5sp), runs on $lib"
timeout 100 $rt -d dp0 -n 8 -b 4 || die "read-target: 8 good READs failed"
ok "read-target: 8 good READs"
out=$(timeout 100 $rt -d dp0 -n 12 -b 4 -c guard:1 -c apptag:4 -c reftag:5 -c guard:11 2>&1) ||
	{ echo "$out"; die "read-target with bad PI failed"; }
echo "$out" | tail -n 3
echo "$out" | grep -q "12 READs, 4 signature errors, 0 mismatches" || die "read-target: not 4 signature errors of 12"
ok "read-target: 12 READs, bad PI in 4 of them: 4 signature errors, responses cancelled"

step "teardown, purge"
rdma link delete dp0 || die "rdma link delete dp0"
ip link del dpd0
if [ "$full" = 1 ]; then
	modprobe -r mlx5sp_sim mlx5sp || die "modprobe -r mlx5sp_sim mlx5sp"
else
	unload
fi
[ ! -d /sys/module/mlx5sp ] || die "mlx5sp still loaded"
t0=$SECONDS
purge || die "apt-get purge ${pkgs[*]}"
ok "apt-get purge ${pkgs[*]}: $((SECONDS - t0)) s"
for p in "${pkgs[@]}"; do
	! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q installed || die "$p still installed"
done
if [ "$full" = 1 ]; then
left=$(ls "$dkms_dir"/mlx5sp* 2>/dev/null || true)
[ -z "$left" ] || die "left after purge: $left"
[ ! -e "/usr/src/mlx5sp-$version" ] || die "/usr/src/mlx5sp-$version left after purge"
[ ! -e /var/lib/dkms/mlx5sp ] || die "/var/lib/dkms/mlx5sp left after purge"
ok "the modules, /usr/src/mlx5sp-$version and DKMS's tree are gone"
for m in mlx5sp mlx5sp_sim; do
	! modinfo $m >/dev/null 2>&1 || die "modinfo $m still finds $(modinfo -n $m)"
	! modprobe $m 2>/dev/null || die "modprobe $m still loads a module"
done
[ ! -d /sys/module/mlx5sp ] || die "mlx5sp loaded after purge"
ok "modprobe mlx5sp and modprobe mlx5sp_sim fail (not found)"
fi
! ldconfig -p | grep -q libmlx5sp || die "libmlx5sp still in ld.so's cache"
[ -z "$(ls /usr/lib/*/libmlx5sp* /usr/include/mlx5sp 2>/dev/null)" ] || die "libmlx5sp files left after purge"
! pkg-config --exists libmlx5sp || die "pkg-config still finds libmlx5sp"
! $rt -d dp0 -n 1 2>/dev/null || die "read-target still runs"
ok "libmlx5sp.so.1, its header and .pc are gone; the example no longer runs"
trap - EXIT
[ -z "$devfd" ] || rm -f /dev/fd
echo "$checks checks passed ($SECONDS s)"
