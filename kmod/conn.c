// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev connection table: which backend each flow (5-tuple + service) is pinned to.
 *
 * Design: two rhashtables per netns, one per address family, because the keys differ in size
 * (16 bytes for IPv4, 40 for IPv6) and IPv4 entries then fit in 56 bytes (IPv6 ones in 80).
 * The key is the 5-tuple alone, so an established flow is found without looking up its VIP
 * and service first: the entry's service is its backend's (be->svc), and the entry holds a
 * reference on it. rhashtable gives lockless RCU lookups, per-bucket locks for inserts and
 * removals, and resizing on its own. (hlist_nulls with SLAB_TYPESAFE_BY_RCU, as conntrack
 * does, would save the 16-byte rcu_head per entry but needs a reference count or a re-check
 * on every lookup and a fixed-size table.)
 *
 * The service of an entry: the entry keeps no pointer to it, its backend names it. be->svc is
 * set when the backend joins its service's set, before any table with the backend is
 * published, and never changes; a backend belongs to one service for life (a backend deleted
 * and added again is a new one). Every backend an entry is ever pinned to comes from the
 * tables of the service the packet matched, after kmg_entry_check() (select.c) found the
 * entry to be that service's: so a re-pinned entry (kmg_conn_set_backend()) keeps its
 * service, and kmg_conn_service() reads the same service whichever backend it finds. An entry
 * of a service deleted and re-created with the same VIP, protocol and port names the old,
 * dead service object: it never compares equal to the new one.
 *
 * Lifetime: an entry holds a reference on its backend and on its service, taken before it is
 * published in the table. The backend holds none on its service: it is the entry's that keeps
 * be->svc alive for as long as the entry may be read (until its RCU callback). Entries have
 * no timers: each carries an expiry time that packets push forward, and an incremental GC
 * worker walks the tables in bounded chunks, removing expired entries and entries of deleted
 * services. A removed entry is freed after an RCU grace period; the backend and service
 * counters it was part of are settled then too. The RCU callback touches only the entry, its
 * backend and service (which it holds references on) and module-global data, never the
 * netns' struct kmg_net: the netns core frees that right after kmg_net_exit(), without waiting
 * for RCU callbacks. Module unload waits for them with rcu_barrier().
 *
 * Memory: entries are allocated in softirq context, where nothing is charged to a memory
 * cgroup by default. They are charged to the memory cgroup of the task that started
 * balancing in the netns (see kmg_conn_gc_start()), so root in a user namespace is bounded
 * by its own cgroup as well as by conn-max.
 *
 * Limits: conn-max per netns. At the limit an insert first evicts a SYN-only entry from the
 * buckets near its own (as conntrack's early drop does); failing that the flow is not tracked
 * and is forwarded by Maglev alone. Above flood-rate new entries per second (flood mode), and
 * beyond a service's max-conns, flows are not tracked either.
 */
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/memcontrol.h>
#include <linux/rhashtable.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "backend.h"
#include "conn.h"
#include "kmaglev.h"
#include "netns.h"
#include "parse.h"
#include "service.h"
#include "stats.h"

static struct kmem_cache *kmg_conn4_cache __read_mostly;
static struct kmem_cache *kmg_conn6_cache __read_mostly;

/*
 * The IPv4 key's hash: one jhash round over its three words (the ports in one, the protocol
 * in the seed) rather than rhashtable's default jhash2() over all four; the same function
 * for lookups and for entries, as rhashtable wants (no obj_hashfn).
 */
static u32 kmg_conn4_hash(const void *data, u32 len, u32 seed)
{
	const struct kmg_conn_key4 *k = data;

	return jhash_3words((__force u32)k->saddr, (__force u32)k->daddr,
			    (__force u32)k->sport << 16 | (__force u32)k->dport, seed ^ k->proto);
}

/* Is @obj the entry of the IPv4 key? 0 if so (rhashtable's sense): four words, no memcmp(). */
static int kmg_conn4_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const u32 *k = arg->key, *e = (const u32 *)&((const struct kmg_conn *)obj)->k4;

	BUILD_BUG_ON(sizeof(struct kmg_conn_key4) != 4 * sizeof(u32));
	return !!((k[0] ^ e[0]) | (k[1] ^ e[1]) | (k[2] ^ e[2]) | (k[3] ^ e[3]));
}

