// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the Maglev table builder, kmod/maglev.c (as the CLI builds it), within
 * the module's limits: prime table sizes from KMAGLEV_TABLE_SIZE_MIN up, weights up to
 * KMAGLEV_WEIGHT_MAX, at most one backend per slot.
 *
 * Input: a flags byte, 2 bytes for the table size, 16 for the seed, then 5 bytes a backend:
 * address (2 bytes: 10.0.x.y IPv4-mapped, or 2001:db8::x:y), weight (2 bytes), state.
 * Flags: bits 0-1 the size range (and bit 4 for the large sizes, 65521 to 131071), bit 2
 * "raw" (the records go to the builder as they are, unsorted, duplicated, weight 0 and all),
 * bit 3 equal weights.
 *
 * Without "raw" the backend set is the module's (service.c): sorted by address, one backend
 * per address, and only those up with a non-zero weight get slots; drained and down
 * backends, and weight 0, get none. Checks, as maglev.h and kmod/tests/maglev_kunit.c state:
 * - invalid input (unsorted, duplicate, weight 0, more backends than slots) is -EINVAL;
 * - every slot holds a valid backend index (all KMG_SLOT_EMPTY without backends);
 * - backend i has exactly its largest-remainder quota: floor(M * w_i / W), one more for the
 *   largest fractional parts, ties to the lower address (so floor or ceil of its share);
 * - the table is the one the plain algorithm builds: turns in virtual time (k + 1) / w_i,
 *   ties to the lower index, each backend taking the next free slot of its permutation
 *   (no heap, no tail phase); with equal weights, the paper's pseudocode (maglev_ref.c);
 *   both when size * n is at most PLAIN_WORK, as they are slow;
 * - a weight-0 backend handed to the builder among the others is refused (-EINVAL);
 * - building again, over other garbage in the table and scratch memory, gives the same table
 *   and digest.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kmaglev.h>

#include "maglev.h"
#include "maglev_ref.h"

#define check(x) do { if (!(x)) __builtin_trap(); } while (0)

#define REC_LEN		5
#define MAX_N		4096		/* keep an input's build quick */
#define PLAIN_WORK	(1u << 20)	/* the plain algorithm, when size * n is at most this */

struct rec {
	struct kmg_mg_in in;
	u8 state;			/* 0, 1: up; 2: drained; 3: down */
};

static u32 next_prime(u32 v)
{
	while (!kmg_is_prime(v))
		v++;
	return v;
}

static int rec_cmp(const void *a, const void *b)
{
	return kmg_mg_addr_cmp(((const struct rec *)a)->in.addr, ((const struct rec *)b)->in.addr);
}

static void *xmalloc(size_t n, int fill)
{
	void *p = malloc(n ? n : 1);

	check(p);
	memset(p, fill, n);
	return p;
}

/* Backend i's slots: the largest-remainder quotas, computed here independently. */
static u64 q_wsum, q_size;
static const struct kmg_mg_in *q_in;

