// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: keyword parsing and value parsers (see args.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include "lib/args.h"
#include "lib/dscp.h"
#include "lib/err.h"
#include "maglev.h"
#include "lib/schema.h"

int kmg_args_value(struct kmg_args *a, const char *kw, const char **val)
{
	if (!kmg_args_more(a))
		return kmg_err(KMG_EUSAGE, "missing value after \"%s\"", kw);
	*val = kmg_args_next(a);
	return 0;
}

int kmg_err_dup(const char *kw)
{
	return kmg_err(KMG_EUSAGE, "duplicate keyword \"%s\"", kw);
}

int kmg_err_unknown(const char *word, const char *where)
{
	char object[32];

	/* "service add" -> see "kmaglev service help" */
	snprintf(object, sizeof(object), "%s", where);
	object[strcspn(object, " ")] = '\0';
	return kmg_err(KMG_EUSAGE, "unknown keyword \"%s\" in %s; see \"kmaglev %s help\"", word,
		       where, object);
}

int kmg_err_missing(const char *what, const char *where)
{
	return kmg_err(KMG_EUSAGE, "missing %s in %s", what, where);
}

int kmg_lookup(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word), i;
	int found = -1;

	if (!len)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(word, names[i]))
			return i;
	for (i = 0; i < n; i++) {
		if (strncmp(word, names[i], len))
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

/* --- numbers --------------------------------------------------------------------------- */

int kmg_arg_u32(const char *field, const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	if (kmg_parse_u32(s, min, max, out))
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": must be %u..%u", field, s, min, max);
	return 0;
}

int kmg_arg_weight(const char *s, uint32_t *w)
{
	return kmg_arg_u32("weight", s, 0, KMAGLEV_WEIGHT_MAX, w);
}

int kmg_arg_table_size(const char *s, uint32_t *m)
{
	uint32_t v = 0, lo, hi;

	if (kmg_parse_u32(s, KMAGLEV_TABLE_SIZE_MIN, KMAGLEV_TABLE_SIZE_MAX, &v) == 0) {
		if (kmg_is_prime(v)) {
			*m = v;
			return 0;
		}
		for (lo = v - 1; !kmg_is_prime(lo); lo--)
			;
		for (hi = v + 1; !kmg_is_prime(hi); hi++)
			;
		return kmg_err(KMG_EUSAGE,
			       "invalid table-size \"%s\": must be a prime between %u and %u (nearest primes: %u and %u)",
			       s, KMAGLEV_TABLE_SIZE_MIN, KMAGLEV_TABLE_SIZE_MAX,
			       lo < KMAGLEV_TABLE_SIZE_MIN ? hi : lo,
			       hi > KMAGLEV_TABLE_SIZE_MAX ? lo : hi);
	}
	return kmg_err(KMG_EUSAGE, "invalid table-size \"%s\": must be a prime between %u and %u",
		       s, KMAGLEV_TABLE_SIZE_MIN, KMAGLEV_TABLE_SIZE_MAX);
}

/* --- durations ------------------------------------------------------------------------- */

int kmg_parse_scaled(const char *s, const struct kmg_unit *units, size_t nunits, uint64_t min,
		     uint64_t max, uint32_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	size_t i;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (*p - '0');
		if (v > max)
			return -ERANGE;
	}
	for (i = 0; i < nunits; i++) {
		if (strcmp(p, units[i].suffix))
			continue;
		v *= units[i].mult;
		if (v < min || v > max)
			return -ERANGE;
		*out = v;
		return 0;
	}
	/* a bare number: which unit? */
	return *p ? -EINVAL : -EDOM;
}

static const struct kmg_unit ms_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
};

static const struct kmg_unit sec_units[] = {
	{ "s", 1 }, { "m", 60 }, { "h", 3600 },
};

int kmg_parse_duration(const char *s, uint32_t *ms)
{
	return kmg_parse_scaled(s, ms_units, KMG_ARRAY_SIZE(ms_units), 0, KMAGLEV_MS_MAX, ms);
}

