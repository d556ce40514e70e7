// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for netlink requests: each command's request is built into a buffer and read back
 * with libmnl, attribute by attribute. And replies: kernel-style messages built in memory decode
 * into the structs, malformed ones are refused.
 */
#include <arpa/inet.h>

#include "helpers.h"
#include "lib/args.h"

static struct nlmsghdr *build_service(const char *line, bool is_set, uint8_t cmd, void **buf,
				      struct kmg_service *s)
{
	struct targv t = targv(line);
	struct nlmsghdr *nlh = NULL;

	assert_int_equal(kmg_service_parse(t.argc, t.argv, is_set, s), 0);
	targv_free(&t);
	*buf = kmg_req_buf(s);
	assert_non_null(*buf);
	assert_int_equal(kmg_service_req(*buf, cmd, 0, s, &nlh), 0);
	assert_non_null(nlh);
	return nlh;
}

static void assert_addr4(const struct nlattr *a, const char *want)
{
	struct in_addr v;

	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), 4);
	assert_int_equal(inet_pton(AF_INET, want, &v), 1);
	assert_memory_equal(mnl_attr_get_payload(a), &v, 4);
}

/* The config-set request for the config set arguments @line, in @buf: its config nest. */
static const struct nlattr *config_set(const char *line, void *buf, struct nlmsghdr **nlh)
{
	struct targv t = targv(line);
	const struct nlattr *c;
	struct kmg_config cfg;

	assert_int_equal(kmg_config_parse(t.argc, t.argv, &cfg), 0);
	targv_free(&t);
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_SET, &cfg, nlh);
	c = top_attr(*nlh, KMAGLEV_A_CONFIG);
	assert_non_null(c);
	return c;
}

/* How many attributes the nest @c holds, each of them a u32 attribute (4 bytes). */
static unsigned int count_u32_attrs(const struct nlattr *c)
{
	const struct nlattr *a;
	unsigned int n = 0;

	mnl_attr_for_each_nested(a, c) {
		assert_int_equal(mnl_attr_get_payload_len(a), 4);
		n++;
	}
	return n;
}

/*
 * A @cmd reply in @buf whose @nest holds one attribute, @type with the @len bytes of @data:
 * it is refused as malformed, the error reading @want. Returns the message.
 */
static struct nlmsghdr *assert_malformed(void *buf, uint8_t cmd, uint16_t nest, uint16_t type,
					 size_t len, const void *data, const char *want)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, nest);
	struct kmg_msg m;

	mnl_attr_put(nlh, type, len, data);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), -EBADMSG);
	assert_string_equal(kmg_errmsg(), want);
	return nlh;
}