static const struct rhashtable_params kmg_conn4_params = {
	.hashfn		= kmg_conn4_hash,
	.obj_cmpfn	= kmg_conn4_cmp,
	.key_len	= sizeof(struct kmg_conn_key4),
	.key_offset	= offsetof(struct kmg_conn, k4),
	.head_offset	= offsetof(struct kmg_conn, node),
	.automatic_shrinking = true,
	.min_size	= 256,
};

static const struct rhashtable_params kmg_conn6_params = {
	.key_len	= sizeof(struct kmg_conn_key6),
	.key_offset	= offsetof(struct kmg_conn, k6),
	.head_offset	= offsetof(struct kmg_conn, node),
	.automatic_shrinking = true,
	.min_size	= 256,
};

#define KMG_CONN4_SIZE	(offsetof(struct kmg_conn, k4) + sizeof(struct kmg_conn_key4))
#define KMG_CONN6_SIZE	(offsetof(struct kmg_conn, k6) + sizeof(struct kmg_conn_key6))

/* Entries examined per GC run, and buckets searched for a SYN-only entry to evict. */
#define KMG_GC_BUDGET		8192
#define KMG_EVICT_BUCKETS	8
/* Entries removed by a flush between two chances to reschedule. */
#define KMG_FLUSH_BATCH		1024

/* Live entries in all netns (for leak checks), per CPU: no shared cache line per new flow. */
static DEFINE_PER_CPU(long, kmg_conn_live);

long kmg_conn_objects(void)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(kmg_conn_live, cpu);
	return n;
}

/* Entries in the netns' tables (rhashtable counts them anyway). */
u32 kmg_conn_count(struct kmg_net *kn)
{
	return atomic_read(&kn->conns.ht4.nelems) + atomic_read(&kn->conns.ht6.nelems);
}

int kmg_conn_caches_init(void)
{
	/*
	 * Sizes the slab keeps as they are: whole words (SLUB rounds objects up to one), and
	 * no SLAB_HWCACHE_ALIGN (which would round an IPv4 entry up to 64 bytes). So the
	 * objects are KMG_CONN4_SIZE and KMG_CONN6_SIZE bytes, as the memory report counts
	 * them (without slab debugging, which adds red zones and tracking).
	 */
	BUILD_BUG_ON(KMG_CONN4_SIZE % sizeof(void *) || KMG_CONN6_SIZE % sizeof(void *));
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) && (KMG_CONN4_SIZE != 56 || KMG_CONN6_SIZE != 80));
	kmg_conn4_cache = kmem_cache_create("kmaglev_conn4", KMG_CONN4_SIZE, 0,
					    SLAB_ACCOUNT, NULL);
	kmg_conn6_cache = kmem_cache_create("kmaglev_conn6", KMG_CONN6_SIZE, 0,
					    SLAB_ACCOUNT, NULL);
	if (!kmg_conn4_cache || !kmg_conn6_cache) {
		kmem_cache_destroy(kmg_conn4_cache);
		kmem_cache_destroy(kmg_conn6_cache);
		return -ENOMEM;
	}
	return 0;
}

void kmg_conn_caches_exit(void)
{
	kmem_cache_destroy(kmg_conn4_cache);
	kmem_cache_destroy(kmg_conn6_cache);
}

/*
 * Bytes of one entry as allocated (its slab object), for the memory report. Not counted:
 * the slab's own overhead (the tail of each slab page that holds no whole object; with the
 * entries charged to a memory cgroup other than the root, its per-object cgroup pointer).
 */
