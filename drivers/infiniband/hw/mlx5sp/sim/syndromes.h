/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Command syndromes of the software ConnectX: one stable, distinct value
 * for every reason the model rejects a command. The driver logs the
 * syndrome with the status; this table says what it means.
 *
 * 0x5b<area><nn>: area 01 generic, 02 HCA life cycle, 03 ISSI, 04 pages,
 * 05 capabilities, 06 UAR, 07 EQ, 08 PD, 0f model-internal.
 */
#ifndef MLX5SP_SIM_SYNDROMES_H
#define MLX5SP_SIM_SYNDROMES_H

#define MLX5SP_SIM_SYNDROMES(X)						\
	X(BAD_OPCODE,		0x5b010001, "opcode not supported")	\
	X(INLEN_SHORT,		0x5b010002, "inlen below the command layout") \
	X(OUTLEN_SHORT,		0x5b010003, "outlen below the command layout") \
	X(BAD_OP_MOD,		0x5b010004, "op_mod not valid for the command") \
	X(UID_NOT_ZERO,		0x5b010005, "uid is not 0 (no DEVX yet)") \
	X(FUNC_NOT_ENABLED,	0x5b010006, "function not enabled (ENABLE_HCA)") \
	X(HCA_NOT_INITIALIZED,	0x5b010007, "HCA not initialized (INIT_HCA)") \
	X(HCA_ALREADY_INIT,	0x5b010008, "not allowed after INIT_HCA")	\
	X(FUNC_ALREADY_ENABLED,	0x5b010009, "function already enabled")	\
	X(BAD_FUNCTION_ID,	0x5b01000a, "function_id / other function not 0") \
	X(INIT_ISSI_NOT_SET,	0x5b020001, "INIT_HCA before SET_ISSI 1")	\
	X(INIT_BOOT_PAGES,	0x5b020002, "INIT_HCA with boot pages missing") \
	X(INIT_INIT_PAGES,	0x5b020003, "INIT_HCA with init pages missing") \
	X(TEARDOWN_BAD_PROFILE,	0x5b020004, "TEARDOWN_HCA profile not supported") \
	X(ISSI_UNSUPPORTED,	0x5b030001, "SET_ISSI to an unsupported ISSI") \
	X(PAGES_INLEN_ENTRIES,	0x5b040001, "MANAGE_PAGES entries beyond inlen") \
	X(PAGES_OUTLEN_ENTRIES,	0x5b040002, "MANAGE_PAGES entries beyond outlen") \
	X(PAGES_BAD_PA,		0x5b040003, "MANAGE_PAGES address not a usable page") \
	X(PAGES_DUP_PA,		0x5b040004, "MANAGE_PAGES page already held")	\
	X(PAGES_LIMIT,		0x5b040005, "MANAGE_PAGES beyond the page limit") \
	X(CAP_BAD_TYPE,		0x5b050001, "capability type not supported") \
	X(SET_CAP_ABOVE_MAX,	0x5b050002, "SET_HCA_CAP value above maximum") \
	X(SET_CAP_READ_ONLY,	0x5b050003, "SET_HCA_CAP changes a fixed field") \
	X(UAR_EXHAUSTED,	0x5b060001, "no free UAR page")		\
	X(UAR_NOT_ALLOCATED,	0x5b060002, "UAR index not allocated")	\
	X(UAR_IN_USE,		0x5b060003, "UAR still used by an EQ")	\
	X(EQ_EXHAUSTED,		0x5b070001, "no free EQ number")		\
	X(EQ_BAD_LOG_SIZE,	0x5b070002, "log_eq_size above log_max_eq_sz") \
	X(EQ_BAD_UAR,		0x5b070003, "EQ uar_page not allocated")	\
	X(EQ_BAD_INTR,		0x5b070004, "EQ intr beyond the vectors")	\
	X(EQ_BAD_LOG_PAGE_SIZE,	0x5b070005, "EQ log_page_size not supported") \
	X(EQ_PAS_INLEN,		0x5b070006, "EQ pas[] do not fit in inlen")	\
	X(EQ_BAD_PA,		0x5b070007, "EQ pas[] entry not usable memory") \
	X(EQ_BAD_PAGE_OFFSET,	0x5b070008, "EQ page_offset not 0")		\
	X(EQ_NOT_FOUND,		0x5b070009, "EQ number does not exist")	\
	X(EQ_BAD_ST,		0x5b07000a, "EQ initial st not 0 or ARMED")	\
	X(PD_EXHAUSTED,		0x5b080001, "no free PD number")		\
	X(PD_NOT_FOUND,		0x5b080002, "PD does not exist")		\
	X(NO_MEMORY,		0x5b0f0001, "model out of memory")

#define MLX5SP_SIM_SYND_ENUM(name, val, desc) MLX5SP_SIM_SYND_##name = (val),
enum mlx5sp_sim_syndrome {
	MLX5SP_SIM_SYNDROMES(MLX5SP_SIM_SYND_ENUM)
};

#undef MLX5SP_SIM_SYND_ENUM

#endif /* MLX5SP_SIM_SYNDROMES_H */
