/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev netfilter hooks (hook.c): the packet path's entry, and the hooks of a netns, which
 * are registered while it has services (kn->hooks, under kn->lock).
 */
#ifndef _KMAGLEV_HOOK_H
#define _KMAGLEV_HOOK_H

#include <linux/bottom_half.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/types.h>

struct kmg_net;
struct sk_buff;

/* hook.c */
struct nf_hook_state;

unsigned int kmg_rcv(struct kmg_net *kn, struct sk_buff *skb, const struct nf_hook_state *state,
		     u8 family, const void *daddr, bool early);
int kmg_hooks_register(struct kmg_net *kn);
void kmg_hooks_unregister(struct kmg_net *kn);
void kmg_hooks_pre_exit(struct kmg_net *kn);

/*
 * kmg_rcv() runs with bottom halves off. On the receive path (NAPI; netif_receive_skb() from
 * a BH-disabled section, as tun's) they already are, and a nested disable/enable pair would
 * only add the enable's check for pending softirqs to every packet. Process context with
 * BHs on gets the pair: LOCAL_OUT, and PRE_ROUTING when nfnetlink_queue re-injects a packet
 * from its verdict message. On PREEMPT_RT softirq_count() is the task's own BH-disable
 * count, so migration is off whenever it is nonzero. kmg_bh_off() returns whether it
 * disabled them, for kmg_bh_restore().
 */
static inline bool kmg_bh_off(void)
{
	if (softirq_count())
		return false;
	local_bh_disable();
	return true;
}

static inline void kmg_bh_restore(bool disabled)
{
	if (disabled)
		local_bh_enable();
}

#endif /* _KMAGLEV_HOOK_H */
