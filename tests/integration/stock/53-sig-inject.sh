#!/bin/bash
# budget: 120
# The signature engine's fault on the stock kernel: the same as the debug
# kernel's 53-sig-inject.sh (the model loads with libcrc32c as a module).
exec bash "$(dirname "$0")/../53-sig-inject.sh"
