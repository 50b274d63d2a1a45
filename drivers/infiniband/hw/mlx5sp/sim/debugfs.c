// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * debugfs of the software ConnectX, /sys/kernel/debug/mlx5sp_sim/:
 *   add   "NAME [boot_pages=N] [init_pages=N] [log_cmdq_size=N]
 *          [num_vectors=N] [boot_delay_ms=N] [missing_caps=MASK] [port_ib=0|1]
 *          [log_max_qp=N] [log_max_cq=N] [log_max_mkey=N] [log_max_pd=N]
 *          [log_max_srq=N] [netdev=IFNAME | cable=IFNAME]"
 *         creates a device and attaches the driver to it (with netdev=,
 *         a RoCE port on IFNAME, as "rdma link add" makes; with cable=,
 *         a physical Ethernet port whose cable is IFNAME: the driver
 *         makes its NIC);
 *   del   "NAME" destroys it;
 *   fail_nth_next  "N": the next device created (by "add" or "rdma link
 *         add") fails the N-th command it executes (its NAME/fail_nth);
 *   NAME/ fault injection attributes, stats, object counts, the port.
 * Users make devices with "rdma link add"; "add" is the tests' way, with
 * the parameters and fault knobs rdma link has no words for.
 */

#include <linux/debugfs.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "counters.h"
#include "limits.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "port.h"
#include "sig.h"
#include "sim.h"
#include "wire.h"

#define SIM_CTL_MAX_LINE	256
#define SIM_HOSTILE_EQES_MAX	4096	/* per write: a few EQs' worth */

static struct dentry *sim_dbg_root;
static struct dentry *sim_dbg_add;
static struct dentry *sim_dbg_del;
static struct dentry *sim_dbg_fail_nth_next;
static DEFINE_MUTEX(sim_ctl_lock);	/* serializes add and del */
static atomic_t sim_fail_nth_next;	/* fail_nth of the next device */

/* fault attributes: get/set one field under inject.lock */
#define SIM_FAULT_ATTR(field, max)					\
static int sim_##field##_get(void *data, u64 *val)			\
{									\
	struct mlx5sp_sim *sim = data;					\
	unsigned long flags;						\
									\
	spin_lock_irqsave(&sim->inject.lock, flags);			\
	*val = sim->inject.cmd.field;					\
	spin_unlock_irqrestore(&sim->inject.lock, flags);		\
	return 0;							\
}									\
static int sim_##field##_set(void *data, u64 val)			\
{									\
	struct mlx5sp_sim *sim = data;					\
	unsigned long flags;						\
									\
	if (val > (max))						\
		return -EINVAL;						\
	spin_lock_irqsave(&sim->inject.lock, flags);			\
	sim->inject.cmd.field = val;					\
	spin_unlock_irqrestore(&sim->inject.lock, flags);		\
	return 0;							\
}									\
DEFINE_DEBUGFS_ATTRIBUTE(sim_##field##_fops, sim_##field##_get,	\
			 sim_##field##_set, "%llu\n")

SIM_FAULT_ATTR(fail_opcode, U16_MAX);
SIM_FAULT_ATTR(fail_status, U8_MAX);
SIM_FAULT_ATTR(fail_syndrome, U32_MAX);
SIM_FAULT_ATTR(fail_count, U32_MAX);
SIM_FAULT_ATTR(fail_nth, U32_MAX);
SIM_FAULT_ATTR(delay_opcode, U16_MAX);
SIM_FAULT_ATTR(delay_count, U32_MAX);
SIM_FAULT_ATTR(garble_opcode, U16_MAX);
SIM_FAULT_ATTR(garble_nth, U32_MAX);
SIM_FAULT_ATTR(garble_seed, U32_MAX);

static int sim_delay_ms_get(void *data, u64 *val)
{
	struct mlx5sp_sim *sim = data;
	unsigned long flags;

	spin_lock_irqsave(&sim->inject.lock, flags);
	*val = sim->inject.cmd.delay_ms;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	return 0;
}

/* -1 or 4294967295: never complete */
static int sim_delay_ms_set(void *data, u64 val)
{
	struct mlx5sp_sim *sim = data;
	unsigned long flags;

	if (val == (u64)-1LL)
		val = U32_MAX;
	if (val > U32_MAX)
		return -EINVAL;
	spin_lock_irqsave(&sim->inject.lock, flags);
	sim->inject.cmd.delay_ms = val;
	spin_unlock_irqrestore(&sim->inject.lock, flags);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(sim_delay_ms_fops, sim_delay_ms_get,
				sim_delay_ms_set, "%lld\n");

static int sim_health_syndrome_get(void *data, u64 *val)
{
	struct mlx5sp_sim *sim = data;

	*val = READ_ONCE(sim->bar.iseg->health.synd);
	return 0;
}

static int sim_health_syndrome_set(void *data, u64 val)
{
	if (!val || val > U8_MAX)
		return -EINVAL;
	mlx5sp_sim_set_health_syndrome(data, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(sim_health_syndrome_fops, sim_health_syndrome_get,
			 sim_health_syndrome_set, "%llu\n");

static int sim_health_stop_get(void *data, u64 *val)
{
	struct mlx5sp_sim *sim = data;

	*val = atomic_read(&sim->health.stopped);
	return 0;
}

static int sim_health_stop_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	mlx5sp_sim_stop_health_counter(data, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(sim_health_stop_fops, sim_health_stop_get,
			 sim_health_stop_set, "%llu\n");

/* hostile CQEs and EQEs (fault.c): how many are still to come */
#define SIM_HOSTILE_ATTR(field, set_fn)					\
static int sim_##field##_get(void *data, u64 *val)			\
{									\
	struct mlx5sp_sim *sim = data;					\
									\
	*val = atomic_read(&sim->inject.field);				\
	return 0;							\
}									\
static int sim_##field##_set(void *data, u64 val)			\
{									\
	if (val > S32_MAX)						\
		return -EINVAL;						\
	set_fn;								\
	return 0;							\
}									\
DEFINE_DEBUGFS_ATTRIBUTE(sim_##field##_fops, sim_##field##_get,	\
			 sim_##field##_set, "%llu\n")

SIM_HOSTILE_ATTR(stale_cqes, mlx5sp_sim_stale_cqes(data, val));
SIM_HOSTILE_ATTR(stale_eqes, mlx5sp_sim_stale_eqes(data, val));

static char *sim_read_line(const char __user *ubuf, size_t count)
{
	if (!count || count >= SIM_CTL_MAX_LINE)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, count);
}

/* "N [M]" (M 0 when left out): how many numbers were read, or -errno */
static int sim_read_count_arg(const char __user *ubuf, size_t count, u32 *n,
			      u32 *m)
{
	char *buf;
	int got;

	buf = sim_read_line(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	*m = 0;
	got = sscanf(buf, "%u %i", n, m);
	kfree(buf);
	return got < 1 ? -EINVAL : got;
}

/* "EVENTS PAGES": EVENTS page requests of PAGES each (negative: take) */
static ssize_t sim_page_storm_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	u32 events, pages;
	int err;

	err = sim_read_count_arg(ubuf, count, &events, &pages);
	if (err < 0)
		return err;
	if (err != 2)
		return -EINVAL;
	err = mlx5sp_sim_page_storm(file->private_data, events, (s32)pages);
	return err ? err : count;
}

static const struct file_operations sim_page_storm_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sim_page_storm_write,
	.llseek = noop_llseek,
};

/* "COUNT [QPN]": the next COUNT CQEs corrupted, some naming QPN */
static ssize_t sim_hostile_cqes_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	u32 n, qpn;
	int err;

	err = sim_read_count_arg(ubuf, count, &n, &qpn);
	if (err < 0)
		return err;
	if (n > S32_MAX)
		return -EINVAL;
	mlx5sp_sim_hostile_cqes(file->private_data, n, qpn);
	return count;
}

static const struct file_operations sim_hostile_cqes_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sim_hostile_cqes_write,
	.llseek = noop_llseek,
};

/* "COUNT [SEED]": COUNT lying EQEs written now (SEED 0: a random one) */
static ssize_t sim_hostile_eqes_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	u32 n, seed;
	int err;

	err = sim_read_count_arg(ubuf, count, &n, &seed);
	if (err < 0)
		return err;
	if (n > SIM_HOSTILE_EQES_MAX)
		return -EINVAL;
	mlx5sp_sim_hostile_eqes(file->private_data, n,
				seed ?: get_random_u32());
	return count;
}

static const struct file_operations sim_hostile_eqes_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = sim_hostile_eqes_write,
	.llseek = noop_llseek,
};

static const char * const sim_delivery_names[MLX5SP_SIM_NR_DELIVERY] = {
	[MLX5SP_CMD_DELIVERY_SIGNATURE_ERR] = "signature",
	[MLX5SP_CMD_DELIVERY_TOKEN_ERR] = "token",
	[MLX5SP_CMD_DELIVERY_BAD_BLOCK_NUM_ERR] = "bad_block_num",
	[MLX5SP_CMD_DELIVERY_OUT_PTR_ALIGN_ERR] = "out_ptr_align",
	[MLX5SP_CMD_DELIVERY_IN_PTR_ALIGN_ERR] = "in_ptr_align",
	[MLX5SP_CMD_DELIVERY_FW_ERR] = "fw",
	[MLX5SP_CMD_DELIVERY_IN_LENGTH_ERR] = "in_length",
	[MLX5SP_CMD_DELIVERY_OUT_LENGTH_ERR] = "out_length",
	[MLX5SP_CMD_DELIVERY_RES_FLD_NOT_CLR_ERR] = "res_fld_not_clr",
	[MLX5SP_CMD_DELIVERY_CMD_DESCR_ERR] = "cmd_descr",
};

static int sim_stats_show(struct seq_file *m, void *v)
{
	struct mlx5sp_sim_stats *st;
	int i;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mlx5sp_sim_get_stats(m->private, st);

	seq_printf(m, "cmds_executed %llu\n", st->cmds_executed);
	seq_printf(m, "cmd_errors %llu\n", st->cmd_errors);
	for (i = 0; i < MLX5SP_SIM_NR_STATUS; i++)
		if (st->cmd_status[i])
			seq_printf(m, "cmd_status_0x%02x %u\n", i,
				   st->cmd_status[i]);
	if (st->cmd_status_other)
		seq_printf(m, "cmd_status_other %llu\n", st->cmd_status_other);
	seq_printf(m, "delivery_errors %llu\n", st->delivery_errors);
	for (i = 0; i < MLX5SP_SIM_NR_DELIVERY; i++)
		if (st->delivery_status[i])
			seq_printf(m, "delivery_%s %u\n",
				   sim_delivery_names[i] ?: "unknown",
				   st->delivery_status[i]);
	seq_printf(m, "cmds_injected %llu\n", st->cmds_injected);
	seq_printf(m, "cmds_garbled %llu\n", st->cmds_garbled);
	seq_printf(m, "cmds_delayed %llu\n", st->cmds_delayed);
	seq_printf(m, "cmds_dropped %llu\n", st->cmds_dropped);
	seq_printf(m, "cmds_stale %llu\n", st->cmds_stale);
	seq_printf(m, "doorbells_ignored %llu\n", st->doorbells_ignored);
	seq_printf(m, "pages_held %llu\n", st->pages_held);
	seq_printf(m, "pages_given %llu\n", st->pages_given);
	seq_printf(m, "pages_returned %llu\n", st->pages_returned);
	seq_printf(m, "pages_leaked %llu\n", st->pages_leaked);
	seq_printf(m, "boot_pages_outstanding %llu\n",
		   st->boot_pages_outstanding);
	seq_printf(m, "init_pages_outstanding %llu\n",
		   st->init_pages_outstanding);
	seq_printf(m, "regular_pages_outstanding %lld\n",
		   st->regular_pages_outstanding);
	seq_printf(m, "eqes_written %llu\n", st->eqes_written);
	seq_printf(m, "eqes_hostile %llu\n", st->eqes_hostile);
	seq_printf(m, "eq_overruns %llu\n", st->eq_overruns);
	seq_printf(m, "events_dropped %llu\n", st->events_dropped);
	seq_printf(m, "eq_doorbells_bad %llu\n", st->eq_doorbells_bad);
	seq_printf(m, "writes_ignored %llu\n", st->writes_ignored);
	seq_printf(m, "wqes_executed %llu\n", st->wqes_executed);
	seq_printf(m, "cqes_written %llu\n", st->cqes_written);
	seq_printf(m, "cq_overruns %llu\n", st->cq_overruns);
	seq_printf(m, "comp_eqes %llu\n", st->comp_eqes);
	seq_printf(m, "doorbell_polls %llu\n", st->doorbell_polls);
	seq_printf(m, "kicks %llu\n", st->kicks);
	seq_printf(m, "engine_sleeps %llu\n", st->engine_sleeps);
	seq_printf(m, "uar_traps %llu\n", st->uar_traps);
	seq_printf(m, "uar_touches %llu\n", st->uar_touches);
	seq_printf(m, "uar_stores %llu\n", st->uar_stores);
	seq_printf(m, "inline_runs %llu\n", st->inline_runs);
	seq_printf(m, "uar_idle_touches %llu\n", st->uar_idle_touches);
	seq_printf(m, "uar_rearm_us %llu\n", st->uar_rearm_us);
	seq_printf(m, "rnr_naks %llu\n", st->rnr_naks);
	seq_printf(m, "retries %llu\n", st->retries);
	seq_printf(m, "wqes_flushed %llu\n", st->wqes_flushed);
	seq_printf(m, "ud_dropped %llu\n", st->ud_dropped);
	seq_printf(m, "bytes %llu\n", st->bytes);
	seq_printf(m, "sig_transfers %llu\n", st->sig_transfers);
	seq_printf(m, "sig_errors %llu\n", st->sig_errors);
	seq_printf(m, "sig_ns %llu\n", st->sig_ns);
	for (i = 0; i < MLX5SP_SIM_NR_CQE_SYND; i++)
		if (st->cqe_errors[i])
			seq_printf(m, "cqe_error_0x%02x %llu\n", i,
				   st->cqe_errors[i]);
	kfree(st);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(sim_stats);

static unsigned long sim_xa_count(struct xarray *xa)
{
	unsigned long id, n = 0;
	void *entry;

	xa_for_each(xa, id, entry)
		n++;
	return n;
}

/*
 * What the device holds for its users, one count a line: after a user
 * has destroyed all it made (or failed to make), each is back where it
 * was.
 */
static int sim_objects_show(struct seq_file *m, void *v)
{
	struct mlx5sp_sim *sim = m->private;
	unsigned long flags, eqs = 0;
	int i;

	mutex_lock(&sim->fw_lock);
	spin_lock_irqsave(&sim->eq_lock, flags);
	for (i = 0; i < SIM_MAX_EQS; i++)
		eqs += !!sim->eqs[i];
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	seq_printf(m, "eq %lu\n", eqs);
	seq_printf(m, "uar %u\n", bitmap_weight(sim->uar_map, sim->nr_uars));
	seq_printf(m, "pd %lu\n", sim_xa_count(&sim->pds));
	seq_printf(m, "td %lu\n", sim_xa_count(&sim->tds));
	seq_printf(m, "mkey %lu\n", sim_xa_count(&sim->mkeys));
	seq_printf(m, "cq %lu\n", sim_xa_count(&sim->cqs));
	seq_printf(m, "qp %lu\n", sim_xa_count(&sim->qps));
	seq_printf(m, "srq %lu\n", sim_xa_count(&sim->srqs));
	seq_printf(m, "psv %lu\n", sim_xa_count(&sim->psvs));
	seq_printf(m, "uctx %lu\n", sim_xa_count(&sim->devx.uctxs));
	seq_printf(m, "umem %lu\n", sim_xa_count(&sim->devx.umems));
	seq_printf(m, "q_counter %u\n",
		   bitmap_weight(sim->qcnt.map, SIM_MAX_Q_COUNTERS));
	seq_printf(m, "pages %llu\n", sim->pages.count);
	/* the NIC of a cabled port (port.c, steer.c) */
	if (sim->port.cabled) {
		seq_printf(m, "sq %lu\n", sim_xa_count(&sim->port.sqs));
		seq_printf(m, "rq %lu\n", sim_xa_count(&sim->port.rqs));
		seq_printf(m, "tis %lu\n", sim_xa_count(&sim->steer.tises));
		seq_printf(m, "tir %lu\n", sim_xa_count(&sim->steer.tirs));
		seq_printf(m, "flow_table %lu\n",
			   sim_xa_count(&sim->steer.fts));
	}
	mutex_unlock(&sim->fw_lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(sim_objects);

/* Counts against the device's limits (limits.c): KIND held N refused N */
static int sim_limits_show(struct seq_file *m, void *v)
{
	struct mlx5sp_sim *sim = m->private;
	int k;

	mutex_lock(&sim->fw_lock);
	for (k = 0; k < SIM_NR_LIMS; k++)
		seq_printf(m, "%s held %u refused %llu\n", sim_lim_name(k),
			   sim->lim.held[k], sim->lim.refused[k]);
	mutex_unlock(&sim->fw_lock);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(sim_limits);

static int sim_fail_nth_next_get(void *data, u64 *val)
{
	*val = atomic_read(&sim_fail_nth_next);
	return 0;
}

static int sim_fail_nth_next_set(void *data, u64 val)
{
	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&sim_fail_nth_next, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(sim_fail_nth_next_fops, sim_fail_nth_next_get,
			 sim_fail_nth_next_set, "%llu\n");

/* A new device takes fail_nth_next: it counts from its first command. */
u32 sim_debugfs_take_fail_nth(void)
{
	return atomic_xchg(&sim_fail_nth_next, 0);
}

/* The physical port of a cabled device: state and counters (port.c) */
static int sim_port_file_show(struct seq_file *m, void *unused)
{
	sim_port_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_port_file);

/* RoCEv2 counters of the device (net.c) */
static int sim_wire_show(struct seq_file *m, void *unused)
{
	sim_net_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_wire);

void sim_debugfs_add(struct mlx5sp_sim *sim)
{
	struct dentry *d;

	d = debugfs_create_dir(sim->name, sim_dbg_root);
	sim->dbg = d;
	debugfs_create_u8("sig_runon", 0600, d, &sim->knobs.sig_runon);
	debugfs_create_u32("ack_delay_us", 0600, d, &sim->knobs.ack_delay_us);
	debugfs_create_bool("poll_kernel", 0600, d, &sim->knobs.poll_kernel);
	debugfs_create_bool("uar_trap", 0600, d, &sim->knobs.uar_trap);
	debugfs_create_bool("inline", 0600, d, &sim->knobs.run_inline);
	debugfs_create_bool("uar_store", 0600, d, &sim->knobs.uar_store);
	debugfs_create_u32("touch_delay_us", 0600, d, &sim->knobs.touch_delay_us);
	debugfs_create_bool("wire_peers", 0600, d, &sim->knobs.wire_peers);
	debugfs_create_bool("ecn_np", 0600, d, &sim->knobs.ecn_np);
	debugfs_create_bool("ecn_rp", 0600, d, &sim->knobs.ecn_rp);
	debugfs_create_file("wire", 0400, d, sim, &sim_wire_fops);
	debugfs_create_file("port", 0400, d, sim, &sim_port_file_fops);
	debugfs_create_file_unsafe("fail_opcode", 0600, d, sim,
				   &sim_fail_opcode_fops);
	debugfs_create_file_unsafe("fail_status", 0600, d, sim,
				   &sim_fail_status_fops);
	debugfs_create_file_unsafe("fail_syndrome", 0600, d, sim,
				   &sim_fail_syndrome_fops);
	debugfs_create_file_unsafe("fail_count", 0600, d, sim,
				   &sim_fail_count_fops);
	debugfs_create_file_unsafe("fail_nth", 0600, d, sim,
				   &sim_fail_nth_fops);
	debugfs_create_file_unsafe("delay_opcode", 0600, d, sim,
				   &sim_delay_opcode_fops);
	debugfs_create_file_unsafe("delay_ms", 0600, d, sim,
				   &sim_delay_ms_fops);
	debugfs_create_file_unsafe("delay_count", 0600, d, sim,
				   &sim_delay_count_fops);
	debugfs_create_file_unsafe("garble_opcode", 0600, d, sim,
				   &sim_garble_opcode_fops);
	debugfs_create_file_unsafe("garble_nth", 0600, d, sim,
				   &sim_garble_nth_fops);
	debugfs_create_file_unsafe("garble_seed", 0600, d, sim,
				   &sim_garble_seed_fops);
	debugfs_create_file_unsafe("health_syndrome", 0600, d, sim,
				   &sim_health_syndrome_fops);
	debugfs_create_file_unsafe("health_counter_stop", 0600, d, sim,
				   &sim_health_stop_fops);
	debugfs_create_file("page_storm", 0200, d, sim, &sim_page_storm_fops);
	debugfs_create_file("hostile_cqes", 0200, d, sim,
			    &sim_hostile_cqes_fops);
	debugfs_create_file("hostile_eqes", 0200, d, sim,
			    &sim_hostile_eqes_fops);
	debugfs_create_file_unsafe("stale_cqes", 0600, d, sim,
				   &sim_stale_cqes_fops);
	debugfs_create_file_unsafe("stale_eqes", 0600, d, sim,
				   &sim_stale_eqes_fops);
	debugfs_create_file("stats", 0400, d, sim, &sim_stats_fops);
	debugfs_create_file("objects", 0400, d, sim, &sim_objects_fops);
	debugfs_create_file("limits", 0400, d, sim, &sim_limits_fops);
	sim_sig_debugfs_add(sim, d);
}

void sim_debugfs_del(struct mlx5sp_sim *sim)
{
	debugfs_remove_recursive(sim->dbg);
	sim->dbg = NULL;
}

static int sim_parse_option(struct mlx5sp_sim_params *p, char *opt)
{
	char *key = strsep(&opt, "=");
	u32 val;
	int err;

	if (!opt)
		return -EINVAL;
	err = kstrtou32(opt, 0, &val);
	if (err)
		return err;

	if (!strcmp(key, "boot_pages"))
		p->boot_pages = val;
	else if (!strcmp(key, "init_pages"))
		p->init_pages = val;
	else if (!strcmp(key, "log_cmdq_size") && val <= U8_MAX)
		p->log_cmdq_size = val;
	else if (!strcmp(key, "num_vectors") && val <= U16_MAX)
		p->num_vectors = val;
	else if (!strcmp(key, "boot_delay_ms"))
		p->boot_delay_ms = val;
	else if (!strcmp(key, "missing_caps"))
		p->missing_caps = val;
	else if (!strcmp(key, "port_ib") && val <= 1)
		p->port_ib = val;
	else if (!strcmp(key, "log_max_qp") && val <= U8_MAX)
		p->log_max_qp = val;
	else if (!strcmp(key, "log_max_cq") && val <= U8_MAX)
		p->log_max_cq = val;
	else if (!strcmp(key, "log_max_mkey") && val <= U8_MAX)
		p->log_max_mkey = val;
	else if (!strcmp(key, "log_max_pd") && val <= U8_MAX)
		p->log_max_pd = val;
	else if (!strcmp(key, "log_max_srq") && val <= U8_MAX)
		p->log_max_srq = val;
	else
		return -EINVAL;
	return 0;
}

/* The cable a "cable=" names, held: -errno said once when it will not do. */
static struct net_device *sim_ctl_cable(const char *ifname)
{
	struct net_device *nd;
	int err;

	nd = dev_get_by_name(&init_net, ifname);
	if (!nd) {
		pr_err("%s: cable=%s: no such netdev\n", SIM_DRV_NAME, ifname);
		return ERR_PTR(-ENODEV);
	}
	err = sim_cable_check(nd);
	if (err) {
		dev_put(nd);
		return ERR_PTR(err);
	}
	return nd;
}

static int sim_ctl_add(char *line)
{
	struct net_device *ndev = NULL, *cable = NULL;
	char *name, *opt, *ifname = NULL, *cname = NULL;
	struct mlx5sp_sim_params p;
	struct mlx5sp_sim *sim;
	int err;

	mlx5sp_sim_default_params(&p);
	line = strim(line);
	name = strsep(&line, " \t");
	while ((opt = strsep(&line, " \t"))) {
		if (!*opt)
			continue;
		if (str_has_prefix(opt, "netdev=")) {
			ifname = opt + strlen("netdev=");
			continue;
		}
		if (str_has_prefix(opt, "cable=")) {
			cname = opt + strlen("cable=");
			continue;
		}
		err = sim_parse_option(&p, opt);
		if (err)
			return err;
	}
	if (ifname && cname) {
		pr_err("%s: netdev= and cable= exclude each other\n",
		       SIM_DRV_NAME);
		return -EINVAL;
	}
	if (cname) {
		if (!*cname || p.port_ib) {
			pr_err("%s: cable= needs an IFNAME and an Ethernet port\n",
			       SIM_DRV_NAME);
			return -EINVAL;
		}
		cable = sim_ctl_cable(cname);
		if (IS_ERR(cable))
			return PTR_ERR(cable);
	}
	/* a RoCE port on that netdev, as "rdma link add" gives */
	if (ifname) {
		ndev = dev_get_by_name(&init_net, ifname);
		if (!ndev)
			return -ENODEV;
	}

	mutex_lock(&sim_ctl_lock);
	sim = sim_create(name, &p, true, ndev, cable);
	if (IS_ERR(sim)) {
		err = PTR_ERR(sim);
		goto unlock;
	}
	err = mlx5sp_sim_attach(sim);
	if (err) {
		pr_err("%s: driver attach failed: %d\n", sim->name, err);
		mlx5sp_sim_destroy(sim);
	}
unlock:
	mutex_unlock(&sim_ctl_lock);
	/* the device holds its own references */
	if (ndev)
		dev_put(ndev);
	if (cable)
		dev_put(cable);
	return err;
}

static ssize_t sim_ctl_add_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char *buf;
	int err;

	buf = sim_read_line(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	err = sim_ctl_add(buf);
	kfree(buf);
	return err ? err : count;
}

static ssize_t sim_ctl_del_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char *buf;
	int err;

	buf = sim_read_line(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&sim_ctl_lock);
	err = sim_destroy_by_name(strim(buf));
	mutex_unlock(&sim_ctl_lock);
	kfree(buf);
	return err ? err : count;
}

static const struct file_operations sim_ctl_add_fops = {
	.owner = THIS_MODULE,
	.write = sim_ctl_add_write,
	.llseek = noop_llseek,
};

static const struct file_operations sim_ctl_del_fops = {
	.owner = THIS_MODULE,
	.write = sim_ctl_del_write,
	.llseek = noop_llseek,
};

int sim_debugfs_init(void)
{
	sim_dbg_root = debugfs_create_dir(SIM_DRV_NAME, NULL);
	sim_dbg_add = debugfs_create_file("add", 0200, sim_dbg_root, NULL,
					  &sim_ctl_add_fops);
	sim_dbg_del = debugfs_create_file("del", 0200, sim_dbg_root, NULL,
					  &sim_ctl_del_fops);
	sim_dbg_fail_nth_next =
		debugfs_create_file_unsafe("fail_nth_next", 0600, sim_dbg_root,
					   NULL, &sim_fail_nth_next_fops);
	return 0;
}

void sim_debugfs_ctl_exit(void)
{
	debugfs_remove(sim_dbg_add);
	debugfs_remove(sim_dbg_del);
	debugfs_remove(sim_dbg_fail_nth_next);
}

void sim_debugfs_exit(void)
{
	debugfs_remove_recursive(sim_dbg_root);
}
