/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Private state of a software ConnectX device.
 *
 * Lock order: sim_list_lock -> fw_lock -> eq_lock -> fault_lock/stats_lock.
 * eq_lock, reg_lock, fault_lock and stats_lock are taken with interrupts
 * off: BAR writes arrive in any context.
 */
#ifndef MLX5SP_SIM_PRIV_H
#define MLX5SP_SIM_PRIV_H

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "mlx5sp_model.h"
#include "mlx5sp_sim.h"
#include "syndromes.h"

#define SIM_DRV_NAME		"mlx5sp_sim"

#define SIM_VENDOR_ID		0x15b3	/* Mellanox */
#define SIM_DEVICE_ID		0x101b	/* ConnectX-6 */
#define SIM_BAR_SIZE		SZ_64M
#define SIM_FW_MAJOR		22
#define SIM_FW_MINOR		39
#define SIM_FW_SUBMINOR		1002
#define SIM_CMDIF_REV		5
#define SIM_LOG_CMDQ_STRIDE	6	/* 64-byte command entries */

#define SIM_UAR_FIRST		16	/* BAR pages below hold the init segment */
#define SIM_MAX_SLOTS		32	/* bits in cmd_dbell */
#define SIM_LOG_MAX_EQ		6
#define SIM_MAX_EQS		BIT(SIM_LOG_MAX_EQ)
#define SIM_LOG_MAX_EQ_SZ	22
#define SIM_LOG_MAX_PD		24
#define SIM_MAX_MSG_LEN		SZ_1M	/* inlen / outlen limit */
#define SIM_MAX_FW_PAGES	BIT(18)		/* 1 GiB of firmware pages */
#define SIM_HEALTH_PERIOD_MS	50
#define SIM_SCRIBBLE_PER_CMD	8
#define SIM_SCRIBBLE_BYTE	0x5b

enum sim_state {
	SIM_STATE_RESET,	/* no command queue yet */
	SIM_STATE_CMDQ_READY,	/* command queue address set */
	SIM_STATE_ENABLED,	/* ENABLE_HCA done */
	SIM_STATE_INITIALIZED,	/* INIT_HCA done */
};

#define SIM_ST(s)		BIT(SIM_STATE_##s)

/* Capability types the model answers, index into sim_caps. */
enum sim_cap_idx {
	SIM_CAP_GENERAL,
	SIM_CAP_ROCE,
	SIM_CAP_ATOMIC,
	SIM_NR_CAPS,
};

#define SIM_CAP_DW		MLX5_UN_SZ_DW(hca_cap_union)

struct sim_caps {
	u32 max[SIM_NR_CAPS][SIM_CAP_DW];	/* PRM layout, big-endian */
	u32 cur[SIM_NR_CAPS][SIM_CAP_DW];
};

#define SIM_CAP_GEN(sim, fld) \
	MLX5_GET(cmd_hca_cap, (sim)->caps->cur[SIM_CAP_GENERAL], fld)

/* A command slot; every field is protected by the device's fw_lock. */
struct sim_slot {
	struct mlx5sp_sim *sim;
	struct delayed_work dwork;	/* runs a delayed command */
	u8 idx;
	bool busy;			/* delayed command pending */
	/* what was rung, to recognise it when the delay ends */
	u8 token;
	u16 opcode;
	u64 in_ptr;
	u64 out_ptr;
};

struct sim_eq {
	u8 eqn;
	u8 log_size;
	u8 log_page_size;
	u16 intr;
	u32 uar;
	u32 nent;
	u32 npas;
	u64 *pas;			/* physical addresses of the buffer */
	u64 mask[4];			/* event_bitmask: bit T = event type T */
	/* protected by eq_lock */
	u32 ci;				/* consumer counter (free running) */
	u32 pi;				/* producer counter (free running) */
	bool armed;
};

struct sim_fault {
	u16 fail_opcode;
	u8 fail_status;
	u32 fail_syndrome;
	u32 fail_count;
	u16 delay_opcode;
	u32 delay_ms;
	u32 delay_count;
};

