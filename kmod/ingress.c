// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev's early path: mode ingress.
 *
 * In mode ingress kmaglev also hooks NF_NETDEV_INGRESS of the devices the netns' ingress-dev
 * setting names ("all": every device but loopback), so packets to a VIP are balanced before
 * ip_rcv(): no IP receive path, no PRE_ROUTING traversal, and (encap.c) no LOCAL_OUT and
 * POST_ROUTING traversal on the way out either. The host's IP firewall never sees them (only
 * the RSTs quota-action rst answers some with, which go out through LOCAL_OUT).
 *
 * What ip_rcv() would check is checked here first, for packets to a possible VIP: version,
 * header length, header checksum, total length against the buffer (padding trimmed), and for
 * IPv6 the payload length and the source address. A packet that fails is counted in
 * drop-malformed and dropped with the stack's drop reason if it is to a VIP (the filter also
 * passes other addresses that share a VIP's bucket). Packets to other addresses pass
 * untouched, as do packets this path leaves to the stack, which kmaglev then handles at
 * PRE_ROUTING like mode prerouting does: fragments (reassembly needs the stack's setup),
 * IPv6 packets with hop-by-hop options (the stack parses those), and packets for another
 * host's MAC address. A buffer someone else holds too (skb_shared()) is balanced as a clone,
 * as ip_rcv() would clone it.
 *
 * Ordering: the hook runs at priority KMG_PRI_INGRESS (10), after tc's ingress and after
 * nftables netdev chains of priority 0 or below, so an operator's ACL in such a chain is
 * applied first.
 *
 * Lifetime: hooks are registered and unregistered under RTNL, by netlink's config-set and by
 * the netdevice notifier, which follows devices that come, go, are renamed or move between
 * namespaces (a move is NETDEV_UNREGISTER in the old netns, NETDEV_REGISTER in the new one).
 * A hook is unregistered before its device goes, and its ops are freed after a grace period.
 * The hooks stay registered while the netns has no services; they take no packet until the
 * PRE_ROUTING hooks are up (kn->hooks), so nothing reaches the connection table after
 * kmg_hooks_unregister() emptied it. A dying netns loses its ingress hooks in pre_exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kmaglev.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "hook.h"
#include "ingress.h"
#include "netns.h"
#include "stats.h"
#include "vip.h"

#define KMG_PRI_INGRESS	10

struct kmg_ingress_hook {
	struct nf_hook_ops ops;		/* ops.dev: the device */
	struct rcu_head rcu;
};

/* ---- the packet path ------------------------------------------------------------------- */

/*
 * A header the stack would refuse: dropped and counted in drop-malformed if the packet is to
 * a VIP. The VIP filter also passes other addresses that share a VIP's bucket: such a
 * packet is not kmaglev's to count or drop; it goes on to the stack, which drops it as it
 * drops any other.
 */
static unsigned int kmg_ingress_bad(struct kmg_net *kn, struct sk_buff *skb, u8 family,
				    const void *daddr, enum skb_drop_reason reason)
{
	if (!kmg_vip_lookup_rcu(kn, family, daddr))
		return NF_ACCEPT;
	kmg_drop(kn, skb, KMG_C_DROP_MALFORMED, reason);
	return NF_STOLEN;
}

static unsigned int kmg_ingress4(struct kmg_net *kn, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	const struct iphdr *iph;
	unsigned int hlen, len;
	__be32 daddr;

	/* the header is linear (kmg_ingress_maybe()) */
	iph = ip_hdr(skb);
	daddr = iph->daddr;
	/* ip_rcv_core()'s checks */
	if (iph->version != 4 || iph->ihl < 5)
		return kmg_ingress_bad(kn, skb, AF_INET, &daddr, SKB_DROP_REASON_IP_INHDR);
	hlen = iph->ihl * 4;
	if (!pskb_may_pull(skb, hlen))
		return kmg_ingress_bad(kn, skb, AF_INET, &daddr, SKB_DROP_REASON_IP_INHDR);
	iph = ip_hdr(skb);
	if (unlikely(ip_fast_csum((const u8 *)iph, iph->ihl)))
		return kmg_ingress_bad(kn, skb, AF_INET, &daddr, SKB_DROP_REASON_IP_CSUM);
	len = ntohs(iph->tot_len);
	/* a BIG TCP aggregate (6.3+) has no length in its header: the stack knows those */
	if (!len && skb_is_gso(skb))
		return NF_ACCEPT;
	if (skb->len < len)
		return kmg_ingress_bad(kn, skb, AF_INET, &daddr, SKB_DROP_REASON_PKT_TOO_SMALL);
	if (len < hlen)
		return kmg_ingress_bad(kn, skb, AF_INET, &daddr, SKB_DROP_REASON_IP_INHDR);
	/*
	 * Padding of a packet to an address that is not a VIP is the stack's to trim: a trim
	 * that fails has already taken the padding out of skb->csum.
	 */
	if (skb->len > len && !kmg_vip_lookup_rcu(kn, AF_INET, &daddr))
		return NF_ACCEPT;
	if (pskb_trim_rcsum(skb, len)) {
		kmg_drop(kn, skb, KMG_C_DROP_NOMEM, SKB_DROP_REASON_NOMEM);
		return NF_STOLEN;
	}
	skb_set_transport_header(skb, hlen);
	/* icmp_send() reads the options of the packet it answers; the driver's cb is not ours */
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	IPCB(skb)->iif = skb->skb_iif;
	return kmg_rcv(kn, skb, state, AF_INET, &daddr, true);
}

static unsigned int kmg_ingress6(struct kmg_net *kn, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	const struct ipv6hdr *ip6h;
	struct inet6_dev *idev;
	struct in6_addr daddr;
	unsigned int len;

	/* IPv6 is off on the device: the stack drops it (IPV6DISABLED) */
	idev = __in6_dev_get(skb->dev);
	if (!idev || READ_ONCE(idev->cnf.disable_ipv6))
		return NF_ACCEPT;
	/* the header is linear (kmg_ingress_maybe()); ipv6_rcv()'s checks */
	ip6h = ipv6_hdr(skb);
	daddr = ip6h->daddr;
	if (ip6h->version != 6)
		return kmg_ingress_bad(kn, skb, AF_INET6, &daddr, SKB_DROP_REASON_UNHANDLED_PROTO);
	if (ipv6_addr_is_multicast(&ip6h->saddr) || ipv6_addr_loopback(&ip6h->saddr) ||
	    ipv6_addr_v4mapped(&ip6h->saddr))
		return kmg_ingress_bad(kn, skb, AF_INET6, &daddr, SKB_DROP_REASON_IP_INHDR);
	/* a jumbogram (payload length 0) or hop-by-hop options: the stack parses those */
	if (!ip6h->payload_len || ip6h->nexthdr == NEXTHDR_HOP)
		return NF_ACCEPT;
	len = ntohs(ip6h->payload_len) + sizeof(*ip6h);
	if (skb->len < len)
		return kmg_ingress_bad(kn, skb, AF_INET6, &daddr, SKB_DROP_REASON_PKT_TOO_SMALL);
	/* as in kmg_ingress4() */
	if (skb->len > len && !kmg_vip_lookup_rcu(kn, AF_INET6, &daddr))
		return NF_ACCEPT;
	if (pskb_trim_rcsum(skb, len)) {
		kmg_drop(kn, skb, KMG_C_DROP_NOMEM, SKB_DROP_REASON_NOMEM);
		return NF_STOLEN;
	}
	skb_set_transport_header(skb, sizeof(*ip6h));
	/* icmpv6_send() reads the incoming interface and header offsets from the cb */
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	IP6CB(skb)->iif = skb->dev->ifindex;
	IP6CB(skb)->nhoff = offsetof(struct ipv6hdr, nexthdr);
	return kmg_rcv(kn, skb, state, AF_INET6, &daddr, true);
}

/* A packet whose IP header is linear and whose address passed the VIP filter. */
VISIBLE_IF_KUNIT unsigned int kmg_ingress_one(struct kmg_net *kn, struct sk_buff *skb,
					      const struct nf_hook_state *state)
{
	if (skb->protocol == htons(ETH_P_IP))
		return kmg_ingress4(kn, skb, state);
	if (skb->protocol == htons(ETH_P_IPV6))
		return kmg_ingress6(kn, skb, state);
	return NF_ACCEPT;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_ingress_one);

/*
 * May the packet be to a VIP? Its IP header is made linear first, unless someone else holds
 * the buffer (@shared): then only a header already linear is read. A header too short to
 * hold the address goes to the stack, which drops and counts it.
 */
static bool kmg_ingress_maybe(struct kmg_net *kn, struct sk_buff *skb, bool shared)
{
	unsigned int need;

	if (skb->protocol == htons(ETH_P_IP))
		need = sizeof(struct iphdr);
	else if (skb->protocol == htons(ETH_P_IPV6))
		need = sizeof(struct ipv6hdr);
	else
		return false;
	if (shared ? skb_headlen(skb) < need : !pskb_may_pull(skb, need))
		return false;
	if (need == sizeof(struct iphdr))
		return kmg_vip_maybe(kn, kmg_vipf_hash4(ip_hdr(skb)->daddr));
	return kmg_vip_maybe(kn, kmg_vipf_hash6(&ipv6_hdr(skb)->daddr));
}

/*
 * Someone else holds the buffer too (pktgen's receive mode does; a tap that kept it would):
 * its data must not change under them, as ip_rcv()'s skb_share_check() knows. Balance a
 * clone; when the clone is consumed, so is our reference to the original, else the original
 * goes on to the stack untouched.
 */
static unsigned int kmg_ingress_shared(struct kmg_net *kn, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	struct sk_buff *nskb;

	nskb = skb_clone(skb, GFP_ATOMIC);
	if (!nskb)
		return NF_ACCEPT;	/* the stack's own clone may still work */
	if (kmg_ingress_one(kn, nskb, state) == NF_STOLEN) {
		consume_skb(skb);
		return NF_STOLEN;
	}
	consume_skb(nskb);
	return NF_ACCEPT;
}

static unsigned int kmg_ingress_hook(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	struct kmg_net *kn = priv;	/* unhooked before the netns goes */
	bool shared = skb_shared(skb);
	unsigned int verdict;
	bool bh;

	/*
	 * Only unicast to this host, as ip_forward() and IPVS want, and untagged: a VLAN's
	 * packets are still tagged here (vlan_do_receive() runs after the ingress hooks); the
	 * VLAN device's own hook, if hooked, sees them untagged.
	 */
	if (skb->pkt_type != PACKET_HOST || skb_vlan_tag_present(skb) ||
	    !READ_ONCE(kn->hooks) || !kmg_ingress_maybe(kn, skb, shared))
		return NF_ACCEPT;
	/* netif_receive_skb() may run with bottom halves on; kmg_rcv() wants them off */
	bh = kmg_bh_off();
	if (unlikely(shared))
		verdict = kmg_ingress_shared(kn, skb, state);
	else
		verdict = kmg_ingress_one(kn, skb, state);
	kmg_bh_restore(bh);
	return verdict;
}

/* ---- the setting ----------------------------------------------------------------------- */

/* Is @name among the comma-separated names of @devs that start before @stop? */
static bool kmg_ingress_listed(const char *devs, const char *stop, const char *name)
{
	size_t n = strlen(name);
	const char *p = devs;

	while (*p && p < stop) {
		const char *end = strchrnul(p, ',');

		if (end - p == n && !memcmp(p, name, n))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

/*
 * A device whose packets another layer claims first (rx_handler: bridge, bond and team
 * ports, OVS ports, macvlan and ipvlan lower devices) or that has a master: the ingress hook
 * would run before that layer decides (STP state, inactive slaves, flows). "all" leaves
 * these out; a list may still name them. Under RTNL.
 */
static bool kmg_ingress_stacked(struct net_device *dev)
{
	return netif_is_bridge_port(dev) || netif_is_lag_port(dev) || netif_is_ovs_port(dev) ||
	       netif_is_macvlan_port(dev) || rcu_access_pointer(dev->rx_handler) ||
	       netdev_master_upper_dev_get(dev);
}

static bool kmg_ingress_wants(u32 hook, const char *devs, struct net_device *dev)
{
	if (hook != KMAGLEV_HOOK_INGRESS || (dev->flags & IFF_LOOPBACK))
		return false;
	if (!strcmp(devs, "all"))
		return !kmg_ingress_stacked(dev);
	return kmg_ingress_listed(devs, devs + strlen(devs), dev->name);
}

/*
 * Is @devs a valid ingress-dev setting? "all", or 1 to KMAGLEV_INGRESS_DEVS_MAX distinct
 * device names (dev_valid_name()) separated by commas. The extack names the attribute.
 */
int kmg_ingress_check(u32 hook, const char *devs, const struct nlattr *ahook,
		      const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	char name[IFNAMSIZ];
	const char *p = devs;
	unsigned int n = 0;

	if (!IS_ENABLED(CONFIG_NETFILTER_INGRESS) && hook == KMAGLEV_HOOK_INGRESS) {
		NL_SET_ERR_MSG_ATTR(extack, ahook ?: attr,
				    "config hook ingress: no netdev ingress hooks in this kernel");
		return -EOPNOTSUPP;
	}
	if (!strcmp(devs, "all"))
		return 0;
	if (!*devs) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "config ingress-dev: empty (give \"all\" or device names)");
		return -EINVAL;
	}
	while (*p) {
		const char *end = strchrnul(p, ',');
		size_t len = end - p;

		if (!len || len >= IFNAMSIZ || (*end && !end[1])) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "config ingress-dev: a name is empty or over 15 bytes");
			return -EINVAL;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		if (!dev_valid_name(name) || !strcmp(name, "all")) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "config ingress-dev: not a valid device name");
			return -EINVAL;
		}
		if (++n > KMAGLEV_INGRESS_DEVS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "config ingress-dev: more than 32 devices (use \"all\")");
			return -E2BIG;
		}
		/* a name listed before this one? */
		if (kmg_ingress_listed(devs, p, name)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "config ingress-dev: a device is listed twice");
			return -EINVAL;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* ---- device hooks (under RTNL) --------------------------------------------------------- */

