// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Command interface transport: the command queue page, mailbox chains,
 * ownership, signatures, completion by polling or by CMD EQE, timeouts and
 * the mapping of PRM status to errno.
 *
 * A slot is owned by one caller from submission until firmware hands it back
 * (ownership bit clear) or the driver gives up on the device. A caller that
 * times out leaves the slot TIMED_OUT with its mailboxes alive: firmware may
 * still write them. The slot is reaped once firmware returns it.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "mlx5sp.h"
#include "trace.h"

static unsigned int cmd_timeout_ms = 60000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms, "Command timeout in milliseconds (default 60000)");

#define CMD_INLINE_LEN	16
#define CMD_OWNER_HW	0x1

static const char * const opcode_names[] = {
	[MLX5_CMD_OP_QUERY_HCA_CAP] = "QUERY_HCA_CAP",
	[MLX5_CMD_OP_QUERY_ADAPTER] = "QUERY_ADAPTER",
	[MLX5_CMD_OP_INIT_HCA] = "INIT_HCA",
	[MLX5_CMD_OP_TEARDOWN_HCA] = "TEARDOWN_HCA",
	[MLX5_CMD_OP_ENABLE_HCA] = "ENABLE_HCA",
	[MLX5_CMD_OP_DISABLE_HCA] = "DISABLE_HCA",
	[MLX5_CMD_OP_QUERY_PAGES] = "QUERY_PAGES",
	[MLX5_CMD_OP_MANAGE_PAGES] = "MANAGE_PAGES",
	[MLX5_CMD_OP_SET_HCA_CAP] = "SET_HCA_CAP",
	[MLX5_CMD_OP_QUERY_ISSI] = "QUERY_ISSI",
	[MLX5_CMD_OP_SET_ISSI] = "SET_ISSI",
	[MLX5_CMD_OP_CREATE_MKEY] = "CREATE_MKEY",
	[MLX5_CMD_OP_QUERY_MKEY] = "QUERY_MKEY",
	[MLX5_CMD_OP_DESTROY_MKEY] = "DESTROY_MKEY",
	[MLX5_CMD_OP_QUERY_SPECIAL_CONTEXTS] = "QUERY_SPECIAL_CONTEXTS",
	[MLX5_CMD_OP_CREATE_EQ] = "CREATE_EQ",
	[MLX5_CMD_OP_DESTROY_EQ] = "DESTROY_EQ",
	[MLX5_CMD_OP_QUERY_EQ] = "QUERY_EQ",
	[MLX5_CMD_OP_CREATE_CQ] = "CREATE_CQ",
	[MLX5_CMD_OP_DESTROY_CQ] = "DESTROY_CQ",
	[MLX5_CMD_OP_QUERY_CQ] = "QUERY_CQ",
	[MLX5_CMD_OP_MODIFY_CQ] = "MODIFY_CQ",
	[MLX5_CMD_OP_CREATE_QP] = "CREATE_QP",
	[MLX5_CMD_OP_DESTROY_QP] = "DESTROY_QP",
	[MLX5_CMD_OP_RST2INIT_QP] = "RST2INIT_QP",
	[MLX5_CMD_OP_INIT2RTR_QP] = "INIT2RTR_QP",
	[MLX5_CMD_OP_RTR2RTS_QP] = "RTR2RTS_QP",
	[MLX5_CMD_OP_RTS2RTS_QP] = "RTS2RTS_QP",
	[MLX5_CMD_OP_SQERR2RTS_QP] = "SQERR2RTS_QP",
	[MLX5_CMD_OP_2ERR_QP] = "2ERR_QP",
	[MLX5_CMD_OP_2RST_QP] = "2RST_QP",
	[MLX5_CMD_OP_QUERY_QP] = "QUERY_QP",
	[MLX5_CMD_OP_SQD_RTS_QP] = "SQD_RTS_QP",
	[MLX5SP_CMD_OP_RTS2SQD_QP] = "RTS2SQD_QP",
	[MLX5_CMD_OP_INIT2INIT_QP] = "INIT2INIT_QP",
	[MLX5_CMD_OP_CREATE_PSV] = "CREATE_PSV",
	[MLX5_CMD_OP_DESTROY_PSV] = "DESTROY_PSV",
	[MLX5_CMD_OP_CREATE_SRQ] = "CREATE_SRQ",
	[MLX5_CMD_OP_DESTROY_SRQ] = "DESTROY_SRQ",
	[MLX5_CMD_OP_QUERY_SRQ] = "QUERY_SRQ",
	[MLX5_CMD_OP_ARM_RQ] = "ARM_RQ",
	[MLX5_CMD_OP_QUERY_VPORT_STATE] = "QUERY_VPORT_STATE",
	[MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT] = "QUERY_NIC_VPORT_CONTEXT",
	[MLX5_CMD_OP_QUERY_HCA_VPORT_CONTEXT] = "QUERY_HCA_VPORT_CONTEXT",
	[MLX5_CMD_OP_QUERY_HCA_VPORT_GID] = "QUERY_HCA_VPORT_GID",
	[MLX5_CMD_OP_QUERY_HCA_VPORT_PKEY] = "QUERY_HCA_VPORT_PKEY",
	[MLX5_CMD_OP_SET_ROCE_ADDRESS] = "SET_ROCE_ADDRESS",
	[MLX5_CMD_OP_QUERY_ROCE_ADDRESS] = "QUERY_ROCE_ADDRESS",
	[MLX5_CMD_OP_ALLOC_PD] = "ALLOC_PD",
	[MLX5_CMD_OP_DEALLOC_PD] = "DEALLOC_PD",
	[MLX5_CMD_OP_ALLOC_Q_COUNTER] = "ALLOC_Q_COUNTER",
	[MLX5_CMD_OP_DEALLOC_Q_COUNTER] = "DEALLOC_Q_COUNTER",
	[MLX5_CMD_OP_QUERY_Q_COUNTER] = "QUERY_Q_COUNTER",
	[MLX5_CMD_OP_QUERY_CONG_STATUS] = "QUERY_CONG_STATUS",
	[MLX5_CMD_OP_QUERY_CONG_PARAMS] = "QUERY_CONG_PARAMS",
	[MLX5_CMD_OP_QUERY_CONG_STATISTICS] = "QUERY_CONG_STATISTICS",
	[MLX5_CMD_OP_ALLOC_UAR] = "ALLOC_UAR",
	[MLX5_CMD_OP_DEALLOC_UAR] = "DEALLOC_UAR",
	[MLX5_CMD_OP_ALLOC_TRANSPORT_DOMAIN] = "ALLOC_TRANSPORT_DOMAIN",
	[MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN] = "DEALLOC_TRANSPORT_DOMAIN",
	[MLX5_CMD_OP_ACCESS_REG] = "ACCESS_REG",
	[MLX5_CMD_OP_CREATE_TIR] = "CREATE_TIR",
	[MLX5_CMD_OP_DESTROY_TIR] = "DESTROY_TIR",
	[MLX5_CMD_OP_CREATE_TIS] = "CREATE_TIS",
	[MLX5_CMD_OP_DESTROY_TIS] = "DESTROY_TIS",
	[MLX5_CMD_OP_CREATE_SQ] = "CREATE_SQ",
	[MLX5_CMD_OP_MODIFY_SQ] = "MODIFY_SQ",
	[MLX5_CMD_OP_QUERY_SQ] = "QUERY_SQ",
	[MLX5_CMD_OP_DESTROY_SQ] = "DESTROY_SQ",
	[MLX5_CMD_OP_CREATE_RQ] = "CREATE_RQ",
	[MLX5_CMD_OP_MODIFY_RQ] = "MODIFY_RQ",
	[MLX5_CMD_OP_QUERY_RQ] = "QUERY_RQ",
	[MLX5_CMD_OP_DESTROY_RQ] = "DESTROY_RQ",
	[MLX5_CMD_OP_MODIFY_NIC_VPORT_CONTEXT] = "MODIFY_NIC_VPORT_CONTEXT",
	[MLX5_CMD_OP_CREATE_FLOW_TABLE] = "CREATE_FLOW_TABLE",
	[MLX5_CMD_OP_DESTROY_FLOW_TABLE] = "DESTROY_FLOW_TABLE",
	[MLX5_CMD_OP_CREATE_FLOW_GROUP] = "CREATE_FLOW_GROUP",
	[MLX5_CMD_OP_DESTROY_FLOW_GROUP] = "DESTROY_FLOW_GROUP",
	[MLX5_CMD_OP_SET_FLOW_TABLE_ENTRY] = "SET_FLOW_TABLE_ENTRY",
	[MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY] = "DELETE_FLOW_TABLE_ENTRY",
	[MLX5_CMD_OP_SET_FLOW_TABLE_ROOT] = "SET_FLOW_TABLE_ROOT",
	[MLX5_CMD_OP_CREATE_GENERAL_OBJECT] = "CREATE_GENERAL_OBJECT",
	[MLX5_CMD_OP_DESTROY_GENERAL_OBJECT] = "DESTROY_GENERAL_OBJECT",
	[MLX5_CMD_OP_MODIFY_GENERAL_OBJECT] = "MODIFY_GENERAL_OBJECT",
	[MLX5_CMD_OP_QUERY_GENERAL_OBJECT] = "QUERY_GENERAL_OBJECT",
	[MLX5_CMD_OP_CREATE_UCTX] = "CREATE_UCTX",
	[MLX5_CMD_OP_DESTROY_UCTX] = "DESTROY_UCTX",
	[MLX5_CMD_OP_CREATE_UMEM] = "CREATE_UMEM",
	[MLX5_CMD_OP_DESTROY_UMEM] = "DESTROY_UMEM",
};

