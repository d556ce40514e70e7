// SPDX-License-Identifier: GPL-2.0
/* Unit tests for the value parsers: durations, seeds, numbers, enums, flags, addresses. */
#include "helpers.h"
#include "lib/args.h"
#include "lib/schema.h"

static void test_duration(void **state)
{
	uint32_t ms = 7;

	assert_int_equal(kmg_parse_duration("30s", &ms), 0);
	assert_int_equal(ms, 30000);
	assert_int_equal(kmg_parse_duration("1500ms", &ms), 0);
	assert_int_equal(ms, 1500);
	assert_int_equal(kmg_parse_duration("2m", &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(kmg_parse_duration("250ms", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(kmg_parse_duration("0s", &ms), 0);
	assert_int_equal(ms, 0);
	assert_int_equal(kmg_parse_duration("24h", &ms), 0);
	assert_int_equal(ms, KMAGLEV_MS_MAX);
	assert_int_equal(kmg_parse_duration("86400000ms", &ms), 0);
	assert_int_equal(ms, 86400000);
}

static void test_duration_bad(void **state)
{
	uint32_t ms = 7;

	assert_int_equal(kmg_parse_duration("25h", &ms), -ERANGE);
	assert_int_equal(kmg_parse_duration("86400001ms", &ms), -ERANGE);
	/* a bare number has no unit: -EDOM */
	assert_int_equal(kmg_parse_duration("250", &ms), -EDOM);
	assert_int_equal(kmg_parse_duration("0", &ms), -EDOM);
	assert_int_equal(kmg_parse_duration("1441m", &ms), -ERANGE);
	assert_int_equal(kmg_parse_duration("99999999999999999999", &ms), -ERANGE);
	assert_int_equal(kmg_parse_duration("", &ms), -EINVAL);
	assert_int_equal(kmg_parse_duration("s", &ms), -EINVAL);
	assert_int_equal(kmg_parse_duration("-5s", &ms), -EINVAL);
	assert_int_equal(kmg_parse_duration("5x", &ms), -EINVAL);
	assert_int_equal(kmg_parse_duration("1.5s", &ms), -EINVAL);
	assert_int_equal(kmg_parse_duration("5 s", &ms), -EINVAL);
	assert_int_equal(kmg_parse_duration("5S", &ms), -EINVAL);
	assert_int_equal(ms, 7);

	assert_int_equal(kmg_arg_duration("window", "1.5s", &ms), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid window \"1.5s\": expected a duration like 1500ms, 30s, 15m or 2h");
	assert_int_equal(kmg_arg_duration("window", "30", &ms), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid window \"30\": give a unit: 30ms, 30s, 30m or 30h");
	assert_int_equal(kmg_arg_duration("ramp-time", "2d", &ms), KMG_EUSAGE);
	assert_non_null(strstr(kmg_errmsg(), "invalid ramp-time \"2d\""));
	assert_int_equal(kmg_arg_duration("window", "48h", &ms), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid window \"48h\": must be 0ms..24h");
}

static void test_duration_fmt(void **state)
{
	char buf[32];

	assert_string_equal(kmg_fmt_duration(30000, buf, sizeof(buf)), "30s");
	assert_string_equal(kmg_fmt_duration(1500, buf, sizeof(buf)), "1500ms");
	assert_string_equal(kmg_fmt_duration(120000, buf, sizeof(buf)), "2m");
	assert_string_equal(kmg_fmt_duration(7200000, buf, sizeof(buf)), "2h");
	assert_string_equal(kmg_fmt_duration(0, buf, sizeof(buf)), "0ms");
	/* what is printed parses back to the same value */
	assert_int_equal(kmg_parse_duration(kmg_fmt_duration(61000, buf, sizeof(buf)),
					    &(uint32_t){ 0 }), 0);
}

static void test_seed(void **state)
{
	static const uint8_t want[16] = {
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
	};
	uint8_t seed[16];
	char buf[33];

	assert_int_equal(kmg_parse_seed("00112233445566778899aabbccddeeff", seed), 0);
	assert_memory_equal(seed, want, 16);
	memset(seed, 0, sizeof(seed));
	assert_int_equal(kmg_parse_seed("0x00112233445566778899AABBCCDDEEFF", seed), 0);
	assert_memory_equal(seed, want, 16);
	assert_string_equal(kmg_fmt_seed(seed, buf, sizeof(buf)),
			    "00112233445566778899aabbccddeeff");
}

static void test_seed_bad(void **state)
{
	uint8_t seed[16] = { 0x5a };

	assert_int_equal(kmg_parse_seed("00112233445566778899aabbccddeef", seed), -EINVAL);
	assert_int_equal(kmg_parse_seed("00112233445566778899aabbccddeeff0", seed), -EINVAL);
	assert_int_equal(kmg_parse_seed("00112233445566778899aabbccddeefg", seed), -EINVAL);
	assert_int_equal(kmg_parse_seed("", seed), -EINVAL);
	assert_int_equal(kmg_parse_seed("0x", seed), -EINVAL);
	assert_int_equal(kmg_parse_seed(" 0112233445566778899aabbccddeeff", seed), -EINVAL);
	/* a bad seed leaves the old one */
	assert_int_equal(seed[0], 0x5a);
	assert_int_equal(kmg_arg_seed("abc", seed), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid seed \"abc\": must be 32 hexadecimal digits (128 bits)");
}

static void test_numbers(void **state)
{
	uint32_t v;

	assert_int_equal(kmg_arg_weight("65535", &v), 0);
	assert_int_equal(v, 65535);
	assert_int_equal(kmg_arg_weight("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(kmg_arg_weight("70000", &v), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid weight \"70000\": must be 0..65535");
	assert_int_equal(kmg_arg_weight("-1", &v), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid weight \"-1\": must be 0..65535");
	assert_int_equal(kmg_arg_weight("1e3", &v), KMG_EUSAGE);
	assert_int_equal(kmg_arg_u32("ramp", "101", 0, 100, &v), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid ramp \"101\": must be 0..100");
	assert_int_equal(kmg_arg_u32("gre-key", "0xffffffff", 0, UINT32_MAX, &v), 0);
	assert_int_equal(v, UINT32_MAX);
	assert_int_equal(kmg_arg_u32("gre-key", "4294967296", 0, UINT32_MAX, &v), KMG_EUSAGE);
	/* no octal: a leading zero is decimal */
	assert_int_equal(kmg_parse_u32("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);
}

static void test_table_size(void **state)
{
	uint32_t m;

	assert_int_equal(kmg_arg_table_size("65537", &m), 0);
	assert_int_equal(m, 65537);
	assert_int_equal(kmg_arg_table_size("251", &m), 0);
	assert_int_equal(kmg_arg_table_size("16777213", &m), 0);
	assert_int_equal(m, 16777213);
	assert_int_equal(kmg_arg_table_size("65536", &m), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid table-size \"65536\": must be a prime between 251 and 16777213 (nearest primes: 65521 and 65537)");
	assert_int_equal(kmg_arg_table_size("241", &m), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid table-size \"241\": must be a prime between 251 and 16777213");
	assert_int_equal(kmg_arg_table_size("16777259", &m), KMG_EUSAGE);
	assert_int_equal(kmg_arg_table_size("big", &m), KMG_EUSAGE);
	assert_non_null(strstr(kmg_errmsg(), "invalid table-size \"big\""));
}

static void test_enums(void **state)
{
	uint32_t v;
	char buf[64];

	assert_int_equal(kmg_arg_enum("hash", &kmg_enum_hash, "5tuple", &v), 0);
	assert_int_equal(v, KMAGLEV_HASH_FIVE_TUPLE);
	assert_int_equal(kmg_arg_enum("hash", &kmg_enum_hash, "3tuple", &v), 0);
	assert_int_equal(v, KMAGLEV_HASH_THREE_TUPLE);
	assert_int_equal(kmg_arg_enum("hash", &kmg_enum_hash, "src", &v), 0);
	assert_int_equal(v, KMAGLEV_HASH_SRC_ADDR);
	assert_int_equal(kmg_arg_enum("hash", &kmg_enum_hash, "src-addr", &v), 0);
	assert_int_equal(v, KMAGLEV_HASH_SRC_ADDR);
	assert_int_equal(kmg_arg_enum("hash", &kmg_enum_hash, "4tuple", &v), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid hash \"4tuple\": must be five-tuple, three-tuple or src-addr");
	/* the spec's names print, and parse back */
	assert_string_equal(kmg_fmt_enum(&kmg_enum_hash, KMAGLEV_HASH_THREE_TUPLE, buf,
					 sizeof(buf)), "three-tuple");
	assert_string_equal(kmg_fmt_enum(&kmg_enum_hash, 9, buf, sizeof(buf)), "9");

	assert_int_equal(kmg_arg_enum("state", &kmg_enum_backend_state, "drain", &v), 0);
	assert_int_equal(v, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(kmg_arg_enum("state", &kmg_enum_backend_state, "off", &v), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid state \"off\": must be up, drain or down");
	assert_int_equal(kmg_arg_enum("encap", &kmg_enum_encap, "gre", &v), 0);
	assert_int_equal(v, KMAGLEV_ENCAP_GRE);
	assert_int_equal(kmg_arg_enum("encap", &kmg_enum_encap, "vxlan", &v), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid encap \"vxlan\": must be ipip, gre or dr");

	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, "echo,resched", &v), 0);
	assert_int_equal(v, KMAGLEV_SERVICE_FLAGS_ECHO | KMAGLEV_SERVICE_FLAGS_RESCHED);
	assert_string_equal(kmg_fmt_flags(&kmg_enum_service_flags, v, buf, sizeof(buf)),
			    "echo,resched");
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, "none", &v), 0);
	assert_int_equal(v, 0);
	assert_string_equal(kmg_fmt_flags(&kmg_enum_service_flags, 0, buf, sizeof(buf)), "none");
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, "defrag", &v), 0);
	assert_int_equal(v, KMAGLEV_SERVICE_FLAGS_DEFRAG);
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, "echo,nope", &v),
			 KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid flags \"echo,nope\": unknown flag \"nope\" (expected echo, defrag or resched, or none)");
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, "", &v), KMG_EUSAGE);
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, ",", &v), KMG_EUSAGE);
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, "echo,,defrag", &v),
			 KMG_EUSAGE);
	assert_int_equal(kmg_arg_flags("flags", &kmg_enum_service_flags, ",echo", &v), KMG_EUSAGE);
}

