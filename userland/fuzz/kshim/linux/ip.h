/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi struct iphdr, ip_hdr() and iph_totlen() (kshim.h). */
#ifndef KSHIM_LINUX_IP_H
#define KSHIM_LINUX_IP_H

#include_next <linux/ip.h>
#include "skbuff.h"

static inline struct iphdr *ip_hdr(const struct sk_buff *skb)
{
	return (struct iphdr *)skb_network_header(skb);
}

/* The stand-in buffers are never GSO aggregates: the header's length is the length. */
static inline unsigned int iph_totlen(const struct sk_buff *skb, const struct iphdr *iph)
{
	return ntohs(iph->tot_len);
}

#endif
