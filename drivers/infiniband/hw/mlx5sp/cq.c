// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues: CREATE_CQ over a user buffer (mlx5_ib_create_cq
 * udata) or a kernel one, 64-byte CQEs, arming through the doorbell record
 * and the UAR's CQ doorbell, and for kernel CQs the CQE parser behind
 * poll_cq. Completion events reach the CQ's handler in interrupt context.
 */
#include <linux/slab.h>

#include "ib.h"
#include "trace.h"

#define CQ_ARM_DB	1	/* dbrec[1]: arm; dbrec[0]: consumer index */

static void cq_comp(struct mlx5sp_core_cq *mcq)
{
	struct mlx5sp_cq *cq = container_of(mcq, struct mlx5sp_cq, mcq);

	/* The arm sequence number moves with each event, as on the card. */
	cq->arm_sn++;
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static void cq_event(struct mlx5sp_core_cq *mcq, u8 type)
{
	struct mlx5sp_cq *cq = container_of(mcq, struct mlx5sp_cq, mcq);
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.event = IB_EVENT_CQ_ERR,
		.element.cq = &cq->ibcq,
	};

	if (type != MLX5_EVENT_TYPE_CQ_ERROR)
		return;
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

static struct mlx5_cqe64 *buf_cqe(struct mlx5sp_buf *buf, u32 nent, u32 n)
{
	return buf->buf + (n & (nent - 1)) * MLX5SP_CQE_SIZE;
}

static struct mlx5_cqe64 *get_cqe(struct mlx5sp_cq *cq, u32 n)
{
	return buf_cqe(&cq->buf, cq->nent, n);
}

/* A CQE software owns: valid opcode, owner bit of the current pass. */
static struct mlx5_cqe64 *get_sw_cqe(struct mlx5sp_cq *cq, u32 n)
{
	struct mlx5_cqe64 *cqe = get_cqe(cq, n);

	if ((cqe->op_own >> 4) == MLX5_CQE_INVALID ||
	    ((cqe->op_own & MLX5_CQE_OWNER_MASK) ^ !!(n & cq->nent)))
		return NULL;
	return cqe;
}

static void init_kernel_cqes(struct mlx5sp_buf *buf, u32 nent)
{
	u32 i;

	for (i = 0; i < nent; i++)
		buf_cqe(buf, nent, i)->op_own = MLX5_CQE_INVALID << 4;
}

static int create_user_cq(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			  struct ib_udata *udata, size_t *npages,
			  u32 *page_offset)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);
	struct mlx5_ib_create_cq ucmd = {};
	struct ib_umem *umem;
	size_t ucmdlen;
	int err;

	ucmdlen = min_t(size_t, udata->inlen, sizeof(ucmd));
	if (ucmdlen < offsetof(struct mlx5_ib_create_cq, flags))
		return -EINVAL;
	if (udata->inlen > sizeof(ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(ucmd), udata->inlen - sizeof(ucmd)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&ucmd, udata, ucmdlen);
	if (err)
		return err;
	if (ucmd.flags & ~MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX)
		return -EOPNOTSUPP;
	/* what mlx5_ib refuses as invalid, then what it could do and we not */
	if ((ucmd.cqe_size != 64 && ucmd.cqe_size != 128) ||
	    ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	if (ucmd.cqe_size != MLX5SP_CQE_SIZE || ucmd.cqe_comp_en ||
	    ucmd.cqe_comp_res_format)
		return -EOPNOTSUPP;
	/* The CQ doorbell must be on a UAR this context owns. */
	if (!(ucmd.flags & MLX5_IB_CREATE_CQ_FLAGS_UAR_PAGE_INDEX) ||
	    !mlx5sp_uctx_owns_uar(uctx, ucmd.uar_page_index))
		return -EINVAL;
	cq->uar_index = ucmd.uar_page_index;

	umem = mlx5sp_uqueue_get(dev, uctx, ucmd.buf_addr,
				 (size_t)cq->nent * MLX5SP_CQE_SIZE,
				 IB_ACCESS_LOCAL_WRITE, ucmd.db_addr, &cq->db,
				 page_offset, npages);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	cq->umem = umem;
	cq->user = true;
	return 0;
}

static void destroy_user_cq(struct mlx5sp_cq *cq, struct ib_udata *udata)
{
	struct mlx5sp_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct mlx5sp_ucontext, ibuc);

	mlx5sp_uqueue_put(uctx, cq->umem, &cq->db);
}

