// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the CLI's parsing helpers: service specs, numbers, addresses. */
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "lib/util.h"

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
	assert_int_equal(kmg_parse_svc_spec("[2001:db8::1]", &k), 0);
	assert_int_equal(k.port, 0);
	assert_int_equal(k.proto, IPPROTO_TCP);
	/* unbracketed, "2001:db8::1:80" could be an address or an address and a port */
	assert_int_not_equal(kmg_parse_svc_spec("2001:db8::1", &k), 0);
	assert_int_not_equal(kmg_parse_svc_spec("2001:db8::1:80/tcp", &k), 0);
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

static void test_svc_spec_why(void **state)
{
	struct kmg_svc_key k;
	const char *why;

	assert_int_equal(kmg_parse_svc_spec_why("192.0.2.1:65536", &k, &why), -EINVAL);
	assert_string_equal(why, "port must be 0..65535");
	assert_int_equal(kmg_parse_svc_spec_why("192.0.2.1/sctp", &k, &why), -EINVAL);
	assert_string_equal(why, "protocol must be tcp, udp or any");
	assert_int_equal(kmg_parse_svc_spec_why("[2001:db8::1:80", &k, &why), -EINVAL);
	assert_string_equal(why, "missing \"]\" after an IPv6 address");
	assert_int_equal(kmg_parse_svc_spec_why("2001:db8::1:80/tcp", &k, &why), -EINVAL);
	assert_string_equal(why,
			    "an IPv6 address goes in brackets: [ADDR], [ADDR]/PROTO or [ADDR]:PORT/PROTO");
	assert_int_equal(kmg_parse_svc_spec_why("host.example:80", &k, &why), -EINVAL);
	assert_string_equal(why, "not an IPv4 or IPv6 address");
	/* a leading zero is not octal */
	assert_int_equal(kmg_parse_svc_spec("192.0.2.1:080", &k), 0);
	assert_int_equal(k.port, 80);
	assert_int_equal(kmg_parse_svc_spec("[2001:db8::1]/udp", &k), 0);
	assert_int_equal(k.port, 0);
	assert_int_equal(k.proto, IPPROTO_UDP);
}

static void test_addr16(void **state)
{
	struct kmg_addr a, b, c;
	uint8_t x[16];

	assert_int_equal(kmg_parse_addr("10.1.2.3", &a), 0);
	kmg_addr_to16(&a, x);
	assert_memory_equal(x, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x01\x02\x03", 16);
	kmg_addr_from16(&b, x);
	assert_true(kmg_addr_equal(&a, &b));
	assert_int_equal(b.family, AF_INET);
	/* the kernel's order: IPv4 (::ffff:0:0/96) after ::1, before 2001:db8:: */
	assert_int_equal(kmg_parse_addr("::1", &b), 0);
	assert_int_equal(kmg_parse_addr("2001:db8::", &c), 0);
	assert_true(kmg_addr_cmp(&b, &a) < 0);
	assert_true(kmg_addr_cmp(&a, &c) < 0);
	assert_int_equal(kmg_parse_addr("10.1.2.4", &b), 0);
	assert_true(kmg_addr_cmp(&a, &b) < 0);
	assert_false(kmg_addr_equal(&a, &b));
	assert_int_equal(kmg_parse_addr("::ffff:10.1.2.3", &b), 0);
	assert_true(kmg_addr_is_v4mapped(&b));
	assert_false(kmg_addr_is_v4mapped(&c));
	assert_false(kmg_addr_equal(&a, &b));
	assert_int_equal(kmg_parse_addr("0.0.0.0", &b), 0);
	assert_true(kmg_addr_is_unspec(&b));
	assert_int_equal(kmg_parse_addr("224.0.0.1", &b), 0);
	assert_true(kmg_addr_is_multicast(&b));
	assert_false(kmg_addr_is_multicast(&a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_svc_spec_v4),
		cmocka_unit_test(test_svc_spec_v6),
		cmocka_unit_test(test_svc_spec_bad),
		cmocka_unit_test(test_parse_u32),
		cmocka_unit_test(test_svc_spec_why),
		cmocka_unit_test(test_addr16),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
