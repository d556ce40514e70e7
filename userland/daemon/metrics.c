// SPDX-License-Identifier: GPL-2.0
/* kmaglev daemon: Prometheus metrics, their rendering and their HTTP server (see metrics.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <microhttpd.h>

#include "lib/err.h"
#include "lib/schema.h"
#include "lib/show.h"
#include "daemon/announce.h"
#include "daemon/daemon.h"
#include "daemon/metrics.h"

/* Label values of one service, backend and check. */
struct labels {
	char vip[INET6_ADDRSTRLEN], port[8], backend[INET6_ADDRSTRLEN];
	struct kmd_prom_label l[5];
};

static void labels_svc(struct labels *x, const struct kmg_svc_key *k)
{
	kmg_fmt_addr(&k->addr, x->vip, sizeof(x->vip));
	snprintf(x->port, sizeof(x->port), "%u", k->port);
	x->l[0] = (struct kmd_prom_label){ "vip", x->vip };
	x->l[1] = (struct kmd_prom_label){ "port", x->port };
	x->l[2] = (struct kmd_prom_label){ "proto", kmg_fmt_proto(k->proto) };
}

static void labels_be(struct labels *x, const struct kmg_svc_key *k, const struct kmg_addr *a)
{
	labels_svc(x, k);
	kmg_fmt_addr(a, x->backend, sizeof(x->backend));
	x->l[3] = (struct kmd_prom_label){ "backend", x->backend };
}

/* A sample whose label set the family has already is left out (it cannot happen twice). */
static int dup_ok(int ret)
{
	return ret == -EEXIST ? 0 : ret;
}

/* A family of one sample without labels. */
static int one_counter(struct kmd_prom *p, const char *name, const char *help, uint64_t v)
{
	int ret = kmd_prom_family(p, name, KMD_PROM_COUNTER, help);

	return ret ? ret : kmd_prom_counter(p, NULL, 0, v);
}

static int one_gauge(struct kmd_prom *p, const char *name, const char *help, double v)
{
	int ret = kmd_prom_family(p, name, KMD_PROM_GAUGE, help);

	return ret ? ret : kmd_prom_gauge(p, NULL, 0, v);
}

/* --- the kernel's counters -------------------------------------------------------------- */

static const struct {
	uint16_t attr;
	const char *name;		/* after kmaglev_service_ / kmaglev_backend_ */
	enum kmd_prom_type type;
	const char *help;
} stats_fams[] = {
	{ KMAGLEV_A_STATS_PACKETS, "packets_total", KMD_PROM_COUNTER, "Packets forwarded" },
	{ KMAGLEV_A_STATS_BYTES, "bytes_total", KMD_PROM_COUNTER, "Bytes forwarded" },
	{ KMAGLEV_A_STATS_NEW_FLOWS, "new_flows_total", KMD_PROM_COUNTER,
	  "Flows scheduled (first packets)" },
	{ KMAGLEV_A_STATS_CONNS, "conns", KMD_PROM_GAUGE, "Connection-table entries now" },
};

static uint64_t stat_value(const struct kmg_stats *st, uint16_t attr)
{
	switch (attr) {
	case KMAGLEV_A_STATS_PACKETS:
		return st->packets;
	case KMAGLEV_A_STATS_BYTES:
		return st->bytes;
	case KMAGLEV_A_STATS_NEW_FLOWS:
		return st->new_flows;
	default:
		return st->conns;
	}
}

static int stat_sample(struct kmd_prom *p, enum kmd_prom_type type, const struct labels *x,
		       unsigned int n, uint64_t v)
{
	return dup_ok(type == KMD_PROM_COUNTER ? kmd_prom_counter(p, x->l, n, v) :
		      kmd_prom_gauge(p, x->l, n, v));
}

