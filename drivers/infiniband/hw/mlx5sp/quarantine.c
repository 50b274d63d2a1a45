// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The DMA memory of kernel objects whose DESTROY firmware failed while
 * alive. ib_core takes no error from the destroy of a kernel CQ, QP or
 * SRQ (ib_destroy_cq(), ib_free_cq() and ib_destroy_srq() WARN, ULPs
 * ignore ib_destroy_qp()'s return, and a QP kept would keep its CQ and PD
 * in use for ever), so the object
 * goes; but firmware that kept it may still read its queue and doorbell
 * record, and write CQEs into a CQ's buffer. That memory is kept here
 * until the firmware is torn down (mlx5sp_dev_cleanup()), as a card's
 * function reset is the only end of its use that the driver can know.
 */
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/slab.h>

#include "ib.h"

struct mlx5sp_quarantined {
	struct list_head list;		/* in mlx5sp_dev.quarantine */
	struct mlx5sp_buf buf;
	__be32 *db;			/* from mlx5sp_dev.db_pool */
	dma_addr_t db_dma;
};

/**
 * mlx5sp_quarantine - keep a kernel object's DMA memory until teardown
 * @mdev: the core device
 * @buf: the object's queue buffer, taken (cleared)
 * @db: its kernel doorbell record, taken (cleared)
 * @what: "CQ", "QP", "SRQ" or a NIC queue, for the log
 * @n: its number
 *
 * The caller frees the rest of the object and reports success. Without
 * memory for the record the buffers are leaked, which is still safe.
 */
void mlx5sp_quarantine(struct mlx5sp_dev *mdev, struct mlx5sp_buf *buf,
		       struct mlx5sp_db *db, const char *what, u32 n)
{
	struct mlx5sp_quarantined *q;

	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		mlx5sp_err(mdev, "firmware failed to destroy %s 0x%x: its queue memory is leaked\n",
			   what, n);
		goto out;
	}
	q->buf = *buf;
	q->db = db->db;
	q->db_dma = db->dma;
	spin_lock(&mdev->quarantine_lock);
	list_add_tail(&q->list, &mdev->quarantine);
	spin_unlock(&mdev->quarantine_lock);
	mlx5sp_err(mdev, "firmware failed to destroy %s 0x%x: destroyed for its user, its queue memory kept until the device goes\n",
		   what, n);
out:
	buf->buf = NULL;
	db->db = NULL;
}

/* Firmware is torn down (or dead): it no longer touches any of it. */
void mlx5sp_quarantine_free(struct mlx5sp_dev *mdev)
{
	struct mlx5sp_quarantined *q, *tmp;
	LIST_HEAD(list);

	spin_lock(&mdev->quarantine_lock);
	list_splice_init(&mdev->quarantine, &list);
	spin_unlock(&mdev->quarantine_lock);
	list_for_each_entry_safe(q, tmp, &list, list) {
		if (q->buf.buf)
			dma_free_coherent(mdev->dma_dev, q->buf.size,
					  q->buf.buf, q->buf.dma);
		if (q->db)
			dma_pool_free(mdev->db_pool, q->db, q->db_dma);
		kfree(q);
	}
}
