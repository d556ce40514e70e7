// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: packet parsing (kmod/parse.c) on well-formed and malformed packets, and the flow
 * hash (kmod/select.c).
 */
#include <kunit/test.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/kmaglev.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ndisc.h>
#include <net/tcp.h>

#include "../parse.h"
#include "../select.h"
#include "../table.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define VIP4	htonl(0xc000020a)	/* 192.0.2.10 */
#define CLI4	htonl(0xc6336401)	/* 198.51.100.1 */

static void kmg_free_skb(void *skb)
{
	kfree_skb(skb);
}

/* An skb holding @len bytes of @data as its network header, freed when the test ends. */
static struct sk_buff *kmg_skb(struct kunit *test, const void *data, unsigned int len)
{
	struct sk_buff *skb = alloc_skb(len + 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_put_data(skb, data, len);
	skb_reset_network_header(skb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kmg_free_skb, skb), 0);
	return skb;
}

struct kmg_v4_tcp {
	struct iphdr ip;
	struct tcphdr tcp;
} __packed;

static void kmg_fill_v4(struct iphdr *ip, u8 proto, unsigned int len)
{
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->tot_len = htons(len);
	ip->saddr = CLI4;
	ip->daddr = VIP4;
}

static void kmg_test_v4_tcp(struct kunit *test)
{
	struct kmg_v4_tcp pkt = {};
	struct kmg_pkt p;

	kmg_fill_v4(&pkt.ip, IPPROTO_TCP, sizeof(pkt));
	pkt.tcp.source = htons(40000);
	pkt.tcp.dest = htons(80);
	pkt.tcp.doff = 5;
	pkt.tcp.syn = 1;
	KUNIT_ASSERT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_EQ(test, p.proto, IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, ntohs(p.sport), 40000);
	KUNIT_EXPECT_EQ(test, ntohs(p.dport), 80);
	KUNIT_EXPECT_EQ(test, ntohl(p.saddr.v4), ntohl(CLI4));
	KUNIT_EXPECT_EQ(test, ntohl(p.daddr.v4), ntohl(VIP4));
	KUNIT_EXPECT_TRUE(test, p.tcp_flags & TCPHDR_SYN);
	KUNIT_EXPECT_FALSE(test, p.frag);
	KUNIT_EXPECT_FALSE(test, p.icmp_err);
}

/* A BIG TCP aggregate has no length in its IPv4 header; any other packet needs one. */
static void kmg_test_v4_big_tcp(struct kunit *test)
{
	struct kmg_v4_tcp pkt = {};
	struct sk_buff *skb;
	struct kmg_pkt p;

	kmg_fill_v4(&pkt.ip, IPPROTO_TCP, 0);
	pkt.tcp.source = htons(40000);
	pkt.tcp.dest = htons(80);
	pkt.tcp.doff = 5;
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_DROP);
	skb = kmg_skb(test, &pkt, sizeof(pkt));
	skb_shinfo(skb)->gso_size = 1448;
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	KUNIT_ASSERT_EQ(test, kmg_parse4(skb, &p), KMG_PARSE_OK);
	KUNIT_EXPECT_EQ(test, ntohs(p.dport), 80);
	/* only TCP aggregates: the stack drops any other with length 0 */
	skb = kmg_skb(test, &pkt, sizeof(pkt));
	skb_shinfo(skb)->gso_size = 1448;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	KUNIT_EXPECT_EQ(test, kmg_parse4(skb, &p), KMG_PARSE_DROP);
}

static void kmg_test_v4_malformed(struct kunit *test)
{
	struct kmg_v4_tcp pkt = {};
	struct kmg_pkt p;

	kmg_fill_v4(&pkt.ip, IPPROTO_TCP, sizeof(pkt));
	pkt.tcp.doff = 5;
	/* TCP header cut short */
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt) - 4), &p),
			KMG_PARSE_DROP);
	/* bad data offset */
	pkt.tcp.doff = 2;
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_DROP);
	pkt.tcp.doff = 5;
	/* IHL below 5, and IHL beyond the packet */
	pkt.ip.ihl = 4;
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_DROP);
	pkt.ip.ihl = 15;
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_DROP);
	/* not even an IP header */
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, 12), &p), KMG_PARSE_DROP);
	/* UDP header cut short */
	kmg_fill_v4(&pkt.ip, IPPROTO_UDP, sizeof(struct iphdr) + 4);
	pkt.ip.ihl = 5;
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(struct iphdr) + 4), &p),
			KMG_PARSE_DROP);
}