static void test_addresses(void **state)
{
	struct kmg_addr a;

	assert_int_equal(kmg_arg_addr("backend", "10.0.0.1", &a, 0), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(kmg_arg_addr("backend", "2001:db8::5", &a, 0), 0);
	assert_int_equal(a.family, AF_INET6);
	assert_int_equal(kmg_arg_addr("backend", "::ffff:10.0.0.1", &a, 0), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid backend \"::ffff:10.0.0.1\": IPv4-mapped IPv6 address; use the IPv4 form 10.0.0.1");
	assert_int_equal(kmg_arg_addr("backend", "0.0.0.0", &a, 0), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid backend \"0.0.0.0\": unspecified address");
	assert_int_equal(kmg_arg_addr("encap-src", "::", &a, KMG_ADDR_ALLOW_UNSPEC), 0);
	assert_int_equal(kmg_arg_addr("backend", "ff02::1", &a, 0), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid backend \"ff02::1\": multicast address");
	assert_int_equal(kmg_arg_addr("backend", "255.255.255.255", &a, 0), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid backend \"255.255.255.255\": broadcast address");
	assert_int_equal(kmg_arg_addr("backend", "0.1.2.3", &a, KMG_ADDR_ALLOW_UNSPEC), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(), "invalid backend \"0.1.2.3\": address in 0.0.0.0/8");
	assert_int_equal(kmg_arg_addr("backend", "10.0.0.256", &a, 0), KMG_EUSAGE);
	assert_string_equal(kmg_errmsg(),
			    "invalid backend \"10.0.0.256\": not an IPv4 or IPv6 address");
}

static void test_lookup(void **state)
{
	static const char *const names[] = { "service", "stats", "simulate", "backend" };

	assert_int_equal(kmg_lookup("service", names, 4), 0);
	assert_int_equal(kmg_lookup("serv", names, 4), 0);
	assert_int_equal(kmg_lookup("b", names, 4), 3);
	assert_int_equal(kmg_lookup("s", names, 4), -2);
	assert_int_equal(kmg_lookup("st", names, 4), 1);
	assert_int_equal(kmg_lookup("x", names, 4), -1);
	assert_int_equal(kmg_lookup("", names, 4), -1);
	assert_int_equal(kmg_lookup("services", names, 4), -1);
	assert_int_equal(kmg_pick("s", names, 4, "object", NULL), -1);
	assert_string_equal(kmg_errmsg(), "ambiguous object \"s\": service, stats, simulate?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_duration_bad),
		cmocka_unit_test(test_duration_fmt),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_seed_bad),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_table_size),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_lookup),
	};

	return cmocka_run_group_tests_name("args", tests, NULL, NULL);
}
