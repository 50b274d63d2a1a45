#!/bin/bash
# Counters and resource views on the stock kernel: the same as the debug
# kernel's 46-counters.sh.
exec bash "$(dirname "$0")/../46-counters.sh"
