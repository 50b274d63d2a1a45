#!/bin/bash
# The signature engine's fault on the stock kernel: the same as the debug
# kernel's 50-sig-inject.sh (the model loads with libcrc32c as a module).
exec bash "$(dirname "$0")/../50-sig-inject.sh"
