// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for "kmaglev simulate" in offline mode, with the kernel's table builder
 * (kmod/maglev.c): balance, weights, disruption of removals and additions, independence of
 * the order backends are given in, and no movement for a proposal that changes nothing.
 */
#include <arpa/inet.h>
#include <math.h>

#include "helpers.h"
#include "lib/args.h"
#include "cli/simulate.h"

/* Parse "simulate ..." arguments and run the offline simulation. */
static int sim(const char *line, struct kmg_sim_result *r)
{
	struct targv t = targv(line);
	struct kmg_sim_args sa;
	int ret = kmg_simulate_parse(t.argc, t.argv, &sa);

	targv_free(&t);
	if (!ret) {
		assert_false(sa.live);
		ret = kmg_simulate_offline(&sa, r);
	}
	kmg_sim_args_free(&sa);
	return ret;
}

/* "backend 10.0.0.1 backend 10.0.0.2 ..." with @n backends and weight @w (0: none given). */
static char *backends(unsigned int n, unsigned int w)
{
	char *s = calloc(n, 48), *p = s;
	unsigned int i;

	assert_non_null(s);
	for (i = 0; i < n; i++) {
		p += sprintf(p, " backend 10.%u.%u.%u", i >> 16, (i >> 8) & 0xff, i & 0xff);
		if (w)
			p += sprintf(p, " weight %u", w);
	}
	return s;
}

static void check_full(const struct kmg_sim_table *t)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < t->n; i++)
		sum += t->count[i];
	assert_int_equal(sum, t->n ? t->size : 0);
	for (i = 0; i < t->size; i++)
		assert_true(t->n ? t->slots[i] < t->n : t->slots[i] == KMG_SLOT_EMPTY);
}

static void test_balance_equal(void **state)
{
	static const unsigned int ns[] = { 1, 2, 3, 7, 10, 100, 251 };
	static const unsigned int sizes[] = { 251, 65537 };
	struct kmg_sim_result r;
	char line[64 * 256];
	size_t i, j;

	for (j = 0; j < KMG_ARRAY_SIZE(sizes); j++) {
		for (i = 0; i < KMG_ARRAY_SIZE(ns); i++) {
			char *b = backends(ns[i], 0);

			if (ns[i] > sizes[j]) {
				free(b);
				continue;
			}
			snprintf(line, sizeof(line), "table-size %u%s", sizes[j], b);
			free(b);
			assert_int_equal(sim(line, &r), 0);
			assert_int_equal(r.tbefore.n, ns[i]);
			assert_int_equal(r.tbefore.size, sizes[j]);
			check_full(&r.tbefore);
			/* equal weights: every backend has floor or ceil of M / N */
			assert_true(r.tbefore.max_slots - r.tbefore.min_slots <= 1);
			assert_int_equal(r.tbefore.min_slots, sizes[j] / ns[i]);
			kmg_sim_result_free(&r);
		}
	}
}

static void test_weights_1_10(void **state)
{
	struct kmg_sim_result r;
	const struct kmg_sim_row *w;
	unsigned int i;

	assert_int_equal(sim("table-size 65537 backend 10.0.0.1 weight 1 backend 10.0.0.2 weight 10 "
			     "backend 10.0.0.3 weight 10 backend 10.0.0.4 weight 1", &r), 0);
	check_full(&r.tbefore);
	assert_int_equal(r.nrows, 4);
	for (i = 0; i < r.nrows; i++) {
		double exact;

		w = &r.rows[i];
		exact = 65537.0 * w->before.weight / 22;
		/* proportional to within one slot */
		assert_true(fabs(w->slots_before - exact) < 1.0);
		assert_float_equal(w->expected_after, w->before.weight / 22.0, 1e-6);
	}
	/* 1:10 exactly, up to the rounding of each to a whole slot */
	assert_true(fabs((double)r.rows[1].slots_before / r.rows[0].slots_before - 10) < 0.01);
	kmg_sim_result_free(&r);

	/* extreme: 1 against 65535 in the smallest table; shares 0.004 and 250.996 slots */
	assert_int_equal(sim("table-size 251 backend 10.0.0.1 weight 1 backend 10.0.0.2 weight 65535",
			     &r), 0);
	assert_int_equal(r.rows[0].slots_before, 0);
	assert_int_equal(r.rows[1].slots_before, 251);
	assert_int_equal(r.tbefore.min_slots, 0);
	kmg_sim_result_free(&r);
}

