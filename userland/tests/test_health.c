// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the daemon's health-check engine: the rise/fall state machine, the agent
 * and HTTP status parsers, and every check kind live against small servers on loopback in
 * this process (TCP and UDP on libev, HTTP on libmicrohttpd's own thread), plus probe
 * sharing, listeners and stats. Intervals are short: the whole file runs in a few seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <ev.h>
#include <microhttpd.h>
#include <linux/kmaglev.h>

#include "daemon/health/checks/checks.h"

/* ---- state machine ---- */

static void test_hcsm_rise_fall(void **state)
{
	struct kmd_hcsm m;

	kmd_hcsm_init(&m, 2, 3, KMD_HEALTH_UP);
	assert_false(kmd_hcsm_moving(&m));
	assert_false(kmd_hcsm_step(&m, false));
	assert_true(kmd_hcsm_moving(&m));
	assert_false(kmd_hcsm_step(&m, false));
	assert_false(kmd_hcsm_step(&m, true));	/* a success resets the fall count */
	assert_false(kmd_hcsm_moving(&m));
	assert_false(kmd_hcsm_step(&m, false));
	assert_false(kmd_hcsm_step(&m, false));
	assert_int_equal(m.state, KMD_HEALTH_UP);
	assert_true(kmd_hcsm_step(&m, false));	/* third in a row */
	assert_int_equal(m.state, KMD_HEALTH_DOWN);
	assert_int_equal(m.transitions, 1);
	assert_false(kmd_hcsm_moving(&m));
	assert_false(kmd_hcsm_step(&m, false));
	assert_false(kmd_hcsm_step(&m, true));
	assert_true(kmd_hcsm_moving(&m));
	assert_false(kmd_hcsm_step(&m, false));	/* a failure resets the rise count */
	assert_false(kmd_hcsm_step(&m, true));
	assert_true(kmd_hcsm_step(&m, true));
	assert_int_equal(m.state, KMD_HEALTH_UP);
	assert_int_equal(m.transitions, 2);
}

static void test_hcsm_unknown(void **state)
{
	struct kmd_hcsm m;

	kmd_hcsm_init(&m, 2, 2, KMD_HEALTH_UNKNOWN);
	assert_true(kmd_hcsm_moving(&m));
	assert_false(kmd_hcsm_step(&m, true));
	assert_true(kmd_hcsm_step(&m, true));
	assert_int_equal(m.state, KMD_HEALTH_UP);

	kmd_hcsm_init(&m, 2, 2, KMD_HEALTH_UNKNOWN);
	assert_false(kmd_hcsm_step(&m, false));
	assert_false(kmd_hcsm_step(&m, true));
	assert_false(kmd_hcsm_step(&m, false));
	assert_true(kmd_hcsm_step(&m, false));
	assert_int_equal(m.state, KMD_HEALTH_DOWN);

	/* rise/fall 0 behave as 1 */
	kmd_hcsm_init(&m, 0, 0, KMD_HEALTH_DOWN);
	assert_true(kmd_hcsm_step(&m, true));
	assert_true(kmd_hcsm_step(&m, false));
	assert_int_equal(m.transitions, 2);
}

/* ---- agent parser ---- */

static void agent_ok(const char *line, bool ok, int admin, int pct, int weight)
{
	struct kmd_result r;

	if (kmd_agent_parse(line, &r))
		fail_msg("\"%s\" refused", line);
	if (r.ok != ok || r.admin != admin || r.weight_pct != pct || r.weight != weight)
		fail_msg("\"%s\": ok %d admin %d pct %d weight %d", line, r.ok, r.admin,
			 r.weight_pct, r.weight);
}

static void test_agent_words(void **state)
{
	const int UP = KMAGLEV_BACKEND_STATE_UP, DRAIN = KMAGLEV_BACKEND_STATE_DRAIN;
	struct kmd_result r;

	agent_ok("up\n", true, -1, -1, -1);
	agent_ok("down\n", false, -1, -1, -1);
	agent_ok("fail\n", false, -1, -1, -1);
	agent_ok("stopped\r\n", false, -1, -1, -1);
	agent_ok("ready\n", true, UP, -1, -1);
	agent_ok("drain\n", true, DRAIN, -1, -1);
	agent_ok("maint\n", true, DRAIN, -1, -1);
	agent_ok("75%\n", true, -1, 75, -1);
	agent_ok("0%", true, -1, 0, -1);
	agent_ok("100%", true, -1, 100, -1);
	agent_ok("weight:30\n", true, -1, -1, 30);
	agent_ok("maxconn:10 up", true, -1, -1, -1);
	/* combinations, any order, spaces, tabs and commas, any case */
	agent_ok("up 50%\n", true, -1, 50, -1);
	agent_ok("50%,ready", true, UP, 50, -1);
	agent_ok("  UP\tDrain , 20%  \r\n", true, DRAIN, 20, -1);
	agent_ok("ready up 100% weight:7", true, UP, 100, 7);
	agent_ok("down maint", false, DRAIN, -1, -1);
	/* a reason after '#' */
	assert_int_equal(kmd_agent_parse("down # disk full\n", &r), 0);
	assert_false(r.ok);
	assert_string_equal(r.why, "agent: down: disk full");
	assert_int_equal(kmd_agent_parse("up #all good", &r), 0);
	assert_true(r.ok);
	assert_string_equal(r.why, "ok");
	/* only the first line counts */
	agent_ok("drain\nbogus words", true, DRAIN, -1, -1);
	/* kmaglev's util:N, with or without a percent sign, alone or with the rest */
	agent_ok("util:85\n", true, -1, -1, -1);
	assert_int_equal(kmd_agent_parse("util:85\n", &r), 0);
	assert_int_equal(r.util, 85);
	assert_int_equal(kmd_agent_parse("up 50% UTIL:0%", &r), 0);
	assert_true(r.ok);
	assert_int_equal(r.util, 0);
	assert_int_equal(r.weight_pct, 50);
	assert_int_equal(kmd_agent_parse("ready,util:100", &r), 0);
	assert_int_equal(r.util, 100);
	assert_int_equal(r.admin, UP);
}

/* the smoothing of util:N reports: the first is taken as it is, then 0.3 of each new one */
static void test_util_smooth(void **state)
{
	double a = kmd_util_smooth(-1, 50);

	assert_true(a == 50);
	a = kmd_util_smooth(a, 100);		/* one report of 100% after 50%: 65, not 100 */
	assert_true(a > 64.99 && a < 65.01);
	for (int i = 0; i < 20; i++)
		a = kmd_util_smooth(a, 100);
	assert_true(a > 99.5 && a <= 100);	/* a sustained change is followed */
	for (int i = 0; i < 20; i++)
		a = kmd_util_smooth(a, 0);
	assert_true(a >= 0 && a < 0.5);
}

static void test_agent_bad(void **state)
{
	static const char *const bad[] = {
		"", "\n", "   \r\n", "# only a reason", "hello", "up hello", "101%", "-5%", "%",
		"5 %", "50%%", "weight:", "weight:70000", "weight:x", "maxconn:", "maxconn:1",
		"up down", "ready drain", "10% 20%", "weight:1 weight:2", "upp", "up;",
		"util:", "util:%", "util:101", "util:-1", "util:x", "util:5%%", "util:1 util:2",
	};
	struct kmd_result r;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (kmd_agent_parse(bad[i], &r) != -EINVAL)
			fail_msg("\"%s\" accepted", bad[i]);
		assert_false(r.ok);
		assert_int_equal(r.admin, -1);
		assert_int_equal(r.weight_pct, -1);
		assert_int_equal(r.weight, -1);
	}
}

