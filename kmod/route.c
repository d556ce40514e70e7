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
 */
#include <linux/percpu.h>
#include <net/dst.h>
#include <net/ip6_fib.h>

#include "parse.h"
#include "route.h"

struct kmg_route {
	struct dst_entry *dst;		/* one reference, held by the slot */
	unsigned long stamp;		/* jiffies when cached */
	u32 cookie;			/* IPv6: the route's cookie for dst_check() */
	union kmg_inaddr saddr;		/* the source the route was looked up with */
};

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

/*
 * This CPU's route and its source, or NULL (none, stale or invalid). No reference: the route
 * is good until the caller leaves its RCU read section, or calls kmg_route_set().
 */
struct dst_entry *kmg_route_get(struct kmg_route_cache *rc, union kmg_inaddr *saddr)
{
	struct kmg_route *r = this_cpu_ptr(rc->pcpu);
	struct dst_entry *dst = r->dst;

	if (!dst)
		return NULL;
	if (unlikely(!time_after(r->stamp, READ_ONCE(rc->reset_ts)) ||
		     !dst_check(dst, r->cookie))) {
		r->dst = NULL;
		dst_release(dst);
		return NULL;
	}
	*saddr = r->saddr;
	return dst;
}

/*
 * Cache @dst (its reference passes to the cache) for this CPU. The caller may go on using it
 * without a reference, as after kmg_route_get().
 */
void kmg_route_set(struct kmg_route_cache *rc, struct dst_entry *dst,
		   const union kmg_inaddr *saddr)
{
	struct kmg_route *r = this_cpu_ptr(rc->pcpu);
	struct dst_entry *old = r->dst;

	r->dst = dst;
	r->stamp = jiffies;
	r->saddr = *saddr;
	r->cookie = dst->ops->family == AF_INET6 ? rt6_get_cookie((struct rt6_info *)dst) : 0;
	dst_release(old);
}