static void test_req_service_new(void **state)
{
	struct kmg_service s;
	const struct nlattr *svc, *b, *a;
	struct nlmsghdr *nlh;
	struct in6_addr v6;
	void *buf;

	nlh = build_service("192.0.2.10:80/tcp table-size 65537 hash 3tuple flags echo,resched "
			    "seed 000102030405060708090a0b0c0d0e0f ramp 25 ramp-time 1500ms "
			    "window 30s max-conns 10 client-rate 5 encap-src 198.51.100.1 "
			    "encap-src 2001:db8::1 backend 10.0.0.11 weight 100 encap gre gre-key 42 "
			    "backend 2001:db8::12 state drain max-conns 7",
			    false, KMAGLEV_CMD_SERVICE_NEW, &buf, &s);
	assert_int_equal(genl_cmd(nlh), KMAGLEV_CMD_SERVICE_NEW);
	assert_true(nlh->nlmsg_flags & NLM_F_REQUEST);
	assert_false(nlh->nlmsg_flags & NLM_F_DUMP);
	/* exactly one top-level attribute, the service nest */
	assert_null(top_attr(nlh, KMAGLEV_A_BACKEND));
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	assert_non_null(svc);
	assert_int_equal(mnl_attr_validate(svc, MNL_TYPE_NESTED), 0);

	assert_addr4(nest_attr(svc, KMAGLEV_A_SERVICE_ADDR4), "192.0.2.10");
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_ADDR6));
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_ID));
	assert_int_equal(mnl_attr_get_u8(nest_attr(svc, KMAGLEV_A_SERVICE_PROTO)), IPPROTO_TCP);
	assert_int_equal(mnl_attr_get_payload_len(nest_attr(svc, KMAGLEV_A_SERVICE_PORT)), 2);
	assert_int_equal(mnl_attr_get_u16(nest_attr(svc, KMAGLEV_A_SERVICE_PORT)), 80);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_TABLE_SIZE)), 65537);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_HASH)),
			 KMAGLEV_HASH_THREE_TUPLE);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_FLAGS)),
			 KMAGLEV_SERVICE_FLAGS_ECHO | KMAGLEV_SERVICE_FLAGS_RESCHED);
	a = nest_attr(svc, KMAGLEV_A_SERVICE_SEED);
	assert_int_equal(mnl_attr_get_payload_len(a), 16);
	assert_memory_equal(mnl_attr_get_payload(a),
			    "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f", 16);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_RAMP_PCT)), 25);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_RAMP_MS)), 1500);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_WINDOW_MS)), 30000);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_MAX_CONNS)), 10);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_CLIENT_RATE)), 5);
	assert_addr4(nest_attr(svc, KMAGLEV_A_SERVICE_ENCAP_SRC4), "198.51.100.1");
	a = nest_attr(svc, KMAGLEV_A_SERVICE_ENCAP_SRC6);
	assert_int_equal(mnl_attr_get_payload_len(a), 16);
	inet_pton(AF_INET6, "2001:db8::1", &v6);
	assert_memory_equal(mnl_attr_get_payload(a), &v6, 16);
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_REPLACE_BACKENDS));
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_GENERATION));

	assert_int_equal(nest_count(svc, KMAGLEV_A_SERVICE_BACKEND), 2);
	b = nest_attr_n(svc, KMAGLEV_A_SERVICE_BACKEND, 0);
	assert_addr4(nest_attr(b, KMAGLEV_A_BACKEND_ADDR4), "10.0.0.11");
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_WEIGHT)), 100);
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_ENCAP)),
			 KMAGLEV_ENCAP_GRE);
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_GRE_KEY)), 42);
	assert_null(nest_attr(b, KMAGLEV_A_BACKEND_STATE));
	assert_null(nest_attr(b, KMAGLEV_A_BACKEND_MAX_CONNS));
	b = nest_attr_n(svc, KMAGLEV_A_SERVICE_BACKEND, 1);
	inet_pton(AF_INET6, "2001:db8::12", &v6);
	assert_memory_equal(mnl_attr_get_payload(nest_attr(b, KMAGLEV_A_BACKEND_ADDR6)), &v6, 16);
	assert_null(nest_attr(b, KMAGLEV_A_BACKEND_ADDR4));
	assert_null(nest_attr(b, KMAGLEV_A_BACKEND_WEIGHT));
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_STATE)),
			 KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_MAX_CONNS)), 7);
	assert_null(nest_attr(b, KMAGLEV_A_BACKEND_GRE_KEY));
	/* the whole message is well formed */
	assert_true(mnl_nlmsg_ok(nlh, nlh->nlmsg_len));
	kmg_service_free(&s);
	free(buf);
}

static void test_req_service_set(void **state)
{
	const struct nlattr *svc;
	struct kmg_service s;
	struct nlmsghdr *nlh;
	void *buf;

	nlh = build_service("id 9 no-backends", true, KMAGLEV_CMD_SERVICE_SET, &buf, &s);
	assert_int_equal(genl_cmd(nlh), KMAGLEV_CMD_SERVICE_SET);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_ID)), 9);
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_ADDR4));
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_PROTO));
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_PORT));
	assert_non_null(nest_attr(svc, KMAGLEV_A_SERVICE_REPLACE_BACKENDS));
	assert_int_equal(mnl_attr_get_payload_len(nest_attr(svc, KMAGLEV_A_SERVICE_REPLACE_BACKENDS)),
			 0);
	assert_int_equal(nest_count(svc, KMAGLEV_A_SERVICE_BACKEND), 0);
	kmg_service_free(&s);
	free(buf);

	/* a new backend set: nests, no flag needed */
	nlh = build_service("[2001:db8::80]:443/any backend 10.0.0.1 backend 10.0.0.2 weight 0",
			    true, KMAGLEV_CMD_SERVICE_SET, &buf, &s);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	assert_int_equal(mnl_attr_get_u8(nest_attr(svc, KMAGLEV_A_SERVICE_PROTO)), 0);
	assert_int_equal(mnl_attr_get_u16(nest_attr(svc, KMAGLEV_A_SERVICE_PORT)), 443);
	assert_int_equal(mnl_attr_get_payload_len(nest_attr(svc, KMAGLEV_A_SERVICE_ADDR6)), 16);
	assert_int_equal(nest_count(svc, KMAGLEV_A_SERVICE_BACKEND), 2);
	assert_int_equal(mnl_attr_get_u32(nest_attr(nest_attr_n(svc, KMAGLEV_A_SERVICE_BACKEND, 1),
						    KMAGLEV_A_BACKEND_WEIGHT)), 0);
	kmg_service_free(&s);
	free(buf);
}

