// SPDX-License-Identifier: GPL-2.0
/*
 * failnth: fault injection into kmaglev's configuration requests (selftests/net/faults.sh).
 *
 * For every mutating request of the kmaglev family (scenarios below, each a request on a
 * configuration where it does real work), fail the Nth allocation the request makes, for
 * N = 1, 2, ... until a run completes without reaching an Nth allocation:
 *
 *   write N to /proc/thread-self/fail-nth, sendmsg() the request (genetlink runs the handler
 *   in this thread, inside sendmsg), read fail-nth back (0: the fault was injected), write 0.
 *
 * Which allocations count is up to the caller's debugfs setup: faults.sh points failslab's
 * and fail_page_alloc's stack-trace filter at kmaglev's text, so that only allocations with a
 * kmaglev frame on the stack are counted and failed (the netlink core's own are not ours).
 *
 * After each injected fault:
 *  - the request failed with an errno and an extack message, and the configuration (every
 *    attribute of the config, service and backend dumps, each table's digest, generation and
 *    size) is exactly what it was before; kmaglev's object counters (debugfs) come back to
 *    what they were once RCU has run; with --cli, `kmaglev service show`, `table show` and
 *    `save` print the same as before (checked at every Kth fault, --cli-every: the CLI costs
 *    three program starts, the dumps above hold the same information);
 *  - or the request succeeded anyway (kmaglev does without that allocation: a fallback), and
 *    then the configuration is the one the request makes without faults.
 * The last run, which injected nothing, must succeed and give that configuration too.
 *
 * Modes: "once" fails the Nth allocation only. "sticky" fails the Nth and every later one
 * of the request (fail-nth plus probability 100 for this task, /proc/thread-self/make-it-fail:
 * faults.sh sets task-filter and probability): it reaches what "once" cannot, such as a
 * kvmalloc() whose vmalloc() fallback fails too, and error paths that allocate.
 *
 * Output: "# ..." diagnostics, and one line per scenario and mode:
 *   RESULT pass|fail SCENARIO MODE sites=N faults=N errors=N tolerated=N errnos=E:n,...
 * --list-ops prints the spec operations the scenarios cover, one per line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/kmaglev.h>
#include <libmnl/libmnl.h>

#include "lib/nl.h"
#include "lib/schema.h"

#define REQ_BUF		(1 << 20)
#define OBJECTS		"/sys/kernel/debug/kmaglev/objects"

static struct kmg_nl nl;
static char *reqbuf;
static int nth_fd = -1, mif_fd = -1;
static int nbe = 200;			/* backends of the big services */
static unsigned int max_n = 100000;
static const char *cli;
static unsigned int cli_every = 8;	/* compare the CLI's output at every Kth fault */
static bool verbose;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("failnth: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- text buffers ------------------------------------------------------------------------ */

struct sb {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			die("vsnprintf");
		if (b->s && (size_t)n < room) {
			b->len += n;
			return;
		}
		b->cap = (b->cap ? b->cap : 4096) * 2 + n;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			die("out of memory");
	}
}

static void sb_reset(struct sb *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

static void sb_free(struct sb *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static const char *sb_str(struct sb *b)
{
	if (!b->s)
		sb_printf(b, "%s", "");
	return b->s;
}

/* Show where two snapshots differ: the first differing line of each. */
static void sb_diff(const char *what, struct sb *a, struct sb *b)
{
	const char *p = sb_str(a), *q = sb_str(b);
	const char *la = p, *lb = q;

	while (*p && *p == *q) {
		if (*p == '\n') {
			la = p + 1;
			lb = q + 1;
		}
		p++;
		q++;
	}
	printf("# %s differs:\n#   before: %.*s\n#   after:  %.*s\n", what,
	       (int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
}

/* ---- requests ---------------------------------------------------------------------------- */

static struct nlmsghdr *req(uint8_t cmd, uint16_t flags)
{
	return kmg_nl_msg(&nl, reqbuf, cmd, flags);
}

struct svc {
	const char *addr;
	uint8_t proto;
	uint16_t port;
};

static const struct svc SVC_A = { "192.0.2.1", IPPROTO_TCP, 80 };	/* big, with conns */
static const struct svc SVC_B = { "192.0.2.1", IPPROTO_UDP, 0 };	/* migrating, conns */
static const struct svc SVC_C = { "2001:db8::1", IPPROTO_TCP, 443 };	/* IPv6, GRE */
static const struct svc SVC_D = { "198.51.100.1", IPPROTO_UDP, 53 };	/* alone on its VIP */
static const struct svc SVC_E = { "192.0.2.1", IPPROTO_TCP, 8080 };	/* new, shares A's VIP */
static const struct svc SVC_F = { "2001:db8::2", IPPROTO_UDP, 53 };	/* new, its own VIP */

static void put_addr(struct nlmsghdr *nlh, uint16_t a4, uint16_t a6, const char *s)
{
	struct in6_addr in6;
	struct in_addr in;

	if (inet_pton(AF_INET, s, &in) == 1)
		mnl_attr_put(nlh, a4, 4, &in);
	else if (inet_pton(AF_INET6, s, &in6) == 1)
		mnl_attr_put(nlh, a6, 16, &in6);
	else
		die("bad address %s", s);
}

/* Open the service nest with the key of @s; the caller ends it. */
static struct nlattr *put_svc(struct nlmsghdr *nlh, const struct svc *s)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_addr(nlh, KMAGLEV_A_SERVICE_ADDR4, KMAGLEV_A_SERVICE_ADDR6, s->addr);
	mnl_attr_put_u8(nlh, KMAGLEV_A_SERVICE_PROTO, s->proto);
	mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_PORT, s->port);
	return n;
}

static void put_svc_key(struct nlmsghdr *nlh, const struct svc *s)
{
	mnl_attr_nest_end(nlh, put_svc(nlh, s));
}

/* Backend @i of address block @blk: 10.<blk>.x.y, or 2001:db8:<blk>::<i + 1> for v6. */
static void be_addr(char *buf, size_t len, bool v6, int blk, int i)
{
	if (v6)
		snprintf(buf, len, "2001:db8:%x::%x", blk, i + 1);
	else
		snprintf(buf, len, "10.%d.%d.%d", blk, i / 250, i % 250 + 1);
}

struct be_opt {
	uint32_t weight;		/* 0: not given */
	int state;			/* -1: not given */
	int encap;			/* -1: not given */
	int64_t gre_key;		/* -1: not given */
	uint32_t max_conns;
};

#define BE_DEFAULT ((struct be_opt){ .weight = 0, .state = -1, .encap = -1, .gre_key = -1 })

static void put_be(struct nlmsghdr *nlh, uint16_t type, bool v6, int blk, int i,
		   struct be_opt o)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);
	char a[64];

	be_addr(a, sizeof(a), v6, blk, i);
	put_addr(nlh, KMAGLEV_A_BACKEND_ADDR4, KMAGLEV_A_BACKEND_ADDR6, a);
	if (o.weight)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, o.weight);
	if (o.state >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, o.state);
	if (o.encap >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ENCAP, o.encap);
	if (o.gre_key >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_GRE_KEY, o.gre_key);
	if (o.max_conns)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_MAX_CONNS, o.max_conns);
	mnl_attr_nest_end(nlh, n);
}

