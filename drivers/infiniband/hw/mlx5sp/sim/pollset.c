// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the engine looks at in every pass (QPs, CQs, UAR pages), as a flat
 * array it reads by index under RCU. A pass over an xarray walks the tree
 * again for every entry, and between the sparse numbers of cyclic
 * allocation it scans empty slots: most of an idle pass, and so most of
 * the time before a user space doorbell is seen.
 *
 * Changed under the device's fw_lock only: an entry is appended, or the
 * last entry moves into the slot of a removed one. A pass racing with a
 * removal may see one entry twice or miss the moved one; the next pass
 * sees it. A removed object is still valid to a reader until the
 * remover's synchronize_rcu(), which every destroy path does before it
 * frees. A full array is copied into one twice its size and the old one
 * freed after a grace period.
 */

#include <kunit/visibility.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "engine.h"

#define SIM_POLLSET_MIN	16

struct sim_pollset_arr {
	struct rcu_head rcu;
	unsigned int cap;
	void *obj[] __counted_by(cap);
};

void sim_pollset_init(struct sim_pollset *ps)
{
	RCU_INIT_POINTER(ps->arr, NULL);
	ps->n = 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_pollset_init);

/* Nothing may be in it any more, nor any reader (the engine stopped). */
void sim_pollset_destroy(struct sim_pollset *ps)
{
	kvfree(rcu_dereference_protected(ps->arr, true));
	RCU_INIT_POINTER(ps->arr, NULL);
	ps->n = 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_pollset_destroy);

int sim_pollset_add(struct sim_pollset *ps, void *obj)
{
	struct sim_pollset_arr *arr, *old;
	unsigned int cap;

	old = rcu_dereference_protected(ps->arr, true);
	arr = old;
	if (!arr || ps->n == arr->cap) {
		cap = arr ? arr->cap * 2 : SIM_POLLSET_MIN;
		arr = kvzalloc(struct_size(arr, obj, cap), GFP_KERNEL);
		if (!arr)
			return -ENOMEM;
		arr->cap = cap;
		if (old)
			memcpy(arr->obj, old->obj, ps->n * sizeof(*arr->obj));
		rcu_assign_pointer(ps->arr, arr);
		if (old)
			kvfree_rcu(old, rcu);
	}
	WRITE_ONCE(arr->obj[ps->n], obj);
	/* a reader that sees the new count sees the entry (and the array) */
	smp_store_release(&ps->n, ps->n + 1);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sim_pollset_add);

/* The caller synchronize_rcu()s before it frees @obj. */
void sim_pollset_del(struct sim_pollset *ps, void *obj)
{
	struct sim_pollset_arr *arr = rcu_dereference_protected(ps->arr, true);
	unsigned int i, last;

	if (!arr)
		return;
	for (i = 0; i < ps->n; i++)
		if (arr->obj[i] == obj)
			break;
	if (WARN_ON_ONCE(i == ps->n))
		return;
	last = ps->n - 1;
	WRITE_ONCE(arr->obj[i], arr->obj[last]);
	WRITE_ONCE(arr->obj[last], NULL);
	WRITE_ONCE(ps->n, last);
}
EXPORT_SYMBOL_IF_KUNIT(sim_pollset_del);

/* Under rcu_read_lock(): entry @i, NULL past the end (or in passing). */
void *sim_pollset_at(struct sim_pollset *ps, unsigned int i)
{
	/* pairs with sim_pollset_add's release: entry and array are seen */
	unsigned int n = smp_load_acquire(&ps->n);
	struct sim_pollset_arr *arr = rcu_dereference(ps->arr);

	if (i >= n || !arr || i >= arr->cap)
		return NULL;
	return READ_ONCE(arr->obj[i]);
}
EXPORT_SYMBOL_IF_KUNIT(sim_pollset_at);
