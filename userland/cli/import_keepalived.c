// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev import keepalived": keepalived.conf's virtual servers as kmaglev
 * services (kaconf.c reads the syntax, import.c writes the file).
 *
 * A virtual_server IP PORT (or each address and port of a virtual_server_group) becomes a
 * service, each real_server a backend, each checker one or more health checks with keepalived's
 * timing: interval = delay_loop, timeout = connect_timeout, fall = retry + 1, fast-interval =
 * delay_before_retry, rise = 1 (one success brings a server back), to the server's own address
 * (via: direct), as keepalived's checkers connect. Every keyword either maps, maps by a rule
 * said in a note (the scheduler, persistence), or is a loss with the reason; a keyword this
 * does not know is a loss too, so nothing is dropped silently.
 *
 * Defaults are keepalived 2.2's (keepalived.conf(5)): delay_loop 60 s, connect_timeout 5 s,
 * retry 1 (DNS_CHECK 3, MISC_CHECK 0), delay_before_retry 3 s for HTTP_GET and SSL_GET,
 * delay_loop for DNS_CHECK, 1 s otherwise; lb_kind NAT; protocol TCP; weight 1; status codes
 * 200-299; DNS type SOA.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "lib/err.h"
#include "cli/import.h"
#include "cli/kaconf.h"

#define DELAY_LOOP_MS		60000
#define CONNECT_TIMEOUT_MS	5000
#define RANGE_MAX		256	/* addresses a group's range may stand for */
#define WEIGHT_MAX		65535
/* the daemon's ranges for a check (daemon.rst) */
#define INTERVAL_MIN_MS		100
#define INTERVAL_MAX_MS		3600000
#define FAST_MIN_MS		100
#define TIMEOUT_MIN_MS		10
#define FALL_MAX		1000

/* What may go unsaid after its first time in a virtual server. */
enum {
	SAID_ALPHA = 1, SAID_WARMUP = 2, SAID_INHIBIT = 4, SAID_LOG = 8, SAID_HTTP_PROTO = 16,
	SAID_FAST = 32, SAID_SNI = 64, SAID_QUORUM = 128, SAID_INHIBIT_NO = 256,
};

/* What kmaglev does with a failed backend, which is what inhibit_on_failure asks of keepalived. */
#define INHIBIT_NOTE "a failed backend is down in kmaglev: no new flows, its established flows stay (unless the service has the resched flag), as with weight 0"

enum method { M_NAT, M_DR, M_TUN };

/*
 * Settings that pass from the virtual server to its real servers and their checkers, with the
 * lines that gave them (for the notes when kmaglev's ranges change them).
 */
struct timing {
	int64_t loop_ms, conn_ms, dbr_ms;	/* -1: not given */
	int64_t retry;
	const struct kac_node *loop_at, *conn_at, *dbr_at, *retry_at;
};

struct ka {
	struct kmg_imp *imp;
	const struct kac_node **groups;		/* virtual_server_group blocks */
	unsigned int ngroups;
};

struct vs {
	struct ka *ka;
	const struct kac_node *x;
	struct timing t;
	enum method method;
	bool gre;
	const struct kac_node *method_at;	/* NULL: keepalived's default, NAT */
	const char *vhost;
	uint8_t proto;
	const char *hash;
	uint32_t quorum;
	const struct kac_node *quorum_at;
	bool inhibit;				/* inhibit_on_failure on the virtual server */
	unsigned int said;
	char **said_timing;			/* timing notes said (once each) */
	unsigned int nsaid_timing;
};

/* A real server, before it is a backend of each of its virtual server's services. */
struct rs {
	struct kmg_imp_backend b;		/* checks' port: connect_port, or 0 */
	uint16_t port;				/* 0: none given */
	enum method method;
	const struct kac_node *method_at;	/* its own lb_kind, if any */
	bool inhibit;				/* inhibit_on_failure, its own or the VS's */
	const struct kac_node *x;		/* its line */
	bool ok;
	uint16_t said_port[8];			/* service ports its port was reported for */
	unsigned int nsaid;
};

static struct kmg_imp_src src(const struct kac_node *x)
{
	return (struct kmg_imp_src){ x->file, x->line };
}

/*
 * The words of @x as they were written (quotes gone), for messages: a byte that is no
 * printable UTF-8 as \xNN.
 */
static const char *text(const struct kac_node *x, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < x->nw && n + 1 < len; i++) {
		if (i)
			buf[n++] = ' ';
		kmg_imp_escape(x->w[i], buf + n, len - n);
		n += strlen(buf + n);
	}
	buf[n] = '\0';
	return buf;
}

static void loss(struct ka *ka, const struct kac_node *x, const char *why)
{
	struct kmg_imp_src at = src(x);
	char buf[256];

	kmg_imp_loss(ka->imp, &at, "%s: %s", text(x, buf, sizeof(buf)), why);
}

/* A loss for the text of @x that is no text kmaglev takes: "FIELD: WHY: WHAT". */
static void bad_text(struct ka *ka, const struct kac_node *x, const char *field,
		     const char *why, const char *what)
{
	char buf[384];

	snprintf(buf, sizeof(buf), "%s: %s: %s", field, why, what);
	loss(ka, x, buf);
}

static void note(struct ka *ka, const struct kac_node *x, const char *why)
{
	struct kmg_imp_src at = src(x);
	char buf[256];

	kmg_imp_note(ka->imp, &at, "%s: %s", text(x, buf, sizeof(buf)), why);
}

/* A note said once per virtual server. */
static void note_once(struct vs *v, unsigned int bit, const struct kac_node *x, const char *why)
{
	if (v->said & bit)
		return;
	v->said |= bit;
	note(v->ka, x, why);
}

static void unknown(struct ka *ka, const struct kac_node *x, const char *where)
{
	char why[128];

	snprintf(why, sizeof(why), "a keyword of %s this import does not know", where);
	loss(ka, x, why);
}

/* --- values --------------------------------------------------------------------------- */

static bool is(const struct kac_node *x, const char *kw)
{
	return !strcmp(x->w[0], kw);
}

static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end || errno)
		return -EINVAL;
	return *v > max ? -ERANGE : 0;
}

/*
 * <TIMER>: seconds with an optional fraction ("2.5"), in ms, rounded to the nearest (*@exact
 * false when that changed it).
 */
static int parse_timer(const char *s, int64_t *ms, bool *exact)
{
	uint64_t sec = 0, frac = 0, div = 1;
	const char *p = s;

	*exact = true;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++)
		if ((sec = sec * 10 + (*p - '0')) > 86400 * 365)
			return -ERANGE;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++) {
			if (div < 1000000) {
				frac = frac * 10 + (*p - '0');
				div *= 10;
			} else if (*p != '0') {
				*exact = false;		/* (keepalived keeps microseconds) */
			}
		}
	}
	if (*p)
		return -EINVAL;
	if (div > 1000 && frac % (div / 1000))
		*exact = false;
	*ms = sec * 1000 + (frac * 1000 + div / 2) / div;
	return 0;
}

/* <BOOL> after a keyword that may stand alone: true unless it says no. */
static bool flag_value(const struct kac_node *x)
{
	static const char *const no[] = { "false", "no", "off", "0" };
	unsigned int i;

	for (i = 0; x->nw > 1 && i < KMG_ARRAY_SIZE(no); i++)
		if (!strcasecmp(x->w[1], no[i]))
			return false;
	return true;
}

/* The one value of @x, or a loss (and NULL) when it has none or several. */
static const char *value(struct ka *ka, const struct kac_node *x)
{
	if (x->nw == 2 && !x->block)
		return x->w[1];
	loss(ka, x, x->nw < 2 ? "no value" : "more than one value");
	return NULL;
}

/* @ms as kmaglev writes a duration ("1500ms", "2m"), or in seconds past its range. */
static const char *dur(int64_t ms, char *buf, size_t len)
{
	if (ms >= 0 && ms <= UINT32_MAX)
		return kmg_fmt_duration(ms, buf, len);
	snprintf(buf, len, "%llds", (long long)(ms / 1000));
	return buf;
}