int kmg_parse_seconds(const char *s, uint32_t *sec)
{
	return kmg_parse_scaled(s, sec_units, KMG_ARRAY_SIZE(sec_units), 1, KMAGLEV_TIMEOUT_MAX,
				sec);
}

/* A duration in milliseconds (@sec false) or seconds, within @min..@max of that unit. */
static int arg_time(const char *field, const char *s, bool sec, uint64_t min, uint64_t max,
		    uint32_t *out)
{
	char lo[24], hi[24];
	int ret;

	ret = sec ? kmg_parse_scaled(s, sec_units, KMG_ARRAY_SIZE(sec_units), min, max, out) :
		    kmg_parse_scaled(s, ms_units, KMG_ARRAY_SIZE(ms_units), min, max, out);
	if (!ret)
		return 0;
	kmg_fmt_duration(sec ? min * 1000 : min, lo, sizeof(lo));
	kmg_fmt_duration(sec ? max * 1000 : max, hi, sizeof(hi));
	if (ret == -ERANGE)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": must be %s..%s", field, s, lo, hi);
	if (ret == -EDOM && sec)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": give a unit: %ss, %sm or %sh",
			       field, s, s, s, s);
	if (ret == -EDOM)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": give a unit: %sms, %ss, %sm or %sh",
			       field, s, s, s, s, s);
	return kmg_err(KMG_EUSAGE,
		       "invalid %s \"%s\": expected a duration like %s30s, 15m or 2h", field, s,
		       sec ? "" : "1500ms, ");
}

int kmg_arg_duration(const char *field, const char *s, uint32_t *ms)
{
	return arg_time(field, s, false, 0, KMAGLEV_MS_MAX, ms);
}

const char *kmg_fmt_duration(uint32_t ms, char *buf, size_t len)
{
	if (ms && ms % 3600000 == 0)
		snprintf(buf, len, "%uh", ms / 3600000);
	else if (ms && ms % 60000 == 0)
		snprintf(buf, len, "%um", ms / 60000);
	else if (ms && ms % 1000 == 0)
		snprintf(buf, len, "%us", ms / 1000);
	else
		snprintf(buf, len, "%ums", ms);
	return buf;
}

/* --- seeds ----------------------------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kmg_parse_seed(const char *s, uint8_t seed[KMG_SEED_BYTES])
{
	uint8_t out[KMG_SEED_BYTES];
	int i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (strlen(s) != 2 * KMG_SEED_BYTES)
		return -EINVAL;
	for (i = 0; i < KMG_SEED_BYTES; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = hi << 4 | lo;
	}
	memcpy(seed, out, sizeof(out));
	return 0;
}

int kmg_arg_seed(const char *s, uint8_t seed[KMG_SEED_BYTES])
{
	if (kmg_parse_seed(s, seed))
		return kmg_err(KMG_EUSAGE,
			       "invalid seed \"%s\": must be 32 hexadecimal digits (128 bits)", s);
	return 0;
}

const char *kmg_fmt_seed(const uint8_t seed[KMG_SEED_BYTES], char *buf, size_t len)
{
	size_t i;

	if (len < 2 * KMG_SEED_BYTES + 1) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	for (i = 0; i < KMG_SEED_BYTES; i++)
		snprintf(buf + 2 * i, 3, "%02x", seed[i]);
	return buf;
}

/* --- enumerations ---------------------------------------------------------------------- */

/* Short names of the hash enum, accepted besides the spec's. */
static const char *const hash_short[] = {
	[KMAGLEV_HASH_FIVE_TUPLE] = "5tuple",
	[KMAGLEV_HASH_THREE_TUPLE] = "3tuple",
	[KMAGLEV_HASH_SRC_ADDR] = "src",
};

static int find_exact(const char *s, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	return -1;
}

/* "a, b or c" */
static const char *choices(const struct kmg_enum *e, char *buf, size_t len)
{
	return kmg_choices(e->names, e->n, buf, len);
}

