// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel work requests: send WQEs (ctrl, datagram, remote address, atomic,
 * inline and data segments) built in a scratch area and copied into the
 * ring WQEBB by WQEBB, receive WQEs (scatter lists), the doorbell record
 * and then the doorbell write at UAR + 0x800, as mlx5_ib's wr.c does.
 *
 * Fast registration and local invalidation are UMR WQEs: IB_WR_REG_MR
 * rewrites a free MTT MKEY (its key byte from the WR's key, the access,
 * iova, length and page size, the page list by pointer) and makes it
 * valid; IB_WR_LOCAL_INV makes it free. The key's index must be the MR's.
 * IB_WR_REG_MR_INTEGRITY (integrity MRs, integrity.c) posts up to four
 * WQEs for one WR: see post_reg_integrity().
 */
#include "ib.h"

u8 mlx5sp_ib_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:			return MLX5_OPCODE_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:		return MLX5_OPCODE_RDMA_WRITE_IMM;
	case IB_WR_SEND:			return MLX5_OPCODE_SEND;
	case IB_WR_SEND_WITH_IMM:		return MLX5_OPCODE_SEND_IMM;
	case IB_WR_SEND_WITH_INV:		return MLX5_OPCODE_SEND_INVAL;
	case IB_WR_RDMA_READ:			return MLX5_OPCODE_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:		return MLX5_OPCODE_ATOMIC_CS;
	case IB_WR_ATOMIC_FETCH_AND_ADD:	return MLX5_OPCODE_ATOMIC_FA;
	case IB_WR_REG_MR:			return MLX5_OPCODE_UMR;
	case IB_WR_LOCAL_INV:			return MLX5_OPCODE_UMR;
	default:				return 0;
	}
}
EXPORT_SYMBOL_GPL(mlx5sp_ib_opcode);

static bool rc_opcode_ok(enum ib_wr_opcode op)
{
	return mlx5sp_ib_opcode(op) != 0;
}

static bool ud_opcode_ok(enum ib_wr_opcode op)
{
	return op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM;
}

static int set_inline(void *seg, size_t room, const struct ib_send_wr *wr,
		      u32 max_inline, size_t *len_out)
{
	struct mlx5_wqe_inline_seg *inl = seg;
	u8 *p = (u8 *)(inl + 1);
	size_t total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (total + len > max_inline ||
		    sizeof(*inl) + total + len > room)
			return -ENOMEM;
		/* Inline data is in kernel virtual memory (IB_SEND_INLINE). */
		memcpy(p + total, (void *)(uintptr_t)wr->sg_list[i].addr, len);
		total += len;
	}
	inl->byte_count = cpu_to_be32(total | MLX5_INLINE_SEG);
	*len_out = ALIGN(sizeof(*inl) + total, MLX5_SEND_WQE_DS);
	return 0;
}

#define REG_MR_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
		       IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC | \
		       IB_ACCESS_RELAXED_ORDERING)

/* REG_MR: which fields of the MKEY change (mlx5_ib's frwr_mkey_mask). */
static u64 reg_mr_mask(void)
{
	return MLX5_MKEY_MASK_LEN | MLX5_MKEY_MASK_PAGE_SIZE |
	       MLX5_MKEY_MASK_START_ADDR | MLX5_MKEY_MASK_EN_RINVAL |
	       MLX5_MKEY_MASK_KEY | MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW |
	       MLX5_MKEY_MASK_RR | MLX5_MKEY_MASK_RW | MLX5_MKEY_MASK_A |
	       MLX5_MKEY_MASK_SMALL_FENCE | MLX5_MKEY_MASK_FREE;
}

/*
 * UMR control, mkey context and the page list pointer of a REG_MR of @mr
 * with @key; @check_free: the key must be free (invalidated) first, as
 * mlx5_ib asks of a ULP's MR (not of the internal key of an integrity MR,
 * which each REG_MR_INTEGRITY registers again).
 */
