/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmaglev's KUnit suites share (tests/kmaglev_kunit.c): the suites that work on the
 * initial netns' real state start with no service there and flush what they made.
 */
#ifndef _KMG_TESTS_KUNIT_H
#define _KMG_TESTS_KUNIT_H

#include <kunit/test.h>

/* test->priv = init_net's kmaglev state; -EBUSY if it has services already */
int kmg_kunit_netns_init(struct kunit *test);
/* flush its services and restore max-backends (KUnit calls it after a failed init too) */
void kmg_kunit_netns_exit(struct kunit *test);

#endif
