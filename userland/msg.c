// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: netlink encoding and decoding of the family's objects (see msg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "err.h"
#include "msg.h"
#include "nl.h"
#include "schema.h"

#define NEST_MAX	UINT16_MAX

/* present masks are 64 bits wide */
_Static_assert(KMAGLEV_A_GLOBAL_STATS_MAX < 64, "global-stats present mask");
_Static_assert(KMAGLEV_A_SERVICE_MAX < 64, "service present mask");

void kmg_service_set_key(struct kmg_service *s, const struct kmg_svc_key *k)
{
	s->key = *k;
	s->present &= ~(KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR6));
	KMG_SET(s, k->addr.family == AF_INET ? KMAGLEV_A_SERVICE_ADDR4 : KMAGLEV_A_SERVICE_ADDR6);
	KMG_SET(s, KMAGLEV_A_SERVICE_PROTO);
	KMG_SET(s, KMAGLEV_A_SERVICE_PORT);
}

void kmg_backend_set_addr(struct kmg_backend *b, const struct kmg_addr *a)
{
	b->addr = *a;
	b->present &= ~KMG_BE_ADDR_MASK;
	KMG_SET(b, a->family == AF_INET ? KMAGLEV_A_BACKEND_ADDR4 : KMAGLEV_A_BACKEND_ADDR6);
}

struct kmg_backend *kmg_backend_append(struct kmg_backend **be, unsigned int *n)
{
	struct kmg_backend *p;

	/* capacity 4, 8, 16, ...: grow when n reaches a power of two */
	if (!*n || (*n >= 4 && !(*n & (*n - 1)))) {
		p = realloc(*be, (*n ? *n * 2 : 4) * sizeof(**be));
		if (!p)
			return NULL;
		*be = p;
	}
	p = &(*be)[(*n)++];
	memset(p, 0, sizeof(*p));
	return p;
}

void kmg_service_free(struct kmg_service *s)
{
	free(s->be);
	s->be = NULL;
	s->nbe = 0;
}

void kmg_table_free(struct kmg_table *t)
{
	free(t->be);
	t->be = NULL;
	t->nbe = 0;
}

void kmg_msg_free(struct kmg_msg *m)
{
	kmg_service_free(&m->svc);
	kmg_table_free(&m->table);
	free(m->be);
	m->be = NULL;
	m->nbe = 0;
}

/* --- encoding -------------------------------------------------------------------------- */

static int nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	if ((char *)mnl_nlmsg_get_payload_tail(nlh) - (char *)nest > NEST_MAX) {
		/* leave the message as it was before the nest */
		nlh->nlmsg_len = (char *)nest - (char *)nlh;
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

static void put_addr(struct nlmsghdr *nlh, uint16_t t4, uint16_t t6, const struct kmg_addr *a)
{
	if (a->family == AF_INET)
		mnl_attr_put(nlh, t4, sizeof(a->v4), &a->v4);
	else
		mnl_attr_put(nlh, t6, sizeof(a->v6), &a->v6);
}

#define PUT_U32(obj, A, field)						\
	do {								\
		if (KMG_HAS(obj, A))					\
			mnl_attr_put_u32(nlh, A, (obj)->field);		\
	} while (0)

int kmg_put_backend(struct nlmsghdr *nlh, uint16_t type, const struct kmg_backend *b)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	if (b->present & KMG_BE_ADDR_MASK)
		put_addr(nlh, KMAGLEV_A_BACKEND_ADDR4, KMAGLEV_A_BACKEND_ADDR6, &b->addr);
	PUT_U32(b, KMAGLEV_A_BACKEND_WEIGHT, weight);
	PUT_U32(b, KMAGLEV_A_BACKEND_STATE, state);
	PUT_U32(b, KMAGLEV_A_BACKEND_ENCAP, encap);
	PUT_U32(b, KMAGLEV_A_BACKEND_GRE_KEY, gre_key);
	PUT_U32(b, KMAGLEV_A_BACKEND_MAX_CONNS, max_conns);
	PUT_U32(b, KMAGLEV_A_BACKEND_SLOTS, slots);
	return nest_end(nlh, nest);
}

