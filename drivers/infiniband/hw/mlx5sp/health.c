// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Health: firmware advances a counter in the init segment while it lives and
 * writes a syndrome when it dies. A poller watches both; a fatal finding
 * moves the device to the error state, which wakes every command waiter.
 */
#include <linux/module.h>

#include "mlx5sp.h"

static unsigned int health_poll_ms = 500;
module_param(health_poll_ms, uint, 0644);
MODULE_PARM_DESC(health_poll_ms, "Health poll interval in milliseconds (default 500)");

/* Polls in a row without a counter change before firmware counts as stuck. */
#define HEALTH_MAX_MISSES	6

#define SYND(name) MLX5_INITIAL_SEG_HEALTH_SYNDROME_##name
static const char *health_synd_str(u8 synd)
{
	switch (synd) {
	case SYND(FW_INTERNAL_ERR): return "firmware internal error";
	case SYND(DEAD_IRISC): return "irisc not responding";
	case SYND(HW_FATAL_ERR): return "unrecoverable hardware error";
	case SYND(FW_CRC_ERR): return "firmware CRC error";
	case SYND(ICM_FETCH_PCI_ERR): return "ICM fetch PCI error";
	case SYND(ICM_PAGE_ERR): return "ICM page error";
	case SYND(ASYNCHRONOUS_EQ_BUF_OVERRUN): return "async EQ buffer overrun";
	case SYND(EQ_IN_ERR): return "EQ error";
	case SYND(EQ_INV): return "invalid EQ referenced";
	case SYND(FFSER_ERR): return "FFSER error";
	case SYND(HIGH_TEMP_ERR): return "high temperature";
	case SYND(ICM_PCI_POISONED_ERR): return "ICM fetch PCI data poisoned";
	default: return "unknown fatal error";
	}
}

static void health_report(struct mlx5sp_dev *dev, u8 synd)
{
	u32 base = MLX5SP_ISEG(health);
	int i;

	mlx5sp_err(dev, "fatal firmware error: syndrome 0x%x (%s)\n", synd,
		   health_synd_str(synd));
	for (i = 0; i < ARRAY_SIZE(((struct health_buffer *)0)->assert_var); i++)
		mlx5sp_err(dev, "assert_var[%d] 0x%08x\n", i,
			   mlx5sp_rd32(dev, base + offsetof(struct health_buffer, assert_var[i])));
	mlx5sp_err(dev, "assert_exit_ptr 0x%08x assert_callra 0x%08x fw_ver 0x%08x hw_id 0x%08x\n",
		   mlx5sp_rd32(dev, base + offsetof(struct health_buffer, assert_exit_ptr)),
		   mlx5sp_rd32(dev, base + offsetof(struct health_buffer, assert_callra)),
		   mlx5sp_rd32(dev, base + offsetof(struct health_buffer, fw_ver)),
		   mlx5sp_rd32(dev, base + offsetof(struct health_buffer, hw_id)));
}

static u8 health_syndrome(struct mlx5sp_dev *dev)
{
	/* irisc_index, synd and ext_synd share the last dword. */
	u32 w = mlx5sp_rd32(dev, MLX5SP_ISEG(health) +
			    offsetof(struct health_buffer, irisc_index));

	return (w >> 16) & 0xff;
}

/**
 * mlx5sp_health_check - look at firmware health once
 * @dev: the device
 *
 * Returns true if the device is (now) in the error state.
 */
bool mlx5sp_health_check(struct mlx5sp_dev *dev)
{
	u8 synd;

	if (mlx5sp_dev_dead(dev))
		return true;
	synd = health_syndrome(dev);
	if (synd) {
		health_report(dev, synd);
		mlx5sp_enter_error_state(dev, "health syndrome");
		return true;
	}
	return false;
}

static void health_work(struct work_struct *work)
{
	struct mlx5sp_dev *dev = container_of(to_delayed_work(work),
					      struct mlx5sp_dev, health.work);
	struct mlx5sp_health *h = &dev->health;
	u32 counter;

	if (mlx5sp_health_check(dev))
		return;
	counter = mlx5sp_rd32(dev, MLX5SP_ISEG(health_counter));
	if (counter == h->last_counter) {
		if (++h->misses >= HEALTH_MAX_MISSES) {
			mlx5sp_err(dev, "health counter stuck at 0x%x for %u polls\n",
				   counter, h->misses);
			mlx5sp_enter_error_state(dev, "health counter stuck");
			return;
		}
	} else {
		h->misses = 0;
	}
	h->last_counter = counter;
	schedule_delayed_work(&h->work, msecs_to_jiffies(health_poll_ms));
}

void mlx5sp_health_start(struct mlx5sp_dev *dev)
{
	struct mlx5sp_health *h = &dev->health;

	h->misses = 0;
	h->last_counter = mlx5sp_rd32(dev, MLX5SP_ISEG(health_counter));
	INIT_DELAYED_WORK(&h->work, health_work);
	schedule_delayed_work(&h->work, msecs_to_jiffies(health_poll_ms));
}

void mlx5sp_health_stop(struct mlx5sp_dev *dev)
{
	cancel_delayed_work_sync(&dev->health.work);
}
