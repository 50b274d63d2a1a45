// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device, port, GID and P_Key queries; user contexts, UAR objects and
 * mmap in mlx5_ib's encoding; protection domains; address handles.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/sched/task.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME mlx5sp_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "ib.h"

#define MLX5SP_VENDOR_OUI	0x02c9	/* Mellanox */
#define MLX5SP_MAX_SGE_RD	((512 - 16 - 16) / 16)
#define MLX5SP_MIN_UDP_SPORT	0xc000
#define MLX5SP_MAX_UDP_SPORT	0xffff

/*
 * The limits ib_query_device reports are what a create within them gets,
 * for kernel and user queues alike: the device's caps, the send descriptor
 * clamped to 512 bytes for the SGE count (as mlx5_ib reports it), and
 * kernel queues bounded by their one DMA block (MLX5SP_MAX_KBUF).
 */
u32 mlx5sp_max_send_sge(struct mlx5sp_ib_dev *dev)
{
	return (min_t(u32, MLX5SP_CAP_GEN(dev, max_wqe_sz_sq), 512) -
		sizeof(struct mlx5_wqe_ctrl_seg) -
		sizeof(struct mlx5_wqe_raddr_seg)) /
	       sizeof(struct mlx5_wqe_data_seg);
}

u32 mlx5sp_max_recv_sge(struct mlx5sp_ib_dev *dev)
{
	return MLX5SP_CAP_GEN(dev, max_wqe_sz_rq) /
	       sizeof(struct mlx5_wqe_data_seg);
}

/* Send WRs of MLX5SP_MAX_WR_BBS blocks and receive WQEs of the largest size fit. */
u32 mlx5sp_max_qp_wr(struct mlx5sp_ib_dev *dev)
{
	u32 sq = (1U << MLX5SP_CAP_GEN(dev, log_max_qp_sz)) / MLX5SP_MAX_WR_BBS;
	u32 kbuf = MLX5SP_MAX_KBUF / (MLX5SP_MAX_WR_BBS * MLX5_SEND_WQE_BB +
				      MLX5SP_CAP_GEN(dev, max_wqe_sz_rq));

	BUILD_BUG_ON(MLX5SP_INTEGRITY_BBS > MLX5SP_MAX_WR_BBS);
	return rounddown_pow_of_two(min(sq, kbuf));
}

/* A CQ of n entries has roundup_pow_of_two(n + 1) CQEs. */
u32 mlx5sp_max_cqe(struct mlx5sp_ib_dev *dev)
{
	return min_t(u32, 1U << MLX5SP_CAP_GEN(dev, log_max_cq_sz),
		     MLX5SP_MAX_KBUF / MLX5SP_CQE_SIZE) - 1;
}

/* An SRQ of n WRs has roundup_pow_of_two(n + 1) WQEs. */
u32 mlx5sp_max_srq_wr(struct mlx5sp_ib_dev *dev)
{
	return min_t(u32, 1U << MLX5SP_CAP_GEN(dev, log_max_srq_sz),
		     MLX5SP_MAX_KBUF / MLX5SP_CAP_GEN(dev, max_wqe_sz_rq)) - 1;
}

static int query_device_udata(struct ib_udata *udata)
{
	struct mlx5_ib_query_device_resp resp = {};

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (!udata->outlen)
		return 0;
	/* No TSO, RSS, CQE compression, packet pacing, MPW, striding RQ. */
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));
	return ib_copy_to_udata(udata, &resp, resp.response_length);
}

