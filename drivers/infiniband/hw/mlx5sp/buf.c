// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue buffers and the page lists (PAS, MTT) that describe them to
 * firmware: kernel buffers are one coherent block in 4 KiB pages, user
 * buffers are pinned umems split in blocks of the size chosen for them.
 */
#include <linux/dma-mapping.h>

#include "ib.h"

int mlx5sp_buf_alloc(struct mlx5sp_dev *dev, size_t size,
		     struct mlx5sp_buf *buf)
{
	if (!size || size > MLX5SP_MAX_KBUF)
		return -EINVAL;
	buf->size = ALIGN(size, MLX5_ADAPTER_PAGE_SIZE);
	buf->buf = dma_alloc_coherent(dev->dma_dev, buf->size, &buf->dma,
				      GFP_KERNEL);
	if (!buf->buf)
		return -ENOMEM;
	return 0;
}

void mlx5sp_buf_free(struct mlx5sp_dev *dev, struct mlx5sp_buf *buf)
{
	if (!buf->buf)
		return;
	dma_free_coherent(dev->dma_dev, buf->size, buf->buf, buf->dma);
	buf->buf = NULL;
}

size_t mlx5sp_buf_npages(const struct mlx5sp_buf *buf)
{
	return DIV_ROUND_UP(buf->size, MLX5_ADAPTER_PAGE_SIZE);
}

/* Page list of a contiguous DMA block, 4 KiB a page. */
void mlx5sp_fill_pas_contig(dma_addr_t dma, size_t npages, __be64 *pas)
{
	size_t i;

	for (i = 0; i < npages; i++)
		pas[i] = cpu_to_be64(dma + i * MLX5_ADAPTER_PAGE_SIZE);
}
EXPORT_SYMBOL_GPL(mlx5sp_fill_pas_contig);

/* Page list of a umem in blocks of @page_size, each address | @flags. */
void mlx5sp_fill_pas_umem(struct ib_umem *umem, unsigned long page_size,
			  __be64 *pas, u64 flags)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, page_size)
		pas[i++] = cpu_to_be64(rdma_block_iter_dma_address(&biter) | flags);
}

/* MTT entries are 8 bytes, two an octoword; as mlx5_ib's get_octo_len(). */
u32 mlx5sp_octo_len(u64 addr, u64 len, unsigned int page_shift)
{
	u64 page_size = 1ULL << page_shift;
	u64 offset = addr & (page_size - 1);
	u64 npages = ALIGN(len + offset, page_size) >> page_shift;

	return (npages + 1) / 2;
}
EXPORT_SYMBOL_GPL(mlx5sp_octo_len);

/*
 * A user queue buffer in 4 KiB pages: where it starts in its first page,
 * in the 64-byte units a QP or CQ context's page_offset counts, and how
 * many pages it spans.
 */
int mlx5sp_umem_page(struct ib_umem *umem, unsigned long virt, u32 *page_offset,
		     size_t *npages)
{
	unsigned long off = virt & (MLX5_ADAPTER_PAGE_SIZE - 1);

	if (!ib_umem_find_best_pgsz(umem, MLX5_ADAPTER_PAGE_SIZE, virt))
		return -EINVAL;
	if (off % 64)
		return -EINVAL;
	*page_offset = off / 64;
	*npages = ib_umem_num_dma_blocks(umem, MLX5_ADAPTER_PAGE_SIZE);
	return 0;
}

/*
 * A user queue (QP, SRQ or CQ): its buffer of @size bytes at @buf_addr
 * pinned and described in 4 KiB pages, its doorbell record at @db_addr
 * mapped. Returns the umem or an ERR_PTR; mlx5sp_uqueue_put undoes it.
 */
struct ib_umem *mlx5sp_uqueue_get(struct mlx5sp_ib_dev *dev,
				  struct mlx5sp_ucontext *uctx, u64 buf_addr,
				  size_t size, int access, u64 db_addr,
				  struct mlx5sp_db *db, u32 *page_offset,
				  size_t *npages)
{
	struct ib_umem *umem;
	int err;

	umem = ib_umem_get(&dev->ib, buf_addr, size, access);
	if (IS_ERR(umem))
		return umem;
	err = mlx5sp_umem_page(umem, buf_addr, page_offset, npages);
	if (err)
		goto err_release;
	err = mlx5sp_db_map_user(uctx, db_addr, db);
	if (err)
		goto err_release;
	return umem;

err_release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

void mlx5sp_uqueue_put(struct mlx5sp_ucontext *uctx, struct ib_umem *umem,
		       struct mlx5sp_db *db)
{
	mlx5sp_db_unmap_user(uctx, db);
	ib_umem_release(umem);
}
