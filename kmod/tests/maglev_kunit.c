// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: Maglev table construction (kmod/maglev.c), checked against exact shares, the paper's
 * pseudocode and known SipHash answers.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "../maglev.h"
#include "../maglev_ref.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const u8 kmg_zero_seed[KMG_SEED_LEN];

/* Backend i is IPv4-mapped 10.x.y.z with x.y.z = i + 1, weight w[i] (or 1 without w). */
static struct kmg_mg_in *kmg_test_backends(struct kunit *test, u32 n, const u32 *w)
{
	struct kmg_mg_in *in = kunit_kcalloc(test, n, sizeof(*in), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, in);
	kmg_maglev_ref_backends(in, n, w);
	return in;
}

static u16 *kmg_test_build(struct kunit *test, u32 size, const struct kmg_mg_in *in, u32 n,
			   const u8 *seed)
{
	u16 *slots = vmalloc(size * sizeof(*slots));
	void *scratch = vmalloc(kmg_maglev_scratch_size(size, n) + 1);

	KUNIT_ASSERT_NOT_NULL(test, slots);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	KUNIT_ASSERT_EQ(test, kmg_maglev_build(slots, size, in, n, seed, scratch), 0);
	vfree(scratch);
	return slots;
}

static void kmg_test_counts(const u16 *slots, u32 size, u32 n, u32 *counts)
{
	u32 i;

	memset(counts, 0, n * sizeof(*counts));
	for (i = 0; i < size; i++)
		if (slots[i] < n)
			counts[slots[i]]++;
}

static void kmg_test_prime(struct kunit *test)
{
	static const u32 primes[] = { 2, 3, 251, 257, 65537, 655373, 4194301, 16777213 };
	static const u32 composites[] = { 0, 1, 4, 255, 65536, 65535, 4194303, 16777215,
					  251 * 257, 65537U * 251 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(primes); i++)
		KUNIT_EXPECT_TRUE_MSG(test, kmg_is_prime(primes[i]), "%u", primes[i]);
	for (i = 0; i < ARRAY_SIZE(composites); i++)
		KUNIT_EXPECT_FALSE_MSG(test, kmg_is_prime(composites[i]), "%u", composites[i]);
}

/* The reference SipHash-2-4 vector (key 00..0f, message 00..0e) and a permutation answer. */
static void kmg_test_siphash_known_answer(struct kunit *test)
{
	u8 seed[KMG_SEED_LEN], msg[15], addr[KMG_ADDR_LEN] = {
		[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 0, [14] = 0, [15] = 1 };
	u32 off, skip, i;

	for (i = 0; i < sizeof(seed); i++)
		seed[i] = i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	KUNIT_EXPECT_EQ(test, kmg_mg_siphash(msg, sizeof(msg), seed), 0xa129ca6149be45e5ULL);
	/* Same answers as the userspace build (userland/tests/test_simulate.c). */
	kmg_maglev_perm(addr, seed, 65537, &off, &skip);
	KUNIT_EXPECT_EQ(test, off, 39100U);
	KUNIT_EXPECT_EQ(test, skip, 36862U);
	kmg_maglev_perm(addr, kmg_zero_seed, 65537, &off, &skip);
	KUNIT_EXPECT_EQ(test, off, 47094U);
	KUNIT_EXPECT_EQ(test, skip, 30024U);
}

/* With equal weights the table is exactly the one the paper's pseudocode builds. */
static void kmg_test_matches_paper(struct kunit *test)
{
	static const u32 ns[] = { 1, 2, 3, 100, 1000 };
	const u32 size = 65537;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(ns); k++) {
		struct kmg_mg_in *in = kmg_test_backends(test, ns[k], NULL);
		s32 *ref = vmalloc(size * sizeof(*ref));
		void *scratch = vmalloc(kmg_maglev_ref_scratch_size(ns[k]));
		u16 *slots = kmg_test_build(test, size, in, ns[k], kmg_zero_seed);
		u32 i, diff = 0;

		KUNIT_ASSERT_NOT_NULL(test, ref);
		KUNIT_ASSERT_NOT_NULL(test, scratch);
		KUNIT_ASSERT_EQ(test, kmg_maglev_ref_build(ref, size, in, ns[k], kmg_zero_seed,
							   scratch), 0);
		for (i = 0; i < size; i++)
			diff += slots[i] != ref[i];
		KUNIT_EXPECT_EQ_MSG(test, diff, 0U, "N=%u", ns[k]);
		vfree(scratch);
		vfree(ref);
		vfree(slots);
	}
}

