/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The PRM layouts for DEVX commands from user space: the kernel's own
 * <linux/mlx5/mlx5_ifc.h> (path in MLX5_IFC, from the Makefile), read
 * through mlx5dv.h's DEVX_SET/DEVX_GET. It needs three kernel macros.
 */
#ifndef MLX5SP_TESTS_PRM_H
#define MLX5SP_TESTS_PRM_H

#include <endian.h>
#include <stdint.h>
#include <infiniband/mlx5dv.h>

typedef uint8_t u8;
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define DECLARE_FLEX_ARRAY(T, m) struct { struct { } __empty_##m; T m[]; }

#include MLX5_IFC

/* Event numbers of <linux/mlx5/device.h>, which user space cannot include. */
enum {
	MLX5_EVENT_TYPE_SQ_DRAINED	= 0x03,
	MLX5_EVENT_TYPE_PORT_CHANGE	= 0x09,
	MLX5_PORT_CHANGE_SUBTYPE_DOWN	= 1,
	MLX5_PORT_CHANGE_SUBTYPE_ACTIVE	= 4,
};

/* mlx5sp_model.h's number for RTS2SQD_QP (the layout of 2ERR_QP). */
#define MLX5SP_CMD_OP_RTS2SQD_QP	0x508

/*
 * DEVX user-memory ids the kernel's mlx5_ifc.h leaves reserved, as
 * mlx5sp_model.h places them: bit offsets of 32-bit big-endian fields.
 */
#define MLX5SP_CQC_DBR_UMEM_ID		0x20	/* in cqc */
#define MLX5SP_QPC_DBR_UMEM_ID		0x720	/* in qpc */
#define MLX5SP_CREATE_CQ_UMEM_ID	0x2c0	/* in create_cq_in */

static inline void mlx5sp_set_dw(void *p, unsigned int bit, uint32_t v)
{
	((uint32_t *)p)[bit / 32] = htobe32(v);
}

#endif