const char *mlx5sp_cmd_opcode_str(u16 opcode)
{
	if (opcode < ARRAY_SIZE(opcode_names) && opcode_names[opcode])
		return opcode_names[opcode];
	return "UNKNOWN_OPCODE";
}
EXPORT_SYMBOL_GPL(mlx5sp_cmd_opcode_str);

static const char *status_str(u8 status)
{
	switch (status) {
	case MLX5_CMD_STAT_OK: return "OK";
	case MLX5_CMD_STAT_INT_ERR: return "internal error";
	case MLX5_CMD_STAT_BAD_OP_ERR: return "bad operation";
	case MLX5_CMD_STAT_BAD_PARAM_ERR: return "bad parameter";
	case MLX5_CMD_STAT_BAD_SYS_STATE_ERR: return "bad system state";
	case MLX5_CMD_STAT_BAD_RES_ERR: return "bad resource";
	case MLX5_CMD_STAT_RES_BUSY: return "resource busy";
	case MLX5_CMD_STAT_NOT_READY: return "not ready";
	case MLX5_CMD_STAT_LIM_ERR: return "limits exceeded";
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR: return "bad resource state";
	case MLX5_CMD_STAT_IX_ERR: return "bad index";
	case MLX5_CMD_STAT_NO_RES_ERR: return "no resources";
	case MLX5_CMD_STAT_BAD_INP_LEN_ERR: return "bad input length";
	case MLX5_CMD_STAT_BAD_OUTP_LEN_ERR: return "bad output length";
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR: return "bad QP state";
	case MLX5_CMD_STAT_BAD_PKT_ERR: return "bad packet";
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR: return "bad size, too many outstanding CQEs";
	default: return "unknown status";
	}
}