static void test_status_match(void **state)
{
	const struct kmd_status_range r[] = { { 200, 299 }, { 301, 301 }, { 503, 503 } };

	assert_true(kmd_status_match(r, 3, 200));
	assert_true(kmd_status_match(r, 3, 299));
	assert_true(kmd_status_match(r, 3, 301));
	assert_true(kmd_status_match(r, 3, 503));
	assert_false(kmd_status_match(r, 3, 199));
	assert_false(kmd_status_match(r, 3, 300));
	assert_false(kmd_status_match(r, 3, 302));
	assert_false(kmd_status_match(r, 3, 500));
	assert_false(kmd_status_match(r, 0, 200));
	assert_false(kmd_status_match(r, 3, 0));
}

/* ---- loopback servers on the default loop ---- */

enum srv_mode {
	SRV_CLOSE,		/* accept, close */
	SRV_HOLD,		/* accept, say nothing */
	SRV_REPLY,		/* accept, send the reply, close */
	SRV_RESET,		/* accept, read the request, close with a reset */
	SRV_UDP_ECHO,		/* "pong " + what came */
	SRV_DNS_NXDOMAIN,	/* answer each query with rcode 3 */
};

struct srv {
	int fd;
	uint16_t port;
	enum srv_mode mode;
	const char *reply;
	unsigned int accepts;
	int held[64];
	unsigned int nheld;
	ev_io io;
};

static struct ev_loop *loop;

