// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev import ipvsadm": the rules "ipvsadm-save -n" (or "ipvsadm -Sn") writes,
 * as kmaglev services. One command a line, as "ipvsadm -R" reads them:
 *
 *   -A -t 192.0.2.10:80 -s rr [-p 300] [-M MASK] [--pe sip] [-o] [-b FLAGS]
 *   -a -t 192.0.2.10:80 -r 10.0.0.11:80 -i -w 1 --tun-type ipip [-x N] [-y N]
 *
 * -t, -u and --sctp-service name a service by ADDR:PORT ([ADDR]:PORT for IPv6), -f MARK [-6] by
 * firewall mark; -g (ipvsadm's default), -i and -m are direct routing, tunnelling and NAT.
 * The long options (--add-service, --tcp-service...) are read too, and --set TCP TCPFIN UDP
 * (connection timeouts), -C (a clear, a no-op here) and blank and "#" lines. ipvsadm has no
 * health checks: the backends get none.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "lib/err.h"
#include "cli/import.h"

#define WEIGHT_MAX	65535

enum fwd { F_DR, F_TUN, F_NAT };

struct line {
	struct kmg_imp_src at;
	const char *text;		/* the whole line, for messages (kmg_imp_escape()d) */
	char **w;
	unsigned int nw;
};

struct svc_ref {
	bool fwmark;
	uint32_t mark;
	struct kmg_addr a;
	uint16_t port;
	uint8_t proto;			/* 0: SCTP */
};

/* A service that is not mapped, so that its -a lines say nothing more. */
struct skipped {
	struct svc_ref ref;
};

struct ipv {
	struct kmg_imp *imp;
	struct skipped *skip;
	unsigned int nskip;
};

static void loss(struct ipv *p, const struct line *l, const char *why)
{
	kmg_imp_loss(p->imp, &l->at, "%s: %s", l->text, why);
}

static void note(struct ipv *p, const struct line *l, const char *why)
{
	kmg_imp_note(p->imp, &l->at, "%s: %s", l->text, why);
}

static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*end || errno)
		return -EINVAL;
	return *v > max ? -ERANGE : 0;
}

/* ADDR[:PORT] or [ADDR6][:PORT]; no port: 0 (*@has_port false). */
static int addr_port(const char *s, struct kmg_addr *a, uint16_t *port, bool *has_port)
{
	char buf[INET6_ADDRSTRLEN + 16], *p = NULL;
	uint64_t v;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;		/* cut, it would mean another address or port */
	snprintf(buf, sizeof(buf), "%s", s);
	if (buf[0] == '[') {
		char *e = strchr(buf, ']');

		if (!e || (e[1] && e[1] != ':'))
			return -EINVAL;
		*e = '\0';
		p = e[1] ? e + 2 : NULL;
		memmove(buf, buf + 1, strlen(buf + 1) + 1);
	} else {
		p = strchr(buf, ':');
		if (p && strchr(p + 1, ':'))
			return -EINVAL;	/* IPv6 without brackets */
		if (p)
			*p++ = '\0';
	}
	if (kmg_parse_addr(buf, a))
		return -EINVAL;
	*has_port = p != NULL;
	*port = 0;
	if (p) {
		if (parse_uint(p, 65535, &v))
			return -EINVAL;
		*port = v;
	}
	return 0;
}

static bool opt(const char *w, const char *s, const char *l)
{
	return !strcmp(w, s) || (l && !strcmp(w, l));
}

/* The service a line names: -t/-u/--sctp-service ADDR:PORT, or -f MARK [-6]. */
static int svc_ref(struct ipv *p, const struct line *l, unsigned int *i, struct svc_ref *r)
{
	const char *w = l->w[*i];
	bool has_port;
	uint64_t v;

	memset(r, 0, sizeof(*r));
	if (opt(w, "-f", "--fwmark-service")) {
		if (*i + 1 >= l->nw || parse_uint(l->w[*i + 1], UINT32_MAX, &v))
			return kmg_err(KMG_EFAIL, "%s:%u: %s needs a mark", l->at.file, l->at.line,
				       w);
		r->fwmark = true;
		r->mark = v;
		(*i)++;
		return 0;
	}
	if (opt(w, "-t", "--tcp-service"))
		r->proto = IPPROTO_TCP;
	else if (opt(w, "-u", "--udp-service"))
		r->proto = IPPROTO_UDP;
	else if (!opt(w, "--sctp-service", NULL))
		return -ENOENT;
	if (*i + 1 >= l->nw || addr_port(l->w[*i + 1], &r->a, &r->port, &has_port))
		return kmg_err(KMG_EFAIL,
			       "%s:%u: %s needs ADDR:PORT ([ADDR]:PORT for IPv6), in numbers: the output of \"ipvsadm-save -n\"",
			       l->at.file, l->at.line, w);
	(*i)++;
	return 0;
}