/* The one place that turns a PRM command status into an errno. */
int mlx5sp_cmd_status_to_err(u8 status)
{
	switch (status) {
	case MLX5_CMD_STAT_OK:
		return 0;
	case MLX5_CMD_STAT_BAD_OP_ERR:
		return -EOPNOTSUPP;
	case MLX5_CMD_STAT_BAD_PARAM_ERR:
	case MLX5_CMD_STAT_BAD_RES_ERR:
	case MLX5_CMD_STAT_BAD_RES_STATE_ERR:
	case MLX5_CMD_STAT_IX_ERR:
	case MLX5_CMD_STAT_BAD_QP_STATE_ERR:
	case MLX5_CMD_STAT_BAD_PKT_ERR:
	case MLX5_CMD_STAT_BAD_SIZE_OUTS_CQES_ERR:
		return -EINVAL;
	case MLX5_CMD_STAT_RES_BUSY:
		return -EBUSY;
	case MLX5_CMD_STAT_NOT_READY:
	case MLX5_CMD_STAT_NO_RES_ERR:
		return -EAGAIN;
	case MLX5_CMD_STAT_LIM_ERR:
		return -ENOMEM;
	case MLX5_CMD_STAT_BAD_INP_LEN_ERR:
	case MLX5_CMD_STAT_BAD_OUTP_LEN_ERR:
		return -EMSGSIZE;
	case MLX5_CMD_STAT_INT_ERR:
	case MLX5_CMD_STAT_BAD_SYS_STATE_ERR:
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_GPL(mlx5sp_cmd_status_to_err);

u8 mlx5sp_xor8(const void *buf, size_t len)
{
	const u8 *p = buf;
	u8 sum = 0;

	while (len--)
		sum ^= *p++;
	return sum;
}
EXPORT_SYMBOL_GPL(mlx5sp_xor8);

/* Control signature: from rsvd0 up to, not including, ctrl_sig. */
#define BLOCK_CTRL_OFF	offsetof(struct mlx5_cmd_prot_block, rsvd0)
#define BLOCK_CTRL_LEN	(offsetof(struct mlx5_cmd_prot_block, ctrl_sig) - BLOCK_CTRL_OFF)

static void block_sign(struct mlx5_cmd_prot_block *b)
{
	b->ctrl_sig = ~mlx5sp_xor8((u8 *)b + BLOCK_CTRL_OFF, BLOCK_CTRL_LEN);
	b->sig = ~mlx5sp_xor8(b, sizeof(*b) - 1);
}

static bool block_sig_ok(const struct mlx5_cmd_prot_block *b)
{
	return mlx5sp_xor8((const u8 *)b + BLOCK_CTRL_OFF, BLOCK_CTRL_LEN + 1) == 0xff &&
	       mlx5sp_xor8(b, sizeof(*b)) == 0xff;
}

/*
 * Command internal-error semantics: once the device is dead, commands that
 * release resources report success so teardown can free host memory; the
 * rest fail.
 */
static int dead_dev_result(struct mlx5sp_dev *dev, u16 opcode, void *out,
			   int outlen)
{
	/* what a release frees, the stopped device no longer touches */
	mlx5sp_wait_nic_off(dev);
	memset(out, 0, outlen);
	switch (opcode) {
	case MLX5_CMD_OP_TEARDOWN_HCA:
	case MLX5_CMD_OP_DISABLE_HCA:
	case MLX5_CMD_OP_MANAGE_PAGES:
	case MLX5_CMD_OP_DESTROY_MKEY:
	case MLX5_CMD_OP_DESTROY_EQ:
	case MLX5_CMD_OP_DESTROY_CQ:
	case MLX5_CMD_OP_DESTROY_QP:
	case MLX5_CMD_OP_DESTROY_PSV:
	case MLX5_CMD_OP_DESTROY_SRQ:
	case MLX5_CMD_OP_DESTROY_UMEM:
	case MLX5_CMD_OP_DESTROY_UCTX:
	case MLX5_CMD_OP_2RST_QP:
	case MLX5_CMD_OP_2ERR_QP:
	case MLX5_CMD_OP_DEALLOC_PD:
	case MLX5_CMD_OP_DEALLOC_UAR:
	case MLX5_CMD_OP_DEALLOC_TRANSPORT_DOMAIN:
	case MLX5_CMD_OP_DESTROY_GENERAL_OBJECT:
	case MLX5_CMD_OP_DESTROY_TIR:
	case MLX5_CMD_OP_DESTROY_TIS:
	case MLX5_CMD_OP_DESTROY_SQ:
	case MLX5_CMD_OP_DESTROY_RQ:
	case MLX5_CMD_OP_DESTROY_FLOW_TABLE:
	case MLX5_CMD_OP_DESTROY_FLOW_GROUP:
	case MLX5_CMD_OP_DELETE_FLOW_TABLE_ENTRY:
		return 0;
	default:
		return -ENOLINK;
	}
}

static void msg_free(struct mlx5sp_cmd *cmd, struct mlx5sp_cmd_msg *msg)
{
	unsigned int i;

	for (i = 0; i < msg->nblocks; i++)
		if (msg->blocks[i])
			dma_pool_free(cmd->pool, msg->blocks[i], msg->dma[i]);
	kfree(msg->blocks);
	kfree(msg->dma);
	memset(msg, 0, sizeof(*msg));
}

/* Builds the mailbox chain for the bytes of a message beyond the inline 16. */
static int msg_alloc(struct mlx5sp_cmd *cmd, struct mlx5sp_cmd_msg *msg,
		     const void *data, int len, u8 token)
{
	unsigned int n = 0, i;

	if (len > CMD_INLINE_LEN)
		n = DIV_ROUND_UP(len - CMD_INLINE_LEN, MLX5_CMD_DATA_BLOCK_SIZE);
	memset(msg, 0, sizeof(*msg));
	if (!n)
		return 0;

	msg->blocks = kcalloc(n, sizeof(*msg->blocks), GFP_KERNEL);
	msg->dma = kcalloc(n, sizeof(*msg->dma), GFP_KERNEL);
	if (!msg->blocks || !msg->dma)
		goto err_free;
	msg->nblocks = n;
	for (i = 0; i < n; i++) {
		msg->blocks[i] = dma_pool_zalloc(cmd->pool, GFP_KERNEL, &msg->dma[i]);
		if (!msg->blocks[i])
			goto err_free;
	}
	for (i = 0; i < n; i++) {
		struct mlx5_cmd_prot_block *b = msg->blocks[i];
		int off = CMD_INLINE_LEN + i * MLX5_CMD_DATA_BLOCK_SIZE;

		if (data)
			memcpy(b->data, data + off,
			       min_t(int, len - off, MLX5_CMD_DATA_BLOCK_SIZE));
		b->next = cpu_to_be64(i + 1 < n ? msg->dma[i + 1] : 0);
		b->block_num = cpu_to_be32(i);
		b->token = token;
		block_sign(b);
	}
	return 0;

err_free:
	msg_free(cmd, msg);
	return -ENOMEM;
}

static int msg_copy_out(struct mlx5sp_cmd *cmd, struct mlx5sp_cmd_slot *slot,
			void *out, int outlen, u8 token)
{
	unsigned int i;

	memcpy(out, slot->lay->out, min_t(int, outlen, CMD_INLINE_LEN));
	for (i = 0; i < slot->out.nblocks; i++) {
		const struct mlx5_cmd_prot_block *b = slot->out.blocks[i];
		int off = CMD_INLINE_LEN + i * MLX5_CMD_DATA_BLOCK_SIZE;

		if (b->token != token)
			return -EPROTO;
		if (cmd->check_sig && !block_sig_ok(b))
			return -EBADMSG;
		memcpy(out + off, b->data,
		       min_t(int, outlen - off, MLX5_CMD_DATA_BLOCK_SIZE));
	}
	return 0;
}

static bool slot_hw_owned(struct mlx5sp_cmd_slot *slot)
{
	return READ_ONCE(slot->lay->status_own) & CMD_OWNER_HW;
}

static void slot_release(struct mlx5sp_cmd *cmd, struct mlx5sp_cmd_slot *slot)
{
	unsigned long flags;

	msg_free(cmd, &slot->in);
	msg_free(cmd, &slot->out);
	spin_lock_irqsave(&cmd->lock, flags);
	slot->state = MLX5SP_SLOT_FREE;
	__set_bit(slot->idx, &cmd->free_mask);
	spin_unlock_irqrestore(&cmd->lock, flags);
	up(&cmd->sem);
}

/* Frees timed-out slots that firmware has handed back (or a dead device). */
static void cmd_reap(struct mlx5sp_dev *dev)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	bool dead = mlx5sp_dev_dead(dev);
	unsigned int i;

	if (dead)	/* its mailboxes are freed below */
		mlx5sp_wait_nic_off(dev);

	for (i = 0; i < cmd->nslots; i++) {
		struct mlx5sp_cmd_slot *slot = &cmd->slots[i];

		if (READ_ONCE(slot->state) != MLX5SP_SLOT_TIMED_OUT)
			continue;
		if (!dead && slot_hw_owned(slot))
			continue;
		mlx5sp_warn(dev, "slot %u (%s) handed back after its timeout\n",
			    i, mlx5sp_cmd_opcode_str(slot->opcode));
		slot_release(cmd, slot);
	}
}

static struct mlx5sp_cmd_slot *slot_take(struct mlx5sp_cmd *cmd, u8 *token)
{
	struct mlx5sp_cmd_slot *slot;
	unsigned long flags;
	unsigned int idx;

	spin_lock_irqsave(&cmd->lock, flags);
	idx = find_first_bit(&cmd->free_mask, cmd->nslots);
	if (idx >= cmd->nslots) {
		spin_unlock_irqrestore(&cmd->lock, flags);
		return NULL;
	}
	__clear_bit(idx, &cmd->free_mask);
	slot = &cmd->slots[idx];
	slot->state = MLX5SP_SLOT_BUSY;
	if (++cmd->token == 0)
		cmd->token = 1;
	*token = cmd->token;
	spin_unlock_irqrestore(&cmd->lock, flags);
	return slot;
}

static void slot_submit(struct mlx5sp_dev *dev, struct mlx5sp_cmd_slot *slot,
			const void *in, int inlen, int outlen, u8 token)
{
	struct mlx5_cmd_layout *lay = slot->lay;

	memset(lay, 0, sizeof(*lay));
	lay->type = MLX5_PCI_CMD_XPORT;
	lay->inlen = cpu_to_be32(inlen);
	memcpy(lay->in, in, min_t(int, inlen, CMD_INLINE_LEN));
	if (slot->in.nblocks)
		lay->in_ptr = cpu_to_be64(slot->in.dma[0]);
	lay->outlen = cpu_to_be32(outlen);
	if (slot->out.nblocks)
		lay->out_ptr = cpu_to_be64(slot->out.dma[0]);
	lay->token = token;
	lay->status_own = CMD_OWNER_HW;
	lay->sig = ~mlx5sp_xor8(lay, sizeof(*lay));
	reinit_completion(&slot->done);
	slot->forced_err = 0;
	/* The layout and mailboxes must be visible before the doorbell. */
	wmb();
	mlx5sp_wr32(dev, MLX5SP_ISEG(cmd_dbell), BIT(slot->idx));
}

/* Waits for firmware to hand the slot back; returns 0, -ETIMEDOUT or forced_err. */
static int slot_wait(struct mlx5sp_dev *dev, struct mlx5sp_cmd_slot *slot,
		     bool events)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	unsigned long end = jiffies + msecs_to_jiffies(cmd->timeout_ms);
	bool woken = false;
	unsigned long flags;
	int err = 0;

	/*
	 * Ownership says when firmware is done; a completion only wakes us,
	 * and may come early (an event raised before ownership is handed
	 * back, a late event of the slot's previous command): after it, poll.
	 */
	while (slot_hw_owned(slot) && !READ_ONCE(slot->forced_err) &&
	       time_before(jiffies, end)) {
		if (events && !woken) {
			if (!wait_for_completion_timeout(&slot->done,
							 end - jiffies))
				break;
			woken = true;
			continue;
		}
		usleep_range(10, 50);
	}

	spin_lock_irqsave(&cmd->lock, flags);
	if (slot->forced_err) {
		err = slot->forced_err;
	} else if (slot_hw_owned(slot)) {
		slot->state = MLX5SP_SLOT_TIMED_OUT;
		err = -ETIMEDOUT;
	}
	spin_unlock_irqrestore(&cmd->lock, flags);
	/* Firmware's writes to the layout and mailboxes happened before it cleared ownership. */
	dma_rmb();
	return err;
}

