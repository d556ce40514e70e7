// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev KUnit tests.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/kmaglev.h>

static void kmg_test_family_name(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, KMAGLEV_FAMILY_NAME, "kmaglev");
}

static struct kunit_case kmg_skeleton_cases[] = {
	KUNIT_CASE(kmg_test_family_name),
	{}
};

static struct kunit_suite kmg_skeleton_suite = {
	.name = "kmaglev_skeleton",
	.test_cases = kmg_skeleton_cases,
};

kunit_test_suites(&kmg_skeleton_suite);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmaglev KUnit tests");
