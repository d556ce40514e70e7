// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev packet parsing: from an IPv4 or IPv6 packet to a VIP, the flow it belongs to.
 *
 * TCP, UDP and other protocols give their own flow (other protocols with ports 0); ICMP and
 * ICMPv6 errors give the flow of the packet they quote, of any protocol, reversed (the quoted
 * packet went from the VIP to the client, the flow goes from the client to the VIP); echo
 * requests are flagged. Every header is pulled before
 * it is read, so truncated or malformed packets are refused, never read past their end.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include <kunit/visibility.h>

#include "parse.h"

/* The ports of a TCP or UDP header at @off. */
static __always_inline int kmg_parse_ports(struct sk_buff *skb, unsigned int off, u8 proto,
					   __be16 *sport, __be16 *dport, u8 *tcp_flags)
{
	if (proto == IPPROTO_TCP) {
		const struct tcphdr *th;

		if (!pskb_may_pull(skb, off + sizeof(*th)))
			return -EINVAL;
		th = (const struct tcphdr *)(skb->data + off);
		if (th->doff < sizeof(*th) / 4)
			return -EINVAL;
		*sport = th->source;
		*dport = th->dest;
		if (tcp_flags)
			*tcp_flags = tcp_flag_byte(th);
		return 0;
	}
	if (proto == IPPROTO_UDP) {
		const struct udphdr *uh;

		if (!pskb_may_pull(skb, off + sizeof(*uh)))
			return -EINVAL;
		uh = (const struct udphdr *)(skb->data + off);
		*sport = uh->source;
		*dport = uh->dest;
		return 0;
	}
	*sport = 0;
	*dport = 0;
	return 0;
}

/*
 * The ports of the packet an ICMP error quotes, transport header at @off, into the reversed
 * flow @p. Only TCP and UDP have ports; other protocols' flows have port 0 (as their packets
 * get from kmg_parse_ports()).
 */
static enum kmg_parse kmg_parse_quoted_ports(struct sk_buff *skb, unsigned int off,
					     struct kmg_pkt *p)
{
	__be16 sport, dport;

	if (p->proto != IPPROTO_TCP && p->proto != IPPROTO_UDP)
		return KMG_PARSE_OK;
	if (!pskb_may_pull(skb, off + 4))
		return KMG_PARSE_DROP;
	memcpy(&sport, skb->data + off, 2);
	memcpy(&dport, skb->data + off + 2, 2);
	p->sport = dport;
	p->dport = sport;
	return KMG_PARSE_OK;
}

static bool kmg_icmp4_is_error(u8 type)
{
	return type == ICMP_DEST_UNREACH || type == ICMP_TIME_EXCEEDED ||
	       type == ICMP_PARAMETERPROB || type == ICMP_SOURCE_QUENCH;
}

/* The flow an ICMP error quotes, at @off (after the ICMP header), reversed. */
static enum kmg_parse kmg_parse_icmp4_inner(struct sk_buff *skb, unsigned int off,
					    struct kmg_pkt *p)
{
	const struct iphdr *inner;

	if (!pskb_may_pull(skb, off + sizeof(*inner)))
		return KMG_PARSE_DROP;
	inner = (const struct iphdr *)(skb->data + off);
	if (inner->version != 4 || inner->ihl < 5 || ip_is_fragment(inner))
		return KMG_PARSE_DROP;
	/* The error is about a packet the VIP sent. */
	if (inner->saddr != ip_hdr(skb)->daddr)
		return KMG_PARSE_DROP;
	p->proto = inner->protocol;
	p->saddr.v4 = inner->daddr;
	p->daddr.v4 = inner->saddr;
	p->icmp_err = true;
	/* RFC 792 quotes only 8 bytes of the transport header: ports, not TCP flags. */
	return kmg_parse_quoted_ports(skb, off + inner->ihl * 4, p);
}

/*
 * The flow of a packet whose IPv4 header is linear and valid. @iph is read before the first
 * pull of the transport header, which may move it; after that only ip_hdr(). Inlined into
 * its two callers: one of them is every IPv4 packet's parse in mode ingress.
 */
static __always_inline enum kmg_parse
kmg_parse4_flow(struct sk_buff *skb, const struct iphdr *iph, struct kmg_pkt *p)
{
	unsigned int off;

	p->saddr.v4 = iph->saddr;
	p->daddr.v4 = iph->daddr;
	p->proto = iph->protocol;
	if (ip_is_fragment(iph)) {
		p->frag = true;
		return KMG_PARSE_OK;
	}
	off = skb_network_offset(skb) + iph->ihl * 4;
	p->l4off = off;
	if (p->proto == IPPROTO_ICMP) {
		const struct icmphdr *ih;

		if (!pskb_may_pull(skb, off + sizeof(*ih)))
			return KMG_PARSE_DROP;
		ih = (const struct icmphdr *)(skb->data + off);
		if (ih->type == ICMP_ECHO) {
			p->echo = true;
			return KMG_PARSE_OK;
		}
		if (kmg_icmp4_is_error(ih->type))
			return kmg_parse_icmp4_inner(skb, off + sizeof(*ih), p);
		return KMG_PARSE_PASS;
	}
	if (kmg_parse_ports(skb, off, p->proto, &p->sport, &p->dport, &p->tcp_flags))
		return KMG_PARSE_DROP;
	return KMG_PARSE_OK;
}

