// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Allocation and command failure at every step of each create path.
 *
 * For every path (a user context, PD, MR, CQ, SRQ, QP, MKEY, PSV, DEVX
 * object, DEVX umem, and the device itself through the RDMA netlink
 * NEWLINK that `rdma link add` sends) and for n = 1, 2, ...:
 *
 *   alloc: the n-th fault-injection site (failslab, fail_page_alloc) this
 *          thread reaches fails: /proc/self/task/TID/fail-nth;
 *   cmd:   the n-th firmware command the device executes fails, with a
 *          status and syndrome as firmware fails it (the model's debugfs
 *          NAME/fail_nth, fail_nth_next for a device still to come);
 *
 * then the create runs. It must succeed (nothing was injected: the loop
 * for that path ends) or fail with an errno; what it made is destroyed;
 * the device still creates and destroys a CQ and a PD; the model's object
 * and page counts (NAME/objects) are where they were before the path.
 * Each path ends with one line: failure points tried, failed creates by
 * errno, creates that succeeded over an injected failure, leaks.
 *
 * usage: fail_nth DEV [--modes alloc,cmd] [--paths p,q,...] [--max N]
 *                     [--stride N] [--link-stride N] [--netdev NETDEV]
 *                     [--from N] [--count]
 * --stride S tries n = 1, 1+S, 1+2S, ... until one the create does not
 * reach; --link-stride the same for the link path alone (the short form's
 * sampling of its longest path).
 * --from N starts at n = N: with --max, one part of a campaign too long
 * for one run (not reaching the end of the path is then no failure).
 * --count runs each path's create once with nothing failing and prints the
 * fault sites it reached and the time it took (how long a campaign is).
 * The link path needs --netdev; it creates and deletes DEV-f (a name of
 * its own). The kernel's memory leak detector is the caller's to run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "check.h"

#define SIMFS		"/sys/kernel/debug/mlx5sp_sim"
#define BUF_SIZE	(1 << 20)
#define MAX_ERRNO	160

enum mode { MODE_ALLOC, MODE_CMD, NR_MODES };
static const char * const mode_names[NR_MODES] = { "alloc", "cmd" };

static const char *devname, *netdev;
static char linkname[64];
static struct ibv_device *ibdev;
static struct ibv_context *B;		/* the context the paths use */
static struct ibv_pd *Bpd;
static struct ibv_cq *Bcq;
static void *Bbuf;
static int fail_nth_fd = -1;		/* this thread's fail-nth */
static unsigned int max_n = 5000, stride = 1, link_stride, from_n = 1;
static int count_only;

static void fatal(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (errno %d)\n", errno);
	exit(1);
}

/* ---- the knobs ---- */

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		fatal("write %s to %s", val, path);
	close(fd);
}

static long read_num(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		fatal("open %s", path);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		fatal("read %s", path);
	return strtol(buf, NULL, 0);
}

static void dev_path(char *p, size_t len, const char *dev, const char *file)
{
	snprintf(p, len, SIMFS "/%s/%s", dev, file);
}

/* the model's object and page counts of DEV, as one string */
static void objects(const char *dev, char *out, size_t len)
{
	char p[256];
	ssize_t n;
	int fd;

	dev_path(p, sizeof(p), dev, "objects");
	fd = open(p, O_RDONLY);
	if (fd < 0)
		fatal("open %s", p);
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		fatal("read %s", p);
	out[n] = 0;
}

/* The thread's fail-nth: written just before the create, read after. */
static void task_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(fail_nth_fd, buf, len, 0) != len)
		fatal("arm fail-nth %u", n);
}

/* the sites still to pass before the armed fault; disarms */
static unsigned int task_disarm(void)
{
	char buf[16] = "";
	ssize_t r = pread(fail_nth_fd, buf, sizeof(buf) - 1, 0);
	long left = r > 0 ? strtol(buf, NULL, 10) : -1;

	if (pwrite(fail_nth_fd, "0", 1, 0) != 1)
		fatal("disarm fail-nth");
	if (left < 0)
		fatal("read fail-nth");
	return left;
}

/* true when the fault was injected; disarms */
static int task_fired(void)
{
	return task_disarm() == 0;
}

static void cmd_arm(const char *dev, unsigned int n)
{
	char p[256], v[16];

	dev_path(p, sizeof(p), dev, "fail_nth");
	snprintf(v, sizeof(v), "%u", n);
	write_file(p, v);
}

