// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: services and backend sets (kmod/service.c, kmod/table.c): order independence, drain
 * and down, atomic updates, all-or-nothing failures, table publication and VIP lookup.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kmaglev.h>
#include <net/net_namespace.h>

#include "../addr.h"
#include "../backend.h"
#include "../maglev.h"
#include "../netns.h"
#include "../service.h"
#include "../table.h"
#include "kunit.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/*
 * The tests work on the initial netns' real state (the test VM has no other services), so
 * they also exercise hook registration with the first service and unregistration with the
 * last (kmg_kunit_netns_init(), tests/kunit.h).
 */
static struct kmg_net *kmg_kn(struct kunit *test)
{
	return test->priv;
}

static void kmg_key(struct kmg_svc_key *key, u8 last, u8 proto, u16 port)
{
	struct kmg_addr a;

	kmg_addr_from_v4(&a, htonl(0xc0000200 | last));	/* 192.0.2.last */
	memset(key, 0, sizeof(*key));
	memcpy(key->addr, a.b, sizeof(key->addr));
	key->family = AF_INET;
	key->proto = proto;
	key->port = htons(port);
}

/* Backend cfg for 10.0.x.y = i + 1, with all settings given as for a new backend. */
static void kmg_be(struct kmg_backend_cfg *cfg, u32 i, u32 weight)
{
	memset(cfg, 0, sizeof(*cfg));
	kmg_addr_from_v4(&cfg->addr, htonl(0x0a000000 | (i + 1)));
	cfg->weight = weight;
	cfg->set = KMG_BE_SET_WEIGHT | KMG_BE_SET_STATE | KMG_BE_SET_ENCAP | KMG_BE_SET_KEY |
		   KMG_BE_SET_MAX_CONNS;
}

static struct kmg_service *kmg_create(struct kunit *test, u8 last, u16 port,
				      struct kmg_backend_cfg *b, u32 nb, u32 size)
{
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service_cfg cfg;
	struct kmg_service *svc;
	struct kmg_svc_key key;
	int err;

	kmg_service_cfg_default(&cfg);
	cfg.table_size = size;
	kmg_key(&key, last, IPPROTO_TCP, port);
	mutex_lock(&kn->lock);
	err = kmg_service_create(kn, &key, &cfg, b, nb, &svc, NULL);
	mutex_unlock(&kn->lock);
	KUNIT_ASSERT_EQ(test, err, 0);
	return svc;
}

static struct kmg_table *kmg_cur(struct kmg_service *svc)
{
	return rcu_dereference_protected(svc->cur, true);
}

/* The backend address of every slot, for comparing tables built from different sets. */
static u32 kmg_addr_of(const struct kmg_table *t, u32 slot)
{
	if (t->slots[slot] == KMG_SLOT_EMPTY)
		return 0;
	return ntohl(kmg_addr_v4(&t->be[t->slots[slot]].be->addr));
}

/* Shuffled insertion, one backend at a time, gives the byte-identical table. */
static void kmg_test_order_independent(struct kunit *test)
{
	const u32 n = 64;
	struct kmg_backend_cfg *b = kunit_kcalloc(test, n, sizeof(*b), GFP_KERNEL);
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service *all, *one;
	u32 i, j, order[64];
	bool rebuilt;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < n; i++) {
		kmg_be(&b[i], i, 1 + i % 5);
		order[i] = i;
	}
	all = kmg_create(test, 1, 80, b, n, 65537);
	/* a fixed shuffle */
	for (i = n - 1; i > 0; i--) {
		j = (i * 2654435761U) % (i + 1);
		swap(order[i], order[j]);
	}
	one = kmg_create(test, 2, 80, NULL, 0, 65537);
	mutex_lock(&kn->lock);
	for (i = 0; i < n; i++) {
		struct kmg_backend_cfg c;

		kmg_be(&c, order[i], 1 + order[i] % 5);
		KUNIT_ASSERT_EQ(test, kmg_backend_add(one, &c, &rebuilt, NULL), 0);
		KUNIT_EXPECT_TRUE(test, rebuilt);
	}
	mutex_unlock(&kn->lock);
	KUNIT_EXPECT_EQ(test, kmg_cur(one)->nbe, n);
	KUNIT_EXPECT_EQ(test, memcmp(kmg_cur(all)->slots, kmg_cur(one)->slots, 65537 * 2), 0);
	KUNIT_EXPECT_EQ(test, kmg_table_digest(kmg_cur(all)), kmg_table_digest(kmg_cur(one)));
	KUNIT_EXPECT_EQ(test, one->gen, n + 1);
}

