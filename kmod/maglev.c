// SPDX-License-Identifier: GPL-2.0
/*
 * Maglev lookup table construction (Eisenbud et al., NSDI 2016), with exact weights.
 *
 * Each backend has a permutation of the table's slots given by an offset and a skip, taken from
 * two SipHash-2-4 values of its address under the service's 128-bit seed. Backends take turns
 * claiming their next preferred free slot until the table is full.
 *
 * Weights are exact: backend i is given a quota of floor(M * w_i / W) slots, and the remainder
 * goes one slot each to the backends with the largest fractional parts (ties to the lower
 * address), so every backend gets floor or ceil of its exact share. Turns follow virtual time
 * (k + 1) / w_i, so heavier backends claim proportionally more often and the table keeps Maglev's
 * minimal disruption. With equal weights this is plain round robin, which is the fast path.
 *
 * Compared with the paper's pseudocode this avoids a modulo per probe (the cursor advances by
 * addition with one conditional subtraction) and keeps the table itself as the occupancy map,
 * 2 bytes per slot.
 *
 * This file is compiled into kmaglev.ko, which exports it (to its KUnit and benchmark modules),
 * and into the kmaglev CLI; it allocates nothing and takes no locks, the caller provides
 * scratch memory.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/sort.h>
#include <linux/string.h>
/* A table of up to 16M slots is built under the netns' config mutex: let others run. */
#define kmg_mg_resched(left)	do { if (!((left) & 0xffff)) cond_resched(); } while (0)
#else
#define kmg_mg_resched(left)	((void)(left))
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#endif

#include "maglev.h"

#ifdef __KERNEL__
#include <linux/export.h>

u64 kmg_mg_siphash(const void *data, size_t len, const u8 seed[KMG_SEED_LEN])
{
	siphash_key_t key;
	__le64 k[2];

	/* The seed's bytes are the key, as in the reference SipHash (and libsodium). */
	memcpy(k, seed, sizeof(k));
	key.key[0] = le64_to_cpu(k[0]);
	key.key[1] = le64_to_cpu(k[1]);
	return siphash(data, len, &key);
}
EXPORT_SYMBOL_GPL(kmg_mg_siphash);

#define kmg_sort(base, n, size, cmp) sort(base, n, size, cmp, NULL)
#else
u64 kmg_mg_siphash(const void *data, size_t len, const u8 seed[KMG_SEED_LEN])
{
	unsigned char out[crypto_shorthash_siphash24_BYTES];
	u64 v = 0;
	int i;

	crypto_shorthash_siphash24(out, data, len, seed);
	for (i = 7; i >= 0; i--)
		v = (v << 8) | out[i];
	return v;
}

#define kmg_sort(base, n, size, cmp) qsort(base, n, size, cmp)
#endif

/* Per backend fill state, in the caller's scratch memory. */
struct kmg_mg_state {
	u32 pos;	/* next candidate slot in this backend's permutation */
	u32 skip;
	u32 offset;
	u32 inv;	/* skip^-1 mod size, computed when the tail phase needs it */
	u32 quota;	/* slots this backend ends up with */
	u32 taken;
};

/*
 * Fill context. Most slots are claimed by probing each backend's permutation. When only a few
 * slots are left, probing would spend most of the build time skipping full slots (the expected
 * probes per claim is size / free), so the last ones are found from a list of free slots
 * instead: a backend's next free slot in permutation order is the free slot of lowest rank,
 * rank(c) = (c - offset) * skip^-1 mod size, because every slot ranked before its cursor is
 * already taken. Both give the same table.
 */
struct kmg_mg_ctx {
	u16 *slots;
	u32 size;
	struct kmg_mg_state *st;
	u32 *free;	/* free slots in the tail phase */
	u32 nfree;
	u32 left;	/* empty slots */
	u32 tail_at;	/* enter the tail phase with this many empty slots */
};

bool kmg_is_prime(u32 n)
{
	u32 d;

	if (n < 2)
		return false;
	if (n % 2 == 0)
		return n == 2;
	for (d = 3; d <= n / d; d += 2)
		if (n % d == 0)
			return false;
	return true;
}
EXPORT_SYMBOL_GPL(kmg_is_prime);

int kmg_mg_addr_cmp(const u8 a[KMG_ADDR_LEN], const u8 b[KMG_ADDR_LEN])
{
	return memcmp(a, b, KMG_ADDR_LEN);
}
EXPORT_SYMBOL_GPL(kmg_mg_addr_cmp);