/* One trace event per command that reached the device. */
static void cmd_trace(struct mlx5sp_dev *dev, const void *in, const void *out,
		      int err, u64 t0)
{
	u16 opcode = MLX5SP_CMD_OPCODE(in);

	trace_mlx5sp_cmd(dev->name, mlx5sp_cmd_opcode_str(opcode), opcode,
			 MLX5SP_CMD_OP_MOD(in), MLX5SP_CMD_STATUS(out),
			 MLX5SP_CMD_SYNDROME(out), err, ktime_get_ns() - t0);
}

static int cmd_result(struct mlx5sp_dev *dev, struct mlx5sp_cmd_slot *slot,
		      const void *in, void *out, int outlen, u8 token)
{
	u16 opcode = MLX5SP_CMD_OPCODE(in);
	u16 op_mod = MLX5SP_CMD_OP_MOD(in);
	u8 delivery = slot->lay->status_own >> 1;
	u32 syndrome;
	u8 status;
	int err;

	if (delivery) {
		mlx5sp_err(dev, "%s(0x%x) op_mod 0x%x: delivery status 0x%x\n",
			   mlx5sp_cmd_opcode_str(opcode), opcode, op_mod, delivery);
		return -EIO;
	}
	err = msg_copy_out(&dev->cmd, slot, out, outlen, token);
	if (err) {
		mlx5sp_err(dev, "%s(0x%x): bad output mailbox (%s)\n",
			   mlx5sp_cmd_opcode_str(opcode), opcode,
			   err == -EPROTO ? "token" : "signature");
		return -EIO;
	}
	status = MLX5SP_CMD_STATUS(out);
	if (!status)
		return 0;
	syndrome = MLX5SP_CMD_SYNDROME(out);
	/* A DEVX user's command (it has a uid) failing is the user's business. */
	if (MLX5SP_CMD_UID(in))
		mlx5sp_dbg(dev, "%s(0x%x) op_mod 0x%x uid %u failed, status %s(0x%x), syndrome 0x%x\n",
			   mlx5sp_cmd_opcode_str(opcode), opcode, op_mod,
			   MLX5SP_CMD_UID(in), status_str(status), status,
			   syndrome);
	else
		mlx5sp_err(dev, "%s(0x%x) op_mod 0x%x failed, status %s(0x%x), syndrome 0x%x\n",
			   mlx5sp_cmd_opcode_str(opcode), opcode, op_mod,
			   status_str(status), status, syndrome);
	return mlx5sp_cmd_status_to_err(status);
}