static void kmg_test_drain_down_no_slots(struct kunit *test)
{
	struct kmg_backend_cfg b[4], c;
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service *svc;
	struct kmg_table *t;
	u32 i, counts[4];
	bool rebuilt;

	for (i = 0; i < 4; i++)
		kmg_be(&b[i], i, 10);
	svc = kmg_create(test, 1, 80, b, 4, 251);
	KUNIT_EXPECT_EQ(test, kmg_cur(svc)->nbe, 4U);

	mutex_lock(&kn->lock);
	kmg_be(&c, 1, 10);
	c.set = KMG_BE_SET_STATE;
	c.state = KMAGLEV_BACKEND_STATE_DRAIN;
	KUNIT_ASSERT_EQ(test, kmg_backend_change(svc, &c, &rebuilt, NULL), 0);
	KUNIT_EXPECT_TRUE(test, rebuilt);
	kmg_be(&c, 2, 10);
	c.set = KMG_BE_SET_STATE;
	c.state = KMAGLEV_BACKEND_STATE_DOWN;
	KUNIT_ASSERT_EQ(test, kmg_backend_change(svc, &c, &rebuilt, NULL), 0);
	kmg_be(&c, 3, 0);
	c.set = KMG_BE_SET_WEIGHT;	/* weight 0: no slots either */
	KUNIT_ASSERT_EQ(test, kmg_backend_change(svc, &c, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);

	t = kmg_cur(svc);
	KUNIT_ASSERT_EQ(test, t->nbe, 1U);
	kmg_table_slot_counts(t, counts);
	KUNIT_EXPECT_EQ(test, counts[0], 251U);
	for (i = 0; i < 251; i++)
		KUNIT_EXPECT_EQ(test, kmg_addr_of(t, i), 0x0a000001U);
	/* the drained backend is still in the set, keeping its connections */
	KUNIT_EXPECT_EQ(test, svc->nbe, 4U);
	KUNIT_EXPECT_EQ(test, svc->be[1]->state, (u8)KMAGLEV_BACKEND_STATE_DRAIN);
}

/* A thousand backends in one request: one table generation. */
static void kmg_test_atomic_update(struct kunit *test)
{
	const u32 n = 1000;
	struct kmg_backend_cfg *b = kunit_kcalloc(test, n, sizeof(*b), GFP_KERNEL);
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service *svc;
	u32 i, gen;
	bool rebuilt;

	KUNIT_ASSERT_NOT_NULL(test, b);
	svc = kmg_create(test, 1, 80, NULL, 0, 65537);
	gen = svc->gen;
	for (i = 0; i < n; i++)
		kmg_be(&b[i], n - 1 - i, 1);	/* reverse order on purpose */
	mutex_lock(&kn->lock);
	KUNIT_ASSERT_EQ(test, kmg_service_update(svc, &svc->cfg, b, n, true, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);
	KUNIT_EXPECT_TRUE(test, rebuilt);
	KUNIT_EXPECT_EQ(test, svc->gen, gen + 1);
	KUNIT_EXPECT_EQ(test, svc->nbe, n);
	KUNIT_EXPECT_EQ(test, kmg_cur(svc)->nbe, n);
	KUNIT_EXPECT_EQ(test, kn->nbackends, n);
	KUNIT_EXPECT_TRUE(test, kn->hooks);

	/* The same set again (different order): nothing to rebuild. */
	for (i = 0; i < n; i++)
		kmg_be(&b[i], i, 1);
	mutex_lock(&kn->lock);
	KUNIT_ASSERT_EQ(test, kmg_service_update(svc, &svc->cfg, b, n, true, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);
	KUNIT_EXPECT_FALSE(test, rebuilt);
	KUNIT_EXPECT_EQ(test, svc->gen, gen + 1);
}

/* Rejected requests change nothing. */
static void kmg_test_all_or_nothing(struct kunit *test)
{
	struct kmg_backend_cfg b[3], bad[3], c;
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service_cfg cfg;
	struct kmg_service *svc;
	struct kmg_table *t;
	u32 i, gen;
	bool rebuilt;

	for (i = 0; i < 3; i++)
		kmg_be(&b[i], i, 1);
	svc = kmg_create(test, 1, 80, b, 3, 251);
	t = kmg_cur(svc);
	gen = svc->gen;

	mutex_lock(&kn->lock);
	/* duplicate addresses in a full list */
	kmg_be(&bad[0], 7, 1);
	kmg_be(&bad[1], 8, 1);
	kmg_be(&bad[2], 7, 2);
	KUNIT_EXPECT_EQ(test, kmg_service_update(svc, &svc->cfg, bad, 3, true, &rebuilt, NULL),
			-EEXIST);
	/* existing backend */
	kmg_be(&c, 1, 5);
	KUNIT_EXPECT_EQ(test, kmg_backend_add(svc, &c, &rebuilt, NULL), -EEXIST);
	/* missing backend */
	kmg_be(&c, 9, 5);
	KUNIT_EXPECT_EQ(test, kmg_backend_del(svc, c.addr.b, &rebuilt, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, kmg_backend_change(svc, &c, &rebuilt, NULL), -ENOENT);
	/* gre-key without gre */
	kmg_be(&c, 1, 5);
	c.set = KMG_BE_SET_KEY | KMG_BE_SET_WEIGHT;
	c.keyed = true;
	c.gre_key = 42;
	KUNIT_EXPECT_EQ(test, kmg_backend_change(svc, &c, &rebuilt, NULL), -EINVAL);
	/* more backends with weight than slots */
	cfg = svc->cfg;
	cfg.table_size = 2;
	KUNIT_EXPECT_EQ(test, kmg_service_update(svc, &cfg, NULL, 0, false, &rebuilt, NULL),
			-EINVAL);
	/* netns backend cap */
	kn->max_backends = 3;
	kmg_be(&c, 5, 1);
	KUNIT_EXPECT_EQ(test, kmg_backend_add(svc, &c, &rebuilt, NULL), -ENOSPC);
	kn->max_backends = KMG_DEFAULT_MAX_BACKENDS;
	mutex_unlock(&kn->lock);

	KUNIT_EXPECT_PTR_EQ(test, kmg_cur(svc), t);
	KUNIT_EXPECT_EQ(test, svc->gen, gen);
	KUNIT_EXPECT_EQ(test, svc->nbe, 3U);
	KUNIT_EXPECT_EQ(test, svc->be[1]->weight, (u16)1);
	KUNIT_EXPECT_FALSE(test, svc->be[1]->keyed);
	KUNIT_EXPECT_EQ(test, svc->cfg.table_size, 251U);
	KUNIT_EXPECT_EQ(test, kn->nbackends, 3U);
}

/* The backend with probe id @id is @be, of service @svc. */
static void kmg_expect_id(struct kunit *test, u32 id, struct kmg_backend *be,
			  struct kmg_service *svc)
{
	KUNIT_EXPECT_EQ(test, be->id, id);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&kmg_kn(test)->backend_ids, id), be);
	KUNIT_EXPECT_PTR_EQ(test, be->svc, svc);
}

/*
 * Probe ids are the lowest free, across services; a deleted backend's id goes to the next
 * backend added; a set replaced at max-backends hands the leaving ids to the arriving ones.
 */
static void kmg_test_backend_ids(struct kunit *test)
{
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_backend_cfg b[4], c;
	struct kmg_service *a, *s2;
	bool rebuilt;
	u32 i;

	for (i = 0; i < 3; i++)
		kmg_be(&b[i], i, 1);
	a = kmg_create(test, 1, 80, b, 3, 251);
	for (i = 0; i < 2; i++)
		kmg_be(&b[i], 10 + i, 1);
	s2 = kmg_create(test, 2, 80, b, 2, 251);
	for (i = 0; i < 3; i++)
		kmg_expect_id(test, i, a->be[i], a);
	kmg_expect_id(test, 3, s2->be[0], s2);
	kmg_expect_id(test, 4, s2->be[1], s2);

	/* no ASSERT under kn->lock: a failed one would leave the mutex held */
	mutex_lock(&kn->lock);
	/* delete 10.0.0.2 (id 1): its id is free, and the next backend, anywhere, gets it */
	kmg_be(&c, 1, 1);
	KUNIT_EXPECT_EQ(test, kmg_backend_del(a, c.addr.b, &rebuilt, NULL), 0);
	KUNIT_EXPECT_NULL(test, xa_load(&kn->backend_ids, 1));
	kmg_be(&c, 20, 1);
	KUNIT_EXPECT_EQ(test, kmg_backend_add(s2, &c, &rebuilt, NULL), 0);
	kmg_expect_id(test, 1, s2->be[2], s2);
	kmg_be(&c, 21, 1);
	KUNIT_EXPECT_EQ(test, kmg_backend_add(a, &c, &rebuilt, NULL), 0);
	kmg_expect_id(test, 5, a->be[2], a);

	/*
	 * At max-backends (6), replace a's set {10.0.0.1 (0), 10.0.0.3 (2), 10.0.0.22 (5)}
	 * with {10.0.0.3, 10.0.0.31, 10.0.0.32}: the new ones take ids 0 and 5, in order.
	 */
	kn->max_backends = 6;
	kmg_be(&b[0], 2, 1);
	kmg_be(&b[1], 30, 1);
	kmg_be(&b[2], 31, 1);
	KUNIT_EXPECT_EQ(test, kmg_service_update(a, &a->cfg, b, 3, true, &rebuilt, NULL), 0);
	KUNIT_EXPECT_EQ(test, a->nbe, 3U);
	kmg_expect_id(test, 2, a->be[0], a);
	kmg_expect_id(test, 0, a->be[1], a);
	kmg_expect_id(test, 5, a->be[2], a);
	/* full: every id below max-backends is taken, and nothing more is accepted */
	kmg_be(&c, 40, 1);
	KUNIT_EXPECT_EQ(test, kmg_backend_add(s2, &c, &rebuilt, NULL), -ENOSPC);
	/* more arriving than leaving: one takes over, the other gets the lowest free id */
	kn->max_backends = 7;
	kmg_be(&b[0], 2, 1);
	kmg_be(&b[1], 50, 1);
	kmg_be(&b[2], 51, 1);
	kmg_be(&b[3], 30, 1);
	KUNIT_EXPECT_EQ(test, kmg_service_update(a, &a->cfg, b, 4, true, &rebuilt, NULL), 0);
	KUNIT_EXPECT_EQ(test, a->nbe, 4U);
	kmg_expect_id(test, 2, a->be[0], a);	/* 10.0.0.3 kept */
	kmg_expect_id(test, 0, a->be[1], a);	/* 10.0.0.31 kept */
	kmg_expect_id(test, 5, a->be[2], a);	/* 10.0.0.51 took 10.0.0.32's */
	kmg_expect_id(test, 6, a->be[3], a);	/* 10.0.0.52: lowest free */
	KUNIT_EXPECT_EQ(test, kn->nbackends, 7U);
	mutex_unlock(&kn->lock);
}

/* Removing one of 100 backends at M = 65537 moves at most 1/N + 1% of the slots. */
static void kmg_test_remove_disruption(struct kunit *test)
{
	const u32 n = 100, size = 65537;
	struct kmg_backend_cfg *b = kunit_kcalloc(test, n, sizeof(*b), GFP_KERNEL);
	u32 *before = kunit_kcalloc(test, size, sizeof(*before), GFP_KERNEL);
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service *svc;
	struct kmg_table *t;
	u32 i, moved = 0;
	bool rebuilt;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, before);
	for (i = 0; i < n; i++)
		kmg_be(&b[i], i, 1);
	svc = kmg_create(test, 1, 80, b, n, size);
	t = kmg_cur(svc);
	for (i = 0; i < size; i++)
		before[i] = kmg_addr_of(t, i);
	mutex_lock(&kn->lock);
	KUNIT_ASSERT_EQ(test, kmg_backend_del(svc, b[42].addr.b, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);
	/* the old table is now the previous one, kept for the migration window */
	KUNIT_EXPECT_PTR_EQ(test, rcu_dereference_protected(svc->prev, true), t);
	t = kmg_cur(svc);
	for (i = 0; i < size; i++) {
		KUNIT_EXPECT_NE(test, kmg_addr_of(t, i), 0x0a000000U + 43);
		moved += before[i] != kmg_addr_of(t, i);
	}
	kunit_info(test, "moved %u of %u slots (%u were the removed backend's)", moved, size,
		   size / n);
	KUNIT_EXPECT_LE(test, (u64)moved * 100 * n, (u64)size * (100 + n));
}

/* The previous table is retired when the window ends. */
static void kmg_test_retire(struct kunit *test)
{
	struct kmg_backend_cfg b[2];
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service_cfg cfg;
	struct kmg_service *svc;
	bool rebuilt;
	int i;

	kmg_be(&b[0], 0, 1);
	kmg_be(&b[1], 1, 1);
	svc = kmg_create(test, 1, 80, b, 1, 251);
	cfg = svc->cfg;
	cfg.window_ms = 200;
	mutex_lock(&kn->lock);
	KUNIT_ASSERT_EQ(test, kmg_service_update(svc, &cfg, b, 2, true, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(svc->prev));
	for (i = 0; i < 100 && rcu_access_pointer(svc->prev); i++)
		msleep(100);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(svc->prev));

	/* A static ramp below 100% holds the previous table until it is raised. */
	cfg.ramp_pct = 50;
	cfg.window_ms = 0;
	mutex_lock(&kn->lock);
	KUNIT_ASSERT_EQ(test, kmg_service_update(svc, &cfg, b, 1, true, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);
	msleep(300);
	KUNIT_EXPECT_NOT_NULL(test, rcu_access_pointer(svc->prev));
	cfg.ramp_pct = 100;
	mutex_lock(&kn->lock);
	KUNIT_ASSERT_EQ(test, kmg_service_update(svc, &cfg, NULL, 0, false, &rebuilt, NULL), 0);
	mutex_unlock(&kn->lock);
	KUNIT_EXPECT_FALSE(test, rebuilt);
	for (i = 0; i < 100 && rcu_access_pointer(svc->prev); i++)
		msleep(100);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(svc->prev));
}

/* Exact services win over port and protocol wildcards; other addresses miss. */
static void kmg_test_lookup(struct kunit *test)
{
	struct kmg_net *kn = kmg_kn(test);
	struct kmg_service *exact, *anyport, *anyproto, *s;
	struct kmg_service_cfg cfg;
	struct kmg_svc_key key;
	__be32 vip = htonl(0xc0000201), other = htonl(0xc0000202);

	kmg_service_cfg_default(&cfg);
	cfg.table_size = 251;
	mutex_lock(&kn->lock);
	kmg_key(&key, 1, IPPROTO_TCP, 80);
	KUNIT_ASSERT_EQ(test, kmg_service_create(kn, &key, &cfg, NULL, 0, &exact, NULL), 0);
	kmg_key(&key, 1, IPPROTO_TCP, 0);
	KUNIT_ASSERT_EQ(test, kmg_service_create(kn, &key, &cfg, NULL, 0, &anyport, NULL), 0);
	kmg_key(&key, 1, 0, 0);
	KUNIT_ASSERT_EQ(test, kmg_service_create(kn, &key, &cfg, NULL, 0, &anyproto, NULL), 0);
	KUNIT_EXPECT_EQ(test, kmg_service_create(kn, &key, &cfg, NULL, 0, &s, NULL), -EEXIST);
	mutex_unlock(&kn->lock);

	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, kmg_service_lookup_rcu(kn, AF_INET, &vip, IPPROTO_TCP,
							 htons(80)), exact);
	KUNIT_EXPECT_PTR_EQ(test, kmg_service_lookup_rcu(kn, AF_INET, &vip, IPPROTO_TCP,
							 htons(443)), anyport);
	KUNIT_EXPECT_PTR_EQ(test, kmg_service_lookup_rcu(kn, AF_INET, &vip, IPPROTO_UDP,
							 htons(53)), anyproto);
	KUNIT_EXPECT_NULL(test, kmg_service_lookup_rcu(kn, AF_INET, &other, IPPROTO_TCP,
						       htons(80)));
	rcu_read_unlock();

	mutex_lock(&kn->lock);
	kmg_service_destroy(anyport);
	mutex_unlock(&kn->lock);
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, kmg_service_lookup_rcu(kn, AF_INET, &vip, IPPROTO_TCP,
							 htons(443)), anyproto);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, kn->nservices, 2U);
}

static struct kunit_case kmg_service_cases[] = {
	KUNIT_CASE(kmg_test_order_independent),
	KUNIT_CASE(kmg_test_drain_down_no_slots),
	KUNIT_CASE(kmg_test_atomic_update),
	KUNIT_CASE(kmg_test_all_or_nothing),
	KUNIT_CASE(kmg_test_backend_ids),
	KUNIT_CASE(kmg_test_remove_disruption),
	KUNIT_CASE(kmg_test_retire),
	KUNIT_CASE(kmg_test_lookup),
	{}
};

static struct kunit_suite kmg_service_suite = {
	.name = "kmaglev_service",
	.init = kmg_kunit_netns_init,
	.exit = kmg_kunit_netns_exit,
	.test_cases = kmg_service_cases,
};

kunit_test_suites(&kmg_service_suite);
