/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev: objects shared by the module's files, and the rules for using them.
 *
 * Locking and lifetime
 * --------------------
 * - Every configuration change in a netns runs under that netns' kn->lock (a mutex), from
 *   netlink or from the table retire work. Tables are built there too, in process context.
 * - The packet path takes no locks. It finds a service with an RCU lookup in kn->svc_ht (after
 *   kn->vip_ht says the address is a VIP at all), then reads svc->cur / svc->prev with
 *   rcu_dereference(). A table is immutable once published; it holds a reference on every
 *   backend it points to.
 * - Service and backend settings the packet path reads are scalars written with WRITE_ONCE()
 *   under kn->lock and read with READ_ONCE().
 * - A backend is refcounted (refcount_t): the service's backend set, each table, and each
 *   connection entry hold a reference. The last put frees it after an RCU grace period.
 * - A service is removed from the hash tables under kn->lock and freed after a grace period,
 *   with its tables.
 * - Tables are freed from a workqueue after a grace period (queue_rcu_work), in process context,
 *   because they may be vmalloc'ed and drop backend references.
 */
#ifndef _KMAGLEV_H
#define _KMAGLEV_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/in6.h>
#include <linux/kmaglev.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rhashtable-types.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "maglev.h"
#include "parse.h"

#define KMG_DEFAULT_MAX_SERVICES	65536
#define KMG_DEFAULT_MAX_BACKENDS	BIT(20)
#define KMG_DEFAULT_WINDOW_MS		30000
#define KMG_DEFAULT_CONN_MAX		BIT(20)
#define KMG_DEFAULT_TIMEOUT_TCP_SYN	30
#define KMG_DEFAULT_TIMEOUT_TCP_EST	900
#define KMG_DEFAULT_TIMEOUT_TCP_FIN	30
#define KMG_DEFAULT_TIMEOUT_UDP		300

/* Per-CPU counters of a service or a backend. */
struct kmg_pcpu_stats {
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t new_flows;
	struct u64_stats_sync syncp;
};

struct kmg_stats_sum {
	u64 packets;
	u64 bytes;
	u64 new_flows;
};

/* An address of either family; IPv4 is stored IPv4-mapped so that backends sort as one set. */
struct kmg_addr {
	union {
		u8 b[16];
		struct in6_addr in6;
	};
	u8 family;		/* AF_INET or AF_INET6 */
};

struct kmg_svc_key {
	u8 addr[16];		/* as in struct kmg_addr */
	u8 family;
	u8 proto;		/* IPPROTO_TCP, IPPROTO_UDP, or 0 for any */
	__be16 port;		/* 0 for every port */
};

struct kmg_vip_key {
	u8 addr[16];
	u8 family;
	u8 pad[3];
};

/* A VIP's services, most specific first, for VIPs with few (published by RCU). */
#define KMG_VIP_DIRECT	4

struct kmg_vip_direct {
	struct rcu_head rcu;
	u32 n;
	struct kmg_service *svc[KMG_VIP_DIRECT];
};

/* One VIP address; exists while any service uses it (kn->vip_ht, under kn->lock). */
struct kmg_vip {
	struct rhash_head node;
	struct kmg_vip_key key;
	struct kmg_net *kn;
	u32 nservices;
	/* services by kind: [proto any << 1 | every port], so lookups skip absent wildcards */
	u32 kinds[4];
	/* services with the echo and defrag flags; ICMP echo and fragments carry no port */
	u32 echo;
	u32 defrag;
	struct list_head services;	/* under kn->lock */
	struct kmg_vip_direct __rcu *direct;
	struct rcu_head rcu;
};

/* Backend settings as parsed from netlink; @set has a bit for each field given. */
struct kmg_backend_cfg {
	struct kmg_addr addr;
	u32 weight;
	u32 state;
	u32 encap;
	u32 gre_key;
	u32 max_conns;
	bool keyed;
	u32 set;
};

enum {
	KMG_BE_SET_WEIGHT	= BIT(0),
	KMG_BE_SET_STATE	= BIT(1),
	KMG_BE_SET_ENCAP	= BIT(2),
	KMG_BE_SET_KEY		= BIT(3),
	KMG_BE_SET_MAX_CONNS	= BIT(4),
};

