// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite: integrity MRs as kernel ULPs (nvmet-rdma, iSER, rdma_rw)
 * use them through ib_core on a model device, and signature pipelining
 * with them.
 *
 *  - good path: ib_alloc_mr_integrity, ib_map_mr_sg_pi (one entry each
 *    through the local DMA key, or page lists through the internal key),
 *    IB_WR_REG_MR_INTEGRITY, an RDMA WRITE through the integrity MR to a
 *    plain buffer of the peer: T10-DIF pass (metadata in its own buffer,
 *    PI on the wire), strip, wire-only insert, IP-checksum and CRC guards
 *    and a conversion between them; check_mr_status clean; LOCAL_INV and
 *    registration again with the next key.
 *  - bad path, the procedure of mlx5dv_qp_cancel_posted_send_wrs(3)
 *    through ib_core: transactions of an RDMA WRITE through an integrity
 *    MR and a fenced good response, some failing their check (guard, app
 *    tag, ref tag; corrupted PI or sig_inject), with sig_runon 0, 1 and
 *    several; IB_EVENT_SQ_DRAINED, check_mr_status, cancel of the bad
 *    responses, SQD->RTS, and what reached the peer.
 *  - errors: cancel outside SQD, unknown WR IDs, the QP to error with
 *    cancelled WRs, bad input to map_mr_sg_pi and REG_MR_INTEGRITY.
 */
#include <kunit/test.h>
#include <linux/crc-t10dif.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/unaligned.h>
#include <net/checksum.h>
#include <rdma/ib_verbs.h>

#include "ib.h"
#include "mlx5sp_ulp.h"
#include "sim/sig.h"
#include "sim/sim.h"
#include "kunit_ulp.h"

#define KI_BS		512
#define KI_PI		8
#define KI_DATA		(2 * PAGE_SIZE)	/* two pages of data */
#define KI_NBLK		(KI_DATA / KI_BS)
#define KI_PEER		(4 * PAGE_SIZE)
#define KI_NTX		4		/* transactions of the bad path */
#define KI_TX_DATA	(2 * KI_BS)	/* data of one transaction */
#define KI_TX_PEER	2048		/* peer bytes of one transaction */

/* A ULP with integrity QPs and its buffers: data pages, metadata, peer. */
struct ki {
	struct ulp *u;
	void *data[2];			/* one page each */
	u64 data_dma[2];
	void *meta;			/* 8 bytes of PI a block */
	u64 meta_dma;
	void *peer;			/* what qp[1]'s side receives */
	u64 peer_dma;
	void *expect;
	/*
	 * Receives at the peer: a cancelled response leaves one posted, so
	 * each takes the next 64-byte slot of buf[1] (the RQ is shallower
	 * than the 64 slots: a slot is free again when it is reused).
	 */
	u32 recv_seq;
	u32 recv_out;			/* posted, not completed */
};

#define KI_SLOTS	(ULP_BUF / 64)

/* Keep @n receives posted at the peer. */
static void ki_post_recvs(struct kunit *test, struct ki *k, u32 n)
{
	struct ib_sge sge = { .length = 64, .lkey = k->u->pd->local_dma_lkey };
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	u32 slot;

	while (k->recv_out < n) {
		slot = k->recv_seq++ % KI_SLOTS;
		sge.addr = k->u->dma[1] + slot * 64;
		wr.wr_id = 0x4000 + slot;
		KUNIT_ASSERT_EQ(test, ib_post_recv(k->u->qp[1], &wr, NULL), 0);
		k->recv_out++;
	}
}

static void ki_exit(void *arg)
{
	struct ki *k = arg;
	struct ib_device *ibdev = k->u->ibdev;
	int i;

	for (i = 0; i < 2; i++) {
		if (k->data_dma[i])
			ib_dma_unmap_single(ibdev, k->data_dma[i], PAGE_SIZE,
					    DMA_BIDIRECTIONAL);
		kfree(k->data[i]);
	}
	if (k->meta_dma)
		ib_dma_unmap_single(ibdev, k->meta_dma, PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	kfree(k->meta);
	if (k->peer_dma)
		ib_dma_unmap_single(ibdev, k->peer_dma, KI_PEER,
				    DMA_BIDIRECTIONAL);
	kfree(k->peer);
	kfree(k->expect);
}

static u64 ki_map(struct kunit *test, struct ki *k, void *p, size_t len)
{
	u64 dma = ib_dma_map_single(k->u->ibdev, p, len, DMA_BIDIRECTIONAL);

	KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(k->u->ibdev, dma));
	return dma;
}

