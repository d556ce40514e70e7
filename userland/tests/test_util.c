// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the CLI's parsing helpers. */
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "util.h"

static void test_svc_spec_v4(void **state)
{
	struct kmg_svc_key k;
	char buf[128];

	assert_int_equal(kmg_parse_svc_spec("192.0.2.10:80/tcp", &k), 0);
	assert_int_equal(k.addr.family, AF_INET);
	assert_int_equal(k.port, 80);
	assert_int_equal(k.proto, IPPROTO_TCP);
	assert_string_equal(kmg_fmt_svc_key(&k, buf, sizeof(buf)), "192.0.2.10:80/tcp");

	assert_int_equal(kmg_parse_svc_spec("192.0.2.10", &k), 0);
	assert_int_equal(k.port, 0);
	assert_int_equal(kmg_parse_svc_spec("192.0.2.10/any", &k), 0);
	assert_int_equal(k.proto, 0);
}

static void test_svc_spec_v6(void **state)
{
	struct kmg_svc_key k;
	char buf[128];

	assert_int_equal(kmg_parse_svc_spec("[2001:db8::1]:443/udp", &k), 0);
	assert_int_equal(k.addr.family, AF_INET6);
	assert_int_equal(k.port, 443);
	assert_int_equal(k.proto, IPPROTO_UDP);
	assert_string_equal(kmg_fmt_svc_key(&k, buf, sizeof(buf)), "[2001:db8::1]:443/udp");
	assert_int_equal(kmg_parse_svc_spec("2001:db8::1", &k), 0);
	assert_int_equal(k.port, 0);
}

static void test_svc_spec_bad(void **state)
{
	struct kmg_svc_key k;

	assert_int_not_equal(kmg_parse_svc_spec("192.0.2.300:80", &k), 0);
	assert_int_not_equal(kmg_parse_svc_spec("192.0.2.1:65536", &k), 0);
	assert_int_not_equal(kmg_parse_svc_spec("192.0.2.1:80/sctp", &k), 0);
	assert_int_not_equal(kmg_parse_svc_spec("[2001:db8::1:80", &k), 0);
	assert_int_not_equal(kmg_parse_svc_spec("192.0.2.1:-1", &k), 0);
	assert_int_not_equal(kmg_parse_svc_spec("", &k), 0);
}

static void test_parse_u32(void **state)
{
	uint32_t v;

	assert_int_equal(kmg_parse_u32("65535", 0, 65535, &v), 0);
	assert_int_equal(v, 65535);
	assert_int_equal(kmg_parse_u32("65536", 0, 65535, &v), -ERANGE);
	assert_int_equal(kmg_parse_u32("-1", 0, 65535, &v), -EINVAL);
	assert_int_equal(kmg_parse_u32("12x", 0, 65535, &v), -EINVAL);
	assert_int_equal(kmg_parse_u32("", 0, 65535, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svc_spec_v4),
		cmocka_unit_test(test_svc_spec_v6),
		cmocka_unit_test(test_svc_spec_bad),
		cmocka_unit_test(test_parse_u32),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
