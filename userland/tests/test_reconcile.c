// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the daemon's planning (daemon/reconcile.c): which requests a change of config
 * or health produces, and that nothing else is sent.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/reconcile.h"
#include "daemon/state.h"

#define OWNER "kmaglev-daemon"

/* A configured service with @n backends 10.1.0.1.., every attribute set as the loader does. */
static void mk_service(struct kmd_service *cs, const char *vip, uint16_t port, unsigned int n)
{
	struct kmg_service *s = &cs->svc;
	unsigned int i;

	memset(cs, 0, sizeof(*cs));
	assert_int_equal(kmg_parse_addr(vip, &s->key.addr), 0);
	s->key.proto = IPPROTO_TCP;
	s->key.port = port;
	kmg_service_set_key(s, &s->key);
	s->table_size = 65537;
	s->hash = KMAGLEV_HASH_FIVE_TUPLE;
	s->ramp_pct = 100;
	s->window_ms = 30000;
	s->present |= KMG_BIT(KMAGLEV_A_SERVICE_TABLE_SIZE) | KMG_BIT(KMAGLEV_A_SERVICE_HASH) |
		      KMG_BIT(KMAGLEV_A_SERVICE_FLAGS) | KMG_BIT(KMAGLEV_A_SERVICE_SEED) |
		      KMG_BIT(KMAGLEV_A_SERVICE_RAMP_PCT) | KMG_BIT(KMAGLEV_A_SERVICE_RAMP_MS) |
		      KMG_BIT(KMAGLEV_A_SERVICE_WINDOW_MS) | KMG_BIT(KMAGLEV_A_SERVICE_MAX_CONNS) |
		      KMG_BIT(KMAGLEV_A_SERVICE_CLIENT_RATE);
	cs->backends = calloc(n, sizeof(*cs->backends));
	cs->nbackends = n;
	for (i = 0; i < n; i++) {
		struct kmg_backend *b = &cs->backends[i].be;
		char a[32];

		snprintf(a, sizeof(a), "10.1.0.%u", i + 1);
		assert_int_equal(kmg_parse_addr(a, &b->addr), 0);
		kmg_backend_set_addr(b, &b->addr);
		b->weight = 100;
		b->state = KMAGLEV_BACKEND_STATE_UP;
		b->encap = KMAGLEV_ENCAP_IPIP;
		b->present |= KMG_BIT(KMAGLEV_A_BACKEND_WEIGHT) | KMG_BIT(KMAGLEV_A_BACKEND_STATE) |
			      KMG_BIT(KMAGLEV_A_BACKEND_ENCAP) | KMG_BIT(KMAGLEV_A_BACKEND_GRE_KEY) |
			      KMG_BIT(KMAGLEV_A_BACKEND_MAX_CONNS);
	}
}

struct world {
	struct kmd_config cfg;
	struct kmd_service cs[3];
	struct kmd_svc sv[3];
	struct kmd d;
};

static void mk_world(struct world *w, unsigned int nsvc)
{
	unsigned int i, k;

	memset(w, 0, sizeof(*w));
	w->cfg.daemon.owner = OWNER;
	for (i = 0; i < nsvc; i++) {
		mk_service(&w->cs[i], "10.0.0.1", 80 + i, 3);
		w->sv[i].d = &w->d;
		w->sv[i].conf = &w->cs[i];
		w->sv[i].nbe = w->cs[i].nbackends;
		w->sv[i].be = calloc(w->sv[i].nbe, sizeof(struct kmd_be));
		for (k = 0; k < w->sv[i].nbe; k++) {
			struct kmd_be *b = &w->sv[i].be[k];

			b->svc = &w->sv[i];
			b->conf = &w->cs[i].backends[k];
			b->health = KMD_HEALTH_UP;
			b->admin = b->weight = b->weight_pct = b->util = -1;
			b->util_factor = 100;
		}
	}
	w->cfg.services = w->cs;
	w->cfg.nservices = nsvc;
	w->d.cfg = &w->cfg;
	w->d.svc = w->sv;
	w->d.nsvc = nsvc;
}

static void free_world(struct world *w)
{
	unsigned int i;

	for (i = 0; i < w->cfg.nservices; i++) {
		free(w->sv[i].be);
		free(w->cs[i].backends);
	}
}

/* The desired services of @w. */
static struct kmg_service *want_of(struct world *w)
{
	struct kmg_service *want = calloc(w->d.nsvc, sizeof(*want));
	unsigned int i;

	for (i = 0; i < w->d.nsvc; i++)
		assert_int_equal(kmd_want_service(&w->sv[i], &w->cfg, &want[i]), 0);
	return want;
}

static void free_want(struct kmg_service *want, unsigned int n)
{
	while (n--)
		free(want[n].be);
	free(want);
}