static void srv_io(struct ev_loop *l, ev_io *w, int revents)
{
	struct srv *s = w->data;
	struct linger lg = { 1, 0 };
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	char buf[512];
	ssize_t n;
	int c;

	if (s->mode == SRV_UDP_ECHO || s->mode == SRV_DNS_NXDOMAIN) {
		n = recvfrom(s->fd, buf + 5, sizeof(buf) - 5, 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		s->accepts++;
		if (s->mode == SRV_UDP_ECHO) {
			memcpy(buf, "pong ", 5);
			sendto(s->fd, buf, n + 5, 0, (struct sockaddr *)&from, fl);
		} else if (n >= 12) {
			buf[5 + 2] |= 0x80;			/* QR */
			buf[5 + 3] = (buf[5 + 3] & 0xf0) | 3;	/* NXDOMAIN */
			sendto(s->fd, buf + 5, n, 0, (struct sockaddr *)&from, fl);
		}
		return;
	}
	c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	s->accepts++;
	switch (s->mode) {
	case SRV_HOLD:
		if (s->nheld < 64) {
			s->held[s->nheld++] = c;
			return;
		}
		break;
	case SRV_REPLY:
		if (send(c, s->reply, strlen(s->reply), MSG_NOSIGNAL) < 0)
			break;
		break;
	case SRV_RESET:
		if (recv(c, buf, sizeof(buf), 0) < 0)
			break;
		setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		break;
	default:
		break;
	}
	close(c);
}

/* A server on 127.0.0.1, an ephemeral port. @listen false: bound, not listening (refuses). */
static void srv_start(struct srv *s, int type, enum srv_mode mode, bool listening)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t sl = sizeof(sin);

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	assert_true(s->fd >= 0);
	assert_int_equal(bind(s->fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(s->fd, (struct sockaddr *)&sin, &sl), 0);
	s->port = ntohs(sin.sin_port);
	if (type == SOCK_STREAM && listening)
		assert_int_equal(listen(s->fd, 64), 0);
	if (listening) {
		ev_io_init(&s->io, srv_io, s->fd, EV_READ);
		s->io.data = s;
		ev_io_start(loop, &s->io);
	}
}

static void srv_stop(struct srv *s)
{
	ev_io_stop(loop, &s->io);
	for (unsigned int i = 0; i < s->nheld; i++)
		close(s->held[i]);
	close(s->fd);
}

/* HTTP on libmicrohttpd's thread: /ok 200 "hello world", /503 503, /301 a redirect */
static enum MHD_Result http_handler(void *cls, struct MHD_Connection *c, const char *url,
				    const char *method, const char *version, const char *data,
				    size_t *size, void **ctx)
{
	static const char body[] = "hello world";
	const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	struct MHD_Response *r;
	unsigned int status = 404;
	enum MHD_Result ret;

	if (!strcmp(url, "/ok"))
		status = 200;
	else if (!strcmp(url, "/503"))
		status = 503;
	else if (!strcmp(url, "/host") && host && !strncmp(host, "svc.example:", 12))
		status = 204;
	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static struct MHD_Daemon *http_start(uint16_t *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	struct MHD_Daemon *d;

	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, http_handler, NULL,
			     MHD_OPTION_SOCK_ADDR, &sin, MHD_OPTION_END);
	assert_non_null(d);
	*port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
	assert_true(*port > 0);
	return d;
}

/* ---- probes ---- */

struct rec {
	unsigned int calls;
	enum kmd_health state;
	int admin, pct, weight, util;
};

static void rec_cb(struct kmd_probe *p, void *arg)
{
	struct rec *r = arg;
	const struct kmd_result *res = kmd_probe_last(p);

	r->calls++;
	r->state = kmd_probe_state(p);
	r->admin = res ? res->admin : -1;
	r->pct = res ? res->weight_pct : -1;
	r->weight = res ? res->weight : -1;
	r->util = kmd_probe_util(p);
}

static struct kmd_check chk(enum kmd_check_kind kind)
{
	struct kmd_check c = {
		.kind = kind,
		.via = KMD_VIA_DIRECT,
		.interval_ms = 100,
		.timeout_ms = 300,
		.rise = 1,
		.fall = 1,
	};
	return c;
}

static struct kmd_target tgt(uint16_t port)
{
	struct kmd_target t = { .port = port, .proto = IPPROTO_TCP };

	t.addr.family = AF_INET;
	t.addr.v4.s_addr = htonl(0x7f000001);
	t.backend = t.addr;
	return t;
}

static void tick(struct ev_loop *l, ev_timer *w, int revents)
{
}

/* Run the loop until @p has @runs runs, at most @secs. */
static void run_until_runs(struct kmd_probe *p, uint64_t runs, double secs)
{
	struct kmd_probe_stats st;
	ev_tstamp end;
	ev_timer t;

	ev_timer_init(&t, tick, 0.01, 0.01);
	ev_timer_start(loop, &t);
	ev_now_update(loop);
	end = ev_now(loop) + secs;
	for (;;) {
		kmd_probe_stats(p, &st);
		if (st.runs >= runs)
			break;
		if (ev_now(loop) > end)
			fail_msg("%llu runs after %.1f s, wanted %llu",
				 (unsigned long long)st.runs, secs, (unsigned long long)runs);
		ev_run(loop, EVRUN_ONCE);
	}
	ev_timer_stop(loop, &t);
}

static void run_for(double secs)
{
	ev_timer t;

	ev_timer_init(&t, tick, secs, 0);
	ev_timer_start(loop, &t);
	while (ev_is_active(&t))
		ev_run(loop, EVRUN_ONCE);
}

/* One run of @c against @t: its result. */
static struct kmd_result one(const struct kmd_check *c, const struct kmd_target *t)
{
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct kmd_result r;
	struct kmd_probe *p;
	struct rec rec = { 0 };

	assert_non_null(hc);
	p = kmd_probe_get(hc, c, t, KMD_HEALTH_UNKNOWN, rec_cb, &rec);
	assert_non_null(p);
	run_until_runs(p, 1, 3);
	r = *kmd_probe_last(p);
	kmd_probe_put(p, rec_cb, &rec);
	kmd_hc_free(hc);
	return r;
}

/* @r is evaluated once: it may be a call of one() */
#define assert_result(r, ok_, why_) do {			\
	struct kmd_result r_ = (r);				\
								\
	assert_string_equal(r_.why, why_);			\
	assert_int_equal(r_.ok, ok_);				\
} while (0)

static void test_tcp(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_TCP);
	struct srv up, refusing;
	struct kmd_target t;
	struct kmd_result r;

	srv_start(&up, SOCK_STREAM, SRV_CLOSE, true);
	srv_start(&refusing, SOCK_STREAM, SRV_CLOSE, false);
	t = tgt(up.port);
	r = one(&c, &t);
	assert_result(r, true, "ok");
	assert_int_equal(r.admin, -1);
	assert_int_equal(up.accepts, 1);
	assert_true(r.latency_us < 300000);
	t = tgt(refusing.port);
	assert_result(one(&c, &t), false, "connect: Connection refused");
	srv_stop(&up);
	srv_stop(&refusing);
}

static void test_tcp_ipv6(void **state)
{
	struct sockaddr_in6 sin = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct kmd_check c = chk(KMD_CHECK_TCP);
	socklen_t sl = sizeof(sin);
	struct kmd_target t;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		if (fd >= 0)
			close(fd);
		skip();		/* no IPv6 loopback here */
	}
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	assert_int_equal(listen(fd, 8), 0);
	t = tgt(ntohs(sin.sin6_port));
	t.addr.family = AF_INET6;
	t.addr.v6 = in6addr_loopback;
	assert_result(one(&c, &t), true, "ok");
	close(fd);
	assert_result(one(&c, &t), false, "connect: Connection refused");
}

static void test_mark(void **state)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), err;
	uint32_t mark = 0;
	socklen_t len = sizeof(mark);

	assert_true(fd >= 0);
	err = kmd_sock_mark(fd, 0x1234);
	if (err == -EPERM) {
		close(fd);
		skip();		/* no CAP_NET_ADMIN */
	}
	assert_int_equal(err, 0);
	assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_MARK, &mark, &len), 0);
	assert_int_equal(mark, 0x1234);
	close(fd);
}

