// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the data path's packet parser, kmod/parse.c, built as it is over the
 * socket buffer model of kshim/ (kshim.h).
 *
 * Input: one control byte, then the packet from its network header on. Control bit 0: IPv6
 * (kmg_parse6) or IPv4 (kmg_parse4); bits 1-7: how many of the packet's bytes are linear
 * (0..126, or 127: all), the rest being "paged", so every pskb_may_pull() is exercised.
 *
 * Checks: the result, and every field of struct kmg_pkt for results other than a drop, are
 * those of a plain reading of the packet's bytes written here (ref4(), ref6()): addresses,
 * ports and flags come from the bytes at the offsets the headers give, every offset is within
 * the packet, an ICMP error's quoted tuple comes from within the quote; and they are the same
 * as with the whole packet linear. For IPv4 packets whose header mode ingress would pass,
 * kmg_parse4_checked() (the header not checked again) must agree with kmg_parse4(). ASan
 * sees any read outside the linear part and any use of a header pointer kept across a pull;
 * UBSan any undefined arithmetic.
 *
 * FUZZ_VERBOSE=1 prints each input's result (to see what a seed exercises).
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "parse.h"

#define check(x) do { if (!(x)) __builtin_trap(); } while (0)

#define ICMP_P		1
#define TCP_P		6
#define UDP_P		17
#define ICMP6_P		58

static unsigned int be16at(const u8 *b, unsigned int off)
{
	return b[off] << 8 | b[off + 1];
}

static __be16 raw16(const u8 *b, unsigned int off)
{
	__be16 v;

	memcpy(&v, b + off, 2);
	return v;
}

/* Ports (and TCP flags) of the TCP or UDP header at @off, or 0s for other protocols. */
static enum kmg_parse ref_ports(const u8 *b, unsigned int len, unsigned int off,
				struct kmg_pkt *p)
{
	if (p->proto == TCP_P) {
		if (off + 20 > len || b[off + 12] >> 4 < 5)
			return KMG_PARSE_DROP;
		p->tcp_flags = b[off + 13];
	} else if (p->proto == UDP_P) {
		if (off + 8 > len)
			return KMG_PARSE_DROP;
	} else {
		return KMG_PARSE_OK;
	}
	p->sport = raw16(b, off);
	p->dport = raw16(b, off + 2);
	return KMG_PARSE_OK;
}

/* The quoted packet's ports, at @off, reversed into @p (TCP and UDP only). */
static enum kmg_parse ref_quoted_ports(const u8 *b, unsigned int len, unsigned int off,
				       struct kmg_pkt *p)
{
	if (p->proto != TCP_P && p->proto != UDP_P)
		return KMG_PARSE_OK;
	if (off + 4 > len)
		return KMG_PARSE_DROP;
	p->sport = raw16(b, off + 2);
	p->dport = raw16(b, off);
	return KMG_PARSE_OK;
}

static enum kmg_parse ref4(const u8 *b, unsigned int len, struct kmg_pkt *p)
{
	unsigned int hl, off, q, qhl;

	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	if (len < 20 || b[0] >> 4 != 4)
		return KMG_PARSE_DROP;
	hl = (b[0] & 15) * 4;
	if (hl < 20 || hl > len || be16at(b, 2) < hl)
		return KMG_PARSE_DROP;
	memcpy(&p->saddr.v4, b + 12, 4);
	memcpy(&p->daddr.v4, b + 16, 4);
	p->proto = b[9];
	if (be16at(b, 6) & 0x3fff) {		/* MF or an offset */
		p->frag = true;
		return KMG_PARSE_OK;
	}
	off = hl;
	p->l4off = off;
	if (p->proto != ICMP_P)
		return ref_ports(b, len, off, p);
	if (off + 8 > len)
		return KMG_PARSE_DROP;
	switch (b[off]) {
	case 8:					/* echo request */
		p->echo = true;
		return KMG_PARSE_OK;
	case 3: case 4: case 11: case 12:	/* errors */
		break;
	default:
		return KMG_PARSE_PASS;
	}
	q = off + 8;
	if (q + 20 > len || b[q] >> 4 != 4 || (b[q] & 15) < 5 || (be16at(b, q + 6) & 0x3fff))
		return KMG_PARSE_DROP;
	if (memcmp(b + q + 12, b + 16, 4))	/* quoted source is not our destination */
		return KMG_PARSE_DROP;
	qhl = (b[q] & 15) * 4;
	p->proto = b[q + 9];
	memcpy(&p->saddr.v4, b + q + 16, 4);
	memcpy(&p->daddr.v4, b + q + 12, 4);
	p->icmp_err = true;
	return ref_quoted_ports(b, len, q + qhl, p);
}

