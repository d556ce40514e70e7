// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the health checks of the config file (a service's checks: and a
 * backend's own): which keys each kind takes, the defaults that follow from the
 * interval, the kinds' own fields, the names.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/args.h"
#include "daemon/config_int.h"

/* --- checks -------------------------------------------------------------------------- */

static const char *const kind_names[KMD_CHECK_KINDS] = {
	[KMD_CHECK_TCP] = "tcp", [KMD_CHECK_HTTP] = "http", [KMD_CHECK_HTTPS] = "https",
	[KMD_CHECK_UDP] = "udp", [KMD_CHECK_DNS] = "dns", [KMD_CHECK_EXEC] = "exec",
	[KMD_CHECK_AGENT] = "agent",
};

const char *kmd_check_kind_name(enum kmd_check_kind k)
{
	return (unsigned int)k < KMD_CHECK_KINDS ? kind_names[k] : "?";
}

static const char *const via_names[] = { "tunnel", "direct" };

static const struct {
	const char *name;
	uint16_t v;
} qtypes[] = {
	{ "A", 1 }, { "NS", 2 }, { "CNAME", 5 }, { "SOA", 6 }, { "PTR", 12 }, { "MX", 15 },
	{ "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "ANY", 255 },
};

static const char *const rcode_names[] = {
	"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
};

/* "http and https" */
static const char *kinds_text(unsigned int kinds, char *buf, size_t len)
{
	const char *names[KMD_CHECK_KINDS];
	unsigned int i, n = 0;

	for (i = 0; i < KMD_CHECK_KINDS; i++)
		if (kinds & (1U << i))
			names[n++] = kind_names[i];
	kmg_choices(names, n, buf, len);
	return buf;
}

static void check_free(struct kmd_check *k)
{
	char **a;

	free(k->name);
	free(k->host);
	free(k->path);
	free(k->status);
	free(k->body);
	free(k->ca);
	free(k->send);
	free(k->expect);
	free(k->query);
	for (a = k->argv; a && *a; a++)
		free(*a);
	free(k->argv);
}

void checks_free(struct kmd_check *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		check_free(&k[i]);
	free(k);
}

static void p_status(struct ctx *c, const struct raw_check *r, const struct kmd_ynode *map,
		     struct kmd_check *k)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "status", NULL);
	unsigned int i;
	size_t mark;

	k->status = nomem(c, calloc(r->status_count ? r->status_count : 1, sizeof(*k->status)));
	if (!k->status)
		return;
	for (i = 0; i < r->status_count; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);
		struct val v = { r->status[i], NULL, e ? e->loc : map->loc };
		unsigned int lo, hi;
		int end = 0;

		mark = path_push(c, "status", 0);
		path_push(c, NULL, i);
		if (sscanf(v.s, "%3u%n", &lo, &end) == 1 && !v.s[end])
			hi = lo;
		else if (sscanf(v.s, "%3u-%3u%n", &lo, &hi, &end) != 2 || v.s[end])
			lo = hi = 0;
		if (!lo)
			err_at(c, v.at, NULL, "\"%s\" is not a status code or a range like 200-399",
			       v.s);
		else if (lo < 100 || hi > 599 || lo > hi)
			err_at(c, v.at, NULL, "%s is not within 100..599 (low..high)", v.s);
		path_pop(c, mark);
		k->status[i].lo = lo;
		k->status[i].hi = hi;
	}
	k->nstatus = r->status_count;
}

static void p_command(struct ctx *c, const struct raw_check *r, const struct kmd_ynode *map,
		      struct kmd_check *k)
{
	struct val v;
	unsigned int i;

	cfg_val(map, "command", NULL, &v);
	if (!r->command_count) {
		err_at(c, v.at, "command", "must list the program and its arguments");
		return;
	}
	if (r->command[0][0] != '/') {
		err_at(c, v.at, "command", "\"%s\" is not an absolute path (no shell, no PATH)",
		       r->command[0]);
		return;
	}
	k->argv = nomem(c, calloc(r->command_count + 1, sizeof(*k->argv)));
	for (i = 0; k->argv && i < r->command_count; i++)
		k->argv[i] = xstrdup(c, r->command[i]);
}

#define PEM_CERT	"-----BEGIN CERTIFICATE-----"

