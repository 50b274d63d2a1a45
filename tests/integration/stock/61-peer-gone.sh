#!/bin/bash
# budget: 660
# A requester whose peer went away, on every path, and the storage
# client that stops with requests outstanding: as on the debug kernel.
exec bash "$(dirname "$0")/../61-peer-gone.sh"
