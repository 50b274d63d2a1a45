#!/bin/bash
# RoCEv2 on the wire, against rxe: a veth pair, the model device (sp0) on
# vethA in a network namespace of its own, rxe (rxe0) on vethB in the
# initial one (rxe receives only there). ibv_ud_pingpong and
# ibv_rc_pingpong with the IPv4 GIDs, server on either side, RC messages
# larger than the path MTU (segmentation, reassembly); every run is
# checked by its exit status and its "iters in" line. tshark captures
# vethB: no malformed packet and no expert error, and every RoCE packet's
# ICRC (both sides') is recomputed here and must match. The model's wire
# counters (debugfs wire) show no bad ICRC or header received.
# shellcheck source=tests/integration/lib.bash
. "$(dirname "$(readlink -f "$0")")/lib.bash"

# shellcheck source=tests/integration/wire.bash
. "$(dirname "$(readlink -f "$0")")/wire.bash"

cap=$work/veth.pcap
# make test: 50 iterations of each; WIRE_ITERS=200 (or more) for a longer run
iters=${WIRE_ITERS:-50}

wire_cleanup_hook() {
	[ -n "${tpid:-}" ] && kill "$tpid" 2>/dev/null
}
wire_setup wire-rxe

# dumpcap, not tshark -i: that starts every extcap helper first (minutes
# under TCG)
dumpcap -i vethB -P -w "$cap" -q 2>"$work/dumpcap.log" &
tpid=$!
for i in $(seq 150); do
	[ -s "$cap" ] && break
	sleep 0.2
done
[ -s "$cap" ] || die "dumpcap: $(cat "$work/dumpcap.log")"

for side in sp rxe; do
	wire_pingpong ibv_ud_pingpong $side -n $iters -s 1024
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 64 -m 1024
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 8192 -m 1024
	wire_pingpong ibv_rc_pingpong $side -n $iters -s 5000 -m 1024
done

sleep 1
kill "$tpid"
wait "$tpid" 2>/dev/null || true
tpid=
cat $wire
for c in rx_bad_icrc rx_bad_hdr; do
	grep -q "^$c 0$" $wire || die "sp0 wire: $c not 0"
done
ok "sp0 wire counters: $(grep -E '^(tx_pkts|rx_pkts|retransmits|dup_reqs) ' $wire | tr '\n' ' ')"

bad=$(tshark -r "$cap" -Y '_ws.malformed || _ws.expert.severity >= error' 2>/dev/null | head -n 20)
[ -z "$bad" ] || { echo "$bad"; die "tshark: malformed packets or errors"; }
n=$(tshark -r "$cap" -Y 'infiniband' 2>/dev/null | wc -l)
[ "$n" -gt $((iters * 8)) ] || die "tshark: only $n InfiniBand packets"
ok "tshark: $n RoCEv2 packets, none malformed, no expert error"

# the ICRC of every RoCEv2 packet, recomputed (IBTA A17.3.3: CRC32 over
# 8 bytes of ones, IPv4 header with TOS/TTL/checksum as ones, UDP with its
# checksum as ones, BTH with resv8a as ones, the rest; little-endian)
/usr/bin/python3 - "$cap" "$ipa" <<'PY' || die "ICRC check failed"
import struct, sys, zlib, socket
f = open(sys.argv[1], 'rb').read()
mine = socket.inet_aton(sys.argv[2])
magic, = struct.unpack('<I', f[:4])
assert magic == 0xa1b2c3d4, hex(magic)
off, n, bad, byside = 24, 0, 0, {True: 0, False: 0}
while off < len(f):
    _, _, incl, _ = struct.unpack('<IIII', f[off:off + 16])
    pkt = f[off + 16:off + 16 + incl]
    off += 16 + incl
    eth = 14
    if pkt[12:14] == b'\x81\x00':
        eth = 18
    if pkt[eth - 2:eth] != b'\x08\x00':
        continue
    ip = pkt[eth:]
    if ip[9] != 17 or (ip[0] & 0xf) != 5:
        continue
    tot = struct.unpack('>H', ip[2:4])[0]
    if struct.unpack('>H', ip[22:24])[0] != 4791:
        continue
    ip = bytearray(ip[:tot])
    m = bytearray(ip[:tot - 4])
    m[1] = 0xff; m[8] = 0xff; m[10:12] = b'\xff\xff'
    m[26:28] = b'\xff\xff'
    m[28 + 4] = 0xff
    want = zlib.crc32(b'\xff' * 8 + bytes(m)) & 0xffffffff
    got, = struct.unpack('<I', ip[tot - 4:tot])
    n += 1
    byside[bytes(ip[12:16]) == mine] += 1
    if want != got:
        bad += 1
        if bad < 5:
            print('bad ICRC: src %s op 0x%02x got %08x want %08x' %
                  (socket.inet_ntoa(ip[12:16]), ip[28], got, want))
print('ICRC: %d packets (%d from the model, %d from rxe), %d bad' %
      (n, byside[True], byside[False], bad))
sys.exit(1 if bad or not byside[True] or not byside[False] else 0)
PY
ok "ICRC valid on every RoCEv2 packet of the capture"

wire_done
echo "wire-rxe: $checks checks passed"
