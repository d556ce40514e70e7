// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev_kunit.ko: KUnit suites for kmaglev, loaded on kernels with CONFIG_KUNIT. The suites
 * live in the other files of tests/, one per part of the module.
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for kmaglev");
