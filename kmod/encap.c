// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev encapsulation: send a packet to its backend in IPIP, IPv6-in-IPv6, 4in6, 6in4 or
 * GRE (optionally keyed) over IPv4 or IPv6. The outer family is the backend's.
 *
 * The route to each backend is kept in a per-backend, per-CPU cache (route.c), which notices
 * route changes (a stale route fails its dst check and is looked up again) and lends the
 * route to each packet without a reference (skb_dst_set_noref()). The outer source is the
 * service's encap-src, or the route's preferred source; the cache remembers which encap-src
 * setting its routes were made for (kmg_encap_src()). DSCP is copied and ECN encapsulated as
 * RFC 6040 says; an IPv6 outer header carries the flow hash in its flow label so backends can
 * spread flows by RSS. GSO packets get the tunnel's gso_type and inner headers, so they are
 * segmented correctly after encapsulation.
 *
 * Path MTU: when the encapsulated packet would not fit the route's MTU and the client's packet
 * may not be fragmented (IPv4 with DF, or any IPv6), the client gets ICMP fragmentation
 * needed / Packet Too Big with the MTU left after the encapsulation overhead (icmp.c);
 * otherwise the outer packet is fragmented. A packet kmaglev reassembled is judged by its
 * largest fragment, which is what the client sent.
 *
 * TTL: for packets from clients (PRE_ROUTING) the LB is a router hop: a packet whose TTL / hop
 * limit would run out is dropped with ICMP time exceeded, others leave with it decremented, so
 * that a routing loop (two LBs sending a VIP to each other) ends. Locally generated packets
 * (LOCAL_OUT) are the LB's own, and keep theirs.
 *
 * Output: packets leave through ip_local_out()/ip6_local_out(), so the LOCAL_OUT and
 * POST_ROUTING hooks see the outer packet, except those the early path took (mode ingress,
 * ingress.c): when the outer packet needs no fragmenting and its route is a plain one (no
 * lightweight tunnel, no xfrm, no VRF), it goes straight to the route's neighbour, as
 * ip_finish_output2() would send it (kmg_neigh_out()).
 */
#include <linux/if_tunnel.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kmaglev.h>
#include <net/arp.h>
#include <net/dsfield.h>
#include <net/gre.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ip_tunnels.h>
#include <net/ipv6.h>
#include <net/ndisc.h>
#include <net/route.h>
#ifdef KMG_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

#include "addr.h"
#include "backend.h"
#include "encap.h"
#include "icmp.h"
#include "netns.h"
#include "parse.h"
#include "route.h"
#include "service.h"
#include "stats.h"

struct kmg_encap {
	bool gre;
	bool keyed;
	__be32 key;
	u8 proto;		/* outer header's next protocol */
	unsigned int hlen;	/* outer headers (IP and GRE) */
};

static void kmg_encap_of(const struct kmg_backend *be, const struct kmg_pkt *p, bool outer6,
			 struct kmg_encap *e)
{
	e->gre = READ_ONCE(be->encap) == KMAGLEV_ENCAP_GRE;
	e->keyed = e->gre && READ_ONCE(be->keyed);
	e->key = htonl(READ_ONCE(be->gre_key));
	if (e->gre)
		e->proto = IPPROTO_GRE;
	else
		e->proto = p->family == AF_INET ? IPPROTO_IPIP : IPPROTO_IPV6;
	e->hlen = (outer6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
		  (e->gre ? sizeof(struct gre_base_hdr) + (e->keyed ? 4 : 0) : 0);
}

static u8 kmg_inner_dsfield(const struct sk_buff *skb, const struct kmg_pkt *p)
{
	return p->family == AF_INET ? ip_hdr(skb)->tos : ipv6_get_dsfield(ipv6_hdr(skb));
}

/*
 * The service's encap-src for @family (0 / :: for none), and the generation of the setting:
 * svc->esrc_seq (see struct kmg_service). The backend's route cache holds routes made for
 * generation be->dst_src_seq; when the setting changed since, every CPU's cached route is
 * invalidated (kmg_route_cache_reset()), so that a cleared encap-src does not keep the old
 * source.
 *
 * Call after kmg_route_get(): a CPU that finds no route after the reset (so that its new
 * route counts as fresh) then reads the new setting.
 */
static unsigned int kmg_encap_src(const struct kmg_service *svc, u8 family,
				  union kmg_inaddr *want)
{
	unsigned int seq;

