// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the early path's header checks (kmod/ingress.c). A packet with a header ip_rcv()
 * would refuse is dropped and counted in drop-malformed when it is to a VIP; to an address
 * that only shares a VIP's filter bucket, it is left to the stack, uncounted.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/kmaglev.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "../addr.h"
#include "../ingress.h"
#include "../netns.h"
#include "../service.h"
#include "../stats.h"
#include "../vip.h"
#include "kunit.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define VIP4	0xc000020a	/* 192.0.2.10 */

/* 2001:db8:f::10 */
static const struct in6_addr kmg_vip6 = {
	.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 },
};

static void kmg_in_service(struct kunit *test, u8 family, const void *addr)
{
	struct kmg_net *kn = test->priv;
	struct kmg_service_cfg cfg;
	struct kmg_service *svc;
	struct kmg_svc_key key = { .family = family, .proto = IPPROTO_TCP, .port = htons(80) };
	struct kmg_addr a;
	int err;

	if (family == AF_INET) {
		kmg_addr_from_v4(&a, *(const __be32 *)addr);
		memcpy(key.addr, a.b, sizeof(key.addr));
	} else {
		memcpy(key.addr, addr, sizeof(key.addr));
	}
	kmg_service_cfg_default(&cfg);
	cfg.table_size = 251;
	mutex_lock(&kn->lock);
	err = kmg_service_create(kn, &key, &cfg, NULL, 0, &svc, NULL);
	mutex_unlock(&kn->lock);
	KUNIT_ASSERT_EQ(test, err, 0);
}

static u64 kmg_in_malformed(struct kmg_net *kn)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(kn->stats, cpu)->c[KMG_C_DROP_MALFORMED]);
	return n;
}

/*
 * Run the early path on a copy of @hdr (@len bytes, EtherType @proto) received on loopback:
 * the verdict. A packet it did not take is freed here.
 */
static unsigned int kmg_in_run(struct kunit *test, __be16 proto, const void *hdr,
			       unsigned int len)
{
	struct nf_hook_state state = { .hook = NF_NETDEV_INGRESS, .pf = NFPROTO_NETDEV };
	struct sk_buff *skb = alloc_skb(len + 64, GFP_KERNEL);
	unsigned int verdict;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 64);
	skb_put_data(skb, hdr, len);
	skb_reset_network_header(skb);
	skb->protocol = proto;
	skb->dev = init_net.loopback_dev;
	skb->pkt_type = PACKET_HOST;
	rcu_read_lock();
	local_bh_disable();
	verdict = kmg_ingress_one(test->priv, skb, &state);
	local_bh_enable();
	rcu_read_unlock();
	if (verdict != NF_STOLEN)
		kfree_skb(skb);
	return verdict;
}

/* @ip6 and 8 bytes of payload through the early path: the verdict */
static unsigned int kmg_in_run6(struct kunit *test, const struct ipv6hdr *ip6)
{
	u8 buf[sizeof(*ip6) + 8] = { };

	memcpy(buf, ip6, sizeof(*ip6));
	return kmg_in_run(test, htons(ETH_P_IPV6), buf, sizeof(buf));
}

/* An IPv4 header with a wrong checksum: dropped if to the VIP, else the stack's. */
static void kmg_test_bad4_filter_only(struct kunit *test)
{
	struct kmg_net *kn = test->priv;
	__be32 vip = htonl(VIP4), other = 0;
	bool maybe;
	struct iphdr ip = { .version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_TCP,
			    .tot_len = htons(sizeof(ip)), .saddr = htonl(0xcb007102) };
	u64 n0;
	u32 i;

	kmg_in_service(test, AF_INET, &vip);
	/* an address in the VIP's filter bucket that is not a VIP */
	for (i = 1; i; i++) {
		other = vip ^ htonl(i);
		if (kmg_vipf_hash4(other) == kmg_vipf_hash4(vip))
			break;
	}
	KUNIT_ASSERT_NE(test, i, 0U);
	/* an assertion that fails ends the test's thread: not under rcu_read_lock() */
	rcu_read_lock();
	maybe = kmg_vip_maybe(kn, kmg_vipf_hash4(other));
	rcu_read_unlock();
	KUNIT_ASSERT_TRUE(test, maybe);

	/* the checksum of the header with TTL 64, sent with TTL 63: wrong */
	ip.daddr = other;
	ip.check = ip_fast_csum(&ip, ip.ihl);
	ip.ttl--;
	n0 = kmg_in_malformed(kn);
	KUNIT_EXPECT_EQ(test, kmg_in_run(test, htons(ETH_P_IP), &ip, sizeof(ip)), NF_ACCEPT);
	KUNIT_EXPECT_EQ(test, kmg_in_malformed(kn), n0);

	ip.daddr = vip;
	ip.ttl = 64;
	ip.check = 0;
	ip.check = ip_fast_csum(&ip, ip.ihl);
	ip.ttl--;
	KUNIT_EXPECT_EQ(test, kmg_in_run(test, htons(ETH_P_IP), &ip, sizeof(ip)), NF_STOLEN);
	KUNIT_EXPECT_EQ(test, kmg_in_malformed(kn), n0 + 1);
}

