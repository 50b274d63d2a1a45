#!/bin/bash
# RoCEv2 interop with rxe over veth (stock kernel only: the debug kernel
# has no veth).
exec bash "$(dirname "$0")/../55-wire-rxe.sh"