static int fill_reg_mr(void *seg, struct mlx5sp_mr *mr, u32 key, int access,
		       bool check_free)
{
	struct mlx5_wqe_umr_ctrl_seg *umr = seg;
	void *mkc = umr + 1;
	struct mlx5_wqe_data_seg *d = mkc + sizeof(struct mlx5_mkey_seg);
	u32 octo = ALIGN(mr->ndescs, 8) / 2;

	if (!mr->descs || !mr->ndescs || (key >> 8) != (mr->mkey >> 8) ||
	    (access & ~REG_MR_ACCESS) ||
	    mr->ibmr.page_size < MLX5_ADAPTER_PAGE_SIZE ||
	    !is_power_of_2(mr->ibmr.page_size))
		return -EINVAL;
	umr->flags = check_free ? MLX5_UMR_CHECK_NOT_FREE : 0;
	umr->xlt_octowords = cpu_to_be16(octo);
	umr->mkey_mask = cpu_to_be64(reg_mr_mask());
	MLX5_SET(mkc, mkc, free, 0);
	MLX5_SET(mkc, mkc, a, !!(access & IB_ACCESS_REMOTE_ATOMIC));
	MLX5_SET(mkc, mkc, rw, !!(access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkc, rr, !!(access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkc, lw, !!(access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, en_rinval, 1);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, mkey_7_0, key & 0xff);
	MLX5_SET64(mkc, mkc, start_addr, mr->ibmr.iova);
	MLX5_SET64(mkc, mkc, len, mr->ibmr.length);
	MLX5_SET(mkc, mkc, log_page_size, ilog2(mr->ibmr.page_size));
	d->byte_count = cpu_to_be32(octo * 16);
	d->lkey = cpu_to_be32(mr->descs_mkey);
	d->addr = cpu_to_be64(mr->descs_dma);
	return 0;
}

static int set_reg_mr(void *seg, const struct ib_reg_wr *wr)
{
	return fill_reg_mr(seg, to_mr(wr->mr), wr->key, wr->access, true);
}

/* LOCAL_INV: the MKEY goes free; nothing else changes. */
static void set_local_inv(void *seg)
{
	struct mlx5_wqe_umr_ctrl_seg *umr = seg;
	void *mkc = umr + 1;

	umr->flags = MLX5_UMR_INLINE;
	umr->mkey_mask = cpu_to_be64(MLX5_MKEY_MASK_FREE);
	MLX5_SET(mkc, mkc, free, 1);
}

/* ---- REG_MR_INTEGRITY -------------------------------------------------- */

/* The fields a signature key's UMR changes (mlx5_ib's sig_mkey_mask). */
static u64 sig_mkey_mask(void)
{
	return MLX5_MKEY_MASK_LEN | MLX5_MKEY_MASK_START_ADDR |
	       MLX5_MKEY_MASK_EN_SIGERR | MLX5_MKEY_MASK_EN_RINVAL |
	       MLX5_MKEY_MASK_KEY | MLX5_MKEY_MASK_LR | MLX5_MKEY_MASK_LW |
	       MLX5_MKEY_MASK_RR | MLX5_MKEY_MASK_RW |
	       MLX5_MKEY_MASK_SMALL_FENCE | MLX5_MKEY_MASK_FREE |
	       MLX5_MKEY_MASK_BSF_EN;
}

/* The PRM block size selector of a protection interval; 0: none. */
static u8 bs_selector(u32 interval)
{
	switch (interval) {
	case 512:	return MLX5SP_BS_512;
	case 520:	return MLX5SP_BS_520;
	case 4096:	return MLX5SP_BS_4096;
	case 4160:	return MLX5SP_BS_4160;
	case SZ_1G:	return MLX5SP_BS_1G;
	default:	return 0;
	}
}

/* A domain the device can protect @data_len bytes of data with. */
static bool sig_domain_ok(const struct ib_sig_domain *d, u32 data_len)
{
	const struct ib_t10_dif_domain *dif = &d->sig.dif;

	switch (d->sig_type) {
	case IB_SIG_TYPE_NONE:
		return true;
	case IB_SIG_TYPE_T10_DIF:
		return (dif->bg_type == IB_T10DIF_CRC ||
			dif->bg_type == IB_T10DIF_CSUM) &&
		       bs_selector(dif->pi_interval) &&
		       !(data_len % dif->pi_interval);
	default:
		return false;
	}
}

#define REG_INTEGRITY_ACCESS (REG_MR_ACCESS & ~IB_ACCESS_REMOTE_ATOMIC)

/* Everything a REG_MR_INTEGRITY needs, before anything is written. */
static int check_reg_integrity(struct mlx5sp_qp *qp, const struct ib_reg_wr *wr)
{
	struct mlx5sp_mr *mr = wr->mr ? to_mr(wr->mr) : NULL;
	const struct mlx5sp_pi_layout *pi;
	const struct ib_sig_attrs *sa;
	u32 bs;

	if (!qp->integrity || !mr || !mr->sig || !wr->mr->sig_attrs ||
	    wr->wr.num_sge || (wr->key >> 8) != (mr->mkey >> 8) ||
	    (wr->access & ~REG_INTEGRITY_ACCESS))
		return -EINVAL;
	pi = &mr->pi;
	sa = wr->mr->sig_attrs;
	if (!pi->data_len || !sig_domain_ok(&sa->mem, pi->data_len) ||
	    !sig_domain_ok(&sa->wire, pi->data_len))
		return -EINVAL;
	if (sa->mem.sig_type == IB_SIG_TYPE_T10_DIF) {
		/* separate metadata, a PI for each block: a repeat block */
		bs = sa->mem.sig.dif.pi_interval;
		if (bs > U16_MAX ||
		    pi->meta_len < pi->data_len / bs * MLX5_DIF_SIZE)
			return -EINVAL;
	}
	return 0;
}

static void fill_bsf_inl(struct mlx5_bsf_inl *inl, const struct ib_sig_domain *d)
{
	const struct ib_t10_dif_domain *dif = &d->sig.dif;

	/* valid, tags from here rather than from the PSV */
	inl->vld_refresh = cpu_to_be16(MLX5_BSF_INL_VALID |
				       MLX5_BSF_REFRESH_DIF);
	inl->dif_apptag = cpu_to_be16(dif->app_tag);
	inl->dif_reftag = cpu_to_be32(dif->ref_tag);
	inl->rp_inv_seed = MLX5_BSF_REPEAT_BLOCK;
	inl->sig_type = dif->bg_type == IB_T10DIF_CRC ? MLX5_DIF_CRC :
							MLX5_DIF_IPCS;
	if (dif->ref_remap)
		inl->dif_inc_ref_guard_check |= MLX5_BSF_INC_REFTAG;
	if (dif->app_escape)
		inl->dif_inc_ref_guard_check |= dif->ref_escape ?
						MLX5_BSF_APPREF_ESCAPE :
						MLX5_BSF_APPTAG_ESCAPE;
	inl->dif_app_bitmask_check = cpu_to_be16(dif->apptag_check_mask);
}

static void fill_bsf(struct mlx5_bsf *bsf, const struct ib_sig_attrs *sa,
		     const struct mlx5sp_sig *sig, u32 data_len)
{
	const struct ib_sig_domain *mem = &sa->mem, *wire = &sa->wire;
	struct mlx5_bsf_basic *b = &bsf->basic;
	bool mem_dif = mem->sig_type == IB_SIG_TYPE_T10_DIF;

	b->bsf_size_sbs = MLX5SP_BSF_SIZE_WITH_INLINE << MLX5SP_BSF_SIZE_SHIFT;
	b->check_byte_mask = sa->check_mask;
	b->raw_data_size = cpu_to_be32(data_len);
	if (mem_dif) {
		b->mem.bs_selector = bs_selector(mem->sig.dif.pi_interval);
		b->m_bfs_psv = cpu_to_be32(sig->psv_mem);
		fill_bsf_inl(&bsf->m_inl, mem);
	}
	if (wire->sig_type != IB_SIG_TYPE_T10_DIF)
		return;
	if (mem_dif && mem->sig.dif.pi_interval == wire->sig.dif.pi_interval) {
		/* same block structure: PI bytes that agree are copied */
		b->bsf_size_sbs |= MLX5SP_BSF_SBS;
		if (mem->sig.dif.bg_type == wire->sig.dif.bg_type)
			b->wire.copy_byte_mask |= MLX5_CPY_GRD_MASK;
		if (mem->sig.dif.app_tag == wire->sig.dif.app_tag)
			b->wire.copy_byte_mask |= MLX5_CPY_APP_MASK;
		if (mem->sig.dif.ref_tag == wire->sig.dif.ref_tag)
			b->wire.copy_byte_mask |= MLX5_CPY_REF_MASK;
	} else {
		b->wire.bs_selector = bs_selector(wire->sig.dif.pi_interval);
	}
	b->w_bfs_psv = cpu_to_be32(sig->psv_wire);
	fill_bsf_inl(&bsf->w_inl, wire);
}

/*
 * The signature key's UMR after the control segment: UMR control, mkey
 * context, the memory domain's translations (one KLM for data alone, a
 * repeat block of data and metadata for separate metadata), the BSF.
 */
static void fill_sig_umr(void *seg, const struct ib_reg_wr *wr, u8 sigerr)
{
	struct mlx5sp_mr *mr = to_mr(wr->mr);
	const struct ib_sig_attrs *sa = wr->mr->sig_attrs;
	const struct mlx5sp_pi_layout *pi = &mr->pi;
	struct mlx5_wqe_umr_ctrl_seg *umr = seg;
	void *mkc = umr + 1;
	void *xlt = mkc + sizeof(struct mlx5_mkey_seg);
	u64 mem_len = pi->data_len;

	umr->flags = MLX5_UMR_INLINE | MLX5_UMR_CHECK_NOT_FREE;
	umr->xlt_octowords = cpu_to_be16(MLX5SP_SIG_XLT_BYTES / MLX5_SEND_WQE_DS);
	umr->bsf_octowords = cpu_to_be16(MLX5_MKEY_BSF_OCTO_SIZE);
	umr->mkey_mask = cpu_to_be64(sig_mkey_mask());
	if (sa->mem.sig_type == IB_SIG_TYPE_T10_DIF) {
		struct mlx5_stride_block_ctrl_seg *sb = xlt;
		struct mlx5_stride_block_entry *e = (void *)(sb + 1);
		u32 bs = sa->mem.sig.dif.pi_interval;
		u32 nblocks = pi->data_len / bs;

		sb->bcount_per_cycle = cpu_to_be32(bs + MLX5_DIF_SIZE);
		sb->op = cpu_to_be32(MLX5_STRIDE_BLOCK_OP);
		sb->repeat_count = cpu_to_be32(nblocks);
		sb->num_entries = cpu_to_be16(2);
		e[0].stride = cpu_to_be16(bs);
		e[0].bcount = cpu_to_be16(bs);
		e[0].key = cpu_to_be32(pi->data_key);
		e[0].va = cpu_to_be64(pi->data_va);
		e[1].stride = cpu_to_be16(MLX5_DIF_SIZE);
		e[1].bcount = cpu_to_be16(MLX5_DIF_SIZE);
		e[1].key = cpu_to_be32(pi->meta_key);
		e[1].va = cpu_to_be64(pi->meta_va);
		mem_len += (u64)nblocks * MLX5_DIF_SIZE;
	} else {
		struct mlx5_klm *klm = xlt;

		klm->bcount = cpu_to_be32(pi->data_len);
		klm->key = cpu_to_be32(pi->data_key);
		klm->va = cpu_to_be64(pi->data_va);
	}
	MLX5_SET(mkc, mkc, free, 0);
	MLX5_SET(mkc, mkc, access_mode_1_0, MLX5_MKC_ACCESS_MODE_KLMS);
	MLX5_SET(mkc, mkc, rw, !!(wr->access & IB_ACCESS_REMOTE_WRITE));
	MLX5_SET(mkc, mkc, rr, !!(wr->access & IB_ACCESS_REMOTE_READ));
	MLX5_SET(mkc, mkc, lw, !!(wr->access & IB_ACCESS_LOCAL_WRITE));
	MLX5_SET(mkc, mkc, lr, 1);
	MLX5_SET(mkc, mkc, qpn, 0xffffff);
	MLX5_SET(mkc, mkc, mkey_7_0, wr->key & 0xff);
	MLX5_SET(mkc, mkc, en_rinval, 1);
	MLX5_SET(mkc, mkc, bsf_en, 1);
	MLX5_SET(mkc, mkc, expected_sigerr_count, sigerr & 1);
	MLX5_SET64(mkc, mkc, start_addr, 0);
	MLX5_SET64(mkc, mkc, len, mem_len);
	MLX5_SET(mkc, mkc, bsf_octword_size, MLX5_MKEY_BSF_OCTO_SIZE);
	MLX5_SET(mkc, mkc, translations_octword_size,
		 MLX5SP_SIG_XLT_BYTES / MLX5_SEND_WQE_DS);
	fill_bsf(xlt + MLX5SP_SIG_XLT_BYTES, sa, mr->sig, pi->data_len);
}

/* SET_PSV: the domain's transient signature (T10-DIF: guard seed and tags). */
static void fill_set_psv(void *seg, u32 psv, const struct ib_sig_domain *d)
{
	struct mlx5_seg_set_psv *p = seg;

	p->psv_num = cpu_to_be32(psv);
	if (d->sig_type != IB_SIG_TYPE_T10_DIF)
		return;
	p->transient_sig = cpu_to_be32((u32)d->sig.dif.bg << 16 |
				       d->sig.dif.app_tag);
	p->ref_tag = cpu_to_be32(d->sig.dif.ref_tag);
}

/**
 * mlx5sp_build_send_wqe - encode one send WR
 * @wqe: where (room bytes, zeroed by the caller)
 * @room: bytes available, at most the QP's WQE size
 * @qpn: the QP's number
 * @idx: the WQE's index (producer counter, in WQEBBs)
 * @wr: the WR; UD WRs carry an mlx5sp AH
 * @fence_bits: fm_ce_se bits besides fence and CQ update
 * @max_inline: the QP's inline limit
 * @ud: the QP is UD/GSI
 * @ds_out: the WQE size, in 16-byte units
 *
 * Returns 0 or -EINVAL (bad WR) / -ENOMEM (does not fit).
 */
int mlx5sp_build_send_wqe(void *wqe, size_t room, u32 qpn, u16 idx,
			  const struct ib_send_wr *wr, u8 fence_bits,
			  u32 max_inline, bool ud, u8 *ds_out)
{
	struct mlx5_wqe_ctrl_seg *ctrl = wqe;
	void *seg = ctrl + 1;
	size_t used = sizeof(*ctrl);
	u8 opcode = mlx5sp_ib_opcode(wr->opcode);
	int i, err;

	if (ud ? !ud_opcode_ok(wr->opcode) : !rc_opcode_ok(wr->opcode))
		return -EINVAL;
	if (wr->num_sge < 0)
		return -EINVAL;

	if (ud) {
		const struct ib_ud_wr *udwr = ud_wr(wr);
		struct mlx5_wqe_datagram_seg *dseg = seg;

		if (!udwr->ah || udwr->remote_qpn > 0xffffff)
			return -EINVAL;
		memcpy(&dseg->av, &to_ah(udwr->ah)->av, sizeof(dseg->av));
		dseg->av.dqp_dct = cpu_to_be32(udwr->remote_qpn | MLX5_EXTENDED_UD_AV);
		dseg->av.key.qkey.qkey = cpu_to_be32(udwr->remote_qkey);
		seg += sizeof(*dseg);
		used += sizeof(*dseg);
	} else if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
		   wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) {
		const struct ib_atomic_wr *awr = atomic_wr(wr);
		struct mlx5_wqe_raddr_seg *raddr = seg;
		struct mlx5_wqe_atomic_seg *aseg = (void *)(raddr + 1);

		/* One 8-byte local buffer for the original value. */
		if (wr->num_sge != 1 || wr->sg_list[0].length < 8 ||
		    (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		raddr->raddr = cpu_to_be64(awr->remote_addr);
		raddr->rkey = cpu_to_be32(awr->rkey);
		if (wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			aseg->swap_add = cpu_to_be64(awr->swap);
			aseg->compare = cpu_to_be64(awr->compare_add);
		} else {
			aseg->swap_add = cpu_to_be64(awr->compare_add);
			aseg->compare = 0;
		}
		seg += sizeof(*raddr) + sizeof(*aseg);
		used += sizeof(*raddr) + sizeof(*aseg);
	} else if (wr->opcode == IB_WR_RDMA_WRITE ||
		   wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == IB_WR_RDMA_READ) {
		struct mlx5_wqe_raddr_seg *raddr = seg;

		raddr->raddr = cpu_to_be64(rdma_wr(wr)->remote_addr);
		raddr->rkey = cpu_to_be32(rdma_wr(wr)->rkey);
		seg += sizeof(*raddr);
		used += sizeof(*raddr);
	}

	if (wr->opcode == IB_WR_REG_MR || wr->opcode == IB_WR_LOCAL_INV) {
		if (room < MLX5SP_UMR_WQE_SIZE)
			return -ENOMEM;
		if (wr->opcode == IB_WR_REG_MR) {
			err = set_reg_mr(seg, reg_wr(wr));
			if (err)
				return err;
			used = MLX5SP_UMR_WQE_SIZE;
		} else {
			set_local_inv(seg);
			used = MLX5SP_UMR_WQE_SIZE -
			       sizeof(struct mlx5_wqe_data_seg);
		}
	} else if (wr->send_flags & IB_SEND_INLINE) {
		size_t len;

		if (wr->opcode == IB_WR_RDMA_READ)
			return -EINVAL;
		err = set_inline(seg, room - used, wr, max_inline, &len);
		if (err)
			return err;
		used += len;
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			struct mlx5_wqe_data_seg *d = seg;

			if (used + sizeof(*d) > room)
				return -ENOMEM;
			if (!wr->sg_list[i].length)
				continue;
			d->byte_count = cpu_to_be32(wr->sg_list[i].length);
			d->lkey = cpu_to_be32(wr->sg_list[i].lkey);
			d->addr = cpu_to_be64(wr->sg_list[i].addr);
			seg += sizeof(*d);
			used += sizeof(*d);
		}
	}

	ctrl->opmod_idx_opcode = cpu_to_be32((u32)idx << 8 | opcode);
	ctrl->qpn_ds = cpu_to_be32(qpn << 8 | DIV_ROUND_UP(used, MLX5_SEND_WQE_DS));
	ctrl->fm_ce_se = fence_bits |
			 (wr->send_flags & IB_SEND_FENCE ? MLX5_FENCE_MODE_FENCE : 0) |
			 (wr->send_flags & IB_SEND_SIGNALED ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
			 (wr->send_flags & IB_SEND_SOLICITED ? MLX5_WQE_CTRL_SOLICITED : 0);
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		ctrl->imm = wr->ex.imm_data;
	else if (wr->opcode == IB_WR_SEND_WITH_INV ||
		 wr->opcode == IB_WR_LOCAL_INV)
		ctrl->imm = cpu_to_be32(wr->ex.invalidate_rkey);
	else if (wr->opcode == IB_WR_REG_MR)
		ctrl->umr_mkey = cpu_to_be32(reg_wr(wr)->key);
	*ds_out = DIV_ROUND_UP(used, MLX5_SEND_WQE_DS);
	return 0;
}
EXPORT_SYMBOL_GPL(mlx5sp_build_send_wqe);

/* @nreq WRs of this call are queued already: is there room for one more? */
static bool wq_overflow(struct mlx5sp_wq *wq, u32 nreq)
{
	return wq->head - READ_ONCE(wq->tail) + nreq >= wq->max_post;
}

static void ring_sq_doorbell(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			     const void *ctrl)
{
	u64 val;

	qp->db.db[MLX5_SND_DBR] = cpu_to_be32(qp->sq.cur_post & 0xffff);
	/* The record is in memory before the device hears the doorbell. */
	wmb();
	memcpy(&val, ctrl, sizeof(val));
	mlx5sp_wr64(dev->mdev, qp->uar_index * MLX5_ADAPTER_PAGE_SIZE +
		    qp->bf_offset, val);
}

/*
 * Copy the WQE built in the scratch area (@ds units) into the ring at
 * cur_post, as a WQE of the WR @wr_id, the @head-th posted; @partial: not
 * its last WQE. Returns its control segment. sq.lock held.
 */
static void *commit_wqe(struct mlx5sp_qp *qp, u64 wr_id, u32 head, u8 ds,
			bool partial)
{
	u32 nbb = DIV_ROUND_UP(ds * MLX5_SEND_WQE_DS, MLX5_SEND_WQE_BB);
	u32 idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);
	void *ctrl = mlx5sp_sq_bb(qp, qp->sq.cur_post);
	u32 i;

	for (i = 0; i < nbb; i++)
		memcpy(mlx5sp_sq_bb(qp, qp->sq.cur_post + i),
		       qp->scratch + i * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
	qp->sq.wrid[idx] = wr_id;
	qp->sq.wqe_head[idx] = head;
	if (partial)
		__set_bit(idx, qp->sq.partial);
	else
		__clear_bit(idx, qp->sq.partial);
	qp->sq.cur_post += nbb;
	return ctrl;
}

/* The control segment of the WQE in the scratch area, to go at cur_post. */
static struct mlx5_wqe_ctrl_seg *scratch_ctrl(struct mlx5sp_qp *qp, u8 opcode,
					      size_t size, u8 fm_ce_se)
{
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)qp->scratch;

	ctrl->opmod_idx_opcode = cpu_to_be32((qp->sq.cur_post & 0xffff) << 8 |
					     opcode);
	ctrl->qpn_ds = cpu_to_be32(qp->mqp.qpn << 8 |
				   DIV_ROUND_UP(size, MLX5_SEND_WQE_DS));
	ctrl->fm_ce_se = fm_ce_se;
	return ctrl;
}

/*
 * IB_WR_REG_MR_INTEGRITY: [a REG_MR of the internal page key,] the
 * signature key's UMR, SET_PSV of the memory and of the wire PSV. The
 * WR's fence goes on the first WQE, its completion (if signalled) on the
 * last, which completes as IB_WC_REG_MR. As in mlx5_ib, the MR's status
 * must have been checked (ib_check_mr_status) since its last
 * registration. sq.lock held.
 */
static int post_reg_integrity(struct mlx5sp_ib_dev *dev, struct mlx5sp_qp *qp,
			      const struct ib_send_wr *wr, u32 head,
			      void **last_ctrl)
{
	const struct ib_reg_wr *rwr = reg_wr(wr);
	u8 fence = wr->send_flags & IB_SEND_FENCE ? MLX5_FENCE_MODE_FENCE : 0;
	u8 signal = qp->sq_signal_bits |
		    (wr->send_flags & IB_SEND_SIGNALED ? MLX5_WQE_CTRL_CQ_UPDATE : 0);
	const size_t ctrl_sz = sizeof(struct mlx5_wqe_ctrl_seg);
	struct mlx5_wqe_ctrl_seg *ctrl;
	const struct ib_sig_attrs *sa;
	struct mlx5sp_sig *sig;
	struct mlx5sp_mr *mr;
	unsigned long flags;
	u8 sigerr = 0;
	int err;

	err = check_reg_integrity(qp, rwr);
	if (err)
		return err;
	mr = to_mr(rwr->mr);
	sig = mr->sig;
	sa = rwr->mr->sig_attrs;
	if (mr->pi.use_pi_mr) {
		memset(qp->scratch, 0, qp->wqe_size);
		err = fill_reg_mr(qp->scratch + ctrl_sz, mr->pi_mr,
				  mr->pi_mr->mkey, IB_ACCESS_LOCAL_WRITE, false);
		if (err)
			return err;
	}
	xa_lock_irqsave(&dev->sig_mrs, flags);
	if (sig->checked) {
		sig->checked = false;
		sigerr = sig->sigerr_count;
	} else {
		err = -EINVAL;
	}
	xa_unlock_irqrestore(&dev->sig_mrs, flags);
	if (err)
		return err;

	if (mr->pi.use_pi_mr) {
		ctrl = scratch_ctrl(qp, MLX5_OPCODE_UMR, MLX5SP_UMR_WQE_SIZE,
				    fence);
		ctrl->umr_mkey = cpu_to_be32(mr->pi_mr->mkey);
		commit_wqe(qp, wr->wr_id, head,
			   DIV_ROUND_UP(MLX5SP_UMR_WQE_SIZE, MLX5_SEND_WQE_DS),
			   true);
		fence = 0;
	}
	memset(qp->scratch, 0, qp->wqe_size);
	fill_sig_umr(qp->scratch + ctrl_sz, rwr, sigerr);
	ctrl = scratch_ctrl(qp, MLX5_OPCODE_UMR, MLX5SP_SIG_UMR_WQE_SIZE, fence);
	ctrl->umr_mkey = cpu_to_be32(rwr->key);
	commit_wqe(qp, wr->wr_id, head,
		   DIV_ROUND_UP(MLX5SP_SIG_UMR_WQE_SIZE, MLX5_SEND_WQE_DS), true);

	memset(qp->scratch, 0, qp->wqe_size);
	fill_set_psv(qp->scratch + ctrl_sz, sig->psv_mem, &sa->mem);
	scratch_ctrl(qp, MLX5_OPCODE_SET_PSV, MLX5SP_PSV_WQE_SIZE, 0);
	commit_wqe(qp, wr->wr_id, head,
		   DIV_ROUND_UP(MLX5SP_PSV_WQE_SIZE, MLX5_SEND_WQE_DS), true);

	memset(qp->scratch, 0, qp->wqe_size);
	fill_set_psv(qp->scratch + ctrl_sz, sig->psv_wire, &sa->wire);
	scratch_ctrl(qp, MLX5_OPCODE_SET_PSV, MLX5SP_PSV_WQE_SIZE, signal);
	*last_ctrl = commit_wqe(qp, wr->wr_id, head,
				DIV_ROUND_UP(MLX5SP_PSV_WQE_SIZE,
					     MLX5_SEND_WQE_DS), false);
	return 0;
}

/*
 * @drain: ib_drain_qp's WR (fatal.c), taken also from a dead device, where
 * the rest fail with -EIO, as on mlx5_ib.
 */
static int post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr, bool drain)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibqp->device);
	struct mlx5sp_qp *qp = to_qp(ibqp);
	unsigned long flags;
	void *last_ctrl = NULL;
	u32 nreq = 0;
	int err = 0;

	if (qp->user || !qp->sq.wqe_cnt) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (!drain && mlx5sp_dev_dead(dev->mdev)) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->state < IB_QPS_RTS && qp->state != IB_QPS_ERR) {
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}
	for (; wr; wr = wr->next, nreq++) {
		u8 ds;

		if (wq_overflow(&qp->sq, nreq) ||
		    wr->num_sge > qp->sq.max_gs) {
			err = wq_overflow(&qp->sq, nreq) ? -ENOMEM : -EINVAL;
			*bad_wr = wr;
			break;
		}
		if (wr->opcode == IB_WR_REG_MR_INTEGRITY) {
			err = post_reg_integrity(dev, qp, wr, qp->sq.head + nreq,
						 &last_ctrl);
			if (err) {
				*bad_wr = wr;
				break;
			}
			continue;
		}
		/* Built whole, then copied in WQEBBs: a WQE may wrap the ring. */
		memset(qp->scratch, 0, qp->wqe_size);
		err = mlx5sp_build_send_wqe(qp->scratch, qp->wqe_size, qp->mqp.qpn,
					    qp->sq.cur_post & 0xffff, wr,
					    qp->sq_signal_bits, qp->sq.max_inline,
					    mlx5sp_qp_is_ud(qp), &ds);
		if (err) {
			*bad_wr = wr;
			break;
		}
		last_ctrl = commit_wqe(qp, wr->wr_id, qp->sq.head + nreq, ds,
				       false);
	}
	if (nreq) {
		qp->sq.head += nreq;
		ring_sq_doorbell(dev, qp, last_ctrl);
	}