static void put_key(struct nlmsghdr *nlh, const struct kmg_service *s)
{
	PUT_U32(s, KMAGLEV_A_SERVICE_ID, id);
	if (s->present & (KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR6)))
		put_addr(nlh, KMAGLEV_A_SERVICE_ADDR4, KMAGLEV_A_SERVICE_ADDR6, &s->key.addr);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_PROTO))
		mnl_attr_put_u8(nlh, KMAGLEV_A_SERVICE_PROTO, s->key.proto);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_PORT))
		mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_PORT, s->key.port);
}

int kmg_put_service_key(struct nlmsghdr *nlh, const struct kmg_service *s)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_key(nlh, s);
	return nest_end(nlh, nest);
}

int kmg_put_service(struct nlmsghdr *nlh, const struct kmg_service *s)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	unsigned int i;

	put_key(nlh, s);
	PUT_U32(s, KMAGLEV_A_SERVICE_TABLE_SIZE, table_size);
	PUT_U32(s, KMAGLEV_A_SERVICE_HASH, hash);
	PUT_U32(s, KMAGLEV_A_SERVICE_FLAGS, flags);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_SEED))
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, sizeof(s->seed), s->seed);
	PUT_U32(s, KMAGLEV_A_SERVICE_RAMP_PCT, ramp_pct);
	PUT_U32(s, KMAGLEV_A_SERVICE_RAMP_MS, ramp_ms);
	PUT_U32(s, KMAGLEV_A_SERVICE_WINDOW_MS, window_ms);
	PUT_U32(s, KMAGLEV_A_SERVICE_MAX_CONNS, max_conns);
	PUT_U32(s, KMAGLEV_A_SERVICE_CLIENT_RATE, client_rate);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ENCAP_SRC4))
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_ENCAP_SRC4, 4, &s->encap_src4);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ENCAP_SRC6))
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_ENCAP_SRC6, 16, &s->encap_src6);
	for (i = 0; i < s->nbe; i++)
		if (kmg_put_backend(nlh, KMAGLEV_A_SERVICE_BACKEND, &s->be[i])) {
			nlh->nlmsg_len = (char *)nest - (char *)nlh;
			return -EMSGSIZE;
		}
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS))
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_REPLACE_BACKENDS, 0, NULL);
	return nest_end(nlh, nest);
}

int kmg_put_service_big(struct nlmsghdr *nlh, const struct kmg_service *s)
{
	struct kmg_service head = *s;
	unsigned int i;
	int ret;

	head.be = NULL;
	head.nbe = 0;
	KMG_CLR(&head, KMAGLEV_A_SERVICE_BACKEND);
	ret = kmg_put_service(nlh, &head);
	for (i = 0; !ret && i < s->nbe; i++)
		ret = kmg_put_backend(nlh, KMAGLEV_A_BACKEND, &s->be[i]);
	return ret;
}

unsigned int kmg_backends_fitting(const struct kmg_service *s)
{
	size_t room = NEST_MAX - 512;	/* the service's own attributes */
	unsigned int i;

	for (i = 0; i < s->nbe; i++) {
		const struct kmg_backend *b = &s->be[i];
		size_t len = MNL_ATTR_HDRLEN + MNL_ALIGN(MNL_ATTR_HDRLEN + (b->addr.family ==
								       AF_INET ? 4 : 16));
		uint64_t more = b->present & ~KMG_BE_ADDR_MASK;

		len += (size_t)__builtin_popcountll(more) * MNL_ALIGN(MNL_ATTR_HDRLEN + 4);
		if (len > room)
			break;
		room -= len;
	}
	return i;
}