static int create_kernel_cq(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			    size_t *npages)
{
	int err;

	err = mlx5sp_db_alloc(dev->mdev, &cq->db);
	if (err)
		return err;
	err = mlx5sp_buf_alloc(dev->mdev, (size_t)cq->nent * MLX5SP_CQE_SIZE, &cq->buf);
	if (err)
		goto err_free_db;
	init_kernel_cqes(&cq->buf, cq->nent);
	cq->uar_index = dev->mdev->uar_index;
	*npages = mlx5sp_buf_npages(&cq->buf);
	return 0;

err_free_db:
	mlx5sp_db_free(dev->mdev, &cq->db);
	return err;
}

static void destroy_kernel_cq(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq)
{
	mlx5sp_buf_free(dev->mdev, &cq->buf);
	mlx5sp_db_free(dev->mdev, &cq->db);
}

static int destroy_cq_cmd(struct mlx5sp_ib_dev *dev, u32 cqn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_cq_in)] = {};

	MLX5_SET(destroy_cq_in, in, opcode, MLX5_CMD_OP_DESTROY_CQ);
	MLX5_SET(destroy_cq_in, in, cqn, cqn);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "CQ", cqn);
}

static int create_cq_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			 size_t npages, u32 page_offset, u32 eqn)
{
	u32 out[MLX5_ST_SZ_DW(create_cq_out)] = {};
	__be64 *pas;
	void *cqc;
	int inlen;
	u32 *in;
	int err;

	inlen = MLX5_ST_SZ_BYTES(create_cq_in) + npages * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	pas = (__be64 *)MLX5_ADDR_OF(create_cq_in, in, pas);
	if (cq->user)
		mlx5sp_fill_pas_umem(cq->umem, MLX5_ADAPTER_PAGE_SIZE, pas, 0);
	else
		mlx5sp_fill_pas_contig(cq->buf.dma, npages, pas);
	MLX5_SET(create_cq_in, in, opcode, MLX5_CMD_OP_CREATE_CQ);
	MLX5_SET(create_cq_in, in, uid, cq->uid);
	cqc = MLX5_ADDR_OF(create_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, CQE_STRIDE_64);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(cq->nent));
	MLX5_SET(cqc, cqc, uar_page, cq->uar_index);
	MLX5_SET(cqc, cqc, c_eqn_or_apu_element, eqn);
	MLX5_SET(cqc, cqc, log_page_size, 0);	/* 4 KiB, relative to 4 KiB */
	MLX5_SET(cqc, cqc, page_offset, page_offset);
	MLX5_SET64(cqc, cqc, dbr_addr, cq->db.dma);
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		return err;
	cq->mcq.cqn = MLX5_GET(create_cq_out, out, cqn);
	return 0;
}

int mlx5sp_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		     struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct mlx5sp_ib_dev *dev = to_ibdev(ibcq->device);
	struct mlx5sp_cq *cq = to_cq(ibcq);
	u32 page_offset = 0;
	size_t npages;
	u32 eqn;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe <= 0 || attr->cqe > mlx5sp_max_cqe(dev))
		return -EINVAL;
	err = mlx5sp_comp_eqn(dev->mdev, attr->comp_vector, &eqn);
	if (err)
		return err;
	cq->nent = roundup_pow_of_two(attr->cqe + 1);
	cq->ibcq.cqe = cq->nent - 1;
	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->mcq.comp = cq_comp;
	cq->mcq.event = cq_event;
	cq->mcq.eq_vector = attr->comp_vector;
	cq->uid = mlx5sp_ctx_uid(udata);

	if (udata)
		err = create_user_cq(dev, cq, udata, &npages, &page_offset);
	else
		err = create_kernel_cq(dev, cq, &npages);
	if (err)
		goto err_mutex;
	err = create_cq_cmd(dev, cq, npages, page_offset, eqn);
	if (err)
		goto err_free_buffers;
	err = mlx5sp_core_cq_insert(dev->mdev, &cq->mcq);
	if (err == -EEXIST) {
		/* not by a number another CQ has */
		err = -EIO;
		goto err_free_buffers;
	}
	if (err)
		goto err_destroy_cq;
	if (udata) {
		struct mlx5_ib_create_cq_resp resp = { .cqn = cq->mcq.cqn };

		err = ib_copy_to_udata(udata, &resp, min_t(size_t, udata->outlen,
							   sizeof(resp)));
		if (err)
			goto err_remove;
	}
	return 0;

