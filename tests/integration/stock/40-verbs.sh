#!/bin/bash
# budget: 360
# The RDMA device with rdma-core on the stock kernel: the same as the debug
# kernel's 40-verbs.sh (rdma link add, ibv_devinfo, pingpongs, rping ...).
exec bash "$(dirname "$0")/../40-verbs.sh"
