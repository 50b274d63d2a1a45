#!/bin/bash
# rping and perftest between the model and rxe over veth (stock kernel
# only: the debug kernel has no veth).
exec bash "$(dirname "$0")/../57-wire-perf.sh"