static bool timer(struct ka *ka, const struct kac_node *x, int64_t *ms)
{
	const char *s = value(ka, x);
	char why[128], d[32];
	bool exact;

	if (s && !parse_timer(s, ms, &exact)) {
		if (!exact) {
			snprintf(why, sizeof(why),
				 "kmaglev's durations are whole milliseconds: %ss is written as %s",
				 s, dur(*ms, d, sizeof(d)));
			note(ka, x, why);
		}
		return true;
	}
	if (s)
		loss(ka, x, "not a time in seconds");
	return false;
}

static bool uint_value(struct ka *ka, const struct kac_node *x, uint64_t max, uint64_t *v)
{
	const char *s = value(ka, x);
	char why[64];

	if (s && !parse_uint(s, max, v))
		return true;
	if (s) {
		snprintf(why, sizeof(why), "not a number 0..%llu", (unsigned long long)max);
		loss(ka, x, why);
	}
	return false;
}

/* The timing keywords every level takes. true if @x is one of them (dealt with). */
static bool timing_kw(struct ka *ka, const struct kac_node *x, struct timing *t)
{
	uint64_t v;

	if (is(x, "delay_loop")) {
		if (timer(ka, x, &t->loop_ms))
			t->loop_at = x;
	} else if (is(x, "connect_timeout")) {
		if (timer(ka, x, &t->conn_ms))
			t->conn_at = x;
	} else if (is(x, "delay_before_retry")) {
		if (timer(ka, x, &t->dbr_ms))
			t->dbr_at = x;
	} else if (is(x, "retry") || is(x, "nb_get_retry")) {
		if (uint_value(ka, x, 1000, &v)) {
			t->retry = v;
			t->retry_at = x;
		}
	} else {
		return false;
	}
	return true;
}

static void timing_inherit(struct timing *t, const struct timing *parent)
{
	if (t->loop_ms < 0) {
		t->loop_ms = parent->loop_ms;
		t->loop_at = parent->loop_at;
	}
	if (t->conn_ms < 0) {
		t->conn_ms = parent->conn_ms;
		t->conn_at = parent->conn_at;
	}
	if (t->dbr_ms < 0) {
		t->dbr_ms = parent->dbr_ms;
		t->dbr_at = parent->dbr_at;
	}
	if (t->retry < 0) {
		t->retry = parent->retry;
		t->retry_at = parent->retry_at;
	}
}

static const struct timing unset = { -1, -1, -1, -1, NULL, NULL, NULL, NULL };

/* lb_kind / lvs_method NAT|DR|TUN [type ipip|gre|gue port N] [nocsum|csum|remcsum] */
static bool method(struct ka *ka, const struct kac_node *x, enum method *m, bool *gre)
{
	unsigned int i;

	*gre = false;
	if (x->nw < 2) {
		loss(ka, x, "no forwarding method");
		return false;
	}
	if (!strcasecmp(x->w[1], "NAT"))
		*m = M_NAT;
	else if (!strcasecmp(x->w[1], "DR"))
		*m = M_DR;
	else if (!strcasecmp(x->w[1], "TUN"))
		*m = M_TUN;
	else {
		loss(ka, x, "not a forwarding method (NAT, DR or TUN)");
		return false;
	}
	for (i = 2; i < x->nw; i++) {
		if (!strcmp(x->w[i], "type") && i + 1 < x->nw && !strcmp(x->w[i + 1], "ipip")) {
			i++;
		} else if (!strcmp(x->w[i], "type") && i + 1 < x->nw &&
			   !strcmp(x->w[i + 1], "gre")) {
			*gre = true;
			i++;
		} else if (!strcmp(x->w[i], "nocsum") && *gre) {
			/* kmaglev's GRE has no checksum either */
		} else {
			loss(ka, x, "kmaglev tunnels are IPIP or GRE without checksum (encap ipip, encap gre): written as ipip");
			*gre = false;
			break;
		}
	}
	return true;
}

static const char *method_loss(void)
{
	return "kmaglev does not translate addresses: it sends clients' packets to the backend in a tunnel and the backend answers them directly; each backend must take the tunnel and own the VIP (ip link set tunl0 up; ip addr add VIP/32 dev lo); written as encap ipip";
}

/* Say what @m becomes, at @x: NAT is a loss, DR a note (it maps), TUN says nothing. */
static void method_said(struct ka *ka, const struct kac_node *x, enum method m)
{
	if (m == M_NAT)
		loss(ka, x, method_loss());
	else if (m == M_DR)
		note(ka, x, KMG_IMP_DR_NOTE);
}

/* --- checks --------------------------------------------------------------------------- */

/*
 * A note (or, with @lost, a loss) that kmaglev's range changed a timing value: at @x, the
 * line that gave it, or, for keepalived's default (@x NULL), at the checker @c. Said once in
 * a virtual server for the same line and words (its real servers share their timing), or for
 * the same words about a default (at the first checker it changed).
 */
