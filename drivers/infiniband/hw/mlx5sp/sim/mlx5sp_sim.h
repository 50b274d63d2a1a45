/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The software ConnectX (mlx5sp_sim.ko): API for tests and tools.
 *
 * A model device is created detached; mlx5sp_sim_attach() hands it to the
 * mlx5sp driver, which brings it up through the PRM register interface.
 * Fault injection works the same whether or not the driver is attached.
 */
#ifndef MLX5SP_SIM_H
#define MLX5SP_SIM_H

#include <linux/types.h>

struct mlx5sp_sim;
struct mlx5sp_model_dev;
struct net_device;

#define MLX5SP_SIM_NAME_MAX	32

/* missing_caps: capabilities the model device does not report */
#define MLX5SP_SIM_NO_ROCE		BIT(0)	/* roce, RoCE caps zeroed */
#define MLX5SP_SIM_NO_SIG		BIT(1)	/* sho, sigerr_cqe, bsf, drain */
#define MLX5SP_SIM_NO_DRAIN_SIGERR	BIT(2)	/* drain_sigerr */
#define MLX5SP_SIM_NO_UMR		BIT(3)	/* UMR-disabled bits set */
#define MLX5SP_SIM_MISSING_CAPS_ALL	(BIT(4) - 1)

struct mlx5sp_sim_params {
	u32 boot_pages;		/* QUERY_PAGES boot (default 8) */
	u32 init_pages;		/* QUERY_PAGES init (default 32) */
	u8 log_cmdq_size;	/* 0..5: 1..32 command slots (default 5) */
	u16 num_vectors;	/* MSI-X vectors, 1..256 (default 8) */
	u32 boot_delay_ms;	/* "initializing" stays set (default 10) */
	u32 missing_caps;	/* MLX5SP_SIM_NO_* */
	/*
	 * Object counts as log2, 0 for a ConnectX-6's: a smaller firmware
	 * profile, so that a test can reach the limit and one past it.
	 */
	u8 log_max_qp;		/* 1..18 */
	u8 log_max_cq;		/* 1..24 */
	u8 log_max_mkey;	/* 1..24 */
	u8 log_max_pd;		/* 1..24 */
	u8 log_max_srq;		/* 1..23 */
	/* the port in InfiniBand mode (port_type), not Ethernet */
	bool port_ib;
};

/* Status values below this are counted one by one in cmd_status[]. */
#define MLX5SP_SIM_NR_STATUS	0x60
#define MLX5SP_SIM_NR_DELIVERY	0x11
/* Error CQE syndromes below this are counted one by one in cqe_errors[]. */
#define MLX5SP_SIM_NR_CQE_SYND	0x40

struct mlx5sp_sim_stats {
	u64 cmds_executed;	/* delivered and completed, any status */
	u64 cmd_errors;		/* of those, status != OK */
	u32 cmd_status[MLX5SP_SIM_NR_STATUS];	/* by PRM status */
	u64 cmd_status_other;	/* status >= MLX5SP_SIM_NR_STATUS */
	u64 delivery_errors;	/* not executed: bad descriptor/mailbox */
	u32 delivery_status[MLX5SP_SIM_NR_DELIVERY];	/* by delivery status */
	u64 cmds_injected;	/* completed with an injected status */
	u64 cmds_garbled;	/* executed, output fields garbage */
	u64 cmds_delayed;	/* completion held back by delay_cmd */
	u64 cmds_dropped;	/* never completed (delay U32_MAX) */
	u64 cmds_stale;		/* delayed slot reclaimed by the driver */
	u64 doorbells_ignored;	/* doorbell for a slot not owned/busy */
	u64 pages_held;		/* firmware pages currently held */
	u64 pages_given;	/* MANAGE_PAGES give, total */
	u64 pages_returned;	/* MANAGE_PAGES take, total */
	u64 pages_leaked;	/* held at DISABLE_HCA or destroy */
	u64 boot_pages_outstanding;
	u64 init_pages_outstanding;
	s64 regular_pages_outstanding;	/* < 0: driver should take back */
	u64 eqes_written;
	u64 eqes_hostile;	/* written by mlx5sp_sim_hostile_eqes() */
	u64 eq_overruns;	/* EQ full: event dropped */
	u64 events_dropped;	/* no EQ subscribed, or device FATAL */
	u64 eq_doorbells_bad;	/* unknown EQ, wrong UAR, CI beyond PI */
	u64 writes_ignored;	/* BAR writes with no meaning */
	/* the data path */
	u64 wqes_executed;	/* send WQEs executed (not flushed) */
	u64 cqes_written;
	u64 cq_overruns;	/* CQ full: CQ error raised */
	u64 comp_eqes;		/* completion events */
	u64 doorbell_polls;	/* engine passes over the doorbell records */
	u64 kicks;		/* doorbells written through the BAR */
	u64 engine_sleeps;
	u64 uar_traps;		/* idle: user UAR mappings taken down */
	u64 uar_touches;	/* user UAR accesses told since (faults) */
	u64 uar_stores;		/* user UAR stores taken in faults */
	u64 inline_runs;	/* SQs run where their work came in */
	u64 uar_idle_touches;	/* of those, retries: trap re-set too soon */
	u64 uar_rearm_us;	/* the last one: from a fault to the trap */
	u64 rnr_naks;		/* sends that found no receive WQE */
	u64 retries;		/* retransmissions: peer missing or not ready */
	u64 wqes_flushed;	/* send and receive WQEs flushed */
	u64 ud_dropped;		/* UD datagrams nobody took */
	u64 bytes;		/* payload moved */
	u64 sig_transfers;	/* transfers through a signature key */
	u64 sig_errors;		/* of those, with a signature error */
	u64 sig_ns;		/* engine time in them (copy, CRC, checks) */
	u64 cqe_errors[MLX5SP_SIM_NR_CQE_SYND];	/* error CQEs by syndrome */
};

