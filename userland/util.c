// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: parsing helpers for addresses, service specs and numbers. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

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

int kmg_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/*
 * ADDR, ADDR:PORT, [V6]:PORT, each optionally followed by /PROTO. An IPv6 address with a
 * port must be bracketed. Missing port means 0 (every port), missing proto means tcp.
 */
int kmg_parse_svc_spec(const char *s, struct kmg_svc_key *k)
{
	char buf[128], *p, *port = NULL, *proto;
	uint32_t v;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	memset(k, 0, sizeof(*k));
	k->proto = IPPROTO_TCP;

	proto = strrchr(buf, '/');
	if (proto) {
		*proto++ = '\0';
		if (kmg_parse_proto(proto, &k->proto))
			return -EINVAL;
	}
	p = buf;
	if (*p == '[') {
		char *close = strchr(p, ']');

		if (!close)
			return -EINVAL;
		*close = '\0';
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return -EINVAL;
		p++;
	} else if (strchr(p, ':') == strrchr(p, ':') && strchr(p, ':')) {
		port = strchr(p, ':');
		*port++ = '\0';
	}
	if (kmg_parse_addr(p, &k->addr))
		return -EINVAL;
	if (port) {
		if (kmg_parse_u32(port, 0, 65535, &v))
			return -EINVAL;
		k->port = v;
	}
	return 0;
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
