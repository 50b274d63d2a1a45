#!/bin/bash
# budget: 120
# The signature engine's fault: sig_inject takes "mkey=0x..|any nth=N
# kind=guard|apptag|reftag [count=C]" or "off", refuses anything else, and
# reads back what is armed. Also shows that the model loads with its CRC dependencies
# (crc_t10dif, libcrc32c) on this kernel.
. "$(dirname "$0")/lib.bash"

load
add sg0
f=$simfs/sg0/sig_inject
[ -e "$f" ] || die "no sig_inject"
grep -q "kind=off" "$f" || die "armed at creation: $(cat "$f")"

echo "mkey=0x1234 nth=3 kind=apptag" > "$f"
grep -q "mkey=0x1234 nth=3 kind=apptag count=1 fired=0" "$f" || die "not armed: $(cat "$f")"
echo "mkey=any nth=2 kind=guard count=7" > "$f"
grep -q "mkey=any nth=2 kind=guard count=7 fired=0" "$f" || die "any not armed: $(cat "$f")"
echo "mkey=0xabcd00 nth=1 kind=reftag" > "$f"
grep -q "mkey=0xabcd00 nth=1 kind=reftag" "$f" || die "not re-armed: $(cat "$f")"
for bad in "mkey=0x1 nth=0 kind=guard" "mkey=0x1 nth=1 kind=crc" \
	   "nth=1 kind=guard" "guard" "mkey=any nth=1 kind=guard count=0" \
	   "mkey=0x1 nth=1 kind=guard count=x" "mkey=any nth=0 kind=reftag"; do
	if echo "$bad" > "$f" 2>/dev/null; then die "accepted: $bad"; fi
done
grep -q "kind=reftag" "$f" || die "a refused write changed the setting"
echo off > "$f"
grep -q "kind=off" "$f" || die "not disarmed: $(cat "$f")"

del sg0
unload
lsmod | grep -q '^mlx5sp' && die "modules left loaded"
echo "sig_inject ok"
