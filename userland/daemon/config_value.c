// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the config file's values. Each parser takes one scalar with its key
 * and position (struct val) and reports what is wrong with it there: numbers, durations,
 * enum names, booleans, addresses, text; the kernel attributes through the CLI's field
 * tables (p_fields()); and the defaults of the kernel objects a service and a backend
 * start from.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "lib/args.h"
#include "lib/dscp.h"
#include "maglev.h"
#include "daemon/config_int.h"

/* --- values -------------------------------------------------------------------------- */

bool cfg_val(const struct kmd_ynode *map, const char *key, const char *s, struct val *v)
{
	v->s = s;
	v->key = key;
	if (!kmd_ynode_get(map, key, &v->at))
		v->at = map ? map->loc : (struct kmd_loc){ 1, 1 };
	return s != NULL;
}

static bool p_uint(struct ctx *c, const struct val *v, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	uint64_t x;
	int ret = kmg_parse_u64(v->s, &x);

	if (!v->s[0]) {
		err_at(c, v->at, v->key, "needs a value");
		return false;
	}
	if (ret == -EINVAL) {
		err_at(c, v->at, v->key, "\"%s\" is not a number", v->s);
		return false;
	}
	if (ret || x < min || x > max) {
		err_at(c, v->at, v->key, "%s is out of range %llu..%llu", v->s,
		       (unsigned long long)min, (unsigned long long)max);
		return false;
	}
	*out = x;
	return true;
}

bool p_u32(struct ctx *c, const struct val *v, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t x;

	if (!p_uint(c, v, min, max, &x))
		return false;
	*out = x;
	return true;
}

static const struct kmg_unit ms_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
};

static const struct kmg_unit sec_units[] = {
	{ "s", 1 }, { "m", 60 }, { "h", 3600 },
};

/* A duration in milliseconds (@sec false) or in seconds, within @min..@max of that unit. */
bool p_time(struct ctx *c, const struct val *v, bool sec, uint64_t min, uint64_t max,
		   uint32_t *out)
{
	char lo[24], hi[24];
	int ret;

	ret = sec ? kmg_parse_scaled(v->s, sec_units, KMG_ARRAY_SIZE(sec_units), min, max, out) :
		    kmg_parse_scaled(v->s, ms_units, KMG_ARRAY_SIZE(ms_units), min, max, out);
	if (!ret)
		return true;
	kmg_fmt_duration(sec ? min * 1000 : min, lo, sizeof(lo));
	kmg_fmt_duration(sec ? max * 1000 : max, hi, sizeof(hi));
	if (ret == -ERANGE)
		err_at(c, v->at, v->key, "%s is out of range %s..%s", v->s, lo, hi);
	else if (ret == -EDOM && sec)
		err_at(c, v->at, v->key, "%s needs a unit: %ss, %sm or %sh", v->s, v->s, v->s,
		       v->s);
	else if (ret == -EDOM)
		err_at(c, v->at, v->key, "%s needs a unit: %sms, %ss, %sm or %sh", v->s, v->s,
		       v->s, v->s, v->s);
	else
		err_at(c, v->at, v->key, "\"%s\" is not a duration (like %s30s, 5m or 1h)", v->s,
		       sec ? "" : "1500ms, ");
	return false;
}

bool p_ms(struct ctx *c, const struct val *v, uint32_t min, uint32_t max, uint32_t *out)
{
	return p_time(c, v, false, min, max, out);
}

bool p_enum(struct ctx *c, const struct val *v, const char *const *names, unsigned int n,
		   uint32_t *out)
{
	char buf[256];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v->s, names[i])) {
			*out = i;
			return true;
		}
	err_at(c, v->at, v->key, "\"%s\" is not one of %s", v->s,
	       kmg_choices(names, n, buf, sizeof(buf)));
	return false;
}

bool p_bool(struct ctx *c, const struct val *v, bool *out)
{
	if (!strcmp(v->s, "true") || !strcmp(v->s, "false")) {
		*out = v->s[0] == 't';
		return true;
	}
	err_at(c, v->at, v->key, "\"%s\" is not true or false", v->s);
	return false;
}