int kmg_put_config(struct nlmsghdr *nlh, const struct kmg_config *c)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);

	PUT_U32(c, KMAGLEV_A_CONFIG_MAX_SERVICES, max_services);
	PUT_U32(c, KMAGLEV_A_CONFIG_MAX_BACKENDS, max_backends);
	PUT_U32(c, KMAGLEV_A_CONFIG_SERVICES, services);
	PUT_U32(c, KMAGLEV_A_CONFIG_BACKENDS, backends);
	PUT_U32(c, KMAGLEV_A_CONFIG_CONN_MAX, conn_max);
	PUT_U32(c, KMAGLEV_A_CONFIG_CONNS, conns);
	PUT_U32(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, timeout_tcp_syn);
	PUT_U32(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, timeout_tcp_est);
	PUT_U32(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, timeout_tcp_fin);
	PUT_U32(c, KMAGLEV_A_CONFIG_TIMEOUT_UDP, timeout_udp);
	PUT_U32(c, KMAGLEV_A_CONFIG_FLOOD_RATE, flood_rate);
	PUT_U32(c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN, probe_mark_min);
	PUT_U32(c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX, probe_mark_max);
	return nest_end(nlh, nest);
}

size_t kmg_msg_size_hint(const struct kmg_service *s)
{
	/* a backend nest with every attribute: 4 + 20 (addr6) + 7 * 8 */
	size_t sz = 1024 + (s ? (size_t)s->nbe * 80 : 0) + 80;
	size_t min = MNL_SOCKET_BUFFER_SIZE;

	return sz < min ? min : sz;
}

/* --- decoding -------------------------------------------------------------------------- */

/* Attributes of @nest known to @set, last one of each type, after checking their lengths. */
static int parse_nest(const struct nlattr *nest, const struct kmg_attr_set *set,
		      const struct nlattr **tb)
{
	const struct nlattr *a;

	memset(tb, 0, (set->max + 1) * sizeof(*tb));
	mnl_attr_for_each_nested(a, nest) {
		const struct kmg_attr_desc *d = kmg_attr_desc(set, mnl_attr_get_type(a));

		if (!d)
			continue;	/* newer kernel: ignore */
		if (!kmg_attr_ok(a, d))
			return kmg_err(-EBADMSG, "malformed %s.%s attribute in kernel message",
				       set->name, d->name);
		tb[mnl_attr_get_type(a)] = a;
	}
	return 0;
}

#define GET_U32(obj, tb, A, field)					\
	do {								\
		if (tb[A]) {						\
			(obj)->field = mnl_attr_get_u32(tb[A]);		\
			KMG_SET(obj, A);				\
		}							\
	} while (0)
#define GET_U64(obj, tb, A, field)					\
	do {								\
		if (tb[A]) {						\
			(obj)->field = mnl_attr_get_u64(tb[A]);		\
			KMG_SET(obj, A);				\
		}							\
	} while (0)

static void get_addr(struct kmg_addr *a, const struct nlattr *a4, const struct nlattr *a6)
{
	memset(a, 0, sizeof(*a));
	if (a4) {
		a->family = AF_INET;
		memcpy(&a->v4, mnl_attr_get_payload(a4), 4);
	} else if (a6) {
		a->family = AF_INET6;
		memcpy(&a->v6, mnl_attr_get_payload(a6), 16);
	}
}

static int parse_stats(const struct nlattr *nest, struct kmg_stats *st)
{
	const struct nlattr *tb[KMAGLEV_A_STATS_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_stats, tb);

	if (ret)
		return ret;
	memset(st, 0, sizeof(*st));
	GET_U64(st, tb, KMAGLEV_A_STATS_PACKETS, packets);
	GET_U64(st, tb, KMAGLEV_A_STATS_BYTES, bytes);
	GET_U64(st, tb, KMAGLEV_A_STATS_NEW_FLOWS, new_flows);
	GET_U64(st, tb, KMAGLEV_A_STATS_CONNS, conns);
	return 0;
}

