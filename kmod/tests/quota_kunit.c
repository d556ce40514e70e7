// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-source quotas (kmod/quota.c): the GCRA step as a token bucket (burst, refill,
 * long-run rate), source prefix keys, and the table in the initial netns (buckets per
 * source, the action's counter and the RSTs' own rate, quota-max, which settings changes
 * keep buckets and which empty the table, a debt cut to a smaller limit).
 */
#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kmaglev.h>
#include <linux/socket.h>

#include "../netns.h"
#include "../parse.h"
#include "../quota.h"
#include "../service.h"
#include "kunit.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define MS	1000000ULL

/* New flows a bucket of @rate/s and @burst lets through from @n tries @step_ns apart. */
static u32 kmg_test_accepts(u32 rate, u32 burst, u32 n, u64 step_ns)
{
	u64 interval = NSEC_PER_SEC / rate, limit = interval * burst;
	u64 now = 1000 * NSEC_PER_SEC, tat = now, next;
	u32 i, ok = 0;

	for (i = 0; i < n; i++, now += step_ns) {
		next = kmg_quota_gcra(tat, now, interval, limit);
		if (next) {
			tat = next;
			ok++;
		}
	}
	return ok;
}

static void kmg_test_gcra_burst(struct kunit *test)
{
	u64 interval = 100 * MS, limit = 5 * interval, now = 1000 * NSEC_PER_SEC;
	u64 tat = now;
	int i;

	/* a full bucket: burst new flows at once, then none */
	for (i = 0; i < 5; i++) {
		tat = kmg_quota_gcra(tat, now, interval, limit);
		KUNIT_ASSERT_NE(test, tat, 0ULL);
	}
	KUNIT_EXPECT_EQ(test, kmg_quota_gcra(tat, now, interval, limit), 0ULL);
	KUNIT_EXPECT_EQ(test, kmg_quota_gcra(tat, now + interval - 1, interval, limit), 0ULL);
	/* one interval later: one token */
	tat = kmg_quota_gcra(tat, now + interval, interval, limit);
	KUNIT_EXPECT_NE(test, tat, 0ULL);
	KUNIT_EXPECT_EQ(test, kmg_quota_gcra(tat, now + interval, interval, limit), 0ULL);
	/* a long idle time refills to the burst, never beyond it */
	now += 3600 * NSEC_PER_SEC;
	for (i = 0; i < 5; i++) {
		tat = kmg_quota_gcra(tat, now, interval, limit);
		KUNIT_ASSERT_NE(test, tat, 0ULL);
	}
	KUNIT_EXPECT_EQ(test, kmg_quota_gcra(tat, now, interval, limit), 0ULL);
}

static void kmg_test_gcra_rate(struct kunit *test)
{
	/* 10 s of tries every ms at 100/s, burst 20: the burst plus 100 a second */
	KUNIT_EXPECT_EQ(test, kmg_test_accepts(100, 20, 10000, MS), 20U + 1000U - 1U);
	/* tries slower than the rate all pass */
	KUNIT_EXPECT_EQ(test, kmg_test_accepts(100, 1, 1000, 11 * MS), 1000U);
	/* 10x the rate from one source: a tenth passes (and the burst) */
	KUNIT_EXPECT_EQ(test, kmg_test_accepts(1000, 1000, 100000, 100000), 1000U + 10000U - 1U);
	/* the highest rate and burst the spec allows */
	KUNIT_EXPECT_EQ(test, kmg_test_accepts(KMAGLEV_QUOTA_RATE_MAX, KMAGLEV_QUOTA_BURST_MAX,
					       100, 0), 100U);
}

static void kmg_test_pkt4(struct kmg_pkt *p, u32 saddr, u8 proto)
{
	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	p->proto = proto;
	p->tcp_flags = 0x02;
	p->saddr.v4 = htonl(saddr);
	p->daddr.v4 = htonl(0xc0000201);
}