/* owner: a NUL-terminated string; "" is sent (it clears), absent is not */
static void test_req_service_owner(void **state)
{
	const struct nlattr *svc, *a;
	struct kmg_service s;
	struct nlmsghdr *nlh;
	struct targv t;
	void *buf;

	nlh = build_service("192.0.2.1:80/tcp owner kmaglevd window 1s", true,
			    KMAGLEV_CMD_SERVICE_SET, &buf, &s);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	a = nest_attr(svc, KMAGLEV_A_SERVICE_OWNER);
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), strlen("kmaglevd") + 1);
	assert_string_equal(mnl_attr_get_str(a), "kmaglevd");
	kmg_service_free(&s);
	free(buf);

	nlh = build_service("192.0.2.1:80/tcp owner ''", true, KMAGLEV_CMD_SERVICE_SET, &buf, &s);
	a = nest_attr(top_attr(nlh, KMAGLEV_A_SERVICE), KMAGLEV_A_SERVICE_OWNER);
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), 1);
	assert_string_equal(mnl_attr_get_str(a), "");
	kmg_service_free(&s);
	free(buf);

	nlh = build_service("192.0.2.1:80/tcp window 1s", true, KMAGLEV_CMD_SERVICE_SET, &buf, &s);
	assert_null(nest_attr(top_attr(nlh, KMAGLEV_A_SERVICE), KMAGLEV_A_SERVICE_OWNER));
	kmg_service_free(&s);
	free(buf);

	/* 31 bytes fit, 32 do not; control characters are refused */
	t = targv("192.0.2.1:80/tcp owner 0123456789012345678901234567890");
	assert_int_equal(kmg_service_parse(t.argc, t.argv, true, &s), 0);
	assert_string_equal(s.owner, "0123456789012345678901234567890");
	kmg_service_free(&s);
	targv_free(&t);
	t = targv("192.0.2.1:80/tcp owner 01234567890123456789012345678901");
	assert_int_not_equal(kmg_service_parse(t.argc, t.argv, true, &s), 0);
	assert_string_equal(kmg_errmsg(),
			    "invalid owner \"01234567890123456789012345678901\": longer than 31 bytes");
	targv_free(&t);
	t = targv("192.0.2.1:80/tcp owner \"a\tb\"");
	assert_int_not_equal(kmg_service_parse(t.argc, t.argv, true, &s), 0);
	assert_string_equal(kmg_errmsg(), "invalid owner: control character");
	targv_free(&t);
}

static void test_req_service_key_only(void **state)
{
	const struct nlattr *svc, *a;
	struct kmg_service s;
	struct nlmsghdr *nlh;
	unsigned int n = 0;
	void *buf;

	/* del and get carry only the key, even if settings were parsed */
	nlh = build_service("192.0.2.10:80 window 5s", false, KMAGLEV_CMD_SERVICE_DEL, &buf, &s);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_for_each_nested(a, svc)
		n++;
	assert_int_equal(n, 3);
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_WINDOW_MS));
	kmg_service_free(&s);

	/* flush and dumps: no attributes */
	assert_int_equal(kmg_service_req(buf, KMAGLEV_CMD_SERVICE_FLUSH, 0, NULL, &nlh), 0);
	assert_int_equal(nlh->nlmsg_len, MNL_NLMSG_HDRLEN + sizeof(struct genlmsghdr));
	assert_int_equal(kmg_service_req(buf, KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP, NULL, &nlh), 0);
	assert_true((nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP);
	assert_null(top_attr(nlh, KMAGLEV_A_SERVICE));
	assert_int_equal(((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->version,
			 KMAGLEV_FAMILY_VERSION);
	free(buf);
}

static void test_req_backend(void **state)
{
	struct targv t = targv("192.0.2.10:8080/udp 10.0.0.11 encap gre gre-key 5 weight 3");
	const struct nlattr *svc, *b;
	struct kmg_service s;
	struct kmg_backend be;
	struct nlmsghdr *nlh;
	void *buf = kmg_req_buf(NULL);

	assert_int_equal(kmg_backend_parse(KMG_BE_ADD, t.argc, t.argv, &s, &be), 0);
	targv_free(&t);
	kmg_backend_req(buf, KMAGLEV_CMD_BACKEND_NEW, 0, &s, &be, &nlh);
	assert_int_equal(genl_cmd(nlh), KMAGLEV_CMD_BACKEND_NEW);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	b = top_attr(nlh, KMAGLEV_A_BACKEND);
	assert_non_null(svc);
	assert_non_null(b);
	assert_int_equal(mnl_attr_get_u16(nest_attr(svc, KMAGLEV_A_SERVICE_PORT)), 8080);
	assert_int_equal(mnl_attr_get_u8(nest_attr(svc, KMAGLEV_A_SERVICE_PROTO)), IPPROTO_UDP);
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_BACKEND));
	assert_addr4(nest_attr(b, KMAGLEV_A_BACKEND_ADDR4), "10.0.0.11");
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_ENCAP)), KMAGLEV_ENCAP_GRE);
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_GRE_KEY)), 5);
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_WEIGHT)), 3);

	t = targv("id 4 10.0.0.11");
	assert_int_equal(kmg_backend_parse(KMG_BE_DRAIN, t.argc, t.argv, &s, &be), 0);
	targv_free(&t);
	kmg_backend_req(buf, KMAGLEV_CMD_BACKEND_SET, 0, &s, &be, &nlh);
	b = top_attr(nlh, KMAGLEV_A_BACKEND);
	assert_int_equal(mnl_attr_get_u32(nest_attr(top_attr(nlh, KMAGLEV_A_SERVICE),
						    KMAGLEV_A_SERVICE_ID)), 4);
	assert_int_equal(mnl_attr_get_u32(nest_attr(b, KMAGLEV_A_BACKEND_STATE)),
			 KMAGLEV_BACKEND_STATE_DRAIN);
	assert_null(nest_attr(b, KMAGLEV_A_BACKEND_WEIGHT));

	/* dump of one service's backends: SERVICE only */
	t = targv("192.0.2.10");
	assert_int_equal(kmg_backend_parse(KMG_BE_SHOW, t.argc, t.argv, &s, &be), 0);
	targv_free(&t);
	kmg_backend_req(buf, KMAGLEV_CMD_BACKEND_GET, NLM_F_DUMP, &s, &be, &nlh);
	assert_non_null(top_attr(nlh, KMAGLEV_A_SERVICE));
	assert_null(top_attr(nlh, KMAGLEV_A_BACKEND));
	free(buf);
}

