/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Private state of a software ConnectX device: the device, its firmware
 * state and commands. The objects the data path works on have a header
 * each: buf.h (queue buffers), mkey.h, cq.h, qp.h (QPs and SRQs), sgl.h
 * (scatter lists and transfers), engine.h, eq.h (event queues),
 * counters.h (Q counters); the wire's are wire.h, signatures' sig.h.
 *
 * Lock order: sim_list_lock -> fw_lock -> eq_lock -> fault_lock/stats_lock.
 * eq_lock, reg_lock, fault_lock and stats_lock are taken with interrupts
 * off: BAR writes arrive in any context.
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
#include "buf.h"
#include "counters.h"
#include "cq.h"
#include "dma.h"
#include "engine.h"
#include "eq.h"
#include "limits.h"
#include "mkey.h"
#include "qp.h"
#include "sgl.h"
#include "sig.h"
#include "syndromes.h"
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

#define SIM_NUM_PORTS		1
#define SIM_GID_TABLE_SIZE	256
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

/* Object kinds a DEVX uid may own (uctx.c). */
enum sim_obj_type {
	SIM_OBJ_PD,
	SIM_OBJ_TD,
	SIM_OBJ_MKEY,			/* by index */
	SIM_OBJ_CQ,
	SIM_OBJ_QP,
	SIM_OBJ_PSV,
	SIM_OBJ_UMEM,			/* kept in umems, not in owner[] */
	SIM_OBJ_NR,
};

struct sim_gid {
	bool valid;
	u8 gid[16];
	u8 mac[ETH_ALEN];
	bool vlan_valid;
	u16 vlan_id;
	u8 l3_type;			/* MLX5_ROCE_L3_TYPE_* */
	u8 version;			/* MLX5_ROCE_VERSION_* */
};

struct sim_port {
	struct sim_gid gids[SIM_GID_TABLE_SIZE];	/* under gid_lock */
};

struct sim_fault {
	u16 fail_opcode;
	u8 fail_status;
	u32 fail_syndrome;
	u32 fail_count;
	u32 fail_nth;		/* the n-th command from now fails, any opcode */
	u16 delay_opcode;
	u32 delay_ms;
	u32 delay_count;
	/* the garble_nth-th execution of garble_opcode answers garbage */
	u16 garble_opcode;
	u32 garble_nth;
	u32 garble_seed;
	/* the lie_nth-th execution of lie_opcode answers lie_val in lie_dw */
	u16 lie_opcode;
	u32 lie_nth;
	u16 lie_dw;
	__be32 lie_val;
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

	/* BAR image of the init segment (big-endian words) */
	struct mlx5_init_seg *iseg;
	ktime_t boot_done;		/* "initializing" clears at this time */
	spinlock_t reg_lock;		/* protects cmdq_addr_h, cmdq_base */
	u32 cmdq_addr_h;
	u64 cmdq_base;			/* 0 until the driver sets it */

	atomic_long_t db_pending;	/* slots rung, not yet picked up */
	atomic_t stopping;		/* destroy in progress: queue no work */

	atomic_t fatal;			/* health syndrome set */
	atomic_t nic_disabled;		/* the driver turned the NIC off */
	struct work_struct nic_off_work; /* reads disabled after a GP */
	atomic_t health_stopped;	/* counter frozen by a test */
	atomic_t hostile_cqes;		/* CQEs still to corrupt (fault.c) */
	u32 hostile_qpn;		/* the QPN they may name instead */
	atomic_t stale_cqes;		/* CQEs still to leave not handed over */
	atomic_t stale_eqes;		/* EQEs still to leave not handed over */
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
	/* DEVX (uctx.c), under fw_lock */
	struct xarray uctxs;		/* uid -> its uctx cap, as a value */
	struct xarray umems;		/* umem id -> sim_umem */
	struct xarray umem_users;	/* type << 32 | id -> umem ids used */
	struct xarray owner[SIM_OBJ_NR]; /* id -> uid (value), uid != 0 only */
	struct xarray pages;		/* held firmware pages, by PFN */
	u64 npages;			/* entries in pages */
	s64 page_delta;			/* regular pages wanted (+) or not */
	unsigned long scribble_next;	/* PFN where scribbling resumes */

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

