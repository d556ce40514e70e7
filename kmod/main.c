// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev: module entry points and per network namespace lifetime.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <linux/kmaglev.h>

#include "kmaglev.h"

unsigned int kmg_net_id __read_mostly;

static __net_init int kmg_net_init(struct net *net)
{
	struct kmg_net *kn = kmg_pernet(net);

	kn->net = net;
	return 0;
}

static __net_exit void kmg_net_exit(struct net *net)
{
}

static struct pernet_operations kmg_net_ops = {
	.init = kmg_net_init,
	.exit = kmg_net_exit,
	.id   = &kmg_net_id,
	.size = sizeof(struct kmg_net),
};

static const struct genl_multicast_group kmg_mcgrps[] = {
	{ .name = KMAGLEV_MCGRP_EVENTS, },
};

static struct genl_family kmg_family __ro_after_init = {
	.name		= KMAGLEV_FAMILY_NAME,
	.version	= KMAGLEV_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.mcgrps		= kmg_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(kmg_mcgrps),
};

static int __init kmg_init(void)
{
	int err;

	err = register_pernet_subsys(&kmg_net_ops);
	if (err)
		return err;
	err = genl_register_family(&kmg_family);
	if (err)
		goto err_pernet;
	pr_info("loaded\n");
	return 0;

err_pernet:
	unregister_pernet_subsys(&kmg_net_ops);
	return err;
}

static void __exit kmg_exit(void)
{
	genl_unregister_family(&kmg_family);
	unregister_pernet_subsys(&kmg_net_ops);
}

module_init(kmg_init);
module_exit(kmg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmaglev: Maglev L4 load balancer with encapsulated direct server return");
MODULE_ALIAS_GENL_FAMILY(KMAGLEV_FAMILY_NAME);