err_remove:
	mlx5sp_core_cq_remove(dev->mdev, &cq->mcq);
err_destroy_cq:
	destroy_cq_cmd(dev, cq->mcq.cqn);
err_free_buffers:
	if (udata)
		destroy_user_cq(cq, udata);
	else
		destroy_kernel_cq(dev, cq);
err_mutex:
	mutex_destroy(&cq->resize_mutex);
	return err;
}

int mlx5sp_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibcq->device);
	struct mlx5sp_cq *cq = to_cq(ibcq);
	int err;

	err = destroy_cq_cmd(dev, cq->mcq.cqn);
	if (err && !mlx5sp_dev_dead(dev->mdev)) {
		/* a user may try again; ib_core takes no error for its own */
		if (cq->user)
			return err;
		mlx5sp_quarantine(dev->mdev, &cq->buf, &cq->db, "CQ", cq->mcq.cqn);
	}
	/* Firmware writes no more EQEs for it; wait out handlers running. */
	mlx5sp_core_cq_remove(dev->mdev, &cq->mcq);
	if (cq->user)
		destroy_user_cq(cq, udata);
	else
		destroy_kernel_cq(dev, cq);
	mutex_destroy(&cq->resize_mutex);
	return 0;
}

/*
 * Resize (MODIFY_CQ, op_mod RESIZE): firmware writes a RESIZE_CQ CQE at
 * its producer index in the old buffer and goes on in the new one at the
 * next index. The CQEs before it are copied to the new buffer one index
 * later, and the consumer index steps over the RESIZE_CQ CQE (libmlx5's
 * mlx5_cq_resize_copy_cqes() for user CQs; for kernel CQs the copy below,
 * or the switch in poll_one() when the poller reaches the RESIZE_CQ CQE
 * first).
 */
static int resize_cq_cmd(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			 u32 nent, size_t npages, u32 page_offset,
			 struct ib_umem *umem, struct mlx5sp_buf *kbuf)
{
	u32 out[MLX5_ST_SZ_DW(modify_cq_out)] = {};
	__be64 *pas;
	void *cqc;
	int inlen;
	u32 *in;
	int err;

	inlen = MLX5_ST_SZ_BYTES(modify_cq_in) + npages * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	pas = (__be64 *)MLX5_ADDR_OF(modify_cq_in, in, pas);
	if (umem)
		mlx5sp_fill_pas_umem(umem, MLX5_ADAPTER_PAGE_SIZE, pas, 0);
	else
		mlx5sp_fill_pas_contig(kbuf->dma, npages, pas);
	MLX5_SET(modify_cq_in, in, opcode, MLX5_CMD_OP_MODIFY_CQ);
	MLX5_SET(modify_cq_in, in, op_mod, MLX5_CQ_OPMOD_RESIZE);
	MLX5_SET(modify_cq_in, in, cqn, cq->mcq.cqn);
	MLX5_SET(modify_cq_in, in,
		 modify_field_select_resize_field_select.resize_field_select.resize_field_select,
		 MLX5_MODIFY_CQ_MASK_LOG_SIZE | MLX5_MODIFY_CQ_MASK_PG_OFFSET |
		 MLX5_MODIFY_CQ_MASK_PG_SIZE);
	cqc = MLX5_ADDR_OF(modify_cq_in, in, cq_context);
	MLX5_SET(cqc, cqc, cqe_sz, CQE_STRIDE_64);
	MLX5_SET(cqc, cqc, log_cq_size, ilog2(nent));
	MLX5_SET(cqc, cqc, log_page_size, 0);
	MLX5_SET(cqc, cqc, page_offset, page_offset);
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	kvfree(in);
	return err;
}

/* Make the resize buffer the CQ's buffer. cq->lock held. */
static void switch_cq_buf(struct mlx5sp_cq *cq)
{
	swap(cq->buf, cq->rbuf);
	swap(cq->nent, cq->rnent);
	cq->resizing = false;
}

/*
 * The resize command completed and the poller has not met the RESIZE_CQ
 * CQE: move the CQEs before it to the new buffer. cq->lock held.
 */
