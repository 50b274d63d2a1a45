// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Firmware pages: memory the driver hands to the device (boot, init and
 * on-demand through page-request EQEs) and takes back. Every page given is
 * recorded by DMA address, so a page firmware returns is checked against
 * what it was given, and teardown returns every one.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "mlx5sp.h"

/* Page addresses per MANAGE_PAGES command: 4 KiB of PAs, 8 mailboxes. */
#define PAGES_PER_CMD	512

static int give_pages(struct mlx5sp_dev *dev, u32 npages)
{
	struct mlx5sp_pages *pg = &dev->pages;
	u32 out[MLX5_ST_SZ_DW(manage_pages_out)] = {};
	int inlen = MLX5_ST_SZ_BYTES(manage_pages_in) + npages * sizeof(u64);
	struct page **pages;
	dma_addr_t *addrs;
	u32 i, done = 0;
	__be64 *pas;
	u32 *in;
	int err;

	in = kvzalloc(inlen, GFP_KERNEL);
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL);
	addrs = kvcalloc(npages, sizeof(*addrs), GFP_KERNEL);
	if (!in || !pages || !addrs) {
		err = -ENOMEM;
		goto err_tell_fw;
	}
	pas = (__be64 *)MLX5_ADDR_OF(manage_pages_in, in, pas);
	for (done = 0; done < npages; done++) {
		pages[done] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[done]) {
			err = -ENOMEM;
			goto err_unmap;
		}
		addrs[done] = dma_map_page(dev->dma_dev, pages[done], 0, PAGE_SIZE,
					   DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev->dma_dev, addrs[done])) {
			__free_page(pages[done]);
			err = -ENOMEM;
			goto err_unmap;
		}
		pas[done] = cpu_to_be64(addrs[done]);
	}

	MLX5_SET(manage_pages_in, in, opcode, MLX5_CMD_OP_MANAGE_PAGES);
	MLX5_SET(manage_pages_in, in, op_mod, MLX5SP_PAGES_GIVE);
	MLX5_SET(manage_pages_in, in, input_num_entries, npages);
	err = mlx5sp_cmd_exec(dev, in, inlen, out, sizeof(out));
	if (err)
		goto err_unmap;

	for (i = 0; i < npages; i++) {
		err = xa_err(xa_store(&pg->given, addrs[i], pages[i], GFP_KERNEL));
		if (err) {
			/* Firmware has it: leave it there, untracked pages are never freed. */
			mlx5sp_err(dev, "cannot track firmware page: %d\n", err);
			continue;
		}
		pg->npages++;
	}
	kvfree(addrs);
	kvfree(pages);
	kvfree(in);
	return 0;

err_unmap:
	while (done--) {
		dma_unmap_page(dev->dma_dev, addrs[done], PAGE_SIZE, DMA_BIDIRECTIONAL);
		__free_page(pages[done]);
	}
err_tell_fw:
	if (err == -ENOMEM && !mlx5sp_dev_dead(dev)) {
		u32 cin[MLX5_ST_SZ_DW(manage_pages_in)] = {};

		MLX5_SET(manage_pages_in, cin, opcode, MLX5_CMD_OP_MANAGE_PAGES);
		MLX5_SET(manage_pages_in, cin, op_mod, MLX5SP_PAGES_CANT_GIVE);
		mlx5sp_cmd_exec(dev, cin, sizeof(cin), out, sizeof(out));
	}
	kvfree(addrs);
	kvfree(pages);
	kvfree(in);
	return err;
}

static void free_given_page(struct mlx5sp_dev *dev, dma_addr_t addr,
			    struct page *page)
{
	dma_unmap_page(dev->dma_dev, addr, PAGE_SIZE, DMA_BIDIRECTIONAL);
	__free_page(page);
	dev->pages.npages--;
}