static int parse_backend(const struct nlattr *nest, struct kmg_backend *b)
{
	const struct nlattr *tb[KMAGLEV_A_BACKEND_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_backend, tb);

	if (ret)
		return ret;
	memset(b, 0, sizeof(*b));
	if (tb[KMAGLEV_A_BACKEND_ADDR4] || tb[KMAGLEV_A_BACKEND_ADDR6]) {
		struct kmg_addr a;

		get_addr(&a, tb[KMAGLEV_A_BACKEND_ADDR4], tb[KMAGLEV_A_BACKEND_ADDR6]);
		kmg_backend_set_addr(b, &a);
	}
	GET_U32(b, tb, KMAGLEV_A_BACKEND_WEIGHT, weight);
	GET_U32(b, tb, KMAGLEV_A_BACKEND_STATE, state);
	GET_U32(b, tb, KMAGLEV_A_BACKEND_ENCAP, encap);
	GET_U32(b, tb, KMAGLEV_A_BACKEND_GRE_KEY, gre_key);
	GET_U32(b, tb, KMAGLEV_A_BACKEND_MAX_CONNS, max_conns);
	GET_U32(b, tb, KMAGLEV_A_BACKEND_SLOTS, slots);
	GET_U32(b, tb, KMAGLEV_A_BACKEND_ID, id);
	if (tb[KMAGLEV_A_BACKEND_STATS]) {
		ret = parse_stats(tb[KMAGLEV_A_BACKEND_STATS], &b->stats);
		if (ret)
			return ret;
		KMG_SET(b, KMAGLEV_A_BACKEND_STATS);
	}
	return 0;
}

/* Every @type nest of @nest, appended to @be. */
static int parse_backends(const struct nlattr *nest, uint16_t type, struct kmg_backend **be,
			  unsigned int *n)
{
	const struct nlattr *a;
	int ret;

	mnl_attr_for_each_nested(a, nest) {
		struct kmg_backend *b;

		if (mnl_attr_get_type(a) != type)
			continue;
		b = kmg_backend_append(be, n);
		if (!b)
			return kmg_err(-ENOMEM, "out of memory");
		ret = parse_backend(a, b);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_service(const struct nlattr *nest, struct kmg_service *s)
{
	const struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_service, tb);

	if (ret)
		return ret;
	if (tb[KMAGLEV_A_SERVICE_ADDR4] || tb[KMAGLEV_A_SERVICE_ADDR6]) {
		struct kmg_svc_key k = { 0 };

		get_addr(&k.addr, tb[KMAGLEV_A_SERVICE_ADDR4], tb[KMAGLEV_A_SERVICE_ADDR6]);
		if (tb[KMAGLEV_A_SERVICE_PROTO])
			k.proto = mnl_attr_get_u8(tb[KMAGLEV_A_SERVICE_PROTO]);
		if (tb[KMAGLEV_A_SERVICE_PORT])
			k.port = mnl_attr_get_u16(tb[KMAGLEV_A_SERVICE_PORT]);
		kmg_service_set_key(s, &k);
	}
	GET_U32(s, tb, KMAGLEV_A_SERVICE_ID, id);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_TABLE_SIZE, table_size);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_HASH, hash);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_FLAGS, flags);
	if (tb[KMAGLEV_A_SERVICE_SEED]) {
		memcpy(s->seed, mnl_attr_get_payload(tb[KMAGLEV_A_SERVICE_SEED]), sizeof(s->seed));
		KMG_SET(s, KMAGLEV_A_SERVICE_SEED);
	}
	GET_U32(s, tb, KMAGLEV_A_SERVICE_RAMP_PCT, ramp_pct);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_RAMP_MS, ramp_ms);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_WINDOW_MS, window_ms);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_MAX_CONNS, max_conns);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_CLIENT_RATE, client_rate);
	if (tb[KMAGLEV_A_SERVICE_ENCAP_SRC4]) {
		memcpy(&s->encap_src4, mnl_attr_get_payload(tb[KMAGLEV_A_SERVICE_ENCAP_SRC4]), 4);
		KMG_SET(s, KMAGLEV_A_SERVICE_ENCAP_SRC4);
	}
	if (tb[KMAGLEV_A_SERVICE_ENCAP_SRC6]) {
		memcpy(&s->encap_src6, mnl_attr_get_payload(tb[KMAGLEV_A_SERVICE_ENCAP_SRC6]), 16);
		KMG_SET(s, KMAGLEV_A_SERVICE_ENCAP_SRC6);
	}
	GET_U32(s, tb, KMAGLEV_A_SERVICE_GENERATION, generation);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_BACKENDS, backends);
	GET_U64(s, tb, KMAGLEV_A_SERVICE_TABLE_BYTES, table_bytes);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_PREV_GENERATION, prev_generation);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_RAMP_NOW, ramp_now);
	GET_U32(s, tb, KMAGLEV_A_SERVICE_WINDOW_LEFT_MS, window_left_ms);
	if (tb[KMAGLEV_A_SERVICE_REPLACE_BACKENDS])
		KMG_SET(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS);
	if (tb[KMAGLEV_A_SERVICE_BACKEND]) {
		KMG_SET(s, KMAGLEV_A_SERVICE_BACKEND);
		return parse_backends(nest, KMAGLEV_A_SERVICE_BACKEND, &s->be, &s->nbe);
	}
	return 0;
}

