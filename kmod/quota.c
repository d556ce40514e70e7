// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev per-source quotas: new flows per second per source prefix, so that one heavy
 * source is throttled and every other client is left alone.
 *
 * Each source prefix (quota-prefix4/6 bits of the client's address; with quota-scope service,
 * each prefix and service) has a token bucket of quota-burst new flows refilled at
 * quota-rate. The bucket is kept as GCRA (the generic cell rate algorithm) does: one word,
 * the theoretical arrival time (tat) of the next new flow. A new flow at time now fits when
 * max(tat, now) + interval - now <= burst * interval, and then moves tat to
 * max(tat, now) + interval. That is exactly a token bucket, but its state is one 64-bit
 * value that CPUs update with cmpxchg: no lock, no separate token count and timestamp to
 * keep consistent. Refused flows do not move tat, so a source over quota keeps getting its
 * rate and no more.
 *
 * Only new flows are checked (a TCP SYN, or the first packet of another flow without a
 * connection entry); packets of established flows never reach this file. Buckets are
 * created on a source's first new flow, at most quota-max of them; beyond that a new source
 * is not checked (quota-untracked), which bounds memory: a spread of sources wider than the
 * table is for flood-rate and the connection table's limits. The GC work removes buckets
 * that have refilled and been idle for KMG_QUOTA_IDLE, so that a removed bucket's source
 * gains nothing from starting over.
 */
#include <linux/jiffies.h>
#include <linux/kmaglev.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>

#include <kunit/visibility.h>

#include "kmaglev.h"
#include "netns.h"
#include "parse.h"
#include "quota.h"
#include "service.h"

/* How long a refilled bucket stays without new flows before the GC removes it. */
#define KMG_QUOTA_IDLE		(10 * HZ)
#define KMG_QUOTA_GC_PERIOD	(2 * HZ)
/* Buckets removed between two chances to reschedule. */
#define KMG_QUOTA_BATCH		1024

static struct kmem_cache *kmg_quota_cache __read_mostly;

static const struct rhashtable_params kmg_quota_params = {
	.key_len	= sizeof(struct kmg_quota_key),
	.key_offset	= offsetof(struct kmg_quota, key),
	.head_offset	= offsetof(struct kmg_quota, node),
	.automatic_shrinking = true,
	.min_size	= 64,
};

int kmg_quota_caches_init(void)
{
	kmg_quota_cache = kmem_cache_create("kmaglev_quota", sizeof(struct kmg_quota), 0,
					    SLAB_ACCOUNT, NULL);
	return kmg_quota_cache ? 0 : -ENOMEM;
}

/* After rcu_barrier(): every bucket's RCU callback has run. */
void kmg_quota_caches_exit(void)
{
	kmem_cache_destroy(kmg_quota_cache);
}

u64 kmg_quota_gcra(u64 tat, u64 now, u64 interval_ns, u64 limit_ns)
{
	u64 next = max(tat, now) + interval_ns;

	return next - now > limit_ns ? 0 : next;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_gcra);

/* The first @plen bits of @src, the rest zero. */
static void kmg_quota_mask(__be32 *dst, const __be32 *src, unsigned int words, u32 plen)
{
	unsigned int i;

	for (i = 0; i < words; i++, plen = plen > 32 ? plen - 32 : 0)
		dst[i] = plen >= 32 ? src[i] : plen ? src[i] & htonl(~0U << (32 - plen)) : 0;
}

