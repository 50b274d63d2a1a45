// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event queues of the software ConnectX: CREATE/DESTROY/QUERY_EQ, the EQ
 * doorbells in UAR pages and the EQE writer. The table and each EQ's
 * counters are under eq_lock (any context); creation and destruction also
 * hold fw_lock. Interrupts are raised after eq_lock is dropped.
 */

#include <linux/slab.h>

#include "dma.h"
#include "eq.h"
#include "host.h"
#include "mlx5sp_prm.h"
#include "pages.h"
#include "sim.h"
#include "syndromes.h"

#define SIM_EQE_SIZE		sizeof(struct mlx5_eqe)
#define SIM_EQ_PAGE_SHIFT	12	/* PRM pages: 4 KiB << log_page_size */
#define SIM_EQ_MAX_LOG_PAGE	18	/* 1 GiB buffer pages */
#define SIM_CI_MASK		0xffffff

static u8 sim_eq_page_shift(const struct sim_eq *eq)
{
	return SIM_EQ_PAGE_SHIFT + eq->log_page_size;
}

static bool sim_eq_has_event(const struct sim_eq *eq, u8 type)
{
	return eq->mask[type / 64] & BIT_ULL(type % 64);
}

static void sim_eq_free(struct sim_eq *eq)
{
	if (!eq)
		return;
	kvfree(eq->pas);
	kfree(eq);
}

bool sim_eq_uses_uar(struct mlx5sp_sim *sim, u32 uar)
{
	unsigned long flags;
	bool used = false;
	int i;

	spin_lock_irqsave(&sim->eq_lock, flags);
	for (i = 0; i < SIM_MAX_EQS && !used; i++)
		used = sim->eqs[i] && sim->eqs[i]->uar == uar;
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	return used;
}

/* The lowest-numbered EQ subscribed to @type; SIM_MAX_EQS if none. */
static u32 sim_eq_for_type_locked(struct mlx5sp_sim *sim, u8 type)
{
	u32 i;

	lockdep_assert_held(&sim->eq_lock);
	for (i = 0; i < SIM_MAX_EQS; i++)
		if (sim->eqs[i] && sim_eq_has_event(sim->eqs[i], type))
			break;
	return i;
}

static u32 sim_eq_for_type(struct mlx5sp_sim *sim, u8 type)
{
	unsigned long flags;
	u32 eqn;

	spin_lock_irqsave(&sim->eq_lock, flags);
	eqn = sim_eq_for_type_locked(sim, type);
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	return eqn;
}

bool sim_eq_subscribed(struct mlx5sp_sim *sim, u8 type)
{
	return sim_eq_for_type(sim, type) < SIM_MAX_EQS;
}

/* Every 4 KiB page of the buffer the EQ will use must be usable memory. */
static int sim_eq_read_pas(struct sim_cmd *c, struct sim_eq *eq)
{
	const __be64 *pas = MLX5_ADDR_OF(create_eq_in, c->in, pas);
	u64 page_size = BIT_ULL(sim_eq_page_shift(eq));
	u64 bytes = (u64)eq->nent * SIM_EQE_SIZE;
	u64 off, len;
	u32 i;

	for (i = 0; i < eq->npas; i++) {
		eq->pas[i] = be64_to_cpu(pas[i]);
		if (!IS_ALIGNED(eq->pas[i], page_size))
			return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
					MLX5SP_SIM_SYND_EQ_BAD_PA);
		len = min(page_size, bytes - (u64)i * page_size);
		for (off = 0; off < len; off += SZ_4K)
			if (!sim_dma_ptr(c->sim, eq->pas[i] + off,
					 min_t(u64, SZ_4K, len - off), SZ_4K))
				return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
						MLX5SP_SIM_SYND_EQ_BAD_PA);
	}
	return 0;
}