static int parse_table(const struct nlattr *nest, struct kmg_table *t)
{
	const struct nlattr *tb[KMAGLEV_A_TABLE_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_table, tb);

	if (ret)
		return ret;
	GET_U32(t, tb, KMAGLEV_A_TABLE_SIZE, size);
	GET_U32(t, tb, KMAGLEV_A_TABLE_GENERATION, generation);
	GET_U64(t, tb, KMAGLEV_A_TABLE_BYTES, bytes);
	GET_U64(t, tb, KMAGLEV_A_TABLE_DIGEST, digest);
	GET_U32(t, tb, KMAGLEV_A_TABLE_MIN_SLOTS, min_slots);
	GET_U32(t, tb, KMAGLEV_A_TABLE_MAX_SLOTS, max_slots);
	if (tb[KMAGLEV_A_TABLE_BACKEND]) {
		KMG_SET(t, KMAGLEV_A_TABLE_BACKEND);
		return parse_backends(nest, KMAGLEV_A_TABLE_BACKEND, &t->be, &t->nbe);
	}
	return 0;
}

static int parse_config(const struct nlattr *nest, struct kmg_config *c)
{
	const struct nlattr *tb[KMAGLEV_A_CONFIG_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_config, tb);

	if (ret)
		return ret;
	GET_U32(c, tb, KMAGLEV_A_CONFIG_MAX_SERVICES, max_services);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_MAX_BACKENDS, max_backends);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_SERVICES, services);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_BACKENDS, backends);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_CONN_MAX, conn_max);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_CONNS, conns);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, timeout_tcp_syn);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, timeout_tcp_est);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, timeout_tcp_fin);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_TIMEOUT_UDP, timeout_udp);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_FLOOD_RATE, flood_rate);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_PROBE_MARK_MIN, probe_mark_min);
	GET_U32(c, tb, KMAGLEV_A_CONFIG_PROBE_MARK_MAX, probe_mark_max);
	return 0;
}

/* Every counter the schema knows (all u64); unknown ones, from a newer kernel, are skipped. */
static int parse_global(const struct nlattr *nest, struct kmg_global_stats *g)
{
	const struct nlattr *tb[KMAGLEV_A_GLOBAL_STATS_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_global_stats, tb);
	unsigned int t;

	if (ret)
		return ret;
	memset(g, 0, sizeof(*g));
	for (t = 1; t <= KMAGLEV_A_GLOBAL_STATS_MAX; t++) {
		if (!tb[t] || t == KMAGLEV_A_GLOBAL_STATS_PAD)
			continue;
		g->v[t] = mnl_attr_get_u64(tb[t]);
		KMG_SET(g, t);
	}
	return 0;
}