/* "The kernel" holding exactly @want (as if applied), with ids. */
static void kernel_from(struct kmg_msgs *k, const struct kmg_service *want, unsigned int n)
{
	unsigned int i, j;

	k->m = calloc(n ? n : 1, sizeof(*k->m));
	k->n = n;
	for (i = 0; i < n; i++) {
		struct kmg_service *s = &k->m[i].svc;

		*s = want[i];
		s->id = i + 1;
		KMG_SET(s, KMAGLEV_A_SERVICE_ID);
		KMG_CLR(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS);
		s->be = calloc(want[i].nbe ? want[i].nbe : 1, sizeof(*s->be));
		memcpy(s->be, want[i].be, want[i].nbe * sizeof(*s->be));
		for (j = 0; j < s->nbe; j++) {
			s->be[j].id = 10 * i + j;
			KMG_SET(&s->be[j], KMAGLEV_A_BACKEND_ID);
			/* the kernel reports zero gre-key and max-conns by leaving them out */
			KMG_CLR(&s->be[j], KMAGLEV_A_BACKEND_GRE_KEY);
			KMG_CLR(&s->be[j], KMAGLEV_A_BACKEND_MAX_CONNS);
		}
	}
}

static void free_kernel(struct kmg_msgs *k)
{
	unsigned int i;

	for (i = 0; i < k->n; i++)
		free(k->m[i].svc.be);
	free(k->m);
}

/* Plan @w against @k and return the number of ops; the plan is in @p. */
static unsigned int plan_of(struct world *w, const struct kmg_msgs *k, struct kmd_plan *p)
{
	struct kmg_service *want = want_of(w);

	memset(p, 0, sizeof(*p));
	assert_int_equal(kmd_plan(want, w->d.nsvc, NULL, NULL, k, NULL, OWNER, p), 0);
	free_want(want, w->d.nsvc);
	return p->n;
}

/* Apply the state of @w to a fresh "kernel" and return it in @k. */
static void settled(struct world *w, struct kmg_msgs *k)
{
	struct kmg_service *want = want_of(w);

	kernel_from(k, want, w->d.nsvc);
	free_want(want, w->d.nsvc);
}

static void test_new_service(void **state)
{
	struct world w;
	struct kmg_msgs k = { 0 };
	struct kmd_plan p;

	mk_world(&w, 1);
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_SERVICE_NEW);
	assert_int_equal(p.ops[0].svc.nbe, 3);
	assert_string_equal(p.ops[0].svc.owner, OWNER);
	assert_true(KMG_HAS(&p.ops[0].svc, KMAGLEV_A_SERVICE_REPLACE_BACKENDS));
	kmd_plan_free(&p);
	free_world(&w);
}

static void test_equal_sends_nothing(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;

	mk_world(&w, 2);
	settled(&w, &k);
	assert_int_equal(plan_of(&w, &k, &p), 0);
	free_kernel(&k);
	free_world(&w);
}

static void test_weight_change_one_set(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;

	mk_world(&w, 2);
	settled(&w, &k);
	w.cs[1].backends[2].be.weight = 50;
	/* one service-set, for the changed service only, with the complete backend list */
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_SERVICE_SET);
	assert_int_equal(p.ops[0].svc.key.port, 81);
	assert_int_equal(p.ops[0].svc.nbe, 3);
	assert_int_equal(p.ops[0].svc.be[2].weight, 50);
	assert_string_equal(p.ops[0].why, "backend 10.1.0.3: weight 100 -> 50");
	kmd_plan_free(&p);
	free_kernel(&k);
	free_world(&w);
}

static void test_service_setting_change(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;

	mk_world(&w, 1);
	settled(&w, &k);
	w.cs[0].svc.window_ms = 5000;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_string_equal(p.ops[0].why, "window changed");
	kmd_plan_free(&p);
	free_kernel(&k);
	free_world(&w);
}

static void test_backend_added_removed(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;

	mk_world(&w, 1);
	settled(&w, &k);
	w.sv[0].nbe = 2;		/* 10.1.0.3 leaves the config */
	w.cs[0].nbackends = 2;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].svc.nbe, 2);
	assert_string_equal(p.ops[0].why, "backend 10.1.0.3 removed");
	kmd_plan_free(&p);
	free_kernel(&k);
	w.sv[0].nbe = 3;
	w.cs[0].nbackends = 3;
	free_world(&w);
}

static void test_health_down_and_back(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;

	mk_world(&w, 1);
	settled(&w, &k);
	w.sv[0].be[1].health = KMD_HEALTH_DOWN;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].svc.be[1].state, KMAGLEV_BACKEND_STATE_DOWN);
	assert_int_equal(p.ops[0].svc.be[0].state, KMAGLEV_BACKEND_STATE_UP);
	assert_int_equal(p.ops[0].svc.be[1].weight, 100);	/* weight kept: comes back equal */
	kmd_plan_free(&p);
	/* unknown (a new backend whose checks have not passed yet) takes no traffic either */
	w.sv[0].be[1].health = KMD_HEALTH_UNKNOWN;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].svc.be[1].state, KMAGLEV_BACKEND_STATE_DOWN);
	kmd_plan_free(&p);
	w.sv[0].be[1].health = KMD_HEALTH_UP;
	assert_int_equal(plan_of(&w, &k, &p), 0);
	free_kernel(&k);
	free_world(&w);
}