static void test_req_config(void **state)
{
	void *buf = kmg_req_buf(NULL);
	const struct nlattr *c;
	struct nlmsghdr *nlh;

	c = config_set("max-backends 70000", buf, &nlh);
	assert_int_equal(genl_cmd(nlh), KMAGLEV_CMD_CONFIG_SET);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_MAX_BACKENDS)), 70000);
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_MAX_SERVICES));
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
	assert_null(top_attr(nlh, KMAGLEV_A_CONFIG));
	free(buf);
}

/* Connection-table settings go out as u32 attributes, exactly those given, seconds as is. */
static void test_req_config_conn(void **state)
{
	void *buf = kmg_req_buf(NULL);
	const struct nlattr *c;
	struct nlmsghdr *nlh;

	c = config_set("conn-max 64 timeout-tcp-est 2m timeout-udp 30s flood-rate 1000 "
		       "probe-mark-min 4096 probe-mark-max 8191", buf, &nlh);
	assert_int_equal(count_u32_attrs(c), 6);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_CONN_MAX)), 64);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST)), 120);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_TIMEOUT_UDP)), 30);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_FLOOD_RATE)), 1000);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN)), 4096);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX)), 8191);
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN));
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_CONNS));
	free(buf);
}

/* The quota settings go out as u32 attributes, enums by their value; quotas is read-only. */
static void test_req_config_quota(void **state)
{
	void *buf = kmg_req_buf(NULL);
	const struct nlattr *c;
	struct nlmsghdr *nlh;

	c = config_set("quota-rate 50 quota-burst 0 quota-prefix4 24 quota-prefix6 48 "
		       "quota-scope service quota-action rst quota-max 1000", buf, &nlh);
	assert_int_equal(count_u32_attrs(c), 7);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_RATE)), 50);
	/* 0 is a value (one second's worth), sent as any other */
	assert_non_null(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_BURST));
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_BURST)), 0);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_PREFIX4)), 24);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_PREFIX6)), 48);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_SCOPE)),
			 KMAGLEV_QUOTA_SCOPE_SERVICE);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_ACTION)),
			 KMAGLEV_QUOTA_ACTION_RST);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_QUOTA_MAX)), 1000);
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_QUOTAS));
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_FLOOD_RATE));
	free(buf);
}

/* The load-shedding settings: dscp-map as its 64 bytes, the rest u32; read-only ones not sent. */
static void test_req_config_shed(void **state)
{
	uint8_t want[KMAGLEV_DSCP_MAP_LEN] = { 0 };
	void *buf = kmg_req_buf(NULL);
	const struct nlattr *c, *a;
	struct nlmsghdr *nlh;
	unsigned int n = 0;

	c = config_set("dscp-map ef=critical-plus,cs1=sheddable,10=sheddable-plus "
		       "shed-class sheddable-plus shed-conn-fill 90 shed-new-rate 50000 "
		       "shed-load-high 850 shed-load-low 700", buf, &nlh);
	mnl_attr_for_each_nested(a, c)
		n++;
	assert_int_equal(n, 6);
	a = nest_attr(c, KMAGLEV_A_CONFIG_DSCP_MAP);
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), KMAGLEV_DSCP_MAP_LEN);
	want[46] = 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS;
	want[8] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE;
	want[10] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE_PLUS;
	assert_memory_equal(mnl_attr_get_payload(a), want, sizeof(want));
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_SHED_CLASS)),
			 KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_SHED_CONN_FILL)), 90);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_SHED_NEW_RATE)), 50000);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH)), 850);
	assert_int_equal(mnl_attr_get_u32(nest_attr(c, KMAGLEV_A_CONFIG_SHED_LOAD_LOW)), 700);
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_LOAD));
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_SHEDDING));
	assert_null(nest_attr(c, KMAGLEV_A_CONFIG_SHED_TRANSITIONS));
	assert_true(mnl_nlmsg_ok(nlh, nlh->nlmsg_len));

	/* "none" is 64 zero bytes, sent: it clears the kernel's map */
	a = nest_attr(config_set("dscp-map none", buf, &nlh), KMAGLEV_A_CONFIG_DSCP_MAP);
	assert_non_null(a);
	memset(want, 0, sizeof(want));
	assert_int_equal(mnl_attr_get_payload_len(a), KMAGLEV_DSCP_MAP_LEN);
	assert_memory_equal(mnl_attr_get_payload(a), want, sizeof(want));
	free(buf);
}