static void timing_say(struct vs *v, bool lost, const struct kac_node *x,
		       const struct kac_node *c, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void timing_say(struct vs *v, bool lost, const struct kac_node *x,
		       const struct kac_node *c, const char *fmt, ...)
{
	const struct kac_node *at = x ? x : c;
	char why[384], *key = NULL;
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (asprintf(&key, "%s:%u:%s", x ? x->file : "", x ? x->line : 0, why) < 0)
		key = NULL;
	for (i = 0; key && i < v->nsaid_timing; i++)
		if (!strcmp(v->said_timing[i], key)) {
			free(key);
			return;
		}
	if (key && !kmg_grow(&v->said_timing, v->nsaid_timing, sizeof(*v->said_timing)))
		v->said_timing[v->nsaid_timing++] = key;
	else
		free(key);
	if (lost)
		loss(v->ka, at, why);
	else
		note(v->ka, at, why);
}

#define timing_note(v, x, c, ...)	timing_say(v, false, x, c, __VA_ARGS__)

/* "delay_loop 2" as written, or "keepalived's default delay_loop (60s)". */
static const char *origin(const struct kac_node *x, const char *kw, int64_t ms, char *buf,
			  size_t len)
{
	char d[32];

	if (x)
		snprintf(buf, len, "%s %ss", kw, x->nw > 1 ? x->w[1] : "?");
	else
		snprintf(buf, len, "keepalived's default %s (%s)", kw, dur(ms, d, sizeof(d)));
	return buf;
}

/*
 * Fill the timing of @k from keepalived's settings @t for checker @c of defaults @retry, @dbr
 * (-1: delay_loop), and @timeout_ms (-1: connect_timeout) given at @timeout_at. Where
 * kmaglev's ranges change a value, a note says which, from what to what.
 */
static void check_timing(struct vs *v, const struct kac_node *c, struct kmg_imp_check *k,
			 const struct timing *t, int64_t retry, int64_t dbr_ms,
			 int64_t timeout_ms, const struct kac_node *timeout_at, const char *timeout_kw)
{
	int64_t loop = t->loop_ms >= 0 ? t->loop_ms : DELAY_LOOP_MS;
	int64_t to = timeout_ms >= 0 ? timeout_ms : t->conn_ms >= 0 ? t->conn_ms :
		     CONNECT_TIMEOUT_MS;
	int64_t dbr = t->dbr_ms >= 0 ? t->dbr_ms : dbr_ms >= 0 ? dbr_ms : loop;
	int64_t r = t->retry >= 0 ? t->retry : retry;
	const struct kac_node *to_at = timeout_ms >= 0 ? timeout_at : t->conn_at;
	const char *to_kw = timeout_ms >= 0 ? timeout_kw : "connect_timeout";
	char o[128], d1[32], d2[32];

	if (loop < INTERVAL_MIN_MS || loop > INTERVAL_MAX_MS) {
		int64_t was = loop;

		loop = loop < INTERVAL_MIN_MS ? INTERVAL_MIN_MS : INTERVAL_MAX_MS;
		timing_say(v, true, t->loop_at, c,
			   "delay_loop %s is outside kmaglev's interval range (100ms..1h): written as interval: %s",
			   dur(was, d1, sizeof(d1)), dur(loop, d2, sizeof(d2)));
	}
	if (to > loop) {
		timing_note(v, to_at, c,
			    "%s is longer than delay_loop (%s), and kmaglev's timeout is at most the interval: written as timeout: %s",
			    origin(to_at, to_kw, to, o, sizeof(o)), dur(loop, d1, sizeof(d1)),
			    dur(loop, d2, sizeof(d2)));
		to = loop;
	}
	if (to < TIMEOUT_MIN_MS) {
		timing_note(v, to_at, c,
			    "%s is below kmaglev's least timeout: written as timeout: %s",
			    origin(to_at, to_kw, to, o, sizeof(o)), dur(TIMEOUT_MIN_MS, d1, sizeof(d1)));
		to = TIMEOUT_MIN_MS;
	}
	if (dbr < FAST_MIN_MS) {
		timing_note(v, t->dbr_at, c,
			    "%s is below kmaglev's least fast-interval: written as fast-interval: %s",
			    origin(t->dbr_at, "delay_before_retry", dbr, o, sizeof(o)),
			    dur(FAST_MIN_MS, d1, sizeof(d1)));
		dbr = FAST_MIN_MS;
	}
	if (dbr > loop) {
		timing_note(v, t->dbr_at, c,
			    "%s is longer than delay_loop (%s), and kmaglev's fast-interval is at most the interval: written as fast-interval: %s",
			    origin(t->dbr_at, "delay_before_retry", dbr, o, sizeof(o)),
			    dur(loop, d1, sizeof(d1)), dur(loop, d2, sizeof(d2)));
		dbr = loop;
	}
	if (r + 1 > FALL_MAX) {
		timing_note(v, t->retry_at, c,
			    "retry %lld would be fall: %lld, above kmaglev's most (%u): written as fall: %u",
			    (long long)r, (long long)r + 1, FALL_MAX, FALL_MAX);
		r = FALL_MAX - 1;
	}
	k->interval_ms = loop;
	k->timeout_ms = to;
	k->fast_ms = dbr;
	k->rise = 1;
	k->fall = r + 1;
	k->direct = true;
}

/* The common keywords of checkers. true if @x is one (dealt with). */
static bool checker_common(struct vs *v, struct rs *r, const struct kac_node *x,
			   struct timing *t, uint16_t *port, bool misc)
{
	struct ka *ka = v->ka;
	struct kmg_addr a;
	uint64_t n;

	if (timing_kw(ka, x, t)) {
		if (misc && is(x, "connect_timeout"))
			loss(ka, x, "MISC_CHECK takes misc_timeout, not this");
		return true;
	}
	if ((is(x, "alpha") || is(x, "log_all_failures")) && !flag_value(x))
		return true;
	if (is(x, "warmup")) {
		note_once(v, SAID_WARMUP, x,
			  "kmaglev delays each run of a check by a random 0..jitter (interval/10)");
	} else if (is(x, "alpha")) {
		note_once(v, SAID_ALPHA, x,
			  "kmaglev always starts a backend it does not serve yet down, until its checks pass");
	} else if (is(x, "log_all_failures")) {
		note_once(v, SAID_LOG, x, "kmaglev logs every change of a check's verdict");
	} else if (misc) {
		return false;
	} else if (is(x, "connect_port")) {
		if (uint_value(ka, x, 65535, &n) && n)
			*port = n;
	} else if (is(x, "connect_ip")) {
		if (x->nw == 2 && !kmg_parse_addr(x->w[1], &a) && kmg_addr_equal(&a, &r->b.addr))
			return true;
		loss(ka, x, "kmaglev's checks go to the backend's own address (via: direct) or through its tunnel (via: tunnel), not elsewhere");
	} else if (is(x, "bindto") || is(x, "bind_port") || is(x, "bind_if")) {
		loss(ka, x, "kmaglev's checks take the source address and port the host's routes give");
	} else if (is(x, "fwmark")) {
		loss(ka, x, "kmaglev marks only its tunnel checks (probe-mark-min + the backend's id)");
	} else {
		return false;
	}
	return true;
}

/* "200-299 400 503": the status list of @k. */
static void status_codes(struct ka *ka, const struct kac_node *x, struct kmg_imp_check *k)
{
	unsigned int i, lo, hi;
	int end;

	for (i = 1; i < x->nw; i++) {
		end = 0;
		if (sscanf(x->w[i], "%3u%n", &lo, &end) == 1 && !x->w[i][end]) {
			hi = lo;
		} else if (sscanf(x->w[i], "%3u-%3u%n", &lo, &hi, &end) != 2 || x->w[i][end]) {
			lo = hi = 0;
		}
		if (lo < 100 || hi > 599 || lo > hi) {
			loss(ka, x, "a code or range outside 100..599 left out");
			continue;
		}
		if (k->nstatus == KMG_IMP_STATUS_MAX) {
			loss(ka, x, "more codes and ranges than 16: the rest left out");
			break;
		}
		k->status[k->nstatus].lo = lo;
		k->status[k->nstatus++].hi = hi;
	}
}

/* A regex with no special character is a substring. */
static bool literal(const char *re)
{
	return !re[strcspn(re, ".^$*+?()[]{}|\\")];
}

/* One url { } of HTTP_GET or SSL_GET: a check like @base. */
/* A name, an IPv4 address or an [IPv6] one: what the daemon takes as a check's host. */
static bool host_chars(const char *s, size_t n)
{
	if (n > 2 && s[0] == '[')
		return s[n - 1] == ']' && strspn(s + 1, "0123456789abcdefABCDEF:.") == n - 2;
	return n && n <= 253 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") >= n;
}

/*
 * keepalived's virtualhost as a check's host: a "NAME:PORT" loses its port (the daemon's check
 * sends Host with the check's port, and a port in host would make another URL), anything
 * else that is no host name is a loss and the check sends the address. NULL or the host.
 */
static const char *vhost_clean(struct ka *ka, const struct kac_node *u, const char *host,
			       char *buf, size_t len)
{
	const char *colon = strrchr(host, ':');
	size_t n = strlen(host);

	if (host_chars(host, n))
		return host;
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
	    (size_t)(colon - host) < len && host_chars(host, colon - host)) {
		memcpy(buf, host, colon - host);
		buf[colon - host] = '\0';
		note(ka, u, "the virtualhost's port is dropped: kmaglev's check sends Host with the check's own port");
		return buf;
	}
	loss(ka, u, "the virtualhost is no host name (letters, digits, \"-\", \".\", \"_\", or an [IPv6] address): the check sends the address as Host");
	return NULL;
}

static void url(struct vs *v, struct rs *r, const struct kac_node *u, const char *vhost,
		const struct kmg_imp_check *base)
{
	struct ka *ka = v->ka;
	struct kmg_imp_check st = { 0 }, *k;
	const char *path = NULL, *host = vhost, *body = NULL, *s, *why;
	const struct kac_node *path_at = NULL;
	char hbuf[256], wbuf[96];
	unsigned int i;

	for (i = 0; i < u->nkid; i++) {
		const struct kac_node *x = &u->kid[i];

		if (is(x, "path")) {
			path = value(ka, x);
			path_at = x;
		} else if (is(x, "digest")) {
			loss(ka, x, "kmaglev matches a substring of the body (body:), not an MD5 digest of it: the check tests the status code only");
		} else if (is(x, "status_code")) {
			status_codes(ka, x, &st);
		} else if (is(x, "virtualhost")) {
			host = value(ka, x);
		} else if (is(x, "regex")) {
			s = value(ka, x);
			why = s ? kmg_imp_text_why(s, 4096, false, wbuf, sizeof(wbuf)) : NULL;
			if (s && !literal(s))
				loss(ka, x, "kmaglev matches a substring of the body (body:), not a regular expression");
			else if (why)
				bad_text(ka, x, "regex", why,
					 "no text the check can look for: it tests the status code only");
			else if (s)
				body = s;
		} else if (is(x, "regex_no_match") || is(x, "regex_options") ||
			   is(x, "regex_stack") || is(x, "regex_min_offset") ||
			   is(x, "regex_max_offset")) {
			loss(ka, x, "kmaglev matches a substring of the body (body:), not a regular expression");
		} else {
			unknown(ka, x, "url");
		}
	}
	if (!path) {
		loss(ka, u, "a url without a path: keepalived refuses it; no check written");
		return;
	}
	why = kmg_imp_text_why(path, 2048, true, wbuf, sizeof(wbuf));
	if (why) {
		bad_text(ka, path_at, "path", why,
			 "kmaglev's path is UTF-8 text without spaces or control characters: no check written");
		return;
	}
	if (path[0] != '/') {
		loss(ka, path_at, "kmaglev's path starts with \"/\": no check written");
		return;
	}
	if (host)
		host = vhost_clean(ka, u, host, hbuf, sizeof(hbuf));
	k = kmg_imp_check_add(&r->b);
	if (!k || kmg_imp_check_copy(k, base))
		return;
	if (st.nstatus) {
		memcpy(k->status, st.status, sizeof(st.status));
		k->nstatus = st.nstatus;
	} else {
		/* keepalived's default: 2xx, not kmaglev's 200-399 */
		k->status[0].lo = 200;
		k->status[0].hi = 299;
		k->nstatus = 1;
	}
	k->path = strdup(path);
	k->host = host ? strdup(host) : NULL;
	k->body = body ? strdup(body) : NULL;
}

