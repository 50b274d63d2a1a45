#!/bin/bash
# make demo cannot rot: its guest script (scripts/demo-guest: rdma link
# add, signature pipelining through libmlx5sp's read target, NVMe-oF with
# T10-PI) in the stock VM. Passes when the demo exits 0, its closing line
# says every step held, and as many steps were shown and held as it says.
. "$(dirname "$0")/../lib.bash"

rc=0
out=$(bash "$MLX5SP_TOP/scripts/demo-guest" 2>&1) || rc=$?
echo "$out"
last=${out##*$'\n'}
[ "$rc" = 0 ] || die "scripts/demo-guest: status $rc, closing line: $last"
[[ $last =~ ^demo:\ all\ ([0-9]+)\ steps\ held ]] || die "the demo's closing line: $last"
n=${BASH_REMATCH[1]}
[ "$n" -ge 3 ] || die "the demo has $n steps, 3 expected"
shown=$(grep -c "^\[[0-9]*/$n\] " <<<"$out" || true)
held=$(grep -c "^  held (" <<<"$out" || true)
[ "$shown" = "$n" ] || die "the demo says $n steps held, $shown shown"
[ "$held" = "$n" ] || die "the demo says $n steps held, $held say held"
echo "ok   make demo: all $n steps shown and held"
echo "1 checks passed"
