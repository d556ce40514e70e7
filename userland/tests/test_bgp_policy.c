// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the announcement policy (bgp/policy.c): which VIPs are announced, with which
 * attributes, and the reason given for each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>

#include "bgp/policy.h"

static struct bgp_policy_svc svc(const char *vip, const char *name, bool healthy,
				 const char *why)
{
	struct bgp_policy_svc s = { .name = name, .healthy = healthy, .why = why,
				    .announce = true };

	if (inet_pton(AF_INET, vip, &s.v4) == 1)
		s.family = AF_INET;
	else
		assert_int_equal(inet_pton(AF_INET6, vip, &s.v6), 1), s.family = AF_INET6;
	return s;
}

static const struct bgp_policy_host host_ok = { .ok = true };

static void eval(const struct bgp_policy_svc *s, unsigned int n,
		 const struct bgp_policy_attrs *g, const struct bgp_policy_host *h,
		 struct bgp_route **r, unsigned int *nr)
{
	assert_int_equal(bgp_policy_eval(s, n, g, h, r, nr), 0);
}

static const char *pfx(const struct bgp_route *r)
{
	static char buf[64];

	return bgp_prefix_str(&r->pfx, buf, sizeof(buf));
}

static void test_one_healthy_is_enough(void **state)
{
	struct bgp_policy_svc s[] = {
		svc("192.0.2.1", "tcp 192.0.2.1:80", false, "0 of 3 backends up"),
		svc("192.0.2.1", "tcp 192.0.2.1:443", true, "3 of 3 backends up"),
	};
	struct bgp_route *r;
	unsigned int n;

	eval(s, 2, NULL, &host_ok, &r, &n);
	assert_int_equal(n, 1);
	assert_string_equal(pfx(&r[0]), "192.0.2.1/32");
	assert_true(r[0].announce);
	assert_string_equal(r[0].why, "1 of 2 services healthy");
	free(r);
}

static void test_none_healthy(void **state)
{
	struct bgp_policy_svc s[] = {
		svc("192.0.2.1", "tcp 192.0.2.1:80", false, "0 of 3 backends up"),
		svc("2001:db8::1", "tcp [2001:db8::1]:80", true, "1 of 1 backends up"),
	};
	struct bgp_route *r;
	unsigned int n;

	eval(s, 2, NULL, &host_ok, &r, &n);
	assert_int_equal(n, 2);
	/* IPv4 first */
	assert_string_equal(pfx(&r[0]), "192.0.2.1/32");
	assert_false(r[0].announce);
	assert_string_equal(r[0].why,
			    "withdrawn: no healthy service (tcp 192.0.2.1:80: 0 of 3 backends up)");
	assert_string_equal(pfx(&r[1]), "2001:db8::1/128");
	assert_true(r[1].announce);
	free(r);
}

static void test_host_unhealthy_and_lame_duck(void **state)
{
	struct bgp_policy_svc s[] = { svc("192.0.2.1", "a", true, "") };
	struct bgp_policy_host h = { .ok = false, .why = "the kernel module does not answer" };
	struct bgp_route *r;
	unsigned int n;

	eval(s, 1, NULL, &h, &r, &n);
	assert_false(r[0].announce);
	assert_string_equal(r[0].why,
			    "withdrawn: host unhealthy: the kernel module does not answer");
	free(r);
	h = (struct bgp_policy_host){ .ok = true, .lame_duck = true };
	eval(s, 1, NULL, &h, &r, &n);
	assert_false(r[0].announce);
	assert_string_equal(r[0].why, "withdrawn: lame duck");
	free(r);
}

static void test_attributes(void **state)
{
	static const uint32_t gc[] = { 65000u << 16 | 2, 65000u << 16 | 1 };
	static const uint32_t c1[] = { 65000u << 16 | 1, 65000u << 16 | 9 };
	static const struct bgp_large_community gl[] = { { 65000, 1, 1 } };
	struct bgp_policy_attrs g = { .communities = gc, .ncommunities = 2, .large = gl,
				      .nlarge = 1, .has_med = true, .med = 50 };
	struct bgp_policy_svc s[] = {
		svc("192.0.2.1", "a", true, ""),
		svc("192.0.2.1", "b", true, ""),
		svc("192.0.2.1", "c", true, ""),
		svc("192.0.2.2", "d", true, ""),
	};
	struct bgp_route *r;
	unsigned int n;

	/* a: no MED; b: communities and MED 10; c: MED 20 (b came first) */
	s[1].attrs = (struct bgp_policy_attrs){ .communities = c1, .ncommunities = 2,
						.has_med = true, .med = 10 };
	s[2].attrs = (struct bgp_policy_attrs){ .has_med = true, .med = 20 };
	eval(s, 4, &g, &host_ok, &r, &n);
	assert_int_equal(n, 2);
	/* union, sorted, each once */
	assert_int_equal(r[0].ncommunities, 3);
	assert_int_equal(r[0].communities[0], 65000u << 16 | 1);
	assert_int_equal(r[0].communities[1], 65000u << 16 | 2);
	assert_int_equal(r[0].communities[2], 65000u << 16 | 9);
	assert_int_equal(r[0].nlarge, 1);
	assert_true(r[0].has_med);
	assert_int_equal(r[0].med, 10);
	/* no service MED: the global one */
	assert_true(r[1].has_med);
	assert_int_equal(r[1].med, 50);
	assert_int_equal(r[1].ncommunities, 2);
	assert_false(bgp_route_attrs_equal(&r[0], &r[1]));
	free(r);
}

static void test_opt_out(void **state)
{
	struct bgp_policy_svc s[] = { svc("192.0.2.1", "a", true, ""),
				      svc("192.0.2.2", "b", true, "") };
	struct bgp_route *r;
	unsigned int n;

	s[0].announce = false;
	eval(s, 2, NULL, &host_ok, &r, &n);
	assert_int_equal(n, 1);
	assert_string_equal(pfx(&r[0]), "192.0.2.2/32");
	free(r);
}

static void test_empty(void **state)
{
	struct bgp_route *r;
	unsigned int n = 7;

	eval(NULL, 0, NULL, &host_ok, &r, &n);
	assert_int_equal(n, 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_healthy_is_enough),
		cmocka_unit_test(test_none_healthy),
		cmocka_unit_test(test_host_unhealthy_and_lame_duck),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_opt_out),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests_name("bgp_policy", tests, NULL, NULL);
}