static void http_get(struct vs *v, struct rs *r, const struct kac_node *c, bool tls,
		     const struct timing *rt, const char *rs_vhost)
{
	struct ka *ka = v->ka;
	struct timing t = unset;
	struct kmg_imp_check base = { .kind = tls ? KMD_CHECK_HTTPS : KMD_CHECK_HTTP };
	const char *vhost = NULL;
	unsigned int i, nurl = 0;

	for (i = 0; i < c->nkid; i++) {
		const struct kac_node *x = &c->kid[i];

		if (checker_common(v, r, x, &t, &base.port, false) || is(x, "url"))
			continue;
		if (is(x, "virtualhost"))
			vhost = value(ka, x);
		else if (is(x, "http_protocol"))
			note_once(v, SAID_HTTP_PROTO, x,
				  "kmaglev's checks speak HTTP/1.1 and keep the connection for reuse (10s; reuse: 0s for one per run, as keepalived)");
		else if (is(x, "fast_recovery"))
			note_once(v, SAID_FAST, x,
				  "kmaglev checks every URL (each a check) at each run");
		else if (tls && is(x, "enable_sni"))
			note_once(v, SAID_SNI, x,
				  "kmaglev's https checks send the host (virtualhost) as SNI whenever there is one");
		else
			unknown(ka, x, c->w[0]);
	}
	timing_inherit(&t, rt);
	check_timing(v, c, &base, &t, 1, 3000, -1, NULL, NULL);
	if (!vhost)
		vhost = rs_vhost ? rs_vhost : v->vhost;
	for (i = 0; i < c->nkid; i++)
		if (is(&c->kid[i], "url")) {
			url(v, r, &c->kid[i], vhost, &base);
			nurl++;
		}
	if (!nurl)
		note(ka, c, "no url: keepalived checks nothing with it, and neither does kmaglev");
}

static void misc_check(struct vs *v, struct rs *r, const struct kac_node *c,
		       const struct timing *rt)
{
	struct ka *ka = v->ka;
	struct timing t = unset;
	struct kmg_imp_check *k;
	const struct kac_node *path_at = NULL, *timeout_at = NULL;
	char **argv = NULL, wbuf[96], field[64];
	const char *why = NULL;
	int64_t timeout = -1;
	uint64_t n;
	uint16_t port = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < c->nkid; i++) {
		const struct kac_node *x = &c->kid[i];

		if (checker_common(v, r, x, &t, &port, true))
			continue;
		if (is(x, "misc_path")) {
			path_at = x;
		} else if (is(x, "misc_timeout")) {
			if (uint_value(ka, x, 86400, &n)) {
				timeout = n * 1000;
				timeout_at = x;
			}
		} else if (is(x, "misc_dynamic")) {
			loss(ka, x, "keepalived takes the weight from the exit status (2..255: weight status - 2); kmaglev takes any status but 0 as down, and the weight from \"weight N\" on the output: the script must change");
		} else if (is(x, "user")) {
			loss(ka, x, "kmaglev runs the command as the daemon's own user");
		} else {
			unknown(ka, x, "MISC_CHECK");
		}
	}
	if (!path_at) {
		loss(ka, c, "no misc_path: no check written");
		return;
	}
	if (path_at->nw != 2) {
		loss(ka, path_at, "one word (quoted) expected: no check written");
		return;
	}
	ret = kac_split_argv(path_at->w[1], &argv);
	if (ret || !argv[0]) {
		loss(ka, path_at, ret == -ENOMEM ? "out of memory" :
			 "not a command (a quote left open?): no check written");
		kac_argv_free(argv);
		return;
	}
	for (i = 0; argv[i]; i++)
		if (argv[i][0] && (why = kmg_imp_text_why(argv[i], 4096, false, wbuf, sizeof(wbuf))))
			break;
	if (argv[i]) {
		snprintf(field, sizeof(field), "misc_path: word %u of the command", i + 1);
		bad_text(ka, path_at, field, why,
			 "kmaglev's command words are UTF-8 text without control characters: no check written");
		kac_argv_free(argv);
		return;
	}
	if (argv[0][0] != '/') {
		loss(ka, path_at, "kmaglev runs a program by its absolute path, with no shell and no PATH: write the full path; no check written");
		kac_argv_free(argv);
		return;
	}
	k = kmg_imp_check_add(&r->b);
	if (!k) {
		kac_argv_free(argv);
		return;
	}
	k->kind = KMD_CHECK_EXEC;
	k->argv = argv;
	timing_inherit(&t, rt);
	/* misc_timeout defaults to delay_loop: the interval */
	t.conn_ms = -1;
	check_timing(v, c, k, &t, 0, 1000,
		     timeout >= 0 ? timeout : t.loop_ms >= 0 ? t.loop_ms : DELAY_LOOP_MS,
		     timeout >= 0 ? timeout_at : NULL, "misc_timeout");
}

static void dns_check(struct vs *v, struct rs *r, const struct kac_node *c,
		      const struct timing *rt)
{
	static const char *const types[] = { "A", "NS", "CNAME", "SOA", "MX", "TXT", "AAAA" };
	struct ka *ka = v->ka;
	struct timing t = unset;
	struct kmg_imp_check *k;
	const char *type = "SOA", *name = NULL, *s, *why;
	char wbuf[96];
	uint16_t port = 0;
	unsigned int i, j;

	for (i = 0; i < c->nkid; i++) {
		const struct kac_node *x = &c->kid[i];

		if (checker_common(v, r, x, &t, &port, false))
			continue;
		if (is(x, "type")) {
			s = value(ka, x);
			for (j = 0; s && j < KMG_ARRAY_SIZE(types); j++)
				if (!strcasecmp(s, types[j]))
					break;
			if (s && j < KMG_ARRAY_SIZE(types))
				type = types[j];
			else if (s)
				loss(ka, x, "not a type keepalived knows: it asks SOA, and so does the check");
		} else if (is(x, "name")) {
			s = value(ka, x);
			why = s ? kmg_imp_text_why(s, 253, true, wbuf, sizeof(wbuf)) : NULL;
			if (why)
				bad_text(ka, x, "name", why,
					 "not a name the check can ask: it asks \".\"");
			else if (s)
				name = s;
		} else {
			unknown(ka, x, "DNS_CHECK");
		}
	}
	k = kmg_imp_check_add(&r->b);
	if (!k)
		return;
	k->kind = KMD_CHECK_DNS;
	k->port = port;
	k->qtype = strdup(type);
	k->query = name && strcmp(name, ".") ? strdup(name) : NULL;
	timing_inherit(&t, rt);
	check_timing(v, c, k, &t, 3, -1, -1, NULL, NULL);
}

/*
 * keepalived's free-format hex ("Ab12f 3 456"): each word, two digits a byte, a last one
 * alone; -EINVAL with the reason in @why for what is no text (kmg_imp_text_why()).
 */