/*
 * An https check's "ca": an absolute path to a regular file this process can read, with a
 * PEM certificate in it (a line starting PEM_CERT). Checked when the file is loaded (--check,
 * start, reload): a CA that cannot be read would fail every run of the check.
 */
static void p_ca(struct ctx *c, const struct val *v, struct kmd_check *k)
{
	bool pem = false, bol = true;
	char line[256];
	struct stat st;
	size_t n;
	FILE *f;
	int fd;

	if (v->s[0] != '/') {
		err_at(c, v->at, v->key, "\"%s\" is not an absolute path", v->s);
		return;
	}
	if (!p_text(c, v, 1, 4096, false, &k->ca))
		return;
	/* (non-blocking: a FIFO is refused, not waited on) */
	fd = open(v->s, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err_at(c, v->at, v->key, "%s: %s", v->s, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err_at(c, v->at, v->key, "%s: not a regular file", v->s);
		close(fd);
		return;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err_at(c, v->at, v->key, "%s: %s", v->s, strerror(errno));
		close(fd);
		return;
	}
	while (!pem && fgets(line, sizeof(line), f)) {
		n = strlen(line);
		pem = bol && !strncmp(line, PEM_CERT, strlen(PEM_CERT));
		bol = n && line[n - 1] == '\n';
	}
	if (ferror(f))
		err_at(c, v->at, v->key, "%s: %s", v->s, strerror(errno));
	else if (!pem)
		err_at(c, v->at, v->key, "%s: no PEM certificate in it (\"" PEM_CERT "\")", v->s);
	fclose(f);
}

/*
 * The host of an http check: a name, an IPv4 address or an IPv6 one in brackets. It goes in
 * the URL before the check's port: "host:8080" or "x/y" would make another URL.
 */
static bool host_ok(const char *s)
{
	size_t n = strlen(s);

	if (s[0] == '[')
		return n > 2 && s[n - 1] == ']' && strspn(s + 1, "0123456789abcdefABCDEF:.") == n - 2;
	return n && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") ==
		    n;
}

static bool name_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len > KMD_CHECK_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/* One check of @svc; @map is its node. */
static void p_check(struct ctx *c, const struct raw_check *r, const struct kmd_ynode *map,
		    const struct kmd_service *svc, struct kmd_check *k)
{
	char buf[128];
	uint32_t kind = 0, x;
	bool known, verify_ok = true;
	struct val v;
	unsigned int i;

	k->loc = map->loc;
	cfg_val(map, "kind", r->v[CK_KIND], &v);
	known = p_enum(c, &v, kind_names, KMD_CHECK_KINDS, &kind);
	k->kind = kind;
	for (i = 0; known && i < CK_N; i++)
		if (r->v[i] && !(check_keys[i].kinds & (1U << kind)) &&
		    cfg_val(map, check_keys[i].key, r->v[i], &v))
			err_at(c, v.at, v.key, "%s checks do not take it (%s checks do)",
			       kind_names[kind], kinds_text(check_keys[i].kinds, buf, sizeof(buf)));
	if (known && kmd_ynode_get(map, "status", NULL) && !(HTTP_KINDS & (1U << kind))) {
		cfg_val(map, "status", NULL, &v);
		err_at(c, v.at, v.key, "%s checks do not take it (http and https checks do)",
		       kind_names[kind]);
	}
	if (known && kmd_ynode_get(map, "command", NULL) && kind != KMD_CHECK_EXEC) {
		cfg_val(map, "command", NULL, &v);
		err_at(c, v.at, v.key, "%s checks do not take it (exec checks do)",
		       kind_names[kind]);
	}

	k->via = KMD_VIA_TUNNEL;
	if (cfg_val(map, "via", r->v[CK_VIA], &v) && p_enum(c, &v, via_names, 2, &x))
		k->via = x;
	if (cfg_val(map, "port", r->v[CK_PORT], &v)) {
		if (p_u32(c, &v, 1, 65535, &x))
			k->port = x;
	} else if (known && kind == KMD_CHECK_AGENT) {
		err_at(c, map->loc, NULL, "an agent check needs a port (the agent's)");
	} else if (known && kind != KMD_CHECK_EXEC && !svc->svc.key.port) {
		err_at(c, map->loc, NULL,
		       "the service has port 0 (every port): give the check a port");
	}

	k->interval_ms = KMD_INTERVAL_DEFAULT_MS;
	if (cfg_val(map, "interval", r->v[CK_INTERVAL], &v))
		p_ms(c, &v, KMD_INTERVAL_MIN_MS, KMD_INTERVAL_MAX_MS, &k->interval_ms);
	k->timeout_ms = k->interval_ms < KMD_TIMEOUT_DEFAULT_MS ? k->interval_ms :
			KMD_TIMEOUT_DEFAULT_MS;
	if (cfg_val(map, "timeout", r->v[CK_TIMEOUT], &v) &&
	    p_ms(c, &v, KMD_TIMEOUT_MIN_MS, KMAGLEV_MS_MAX, &k->timeout_ms) &&
	    k->timeout_ms > k->interval_ms) {
		kmg_fmt_duration(k->interval_ms, buf, sizeof(buf));
		err_at(c, v.at, v.key, "%s is longer than the interval (%s)", v.s, buf);
	}
	k->fast_interval_ms = k->interval_ms / 4 < KMD_FAST_MIN_MS ? KMD_FAST_MIN_MS :
			      k->interval_ms / 4;
	if (k->fast_interval_ms > k->interval_ms)
		k->fast_interval_ms = k->interval_ms;
	if (cfg_val(map, "fast-interval", r->v[CK_FAST_INTERVAL], &v))
		p_ms(c, &v, KMD_FAST_MIN_MS, k->interval_ms, &k->fast_interval_ms);
	k->down_interval_ms = k->interval_ms;
	if (cfg_val(map, "down-interval", r->v[CK_DOWN_INTERVAL], &v))
		p_ms(c, &v, KMD_INTERVAL_MIN_MS, KMD_INTERVAL_MAX_MS, &k->down_interval_ms);
	k->jitter_ms = k->interval_ms / 10;
	if (cfg_val(map, "jitter", r->v[CK_JITTER], &v))
		p_ms(c, &v, 0, k->interval_ms, &k->jitter_ms);
	k->rise = KMD_RISE_DEFAULT;
	if (cfg_val(map, "rise", r->v[CK_RISE], &v))
		p_u32(c, &v, 1, KMD_RISE_FALL_MAX, &k->rise);
	k->fall = KMD_FALL_DEFAULT;
	if (cfg_val(map, "fall", r->v[CK_FALL], &v))
		p_u32(c, &v, 1, KMD_RISE_FALL_MAX, &k->fall);

	/* the kind's own fields, only when they belong to it (refused above otherwise) */
	if (!known)
		goto name;
	if (HTTP_KINDS & (1U << kind)) {
		if (cfg_val(map, "host", r->v[CK_HOST], &v)) {
			if (!host_ok(v.s))
				err_at(c, v.at, v.key, "\"%s\" is not a host name (letters, digits, "
				       "\"-\", \".\", \"_\"; no port: the check's port is the URL's) "
				       "nor an [IPv6] address", v.s);
			else
				p_text(c, &v, 1, 253, true, &k->host);
		}
		if (cfg_val(map, "path", r->v[CK_PATH], &v)) {
			if (v.s[0] != '/')
				err_at(c, v.at, v.key, "\"%s\" does not start with \"/\"", v.s);
			else
				p_text(c, &v, 1, 2048, true, &k->path);
		} else {
			k->path = xstrdup(c, "/");
		}
		if (r->status_count) {
			p_status(c, r, map, k);
		} else if (kmd_ynode_get(map, "status", NULL)) {
			cfg_val(map, "status", NULL, &v);
			err_at(c, v.at, v.key, "must list at least one status or range");
		} else {
			k->status = nomem(c, calloc(1, sizeof(*k->status)));
			if (k->status) {
				k->status[0] = (struct kmd_status_range){ 200, 399 };
				k->nstatus = 1;
			}
		}
		if (cfg_val(map, "body", r->v[CK_BODY], &v))
			p_text(c, &v, 1, 4096, false, &k->body);
		if (kind == KMD_CHECK_HTTPS && cfg_val(map, "verify-tls", r->v[CK_VERIFY_TLS], &v))
			verify_ok = p_bool(c, &v, &k->verify_tls);
		/* (a verify-tls in error has its own message) */
		if (kind == KMD_CHECK_HTTPS && cfg_val(map, "ca", r->v[CK_CA], &v) && verify_ok) {
			if (k->verify_tls)
				p_ca(c, &v, k);
			else
				err_at(c, v.at, v.key, "needs verify-tls: true (without it no "
				       "certificate is verified)");
		}
		k->reuse_s = KMD_REUSE_DEFAULT_S;
		if (cfg_val(map, "reuse", r->v[CK_REUSE], &v))
			p_time(c, &v, true, 0, KMD_REUSE_MAX_S, &k->reuse_s);
	} else if (kind == KMD_CHECK_UDP) {
		if (cfg_val(map, "send", r->v[CK_SEND], &v))
			p_text(c, &v, 1, 1024, false, &k->send);
		else
			err_at(c, map->loc, NULL, "a udp check needs \"send\" (the payload)");
		if (cfg_val(map, "expect", r->v[CK_EXPECT], &v))
			p_text(c, &v, 1, 1024, false, &k->expect);
	} else if (kind == KMD_CHECK_DNS) {
		k->query = NULL;
		if (cfg_val(map, "query", r->v[CK_QUERY], &v))
			p_text(c, &v, 1, 253, true, &k->query);
		else
			k->query = xstrdup(c, ".");
		k->qtype = 1;
		if (cfg_val(map, "qtype", r->v[CK_QTYPE], &v)) {
			for (i = 0; i < KMG_ARRAY_SIZE(qtypes) && strcmp(v.s, qtypes[i].name); i++)
				;
			if (i < KMG_ARRAY_SIZE(qtypes))
				k->qtype = qtypes[i].v;
			else if (isdigit((unsigned char)v.s[0]) && p_u32(c, &v, 1, 65535, &x))
				k->qtype = x;
			else if (!isdigit((unsigned char)v.s[0]))
				err_at(c, v.at, v.key,
				       "\"%s\" is not a query type (A, AAAA, NS, SOA, ... or a number)",
				       v.s);
		}
		k->rcode = 0;
		if (cfg_val(map, "rcode", r->v[CK_RCODE], &v)) {
			if (isdigit((unsigned char)v.s[0])) {
				if (p_u32(c, &v, 0, 15, &x))
					k->rcode = x;
			} else if (p_enum(c, &v, rcode_names, KMG_ARRAY_SIZE(rcode_names), &x)) {
				k->rcode = x;
			}
		}
	} else if (kind == KMD_CHECK_EXEC) {
		p_command(c, r, map, k);
	}
name:
	if (cfg_val(map, "name", r->v[CK_NAME], &v)) {
		if (!name_ok(v.s))
			err_at(c, v.at, v.key,
			       "\"%s\" is not 1..%d letters, digits, \"-\", \"_\" or \".\"", v.s,
			       KMD_CHECK_NAME_MAX);
		else
			k->name = xstrdup(c, v.s);
	} else if (!known) {
		k->name = xstrdup(c, r->v[CK_KIND]);
	} else {
		if (k->port && r->v[CK_PORT])
			snprintf(buf, sizeof(buf), "%s-%u", kind_names[kind], k->port);
		else
			snprintf(buf, sizeof(buf), "%s", kind_names[kind]);
		k->name = xstrdup(c, buf);
	}
}

/* The checks listed under @key of @map (the service's or a backend's). */
void p_checks(struct ctx *c, const struct raw_check *r, unsigned int n,
		     const struct kmd_ynode *map, const struct kmd_service *svc,
		     struct kmd_check **out, unsigned int *nout)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "checks", NULL);
	struct kmd_check *k;
	unsigned int i, j;
	size_t mark;

	if (!n)
		return;
	k = nomem(c, calloc(n, sizeof(*k)));
	if (!k)
		return;
	*out = k;
	*nout = n;
	for (i = 0; i < n; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);

		mark = path_push(c, "checks", 0);
		path_push(c, NULL, i);
		p_check(c, &r[i], e, svc, &k[i]);
		for (j = 0; k[i].name && j < i; j++)
			if (k[j].name && !strcmp(k[j].name, k[i].name)) {
				struct val v;

				cfg_val(e, "name", r[i].v[CK_NAME], &v);
				err_at(c, v.at, "name",
				       "\"%s\" is the name of checks[%u] too; give each a name",
				       k[i].name, j);
				break;
			}
		path_pop(c, mark);
	}
}