/**
 * mlx5sp_cmd_exec - execute a firmware command and wait for it
 * @dev: the device
 * @in: command input in PRM format (opcode in the first dword)
 * @inlen: bytes of @in
 * @out: output buffer
 * @outlen: bytes of @out
 *
 * Process context only. Returns 0, the errno of a failed PRM status (the
 * status and syndrome stay in @out), -ETIMEDOUT, or -ENOLINK on a dead
 * device.
 */
int mlx5sp_cmd_exec(struct mlx5sp_dev *dev, const void *in, int inlen,
		    void *out, int outlen)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	u64 t0 = ktime_get_ns();
	struct mlx5sp_cmd_slot *slot;
	u16 opcode;
	bool events;
	u8 token;
	int err;

	might_sleep();
	if (inlen < MLX5SP_CMD_HDR_LEN || inlen > MLX5SP_CMD_MAX_MSG ||
	    outlen < MLX5SP_CMD_HDR_LEN || outlen > MLX5SP_CMD_MAX_MSG)
		return -EINVAL;
	opcode = MLX5SP_CMD_OPCODE(in);
	if (mlx5sp_dev_dead(dev))
		return dead_dev_result(dev, opcode, out, outlen);

	if (down_timeout(&cmd->sem, msecs_to_jiffies(cmd->timeout_ms))) {
		mlx5sp_err(dev, "%s: no command slot came free\n",
			   mlx5sp_cmd_opcode_str(opcode));
		return -EBUSY;
	}
	cmd_reap(dev);
	slot = slot_take(cmd, &token);
	if (WARN_ON_ONCE(!slot)) {	/* the semaphore guarantees a free slot */
		up(&cmd->sem);
		return -EBUSY;
	}
	slot->opcode = opcode;
	err = msg_alloc(cmd, &slot->in, in, inlen, token);
	if (err)
		goto err_release;
	err = msg_alloc(cmd, &slot->out, NULL, outlen, token);
	if (err)
		goto err_release;

	spin_lock_irq(&cmd->lock);
	events = cmd->use_events;
	spin_unlock_irq(&cmd->lock);
	if (mlx5sp_dev_dead(dev)) {
		err = dead_dev_result(dev, opcode, out, outlen);
		goto err_release;
	}
	slot_submit(dev, slot, in, inlen, outlen, token);
	err = slot_wait(dev, slot, events);
	if (err == -ETIMEDOUT) {
		mlx5sp_err(dev, "%s(0x%x) timed out after %u ms (slot %u)\n",
			   mlx5sp_cmd_opcode_str(opcode), opcode,
			   cmd->timeout_ms, slot->idx);
		/* A silent firmware may be a dead one: look now, not at the next poll. */
		mlx5sp_health_check(dev);
		cmd_trace(dev, in, out, err, t0);
		return err;
	}
	if (err)	/* completed by the driver: the device died meanwhile */
		err = dead_dev_result(dev, opcode, out, outlen);
	else
		err = cmd_result(dev, slot, in, out, outlen, token);
	cmd_trace(dev, in, out, err, t0);