/* service add: criticality and overload as u32 enums; only when given. */
static void test_req_service_shed(void **state)
{
	const struct nlattr *svc;
	struct kmg_service s;
	struct nlmsghdr *nlh;
	void *buf;

	nlh = build_service("192.0.2.10:80 criticality sheddable-plus overload on", false,
			    KMAGLEV_CMD_SERVICE_NEW, &buf, &s);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	assert_int_equal(mnl_attr_get_payload_len(nest_attr(svc, KMAGLEV_A_SERVICE_CRITICALITY)),
			 4);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_CRITICALITY)),
			 KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_OVERLOAD)),
			 KMAGLEV_OVERLOAD_ON);
	kmg_service_free(&s);
	free(buf);
	/* critical-plus is 0, and still sent; overload left out when not given */
	nlh = build_service("id 3 criticality critical-plus", true, KMAGLEV_CMD_SERVICE_SET, &buf,
			    &s);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	assert_non_null(nest_attr(svc, KMAGLEV_A_SERVICE_CRITICALITY));
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_CRITICALITY)),
			 KMAGLEV_CRITICALITY_CRITICAL_PLUS);
	assert_null(nest_attr(svc, KMAGLEV_A_SERVICE_OVERLOAD));
	kmg_service_free(&s);
	free(buf);
}

/* A CONFIG_GET reply with the load-shedding state; a dscp-map of the wrong length is refused. */
static void test_parse_config_shed(void **state)
{
	uint8_t map[KMAGLEV_DSCP_MAP_LEN] = { [46] = 1, [63] = 4 };
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct kmg_msg m;
	char buf[1024];

	nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	mnl_attr_put(nlh, KMAGLEV_A_CONFIG_DSCP_MAP, sizeof(map), map);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_CLASS, KMAGLEV_CRITICALITY_SHEDDABLE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_LOAD, 417);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHEDDING, KMAGLEV_SHED_REASON_CONN_FILL |
			 KMAGLEV_SHED_REASON_LOAD);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_TRANSITIONS, 12);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), 0);
	assert_true(KMG_HAS(&m.config, KMAGLEV_A_CONFIG_DSCP_MAP));
	assert_memory_equal(m.config.dscp_map, map, sizeof(map));
	assert_int_equal(m.config.shed_class, KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_int_equal(m.config.load, 417);
	assert_int_equal(m.config.shedding, KMAGLEV_SHED_REASON_CONN_FILL |
			 KMAGLEV_SHED_REASON_LOAD);
	assert_int_equal(m.config.shed_transitions, 12);
	assert_false(KMG_HAS(&m.config, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH));
	kmg_msg_free(&m);

	assert_malformed(buf, KMAGLEV_CMD_CONFIG_GET, KMAGLEV_A_CONFIG, KMAGLEV_A_CONFIG_DSCP_MAP,
			 32, map, "malformed config.dscp-map attribute in kernel message");
}