size_t kmg_conn_entry_bytes(u8 family)
{
	return kmem_cache_size(family == AF_INET ? kmg_conn4_cache : kmg_conn6_cache);
}

/* Bytes of a table's bucket arrays: the current one, and the next one while it resizes. */
static size_t kmg_conn_ht_bytes(struct rhashtable *ht)
{
	const struct bucket_table *t;
	size_t b = 0;

	for (t = rht_dereference_rcu(ht->tbl, ht); t; t = rht_dereference_rcu(t->future_tbl, ht))
		b += struct_size(t, buckets, t->size);
	return b;
}

/* Bytes of both tables' bucket arrays (with their headers). */
size_t kmg_conn_bucket_bytes(struct kmg_net *kn)
{
	size_t b;

	rcu_read_lock();
	b = kmg_conn_ht_bytes(&kn->conns.ht4) + kmg_conn_ht_bytes(&kn->conns.ht6);
	rcu_read_unlock();
	return b;
}

static void kmg_conn_key4(struct kmg_conn_key4 *k, const struct kmg_pkt *p)
{
	memset(k, 0, sizeof(*k));
	k->saddr = p->saddr.v4;
	k->daddr = p->daddr.v4;
	k->sport = p->sport;
	k->dport = p->dport;
	k->proto = p->proto;
}

static void kmg_conn_key6(struct kmg_conn_key6 *k, const struct kmg_pkt *p)
{
	memset(k, 0, sizeof(*k));
	k->saddr = p->saddr.v6;
	k->daddr = p->daddr.v6;
	k->sport = p->sport;
	k->dport = p->dport;
	k->proto = p->proto;
}

struct kmg_conn *kmg_conn_lookup(struct kmg_net *kn, const struct kmg_pkt *p)
{
	if (p->family == AF_INET) {
		struct kmg_conn_key4 k;

		kmg_conn_key4(&k, p);
		return rhashtable_lookup(&kn->conns.ht4, &k, kmg_conn4_params);
	}
	{
		struct kmg_conn_key6 k;

		kmg_conn_key6(&k, p);
		return rhashtable_lookup(&kn->conns.ht6, &k, kmg_conn6_params);
	}
}

/*
 * Pin the flow to another backend (resched, or an expired entry reused for a new flow): one
 * of the entry's own service, which the caller checked the entry belongs to.
 */
void kmg_conn_set_backend(struct kmg_net *kn, struct kmg_conn *c, struct kmg_backend *be,
			  const struct kmg_pkt *p, bool is_new)
{
	struct kmg_backend *old;
	u8 state = kmg_conn_next_state(READ_ONCE(c->state), p, is_new);

	kmg_backend_get(be);
	atomic_inc(&be->conns);
	old = xchg(&c->be, be);
	/* the service reference the entry holds is for this service */
	WARN_ON_ONCE(old->svc != be->svc);
	atomic_dec(&old->conns);
	kmg_backend_put(old);
	WRITE_ONCE(c->state, state);
	WRITE_ONCE(c->expires, (u32)jiffies + kmg_conn_timeout(&kn->ccfg, state));
}

/* Settle an entry's counters and references, after every reader is done with it. */
static void kmg_conn_free(struct kmg_conn *c)
{
	struct kmg_service *svc = c->be->svc;

	atomic_dec(&c->be->conns);
	kmg_backend_put(c->be);
	atomic_dec(&svc->conns);
	kmg_service_put(svc);
	this_cpu_dec(kmg_conn_live);
	kmem_cache_free(c->family == AF_INET ? kmg_conn4_cache : kmg_conn6_cache, c);
}

static void kmg_conn_free_rcu(struct rcu_head *head)
{
	kmg_conn_free(container_of(head, struct kmg_conn, rcu));
}

