#!/bin/bash
# budget: 840
# NVMe-oF with and without T10-PI on the stock kernel: see ../80-nvmeof.sh.
exec bash "$(dirname "$0")/../80-nvmeof.sh"