static int sim_eq_parse(struct sim_cmd *c, struct sim_eq *eq)
{
	void *eqc = MLX5_ADDR_OF(create_eq_in, c->in, eq_context_entry);
	struct mlx5sp_sim *sim = c->sim;
	u64 bytes, need;
	u32 st;
	int i;

	eq->log_size = MLX5_GET(eqc, eqc, log_eq_size);
	eq->uar = MLX5_GET(eqc, eqc, uar_page);
	eq->intr = MLX5_GET(eqc, eqc, intr);
	eq->log_page_size = MLX5_GET(eqc, eqc, log_page_size);
	st = MLX5_GET(eqc, eqc, st);

	if (eq->log_size > SIM_CAP_GEN(sim, log_max_eq_sz))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_EQ_BAD_LOG_SIZE);
	if (!sim_uar_allocated(sim, eq->uar))
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_EQ_BAD_UAR);
	if (eq->intr >= sim->params.num_vectors)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_EQ_BAD_INTR);
	if (eq->log_page_size > SIM_EQ_MAX_LOG_PAGE)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_EQ_BAD_LOG_PAGE_SIZE);
	if (MLX5_GET(eqc, eqc, page_offset))
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_EQ_BAD_PAGE_OFFSET);
	if (st && st != MLX5_EQC_ST_ARMED)
		return sim_fail(c, MLX5_CMD_STAT_BAD_PARAM_ERR,
				MLX5SP_SIM_SYND_EQ_BAD_ST);
	eq->armed = st == MLX5_EQC_ST_ARMED;

	eq->nent = BIT(eq->log_size);
	bytes = (u64)eq->nent * SIM_EQE_SIZE;
	eq->npas = DIV_ROUND_UP_ULL(bytes, BIT_ULL(sim_eq_page_shift(eq)));
	need = MLX5_ST_SZ_BYTES(create_eq_in) + (u64)eq->npas * sizeof(u64);
	if (c->inlen < need)
		return sim_fail(c, MLX5_CMD_STAT_BAD_INP_LEN_ERR,
				MLX5SP_SIM_SYND_EQ_PAS_INLEN);

	for (i = 0; i < ARRAY_SIZE(eq->mask); i++)
		eq->mask[i] = MLX5_GET64(create_eq_in, c->in, event_bitmask[i]);
	return 0;
}

static int sim_eq_free_eqn(struct mlx5sp_sim *sim)
{
	int max = min_t(int, SIM_MAX_EQS, SIM_CAP_GEN(sim, max_num_eqs));
	int i;

	/* only command context changes the table, under fw_lock */
	for (i = 0; i < max; i++)
		if (!sim->eqs[i])
			return i;
	return -1;
}

int sim_cmd_create_eq(struct sim_cmd *c)
{
	struct mlx5sp_sim *sim = c->sim;
	unsigned long flags;
	struct sim_eq *eq;
	int eqn, err;

	eqn = sim_eq_free_eqn(sim);
	if (eqn < 0)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_EQ_EXHAUSTED);

	eq = kzalloc(sizeof(*eq), GFP_KERNEL);
	if (!eq)
		return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
				MLX5SP_SIM_SYND_NO_MEMORY);
	eq->eqn = eqn;
	err = sim_eq_parse(c, eq);
	if (err)
		goto err_free_eq;

	eq->pas = kvmalloc_array(eq->npas, sizeof(*eq->pas), GFP_KERNEL);
	if (!eq->pas) {
		err = sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR,
			       MLX5SP_SIM_SYND_NO_MEMORY);
		goto err_free_eq;
	}
	err = sim_eq_read_pas(c, eq);
	if (err)
		goto err_free_eq;

	spin_lock_irqsave(&sim->eq_lock, flags);
	sim->eqs[eqn] = eq;
	spin_unlock_irqrestore(&sim->eq_lock, flags);

	MLX5_SET(create_eq_out, c->out, eq_number, eqn);
	sim_dbg(sim, "EQ %d: %u entries, vector %u, uar %u\n", eqn, eq->nent,
		eq->intr, eq->uar);

	/* pages wanted before the EQ existed: ask for them now */
	if (sim_eq_has_event(eq, MLX5_EVENT_TYPE_PAGE_REQUEST))
		sim_pages_request_outstanding(sim);
	return 0;

err_free_eq:
	sim_eq_free(eq);
	return err;
}

static struct sim_eq *sim_eq_take(struct mlx5sp_sim *sim, u32 eqn)
{
	unsigned long flags;
	struct sim_eq *eq = NULL;

	spin_lock_irqsave(&sim->eq_lock, flags);
	if (eqn < SIM_MAX_EQS) {
		eq = sim->eqs[eqn];
		sim->eqs[eqn] = NULL;
	}
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	return eq;
}

int sim_cmd_destroy_eq(struct sim_cmd *c)
{
	struct sim_eq *eq;

	eq = sim_eq_take(c->sim, MLX5_GET(destroy_eq_in, c->in, eq_number));
	if (!eq)
		return sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
				MLX5SP_SIM_SYND_EQ_NOT_FOUND);
	sim_eq_free(eq);
	return 0;
}

void sim_eq_destroy_all(struct mlx5sp_sim *sim)
{
	int i;

	for (i = 0; i < SIM_MAX_EQS; i++)
		sim_eq_free(sim_eq_take(sim, i));
}

