// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the metrics (daemon/metrics.c): the kernel's counters rendered from replies
 * built in memory (exact text), the daemon's own from a running state built by hand, both
 * through promtool when it is installed, and the HTTP server on the libev loop: /metrics,
 * 404 and 405, fetched by a client thread while the loop runs.
 *
 * Probes are the health engine's own structs (health_int.h), filled in by hand: no check runs.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "helpers.h"
#include "daemon/daemon.h"
#include "daemon/metrics.h"
#include "daemon/health/health_int.h"

/* --- the kernel's counters -------------------------------------------------------------- */

static void addr(struct kmg_addr *a, const char *s)
{
	assert_int_equal(kmg_parse_addr(s, a), 0);
}

static void stats(struct kmg_stats *st, uint64_t packets, uint64_t bytes, uint64_t flows,
		  uint64_t conns)
{
	st->present = KMG_BIT(KMAGLEV_A_STATS_PACKETS) | KMG_BIT(KMAGLEV_A_STATS_BYTES) |
		      KMG_BIT(KMAGLEV_A_STATS_NEW_FLOWS) | KMG_BIT(KMAGLEV_A_STATS_CONNS);
	st->packets = packets;
	st->bytes = bytes;
	st->new_flows = flows;
	st->conns = conns;
}

/* A stats dump: the netns-wide message, then one service with two backends. */
static void kernel_msgs(struct kmg_msgs *l, struct kmg_backend *be)
{
	struct kmg_msg *m;

	l->n = 2;
	l->m = calloc(2, sizeof(*l->m));
	assert_non_null(l->m);
	m = &l->m[0];
	KMG_SET(m, KMAGLEV_A_GLOBAL);
	KMG_SET(&m->global, KMAGLEV_A_GLOBAL_STATS_RX_PACKETS);
	m->global.v[KMAGLEV_A_GLOBAL_STATS_RX_PACKETS] = 1000;
	KMG_SET(&m->global, KMAGLEV_A_GLOBAL_STATS_DROP_FRAG);
	m->global.v[KMAGLEV_A_GLOBAL_STATS_DROP_FRAG] = 3;
	KMG_SET(&m->global, KMAGLEV_A_GLOBAL_STATS_DROP_NO_BACKEND);
	m->global.v[KMAGLEV_A_GLOBAL_STATS_DROP_NO_BACKEND] = 4;
	KMG_SET(&m->global, KMAGLEV_A_GLOBAL_STATS_CONN_NEW);
	m->global.v[KMAGLEV_A_GLOBAL_STATS_CONN_NEW] = 20;
	m = &l->m[1];
	KMG_SET(m, KMAGLEV_A_SERVICE);
	KMG_SET(m, KMAGLEV_A_STATS);
	addr(&m->svc.key.addr, "192.0.2.1");
	m->svc.key.port = 80;
	m->svc.key.proto = IPPROTO_TCP;
	stats(&m->stats, 100, 6000, 10, 7);
	addr(&be[0].addr, "10.0.0.1");
	stats(&be[0].stats, 60, 3600, 6, 4);
	addr(&be[1].addr, "2001:db8::2");
	stats(&be[1].stats, 40, 2400, 4, 3);
	m->be = be;
	m->nbe = 2;
}