static bool same_ref(const struct svc_ref *x, const struct svc_ref *y)
{
	if (x->fwmark || y->fwmark)
		return x->fwmark == y->fwmark && x->mark == y->mark;
	return x->proto == y->proto && x->port == y->port && kmg_addr_equal(&x->a, &y->a);
}

static struct kmg_imp_service *find(struct ipv *p, const struct svc_ref *r)
{
	unsigned int i;

	for (i = 0; i < p->imp->nsvc; i++) {
		struct kmg_imp_service *s = &p->imp->svc[i];

		if (s->proto == r->proto && s->port == r->port && kmg_addr_equal(&s->vip, &r->a))
			return s;
	}
	return NULL;
}

static void skip(struct ipv *p, const struct svc_ref *r)
{
	if (!kmg_grow(&p->skip, p->nskip, sizeof(*p->skip)))
		p->skip[p->nskip++].ref = *r;
}

static bool skipped(struct ipv *p, const struct svc_ref *r)
{
	unsigned int i;

	for (i = 0; i < p->nskip; i++)
		if (same_ref(&p->skip[i].ref, r))
			return true;
	return false;
}

/* -A: a service. */
static int add_service(struct ipv *p, const struct line *l)
{
	const char *sched = NULL, *flags = NULL;
	struct kmg_imp_service *s;
	bool persist = false;
	struct svc_ref r = { 0 }, tmp;
	struct kmg_addr mask;
	unsigned int i;
	bool have = false;
	int ret;

	for (i = 1; i < l->nw; i++) {
		const char *w = l->w[i], *v = i + 1 < l->nw ? l->w[i + 1] : NULL;

		ret = svc_ref(p, l, &i, &tmp);
		if (ret == 0) {
			r = tmp;
			have = true;
			continue;
		}
		if (ret != -ENOENT)
			return ret;
		if (opt(w, "-s", "--scheduler") && v) {
			sched = v;
			i++;
		} else if (opt(w, "-p", "--persistent")) {
			persist = true;
			if (v && isdigit((unsigned char)v[0]))
				i++;
		} else if (opt(w, "-M", "--netmask") && v) {
			i++;
			if (!strcmp(v, "128") ||
			    (!kmg_parse_addr(v, &mask) && mask.family == AF_INET &&
			     mask.v4.s_addr == 0xffffffff))
				continue;
			loss(p, l, "-M: kmaglev's src-addr hash keeps each client address apart, not a network of them");
		} else if (opt(w, "--pe", "--persistence-engine") && v) {
			i++;
			loss(p, l, "--pe: kmaglev has no persistence engines (SIP Call-ID)");
		} else if (opt(w, "-o", "--ops")) {
			note(p, l, "-o: Maglev sends every packet of a UDP flow to the same backend, and the kernel tracks the flow");
		} else if (opt(w, "-b", "--sched-flags") && v) {
			flags = v;
			i++;
		} else if (opt(w, "-6", "--ipv6")) {
			/* with -f */
		} else {
			return kmg_err(KMG_EFAIL, "%s:%u: \"%s\": not an option of -A this import knows",
				       l->at.file, l->at.line, w);
		}
	}
	if (!have)
		return kmg_err(KMG_EFAIL, "%s:%u: -A without a service (-t, -u, -f...)",
			       l->at.file, l->at.line);
	if (r.fwmark) {
		loss(p, l, "kmaglev has no firewall-mark services: a service is one VIP, port and protocol; write one per VIP and port the mark stood for");
		skip(p, &r);
		return 0;
	}
	if (!r.proto) {
		loss(p, l, "kmaglev balances TCP and UDP: an SCTP service is left out");
		skip(p, &r);
		return 0;
	}
	if (!kmg_imp_addr_ok(p->imp, &l->at, l->text, &r.a)) {
		skip(p, &r);
		return 0;
	}
	s = kmg_imp_service_add(p->imp, &l->at, &r.a, r.port, r.proto, l->text);
	if (!s) {
		/* a second -A of a service made: its -a lines add to it, as ipvsadm -R's do */
		if (!find(p, &r))
			skip(p, &r);
		return 0;
	}
	s->hash = kmg_imp_schedule(p->imp, &l->at, l->text, sched,
				   flags && (strstr(flags, "sh-port") || strstr(flags, "mh-port")),
				   persist ? "-p" : NULL);
	return 0;
}