	/* RoCE: the port's netdev (held) and GID table */
	netdevice_tracker netdev_tracker;
	struct notifier_block netdev_nb;
	bool netdev_nb_registered;
	spinlock_t gid_lock;		/* protects ports[].gids */
	struct sim_port ports[SIM_NUM_PORTS];
	struct list_head fabric_node;	/* in the fabric, RCU */
	struct work_struct release_work; /* factory release */

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

	/* WQEs that run on past a signature error (debugfs sig_runon) */
	u8 sig_runon;
	/* an RC request's ACK comes back this late (debugfs ack_delay_us) */
	u32 ack_delay_us;
	/* the engine polls kernel QPs and CQs too (debugfs poll_kernel) */
	bool poll_kernel;
	/*
	 * Idle, the engine has user UAR mappings trapped instead of polling
	 * them (debugfs uar_trap, default on; off: poll, to compare)
	 */
	bool uar_trap;
	/*
	 * Work runs where it arrives: a requester's last answer runs its SQ
	 * in the receive softirq (debugfs inline, default on; off: the
	 * engine does, to compare).
	 */
	bool run_inline;
	/*
	 * User UAR stores are taken as the driver executes them in the
	 * fault (sim_uar_store(); debugfs uar_store, default on; off: the
	 * driver maps the page and tells, sim_uar_touch()).
	 */
	bool uar_store;
	/*
	 * A user access's fault is this slow between telling the model and
	 * mapping the page (debugfs touch_delay_us, a test's knob: a task
	 * preempted there; the trap's 4 ms cap passes meanwhile)
	 */
	u32 touch_delay_us;
	/*
	 * Reach peers on other model devices of this kernel through the
	 * wire, as on separate hosts (debugfs wire_peers, either side's is
	 * enough; set before the QPs are connected).
	 */
	bool wire_peers;
	/* ECN: notification and reaction points (cong.c, debugfs ecn_*) */
	bool ecn_np;
	bool ecn_rp;

	spinlock_t fault_lock;		/* protects fault */
	struct sim_fault fault;
	struct sim_sig_inject sig_inject;	/* under fault_lock too */

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
	return atomic_read(&sim->fatal) || atomic_read(&sim->nic_disabled);
}