/* A QUOTA_GET dump message: one bucket, its prefix by family, read-only counters. */
static struct nlmsghdr *quota_msg(void *buf, const char *addr, uint8_t plen, int64_t svc,
				  uint64_t accepted, uint64_t rejected)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_QUOTA_GET, NLM_F_MULTI);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_QUOTA);
	uint8_t a[16];

	if (strchr(addr, ':')) {
		assert_int_equal(inet_pton(AF_INET6, addr, a), 1);
		mnl_attr_put(nlh, KMAGLEV_A_QUOTA_ADDR6, 16, a);
	} else {
		assert_int_equal(inet_pton(AF_INET, addr, a), 1);
		mnl_attr_put(nlh, KMAGLEV_A_QUOTA_ADDR4, 4, a);
	}
	mnl_attr_put_u8(nlh, KMAGLEV_A_QUOTA_PREFIX_LEN, plen);
	if (svc >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_QUOTA_SERVICE_ID, svc);
	mnl_attr_put_u64(nlh, KMAGLEV_A_QUOTA_ACCEPTED, accepted);
	mnl_attr_put_u64(nlh, KMAGLEV_A_QUOTA_REJECTED, rejected);
	mnl_attr_put_u32(nlh, KMAGLEV_A_QUOTA_TOKENS, 7);
	mnl_attr_put_u32(nlh, KMAGLEV_A_QUOTA_IDLE_MS, 1234);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static void test_parse_quota(void **state)
{
	struct kmg_quotas qs = { 0 };
	struct kmg_msgs l = { 0 };
	char buf[512], name[64];
	struct nlmsghdr *nlh;
	uint32_t plen = 24;
	struct kmg_msg m;

	assert_string_equal(kmg_cmd_name(KMAGLEV_CMD_QUOTA_GET), "quota-get");
	assert_int_equal(kmg_msg_parse(quota_msg(buf, "198.51.100.0", 24, 3, 1ULL << 40, 9), &m),
			 0);
	assert_int_equal(m.cmd, KMAGLEV_CMD_QUOTA_GET);
	assert_true(KMG_HAS(&m, KMAGLEV_A_QUOTA));
	assert_false(KMG_HAS(&m, KMAGLEV_A_SERVICE));
	assert_true(KMG_HAS(&m.quota, KMAGLEV_A_QUOTA_ADDR4));
	assert_false(KMG_HAS(&m.quota, KMAGLEV_A_QUOTA_ADDR6));
	assert_string_equal(kmg_fmt_addr(&m.quota.addr, name, sizeof(name)), "198.51.100.0");
	assert_int_equal(m.quota.prefix_len, 24);
	assert_true(KMG_HAS(&m.quota, KMAGLEV_A_QUOTA_SERVICE_ID));
	assert_int_equal(m.quota.service_id, 3);
	assert_int_equal(m.quota.accepted, 1ULL << 40);
	assert_int_equal(m.quota.rejected, 9);
	assert_int_equal(m.quota.tokens, 7);
	assert_int_equal(m.quota.idle_ms, 1234);
	kmg_msg_free(&m);

	/* IPv6, scope netns: no service id */
	assert_int_equal(kmg_msg_parse(quota_msg(buf, "2001:db8:7::", 48, -1, 5, 0), &m), 0);
	assert_true(KMG_HAS(&m.quota, KMAGLEV_A_QUOTA_ADDR6));
	assert_int_equal(m.quota.addr.family, AF_INET6);
	assert_string_equal(kmg_fmt_addr(&m.quota.addr, name, sizeof(name)), "2001:db8:7::");
	assert_int_equal(m.quota.prefix_len, 48);
	assert_false(KMG_HAS(&m.quota, KMAGLEV_A_QUOTA_SERVICE_ID));
	kmg_msg_free(&m);

	/* kmg_collect_cb takes them as any other reply; kmg_quota_cb keeps only the buckets */
	assert_int_equal(kmg_collect_cb(quota_msg(buf, "192.0.2.1", 32, -1, 1, 2), &l), MNL_CB_OK);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.m[0].quota.rejected, 2);
	kmg_msgs_free(&l);
	assert_int_equal(kmg_quota_cb(quota_msg(buf, "192.0.2.1", 32, -1, 1, 2), &qs), MNL_CB_OK);
	assert_int_equal(kmg_quota_cb(kmg_req_start(buf, KMAGLEV_CMD_QUOTA_GET, 0), &qs),
			 MNL_CB_OK);
	assert_int_equal(qs.n, 1);
	assert_int_equal(qs.total, 1);
	kmg_quotas_free(&qs);

	/* malformed: a u32 prefix length, a short IPv6 prefix */
	assert_malformed(buf, KMAGLEV_CMD_QUOTA_GET, KMAGLEV_A_QUOTA, KMAGLEV_A_QUOTA_PREFIX_LEN,
			 sizeof(plen), &plen,
			 "malformed quota.prefix-len attribute in kernel message");
	nlh = assert_malformed(buf, KMAGLEV_CMD_QUOTA_GET, KMAGLEV_A_QUOTA, KMAGLEV_A_QUOTA_ADDR6,
			       4, "abcd", "malformed quota.addr6 attribute in kernel message");
	assert_int_equal(kmg_quota_cb(nlh, &qs), MNL_CB_ERROR);
	assert_int_equal(errno, EBADMSG);
	assert_int_equal(qs.n, 0);
}

