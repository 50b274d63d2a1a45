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

enum mlx5sp_sim_syndrome {
	/* opcode not supported */
	MLX5SP_SIM_SYND_BAD_OPCODE = 0x5b010001,
	/* inlen below the command layout */
	MLX5SP_SIM_SYND_INLEN_SHORT = 0x5b010002,
	/* outlen below the command layout */
	MLX5SP_SIM_SYND_OUTLEN_SHORT = 0x5b010003,
	/* op_mod not valid for the command */
	MLX5SP_SIM_SYND_BAD_OP_MOD = 0x5b010004,
	/* uid is not 0 (no DEVX yet) */
	MLX5SP_SIM_SYND_UID_NOT_ZERO = 0x5b010005,
	/* function not enabled (ENABLE_HCA) */
	MLX5SP_SIM_SYND_FUNC_NOT_ENABLED = 0x5b010006,
	/* HCA not initialized (INIT_HCA) */
	MLX5SP_SIM_SYND_HCA_NOT_INITIALIZED = 0x5b010007,
	/* not allowed after INIT_HCA */
	MLX5SP_SIM_SYND_HCA_ALREADY_INIT = 0x5b010008,
	/* function already enabled */
	MLX5SP_SIM_SYND_FUNC_ALREADY_ENABLED = 0x5b010009,
	/* function_id / other function not 0 */
	MLX5SP_SIM_SYND_BAD_FUNCTION_ID = 0x5b01000a,

	/* INIT_HCA before SET_ISSI 1 */
	MLX5SP_SIM_SYND_INIT_ISSI_NOT_SET = 0x5b020001,
	/* INIT_HCA with boot pages missing */
	MLX5SP_SIM_SYND_INIT_BOOT_PAGES = 0x5b020002,
	/* INIT_HCA with init pages missing */
	MLX5SP_SIM_SYND_INIT_INIT_PAGES = 0x5b020003,
	/* TEARDOWN_HCA profile not supported */
	MLX5SP_SIM_SYND_TEARDOWN_BAD_PROFILE = 0x5b020004,

	/* SET_ISSI to an unsupported ISSI */
	MLX5SP_SIM_SYND_ISSI_UNSUPPORTED = 0x5b030001,

	/* MANAGE_PAGES entries beyond inlen */
	MLX5SP_SIM_SYND_PAGES_INLEN_ENTRIES = 0x5b040001,
	/* MANAGE_PAGES entries beyond outlen */
	MLX5SP_SIM_SYND_PAGES_OUTLEN_ENTRIES = 0x5b040002,
	/* MANAGE_PAGES address not a usable page */
	MLX5SP_SIM_SYND_PAGES_BAD_PA = 0x5b040003,
	/* MANAGE_PAGES page already held */
	MLX5SP_SIM_SYND_PAGES_DUP_PA = 0x5b040004,
	/* MANAGE_PAGES beyond the page limit */
	MLX5SP_SIM_SYND_PAGES_LIMIT = 0x5b040005,

	/* capability type not supported */
	MLX5SP_SIM_SYND_CAP_BAD_TYPE = 0x5b050001,
	/* SET_HCA_CAP value above maximum */
	MLX5SP_SIM_SYND_SET_CAP_ABOVE_MAX = 0x5b050002,
	/* SET_HCA_CAP changes a fixed field */
	MLX5SP_SIM_SYND_SET_CAP_READ_ONLY = 0x5b050003,

	/* no free UAR page */
	MLX5SP_SIM_SYND_UAR_EXHAUSTED = 0x5b060001,
	/* UAR index not allocated */
	MLX5SP_SIM_SYND_UAR_NOT_ALLOCATED = 0x5b060002,
	/* UAR still used by an EQ */
	MLX5SP_SIM_SYND_UAR_IN_USE = 0x5b060003,

	/* no free EQ number */
	MLX5SP_SIM_SYND_EQ_EXHAUSTED = 0x5b070001,
	/* log_eq_size above log_max_eq_sz */
	MLX5SP_SIM_SYND_EQ_BAD_LOG_SIZE = 0x5b070002,
	/* EQ uar_page not allocated */
	MLX5SP_SIM_SYND_EQ_BAD_UAR = 0x5b070003,
	/* EQ intr beyond the vectors */
	MLX5SP_SIM_SYND_EQ_BAD_INTR = 0x5b070004,
	/* EQ log_page_size not supported */
	MLX5SP_SIM_SYND_EQ_BAD_LOG_PAGE_SIZE = 0x5b070005,
	/* EQ pas[] do not fit in inlen */
	MLX5SP_SIM_SYND_EQ_PAS_INLEN = 0x5b070006,
	/* EQ pas[] entry not usable memory */
	MLX5SP_SIM_SYND_EQ_BAD_PA = 0x5b070007,
	/* EQ page_offset not 0 */
	MLX5SP_SIM_SYND_EQ_BAD_PAGE_OFFSET = 0x5b070008,
	/* EQ number does not exist */
	MLX5SP_SIM_SYND_EQ_NOT_FOUND = 0x5b070009,
	/* EQ initial st not 0 or ARMED */
	MLX5SP_SIM_SYND_EQ_BAD_ST = 0x5b07000a,

	/* no free PD number */
	MLX5SP_SIM_SYND_PD_EXHAUSTED = 0x5b080001,
	/* PD does not exist */
	MLX5SP_SIM_SYND_PD_NOT_FOUND = 0x5b080002,

	/* model out of memory */
	MLX5SP_SIM_SYND_NO_MEMORY = 0x5b0f0001,
};

#endif /* MLX5SP_SIM_SYNDROMES_H */
