/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev: what belongs to the module as a whole rather than to one of its objects: the
 * workqueue and the live-object counters that main.c sets up for every file, and the entry
 * points main.c calls into the parts that have no object of their own (the netlink family,
 * debugfs).
 *
 * Each object is declared in a header of its own, with the rules (locking, RCU, lifetime) for
 * its data: netns.h (struct kmg_net and kn->lock), service.h, backend.h, table.h, vip.h,
 * conn.h, ingress.h, route.h, stats.h; the packet path's steps in select.h, migrate.h,
 * hook.h, encap.h and icmp.h; addr.h and limit.h.
 */
#ifndef _KMAGLEV_H
#define _KMAGLEV_H

#include <linux/atomic.h>

struct kmg_service;
struct workqueue_struct;

/*
 * Live objects in all netns, for leak checks: debugfs kmaglev/objects shows them and module
 * unload warns if any is left. Connection entries are counted per CPU (kmg_conn_objects()).
 */
struct kmg_objects {
	atomic_long_t services;
	atomic_long_t backends;
	atomic_long_t tables;
};

extern struct kmg_objects kmg_objects;
/* The module's workqueue (main.c): table frees, migration ends and connection-table GC. */
extern struct workqueue_struct *kmg_wq;

/* debugfs.c */
void kmg_debugfs_init(void);
void kmg_debugfs_exit(void);

/* netlink.c */
int kmg_genl_init(void);
void kmg_genl_exit(void);

/* netlink_notify.c */
void kmg_notify_table(struct kmg_service *svc);

#endif /* _KMAGLEV_H */
