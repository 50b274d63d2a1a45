# Shared helpers for the in-guest integration tests (sourced).
# Environment from tests/vm/run: MLX5SP_KO_DIR, MLX5SP_RESULTS, MLX5SP_KERNEL.
set -euo pipefail

ko=$MLX5SP_KO_DIR
simfs=/sys/kernel/debug/mlx5sp_sim

die() { echo "FAIL: $*" >&2; dmesg | tail -n 40 >&2; exit 1; }

# ok MSG: a check passed, counted, with the script's time so far (where
# its minutes go on a slow host)
checks=0
ok() { checks=$((checks + 1)); echo "ok   [${SECONDS}s] $*"; }

# die_test MSG: die, and from a subshell end the test's own shell too:
# a command substitution's exit status is lost in [ "$(f)" -gt 0 ],
# "ok ... $(f)" or eval, which would go on with an empty string
# (SIGTERM: the test's EXIT trap still runs)
die_test() {
	if [ "$BASHPID" != "$$" ]; then
		(die "$@") || true
		kill -TERM "$$"
		exit 1
	fi
	die "$@"
}

# link_stat DEV NAME [NETNS]: counter NAME of DEV's port 1 in
# `rdma -j statistic show link` (run in network namespace NETNS when
# given); fails the test when rdma fails or has no such counter
link_stat() {
	local x=() out v
	[ -n "${3:-}" ] && x=(ip netns exec "$3")
	out=$("${x[@]}" rdma -j statistic show link "$1/1") ||
		die_test "link_stat: rdma statistic show link $1/1${3:+ (netns $3)} failed"
	v=$(/usr/bin/python3 -c '
import json, sys
try:
    e = json.loads(sys.stdin.read())[0]
except (ValueError, LookupError, TypeError) as x:
    sys.exit("not a list of counters: %r" % x)
if sys.argv[1] not in e:
    sys.exit("counters: " + " ".join(sorted(e)))
print(e[sys.argv[1]])' "$2" <<<"$out") ||
		die_test "link_stat: $1/1${3:+ (netns $3)}: no counter $2"
	[[ $v =~ ^[0-9]+$ ]] || die_test "link_stat: $1/1 $2 is \"$v\", not a count"
	echo "$v"
}

# scaled SECS: a wall-clock bound of SECS on a quiet host, stretched by
# this guest's speed factor (MLX5SP_SPEED, hundredths, from the runner: 100
# to 500), as the runner stretches every script's budget
scaled() { echo $(($1 * ${MLX5SP_SPEED:-100} / 100)); }

load() {
	local d
	# insmod doesn't resolve dependencies; in-tree ones come by modprobe.
	for d in $(modinfo -F depends "$ko/mlx5sp.ko" "$ko/sim/mlx5sp_sim.ko" | tr , ' '); do
		case $d in mlx5sp|mlx5sp_sim) ;; *) modprobe "$d" ;; esac
	done
	insmod "$ko/mlx5sp.ko" "$@"
	insmod "$ko/sim/mlx5sp_sim.ko"
}

# mod NAME: load module NAME, or find it built into this kernel (the
# debug kernel has no /lib/modules tree for modprobe to read: its build
# tree's modules.builtin says). False if neither.
mod() {
	local kdir
	modprobe "$1" 2>/dev/null && return 0
	[ "${MLX5SP_KERNEL:-}" = debug ] || return 1
	kdir=$("$MLX5SP_TOP/tests/kernel/build" 2>/dev/null) || return 1
	grep -q "/$1\.ko\$" "$kdir/modules.builtin"
}

unload() {
	rmmod mlx5sp_sim
	rmmod mlx5sp
}

# wait_gid DEV [INDEX]: wait (10 s at most) for the RoCE GID of the
# link-local address at INDEX (1: v2, 0: v1), which comes after DAD.
wait_gid() {
	local f=/sys/class/infiniband/$1/ports/1/gids/${2:-1} i
	for i in $(seq 50); do
		grep -q '^fe80' "$f" 2>/dev/null && return 0
		sleep 0.2
	done
	die "$1: no link-local GID in $f"
}

# read_target_prog: libmlx5sp's example target, from `make userspace`, or
# built here into /var/tmp when that is missing or older than its sources.
read_target_prog() {
	local top=$MLX5SP_TOP rt=$MLX5SP_TOP/.build/userspace/mlx5sp-read-target
	if [ ! -x "$rt" ] || [ "$top/userspace/examples/read_target.c" -nt "$rt" ] ||
	   [ "$top/userspace/lib/pipeline.c" -nt "$rt" ]; then
		rt=/var/tmp/mlx5sp-read-target
		gcc -O2 -Wall -I"$top/userspace/include" -o "$rt" \
			"$top/userspace/examples/read_target.c" \
			"$top/userspace/lib/pipeline.c" -lmlx5 -libverbs >&2 ||
			die "cannot build mlx5sp-read-target"
	fi
	echo "$rt"
}

# test_prog NAME [GCC ARGS...]: the program of tests/userspace/NAME.c, from
# `make userprogs` (.build/tests/NAME); without it, or when it is older than
# its source, built here into /var/tmp (GCC ARGS after the libraries).
test_prog() {
	local name=$1 prog=$MLX5SP_TOP/.build/tests/$1
	local src=$MLX5SP_TOP/tests/userspace/$1.c ifc
	shift
	if [ ! -x "$prog" ] || [ "$src" -nt "$prog" ]; then
		prog=/var/tmp/$name
		# DEVX programs take the PRM layouts from the kernel's mlx5_ifc.h
		ifc=$(ls -d /usr/src/linux-headers-6.12*-common 2>/dev/null | sort -V | tail -n1)
		gcc -O2 -Wall -DMLX5_IFC="\"$ifc/include/linux/mlx5/mlx5_ifc.h\"" \
			-o "$prog" "$src" -lmlx5 -libverbs "$@" >&2 || die "cannot build $src"
	fi
	echo "$prog"
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
