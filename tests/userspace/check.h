/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * PASS/FAIL accounting of the user-space test programs: check() prints
 * one line per expectation and counts it; a program ends with
 * "N passed, N failed" and exit status 1 on any failure.
 */
#ifndef MLX5SP_TESTS_CHECK_H
#define MLX5SP_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int failures, passes;

static inline void __attribute__((format(printf, 2, 3)))
check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passes++;
	else
		failures++;
}

#endif