/* target 70, min-weight 25: whole up to 70%, then linearly down to 25% at 100%, by 5s */
static void test_util_factor(void **state)
{
	struct kmd_util u = { .on = true, .target = 70, .min_weight = 25 };
	static const int util[] = { 0, 50, 70, 71, 80, 85, 90, 99, 100 };
	static const unsigned int want[] = { 100, 100, 100, 95, 75, 60, 50, 25, 25 };

	for (unsigned int i = 0; i < sizeof(util) / sizeof(util[0]); i++)
		if (kmd_util_factor(&u, util[i]) != want[i])
			fail_msg("util %d: %u%%, want %u%%", util[i], kmd_util_factor(&u, util[i]),
				 want[i]);
	u.min_weight = 100;			/* never lowered */
	assert_int_equal(kmd_util_factor(&u, 100), 100);
	u.target = 1;
	u.min_weight = 1;
	assert_int_equal(kmd_util_factor(&u, 100), 1);
	assert_int_equal(kmd_util_factor(&u, 51), 50);
	/* every setting: within min-weight..100, never rising with the utilization, in steps */
	for (u.target = 1; u.target <= 95; u.target++)
		for (u.min_weight = 1; u.min_weight <= 100; u.min_weight++) {
			unsigned int last = 100, f;

			for (int x = -1; x <= 100; x++) {
				f = kmd_util_factor(&u, x);
				if (f < u.min_weight || f > 100 || f > last ||
				    (f % 5 && f != u.min_weight) || (x <= (int)u.target && f != 100))
					fail_msg("target %u min-weight %u util %d: %u%%", u.target,
						 u.min_weight, x, f);
				last = f;
			}
			if (kmd_util_factor(&u, 100) != (u.min_weight == 100 ? 100 :
							   u.min_weight))
				fail_msg("target %u min-weight %u: %u%% at 100%%", u.target,
					 u.min_weight, kmd_util_factor(&u, 100));
		}
}

/* a step is taken only KMD_UTIL_HYST points past its edge; none without the block */
static void test_util_share(void **state)
{
	struct kmd_util u = { .on = true, .target = 70, .min_weight = 25 };

	/* 80 gives 75: from 100 at once (well past 72.x, where 95 starts) */
	assert_int_equal(kmd_util_share(&u, 100, 80), 75);
	/* 81 would give 70, but 78 still gives 75: stay */
	assert_int_equal(kmd_util_share(&u, 75, 81), 75);
	assert_int_equal(kmd_util_share(&u, 75, 84), 65);	/* 81 gives 70: move */
	/* back: 79 gives 75, but 82 still gives 70: stay; at 76 (85), 79 gives 75: move */
	assert_int_equal(kmd_util_share(&u, 70, 79), 70);
	assert_int_equal(kmd_util_share(&u, 70, 76), 85);
	/* no utilization, or no block: the whole weight */
	assert_int_equal(kmd_util_share(&u, 40, -1), 100);
	u.on = false;
	assert_int_equal(kmd_util_share(&u, 40, 100), 100);
}

/* the weight a service with "utilization:" gives: scaled, never 0 by utilization alone */
static void test_util_weight(void **state)
{
	struct world w;
	struct kmg_backend b;
	struct kmd_be *be;

	mk_world(&w, 1);
	be = &w.sv[0].be[0];
	w.cs[0].util = (struct kmd_util){ .on = true, .target = 70, .min_weight = 25 };
	w.cs[0].backends[0].be.weight = 200;
	be->util_factor = 100;
	kmd_want_backend(be, false, &b);
	assert_int_equal(b.weight, 200);
	be->util_factor = 60;
	kmd_want_backend(be, false, &b);
	assert_int_equal(b.weight, 120);		/* 60% */
	be->util_factor = 25;
	kmd_want_backend(be, false, &b);
	assert_int_equal(b.weight, 50);			/* the floor, 25% */
	be->weight_pct = 50;				/* agent 50%, then the floor of that */
	kmd_want_backend(be, false, &b);
	assert_int_equal(b.weight, 25);
	w.cs[0].backends[0].be.weight = 1;		/* 1 stays 1: not drained by a number */
	be->weight_pct = -1;
	kmd_want_backend(be, false, &b);
	assert_int_equal(b.weight, 1);
	assert_int_equal(b.state, KMAGLEV_BACKEND_STATE_UP);
	be->weight_pct = 0;				/* the agent's own 0% does drain */
	kmd_want_backend(be, false, &b);
	assert_int_equal(b.weight, 0);
	free_world(&w);
}

static void test_agent_and_exec(void **state)
{
	struct world w;
	struct kmg_backend b;

	mk_world(&w, 1);
	w.sv[0].be[0].admin = KMAGLEV_BACKEND_STATE_DRAIN;
	kmd_want_backend(&w.sv[0].be[0], false, &b);
	assert_int_equal(b.state, KMAGLEV_BACKEND_STATE_DRAIN);
	w.sv[0].be[0].admin = KMAGLEV_BACKEND_STATE_UP;
	w.sv[0].be[0].weight_pct = 50;
	kmd_want_backend(&w.sv[0].be[0], false, &b);
	assert_int_equal(b.state, KMAGLEV_BACKEND_STATE_UP);
	assert_int_equal(b.weight, 50);
	w.sv[0].be[0].weight = 30;	/* weight:30, then 50% of it */
	kmd_want_backend(&w.sv[0].be[0], false, &b);
	assert_int_equal(b.weight, 15);
	w.sv[0].be[0].weight_pct = -1;
	w.sv[0].be[0].weight = 70000;	/* clamped to the attribute's range */
	kmd_want_backend(&w.sv[0].be[0], false, &b);
	assert_int_equal(b.weight, 65535);
	/* utilization counts only where the service asks for it */
	w.sv[0].be[0].weight = -1;
	w.sv[0].be[0].util = 100;
	w.sv[0].be[0].util_factor = 50;
	kmd_want_backend(&w.sv[0].be[0], false, &b);
	assert_int_equal(b.weight, w.cs[0].backends[0].be.weight);
	w.sv[0].be[0].util = -1;
	w.sv[0].be[0].util_factor = 100;
	/* a backend drained in the config stays drained whatever a check says */
	w.cs[0].backends[1].be.state = KMAGLEV_BACKEND_STATE_DRAIN;
	w.sv[0].be[1].health = KMD_HEALTH_DOWN;
	kmd_want_backend(&w.sv[0].be[1], false, &b);
	assert_int_equal(b.state, KMAGLEV_BACKEND_STATE_DRAIN);
	free_world(&w);
}

