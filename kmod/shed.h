/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev criticality-aware load shedding (shed.c): each new flow has a class (its DSCP
 * through the netns' dscp-map, else its service's criticality); while the netns or the
 * service is overloaded, new flows of shed-class and below are dropped. Established flows
 * (with a connection entry) never reach this.
 *
 * Locking and lifetime
 * --------------------
 * - The settings (struct kmg_shed_set) are written under kn->lock and read locklessly by the
 *   packet path: each word with WRITE_ONCE()/READ_ONCE(), the map a byte at a time (a new
 *   flow may see a map half old, half new while it changes; each byte is one whole class).
 * - The load signal is host-wide: one delayed work of the module samples the CPUs' softirq
 *   time every 100 ms while some netns has shed-load-high set, and publishes a smoothed
 *   share with WRITE_ONCE(). After each sample it moves each such netns' on/off state
 *   (load_on, with hysteresis; every flip counted) for the packet path to read. Those netns
 *   are on a list under a spinlock (process context only), which netns exit leaves before
 *   struct kmg_net goes, and under which load_high and load_low change together; the work's
 *   own start and stop are under a mutex the work never takes.
 * - The new-flow rate is counted per netns in one-second windows (atomic), while
 *   shed-new-rate is set.
 */
#ifndef _KMAGLEV_SHED_H
#define _KMAGLEV_SHED_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/list.h>
#include <linux/kmaglev.h>
#include <linux/types.h>

#include "stats.h"

struct kmg_net;
struct kmg_service;
struct netlink_ext_ack;
struct nlattr;

#define KMG_SHED_DEFAULT_CLASS	KMAGLEV_CRITICALITY_SHEDDABLE

/* The settings, as config-set takes them. */
struct kmg_shed_set {
	u8 map[KMAGLEV_DSCP_MAP_LEN];	/* 0: the service's class; else 1 + the class */
	u32 shed_class;
	u32 conn_fill;		/* percent of conn-max, 0: off */
	u32 new_rate;		/* new flows a second, 0: off */
	u32 load_high;		/* per mille, 0: off */
	u32 load_low;
};

struct kmg_shed {
	struct kmg_shed_set set;	/* under kn->lock; read locklessly */
	bool armed;			/* some netns signal is set */
	unsigned int load_on;		/* load shedding is on (hysteresis state) */
	atomic_t transitions;		/* load_on flips */
	struct list_head load_node;	/* on the load work's list while load_high is set */
	/*
	 * The new-flow rate, written by every new flow while new_rate is set: a line of its
	 * own, away from what every packet reads (the settings above, kn->stats).
	 */
	struct {
		unsigned long second;	/* the window (jiffies / HZ) */
		atomic_t count;		/* new flows in it */
		u32 prev;		/* in the window before */
	} rate ____cacheline_aligned_in_smp;
};

void kmg_shed_init(struct kmg_net *kn);
void kmg_shed_exit(struct kmg_net *kn);
void kmg_shed_module_exit(void);
int kmg_shed_check_set(const struct kmg_shed_set *set, struct nlattr **tb,
		       struct netlink_ext_ack *extack);
void kmg_shed_apply(struct kmg_net *kn, const struct kmg_shed_set *set);
u32 kmg_shed_load(void);
u32 kmg_shed_reasons(struct kmg_net *kn);
u32 kmg_shed_transitions(struct kmg_net *kn);
bool kmg_shed_over(struct kmg_net *kn, const struct kmg_service *svc, u8 dscp,
		   enum kmg_counter *why);

/* For KUnit: the new smoothed load (per mille << 8) after a sample (per mille)... */
u32 kmg_shed_smooth(u32 avg, u32 sample);
/* ... and one netns' hysteresis step at a load (per mille). */
void kmg_shed_load_eval(struct kmg_shed *sh, u32 load);

#endif /* _KMAGLEV_SHED_H */
