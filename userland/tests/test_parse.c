// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for command-line parsing of every command: valid input fills the request structs,
 * and each class of invalid input is refused with a message naming the field and the value,
 * exit status 2, before the netlink socket is even opened.
 */
#include "helpers.h"
#include "lib/args.h"
#include "lib/dscp.h"

static int parse_service(const char *line, bool is_set, struct kmg_service *s)
{
	struct targv t = targv(line);
	int ret = kmg_service_parse(t.argc, t.argv, is_set, s);

	targv_free(&t);
	return ret;
}

static int parse_backend(int op, const char *line, struct kmg_service *s, struct kmg_backend *b)
{
	struct targv t = targv(line);
	int ret = kmg_backend_parse(op, t.argc, t.argv, s, b);

	targv_free(&t);
	return ret;
}

/* Run a whole command line; it must fail with @code without opening netlink. */
static void run_fails(const char *line, int code, const char *msg)
{
	struct kmg_ctx ctx = { .out = stdout };
	struct targv t = targv(line);
	int ret = kmg_run(&ctx, t.argc, t.argv);

	targv_free(&t);
	if (ret != code || strcmp(kmg_errmsg(), msg))
		print_error("\"%s\": got %d \"%s\", want %d \"%s\"\n", line, ret, kmg_errmsg(), code,
			    msg);
	assert_int_equal(ret, code);
	assert_string_equal(kmg_errmsg(), msg);
	assert_false(ctx.nl_open);
}

static void test_service_add(void **state)
{
	struct kmg_service s;
	char buf[64];

	assert_int_equal(parse_service("192.0.2.10:80/tcp table-size 65537", false, &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_ADDR4));
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_PROTO));
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_PORT));
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_ID));
	assert_string_equal(kmg_fmt_svc_key(&s.key, buf, sizeof(buf)), "192.0.2.10:80/tcp");
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_TABLE_SIZE));
	assert_int_equal(s.table_size, 65537);
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_HASH));
	assert_int_equal(s.nbe, 0);
	kmg_service_free(&s);

	assert_int_equal(parse_service("[2001:db8::1]:53/udp hash src flags echo,defrag "
				       "seed 00112233445566778899aabbccddeeff ramp 50 ramp-time 30s "
				       "window 2m max-conns 1000 client-rate 20 "
				       "encap-src 192.0.2.1 encap-src 2001:db8::100", false, &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_ADDR6));
	assert_int_equal(s.key.proto, IPPROTO_UDP);
	assert_int_equal(s.key.port, 53);
	assert_int_equal(s.hash, KMAGLEV_HASH_SRC_ADDR);
	assert_int_equal(s.flags, KMAGLEV_SERVICE_FLAGS_ECHO | KMAGLEV_SERVICE_FLAGS_DEFRAG);
	assert_int_equal(s.seed[15], 0xff);
	assert_int_equal(s.ramp_pct, 50);
	assert_int_equal(s.ramp_ms, 30000);
	assert_int_equal(s.window_ms, 120000);
	assert_int_equal(s.max_conns, 1000);
	assert_int_equal(s.client_rate, 20);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_ENCAP_SRC4));
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_ENCAP_SRC6));
	kmg_service_free(&s);

	/* defaults: tcp, port 0 = every port */
	assert_int_equal(parse_service("192.0.2.10", false, &s), 0);
	assert_int_equal(s.key.proto, IPPROTO_TCP);
	assert_int_equal(s.key.port, 0);
	kmg_service_free(&s);
}

static void test_service_backends(void **state)
{
	struct kmg_service s;

	assert_int_equal(parse_service("192.0.2.10:80 table-size 251 backend 10.0.0.11 weight 100 "
				       "encap gre gre-key 7 backend 10.0.0.12 state drain max-conns 5 "
				       "backend 2001:db8::12", false, &s), 0);
	assert_int_equal(s.nbe, 3);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_BACKEND));
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS));
	assert_int_equal(s.be[0].weight, 100);
	assert_int_equal(s.be[0].encap, KMAGLEV_ENCAP_GRE);
	assert_int_equal(s.be[0].gre_key, 7);
	assert_true(KMG_HAS(&s.be[0], KMAGLEV_A_BACKEND_GRE_KEY));
	assert_false(KMG_HAS(&s.be[1], KMAGLEV_A_BACKEND_WEIGHT));
	assert_int_equal(s.be[1].state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(s.be[1].max_conns, 5);
	/* the backend's max-conns, not the service's */
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_MAX_CONNS));
	assert_int_equal(s.be[2].addr.family, AF_INET6);
	assert_true(KMG_HAS(&s.be[2], KMAGLEV_A_BACKEND_ADDR6));
	kmg_service_free(&s);
}

static void test_service_set(void **state)
{
	struct kmg_service s;

	assert_int_equal(parse_service("id 7 window 10s", true, &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_ID));
	assert_int_equal(s.id, 7);
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_ADDR4));
	assert_int_equal(s.window_ms, 10000);
	kmg_service_free(&s);

	assert_int_equal(parse_service("192.0.2.10:80 no-backends", true, &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS));
	assert_int_equal(s.nbe, 0);
	kmg_service_free(&s);

	assert_int_equal(parse_service("192.0.2.10:80 backend 10.0.0.1 backend 10.0.0.2", true,
				       &s), 0);
	assert_int_equal(s.nbe, 2);
	kmg_service_free(&s);

	/* a backend of a new set is complete: a gre-key needs its encap gre in the clause */
	assert_int_equal(parse_service("192.0.2.10:80 backend 10.0.0.1 gre-key 3", true, &s),
			 KMG_EUSAGE);
	kmg_service_free(&s);
	assert_int_equal(parse_service("192.0.2.10:80 backend 10.0.0.1 encap gre gre-key 3", true,
				       &s), 0);
	kmg_service_free(&s);

	assert_int_equal(parse_service("192.0.2.10:80 flags none", true, &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_FLAGS));
	assert_int_equal(s.flags, 0);
	kmg_service_free(&s);
}