int mlx5sp_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibdev);
	struct mlx5sp_dev *mdev = dev->mdev;

	memset(props, 0, sizeof(*props));
	props->fw_ver = ((u64)mdev->fw_rev_major << 32) |
			(mdev->fw_rev_minor << 16) | mdev->fw_rev_sub;
	props->sys_image_guid = to_ibdev(ibdev)->sys_image_guid;
	props->max_mr_size = ~0ULL;
	props->page_size_cap = ~(MLX5_ADAPTER_PAGE_SIZE - 1ULL);
	props->vendor_id = MLX5SP_VENDOR_OUI;
	props->vendor_part_id = mdev->device_id;
	props->max_qp = 1 << MLX5SP_CAP_GEN(dev, log_max_qp);
	props->max_qp_wr = mlx5sp_max_qp_wr(dev);
	props->device_cap_flags = IB_DEVICE_CHANGE_PHY_PORT |
				  IB_DEVICE_PORT_ACTIVE_EVENT |
				  IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_RC_RNR_NAK_GEN |
				  IB_DEVICE_MEM_WINDOW |
				  IB_DEVICE_MEM_WINDOW_TYPE_2B |
				  IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* rdma link delete may remove the device; user contexts disassociate. */
	props->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* integrity MRs for kernel ULPs (T10-DIF offload, as mlx5_ib) */
	if (MLX5SP_CAP_GEN(dev, sho)) {
		props->kernel_cap_flags |= IBK_INTEGRITY_HANDOVER;
		props->sig_prot_cap = IB_PROT_T10DIF_TYPE_1 |
				      IB_PROT_T10DIF_TYPE_2 |
				      IB_PROT_T10DIF_TYPE_3;
		props->sig_guard_cap = IB_GUARD_T10DIF_CRC |
				       IB_GUARD_T10DIF_CSUM;
		props->max_pi_fast_reg_page_list_len = MLX5SP_MAX_PI_PAGES;
	}
	props->max_send_sge = mlx5sp_max_send_sge(dev);
	props->max_recv_sge = mlx5sp_max_recv_sge(dev);
	props->max_sge_rd = MLX5SP_MAX_SGE_RD;
	props->max_cq = 1 << MLX5SP_CAP_GEN(dev, log_max_cq);
	props->max_cqe = mlx5sp_max_cqe(dev);
	props->max_mr = 1 << MLX5SP_CAP_GEN(dev, log_max_mkey);
	props->max_pd = 1 << MLX5SP_CAP_GEN(dev, log_max_pd);
	props->max_mw = props->max_mr;
	props->max_fast_reg_page_list_len = MLX5SP_MAX_FRWR_PAGES;
	props->max_qp_rd_atom = 1 << MLX5SP_CAP_GEN(dev, log_max_ra_res_qp);
	props->max_qp_init_rd_atom = 1 << MLX5SP_CAP_GEN(dev, log_max_ra_req_qp);
	props->max_res_rd_atom = props->max_qp_rd_atom * props->max_qp;
	props->max_srq = 1 << MLX5SP_CAP_GEN(dev, log_max_srq);
	props->max_srq_wr = mlx5sp_max_srq_wr(dev);
	props->max_srq_sge = (MLX5SP_CAP_GEN(dev, max_wqe_sz_rq) -
			      sizeof(struct mlx5_wqe_srq_next_seg)) /
			     sizeof(struct mlx5_wqe_data_seg);
	/* Multicast comes later. */
	props->atomic_cap = mlx5sp_atomic_hca(dev) ? IB_ATOMIC_HCA : IB_ATOMIC_NONE;
	props->masked_atomic_cap = IB_ATOMIC_NONE;
	props->max_pkeys = 1;
	props->local_ca_ack_delay = MLX5SP_CAP_GEN(dev, local_ca_ack_delay);
	props->max_ah = INT_MAX;

	if (udata)
		return query_device_udata(udata);
	return 0;
}

static struct net_device *get_netdev(struct mlx5sp_ib_dev *dev)
{
	return ib_device_get_netdev(&dev->ib, MLX5SP_IB_PORT);
}

int mlx5sp_query_port(struct ib_device *ibdev, u32 port,
		      struct ib_port_attr *props)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibdev);
	struct net_device *ndev;

	/* ib_core zeroes props and checks the port number. */
	props->gid_tbl_len = MLX5SP_CAP_ROCE(dev, roce_address_table_size);
	props->port_cap_flags = IB_PORT_CM_SUP | IB_UVERBS_PCF_IP_BASED_GIDS;
	props->max_msg_sz = 1 << MLX5SP_CAP_GEN(dev, log_max_msg);
	props->pkey_tbl_len = 1;
	props->bad_pkey_cntr = 0;
	props->qkey_viol_cntr = 0;
	props->max_mtu = IB_MTU_4096;
	props->max_vl_num = 1;
	props->state = IB_PORT_DOWN;
	props->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	props->active_mtu = IB_MTU_256;
	props->active_width = IB_WIDTH_1X;
	props->active_speed = IB_SPEED_SDR;

	ndev = get_netdev(dev);
	if (!ndev)
		return 0;
	if (netif_running(ndev) && netif_carrier_ok(ndev)) {
		props->state = IB_PORT_ACTIVE;
		props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	}
	props->active_mtu = min(props->max_mtu, iboe_get_mtu(ndev->mtu));
	dev_put(ndev);
	return ib_get_eth_speed(ibdev, port, &props->active_speed,
				&props->active_width);
}

