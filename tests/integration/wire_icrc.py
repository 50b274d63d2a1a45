#!/usr/bin/python3
# The ICRC of every RoCE packet of a capture (pcap), recomputed, RoCEv2
# over IPv4 and IPv6 and RoCE v1 (IBTA annex A17.3.3 and A16: CRC32 over
# 8 bytes of ones, the IP header or GRH with the fields routers change as
# ones (IPv4: TOS, TTL, checksum; IPv6 and the GRH: traffic class, flow
# label, hop limit), RoCEv2's UDP with its checksum as ones, the BTH with
# resv8a as ones, then the rest up to the ICRC; stored little-endian).
#
# usage: wire_icrc.py PCAP MODEL-ADDR... [--want KEY...]
# MODEL-ADDRs (IPv4 or IPv6) tell the model's packets from the peer's (a
# RoCE v1 GID that is IPv4-mapped counts as its IPv4 address).
# Prints the counts by family, side and transport; exits 1 on a bad ICRC,
# or when a KEY of the form FAMILY-SIDE[-TRANSPORT] (v4|v6|v1, model|peer,
# rc|uc|ud|cnp), e.g. v6-model-uc, counts no packet.
import ipaddress
import struct
import sys
import zlib

TR = {0x00: 'rc', 0x20: 'uc', 0x60: 'ud', 0x80: 'cnp'}
V4MAPPED = b'\x00' * 10 + b'\xff\xff'


def icrc(l3, fam):
    """the ICRC of the packet @l3 (IP header or GRH on, without its ICRC)"""
    m = bytearray(l3)
    if fam != 'v4':
        m[0] |= 0x0f            # traffic class, flow label
        m[1:4] = b'\xff\xff\xff'
        m[7] = 0xff             # hop limit
        u = 40
    else:
        m[1] = 0xff             # TOS
        m[8] = 0xff             # TTL
        m[10:12] = b'\xff\xff'  # checksum
        u = 20
    if fam != 'v1':
        m[u + 6:u + 8] = b'\xff\xff'    # UDP checksum
        u += 8
    m[u + 4] = 0xff                 # BTH resv8a
    return zlib.crc32(b'\xff' * 8 + bytes(m)) & 0xffffffff


def main():
    args = sys.argv[1:]
    want = []
    if '--want' in args:
        i = args.index('--want')
        want = args[i + 1:]
        args = args[:i]
    f = open(args[0], 'rb').read()
    mine = {ipaddress.ip_address(a).packed for a in args[1:]}
    magic, = struct.unpack('<I', f[:4])
    assert magic == 0xa1b2c3d4, hex(magic)
    off, n, bad, count = 24, 0, 0, {}
    while off + 16 <= len(f):
        _, _, incl, _ = struct.unpack('<IIII', f[off:off + 16])
        pkt = f[off + 16:off + 16 + incl]
        off += 16 + incl
        eth = 18 if pkt[12:14] == b'\x81\x00' else 14
        et = pkt[eth - 2:eth]
        ip = pkt[eth:]
        if et == b'\x08\x00':
            if len(ip) < 20 or ip[9] != 17 or (ip[0] & 0xf) != 5:
                continue
            fam, hl = 'v4', 28
            tot = struct.unpack('>H', ip[2:4])[0]
            src = ip[12:16]
        elif et in (b'\x86\xdd', b'\x89\x15'):
            # IPv6 and UDP, or RoCE v1's GRH and the BTH
            fam, nh, hl = ('v6', 17, 48) if et == b'\x86\xdd' else \
                ('v1', 0x1b, 40)
            if len(ip) < 40 or ip[6] != nh:
                continue
            tot = 40 + struct.unpack('>H', ip[4:6])[0]
            src = ip[8:24]
            if fam == 'v1' and src[:12] == V4MAPPED:
                src = src[12:]
        else:
            continue
        if fam != 'v1' and struct.unpack('>H', ip[hl - 6:hl - 4])[0] != 4791:
            continue
        ip = ip[:tot]
        want_crc = icrc(ip[:tot - 4], fam)
        got, = struct.unpack('<I', ip[tot - 4:tot])
        n += 1
        side = 'model' if src in mine else 'peer'
        tr = TR.get(ip[hl] & 0xe0, 'other')
        for k in (fam, fam + '-' + side, fam + '-' + side + '-' + tr):
            count[k] = count.get(k, 0) + 1
        if want_crc != got:
            bad += 1
            if bad < 5:
                print('bad ICRC: %s src %s op 0x%02x got %08x want %08x' %
                      (fam, ipaddress.ip_address(src), ip[hl], got,
                       want_crc))
    print('ICRC: %d packets, %d bad; %s' %
          (n, bad, ' '.join('%s=%d' % kv for kv in sorted(count.items()))))
    missing = [k for k in want if not count.get(k)]
    if missing:
        print('no packets of: ' + ' '.join(missing))
    return 1 if bad or missing or not n else 0


if __name__ == '__main__':
    sys.exit(main())
