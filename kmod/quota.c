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
 * rate and no more. The clock is jiffies in nanoseconds (one load, where a clocksource read
 * costs a new flow some 40 instructions more): a bucket refills a tick's worth at a time, and
 * holds at least that much (a smaller quota-burst counts as rate / HZ).
 *
 * Only new flows are checked (a TCP SYN, or the first packet of another flow without a
 * connection entry); packets of established flows never reach this file. Buckets are
 * created on a source's first new flow, about quota-max of them (CPUs inserting at once may
 * pass it by one each); beyond that a new source is not checked (quota-untracked), which
 * bounds memory, and the GC is woken to make room. A spread of sources wider than the table
 * is for flood-rate and the connection table's limits. The GC work removes buckets that have
 * refilled (so that a removed bucket's source gains nothing from starting over) and been idle
 * for KMG_QUOTA_IDLE, or, while the table is full, every refilled one.
 */
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/kmaglev.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
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
/* Buckets a flush walks between two chances to reschedule. */
#define KMG_QUOTA_BATCH		1024
/* Buckets a GC run looks at. */
#define KMG_QUOTA_GC_BUDGET	8192

static struct kmem_cache *kmg_quota_cache __read_mostly;

/*
 * The key's hash: for IPv4 one jhash round over its three meaningful words rather than
 * rhashtable's default jhash2() over all six (a new flow with quotas on pays it); the same
 * function for lookups and for buckets, as rhashtable wants (no obj_hashfn).
 */
static u32 kmg_quota_hash(const void *data, u32 len, u32 seed)
{
	const struct kmg_quota_key *k = data;
	const u32 *w = data;

	BUILD_BUG_ON(sizeof(*k) != 6 * sizeof(u32));
	if (k->family == AF_INET)
		return jhash_3words((__force u32)k->addr[0], k->svc_id, w[5], seed);
	return jhash2(w, 6, seed);
}

/* Is @obj the bucket of the key? 0 if so (rhashtable's sense): six words, no memcmp(). */
static int kmg_quota_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const u32 *k = arg->key, *e = (const u32 *)&((const struct kmg_quota *)obj)->key;

	return !!((k[0] ^ e[0]) | (k[1] ^ e[1]) | (k[2] ^ e[2]) | (k[3] ^ e[3]) |
		  (k[4] ^ e[4]) | (k[5] ^ e[5]));
}