static void test_kernel(void **state)
{
	const char *want =
		"# HELP kmaglev_service_packets_total Packets forwarded, per service (kernel).\n"
		"# TYPE kmaglev_service_packets_total counter\n"
		"kmaglev_service_packets_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\"} 100\n"
		"# HELP kmaglev_service_bytes_total Bytes forwarded, per service (kernel).\n"
		"# TYPE kmaglev_service_bytes_total counter\n"
		"kmaglev_service_bytes_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\"} 6000\n"
		"# HELP kmaglev_service_new_flows_total Flows scheduled (first packets), per "
		"service (kernel).\n"
		"# TYPE kmaglev_service_new_flows_total counter\n"
		"kmaglev_service_new_flows_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\"} 10\n"
		"# HELP kmaglev_service_conns Connection-table entries now, per service (kernel).\n"
		"# TYPE kmaglev_service_conns gauge\n"
		"kmaglev_service_conns{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\"} 7\n"
		"# HELP kmaglev_backend_packets_total Packets forwarded, per backend of a service "
		"(kernel).\n"
		"# TYPE kmaglev_backend_packets_total counter\n"
		"kmaglev_backend_packets_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"10.0.0.1\"} 60\n"
		"kmaglev_backend_packets_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"2001:db8::2\"} 40\n"
		"# HELP kmaglev_backend_bytes_total Bytes forwarded, per backend of a service "
		"(kernel).\n"
		"# TYPE kmaglev_backend_bytes_total counter\n"
		"kmaglev_backend_bytes_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"10.0.0.1\"} 3600\n"
		"kmaglev_backend_bytes_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"2001:db8::2\"} 2400\n"
		"# HELP kmaglev_backend_new_flows_total Flows scheduled (first packets), per "
		"backend of a service (kernel).\n"
		"# TYPE kmaglev_backend_new_flows_total counter\n"
		"kmaglev_backend_new_flows_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"10.0.0.1\"} 6\n"
		"kmaglev_backend_new_flows_total{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"2001:db8::2\"} 4\n"
		"# HELP kmaglev_backend_conns Connection-table entries now, per backend of a "
		"service (kernel).\n"
		"# TYPE kmaglev_backend_conns gauge\n"
		"kmaglev_backend_conns{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"10.0.0.1\"} 4\n"
		"kmaglev_backend_conns{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\","
		"backend=\"2001:db8::2\"} 3\n"
		"# HELP kmaglev_drops_total Packets the data path dropped, by reason (kernel).\n"
		"# TYPE kmaglev_drops_total counter\n"
		"kmaglev_drops_total{reason=\"frag\"} 3\n"
		"kmaglev_drops_total{reason=\"no_backend\"} 4\n"
		"# HELP kmaglev_rx_packets_total The data path's rx-packets counter (kernel, "
		"network namespace wide).\n"
		"# TYPE kmaglev_rx_packets_total counter\n"
		"kmaglev_rx_packets_total 1000\n"
		"# HELP kmaglev_conn_new_total The data path's conn-new counter (kernel, network "
		"namespace wide).\n"
		"# TYPE kmaglev_conn_new_total counter\n"
		"kmaglev_conn_new_total 20\n";
	struct kmg_backend be[2] = { 0 };
	struct kmg_msgs l = { 0 };
	struct kmd_prom p;

	kernel_msgs(&l, be);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_kernel(&p, &l, &l.m[0].global), 0);
	assert_string_equal(p.buf, want);
	kmd_prom_free(&p);
	free(l.m);
}

/* --- the daemon's own ------------------------------------------------------------------ */

struct fake {
	struct kmd d;
	struct kmd_config cfg;
	struct kmd_service conf;
	struct kmd_backend bconf[2];
	struct kmd_svc svc;
	struct kmd_be be[2];
	struct kmd_probe probe[3];
	struct kmd_probe *probes0[2], *probes1[1];
	char name_http[8], name_tcp[8];
};

static void fake_init(struct fake *f, struct ev_loop *loop)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->d.loop = loop;
	f->d.started = loop ? ev_now(loop) - 42 : 0;
	f->d.cfg = &f->cfg;
	f->d.ctx.out = stdout;
	f->d.n = (struct kmd_counters){ .reconcile_runs = 5, .reconcile_msgs = 9,
		.reconcile_errors = 1, .table_builds = 4, .reloads = 2, .reload_failures = 1,
		.foreign_changes = 3 };
	f->d.draining = true;
	f->cfg.daemon.metrics_addr.family = AF_INET;
	f->cfg.daemon.metrics_addr.v4.s_addr = htonl(INADDR_LOOPBACK);
	addr(&f->conf.svc.key.addr, "192.0.2.1");
	f->conf.svc.key.port = 80;
	f->conf.svc.key.proto = IPPROTO_TCP;
	addr(&f->bconf[0].be.addr, "10.0.0.1");
	addr(&f->bconf[1].be.addr, "10.0.0.2");
	f->svc.conf = &f->conf;
	f->svc.be = f->be;
	f->svc.nbe = 2;
	f->svc.healthy = true;
	f->d.svc = &f->svc;
	f->d.nsvc = 1;
	snprintf(f->name_http, sizeof(f->name_http), "http");
	snprintf(f->name_tcp, sizeof(f->name_tcp), "tcp");
	for (i = 0; i < 3; i++) {
		struct kmd_probe *p = &f->probe[i];

		p->check.name = i == 1 ? f->name_tcp : f->name_http;
		p->sm.state = i == 2 ? KMD_HEALTH_DOWN : KMD_HEALTH_UP;
		p->sm.transitions = i;
		p->runs = 10 + i;
		p->failures = i;
		/* 2 runs under 1ms, 3 more under 5ms, the rest over 1s (per bucket) */
		p->bucket[0] = 2;
		p->bucket[1] = 3;
		p->bucket[9] = p->runs - 5;
		p->sum_s = 0.5 + i;
	}
	f->probes0[0] = &f->probe[0];
	f->probes0[1] = &f->probe[1];
	f->probes1[0] = &f->probe[2];
	f->be[0] = (struct kmd_be){ .svc = &f->svc, .conf = &f->bconf[0], .probes = f->probes0,
		.nprobes = 2, .health = KMD_HEALTH_UP, .transitions = 1, .util = 85 };
	f->be[1] = (struct kmd_be){ .svc = &f->svc, .conf = &f->bconf[1], .probes = f->probes1,
		.nprobes = 1, .health = KMD_HEALTH_DOWN, .transitions = 6, .util = -1 };
}

