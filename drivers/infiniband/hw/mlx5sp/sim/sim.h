/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A software ConnectX device: struct mlx5sp_sim, its firmware state and
 * the command processor (fw.c, fw_cmds.c, caps.c), the fabric and the
 * life cycle (main.c, debugfs.c). Each concern of the device is a
 * sub-struct declared, with the functions of its .c, in its own header:
 * bar.h (registers, health), fault.h (injection), uctx.h (DEVX),
 * pages.h, roce.h, knobs.h, engine.h, wire.h, limits.h, counters.h,
 * port.h (the physical port of a cabled device), steer.h (NIC steering). The
 * objects the data path works on have a header each too: buf.h, mkey.h,
 * cq.h, qp.h (QPs and SRQs), sgl.h, eq.h, sig.h, dma.h.
 *
 * The rule: a file includes the headers of what it uses, not an
 * umbrella; this one includes only the headers of the members of struct
 * mlx5sp_sim and of its inlines (scripts/callgraph checks it).
 *
 * Lock order: sim_list_lock -> fw_lock -> eq_lock -> inject.lock/stats_lock.
 * eq_lock, bar.reg_lock, inject.lock and stats_lock are taken with
 * interrupts off: BAR writes arrive in any context.
 *
 * The data path (engine.c, sq.c, rq.c, cqe.c) runs in each device's engine
 * thread, under rcu_read_lock() for one WQE at a time, and takes
 *   qp->sq_lock (the requester) -> peer qp->rq_lock (the responder, maybe
 *   on another device) -> srq->lock -> cq->lock -> eq_lock,
 * never two locks of one kind. Commands take sq_lock and rq_lock of a QP to
 * change its state; objects leave their xarray and wait for an RCU grace
 * period before they are freed, so the engine never sees a freed object.
 */
#ifndef MLX5SP_SIM_PRIV_H
#define MLX5SP_SIM_PRIV_H

#include <linux/atomic.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mlx5/cq.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>
#include <linux/mlx5/qp.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "mlx5sp_model.h"
#include "mlx5sp_prm.h"
#include "mlx5sp_sim.h"
#include "bar.h"
#include "counters.h"
#include "engine.h"
#include "fault.h"
#include "knobs.h"
#include "limits.h"
#include "pages.h"
#include "port.h"
#include "roce.h"
#include "steer.h"
#include "uctx.h"
#include "wire.h"

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
#define SIM_UAR_MAPPED		XA_MARK_1	/* uar_pages: in user space */
#define SIM_MAX_SLOTS		32	/* bits in cmd_dbell */
#define SIM_LOG_MAX_EQ		6
#define SIM_MAX_EQS		BIT(SIM_LOG_MAX_EQ)
#define SIM_LOG_MAX_EQ_SZ	22
#define SIM_LOG_MAX_PD		24
#define SIM_LOG_MAX_UCTX	10
#define SIM_MAX_MSG_LEN		SZ_1M	/* inlen / outlen limit */
#define SIM_MAX_FW_PAGES	BIT(18)		/* 1 GiB of firmware pages */
#define SIM_HEALTH_PERIOD_MS	50
#define SIM_SCRIBBLE_PER_CMD	8
#define SIM_SCRIBBLE_BYTE	0x5b

#define SIM_LOG_MAX_WQ_SZ	15	/* log_max_qp_sz */
#define SIM_LOG_MAX_CQ_SZ	22
#define SIM_MAX_LOG_BUF_PAGE	18	/* log_page_size of QP/CQ buffers */
#define SIM_GSI_QPN		1
#define SIM_QPN_FIRST		0x40	/* below: special QPs */
#define SIM_QPN_MAX		0xffffff
#define SIM_QP1_QKEY		0x80010000
#define SIM_UD_MTU		4096
#define SIM_GRH_LEN		40

enum sim_state {
	SIM_STATE_RESET,	/* no command queue yet */
	SIM_STATE_CMDQ_READY,	/* command queue address set */
	SIM_STATE_ENABLED,	/* ENABLE_HCA done */
	SIM_STATE_INITIALIZED,	/* INIT_HCA done */
};

#define SIM_ST(s)		BIT(SIM_STATE_##s)

struct sim_eq;
struct sim_host_ops;

/* Capability types the model answers, index into sim_caps. */
enum sim_cap_idx {
	SIM_CAP_GENERAL,
	SIM_CAP_ROCE,
	SIM_CAP_ATOMIC,
	SIM_CAP_ETH,		/* a cabled device's only (port.h) */
	SIM_CAP_FT,		/* ditto */
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

struct mlx5sp_sim {
	struct mlx5sp_model_dev mdev;
	char name[MLX5SP_SIM_NAME_MAX + 1];
	struct mlx5sp_sim_params params;
	struct list_head node;		/* in sim_list, under sim_list_lock */
	struct platform_device *pdev;
	int pdev_id;
	bool attached;			/* set by attach, read by destroy */
	bool from_debugfs;		/* created by "add": "del" may destroy */
	bool destroying;		/* claimed by a destroyer; sim_list_lock */
	struct dentry *dbg;
	/* the front end (host.h) and its data; set at creation */
	const struct sim_host_ops *host;
	void *host_priv;

	struct sim_bar bar;		/* init segment, command queue (bar.c) */
	atomic_t stopping;		/* destroy in progress: queue no work */
	struct sim_health health;	/* syndrome, NIC off, counter (bar.c) */
	struct sim_inject inject;	/* fault injection (fault.c) */
	struct workqueue_struct *wq;
	struct work_struct cmd_work;

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
	struct sim_devx devx;		/* DEVX (uctx.c), under fw_lock */
	struct sim_pages pages;		/* firmware pages (pages.c), fw_lock */