/* The counters of services (@be false) or of their backends. */
static int render_stats(struct kmd_prom *p, const struct kmg_msgs *svcs, bool be)
{
	char name[64], help[128];
	unsigned int f, i, k;
	struct labels x;
	int ret = 0;

	for (f = 0; f < KMG_ARRAY_SIZE(stats_fams) && !ret; f++) {
		snprintf(name, sizeof(name), "kmaglev_%s_%s", be ? "backend" : "service",
			 stats_fams[f].name);
		snprintf(help, sizeof(help), "%s, per %s (kernel).", stats_fams[f].help,
			 be ? "backend of a service" : "service");
		ret = kmd_prom_family(p, name, stats_fams[f].type, help);
		for (i = 0; !ret && i < svcs->n; i++) {
			const struct kmg_msg *m = &svcs->m[i];

			if (!KMG_HAS(m, KMAGLEV_A_SERVICE))
				continue;
			if (!be) {
				if (!KMG_HAS(&m->stats, stats_fams[f].attr))
					continue;
				labels_svc(&x, &m->svc.key);
				ret = stat_sample(p, stats_fams[f].type, &x, 3,
						  stat_value(&m->stats, stats_fams[f].attr));
				continue;
			}
			for (k = 0; !ret && k < m->nbe; k++) {
				const struct kmg_backend *b = &m->be[k];

				if (!KMG_HAS(&b->stats, stats_fams[f].attr))
					continue;
				labels_be(&x, &m->svc.key, &b->addr);
				ret = stat_sample(p, stats_fams[f].type, &x, 4,
						  stat_value(&b->stats, stats_fams[f].attr));
			}
		}
	}
	return ret;
}

/* "drop-no-backend" -> "no_backend"; "conn-new" -> "kmaglev_conn_new_total". */
static void underscores(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

static int render_global(struct kmd_prom *p, const struct kmg_global_stats *g)
{
	char name[96], reason[64], help[160];
	const struct kmg_attr_desc *d;
	bool drops = false;
	unsigned int t;
	int ret = 0;

	/* the drop reasons: one family, a label for the reason */
	for (t = 1; t <= KMAGLEV_A_GLOBAL_STATS_MAX && !ret; t++) {
		d = kmg_attr_desc(&kmg_schema_global_stats, t);
		if (!d || !d->name || !KMG_HAS(g, t) || strncmp(d->name, "drop-", 5))
			continue;
		if (!drops)
			ret = kmd_prom_family(p, "kmaglev_drops_total", KMD_PROM_COUNTER,
					      "Packets the data path dropped, by reason (kernel).");
		drops = true;
		snprintf(reason, sizeof(reason), "%s", d->name + 5);
		underscores(reason);
		if (!ret) {
			const struct kmd_prom_label l[] = { { "reason", reason } };

			ret = dup_ok(kmd_prom_counter(p, l, 1, g->v[t]));
		}
	}
	/* every other one: a family of its own */
	for (t = 1; t <= KMAGLEV_A_GLOBAL_STATS_MAX && !ret; t++) {
		d = kmg_attr_desc(&kmg_schema_global_stats, t);
		if (!d || !d->name || !KMG_HAS(g, t) || !strncmp(d->name, "drop-", 5))
			continue;
		snprintf(name, sizeof(name), "kmaglev_%s_total", d->name);
		underscores(name);
		snprintf(help, sizeof(help), "The data path's %s counter (kernel, network "
			 "namespace wide).", d->name);
		ret = kmd_prom_family(p, name, KMD_PROM_COUNTER, help);
		if (!ret)
			ret = kmd_prom_counter(p, NULL, 0, g->v[t]);
	}
	return ret;
}

int kmd_metrics_render_kernel(struct kmd_prom *p, const struct kmg_msgs *svcs,
			      const struct kmg_global_stats *g)
{
	int ret = render_stats(p, svcs, false);

	if (!ret)
		ret = render_stats(p, svcs, true);
	if (!ret && g)
		ret = render_global(p, g);
	return ret;
}

/* --- the quota table's heaviest sources --------------------------------------------------- */

/* The service of id @id in the stats dump @svcs, as "192.0.2.1:80/tcp" ("id 7" if not there). */
static const char *quota_service(const struct kmg_msgs *svcs, uint32_t id, char *buf,
				 size_t len)
{
	unsigned int i;

	for (i = 0; svcs && i < svcs->n; i++) {
		const struct kmg_service *s = &svcs->m[i].svc;

		if (KMG_HAS(&svcs->m[i], KMAGLEV_A_SERVICE) && KMG_HAS(s, KMAGLEV_A_SERVICE_ID) &&
		    s->id == id)
			return kmg_fmt_service_name(s, buf, len);
	}
	snprintf(buf, len, "id %u", id);
	return buf;
}

/* One family of the buckets of @qs: their rejected (@rejected) or accepted new flows. */
static int quota_samples(struct kmd_prom *p, const struct kmg_quotas *qs,
			 const struct kmg_msgs *svcs, bool rejected)
{
	char addr[INET6_ADDRSTRLEN], prefix[INET6_ADDRSTRLEN + 8], svc[INET6_ADDRSTRLEN + 32];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < qs->n && !ret; i++) {
		const struct kmg_quota *q = &qs->q[i];
		struct kmd_prom_label l[2] = { { "prefix", prefix }, { "service", svc } };

		snprintf(prefix, sizeof(prefix), "%s/%u", kmg_fmt_addr(&q->addr, addr, sizeof(addr)),
			 q->prefix_len);
		/* the service only in scope service, where buckets have one */
		if (KMG_HAS(q, KMAGLEV_A_QUOTA_SERVICE_ID))
			quota_service(svcs, q->service_id, svc, sizeof(svc));
		ret = dup_ok(kmd_prom_counter(p, l, KMG_HAS(q, KMAGLEV_A_QUOTA_SERVICE_ID) ? 2 : 1,
					      rejected ? q->rejected : q->accepted));
	}
	return ret;
}