static void must_have(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("no \"%s\" in:\n%s", line, text);
}

#define BE1 "vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\",backend=\"10.0.0.1\""
#define BE2 "vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\",backend=\"10.0.0.2\""

static void test_daemon(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct fake f;
	struct kmd_prom p;

	assert_non_null(loop);
	fake_init(&f, loop);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_daemon(&f.d, &p), 0);
	must_have(p.buf, "# TYPE kmaglev_service_healthy gauge\n"
		  "kmaglev_service_healthy{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\"} 1\n");
	must_have(p.buf, "kmaglev_service_below_quorum{vip=\"192.0.2.1\",port=\"80\","
		  "proto=\"tcp\"} 0\n");
	must_have(p.buf, "# TYPE kmaglev_backend_up gauge\n"
		  "kmaglev_backend_up{" BE1 "} 1\nkmaglev_backend_up{" BE2 "} 0\n");
	must_have(p.buf, "kmaglev_backend_health_transitions_total{" BE2 "} 6\n");
	/* only backends whose agent reports a utilization have one */
	must_have(p.buf, "# TYPE kmaglev_backend_utilization gauge\n"
		  "kmaglev_backend_utilization{" BE1 "} 0.85\n# HELP");
	must_have(p.buf, "kmaglev_check_up{" BE1 ",check=\"http\"} 1\n"
		  "kmaglev_check_up{" BE1 ",check=\"tcp\"} 1\n"
		  "kmaglev_check_up{" BE2 ",check=\"http\"} 0\n");
	must_have(p.buf, "kmaglev_check_runs_total{" BE2 ",check=\"http\"} 12\n");
	must_have(p.buf, "kmaglev_check_failures_total{" BE1 ",check=\"tcp\"} 1\n");
	must_have(p.buf, "kmaglev_check_transitions_total{" BE2 ",check=\"http\"} 2\n");
	must_have(p.buf, "# TYPE kmaglev_check_latency_seconds histogram\n"
		  "kmaglev_check_latency_seconds_bucket{" BE1 ",check=\"http\",le=\"0.001\"} 2\n"
		  "kmaglev_check_latency_seconds_bucket{" BE1 ",check=\"http\",le=\"0.005\"} 5\n");
	must_have(p.buf, "kmaglev_check_latency_seconds_bucket{" BE1 ",check=\"tcp\",le=\"1\"} 5\n"
		  "kmaglev_check_latency_seconds_bucket{" BE1 ",check=\"tcp\",le=\"+Inf\"} 11\n"
		  "kmaglev_check_latency_seconds_sum{" BE1 ",check=\"tcp\"} 1.5\n"
		  "kmaglev_check_latency_seconds_count{" BE1 ",check=\"tcp\"} 11\n");
	must_have(p.buf, "\nkmaglev_reconcile_runs_total 5\n");
	must_have(p.buf, "\nkmaglev_reconcile_messages_total 9\n");
	must_have(p.buf, "\nkmaglev_reconcile_errors_total 1\n");
	must_have(p.buf, "\nkmaglev_table_builds_total 4\n");
	must_have(p.buf, "\nkmaglev_reloads_total 2\n");
	must_have(p.buf, "\nkmaglev_reload_failures_total 1\n");
	must_have(p.buf, "\nkmaglev_foreign_changes_total 3\n");
	must_have(p.buf, "\nkmaglev_draining 1\n");
	must_have(p.buf, "\nkmaglev_uptime_seconds 42\n");
	kmd_prom_free(&p);
	ev_loop_destroy(loop);
}