/* -a: a real server. */
static int add_server(struct ipv *p, const struct line *l)
{
	struct kmg_addr a = { 0 };
	struct kmg_imp_service *s;
	struct kmg_imp_backend *b;
	struct svc_ref r = { 0 }, tmp;
	enum fwd fwd = F_DR;
	const char *tun = "ipip";
	bool have = false, has_rport = false, csum = false, has_addr = false;
	uint64_t weight = 1, u = 0, v;
	uint16_t rport = 0;
	char why[256];
	unsigned int i;
	int ret;

	for (i = 1; i < l->nw; i++) {
		const char *w = l->w[i], *n = i + 1 < l->nw ? l->w[i + 1] : NULL;

		ret = svc_ref(p, l, &i, &tmp);
		if (ret == 0) {
			r = tmp;
			have = true;
			continue;
		}
		if (ret != -ENOENT)
			return ret;
		if (opt(w, "-r", "--real-server") && n) {
			if (addr_port(n, &a, &rport, &has_rport))
				return kmg_err(KMG_EFAIL,
					       "%s:%u: -r \"%s\": not ADDR[:PORT] in numbers (\"ipvsadm-save -n\")",
					       l->at.file, l->at.line, n);
			has_addr = true;
			i++;
		} else if (opt(w, "-g", "--gatewaying")) {
			fwd = F_DR;
		} else if (opt(w, "-i", "--ipip")) {
			fwd = F_TUN;
		} else if (opt(w, "-m", "--masquerading")) {
			fwd = F_NAT;
		} else if (opt(w, "-w", "--weight") && n) {
			if (parse_uint(n, INT32_MAX, &weight))
				return kmg_err(KMG_EFAIL, "%s:%u: -w \"%s\": not a weight",
					       l->at.file, l->at.line, n);
			i++;
		} else if (opt(w, "-x", "--u-threshold") && n) {
			if (parse_uint(n, UINT32_MAX, &u))
				return kmg_err(KMG_EFAIL, "%s:%u: -x \"%s\": not a number",
					       l->at.file, l->at.line, n);
			i++;
		} else if (opt(w, "-y", "--l-threshold") && n) {
			if (!parse_uint(n, UINT32_MAX, &v) && v)
				loss(p, l, "-y: kmaglev gives a backend new flows again as soon as it is below max-conns (-x)");
			i++;
		} else if (opt(w, "--tun-type", NULL) && n) {
			tun = n;
			i++;
		} else if (opt(w, "--tun-port", NULL) && n) {
			i++;
		} else if (opt(w, "-6", "--ipv6")) {
			/* with -f */
		} else if (opt(w, "--tun-nocsum", NULL)) {
			csum = false;
		} else if (opt(w, "--tun-csum", NULL) || opt(w, "--tun-remcsum", NULL)) {
			csum = true;
		} else {
			return kmg_err(KMG_EFAIL, "%s:%u: \"%s\": not an option of -a this import knows",
				       l->at.file, l->at.line, w);
		}
	}
	if (!have || !has_addr)
		return kmg_err(KMG_EFAIL, "%s:%u: -a without a service or without -r",
			       l->at.file, l->at.line);
	if (skipped(p, &r))
		return 0;
	s = r.fwmark ? NULL : find(p, &r);
	if (!s) {
		loss(p, l, "no -A line before it made this service: left out");
		return 0;
	}
	if (!kmg_imp_addr_ok(p->imp, &l->at, l->text, &a))
		return 0;
	if (fwd == F_NAT)
		loss(p, l, "-m: kmaglev does not translate addresses: it sends clients' packets to the backend in a tunnel and the backend answers them directly; each backend must take the tunnel and own the VIP (ip link set tunl0 up; ip addr add VIP/32 dev lo); written as encap ipip");
	else if (fwd == F_DR)
		note(p, l, KMG_IMP_DR_NOTE);
	else if (strcmp(tun, "ipip") && (strcmp(tun, "gre") || csum))
		loss(p, l, "kmaglev tunnels are IPIP or GRE without checksum (encap ipip, encap gre): written as ipip");
	if (has_rport && rport != s->port) {
		snprintf(why, sizeof(why),
			 "port %u is not the service's (%u): kmaglev sends clients' packets to the backend unchanged, to port %u (no port translation)",
			 rport, s->port, s->port);
		loss(p, l, why);
	}
	b = kmg_imp_backend_add(p->imp, s, &l->at, &a);
	if (!b)
		return 0;
	b->gre = fwd == F_TUN && !strcmp(tun, "gre") && !csum;
	b->dr = fwd == F_DR;
	b->weight = weight > WEIGHT_MAX ? WEIGHT_MAX : weight;
	if (weight > WEIGHT_MAX)
		loss(p, l, "-w: kmaglev's weights are 0..65535: written as 65535");
	b->max_conns = u;
	return 0;
}