static int cmd_fired(const char *dev)
{
	char p[256];
	long left;

	dev_path(p, sizeof(p), dev, "fail_nth");
	left = read_num(p);
	write_file(p, "0");
	return left == 0;
}

/* ---- the create paths ---- */

struct path {
	const char *name;
	/* returns the object or NULL with errno set */
	void *(*create)(void);
	/* 0 or an errno */
	int (*destroy)(void *obj);
	/* a sanity look at what a create returned: 0 if it is whole */
	int (*whole)(void *obj);
	int needs_netdev;
};

static void *ctx_create(void)
{
	struct mlx5dv_context_attr a = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };

	return mlx5dv_open_device(ibdev, &a);
}

static int ctx_destroy(void *o) { return ibv_close_device(o); }

static int ctx_whole(void *o)
{
	struct ibv_device_attr a;

	return ibv_query_device(o, &a) || !a.max_qp;
}

static void *pd_create(void) { return ibv_alloc_pd(B); }
static int pd_destroy(void *o) { return ibv_dealloc_pd(o); }

static void *mr_create(void)
{
	return ibv_reg_mr(Bpd, Bbuf, 65536, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

static int mr_destroy(void *o) { return ibv_dereg_mr(o); }

static int mr_whole(void *o)
{
	struct ibv_mr *mr = o;

	return mr->length != 65536 || mr->addr != Bbuf || !mr->lkey;
}

static void *cq_create(void) { return ibv_create_cq(B, 64, NULL, NULL, 0); }
static int cq_destroy(void *o) { return ibv_destroy_cq(o); }
static int cq_whole(void *o) { return ((struct ibv_cq *)o)->cqe < 64; }

static void *srq_create(void)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 64, .max_sge = 1 } };

	return ibv_create_srq(Bpd, &a);
}

static int srq_destroy(void *o) { return ibv_destroy_srq(o); }

static void *qp_create_type(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = Bcq, .recv_cq = Bcq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(Bpd, &a);
}

static void *qp_create(void) { return qp_create_type(IBV_QPT_RC); }
static void *udqp_create(void) { return qp_create_type(IBV_QPT_UD); }
static int qp_destroy(void *o) { return ibv_destroy_qp(o); }

static int qp_whole(void *o)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(o, &a, IBV_QP_STATE | IBV_QP_CAP, &ia))
		return 1;
	return a.qp_state != IBV_QPS_RESET || a.cap.max_send_wr < 16 ||
	       !((struct ibv_qp *)o)->qp_num;
}

static void *sigqp_create(void)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC, .send_cq = Bcq, .recv_cq = Bcq,
		.pd = Bpd,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct mlx5dv_qp_init_attr dqa = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
			     MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
		.create_flags = MLX5DV_QP_CREATE_SIG_PIPELINING,
		.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE,
	};

	return mlx5dv_create_qp(B, &qa, &dqa);
}

static void *mkey_create_flags(uint32_t flags)
{
	struct mlx5dv_mkey_init_attr a = {
		.pd = Bpd, .create_flags = flags, .max_entries = 4,
	};

	return mlx5dv_create_mkey(&a);
}

static void *mkey_create(void)
{
	return mkey_create_flags(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT);
}

/* a signature MKEY: the MKEY and a PSV for each of its two domains */
static void *psv_create(void)
{
	return mkey_create_flags(MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				 MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE);
}

static int mkey_destroy(void *o) { return mlx5dv_destroy_mkey(o); }
static int mkey_whole(void *o) { return !((struct mlx5dv_mkey *)o)->lkey; }

/* ALLOC_PD through DEVX (opcode 0x800; layouts: alloc_pd_in/out) */
static void *devx_create(void)
{
	uint32_t in[4] = { htobe32(0x800 << 16) }, out[4] = {};

	return mlx5dv_devx_obj_create(B, in, sizeof(in), out, sizeof(out));
}

static int devx_destroy(void *o) { return mlx5dv_devx_obj_destroy(o); }

static void *umem_create(void)
{
	return mlx5dv_devx_umem_reg(B, Bbuf, 65536, IBV_ACCESS_LOCAL_WRITE);
}

static int umem_destroy(void *o) { return mlx5dv_devx_umem_dereg(o); }

/*
 * The device: RDMA_NLDEV_CMD_NEWLINK as `rdma link add LINK type mlx5sp
 * netdev NETDEV` sends it, on a socket opened before the fault is armed.
 */
