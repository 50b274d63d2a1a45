#!/bin/bash
# budget: 120
# Smoke test: the driver and the software device load, show in sysfs, unload.
set -euo pipefail
ko=$MLX5SP_KO_DIR

# insmod doesn't resolve dependencies: load the in-tree ones (ib_core ...
# on the stock kernel; built in on the debug kernel) with modprobe.
for d in $(modinfo -F depends "$ko/mlx5sp.ko" "$ko/sim/mlx5sp_sim.ko" | tr , ' '); do
	case $d in mlx5sp|mlx5sp_sim) ;; *) modprobe "$d" ;; esac
done
insmod "$ko/mlx5sp.ko"
insmod "$ko/sim/mlx5sp_sim.ko"
test -d /sys/module/mlx5sp
test -d /sys/module/mlx5sp_sim
rmmod mlx5sp_sim
rmmod mlx5sp
test ! -d /sys/module/mlx5sp
