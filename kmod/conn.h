/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev connection table (conn.c): which backend each flow is pinned to, per netns.
 *
 * Lookups are lockless under RCU; inserts and removals take the rhashtables' per-bucket
 * locks; a GC worker expires entries. An entry holds references on its backend and its
 * service and is freed after a grace period (the rules in full are at the top of conn.c). The
 * settings are written under kn->lock and read locklessly by the packet path.
 */
#ifndef _KMAGLEV_CONN_H
#define _KMAGLEV_CONN_H

#include <linux/atomic.h>
#include <linux/rhashtable-types.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "stats.h"

struct kmg_backend;
struct kmg_net;
struct kmg_pkt;
struct kmg_service;

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

#endif /* _KMAGLEV_CONN_H */
