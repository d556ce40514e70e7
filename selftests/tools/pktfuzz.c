// SPDX-License-Identifier: GPL-2.0
/*
 * pktfuzz: malformed and adversarial packets to a load balancer's VIPs, sent as Ethernet
 * frames through an AF_PACKET socket (selftests/net/fuzz_packets.sh runs it in the router's
 * namespace, on the link to the LB, to the MAC address of the LB's device: PACKET_HOST there).
 *
 * Every packet is a function of (--seed, class, batch number): a run is reproduced by the same
 * command line, and --skip/--hex print the packets of a run as hex without sending them.
 * The classes (--classes, default all of them; --count packets in all, shared out evenly):
 *
 *   trunc   every template packet (below) cut at every byte of its Ethernet payload, the IP
 *           lengths left as they were (a length lie) or made to fit the cut
 *   len     IPv4 IHL and total length, IPv6 payload length, UDP length and TCP data offset lies,
 *           in the outer or an inner header, with the IPv4 checksum right or wrong, and
 *           Ethernet trailers past the IP length
 *   ext6    long IPv6 extension-header chains (up to ~170 headers): hop-by-hop anywhere,
 *           destination options with odd TLVs, routing, fragment, AH, mobility, HIP, shim6,
 *           experimental; lengths past the packet; any upper layer or none
 *   frag4   IPv4 fragments: tiny (8 bytes, the transport header split), overlapping,
 *   frag6   duplicated, first or last missing, past 64 KiB, not a multiple of 8, empty; IPv6
 *           also atomic fragments, fragment headers after other extension headers, nested
 *           fragment headers, first fragments without the whole header chain; idents shared
 *           between datagrams so their queues collide
 *   icmp4   ICMP / ICMPv6 errors (and informational types) to a VIP quoting the VIP's packet,
 *   icmp6   a spoofed source, another family, a bad IHL, a fragment, cut at any byte, and
 *           errors about errors about errors (nested up to 4 deep)
 *   tunnel  GRE (every flag and version), IPIP, 6in4, 4in6 and ip6ip6 to a VIP; VIP-in-VIP
 *           nested; and encapsulation loops: tunnels to the LB's own address (--lb4/--lb6)
 *           whose inner packet is to the LB again, nested up to 6 deep, then to a VIP
 *   ttl     valid VIP traffic with TTL / hop limit 0, 1 (and a few 2)
 *   flip    valid VIP packets with 1-8 random bytes or bits flipped (half of them with the
 *           IPv4 header checksum made right again)
 *
 * The template packets (trunc, len, ttl and flip start from them): TCP, UDP, ICMP echo to a VIP
 * in both families, IPv4 with options, ICMP errors quoting VIP flows (and an error about an
 * error), IPv6 with hop-by-hop, destination and routing headers, an atomic fragment, GRE, IPIP,
 * 6in4, 4in6 and ip6ip6 to a VIP, and tunnels to the LB with a VIP packet inside.
 *
 * Output: "class NAME PACKETS" for each class, then "total PACKETS errors ERRORS seconds S
 * rate PPS". Exit status 0 when every packet was sent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ETH_LEN		14
#define PAY_MAX		1500		/* the link's MTU */
#define BUF_MAX		16384		/* building room; packets are cut to PAY_MAX */
#define NLAYER		64
#define BATCH_MAX	64		/* frames per generator call */
#define MMSG		64

/* ---- randomness: splitmix64, seeded per (seed, class, batch) ----------------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* [0, n) */
static uint32_t rn(struct rng *r, uint32_t n)
{
	return n ? rnd(r) % n : 0;
}

/* [a, b] */
static int rr(struct rng *r, int a, int b)
{
	return a + (int)rn(r, b - a + 1);
}

static bool pct(struct rng *r, int p)
{
	return (int)rn(r, 100) < p;
}

/* ---- configuration ----------------------------------------------------------------------- */

#define NVIP 8

static struct {
	uint8_t vip4[NVIP][4];
	int nvip4;
	uint8_t vip6[NVIP][16];
	int nvip6;
	uint8_t src4[4];
	uint8_t src6[16];
	uint8_t lb4[4];
	uint8_t lb6[16];
	uint8_t be4[4];
	uint8_t be6[16];
	uint16_t tcp_port;
	uint16_t udp_port;
} C;

static const uint8_t *vip4(struct rng *r)
{
	return C.vip4[rn(r, C.nvip4)];
}

static const uint8_t *vip6(struct rng *r)
{
	return C.vip6[rn(r, C.nvip6)];
}

/* a client address: the base with the last byte(s) random (100-199 for IPv4) */
static void client4(struct rng *r, uint8_t *a)
{
	memcpy(a, C.src4, 4);
	a[3] = 100 + rn(r, 100);
}

static void client6(struct rng *r, uint8_t *a)
{
	memcpy(a, C.src6, 16);
	a[13] = 1;
	a[14] = rn(r, 256);
	a[15] = rn(r, 256);
}

static void rand4(struct rng *r, uint8_t *a)
{
	uint32_t v = rnd(r);

	memcpy(a, &v, 4);
}

static void rand6(struct rng *r, uint8_t *a)
{
	uint64_t v[2] = { rnd(r), rnd(r) };

	memcpy(a, v, 16);
	a[0] = 0x20;		/* global unicast, not multicast */
}

/* a VIP port: the services' mostly, sometimes another one */
static uint16_t vport(struct rng *r, int proto)
{
	if (pct(r, 10))
		return rn(r, 65536);
	return proto == 6 ? C.tcp_port : C.udp_port;
}

static uint16_t cport(struct rng *r)
{
	return 1024 + rn(r, 64512);
}

/* ---- packet building --------------------------------------------------------------------- */

enum { L_IP4, L_IP6, L_TCP, L_UDP, L_ICMP4, L_ICMP6 };

struct layer {
	uint8_t t;
	bool quoted;		/* inside an ICMP error: its lengths are claimed, not fitted */
	uint16_t off;
	uint16_t hlen;
	uint16_t claim;		/* quoted: the length its IP header says */
};

struct pb {
	uint8_t b[BUF_MAX];
	int n;
	uint16_t eth;		/* the frame's ethertype */
	struct layer l[NLAYER];
	int nl;
	bool quoted;
};

struct frame {
	uint16_t eth;
	int len;		/* Ethernet payload */
	uint8_t b[PAY_MAX];
};

static void pb_init(struct pb *p, uint16_t eth)
{
	p->n = 0;
	p->nl = 0;
	p->quoted = false;
	p->eth = eth;
}

static uint8_t *pb_put(struct pb *p, int len)
{
	uint8_t *h = p->b + p->n;

	if (p->n + len > BUF_MAX - 64)
		len = BUF_MAX - 64 - p->n;
	if (len < 0)
		len = 0;
	memset(h, 0, len);
	p->n += len;
	return h;
}

static void pb_rand(struct pb *p, struct rng *r, int len)
{
	uint8_t *h = pb_put(p, len);
	int i;

	for (i = 0; i < len && h + i < p->b + p->n; i++)
		h[i] = rnd(r);
}

static void addl(struct pb *p, int t, int off, int hlen, int claim)
{
	if (p->nl < NLAYER)
		p->l[p->nl++] = (struct layer){ t, p->quoted, off, hlen, claim };
}

