/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What every RC test program asks of port 1 first: its active MTU and the
 * GID to address a QP of the same device by, the first RoCE v2 GID of the
 * table (else the first GID at all).
 */
#ifndef MLX5SP_TESTS_ROCE_H
#define MLX5SP_TESTS_ROCE_H

#include <infiniband/verbs.h>

/* The GID index (and @gid, @mtu) of port 1; -1 when there is none. */
static inline int roce_port_gid(struct ibv_context *ctx, union ibv_gid *gid,
				enum ibv_mtu *mtu)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	int i, index = -1;

	if (ibv_query_port(ctx, 1, &pa))
		return -1;
	*mtu = pa.active_mtu;
	for (i = 0; i < 16; i++) {
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0))
			continue;
		if (index < 0 || e.gid_type == IBV_GID_TYPE_ROCE_V2)
			index = i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2)
			break;
	}
	if (index < 0 || ibv_query_gid(ctx, 1, index, gid))
		return -1;
	return index;
}

#endif
