#!/bin/bash
# RoCEv2 over IPv6, and UC, against rxe over veth (the debug kernel runs
# it with MLX5SP_WIRE_ALL=1 only, wire.bash).
exec bash "$(dirname "$0")/../58-wire-v6-uc.sh"