/* A backend's route, cached per CPU (route.c). */
struct kmg_route;

struct kmg_route_cache {
	struct kmg_route __percpu *pcpu;
	unsigned long reset_ts;		/* jiffies; routes cached up to then are stale */
};

struct kmg_backend {
	struct kmg_addr addr;
	/* Settings: written under kn->lock, read locklessly. */
	u16 weight;
	u8 state;		/* enum kmaglev_backend_state */
	u8 encap;		/* enum kmaglev_encap */
	bool keyed;
	u32 gre_key;
	u32 max_conns;

	/*
	 * Probe-mark id: kn->backend_ids maps it to this backend while the backend is in its
	 * service's set. Set (with @svc) under kn->lock before xa_store() publishes the backend
	 * there, constant after. Ids are small and reused (see kmg_chg_assign_ids()): packets
	 * and connection entries hold backends by pointer, never by id, so a reused id moves no
	 * flow; only a probe mark, read at the instant of the packet, follows it.
	 */
	u32 id;
	/*
	 * The service whose set it joined, for life: set under kn->lock before the backend is
	 * published (in kn->backend_ids and in any table), never changed. The backend holds no
	 * reference on it: the probe path only compares it; connection entries dereference it
	 * as their service, on which each holds a reference (conn.c).
	 */
	struct kmg_service *svc;
	bool removed;			/* left its service's set (deleted) */

	refcount_t ref;
	atomic_t conns;			/* connection entries pinned here */
	struct kmg_pcpu_stats __percpu *stats;
	struct kmg_route_cache routes;	/* route to the backend, per CPU (route.c) */
	unsigned int dst_src_seq;	/* the svc->esrc_seq its routes were made for (encap.c) */
	struct rcu_head rcu;
};

/* A backend with slots in a table, and the weight the table was built with. */
struct kmg_table_be {
	struct kmg_backend *be;
	u32 weight;
};

/*
 * A published Maglev table: immutable. be[] lists the backends that have slots, sorted by
 * address; slots[] holds indices into it (2 bytes per slot).
 */
struct kmg_table {
	u32 size;
	u32 gen;
	u32 nbe;
	siphash_key_t flow_key;		/* the service seed, for flow hashes */
	struct kmg_table_be *be;
	struct rcu_work free_work;
	u16 slots[];
};

/* Service settings; kmg_service_apply() copies them in. */
struct kmg_service_cfg {
	u32 table_size;
	u32 hash;
	u32 flags;
	u8 seed[KMG_SEED_LEN];
	u32 ramp_pct;
	u32 ramp_ms;
	u32 window_ms;
	u32 max_conns;
	u32 client_rate;
	__be32 encap_src4;
	struct in6_addr encap_src6;
	char owner[KMAGLEV_OWNER_LEN_MAX + 1];	/* opaque to the kernel; only under kn->lock */
};

struct kmg_net;
struct netlink_ext_ack;
struct sk_buff;

struct kmg_service {
	struct rhash_head node;		/* kn->svc_ht */
	struct kmg_svc_key key;
	u32 id;				/* kn->services */
	struct kmg_net *kn;
	struct kmg_service_cfg cfg;	/* under kn->lock; fields read locklessly */
	/*
	 * cfg.encap_src4 and cfg.encap_src6 (a 16-byte copy, which READ_ONCE() cannot make
	 * whole) are changed under this seqlock (write_seqlock_bh(), under kn->lock); the packet
	 * path reads them in read sections (kmg_encap_src()), and its sequence doubles as the
	 * generation of the setting that cached routes were made for. A seqlock rather than a
	 * bare seqcount: its writer is not preemptible on PREEMPT_RT either.
	 */
	seqlock_t esrc_seq;

	/* Backend set, sorted by address; under kn->lock. */
	struct kmg_backend **be;
	u32 nbe;

	/* Tables: published under kn->lock, read under RCU. */
	struct kmg_table __rcu *cur;
	struct kmg_table __rcu *prev;
	unsigned long mig_start;	/* jiffies when cur was published */
	u32 gen;
	struct delayed_work retire;	/* frees prev when the migration ends */

