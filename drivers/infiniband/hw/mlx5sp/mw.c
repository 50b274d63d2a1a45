// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows (userspace: ib_core gives kernel ULPs none). A window is
 * a free indirect (KLM) MKEY with umr_en, as mlx5_ib's alloc_mw makes it;
 * binding it is a UMR WQE libmlx5 builds itself (ibv_bind_mw for type 1,
 * IBV_WR_BIND_MW for type 2), and a type 2 window allows remote
 * invalidation (en_rinval). The device keeps every binding rule.
 */
#include "ib.h"

#define MW_MIN_KLMS	4	/* mlx5_ib: one KLM, rounded up to 4 */

int mlx5sp_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibmw->device);
	u32 in[MLX5_ST_SZ_DW(create_mkey_in)] = {};
	struct mlx5sp_mw *mw = to_mw(ibmw);
	struct mlx5_ib_alloc_mw req = {};
	struct {
		__u32 comp_mask;
		__u32 response_length;
	} resp = {};
	u32 ndescs;
	void *mkc;
	int err;

	if (udata->inlen) {
		err = ib_copy_from_udata(&req, udata,
					 min(udata->inlen, sizeof(req)));
		if (err)
			return err;
	}
	if (req.comp_mask || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;
	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req),
				 udata->inlen - sizeof(req)))
		return -EOPNOTSUPP;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	ndescs = roundup(req.num_klms ?: 1, MW_MIN_KLMS);

	mkc = MLX5_ADDR_OF(create_mkey_in, in, memory_key_mkey_entry);
	MLX5_SET(mkc, mkc, free, 1);
	MLX5_SET(mkc, mkc, translations_octword_size, ndescs);
	MLX5_SET(mkc, mkc, pd, to_pd(ibmw->pd)->pdn);
	MLX5_SET(mkc, mkc, umr_en, 1);
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	MLX5_SET(mkc, mkc, en_rinval, ibmw->type == IB_MW_TYPE_2);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	mlx5sp_assign_mkey_variant(dev, mkc);
	err = mlx5sp_create_mkey(dev, in, sizeof(in), &mw->mkey);
	if (err)
		return err;
	ibmw->rkey = mw->mkey;

	resp.response_length = min_t(size_t, offsetofend(typeof(resp),
							 response_length),
				     udata->outlen);
	if (resp.response_length) {
		err = ib_copy_to_udata(udata, &resp, resp.response_length);
		if (err)
			goto err_destroy_mkey;
	}
	return 0;

err_destroy_mkey:
	mlx5sp_destroy_mkey(dev, mw->mkey);
	return err;
}

int mlx5sp_dealloc_mw(struct ib_mw *ibmw)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibmw->device);
	int err;

	err = mlx5sp_destroy_mkey(dev, to_mw(ibmw)->mkey);
	/* a dead device forgot its keys: the window is gone either way */
	if (err && !mlx5sp_dev_dead(dev->mdev))
		return err;
	return 0;
}