/* Backends [from, to) of block @blk as top-level backend attributes (a whole set). */
static void put_bes(struct nlmsghdr *nlh, bool v6, int blk, int from, int to, struct be_opt o)
{
	for (int i = from; i < to; i++)
		put_be(nlh, KMAGLEV_A_BACKEND, v6, blk, i, o);
}

/* A request that must succeed (setup): on error, say what and stop. */
static void must(struct nlmsghdr *nlh, const char *what)
{
	char buf[512];
	int err;

	if (nlh->nlmsg_len > REQ_BUF)
		die("%s: request too big", what);
	err = kmg_nl_talk(&nl, nlh, NULL, NULL);
	if (err)
		die("%s: %s", what, kmg_nl_errstr(&nl, nlh, err, &kmg_schema_kmaglev, buf,
						   sizeof(buf)));
}

/* ---- fault injection --------------------------------------------------------------------- */

static void wr(int fd, const char *what, unsigned long v)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "%lu", v);

	if (pwrite(fd, s, n, 0) != n)
		die("write %s: %s", what, strerror(errno));
}

static unsigned long rd(int fd, const char *what)
{
	char s[32];
	ssize_t n = pread(fd, s, sizeof(s) - 1, 0);

	if (n <= 0)
		die("read %s: %s", what, n < 0 ? strerror(errno) : "empty");
	s[n] = '\0';
	return strtoul(s, NULL, 10);
}

struct result {
	int err;			/* 0 or -errno */
	bool injected;
	char msg[256];			/* extack message */
};

/*
 * Send @nlh with the @n-th allocation failing (0: none), and, @sticky, every later one.
 * The handler runs inside sendmsg(): fail-nth is written right before it and read right
 * after, in this thread.
 */
static void run_op(struct nlmsghdr *nlh, unsigned int n, bool sticky, struct result *r)
{
	unsigned int portid = mnl_socket_get_portid(nl.sk);
	int fd = mnl_socket_get_fd(nl.sk);
	static char *buf;
	ssize_t len;
	int ret;

	if (!buf && !(buf = malloc(1 << 17)))
		die("out of memory");
	memset(r, 0, sizeof(*r));
	kmg_nl_reset_err(&nl);
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (n) {
		if (sticky)
			wr(mif_fd, "make-it-fail", 1);
		wr(nth_fd, "fail-nth", n);
	}
	len = send(fd, nlh, nlh->nlmsg_len, 0);
	if (n) {
		r->injected = rd(nth_fd, "fail-nth") == 0;
		wr(nth_fd, "fail-nth", 0);
		if (sticky)
			wr(mif_fd, "make-it-fail", 0);
	}
	if (len < 0) {
		/* the netlink core failed before kmaglev ran (not with the stack filter) */
		r->err = -errno;
		return;
	}
	do {
		len = recv(fd, buf, 1 << 17, 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			/* the ack was lost (ENOBUFS): not with the stack filter */
			r->err = -errno;
			return;
		}
		ret = kmg_nl_process(&nl, buf, len, nlh->nlmsg_seq, portid, NULL, NULL);
	} while (ret > 0);
	r->err = ret;
	snprintf(r->msg, sizeof(r->msg), "%s", nl.errmsg);
}

/* ---- snapshots --------------------------------------------------------------------------- */

enum { STRICT, LOOSE };

/* Attributes left out of every snapshot (they change with time), and of loose ones. */
static bool masked(const char *set, const char *name, int level)
{
	static const char *const always[] = {
		"service.window-left-ms", "service.ramp-now", "config.quotas", "config.load",
		"config.shedding", "config.shed-transitions", NULL,
	};
	/* a configuration rebuilt from scratch: new service ids, new connection entries */
	static const char *const loose[] = {
		"service.id", "backend.stats", "config.conns", NULL,
	};
	char full[96];
	int i;

	snprintf(full, sizeof(full), "%s.%s", set, name);
	for (i = 0; always[i]; i++)
		if (!strcmp(full, always[i]))
			return true;
	for (i = 0; level == LOOSE && loose[i]; i++)
		if (!strcmp(full, loose[i]))
			return true;
	return false;
}

static void pr_attr(struct sb *o, const struct nlattr *a, const struct kmg_attr_set *set,
		    int level, const char *skip);

static void pr_nest(struct sb *o, const struct nlattr *nest, const struct kmg_attr_set *set,
		    int level, const char *skip)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		pr_attr(o, a, set, level, skip);
}

