#!/bin/bash
# budget: 120
# DEVX event channels from user space (tests/userspace/devx_events.c):
# PORT_CHANGE events of a model device whose netdev goes down and up, read
# with their cookie and EQE, coalesced without data, counted by an
# eventfd; bad subscriptions and reads refused; then the device removed
# while a channel is open. The program comes from
# `make userprogs` (.build/tests/devx_events); without it, it is built
# here into /var/tmp.
. "$(dirname "$(readlink -f "$0")")/lib.bash"

prog=$(test_prog devx_events)

load
mark devx-events
ip link add dedummy0 type dummy
ip link set dedummy0 up
rdma link add de0 type mlx5sp netdev dedummy0 || die "rdma link add failed"

rc=0
timeout 100 "$prog" de0 dedummy0 || rc=$?
[ $rc = 0 ] || die "devx_events: status $rc"
rdma link delete de0 || die "rdma link delete failed"

# again, and the device goes while the program's channel is open
rdma link add de0 type mlx5sp netdev dedummy0 || die "rdma link add failed"
timeout 100 "$prog" de0 dedummy0 --unplug || rc=$?
ip link del dedummy0
unload
[ $rc = 0 ] || die "devx_events: status $rc"
