// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A model's UAR pages in user space, mapped so that the model sees user
 * doorbells. On a card a doorbell is a write to BAR space that the device
 * sees at once; a model's UAR page is memory, and a store to it reaches
 * nobody, so the model had to poll for it. Here the page is mapped on
 * fault: when the model's engine goes idle it has every user mapping of
 * its UAR pages taken down (mlx5sp_model_uar_trap()), and the next
 * doorbell faults, maps the page again and tells the model, whose engine
 * runs at once (a trap, as a hypervisor traps a guest's MMIO write). A
 * model that takes stores (trap->store) has a doorbell store executed in
 * the fault instead (uar_store.c), as a hypervisor emulates the MMIO
 * write: the page stays unmapped, one fault per doorbell and no zap.
 *
 * ib_core maps the page and owns the vma as for any driver
 * (rdma_user_mmap_io(): it zaps the vma on disassociation and frees its
 * state on close); only fault, open and close are ours while the context
 * lives. On disassociation every vma goes back to ib_core's vm_ops, whose
 * fault maps a zero page: nothing of a driver that may be unloaded stays
 * behind in a process.
 */

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "mlx5sp_model.h"	/* MLX5SP_UAR_TOUCH_READ: what a read is told as */
#include "uar_store.h"
#include "uar_trap.h"

/*
 * vm_private_data of a trapped vma while its context lives. ib_core's
 * vm_ops and private data are put back around each call into them and
 * for good on disassociation.
 */
struct uar_vma {
	struct list_head node;		/* in trap->vmas, under trap->lock */
	struct vm_area_struct *vma;
	struct mlx5sp_uar_trap *trap;
	struct ib_ucontext *uctx;
	const struct vm_operations_struct *core_ops;
	void *core_priv;
	/* our reference: the UAR stays allocated while we may map it */
	struct rdma_user_mmap_entry *entry;
	unsigned long pfn;
	u32 index;
	bool dead;			/* its context is disassociating */
};

static const struct vm_operations_struct uar_vm_ops;

/*
 * A store the model takes (trap->store) is executed here: its value goes
 * to the model, the task resumes after it and nothing is mapped, hence no
 * trap->lock: the next store faults again, trap or no trap.
 *
 * Anything else is told before the page is mapped: the model marks where
 * the store goes, and learns from that mark when it has landed (a store
 * retried after the next trap would fault again). Told and mapped under
 * trap->lock, which the trap's zap takes: a trap set between the two would
 * find nothing to take down, and the page mapped after it would take the
 * next doorbells unseen, the engine asleep, believing them trapped.
 */
static vm_fault_t uar_vma_fault(struct vm_fault *vmf)
{
	struct uar_vma *uv = vmf->vma->vm_private_data;
	struct mlx5sp_uar_trap *trap = uv->trap;
	u32 offset = MLX5SP_UAR_TOUCH_READ;
	struct mlx5sp_uar_store st;
	vm_fault_t ret;

	if (vmf->flags & FAULT_FLAG_WRITE) {
		offset = offset_in_page(vmf->real_address);
		if (trap->store && mlx5sp_uar_store_fetch(vmf, &st) &&
		    trap->store(trap, uv->index, offset, st.val, st.size)) {
			mlx5sp_uar_store_done(&st);
			return VM_FAULT_NOPAGE;
		}
	}
	mutex_lock(&trap->lock);
	trap->touch(trap, uv->index, offset);
	ret = vmf_insert_pfn(vmf->vma, vmf->address, uv->pfn);
	mutex_unlock(&trap->lock);
	return ret;
}

/* fork or mremap: a new vma, ib_core's first, then ours */
static void uar_vma_open(struct vm_area_struct *vma)
{
	struct uar_vma *old = vma->vm_private_data;
	struct mlx5sp_uar_trap *trap = old->trap;
	struct uar_vma *uv;

	vma->vm_private_data = old->core_priv;
	vma->vm_ops = old->core_ops;
	if (old->core_ops->open)
		old->core_ops->open(vma);
	/* ib_core zapped it: it is racing with disassociation */
	if (!vma->vm_private_data)
		return;
	/*
	 * Without memory it stays ib_core's: mapped until the next trap,
	 * then the zero page (a forked child's copy, as a rule).
	 */
	uv = kmemdup(old, sizeof(*old), GFP_KERNEL);
	if (!uv)
		return;
	mutex_lock(&trap->lock);
	if (old->dead) {
		mutex_unlock(&trap->lock);
		kfree(uv);
		return;
	}
	kref_get(&uv->entry->ref);
	uv->vma = vma;
	uv->core_priv = vma->vm_private_data;
	list_add(&uv->node, &trap->vmas);
	vma->vm_private_data = uv;
	vma->vm_ops = &uar_vm_ops;
	mutex_unlock(&trap->lock);
}

static void uar_vma_close(struct vm_area_struct *vma)
{
	struct uar_vma *uv = vma->vm_private_data;
	struct mlx5sp_uar_trap *trap = uv->trap;

	mutex_lock(&trap->lock);
	list_del(&uv->node);
	WRITE_ONCE(trap->closes, trap->closes + 1);
	mutex_unlock(&trap->lock);
	wake_up_all(&trap->closed);
	vma->vm_private_data = uv->core_priv;
	vma->vm_ops = uv->core_ops;
	if (uv->core_ops->close)
		uv->core_ops->close(vma);
	rdma_user_mmap_entry_put(uv->entry);
	kfree(uv);
}

static const struct vm_operations_struct uar_vm_ops = {
	.open = uar_vma_open,
	.close = uar_vma_close,
	.fault = uar_vma_fault,
};

void mlx5sp_uar_trap_init(struct mlx5sp_uar_trap *trap,
			  void (*touch)(struct mlx5sp_uar_trap *, u32, u32),
			  bool (*store)(struct mlx5sp_uar_trap *, u32, u32, u64,
					unsigned int))
{
	mutex_init(&trap->lock);
	INIT_LIST_HEAD(&trap->vmas);
	init_waitqueue_head(&trap->closed);
	trap->closes = 0;
	trap->touch = touch;
	trap->store = store;
}

/* Every context is gone: disassociated or closed, so are its vmas. */
void mlx5sp_uar_trap_destroy(struct mlx5sp_uar_trap *trap)
{
	WARN_ON_ONCE(!list_empty(&trap->vmas));
	mutex_destroy(&trap->lock);
}

/**
 * mlx5sp_uar_trap_mmap - map a model's UAR page for a user context
 * @trap: the device's trap
 * @uctx: the context
 * @vma: the vma ib_uverbs_mmap() set up (vm_ops are ib_core's)
 * @entry: the UAR's mmap entry; its reference passes to the mapping on
 *	success
 * @index: the UAR
 * @pfn: the page behind it
 *
 * Under the mmap lock and ib_core's disassociate_srcu.
 */
int mlx5sp_uar_trap_mmap(struct mlx5sp_uar_trap *trap, struct ib_ucontext *uctx,
			 struct vm_area_struct *vma,
			 struct rdma_user_mmap_entry *entry, u32 index,
			 unsigned long pfn)
{
	const struct vm_operations_struct *core_ops = vma->vm_ops;
	struct uar_vma *uv;
	int err;

	if (!core_ops || core_ops == &uar_vm_ops)
		return -EINVAL;
	uv = kzalloc(sizeof(*uv), GFP_KERNEL);
	if (!uv)
		return -ENOMEM;
	/* a model's page: plain memory, mapped cached */
	err = rdma_user_mmap_io(uctx, vma, pfn, PAGE_SIZE, vma->vm_page_prot,
				entry);
	if (err) {
		kfree(uv);
		return err;
	}
	/*
	 * Unmapped until the first access: the engine may have trapped the
	 * device's pages already, and would not hear of this one.
	 */
	zap_vma_ptes(vma, vma->vm_start, PAGE_SIZE);
	uv->vma = vma;
	uv->trap = trap;
	uv->uctx = uctx;
	uv->core_ops = core_ops;
	uv->core_priv = vma->vm_private_data;
	uv->entry = entry;
	uv->pfn = pfn;
	uv->index = index;
	mutex_lock(&trap->lock);
	list_add(&uv->node, &trap->vmas);
	vma->vm_private_data = uv;
	vma->vm_ops = &uar_vm_ops;
	mutex_unlock(&trap->lock);
	return 0;
}

/*
 * One vma of @uctx in @mm or none; under trap->lock. A NULL @mm matches
 * any mm.
 */
static struct uar_vma *uar_first(struct mlx5sp_uar_trap *trap,
				 struct ib_ucontext *uctx, struct mm_struct *mm)
{
	struct uar_vma *uv;

	list_for_each_entry(uv, &trap->vmas, node)
		if (uv->uctx == uctx && (!mm || uv->vma->vm_mm == mm))
			return uv;
	return NULL;
}

/*
 * Wait until exit_mmap() has closed @mm's vmas of @uctx. The wait's
 * condition must not sleep: it watches the count of closes, the list is
 * looked at under the lock between waits.
 */
static void uar_wait_mm_closed(struct mlx5sp_uar_trap *trap,
			       struct ib_ucontext *uctx, struct mm_struct *mm)
{
	unsigned long seen;
	bool closed;

	for (;;) {
		mutex_lock(&trap->lock);
		seen = trap->closes;
		closed = !uar_first(trap, uctx, mm);
		mutex_unlock(&trap->lock);
		if (closed)
			return;
		wait_event(trap->closed, READ_ONCE(trap->closes) != seen);
	}
}

/*
 * Hand @mm's vmas of @uctx back to ib_core: zapped, so that no page of
 * the model stays mapped, with ib_core's vm_ops and private data. The
 * vma write lock keeps our fault out meanwhile.
 */
static void uar_release_mm(struct mlx5sp_uar_trap *trap,
			   struct ib_ucontext *uctx, struct mm_struct *mm)
{
	struct uar_vma *uv, *tmp;
	LIST_HEAD(done);

	mmap_write_lock(mm);
	mutex_lock(&trap->lock);
	list_for_each_entry_safe(uv, tmp, &trap->vmas, node) {
		struct vm_area_struct *vma = uv->vma;

		if (uv->uctx != uctx || vma->vm_mm != mm)
			continue;
		vma_start_write(vma);
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
		vma->vm_private_data = uv->core_priv;
		vma->vm_ops = uv->core_ops;
		list_move(&uv->node, &done);
	}
	mutex_unlock(&trap->lock);
	mmap_write_unlock(mm);
	/* the last reference deallocates the UAR: a command, no mm lock */
	list_for_each_entry_safe(uv, tmp, &done, node) {
		rdma_user_mmap_entry_put(uv->entry);
		kfree(uv);
	}
}

/**
 * mlx5sp_uar_trap_disassociate - the device leaves: give @uctx's vmas back
 * @trap: the device's trap
 * @uctx: the context being disassociated
 *
 * ib_core has zapped them already; a doorbell since may have mapped the
 * page again. Returns with none of our vm_ops left in any process, so the
 * driver may be unloaded.
 */
void mlx5sp_uar_trap_disassociate(struct mlx5sp_uar_trap *trap,
				  struct ib_ucontext *uctx)
{
	struct mm_struct *mm;
	struct uar_vma *uv;

	mutex_lock(&trap->lock);
	list_for_each_entry(uv, &trap->vmas, node)
		if (uv->uctx == uctx)
			uv->dead = true;
	while ((uv = uar_first(trap, uctx, NULL))) {
		mm = uv->vma->vm_mm;
		mmgrab(mm);
		mutex_unlock(&trap->lock);
		if (mmget_not_zero(mm)) {
			uar_release_mm(trap, uctx, mm);
			mmput(mm);
		} else {
			/* exiting: exit_mmap() closes its vmas (ours still) */
			uar_wait_mm_closed(trap, uctx, mm);
		}
		mmdrop(mm);
		mutex_lock(&trap->lock);
	}
	mutex_unlock(&trap->lock);
}

/**
 * mlx5sp_uar_trap_arm - take every user mapping of the device's UAR pages
 * down, so that the next access to one faults and is told
 * @trap: the device's trap
 *
 * May sleep. All of them are mappings of the uverbs device's file: one
 * zap of the file reaches every context (and forked copies).
 */
bool mlx5sp_uar_trap_arm(struct mlx5sp_uar_trap *trap)
{
	struct address_space *last = NULL, *m;
	struct uar_vma *uv;

	mutex_lock(&trap->lock);
	list_for_each_entry(uv, &trap->vmas, node) {
		m = uv->vma->vm_file->f_mapping;
		if (m == last)
			continue;
		unmap_mapping_range(m, 0, 0, 1);
		last = m;
	}
	mutex_unlock(&trap->lock);
	return true;
}
