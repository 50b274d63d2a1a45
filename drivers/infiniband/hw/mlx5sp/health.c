// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Health: firmware advances a counter in the init segment while it lives and
 * writes a syndrome when it dies. A poller watches both; a fatal finding
 * moves the device to the error state (here too), which turns the NIC
 * interface off and wakes every command waiter.
 */
#include <linux/delay.h>
#include <linux/module.h>

#include "mlx5sp.h"

static unsigned int health_poll_ms = 500;
module_param(health_poll_ms, uint, 0644);
MODULE_PARM_DESC(health_poll_ms, "Health poll interval in milliseconds (default 500)");

/* Polls in a row without a counter change before firmware counts as stuck. */
#define HEALTH_MAX_MISSES	6

/* How long a device may take to stop once told (a grace period's worth). */
#define NIC_OFF_WAIT_MS		2000

/*
 * Turns the device's NIC interface off, as mlx5_core does to a function
 * it gives up on: the device stops all work, its DMA included. Any
 * context: a register write.
 */
static void nic_disable(struct mlx5sp_dev *dev)
{
	u32 v = mlx5sp_rd32(dev, MLX5SP_ISEG(cmdq_addr_l_sz));

	mlx5sp_wr32(dev, MLX5SP_ISEG(cmdq_addr_l_sz),
		    (v & ~0xfffU) |
		    MLX5SP_NIC_IFC_DISABLED << MLX5_NIC_IFC_OFFSET);
}

/**
 * mlx5sp_wait_nic_off - wait until a device in the error state is stopped
 * @dev: the device, in the error state
 *
 * A device the driver gave up on may still be alive (a stuck EQ, not a
 * dead firmware): what it was given is freed only once its interface
 * reads disabled, so it cannot write into memory the host reuses. Waits
 * once, for NIC_OFF_WAIT_MS at most. Process context.
 */
void mlx5sp_wait_nic_off(struct mlx5sp_dev *dev)
{
	unsigned long end = jiffies + msecs_to_jiffies(NIC_OFF_WAIT_MS);
	u32 v;

	might_sleep();
	if (READ_ONCE(dev->nic_off))
		return;
	for (;;) {
		v = mlx5sp_rd32(dev, MLX5SP_ISEG(cmdq_addr_l_sz));
		if (((v >> MLX5_NIC_IFC_OFFSET) & 7) == MLX5SP_NIC_IFC_DISABLED)
			break;
		if (time_after(jiffies, end)) {
			mlx5sp_err(dev, "NIC interface still on %u ms after it was turned off (0x%x)\n",
				   NIC_OFF_WAIT_MS, v);
			break;
		}
		usleep_range(1000, 2000);
	}
	WRITE_ONCE(dev->nic_off, true);
}

/**
 * mlx5sp_enter_error_state - firmware is gone; stop talking to it
 * @dev: the device
 * @why: what was found, for the log
 *
 * Idempotent, any context. Waiters are woken with -ENOLINK; later commands
 * that release resources succeed without reaching the device. The
 * listener (the RDMA device) hears it once.
 */
void mlx5sp_enter_error_state(struct mlx5sp_dev *dev, const char *why)
{
	unsigned long flags;
	bool was_up;

	spin_lock_irqsave(&dev->state_lock, flags);
	was_up = dev->state != MLX5SP_STATE_ERROR;
	WRITE_ONCE(dev->state, MLX5SP_STATE_ERROR);
	spin_unlock_irqrestore(&dev->state_lock, flags);
	if (!was_up)
		return;
	mlx5sp_err(dev, "device in error state: %s\n", why);
	nic_disable(dev);
	mlx5sp_cmd_flush(dev);
	/* the RDMA device tells its users and completes their work (fatal.c) */
	mlx5sp_notify_fatal(dev);
}

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
	/*
	 * A function gone from the bus (surprise removal, a dead link, AER)
	 * reads all ones, its firmware revision too: no syndrome to trust.
	 */
	if ((dev->bus->offline && dev->bus->offline(dev)) ||
	    mlx5sp_rd32(dev, MLX5SP_ISEG(fw_rev)) == U32_MAX) {
		mlx5sp_enter_error_state(dev, "the device does not answer");
		return true;
	}
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