static const struct rhashtable_params kmg_quota_params = {
	.hashfn		= kmg_quota_hash,
	.obj_cmpfn	= kmg_quota_cmp,
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
static __always_inline void kmg_quota_mask(__be32 *dst, const __be32 *src, unsigned int words,
					   u32 plen)
{
	unsigned int i;

	for (i = 0; i < words; i++, plen = plen > 32 ? plen - 32 : 0)
		dst[i] = plen >= 32 ? src[i] : plen ? src[i] & htonl(~0U << (32 - plen)) : 0;
}

/* Inline: a new flow with quotas on builds one. */
static __always_inline void kmg_quota_key(struct kmg_quota_key *k,
					  const struct kmg_quota_set *set,
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

void kmg_quota_key_make(struct kmg_quota_key *k, const struct kmg_quota_set *set,
			const struct kmg_service *svc, const struct kmg_pkt *p)
{
	kmg_quota_key(k, set, svc, p);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_key_make);

/* A new bucket for @k, full; NULL when the table is full or memory is short. */
static struct kmg_quota *kmg_quota_new(struct kmg_net *kn, const struct kmg_quota_cfg *cfg,
				       const struct kmg_quota_key *k, u64 now)
{
	struct kmg_quotas *qs = &kn->quotas;
	struct mem_cgroup *old_memcg;
	struct kmg_quota *q, *old;

	if (atomic_read(&qs->ht.nelems) >= cfg->set.max) {
		/* full: the GC removes refilled buckets now, idle or not (kmg_quota_gc_work()) */
		if (!READ_ONCE(qs->pressure)) {
			WRITE_ONCE(qs->pressure, true);
			mod_delayed_work(kmg_wq, &qs->gc, 0);
		}
		return NULL;
	}
	old_memcg = set_active_memcg(READ_ONCE(kn->conns.memcg));
	/* Not GFP_ATOMIC: its __GFP_HIGH would let the charge exceed the cgroup's limit. */
	q = kmem_cache_alloc(kmg_quota_cache, GFP_NOWAIT | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (!q)
		return NULL;
	q->key = *k;
	atomic64_set(&q->tat, now);
	atomic64_set(&q->rst_tat, now);
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
	u64 now = kmg_quota_now(), next;
	struct kmg_quota_key k;
	struct kmg_quota *q;
	s64 tat;

	kmg_quota_key(&k, &cfg->set, svc, p);
	q = rhashtable_lookup(&kn->quotas.ht, &k, kmg_quota_params);
	if (!q) {
		q = kmg_quota_new(kn, cfg, &k, now);
		if (!q) {
			kmg_count(kn, KMG_C_QUOTA_UNTRACKED);
			return false;
		}
	}
	/* once a tick at most (the word shares the bucket's line with tat and the counters) */
	if (time_after(jiffies, READ_ONCE(q->last)))
		WRITE_ONCE(q->last, jiffies);
	tat = atomic64_read(&q->tat);
	do {
		next = kmg_quota_gcra(tat, now, cfg->interval_ns, cfg->limit_ns);
		if (!next)
			goto over;
	} while (!atomic64_try_cmpxchg(&q->tat, &tat, next));
	atomic64_inc(&q->accepted);
	return false;

over:
	atomic64_inc(&q->rejected);
	/*
	 * A bucket from before a smaller quota-burst or quota-rate may be further ahead than
	 * the new limit: its source owes no more than the new settings allow.
	 */
	if (unlikely((u64)tat > now + cfg->limit_ns))
		atomic64_cmpxchg(&q->tat, tat, now + cfg->limit_ns);
	*why = KMG_C_QUOTA_DROP;
	if (cfg->set.action == KMAGLEV_QUOTA_ACTION_RST && p->proto == IPPROTO_TCP) {
		/*
		 * RSTs cost a route lookup, an skb and the output path each: a source gets them
		 * at its quota's rate and burst at most (a bucket of their own), drops beyond.
		 */
		tat = atomic64_read(&q->rst_tat);
		next = kmg_quota_gcra(tat, now, cfg->interval_ns, cfg->limit_ns);
		if (next && atomic64_try_cmpxchg(&q->rst_tat, &tat, next))
			*why = KMG_C_QUOTA_RST;
	}
	return true;
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
 * the answer and send it through LOCAL_OUT and POST_ROUTING (so the host's firewall sees it).
 * @hook is NF_INET_PRE_ROUTING for packets from the ingress hook too (they have not been
 * routed either). They may still carry a metadata dst (collect_md tunnels), which 6.1's
 * nf_reject_fill_skb_dst() would overwrite without releasing: dropped first. The caller
 * drops @skb after.
 */
void kmg_quota_send_rst(struct net *net, struct sk_buff *skb, u8 family, int hook)
{
	if (hook == NF_INET_PRE_ROUTING)
		skb_dst_drop(skb);
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

/*
 * Remove every bucket present when it starts (one pass; packets may add more meanwhile).
 * Process context. The walk pauses to reschedule before removing its current bucket, never
 * right after: a walk resumes by finding its current bucket again, and would skip some
 * buckets if that one were gone.
 */
static void kmg_quota_flush(struct kmg_quotas *qs)
{
	struct rhashtable_iter iter;
	struct kmg_quota *q;
	unsigned int n = 0;

	rhashtable_walk_enter(&qs->ht, &iter);
	rhashtable_walk_start(&iter);
	while ((q = rhashtable_walk_next(&iter))) {
		if (IS_ERR(q))
			continue;	/* -EAGAIN: a resize; the walk goes on */
		if (++n % KMG_QUOTA_BATCH == 0) {
			rhashtable_walk_stop(&iter);
			cond_resched();
			rhashtable_walk_start(&iter);
		}
		kmg_quota_remove(qs, q);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

/*
 * The GC worker: at most KMG_QUOTA_GC_BUDGET buckets a run, runs back to back until a pass
 * ends, then a pause. It removes buckets that have refilled (a refilled bucket and no bucket
 * let the same flows through) and been idle for KMG_QUOTA_IDLE; while the table is full
 * (pressure, set by kmg_quota_new()), every refilled one, so that new sources find room.
 */
static void kmg_quota_gc_work(struct work_struct *work)
{
	struct kmg_quotas *qs = container_of(to_delayed_work(work), struct kmg_quotas, gc);
	struct rhashtable_iter *iter = &qs->gc_iter;
	unsigned int budget = KMG_QUOTA_GC_BUDGET;
	bool pressure = READ_ONCE(qs->pressure);
	u64 now = kmg_quota_now();
	struct kmg_quota *q;
	bool end = false;

	rhashtable_walk_start(iter);
	while (budget) {
		q = rhashtable_walk_next(iter);
		if (IS_ERR(q)) {
			if (PTR_ERR(q) == -EAGAIN)
				continue;
			break;
		}
		if (!q) {
			end = true;
			break;
		}
		budget--;
		if ((u64)atomic64_read(&q->tat) <= now &&
		    (pressure || time_after_eq(jiffies, READ_ONCE(q->last) + KMG_QUOTA_IDLE)))
			kmg_quota_remove(qs, q);
	}
	rhashtable_walk_stop(iter);
	if (end) {
		/* the next pass starts from the beginning */
		rhashtable_walk_exit(iter);
		rhashtable_walk_enter(&qs->ht, iter);
		if (pressure)
			WRITE_ONCE(qs->pressure, false);
	}
	queue_delayed_work(kmg_wq, &qs->gc, end ? KMG_QUOTA_GC_PERIOD : 1);
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
	WRITE_ONCE(kn->quotas.pressure, false);
	kmg_quota_flush(&kn->quotas);
}

/*
 * Check new settings and allocate what the packet path will read (*@cfgp; NULL for quotas
 * off). Nothing changes yet: config-set is all or nothing, and its hook change may still
 * fail after this.
 */
int kmg_quota_prepare(struct kmg_net *kn, const struct kmg_quota_set *set,
		      struct kmg_quota_cfg **cfgp, const struct nlattr *aaction,
		      struct netlink_ext_ack *extack)
{
	struct kmg_quota_cfg *cfg;

	*cfgp = NULL;
	if (set->action == KMAGLEV_QUOTA_ACTION_RST && !kmg_quota_can_reset()) {
		NL_SET_ERR_MSG_ATTR(extack, aaction,
				    "quota-action rst needs nf_reject_ipv4 and nf_reject_ipv6 (CONFIG_NF_REJECT_IPV4, CONFIG_NF_REJECT_IPV6), which this kernel lacks");
		return -EOPNOTSUPP;
	}
	/* off, or unchanged (kmg_quota_commit() then keeps what it has) */
	if (!set->rate || !memcmp(set, &kn->quotas.set, sizeof(*set)))
		return 0;
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL_ACCOUNT);
	if (!cfg) {
		NL_SET_ERR_MSG(extack, "out of memory for the quota settings");
		return -ENOMEM;
	}
	cfg->set = *set;
	cfg->interval_ns = div_u64(NSEC_PER_SEC, set->rate);
	/*
	 * At most 10^9 and 10^7 (the spec's bounds): no overflow. The clock moves a tick at a
	 * time (kmg_quota_now()): a bucket must hold a tick's worth to reach its rate.
	 */
	cfg->limit_ns = cfg->interval_ns *
			max_t(u64, set->burst ?: set->rate, DIV_ROUND_UP(set->rate, HZ));
	*cfgp = cfg;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_prepare);

/*
 * Apply settings kmg_quota_prepare() accepted (under kn->lock); takes @cfg. A new prefix
 * length or scope (or quotas off) empties the table: its buckets would never match again.
 * Other changes keep every source's bucket, and what it owes (kmg_quota_over() cuts a debt
 * to a smaller limit), so that changing the action in the middle of a flood hands no source
 * a new burst.
 */
void kmg_quota_commit(struct kmg_net *kn, const struct kmg_quota_set *set,
		      struct kmg_quota_cfg *cfg)
{
	struct kmg_quotas *qs = &kn->quotas;
	struct kmg_quota_cfg *old;
	bool rekey;

	lockdep_assert_held(&kn->lock);
	if (!memcmp(set, &qs->set, sizeof(*set))) {
		kfree(cfg);
		return;
	}
	rekey = !set->rate || set->prefix4 != qs->set.prefix4 ||
		set->prefix6 != qs->set.prefix6 || set->scope != qs->set.scope;
	old = rcu_dereference_protected(qs->cfg, lockdep_is_held(&kn->lock));
	rcu_assign_pointer(qs->cfg, cfg);
	qs->set = *set;
	if (old)
		kfree_rcu(old, rcu);
	if (!rekey)
		return;
	/* no packet that read the old settings is still adding a bucket keyed by them */
	if (kn->hooks)
		synchronize_net();
	kmg_quota_flush(qs);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_quota_commit);

int kmg_quotas_init(struct kmg_net *kn)
{
	struct kmg_quotas *qs = &kn->quotas;
	int err;

	qs->set.prefix4 = KMG_QUOTA_DEFAULT_PREFIX4;
	qs->set.prefix6 = KMG_QUOTA_DEFAULT_PREFIX6;
	qs->set.max = KMG_QUOTA_DEFAULT_MAX;
	INIT_DELAYED_WORK(&qs->gc, kmg_quota_gc_work);
	err = rhashtable_init(&qs->ht, &kmg_quota_params);
	if (err)
		return err;
	rhashtable_walk_enter(&qs->ht, &qs->gc_iter);
	return 0;
}

static void kmg_quota_free(void *ptr, void *arg)
{
	kmem_cache_free(kmg_quota_cache, ptr);
}

/* The netns is gone: no packets, no requests; kmg_quota_stop() emptied the table. */
void kmg_quotas_exit(struct kmg_net *kn)
{
	struct kmg_quotas *qs = &kn->quotas;

	cancel_delayed_work_sync(&qs->gc);
	rhashtable_walk_exit(&qs->gc_iter);
	/* nothing is left, unless init failed after the first service: no reader either way */
	rhashtable_free_and_destroy(&qs->ht, kmg_quota_free, NULL);
	kfree(rcu_dereference_protected(qs->cfg, true));
}
