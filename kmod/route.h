/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev route cache (route.c): each backend's route, per CPU, lent to packets without a
 * reference.
 *
 * A CPU's slot is read and written only by that CPU with bottom halves off (the packet path),
 * or by kmg_route_cache_destroy() once no packet can reach the backend; kmg_route_cache_reset()
 * may run anywhere (the rules in full are at the top of route.c).
 */
#ifndef _KMAGLEV_ROUTE_H
#define _KMAGLEV_ROUTE_H

#include <linux/compiler_types.h>
#include <linux/types.h>

struct dst_entry;
union kmg_inaddr;

/* A backend's route, cached per CPU (route.c). */
struct kmg_route;

struct kmg_route_cache {
	struct kmg_route __percpu *pcpu;
	unsigned long reset_ts;		/* jiffies; routes cached up to then are stale */
};

/* route.c */
int kmg_route_cache_init(struct kmg_route_cache *rc, gfp_t gfp);
void kmg_route_cache_destroy(struct kmg_route_cache *rc);
void kmg_route_cache_reset(struct kmg_route_cache *rc);
struct dst_entry *kmg_route_get(struct kmg_route_cache *rc, union kmg_inaddr *saddr);
void kmg_route_set(struct kmg_route_cache *rc, struct dst_entry *dst,
		   const union kmg_inaddr *saddr);

#endif /* _KMAGLEV_ROUTE_H */
