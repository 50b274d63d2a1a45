#!/bin/bash
# RoCEv2 interop with rxe over veth (also on the debug kernel).
exec bash "$(dirname "$0")/../55-wire-rxe.sh"
