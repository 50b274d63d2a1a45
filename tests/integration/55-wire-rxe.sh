#!/bin/bash
# budget: 660
# RoCEv2 on the wire, against rxe: a veth pair, the model device (sp0) on
# vethA in a network namespace of its own, rxe (rxe0) on vethB in the
# initial one (rxe receives only there). ibv_ud_pingpong and
# ibv_rc_pingpong with the IPv4 GIDs, server on either side, RC messages
# larger than the path MTU (segmentation, reassembly); every run is
# checked by its exit status and its "iters in" line. tshark captures
# vethB: no malformed packet and no expert error, and every RoCE packet's
# ICRC (both sides') is recomputed here and must match. The model's wire
# counters (debugfs wire) show no bad ICRC or header received.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"

# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

# make test: 50 iterations of each; WIRE_ITERS=200 (or more) for a longer run
iters=${WIRE_ITERS:-50}

wire_debug_opt_in
wire_setup wire-rxe
wire_capture_start

for side in sp rxe; do
	wire_pingpong ibv_ud_pingpong $side -n $iters -s 1024
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 64 -m 1024
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 8192 -m 1024
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 5000 -m 1024
done

wire_counters_zero

wire_capture_check $((iters * 8))

wire_done
echo "wire-rxe: $checks checks passed"