err_release:
	slot_release(cmd, slot);
	return err;
}
EXPORT_SYMBOL_GPL(mlx5sp_cmd_exec);

/*
 * A DESTROY command for object @n (@what, for the log). Firmware
 * answering "bad resource" holds no such object: nothing of it is left
 * to write to host memory, so for the host it is destroyed (a create
 * whose output gave another number than the object's leaves that; the
 * object itself stays the device's). Any other failure is returned.
 */
int mlx5sp_cmd_destroy(struct mlx5sp_dev *dev, const void *in, int inlen,
		       const char *what, u32 n)
{
	/* every DESTROY answers the bare header, as DESTROY_CQ does */
	u32 out[MLX5_ST_SZ_DW(destroy_cq_out)] = {};
	int err;

	err = mlx5sp_cmd_exec(dev, in, inlen, out, sizeof(out));
	if (err && MLX5SP_CMD_STATUS(out) == MLX5_CMD_STAT_BAD_RES_ERR &&
	    !mlx5sp_dev_dead(dev)) {
		mlx5sp_err(dev, "firmware has no %s 0x%x to destroy: taken as gone\n",
			   what, n);
		return 0;
	}
	return err;
}

struct cmd_async {
	struct work_struct work;
	struct mlx5sp_dev *dev;
	const void *in;
	void *out;
	int inlen;
	int outlen;
	mlx5sp_cmd_cb_t cb;
	void *ctx;
};