int mlx5sp_get_port_immutable(struct ib_device *ibdev, u32 port,
			      struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
				    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer mlx5sp_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int mlx5sp_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

void mlx5sp_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	strscpy(str, to_ibdev(ibdev)->mdev->fw_ver, IB_FW_VERSION_NAME_MAX);
}

/* SET_ROCE_ADDRESS: firmware learns (or forgets, @attr NULL) a GID entry. */
static int set_roce_address(struct mlx5sp_ib_dev *dev, unsigned int index,
			    const struct ib_gid_attr *attr)
{
	u32 in[MLX5_ST_SZ_DW(set_roce_address_in)] = {};
	void *addr = MLX5_ADDR_OF(set_roce_address_in, in, roce_address);
	u8 mac[ETH_ALEN] = {};
	u16 vlan_id = 0xffff;
	int err;

	if (attr) {
		err = rdma_read_gid_l2_fields(attr, &vlan_id, mac);
		if (err)
			return err;
		memcpy(MLX5_ADDR_OF(roce_addr_layout, addr, source_l3_address),
		       attr->gid.raw, sizeof(attr->gid.raw));
		ether_addr_copy(MLX5_ADDR_OF(roce_addr_layout, addr,
					     source_mac_47_32), mac);
		if (vlan_id < VLAN_CFI_MASK) {
			MLX5_SET(roce_addr_layout, addr, vlan_valid, 1);
			MLX5_SET(roce_addr_layout, addr, vlan_id, vlan_id);
		}
		MLX5_SET(roce_addr_layout, addr, roce_version,
			 attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
			 MLX5_ROCE_VERSION_2 : MLX5_ROCE_VERSION_1);
		MLX5_SET(roce_addr_layout, addr, roce_l3_type,
			 ipv6_addr_v4mapped((const struct in6_addr *)attr->gid.raw) ?
			 MLX5_ROCE_L3_TYPE_IPV4 : MLX5_ROCE_L3_TYPE_IPV6);
	}
	MLX5_SET(set_roce_address_in, in, opcode, MLX5_CMD_OP_SET_ROCE_ADDRESS);
	MLX5_SET(set_roce_address_in, in, roce_address_index, index);
	MLX5_SET(set_roce_address_in, in, vhca_port_num, MLX5SP_IB_PORT);
	return mlx5sp_cmd_exec_in(dev->mdev, set_roce_address, in);
}

int mlx5sp_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return set_roce_address(to_ibdev(attr->device), attr->index, attr);
}

int mlx5sp_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return set_roce_address(to_ibdev(attr->device), attr->index, NULL);
}

/* User contexts: UARs come only as objects (libmlx5's dynamic UARs). */

/*
 * libmlx5 asks for a DEVX context first and retries without when that
 * fails. 6.12's UVERBS_METHOD_GET_CONTEXT frees a context whose allocation
 * failed without dropping the task reference its resource-tracking entry
 * holds (the write-command path drops it), leaking the caller's
 * task_struct. Drop it here; both paths then free the context cleanly.
 */
static void ucontext_fail_release_task(struct ib_ucontext *uctx)
{
	if (uctx->res.task && !uctx->res.valid) {
		put_task_struct(uctx->res.task);
		uctx->res.task = NULL;
	}
}