/* The key of a new flow from @saddr (IPv4 in the last word only when @v4). */
static noinline void kmg_test_key(struct kmg_quota_key *k, bool v4, const u32 *saddr,
				  u32 plen, u32 scope, u32 svc_id)
{
	struct kmg_quota_set set = { .prefix4 = plen, .prefix6 = plen, .scope = scope };
	struct kmg_service svc = { .id = svc_id };
	struct kmg_pkt p;
	int i;

	memset(&p, 0, sizeof(p));
	p.family = v4 ? AF_INET : AF_INET6;
	if (v4)
		p.saddr.v4 = htonl(saddr[0]);
	else
		for (i = 0; i < 4; i++)
			p.saddr.v6.s6_addr32[i] = htonl(saddr[i]);
	kmg_quota_key_make(k, &set, &svc, &p);
}

static const struct kmg_test_key_case {
	bool v4;
	u32 saddr[4];
	u32 plen;
	u32 scope;
	u32 want[4];	/* the prefix, host order */
} kmg_test_key_cases[] = {
	{ true, { 0x0a010203 }, 24, 0, { 0x0a010200 } },
	{ true, { 0x0a0102fe }, 24, 0, { 0x0a010200 } },
	{ true, { 0x0a010303 }, 24, 0, { 0x0a010300 } },
	{ true, { 0x0a010203 }, 32, 1, { 0x0a010203 } },
	{ true, { 0x8a010203 }, 1, 0, { 0x80000000 } },
	{ false, { 0x20010db8, 0x12345678, 0x9abcdef0, 0x11111111 }, 64, 0,
	  { 0x20010db8, 0x12345678 } },
	{ false, { 0x20010db8, 0x12345678, 0x9abcdef0, 0x11111111 }, 65, 1,
	  { 0x20010db8, 0x12345678, 0x80000000 } },
	{ false, { 0x20010db8, 0x12345678, 0x9abcdef0, 0x11111111 }, 128, 0,
	  { 0x20010db8, 0x12345678, 0x9abcdef0, 0x11111111 } },
	{ false, { 0x20010db8, 0x12345678, 0x9abcdef0, 0x11111111 }, 1, 0, { 0 } },
	{ false, { 0xa0010db8, 0x12345678, 0x9abcdef0, 0x11111111 }, 33, 0,
	  { 0xa0010db8 } },
};

/* Keys: the prefix with its host bits zero, its length, the service in scope service. */
static void kmg_test_keys(struct kunit *test)
{
	const struct kmg_test_key_case *c;
	struct kmg_quota_key k, want;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(kmg_test_key_cases); i++) {
		c = &kmg_test_key_cases[i];
		kmg_test_key(&k, c->v4, c->saddr, c->plen, c->scope, 7);
		memset(&want, 0, sizeof(want));
		for (j = 0; j < (c->v4 ? 1 : 4); j++)
			want.addr[j] = htonl(c->want[j]);
		want.family = c->v4 ? AF_INET : AF_INET6;
		want.plen = c->plen;
		want.scoped = c->scope;
		want.svc_id = c->scope ? 7 : 0;
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&k, &want, sizeof(k)), 0, "case %u", i);
	}
}

/* Apply quota settings to the initial netns, as config-set does. */
static int kmg_test_set(struct kmg_net *kn, const struct kmg_quota_set *set)
{
	struct kmg_quota_cfg *cfg;
	int err;

	mutex_lock(&kn->lock);
	err = kmg_quota_prepare(kn, set, &cfg, NULL, NULL);
	if (!err)
		kmg_quota_commit(kn, set, cfg);
	mutex_unlock(&kn->lock);
	return err;
}