	do {
		seq = read_seqbegin(&svc->esrc_seq);
		if (family == AF_INET)
			want->v4 = svc->cfg.encap_src4;
		else
			want->v6 = svc->cfg.encap_src6;
	} while (read_seqretry(&svc->esrc_seq, seq));
	return seq;
}

/* A route for @gen is about to be cached: invalidate routes of an older setting. */
static void kmg_encap_src_gen(struct kmg_backend *be, unsigned int gen)
{
	if (READ_ONCE(be->dst_src_seq) != gen) {
		kmg_route_cache_reset(&be->routes);
		WRITE_ONCE(be->dst_src_seq, gen);
	}
}

/*
 * A client's packet (PRE_ROUTING) whose TTL / hop limit would run out here: send ICMP time
 * exceeded, drop it, and return true.
 */
static bool kmg_hop_expired(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p)
{
	if (p->family == AF_INET ? ip_hdr(skb)->ttl > 1 : ipv6_hdr(skb)->hop_limit > 1)
		return false;
	kmg_icmp_time_exceeded(kn, skb, p);
	/* no counter of its own (that would be a new netlink attribute): a loop, no route */
	kmg_drop(kn, skb, KMG_C_DROP_NO_ROUTE, SKB_DROP_REASON_IP_INHDR);
	return true;
}

/* Decrement the TTL / hop limit of a client's packet; its headers are writable. */
static void kmg_hop_dec(struct sk_buff *skb, const struct kmg_pkt *p)
{
	if (p->family == AF_INET)
		ip_decrease_ttl(ip_hdr(skb));
	else
		ipv6_hdr(skb)->hop_limit--;
}

/* kmg_too_big() for a packet that does not fit as it is. */
static noinline bool kmg_too_big_slow(struct kmg_net *kn, struct sk_buff *skb,
				      const struct kmg_pkt *p, unsigned int mtu)
{
	unsigned int frag_max;

	if (skb_is_gso(skb) && skb_gso_validate_network_len(skb, mtu))
		return false;
	/*
	 * Reassembled by kmaglev (hook.c): the client sent fragments, the largest this big. If
	 * each fits, so will the outer packet's fragments: it is fragmented, as the client's was.
	 */
	frag_max = p->family == AF_INET ? IPCB(skb)->frag_max_size : IP6CB(skb)->frag_max_size;
	if (frag_max && frag_max <= mtu)
		return false;
	if (p->family == AF_INET && !(ip_hdr(skb)->frag_off & htons(IP_DF)))
		return false;
	kmg_icmp_too_big(kn, skb, p, mtu);
	return true;
}

/*
 * Does the packet fit @mtu once encapsulated? If not and it may not be fragmented, tell the
 * client and return true (the caller drops it).
 */
static bool kmg_too_big(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p,
			unsigned int mtu)
{
	if (likely(!skb_is_gso(skb) && skb->len <= mtu))
		return false;
	return kmg_too_big_slow(kn, skb, p, mtu);
}

/* Offload state, and the GRE header if any; the outer IP header is pushed by the caller. */
static int kmg_push_encap(struct sk_buff *skb, const struct kmg_pkt *p,
			  const struct kmg_encap *e, bool outer6)
{
	__be16 inner = p->family == AF_INET ? htons(ETH_P_IP) : htons(ETH_P_IPV6);
	int err;

	err = iptunnel_handle_offloads(skb, e->gre ? SKB_GSO_GRE :
					    outer6 ? SKB_GSO_IPXIP6 : SKB_GSO_IPXIP4);
	if (err)
		return err;
	/*
	 * The inner packet starts at its IP header. iptunnel_handle_offloads() copied the inner
	 * MAC header from the Ethernet header the client's packet arrived with, and software GSO
	 * (gre_gso_segment()) would take the gap to it for the tunnel header's length (negative:
	 * every segment dropped).
	 */
	skb_set_inner_mac_header(skb, skb_inner_network_offset(skb));
	if (e->gre) {
		struct gre_base_hdr *g;

		skb_set_inner_protocol(skb, inner);
		/* kmg_encap_prepare() made room for it (skb_cow_head()) */
		g = __skb_push(skb, sizeof(*g) + (e->keyed ? 4 : 0));
		g->flags = e->keyed ? GRE_KEY : 0;
		g->protocol = inner;
		if (e->keyed)
			*(__be32 *)(g + 1) = e->key;
	} else {
		skb_set_inner_ipproto(skb, e->proto);
	}
	return 0;
}

/*
 * What both families do between the route and the outer IP header: headroom for the outer
 * headers on @dst's device, the hop count of a forwarded packet (@fwd) decremented, the
 * encapsulation pushed (kmg_push_encap()), and the packet scrubbed and given @dst without a
 * reference. Nonzero when the skb cannot be grown or offloaded: the caller drops it. Called on
 * the packet path: under RCU, with bottom halves off (skb_dst_set_noref()).
 */
static int kmg_encap_prepare(struct sk_buff *skb, const struct kmg_pkt *p,
			     const struct kmg_encap *e, struct dst_entry *dst, bool fwd,
			     bool outer6)
{
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dst->dev) + dst->header_len + e->hlen))
		return -ENOMEM;
	if (fwd)
		kmg_hop_dec(skb, p);
	if (kmg_push_encap(skb, p, e, outer6))
		return -ENOMEM;
	skb_scrub_packet(skb, false);
	skb_dst_set_noref(skb, dst);
	return 0;
}