static void put16(uint8_t *h, uint16_t v)
{
	h[0] = v >> 8;
	h[1] = v;
}

static void put32(uint8_t *h, uint32_t v)
{
	put16(h, v >> 16);
	put16(h + 2, v);
}

/* IPv4 header with @optlen bytes of options (NOPs, a multiple of 4, at most 40) */
static void put_ip4(struct pb *p, struct rng *r, const uint8_t *src, const uint8_t *dst,
		    uint8_t proto, uint8_t ttl, int optlen, int claim)
{
	int off = p->n, hl = 20 + optlen;
	uint8_t *h = pb_put(p, hl);

	h[0] = 0x40 | (hl / 4);
	h[1] = pct(r, 80) ? 0 : rn(r, 256);
	put16(h + 4, rn(r, 65536));
	put16(h + 6, pct(r, 50) ? 0x4000 : 0);	/* DF */
	h[8] = ttl;
	h[9] = proto;
	memcpy(h + 12, src, 4);
	memcpy(h + 16, dst, 4);
	memset(h + 20, 1, optlen);
	addl(p, L_IP4, off, hl, claim);
}

static void put_ip6(struct pb *p, struct rng *r, const uint8_t *src, const uint8_t *dst,
		    uint8_t nh, uint8_t hlim, int claim)
{
	int off = p->n;
	uint8_t *h = pb_put(p, 40);
	uint32_t fl = pct(r, 50) ? rn(r, 1 << 20) : 0;

	put32(h, 6u << 28 | fl);
	h[6] = nh;
	h[7] = hlim;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
	addl(p, L_IP6, off, 40, claim);
}

static void put_tcp(struct pb *p, struct rng *r, uint16_t sport, uint16_t dport, int paylen)
{
	static const uint8_t flags[] = { 0x02, 0x10, 0x18, 0x11, 0x04, 0x12, 0x14 };
	int off = p->n, optlen = pct(r, 30) ? 4 * rr(r, 1, 10) : 0;
	uint8_t *h = pb_put(p, 20 + optlen);

	put16(h, sport);
	put16(h + 2, dport);
	put32(h + 4, rnd(r));
	put32(h + 8, rnd(r));
	h[12] = (20 + optlen) / 4 << 4;
	h[13] = pct(r, 90) ? flags[rn(r, sizeof(flags))] : rn(r, 256);
	put16(h + 14, 65535);
	if (optlen) {
		memset(h + 20, 1, optlen);	/* NOPs, an MSS first */
		h[20] = 2;
		h[21] = 4;
		put16(h + 22, 1460);
	}
	addl(p, L_TCP, off, 20 + optlen, 0);
	pb_rand(p, r, paylen);
}

static void put_udp(struct pb *p, struct rng *r, uint16_t sport, uint16_t dport, int paylen)
{
	int off = p->n;
	uint8_t *h = pb_put(p, 8);

	put16(h, sport);
	put16(h + 2, dport);
	addl(p, L_UDP, off, 8, 0);
	pb_rand(p, r, paylen);
}

static void put_icmp(struct pb *p, int v6, uint8_t type, uint8_t code, uint32_t rest)
{
	int off = p->n;
	uint8_t *h = pb_put(p, 8);

	h[0] = type;
	h[1] = code;
	put32(h + 4, rest);
	addl(p, v6 ? L_ICMP6 : L_ICMP4, off, 8, 0);
}

/* GRE header with the fields its flags say (C: checksum, K: key, S: sequence) */
static void put_gre(struct pb *p, uint16_t flags, uint16_t proto, struct rng *r)
{
	int len = 4 + (flags & 0x8000 ? 4 : 0) + (flags & 0x2000 ? 4 : 0) +
		  (flags & 0x1000 ? 4 : 0) + (flags & 0x4000 && !(flags & 0x8000) ? 4 : 0);
	uint8_t *h = pb_put(p, len);
	int i;

	put16(h, flags);
	put16(h + 2, proto);
	for (i = 4; i < len; i++)
		h[i] = rnd(r);
	if (flags & 0x8000)
		put16(h + 4, 0);	/* a checksum of 0: wrong unless the sum is 0 */
}

/* An IPv6 extension header of (@len8 + 1) * 8 bytes (AH: its own length unit) */
static void put_ext6(struct pb *p, struct rng *r, uint8_t type, uint8_t nh, int len8)
{
	int len = (len8 + 1) * 8, i = 2;
	uint8_t *h;

	if (type == 44)
		len = 8;
	h = pb_put(p, len);
	if (h + len > p->b + p->n)
		len = p->b + p->n - h;
	if (len < 2)
		return;
	h[0] = nh;
	h[1] = type == 51 ? (len / 4 - 2) : (type == 44 ? 0 : len8);
	switch (type) {
	case 0:
	case 60:
		/* options: PadN mostly, odd ones sometimes (jumbo, router alert, unknown) */
		while (i < len) {
			int left = len - i, n;

			if (left == 1 || pct(r, 10)) {
				h[i++] = 0;	/* Pad1 */
				continue;
			}
			n = left - 2;
			if (pct(r, 30) && left >= 6) {
				static const uint8_t odd[] = { 0xc2, 0x05, 0x04, 0x07, 0x3e, 0x63,
							       0x8b, 0xc9, 0x1e, 0xff };
				n = rr(r, 0, left - 2);
				h[i] = odd[rn(r, sizeof(odd))];
				h[i + 1] = pct(r, 90) ? n : (int)rn(r, 256);
				if (h[i] == 0xc2 && n >= 4)
					put32(h + i + 2, rnd(r));
			} else {
				h[i] = 1;	/* PadN */
				h[i + 1] = n;
			}
			i += 2 + n;
		}
		break;
	case 43:
		h[2] = pct(r, 70) ? (uint8_t[]){ 0, 2, 3, 4 }[rn(r, 4)] : rn(r, 256);
		h[3] = pct(r, 70) ? 0 : rn(r, 256);
		for (i = 8; i < len; i++)
			h[i] = rnd(r);
		break;
	case 44:
		put16(h + 2, pct(r, 60) ? 0 : rn(r, 65536));
		put32(h + 4, rnd(r));
		break;
	default:
		for (i = 2; i < len; i++)
			h[i] = rnd(r);
		if (type == 51)
			h[1] = len / 4 - 2;
		break;
	}
}