static struct ki *ki_setup(struct kunit *test, u32 create_flags)
{
	struct ki *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->u = ulp_setup_flags(test, IB_QP_CREATE_INTEGRITY_EN | create_flags);
	KUNIT_ASSERT_TRUE(test, k->u->ibdev->attrs.kernel_cap_flags &
			  IBK_INTEGRITY_HANDOVER);
	KUNIT_EXPECT_TRUE(test, k->u->ibdev->attrs.sig_guard_cap &
			  IB_GUARD_T10DIF_CSUM);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, ki_exit, k));
	for (i = 0; i < 2; i++) {
		/* kmalloc of a page is page aligned: a page list can map it */
		k->data[i] = kzalloc(PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, k->data[i]);
		k->data_dma[i] = ki_map(test, k, k->data[i], PAGE_SIZE);
	}
	k->meta = kzalloc(PAGE_SIZE, GFP_KERNEL);
	k->peer = kzalloc(KI_PEER, GFP_KERNEL);
	k->expect = kzalloc(KI_PEER, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->meta);
	KUNIT_ASSERT_NOT_NULL(test, k->peer);
	KUNIT_ASSERT_NOT_NULL(test, k->expect);
	k->meta_dma = ki_map(test, k, k->meta, PAGE_SIZE);
	k->peer_dma = ki_map(test, k, k->peer, KI_PEER);
	return k;
}

static void ki_dereg_action(void *mr)
{
	ib_dereg_mr(mr);
}

/* An integrity MR deregistered with the test if it does not do it first. */
static struct ib_mr *ki_alloc_mr(struct kunit *test, struct ki *k, u32 nsg,
				 u32 nmeta)
{
	struct ib_mr *mr = ib_alloc_mr_integrity(k->u->pd, nsg, nmeta);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mr), "alloc: %ld", PTR_ERR(mr));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   ki_dereg_action, mr));
	return mr;
}