static int nl_fd = -1;

static void nl_attr(char *buf, size_t *off, int type, const char *s)
{
	struct nlattr *a = (struct nlattr *)(buf + *off);
	size_t len = strlen(s) + 1;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(buf + *off + NLA_HDRLEN, s, len);
	*off += NLA_ALIGN(a->nla_len);
}

static int link_exists(void)
{
	char p[128];

	snprintf(p, sizeof(p), "/sys/class/infiniband/%s", linkname);
	return !access(p, F_OK);
}

static void *link_create(void)
{
	char buf[512] __attribute__((aligned(8))) = {};
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlmsgerr *e;
	size_t off = NLMSG_HDRLEN;
	ssize_t n;

	h->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = 1;
	nl_attr(buf, &off, RDMA_NLDEV_ATTR_DEV_NAME, linkname);
	nl_attr(buf, &off, RDMA_NLDEV_ATTR_LINK_TYPE, "mlx5sp");
	nl_attr(buf, &off, RDMA_NLDEV_ATTR_NDEV_NAME, netdev);
	h->nlmsg_len = off;
	if (send(nl_fd, buf, off, 0) != (ssize_t)off)
		return NULL;
	n = recv(nl_fd, buf, sizeof(buf), 0);
	if (n < (ssize_t)NLMSG_HDRLEN)
		return NULL;
	if (h->nlmsg_type != NLMSG_ERROR) {
		errno = EPROTO;
		return NULL;
	}
	e = NLMSG_DATA(h);
	if (e->error) {
		errno = -e->error;
		return NULL;
	}
	return linkname;
}

static int link_destroy(void *o)
{
	char cmd[128];

	(void)o;
	snprintf(cmd, sizeof(cmd), "rdma link delete %s", linkname);
	return system(cmd) ? EIO : 0;
}

static int link_whole(void *o)
{
	(void)o;
	return !link_exists();
}

static const struct path paths[] = {
	{ .name = "ctx", .create = ctx_create, .destroy = ctx_destroy, .whole = ctx_whole },
	{ .name = "pd", .create = pd_create, .destroy = pd_destroy },
	{ .name = "mr", .create = mr_create, .destroy = mr_destroy, .whole = mr_whole },
	{ .name = "cq", .create = cq_create, .destroy = cq_destroy, .whole = cq_whole },
	{ .name = "srq", .create = srq_create, .destroy = srq_destroy },
	{ .name = "qp", .create = qp_create, .destroy = qp_destroy, .whole = qp_whole },
	{ .name = "ud-qp", .create = udqp_create, .destroy = qp_destroy, .whole = qp_whole },
	{ .name = "sig-qp", .create = sigqp_create, .destroy = qp_destroy, .whole = qp_whole },
	{ .name = "mkey", .create = mkey_create, .destroy = mkey_destroy, .whole = mkey_whole },
	{ .name = "psv", .create = psv_create, .destroy = mkey_destroy, .whole = mkey_whole },
	{ .name = "devx", .create = devx_create, .destroy = devx_destroy },
	{ .name = "umem", .create = umem_create, .destroy = umem_destroy },
	{ .name = "link", .create = link_create, .destroy = link_destroy, .whole = link_whole,
	  .needs_netdev = 1 },
};

#define NR_PATHS (sizeof(paths) / sizeof(paths[0]))

/* ---- the loop ---- */

static void open_base(void);
static int close_base(void);

/*
 * The model's counts less its UARs: libmlx5 keeps the UARs it allocated
 * for QPs in the context for the next QP, so they come back when the
 * context closes (checked at the end of a path), not when a QP does.
 */
static void objects_no_uar(const char *dev, char *out, size_t len)
{
	char *u, *nl;

	objects(dev, out, len);
	u = strstr(out, "uar ");
	nl = u ? strchr(u, '\n') : NULL;
	if (nl)
		memmove(u, nl + 1, strlen(nl + 1) + 1);
}