/*
 * Packets kmaglev sends to backends pass its LOCAL_OUT hook without a lookup: the hook sees
 * this CPU's flag (bottom halves are off, so nothing else runs on the CPU meanwhile). Echo
 * replies, to clients, go out without it (icmp.c).
 */
DEFINE_PER_CPU(bool, kmg_in_xmit);

void kmg_local_out(struct kmg_net *kn, struct sk_buff *skb)
{
	__this_cpu_write(kmg_in_xmit, true);
	if (skb->protocol == htons(ETH_P_IP))
		ip_local_out(kn->net, NULL, skb);
	else
		ip6_local_out(kn->net, NULL, skb);
	__this_cpu_write(kmg_in_xmit, false);
}

/*
 * May an early-path packet skip the output path for route @r? (See the top of this file; the
 * route's kind is worked out once, when it is cached: r->plain.) A GSO packet's segments must
 * each fit @mtu, as ip_finish_output_gso() would check.
 */
static bool kmg_direct_ok(const struct kmg_pkt *p, const struct kmg_route *r,
			  const struct sk_buff *skb, unsigned int mtu)
{
	return p->early && r->plain &&
	       (!skb_is_gso(skb) || skb_gso_validate_network_len(skb, mtu));
}

/*
 * Send an encapsulated packet, its route attached, to the route's neighbour: what
 * ip_finish_output2() and ip6_finish_output2() do, without the hooks before them. The outer
 * header is complete but for IPv4's length and checksum. Headroom for the link layer was
 * reserved (skb_cow_head()). Under RCU, with bottom halves off.
 */
static bool kmg_neigh_out(struct kmg_net *kn, struct sk_buff *skb)
{
	struct dst_entry *dst = skb_dst(skb);
	/* once: dst_dev_put() may switch a dying route to the blackhole device */
	struct net_device *dev = READ_ONCE(dst->dev);
	struct neighbour *neigh;
	bool is_v6gw = false;

	skb->dev = dev;
	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(skb->len);	/* direct: never above IP_MAX_MTU */
		ip_send_check(iph);
		neigh = ip_neigh_for_gw((struct rtable *)dst, skb, &is_v6gw);
	} else {
		neigh = ip_neigh_gw6(dev, rt6_nexthop((struct rt6_info *)dst,
						      &ipv6_hdr(skb)->daddr));
	}
	if (IS_ERR(neigh)) {
		kmg_drop(kn, skb, KMG_C_DROP_NO_ROUTE, SKB_DROP_REASON_NEIGH_CREATEFAIL);
		return false;
	}
	/* a tunnel device as the route's device sends with ip_local_out(): see kmg_local_out() */
	__this_cpu_write(kmg_in_xmit, true);
	neigh_output(neigh, skb, is_v6gw);
	__this_cpu_write(kmg_in_xmit, false);
	return true;
}

