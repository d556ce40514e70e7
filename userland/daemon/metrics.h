/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: Prometheus metrics over HTTP (libmicrohttpd, driven by the daemon's libev
 * loop: no thread of its own). GET /metrics renders at scrape time: the kernel's counters,
 * fetched then over netlink, and the daemon's own state. Other paths: 404; other methods
 * than GET and HEAD: 405.
 *
 * Families (all prefixed kmaglev_; labels {vip,port,proto}, backends add backend, checks
 * add check):
 *   kernel:  service_/backend_ packets_total, bytes_total, new_flows_total, conns (gauge);
 *            drops_total{reason} for the data path's drop-* counters; the other netns-wide
 *            counters as <name>_total (rx_packets_total, conn_new_total, quota_drop_total,
 *            ...); kernel_up; quota_sources (gauge), and quota_rejected_total{prefix} and
 *            quota_accepted_total{prefix} of the KMD_QUOTA_TOP buckets with the most rejected
 *            new flows (labels prefix, and service in quota-scope service; not {vip,...});
 *            load (gauge, 0..1), shedding{reason} (gauge, 0/1 per overload signal),
 *            shed_transitions_total; the shed-* counters as shed_conn_fill_total, ...
 *   daemon:  service_healthy, service_below_quorum, service_overloaded, backend_up,
 *            backend_health_transitions_total, backend_utilization (agents' util:N,
 *            smoothed), check_up, check_runs_total,
 *            check_failures_total, check_transitions_total, check_latency_seconds
 *            (histogram), reconcile_runs_total, reconcile_messages_total,
 *            reconcile_errors_total, table_builds_total, reloads_total,
 *            reload_failures_total, foreign_changes_total, draining, uptime_seconds.
 */
#ifndef KMAGLEV_DAEMON_METRICS_H
#define KMAGLEV_DAEMON_METRICS_H

#include "lib/session.h"
#include "daemon/expfmt.h"

struct kmd;

/*
 * Serve on d->cfg->daemon.metrics_addr:metrics_port (port 0: metrics off, nothing done).
 * 0, or a negative errno with the reason logged to stderr.
 */
int kmd_metrics_start(struct kmd *d);
void kmd_metrics_stop(struct kmd *d);

/* Everything /metrics serves: the kernel's counters (fetched now) and the daemon's. */
int kmd_metrics_render(struct kmd *d, struct kmd_prom *p);

/*
 * The kernel's counters: services (messages with a service, their backends in m->be, as
 * kmg_stats_dump() returns them; others are skipped) and the netns-wide ones (@g may be NULL).
 */
int kmd_metrics_render_kernel(struct kmd_prom *p, const struct kmg_msgs *svcs,
			      const struct kmg_global_stats *g);
/* Quota buckets a scrape shows: a bounded number of series whatever the table holds. */
#define KMD_QUOTA_TOP	10
/* Quota tables larger than this are not read at a scrape (only their size is exported). */
#define KMD_QUOTA_SCRAPE_MAX	65536

/*
 * The quota table: its size (@c, a CONFIG_GET reply; nothing if it reports none, as a kernel
 * without quotas does) and the buckets of @qs, named by prefix, and in quota-scope service by
 * the service of that id in @svcs (the stats dump; may be NULL).
 */
int kmd_metrics_render_quota(struct kmd_prom *p, const struct kmg_config *c,
			     const struct kmg_quotas *qs, const struct kmg_msgs *svcs);
/*
 * Load shedding in the netns (@c, a CONFIG_GET reply; what it does not report is left out):
 * kmaglev_load, kmaglev_shedding{reason} and kmaglev_shed_transitions_total.
 */
int kmd_metrics_render_shed(struct kmd_prom *p, const struct kmg_config *c);
/* The daemon's own: health, checks, reconcile counters, lame duck, up time. */
int kmd_metrics_render_daemon(struct kmd *d, struct kmd_prom *p);

#endif