static int alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	size_t min_req = offsetof(struct mlx5_ib_alloc_ucontext_req_v2,
				  max_cqe_version);
	struct mlx5sp_ib_dev *dev = to_ibdev(uctx->device);
	struct mlx5_ib_alloc_ucontext_req_v2 req = {};
	struct mlx5_ib_alloc_ucontext_resp resp = {};
	struct mlx5sp_ucontext *ctx = to_uctx(uctx);
	int err;

	if (udata->inlen < min_req)
		return -EINVAL;
	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req), udata->inlen - sizeof(req)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	if ((req.flags & ~MLX5_IB_ALLOC_UCTX_DEVX) || req.comp_mask ||
	    req.reserved0 || req.reserved1 || req.reserved2)
		return -EOPNOTSUPP;
	req.total_num_bfregs = ALIGN(req.total_num_bfregs, MLX5_NON_FP_BFREGS_PER_UAR);
	if (req.num_low_latency_bfregs > req.total_num_bfregs - 1)
		return -EINVAL;
	/* Static bfregs (the pre-v18 libmlx5 scheme) are not offered. */
	if (!(req.lib_caps & MLX5_LIB_CAP_DYN_UAR))
		return -EOPNOTSUPP;

	/*
	 * A DEVX context gets its firmware uid first; libmlx5 asks for one
	 * and opens the context without DEVX when this fails.
	 */
	if (req.flags & MLX5_IB_ALLOC_UCTX_DEVX) {
		err = mlx5sp_devx_create_uctx(dev, &ctx->devx_uid);
		if (err)
			return err;
	}
	mutex_init(&ctx->db_lock);
	INIT_LIST_HEAD(&ctx->db_pages);
	xa_init(&ctx->uars);
	ctx->cqe_version = min_t(u8, MLX5SP_CAP_GEN(dev, cqe_version),
				 req.max_cqe_version);

	resp.qp_tab_size = 1 << MLX5SP_CAP_GEN(dev, log_max_qp);
	/*
	 * No BlueFlame without write-combining (mlx5_ib does the same):
	 * libmlx5 then rings with one 8-byte store.
	 */
	if (dev->mdev->bus->uar_wc)
		resp.bf_reg_size = 1 << MLX5SP_CAP_GEN(dev, log_bf_reg_size);
	resp.cache_line_size = cache_line_size();
	resp.max_sq_desc_sz = MLX5SP_CAP_GEN(dev, max_wqe_sz_sq);
	resp.max_rq_desc_sz = MLX5SP_CAP_GEN(dev, max_wqe_sz_rq);
	resp.max_send_wqebb = 1 << MLX5SP_CAP_GEN(dev, log_max_qp_sz);
	resp.max_recv_wr = 1 << MLX5SP_CAP_GEN(dev, log_max_qp_sz);
	resp.max_srq_recv_wr = 1 << MLX5SP_CAP_GEN(dev, log_max_srq_sz);
	resp.num_ports = 1;
	resp.cqe_version = ctx->cqe_version;
	resp.cmds_supp_uhw = MLX5_USER_CMDS_SUPP_UHW_QUERY_DEVICE |
			     MLX5_USER_CMDS_SUPP_UHW_CREATE_AH;
	resp.eth_min_inline = MLX5_USER_INLINE_MODE_NONE;
	resp.log_uar_size = MLX5_ADAPTER_PAGE_SHIFT;
	resp.num_uars_per_page = 1;
	resp.tot_bfregs = 0;		/* dynamic UARs only */
	resp.num_dyn_bfregs = 0;
	/* the QP may resume from SQD after a signature error stopped it */
	if (MLX5SP_CAP_GEN(dev, drain_sigerr))
		resp.comp_mask |= MLX5_IB_ALLOC_UCONTEXT_RESP_MASK_SQD2RTS;
	resp.response_length = min_t(size_t, udata->outlen, sizeof(resp));
	err = ib_copy_to_udata(udata, &resp, resp.response_length);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	xa_destroy(&ctx->uars);
	mutex_destroy(&ctx->db_lock);
	if (ctx->devx_uid)
		mlx5sp_devx_destroy_uctx(dev, ctx->devx_uid);
	return err;
}

int mlx5sp_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	int err = alloc_ucontext(uctx, udata);

	if (err)
		ucontext_fail_release_task(uctx);
	return err;
}

void mlx5sp_dealloc_ucontext(struct ib_ucontext *uctx)
{
	struct mlx5sp_ucontext *ctx = to_uctx(uctx);

	/* Every UAR entry was freed with its object; every db page with its user. */
	WARN_ON_ONCE(!list_empty(&ctx->db_pages));
	xa_destroy(&ctx->uars);
	mutex_destroy(&ctx->db_lock);
	/* ib_core destroyed every object of the context: the uid owns none */
	if (ctx->devx_uid)
		mlx5sp_devx_destroy_uctx(to_ibdev(uctx->device), ctx->devx_uid);
}

/*
 * ib_core zaps every mapping made by rdma_user_mmap_io() and destroys the
 * context's objects; a model's UAR pages mapped on fault go back to
 * ib_core (uar_trap.c).
 */
