#!/usr/bin/python3
# UC on the wire between two devices of this machine (58-wire-v6-uc.sh:
# the model and rxe on a veth pair; run with Debian's /usr/bin/python3,
# which has pyverbs). One process opens both devices and, for each
# direction and each kind of message, connects a new UC QP pair by the
# GIDs given (IPv4 or IPv6) with a 1024-byte path MTU and sends COUNT
# messages of SIZE bytes (SIZE > 1024: first/middle/last packets; each
# packet of message i carries i, so a message made of two messages'
# packets is seen):
#   send       SENDs into COUNT receive buffers
#   write-imm  RDMA WRITEs with immediate (the immediate: the index) into
#              the peer's buffer, one slot per message
#   write      RDMA WRITEs, then a SEND (in order behind them) to say done
# Lossless (the default): every message arrives, in order, with its
# data. With "lossy" (the script puts netem loss on the wire): fewer than
# COUNT and more than none arrive; the ones that do are whole and in
# increasing order (a message that lost a packet is dropped whole, the
# QP goes on with the next FIRST/ONLY); write is skipped (nothing tells
# which arrived). The senders complete every WQE either way: UC has no
# ACKs. Prints "ok ..." per check, exits 1 at the first failure.
#
# usage: wire_uc.py DEV_A GID_A DEV_B GID_B COUNT SIZE [lossy]
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

COUNT, SIZE = int(sys.argv[5]), int(sys.argv[6])
LOSSY = len(sys.argv) > 7 and sys.argv[7] == 'lossy'
ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
IDLE = 2.0          # lossy: no completion for this long, all is in


def ok(msg):
    print(f'ok   {msg}', flush=True)


def die(msg):
    print(f'FAIL: {msg}', flush=True)
    sys.exit(1)


def msg(i):
    # a5 5a first: nothing tshark's InfiniBand dissector takes for an
    # EtherType (a payload starting 08 00 it dissects as IPv4)
    return (b'\xa5\x5a' + struct.pack('<H', i) +
            bytes([i & 0xff]) * 4) * (SIZE // 8)


class End:
    def __init__(self, name, gid_index):
        self.name = name
        self.gid_index = gid_index
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        # receives, WRITE target; then room for write's closing SEND
        self.mr = MR(self.pd, COUNT * SIZE + 64, ACCESS)
        self.smr = MR(self.pd, COUNT * SIZE, ACCESS)    # what it sends
        for i in range(COUNT):
            self.smr.write(msg(i), SIZE, i * SIZE)
        self.gid = self.ctx.query_gid(1, gid_index)
        self.cq = self.qp = None

    def new_qp(self):
        self.cq = CQ(self.ctx, 2 * COUNT + 8)
        cap = QPCap(max_send_wr=COUNT + 1, max_recv_wr=COUNT + 1,
                    max_send_sge=1, max_recv_sge=1)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_UC,
                                         scq=self.cq, rcq=self.cq, cap=cap))
        self.mr.write(bytes(COUNT * SIZE), COUNT * SIZE, 0)

    def connect(self, peer):
        attr = QPAttr(port_num=1)
        attr.qp_access_flags = ACCESS
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = peer.qp.qp_num
        attr.rq_psn = 0x1000
        attr.sq_psn = 0x1000
        attr.ah_attr = AHAttr(port_num=1, is_global=1,
                              gr=GlobalRoute(dgid=peer.gid,
                                             sgid_index=self.gid_index,
                                             hop_limit=64))
        self.qp.to_rts(attr)

    def recv(self, i, closing=False):
        if closing:
            sg = SGE(self.mr.buf + COUNT * SIZE, 64, self.mr.lkey)
        else:
            sg = SGE(self.mr.buf + i * SIZE, SIZE, self.mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[sg]))

    def poll(self, n, lossy):
        """n completions (lossy: until IDLE s pass without one)"""
        wcs, last = [], time.time()
        while len(wcs) < n:
            got, wc = self.cq.poll(n - len(wcs))
            if got:
                wcs += wc[:got]
                last = time.time()
                continue
            if time.time() - last > (IDLE if lossy else 30):
                if lossy:
                    break
                die(f'{self.name}: {len(wcs)} of {n} completions')
            time.sleep(0.001)
        for w in wcs:
            if w.status != e.IBV_WC_SUCCESS:
                die(f'{self.name}: completion {w.wr_id} status {w.status}')
        return wcs