static int kmg_ingress_hook_add(struct kmg_net *kn, struct net_device *dev)
{
	struct kmg_ingress_hook *h;
	int err;

	ASSERT_RTNL();
	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h)
		return -ENOMEM;
	h->ops.hook = kmg_ingress_hook;
	h->ops.priv = kn;
	h->ops.pf = NFPROTO_NETDEV;
	h->ops.hooknum = NF_NETDEV_INGRESS;
	h->ops.priority = KMG_PRI_INGRESS;
	h->ops.dev = dev;
	err = xa_insert(&kn->ingress.hooked, dev->ifindex, h, GFP_KERNEL_ACCOUNT);
	if (err)
		goto err_free;
	err = nf_register_net_hook(kn->net, &h->ops);
	if (err)
		goto err_erase;
	return 0;

err_erase:
	xa_erase(&kn->ingress.hooked, dev->ifindex);
err_free:
	kfree(h);
	return err;
}

/* Packets already in the hook only use kn and the skb; the ops go after a grace period. */
static void kmg_ingress_hook_del(struct kmg_net *kn, struct kmg_ingress_hook *h)
{
	ASSERT_RTNL();
	nf_unregister_net_hook(kn->net, &h->ops);
	xa_erase(&kn->ingress.hooked, h->ops.dev->ifindex);
	kfree_rcu(h, rcu);
}