static void kmg_test_v4_fragment(struct kunit *test)
{
	struct kmg_v4_tcp pkt = {};
	struct kmg_pkt p;

	kmg_fill_v4(&pkt.ip, IPPROTO_UDP, sizeof(pkt));
	pkt.ip.frag_off = htons(IP_MF);
	KUNIT_ASSERT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.frag);
	pkt.ip.frag_off = htons(185);	/* a later fragment: no ports at all */
	KUNIT_ASSERT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(struct iphdr) + 8), &p),
			KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.frag);
}

struct kmg_v4_icmp_err {
	struct iphdr ip;
	struct icmphdr icmp;
	struct iphdr in;
	struct udphdr udp;
} __packed;

/* A router's fragmentation-needed about a datagram the VIP sent from port 53 to CLI4 */
static void kmg_fill_icmp_err(struct kmg_v4_icmp_err *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	kmg_fill_v4(&pkt->ip, IPPROTO_ICMP, sizeof(*pkt));
	pkt->ip.saddr = htonl(0xcb007101);	/* a router */
	pkt->icmp.type = ICMP_DEST_UNREACH;
	pkt->icmp.code = ICMP_FRAG_NEEDED;
	kmg_fill_v4(&pkt->in, IPPROTO_UDP, 1400);
	pkt->in.saddr = VIP4;
	pkt->in.daddr = CLI4;
	pkt->udp.source = htons(53);
	pkt->udp.dest = htons(33000);
}

/* An ICMP error quoting a packet the VIP sent gives the quoted flow, reversed. */
static void kmg_test_v4_icmp_error(struct kunit *test)
{
	struct kmg_v4_icmp_err pkt;
	struct kmg_pkt p;

	kmg_fill_icmp_err(&pkt);
	KUNIT_ASSERT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.icmp_err);
	KUNIT_EXPECT_EQ(test, p.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, ntohl(p.saddr.v4), ntohl(CLI4));
	KUNIT_EXPECT_EQ(test, ntohl(p.daddr.v4), ntohl(VIP4));
	KUNIT_EXPECT_EQ(test, ntohs(p.sport), 33000);
	KUNIT_EXPECT_EQ(test, ntohs(p.dport), 53);

	/* inner packet truncated before its ports */
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt) - 6), &p),
			KMG_PARSE_DROP);
	/* quoting a packet the VIP did not send */
	pkt.in.saddr = htonl(0x0a000001);
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_DROP);
	/* echo requests are flagged, other informational ICMP passes */
	pkt.icmp.type = ICMP_ECHO;
	KUNIT_ASSERT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.echo);
	pkt.icmp.type = ICMP_TIMESTAMP;
	KUNIT_EXPECT_EQ(test, kmg_parse4(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_PASS);
}

/*
 * kmg_parse4_checked() (mode ingress, the header checked by kmg_ingress4() and the packet
 * trimmed to its total length) gives what kmg_parse4() gives for every packet with a valid
 * header: TCP, UDP, with IP options, a first and a later fragment, a truncated transport
 * header, ICMP errors, echo and other ICMP.
 */
static void kmg_expect_same4(struct kunit *test, const void *pkt, unsigned int len)
{
	struct kmg_pkt a, c;
	enum kmg_parse ra, rc;

	memset(&a, 0xa5, sizeof(a));
	memset(&c, 0x5a, sizeof(c));
	ra = kmg_parse4(kmg_skb(test, pkt, len), &a);
	rc = kmg_parse4_checked(kmg_skb(test, pkt, len), &c);
	KUNIT_EXPECT_EQ(test, ra, rc);
	KUNIT_EXPECT_EQ(test, memcmp(&a, &c, sizeof(a)), 0);
}

