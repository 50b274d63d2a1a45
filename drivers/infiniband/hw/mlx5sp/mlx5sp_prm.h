/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * PRM constants and layouts the kernel's mlx5 headers (linux/mlx5/)
 * do not name, shared by the driver and the software ConnectX: command
 * delivery status, the common command header, page op_mods, UAR
 * doorbell offsets, the RTS2SQD_QP opcode, signature offload fields, and
 * reserved bits that rdma-core names.
 */
#ifndef MLX5SP_PRM_H
#define MLX5SP_PRM_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>

/*
 * Command delivery status: bits 7:1 of mlx5_cmd_layout.status_own (PRM
 * "Command Delivery Status"; the kernel headers do not name these).
 */
enum mlx5sp_cmd_delivery_status {
	MLX5SP_CMD_DELIVERY_OK			= 0x0,
	MLX5SP_CMD_DELIVERY_SIGNATURE_ERR	= 0x1,
	MLX5SP_CMD_DELIVERY_TOKEN_ERR		= 0x2,
	MLX5SP_CMD_DELIVERY_BAD_BLOCK_NUM_ERR	= 0x3,
	MLX5SP_CMD_DELIVERY_OUT_PTR_ALIGN_ERR	= 0x4,
	MLX5SP_CMD_DELIVERY_IN_PTR_ALIGN_ERR	= 0x5,
	MLX5SP_CMD_DELIVERY_FW_ERR		= 0x6,
	MLX5SP_CMD_DELIVERY_IN_LENGTH_ERR	= 0x7,
	MLX5SP_CMD_DELIVERY_OUT_LENGTH_ERR	= 0x8,
	MLX5SP_CMD_DELIVERY_RES_FLD_NOT_CLR_ERR	= 0x9,
	MLX5SP_CMD_DELIVERY_CMD_DESCR_ERR	= 0x10,
};

/*
 * The common command header: every input starts with opcode, uid and
 * op_mod, every output with status and syndrome. The kernel headers name it
 * only per command; ALLOC_PD's in/out are exactly that header.
 */
#define MLX5SP_CMD_HDR_LEN		8
#define MLX5SP_CMD_OPCODE(in)		MLX5_GET(alloc_pd_in, in, opcode)
#define MLX5SP_CMD_UID(in)		MLX5_GET(alloc_pd_in, in, uid)
#define MLX5SP_CMD_OP_MOD(in)		MLX5_GET(alloc_pd_in, in, op_mod)
#define MLX5SP_CMD_STATUS(out)		MLX5_GET(alloc_pd_out, out, status)
#define MLX5SP_CMD_SYNDROME(out)	MLX5_GET(alloc_pd_out, out, syndrome)

/* QUERY_PAGES op_mod and MANAGE_PAGES op_mod (PRM; not in the headers). */
enum {
	MLX5SP_BOOT_PAGES	= 1,
	MLX5SP_INIT_PAGES	= 2,
	MLX5SP_REG_PAGES	= 3,
};

enum {
	MLX5SP_PAGES_CANT_GIVE	= 0,
	MLX5SP_PAGES_GIVE	= 1,
	MLX5SP_PAGES_TAKE	= 2,
};

/* Command mailboxes are 1 KiB aligned (PRM); the low bits of next are 0. */
#define MLX5SP_CMD_MBOX_ALIGN		1024

/*
 * UMR control segment flags the kernel headers lack (device.h has
 * MLX5_UMR_INLINE, MLX5_UMR_CHECK_FREE/NOT_FREE and the offset flag):
 * "the target's QP must be this QP" (libmlx5's
 * MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN, a type 2 window's invalidation), and
 * the two-bit free check field.
 */
#define MLX5SP_UMR_CHECK_QPN		BIT(3)
#define MLX5SP_UMR_CHECK_MASK		(3 << 5)

/* Doorbells in a UAR page (PRM offsets; mlx5 core keeps them private). */
#define MLX5SP_UAR_CQ_DB		0x20	/* 64-bit: CQ arm */
#define MLX5SP_UAR_EQ_DB_ARM		0x40	/* EQ consumer index + arm */
#define MLX5SP_UAR_EQ_DB_NOARM		0x48	/* EQ consumer index only */
#define MLX5SP_UAR_BF_OFFSET		0x800	/* send doorbells / BlueFlame */
#define MLX5SP_UAR_BF_SIZE		0x100	/* per BlueFlame register (x2) */

/*
 * PRM RTS2SQD_QP (the kernel headers name only SQD_RTS_QP): input is the
 * 2ERR_QP layout (opcode, uid, op_mod, qpn), output the 2ERR_QP output.
 * The QP's send queue stops before the next WQE; when it has drained the
 * device raises SQ_DRAINED (event type 0x03) for the QP.
 */
#define MLX5SP_CMD_OP_RTS2SQD_QP	0x508

/*
 * opt_param_mask bit of INIT2INIT_QP that selects qpc.drain_sigerr (the
 * kernel's enum mlx5_qp_optpar stops short of it; libmlx5 sets it to enable
 * signature pipelining).
 */
#define MLX5SP_QP_OPTPAR_DRAIN_SIGERR	BIT(11)

/*
 * Signature offload constants the kernel headers lack (PRM; rdma-core's
 * providers/mlx5 names them in wqe.h, cq.c and verbs.c).
 *
 * SIGERR CQE (struct mlx5_sig_err_cqe): the kernel calls bytes 0x22 and
 * 0x23 rsvd22[]; they hold the signature type and the domain of the error.
 */
