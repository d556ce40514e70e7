// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev ICMP: echo replies from a VIP, fragmentation-needed / Packet Too Big to clients
 * whose packets would not fit the tunnel, and time exceeded for packets whose TTL / hop limit
 * ran out (encap.c). (ICMP errors about VIP flows are not answered here: parse.c maps them to
 * their flow and they are forwarded to its backend like its packets.)
 *
 * Errors go through the kernel's icmp_send()/icmpv6_send(), so they are rate limited per
 * destination and globally like every ICMP error the host sends.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_vlan.h>
#include <net/checksum.h>
#include <net/dst_metadata.h>
#include <net/icmp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "icmp.h"
#include "netns.h"
#include "parse.h"
#include "stats.h"

/*
 * Send an ICMP or ICMPv6 error about @skb to its source. False when it could not even be
 * tried (the kernel may still rate limit it).
 */
static bool kmg_icmp_error(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p,
			   u8 type4, u8 code4, u8 type6, u8 code6, u32 info)
{
	if (p->icmp_err)	/* never an error about an error */
		return false;
	if (p->family == AF_INET) {
		/*
		 * icmp_send() needs the packet's route; one arriving at PRE_ROUTING has none yet,
		 * so give it the route back to the client.
		 */
		if (!skb_valid_dst(skb)) {
			struct flowi4 fl4;
			struct rtable *rt;

			memset(&fl4, 0, sizeof(fl4));
			fl4.daddr = p->saddr.v4;
			fl4.flowi4_proto = IPPROTO_ICMP;
			rt = ip_route_output_key(kn->net, &fl4);
			if (IS_ERR(rt))
				return false;
			skb_dst_drop(skb);	/* a tunnel's metadata dst, if any */
			skb_dst_set(skb, &rt->dst);
		}
		icmp_send(skb, type4, code4, htonl(info));
	} else {
		/*
		 * icmpv6_send() finds the netns through skb->dev, which a locally generated
		 * packet (LOCAL_OUT) does not have yet: it is the host's own, as from loopback.
		 */
		if (!skb->dev)
			skb->dev = kn->net->loopback_dev;
		icmpv6_send(skb, type6, code6, info);
	}
	return true;
}

void kmg_icmp_too_big(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p,
		      unsigned int mtu)
{
	if (kmg_icmp_error(kn, skb, p, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, ICMPV6_PKT_TOOBIG, 0,
			   p->family == AF_INET ? mtu : max_t(u32, mtu, IPV6_MIN_MTU)))
		kmg_count(kn, KMG_C_ICMP_PTB_SENT);
}

/* The TTL / hop limit of a client's packet ran out at the LB (encap.c). */
void kmg_icmp_time_exceeded(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p)
{
	kmg_icmp_error(kn, skb, p, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, ICMPV6_TIME_EXCEED,
		       ICMPV6_EXC_HOPLIMIT, 0);
}

/*
 * Take the IPv4 options or IPv6 extension headers out of a request turned into a reply, as
 * icmpv6_echo_reply() builds its reply without them: a reflected routing header or source
 * route is wrong, and a large unfragmentable part could keep a reply that needs fragments
 * from fitting any. (The kernel echoes IPv4 record-route and timestamp options; kmaglev does
 * not.) The first @l4off bytes are writable and start at the network header. The ICMP
 * checksum does not cover them; the ICMPv6 one covers only the addresses (the same swapped),
 * the unchanged upper-layer length and the next header, once kmg_icmp_echo_routed() has
 * turned away requests whose final destination is not the VIP. Sets the transport header.
 */
static void kmg_icmp_echo_strip(struct sk_buff *skb, const struct kmg_pkt *p)
{
	__be16 *len = p->family == AF_INET ? &ip_hdr(skb)->tot_len : &ipv6_hdr(skb)->payload_len;
	unsigned int hlen = p->family == AF_INET ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	unsigned int off = p->l4off - hlen;

	/* a length of 0 (a jumbogram, BIG TCP) is in a header that stays */
	if (off && *len) {
		*len = htons(ntohs(*len) - off);
		memmove(skb->data + off, skb->data, hlen);
		__skb_pull(skb, off);
		skb_reset_network_header(skb);
		if (p->family == AF_INET)
			ip_hdr(skb)->ihl = hlen / 4;
		else
			ipv6_hdr(skb)->nexthdr = IPPROTO_ICMPV6;
		off = 0;
	}
	skb_set_transport_header(skb, hlen + off);
}

/*
 * An IPv6 request with a routing header that still has segments left: the VIP is not its
 * final destination, and the sender's checksum covers that destination, not the VIP.
 */
static bool kmg_icmp_echo_routed(struct sk_buff *skb, const struct kmg_pkt *p)
{
	int flags = IP6_FH_F_SKIP_RH;
	unsigned int off = 0;

	return p->family == AF_INET6 && p->l4off > sizeof(struct ipv6hdr) &&
	       ipv6_find_hdr(skb, &off, NEXTHDR_ROUTING, NULL, &flags) == NEXTHDR_ROUTING;
}