/* Asks firmware for up to @npages back; returns how many it returned. */
static int take_pages(struct mlx5sp_dev *dev, u32 npages)
{
	struct mlx5sp_pages *pg = &dev->pages;
	u32 in[MLX5_ST_SZ_DW(manage_pages_in)] = {};
	int outlen = MLX5_ST_SZ_BYTES(manage_pages_out) + npages * sizeof(u64);
	u32 i, n;
	__be64 *pas;
	u32 *out;
	int err;

	out = kvzalloc(outlen, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(manage_pages_in, in, opcode, MLX5_CMD_OP_MANAGE_PAGES);
	MLX5_SET(manage_pages_in, in, op_mod, MLX5SP_PAGES_TAKE);
	MLX5_SET(manage_pages_in, in, input_num_entries, npages);
	err = mlx5sp_cmd_exec(dev, in, sizeof(in), out, outlen);
	if (err)
		goto out_free;

	n = MLX5_GET(manage_pages_out, out, output_num_entries);
	if (n > npages) {
		mlx5sp_err(dev, "firmware returned %u pages, %u asked\n", n, npages);
		err = -EIO;
		goto out_free;
	}
	pas = (__be64 *)MLX5_ADDR_OF(manage_pages_out, out, pas);
	for (i = 0; i < n; i++) {
		dma_addr_t addr = be64_to_cpu(pas[i]);
		struct page *page = xa_erase(&pg->given, addr);

		if (!page) {
			mlx5sp_err(dev, "firmware returned page 0x%llx it was never given\n",
				   (u64)addr);
			continue;
		}
		free_given_page(dev, addr, page);
	}
	err = n;
out_free:
	kvfree(out);
	return err;
}

static int give_in_chunks(struct mlx5sp_dev *dev, u32 npages)
{
	int err;

	while (npages) {
		u32 n = min_t(u32, npages, PAGES_PER_CMD);

		err = give_pages(dev, n);
		if (err)
			return err;
		npages -= n;
	}
	return 0;
}

/*
 * Firmware is not trusted with the host's memory: a request beyond what it
 * may hold in all (a broken or hostile device asking 2^31 pages) is given
 * only up to that, and said so. The bound: 1/8 of RAM, at least 128 MiB
 * (a ConnectX's boot and init pages), at most 4 GiB.
 */
static u32 max_fw_pages(void)
{
	return clamp_t(unsigned long, totalram_pages() / 8, BIT(15), BIT(20));
}

static int give_capped(struct mlx5sp_dev *dev, u32 npages)
{
	u32 max = max_fw_pages(), held = min(dev->pages.npages, max);

	if (npages > max - held) {
		mlx5sp_err(dev, "firmware asks %u pages more than the %u it holds: %u given, at most %u in all\n",
			   npages, dev->pages.npages, max - held, max);
		npages = max - held;
	}
	return give_in_chunks(dev, npages);
}

static int take_in_chunks(struct mlx5sp_dev *dev, u32 npages)
{
	int n;

	while (npages) {
		n = take_pages(dev, min_t(u32, npages, PAGES_PER_CMD));
		if (n <= 0)
			return n;
		npages -= n;
	}
	return 0;
}

/* Answers QUERY_PAGES for a bring-up phase (MLX5SP_BOOT_PAGES, ...). */
int mlx5sp_satisfy_pages(struct mlx5sp_dev *dev, u16 op_mod)
{
	u32 out[MLX5_ST_SZ_DW(query_pages_out)] = {};
	u32 in[MLX5_ST_SZ_DW(query_pages_in)] = {};
	s32 npages;
	int err;

	MLX5_SET(query_pages_in, in, opcode, MLX5_CMD_OP_QUERY_PAGES);
	MLX5_SET(query_pages_in, in, op_mod, op_mod);
	err = mlx5sp_cmd_exec_inout(dev, query_pages, in, out);
	if (err)
		return err;
	npages = MLX5_GET(query_pages_out, out, num_pages);
	mlx5sp_dbg(dev, "firmware asks %d pages (op_mod %u)\n", npages, op_mod);
	mutex_lock(&dev->pages.lock);
	if (npages > 0)
		err = give_capped(dev, npages);
	else if (npages < 0)
		err = take_in_chunks(dev, -(s64)npages);
	mutex_unlock(&dev->pages.lock);
	return err;
}

/* From the async EQ (hard IRQ): coalesce and let the work answer. */
void mlx5sp_pages_request(struct mlx5sp_dev *dev, s32 npages)
{
	atomic_add(npages, &dev->pages.requested);
	queue_work(dev->pages.wq, &dev->pages.req_work);
}

static void pages_req_work(struct work_struct *work)
{
	struct mlx5sp_dev *dev = container_of(work, struct mlx5sp_dev, pages.req_work);
	s32 npages = atomic_xchg(&dev->pages.requested, 0);
	int err = 0;

	if (!npages || mlx5sp_dev_dead(dev))
		return;
	mutex_lock(&dev->pages.lock);
	if (npages > 0)
		err = give_capped(dev, npages);
	else
		err = take_in_chunks(dev, -(s64)npages);
	mutex_unlock(&dev->pages.lock);
	if (err < 0)
		mlx5sp_err(dev, "page request of %d pages failed: %d\n", npages, err);
}

/* Takes back every page firmware holds (after TEARDOWN_HCA). */
int mlx5sp_reclaim_all_pages(struct mlx5sp_dev *dev)
{
	struct mlx5sp_pages *pg = &dev->pages;
	int err = 0, n;

	flush_workqueue(pg->wq);
	mutex_lock(&pg->lock);
	while (pg->npages && !mlx5sp_dev_dead(dev)) {
		n = take_pages(dev, min_t(u32, pg->npages, PAGES_PER_CMD));
		if (n == 0) {
			mlx5sp_err(dev, "firmware keeps %u pages\n", pg->npages);
			err = -EIO;
			break;
		}
		if (n < 0) {
			err = n;
			break;
		}
	}
	mutex_unlock(&pg->lock);
	return err;
}

/*
 * Frees what is left in the table. Only when firmware can no longer touch
 * the pages: the device is dead, or the function is disabled.
 */
void mlx5sp_pages_flush(struct mlx5sp_dev *dev)
{
	struct mlx5sp_pages *pg = &dev->pages;
	struct page *page;
	unsigned long addr;

	mutex_lock(&pg->lock);
	if (pg->npages)
		mlx5sp_warn(dev, "freeing %u pages firmware did not return\n",
			    pg->npages);
	xa_for_each(&pg->given, addr, page) {
		xa_erase(&pg->given, addr);
		free_given_page(dev, addr, page);
	}
	mutex_unlock(&pg->lock);
}

int mlx5sp_pages_init(struct mlx5sp_dev *dev)
{
	struct mlx5sp_pages *pg = &dev->pages;

	xa_init(&pg->given);
	mutex_init(&pg->lock);
	atomic_set(&pg->requested, 0);
	pg->npages = 0;
	INIT_WORK(&pg->req_work, pages_req_work);
	pg->wq = alloc_ordered_workqueue("mlx5sp_pages_%s", WQ_MEM_RECLAIM,
					 dev->name);
	return pg->wq ? 0 : -ENOMEM;
}

void mlx5sp_pages_cleanup(struct mlx5sp_dev *dev)
{
	destroy_workqueue(dev->pages.wq);
	mlx5sp_pages_flush(dev);
	xa_destroy(&dev->pages.given);
	mutex_destroy(&dev->pages.lock);
}
