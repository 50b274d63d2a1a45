#!/bin/bash
# RoCE over a VLAN against rxe over veth (stock kernel only: the debug
# kernel has no veth).
exec bash "$(dirname "$0")/../54-wire-vlan.sh"
