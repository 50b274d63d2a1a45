/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Queue buffers of the software ConnectX (buf.c): the page lists the
 * driver gives for CQs, SRQs and QPs, and doorbell records.
 */
#ifndef MLX5SP_SIM_BUF_H
#define MLX5SP_SIM_BUF_H

#include <linux/sizes.h>
#include <linux/types.h>

struct mlx5sp_sim;
struct sim_cmd;

/*
 * Memory the driver hands over by a page list (CQ and QP buffers): the
 * kernel address of each 4 KiB page, checked once at creation. Entries the
 * model reads or writes (CQEs, WQE basic blocks) are 64-byte aligned, so
 * none crosses a page.
 */
struct sim_buf {
	void **pages;			/* kernel address of each 4 KiB page */
	u32 npages;
	u32 offset;			/* bytes before the data in pages[0] */
	u64 size;			/* bytes of data */
	u8 log_page_size;		/* PRM: 4 KiB << log_page_size */
	u8 page_offset;			/* PRM quantum: page size / 64 */
};

static inline void *sim_buf_at(const struct sim_buf *b, u64 off)
{
	off += b->offset;
	return b->pages[off >> 12] + (off & (SZ_4K - 1));
}

/* buf.c: page lists of CQ and QP buffers */
int sim_buf_init(struct sim_cmd *c, struct sim_buf *b, const __be64 *pas,
		 u32 max_pas, u8 log_page_size, u8 page_offset, u64 size);
void sim_buf_free(struct sim_buf *b);
void *sim_dbr_ptr(struct mlx5sp_sim *sim, u64 addr);

#endif /* MLX5SP_SIM_BUF_H */
