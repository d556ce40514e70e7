// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: a generic netlink fuzzer for the kmaglev family.
 *
 * Everything it knows of the family (attribute numbers, types, ranges, lengths, nesting, the
 * operations and their request and reply attributes) comes from nlfuzz-spec.h, generated from
 * the YNL spec at build time. On top of that it knows a few meanings the spec cannot say
 * (which attributes make a service or backend key, which are read-only) by name, to build
 * requests that make sense: service add, backend add/set/drain/del, config set, dumps,
 * service del. Mixed with those it sends garbage: boundary values (0, 1, min, max, max + 1,
 * the type's limits), wrong lengths and types, unknown and duplicated attributes, nests where
 * scalars belong and the reverse, deep nesting, oversized attributes, truncated messages and
 * lying lengths, random nlmsg flags, random commands (notifications included), several
 * messages in one datagram, and dumps abandoned part-way (socket closed, or another request
 * sent while a dump is pending).
 *
 * Each reply is checked: it must parse as the spec says (known attributes, right lengths,
 * nests well formed, only the attributes the operation replies with), an error's extack
 * must parse, and an errno must be one the family and the netlink core can legitimately
 * return. Outcomes are counted per (operation, errno, extack message with numbers stripped,
 * bad-attribute offset given, missing attribute given): the distinct error paths hit.
 *
 * With --unpriv (a process without CAP_NET_ADMIN over the netns): every admin operation must
 * fail, and no reply may carry a service seed.
 *
 *   nlfuzz [--seed S] [--msgs N] [--workers W] [--duration SECONDS] [--unpriv]
 *          [--huge-every N] [--no-paths] [--profile] [--verbose]
 *
 * Deterministic from the seed (what it sends; the kernel's answers depend on the interleaving
 * of the workers and of anything else changing the netns). Exit status 0 when no anomaly was
 * seen, 1 otherwise, 2 on a usage or setup error. The last line is a summary:
 *   nlfuzz: msgs=N rate=R/s paths=D ok=K errors=E anomalies=A unexpected-errno=U unparseable=P
 *   timeouts=T violations=V
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "nlfuzz-spec.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

#define BUF_SZ		(256 * 1024)	/* one datagram out, replies in */
#define MSG_MAX		(64 * 1024)	/* a message we build */
#define REPLY_TIMEOUT_MS 120000

/* ---- options, results --------------------------------------------------------------------- */

static uint64_t opt_seed = 1;
static unsigned long opt_msgs = 10000;
static unsigned int opt_workers = 1;
static double opt_duration;		/* 0: no cap */
static bool opt_unpriv, opt_verbose, opt_paths = true, opt_profile;
static unsigned long opt_huge_every = 20000;
static uint16_t family_id;
static double t_start;

static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER;

struct path {
	char *key;
	unsigned long n;
	struct path *next;
};
#define PATH_BUCKETS 1024
static struct path *paths[PATH_BUCKETS];
static unsigned long n_msgs, n_ok, n_err, n_noreply;
static unsigned long n_unexpected, n_unparseable, n_timeouts, n_violations, n_reconnects,
		     n_dumps_cut, n_huge;

#define ANOM_MAX 64
static char *anomalies[ANOM_MAX];
static unsigned int n_anom_kept;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void anomaly(unsigned long *counter, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&res_lock);
	(*counter)++;
	if (n_anom_kept < ANOM_MAX)
		anomalies[n_anom_kept++] = strdup(buf);
	pthread_mutex_unlock(&res_lock);
	if (opt_verbose)
		fprintf(stderr, "nlfuzz: ANOMALY: %s\n", buf);
}

static void path_count(const char *key)
{
	unsigned int h = 5381;
	const char *p;
	struct path *e;

	for (p = key; *p; p++)
		h = h * 33 + (unsigned char)*p;
	h %= PATH_BUCKETS;
	pthread_mutex_lock(&res_lock);
	for (e = paths[h]; e; e = e->next)
		if (!strcmp(e->key, key))
			break;
	if (!e) {
		e = calloc(1, sizeof(*e));
		e->key = strdup(key);
		e->next = paths[h];
		paths[h] = e;
	}
	e->n++;
	pthread_mutex_unlock(&res_lock);
}

/* ---- random numbers (splitmix64 seeding, xoshiro256**) ---------------------------------- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_init(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rnd(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* uniform in [0, n) */
static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

/* true with probability 1/n */
static bool one_in(struct rng *r, unsigned int n)
{
	return below(r, n) == 0;
}

static void rnd_bytes(struct rng *r, void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = rnd(r);
}

/* ---- attribute trees ---------------------------------------------------------------------- */

/* A request is built as a tree, mutated, then serialized (possibly with lies). */
struct node {
	uint16_t type;			/* with NLA_F_* bits as sent */
	bool nest;
	uint16_t len;			/* payload length of a leaf */
	uint8_t *data;
	struct node *kids;		/* children of a nest (linked by next) */
	struct node *next;
	int set;			/* the nested set (nests), or -1 */
};

static struct node *node_new(uint16_t type)
{
	struct node *n = calloc(1, sizeof(*n));

	n->type = type;
	n->set = -1;
	return n;
}

static void node_free(struct node *n)
{
	while (n) {
		struct node *next = n->next;

		node_free(n->kids);
		free(n->data);
		free(n);
		n = next;
	}
}

static struct node *leaf(uint16_t type, const void *p, size_t len)
{
	struct node *n = node_new(type);

	n->len = len;
	n->data = malloc(len ? len : 1);
	if (len)
		memcpy(n->data, p, len);
	return n;
}

static struct node *nest(uint16_t type, int set)
{
	struct node *n = node_new(type);

	n->nest = true;
	n->set = set;
	n->type |= NLA_F_NESTED;	/* strict validation wants it */
	return n;
}

static void add(struct node *parent_or_list_head, struct node *kid)
{
	struct node **pp = &parent_or_list_head->kids;

	while (*pp)
		pp = &(*pp)->next;
	*pp = kid;
}

static unsigned int count_nodes(struct node *n)
{
	unsigned int c = 0;

	for (; n; n = n->next)
		c += 1 + count_nodes(n->kids);
	return c;
}

/* The @i-th node of the tree in preorder, and a pointer to the link that points at it. */
static struct node **nth_link(struct node **pp, unsigned int *i)
{
	struct node **r;

	for (; *pp; pp = &(*pp)->next) {
		if (!*i)
			return pp;
		(*i)--;
		r = nth_link(&(*pp)->kids, i);
		if (r)
			return r;
	}
	return NULL;
}

/* ---- the spec ------------------------------------------------------------------------------ */

static const struct nf_attr *spec_attr(int set, unsigned int type)
{
	if (set < 0 || set >= NF_NSETS || type > nf_sets[set].max || !nf_sets[set].attrs[type].name)
		return NULL;
	return &nf_sets[set].attrs[type];
}

static int spec_find(int set, const char *name)
{
	unsigned int i;

	for (i = 1; i <= nf_sets[set].max; i++)
		if (nf_sets[set].attrs[i].name && !strcmp(nf_sets[set].attrs[i].name, name))
			return i;
	return -1;
}

static int set_find(const char *name)
{
	int i;

	for (i = 0; i < NF_NSETS; i++)
		if (!strcmp(nf_sets[i].name, name))
			return i;
	return -1;
}

static const struct nf_op *op_by_name(const char *name)
{
	int i;

	for (i = 0; i < NF_NOPS; i++)
		if (!strcmp(nf_ops[i].name, name))
			return &nf_ops[i];
	return NULL;
}

static const struct nf_op *op_by_cmd(unsigned int cmd)
{
	int i;

	for (i = 0; i < NF_NOPS; i++)
		if (nf_ops[i].cmd == cmd)
			return &nf_ops[i];
	return NULL;
}