int kmg_msg_parse(const struct nlmsghdr *nlh, struct kmg_msg *m)
{
	const struct genlmsghdr *g;
	const struct nlattr *a;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*g)))
		return kmg_err(-EBADMSG, "truncated kernel message");
	g = mnl_nlmsg_get_payload(nlh);
	m->cmd = g->cmd;
	mnl_attr_for_each(a, nlh, sizeof(*g)) {
		uint16_t type = mnl_attr_get_type(a);
		const struct kmg_attr_desc *d = kmg_attr_desc(&kmg_schema_kmaglev, type);

		if (!d)
			continue;
		if (!kmg_attr_ok(a, d)) {
			ret = kmg_err(-EBADMSG, "malformed %s attribute in kernel message",
				      d->name);
			break;
		}
		switch (type) {
		case KMAGLEV_A_SERVICE:
			ret = parse_service(a, &m->svc);
			break;
		case KMAGLEV_A_BACKEND: {
			struct kmg_backend *b = kmg_backend_append(&m->be, &m->nbe);

			ret = b ? parse_backend(a, b) : kmg_err(-ENOMEM, "out of memory");
			break;
		}
		case KMAGLEV_A_STATS:
			ret = parse_stats(a, &m->stats);
			break;
		case KMAGLEV_A_TABLE:
			ret = parse_table(a, &m->table);
			break;
		case KMAGLEV_A_CONFIG:
			ret = parse_config(a, &m->config);
			break;
		case KMAGLEV_A_GLOBAL:
			ret = parse_global(a, &m->global);
			break;
		}
		if (ret)
			break;
		m->present |= KMG_BIT(type);
	}
	if (ret)
		kmg_msg_free(m);
	return ret;
}

const char *kmg_cmd_name(uint8_t cmd)
{
	static const char *const names[KMAGLEV_CMD_MAX + 1] = {
		[KMAGLEV_CMD_SERVICE_NEW] = "service-new",
		[KMAGLEV_CMD_SERVICE_DEL] = "service-del",
		[KMAGLEV_CMD_SERVICE_SET] = "service-set",
		[KMAGLEV_CMD_SERVICE_GET] = "service-get",
		[KMAGLEV_CMD_SERVICE_FLUSH] = "service-flush",
		[KMAGLEV_CMD_BACKEND_NEW] = "backend-new",
		[KMAGLEV_CMD_BACKEND_DEL] = "backend-del",
		[KMAGLEV_CMD_BACKEND_SET] = "backend-set",
		[KMAGLEV_CMD_BACKEND_GET] = "backend-get",
		[KMAGLEV_CMD_STATS_GET] = "stats-get",
		[KMAGLEV_CMD_TABLE_GET] = "table-get",
		[KMAGLEV_CMD_CONFIG_GET] = "config-get",
		[KMAGLEV_CMD_CONFIG_SET] = "config-set",
		[KMAGLEV_CMD_SERVICE_NEW_NTF] = "service-new",
		[KMAGLEV_CMD_SERVICE_DEL_NTF] = "service-del",
		[KMAGLEV_CMD_SERVICE_CHANGE_NTF] = "service-change",
		[KMAGLEV_CMD_BACKEND_NEW_NTF] = "backend-new",
		[KMAGLEV_CMD_BACKEND_DEL_NTF] = "backend-del",
		[KMAGLEV_CMD_BACKEND_CHANGE_NTF] = "backend-change",
		[KMAGLEV_CMD_TABLE_NTF] = "table",
	};

	return cmd <= KMAGLEV_CMD_MAX && names[cmd] ? names[cmd] : NULL;
}