static void test_service_errors(void **state)
{
	run_fails("service add 192.0.2.10:80/tcp table-size 65536", KMG_EUSAGE,
		  "invalid table-size \"65536\": must be a prime between 251 and 16777213 (nearest primes: 65521 and 65537)");
	run_fails("service add 192.0.2.300:80", KMG_EUSAGE,
		  "invalid service \"192.0.2.300:80\": not an IPv4 or IPv6 address");
	run_fails("service add 192.0.2.1:65536", KMG_EUSAGE,
		  "invalid service \"192.0.2.1:65536\": port must be 0..65535");
	run_fails("service add 192.0.2.1:80/sctp", KMG_EUSAGE,
		  "invalid service \"192.0.2.1:80/sctp\": protocol must be tcp, udp or any");
	run_fails("service add [::ffff:192.0.2.1]:80", KMG_EUSAGE,
		  "invalid service \"[::ffff:192.0.2.1]:80\": IPv4-mapped IPv6 address; use the IPv4 form 192.0.2.1");
	run_fails("service add", KMG_EUSAGE, "missing SERVICE (ADDR[:PORT][/PROTO])");
	run_fails("service add id 3", KMG_EUSAGE,
		  "a service id cannot be used here; give ADDR[:PORT][/PROTO]");
	run_fails("service add 192.0.2.10 tablesize 251", KMG_EUSAGE,
		  "unknown keyword \"tablesize\" in service add; see \"kmaglev service help\"");
	run_fails("service add 192.0.2.10 window", KMG_EUSAGE, "missing value after \"window\"");
	run_fails("service add 192.0.2.10 window 5s window 6s", KMG_EUSAGE,
		  "duplicate keyword \"window\"");
	run_fails("service add 192.0.2.10 ramp 101", KMG_EUSAGE,
		  "invalid ramp \"101\": must be 0..100");
	run_fails("service add 192.0.2.10 hash 4tuple", KMG_EUSAGE,
		  "invalid hash \"4tuple\": must be five-tuple, three-tuple or src-addr");
	run_fails("service add 192.0.2.10 encap-src 10.0.0.1 encap-src 10.0.0.2", KMG_EUSAGE,
		  "duplicate keyword \"encap-src\" for IPv4 (one per family)");
	run_fails("service add 192.0.2.10 encap-src ::ffff:10.0.0.1", KMG_EUSAGE,
		  "invalid encap-src \"::ffff:10.0.0.1\": IPv4-mapped IPv6 address; use the IPv4 form 10.0.0.1");
	run_fails("service add 192.0.2.10 backend 10.0.0.1 weight 70000", KMG_EUSAGE,
		  "invalid weight \"70000\": must be 0..65535");
	run_fails("service add 192.0.2.10 backend 10.0.0.1 backend 10.0.0.1", KMG_EUSAGE,
		  "duplicate backend 10.0.0.1");
	run_fails("service add 192.0.2.10 backend 10.0.0.1 weight 1 weight 2", KMG_EUSAGE,
		  "duplicate keyword \"weight\"");
	run_fails("service add 192.0.2.10 backend 10.0.0.1 gre-key 5", KMG_EUSAGE,
		  "invalid gre-key for backend 10.0.0.1: a GRE key needs \"encap gre\" (the default encap is ipip)");
	run_fails("service add 192.0.2.10 backend 10.0.0.1 encap ipip gre-key 5", KMG_EUSAGE,
		  "invalid gre-key for backend 10.0.0.1: a GRE key needs \"encap gre\" (encap is ipip)");
	run_fails("service add 192.0.2.10 backend 10.0.0.1 table-size 251", KMG_EUSAGE,
		  "service option \"table-size\" after a backend: give service options before the backends");
	run_fails("service add 192.0.2.10 backend", KMG_EUSAGE, "missing value after \"backend\"");
	run_fails("service add 192.0.2.10 no-backends", KMG_EUSAGE,
		  "\"no-backends\" is only for \"service set\" (a new service has none unless given)");
	run_fails("service set 192.0.2.10 backend 10.0.0.1 no-backends", KMG_EUSAGE,
		  "\"backend\" and \"no-backends\" exclude each other");
	run_fails("service set 192.0.2.10", KMG_EUSAGE, "service set: nothing to change");
	run_fails("service del", KMG_EUSAGE, "missing SERVICE in service del");
	run_fails("service del 192.0.2.10 now", KMG_EUSAGE,
		  "unexpected \"now\" after the service in service del");
	run_fails("service show id x", KMG_EUSAGE, "invalid service id \"x\": must be 0..4294967295");
	run_fails("service flush all", KMG_EUSAGE, "unexpected \"all\" after \"service flush\"");
	run_fails("service frob", KMG_EUSAGE,
		  "unknown command \"frob\" for service; try \"kmaglev service help\"");
	run_fails("service s 1.2.3.4", KMG_EUSAGE, "ambiguous command \"s\": set, show?");
}

static void test_service_key(void **state)
{
	struct kmg_service s;
	struct targv t = targv("id 12");
	bool given;

	assert_int_equal(kmg_service_parse_key(t.argc, t.argv, true, "service del", &s, &given), 0);
	assert_true(given);
	assert_int_equal(s.present, KMG_BIT(KMAGLEV_A_SERVICE_ID));
	assert_int_equal(s.id, 12);
	assert_int_equal(kmg_service_parse_key(0, t.argv, false, "service show", &s, &given), 0);
	assert_false(given);
	assert_int_equal(s.present, 0);
	targv_free(&t);
}

