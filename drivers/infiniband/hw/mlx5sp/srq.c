// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues (basic SRQs; XRC and tag matching are not
 * offered): CREATE_SRQ over a user buffer (mlx5_ib_create_srq udata) or a
 * kernel one, ARM_RQ for the limit, QUERY_SRQ, DESTROY_SRQ, and
 * post_srq_recv for kernel ULPs.
 *
 * The WQEs form a free list, as in mlx5_ib and libmlx5: each starts with a
 * next segment naming the WQE after it. Software posts at head and stops
 * when head meets tail (one WQE always stays free); the device takes WQEs
 * in list order and names each in its CQE's wqe_counter; software then
 * links it after tail. The limit event (SRQ_RQ_LIMIT) reaches the SRQ's
 * handler from a work item.
 */
#include <linux/slab.h>

#include "ib.h"

#define SRQ_MIN_DESC	32

static void srq_event(struct mlx5sp_core_qp *msrq, u8 type)
{
	struct mlx5sp_srq *srq = container_of(msrq, struct mlx5sp_srq, msrq);
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
	};

	switch (type) {
	case MLX5_EVENT_TYPE_SRQ_RQ_LIMIT:
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		break;
	case MLX5_EVENT_TYPE_SRQ_CATAS_ERROR:
		ev.event = IB_EVENT_SRQ_ERR;
		break;
	default:
		return;
	}
	mlx5sp_post_ib_event(msrq, &ev, srq->ibsrq.event_handler,
			     srq->ibsrq.srq_context);
}

static struct mlx5_wqe_srq_next_seg *get_wqe(struct mlx5sp_srq *srq, u32 n)
{
	return srq->buf.buf + ((size_t)n << srq->wqe_shift);
}

static int create_kernel_srq(struct mlx5sp_ib_dev *dev, struct mlx5sp_srq *srq,
			     size_t buf_size, size_t *npages)
{
	u32 i;
	int err;

	err = mlx5sp_db_alloc(dev->mdev, &srq->db);
	if (err)
		return err;
	err = mlx5sp_buf_alloc(dev->mdev, buf_size, &srq->buf);
	if (err)
		goto err_free_db;
	for (i = 0; i < srq->max; i++)
		get_wqe(srq, i)->next_wqe_index = cpu_to_be16((i + 1) &
							      (srq->max - 1));
	srq->head = 0;
	srq->tail = srq->max - 1;
	srq->wrid = kvcalloc(srq->max, sizeof(u64), GFP_KERNEL);
	if (!srq->wrid) {
		err = -ENOMEM;
		goto err_free_buf;
	}
	srq->busy = bitmap_zalloc(srq->max, GFP_KERNEL);
	if (!srq->busy) {
		err = -ENOMEM;
		goto err_free_wrid;
	}
	*npages = mlx5sp_buf_npages(&srq->buf);
	return 0;

err_free_wrid:
	kvfree(srq->wrid);
err_free_buf:
	mlx5sp_buf_free(dev->mdev, &srq->buf);
err_free_db:
	mlx5sp_db_free(dev->mdev, &srq->db);
	return err;
}

static void destroy_kernel_srq(struct mlx5sp_ib_dev *dev, struct mlx5sp_srq *srq)
{
	bitmap_free(srq->busy);
	kvfree(srq->wrid);
	mlx5sp_buf_free(dev->mdev, &srq->buf);
	mlx5sp_db_free(dev->mdev, &srq->db);
}

static int create_user_srq(struct mlx5sp_ib_dev *dev, struct mlx5sp_srq *srq,
			   struct ib_udata *udata, size_t buf_size,
			   size_t *npages)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);
	struct mlx5_ib_create_srq ucmd = {};
	struct ib_umem *umem;
	int err;

	if (udata->inlen < offsetofend(struct mlx5_ib_create_srq, flags))
		return -EINVAL;
	if (udata->inlen > sizeof(ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(ucmd), udata->inlen - sizeof(ucmd)))
		return -EINVAL;
	err = ib_copy_from_udata(&ucmd, udata, min(udata->inlen, sizeof(ucmd)));
	if (err)
		return err;
	if (ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	/* No WQE signatures (libmlx5 asks only when MLX5_SRQ_SIGNATURE is set). */
	if (ucmd.flags)
		return -EOPNOTSUPP;
	umem = mlx5sp_uqueue_get(dev, uctx, ucmd.buf_addr, buf_size, 0,
				 ucmd.db_addr, &srq->db, &srq->page_offset,
				 npages);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	srq->umem = umem;
	srq->user = true;
	return 0;
}

static void destroy_user_srq(struct mlx5sp_srq *srq, struct ib_udata *udata)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);

	mlx5sp_uqueue_put(uctx, srq->umem, &srq->db);
}