int kmd_metrics_render_quota(struct kmd_prom *p, const struct kmg_config *c,
			     const struct kmg_quotas *qs, const struct kmg_msgs *svcs)
{
	char help[192];
	int ret;

	/* a kernel without quotas reports no count */
	if (!KMG_HAS(c, KMAGLEV_A_CONFIG_QUOTAS))
		return 0;
	ret = one_gauge(p, "kmaglev_quota_sources",
			"Source prefixes (or prefix and service pairs) in the quota table now "
			"(kernel).", c->quotas);
	snprintf(help, sizeof(help), "New flows over their source prefix's quota, for the %u "
		 "prefixes with the most (kernel).", KMD_QUOTA_TOP);
	if (!ret)
		ret = kmd_prom_family(p, "kmaglev_quota_rejected_total", KMD_PROM_COUNTER, help);
	if (!ret)
		ret = quota_samples(p, qs, svcs, true);
	snprintf(help, sizeof(help), "New flows let through by their source prefix's quota, for "
		 "the %u prefixes with the most rejected (kernel).", KMD_QUOTA_TOP);
	if (!ret)
		ret = kmd_prom_family(p, "kmaglev_quota_accepted_total", KMD_PROM_COUNTER, help);
	if (!ret)
		ret = quota_samples(p, qs, svcs, false);
	return ret;
}

/* --- load shedding ------------------------------------------------------------------------ */

int kmd_metrics_render_shed(struct kmd_prom *p, const struct kmg_config *c)
{
	const struct kmg_enum *e = &kmg_enum_shed_reason;
	char reason[32];
	unsigned int i;
	int ret = 0;

	/* a kernel without load shedding reports none of it */
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_LOAD))
		ret = one_gauge(p, "kmaglev_load",
				"The host's softirq load, smoothed, 0..1 (kernel; measured while "
				"shed-load-high is set).", c->load / 1000.0);
	if (!ret && KMG_HAS(c, KMAGLEV_A_CONFIG_SHEDDING)) {
		ret = kmd_prom_family(p, "kmaglev_shedding", KMD_PROM_GAUGE,
				      "Whether an overload signal of the network namespace is on "
				      "(1): its new flows of shed-class and below are shed "
				      "(kernel).");
		for (i = 0; i < e->n && !ret; i++) {
			const struct kmd_prom_label l[] = { { "reason", reason } };

			snprintf(reason, sizeof(reason), "%s", e->names[i]);
			underscores(reason);
			ret = kmd_prom_gauge(p, l, 1, c->shedding >> i & 1);
		}
	}
	if (!ret && KMG_HAS(c, KMAGLEV_A_CONFIG_SHED_TRANSITIONS))
		ret = one_counter(p, "kmaglev_shed_transitions_total",
				  "Times load shedding started or stopped (kernel).",
				  c->shed_transitions);
	return ret;
}

