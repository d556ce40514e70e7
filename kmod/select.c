// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev backend selection, the one owner of the per-flow decision: the connection entry
 * first (looked up once per packet, checked by kmg_entry_check() alone); on a miss the
 * two-table migration rules (migrate.c) pick the current or previous Maglev table, the flow
 * hash picks a slot, connection limits may pass the flow on, and the flow is then tracked if
 * the table allows.
 *
 * The flow hash is SipHash-2-4 under the service seed (from the table, so the hash always
 * matches the table that uses it) over the fields the service hashes on. Its low 32 bits pick
 * the slot, its high 32 bits decide the ramp, so the two do not correlate. Every LB host with
 * the same configuration computes the same hash and picks the same backend.
 */
#include <linux/jiffies.h>
#include <linux/kmaglev.h>
#include <linux/reciprocal_div.h>
#include <net/tcp.h>

#include <kunit/visibility.h>

#include "backend.h"
#include "conn.h"
#include "maglev.h"
#include "migrate.h"
#include "netns.h"
#include "parse.h"
#include "quota.h"
#include "shed.h"
#include "select.h"
#include "service.h"
#include "stats.h"
#include "table.h"

u64 kmg_flow_hash(const struct kmg_table *t, u32 mode, const struct kmg_pkt *p)
{
	if (p->family == AF_INET) {
		u32 ports = (u32)ntohs(p->sport) << 16 | ntohs(p->dport);

		switch (mode) {
		case KMAGLEV_HASH_SRC_ADDR:
			return siphash_1u32((__force u32)p->saddr.v4, &t->flow_key);
		case KMAGLEV_HASH_THREE_TUPLE:
			return siphash_3u32((__force u32)p->saddr.v4, (__force u32)p->daddr.v4,
					    p->proto, &t->flow_key);
		default:
			return siphash_4u32((__force u32)p->saddr.v4, (__force u32)p->daddr.v4,
					    ports, p->proto, &t->flow_key);
		}
	} else {
		struct {
			struct in6_addr saddr;
			struct in6_addr daddr;
			__be16 sport;
			__be16 dport;
			u32 proto;
		} f = { .saddr = p->saddr.v6 };

		if (mode == KMAGLEV_HASH_SRC_ADDR)
			return siphash(&f.saddr, sizeof(f.saddr), &t->flow_key);
		f.daddr = p->daddr.v6;
		f.proto = p->proto;
		if (mode == KMAGLEV_HASH_FIVE_TUPLE) {
			f.sport = p->sport;
			f.dport = p->dport;
		}
		return siphash(&f, sizeof(f), &t->flow_key);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kmg_flow_hash);

/* A backend with room for one more flow: over max-conns, the next backend in the table. */
static struct kmg_backend *kmg_table_pick(struct kmg_net *kn, const struct kmg_table *t,
					  u32 hash)
{
	u16 slot = t->slots[reciprocal_scale(hash, t->size)];
	u32 i;

	if (slot == KMG_SLOT_EMPTY)
		return NULL;
	for (i = 0; i < t->nbe; i++) {
		struct kmg_backend *be = t->be[(slot + i) % t->nbe].be;
		u32 max = READ_ONCE(be->max_conns);

		if (!max || atomic_read(&be->conns) < max)
			return be;
		kmg_count(kn, KMG_C_BACKEND_LIMIT);
	}
	return NULL;
}

/* New flows per second from one client, per service: hashed buckets, one-second windows. */
static bool kmg_client_over(struct kmg_service *svc, const struct kmg_pkt *p)
{
	u32 rate = READ_ONCE(svc->cfg.client_rate);
	struct kmg_client_limit *cl = rcu_dereference(svc->climit);
	struct kmg_client_bucket *b;
	u32 second = jiffies / HZ, h;

	if (!rate || !cl)
		return false;
	h = p->family == AF_INET ? jhash_1word((__force u32)p->saddr.v4, 0) :
				   jhash2((__force const u32 *)p->saddr.v6.s6_addr32, 4, 0);
	b = &cl->b[h % KMG_CLIENT_BUCKETS];
	if (READ_ONCE(b->second) != second) {
		WRITE_ONCE(b->second, second);
		atomic_set(&b->count, 0);
	}
	return atomic_inc_return(&b->count) > rate;
}

/* Per-source quotas (quota.c). Inline: a new flow pays one pointer load while they are off. */
static __always_inline bool kmg_quota_check(struct kmg_net *kn,
					    const struct kmg_service *svc,
					    const struct kmg_pkt *p, enum kmg_counter *why)
{
	const struct kmg_quota_cfg *cfg = rcu_dereference(kn->quotas.cfg);

	return unlikely(cfg) && kmg_quota_over(kn, cfg, svc, p, why);
}

/*
 * Load shedding (shed.c), before quotas: a shed flow takes no source's token. Inline: a new
 * flow pays two loads while nothing is set.
 */
static __always_inline bool kmg_shed_check(struct kmg_net *kn,
					   const struct kmg_service *svc, u8 dscp,
					   enum kmg_counter *why)
{
	if (likely(!READ_ONCE(kn->shed.armed) &&
		   READ_ONCE(svc->cfg.overload) != KMAGLEV_OVERLOAD_ON))
		return false;
	return kmg_shed_over(kn, svc, dscp, why);
}

static bool kmg_new_flow(const struct kmg_pkt *p)
{
	return p->proto != IPPROTO_TCP ||
	       (p->tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN;
}

/*
 * A flow without a usable entry: the table the migration rules choose, then a backend from
 * it. Returns NULL when no backend can take the flow (*why names the counter).
 */
static struct kmg_backend *kmg_choose(struct kmg_net *kn, struct kmg_service *svc,
				      const struct kmg_pkt *p, bool new_flow, enum kmg_counter *why)
{
	struct kmg_table *cur = rcu_dereference(svc->cur);
	struct kmg_table *prev = rcu_dereference(svc->prev);
	u32 mode = READ_ONCE(svc->cfg.hash);
	struct kmg_backend *be;
	struct kmg_table *t = cur;
	u64 hash;

	*why = KMG_C_DROP_NO_BACKEND;
	if (!cur)
		return NULL;
	hash = kmg_flow_hash(cur, mode, p);
	if (prev) {
		struct kmg_mig m;

		kmg_service_mig(svc, &m);
		m.has_prev = true;
		if (kmg_mig_use_prev(&m, hash >> 32, new_flow)) {
			t = prev;
			kmg_count(kn, new_flow ? KMG_C_RAMP_PREV : KMG_C_PREV_HIT);
			if (memcmp(&prev->flow_key, &cur->flow_key, sizeof(cur->flow_key)))
				hash = kmg_flow_hash(prev, mode, p);
		} else if (new_flow) {
			kmg_count(kn, KMG_C_RAMP_NEW);
		}
	}
	be = kmg_table_pick(kn, t, hash);
	if (!be && t == prev)
		be = kmg_table_pick(kn, cur, kmg_flow_hash(cur, mode, p));
	return be;
}

/* What a packet may do with its flow's entry. */
enum kmg_entry {
	KMG_ENTRY_USE,		/* keep to its backend */
	KMG_ENTRY_RESCHED,	/* its backend is down or gone and the service reschedules */
	KMG_ENTRY_REUSE,	/* expired, or a new connection on a closed one's 5-tuple */
	KMG_ENTRY_STALE,	/* of a deleted service, or of another one than the packet's */
};

/* Inline: an established flow's every packet asks (kmg_flow_fast()). */
static __always_inline enum kmg_entry kmg_entry_check(const struct kmg_conn *c,
						      const struct kmg_service *svc,
						      bool new_flow)
{
	struct kmg_backend *be;

	if (kmg_conn_service(c) != svc || READ_ONCE(svc->dead))
		return KMG_ENTRY_STALE;
	if (!kmg_conn_usable(c, new_flow))
		return KMG_ENTRY_REUSE;
	be = kmg_conn_backend(c);
	if ((READ_ONCE(svc->cfg.flags) & KMAGLEV_SERVICE_FLAGS_RESCHED) &&
	    (READ_ONCE(be->state) == KMAGLEV_BACKEND_STATE_DOWN || READ_ONCE(be->removed)))
		return KMG_ENTRY_RESCHED;
	return KMG_ENTRY_USE;
}

static void kmg_flow_lookup(struct kmg_net *kn, struct kmg_flow *f, const struct kmg_pkt *p)
{
	if (!f->looked_up) {
		f->c = kmg_conn_lookup(kn, p);
		f->looked_up = true;
	}
}

/*
 * The fast path, before the VIP and service lookups: a packet of a tracked flow whose entry
 * it may keep to. Returns its backend (and *@svcp its service), or NULL when the flow needs
 * kmg_flow_decide(), which then uses the entry found here.
 */
struct kmg_backend *kmg_flow_fast(struct kmg_net *kn, struct kmg_flow *f,
				  const struct kmg_pkt *p, struct kmg_service **svcp)
{
	struct kmg_service *svc;

	kmg_flow_lookup(kn, f, p);
	if (!f->c)
		return NULL;
	svc = kmg_conn_service(f->c);
	if (kmg_entry_check(f->c, svc, kmg_new_flow(p)) != KMG_ENTRY_USE)
		return NULL;
	kmg_count(kn, KMG_C_CONN_HIT);
	kmg_conn_refresh(&kn->ccfg, f->c, p);
	*svcp = svc;
	return kmg_conn_backend(f->c);
}

/*
 * The backend for a packet of @svc: the flow's entry if it may keep to it; else the Maglev
 * table the migration rules choose, and a new or reused entry for the flow. Returns NULL
 * when no backend takes it (f->why names the drop counter). f->is_new says whether the packet
 * started a flow (for the new-flow counters). Looks the entry up once per packet.
 */
struct kmg_backend *kmg_flow_decide(struct kmg_net *kn, struct kmg_flow *f,
				    struct kmg_service *svc, const struct kmg_pkt *p)
{
	bool new_flow = kmg_new_flow(p);
	struct kmg_backend *be, *nbe;
	enum kmg_counter nowhy;
	struct kmg_conn *c;

	f->is_new = false;
	f->why = KMG_C_DROP_NO_BACKEND;
	kmg_flow_lookup(kn, f, p);
	c = f->c;
	switch (c ? kmg_entry_check(c, svc, new_flow) : KMG_ENTRY_REUSE) {
	case KMG_ENTRY_STALE:
		/* the flow starts over (also when another CPU removed the entry first) */
		if (!p->icmp_err)
			kmg_conn_unlink(kn, c);
		c = NULL;
		break;
	case KMG_ENTRY_RESCHED:
		be = kmg_conn_backend(c);
		nbe = kmg_choose(kn, svc, p, new_flow, &nowhy);
		if (nbe && nbe != be) {
			kmg_count(kn, KMG_C_CONN_HIT);
			kmg_conn_set_backend(kn, c, nbe, p, false);
			kmg_count(kn, KMG_C_CONN_RESCHED);
			return nbe;
		}
		fallthrough;
	case KMG_ENTRY_USE:
		kmg_count(kn, KMG_C_CONN_HIT);
		if (!p->icmp_err)
			kmg_conn_refresh(&kn->ccfg, c, p);
		return kmg_conn_backend(c);
	case KMG_ENTRY_REUSE:
		break;
	}

	/* ICMP errors follow flows; they never create one. */
	if (p->icmp_err)
		return kmg_choose(kn, svc, p, false, &f->why);

	be = kmg_choose(kn, svc, p, new_flow, &f->why);
	if (!be)
		return NULL;
	if (new_flow && (kmg_shed_check(kn, svc, f->dscp, &f->why) ||
			 kmg_quota_check(kn, svc, p, &f->why)))
		return NULL;
	if (new_flow && kmg_client_over(svc, p)) {
		f->why = KMG_C_DROP_CLIENT_LIMIT;
		return NULL;
	}
	if (c) {
		/* an expired entry, or a new connection on a closed one's 5-tuple: reuse it */
		kmg_conn_set_backend(kn, c, be, p, true);
	} else {
		c = kmg_conn_insert(kn, svc, p, be, &nowhy);
		/*
		 * Another CPU started this flow first: the packet belongs to that flow, if it
		 * may keep to its entry (else, as before: the winner's backend, a new flow).
		 */
		if (c && nowhy == KMG_C_CONN_HIT &&
		    kmg_entry_check(c, svc, new_flow) == KMG_ENTRY_USE) {
			kmg_count(kn, KMG_C_CONN_HIT);
			kmg_conn_refresh(&kn->ccfg, c, p);
			return kmg_conn_backend(c);
		}
		if (!c) {
			kmg_count(kn, nowhy);
			kmg_count(kn, KMG_C_CONN_STATELESS);
		} else {
			be = kmg_conn_backend(c);
		}
	}
	f->is_new = new_flow;
	return be;
}