static int copy_resize_cqes(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq)
{
	struct mlx5_cqe64 *scqe, *dcqe;
	u32 i = cq->cons_index, n;

	for (n = 0; n < cq->nent; n++, i++) {
		scqe = get_sw_cqe(cq, i);
		if (!scqe)
			break;
		dma_rmb();
		if ((scqe->op_own >> 4) == MLX5_CQE_RESIZE_CQ) {
			cq->cons_index++;
			return 0;
		}
		dcqe = buf_cqe(&cq->rbuf, cq->rnent, i + 1);
		memcpy(dcqe, scqe, sizeof(*dcqe));
		dcqe->op_own = (scqe->op_own & ~MLX5_CQE_OWNER_MASK) |
			       (((i + 1) & cq->rnent) ? 1 : 0);
	}
	ibdev_err_rl(dev, "CQ 0x%x: no RESIZE_CQ CQE after a resize\n",
		     cq->mcq.cqn);
	return -EIO;
}

static int resize_kernel_cq(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			    u32 nent)
{
	struct mlx5sp_buf nbuf;
	unsigned long flags;
	int err;

	err = mlx5sp_buf_alloc(dev->mdev, (size_t)nent * MLX5SP_CQE_SIZE, &nbuf);
	if (err)
		return err;
	init_kernel_cqes(&nbuf, nent);
	spin_lock_irqsave(&cq->lock, flags);
	cq->rbuf = nbuf;
	cq->rnent = nent;
	cq->resizing = true;
	spin_unlock_irqrestore(&cq->lock, flags);

	err = resize_cq_cmd(dev, cq, nent, mlx5sp_buf_npages(&nbuf), 0, NULL,
			    &nbuf);

	spin_lock_irqsave(&cq->lock, flags);
	if (err) {
		/* Firmware refused: it wrote no RESIZE_CQ CQE. */
		cq->resizing = false;
	} else if (cq->resizing) {
		err = copy_resize_cqes(dev, cq);
		switch_cq_buf(cq);
	}
	if (!err)
		cq->ibcq.cqe = nent - 1;
	/* Now the buffer the CQ no longer uses. */
	nbuf = cq->rbuf;
	memset(&cq->rbuf, 0, sizeof(cq->rbuf));
	spin_unlock_irqrestore(&cq->lock, flags);
	mlx5sp_buf_free(dev->mdev, &nbuf);
	return err;
}

static int resize_user_cq(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			  u32 nent, struct ib_udata *udata)
{
	struct mlx5_ib_resize_cq ucmd = {};
	struct ib_umem *umem;
	u32 page_offset;
	size_t npages;
	int err;

	if (udata->inlen < sizeof(ucmd))
		return -EINVAL;
	if (udata->inlen > sizeof(ucmd) &&
	    !ib_is_udata_cleared(udata, sizeof(ucmd), udata->inlen - sizeof(ucmd)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.reserved0 || ucmd.reserved1)
		return -EINVAL;
	if (ucmd.cqe_size != MLX5SP_CQE_SIZE)
		return -EOPNOTSUPP;
	umem = ib_umem_get(&dev->ib, ucmd.buf_addr,
			   (size_t)nent * MLX5SP_CQE_SIZE, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	err = mlx5sp_umem_page(umem, ucmd.buf_addr, &page_offset, &npages);
	if (err)
		goto err_release;
	err = resize_cq_cmd(dev, cq, nent, npages, page_offset, umem, NULL);
	if (err)
		goto err_release;
	ib_umem_release(cq->umem);
	cq->umem = umem;
	cq->nent = nent;
	cq->ibcq.cqe = nent - 1;
	return 0;

err_release:
	ib_umem_release(umem);
	return err;
}

int mlx5sp_resize_cq(struct ib_cq *ibcq, int entries, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibcq->device);
	struct mlx5sp_cq *cq = to_cq(ibcq);
	u32 nent;
	int err;

	if (!MLX5SP_CAP_GEN(dev, cq_resize))
		return -EOPNOTSUPP;
	if (entries < 1 || entries > mlx5sp_max_cqe(dev))
		return -EINVAL;
	nent = roundup_pow_of_two(entries + 1);
	if (!!udata != cq->user)
		return -EINVAL;
	mutex_lock(&cq->resize_mutex);
	if (nent == cq->ibcq.cqe + 1)
		err = 0;
	else if (cq->user)
		err = resize_user_cq(dev, cq, nent, udata);
	else
		err = resize_kernel_cq(dev, cq, nent);
	mutex_unlock(&cq->resize_mutex);
	return err;
}

enum ib_wc_status mlx5sp_syndrome_to_status(u8 syndrome)
{
	switch (syndrome) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return IB_WC_LOC_LEN_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return IB_WC_LOC_QP_OP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return IB_WC_LOC_PROT_ERR;
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return IB_WC_WR_FLUSH_ERR;
	case MLX5_CQE_SYNDROME_MW_BIND_ERR:
		return IB_WC_MW_BIND_ERR;
	case MLX5_CQE_SYNDROME_BAD_RESP_ERR:
		return IB_WC_BAD_RESP_ERR;
	case MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR:
		return IB_WC_LOC_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR:
		return IB_WC_REM_INV_REQ_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR:
		return IB_WC_REM_ACCESS_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_OP_ERR:
		return IB_WC_REM_OP_ERR;
	case MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR:
		return IB_WC_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR:
		return IB_WC_RNR_RETRY_EXC_ERR;
	case MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR:
		return IB_WC_REM_ABORT_ERR;
	default:
		return IB_WC_GENERAL_ERR;
	}
}
EXPORT_SYMBOL_GPL(mlx5sp_syndrome_to_status);