/* Send an encapsulated packet to its backend, and count it. */
static void kmg_tx(struct kmg_net *kn, struct sk_buff *skb, bool direct)
{
	unsigned int len = skb->len;

	if (direct) {
		if (!kmg_neigh_out(kn, skb))
			return;
	} else {
		kmg_local_out(kn, skb);
	}
	kmg_count(kn, KMG_C_TX_PACKETS);
	kmg_count_add(kn, KMG_C_TX_BYTES, len);
}

/*
 * Look up the backend's IPv4 route from source @want (0: the route's preferred source) for
 * encap-src generation @gen, and cache it for this CPU. NULL when there is none. Off the
 * packet path's straight line: a route is looked up once per CPU until it changes.
 */
static noinline const struct kmg_route *
kmg_route4_new(struct kmg_net *kn, struct kmg_backend *be, __be32 want, u8 proto,
	       unsigned int gen)
{
	union kmg_inaddr cached = { };
	struct flowi4 fl4;
	struct rtable *rt;

	memset(&fl4, 0, sizeof(fl4));
	fl4.daddr = kmg_addr_v4(&be->addr);
	fl4.saddr = want;
	fl4.flowi4_proto = proto;
	if (want)
		fl4.flowi4_flags = FLOWI_FLAG_ANYSRC;
	rt = ip_route_output_key(kn->net, &fl4);
	if (IS_ERR(rt))
		return NULL;
	if (rt->rt_type != RTN_UNICAST) {
		ip_rt_put(rt);
		return NULL;
	}
	kmg_encap_src_gen(be, gen);
	cached.v4 = fl4.saddr;
	return kmg_route_set(&be->routes, &rt->dst, &cached, false);
}

/* As kmg_route4_new(), for IPv6. */
static noinline const struct kmg_route *
kmg_route6_new(struct kmg_net *kn, struct kmg_backend *be, const struct in6_addr *want,
	       u8 proto, unsigned int gen)
{
	union kmg_inaddr cached = { };
	struct dst_entry *dst;
	struct flowi6 fl6;

	memset(&fl6, 0, sizeof(fl6));
	fl6.daddr = be->addr.in6;
	fl6.saddr = *want;
	fl6.flowi6_proto = proto;
	if (ip6_dst_lookup(kn->net, NULL, &dst, &fl6))
		return NULL;
	kmg_encap_src_gen(be, gen);
	cached.v6 = fl6.saddr;
	return kmg_route_set(&be->routes, dst, &cached, false);
}

