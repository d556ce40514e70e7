/* SPDX-License-Identifier: GPL-2.0 */
/* ip_is_fragment() (kshim.h). */
#ifndef KSHIM_NET_IP_H
#define KSHIM_NET_IP_H

#include <linux/ip.h>

#define IP_MF		0x2000
#define IP_OFFSET	0x1FFF

static inline bool ip_is_fragment(const struct iphdr *iph)
{
	return (iph->frag_off & htons(IP_MF | IP_OFFSET)) != 0;
}

#endif
