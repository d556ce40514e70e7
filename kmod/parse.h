/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev packet parsing (parse.c): what the parser gives the packet path. Apart from the
 * module's other headers, so that parse.c builds on its own (userland/fuzz/fuzz_parse.c builds
 * it for userspace, over a flat buffer).
 */
#ifndef _KMAGLEV_PARSE_H
#define _KMAGLEV_PARSE_H

#include <linux/in6.h>
#include <linux/types.h>

struct sk_buff;

/* A packet to a VIP, parsed: the flow it belongs to (client -> VIP). */
union kmg_inaddr {
	__be32 v4;
	struct in6_addr v6;
};

struct kmg_pkt {
	u8 family;
	u8 proto;		/* of the flow; for ICMP errors, of the quoted packet */
	u8 tcp_flags;
	bool frag;		/* a fragment, not reassembled */
	bool echo;		/* an echo request */
	bool icmp_err;		/* an ICMP error; the flow is the quoted one, reversed */
	bool local;		/* locally generated (LOCAL_OUT), not forwarded for a client */
	bool early;		/* taken at the ingress hook (ingress.c), before ip_rcv */
	unsigned int l4off;
	union kmg_inaddr saddr;
	union kmg_inaddr daddr;
	__be16 sport;
	__be16 dport;
};

enum kmg_parse {
	KMG_PARSE_OK,
	KMG_PARSE_PASS,		/* not for us (e.g. neighbour discovery to a VIP) */
	KMG_PARSE_DROP,		/* truncated or malformed */
};

enum kmg_parse kmg_parse4(struct sk_buff *skb, struct kmg_pkt *p);
enum kmg_parse kmg_parse4_checked(struct sk_buff *skb, struct kmg_pkt *p);
enum kmg_parse kmg_parse6(struct sk_buff *skb, struct kmg_pkt *p);

#endif /* _KMAGLEV_PARSE_H */