void mlx5sp_disassociate_ucontext(struct ib_ucontext *uctx)
{
	struct mlx5sp_dev *mdev = to_ibdev(uctx->device)->mdev;

	if (mdev->bus->uar_disassociate)
		mdev->bus->uar_disassociate(mdev, uctx);
}

bool mlx5sp_uctx_owns_uar(struct mlx5sp_ucontext *uctx, u32 index)
{
	return xa_load(&uctx->uars, index);
}

/* mlx5_ib's encoding of an entry's page offset in the mmap offset. */
static u64 entry_to_mmap_offset(struct mlx5sp_mmap_entry *entry)
{
	u64 cmd = (entry->rdma_entry.start_pgoff >> 16) & 0xffff;
	u64 index = entry->rdma_entry.start_pgoff & 0xffff;

	return (((index >> 8) << 16) | (cmd << MLX5SP_MMAP_CMD_SHIFT) |
		(index & 0xff)) << PAGE_SHIFT;
}

static unsigned long vma_to_pgoff(struct vm_area_struct *vma)
{
	unsigned long cmd = (vma->vm_pgoff >> MLX5SP_MMAP_CMD_SHIFT) &
			    MLX5SP_MMAP_CMD_MASK;
	unsigned long idx = (vma->vm_pgoff & 0xff) |
			    ((vma->vm_pgoff >> 16) & 0xff) << 8;

	return cmd << 16 | idx;
}

int mlx5sp_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	unsigned long cmd = (vma->vm_pgoff >> MLX5SP_MMAP_CMD_SHIFT) &
			    MLX5SP_MMAP_CMD_MASK;
	struct mlx5sp_dev *mdev = to_ibdev(uctx->device)->mdev;
	struct rdma_user_mmap_entry *entry;
	struct mlx5sp_mmap_entry *mentry;
	pgprot_t prot;
	int err;

	switch (cmd) {
	case MLX5SP_MMAP_REGULAR_PAGE:
	case MLX5SP_MMAP_WC_PAGE:
	case MLX5SP_MMAP_NC_PAGE:
	case MLX5SP_MMAP_ALLOC_WC:
		/* Static UARs: the context was opened for dynamic ones only. */
		return -EINVAL;
	case MLX5SP_MMAP_CORE_CLOCK:
	case MLX5SP_MMAP_CLOCK_INFO:
		return -EOPNOTSUPP;
	default:
		break;
	}
	entry = rdma_user_mmap_entry_get_pgoff(uctx, vma_to_pgoff(vma));
	if (!entry)
		return -EINVAL;
	mentry = to_mmap(entry);
	if (mentry->is_mem && mdev->bus->uar_mmap) {
		err = mdev->bus->uar_mmap(mdev, uctx, vma, entry,
					  mentry->uar_index, mentry->pfn);
		/* the mapping holds the entry now */
		if (!err)
			return 0;
		if (err != -EOPNOTSUPP)
			goto out_put;
	}
	if (mentry->is_mem)
		prot = vma->vm_page_prot;	/* a model's page: plain memory */
	else if (mentry->mmap_flag == MLX5SP_MMAP_TYPE_UAR_NC)
		prot = pgprot_noncached(vma->vm_page_prot);
	else
		prot = pgprot_writecombine(vma->vm_page_prot);
	err = rdma_user_mmap_io(uctx, vma, mentry->pfn,
				entry->npages * PAGE_SIZE, prot, entry);
out_put:
	rdma_user_mmap_entry_put(entry);
	return err;
}

void mlx5sp_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct mlx5sp_mmap_entry *mentry = to_mmap(entry);
	struct mlx5sp_ib_dev *dev = to_ibdev(entry->ucontext->device);

	xa_erase(&to_uctx(entry->ucontext)->uars, mentry->uar_index);
	mlx5sp_cmd_dealloc_uar(dev->mdev, mentry->uar_index);
	kfree(mentry);
}

