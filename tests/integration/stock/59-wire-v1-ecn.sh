#!/bin/bash
# RoCE v1 and ECN/CNP between two model devices over veth (stock kernel
# only: the debug kernel has no veth).
exec bash "$(dirname "$0")/../59-wire-v1-ecn.sh"
