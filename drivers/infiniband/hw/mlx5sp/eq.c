// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Event queues: EQ 0 carries command completions on vector 0, the async EQ
 * carries page requests and device events on vector 1. An EQ's handler is
 * the only one touching its consumer index.
 */
#include <linux/dma-mapping.h>

#include "mlx5sp.h"

#define CMD_EQ_LOG_SIZE		6	/* one CMD EQE per slot at most, twice over */
#define ASYNC_EQ_LOG_SIZE	10	/* page-request storms coalesce here */
#define EQE_SIZE		sizeof(struct mlx5_eqe)
#define EQE_OWNER_INIT		0x1

static struct mlx5_eqe *next_eqe(struct mlx5sp_eq *eq)
{
	struct mlx5_eqe *eqe = eq->buf + (eq->cons_index & (eq->nent - 1)) * EQE_SIZE;

	/* Valid when its owner bit matches the pass we are on. */
	if ((eqe->owner & 1) ^ !!(eq->cons_index & eq->nent))
		return NULL;
	/* Read the body only after the owner bit said it is ours. */
	dma_rmb();
	return eqe;
}

static void eq_update_ci(struct mlx5sp_eq *eq, bool arm)
{
	struct mlx5sp_dev *dev = eq->dev;
	u32 off = dev->uar_index * MLX5_ADAPTER_PAGE_SIZE +
		  (arm ? MLX5SP_UAR_EQ_DB_ARM : MLX5SP_UAR_EQ_DB_NOARM);

	mlx5sp_wr32(dev, off, (eq->eqn << 24) | (eq->cons_index & 0xffffff));
}

static void handle_eqe(struct mlx5sp_dev *dev, struct mlx5_eqe *eqe)
{
	switch (eqe->type) {
	case MLX5_EVENT_TYPE_CMD:
		mlx5sp_cmd_comp_handler(dev, be32_to_cpu(eqe->data.cmd.vector));
		break;
	case MLX5_EVENT_TYPE_PAGE_REQUEST:
		mlx5sp_pages_request(dev, (s32)be32_to_cpu(eqe->data.req_pages.num_pages));
		break;
	case MLX5_EVENT_TYPE_PORT_CHANGE:
		mlx5sp_info(dev, "port %u changed state (subtype 0x%x)\n",
			    eqe->data.port.port >> 4, eqe->sub_type);
		break;
	default:
		dev_warn_ratelimited(dev->dma_dev, "%s: unexpected event type 0x%x\n",
				     dev->name, eqe->type);
		break;
	}
}

static irqreturn_t eq_irq(int irq, void *data)
{
	struct mlx5sp_eq *eq = data;
	struct mlx5_eqe *eqe;
	unsigned int n = 0;

	while ((eqe = next_eqe(eq))) {
		handle_eqe(eq->dev, eqe);
		eq->cons_index++;
		eq->eqes++;
		/* Hand entries back in batches so long bursts cannot overrun. */
		if (++n % (eq->nent / 2) == 0)
			eq_update_ci(eq, false);
	}
	eq_update_ci(eq, true);
	return n ? IRQ_HANDLED : IRQ_NONE;
}

static int eq_create(struct mlx5sp_dev *dev, struct mlx5sp_eq *eq,
		     const char *name, u8 log_size, u64 mask, u16 vector)
{
	u32 out[MLX5_ST_SZ_DW(create_eq_out)] = {};
	unsigned int npages, i;
	__be64 *pas;
	void *eqc;
	int inlen;
	u32 *in;
	int err;

	eq->dev = dev;
	eq->name = name;
	eq->nent = 1U << log_size;
	eq->buf_size = eq->nent * EQE_SIZE;
	eq->vector = vector;
	eq->mask = mask;
	eq->cons_index = 0;
	npages = DIV_ROUND_UP(eq->buf_size, MLX5_ADAPTER_PAGE_SIZE);
	eq->buf = dma_alloc_coherent(dev->dma_dev, eq->buf_size, &eq->buf_dma,
				     GFP_KERNEL);
	if (!eq->buf)
		return -ENOMEM;
	for (i = 0; i < eq->nent; i++)
		((struct mlx5_eqe *)(eq->buf + i * EQE_SIZE))->owner = EQE_OWNER_INIT;

	inlen = MLX5_ST_SZ_BYTES(create_eq_in) + npages * sizeof(u64);
	in = kvzalloc(inlen, GFP_KERNEL);
	if (!in) {
		err = -ENOMEM;
		goto err_free_buf;
	}
	pas = (__be64 *)MLX5_ADDR_OF(create_eq_in, in, pas);
	for (i = 0; i < npages; i++)
		pas[i] = cpu_to_be64(eq->buf_dma + i * MLX5_ADAPTER_PAGE_SIZE);
	MLX5_SET(create_eq_in, in, opcode, MLX5_CMD_OP_CREATE_EQ);
	*(__be64 *)MLX5_ADDR_OF(create_eq_in, in, event_bitmask) = cpu_to_be64(mask);
	eqc = MLX5_ADDR_OF(create_eq_in, in, eq_context_entry);
	MLX5_SET(eqc, eqc, log_eq_size, log_size);
	MLX5_SET(eqc, eqc, uar_page, dev->uar_index);
	MLX5_SET(eqc, eqc, intr, vector);
	MLX5_SET(eqc, eqc, log_page_size, 0);	/* 4 KiB pages */

	err = mlx5sp_cmd_exec(dev, in, inlen, out, sizeof(out));
	kvfree(in);
	if (err)
		goto err_free_buf;
	eq->eqn = MLX5_GET(create_eq_out, out, eq_number);

	err = dev->bus->request_irq(dev, vector, eq_irq, eq);
	if (err)
		goto err_destroy_eq;
	eq->irq_requested = true;
	eq_update_ci(eq, true);
	return 0;

err_destroy_eq:
	{
		u32 din[MLX5_ST_SZ_DW(destroy_eq_in)] = {};

		MLX5_SET(destroy_eq_in, din, opcode, MLX5_CMD_OP_DESTROY_EQ);
		MLX5_SET(destroy_eq_in, din, eq_number, eq->eqn);
		mlx5sp_cmd_exec_in(dev, destroy_eq, din);
	}
err_free_buf:
	dma_free_coherent(dev->dma_dev, eq->buf_size, eq->buf, eq->buf_dma);
	eq->buf = NULL;
	return err;
}

