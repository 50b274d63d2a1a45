/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * T10-DIF protection information of the user-space tests and benchmarks:
 * the guard's CRC16, the 8 bytes after each 512-byte block (guard,
 * application tag, reference tag, big-endian), as a disk and a ConnectX
 * lay them out, and the mlx5dv signature attributes of such blocks.
 */
#ifndef MLX5SP_TESTS_T10DIF_H
#define MLX5SP_TESTS_T10DIF_H

#include <arpa/inet.h>
#include <infiniband/mlx5dv.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* T10-DIF CRC16: polynomial 0x8bb7, no reflection, initial value 0. */
static inline uint16_t crc_t10dif(const unsigned char *p, size_t len)
{
	uint16_t crc = 0;
	int i;

	while (len--) {
		crc ^= (uint16_t)(*p++) << 8;
		for (i = 0; i < 8; i++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x8bb7 : crc << 1;
	}
	return crc;
}

/* The 8 bytes of PI of the @len data bytes at @data, into @pi. */
static inline void t10dif_pi(unsigned char *pi, const unsigned char *data,
			     size_t len, uint16_t app_tag, uint32_t ref_tag)
{
	uint16_t guard = htons(crc_t10dif(data, len)), app = htons(app_tag);
	uint32_t ref = htonl(ref_tag);

	memcpy(pi, &guard, 2);
	memcpy(pi + 2, &app, 2);
	memcpy(pi + 4, &ref, 4);
}

/* What mlx5dv_wr_set_mkey_sig_block() is given; it copies it. */
struct t10dif_sig {
	struct mlx5dv_sig_t10dif dif;
	struct mlx5dv_sig_block_domain mem;
	struct mlx5dv_sig_block_attr attr;
};

/*
 * The signature attributes of 512-byte blocks with T10-DIF (CRC guard) in
 * memory, ref tags from @ref_tag (remapped), guard, app and ref tag all
 * checked, no wire domain (the PI is stripped on the wire).
 */
static inline struct mlx5dv_sig_block_attr *
t10dif_sig_mem(struct t10dif_sig *s, uint16_t app_tag, uint32_t ref_tag)
{
	memset(s, 0, sizeof(*s));
	s->dif.bg_type = MLX5DV_SIG_T10DIF_CRC;
	s->dif.app_tag = app_tag;
	s->dif.ref_tag = ref_tag;
	s->dif.flags = MLX5DV_SIG_T10DIF_FLAG_REF_REMAP;
	s->mem.sig_type = MLX5DV_SIG_TYPE_T10DIF;
	s->mem.sig.dif = &s->dif;
	s->mem.block_size = MLX5DV_BLOCK_SIZE_512;
	s->attr.mem = &s->mem;
	s->attr.check_mask = MLX5DV_SIG_MASK_T10DIF_GUARD |
			     MLX5DV_SIG_MASK_T10DIF_APPTAG |
			     MLX5DV_SIG_MASK_T10DIF_REFTAG;
	return &s->attr;
}

#endif