static void test_quorum(void **state)
{
	struct world w;
	struct kmg_service want;
	unsigned int i;

	mk_world(&w, 1);
	for (i = 0; i < 3; i++)
		w.sv[0].be[i].health = KMD_HEALTH_DOWN;
	w.sv[0].be[0].health = KMD_HEALTH_UP;

	/* serve: what is healthy */
	w.cs[0].quorum = (struct kmd_quorum){ .min = 2, .action = KMD_QUORUM_SERVE };
	assert_false(kmd_quorum_eval(&w.sv[0]));
	assert_true(w.sv[0].below_quorum);
	assert_true(w.sv[0].healthy);

	/* fail open: every configured backend */
	w.cs[0].quorum.action = KMD_QUORUM_FAIL_OPEN;
	assert_int_equal(kmd_want_service(&w.sv[0], &w.cfg, &want), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(want.be[i].state, KMAGLEV_BACKEND_STATE_UP);
	free(want.be);

	/* withdraw: serve what is healthy, but the service is unhealthy (BGP withdraws it) */
	w.cs[0].quorum = (struct kmd_quorum){ .fraction = 0.5, .action = KMD_QUORUM_WITHDRAW };
	assert_false(kmd_quorum_eval(&w.sv[0]));
	assert_false(w.sv[0].healthy);		/* 1 of 3 < ceil(1.5) */
	w.sv[0].be[1].health = KMD_HEALTH_UP;
	kmd_quorum_eval(&w.sv[0]);
	assert_true(w.sv[0].healthy);		/* 2 of 3 */

	/* no quorum configured: unhealthy only with nothing healthy */
	w.cs[0].quorum = (struct kmd_quorum){ .action = KMD_QUORUM_WITHDRAW };
	kmd_quorum_eval(&w.sv[0]);
	assert_true(w.sv[0].healthy);
	for (i = 0; i < 3; i++)
		w.sv[0].be[i].health = KMD_HEALTH_DOWN;
	kmd_quorum_eval(&w.sv[0]);
	assert_false(w.sv[0].healthy);
	free_world(&w);
}

static void test_ownership(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;

	mk_world(&w, 3);
	settled(&w, &k);
	/* the config keeps only service 80; 81 is ours, 82 was made by hand */
	snprintf(k.m[2].svc.owner, sizeof(k.m[2].svc.owner), "%s", "");
	KMG_CLR(&k.m[2].svc, KMAGLEV_A_SERVICE_OWNER);
	w.d.nsvc = 1;
	w.cfg.nservices = 1;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_SERVICE_DEL);
	assert_int_equal(p.ops[0].svc.key.port, 81);
	assert_int_equal(p.ops[0].svc.present & ~KMG_SVC_KEY_MASK, 0);
	kmd_plan_free(&p);
	/* another owner's service is not ours either */
	snprintf(k.m[1].svc.owner, sizeof(k.m[1].svc.owner), "%s", "someone-else");
	assert_int_equal(plan_of(&w, &k, &p), 0);
	/* a hand-made service the config names is taken over: stamped with our owner */
	w.d.nsvc = 3;
	w.cfg.nservices = 3;
	assert_int_equal(plan_of(&w, &k, &p), 2);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_SERVICE_SET);
	assert_string_equal(p.ops[0].why, "owner changed");
	kmd_plan_free(&p);
	free_kernel(&k);
	free_world(&w);
}

static void test_config_named_settings_only(void **state)
{
	struct kmg_config want = { 0 }, have = { 0 };
	struct kmg_msgs k = { 0 };
	struct kmd_plan p = { 0 };

	want.conn_max = 1000;
	KMG_SET(&want, KMAGLEV_A_CONFIG_CONN_MAX);
	have.conn_max = 1000;
	have.timeout_udp = 10;		/* set by hand, not named by the config: left alone */
	have.present = KMG_BIT(KMAGLEV_A_CONFIG_CONN_MAX) | KMG_BIT(KMAGLEV_A_CONFIG_TIMEOUT_UDP);
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 0);
	have.conn_max = 2000;
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_CONFIG_SET);
	assert_string_equal(p.ops[0].why, "conn-max changed");
	kmd_plan_free(&p);
}

/*
 * The quota settings: set only when one the config names differs (a set empties the kernel's
 * quota table), never because of the table's count.
 */
