/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A model's UAR pages in user space, mapped so that the model sees user
 * doorbells (uar_trap.c).
 */
#ifndef MLX5SP_UAR_TRAP_H
#define MLX5SP_UAR_TRAP_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/wait.h>

struct ib_ucontext;
struct rdma_user_mmap_entry;
struct vm_area_struct;

/*
 * One per model device. Lock order: mmap_lock, then @lock, then the
 * file's i_mmap_rwsem (the zap). The fault path takes @lock too (under
 * the mmap or vma lock), never the other way round.
 */
struct mlx5sp_uar_trap {
	struct mutex lock;		/* protects vmas */
	struct list_head vmas;		/* struct uar_vma: the user mappings */
	wait_queue_head_t closed;	/* a vma left vmas on close */
	unsigned long closes;		/* how many did, under lock */
	/*
	 * told of a user access to UAR @index (the model's doorbell): a
	 * store at @offset, or MLX5SP_UAR_TOUCH_READ
	 */
	void (*touch)(struct mlx5sp_uar_trap *trap, u32 index, u32 offset);
	/*
	 * Optional: given a user store of @size bytes (4 or 8) of @val at
	 * @offset of UAR @index, which the fault executes rather than map
	 * the page (uar_store.c). False if not taken: touch and map.
	 */
	bool (*store)(struct mlx5sp_uar_trap *trap, u32 index, u32 offset,
		      u64 val, unsigned int size);
};

void mlx5sp_uar_trap_init(struct mlx5sp_uar_trap *trap,
			  void (*touch)(struct mlx5sp_uar_trap *, u32, u32),
			  bool (*store)(struct mlx5sp_uar_trap *, u32, u32, u64,
					unsigned int));
void mlx5sp_uar_trap_destroy(struct mlx5sp_uar_trap *trap);
int mlx5sp_uar_trap_mmap(struct mlx5sp_uar_trap *trap, struct ib_ucontext *uctx,
			 struct vm_area_struct *vma,
			 struct rdma_user_mmap_entry *entry, u32 index,
			 unsigned long pfn);
void mlx5sp_uar_trap_disassociate(struct mlx5sp_uar_trap *trap,
				  struct ib_ucontext *uctx);
bool mlx5sp_uar_trap_arm(struct mlx5sp_uar_trap *trap);

#endif /* MLX5SP_UAR_TRAP_H */
