#!/bin/bash
# RC on the wire against rxe under netem loss, reordering, duplication,
# and retry exhaustion (stock kernel only: the debug kernel has no veth
# or netem).
exec bash "$(dirname "$0")/../56-wire-loss.sh"