def rxe_write_stuck(kind, r):
    """
    rxe as the UC responder of WRITEs under loss: after a WRITE that lost
    a middle or last packet, every later WRITE FIRST fails its opcode
    sequence check (rxe_resp.c: the class D1 error resets resp.opcode
    only when a receive WQE is in use, which a WRITE has not), so none
    may arrive; what does must still be whole and in order.
    """
    return kind == 'write-imm' and r.name.startswith('rxe')


def run(kind, s, r):
    s.new_qp()
    r.new_qp()
    s.connect(r)
    r.connect(s)
    for i in range(COUNT if kind != 'write' else 1):
        r.recv(i, closing=kind == 'write')
    for i in range(COUNT):
        sg = [SGE(s.smr.buf + i * SIZE, SIZE, s.smr.lkey)]
        if kind == 'send':
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1, sg=sg,
                        send_flags=e.IBV_SEND_SIGNALED)
        else:
            op = (e.IBV_WR_RDMA_WRITE_WITH_IMM if kind == 'write-imm'
                  else e.IBV_WR_RDMA_WRITE)
            wr = SendWR(wr_id=i, opcode=op, num_sge=1, sg=sg, imm_data=i,
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(r.mr.rkey, r.mr.buf + i * SIZE)
        s.qp.post_send(wr)
    if kind == 'write':
        s.qp.post_send(SendWR(wr_id=COUNT, opcode=e.IBV_WR_SEND, num_sge=1,
                              sg=[SGE(s.smr.buf, 8, s.smr.lkey)],
                              send_flags=e.IBV_SEND_SIGNALED))
    what = f'UC {kind} {s.name} -> {r.name}'
    sent = s.poll(COUNT + (kind == 'write'), False)
    got = r.poll(1 if kind == 'write' else COUNT, LOSSY)
    if kind == 'write':
        for i in range(COUNT):
            if r.mr.read(SIZE, i * SIZE) != msg(i):
                die(f'{what}: slot {i} is not message {i}')
        ok(f'{what}: {COUNT} WRITEs of {SIZE} bytes, then a SEND: '
           'every slot holds its message')
        return
    prev = -1
    for k, w in enumerate(got):
        if w.wr_id != k:
            die(f'{what}: completion {k} of receive {w.wr_id}')
        if kind == 'send':
            if w.opcode != e.IBV_WC_RECV or w.byte_len != SIZE:
                die(f'{what}: opcode {w.opcode} byte_len {w.byte_len}')
            data = r.mr.read(SIZE, k * SIZE)
        else:
            if w.opcode != e.IBV_WC_RECV_RDMA_WITH_IMM:
                die(f'{what}: opcode {w.opcode}')
            if w.imm_data >= COUNT:
                die(f'{what}: immediate {w.imm_data}')
            data = r.mr.read(SIZE, w.imm_data * SIZE)
        m, = struct.unpack('<H', data[2:4])
        if m >= COUNT or data != msg(m) or m <= prev:
            die(f'{what}: receive {k} holds message {m} (after {prev}), '
                'or not one message whole')
        if kind == 'write-imm' and m != w.imm_data:
            die(f'{what}: immediate {w.imm_data} for message {m}')
        prev = m
    n = len(got)
    if LOSSY and rxe_write_stuck(kind, r) and n < COUNT:
        ok(f'{what}: {len(sent)} sent (all completed), {n} arrived whole '
           'and in order (rxe stops taking UC WRITEs after one that lost a '
           'middle or last packet)')
        return
    if LOSSY and not 0 < n < COUNT:
        die(f'{what}: {n} of {COUNT} arrived under loss')
    if not LOSSY and n != COUNT:
        die(f'{what}: {n} of {COUNT} arrived')
    ok(f'{what}: {len(sent)} sent (all completed), {n} arrived whole and '
       'in order')


a = End(sys.argv[1], int(sys.argv[2]))
b = End(sys.argv[3], int(sys.argv[4]))
for kind in ('send', 'write-imm') + (() if LOSSY else ('write',)):
    run(kind, a, b)
    run(kind, b, a)
