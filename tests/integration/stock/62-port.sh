#!/bin/bash
# budget: 900
# The port of a device with a cable, whole (62-port.sh).
exec bash "$(dirname "$0")/../62-port.sh"
