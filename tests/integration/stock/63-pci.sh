#!/bin/bash
# budget: 1800
# The software ConnectX as a PCI function: mlx5sp_sim_vfio.ko offers a
# ConnectX-6 mediated device, QEMU runs a nested guest (stock kernel)
# with it through vfio-pci, and there the unmodified mlx5sp.ko binds it
# as it would bind a card (pci/guest.sh). Here, the function as its host
# sees it: the model device behind it, its pins and resets, and nothing
# left of it when the guest has gone.
. "$(dirname "$0")/../lib.bash"

if [ ! -f "$ko/sim/mlx5sp_sim_vfio.ko" ]; then
	echo "SKIP: no mlx5sp_sim_vfio.ko (a kernel without CONFIG_VFIO_MDEV)"
	exit 0
fi
modprobe vfio
modprobe vfio_iommu_type1
modprobe mdev
load
insmod "$ko/sim/mlx5sp_sim_vfio.ko"
mark pci

type=/sys/class/mdev_bus/mlx5sp_sim_vfio/mdev_supported_types/mlx5sp_sim_vfio-cx6
[ -d "$type" ] || die "no mdev type $type"
[ "$(cat "$type/device_api")" = vfio-pci ] || die "device_api: $(cat "$type/device_api")"
avail=$(cat "$type/available_instances")
[ "$avail" -ge 1 ] || die "available_instances $avail"
ok "mdev type $(basename "$type"): $(cat "$type/description")"

# The function's contract, from a vfio user without a guest, on an
# instance of its own
uuid=$(cat /proc/sys/kernel/random/uuid)
echo "$uuid" > "$type/create"
"$MLX5SP_TOP/.build/tests/vfio_function" "/sys/bus/mdev/devices/$uuid" ||
	die "vfio_function failed"
[ ! -e "$simfs/$(cat "/sys/bus/mdev/devices/$uuid/vendor/sim_name")" ] ||
	die "a model device left after its function was closed"
echo 1 > "/sys/bus/mdev/devices/$uuid/remove"
ok "the function's regions, config space, BAR0, MSI-X, DMA pins and resets"

uuid=$(cat /proc/sys/kernel/random/uuid)
echo "$uuid" > "$type/create"
mdev=/sys/bus/mdev/devices/$uuid
[ -d "$mdev" ] || die "mdev $uuid not created"
[ "$(cat "$type/available_instances")" -eq $((avail - 1)) ] ||
	die "available_instances did not go down"
name=$(cat "$mdev/vendor/sim_name")
[ ! -e "$simfs/$name" ] || die "model device $name exists before the function is opened"
ok "function $uuid created ($name), no model device until it is opened"

# The nested guest, with the function; its own console is checked as
# any guest's. Meanwhile, what the host sees of the function.
l2res=$MLX5SP_RESULTS/l2
mkdir -p "$l2res"
# the nested guest's bound: what is left of this script's limit
l2limit=$((${MLX5SP_TEST_LIMIT:-1200} - SECONDS - 60))
"$MLX5SP_TOP/tests/vm/run" --kernel stock --mem 768 --smp 1 --timeout "$l2limit" \
	--vfio "$mdev" --results "$l2res" -- bash tests/integration/pci/guest.sh \
	> "$MLX5SP_RESULTS/l2.log" 2>&1 &
l2=$!
maxpin=0
maxcmds=0
seen_sim=
while kill -0 "$l2" 2>/dev/null; do
	p=$(cat "$mdev/vendor/pinned_pages")
	[ "$p" -gt "$maxpin" ] && maxpin=$p
	if [ -e "$simfs/$name" ]; then
		seen_sim=1
		c=$(stat "$name" cmds_executed 2>/dev/null || echo 0)
		[ "${c:-0}" -gt "$maxcmds" ] && maxcmds=$c
	fi
	sleep 2
done
l2rc=0
wait "$l2" || l2rc=$?
sed 's/^/    l2: /' "$MLX5SP_RESULTS/l2.log"
[ "$l2rc" -eq 0 ] || die "the nested guest failed (status $l2rc)"
grep -q "^pci-guest: all passed" "$MLX5SP_RESULTS/l2.log" ||
	die "the nested guest did not finish its checks"
grep -q "mlx5sp .*: shutdown" "$l2res/console.log" ||
	die "the guest's power-off did not run mlx5sp's shutdown"
ok "nested guest: mlx5sp bound the function as a card (checks above), shut it down at power-off"

[ -n "$seen_sim" ] || die "no model device $name while the guest ran"
[ "$maxcmds" -gt 20 ] || die "only $maxcmds firmware commands through the function"
# 768 MiB of guest RAM, all pinned while bus mastering was on
[ "$maxpin" -ge $((512 * 256)) ] || die "only $maxpin pages pinned for the guest's DMA"
resets=$(cat "$mdev/vendor/resets")
[ "$resets" -ge 2 ] || die "$resets function resets: the guest's FLR did not reach the function"
ok "while the guest ran: model device $name, $maxcmds commands at most in one life, $maxpin pages pinned, $resets function resets"

[ "$(cat "$mdev/vendor/pinned_pages")" -eq 0 ] || die "pages still pinned after the guest"
[ ! -e "$simfs/$name" ] || die "model device $name still there after the guest"
log_since pci | grep -q "$name: function reset (FLR\|$name: function reset (VFIO_DEVICE_RESET" ||
	die "no function reset in the log"
if log_since pci | grep "$name: .*leaked"; then
	die "the model counted pages leaked"
fi
ok "after the guest: nothing pinned, no model device"

echo 1 > "$mdev/remove"
[ ! -d "$mdev" ] || die "mdev not removed"
rmmod mlx5sp_sim_vfio
unload
ok "function removed, modules unloaded"