/* One attribute as " name=value", nests as " name{ ... }"; @skip: a name to leave out. */
static void pr_attr(struct sb *o, const struct nlattr *a, const struct kmg_attr_set *set,
		    int level, const char *skip)
{
	uint16_t type = mnl_attr_get_type(a);
	const struct kmg_attr_desc *d = kmg_attr_desc(set, type);
	const uint8_t *p = mnl_attr_get_payload(a);
	uint16_t len = mnl_attr_get_payload_len(a);
	int i;

	if (!d) {
		sb_printf(o, " ?%u", type);
		return;
	}
	if (masked(set->name, d->name, level) || (skip && !strcmp(d->name, skip)))
		return;
	switch (d->type) {
	case KMG_AT_U8:
		sb_printf(o, " %s=%u", d->name, mnl_attr_get_u8(a));
		break;
	case KMG_AT_U16:
		sb_printf(o, " %s=%u", d->name, mnl_attr_get_u16(a));
		break;
	case KMG_AT_U32:
		sb_printf(o, " %s=%" PRIu32, d->name, mnl_attr_get_u32(a));
		break;
	case KMG_AT_U64:
		sb_printf(o, " %s=%" PRIu64, d->name, mnl_attr_get_u64(a));
		break;
	case KMG_AT_FLAG:
		sb_printf(o, " %s", d->name);
		break;
	case KMG_AT_STRING:
		sb_printf(o, " %s=\"%.*s\"", d->name, (int)strnlen((const char *)p, len), p);
		break;
	case KMG_AT_NEST:
		sb_printf(o, " %s{", d->name);
		pr_nest(o, a, d->nested, level, NULL);
		sb_printf(o, " }");
		break;
	default:
		sb_printf(o, " %s=", d->name);
		for (i = 0; i < len; i++)
			sb_printf(o, "%02x", p[i]);
	}
}

struct dump_ctx {
	struct sb *o;
	const char *line;		/* line prefix */
	int level;
	const char *skip;
	/* service keys seen (the service dump), for the table requests */
	struct nlattr **keys;
	int nkeys;
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	const struct nlattr *a;

	sb_printf(c->o, "%s", c->line);
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		pr_attr(c->o, a, &kmg_schema_kmaglev, c->level, c->skip);
		if (c->keys && mnl_attr_get_type(a) == KMAGLEV_A_SERVICE) {
			struct nlattr *copy = malloc(a->nla_len);

			if (!copy)
				die("out of memory");
			memcpy(copy, a, a->nla_len);
			c->keys = realloc(c->keys, (c->nkeys + 1) * sizeof(*c->keys));
			if (!c->keys)
				die("out of memory");
			c->keys[c->nkeys++] = copy;
		}
	}
	sb_printf(c->o, "\n");
	return MNL_CB_OK;
}

/* A dump or get, retried while a change interrupts it (there should be none). */
static void talk_retry(struct nlmsghdr *nlh, struct dump_ctx *c, size_t mark)
{
	char buf[512];
	int err, tries = 0;

	for (;;) {
		err = kmg_nl_talk(&nl, nlh, dump_cb, c);
		if (err != -EINTR || ++tries > 10)
			break;
		c->o->len = mark;
	}
	if (err)
		die("snapshot: %s", kmg_nl_errstr(&nl, nlh, err, &kmg_schema_kmaglev, buf,
						  sizeof(buf)));
}

/*
 * The configuration as text: config, every service (full), every backend (with slots and
 * counters), and each service's table summary (digest, generation, size, balance).
 */
static void snapshot(struct sb *o, int level)
{
	struct dump_ctx c = { .o = o, .level = level };
	struct nlmsghdr *nlh;
	int i;

	sb_reset(o);
	c.line = "config";
	talk_retry(req(KMAGLEV_CMD_CONFIG_GET, 0), &c, o->len);
	c.line = "\nservice";
	c.keys = NULL;
	c.nkeys = 0;
	{
		struct dump_ctx s = c;

		s.keys = malloc(sizeof(*s.keys));
		talk_retry(req(KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP), &s, o->len);
		c.keys = s.keys;
		c.nkeys = s.nkeys;
	}
	c.line = "backend";
	talk_retry(req(KMAGLEV_CMD_BACKEND_GET, NLM_F_DUMP), &c, o->len);
	c.line = "table";
	c.skip = "backend";	/* per-backend slots: in the backend dump, for every backend */
	{
		struct nlattr **keys = c.keys;
		int nkeys = c.nkeys;

		c.keys = NULL;
		for (i = 0; i < nkeys; i++) {
			const struct nlattr *a;
			struct nlattr *n;

			nlh = req(KMAGLEV_CMD_TABLE_GET, 0);
			n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
			mnl_attr_for_each_nested(a, keys[i])
				if (mnl_attr_get_type(a) == KMAGLEV_A_SERVICE_ID)
					mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ID,
							 mnl_attr_get_u32(a));
			mnl_attr_nest_end(nlh, n);
			talk_retry(nlh, &c, o->len);
			free(keys[i]);
		}
		free(keys);
	}
}

/* kmaglev's live objects (all namespaces): services, backends, tables. */
static bool objects(long v[3])
{
	char line[128];
	FILE *f = fopen(OBJECTS, "r");
	int n = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && n < 3) {
		if (sscanf(line, "services %ld", &v[0]) == 1 || sscanf(line, "backends %ld", &v[1]) == 1 ||
		    sscanf(line, "tables %ld", &v[2]) == 1)
			n++;
	}
	fclose(f);
	return n == 3;
}

/* Wait (RCU frees them) until the object counts are back to @want; false if they are not. */
static bool objects_settle(const long want[3], long got[3])
{
	for (int i = 0; i < 100; i++) {
		if (!objects(got))
			return true;
		if (!memcmp(want, got, 3 * sizeof(long)))
			return true;
		msleep(i < 10 ? 5 : 50);
	}
	return false;
}

/* What the CLI prints: service show, table show, save (without the migration's clock). */
static void cli_snapshot(struct sb *o)
{
	char cmd[1024], line[4096];
	FILE *f;

	sb_reset(o);
	if (!cli)
		return;
	snprintf(cmd, sizeof(cmd),
		 "'%s' service show && '%s' table show && '%s' --show-secrets save", cli, cli, cli);
	f = popen(cmd, "r");
	if (!f)
		die("popen: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p;

		/* "window-left 12.3s" and "ramp-now N" run with the clock */
		for (p = line; (p = strstr(p, "window-left")) || (p = strstr(line, "ramp-now"));) {
			char *end = p + strcspn(p, " ");

			end += strspn(end, " ");
			end += strcspn(end, " \n");
			memmove(p, end, strlen(end) + 1);
		}
		sb_printf(o, "%s", line);
	}
	if (pclose(f))
		die("%s failed", cmd);
}

/* ---- the configurations the requests start from ------------------------------------------- */

enum { ST_EMPTY, ST_BASE, ST_INGRESS };

static void svc_req(uint8_t cmd, const struct svc *s, void (*opts)(struct nlmsghdr *),
		    bool v6, int blk, int n, struct be_opt o, const char *what)
{
	struct nlmsghdr *nlh = req(cmd, 0);
	struct nlattr *sn = put_svc(nlh, s);

	if (opts)
		opts(nlh);
	mnl_attr_nest_end(nlh, sn);
	put_bes(nlh, v6, blk, 0, n, o);
	must(nlh, what);
}

