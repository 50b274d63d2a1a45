#!/bin/bash
# RoCE v1 and ECN/CNP between two model devices over veth (also on the
# debug kernel).
exec bash "$(dirname "$0")/../59-wire-v1-ecn.sh"
