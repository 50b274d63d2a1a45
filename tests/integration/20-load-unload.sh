#!/bin/bash
# Load, bring up two devices, remove them, unload: 20 times over.
. "$(dirname "$0")/lib.bash"

mark load-unload
for i in $(seq 1 20); do
	load
	add "lu0"
	add "lu1"
	del "lu0"
	del "lu1"
	unload
done
n=$(log_since load-unload | grep -c "lu[01]: down" || true)
[ "$n" = 40 ] || die "expected 40 teardowns, saw $n"
if log_since load-unload | grep -q "leak\|did not return"; then die "pages leaked"; fi
echo "20 load/unload cycles, 40 devices up and down"
