// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * BAR0 of the software ConnectX: the initialization segment (command
 * queue address, doorbell, initializing flag, health buffer and counter)
 * and the UAR pages. Reads and writes come in any context: nothing here
 * sleeps, and anything that needs the firmware is queued to its worker.
 */

#include <kunit/visibility.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>

#include "bar.h"
#include "cq.h"
#include "dma.h"
#include "engine.h"
#include "eq.h"
#include "mlx5sp_model.h"
#include "mlx5sp_prm.h"
#include "qp.h"
#include "sim.h"

#define SIM_ISEG_OFF(fld)	offsetof(struct mlx5_init_seg, fld)
#define SIM_INITIALIZING	BIT(31)

static __be32 *sim_iseg_word(struct mlx5sp_sim *sim, u32 offset)
{
	return (__be32 *)sim->bar.iseg + offset / sizeof(__be32);
}

static void sim_iseg_set(struct mlx5sp_sim *sim, u32 offset, u32 val)
{
	WRITE_ONCE(*sim_iseg_word(sim, offset), cpu_to_be32(val));
}

static u32 sim_cmdq_l_sz_low(struct mlx5sp_sim *sim)
{
	return (sim->log_cmdq_size << 4) | SIM_LOG_CMDQ_STRIDE;
}

void sim_bar_init(struct mlx5sp_sim *sim)
{
	sim_iseg_set(sim, SIM_ISEG_OFF(fw_rev),
		     SIM_FW_MINOR << 16 | SIM_FW_MAJOR);
	sim_iseg_set(sim, SIM_ISEG_OFF(cmdif_rev_fw_sub),
		     SIM_CMDIF_REV << 16 | SIM_FW_SUBMINOR);
	sim_iseg_set(sim, SIM_ISEG_OFF(cmdq_addr_l_sz), sim_cmdq_l_sz_low(sim));
	sim_iseg_set(sim, SIM_ISEG_OFF(initializing), SIM_INITIALIZING);
	sim->bar.boot_done = ktime_add_ms(ktime_get(), sim->params.boot_delay_ms);
	sim->health.base = 0;
	sim->health.t0_ns = ktime_get_ns();
	sim->health.frozen = false;
}

static u32 sim_read_initializing(struct mlx5sp_sim *sim)
{
	u32 val = be32_to_cpu(READ_ONCE(sim->bar.iseg->initializing));

	/* set from creation until the boot delay has passed, clear after */
	if ((val & SIM_INITIALIZING) &&
	    !ktime_before(ktime_get(), sim->bar.boot_done)) {
		val &= ~SIM_INITIALIZING;
		sim_iseg_set(sim, SIM_ISEG_OFF(initializing), val);
	}
	return val;
}

u32 sim_read32(struct mlx5sp_model_dev *mdev, u32 offset)
{
	struct mlx5sp_sim *sim = to_sim(mdev);
	struct timespec64 ts;

	if (!IS_ALIGNED(offset, 4) || offset >= SIM_BAR_SIZE)
		return U32_MAX;
	if (offset >= sizeof(*sim->bar.iseg))
		return 0;

	switch (offset) {
	case SIM_ISEG_OFF(initializing):
		return sim_read_initializing(sim);
	case SIM_ISEG_OFF(health_counter):
		return sim_health_counter(sim);
	case SIM_ISEG_OFF(internal_timer_h):
		return upper_32_bits(ktime_get_ns());
	case SIM_ISEG_OFF(internal_timer_l):
		return lower_32_bits(ktime_get_ns());
	case SIM_ISEG_OFF(real_time_h):
		ktime_get_real_ts64(&ts);
		return lower_32_bits(ts.tv_sec);
	case SIM_ISEG_OFF(real_time_l):
		ktime_get_real_ts64(&ts);
		return ts.tv_nsec;
	default:
		return be32_to_cpu(READ_ONCE(*sim_iseg_word(sim, offset)));
	}
}

static void sim_write_ignored(struct mlx5sp_sim *sim, u32 offset, u32 val)
{
	sim_stat_inc(sim, writes_ignored);
	sim_dbg(sim, "BAR write 0x%x = 0x%x ignored\n", offset, val);
}

/*
 * The driver turned the NIC interface off (it gave up on the device, as
 * mlx5_core does before it frees what the device had): from here the
 * device does nothing, as a dead one, and the interface reads disabled
 * once nothing of it can still write to host memory: the engine looks
 * at the flag inside each of its RCU sections (a grace period), commands
 * under fw_lock and EQE writers under eq_lock.
 */