static void kmg_xmit4(struct kmg_net *kn, const struct kmg_service *svc,
		      struct kmg_backend *be, struct sk_buff *skb, const struct kmg_pkt *p,
		      bool fwd)
{
	__be32 daddr = kmg_addr_v4(&be->addr), saddr;
	u8 dsfield = kmg_inner_dsfield(skb, p);
	const struct kmg_route *r;
	union kmg_inaddr src;
	struct kmg_encap e;
	struct iphdr *iph;
	struct rtable *rt;
	unsigned int gen, mtu;
	bool direct;
	__be16 df;

	kmg_encap_of(be, p, false, &e);
	r = kmg_route_get(&be->routes);
	gen = kmg_encap_src(svc, AF_INET, &src);
	if (!r || r->dr || READ_ONCE(be->dst_src_seq) != gen ||
	    (src.v4 && r->saddr.v4 != src.v4)) {
		r = kmg_route4_new(kn, be, src.v4, e.proto, gen);
		if (!r)
			goto no_route;
	}
	/* the slot's fields are read before the packet leaves (a nested send may replace it) */
	rt = (struct rtable *)r->dst;
	saddr = r->saddr.v4;
	mtu = kmg_route_mtu(r) - e.hlen;
	if (kmg_too_big(kn, skb, p, mtu)) {
		kmg_drop(kn, skb, KMG_C_DROP_TOO_BIG, SKB_DROP_REASON_PKT_TOO_BIG);
		return;
	}
	/*
	 * IPv6 clients never let routers fragment; IPv4 ones say so with DF. A packet that is
	 * still too big may be fragmented (kmg_too_big()): the outer packet is.
	 */
	if (!skb_is_gso(skb) && skb->len > mtu) {
		df = 0;
		direct = false;
	} else {
		df = p->family == AF_INET6 || (ip_hdr(skb)->frag_off & htons(IP_DF)) ?
		     htons(IP_DF) : 0;
		direct = kmg_direct_ok(p, r, skb, mtu) && skb->len + e.hlen <= IP_MAX_MTU;
	}
	if (kmg_encap_prepare(skb, p, &e, &rt->dst, fwd, false))
		goto nomem;
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	__skb_push(skb, sizeof(*iph));	/* room made by kmg_encap_prepare() */
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = INET_ECN_encapsulate(dsfield, dsfield);
	iph->frag_off = df;
	iph->ttl = ip4_dst_hoplimit(&rt->dst);
	iph->protocol = e.proto;
	iph->saddr = saddr;
	iph->daddr = daddr;
	/*
	 * An atomic datagram's ID means nothing (RFC 6864): 0 with DF spares the ident
	 * generator (a hash and a shared atomic) on every packet.
	 */
	if (df)
		iph->id = 0;
	else
		__ip_select_ident(kn->net, iph, skb_shinfo(skb)->gso_segs ?: 1);
	skb->protocol = htons(ETH_P_IP);
	kmg_tx(kn, skb, direct);
	return;

nomem:
	kmg_drop(kn, skb, KMG_C_DROP_NOMEM, SKB_DROP_REASON_NOMEM);
	return;
no_route:
	kmg_drop(kn, skb, KMG_C_DROP_NO_ROUTE, SKB_DROP_REASON_IP_OUTNOROUTES);
}

static void kmg_xmit6(struct kmg_net *kn, const struct kmg_service *svc,
		      struct kmg_backend *be, struct sk_buff *skb, const struct kmg_pkt *p,
		      bool fwd)
{
	__be32 label = htonl(skb_get_hash(skb)) & IPV6_FLOWLABEL_MASK;
	u8 dsfield = kmg_inner_dsfield(skb, p);
	const struct kmg_route *r;
	struct in6_addr saddr;
	union kmg_inaddr src;
	unsigned int gen, mtu;
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	struct kmg_encap e;
	bool frag_outer, direct;

	kmg_encap_of(be, p, true, &e);
	r = kmg_route_get(&be->routes);
	gen = kmg_encap_src(svc, AF_INET6, &src);
	if (!r || r->dr || READ_ONCE(be->dst_src_seq) != gen ||
	    (!ipv6_addr_any(&src.v6) && !ipv6_addr_equal(&r->saddr.v6, &src.v6))) {
		r = kmg_route6_new(kn, be, &src.v6, e.proto, gen);
		if (!r)
			goto no_route;
	}
	/* as in kmg_xmit4() */
	dst = r->dst;
	saddr = r->saddr.v6;
	mtu = kmg_route_mtu(r) - e.hlen;
	if (kmg_too_big(kn, skb, p, mtu)) {
		kmg_drop(kn, skb, KMG_C_DROP_TOO_BIG, SKB_DROP_REASON_PKT_TOO_BIG);
		return;
	}
	/*
	 * An IPv4 packet without DF, or one reassembled from fragments that fit, may be
	 * fragmented: here that means the outer IPv6 packet.
	 */
	frag_outer = !skb_is_gso(skb) && skb->len > mtu;
	direct = !frag_outer && kmg_direct_ok(p, r, skb, mtu) &&
		 skb->len + e.hlen - sizeof(*ip6h) <= IPV6_MAXPLEN;
	if (kmg_encap_prepare(skb, p, &e, dst, fwd, true))
		goto nomem;
	__skb_push(skb, sizeof(*ip6h));	/* room made by kmg_encap_prepare() */
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, INET_ECN_encapsulate(dsfield, dsfield), label);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = e.proto;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	ip6h->saddr = saddr;
	ip6h->daddr = be->addr.in6;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb->protocol = htons(ETH_P_IPV6);
	skb->ignore_df = frag_outer;
	kmg_tx(kn, skb, direct);
	return;

