/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev per-source quotas (quota.c): a token bucket of new flows per source prefix (and
 * service, in scope service), in a bounded per-netns table.
 *
 * Locking and lifetime
 * --------------------
 * - The settings are one immutable struct kmg_quota_cfg, published with
 *   rcu_assign_pointer() under kn->lock and freed after a grace period: the packet path reads
 *   one consistent set, and a netns without quotas costs a new flow one pointer load.
 * - Buckets live in an rhashtable (lockless RCU lookups, per-bucket locks for inserts). A
 *   bucket's state is one 64-bit word changed with cmpxchg (GCRA, see quota.c), so CPUs
 *   sharing a source need no lock. Buckets are removed by the GC work (idle and refilled), by
 *   a change of prefix length or scope and when balancing stops, and freed after a grace
 *   period by an RCU callback that touches the bucket and its cache only (module exit has
 *   rcu_barrier()).
 * - Buckets are allocated in softirq, charged to the memory cgroup the connection table is
 *   charged to (kn->conns.memcg), and about quota-max of them exist per netns (CPUs
 *   inserting at once may pass it by one each).
 */
#ifndef _KMAGLEV_QUOTA_H
#define _KMAGLEV_QUOTA_H

#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable-types.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "stats.h"

struct kmg_net;
struct kmg_pkt;
struct kmg_service;
struct netlink_ext_ack;
struct nlattr;
struct sk_buff;

#define KMG_QUOTA_DEFAULT_PREFIX4	32
#define KMG_QUOTA_DEFAULT_PREFIX6	64
#define KMG_QUOTA_DEFAULT_MAX		65536

/* The settings, as config-set takes them (rate 0: off). */
struct kmg_quota_set {
	u32 rate;
	u32 burst;
	u32 prefix4;
	u32 prefix6;
	u32 scope;
	u32 action;
	u32 max;
};

/* What the packet path reads: the settings and the GCRA constants derived from them. */
struct kmg_quota_cfg {
	struct kmg_quota_set set;
	u64 interval_ns;	/* between two new flows at the quota rate */
	u64 limit_ns;		/* burst * interval: how far ahead a bucket may run */
	struct rcu_head rcu;
};

struct kmg_quota_key {
	__be32 addr[4];		/* the prefix, host bits zero; IPv4 in addr[0] */
	u32 svc_id;		/* scope service: the service's id */
	u8 family;
	u8 plen;
	u8 scoped;		/* svc_id is set */
	u8 pad;			/* zero: the key is hashed and compared whole */
};

struct kmg_quota {
	struct rhash_head node;
	struct kmg_quota_key key;
	atomic64_t tat;		/* GCRA's theoretical arrival time, ns (kmg_quota_now()) */
	atomic64_t rst_tat;	/* the same for the RSTs quota-action rst sends it */
	atomic64_t accepted;
	atomic64_t rejected;
	unsigned long last;	/* jiffies of the last new flow, let through or not */
	struct rcu_head rcu;
};

struct kmg_quotas {
	struct kmg_quota_cfg __rcu *cfg;	/* NULL while quotas are off */
	struct kmg_quota_set set;		/* the settings; under kn->lock */
	struct rhashtable ht;
	struct delayed_work gc;
	struct rhashtable_iter gc_iter;		/* the GC's place; only the GC work uses it */
	bool pressure;				/* the table is full: the GC frees room */
};

int kmg_quota_caches_init(void);
void kmg_quota_caches_exit(void);
int kmg_quotas_init(struct kmg_net *kn);
void kmg_quotas_exit(struct kmg_net *kn);
void kmg_quota_start(struct kmg_net *kn);
void kmg_quota_stop(struct kmg_net *kn);
u32 kmg_quota_count(struct kmg_net *kn);
int kmg_quota_prepare(struct kmg_net *kn, const struct kmg_quota_set *set,
		      struct kmg_quota_cfg **cfgp, const struct nlattr *aaction,
		      struct netlink_ext_ack *extack);
void kmg_quota_commit(struct kmg_net *kn, const struct kmg_quota_set *set,
		      struct kmg_quota_cfg *cfg);
/*
 * A new flow of @svc, with quotas on (@cfg, read under RCU): is its source over quota?
 * Then *@why names the counter (quota-drop, or quota-rst when the caller is to answer with
 * a RST). Under RCU, bottom halves off.
 */
bool kmg_quota_over(struct kmg_net *kn, const struct kmg_quota_cfg *cfg,
		    const struct kmg_service *svc, const struct kmg_pkt *p,
		    enum kmg_counter *why);
void kmg_quota_send_rst(struct net *net, struct sk_buff *skb, u8 family, int hook);

/* The quotas' clock: jiffies, in nanoseconds (see quota.c). */
static inline u64 kmg_quota_now(void)
{
	return get_jiffies_64() * TICK_NSEC;
}

/* For KUnit: one GCRA step. The bucket's next tat if a flow at @now fits, else 0. */
u64 kmg_quota_gcra(u64 tat, u64 now, u64 interval_ns, u64 limit_ns);
void kmg_quota_key_make(struct kmg_quota_key *k, const struct kmg_quota_set *set,
			const struct kmg_service *svc, const struct kmg_pkt *p);

#endif /* _KMAGLEV_QUOTA_H */