static int hex_text(const struct kac_node *x, char **out, char *why, size_t wlen)
{
	char *buf = malloc(1024 + 1), *o = buf;
	unsigned int i;
	size_t j, len;

	snprintf(why, wlen, "out of memory");
	if (!buf)
		return -ENOMEM;
	for (i = 1; i < x->nw; i++) {
		len = strlen(x->w[i]);
		for (j = 0; j < len; j += 2) {
			char pair[3] = { x->w[i][j], j + 1 < len ? x->w[i][j + 1] : 0, 0 };

			if (!isxdigit((unsigned char)pair[0]) ||
			    (pair[1] && !isxdigit((unsigned char)pair[1])) || o - buf == 1024) {
				snprintf(why, wlen, o - buf == 1024 ? "more than 1024 bytes" :
					 "not hex digits");
				free(buf);
				return -EINVAL;
			}
			*o++ = strtoul(pair, NULL, 16);
		}
	}
	*o = '\0';
	if ((size_t)(o - buf) != strlen(buf)) {
		snprintf(why, wlen, "a NUL byte (00) at byte %zu", strlen(buf) + 1);
		free(buf);
		return -EINVAL;
	}
	if (kmg_imp_text_why(buf, 1024, false, why, wlen)) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

static void udp_check(struct vs *v, struct rs *r, const struct kac_node *c,
		      const struct timing *rt)
{
	struct ka *ka = v->ka;
	struct timing t = unset;
	struct kmg_imp_check *k;
	const struct kac_node *reply = NULL;
	char *send = NULL, *expect = NULL, wbuf[96];
	uint16_t port = 0;
	unsigned int i;

	for (i = 0; i < c->nkid; i++) {
		const struct kac_node *x = &c->kid[i];

		if (checker_common(v, r, x, &t, &port, false))
			continue;
		if (is(x, "payload")) {
			free(send);
			send = NULL;
			if (hex_text(x, &send, wbuf, sizeof(wbuf)))
				bad_text(ka, x, "payload", wbuf,
					 "kmaglev sends text (send:): UTF-8 of 1..1024 bytes without control characters");
		} else if (is(x, "require_reply")) {
			reply = x;
			free(expect);
			expect = NULL;
			if (x->nw > 1 && hex_text(x, &expect, wbuf, sizeof(wbuf)))
				bad_text(ka, x, "require_reply", wbuf,
					 "kmaglev looks for a text in the reply (expect:), not bytes or wildcards: any reply passes");
		} else if (is(x, "min_reply_length") || is(x, "max_reply_length")) {
			loss(ka, x, "kmaglev's udp check does not measure the reply");
		} else {
			unknown(ka, x, "UDP_CHECK");
		}
	}
	if (!reply) {
		loss(ka, c, "without require_reply keepalived passes a server unless an ICMP error comes back; kmaglev's udp check waits for a reply: no check written");
		free(send);
		free(expect);
		return;
	}
	k = kmg_imp_check_add(&r->b);
	if (!k) {
		free(send);
		free(expect);
		return;
	}
	if (!send) {
		note(ka, c, "no payload (keepalived sends random bytes): the check sends \"kmaglev\"");
		send = strdup("kmaglev");
	}
	k->kind = KMD_CHECK_UDP;
	k->port = port;
	k->send = send;
	k->expect = expect;
	timing_inherit(&t, rt);
	check_timing(v, c, k, &t, 1, 1000, -1, NULL, NULL);
}

/* TCP_CHECK, and SMTP_CHECK's stand-in. */
static void tcp_check(struct vs *v, struct rs *r, const struct kac_node *c,
		      const struct timing *rt, bool smtp)
{
	struct ka *ka = v->ka;
	struct timing t = unset;
	struct kmg_imp_check *k;
	uint16_t port = 0;
	unsigned int i;

	if (smtp)
		loss(ka, c, "kmaglev has no SMTP dialogue: a tcp check (connect) to the server's port stands in");
	for (i = 0; i < c->nkid; i++) {
		const struct kac_node *x = &c->kid[i];

		if (checker_common(v, r, x, &t, &port, false))
			continue;
		if (smtp && is(x, "helo_name"))
			continue;
		if (smtp && is(x, "host"))
			loss(ka, x, "kmaglev checks the backend itself, not other hosts");
		else
			unknown(ka, x, c->w[0]);
	}
	k = kmg_imp_check_add(&r->b);
	if (!k)
		return;
	k->kind = KMD_CHECK_TCP;
	k->port = port;
	timing_inherit(&t, rt);
	check_timing(v, c, k, &t, 1, 1000, -1, NULL, NULL);
}

/* --- real servers --------------------------------------------------------------------- */

static bool checker(struct vs *v, struct rs *r, const struct kac_node *x,
		    const struct timing *rt, const char *vhost)
{
	if (is(x, "TCP_CHECK"))
		tcp_check(v, r, x, rt, false);
	else if (is(x, "SMTP_CHECK"))
		tcp_check(v, r, x, rt, true);
	else if (is(x, "HTTP_GET"))
		http_get(v, r, x, false, rt, vhost);
	else if (is(x, "SSL_GET"))
		http_get(v, r, x, true, rt, vhost);
	else if (is(x, "MISC_CHECK"))
		misc_check(v, r, x, rt);
	else if (is(x, "DNS_CHECK"))
		dns_check(v, r, x, rt);
	else if (is(x, "UDP_CHECK"))
		udp_check(v, r, x, rt);
	else if (is(x, "PING_CHECK"))
		loss(v->ka, x, "kmaglev has no ICMP echo check: no check written");
	else if (is(x, "FILE_CHECK"))
		loss(v->ka, x, "kmaglev has no file check (an exec check can read a file): no check written");
	else if (is(x, "BFD_CHECK"))
		loss(v->ka, x, "kmaglev has no BFD: no check written");
	else
		return false;
	return true;
}

static void real_server(struct vs *v, const struct kac_node *rx, struct rs *r)
{
	struct ka *ka = v->ka;
	char buf[192];
	struct timing t = unset;
	const char *vhost = NULL;
	unsigned int i;
	uint64_t n;

	memset(r, 0, sizeof(*r));
	r->b.src = src(rx);
	r->b.weight = 1;
	r->method = v->method;
	r->inhibit = v->inhibit;
	r->x = rx;
	r->b.gre = v->gre;
	if (rx->nw < 2 || rx->nw > 3 || kmg_parse_addr(rx->w[1], &r->b.addr) ||
	    (rx->nw == 3 && parse_uint(rx->w[2], 65535, &n))) {
		loss(ka, rx, "not \"real_server ADDRESS [PORT]\": left out");
		return;
	}
	if (rx->nw == 3)
		r->port = n;
	if (!kmg_imp_addr_ok(ka->imp, &r->b.src, text(rx, buf, sizeof(buf)), &r->b.addr))
		return;
	/* timing first: the checkers below inherit it wherever it is written */
	for (i = 0; i < rx->nkid; i++)
		timing_kw(ka, &rx->kid[i], &t);
	timing_inherit(&t, &v->t);
	for (i = 0; i < rx->nkid; i++)
		if (is(&rx->kid[i], "virtualhost"))
			vhost = value(ka, &rx->kid[i]);
	for (i = 0; i < rx->nkid; i++) {
		const struct kac_node *x = &rx->kid[i];

		if (is(x, "delay_loop") || is(x, "connect_timeout") || is(x, "retry") ||
		    is(x, "nb_get_retry") || is(x, "delay_before_retry") || is(x, "virtualhost") ||
		    checker(v, r, x, &t, vhost))
			continue;
		if (is(x, "inhibit_on_failure"))
			r->inhibit = flag_value(x);
		/* <BOOL>s that say no: nothing to map */
		if ((is(x, "inhibit_on_failure") || is(x, "alpha") || is(x, "smtp_alert")) &&
		    !flag_value(x))
			continue;
		if (is(x, "weight")) {
			if (uint_value(ka, x, UINT32_MAX, &n)) {
				r->b.weight = n > WEIGHT_MAX ? WEIGHT_MAX : n;
				if (n > WEIGHT_MAX)
					loss(ka, x, "kmaglev's weights are 0..65535: written as 65535");
			}
		} else if (is(x, "lb_kind") || is(x, "lvs_method")) {
			if (method(ka, x, &r->method, &r->b.gre))
				r->method_at = x;
		} else if (is(x, "uthreshold")) {
			if (uint_value(ka, x, UINT32_MAX, &n))
				r->b.max_conns = n;
		} else if (is(x, "lthreshold")) {
			loss(ka, x, "kmaglev gives a backend new flows again as soon as it is below max-conns (uthreshold)");
		} else if (is(x, "inhibit_on_failure")) {
			note_once(v, SAID_INHIBIT, x, INHIBIT_NOTE);
		} else if (is(x, "notify_up") || is(x, "notify_down")) {
			loss(ka, x, "kmaglev runs no script when a backend changes state: its log, \"kmaglev monitor\" and the metrics say so");
		} else if (is(x, "smtp_alert")) {
			loss(ka, x, "kmaglev sends no mail");
		} else if (is(x, "snmp_name")) {
			loss(ka, x, "kmaglev has no SNMP (its metrics are Prometheus')");
		} else if (is(x, "warmup") || is(x, "alpha")) {
			note_once(v, is(x, "alpha") ? SAID_ALPHA : SAID_WARMUP, x,
				  is(x, "alpha") ?
				  "kmaglev always starts a backend it does not serve yet down, until its checks pass" :
				  "kmaglev delays each run of a check by a random 0..jitter (interval/10)");
		} else {
			unknown(ka, x, "real_server");
		}
	}
	if (r->method_at)
		method_said(ka, r->method_at, r->method);
	/* a DR real server's tunnel type means nothing */
	r->b.dr = r->method == M_DR;
	if (r->b.dr)
		r->b.gre = false;
	r->ok = true;
}

/* Say once per service port that @r's port is another. */
static void port_loss(struct vs *v, struct rs *r, uint16_t port)
{
	char addr[INET6_ADDRSTRLEN];
	bool checks = false;
	unsigned int i;

	for (i = 0; i < r->nsaid; i++)
		if (r->said_port[i] == port)
			return;
	if (r->nsaid < KMG_ARRAY_SIZE(r->said_port))
		r->said_port[r->nsaid++] = port;
	for (i = 0; i < r->b.nchecks; i++)
		if (!r->b.checks[i].port && r->b.checks[i].kind != KMD_CHECK_EXEC)
			checks = true;
	kmg_imp_loss(v->ka->imp, &r->b.src,
		     "real_server %s %u: the port is not the service's (%u): kmaglev sends clients' packets to the backend unchanged, to port %u (no port translation)%s",
		     kmg_fmt_addr(&r->b.addr, addr, sizeof(addr)), r->port, port, port,
		     checks ? "; its checks keep the server's port" : "");
}

/* @r as a backend of service @s, with its checks' ports made the service's. */
static void add_backend(struct vs *v, struct kmg_imp_service *s, struct rs *r)
{
	struct ka *ka = v->ka;
	struct kmg_imp_backend *b;
	unsigned int i;

	if (r->port && r->port != s->port)
		port_loss(v, r, s->port);
	b = kmg_imp_backend_add(ka->imp, s, &r->b.src, &r->b.addr);
	if (!b)
		return;
	b->weight = r->b.weight;
	b->gre = r->b.gre;
	b->dr = r->b.dr;
	b->max_conns = r->b.max_conns;
	for (i = 0; i < r->b.nchecks; i++) {
		const struct kmg_imp_check *t = &r->b.checks[i];
		uint16_t p = t->port ? t->port : r->port ? r->port : s->port;
		struct kmg_imp_check *k;

		if (t->kind != KMD_CHECK_EXEC && !p) {
			kmg_imp_loss(ka->imp, &r->b.src,
				     "a %s check of a service of every port (0) needs a port (connect_port): left out",
				     kmd_check_kind_name(t->kind));
			continue;
		}
		k = kmg_imp_check_add(b);
		if (!k || kmg_imp_check_copy(k, t))
			return;
		k->port = t->kind == KMD_CHECK_EXEC || p == s->port ? 0 : p;
	}
}

/* --- virtual servers ------------------------------------------------------------------ */

struct member {
	struct kmg_addr a;
	uint16_t port;
	char what[192];
};

static uint8_t *addr_bytes(struct kmg_addr *a, unsigned int *len)
{
	*len = a->family == AF_INET ? 4 : 16;
	return a->family == AF_INET ? (uint8_t *)&a->v4 : a->v6.s6_addr;
}

/* The address after @a (the last @len bytes, big-endian, plus one). */
static void addr_inc(struct kmg_addr *a)
{
	unsigned int len;
	uint8_t *b = addr_bytes(a, &len);

	while (len-- && !++b[len])
		;
}

/*
 * A group's address or range: ADDR, ADDR-LAST (the last byte, or IPv6's last group, in hex),
 * ADDR-ADDR or ADDR/PREFIX. The first address and how many; -EINVAL, or -ERANGE for more
 * than RANGE_MAX.
 */
static int range(const char *s, struct kmg_addr *first, unsigned int *count)
{
	char buf[INET6_ADDRSTRLEN + 8], *sep, *e;
	struct kmg_addr end, cur;
	unsigned int len, i, n;
	uint8_t *fb, *eb;
	uint64_t v;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;		/* cut, it would mean another range */
	snprintf(buf, sizeof(buf), "%s", s);
	sep = strpbrk(buf, "-/");
	if (sep)
		*sep++ = '\0';
	if (kmg_parse_addr(buf, first))
		return -EINVAL;
	*count = 1;
	if (!sep)
		return 0;
	fb = addr_bytes(first, &len);
	if (s[sep - 1 - buf] == '/') {
		if (parse_uint(sep, len * 8, &v))
			return -EINVAL;
		if (len * 8 - v > 8)
			return -ERANGE;
		for (i = v; i < len * 8; i++)
			fb[i / 8] &= ~(0x80 >> (i % 8));
		*count = 1U << (len * 8 - v);
		return 0;
	}
	if (kmg_parse_addr(sep, &end)) {
		end = *first;
		eb = addr_bytes(&end, &len);
		v = strtoul(sep, &e, len == 4 ? 10 : 16);
		if (*e || !*sep || v > (len == 4 ? 255 : 0xffff))
			return -EINVAL;
		if (len == 4) {
			eb[3] = v;
		} else {
			eb[14] = v >> 8;
			eb[15] = v;
		}
	} else if (end.family != first->family) {
		return -EINVAL;
	}
	eb = addr_bytes(&end, &len);
	if (memcmp(fb, eb, len) > 0)
		return -EINVAL;
	for (cur = *first, n = 1; memcmp(addr_bytes(&cur, &len), eb, len); n++) {
		if (n == RANGE_MAX)
			return -ERANGE;
		addr_inc(&cur);
	}
	*count = n;
	return 0;
}

/* The addresses and ports of virtual_server_group @name, for virtual server @x. */
static void group_members(struct ka *ka, const struct kac_node *x, const char *name,
			  struct member **mp, unsigned int *np)
{
	const struct kac_node *g = NULL;
	struct kmg_addr a;
	unsigned int i, j, count;
	uint64_t port;
	char ab[INET6_ADDRSTRLEN], nbuf[64];
	int ret;

	for (i = 0; i < ka->ngroups; i++)
		if (ka->groups[i]->nw == 2 && !strcmp(ka->groups[i]->w[1], name))
			g = ka->groups[i];
	if (!g) {
		loss(ka, x, "no virtual_server_group of that name: left out");
		return;
	}
	for (i = 0; i < g->nkid; i++) {
		const struct kac_node *y = &g->kid[i];

		if (is(y, "fwmark")) {
			loss(ka, y, "kmaglev has no firewall-mark services: a service is one VIP, port and protocol; this member is left out");
			continue;
		}
		port = 0;
		if (y->nw > 2 || y->block || (y->nw == 2 && parse_uint(y->w[1], 65535, &port))) {
			loss(ka, y, "not \"ADDRESS[-LAST] [PORT]\": left out");
			continue;
		}
		ret = range(y->w[0], &a, &count);
		if (ret) {
			loss(ka, y, ret == -ERANGE ?
				 "more than 256 addresses: write the VIPs out; left out" :
				 "not an address or range (ADDR-LAST, ADDR-ADDR, ADDR/PREFIX): left out");
			continue;
		}
		for (j = 0; j < count; j++, addr_inc(&a)) {
			if (kmg_grow(mp, *np, sizeof(**mp)))
				return;
			(*mp)[*np].a = a;
			(*mp)[*np].port = port;
			snprintf((*mp)[*np].what, sizeof((*mp)[*np].what),
				 "virtual_server group %s: %s %u (%s:%u)",
				 kmg_imp_escape(name, nbuf, sizeof(nbuf)),
				 kmg_fmt_addr(&a, ab, sizeof(ab)), (unsigned int)port, y->file,
				 y->line);
			(*np)++;
		}
	}
}

/*
 * The quorum of @s. The members of a virtual_server_group share the real servers, and so the
 * outcome: a note or a loss said once for the virtual server, not per member.
 */
static void quorum(struct vs *v, struct kmg_imp_service *s)
{
	struct ka *ka = v->ka;
	unsigned int i, min;
	const char *lost = NULL;
	char why[256];

	if (!v->quorum_at || v->quorum <= 1 || !s->nbe)
		return;
	for (i = 1; i < s->nbe; i++)
		if (s->be[i].weight != s->be[0].weight)
			break;
	min = 0;
	if (i < s->nbe || !s->be[0].weight)
		lost = "keepalived counts the weights of live servers, kmaglev the live backends (quorum: min), and these weights differ";
	else if ((min = ((uint64_t)v->quorum + s->be[0].weight - 1) / s->be[0].weight) > s->nbe)
		lost = "more than all the servers' weight: never reached";
	else
		s->quorum_min = min;
	if (v->said & SAID_QUORUM)
		return;
	v->said |= SAID_QUORUM;
	if (lost) {
		loss(ka, v->quorum_at, lost);
		return;
	}
	snprintf(why, sizeof(why),
		 "quorum: { min: %u } (live backends of weight %u): below it the service is shown below quorum (kmaglev status, the kmaglev_service_below_quorum metric) and serves what is up, as keepalived did without a sorry_server",
		 min, s->be[0].weight);
	note(ka, v->quorum_at, why);
}

/* The keywords of the virtual server itself (not its real servers). */
static void vs_settings(struct vs *v, const struct kac_node **sched,
			const struct kac_node **persist, bool *port_hash)
{
	struct ka *ka = v->ka;
	const struct kac_node *x;
	struct kmg_addr a;
	unsigned int i;
	uint64_t n;

	for (i = 0; i < v->x->nkid; i++) {
		x = &v->x->kid[i];
		if (timing_kw(ka, x, &v->t) || is(x, "real_server"))
			continue;
		if (is(x, "smtp_alert") && !flag_value(x))
			continue;
		if (is(x, "lb_algo") || is(x, "lvs_sched")) {
			*sched = x;
		} else if (is(x, "lb_kind") || is(x, "lvs_method")) {
			if (method(ka, x, &v->method, &v->gre))
				v->method_at = x;
		} else if (is(x, "persistence_timeout")) {
			/* no value: keepalived's 360 s; 0: not persistent */
			if (x->nw == 1 || (uint_value(ka, x, UINT32_MAX, &n) && n))
				*persist = x;
		} else if (is(x, "persistence_granularity")) {
			if (x->nw == 2 && ((!kmg_parse_addr(x->w[1], &a) && a.family == AF_INET &&
					    a.v4.s_addr == 0xffffffff) || !strcmp(x->w[1], "128")))
				continue;
			loss(ka, x, "kmaglev's src-addr hash keeps each client address apart, not a network of them");
		} else if (is(x, "persistence_engine")) {
			loss(ka, x, "kmaglev has no persistence engines (SIP Call-ID)");
		} else if (is(x, "protocol")) {
			if (x->nw == 2 && !strcasecmp(x->w[1], "TCP"))
				v->proto = IPPROTO_TCP;
			else if (x->nw == 2 && !strcasecmp(x->w[1], "UDP"))
				v->proto = IPPROTO_UDP;
			else if (x->nw == 2 && !strcasecmp(x->w[1], "SCTP"))
				v->proto = 0;
			else
				loss(ka, x, "not TCP, UDP or SCTP: TCP");
		} else if (is(x, "ha_suspend")) {
			note(ka, x, "kmaglev's VIPs are no addresses of the LB host: its checks run whatever the host's addresses");
		} else if (is(x, "virtualhost")) {
			v->vhost = value(ka, x);
		} else if (is(x, "alpha")) {
			note_once(v, SAID_ALPHA, x,
				  "kmaglev always starts a backend it does not serve yet down, until its checks pass");
		} else if (is(x, "omega")) {
			note(ka, x, "it runs keepalived's notify scripts at shutdown; kmaglev runs none (each script is reported)");
		} else if (is(x, "quorum")) {
			if (uint_value(ka, x, UINT32_MAX, &n)) {
				v->quorum = n;
				v->quorum_at = x;
			}
		} else if (is(x, "hysteresis")) {
			if (uint_value(ka, x, UINT32_MAX, &n) && n)
				loss(ka, x, "kmaglev's quorum has no hysteresis");
		} else if (is(x, "quorum_up") || is(x, "quorum_down")) {
			loss(ka, x, "kmaglev runs no script when the quorum changes: \"kmaglev status\" and quorum: { action: withdraw } (BGP) are what it has");
		} else if (is(x, "sorry_server") || is(x, "sorry_server_inhibit") ||
			   is(x, "sorry_server_lvs_method")) {
			loss(ka, x, "kmaglev has no fallback server: below quorum it serves what is up, or every backend (quorum action fail-open), or withdraws the VIP (action withdraw)");
		} else if (is(x, "smtp_alert")) {
			loss(ka, x, "kmaglev sends no mail");
		} else if (is(x, "snmp_name")) {
			loss(ka, x, "kmaglev has no SNMP (its metrics are Prometheus')");
		} else if (is(x, "inhibit_on_failure")) {
			v->inhibit = flag_value(x);
			if (v->inhibit)
				note_once(v, SAID_INHIBIT, x, INHIBIT_NOTE);
		} else if (is(x, "warmup")) {
			note_once(v, SAID_WARMUP, x,
				  "kmaglev delays each run of a check by a random 0..jitter (interval/10)");
		} else if (is(x, "ops")) {
			note(ka, x, "one-packet scheduling: Maglev sends every packet of a UDP flow to the same backend, and the kernel tracks the flow");
		} else if (is(x, "sh-port") || is(x, "mh-port")) {
			*port_hash = true;
		} else if (is(x, "flag-1") || is(x, "flag-2") || is(x, "flag-3") ||
			   is(x, "sh-fallback") || is(x, "mh-fallback")) {
			note(ka, x, "a scheduler flag: Maglev consistent hashing replaces the scheduler, and skips backends that are down or at max-conns by itself");
		} else if (is(x, "ip_family")) {
			note(ka, x, "for firewall-mark services only: the address says the family");
		} else {
			unknown(ka, x, "virtual_server");
		}
	}
}

static void virtual_server(struct ka *ka, const struct kac_node *x)
{
	struct vs v = { .ka = ka, .x = x, .t = unset, .method = M_NAT, .proto = IPPROTO_TCP };
	const struct kac_node *sched = NULL, *persist = NULL;
	struct member *m = NULL;
	struct rs *rs = NULL;
	unsigned int nm = 0, nrs = 0, i, j;
	bool port_hash = false, defaulted = false;
	uint64_t port = 0;
	char buf[192];

	if (x->nw >= 2 && !strcmp(x->w[1], "fwmark")) {
		loss(ka, x, "kmaglev has no firewall-mark services: a service is one VIP, port and protocol; write one per VIP and port the mark stood for");
		return;
	}
	if (!x->block) {
		loss(ka, x, "no block: left out");
		return;
	}
	if (x->nw == 3 && !strcmp(x->w[1], "group")) {
		group_members(ka, x, x->w[2], &m, &nm);
	} else if ((x->nw == 2 || x->nw == 3) && !kmg_grow(&m, 0, sizeof(*m)) &&
		   !kmg_parse_addr(x->w[1], &m[0].a) &&
		   (x->nw == 2 || !parse_uint(x->w[2], 65535, &port))) {
		m[0].port = port;
		snprintf(m[0].what, sizeof(m[0].what), "%s", text(x, buf, sizeof(buf)));
		nm = 1;
	} else {
		loss(ka, x, "not \"virtual_server ADDRESS [PORT]\", \"fwmark N\" or \"group NAME\": left out");
	}
	vs_settings(&v, &sched, &persist, &port_hash);
	if (!v.proto) {
		loss(ka, x, "kmaglev balances TCP and UDP: an SCTP service is left out");
		goto out;
	}
	if (sched || persist) {
		struct kmg_imp_src at = src(sched ? sched : persist);

		v.hash = kmg_imp_schedule(ka->imp, &at, text(x, buf, sizeof(buf)),
					  sched && sched->nw > 1 ? sched->w[1] : NULL, port_hash,
					  persist ? persist->w[0] : NULL);
	}
	for (i = 0; i < x->nkid; i++) {
		if (!is(&x->kid[i], "real_server"))
			continue;
		if (kmg_grow(&rs, nrs, sizeof(*rs)))
			goto out;
		real_server(&v, &x->kid[i], &rs[nrs++]);
		if (rs[nrs - 1].ok && !rs[nrs - 1].method_at && v.method != M_TUN)
			defaulted = true;
	}
	/*
	 * Without alpha, keepalived takes each real server in before its first check; kmaglev
	 * takes a backend in only once its checks pass (rise), whatever alpha said (with it
	 * they agree, and the note above says so).
	 */
	for (j = 0; j < nrs && !(v.said & SAID_ALPHA); j++)
		if (rs[j].ok && rs[j].b.nchecks) {
			note_once(&v, SAID_ALPHA, x,
				  "no alpha: keepalived takes each real server in before its first check; kmaglev takes a backend in only once its checks pass");
			break;
		}
	/*
	 * Without inhibit_on_failure, keepalived removes a failed real server from IPVS, and
	 * IPVS drops the packets of the connections it had (net.ipv4.vs.expire_nodest_conn 0,
	 * the default) or ends them (1); kmaglev keeps them on it, as IPVS does with weight 0.
	 * Said once, at the first real server with checks (one that can fail) without it.
	 */
	for (j = 0; j < nrs; j++)
		if (rs[j].ok && rs[j].b.nchecks && !rs[j].inhibit) {
			note_once(&v, SAID_INHIBIT_NO, rs[j].x,
				  "no inhibit_on_failure: keepalived takes a failed real server out of IPVS, which then drops the packets of its established connections (or ends them, with net.ipv4.vs.expire_nodest_conn = 1); kmaglev marks a failed backend down: no new flows, and its established flows keep going to it until they end, as keepalived's inhibit_on_failure (weight 0) would have it (the service's flags: [resched] would move them to the other backends instead)");
			break;
		}
	/* the virtual server's method, when a real server takes it */
	if (defaulted && v.method_at)
		method_said(ka, v.method_at, v.method);
	else if (defaulted)
		kmg_imp_loss(ka->imp, &(struct kmg_imp_src){ x->file, x->line },
			     "%s: no lb_kind: keepalived's default is NAT: %s",
			     text(x, buf, sizeof(buf)), method_loss());
	for (i = 0; i < nm; i++) {
		struct kmg_imp_src at = src(x);
		struct kmg_imp_service *s;

		if (!kmg_imp_addr_ok(ka->imp, &at, m[i].what, &m[i].a))
			continue;
		s = kmg_imp_service_add(ka->imp, &at, &m[i].a, m[i].port, v.proto, m[i].what);
		if (!s)
			continue;
		s->hash = v.hash;
		for (j = 0; j < nrs; j++)
			if (rs[j].ok)
				add_backend(&v, s, &rs[j]);
		quorum(&v, s);
	}
out:
	for (j = 0; j < nrs; j++)
		kmg_imp_checks_free(rs[j].b.checks, rs[j].b.nchecks);
	for (j = 0; j < v.nsaid_timing; j++)
		free(v.said_timing[j]);
	free(v.said_timing);
	free(rs);
	free(m);
}

/* --- the rest of the file ------------------------------------------------------------- */

static void global_defs(struct ka *ka, const struct kac_node *g)
{
	uint32_t *to;
	unsigned int i, j;
	uint64_t n;

	for (i = 0; i < g->nkid; i++) {
		const struct kac_node *x = &g->kid[i];

		if (is(x, "lvs_timeouts")) {
			for (j = 1; j < x->nw; j += 2) {
				to = !strcmp(x->w[j], "tcp") ? &ka->imp->timeout_tcp_est :
				     !strcmp(x->w[j], "tcpfin") ? &ka->imp->timeout_tcp_fin :
				     !strcmp(x->w[j], "udp") ? &ka->imp->timeout_udp : NULL;
				if (to && j + 1 < x->nw && !parse_uint(x->w[j + 1], 604800, &n) && n)
					*to = n;
				else
					loss(ka, x, "only \"tcp N\", \"tcpfin N\" and \"udp N\" (1..604800 seconds) map, to config: timeout-tcp-est, -fin and timeout-udp");
			}
		} else if (is(x, "lvs_sync_daemon")) {
			loss(ka, x, "kmaglev has no connection sync: every LB host with the same configuration picks the same backend for a flow (Maglev), so a flow that moves to another host keeps its backend");
		} else {
			loss(ka, x, "keepalived's own setting (global_defs): kmaglev's daemon has its own (daemon: in the file)");
		}
	}
}

static const char *const vrrp_words[] = {
	"vrrp_instance", "vrrp_sync_group", "vrrp_script", "vrrp_track_process", "track_file",
	"track_process", "garp_group", "vrrp_track_file",
};

static const char *const host_words[] = {
	"static_ipaddress", "static_routes", "static_rules", "static_track_group",
};

static bool among(const struct kac_node *x, const char *const *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is(x, words[i]))
			return true;
	return false;
}

