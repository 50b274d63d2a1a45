// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A message from a gather list to a scatter list when an entry on either
 * side is a signature key. The message is a stream of wire bytes: an entry
 * through a signature key produces them from its memory domain (gathered
 * from: check, strip, insert per its BSF) or turns them into its memory
 * domain (scattered to); a plain entry is wire bytes as they are. The wire
 * bytes pass through the engine's wire buffer a chunk at a time: the
 * source side fills it, the destination side drains it.
 *
 * An entry through a signature key is one transfer of the signature
 * engine (sim_sig_begin/xfer/end; an injected error counts these), from a
 * block boundary of its wire domain. Lengths through it are wire bytes:
 * when the wire carries PI and a gather entry ends right after a block's
 * data, the block's PI is not sent. The first error of each such entry is
 * logged for the caller, who writes the SIGERR CQE to the right CQ. Data
 * errors never stop the data.
 *
 * Runs in an engine thread under rcu_read_lock(), like the rest of the
 * data path.
 */

#include <kunit/visibility.h>
#include <linux/lcm.h>

#include "cq.h"
#include "engine.h"
#include "mkey.h"
#include "sgl.h"
#include "sig.h"
#include "sim.h"

/* The memory domain of a signature key as a byte stream. */
struct sim_key_iter {
	struct sim_sig_iter it;
	struct mlx5sp_sim *sim;
	const struct sim_mkey *mk;
	u64 va;
	u64 end;
};

/* Where the output of a gather entry goes: the wire, then nowhere. */
struct sim_wire_sink {
	struct sim_sig_iter it;
	u8 *p;
	u32 budget;			/* wire bytes this entry may still add */
	u32 put;			/* wire bytes handed out */
	bool spilled;			/* the window is spill now */
	u8 spill[16];			/* PI past the entry's end */
};

/* One side of the transfer and its signature entry, if it is in one. */
struct sim_xside {
	struct mlx5sp_sim *sim;
	struct sim_cur *c;
	bool dst;
	bool active;			/* in an entry through a signature key */
	struct sim_sig_ctx ctx;
	struct sim_key_iter mem;
	u64 mem_left;			/* gather: memory bytes still to read */
	u64 msg_left;			/* gather: wire bytes of the message */
	u32 mkey;
};

static int sim_key_refill(struct sim_sig_iter *it)
{
	struct sim_key_iter *k = container_of(it, struct sim_key_iter, it);
	u32 len;
	void *p;

	if (k->va >= k->end)
		return -EFAULT;
	len = min_t(u64, k->end - k->va, U32_MAX);
	p = sim_mkey_map(k->sim, k->mk, k->va, &len);
	if (!p)
		return -EFAULT;
	it->p = p;
	it->avail = len;
	k->va += len;
	return 0;
}

static int sim_wire_sink_refill(struct sim_sig_iter *it)
{
	struct sim_wire_sink *w = container_of(it, struct sim_wire_sink, it);

	if (w->budget) {
		it->p = w->p + w->put;
		it->avail = w->budget;
		w->put += w->budget;
		w->budget = 0;
		return 0;
	}
	it->p = w->spill;
	it->avail = sizeof(w->spill);
	w->spilled = true;
	return 0;
}

static void sim_xfer_log(struct sim_xside *x, struct sim_sig_log *log)
{
	const struct sim_sig_err *err = sim_sig_first_err(&x->ctx);
	struct sim_sig_hit *h;

	if (!err || log->n >= SIM_SIG_MAX_HITS)
		return;
	h = &log->hit[log->n++];
	h->dst = x->dst;
	h->mkey = x->mkey;
	h->err = *err;
}

/*
 * Start the transfer of the entry at the cursor through a signature key,
 * from the cursor's place in it: a block boundary of both domains (a
 * message cut in chunks, sim_xfer_cut()).
 */