static void cmd_async_work(struct work_struct *work)
{
	struct cmd_async *a = container_of(work, struct cmd_async, work);

	a->cb(mlx5sp_cmd_exec(a->dev, a->in, a->inlen, a->out, a->outlen), a->ctx);
	kfree(a);
}

/**
 * mlx5sp_cmd_exec_cb - execute a command asynchronously
 * @dev: the device
 * @in: command input
 * @inlen: bytes of @in
 * @out: output buffer
 * @outlen: bytes of @out
 * @cb: called with the result
 * @ctx: passed to @cb
 *
 * @in and @out must stay valid until @cb runs; @cb gets what
 * mlx5sp_cmd_exec() would have returned, in process context.
 */
int mlx5sp_cmd_exec_cb(struct mlx5sp_dev *dev, const void *in, int inlen,
		       void *out, int outlen, mlx5sp_cmd_cb_t cb, void *ctx)
{
	struct cmd_async *a;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	*a = (struct cmd_async){ .dev = dev, .in = in, .inlen = inlen,
				 .out = out, .outlen = outlen, .cb = cb, .ctx = ctx };
	INIT_WORK(&a->work, cmd_async_work);
	queue_work(dev->cmd.wq, &a->work);
	return 0;
}
EXPORT_SYMBOL_GPL(mlx5sp_cmd_exec_cb);

/* Called from the CMD EQE handler (hard IRQ): @vector has a bit per slot. */
void mlx5sp_cmd_comp_handler(struct mlx5sp_dev *dev, u32 vector)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	unsigned long flags, bits = vector;
	unsigned int i;

	spin_lock_irqsave(&cmd->lock, flags);
	for_each_set_bit(i, &bits, cmd->nslots)
		if (cmd->slots[i].state == MLX5SP_SLOT_BUSY)
			complete(&cmd->slots[i].done);
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/* The device is dead: wake every waiter; firmware will not answer. */
void mlx5sp_cmd_flush(struct mlx5sp_dev *dev)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&cmd->lock, flags);
	for (i = 0; i < cmd->nslots; i++) {
		if (cmd->slots[i].state != MLX5SP_SLOT_BUSY)
			continue;
		cmd->slots[i].forced_err = -ENOLINK;
		complete(&cmd->slots[i].done);
	}
	spin_unlock_irqrestore(&cmd->lock, flags);
}

/* The one switch between completion modes (the CMD EQ exists or not). */
static void cmd_set_events(struct mlx5sp_dev *dev, bool events)
{
	spin_lock_irq(&dev->cmd.lock);
	dev->cmd.use_events = events;
	spin_unlock_irq(&dev->cmd.lock);
}

void mlx5sp_cmd_use_events(struct mlx5sp_dev *dev)
{
	cmd_set_events(dev, true);
}

void mlx5sp_cmd_use_polling(struct mlx5sp_dev *dev)
{
	cmd_set_events(dev, false);
}

/*
 * As long as mlx5_core waits: a card's firmware may take a minute or two
 * after a reset before it clears "initializing"; said every 20 s.
 */
#define FW_INIT_WAIT_MS		120000
#define FW_INIT_WARN_MS		20000

/*
 * Firmware initializing: wait for it, but not for a function that no
 * longer answers (all ones: surprise removal, a dead link, a bus error).
 */
static int wait_fw_ready(struct mlx5sp_dev *dev, const char *what)
{
	unsigned long start = jiffies, warned = jiffies;
	unsigned long end = start + msecs_to_jiffies(FW_INIT_WAIT_MS);
	u32 v;

	for (;;) {
		v = mlx5sp_rd32(dev, MLX5SP_ISEG(initializing));
		if (v == U32_MAX) {
			mlx5sp_err(dev, "%s: the device does not answer (all ones)\n",
				   what);
			return -ENODEV;
		}
		if (!(v >> 31))
			return 0;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		if (time_after(jiffies, warned + msecs_to_jiffies(FW_INIT_WARN_MS))) {
			warned = jiffies;
			mlx5sp_warn(dev, "%s: firmware still initializing after %u s\n",
				    what, jiffies_to_msecs(jiffies - start) / 1000);
		}
		usleep_range(5000, 10000);
	}
}

