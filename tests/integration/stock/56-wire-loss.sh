#!/bin/bash
# budget: 1800
# RC on the wire against rxe under netem loss, reordering, duplication,
# and retry exhaustion (also on the debug kernel).
exec bash "$(dirname "$0")/../56-wire-loss.sh"