bool p_addr(struct ctx *c, const struct val *v, unsigned int flags, struct kmg_addr *a)
{
	const char *why = NULL;

	if (kmg_parse_addr(v->s, a)) {
		err_at(c, v->at, v->key, "\"%s\" is not an IPv4 or IPv6 address", v->s);
		return false;
	}
	if (flags & ADDR_V4 && a->family != AF_INET)
		why = "not an IPv4 address";
	else if (flags & ADDR_V6 && a->family != AF_INET6)
		why = "not an IPv6 address";
	else if (kmg_addr_is_v4mapped(a))
		why = "an IPv4-mapped IPv6 address; write the IPv4 form";
	else if (kmg_addr_is_unspec(a))
		why = flags & ADDR_UNSPEC ? NULL : "the unspecified address";
	else if (kmg_addr_is_multicast(a))
		why = "a multicast address";
	else if (a->family == AF_INET && !(ntohl(a->v4.s_addr) >> 24))
		why = "in 0.0.0.0/8";
	else if (a->family == AF_INET && a->v4.s_addr == INADDR_BROADCAST)
		why = "the broadcast address";
	if (!why)
		return true;
	err_at(c, v->at, v->key, "%s is %s", v->s, why);
	return false;
}

/* Text of @min..@max bytes without control characters (or, with @nospace, spaces). */
bool p_text(struct ctx *c, const struct val *v, size_t min, size_t max, bool nospace,
		   char **out)
{
	size_t len = strlen(v->s), i;

	if (len < min || len > max) {
		if (!len)
			err_at(c, v->at, v->key, "must not be empty");
		else
			err_at(c, v->at, v->key, "too long: %zu bytes, at most %zu", len, max);
		return false;
	}
	for (i = 0; i < len; i++)
		if (iscntrl((unsigned char)v->s[i]) || (nospace && v->s[i] == ' ')) {
			err_at(c, v->at, v->key, "\"%s\" contains a %s", v->s,
			       v->s[i] == ' ' ? "space" : "control character");
			return false;
		}
	*out = xstrdup(c, v->s);
	return *out != NULL;
}

static void store_uint(const struct kmg_attr_desc *d, void *p, uint64_t x)
{
	switch (d->type) {
	case KMG_AT_U8:
		*(uint8_t *)p = x;
		break;
	case KMG_AT_U16:
		*(uint16_t *)p = x;
		break;
	case KMG_AT_U64:
		*(uint64_t *)p = x;
		break;
	default:
		*(uint32_t *)p = x;
		break;
	}
}

/* The value of kernel attribute @f of @obj into @s, present bit set. */
static bool p_field(struct ctx *c, const struct kmg_object *obj, const struct kmg_field *f,
		    const struct val *v, void *s)
{
	const struct kmg_attr_desc *d = kmg_field_desc(obj, f);
	uint64_t max = d->max > UINT32_MAX ? UINT32_MAX : d->max, x;
	void *p = (char *)s + f->off;
	uint32_t u = 0, lo, hi;
	struct kmg_addr a;

	switch (f->fmt) {
	case KMG_FMT_PRIME:
		if (!p_uint(c, v, d->min, max, &x))
			return false;
		if (!kmg_is_prime(x)) {
			for (lo = x - 1; !kmg_is_prime(lo); lo--)
				;
			for (hi = x + 1; !kmg_is_prime(hi); hi++)
				;
			err_at(c, v->at, v->key, "%s is not a prime (nearest primes: %u and %u)",
			       v->s, lo < d->min ? hi : lo, hi > max ? lo : hi);
			return false;
		}
		store_uint(d, p, x);
		break;
	case KMG_FMT_ENUM:
		if (!p_enum(c, v, d->enm->names, d->enm->n, &u))
			return false;
		store_uint(d, p, u);
		break;
	case KMG_FMT_MS:
	case KMG_FMT_SEC:
		if (!p_time(c, v, f->fmt == KMG_FMT_SEC, d->min, max, &u))
			return false;
		store_uint(d, p, u);
		break;
	case KMG_FMT_SEED:
		if (kmg_parse_seed(v->s, p)) {
			err_at(c, v->at, v->key, "\"%s\" is not 32 hexadecimal digits", v->s);
			return false;
		}
		break;
	case KMG_FMT_STRING:
		if (strlen(v->s) > d->max) {
			err_at(c, v->at, v->key, "longer than %llu bytes",
			       (unsigned long long)d->max);
			return false;
		}
		strcpy(p, v->s);
		break;
	case KMG_FMT_ADDR:
		if (!p_addr(c, v, ADDR_UNSPEC | (d->hint == KMG_HINT_IPV4 ? ADDR_V4 : ADDR_V6),
			    &a))
			return false;
		memcpy(p, a.family == AF_INET ? (void *)&a.v4 : (void *)&a.v6,
		       a.family == AF_INET ? 4 : 16);
		break;
	default:
		if (!p_uint(c, v, d->min, max, &x))
			return false;
		store_uint(d, p, x);
		break;
	}
	*(uint64_t *)s |= KMG_BIT(f->attr);
	return true;
}

