#!/bin/bash
# The last message before a shutdown on the stock kernel: the same as the
# debug kernel's 45-last-send.sh.
exec bash "$(dirname "$0")/../45-last-send.sh"