/* --set TCP TCPFIN UDP: the connection timeouts, 0 for unchanged. */
static int set_timeouts(struct ipv *p, const struct line *l)
{
	uint32_t *to[3] = { &p->imp->timeout_tcp_est, &p->imp->timeout_tcp_fin,
			    &p->imp->timeout_udp };
	unsigned int i;
	uint64_t v;

	if (l->nw != 4)
		return kmg_err(KMG_EFAIL, "%s:%u: --set takes three timeouts (tcp tcpfin udp)",
			       l->at.file, l->at.line);
	for (i = 0; i < 3; i++) {
		if (parse_uint(l->w[i + 1], UINT32_MAX, &v))
			return kmg_err(KMG_EFAIL, "%s:%u: --set \"%s\": not a number of seconds",
				       l->at.file, l->at.line, l->w[i + 1]);
		if (v > 604800)
			loss(p, l, "kmaglev's connection timeouts are at most 168h: written as 168h");
		if (v)
			*to[i] = v > 604800 ? 604800 : v;
	}
	return 0;
}

static int one_line(struct ipv *p, struct line *l)
{
	const char *c = l->w[0];

	if (opt(c, "-A", "--add-service"))
		return add_service(p, l);
	if (opt(c, "-a", "--add-server"))
		return add_server(p, l);
	if (opt(c, "--set", NULL))
		return set_timeouts(p, l);
	if (opt(c, "-C", "--clear")) {
		note(p, l, "a clear: the file describes every service the daemon owns anyway");
		return 0;
	}
	return kmg_err(KMG_EFAIL,
		       "%s:%u: \"%s\": not a command of ipvsadm-save's output (-A, -a, --set, -C)",
		       l->at.file, l->at.line, c);
}

int kmg_import_ipvsadm(struct kmg_imp *imp, FILE *in, const char *name)
{
	struct ipv p = { .imp = imp };
	char *buf = NULL, *copy, *tok, *save, text[256];
	struct line l = { .at = { name, 0 }, .text = text };
	size_t cap = 0;
	ssize_t len;
	int ret = 0;

	imp->format = "ipvsadm";
	imp->advice = "# ipvsadm has no health checks: these backends have none and are always up.\n"
		      "# Add checks: to the services (Documentation/daemon.rst).\n";
	if (!imp->source)
		imp->source = name;
	while (!ret && (len = kmg_imp_getline(&buf, &cap, in, KMG_IMP_LINE_MAX)) >= 0) {
		l.at.line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (strlen(buf) != (size_t)len) {
			ret = kmg_err(KMG_EFAIL, "%s:%u: a NUL byte: not ipvsadm's output", name,
				      l.at.line);
			break;
		}
		copy = strdup(buf);
		if (!copy) {
			ret = kmg_err(KMG_EFAIL, "out of memory");
			break;
		}
		kmg_imp_escape(buf + strspn(buf, " \t"), text, sizeof(text));
		l.nw = 0;
		for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			if (tok[0] == '#')
				break;
			if (kmg_grow(&l.w, l.nw, sizeof(*l.w))) {
				ret = kmg_err(KMG_EFAIL, "out of memory");
				break;
			}
			l.w[l.nw++] = tok;
		}
		if (!ret && l.nw)
			ret = one_line(&p, &l);
		free(copy);
	}
	if (!ret && len == -2)
		ret = kmg_err(KMG_EFAIL, "%s:%u: a line of more than %u bytes: not ipvsadm's "
			      "output", name, l.at.line + 1, KMG_IMP_LINE_MAX);
	else if (!ret && len == -3)
		ret = kmg_err(KMG_EFAIL, "reading %s: %s", name,
			      ferror(in) ? strerror(errno) : "out of memory");
	if (!ret && imp->nsvc) {
		struct kmg_imp_src at = { name, 0 };

		kmg_imp_note(imp, &at,
			     "ipvsadm has no health checks: the backends have none and are always up; add checks: (Documentation/daemon.rst)");
	}
	free(l.w);
	free(buf);
	free(p.skip);
	return ret;
}