/* (table sizes: big enough for kvmalloc()'s vmalloc() fallback, small enough for KASAN) */
static void opts_a(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 16411);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_FLAGS, KMAGLEV_SERVICE_FLAGS_RESCHED);
	mnl_attr_put_strz(nlh, KMAGLEV_A_SERVICE_OWNER, "failnth");
}

/* B keeps its previous table for a day: a migration is running all along. */
static void opts_b(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 251);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 86400000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CLIENT_RATE, 1000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_HASH, KMAGLEV_HASH_THREE_TUPLE);
}

static void opts_c(struct nlmsghdr *nlh)
{
	static const uint8_t seed[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 4099);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 0);
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, sizeof(seed), seed);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_MAX_CONNS, 100000);
}

static void opts_d(struct nlmsghdr *nlh)
{
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 251);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_FLAGS, KMAGLEV_SERVICE_FLAGS_ECHO |
			 KMAGLEV_SERVICE_FLAGS_DEFRAG);
}

static void config_base(const char *hook_devs)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_CONFIG_SET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);

	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_MAX_SERVICES, 1000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_MAX_BACKENDS, 100000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_CONN_MAX, 100000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, 3600);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, 3600);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, 3600);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_UDP, 3600);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_FLOOD_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_PROBE_MARK_MIN, 0x10000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_PROBE_MARK_MAX, 0x20000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_HOOK,
			 hook_devs ? KMAGLEV_HOOK_INGRESS : KMAGLEV_HOOK_PREROUTING);
	mnl_attr_put_strz(nlh, KMAGLEV_A_CONFIG_INGRESS_DEV, hook_devs ?: "all");
	/* quotas and shedding off, as a new netns has them */
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_CONN_FILL, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_NEW_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_LOAD_LOW, 0);
	mnl_attr_nest_end(nlh, n);
	must(nlh, "config set (baseline)");
}

/* Locally generated flows to a VIP: LOCAL_OUT gives them connection entries. */
static void traffic(const char *vip, int proto, uint16_t port, int nflows)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int i, fd;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, vip, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, vip, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		sl = sizeof(struct sockaddr_in6);
	} else {
		die("bad address %s", vip);
	}
	for (i = 0; i < nflows; i++) {
		uint16_t p = htons(proto == IPPROTO_UDP ? 5000 + i : port);

		if (ss.ss_family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = p;
		else
			((struct sockaddr_in6 *)&ss)->sin6_port = p;
		fd = socket(ss.ss_family, (proto == IPPROTO_UDP ? SOCK_DGRAM : SOCK_STREAM) |
			    SOCK_NONBLOCK, 0);
		if (fd < 0)
			die("socket: %s", strerror(errno));
		/* TCP: the SYN goes out (an entry); closed before any answer, nothing follows */
		if (proto == IPPROTO_UDP)
			sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, sl);
		else
			connect(fd, (struct sockaddr *)&ss, sl);
		close(fd);
	}
}

/* The netns' connection entries, from config-get. */
static int conns_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *c;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == KMAGLEV_A_CONFIG)
			mnl_attr_for_each_nested(c, a)
				if (mnl_attr_get_type(c) == KMAGLEV_A_CONFIG_CONNS)
					*(uint32_t *)data = mnl_attr_get_u32(c);
	return MNL_CB_OK;
}

static uint32_t conns(void)
{
	uint32_t n = 0;

	if (kmg_nl_talk(&nl, req(KMAGLEV_CMD_CONFIG_GET, 0), conns_cb, &n))
		die("config get");
	return n;
}

/* Services whose previous table is still there (a service dump, not a whole snapshot). */
static int prev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *c;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == KMAGLEV_A_SERVICE)
			mnl_attr_for_each_nested(c, a)
				if (mnl_attr_get_type(c) == KMAGLEV_A_SERVICE_PREV_GENERATION)
					(*(int *)data)++;
	return MNL_CB_OK;
}

static int count_prev(void)
{
	int n = 0;

	if (kmg_nl_talk(&nl, req(KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP), prev_cb, &n))
		die("service dump");
	return n;
}

/*
 * A change with window 0 ends its migration in a work item soon after the request: wait
 * (5 s at most) until no more than @want services have a previous table; the number left.
 */
static int prev_settle(int want)
{
	int n = count_prev();

	for (int i = 0; i < 500 && n > want; i++) {
		msleep(10);
		n = count_prev();
	}
	return n;
}

/*
 * Build configuration @st from scratch:
 *  ST_EMPTY    no service (baseline settings);
 *  ST_BASE     A 192.0.2.1:80/tcp, nbe backends, table 16411, with SYN-only entries;
 *              B 192.0.2.1/udp every port, 8 backends, client-rate, a migration running (its
 *              previous table kept a day), with UDP entries;
 *              C [2001:db8::1]:443/tcp, nbe/2 GRE backends, seeded, with entries;
 *              D 198.51.100.1:53/udp, 2 backends, alone on its VIP;
 *  ST_INGRESS  ST_BASE with hook ingress on every device.
 */