/* Remove an entry from its table; false if someone else already did. */
bool kmg_conn_unlink(struct kmg_net *kn, struct kmg_conn *c)
{
	int err;

	if (c->family == AF_INET)
		err = rhashtable_remove_fast(&kn->conns.ht4, &c->node, kmg_conn4_params);
	else
		err = rhashtable_remove_fast(&kn->conns.ht6, &c->node, kmg_conn6_params);
	if (err)
		return false;
	call_rcu(&c->rcu, kmg_conn_free_rcu);
	return true;
}

/*
 * The table is full: evict one entry that has seen only a SYN from the buckets at and after
 * the new flow's own (a cheap, local search; under a SYN flood most entries qualify).
 */
static bool kmg_conn_evict_syn(struct kmg_net *kn, const struct kmg_pkt *p)
{
	struct rhashtable *ht = p->family == AF_INET ? &kn->conns.ht4 : &kn->conns.ht6;
	const struct bucket_table *tbl;
	struct kmg_conn_key4 k4;
	struct kmg_conn_key6 k6;
	struct rhash_head *pos;
	struct kmg_conn *c;
	unsigned int hash, i;

	tbl = rht_dereference_rcu(ht->tbl, ht);
	if (p->family == AF_INET) {
		kmg_conn_key4(&k4, p);
		hash = rht_key_hashfn(ht, tbl, &k4, kmg_conn4_params);
	} else {
		kmg_conn_key6(&k6, p);
		hash = rht_key_hashfn(ht, tbl, &k6, kmg_conn6_params);
	}
	for (i = 0; i < KMG_EVICT_BUCKETS; i++) {
		rht_for_each_entry_rcu(c, pos, tbl, (hash + i) & (tbl->size - 1), node) {
			if (READ_ONCE(c->state) == KMG_CS_SYN && kmg_conn_unlink(kn, c)) {
				kmg_count(kn, KMG_C_CONN_EVICT_SYN);
				return true;
			}
		}
	}
	return false;
}

/* Flood mode: more than flood-rate new entries in the current second. */
static bool kmg_conn_flooding(struct kmg_net *kn)
{
	struct kmg_conns *cs = &kn->conns;
	u32 rate = READ_ONCE(kn->ccfg.flood_rate);
	unsigned long second = jiffies / HZ;

	if (!rate)
		return false;
	if (READ_ONCE(cs->flood_second) != second) {
		WRITE_ONCE(cs->flood_second, second);
		atomic_set(&cs->flood_count, 0);
	}
	return atomic_inc_return(&cs->flood_count) > rate;
}

/*
 * Track a new flow on @be. Returns the new entry (*why = KMG_C_CONN_NEW, counted here), or
 * another CPU's that won a race for the same flow (*why = KMG_C_CONN_HIT: the packet joins
 * that flow, for the caller to count), or NULL when the flow is not tracked: *why then names
 * the counter to bump.
 */
struct kmg_conn *kmg_conn_insert(struct kmg_net *kn, struct kmg_service *svc,
				 const struct kmg_pkt *p, struct kmg_backend *be,
				 enum kmg_counter *why)
{
	struct kmem_cache *cache = p->family == AF_INET ? kmg_conn4_cache : kmg_conn6_cache;
	struct kmg_conns *cs = &kn->conns;
	u32 max = READ_ONCE(kn->ccfg.conn_max);
	u32 svc_max = READ_ONCE(svc->cfg.max_conns);
	struct mem_cgroup *old_memcg;
	struct kmg_conn *c, *old;
	u8 state;

