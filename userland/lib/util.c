// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: parsing helpers for addresses, service specs and numbers. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/util.h"

int kmg_parse_addr(const char *s, struct kmg_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->v4) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->v6) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

const char *kmg_fmt_addr(const struct kmg_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, &a->v6, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

int kmg_parse_proto(const char *s, uint8_t *proto)
{
	if (!strcasecmp(s, "tcp"))
		*proto = IPPROTO_TCP;
	else if (!strcasecmp(s, "udp"))
		*proto = IPPROTO_UDP;
	else if (!strcasecmp(s, "any"))
		*proto = 0;
	else
		return -EINVAL;
	return 0;
}

const char *kmg_fmt_proto(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case 0:
		return "any";
	}
	return "?";
}

/* Decimal, or hexadecimal with a 0x prefix; never octal (a port "080" is 80). */
int kmg_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	int base = 10;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s || *s == '-' || *s == '+' || *s == ' ')
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	*out = v;
	return 0;
}

int kmg_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	int ret = kmg_parse_u64(s, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * ADDR, ADDR:PORT, [V6] or [V6]:PORT, each optionally followed by /PROTO: an IPv6 address is
 * always bracketed. Missing port means 0 (every port), missing proto means tcp.
 */
int kmg_parse_svc_spec_why(const char *s, struct kmg_svc_key *k, const char **why)
{
	char buf[128], *p, *port = NULL, *proto;
	const char *dummy;
	uint32_t v;

	if (!why)
		why = &dummy;
	*why = "expected ADDR[:PORT][/tcp|udp|any], an IPv6 address in brackets: [ADDR]:PORT";
	if (strlen(s) >= sizeof(buf) || !*s)
		return -EINVAL;
	strcpy(buf, s);
	memset(k, 0, sizeof(*k));
	k->proto = IPPROTO_TCP;

	proto = strrchr(buf, '/');
	if (proto) {
		*proto++ = '\0';
		if (kmg_parse_proto(proto, &k->proto)) {
			*why = "protocol must be tcp, udp or any";
			return -EINVAL;
		}
	}
	p = buf;
	if (*p == '[') {
		char *close = strchr(p, ']');

		if (!close) {
			*why = "missing \"]\" after an IPv6 address";
			return -EINVAL;
		}
		*close = '\0';
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return -EINVAL;
		p++;
	} else if (strchr(p, ':') != strrchr(p, ':')) {
		/* "2001:db8::1:80" could be an address or an address and a port */
		*why = "an IPv6 address goes in brackets: [ADDR], [ADDR]/PROTO or [ADDR]:PORT/PROTO";
		return -EINVAL;
	} else if (strchr(p, ':')) {
		port = strchr(p, ':');
		*port++ = '\0';
	}
	if (kmg_parse_addr(p, &k->addr)) {
		*why = "not an IPv4 or IPv6 address";
		return -EINVAL;
	}
	if (port) {
		if (kmg_parse_u32(port, 0, 65535, &v)) {
			*why = "port must be 0..65535";
			return -EINVAL;
		}
		k->port = v;
	}
	return 0;
}

int kmg_parse_svc_spec(const char *s, struct kmg_svc_key *k)
{
	return kmg_parse_svc_spec_why(s, k, NULL);
}

const char *kmg_fmt_svc_key(const struct kmg_svc_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	kmg_fmt_addr(&k->addr, a, sizeof(a));
	if (k->addr.family == AF_INET6)
		snprintf(buf, len, "[%s]:%u/%s", a, k->port, kmg_fmt_proto(k->proto));
	else
		snprintf(buf, len, "%s:%u/%s", a, k->port, kmg_fmt_proto(k->proto));
	return buf;
}

void kmg_addr_to16(const struct kmg_addr *a, uint8_t out[16])
{
	if (a->family == AF_INET) {
		memset(out, 0, 10);
		out[10] = 0xff;
		out[11] = 0xff;
		memcpy(out + 12, &a->v4, 4);
	} else {
		memcpy(out, &a->v6, 16);
	}
}

static bool is_v4mapped(const uint8_t b[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(b, prefix, sizeof(prefix));
}

void kmg_addr_from16(struct kmg_addr *a, const uint8_t in[16])
{
	memset(a, 0, sizeof(*a));
	if (is_v4mapped(in)) {
		a->family = AF_INET;
		memcpy(&a->v4, in + 12, 4);
	} else {
		a->family = AF_INET6;
		memcpy(&a->v6, in, 16);
	}
}

/* The kernel's order: by the 16-byte form, so IPv4 sorts as ::ffff:0:0/96. */
int kmg_addr_cmp(const struct kmg_addr *a, const struct kmg_addr *b)
{
	uint8_t x[16], y[16];

	kmg_addr_to16(a, x);
	kmg_addr_to16(b, y);
	return memcmp(x, y, sizeof(x));
}

bool kmg_addr_equal(const struct kmg_addr *a, const struct kmg_addr *b)
{
	return a->family == b->family && !kmg_addr_cmp(a, b);
}

bool kmg_addr_is_v4mapped(const struct kmg_addr *a)
{
	return a->family == AF_INET6 && is_v4mapped(a->v6.s6_addr);
}

bool kmg_addr_is_unspec(const struct kmg_addr *a)
{
	if (a->family == AF_INET)
		return a->v4.s_addr == INADDR_ANY;
	return IN6_IS_ADDR_UNSPECIFIED(&a->v6);
}

bool kmg_addr_is_multicast(const struct kmg_addr *a)
{
	if (a->family == AF_INET)
		return IN_MULTICAST(ntohl(a->v4.s_addr));
	return IN6_IS_ADDR_MULTICAST(&a->v6);
}

int kmg_grow(void *arr, unsigned int n, size_t size)
{
	void **p = arr, *q;

	if (n && (n & (n - 1)))
		return 0;
	q = realloc(*p, (n ? 2 * (size_t)n : 1) * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

struct dup_sort {
	const char *arr;
	size_t size, off;
};

static int dup_cmp(const void *x, const void *y, void *arg)
{
	const struct dup_sort *d = arg;

	return kmg_addr_cmp((const void *)(d->arr + *(const unsigned int *)x * d->size + d->off),
			    (const void *)(d->arr + *(const unsigned int *)y * d->size + d->off));
}

int kmg_dup_addr(const void *arr, unsigned int n, size_t size, size_t off,
		 const struct kmg_addr **dup)
{
	struct dup_sort d = { arr, size, off };
	unsigned int *idx, i;

	*dup = NULL;
	if (n < 2)
		return 0;
	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		idx[i] = i;
	/* sorting keeps this fast for 65535 backends */
	qsort_r(idx, n, sizeof(*idx), dup_cmp, &d);
	for (i = 1; i < n && !*dup; i++)
		if (!dup_cmp(&idx[i - 1], &idx[i], &d))
			*dup = (const void *)(d.arr + idx[i] * size + off);
	free(idx);
	return 0;
}

/* The @n names as a list for an error message: "a, b or c" (cut to @len). */
const char *kmg_choices(const char *const *names, unsigned int n, char *buf, size_t len)
{
	size_t k = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && k < len; i++)
		k += snprintf(buf + k, len - k, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "",
			      names[i]);
	return buf;
}
