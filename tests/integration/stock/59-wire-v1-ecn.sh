#!/bin/bash
# budget: 1140
# RoCE v1 and ECN/CNP between two model devices over veth (the debug
# kernel runs it with MLX5SP_WIRE_ALL=1 only, wire.bash).
exec bash "$(dirname "$0")/../59-wire-v1-ecn.sh"