static unsigned int type_size(int t)
{
	switch (t) {
	case NF_U8: case NF_S8: return 1;
	case NF_U16: case NF_S16: return 2;
	case NF_U32: case NF_S32: return 4;
	case NF_U64: case NF_S64: return 8;
	}
	return 0;
}

static uint64_t type_max(int t)
{
	unsigned int sz = type_size(t);

	return sz == 8 ? UINT64_MAX : (1ULL << (8 * sz)) - 1;
}

/*
 * What the fuzzer knows beyond the spec, by name (a renamed attribute only makes the sensible
 * requests fail more often): the attributes replies carry that requests may not.
 */
static bool read_only(int set, const char *name)
{
	static const char *const ro[] = {
		"service.generation", "service.backends", "service.table-bytes",
		"service.prev-generation", "service.ramp-now", "service.window-left-ms",
		"backend.slots", "backend.id", "backend.stats",
		"config.services", "config.backends", "config.conns", NULL,
	};
	char full[96];
	int i;

	snprintf(full, sizeof(full), "%s.%s", nf_sets[set].name, name);
	for (i = 0; ro[i]; i++)
		if (!strcmp(ro[i], full))
			return true;
	return false;
}

/* ---- values ----------------------------------------------------------------------------- */

/* Key pools: few services and backends, so that sequences meet each other and the traffic. */
static void pool_addr4(struct rng *r, uint8_t *p, bool backend)
{
	uint32_t a = backend ? 0x0a000001 + below(r, 16) : 0xc0000201 + below(r, 4);

	a = htonl(a);
	memcpy(p, &a, 4);
}