/* Dead or hung firmware: the engine does no more DMA. */
static inline bool sim_engine_halted(struct mlx5sp_sim *sim)
{
	return sim_is_fatal(sim) || atomic_read(&sim->health_stopped);
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

/* bar.c */
u32 sim_read32(struct mlx5sp_model_dev *mdev, u32 offset);
void sim_write32(struct mlx5sp_model_dev *mdev, u32 offset, u32 val);
void sim_write64(struct mlx5sp_model_dev *mdev, u32 offset, u64 val);
struct page *sim_uar_page(struct mlx5sp_model_dev *mdev, u32 index);
void sim_uar_touch(struct mlx5sp_model_dev *mdev, u32 index, u32 offset);
bool sim_uar_store(struct mlx5sp_model_dev *mdev, u32 index, u32 offset,
		   u64 val, unsigned int size);
/*
 * What sim_uar_touch() puts where a faulting store goes: no doorbell
 * libmlx5 writes is all ones (a CQ number or QPN 0xffffff).
 */
#define SIM_UAR_UNWRITTEN	(~0ULL)
bool sim_uar_store_landed(struct mlx5sp_sim *sim, u32 index, u32 offset);
void sim_bar_init(struct mlx5sp_sim *sim);
void sim_health_work(struct work_struct *work);
void sim_health_set_fatal(struct mlx5sp_sim *sim, u8 synd);
void sim_nic_off_work(struct work_struct *work);

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

/* uctx.c: DEVX user contexts, uids, user memory */
void sim_uctx_init(struct mlx5sp_sim *sim);
void sim_uctx_reset(struct mlx5sp_sim *sim);
int sim_cmd_create_uctx(struct sim_cmd *c);
int sim_cmd_destroy_uctx(struct sim_cmd *c);
int sim_cmd_create_umem(struct sim_cmd *c);
int sim_cmd_destroy_umem(struct sim_cmd *c);
u16 sim_obj_uid(struct mlx5sp_sim *sim, enum sim_obj_type type, u32 id);
int sim_uid_admit(struct sim_cmd *c);
int sim_uid_resolve_umem(struct sim_cmd *c, void **nin, u32 *ninlen,
			 u64 *pair);
void sim_uid_commit(struct sim_cmd *c, u64 umem_pair);

/* caps.c */
int sim_caps_init(struct mlx5sp_sim *sim);
void sim_caps_reset_cur(struct mlx5sp_sim *sim);
int sim_cmd_query_hca_cap(struct sim_cmd *c);
int sim_cmd_set_hca_cap(struct sim_cmd *c);

int sim_rq_deliver_ud(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r);
bool sim_rq_flush(struct sim_qp *qp);

bool sim_atomic_host_endian(struct mlx5sp_sim *sim);
int sim_rq_execute_locked(struct sim_engine *eng, struct sim_qp *qp,
			  struct sim_resp_req *r);
int sim_rq_direct_begin(struct sim_engine *eng, struct sim_qp *qp,
			struct sim_resp_req *r, bool *whole);
int sim_rq_direct_part(struct sim_engine *eng, struct sim_qp *qp,
		       struct sim_resp_req *r, u64 off);
int sim_rq_direct_sig(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r, u64 off, bool all, u32 *put);
int sim_rq_direct_end(struct sim_engine *eng, struct sim_qp *qp,
		      struct sim_resp_req *r);
/* fabric.c */
void sim_fabric_add(struct mlx5sp_sim *sim);
void sim_fabric_del(struct mlx5sp_sim *sim);
void sim_fabric_changed(void);
u32 sim_fabric_gen(void);
struct mlx5sp_sim *sim_fabric_find_gid(const u8 *gid,
				       struct mlx5sp_sim *prefer);
bool sim_gid_get(struct mlx5sp_sim *sim, u8 port, u8 index,
		 struct sim_gid *out);

/* roce.c: GID table, vports, transport domains, port events */
int sim_cmd_set_roce_address(struct sim_cmd *c);
int sim_cmd_query_roce_address(struct sim_cmd *c);
int sim_cmd_query_vport_state(struct sim_cmd *c);
int sim_cmd_query_nic_vport_context(struct sim_cmd *c);
int sim_cmd_alloc_transport_domain(struct sim_cmd *c);
int sim_cmd_dealloc_transport_domain(struct sim_cmd *c);
void sim_roce_reset(struct mlx5sp_sim *sim);
int sim_netdev_watch(struct mlx5sp_sim *sim);
void sim_netdev_unwatch(struct mlx5sp_sim *sim);
bool sim_port_active(struct mlx5sp_sim *sim);

/* fault.c */
void sim_fault_garble(struct mlx5sp_sim *sim, u16 opcode, void *out,
		      u32 outlen);
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
u32 sim_debugfs_take_fail_nth(void);
void sim_debugfs_ctl_exit(void);
void sim_debugfs_exit(void);
void sim_debugfs_add(struct mlx5sp_sim *sim);
void sim_debugfs_del(struct mlx5sp_sim *sim);

/* main.c: the device list, for debugfs control */
struct mlx5sp_sim *sim_create(const char *name,
			      const struct mlx5sp_sim_params *p,
			      bool from_debugfs, struct net_device *netdev);
int sim_destroy_by_name(const char *name);

#endif /* MLX5SP_SIM_PRIV_H */