void kmg_maglev_perm(const u8 addr[KMG_ADDR_LEN], const u8 seed[KMG_SEED_LEN], u32 size,
		     u32 *offset, u32 *skip)
{
	/* Two keyed hashes of the address, told apart by a trailing domain byte. */
	u8 buf[KMG_ADDR_LEN + 1];

	memcpy(buf, addr, KMG_ADDR_LEN);
	buf[KMG_ADDR_LEN] = 1;
	*offset = kmg_mg_siphash(buf, sizeof(buf), seed) % size;
	buf[KMG_ADDR_LEN] = 2;
	*skip = kmg_mg_siphash(buf, sizeof(buf), seed) % (size - 1) + 1;
}
EXPORT_SYMBOL_GPL(kmg_maglev_perm);

/* Probing costs about size / free per claim, the free list about free: meet in the middle. */
static u32 kmg_mg_tail_len(u32 size)
{
	u32 t = 16;

	while ((u64)t * t * 8 < size)
		t *= 2;
	return t;
}

size_t kmg_maglev_scratch_size(u32 size, u32 n)
{
	/* fill state, remainder sort keys, heap, tail free list */
	return (size_t)n * (sizeof(struct kmg_mg_state) + sizeof(u64) + sizeof(u32)) +
	       (size_t)kmg_mg_tail_len(size) * sizeof(u32);
}
EXPORT_SYMBOL_GPL(kmg_maglev_scratch_size);

/* skip^-1 mod size (size prime, 0 < skip < size), by the extended Euclidean algorithm. */
static u32 kmg_mg_modinv(u32 skip, u32 size)
{
	s64 t = 0, newt = 1, q, tmp;
	u32 r = size, newr = skip, rtmp;

	while (newr) {
		q = r / newr;
		tmp = t - q * newt;
		t = newt;
		newt = tmp;
		rtmp = r - q * newr;
		r = newr;
		newr = rtmp;
	}
	return t < 0 ? t + size : t;
}

static void kmg_mg_enter_tail(struct kmg_mg_ctx *c)
{
	u32 p;

	c->nfree = 0;
	for (p = 0; p < c->size; p++)
		if (c->slots[p] == KMG_SLOT_EMPTY)
			c->free[c->nfree++] = p;
}

/* Probing phase: backend i takes the next free slot in its permutation. */
static inline void kmg_mg_probe_claim(struct kmg_mg_ctx *c, u32 i)
{
	struct kmg_mg_state *st = &c->st[i];
	u32 p = st->pos, skip = st->skip, size = c->size;
	u16 *slots = c->slots;

	while (slots[p] != KMG_SLOT_EMPTY) {
		p += skip;
		if (p >= size)
			p -= size;
	}
	slots[p] = i;
	p += skip;
	if (p >= size)
		p -= size;
	st->pos = p;
	st->taken++;
	c->left--;
}

/* Tail phase: the same slot, found as the free slot of lowest rank for backend i. */
static void kmg_mg_tail_claim(struct kmg_mg_ctx *c, u32 i)
{
	struct kmg_mg_state *st = &c->st[i];
	u32 k, best = 0, size = c->size;
	u64 rank, best_rank = U64_MAX;

	if (!st->inv)
		st->inv = kmg_mg_modinv(st->skip, size);
	for (k = 0; k < c->nfree; k++) {
		rank = (u64)((c->free[k] + size - st->offset) % size) * st->inv % size;
		if (rank < best_rank) {
			best_rank = rank;
			best = k;
		}
	}
	c->slots[c->free[best]] = i;
	c->free[best] = c->free[--c->nfree];
	st->taken++;
	c->left--;
}

static inline void kmg_mg_claim(struct kmg_mg_ctx *c, u32 i)
{
	if (c->left > c->tail_at) {
		kmg_mg_probe_claim(c, i);
		if (c->left == c->tail_at)
			kmg_mg_enter_tail(c);
	} else {
		kmg_mg_tail_claim(c, i);
	}
}