static void pool_addr6(struct rng *r, uint8_t *p, bool backend)
{
	static const uint8_t base[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	memcpy(p, base, 16);
	if (backend)
		p[5] = 1;
	p[15] = 1 + below(r, backend ? 16 : 4);
}

static const uint32_t small_primes[] = { 251, 257, 263, 509, 1021, 2053, 4099 };

/* A valid value for an integer attribute: its range, log-uniform, or a pool by name. */
static uint64_t valid_int(struct rng *r, const struct nf_attr *a)
{
	uint64_t lo = a->range ? a->min : 0, hi = a->range ? a->max : type_max(a->type), v;
	unsigned int bits;

	if (!strcmp(a->name, "table-size"))
		return one_in(r, 50) ? 65537 : small_primes[below(r, 7)];
	if (!strcmp(a->name, "proto")) {
		static const uint8_t p[] = { 0, 6, 17 };

		return p[below(r, 3)];
	}
	if (!strcmp(a->name, "port")) {
		static const uint16_t p[] = { 0, 53, 80 };

		return p[below(r, 3)];
	}
	if (!strcmp(a->name, "weight"))
		return below(r, 10) ? below(r, 100) : hi;
	if (!strcmp(a->name, "max-services") || !strcmp(a->name, "max-backends"))
		return one_in(r, 20) ? below(r, 4) : 64 + below(r, 1024);
	if (!strcmp(a->name, "probe-mark-min") || !strcmp(a->name, "probe-mark-max"))
		return below(r, 4) ? 0 : 0x1000 + below(r, 0x1000);
	if (!strcmp(a->name, "hook"))
		return below(r, 4) ? lo : hi;	/* mostly prerouting, the traffic's path */
	if (a->mask)
		return rnd(r) & a->mask;
	if (one_in(r, 4))
		return lo + below(r, hi - lo < 16 ? hi - lo + 1 : 16);
	bits = 1 + below(r, 64);
	v = bits == 64 ? rnd(r) : rnd(r) & ((1ULL << bits) - 1);
	if (hi - lo != UINT64_MAX)
		v = lo + v % (hi - lo + 1);
	return v;
}

/* A boundary or invalid value for an integer attribute of spec type @t. */
static uint64_t edge_int(struct rng *r, const struct nf_attr *a)
{
	uint64_t tmax = type_max(a->type), c[12];
	unsigned int n = 0;

	c[n++] = 0;
	c[n++] = 1;
	c[n++] = tmax;
	c[n++] = tmax - 1;
	c[n++] = rnd(r) & tmax;
	if (a->range) {
		c[n++] = a->min;
		c[n++] = a->max;
		if (a->min)
			c[n++] = a->min - 1;
		if (a->max < tmax)
			c[n++] = a->max + 1;
		c[n++] = a->min + 1;
		c[n++] = a->max - 1;
	}
	if (a->mask)
		c[n++] = (a->mask << 1) | 1;
	return c[below(r, n)];
}

/* Fill a leaf with @len bytes holding integer @v (host order; addresses raw). */
static struct node *int_leaf(uint16_t type, uint64_t v, unsigned int len)
{
	uint8_t b[8] = { 0 };

	switch (len) {
	case 1: b[0] = v; break;
	case 2: { uint16_t x = v; memcpy(b, &x, 2); break; }
	case 4: { uint32_t x = v; memcpy(b, &x, 4); break; }
	default: memcpy(b, &v, 8); len = 8; break;
	}
	return leaf(type, b, len);
}

struct gen {
	struct rng *r;
	unsigned long huge_left;	/* messages until a huge table-size may go out */
	bool garbage;			/* this request is being mutated */
};

/*
 * The soft cap: a table-size above 65537 builds a table of up to 16 M slots, seconds of CPU on
 * a debug kernel under kn->lock. Valid ones go out once every --huge-every messages;
 * otherwise a boundary above 65537 becomes the invalid max + 1.
 */
static uint64_t soften(struct gen *g, const struct nf_attr *a, uint64_t v)
{
	if (strcmp(a->name, "table-size") || v <= 65537 || (a->range && v > a->max))
		return v;
	if (opt_huge_every && !g->huge_left) {
		g->huge_left = opt_huge_every;
		__atomic_fetch_add(&n_huge, 1, __ATOMIC_RELAXED);
		return v;
	}
	return a->range ? a->max + 1 : 0;
}

/* A valid leaf for @a (number @type in @set). */
static struct node *valid_leaf(struct gen *g, int set, unsigned int type, const struct nf_attr *a,
			       bool backend)
{
	struct rng *r = g->r;
	uint8_t buf[300];
	unsigned int len;

	switch (a->type) {
	case NF_FLAG:
		return leaf(type, NULL, 0);
	case NF_BINARY:
		len = a->exact_len ? a->exact_len : below(r, 32);
		if (len == 16 && (strstr(a->name, "addr6") || strstr(a->name, "src6"))) {
			pool_addr6(r, buf, backend);
			if (strstr(a->name, "src6"))
				buf[15] = 0xfe;
		} else {
			rnd_bytes(r, buf, len);
		}
		return leaf(type, buf, len);
	case NF_STRING: {
		static const char *const devs[] = { "all", "lo", "dummy0", "lo,dummy0", "d0" };

		if (!strcmp(a->name, "ingress-dev")) {
			const char *s = devs[below(r, 5)];
			unsigned int k, n;

			if (one_in(r, 4)) {
				/* a list of up to 40 names, maybe with repeats */
				n = 1 + below(r, 40);
				len = 0;
				for (k = 0; k < n && len + 8 < a->max_len; k++)
					len += sprintf((char *)buf + len, "%sd%u", k ? "," : "",
						       (unsigned int)below(r, 60));
				return leaf(type, buf, len + 1);
			}
			return leaf(type, s, strlen(s) + 1);
		}
		len = below(r, (a->max_len ? a->max_len : 16) + 1);
		for (unsigned int i = 0; i < len; i++)
			buf[i] = 'a' + below(r, 26);
		buf[len] = 0;
		return leaf(type, buf, len + 1);
	}
	case NF_NEST:
		return nest(type, a->nested);
	case NF_PAD:
		return leaf(type, NULL, 0);
	default:
		if (a->type == NF_U32 && (strstr(a->name, "addr4") || strstr(a->name, "src4"))) {
			pool_addr4(r, buf, backend);
			if (strstr(a->name, "src4"))
				buf[3] = 0xfe;
			return leaf(type, buf, 4);
		}
		return int_leaf(type, soften(g, a, valid_int(r, a)), type_size(a->type));
	}
}

/* ---- sensible requests --------------------------------------------------------------------- */

static int S_ROOT, S_SVC, S_BE, S_CFG;
static int A_SERVICE, A_BACKEND, A_CONFIG;

static void add_named(struct gen *g, struct node *parent, int set, const char *name, bool be)
{
	int t = spec_find(set, name);

	if (t > 0)
		add(parent, valid_leaf(g, set, t, spec_attr(set, t), be));
}

/* A service key: an address (v4 or v6), proto, port; or, sometimes, an id. */
static void add_svc_key(struct gen *g, struct node *svc, bool id_ok)
{
	struct rng *r = g->r;

	if (id_ok && one_in(r, 8)) {
		uint32_t id = 1 + below(r, 64);

		add(svc, int_leaf(spec_find(S_SVC, "id"), id, 4));
		if (!one_in(r, 3))
			return;
	}
	add_named(g, svc, S_SVC, below(r, 4) ? "addr4" : "addr6", false);
	add_named(g, svc, S_SVC, "proto", false);
	add_named(g, svc, S_SVC, "port", false);
}

/* Some writable attributes of @set (not the key ones), valid. */
static void add_settings(struct gen *g, struct node *parent, int set, unsigned int max_n,
			 bool be)
{
	struct rng *r = g->r;
	unsigned int n = below(g->r, max_n + 1), i;

	for (i = 0; i < n; i++) {
		unsigned int t = 1 + below(r, nf_sets[set].max);
		const struct nf_attr *a = spec_attr(set, t);

		if (!a || read_only(set, a->name) || a->type == NF_NEST || a->type == NF_PAD ||
		    strstr(a->name, "addr") || !strcmp(a->name, "id") ||
		    !strcmp(a->name, "proto") || !strcmp(a->name, "port"))
			continue;
		if (!strcmp(a->name, "gre-key") && !one_in(r, 3))
			continue;
		add(parent, valid_leaf(g, set, t, a, be));
	}
}

static struct node *backend_nest(struct gen *g, uint16_t type, bool settings)
{
	struct node *be = nest(type, S_BE);

	add_named(g, be, S_BE, below(g->r, 4) ? "addr4" : "addr6", true);
	if (settings)
		add_settings(g, be, S_BE, 3, true);
	return be;
}

/* A request for @op that makes sense, as the top-level attribute list of @root. */
static void sensible(struct gen *g, const struct nf_op *op, bool dump, struct node *root)
{
	struct rng *r = g->r;
	struct node *svc;
	const char *n = op->name;
	unsigned int i, nb;

	if (!strcmp(n, "config-set")) {
		struct node *c = nest(A_CONFIG, S_CFG);

		add_settings(g, c, S_CFG, 3, false);
		add(root, c);
		return;
	}
	if (!strcmp(n, "config-get") || !strcmp(n, "service-flush"))
		return;
	if (dump) {
		if (!strcmp(n, "backend-get") && below(r, 2)) {
			svc = nest(A_SERVICE, S_SVC);
			add_svc_key(g, svc, true);
			add(root, svc);
		}
		return;
	}
	if (!strcmp(n, "stats-get") && one_in(r, 3))
		return;
	svc = nest(A_SERVICE, S_SVC);
	add(root, svc);
	add_svc_key(g, svc, strcmp(n, "service-new"));
	if (!strcmp(n, "service-new") || !strcmp(n, "service-set")) {
		if (!strcmp(n, "service-new") && !one_in(r, 50))
			add_named(g, svc, S_SVC, "table-size", false);
		add_settings(g, svc, S_SVC, 4, false);
		if (!strcmp(n, "service-set") && one_in(r, 4))
			add_named(g, svc, S_SVC, "replace-backends", false);
		nb = one_in(r, 3) ? below(r, 9) : 0;
		if (one_in(r, 200))
			nb = 100 + below(r, 400);	/* a large set, top-level */
		for (i = 0; i < nb; i++) {
			if (nb > 16 || one_in(r, 2))
				add(root, backend_nest(g, A_BACKEND, true));
			else
				add(svc, backend_nest(g, spec_find(S_SVC, "backend"), true));
		}
		return;
	}
	if (!strncmp(n, "backend-", 8))
		add(root, backend_nest(g, A_BACKEND, !strcmp(n, "backend-new") ||
				       !strcmp(n, "backend-set")));
	if (!strcmp(n, "backend-set") && one_in(r, 3)) {
		/* drain (or down, or up) */
		struct node *be = root->kids;

		while (be && be->next)
			be = be->next;
		add(be, int_leaf(spec_find(S_BE, "state"), below(r, 3), 4));
	}
}

/* ---- garbage ------------------------------------------------------------------------------- */

/* Random attributes of @set, valid or not, nested down to @depth. */
static void random_attrs(struct gen *g, struct node *parent, int set, int depth)
{
	struct rng *r = g->r;
	unsigned int n = below(r, 6), i;

	for (i = 0; i < n; i++) {
		unsigned int max = set >= 0 ? nf_sets[set].max : 8;
		unsigned int t = below(r, 8) ? 1 + below(r, max) : below(r, max + 3);
		const struct nf_attr *a = spec_attr(set, t);
		struct node *k;

		if (a && a->type == NF_NEST && depth > 0) {
			k = nest(t, a->nested);
			random_attrs(g, k, a->nested, depth - 1);
		} else if (a) {
			k = valid_leaf(g, set, t, a, one_in(r, 2));
		} else {
			uint8_t b[16];
			unsigned int len = below(r, 17);

			rnd_bytes(r, b, len);
			k = leaf(t, b, len);
		}
		add(parent, k);
	}
}

/* Replace the payload of @n with a boundary, wrong-length or wrong-type value. */
static void mutate_leaf(struct gen *g, struct node *n, const struct nf_attr *a)
{
	struct rng *r = g->r;
	uint8_t b[600];
	unsigned int len = 0, k = below(r, 8);

	if (a && type_size(a->type) && k < 4) {
		uint64_t v = soften(g, a, edge_int(r, a));

		node_free(n->kids);
		n->kids = NULL;
		n->nest = false;
		free(n->data);
		n->len = type_size(a->type);
		n->data = malloc(8);
		memcpy(n->data, &v, 8);	/* little endian: the low bytes first */
		return;
	}
	if (a && a->type == NF_STRING && k < 5) {
		unsigned int m = a->max_len ? a->max_len : 32;
		unsigned int lens[] = { 0, 1, m, m + 1, m + 2, m + 50 };

		len = lens[below(r, 6)];
		for (unsigned int i = 0; i < len; i++)
			b[i] = one_in(r, 10) ? rnd(r) : 'a' + below(r, 26);
		if (below(r, 3))
			b[len++] = 0;	/* else not NUL-terminated */
		if (one_in(r, 5) && len > 2)
			b[len / 2] = 0;
		if (one_in(r, 4) && len > 4)
			b[1] = ',';
		goto set;
	}
	if (a && a->type == NF_BINARY && k < 5) {
		unsigned int e = a->exact_len ? a->exact_len : 16;
		unsigned int lens[] = { 0, 1, e - 1, e, e + 1, 2 * e };

		len = lens[below(r, 6)];
		if (len > sizeof(b))
			len = sizeof(b);
		if (below(r, 2))
			rnd_bytes(r, b, len);
		else
			memset(b, below(r, 2) ? 0 : 0xff, len);
		goto set;
	}
	/* wrong type: any length */
	{
		static const unsigned int lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 64 };

		len = lens[below(r, 13)];
		rnd_bytes(r, b, len);
	}
set:
	node_free(n->kids);
	n->kids = NULL;
	n->nest = false;
	free(n->data);
	n->len = len;
	n->data = malloc(len ? len : 1);
	memcpy(n->data, b, len);
}