static void top(struct ka *ka, const struct kac_node *root)
{
	unsigned int i, j;

	for (i = 0; i < root->nkid; i++) {
		const struct kac_node *x = &root->kid[i];

		if (is(x, "virtual_server_group"))
			continue;
		if (is(x, "virtual_server"))
			virtual_server(ka, x);
		else if (is(x, "global_defs"))
			global_defs(ka, x);
		else if (among(x, vrrp_words, KMG_ARRAY_SIZE(vrrp_words)))
			loss(ka, x, "VRRP moves VIPs between hosts; kmaglev announces them from every LB host at once over BGP (bgp: in the file; Documentation/bgp.rst)");
		else if (among(x, host_words, KMG_ARRAY_SIZE(host_words)))
			loss(ka, x, "the host's own network configuration: keep it in the system's");
		else if (is(x, "SSL"))
			loss(ka, x, "SSL_GET's client certificate and CA: kmaglev's https checks present no certificate, and verify the server's (verify-tls) with the system's CAs");
		else if (is(x, "bfd_instance"))
			loss(ka, x, "kmaglev has no BFD");
		else
			unknown(ka, x, "the file");
	}
	/* a group no virtual server uses does nothing */
	for (i = 0; i < ka->ngroups; i++) {
		for (j = 0; j < root->nkid; j++)
			if (is(&root->kid[j], "virtual_server") && root->kid[j].nw == 3 &&
			    !strcmp(root->kid[j].w[1], "group") && ka->groups[i]->nw == 2 &&
			    !strcmp(root->kid[j].w[2], ka->groups[i]->w[1]))
				break;
		if (j == root->nkid)
			note(ka, ka->groups[i], "no virtual_server uses it: nothing to map");
	}
}