static uint32_t sum16(uint32_t s, const uint8_t *d, int n)
{
	int i;

	for (i = 0; i + 1 < n; i += 2)
		s += d[i] << 8 | d[i + 1];
	if (n & 1)
		s += d[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

static void ip4_csum(uint8_t *h, int hl)
{
	put16(h + 10, 0);
	put16(h + 10, fold(sum16(0, h, hl)));
}

/* The transport checksum of layer @i over @len bytes, with its IP layer's pseudo-header. */
static void l4_csum(struct pb *p, int i, int len, int at)
{
	uint8_t *h = p->b + p->l[i].off;
	uint32_t s = 0;
	int j;

	for (j = i - 1; j >= 0; j--)
		if (p->l[j].t == L_IP4 || p->l[j].t == L_IP6)
			break;
	if (j < 0)
		return;
	if (p->l[j].t == L_IP4) {
		if (p->l[i].t == L_ICMP4)
			goto nopseudo;
		s = sum16(s, p->b + p->l[j].off + 12, 8);
	} else {
		s = sum16(s, p->b + p->l[j].off + 8, 32);
	}
	s += len;
	s += p->l[i].t == L_TCP ? 6 : p->l[i].t == L_UDP ? 17 : 58;
nopseudo:
	put16(h + at, 0);
	s = fold(sum16(s, h, len));
	if (!s && p->l[i].t == L_UDP)
		s = 0xffff;
	put16(h + at, s);
}

/* Fit lengths and checksums to a packet of @end bytes, innermost layer first. */
static void pb_fix(struct pb *p, int end)
{
	int i;

	for (i = p->nl - 1; i >= 0; i--) {
		struct layer *l = &p->l[i];
		uint8_t *h = p->b + l->off;
		int len = end - l->off;

		if (l->off + l->hlen > end)
			continue;
		switch (l->t) {
		case L_IP4:
			put16(h + 2, l->quoted && l->claim ? l->claim : len);
			ip4_csum(h, l->hlen);
			break;
		case L_IP6:
			put16(h + 4, (l->quoted && l->claim ? l->claim : len) - 40);
			break;
		case L_UDP:
			if (l->quoted)
				break;
			put16(h + 4, len);
			l4_csum(p, i, len, 6);
			break;
		case L_TCP:
			if (!l->quoted)
				l4_csum(p, i, len, 16);
			break;
		case L_ICMP4:
		case L_ICMP6:
			if (!l->quoted)
				l4_csum(p, i, len, 2);
			break;
		}
	}
}

static void pb_done(struct pb *p)
{
	if (p->n > PAY_MAX)
		p->n = PAY_MAX;
	pb_fix(p, p->n);
}

/* The outermost IP layer (the first one) */
static struct layer *outer(struct pb *p)
{
	return p->nl ? &p->l[0] : NULL;
}

/* ---- the template packets ---------------------------------------------------------------- */

static void tcp_or_udp(struct pb *p, struct rng *r, int proto, int paylen)
{
	if (proto == 6)
		put_tcp(p, r, cport(r), vport(r, 6), paylen);
	else
		put_udp(p, r, cport(r), vport(r, 17), paylen);
}

/* A VIP packet inside a tunnel (the inner packet), @v6 for an IPv6 one */
static void inner_vip(struct pb *p, struct rng *r, int v6, uint8_t ttl)
{
	uint8_t s[16];
	int proto = pct(r, 50) ? 6 : 17;

	if (v6) {
		client6(r, s);
		put_ip6(p, r, s, vip6(r), proto, ttl, 0);
	} else {
		client4(r, s);
		put_ip4(p, r, s, vip4(r), proto, ttl, 0, 0);
	}
	tcp_or_udp(p, r, proto, rr(r, 0, 8));
}

/* The packet a VIP sent to a client (proto 6 or 17), quoted by an ICMP error, whole */
static void quoted4(struct pb *p, struct rng *r, const uint8_t *vip, const uint8_t *cl,
		    int proto)
{
	bool q = p->quoted;

	p->quoted = true;
	put_ip4(p, r, vip, cl, proto, 64, 0, 1500);
	if (proto == 6)
		put_tcp(p, r, vport(r, 6), cport(r), 0);
	else
		put_udp(p, r, vport(r, 17), cport(r), 0);
	p->quoted = q;
}

static void quoted6(struct pb *p, struct rng *r, const uint8_t *vip, const uint8_t *cl,
		    int proto)
{
	bool q = p->quoted;

	p->quoted = true;
	put_ip6(p, r, vip, cl, proto, 64, 1500);
	if (proto == 6)
		put_tcp(p, r, vport(r, 6), cport(r), 0);
	else
		put_udp(p, r, vport(r, 17), cport(r), 0);
	p->quoted = q;
}

#define NTEMPLATE 24

/* Template @t: a valid packet of its kind (lengths and checksums fitted), TTL @ttl. */
static void template(struct pb *p, struct rng *r, int t, uint8_t ttl)
{
	uint8_t s[16], v[16];
	int v6 = t >= 12 && t != 23;

	pb_init(p, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6) {
		client6(r, s);
		memcpy(v, vip6(r), 16);
	} else {
		client4(r, s);
		memcpy(v, vip4(r), 4);
	}
	switch (t) {
	case 0:			/* TCP */
	case 1:			/* UDP */
		put_ip4(p, r, s, v, t ? 17 : 6, ttl, 0, 0);
		tcp_or_udp(p, r, t ? 17 : 6, 4);
		break;
	case 2:			/* echo request */
		put_ip4(p, r, s, v, 1, ttl, 0, 0);
		put_icmp(p, 0, 8, 0, rnd(r));
		pb_rand(p, r, 8);
		break;
	case 3:			/* fragmentation needed about a VIP -> client TCP segment */
		put_ip4(p, r, s, v, 1, ttl, 0, 0);
		put_icmp(p, 0, 3, 4, 1280);
		quoted4(p, r, v, s, 6);
		break;
	case 4:			/* time exceeded about a UDP datagram */
		put_ip4(p, r, s, v, 1, ttl, 0, 0);
		put_icmp(p, 0, 11, 0, 0);
		quoted4(p, r, v, s, 17);
		break;
	case 5:			/* IPv4 options */
		put_ip4(p, r, s, v, 6, ttl, 12, 0);
		put_tcp(p, r, cport(r), vport(r, 6), 0);
		break;
	case 6:			/* GRE to a VIP */
		put_ip4(p, r, s, v, 47, ttl, 0, 0);
		put_gre(p, 0, ETH_P_IP, r);
		inner_vip(p, r, 0, 64);
		break;
	case 7:			/* IPIP to a VIP */
		put_ip4(p, r, s, v, 4, ttl, 0, 0);
		inner_vip(p, r, 0, 64);
		break;
	case 8:			/* IPIP to the LB, a VIP packet inside */
		put_ip4(p, r, s, C.lb4, 4, ttl, 0, 0);
		inner_vip(p, r, 0, 64);
		break;
	case 9:			/* 6in4 to a VIP */
		put_ip4(p, r, s, v, 41, ttl, 0, 0);
		inner_vip(p, r, 1, 64);
		break;
	case 10:		/* an error about an error about a VIP flow */
		put_ip4(p, r, s, v, 1, ttl, 0, 0);
		put_icmp(p, 0, 3, 1, 0);
		p->quoted = true;
		put_ip4(p, r, v, s, 1, 64, 0, 576);
		put_icmp(p, 0, 3, 3, 0);
		put_ip4(p, r, s, v, 17, 64, 0, 100);
		put_udp(p, r, cport(r), vport(r, 17), 0);
		p->quoted = false;
		break;
	case 11:		/* GRE to a VIP, an IPv6 packet inside */
		put_ip4(p, r, s, v, 47, ttl, 0, 0);
		put_gre(p, 0, ETH_P_IPV6, r);
		inner_vip(p, r, 1, 64);
		break;
	case 12:		/* TCP */
	case 13:		/* UDP */
		put_ip6(p, r, s, v, t == 12 ? 6 : 17, ttl, 0);
		tcp_or_udp(p, r, t == 12 ? 6 : 17, 4);
		break;
	case 14:		/* echo request */
		put_ip6(p, r, s, v, 58, ttl, 0);
		put_icmp(p, 1, 128, 0, rnd(r));
		pb_rand(p, r, 8);
		break;
	case 15:		/* packet too big about a VIP -> client TCP segment */
		put_ip6(p, r, s, v, 58, ttl, 0);
		put_icmp(p, 1, 2, 0, 1280);
		quoted6(p, r, v, s, 6);
		break;
	case 16:		/* destination unreachable quoting a packet with dstopts */
		put_ip6(p, r, s, v, 58, ttl, 0);
		put_icmp(p, 1, 1, 4, 0);
		p->quoted = true;
		put_ip6(p, r, v, s, 60, 64, 1000);
		put_ext6(p, r, 60, 17, 0);
		put_udp(p, r, vport(r, 17), cport(r), 0);
		p->quoted = false;
		break;
	case 17:		/* hop-by-hop, destination options, routing, TCP */
		put_ip6(p, r, s, v, 0, ttl, 0);
		put_ext6(p, r, 0, 60, 0);
		put_ext6(p, r, 60, 43, 1);
		put_ext6(p, r, 43, 6, 0);
		put_tcp(p, r, cport(r), vport(r, 6), 0);
		break;
	case 18:		/* destination options, an atomic fragment, UDP */
		put_ip6(p, r, s, v, 60, ttl, 0);
		put_ext6(p, r, 60, 44, 0);
		put_ext6(p, r, 44, 17, 0);
		put16(p->b + p->n - 6, 0);	/* offset 0, M 0 */
		put_udp(p, r, cport(r), vport(r, 17), 4);
		break;
	case 19:		/* GRE to a VIP */
		put_ip6(p, r, s, v, 47, ttl, 0);
		put_gre(p, 0, ETH_P_IPV6, r);
		inner_vip(p, r, 1, 64);
		break;
	case 20:		/* ip6ip6 to a VIP */
		put_ip6(p, r, s, v, 41, ttl, 0);
		inner_vip(p, r, 1, 64);
		break;
	case 21:		/* 4in6 to a VIP */
		put_ip6(p, r, s, v, 4, ttl, 0);
		inner_vip(p, r, 0, 64);
		break;
	case 22:		/* ip6ip6 to the LB, a VIP packet inside */
		put_ip6(p, r, s, C.lb6, 41, ttl, 0);
		inner_vip(p, r, 1, 64);
		break;
	case 23:		/* GRE to the LB, a VIP packet inside */
		put_ip4(p, r, s, C.lb4, 47, ttl, 0, 0);
		put_gre(p, 0, ETH_P_IP, r);
		inner_vip(p, r, 0, 64);
		break;
	}
	pb_done(p);
}

/* The Ethernet payload of @p into frame @f. */
static void emit(struct frame *f, const struct pb *p, int len)
{
	if (len > PAY_MAX)
		len = PAY_MAX;
	if (len < 0)
		len = 0;
	f->eth = p->eth;
	f->len = len;
	memcpy(f->b, p->b, len);
}

/* ---- the classes ------------------------------------------------------------------------- */

static struct pb PB;

/* trunc: template t = batch % NTEMPLATE, cut at byte k of its (fixed-shape) payload */
static int gen_trunc(struct rng *r, uint64_t batch, struct frame *f)
{
	struct pb *p = &PB;
	int t = batch % NTEMPLATE, fit = batch / NTEMPLATE % 2, cut, i;
	uint64_t k = batch / NTEMPLATE / 2;

	template(p, r, t, 64);
	cut = k % (p->n + 1);
	if (fit) {
		/* the IP lengths fitted to the cut: the stack keeps it, the parser must cope */
		for (i = 0; i < p->nl; i++)
			p->l[i].quoted = p->l[i].t != L_IP4 && p->l[i].t != L_IP6 ? true :
					 p->l[i].quoted;
		pb_fix(p, cut);
	}
	emit(f, p, cut);
	return 1;
}

/* len: length lies in the outer or an inner header */
static int gen_len(struct rng *r, uint64_t batch, struct frame *f)
{
	struct pb *p = &PB;
	struct layer *l;
	uint8_t *h;
	int len, i, n, extra = 0;

	(void)batch;
	template(p, r, rn(r, NTEMPLATE), 64);
	l = outer(p);
	if (pct(r, 25) && p->nl > 1)
		l = &p->l[rr(r, 1, p->nl - 1)];
	h = p->b + l->off;
	len = p->n - l->off;
	if (l->t == L_IP4) {
		int hl = (h[0] & 15) * 4;
		uint16_t lies[] = { 0, 1, 19, 20, hl - 1, hl, len - 1, len + 1, len + 100, 65535,
				    rn(r, 65536) };

		if (pct(r, 40))
			h[0] = 0x40 | rn(r, 16);
		if (pct(r, 70))
			put16(h + 2, lies[rn(r, sizeof(lies) / 2)]);
		if (pct(r, 80))
			ip4_csum(h, hl <= len ? hl : 20);
	} else if (l->t == L_IP6) {
		int plen = len - 40;
		uint16_t lies[] = { 0, 1, 7, 8, plen - 1, plen + 1, plen + 40, 65535,
				    rn(r, 65536) };

		put16(h + 4, lies[rn(r, sizeof(lies) / 2)]);
	} else if (l->t == L_UDP) {
		uint16_t lies[] = { 0, 1, 7, 8, len - 1, len + 1, 65535 };

		put16(h + 4, lies[rn(r, sizeof(lies) / 2)]);
	} else if (l->t == L_TCP) {
		h[12] = rn(r, 16) << 4;
	} else {
		/* an ICMP header: its type, so that an error becomes informational and back */
		h[0] = rn(r, 256);
	}
	/* a trailer past the IP length, which the stack trims */
	if (pct(r, 25))
		extra = rr(r, 1, 64);
	n = p->n;
	for (i = 0; i < extra && n + i < PAY_MAX; i++)
		p->b[n + i] = rnd(r);
	emit(f, p, n + extra);
	return 1;
}

static const uint8_t ext6_types[] = { 0, 60, 43, 44, 51, 135, 139, 140, 253, 254 };

/*
 * An extension-header chain of @nhdr headers then upper layer @up (its number), at most
 * @room bytes of headers; returns the next-header value for the header before it.
 */
static uint8_t ext6_chain(struct pb *p, struct rng *r, int nhdr, uint8_t up, int room)
{
	uint8_t types[200];
	int len8[200], i, used = 0;

	if (nhdr > 200)
		nhdr = 200;
	for (i = 0; i < nhdr; i++) {
		types[i] = ext6_types[rn(r, sizeof(ext6_types))];
		len8[i] = pct(r, 60) ? 0 : pct(r, 75) ? rr(r, 1, 4) : rr(r, 5, 255);
		if (types[i] == 44)
			len8[i] = 0;
		if (used + (len8[i] + 1) * 8 > room) {
			nhdr = i;
			break;
		}
		used += (len8[i] + 1) * 8;
	}
	for (i = 0; i < nhdr; i++)
		put_ext6(p, r, types[i], i + 1 < nhdr ? types[i + 1] : up, len8[i]);
	return nhdr ? types[0] : up;
}

/* ext6: long extension-header chains to a VIP */
static int gen_ext6(struct rng *r, uint64_t batch, struct frame *f)
{
	static const uint8_t ups[] = { 6, 17, 58, 59, 50, 6, 17 };
	struct pb *p = &PB;
	uint8_t s[16], up = pct(r, 90) ? ups[rn(r, sizeof(ups))] : rn(r, 256);
	int nhdr = pct(r, 50) ? rr(r, 1, 8) : pct(r, 60) ? rr(r, 9, 40) : rr(r, 41, 180);
	int hdrs, cut;

	(void)batch;
	pb_init(p, ETH_P_IPV6);
	client6(r, s);
	put_ip6(p, r, s, vip6(r), 0, 64, 0);
	hdrs = p->n;
	p->b[6] = ext6_chain(p, r, nhdr, up, pct(r, 80) ? 1400 : 1600);
	if (up == 6 || up == 17)
		tcp_or_udp(p, r, up, rr(r, 0, 8));
	else if (up == 58)
		put_icmp(p, 1, pct(r, 50) ? 128 : rr(r, 1, 4), 0, 0);
	else
		pb_rand(p, r, rr(r, 0, 16));
	pb_done(p);
	cut = p->n;
	/* the chain or the upper layer cut short, with the payload length fitted */
	if (pct(r, 25) && p->n > hdrs) {
		cut = rr(r, hdrs, p->n);
		put16(p->b + 4, cut - 40);
	}
	emit(f, p, cut);
	return 1;
}

/* The transport part of a datagram to fragment (lengths and checksums fitted), in @t. */
static int frag_payload(struct rng *r, int v6, const uint8_t *s, const uint8_t *d, uint8_t *t,
			uint8_t *proto)
{
	struct pb *p = &PB;
	int kind = rn(r, 4), paylen, hl;

	paylen = pct(r, 40) ? rr(r, 0, 16) : pct(r, 70) ? rr(r, 16, 300) : rr(r, 300, 3000);
	pb_init(p, 0);
	*proto = kind == 0 ? 6 : kind == 1 ? 17 : v6 ? 58 : 1;
	if (v6)
		put_ip6(p, r, s, d, *proto, 64, 0);
	else
		put_ip4(p, r, s, d, *proto, 64, 0, 0);
	hl = p->n;
	if (kind <= 1) {
		tcp_or_udp(p, r, *proto, paylen);
	} else if (kind == 2) {
		put_icmp(p, v6, v6 ? 128 : 8, 0, rnd(r));
		pb_rand(p, r, paylen);
	} else {
		put_icmp(p, v6, v6 ? 2 : 3, v6 ? 0 : 4, 1280);
		if (v6)
			quoted6(p, r, d, s, pct(r, 50) ? 6 : 17);
		else
			quoted4(p, r, d, s, pct(r, 50) ? 6 : 17);
		pb_rand(p, r, paylen);
	}
	if (p->n > 4000)
		p->n = 4000;
	pb_fix(p, p->n);
	memcpy(t, p->b + hl, p->n - hl);
	return p->n - hl;
}

struct fragspec {
	int off;		/* bytes, into the fragmentable part */
	int len;
	bool mf;
};

/*
 * How a datagram of @len bytes is cut: fragments in @fs, each a pathology of its own or
 * none. Returns the number of fragments.
 */
static int frag_plan(struct rng *r, int len, struct fragspec *fs, int max)
{
	int kind = rn(r, 11), n = 0, off = 0, sz, i;

	sz = kind == 1 ? 8 : 8 * rr(r, 1, 40);
	/* the plain cut, in sz-byte pieces */
	while (off < len && n < max) {
		int l = len - off < sz ? len - off : sz;

		fs[n++] = (struct fragspec){ off, l, off + l < len };
		off += l;
	}
	if (!n)
		fs[n++] = (struct fragspec){ 0, 0, false };
	switch (kind) {
	case 2:			/* overlap: a fragment starts before its predecessor ends */
		for (i = 1; i < n; i++)
			if (pct(r, 50))
				fs[i].off -= 8 * rr(r, 1, 2), fs[i].len += 8;
		break;
	case 3:			/* a duplicate */
		if (n < max) {
			i = rn(r, n);
			fs[n++] = fs[i];
		}
		break;
	case 4:			/* the first one missing */
		if (n > 1)
			memmove(fs, fs + 1, --n * sizeof(*fs));
		else
			fs[0].off += 8;
		break;
	case 5:			/* the last one missing, or MF on every one */
		if (n > 1 && pct(r, 50))
			n--;
		else
			fs[n - 1].mf = true;
		break;
	case 6:			/* past 64 KiB */
		fs[n - 1].off += 65528 - 8 * rr(r, 0, 4);
		break;
	case 7:			/* a non-final fragment not a multiple of 8 */
		fs[0].len -= rr(r, 1, 7);
		if (fs[0].len < 0)
			fs[0].len = 1;
		fs[0].mf = true;
		break;
	case 8:			/* empty fragments */
		for (i = 0; i < n; i++)
			if (pct(r, 30))
				fs[i].len = 0;
		break;
	case 9:			/* reversed, the last one overlapping the end */
		for (i = 0; i < n / 2; i++) {
			struct fragspec t = fs[i];

			fs[i] = fs[n - 1 - i];
			fs[n - 1 - i] = t;
		}
		if (n > 1)
			fs[0].len += 8;
		break;
	case 10:		/* shuffled */
		for (i = n - 1; i > 0; i--) {
			int j = rn(r, i + 1);
			struct fragspec t = fs[i];

			fs[i] = fs[j];
			fs[j] = t;
		}
		break;
	}
	for (i = 0; i < n; i++) {
		if (fs[i].off < 0)
			fs[i].off = 0;
		if (fs[i].len > 1400)
			fs[i].len = 1400;
	}
	return n;
}

static uint8_t fragbuf[8192];

/* frag4: the fragments of one datagram to a VIP */
static int gen_frag4(struct rng *r, uint64_t batch, struct frame *f)
{
	struct fragspec fs[BATCH_MAX];
	uint8_t s[4], proto;
	const uint8_t *d = vip4(r);
	uint16_t id = pct(r, 50) ? rn(r, 65536) : 0x4242 + rn(r, 2);
	int len, n, i;

	(void)batch;
	client4(r, s);
	if (pct(r, 50))
		s[3] = 100;		/* one source, so that queues collide */
	len = frag_payload(r, 0, s, d, fragbuf, &proto);
	n = frag_plan(r, len, fs, BATCH_MAX);
	for (i = 0; i < n; i++) {
		struct pb *p = &PB;
		int l = fs[i].len;

		pb_init(p, ETH_P_IP);
		put_ip4(p, r, s, d, proto, 64, pct(r, 10) ? 4 : 0, 0);
		put16(p->b + 4, id);
		put16(p->b + 6, (fs[i].mf ? 0x2000 : 0) | ((fs[i].off / 8) & 0x1fff));
		if (fs[i].off + l > len)
			l = len > fs[i].off ? len - fs[i].off : 0;
		memcpy(pb_put(p, l), fragbuf + (fs[i].off < len ? fs[i].off : 0), l);
		if (fs[i].len > l)
			pb_rand(p, r, fs[i].len - l);
		pb_done(p);
		emit(&f[i], p, p->n);
	}
	return n;
}

/* frag6: the fragments of one datagram to a VIP, the fragment header after others or not */
static int gen_frag6(struct rng *r, uint64_t batch, struct frame *f)
{
	struct fragspec fs[BATCH_MAX];
	uint8_t s[16], proto;
	const uint8_t *d = vip6(r);
	uint32_t id = pct(r, 50) ? (uint32_t)rnd(r) : 0x4242 + rn(r, 2);
	int len, n, i, kind = rn(r, 6), pre;

	(void)batch;
	client6(r, s);
	if (pct(r, 50))
		s[14] = s[15] = 1;
	len = frag_payload(r, 1, s, d, fragbuf, &proto);
	n = frag_plan(r, len, fs, BATCH_MAX);
	if (kind == 1) {	/* an atomic fragment */
		n = 1;
		fs[0] = (struct fragspec){ 0, len > 1400 ? 1400 : len, false };
	}
	pre = kind == 2 ? rr(r, 1, 4) : 0;
	for (i = 0; i < n; i++) {
		struct pb *p = &PB;
		int l = fs[i].len, j;
		uint8_t *fh;

		pb_init(p, ETH_P_IPV6);
		put_ip6(p, r, s, d, pre ? 60 : 44, 64, 0);
		for (j = 0; j < pre; j++)	/* destination options before the fragment header */
			put_ext6(p, r, 60, j + 1 < pre ? 60 : 44, 0);
		fh = pb_put(p, 8);
		/* kind 3: a nested fragment header; 4: the first fragment ends in a dstopts */
		fh[0] = kind == 3 ? 44 : kind == 4 && fs[i].off == 0 ? 60 : proto;
		put16(fh + 2, (fs[i].off & ~7) | (fs[i].mf ? 1 : 0));
		put32(fh + 4, id);
		if (kind == 3) {
			fh = pb_put(p, 8);
			fh[0] = proto;
			put16(fh + 2, (fs[i].off & ~7) | 1);
			put32(fh + 4, id + 1);
		}
		if (kind == 4 && fs[i].off == 0) {
			/* a dstopts header claiming more than the fragment holds */
			fh = pb_put(p, 8);
			fh[0] = proto;
			fh[1] = 32;
			fh[2] = 1;
			fh[3] = 4;
		}
		if (fs[i].off + l > len)
			l = len > fs[i].off ? len - fs[i].off : 0;
		memcpy(pb_put(p, l), fragbuf + (fs[i].off < len ? fs[i].off : 0), l);
		if (fs[i].len > l)
			pb_rand(p, r, fs[i].len - l);
		pb_done(p);
		emit(&f[i], p, p->n);
	}
	return n;
}

/* An ICMP(v6) error type (with a code), or any other type */
static void icmp_type(struct rng *r, int v6, uint8_t *type, uint8_t *code)
{
	static const uint8_t err4[] = { 3, 3, 3, 11, 12, 4 };
	static const uint8_t info4[] = { 0, 5, 8, 13, 14, 15, 16, 17, 18, 9, 10 };
	static const uint8_t info6[] = { 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 143 };

	if (pct(r, 75)) {
		*type = v6 ? rr(r, 1, 4) : err4[rn(r, sizeof(err4))];
		*code = rn(r, 16);
		if (pct(r, 5))
			*type = v6 ? rn(r, 128) : rn(r, 256);
	} else {
		*type = v6 ? info6[rn(r, sizeof(info6))] : info4[rn(r, sizeof(info4))];
		*code = pct(r, 80) ? 0 : rn(r, 256);
	}
}

/*
 * The packet an error quotes, from @src (the VIP, or a spoofed address) to @dst, nested
 * errors inside it up to @depth, in family @v6 (which may differ from the error's own).
 */
static void quote_any(struct pb *p, struct rng *r, int v6, const uint8_t *src,
		      const uint8_t *dst, int depth)
{
	static const uint8_t protos[] = { 6, 17, 1, 58, 47, 4, 41, 132, 0 };
	uint8_t proto = protos[rn(r, sizeof(protos))], type, code;
	int claim = pct(r, 50) ? 1500 : rr(r, 0, 65535);

	if (depth > 0 && pct(r, 60))
		proto = v6 ? 58 : 1;
	if (v6) {
		uint8_t nh = proto;

		put_ip6(p, r, src, dst, proto, rr(r, 1, 255), claim);
		if (pct(r, 20)) {
			int at = p->n - 34;

			nh = ext6_chain(p, r, rr(r, 1, 6), proto, 200);
			p->b[at] = nh;
		}
	} else {
		put_ip4(p, r, src, dst, proto, rr(r, 1, 255), pct(r, 10) ? 4 * rr(r, 1, 10) : 0,
			claim);
		if (pct(r, 10))		/* a fragment */
			put16(p->b + p->l[p->nl - 1].off + 6, rn(r, 65536) & 0x3fff);
		if (pct(r, 10))		/* a bad IHL */
			p->b[p->l[p->nl - 1].off] = 0x40 | rn(r, 16);
		if (pct(r, 5))		/* a bad version */
			p->b[p->l[p->nl - 1].off] ^= 0x60;
	}
	if (proto == 6) {
		put_tcp(p, r, vport(r, 6), cport(r), 0);
	} else if (proto == 17) {
		put_udp(p, r, vport(r, 17), cport(r), 0);
	} else if (proto == 1 || proto == 58) {
		int iv6 = depth > 0 && pct(r, 20) ? !v6 : v6;

		icmp_type(r, proto == 58, &type, &code);
		put_icmp(p, proto == 58, type, code, 0);
		if (depth > 0)		/* the quoted error quotes the client's packet, reversed */
			quote_any(p, r, iv6, dst, src, depth - 1);
	} else {
		pb_rand(p, r, rr(r, 0, 16));
	}
}

static int gen_icmp(struct rng *r, int v6, struct frame *f)
{
	struct pb *p = &PB;
	uint8_t s[16], v[16], qs[16], qd[16], type, code;
	int depth = pct(r, 70) ? 0 : rr(r, 1, 3), cut;

	pb_init(p, v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (v6) {
		client6(r, s);
		memcpy(v, vip6(r), 16);
		put_ip6(p, r, s, v, 58, 64, 0);
	} else {
		client4(r, s);
		memcpy(v, vip4(r), 4);
		put_ip4(p, r, s, v, 1, 64, 0, 0);
	}
	icmp_type(r, v6, &type, &code);
	put_icmp(p, v6, type, code, type == 2 || type == 3 ? rr(r, 0, 2000) : 0);
	/* the quoted source: the VIP mostly, else spoofed; a quoted packet of the other family */
	int qv6 = pct(r, 90) ? v6 : !v6;

	p->quoted = true;
	if (qv6) {
		memcpy(qs, v6 == qv6 ? v : vip6(r), 16);
		if (pct(r, 20))
			rand6(r, qs);
		if (pct(r, 70))
			memcpy(qd, s, 16);
		else
			rand6(r, qd);
		if (v6 != qv6)
			client6(r, qd);
	} else {
		memcpy(qs, v6 == qv6 ? v : vip4(r), 4);
		if (pct(r, 20))
			rand4(r, qs);
		if (pct(r, 70) && !v6)
			memcpy(qd, s, 4);
		else
			client4(r, qd);
	}
	quote_any(p, r, qv6, qs, qd, depth);
	p->quoted = false;
	pb_done(p);
	/* the quote cut anywhere: the ICMP checksum made right for what is left */
	cut = p->n;
	if (pct(r, 40)) {
		int i;

		cut = rr(r, p->l[1].off, p->n);
		for (i = 2; i < p->nl; i++)
			p->l[i].quoted = true;
		pb_fix(p, cut);
	}
	emit(f, p, cut);
	return 1;
}

static int gen_icmp4(struct rng *r, uint64_t batch, struct frame *f)
{
	(void)batch;
	return gen_icmp(r, 0, f);
}

static int gen_icmp6(struct rng *r, uint64_t batch, struct frame *f)
{
	(void)batch;
	return gen_icmp(r, 1, f);
}

/* One tunnel header to @dst: IPIP/4in6/6in4/ip6ip6 or GRE, carrying a packet of family @iv6 */
static void tunnel_hdr(struct pb *p, struct rng *r, int v6, const uint8_t *dst, int iv6,
		       uint8_t ttl)
{
	uint8_t s[16];
	bool gre = pct(r, 40);

	if (v6) {
		client6(r, s);
		put_ip6(p, r, s, dst, gre ? 47 : iv6 ? 41 : 4, ttl, 0);
	} else {
		client4(r, s);
		put_ip4(p, r, s, dst, gre ? 47 : iv6 ? 41 : 4, ttl, 0, 0);
	}
	if (gre) {
		static const uint16_t fl[] = { 0, 0, 0x8000, 0x2000, 0x1000, 0xb000, 0x4000,
					       0x0001, 0x2001, 0x0080 };
		static const uint16_t pr[] = { ETH_P_IP, ETH_P_IPV6, 0x6558, 0x880b, 0 };
		uint16_t flags = pct(r, 60) ? 0 : fl[rn(r, sizeof(fl) / 2)];
		uint16_t proto = pct(r, 85) ? (iv6 ? ETH_P_IPV6 : ETH_P_IP) :
				 pr[rn(r, sizeof(pr) / 2)];

		if (pct(r, 3))
			flags = rn(r, 65536);
		put_gre(p, flags, proto, r);
	}
}

/* tunnel: tunnels to a VIP, VIP-in-VIP, and loops through the LB's own address */
static int gen_tunnel(struct rng *r, uint64_t batch, struct frame *f)
{
	struct pb *p = &PB;
	int kind = rn(r, 3), depth = kind == 0 ? 1 : rr(r, 1, kind == 1 ? 4 : 6), i;
	int v6 = pct(r, 50), iv6;

	(void)batch;
	pb_init(p, v6 ? ETH_P_IPV6 : ETH_P_IP);
	for (i = 0; i < depth; i++) {
		iv6 = pct(r, 50);
		if (kind == 2) {	/* to the LB, decapsulated there, and again */
			tunnel_hdr(p, r, v6, v6 ? C.lb6 : C.lb4, iv6, rr(r, 1, 64));
		} else {		/* to a VIP */
			const uint8_t *d = v6 ? vip6(r) : vip4(r);

			if (pct(r, 10))
				d = v6 ? C.be6 : C.be4;
			tunnel_hdr(p, r, v6, d, iv6, rr(r, 1, 64));
		}
		v6 = iv6;
	}
	if (pct(r, 80)) {
		inner_vip(p, r, v6, rr(r, 0, 64));
	} else {		/* an echo request or an error about a VIP flow */
		uint8_t s[16], d[16];

		if (v6) {
			client6(r, s);
			memcpy(d, vip6(r), 16);
			put_ip6(p, r, s, d, 58, 64, 0);
			put_icmp(p, 1, pct(r, 50) ? 128 : 2, 0, 1280);
			quoted6(p, r, d, s, 6);
		} else {
			client4(r, s);
			memcpy(d, vip4(r), 4);
			put_ip4(p, r, s, d, 1, 64, 0, 0);
			put_icmp(p, 0, pct(r, 50) ? 8 : 3, 4, 1280);
			quoted4(p, r, d, s, 17);
		}
	}
	pb_done(p);
	emit(f, p, p->n);
	return 1;
}

/* ttl: valid VIP traffic with TTL / hop limit 0 and 1 (a few 2) */
static int gen_ttl(struct rng *r, uint64_t batch, struct frame *f)
{
	static const int ts[] = { 0, 1, 12, 13, 3, 15, 14, 2, 17, 7, 20, 6, 19 };
	uint8_t ttl = pct(r, 90) ? rn(r, 2) : 2;

	(void)batch;
	template(&PB, r, ts[rn(r, sizeof(ts) / sizeof(ts[0]))], ttl);
	emit(f, &PB, PB.n);
	return 1;
}

/* flip: valid VIP packets with a few bytes or bits flipped */
static int gen_flip(struct rng *r, uint64_t batch, struct frame *f)
{
	struct pb *p = &PB;
	int n, i;

	(void)batch;
	template(p, r, rn(r, NTEMPLATE), 64);
	n = rr(r, 1, 8);
	for (i = 0; i < n; i++) {
		int at = pct(r, 75) ? rn(r, p->n < 80 ? p->n : 80) : rn(r, p->n);

		if (pct(r, 50))
			p->b[at] ^= 1 << rn(r, 8);
		else
			p->b[at] ^= rr(r, 1, 255);
	}
	if (p->eth == ETH_P_IP && pct(r, 50) && p->n >= 20) {
		int hl = (p->b[0] & 15) * 4;

		if (hl >= 20 && hl <= p->n)
			ip4_csum(p->b, hl);
	}
	emit(f, p, p->n);
	return 1;
}

static const struct {
	const char *name;
	int (*gen)(struct rng *r, uint64_t batch, struct frame *f);
} classes[] = {
	{ "trunc", gen_trunc },
	{ "len", gen_len },
	{ "ext6", gen_ext6 },
	{ "frag4", gen_frag4 },
	{ "frag6", gen_frag6 },
	{ "icmp4", gen_icmp4 },
	{ "icmp6", gen_icmp6 },
	{ "tunnel", gen_tunnel },
	{ "ttl", gen_ttl },
	{ "flip", gen_flip },
};

#define NCLASS (int)(sizeof(classes) / sizeof(classes[0]))

/* ---- sending ----------------------------------------------------------------------------- */

static int sock = -1;
static struct sockaddr_ll sll;
static uint8_t src_mac[6], dst_mac[6];
static uint8_t mbuf[MMSG][ETH_LEN + PAY_MAX];
static struct iovec miov[MMSG];
static struct mmsghdr mmsg[MMSG];
static int nmsg;
static unsigned long errors;
static int hex;

static void flush(void)
{
	int i = 0, rc;

	while (i < nmsg) {
		rc = sendmmsg(sock, mmsg + i, nmsg - i, 0);
		if (rc < 0) {
			if (errors++ < 10)
				fprintf(stderr, "pktfuzz: send (%u bytes): %s\n",
					(unsigned int)miov[i].iov_len, strerror(errno));
			i++;
			continue;
		}
		i += rc;
	}
	nmsg = 0;
}

static void send_frame(const struct frame *f, const char *cls, unsigned long n)
{
	uint8_t *b = mbuf[nmsg];
	int i;

	memcpy(b, dst_mac, 6);
	memcpy(b + 6, src_mac, 6);
	b[12] = f->eth >> 8;
	b[13] = f->eth;
	memcpy(b + ETH_LEN, f->b, f->len);
	if (hex) {
		printf("%s %lu ", cls, n);
		for (i = 0; i < ETH_LEN + f->len; i++)
			printf("%02x", b[i]);
		printf("\n");
		return;
	}
	miov[nmsg].iov_base = b;
	miov[nmsg].iov_len = ETH_LEN + f->len;
	memset(&mmsg[nmsg], 0, sizeof(mmsg[nmsg]));
	mmsg[nmsg].msg_hdr.msg_name = &sll;
	mmsg[nmsg].msg_hdr.msg_namelen = sizeof(sll);
	mmsg[nmsg].msg_hdr.msg_iov = &miov[nmsg];
	mmsg[nmsg].msg_hdr.msg_iovlen = 1;
	if (++nmsg == MMSG)
		flush();
}

/* ---- options ----------------------------------------------------------------------------- */

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "pktfuzz: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static void parse_mac(const char *s, uint8_t *m)
{
	if (sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2], &m[3], &m[4],
		   &m[5]) != 6)
		die("bad MAC address %s", s);
}

static void parse_addr(int af, const char *s, uint8_t *a)
{
	if (inet_pton(af, s, a) != 1)
		die("bad address %s", s);
}

/* a comma-separated list of addresses */
static int parse_addrs(int af, const char *s, uint8_t (*a)[16], int max)
{
	char *dup = strdup(s), *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("too many addresses in %s", s);
		parse_addr(af, w, a[n++]);
	}
	free(dup);
	return n;
}