nomem:
	kmg_drop(kn, skb, KMG_C_DROP_NOMEM, SKB_DROP_REASON_NOMEM);
	return;
no_route:
	kmg_drop(kn, skb, KMG_C_DROP_NO_ROUTE, SKB_DROP_REASON_IP_OUTNOROUTES);
}

/*
 * encap dr: look up the backend's route (kmg_route_dr(), checked to be a direct one) and cache
 * it for this CPU, or drop the packet (drop-dr-route) and return NULL.
 */
static noinline const struct kmg_route *kmg_route_dr_new(struct kmg_net *kn,
							 struct kmg_backend *be,
							 struct sk_buff *skb)
{
	union kmg_inaddr none = { };
	enum kmg_dr_why why;
	struct dst_entry *dst;

	dst = kmg_route_dr(kn->net, &be->addr, false, &why);
	if (IS_ERR(dst)) {
		kmg_drop(kn, skb, KMG_C_DROP_DR_ROUTE, SKB_DROP_REASON_IP_OUTNOROUTES);
		return NULL;
	}
	return kmg_route_set(&be->routes, dst, &none, true);
}

/*
 * encap dr, a packet the kernel's output path must take: one to be fragmented (or a GSO packet
 * whose segments do not fit), or one that may wait for the backend's neighbour entry on a
 * device that keeps its packets' routes: a route of its own whose next hop is the backend
 * (kmg_route_dr() with known_nh), attached with its reference and never cached, and
 * dst_output() (POST_ROUTING, then the device), as ip_forward() sends. Rare: the segment's MTU
 * is usually the clients' side's. skb->dev is still the device the packet came in on (or
 * none, for the host's own), which POST_ROUTING shows as such.
 */
static noinline bool kmg_dr_output(struct kmg_net *kn, const struct kmg_backend *be,
				   struct sk_buff *skb)
{
	enum kmg_dr_why why;
	struct dst_entry *dst;

	dst = kmg_route_dr(kn->net, &be->addr, true, &why);
	if (IS_ERR(dst)) {
		kmg_drop(kn, skb, KMG_C_DROP_DR_ROUTE, SKB_DROP_REASON_IP_OUTNOROUTES);
		return false;
	}
	skb_dst_drop(skb);
	skb_dst_set(skb, dst);
	__this_cpu_write(kmg_in_xmit, true);
	dst_output(kn->net, NULL, skb);
	__this_cpu_write(kmg_in_xmit, false);
	return true;
}

/*
 * encap dr, the common case: @skb, its route attached without a reference, straight to the
 * backend's neighbour entry, as ip_finish_output2() would send it had the route named the
 * backend as its gateway. The neighbour entry is the kernel's: made on the first packet,
 * resolved, cached and refreshed by the neighbour layer. A packet that finds it failed (no
 * answer to ARP / ND) is counted in dr-neigh-failed and sent all the same: the neighbour layer
 * starts a new resolution and drops it if that fails too. Under RCU, bottom halves off.
 */
static bool kmg_dr_neigh_out(struct kmg_net *kn, const struct kmg_backend *be,
			     struct sk_buff *skb)
{
	/* once: dst_dev_put() may switch a dying route to the blackhole device */
	struct net_device *dev = READ_ONCE(skb_dst(skb)->dev);
	struct neighbour *neigh;
	u8 state;

