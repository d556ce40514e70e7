// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: two-table migration rules (kmod/migrate.c): the ramp split of new flows and the
 * window for flows that are not new.
 */
#include <kunit/test.h>
#include <linux/limits.h>

#include "../migrate.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* A deterministic spread of 32-bit flow hashes. */
static u32 kmg_test_hash(u32 i)
{
	return i * 2654435761U;
}

/* Share of 10000 new flows that use the previous table, in percent. */
static u32 kmg_test_prev_share(const struct kmg_mig *m)
{
	u32 i, prev = 0;

	for (i = 0; i < 10000; i++)
		prev += kmg_mig_use_prev(m, kmg_test_hash(i), true);
	return prev / 100;
}

static void kmg_test_no_prev(struct kunit *test)
{
	struct kmg_mig m = { .has_prev = false, .ramp_pct = 0, .window_ms = 1000 };

	KUNIT_EXPECT_FALSE(test, kmg_mig_use_prev(&m, 0, true));
	KUNIT_EXPECT_FALSE(test, kmg_mig_use_prev(&m, U32_MAX, false));
	KUNIT_EXPECT_EQ(test, kmg_mig_ramp_pct(&m), 100U);
}

static void kmg_test_static_ramp(struct kunit *test)
{
	struct kmg_mig m = { .has_prev = true, .elapsed_ms = 5, .window_ms = 0 };

	m.ramp_pct = 0;
	KUNIT_EXPECT_EQ(test, kmg_test_prev_share(&m), 100U);
	m.ramp_pct = 100;
	KUNIT_EXPECT_EQ(test, kmg_test_prev_share(&m), 0U);
	m.ramp_pct = 30;
	KUNIT_EXPECT_EQ(test, kmg_mig_ramp_pct(&m), 30U);
	KUNIT_EXPECT_GE(test, kmg_test_prev_share(&m), 68U);
	KUNIT_EXPECT_LE(test, kmg_test_prev_share(&m), 72U);
	/* deterministic: same hash, same table */
	KUNIT_EXPECT_EQ(test, kmg_mig_use_prev(&m, 0x12345678, true),
			kmg_mig_use_prev(&m, 0x12345678, true));
	/* the threshold is on the hash: low hashes move first */
	KUNIT_EXPECT_FALSE(test, kmg_mig_use_prev(&m, 0, true));
	KUNIT_EXPECT_TRUE(test, kmg_mig_use_prev(&m, U32_MAX, true));
}

static void kmg_test_timed_ramp(struct kunit *test)
{
	struct kmg_mig m = { .has_prev = true, .ramp_ms = 10000, .window_ms = 0 };
	u32 i, t;

	m.elapsed_ms = 0;
	KUNIT_EXPECT_EQ(test, kmg_test_prev_share(&m), 100U);
	m.elapsed_ms = 5000;
	KUNIT_EXPECT_EQ(test, kmg_mig_ramp_pct(&m), 50U);
	KUNIT_EXPECT_GE(test, kmg_test_prev_share(&m), 48U);
	KUNIT_EXPECT_LE(test, kmg_test_prev_share(&m), 52U);
	m.elapsed_ms = 10000;
	KUNIT_EXPECT_EQ(test, kmg_test_prev_share(&m), 0U);
	m.elapsed_ms = 123456;
	KUNIT_EXPECT_EQ(test, kmg_test_prev_share(&m), 0U);

	/* A flow that has moved to the new table never moves back as the ramp goes on. */
	for (i = 0; i < 1000; i++) {
		bool moved = false;

		for (t = 0; t <= 10000; t += 500) {
			m.elapsed_ms = t;
			bool prev = kmg_mig_use_prev(&m, kmg_test_hash(i), true);

			if (moved)
				KUNIT_EXPECT_FALSE(test, prev);
			moved = !prev;
		}
	}
}

static void kmg_test_window(struct kunit *test)
{
	struct kmg_mig m = { .has_prev = true, .ramp_pct = 100, .window_ms = 30000 };

	m.elapsed_ms = 0;
	KUNIT_EXPECT_TRUE(test, kmg_mig_use_prev(&m, 1, false));
	KUNIT_EXPECT_FALSE(test, kmg_mig_use_prev(&m, 1, true));
	m.elapsed_ms = 29999;
	KUNIT_EXPECT_TRUE(test, kmg_mig_use_prev(&m, 1, false));
	m.elapsed_ms = 30000;
	KUNIT_EXPECT_FALSE(test, kmg_mig_use_prev(&m, 1, false));
	m.window_ms = 0;
	m.elapsed_ms = 0;
	KUNIT_EXPECT_FALSE(test, kmg_mig_use_prev(&m, 1, false));
}

static void kmg_test_retire_time(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kmg_mig_length_ms(100, 0, 30000), 30000UL);
	KUNIT_EXPECT_EQ(test, kmg_mig_length_ms(100, 60000, 30000), 60000UL);
	KUNIT_EXPECT_EQ(test, kmg_mig_length_ms(40, 60000, 30000), 60000UL);
	KUNIT_EXPECT_EQ(test, kmg_mig_length_ms(100, 0, 0), 0UL);
	/* a static ramp below 100% holds the previous table until the operator raises it */
	KUNIT_EXPECT_EQ(test, kmg_mig_length_ms(40, 0, 30000), ULONG_MAX);
}

static struct kunit_case kmg_migrate_cases[] = {
	KUNIT_CASE(kmg_test_no_prev),
	KUNIT_CASE(kmg_test_static_ramp),
	KUNIT_CASE(kmg_test_timed_ramp),
	KUNIT_CASE(kmg_test_window),
	KUNIT_CASE(kmg_test_retire_time),
	{}
};

static struct kunit_suite kmg_migrate_suite = {
	.name = "kmaglev_migrate",
	.test_cases = kmg_migrate_cases,
};

kunit_test_suites(&kmg_migrate_suite);