static void setup(int st)
{
	struct be_opt gre = BE_DEFAULT, w2 = BE_DEFAULT;
	struct nlmsghdr *nlh;
	struct nlattr *sn;
	uint32_t want;
	int i;

	must(req(KMAGLEV_CMD_SERVICE_FLUSH, 0), "service flush");
	config_base(st == ST_INGRESS ? "all" : NULL);
	if (st == ST_EMPTY)
		return;
	svc_req(KMAGLEV_CMD_SERVICE_NEW, &SVC_A, opts_a, false, 1, nbe, BE_DEFAULT, "A");
	svc_req(KMAGLEV_CMD_SERVICE_NEW, &SVC_B, opts_b, false, 2, 8, BE_DEFAULT, "B");
	w2.weight = 2;
	svc_req(KMAGLEV_CMD_SERVICE_SET, &SVC_B, NULL, false, 2, 8, w2, "B, rebuilt");
	gre.encap = KMAGLEV_ENCAP_GRE;
	nlh = req(KMAGLEV_CMD_SERVICE_NEW, 0);
	sn = put_svc(nlh, &SVC_C);
	opts_c(nlh);
	mnl_attr_nest_end(nlh, sn);
	for (i = 0; i < nbe / 2; i++) {
		gre.gre_key = 100 + i;
		put_be(nlh, KMAGLEV_A_BACKEND, true, 3, i, gre);
	}
	must(nlh, "C");
	svc_req(KMAGLEV_CMD_SERVICE_NEW, &SVC_D, opts_d, false, 4, 2, BE_DEFAULT, "D");
	/* the tables A, C and D replaced go once their window (0) has passed */
	if (prev_settle(1) != 1)
		die("setup: the previous tables of A, C and D are not retired, or B has none");
	traffic(SVC_A.addr, IPPROTO_TCP, SVC_A.port, 16);
	traffic(SVC_B.addr, IPPROTO_UDP, 0, 32);
	traffic(SVC_C.addr, IPPROTO_TCP, SVC_C.port, 8);
	want = 16 + 32 + 8;
	for (i = 0; i < 200 && conns() < want; i++)
		msleep(10);
	if (conns() < want)
		die("setup: %u connection entries, want %u", conns(), want);
}

/* ---- scenarios ---------------------------------------------------------------------------- */

struct scen {
	const char *name;
	const char *op;			/* the spec's operation */
	const char *knobs;		/* config-set: the config attributes it sets */
	int st;
	struct nlmsghdr *(*build)(void);
};

/* service-new: the first service of the netns (hooks, VIP filter), nbe backends, client-rate */
static struct nlmsghdr *b_svc_new_first(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_NEW, 0);
	struct nlattr *sn = put_svc(nlh, &SVC_A);

	opts_a(nlh);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CLIENT_RATE, 10);
	mnl_attr_nest_end(nlh, sn);
	put_bes(nlh, false, 1, 0, nbe, BE_DEFAULT);
	return nlh;
}

/* service-new on a VIP that has services, nbe backends nested in the service */
static struct nlmsghdr *b_svc_new_shared(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_NEW, 0);
	struct nlattr *sn = put_svc(nlh, &SVC_E);
	struct be_opt o = BE_DEFAULT;

	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 16411);
	o.max_conns = 10;
	for (int i = 0; i < nbe; i++)
		put_be(nlh, KMAGLEV_A_SERVICE_BACKEND, false, 5, i, o);
	mnl_attr_nest_end(nlh, sn);
	return nlh;
}

/* service-new on a new IPv6 VIP, backends of both families, one down */
static struct nlmsghdr *b_svc_new_v6(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_NEW, 0);
	struct nlattr *sn = put_svc(nlh, &SVC_F);
	struct be_opt down = BE_DEFAULT;

	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 251);
	mnl_attr_nest_end(nlh, sn);
	put_bes(nlh, true, 6, 0, 4, BE_DEFAULT);
	put_bes(nlh, false, 6, 0, 3, BE_DEFAULT);
	down.state = KMAGLEV_BACKEND_STATE_DOWN;
	put_be(nlh, KMAGLEV_A_BACKEND, false, 6, 3, down);
	return nlh;
}

/* service-set: A's whole set replaced, half kept (new weights), half new: ids handed over */
static struct nlmsghdr *b_svc_set_replace(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_SET, 0);
	struct be_opt w = BE_DEFAULT;

	put_svc_key(nlh, &SVC_A);
	w.weight = 3;
	put_bes(nlh, false, 1, nbe / 2, nbe, w);
	put_bes(nlh, false, 7, 0, nbe / 2, BE_DEFAULT);
	return nlh;
}

/* service-set: A's settings: a bigger table, client-rate (a new limiter), flags, owner */
static struct nlmsghdr *b_svc_set_settings(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_SET, 0);
	struct nlattr *sn = put_svc(nlh, &SVC_A);

	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 32771);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CLIENT_RATE, 50);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_FLAGS, KMAGLEV_SERVICE_FLAGS_ECHO);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_PCT, 50);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_MS, 1000);
	mnl_attr_put_strz(nlh, KMAGLEV_A_SERVICE_OWNER, "");
	mnl_attr_nest_end(nlh, sn);
	return nlh;
}

/* service-set during B's migration: a new set (a third table), client-rate off */
static struct nlmsghdr *b_svc_set_migrating(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_SET, 0);
	struct nlattr *sn = put_svc(nlh, &SVC_B);

	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CLIENT_RATE, 0);
	mnl_attr_nest_end(nlh, sn);
	put_bes(nlh, false, 2, 4, 12, BE_DEFAULT);
	return nlh;
}

/* service-set: C's set replaced by nothing */
static struct nlmsghdr *b_svc_set_empty(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_SET, 0);
	struct nlattr *sn = put_svc(nlh, &SVC_C);

	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_REPLACE_BACKENDS, 0, NULL);
	mnl_attr_nest_end(nlh, sn);
	return nlh;
}

static struct nlmsghdr *b_svc_del_a(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_DEL, 0);

	put_svc_key(nlh, &SVC_A);
	return nlh;
}

static struct nlmsghdr *b_svc_del_d(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_SERVICE_DEL, 0);

	put_svc_key(nlh, &SVC_D);
	return nlh;
}

static struct nlmsghdr *b_svc_flush(void)
{
	return req(KMAGLEV_CMD_SERVICE_FLUSH, 0);
}

static struct nlmsghdr *be_req(uint8_t cmd, const struct svc *s, bool v6, int blk, int i,
			       struct be_opt o)
{
	struct nlmsghdr *nlh = req(cmd, 0);

	put_svc_key(nlh, s);
	put_be(nlh, KMAGLEV_A_BACKEND, v6, blk, i, o);
	return nlh;
}

static struct nlmsghdr *b_be_new(void)
{
	struct be_opt o = BE_DEFAULT;

	o.weight = 7;
	o.encap = KMAGLEV_ENCAP_GRE;
	o.gre_key = 7;
	return be_req(KMAGLEV_CMD_BACKEND_NEW, &SVC_A, false, 8, 0, o);
}

static struct nlmsghdr *b_be_new_v6(void)
{
	return be_req(KMAGLEV_CMD_BACKEND_NEW, &SVC_C, true, 3, nbe, BE_DEFAULT);
}

static struct nlmsghdr *b_be_set_weight(void)
{
	struct be_opt o = BE_DEFAULT;