static void test_backend(void **state)
{
	struct kmg_service s;
	struct kmg_backend b;

	assert_int_equal(parse_backend(KMG_BE_ADD, "192.0.2.10:80/tcp 10.0.0.11 weight 100 encap gre",
				       &s, &b), 0);
	assert_int_equal(s.key.port, 80);
	assert_true(KMG_HAS(&b, KMAGLEV_A_BACKEND_ADDR4));
	assert_int_equal(b.weight, 100);
	assert_int_equal(b.encap, KMAGLEV_ENCAP_GRE);
	assert_false(KMG_HAS(&b, KMAGLEV_A_BACKEND_STATE));

	assert_int_equal(parse_backend(KMG_BE_SET, "id 3 2001:db8::7 state down max-conns 9",
				       &s, &b), 0);
	assert_int_equal(s.id, 3);
	assert_int_equal(b.state, KMAGLEV_BACKEND_STATE_DOWN);
	assert_int_equal(b.max_conns, 9);
	/* set: gre-key alone is fine, the backend may be GRE already */
	assert_int_equal(parse_backend(KMG_BE_SET, "id 3 10.0.0.1 gre-key 9", &s, &b), 0);

	assert_int_equal(parse_backend(KMG_BE_DRAIN, "192.0.2.10 10.0.0.11", &s, &b), 0);
	assert_true(KMG_HAS(&b, KMAGLEV_A_BACKEND_STATE));
	assert_int_equal(b.state, KMAGLEV_BACKEND_STATE_DRAIN);

	assert_int_equal(parse_backend(KMG_BE_DEL, "192.0.2.10 10.0.0.11", &s, &b), 0);
	assert_int_equal(b.present, KMG_BIT(KMAGLEV_A_BACKEND_ADDR4));

	assert_int_equal(parse_backend(KMG_BE_SHOW, "", &s, &b), 0);
	assert_int_equal(s.present, 0);
	assert_int_equal(b.present, 0);
	assert_int_equal(parse_backend(KMG_BE_SHOW, "192.0.2.10", &s, &b), 0);
	assert_int_not_equal(s.present, 0);
	assert_int_equal(b.present, 0);
	assert_int_equal(parse_backend(KMG_BE_SHOW, "192.0.2.10 10.0.0.1", &s, &b), 0);
	assert_int_not_equal(b.present, 0);
}

static void test_backend_errors(void **state)
{
	run_fails("backend add 192.0.2.10:80/tcp 10.0.0.11 weight 70000", KMG_EUSAGE,
		  "invalid weight \"70000\": must be 0..65535");
	run_fails("backend add 192.0.2.10:80/tcp", KMG_EUSAGE,
		  "missing backend ADDR in backend add");
	run_fails("backend add 192.0.2.10 10.0.0.300", KMG_EUSAGE,
		  "invalid backend \"10.0.0.300\": not an IPv4 or IPv6 address");
	run_fails("backend add 192.0.2.10 ::ffff:10.0.0.3", KMG_EUSAGE,
		  "invalid backend \"::ffff:10.0.0.3\": IPv4-mapped IPv6 address; use the IPv4 form 10.0.0.3");
	run_fails("backend add 192.0.2.10 10.0.0.3 state sleepy", KMG_EUSAGE,
		  "invalid state \"sleepy\": must be up, drain or down");
	run_fails("backend add 192.0.2.10 10.0.0.3 encap vxlan", KMG_EUSAGE,
		  "invalid encap \"vxlan\": must be ipip, gre or dr");
	run_fails("backend add 192.0.2.10 10.0.0.3 gre-key 1", KMG_EUSAGE,
		  "invalid gre-key for backend 10.0.0.3: a GRE key needs \"encap gre\" (the default encap is ipip)");
	run_fails("backend add 192.0.2.10 10.0.0.3 gre-key -1 encap gre", KMG_EUSAGE,
		  "invalid gre-key \"-1\": must be 0..4294967295");
	run_fails("backend add 192.0.2.10 10.0.0.3 weight 2 weight 3", KMG_EUSAGE,
		  "duplicate keyword \"weight\"");
	run_fails("backend add 192.0.2.10 10.0.0.3 colour blue", KMG_EUSAGE,
		  "unknown keyword \"colour\" in backend add; see \"kmaglev backend help\"");
	run_fails("backend set 192.0.2.10 10.0.0.3", KMG_EUSAGE, "backend set: nothing to change");
	run_fails("backend set 192.0.2.10 10.0.0.3 encap ipip gre-key 4", KMG_EUSAGE,
		  "invalid gre-key for backend 10.0.0.3: a GRE key needs \"encap gre\" (encap is ipip)");
	run_fails("backend del 192.0.2.10 10.0.0.3 weight 1", KMG_EUSAGE,
		  "unknown keyword \"weight\" in backend del; see \"kmaglev backend help\"");
	run_fails("backend drain 192.0.2.10", KMG_EUSAGE, "missing backend ADDR in backend drain");
	run_fails("backend show 192.0.2.10 10.0.0.1 extra", KMG_EUSAGE,
		  "unknown keyword \"extra\" in backend show; see \"kmaglev backend help\"");
}

static void test_config(void **state)
{
	struct kmg_config c;
	struct targv t = targv("max-services 100 max-backends 5000");

	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	assert_int_equal(c.max_services, 100);
	assert_int_equal(c.max_backends, 5000);
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_MAX_SERVICES));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_MAX_BACKENDS));
	assert_false(KMG_HAS(&c, KMAGLEV_A_CONFIG_CONN_MAX));
	targv_free(&t);

	run_fails("config set", KMG_EUSAGE,
		  "config set: nothing to change; see \"kmaglev config help\"");
	run_fails("config set max-services", KMG_EUSAGE, "missing value after \"max-services\"");
	run_fails("config set max-services x", KMG_EUSAGE,
		  "invalid max-services \"x\": must be 0..4294967295");
	run_fails("config set max-services 1 max-services 2", KMG_EUSAGE,
		  "duplicate keyword \"max-services\"");
	run_fails("config set max-vips 1", KMG_EUSAGE,
		  "unknown keyword \"max-vips\" in config set; see \"kmaglev config help\"");
	run_fails("config show now", KMG_EUSAGE, "unexpected \"now\" after \"config show\"");
}