static int sim_xside_begin(struct sim_xside *x, const struct sim_sge *sge)
{
	const struct sim_sig_domain *w, *m;
	u64 start, mem_len, off, data, moff;
	u64 va = sge->va + x->c->off;
	struct mlx5_bsf bsf;
	int err;

	if (!sim_mkey_sig_snapshot(sge->mk, &bsf, &start, &mem_len) ||
	    va < start)
		return -EFAULT;
	x->mkey = sim_mkey_key(sge->mk);
	err = sim_sig_begin(x->sim, &x->ctx, x->mkey, &bsf,
			    x->dst ? SIM_SIG_WIRE_TO_MEM : SIM_SIG_MEM_TO_WIRE);
	if (err)
		return err;
	w = &x->ctx.dom[SIM_SIG_WIRE];
	m = &x->ctx.dom[SIM_SIG_MEM];
	off = va - start;
	if (w->type &&
	    do_div(off, w->block_size + w->pi_size))
		return -EINVAL;
	data = w->type ? off * w->block_size : va - start;
	if (m->type && data % m->block_size)
		return -EINVAL;
	err = sim_sig_ctx_seek(&x->ctx, data);
	if (err)
		return err;
	moff = sim_sig_dom_bytes(m, data);
	x->mem.it.p = NULL;
	x->mem.it.avail = 0;
	x->mem.it.refill = sim_key_refill;
	x->mem.sim = x->sim;
	x->mem.mk = sge->mk;
	x->mem.va = start + moff;
	x->mem.end = start + mem_len;
	/* a gather's: up to the message's end if it ends in the entry */
	data = min_t(u64, sge->len - x->c->off, x->msg_left);
	x->mem_left = sim_sig_dom_bytes(m, sim_sig_dom_data(w, data));
	x->active = true;
	return 0;
}

static void sim_xside_end(struct sim_xside *x, struct sim_sig_log *log)
{
	sim_sig_end(x->sim, &x->ctx);
	sim_xfer_log(x, log);
	x->active = false;
}

/*
 * The entry at the cursor with room left in it: NULL at the end of the
 * list. Starts a signature entry's transfer when the cursor enters it.
 */
static const struct sim_sge *sim_xside_entry(struct sim_xside *x,
					     struct sim_sig_log *log, int *err)
{
	struct sim_cur *c = x->c;
	const struct sim_sge *sge;

	*err = 0;
	while (c->i < c->n && c->off == c->sge[c->i].len) {
		if (x->active)
			sim_xside_end(x, log);
		c->i++;
		c->off = 0;
	}
	if (c->i >= c->n)
		return NULL;
	sge = &c->sge[c->i];
	/* from its start, or from a block boundary (-EINVAL elsewhere) */
	if (sge->sig && !x->active)
		*err = sim_xside_begin(x, sge);
	return *err ? NULL : sge;
}

/*
 * Feed @m memory bytes of the gather entry at the cursor through its
 * context: the output goes to the wire buffer at @wire (at most @budget
 * bytes), the rest (PI past the entry's wire end) nowhere. Returns the
 * wire bytes written or a negative errno.
 */
static s64 sim_xside_gather(struct sim_xside *x, u8 *wire, u32 budget, u64 m)
{
	struct sim_wire_sink sink = {
		.it.refill = sim_wire_sink_refill,
		.p = wire,
		.budget = budget,
	};
	s64 n;

	n = sim_sig_xfer(&x->ctx, &sink.it, &x->mem.it, m);
	if (n < 0)
		return n;
	x->mem_left -= m;
	/* still in the wire window: what it left unwritten was not sent */
	if (!sink.spilled)
		return sink.put - sink.it.avail;
	return sink.put;
}

/*
 * Gather up to @cap wire bytes into the wire buffer, @left the message's
 * wire bytes still to come (a message may end inside an entry: a chunk).
 */
static s64 sim_xfer_fill(struct sim_xside *x, u8 *wire, u32 cap, u64 left,
			 struct sim_sig_log *log)
{
	const struct sim_sig_domain *out;
	const struct sim_sge *sge;
	u32 got = 0, l, room;
	u64 m;
	s64 n;
	void *p;
	int err;