static void test_remove_one(void **state)
{
	char line[4096], *b = backends(10, 0);
	struct kmg_sim_result r;
	uint32_t removed;

	snprintf(line, sizeof(line), "table-size 65537%s then backend del 10.0.0.4", b);
	free(b);
	assert_int_equal(sim(line, &r), 0);
	assert_int_equal(r.after.n, 9);
	check_full(&r.tafter);
	assert_true(r.tafter.max_slots - r.tafter.min_slots <= 1);
	removed = r.rows[4].slots_before;
	assert_false(r.rows[4].after_exists);
	assert_int_equal(r.rows[4].slots_after, 0);
	assert_false(r.moved.estimated);
	/* every flow of the removed backend moves, and little else: about 1/N */
	assert_true(r.moved.slots >= removed);
	assert_true(r.moved.fraction >= 0.1 - 1e-4);
	assert_true(r.moved.fraction <= 0.12);
	assert_float_equal(r.moved.fraction, (double)r.moved.slots / 65537, 1e-9);
	kmg_sim_result_free(&r);
}

static void test_add_one(void **state)
{
	char line[4096], *b = backends(10, 0);
	struct kmg_sim_result r;

	snprintf(line, sizeof(line), "table-size 65537%s then backend add 10.0.1.0", b);
	free(b);
	assert_int_equal(sim(line, &r), 0);
	assert_int_equal(r.after.n, 11);
	assert_true(r.rows[10].after_exists && !r.rows[10].before_exists);
	/* the new backend's share moves to it: about 1/(N+1) */
	assert_true(r.moved.slots >= r.rows[10].slots_after);
	assert_true(r.moved.fraction >= 1.0 / 11 - 1e-4);
	assert_true(r.moved.fraction <= 1.2 / 11);
	kmg_sim_result_free(&r);
}

static void test_order_independent(void **state)
{
	struct kmg_sim_result a, b;

	assert_int_equal(sim("table-size 4093 seed 000102030405060708090a0b0c0d0e0f "
			     "backend 10.0.0.1 weight 3 backend 2001:db8::2 backend 10.0.0.3 "
			     "backend 192.0.2.200 weight 7 backend 2001:db8::1 state drain", &a), 0);
	assert_int_equal(sim("backend 2001:db8::1 state drain backend 192.0.2.200 weight 7 "
			     "backend 10.0.0.3 table-size 4093 backend 2001:db8::2 "
			     "seed 000102030405060708090a0b0c0d0e0f backend 10.0.0.1 weight 3", &b), 0);
	assert_int_equal(a.tbefore.digest, b.tbefore.digest);
	assert_memory_equal(a.tbefore.slots, b.tbefore.slots, 4093 * sizeof(uint16_t));
	assert_memory_equal(a.tbefore.in, b.tbefore.in, a.tbefore.n * sizeof(*a.tbefore.in));
	/* IPv4 sorts before IPv6 (as ::ffff:0:0/96), the drained backend has no slots */
	assert_int_equal(a.tbefore.n, 4);
	assert_int_equal(a.tbefore.in[0].addr[10], 0xff);
	assert_int_equal(a.tbefore.in[3].addr[0], 0x20);
	assert_int_equal(a.nrows, 5);
	kmg_sim_result_free(&a);
	kmg_sim_result_free(&b);
}