static void parse_req(const struct mlx5_cqe64 *cqe, struct ib_wc *wc)
{
	switch (be32_to_cpu(cqe->sop_drop_qpn) >> 24) {
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		wc->wc_flags |= IB_WC_WITH_IMM;
		fallthrough;
	case MLX5_OPCODE_RDMA_WRITE:
		wc->opcode = IB_WC_RDMA_WRITE;
		break;
	case MLX5_OPCODE_SEND_IMM:
		wc->wc_flags |= IB_WC_WITH_IMM;
		fallthrough;
	case MLX5_OPCODE_NOP:
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_INVAL:
		wc->opcode = IB_WC_SEND;
		break;
	case MLX5_OPCODE_RDMA_READ:
		wc->opcode = IB_WC_RDMA_READ;
		wc->byte_len = be32_to_cpu(cqe->byte_cnt);
		break;
	case MLX5_OPCODE_ATOMIC_CS:
		wc->opcode = IB_WC_COMP_SWAP;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_ATOMIC_FA:
		wc->opcode = IB_WC_FETCH_ADD;
		wc->byte_len = 8;
		break;
	case MLX5_OPCODE_UMR:
		/* REG_MR or LOCAL_INV: the CQE does not tell them apart */
	case MLX5_OPCODE_SET_PSV:
		/* the last WQE of a REG_MR_INTEGRITY */
		wc->opcode = IB_WC_REG_MR;
		break;
	default:
		wc->opcode = IB_WC_SEND;
		break;
	}
}

static void parse_resp(const struct mlx5_cqe64 *cqe, struct ib_wc *wc)
{
	u32 flags_rqpn = be32_to_cpu(cqe->flags_rqpn);
	u8 vlan_present;

	wc->byte_len = be32_to_cpu(cqe->byte_cnt);
	switch (cqe->op_own >> 4) {
	case MLX5_CQE_RESP_WR_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags = IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immediate;
		break;
	case MLX5_CQE_RESP_SEND:
		wc->opcode = IB_WC_RECV;
		break;
	case MLX5_CQE_RESP_SEND_IMM:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags = IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->immediate;
		break;
	case MLX5_CQE_RESP_SEND_INV:
		wc->opcode = IB_WC_RECV;
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->inval_rkey);
		break;
	}
	wc->src_qp = flags_rqpn & 0xffffff;
	wc->dlid_path_bits = cqe->ml_path;
	if ((flags_rqpn >> 28) & 3)
		wc->wc_flags |= IB_WC_GRH;
	wc->pkey_index = 0;
	wc->sl = 0;
	vlan_present = cqe->l4_l3_hdr_type & 0x1;
	if (vlan_present) {
		wc->vlan_id = be16_to_cpu(cqe->vlan_info) & 0xfff;
		wc->sl = (be16_to_cpu(cqe->vlan_info) >> 13) & 0x7;
		wc->wc_flags |= IB_WC_WITH_VLAN;
	}
	switch ((flags_rqpn >> 24) & 0x3) {
	case MLX5_CQE_ROCE_L3_HEADER_TYPE_GRH:
		wc->network_hdr_type = RDMA_NETWORK_ROCE_V1;
		break;
	case MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV6:
		wc->network_hdr_type = RDMA_NETWORK_IPV6;
		break;
	case MLX5_CQE_ROCE_L3_HEADER_TYPE_IPV4:
		wc->network_hdr_type = RDMA_NETWORK_IPV4;
		break;
	}
	wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
}