/*
 * A dscp-map, from the tree: a mapping of DSCP to class ({ef: critical-plus, 10: sheddable};
 * {} is none), or the text "kmaglev config set" takes ("ef=critical-plus,10=sheddable",
 * "none"). Each entry's error is reported at that entry.
 */
static void p_dscp_map(struct ctx *c, const struct kmg_object *obj, const struct kmg_field *f,
		       const struct kmd_ynode *map, void *s)
{
	const char *key = kmg_field_key(obj, f);
	uint8_t out[KMAGLEV_DSCP_MAP_LEN] = { 0 };
	const struct kmd_ynode *n, *e;
	unsigned int i, nerr = c->nerr;
	struct kmd_loc at;
	uint64_t seen = 0;
	char why[160];
	size_t mark;

	n = kmd_ynode_get(map, key, &at);
	if (!n)
		return;
	switch (n->type) {
	case KMD_YSCALAR:
		if (kmg_parse_dscp_map(n->str, out, why, sizeof(why)))
			err_at(c, at, key, "%s", why);
		break;
	case KMD_YMAP:
		mark = path_push(c, key, 0);
		for (i = 0; i < n->n; i++) {
			int d = kmg_dscp_value(n->keys[i]->str);
			/* an unknown or repeated DSCP is the key's fault, else the class's */
			bool bad_key = d < 0 || (seen >> d & 1);

			e = n->kids[i];
			if (e->type != KMD_YSCALAR)
				err_at(c, e->loc, NULL, "DSCP %s: expected a class, not %s",
				       n->keys[i]->str,
				       e->type == KMD_YMAP ? "a mapping" : "a list");
			else if (kmg_dscp_map_set(out, &seen, n->keys[i]->str, e->str, why,
						  sizeof(why)))
				err_at(c, bad_key ? n->keys[i]->loc : e->loc, NULL, "%s", why);
		}
		path_pop(c, mark);
		break;
	default:
		err_at(c, at, key, "expected a mapping (DSCP: CLASS) or DSCP=CLASS[,...], not a "
		       "list");
		break;
	}
	if (c->nerr != nerr)
		return;
	memcpy((char *)s + f->off, out, sizeof(out));
	*(uint64_t *)s |= KMG_BIT(f->attr);
}

void p_fields(struct ctx *c, const struct kmg_object *obj, char *const *raw,
		     const struct kmd_ynode *map, void *s)
{
	unsigned int i;
	struct val v;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];

		if (f->flags & (KMG_FF_RO | KMG_FF_KEY | KMG_FF_STATE) ||
		    f->fmt == KMG_FMT_FLAGS)
			continue;
		if (f->fmt == KMG_FMT_DSCP_MAP)
			p_dscp_map(c, obj, f, map, s);
		else if (cfg_val(map, kmg_field_key(obj, f), raw[f->attr], &v))
			p_field(c, obj, f, &v, s);
	}
}

/* Every settable attribute of @obj marked present (their defaults are already in @s). */
static void set_all(const struct kmg_object *obj, void *s)
{
	unsigned int i;

	for (i = 0; i < obj->n; i++)
		if (!(obj->fields[i].flags & (KMG_FF_RO | KMG_FF_KEY)))
			*(uint64_t *)s |= KMG_BIT(obj->fields[i].attr);
}

void kmd_service_defaults(struct kmg_service *s, const uint8_t seed[KMG_SEED_BYTES])
{
	s->table_size = KMAGLEV_TABLE_SIZE_DEFAULT;
	s->hash = KMAGLEV_HASH_FIVE_TUPLE;
	s->flags = 0;
	memcpy(s->seed, seed, KMG_SEED_BYTES);
	s->ramp_pct = KMD_RAMP_DEFAULT;
	s->ramp_ms = 0;
	s->window_ms = KMD_WINDOW_DEFAULT_MS;
	s->max_conns = 0;
	s->client_rate = 0;
	memset(&s->encap_src4, 0, sizeof(s->encap_src4));
	memset(&s->encap_src6, 0, sizeof(s->encap_src6));
	s->criticality = KMAGLEV_CRITICALITY_CRITICAL;
	s->overload = KMAGLEV_OVERLOAD_OFF;
	set_all(&kmg_obj_service, s);
}

void kmd_backend_defaults(struct kmg_backend *b)
{
	b->weight = KMD_WEIGHT_DEFAULT;
	b->state = KMAGLEV_BACKEND_STATE_UP;
	b->encap = KMAGLEV_ENCAP_IPIP;
	b->gre_key = 0;
	b->max_conns = 0;
	set_all(&kmg_obj_backend, b);
}
