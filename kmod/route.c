// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev route cache: each backend's route, per CPU, used by the packet path without taking
 * a reference per packet.
 *
 * The kernel's dst_cache hands out a referenced route: a dst_hold() on every packet and a
 * dst_release() when the packet leaves, two atomics on the route's shared refcount. IPVS
 * avoids them, and so does this cache: each CPU's slot holds one reference, and a packet
 * borrows the route with skb_dst_set_noref(). That is safe because the packet path runs under
 * RCU and a route is freed only after a grace period once its last reference is dropped;
 * whatever queues the packet beyond the RCU section (a qdisc, NFQUEUE) takes its own
 * reference with skb_dst_force().
 *
 * Rules: a CPU's slot is read and written only by that CPU, with bottom halves off (the
 * netfilter hooks), or by kmg_route_cache_destroy() once no packet can reach the backend (an
 * RCU callback). kmg_route_cache_reset() may run anywhere: it makes every slot cached up to
 * now stale, so each CPU looks its route up again (as dst_cache_reset() does). A route the
 * kernel invalidated (dst_check()) is looked up again too.
 *
 * What a slot derives from its route holds while the route passes dst_check():
 * - plain (no lightweight tunnel state, xfrm bundle or L3 master device): fixed for the
 *   route's life. (A device going away may move an uncached route to the blackhole device
 *   without failing its dst_check(): that device is no L3 master either, and the packet is
 *   dropped there.)
 * - mtu, plain IPv4 routes only (an xfrm bundle's MTU is rewritten in place by its own
 *   dst_check(), xfrm_bundle_ok()). ipv4_mtu() is the route's PMTU exception (rt_pmtu, with
 *   its expiry and lock), else its RTAX_MTU metric, else the device's MTU, less the lwtunnel
 *   headroom (and 576 at most for a gatewayed route whose MTU metric is locked: such routes
 *   cache no MTU, as a redirect may make one gatewayed in place). The metrics and the
 *   lwtunnel state are fixed for the route's life. A device MTU change flushes the IPv4
 *   route cache (fib_netdev_event(): rt_cache_flush()), so the route fails dst_check(). (Not
 *   when the device has no IPv4 state: an MTU below 68 removes it first; then no route goes
 *   through it either.) A PMTU exception is different: a new one marks the cached routes of
 *   its next hop obsolete, but one that exists is written into the routes bound to it in
 *   place (fill_route_from_fnhe()), and a route may be bound to an exception without an MTU
 *   (after a flush reset it, or a redirect's) that gets one later. So the cached MTU is used
 *   only while the route has no exception MTU (rt_pmtu and rt_mtu_locked both clear, read
 *   per packet: kmg_route_mtu()); with one, dst_mtu() is asked each packet. IPv6 routes get
 *   their PMTU written into their metrics in place: no MTU is cached for them.
 */
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <net/dst.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "parse.h"
#include "route.h"

int kmg_route_cache_init(struct kmg_route_cache *rc, gfp_t gfp)
{
	rc->pcpu = alloc_percpu_gfp(struct kmg_route, gfp | __GFP_ZERO);
	if (!rc->pcpu)
		return -ENOMEM;
	rc->reset_ts = jiffies;
	return 0;
}

void kmg_route_cache_destroy(struct kmg_route_cache *rc)
{
	int cpu;

	if (!rc->pcpu)
		return;
	for_each_possible_cpu(cpu)
		dst_release(per_cpu_ptr(rc->pcpu, cpu)->dst);
	free_percpu(rc->pcpu);
	rc->pcpu = NULL;
}

/* Every route cached so far is stale. */
void kmg_route_cache_reset(struct kmg_route_cache *rc)
{
	WRITE_ONCE(rc->reset_ts, jiffies);
}

/* kmg_route_get() found the slot's route stale or invalid: drop it. */
void kmg_route_drop(struct kmg_route *r)
{
	struct dst_entry *dst = r->dst;

	r->dst = NULL;
	dst_release(dst);
}

/*
 * Cache @dst (its reference passes to the cache) for this CPU, and return the slot. The
 * caller may go on using the route without a reference, as after kmg_route_get().
 */
const struct kmg_route *kmg_route_set(struct kmg_route_cache *rc, struct dst_entry *dst,
				      const union kmg_inaddr *saddr, bool dr)
{
	struct kmg_route *r = this_cpu_ptr(rc->pcpu);
	struct dst_entry *old = r->dst;
	bool v6 = dst->ops->family == AF_INET6;

	r->dst = dst;
	r->stamp = jiffies;
	r->saddr = *saddr;
	r->dr = dr;
	r->cookie = v6 ? rt6_get_cookie((struct rt6_info *)dst) : 0;
	r->plain = !dst->lwtstate && !dst_xfrm(dst) && !netif_is_l3_master(READ_ONCE(dst->dev));
	/* an exception found after dst_mtu() asked is seen by kmg_route_mtu() */
	r->mtu = !v6 && r->plain && kmg_route_no_pmtu(dst) &&
		 !dst_metric_locked(dst, RTAX_MTU) ? dst_mtu(dst) : 0;
	dst_release(old);
	return r;
}

/*
 * The device of a direct route for encap dr: not loopback (the address is this host's), not a
 * VRF device (its transmit looks the packet's route up again, by its destination: the VIP),
 * not an IP tunnel (one without a fixed remote takes the inner destination, the VIP, as the
 * outer one). Read once, under RCU: dst_dev_put() may switch a route to the blackhole device
 * meanwhile (netlink calls this in process context). (No xfrm bundle either way: the flow
 * names no protocol, so none is looked up.)
 */
static enum kmg_dr_why kmg_route_dr_dev(const struct dst_entry *dst)
{
	enum kmg_dr_why why = KMG_DR_OK;
	const struct net_device *dev;

	rcu_read_lock();
	dev = READ_ONCE(dst->dev);
	if (dev->flags & IFF_LOOPBACK)
		why = KMG_DR_LOCAL;
	else if (netif_is_l3_master(dev))
		why = KMG_DR_L3MDEV;
	else if (dev->type == ARPHRD_TUNNEL || dev->type == ARPHRD_TUNNEL6 ||
		 dev->type == ARPHRD_IPGRE || dev->type == ARPHRD_IP6GRE ||
		 dev->type == ARPHRD_SIT)
		why = KMG_DR_TUNNEL;
	rcu_read_unlock();
	return why;
}

/*
 * encap dr: the route to the backend at @a, which must be a unicast route straight onto a
 * link: anything else is refused with the reason in *why (a route through a gateway would hand
 * the VIP's packet to the gateway, which routes it back to the LB; a lightweight tunnel would
 * send it elsewhere). A link without neighbour resolution (NOARP: point-to-point, dummy) gets
 * the packet as it is. Returns the route (a reference) or an ERR_PTR. Does not sleep: called
 * by the packet path (under RCU, bottom halves off) and by netlink requests.
 *
 * Without @known_nh it is the backend's ordinary route, which the backend's route cache keeps:
 * the packet path then names the backend as next hop itself (kmg_xmit_dr()). Such a route
 * pins no device (the FIB moves it off a device that goes). With @known_nh the next hop is
 * forced to @a (FLOWI_FLAG_KNOWN_NH, as IPVS's direct routing asks): an IPv4 route gets @a as
 * its gateway (rt_gw4), an IPv6 one is a clone whose destination is @a (rt6_nexthop()), so
 * that the kernel's own output path, fragmenting, resolves the backend's link-layer address
 * rather than the VIP's. The FIB keeps no such route, and an IPv6 one holds its FIB entry,
 * whose next hop holds the device: it is for one packet, never cached.
 */
struct dst_entry *kmg_route_dr(struct net *net, const struct kmg_addr *a, bool known_nh,
			       enum kmg_dr_why *why)
{
	struct dst_entry *dst;

	*why = KMG_DR_OK;
	if (a->family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr = kmg_addr_v4(a),
			.flowi4_flags = known_nh ? FLOWI_FLAG_KNOWN_NH : 0,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt)) {
			*why = KMG_DR_NO_ROUTE;
			return ERR_CAST(rt);
		}
		dst = &rt->dst;
		if (rt->rt_type == RTN_LOCAL)
			*why = KMG_DR_LOCAL;
		else if (rt->rt_type == RTN_BROADCAST || rt->rt_type == RTN_MULTICAST)
			*why = KMG_DR_NOT_UNICAST;
		else if (rt->rt_type != RTN_UNICAST)
			*why = KMG_DR_NO_ROUTE;
		else if (rt->rt_uses_gateway)
			*why = KMG_DR_GATEWAY;
	} else {
		struct flowi6 fl6 = {
			.daddr = a->in6,
			.flowi6_flags = known_nh ? FLOWI_FLAG_KNOWN_NH : 0,
		};
		int type = ipv6_addr_type(&a->in6);
		const struct rt6_info *rt;
		int err;

		/*
		 * A group (ff05::1 has a route: ff00::/8, RTF_UP alone) would go to a link-layer
		 * multicast address, to every listener; IPv4's are refused by rt_type above.
		 */
		if (type & (IPV6_ADDR_MULTICAST | IPV6_ADDR_LOOPBACK | IPV6_ADDR_MAPPED) ||
		    type == IPV6_ADDR_ANY) {
			*why = KMG_DR_NOT_UNICAST;
			return ERR_PTR(-EINVAL);
		}
		/* fe80::/10 names no link without an interface: the lookup would pick one */
		if (type & IPV6_ADDR_LINKLOCAL) {
			*why = KMG_DR_LINKLOCAL;
			return ERR_PTR(-EINVAL);
		}
		dst = ip6_route_output(net, NULL, &fl6);
		err = dst->error;
		if (err) {
			dst_release(dst);
			*why = KMG_DR_NO_ROUTE;
			return ERR_PTR(err);
		}
		rt = (const struct rt6_info *)dst;
		if (rt->rt6i_flags & RTF_LOCAL)
			*why = KMG_DR_LOCAL;
		else if (rt->rt6i_flags & (RTF_REJECT | RTF_ANYCAST))
			*why = KMG_DR_NO_ROUTE;
		else if (rt->rt6i_flags & RTF_GATEWAY)
			*why = KMG_DR_GATEWAY;
	}
	if (*why == KMG_DR_OK && dst->lwtstate)
		*why = KMG_DR_LWT;
	if (*why == KMG_DR_OK)
		*why = kmg_route_dr_dev(dst);
	if (*why != KMG_DR_OK) {
		dst_release(dst);
		return ERR_PTR(-EHOSTUNREACH);
	}
	return dst;
}