static int create_srq_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_srq *srq,
			  size_t npages)
{
	u32 out[MLX5_ST_SZ_DW(create_srq_out)] = {};
	__be64 *pas;
	void *srqc;
	int inlen;
	u32 *in;
	int err;

	inlen = MLX5_ST_SZ_BYTES(create_srq_in) + npages * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	pas = (__be64 *)MLX5_ADDR_OF(create_srq_in, in, pas);
	if (srq->user)
		mlx5sp_fill_pas_umem(srq->umem, MLX5_ADAPTER_PAGE_SIZE, pas, 0);
	else
		mlx5sp_fill_pas_contig(srq->buf.dma, npages, pas);
	MLX5_SET(create_srq_in, in, opcode, MLX5_CMD_OP_CREATE_SRQ);
	srqc = MLX5_ADDR_OF(create_srq_in, in, srq_context_entry);
	MLX5_SET(srqc, srqc, log_srq_size, ilog2(srq->max));
	MLX5_SET(srqc, srqc, log_rq_stride, srq->wqe_shift - 4);
	MLX5_SET(srqc, srqc, log_page_size, 0);	/* 4 KiB, relative to 4 KiB */
	MLX5_SET(srqc, srqc, page_offset, srq->page_offset);
	MLX5_SET(srqc, srqc, pd, to_pd(srq->ibsrq.pd)->pdn);
	MLX5_SET64(srqc, srqc, dbr_addr, srq->db.dma);
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return err;
	srq->msrq.qpn = MLX5_GET(create_srq_out, out, srqn);
	return 0;
}

static int destroy_srq_cmd(struct mlx5sp_ib_dev *dev, u32 srqn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_srq_in)] = {};

	MLX5_SET(destroy_srq_in, in, opcode, MLX5_CMD_OP_DESTROY_SRQ);
	MLX5_SET(destroy_srq_in, in, srqn, srqn);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "SRQ", srqn);
}

/*
 * The WQE size and count for @attr, as mlx5_ib computes them. A kernel
 * SRQ is one DMA block (max_srq_wr); a user one is bounded by the device
 * only (libmlx5 asks for twice what it was given, for its wait queue).
 */
static int srq_size(struct mlx5sp_ib_dev *dev, struct mlx5sp_srq *srq,
		    const struct ib_srq_attr *attr, bool user)
{
	u32 max_desc = MLX5SP_CAP_GEN(dev, max_wqe_sz_rq);
	u32 max_wr = user ? (1U << MLX5SP_CAP_GEN(dev, log_max_srq_sz)) - 1 :
			    mlx5sp_max_srq_wr(dev);
	size_t desc;

	if (attr->max_wr > max_wr ||
	    attr->max_sge > max_desc / sizeof(struct mlx5_wqe_data_seg))
		return -EINVAL;
	desc = sizeof(struct mlx5_wqe_srq_next_seg) +
	       attr->max_sge * sizeof(struct mlx5_wqe_data_seg);
	desc = max_t(size_t, SRQ_MIN_DESC, roundup_pow_of_two(desc));
	if (desc > max_desc)
		return -EINVAL;
	srq->max = roundup_pow_of_two(attr->max_wr + 1);
	srq->wqe_shift = ilog2(desc);
	srq->max_gs = (desc - sizeof(struct mlx5_wqe_srq_next_seg)) /
		      sizeof(struct mlx5_wqe_data_seg);
	return 0;
}

int mlx5sp_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		      struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibsrq->device);
	struct mlx5sp_srq *srq = to_srq(ibsrq);
	size_t buf_size, npages;
	int err;

	if (init_attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	err = srq_size(dev, srq, &init_attr->attr, !!udata);
	if (err)
		return err;
	spin_lock_init(&srq->lock);
	srq->msrq.event = srq_event;
	buf_size = (size_t)srq->max << srq->wqe_shift;
	if (udata)
		err = create_user_srq(dev, srq, udata, buf_size, &npages);
	else
		err = create_kernel_srq(dev, srq, buf_size, &npages);
	if (err)
		return err;
	err = create_srq_cmd(dev, srq, npages);
	if (err)
		goto err_free_buffers;
	err = mlx5sp_core_srq_insert(dev->mdev, &srq->msrq);
	if (err == -EEXIST) {
		/* not by a number another SRQ has */
		err = -EIO;
		goto err_free_buffers;
	}
	if (err)
		goto err_destroy_srq;
	if (udata) {
		struct mlx5_ib_create_srq_resp resp = { .srqn = srq->msrq.qpn };

		err = ib_copy_to_udata(udata, &resp, min_t(size_t, udata->outlen,
							   sizeof(resp)));
		if (err)
			goto err_remove;
	}
	init_attr->attr.max_wr = srq->max - 1;
	init_attr->attr.max_sge = srq->max_gs;
	return 0;

err_remove:
	mlx5sp_core_srq_remove(dev->mdev, &srq->msrq);
err_destroy_srq:
	destroy_srq_cmd(dev, srq->msrq.qpn);
err_free_buffers:
	if (udata)
		destroy_user_srq(srq, udata);
	else
		destroy_kernel_srq(dev, srq);
	return err;
}

