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
#include <linux/jiffies.h>
#include <linux/rhashtable-types.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <net/tcp.h>

#include "backend.h"
#include "parse.h"
#include "stats.h"

struct kmg_net;
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

struct kmg_conn_key4 {
	__be32 saddr;
	__be32 daddr;
	__be16 sport;
	__be16 dport;
	u8 proto;
	u8 pad[3];
};

struct kmg_conn_key6 {
	struct in6_addr saddr;
	struct in6_addr daddr;
	__be16 sport;
	__be16 dport;
	u8 proto;
	u8 pad[3];
};

/*
 * An entry. IPv4 entries are allocated only up to the end of k4 (56 bytes on 64-bit), IPv6
 * entries up to the end of k6 (80). Read locklessly under RCU by the packet path and GC:
 * node, family and the key are set before rhashtable publishes the entry and never change;
 * be, expires and state change while it is published, each written with one xchg() or
 * WRITE_ONCE() and read with READ_ONCE(); rcu is call_rcu()'s once the entry is unlinked.
 */
struct kmg_conn {
	struct rhash_head node;
	/*
	 * Changed with xchg() (resched, reuse), only ever to a backend of the same service
	 * (see the file comment): be->svc is the entry's service.
	 */
	struct kmg_backend *be;
	u32 expires;			/* jiffies, 32 bits */
	u8 state;			/* enum kmg_conn_state */
	u8 family;
	struct rcu_head rcu;
	union {
		struct kmg_conn_key4 k4;
		struct kmg_conn_key6 k6;
	};
};

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
bool kmg_conn_unlink(struct kmg_net *kn, struct kmg_conn *c);
struct kmg_conn *kmg_conn_insert(struct kmg_net *kn, struct kmg_service *svc,
				 const struct kmg_pkt *p, struct kmg_backend *be,
				 enum kmg_counter *why);
void kmg_conn_set_backend(struct kmg_net *kn, struct kmg_conn *c, struct kmg_backend *be,
			  const struct kmg_pkt *p, bool is_new);

/*
 * The entry accessors of the packet path, inline: an established flow's every packet takes
 * them. Under RCU, on an entry found in the table (see struct kmg_conn).
 */

/* The entry's backend; the entry holds a reference on it. */
static inline struct kmg_backend *kmg_conn_backend(const struct kmg_conn *c)
{
	return READ_ONCE(c->be);
}

/* The entry's service: its backend's (the entry holds a reference on it). */
static inline struct kmg_service *kmg_conn_service(const struct kmg_conn *c)
{
	return kmg_conn_backend(c)->svc;
}

static inline bool kmg_conn_expired(const struct kmg_conn *c)
{
	return (s32)((u32)jiffies - READ_ONCE(c->expires)) >= 0;
}

/*
 * Does a packet keep to this entry? Not when it expired (GC has not got to it yet), nor when
 * a new connection (SYN) reuses the 5-tuple of a closed one: then the entry is reused.
 */
static inline bool kmg_conn_usable(const struct kmg_conn *c, bool new_flow)
{
	return !kmg_conn_expired(c) && !(new_flow && READ_ONCE(c->state) == KMG_CS_FIN);
}

/* The idle timeout of an entry in @state, in jiffies. */
static inline u32 kmg_conn_timeout(const struct kmg_conn_cfg *cc, u8 state)
{
	u32 s;

	switch (state) {
	case KMG_CS_SYN:
		s = READ_ONCE(cc->timeout_tcp_syn);
		break;
	case KMG_CS_EST:
		s = READ_ONCE(cc->timeout_tcp_est);
		break;
	case KMG_CS_FIN:
		s = READ_ONCE(cc->timeout_tcp_fin);
		break;
	default:
		s = READ_ONCE(cc->timeout_udp);
		break;
	}
	return s * HZ;
}

/* The state a packet moves an entry to (or a new entry starts in). */
static inline u8 kmg_conn_next_state(u8 state, const struct kmg_pkt *p, bool is_new)
{
	if (p->proto != IPPROTO_TCP)
		return KMG_CS_OTHER;
	if (p->tcp_flags & (TCPHDR_FIN | TCPHDR_RST))
		return KMG_CS_FIN;
	if ((p->tcp_flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN)
		return KMG_CS_SYN;
	if (is_new || state == KMG_CS_SYN)
		return KMG_CS_EST;
	return state;
}

/*
 * A packet of the flow: move the state on and push the expiry (@cc: the netns' settings).
 * The expiry is only written when it moves by more than a second, so a busy flow does not
 * dirty its entry every packet.
 */
static inline void kmg_conn_refresh(const struct kmg_conn_cfg *cc, struct kmg_conn *c,
				    const struct kmg_pkt *p)
{
	u8 state = kmg_conn_next_state(READ_ONCE(c->state), p, false);
	u32 expires = (u32)jiffies + kmg_conn_timeout(cc, state);

	if (state != READ_ONCE(c->state))
		WRITE_ONCE(c->state, state);
	else if ((s32)(expires - READ_ONCE(c->expires)) < HZ)
		return;
	WRITE_ONCE(c->expires, expires);
}

#endif /* _KMAGLEV_CONN_H */