/* One new flow from @saddr: over quota? (*why: the counter) */
static bool kmg_test_over(struct kmg_net *kn, const struct kmg_service *svc, u32 saddr,
			  u8 proto, enum kmg_counter *why)
{
	const struct kmg_quota_cfg *cfg;
	struct kmg_pkt p;
	bool over = false;

	kmg_test_pkt4(&p, saddr, proto);
	local_bh_disable();
	rcu_read_lock();
	cfg = rcu_dereference(kn->quotas.cfg);
	if (cfg)
		over = kmg_quota_over(kn, cfg, svc, &p, why);
	rcu_read_unlock();
	local_bh_enable();
	return over;
}

/* New flows from @saddr, @n of them: how many were over quota (*why: the last one's counter) */
static noinline int kmg_test_overs(struct kmg_net *kn, const struct kmg_service *svc,
				   u32 saddr, u8 proto, int n, enum kmg_counter *why)
{
	int i, over = 0;

	for (i = 0; i < n; i++)
		over += kmg_test_over(kn, svc, saddr, proto, why);
	return over;
}

/* RSTs come at the quota's rate and burst too: 2 more, then drops; UDP is dropped. */
static noinline void kmg_test_rsts(struct kunit *test, struct kmg_net *kn,
				   const struct kmg_service *svc)
{
	enum kmg_counter why = KMG_C_MAX;
	int over;

	over = kmg_test_overs(kn, svc, 0x0a000001, IPPROTO_TCP, 2, &why);
	KUNIT_EXPECT_EQ(test, why, KMG_C_QUOTA_RST);
	over += kmg_test_overs(kn, svc, 0x0a000001, IPPROTO_TCP, 1, &why);
	KUNIT_EXPECT_EQ(test, why, KMG_C_QUOTA_DROP);
	over += kmg_test_overs(kn, svc, 0x0a000001, IPPROTO_UDP, 1, &why);
	KUNIT_EXPECT_EQ(test, why, KMG_C_QUOTA_DROP);
	KUNIT_EXPECT_EQ(test, over, 4);
}

/*
 * Buckets per source, a full table, and a change of action keeping every bucket and debt.
 * Relies on running in well under a second (rate 1): skipped, not failed, when it did not.
 */
static void kmg_test_table(struct kunit *test)
{
	struct kmg_quota_set set = { .rate = 1, .burst = 3, .prefix4 = 32, .prefix6 = 64,
				     .max = 2 };
	enum kmg_counter why1 = KMG_C_MAX, why2 = KMG_C_MAX;
	int over1, over2, over3, over4, rst;
	struct kmg_service svc = { .id = 3 };
	struct kmg_net *kn = test->priv;
	unsigned long t0 = jiffies;
	u32 n1, n2, n3;

	KUNIT_ASSERT_EQ(test, kmg_test_set(kn, &set), 0);
	/* a burst of 3, then over; another source has its own bucket */
	over1 = kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 4, &why1);
	over2 = kmg_test_overs(kn, &svc, 0x0a000002, IPPROTO_TCP, 1, &why2);
	n1 = kmg_quota_count(kn);
	/* the table is full (quota-max 2): a third source goes unchecked */
	over3 = kmg_test_overs(kn, &svc, 0x0a000003, IPPROTO_TCP, 5, &why2);
	n2 = kmg_quota_count(kn);
	/* a new action keeps the buckets, and what source 1 owes */
	set.max = 16;
	set.action = KMAGLEV_QUOTA_ACTION_RST;
	rst = kmg_test_set(kn, &set);
	if (rst == -EOPNOTSUPP) {
		kunit_info(test, "no nf_reject in this kernel: quota-action rst refused");
		set.action = KMAGLEV_QUOTA_ACTION_DROP;
		KUNIT_ASSERT_EQ(test, kmg_test_set(kn, &set), 0);
	}
	n3 = kmg_quota_count(kn);
	over4 = kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 1, &why2);
	if (!rst)
		kmg_test_rsts(test, kn, &svc);
	if (time_after(jiffies, t0 + HZ / 2))
		kunit_skip(test, "took over half a second: buckets of 1/s may have refilled");
	KUNIT_EXPECT_EQ(test, over1, 1);
	KUNIT_EXPECT_EQ(test, why1, KMG_C_QUOTA_DROP);
	KUNIT_EXPECT_EQ(test, over2, 0);
	KUNIT_EXPECT_EQ(test, n1, 2U);
	KUNIT_EXPECT_EQ(test, over3, 0);
	KUNIT_EXPECT_EQ(test, n2, 2U);
	KUNIT_EXPECT_EQ(test, n3, 2U);
	KUNIT_EXPECT_EQ(test, over4, 1);
	KUNIT_EXPECT_EQ(test, why2, rst ? KMG_C_QUOTA_DROP : KMG_C_QUOTA_RST);
}

