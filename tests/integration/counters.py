#!/usr/bin/python3
# The workload of 46-counters.sh (run with Debian's /usr/bin/python3, which
# has pyverbs): two RC QPs of one device connected to each other, a known
# number of RDMA WRITEs, READs and atomics, then a remote access error and
# a local length error, each followed by the exact counts in
# `rdma statistic qp` (the QPs' auto-mode counter), in `rdma statistic show
# link` (the port, which includes the bound counters) and, at the end,
# after the QPs are gone (ib_core keeps their counts in the port's
# history). `rdma resource show qp|cq|mr -dd` lists the objects with the
# driver's fields. Prints "ok ..." per check, exits 1 at the first failure.
#
# usage: counters.py DEV GID_INDEX
import json
import subprocess
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

DEV, GID = sys.argv[1], int(sys.argv[2])
N_WRITE, N_READ, N_ATOMIC = 25, 15, 5
checks = 0


def ok(msg):
    global checks
    checks += 1
    print(f'ok   {msg}', flush=True)


def die(msg):
    print(f'FAIL: {msg}', flush=True)
    sys.exit(1)


def rdma(*args):
    p = subprocess.run(['rdma', '-j'] + list(args), capture_output=True,
                       text=True)
    if p.returncode:
        die(f'rdma {" ".join(args)}: {p.stderr.strip()}')
    return json.loads(p.stdout) if p.stdout.strip() else []


def link_stats():
    ent = rdma('statistic', 'show', 'link', f'{DEV}/1')
    if len(ent) != 1:
        die(f'rdma statistic show link: {ent}')
    return ent[0]


def qp_counter(qpns):
    """The counter of `rdma statistic qp show` the QPs are bound to."""
    for c in rdma('statistic', 'qp', 'show', 'link', f'{DEV}/1'):
        if all(q in lqpns(c) for q in qpns):
            return c
    return None


def lqpns(obj):
    """Every QP number under an "lqpn" key, however the tool nests it."""
    if isinstance(obj, list):
        return [q for o in obj for q in lqpns(o)]
    if not isinstance(obj, dict):
        return []
    found = []
    for k, v in obj.items():
        if k == 'lqpn' and isinstance(v, int):
            found.append(v)
        elif k == 'lqpn' and isinstance(v, list):
            found += [q for q in v if isinstance(q, int)] + lqpns(v)
        else:
            found += lqpns(v)
    return found


def expect(what, before, after, deltas):
    for k, v in before.items():
        if not isinstance(v, int) or k in NOT_COUNTERS:
            continue
        want = v + deltas.get(k, 0)
        if after.get(k) != want:
            die(f'{what}: {k} is {after.get(k)}, expected {want} '
                f'({v} + {deltas.get(k, 0)})')
    moved = ', '.join(f'{k} +{d}' for k, d in deltas.items() if d)
    ok(f'{what}: {moved or "nothing"} moved, every other counter stayed')


ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)

ctx = Context(name=DEV)
pd = PD(ctx)
cqs = [CQ(ctx, 64), CQ(ctx, 64)]
mrs = [MR(pd, 4096, ACCESS), MR(pd, 4096, ACCESS)]
cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1, max_recv_sge=1)
NOT_COUNTERS = ('ifindex', 'port', 'cntn', 'pid')
zero = {k: 0 for k, v in link_stats().items()
        if isinstance(v, int) and k not in NOT_COUNTERS}
port0 = link_stats()
qps = [QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cqs[i], rcq=cqs[i],
                         cap=cap)) for i in range(2)]
qpns = [q.qp_num for q in qps]


def connect():
    gid = ctx.query_gid(1, GID)
    for i in range(2):
        attr = QPAttr(port_num=1)
        attr.qp_access_flags = ACCESS
        attr.path_mtu = e.IBV_MTU_1024
        attr.max_dest_rd_atomic = 4
        attr.max_rd_atomic = 4
        attr.min_rnr_timer = 1
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.dest_qp_num = qpns[1 - i]
        attr.rq_psn = 0
        attr.sq_psn = 0
        attr.ah_attr = AHAttr(port_num=1, is_global=1,
                              gr=GlobalRoute(dgid=gid, sgid_index=GID))
        qps[i].to_rts(attr)