static void test_unchanged_moves_nothing(void **state)
{
	char line[4096], *b = backends(5, 2);
	static const char *const changes[] = {
		"",
		" then",
		" then backend set 10.0.0.2 weight 2",
		" then backend add 10.0.9.9 weight 0",
		" then backend add 10.0.9.9 state drain",
		" then backend set 10.0.0.1 weight 9 backend set 10.0.0.1 weight 2",
		" then backend del 10.0.0.3 backend add 10.0.0.3 weight 2",
		" then table-size 65537",
	};
	struct kmg_sim_result r;
	size_t i;

	for (i = 0; i < KMG_ARRAY_SIZE(changes); i++) {
		snprintf(line, sizeof(line), "%s%s", b, changes[i]);
		assert_int_equal(sim(line, &r), 0);
		assert_int_equal(r.moved.slots, 0);
		assert_float_equal(r.moved.fraction, 0, 0);
		assert_false(r.moved.estimated);
		assert_int_equal(r.tbefore.digest, r.tafter.digest);
		kmg_sim_result_free(&r);
	}
	free(b);
}

static void test_drain_and_weight(void **state)
{
	struct kmg_sim_result r;

	assert_int_equal(sim("table-size 1009 backend 10.0.0.1 backend 10.0.0.2 backend 10.0.0.3 "
			     "backend 10.0.0.4 then backend drain 10.0.0.2", &r), 0);
	assert_int_equal(r.rows[1].after.state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(r.rows[1].slots_after, 0);
	assert_float_equal(r.rows[1].expected_after, 0, 0);
	assert_true(r.moved.slots >= r.rows[1].slots_before);
	assert_int_equal(r.tafter.n, 3);
	kmg_sim_result_free(&r);

	/* doubling one weight takes slots from the others only */
	assert_int_equal(sim("table-size 1009 backend 10.0.0.1 backend 10.0.0.2 backend 10.0.0.3 "
			     "then backend set 10.0.0.3 weight 2", &r), 0);
	assert_true(fabs(r.rows[2].slots_after - 1009.0 / 2) < 1);
	assert_true(r.moved.slots >= r.rows[2].slots_after - r.rows[2].slots_before);
	kmg_sim_result_free(&r);
}

static void test_table_size_change(void **state)
{
	struct kmg_sim_result r;
	double same = 0;
	unsigned int i;

	assert_int_equal(sim("table-size 251 backend 10.0.0.1 backend 10.0.0.2 backend 10.0.0.3 "
			     "then table-size 65537", &r), 0);
	assert_true(r.moved.estimated);
	assert_int_equal(r.tafter.size, 65537);
	for (i = 0; i < r.nrows; i++)
		same += r.rows[i].share_before * r.rows[i].share_after;
	assert_float_equal(r.moved.fraction, 1 - same, 1e-9);
	assert_true(fabs(r.moved.fraction - 2.0 / 3) < 0.01);
	kmg_sim_result_free(&r);
}

static void test_empty_sets(void **state)
{
	struct kmg_sim_result r;

	assert_int_equal(sim("table-size 251", &r), 0);
	assert_int_equal(r.tbefore.n, 0);
	check_full(&r.tbefore);
	assert_int_equal(r.moved.slots, 0);
	kmg_sim_result_free(&r);

	/* from no backend to one: every slot changes */
	assert_int_equal(sim("table-size 251 then backend add 10.0.0.1", &r), 0);
	assert_int_equal(r.moved.slots, 251);
	assert_float_equal(r.moved.fraction, 1, 0);
	kmg_sim_result_free(&r);
}

/*
 * The userspace build of kmod/maglev.c hashes like the kernel's: the reference SipHash-2-4
 * vector (key 00..0f, message 00..0e), and the permutation answers that the KUnit suite
 * kmaglev_maglev checks in the kernel (kmg_test_siphash_known_answer).
 */
static void test_known_answers(void **state)
{
	uint8_t seed[KMG_SEED_LEN], zero[KMG_SEED_LEN] = { 0 }, msg[15];
	uint8_t addr[KMG_ADDR_LEN] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 1 };
	uint32_t off, skip, i;

	for (i = 0; i < sizeof(seed); i++)
		seed[i] = i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = i;
	assert_true(kmg_mg_siphash(msg, sizeof(msg), seed) == 0xa129ca6149be45e5ULL);
	kmg_maglev_perm(addr, seed, 65537, &off, &skip);
	assert_int_equal(off, 39100);
	assert_int_equal(skip, 36862);
	kmg_maglev_perm(addr, zero, 65537, &off, &skip);
	assert_int_equal(off, 47094);
	assert_int_equal(skip, 30024);
}