int kmg_import_keepalived(struct kmg_imp *imp, const char *path)
{
	struct ka ka = { .imp = imp };
	struct kac_tree t;
	unsigned int i;
	int ret;

	ret = kac_parse(path, &t);
	/* the nodes' file names stay with the model, which points at them */
	imp->files = t.files;
	imp->nfiles = t.nfiles;
	t.files = NULL;
	t.nfiles = 0;
	if (ret)
		goto out;
	imp->format = "keepalived";
	imp->advice = "# Health checks go to each backend's own address (via: direct), as keepalived's\n"
		      "# did; \"via: tunnel\" tests the path clients take (Documentation/daemon.rst).\n";
	if (!imp->source)
		imp->source = path;
	for (i = 0; i < t.nnotes; i++) {
		struct kmg_imp_src at = { t.notes[i].file, t.notes[i].line };

		kmg_imp_note(imp, &at, "%s", t.notes[i].text);
	}
	for (i = 0; i < t.root.nkid; i++) {
		if (!is(&t.root.kid[i], "virtual_server_group"))
			continue;
		if (kmg_grow(&ka.groups, ka.ngroups, sizeof(*ka.groups))) {
			ret = kmg_err(KMG_EFAIL, "out of memory");
			goto out;
		}
		ka.groups[ka.ngroups++] = &t.root.kid[i];
	}
	top(&ka, &t.root);
out:
	free(ka.groups);
	kac_free(&t);
	return ret;
}