static void ki_dereg(struct kunit *test, struct ib_mr *mr)
{
	kunit_remove_action(test, ki_dereg_action, mr);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* Data byte @i of the two pages. */
static u8 *ki_data(struct ki *k, u32 i)
{
	return (u8 *)k->data[i / PAGE_SIZE] + i % PAGE_SIZE;
}

static void ki_fill(struct ki *k, u8 seed)
{
	u32 i;

	for (i = 0; i < KI_DATA; i++)
		*ki_data(k, i) = seed + i * 13 + (i >> 9);
}

static u16 ki_guard(enum ib_t10_dif_bg_type bg, const void *p, u32 len)
{
	if (bg == IB_T10DIF_CSUM)
		return be16_to_cpu((__force __be16)ip_compute_csum(p, len));
	return crc_t10dif(p, len);
}

static void ki_dif(struct ib_sig_domain *d, enum ib_t10_dif_bg_type bg,
		   u16 app, u32 ref)
{
	memset(d, 0, sizeof(*d));
	d->sig_type = IB_SIG_TYPE_T10_DIF;
	d->sig.dif.bg_type = bg;
	d->sig.dif.pi_interval = KI_BS;
	d->sig.dif.app_tag = app;
	d->sig.dif.ref_tag = ref;
	d->sig.dif.ref_remap = true;		/* type 1: ref tag + block */
	d->sig.dif.apptag_check_mask = 0xffff;
}

/* The PI of data block @blk (from data byte @first) in domain @d. */
static void ki_pi(const struct ib_sig_domain *d, struct ki *k, u32 first,
		  u32 blk, u8 *pi)
{
	u8 block[KI_BS];
	u32 i;

	for (i = 0; i < KI_BS; i++)
		block[i] = *ki_data(k, first + i);
	put_unaligned_be16(ki_guard(d->sig.dif.bg_type, block, KI_BS), pi);
	put_unaligned_be16(d->sig.dif.app_tag, pi + 2);
	put_unaligned_be32(d->sig.dif.ref_tag +
			   (d->sig.dif.ref_remap ? blk : 0), pi + 4);
}

/* Metadata for @nblk blocks of data from byte @first, at @meta. */
static void ki_meta(const struct ib_sig_domain *d, struct ki *k, u32 first,
		    u32 nblk, u8 *meta)
{
	u32 b;

	for (b = 0; b < nblk; b++)
		ki_pi(d, k, first + b * KI_BS, b, meta + b * KI_PI);
}

/*
 * What the wire carries for @len data bytes from @first: the data, and
 * after each block its PI in domain @w (none: data only).
 */
static u32 ki_wire(const struct ib_sig_domain *w, struct ki *k, u32 first,
		   u32 len, u8 *out)
{
	u32 b, n = 0;

	for (b = 0; b < len / KI_BS; b++) {
		memcpy(out + n, ki_data(k, first + b * KI_BS), KI_BS);
		n += KI_BS;
		if (w->sig_type == IB_SIG_TYPE_T10_DIF) {
			ki_pi(w, k, first + b * KI_BS, b, out + n);
			n += KI_PI;
		}
	}
	return n;
}

static void ki_sg(struct scatterlist *sg, u64 dma, u32 len)
{
	sg_dma_address(sg) = dma;
	sg_dma_len(sg) = len;
}

/* Map @len data bytes from @first (in @nents entries) and @meta_len of metadata. */
static int ki_map_pi(struct ki *k, struct ib_mr *mr, u32 first, u32 len,
		     int nents, u32 meta_off, u32 meta_len)
{
	struct scatterlist sg[2], msg;

	sg_init_table(sg, 2);
	sg_init_table(&msg, 1);
	if (nents == 2) {
		/* the two pages, each whole: a page list */
		ki_sg(&sg[0], k->data_dma[0], PAGE_SIZE);
		ki_sg(&sg[1], k->data_dma[1], len - PAGE_SIZE);
	} else {
		ki_sg(&sg[0], k->data_dma[0] + first, len);
	}
	ki_sg(&msg, k->meta_dma + meta_off, meta_len);
	return ib_map_mr_sg_pi(mr, sg, nents, NULL, meta_len ? &msg : NULL,
			       meta_len ? 1 : 0, NULL, PAGE_SIZE);
}

static void ki_reg_wr(struct ib_reg_wr *reg, struct ib_mr *mr, u64 wr_id,
		      int flags)
{
	memset(reg, 0, sizeof(*reg));
	reg->wr.wr_id = wr_id;
	reg->wr.opcode = IB_WR_REG_MR_INTEGRITY;
	reg->wr.send_flags = flags;
	reg->mr = mr;
	reg->key = mr->lkey;
	reg->access = IB_ACCESS_LOCAL_WRITE;
}

/* An RDMA WRITE of the wire bytes through @mr to the peer at @off. */
static void ki_write_wr(struct ib_rdma_wr *w, struct ib_sge *sge,
			struct ki *k, struct ib_mr *mr, u64 wr_id, u32 off,
			int flags)
{
	const struct ib_sig_attrs *sa = mr->sig_attrs;

	/* as rdma_rw_ctx_signature_init() sizes it */
	sge->addr = mr->iova;
	sge->length = mr->length;
	if (sa->wire.sig_type == IB_SIG_TYPE_NONE)
		sge->length -= sa->meta_length;
	sge->lkey = mr->lkey;
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = wr_id;
	w->wr.opcode = IB_WR_RDMA_WRITE;
	w->wr.sg_list = sge;
	w->wr.num_sge = 1;
	w->wr.send_flags = flags;
	w->remote_addr = k->peer_dma + off;
	w->rkey = k->u->pd->unsafe_global_rkey;
}

static void ki_expect_clean(struct kunit *test, struct ib_mr *mr)
{
	struct ib_mr_status st;

	KUNIT_EXPECT_EQ(test, ib_check_mr_status(mr, IB_MR_CHECK_SIG_STATUS,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.fail_status, 0u);
}

/*
 * One transfer: register @mr for @sa over the data (@nents entries), then
 * RDMA WRITE through it; the registration completes as IB_WC_REG_MR, the
 * peer holds what the wire domain says, and the MR is clean.
 */
static void ki_good(struct kunit *test, struct ki *k, struct ib_mr *mr,
		    const struct ib_sig_attrs *sa, int nents, u32 len)
{
	struct ib_reg_wr reg;
	struct ib_rdma_wr w;
	struct ib_sge sge;
	struct ib_wc wc[2];
	u32 nblk = len / KI_BS, wire_len;
	bool meta = sa->mem.sig_type == IB_SIG_TYPE_T10_DIF;

	memcpy(mr->sig_attrs, sa, sizeof(*sa));
	if (meta)
		ki_meta(&sa->mem, k, 0, nblk, k->meta);
	KUNIT_ASSERT_EQ(test, ki_map_pi(k, mr, 0, len, nents, 0,
					meta ? nblk * KI_PI : 0), 0);
	KUNIT_EXPECT_EQ(test, mr->iova, 0ULL);
	wire_len = ki_wire(&sa->wire, k, 0, len, k->expect);
	memset(k->peer, 0, KI_PEER);

	ki_reg_wr(&reg, mr, 1, IB_SEND_SIGNALED);
	ki_write_wr(&w, &sge, k, mr, 2, 0, IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, sge.length, wire_len);
	reg.wr.next = &w.wr;
	KUNIT_ASSERT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, poll_n(k->u, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 1ULL);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 2ULL);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(k->u->cq, 1, wc), 0);
	KUNIT_EXPECT_EQ(test, memcmp(k->peer, k->expect, wire_len), 0);
	KUNIT_EXPECT_EQ(test, ((u8 *)k->peer)[wire_len], 0);
	ki_expect_clean(test, mr);
}