static bool ext(u8 t)
{
	return t == 0 || t == 43 || t == 44 || t == 51 || t == 59 || t == 60;
}

static unsigned int ext_len(const u8 *b, u8 t, unsigned int at)
{
	return t == 51 ? (b[at + 1] + 2) * 4 : (b[at + 1] + 1) * 8;
}

static enum kmg_parse ref6(const u8 *b, unsigned int len, struct kmg_pkt *p)
{
	unsigned int at = 40, q, skip, fat = 0;
	bool frag = false;
	__be16 qfrag = 0;
	int l4;
	u8 t;

	memset(p, 0, sizeof(*p));
	p->family = AF_INET6;
	if (len < 40 || b[0] >> 4 != 6)
		return KMG_PARSE_DROP;
	memcpy(&p->saddr.v6, b + 8, 16);
	memcpy(&p->daddr.v6, b + 24, 16);
	/* the outer chain, as ipv6_find_hdr(): an error wins only before a fragment header */
	t = b[6];
	l4 = -1;
	for (;;) {
		if (!ext(t) || t == 59) {
			l4 = at;
			break;
		}
		if (at + 2 > len || (t == 43 && at + 4 > len))
			break;
		if (t == 44) {
			if (!frag)
				fat = at;	/* reassembly reads the first one */
			frag = true;
			if (at + 4 > len)
				break;
			if (be16at(b, at + 2) & ~7u)
				break;		/* a later fragment */
		}
		skip = t == 44 ? 8 : ext_len(b, t, at);
		if (len - at < skip)
			break;
		t = b[at];
		at += skip;
	}
	if (frag) {
		/* the first fragment header cut short: malformed */
		if (fat + 8 > len)
			return KMG_PARSE_DROP;
		/* kmg_parse6() does not look further: a fragment, whatever follows */
		memset(p, 0, sizeof(*p));
		p->family = AF_INET6;
		memcpy(&p->saddr.v6, b + 8, 16);
		memcpy(&p->daddr.v6, b + 24, 16);
		p->frag = true;
		return KMG_PARSE_OK;
	}
	if (l4 < 0)
		return KMG_PARSE_DROP;
	p->proto = t;
	p->l4off = l4;
	if (t != ICMP6_P)
		return ref_ports(b, len, l4, p);
	if ((unsigned int)l4 + 8 > len)
		return KMG_PARSE_DROP;
	if (b[l4] == 128) {
		p->echo = true;
		return KMG_PARSE_OK;
	}
	if (b[l4] >= 128)
		return KMG_PARSE_PASS;
	q = l4 + 8;
	if (q + 40 > len || b[q] >> 4 != 6 || memcmp(b + q + 8, b + 24, 16))
		return KMG_PARSE_DROP;
	memcpy(&p->saddr.v6, b + q + 24, 16);
	memcpy(&p->daddr.v6, b + q + 8, 16);
	/* the quoted chain, as ipv6_skip_exthdr(): lengths not checked, a fragment refused */
	t = b[q + 6];
	at = q + 40;
	while (ext(t)) {
		if (t == 59 || at + 2 > len)
			return KMG_PARSE_DROP;
		if (t == 44) {
			if (at + 4 > len)
				return KMG_PARSE_DROP;
			qfrag = raw16(b, at + 2);
			if (be16at(b, at + 2) & ~7u)
				return KMG_PARSE_DROP;
			skip = 8;
		} else {
			skip = ext_len(b, t, at);
		}
		t = b[at];
		at += skip;
	}
	if (qfrag)
		return KMG_PARSE_DROP;
	p->proto = t;
	p->icmp_err = true;
	return ref_quoted_ports(b, len, at, p);
}