def poll(i, n):
    wcs, end = [], time.time() + 30
    while len(wcs) < n:
        npolled, got = cqs[i].poll(n - len(wcs))
        wcs += got[:npolled]
        if time.time() > end:
            die(f'QP {qpns[i]}: {len(wcs)} of {n} completions')
    return wcs


def post(i, op, wr_id, length=64, rkey=None, atomic=False):
    wr = SendWR(wr_id=wr_id, opcode=op, num_sge=1,
                sg=[SGE(mrs[i].buf, length, mrs[i].lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    peer = mrs[1 - i]
    if atomic:
        wr.set_wr_atomic(rkey=peer.rkey if rkey is None else rkey,
                         addr=peer.buf, compare_add=1, swap=0)
    elif op != e.IBV_WR_SEND:
        wr.set_wr_rdma(peer.rkey if rkey is None else rkey, peer.buf)
    qps[i].post_send(wr)


def recv(i, n, length=64):
    for k in range(n):
        qps[i].post_recv(RecvWR(wr_id=k, num_sge=1,
                                sg=[SGE(mrs[i].buf + 2048, length,
                                        mrs[i].lkey)]))


def good_ops():
    for k in range(N_WRITE):
        post(0, e.IBV_WR_RDMA_WRITE, k)
        poll(0, 1)
    for k in range(N_READ):
        post(0, e.IBV_WR_RDMA_READ, k)
        poll(0, 1)
    for k in range(N_ATOMIC):
        post(0, e.IBV_WR_ATOMIC_FETCH_AND_ADD, k, length=8, atomic=True)
        poll(0, 1)


WC = {e.IBV_WC_REM_ACCESS_ERR: 'REM_ACCESS_ERR',
      e.IBV_WC_WR_FLUSH_ERR: 'WR_FLUSH_ERR',
      e.IBV_WC_REM_INV_REQ_ERR: 'REM_INV_REQ_ERR',
      e.IBV_WC_LOC_LEN_ERR: 'LOC_LEN_ERR'}


def statuses(wcs):
    return sorted(WC.get(w.status, str(w.status)) for w in wcs)


connect()
cnt = qp_counter(qpns)
if not cnt:
    die(f'QPs {qpns} bound to no counter: '
        f'{rdma("statistic", "qp", "show", "link", f"{DEV}/1")}')
ok(f'auto mode bound QPs {qpns} to counter {cnt["cntn"]}')
cnt0 = {k: v for k, v in cnt.items() if k in zero}
expect('the new QP counter', zero, cnt0, {})

# --- the driver's fields (drv_*) in rdma resource show
res = {q['lqpn']: q for q in rdma('resource', 'show', 'qp', 'link', DEV,
                                    '-dd')}
for q in qpns:
    r = res.get(q)
    if not r:
        die(f'rdma resource show qp does not list QP {q}: {res}')
    if r.get('drv_hw_state') != 'RTS' or 'drv_hw_sq_wqebb_counter' not in r:
        die(f'QP {q}: no driver details: {r}')
    if r.get('drv_counter_set_id') in (None, 0):
        die(f'QP {q}: counter_set_id {r.get("drv_counter_set_id")}')
ok('rdma resource show qp -dd: both QPs, hw_state RTS, their Q counter set')
rcq = [c for c in rdma('resource', 'show', 'cq', 'dev', DEV, '-dd')
       if 'drv_hw_cqn' in c and c.get('comm', '').startswith('python')]
if len(rcq) != 2 or any(c.get('drv_cq_status') != 'ok' for c in rcq):
    die(f'rdma resource show cq -dd: {rcq}')
ok('rdma resource show cq -dd: both CQs with hw_cqn, eqn, cq_status ok')
rmr = [m for m in rdma('resource', 'show', 'mr', 'dev', DEV, '-dd')
       if m.get('comm', '').startswith('python')]
if len(rmr) != 2 or any(m.get('drv_access_mode') != 'MTT' or 'drv_mkey' not in m
                        for m in rmr):
    die(f'rdma resource show mr -dd: {rmr}')
ok('rdma resource show mr -dd: both MRs, MTT keys, their mkey')
for q in qpns:
    raw = subprocess.run(['rdma', '-j', '-r', 'resource', 'show', 'qp',
                          'link', f'{DEV}/1', 'lqpn', str(q)],
                         capture_output=True, text=True)
    if raw.returncode:
        die(f'rdma -r resource show qp: {raw.stderr}')
    rq = json.loads(raw.stdout)
    # status 0, syndrome, ..., the QPC from byte 0x18: its state RTS (3)
    data = rq[0].get('data', []) if len(rq) == 1 else []
    if len(data) < 0x40 or data[0] != 0 or data[0x18] >> 4 != 3:
        die(f'rdma -r resource show qp lqpn {q}: {raw.stdout[:400]}')
ok('rdma -r resource show qp: the QUERY_QP output of both QPs')

# --- good traffic: rx requests at the responder
good_ops()
cnt1 = {k: v for k, v in qp_counter(qpns).items() if k in zero}
expect('QP counter after the good traffic', cnt0, cnt1,
       {'rx_write_requests': N_WRITE, 'rx_read_requests': N_READ,
        'rx_atomic_requests': N_ATOMIC})
port1 = link_stats()
expect('port after the good traffic', port0, port1,
       {'rx_write_requests': N_WRITE, 'rx_read_requests': N_READ,
        'rx_atomic_requests': N_ATOMIC})

# --- a WRITE through a bad rkey: NAK, both QPs to ERR, the rest flushed
recv(1, 3)
post(0, e.IBV_WR_RDMA_WRITE, 100, rkey=mrs[1].rkey ^ 0x5500)
post(0, e.IBV_WR_RDMA_WRITE, 101)
post(0, e.IBV_WR_RDMA_WRITE, 102)
s0, s1 = statuses(poll(0, 3)), statuses(poll(1, 3))
if s0 != ['REM_ACCESS_ERR', 'WR_FLUSH_ERR', 'WR_FLUSH_ERR'] or \
   s1 != ['WR_FLUSH_ERR'] * 3:
    die(f'bad rkey: completions {s0} / {s1}')
ok('a WRITE through a bad rkey: REM_ACCESS_ERR, 2 sends and 3 receives '
   'flushed')
# the refused WRITE was received all the same
err = {'rx_write_requests': 1, 'req_cqe_error': 1,
       'req_remote_access_errors': 1,
       'resp_remote_access_errors': 1, 'req_cqe_flush_error': 2,
       'resp_cqe_flush_error': 3}
cnt2 = {k: v for k, v in qp_counter(qpns).items() if k in zero}
expect('QP counter after the bad rkey', cnt1, cnt2, err)
port2 = link_stats()
expect('port after the bad rkey', port1, port2, err)
res = {q['lqpn']: q for q in rdma('resource', 'show', 'qp', 'link', DEV,
                                    '-dd')}
if any(res[q].get('drv_hw_state') != 'ERR' for q in qpns):
    die(f'after the NAK: {[res[q] for q in qpns]}')
ok('rdma resource show qp -dd: both QPs in ERR as the device has them')

# --- a SEND longer than the receive: local length error at the responder
for q in qps:
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_RESET
    q.modify(attr, e.IBV_QP_STATE)
connect()
recv(1, 1, length=16)
post(0, e.IBV_WR_SEND, 200, length=64)
s0, s1 = statuses(poll(0, 1)), statuses(poll(1, 1))
if s0 != ['REM_INV_REQ_ERR'] or s1 != ['LOC_LEN_ERR']:
    die(f'long SEND: completions {s0} / {s1}')
ok('a SEND longer than the receive: LOC_LEN_ERR / REM_INV_REQ_ERR')
err = {'resp_cqe_error': 1, 'resp_local_length_error': 1,
       'req_cqe_error': 1, 'req_remote_invalid_request': 1}
cnt3 = {k: v for k, v in qp_counter(qpns).items() if k in zero}
expect('QP counter after the long SEND (QPs reset, still bound)', cnt2,
       cnt3, err)
port3 = link_stats()
expect('port after the long SEND', port2, port3, err)

# --- the QPs go: their counter with them, its counts stay with the port
cntn = cnt['cntn']
for q in qps:
    q.close()
if any(c['cntn'] == cntn for c in rdma('statistic', 'qp', 'show', 'link',
                                         f'{DEV}/1')):
    die(f'counter {cntn} outlived its QPs')
ok(f'counter {cntn} gone with its QPs')
expect('port after the QPs are gone', port3, link_stats(), {})
print(f'counters.py: {checks} checks passed', flush=True)
