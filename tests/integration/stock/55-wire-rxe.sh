#!/bin/bash
# budget: 660
# RoCEv2 interop with rxe over veth (the debug kernel runs it with
# MLX5SP_WIRE_ALL=1 only, wire.bash).
exec bash "$(dirname "$0")/../55-wire-rxe.sh"