/*
 * IPv6 headers with version 2, and with a payload length past the packet: dropped if to the
 * VIP, else the stack's.
 */
static void kmg_test_bad6_filter_only(struct kunit *test)
{
	struct kmg_net *kn = test->priv;
	struct in6_addr other = kmg_vip6;
	struct ipv6hdr ip6 = { .version = 2, .nexthdr = IPPROTO_TCP, .hop_limit = 64,
			       .payload_len = htons(8) };
	struct inet6_dev *idev;
	bool maybe, off;
	u64 n0;
	u32 i;

	idev = in6_dev_get(init_net.loopback_dev);
	off = !idev || READ_ONCE(idev->cnf.disable_ipv6);
	if (idev)
		in6_dev_put(idev);
	if (off)
		kunit_skip(test, "IPv6 is off on lo: the early path leaves IPv6 to the stack");
	kmg_in_service(test, AF_INET6, &kmg_vip6);
	/* an address in the VIP's filter bucket that is not a VIP */
	for (i = 1; i; i++) {
		other.s6_addr32[3] = kmg_vip6.s6_addr32[3] ^ htonl(i);
		if (kmg_vipf_hash6(&other) == kmg_vipf_hash6(&kmg_vip6))
			break;
	}
	KUNIT_ASSERT_NE(test, i, 0U);
	rcu_read_lock();
	maybe = kmg_vip_maybe(kn, kmg_vipf_hash6(&other));
	rcu_read_unlock();
	KUNIT_ASSERT_TRUE(test, maybe);
	ip6.saddr.s6_addr32[0] = htonl(0x20010db8);
	ip6.saddr.s6_addr[15] = 2;
	n0 = kmg_in_malformed(kn);

	ip6.daddr = other;
	KUNIT_EXPECT_EQ(test, kmg_in_run6(test, &ip6), NF_ACCEPT);
	ip6.version = 6;
	ip6.payload_len = htons(9);
	KUNIT_EXPECT_EQ(test, kmg_in_run6(test, &ip6), NF_ACCEPT);
	KUNIT_EXPECT_EQ(test, kmg_in_malformed(kn), n0);

	ip6.daddr = kmg_vip6;
	KUNIT_EXPECT_EQ(test, kmg_in_run6(test, &ip6), NF_STOLEN);
	ip6.version = 2;
	ip6.payload_len = htons(8);
	KUNIT_EXPECT_EQ(test, kmg_in_run6(test, &ip6), NF_STOLEN);
	KUNIT_EXPECT_EQ(test, kmg_in_malformed(kn), n0 + 2);
}

/*
 * The same bit flipped in two words of an address, or two words swapped, leaves the XOR of
 * the words as it was: fuzz_packets.sh's byte flips made 2001:db8:f::2:0:10 of
 * 2001:db8:f::12 that way, in the VIP's bucket when the filter hashed the XOR. Every bit in
 * every pair of words, and each pair of neighbouring words swapped, must move the bucket.
 */
static void kmg_test_vipf_hash6_order(struct kunit *test)
{
	struct in6_addr b;
	u32 h = kmg_vipf_hash6(&kmg_vip6);
	int w, v, bit;

	for (w = 0; w < 4; w++)
		for (v = w + 1; v < 4; v++)
			for (bit = 0; bit < 32; bit++) {
				b = kmg_vip6;
				b.s6_addr32[w] ^= htonl(1U << bit);
				b.s6_addr32[v] ^= htonl(1U << bit);
				KUNIT_EXPECT_NE_MSG(test, kmg_vipf_hash6(&b), h,
						    "bit %d flipped in words %d and %d", bit, w, v);
			}
	for (w = 0; w < 3; w++) {
		b = kmg_vip6;
		swap(b.s6_addr32[w], b.s6_addr32[w + 1]);
		if (!ipv6_addr_equal(&b, &kmg_vip6))
			KUNIT_EXPECT_NE_MSG(test, kmg_vipf_hash6(&b), h, "words %d and %d swapped",
					    w, w + 1);
	}
}

static struct kunit_case kmg_ingress_cases[] = {
	KUNIT_CASE(kmg_test_vipf_hash6_order),
	KUNIT_CASE(kmg_test_bad4_filter_only),
	KUNIT_CASE(kmg_test_bad6_filter_only),
	{}
};

static struct kunit_suite kmg_ingress_suite = {
	.name = "kmaglev_ingress",
	.init = kmg_kunit_netns_init,
	.exit = kmg_kunit_netns_exit,
	.test_cases = kmg_ingress_cases,
};

kunit_test_suites(&kmg_ingress_suite);
