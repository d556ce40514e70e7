/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev netfilter hooks (hook.c): the packet path's entry, and the hooks of a netns, which
 * are registered while it has services (kn->hooks, under kn->lock).
 */
#ifndef _KMAGLEV_HOOK_H
#define _KMAGLEV_HOOK_H

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

#endif /* _KMAGLEV_HOOK_H */