#define MLX5SP_SIGERR_SYND_REFTAG	BIT(11)
#define MLX5SP_SIGERR_SYND_APPTAG	BIT(12)
#define MLX5SP_SIGERR_SYND_GUARD	BIT(13)
#define MLX5SP_SIGERR_SIG_TYPE_BLOCK	0
#define MLX5SP_SIGERR_DOMAIN_WIRE	0
#define MLX5SP_SIGERR_DOMAIN_MEMORY	1
#define MLX5SP_SIGERR_SIG_TYPE(cqe)	((cqe)->rsvd22[0])
#define MLX5SP_SIGERR_DOMAIN(cqe)	((cqe)->rsvd22[1])

/* BSF basic.bsf_size_sbs: size in bits 7:6, same block structure bit 4 */
#define MLX5SP_BSF_SIZE_SHIFT		6
#define MLX5SP_BSF_SIZE_BASIC		0
#define MLX5SP_BSF_SIZE_EXTENDED	1
#define MLX5SP_BSF_SIZE_WITH_INLINE	2
#define MLX5SP_BSF_SIZE_SIG_AND_CRYPTO	3
#define MLX5SP_BSF_SBS			BIT(4)
/* BSF inline rp_inv_seed: guard seed 0xffff (else the PSV's) */
#define MLX5SP_BSF_SEED			BIT(3)
/* BSF m/w_bfs_psv: block format selector in bits 31:24, PSV in 23:0 */
#define MLX5SP_BFS_SHIFT		24
#define MLX5SP_BSF_PSV_INDEX_MASK	0xffffff
#define MLX5SP_BFS_CRC32_BASE		0x20
#define MLX5SP_BFS_CRC32C_BASE		0x40
#define MLX5SP_BFS_CRC64_XP10_BASE	0x50
#define MLX5SP_BFS_CRC_REPEAT_BIT	0x2
#define MLX5SP_BFS_CRC_SEED_BIT		0x1	/* seed 0 (else all ones) */
/* block size selectors (mem.bs_selector, wire.bs_selector) */
#define MLX5SP_BS_512			1
#define MLX5SP_BS_520			2
#define MLX5SP_BS_4096			3
#define MLX5SP_BS_4160			4
#define MLX5SP_BS_1G			5
#define MLX5SP_BS_4048			6

/*
 * cmd_hca_cap signature bits the kernel's mlx5_ifc.h leaves reserved
 * (rdma-core names them): sig_crc64_xp10 (0x147), sig_crc32c (0x148) are
 * reserved_at_147[2], sig_block_4048 is reserved_at_1f0,
 * sigerr_domain_and_sig_type is reserved_at_480.
 */
#define MLX5SP_CAP_SIG_CRC32C(c)	MLX5_SET(cmd_hca_cap, c, reserved_at_147, 1)
#define MLX5SP_CAP_SIG_BLOCK_4048(c)	MLX5_SET(cmd_hca_cap, c, reserved_at_1f0, 1)
#define MLX5SP_CAP_SIGERR_DOMAIN(c)	MLX5_SET(cmd_hca_cap, c, reserved_at_480, 1)

/*
 * DEVX user-memory references the kernel's mlx5_ifc.h leaves reserved
 * (PRM; rdma-core's mlx5_ifc.h names them). Bit offsets of big-endian
 * fields that each start a dword; ids are 32 bits, offsets 64.
 */
#define MLX5SP_CQC_DBR_UMEM_ID		0x20	/* in cqc */
#define MLX5SP_QPC_DBR_UMEM_ID		0x720	/* in qpc */
#define MLX5SP_CREATE_CQ_UMEM_OFFSET	0x280	/* in create_cq_in */
#define MLX5SP_CREATE_CQ_UMEM_ID	0x2c0
#define MLX5SP_CREATE_MKEY_UMEM_ID	0x320	/* in create_mkey_in */
#define MLX5SP_CREATE_MKEY_UMEM_OFFSET	0x340

static inline u32 mlx5sp_get_dw(const void *p, u32 bit)
{
	return be32_to_cpu(((const __be32 *)p)[bit / 32]);
}

static inline void mlx5sp_set_dw(void *p, u32 bit, u32 v)
{
	((__be32 *)p)[bit / 32] = cpu_to_be32(v);
}

static inline u64 mlx5sp_get_qw(const void *p, u32 bit)
{
	return (u64)mlx5sp_get_dw(p, bit) << 32 | mlx5sp_get_dw(p, bit + 32);
}

static inline void mlx5sp_set_qw(void *p, u32 bit, u64 v)
{
	mlx5sp_set_dw(p, bit, upper_32_bits(v));
	mlx5sp_set_dw(p, bit + 32, lower_32_bits(v));
}

/*
 * The resource type an SRQ event (SRQ_RQ_LIMIT, SRQ_CATAS_ERROR) carries
 * in its EQE's qp_srq.type (PRM; mlx5_core names it MLX5_RES_SRQ).
 */
#define MLX5SP_EVENT_QUEUE_TYPE_SRQ	3

/*
 * The init segment's nic_interface field (cmdq_addr_l_sz from bit
 * MLX5_NIC_IFC_OFFSET): the value mlx5_core writes to stop a function
 * it gives up on, and reads back once the device has stopped.
 */
#define MLX5SP_NIC_IFC_DISABLED		1

#endif /* MLX5SP_PRM_H */