struct mlx5sp_sim {
	struct mlx5sp_model_dev mdev;
	char name[MLX5SP_SIM_NAME_MAX + 1];
	struct mlx5sp_sim_params params;
	struct list_head node;		/* in sim_list, under sim_list_lock */
	struct platform_device *pdev;
	int pdev_id;
	bool attached;			/* set by attach, read by destroy */
	bool from_debugfs;		/* created by "add": "del" may destroy */
	struct dentry *dbg;

	/* BAR image of the init segment (big-endian words) */
	struct mlx5_init_seg *iseg;
	ktime_t boot_done;		/* "initializing" clears at this time */
	spinlock_t reg_lock;		/* protects cmdq_addr_h, cmdq_base */
	u32 cmdq_addr_h;
	u64 cmdq_base;			/* 0 until the driver sets it */

	atomic_long_t db_pending;	/* slots rung, not yet picked up */
	atomic_t stopping;		/* destroy in progress: queue no work */
	atomic_t fatal;			/* health syndrome set */
	atomic_t health_stopped;	/* counter frozen by a test */
	struct workqueue_struct *wq;
	struct work_struct cmd_work;
	struct delayed_work health_work;

	/* fw_lock: state, issi, caps, UAR/PD/EQ allocation, pages, slots */
	struct mutex fw_lock;		/* protects the firmware state below */
	enum sim_state state;
	u16 issi;
	u8 log_cmdq_size;
	struct sim_caps *caps;
	unsigned long *uar_map;		/* bit = UAR index - SIM_UAR_FIRST;
					 * changed under fw_lock, tested
					 * locklessly by BAR writes
					 */
	u32 nr_uars;
	struct xarray pds;		/* allocated PD numbers */
	struct sim_slot slots[SIM_MAX_SLOTS];
	struct xarray pages;		/* held firmware pages, by PFN */
	u64 npages;			/* entries in pages */
	s64 page_delta;			/* regular pages wanted (+) or not */
	unsigned long scribble_next;	/* PFN where scribbling resumes */

	spinlock_t eq_lock;		/* protects eqs[], each EQ's ci/pi/armed */
	struct sim_eq *eqs[SIM_MAX_EQS];

	spinlock_t fault_lock;		/* protects fault */
	struct sim_fault fault;

	spinlock_t stats_lock;		/* protects stats */
	struct mlx5sp_sim_stats stats;
};

/* One command in execution; handlers fill out and set status/syndrome. */
struct sim_cmd {
	struct mlx5sp_sim *sim;
	const void *in;
	u32 inlen;
	void *out;
	u32 outlen;
	u16 opcode;
	u16 op_mod;
	u8 status;
	u32 syndrome;
};

static inline struct mlx5sp_sim *to_sim(struct mlx5sp_model_dev *mdev)
{
	return container_of(mdev, struct mlx5sp_sim, mdev);
}

static inline int sim_fail(struct sim_cmd *c, u8 status, u32 syndrome)
{
	c->status = status;
	c->syndrome = syndrome;
	return -EINVAL;
}

static inline bool sim_is_fatal(struct mlx5sp_sim *sim)
{
	return atomic_read(&sim->fatal);
}

#define sim_stat_add(sim, field, n) do {				\
	struct mlx5sp_sim *__s = (sim);					\
	unsigned long __flags;						\
									\
	spin_lock_irqsave(&__s->stats_lock, __flags);			\
	__s->stats.field += (n);					\
	spin_unlock_irqrestore(&__s->stats_lock, __flags);		\
} while (0)

#define sim_stat_inc(sim, field) sim_stat_add(sim, field, 1)