/* The same check name twice on a backend: one series, no error. */
static void test_daemon_duplicate_check(void **state)
{
	struct fake f;
	struct kmd_prom p;

	fake_init(&f, NULL);
	f.probe[1].check.name = f.name_http;
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_daemon(&f.d, &p), 0);
	assert_null(strstr(p.buf, "check=\"tcp\""));
	must_have(p.buf, "kmaglev_check_runs_total{" BE1 ",check=\"http\"} 10\n"
		  "kmaglev_check_runs_total{" BE2 ",check=\"http\"} 12\n");
	kmd_prom_free(&p);
}

static bool have_promtool(void)
{
	return !system("command -v promtool >/dev/null 2>&1");
}

static void promtool(const char *text)
{
	char path[] = "/tmp/kmaglev-metrics-XXXXXX", cmd[128];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

/* Everything a scrape can hold, kernel and daemon, passes promtool's linter. */
static void test_promtool(void **state)
{
	struct kmg_backend be[2] = { 0 };
	struct kmg_msgs l = { 0 };
	struct kmd_prom p;
	struct fake f;

	if (!have_promtool()) {
		skip();
		return;
	}
	kernel_msgs(&l, be);
	fake_init(&f, NULL);
	f.svc.overloaded = true;
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_kernel(&p, &l, &l.m[0].global), 0);
	assert_int_equal(kmd_metrics_render_daemon(&f.d, &p), 0);
	promtool(p.buf);
	kmd_prom_free(&p);
	free(l.m);
}

/* --- the quota table ------------------------------------------------------------------- */

/* A bucket of the quota table. */
static void quota(struct kmg_quota *q, const char *prefix, uint8_t plen, int64_t svc,
		  uint64_t accepted, uint64_t rejected)
{
	struct kmg_addr a;

	memset(q, 0, sizeof(*q));
	addr(&a, prefix);
	kmg_quota_set_addr(q, &a);
	q->prefix_len = plen;
	KMG_SET(q, KMAGLEV_A_QUOTA_PREFIX_LEN);
	if (svc >= 0) {
		q->service_id = svc;
		KMG_SET(q, KMAGLEV_A_QUOTA_SERVICE_ID);
	}
	q->accepted = accepted;
	q->rejected = rejected;
	q->present |= KMG_BIT(KMAGLEV_A_QUOTA_ACCEPTED) | KMG_BIT(KMAGLEV_A_QUOTA_REJECTED);
}

static void quota_config(struct kmg_config *c, uint32_t sources)
{
	memset(c, 0, sizeof(*c));
	c->quota_rate = 10;
	c->quotas = sources;
	c->present = KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_RATE) | KMG_BIT(KMAGLEV_A_CONFIG_QUOTAS);
}

/* Scope netns: the 10 prefixes with the most rejected new flows, of 12; the table's size. */
static void test_quota(void **state)
{
	struct kmg_quotas qs = { .limit = KMD_QUOTA_TOP };
	struct kmg_config c;
	struct kmd_prom p;
	struct kmg_quota q;
	char pfx[32], want[8192];
	size_t n = 0;
	int i;

	/* 10.0.I.0/24 rejected 100 * I, accepted I; two of them refuse nothing: left out */
	for (i = 0; i < 12; i++) {
		snprintf(pfx, sizeof(pfx), "10.0.%d.0", (i * 5) % 12);
		quota(&q, pfx, 24, -1, (i * 5) % 12, 100 * ((i * 5) % 12));
		assert_int_equal(kmg_quotas_add(&qs, &q), 0);
	}
	kmg_quotas_sort(&qs);
	assert_int_equal(qs.n, 10);
	assert_int_equal(qs.total, 12);
	quota_config(&c, 12345);
	n += snprintf(want + n, sizeof(want) - n,
		      "# HELP kmaglev_quota_sources Source prefixes (or prefix and service pairs) "
		      "in the quota table now (kernel).\n"
		      "# TYPE kmaglev_quota_sources gauge\n"
		      "kmaglev_quota_sources 12345\n"
		      "# HELP kmaglev_quota_rejected_total New flows over their source prefix's "
		      "quota, for the 10 prefixes with the most (kernel).\n"
		      "# TYPE kmaglev_quota_rejected_total counter\n");
	for (i = 11; i >= 2; i--)
		n += snprintf(want + n, sizeof(want) - n,
			      "kmaglev_quota_rejected_total{prefix=\"10.0.%d.0/24\"} %d\n", i, 100 * i);
	n += snprintf(want + n, sizeof(want) - n,
		      "# HELP kmaglev_quota_accepted_total New flows let through by their source "
		      "prefix's quota, for the 10 prefixes with the most rejected (kernel).\n"
		      "# TYPE kmaglev_quota_accepted_total counter\n");
	for (i = 11; i >= 2; i--)
		n += snprintf(want + n, sizeof(want) - n,
			      "kmaglev_quota_accepted_total{prefix=\"10.0.%d.0/24\"} %d\n", i, i);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_quota(&p, &c, &qs, NULL), 0);
	assert_string_equal(p.buf, want);
	kmd_prom_free(&p);
	kmg_quotas_free(&qs);

	/* quotas off: an empty table, the families without samples */
	quota_config(&c, 0);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_quota(&p, &c, &qs, NULL), 0);
	must_have(p.buf, "kmaglev_quota_sources 0\n");
	must_have(p.buf, "# TYPE kmaglev_quota_rejected_total counter\n# HELP ");
	assert_null(strstr(p.buf, "{prefix="));
	kmd_prom_free(&p);

	/* a kernel without quotas reports no count: nothing at all */
	c.present = 0;
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_quota(&p, &c, &qs, NULL), 0);
	assert_true(!p.buf || !p.buf[0]);
	kmd_prom_free(&p);
}