static void test_http(void **state)
{
	struct kmd_status_range only503 = { 503, 503 };
	struct kmd_check c = chk(KMD_CHECK_HTTP);
	struct srv hold, reset, refusing;
	struct MHD_Daemon *d;
	struct kmd_target t;
	struct kmd_result r;
	uint16_t port;

	d = http_start(&port);
	t = tgt(port);
	c.path = "/ok";
	r = one(&c, &t);
	assert_result(r, true, "ok");
	c.body = "world";
	assert_result(one(&c, &t), true, "ok");
	c.body = "planet";
	assert_result(one(&c, &t), false, "body mismatch");
	c.body = NULL;
	c.path = "/503";
	assert_result(one(&c, &t), false, "status 503");
	c.status = &only503;
	c.nstatus = 1;
	assert_result(one(&c, &t), true, "ok");
	c.path = "ok";		/* a path without its slash */
	assert_result(one(&c, &t), false, "status 200");
	c.status = NULL;
	c.nstatus = 0;
	c.path = "/missing";
	assert_result(one(&c, &t), false, "status 404");
	/* a Host name: in the URL and the header, connected to the target all the same */
	c.path = "/host";
	c.host = "svc.example";
	assert_result(one(&c, &t), true, "ok");
	c.host = NULL;
	assert_result(one(&c, &t), false, "status 404");
	MHD_stop_daemon(d);

	srv_start(&hold, SOCK_STREAM, SRV_HOLD, true);
	t = tgt(hold.port);
	c.path = "/";
	r = one(&c, &t);
	assert_result(r, false, "timeout");
	assert_true(r.latency_us >= 290000 && r.latency_us < 1000000);
	srv_stop(&hold);

	srv_start(&reset, SOCK_STREAM, SRV_RESET, true);
	t = tgt(reset.port);
	assert_result(one(&c, &t), false, "reset");
	srv_stop(&reset);

	srv_start(&refusing, SOCK_STREAM, SRV_CLOSE, false);
	t = tgt(refusing.port);
	assert_result(one(&c, &t), false, "connect: Connection refused");
	srv_stop(&refusing);
}

/* ---- http connection reuse ---- */

/*
 * Connections libmicrohttpd's thread saw open and close, the requests, the connections whose
 * first request was /ok2 (the others': first[0]), and how many connections carried requests
 * for both /ok2 and another path (two probes' requests on one connection).
 */
struct conns {
	unsigned int opened, closed, requests, mixed, first[2];
};

static void conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
			enum MHD_ConnectionNotificationCode toe)
{
	struct conns *n = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		*sctx = calloc(1, sizeof(unsigned int));	/* the paths seen, a bit each */
		__atomic_add_fetch(&n->opened, 1, __ATOMIC_SEQ_CST);
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		free(*sctx);
		__atomic_add_fetch(&n->closed, 1, __ATOMIC_SEQ_CST);
	}
}

/* /ok, /ok2: 200 on a connection that stays open; /close: 200, "Connection: close" */
static enum MHD_Result reuse_handler(void *cls, struct MHD_Connection *c, const char *url,
				     const char *method, const char *version, const char *data,
				     size_t *size, void **ctx)
{
	static const char body[] = "ok";
	const union MHD_ConnectionInfo *ci;
	struct conns *n = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned int *seen;
	int bit = strcmp(url, "/ok2") ? 1 : 2;

	/* answered on the second call, the request read: else libmicrohttpd closes after */
	if (!*ctx) {
		*ctx = n;
		return MHD_YES;
	}
	__atomic_add_fetch(&n->requests, 1, __ATOMIC_SEQ_CST);
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	seen = ci ? ci->socket_context : NULL;
	if (seen) {
		if (!*seen)
			__atomic_add_fetch(&n->first[bit - 1], 1, __ATOMIC_SEQ_CST);
		*seen |= bit;
		if (*seen == 3)
			__atomic_add_fetch(&n->mixed, 1, __ATOMIC_SEQ_CST);
	}
	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	if (!strcmp(url, "/close"))
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* A keep-alive server on @addr:@port (0: any), counting into @n. */
static struct MHD_Daemon *reuse_server(struct conns *n, uint32_t addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(addr),
				   .sin_port = htons(port) };
	struct MHD_Daemon *d;

	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, reuse_handler, n,
			     MHD_OPTION_SOCK_ADDR, &sin,
			     MHD_OPTION_NOTIFY_CONNECTION, conn_notify, n, MHD_OPTION_END);
	assert_non_null(d);
	return d;
}

