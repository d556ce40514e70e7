/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev two-table migration (migrate.c): a snapshot of a service's migration state, taken by
 * kmg_service_mig(), and the rules that decide from it which table a flow that missed the
 * connection table uses. The snapshot is taken without a lock (RCU and READ_ONCE(), for the
 * packet path under RCU or netlink under kn->lock); the rules are plain functions of it.
 */
#ifndef _KMAGLEV_MIGRATE_H
#define _KMAGLEV_MIGRATE_H

#include <linux/types.h>

struct kmg_service;

/* migrate.c: which table a packet that missed the connection table uses */
struct kmg_mig {
	bool has_prev;
	unsigned long elapsed_ms;	/* since the current table was published */
	u32 ramp_pct;
	u32 ramp_ms;
	u32 window_ms;
};

u64 kmg_mig_ramp_threshold(const struct kmg_mig *m);
bool kmg_mig_use_prev(const struct kmg_mig *m, u32 ramp_hash, bool new_flow);
u32 kmg_mig_ramp_pct(const struct kmg_mig *m);
unsigned long kmg_mig_length_ms(u32 ramp_pct, u32 ramp_ms, u32 window_ms);
void kmg_service_mig(const struct kmg_service *svc, struct kmg_mig *m);

#endif /* _KMAGLEV_MIGRATE_H */
