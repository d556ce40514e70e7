// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon half of `make bench-health`: N probes of one kind through the daemon's own
 * engine (userland/daemon/health/health.c) against the farm (farm.c) on N loopback
 * addresses, 127.1.0.1 onwards, every interval. After a warm-up it measures this process's
 * CPU time (getrusage) over the given seconds and prints it as a share of one core, with
 * the checks done per second, how many failed, and the CPU per 1,000 checks a second (to
 * compare kinds run at different N). exec runs /bin/true, no farm; its processes' own CPU
 * (RUSAGE_CHILDREN: the ones reaped in the window) is printed beside the engine's. udp sends
 * "kmaglev" and expects it back; dns asks for "." A and expects NOERROR; https does not
 * verify the certificate (the check's default). http and https reuse each probe's connection
 * for 10 s, the daemon's default ("reuse"); http-fresh and https-fresh open one every run.
 *
 *   health_bench tcp|http|http-fresh|https|https-fresh|udp|dns|exec N PORT SECONDS
 *	[INTERVAL_MS]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/resource.h>

#include "daemon/health/checks/checks.h"

struct totals {
	uint64_t runs, failures;
	unsigned int up, down;
	char why[128];
};

static void sum(struct kmd_probe *p, void *arg)
{
	struct totals *t = arg;
	struct kmd_probe_stats st;
	const struct kmd_result *r = kmd_probe_last(p);

	kmd_probe_stats(p, &st);
	t->runs += st.runs;
	t->failures += st.failures;
	if (kmd_probe_state(p) == KMD_HEALTH_UP)
		t->up++;
	else
		t->down++;
	if (r && !r->ok)
		snprintf(t->why, sizeof(t->why), "%s", r->why);
}

static void nop(struct kmd_probe *p, void *arg)
{
}

static void stop_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	ev_break(loop, EVBREAK_ALL);
}

/* CPU seconds used so far by @who: user in *@user, user + system returned */
static double cpu_s(int who, double *user)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	return *user + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void run(struct ev_loop *loop, double secs)
{
	ev_timer t;

	ev_now_update(loop);	/* the last iteration may have been long: from now */
	ev_timer_init(&t, stop_cb, secs, 0);
	ev_timer_start(loop, &t);
	ev_run(loop, 0);
	ev_timer_stop(loop, &t);
}

int main(int argc, char **argv)
{
	static char *true_argv[] = { "/bin/true", NULL };
	struct kmd_check c = { .via = KMD_VIA_DIRECT, .rise = 2, .fall = 3 };
	struct totals a = { 0 }, b = { 0 };
	double k0, ku, kc, rate;
	int k;
	struct ev_loop *loop;
	struct kmd_hc *hc;
	struct rlimit rl;
	unsigned int n, i;
	double secs, c0, t0, u0, u1;
	char kind[16];
	bool fresh;
	int port;

	/* every kind by the daemon's own names but agent, which the farm does not speak */
	snprintf(kind, sizeof(kind), "%s", argc >= 5 ? argv[1] : "");
	fresh = strlen(kind) > 6 && !strcmp(kind + strlen(kind) - 6, "-fresh");
	if (fresh)
		kind[strlen(kind) - 6] = '\0';
	for (k = 0; argc >= 5 && k < KMD_CHECK_AGENT; k++)
		if (!strcmp(kind, kmd_check_kind_name(k)))
			break;
	if (argc < 5 || k == KMD_CHECK_AGENT ||
	    (fresh && k != KMD_CHECK_HTTP && k != KMD_CHECK_HTTPS)) {
		fprintf(stderr, "usage: health_bench tcp|http|http-fresh|https|https-fresh|udp|dns|"
			"exec N PORT SECONDS [INTERVAL_MS]\n");
		return 2;
	}
	c.kind = k;
	c.reuse_s = fresh ? 0 : KMD_REUSE_DEFAULT_S;
	c.send = "kmaglev";
	c.expect = "kmaglev";
	c.query = ".";
	c.argv = true_argv;
	n = atoi(argv[2]);
	port = atoi(argv[3]);
	secs = atof(argv[4]);
	c.interval_ms = argc > 5 ? (uint32_t)atoi(argv[5]) : 1000;
	c.timeout_ms = c.interval_ms;
	c.fast_interval_ms = c.interval_ms / 4;
	c.down_interval_ms = c.interval_ms;
	c.jitter_ms = c.interval_ms / 10;
	c.path = "/";
	if (!n || n > 65000 || port <= 0 || port > 65535 || secs <= 0) {
		fprintf(stderr, "health_bench: bad arguments\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (getrlimit(RLIMIT_NOFILE, &rl) || (rl.rlim_cur = rl.rlim_max, setrlimit(RLIMIT_NOFILE, &rl))) {
		perror("RLIMIT_NOFILE");
		return 1;
	}
	loop = ev_default_loop(EVFLAG_AUTO);
	hc = loop ? kmd_hc_new(loop, kmd_check_kinds) : NULL;
	if (!hc) {
		fprintf(stderr, "health_bench: no loop\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct kmd_target t = { .port = port };

		t.proto = c.kind == KMD_CHECK_UDP || c.kind == KMD_CHECK_DNS ?
			  IPPROTO_UDP : IPPROTO_TCP;
		t.addr.family = AF_INET;
		t.addr.v4.s_addr = htonl(0x7f010001 + i);
		t.backend = t.addr;
		if (!kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, nop, NULL)) {
			fprintf(stderr, "health_bench: kmd_probe_get failed at %u\n", i);
			return 1;
		}
	}
	run(loop, 3);		/* warm-up: every probe ran at least twice */
	kmd_hc_for_each(hc, sum, &a);
	c0 = cpu_s(RUSAGE_SELF, &u0);
	k0 = cpu_s(RUSAGE_CHILDREN, &ku);
	t0 = ev_time();
	run(loop, secs);
	t0 = ev_time() - t0;
	c0 = cpu_s(RUSAGE_SELF, &u1) - c0;
	kc = cpu_s(RUSAGE_CHILDREN, &ku) - k0;
	u1 -= u0;
	kmd_hc_for_each(hc, sum, &b);
	rate = (b.runs - a.runs) / t0;
	printf("%s: %u probes every %u ms: %.0f checks/s, %llu failed, %u up %u down, "
	       "CPU %.1f%% of one core (%.1f%% user; %.2f s in %.1f s; %.1f%% per 1,000 checks/s)",
	       argv[1], n, c.interval_ms, rate, (unsigned long long)(b.failures - a.failures),
	       b.up, b.down, 100 * c0 / t0, 100 * u1 / t0, c0, t0,
	       rate > 0 ? 100 * c0 / t0 / (rate / 1000) : 0);
	if (c.kind == KMD_CHECK_EXEC)
		printf(", and %.1f%% in the checks' own processes", 100 * kc / t0);
	printf("%s%s\n", b.why[0] ? "; last failure: " : "", b.why);
	kmd_hc_free(hc);
	return b.failures != a.failures;
}