static void test_digest_is_kernel_digest(void **state)
{
	static const uint8_t seed[16] = { 1, 2, 3 };
	struct kmg_mg_in in[2] = { 0 };
	struct kmg_sim_result r;
	uint16_t *slots = malloc(251 * sizeof(*slots));
	void *scratch = malloc(kmg_maglev_scratch_size(251, 2));

	/* what kmaglev.ko builds: IPv4-mapped addresses, sorted, positive weights */
	in[0].addr[10] = in[0].addr[11] = 0xff;
	inet_pton(AF_INET, "10.0.0.1", &in[0].addr[12]);
	in[0].weight = 2;
	inet_pton(AF_INET6, "2001:db8::1", in[1].addr);
	in[1].weight = 1;
	assert_int_equal(kmg_maglev_build(slots, 251, in, 2, seed, scratch), 0);
	assert_int_equal(sim("table-size 251 seed 01020300000000000000000000000000 "
			     "backend 2001:db8::1 backend 10.0.0.1 weight 2 backend 10.0.0.9 weight 0",
			     &r), 0);
	assert_memory_equal(r.tbefore.slots, slots, 251 * sizeof(*slots));
	assert_int_equal(r.tbefore.digest, kmg_maglev_digest(slots, 251, in, 2));
	kmg_sim_result_free(&r);

	/* another seed, another table */
	assert_int_equal(sim("table-size 251 backend 2001:db8::1 backend 10.0.0.1 weight 2", &r), 0);
	assert_int_not_equal(r.tbefore.digest, kmg_maglev_digest(slots, 251, in, 2));
	kmg_sim_result_free(&r);
	free(slots);
	free(scratch);
}

/* The kernel's replies for a service with three backends, one drained. */
static void live_replies(uint64_t digest, const uint8_t *seed, struct kmg_msgs *sl,
			 struct kmg_msgs *bl, struct kmg_msgs *tl)
{
	static const char *const addrs[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3" };
	static const uint32_t weights[] = { 1, 2, 1 };
	static const uint32_t states[] = {
		KMAGLEV_BACKEND_STATE_UP, KMAGLEV_BACKEND_STATE_UP, KMAGLEV_BACKEND_STATE_DRAIN,
	};
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct in_addr v4;
	unsigned int i;

	nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ID, 1);
	inet_pton(AF_INET, "192.0.2.10", &v4);
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_ADDR4, 4, &v4);
	mnl_attr_put_u8(nlh, KMAGLEV_A_SERVICE_PROTO, IPPROTO_TCP);
	mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_PORT, 80);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 251);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_GENERATION, 5);
	if (seed)
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, 16, seed);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_collect_cb(nlh, sl), MNL_CB_OK);
	for (i = 0; i < 3; i++) {
		nlh = kmg_req_start(buf, KMAGLEV_CMD_BACKEND_GET, 0);
		n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ID, 1);
		mnl_attr_nest_end(nlh, n);
		n = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND);
		inet_pton(AF_INET, addrs[i], &v4);
		mnl_attr_put(nlh, KMAGLEV_A_BACKEND_ADDR4, 4, &v4);
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, weights[i]);
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, states[i]);
		mnl_attr_nest_end(nlh, n);
		assert_int_equal(kmg_collect_cb(nlh, bl), MNL_CB_OK);
	}
	nlh = kmg_req_start(buf, KMAGLEV_CMD_TABLE_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_TABLE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_TABLE_SIZE, 251);
	mnl_attr_put_u32(nlh, KMAGLEV_A_TABLE_GENERATION, 5);
	mnl_attr_put_u64(nlh, KMAGLEV_A_TABLE_DIGEST, digest);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_collect_cb(nlh, tl), MNL_CB_OK);
}

