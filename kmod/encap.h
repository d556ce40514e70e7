/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev encapsulation and output (encap.c): a balanced packet sent to its backend, and the
 * packets kmaglev sends itself. kmg_in_xmit is set on a CPU, with bottom halves off, while
 * kmaglev sends a packet through ip_local_out(), so that its own LOCAL_OUT hook lets the
 * packet pass (hook.c).
 */
#ifndef _KMAGLEV_ENCAP_H
#define _KMAGLEV_ENCAP_H

#include <linux/percpu.h>
#include <linux/types.h>

struct kmg_backend;
struct kmg_net;
struct kmg_pkt;
struct kmg_service;
struct sk_buff;

/* encap.c */
DECLARE_PER_CPU(bool, kmg_in_xmit);
void kmg_local_out(struct kmg_net *kn, struct sk_buff *skb);
void kmg_xmit(struct kmg_net *kn, const struct kmg_service *svc, struct kmg_backend *be,
	      struct sk_buff *skb, const struct kmg_pkt *p);

#endif /* _KMAGLEV_ENCAP_H */