int mlx5sp_cmd_init(struct mlx5sp_dev *dev)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	u32 rev, addr_l;
	unsigned int i;
	int err;

	err = wait_fw_ready(dev, "pre-initializing");
	if (err) {
		mlx5sp_err(dev, "firmware did not finish initializing\n");
		return err;
	}
	rev = mlx5sp_rd32(dev, MLX5SP_ISEG(cmdif_rev_fw_sub)) >> 16;
	if (rev != MLX5SP_CMD_IF_REV) {
		mlx5sp_err(dev, "command interface revision %u, driver supports %u\n",
			   rev, MLX5SP_CMD_IF_REV);
		return -EOPNOTSUPP;
	}
	addr_l = mlx5sp_rd32(dev, MLX5SP_ISEG(cmdq_addr_l_sz)) & 0xff;
	cmd->log_sz = addr_l >> 4 & 0xf;
	cmd->log_stride = addr_l & 0xf;
	if (cmd->log_stride < ilog2(sizeof(struct mlx5_cmd_layout)) ||
	    (1U << (cmd->log_sz + cmd->log_stride)) > MLX5_ADAPTER_PAGE_SIZE ||
	    (1U << cmd->log_sz) > MLX5SP_MAX_CMD_SLOTS) {
		mlx5sp_err(dev, "unsupported command queue: %u slots of %u bytes\n",
			   1U << cmd->log_sz, 1U << cmd->log_stride);
		return -EOPNOTSUPP;
	}
	cmd->nslots = 1U << cmd->log_sz;
	cmd->timeout_ms = cmd_timeout_ms;
	spin_lock_init(&cmd->lock);
	sema_init(&cmd->sem, cmd->nslots);
	cmd->free_mask = GENMASK(cmd->nslots - 1, 0);

	cmd->cmdq = dma_alloc_coherent(dev->dma_dev, MLX5_ADAPTER_PAGE_SIZE,
				       &cmd->cmdq_dma, GFP_KERNEL);
	if (!cmd->cmdq)
		return -ENOMEM;
	if (cmd->cmdq_dma & (MLX5_ADAPTER_PAGE_SIZE - 1)) {
		err = -ENOMEM;
		goto err_free_cmdq;
	}
	for (i = 0; i < cmd->nslots; i++) {
		cmd->slots[i].idx = i;
		cmd->slots[i].lay = (void *)cmd->cmdq + (i << cmd->log_stride);
		init_completion(&cmd->slots[i].done);
	}

	cmd->pool = dma_pool_create("mlx5sp_cmd", dev->dma_dev,
				    sizeof(struct mlx5_cmd_prot_block),
				    MLX5SP_CMD_MBOX_ALIGN, 0);
	if (!cmd->pool) {
		err = -ENOMEM;
		goto err_free_cmdq;
	}
	cmd->wq = alloc_workqueue("mlx5sp_cmd_%s", WQ_UNBOUND | WQ_MEM_RECLAIM,
				  0, dev->name);
	if (!cmd->wq) {
		err = -ENOMEM;
		goto err_destroy_pool;
	}

	mlx5sp_wr32(dev, MLX5SP_ISEG(cmdq_addr_h), upper_32_bits(cmd->cmdq_dma));
	mlx5sp_wr32(dev, MLX5SP_ISEG(cmdq_addr_l_sz), lower_32_bits(cmd->cmdq_dma));
	/* Firmware picks the queue up before it is ready for commands. */
	err = wait_fw_ready(dev, "initializing");
	if (err) {
		mlx5sp_err(dev, "firmware did not accept the command queue\n");
		goto err_destroy_wq;
	}
	return 0;

err_destroy_wq:
	destroy_workqueue(cmd->wq);
err_destroy_pool:
	dma_pool_destroy(cmd->pool);
err_free_cmdq:
	dma_free_coherent(dev->dma_dev, MLX5_ADAPTER_PAGE_SIZE, cmd->cmdq,
			  cmd->cmdq_dma);
	return err;
}

void mlx5sp_cmd_cleanup(struct mlx5sp_dev *dev)
{
	struct mlx5sp_cmd *cmd = &dev->cmd;
	unsigned int i;

	destroy_workqueue(cmd->wq);
	cmd_reap(dev);
	for (i = 0; i < cmd->nslots; i++) {
		if (cmd->slots[i].state != MLX5SP_SLOT_TIMED_OUT)
			continue;
		/*
		 * Firmware never returned this slot; the device is being
		 * removed (the model is stopped first), so nothing writes it.
		 */
		mlx5sp_warn(dev, "slot %u (%s) still owned by firmware at removal\n",
			    i, mlx5sp_cmd_opcode_str(cmd->slots[i].opcode));
		msg_free(cmd, &cmd->slots[i].in);
		msg_free(cmd, &cmd->slots[i].out);
	}
	dma_pool_destroy(cmd->pool);
	dma_free_coherent(dev->dma_dev, MLX5_ADAPTER_PAGE_SIZE, cmd->cmdq,
			  cmd->cmdq_dma);
}
