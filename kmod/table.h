/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev tables (table.c): a service's Maglev table as a kernel object.
 *
 * Locking and lifetime
 * --------------------
 * - A table is immutable once published; it holds a reference on every backend it points to.
 *   Services publish their tables under kn->lock and the packet path reads them under RCU
 *   (service.h).
 * - Tables are freed from a workqueue after a grace period (queue_rcu_work), in process context,
 *   because they may be vmalloc'ed and drop backend references.
 */
#ifndef _KMAGLEV_TABLE_H
#define _KMAGLEV_TABLE_H

#include <linux/siphash.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "maglev.h"

struct kmg_backend;

/* A backend with slots in a table, and the weight the table was built with. */
struct kmg_table_be {
	struct kmg_backend *be;
	u32 weight;
};

/*
 * A published Maglev table: immutable. be[] lists the backends that have slots, sorted by
 * address; slots[] holds indices into it (2 bytes per slot).
 */
struct kmg_table {
	u32 size;
	u32 gen;
	u32 nbe;
	siphash_key_t flow_key;		/* the service seed, for flow hashes */
	struct kmg_table_be *be;
	struct rcu_work free_work;
	u16 slots[];
};

/* table.c */
struct kmg_table *kmg_table_build(const struct kmg_table_be *in, u32 n, u32 size,
				  const u8 seed[KMG_SEED_LEN]);
void kmg_table_free(struct kmg_table *t);
void kmg_table_free_rcu(struct kmg_table *t);
bool kmg_table_same_input(const struct kmg_table *t, const struct kmg_table_be *in, u32 n,
			  u32 size);
size_t kmg_table_bytes(const struct kmg_table *t);
u64 kmg_table_digest(const struct kmg_table *t);
void kmg_table_slot_counts(const struct kmg_table *t, u32 *counts);

#endif /* _KMAGLEV_TABLE_H */
