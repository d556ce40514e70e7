// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev_kunit.ko: KUnit suites for kmaglev, loaded on kernels with CONFIG_KUNIT. The suites
 * live in the other files of tests/, one per part of the module.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/net_namespace.h>

#include "../netns.h"
#include "../service.h"
#include "kunit.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for kmaglev");

int kmg_kunit_netns_init(struct kunit *test)
{
	struct kmg_net *kn = kmg_pernet(&init_net);

	if (kn->nservices)
		return -EBUSY;
	test->priv = kn;
	return 0;
}

void kmg_kunit_netns_exit(struct kunit *test)
{
	struct kmg_net *kn = test->priv;

	if (!kn)
		return;
	mutex_lock(&kn->lock);
	kmg_service_flush(kn);
	kn->max_backends = KMG_DEFAULT_MAX_BACKENDS;
	mutex_unlock(&kn->lock);
}