static unsigned int got(unsigned int *v)
{
	return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

/* Run the loop until @p and @q (may be NULL) have @runs runs each. */
static void run_both(struct kmd_probe *p, struct kmd_probe *q, uint64_t runs)
{
	struct kmd_probe_stats st;

	kmd_probe_stats(p, &st);
	run_until_runs(p, st.runs + runs, 3);
	if (q) {
		kmd_probe_stats(q, &st);
		run_until_runs(q, st.runs + runs, 3);
	}
}

/*
 * Wait (on the loop) until the server saw @closed connections close, at most 3 s: a killed
 * connection is closed when curl next looks at its cache (at most a second apart).
 */
static void wait_closed(struct conns *n, unsigned int closed)
{
	for (int i = 0; i < 300 && got(&n->closed) < closed; i++)
		run_for(0.01);
	assert_int_equal(got(&n->closed), closed);
}

static void test_http_reuse(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_HTTP);
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct rec r1 = { 0 }, r2 = { 0 }, r3 = { 0 };
	struct conns n = { 0 }, m = { 0 };
	struct kmd_target t, t2, t3;
	struct kmd_probe *p1, *p2, *p3;
	struct kmd_probe_stats st;
	struct MHD_Daemon *d, *d2;
	unsigned int before;

	assert_non_null(hc);
	d = reuse_server(&n, 0x7f000001, 0);
	t = tgt(MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	c.path = "/ok";
	c.reuse_s = 10;
	/*
	 * Two probes to the same address and port, as the tunnel probes of one service are
	 * (their marks pick the backend): one engine, one multi handle, one connection each,
	 * never the other's (the paths tell them apart at the server).
	 */
	t2 = t;
	t2.backend.v4.s_addr = htonl(0x7f000002);
	p1 = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UNKNOWN, rec_cb, &r1);
	c.path = "/ok2";
	p2 = kmd_probe_get(hc, &c, &t2, KMD_HEALTH_UNKNOWN, rec_cb, &r2);
	c.path = "/ok";
	assert_non_null(p1);
	assert_non_null(p2);
	assert_ptr_not_equal(p1, p2);
	run_both(p1, p2, 5);
	assert_int_equal(r1.state, KMD_HEALTH_UP);
	assert_int_equal(r2.state, KMD_HEALTH_UP);
	assert_true(got(&n.requests) >= 10);
	assert_int_equal(got(&n.opened), 2);
	assert_int_equal(got(&n.closed), 0);
	assert_int_equal(got(&n.mixed), 0);

	/*
	 * A probe that goes takes its connection with it. The next probe, of another target on
	 * the same port (127.0.0.2, its own server), gets the free slot, and with it the slot's
	 * name: it must reach its own target, on a new connection.
	 */
	d2 = reuse_server(&m, 0x7f000002, t.port);
	kmd_probe_put(p2, rec_cb, &r2);
	wait_closed(&n, 1);
	t3 = tgt(t.port);
	t3.addr.v4.s_addr = htonl(0x7f000002);
	t3.backend = t3.addr;
	p3 = kmd_probe_get(hc, &c, &t3, KMD_HEALTH_UNKNOWN, rec_cb, &r3);
	assert_non_null(p3);
	before = got(&n.requests);
	run_both(p1, p3, 3);
	assert_int_equal(r3.state, KMD_HEALTH_UP);
	assert_int_equal(got(&m.opened), 1);
	assert_true(got(&m.requests) >= 3);
	assert_int_equal(got(&n.opened), 2);		/* p1's alone, still */
	assert_true(got(&n.requests) - before >= 3);	/* p1's runs */
	kmd_probe_put(p3, rec_cb, &r3);
	wait_closed(&m, 1);

	/* a server that closes after each reply: a new connection every run, all ok */
	kmd_probe_put(p1, rec_cb, &r1);
	wait_closed(&n, 2);
	c.path = "/close";
	p1 = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UNKNOWN, rec_cb, &r1);
	assert_non_null(p1);
	run_both(p1, NULL, 3);
	assert_int_equal(r1.state, KMD_HEALTH_UP);
	assert_true(got(&n.opened) >= 5);
	kmd_probe_put(p1, rec_cb, &r1);
	wait_closed(&n, got(&n.opened));

	/* reuse 0: a fresh connection for every run, each closed after it */
	c.path = "/ok";
	c.reuse_s = 0;
	p1 = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UNKNOWN, rec_cb, &r1);
	assert_non_null(p1);
	before = got(&n.opened);
	run_both(p1, NULL, 3);
	assert_true(got(&n.opened) - before >= 3);
	wait_closed(&n, got(&n.opened));
	kmd_probe_put(p1, rec_cb, &r1);

	/*
	 * reuse 1s (runs every 100 ms) beside reuse 10s in the same engine: the first's
	 * connection is renewed once it is older than a second (curl counts whole seconds: at
	 * 2 s), the second's is not (a multi handle prunes with the limits of whichever
	 * transfer looks, so the two are kept apart).
	 */
	c.reuse_s = 1;
	c.path = "/ok2";
	p1 = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UNKNOWN, rec_cb, &r1);
	c.reuse_s = 10;
	c.path = "/ok";
	p2 = kmd_probe_get(hc, &c, &t2, KMD_HEALTH_UNKNOWN, rec_cb, &r2);
	assert_non_null(p1);
	assert_non_null(p2);
	n.first[0] = n.first[1] = 0;
	run_for(2.5);
	kmd_probe_stats(p1, &st);
	assert_true(st.runs >= 10);
	assert_int_equal(r1.state, KMD_HEALTH_UP);
	assert_int_equal(r2.state, KMD_HEALTH_UP);
	assert_int_equal(got(&n.first[1]), 2);		/* reuse 1s: renewed once */
	assert_int_equal(got(&n.first[0]), 1);		/* reuse 10s: kept */
	kmd_probe_put(p1, rec_cb, &r1);
	kmd_probe_put(p2, rec_cb, &r2);

	/* the engine gone: every connection closed */
	kmd_hc_free(hc);
	wait_closed(&n, got(&n.opened));
	MHD_stop_daemon(d);
	MHD_stop_daemon(d2);
}

/*
 * A server that answers one request per connection with keep-alive and then resets the
 * idle connection 30 ms later (as some servers' keep-alive timeouts do): libcurl 7.88 sees
 * the reset connection as alive, its send fails, and it retries on a fresh connection,
 * counting the retry on the easy handle; the fifth would fail the run.
 */
struct rst_conn {
	ev_io io;
	ev_timer t;
	int fd;
};

static unsigned int rst_accepts;

static void rst_conn_close(struct rst_conn *k)
{
	struct linger lg = { 1, 0 };

	ev_io_stop(loop, &k->io);
	ev_timer_stop(loop, &k->t);
	setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(k->fd);
	free(k);
}

static void rst_timer(struct ev_loop *l, ev_timer *w, int revents)
{
	rst_conn_close(w->data);
}