/**
 * mlx5sp_parse_cqe - what a CQE says, minus the WR it completes
 * @cqe: a CQE software owns
 * @wc: filled: status, opcode, flags, lengths, addressing; wr_id and qp
 *	are the caller's (they come from the QP's work queue)
 */
void mlx5sp_parse_cqe(const struct mlx5_cqe64 *cqe, struct ib_wc *wc)
{
	u8 opcode = cqe->op_own >> 4;

	memset(wc, 0, sizeof(*wc));
	switch (opcode) {
	case MLX5_CQE_REQ:
		wc->status = IB_WC_SUCCESS;
		parse_req(cqe, wc);
		break;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
		wc->status = IB_WC_SUCCESS;
		parse_resp(cqe, wc);
		break;
	case MLX5_CQE_REQ_ERR:
	case MLX5_CQE_RESP_ERR: {
		const struct mlx5_err_cqe *err = (const void *)cqe;

		wc->status = mlx5sp_syndrome_to_status(err->syndrome);
		wc->vendor_err = err->vendor_err_synd;
		break;
	}
	default:
		/* SIGERR CQEs are consumed before (poll_one): not a WR's */
		wc->status = IB_WC_GENERAL_ERR;
		break;
	}
}
EXPORT_SYMBOL_GPL(mlx5sp_parse_cqe);

static bool cqe_is_req(u8 opcode)
{
	return opcode == MLX5_CQE_REQ || opcode == MLX5_CQE_REQ_ERR;
}

/* The QP a CQE of a kernel CQ belongs to; NULL for one destroyed since. */
static struct mlx5sp_qp *cqe_qp(struct mlx5sp_ib_dev *dev,
				const struct mlx5_cqe64 *cqe)
{
	u32 qpn = be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff;
	struct mlx5sp_core_qp *mqp;

	mqp = xa_load(&dev->mdev->qp_table, qpn);
	return mqp ? container_of(mqp, struct mlx5sp_qp, mqp) : NULL;
}

/*
 * A CQE a ConnectX can write for @qp on @cq: a PRM opcode, the send CQ of
 * the QP for a requester's, its receive CQ with a receive posted (or an
 * SRQ) for a responder's. Under cq->lock; rq.head is the poster's.
 */
static bool cqe_fits(struct mlx5sp_cq *cq, struct mlx5sp_qp *qp, u8 opcode)
{
	switch (opcode) {
	case MLX5_CQE_REQ:
	case MLX5_CQE_REQ_ERR:
		return qp->ibqp.send_cq == &cq->ibcq;
	case MLX5_CQE_RESP_WR_IMM:
	case MLX5_CQE_RESP_SEND:
	case MLX5_CQE_RESP_SEND_IMM:
	case MLX5_CQE_RESP_SEND_INV:
	case MLX5_CQE_RESP_ERR:
		if (qp->ibqp.recv_cq != &cq->ibcq)
			return false;
		return qp->ibqp.srq || READ_ONCE(qp->rq.head) != qp->rq.tail;
	default:
		return false;
	}
}

/*
 * Does the WQE counter @wqe of a CQE name work @qp still has outstanding?
 * A requester's: a WQE between the last one completed and the producer
 * (16-bit basic block numbers); a responder's on a receive queue: the
 * oldest receive, whose number a ConnectX writes, so a counter behind it
 * is a completion seen already (an SRQ's WQEs are checked by index,
 * mlx5sp_srq_free_wqe()). Under cq->lock.
 */
static bool cqe_outstanding(struct mlx5sp_qp *qp, u8 opcode, u16 wqe)
{
	struct mlx5sp_wq *wq;

	if (cqe_is_req(opcode)) {
		wq = &qp->sq;
		/* the poster's; its CQE came after its doorbell */
		return (u16)(wqe - wq->poll_bb) <
		       (u16)(READ_ONCE(wq->cur_post) - wq->poll_bb);
	}
	if (qp->ibqp.srq)
		return true;
	return (s16)(wqe - (u16)qp->rq.tail) >= 0;
}

/*
 * The next CQE: 1 with @wc filled, 0 when it was consumed without a work
 * completion (a signature error, the flush of a WQE that is not its WR's
 * last), -EAGAIN when there is none. cq->lock held.
 */
