#!/bin/bash
# budget: 120
# The DEVX asynchronous command channel from user space
# (tests/userspace/devx_async.c): async queries of a DEVX QP and CQ read
# back with their wr_id and the synchronous output, poll and non-blocking
# reads, short reads, queries firmware refuses, the 1 MB budget, an object
# destroyed and a channel closed with queries in flight; then the device
# removed while a reader blocks and queries are in flight, and a device
# dying under the channel (answers with the driver's status). The program
# comes from `make userprogs` (.build/tests/devx_async); without it, it is
# built here into /var/tmp.
. "$(dirname "$(readlink -f "$0")")/lib.bash"

prog=$(test_prog devx_async -lpthread)

load
mark devx-async
ip link add dadummy0 type dummy
ip link set dadummy0 up
rdma link add da0 type mlx5sp netdev dadummy0 || die "rdma link add failed"

rc=0
timeout 200 "$prog" da0 || rc=$?
[ $rc = 0 ] || die "devx_async: status $rc"
rdma link delete da0 || die "rdma link delete failed"

# again, and the device goes while channels are open and busy
rdma link add da0 type mlx5sp netdev dadummy0 || die "rdma link add failed"
timeout 100 "$prog" da0 --unplug || rc=$?
[ $rc = 0 ] || die "devx_async --unplug: status $rc"

# and once more: the device dies under the channel, then goes
rdma link add da0 type mlx5sp netdev dadummy0 || die "rdma link add failed"
timeout 100 "$prog" da0 --dead "$simfs/da0" || rc=$?
rdma link delete da0 || die "rdma link delete of the dead device failed"
ip link del dadummy0
unload
[ $rc = 0 ] || die "devx_async --dead: status $rc"
