# Shared helpers for the in-guest integration tests (sourced).
# Environment from tests/vm/run: MLX5SP_KO_DIR, MLX5SP_RESULTS, MLX5SP_KERNEL.
set -euo pipefail

ko=$MLX5SP_KO_DIR
simfs=/sys/kernel/debug/mlx5sp_sim

die() { echo "FAIL: $*" >&2; dmesg | tail -n 40 >&2; exit 1; }

load() {
	local d
	# insmod doesn't resolve dependencies; in-tree ones come by modprobe.
	for d in $(modinfo -F depends "$ko/mlx5sp.ko" "$ko/sim/mlx5sp_sim.ko" | tr , ' '); do
		case $d in mlx5sp|mlx5sp_sim) ;; *) modprobe "$d" ;; esac
	done
	insmod "$ko/mlx5sp.ko" "$@"
	insmod "$ko/sim/mlx5sp_sim.ko"
}

unload() {
	rmmod mlx5sp_sim
	rmmod mlx5sp
}

# add NAME [params...]: create a model device and bring the driver up on it.
add() { echo "$*" > "$simfs/add"; }
del() { echo "$1" > "$simfs/del"; }

# stat NAME KEY: one value from the device's stats file.
stat() {
	awk -v k="$2" '$1 == k || $1 == k":" { print $2 }' "$simfs/$1/stats"
}

# Marks the kernel log so a test can look at what it caused only.
mark() { echo "mlx5sp-test: $1" > /dev/kmsg; }
log_since() { dmesg | sed -n "/mlx5sp-test: $1\$/,\$p"; }