/*
 * Turn an echo request to a VIP into the reply, from the VIP, and send it. Consumes @skb.
 *
 * The reply is built as the kernel's icmp_reply() and icmpv6_echo_reply() build theirs: no
 * IP options or extension headers, IPv4 without DF and with a fresh IP ID, IPv6 with
 * ignore_df, so that a reply larger than the route back (a reassembled request, asymmetric
 * routes, a learned path MTU) leaves in fragments. (Without that the output path answered
 * the VIP itself with fragmentation-needed / Packet Too Big, and the reply was lost.) What the
 * request brought along stays behind: the client's socket, its receive timestamp or delivery
 * time, a CHECKSUM_COMPLETE sum the rewrite made stale, a VLAN tag. Routing headers with
 * segments left are not answered (drop-malformed).
 *
 * It goes out through the LOCAL_OUT hook like any packet of the host, without kmg_in_xmit:
 * it is to a client, and should that client be a VIP, kmaglev sees and counts it there (an
 * echo reply is never balanced or answered: vip-miss).
 */
void kmg_icmp_echo_reply(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p)
{
	struct dst_entry *dst;

	/* parse.c's offsets count from skb->data, which every hook has at the network header */
	if (unlikely(skb_network_offset(skb)) || kmg_icmp_echo_routed(skb, p)) {
		kmg_drop(kn, skb, KMG_C_DROP_MALFORMED, SKB_DROP_REASON_IP_INHDR);
		return;
	}
	if (skb_ensure_writable(skb, p->l4off + 8)) {
		kmg_drop(kn, skb, KMG_C_DROP_NOMEM, SKB_DROP_REASON_NOMEM);
		return;
	}
	skb_orphan(skb);
	skb_set_delivery_time(skb, 0, 0);	/* 0: no mono / realtime type, on 6.1 and 6.12 */
	skb_forward_csum(skb);
	__vlan_hwaccel_clear_tag(skb);
	kmg_icmp_echo_strip(skb, p);
	if (p->family == AF_INET) {
		struct iphdr *iph = ip_hdr(skb);
		struct icmphdr *ih = icmp_hdr(skb);
		struct flowi4 fl4;
		struct rtable *rt;

		swap(iph->saddr, iph->daddr);
		iph->ttl = 64;
		iph->frag_off = 0;
		ip_select_ident(kn->net, skb, NULL);
		ip_send_check(iph);
		ih->type = ICMP_ECHOREPLY;
		inet_proto_csum_replace2(&ih->checksum, skb, htons(ICMP_ECHO << 8),
					 htons(ICMP_ECHOREPLY << 8), false);
		memset(&fl4, 0, sizeof(fl4));
		fl4.daddr = iph->daddr;
		fl4.saddr = iph->saddr;
		fl4.flowi4_proto = IPPROTO_ICMP;
		fl4.flowi4_flags = FLOWI_FLAG_ANYSRC;
		rt = ip_route_output_key(kn->net, &fl4);
		if (IS_ERR(rt))
			goto no_route;
		/*
		 * kmaglev runs before the input route's martian checks: no reply to a source
		 * that is a broadcast address (FLOWI_FLAG_ANYSRC would let the VIP send one), nor
		 * to a local one unless the request was the host's own (LOCAL_OUT: a ping from
		 * the LB, or a VIP on lo pinging itself).
		 */
		if (rt->rt_type != RTN_UNICAST && !(p->local && rt->rt_type == RTN_LOCAL)) {
			ip_rt_put(rt);
			goto no_route;
		}
		dst = &rt->dst;
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);
		struct icmp6hdr *ih = icmp6_hdr(skb);
		struct flowi6 fl6;

		swap(ip6h->saddr, ip6h->daddr);
		ip6h->hop_limit = 64;
		ih->icmp6_type = ICMPV6_ECHO_REPLY;
		/* the pseudo-header sum is the same with the addresses swapped */
		inet_proto_csum_replace2(&ih->icmp6_cksum, skb, htons(ICMPV6_ECHO_REQUEST << 8),
					 htons(ICMPV6_ECHO_REPLY << 8), false);
		memset(&fl6, 0, sizeof(fl6));
		fl6.daddr = ip6h->daddr;
		fl6.saddr = ip6h->saddr;
		fl6.flowi6_proto = IPPROTO_ICMPV6;
		dst = ip6_route_output(kn->net, NULL, &fl6);
		if (dst->error) {
			dst_release(dst);
			goto no_route;
		}
	}
	skb_scrub_packet(skb, false);
	skb->ignore_df = 1;	/* after the scrub, which clears it; IPv4 has no DF left */
	skb_dst_set(skb, dst);
	kmg_count(kn, KMG_C_ICMP_ECHO);
	if (p->family == AF_INET) {
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		ip_local_out(kn->net, NULL, skb);
	} else {
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
		ip6_local_out(kn->net, NULL, skb);
	}
	return;
no_route:
	kmg_drop(kn, skb, KMG_C_DROP_NO_ROUTE, SKB_DROP_REASON_IP_OUTNOROUTES);
}