/*
 * The spec description of the node at preorder index @idx (NULL if the spec has none), and the
 * set it is in; false if there is no such node.
 */
static bool desc_of(struct node *list, int set, unsigned int *idx, const struct nf_attr **d,
		    int *set_out)
{
	for (; list; list = list->next) {
		const struct nf_attr *a = spec_attr(set, list->type & NLA_TYPE_MASK);

		if (!*idx) {
			*set_out = set;
			*d = a;
			return true;
		}
		(*idx)--;
		if (list->kids && desc_of(list->kids, a ? a->nested : -1, idx, d, set_out))
			return true;
	}
	return false;
}

static void mutate_tree(struct gen *g, struct node *root)
{
	struct rng *r = g->r;
	unsigned int n = count_nodes(root->kids), i, k, depth;
	struct node **pp, *x;
	const struct nf_attr *a = NULL;
	int set = -1;

	if (!n || one_in(r, 6)) {
		random_attrs(g, root, NF_ROOT_SET, 3);
		return;
	}
	i = below(r, n);
	k = i;
	desc_of(root->kids, NF_ROOT_SET, &k, &a, &set);
	k = i;
	pp = nth_link(&root->kids, &k);
	if (!pp)
		return;
	x = *pp;
	switch (below(r, 12)) {
	case 0: case 1: case 2: case 3:		/* boundary / wrong value */
		mutate_leaf(g, x, a);
		break;
	case 4:					/* delete */
		*pp = x->next;
		x->next = NULL;
		node_free(x);
		break;
	case 5: {				/* duplicate */
		struct node *d = x->nest ? nest(x->type, x->set) :
				 leaf(x->type, x->data, x->len);

		if (x->nest)
			random_attrs(g, d, x->set, 1);
		d->next = x->next;
		x->next = d;
		break;
	}
	case 6:					/* a nest where a leaf was, or the reverse */
		if (x->nest) {
			mutate_leaf(g, x, NULL);
		} else {
			node_free(x->kids);
			x->kids = NULL;
			free(x->data);
			x->data = NULL;
			x->len = 0;
			x->nest = true;
			x->type |= NLA_F_NESTED;
			random_attrs(g, x, set, 1);
		}
		break;
	case 7:					/* deep nesting */
		depth = 2 + below(r, 40);
		{
			struct node *top = nest(x->type, -1), *cur = top;

			for (unsigned int d = 0; d < depth; d++) {
				struct node *c = nest(1 + below(r, 3), -1);

				add(cur, c);
				cur = c;
			}
			add(cur, int_leaf(1, rnd(r), 4));
			top->next = x->next;
			x->next = NULL;
			node_free(x);
			*pp = top;
		}
		break;
	case 8:					/* type flag bits, or an unknown type */
		if (below(r, 2))
			x->type ^= below(r, 2) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
		else
			x->type = (x->type & ~NLA_TYPE_MASK) | below(r, 40);
		break;
	case 9: {				/* oversized attribute */
		unsigned int len = 256 + below(r, 16000);

		node_free(x->kids);
		x->kids = NULL;
		x->nest = false;
		free(x->data);
		x->data = malloc(len);
		if (below(r, 2))
			memset(x->data, 'A', len);
		else
			rnd_bytes(r, x->data, len);
		x->len = len;
		break;
	}
	default:				/* extra random attributes here */
		if (x->nest)
			random_attrs(g, x, x->set, 2);
		else
			random_attrs(g, root, NF_ROOT_SET, 2);
		break;
	}
}

/* ---- serialization ---------------------------------------------------------------------- */

struct out {
	uint8_t *p;
	size_t len, cap;
};

static bool put(struct out *o, const void *p, size_t len)
{
	if (o->len + NLA_ALIGN(len) > o->cap)
		return false;
	memcpy(o->p + o->len, p, len);
	memset(o->p + o->len + len, 0, NLA_ALIGN(len) - len);
	o->len += NLA_ALIGN(len);
	return true;
}

static bool ser(struct out *o, struct node *n)
{
	for (; n; n = n->next) {
		size_t start = o->len;
		struct nlattr h = { .nla_type = n->type };

		if (!put(o, &h, sizeof(h)))
			return false;
		if (n->nest) {
			if (!ser(o, n->kids))
				return false;
			h.nla_len = o->len - start;
		} else {
			if (!put(o, n->data, n->len))
				return false;
			h.nla_len = sizeof(h) + n->len;
		}
		if (o->len - start > 0xffff)
			return false;
		memcpy(o->p + start, &h, sizeof(h));
	}
	return true;
}

/* ---- the socket ----------------------------------------------------------------------------- */

struct worker {
	int id;
	struct rng r;
	struct gen g;
	int fd;
	uint32_t seq;
	uint32_t portid;
	unsigned long quota, sent;
	uint8_t *obuf, *ibuf;
	bool cap_ack;
	size_t rcvlen;			/* what it passes to recv() */
	double deadline;
};

static int nl_open(struct worker *w)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t sl = sizeof(sa);
	int one = 1, fd, v;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/*
	 * Half the sockets read with 8 KiB buffers: the kernel then sizes dump parts to them
	 * (more parts, so that a dump left part-way is still pending). Those want capped acks,
	 * which do not echo the request.
	 */
	w->rcvlen = below(&w->r, 2) ? 8192 : BUF_SZ;
	w->cap_ack = w->rcvlen < BUF_SZ || below(&w->r, 2);
	v = w->cap_ack;
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &v, sizeof(v));
	v = below(&w->r, 2);
	setsockopt(fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &v, sizeof(v));
	v = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	w->portid = sa.nl_pid;
	return fd;
}

/* The family id, from nlctrl. */
static int resolve_family(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint8_t buf[8192];
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		uint8_t attrs[64];
	} req = { 0 };
	struct nlattr *a = (struct nlattr *)req.attrs;
	struct nlmsghdr *h;
	int fd, len;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof(NF_FAMILY_NAME);
	memcpy(a + 1, NF_FAMILY_NAME, sizeof(NF_FAMILY_NAME));
	req.n.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(a->nla_len);
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = 1;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0)
		goto err;
	len = recv(fd, buf, sizeof(buf), 0);
	h = (struct nlmsghdr *)buf;
	if (len < (int)NLMSG_HDRLEN || !NLMSG_OK(h, (unsigned int)len) ||
	    h->nlmsg_type != GENL_ID_CTRL)
		goto err;
	for (a = (struct nlattr *)((uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN);
	     (uint8_t *)a + NLA_HDRLEN <= buf + h->nlmsg_len && a->nla_len >= NLA_HDRLEN;
	     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len))) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID) {
			uint16_t id;

			memcpy(&id, a + 1, 2);
			close(fd);
			return id;
		}
	}
err:
	close(fd);
	return -1;
}

/* ---- replies ------------------------------------------------------------------------------ */

/* Is errno @e one the family or the netlink core may answer with? */
static bool errno_expected(int e)
{
	switch (e) {
	case EINVAL: case ERANGE: case EOPNOTSUPP: case ENOENT: case EEXIST: case ENOSPC:
	case E2BIG: case EPERM: case ENOMEM: case EMSGSIZE: case EBUSY: case ENODEV:
	case ENOBUFS:
		return true;
	}
	return false;
}