void sim_nic_off_work(struct work_struct *work)
{
	struct mlx5sp_sim *sim = container_of(work, struct mlx5sp_sim,
					      health.nic_off_work);
	unsigned long flags;
	u32 v;

	synchronize_rcu();
	mutex_lock(&sim->fw_lock);
	mutex_unlock(&sim->fw_lock);
	spin_lock_irqsave(&sim->eq_lock, flags);
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	spin_lock_irqsave(&sim->bar.reg_lock, flags);
	v = be32_to_cpu(READ_ONCE(*sim_iseg_word(sim,
						 SIM_ISEG_OFF(cmdq_addr_l_sz))));
	v &= ~(7U << MLX5_NIC_IFC_OFFSET);
	sim_iseg_set(sim, SIM_ISEG_OFF(cmdq_addr_l_sz),
		     v | MLX5SP_NIC_IFC_DISABLED << MLX5_NIC_IFC_OFFSET);
	spin_unlock_irqrestore(&sim->bar.reg_lock, flags);
}

/* The low 12 bits of what the driver writes are the firmware's. */
static void sim_set_cmdq(struct mlx5sp_sim *sim, u32 val)
{
	u32 size = BIT(sim->log_cmdq_size + SIM_LOG_CMDQ_STRIDE);
	unsigned long flags;
	u64 base;

	if (((val >> MLX5_NIC_IFC_OFFSET) & 7) == MLX5SP_NIC_IFC_DISABLED) {
		if (!atomic_xchg(&sim->health.nic_disabled, 1)) {
			sim_err(sim, "NIC interface turned off by the driver\n");
			queue_work(sim->wq, &sim->health.nic_off_work);
		}
		return;
	}
	spin_lock_irqsave(&sim->bar.reg_lock, flags);
	base = (u64)sim->bar.cmdq_addr_h << 32 | (val & ~0xfffU);
	if (!sim_dma_ram(sim, base, size, SZ_4K)) {
		spin_unlock_irqrestore(&sim->bar.reg_lock, flags);
		sim_stat_inc(sim, writes_ignored);
		sim_err(sim, "command queue address 0x%llx is not usable memory\n",
			base);
		return;
	}
	sim->bar.cmdq_base = base;
	sim_iseg_set(sim, SIM_ISEG_OFF(cmdq_addr_l_sz),
		     (val & ~0xfffU) | sim_cmdq_l_sz_low(sim));
	spin_unlock_irqrestore(&sim->bar.reg_lock, flags);
}

static void sim_set_cmdq_h(struct mlx5sp_sim *sim, u32 val)
{
	unsigned long flags;

	spin_lock_irqsave(&sim->bar.reg_lock, flags);
	sim->bar.cmdq_addr_h = val;
	sim_iseg_set(sim, SIM_ISEG_OFF(cmdq_addr_h), val);
	spin_unlock_irqrestore(&sim->bar.reg_lock, flags);
}

static void sim_ring(struct mlx5sp_sim *sim, u32 val)
{
	u32 slots = GENMASK(BIT(sim->log_cmdq_size) - 1, 0);

	if (val & ~slots) {
		sim_stat_inc(sim, doorbells_ignored);
		sim_err(sim, "doorbell 0x%x rings slots beyond the queue\n",
			val);
	}
	val &= slots;
	if (!val || atomic_read(&sim->stopping))
		return;
	atomic_long_or(val, &sim->bar.db_pending);
	queue_work(sim->wq, &sim->cmd_work);
}

static void sim_uar_write(struct mlx5sp_sim *sim, u32 offset, u32 val)
{
	u32 uar = offset / SZ_4K;
	u32 idx = uar - SIM_UAR_FIRST;

	if (idx >= sim->nr_uars || !test_bit(idx, sim->uar_map)) {
		sim_write_ignored(sim, offset, val);
		return;
	}
	switch (offset % SZ_4K) {
	case MLX5SP_UAR_EQ_DB_ARM:
		sim_eq_doorbell(sim, uar, val, true);
		break;
	case MLX5SP_UAR_EQ_DB_NOARM:
		sim_eq_doorbell(sim, uar, val, false);
		break;
	case MLX5SP_UAR_BF_OFFSET ...
	     MLX5SP_UAR_BF_OFFSET + 2 * MLX5SP_UAR_BF_SIZE - 1:
		/* a send doorbell: the engine reads the doorbell record */
		sim_engine_kick(sim);
		break;
	default:
		sim_write_ignored(sim, offset, val);
		break;
	}
}

/*
 * 64-bit doorbells: the CQ arm (kept with its CQ for the engine to take,
 * cq.c) and send doorbells.
 */