int kmg_arg_enum(const char *field, const struct kmg_enum *e, const char *s, uint32_t *out)
{
	char buf[128];
	int i = find_exact(s, e->names, e->n);

	if (i < 0 && e == &kmg_enum_hash)
		i = find_exact(s, hash_short, KMG_ARRAY_SIZE(hash_short));
	if (i < 0)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": must be %s", field, s,
			       choices(e, buf, sizeof(buf)));
	*out = i;
	return 0;
}

const char *kmg_fmt_enum(const struct kmg_enum *e, uint64_t v, char *buf, size_t len)
{
	if (v < e->n)
		return e->names[v];
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

int kmg_arg_flags(const char *field, const struct kmg_enum *e, const char *s, uint32_t *flags)
{
	char buf[128], names[128], *tok, *save;
	uint32_t f = 0;

	if (!strcmp(s, "none")) {
		*flags = 0;
		return 0;
	}
	choices(e, names, sizeof(names));
	/* strtok_r would skip empty names: ",", "echo,,defrag" */
	if (!*s || strlen(s) >= sizeof(buf) || *s == ',' || s[strlen(s) - 1] == ',' ||
	    strstr(s, ",,"))
		return kmg_err(KMG_EUSAGE,
			       "invalid %s \"%s\": expected NAME[,NAME...] of %s, or none", field,
			       s, names);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = find_exact(tok, e->names, e->n);

		if (i < 0)
			return kmg_err(KMG_EUSAGE,
				       "invalid %s \"%s\": unknown flag \"%s\" (expected %s, or none)",
				       field, s, tok, names);
		f |= 1U << i;
	}
	*flags = f;
	return 0;
}

const char *kmg_fmt_flags(const struct kmg_enum *e, uint64_t flags, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < 32 && n < len; i++) {
		if (!(flags & (1ULL << i)))
			continue;
		if (i < e->n)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "", e->names[i]);
		else
			n += snprintf(buf + n, len - n, "%s0x%x", n ? "," : "", 1U << i);
	}
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}

/* --- fields ---------------------------------------------------------------------------- */

int kmg_arg_field(const struct kmg_object *obj, const struct kmg_field *f, const char *v,
		  void *s)
{
	const struct kmg_attr_desc *d = kmg_field_desc(obj, f);
	const char *key = kmg_field_key(obj, f);
	void *p = (char *)s + f->off;
	uint64_t *present = s;
	struct kmg_addr a;
	char why[160];
	int ret = 0;

	if (f->flags & (KMG_FF_RO | KMG_FF_KEY))
		return kmg_err(KMG_EUSAGE, "%s is read-only (shown by \"kmaglev %s show\")", key,
			       obj->name);
	if ((*present >> f->attr) & 1)
		return kmg_err_dup(key);
	switch (f->fmt) {
	case KMG_FMT_PRIME:
		ret = kmg_arg_table_size(v, p);
		break;
	case KMG_FMT_ENUM:
		ret = kmg_arg_enum(key, d->enm, v, p);
		break;
	case KMG_FMT_FLAGS:
		ret = kmg_arg_flags(key, d->enm, v, p);
		break;
	case KMG_FMT_MS:
	case KMG_FMT_SEC:
		ret = arg_time(key, v, f->fmt == KMG_FMT_SEC, d->min, d->max, p);
		break;
	case KMG_FMT_SEED:
		ret = kmg_arg_seed(v, p);
		break;
	case KMG_FMT_DSCP_MAP:
		if (kmg_parse_dscp_map(v, p, why, sizeof(why)))
			return kmg_err(KMG_EUSAGE, "invalid %s: %s", key, why);
		break;
	case KMG_FMT_STRING:
		if (strlen(v) > d->max)
			return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": longer than %" PRIu64
				       " bytes", key, v, d->max);
		/* opaque to the kernel; printable here, so that show and save print it back */
		for (size_t i = 0; v[i]; i++)
			if (iscntrl((unsigned char)v[i]))
				return kmg_err(KMG_EUSAGE, "invalid %s: control character", key);
		strcpy(p, v);	/* an empty one clears it */
		break;
	case KMG_FMT_ADDR:
		ret = kmg_arg_addr(key, v, &a, KMG_ADDR_ALLOW_UNSPEC);
		if (ret)
			break;
		if ((a.family == AF_INET) != (d->hint == KMG_HINT_IPV4))
			return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": not an %s address", key, v,
				       d->hint == KMG_HINT_IPV4 ? "IPv4" : "IPv6");
		memcpy(p, a.family == AF_INET ? (void *)&a.v4 : (void *)&a.v6, d->len ? d->len : 4);
		break;
	default:
		ret = kmg_arg_u32(key, v, d->min, d->max > UINT32_MAX ? UINT32_MAX : d->max, p);
		break;
	}
	if (ret)
		return ret;
	*present |= KMG_BIT(f->attr);
	return 0;
}

