/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mlx5sp: RDMA driver for ConnectX adapters built around signature offload
 * and signature pipelining. This header holds the core device: bus access,
 * the command interface, EQs, firmware pages and health.
 */
#ifndef MLX5SP_H
#define MLX5SP_H

#include <linux/completion.h>
#include <linux/device.h>
#include <linux/dmapool.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/semaphore.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/mlx5/device.h>
#include <linux/mlx5/mlx5_ifc.h>

#include "mlx5sp_model.h"
#include "mlx5sp_prm.h"

#define MLX5SP_DRV_NAME		"mlx5sp"
#define MLX5SP_CMD_IF_REV	5
#define MLX5SP_MAX_CMD_SLOTS	32
/* Largest command we build: a full page list of MANAGE_PAGES and the like. */
#define MLX5SP_CMD_MAX_MSG	SZ_1M

struct ib_ucontext;
struct mlx5sp_dev;
struct mlx5sp_eth;
struct mlx5sp_ib_dev;
struct mlx5sp_user_db_page;
struct rdma_user_mmap_entry;
struct vm_area_struct;

/* Kernel buffers are one DMA-coherent block; this bounds queue sizes. */
#define MLX5SP_MAX_KBUF		SZ_4M

/* A kernel DMA buffer: contiguous, described to firmware in 4 KiB pages. */
struct mlx5sp_buf {
	void *buf;
	dma_addr_t dma;
	size_t size;
};

/*
 * A doorbell record: a kernel one from the device's pool, or a user one
 * inside a pinned page of the user's shared with others of the context.
 */
struct mlx5sp_db {
	__be32 *db;			/* kernel records only */
	dma_addr_t dma;
	struct mlx5sp_user_db_page *page; /* user records only */
};

/* How registers and interrupts are reached: a PCI function or a model. */
struct mlx5sp_bus_ops {
	u32 (*rd32)(struct mlx5sp_dev *dev, u32 offset);
	void (*wr32)(struct mlx5sp_dev *dev, u32 offset, u32 val);
	int (*request_irq)(struct mlx5sp_dev *dev, u16 vector,
			   irq_handler_t handler, void *data);
	void (*free_irq)(struct mlx5sp_dev *dev, u16 vector, void *data);
	/* 64-bit doorbell; @val holds the bytes in memory order (__raw_writeq) */
	void (*wr64)(struct mlx5sp_dev *dev, u32 offset, u64 val);
	/*
	 * What backs UAR page @index for a user mapping: a page frame and
	 * whether it is memory (a model's page: map cached) or I/O (a BAR
	 * page: map write-combining or uncached).
	 */
	int (*uar_pfn)(struct mlx5sp_dev *dev, u32 index, unsigned long *pfn,
		       bool *is_mem);
	/*
	 * Optional, for memory UAR pages: map one for a user context so
	 * that the device sees the accesses (uar_trap.c); the mapping takes
	 * the entry's reference. -EOPNOTSUPP: map it as any page. Every
	 * such mapping of @uctx is gone from user space when
	 * uar_disassociate returns.
	 */
	int (*uar_mmap)(struct mlx5sp_dev *dev, struct ib_ucontext *uctx,
			struct vm_area_struct *vma,
			struct rdma_user_mmap_entry *entry, u32 index,
			unsigned long pfn);
	void (*uar_disassociate)(struct mlx5sp_dev *dev,
				 struct ib_ucontext *uctx);
	/*
	 * Optional: the core's own UAR page @index is allocated, map it for
	 * the kernel's doorbells (rd32/wr32/wr64 at its offsets), and gone.
	 * Process context.
	 */
	int (*map_uar)(struct mlx5sp_dev *dev, u32 index);
	void (*unmap_uar)(struct mlx5sp_dev *dev, u32 index);
	/* Optional: the function is cut off from its bus (AER, removal). */
	bool (*offline)(struct mlx5sp_dev *dev);
	/*
	 * UAR pages can be mapped write-combining (BlueFlame): a BAR's are,
	 * a model's are plain memory.
	 */
	bool uar_wc;
};

enum mlx5sp_slot_state {
	MLX5SP_SLOT_FREE,
	MLX5SP_SLOT_BUSY,	/* owned by firmware, a caller waits */
	MLX5SP_SLOT_TIMED_OUT,	/* caller gave up; buffers kept until firmware returns it */
};

/* A command message: the inline 16 bytes live in the layout, the rest in blocks. */
struct mlx5sp_cmd_msg {
	unsigned int nblocks;
	struct mlx5_cmd_prot_block **blocks;
	dma_addr_t *dma;
};

