// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink replies: the service, backend, stats and table nests and messages
 * that replies, dumps and notifications are made of, and the walk that gives each backend
 * its slots in the current table. Called under the netns' kn->lock.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "addr.h"
#include "backend.h"
#include "maglev.h"
#include "migrate.h"
#include "netlink.h"
#include "service.h"
#include "stats.h"
#include "table.h"

/*
 * Table and stats replies list the service's backends up to this many, so that every reply
 * fits in GENLMSG_DEFAULT_SIZE (with the headers, a page); beyond, per-backend slots and
 * counters come from the
 * backend and stats dumps, which resume across messages.
 */
static u32 kmg_nl_reply_backends(const struct kmg_service *svc)
{
	BUILD_BUG_ON(KMAGLEV_REPLY_BACKENDS_MAX * 160 > GENLMSG_DEFAULT_SIZE - 512);
	return min_t(u32, svc->nbe, KMAGLEV_REPLY_BACKENDS_MAX);
}

static int kmg_nl_put_addr(struct sk_buff *skb, int a4, int a6, const struct kmg_addr *addr)
{
	if (addr->family == AF_INET)
		return nla_put_in_addr(skb, a4, kmg_addr_v4(addr));
	return nla_put_in6_addr(skb, a6, &addr->in6);
}

static int kmg_nl_put_svc_key(struct sk_buff *skb, const struct kmg_service *svc)
{
	struct kmg_addr addr;

	memcpy(addr.b, svc->key.addr, sizeof(addr.b));
	addr.family = svc->key.family;
	if (nla_put_u32(skb, KMAGLEV_A_SERVICE_ID, svc->id) ||
	    kmg_nl_put_addr(skb, KMAGLEV_A_SERVICE_ADDR4, KMAGLEV_A_SERVICE_ADDR6, &addr) ||
	    nla_put_u8(skb, KMAGLEV_A_SERVICE_PROTO, svc->key.proto) ||
	    nla_put_u16(skb, KMAGLEV_A_SERVICE_PORT, ntohs(svc->key.port)))
		return -EMSGSIZE;
	return 0;
}

/* The service nest: key only, or key and settings and table state. */
int kmg_nl_put_service(struct sk_buff *skb, const struct kmg_service *svc, bool full,
		       bool seed)
{
	const struct kmg_service_cfg *c = &svc->cfg;
	struct nlattr *nest;
	struct kmg_mig m;

	nest = nla_nest_start(skb, KMAGLEV_A_SERVICE);
	if (!nest)
		return -EMSGSIZE;
	if (kmg_nl_put_svc_key(skb, svc))
		goto err;
	if (!full)
		goto out;
	kmg_service_mig(svc, &m);
	if (nla_put_u32(skb, KMAGLEV_A_SERVICE_TABLE_SIZE, c->table_size) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_HASH, c->hash) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_FLAGS, c->flags) ||
	    (seed && nla_put(skb, KMAGLEV_A_SERVICE_SEED, sizeof(c->seed), c->seed)) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_RAMP_PCT, c->ramp_pct) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_RAMP_MS, c->ramp_ms) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_WINDOW_MS, c->window_ms) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_MAX_CONNS, c->max_conns) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_CLIENT_RATE, c->client_rate) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_CRITICALITY, c->criticality) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_OVERLOAD, c->overload) ||
	    (c->encap_src4 && nla_put_in_addr(skb, KMAGLEV_A_SERVICE_ENCAP_SRC4, c->encap_src4)) ||
	    (!ipv6_addr_any(&c->encap_src6) &&
	     nla_put_in6_addr(skb, KMAGLEV_A_SERVICE_ENCAP_SRC6, &c->encap_src6)) ||
	    (c->owner[0] && nla_put_string(skb, KMAGLEV_A_SERVICE_OWNER, c->owner)) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_GENERATION, svc->gen) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_BACKENDS, svc->nbe) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_SERVICE_TABLE_BYTES, kmg_service_table_bytes(svc),
			      KMAGLEV_A_SERVICE_PAD) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_RAMP_NOW, kmg_mig_ramp_pct(&m)))
		goto err;
	if (m.has_prev) {
		const struct kmg_table *prev = rcu_dereference_protected(svc->prev, true);
		unsigned long len = kmg_mig_length_ms(m.ramp_pct, m.ramp_ms, m.window_ms);

		if (nla_put_u32(skb, KMAGLEV_A_SERVICE_PREV_GENERATION, prev->gen))
			goto err;
		if (len != ULONG_MAX &&
		    nla_put_u32(skb, KMAGLEV_A_SERVICE_WINDOW_LEFT_MS,
				len > m.elapsed_ms ? len - m.elapsed_ms : 0))
			goto err;
	}