/*
 * At a scrape: the netns' settings, for load shedding's state and the quota table (is there
 * one, how many sources it has), and, when it has any, the KMD_QUOTA_TOP buckets with the most
 * rejected new flows; the whole table streams through a heap of that many. @svcs (the stats
 * dump) names services.
 */
static int scrape_config(struct kmd *d, struct kmd_prom *p, const struct kmg_msgs *svcs)
{
	static int last_ok = 1;
	struct kmg_quotas qs = { .limit = KMD_QUOTA_TOP };
	struct kmg_config c;
	int ret = 0, ok;

	ok = !kmg_config_get(&d->ctx, &c, NULL);
	if (ok)
		ret = kmd_metrics_render_shed(p, &c);
	/*
	 * Not a table larger than KMD_QUOTA_SCRAPE_MAX: a scrape reads it on the daemon's loop,
	 * and a full table of millions (a spoofed flood) would stall checks for seconds. Its
	 * count still shows; "kmaglev quota show top N" reads it on demand.
	 */
	if (ok && !ret && KMG_HAS(&c, KMAGLEV_A_CONFIG_QUOTAS) && c.quotas &&
	    c.quotas <= KMD_QUOTA_SCRAPE_MAX)
		ok = !kmg_quota_dump(&d->ctx, &qs, NULL);
	/* said once, not at every scrape */
	if (!ok && last_ok)
		fprintf(stderr, "kmaglev: metrics: settings and quota table: %s\n", kmg_errmsg());
	last_ok = ok;
	if (ok && !ret)
		ret = kmd_metrics_render_quota(p, &c, &qs, svcs);
	kmg_quotas_free(&qs);
	return ret;
}

/* --- the daemon's own --------------------------------------------------------------------- */

enum be_metric { BE_UP, BE_TRANSITIONS, BE_UTIL };
enum chk_metric { CHK_UP, CHK_RUNS, CHK_FAILURES, CHK_TRANSITIONS, CHK_LATENCY };

/*
 * One family's samples of every backend of every service, in the config's order: @sample
 * writes backend @b's (labels service and backend in @x; it may add the fifth) for @what.
 */
static int render_backends(struct kmd *d, struct kmd_prom *p, int what,
			   int (*sample)(struct kmd_prom *p, struct labels *x,
					 const struct kmd_be *b, int what))
{
	unsigned int i, k;
	struct labels x;
	int ret = 0;

	for (i = 0; i < d->nsvc && !ret; i++) {
		const struct kmd_svc *s = &d->svc[i];

		for (k = 0; k < s->nbe && !ret; k++) {
			const struct kmd_be *b = &s->be[k];

			labels_be(&x, &s->conf->svc.key, &b->conf->be.addr);
			ret = sample(p, &x, b, what);
		}
	}
	return ret;
}

/*
 * kmaglev_backend_up, kmaglev_backend_transitions_total or kmaglev_backend_utilization (enum
 * be_metric); the last only for backends whose agent reports one.
 */
static int be_sample(struct kmd_prom *p, struct labels *x, const struct kmd_be *b, int what)
{
	if (what == BE_UTIL)
		return b->util < 0 ? 0 : dup_ok(kmd_prom_gauge(p, x->l, 4, b->util / 100.0));
	return dup_ok(what == BE_UP ? kmd_prom_gauge(p, x->l, 4, b->health == KMD_HEALTH_UP) :
				      kmd_prom_counter(p, x->l, 4, b->transitions));
}

static int check_sample(struct kmd_prom *p, const struct labels *x, struct kmd_probe *pr,
			enum chk_metric what)
{
	struct kmd_probe_stats st;

	switch (what) {
	case CHK_UP:
		return kmd_prom_gauge(p, x->l, 5, kmd_probe_state(pr) == KMD_HEALTH_UP);
	case CHK_TRANSITIONS:
		return kmd_prom_counter(p, x->l, 5, kmd_probe_transitions(pr));
	default:
		break;
	}
	memset(&st, 0, sizeof(st));
	kmd_probe_stats(pr, &st);
	if (what == CHK_RUNS)
		return kmd_prom_counter(p, x->l, 5, st.runs);
	if (what == CHK_FAILURES)
		return kmd_prom_counter(p, x->l, 5, st.failures);
	return kmd_prom_histogram(p, x->l, 5, kmd_latency_bounds_s,
				  KMG_ARRAY_SIZE(kmd_latency_bounds_s), st.bucket, st.sum_s);
}