/* Every backend gets floor or ceil of its exact share; per unit weight max - min <= 1. */
static void kmg_test_check_shares(struct kunit *test, u32 size, const u32 *w, u32 n)
{
	struct kmg_mg_in *in = kmg_test_backends(test, n, w);
	u32 *counts = kunit_kcalloc(test, n, sizeof(*counts), GFP_KERNEL);
	u64 wsum = 0, lo, hi;
	u16 *slots;
	u32 i, empty = 0;
	/* slots per unit weight, scaled by 1000 to compare without floating point */
	u64 pmin = U64_MAX, pmax = 0;

	KUNIT_ASSERT_NOT_NULL(test, counts);
	for (i = 0; i < n; i++)
		wsum += w[i];
	slots = kmg_test_build(test, size, in, n, kmg_zero_seed);
	for (i = 0; i < size; i++)
		empty += slots[i] >= n;
	KUNIT_EXPECT_EQ(test, empty, 0U);
	kmg_test_counts(slots, size, n, counts);
	for (i = 0; i < n; i++) {
		lo = div64_u64((u64)size * w[i], wsum);
		hi = lo + 1;
		KUNIT_EXPECT_GE_MSG(test, (u64)counts[i], lo, "backend %u weight %u", i, w[i]);
		KUNIT_EXPECT_LE_MSG(test, (u64)counts[i], hi, "backend %u weight %u", i, w[i]);
		pmin = min(pmin, div64_u64((u64)counts[i] * 1000, w[i]));
		pmax = max(pmax, div64_u64((u64)counts[i] * 1000, w[i]));
	}
	KUNIT_EXPECT_LE_MSG(test, pmax - pmin, 1000ULL, "slots per unit weight spread, x1000");
	vfree(slots);
}

static void kmg_test_balance_equal(struct kunit *test)
{
	static const u32 ns[] = { 1, 7, 100, 1000, 5000 };
	u32 *w = kunit_kcalloc(test, 5000, sizeof(*w), GFP_KERNEL);
	unsigned int k, i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	for (i = 0; i < 5000; i++)
		w[i] = 1;
	for (k = 0; k < ARRAY_SIZE(ns); k++) {
		kmg_test_check_shares(test, 65537, w, ns[k]);
		kmg_test_check_shares(test, 251, w, min(ns[k], 251U));
	}
}

static void kmg_test_weights_ratios(struct kunit *test)
{
	static const u32 ratios[][2] = { { 1, 1 }, { 1, 10 }, { 1, 1000 }, { 1000, 1 },
					 { 65535, 1 }, { 3, 7 } };
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(ratios); k++) {
		kmg_test_check_shares(test, 65537, ratios[k], 2);
		kmg_test_check_shares(test, 655373, ratios[k], 2);
	}
}

static void kmg_test_weights_mixed(struct kunit *test)
{
	u32 *w = kunit_kcalloc(test, 1000, sizeof(*w), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	for (i = 0; i < 1000; i++)
		w[i] = 1 + (i * 7919) % 1000;
	kmg_test_check_shares(test, 65537, w, 1000);
	for (i = 0; i < 1000; i++)
		w[i] = i % 10 ? 1 : 65535;
	kmg_test_check_shares(test, 65537, w, 1000);
	kmg_test_check_shares(test, 251, w, 20);
}

/* Removing one of N backends moves about its own share of slots, plus at most 1%. */
static void kmg_test_disruption(struct kunit *test)
{
	const u32 size = 65537, n = 100;
	static const u32 victims[] = { 0, 37, 99 };
	struct kmg_mg_in *in = kmg_test_backends(test, n, NULL);
	struct kmg_mg_in *less = kmg_test_backends(test, n - 1, NULL);
	u16 *before = kmg_test_build(test, size, in, n, kmg_zero_seed);
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(victims); k++) {
		u32 v = victims[k], i, j, moved = 0;
		u16 *after;

		for (i = 0, j = 0; i < n; i++)
			if (i != v)
				less[j++] = in[i];
		after = kmg_test_build(test, size, less, n - 1, kmg_zero_seed);
		for (i = 0; i < size; i++) {
			const u8 *a = in[before[i]].addr, *b = less[after[i]].addr;

			moved += memcmp(a, b, KMG_ADDR_LEN) != 0;
		}
		kunit_info(test, "removing backend %u of %u moved %u of %u slots", v, n, moved,
			   size);
		KUNIT_EXPECT_LE(test, (u64)moved * 100 * n, (u64)size * (100 + n));
		vfree(after);
	}
	vfree(before);
}

