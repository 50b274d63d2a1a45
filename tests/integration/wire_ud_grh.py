#!/usr/bin/python3
# A UD datagram's GRH on the wire, each way between two devices of this
# machine (58-wire-v6-uc.sh: the model and rxe over IPv6; 59-wire-v1-ecn.sh:
# two model devices over RoCE v1; Debian's /usr/bin/python3, which has
# pyverbs). The sender's address handle names a flow label, a traffic
# class and a hop limit; the receiver's 40 bytes ahead of the payload (the
# IPv6 header or the IB GRH) must carry the flow label and the DSCP the
# sender gave (ECN bits are the wire's: the model marks ECT(0)), with
# IBV_WC_GRH, and the payload must be whole. rxe sends every flow label
# as 0 (rxe_net.c): from rxe the receiver must see 0. Prints "ok ..."
# per check, exits 1 at the first failure.
#
# usage: wire_ud_grh.py DEV_A GID_A DEV_B GID_B
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

QKEY = 0x11111111
SIZE = 64
GRH = 40


def ok(msg):
    print(f'ok   {msg}', flush=True)


def die(msg):
    print(f'FAIL: {msg}', flush=True)
    sys.exit(1)


class End:
    def __init__(self, name, gid_index):
        self.name = name
        self.gid_index = gid_index
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.mr = MR(self.pd, GRH + SIZE, e.IBV_ACCESS_LOCAL_WRITE)
        self.gid = self.ctx.query_gid(1, gid_index)
        self.cq = CQ(self.ctx, 8)
        cap = QPCap(max_send_wr=2, max_recv_wr=2, max_send_sge=1,
                    max_recv_sge=1)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq,
                                         rcq=self.cq, cap=cap))
        attr = QPAttr(port_num=1)
        attr.qkey = QKEY
        self.qp.to_rts(attr)

    def poll(self):
        t0 = time.time()
        while time.time() - t0 < 30:
            got, wc = self.cq.poll(1)
            if got:
                if wc[0].status != e.IBV_WC_SUCCESS:
                    die(f'{self.name}: completion status {wc[0].status}')
                return wc[0]
            time.sleep(0.001)
        die(f'{self.name}: no completion in 30 s')


def one_way(s, r, label, tclass):
    r.mr.write(bytes(GRH + SIZE), GRH + SIZE, 0)
    r.qp.post_recv(RecvWR(wr_id=1, num_sge=1,
                          sg=[SGE(r.mr.buf, GRH + SIZE, r.mr.lkey)]))
    gr = GlobalRoute(dgid=r.gid, sgid_index=s.gid_index, hop_limit=33,
                     flow_label=label, traffic_class=tclass)
    ah = AH(s.pd, attr=AHAttr(port_num=1, is_global=1, gr=gr))
    payload = bytes((0xa5 + i) & 0xff for i in range(SIZE))
    s.mr.write(payload, SIZE, GRH)
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(s.mr.buf + GRH, SIZE, s.mr.lkey)])
    wr.set_wr_ud(ah, r.qp.qp_num, QKEY)
    s.qp.post_send(wr)
    s.poll()
    wc = r.poll()
    if not wc.wc_flags & e.IBV_WC_GRH or wc.byte_len != GRH + SIZE:
        die(f'{s.name} -> {r.name}: flags {wc.wc_flags:#x}, {wc.byte_len} bytes')
    data = r.mr.read(GRH + SIZE, 0)
    if data[GRH:] != payload:
        die(f'{s.name} -> {r.name}: payload differs')
    word = int.from_bytes(data[0:4], 'big')
    version, tc, fl = word >> 28, (word >> 20) & 0xff, word & 0xfffff
    want = 0 if s.name.startswith('rxe') else label
    if version != 6 or fl != want or tc >> 2 != tclass >> 2:
        die(f'{s.name} -> {r.name}: GRH version {version}, traffic class '
            f'{tc:#x}, flow label {fl:#x}; sent class {tclass:#x}, '
            f'label {label:#x}, want label {want:#x}')
    ok(f'{s.name} -> {r.name}: GRH flow label {fl:#x}, traffic class '
       f'{tc:#x} (DSCP {tc >> 2})')


a = End(sys.argv[1], int(sys.argv[2]))
b = End(sys.argv[3], int(sys.argv[4]))
one_way(a, b, 0xabcde, 0x48)
one_way(b, a, 0x12345, 0x60)