	o.weight = 5;
	return be_req(KMAGLEV_CMD_BACKEND_SET, &SVC_A, false, 1, 0, o);
}

static struct nlmsghdr *b_be_set_drain(void)
{
	struct be_opt o = BE_DEFAULT;

	o.state = KMAGLEV_BACKEND_STATE_DRAIN;
	return be_req(KMAGLEV_CMD_BACKEND_SET, &SVC_A, false, 1, 1, o);
}

static struct nlmsghdr *b_be_set_down(void)
{
	struct be_opt o = BE_DEFAULT;

	o.state = KMAGLEV_BACKEND_STATE_DOWN;
	return be_req(KMAGLEV_CMD_BACKEND_SET, &SVC_B, false, 2, 0, o);
}

static struct nlmsghdr *b_be_set_encap(void)
{
	struct be_opt o = BE_DEFAULT;

	o.encap = KMAGLEV_ENCAP_IPIP;
	o.max_conns = 5;
	return be_req(KMAGLEV_CMD_BACKEND_SET, &SVC_C, true, 3, 0, o);
}

static struct nlmsghdr *b_be_del(void)
{
	return be_req(KMAGLEV_CMD_BACKEND_DEL, &SVC_A, false, 1, 2, BE_DEFAULT);
}

static struct nlmsghdr *b_be_del_migrating(void)
{
	return be_req(KMAGLEV_CMD_BACKEND_DEL, &SVC_B, false, 2, 3, BE_DEFAULT);
}

/* config-set with the knobs of the scenario's name */
static const struct scen *cur_scen;