void sim_write64(struct mlx5sp_model_dev *mdev, u32 offset, u64 val)
{
	struct mlx5sp_sim *sim = to_sim(mdev);
	u32 uar = offset / SZ_4K;

	if (!IS_ALIGNED(offset, 8) || offset >= SIM_BAR_SIZE ||
	    uar < SIM_UAR_FIRST || !sim_uar_allocated(sim, uar)) {
		sim_write_ignored(sim, offset, lower_32_bits(val));
		return;
	}
	switch (offset % SZ_4K) {
	case MLX5SP_UAR_CQ_DB:
		sim_cq_doorbell(sim, uar, val);
		break;
	case MLX5SP_UAR_BF_OFFSET ...
	     MLX5SP_UAR_BF_OFFSET + 2 * MLX5SP_UAR_BF_SIZE - 1:
		sim_engine_kick(sim);
		break;
	default:
		sim_write_ignored(sim, offset, lower_32_bits(val));
		break;
	}
}

/*
 * A process touched a UAR page since the engine had the mappings trapped:
 * a doorbell, as a rule (a card sees the write itself). The engine runs
 * a pass and watches the pages again once the store has landed (one
 * trapped before would fault again): the driver tells us before it maps
 * the page, so a mark put where the store goes is overwritten by it
 * (sim_uar_store_landed()). In a page fault: nothing here sleeps but
 * debugfs touch_delay_us (at most 20 ms), a fault slow to map the page.
 */
void sim_uar_touch(struct mlx5sp_model_dev *mdev, u32 index, u32 offset)
{
	struct mlx5sp_sim *sim = to_sim(mdev);
	u32 delay = READ_ONCE(sim->knobs.touch_delay_us);
	struct page *page;

	atomic64_inc(&sim->estats.uar_touches);
	if (offset != MLX5SP_UAR_TOUCH_READ) {
		offset = min_t(u32, ALIGN_DOWN(offset, 8), PAGE_SIZE - 8);
		rcu_read_lock();
		page = xa_load(&sim->uar_pages, index);
		if (page)
			WRITE_ONCE(*(u64 *)(page_address(page) + offset),
				   SIM_UAR_UNWRITTEN);
		rcu_read_unlock();
	}
	WRITE_ONCE(sim->engine.touch_uar, index);
	WRITE_ONCE(sim->engine.touch_off, offset);
	/* the engine reads the two after its exchange of this */
	atomic_set_release(&sim->engine.uar_touched, 1);
	sim_engine_kick(sim);
	if (delay)
		fsleep(min_t(u32, delay, 20 * USEC_PER_MSEC));
}

/*
 * A process's store to UAR page @index, executed for it by the driver in
 * its page fault (the page stays unmapped: the next store faults too):
 * what a card's BAR sees. The value lands in the page, as a mapped store
 * would (the engine takes a CQ doorbell from there); a send doorbell runs
 * the QP it names at once, in the process (sim_sq_doorbell()), or kicks
 * the engine. In a page fault, the mmap or vma lock held: nothing here
 * sleeps. False for what the model does not take (the driver maps the
 * page then, as for sim_uar_touch()).
 */
bool sim_uar_store(struct mlx5sp_model_dev *mdev, u32 index, u32 offset,
		   u64 val, unsigned int size)
{
	struct mlx5sp_sim *sim = to_sim(mdev);
	struct page *page;
	bool ran = false;
	void *p;

	if (!READ_ONCE(sim->knobs.uar_store) || (size != 4 && size != 8) ||
	    !IS_ALIGNED(offset, size) || offset > PAGE_SIZE - size)
		return false;
	rcu_read_lock();
	page = xa_load(&sim->uar_pages, index);
	if (!page) {
		rcu_read_unlock();
		return false;
	}
	p = page_address(page) + offset;
	if (size == 8)
		WRITE_ONCE(*(u64 *)p, val);
	else
		WRITE_ONCE(*(u32 *)p, (u32)val);
	atomic64_inc(&sim->estats.uar_stores);
	if (size == 8 && offset >= MLX5SP_UAR_BF_OFFSET &&
	    offset < MLX5SP_UAR_BF_OFFSET + 2 * MLX5SP_UAR_BF_SIZE)
		ran = sim_sq_doorbell(sim, index, val);
	rcu_read_unlock();
	if (!ran)
		sim_engine_kick(sim);
	return true;
}

/*
 * Has the store that faulted on @index at @offset landed? A read or a
 * page gone: nothing to wait for. Under rcu_read_lock().
 */
bool sim_uar_store_landed(struct mlx5sp_sim *sim, u32 index, u32 offset)
{
	struct page *page;

	if (offset == MLX5SP_UAR_TOUCH_READ)
		return true;
	page = xa_load(&sim->uar_pages, index);
	return !page || READ_ONCE(*(u64 *)(page_address(page) + offset)) !=
			SIM_UAR_UNWRITTEN;
}
EXPORT_SYMBOL_IF_KUNIT(sim_uar_store_landed);

