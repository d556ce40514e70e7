/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: Maglev table simulation with the kernel's own table builder (kmod/maglev.c).
 *
 * A backend set (table size, seed, backends with weight and state) is turned into the exact
 * table the kernel would build: eligible backends (state up, weight > 0) sorted by their 16-byte
 * address, as kmaglev.ko does. A change (add, delete or modify backends, resize the table)
 * gives a second set and table; comparing the two says how balanced the new table is and what
 * share of flows would map to a different backend. No I/O here.
 */
#ifndef KMAGLEV_SIMULATE_H
#define KMAGLEV_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "maglev.h"
#include "lib/util.h"

struct kmg_sim_backend {
	struct kmg_addr addr;
	uint32_t weight;
	uint32_t state;			/* enum kmaglev_backend_state */
};

struct kmg_sim_set {
	uint32_t size;			/* table size, a prime */
	uint8_t seed[KMG_SEED_LEN];
	struct kmg_sim_backend *be;	/* in the order given; duplicates refused */
	unsigned int n;
};

struct kmg_sim_table {
	uint32_t size;
	uint16_t *slots;		/* indices into in[], KMG_SLOT_EMPTY if no backend */
	struct kmg_mg_in *in;		/* eligible backends, sorted by address */
	uint32_t n;
	uint32_t *count;		/* slots of in[i] */
	uint32_t min_slots, max_slots;	/* over in[]; 0 if n == 0 */
	uint64_t wsum;			/* sum of eligible weights */
	uint64_t digest;		/* kmg_maglev_digest(), comparable with the kernel's */
};

enum kmg_sim_op {
	KMG_SIM_ADD,
	KMG_SIM_DEL,
	KMG_SIM_SET,
	KMG_SIM_TABLE_SIZE,
};

struct kmg_sim_change {
	enum kmg_sim_op op;
	struct kmg_addr addr;		/* ADD, DEL, SET */
	bool has_weight, has_state;
	uint32_t weight;		/* ADD (default 1), SET */
	uint32_t state;			/* ADD (default up), SET */
	uint32_t size;			/* TABLE_SIZE */
};

/* Share of flows that map to a different backend address after a change. */
struct kmg_sim_moved {
	uint64_t slots;			/* slots that changed backend (same table size only) */
	double fraction;
	bool estimated;			/* table size changed: slots do not correspond */
};

/* One backend address of either set, before and after. */
struct kmg_sim_row {
	struct kmg_addr addr;
	bool before_exists, after_exists;
	struct kmg_sim_backend before, after;
	uint32_t slots_before, slots_after;
	double share_before, share_after;	/* of the table */
	double expected_after;			/* weight share after; 0 if not eligible */
};

struct kmg_sim_result {
	struct kmg_sim_set before, after;
	struct kmg_sim_table tbefore, tafter;
	struct kmg_sim_row *rows;	/* sorted by address */
	unsigned int nrows;
	struct kmg_sim_moved moved;
};

/* Append a backend (no duplicate check: see kmg_sim_set_check()). */
int kmg_sim_set_add(struct kmg_sim_set *s, const struct kmg_sim_backend *b);
/* Refuse a set with an address twice (error recorded, KMG_EUSAGE). O(n log n). */
int kmg_sim_set_check(const struct kmg_sim_set *s);
void kmg_sim_set_free(struct kmg_sim_set *s);

/* Build @s's table into @t. Returns 0, or an exit status with an error recorded. */
int kmg_sim_build(const struct kmg_sim_set *s, struct kmg_sim_table *t);
void kmg_sim_table_free(struct kmg_sim_table *t);
/* Slots of @a in @t (0 if it has none). */
uint32_t kmg_sim_slots(const struct kmg_sim_table *t, const struct kmg_addr *a);

/* Apply one change to @s. Returns 0, or KMG_EUSAGE (unknown or duplicate backend). */
int kmg_sim_apply(struct kmg_sim_set *s, const struct kmg_sim_change *c);

void kmg_sim_moved(const struct kmg_sim_table *a, const struct kmg_sim_table *b,
		   struct kmg_sim_moved *m);

/* The whole simulation: @cur's table, the changes, the proposed table, the comparison. */
int kmg_sim_run(const struct kmg_sim_set *cur, const struct kmg_sim_change *ch, unsigned int n,
		struct kmg_sim_result *r);
void kmg_sim_result_free(struct kmg_sim_result *r);

#endif
