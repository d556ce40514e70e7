/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi struct ipv6hdr, and ipv6_hdr() (kshim.h). */
#ifndef KSHIM_LINUX_IPV6_H
#define KSHIM_LINUX_IPV6_H

#include_next <linux/ipv6.h>
#include "skbuff.h"

#define ipv6_optlen(p)	(((p)->hdrlen + 1) << 3)
#define ipv6_authlen(p)	(((p)->hdrlen + 2) << 2)

static inline struct ipv6hdr *ipv6_hdr(const struct sk_buff *skb)
{
	return (struct ipv6hdr *)skb_network_header(skb);
}

#endif