/* Unhook every device that (@hook, @devs) does not name. */
static void kmg_ingress_prune(struct kmg_net *kn, u32 hook, const char *devs)
{
	struct kmg_ingress_hook *h;
	unsigned long idx;

	xa_for_each(&kn->ingress.hooked, idx, h)
		if (!kmg_ingress_wants(hook, devs, h->ops.dev))
			kmg_ingress_hook_del(kn, h);
}

/*
 * Apply a checked setting (kmg_ingress_check()): all or nothing. The hooks the new setting
 * adds are registered first; if one fails, those are removed again and the old setting
 * stays. Under kn->lock (the order is kn->lock, then RTNL).
 */
int kmg_ingress_set(struct kmg_net *kn, u32 hook, const char *devs,
		    struct netlink_ext_ack *extack)
{
	struct kmg_ingress *in = &kn->ingress;
	struct net_device *dev;
	int err = 0;

	lockdep_assert_held(&kn->lock);
	rtnl_lock();
	for_each_netdev(kn->net, dev) {
		if (!kmg_ingress_wants(hook, devs, dev) ||
		    xa_load(&in->hooked, dev->ifindex))
			continue;
		err = kmg_ingress_hook_add(kn, dev);
		if (err) {
			pr_warn_ratelimited("cannot hook ingress of %s: %d\n", dev->name, err);
			NL_SET_ERR_MSG(extack, "config ingress-dev: cannot hook a device");
			kmg_ingress_prune(kn, in->hook, in->devs);
			goto out;
		}
	}
	in->hook = hook;
	if (devs != in->devs)
		strscpy(in->devs, devs, sizeof(in->devs));
	kmg_ingress_prune(kn, hook, devs);
out:
	rtnl_unlock();
	return err;
}