static const char *errname(int e)
{
	static const struct { int e; const char *n; } t[] = {
		{ 0, "ok" }, { EINVAL, "EINVAL" }, { ERANGE, "ERANGE" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOENT, "ENOENT" }, { EEXIST, "EEXIST" },
		{ ENOSPC, "ENOSPC" }, { E2BIG, "E2BIG" }, { EPERM, "EPERM" },
		{ ENOMEM, "ENOMEM" }, { EMSGSIZE, "EMSGSIZE" }, { EBUSY, "EBUSY" },
		{ ENODEV, "ENODEV" }, { ENOBUFS, "ENOBUFS" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EIO, "EIO" }, { EAGAIN, "EAGAIN" },
	};
	static __thread char buf[16];
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

/* Check attributes [p, p+len) against set @set; a description of the first problem, or NULL. */
static const char *check_attrs(const uint8_t *p, size_t len, int set, const uint16_t *allowed,
			       unsigned int n_allowed, bool *seed_seen, int depth)
{
	static __thread char why[160];

	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		unsigned int type = a->nla_type & NLA_TYPE_MASK, plen;
		const struct nf_attr *d = spec_attr(set, type);
		const uint8_t *pl = p + NLA_HDRLEN;
		const char *sub;
		unsigned int i;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len) {
			snprintf(why, sizeof(why), "%s: attribute %u length %u of %zu left",
				 nf_sets[set].name, type, a->nla_len, len);
			return why;
		}
		plen = a->nla_len - NLA_HDRLEN;
		if (!d) {
			snprintf(why, sizeof(why), "%s: unknown attribute %u", nf_sets[set].name,
				 type);
			return why;
		}
		if (allowed) {
			for (i = 0; i < n_allowed && allowed[i] != type; i++)
				;
			if (i == n_allowed) {
				snprintf(why, sizeof(why), "attribute %s not in the op's reply",
					 d->name);
				return why;
			}
		}
		if (!strcmp(d->name, "seed") && seed_seen)
			*seed_seen = true;
		switch (d->type) {
		case NF_U8: case NF_U16: case NF_U32: case NF_U64:
		case NF_S8: case NF_S16: case NF_S32: case NF_S64:
			if (plen != type_size(d->type))
				goto badlen;
			break;
		case NF_FLAG:
			if (plen)
				goto badlen;
			break;
		case NF_BINARY:
			if ((d->exact_len && plen != d->exact_len) || plen < d->min_len)
				goto badlen;
			break;
		case NF_STRING:
			if (!plen || pl[plen - 1] || memchr(pl, 0, plen) != pl + plen - 1 ||
			    (d->max_len && plen - 1 > d->max_len))
				goto badlen;
			break;
		case NF_NEST:
			if (depth > 8) {
				snprintf(why, sizeof(why), "nesting too deep");
				return why;
			}
			sub = check_attrs(pl, plen, d->nested, NULL, 0, seed_seen, depth + 1);
			if (sub)
				return sub;
			break;
		case NF_PAD:
			break;
		}
		p += NLA_ALIGN(a->nla_len);
		len = len > (size_t)NLA_ALIGN(a->nla_len) ? len - NLA_ALIGN(a->nla_len) : 0;
		continue;
badlen:
		snprintf(why, sizeof(why), "%s.%s: bad length %u", nf_sets[set].name, d->name,
			 plen);
		return why;
	}
	if (len) {
		snprintf(why, sizeof(why), "%s: %zu trailing bytes", nf_sets[set].name, len);
		return why;
	}
	return NULL;
}

/* The outcome of one request. */
struct pending {
	uint32_t seq;
	const struct nf_op *op;		/* NULL: unknown command */
	bool dump, request, admin, garbage;
	unsigned int cmd;
	uint32_t msglen;		/* as sent (for the bad-attribute offset) */
	bool done, seen;
	int err;
	char msg[200];
	bool offs, miss;
};

static void record(struct worker *w, struct pending *p)
{
	char key[400], m[200];
	const char *s;
	char *d = m;
	const char *opname;
	char cmdbuf[24];

	/* numbers stripped from the extack message */
	for (s = p->msg; *s && d < m + sizeof(m) - 2; s++) {
		if (*s >= '0' && *s <= '9') {
			while (s[1] >= '0' && s[1] <= '9')
				s++;
			*d++ = '#';
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
	if (!p->request) {
		opname = "(not a request)";
	} else if (p->msglen < NLMSG_HDRLEN + GENL_HDRLEN) {
		opname = "(no genl header)";
	} else if (p->op) {
		opname = p->op->name;
	} else {
		snprintf(cmdbuf, sizeof(cmdbuf), "(cmd %s)", p->cmd ? "unknown" : "0");
		opname = cmdbuf;
	}
	snprintf(key, sizeof(key), "%s%s | %s | \"%s\" | offs=%d miss=%d", opname,
		 p->request && p->dump ? " dump" : "", errname(p->err), m, p->offs, p->miss);
	path_count(key);
	pthread_mutex_lock(&res_lock);
	if (p->err)
		n_err++;
	else
		n_ok++;
	pthread_mutex_unlock(&res_lock);
	if (p->err && !errno_expected(p->err))
		anomaly(&n_unexpected, "worker %d: %s: unexpected errno %d (%s) \"%s\"", w->id,
			opname, p->err, strerror(p->err), p->msg);
	if (opt_unpriv && p->request && p->op && p->op->admin && !p->dump && !p->err)
		anomaly(&n_violations, "worker %d: %s succeeded without CAP_NET_ADMIN", w->id,
			opname);
	if (p->request && p->op && p->op->notify && !p->err)
		anomaly(&n_violations, "worker %d: notification %s accepted as a request", w->id,
			opname);
}

/* Parse an NLMSG_ERROR or NLMSG_DONE with extack into @p; false if it does not parse. */
static bool parse_ack(struct worker *w, const struct nlmsghdr *h, struct pending *p, bool done)
{
	const uint8_t *data = NLMSG_DATA(h), *tlv;
	size_t len = h->nlmsg_len - NLMSG_HDRLEN, off;
	int err;

	if (len < sizeof(int))
		return false;
	memcpy(&err, data, sizeof(int));
	if (err > 0)
		return false;
	p->err = -err;
	p->msg[0] = 0;
	p->offs = p->miss = false;
	if (done) {
		off = sizeof(int);
	} else {
		const struct nlmsgerr *e = (const void *)data;

		if (len < sizeof(*e) || e->msg.nlmsg_seq != h->nlmsg_seq)
			return false;
		/* the request follows unless capped (always for a success, or NETLINK_CAP_ACK) */
		if (h->nlmsg_flags & NLM_F_CAPPED) {
			off = sizeof(*e);
		} else {
			if (!err || w->cap_ack || len < sizeof(int) + e->msg.nlmsg_len)
				return false;
			off = NLMSG_ALIGN(sizeof(int) + e->msg.nlmsg_len);
		}
	}
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return true;
	if (off > len)
		return false;
	tlv = data + off;
	len -= off;
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)tlv;
		unsigned int plen;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return false;
		plen = a->nla_len - NLA_HDRLEN;
		switch (a->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			if (!plen || memchr(tlv + NLA_HDRLEN, 0, plen) == NULL)
				return false;
			snprintf(p->msg, sizeof(p->msg), "%s", (const char *)(tlv + NLA_HDRLEN));
			break;
		case NLMSGERR_ATTR_OFFS: {
			uint32_t o;

			if (plen != 4)
				return false;
			memcpy(&o, tlv + NLA_HDRLEN, 4);
			if (p->msglen && o >= p->msglen)
				return false;
			p->offs = true;
			break;
		}
		case NLMSGERR_ATTR_MISS_TYPE:
		case NLMSGERR_ATTR_MISS_NEST:
			if (plen != 4)
				return false;
			p->miss = true;
			break;
		case NLMSGERR_ATTR_POLICY:
			break;
		default:
			break;
		}
		tlv += NLA_ALIGN(a->nla_len);
		len = len > (size_t)NLA_ALIGN(a->nla_len) ? len - NLA_ALIGN(a->nla_len) : 0;
	}
	return !len;
}

#define PEND_MAX 16

