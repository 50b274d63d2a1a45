#!/bin/bash
# budget: 120
# The stock Debian kernel: modules built against linux-headers-6.12 load, a
# model device comes up and goes away cleanly.
. "$(dirname "$0")/../lib.bash"

load
mark stock
add st0
log_since stock | grep -q "st0: up: fw" || die "st0 did not come up"
log_since stock | grep "st0: \(up\|caps\)"
del st0
log_since stock | grep -q "st0: down" || die "st0 not torn down"
unload