/* A check family's sample of each of backend @b's checks (enum chk_metric), label "check" */
static int checks_sample(struct kmd_prom *p, struct labels *x, const struct kmd_be *b, int what)
{
	unsigned int c;
	int ret = 0;

	for (c = 0; c < b->nprobes && !ret; c++) {
		const struct kmd_check *chk = kmd_probe_check(b->probes[c]);

		x->l[4] = (struct kmd_prom_label){ "check", chk && chk->name ? chk->name : "" };
		ret = dup_ok(check_sample(p, x, b->probes[c], what));
	}
	return ret;
}

enum svc_metric { SVC_HEALTHY, SVC_BELOW_QUORUM, SVC_OVERLOADED };

/* A gauge of every configured service (enum svc_metric). */
static int render_svc(struct kmd *d, struct kmd_prom *p, enum svc_metric what)
{
	struct labels x;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < d->nsvc && !ret; i++) {
		const struct kmd_svc *s = &d->svc[i];

		labels_svc(&x, &s->conf->svc.key);
		ret = dup_ok(kmd_prom_gauge(p, x.l, 3, what == SVC_HEALTHY ? s->healthy :
					    what == SVC_BELOW_QUORUM ? s->below_quorum :
					    s->overloaded));
	}
	return ret;
}

int kmd_metrics_render_daemon(struct kmd *d, struct kmd_prom *p)
{
	/*
	 * The services' families (no @sample: render_svc(), enum svc_metric), then the backends'
	 * (enum be_metric) and their checks' (enum chk_metric), through render_backends().
	 */
	static const struct {
		const char *name, *help;
		int what;
		enum kmd_prom_type type;
		int (*sample)(struct kmd_prom *p, struct labels *x, const struct kmd_be *b,
			      int what);
	} fams[] = {
		{ "kmaglev_service_healthy",
		  "Whether a configured service meets its quorum (1) or not (0).", SVC_HEALTHY,
		  KMD_PROM_GAUGE, NULL },
		{ "kmaglev_service_below_quorum",
		  "Whether a configured service has fewer healthy backends than its quorum.",
		  SVC_BELOW_QUORUM, KMD_PROM_GAUGE, NULL },
		{ "kmaglev_service_overloaded",
		  "Whether the daemon has a configured service overloaded (1): its backends' "
		  "utilization is at shed-above.", SVC_OVERLOADED, KMD_PROM_GAUGE, NULL },
		{ "kmaglev_backend_up", "Whether every health check of a backend finds it up.",
		  BE_UP, KMD_PROM_GAUGE, be_sample },
		{ "kmaglev_backend_health_transitions_total", "Health changes of a backend.",
		  BE_TRANSITIONS, KMD_PROM_COUNTER, be_sample },
		{ "kmaglev_backend_utilization",
		  "A backend's utilization as its agent reports it (util:N), smoothed, 0..1.",
		  BE_UTIL, KMD_PROM_GAUGE, be_sample },
		{ "kmaglev_check_up", "Whether a health check finds its backend up (1) or not (0).",
		  CHK_UP, KMD_PROM_GAUGE, checks_sample },
		{ "kmaglev_check_runs_total", "Runs of a health check.", CHK_RUNS,
		  KMD_PROM_COUNTER, checks_sample },
		{ "kmaglev_check_failures_total", "Failed runs of a health check.", CHK_FAILURES,
		  KMD_PROM_COUNTER, checks_sample },
		{ "kmaglev_check_transitions_total", "Up/down changes of a health check.",
		  CHK_TRANSITIONS, KMD_PROM_COUNTER, checks_sample },
		{ "kmaglev_check_latency_seconds", "How long a health check's runs took.",
		  CHK_LATENCY, KMD_PROM_HISTOGRAM, checks_sample },
	};
	/* the daemon's own counters, struct kmd_counters */
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
		{ "kmaglev_reconcile_runs_total", "Comparisons of the desired state with the kernel's.",
		  offsetof(struct kmd_counters, reconcile_runs) },
		{ "kmaglev_reconcile_messages_total", "Requests sent to the kernel by reconciliation.",
		  offsetof(struct kmd_counters, reconcile_msgs) },
		{ "kmaglev_reconcile_errors_total", "Reconciliation requests the kernel refused.",
		  offsetof(struct kmd_counters, reconcile_errors) },
		{ "kmaglev_table_builds_total", "Maglev table builds of owned services.",
		  offsetof(struct kmd_counters, table_builds) },
		{ "kmaglev_reloads_total", "Configuration reloads applied.",
		  offsetof(struct kmd_counters, reloads) },
		{ "kmaglev_reload_failures_total",
		  "Configuration reloads refused (the old configuration stayed).",
		  offsetof(struct kmd_counters, reload_failures) },
		{ "kmaglev_foreign_changes_total", "Changes to owned services made by someone else.",
		  offsetof(struct kmd_counters, foreign_changes) },
	};
	const struct kmd_counters *n = &d->n;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < KMG_ARRAY_SIZE(fams) && !ret; i++) {
		ret = kmd_prom_family(p, fams[i].name, fams[i].type, fams[i].help);
		if (!ret)
			ret = fams[i].sample ? render_backends(d, p, fams[i].what, fams[i].sample) :
					       render_svc(d, p, fams[i].what);
	}
	for (i = 0; i < KMG_ARRAY_SIZE(counters) && !ret; i++)
		ret = one_counter(p, counters[i].name, counters[i].help,
				  *(const uint64_t *)((const char *)n + counters[i].off));
	if (!ret)
		ret = one_gauge(p, "kmaglev_draining",
				"Whether the daemon is in lame duck mode (SIGTERM), 1, or not.",
				d->draining);
	if (!ret)
		ret = one_gauge(p, "kmaglev_uptime_seconds",
				"Seconds since the daemon started.",
				d->loop ? ev_now(d->loop) - d->started : 0);
	if (!ret)
		ret = kmd_bgp_metrics(d, p);
	return ret;
}