/*
 * Read until every pending request is answered (or known to get no answer: it is before the
 * sync marker @sync_seq, which is always answered). Messages of other sequence numbers (an
 * abandoned dump) are checked and dropped. Returns false on a timeout or a socket error.
 */
static bool collect(struct worker *w, struct pending *pend, unsigned int np, uint32_t sync_seq,
		    int max_reads)
{
	bool synced = !sync_seq;
	unsigned int reads = 0;

	for (;;) {
		struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
		unsigned int i, left = 0;
		struct nlmsghdr *h;
		ssize_t len;

		for (i = 0; i < np; i++)
			left += !pend[i].done;
		if (synced && !left)
			return true;
		if (max_reads >= 0 && reads >= (unsigned int)max_reads)
			return true;
		if (poll(&pfd, 1, REPLY_TIMEOUT_MS) <= 0) {
			anomaly(&n_timeouts, "worker %d: no reply in %d ms (%u pending, sync %s)",
				w->id, REPLY_TIMEOUT_MS, left, synced ? "seen" : "not seen");
			return false;
		}
		len = recv(w->fd, w->ibuf, w->rcvlen, MSG_TRUNC);
		reads++;
		if (len < 0) {
			if (errno == ENOBUFS || errno == EINTR || errno == EAGAIN)
				continue;
			anomaly(&n_unparseable, "worker %d: recv: %s", w->id, strerror(errno));
			return false;
		}
		if (len > (ssize_t)w->rcvlen) {
			anomaly(&n_unparseable, "worker %d: reply of %zd bytes truncated", w->id,
				len);
			return false;
		}
		for (h = (struct nlmsghdr *)w->ibuf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			struct pending *p = NULL, scratch = { 0 };
			bool ok = true;
			const char *why = "does not parse";

			for (i = 0; i < np; i++)
				if (pend[i].seq == h->nlmsg_seq)
					p = &pend[i];
			if (p)
				p->seen = true;
			if (h->nlmsg_pid != w->portid) {
				anomaly(&n_unparseable, "worker %d: reply to portid %u, not %u",
					w->id, h->nlmsg_pid, w->portid);
				continue;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				if (sync_seq && h->nlmsg_seq == sync_seq) {
					synced = true;
					/*
					 * Everything before the marker was answered or never will
					 * be, but for the rest of dumps that started.
					 */
					for (i = 0; i < np; i++) {
						if (!pend[i].done && !(pend[i].dump && pend[i].seen)) {
							pend[i].done = true;
							pend[i].err = -1;
						}
					}
					continue;
				}
				ok = parse_ack(w, h, p ? p : &scratch, false);
				if (p && ok) {
					p->done = true;
					if (p->dump && p->request && !p->err)
						anomaly(&n_unparseable,
							"worker %d: %s dump: ack instead of done",
							w->id, p->op ? p->op->name : "?");
				}
			} else if (h->nlmsg_type == NLMSG_DONE) {
				ok = parse_ack(w, h, p ? p : &scratch, true);
				if (p && ok)
					p->done = true;
				if (p && !p->dump)
					ok = false, why = "NLMSG_DONE to a do request";
			} else if (h->nlmsg_type == family_id) {
				const struct genlmsghdr *gh = NLMSG_DATA(h);
				const struct nf_op *op;
				bool seed = false;
				const char *bad;
				bool is_dump;

				if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
					why = "short genl header";
					ok = false;
					goto check;
				}
				op = op_by_cmd(gh->cmd);
				is_dump = h->nlmsg_flags & NLM_F_MULTI;
				if (!op || (is_dump ? !op->n_dump_reply : !op->n_do_reply)) {
					why = "reply with a command that has no reply";
					ok = false;
					goto check;
				}
				if (p && p->op && p->op != op) {
					why = "reply with another command";
					ok = false;
					goto check;
				}
				bad = check_attrs((const uint8_t *)gh + GENL_HDRLEN,
						  h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, op->set,
						  is_dump ? op->dump_reply : op->do_reply,
						  is_dump ? op->n_dump_reply : op->n_do_reply, &seed,
						  0);
				if (bad) {
					anomaly(&n_unparseable, "worker %d: %s reply: %s", w->id,
						op->name, bad);
					continue;
				}
				if (seed && opt_unpriv)
					anomaly(&n_violations,
						"worker %d: %s reply shows a seed without CAP_NET_ADMIN",
						w->id, op->name);
				continue;
			} else {
				ok = false;
				why = "unexpected message type";
			}
check:
			if (!ok)
				anomaly(&n_unparseable, "worker %d: seq %u type %u: %s", w->id,
					h->nlmsg_seq, h->nlmsg_type, why);
		}
		if (len) {
			anomaly(&n_unparseable, "worker %d: %zd bytes after the last message",
				w->id, len);
			return false;
		}
	}
}

/* ---- one round -------------------------------------------------------------------------- */

static void reconnect(struct worker *w)
{
	close(w->fd);
	w->fd = nl_open(w);
	if (w->fd < 0) {
		perror("nlfuzz: socket");
		exit(2);
	}
	pthread_mutex_lock(&res_lock);
	n_reconnects++;
	pthread_mutex_unlock(&res_lock);
}

/* Choose an op, build its request tree, maybe mutate it. */
static const struct nf_op *pick_op(struct worker *w, bool *dump, unsigned int *cmd)
{
	struct rng *r = &w->r;
	static const char *const weighted[] = {
		"service-new", "service-new", "service-new", "service-set", "service-set",
		"service-del", "service-get", "backend-new", "backend-new", "backend-new",
		"backend-set", "backend-set", "backend-del", "backend-get", "stats-get",
		"table-get", "config-get", "config-set", "service-get", "backend-get",
		"stats-get",
	};
	const struct nf_op *op;

	if (one_in(r, 2000)) {
		/* rare: the last service going unregisters the hooks (a grace period) */
		op = op_by_name("service-flush");
	} else if (one_in(r, 12)) {
		/* any command number, notifications and unknown ones included */
		*cmd = below(r, 4) ? below(r, NF_NOPS + 3) : rnd(r) & 0xff;
		op = op_by_cmd(*cmd);
		*dump = op && op->has_dump ? below(r, 2) : one_in(r, 8);
		return op;
	} else {
		op = op_by_name(weighted[below(r, sizeof(weighted) / sizeof(weighted[0]))]);
	}
	*cmd = op->cmd;
	*dump = op->has_dump && (!op->has_do || below(r, 3) == 0);
	return op;
}

static uint16_t pick_flags(struct rng *r, bool dump)
{
	uint16_t f = NLM_F_REQUEST | NLM_F_ACK;

	if (dump)
		f = NLM_F_REQUEST | NLM_F_DUMP | (below(r, 2) ? NLM_F_ACK : 0);
	if (one_in(r, 10)) {
		/* random flags: replace, excl, create, append, root, match, atomic, echo... */
		f = rnd(r) & 0xffff;
		if (below(r, 4))
			f |= NLM_F_REQUEST;
	} else if (one_in(r, 8)) {
		f &= ~NLM_F_ACK;
	}
	return f;
}

struct built {
	size_t len;			/* bytes of this message in obuf */
	bool lie;			/* the datagram stops the kernel's parsing here */
};

/* Build one message at w->obuf + off; its pending entry in @p. */
static struct built build_msg(struct worker *w, size_t off, struct pending *p)
{
	struct rng *r = &w->r;
	struct built b = { 0 };
	struct nlmsghdr *h = (struct nlmsghdr *)(w->obuf + off);
	struct genlmsghdr *gh;
	struct node root = { 0 };
	struct out o;
	const struct nf_op *op;
	unsigned int cmd = 0, i, nmut;
	bool dump = false;
	size_t total;