	refcount_t ref;			/* the service's own, and its connection entries' */
	struct kmg_vip *vip;		/* the VIP address entry, while linked */
	struct list_head vip_node;	/* in vip->services */
	struct kmg_client_limit __rcu *climit;	/* with client-rate set */

	atomic_t conns;
	struct kmg_pcpu_stats __percpu *stats;
	bool dead;			/* unlinked; under kn->lock */
	struct list_head dead_list;
	struct rcu_head rcu;
};

/* Per-client new-flow rate of a service: hashed buckets, one-second windows. */
#define KMG_CLIENT_BUCKETS	1024

struct kmg_client_bucket {
	u32 second;
	atomic_t count;
};

struct kmg_client_limit {
	struct rcu_head rcu;
	struct kmg_client_bucket b[KMG_CLIENT_BUCKETS];
};

/* Per-netns counters, one per global-stats attribute (per CPU, summed for netlink). */
enum kmg_counter {
	KMG_C_RX_PACKETS,
	KMG_C_TX_PACKETS,
	KMG_C_TX_BYTES,
	KMG_C_VIP_MISS,
	KMG_C_DROP_MALFORMED,
	KMG_C_DROP_FRAG,
	KMG_C_DROP_NO_BACKEND,
	KMG_C_DROP_CLIENT_LIMIT,
	KMG_C_DROP_NO_ROUTE,
	KMG_C_DROP_NOMEM,
	KMG_C_DROP_TOO_BIG,
	KMG_C_ICMP_PTB_SENT,
	KMG_C_ICMP_FORWARDED,
	KMG_C_ICMP_ECHO,
	KMG_C_ICMP_DROP,
	KMG_C_FRAG_REASSEMBLED,
	KMG_C_CONN_NEW,
	KMG_C_CONN_HIT,
	KMG_C_CONN_EXPIRED,
	KMG_C_CONN_TABLE_FULL,
	KMG_C_CONN_EVICT_SYN,
	KMG_C_CONN_STATELESS,
	KMG_C_CONN_FLOOD,
	KMG_C_CONN_SVC_LIMIT,
	KMG_C_CONN_RESCHED,
	KMG_C_BACKEND_LIMIT,
	KMG_C_RAMP_NEW,
	KMG_C_RAMP_PREV,
	KMG_C_PREV_HIT,
	KMG_C_PROBE,
	KMG_C_DROP_PROBE_MISMATCH,
	KMG_C_RX_INGRESS,	/* its attribute follows global-stats' pad (netlink.c) */
	KMG_C_FRAG_QUEUED,
	KMG_C_MAX
};

struct kmg_net_stats {
	u64 c[KMG_C_MAX];
};

/* Connection-table settings, read locklessly by the packet path. */
struct kmg_conn_cfg {
	u32 conn_max;
	u32 timeout_tcp_syn;	/* seconds */
	u32 timeout_tcp_est;
	u32 timeout_tcp_fin;
	u32 timeout_udp;
	u32 flood_rate;		/* new entries per second, 0 = off */
	u32 probe_mark_min;	/* under kn->lock: what config-get reports */
	u32 probe_mark_max;
	/*
	 * The packet path's copy of the range, min << 32 | max, written with one WRITE_ONCE()
	 * so that a probe never sees the min of one range with the max of another. (A 32-bit
	 * host may still read it in two halves; kmaglev is built for 64-bit.)
	 */
	u64 probe_marks;
};

/*
 * The connection tables of a netns: one rhashtable per address family (their keys differ in
 * size), lockless lookups under RCU, per-bucket locks for inserts and removals, no per-entry
 * timers: an incremental GC worker expires entries.
 */
struct kmg_conns {
	struct rhashtable ht4;
	struct rhashtable ht6;
	struct mem_cgroup *memcg;	/* charged for entries; set while the hooks are */
	struct rhashtable_iter iter4;	/* GC position, kept between runs */
	struct rhashtable_iter iter6;
	struct delayed_work gc;
	/* flood mode: new entries in the current second */
	unsigned long flood_second;
	atomic_t flood_count;
};

/*
 * Which addresses may be VIPs: a counting filter over VIP addresses, checked before anything
 * else, so packets to other addresses pass after one load. A set bucket may also be another
 * VIP's; the VIP hash table decides.
 */
