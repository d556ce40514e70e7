/* SPDX-License-Identifier: GPL-2.0 */
/* kmaglev CLI: parsing helpers for addresses, service specs and numbers. */
#ifndef KMAGLEV_UTIL_H
#define KMAGLEV_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

struct kmg_addr {
	int family;			/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

/* A service key: VIP, L4 protocol (0 = any) and port (0 = every port). */
struct kmg_svc_key {
	struct kmg_addr addr;
	uint8_t proto;
	uint16_t port;
};

int kmg_parse_addr(const char *s, struct kmg_addr *a);
const char *kmg_fmt_addr(const struct kmg_addr *a, char *buf, size_t len);
int kmg_parse_proto(const char *s, uint8_t *proto);
const char *kmg_fmt_proto(uint8_t proto);
int kmg_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int kmg_parse_svc_spec(const char *s, struct kmg_svc_key *k);
const char *kmg_fmt_svc_key(const struct kmg_svc_key *k, char *buf, size_t len);

#endif