static void rst_read(struct ev_loop *l, ev_io *w, int revents)
{
	static const char reply[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	struct rst_conn *k = w->data;
	char buf[1024];
	ssize_t r = recv(k->fd, buf, sizeof(buf), 0);

	if (r <= 0 || send(k->fd, reply, sizeof(reply) - 1, MSG_NOSIGNAL) < 0) {
		rst_conn_close(k);
		return;
	}
	ev_io_stop(loop, &k->io);
	ev_timer_start(loop, &k->t);
}

static void rst_accept(struct ev_loop *l, ev_io *w, int revents)
{
	struct rst_conn *k;
	int fd = accept4(w->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	rst_accepts++;
	k = calloc(1, sizeof(*k));
	assert_non_null(k);
	k->fd = fd;
	ev_io_init(&k->io, rst_read, fd, EV_READ);
	k->io.data = k;
	ev_timer_init(&k->t, rst_timer, 0.03, 0);
	k->t.data = k;
	ev_io_start(loop, &k->io);
}

static void test_http_reuse_reset(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_HTTP);
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct kmd_probe_stats st;
	struct rec r = { 0 };
	struct kmd_probe *p;
	struct kmd_target t;
	struct srv s;
	ev_io lio;

	assert_non_null(hc);
	srv_start(&s, SOCK_STREAM, SRV_CLOSE, false);	/* a bound socket, its port */
	assert_int_equal(listen(s.fd, 16), 0);
	ev_io_init(&lio, rst_accept, s.fd, EV_READ);
	ev_io_start(loop, &lio);
	t = tgt(s.port);
	c.reuse_s = 10;
	c.fall = 1;
	p = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UNKNOWN, rec_cb, &r);
	assert_non_null(p);
	run_until_runs(p, 14, 5);
	kmd_probe_stats(p, &st);
	assert_int_equal(st.failures, 0);
	assert_int_equal(r.state, KMD_HEALTH_UP);
	assert_true(rst_accepts >= 14);
	kmd_probe_put(p, rec_cb, &r);
	kmd_hc_free(hc);
	ev_io_stop(loop, &lio);
	close(s.fd);
}

/* ---- a tunnel check without a route to its VIP ---- */

static void test_no_route(void **state)
{
	static const char want[] = "connect: no route to VIP 192.0.2.10 (tunnel checks use "
				   "this host's routes: add one, or via: direct)";
	static const enum kmd_check_kind kinds[] = { KMD_CHECK_TCP, KMD_CHECK_HTTP, KMD_CHECK_UDP };
	struct kmd_probe p = { 0 };
	char why[128];
	int status;
	pid_t pid;

	p.check.kind = KMD_CHECK_TCP;
	p.check.via = KMD_VIA_TUNNEL;
	p.t.addr.family = AF_INET;
	p.t.addr.v4.s_addr = htonl(0xc000020a);
	kmd_connect_why(&p, ENETUNREACH, why, sizeof(why));
	assert_string_equal(why, want);
	kmd_connect_why(&p, ECONNREFUSED, why, sizeof(why));
	assert_string_equal(why, "connect: Connection refused");
	p.check.via = KMD_VIA_DIRECT;	/* the backend's own address: the errno says it all */
	kmd_connect_why(&p, ENETUNREACH, why, sizeof(why));
	assert_string_equal(why, "connect: Network is unreachable");

	/* for real: each socket kind in a network namespace of its own, which has no routes */
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		ev_loop_fork(loop);
		if (unshare(CLONE_NEWNET))
			_exit(77);	/* not root here */
		for (unsigned int i = 0; i < KMG_ARRAY_SIZE(kinds); i++) {
			struct kmd_check c = chk(kinds[i]);
			struct kmd_target t = tgt(80);
			struct kmd_result r;

			c.via = KMD_VIA_TUNNEL;
			c.send = "ping";
			t.addr = p.t.addr;
			t.proto = kinds[i] == KMD_CHECK_UDP ? IPPROTO_UDP : IPPROTO_TCP;
			r = one(&c, &t);
			if (r.ok || strcmp(r.why, want)) {
				fprintf(stderr, "# %s: \"%s\"\n", kmd_check_kind_name(kinds[i]),
					r.why);
				_exit(1);
			}
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_udp_dns(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_UDP);
	struct srv echo, dns, closed;
	struct kmd_target t;

	srv_start(&echo, SOCK_DGRAM, SRV_UDP_ECHO, true);
	t = tgt(echo.port);
	t.proto = IPPROTO_UDP;
	c.send = "ping";
	c.expect = "pong ping";
	assert_result(one(&c, &t), true, "ok");
	assert_int_equal(echo.accepts, 1);
	c.expect = "nope";
	assert_result(one(&c, &t), false, "reply mismatch");
	c.expect = NULL;
	assert_result(one(&c, &t), true, "ok");
	srv_stop(&echo);

	srv_start(&closed, SOCK_DGRAM, SRV_UDP_ECHO, false);
	t = tgt(closed.port);
	srv_stop(&closed);	/* nothing there: ICMP port unreachable */
	assert_result(one(&c, &t), false, "recv: Connection refused");

	c = chk(KMD_CHECK_DNS);
	srv_start(&dns, SOCK_DGRAM, SRV_DNS_NXDOMAIN, true);
	t = tgt(dns.port);
	c.query = "nothing.example";
	assert_result(one(&c, &t), false, "rcode NXDOMAIN");
	c.rcode = 3;
	assert_result(one(&c, &t), true, "ok");
	assert_int_equal(dns.accepts, 2);
	srv_stop(&dns);
}

static void test_exec(void **state)
{
	char *ok[] = { "true", NULL };
	char *one_[] = { "sh", "-c", "exit 1", NULL };
	char *weight[] = { "sh", "-c", "echo starting; echo weight 42", NULL };
	char *env[] = { "sh", "-c", "test \"$KMAGLEV_BACKEND:$KMAGLEV_PORT\" = 127.0.0.1:8080",
			NULL };
	char *missing[] = { "/nonexistent/check", NULL };
	char pidfile[] = "/tmp/kmaglev-test-XXXXXX";
	char cmd[256], stat[64];
	char *hang[] = { "sh", "-c", cmd, NULL };
	struct kmd_check c = chk(KMD_CHECK_EXEC);
	struct kmd_target t = tgt(8080);
	struct kmd_result r;
	FILE *f;
	int fd, bg = 0;

	c.argv = ok;
	assert_result(one(&c, &t), true, "ok");
	c.argv = one_;
	assert_result(one(&c, &t), false, "exit 1");
	c.argv = weight;
	r = one(&c, &t);
	assert_result(r, true, "ok");
	assert_int_equal(r.weight, 42);
	c.argv = env;
	assert_result(one(&c, &t), true, "ok");
	c.argv = missing;
	assert_result(one(&c, &t), false, "exec: No such file or directory");

	/* a timeout kills the process group: the command and what it started */
	fd = mkstemp(pidfile);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "sleep 30 & echo $! > %s; wait", pidfile);
	c.argv = hang;
	c.timeout_ms = 200;
	r = one(&c, &t);
	assert_result(r, false, "timeout");
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &bg), 1);
	fclose(f);
	unlink(pidfile);
	run_for(0.2);
	snprintf(stat, sizeof(stat), "/proc/%d/stat", bg);
	f = fopen(stat, "r");
	if (f) {	/* gone, or a zombie waiting for its new parent */
		char st = 0;

		assert_int_equal(fscanf(f, "%*d %*s %c", &st), 1);
		fclose(f);
		assert_int_equal(st, 'Z');
	}
}