/* Scope service: a service label, the service's key from the stats dump ("id N" if gone). */
static void test_quota_service(void **state)
{
	struct kmg_quotas qs = { .limit = KMD_QUOTA_TOP };
	struct kmg_backend be[2] = { 0 };
	struct kmg_msgs l = { 0 };
	struct kmg_config c;
	struct kmd_prom p;
	struct kmg_quota q;

	kernel_msgs(&l, be);
	l.m[1].svc.id = 3;
	KMG_SET(&l.m[1].svc, KMAGLEV_A_SERVICE_ID);
	KMG_SET(&l.m[1].svc, KMAGLEV_A_SERVICE_ADDR4);
	quota(&q, "2001:db8:1::", 64, 3, 5, 70);
	assert_int_equal(kmg_quotas_add(&qs, &q), 0);
	quota(&q, "198.51.100.7", 32, 3, 40, 0);
	assert_int_equal(kmg_quotas_add(&qs, &q), 0);
	quota(&q, "198.51.100.7", 32, 8, 1, 2);
	assert_int_equal(kmg_quotas_add(&qs, &q), 0);
	kmg_quotas_sort(&qs);
	quota_config(&c, 3);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_quota(&p, &c, &qs, &l), 0);
	must_have(p.buf, "# TYPE kmaglev_quota_rejected_total counter\n"
		  "kmaglev_quota_rejected_total{prefix=\"2001:db8:1::/64\","
		  "service=\"192.0.2.1:80/tcp\"} 70\n"
		  "kmaglev_quota_rejected_total{prefix=\"198.51.100.7/32\",service=\"id 8\"} 2\n"
		  "kmaglev_quota_rejected_total{prefix=\"198.51.100.7/32\","
		  "service=\"192.0.2.1:80/tcp\"} 0\n# HELP");
	must_have(p.buf, "kmaglev_quota_accepted_total{prefix=\"198.51.100.7/32\","
		  "service=\"192.0.2.1:80/tcp\"} 40\n");
	if (have_promtool())
		promtool(p.buf);
	kmd_prom_free(&p);
	kmg_quotas_free(&qs);
	free(l.m);
}

/* The netns-wide quota counters are exported as every other one. */
static void test_quota_counters(void **state)
{
	struct kmg_global_stats g = { 0 };
	struct kmg_msgs l = { 0 };
	struct kmd_prom p;

	KMG_SET(&g, KMAGLEV_A_GLOBAL_STATS_QUOTA_DROP);
	g.v[KMAGLEV_A_GLOBAL_STATS_QUOTA_DROP] = 5;
	KMG_SET(&g, KMAGLEV_A_GLOBAL_STATS_QUOTA_RST);
	g.v[KMAGLEV_A_GLOBAL_STATS_QUOTA_RST] = 6;
	KMG_SET(&g, KMAGLEV_A_GLOBAL_STATS_QUOTA_UNTRACKED);
	g.v[KMAGLEV_A_GLOBAL_STATS_QUOTA_UNTRACKED] = 7;
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_kernel(&p, &l, &g), 0);
	must_have(p.buf, "# TYPE kmaglev_quota_drop_total counter\nkmaglev_quota_drop_total 5\n");
	must_have(p.buf, "# TYPE kmaglev_quota_rst_total counter\nkmaglev_quota_rst_total 6\n");
	must_have(p.buf, "# TYPE kmaglev_quota_untracked_total counter\n"
		  "kmaglev_quota_untracked_total 7\n");
	/* not a drop reason of kmaglev_drops_total */
	assert_null(strstr(p.buf, "reason=\"quota"));
	kmd_prom_free(&p);
}

