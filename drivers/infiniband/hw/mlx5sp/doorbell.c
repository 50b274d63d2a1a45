// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Doorbell records. A user record lives in a page of the user's that is
 * pinned once and shared by every record of the context in it (as
 * mlx5_ib's doorbell.c); firmware gets its DMA address. A kernel record
 * is 64 bytes from the device's pool.
 */
#include <linux/dmapool.h>
#include <linux/slab.h>

#include "ib.h"

#define DB_REC_SIZE	64

int mlx5sp_db_map_user(struct mlx5sp_ucontext *uctx, unsigned long virt,
		       struct mlx5sp_db *db)
{
	unsigned long page_virt = virt & PAGE_MASK;
	struct mlx5sp_user_db_page *page;
	struct ib_umem *umem;
	int err = 0;

	/* Two 32-bit records (receive, send), within one page. */
	if (!virt || !IS_ALIGNED(virt, 8))
		return -EINVAL;
	mutex_lock(&uctx->db_lock);
	list_for_each_entry(page, &uctx->db_pages, list)
		if (page->user_virt == page_virt)
			goto found;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page) {
		err = -ENOMEM;
		goto out_unlock;
	}
	umem = ib_umem_get(uctx->ibuc.device, page_virt, PAGE_SIZE, 0);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		kfree(page);
		goto out_unlock;
	}
	page->umem = umem;
	page->user_virt = page_virt;
	list_add(&page->list, &uctx->db_pages);
found:
	db->dma = sg_dma_address(page->umem->sgt_append.sgt.sgl) +
		  (virt & ~PAGE_MASK);
	db->page = page;
	db->db = NULL;
	page->refcnt++;
out_unlock:
	mutex_unlock(&uctx->db_lock);
	return err;
}

void mlx5sp_db_unmap_user(struct mlx5sp_ucontext *uctx, struct mlx5sp_db *db)
{
	struct mlx5sp_user_db_page *page = db->page;

	if (!page)
		return;
	mutex_lock(&uctx->db_lock);
	if (!--page->refcnt) {
		list_del(&page->list);
		ib_umem_release(page->umem);
		kfree(page);
	}
	mutex_unlock(&uctx->db_lock);
	db->page = NULL;
}

int mlx5sp_db_alloc(struct mlx5sp_dev *dev, struct mlx5sp_db *db)
{
	db->db = dma_pool_zalloc(dev->db_pool, GFP_KERNEL, &db->dma);
	if (!db->db)
		return -ENOMEM;
	db->page = NULL;
	return 0;
}

void mlx5sp_db_free(struct mlx5sp_dev *dev, struct mlx5sp_db *db)
{
	if (!db->db)
		return;
	dma_pool_free(dev->db_pool, db->db, db->dma);
	db->db = NULL;
}
