/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Command syndromes of the software ConnectX: one stable, distinct value
 * for every reason the model rejects a command. The driver logs the
 * syndrome with the status; this table says what it means.
 *
 * 0x5b<area><nn>: area 01 generic, 02 HCA life cycle, 03 ISSI, 04 pages,
 * 05 capabilities, 06 UAR, 07 EQ, 08 PD, 09 MKEY, 0a CQ, 0b QP,
 * 0c RoCE addresses and vports, 0d transport domains, 0e DMA buffers,
 * 0f model-internal, 10 DEVX user contexts and user memory, 11 SRQ,
 * 12 Q counters, 13 the physical port (registers, vport), 14 NIC
 * steering (TIS, TIR, flow tables), 15 Ethernet SQs and RQs.
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
	/* uid is not 0 in a command without one */
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

	/* no free MKEY index */
	MLX5SP_SIM_SYND_MKEY_EXHAUSTED = 0x5b090001,
	/* MKEY index does not exist */
	MLX5SP_SIM_SYND_MKEY_NOT_FOUND = 0x5b090002,
	/* access mode not supported (PA and MTT only) */
	MLX5SP_SIM_SYND_MKEY_BAD_ACCESS_MODE = 0x5b090003,
	/* MKEY pd does not exist */
	MLX5SP_SIM_SYND_MKEY_BAD_PD = 0x5b090004,
	/* MTT log_page_size below 12 or above 30 */
	MLX5SP_SIM_SYND_MKEY_BAD_LOG_PAGE_SIZE = 0x5b090005,
	/* translations do not cover start_addr + len */
	MLX5SP_SIM_SYND_MKEY_TOO_FEW_MTTS = 0x5b090006,
	/* klm_pas_mtt[] beyond inlen */
	MLX5SP_SIM_SYND_MKEY_MTT_INLEN = 0x5b090007,
	/* MTT entry not usable memory */
	MLX5SP_SIM_SYND_MKEY_BAD_MTT = 0x5b090008,
	/* start_addr + len overflows */
	MLX5SP_SIM_SYND_MKEY_BAD_RANGE = 0x5b090009,
	/* free, umr_en, bsf_en or crossing: not supported yet */
	MLX5SP_SIM_SYND_MKEY_UNSUPPORTED = 0x5b09000b,

	/* no free CQ number */
	MLX5SP_SIM_SYND_CQ_EXHAUSTED = 0x5b0a0001,
	/* CQ number does not exist */
	MLX5SP_SIM_SYND_CQ_NOT_FOUND = 0x5b0a0002,
	/* cqe_sz not 64 bytes */
	MLX5SP_SIM_SYND_CQ_BAD_CQE_SIZE = 0x5b0a0003,
	/* log_cq_size above log_max_cq_sz */
	MLX5SP_SIM_SYND_CQ_BAD_LOG_SIZE = 0x5b0a0004,
	/* c_eqn is not an EQ */
	MLX5SP_SIM_SYND_CQ_BAD_EQN = 0x5b0a0005,
	/* CQ uar_page not allocated */
	MLX5SP_SIM_SYND_CQ_BAD_UAR = 0x5b0a0006,
	/* CQ dbr_addr not usable memory */
	MLX5SP_SIM_SYND_CQ_BAD_DBR = 0x5b0a0007,
	/* CQ still used by a QP */
	MLX5SP_SIM_SYND_CQ_IN_USE = 0x5b0a0008,
	/* MODIFY_CQ op_mod or field_select not supported */
	MLX5SP_SIM_SYND_CQ_BAD_MODIFY = 0x5b0a0009,
	/* CQE compression, oi, cc, apu: not supported */
	MLX5SP_SIM_SYND_CQ_UNSUPPORTED = 0x5b0a000a,
	/* resize below the CQEs outstanding */
	MLX5SP_SIM_SYND_CQ_RESIZE_TOO_SMALL = 0x5b0a000b,

	/* no free QP number */
	MLX5SP_SIM_SYND_QP_EXHAUSTED = 0x5b0b0001,
	/* QP number does not exist */
	MLX5SP_SIM_SYND_QP_NOT_FOUND = 0x5b0b0002,
	/* st not RC, UD or QP1 */
	MLX5SP_SIM_SYND_QP_BAD_ST = 0x5b0b0003,
	/* QP pd does not exist */
	MLX5SP_SIM_SYND_QP_BAD_PD = 0x5b0b0004,
	/* cqn_snd or cqn_rcv does not exist */
	MLX5SP_SIM_SYND_QP_BAD_CQN = 0x5b0b0005,
	/* log_sq_size / log_rq_size / log_rq_stride out of range */
	MLX5SP_SIM_SYND_QP_BAD_WQ_SIZE = 0x5b0b0006,
	/* rq_type not supported (SRQ, cyclic RQ only) */
	MLX5SP_SIM_SYND_QP_BAD_RQ_TYPE = 0x5b0b0007,
	/* QP uar_page not allocated */
	MLX5SP_SIM_SYND_QP_BAD_UAR = 0x5b0b0008,
	/* QP dbr_addr not usable memory */
	MLX5SP_SIM_SYND_QP_BAD_DBR = 0x5b0b0009,
	/* illegal transition from the QP's state */
	MLX5SP_SIM_SYND_QP_BAD_STATE = 0x5b0b000a,
	/* QP state in the QPC is not RST at creation */
	MLX5SP_SIM_SYND_QP_BAD_INIT_STATE = 0x5b0b000b,
	/* the device's GSI QP exists already */
	MLX5SP_SIM_SYND_QP_GSI_EXISTS = 0x5b0b000c,
	/* vhca_port_num not a port of the device */
	MLX5SP_SIM_SYND_QP_BAD_PORT = 0x5b0b000d,
	/* src_addr_index not a valid GID of the port */
	MLX5SP_SIM_SYND_QP_BAD_GID_INDEX = 0x5b0b000e,
	/* mtu not 256..4096 */
	MLX5SP_SIM_SYND_QP_BAD_MTU = 0x5b0b000f,
	/* qpc_ext, input_qpn, umem or ece: not supported */
	MLX5SP_SIM_SYND_QP_UNSUPPORTED = 0x5b0b0010,
	/* pkey_index beyond the table */
	MLX5SP_SIM_SYND_QP_BAD_PKEY_INDEX = 0x5b0b0011,

	/* roce_address_index beyond the GID table */
	MLX5SP_SIM_SYND_ROCE_BAD_INDEX = 0x5b0c0001,
	/* vhca_port_num not a port of the device */
	MLX5SP_SIM_SYND_ROCE_BAD_PORT = 0x5b0c0002,
	/* roce_version / roce_l3_type not supported */
	MLX5SP_SIM_SYND_ROCE_BAD_TYPE = 0x5b0c0003,
	/* other_vport / vport_number not 0 */
	MLX5SP_SIM_SYND_VPORT_OTHER = 0x5b0c0004,
	/* RoCE disabled (missing_caps) */
	MLX5SP_SIM_SYND_ROCE_DISABLED = 0x5b0c0005,

	/* no free transport domain */
	MLX5SP_SIM_SYND_TD_EXHAUSTED = 0x5b0d0001,
	/* transport domain does not exist */
	MLX5SP_SIM_SYND_TD_NOT_FOUND = 0x5b0d0002,

	/* pas[] do not fit in inlen */
	MLX5SP_SIM_SYND_BUF_PAS_INLEN = 0x5b0e0001,
	/* pas[] entry misaligned or not usable memory */
	MLX5SP_SIM_SYND_BUF_BAD_PA = 0x5b0e0002,
	/* log_page_size above 18 */
	MLX5SP_SIM_SYND_BUF_BAD_LOG_PAGE_SIZE = 0x5b0e0003,
	/* page_offset not 64-byte quantum of the page */
	MLX5SP_SIM_SYND_BUF_BAD_PAGE_OFFSET = 0x5b0e0004,

	/* CREATE_PSV num_psv not 1..4 */
	MLX5SP_SIM_SYND_PSV_BAD_NUM = 0x5b200001,
	/* CREATE_PSV pd does not exist */
	MLX5SP_SIM_SYND_PSV_BAD_PD = 0x5b200002,
	/* no free PSV index */
	MLX5SP_SIM_SYND_PSV_EXHAUSTED = 0x5b200003,
	/* DESTROY_PSV psvn does not exist */
	MLX5SP_SIM_SYND_PSV_NOT_FOUND = 0x5b200004,

	/* no free Q counter set (max_qp_cnt) */
	MLX5SP_SIM_SYND_QCNT_EXHAUSTED = 0x5b120001,
	/* counter_set_id names no allocated Q counter set */
	MLX5SP_SIM_SYND_QCNT_NOT_FOUND = 0x5b120002,
	/* QUERY_Q_COUNTER other_vport, vport_number or aggregate not 0 */
	MLX5SP_SIM_SYND_QCNT_BAD_PARAM = 0x5b120003,

	/* model out of memory */
	MLX5SP_SIM_SYND_NO_MEMORY = 0x5b0f0001,
	/* failed by the fail_nth injection (debugfs), no fail_syndrome set */
	MLX5SP_SIM_SYND_FAIL_NTH = 0x5b0f0002,

	/* uid names no user context */
	MLX5SP_SIM_SYND_UID_INVALID = 0x5b100001,
	/* command a user context may not issue */
	MLX5SP_SIM_SYND_UID_NOT_ALLOWED = 0x5b100002,
	/* command names an object of another uid */
	MLX5SP_SIM_SYND_UID_MISMATCH = 0x5b100003,
	/* CREATE_UCTX cap beyond uctx_cap */
	MLX5SP_SIM_SYND_UCTX_BAD_CAP = 0x5b100004,
	/* no free uid (log_max_uctx) */
	MLX5SP_SIM_SYND_UCTX_EXHAUSTED = 0x5b100005,
	/* DESTROY_UCTX of a uid not created */
	MLX5SP_SIM_SYND_UCTX_NOT_FOUND = 0x5b100006,
	/* DESTROY_UCTX while objects of the uid exist */
	MLX5SP_SIM_SYND_UCTX_IN_USE = 0x5b100007,
	/* umem: ats, log_page_size, page_offset or size not supported */
	MLX5SP_SIM_SYND_UMEM_BAD_PARAM = 0x5b100008,
	/* umem mtt[] beyond inlen */
	MLX5SP_SIM_SYND_UMEM_INLEN = 0x5b100009,
	/* umem mtt entry misaligned or not usable memory */
	MLX5SP_SIM_SYND_UMEM_BAD_MTT = 0x5b10000a,
	/* no free umem id */
	MLX5SP_SIM_SYND_UMEM_EXHAUSTED = 0x5b10000b,
	/* umem does not exist or belongs to another uid */
	MLX5SP_SIM_SYND_UMEM_NOT_FOUND = 0x5b10000c,
	/* umem still backs an object */
	MLX5SP_SIM_SYND_UMEM_IN_USE = 0x5b10000d,
	/* offset or length outside the umem, or misaligned */
	MLX5SP_SIM_SYND_UMEM_RANGE = 0x5b10000e,
	/* buffer by umem and doorbell not (or the reverse), or umem with a
	 * translation mode that takes none
	 */
	MLX5SP_SIM_SYND_UMEM_PARTIAL = 0x5b10000f,
	/* no free SRQ number */
	MLX5SP_SIM_SYND_SRQ_EXHAUSTED = 0x5b110001,
	/* SRQ number does not exist */
	MLX5SP_SIM_SYND_SRQ_NOT_FOUND = 0x5b110002,
	/* wq_signature, cont_srq or a state not GOOD: not supported */
	MLX5SP_SIM_SYND_SRQ_UNSUPPORTED = 0x5b110003,
	/* log_srq_size or log_rq_stride out of range */
	MLX5SP_SIM_SYND_SRQ_BAD_SIZE = 0x5b110004,
	/* SRQ pd does not exist */
	MLX5SP_SIM_SYND_SRQ_BAD_PD = 0x5b110005,
	/* SRQ dbr_addr not usable memory */
	MLX5SP_SIM_SYND_SRQ_BAD_DBR = 0x5b110006,
	/* SRQ still used by a QP */
	MLX5SP_SIM_SYND_SRQ_IN_USE = 0x5b110007,
	/* ARM_RQ lwm not below the SRQ size */
	MLX5SP_SIM_SYND_SRQ_BAD_LWM = 0x5b110008,
	/* QP srqn does not exist */
	MLX5SP_SIM_SYND_QP_BAD_SRQN = 0x5b110009,

	/* register_id not PAOS, PMTU or PTYS */
	MLX5SP_SIM_SYND_REG_UNSUPPORTED = 0x5b130001,
	/* local_port not 1, or another plane or swid */
	MLX5SP_SIM_SYND_REG_BAD_PORT = 0x5b130002,
	/* ACCESS_REG op_mod not write (0) or read (1) */
	MLX5SP_SIM_SYND_REG_BAD_OP = 0x5b130003,
	/* register data shorter than the register's layout */
	MLX5SP_SIM_SYND_REG_SHORT = 0x5b130004,
	/* PAOS admin_status not up (1) or down (2) */
	MLX5SP_SIM_SYND_PAOS_BAD_STATUS = 0x5b130005,
	/* PMTU admin_mtu above max_mtu or below the minimum */
	MLX5SP_SIM_SYND_PMTU_BAD_MTU = 0x5b130006,
	/* PTYS proto_mask not Ethernet, or eth_proto_admin not supported */
	MLX5SP_SIM_SYND_PTYS_BAD_PROTO = 0x5b130007,
	/* MODIFY_NIC_VPORT_CONTEXT field_select beyond roce_en and mtu */
	MLX5SP_SIM_SYND_VPORT_BAD_FIELD = 0x5b130008,
	/* MODIFY_NIC_VPORT_CONTEXT mtu out of range */
	MLX5SP_SIM_SYND_VPORT_BAD_MTU = 0x5b130009,

	/* no free TIS, TIR, flow table or flow group number */
	MLX5SP_SIM_SYND_STEER_EXHAUSTED = 0x5b140001,
	/* TIS does not exist */
	MLX5SP_SIM_SYND_TIS_NOT_FOUND = 0x5b140002,
	/* TIS prio, lag, tls, underlay or pd: not supported */
	MLX5SP_SIM_SYND_TIS_UNSUPPORTED = 0x5b140003,
	/* TIS still used by an SQ */
	MLX5SP_SIM_SYND_TIS_IN_USE = 0x5b140004,
	/* TIR does not exist */
	MLX5SP_SIM_SYND_TIR_NOT_FOUND = 0x5b140005,
	/* TIR not DIRECT, or LRO, TLS, hashing, self loopback block set */
	MLX5SP_SIM_SYND_TIR_UNSUPPORTED = 0x5b140006,
	/* TIR inline_rqn is not an RQ */
	MLX5SP_SIM_SYND_TIR_BAD_RQN = 0x5b140007,
	/* TIR still a destination of a flow table entry */
	MLX5SP_SIM_SYND_TIR_IN_USE = 0x5b140008,
	/* table_type not NIC_RX */
	MLX5SP_SIM_SYND_FT_BAD_TYPE = 0x5b140009,
	/* flow table does not exist */
	MLX5SP_SIM_SYND_FT_NOT_FOUND = 0x5b14000a,
	/* flow table level or log_size out of range */
	MLX5SP_SIM_SYND_FT_BAD_SIZE = 0x5b14000b,
	/* flow table reformat, decap, sw_owner, termination or miss action */
	MLX5SP_SIM_SYND_FT_UNSUPPORTED = 0x5b14000c,
	/* flow table is the root, or still has groups */
	MLX5SP_SIM_SYND_FT_IN_USE = 0x5b14000d,
	/* flow group indexes outside the table, reversed or overlapping */
	MLX5SP_SIM_SYND_FG_BAD_RANGE = 0x5b14000e,
	/* flow group criteria beyond outer dmac and ethertype */
	MLX5SP_SIM_SYND_FG_UNSUPPORTED = 0x5b14000f,
	/* flow group does not exist */
	MLX5SP_SIM_SYND_FG_NOT_FOUND = 0x5b140010,
	/* flow group still has entries */
	MLX5SP_SIM_SYND_FG_IN_USE = 0x5b140011,
	/* flow_index in no group of the table, or not the group_id's */
	MLX5SP_SIM_SYND_FTE_BAD_INDEX = 0x5b140012,
	/* flow_index already has an entry (op_mod new) */
	MLX5SP_SIM_SYND_FTE_EXISTS = 0x5b140013,
	/* entry action not FWD_DEST to one TIR, or op_mod not new */
	MLX5SP_SIM_SYND_FTE_UNSUPPORTED = 0x5b140014,
	/* flow_index has no entry */
	MLX5SP_SIM_SYND_FTE_NOT_FOUND = 0x5b140015,
	/* other_vport / vport_number not 0 in a steering command */
	MLX5SP_SIM_SYND_STEER_OTHER_VPORT = 0x5b140016,

	/* no free SQ or RQ number (the QP number space) */
	MLX5SP_SIM_SYND_WQ_EXHAUSTED = 0x5b150001,
	/* SQ does not exist */
	MLX5SP_SIM_SYND_SQ_NOT_FOUND = 0x5b150002,
	/* RQ does not exist */
	MLX5SP_SIM_SYND_RQ_NOT_FOUND = 0x5b150003,
	/* wq_type not cyclic, signature, end padding, umem, striding */
	MLX5SP_SIM_SYND_WQ_UNSUPPORTED = 0x5b150004,
	/* log_wq_stride or log_wq_sz out of range */
	MLX5SP_SIM_SYND_WQ_BAD_SIZE = 0x5b150005,
	/* wq pd does not exist */
	MLX5SP_SIM_SYND_WQ_BAD_PD = 0x5b150006,
	/* wq uar_page not allocated */
	MLX5SP_SIM_SYND_WQ_BAD_UAR = 0x5b150007,
	/* wq dbr_addr not usable memory */
	MLX5SP_SIM_SYND_WQ_BAD_DBR = 0x5b150008,
	/* cqn is not a CQ */
	MLX5SP_SIM_SYND_WQ_BAD_CQN = 0x5b150009,
	/* state in the context not RST at creation */
	MLX5SP_SIM_SYND_WQ_BAD_INIT_STATE = 0x5b15000a,
	/* illegal transition, or the current state is not the one named */
	MLX5SP_SIM_SYND_WQ_BAD_STATE = 0x5b15000b,
	/* SQ fields not supported: tis_lst_sz not 1, hairpin, rate limit,
	 * min inline above L2, reg_umr, swp, ts format
	 */
	MLX5SP_SIM_SYND_SQ_UNSUPPORTED = 0x5b15000c,
	/* RQ fields not supported: vsd 0, mem_rq_type, rmp, hairpin, fcs */
	MLX5SP_SIM_SYND_RQ_UNSUPPORTED = 0x5b15000d,
	/* RQ still the destination of a TIR */
	MLX5SP_SIM_SYND_RQ_IN_USE = 0x5b15000e,
	/* MODIFY_SQ / MODIFY_RQ modify_bitmask not 0 */
	MLX5SP_SIM_SYND_WQ_BAD_MODIFY = 0x5b15000f,
};

#endif /* MLX5SP_SIM_SYNDROMES_H */