static void test_config_quota(void **state)
{
	struct kmg_config want = { 0 }, have = { 0 };
	struct kmg_msgs k = { 0 };
	struct kmd_plan p = { 0 };

	want.quota_rate = 100;
	want.quota_scope = KMAGLEV_QUOTA_SCOPE_SERVICE;
	want.present = KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_RATE) | KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_SCOPE);
	have = want;
	have.quota_prefix4 = 32;
	have.quotas = 4000;
	have.present |= KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX4) | KMG_BIT(KMAGLEV_A_CONFIG_QUOTAS);
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 0);
	have.quotas = 0;
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 0);
	have.quota_scope = KMAGLEV_QUOTA_SCOPE_NETNS;
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_CONFIG_SET);
	assert_string_equal(p.ops[0].why, "quota-scope changed");
	assert_int_equal(p.ops[0].cfg.present, want.present);
	assert_int_equal(p.ops[0].cfg.quota_scope, KMAGLEV_QUOTA_SCOPE_SERVICE);
	kmd_plan_free(&p);
}

/* --- overload from utilization (shed-above) ------------------------------------------------ */

/* On at shed-above (every backend there), off below shed-above - KMD_SHED_HYST; never without. */
static void test_util_overloaded(void **state)
{
	struct kmd_util u = { .on = true, .target = 70, .min_weight = 50, .shed_above = 90 };
	static const struct {
		bool was;
		int min;
		bool now;
	} cases[] = {
		{ false, -1, false }, { false, 0, false }, { false, 89, false }, { false, 90, true },
		{ false, 100, true }, { true, 100, true }, { true, 90, true }, { true, 86, true },
		{ true, 85, true }, { true, 84, false }, { true, 0, false }, { true, -1, false },
	};
	unsigned int i;

	for (i = 0; i < KMG_ARRAY_SIZE(cases); i++)
		if (kmd_util_overloaded(&u, cases[i].was, cases[i].min, 60) != cases[i].now)
			fail_msg("was %d, lowest %d%%: want %d", cases[i].was, cases[i].min,
				 cases[i].now);
	/* 100 and 1..5: the hysteresis stops at the ends */
	u.shed_above = 100;
	assert_false(kmd_util_overloaded(&u, false, 99, 60));
	assert_true(kmd_util_overloaded(&u, false, 100, 60));
	assert_true(kmd_util_overloaded(&u, true, 95, 60));
	assert_false(kmd_util_overloaded(&u, true, 94, 60));
	u.shed_above = 3;
	assert_true(kmd_util_overloaded(&u, false, 3, 60));
	assert_true(kmd_util_overloaded(&u, true, 0, 60));
	/* without shed-above, or without the block: never */
	u.shed_above = 0;
	assert_false(kmd_util_overloaded(&u, false, 100, 60));
	assert_false(kmd_util_overloaded(&u, true, 100, 60));
	u.shed_above = 90;
	u.on = false;
	assert_false(kmd_util_overloaded(&u, true, 100, 60));

	/* shed-hold: once on, on for that long whatever the reports; then as above */
	u.on = true;
	u.shed_hold_ms = 10000;
	assert_true(kmd_util_overloaded(&u, true, 0, 9.9));
	assert_false(kmd_util_overloaded(&u, true, 0, 10));
	assert_true(kmd_util_overloaded(&u, true, 86, 10));
	assert_false(kmd_util_overloaded(&u, false, 89, 0));	/* it does not start one */
	/* but no backend that reports, or no shed-above, ends it at once */
	assert_false(kmd_util_overloaded(&u, true, -1, 1));
	u.shed_above = 0;
	assert_false(kmd_util_overloaded(&u, true, 100, 1));
}

static void set_utils(struct world *w, int a, int b, int c)
{
	w->sv[0].be[0].util = a;
	w->sv[0].be[1].util = b;
	w->sv[0].be[2].util = c;
}

/*
 * The service's overload from its backends: the lowest utilization among those that serve,
 * with hysteresis; drained, down and silent backends do not count; nothing moves while an
 * agent has not answered.
 */
