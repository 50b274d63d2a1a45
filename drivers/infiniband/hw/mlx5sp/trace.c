// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The trace events of trace.h, defined once. */
#define CREATE_TRACE_POINTS
#include "trace.h"