static void usage(void)
{
	int i;

	fprintf(stderr,
		"usage: pktfuzz --dev IF --dst-mac MAC --vip4 A[,A...] --vip6 A[,A...] --lb4 A --lb6 A\n"
		"               --be4 A --be6 A [--src4 A] [--src6 A] [--tcp-port P] [--udp-port P]\n"
		"               [--src-mac MAC] [--seed N] [--count N] [--classes C[,C...]]\n"
		"               [--skip N] [--hex]\n"
		"classes:");
	for (i = 0; i < NCLASS; i++)
		fprintf(stderr, " %s", classes[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "src-mac", required_argument, NULL, 'M' },
		{ "vip4", required_argument, NULL, '4' },
		{ "vip6", required_argument, NULL, '6' },
		{ "lb4", required_argument, NULL, 'l' },
		{ "lb6", required_argument, NULL, 'L' },
		{ "be4", required_argument, NULL, 'b' },
		{ "be6", required_argument, NULL, 'B' },
		{ "src4", required_argument, NULL, 's' },
		{ "src6", required_argument, NULL, 'S' },
		{ "tcp-port", required_argument, NULL, 't' },
		{ "udp-port", required_argument, NULL, 'u' },
		{ "seed", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "classes", required_argument, NULL, 'c' },
		{ "skip", required_argument, NULL, 'k' },
		{ "hex", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct frame frames[BATCH_MAX];
	unsigned long count = 10000, skip = 0, total = 0, sent[NCLASS] = { 0 };
	uint64_t seed = 1, batch[NCLASS] = { 0 };
	bool sel[NCLASS], have_src_mac = false;
	const char *dev = NULL, *cls = NULL;
	uint8_t v4[NVIP][16];
	struct timespec t0, t1;
	double secs;
	int c, i, nsel = 0;

	C.tcp_port = 80;
	C.udp_port = 5300;
	parse_addr(AF_INET, "203.0.113.0", C.src4);
	parse_addr(AF_INET6, "2001:db8:c::", C.src6);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'm': parse_mac(optarg, dst_mac); break;
		case 'M': parse_mac(optarg, src_mac); have_src_mac = true; break;
		case '4':
			C.nvip4 = parse_addrs(AF_INET, optarg, v4, NVIP);
			for (i = 0; i < C.nvip4; i++)
				memcpy(C.vip4[i], v4[i], 4);
			break;
		case '6': C.nvip6 = parse_addrs(AF_INET6, optarg, C.vip6, NVIP); break;
		case 'l': parse_addr(AF_INET, optarg, C.lb4); break;
		case 'L': parse_addr(AF_INET6, optarg, C.lb6); break;
		case 'b': parse_addr(AF_INET, optarg, C.be4); break;
		case 'B': parse_addr(AF_INET6, optarg, C.be6); break;
		case 's': parse_addr(AF_INET, optarg, C.src4); break;
		case 'S': parse_addr(AF_INET6, optarg, C.src6); break;
		case 't': C.tcp_port = atoi(optarg); break;
		case 'u': C.udp_port = atoi(optarg); break;
		case 'r': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'c': cls = optarg; break;
		case 'k': skip = strtoul(optarg, NULL, 0); break;
		case 'x': hex = 1; break;
		default: usage();
		}
	}
	if (!C.nvip4 || !C.nvip6 || (!dev && !hex))
		usage();
	for (i = 0; i < NCLASS; i++) {
		sel[i] = !cls;
		if (cls) {
			const char *p = strstr(cls, classes[i].name);
			size_t l = strlen(classes[i].name);

			sel[i] = p && (p == cls || p[-1] == ',') && (p[l] == ',' || !p[l]);
		}
		nsel += sel[i];
	}
	if (!nsel)
		die("no known class in %s", cls);

	if (!hex) {
		struct ifreq ifr = { };

		sock = socket(AF_PACKET, SOCK_RAW, 0);
		if (sock < 0)
			die("socket: %s", strerror(errno));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
		if (ioctl(sock, SIOCGIFINDEX, &ifr))
			die("no device %s", dev);
		sll.sll_family = AF_PACKET;
		sll.sll_ifindex = ifr.ifr_ifindex;
		sll.sll_halen = 6;
		memcpy(sll.sll_addr, dst_mac, 6);
		if (!have_src_mac) {
			if (ioctl(sock, SIOCGIFHWADDR, &ifr))
				die("no MAC address on %s", dev);
			memcpy(src_mac, ifr.ifr_hwaddr.sa_data, 6);
		}
		i = 1;
		setsockopt(sock, SOL_PACKET, PACKET_QDISC_BYPASS, &i, sizeof(i));
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (total < count) {
		struct rng r;
		int best = -1, n, j;

		/* the selected class with the fewest packets so far */
		for (i = 0; i < NCLASS; i++)
			if (sel[i] && (best < 0 || sent[i] < sent[best]))
				best = i;
		r.s = seed * 0x100000001b3ULL ^ (uint64_t)best << 56 ^ batch[best]++;
		rnd(&r);
		n = classes[best].gen(&r, batch[best] - 1, frames);
		for (j = 0; j < n && total < count; j++, total++) {
			if (total >= skip)
				send_frame(&frames[j], classes[best].name, total);
			sent[best]++;
		}
	}
	if (!hex)
		flush();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < NCLASS; i++)
		if (sel[i])
			fprintf(hex ? stderr : stdout, "class %s %lu\n", classes[i].name, sent[i]);
	fprintf(hex ? stderr : stdout, "total %lu errors %lu seconds %.1f rate %.0f\n", total,
		errors, secs, secs > 0 ? total / secs : 0);
	return errors ? 1 : 0;
}
