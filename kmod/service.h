/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev services (service.c): the services of a netns, keyed by VIP, protocol and port,
 * with their settings, backend sets and published tables; and the changes netlink makes to
 * them.
 *
 * Locking and lifetime
 * --------------------
 * - The packet path takes no locks. It finds a service with an RCU lookup in kn->svc_ht (after
 *   kn->vip_ht says the address is a VIP at all), then reads svc->cur / svc->prev with
 *   rcu_dereference(). Tables are table.h's.
 * - Service settings the packet path reads are scalars written with WRITE_ONCE() under
 *   kn->lock and read with READ_ONCE().
 * - A service is removed from the hash tables under kn->lock and freed after a grace period,
 *   with its tables.
 */
#ifndef _KMAGLEV_SERVICE_H
#define _KMAGLEV_SERVICE_H

#include <linux/atomic.h>
#include <linux/compiler_types.h>
#include <linux/in6.h>
#include <linux/kmaglev.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/seqlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "maglev.h"

struct kmg_backend;
struct kmg_backend_cfg;
struct kmg_net;
struct kmg_pcpu_stats;
struct kmg_stats_sum;
struct kmg_table;
struct kmg_vip;
struct netlink_ext_ack;

#define KMG_DEFAULT_WINDOW_MS		30000

struct kmg_svc_key {
	u8 addr[16];		/* as in struct kmg_addr */
	u8 family;
	u8 proto;		/* IPPROTO_TCP, IPPROTO_UDP, or 0 for any */
	__be16 port;		/* 0 for every port */
};

/* Service settings; kmg_service_cfg_apply() copies them in. */
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
	u32 criticality;	/* of its new flows that dscp-map does not map (shed.c) */
	u32 overload;		/* KMAGLEV_OVERLOAD_ON: shed as under netns overload */
	__be32 encap_src4;
	struct in6_addr encap_src6;
	char owner[KMAGLEV_OWNER_LEN_MAX + 1];	/* opaque to the kernel; only under kn->lock */
};

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

#endif /* _KMAGLEV_SERVICE_H */
