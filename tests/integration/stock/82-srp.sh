#!/bin/bash
# SRP (ib_srp <-> ib_srpt over rdma_cm) on the stock kernel: see ../82-srp.sh.
exec bash "$(dirname "$0")/../82-srp.sh"
