// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fabric between model devices: every device with its ports' GID
 * tables, so a QP finds its peer by (destination GID, QPN) on the same
 * device (loopback) or on another. Lookups run under rcu_read_lock(); a
 * generation counter moves whenever a GID or a device comes or goes, so
 * QPs may cache the device their peer lives on.
 */

#include <linux/rculist.h>

#include "roce.h"
#include "sim.h"

static LIST_HEAD(sim_fabric);		/* devices, RCU */
static DEFINE_SPINLOCK(sim_fabric_lock);	/* protects sim_fabric writers */
static atomic_t sim_fabric_generation = ATOMIC_INIT(1);

void sim_fabric_changed(void)
{
	atomic_inc(&sim_fabric_generation);
}

u32 sim_fabric_gen(void)
{
	return atomic_read(&sim_fabric_generation);
}

void sim_fabric_add(struct mlx5sp_sim *sim)
{
	spin_lock(&sim_fabric_lock);
	list_add_tail_rcu(&sim->fabric_node, &sim_fabric);
	spin_unlock(&sim_fabric_lock);
	sim_fabric_changed();
}

/* After this no engine reaches @sim any more. Sleeps. */
void sim_fabric_del(struct mlx5sp_sim *sim)
{
	spin_lock(&sim_fabric_lock);
	list_del_rcu(&sim->fabric_node);
	spin_unlock(&sim_fabric_lock);
	sim_fabric_changed();
	synchronize_rcu();
}

static bool sim_has_gid(struct mlx5sp_sim *sim, const u8 *gid)
{
	bool found = false;
	int p, i;

	spin_lock_bh(&sim->roce.gid_lock);
	for (p = 0; p < SIM_NUM_PORTS && !found; p++)
		for (i = 0; i < SIM_GID_TABLE_SIZE && !found; i++)
			found = sim->roce.ports[p].gids[i].valid &&
				!memcmp(sim->roce.ports[p].gids[i].gid, gid, 16);
	spin_unlock_bh(&sim->roce.gid_lock);
	return found;
}

/*
 * The device owning @gid, @prefer first (loopback); NULL for another
 * kernel's, or another model device's when either wants the wire
 * (wire_peers). Under rcu_read_lock().
 */
struct mlx5sp_sim *sim_fabric_find_gid(const u8 *gid,
				       struct mlx5sp_sim *prefer)
{
	struct mlx5sp_sim *sim;

	if (prefer && sim_has_gid(prefer, gid))
		return prefer;
	list_for_each_entry_rcu(sim, &sim_fabric, fabric_node) {
		if (sim == prefer || !sim_has_gid(sim, gid))
			continue;
		/* as another host: its packets go on the wire */
		if ((prefer && READ_ONCE(prefer->knobs.wire_peers)) ||
		    READ_ONCE(sim->knobs.wire_peers))
			return NULL;
		return sim;
	}
	return NULL;
}

/* A copy of GID @index of @port (1-based); false if it is not valid. */
bool sim_gid_get(struct mlx5sp_sim *sim, u8 port, u8 index,
		 struct sim_gid *out)
{
	bool valid;

	if (port < 1 || port > SIM_NUM_PORTS)
		return false;
	spin_lock_bh(&sim->roce.gid_lock);
	*out = sim->roce.ports[port - 1].gids[index];
	valid = out->valid;
	spin_unlock_bh(&sim->roce.gid_lock);
	return valid;
}
