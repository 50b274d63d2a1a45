// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Integrity MRs for kernel ULPs: ib_alloc_mr_integrity(),
 * ib_map_mr_sg_pi(), IB_WR_REG_MR_INTEGRITY (wr.c) and
 * ib_check_mr_status(), T10-DIF offload as rdma_rw, nvmet-rdma and iSER
 * use it.
 *
 * An integrity MR is a signature key: a free KLMS MKEY with umr_en and a
 * BSF (bsf_en, four octowords), with two PSVs on the PD, one for the
 * memory and one for the wire domain. Its address space (from iova 0) is
 * the wire domain. The translations a REG_MR_INTEGRITY writes describe
 * the memory domain: the data alone, or data and separate metadata
 * interleaved per block by a repeat block. They reach the memory either
 * through the PD's local DMA key (one data and at most one metadata
 * entry: DMA addresses as they are) or through an internal MTT key
 * (pi_mr) that maps the data pages and after them the metadata pages,
 * which the same WR registers with a UMR of its own first.
 *
 * Signature errors arrive as SIGERR CQEs; the CQ poller consumes them
 * (cq.c) and records them here by key, and check_mr_status() reports one
 * once, as mlx5_ib does.
 */
#include <linux/slab.h>

#include "ib.h"
#include "trace.h"

static int create_psvs(struct mlx5sp_ib_dev *dev, u32 pdn,
		       struct mlx5sp_sig *sig)
{
	u32 out[MLX5_ST_SZ_DW(create_psv_out)] = {};
	u32 in[MLX5_ST_SZ_DW(create_psv_in)] = {};
	int err;

	MLX5_SET(create_psv_in, in, opcode, MLX5_CMD_OP_CREATE_PSV);
	MLX5_SET(create_psv_in, in, num_psv, 2);
	MLX5_SET(create_psv_in, in, pd, pdn);
	err = mlx5sp_cmd_exec_inout(dev->mdev, create_psv, in, out);
	if (err)
		return err;
	sig->psv_mem = MLX5_GET(create_psv_out, out, psv0_index);
	sig->psv_wire = MLX5_GET(create_psv_out, out, psv1_index);
	return 0;
}

static int destroy_psv(struct mlx5sp_ib_dev *dev, u32 psvn)
{
	u32 in[MLX5_ST_SZ_DW(destroy_psv_in)] = {};

	MLX5_SET(destroy_psv_in, in, opcode, MLX5_CMD_OP_DESTROY_PSV);
	MLX5_SET(destroy_psv_in, in, psvn, psvn);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "PSV", psvn);
}

/* The signature key: free, KLMS, UMR-enabled, with room for one BSF. */
static int create_sig_mkey(struct mlx5sp_ib_dev *dev, struct mlx5sp_mr *mr,
			   u32 pdn)
{
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	mlx5sp_set_umr_mkc(mkc, MLX5_MKC_ACCESS_MODE_KLMS, pdn);
	MLX5_SET(mkc, mkc, bsf_en, 1);
	MLX5_SET(mkc, mkc, bsf_octword_size, MLX5_MKEY_BSF_OCTO_SIZE);
	MLX5_SET(mkc, mkc, translations_octword_size,
		 MLX5SP_SIG_XLT_BYTES / MLX5_SEND_WQE_DS);
	mlx5sp_assign_mkey_variant(dev, mkc);
	return mlx5sp_create_mkey(dev, in, sizeof(in), &mr->mkey);
}

