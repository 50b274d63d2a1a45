#!/bin/bash
# budget: 180
# RoCE over a VLAN against rxe over veth (the debug kernel runs it with
# MLX5SP_WIRE_ALL=1 only, wire.bash).
exec bash "$(dirname "$0")/../54-wire-vlan.sh"