static void kmg_test_v4_checked(struct kunit *test)
{
	struct kmg_v4_icmp_err err;
	struct kmg_v4_tcp pkt = {};

	kmg_fill_v4(&pkt.ip, IPPROTO_TCP, sizeof(pkt));
	pkt.tcp.source = htons(40000);
	pkt.tcp.dest = htons(80);
	pkt.tcp.doff = 5;
	pkt.tcp.ack = 1;
	kmg_expect_same4(test, &pkt, sizeof(pkt));
	pkt.tcp.doff = 4;
	kmg_expect_same4(test, &pkt, sizeof(pkt));
	kmg_fill_v4(&pkt.ip, IPPROTO_UDP, sizeof(pkt));
	kmg_expect_same4(test, &pkt, sizeof(pkt));
	kmg_fill_v4(&pkt.ip, IPPROTO_TCP, sizeof(struct iphdr) + 8);
	kmg_expect_same4(test, &pkt, sizeof(struct iphdr) + 8);
	kmg_fill_v4(&pkt.ip, IPPROTO_UDP, sizeof(pkt));
	pkt.ip.frag_off = htons(IP_MF);
	kmg_expect_same4(test, &pkt, sizeof(pkt));
	kmg_fill_v4(&pkt.ip, IPPROTO_UDP, sizeof(struct iphdr) + 8);
	pkt.ip.frag_off = htons(185);
	kmg_expect_same4(test, &pkt, sizeof(struct iphdr) + 8);
	/* 4 bytes of options (NOPs): the UDP header after them */
	kmg_fill_v4(&pkt.ip, IPPROTO_UDP, sizeof(pkt));
	pkt.ip.ihl = 6;
	memset(&pkt.tcp, 0, sizeof(pkt.tcp));
	memset(&pkt.tcp, IPOPT_NOP, 4);
	kmg_expect_same4(test, &pkt, sizeof(pkt));

	kmg_fill_icmp_err(&err);
	kmg_expect_same4(test, &err, sizeof(err));
	err.ip.tot_len = htons(sizeof(err) - 6);
	kmg_expect_same4(test, &err, sizeof(err) - 6);
	err.ip.tot_len = htons(sizeof(err));
	err.in.saddr = htonl(0x0a000001);
	kmg_expect_same4(test, &err, sizeof(err));
	err.icmp.type = ICMP_ECHO;
	kmg_expect_same4(test, &err, sizeof(err));
	err.icmp.type = ICMP_TIMESTAMP;
	kmg_expect_same4(test, &err, sizeof(err));
}

static void kmg_fill_v6(struct ipv6hdr *ip6, u8 nexthdr, unsigned int payload)
{
	memset(ip6, 0, sizeof(*ip6));
	ip6->version = 6;
	ip6->nexthdr = nexthdr;
	ip6->hop_limit = 64;
	ip6->payload_len = htons(payload);
	ipv6_addr_set(&ip6->saddr, htonl(0x20010db8), 0, 0, htonl(1));
	ipv6_addr_set(&ip6->daddr, htonl(0x20010db8), htonl(0xf), 0, htonl(10));
}

static void kmg_test_v6_exthdrs(struct kunit *test)
{
	struct {
		struct ipv6hdr ip6;
		u8 dst_opts[8];		/* destination options: next header, length, padding */
		struct udphdr udp;
	} __packed pkt = {};
	struct kmg_pkt p;

	kmg_fill_v6(&pkt.ip6, NEXTHDR_DEST, sizeof(pkt) - sizeof(pkt.ip6));
	pkt.dst_opts[0] = IPPROTO_UDP;
	pkt.dst_opts[1] = 0;		/* 8 bytes */
	pkt.dst_opts[2] = 1;		/* PadN, 4 bytes of padding */
	pkt.dst_opts[3] = 4;
	pkt.udp.source = htons(5353);
	pkt.udp.dest = htons(53);
	KUNIT_ASSERT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_EQ(test, p.proto, IPPROTO_UDP);
	KUNIT_EXPECT_EQ(test, ntohs(p.dport), 53);
	KUNIT_EXPECT_EQ(test, p.l4off, (unsigned int)(sizeof(pkt.ip6) + 8));

	/* an extension header that claims more bytes than the packet has */
	pkt.dst_opts[1] = 10;
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_DROP);
	/* a chain cut in the middle of the extension header */
	pkt.dst_opts[1] = 0;
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt.ip6) + 4), &p),
			KMG_PARSE_DROP);
	/* UDP header cut short */
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt) - 2), &p),
			KMG_PARSE_DROP);
}

static void kmg_test_v6_fragment(struct kunit *test)
{
	struct {
		struct ipv6hdr ip6;
		struct frag_hdr frag;
		struct udphdr udp;
	} __packed pkt = {};
	struct kmg_pkt p;

	kmg_fill_v6(&pkt.ip6, NEXTHDR_FRAGMENT, sizeof(pkt) - sizeof(pkt.ip6));
	pkt.frag.nexthdr = IPPROTO_UDP;
	pkt.frag.frag_off = htons(IP6_MF);
	KUNIT_ASSERT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.frag);

	/* A fragment header cut short is malformed, first fragment or later one. */
	pkt.frag.frag_off = htons(IP6_MF);
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt.ip6) + 2), &p),
			KMG_PARSE_DROP);
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt.ip6) + 6), &p),
			KMG_PARSE_DROP);
	pkt.frag.frag_off = htons(185 << 3);
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt.ip6) + 6), &p),
			KMG_PARSE_DROP);
	KUNIT_ASSERT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt.ip6) + 8), &p),
			KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.frag);
}