/* The connection-table settings: numbers, timeouts in seconds (with units), probe marks. */
static void test_config_conn(void **state)
{
	struct kmg_config c;
	struct targv t = targv("conn-max 64 timeout-tcp-syn 5s timeout-tcp-est 15m "
			       "timeout-tcp-fin 10s timeout-udp 1h flood-rate 0x10 "
			       "probe-mark-min 0x100 probe-mark-max 511");

	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_int_equal(c.conn_max, 64);
	assert_int_equal(c.timeout_tcp_syn, 5);
	assert_int_equal(c.timeout_tcp_est, 900);
	assert_int_equal(c.timeout_tcp_fin, 10);
	assert_int_equal(c.timeout_udp, 3600);
	assert_int_equal(c.flood_rate, 16);
	assert_int_equal(c.probe_mark_min, 256);
	assert_int_equal(c.probe_mark_max, 511);
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_CONN_MAX));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_TIMEOUT_UDP));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_FLOOD_RATE));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN));
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX));
	assert_false(KMG_HAS(&c, KMAGLEV_A_CONFIG_MAX_SERVICES));
	assert_false(KMG_HAS(&c, KMAGLEV_A_CONFIG_CONNS));

	/* 0 turns flood mode and probe marks off; conn-max 0 is the kernel's to judge */
	t = targv("flood-rate 0 probe-mark-min 0 probe-mark-max 0");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_FLOOD_RATE));
	assert_int_equal(c.flood_rate, 0);

	run_fails("config set timeout-tcp-est 0s", KMG_EUSAGE,
		  "invalid timeout-tcp-est \"0s\": must be 1s..168h");
	run_fails("config set timeout-udp 604801s", KMG_EUSAGE,
		  "invalid timeout-udp \"604801s\": must be 1s..168h");
	run_fails("config set timeout-udp 169h", KMG_EUSAGE,
		  "invalid timeout-udp \"169h\": must be 1s..168h");
	/* a bare number names no unit */
	run_fails("config set timeout-udp 30", KMG_EUSAGE,
		  "invalid timeout-udp \"30\": give a unit: 30s, 30m or 30h");
	run_fails("config set timeout-tcp-syn 500ms", KMG_EUSAGE,
		  "invalid timeout-tcp-syn \"500ms\": expected a duration like 30s, 15m or 2h");
	run_fails("config set timeout-tcp-fin -1", KMG_EUSAGE,
		  "invalid timeout-tcp-fin \"-1\": expected a duration like 30s, 15m or 2h");
	/* read-only counters are not settable; prefixes of settable keywords are */
	run_fails("config set conns 5", KMG_EUSAGE,
		  "conns is read-only (shown by \"kmaglev config show\")");
	run_fails("config set timeout 5s", KMG_EUSAGE,
		  "ambiguous keyword \"timeout\" in config set: timeout-tcp-syn, timeout-tcp-est, "
		  "timeout-tcp-fin, timeout-udp?");
	run_fails("config set conn-max 4294967296", KMG_EUSAGE,
		  "invalid conn-max \"4294967296\": must be 0..4294967295");
	run_fails("config set conn-max 10 conn-max 20", KMG_EUSAGE,
		  "duplicate keyword \"conn-max\"");
	run_fails("config set conns 5", KMG_EUSAGE,
		  "conns is read-only (shown by \"kmaglev config show\")");
	run_fails("config set probe-mark-min 0x200 probe-mark-max 0x100", KMG_EUSAGE,
		  "invalid probe-mark-max \"256\": must not be below probe-mark-min (512)");
}

/* The per-source quota settings: ranges and enums from the spec, each error naming its field. */
static void test_config_quota(void **state)
{
	struct kmg_config c;
	struct targv t = targv("quota-rate 1000000 quota-burst 10000000 quota-prefix4 1 "
			       "quota-prefix6 128 quota-scope service quota-action rst "
			       "quota-max 16777216");

	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_int_equal(c.quota_rate, KMAGLEV_QUOTA_RATE_MAX);
	assert_int_equal(c.quota_burst, KMAGLEV_QUOTA_BURST_MAX);
	assert_int_equal(c.quota_prefix4, 1);
	assert_int_equal(c.quota_prefix6, 128);
	assert_int_equal(c.quota_scope, KMAGLEV_QUOTA_SCOPE_SERVICE);
	assert_int_equal(c.quota_action, KMAGLEV_QUOTA_ACTION_RST);
	assert_int_equal(c.quota_max, KMAGLEV_QUOTA_MAX_MAX);
	assert_int_equal(c.present, KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_RATE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_BURST) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX4) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX6) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_SCOPE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_ACTION) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_MAX));

	/* the other ends; 0 turns quotas off and means one second's worth of burst */
	t = targv("quota-rate 0 quota-burst 0 quota-prefix4 32 quota-prefix6 1 quota-scope netns "
		  "quota-action drop quota-max 1");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_QUOTA_RATE));
	assert_int_equal(c.quota_rate, 0);
	assert_int_equal(c.quota_prefix4, 32);
	assert_int_equal(c.quota_scope, KMAGLEV_QUOTA_SCOPE_NETNS);
	assert_int_equal(c.quota_action, KMAGLEV_QUOTA_ACTION_DROP);
	assert_int_equal(c.quota_max, 1);

	/* unique prefixes of the keywords */
	t = targv("quota-r 5 quota-b 10 quota-prefix4 24 quota-s service quota-a rst quota-m 9");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_int_equal(c.quota_rate, 5);
	assert_int_equal(c.quota_burst, 10);
	assert_int_equal(c.quota_scope, KMAGLEV_QUOTA_SCOPE_SERVICE);
	assert_int_equal(c.quota_max, 9);

	run_fails("config set quota-rate 1000001", KMG_EUSAGE,
		  "invalid quota-rate \"1000001\": must be 0..1000000");
	run_fails("config set quota-rate many", KMG_EUSAGE,
		  "invalid quota-rate \"many\": must be 0..1000000");
	run_fails("config set quota-burst 10000001", KMG_EUSAGE,
		  "invalid quota-burst \"10000001\": must be 0..10000000");
	run_fails("config set quota-prefix4 0", KMG_EUSAGE,
		  "invalid quota-prefix4 \"0\": must be 1..32");
	run_fails("config set quota-prefix4 33", KMG_EUSAGE,
		  "invalid quota-prefix4 \"33\": must be 1..32");
	run_fails("config set quota-prefix6 0", KMG_EUSAGE,
		  "invalid quota-prefix6 \"0\": must be 1..128");
	run_fails("config set quota-prefix6 129", KMG_EUSAGE,
		  "invalid quota-prefix6 \"129\": must be 1..128");
	run_fails("config set quota-scope global", KMG_EUSAGE,
		  "invalid quota-scope \"global\": must be netns or service");
	run_fails("config set quota-scope 1", KMG_EUSAGE,
		  "invalid quota-scope \"1\": must be netns or service");
	run_fails("config set quota-action reject", KMG_EUSAGE,
		  "invalid quota-action \"reject\": must be drop or rst");
	run_fails("config set quota-max 0", KMG_EUSAGE,
		  "invalid quota-max \"0\": must be 1..16777216");
	run_fails("config set quota-max 16777217", KMG_EUSAGE,
		  "invalid quota-max \"16777217\": must be 1..16777216");
	run_fails("config set quota-max", KMG_EUSAGE, "missing value after \"quota-max\"");
	run_fails("config set quotas 10", KMG_EUSAGE,
		  "quotas is read-only (shown by \"kmaglev config show\")");
	run_fails("config set quota-prefix 24", KMG_EUSAGE,
		  "ambiguous keyword \"quota-prefix\" in config set: quota-prefix4, quota-prefix6?");
	run_fails("config set quota 24", KMG_EUSAGE, "ambiguous keyword \"quota\" in config set: quota-rate, quota-burst, quota-prefix4, "
		  "quota-prefix6, quota-scope, quota-action, quota-max?");
	run_fails("config set quota-s netns quota-scope service", KMG_EUSAGE,
		  "duplicate keyword \"quota-scope\"");
}