#define KMG_VIPF_BITS	16

struct kmg_vip_filter {
	struct rcu_head rcu;
	u16 count[1 << KMG_VIPF_BITS];
};

static inline u32 kmg_vipf_hash4(__be32 addr)
{
	return hash_32((__force u32)addr, KMG_VIPF_BITS);
}

/*
 * jhash2 over the four words: a bit flipped in two words, or two words swapped, moves the
 * address to another bucket (with the words' XOR, or any mix that XORs one half into the
 * other, the same flip in both cancels out).
 */
static inline u32 kmg_vipf_hash6(const struct in6_addr *a)
{
	return jhash2((__force const u32 *)a->s6_addr32, 4, 0) >> (32 - KMG_VIPF_BITS);
}

/*
 * The early path's setting and its device hooks (ingress.c).
 *
 * @hook and @devs are written with both RTNL and kn->lock held, and read under either: the
 * netdevice notifier holds RTNL, netlink's config-get kn->lock. (A dying netns, which no
 * netlink request reaches, has @hook reset under RTNL alone: kmg_ingress_net_pre_exit().)
 * @hooked (struct kmg_ingress_hook by ifindex) is changed only under RTNL; a hook is
 * unregistered before its device is (NETDEV_UNREGISTER, also when it leaves the netns, and
 * whatever the setting) and freed after a grace period.
 */
struct kmg_ingress {
	u32 hook;			/* enum kmaglev_hook */
	char devs[KMAGLEV_INGRESS_DEV_LEN_MAX + 1];	/* "all" or a comma-separated list */
	struct xarray hooked;
};

/* PRE_ROUTING and LOCAL_OUT, IPv4 and IPv6 (hook.c) */
#define KMG_NF_OPS	4

/* Per network namespace state. */
struct kmg_net {
	struct net *net;
	struct mutex lock;		/* all configuration of this netns */
	struct rhashtable svc_ht;	/* struct kmg_service by kmg_svc_key */
	struct rhashtable vip_ht;	/* struct kmg_vip by kmg_vip_key */
	struct xarray services;		/* struct kmg_service by id, for dumps */
	struct kmg_vip_filter __rcu *vipf;	/* allocated with the first VIP */
	struct xarray backend_ids;	/* struct kmg_backend by id, for probe marks */
	u32 next_id;
	u32 nservices;
	u32 nbackends;
	u32 max_services;
	u32 max_backends;
	u32 cfg_gen;			/* counts configuration changes, for dumps */
	/*
	 * Balancing: the PRE_ROUTING/LOCAL_OUT hooks are registered while services exist.
	 * Written under kn->lock; the ingress hooks read it locklessly, and take no packet
	 * while it is false (cleared before the synchronize_net() in kmg_hooks_unregister()).
	 */
	bool hooks;
	bool dead;			/* netns is exiting: pre_exit unregistered the hooks */
	struct kmg_conn_cfg ccfg;	/* under kn->lock; read locklessly */
	struct kmg_conns conns;
	struct kmg_net_stats __percpu *stats;
	struct kmg_ingress ingress;
	struct nf_hook_ops nf_ops[KMG_NF_OPS];	/* hook.c's, with priv = this */
};

static inline void kmg_count(struct kmg_net *kn, enum kmg_counter c)
{
	this_cpu_inc(kn->stats->c[c]);
}

static inline void kmg_count_add(struct kmg_net *kn, enum kmg_counter c, u64 n)
{
	this_cpu_add(kn->stats->c[c], n);
}

/* Drop a packet: count it, and free it with the kernel's drop reason. */
static inline void kmg_drop(struct kmg_net *kn, struct sk_buff *skb, enum kmg_counter c,
			    enum skb_drop_reason reason)
{
	kmg_count(kn, c);
	kfree_skb_reason(skb, reason);
}

/*
 * Live objects in all netns, for leak checks: debugfs kmaglev/objects shows them and module
 * unload warns if any is left. Connection entries are counted per CPU (kmg_conn_objects()).
 */
struct kmg_objects {
	atomic_long_t services;
	atomic_long_t backends;
	atomic_long_t tables;
};