static int kmg_u64_desc(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Quotas by largest remainder: floor of the exact share, plus one for the largest fractions. */
static void kmg_mg_quotas(struct kmg_mg_state *st, u64 *keys, const struct kmg_mg_in *in,
			  u32 n, u32 size, u64 wsum, bool equal)
{
	u64 assigned = 0;
	u32 i, rem;

	for (i = 0; i < n; i++) {
		u64 share = (u64)size * in[i].weight;

		st[i].quota = share / wsum;
		assigned += st[i].quota;
		/* fraction (< 2^32) above, lower index wins ties */
		keys[i] = ((share % wsum) << 16) | (0xffff - i);
	}
	rem = size - assigned;
	if (!rem)
		return;
	if (equal) {
		/* all fractions are equal: the lowest indices win */
		for (i = 0; i < rem; i++)
			st[i].quota++;
		return;
	}
	kmg_sort(keys, n, sizeof(u64), kmg_u64_desc);
	for (i = 0; i < rem; i++)
		st[0xffff - (keys[i] & 0xffff)].quota++;
}

/* Does backend a take its next turn before backend b? Virtual time (taken + 1) / weight. */
static inline bool kmg_mg_before(const struct kmg_mg_state *st, const struct kmg_mg_in *in,
				 u32 a, u32 b)
{
	u64 ta = (u64)(st[a].taken + 1) * in[b].weight;
	u64 tb = (u64)(st[b].taken + 1) * in[a].weight;

	return ta < tb || (ta == tb && a < b);
}

static void kmg_mg_sift_down(u32 *heap, u32 len, u32 at, const struct kmg_mg_state *st,
			     const struct kmg_mg_in *in)
{
	u32 v = heap[at];

	for (;;) {
		u32 c = 2 * at + 1;

		if (c >= len)
			break;
		if (c + 1 < len && kmg_mg_before(st, in, heap[c + 1], heap[c]))
			c++;
		if (!kmg_mg_before(st, in, heap[c], v))
			break;
		heap[at] = heap[c];
		at = c;
	}
	heap[at] = v;
}

int kmg_maglev_build(u16 *slots, u32 size, const struct kmg_mg_in *in, u32 n,
		     const u8 seed[KMG_SEED_LEN], void *scratch)
{
	struct kmg_mg_state *st = scratch;
	u64 *keys = (u64 *)(st + n);
	u32 *heap = (u32 *)(keys + n);
	struct kmg_mg_ctx c = {
		.slots = slots, .size = size, .st = st, .free = heap + n,
		.left = size, .tail_at = kmg_mg_tail_len(size),
	};
	bool equal = true;
	u64 wsum = 0;
	u32 i;

	if (size < 2 || n > KMG_MAGLEV_MAX_BACKENDS || n > size)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!in[i].weight || (i && kmg_mg_addr_cmp(in[i - 1].addr, in[i].addr) >= 0))
			return -EINVAL;
		wsum += in[i].weight;
		equal &= in[i].weight == in[0].weight;
	}
	memset(slots, 0xff, (size_t)size * sizeof(*slots));
	if (!n)
		return 0;
	if (c.tail_at > size)
		c.tail_at = size;

	for (i = 0; i < n; i++) {
		kmg_maglev_perm(in[i].addr, seed, size, &st[i].offset, &st[i].skip);
		st[i].pos = st[i].offset;
		st[i].inv = 0;
		st[i].taken = 0;
	}
	kmg_mg_quotas(st, keys, in, n, size, wsum, equal);

	if (equal) {
		/* Round robin; quotas differ by at most one, so only the last round is partial. */
		for (i = 0; c.left > c.tail_at; i = i + 1 == n ? 0 : i + 1) {
			if (st[i].taken < st[i].quota) {
				kmg_mg_probe_claim(&c, i);
				kmg_mg_resched(c.left);
			}
		}
		kmg_mg_enter_tail(&c);
		for (; c.left; i = i + 1 == n ? 0 : i + 1) {
			if (st[i].taken < st[i].quota) {
				kmg_mg_tail_claim(&c, i);
				kmg_mg_resched(c.left);
			}
		}
		return 0;
	}

	/* Weighted: a min-heap of backends ordered by the virtual time of their next turn. */
	if (c.left <= c.tail_at)
		kmg_mg_enter_tail(&c);
	for (i = 0; i < n; i++)
		heap[i] = i;
	for (i = n / 2; i-- > 0; )
		kmg_mg_sift_down(heap, n, i, st, in);
	for (i = n; c.left && i; ) {
		u32 b = heap[0];

		kmg_mg_claim(&c, b);
		kmg_mg_resched(c.left);
		if (st[b].taken == st[b].quota)
			heap[0] = heap[--i];	/* quota reached: leave the heap */
		if (i)
			kmg_mg_sift_down(heap, i, 0, st, in);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(kmg_maglev_build);

u64 kmg_maglev_digest(const u16 *slots, u32 size, const struct kmg_mg_in *in, u32 n)
{
	static const u8 zero[KMG_SEED_LEN];
	u64 d[2] = { kmg_mg_siphash(slots, (size_t)size * sizeof(*slots), zero), 0 };
	u8 buf[KMG_ADDR_LEN + sizeof(u64)];
	u32 i;

	/* Chain the addresses in order: slot values are indices into this list. */
	for (i = 0; i < n; i++) {
		memcpy(buf, in[i].addr, KMG_ADDR_LEN);
		memcpy(buf + KMG_ADDR_LEN, &d[1], sizeof(u64));
		d[1] = kmg_mg_siphash(buf, sizeof(buf), zero);
	}
	return kmg_mg_siphash(d, sizeof(d), zero);
}
EXPORT_SYMBOL_GPL(kmg_maglev_digest);
