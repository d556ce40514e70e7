// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace half of `make bench-table`: times kmod/maglev.c (the same file the module and the
 * CLI use) against the paper's pseudocode (kmod/maglev_ref.c), best of several runs, and
 * prints the ratio and the table's bytes per slot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maglev.h"
#include "maglev_ref.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void bench(unsigned int size, unsigned int n, int reps)
{
	static const u8 seed[KMG_SEED_LEN];
	struct kmg_mg_in *in = calloc(n, sizeof(*in));
	u16 *slots = malloc(size * sizeof(*slots));
	s32 *entry = malloc(size * sizeof(*entry));
	void *scratch = malloc(kmg_maglev_scratch_size(size, n));
	void *ref_scratch = malloc(kmg_maglev_ref_scratch_size(n));
	double best_fast = 1e18, best_ref = 1e18, t;
	unsigned int i, same = 0;
	int r;

	if (!in || !slots || !entry || !scratch || !ref_scratch) {
		fprintf(stderr, "table_bench: out of memory\n");
		exit(1);
	}
	kmg_maglev_ref_backends(in, n, NULL);
	for (r = 0; r < reps; r++) {
		t = now_us();
		if (kmg_maglev_build(slots, size, in, n, seed, scratch))
			exit(1);
		t = now_us() - t;
		best_fast = t < best_fast ? t : best_fast;
		t = now_us();
		if (kmg_maglev_ref_build(entry, size, in, n, seed, ref_scratch))
			exit(1);
		t = now_us() - t;
		best_ref = t < best_ref ? t : best_ref;
	}
	for (i = 0; i < size; i++)
		same += slots[i] == entry[i];
	printf("user   M=%u N=%u kmaglev_us=%.0f textbook_us=%.0f ratio=%.3f bytes_per_slot=%zu identical_slots=%u/%u\n",
	       size, n, best_fast, best_ref, best_fast / best_ref, sizeof(*slots), same, size);
	free(ref_scratch);
	free(scratch);
	free(entry);
	free(slots);
	free(in);
}

int main(void)
{
	bench(65537, 1000, 30);
	bench(655373, 1000, 8);
	return 0;
}
