// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Object counts. A ConnectX reports how many PDs, CQs, QPs, SRQs and MKEYs
 * it holds (log_max_* of the general capabilities) and refuses the create
 * past that count with NO_RESOURCES, whatever numbers are still free: the
 * model counts what it holds and does the same. A device made with a
 * smaller profile (debugfs add ... log_max_qp=N) lets a test reach the
 * limit and try one more.
 */

#include "limits.h"
#include "mlx5sp_sim.h"
#include "sim.h"
#include "syndromes.h"

static const struct {
	const char *name;
	u8 log_default;		/* a ConnectX-6's */
	u32 exhausted;		/* the syndrome past the count */
} sim_lims[SIM_NR_LIMS] = {
	[SIM_LIM_PD] = { "pd", SIM_LOG_MAX_PD, MLX5SP_SIM_SYND_PD_EXHAUSTED },
	[SIM_LIM_CQ] = { "cq", 24, MLX5SP_SIM_SYND_CQ_EXHAUSTED },
	[SIM_LIM_QP] = { "qp", 18, MLX5SP_SIM_SYND_QP_EXHAUSTED },
	[SIM_LIM_SRQ] = { "srq", 23, MLX5SP_SIM_SYND_SRQ_EXHAUSTED },
	[SIM_LIM_MKEY] = { "mkey", 24, MLX5SP_SIM_SYND_MKEY_EXHAUSTED },
};

static u8 sim_lim_param(const struct mlx5sp_sim_params *p, enum sim_lim kind)
{
	switch (kind) {
	case SIM_LIM_PD:
		return p->log_max_pd;
	case SIM_LIM_CQ:
		return p->log_max_cq;
	case SIM_LIM_QP:
		return p->log_max_qp;
	case SIM_LIM_SRQ:
		return p->log_max_srq;
	case SIM_LIM_MKEY:
		return p->log_max_mkey;
	default:
		return 0;
	}
}

u8 sim_lim_log(const struct mlx5sp_sim_params *p, enum sim_lim kind)
{
	return sim_lim_param(p, kind) ?: sim_lims[kind].log_default;
}

const char *sim_lim_name(enum sim_lim kind)
{
	return sim_lims[kind].name;
}

/* A profile may lower a count, never raise it past a ConnectX-6's. */
int sim_lim_params_valid(const struct mlx5sp_sim_params *p)
{
	int k;

	for (k = 0; k < SIM_NR_LIMS; k++)
		if (sim_lim_param(p, k) > sim_lims[k].log_default)
			return -EINVAL;
	return 0;
}

/* What the device reports now: the general caps, as QUERY_HCA_CAP. */
static u32 sim_lim_max(struct mlx5sp_sim *sim, enum sim_lim kind)
{
	u8 log;

	switch (kind) {
	case SIM_LIM_PD:
		log = SIM_CAP_GEN(sim, log_max_pd);
		break;
	case SIM_LIM_CQ:
		log = SIM_CAP_GEN(sim, log_max_cq);
		break;
	case SIM_LIM_QP:
		log = SIM_CAP_GEN(sim, log_max_qp);
		break;
	case SIM_LIM_SRQ:
		log = SIM_CAP_GEN(sim, log_max_srq);
		break;
	default:
		log = SIM_CAP_GEN(sim, log_max_mkey);
		break;
	}
	return 1U << min_t(u8, log, 31);
}

int sim_lim_check(struct sim_cmd *c, enum sim_lim kind)
{
	struct mlx5sp_sim *sim = c->sim;

	lockdep_assert_held(&sim->fw_lock);
	if (sim->lim.held[kind] < sim_lim_max(sim, kind))
		return 0;
	sim->lim.refused[kind]++;
	return sim_fail(c, MLX5_CMD_STAT_NO_RES_ERR, sim_lims[kind].exhausted);
}

void sim_lim_add(struct mlx5sp_sim *sim, enum sim_lim kind)
{
	lockdep_assert_held(&sim->fw_lock);
	sim->lim.held[kind]++;
}

void sim_lim_sub(struct mlx5sp_sim *sim, enum sim_lim kind)
{
	lockdep_assert_held(&sim->fw_lock);
	if (!WARN_ON_ONCE(!sim->lim.held[kind]))
		sim->lim.held[kind]--;
}

/* Teardown released every object (sim_release_objects). */
void sim_lim_reset(struct mlx5sp_sim *sim)
{
	memset(sim->lim.held, 0, sizeof(sim->lim.held));
}