int mlx5sp_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibsrq->device);
	struct mlx5sp_srq *srq = to_srq(ibsrq);
	int err;

	err = destroy_srq_cmd(dev, srq->msrq.qpn);
	if (err && !mlx5sp_dev_dead(dev->mdev)) {
		/* a user may try again; ib_core takes no error for its own */
		if (srq->user)
			return err;
		mlx5sp_quarantine(dev->mdev, &srq->buf, &srq->db, "SRQ",
				  srq->msrq.qpn);
	}
	/* No event handler runs after this. */
	mlx5sp_core_srq_remove(dev->mdev, &srq->msrq);
	if (srq->user)
		destroy_user_srq(srq, udata);
	else
		destroy_kernel_srq(dev, srq);
	return 0;
}

static int arm_srq_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_srq *srq,
		       u16 lwm)
{
	u32 in[MLX5_ST_SZ_DW(arm_rq_in)] = {};

	MLX5_SET(arm_rq_in, in, opcode, MLX5_CMD_OP_ARM_RQ);
	MLX5_SET(arm_rq_in, in, op_mod, MLX5_ARM_RQ_IN_OP_MOD_SRQ);
	MLX5_SET(arm_rq_in, in, srq_number, srq->msrq.qpn);
	MLX5_SET(arm_rq_in, in, lwm, lwm);
	return mlx5sp_cmd_exec_in(dev->mdev, arm_rq, in);
}

int mlx5sp_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		      enum ib_srq_attr_mask attr_mask, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibsrq->device);
	struct mlx5sp_srq *srq = to_srq(ibsrq);

	/* Resizing an SRQ is not offered (nor by mlx5_ib). */
	if (attr_mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	if (!(attr_mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= srq->max)
		return -EINVAL;
	return arm_srq_cmd(dev, srq, attr->srq_limit);
}

int mlx5sp_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibsrq->device);
	struct mlx5sp_srq *srq = to_srq(ibsrq);
	u32 in[MLX5_ST_SZ_DW(query_srq_in)] = {};
	void *srqc;
	u32 *out;
	int err;

	out = kvzalloc(MLX5_ST_SZ_BYTES(query_srq_out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	MLX5_SET(query_srq_in, in, opcode, MLX5_CMD_OP_QUERY_SRQ);
	MLX5_SET(query_srq_in, in, srqn, srq->msrq.qpn);
	err = mlx5sp_cmd_exec(dev->mdev, in, sizeof(in), out,
			      MLX5_ST_SZ_BYTES(query_srq_out));
	if (err)
		goto out_free;
	srqc = MLX5_ADDR_OF(query_srq_out, out, srq_context_entry);
	attr->srq_limit = MLX5_GET(srqc, srqc, lwm);
	attr->max_wr = srq->max - 1;
	attr->max_sge = srq->max_gs;
out_free:
	kvfree(out);
	return err;
}

/*
 * A kernel SRQ's WQE @idx the device used is free again; false when it
 * was not posted (the CQE naming it is not to be believed).
 */
bool mlx5sp_srq_free_wqe(struct mlx5sp_srq *srq, u16 idx)
{
	unsigned long flags;
	bool posted;

	spin_lock_irqsave(&srq->lock, flags);
	posted = __test_and_clear_bit(idx, srq->busy);
	if (posted) {
		get_wqe(srq, srq->tail)->next_wqe_index = cpu_to_be16(idx);
		srq->tail = idx;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return posted;
}

int mlx5sp_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct mlx5sp_srq *srq = to_srq(ibsrq);
	struct mlx5_wqe_srq_next_seg *next;
	struct mlx5_wqe_data_seg *scat;
	unsigned long flags;
	u32 nreq = 0;
	int err = 0;
	int i;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/* firmware is dead: as on mlx5_ib */
	if (mlx5sp_dev_dead(to_ibdev(ibsrq->device)->mdev)) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next, nreq++) {
		if (wr->num_sge < 0 || wr->num_sge > srq->max_gs) {
			err = -EINVAL;
			*bad_wr = wr;
			break;
		}
		if (srq->head == srq->tail) {
			err = -ENOMEM;	/* full */
			*bad_wr = wr;
			break;
		}
		srq->wrid[srq->head] = wr->wr_id;
		__set_bit(srq->head, srq->busy);
		next = get_wqe(srq, srq->head);
		srq->head = be16_to_cpu(next->next_wqe_index) & (srq->max - 1);
		scat = (struct mlx5_wqe_data_seg *)(next + 1);
		for (i = 0; i < wr->num_sge; i++) {
			scat[i].byte_count = cpu_to_be32(wr->sg_list[i].length);
			scat[i].lkey = cpu_to_be32(wr->sg_list[i].lkey);
			scat[i].addr = cpu_to_be64(wr->sg_list[i].addr);
		}
		if (i < srq->max_gs) {
			scat[i].byte_count = 0;
			scat[i].lkey = cpu_to_be32(MLX5SP_INVALID_LKEY);
			scat[i].addr = 0;
		}
	}
	if (nreq) {
		srq->counter += nreq;
		/* WQEs are in memory before the record says they are there. */
		wmb();
		srq->db.db[0] = cpu_to_be32(srq->counter);
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}
