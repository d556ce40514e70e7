/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: the health-check engine.
 *
 * One probe runs per distinct (check, target) pair, however many service backends use it:
 * kmd_probe_get() returns the running probe when an equal one exists and adds a listener.
 * Everything runs on the daemon's libev loop, non-blocking: TCP/UDP/DNS/agent probes on raw
 * non-blocking sockets with ev_io, HTTP(S) through libcurl's multi-socket interface, exec
 * through fork/exec with ev_child. Nothing here talks to the kernel's family; listeners
 * decide what a state means.
 */
#ifndef KMAGLEV_DAEMON_HEALTH_H
#define KMAGLEV_DAEMON_HEALTH_H

#include <stdbool.h>
#include <stdint.h>
#include <ev.h>

#include "daemon/config.h"
#include "lib/util.h"

/* Where a probe goes. */
struct kmd_target {
	struct kmg_addr addr;		/* connect here: the backend (direct) or the VIP (tunnel) */
	uint16_t port;			/* resolved: never 0 */
	uint32_t mark;			/* SO_MARK, 0: none (tunnel: probe-mark-min + backend id) */
	/* for Host defaults, exec's environment and messages */
	struct kmg_addr backend;
	struct kmg_addr vip;
	uint16_t vport;
	uint8_t proto;
};

enum kmd_health {
	KMD_HEALTH_UNKNOWN,		/* no verdict yet (rise/fall not reached from a start) */
	KMD_HEALTH_UP,
	KMD_HEALTH_DOWN,
};

/* What one run of a probe found. */
struct kmd_result {
	bool ok;
	uint32_t latency_us;
	char why[128];			/* "ok", "connect: Connection refused", "status 503", ... */
	/* agent and exec only; -1 when the reply did not say */
	int admin;			/* KMAGLEV_BACKEND_STATE_UP / _DRAIN / _DOWN (agent) */
	int weight_pct;			/* agent "N%" */
	int weight;			/* agent "weight:N", exec "weight N" */
	int util;			/* agent "util:N": the backend's utilization, percent */
};

/* Rise/fall state machine of one probe (pure; unit-tested on its own). */
struct kmd_hcsm {
	enum kmd_health state;
	uint32_t rise, fall;
	uint32_t ok_run, fail_run;	/* consecutive results of the other polarity */
	uint64_t transitions;
};

void kmd_hcsm_init(struct kmd_hcsm *m, uint32_t rise, uint32_t fall, enum kmd_health start);
/* Feed one result; true when the state changed. */
bool kmd_hcsm_step(struct kmd_hcsm *m, bool ok);
/* In transition: rising or falling (a run of the other polarity has started). */
bool kmd_hcsm_moving(const struct kmd_hcsm *m);

struct kmd_hc;
struct kmd_probe;
struct kmd_kind_ops;

/*
 * Called after a run whose state, admin, weight or weight_pct differs from the last one, or
 * that moved the smoothed utilization (kmd_probe_util()).
 */
typedef void (*kmd_probe_cb)(struct kmd_probe *p, void *arg);

/* An engine on @loop with the check kinds @kinds (by enum kmd_check_kind: checks/checks.h). */
struct kmd_hc *kmd_hc_new(struct ev_loop *loop, const struct kmd_kind_ops *const *kinds);
/* Stops every probe; listeners are not called. */
void kmd_hc_free(struct kmd_hc *hc);

/*
 * The probe for (@check, @t), started if new with state @start (KMD_HEALTH_UP when the
 * kernel says the backend is serving, so a restart black-holes nothing). The check is copied.
 * @cb(@arg) is added as a listener. NULL on allocation failure.
 */
struct kmd_probe *kmd_probe_get(struct kmd_hc *hc, const struct kmd_check *check,
				const struct kmd_target *t, enum kmd_health start,
				kmd_probe_cb cb, void *arg);
/* Remove a listener; the probe stops with its last one. */
void kmd_probe_put(struct kmd_probe *p, kmd_probe_cb cb, void *arg);

enum kmd_health kmd_probe_state(const struct kmd_probe *p);
const struct kmd_result *kmd_probe_last(const struct kmd_probe *p);	/* NULL: none yet */
const struct kmd_check *kmd_probe_check(const struct kmd_probe *p);
const struct kmd_target *kmd_probe_target(const struct kmd_probe *p);
uint64_t kmd_probe_transitions(const struct kmd_probe *p);
/* Runs, failures and latency histogram buckets (le 1,5,10,25,50,100,250,500,1000,+Inf ms). */
struct kmd_probe_stats {
	uint64_t runs, failures;
	uint64_t bucket[10];		/* cumulative counts, Prometheus style */
	double sum_s;			/* sum of latencies in seconds */
};
extern const double kmd_latency_bounds_s[9];	/* the finite bucket bounds */
void kmd_probe_stats(const struct kmd_probe *p, struct kmd_probe_stats *st);
/*
 * The probe's reported utilization, smoothed (KMD_UTIL_ALPHA of each new report, the rest of
 * the average before), rounded to a percent; -1 when there is none: no report yet, an
 * answer without one, or the probe is down (a failed run keeps the average).
 */
int kmd_probe_util(const struct kmd_probe *p);
#define KMD_UTIL_ALPHA	0.3
/* The smoothing step on its own (unit-tested): @avg < 0 means no average yet. */
double kmd_util_smooth(double avg, int util);

/* Call @fn for every probe (metrics, status). */
void kmd_hc_for_each(struct kmd_hc *hc, void (*fn)(struct kmd_probe *p, void *arg), void *arg);

/* Parsers, unit-tested on their own. */
/* An agent-check reply line; fills admin/weight_pct/weight/util and ok. 0 or -EINVAL. */
int kmd_agent_parse(const char *line, struct kmd_result *r);
/* Is @status in one of the ranges? */
bool kmd_status_match(const struct kmd_status_range *r, unsigned int n, unsigned int status);

#endif