static void test_svc_overload(void **state)
{
	struct kmd_svc *s;
	struct world w;

	mk_world(&w, 1);
	s = &w.sv[0];
	w.cs[0].util = (struct kmd_util){ .on = true, .target = 70, .min_weight = 50,
					  .shed_above = 90 };
	set_utils(&w, 95, 92, 89);
	assert_false(kmd_svc_overload_update(s));		/* one has room */
	assert_false(s->overloaded);
	set_utils(&w, 95, 92, 90);
	assert_true(kmd_svc_overload_update(s));		/* every one at 90 or more */
	assert_true(s->overloaded);
	assert_false(kmd_svc_overload_update(s));		/* a change only once */
	set_utils(&w, 95, 85, 99);
	assert_false(kmd_svc_overload_update(s));		/* 85: within the hysteresis */
	assert_true(s->overloaded);
	set_utils(&w, 95, 84, 99);
	assert_true(kmd_svc_overload_update(s));		/* below 85: off */
	assert_false(s->overloaded);
	set_utils(&w, 88, 88, 88);
	assert_false(kmd_svc_overload_update(s));		/* off stays off until 90 */

	/* those that do not serve do not count: drained (by the file or the agent), down */
	set_utils(&w, 95, 10, 20);
	w.sv[0].be[1].admin = KMAGLEV_BACKEND_STATE_DRAIN;
	w.sv[0].be[2].health = KMD_HEALTH_DOWN;
	assert_true(kmd_svc_overload_update(s));
	assert_true(s->overloaded);
	w.sv[0].be[1].admin = -1;
	w.cs[0].backends[1].be.state = KMAGLEV_BACKEND_STATE_DRAIN;
	assert_false(kmd_svc_overload_update(s));
	w.cs[0].backends[1].be.state = KMAGLEV_BACKEND_STATE_UP;
	assert_true(kmd_svc_overload_update(s));		/* b2 serves again, at 10% */
	assert_false(s->overloaded);
	/* nor those at weight 0 (the agent's 0% or weight 0, the file's): they take no flows */
	set_utils(&w, 95, 10, 92);
	w.sv[0].be[1].weight_pct = 0;
	assert_true(kmd_svc_overload_update(s));
	assert_true(s->overloaded);
	w.sv[0].be[1].weight_pct = -1;
	assert_true(kmd_svc_overload_update(s));
	assert_false(s->overloaded);
	w.sv[0].be[1].weight = 0;
	assert_true(kmd_svc_overload_update(s));
	w.sv[0].be[1].weight = -1;
	assert_true(kmd_svc_overload_update(s));
	w.cs[0].backends[1].be.weight = 0;
	assert_true(kmd_svc_overload_update(s));
	assert_true(s->overloaded);
	w.cs[0].backends[1].be.weight = 100;
	assert_true(kmd_svc_overload_update(s));
	assert_false(s->overloaded);
	/* a backend without a report does not count; none left: off */
	w.sv[0].be[2].health = KMD_HEALTH_UP;
	set_utils(&w, 95, -1, 91);
	assert_true(kmd_svc_overload_update(s));
	assert_true(s->overloaded);
	w.sv[0].be[0].health = KMD_HEALTH_UNKNOWN;
	w.sv[0].be[2].util = -1;
	assert_true(kmd_svc_overload_update(s));
	assert_false(s->overloaded);
	w.sv[0].be[0].health = KMD_HEALTH_UP;

	/* an agent not heard yet: the state stands, whichever it is */
	set_utils(&w, 95, 95, 95);
	w.sv[0].be[2].util_pending = true;
	assert_false(kmd_svc_overload_update(s));
	assert_false(s->overloaded);
	s->overloaded = true;
	set_utils(&w, 10, 10, -1);
	assert_false(kmd_svc_overload_update(s));
	assert_true(s->overloaded);
	/* ... unless that backend does not serve */
	w.sv[0].be[2].health = KMD_HEALTH_DOWN;
	assert_true(kmd_svc_overload_update(s));
	assert_false(s->overloaded);
	w.sv[0].be[2].util_pending = false;
	w.sv[0].be[2].health = KMD_HEALTH_UP;

	/* without shed-above: never, and an overload goes */
	set_utils(&w, 100, 100, 100);
	w.cs[0].util.shed_above = 0;
	assert_false(kmd_svc_overload_update(s));
	s->overloaded = true;
	assert_true(kmd_svc_overload_update(s));
	assert_false(s->overloaded);
	free_world(&w);
}

/*
 * The kernel's overload: wanted as the daemon decides, off without shed-above; a change is one
 * service-set with the attribute changed, no change is nothing.
 */
static void test_overload_plan(void **state)
{
	struct kmg_service want;
	struct kmg_msgs k;
	struct kmd_plan p;
	struct world w;

	mk_world(&w, 2);
	assert_int_equal(kmd_want_service(&w.sv[0], &w.cfg, &want), 0);
	assert_true(KMG_HAS(&want, KMAGLEV_A_SERVICE_OVERLOAD));
	assert_int_equal(want.overload, KMAGLEV_OVERLOAD_OFF);
	free(want.be);
	settled(&w, &k);
	assert_int_equal(plan_of(&w, &k, &p), 0);

	w.sv[1].overloaded = true;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_SERVICE_SET);
	assert_int_equal(p.ops[0].svc.key.port, 81);
	assert_string_equal(p.ops[0].why, "overload changed");
	assert_true(KMG_HAS(&p.ops[0].svc, KMAGLEV_A_SERVICE_OVERLOAD));
	assert_int_equal(p.ops[0].svc.overload, KMAGLEV_OVERLOAD_ON);
	assert_int_equal(p.ops[0].svc.nbe, 3);		/* the backends as they were */
	kmd_plan_free(&p);
	free_kernel(&k);
	settled(&w, &k);
	assert_int_equal(k.m[1].svc.overload, KMAGLEV_OVERLOAD_ON);
	assert_int_equal(plan_of(&w, &k, &p), 0);

	/* someone turns it on by hand where the daemon wants it off: put back */
	k.m[0].svc.overload = KMAGLEV_OVERLOAD_ON;
	assert_int_equal(plan_of(&w, &k, &p), 1);
	assert_int_equal(p.ops[0].svc.key.port, 80);
	assert_int_equal(p.ops[0].svc.overload, KMAGLEV_OVERLOAD_OFF);
	assert_string_equal(p.ops[0].why, "overload changed");
	kmd_plan_free(&p);
	free_kernel(&k);
	free_world(&w);
}

