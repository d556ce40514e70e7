/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev route cache (route.c): each backend's route, per CPU, lent to packets without a
 * reference.
 *
 * A CPU's slot is read and written only by that CPU with bottom halves off (the packet path),
 * or by kmg_route_cache_destroy() once no packet can reach the backend; kmg_route_cache_reset()
 * may run anywhere (the rules in full are at the top of route.c).
 */
#ifndef _KMAGLEV_ROUTE_H
#define _KMAGLEV_ROUTE_H

#include <linux/compiler_types.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <net/dst.h>
#include <net/route.h>

struct net;
struct netlink_ext_ack;

#include "addr.h"
#include "parse.h"	/* union kmg_inaddr */

/*
 * A backend's route, cached per CPU (route.c), with what the packet path would otherwise
 * work out from it on every packet. The derived fields are set by kmg_route_set() and hold
 * as long as the route passes dst_check() (see route.c for why).
 */
struct kmg_route {
	struct dst_entry *dst;		/* one reference, held by the slot */
	unsigned long stamp;		/* jiffies when cached */
	u32 cookie;			/* IPv6: the route's cookie for dst_check() */
	/*
	 * dst_mtu() of a plain IPv4 route without a PMTU exception or a locked MTU metric; 0
	 * for any other route (IPv6 ones too): kmg_route_mtu() then asks the route.
	 */
	u32 mtu;
	/* no lightweight tunnel, xfrm or L3 master (VRF) device: see kmg_neigh_out() */
	bool plain;
	/* made for encap dr (kmg_route_dr()), checked to be a direct one */
	bool dr;
	union kmg_inaddr saddr;		/* the source the route was looked up with */
};

struct kmg_route_cache {
	struct kmg_route __percpu *pcpu;
	unsigned long reset_ts;		/* jiffies; routes cached up to then are stale */
};

/* route.c */
int kmg_route_cache_init(struct kmg_route_cache *rc, gfp_t gfp);
void kmg_route_cache_destroy(struct kmg_route_cache *rc);
void kmg_route_cache_reset(struct kmg_route_cache *rc);
void kmg_route_drop(struct kmg_route *r);
const struct kmg_route *kmg_route_set(struct kmg_route_cache *rc, struct dst_entry *dst,
				      const union kmg_inaddr *saddr, bool dr);

/* Why a backend has no encap dr route (kmg_route_dr()). */
enum kmg_dr_why {
	KMG_DR_OK,
	KMG_DR_NO_ROUTE,	/* none, or not a unicast one */
	KMG_DR_GATEWAY,		/* through a gateway: not on a directly attached network */
	KMG_DR_LOCAL,		/* the address is this host's */
	KMG_DR_LINKLOCAL,	/* an IPv6 link-local address: which link? */
	KMG_DR_LWT,		/* a lightweight tunnel's route (seg6, mpls, bpf...) */
	KMG_DR_L3MDEV,		/* through a VRF device, which would route it again by the VIP */
	KMG_DR_NOT_UNICAST,	/* broadcast, multicast; IPv6 loopback, v4-mapped, unspecified */
	KMG_DR_TUNNEL,		/* through an IP tunnel device (ipip, gre, sit, ip6tnl...) */
};

struct dst_entry *kmg_route_dr(struct net *net, const struct kmg_addr *a, bool known_nh,
			       enum kmg_dr_why *why);
void kmg_route_dr_explain(enum kmg_dr_why why, struct netlink_ext_ack *extack);

/*
 * This CPU's slot, or NULL when it has no route (none, stale or invalid). No reference: the
 * route is good until the caller leaves its RCU read section, or calls kmg_route_set().
 * Inline: every packet to a backend asks.
 */
static inline const struct kmg_route *kmg_route_get(struct kmg_route_cache *rc)
{
	struct kmg_route *r = this_cpu_ptr(rc->pcpu);

	if (unlikely(!r->dst))
		return NULL;
	if (unlikely(!time_after(r->stamp, READ_ONCE(rc->reset_ts)) ||
		     !dst_check(r->dst, r->cookie))) {
		kmg_route_drop(r);
		return NULL;
	}
	return r;
}

/* IPv4: is the route free of a PMTU exception, whose MTU changes in place (route.c)? */
static inline bool kmg_route_no_pmtu(const struct dst_entry *dst)
{
	const struct rtable *rt = (const struct rtable *)dst;

	return !rt->rt_pmtu && !rt->rt_mtu_locked;
}

/* The route's MTU, dst_mtu(dst), without asking the route each packet where it may. */
static inline unsigned int kmg_route_mtu(const struct kmg_route *r)
{
	if (likely(r->mtu && kmg_route_no_pmtu(r->dst)))
		return r->mtu;
	return dst_mtu(r->dst);
}

#endif /* _KMAGLEV_ROUTE_H */