struct mlx5sp_cmd_slot {
	unsigned int idx;
	enum mlx5sp_slot_state state;
	struct mlx5_cmd_layout *lay;
	struct mlx5sp_cmd_msg in;
	struct mlx5sp_cmd_msg out;
	struct completion done;
	int forced_err;		/* set when completed by the driver, not firmware */
	u16 opcode;
};

struct mlx5sp_cmd {
	struct mlx5_cmd_layout *cmdq;	/* one 4 KiB page of slots */
	dma_addr_t cmdq_dma;
	u8 log_sz;
	u8 log_stride;
	unsigned int nslots;
	struct semaphore sem;		/* counts slots a caller may take */
	spinlock_t lock;		/* protects free_mask, slot states, token, use_events */
	unsigned long free_mask;
	u8 token;
	bool use_events;		/* completion by CMD EQE, else polling */
	bool check_sig;			/* verify output signatures */
	unsigned int timeout_ms;
	struct dma_pool *pool;		/* mailbox blocks */
	struct workqueue_struct *wq;	/* asynchronous execution */
	struct mlx5sp_cmd_slot slots[MLX5SP_MAX_CMD_SLOTS];
};

typedef void (*mlx5sp_cmd_cb_t)(int status, void *ctx);

struct mlx5sp_eq {
	struct mlx5sp_dev *dev;
	void *buf;
	dma_addr_t buf_dma;
	size_t buf_size;
	u32 eqn;
	u32 nent;
	u32 cons_index;		/* touched only by the EQ's interrupt handler */
	u32 empty_irqs;		/* in a row, and stuck: the handler's too */
	bool stuck;
	u16 vector;
	u64 mask;
	bool irq_requested;
	unsigned long eqes;	/* EQEs handled, for logs and tests */
	const char *name;
};

struct mlx5sp_pages {
	struct xarray given;	/* DMA address -> struct page; own lock */
	atomic_t requested;	/* pages asked for by EQEs, not yet handled */
	u32 npages;		/* pages firmware holds; under lock */
	struct mutex lock;	/* serialises give/take so counts stay exact */
	struct work_struct req_work;
	struct workqueue_struct *wq;
};

struct mlx5sp_health {
	struct delayed_work work;
	u32 last_counter;
	unsigned int misses;
	bool fatal_logged;
};

/*
 * A CQ as the core sees it: completion and error events find it by CQN.
 * The table holds one reference; an event handler takes another while it
 * calls out, and destroy waits for the last one (@free).
 */
struct mlx5sp_core_cq {
	u32 cqn;
	u16 eq_vector;			/* completion vector (index of comp EQ) */
	refcount_t refcount;
	struct completion free;
	void (*comp)(struct mlx5sp_core_cq *cq);
	void (*event)(struct mlx5sp_core_cq *cq, u8 event_type);
};

/* A QP as the core sees it: asynchronous events find it by QPN. */
struct mlx5sp_core_qp {
	u32 qpn;
	refcount_t refcount;
	struct completion free;
	void (*event)(struct mlx5sp_core_qp *qp, u8 event_type);
};

/* Device events (port changes) go to whoever listens: the IB device. */
struct mlx5sp_event_listener {
	void (*port_event)(void *ctx, u8 port, u8 sub_type);
	/* every EQE of a QP, CQ or port, and completions of CQs not ours */
	void (*devx_event)(void *ctx, const struct mlx5_eqe *eqe);
	/* firmware died (mlx5sp_enter_error_state); any context, once */
	void (*fatal)(void *ctx);
	void *ctx;
};

enum mlx5sp_dev_state {
	MLX5SP_STATE_UP,
	MLX5SP_STATE_ERROR,	/* firmware is dead: commands are not sent */
};

enum mlx5sp_cap_idx {
	MLX5SP_CAPS_GENERAL,
	MLX5SP_CAPS_ROCE,
	MLX5SP_CAPS_ATOMIC,	/* queried when the general caps say atomic */
	MLX5SP_CAPS_ETH,	/* ... eth_net_offloads */
	MLX5SP_CAPS_FLOW_TABLE,	/* ... nic_flow_table */
	MLX5SP_CAPS_NUM,
};

struct mlx5sp_dev {
	struct device *dma_dev;
	const char *name;
	/* the RDMA device's name (may hold %d), else name */
	const char *ib_name;
	const struct mlx5sp_bus_ops *bus;
	void *bus_priv;			/* pci_dev or model device state */
	u16 vendor_id;
	u16 device_id;
	u16 num_vectors;

	spinlock_t state_lock;		/* protects state */
	enum mlx5sp_dev_state state;
	bool nic_off;			/* in the error state and stopped */

	u32 fw_rev_major;
	u32 fw_rev_minor;
	u32 fw_rev_sub;
	char fw_ver[32];
	void *caps_cur[MLX5SP_CAPS_NUM];
	void *caps_max[MLX5SP_CAPS_NUM];
	bool hca_inited;
	u32 uar_index;

