/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev per network namespace state (struct kmg_net, set up by main.c's pernet operations):
 * the netns' services, VIP addresses, connection tables, settings and counters, and the
 * helpers that count into it.
 *
 * Locking and lifetime
 * --------------------
 * - Every configuration change in a netns runs under that netns' kn->lock (a mutex), from
 *   netlink or from the table retire work. Tables are built there too, in process context.
 * - What the packet path reads without the lock, and how each object lives and dies, is said
 *   in the object's header: service.h, backend.h, table.h, vip.h, conn.h, quota.h, shed.h
 *   and ingress.h.
 */
#ifndef _KMAGLEV_NETNS_H
#define _KMAGLEV_NETNS_H

#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rhashtable-types.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "conn.h"
#include "ingress.h"
#include "quota.h"
#include "shed.h"
#include "stats.h"

struct kmg_vip_filter;

#define KMG_DEFAULT_MAX_SERVICES	65536
#define KMG_DEFAULT_MAX_BACKENDS	BIT(20)
#define KMG_DEFAULT_CONN_MAX		BIT(20)
#define KMG_DEFAULT_TIMEOUT_TCP_SYN	30
#define KMG_DEFAULT_TIMEOUT_TCP_EST	900
#define KMG_DEFAULT_TIMEOUT_TCP_FIN	30
#define KMG_DEFAULT_TIMEOUT_UDP		300

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
	struct kmg_quotas quotas;	/* per-source new-flow quotas (quota.h) */
	struct kmg_shed shed;		/* criticality-aware load shedding (shed.h) */
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

extern unsigned int kmg_net_id;

static inline struct kmg_net *kmg_pernet(const struct net *net)
{
	return net_generic(net, kmg_net_id);
}

#endif /* _KMAGLEV_NETNS_H */
