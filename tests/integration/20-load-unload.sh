#!/bin/bash
# budget: 120
# Load, bring up two devices, remove them, unload: LOAD_CYCLES times over
# (3; a cycle takes about 15 s under the debug kernel, and 49-load removes
# devices and unloads the modules under load). Also the debug kernel's
# two-device bring-up (the stock kernel runs stock/11-two-devices.sh).
. "$(dirname "$0")/lib.bash"

cycles=${LOAD_CYCLES:-3}
mark load-unload
for _ in $(seq 1 "$cycles"); do
	load
	add "lu0"
	add "lu1"
	del "lu0"
	del "lu1"
	unload
done
n=$(log_since load-unload | grep -c "lu[01]: down" || true)
[ "$n" = $((2 * cycles)) ] || die "expected $((2 * cycles)) teardowns, saw $n"
if log_since load-unload | grep -q "leak\|did not return"; then die "pages leaked"; fi
echo "$cycles load/unload cycles, $((2 * cycles)) devices up and down"