/* The device still makes and frees what a user needs. */
static int usable(void)
{
	struct ibv_cq *cq = ibv_create_cq(B, 16, NULL, NULL, 0);
	struct ibv_pd *pd = ibv_alloc_pd(B);
	int ok = cq && pd;

	if (cq && ibv_destroy_cq(cq))
		ok = 0;
	if (pd && ibv_dealloc_pd(pd))
		ok = 0;
	return ok;
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * --count: how many fault-injection sites the path's create reaches with
 * nothing failing (the n at which its alloc loop ends), and what a create
 * and a destroy cost: the length of a campaign before it runs.
 */
#define COUNT_ARM	10000000u

static void open_base(void);
static int close_base(void);

static void count_path(const struct path *p)
{
	struct timespec t0;
	double tc, td;
	unsigned int sites;
	void *obj;
	int err;

	open_base();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	task_arm(COUNT_ARM);
	obj = p->create();
	err = errno;
	sites = COUNT_ARM - task_disarm();
	tc = secs_since(&t0);
	if (!obj) {
		check(0, "count %s: the create failed (%s)", p->name,
		      strerror(err));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = p->destroy(obj);
	td = secs_since(&t0);
	check(!err, "count %s: %u fault sites, create %.3f s, destroy %.3f s",
	      p->name, sites, tc, td);
out:
	if (close_base())
		check(0, "count %s: the base context closed", p->name);
}

static void run_path(const struct path *p, enum mode m)
{
	unsigned int errs[MAX_ERRNO + 1] = {}, n, tried = 0, failed = 0;
	unsigned int absorbed = 0, leaks = 0, broken = 0, bad = 0;
	int fired, err, done = 0, is_link = p->needs_netdev;
	char before[1024], after[1024], hist[1024] = "", start[1024];
	const char *cmdev = is_link ? linkname : devname;
	struct timespec t0;
	size_t off = 0;
	void *obj;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	objects(devname, start, sizeof(start));
	open_base();
	objects_no_uar(devname, before, sizeof(before));
	for (n = from_n; n <= max_n && !done; n++) {
		/* the short form samples: 1, 1+S, 1+2S, ... */
		if ((n - 1) % (is_link && link_stride ? link_stride : stride))
			continue;
		tried++;
		if (m == MODE_ALLOC) {
			task_arm(n);
			obj = p->create();
			err = errno;
			fired = task_fired();
		} else if (is_link) {
			char v[16];

			snprintf(v, sizeof(v), "%u", n);
			write_file(SIMFS "/fail_nth_next", v);
			obj = p->create();
			err = errno;
			write_file(SIMFS "/fail_nth_next", "0");
			/* what it did not spend, the device it made still has */
			fired = !obj || cmd_fired(cmdev);
		} else {
			cmd_arm(cmdev, n);
			obj = p->create();
			err = errno;
			fired = cmd_fired(cmdev);
		}
		if (!fired)
			done = 1;
		if (obj) {
			if (p->whole && p->whole(obj)) {
				check(0, "%s %s n=%u: the create succeeded with a broken object",
				      p->name, mode_names[m], n);
				bad++;
			}
			if (fired)
				absorbed++;
			err = p->destroy(obj);
			if (err) {
				check(0, "%s %s n=%u: destroy failed (%s)",
				      p->name, mode_names[m], n, strerror(err));
				bad++;
			}
		} else {
			failed++;
			if (!fired) {
				check(0, "%s %s n=%u: the create failed with nothing injected (%s)",
				      p->name, mode_names[m], n, strerror(err));
				bad++;
			} else if (err <= 0 || err > MAX_ERRNO) {
				check(0, "%s %s n=%u: the create failed with errno %d",
				      p->name, mode_names[m], n, err);
				bad++;
			} else {
				errs[err]++;
			}
		}
		if (is_link && link_exists()) {
			/* made, though the answer was lost: not a leak */
			if (!obj && link_destroy(NULL))
				bad++;
			if (link_exists()) {
				check(0, "%s %s n=%u: the device stayed",
				      p->name, mode_names[m], n);
				leaks++;
			}
		}
		if (!usable()) {
			check(0, "%s %s n=%u: the device is not usable after it",
			      p->name, mode_names[m], n);
			broken++;
			break;
		}
		objects_no_uar(devname, after, sizeof(after));
		if (strcmp(before, after)) {
			check(0, "%s %s n=%u: the model's objects differ:\nbefore\n%safter\n%s",
			      p->name, mode_names[m], n, before, after);
			leaks++;
			memcpy(before, after, sizeof(before));
		}
	}
	/* a range that stops short of the end is one part of a campaign */
	if (!done && !broken && from_n > 1)
		printf("range %s %s: n %u..%u all failed or absorbed, the path goes on\n",
		       p->name, mode_names[m], from_n, max_n);
	else if (!done && !broken)
		check(0, "%s %s: still failing at n=%u", p->name, mode_names[m],
		      max_n);
	if (close_base())
		check(0, "%s %s: the path's context closed", p->name,
		      mode_names[m]);
	objects(devname, after, sizeof(after));
	if (strcmp(start, after)) {
		check(0, "%s %s: the model's objects differ after the context closed:\nbefore\n%safter\n%s",
		      p->name, mode_names[m], start, after);
		leaks++;
	}
	for (err = 1; err <= MAX_ERRNO; err++)
		if (errs[err])
			off += snprintf(hist + off, sizeof(hist) - off, "%s%s %u",
					off ? ", " : "", strerrorname_np(err) ?: "?",
					errs[err]);
	check((done || from_n > 1) && !leaks && !broken && !bad,
	      "path %s %s: n %u..%u (%u tried), %u failed (%s), %u succeeded over an injected failure, leaks %u, %.1f s",
	      p->name, mode_names[m], from_n, n - 1, tried, failed, failed ? hist : "none",
	      absorbed, leaks, secs_since(&t0));
}

static int in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *s = list;

	if (!list)
		return 1;
	while ((s = strstr(s, name))) {
		if ((s == list || s[-1] == ',') && (!s[len] || s[len] == ','))
			return 1;
		s += len;
	}
	return 0;
}

static void find_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		fatal("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ibdev = list[i];
	if (!ibdev)
		fatal("no device %s", devname);
	/* list kept: ibdev stays valid */
}

static void open_base(void)
{
	B = ctx_create();
	if (!B)
		fatal("open %s", devname);
	Bpd = ibv_alloc_pd(B);
	Bcq = ibv_create_cq(B, 64, NULL, NULL, 0);
	if (!Bpd || !Bcq)
		fatal("base PD and CQ");
}

static int close_base(void)
{
	return ibv_destroy_cq(Bcq) || ibv_dealloc_pd(Bpd) ||
	       ibv_close_device(B);
}

int main(int argc, char **argv)
{
	const char *modes = NULL, *plist = NULL;
	char p[128];
	unsigned int i;
	int m;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: fail_nth DEV [--modes alloc,cmd] [--paths P,...] [--max N] [--stride N] [--link-stride N] [--netdev NETDEV] [--from N] [--count]\n");
		return 2;
	}
	devname = argv[1];
	for (i = 2; i < (unsigned int)argc; i++) {
		const char *a = argv[i], *v = i + 1 < (unsigned int)argc ?
					     argv[i + 1] : NULL;

		if (!strcmp(a, "--count")) {
			count_only = 1;
			continue;
		}
		if (!v)
			fatal("%s needs a value", a);
		if (!strcmp(a, "--modes"))
			modes = v;
		else if (!strcmp(a, "--paths"))
			plist = v;
		else if (!strcmp(a, "--from"))
			from_n = strtoul(v, NULL, 0) ?: 1;
		else if (!strcmp(a, "--max"))
			max_n = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--stride"))
			stride = strtoul(v, NULL, 0) ?: 1;
		else if (!strcmp(a, "--link-stride"))
			link_stride = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--netdev"))
			netdev = v;
		else
			fatal("unknown option %s", a);
		i++;
	}
	snprintf(linkname, sizeof(linkname), "%s-f", devname);

	find_device();
	if (posix_memalign(&Bbuf, 4096, BUF_SIZE))
		fatal("posix_memalign");
	memset(Bbuf, 0, BUF_SIZE);
	/* user page faults fail no allocation in the loop: all mapped now */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fatal("mlockall");
	snprintf(p, sizeof(p), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	fail_nth_fd = open(p, O_RDWR);
	if (fail_nth_fd < 0)
		fatal("open %s", p);
	nl_fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
	if (nl_fd < 0)
		fatal("netlink socket");

	for (i = 0; i < NR_PATHS; i++) {
		if (!in_list(plist, paths[i].name))
			continue;
		if (paths[i].needs_netdev && !netdev) {
			printf("SKIP: path %s needs --netdev\n", paths[i].name);
			continue;
		}
		if (count_only) {
			count_path(&paths[i]);
			continue;
		}
		for (m = 0; m < NR_MODES; m++)
			if (in_list(modes, mode_names[m]))
				run_path(&paths[i], m);
	}

	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