int sim_cmd_query_eq(struct sim_cmd *c)
{
	void *eqc = MLX5_ADDR_OF(query_eq_out, c->out, eq_context_entry);
	u32 eqn = MLX5_GET(query_eq_in, c->in, eq_number);
	struct mlx5sp_sim *sim = c->sim;
	unsigned long flags;
	struct sim_eq *eq;
	int err = 0;

	spin_lock_irqsave(&sim->eq_lock, flags);
	eq = eqn < SIM_MAX_EQS ? sim->eqs[eqn] : NULL;
	if (!eq) {
		err = sim_fail(c, MLX5_CMD_STAT_BAD_RES_ERR,
			       MLX5SP_SIM_SYND_EQ_NOT_FOUND);
		goto unlock;
	}
	MLX5_SET(eqc, eqc, st, eq->armed ? MLX5_EQC_ST_ARMED :
					   MLX5_EQC_ST_FIRED);
	MLX5_SET(eqc, eqc, log_eq_size, eq->log_size);
	MLX5_SET(eqc, eqc, uar_page, eq->uar);
	MLX5_SET(eqc, eqc, intr, eq->intr);
	MLX5_SET(eqc, eqc, log_page_size, eq->log_page_size);
	MLX5_SET(eqc, eqc, consumer_counter, eq->ci & SIM_CI_MASK);
	MLX5_SET(eqc, eqc, producer_counter, eq->pi & SIM_CI_MASK);
	MLX5_SET64(query_eq_out, c->out, event_bitmask, eq->mask[0]);
unlock:
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	return err;
}

/*
 * Fault injection (mlx5sp_sim_stale_eqes(), fault.c): this EQE keeps the
 * last lap's owner bit.
 */
static bool sim_eq_stale(struct mlx5sp_sim *sim)
{
	if (likely(!atomic_read(&sim->inject.stale_eqes)) ||
	    atomic_dec_if_positive(&sim->inject.stale_eqes) < 0)
		return false;
	sim_err(sim, "hostile: EQE left with the last lap's owner bit\n");
	return true;
}

/* Returns true when the EQ's interrupt must be raised. */
static bool sim_eq_write(struct mlx5sp_sim *sim, struct sim_eq *eq,
			 const struct mlx5_eqe *src)
{
	u64 off, pa, page_mask = BIT_ULL(sim_eq_page_shift(eq)) - 1;
	struct mlx5_eqe *eqe;

	lockdep_assert_held(&sim->eq_lock);

	if (eq->pi - eq->ci >= eq->nent) {
		sim_stat_inc(sim, eq_overruns);
		sim_err(sim, "EQ %u overrun: event type 0x%x dropped\n",
			eq->eqn, src->type);
		return false;
	}
	off = (u64)(eq->pi & (eq->nent - 1)) * SIM_EQE_SIZE;
	pa = eq->pas[off >> sim_eq_page_shift(eq)] + (off & page_mask);
	eqe = sim_dma_ptr(sim, pa, SIM_EQE_SIZE, SIM_EQE_SIZE);
	if (!eqe) {
		sim_stat_inc(sim, events_dropped);
		sim_err(sim, "EQ %u buffer at 0x%llx no longer usable\n",
			eq->eqn, pa);
		return false;
	}

	memcpy(eqe, src, offsetof(struct mlx5_eqe, owner));
	/* the body is visible before the owner bit hands it over */
	wmb();
	WRITE_ONCE(eqe->owner, ((eq->pi >> eq->log_size) & 1) ^
			       sim_eq_stale(sim));
	eq->pi++;
	sim_stat_inc(sim, eqes_written);

	if (!eq->armed)
		return false;
	eq->armed = false;
	return true;
}

/* sim_eq_deliver()'s EQ: the lowest-numbered one subscribed to the type */
#define SIM_EQN_BY_TYPE U32_MAX

/*
 * Write @eqe to EQ @eqn (SIM_EQN_BY_TYPE: by its type) and raise the EQ's
 * vector if it was armed. 1 if an EQE was written, 0 if not (overrun,
 * buffer gone), -ENODEV without that EQ (the caller's to count),
 * -ESHUTDOWN on a device turned off (checked under eq_lock: it writes
 * none after, bar.c).
 */