	op = pick_op(w, &dump, &cmd);
	w->g.garbage = below(r, 100) < 55;
	if (op && !op->notify)
		sensible(&w->g, op, dump, &root);
	else
		random_attrs(&w->g, &root, NF_ROOT_SET, 3);
	if (w->g.garbage) {
		nmut = 1 + (one_in(r, 4) ? below(r, 4) : 0);
		for (i = 0; i < nmut; i++)
			mutate_tree(&w->g, &root);
	}
	o.p = (uint8_t *)h + NLMSG_HDRLEN + GENL_HDRLEN;
	o.len = 0;
	o.cap = MSG_MAX - NLMSG_HDRLEN - GENL_HDRLEN;
	if (!ser(&o, root.kids)) {
		/* too large: send what fits */
		o.len = o.len > o.cap ? o.cap : o.len;
	}
	node_free(root.kids);

	memset(h, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	gh = NLMSG_DATA(h);
	total = NLMSG_HDRLEN + GENL_HDRLEN + o.len;
	h->nlmsg_type = family_id;
	h->nlmsg_flags = w->g.garbage ? pick_flags(r, dump) :
			 NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	h->nlmsg_seq = ++w->seq;
	h->nlmsg_pid = one_in(r, 50) ? rnd(r) : 0;
	gh->cmd = cmd;
	gh->version = one_in(r, 30) ? rnd(r) : NF_FAMILY_VERSION;
	gh->reserved = one_in(r, 30) ? rnd(r) : 0;
	h->nlmsg_len = total;

	if (w->g.garbage && one_in(r, 12)) {
		/* truncations and length lies */
		switch (below(r, 5)) {
		case 0:	/* message cut inside its header or attributes, length honest */
			total = below(r, total + 1);
			if (total >= 4)
				h->nlmsg_len = total;
			else
				b.lie = true;
			if (total < NLMSG_HDRLEN)
				b.lie = true;
			break;
		case 1:	/* nlmsg_len beyond the datagram */
			h->nlmsg_len = total + 1 + below(r, 1000);
			b.lie = true;
			break;
		case 2:	/* nlmsg_len shorter than the attributes: a cut attribute */
			if (total > NLMSG_HDRLEN + GENL_HDRLEN + 1)
				h->nlmsg_len = total - 1 - below(r, total - NLMSG_HDRLEN - GENL_HDRLEN - 1);
			total = h->nlmsg_len;
			break;
		case 3:	/* no genl header */
			h->nlmsg_len = NLMSG_HDRLEN + below(r, GENL_HDRLEN);
			total = h->nlmsg_len;
			break;
		default: /* an attribute length lie inside */
			if (o.len >= NLA_HDRLEN) {
				struct nlattr *a = (struct nlattr *)o.p;

				a->nla_len = below(r, 2) ? below(r, NLA_HDRLEN) :
					     o.len + 1 + below(r, 100);
			}
			break;
		}
	}
	/* pending entry */
	memset(p, 0, sizeof(*p));
	p->seq = h->nlmsg_seq;
	p->op = op;
	p->cmd = cmd;
	p->request = (h->nlmsg_flags & NLM_F_REQUEST) && !b.lie;
	p->dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	p->msglen = h->nlmsg_len;
	p->garbage = w->g.garbage;
	b.len = NLMSG_ALIGN(total);
	if (b.len > total)
		memset((uint8_t *)h + total, 0, b.len - total);
	return b;
}

/* A NLMSG_NOOP request with NLM_F_ACK: the kernel acks it without looking further. */
static size_t put_sync(struct worker *w, size_t off, uint32_t *seq)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(w->obuf + off);

	memset(h, 0, NLMSG_HDRLEN);
	h->nlmsg_len = NLMSG_HDRLEN;
	h->nlmsg_type = NLMSG_NOOP;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = *seq = ++w->seq;
	return NLMSG_HDRLEN;
}

static bool send_buf(struct worker *w, size_t off, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(w->fd, w->obuf + off, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EMSGSIZE || errno == ENOBUFS || errno == ENOMEM || errno == EINVAL ||
		    (errno == ENODATA && !len))	/* a message cut to nothing */
			return false;
		anomaly(&n_unexpected, "worker %d: send: %s", w->id, strerror(errno));
		return false;
	}
	return true;
}

static void finish(struct worker *w, struct pending *pend, unsigned int np)
{
	unsigned int i;

	for (i = 0; i < np; i++) {
		if (pend[i].err == -1 || !pend[i].done) {
			pthread_mutex_lock(&res_lock);
			n_noreply++;
			pthread_mutex_unlock(&res_lock);
			continue;
		}
		record(w, &pend[i]);
	}
}

static const char *const dump_ops[] = { "service-get", "backend-get", "stats-get" };

/* A plain dump request for @op at w->obuf + @off; its length. */
static size_t put_dump(struct worker *w, size_t off, const struct nf_op *op, struct pending *p)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(w->obuf + off);
	struct genlmsghdr *gh = NLMSG_DATA(h);

	memset(h, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	h->nlmsg_type = family_id;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = ++w->seq;
	gh->cmd = op->cmd;
	gh->version = NF_FAMILY_VERSION;
	memset(p, 0, sizeof(*p));
	p->seq = h->nlmsg_seq;
	p->op = op;
	p->dump = p->request = true;
	p->msglen = h->nlmsg_len;
	return h->nlmsg_len;
}

static void count_sent(struct worker *w, unsigned int n, bool cut)
{
	w->sent += n;
	pthread_mutex_lock(&res_lock);
	n_msgs += n;
	n_dumps_cut += cut;
	pthread_mutex_unlock(&res_lock);
}

/*
 * An interrupted dump: ask, read a part (or nothing), then leave it: close the socket, or ask
 * for another dump (EBUSY while the first runs), or send any request. The rest of the first
 * dump is read (and checked) by later rounds, or dropped with the socket.
 */
static void cut_dump(struct worker *w)
{
	struct rng *r = &w->r;
	struct pending p, q;
	uint32_t sync;
	size_t len;

	len = put_dump(w, 0, op_by_name(dump_ops[below(r, 3)]), &p);
	if (!send_buf(w, 0, len))
		return;
	count_sent(w, 1, true);
	collect(w, &p, 1, 0, below(r, 3));
	if (p.done) {
		record(w, &p);
		return;
	}
	switch (below(r, 3)) {
	case 0:
		reconnect(w);
		return;
	case 1:
		len = put_dump(w, 0, op_by_name(dump_ops[below(r, 3)]), &q);
		len += put_sync(w, len, &sync);
		if (!send_buf(w, 0, len))
			return;
		break;
	default: {
		struct built b = build_msg(w, 0, &q);

		len = b.len;
		if (!b.lie)
			len += put_sync(w, len, &sync);
		if (!send_buf(w, 0, len))
			return;
		if (b.lie) {
			put_sync(w, 0, &sync);
			send_buf(w, 0, NLMSG_HDRLEN);
		}
		break;
	}
	}
	count_sent(w, 1, false);
	if (!collect(w, &q, 1, sync, -1)) {
		reconnect(w);
		return;
	}
	finish(w, &q, 1);
}

/* --profile: time spent per operation and outcome, from rounds of a single message. */
struct prof {
	const struct nf_op *op;
	bool dump, ok;
	double t;
	unsigned long n;
};
static struct prof profs[4 * NF_NOPS + 4];

static void profile(const struct pending *p, double t)
{
	unsigned int i;

	pthread_mutex_lock(&res_lock);
	for (i = 0; i < sizeof(profs) / sizeof(profs[0]); i++) {
		struct prof *x = &profs[i];

		if (!x->n || (x->op == p->op && x->dump == p->dump && x->ok == !p->err)) {
			x->op = p->op;
			x->dump = p->dump;
			x->ok = !p->err;
			x->t += t;
			x->n++;
			break;
		}
	}
	pthread_mutex_unlock(&res_lock);
}

