/* SPDX-License-Identifier: GPL-2.0 */
/* The DS field (DSCP and ECN) of IPv4 and IPv6 headers (kshim.h). */
#ifndef KSHIM_NET_DSFIELD_H
#define KSHIM_NET_DSFIELD_H

#include <linux/ip.h>
#include <linux/ipv6.h>

static inline u8 ipv4_get_dsfield(const struct iphdr *iph)
{
	return iph->tos;
}

/* The traffic class: the low nibble of the header's first byte, the high one of its second. */
static inline u8 ipv6_get_dsfield(const struct ipv6hdr *ip6h)
{
	const u8 *b = (const u8 *)ip6h;

	return (u8)(b[0] << 4 | b[1] >> 4);
}

#endif
