#!/bin/bash
# rping and perftest between the model and rxe over veth (the debug
# kernel runs it with MLX5SP_WIRE_ALL=1 only, wire.bash).
exec bash "$(dirname "$0")/../57-wire-perf.sh"
