/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev ICMP (icmp.c): the ICMP messages the packet path sends to clients.
 */
#ifndef _KMAGLEV_ICMP_H
#define _KMAGLEV_ICMP_H

struct kmg_net;
struct kmg_pkt;
struct sk_buff;

/* icmp.c */
void kmg_icmp_too_big(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p,
		      unsigned int mtu);
void kmg_icmp_time_exceeded(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p);
void kmg_icmp_echo_reply(struct kmg_net *kn, struct sk_buff *skb, const struct kmg_pkt *p);

#endif /* _KMAGLEV_ICMP_H */