out:
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return err;
}

int mlx5sp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	return post_send(ibqp, wr, bad_wr, false);
}

int mlx5sp_post_send_drain(struct ib_qp *ibqp, const struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad_wr;

	return post_send(ibqp, wr, &bad_wr, true);
}

static int post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr, bool drain)
{
	struct mlx5sp_qp *qp = to_qp(ibqp);
	struct mlx5_wqe_data_seg *scat;
	unsigned long flags;
	u32 nreq = 0;
	int err = 0;
	int i;

	if (qp->user || !qp->rq.wqe_cnt) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (!drain && mlx5sp_dev_dead(to_ibdev(ibqp->device)->mdev)) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	if (qp->state == IB_QPS_RESET) {
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}
	for (; wr; wr = wr->next, nreq++) {
		u32 idx = (qp->rq.head + nreq) & (qp->rq.wqe_cnt - 1);

		if (wq_overflow(&qp->rq, nreq)) {
			err = -ENOMEM;
			*bad_wr = wr;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > qp->rq.max_gs) {
			err = -EINVAL;
			*bad_wr = wr;
			break;
		}
		scat = qp->buf.buf + qp->rq.offset + (idx << qp->rq.wqe_shift);
		for (i = 0; i < wr->num_sge; i++) {
			scat[i].byte_count = cpu_to_be32(wr->sg_list[i].length);
			scat[i].lkey = cpu_to_be32(wr->sg_list[i].lkey);
			scat[i].addr = cpu_to_be64(wr->sg_list[i].addr);
		}
		if (i < qp->rq.max_gs) {
			scat[i].byte_count = 0;
			scat[i].lkey = cpu_to_be32(MLX5SP_INVALID_LKEY);
			scat[i].addr = 0;
		}
		qp->rq.wrid[idx] = wr->wr_id;
	}
	if (nreq) {
		qp->rq.head += nreq;
		/* WQEs are in memory before the record says they are there. */
		wmb();
		qp->db.db[MLX5_RCV_DBR] = cpu_to_be32(qp->rq.head & 0xffff);
	}
out:
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return err;
}

int mlx5sp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	return post_recv(ibqp, wr, bad_wr, false);
}

int mlx5sp_post_recv_drain(struct ib_qp *ibqp, const struct ib_recv_wr *wr)
{
	const struct ib_recv_wr *bad_wr;

	return post_recv(ibqp, wr, &bad_wr, true);
}