static void eq_destroy(struct mlx5sp_dev *dev, struct mlx5sp_eq *eq)
{
	u32 in[MLX5_ST_SZ_DW(destroy_eq_in)] = {};
	int err;

	if (!eq->buf)
		return;
	MLX5_SET(destroy_eq_in, in, opcode, MLX5_CMD_OP_DESTROY_EQ);
	MLX5_SET(destroy_eq_in, in, eq_number, eq->eqn);
	err = mlx5sp_cmd_exec_in(dev, destroy_eq, in);
	if (err)
		mlx5sp_err(dev, "destroying %s EQ %u failed: %d\n", eq->name,
			   eq->eqn, err);
	/* Firmware no longer writes the EQ; the handler may still be running. */
	if (eq->irq_requested)
		dev->bus->free_irq(dev, eq->vector, eq);
	eq->irq_requested = false;
	dma_free_coherent(dev->dma_dev, eq->buf_size, eq->buf, eq->buf_dma);
	eq->buf = NULL;
}

static int alloc_uar(struct mlx5sp_dev *dev)
{
	u32 out[MLX5_ST_SZ_DW(alloc_uar_out)] = {};
	u32 in[MLX5_ST_SZ_DW(alloc_uar_in)] = {};
	int err;

	MLX5_SET(alloc_uar_in, in, opcode, MLX5_CMD_OP_ALLOC_UAR);
	err = mlx5sp_cmd_exec_inout(dev, alloc_uar, in, out);
	if (err)
		return err;
	dev->uar_index = MLX5_GET(alloc_uar_out, out, uar);
	if ((u64)(dev->uar_index + 1) * MLX5_ADAPTER_PAGE_SIZE > U32_MAX) {
		mlx5sp_err(dev, "firmware gave UAR %u outside the BAR\n",
			   dev->uar_index);
		return -EIO;
	}
	return 0;
}

static void dealloc_uar(struct mlx5sp_dev *dev)
{
	u32 in[MLX5_ST_SZ_DW(dealloc_uar_in)] = {};

	MLX5_SET(dealloc_uar_in, in, opcode, MLX5_CMD_OP_DEALLOC_UAR);
	MLX5_SET(dealloc_uar_in, in, uar, dev->uar_index);
	mlx5sp_cmd_exec_in(dev, dealloc_uar, in);
}

#define ASYNC_EVENTS (BIT_ULL(MLX5_EVENT_TYPE_PAGE_REQUEST) | \
		      BIT_ULL(MLX5_EVENT_TYPE_PORT_CHANGE))

int mlx5sp_eqs_create(struct mlx5sp_dev *dev)
{
	int err;

	err = alloc_uar(dev);
	if (err)
		return err;
	err = eq_create(dev, &dev->cmd_eq, "cmd", CMD_EQ_LOG_SIZE,
			BIT_ULL(MLX5_EVENT_TYPE_CMD), 0);
	if (err)
		goto err_dealloc_uar;
	mlx5sp_cmd_use_events(dev);
	err = eq_create(dev, &dev->async_eq, "async", ASYNC_EQ_LOG_SIZE,
			ASYNC_EVENTS, 1);
	if (err)
		goto err_destroy_cmd_eq;
	return 0;

err_destroy_cmd_eq:
	mlx5sp_cmd_use_polling(dev);
	eq_destroy(dev, &dev->cmd_eq);
err_dealloc_uar:
	dealloc_uar(dev);
	return err;
}

void mlx5sp_eqs_destroy(struct mlx5sp_dev *dev)
{
	eq_destroy(dev, &dev->async_eq);
	mlx5sp_cmd_use_polling(dev);
	eq_destroy(dev, &dev->cmd_eq);
	dealloc_uar(dev);
}