struct ib_mr *mlx5sp_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_sg,
					u32 max_num_meta_sg)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(pd->device);
	u32 pdn = to_pd(pd)->pdn;
	struct mlx5sp_mr *mr;
	struct ib_mr *pi;
	int err;

	if (!MLX5SP_CAP_GEN(dev, sho))
		return ERR_PTR(-EOPNOTSUPP);
	/*
	 * Each list up to max_pi_fast_reg_page_list_len (what the device
	 * reports; ib_core does not check it): both share one page key.
	 */
	if (!max_num_sg || !max_num_meta_sg ||
	    max_num_sg > MLX5SP_MAX_PI_PAGES ||
	    max_num_meta_sg > MLX5SP_MAX_PI_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->sig = kzalloc(sizeof(*mr->sig), GFP_KERNEL);
	if (!mr->sig) {
		err = -ENOMEM;
		goto err_free_mr;
	}
	/* nothing registered yet: free to register */
	mr->sig->checked = true;
	pi = mlx5sp_alloc_mr(pd, IB_MR_TYPE_MEM_REG,
			     max_num_sg + max_num_meta_sg);
	if (IS_ERR(pi)) {
		err = PTR_ERR(pi);
		goto err_free_sig;
	}
	pi->device = pd->device;
	pi->pd = pd;
	pi->type = IB_MR_TYPE_MEM_REG;
	mr->pi_mr = to_mr(pi);
	err = create_psvs(dev, pdn, mr->sig);
	if (err)
		goto err_dereg_pi;
	err = create_sig_mkey(dev, mr, pdn);
	if (err)
		goto err_destroy_psvs;
	/*
	 * A key firmware says is new but a live signature key has: not
	 * destroyed by that number, which would destroy the live one.
	 */
	err = xa_insert_irq(&dev->sig_mrs, mr->mkey >> 8, mr, GFP_KERNEL);
	if (err == -EBUSY) {
		mlx5sp_err(dev->mdev, "firmware gave MKEY 0x%x of a live signature key\n",
			   mr->mkey >> 8);
		err = -EIO;
		goto err_destroy_psvs;
	}
	if (err)
		goto err_destroy_mkey;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;

err_destroy_mkey:
	mlx5sp_destroy_mkey(dev, mr->mkey);
err_destroy_psvs:
	destroy_psv(dev, mr->sig->psv_wire);
	destroy_psv(dev, mr->sig->psv_mem);
err_dereg_pi:
	mlx5sp_dereg_mr(pi, NULL);
err_free_sig:
	kfree(mr->sig);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/* dereg_mr of an integrity MR: the key first (it may be busy), then the rest. */
int mlx5sp_dereg_integrity(struct mlx5sp_ib_dev *dev, struct mlx5sp_mr *mr)
{
	int err;

	/* out of the table first: its index may be reused once destroyed */
	xa_erase_irq(&dev->sig_mrs, mr->mkey >> 8);
	err = mlx5sp_destroy_mkey(dev, mr->mkey);
	if (err && !mlx5sp_dev_dead(dev->mdev)) {
		xa_store_irq(&dev->sig_mrs, mr->mkey >> 8, mr, GFP_KERNEL);
		return err;
	}
	destroy_psv(dev, mr->sig->psv_wire);
	destroy_psv(dev, mr->sig->psv_mem);
	mlx5sp_dereg_mr(&mr->pi_mr->ibmr, NULL);
	kfree(mr->sig);
	kfree(mr);
	return 0;
}

/* One data and at most one metadata entry: DMA addresses, local DMA key. */
static int map_pa(struct mlx5sp_mr *mr, struct scatterlist *data_sg,
		  unsigned int *data_off, struct scatterlist *meta_sg,
		  int meta_nents, unsigned int *meta_off)
{
	struct mlx5sp_pi_layout *pi = &mr->pi;
	u32 lkey = mr->ibmr.pd->local_dma_lkey;
	unsigned int off = data_off ? *data_off : 0;

	if (off >= sg_dma_len(data_sg))
		return -EINVAL;
	pi->data_key = lkey;
	pi->data_va = sg_dma_address(data_sg) + off;
	pi->data_len = sg_dma_len(data_sg) - off;
	if (!meta_nents)
		return 0;
	off = meta_off ? *meta_off : 0;
	if (off >= sg_dma_len(meta_sg))
		return -EINVAL;
	pi->meta_key = lkey;
	pi->meta_va = sg_dma_address(meta_sg) + off;
	pi->meta_len = sg_dma_len(meta_sg) - off;
	return 0;
}

/*
 * Page lists, as fast registration maps them: the data pages, then the
 * metadata pages, in the internal MTT key's one address space.
 */
static int map_pages(struct mlx5sp_mr *mr, struct scatterlist *data_sg,
		     int data_nents, unsigned int *data_off,
		     struct scatterlist *meta_sg, int meta_nents,
		     unsigned int *meta_off)
{
	struct mlx5sp_pi_layout *pi = &mr->pi;
	struct mlx5sp_mr *pm = mr->pi_mr;
	u64 page_size = mr->ibmr.page_size;
	u64 page_mask = ~(page_size - 1);
	u64 iova;
	u32 ndata;
	int n;

	if (page_size < MLX5_ADAPTER_PAGE_SIZE || !is_power_of_2(page_size))
		return -EINVAL;
	pm->ibmr.page_size = page_size;
	pm->ndescs = 0;
	n = ib_sg_to_pages(&pm->ibmr, data_sg, data_nents, data_off,
			   mlx5sp_frwr_set_page);
	if (n != data_nents)
		return n < 0 ? n : -EINVAL;
	iova = pm->ibmr.iova;
	pi->data_key = pm->mkey;
	pi->data_va = iova;
	pi->data_len = pm->ibmr.length;
	pi->use_pi_mr = true;
	if (!meta_nents)
		return 0;
	ndata = pm->ndescs;
	n = ib_sg_to_pages(&pm->ibmr, meta_sg, meta_nents, meta_off,
			   mlx5sp_frwr_set_page);
	if (n != meta_nents)
		return n < 0 ? n : -EINVAL;
	/* the metadata's first page is the page after the data's last */
	pi->meta_key = pm->mkey;
	pi->meta_va = (iova & page_mask) + ndata * page_size +
		      (pm->ibmr.iova & ~page_mask);
	pi->meta_len = pm->ibmr.length;
	pm->ibmr.iova = iova;
	pm->ibmr.length = pi->meta_va + pi->meta_len - iova;
	return 0;
}

/*
 * The bytes a transfer through the key moves on the wire for the
 * sig_attrs set now: data + the wire's PI when the wire carries PI,
 * otherwise data + metadata (rdma_rw takes meta_length off again).
 */
static u64 wire_length(const struct ib_mr *ibmr, const struct mlx5sp_pi_layout *pi)
{
	const struct ib_sig_domain *w = &ibmr->sig_attrs->wire;

	if (w->sig_type == IB_SIG_TYPE_T10_DIF && w->sig.dif.pi_interval)
		return pi->data_len +
		       (u64)(pi->data_len / w->sig.dif.pi_interval) *
		       MLX5_DIF_SIZE;
	return (u64)pi->data_len + pi->meta_len;
}

int mlx5sp_map_mr_sg_pi(struct ib_mr *ibmr, struct scatterlist *data_sg,
			int data_sg_nents, unsigned int *data_sg_offset,
			struct scatterlist *meta_sg, int meta_sg_nents,
			unsigned int *meta_sg_offset)
{
	struct mlx5sp_mr *mr = to_mr(ibmr);
	int err;

	if (!mr->sig || !ibmr->sig_attrs)
		return -EINVAL;
	memset(&mr->pi, 0, sizeof(mr->pi));
	if (!data_sg || data_sg_nents <= 0 || meta_sg_nents < 0 ||
	    (meta_sg_nents && !meta_sg))
		return -EINVAL;
	if (data_sg_nents == 1 && meta_sg_nents <= 1)
		err = map_pa(mr, data_sg, data_sg_offset, meta_sg,
			     meta_sg_nents, meta_sg_offset);
	else
		err = map_pages(mr, data_sg, data_sg_nents, data_sg_offset,
				meta_sg, meta_sg_nents, meta_sg_offset);
	if (err) {
		memset(&mr->pi, 0, sizeof(mr->pi));
		return err;
	}
	/* zero-based: the wire domain starts at 0 (mkc start_addr) */
	ibmr->iova = 0;
	ibmr->length = wire_length(ibmr, &mr->pi);
	ibmr->sig_attrs->meta_length = mr->pi.meta_len;
	return 0;
}

int mlx5sp_check_mr_status(struct ib_mr *ibmr, u32 check_mask,
			   struct ib_mr_status *mr_status)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibmr->device);
	struct mlx5sp_mr *mr = to_mr(ibmr);
	unsigned long flags;

	if (check_mask & ~IB_MR_CHECK_SIG_STATUS)
		return -EINVAL;
	mr_status->fail_status = 0;
	if (!(check_mask & IB_MR_CHECK_SIG_STATUS))
		return 0;
	if (!mr->sig)
		return -EINVAL;
	xa_lock_irqsave(&dev->sig_mrs, flags);
	mr->sig->checked = true;
	if (mr->sig->err_exists) {
		mr_status->sig_err = mr->sig->err;
		mr_status->fail_status |= IB_MR_CHECK_SIG_STATUS;
		mr->sig->err_exists = false;
	}
	xa_unlock_irqrestore(&dev->sig_mrs, flags);
	return 0;
}