	spinlock_t eq_lock;		/* protects eqs[], each EQ's ci/pi/armed */
	struct sim_eq *eqs[SIM_MAX_EQS];

	struct xarray uar_pages;	/* UAR index -> struct page, RCU;
					 * SIM_UAR_MAPPED: handed to user space
					 */
	struct xarray tds;		/* transport domains */
	struct xarray mkeys;		/* index -> sim_mkey, RCU */
	struct xarray cqs;		/* cqn -> sim_cq, RCU */
	struct xarray qps;		/* qpn -> sim_qp, RCU */
	struct xarray psvs;		/* PSV index -> sim_psv, RCU (sig.c) */
	struct xarray srqs;		/* srqn -> sim_srq, RCU */
	/* what the engine polls (pollset.c): sim_qp, sim_cq, UAR page */
	struct sim_pollset poll_qps;
	struct sim_pollset poll_cqs;
	struct sim_pollset poll_uars;
	u32 next_mkey;			/* cyclic allocation hints */
	u32 next_cqn;
	u32 next_qpn;
	u32 next_srqn;
	struct sim_limits lim;		/* object counts (limits.c), fw_lock */

	struct sim_roce roce;		/* the port's netdev, GIDs (roce.c) */
	struct list_head fabric_node;	/* in the fabric, RCU */
	struct work_struct release_work; /* factory release */

	struct sim_eth_port port;	/* the cabled port, its NIC (port.c) */
	struct sim_steer steer;		/* NIC steering (steer.c) */
	struct sim_net net;		/* RoCEv2 on the netdev (net.c) */
	struct sim_engine engine;	/* owned by the engine thread */
	/* scratch of the WQEs a command runs (sim_sq_catch_up); fw_lock */
	struct sim_engine fw_eng;
	/* scratch of the frames the receive softirq runs (net.c's NAPI) */
	struct sim_engine rx_eng;
	/* scratch of the send doorbells run in the process (sim_sq_doorbell()) */
	spinlock_t tx_lock;		/* protects tx_eng; tried, never waited for */
	struct sim_engine tx_eng;
	struct sim_engine_stats estats;
	struct sim_knobs knobs;		/* debugfs knobs of the data path */

	spinlock_t stats_lock;		/* protects stats */
	struct mlx5sp_sim_stats stats;

	struct sim_qcnt qcnt;		/* Q counter sets (counters.c) */
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

/*
 * What the object commands check a PD and a UAR against: the numbers
 * ALLOC_PD and ALLOC_UAR (fw_cmds.c) handed out. fw_lock held.
 */
static inline bool sim_pd_exists(struct mlx5sp_sim *sim, u32 pd)
{
	return pd && xa_load(&sim->pds, pd);
}

static inline bool sim_uar_allocated(struct mlx5sp_sim *sim, u32 uar)
{
	return uar >= SIM_UAR_FIRST && uar - SIM_UAR_FIRST < sim->nr_uars &&
	       test_bit(uar - SIM_UAR_FIRST, sim->uar_map);
}

/* Dead firmware, or a device the driver turned off: it does nothing. */
static inline bool sim_is_fatal(struct mlx5sp_sim *sim)
{
	return atomic_read(&sim->health.fatal) || atomic_read(&sim->health.nic_disabled);
}

/* Dead or hung firmware: the engine does no more DMA. */
static inline bool sim_engine_halted(struct mlx5sp_sim *sim)
{
	return sim_is_fatal(sim) || atomic_read(&sim->health.stopped);
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
extern struct workqueue_struct *sim_release_wq;
int sim_factory_register(void);
void sim_factory_unregister(void);

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
void sim_release_objects(struct mlx5sp_sim *sim);

/* caps.c */
int sim_caps_init(struct mlx5sp_sim *sim);
void sim_caps_reset_cur(struct mlx5sp_sim *sim);
int sim_cmd_query_hca_cap(struct sim_cmd *c);
int sim_cmd_set_hca_cap(struct sim_cmd *c);

/* fabric.c */
void sim_fabric_add(struct mlx5sp_sim *sim);
void sim_fabric_del(struct mlx5sp_sim *sim);
void sim_fabric_changed(void);
u32 sim_fabric_gen(void);
struct mlx5sp_sim *sim_fabric_find_gid(const u8 *gid,
				       struct mlx5sp_sim *prefer);
bool sim_gid_get(struct mlx5sp_sim *sim, u8 port, u8 index,
		 struct sim_gid *out);

/* debugfs.c */
int sim_debugfs_init(void);
u32 sim_debugfs_take_fail_nth(void);
void sim_debugfs_ctl_exit(void);
void sim_debugfs_exit(void);
void sim_debugfs_add(struct mlx5sp_sim *sim);
void sim_debugfs_del(struct mlx5sp_sim *sim);

/* main.c: the device list, for debugfs control */
struct mlx5sp_sim *sim_create(const char *name,
			      const struct mlx5sp_sim_params *p,
			      bool from_debugfs, struct net_device *netdev,
			      struct net_device *cable);
/* a device on another front end (host.h), for its module */
struct mlx5sp_sim *sim_create_host(const char *name,
				   const struct mlx5sp_sim_params *p,
				   const struct sim_host_ops *host, void *priv,
				   struct net_device *cable);
int sim_cable_check(struct net_device *cable);
int sim_destroy_by_name(const char *name);

#endif /* MLX5SP_SIM_PRIV_H */