static void test_agent(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_AGENT);
	struct srv a;
	struct kmd_target t;
	struct kmd_result r;

	srv_start(&a, SOCK_STREAM, SRV_REPLY, true);
	t = tgt(a.port);
	a.reply = "up 50%\n";
	r = one(&c, &t);
	assert_result(r, true, "ok");
	assert_int_equal(r.weight_pct, 50);
	assert_int_equal(r.admin, -1);
	a.reply = "drain";	/* no newline: the close ends it */
	r = one(&c, &t);
	assert_result(r, true, "ok");
	assert_int_equal(r.admin, KMAGLEV_BACKEND_STATE_DRAIN);
	a.reply = "down #maintenance window\r\n";
	assert_result(one(&c, &t), false, "agent: down: maintenance window");
	a.reply = "weight:30\n";
	r = one(&c, &t);
	assert_result(r, true, "ok");
	assert_int_equal(r.weight, 30);
	a.reply = "up util:42%\n";
	r = one(&c, &t);
	assert_result(r, true, "ok");
	assert_int_equal(r.util, 42);
	a.reply = "what?\n";
	assert_result(one(&c, &t), false, "agent: bad reply \"what?\"");
	a.reply = "";
	assert_result(one(&c, &t), false, "agent: empty reply");
	srv_stop(&a);
}

/* listeners hear state and agent changes, not repeats */
static void test_listeners(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_AGENT);
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct kmd_probe_stats st;
	struct rec rec = { 0 };
	struct kmd_probe *p;
	struct kmd_target t;
	struct srv a;

	srv_start(&a, SOCK_STREAM, SRV_REPLY, true);
	a.reply = "up\n";
	t = tgt(a.port);
	c.fall = 2;
	p = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, rec_cb, &rec);
	assert_non_null(p);
	run_until_runs(p, 2, 3);
	assert_int_equal(rec.calls, 0);		/* started up, still up */
	a.reply = "up 50%\n";
	run_until_runs(p, 4, 3);
	assert_int_equal(rec.calls, 1);
	assert_int_equal(rec.pct, 50);
	/* utilization: heard when its smoothed value moves, not on repeats */
	a.reply = "up 50% util:40\n";
	run_until_runs(p, 5, 3);
	assert_int_equal(rec.calls, 2);
	assert_int_equal(rec.util, 40);
	run_until_runs(p, 6, 3);
	assert_int_equal(rec.calls, 2);				/* 40 again: nothing new */
	a.reply = "up 50% util:90\n";
	run_until_runs(p, 7, 3);
	assert_int_equal(rec.calls, 3);
	assert_int_equal(rec.util, 55);				/* 40 + 0.3 * (90 - 40) */
	assert_int_equal(kmd_probe_util(p), 55);
	a.reply = "down\n";
	run_until_runs(p, 8, 3);
	assert_int_equal(kmd_probe_state(p), KMD_HEALTH_UP);	/* fall 2: one is not enough */
	assert_int_equal(rec.calls, 4);				/* but the 50% went away */
	assert_int_equal(rec.util, 55);				/* a failed run keeps it */
	run_until_runs(p, 9, 3);
	assert_int_equal(kmd_probe_state(p), KMD_HEALTH_DOWN);
	assert_int_equal(rec.calls, 5);
	assert_int_equal(rec.util, -1);				/* down: no utilization */
	assert_int_equal(rec.state, KMD_HEALTH_DOWN);
	assert_int_equal(kmd_probe_transitions(p), 1);
	kmd_probe_stats(p, &st);
	assert_int_equal(st.runs, 9);
	assert_int_equal(st.failures, 2);
	assert_int_equal(st.bucket[9], 9);		/* cumulative: +Inf holds every run */
	assert_true(st.bucket[0] <= st.bucket[4]);
	assert_true(st.sum_s > 0 && st.sum_s < 9 * 0.3);
	kmd_probe_put(p, rec_cb, &rec);
	kmd_hc_free(hc);
	srv_stop(&a);
}

static void put_self(struct kmd_probe *p, void *arg)
{
	(*(unsigned int *)arg)++;
	kmd_probe_put(p, put_self, arg);
}