/* What a SIGERR CQE says, as ib_core names it. */
static void parse_sig_err(const struct mlx5_sig_err_cqe *cqe,
			  struct ib_sig_err *e)
{
	u16 synd = be16_to_cpu(cqe->syndrome);
	u32 exp_sig = be32_to_cpu(cqe->expected_trans_sig);
	u32 act_sig = be32_to_cpu(cqe->actual_trans_sig);

	memset(e, 0, sizeof(*e));
	/* T10-DIF: the transient signature is guard << 16 | app tag */
	if (synd & MLX5SP_SIGERR_SYND_GUARD) {
		e->err_type = IB_SIG_BAD_GUARD;
		e->expected = exp_sig >> 16;
		e->actual = act_sig >> 16;
	} else if (synd & MLX5SP_SIGERR_SYND_REFTAG) {
		e->err_type = IB_SIG_BAD_REFTAG;
		e->expected = be32_to_cpu(cqe->expected_reftag);
		e->actual = be32_to_cpu(cqe->actual_reftag);
	} else if (synd & MLX5SP_SIGERR_SYND_APPTAG) {
		e->err_type = IB_SIG_BAD_APPTAG;
		e->expected = exp_sig & 0xffff;
		e->actual = act_sig & 0xffff;
	} else {
		/* no kind the device names: report it as a guard error */
		e->err_type = IB_SIG_BAD_GUARD;
	}
	e->sig_err_offset = be64_to_cpu(cqe->err_offset);
	e->key = be32_to_cpu(cqe->mkey);
}

