/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev counters (stats.c): the per-CPU packet, byte and new-flow counters of services and
 * backends, and the per-netns counters of the packet path (enum kmg_counter).
 *
 * Service and backend counters (u64_stats) are written by the packet path only, on its own
 * CPU with bottom halves off (hook.c). The netns counters are this_cpu_inc()/this_cpu_add(),
 * safe from any context (the connection table's GC counts expiries from its worker). Readers
 * sum them over CPUs (kmg_stats_fold(), kmg_net_stats_fold()) for netlink. The helpers that
 * count into a netns, kmg_count() and kmg_drop(), are in netns.h, with struct kmg_net.
 */
#ifndef _KMAGLEV_STATS_H
#define _KMAGLEV_STATS_H

#include <linux/compiler_types.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>

struct kmg_net;

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
	KMG_C_RX_INGRESS,	/* its attribute follows global-stats' pad (netlink_stats.c) */
	KMG_C_FRAG_QUEUED,
	KMG_C_QUOTA_DROP,
	KMG_C_QUOTA_RST,
	KMG_C_QUOTA_UNTRACKED,
	KMG_C_SHED_CONN_FILL,
	KMG_C_SHED_NEW_RATE,
	KMG_C_SHED_LOAD,
	KMG_C_SHED_UTIL,
	KMG_C_DR_NEIGH_FAILED,
	KMG_C_DROP_DR_ROUTE,
	KMG_C_MAX
};

struct kmg_net_stats {
	u64 c[KMG_C_MAX];
};

/* stats.c */
struct kmg_pcpu_stats __percpu *kmg_stats_alloc(void);
void kmg_net_stats_fold(struct kmg_net *kn, u64 *sum);
void kmg_stats_fold(struct kmg_pcpu_stats __percpu *pcpu, struct kmg_stats_sum *sum);

#endif /* _KMAGLEV_STATS_H */