static int live(const char *line, uint64_t digest, const uint8_t *seed,
		struct kmg_sim_info *info, struct kmg_sim_result *r)
{
	struct kmg_msgs sl = { 0 }, bl = { 0 }, tl = { 0 };
	struct targv t = targv(line);
	struct kmg_sim_args sa;
	int ret;

	assert_int_equal(kmg_simulate_parse(t.argc, t.argv, &sa), 0);
	targv_free(&t);
	assert_true(sa.live);
	live_replies(digest, seed, &sl, &bl, &tl);
	ret = kmg_simulate_live(&sa, &sl.m[0].svc, &bl, &tl.m[0].table, info, r);
	kmg_sim_args_free(&sa);
	kmg_msgs_free(&sl);
	kmg_msgs_free(&bl);
	kmg_msgs_free(&tl);
	return ret;
}

static void test_live(void **state)
{
	static const uint8_t seed[16] = { 0xaa, 0xbb };
	struct kmg_sim_result off, r;
	struct kmg_sim_info info;
	uint64_t digest, seeded;

	/* the kernel's table as this tool builds it */
	assert_int_equal(sim("table-size 251 backend 10.0.0.3 state drain backend 10.0.0.2 weight 2 "
			     "backend 10.0.0.1", &off), 0);
	digest = off.tbefore.digest;
	kmg_sim_result_free(&off);
	assert_int_equal(sim("table-size 251 seed aabb0000000000000000000000000000 "
			     "backend 10.0.0.3 state drain backend 10.0.0.2 weight 2 backend 10.0.0.1",
			     &off), 0);
	seeded = off.tbefore.digest;
	kmg_sim_result_free(&off);
	assert_int_not_equal(digest, seeded);

	/* seed not disclosed, all zero: the rebuilt table matches */
	assert_int_equal(live("192.0.2.10:80 backend del 10.0.0.1", digest, NULL, &info, &r), 0);
	assert_string_equal(info.seed_source, "zero");
	assert_true(info.has_kernel_digest);
	assert_true(info.digest_match);
	assert_int_equal(info.kernel_gen, 5);
	assert_int_equal(r.before.n, 3);
	assert_int_equal(r.tbefore.n, 2);
	assert_int_equal(r.after.n, 2);
	assert_int_equal(r.tafter.n, 1);
	assert_int_equal(r.tafter.max_slots, 251);
	/* 10.0.0.2 had 2/3 of the slots and keeps them: 1/3 moves */
	assert_int_equal(r.moved.slots, r.rows[0].slots_before);
	kmg_sim_result_free(&r);

	/* the kernel gives its seed (CAP_NET_ADMIN) */
	assert_int_equal(live("id 1", seeded, seed, &info, &r), 0);
	assert_string_equal(info.seed_source, "kernel");
	assert_true(info.digest_match);
	assert_int_equal(r.moved.slots, 0);
	kmg_sim_result_free(&r);

	/* a secret seed not disclosed: the tables differ, and the hint says why */
	assert_int_equal(live("id 1", seeded, NULL, &info, &r), 0);
	assert_false(info.digest_match);
	assert_non_null(strstr(info.mismatch_hint, "did not disclose the service's seed"));
	kmg_sim_result_free(&r);

	/* ... given on the command line, it matches again */
	assert_int_equal(live("id 1 seed aabb0000000000000000000000000000 table-size 257", seeded,
			      NULL, &info, &r), 0);
	assert_string_equal(info.seed_source, "given");
	assert_true(info.digest_match);
	assert_true(r.moved.estimated);
	kmg_sim_result_free(&r);

	/* changes are checked against the kernel's backends */
	assert_int_equal(live("id 1 backend add 10.0.0.2", digest, NULL, &info, &r), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "backend add 10.0.0.2: the service already has it");
}