	if (svc_max && atomic_read(&svc->conns) >= svc_max) {
		*why = KMG_C_CONN_SVC_LIMIT;
		return NULL;
	}
	if (kmg_conn_flooding(kn)) {
		*why = KMG_C_CONN_FLOOD;
		return NULL;
	}
	if (kmg_conn_count(kn) >= max && !kmg_conn_evict_syn(kn, p)) {
		*why = KMG_C_CONN_TABLE_FULL;
		return NULL;
	}
	old_memcg = set_active_memcg(READ_ONCE(cs->memcg));
	/* Not GFP_ATOMIC: its __GFP_HIGH would let the charge exceed the cgroup's limit. */
	c = kmem_cache_alloc(cache, GFP_NOWAIT | __GFP_NOWARN);
	set_active_memcg(old_memcg);
	if (!c) {
		*why = KMG_C_CONN_TABLE_FULL;
		return NULL;
	}
	/* The service is being deleted: its flows are no longer tracked. */
	if (!refcount_inc_not_zero(&svc->ref)) {
		kmem_cache_free(cache, c);
		*why = KMG_C_CONN_SVC_LIMIT;
		return NULL;
	}
	if (p->family == AF_INET)
		kmg_conn_key4(&c->k4, p);
	else
		kmg_conn_key6(&c->k6, p);
	state = kmg_conn_next_state(KMG_CS_OTHER, p, true);
	c->family = p->family;
	c->state = state;
	c->expires = (u32)jiffies + kmg_conn_timeout(&kn->ccfg, state);
	/*
	 * Every reference the entry holds is taken before it is published: from then on another
	 * CPU may find it, move it to another backend (dropping this one) or remove it. @be is
	 * from @svc's tables, so the service reference is be->svc's, the entry's service.
	 */
	WARN_ON_ONCE(be->svc != svc);
	c->be = be;
	kmg_backend_get(be);
	atomic_inc(&be->conns);
	atomic_inc(&svc->conns);
	if (p->family == AF_INET)
		old = rhashtable_lookup_get_insert_fast(&cs->ht4, &c->node, kmg_conn4_params);
	else
		old = rhashtable_lookup_get_insert_fast(&cs->ht6, &c->node, kmg_conn6_params);
	if (old) {
		/* Lost a race for the same flow (or out of memory): use the winner. */
		atomic_dec(&svc->conns);
		atomic_dec(&be->conns);
		kmg_backend_put(be);
		kmg_service_put(svc);
		kmem_cache_free(cache, c);
		if (IS_ERR(old)) {
			*why = KMG_C_CONN_TABLE_FULL;
			return NULL;
		}
		*why = KMG_C_CONN_HIT;
		return old;
	}
	this_cpu_inc(kmg_conn_live);
	/*
	 * CPUs that found room for the last entry at the same time have each inserted one, and
	 * the table holds more than conn-max (seen with a SYN flood on two CPUs). Each takes its
	 * own entry out again at once, so the table stays at conn-max (both may: the last room
	 * is then left for the next flow) and the flow goes untracked. If another CPU removed the
	 * entry first (an eviction) and counted that, it is counted as created too.
	 */
	if (unlikely(kmg_conn_count(kn) > max)) {
		*why = KMG_C_CONN_TABLE_FULL;
		if (kmg_conn_unlink(kn, c))
			return NULL;
		kmg_count(kn, KMG_C_CONN_NEW);
		return NULL;
	}
	kmg_count(kn, KMG_C_CONN_NEW);
	*why = KMG_C_CONN_NEW;
	return c;
}

/* One GC step over one table: true when it reached the end of the table. */
static bool kmg_conn_gc_table(struct kmg_net *kn, struct rhashtable_iter *iter,
			      unsigned int *budget)
{
	struct kmg_conn *c;
	bool end = false;

	rhashtable_walk_start(iter);
	while (*budget) {
		c = rhashtable_walk_next(iter);
		if (IS_ERR(c)) {
			if (PTR_ERR(c) == -EAGAIN)	/* resized: the walk restarted */
				continue;
			break;
		}
		if (!c) {
			end = true;
			break;
		}
		(*budget)--;
		if (kmg_conn_expired(c) || READ_ONCE(kmg_conn_service(c)->dead)) {
			if (kmg_conn_unlink(kn, c))
				kmg_count(kn, KMG_C_CONN_EXPIRED);
		}
	}
	rhashtable_walk_stop(iter);
	if (end) {
		/* start the next pass from the beginning */
		rhashtable_walk_exit(iter);
		rhashtable_walk_enter(iter->ht, iter);
	}
	return end;
}