int kmd_metrics_render(struct kmd *d, struct kmd_prom *p)
{
	static int last_up = 1;
	const struct kmg_global_stats *g = NULL;
	struct kmg_msgs l = { 0 };
	unsigned int i;
	int ret, up;

	up = !kmg_stats_dump(&d->ctx, &l);
	/* said once, not at every scrape */
	if (!up && last_up)
		fprintf(stderr, "kmaglev: metrics: kernel counters: %s\n", kmg_errmsg());
	last_up = up;
	ret = one_gauge(p, "kmaglev_kernel_up",
			"Whether the kernel's counters could be read for this scrape.", up);
	for (i = 0; up && i < l.n; i++)
		if (!KMG_HAS(&l.m[i], KMAGLEV_A_SERVICE) && KMG_HAS(&l.m[i], KMAGLEV_A_GLOBAL))
			g = &l.m[i].global;
	if (!ret && up)
		ret = kmd_metrics_render_kernel(p, &l, g);
	if (!ret && up)
		ret = scrape_config(d, p, &l);
	kmg_msgs_free(&l);
	if (!ret)
		ret = kmd_metrics_render_daemon(d, p);
	return ret;
}

/* --- the HTTP server ------------------------------------------------------------------------ */

struct metrics {
	struct kmd *d;
	struct MHD_Daemon *mhd;
	ev_io io;
	ev_timer timer;
};

/* After MHD ran: wake again when it has something to time out (or at once). */
static void rearm(struct metrics *m)
{
	struct ev_loop *loop = m->d->loop;
	MHD_UNSIGNED_LONG_LONG ms;

	ev_timer_stop(loop, &m->timer);
	if (MHD_get_timeout(m->mhd, &ms) != MHD_YES)
		return;
	ev_timer_set(&m->timer, ms / 1000.0, 0.);
	ev_timer_start(loop, &m->timer);
}

static void run_cb(struct metrics *m)
{
	if (MHD_run(m->mhd) != MHD_YES)
		fprintf(stderr, "kmaglev: metrics: the HTTP server failed to run\n");
	rearm(m);
}