/* --- load shedding ----------------------------------------------------------------------- */

/* Every DSCP prints as the map prints it and reads back as itself; names in any case. */
static void test_dscp_names(void **state)
{
	static const struct {
		const char *name;
		int dscp;
	} std[] = {
		{ "cs0", 0 }, { "cs1", 8 }, { "cs2", 16 }, { "cs3", 24 }, { "cs4", 32 },
		{ "cs5", 40 }, { "cs6", 48 }, { "cs7", 56 }, { "af11", 10 }, { "af12", 12 },
		{ "af13", 14 }, { "af21", 18 }, { "af22", 20 }, { "af23", 22 }, { "af31", 26 },
		{ "af32", 28 }, { "af33", 30 }, { "af41", 34 }, { "af42", 36 }, { "af43", 38 },
		{ "ef", 46 }, { "le", 1 },
	};
	unsigned int i, named = 0;
	char buf[8];

	for (i = 0; i < KMG_ARRAY_SIZE(std); i++) {
		assert_int_equal(kmg_dscp_value(std[i].name), std[i].dscp);
		assert_string_equal(kmg_dscp_name(std[i].dscp), std[i].name);
	}
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++) {
		kmg_fmt_dscp(i, buf, sizeof(buf));
		assert_int_equal(kmg_dscp_value(buf), i);
		named += kmg_dscp_name(i) != NULL;
		snprintf(buf, sizeof(buf), "%u", i);
		assert_int_equal(kmg_dscp_value(buf), i);
	}
	assert_int_equal(named, KMG_ARRAY_SIZE(std));
	assert_string_equal(kmg_fmt_dscp(5, buf, sizeof(buf)), "5");
	assert_int_equal(kmg_dscp_value("EF"), 46);
	assert_int_equal(kmg_dscp_value("Af41"), 34);
	assert_int_equal(kmg_dscp_value("0x2e"), 46);
	assert_int_equal(kmg_dscp_value("64"), -1);
	assert_int_equal(kmg_dscp_value("-1"), -1);
	assert_int_equal(kmg_dscp_value("af14"), -1);
	assert_int_equal(kmg_dscp_value("cs8"), -1);
	assert_int_equal(kmg_dscp_value(""), -1);
	assert_null(kmg_dscp_class(0));
	assert_string_equal(kmg_dscp_class(1), "critical-plus");
	assert_string_equal(kmg_dscp_class(4), "sheddable");
	assert_null(kmg_dscp_class(5));
}

