/* SPDX-License-Identifier: GPL-2.0 */
/* The uapi struct iphdr, and ip_hdr() (kshim.h). */
#ifndef KSHIM_LINUX_IP_H
#define KSHIM_LINUX_IP_H

#include_next <linux/ip.h>
#include "../kshim.h"

static inline struct iphdr *ip_hdr(const struct sk_buff *skb)
{
	return (struct iphdr *)skb_network_header(skb);
}

#endif