extern struct kmg_objects kmg_objects;
extern unsigned int kmg_net_id;
extern struct workqueue_struct *kmg_wq;

static inline struct kmg_net *kmg_pernet(const struct net *net)
{
	return net_generic(net, kmg_net_id);
}

static inline void kmg_addr_from_v4(struct kmg_addr *a, __be32 v4)
{
	memset(a, 0, sizeof(*a));
	a->in6.s6_addr16[5] = htons(0xffff);
	a->in6.s6_addr32[3] = v4;
	a->family = AF_INET;
}

static inline void kmg_addr_from_v6(struct kmg_addr *a, const struct in6_addr *v6)
{
	memset(a, 0, sizeof(*a));
	a->in6 = *v6;
	a->family = AF_INET6;
}

static inline __be32 kmg_addr_v4(const struct kmg_addr *a)
{
	return a->in6.s6_addr32[3];
}

/* backend.c */
struct kmg_backend *kmg_backend_alloc(const struct kmg_backend_cfg *cfg);
int kmg_backend_id_alloc(struct kmg_net *kn, struct kmg_backend *be);
void kmg_backend_id_free(struct kmg_net *kn, struct kmg_backend *be);
void kmg_backend_list(struct kmg_net *kn, struct kmg_service *svc, struct kmg_backend *be);
void kmg_backend_unlist(struct kmg_net *kn, struct kmg_backend *be, bool id_taken);
void kmg_backend_apply(struct kmg_backend *be, const struct kmg_backend_cfg *cfg);
void kmg_backend_put(struct kmg_backend *be);
static inline void kmg_backend_get(struct kmg_backend *be)
{
	refcount_inc(&be->ref);
}

void kmg_backend_stats(const struct kmg_backend *be, struct kmg_stats_sum *sum);
int kmg_backend_find(struct kmg_backend *const *be, u32 n, const u8 addr[16]);

/* limits.c: caps for netns owned by non-initial user namespaces */
enum kmg_limit {
	KMG_LIMIT_SERVICES,
	KMG_LIMIT_BACKENDS,
	KMG_LIMIT_CONNS,
	KMG_LIMIT_TABLE_SIZE,
};

struct nlattr;
u32 kmg_limit(const struct kmg_net *kn, enum kmg_limit l);
void kmg_limits_init(struct kmg_net *kn);
int kmg_limit_check(const struct kmg_net *kn, enum kmg_limit l, u32 val,
		    const struct nlattr *attr, struct netlink_ext_ack *extack);

/* stats.c */
struct kmg_pcpu_stats __percpu *kmg_stats_alloc(void);
void kmg_net_stats_fold(struct kmg_net *kn, u64 *sum);
void kmg_stats_fold(struct kmg_pcpu_stats __percpu *pcpu, struct kmg_stats_sum *sum);

/* table.c */
struct kmg_table *kmg_table_build(const struct kmg_table_be *in, u32 n, u32 size,
				  const u8 seed[KMG_SEED_LEN]);
void kmg_table_free(struct kmg_table *t);
void kmg_table_free_rcu(struct kmg_table *t);
bool kmg_table_same_input(const struct kmg_table *t, const struct kmg_table_be *in, u32 n,
			  u32 size);
size_t kmg_table_bytes(const struct kmg_table *t);
u64 kmg_table_digest(const struct kmg_table *t);
void kmg_table_slot_counts(const struct kmg_table *t, u32 *counts);

/* migrate.c: which table a packet that missed the connection table uses */
struct kmg_mig {
	bool has_prev;
	unsigned long elapsed_ms;	/* since the current table was published */
	u32 ramp_pct;
	u32 ramp_ms;
	u32 window_ms;
};

u64 kmg_mig_ramp_threshold(const struct kmg_mig *m);
bool kmg_mig_use_prev(const struct kmg_mig *m, u32 ramp_hash, bool new_flow);
u32 kmg_mig_ramp_pct(const struct kmg_mig *m);
unsigned long kmg_mig_length_ms(u32 ramp_pct, u32 ramp_ms, u32 window_ms);
void kmg_service_mig(const struct kmg_service *svc, struct kmg_mig *m);