	if (be->addr.family == AF_INET)
		neigh = ip_neigh_gw4(dev, kmg_addr_v4(&be->addr));
	else
		neigh = ip_neigh_gw6(dev, &be->addr.in6);
	if (IS_ERR(neigh)) {
		kmg_count(kn, KMG_C_DR_NEIGH_FAILED);
		kmg_drop(kn, skb, KMG_C_DROP_NO_ROUTE, SKB_DROP_REASON_NEIGH_CREATEFAIL);
		return false;
	}
	state = READ_ONCE(neigh->nud_state);
	if (unlikely(state & NUD_FAILED))
		kmg_count(kn, KMG_C_DR_NEIGH_FAILED);
	/*
	 * A packet that waits in the entry's queue (unresolved, or an entry that fails between
	 * here and neigh_output()) is sent by neigh_update(), which looks its next hop up again
	 * from its route: the ordinary route would say the VIP. Without a route the entry itself
	 * is the next hop. A device that drops routes before its qdisc anyway
	 * (IFF_XMIT_DST_RELEASE: Ethernet, veth, macvlan, and a VLAN or bond over them) loses
	 * nothing; ARP and ND solicit without it. One that keeps them (a bridge, or a classifier
	 * reads them) gets a route naming the backend when the entry is not valid, and keeps the
	 * race of an entry that turns invalid in between. A packet without a route that the
	 * entry's failure drops makes no ICMP unreachable for the client (dst_link_failure()
	 * needs the route): as for a tunnel's outer packet, which the LB itself sends; the
	 * counters and the health checks say what happened, and a dead backend costs no route a
	 * packet.
	 */
	if (likely(dev->priv_flags & IFF_XMIT_DST_RELEASE))
		skb_dst_drop(skb);
	else if (unlikely(!(state & NUD_VALID)))
		return kmg_dr_output(kn, be, skb);
	skb->dev = dev;
	/* a tunnel device as the route's device sends with ip_local_out(): see kmg_local_out() */
	__this_cpu_write(kmg_in_xmit, true);
	neigh_output(neigh, skb, false);
	__this_cpu_write(kmg_in_xmit, false);
	return true;
}

/*
 * The MTU a packet to @r must fit: a router's for a forwarded one (ip_forward()'s: the route's
 * or the device's, not a path MTU learned for the backend's address unless
 * ip_forward_use_pmtu says so), a sender's for the host's own.
 */
static unsigned int kmg_dr_mtu(const struct kmg_route *r, const struct kmg_pkt *p, bool fwd)
{
	if (likely(r->mtu && kmg_route_no_pmtu(r->dst)))
		return r->mtu;
	if (!fwd)
		return dst_mtu(r->dst);
	if (p->family == AF_INET)
		return ip_dst_mtu_maybe_forward(r->dst, true);
	/* ip6_forward()'s, then ip6_output()'s: the route's MTU metric, or a learned one */
	return min(ip6_dst_mtu_maybe_forward(r->dst, true), dst_mtu(r->dst));
}

/*
 * encap dr (direct routing, as IPVS's DR mode): the client's packet goes to the backend's
 * link-layer address as it is, but for its TTL / hop limit, still addressed to the VIP; the
 * backend owns the VIP (on lo, without answering ARP / ND for it) and answers the client
 * directly. The backend is of the packet's family (checked when it is configured) on a
 * directly attached network (its route is checked to be a direct one, when configured and
 * each time it is looked up again). The packet is a forwarded one, not the LB's own: it does
 * not pass LOCAL_OUT (where an OUTPUT rule could route it again by the VIP, and conntrack would
 * track it), and in either hook mode goes straight to the backend's neighbour entry
 * (kmg_dr_neigh_out()), or through POST_ROUTING when the kernel must fragment it
 * (kmg_dr_output()). With no header to add, a packet that does not fit the route's MTU gets
 * Packet Too Big / fragmentation needed as a router's would, or is fragmented when it may be.
 */