static int sim_eq_deliver(struct mlx5sp_sim *sim, u32 eqn,
			  const struct mlx5_eqe *eqe)
{
	struct sim_eq *eq = NULL;
	unsigned long flags;
	bool raise = false;
	int ret = -ENODEV;
	u16 vector = 0;
	u32 pi;

	spin_lock_irqsave(&sim->eq_lock, flags);
	if (sim_is_fatal(sim)) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	if (eqn == SIM_EQN_BY_TYPE)
		eqn = sim_eq_for_type_locked(sim, eqe->type);
	if (eqn < SIM_MAX_EQS)
		eq = sim->eqs[eqn];
	if (eq) {
		pi = eq->pi;
		raise = sim_eq_write(sim, eq, eqe);
		ret = eq->pi != pi;
		vector = eq->intr;
	}
unlock:
	spin_unlock_irqrestore(&sim->eq_lock, flags);

	if (ret == -ESHUTDOWN)
		sim_stat_inc(sim, events_dropped);
	if (raise)
		sim->host->raise_irq(sim, vector);
	return ret;
}

/*
 * Deliver an event to the lowest-numbered EQ subscribed to its type.
 * Returns true if an EQE was written.
 */
bool sim_eq_post(struct mlx5sp_sim *sim, u8 type, u8 sub_type,
		 const union ev_data *data)
{
	struct mlx5_eqe eqe = {};
	int ret;

	eqe.type = type;
	eqe.sub_type = sub_type;
	eqe.data = *data;
	ret = sim_eq_deliver(sim, SIM_EQN_BY_TYPE, &eqe);
	/* command completions without a CMD EQ are simply polled for */
	if (ret == -ENODEV && type != MLX5_EVENT_TYPE_CMD) {
		sim_stat_inc(sim, events_dropped);
		sim_dbg(sim, "event type 0x%x: no EQ subscribed\n", type);
	}
	return ret > 0;
}

/* val = eqn << 24 | consumer counter (24 bits) */
void sim_eq_doorbell(struct mlx5sp_sim *sim, u32 uar, u32 val, bool arm)
{
	u32 eqn = val >> 24, delta;
	bool raise = false, bad = false;
	unsigned long flags;
	struct sim_eq *eq;
	u16 vector = 0;

	spin_lock_irqsave(&sim->eq_lock, flags);
	eq = eqn < SIM_MAX_EQS ? sim->eqs[eqn] : NULL;
	if (!eq || eq->uar != uar) {
		bad = true;
		goto unlock;
	}
	delta = ((val & SIM_CI_MASK) - eq->ci) & SIM_CI_MASK;
	if (delta > eq->pi - eq->ci) {
		/* consumed entries never written */
		bad = true;
		goto unlock;
	}
	eq->ci += delta;
	if (arm) {
		/* arming with entries pending fires at once */
		if (eq->pi != eq->ci)
			raise = true;
		eq->armed = !raise;
		vector = eq->intr;
	}
unlock:
	spin_unlock_irqrestore(&sim->eq_lock, flags);

	if (bad) {
		sim_stat_inc(sim, eq_doorbells_bad);
		sim_err(sim, "bad EQ doorbell 0x%x on UAR %u\n", val, uar);
	}
	if (raise)
		sim->host->raise_irq(sim, vector);
}

bool sim_eq_exists(struct mlx5sp_sim *sim, u32 eqn)
{
	unsigned long flags;
	bool found;

	spin_lock_irqsave(&sim->eq_lock, flags);
	found = eqn < SIM_MAX_EQS && sim->eqs[eqn];
	spin_unlock_irqrestore(&sim->eq_lock, flags);
	return found;
}

/* The EQ of the port's events (the async EQ); SIM_MAX_EQS if none. */
u32 sim_eq_async_eqn(struct mlx5sp_sim *sim)
{
	return sim_eq_for_type(sim, MLX5_EVENT_TYPE_PORT_CHANGE);
}

/*
 * Deliver an event to EQ @eqn whatever its mask: completion events go to
 * the CQ's EQ. Returns true if an EQE was written.
 */
bool sim_eq_post_to(struct mlx5sp_sim *sim, u32 eqn, u8 type,
		    const union ev_data *data)
{
	struct mlx5_eqe eqe = {};
	int ret;

	eqe.type = type;
	eqe.data = *data;
	/* an EQ number out of range is a missing EQ, never "by type" */
	ret = sim_eq_deliver(sim, min_t(u32, eqn, SIM_MAX_EQS), &eqe);
	if (ret == -ENODEV) {
		sim_stat_inc(sim, events_dropped);
		sim_dbg(sim, "event type 0x%x for missing EQ %u\n", type, eqn);
	}
	return ret > 0;
}

/* A QP affiliated asynchronous event (QP type in the EQE). */
void sim_post_qp_event(struct mlx5sp_sim *sim, u8 type, u32 qpn)
{
	union ev_data data = {};

	data.qp_srq.type = MLX5_EVENT_QUEUE_TYPE_QP;
	data.qp_srq.qp_srq_n = cpu_to_be32(qpn & 0xffffff);
	sim_eq_post(sim, type, 0, &data);
}
