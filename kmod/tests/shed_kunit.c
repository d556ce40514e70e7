// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: criticality-aware load shedding (kmod/shed.c): the load average, the load signal's
 * hysteresis and its transition count, and which new flows are shed: by class (DSCP map or
 * the service's criticality, against shed-class), for each overload signal.
 */
#include <kunit/test.h>
#include <linux/kmaglev.h>

#include "../netns.h"
#include "../service.h"
#include "../shed.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static void kmg_test_smooth(struct kunit *test)
{
	u32 avg = 0;
	int i;

	/*
	 * A step to 800 per mille: past 500 after 8 samples (0.8 s; a stall of 3 samples at
	 * 0 moves it by a third at most), within 1% after 35.
	 */
	for (i = 0; i < 7; i++)
		avg = kmg_shed_smooth(avg, 800);
	KUNIT_EXPECT_LT(test, avg >> 8, 500U);
	avg = kmg_shed_smooth(avg, 800);
	KUNIT_EXPECT_GE(test, avg >> 8, 500U);
	for (i = 0; i < 27; i++)
		avg = kmg_shed_smooth(avg, 800);
	KUNIT_EXPECT_GE(test, avg >> 8, 792U);
	KUNIT_EXPECT_LE(test, avg >> 8, 800U);
	/* samples are capped at 1000; back to 0 decays the same way */
	avg = kmg_shed_smooth(0, 5000);
	KUNIT_EXPECT_EQ(test, avg >> 8, 125U);
	for (i = 0; i < 80; i++)
		avg = kmg_shed_smooth(avg, 0);
	KUNIT_EXPECT_LT(test, avg >> 8, 1U);
}

static void kmg_test_hysteresis(struct kunit *test)
{
	static const struct { u32 load, on, transitions; } steps[] = {
		{ 100, 0, 0 }, { 600, 1, 1 }, { 400, 1, 1 }, { 310, 1, 1 }, { 300, 0, 2 },
		{ 450, 0, 2 }, { 499, 0, 2 }, { 500, 1, 3 }, { 1000, 1, 3 }, { 0, 0, 4 },
	};
	struct kmg_shed sh = { .set = { .load_high = 500, .load_low = 300 } };
	unsigned int i;

	atomic_set(&sh.transitions, 0);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		kmg_shed_load_eval(&sh, steps[i].load);
		KUNIT_EXPECT_EQ_MSG(test, sh.load_on, steps[i].on, "load %u", steps[i].load);
		KUNIT_EXPECT_EQ_MSG(test, (u32)atomic_read(&sh.transitions),
				    steps[i].transitions, "load %u", steps[i].load);
	}
	/* load_high 0: no signal, nothing moves */
	sh.set.load_high = 0;
	kmg_shed_load_eval(&sh, 1000);
	KUNIT_EXPECT_EQ(test, sh.load_on, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&sh.transitions), 4);
}

/*
 * A netns of the test's own: kmg_shed_over() reads its shed settings and state, the
 * connection count and conn-max; zeroed, it has no entries and no work on the load list.
 */
static int kmg_test_shed_init(struct kunit *test)
{
	struct kmg_net *kn = kunit_kzalloc(test, sizeof(*kn), GFP_KERNEL);

	if (!kn)
		return -ENOMEM;
	kn->shed.set.shed_class = KMG_SHED_DEFAULT_CLASS;
	INIT_LIST_HEAD(&kn->shed.load_node);
	test->priv = kn;
	return 0;
}

/* One new flow of @svc with DSCP @dscp: shed? (*why: the counter) */
static noinline bool kmg_test_shed(struct kmg_net *kn, const struct kmg_service *svc, u8 dscp,
				   enum kmg_counter *why)
{
	return kmg_shed_over(kn, svc, dscp, why);
}