/* The text form: parsed into the kernel's bytes, printed back sorted and by name. */
static void test_dscp_map_text(void **state)
{
	uint8_t map[KMAGLEV_DSCP_MAP_LEN], back[KMAGLEV_DSCP_MAP_LEN];
	char why[160], text[KMG_DSCP_MAP_TEXT_LEN];
	unsigned int i;

	assert_int_equal(kmg_parse_dscp_map("ef=critical-plus,cs1=sheddable,10=sheddable-plus",
					    map, why, sizeof(why)), 0);
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		assert_int_equal(map[i], i == 46 ? 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS :
				 i == 8 ? 1 + KMAGLEV_CRITICALITY_SHEDDABLE :
				 i == 10 ? 1 + KMAGLEV_CRITICALITY_SHEDDABLE_PLUS : 0);
	/* ascending DSCP, the standard name where there is one */
	assert_string_equal(kmg_fmt_dscp_map(map, text, sizeof(text)),
			    "cs1=sheddable,af11=sheddable-plus,ef=critical-plus");
	assert_int_equal(kmg_parse_dscp_map(text, back, why, sizeof(why)), 0);
	assert_memory_equal(map, back, sizeof(map));

	/* blanks around entries and around "=", as people write lists, change nothing */
	assert_int_equal(kmg_parse_dscp_map(" ef = critical-plus, cs1=sheddable ,10 =sheddable-plus",
					    back, why, sizeof(why)), 0);
	assert_memory_equal(map, back, sizeof(map));
	assert_int_equal(kmg_parse_dscp_map("ef=critical-plus, ,cs1=sheddable", back, why,
					    sizeof(why)), -EINVAL);
	assert_string_equal(why, "an empty entry (expected DSCP=CLASS[,DSCP=CLASS...])");

	/* none, and the empty map printed */
	assert_int_equal(kmg_parse_dscp_map("none", map, why, sizeof(why)), 0);
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		assert_int_equal(map[i], 0);
	assert_string_equal(kmg_fmt_dscp_map(map, text, sizeof(text)), "none");

	/* every DSCP, every class: the longest text fits and reads back */
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		map[i] = 1 + (i * 7 + 3) % 4;
	map[10] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE_PLUS;
	kmg_fmt_dscp_map(map, text, sizeof(text));
	assert_true(strlen(text) < sizeof(text) - 1);
	assert_non_null(strstr(text, "cs0="));
	assert_non_null(strstr(text, ",63="));
	assert_int_equal(kmg_parse_dscp_map(text, back, why, sizeof(why)), 0);
	assert_memory_equal(map, back, sizeof(map));
	/* a class this program does not know prints as its number */
	map[0] = 9;
	assert_non_null(strstr(kmg_fmt_dscp_map(map, text, sizeof(text)), "cs0=8,"));

	/* errors name the entry; the map is left as it was */
	memset(map, 0, sizeof(map));
	assert_int_equal(kmg_parse_dscp_map("ef=critical,xx=sheddable", map, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "unknown DSCP \"xx\" (0..63, cs0..cs7, af11..af43, ef or le)");
	assert_int_equal(map[46], 0);
	assert_int_equal(kmg_parse_dscp_map("ef=critical,46=sheddable", map, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "DSCP 46 (ef) listed twice");
	assert_int_equal(kmg_parse_dscp_map("5=critical,0x5=sheddable", map, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "DSCP 5 listed twice");
	assert_int_equal(kmg_parse_dscp_map("ef=low", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "unknown class \"low\" for DSCP ef (critical-plus, critical, "
			    "sheddable-plus or sheddable)");
	assert_int_equal(kmg_parse_dscp_map("ef=", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "unknown class \"\" for DSCP ef (critical-plus, critical, "
			    "sheddable-plus or sheddable)");
	assert_int_equal(kmg_parse_dscp_map("ef", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "\"ef\" is not DSCP=CLASS");
	assert_int_equal(kmg_parse_dscp_map("=critical", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "unknown DSCP \"\" (0..63, cs0..cs7, af11..af43, ef or le)");
	assert_int_equal(kmg_parse_dscp_map("ef=critical,", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "an empty entry (expected DSCP=CLASS[,DSCP=CLASS...])");
	assert_int_equal(kmg_parse_dscp_map("", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "expected DSCP=CLASS[,DSCP=CLASS...] or none");
	assert_int_equal(kmg_parse_dscp_map("none,ef=critical", map, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "\"none\" is not DSCP=CLASS");
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		assert_int_equal(map[i], 0);
}

/* config set: the load-shedding settings, their ranges, the two load marks in order. */
static void test_config_shed(void **state)
{
	struct kmg_config c;
	struct targv t = targv("dscp-map EF=critical-plus,cs1=sheddable shed-class sheddable-plus "
			       "shed-conn-fill 100 shed-new-rate 4294967295 shed-load-high 1000 "
			       "shed-load-low 999");

	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_int_equal(c.dscp_map[46], 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS);
	assert_int_equal(c.dscp_map[8], 1 + KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_int_equal(c.dscp_map[0], 0);
	assert_int_equal(c.shed_class, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	assert_int_equal(c.shed_conn_fill, 100);
	assert_int_equal(c.shed_new_rate, UINT32_MAX);
	assert_int_equal(c.shed_load_high, 1000);
	assert_int_equal(c.shed_load_low, 999);
	assert_int_equal(c.present, KMG_BIT(KMAGLEV_A_CONFIG_DSCP_MAP) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_CLASS) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_CONN_FILL) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_NEW_RATE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_HIGH) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_LOW));

	/* the other ends: none, every signal off; a low mark with the high one off is fine */
	t = targv("dscp-map none shed-class critical-plus shed-conn-fill 0 shed-new-rate 0 "
		  "shed-load-high 0 shed-load-low 1000");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_true(KMG_HAS(&c, KMAGLEV_A_CONFIG_DSCP_MAP));
	assert_int_equal(c.dscp_map[46], 0);
	assert_int_equal(c.shed_class, KMAGLEV_CRITICALITY_CRITICAL_PLUS);
	assert_int_equal(c.shed_load_low, 1000);
	/* each mark alone: the kernel compares with the other it has */
	t = targv("shed-load-low 900");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	t = targv("shed-load-high 800 shed-load-low 0");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);

	/* unique prefixes */
	t = targv("dscp ef=sheddable shed-cl sheddable shed-co 5 shed-n 6 shed-load-h 7");
	assert_int_equal(kmg_config_parse(t.argc, t.argv, &c), 0);
	targv_free(&t);
	assert_int_equal(c.dscp_map[46], 1 + KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_int_equal(c.shed_conn_fill, 5);
	assert_int_equal(c.shed_new_rate, 6);
	assert_int_equal(c.shed_load_high, 7);

	run_fails("config set dscp-map xx=critical", KMG_EUSAGE,
		  "invalid dscp-map: unknown DSCP \"xx\" (0..63, cs0..cs7, af11..af43, ef or le)");
	run_fails("config set dscp-map ef=critical,46=sheddable", KMG_EUSAGE,
		  "invalid dscp-map: DSCP 46 (ef) listed twice");
	run_fails("config set dscp-map 64=critical", KMG_EUSAGE,
		  "invalid dscp-map: unknown DSCP \"64\" (0..63, cs0..cs7, af11..af43, ef or le)");
	run_fails("config set dscp-map ef=important", KMG_EUSAGE,
		  "invalid dscp-map: unknown class \"important\" for DSCP ef (critical-plus, "
		  "critical, sheddable-plus or sheddable)");
	run_fails("config set dscp-map ef:critical", KMG_EUSAGE,
		  "invalid dscp-map: \"ef:critical\" is not DSCP=CLASS");
	run_fails("config set dscp-map", KMG_EUSAGE, "missing value after \"dscp-map\"");
	run_fails("config set dscp-map none dscp-map none", KMG_EUSAGE,
		  "duplicate keyword \"dscp-map\"");
	run_fails("config set shed-class best-effort", KMG_EUSAGE,
		  "invalid shed-class \"best-effort\": must be critical-plus, critical, "
		  "sheddable-plus or sheddable");
	run_fails("config set shed-class 3", KMG_EUSAGE,
		  "invalid shed-class \"3\": must be critical-plus, critical, sheddable-plus or "
		  "sheddable");
	run_fails("config set shed-conn-fill 101", KMG_EUSAGE,
		  "invalid shed-conn-fill \"101\": must be 0..100");
	run_fails("config set shed-new-rate 4294967296", KMG_EUSAGE,
		  "invalid shed-new-rate \"4294967296\": must be 0..4294967295");
	run_fails("config set shed-load-high 1001", KMG_EUSAGE,
		  "invalid shed-load-high \"1001\": must be 0..1000");
	run_fails("config set shed-load-low 85%", KMG_EUSAGE,
		  "invalid shed-load-low \"85%\": must be 0..1000");
	run_fails("config set shed-load-high 800 shed-load-low 800", KMG_EUSAGE,
		  "invalid shed-load-low \"800\": must be below shed-load-high (800)");
	run_fails("config set shed-load-low 900 shed-load-high 850", KMG_EUSAGE,
		  "invalid shed-load-low \"900\": must be below shed-load-high (850)");
	run_fails("config set load 5", KMG_EUSAGE,
		  "load is read-only (shown by \"kmaglev config show\")");
	run_fails("config set shedding none", KMG_EUSAGE,
		  "shedding is read-only (shown by \"kmaglev config show\")");
	run_fails("config set shed-transitions 0", KMG_EUSAGE,
		  "shed-transitions is read-only (shown by \"kmaglev config show\")");
	run_fails("config set shed 1", KMG_EUSAGE, "ambiguous keyword \"shed\" in config set: shed-class, shed-conn-fill, shed-new-rate, "
		  "shed-load-high, shed-load-low?");
	run_fails("config set shed-load 1", KMG_EUSAGE,
		  "ambiguous keyword \"shed-load\" in config set: shed-load-high, shed-load-low?");
}

/* service add/set: criticality and overload by name; c and o are no longer unique. */
static void test_service_shed(void **state)
{
	struct kmg_service s;

	assert_int_equal(parse_service("192.0.2.10:80 criticality sheddable overload on", false,
				       &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_CRITICALITY));
	assert_int_equal(s.criticality, KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_OVERLOAD));
	assert_int_equal(s.overload, KMAGLEV_OVERLOAD_ON);
	kmg_service_free(&s);
	/* set: one of them is a change; prefixes */
	assert_int_equal(parse_service("192.0.2.10:80 ov off", true, &s), 0);
	assert_int_equal(s.overload, KMAGLEV_OVERLOAD_OFF);
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_CRITICALITY));
	kmg_service_free(&s);
	assert_int_equal(parse_service("id 4 cr critical-plus", true, &s), 0);
	assert_int_equal(s.criticality, KMAGLEV_CRITICALITY_CRITICAL_PLUS);
	assert_false(KMG_HAS(&s, KMAGLEV_A_SERVICE_OVERLOAD));
	kmg_service_free(&s);

	run_fails("service add 192.0.2.10:80 criticality high", KMG_EUSAGE,
		  "invalid criticality \"high\": must be critical-plus, critical, sheddable-plus "
		  "or sheddable");
	run_fails("service add 192.0.2.10:80 criticality 1", KMG_EUSAGE,
		  "invalid criticality \"1\": must be critical-plus, critical, sheddable-plus or "
		  "sheddable");
	run_fails("service set 192.0.2.10:80 overload yes", KMG_EUSAGE,
		  "invalid overload \"yes\": must be off or on");
	run_fails("service set 192.0.2.10:80 overload", KMG_EUSAGE,
		  "missing value after \"overload\"");
	run_fails("service set 192.0.2.10:80 overload on overload off", KMG_EUSAGE,
		  "duplicate keyword \"overload\"");
	run_fails("service set 192.0.2.10:80 c 5", KMG_EUSAGE,
		  "ambiguous keyword \"c\" in service set: client-rate, criticality?");
	run_fails("service set 192.0.2.10:80 o x", KMG_EUSAGE,
		  "ambiguous keyword \"o\" in service set: owner, overload?");
}

/* "quota show [top N]": top in full, once, 1 or more; nothing else. */
/* Every keyword abbreviates the same way: the fields and the commands' own words alike. */
static void test_keyword_abbrev(void **state)
{
	struct kmg_service s;

	assert_int_equal(parse_service("192.0.2.10:80 table 251 encap-src 192.0.2.1 "
				       "b 10.1.0.1 w 3 back 10.1.0.2 enc gre gre 7", false, &s), 0);
	assert_int_equal(s.table_size, 251);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_ENCAP_SRC4));
	assert_int_equal(s.nbe, 2);
	assert_int_equal(s.be[0].weight, 3);
	assert_int_equal(s.be[1].encap, KMAGLEV_ENCAP_GRE);
	assert_int_equal(s.be[1].gre_key, 7);
	kmg_service_free(&s);
	assert_int_equal(parse_service("192.0.2.10:80 no-b", true, &s), 0);
	assert_true(KMG_HAS(&s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS));
	kmg_service_free(&s);
	run_fails("service add 192.0.2.10:80 enc 192.0.2.1", KMG_EUSAGE,
		  "ambiguous keyword \"enc\" in service add: encap-src4, encap-src6, encap-src?");
	run_fails("service add 192.0.2.10:80 r 5", KMG_EUSAGE,
		  "ambiguous keyword \"r\" in service add: ramp, ramp-time?");
	run_fails("service add 192.0.2.10:80 backend 10.1.0.1 encap-src 192.0.2.1", KMG_EUSAGE,
		  "service option \"encap-src\" after a backend: give service options before the backends");
	run_fails("service add 192.0.2.10:80 bogus 1", KMG_EUSAGE,
		  "unknown keyword \"bogus\" in service add; see \"kmaglev service help\"");
}

static void test_quota_args(void **state)
{
	unsigned int top = 99;
	struct targv t;

	t = targv("");
	assert_int_equal(kmg_quota_parse(t.argc, t.argv, &top), 0);
	assert_int_equal(top, 0);
	targv_free(&t);
	t = targv("top 0x10");
	assert_int_equal(kmg_quota_parse(t.argc, t.argv, &top), 0);
	assert_int_equal(top, 16);
	targv_free(&t);
	t = targv("top 4294967295");
	assert_int_equal(kmg_quota_parse(t.argc, t.argv, &top), 0);
	assert_int_equal(top, UINT32_MAX);
	targv_free(&t);

	run_fails("quota show top 0", KMG_EUSAGE, "invalid top \"0\": must be 1..4294967295");
	run_fails("quota show top ten", KMG_EUSAGE, "invalid top \"ten\": must be 1..4294967295");
	run_fails("quota list top 4294967296", KMG_EUSAGE,
		  "invalid top \"4294967296\": must be 1..4294967295");
	run_fails("quota show top", KMG_EUSAGE, "missing value after \"top\"");
	run_fails("quota show top 5 top 6", KMG_EUSAGE, "duplicate keyword \"top\"");
	run_fails("quota show bottom 5", KMG_EUSAGE, "unexpected \"bottom\" after \"quota show\"");
	t = targv("t 3");	/* abbreviated, as every keyword */
	assert_int_equal(kmg_quota_parse(t.argc, t.argv, &top), 0);
	assert_int_equal(top, 3);
	targv_free(&t);
	run_fails("quota show 192.0.2.1", KMG_EUSAGE,
		  "unexpected \"192.0.2.1\" after \"quota show\"");
	run_fails("quota top 5", KMG_EUSAGE,
		  "unknown command \"top\" for quota; try \"kmaglev quota help\"");
	run_fails("quota frob", KMG_EUSAGE,
		  "unknown command \"frob\" for quota; try \"kmaglev quota help\"");
}

static void test_seconds(void **state)
{
	uint32_t v = 0;

	assert_int_equal(kmg_parse_seconds("1s", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(kmg_parse_seconds("1", &v), -EDOM);
	assert_int_equal(kmg_parse_seconds("2m", &v), 0);
	assert_int_equal(v, 120);
	assert_int_equal(kmg_parse_seconds("168h", &v), 0);
	assert_int_equal(v, KMAGLEV_TIMEOUT_MAX);
	assert_int_equal(kmg_parse_seconds("0s", &v), -ERANGE);
	assert_int_equal(kmg_parse_seconds("99999999999999999999", &v), -ERANGE);
	assert_int_equal(kmg_parse_seconds("10d", &v), -EINVAL);
	assert_int_equal(kmg_parse_seconds("", &v), -EINVAL);
	assert_int_equal(kmg_parse_seconds("s", &v), -EINVAL);
	assert_int_equal(v, KMAGLEV_TIMEOUT_MAX);	/* unchanged by failures */
}

static void test_other_objects(void **state)
{
	run_fails("stats 192.0.2.1:99999", KMG_EUSAGE,
		  "invalid service \"192.0.2.1:99999\": port must be 0..65535");
	run_fails("stats show 192.0.2.1 10.0.0.1", KMG_EUSAGE,
		  "unexpected \"10.0.0.1\" after the service in stats");
	run_fails("table show [2001:db8::1", KMG_EUSAGE,
		  "invalid service \"[2001:db8::1\": missing \"]\" after an IPv6 address");
	run_fails("table frob", KMG_EUSAGE,
		  "unknown command \"frob\" for table; try \"kmaglev table help\"");
	run_fails("monitor colour", KMG_EUSAGE,
		  "unknown object \"colour\" for monitor; try \"kmaglev monitor help\"");
	run_fails("family x", KMG_EUSAGE, "unknown command \"x\" for family; try \"kmaglev family help\"");
	run_fails("nonsense", KMG_EUSAGE, "unknown object \"nonsense\"; try \"kmaglev help\"");
	run_fails("s", KMG_EUSAGE,
		  "ambiguous object \"s\": service, stats, simulate, save, status?");
}

static void test_help(void **state)
{
	struct tout o;
	struct kmg_ctx ctx;
	struct targv t;

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	t = targv("service help");
	assert_int_equal(kmg_run(&ctx, t.argc, t.argv), 0);
	targv_free(&t);
	assert_non_null(strstr(tout_text(&o), "Usage: kmaglev service add SERVICE"));
	t = targv("help simulate");
	assert_int_equal(kmg_run(&ctx, t.argc, t.argv), 0);
	targv_free(&t);
	assert_non_null(strstr(tout_text(&o), "Usage: kmaglev simulate SERVICE"));
	t = targv("quota help");
	assert_int_equal(kmg_run(&ctx, t.argc, t.argv), 0);
	targv_free(&t);
	assert_non_null(strstr(tout_text(&o), "Usage: kmaglev quota [{ show | list } [top N]]"));
	t = targv("help");
	assert_int_equal(kmg_run(&ctx, t.argc, t.argv), 0);
	targv_free(&t);
	assert_non_null(strstr(tout_text(&o), "Usage: kmaglev [OPTIONS] OBJECT"));
	assert_non_null(strstr(tout_text(&o), "\n  quota      "));
	assert_false(ctx.nl_open);
	tout_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_service_add),
		cmocka_unit_test(test_service_backends),
		cmocka_unit_test(test_service_set),
		cmocka_unit_test(test_service_errors),
		cmocka_unit_test(test_service_key),
		cmocka_unit_test(test_backend),
		cmocka_unit_test(test_backend_errors),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_conn),
		cmocka_unit_test(test_config_quota),
		cmocka_unit_test(test_keyword_abbrev),
		cmocka_unit_test(test_quota_args),
		cmocka_unit_test(test_dscp_names),
		cmocka_unit_test(test_dscp_map_text),
		cmocka_unit_test(test_config_shed),
		cmocka_unit_test(test_service_shed),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_other_objects),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