static int poll_one_cqe(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
			struct ib_wc *wc)
{
	struct mlx5_cqe64 *cqe;
	struct mlx5sp_qp *qp;
	struct mlx5sp_wq *wq;
	u8 opcode;
	u16 idx;

	cqe = get_sw_cqe(cq, cq->cons_index);
	if (!cqe)
		return -EAGAIN;
	/* Read the CQE only after its owner bit said it is ours. */
	dma_rmb();
	cq->cons_index++;
	opcode = cqe->op_own >> 4;
	if (opcode == MLX5_CQE_RESIZE_CQ) {
		/* Before the resizer looked: switch here. */
		if (cq->resizing)
			switch_cq_buf(cq);
		return 0;
	}
	if (opcode == MLX5_CQE_SIG_ERR) {
		/* an integrity MR's key failed a check: for check_mr_status */
		mlx5sp_sig_err_cqe(dev, (const void *)cqe);
		return 0;
	}
	qp = cqe_qp(dev, cqe);
	if (!qp || qp->user) {
		ibdev_err_rl(dev, "CQ 0x%x: CQE for unknown QP 0x%x dropped\n",
			     cq->mcq.cqn, be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff);
		return 0;
	}
	/* what the device says is checked against what this CQ serves */
	if (!cqe_fits(cq, qp, opcode)) {
		ibdev_err_rl(dev, "CQ 0x%x: CQE opcode 0x%x for QP 0x%x it does not serve dropped\n",
			     cq->mcq.cqn, opcode, qp->ibqp.qp_num);
		return 0;
	}
	mlx5sp_parse_cqe(cqe, wc);
	wc->qp = &qp->ibqp;
	if (opcode == MLX5_CQE_REQ_ERR || opcode == MLX5_CQE_RESP_ERR) {
		const struct mlx5_err_cqe *e = (const void *)cqe;

		trace_mlx5sp_cqe_err(dev->mdev->name, cq->mcq.cqn,
				     qp->ibqp.qp_num, e->syndrome,
				     e->vendor_err_synd,
				     be16_to_cpu(cqe->wqe_counter), wc->status);
	}
	if (!cqe_outstanding(qp, opcode, be16_to_cpu(cqe->wqe_counter))) {
		ibdev_err_rl(dev, "CQ 0x%x: CQE for QP 0x%x names WQE 0x%x, not outstanding: dropped\n",
			     cq->mcq.cqn, qp->ibqp.qp_num,
			     be16_to_cpu(cqe->wqe_counter));
		return 0;
	}
	if (cqe_is_req(opcode)) {
		wq = &qp->sq;
		idx = be16_to_cpu(cqe->wqe_counter) & (wq->wqe_cnt - 1);
		wc->wr_id = wq->wrid[idx];
		/* this WQE and every one before it are done */
		wq->poll_bb = be16_to_cpu(cqe->wqe_counter) +
			      mlx5sp_sq_wqe_nbb(qp, idx);
		/* cancelled to a NOP: the WR completes with its own opcode */
		if (wq->wc_op[idx] != MLX5SP_WC_OP_NONE) {
			wc->opcode = wq->wc_op[idx];
			wc->byte_len = 0;
			wq->wc_op[idx] = MLX5SP_WC_OP_NONE;
		}
		/*
		 * The WR's last WQE completes it; one of its others only in
		 * error, and then the rest of the WR (flushed) stays silent.
		 */
		if (test_bit(idx, wq->partial)) {
			if (wc->status == IB_WC_SUCCESS ||
			    wc->status == IB_WC_WR_FLUSH_ERR)
				return 0;
			wq->failed_head = wq->wqe_head[idx];
			wq->failed = true;
		} else {
			WRITE_ONCE(wq->tail, wq->wqe_head[idx] + 1);
			if (wq->failed && wq->failed_head == wq->wqe_head[idx]) {
				wq->failed = false;
				return 0;
			}
		}
	} else if (qp->ibqp.srq) {
		struct mlx5sp_srq *srq = to_srq(qp->ibqp.srq);

		/* The CQE names the SRQ WQE by its index: free it again. */
		idx = be16_to_cpu(cqe->wqe_counter) & (srq->max - 1);
		wc->wr_id = srq->wrid[idx];
		if (!mlx5sp_srq_free_wqe(srq, idx)) {
			ibdev_err_rl(dev, "CQ 0x%x: CQE for QP 0x%x names SRQ WQE 0x%x, not posted: dropped\n",
				     cq->mcq.cqn, qp->ibqp.qp_num, idx);
			return 0;
		}
	} else {
		wq = &qp->rq;
		wc->wr_id = wq->wrid[wq->tail & (wq->wqe_cnt - 1)];
		WRITE_ONCE(wq->tail, wq->tail + 1);
	}
	return 1;
}