/* Local invalidate and the next key, as rdma_rw does before reuse. */
static void ki_inv(struct kunit *test, struct ki *k, struct ib_mr *mr)
{
	struct ib_send_wr inv = { .wr_id = 9, .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc;

	inv.ex.invalidate_rkey = mr->lkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(k->u->qp[0], &inv, NULL), 0);
	KUNIT_ASSERT_EQ(test, poll_n(k->u, &wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 9ULL);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
}

static void integrity_good(struct kunit *test)
{
	struct ki *k = ki_setup(test, 0);
	struct ib_sig_attrs sa = {};
	struct ib_mr *mr;

	mr = ki_alloc_mr(test, k, 4, 4);
	ki_fill(k, 3);

	/* pass: metadata in its own buffer, PI on the wire, page lists */
	sa.check_mask = 0xff;
	ki_dif(&sa.mem, IB_T10DIF_CRC, 0x1234, 0x100);
	sa.wire = sa.mem;
	ki_good(test, k, mr, &sa, 2, KI_DATA);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)KI_DATA + KI_NBLK * KI_PI);
	KUNIT_EXPECT_EQ(test, mr->sig_attrs->meta_length, KI_NBLK * KI_PI);

	/* again after LOCAL_INV, the next key; strip: data only on the wire */
	ki_inv(test, k, mr);
	ki_fill(k, 50);
	memset(&sa.wire, 0, sizeof(sa.wire));
	ki_good(test, k, mr, &sa, 1, PAGE_SIZE);

	/* wire-only insert: no metadata in memory */
	ki_inv(test, k, mr);
	memset(&sa, 0, sizeof(sa));
	ki_dif(&sa.wire, IB_T10DIF_CRC, 0x0042, 0x7000);
	ki_good(test, k, mr, &sa, 1, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)PAGE_SIZE +
			PAGE_SIZE / KI_BS * KI_PI);

	/* IP checksum guards, both domains, page lists */
	ki_inv(test, k, mr);
	ki_fill(k, 99);
	sa.check_mask = 0xff;
	ki_dif(&sa.mem, IB_T10DIF_CSUM, 0xbeef, 0x20);
	sa.wire = sa.mem;
	ki_good(test, k, mr, &sa, 2, KI_DATA);

	/* checksum in memory, CRC on the wire: a guard conversion */
	ki_inv(test, k, mr);
	ki_dif(&sa.wire, IB_T10DIF_CRC, 0xbeef, 0x20);
	ki_good(test, k, mr, &sa, 1, PAGE_SIZE);

	/* a registration that is not signalled completes nothing */
	ki_inv(test, k, mr);
	{
		struct ib_reg_wr reg;
		struct ib_wc wc;

		ki_reg_wr(&reg, mr, 3, 0);
		KUNIT_ASSERT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL),
				0);
		ki_inv(test, k, mr);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(k->u->cq, 1, &wc), 0);
	}
	ki_dereg(test, mr);
}

/* ---- the bad path: signature pipelining ------------------------------ */

enum ki_bad {
	KI_OK,
	KI_GUARD,		/* corrupted guard in the metadata */
	KI_APPTAG,
	KI_REFTAG,
	KI_INJECT_GUARD,	/* sig_inject */
	KI_INJECT_APPTAG,
	KI_INJECT_REFTAG,
};

static enum ib_sig_err_type ki_bad_type(enum ki_bad b)
{
	switch (b) {
	case KI_APPTAG:
	case KI_INJECT_APPTAG:
		return IB_SIG_BAD_APPTAG;
	case KI_REFTAG:
	case KI_INJECT_REFTAG:
		return IB_SIG_BAD_REFTAG;
	default:
		return IB_SIG_BAD_GUARD;
	}
}

struct ki_tx {
	struct ib_mr *mr;
	struct ib_reg_wr reg;
	struct ib_rdma_wr write;
	struct ib_sge wsge;
	struct ib_send_wr resp;
	struct ib_sge rsge;
	enum ki_bad bad;
	bool sig_err;		/* check_mr_status reported it */
	enum ib_sig_err_type err_type;
	u32 err_key;
	int cancelled;
	bool resp_done;
};

#define KI_RESP_ID(i)	(0x3000ULL + (i))

/* Register and fill transaction @i's MR and WRs. */
static void ki_tx_prepare(struct kunit *test, struct ki *k, struct ki_tx *t,
			  int i, struct ib_sig_attrs *sa)
{
	u32 first = i * KI_TX_DATA, nblk = KI_TX_DATA / KI_BS;
	u8 *meta = k->meta + i * nblk * KI_PI;
	char line[64];

	memcpy(t->mr->sig_attrs, sa, sizeof(*sa));
	ki_meta(&sa->mem, k, first, nblk, meta);
	switch (t->bad) {
	case KI_GUARD:
		meta[KI_PI] ^= 0x5a;			/* block 1's guard */
		break;
	case KI_APPTAG:
		meta[KI_PI + 2] ^= 0x01;
		break;
	case KI_REFTAG:
		meta[KI_PI + 7] ^= 0x80;
		break;
	default:
		break;
	}
	KUNIT_ASSERT_EQ(test, ki_map_pi(k, t->mr, first, KI_TX_DATA, 1,
					i * nblk * KI_PI, nblk * KI_PI), 0);
	ki_reg_wr(&t->reg, t->mr, 0x1000 + i, 0);
	ki_write_wr(&t->write, &t->wsge, k, t->mr, 0x2000 + i,
		    i * KI_TX_PEER, 0);
	/* the good response: a SEND of 64 bytes naming the transaction */
	memset(k->u->buf[0] + i * 64, 0xa0 + i, 64);
	t->rsge.addr = k->u->dma[0] + i * 64;
	t->rsge.length = 64;
	t->rsge.lkey = k->u->pd->local_dma_lkey;
	memset(&t->resp, 0, sizeof(t->resp));
	t->resp.wr_id = KI_RESP_ID(i);
	t->resp.opcode = IB_WR_SEND;
	t->resp.sg_list = &t->rsge;
	t->resp.num_sge = 1;
	t->resp.send_flags = IB_SEND_SIGNALED | IB_SEND_FENCE;
	if (t->bad >= KI_INJECT_GUARD) {
		static const char * const kind[] = { "guard", "apptag",
						     "reftag" };

		snprintf(line, sizeof(line), "mkey=0x%x nth=1 kind=%s",
			 t->mr->lkey, kind[t->bad - KI_INJECT_GUARD]);
		KUNIT_ASSERT_EQ(test, sim_sig_inject_parse(k->u->sim, line), 0);
	}
}

