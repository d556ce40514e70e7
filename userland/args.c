// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: keyword parsing and value parsers (see args.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "err.h"
#include "maglev.h"

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
	return -EINVAL;
}

int kmg_parse_duration(const char *s, uint32_t *ms)
{
	static const struct kmg_unit units[] = {
		{ "", 1 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};

	return kmg_parse_scaled(s, units, KMG_ARRAY_SIZE(units), 0, KMAGLEV_MS_MAX, ms);
}

int kmg_arg_duration(const char *field, const char *s, uint32_t *ms)
{
	int ret = kmg_parse_duration(s, ms);

	if (ret == -ERANGE)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": at most 24h (%u ms)", field, s,
			       KMAGLEV_MS_MAX);
	if (ret)
		return kmg_err(KMG_EUSAGE,
			       "invalid %s \"%s\": expected a duration like 1500ms, 30s or 2m (a bare number is milliseconds)",
			       field, s);
	return 0;
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

static const char *const hash_names[] = {
	[KMAGLEV_HASH_FIVE_TUPLE] = "5tuple",
	[KMAGLEV_HASH_THREE_TUPLE] = "3tuple",
	[KMAGLEV_HASH_SRC_ADDR] = "src",
};

/* The spec's names, accepted too. */
static const char *const hash_names_long[] = {
	[KMAGLEV_HASH_FIVE_TUPLE] = "five-tuple",
	[KMAGLEV_HASH_THREE_TUPLE] = "three-tuple",
	[KMAGLEV_HASH_SRC_ADDR] = "src-addr",
};

static const char *const state_names[] = {
	[KMAGLEV_BACKEND_STATE_UP] = "up",
	[KMAGLEV_BACKEND_STATE_DRAIN] = "drain",
	[KMAGLEV_BACKEND_STATE_DOWN] = "down",
};

static const char *const encap_names[] = {
	[KMAGLEV_ENCAP_IPIP] = "ipip",
	[KMAGLEV_ENCAP_GRE] = "gre",
};

static const char *const flag_names[] = { "echo", "defrag", "resched" };

static int find_exact(const char *s, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* One of @names, or the usage error "invalid FIELD "S": must be CHOICES". */
static int arg_name(const char *field, const char *s, const char *const *names, size_t n,
		    const char *choices, uint32_t *out)
{
	int i = find_exact(s, names, n);

	if (i < 0)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": must be %s", field, s, choices);
	*out = i;
	return 0;
}

static const char *fmt_name(uint32_t v, const char *const *names, size_t n)
{
	return v < n ? names[v] : "unknown";
}

int kmg_arg_hash(const char *s, uint32_t *hash)
{
	int i = find_exact(s, hash_names_long, KMG_ARRAY_SIZE(hash_names_long));

	if (i >= 0) {
		*hash = i;
		return 0;
	}
	return arg_name("hash", s, hash_names, KMG_ARRAY_SIZE(hash_names), "5tuple, 3tuple or src",
			hash);
}

const char *kmg_fmt_hash(uint32_t hash)
{
	return fmt_name(hash, hash_names, KMG_ARRAY_SIZE(hash_names));
}

int kmg_arg_state(const char *s, uint32_t *state)
{
	return arg_name("state", s, state_names, KMG_ARRAY_SIZE(state_names), "up, drain or down",
			state);
}

const char *kmg_fmt_state(uint32_t state)
{
	return fmt_name(state, state_names, KMG_ARRAY_SIZE(state_names));
}

int kmg_arg_encap(const char *s, uint32_t *encap)
{
	return arg_name("encap", s, encap_names, KMG_ARRAY_SIZE(encap_names), "ipip or gre",
			encap);
}

const char *kmg_fmt_encap(uint32_t encap)
{
	return fmt_name(encap, encap_names, KMG_ARRAY_SIZE(encap_names));
}

int kmg_arg_flags(const char *s, uint32_t *flags)
{
	char buf[128], *tok, *save;
	uint32_t f = 0;

	if (!strcmp(s, "none")) {
		*flags = 0;
		return 0;
	}
	if (!*s || strlen(s) >= sizeof(buf))
		return kmg_err(KMG_EUSAGE,
			       "invalid flags \"%s\": expected FLAG[,FLAG...] of echo, defrag, resched, or none",
			       s);
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i = find_exact(tok, flag_names, KMG_ARRAY_SIZE(flag_names));

		if (i < 0)
			return kmg_err(KMG_EUSAGE,
				       "invalid flags \"%s\": unknown flag \"%s\" (expected echo, defrag, resched, or none)",
				       s, tok);
		f |= 1U << i;
	}
	*flags = f;
	return 0;
}

const char *kmg_fmt_flags(uint32_t flags, char *buf, size_t len)
{
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < KMG_ARRAY_SIZE(flag_names) && n < len; i++)
		if (flags & (1U << i))
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "", flag_names[i]);
	if (flags >> KMG_ARRAY_SIZE(flag_names) && n < len)
		n += snprintf(buf + n, len - n, "%s0x%x", n ? "," : "",
			      flags >> KMG_ARRAY_SIZE(flag_names) << KMG_ARRAY_SIZE(flag_names));
	if (!n)
		snprintf(buf, len, "none");
	return buf;
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
	static const char *const kws[] = { "weight", "state", "encap", "gre-key", "max-conns" };
	static const int attr[] = {
		KMAGLEV_A_BACKEND_WEIGHT, KMAGLEV_A_BACKEND_STATE, KMAGLEV_A_BACKEND_ENCAP,
		KMAGLEV_A_BACKEND_GRE_KEY, KMAGLEV_A_BACKEND_MAX_CONNS,
	};

	while (kmg_args_more(a)) {
		int k = find_exact(kmg_args_peek(a), kws, KMG_ARRAY_SIZE(kws));
		const char *v = NULL;
		int ret;

		if (k < 0)
			return 0;
		kmg_args_next(a);
		if (KMG_HAS(b, attr[k]))
			return kmg_err_dup(kws[k]);
		if (kmg_args_value(a, kws[k], &v))
			return KMG_EUSAGE;
		switch (attr[k]) {
		case KMAGLEV_A_BACKEND_WEIGHT:
			ret = kmg_arg_weight(v, &b->weight);
			break;
		case KMAGLEV_A_BACKEND_STATE:
			ret = kmg_arg_state(v, &b->state);
			break;
		case KMAGLEV_A_BACKEND_ENCAP:
			ret = kmg_arg_encap(v, &b->encap);
			break;
		case KMAGLEV_A_BACKEND_GRE_KEY:
			ret = kmg_arg_u32("gre-key", v, 0, UINT32_MAX, &b->gre_key);
			break;
		default:
			ret = kmg_arg_u32("max-conns", v, 0, UINT32_MAX, &b->max_conns);
			break;
		}
		if (ret)
			return ret;
		KMG_SET(b, attr[k]);
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
