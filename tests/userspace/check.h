/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * PASS/FAIL accounting of the user-space test programs: check() prints
 * one line per expectation and counts it; a program ends with
 * "N passed, N failed" and exit status 1 on any failure.
 */
#ifndef MLX5SP_TESTS_CHECK_H
#define MLX5SP_TESTS_CHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures, passes;
/* glibc's, declared by <errno.h> only under _GNU_SOURCE */
extern char *program_invocation_short_name;

static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A call that failed and leaves nothing to go on with: said (after the
 * program's name), counted as one more failure, and the program ends.
 */
static inline void __attribute__((noreturn))
fatal_err(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(err));
	printf("%d passed, %d failed\n", passes, failures + 1);
	exit(1);
}

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

#ifdef INFINIBAND_VERBS_H
/* The RDMA device called @name, opened; the program ends without one. */
static inline struct ibv_context *open_dev_by_name(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		fatal_err("ibv_get_device_list", errno);
	errno = 0;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fatal_err(name, errno ? errno : ENODEV);
	return ctx;
}
#endif

#endif