static struct mlx5sp_mmap_entry *uar_entry_alloc(struct mlx5sp_ucontext *ctx,
						 u32 alloc_type)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ctx->ibuc.device);
	struct mlx5sp_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return ERR_PTR(-ENOMEM);
	err = mlx5sp_cmd_alloc_uar(dev->mdev, &entry->uar_index);
	if (err)
		goto err_free;
	err = dev->mdev->bus->uar_pfn(dev->mdev, entry->uar_index, &entry->pfn,
				      &entry->is_mem);
	if (err)
		goto err_dealloc_uar;
	entry->mmap_flag = alloc_type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF ?
			   MLX5SP_MMAP_TYPE_UAR_WC : MLX5SP_MMAP_TYPE_UAR_NC;
	err = xa_insert(&ctx->uars, entry->uar_index, entry, GFP_KERNEL);
	if (err)
		goto err_dealloc_uar;
	err = rdma_user_mmap_entry_insert_range(&ctx->ibuc, &entry->rdma_entry,
						PAGE_SIZE,
						MLX5SP_MMAP_OFFSET_START << 16,
						(MLX5SP_MMAP_OFFSET_END << 16) +
						(1UL << 16) - 1);
	if (err)
		goto err_erase;
	return entry;

err_erase:
	xa_erase(&ctx->uars, entry->uar_index);
err_dealloc_uar:
	mlx5sp_cmd_dealloc_uar(dev->mdev, entry->uar_index);
err_free:
	kfree(entry);
	return ERR_PTR(err);
}

static int UVERBS_HANDLER(MLX5_IB_METHOD_UAR_OBJ_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
						MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);
	struct mlx5sp_mmap_entry *entry;
	struct ib_ucontext *uctx;
	u64 mmap_offset;
	u32 alloc_type;
	u32 length;
	int err;

	uctx = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	err = uverbs_get_const(&alloc_type, attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE);
	if (err)
		return err;
	if (alloc_type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF &&
	    alloc_type != MLX5_IB_UAPI_UAR_ALLOC_TYPE_NC)
		return -EOPNOTSUPP;
	/* as on mlx5_ib without write-combining: libmlx5 asks for NC then */
	if (alloc_type == MLX5_IB_UAPI_UAR_ALLOC_TYPE_BF &&
	    !to_ibdev(uctx->device)->mdev->bus->uar_wc)
		return -EOPNOTSUPP;

	entry = uar_entry_alloc(to_uctx(uctx), alloc_type);
	if (IS_ERR(entry))
		return PTR_ERR(entry);
	mmap_offset = entry_to_mmap_offset(entry);
	length = entry->rdma_entry.npages * PAGE_SIZE;
	uobj->object = entry;
	uverbs_finalize_uobj_create(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE);

	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
			     &mmap_offset, sizeof(mmap_offset));
	if (err)
		return err;
	err = uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
			     &entry->uar_index, sizeof(entry->uar_index));
	if (err)
		return err;
	return uverbs_copy_to(attrs, MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
			      &length, sizeof(length));
}

static int uar_obj_cleanup(struct ib_uobject *uobject,
			   enum rdma_remove_reason why,
			   struct uverbs_attr_bundle *attrs)
{
	struct mlx5sp_mmap_entry *entry = uobject->object;

	rdma_user_mmap_entry_remove(&entry->rdma_entry);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC,
			    UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_ALLOC_HANDLE,
					    MLX5_IB_OBJECT_UAR,
					    UVERBS_ACCESS_NEW,
					    UA_MANDATORY),
			    UVERBS_ATTR_CONST_IN(MLX5_IB_ATTR_UAR_OBJ_ALLOC_TYPE,
						 enum mlx5_ib_uapi_uar_alloc_type,
						 UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_PAGE_ID,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_LENGTH,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(MLX5_IB_ATTR_UAR_OBJ_ALLOC_MMAP_OFFSET,
						UVERBS_ATTR_TYPE(u64),
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(MLX5_IB_METHOD_UAR_OBJ_DESTROY,
				    UVERBS_ATTR_IDR(MLX5_IB_ATTR_UAR_OBJ_DESTROY_HANDLE,
						    MLX5_IB_OBJECT_UAR,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(MLX5_IB_OBJECT_UAR,
			    UVERBS_TYPE_ALLOC_IDR(uar_obj_cleanup),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_ALLOC),
			    &UVERBS_METHOD(MLX5_IB_METHOD_UAR_OBJ_DESTROY));

const struct uapi_definition mlx5sp_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(MLX5_IB_OBJECT_UAR),
	UAPI_DEF_CHAIN(mlx5sp_devx_defs),
	{}
};

/* Protection domains */

int mlx5sp_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibpd->device);
	u32 out[MLX5_ST_SZ_DW(alloc_pd_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_pd_in)] = {};
	struct mlx5sp_pd *pd = to_pd(ibpd);
	struct mlx5_ib_alloc_pd_resp resp = {};
	int err;

	pd->uid = mlx5sp_ctx_uid(udata);
	MLX5_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	MLX5_SET(alloc_pd_in, in, uid, pd->uid);
	err = mlx5sp_cmd_exec_inout(dev->mdev, alloc_pd, in, out);
	if (err)
		return err;
	pd->pdn = MLX5_GET(alloc_pd_out, out, pd);
	if (udata) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp, min_t(size_t, udata->outlen,
							   sizeof(resp)));
		if (err)
			goto err_dealloc;
	}
	return 0;