static struct nlmsghdr *b_config(void)
{
	struct nlmsghdr *nlh = req(KMAGLEV_CMD_CONFIG_SET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	const char *k = cur_scen->knobs;

#define KNOB(name, attr, v) \
	do { if (strstr(k, " " name " ")) mnl_attr_put_u32(nlh, attr, v); } while (0)
	KNOB("conn-max", KMAGLEV_A_CONFIG_CONN_MAX, 20);
	KNOB("timeout-tcp-syn", KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, 30);
	KNOB("timeout-tcp-est", KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, 600);
	KNOB("timeout-tcp-fin", KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, 10);
	KNOB("timeout-udp", KMAGLEV_A_CONFIG_TIMEOUT_UDP, 120);
	KNOB("flood-rate", KMAGLEV_A_CONFIG_FLOOD_RATE, 1000);
	KNOB("probe-mark-min", KMAGLEV_A_CONFIG_PROBE_MARK_MIN, 0x18000);
	KNOB("probe-mark-max", KMAGLEV_A_CONFIG_PROBE_MARK_MAX, 0x30000);
	KNOB("max-services", KMAGLEV_A_CONFIG_MAX_SERVICES, 10);
	KNOB("max-backends", KMAGLEV_A_CONFIG_MAX_BACKENDS, 5000);
	KNOB("quota-rate", KMAGLEV_A_CONFIG_QUOTA_RATE, 100);
	KNOB("quota-burst", KMAGLEV_A_CONFIG_QUOTA_BURST, 50);
	KNOB("quota-prefix4", KMAGLEV_A_CONFIG_QUOTA_PREFIX4, 24);
	KNOB("quota-prefix6", KMAGLEV_A_CONFIG_QUOTA_PREFIX6, 56);
	KNOB("quota-scope", KMAGLEV_A_CONFIG_QUOTA_SCOPE, KMAGLEV_QUOTA_SCOPE_SERVICE);
	/* (drop: rst needs nf_reject, which the debug kernel lacks) */
	KNOB("quota-action", KMAGLEV_A_CONFIG_QUOTA_ACTION, KMAGLEV_QUOTA_ACTION_DROP);
	KNOB("quota-max", KMAGLEV_A_CONFIG_QUOTA_MAX, 1000);
	KNOB("shed-class", KMAGLEV_A_CONFIG_SHED_CLASS, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	KNOB("shed-conn-fill", KMAGLEV_A_CONFIG_SHED_CONN_FILL, 90);
	KNOB("shed-new-rate", KMAGLEV_A_CONFIG_SHED_NEW_RATE, 10000);
	KNOB("shed-load-high", KMAGLEV_A_CONFIG_SHED_LOAD_HIGH, 800);
	KNOB("shed-load-low", KMAGLEV_A_CONFIG_SHED_LOAD_LOW, 600);
	KNOB("hook=ingress", KMAGLEV_A_CONFIG_HOOK, KMAGLEV_HOOK_INGRESS);
	KNOB("hook=prerouting", KMAGLEV_A_CONFIG_HOOK, KMAGLEV_HOOK_PREROUTING);
#undef KNOB
	if (strstr(k, " dscp-map ")) {
		uint8_t map[KMAGLEV_DSCP_MAP_LEN] = { [46] = 1, [8] = 4, [10] = 3 };

		mnl_attr_put(nlh, KMAGLEV_A_CONFIG_DSCP_MAP, sizeof(map), map);
	}
	if (strstr(k, " ingress-dev=all "))
		mnl_attr_put_strz(nlh, KMAGLEV_A_CONFIG_INGRESS_DEV, "all");
	if (strstr(k, " ingress-dev=list "))
		mnl_attr_put_strz(nlh, KMAGLEV_A_CONFIG_INGRESS_DEV, "fi1,fi2,fi3,nosuchdev");
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static const struct scen scens[] = {
	{ "service-new/first", "service-new", NULL, ST_EMPTY, b_svc_new_first },
	{ "service-new/shared-vip", "service-new", NULL, ST_BASE, b_svc_new_shared },
	{ "service-new/ipv6", "service-new", NULL, ST_BASE, b_svc_new_v6 },
	{ "service-set/replace-set", "service-set", NULL, ST_BASE, b_svc_set_replace },
	{ "service-set/settings", "service-set", NULL, ST_BASE, b_svc_set_settings },
	{ "service-set/migrating", "service-set", NULL, ST_BASE, b_svc_set_migrating },
	{ "service-set/empty-set", "service-set", NULL, ST_BASE, b_svc_set_empty },
	{ "service-del/conns", "service-del", NULL, ST_BASE, b_svc_del_a },
	{ "service-del/last-on-vip", "service-del", NULL, ST_BASE, b_svc_del_d },
	{ "service-flush", "service-flush", NULL, ST_BASE, b_svc_flush },
	{ "backend-new", "backend-new", NULL, ST_BASE, b_be_new },
	{ "backend-new/ipv6", "backend-new", NULL, ST_BASE, b_be_new_v6 },
	{ "backend-set/weight", "backend-set", NULL, ST_BASE, b_be_set_weight },
	{ "backend-set/drain", "backend-set", NULL, ST_BASE, b_be_set_drain },
	{ "backend-set/down-migrating", "backend-set", NULL, ST_BASE, b_be_set_down },
	{ "backend-set/encap", "backend-set", NULL, ST_BASE, b_be_set_encap },
	{ "backend-del/conns", "backend-del", NULL, ST_BASE, b_be_del },
	{ "backend-del/migrating", "backend-del", NULL, ST_BASE, b_be_del_migrating },
	{ "config-set/conn-max", "config-set", " conn-max ", ST_BASE, b_config },
	{ "config-set/timeout-tcp-syn", "config-set", " timeout-tcp-syn ", ST_BASE, b_config },
	{ "config-set/timeout-tcp-est", "config-set", " timeout-tcp-est ", ST_BASE, b_config },
	{ "config-set/timeout-tcp-fin", "config-set", " timeout-tcp-fin ", ST_BASE, b_config },
	{ "config-set/timeout-udp", "config-set", " timeout-udp ", ST_BASE, b_config },
	{ "config-set/flood-rate", "config-set", " flood-rate ", ST_BASE, b_config },
	{ "config-set/probe-marks", "config-set", " probe-mark-min probe-mark-max ", ST_BASE,
	  b_config },
	{ "config-set/max-services", "config-set", " max-services ", ST_BASE, b_config },
	{ "config-set/max-backends", "config-set", " max-backends ", ST_BASE, b_config },
	{ "config-set/hook-ingress-all", "config-set", " hook=ingress ingress-dev=all ", ST_BASE,
	  b_config },
	{ "config-set/hook-ingress-list", "config-set", " hook=ingress ingress-dev=list ",
	  ST_BASE, b_config },
	{ "config-set/ingress-dev-change", "config-set", " ingress-dev=list ", ST_INGRESS,
	  b_config },
	{ "config-set/hook-prerouting", "config-set", " hook=prerouting ", ST_INGRESS, b_config },
	{ "config-set/quotas", "config-set",
	  " quota-rate quota-burst quota-prefix4 quota-prefix6 quota-scope quota-action quota-max ",
	  ST_BASE, b_config },
	{ "config-set/shed", "config-set",
	  " dscp-map shed-class shed-conn-fill shed-new-rate shed-load-high shed-load-low ",
	  ST_BASE, b_config },
	{ "config-set/everything", "config-set",
	  " conn-max timeout-tcp-syn timeout-tcp-est timeout-tcp-fin timeout-udp flood-rate "
	  "probe-mark-min probe-mark-max max-services max-backends hook=ingress "
	  "ingress-dev=list quota-rate quota-burst quota-prefix4 quota-max dscp-map shed-class "
	  "shed-conn-fill shed-load-high shed-load-low ", ST_BASE, b_config },
};

#define NSCENS (sizeof(scens) / sizeof(scens[0]))

/* Every writable config attribute of the spec is set by some scenario. */
static int check_knobs(void)
{
	const struct kmg_attr_set *cs = &kmg_schema_config;
	static const char *const ro[] = { "services", "backends", "conns", "quotas", "load",
					  "shedding", "shed-transitions", NULL };
	int missing = 0;

	for (unsigned int t = 1; t <= cs->max; t++) {
		const char *name = cs->attrs[t].name;
		char pat[64], pat2[64];
		bool ro_attr = false, found = false;

		if (!name)
			continue;
		for (int i = 0; ro[i]; i++)
			ro_attr |= !strcmp(name, ro[i]);
		if (ro_attr)
			continue;
		snprintf(pat, sizeof(pat), " %s ", name);
		snprintf(pat2, sizeof(pat2), " %s=", name);
		for (unsigned int i = 0; i < NSCENS; i++)
			if (scens[i].knobs && (strstr(scens[i].knobs, pat) ||
					       strstr(scens[i].knobs, pat2)))
				found = true;
		if (!found) {
			printf("# config attribute %s: no config-set scenario sets it\n", name);
			missing++;
		}
	}
	return missing;
}

/* ---- the loop ----------------------------------------------------------------------------- */

struct tally {
	unsigned int sites, faults, errors, tolerated, failures;
	unsigned int errnos[256];
};

static void fail(struct tally *t, const struct scen *s, const char *mode, unsigned int n,
		 const char *fmt, ...)
{
	va_list ap;

	printf("# FAIL %s %s N=%u: ", s->name, mode, n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	t->failures++;
}

static int run_scen(const struct scen *s, bool sticky)
{
	const char *mode = sticky ? "sticky" : "once";
	struct sb pre = { 0 }, post = { 0 }, ref = { 0 }, cpre = { 0 }, cpost = { 0 };
	struct tally t = { 0 };
	long opre[3], opost[3];
	struct result r;
	char buf[512];
	double t0 = now();
	unsigned int n;
	int ref_prev;
	bool fresh;

	cur_scen = s;
	printf("# %s (%s)...\n", s->name, mode);
	/* the request without faults: it works, and gives the reference configuration */
	setup(s->st);
	ref_prev = count_prev();
	run_op(s->build(), 0, false, &r);
	if (r.err) {
		fail(&t, s, mode, 0, "the request fails without faults: %s",
		     kmg_nl_errstr(&nl, (struct nlmsghdr *)reqbuf, r.err, &kmg_schema_kmaglev, buf,
				   sizeof(buf)));
		goto out;
	}
	ref_prev = prev_settle(ref_prev);
	snapshot(&ref, LOOSE);
	fresh = false;
	for (n = 1; n <= max_n; n++) {
		if (!fresh) {
			double ts = now();

			setup(s->st);
			if (verbose)
				printf("# setup %.1fs\n", now() - ts);
			snapshot(&pre, STRICT);
			cli_snapshot(&cpre);
			if (!objects(opre))
				memset(opre, 0, sizeof(opre));
			fresh = true;
		}
		run_op(s->build(), n, sticky, &r);
		if (verbose)
			printf("# %s %s N=%u: injected %d, %s%s%s\n", s->name, mode, n, r.injected,
			       r.err ? strerrorname_np(-r.err) : "ok", r.msg[0] ? ": " : "", r.msg);
		if (!r.injected || r.err == 0) {
			/* done, or a fault kmaglev did without: the configuration as without faults */
			fresh = false;
			if (r.err) {
				fail(&t, s, mode, n, "no fault injected, but the request failed: %s",
				     strerrorname_np(-r.err));
			} else {
				prev_settle(ref_prev);
				snapshot(&post, LOOSE);
				if (strcmp(sb_str(&ref), sb_str(&post))) {
					sb_diff("the configuration (against a run without faults)",
						&ref, &post);
					fail(&t, s, mode, n, "%s",
					     r.injected ? "a tolerated fault changed the result" :
					     "the result differs from the first run's");
				}
			}
			if (!r.injected)
				break;
			t.faults++;
			t.tolerated++;
			continue;
		}
		t.faults++;
		t.errors++;
		t.errnos[-r.err & 255]++;
		if (!r.msg[0])
			fail(&t, s, mode, n, "%s without an extack message", strerrorname_np(-r.err));
		snapshot(&post, STRICT);
		if (strcmp(sb_str(&pre), sb_str(&post))) {
			sb_diff("the configuration", &pre, &post);
			fail(&t, s, mode, n, "the failed request (%s: %s) changed the configuration",
			     strerrorname_np(-r.err), r.msg);
			fresh = false;
			continue;
		}
		if (!objects_settle(opre, opost)) {
			fail(&t, s, mode, n, "objects after the failed request (%s): services %ld "
			     "backends %ld tables %ld, before %ld %ld %ld", strerrorname_np(-r.err),
			     opost[0], opost[1], opost[2], opre[0], opre[1], opre[2]);
			fresh = false;
			continue;
		}
		if (cli && (t.errors - 1) % cli_every == 0) {
			cli_snapshot(&cpost);
			if (strcmp(sb_str(&cpre), sb_str(&cpost))) {
				sb_diff("kmaglev service show/table show/save", &cpre, &cpost);
				fail(&t, s, mode, n, "the CLI shows a change after a failed request");
				fresh = false;
			}
		}
	}
	if (n > max_n)
		fail(&t, s, mode, n, "still injecting at N=%u (--max-n)", max_n);
	t.sites = n - 1;
out:
	printf("RESULT %s %s %s sites=%u faults=%u errors=%u tolerated=%u time=%.1fs errnos=",
	       t.failures ? "fail" : "pass", s->name, mode, t.sites, t.faults, t.errors,
	       t.tolerated, now() - t0);
	{
		const char *sep = "";

		for (int e = 0; e < 256; e++)
			if (t.errnos[e]) {
				printf("%s%s:%u", sep, strerrorname_np(e), t.errnos[e]);
				sep = ",";
			}
		if (!*sep)
			printf("-");
	}
	printf("\n");
	fflush(stdout);
	sb_free(&pre);
	sb_free(&post);
	sb_free(&ref);
	sb_free(&cpre);
	sb_free(&cpost);
	return t.failures ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: failnth [-v] [--modes once,sticky] [--backends N] [--max-n N] [--cli PATH]\n"
		"               [--cli-every K]\n"
		"               [--no-faults] [SCENARIO-PREFIX...]\n"
		"       failnth --list-ops | --list\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "modes", required_argument, NULL, 'm' },
		{ "backends", required_argument, NULL, 'b' },
		{ "max-n", required_argument, NULL, 'N' },
		{ "cli", required_argument, NULL, 'c' },
		{ "cli-every", required_argument, NULL, 'k' },
		{ "list-ops", no_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'l' },
		{ "no-faults", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *modes = "once,sticky";
	bool no_faults = false;
	int c, fails = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			modes = optarg;
			break;
		case 'b':
			nbe = atoi(optarg);
			if (nbe < 4 || nbe > 20000)
				die("--backends: 4..20000");
			break;
		case 'N':
			max_n = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			cli = optarg;
			break;
		case 'k':
			cli_every = strtoul(optarg, NULL, 0) ?: 1;
			break;
		case 'o':
			for (unsigned int i = 0; i < NSCENS; i++)
				if (i == 0 || strcmp(scens[i].op, scens[i - 1].op))
					printf("%s\n", scens[i].op);
			return 0;
		case 'l':
			for (unsigned int i = 0; i < NSCENS; i++)
				printf("%s\n", scens[i].name);
			return 0;
		case 'n':
			no_faults = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (check_knobs())
		return 1;
	reqbuf = calloc(1, REQ_BUF);
	if (!reqbuf)
		die("out of memory");
	if (kmg_nl_open(&nl, KMAGLEV_FAMILY_NAME))
		die("the kmaglev family is not there (module not loaded?)");
	{
		int sz = 4 << 20;

		setsockopt(mnl_socket_get_fd(nl.sk), SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(mnl_socket_get_fd(nl.sk), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	if (!no_faults) {
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		if (nth_fd < 0)
			die("/proc/thread-self/fail-nth: %s", strerror(errno));
		mif_fd = open("/proc/thread-self/make-it-fail", O_RDWR);
		if (mif_fd < 0 && strstr(modes, "sticky"))
			die("/proc/thread-self/make-it-fail: %s", strerror(errno));
	}
	for (unsigned int i = 0; i < NSCENS; i++) {
		const struct scen *s = &scens[i];
		bool want = optind >= argc;

		for (int a = optind; a < argc; a++)
			want |= !strncmp(s->name, argv[a], strlen(argv[a]));
		if (!want)
			continue;
		if (no_faults) {
			struct result r;

			cur_scen = s;
			setup(s->st);
			run_op(s->build(), 0, false, &r);
			printf("RESULT %s %s none err=%s\n", r.err ? "fail" : "pass", s->name,
			       r.err ? strerrorname_np(-r.err) : "0");
			fails += !!r.err;
			continue;
		}
		if (strstr(modes, "once"))
			fails += run_scen(s, false);
		if (strstr(modes, "sticky"))
			fails += run_scen(s, true);
	}
	must(req(KMAGLEV_CMD_SERVICE_FLUSH, 0), "service flush");
	kmg_nl_close(&nl);
	return fails ? 1 : 0;
}