/* --- load shedding --------------------------------------------------------------------- */

/* The netns' load, its signals by reason and their transitions; the shed- counters. */
static void test_shed(void **state)
{
	struct kmg_global_stats g = { 0 };
	struct kmg_msgs l = { 0 };
	struct kmg_config c = { 0 };
	struct kmd_prom p;
	unsigned int t;

	c.load = 417;
	c.shedding = KMAGLEV_SHED_REASON_CONN_FILL | KMAGLEV_SHED_REASON_LOAD;
	c.shed_transitions = 9;
	c.present = KMG_BIT(KMAGLEV_A_CONFIG_LOAD) | KMG_BIT(KMAGLEV_A_CONFIG_SHEDDING) |
		    KMG_BIT(KMAGLEV_A_CONFIG_SHED_TRANSITIONS);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_shed(&p, &c), 0);
	assert_string_equal(p.buf,
		"# HELP kmaglev_load The host's softirq load, smoothed, 0..1 (kernel; measured "
		"while shed-load-high is set).\n"
		"# TYPE kmaglev_load gauge\n"
		"kmaglev_load 0.417\n"
		"# HELP kmaglev_shedding Whether an overload signal of the network namespace is on "
		"(1): its new flows of shed-class and below are shed (kernel).\n"
		"# TYPE kmaglev_shedding gauge\n"
		"kmaglev_shedding{reason=\"conn_fill\"} 1\n"
		"kmaglev_shedding{reason=\"new_rate\"} 0\n"
		"kmaglev_shedding{reason=\"load\"} 1\n"
		"# HELP kmaglev_shed_transitions_total Times load shedding started or stopped "
		"(kernel).\n"
		"# TYPE kmaglev_shed_transitions_total counter\n"
		"kmaglev_shed_transitions_total 9\n");
	if (have_promtool())
		promtool(p.buf);
	kmd_prom_free(&p);

	/* a kernel without load shedding reports none of it: nothing */
	c.present = KMG_BIT(KMAGLEV_A_CONFIG_QUOTAS);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_shed(&p, &c), 0);
	assert_true(!p.buf || !p.buf[0]);
	kmd_prom_free(&p);

	/* the shed- counters: netns-wide counters like every other, not drop reasons */
	for (t = KMAGLEV_A_GLOBAL_STATS_SHED_CONN_FILL; t <= KMAGLEV_A_GLOBAL_STATS_SHED_UTIL;
	     t++) {
		KMG_SET(&g, t);
		g.v[t] = 100 + t - KMAGLEV_A_GLOBAL_STATS_SHED_CONN_FILL;
	}
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_kernel(&p, &l, &g), 0);
	must_have(p.buf, "# TYPE kmaglev_shed_conn_fill_total counter\n"
		  "kmaglev_shed_conn_fill_total 100\n");
	must_have(p.buf, "# TYPE kmaglev_shed_new_rate_total counter\n"
		  "kmaglev_shed_new_rate_total 101\n");
	must_have(p.buf, "# TYPE kmaglev_shed_load_total counter\nkmaglev_shed_load_total 102\n");
	must_have(p.buf, "# TYPE kmaglev_shed_util_total counter\nkmaglev_shed_util_total 103\n");
	assert_null(strstr(p.buf, "reason="));
	if (have_promtool())
		promtool(p.buf);
	kmd_prom_free(&p);
}

