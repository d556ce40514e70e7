/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev's early path, mode ingress (ingress.c): the per-netns setting and the devices'
 * ingress hooks, which hand packets to the VIP path before ip_rcv(). The locking of the
 * setting and of the hooks is struct kmg_ingress's, below.
 */
#ifndef _KMAGLEV_INGRESS_H
#define _KMAGLEV_INGRESS_H

#include <linux/kconfig.h>
#include <linux/kmaglev.h>
#include <linux/types.h>
#include <linux/xarray.h>

struct kmg_net;
struct nf_hook_state;
struct nlattr;
struct sk_buff;

/*
 * The early path's setting and its device hooks (ingress.c).
 *
 * @hook and @devs are written with both RTNL and kn->lock held, and read under either: the
 * netdevice notifier holds RTNL, netlink's config-get kn->lock. (A dying netns, which no
 * netlink request reaches, has @hook reset under RTNL alone: kmg_ingress_net_pre_exit().)
 * @hooked (struct kmg_ingress_hook by ifindex) is changed only under RTNL; a hook is
 * unregistered before its device is (NETDEV_UNREGISTER, also when it leaves the netns, and
 * whatever the setting) and freed after a grace period.
 */
struct kmg_ingress {
	u32 hook;			/* enum kmaglev_hook */
	char devs[KMAGLEV_INGRESS_DEV_LEN_MAX + 1];	/* "all" or a comma-separated list */
	struct xarray hooked;
};

/* ingress.c */
struct netlink_ext_ack;
int kmg_ingress_check(u32 hook, const char *devs, const struct nlattr *ahook,
		      const struct nlattr *attr, struct netlink_ext_ack *extack);
int kmg_ingress_set(struct kmg_net *kn, u32 hook, const char *devs,
		    struct netlink_ext_ack *extack);
void kmg_ingress_net_init(struct kmg_net *kn);
void kmg_ingress_net_pre_exit(struct kmg_net *kn);
int kmg_ingress_init(void);
void kmg_ingress_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int kmg_ingress_one(struct kmg_net *kn, struct sk_buff *skb,
			     const struct nf_hook_state *state);
#endif

#endif /* _KMAGLEV_INGRESS_H */