static void kmg_xmit_dr(struct kmg_net *kn, struct kmg_backend *be, struct sk_buff *skb,
			const struct kmg_pkt *p, bool fwd)
{
	const struct kmg_route *r;
	struct dst_entry *dst;
	unsigned int mtu, len;
	bool fits;

	/* a backend of the other family: refused when configured, so never on the way here */
	if (unlikely(be->addr.family != p->family)) {
		kmg_drop(kn, skb, KMG_C_DROP_DR_ROUTE, SKB_DROP_REASON_IP_OUTNOROUTES);
		return;
	}
	r = kmg_route_get(&be->routes);
	if (unlikely(!r || !r->dr)) {
		r = kmg_route_dr_new(kn, be, skb);
		if (!r)
			return;
	}
	/* as in kmg_xmit4(): the slot's fields are read before the packet leaves */
	dst = r->dst;
	mtu = kmg_dr_mtu(r, p, fwd);
	if (kmg_too_big(kn, skb, p, mtu)) {
		kmg_drop(kn, skb, KMG_C_DROP_TOO_BIG, SKB_DROP_REASON_PKT_TOO_BIG);
		return;
	}
	/* else too big only if it may be fragmented: IPv4 without DF, or reassembled */
	fits = skb_is_gso(skb) ? skb_gso_validate_network_len(skb, mtu) : skb->len <= mtu;
	if (skb_cow_head(skb, LL_RESERVED_SPACE(READ_ONCE(dst->dev)) + dst->header_len))
		goto nomem;
	if (fwd) {
		kmg_hop_dec(skb, p);
		/* the link-layer header to come, and the hop count, are not in a receive csum */
		skb_forward_csum(skb);
		/* the qdisc's band from the TOS, as ip_forward() sets it */
		if (p->family == AF_INET &&
		    READ_ONCE(kn->net->ipv4.sysctl_ip_fwd_update_priority))
			skb->priority = rt_tos2priority(ip_hdr(skb)->tos);
	}
	skb_scrub_packet(skb, false);
	/* forwarded: ip_fragment() takes a router's MTU too (kmg_dr_mtu()) */
	if (p->family == AF_INET) {
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		if (fwd)
			IPCB(skb)->flags = IPSKB_FORWARDED;
	} else {
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
		if (fwd)
			IP6CB(skb)->flags = IP6SKB_FORWARDED;
	}
	skb->ignore_df = !fits;
	len = skb->len;
	/* no lightweight tunnel, VRF or xfrm bundle on a dr route: kmg_route_dr() */
	if (unlikely(!fits)) {
		if (!kmg_dr_output(kn, be, skb))
			return;
	} else {
		skb_dst_set_noref(skb, dst);
		if (!kmg_dr_neigh_out(kn, be, skb))
			return;
	}
	kmg_count(kn, KMG_C_TX_PACKETS);
	kmg_count_add(kn, KMG_C_TX_BYTES, len);
	return;

nomem:
	kmg_drop(kn, skb, KMG_C_DROP_NOMEM, SKB_DROP_REASON_NOMEM);
}

/* Send @skb (the client's packet) to @be; always consumes it. */
void kmg_xmit(struct kmg_net *kn, const struct kmg_service *svc, struct kmg_backend *be,
	      struct sk_buff *skb, const struct kmg_pkt *p)
{
	/* A client's packet is forwarded (a router hop); a locally generated one is not. */
	bool fwd = !p->local;

	if (fwd) {
		if (kmg_hop_expired(kn, skb, p))
			return;
		/*
		 * As ip_forward() does: the client's socket (veth keeps it on the way in), and
		 * a receive timestamp (sch_fq would take it for a departure time) stay behind.
		 */
		skb_orphan(skb);
		skb_clear_tstamp(skb);
	}
	/* a tag the packet arrived with (mode ingress sees them before the VLAN device) */
	__vlan_hwaccel_clear_tag(skb);
	if (READ_ONCE(be->encap) == KMAGLEV_ENCAP_DR)
		kmg_xmit_dr(kn, be, skb, p, fwd);
	else if (be->addr.family == AF_INET)
		kmg_xmit4(kn, svc, be, skb, p, fwd);
	else
		kmg_xmit6(kn, svc, be, skb, p, fwd);
}
