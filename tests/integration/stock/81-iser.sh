#!/bin/bash
# iSER with and without T10-PI on the stock kernel: see ../81-iser.sh.
exec bash "$(dirname "$0")/../81-iser.sh"