static void kmg_test_classes(struct kunit *test)
{
	struct kmg_net *kn = test->priv;
	struct kmg_shed *sh = &kn->shed;
	struct kmg_service *svc = kunit_kzalloc(test, sizeof(*svc), GFP_KERNEL);
	enum kmg_counter why = KMG_C_MAX;

	KUNIT_ASSERT_NOT_NULL(test, svc);
	svc->cfg.criticality = KMAGLEV_CRITICALITY_CRITICAL;
	/* EF (46) critical-plus, CS1 (8) sheddable, the rest the service's (critical) */
	sh->set.map[46] = 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS;
	sh->set.map[8] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE;
	sh->set.shed_class = KMAGLEV_CRITICALITY_SHEDDABLE;

	/* no overload: nothing shed */
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 8, &why));
	/* the service overloaded: sheddable shed (shed-util), critical and EF not */
	svc->cfg.overload = KMAGLEV_OVERLOAD_ON;
	KUNIT_EXPECT_TRUE(test, kmg_test_shed(kn, svc, 8, &why));
	KUNIT_EXPECT_EQ(test, why, KMG_C_SHED_UTIL);
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 0, &why));
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 46, &why));
	/* shed-class critical: the service's default class is shed too, EF still not */
	sh->set.shed_class = KMAGLEV_CRITICALITY_CRITICAL;
	KUNIT_EXPECT_TRUE(test, kmg_test_shed(kn, svc, 0, &why));
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 46, &why));
	/* a sheddable service: its unmapped flows are shed at the default shed-class */
	sh->set.shed_class = KMAGLEV_CRITICALITY_SHEDDABLE;
	svc->cfg.criticality = KMAGLEV_CRITICALITY_SHEDDABLE;
	KUNIT_EXPECT_TRUE(test, kmg_test_shed(kn, svc, 0, &why));
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 46, &why));
}

static void kmg_test_signals(struct kunit *test)
{
	struct kmg_net *kn = test->priv;
	struct kmg_shed *sh = &kn->shed;
	struct kmg_service *svc = kunit_kzalloc(test, sizeof(*svc), GFP_KERNEL);
	enum kmg_counter why = KMG_C_MAX;
	unsigned long second;
	int i, shed, tries = 0;

	KUNIT_ASSERT_NOT_NULL(test, svc);
	svc->cfg.criticality = KMAGLEV_CRITICALITY_SHEDDABLE;
	sh->set.shed_class = KMAGLEV_CRITICALITY_SHEDDABLE;
	/* new-rate 5: the first 5 of this second pass, the rest are shed */
	sh->set.new_rate = 5;
	do {	/* again if a second boundary fell in between */
		second = jiffies / HZ;
		atomic_set(&sh->rate.count, 0);
		sh->rate.second = second;
		sh->rate.prev = 0;
		for (shed = 0, i = 0; i < 8; i++)
			shed += kmg_test_shed(kn, svc, 0, &why);
	} while (jiffies / HZ != second && ++tries < 3);
	KUNIT_EXPECT_EQ(test, shed, 3);
	KUNIT_EXPECT_EQ(test, why, KMG_C_SHED_NEW_RATE);
	KUNIT_EXPECT_TRUE(test, kmg_shed_reasons(kn) & KMAGLEV_SHED_REASON_NEW_RATE);
	sh->set.new_rate = 0;
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 0, &why));
	/* the load signal on */
	WRITE_ONCE(sh->load_on, 1);
	KUNIT_EXPECT_TRUE(test, kmg_test_shed(kn, svc, 0, &why));
	KUNIT_EXPECT_EQ(test, why, KMG_C_SHED_LOAD);
	KUNIT_EXPECT_EQ(test, kmg_shed_reasons(kn), (u32)KMAGLEV_SHED_REASON_LOAD);
	WRITE_ONCE(sh->load_on, 0);
	/* conn-fill: no entries in the initial netns, never over */
	sh->set.conn_fill = 1;
	KUNIT_EXPECT_FALSE(test, kmg_test_shed(kn, svc, 0, &why));
	KUNIT_EXPECT_EQ(test, kmg_shed_reasons(kn), 0U);
}

static struct kunit_case kmg_shed_cases[] = {
	KUNIT_CASE(kmg_test_smooth),
	KUNIT_CASE(kmg_test_hysteresis),
	KUNIT_CASE(kmg_test_classes),
	KUNIT_CASE(kmg_test_signals),
	{}
};

static struct kunit_suite kmg_shed_suite = {
	.name = "kmaglev_shed",
	.init = kmg_test_shed_init,
	.test_cases = kmg_shed_cases,
};

kunit_test_suites(&kmg_shed_suite);