/* Poll everything there is now; responses and receives are recorded. */
static void ki_poll_all(struct kunit *test, struct ki *k, struct ki_tx *tx,
			u8 *order, int *nrecv)
{
	struct ib_wc wc;
	int i;

	while (ib_poll_cq(k->u->cq, 1, &wc) == 1) {
		KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_SUCCESS,
				    "wr_id 0x%llx", wc.wr_id);
		if (wc.qp == k->u->qp[1]) {
			KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
			k->recv_out--;
			if (*nrecv < KI_NTX) {
				i = wc.wr_id - 0x4000;
				order[(*nrecv)++] =
					((u8 *)k->u->buf[1])[i * 64];
			}
			continue;
		}
		i = wc.wr_id - KI_RESP_ID(0);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
		if (i >= 0 && i < KI_NTX) {
			KUNIT_EXPECT_FALSE(test, tx[i].resp_done);
			tx[i].resp_done = true;
		} else {
			KUNIT_FAIL(test, "unexpected completion 0x%llx",
				   wc.wr_id);
		}
	}
}

/* The SQ stopped: find the failed transactions, cancel their responses. */
static void ki_handle_sqd(struct kunit *test, struct ki *k, struct ki_tx *tx)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RTS };
	struct ib_mr_status st;
	int i;

	for (i = 0; i < KI_NTX; i++) {
		if (tx[i].sig_err || tx[i].resp_done)
			continue;
		KUNIT_ASSERT_EQ(test, ib_check_mr_status(tx[i].mr,
							 IB_MR_CHECK_SIG_STATUS,
							 &st), 0);
		if (!(st.fail_status & IB_MR_CHECK_SIG_STATUS))
			continue;
		tx[i].sig_err = true;
		tx[i].err_type = st.sig_err.err_type;
		tx[i].err_key = st.sig_err.key;
		tx[i].cancelled = mlx5sp_qp_cancel_send_wrs(k->u->qp[0],
							    KI_RESP_ID(i));
	}
	/* the modify finds the QP in SQD: SQD->RTS */
	KUNIT_ASSERT_EQ(test, ib_modify_qp(k->u->qp[0], &a, IB_QP_STATE), 0);
}

/*
 * KI_NTX transactions, posted together: per transaction (registration,
 * WRITE, fenced response) or all transfers first and the responses after
 * them (so that with a run-on the SQ goes on past a failed transfer).
 */