out:
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int kmg_nl_put_stats(struct sk_buff *skb, int type, const struct kmg_stats_sum *sum,
		     u64 conns)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_PACKETS, sum->packets, KMAGLEV_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_BYTES, sum->bytes, KMAGLEV_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_NEW_FLOWS, sum->new_flows,
			      KMAGLEV_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_CONNS, conns, KMAGLEV_A_STATS_PAD)) {
		if (nest)
			nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* A backend nest of type @type; @slots < 0 leaves slots out, @stats adds counters. */
int kmg_nl_put_backend(struct sk_buff *skb, int type, const struct kmg_backend *be,
		       s64 slots, bool stats)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	struct kmg_stats_sum sum;

	if (!nest)
		return -EMSGSIZE;
	if (kmg_nl_put_addr(skb, KMAGLEV_A_BACKEND_ADDR4, KMAGLEV_A_BACKEND_ADDR6, &be->addr) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_WEIGHT, be->weight) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_STATE, be->state) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_ENCAP, be->encap) ||
	    (be->keyed && nla_put_u32(skb, KMAGLEV_A_BACKEND_GRE_KEY, be->gre_key)) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_MAX_CONNS, be->max_conns) ||
	    (!be->removed && nla_put_u32(skb, KMAGLEV_A_BACKEND_ID, be->id)) ||
	    (slots >= 0 && nla_put_u32(skb, KMAGLEV_A_BACKEND_SLOTS, slots)))
		goto err;
	if (stats) {
		kmg_backend_stats(be, &sum);
		if (kmg_nl_put_stats(skb, KMAGLEV_A_BACKEND_STATS, &sum, atomic_read(&be->conns)))
			goto err;
	}
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Per-backend slot counts of the current table (kvfree), or NULL if there is no table. */
static u32 *kmg_nl_slot_counts(const struct kmg_service *svc, const struct kmg_table **tp)
{
	const struct kmg_table *t = rcu_dereference_protected(svc->cur, true);
	u32 *counts;

	*tp = t;
	if (!t || !t->nbe)
		return NULL;
	counts = kvcalloc(t->nbe, sizeof(*counts), GFP_KERNEL);
	if (counts)
		kmg_table_slot_counts(t, counts);
	return counts;
}

int kmg_slot_walk_start(struct kmg_slot_walk *w, const struct kmg_service *svc)
{
	w->counts = kmg_nl_slot_counts(svc, &w->t);
	w->pos = 0;
	return w->t && w->t->nbe && !w->counts ? -ENOMEM : 0;
}