static bool poll_one(struct mlx5sp_ib_dev *dev, struct mlx5sp_cq *cq,
		     struct ib_wc *wc)
{
	int r;

	do {
		r = poll_one_cqe(dev, cq, wc);
	} while (!r);
	return r > 0;
}

int mlx5sp_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibcq->device);
	struct mlx5sp_cq *cq = to_cq(ibcq);
	unsigned long flags;
	int n = 0;
	u32 ci;

	if (cq->user)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	/* firmware is dead: every outstanding WR completes flushed (fatal.c) */
	if (unlikely(mlx5sp_dev_dead(dev->mdev))) {
		n = mlx5sp_poll_dead(dev, cq, num_entries, wc);
		spin_unlock_irqrestore(&cq->lock, flags);
		return n;
	}
	ci = cq->cons_index;
	while (n < num_entries && poll_one(dev, cq, &wc[n]))
		n++;
	/* also CQEs consumed without a work completion */
	if (cq->cons_index != ci)
		cq->db.db[0] = cpu_to_be32(cq->cons_index & 0xffffff);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int mlx5sp_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibcq->device);
	struct mlx5sp_cq *cq = to_cq(ibcq);
	u32 cmd = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		  MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT;
	unsigned long irqflags;
	__be32 db[2];
	u32 sn, ci;
	u64 val;
	int ret = 0;

	if (cq->user)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, irqflags);
	/* no event will come: missed ones are the software flush still to do */
	if (unlikely(mlx5sp_dev_dead(dev->mdev))) {
		if (flags & IB_CQ_REPORT_MISSED_EVENTS)
			ret = mlx5sp_dead_pending(dev, cq);
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return ret;
	}
	sn = cq->arm_sn & 3;
	ci = cq->cons_index & 0xffffff;
	cq->db.db[CQ_ARM_DB] = cpu_to_be32(sn << 28 | cmd | ci);
	/* The arm record is in memory before the device hears the doorbell. */
	wmb();
	db[0] = cpu_to_be32(sn << 28 | cmd | ci);
	db[1] = cpu_to_be32(cq->mcq.cqn);
	memcpy(&val, db, sizeof(val));
	mlx5sp_wr64(dev->mdev, cq->uar_index * MLX5_ADAPTER_PAGE_SIZE +
		    MLX5_CQ_DOORBELL, val);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    get_sw_cqe(cq, cq->cons_index))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * Drop the CQEs of QP @qpn not yet polled (its WRs are gone), moving
 * older CQEs over them, as mlx5_ib's __mlx5_ib_cq_clean(); receive CQEs
 * of a QP on @srq give their SRQ WQE back. Kernel CQs.
 */
void mlx5sp_cq_clean(struct mlx5sp_cq *cq, u32 qpn, struct mlx5sp_srq *srq)
{
	struct mlx5_cqe64 *cqe, *dest;
	unsigned long flags;
	u32 prod, nfreed = 0;
	u8 owner;

	if (!cq || cq->user)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	for (prod = cq->cons_index; get_sw_cqe(cq, prod); prod++)
		if (prod == cq->cons_index + cq->ibcq.cqe)
			break;
	dma_rmb();
	while ((int)(--prod) - (int)cq->cons_index >= 0) {
		cqe = get_cqe(cq, prod);
		if ((be32_to_cpu(cqe->sop_drop_qpn) & 0xffffff) == qpn) {
			/* an SRQ WQE it took goes back on the free list */
			if (srq && !cqe_is_req(cqe->op_own >> 4))
				mlx5sp_srq_free_wqe(srq, be16_to_cpu(cqe->wqe_counter) &
						    (srq->max - 1));
			nfreed++;
		} else if (nfreed) {
			dest = get_cqe(cq, prod + nfreed);
			owner = dest->op_own & MLX5_CQE_OWNER_MASK;
			memcpy(dest, cqe, sizeof(*cqe));
			dest->op_own = owner | (dest->op_own & ~MLX5_CQE_OWNER_MASK);
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		/* Moved CQEs are in memory before the device sees the index. */
		wmb();
		cq->db.db[0] = cpu_to_be32(cq->cons_index & 0xffffff);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}
