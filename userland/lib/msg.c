// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: netlink encoding and decoding of the family's objects (see msg.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "lib/err.h"
#include "lib/msg.h"
#include "lib/nl.h"
#include "lib/schema.h"

#define NEST_MAX	UINT16_MAX

/* present masks are 64 bits wide */
_Static_assert(KMAGLEV_A_GLOBAL_STATS_MAX < 64, "global-stats present mask");
_Static_assert(KMAGLEV_A_SERVICE_MAX < 64, "service present mask");
_Static_assert(KMAGLEV_A_CONFIG_MAX < 64, "config present mask");
_Static_assert(KMAGLEV_A_QUOTA_MAX < 64, "quota present mask");

/* --- the fields -------------------------------------------------------------------------- */

#define F(S, A, member, fmt, flags, key)					\
	{ KMAGLEV_A_##A, fmt, flags, offsetof(struct S, member), key }

static const struct kmg_field service_fields[] = {
	F(kmg_service, SERVICE_ID, id, KMG_FMT_UINT, KMG_FF_KEY, NULL),
	F(kmg_service, SERVICE_TABLE_SIZE, table_size, KMG_FMT_PRIME, 0, NULL),
	F(kmg_service, SERVICE_HASH, hash, KMG_FMT_ENUM, 0, NULL),
	F(kmg_service, SERVICE_FLAGS, flags, KMG_FMT_FLAGS, KMG_FF_OMIT0, NULL),
	F(kmg_service, SERVICE_SEED, seed, KMG_FMT_SEED, KMG_FF_OMIT0 | KMG_FF_SECRET, NULL),
	F(kmg_service, SERVICE_RAMP_PCT, ramp_pct, KMG_FMT_UINT, 0, "ramp"),
	F(kmg_service, SERVICE_RAMP_MS, ramp_ms, KMG_FMT_MS, KMG_FF_OMIT0, "ramp-time"),
	F(kmg_service, SERVICE_WINDOW_MS, window_ms, KMG_FMT_MS, 0, "window"),
	F(kmg_service, SERVICE_MAX_CONNS, max_conns, KMG_FMT_UINT, KMG_FF_OMIT0, NULL),
	F(kmg_service, SERVICE_CLIENT_RATE, client_rate, KMG_FMT_UINT, KMG_FF_OMIT0, NULL),
	F(kmg_service, SERVICE_ENCAP_SRC4, encap_src4, KMG_FMT_ADDR, KMG_FF_OMIT0, NULL),
	F(kmg_service, SERVICE_ENCAP_SRC6, encap_src6, KMG_FMT_ADDR, KMG_FF_OMIT0, NULL),
	F(kmg_service, SERVICE_OWNER, owner, KMG_FMT_STRING, KMG_FF_OMIT0, NULL),
	F(kmg_service, SERVICE_CRITICALITY, criticality, KMG_FMT_ENUM, 0, NULL),
	F(kmg_service, SERVICE_OVERLOAD, overload, KMG_FMT_ENUM, KMG_FF_STATE, NULL),
	F(kmg_service, SERVICE_GENERATION, generation, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_service, SERVICE_BACKENDS, backends, KMG_FMT_UINT, KMG_FF_RO, "backend-count"),
	F(kmg_service, SERVICE_TABLE_BYTES, table_bytes, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_service, SERVICE_PREV_GENERATION, prev_generation, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_service, SERVICE_RAMP_NOW, ramp_now, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_service, SERVICE_WINDOW_LEFT_MS, window_left_ms, KMG_FMT_MS, KMG_FF_RO,
	  "window-left"),
};

static const struct kmg_field backend_fields[] = {
	F(kmg_backend, BACKEND_ID, id, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_backend, BACKEND_WEIGHT, weight, KMG_FMT_UINT, 0, NULL),
	F(kmg_backend, BACKEND_STATE, state, KMG_FMT_ENUM, 0, NULL),
	F(kmg_backend, BACKEND_ENCAP, encap, KMG_FMT_ENUM, 0, NULL),
	F(kmg_backend, BACKEND_GRE_KEY, gre_key, KMG_FMT_UINT, 0, NULL),
	F(kmg_backend, BACKEND_MAX_CONNS, max_conns, KMG_FMT_UINT, KMG_FF_OMIT0, NULL),
	F(kmg_backend, BACKEND_SLOTS, slots, KMG_FMT_UINT, KMG_FF_RO, NULL),
};

static const struct kmg_field stats_fields[] = {
	F(kmg_stats, STATS_PACKETS, packets, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_stats, STATS_BYTES, bytes, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_stats, STATS_NEW_FLOWS, new_flows, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_stats, STATS_CONNS, conns, KMG_FMT_UINT, KMG_FF_RO, NULL),
};

static const struct kmg_field table_fields[] = {
	F(kmg_table, TABLE_SIZE, size, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_table, TABLE_GENERATION, generation, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_table, TABLE_BYTES, bytes, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_table, TABLE_MIN_SLOTS, min_slots, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_table, TABLE_MAX_SLOTS, max_slots, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_table, TABLE_DIGEST, digest, KMG_FMT_HEX64, KMG_FF_RO, NULL),
};

static const struct kmg_field config_fields[] = {
	F(kmg_config, CONFIG_MAX_SERVICES, max_services, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_MAX_BACKENDS, max_backends, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_SERVICES, services, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_config, CONFIG_BACKENDS, backends, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_config, CONFIG_CONN_MAX, conn_max, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_CONNS, conns, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_config, CONFIG_TIMEOUT_TCP_SYN, timeout_tcp_syn, KMG_FMT_SEC, 0, NULL),
	F(kmg_config, CONFIG_TIMEOUT_TCP_EST, timeout_tcp_est, KMG_FMT_SEC, 0, NULL),
	F(kmg_config, CONFIG_TIMEOUT_TCP_FIN, timeout_tcp_fin, KMG_FMT_SEC, 0, NULL),
	F(kmg_config, CONFIG_TIMEOUT_UDP, timeout_udp, KMG_FMT_SEC, 0, NULL),
	F(kmg_config, CONFIG_FLOOD_RATE, flood_rate, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_PROBE_MARK_MIN, probe_mark_min, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_PROBE_MARK_MAX, probe_mark_max, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_HOOK, hook, KMG_FMT_ENUM, 0, NULL),
	F(kmg_config, CONFIG_INGRESS_DEV, ingress_dev, KMG_FMT_STRING, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_RATE, quota_rate, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_BURST, quota_burst, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_PREFIX4, quota_prefix4, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_PREFIX6, quota_prefix6, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_SCOPE, quota_scope, KMG_FMT_ENUM, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_ACTION, quota_action, KMG_FMT_ENUM, 0, NULL),
	F(kmg_config, CONFIG_QUOTA_MAX, quota_max, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_QUOTAS, quotas, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_config, CONFIG_DSCP_MAP, dscp_map, KMG_FMT_DSCP_MAP, 0, NULL),
	F(kmg_config, CONFIG_SHED_CLASS, shed_class, KMG_FMT_ENUM, 0, NULL),
	F(kmg_config, CONFIG_SHED_CONN_FILL, shed_conn_fill, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_SHED_NEW_RATE, shed_new_rate, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_SHED_LOAD_HIGH, shed_load_high, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_SHED_LOAD_LOW, shed_load_low, KMG_FMT_UINT, 0, NULL),
	F(kmg_config, CONFIG_LOAD, load, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_config, CONFIG_SHEDDING, shedding, KMG_FMT_FLAGS, KMG_FF_RO, NULL),
	F(kmg_config, CONFIG_SHED_TRANSITIONS, shed_transitions, KMG_FMT_UINT, KMG_FF_RO, NULL),
};

/* A bucket's prefix (ADDR4 or ADDR6) is handled by hand, as a backend's address is. */
static const struct kmg_field quota_fields[] = {
	F(kmg_quota, QUOTA_PREFIX_LEN, prefix_len, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_quota, QUOTA_SERVICE_ID, service_id, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_quota, QUOTA_ACCEPTED, accepted, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_quota, QUOTA_REJECTED, rejected, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_quota, QUOTA_TOKENS, tokens, KMG_FMT_UINT, KMG_FF_RO, NULL),
	F(kmg_quota, QUOTA_IDLE_MS, idle_ms, KMG_FMT_MS, KMG_FF_RO, NULL),
};

#undef F

#define OBJECT(n, f) { #n, &kmg_schema_##n, f, KMG_ARRAY_SIZE(f) }
const struct kmg_object kmg_obj_service = OBJECT(service, service_fields);
const struct kmg_object kmg_obj_backend = OBJECT(backend, backend_fields);
const struct kmg_object kmg_obj_stats = OBJECT(stats, stats_fields);
const struct kmg_object kmg_obj_table = OBJECT(table, table_fields);
const struct kmg_object kmg_obj_config = OBJECT(config, config_fields);
const struct kmg_object kmg_obj_quota = OBJECT(quota, quota_fields);
#undef OBJECT

const struct kmg_attr_desc *kmg_field_desc(const struct kmg_object *obj,
					   const struct kmg_field *f)
{
	return &obj->set->attrs[f->attr];
}

const char *kmg_field_key(const struct kmg_object *obj, const struct kmg_field *f)
{
	return f->key ? f->key : kmg_field_desc(obj, f)->name;
}

static size_t field_size(const struct kmg_attr_desc *d)
{
	switch (d->type) {
	case KMG_AT_U8:
		return 1;
	case KMG_AT_U16:
		return 2;
	case KMG_AT_U32:
		return 4;
	case KMG_AT_U64:
		return 8;
	case KMG_AT_STRING:
		return d->max + 1;	/* the char array, with room for the NUL */
	default:
		return d->len;
	}
}

uint64_t kmg_field_uint(const struct kmg_object *obj, const struct kmg_field *f, const void *s)
{
	const void *p = (const char *)s + f->off;

	switch (kmg_field_desc(obj, f)->type) {
	case KMG_AT_U8:
		return *(const uint8_t *)p;
	case KMG_AT_U16:
		return *(const uint16_t *)p;
	case KMG_AT_U32:
		return *(const uint32_t *)p;
	case KMG_AT_U64:
		return *(const uint64_t *)p;
	default:
		return 0;
	}
}

bool kmg_field_zero(const struct kmg_object *obj, const struct kmg_field *f, const void *s)
{
	const uint8_t *p = (const uint8_t *)s + f->off;
	size_t i, n = field_size(kmg_field_desc(obj, f));

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The present mask of an object: the first member of each struct. */
static uint64_t *present_of(void *s)
{
	return s;
}

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

void kmg_quota_set_addr(struct kmg_quota *q, const struct kmg_addr *a)
{
	q->addr = *a;
	q->present &= ~(KMG_BIT(KMAGLEV_A_QUOTA_ADDR4) | KMG_BIT(KMAGLEV_A_QUOTA_ADDR6));
	KMG_SET(q, a->family == AF_INET ? KMAGLEV_A_QUOTA_ADDR4 : KMAGLEV_A_QUOTA_ADDR6);
}

struct kmg_backend *kmg_backend_append(struct kmg_backend **be, unsigned int *n)
{
	struct kmg_backend *p;

	if (kmg_grow(be, *n, sizeof(**be)))
		return NULL;
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

/* Every settable field of @s that is present. */
static void put_fields(struct nlmsghdr *nlh, const struct kmg_object *obj, const void *s)
{
	uint64_t present = *(const uint64_t *)s;
	unsigned int i;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];

		if (f->flags & (KMG_FF_RO | KMG_FF_KEY) || !((present >> f->attr) & 1))
			continue;
		if (kmg_field_desc(obj, f)->type == KMG_AT_STRING) {
			mnl_attr_put_strz(nlh, f->attr, (const char *)s + f->off);
			continue;
		}
		mnl_attr_put(nlh, f->attr, field_size(kmg_field_desc(obj, f)),
			     (const char *)s + f->off);
	}
}

int kmg_put_backend(struct nlmsghdr *nlh, uint16_t type, const struct kmg_backend *b)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, type);

	if (b->present & KMG_BE_ADDR_MASK)
		put_addr(nlh, KMAGLEV_A_BACKEND_ADDR4, KMAGLEV_A_BACKEND_ADDR6, &b->addr);
	put_fields(nlh, &kmg_obj_backend, b);
	return nest_end(nlh, nest);
}