/* Tell whoever asked for an encap dr backend why kmg_route_dr() refused it. */
void kmg_route_dr_explain(enum kmg_dr_why why, struct netlink_ext_ack *extack)
{
	switch (why) {
	case KMG_DR_GATEWAY:
		NL_SET_ERR_MSG(extack,
			       "encap dr: the backend is not on a directly attached network (gateway)");
		break;
	case KMG_DR_LOCAL:
		NL_SET_ERR_MSG(extack, "encap dr: the backend address is this host's own");
		break;
	case KMG_DR_LINKLOCAL:
		NL_SET_ERR_MSG(extack,
			       "encap dr: a link-local backend address names no link; use a global one");
		break;
	case KMG_DR_LWT:
		NL_SET_ERR_MSG(extack,
			       "encap dr: the route to the backend is a lightweight tunnel's (encap)");
		break;
	case KMG_DR_L3MDEV:
		NL_SET_ERR_MSG(extack,
			       "encap dr: the route to the backend goes through a VRF device; route it on the VRF's member link");
		break;
	case KMG_DR_TUNNEL:
		NL_SET_ERR_MSG(extack,
			       "encap dr: the route to the backend goes through an IP tunnel device; use encap ipip or gre");
		break;
	case KMG_DR_NOT_UNICAST:
		NL_SET_ERR_MSG(extack,
			       "encap dr: the backend address is not a unicast one (multicast, broadcast, loopback, v4-mapped or ::)");
		break;
	default:
		NL_SET_ERR_MSG(extack,
			       "encap dr: no route to the backend on a directly attached network");
		break;
	}
}
