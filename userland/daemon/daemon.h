/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: its running state.
 *
 * One thread, one libev loop. The loop owns everything below: the config in force, one
 * struct kmd_svc per configured service with one struct kmd_be per backend, the health-check
 * engine, the netlink socket for requests and the one subscribed to the family's events, the
 * control socket and the metrics server. Nothing is shared with another thread.
 */
#ifndef KMAGLEV_DAEMON_DAEMON_H
#define KMAGLEV_DAEMON_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <ev.h>

#include "lib/session.h"
#include "daemon/config.h"
#include "daemon/health/health.h"

/* One backend of a configured service. */
struct kmd_be {
	struct kmd_svc *svc;
	const struct kmd_backend *conf;	/* in svc->conf */
	struct kmd_probe **probes;	/* one per check in force for this backend */
	unsigned int nprobes;
	enum kmd_health health;		/* UP when every probe is UP (no checks: UP) */
	int admin;			/* from the agent: KMAGLEV_BACKEND_STATE_*, -1: none */
	int weight_pct;			/* agent N%, -1: none */
	int weight;			/* agent weight:N or exec "weight N", -1: none */
	int util;			/* agent util:N, smoothed (kmd_probe_util()), -1: none */
	bool util_pending;		/* an agent check has not answered yet (start, reload) */
	unsigned int util_factor;	/* the share of the weight it gives, 100: whole */
	int adopt_admin, adopt_weight;	/* stand-ins until an agent/exec check answers */
	struct kmg_backend kernel;	/* as last read from the kernel (present 0: absent) */
	uint64_t transitions;		/* health changes */
	bool unbound;			/* a tunnel check cannot run yet (no kernel id) */
};

/* One configured (owned) service. */
struct kmd_svc {
	struct kmd *d;
	const struct kmd_config *cfg;	/* the config it belongs to (during a reload: the new) */
	const struct kmd_service *conf;	/* in kmd->cfg */
	struct kmd_be *be;
	unsigned int nbe;
	bool healthy;			/* quorum met (or action serve/fail-open) */
	bool below_quorum;
	bool overloaded;		/* shed-above: the kernel's overload is to be on */
	double overloaded_at;		/* since when (CLOCK_MONOTONIC, seconds) */
	unsigned int nup, nconfigured;	/* healthy and configured-up backends (quorum) */
	uint32_t kernel_id;		/* the kernel's service id, 0: not there yet */
	struct kmg_service last;	/* the desired state last applied (owns last.be) */
	bool has_last;
};

struct kmd_counters {
	uint64_t reconcile_runs;	/* diffs computed */
	uint64_t reconcile_msgs;	/* requests sent by them */
	uint64_t reconcile_errors;	/* requests the kernel refused */
	uint64_t table_builds;		/* table-change events of owned services */
	uint64_t reloads, reload_failures;
	uint64_t foreign_changes;	/* hand changes to owned services seen on events */
};

struct kmd {
	struct ev_loop *loop;
	struct kmg_ctx ctx;		/* requests (the CLI's context, JSON off) */
	struct kmd_config *cfg;		/* in force */
	const char *cfg_path;
	struct kmd_svc *svc;
	unsigned int nsvc;
	struct kmd_hc *hc;
	struct kmd_counters n;
	bool draining;			/* SIGTERM: lame duck until drain_until */
	ev_tstamp drain_until;
	ev_tstamp started;
	void *metrics;			/* struct MHD_Daemon *, NULL: off */
	void *ctl;			/* control socket server */
	struct kmd_bgpd *bgp;		/* announcing the VIPs (bgp.c), NULL: no bgp: */
	/* kernel facts of the last read */
	uint32_t probe_mark_min, probe_mark_max;
	uint32_t portid;		/* of our request socket: events we caused carry it */
	/* loop plumbing (sync.c, main.c) */
	struct kmg_nl events;		/* subscribed to the family's "events" group */
	bool events_open;
	ev_io events_w;
	ev_timer reconcile_w;		/* kmd_reconcile_soon() */
	/*
	 * A backend's state changed in a way the kernel must follow (its health, a check that can
	 * run now): main.c sets sync.c's kmd_reconcile_soon(). The state (state.c) tells the loop
	 * through this and calls nothing above it: checks -> state -> reconcile -> kernel, BGP.
	 */
	void (*state_changed)(struct kmd *d);
	ev_timer refresh_w;		/* kmd_refresh_soon() */
	ev_timer resync_w;		/* periodic reconcile, and retry after a failure */
	double retry_s;			/* the retry's back-off, 0: the last pass succeeded */
	ev_timer foreign_w;		/* reconcile after a foreign change, at most 1/s */
	ev_timer drain_w;		/* lame duck: exit when it fires */
	ev_timer watchdog_w;		/* sd_notify WATCHDOG=1 */
	ev_signal sig_w[4];		/* HUP, TERM, INT, CHLD is libev's own */
	bool exiting;
	bool graceful_restart;		/* exit leaving routes announced (ctl) */
	int exit_code;
};

/*
 * Control socket: one JSON object per line each way. Requests {"cmd": "status"} and
 * {"cmd": "reload"}; replies {"ok": true, ...} or {"ok": false, "error": "..."}.
 *
 * The status reply: {"ok": true, "config": PATH, "draining": BOOL, "uptime-s": N,
 *   "services": [{"service": "tcp 10.0.0.1:80", "id": N, "healthy": BOOL,
 *     "below-quorum": BOOL, "overload": "on" | "off",
 *     "backends": [{"address": "10.1.0.1",
 *        "configured": {"weight": N, "state": "up"},
 *        "health": "up" | "down" | "unknown",
 *        "kernel": {"id": N, "weight": N, "state": "up"} | null,
 *        "checks": [{"name": "http", "state": "up", "result": "ok" | why,
 *                    "latency-ms": 1.25, "transitions": N}]}]}]}
 */
struct json_object;
/* The status reply above (status.c). */
struct json_object *kmd_status_json(struct kmd *d);

#define KMD_RESYNC_S		30.	/* periodic full pass: catches anything events missed */

#define KMD_SOCKET_DEFAULT	"/run/kmaglev/daemon.sock"
/* Exit status after `kmaglev graceful-restart` (EX_TEMPFAIL): the unit restarts the daemon. */
#define KMD_EXIT_RESTART	75
#define KMD_CONFIG_DEFAULT	"/etc/kmaglev/kmaglev.yaml"	/* or $KMAGLEV_CONFIG */
/* How the message starts when the config file cannot be read at all. */
#define KMD_NO_CONFIG		"cannot read the configuration file "

#endif