/* A STATS_GET reply for the netns: summed STATS and the GLOBAL counters, decoded by type. */
static void test_parse_global(void **state)
{
	char buf[1024];
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_STATS_GET, 0);
	struct nlattr *n;
	struct kmg_msg m;

	n = mnl_attr_nest_start(nlh, KMAGLEV_A_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 7);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_GLOBAL);
	mnl_attr_put_u64(nlh, KMAGLEV_A_GLOBAL_STATS_RX_PACKETS, 1ULL << 33);
	mnl_attr_put_u64(nlh, KMAGLEV_A_GLOBAL_STATS_DROP_FRAG, 3);
	mnl_attr_put_u64(nlh, KMAGLEV_A_GLOBAL_STATS_PROBE, 0);
	mnl_attr_put(nlh, KMAGLEV_A_GLOBAL_STATS_MAX + 7, 8, "newer...");	/* unknown: skipped */
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), 0);
	assert_true(KMG_HAS(&m, KMAGLEV_A_GLOBAL));
	assert_true(KMG_HAS(&m, KMAGLEV_A_STATS));
	assert_false(KMG_HAS(&m, KMAGLEV_A_SERVICE));
	assert_int_equal(m.stats.packets, 7);
	assert_true(KMG_HAS(&m.global, KMAGLEV_A_GLOBAL_STATS_RX_PACKETS));
	assert_int_equal(m.global.v[KMAGLEV_A_GLOBAL_STATS_RX_PACKETS], 1ULL << 33);
	assert_int_equal(m.global.v[KMAGLEV_A_GLOBAL_STATS_DROP_FRAG], 3);
	assert_true(KMG_HAS(&m.global, KMAGLEV_A_GLOBAL_STATS_PROBE));
	assert_false(KMG_HAS(&m.global, KMAGLEV_A_GLOBAL_STATS_TX_PACKETS));
	assert_int_equal(m.global.present, KMG_BIT(KMAGLEV_A_GLOBAL_STATS_RX_PACKETS) |
			 KMG_BIT(KMAGLEV_A_GLOBAL_STATS_DROP_FRAG) |
			 KMG_BIT(KMAGLEV_A_GLOBAL_STATS_PROBE));
	kmg_msg_free(&m);

	/* a counter of the wrong size is a malformed reply */
	nlh = kmg_req_start(buf, KMAGLEV_CMD_STATS_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_GLOBAL);
	mnl_attr_put_u32(nlh, KMAGLEV_A_GLOBAL_STATS_CONN_NEW, 1);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), -EBADMSG);
	assert_string_equal(kmg_errmsg(), "malformed global-stats.conn-new attribute in kernel message");
}

static void test_req_big(void **state)
{
	struct kmg_service s = { 0 };
	struct kmg_svc_key k;
	struct nlmsghdr *nlh = NULL;
	const struct nlattr *svc, *a;
	unsigned int i, n = 0;
	void *buf;

	assert_int_equal(kmg_parse_svc_spec("192.0.2.10:80", &k), 0);
	kmg_service_set_key(&s, &k);
	s.window_ms = 5000;
	KMG_SET(&s, KMAGLEV_A_SERVICE_WINDOW_MS);
	/* IPv6 backends with a weight: 32 bytes each, 64 KiB hold about 2000 */
	for (i = 0; i < 3000; i++) {
		struct kmg_backend *b = kmg_backend_append(&s.be, &s.nbe);
		struct kmg_addr addr = { .family = AF_INET6 };

		assert_non_null(b);
		addr.v6.s6_addr[0] = 0x20;
		addr.v6.s6_addr[14] = i >> 8;
		addr.v6.s6_addr[15] = i;
		kmg_backend_set_addr(b, &addr);
		b->weight = 1;
		KMG_SET(b, KMAGLEV_A_BACKEND_WEIGHT);
	}
	KMG_SET(&s, KMAGLEV_A_SERVICE_BACKEND);
	/* 32 bytes per backend nest, less room for the service's own attributes */
	assert_int_equal(kmg_backends_fitting(&s), (65535 - 512) / 32);

	/* too many for the service nest: the backends go to the top level */
	buf = kmg_req_buf(&s);
	assert_int_equal(kmg_service_req(buf, KMAGLEV_CMD_SERVICE_SET, 0, &s, &nlh), 0);
	assert_true(nlh->nlmsg_len > 65536);
	svc = top_attr(nlh, KMAGLEV_A_SERVICE);
	assert_non_null(svc);
	assert_int_equal(nest_count(svc, KMAGLEV_A_SERVICE_BACKEND), 0);
	assert_int_equal(mnl_attr_get_u32(nest_attr(svc, KMAGLEV_A_SERVICE_WINDOW_MS)), 5000);
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != KMAGLEV_A_BACKEND)
			continue;
		assert_int_equal(mnl_attr_get_payload_len(nest_attr(a, KMAGLEV_A_BACKEND_ADDR6)), 16);
		assert_int_equal(mnl_attr_get_u32(nest_attr(a, KMAGLEV_A_BACKEND_WEIGHT)), 1);
		n++;
	}
	assert_int_equal(n, 3000);
	/* the service nest comes first */
	assert_ptr_equal(svc, mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr)));
	free(buf);

	/* as many as kmg_backends_fitting() says fit in the service nest */
	s.nbe = kmg_backends_fitting(&s);
	buf = kmg_req_buf(&s);
	assert_int_equal(kmg_service_req(buf, KMAGLEV_CMD_SERVICE_NEW, 0, &s, &nlh), 0);
	assert_int_equal(nest_count(top_attr(nlh, KMAGLEV_A_SERVICE), KMAGLEV_A_SERVICE_BACKEND),
			 s.nbe);
	assert_null(top_attr(nlh, KMAGLEV_A_BACKEND));
	free(buf);
	kmg_service_free(&s);
}