/*
 * The page behind UAR @index while it is allocated, asked for by the
 * driver to map it into user space: from here on the engine watches what
 * uses the UAR (engine.c): it polls, or has the driver trap the next user
 * access (mlx5sp_model_uar_trap(), sim_uar_touch()). The mark goes with
 * the entry (DEALLOC_UAR, sim_release_objects).
 */
struct page *sim_uar_page(struct mlx5sp_model_dev *mdev, u32 index)
{
	struct mlx5sp_sim *sim = to_sim(mdev);
	struct page *page;

	xa_lock(&sim->uar_pages);
	page = xa_load(&sim->uar_pages, index);
	if (page)
		__xa_set_mark(&sim->uar_pages, index, SIM_UAR_MAPPED);
	xa_unlock(&sim->uar_pages);
	return page;
}

void sim_write32(struct mlx5sp_model_dev *mdev, u32 offset, u32 val)
{
	struct mlx5sp_sim *sim = to_sim(mdev);

	if (!IS_ALIGNED(offset, 4) || offset >= SIM_BAR_SIZE) {
		sim_write_ignored(sim, offset, val);
		return;
	}
	if (offset >= SIM_UAR_FIRST * SZ_4K) {
		sim_uar_write(sim, offset, val);
		return;
	}

	switch (offset) {
	case SIM_ISEG_OFF(cmdq_addr_h):
		sim_set_cmdq_h(sim, val);
		break;
	case SIM_ISEG_OFF(cmdq_addr_l_sz):
		sim_set_cmdq(sim, val);
		break;
	case SIM_ISEG_OFF(cmd_dbell):
		sim_ring(sim, val);
		break;
	default:
		sim_write_ignored(sim, offset, val);
		break;
	}
}

/*
 * A healthy firmware advances the counter every SIM_HEALTH_PERIOD_MS; a
 * fatal, disabled or (by a test) stopped one leaves it where it was. The
 * change is seen at the next read: a counter that freezes moves once more
 * at most, and one that runs again starts from where it stood.
 */
u32 sim_health_counter(struct mlx5sp_sim *sim)
{
	struct sim_health *h = &sim->health;
	bool freeze = sim_is_fatal(sim) || atomic_read(&h->stopped);
	u64 now = ktime_get_ns();
	unsigned long flags;
	u32 val, rem;

	spin_lock_irqsave(&h->counter_lock, flags);
	if (!h->frozen) {
		/* whole periods counted; t0 keeps the part of one */
		h->base += (u32)div_u64_rem(now - h->t0_ns,
					    SIM_HEALTH_PERIOD_MS * NSEC_PER_MSEC,
					    &rem);
		h->t0_ns = now - rem;
	} else if (!freeze) {
		h->t0_ns = now;
	}
	h->frozen = freeze;
	val = h->base;
	spin_unlock_irqrestore(&h->counter_lock, flags);
	return val;
}

/* Fill the health buffer the way an asserting firmware leaves it. */
void sim_health_set_fatal(struct mlx5sp_sim *sim, u8 synd)
{
	struct health_buffer *h = &sim->bar.iseg->health;
	int i;

	if (!synd || atomic_read(&sim->health.fatal))
		return;

	for (i = 0; i < ARRAY_SIZE(h->assert_var); i++)
		WRITE_ONCE(h->assert_var[i], cpu_to_be32(0x5b000000 | i));
	WRITE_ONCE(h->assert_exit_ptr, cpu_to_be32(0x00512400));
	WRITE_ONCE(h->assert_callra, cpu_to_be32(0x00512468));
	WRITE_ONCE(h->time, cpu_to_be32(lower_32_bits(ktime_get_seconds())));
	WRITE_ONCE(h->fw_ver, cpu_to_be32(SIM_FW_MAJOR << 24 |
					  SIM_FW_MINOR << 16 |
					  SIM_FW_SUBMINOR));
	WRITE_ONCE(h->hw_id, cpu_to_be32(SIM_DEVICE_ID));
	WRITE_ONCE(h->rfr_severity, 0x02);
	WRITE_ONCE(h->irisc_index, 0);
	WRITE_ONCE(h->ext_synd, cpu_to_be16(synd));
	/* the syndrome last: the driver's health poll keys on it */
	wmb();
	WRITE_ONCE(h->synd, synd);
	atomic_set(&sim->health.fatal, 1);
	sim_err(sim, "health syndrome 0x%x: firmware is fatal\n", synd);
}