static void io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	run_cb(w->data);
}

static void timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	run_cb(w->data);
}

static enum MHD_Result respond(struct MHD_Connection *c, unsigned int status, char *body,
			       size_t len, bool owned, const char *type, bool allow)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES ||
	    (allow && MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") != MHD_YES)) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **state)
{
	static const char text[] = "text/plain; charset=utf-8";
	static char not_found[] = "Not found: try /metrics\n";
	static char not_allowed[] = "Method not allowed\n";
	static char failed[] = "Rendering the metrics failed; see the daemon's log\n";
	static int seen;
	struct metrics *m = cls;
	struct kmd_prom p;
	size_t len;
	char *body;
	int ret;

	/* the first call only announces the request; a body is read and dropped */
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
			       sizeof(not_allowed) - 1, false, text, true);
	if (strcmp(url, "/metrics"))
		return respond(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1, false,
			       text, false);
	kmd_prom_init(&p);
	ret = kmd_metrics_render(m->d, &p);
	body = kmd_prom_take(&p, &len);
	if (ret || !body) {
		fprintf(stderr, "kmaglev: metrics: rendering: %s\n",
			strerror(ret ? -ret : ENOMEM));
		free(body);
		return respond(c, MHD_HTTP_INTERNAL_SERVER_ERROR, failed, sizeof(failed) - 1,
			       false, text, false);
	}
	return respond(c, MHD_HTTP_OK, body, len, true, "text/plain; version=0.0.4; charset=utf-8",
		       false);
}

int kmd_metrics_start(struct kmd *d)
{
	const struct kmd_daemon *conf = d->cfg ? &d->cfg->daemon : NULL;
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sa4 = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	const struct sockaddr *sa;
	char addr[INET6_ADDRSTRLEN];
	struct metrics *m;

	if (!conf || !conf->metrics_port)
		return 0;
	if (conf->metrics_addr.family == AF_INET6) {
		sa6.sin6_addr = conf->metrics_addr.v6;
		sa6.sin6_port = htons(conf->metrics_port);
		sa = (const struct sockaddr *)&sa6;
		flags |= MHD_USE_IPv6;
	} else if (conf->metrics_addr.family == AF_INET) {
		sa4.sin_addr = conf->metrics_addr.v4;
		sa4.sin_port = htons(conf->metrics_port);
		sa = (const struct sockaddr *)&sa4;
	} else {
		fprintf(stderr, "kmaglev: metrics: no address to listen on\n");
		return -EINVAL;
	}
	kmg_fmt_addr(&conf->metrics_addr, addr, sizeof(addr));
	m = calloc(1, sizeof(*m));
	if (!m) {
		fprintf(stderr, "kmaglev: metrics: out of memory\n");
		return -ENOMEM;
	}
	m->d = d;
	m->mhd = MHD_start_daemon(flags, conf->metrics_port, NULL, NULL, handler, m,
				  MHD_OPTION_SOCK_ADDR, sa,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
				  MHD_OPTION_END);
	if (!m->mhd) {
		fprintf(stderr, "kmaglev: metrics: cannot listen on %s%s%s:%u\n",
			flags & MHD_USE_IPv6 ? "[" : "", addr, flags & MHD_USE_IPv6 ? "]" : "",
			conf->metrics_port);
		free(m);
		return -EADDRNOTAVAIL;
	}
	info = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info || info->epoll_fd < 0) {
		fprintf(stderr, "kmaglev: metrics: the HTTP server has no epoll descriptor\n");
		MHD_stop_daemon(m->mhd);
		free(m);
		return -EINVAL;
	}
	ev_io_init(&m->io, io_cb, info->epoll_fd, EV_READ);
	m->io.data = m;
	ev_io_start(d->loop, &m->io);
	ev_init(&m->timer, timer_cb);
	m->timer.data = m;
	rearm(m);
	d->metrics = m;
	return 0;
}

void kmd_metrics_stop(struct kmd *d)
{
	struct metrics *m = d->metrics;

	if (!m)
		return;
	ev_io_stop(d->loop, &m->io);
	ev_timer_stop(d->loop, &m->timer);
	MHD_stop_daemon(m->mhd);
	free(m);
	d->metrics = NULL;
}
