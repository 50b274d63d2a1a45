#!/bin/bash
# NFS over RDMA on the stock kernel: see ../83-nfs-rdma.sh.
exec bash "$(dirname "$0")/../83-nfs-rdma.sh"
