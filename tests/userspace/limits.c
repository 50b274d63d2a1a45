// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Object counts at the device's limits: for PDs, CQs, SRQs, QPs and MRs,
 * create as many as ibv_query_device says the device holds, then one
 * more. The one more must fail cleanly (EAGAIN or ENOMEM, nothing
 * created), exactly when the device holds its reported maximum (the
 * model's debugfs "limits" file: what it holds of each kind, whoever made
 * it, and how many creates it refused); after one is destroyed one more
 * fits again, and after all are destroyed the device holds what it held
 * before. Run it on a device made with a small profile
 * (debugfs add NAME log_max_qp=N ...): a ConnectX-6's counts are 2^18
 * QPs and 2^24 of the rest.
 *
 * usage: limits DEV LIMITS_FILE
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "check.h"

#define MAX_OBJS	4096	/* a profile this test can reach */

enum kind { K_PD, K_CQ, K_SRQ, K_QP, K_MR, NR_KINDS };

static const char *const names[NR_KINDS] = { "pd", "cq", "srq", "qp", "mr" };
/* the model's name for the kind in its limits file: an MR is an MKEY */
static const char *const lim_names[NR_KINDS] = {
	"pd", "cq", "srq", "qp", "mkey"
};

static const char *limits_file;
static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static char *buf;

static void fatal(const char *what)
{
	fprintf(stderr, "limits: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* KIND held N refused N, from the model's limits file */
static int lim_read(enum kind k, unsigned long *held, unsigned long *refused)
{
	char name[16], line[128];
	unsigned long h, r;
	FILE *f = fopen(limits_file, "r");
	int found = 0;

	if (!f)
		fatal(limits_file);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s held %lu refused %lu", name, &h, &r) == 3 &&
		    !strcmp(name, lim_names[k])) {
			*held = h;
			*refused = r;
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static void *create(enum kind k)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	switch (k) {
	case K_PD:
		return ibv_alloc_pd(ctx);
	case K_CQ:
		return ibv_create_cq(ctx, 1, NULL, NULL, 0);
	case K_SRQ:
		return ibv_create_srq(pd, &sa);
	case K_QP:
		return ibv_create_qp(pd, &qa);
	default:
		return ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	}
}

static int destroy(enum kind k, void *o)
{
	switch (k) {
	case K_PD:
		return ibv_dealloc_pd(o);
	case K_CQ:
		return ibv_destroy_cq(o);
	case K_SRQ:
		return ibv_destroy_srq(o);
	case K_QP:
		return ibv_destroy_qp(o);
	default:
		return ibv_dereg_mr(o);
	}
}

static int reported_max(const struct ibv_device_attr *a, enum kind k)
{
	switch (k) {
	case K_PD:
		return a->max_pd;
	case K_CQ:
		return a->max_cq;
	case K_SRQ:
		return a->max_srq;
	case K_QP:
		return a->max_qp;
	default:
		return a->max_mr;
	}
}

static void one_kind(const struct ibv_device_attr *a, enum kind k)
{
	unsigned long held0, ref0, held, ref, held_fail, ref_fail;
	int max = reported_max(a, k), n = 0, err = 0, i, bad = 0;
	static void *objs[MAX_OBJS + 3];
	void *o;

	if (max <= 0 || max > MAX_OBJS) {
		check(0, "%s: the device reports %d, this test reaches at most %d",
		      names[k], max, MAX_OBJS);
		return;
	}
	if (lim_read(k, &held0, &ref0)) {
		check(0, "%s: no line in %s", names[k], limits_file);
		return;
	}
	/* up to the limit, whatever the device already held */
	while (n < MAX_OBJS + 1) {
		errno = 0;
		o = create(k);
		if (!o) {
			err = errno;
			break;
		}
		objs[n++] = o;
	}
	lim_read(k, &held_fail, &ref_fail);
	check(o == NULL && (err == EAGAIN || err == ENOMEM),
	      "%s: after %d created (%lu held before) the next one fails: %s",
	      names[k], n, held0, strerror(err));
	check(held_fail == (unsigned long)max,
	      "%s: the device holds its reported maximum %d when it refuses (holds %lu)",
	      names[k], max, held_fail);
	check(ref_fail == ref0 + 1,
	      "%s: the device refused exactly that one create (%lu -> %lu)",
	      names[k], ref0, ref_fail);

	/* a refusal leaves nothing behind: again, then one freed fits one */
	errno = 0;
	o = create(k);
	check(!o, "%s: still refused on a second try (%s)", names[k],
	      strerror(errno));
	if (o)
		objs[n++] = o;
	if (n) {
		if (destroy(k, objs[--n]))
			bad++;
		o = create(k);
		check(o != NULL, "%s: with one destroyed one more fits (%s)",
		      names[k], o ? "ok" : strerror(errno));
		if (o)
			objs[n++] = o;
	}
	for (i = n - 1; i >= 0; i--)
		if (destroy(k, objs[i]))
			bad++;
	lim_read(k, &held, &ref);
	check(!bad && held == held0,
	      "%s: all %d destroyed (%d failed), the device holds %lu again (%lu)",
	      names[k], n, bad, held0, held);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_device_attr a;
	int i, k;

	if (argc != 3) {
		fprintf(stderr, "usage: limits DEV LIMITS_FILE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	limits_file = argv[2];
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fatal(argv[1]);
	ibv_free_device_list(list);
	if (ibv_query_device(ctx, &a))
		fatal("ibv_query_device");
	printf("%s reports max_pd %d max_cq %d max_srq %d max_qp %d max_mr %d\n",
	       argv[1], a.max_pd, a.max_cq, a.max_srq, a.max_qp, a.max_mr);
	buf = aligned_alloc(4096, 4096);
	if (!buf)
		fatal("aligned_alloc");

	one_kind(&a, K_PD);
	one_kind(&a, K_CQ);
	/* SRQs, QPs and MRs need a PD; QPs a CQ */
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!pd || !cq)
		fatal("PD and CQ");
	for (k = K_SRQ; k < NR_KINDS; k++)
		one_kind(&a, k);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
