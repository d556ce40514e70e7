/* SPDX-License-Identifier: GPL-2.0 */
/* Extension headers, walked as net/ipv6/exthdrs_core.c does (exthdrs.c). */
#ifndef KSHIM_NET_IPV6_H
#define KSHIM_NET_IPV6_H

#include <linux/ipv6.h>
#include <linux/skbuff.h>

#define NEXTHDR_HOP		0
#define NEXTHDR_TCP		6
#define NEXTHDR_UDP		17
#define NEXTHDR_ROUTING		43
#define NEXTHDR_FRAGMENT	44
#define NEXTHDR_ESP		50
#define NEXTHDR_AUTH		51
#define NEXTHDR_ICMP		58
#define NEXTHDR_NONE		59
#define NEXTHDR_DEST		60

enum {
	IP6_FH_F_FRAG		= (1 << 0),
	IP6_FH_F_AUTH		= (1 << 1),
	IP6_FH_F_SKIP_RH	= (1 << 2),
};

struct frag_hdr {
	__u8	nexthdr;
	__u8	reserved;
	__be16	frag_off;
	__be32	identification;
};

static inline bool ipv6_addr_equal(const struct in6_addr *a, const struct in6_addr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

bool ipv6_ext_hdr(u8 nexthdr);
int ipv6_skip_exthdr(const struct sk_buff *skb, int start, u8 *nexthdrp, __be16 *frag_offp);
int ipv6_find_hdr(const struct sk_buff *skb, unsigned int *offset, int target,
		  unsigned short *fragoff, int *fragflg);

#endif