void kmg_quota_key_make(struct kmg_quota_key *k, const struct kmg_quota_set *set,
			const struct kmg_service *svc, const struct kmg_pkt *p)
{
	memset(k, 0, sizeof(*k));
	k->family = p->family;
	if (p->family == AF_INET) {
		k->plen = set->prefix4;
		kmg_quota_mask(k->addr, &p->saddr.v4, 1, k->plen);
	} else {
		k->plen = set->prefix6;
		kmg_quota_mask(k->addr, p->saddr.v6.s6_addr32, 4, k->plen);
	}
	if (set->scope == KMAGLEV_QUOTA_SCOPE_SERVICE) {
		k->svc_id = svc->id;
		k->scoped = 1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_key_make);

/* A new bucket for @k, full; NULL when the table is full or memory is short. */
static struct kmg_quota *kmg_quota_new(struct kmg_net *kn, const struct kmg_quota_cfg *cfg,
				       const struct kmg_quota_key *k, u64 now)
{
	struct kmg_quotas *qs = &kn->quotas;
	struct mem_cgroup *old_memcg;
	struct kmg_quota *q, *old;

	if (atomic_read(&qs->ht.nelems) >= cfg->set.max)
		return NULL;
	old_memcg = set_active_memcg(READ_ONCE(kn->conns.memcg));
	/* Not GFP_ATOMIC: its __GFP_HIGH would let the charge exceed the cgroup's limit. */
	q = kmem_cache_alloc(kmg_quota_cache, GFP_NOWAIT | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (!q)
		return NULL;
	q->key = *k;
	atomic64_set(&q->tat, now);
	atomic64_set(&q->accepted, 0);
	atomic64_set(&q->rejected, 0);
	q->last = jiffies;
	old = rhashtable_lookup_get_insert_fast(&qs->ht, &q->node, kmg_quota_params);
	if (old) {
		/* another CPU's bucket for the same source won, or the insert failed */
		kmem_cache_free(kmg_quota_cache, q);
		return IS_ERR(old) ? NULL : old;
	}
	return q;
}

bool kmg_quota_over(struct kmg_net *kn, const struct kmg_quota_cfg *cfg,
		    const struct kmg_service *svc, const struct kmg_pkt *p,
		    enum kmg_counter *why)
{
	u64 now = ktime_get_mono_fast_ns(), tat, next;
	struct kmg_quota_key k;
	struct kmg_quota *q;

	kmg_quota_key_make(&k, &cfg->set, svc, p);
	q = rhashtable_lookup(&kn->quotas.ht, &k, kmg_quota_params);
	if (!q) {
		q = kmg_quota_new(kn, cfg, &k, now);
		if (!q) {
			kmg_count(kn, KMG_C_QUOTA_UNTRACKED);
			return false;
		}
	}
	/* written once a tick at most: no shared cache line dirtied per new flow */
	if (time_after(jiffies, READ_ONCE(q->last)))
		WRITE_ONCE(q->last, jiffies);
	tat = atomic64_read(&q->tat);
	do {
		next = kmg_quota_gcra(tat, now, cfg->interval_ns, cfg->limit_ns);
		if (!next) {
			atomic64_inc(&q->rejected);
			*why = cfg->set.action == KMAGLEV_QUOTA_ACTION_RST &&
			       p->proto == IPPROTO_TCP ? KMG_C_QUOTA_RST : KMG_C_QUOTA_DROP;
			return true;
		}
	} while (!atomic64_try_cmpxchg(&q->tat, &tat, next));
	atomic64_inc(&q->accepted);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_over);

/* Can quota-action rst answer both families? (nf_reject_ipv4/6, which the RST uses) */
static bool kmg_quota_can_reset(void)
{
	return IS_REACHABLE(CONFIG_NF_REJECT_IPV4) && IS_REACHABLE(CONFIG_NF_REJECT_IPV6);
}

/*
 * Answer a refused SYN with a RST, as the nft/iptables reject targets do: the kernel's
 * nf_reject helpers check the packet (no RST to a RST, a valid checksum, no broadcast), route
 * the answer and send it through LOCAL_OUT. @hook is NF_INET_PRE_ROUTING for packets from
 * the ingress hook too (they have not been routed either). The caller drops @skb after.
 */
void kmg_quota_reset(struct net *net, struct sk_buff *skb, u8 family, int hook)
{
#if IS_REACHABLE(CONFIG_NF_REJECT_IPV4)
	if (family == AF_INET)
		nf_send_reset(net, NULL, skb, hook);
#endif
#if IS_REACHABLE(CONFIG_NF_REJECT_IPV6)
	if (family == AF_INET6)
		nf_send_reset6(net, NULL, skb, hook);
#endif
}

static void kmg_quota_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(kmg_quota_cache, container_of(head, struct kmg_quota, rcu));
}

static void kmg_quota_remove(struct kmg_quotas *qs, struct kmg_quota *q)
{
	if (!rhashtable_remove_fast(&qs->ht, &q->node, kmg_quota_params))
		call_rcu(&q->rcu, kmg_quota_free_rcu);
}

/* Remove the buckets @idle_only says (refilled and idle), or all of them. Process context. */
static void kmg_quota_sweep(struct kmg_net *kn, bool idle_only)
{
	struct kmg_quotas *qs = &kn->quotas;
	struct rhashtable_iter iter;
	u64 now = ktime_get_mono_fast_ns();
	struct kmg_quota *q;
	unsigned int n = 0;

	rhashtable_walk_enter(&qs->ht, &iter);
	rhashtable_walk_start(&iter);
	while ((q = rhashtable_walk_next(&iter))) {
		if (IS_ERR(q))
			continue;	/* -EAGAIN: a resize; the walk goes on */
		if (idle_only && (atomic64_read(&q->tat) > now ||
				  time_before(jiffies, READ_ONCE(q->last) + KMG_QUOTA_IDLE)))
			continue;
		kmg_quota_remove(qs, q);
		if (++n % KMG_QUOTA_BATCH == 0) {
			rhashtable_walk_stop(&iter);
			cond_resched();
			rhashtable_walk_start(&iter);
		}
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

static void kmg_quota_gc_work(struct work_struct *work)
{
	struct kmg_quotas *qs = container_of(to_delayed_work(work), struct kmg_quotas, gc);
	struct kmg_net *kn = container_of(qs, struct kmg_net, quotas);

	kmg_quota_sweep(kn, true);
	queue_delayed_work(kmg_wq, &qs->gc, KMG_QUOTA_GC_PERIOD);
}

u32 kmg_quota_count(struct kmg_net *kn)
{
	return atomic_read(&kn->quotas.ht.nelems);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_count);

/* Balancing starts in the netns (under kn->lock): its buckets' GC runs while it lasts. */
void kmg_quota_start(struct kmg_net *kn)
{
	queue_delayed_work(kmg_wq, &kn->quotas.gc, KMG_QUOTA_GC_PERIOD);
}

/* Balancing stopped, after synchronize_net(): no packet can add a bucket. Empty the table. */
void kmg_quota_stop(struct kmg_net *kn)
{
	cancel_delayed_work_sync(&kn->quotas.gc);
	kmg_quota_sweep(kn, false);
}

/*
 * Check new settings and allocate what the packet path will read (*@cfgp; NULL for quotas
 * off). Nothing changes yet: config-set is all or nothing, and its hook change may still
 * fail after this.
 */
int kmg_quota_prepare(const struct kmg_quota_set *set, struct kmg_quota_cfg **cfgp,
		      const struct nlattr *aaction, struct netlink_ext_ack *extack)
{
	struct kmg_quota_cfg *cfg;

	*cfgp = NULL;
	if (set->action == KMAGLEV_QUOTA_ACTION_RST && !kmg_quota_can_reset()) {
		NL_SET_ERR_MSG_ATTR(extack, aaction,
				    "quota-action rst needs nf_reject_ipv4 and nf_reject_ipv6 (CONFIG_NF_REJECT_IPV4, CONFIG_NF_REJECT_IPV6), which this kernel lacks");
		return -EOPNOTSUPP;
	}
	if (!set->rate)
		return 0;
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL_ACCOUNT);
	if (!cfg)
		return -ENOMEM;
	cfg->set = *set;
	cfg->interval_ns = div_u64(NSEC_PER_SEC, set->rate);
	/* at most 10^9 and 10^7 (the spec's bounds): no overflow */
	cfg->limit_ns = cfg->interval_ns * (set->burst ?: set->rate);
	*cfgp = cfg;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_prepare);

/*
 * Apply settings kmg_quota_prepare() accepted (under kn->lock); takes @cfg. A change empties
 * the table: buckets of another prefix length or scope would never match again, and new
 * limits start every source with a full bucket.
 */
void kmg_quota_commit(struct kmg_net *kn, const struct kmg_quota_set *set,
		      struct kmg_quota_cfg *cfg)
{
	struct kmg_quotas *qs = &kn->quotas;
	struct kmg_quota_cfg *old;

	lockdep_assert_held(&kn->lock);
	if (!memcmp(set, &qs->set, sizeof(*set))) {
		kfree(cfg);
		return;
	}
	old = rcu_dereference_protected(qs->cfg, lockdep_is_held(&kn->lock));
	rcu_assign_pointer(qs->cfg, cfg);
	qs->set = *set;
	if (old)
		kfree_rcu(old, rcu);
	/*
	 * A packet that read the old settings may still add a bucket after this sweep; it is
	 * keyed by them, and the GC removes it once idle.
	 */
	kmg_quota_sweep(kn, false);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_commit);

int kmg_quotas_init(struct kmg_net *kn)
{
	struct kmg_quotas *qs = &kn->quotas;

	qs->set.prefix4 = KMG_QUOTA_DEFAULT_PREFIX4;
	qs->set.prefix6 = KMG_QUOTA_DEFAULT_PREFIX6;
	qs->set.max = KMG_QUOTA_DEFAULT_MAX;
	INIT_DELAYED_WORK(&qs->gc, kmg_quota_gc_work);
	return rhashtable_init(&qs->ht, &kmg_quota_params);
}

/* The netns is gone: no packets, no requests, and kmg_quota_stop() emptied the table. */
void kmg_quotas_exit(struct kmg_net *kn)
{
	struct kmg_quotas *qs = &kn->quotas;

	cancel_delayed_work_sync(&qs->gc);
	kmg_quota_sweep(kn, false);
	rhashtable_destroy(&qs->ht);
	kfree(rcu_dereference_protected(qs->cfg, true));
}