static void put_key(struct nlmsghdr *nlh, const struct kmg_service *s)
{
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ID))
		mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ID, s->id);
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
	put_fields(nlh, &kmg_obj_service, s);
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

	put_fields(nlh, &kmg_obj_config, c);
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

/* Every field of @obj in @tb (lengths checked by parse_nest()) into @s. */
static void get_fields(const struct nlattr **tb, const struct kmg_object *obj, void *s)
{
	unsigned int i;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];

		const struct kmg_attr_desc *d = kmg_field_desc(obj, f);
		char *p = (char *)s + f->off;

		if (!tb[f->attr])
			continue;
		if (d->type == KMG_AT_STRING) {
			/* parse_nest() checked: NUL-terminated, at most d->max bytes before */
			memset(p, 0, field_size(d));
			strcpy(p, mnl_attr_get_str(tb[f->attr]));
		} else {
			memcpy(p, mnl_attr_get_payload(tb[f->attr]), field_size(d));
		}
		*present_of(s) |= KMG_BIT(f->attr);
	}
}

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
	get_fields(tb, &kmg_obj_stats, st);
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
	get_fields(tb, &kmg_obj_backend, b);
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
	get_fields(tb, &kmg_obj_service, s);
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
	get_fields(tb, &kmg_obj_table, t);
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
	get_fields(tb, &kmg_obj_config, c);
	return 0;
}

