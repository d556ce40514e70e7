/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev limits (limits.c): the caps on what a request may ask for in a netns owned by a
 * user namespace other than the initial one. The caps are module parameters, read when a
 * request or a new netns needs them. (Not limits.h: userland compiles with kmod/ on its
 * include path, where a limits.h would hide the C library's <limits.h>.)
 */
#ifndef _KMAGLEV_LIMIT_H
#define _KMAGLEV_LIMIT_H

#include <linux/types.h>

struct kmg_net;
struct netlink_ext_ack;

/* limits.c: caps for netns owned by non-initial user namespaces */
enum kmg_limit {
	KMG_LIMIT_SERVICES,
	KMG_LIMIT_BACKENDS,
	KMG_LIMIT_CONNS,
	KMG_LIMIT_TABLE_SIZE,
	KMG_LIMIT_QUOTAS,
};

struct nlattr;
u32 kmg_limit(const struct kmg_net *kn, enum kmg_limit l);
void kmg_limits_init(struct kmg_net *kn);
int kmg_limit_check(const struct kmg_net *kn, enum kmg_limit l, u32 val,
		    const struct nlattr *attr, struct netlink_ext_ack *extack);

#endif /* _KMAGLEV_LIMIT_H */
