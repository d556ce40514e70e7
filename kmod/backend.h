/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev backends (backend.c): a backend of one service, its settings as netlink gives them,
 * and its lifetime.
 *
 * Locking and lifetime
 * --------------------
 * - Backend settings the packet path reads are scalars written with WRITE_ONCE() under
 *   kn->lock and read with READ_ONCE().
 * - A backend is refcounted (refcount_t): the service's backend set, each table, and each
 *   connection entry hold a reference. The last put frees it after an RCU grace period.
 */
#ifndef _KMAGLEV_BACKEND_H
#define _KMAGLEV_BACKEND_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler_types.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include "addr.h"
#include "route.h"

struct kmg_net;
struct kmg_pcpu_stats;
struct kmg_service;
struct kmg_stats_sum;

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

#endif /* _KMAGLEV_BACKEND_H */