/* vip.c */
/* Which wildcard lookups a service's VIP needs: bit 1 = proto any, bit 0 = every port. */
static inline unsigned int kmg_svc_kind(const struct kmg_svc_key *key)
{
	return (key->proto ? 0 : 2) + (key->port ? 0 : 1);
}

int kmg_vips_init(struct kmg_net *kn);
void kmg_vips_exit(struct kmg_net *kn);
int kmg_vip_attach(struct kmg_net *kn, struct kmg_service *svc);
void kmg_vip_detach(struct kmg_service *svc);
void kmg_vip_flags(struct kmg_vip *vip, u32 flags, int sign);
bool kmg_vip_exists(struct kmg_net *kn, u8 family, const u8 addr[16]);
struct kmg_vip *kmg_vip_lookup_rcu(struct kmg_net *kn, u8 family, const void *daddr);

/* service.c */
struct kmg_service_events {
	int (*start)(struct kmg_net *kn);		/* the netns' first service */
	void (*stop)(struct kmg_net *kn);		/* its last service is gone */
	void (*table_changed)(struct kmg_service *svc);	/* a migration ended */
};

void kmg_service_events_set(const struct kmg_service_events *ev);
int kmg_net_services_init(struct kmg_net *kn);
void kmg_net_services_exit(struct kmg_net *kn);
void kmg_service_cfg_default(struct kmg_service_cfg *cfg);
struct kmg_service *kmg_service_find(struct kmg_net *kn, const struct kmg_svc_key *key);
struct kmg_service *kmg_vip_service_rcu(struct kmg_vip *vip, u8 proto, __be16 dport);
struct kmg_service *kmg_service_lookup_rcu(struct kmg_net *kn, u8 family, const void *daddr,
					   u8 proto, __be16 dport);
int kmg_service_create(struct kmg_net *kn, const struct kmg_svc_key *key,
		       const struct kmg_service_cfg *cfg, struct kmg_backend_cfg *bcfg,
		       u32 nbcfg, struct kmg_service **svcp, struct netlink_ext_ack *extack);
int kmg_service_update(struct kmg_service *svc, const struct kmg_service_cfg *cfg,
		       struct kmg_backend_cfg *bcfg, u32 nbcfg, bool replace,
		       bool *rebuilt, struct netlink_ext_ack *extack);
void kmg_service_destroy(struct kmg_service *svc);
void kmg_service_put(struct kmg_service *svc);
void kmg_service_flush(struct kmg_net *kn);
void kmg_service_stats(const struct kmg_service *svc, struct kmg_stats_sum *sum);
size_t kmg_service_table_bytes(const struct kmg_service *svc);
int kmg_backend_add(struct kmg_service *svc, struct kmg_backend_cfg *cfg, bool *rebuilt,
		    struct netlink_ext_ack *extack);
int kmg_backend_del(struct kmg_service *svc, const u8 addr[16], bool *rebuilt,
		    struct netlink_ext_ack *extack);
int kmg_backend_change(struct kmg_service *svc, const struct kmg_backend_cfg *cfg,
		       bool *rebuilt, struct netlink_ext_ack *extack);

/* conn.c */
enum kmg_conn_state {
	KMG_CS_OTHER,		/* UDP and other protocols */
	KMG_CS_SYN,		/* TCP, only SYN seen */
	KMG_CS_EST,
	KMG_CS_FIN,		/* TCP, FIN or RST seen */
};

struct kmg_conn;
struct mem_cgroup;
long kmg_conn_objects(void);
u32 kmg_conn_count(struct kmg_net *kn);
int kmg_conn_caches_init(void);
void kmg_conn_caches_exit(void);
size_t kmg_conn_entry_bytes(u8 family);
size_t kmg_conn_bucket_bytes(struct kmg_net *kn);
int kmg_conns_init(struct kmg_net *kn);
void kmg_conns_exit(struct kmg_net *kn);
void kmg_conn_gc_start(struct kmg_net *kn);
void kmg_conn_gc_stop(struct kmg_net *kn);
struct kmg_conn *kmg_conn_lookup(struct kmg_net *kn, const struct kmg_pkt *p);
struct kmg_service *kmg_conn_service(const struct kmg_conn *c);
bool kmg_conn_unlink(struct kmg_net *kn, struct kmg_conn *c);
struct kmg_conn *kmg_conn_insert(struct kmg_net *kn, struct kmg_service *svc,
				 const struct kmg_pkt *p, struct kmg_backend *be,
				 enum kmg_counter *why);
