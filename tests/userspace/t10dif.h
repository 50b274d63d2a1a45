/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * T10-DIF protection information of the user-space tests: the guard's
 * CRC16 and the 8 bytes after each 512-byte block (guard, application
 * tag, reference tag, big-endian), as a disk and a ConnectX lay them out.
 */
#ifndef MLX5SP_TESTS_T10DIF_H
#define MLX5SP_TESTS_T10DIF_H

#include <arpa/inet.h>
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

#endif