static void round_once(struct worker *w)
{
	double t0 = opt_profile ? now() : 0;
	struct rng *r = &w->r;
	struct pending pend[PEND_MAX];
	unsigned int np = 0, nb, i;
	size_t off = 0;
	uint32_t sync = 0;
	bool lie = false;

	if (one_in(r, 60)) {
		cut_dump(w);
		return;
	}
	nb = one_in(r, 4) ? 2 + below(r, 4) : 1;
	if (nb > w->quota - w->sent)
		nb = w->quota - w->sent;
	for (i = 0; i < nb && !lie; i++) {
		struct built b;

		if (off + MSG_MAX + 64 > BUF_SZ)
			break;
		if (w->g.huge_left)
			w->g.huge_left--;
		b = build_msg(w, off, &pend[np]);
		off += b.len;
		np++;
		lie = b.lie;
	}
	if (!lie)
		off += put_sync(w, off, &sync);
	if (!send_buf(w, 0, off)) {
		/* refused whole (too large): counted as sent, no reply expected */
		w->sent += np;
		pthread_mutex_lock(&res_lock);
		n_msgs += np;
		n_noreply += np;
		pthread_mutex_unlock(&res_lock);
		return;
	}
	if (lie) {
		/* the kernel stopped at the lie: the marker in a datagram of its own */
		put_sync(w, 0, &sync);
		if (!send_buf(w, 0, NLMSG_HDRLEN))
			return;
	}
	w->sent += np;
	pthread_mutex_lock(&res_lock);
	n_msgs += np;
	pthread_mutex_unlock(&res_lock);
	if (!collect(w, pend, np, sync, -1)) {
		reconnect(w);
		return;
	}
	finish(w, pend, np);
	if (opt_profile && np == 1 && pend[0].request && pend[0].err != -1)
		profile(&pend[0], now() - t0);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->fd = nl_open(w);
	if (w->fd < 0) {
		perror("nlfuzz: socket");
		exit(2);
	}
	while (w->sent < w->quota) {
		if (opt_duration && now() > w->deadline)
			break;
		round_once(w);
	}
	close(w->fd);
	return NULL;
}

/* ---- main -------------------------------------------------------------------------------- */

static int cmp_path(const void *a, const void *b)
{
	const struct path *x = *(struct path *const *)a, *y = *(struct path *const *)b;

	return strcmp(x->key, y->key);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nlfuzz [--seed S] [--msgs N] [--workers W] [--duration SECONDS] [--unpriv]\n"
		"              [--huge-every N] [--no-paths] [--profile] [--verbose]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, NULL, 's' }, { "msgs", 1, NULL, 'n' }, { "workers", 1, NULL, 'w' },
		{ "duration", 1, NULL, 'd' }, { "unpriv", 0, NULL, 'u' },
		{ "huge-every", 1, NULL, 'H' }, { "no-paths", 0, NULL, 'P' },
		{ "verbose", 0, NULL, 'v' }, { "profile", 0, NULL, 'p' }, { "help", 0, NULL, 'h' }, { 0 },
	};
	struct worker *ws;
	pthread_t *th;
	struct path **all;
	unsigned long np = 0, ndist = 0;
	double el;
	unsigned int i;
	int c, fid;

	while ((c = getopt_long(argc, argv, "s:n:w:d:uH:Pvph", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt_seed = strtoull(optarg, NULL, 0); break;
		case 'n': opt_msgs = strtoul(optarg, NULL, 0); break;
		case 'w': opt_workers = strtoul(optarg, NULL, 0); break;
		case 'd': opt_duration = strtod(optarg, NULL); break;
		case 'u': opt_unpriv = true; break;
		case 'H': opt_huge_every = strtoul(optarg, NULL, 0); break;
		case 'P': opt_paths = false; break;
		case 'v': opt_verbose = true; break;
		case 'p': opt_profile = true; break;
		default: usage();
		}
	}
	if (optind != argc || !opt_workers || opt_workers > 64)
		usage();
	S_ROOT = NF_ROOT_SET;
	S_SVC = set_find("service");
	S_BE = set_find("backend");
	S_CFG = set_find("config");
	A_SERVICE = spec_find(S_ROOT, "service");
	A_BACKEND = spec_find(S_ROOT, "backend");
	A_CONFIG = spec_find(S_ROOT, "config");
	if (S_SVC < 0 || S_BE < 0 || S_CFG < 0 || A_SERVICE < 0 || A_BACKEND < 0 ||
	    A_CONFIG < 0) {
		fprintf(stderr, "nlfuzz: the spec lacks the service/backend/config sets\n");
		return 2;
	}
	fid = resolve_family();
	if (fid < 0) {
		fprintf(stderr, "nlfuzz: family %s not found (module not loaded?)\n",
			NF_FAMILY_NAME);
		return 2;
	}
	family_id = fid;

	ws = calloc(opt_workers, sizeof(*ws));
	th = calloc(opt_workers, sizeof(*th));
	t_start = now();
	for (i = 0; i < opt_workers; i++) {
		struct worker *w = &ws[i];

		w->id = i;
		rng_init(&w->r, opt_seed * 0x100000001b3ULL + i);
		w->g.r = &w->r;
		w->g.huge_left = opt_huge_every / 2 + below(&w->r, opt_huge_every + 1);
		w->quota = opt_msgs / opt_workers + (i < opt_msgs % opt_workers);
		w->obuf = malloc(BUF_SZ);
		w->ibuf = malloc(BUF_SZ);
		w->deadline = t_start + opt_duration;
		if (pthread_create(&th[i], NULL, worker_main, w)) {
			perror("nlfuzz: pthread_create");
			return 2;
		}
	}
	for (i = 0; i < opt_workers; i++)
		pthread_join(th[i], NULL);
	el = now() - t_start;

	for (i = 0; i < PATH_BUCKETS; i++)
		for (struct path *e = paths[i]; e; e = e->next)
			np++;
	all = calloc(np + 1, sizeof(*all));
	np = 0;
	for (i = 0; i < PATH_BUCKETS; i++)
		for (struct path *e = paths[i]; e; e = e->next)
			all[np++] = e;
	qsort(all, np, sizeof(*all), cmp_path);
	for (i = 0; i < np; i++) {
		bool is_err = !strstr(all[i]->key, " | ok | ");

		ndist += is_err;
		if (opt_paths)
			printf("# path %8lu  %s\n", all[i]->n, all[i]->key);
	}
	for (i = 0; opt_profile && i < sizeof(profs) / sizeof(profs[0]) && profs[i].n; i++)
		printf("# time %8.2f s %7lu x %8.3f ms  %s%s %s\n", profs[i].t, profs[i].n,
		       1e3 * profs[i].t / profs[i].n, profs[i].op ? profs[i].op->name : "(cmd ?)",
		       profs[i].dump ? " dump" : "", profs[i].ok ? "ok" : "error");
	for (i = 0; i < n_anom_kept; i++)
		printf("# anomaly: %s\n", anomalies[i]);
	printf("# nlfuzz: seed %llu, %u workers%s, %.1f s, %lu reconnects, %lu dumps cut, "
	       "%lu without reply, %lu table-sizes above 65537\n", (unsigned long long)opt_seed,
	       opt_workers, opt_unpriv ? " (unprivileged)" : "", el, n_reconnects, n_dumps_cut,
	       n_noreply, n_huge);
	printf("nlfuzz: msgs=%lu rate=%.0f/s paths=%lu ok=%lu errors=%lu anomalies=%lu "
	       "unexpected-errno=%lu unparseable=%lu timeouts=%lu violations=%lu\n",
	       n_msgs, el > 0 ? n_msgs / el : 0.0, ndist, n_ok, n_err,
	       n_unexpected + n_unparseable + n_timeouts + n_violations, n_unexpected,
	       n_unparseable, n_timeouts, n_violations);
	return n_unexpected + n_unparseable + n_timeouts + n_violations ? 1 : 0;
}