/*
 * A smaller limit cuts what a source owes; a new scope empties the table and keys buckets by
 * service; quotas off empty it and check nothing.
 */
static void kmg_test_table_rekey(struct kunit *test)
{
	struct kmg_quota_set set = { .rate = 1, .burst = 3, .prefix4 = 32, .prefix6 = 64,
				     .max = 16 };
	struct kmg_service svc = { .id = 3 };
	struct kmg_net *kn = test->priv;
	enum kmg_counter why;

	KUNIT_ASSERT_EQ(test, kmg_test_set(kn, &set), 0);
	kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 3, &why);
	/* 1000/s, burst 1: the 3 s source 1 owes is cut to one tick's worth at its next flow */
	set.rate = 1000;
	set.burst = 1;
	KUNIT_ASSERT_EQ(test, kmg_test_set(kn, &set), 0);
	KUNIT_EXPECT_EQ(test, kmg_quota_count(kn), 1U);
	KUNIT_EXPECT_EQ(test, kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 1, &why), 1);
	msleep(100);
	KUNIT_EXPECT_EQ(test, kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 1, &why), 0);

	/* scope service: the table emptied, one bucket per source and service */
	set.scope = KMAGLEV_QUOTA_SCOPE_SERVICE;
	KUNIT_ASSERT_EQ(test, kmg_test_set(kn, &set), 0);
	KUNIT_EXPECT_EQ(test, kmg_quota_count(kn), 0U);
	kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 1, &why);
	svc.id = 4;
	kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 1, &why);
	KUNIT_EXPECT_EQ(test, kmg_quota_count(kn), 2U);

	/* off: the table emptied, nothing checked */
	set.rate = 0;
	KUNIT_ASSERT_EQ(test, kmg_test_set(kn, &set), 0);
	KUNIT_EXPECT_EQ(test, kmg_quota_count(kn), 0U);
	KUNIT_EXPECT_EQ(test, kmg_test_overs(kn, &svc, 0x0a000001, IPPROTO_TCP, 5, &why), 0);
	KUNIT_EXPECT_EQ(test, kmg_quota_count(kn), 0U);
}

static void kmg_test_table_exit(struct kunit *test)
{
	struct kmg_quota_set set = { .prefix4 = KMG_QUOTA_DEFAULT_PREFIX4,
				     .prefix6 = KMG_QUOTA_DEFAULT_PREFIX6,
				     .max = KMG_QUOTA_DEFAULT_MAX };
	struct kmg_net *kn = test->priv;

	if (kn)
		kmg_test_set(kn, &set);
	kmg_kunit_netns_exit(test);
}

static struct kunit_case kmg_quota_cases[] = {
	KUNIT_CASE(kmg_test_gcra_burst),
	KUNIT_CASE(kmg_test_gcra_rate),
	KUNIT_CASE(kmg_test_keys),
	KUNIT_CASE(kmg_test_table),
	KUNIT_CASE(kmg_test_table_rekey),
	{}
};

static struct kunit_suite kmg_quota_suite = {
	.name = "kmaglev_quota",
	.init = kmg_kunit_netns_init,
	.exit = kmg_test_table_exit,
	.test_cases = kmg_quota_cases,
};

kunit_test_suites(&kmg_quota_suite);