/* larger fraction (numerators over the same W) first, then lower index */
static int frac_cmp(const void *a, const void *b)
{
	u32 i = *(const u32 *)a, j = *(const u32 *)b;
	u64 fi = q_size * q_in[i].weight % q_wsum, fj = q_size * q_in[j].weight % q_wsum;

	if (fi != fj)
		return fi > fj ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void quotas(const struct kmg_mg_in *in, u32 n, u32 size, u32 *q)
{
	u32 *order = xmalloc(n * sizeof(u32), 0);
	u64 wsum = 0, assigned = 0;
	u32 i, rem;

	for (i = 0; i < n; i++)
		wsum += in[i].weight;
	for (i = 0; i < n; i++) {
		q[i] = (u64)size * in[i].weight / wsum;
		assigned += q[i];
		order[i] = i;
	}
	rem = size - assigned;
	check(rem < n);
	q_wsum = wsum;
	q_size = size;
	q_in = in;
	qsort(order, n, sizeof(u32), frac_cmp);
	for (i = 0; i < rem; i++)
		q[order[i]]++;
	free(order);
}

/* The plain algorithm: turn by turn, permutation by permutation, one modulo per probe. */
static void plain_build(u16 *t, u32 size, const struct kmg_mg_in *in, u32 n,
			const u8 seed[KMG_SEED_LEN], const u32 *q)
{
	u32 *off = xmalloc(n * sizeof(u32), 0), *skip = xmalloc(n * sizeof(u32), 0);
	u32 *next = xmalloc(n * sizeof(u32), 0), *taken = xmalloc(n * sizeof(u32), 0);
	u32 i, filled;

	for (i = 0; i < n; i++)
		kmg_maglev_perm(in[i].addr, seed, size, &off[i], &skip[i]);
	for (i = 0; i < size; i++)
		t[i] = KMG_SLOT_EMPTY;
	for (filled = 0; filled < size; filled++) {
		u32 b = n, c;

		for (i = 0; i < n; i++) {
			if (taken[i] == q[i])
				continue;
			/* (taken_i + 1) / w_i < (taken_b + 1) / w_b, ties to the lower index */
			if (b == n || (u64)(taken[i] + 1) * in[b].weight <
				      (u64)(taken[b] + 1) * in[i].weight)
				b = i;
		}
		check(b < n);
		do
			c = (off[b] + (u64)next[b]++ * skip[b]) % size;
		while (t[c] != KMG_SLOT_EMPTY);
		t[c] = b;
		taken[b]++;
	}
	free(off);
	free(skip);
	free(next);
	free(taken);
}

static int build(u16 *slots, u32 size, const struct kmg_mg_in *in, u32 n, const u8 *seed,
		 int fill)
{
	void *scratch = xmalloc(kmg_maglev_scratch_size(size, n), fill);
	int r;

	memset(slots, fill, (size_t)size * sizeof(*slots));
	r = kmg_maglev_build(slots, size, in, n, seed, scratch);
	free(scratch);
	return r;
}

static bool valid(const struct kmg_mg_in *in, u32 n, u32 size)
{
	u32 i;

	if (n > size)
		return false;
	for (i = 0; i < n; i++)
		if (!in[i].weight || (i && kmg_mg_addr_cmp(in[i - 1].addr, in[i].addr) >= 0))
			return false;
	return true;
}

static void check_table(u32 size, const struct kmg_mg_in *in, u32 n, const u8 *seed)
{
	u16 *a = xmalloc((size_t)size * 2, 0), *b = xmalloc((size_t)size * 2, 0);
	u32 *q = xmalloc((n + 1) * sizeof(u32), 0), *cnt = xmalloc((n + 1) * sizeof(u32), 0);
	bool equal = true;
	u32 i;

	check(build(a, size, in, n, seed, 0x5a) == 0);
	if (!n) {
		for (i = 0; i < size; i++)
			check(a[i] == KMG_SLOT_EMPTY);
		goto out;
	}
	for (i = 0; i < size; i++) {
		check(a[i] < n);
		cnt[a[i]]++;
	}
	quotas(in, n, size, q);
	for (i = 0; i < n; i++) {
		check(cnt[i] == q[i]);
		equal &= in[i].weight == in[0].weight;
	}

	/* the same again, over other garbage */
	check(build(b, size, in, n, seed, 0xa5) == 0);
	check(!memcmp(a, b, (size_t)size * 2));
	check(kmg_maglev_digest(a, size, in, n) == kmg_maglev_digest(b, size, in, n));

	if ((u64)size * n <= PLAIN_WORK) {
		plain_build(b, size, in, n, seed, q);
		check(!memcmp(a, b, (size_t)size * 2));
	}
	if (equal && (u64)size * n <= PLAIN_WORK) {
		s32 *ref = xmalloc((size_t)size * sizeof(s32), 0);
		void *rs = xmalloc(kmg_maglev_ref_scratch_size(n), 0);

		check(kmg_maglev_ref_build(ref, size, in, n, seed, rs) == 0);
		for (i = 0; i < size; i++)
			check(ref[i] == a[i]);
		free(ref);
		free(rs);
	}
out:
	free(a);
	free(b);
	free(q);
	free(cnt);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t len)
{
	static const u32 big[] = { 65521, 65537, 131071, KMAGLEV_TABLE_SIZE_DEFAULT };
	struct kmg_mg_in *in;
	struct rec *recs;
	u32 size, n, i, ne, v;
	u8 flags, seed[KMG_SEED_LEN];

	if (len < 3 + KMG_SEED_LEN)
		return -1;
	flags = data[0];
	v = data[1] << 8 | data[2];
	switch (flags & 3) {
	case 0:
		size = next_prime(KMAGLEV_TABLE_SIZE_MIN + v % 1024);
		break;
	case 1:
		size = next_prime(KMAGLEV_TABLE_SIZE_MIN + v % 16384);
		break;
	case 2:		/* 4x slower: only with flag bit 4 too */
		size = flags & 16 ? big[v % 4] : next_prime(KMAGLEV_TABLE_SIZE_MIN + v % 16384);
		break;
	default:
		size = KMAGLEV_TABLE_SIZE_MIN;
	}
	check(kmg_is_prime(size));
	check(size >= KMAGLEV_TABLE_SIZE_MIN && size <= KMAGLEV_TABLE_SIZE_MAX);
	memcpy(seed, data + 3, KMG_SEED_LEN);
	data += 3 + KMG_SEED_LEN;
	len -= 3 + KMG_SEED_LEN;

	n = len / REC_LEN;
	if (n > MAX_N)
		n = MAX_N;
	recs = xmalloc((n + 1) * sizeof(*recs), 0);
	in = xmalloc((n + 1) * sizeof(*in), 0);
	for (i = 0; i < n; i++, data += REC_LEN) {
		struct rec *r = &recs[i];

		if (data[4] & 0x80) {	/* 2001:db8::x:y */
			r->in.addr[0] = 0x20;
			r->in.addr[1] = 0x01;
			r->in.addr[2] = 0x0d;
			r->in.addr[3] = 0xb8;
		} else {		/* ::ffff:10.0.x.y */
			r->in.addr[10] = 0xff;
			r->in.addr[11] = 0xff;
			r->in.addr[12] = 10;
		}
		r->in.addr[14] = data[0];
		r->in.addr[15] = data[1];
		r->in.weight = (data[2] << 8 | data[3]) % (KMAGLEV_WEIGHT_MAX + 1);
		r->state = data[4] & 3;
	}
	if (flags & 8)		/* equal weights: all the first record's, 0 included */
		for (i = 1; i < n; i++)
			recs[i].in.weight = recs[0].in.weight;

	if (flags & 4) {
		/* as they come: the builder must refuse whatever is not a valid set */
		u16 *slots = xmalloc((size_t)size * 2, 0);

		for (i = 0; i < n; i++)
			in[i] = recs[i].in;
		if (valid(in, n, size))
			check_table(size, in, n, seed);
		else
			check(build(slots, size, in, n, seed, 0x5a) == -EINVAL);
		free(slots);
		goto out;
	}

	/* the module's set: by address, one backend per address, up and weighted only */
	qsort(recs, n, sizeof(*recs), rec_cmp);
	for (i = 0, ne = 0; i < n; i++) {
		if (i && !rec_cmp(&recs[i - 1], &recs[i]))
			continue;
		if (recs[i].state >= 2 || !recs[i].in.weight)
			continue;	/* drained, down or weight 0: no slots */
		in[ne++] = recs[i].in;
	}
	if (ne > size) {
		/* service.c refuses it; so does the builder */
		u16 *slots = xmalloc((size_t)size * 2, 0);

		check(build(slots, size, in, ne, seed, 0) == -EINVAL);
		free(slots);
		goto out;
	}
	check(valid(in, ne, size));
	check_table(size, in, ne, seed);
	/* handing the builder a weight-0 backend is refused: only positive weights get slots */
	for (i = 0; i < n; i++) {
		if (!recs[i].in.weight && ne && ne < size) {
			struct kmg_mg_in *z = xmalloc((ne + 1) * sizeof(*z), 0);
			u16 *slots = xmalloc((size_t)size * 2, 0);
			u32 k = 0, j;

			for (j = 0; j < ne && kmg_mg_addr_cmp(in[j].addr, recs[i].in.addr) < 0; j++)
				z[k++] = in[j];
			z[k++] = recs[i].in;
			for (; j < ne; j++)
				z[k++] = in[j];
			check(build(slots, size, z, k, seed, 0) == -EINVAL);
			free(z);
			free(slots);
			break;
		}
	}
out:
	free(recs);
	free(in);
	return 0;
}