int kmg_keyword(const struct kmg_object *obj, const char *const *words, size_t nwords,
		const char *kw, const char *where, const struct kmg_field **f, int *word)
{
	size_t len = strlen(kw), i, n = 0, clen = 0;
	char cands[512] = "";

	*f = NULL;
	*word = -1;
	for (i = 0; obj && i < obj->n; i++)
		if (!strcmp(kw, kmg_field_key(obj, &obj->fields[i]))) {
			*f = &obj->fields[i];
			return 0;
		}
	for (i = 0; i < nwords; i++)
		if (!strcmp(kw, words[i])) {
			*word = i;
			return 0;
		}
	if (!len)
		return -ENOENT;
	/* a prefix: of one of the fields that may be given, or of one of the words */
	for (i = 0; obj && i < obj->n; i++) {
		const struct kmg_field *c = &obj->fields[i];
		const char *key = kmg_field_key(obj, c);

		if (c->flags & (KMG_FF_RO | KMG_FF_KEY) || strncmp(kw, key, len))
			continue;
		if (!n++)
			*f = c;
		if (clen < sizeof(cands))
			clen += snprintf(cands + clen, sizeof(cands) - clen, "%s%s",
					 clen ? ", " : "", key);
	}
	for (i = 0; i < nwords; i++) {
		if (strncmp(kw, words[i], len))
			continue;
		if (!n++)
			*word = i;
		if (clen < sizeof(cands))
			clen += snprintf(cands + clen, sizeof(cands) - clen, "%s%s",
					 clen ? ", " : "", words[i]);
	}
	if (n == 1)
		return 0;
	*f = NULL;
	*word = -1;
	if (!n)
		return -ENOENT;
	return kmg_err(KMG_EUSAGE, "ambiguous keyword \"%s\" in %s: %s?", kw, where, cands);
}

int kmg_arg_keyword(const struct kmg_object *obj, struct kmg_args *a, const char *where,
		    void *s, bool *taken)
{
	const char *kw = kmg_args_peek(a), *v = NULL;
	const struct kmg_field *f;
	int ret, word;

	*taken = false;
	ret = kmg_keyword(obj, NULL, 0, kw, where, &f, &word);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	kmg_args_next(a);
	*taken = true;
	if (kmg_args_value(a, kmg_field_key(obj, f), &v))
		return KMG_EUSAGE;
	return kmg_arg_field(obj, f, v, s);
}

/* --- addresses ------------------------------------------------------------------------- */

/* Refuse what can never be a VIP or a backend, with a reason. */
static const char *addr_problem(const struct kmg_addr *a, unsigned int flags, char *hint,
				size_t len)
{
	if (kmg_addr_is_v4mapped(a)) {
		struct in_addr v4;

		memcpy(&v4, &a->v6.s6_addr[12], 4);
		snprintf(hint, len, "IPv4-mapped IPv6 address; use the IPv4 form %s",
			 inet_ntoa(v4));
		return hint;
	}
	if (kmg_addr_is_unspec(a))
		return flags & KMG_ADDR_ALLOW_UNSPEC ? NULL : "unspecified address";
	if (kmg_addr_is_multicast(a))
		return "multicast address";
	if (a->family == AF_INET && !(ntohl(a->v4.s_addr) >> 24))
		return "address in 0.0.0.0/8";
	if (a->family == AF_INET && a->v4.s_addr == INADDR_BROADCAST)
		return "broadcast address";
	return NULL;
}