/* Slots of @be; backends must come in address order. */
u32 kmg_slot_walk_next(struct kmg_slot_walk *w, const struct kmg_backend *be)
{
	const struct kmg_table *t = w->t;
	u32 lo, hi;

	if (!w->counts)
		return 0;
	/* Binary search for the first step (a dump resuming mid-service), then a walk. */
	if (!w->pos) {
		lo = 0;
		hi = t->nbe;
		while (lo < hi) {
			u32 mid = lo + (hi - lo) / 2;

			if (kmg_mg_addr_cmp(t->be[mid].be->addr.b, be->addr.b) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		w->pos = lo;
	}
	while (w->pos < t->nbe && kmg_mg_addr_cmp(t->be[w->pos].be->addr.b, be->addr.b) < 0)
		w->pos++;
	return w->pos < t->nbe && t->be[w->pos].be == be ? w->counts[w->pos] : 0;
}

void kmg_slot_walk_end(struct kmg_slot_walk *w)
{
	kvfree(w->counts);
}

int kmg_nl_fill_service(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
			u32 seq, int flags, u8 cmd, bool seed)
{
	void *hdr = kmg_nl_hdr(skb, portid, seq, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (kmg_nl_put_service(skb, svc, true, seed)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int kmg_nl_fill_backend(struct sk_buff *skb, const struct kmg_service *svc,
			const struct kmg_backend *be, s64 slots, u32 portid, u32 seq,
			int flags, u8 cmd)
{
	void *hdr = kmg_nl_hdr(skb, portid, seq, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (kmg_nl_put_service(skb, svc, false, false) ||
	    kmg_nl_put_backend(skb, KMAGLEV_A_BACKEND, be, slots, true)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The table summary and, with @backends, the first kmg_nl_reply_backends() backends' slots. */
int kmg_nl_fill_table(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
		      u32 seq, u8 cmd, bool backends)
{
	const struct kmg_table *t;
	struct kmg_slot_walk w;
	u32 i, mn = U32_MAX, mx = 0;
	struct nlattr *nest;
	void *hdr;
	int err;

	err = kmg_slot_walk_start(&w, svc);
	if (err)
		return err;
	t = w.t;
	err = -EMSGSIZE;
	hdr = kmg_nl_hdr(skb, portid, seq, 0, cmd);
	if (!hdr)
		goto out;
	if (kmg_nl_put_service(skb, svc, false, false))
		goto cancel;
	nest = nla_nest_start(skb, KMAGLEV_A_TABLE);
	if (!nest)
		goto cancel;
	for (i = 0; t && i < t->nbe; i++) {
		mn = min(mn, w.counts[i]);
		mx = max(mx, w.counts[i]);
	}
	if (t && (nla_put_u32(skb, KMAGLEV_A_TABLE_SIZE, t->size) ||
		  nla_put_u32(skb, KMAGLEV_A_TABLE_GENERATION, t->gen) ||
		  nla_put_u64_64bit(skb, KMAGLEV_A_TABLE_BYTES, kmg_table_bytes(t),
				    KMAGLEV_A_TABLE_PAD) ||
		  nla_put_u64_64bit(skb, KMAGLEV_A_TABLE_DIGEST, kmg_table_digest(t),
				    KMAGLEV_A_TABLE_PAD) ||
		  nla_put_u32(skb, KMAGLEV_A_TABLE_MIN_SLOTS, t->nbe ? mn : 0) ||
		  nla_put_u32(skb, KMAGLEV_A_TABLE_MAX_SLOTS, mx)))
		goto cancel;
	/* The service's backends, with 0 slots for those not in the table. */
	for (i = 0; backends && i < kmg_nl_reply_backends(svc); i++)
		if (kmg_nl_put_backend(skb, KMAGLEV_A_TABLE_BACKEND, svc->be[i],
				       kmg_slot_walk_next(&w, svc->be[i]), false))
			goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	err = 0;
	goto out;
cancel:
	genlmsg_cancel(skb, hdr);
out:
	kmg_slot_walk_end(&w);
	return err;
}

int kmg_nl_fill_stats(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
		      u32 seq, int flags)
{
	struct kmg_stats_sum sum;
	void *hdr;
	u32 i;

	hdr = kmg_nl_hdr(skb, portid, seq, flags, KMAGLEV_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	kmg_service_stats(svc, &sum);
	if (kmg_nl_put_service(skb, svc, false, false) ||
	    kmg_nl_put_stats(skb, KMAGLEV_A_STATS, &sum, atomic_read(&svc->conns)))
		goto err;
	for (i = 0; i < kmg_nl_reply_backends(svc); i++)
		if (kmg_nl_put_backend(skb, KMAGLEV_A_BACKEND, svc->be[i], -1, true))
			goto err;
	genlmsg_end(skb, hdr);
	return 0;
err:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

bool kmg_nl_may_see_seed(struct sk_buff *skb, struct net *net)
{
	return netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN);
}