static void ki_pipeline(struct kunit *test, struct ki *k, u8 runon,
			bool grouped, const enum ki_bad *bad)
{
	struct ki_tx *tx = kunit_kcalloc(test, KI_NTX, sizeof(*tx), GFP_KERNEL);
	struct ib_send_wr *head = NULL, **tail = &head;
	struct ib_sig_attrs sa = { .check_mask = 0xff };
	int i, nrecv = 0, ngood = 0, handled = 0, drained0, nbad = 0;
	u8 order[KI_NTX] = {};
	struct ib_mr_status st;
	unsigned long end;
	bool done;

	KUNIT_ASSERT_NOT_NULL(test, tx);
	WRITE_ONCE(k->u->sim->knobs.sig_runon, runon);
	ki_dif(&sa.mem, IB_T10DIF_CRC, 0x0a0a, 0x40);
	sa.wire = sa.mem;
	ki_fill(k, runon * 7 + grouped);
	memset(k->u->buf[1], 0, ULP_BUF);
	memset(k->peer, 0, KI_PEER);
	ki_post_recvs(test, k, KI_NTX);
	for (i = 0; i < KI_NTX; i++) {
		tx[i].mr = ki_alloc_mr(test, k, 1, 1);
		tx[i].bad = bad[i];
		ki_tx_prepare(test, k, &tx[i], i, &sa);
		if (bad[i])
			nbad++;
		else
			ngood++;
	}
	for (i = 0; i < KI_NTX; i++) {
		*tail = &tx[i].reg.wr;
		tx[i].reg.wr.next = &tx[i].write.wr;
		tail = &tx[i].write.wr.next;
		if (!grouped) {
			*tail = &tx[i].resp;
			tail = &tx[i].resp.next;
		}
	}
	for (i = 0; grouped && i < KI_NTX; i++) {
		*tail = &tx[i].resp;
		tail = &tx[i].resp.next;
	}
	*tail = NULL;

	drained0 = atomic_read(&k->u->sq_drained);
	KUNIT_ASSERT_EQ(test, ib_post_send(k->u->qp[0], head, NULL), 0);
	end = jiffies + msecs_to_jiffies(ULP_TIMEOUT_MS);
	do {
		/* 1. poll everything: the SIGERR CQEs are consumed too */
		ki_poll_all(test, k, tx, order, &nrecv);
		if (atomic_read(&k->u->sq_drained) - drained0 > handled) {
			handled++;
			ki_poll_all(test, k, tx, order, &nrecv);
			ki_handle_sqd(test, k, tx);
		}
		done = nrecv == ngood;
		for (i = 0; i < KI_NTX; i++)
			done &= tx[i].resp_done;
		if (!done)
			usleep_range(500, 1000);
	} while (!done && time_before(jiffies, end));
	KUNIT_ASSERT_TRUE_MSG(test, done, "runon %u grouped %d: %d of %d received, drained %d",
			      runon, grouped, nrecv, ngood, handled);
	/* nothing more: no late receive of a cancelled response */
	msleep(20);
	ki_poll_all(test, k, tx, order, &nrecv);
	KUNIT_EXPECT_EQ(test, nrecv, ngood);

	/* a response right after each transfer: one stop per failed one */
	if (!grouped)
		KUNIT_EXPECT_EQ(test, handled, nbad);
	else if (nbad)
		KUNIT_EXPECT_GE(test, handled, 1);
	else
		KUNIT_EXPECT_EQ(test, handled, 0);
	for (i = 0; i < KI_NTX; i++) {
		KUNIT_EXPECT_EQ_MSG(test, tx[i].sig_err, !!bad[i], "tx %d", i);
		if (bad[i]) {
			KUNIT_EXPECT_EQ_MSG(test, tx[i].err_type,
					    ki_bad_type(bad[i]), "tx %d", i);
			KUNIT_EXPECT_EQ(test, tx[i].err_key, tx[i].mr->lkey);
			KUNIT_EXPECT_EQ_MSG(test, tx[i].cancelled, 1, "tx %d", i);
		}
		/* reported once: clean now */
		ki_expect_clean(test, tx[i].mr);
		/* the data moved all the same, with its PI */
		KUNIT_EXPECT_EQ_MSG(test, ki_wire(&sa.wire, k, i * KI_TX_DATA,
						  KI_TX_DATA, k->expect),
				    KI_TX_DATA + 2 * KI_PI, "tx %d", i);
		if (!bad[i])
			KUNIT_EXPECT_EQ_MSG(test, memcmp(k->peer + i * KI_TX_PEER,
							 k->expect,
							 KI_TX_DATA + 2 * KI_PI),
					    0, "tx %d", i);
	}
	/* the good responses arrived, in order; no cancelled one did */
	for (i = 0; i < nrecv; i++) {
		int n = order[i] - 0xa0;

		KUNIT_EXPECT_TRUE_MSG(test, n >= 0 && n < KI_NTX && !bad[n],
				      "received response of tx %d", n);
	}
	for (i = 0; i < KI_NTX; i++) {
		KUNIT_EXPECT_EQ(test, ib_check_mr_status(tx[i].mr,
							 IB_MR_CHECK_SIG_STATUS,
							 &st), 0);
		ki_dereg(test, tx[i].mr);
	}
	sim_sig_inject_parse(k->u->sim, "off");
}

/* After it all, the QP carries traffic: a transaction and its response. */
static void ki_more_traffic(struct kunit *test, struct ki *k)
{
	struct ib_sig_attrs sa = { .check_mask = 0xff };
	struct ib_mr *mr = ki_alloc_mr(test, k, 2, 1);

	ki_fill(k, 77);
	ki_dif(&sa.mem, IB_T10DIF_CRC, 1, 2);
	sa.wire = sa.mem;
	ki_good(test, k, mr, &sa, 2, KI_DATA);
	ki_dereg(test, mr);
}

static void integrity_pipelining(struct kunit *test)
{
	static const enum ki_bad none[KI_NTX] = {};
	static const enum ki_bad one[KI_NTX] = { KI_OK, KI_GUARD, KI_OK, KI_OK };
	static const enum ki_bad kinds[KI_NTX] = {
		KI_APPTAG, KI_OK, KI_REFTAG, KI_GUARD };
	static const enum ki_bad inj_g[KI_NTX] = {
		KI_OK, KI_OK, KI_INJECT_GUARD, KI_APPTAG };
	static const enum ki_bad inj_a[KI_NTX] = {
		KI_INJECT_APPTAG, KI_OK, KI_OK, KI_OK };
	static const enum ki_bad inj_r[KI_NTX] = {
		KI_OK, KI_REFTAG, KI_OK, KI_INJECT_REFTAG };
	struct ki *k = ki_setup(test, MLX5SP_QP_CREATE_SIG_PIPELINING);
	static const u8 runons[] = { 0, 1, 6 };
	int r;

	ki_pipeline(test, k, 0, false, none);
	for (r = 0; r < ARRAY_SIZE(runons); r++) {
		ki_pipeline(test, k, runons[r], false, one);
		ki_pipeline(test, k, runons[r], true, one);
		ki_pipeline(test, k, runons[r], false, kinds);
		ki_pipeline(test, k, runons[r], true, kinds);
	}
	ki_pipeline(test, k, 0, false, inj_g);
	ki_pipeline(test, k, 1, true, inj_a);
	ki_pipeline(test, k, 6, true, inj_r);
	ki_more_traffic(test, k);
	WRITE_ONCE(k->u->sim->knobs.sig_runon, 0);
}