static enum kmg_parse run(bool v6, const u8 *b, unsigned int len, unsigned int headlen,
			  struct kmg_pkt *p, unsigned int *pulls)
{
	struct sk_buff *skb = kshim_skb_new(b, len, headlen);
	enum kmg_parse r = v6 ? kmg_parse6(skb, p) : kmg_parse4(skb, p);

	check(skb->len == len && skb_headlen(skb) <= len);
	*pulls = skb->pulls;
	kshim_skb_free(skb);
	return r;
}

/*
 * Mode ingress: kmg_ingress4() checks an IPv4 header as ip_rcv_core() does, makes it linear
 * and trims the packet to its total length before kmg_rcv() calls kmg_parse4_checked(),
 * which must then give what kmg_parse4() gives for the same buffer.
 */
static void check_checked4(const u8 *b, unsigned int len, unsigned int headlen)
{
	unsigned int hlen, tot, pulls, cpulls;
	struct kmg_pkt a, c;
	struct sk_buff *skb;
	enum kmg_parse ra, rc;

	if (len < 20 || b[0] >> 4 != 4 || (b[0] & 15) < 5)
		return;
	hlen = (b[0] & 15) * 4;
	tot = be16at(b, 2);
	if (tot < hlen || tot > len)
		return;
	/* the header linear (kmg_ingress4() pulls it), the packet trimmed to its length */
	if (headlen < hlen)
		headlen = hlen;
	if (headlen > tot)
		headlen = tot;
	ra = run(false, b, tot, headlen, &a, &pulls);
	skb = kshim_skb_new(b, tot, headlen);
	memset(&c, 0x5a, sizeof(c));
	rc = kmg_parse4_checked(skb, &c);
	cpulls = skb->pulls;
	kshim_skb_free(skb);
	check(ra == rc);
	check(!memcmp(&a, &c, sizeof(a)));
	/* and no more of the packet made linear than kmg_parse4() made */
	check(cpulls <= pulls);
}

static int verbose = -1;

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct kmg_pkt p, lin, ref;
	enum kmg_parse r, rl, rr;
	unsigned int len, headlen, pulls, pl;
	const u8 *b;
	bool v6;

	if (size < 1 || size > 65536)
		return -1;
	v6 = data[0] & 1;
	headlen = data[0] >> 1;
	b = data + 1;
	len = size - 1;
	if (headlen == 127)
		headlen = len;

	r = run(v6, b, len, headlen, &p, &pulls);
	rl = run(v6, b, len, len, &lin, &pl);
	check(pl == 0);
	rr = v6 ? ref6(b, len, &ref) : ref4(b, len, &ref);
	if (!v6)
		check_checked4(b, len, headlen);

	check(r == KMG_PARSE_OK || r == KMG_PARSE_PASS || r == KMG_PARSE_DROP);
	check(p.family == (v6 ? AF_INET6 : AF_INET));
	/* linear or not, the same answer */
	check(r == rl);
	check(!memcmp(&p, &lin, sizeof(p)));
	/* and the plain reading's */
	check(r == rr);
	if (verbose < 0)
		verbose = !!getenv("FUZZ_VERBOSE");
	if (verbose)
		fprintf(stderr,
			"%s linear %u/%u pulls %u: %s proto %u l4off %u ports %u > %u%s%s%s\n",
			v6 ? "v6" : "v4", headlen, len, pulls,
			r == KMG_PARSE_OK ? "ok" : r == KMG_PARSE_PASS ? "pass" : "drop", p.proto,
			p.l4off, ntohs(p.sport), ntohs(p.dport), p.frag ? " frag" : "",
			p.echo ? " echo" : "", p.icmp_err ? " icmp-err" : "");
	if (r == KMG_PARSE_DROP)
		return 0;
	check(!memcmp(&p, &ref, sizeof(p)));
	check(p.l4off <= len);
	check(!p.frag || (!p.echo && !p.icmp_err && !p.sport && !p.dport && !p.l4off));
	if (!p.frag)
		check(p.l4off >= (v6 ? 40u : 20u));
	if (r == KMG_PARSE_OK && !p.frag && !p.echo && !p.icmp_err && p.proto == TCP_P)
		check(p.l4off + 20 <= len);
	if (p.echo || p.icmp_err)
		check(p.l4off + 8 <= len);
	return 0;
}
