/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: the health-check engine's insides, shared by health.c (probes, sharing,
 * scheduling, results) and the check kinds (checks/: tcp.c, udp.c, http.c, exec.c). Not for
 * the rest of the daemon: it uses health.h. A kind plugs into the engine through its ops
 * table only, handed to kmd_hc_new() in a table by kind (checks/checks.h); the engine names
 * no kind, and a kind calls only the engine's functions below.
 *
 * A run: health.c arms the run's timeout and calls the kind's start(); the kind calls
 * kmd_probe_done() exactly once, possibly from inside start(), and touches the probe no more
 * after it (a listener may have dropped the last reference). On timeout health.c calls the
 * kind's stop() and reports "timeout" itself.
 */
#ifndef KMAGLEV_DAEMON_HEALTH_INT_H
#define KMAGLEV_DAEMON_HEALTH_INT_H

#include <stdarg.h>
#include <sys/types.h>

#include "daemon/health/health.h"

struct kmd_listener {
	kmd_probe_cb cb;		/* NULL: removed while listeners were being called */
	void *arg;
};

struct kmd_kind_ops {
	/* Begin a run. Report with kmd_probe_done(), now or later. */
	void (*start)(struct kmd_probe *p);
	/* Abandon the run in flight (timeout, probe stopped); no report. */
	void (*stop)(struct kmd_probe *p);
	/* Free what the kind keeps across runs (the probe is going away). May be NULL. */
	void (*release)(struct kmd_probe *p);
	/* Free what the kind keeps in the engine (kmd_hc_priv; the engine is going away). */
	void (*fini)(struct kmd_hc *hc);
};

struct kmd_probe {
	struct kmd_hc *hc;
	struct kmd_probe *hnext;	/* hash chain */
	struct kmd_probe *prev, *next;	/* every probe, for kmd_hc_for_each() */
	uint32_t hash;
	struct kmd_check check;		/* deep copy */
	struct kmd_target t;
	const struct kmd_kind_ops *ops;

	struct kmd_listener *ls;
	unsigned int nls;
	unsigned int busy;		/* engine frames using the probe: free it after them */
	bool dead;			/* last listener gone while busy */

	struct kmd_hcsm sm;
	struct kmd_result last;
	bool has_last;
	/* what the listeners last heard */
	enum kmd_health told_state;
	int told_admin, told_weight_pct, told_weight, told_util;
	double util_avg;		/* smoothed "util:N" reports; -1: none (kmd_probe_util()) */

	ev_timer sched;			/* next run */
	ev_tstamp due;			/* when the next (or the running) run is due */
	ev_timer tmo;			/* the run in flight times out */
	bool running;
	ev_tstamp started;		/* run start (ev_now) */
	struct timespec t0;		/* run start, monotonic, for its latency */

	/* socket kinds: tcp, agent, udp, dns */
	int fd;
	ev_io io;
	char buf[512];
	size_t len;
	uint16_t dns_id;

	/* http */
	void *easy;			/* CURL * */
	void *hdrs;			/* struct curl_slist *: CURLOPT_CONNECT_TO */
	void *resolve;			/* struct curl_slist *: CURLOPT_RESOLVE */
	void *http_slot;		/* its place in a curl multi handle (http.c), or NULL */
	char *body;			/* body so far, when the check matches one */
	size_t body_len;

	/* exec */
	pid_t pid;			/* the running command's process (group), 0: none */
	ev_child child;
	int out_fd;
	ev_io out_io;

	/* stats */
	uint64_t runs, failures;
	uint64_t bucket[10];		/* per bucket, not cumulative */
	double sum_s;
};

/* Report the run's result: @ok and printf-style why. Do not touch @p afterwards. */
void kmd_probe_done(struct kmd_probe *p, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* As kmd_probe_done(), with the agent/exec fields of @r (its ok and why are used too). */
void kmd_probe_done_result(struct kmd_probe *p, const struct kmd_result *r);

/*
 * A non-blocking socket of @type to the probe's target, SO_MARK set when the target has a
 * mark, connect() started. The fd, or -1 with @why filled ("socket: ...", "connect: ...").
 * *@now is set when connect() completed at once.
 */
int kmd_probe_connect(struct kmd_probe *p, int type, bool *now, char *why, size_t whylen);
/* "connect: ..." for @err, a connect() of @p that failed: what to do when a tunnel has no route. */
void kmd_connect_why(const struct kmd_probe *p, int err, char *why, size_t len);
/* Set the SO_MARK of @fd when @mark is not 0. 0 or -errno. */
int kmd_sock_mark(int fd, uint32_t mark);

/* What kind @k keeps in the engine (http: its curl multi, made on the first run); NULL at first. */
void *kmd_hc_priv(struct kmd_hc *hc, enum kmd_check_kind k);
void kmd_hc_set_priv(struct kmd_hc *hc, enum kmd_check_kind k, void *priv);
struct ev_loop *kmd_hc_loop(struct kmd_hc *hc);

#endif