enum kmg_parse kmg_parse4(struct sk_buff *skb, struct kmg_pkt *p)
{
	const struct iphdr *iph;

	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	if (!pskb_may_pull(skb, sizeof(*iph)))
		return KMG_PARSE_DROP;
	iph = ip_hdr(skb);
	if (iph->version != 4 || iph->ihl < 5 || !pskb_may_pull(skb, iph->ihl * 4))
		return KMG_PARSE_DROP;
	iph = ip_hdr(skb);	/* the pull may have moved the header */
	/* a BIG TCP aggregate (gro_ipv4_max_size above 64 KiB) has 0 there: its skb's length */
	if (iph_totlen(skb, iph) < iph->ihl * 4)
		return KMG_PARSE_DROP;
	return kmg_parse4_flow(skb, iph, p);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_parse4);

/*
 * kmg_parse4() for a packet whose IPv4 header the caller has already checked as
 * ip_rcv_core() does (kmg_ingress4(): linear, version, length, checksum, total length at
 * least the header's): the same result without checking it twice.
 */
enum kmg_parse kmg_parse4_checked(struct sk_buff *skb, struct kmg_pkt *p)
{
	const struct iphdr *iph = ip_hdr(skb);

	/* the caller's promise, checked on CONFIG_DEBUG_NET kernels */
	DEBUG_NET_WARN_ON_ONCE(skb_headlen(skb) < sizeof(*iph) || iph->version != 4 ||
			       iph->ihl < 5 || skb_headlen(skb) < iph->ihl * 4 ||
			       iph_totlen(skb, iph) < iph->ihl * 4);
	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	return kmg_parse4_flow(skb, iph, p);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_parse4_checked);

/* The flow an ICMPv6 error quotes, at @off (after the ICMPv6 header), reversed. */
static enum kmg_parse kmg_parse_icmp6_inner(struct sk_buff *skb, unsigned int off,
					    struct kmg_pkt *p)
{
	const struct ipv6hdr *inner;
	__be16 frag_off;
	u8 nexthdr;
	int l4;

	if (!pskb_may_pull(skb, off + sizeof(*inner)))
		return KMG_PARSE_DROP;
	inner = (const struct ipv6hdr *)(skb->data + off);
	if (inner->version != 6 || !ipv6_addr_equal(&inner->saddr, &ipv6_hdr(skb)->daddr))
		return KMG_PARSE_DROP;
	p->saddr.v6 = inner->daddr;
	p->daddr.v6 = inner->saddr;
	nexthdr = inner->nexthdr;
	l4 = ipv6_skip_exthdr(skb, off + sizeof(*inner), &nexthdr, &frag_off);
	if (l4 < 0 || frag_off)
		return KMG_PARSE_DROP;
	p->proto = nexthdr;
	p->icmp_err = true;
	return kmg_parse_quoted_ports(skb, l4, p);
}

enum kmg_parse kmg_parse6(struct sk_buff *skb, struct kmg_pkt *p)
{
	const struct ipv6hdr *ip6h;
	unsigned int off = 0;
	int fflags = 0;
	int proto;

	memset(p, 0, sizeof(*p));
	p->family = AF_INET6;
	if (!pskb_may_pull(skb, sizeof(*ip6h)))
		return KMG_PARSE_DROP;
	ip6h = ipv6_hdr(skb);
	if (ip6h->version != 6)
		return KMG_PARSE_DROP;
	p->saddr.v6 = ip6h->saddr;
	p->daddr.v6 = ip6h->daddr;
	/* Walks the extension headers, refusing broken chains. */
	proto = ipv6_find_hdr(skb, &off, -1, NULL, &fflags);
	if (fflags & IP6_FH_F_FRAG) {
		unsigned int foff = 0;

		/*
		 * The walk flags a fragment header as soon as it reaches it, whole or not. One
		 * cut short is malformed: reassembly (nf_ct_frag6_gather()) would refuse some
		 * of those as -ENOMEM.
		 */
		if (ipv6_find_hdr(skb, &foff, NEXTHDR_FRAGMENT, NULL, NULL) < 0 ||
		    !pskb_may_pull(skb, foff + sizeof(struct frag_hdr)))
			return KMG_PARSE_DROP;
		p->frag = true;
		return KMG_PARSE_OK;
	}
	if (proto < 0)
		return KMG_PARSE_DROP;
	p->proto = proto;
	p->l4off = off;
	if (proto == IPPROTO_ICMPV6) {
		const struct icmp6hdr *ih;

		if (!pskb_may_pull(skb, off + sizeof(*ih)))
			return KMG_PARSE_DROP;
		ih = (const struct icmp6hdr *)(skb->data + off);
		if (ih->icmp6_type == ICMPV6_ECHO_REQUEST) {
			p->echo = true;
			return KMG_PARSE_OK;
		}
		if (ih->icmp6_type < 128)	/* errors */
			return kmg_parse_icmp6_inner(skb, off + sizeof(*ih), p);
		return KMG_PARSE_PASS;	/* neighbour discovery and other informational */
	}
	if (kmg_parse_ports(skb, off, p->proto, &p->sport, &p->dport, &p->tcp_flags))
		return KMG_PARSE_DROP;
	return KMG_PARSE_OK;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_parse6);