static void kmg_test_bad_input(struct kunit *test)
{
	struct kmg_mg_in *in = kmg_test_backends(test, 3, NULL);
	u16 *slots = kunit_kcalloc(test, 251, sizeof(*slots), GFP_KERNEL);
	u8 *scratch = kunit_kzalloc(test, kmg_maglev_scratch_size(251, 3), GFP_KERNEL);
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, slots);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	swap(in[0], in[1]);	/* not sorted */
	KUNIT_EXPECT_EQ(test, kmg_maglev_build(slots, 251, in, 3, kmg_zero_seed, scratch),
			-EINVAL);
	in[0] = in[1];		/* duplicate */
	KUNIT_EXPECT_EQ(test, kmg_maglev_build(slots, 251, in, 3, kmg_zero_seed, scratch),
			-EINVAL);
	in = kmg_test_backends(test, 3, NULL);
	in[2].weight = 0;	/* only positive weights get slots */
	KUNIT_EXPECT_EQ(test, kmg_maglev_build(slots, 251, in, 3, kmg_zero_seed, scratch),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kmg_maglev_build(slots, 251, in, 0, kmg_zero_seed, scratch), 0);
	for (i = 0; i < 251; i++)
		KUNIT_EXPECT_EQ(test, slots[i], (u16)KMG_SLOT_EMPTY);
}

/* The seed changes the table; the same seed gives the same digest. */
static void kmg_test_seed_digest(struct kunit *test)
{
	const u8 seed[KMG_SEED_LEN] = { 0xde, 0xad, 0xbe, 0xef };
	struct kmg_mg_in *in = kmg_test_backends(test, 10, NULL);
	u16 *a = kmg_test_build(test, 65537, in, 10, kmg_zero_seed);
	u16 *b = kmg_test_build(test, 65537, in, 10, seed);
	u16 *c = kmg_test_build(test, 65537, in, 10, seed);

	KUNIT_EXPECT_NE(test, memcmp(a, b, 65537 * 2), 0);
	KUNIT_EXPECT_EQ(test, memcmp(b, c, 65537 * 2), 0);
	KUNIT_EXPECT_EQ(test, kmg_maglev_digest(b, 65537, in, 10),
			kmg_maglev_digest(c, 65537, in, 10));
	KUNIT_EXPECT_NE(test, kmg_maglev_digest(a, 65537, in, 10),
			kmg_maglev_digest(b, 65537, in, 10));
	vfree(a);
	vfree(b);
	vfree(c);
}

static struct kunit_case kmg_maglev_cases[] = {
	KUNIT_CASE(kmg_test_prime),
	KUNIT_CASE(kmg_test_siphash_known_answer),
	KUNIT_CASE(kmg_test_matches_paper),
	KUNIT_CASE(kmg_test_balance_equal),
	KUNIT_CASE(kmg_test_weights_ratios),
	KUNIT_CASE(kmg_test_weights_mixed),
	KUNIT_CASE(kmg_test_disruption),
	KUNIT_CASE(kmg_test_bad_input),
	KUNIT_CASE(kmg_test_seed_digest),
	{}
};

static struct kunit_suite kmg_maglev_suite = {
	.name = "kmaglev_maglev",
	.test_cases = kmg_maglev_cases,
};

kunit_test_suites(&kmg_maglev_suite);
