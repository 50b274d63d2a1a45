#!/bin/bash
# RoCEv2 over IPv6, and UC, against rxe over veth (stock kernel only: the
# debug kernel has no veth).
exec bash "$(dirname "$0")/../58-wire-v6-uc.sh"