/* A service the daemon has overloaded (utilization shed-above): 1, with the service's labels. */
static void test_service_overloaded(void **state)
{
	struct kmd_prom p;
	struct fake f;

	fake_init(&f, NULL);
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_daemon(&f.d, &p), 0);
	must_have(p.buf, "# TYPE kmaglev_service_overloaded gauge\n"
		  "kmaglev_service_overloaded{vip=\"192.0.2.1\",port=\"80\",proto=\"tcp\"} 0\n");
	kmd_prom_free(&p);
	f.svc.overloaded = true;
	kmd_prom_init(&p);
	assert_int_equal(kmd_metrics_render_daemon(&f.d, &p), 0);
	must_have(p.buf, "kmaglev_service_overloaded{vip=\"192.0.2.1\",port=\"80\","
		  "proto=\"tcp\"} 1\n");
	kmd_prom_free(&p);
}

/* --- the HTTP server --------------------------------------------------------------------- */

struct client {
	uint16_t port;
	char *resp[3];
	atomic_bool done;
	ev_tstamp deadline;		/* the loop gives up then */
};

static char *http(uint16_t port, const char *req)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 10 };
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ssize_t r;

	if (!buf || fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += r;
		if (cap - len < 1024) {
			char *p = realloc(buf, cap * 2);

			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

static void *client_main(void *arg)
{
	struct client *c = arg;

	c->resp[0] = http(c->port, "GET /metrics HTTP/1.0\r\n\r\n");
	c->resp[1] = http(c->port, "GET /other HTTP/1.0\r\n\r\n");
	c->resp[2] = http(c->port, "POST /metrics HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc");
	atomic_store(&c->done, true);
	return NULL;
}

static void poll_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct client *c = w->data;

	if (atomic_load(&c->done) || ev_now(loop) > c->deadline)
		ev_break(loop, EVBREAK_ALL);
}

/* A free TCP port on 127.0.0.1 (free when asked). */
static uint16_t free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static void test_http(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct client c = { 0 };
	ev_timer poll;
	pthread_t t;
	struct fake f;
	char *body;
	int i;

	assert_non_null(loop);
	fake_init(&f, loop);
	/* port 0: metrics off */
	assert_int_equal(kmd_metrics_start(&f.d), 0);
	assert_null(f.d.metrics);
	c.port = free_port();
	f.cfg.daemon.metrics_port = c.port;
	assert_int_equal(kmd_metrics_start(&f.d), 0);
	assert_non_null(f.d.metrics);
	ev_timer_init(&poll, poll_cb, 0.01, 0.01);
	poll.data = &c;
	c.deadline = ev_now(loop) + 30;
	ev_timer_start(loop, &poll);
	assert_int_equal(pthread_create(&t, NULL, client_main, &c), 0);
	ev_run(loop, 0);
	pthread_join(t, NULL);
	assert_true(atomic_load(&c.done));
	for (i = 0; i < 3; i++)
		assert_non_null(c.resp[i]);
	must_have(c.resp[0], " 200 OK\r\n");
	must_have(c.resp[0], "text/plain; version=0.0.4");
	body = strstr(c.resp[0], "\r\n\r\n");
	assert_non_null(body);
	body += 4;
	/* no kmaglev.ko in a unit test: the kernel's part is left out, and said to be */
	must_have(body, "# TYPE kmaglev_kernel_up gauge\nkmaglev_kernel_up ");
	must_have(body, "kmaglev_backend_up{" BE1 "} 1\n");
	must_have(body, "\nkmaglev_uptime_seconds ");
	if (have_promtool())
		promtool(body);
	must_have(c.resp[1], " 404 ");
	must_have(c.resp[2], " 405 ");
	must_have(c.resp[2], "Allow: GET, HEAD\r\n");
	for (i = 0; i < 3; i++)
		free(c.resp[i]);
	/* the port is taken now: a second server cannot start */
	{
		struct fake g;

		fake_init(&g, loop);
		g.cfg.daemon.metrics_port = c.port;
		assert_int_equal(kmd_metrics_start(&g.d), -EADDRNOTAVAIL);
		assert_null(g.d.metrics);
	}
	kmd_metrics_stop(&f.d);
	assert_null(f.d.metrics);
	kmg_ctx_close(&f.d.ctx);
	ev_timer_stop(loop, &poll);
	ev_loop_destroy(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_quota),
		cmocka_unit_test(test_quota_service),
		cmocka_unit_test(test_quota_counters),
		cmocka_unit_test(test_daemon),
		cmocka_unit_test(test_daemon_duplicate_check),
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_shed),
		cmocka_unit_test(test_service_overloaded),
		cmocka_unit_test(test_http),
	};

	return cmocka_run_group_tests_name("metrics", tests, NULL, NULL);
}