static int parse_quota(const struct nlattr *nest, struct kmg_quota *q)
{
	const struct nlattr *tb[KMAGLEV_A_QUOTA_MAX + 1];
	int ret = parse_nest(nest, &kmg_schema_quota, tb);

	if (ret)
		return ret;
	memset(q, 0, sizeof(*q));
	/* a bucket is one prefix of one family, its length within the family's */
	if (!tb[KMAGLEV_A_QUOTA_ADDR4] == !tb[KMAGLEV_A_QUOTA_ADDR6])
		return kmg_err(-EBADMSG, "kernel quota bucket: not exactly one of addr4 and addr6");
	if (tb[KMAGLEV_A_QUOTA_ADDR4] || tb[KMAGLEV_A_QUOTA_ADDR6]) {
		struct kmg_addr a;

		get_addr(&a, tb[KMAGLEV_A_QUOTA_ADDR4], tb[KMAGLEV_A_QUOTA_ADDR6]);
		kmg_quota_set_addr(q, &a);
	}
	get_fields(tb, &kmg_obj_quota, q);
	if (!KMG_HAS(q, KMAGLEV_A_QUOTA_PREFIX_LEN) ||
	    q->prefix_len > (tb[KMAGLEV_A_QUOTA_ADDR4] ? 32 : 128))
		return kmg_err(-EBADMSG, "kernel quota bucket: prefix-len missing or too long");
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
		case KMAGLEV_A_QUOTA:
			ret = parse_quota(a, &m->quota);
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
		[KMAGLEV_CMD_TABLE_NTF] = "table-change",
		[KMAGLEV_CMD_SERVICE_FLUSH_NTF] = "service-flush",
		[KMAGLEV_CMD_QUOTA_GET] = "quota-get",
	};

	return cmd <= KMAGLEV_CMD_MAX && names[cmd] ? names[cmd] : NULL;
}