/* one probe per equal (check, target), one run per interval; the last put stops it */
static void test_sharing(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_TCP), c2;
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct kmd_probe *p, *q, *other;
	struct rec r1 = { 0 }, r2 = { 0 }, r3 = { 0 };
	struct kmd_probe_stats st;
	unsigned int accepts, self = 0;
	struct kmd_target t, t2;
	struct srv s;

	srv_start(&s, SOCK_STREAM, SRV_CLOSE, true);
	t = tgt(s.port);
	c.name = "first";
	c2 = c;
	c2.name = "second";	/* names and file positions do not make checks differ */
	c2.loc.line = 42;
	t2 = t;
	p = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, rec_cb, &r1);
	q = kmd_probe_get(hc, &c2, &t2, KMD_HEALTH_UP, rec_cb, &r2);
	assert_non_null(p);
	assert_ptr_equal(p, q);
	assert_string_equal(kmd_probe_check(p)->name, "first");
	c2.interval_ms = 200;
	other = kmd_probe_get(hc, &c2, &t2, KMD_HEALTH_UP, rec_cb, &r3);
	assert_non_null(other);
	assert_ptr_not_equal(other, p);
	kmd_probe_put(other, rec_cb, &r3);

	run_for(0.55);		/* runs at 0, 0.1, ..., 0.5 */
	kmd_probe_stats(p, &st);
	assert_in_range(st.runs, 5, 6);
	assert_int_equal(s.accepts, st.runs);	/* one connection per run, not per user */
	kmd_probe_put(p, rec_cb, &r1);
	run_for(0.25);
	kmd_probe_stats(p, &st);
	assert_int_equal(s.accepts, st.runs);	/* still running for the second user */
	assert_in_range(st.runs, 7, 9);
	kmd_probe_put(q, rec_cb, &r2);		/* the last one: stops and frees */
	/*
	 * Runs are due at exact multiples of the interval: one may have connected in the loop
	 * iteration that ended run_for(), before the put. Let the server accept it.
	 */
	run_for(0.02);
	accepts = s.accepts;
	run_for(0.25);
	assert_int_equal(s.accepts, accepts);

	/* a listener may drop itself (the probe's last) from inside its call */
	srv_stop(&s);
	c.fall = 1;
	p = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, put_self, &self);
	assert_non_null(p);
	run_for(0.3);
	assert_int_equal(self, 1);
	kmd_hc_free(hc);
}

/* jitter: the first run at random in 0..jitter, fast interval while falling */
static void test_timing(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_TCP);
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct kmd_probe *p[20];
	struct kmd_probe_stats st;
	struct rec rec = { 0 };
	unsigned int ran = 0, i;
	struct kmd_target t;
	struct srv s;

	srv_start(&s, SOCK_STREAM, SRV_CLOSE, false);	/* refuses */
	c.interval_ms = 10000;
	c.jitter_ms = 400;
	for (i = 0; i < 20; i++) {
		t = tgt(s.port);
		t.mark = 0;
		t.vport = i;		/* twenty distinct targets */
		p[i] = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, rec_cb, &rec);
		assert_non_null(p[i]);
	}
	run_for(0.2);
	for (i = 0; i < 20; i++) {
		kmd_probe_stats(p[i], &st);
		ran += st.runs;
	}
	assert_in_range(ran, 2, 18);		/* about half started by 0.2 s of 0.4 */
	for (i = 0; i < 20; i++)
		kmd_probe_put(p[i], rec_cb, &rec);

	/* falling: fast interval 50 ms instead of 10 s; then down: down interval 100 ms */
	c.jitter_ms = 0;
	c.fall = 3;
	c.fast_interval_ms = 50;
	c.down_interval_ms = 100;
	t = tgt(s.port);
	p[0] = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, rec_cb, &rec);
	assert_non_null(p[0]);
	run_until_runs(p[0], 3, 0.5);
	assert_int_equal(kmd_probe_state(p[0]), KMD_HEALTH_DOWN);
	run_until_runs(p[0], 5, 0.5);
	kmd_probe_put(p[0], rec_cb, &rec);
	kmd_hc_free(hc);
	srv_stop(&s);
}

static void stall(struct ev_loop *l, ev_timer *w, int revents)
{
	usleep(60 * 1000);
}

/*
 * A busy loop does not slow the checks down: runs are due every interval from the first,
 * not from when the loop got round to the last one (it stalls 60 ms in every 70 here).
 */
static void test_no_drift(void **state)
{
	struct kmd_check c = chk(KMD_CHECK_TCP);
	struct kmd_hc *hc = kmd_hc_new(loop, kmd_check_kinds);
	struct kmd_probe_stats st;
	struct rec rec = { 0 };
	struct kmd_probe *p;
	struct kmd_target t;
	ev_timer busy;
	struct srv s;

	srv_start(&s, SOCK_STREAM, SRV_CLOSE, true);
	t = tgt(s.port);
	p = kmd_probe_get(hc, &c, &t, KMD_HEALTH_UP, rec_cb, &rec);
	assert_non_null(p);
	ev_timer_init(&busy, stall, 0.07, 0.07);
	ev_timer_start(loop, &busy);
	run_for(2.05);			/* due at 0, 0.1, ..., 2.0 */
	ev_timer_stop(loop, &busy);
	kmd_probe_stats(p, &st);
	/* from the last start instead: 0.1 s plus ~26 ms of stall each, ~16 runs */
	assert_in_range(st.runs, 19, 21);
	kmd_probe_put(p, rec_cb, &rec);
	kmd_hc_free(hc);
	srv_stop(&s);
}

static int setup(void **state)
{
	signal(SIGPIPE, SIG_IGN);
	loop = ev_default_loop(0);
	return loop ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hcsm_rise_fall),
		cmocka_unit_test(test_hcsm_unknown),
		cmocka_unit_test(test_agent_words),
		cmocka_unit_test(test_agent_bad),
		cmocka_unit_test(test_util_smooth),
		cmocka_unit_test(test_status_match),
		cmocka_unit_test(test_tcp),
		cmocka_unit_test(test_tcp_ipv6),
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_http_reuse),
		cmocka_unit_test(test_http_reuse_reset),
		cmocka_unit_test(test_no_route),
		cmocka_unit_test(test_udp_dns),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_agent),
		cmocka_unit_test(test_listeners),
		cmocka_unit_test(test_sharing),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_no_drift),
	};

	return cmocka_run_group_tests_name("health", tests, setup, NULL);
}