/*
 * A SIGERR CQE (any context; the CQ's lock held): record the error on the
 * integrity MR whose key it names, for check_mr_status.
 */
void mlx5sp_sig_err_cqe(struct mlx5sp_ib_dev *dev,
			const struct mlx5_sig_err_cqe *cqe)
{
	struct mlx5sp_mr *mr;
	struct ib_sig_err e;
	unsigned long flags;

	parse_sig_err(cqe, &e);
	switch (e.err_type) {
	case IB_SIG_BAD_GUARD:
		mlx5sp_count(dev, MLX5SP_DRV_SIG_ERR_GUARD, 1);
		break;
	case IB_SIG_BAD_REFTAG:
		mlx5sp_count(dev, MLX5SP_DRV_SIG_ERR_REFTAG, 1);
		break;
	case IB_SIG_BAD_APPTAG:
		mlx5sp_count(dev, MLX5SP_DRV_SIG_ERR_APPTAG, 1);
		break;
	}
	trace_mlx5sp_sig_err(dev->mdev->name, e.key, e.err_type, e.expected,
			     e.actual, e.sig_err_offset);
	xa_lock_irqsave(&dev->sig_mrs, flags);
	mr = xa_load(&dev->sig_mrs, e.key >> 8);
	if (mr) {
		mr->sig->err = e;
		mr->sig->err_exists = true;
		mr->sig->sigerr_count++;
	}
	xa_unlock_irqrestore(&dev->sig_mrs, flags);
	if (!mr)
		ibdev_err_rl(dev, "SIGERR CQE for key 0x%x, not an integrity MR\n",
			     e.key);
}