/* A kernel-style reply: SERVICE (key, id) + BACKEND with stats. */
static struct nlmsghdr *backend_reply(void *buf)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_BACKEND_GET, 0);
	struct nlattr *n, *st;
	struct in_addr v4;

	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ID, 3);
	inet_pton(AF_INET, "192.0.2.10", &v4);
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_ADDR4, 4, &v4);
	mnl_attr_put_u8(nlh, KMAGLEV_A_SERVICE_PROTO, IPPROTO_TCP);
	mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_PORT, 80);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND);
	inet_pton(AF_INET, "10.0.0.11", &v4);
	mnl_attr_put(nlh, KMAGLEV_A_BACKEND_ADDR4, 4, &v4);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, 100);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, KMAGLEV_BACKEND_STATE_UP);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ENCAP, KMAGLEV_ENCAP_GRE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_GRE_KEY, 77);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_SLOTS, 21845);
	mnl_attr_put_u32(nlh, 200, 1);	/* unknown: ignored */
	st = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 1ULL << 40);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_CONNS, 12);
	mnl_attr_nest_end(nlh, st);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static void test_parse_reply(void **state)
{
	char buf[1024], name[64];
	struct nlmsghdr *nlh = backend_reply(buf);
	struct kmg_msg m;

	assert_int_equal(kmg_msg_parse(nlh, &m), 0);
	assert_int_equal(m.cmd, KMAGLEV_CMD_BACKEND_GET);
	assert_true(KMG_HAS(&m, KMAGLEV_A_SERVICE));
	assert_false(KMG_HAS(&m, KMAGLEV_A_TABLE));
	assert_int_equal(m.svc.id, 3);
	assert_string_equal(kmg_fmt_svc_key(&m.svc.key, name, sizeof(name)), "192.0.2.10:80/tcp");
	assert_int_equal(m.nbe, 1);
	assert_int_equal(m.be[0].weight, 100);
	assert_int_equal(m.be[0].gre_key, 77);
	assert_int_equal(m.be[0].slots, 21845);
	assert_false(KMG_HAS(&m.be[0], KMAGLEV_A_BACKEND_MAX_CONNS));
	assert_true(KMG_HAS(&m.be[0], KMAGLEV_A_BACKEND_STATS));
	assert_int_equal(m.be[0].stats.packets, 1ULL << 40);
	assert_int_equal(m.be[0].stats.conns, 12);
	assert_false(KMG_HAS(&m.be[0].stats, KMAGLEV_A_STATS_BYTES));
	assert_string_equal(kmg_fmt_addr(&m.be[0].addr, name, sizeof(name)), "10.0.0.11");
	kmg_msg_free(&m);
}

static void test_parse_malformed(void **state)
{
	char buf[512];
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	struct nlattr *n;
	struct kmg_msg m;

	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 251);	/* u32 expected */
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), -EBADMSG);
	assert_string_equal(kmg_errmsg(), "malformed service.table-size attribute in kernel message");

	nlh = kmg_req_start(buf, KMAGLEV_CMD_TABLE_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_TABLE);
	mnl_attr_put(nlh, KMAGLEV_A_TABLE_DIGEST, 4, "abcd");		/* u64 expected */
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), -EBADMSG);
	assert_string_equal(kmg_errmsg(), "malformed table.digest attribute in kernel message");

	/* a string must be NUL-terminated and at most owner-len-max long */
	nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_OWNER, 3, "abc");
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), -EBADMSG);
	assert_string_equal(kmg_errmsg(), "malformed service.owner attribute in kernel message");
	nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_put_strz(nlh, KMAGLEV_A_SERVICE_OWNER, "01234567890123456789012345678901");
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), -EBADMSG);

	/* and then it is read back whole */
	nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	mnl_attr_put_strz(nlh, KMAGLEV_A_SERVICE_OWNER, "0123456789012345678901234567890");
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), 0);
	assert_true(KMG_HAS(&m.svc, KMAGLEV_A_SERVICE_OWNER));
	assert_string_equal(m.svc.owner, "0123456789012345678901234567890");
	kmg_msg_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_service_new),
		cmocka_unit_test(test_req_service_set),
		cmocka_unit_test(test_req_service_owner),
		cmocka_unit_test(test_req_service_key_only),
		cmocka_unit_test(test_req_backend),
		cmocka_unit_test(test_req_config),
		cmocka_unit_test(test_req_config_conn),
		cmocka_unit_test(test_req_config_quota),
		cmocka_unit_test(test_req_config_shed),
		cmocka_unit_test(test_req_service_shed),
		cmocka_unit_test(test_parse_config_shed),
		cmocka_unit_test(test_parse_quota),
		cmocka_unit_test(test_parse_global),
		cmocka_unit_test(test_req_big),
		cmocka_unit_test(test_parse_reply),
		cmocka_unit_test(test_parse_malformed),
	};

	return cmocka_run_group_tests_name("msg", tests, NULL, NULL);
}