/* ---- errors ------------------------------------------------------------ */

/* Stopped by a signature error, responses cancelled, then the QP to ERR. */
static void integrity_cancel_err(struct kunit *test)
{
	struct ki *k = ki_setup(test, MLX5SP_QP_CREATE_SIG_PIPELINING);
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct ib_sig_attrs sa = { .check_mask = 0xff };
	struct ki_tx *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ib_wc wc, wcs[2];
	struct ib_mr_status st;
	unsigned long end;

	KUNIT_ASSERT_NOT_NULL(test, t);
	/* not stopped: nothing to cancel from */
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(k->u->qp[0], 1),
			-EINVAL);
	t->mr = ki_alloc_mr(test, k, 1, 1);
	ki_dif(&sa.mem, IB_T10DIF_CRC, 3, 4);
	sa.wire = sa.mem;
	ki_fill(k, 1);
	t->bad = KI_GUARD;
	ki_tx_prepare(test, k, t, 0, &sa);
	t->reg.wr.next = &t->write.wr;
	t->write.wr.next = &t->resp;
	KUNIT_ASSERT_EQ(test, ib_post_send(k->u->qp[0], &t->reg.wr, NULL), 0);
	end = jiffies + msecs_to_jiffies(ULP_TIMEOUT_MS);
	while (!atomic_read(&k->u->sq_drained) && time_before(jiffies, end))
		usleep_range(500, 1000);
	KUNIT_ASSERT_EQ(test, atomic_read(&k->u->sq_drained), 1);
	/* the SIGERR CQE is no work completion */
	KUNIT_EXPECT_EQ(test, ib_poll_cq(k->u->cq, 1, &wc), 0);
	KUNIT_ASSERT_EQ(test, ib_check_mr_status(t->mr, IB_MR_CHECK_SIG_STATUS,
						 &st), 0);
	KUNIT_EXPECT_EQ(test, st.fail_status, (u32)IB_MR_CHECK_SIG_STATUS);
	KUNIT_EXPECT_EQ(test, st.sig_err.err_type, IB_SIG_BAD_GUARD);
	KUNIT_EXPECT_EQ(test, st.sig_err.key, t->mr->lkey);
	/* expected and actual: the corrupted guard and the right one */
	KUNIT_EXPECT_TRUE(test, (st.sig_err.expected ^ st.sig_err.actual) ==
			  0x5a00 || (st.sig_err.expected ^ st.sig_err.actual) ==
			  0x005a);
	ki_expect_clean(test, t->mr);
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(k->u->qp[0], 0x777), 0);
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(k->u->qp[0],
							KI_RESP_ID(0)), 1);
	/* a WR cancelled already is not cancelled again */
	KUNIT_EXPECT_EQ(test, mlx5sp_qp_cancel_send_wrs(k->u->qp[0],
							KI_RESP_ID(0)), 0);
	/* a registration (several WQEs) posted while stopped: flushed once */
	ki_reg_wr(&t->reg, t->mr, 0x1111, IB_SEND_SIGNALED);
	KUNIT_ASSERT_EQ(test, ib_post_send(k->u->qp[0], &t->reg.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(k->u->qp[0], &a, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, poll_n(k->u, wcs, 2), 2);
	KUNIT_EXPECT_EQ(test, wcs[0].wr_id, KI_RESP_ID(0));
	KUNIT_EXPECT_EQ(test, wcs[0].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, wcs[1].wr_id, 0x1111ULL);
	KUNIT_EXPECT_EQ(test, wcs[1].status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_EQ(test, ((u8 *)k->u->buf[1])[0], 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(k->u->cq, 1, &wc), 0);
	ki_dereg(test, t->mr);
}

static void integrity_bad_input(struct kunit *test)
{
	struct ki *k = ki_setup(test, 0);
	struct ib_sig_attrs sa = { .check_mask = 0xff };
	struct ib_sge sge = { .length = 8 };
	struct ib_qp_init_attr qa = {};
	struct scatterlist sg[9];
	struct ib_reg_wr reg;
	struct ib_mr *mr;
	struct ib_qp *qp;
	int i;

	mr = ib_alloc_mr_integrity(k->u->pd, 1, MLX5SP_MAX_FRWR_PAGES);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_alloc_mr_integrity(k->u->pd, 0, 1)),
			-EINVAL);
	mr = ki_alloc_mr(test, k, 2, 1);
	ki_dif(&sa.mem, IB_T10DIF_CRC, 1, 1);
	sa.wire = sa.mem;
	memcpy(mr->sig_attrs, &sa, sizeof(sa));

	/* more pages than the MR has (3, rounded up to 8), gaps, nothing */
	sg_init_table(sg, 9);
	for (i = 0; i < 9; i++)
		ki_sg(&sg[i], k->data_dma[i & 1], PAGE_SIZE);
	KUNIT_EXPECT_LT(test, ib_map_mr_sg_pi(mr, sg, 9, NULL, NULL, 0, NULL,
					      PAGE_SIZE), 0);
	ki_sg(&sg[0], k->data_dma[0], 100);
	ki_sg(&sg[1], k->data_dma[1], 100);
	KUNIT_EXPECT_LT(test, ib_map_mr_sg_pi(mr, sg, 2, NULL, NULL, 0, NULL,
					      PAGE_SIZE), 0);
	KUNIT_EXPECT_LT(test, ib_map_mr_sg_pi(mr, sg, 0, NULL, NULL, 0, NULL,
					      PAGE_SIZE), 0);
	/* plain fast registration does not map an integrity MR */
	KUNIT_EXPECT_LT(test, ib_map_mr_sg(mr, sg, 1, NULL, PAGE_SIZE), 0);
	/* failed maps leave nothing to register */
	ki_reg_wr(&reg, mr, 5, IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);

	/* bad sig attrs at REG_MR_INTEGRITY, failing at post */
	ki_meta(&sa.mem, k, 0, 8, k->meta);
	KUNIT_ASSERT_EQ(test, ki_map_pi(k, mr, 0, PAGE_SIZE, 1, 0, 64), 0);
	mr->sig_attrs->mem.sig.dif.pi_interval = 1000;
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	mr->sig_attrs->mem = sa.mem;
	mr->sig_attrs->wire.sig.dif.bg_type = 7;
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	mr->sig_attrs->wire = sa.wire;
	mr->sig_attrs->mem.sig_type = 9;
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	mr->sig_attrs->mem = sa.mem;
	/* protected memory without metadata */
	KUNIT_ASSERT_EQ(test, ki_map_pi(k, mr, 0, PAGE_SIZE, 1, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	KUNIT_ASSERT_EQ(test, ki_map_pi(k, mr, 0, PAGE_SIZE, 1, 0, 64), 0);
	/* a key of another index, remote atomics, a scatter list */
	reg.key = mr->lkey + 0x100;
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	reg.key = mr->lkey;
	reg.access |= IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	reg.access = IB_ACCESS_LOCAL_WRITE;
	reg.wr.num_sge = 1;
	reg.wr.sg_list = &sge;
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	reg.wr.num_sge = 0;

	/* good now: registered once; again without a status check fails */
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), -EINVAL);
	{
		struct ib_wc wc;

		KUNIT_ASSERT_EQ(test, poll_n(k->u, &wc, 1), 1);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 5ULL);
	}
	ki_expect_clean(test, mr);
	KUNIT_EXPECT_EQ(test, ib_check_mr_status(mr, 0x80, NULL), -EINVAL);

	/* a QP without integrity, an integrity UD QP */
	qa.send_cq = k->u->cq;
	qa.recv_cq = k->u->cq;
	qa.qp_type = IB_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp = ib_create_qp(k->u->pd, &qa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_FALSE(test, qp->integrity_en);
	ib_destroy_qp(qp);
	qa.qp_type = IB_QPT_UD;
	qa.create_flags = IB_QP_CREATE_INTEGRITY_EN;
	qp = ib_create_qp(k->u->pd, &qa);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EOPNOTSUPP);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);

	ki_dereg(test, mr);

	/*
	 * An integrity MR of another PD: the UMR, the first WQE of the WR,
	 * fails in the device and the WR completes once, in error; the WQEs
	 * after it (SET_PSV) are flushed without another completion.
	 */
	{
		struct ib_pd *pd2 = ib_alloc_pd(k->u->ibdev, 0);
		struct ib_wc wc[2];

		KUNIT_ASSERT_FALSE(test, IS_ERR(pd2));
		mr = ib_alloc_mr_integrity(pd2, 1, 1);
		KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
		memcpy(mr->sig_attrs, &sa, sizeof(sa));
		KUNIT_EXPECT_EQ(test, ki_map_pi(k, mr, 0, PAGE_SIZE, 1, 0, 64), 0);
		ki_reg_wr(&reg, mr, 6, IB_SEND_SIGNALED);
		KUNIT_EXPECT_EQ(test, ib_post_send(k->u->qp[0], &reg.wr, NULL), 0);
		KUNIT_EXPECT_EQ(test, poll_n(k->u, wc, 1), 1);
		KUNIT_EXPECT_EQ(test, wc[0].wr_id, 6ULL);
		KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_LOC_PROT_ERR);
		msleep(20);
		KUNIT_EXPECT_EQ(test, ib_poll_cq(k->u->cq, 2, wc), 0);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
		ib_dealloc_pd(pd2);
	}
}

static struct kunit_case integrity_cases[] = {
	KUNIT_CASE_SLOW(integrity_good),
	KUNIT_CASE_SLOW(integrity_pipelining),
	KUNIT_CASE_SLOW(integrity_cancel_err),
	KUNIT_CASE_SLOW(integrity_bad_input),
	{}
};

static struct kunit_suite integrity_suite = {
	.name = "mlx5sp_integrity",
	.test_cases = integrity_cases,
};

kunit_test_suite(integrity_suite);
