/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev: internal declarations shared by the module's files.
 */
#ifndef _KMAGLEV_H
#define _KMAGLEV_H

#include <linux/types.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

/* Per network namespace state. */
struct kmg_net {
	struct net *net;
};

extern unsigned int kmg_net_id;

static inline struct kmg_net *kmg_pernet(const struct net *net)
{
	return net_generic(net, kmg_net_id);
}

int kmg_genl_init(void);
void kmg_genl_exit(void);

#endif /* _KMAGLEV_H */