/* The GC worker: bounded work per run; a full pass ends with a one-second pause. */
static void kmg_conn_gc_work(struct work_struct *work)
{
	struct kmg_conns *cs = container_of(to_delayed_work(work), struct kmg_conns, gc);
	struct kmg_net *kn = container_of(cs, struct kmg_net, conns);
	unsigned int budget = KMG_GC_BUDGET;
	bool done4, done6;

	done4 = kmg_conn_gc_table(kn, &cs->iter4, &budget);
	done6 = kmg_conn_gc_table(kn, &cs->iter6, &budget);
	queue_delayed_work(kmg_wq, &cs->gc, done4 && done6 ? HZ : 1);
}

/*
 * Remove every entry (no packet path may run: hooks unregistered and synchronize_net()
 * done). A table may hold millions of entries: the walk pauses to reschedule between
 * batches. A walk that pauses right after removing its current entry may skip some when it
 * resumes (it finds its place again by position in the bucket), so passes repeat until the
 * table is empty; nothing else inserts meanwhile.
 */
static void kmg_conn_flush_table(struct kmg_net *kn, struct rhashtable_iter *iter)
{
	unsigned int n = 0;
	struct kmg_conn *c;

	do {
		rhashtable_walk_exit(iter);
		rhashtable_walk_enter(iter->ht, iter);
		rhashtable_walk_start(iter);
		while ((c = rhashtable_walk_next(iter))) {
			if (IS_ERR(c))
				continue;
			kmg_conn_unlink(kn, c);
			if (++n % KMG_FLUSH_BATCH == 0) {
				rhashtable_walk_stop(iter);
				cond_resched();
				rhashtable_walk_start(iter);
			}
		}
		rhashtable_walk_stop(iter);
	} while (atomic_read(&iter->ht->nelems));
}

/*
 * Balancing starts in the netns (first service, process context, under kn->lock): new entries
 * are charged to the memory cgroup of the task doing this, and GC starts.
 */
void kmg_conn_gc_start(struct kmg_net *kn)
{
	WRITE_ONCE(kn->conns.memcg, get_mem_cgroup_from_mm(current->mm));
	queue_delayed_work(kmg_wq, &kn->conns.gc, HZ);
}

/*
 * Stop GC and drop every entry; called when the netns' hooks go away, after
 * synchronize_net(), so no packet can insert an entry any more.
 */
void kmg_conn_gc_stop(struct kmg_net *kn)
{
	struct mem_cgroup *memcg = kn->conns.memcg;

	cancel_delayed_work_sync(&kn->conns.gc);
	kmg_conn_flush_table(kn, &kn->conns.iter4);
	kmg_conn_flush_table(kn, &kn->conns.iter6);
	WRITE_ONCE(kn->conns.memcg, NULL);
	mem_cgroup_put(memcg);
}

int kmg_conns_init(struct kmg_net *kn)
{
	struct kmg_conns *cs = &kn->conns;
	int err;

	err = rhashtable_init(&cs->ht4, &kmg_conn4_params);
	if (err)
		return err;
	err = rhashtable_init(&cs->ht6, &kmg_conn6_params);
	if (err) {
		rhashtable_destroy(&cs->ht4);
		return err;
	}
	rhashtable_walk_enter(&cs->ht4, &cs->iter4);
	rhashtable_walk_enter(&cs->ht6, &cs->iter6);
	INIT_DELAYED_WORK(&cs->gc, kmg_conn_gc_work);
	return 0;
}

/* After kmg_conn_gc_stop(): the tables are empty but entries may await their grace period. */
void kmg_conns_exit(struct kmg_net *kn)
{
	struct kmg_conns *cs = &kn->conns;

	rhashtable_walk_exit(&cs->iter4);
	rhashtable_walk_exit(&cs->iter6);
	rhashtable_destroy(&cs->ht4);
	rhashtable_destroy(&cs->ht6);
}
