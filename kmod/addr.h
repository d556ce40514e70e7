/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev addresses: an IPv4 or IPv6 address in one form, as backends hold them and as
 * requests name services and backends. Plain values, copied where they are used: no locking
 * of their own.
 */
#ifndef _KMAGLEV_ADDR_H
#define _KMAGLEV_ADDR_H

#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/* An address of either family; IPv4 is stored IPv4-mapped so that backends sort as one set. */
struct kmg_addr {
	union {
		u8 b[16];
		struct in6_addr in6;
	};
	u8 family;		/* AF_INET or AF_INET6 */
};

static inline void kmg_addr_from_v4(struct kmg_addr *a, __be32 v4)
{
	memset(a, 0, sizeof(*a));
	a->in6.s6_addr16[5] = htons(0xffff);
	a->in6.s6_addr32[3] = v4;
	a->family = AF_INET;
}

static inline void kmg_addr_from_v6(struct kmg_addr *a, const struct in6_addr *v6)
{
	memset(a, 0, sizeof(*a));
	a->in6 = *v6;
	a->family = AF_INET6;
}

static inline __be32 kmg_addr_v4(const struct kmg_addr *a)
{
	return a->in6.s6_addr32[3];
}

#endif /* _KMAGLEV_ADDR_H */