	struct mlx5sp_cmd cmd;
	struct mlx5sp_pages pages;
	struct mlx5sp_health health;
	struct mlx5sp_eq cmd_eq;	/* EQ 0: command completions */
	struct mlx5sp_eq async_eq;	/* page requests and async events */
	/*
	 * Completion EQs, one per vector from 2 on; a device with only two
	 * vectors carries completions on the async EQ (comp_eqs NULL).
	 */
	struct mlx5sp_eq *comp_eqs;
	u16 num_comp_eqs;		/* completion vectors offered to users */

	/*
	 * Kernel doorbell records; the pool lives as long as the firmware
	 * may read them (quarantine.c).
	 */
	struct dma_pool *db_pool;
	/*
	 * DMA memory of kernel objects whose DESTROY failed, freed at
	 * teardown (quarantine.c); the list under quarantine_lock.
	 */
	spinlock_t quarantine_lock;
	struct list_head quarantine;

	struct xarray cq_table;		/* CQN -> core CQ; xa_lock_irqsave */
	struct xarray qp_table;		/* QPN -> core QP; xa_lock_irqsave */
	struct xarray srq_table;	/* SRQN -> core SRQ; xa_lock_irqsave */
	spinlock_t event_lock;		/* protects listener and eth */
	struct mlx5sp_event_listener listener;
	/*
	 * The port's NIC (eth.c), when the device has one and the bus gave
	 * no netdev: it hears port changes and the error state. Set once
	 * it is up, cleared before it goes.
	 */
	struct mlx5sp_eth *eth;

	/* The RDMA device on top; set by the bus once registered. */
	struct mlx5sp_ib_dev *ib;
	/*
	 * Called from the RDMA device's dealloc_driver (ib_core frees the
	 * device, on `rdma link delete` or the bus's own removal): tears the
	 * core down and frees what the bus allocated.
	 */
	void (*release)(struct mlx5sp_dev *dev);
};

/* Register access: ioread32be()/iowrite32be() semantics. */
static inline void mlx5sp_wr64(struct mlx5sp_dev *dev, u32 offset, u64 val)
{
	dev->bus->wr64(dev, offset, val);
}

static inline u32 mlx5sp_rd32(struct mlx5sp_dev *dev, u32 offset)
{
	return dev->bus->rd32(dev, offset);
}

static inline void mlx5sp_wr32(struct mlx5sp_dev *dev, u32 offset, u32 val)
{
	dev->bus->wr32(dev, offset, val);
}

#define MLX5SP_CAP_GEN_CUR(dev, fld) \
	MLX5_GET(cmd_hca_cap, (dev)->caps_cur[MLX5SP_CAPS_GENERAL], fld)

#define MLX5SP_ISEG(field) offsetof(struct mlx5_init_seg, field)

