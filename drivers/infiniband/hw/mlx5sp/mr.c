// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: MKEYs created with CREATE_MKEY, translating through an
 * MTT (user memory, pinned) or physical addresses (the kernel's DMA MR).
 * Fields as mlx5_ib's reg_create() and get_dma_mr() set them.
 *
 * Fast registration (ib_alloc_mr(IB_MR_TYPE_MEM_REG)): a free MTT MKEY
 * with umr_en and en_rinval, and a page list ib_map_mr_sg() fills in a
 * DMA-coherent buffer. IB_WR_REG_MR (wr.c) hands the device that list by
 * pointer, through a second MKEY of the same PD that covers only the list
 * (PA, local read), so a UMR never needs a reserved lkey.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "ib.h"

#define MTT_READ	BIT(0)	/* MLX5_IB_MTT_READ */
#define MTT_WRITE	BIT(1)	/* MLX5_IB_MTT_WRITE */
#define MKEY_PGSZ_BITMAP GENMASK_ULL(31, MLX5_ADAPTER_PAGE_SHIFT)

/* MW_BIND: any MR may have windows bound (there is no mkc bit for it). */
#define SUPPORTED_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			  IB_ACCESS_RELAXED_ORDERING | IB_ACCESS_MW_BIND)
/* Page list entries are 8 bytes; whole 64-byte lines of them. */
#define FRWR_DESC_ALIGN	8

static void set_mkc_access(void *mkc, int access, u64 start, u32 pdn)
{
	MLX5_SET(mkc, mkc, a, !!(access & IB_ACCESS_REMOTE_ATOMIC));
	MLX5_SET(mkc, mkc, rw, !!(access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkc, rr, !!(access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkc, lw, !!(access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, pd, pdn);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET64(mkc, mkc, start_addr, start);
}

/* The key byte varies per MKEY so a stale key of a reused index fails. */
void mlx5sp_assign_mkey_variant(struct mlx5sp_ib_dev *dev, void *mkc)
{
	MLX5_SET(mkc, mkc, mkey_7_0, (u8)atomic_inc_return(&dev->mkey_var));
}

int mlx5sp_create_mkey(struct mlx5sp_ib_dev *dev, u32 *in, int inlen, u32 *mkey)
{
	u32 out[MLX5_ST_SZ_DW(create_mkey_out)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	int err;

	MLX5_SET(create_mkey_in, in, opcode, MLX5_CMD_OP_CREATE_MKEY);
	err = mlx5sp_cmd_exec(dev->mdev, in, inlen, out, sizeof(out));
	if (err)
		return err;
	*mkey = MLX5_GET(create_mkey_out, out, mkey_index) << 8 |
		MLX5_GET(mkc, mkc, mkey_7_0);
	return 0;
}

int mlx5sp_destroy_mkey(struct mlx5sp_ib_dev *dev, u32 mkey)
{
	u32 in[MLX5_ST_SZ_DW(destroy_mkey_in)] = {};

	MLX5_SET(destroy_mkey_in, in, opcode, MLX5_CMD_OP_DESTROY_MKEY);
	MLX5_SET(destroy_mkey_in, in, mkey_index, mkey >> 8);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "MKEY", mkey >> 8);
}

struct ib_mr *mlx5sp_get_dma_mr(struct ib_pd *pd, int access)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(pd->device);
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	struct mlx5sp_mr *mr;
	void *mkc;
	int err;

	if (access & ~SUPPORTED_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	MLX5_SET(mkc, mkc, length64, 1);
	set_mkc_access(mkc, access, 0, to_pd(pd)->pdn);
	mlx5sp_assign_mkey_variant(dev, mkc);
	err = mlx5sp_create_mkey(dev, in, sizeof(in), &mr->mkey);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;
}

struct ib_mr *mlx5sp_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 iova, int access, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(pd->device);
	unsigned long page_size;
	struct mlx5sp_mr *mr;
	unsigned int shift;
	size_t nblocks;
	void *mkc;
	u32 *in;
	int inlen;
	int err;

	if (access & ~SUPPORTED_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > U64_MAX - iova)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	page_size = ib_umem_find_best_pgsz(mr->umem, MKEY_PGSZ_BITMAP, iova);
	if (!page_size) {
		err = -EINVAL;
		goto err_release;
	}
	shift = order_base_2(page_size);
	nblocks = ib_umem_num_dma_blocks(mr->umem, page_size);
	/* The translation table is padded to whole octowords. */
	inlen = MLX5_ST_SZ_BYTES(create_mkey_in) +
		ALIGN(nblocks, 2) * sizeof(__be64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_release;
	}
	mlx5sp_fill_pas_umem(mr->umem, page_size,
			     (__be64 *)MLX5_ADDR_OF(create_mkey_in, in, klm_pas_mtt),
			     MTT_READ | MTT_WRITE);
	MLX5_SET(create_mkey_in, in, translations_octword_actual_size,
		 mlx5sp_octo_len(iova, length, shift));
	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MLX5_SET(mkc, mkc, free, 0);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_MTT);
	MLX5_SET(mkc, mkc, umr_en, 0);
	set_mkc_access(mkc, access, iova, to_pd(pd)->pdn);
	MLX5_SET64(mkc, mkc, len, length);
	MLX5_SET(mkc, mkc, bsf_octword_size, 0);
	MLX5_SET(mkc, mkc, translations_octword_size,
		 mlx5sp_octo_len(iova, length, shift));
	MLX5_SET(mkc, mkc, log_page_size, shift);
	mlx5sp_assign_mkey_variant(dev, mkc);
	MLX5_SET(create_mkey_in, in, uid, to_pd(pd)->uid);
	err = mlx5sp_create_mkey(dev, in, inlen, &mr->mkey);
	kvfree(in);
	if (err)
		goto err_release;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	mr->ibmr.length = length;
	mr->ibmr.iova = iova;
	mr->ibmr.page_size = page_size;
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int mlx5sp_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibmr->device);
	struct mlx5sp_mr *mr = to_mr(ibmr);
	int err;

	if (mr->sig)
		return mlx5sp_dereg_integrity(dev, mr);
	err = mlx5sp_destroy_mkey(dev, mr->mkey);
	/* A live device refusing means the key is still in use: keep it. */
	if (err && !mlx5sp_dev_dead(dev->mdev))
		return err;
	if (mr->descs) {
		mlx5sp_destroy_mkey(dev, mr->descs_mkey);
		dma_free_coherent(dev->mdev->dma_dev, mr->descs_size, mr->descs,
				  mr->descs_dma);
	}
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}

/* The MKEY through which the device reads the page list: only the list. */
static int create_descs_mkey(struct mlx5sp_ib_dev *dev, struct mlx5sp_mr *mr,
			     u32 pdn)
{
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_PA);
	set_mkc_access(mkc, 0, mr->descs_dma, pdn);
	MLX5_SET64(mkc, mkc, len, mr->descs_size);
	mlx5sp_assign_mkey_variant(dev, mkc);
	return mlx5sp_create_mkey(dev, in, sizeof(in), &mr->descs_mkey);
}