#define sim_err(sim, fmt, ...) \
	pr_err_ratelimited("%s: " fmt, (sim)->name, ##__VA_ARGS__)
#define sim_dbg(sim, fmt, ...) \
	pr_debug("%s: " fmt, (sim)->name, ##__VA_ARGS__)

/* main.c */
void *sim_dma_ptr(struct mlx5sp_sim *sim, u64 addr, size_t len, size_t align);

/* bar.c */
u32 sim_read32(struct mlx5sp_model_dev *mdev, u32 offset);
void sim_write32(struct mlx5sp_model_dev *mdev, u32 offset, u32 val);
void sim_bar_init(struct mlx5sp_sim *sim);
void sim_health_work(struct work_struct *work);
void sim_health_set_fatal(struct mlx5sp_sim *sim, u8 synd);

/* fw.c */
void sim_cmd_work(struct work_struct *work);
void sim_slot_work(struct work_struct *work);
void sim_slots_abort(struct mlx5sp_sim *sim);
const char *sim_cmd_name(u16 opcode);

/* fw_cmds.c: HCA life cycle, ISSI, UAR, PD */
int sim_cmd_enable_hca(struct sim_cmd *c);
int sim_cmd_disable_hca(struct sim_cmd *c);
int sim_cmd_query_issi(struct sim_cmd *c);
int sim_cmd_set_issi(struct sim_cmd *c);
int sim_cmd_init_hca(struct sim_cmd *c);
int sim_cmd_teardown_hca(struct sim_cmd *c);
int sim_cmd_alloc_uar(struct sim_cmd *c);
int sim_cmd_dealloc_uar(struct sim_cmd *c);
int sim_cmd_alloc_pd(struct sim_cmd *c);
int sim_cmd_dealloc_pd(struct sim_cmd *c);
bool sim_uar_allocated(struct mlx5sp_sim *sim, u32 uar);
void sim_release_objects(struct mlx5sp_sim *sim);

/* caps.c */
int sim_caps_init(struct mlx5sp_sim *sim);
void sim_caps_reset_cur(struct mlx5sp_sim *sim);
int sim_cmd_query_hca_cap(struct sim_cmd *c);
int sim_cmd_set_hca_cap(struct sim_cmd *c);

/* eq.c */
int sim_cmd_create_eq(struct sim_cmd *c);
int sim_cmd_destroy_eq(struct sim_cmd *c);
int sim_cmd_query_eq(struct sim_cmd *c);
bool sim_eq_uses_uar(struct mlx5sp_sim *sim, u32 uar);
void sim_eq_destroy_all(struct mlx5sp_sim *sim);
void sim_eq_doorbell(struct mlx5sp_sim *sim, u32 uar, u32 val, bool arm);
bool sim_eq_post(struct mlx5sp_sim *sim, u8 type, u8 sub_type,
		 const union ev_data *data);
bool sim_eq_subscribed(struct mlx5sp_sim *sim, u8 type);

/* pages.c */
int sim_cmd_query_pages(struct sim_cmd *c);
int sim_cmd_manage_pages(struct sim_cmd *c);
u64 sim_pages_boot_needed(struct mlx5sp_sim *sim);
u64 sim_pages_init_needed(struct mlx5sp_sim *sim);
s64 sim_pages_regular_needed(struct mlx5sp_sim *sim);
void sim_pages_scribble(struct mlx5sp_sim *sim, unsigned int max);
void sim_pages_forget(struct mlx5sp_sim *sim, const char *why);
int sim_pages_storm(struct mlx5sp_sim *sim, u32 events, s32 pages);
void sim_pages_request_outstanding(struct mlx5sp_sim *sim);

/* debugfs.c */
int sim_debugfs_init(void);
void sim_debugfs_ctl_exit(void);
void sim_debugfs_exit(void);
void sim_debugfs_add(struct mlx5sp_sim *sim);
void sim_debugfs_del(struct mlx5sp_sim *sim);

/* main.c: the device list, for debugfs control */
struct mlx5sp_sim *sim_create(const char *name,
			      const struct mlx5sp_sim_params *p,
			      bool from_debugfs);
int sim_destroy_by_name(const char *name);

#endif /* MLX5SP_SIM_PRIV_H */