static void test_parse(void **state)
{
	struct kmg_sim_args sa;
	struct targv t;

	t = targv("192.0.2.10:80/tcp seed 00112233445566778899aabbccddeeff backend add 10.0.0.5 "
		  "weight 3 backend del 10.0.0.1 backend set 10.0.0.2 state down table-size 251");
	assert_int_equal(kmg_simulate_parse(t.argc, t.argv, &sa), 0);
	targv_free(&t);
	assert_true(sa.live);
	assert_int_equal(sa.svc.key.port, 80);
	assert_true(sa.has_seed);
	assert_int_equal(sa.seed[1], 0x11);
	assert_int_equal(sa.nch, 4);
	assert_int_equal(sa.ch[0].op, KMG_SIM_ADD);
	assert_true(sa.ch[0].has_weight);
	assert_int_equal(sa.ch[0].weight, 3);
	assert_int_equal(sa.ch[1].op, KMG_SIM_DEL);
	assert_int_equal(sa.ch[2].op, KMG_SIM_SET);
	assert_false(sa.ch[2].has_weight);
	assert_int_equal(sa.ch[2].state, KMAGLEV_BACKEND_STATE_DOWN);
	assert_int_equal(sa.ch[3].op, KMG_SIM_TABLE_SIZE);
	assert_int_equal(sa.ch[3].size, 251);
	kmg_sim_args_free(&sa);

	t = targv("id 4 then table-size 257");
	assert_int_equal(kmg_simulate_parse(t.argc, t.argv, &sa), 0);
	targv_free(&t);
	assert_true(sa.live);
	assert_int_equal(sa.svc.id, 4);
	assert_int_equal(sa.nch, 1);
	kmg_sim_args_free(&sa);

	t = targv("backend 10.0.0.1 weight 5 state drain then backend add 10.0.0.2");
	assert_int_equal(kmg_simulate_parse(t.argc, t.argv, &sa), 0);
	targv_free(&t);
	assert_false(sa.live);
	assert_int_equal(sa.initial.size, KMAGLEV_TABLE_SIZE_DEFAULT);
	assert_int_equal(sa.initial.n, 1);
	assert_int_equal(sa.initial.be[0].weight, 5);
	assert_int_equal(sa.initial.be[0].state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(sa.nch, 1);
	kmg_sim_args_free(&sa);

	/* keywords abbreviate as in every command; the change's verb too */
	t = targv("tab 251 back 10.0.0.1 w 5 st drain th back dr 10.0.0.1 ta 257");
	assert_int_equal(kmg_simulate_parse(t.argc, t.argv, &sa), 0);
	targv_free(&t);
	assert_false(sa.live);
	assert_int_equal(sa.initial.size, 251);
	assert_int_equal(sa.initial.be[0].weight, 5);
	assert_int_equal(sa.initial.be[0].state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(sa.nch, 2);
	assert_int_equal(sa.ch[0].op, KMG_SIM_SET);
	assert_int_equal(sa.ch[0].state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(sa.ch[1].op, KMG_SIM_TABLE_SIZE);
	kmg_sim_args_free(&sa);
	t = targv("t 251");
	assert_int_equal(kmg_simulate_parse(t.argc, t.argv, &sa), KMG_EUSAGE);
	targv_free(&t);
	assert_string_equal(kmg_errmsg(), "ambiguous keyword \"t\" in simulate: then, table-size?");
	kmg_sim_args_free(&sa);
}

static void sim_fails(const char *line, int code, const char *msg)
{
	struct kmg_ctx ctx = { .out = stdout };
	struct targv t;
	char *full;
	int ret;

	assert_true(asprintf(&full, "simulate %s", line) > 0);
	t = targv(full);
	ret = kmg_run(&ctx, t.argc, t.argv);
	targv_free(&t);
	if (ret != code || strcmp(kmg_errmsg(), msg))
		print_error("\"%s\": got %d \"%s\"\n", full, ret, kmg_errmsg());
	free(full);
	assert_int_equal(ret, code);
	assert_string_equal(kmg_errmsg(), msg);
	assert_false(ctx.nl_open);
}

static void test_errors(void **state)
{
	sim_fails("", KMG_EUSAGE,
		  "simulate needs a SERVICE, or backends for an offline simulation; try \"kmaglev simulate help\"");
	sim_fails("backend 10.0.0.1 backend 10.0.0.1", KMG_EUSAGE, "duplicate backend 10.0.0.1");
	sim_fails("backend 10.0.0.1 backend add 10.0.0.2", KMG_EUSAGE,
		  "\"backend add\" is a change: put \"then\" between the backends and the changes");
	sim_fails("backend 10.0.0.1 weight 70000", KMG_EUSAGE,
		  "invalid weight \"70000\": must be 0..65535");
	sim_fails("backend 10.0.0.1 encap gre", KMG_EUSAGE,
		  "unknown keyword \"encap\" in simulate; see \"kmaglev simulate help\"");
	sim_fails("table-size 1000 backend 10.0.0.1", KMG_EUSAGE,
		  "invalid table-size \"1000\": must be a prime between 251 and 16777213 (nearest primes: 997 and 1009)");
	sim_fails("table-size 251 table-size 257", KMG_EUSAGE, "duplicate keyword \"table-size\"");
	sim_fails("backend 10.0.0.1 then then", KMG_EUSAGE, "duplicate keyword \"then\"");
	sim_fails("backend 10.0.0.1 then backend remove 10.0.0.1", KMG_EUSAGE,
		  "invalid change \"backend remove\": expected backend add|del|set|drain ADDR");
	sim_fails("backend 10.0.0.1 then backend set 10.0.0.1", KMG_EUSAGE,
		  "change \"backend set 10.0.0.1\": nothing to change (weight W, state S)");
	sim_fails("backend 10.0.0.1 then weight 5", KMG_EUSAGE,
		  "unknown change \"weight\" in simulate; expected \"backend add|del|set|drain ADDR ...\" or \"table-size M\"");
	sim_fails("backend 10.0.0.1 then backend del 10.0.0.2", KMG_EUSAGE,
		  "backend del 10.0.0.2: no such backend");
	sim_fails("backend 10.0.0.1 then backend add 10.0.0.1", KMG_EUSAGE,
		  "backend add 10.0.0.1: the service already has it");
	sim_fails("backend 10.0.0.1 then backend set ::ffff:10.0.0.1 weight 2", KMG_EUSAGE,
		  "invalid backend \"::ffff:10.0.0.1\": IPv4-mapped IPv6 address; use the IPv4 form 10.0.0.1");
	sim_fails("seed 1234 backend 10.0.0.1", KMG_EUSAGE,
		  "invalid seed \"1234\": must be 32 hexadecimal digits (128 bits)");
	sim_fails("192.0.2.10:80 backend 10.0.0.1", KMG_EUSAGE,
		  "invalid change \"backend 10.0.0.1\": expected backend add|del|set|drain ADDR");
	sim_fails("192.0.2.300 backend add 10.0.0.1", KMG_EUSAGE,
		  "invalid service \"192.0.2.300\": not an IPv4 or IPv6 address");
	sim_fails("table-size 251 then table-size 250", KMG_EUSAGE,
		  "invalid table-size \"250\": must be a prime between 251 and 16777213");
}

static json_object *sim_json(const struct kmg_sim_info *info, const struct kmg_sim_result *r)
{
	struct kmg_out o;
	json_object *j;
	struct tout t;

	tout_open(&t);
	kmg_out_init(&o, t.f, true, false);
	kmg_sim_out(&o, info, r);
	kmg_out_end(&o);
	j = json_tokener_parse(tout_text(&t));
	assert_non_null(j);
	tout_close(&t);
	return j;
}

static void sim_text(struct tout *t, const struct kmg_sim_info *info,
		     const struct kmg_sim_result *r)
{
	struct kmg_out o;

	tout_open(t);
	kmg_out_init(&o, t->f, false, false);
	kmg_sim_out(&o, info, r);
	kmg_out_end(&o);
}

static void test_output(void **state)
{
	struct kmg_sim_info info = { .seed_source = "zero" };
	struct kmg_sim_result r;
	json_object *o, *v, *m, *bes;
	struct tout t;

	assert_int_equal(sim("table-size 251 backend 10.0.0.1 backend 10.0.0.2 weight 3 "
			     "then backend del 10.0.0.1 backend add 10.0.0.3 weight 3", &r), 0);
	sim_text(&t, &info, &r);
	assert_non_null(strstr(tout_text(&t), "simulate mode offline seed-source zero\n"));
	assert_non_null(strstr(tout_text(&t), "\ncurrent table-size 251 backends 2 eligible 2 "));
	assert_non_null(strstr(tout_text(&t), "\nproposed table-size 251 backends 2 eligible 2 "));
	assert_non_null(strstr(tout_text(&t),
			       "\n  backend 10.0.0.1 before weight 1 state up slots 63 share 25.100% after -\n"));
	assert_non_null(strstr(tout_text(&t), " expected 50.000%\n"));
	assert_non_null(strstr(tout_text(&t), " before - after weight 3 state up slots "));
	assert_non_null(strstr(tout_text(&t), "\nmoved slots "));
	assert_non_null(strstr(tout_text(&t), " estimated no\n"));
	tout_close(&t);

	o = sim_json(&info, &r);
	assert_true(json_object_object_get_ex(o, "mode", &v));
	assert_string_equal(json_object_get_string(v), "offline");
	assert_true(json_object_object_get_ex(o, "moved", &m));
	assert_true(json_object_object_get_ex(m, "slots", &v));
	assert_int_equal(json_object_get_int64(v), r.moved.slots);
	assert_true(json_object_object_get_ex(m, "estimated", &v));
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "backends", &bes));
	assert_int_equal(json_object_array_length(bes), 3);
	/* a deleted backend has no "after", an added one no "before" */
	assert_true(json_object_object_get_ex(json_object_array_get_idx(bes, 0), "after", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(bes, 2), "before", &v));
	assert_null(v);
	assert_false(json_object_object_get_ex(o, "kernel", NULL));
	json_object_put(o);

	/* live mode with a digest that does not match */
	info.svc = &(struct kmg_service){ .present = KMG_BIT(KMAGLEV_A_SERVICE_ID), .id = 3 };
	info.has_kernel_digest = true;
	info.kernel_digest = r.tbefore.digest ^ 1;
	info.mismatch_hint = "seed?";
	sim_text(&t, &info, &r);
	assert_non_null(strstr(tout_text(&t), "simulate mode live service id 3 seed-source zero\n"));
	assert_non_null(strstr(tout_text(&t), "\nkernel generation 0 digest 0x"));
	assert_non_null(strstr(tout_text(&t), " match no hint seed?\n"));
	tout_close(&t);
	info.digest_match = true;
	info.kernel_digest = r.tbefore.digest;
	sim_text(&t, &info, &r);
	assert_non_null(strstr(tout_text(&t), " match yes\n"));
	tout_close(&t);
	kmg_sim_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_balance_equal),
		cmocka_unit_test(test_weights_1_10),
		cmocka_unit_test(test_remove_one),
		cmocka_unit_test(test_add_one),
		cmocka_unit_test(test_order_independent),
		cmocka_unit_test(test_unchanged_moves_nothing),
		cmocka_unit_test(test_drain_and_weight),
		cmocka_unit_test(test_table_size_change),
		cmocka_unit_test(test_empty_sets),
		cmocka_unit_test(test_digest_is_kernel_digest),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_output),
	};

	return cmocka_run_group_tests_name("simulate", tests, NULL, NULL);
}
