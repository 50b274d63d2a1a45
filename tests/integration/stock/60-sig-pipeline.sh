#!/bin/bash
# budget: 180
# Signature pipelining from user space on the stock kernel: the same as the
# debug kernel's 60-sig-pipeline.sh.
exec bash "$(dirname "$0")/../60-sig-pipeline.sh"