void mlx5sp_sim_default_params(struct mlx5sp_sim_params *p);

/* Returns ERR_PTR; the device is not attached to the driver. */
struct mlx5sp_sim *mlx5sp_sim_create(const char *name,
				     const struct mlx5sp_sim_params *p);
/*
 * A device with a physical Ethernet port whose cable is @cable (held):
 * it has a NIC (port.c). Not attached, as mlx5sp_sim_create().
 */
struct mlx5sp_sim *mlx5sp_sim_create_cabled(const char *name,
					    const struct mlx5sp_sim_params *p,
					    struct net_device *cable);
/* Calls mlx5sp_model_attach(); on success destroy will detach. */
int mlx5sp_sim_attach(struct mlx5sp_sim *sim);
/*
 * Detaches if attached, stops all work and frees. Pages still held by a
 * device that is not FATAL are counted leaked and reported.
 */
void mlx5sp_sim_destroy(struct mlx5sp_sim *sim);
struct mlx5sp_model_dev *mlx5sp_sim_model(struct mlx5sp_sim *sim);

/* The next @count executions of @opcode complete with @status/@syndrome. */
void mlx5sp_sim_fail_cmd(struct mlx5sp_sim *sim, u16 opcode, u8 status,
			 u32 syndrome, u32 count);
/*
 * The next @count executions of @opcode complete @delay_ms late; U32_MAX
 * means never (the slot stays owned by firmware).
 */
/*
 * The @nth execution of @opcode from now (1: the next) runs, then answers
 * with every output byte after its status and syndrome random (@seed).
 */
void mlx5sp_sim_garble_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 nth,
			   u32 seed);
/*
 * The @nth execution of @opcode from now runs, then answers @val (as it
 * is in the mailbox) in output dword @dw: a created object's number that
 * is not its own, say.
 */
void mlx5sp_sim_lie_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 nth, u16 dw,
			__be32 val);
void mlx5sp_sim_delay_cmd(struct mlx5sp_sim *sim, u16 opcode, u32 delay_ms,
			  u32 count);
/* Nonzero: firmware fatal error, commands and events stop. */
void mlx5sp_sim_set_health_syndrome(struct mlx5sp_sim *sim, u8 synd);
/* The health counter stops advancing, without a syndrome. */
void mlx5sp_sim_stop_health_counter(struct mlx5sp_sim *sim, bool stop);
/* Raise @events page-request EQEs of @pages each (< 0: take back). */
int mlx5sp_sim_page_storm(struct mlx5sp_sim *sim, u32 events, s32 pages);
void mlx5sp_sim_get_stats(struct mlx5sp_sim *sim,
			  struct mlx5sp_sim_stats *st);

/*
 * Hostile firmware (the card side of the boundary gone bad), for tests of
 * what the driver does with it. The next @count CQEs the device writes are
 * corrupted in turn: their QPN replaced by @qpn, by a random QPN, their
 * opcode by a reserved one, their WQE counter by a random one.
 */
void mlx5sp_sim_hostile_cqes(struct mlx5sp_sim *sim, u32 count, u32 qpn);
/*
 * The next @count CQEs are written with the owner bit of the lap before:
 * never handed over to software, so the CQ stalls there.
 */
void mlx5sp_sim_stale_cqes(struct mlx5sp_sim *sim, u32 count);
/* The same for the next @count EQEs: their EQ stalls there. */
void mlx5sp_sim_stale_eqes(struct mlx5sp_sim *sim, u32 count);
/*
 * @count EQEs that lie, naming CQs, QPs and SRQs that live now (and a
 * few nobody has), command slots and page counts, seeded by @seed.
 * Returns how many were written.
 */
u32 mlx5sp_sim_hostile_eqes(struct mlx5sp_sim *sim, u32 count, u32 seed);
/* An EQE of any type and contents, to the EQ subscribed to @type. */
bool mlx5sp_sim_post_eqe(struct mlx5sp_sim *sim, u8 type, u8 sub_type,
			 const void *data, size_t len);

/*
 * Create a device on @netdev (may be NULL: no RoCE port netdev) and
 * attach it, as `rdma link add` does through the factory. Returns
 * ERR_PTR; mlx5sp_sim_destroy() detaches and frees it.
 */
struct mlx5sp_sim *mlx5sp_sim_create_on(const char *name,
					const struct mlx5sp_sim_params *p,
					struct net_device *netdev);

/*
 * The signature engine's throughput (bytes of data per second): a T10-DIF
 * checked and stripped transfer against crc_t10dif and memcpy alone over
 * the same buffers, @iters passes over @len bytes (512-byte blocks).
 */
struct mlx5sp_sim_sig_rate {
	u64 xfer_bps;
	u64 crc_bps;
	u64 copy_bps;
	u16 guard_xor;			/* keeps the CRC loop from vanishing */
};

int mlx5sp_sim_sig_bench(u32 len, u32 iters, struct mlx5sp_sim_sig_rate *r);

#endif /* MLX5SP_SIM_H */