	while (got < cap) {
		x->msg_left = left - got;
		sge = sim_xside_entry(x, log, &err);
		if (!sge)
			return err ?: -EFAULT;
		if (!sge->sig) {
			l = cap - got;
			p = sim_cur_map(x->sim, x->c, &l);
			if (!p)
				return -EFAULT;
			memcpy(wire + got, p, l);
			x->c->off += l;
			got += l;
			continue;
		}
		/*
		 * As much memory as surely fits in the buffer: the output has
		 * at most one PI per block started, and one pending.
		 */
		room = SIM_WIRE_BUF - got;
		out = &x->ctx.dom[SIM_SIG_WIRE];
		m = room;
		if (out->type) {
			l = out->pi_size * (room / out->block_size + 2);
			m = room > l ? room - l : 0;
		}
		m = min(m, x->mem_left);
		if (!m)
			break;		/* drain the buffer first */
		n = sim_xside_gather(x, wire + got,
				     min_t(u64, min(cap - got, room),
					   sge->len - x->c->off), m);
		if (n < 0)
			return n;
		x->c->off += n;
		got += n;
		/* the entry's wire bytes are out: its last PI is read too */
		if (x->c->off == sge->len && x->mem_left) {
			n = sim_xside_gather(x, NULL, 0, x->mem_left);
			if (n < 0)
				return n;
		}
		if (!x->mem_left && x->c->off < sge->len)
			return -EFAULT;	/* the key's memory ended early */
	}
	return got;
}

/* Scatter @len wire bytes from the wire buffer. */
static int sim_xfer_drain(struct sim_xside *x, u8 *wire, u32 len,
			  struct sim_sig_log *log)
{
	struct sim_sig_buf_iter src;
	const struct sim_sge *sge;
	u32 l;
	s64 n;
	void *p;
	int err;

	while (len) {
		sge = sim_xside_entry(x, log, &err);
		if (!sge)
			return err ?: -EFAULT;
		l = min_t(u64, len, sge->len - x->c->off);
		if (!sge->sig) {
			p = sim_cur_map(x->sim, x->c, &l);
			if (!p)
				return -EFAULT;
			memcpy(p, wire, l);
		} else {
			sim_sig_buf_iter_init(&src, wire, l);
			n = sim_sig_xfer(&x->ctx, &x->mem.it, &src.it, l);
			if (n < 0)
				return n;
		}
		x->c->off += l;
		wire += l;
		len -= l;
	}
	return 0;
}

static bool sim_cur_has_sig(const struct sim_cur *c)
{
	u32 i;

	for (i = 0; i < c->n; i++)
		if (c->sge[i].sig)
			return true;
	return false;
}

/**
 * sim_xfer - move a message of @len wire bytes from @s to @d
 * @eng: the engine running it (its wire buffer)
 * @dsim: the device of the destination list's keys
 * @d: the destination list
 * @ssim: the device of the source list's keys
 * @s: the source list
 * @len: the message's length on the wire
 * @log: the signature errors found; may be NULL when no key is a
 *	 signature key
 *
 * Returns 0, -EFAULT when memory is not there or a list ends, -EINVAL for
 * a signature entry the engine cannot start (not on a block boundary, a
 * BSF it refuses), -ERANGE beyond a BSF's raw data size.
 */
int sim_xfer(struct sim_engine *eng, struct mlx5sp_sim *dsim,
	     struct sim_cur *d, struct mlx5sp_sim *ssim, struct sim_cur *s,
	     u64 len, struct sim_sig_log *log)
{
	struct sim_xside src = { .sim = ssim, .c = s };
	struct sim_xside dst = { .sim = dsim, .c = d, .dst = true };
	s64 n;
	int err = 0;

	if (log)
		log->n = 0;
	if (!sim_cur_has_sig(s) && !sim_cur_has_sig(d))
		return sim_cur_copy(dsim, d, ssim, s, len);
	if (!log || !eng->wire)
		return -EFAULT;
	while (len) {
		n = sim_xfer_fill(&src, eng->wire,
				  min_t(u64, len, SIM_WIRE_BUF), len, log);
		if (n <= 0) {
			err = n ?: -EFAULT;
			break;
		}
		err = sim_xfer_drain(&dst, eng->wire, n, log);
		if (err)
			break;
		len -= n;
	}
	/* entries that ended with the message */
	if (src.active)
		sim_xside_end(&src, log);
	if (dst.active)
		sim_xside_end(&dst, log);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sim_xfer);