int kmg_arg_addr(const char *field, const char *s, struct kmg_addr *a, unsigned int flags)
{
	const char *why;
	char hint[96];

	if (kmg_parse_addr(s, a))
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": not an IPv4 or IPv6 address", field, s);
	why = addr_problem(a, flags, hint, sizeof(hint));
	if (why)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": %s", field, s, why);
	return 0;
}

int kmg_arg_service(struct kmg_args *a, struct kmg_service *s, bool allow_id)
{
	struct kmg_svc_key k;
	const char *spec = kmg_args_next(a), *why;
	char hint[96];

	if (!spec)
		return kmg_err(KMG_EUSAGE, "missing SERVICE (ADDR[:PORT][/PROTO]%s)",
			       allow_id ? " or id N" : "");
	if (!strcmp(spec, "id")) {
		const char *v = NULL;

		if (!allow_id)
			return kmg_err(KMG_EUSAGE,
				       "a service id cannot be used here; give ADDR[:PORT][/PROTO]");
		if (kmg_args_value(a, "id", &v) || kmg_arg_u32("service id", v, 0, UINT32_MAX,
								 &s->id))
			return KMG_EUSAGE;
		KMG_SET(s, KMAGLEV_A_SERVICE_ID);
		return 0;
	}
	if (kmg_parse_svc_spec_why(spec, &k, &why))
		return kmg_err(KMG_EUSAGE, "invalid service \"%s\": %s", spec, why);
	why = addr_problem(&k.addr, 0, hint, sizeof(hint));
	if (why)
		return kmg_err(KMG_EUSAGE, "invalid service \"%s\": %s", spec, why);
	kmg_service_set_key(s, &k);
	return 0;
}

/* --- backends -------------------------------------------------------------------------- */

int kmg_arg_backend_opts(struct kmg_args *a, struct kmg_backend *b)
{
	while (kmg_args_more(a)) {
		bool taken;
		int ret = kmg_arg_keyword(&kmg_obj_backend, a, "backend", b, &taken);

		if (ret || !taken)
			return ret;
	}
	return 0;
}

int kmg_check_backend(const struct kmg_backend *b, bool is_new)
{
	char addr[INET6_ADDRSTRLEN];

	if (!KMG_HAS(b, KMAGLEV_A_BACKEND_GRE_KEY))
		return 0;
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_ENCAP) ? b->encap != KMAGLEV_ENCAP_GRE : is_new)
		return kmg_err(KMG_EUSAGE,
			       "invalid gre-key for backend %s: a GRE key needs \"encap gre\"%s",
			       kmg_fmt_addr(&b->addr, addr, sizeof(addr)),
			       KMG_HAS(b, KMAGLEV_A_BACKEND_ENCAP) ? " (encap is ipip)" :
			       " (the default encap is ipip)");
	return 0;
}

int kmg_pick(const char *word, const char *const *names, size_t n, const char *what,
	     const char *object)
{
	char help[64], cands[256] = "";
	size_t i, len = 0;
	int k = kmg_lookup(word, names, n);

	if (k >= 0)
		return k;
	if (object)
		snprintf(help, sizeof(help), "kmaglev %s help", object);
	else
		snprintf(help, sizeof(help), "kmaglev help");
	if (k == -1) {
		if (object)
			kmg_err(KMG_EUSAGE, "unknown %s \"%s\" for %s; try \"%s\"", what, word,
				object, help);
		else
			kmg_err(KMG_EUSAGE, "unknown %s \"%s\"; try \"%s\"", what, word, help);
		return -1;
	}
	for (i = 0; i < n && len < sizeof(cands); i++)
		if (!strncmp(word, names[i], strlen(word)))
			len += snprintf(cands + len, sizeof(cands) - len, "%s%s", len ? ", " : "",
					names[i]);
	kmg_err(KMG_EUSAGE, "ambiguous %s \"%s\": %s?", what, word, cands);
	return -1;
}
