#!/bin/bash
# The nested guest of stock/63-pci.sh: the software ConnectX is a PCI
# function here, and the unmodified mlx5sp.ko binds it as it would bind a
# card, with the README's recipe. Prints "pci-guest: all passed" at the end.
. "$(dirname "$0")/../lib.bash"

dev=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x15b3 ] && [ "$(cat "$d/device")" = 0x101b ]; then
		dev=$(basename "$d")
	fi
done
[ -n "$dev" ] || die "no 15b3:101b function"
sys=/sys/bus/pci/devices/$dev
[ "$(cat "$sys/class")" = 0x020000 ] || die "class $(cat "$sys/class")"
[ "$(cat "$sys/subsystem_vendor")" = 0x15b3 ] || die "subsystem vendor $(cat "$sys/subsystem_vendor")"
read -r start end flags < <(head -n1 "$sys/resource")
[ $((end - start + 1)) -eq $((64 << 20)) ] || die "BAR0 of $((end - start + 1)) bytes"
[ $((flags & 0x2000)) -ne 0 ] || die "BAR0 is not prefetchable (flags $flags)"
lspci -vv -s "$dev" | grep -q "MSI-X: Enable- Count=8" || {
	lspci -vv -s "$dev"
	die "no MSI-X capability of 8 vectors"
}
ok "$dev: 15b3:101b, Ethernet class, 64 MiB prefetchable BAR0, MSI-X of 8"

# ib_of: the RDMA device on $dev, or nothing
ib_of() {
	local i
	for i in /sys/class/infiniband/*; do
		[ "$(basename "$(readlink -f "$i/device")")" = "$dev" ] && basename "$i"
	done
	return 0
}
for d in $(modinfo -F depends "$ko/mlx5sp.ko" | tr , ' '); do modprobe "$d"; done
insmod "$ko/mlx5sp.ko"
mark bind
bind() {
	echo mlx5sp > "$sys/driver_override"
	echo "$dev" > /sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "$sys/driver")")" = mlx5sp ] || die "mlx5sp did not bind $dev"
}
bind
log_since bind | grep -q "$dev: up: fw 22.39.1002" || die "$dev did not come up"
ib=$(ib_of)
[ -n "$ib" ] || die "no RDMA device on $dev"
info=$(ibv_devinfo -v -d "$ib")
grep -q "fw_ver:.*22.39.1002" <<<"$info" || die "ibv_devinfo: $info"
grep -q "vendor_part_id:.*4123" <<<"$info" || die "ibv_devinfo: no part id 4123"
ok "mlx5sp bound $dev: $ib, $(grep -m1 fw_ver <<<"$info" | tr -s ' \t' ' ')"

irqs=$(awk '/mlx5sp/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts)
[ "$irqs" -gt 0 ] || { cat /proc/interrupts; die "no interrupt of mlx5sp's vectors"; }
ok "MSI-X through the function: $irqs interrupts"

# An FLR while bound: the core goes down before, comes up after
mark flr-bound
echo 1 > "$sys/reset"
log_since flr-bound | grep -q "$dev: down" || die "$dev not torn down for the reset"
log_since flr-bound | grep -q "$dev: up: fw 22.39.1002" || die "$dev did not come up after the reset"
ib=$(ib_of)
[ -n "$ib" ] || die "no RDMA device on $dev after the reset"
ibv_devinfo -d "$ib" | grep -q "fw_ver:.*22.39.1002" || die "$ib does not answer after the reset"
ok "FLR while bound: down, reset, up again as $ib"

mark unbind
echo "$dev" > /sys/bus/pci/drivers/mlx5sp/unbind
log_since unbind | grep -q "$dev: down" || die "$dev not torn down"
[ ! -e "/sys/class/infiniband/$ib" ] || die "$ib still there after unbind"
ok "unbound: $dev down, $ib gone"

mark flr
echo 1 > "$sys/reset"
bind
log_since flr | grep -q "$dev: up: fw 22.39.1002" || die "$dev did not come up after the reset"
ok "function reset (FLR) unbound, bound again"
# left bound: the power-off runs the driver's shutdown (checked outside)
echo "pci-guest: all passed"