static int kmg_ingress_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct kmg_net *kn = kmg_pernet(dev_net(dev));
	struct kmg_ingress_hook *h;
	int err;

	/* a netns whose kmaglev state is not set up yet has no hooks */
	if (!kn || !kn->net)
		return NOTIFY_DONE;
	h = xa_load(&kn->ingress.hooked, dev->ifindex);
	/* whatever the setting or the netns' state: a hooked device's hook goes with it */
	if (event == NETDEV_UNREGISTER) {
		if (h && h->ops.dev == dev)
			kmg_ingress_hook_del(kn, h);
		return NOTIFY_DONE;
	}
	if (READ_ONCE(kn->dead) || kn->ingress.hook != KMAGLEV_HOOK_INGRESS)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_CHANGENAME:
	case NETDEV_CHANGEUPPER:
		if (h && h->ops.dev != dev)	/* cannot happen: ifindex is unique per netns */
			break;
		if (kmg_ingress_wants(kn->ingress.hook, kn->ingress.devs, dev)) {
			if (h)
				break;
			err = kmg_ingress_hook_add(kn, dev);
			if (err)
				pr_warn_ratelimited("cannot hook ingress of %s: %d\n", dev->name,
						    err);
		} else if (h) {
			kmg_ingress_hook_del(kn, h);
		}
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kmg_ingress_nb = {
	.notifier_call = kmg_ingress_event,
};