bool kmg_conn_expired(const struct kmg_conn *c);
bool kmg_conn_usable(const struct kmg_conn *c, bool new_flow);
struct kmg_backend *kmg_conn_backend(const struct kmg_conn *c);
void kmg_conn_refresh(struct kmg_net *kn, struct kmg_conn *c, const struct kmg_pkt *p);
void kmg_conn_set_backend(struct kmg_net *kn, struct kmg_conn *c, struct kmg_backend *be,
			  const struct kmg_pkt *p, bool is_new);

/* select.c: the per-flow decision of one packet */
struct kmg_flow {
	struct kmg_conn *c;	/* the flow's entry, once looked up */
	bool looked_up;
	bool is_new;		/* the packet started a flow */
	enum kmg_counter why;	/* no backend: the drop counter */
};

u64 kmg_flow_hash(const struct kmg_table *t, u32 mode, const struct kmg_pkt *p);
struct kmg_backend *kmg_flow_fast(struct kmg_net *kn, struct kmg_flow *f,
				  const struct kmg_pkt *p, struct kmg_service **svcp);
struct kmg_backend *kmg_flow_decide(struct kmg_net *kn, struct kmg_flow *f,
				    struct kmg_service *svc, const struct kmg_pkt *p);

/* route.c */
int kmg_route_cache_init(struct kmg_route_cache *rc, gfp_t gfp);
void kmg_route_cache_destroy(struct kmg_route_cache *rc);
void kmg_route_cache_reset(struct kmg_route_cache *rc);
struct dst_entry *kmg_route_get(struct kmg_route_cache *rc, union kmg_inaddr *saddr);
void kmg_route_set(struct kmg_route_cache *rc, struct dst_entry *dst,
		   const union kmg_inaddr *saddr);

/* encap.c */
DECLARE_PER_CPU(bool, kmg_in_xmit);
void kmg_local_out(struct kmg_net *kn, struct sk_buff *skb);
void kmg_xmit(struct kmg_net *kn, const struct kmg_service *svc, struct kmg_backend *be,
	      struct sk_buff *skb, const struct kmg_pkt *p);

/* icmp.c */
void kmg_icmp_too_big(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p,
		      unsigned int mtu);
void kmg_icmp_time_exceeded(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p);
void kmg_icmp_echo_reply(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p);

/* hook.c */
struct nf_hook_state;

/* Could the address be a VIP? One load answers no for almost every other address. */
static inline bool kmg_vip_maybe(struct kmg_net *kn, u32 bucket)
{
	struct kmg_vip_filter *f = rcu_dereference(kn->vipf);

	return f && READ_ONCE(f->count[bucket]);
}

unsigned int kmg_rcv(struct kmg_net *kn, struct sk_buff *skb, const struct nf_hook_state *state,
		     u8 family, const void *daddr, bool early);
int kmg_hooks_register(struct kmg_net *kn);
void kmg_hooks_unregister(struct kmg_net *kn);
void kmg_hooks_pre_exit(struct kmg_net *kn);

/* ingress.c */
struct netlink_ext_ack;
int kmg_ingress_check(u32 hook, const char *devs, const struct nlattr *ahook,
		      const struct nlattr *attr, struct netlink_ext_ack *extack);
int kmg_ingress_set(struct kmg_net *kn, u32 hook, const char *devs,
		    struct netlink_ext_ack *extack);
void kmg_ingress_net_init(struct kmg_net *kn);
void kmg_ingress_net_pre_exit(struct kmg_net *kn);
int kmg_ingress_init(void);
void kmg_ingress_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int kmg_ingress_one(struct kmg_net *kn, struct sk_buff *skb,
			     const struct nf_hook_state *state);
#endif

/* debugfs.c */
void kmg_debugfs_init(void);
void kmg_debugfs_exit(void);

/* netlink.c */
int kmg_genl_init(void);
void kmg_genl_exit(void);
void kmg_notify_table(struct kmg_service *svc);

#endif /* _KMAGLEV_H */