static void kmg_test_v6_icmp(struct kunit *test)
{
	struct {
		struct ipv6hdr ip6;
		struct icmp6hdr icmp;
		struct ipv6hdr in;
		struct tcphdr tcp;
	} __packed pkt = {};
	struct kmg_pkt p;

	kmg_fill_v6(&pkt.ip6, IPPROTO_ICMPV6, sizeof(pkt) - sizeof(pkt.ip6));
	pkt.icmp.icmp6_type = ICMPV6_PKT_TOOBIG;
	kmg_fill_v6(&pkt.in, IPPROTO_TCP, 1400);
	swap(pkt.in.saddr, pkt.in.daddr);	/* VIP -> client */
	pkt.tcp.source = htons(443);
	pkt.tcp.dest = htons(50000);
	KUNIT_ASSERT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_OK);
	KUNIT_EXPECT_TRUE(test, p.icmp_err);
	KUNIT_EXPECT_EQ(test, p.proto, IPPROTO_TCP);
	KUNIT_EXPECT_EQ(test, ntohs(p.sport), 50000);
	KUNIT_EXPECT_EQ(test, ntohs(p.dport), 443);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_equal(&p.daddr.v6, &pkt.ip6.daddr));
	/* truncated quote */
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt.ip6) + 8 + 20), &p),
			KMG_PARSE_DROP);
	/* neighbour discovery to a VIP passes */
	pkt.icmp.icmp6_type = NDISC_NEIGHBOUR_SOLICITATION;
	KUNIT_EXPECT_EQ(test, kmg_parse6(kmg_skb(test, &pkt, sizeof(pkt)), &p), KMG_PARSE_PASS);
}

/* The flow hash depends on the seed and on exactly the fields the service hashes on. */
static void kmg_test_flow_hash(struct kunit *test)
{
	struct kmg_table *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct kmg_table *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct kmg_pkt p = { .family = AF_INET, .proto = IPPROTO_TCP };
	struct kmg_pkt q;
	u64 h;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->flow_key.key[0] = 1;
	p.saddr.v4 = CLI4;
	p.daddr.v4 = VIP4;
	p.sport = htons(40000);
	p.dport = htons(80);
	q = p;
	q.sport = htons(40001);
	h = kmg_flow_hash(a, KMAGLEV_HASH_FIVE_TUPLE, &p);
	KUNIT_EXPECT_EQ(test, h, kmg_flow_hash(a, KMAGLEV_HASH_FIVE_TUPLE, &p));
	KUNIT_EXPECT_NE(test, h, kmg_flow_hash(b, KMAGLEV_HASH_FIVE_TUPLE, &p));
	KUNIT_EXPECT_NE(test, h, kmg_flow_hash(a, KMAGLEV_HASH_FIVE_TUPLE, &q));
	KUNIT_EXPECT_EQ(test, kmg_flow_hash(a, KMAGLEV_HASH_THREE_TUPLE, &p),
			kmg_flow_hash(a, KMAGLEV_HASH_THREE_TUPLE, &q));
	q.daddr.v4 = htonl(0xc000020b);
	KUNIT_EXPECT_EQ(test, kmg_flow_hash(a, KMAGLEV_HASH_SRC_ADDR, &p),
			kmg_flow_hash(a, KMAGLEV_HASH_SRC_ADDR, &q));
	KUNIT_EXPECT_NE(test, kmg_flow_hash(a, KMAGLEV_HASH_THREE_TUPLE, &p),
			kmg_flow_hash(a, KMAGLEV_HASH_THREE_TUPLE, &q));
}

static struct kunit_case kmg_parse_cases[] = {
	KUNIT_CASE(kmg_test_v4_tcp),
	KUNIT_CASE(kmg_test_v4_big_tcp),
	KUNIT_CASE(kmg_test_v4_malformed),
	KUNIT_CASE(kmg_test_v4_fragment),
	KUNIT_CASE(kmg_test_v4_icmp_error),
	KUNIT_CASE(kmg_test_v4_checked),
	KUNIT_CASE(kmg_test_v6_exthdrs),
	KUNIT_CASE(kmg_test_v6_fragment),
	KUNIT_CASE(kmg_test_v6_icmp),
	KUNIT_CASE(kmg_test_flow_hash),
	{}
};

static struct kunit_suite kmg_parse_suite = {
	.name = "kmaglev_parse",
	.test_cases = kmg_parse_cases,
};

kunit_test_suites(&kmg_parse_suite);