/* Start: the kernel's overload, with shed-above only; reload: the previous state's. */
static void test_overload_adopt(void **state)
{
	struct kmd_svc *sv, *sv2;
	unsigned int n, n2;
	struct kmg_msgs k;
	struct world w;

	mk_world(&w, 2);
	w.sv[0].overloaded = w.sv[1].overloaded = true;
	settled(&w, &k);
	w.cs[0].util = (struct kmd_util){ .on = true, .target = 70, .min_weight = 50,
					  .shed_above = 90 };
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, &k, NULL, 0, &sv, &n), 0);
	assert_true(sv[0].overloaded);
	assert_false(sv[1].overloaded);			/* no shed-above: off */
	/* a reload: the previous state's, not the kernel's */
	sv[0].overloaded = false;
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, &k, sv, n, &sv2, &n2), 0);
	assert_false(sv2[0].overloaded);
	kmd_state_free(sv2, n2);
	sv[0].overloaded = true;
	k.m[0].svc.overload = KMAGLEV_OVERLOAD_OFF;
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, &k, sv, n, &sv2, &n2), 0);
	assert_true(sv2[0].overloaded);
	kmd_state_free(sv2, n2);
	/* shed-above taken out by the reload: off */
	w.cs[0].util.shed_above = 0;
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, &k, sv, n, &sv2, &n2), 0);
	assert_false(sv2[0].overloaded);
	kmd_state_free(sv2, n2);
	kmd_state_free(sv, n);
	free_kernel(&k);
	free_world(&w);
}

/*
 * The load-shedding settings: a dscp-map compared byte by byte, set only when one the config
 * names differs; the kernel's load, shedding and transitions never cause a set.
 */
static void test_config_shed(void **state)
{
	struct kmg_config want = { 0 }, have;
	struct kmg_msgs k = { 0 };
	struct kmd_plan p = { 0 };

	want.dscp_map[46] = 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS;
	want.shed_class = KMAGLEV_CRITICALITY_SHEDDABLE_PLUS;
	want.present = KMG_BIT(KMAGLEV_A_CONFIG_DSCP_MAP) | KMG_BIT(KMAGLEV_A_CONFIG_SHED_CLASS);
	have = want;
	have.load = 900;
	have.shedding = KMAGLEV_SHED_REASON_LOAD;
	have.shed_transitions = 3;
	have.shed_load_high = 800;
	have.present |= KMG_BIT(KMAGLEV_A_CONFIG_LOAD) | KMG_BIT(KMAGLEV_A_CONFIG_SHEDDING) |
			KMG_BIT(KMAGLEV_A_CONFIG_SHED_TRANSITIONS) |
			KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_HIGH);
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 0);
	/* one byte of the map */
	have.dscp_map[8] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE;
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_CONFIG_SET);
	assert_string_equal(p.ops[0].why, "dscp-map changed");
	assert_int_equal(p.ops[0].cfg.present, want.present);
	assert_int_equal(p.ops[0].cfg.dscp_map[8], 0);
	kmd_plan_free(&p);
	/* an empty map wanted, the kernel's not: set */
	memset(want.dscp_map, 0, sizeof(want.dscp_map));
	memset(have.dscp_map, 0, sizeof(have.dscp_map));
	have.shed_class = KMAGLEV_CRITICALITY_SHEDDABLE;
	assert_int_equal(kmd_plan(NULL, 0, NULL, &want, &k, &have, OWNER, &p), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.ops[0].why, "shed-class changed");
	kmd_plan_free(&p);
}

/* Start: health from what the kernel does; reload: from the previous state. */
static void test_adopt(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_svc *sv, *sv2;
	struct kmd_check agent = { .kind = KMD_CHECK_AGENT };
	unsigned int n, n2;

	mk_world(&w, 1);
	settled(&w, &k);
	/* the kernel: b1 up, b2 drained (by an agent, before the restart), b3 down; b4 absent */
	k.m[0].svc.be[1].state = KMAGLEV_BACKEND_STATE_DRAIN;
	k.m[0].svc.be[1].weight = 40;
	k.m[0].svc.be[2].state = KMAGLEV_BACKEND_STATE_DOWN;
	w.cs[0].backends[1].checks = &agent;
	w.cs[0].backends[1].nchecks = 1;
	w.cs[0].backends[1].own_checks = true;
	k.m[0].svc.nbe = 2;		/* b3 lost from the kernel's view... */
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, &k, NULL, 0, &sv, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sv[0].be[0].health, KMD_HEALTH_UP);
	assert_int_equal(sv[0].be[1].health, KMD_HEALTH_UP);	/* drain is serving */
	assert_int_equal(sv[0].be[1].admin, KMAGLEV_BACKEND_STATE_DRAIN);	/* kept */
	assert_int_equal(sv[0].be[1].weight, 40);
	{
		/* the adopted weight is sent as it is (it was scaled before the restart) */
		struct kmg_backend want;

		kmd_want_backend(&sv[0].be[1], false, &want);
		assert_int_equal(want.weight, 40);
		assert_int_equal(want.state, KMAGLEV_BACKEND_STATE_DRAIN);
	}
	assert_int_equal(sv[0].be[2].health, KMD_HEALTH_UNKNOWN);	/* not in the kernel */
	assert_int_equal(sv[0].be[0].admin, -1);
	assert_int_equal(sv[0].be[0].weight, -1);	/* no agent or exec: config weight */
	k.m[0].svc.nbe = 3;
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, &k, NULL, 0, &sv2, &n2), 0);
	assert_int_equal(sv2[0].be[2].health, KMD_HEALTH_DOWN);
	kmd_state_free(sv2, n2);

	/* a reload carries health over by service key and backend address */
	sv[0].be[0].health = KMD_HEALTH_DOWN;
	sv[0].be[0].transitions = 5;
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, NULL, sv, n, &sv2, &n2), 0);
	assert_int_equal(sv2[0].be[0].health, KMD_HEALTH_DOWN);
	assert_int_equal(sv2[0].be[0].transitions, 5);
	assert_int_equal(sv2[0].be[2].health, KMD_HEALTH_UNKNOWN);
	kmd_state_free(sv2, n2);

	/*
	 * ... and an agent-checked backend's utilization and the share it gave, until the agent
	 * answers again: no jump to the whole weight and back (b2 said "up util:90")
	 */
	w.cs[0].util = (struct kmd_util){ .on = true, .target = 70, .min_weight = 25 };
	w.cs[0].backends[1].be.weight = 100;
	w.cs[0].backends[1].be.state = KMAGLEV_BACKEND_STATE_UP;
	sv[0].be[1].admin = -1;
	sv[0].be[1].weight = -1;
	sv[0].be[1].util = 90;
	sv[0].be[1].util_factor = 50;
	assert_int_equal(kmd_state_build(&w.d, &w.cfg, NULL, sv, n, &sv2, &n2), 0);
	assert_int_equal(sv2[0].be[1].util, 90);
	assert_int_equal(sv2[0].be[1].util_factor, 50);
	{
		struct kmg_backend want;

		kmd_want_backend(&sv2[0].be[1], false, &want);
		assert_int_equal(want.weight, 50);
		/* a backend without an agent check starts with its whole weight */
		assert_int_equal(sv2[0].be[0].util_factor, 100);
	}
	kmd_state_free(sv2, n2);
	kmd_state_free(sv, n);
	free_kernel(&k);
	free_world(&w);
}