/*
 * A free key that UMR fills in (and remote invalidation frees again), of
 * @access_mode, local read only until then: fast registration and
 * integrity MRs.
 */
void mlx5sp_set_umr_mkc(void *mkc, u8 access_mode, u32 pdn)
{
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, umr_en, 1);
	MLX5_SET(mkc, mkc, en_rinval, 1);
	MLX5_SET(mkc, mkc, access_mode_1_0, access_mode);
	set_mkc_access(mkc, 0, 0, pdn);
}

/* A free MTT MKEY for max_descs pages that UMR (REG_MR) fills in. */
static int create_frwr_mkey(struct mlx5sp_ib_dev *dev, struct mlx5sp_mr *mr,
			    u32 pdn)
{
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	void *mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);

	mlx5sp_set_umr_mkc(mkc, MLX5_MKC_ACCESS_MODE_MTT, pdn);
	MLX5_SET(mkc, mkc, translations_octword_size, mr->max_descs / 2);
	MLX5_SET(mkc, mkc, log_page_size, PAGE_SHIFT);
	mlx5sp_assign_mkey_variant(dev, mkc);
	return mlx5sp_create_mkey(dev, in, sizeof(in), &mr->mkey);
}

/* Integrity MRs: integrity.c. SG_GAPS MRs are not offered. */
struct ib_mr *mlx5sp_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(pd->device);
	u32 pdn = to_pd(pd)->pdn;
	struct mlx5sp_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > MLX5SP_MAX_FRWR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_descs = ALIGN(max_num_sg, FRWR_DESC_ALIGN);
	mr->descs_size = mr->max_descs * sizeof(*mr->descs);
	mr->descs = dma_alloc_coherent(dev->mdev->dma_dev, mr->descs_size,
				       &mr->descs_dma, GFP_KERNEL);
	if (!mr->descs) {
		err = -ENOMEM;
		goto err_free_mr;
	}
	err = create_descs_mkey(dev, mr, pdn);
	if (err)
		goto err_free_descs;
	err = create_frwr_mkey(dev, mr, pdn);
	if (err)
		goto err_destroy_descs_mkey;
	mr->ibmr.lkey = mr->mkey;
	mr->ibmr.rkey = mr->mkey;
	return &mr->ibmr;

err_destroy_descs_mkey:
	mlx5sp_destroy_mkey(dev, mr->descs_mkey);
err_free_descs:
	dma_free_coherent(dev->mdev->dma_dev, mr->descs_size, mr->descs,
			  mr->descs_dma);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

int mlx5sp_frwr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct mlx5sp_mr *mr = to_mr(ibmr);

	if (mr->ndescs == mr->max_descs)
		return -ENOMEM;
	mr->descs[mr->ndescs++] = cpu_to_be64(addr | MTT_READ | MTT_WRITE);
	return 0;
}

int mlx5sp_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset)
{
	struct mlx5sp_mr *mr = to_mr(ibmr);

	if (!mr->descs || mr->sig)
		return -EINVAL;
	mr->ndescs = 0;
	/* the list is coherent memory: the device reads what is written */
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      mlx5sp_frwr_set_page);
}