/**
 * sim_xfer_cut - where a message through a list may be cut in chunks
 * @sge: the list's entries
 * @n: how many
 * @pos: a wire byte of the message
 *
 * Returns the last offset at or before @pos at which a transfer may stop
 * and the next one start (sim_xfer() of the rest from there): a block
 * boundary of both domains of a signature entry, any byte of a plain one.
 * A signature key that is no longer one, or a BSF the engine refuses,
 * cuts at its entry's start.
 */
u64 sim_xfer_cut(const struct sim_sge *sge, u32 n, u64 pos)
{
	const struct sim_sig_domain *w, *m;
	struct sim_sig_ctx ctx;
	u64 es = 0, start, mem_len, off, step;
	struct mlx5_bsf bsf;
	u32 i, data;

	for (i = 0; i < n; es += sge[i].len, i++) {
		if (pos >= es + sge[i].len)
			continue;
		if (!sge[i].sig || pos == es)
			return pos;
		if (!sim_mkey_sig_snapshot(sge[i].mk, &bsf, &start,
					   &mem_len) ||
		    sim_sig_ctx_init(&ctx, &bsf, 0, 0, SIM_SIG_MEM_TO_WIRE) ||
		    sge[i].va < start)
			return es;
		w = &ctx.dom[SIM_SIG_WIRE];
		m = &ctx.dom[SIM_SIG_MEM];
		/* data bytes between boundaries of both domains */
		data = 1;
		if (w->type)
			data = w->block_size;
		if (m->type)
			data = lcm(data, m->block_size);
		step = w->type ? (u64)data / w->block_size *
				 (w->block_size + w->pi_size) : data;
		off = sge[i].va - start + (pos - es);
		off = do_div(off, step);
		/* an entry that starts off a boundary: only there */
		return off > pos - es ? es : pos - off;
	}
	return pos;
}
EXPORT_SYMBOL_IF_KUNIT(sim_xfer_cut);

/*
 * The errors of @more (a chunk of a message) added to @log (the
 * message's): a key's first error only, as a whole transfer logs it.
 */
void sim_sig_log_merge(struct sim_sig_log *log, const struct sim_sig_log *more)
{
	u8 i, j;

	for (i = 0; i < more->n; i++) {
		for (j = 0; j < log->n; j++)
			if (log->hit[j].dst == more->hit[i].dst &&
			    log->hit[j].mkey == more->hit[i].mkey)
				break;
		if (j == log->n && log->n < SIM_SIG_MAX_HITS)
			log->hit[log->n++] = more->hit[i];
	}
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_log_merge);

/*
 * The errors of @log (a chunk of a message) not in @seen (the chunks
 * before) into @out, and into @seen too.
 */
void sim_sig_log_unseen(struct sim_sig_log *out, const struct sim_sig_log *log,
			struct sim_sig_log *seen)
{
	u8 n = seen->n;

	sim_sig_log_merge(seen, log);
	out->n = seen->n - n;
	memcpy(out->hit, seen->hit + n, out->n * sizeof(out->hit[0]));
}
EXPORT_SYMBOL_IF_KUNIT(sim_sig_log_unseen);

/*
 * Write a SIGERR CQE on @cq for each error of @log found in the
 * destination list (@dst) or the source list. Returns how many.
 */
u8 sim_sig_log_cqes(struct sim_cq *cq, u32 qpn, const struct sim_sig_log *log,
		    bool dst)
{
	struct sim_cqe_info ci = {
		.opcode = MLX5_CQE_SIG_ERR,
		.qpn = qpn,
	};
	u8 i, n = 0;

	for (i = 0; i < log->n; i++) {
		if (log->hit[i].dst != dst)
			continue;
		ci.sig_err = &log->hit[i].err;
		ci.sig_mkey = log->hit[i].mkey;
		if (cq)
			sim_cqe_write(cq, &ci);
		n++;
	}
	return n;
}