err_dealloc:
	mlx5sp_dealloc_pd(ibpd, udata);
	return err;
}

int mlx5sp_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibpd->device);
	u32 in[MLX5_ST_SZ_DW(dealloc_pd_in)] = {};

	MLX5_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	MLX5_SET(dealloc_pd_in, in, pd, to_pd(ibpd)->pdn);
	return mlx5sp_cmd_destroy(dev->mdev, in, sizeof(in), "PD",
				  to_pd(ibpd)->pdn);
}

/* Address handles: the mlx5_av a UD WQE carries. */

static u16 ah_udp_sport(const struct rdma_ah_attr *ah_attr)
{
	u32 fl = ah_attr->grh.flow_label;

	if (fl)
		return rdma_flow_label_to_udp_sport(fl);
	return get_random_u32_inclusive(MLX5SP_MIN_UDP_SPORT,
					MLX5SP_MAX_UDP_SPORT);
}

void mlx5sp_fill_av(const struct rdma_ah_attr *ah_attr, struct mlx5_av *av,
		    u16 udp_sport)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah_attr);

	memset(av, 0, sizeof(*av));
	av->grh_gid_fl = cpu_to_be32(grh->flow_label | BIT(30) |
				     grh->sgid_index << 20);
	av->hop_limit = grh->hop_limit;
	av->tclass = grh->traffic_class;
	memcpy(av->rgid, grh->dgid.raw, sizeof(av->rgid));
	/* Static rate: full speed. */
	av->stat_rate_sl = 0;
	memcpy(av->rmac, ah_attr->roce.dmac, sizeof(av->rmac));
	av->udp_sport = cpu_to_be16(udp_sport);
	av->stat_rate_sl |= (rdma_ah_get_sl(ah_attr) & 0x7) << 1;
}

static int check_roce_ah(struct mlx5sp_ib_dev *dev,
			 const struct rdma_ah_attr *ah_attr)
{
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	if (rdma_ah_read_grh(ah_attr)->sgid_index >=
	    MLX5SP_CAP_ROCE(dev, roce_address_table_size))
		return -EINVAL;
	return 0;
}

int mlx5sp_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		     struct ib_udata *udata)
{
	struct mlx5sp_ib_dev *dev = to_ibdev(ibah->device);
	struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct mlx5sp_ah *ah = to_ah(ibah);
	int err;

	err = check_roce_ah(dev, ah_attr);
	if (err)
		return err;
	mlx5sp_fill_av(ah_attr, &ah->av, ah_udp_sport(ah_attr));
	ah->sl = rdma_ah_get_sl(ah_attr);
	if (udata) {
		struct mlx5_ib_create_ah_resp resp = {};

		resp.response_length = min_t(u32, udata->outlen,
					     offsetofend(typeof(resp), dmac));
		memcpy(resp.dmac, ah_attr->roce.dmac, ETH_ALEN);
		err = ib_copy_to_udata(udata, &resp, resp.response_length);
		if (err)
			return err;
	}
	return 0;
}

int mlx5sp_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	struct mlx5sp_ah *ah = to_ah(ibah);
	u32 tmp;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = ibah->type;
	tmp = be32_to_cpu(ah->av.grh_gid_fl);
	rdma_ah_set_grh(ah_attr, NULL, tmp & 0xfffff, (tmp >> 20) & 0xff,
			ah->av.hop_limit, ah->av.tclass);
	rdma_ah_set_dgid_raw(ah_attr, ah->av.rgid);
	rdma_ah_set_sl(ah_attr, ah->sl);
	rdma_ah_set_port_num(ah_attr, MLX5SP_IB_PORT);
	memcpy(ah_attr->roce.dmac, ah->av.rmac, ETH_ALEN);
	return 0;
}

int mlx5sp_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}