void kmg_ingress_net_init(struct kmg_net *kn)
{
	kn->ingress.hook = KMAGLEV_HOOK_PREROUTING;
	strscpy(kn->ingress.devs, "all", sizeof(kn->ingress.devs));
	xa_init(&kn->ingress.hooked);
}

/*
 * The netns is exiting: unhook its devices before they are dismantled. No netlink request
 * can reach a dying netns, so the setting is read and, under RTNL alone, written here.
 */
void kmg_ingress_net_pre_exit(struct kmg_net *kn)
{
	if (kn->ingress.hook != KMAGLEV_HOOK_INGRESS && xa_empty(&kn->ingress.hooked)) {
		xa_destroy(&kn->ingress.hooked);
		return;
	}
	rtnl_lock();
	kn->ingress.hook = KMAGLEV_HOOK_PREROUTING;
	kmg_ingress_prune(kn, KMAGLEV_HOOK_PREROUTING, "");
	rtnl_unlock();
	WARN_ON_ONCE(!xa_empty(&kn->ingress.hooked));
	xa_destroy(&kn->ingress.hooked);
}

int kmg_ingress_init(void)
{
	return register_netdevice_notifier(&kmg_ingress_nb);
}

/* Replays NETDEV_UNREGISTER for every device: every hook goes. */
void kmg_ingress_exit(void)
{
	unregister_netdevice_notifier(&kmg_ingress_nb);
}