/* Deletions before additions; warn mode keeps what the kernel has; GRE without key. */
static void test_order_keep_gre(void **state)
{
	struct world w;
	struct kmg_msgs k;
	struct kmd_plan p;
	struct kmg_service *want;
	bool keep[2] = { true, false };

	mk_world(&w, 3);
	settled(&w, &k);
	/* the config swaps service 81 for a new one on port 90 */
	w.cs[1].svc.key.port = 90;
	assert_int_equal(plan_of(&w, &k, &p), 2);
	assert_int_equal(p.ops[0].cmd, KMAGLEV_CMD_SERVICE_DEL);
	assert_int_equal(p.ops[0].svc.key.port, 81);
	assert_int_equal(p.ops[1].cmd, KMAGLEV_CMD_SERVICE_NEW);
	assert_int_equal(p.ops[1].svc.key.port, 90);
	kmd_plan_free(&p);
	w.cs[1].svc.key.port = 81;

	/* warn: a hand change (weight 9) to a service whose desired state is unchanged stays */
	w.d.nsvc = w.cfg.nservices = 2;
	k.n = 2;
	k.m[0].svc.be[0].weight = 9;
	k.m[1].svc.be[0].weight = 9;
	want = want_of(&w);
	memset(&p, 0, sizeof(p));
	assert_int_equal(kmd_plan(want, 2, keep, NULL, &k, NULL, OWNER, &p), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.ops[0].svc.key.port, 81);
	kmd_plan_free(&p);
	free_want(want, 2);
	k.n = 3;
	w.d.nsvc = w.cfg.nservices = 3;

	/* GRE: a key of 0 is no key (unkeyed), a key is sent */
	{
		struct kmd_be *b = &w.sv[0].be[0];
		struct kmg_backend out;

		w.cs[0].backends[0].be.encap = KMAGLEV_ENCAP_GRE;
		kmd_want_backend(b, false, &out);
		assert_false(KMG_HAS(&out, KMAGLEV_A_BACKEND_GRE_KEY));
		w.cs[0].backends[0].be.gre_key = 7;
		kmd_want_backend(b, false, &out);
		assert_true(KMG_HAS(&out, KMAGLEV_A_BACKEND_GRE_KEY));
		assert_int_equal(out.gre_key, 7);
		w.cs[0].backends[0].be.encap = KMAGLEV_ENCAP_IPIP;
		kmd_want_backend(b, false, &out);
		assert_false(KMG_HAS(&out, KMAGLEV_A_BACKEND_GRE_KEY));
	}
	free_kernel(&k);
	free_world(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_service),
		cmocka_unit_test(test_equal_sends_nothing),
		cmocka_unit_test(test_weight_change_one_set),
		cmocka_unit_test(test_service_setting_change),
		cmocka_unit_test(test_backend_added_removed),
		cmocka_unit_test(test_health_down_and_back),
		cmocka_unit_test(test_agent_and_exec),
		cmocka_unit_test(test_util_factor),
		cmocka_unit_test(test_util_share),
		cmocka_unit_test(test_util_weight),
		cmocka_unit_test(test_quorum),
		cmocka_unit_test(test_ownership),
		cmocka_unit_test(test_config_named_settings_only),
		cmocka_unit_test(test_config_quota),
		cmocka_unit_test(test_config_shed),
		cmocka_unit_test(test_util_overloaded),
		cmocka_unit_test(test_svc_overload),
		cmocka_unit_test(test_overload_plan),
		cmocka_unit_test(test_overload_adopt),
		cmocka_unit_test(test_adopt),
		cmocka_unit_test(test_order_keep_gre),
	};

	return cmocka_run_group_tests_name("reconcile", tests, NULL, NULL);
}