#define mlx5sp_err(dev, fmt, ...) \
	dev_err((dev)->dma_dev, "%s: " fmt, (dev)->name, ##__VA_ARGS__)
#define mlx5sp_warn(dev, fmt, ...) \
	dev_warn((dev)->dma_dev, "%s: " fmt, (dev)->name, ##__VA_ARGS__)
#define mlx5sp_info(dev, fmt, ...) \
	dev_info((dev)->dma_dev, "%s: " fmt, (dev)->name, ##__VA_ARGS__)
#define mlx5sp_dbg(dev, fmt, ...) \
	dev_dbg((dev)->dma_dev, "%s: " fmt, (dev)->name, ##__VA_ARGS__)

static inline bool mlx5sp_dev_dead(struct mlx5sp_dev *dev)
{
	return READ_ONCE(dev->state) == MLX5SP_STATE_ERROR;
}

/* main.c */
int mlx5sp_dev_init(struct mlx5sp_dev *dev);
void mlx5sp_dev_cleanup(struct mlx5sp_dev *dev);

/* cmd.c */
int mlx5sp_cmd_init(struct mlx5sp_dev *dev);
void mlx5sp_cmd_cleanup(struct mlx5sp_dev *dev);
int mlx5sp_cmd_exec(struct mlx5sp_dev *dev, const void *in, int inlen,
		    void *out, int outlen);
int mlx5sp_cmd_exec_cb(struct mlx5sp_dev *dev, const void *in, int inlen,
		       void *out, int outlen, mlx5sp_cmd_cb_t cb, void *ctx);
void mlx5sp_cmd_use_events(struct mlx5sp_dev *dev);
void mlx5sp_cmd_use_polling(struct mlx5sp_dev *dev);
void mlx5sp_cmd_comp_handler(struct mlx5sp_dev *dev, u32 vector);
void mlx5sp_cmd_flush(struct mlx5sp_dev *dev);
const char *mlx5sp_cmd_opcode_str(u16 opcode);
int mlx5sp_cmd_status_to_err(u8 status);
int mlx5sp_cmd_destroy(struct mlx5sp_dev *dev, const void *in, int inlen,
		       const char *what, u32 n);
u8 mlx5sp_xor8(const void *buf, size_t len);

#define mlx5sp_cmd_exec_inout(dev, ifc_cmd, in, out) \
	mlx5sp_cmd_exec(dev, in, MLX5_ST_SZ_BYTES(ifc_cmd##_in), \
			out, MLX5_ST_SZ_BYTES(ifc_cmd##_out))
#define mlx5sp_cmd_exec_in(dev, ifc_cmd, in) ({ \
	u32 _out[MLX5_ST_SZ_DW(ifc_cmd##_out)] = {}; \
	mlx5sp_cmd_exec_inout(dev, ifc_cmd, in, _out); \
})

/* eq.c */
int mlx5sp_cmd_alloc_uar(struct mlx5sp_dev *dev, u32 *index);
void mlx5sp_cmd_dealloc_uar(struct mlx5sp_dev *dev, u32 index);
int mlx5sp_eqs_create(struct mlx5sp_dev *dev);
void mlx5sp_eqs_destroy(struct mlx5sp_dev *dev);
int mlx5sp_comp_eqn(struct mlx5sp_dev *dev, u16 vector, u32 *eqn);
int mlx5sp_core_cq_insert(struct mlx5sp_dev *dev, struct mlx5sp_core_cq *cq);
void mlx5sp_core_cq_remove(struct mlx5sp_dev *dev, struct mlx5sp_core_cq *cq);
int mlx5sp_core_qp_insert(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *qp);
void mlx5sp_core_qp_remove(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *qp);
/* An SRQ is a core QP in srq_table: its events find it by SRQN (qpn). */
int mlx5sp_core_srq_insert(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *srq);
void mlx5sp_core_srq_remove(struct mlx5sp_dev *dev, struct mlx5sp_core_qp *srq);
void mlx5sp_set_event_listener(struct mlx5sp_dev *dev,
			       const struct mlx5sp_event_listener *l);
void mlx5sp_core_qp_each(struct mlx5sp_dev *dev,
			 void (*fn)(struct mlx5sp_core_qp *qp));
void mlx5sp_notify_fatal(struct mlx5sp_dev *dev);

/* pages.c */
int mlx5sp_pages_init(struct mlx5sp_dev *dev);
void mlx5sp_pages_cleanup(struct mlx5sp_dev *dev);
int mlx5sp_satisfy_pages(struct mlx5sp_dev *dev, u16 op_mod);
void mlx5sp_pages_request(struct mlx5sp_dev *dev, s32 npages);
int mlx5sp_reclaim_all_pages(struct mlx5sp_dev *dev);
void mlx5sp_pages_flush(struct mlx5sp_dev *dev);

/* health.c: the health poller and the error state */
void mlx5sp_enter_error_state(struct mlx5sp_dev *dev, const char *why);
void mlx5sp_wait_nic_off(struct mlx5sp_dev *dev);
void mlx5sp_health_start(struct mlx5sp_dev *dev);
void mlx5sp_health_stop(struct mlx5sp_dev *dev);
bool mlx5sp_health_check(struct mlx5sp_dev *dev);

/* buf.c: kernel queue buffers, of the RDMA device's objects and the NIC's */
int mlx5sp_buf_alloc(struct mlx5sp_dev *dev, size_t size,
		     struct mlx5sp_buf *buf);
void mlx5sp_buf_free(struct mlx5sp_dev *dev, struct mlx5sp_buf *buf);
size_t mlx5sp_buf_npages(const struct mlx5sp_buf *buf);
void mlx5sp_fill_pas_contig(dma_addr_t dma, size_t npages, __be64 *pas);

/* doorbell.c: kernel doorbell records */
int mlx5sp_db_alloc(struct mlx5sp_dev *dev, struct mlx5sp_db *db);
void mlx5sp_db_free(struct mlx5sp_dev *dev, struct mlx5sp_db *db);

/* quarantine.c */
void mlx5sp_quarantine(struct mlx5sp_dev *dev, struct mlx5sp_buf *buf,
		       struct mlx5sp_db *db, const char *what, u32 n);
void mlx5sp_quarantine_free(struct mlx5sp_dev *mdev);

/* pci.c */
int mlx5sp_pci_register(void);
void mlx5sp_pci_unregister(void);

/* model.c */
struct mlx5sp_dev *mlx5sp_model_to_dev(struct mlx5sp_model_dev *mdev);
void mlx5sp_factory_release(struct mlx5sp_model_dev *mdev);

#endif /* MLX5SP_H */
