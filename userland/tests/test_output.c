// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for output: kernel-style replies and notifications are built in memory, decoded,
 * and printed as text and as JSON; the JSON is parsed back and checked field by field.
 */
#include <arpa/inet.h>

#include "helpers.h"
#include "args.h"

static void put_v4(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	struct in_addr v4;

	assert_int_equal(inet_pton(AF_INET, s, &v4), 1);
	mnl_attr_put(nlh, type, 4, &v4);
}

static void put_v6(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	struct in6_addr v6;

	assert_int_equal(inet_pton(AF_INET6, s, &v6), 1);
	mnl_attr_put(nlh, type, 16, &v6);
}

static void put_svc_key(struct nlmsghdr *nlh, uint32_t id, const char *addr, uint16_t port)
{
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ID, id);
	put_v4(nlh, KMAGLEV_A_SERVICE_ADDR4, addr);
	mnl_attr_put_u8(nlh, KMAGLEV_A_SERVICE_PROTO, IPPROTO_TCP);
	mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_PORT, port);
}

/* SERVICE_GET reply of 192.0.2.10:80/tcp. */
static struct nlmsghdr *service_reply(void *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_svc_key(nlh, 1, "192.0.2.10", 80);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, 65537);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_HASH, KMAGLEV_HASH_FIVE_TUPLE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_FLAGS, KMAGLEV_SERVICE_FLAGS_ECHO |
			 KMAGLEV_SERVICE_FLAGS_RESCHED);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_PCT, 100);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_MS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 30000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_MAX_CONNS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CLIENT_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_GENERATION, 3);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_BACKENDS, 3);
	mnl_attr_put_u64(nlh, KMAGLEV_A_SERVICE_TABLE_BYTES, 131074);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_PREV_GENERATION, 2);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_NOW, 40);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_LEFT_MS, 12000);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static struct nlmsghdr *backend_reply(void *buf, uint8_t cmd, const char *addr, uint32_t weight,
				      uint32_t state, uint32_t slots)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_svc_key(nlh, 1, "192.0.2.10", 80);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND);
	if (strchr(addr, ':'))
		put_v6(nlh, KMAGLEV_A_BACKEND_ADDR6, addr);
	else
		put_v4(nlh, KMAGLEV_A_BACKEND_ADDR4, addr);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, weight);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, state);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ENCAP, KMAGLEV_ENCAP_GRE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_GRE_KEY, 9);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_MAX_CONNS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_SLOTS, slots);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static void table_backend(struct nlmsghdr *nlh, const char *addr, uint32_t weight,
			  uint32_t state, uint32_t slots)
{
	struct nlattr *b = mnl_attr_nest_start(nlh, KMAGLEV_A_TABLE_BACKEND);

	put_v4(nlh, KMAGLEV_A_BACKEND_ADDR4, addr);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, weight);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, state);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_SLOTS, slots);
	mnl_attr_nest_end(nlh, b);
}

/* TABLE_GET reply: size 251, weights 1:2 plus a drained backend. */
static struct nlmsghdr *table_reply(void *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_svc_key(nlh, 1, "192.0.2.10", 80);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_TABLE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_TABLE_SIZE, 251);
	mnl_attr_put_u32(nlh, KMAGLEV_A_TABLE_GENERATION, 4);
	mnl_attr_put_u64(nlh, KMAGLEV_A_TABLE_BYTES, 502);
	mnl_attr_put_u64(nlh, KMAGLEV_A_TABLE_DIGEST, 0x0123456789abcdefULL);
	mnl_attr_put_u32(nlh, KMAGLEV_A_TABLE_MIN_SLOTS, 84);
	mnl_attr_put_u32(nlh, KMAGLEV_A_TABLE_MAX_SLOTS, 167);
	table_backend(nlh, "10.0.0.1", 1, KMAGLEV_BACKEND_STATE_UP, 84);
	table_backend(nlh, "10.0.0.2", 2, KMAGLEV_BACKEND_STATE_UP, 167);
	table_backend(nlh, "10.0.0.3", 5, KMAGLEV_BACKEND_STATE_DRAIN, 0);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static const char *jstr(json_object *o, const char *key)
{
	return json_object_get_string(jget(o, key));
}

static int64_t jint(json_object *o, const char *key)
{
	return json_object_get_int64(jget(o, key));
}

static void test_service_json(void **state)
{
	char buf[2048];
	struct kmg_msg m;
	json_object *o, *f;

	assert_int_equal(kmg_msg_parse(service_reply(buf, KMAGLEV_CMD_SERVICE_GET), &m), 0);
	o = kmg_json_service(&m.svc);
	assert_string_equal(jstr(o, "service"), "192.0.2.10:80/tcp");
	assert_string_equal(jstr(o, "address"), "192.0.2.10");
	assert_int_equal(jint(o, "port"), 80);
	assert_string_equal(jstr(o, "protocol"), "tcp");
	assert_int_equal(jint(o, "id"), 1);
	assert_int_equal(jint(o, "table-size"), 65537);
	assert_string_equal(jstr(o, "hash"), "5tuple");
	f = jget(o, "flags");
	assert_int_equal(json_object_array_length(f), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(f, 0)), "echo");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(f, 1)), "resched");
	assert_int_equal(jint(o, "window-ms"), 30000);
	assert_int_equal(jint(o, "generation"), 3);
	assert_int_equal(jint(o, "prev-generation"), 2);
	assert_int_equal(jint(o, "ramp-now"), 40);
	assert_int_equal(jint(o, "backend-count"), 3);
	assert_int_equal(jint(o, "table-bytes"), 131074);
	assert_false(json_object_object_get_ex(o, "seed", NULL));
	json_object_put(o);
	kmg_msg_free(&m);
}

/* service show: services with their backends, text and JSON. */
static void test_service_show(void **state)
{
	char b1[2048], b2[1024], b3[1024];
	struct kmg_msgs sl = { 0 }, bl = { 0 };
	struct kmg_ctx ctx;
	json_object *arr, *s, *bes;
	struct tout o;

	assert_int_equal(kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_GET), &sl), MNL_CB_OK);
	assert_int_equal(kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_GET, "10.0.0.11", 100,
						      KMAGLEV_BACKEND_STATE_UP, 21845), &bl),
			 MNL_CB_OK);
	assert_int_equal(kmg_collect_cb(backend_reply(b3, KMAGLEV_CMD_BACKEND_GET, "2001:db8::12",
						      0, KMAGLEV_BACKEND_STATE_DRAIN, 0), &bl),
			 MNL_CB_OK);
	kmg_attach_backends(&sl, &bl);
	assert_int_equal(sl.m[0].svc.nbe, 2);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_services(&ctx, &sl);
	assert_string_equal(tout_text(&o),
			    "service 192.0.2.10:80/tcp id 1 table-size 65537 hash 5tuple flags echo,resched ramp 100 window 30s gen 3 prev-gen 2 ramp-now 40% window-left 12s backends 3 table 131074B\n"
			    "  backend 10.0.0.11 weight 100 state up encap gre gre-key 9 slots 21845\n"
			    "  backend 2001:db8::12 weight 0 state drain encap gre gre-key 9 slots 0\n");
	tout_close(&o);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_services(&ctx, &sl);
	arr = json_tokener_parse(tout_text(&o));
	assert_non_null(arr);
	assert_true(json_object_is_type(arr, json_type_array));
	assert_int_equal(json_object_array_length(arr), 1);
	s = json_object_array_get_idx(arr, 0);
	assert_string_equal(jstr(s, "service"), "192.0.2.10:80/tcp");
	bes = jget(s, "backends");
	assert_int_equal(json_object_array_length(bes), 2);
	assert_string_equal(jstr(json_object_array_get_idx(bes, 0), "address"), "10.0.0.11");
	assert_int_equal(jint(json_object_array_get_idx(bes, 0), "weight"), 100);
	assert_int_equal(jint(json_object_array_get_idx(bes, 0), "slots"), 21845);
	assert_string_equal(jstr(json_object_array_get_idx(bes, 1), "address"), "2001:db8::12");
	assert_string_equal(jstr(json_object_array_get_idx(bes, 1), "state"), "drain");
	assert_string_equal(jstr(json_object_array_get_idx(bes, 1), "encap"), "gre");
	assert_int_equal(jint(json_object_array_get_idx(bes, 1), "gre-key"), 9);
	json_object_put(arr);
	tout_close(&o);
	kmg_msgs_free(&sl);
	kmg_msgs_free(&bl);
}

static void test_backend_show(void **state)
{
	char b1[1024], b2[1024];
	struct kmg_msgs bl = { 0 };
	struct kmg_ctx ctx;
	json_object *arr, *b;
	struct tout o;

	kmg_collect_cb(backend_reply(b1, KMAGLEV_CMD_BACKEND_GET, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_UP, 100), &bl);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_GET, "10.0.0.12", 1,
				     KMAGLEV_BACKEND_STATE_DOWN, 0), &bl);
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_backends(&ctx, &bl);
	assert_string_equal(tout_text(&o),
			    "service 192.0.2.10:80/tcp id 1\n"
			    "  backend 10.0.0.11 weight 3 state up encap gre gre-key 9 slots 100\n"
			    "  backend 10.0.0.12 weight 1 state down encap gre gre-key 9 slots 0\n");
	tout_close(&o);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true, .pretty = true };
	kmg_print_backends(&ctx, &bl);
	/* pretty: several lines */
	assert_non_null(strchr(strchr(tout_text(&o), '\n') + 1, '\n'));
	arr = json_tokener_parse(tout_text(&o));
	assert_int_equal(json_object_array_length(arr), 2);
	b = json_object_array_get_idx(arr, 1);
	assert_string_equal(jstr(b, "service"), "192.0.2.10:80/tcp");
	assert_int_equal(jint(b, "service-id"), 1);
	assert_string_equal(jstr(b, "address"), "10.0.0.12");
	assert_string_equal(jstr(b, "state"), "down");
	assert_int_equal(jint(b, "max-conns"), 0);
	json_object_put(arr);
	tout_close(&o);
	kmg_msgs_free(&bl);
}

static void test_table(void **state)
{
	char buf[2048];
	struct kmg_msgs l = { 0 };
	struct kmg_table_row *rows;
	struct kmg_ctx ctx;
	json_object *arr, *t, *bes, *b;
	unsigned int n;
	struct tout o;

	assert_int_equal(kmg_collect_cb(table_reply(buf, KMAGLEV_CMD_TABLE_GET), &l), MNL_CB_OK);
	rows = kmg_table_rows(&l.m[0].table, &n);
	assert_int_equal(n, 3);
	assert_true(rows[0].eligible);
	assert_float_equal(rows[0].expected, 1.0 / 3, 1e-6);
	assert_float_equal(rows[1].share, 167.0 / 251, 1e-6);
	assert_float_equal(rows[0].deviation, (84.0 / 251) / (1.0 / 3) - 1, 1e-6);
	assert_false(rows[2].eligible);
	assert_float_equal(rows[2].expected, 0, 0);
	free(rows);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_tables(&ctx, &l, true);
	assert_string_equal(tout_text(&o),
			    "table 192.0.2.10:80/tcp size 251 gen 4 bytes 502 bytes/slot 2.00 min-slots 84 max-slots 167 digest 0x0123456789abcdef\n"
			    "  backend 10.0.0.1 weight 1 state up slots 84 share 33.466% expected 33.333% deviation +0.398%\n"
			    "  backend 10.0.0.2 weight 2 state up slots 167 share 66.534% expected 66.667% deviation -0.199%\n"
			    "  backend 10.0.0.3 weight 5 state drain slots 0 share 0.000% expected 0.000% deviation -\n");
	tout_close(&o);

	/* all services: an array */
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_tables(&ctx, &l, false);
	arr = json_tokener_parse(tout_text(&o));
	assert_true(json_object_is_type(arr, json_type_array));
	assert_int_equal(json_object_array_length(arr), 1);
	json_object_put(arr);
	tout_close(&o);

	/* "table show SERVICE": one object */
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_tables(&ctx, &l, true);
	arr = json_tokener_parse(tout_text(&o));
	assert_true(json_object_is_type(arr, json_type_object));
	t = arr;
	assert_string_equal(jstr(t, "service"), "192.0.2.10:80/tcp");
	assert_int_equal(jint(t, "size"), 251);
	assert_int_equal(jint(t, "generation"), 4);
	assert_int_equal(jint(t, "bytes"), 502);
	assert_float_equal(json_object_get_double(jget(t, "bytes-per-slot")), 2.0, 1e-4);
	assert_string_equal(jstr(t, "digest"), "0x0123456789abcdef");
	assert_int_equal(jint(t, "min-slots"), 84);
	assert_int_equal(jint(t, "max-slots"), 167);
	bes = jget(t, "backends");
	assert_int_equal(json_object_array_length(bes), 3);
	b = json_object_array_get_idx(bes, 1);
	assert_int_equal(jint(b, "slots"), 167);
	assert_true(json_object_get_boolean(jget(b, "eligible")));
	assert_float_equal(json_object_get_double(jget(b, "share-pct")), 66.534, 1e-4);
	assert_float_equal(json_object_get_double(jget(b, "expected-pct")), 66.667, 1e-4);
	assert_float_equal(json_object_get_double(jget(b, "deviation-pct")), -0.199, 1e-4);
	b = json_object_array_get_idx(bes, 2);
	assert_false(json_object_get_boolean(jget(b, "eligible")));
	assert_null(jget(b, "deviation-pct"));
	json_object_put(arr);
	tout_close(&o);
	kmg_msgs_free(&l);
}

static void test_stats(void **state)
{
	char b1[1024], b2[1024];
	struct kmg_msgs l = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *n, *bn, *st;
	struct kmg_ctx ctx;
	json_object *top, *svc, *be;
	struct tout o;

	/* a netns-wide reply: counters, no service */
	nlh = kmg_req_start(b1, KMAGLEV_CMD_STATS_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 1000);
	mnl_attr_nest_end(nlh, n);
	kmg_collect_cb(nlh, &l);
	/* a service's reply: SERVICE, STATS, BACKEND with BACKEND_STATS */
	nlh = kmg_req_start(b2, KMAGLEV_CMD_STATS_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	put_svc_key(nlh, 5, "192.0.2.20", 443);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 10);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_BYTES, 1500);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_NEW_FLOWS, 2);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_CONNS, 1);
	mnl_attr_nest_end(nlh, n);
	bn = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND);
	put_v4(nlh, KMAGLEV_A_BACKEND_ADDR4, "10.0.0.7");
	st = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 10);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_BYTES, 1500);
	mnl_attr_nest_end(nlh, st);
	mnl_attr_nest_end(nlh, bn);
	kmg_collect_cb(nlh, &l);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_stats_msgs(&ctx, &l);
	assert_string_equal(tout_text(&o),
			    "global packets 1000\n"
			    "service 192.0.2.20:443/tcp id 5 packets 10 bytes 1500 new-flows 2 conns 1\n"
			    "  backend 10.0.0.7 packets 10 bytes 1500\n");
	tout_close(&o);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_stats_msgs(&ctx, &l);
	top = json_tokener_parse(tout_text(&o));
	assert_int_equal(jint(jget(top, "global"), "packets"), 1000);
	assert_int_equal(json_object_array_length(jget(top, "services")), 1);
	svc = json_object_array_get_idx(jget(top, "services"), 0);
	assert_string_equal(jstr(svc, "service"), "192.0.2.20:443/tcp");
	assert_int_equal(jint(jget(svc, "stats"), "bytes"), 1500);
	be = json_object_array_get_idx(jget(svc, "backends"), 0);
	assert_string_equal(jstr(be, "address"), "10.0.0.7");
	assert_int_equal(jint(jget(be, "stats"), "packets"), 10);
	json_object_put(top);
	tout_close(&o);
	kmg_msgs_free(&l);
}

static void test_events(void **state)
{
	char b1[2048], b2[1024], b3[2048];
	struct nlmsghdr *nlh;
	struct kmg_ctx ctx;
	json_object *ev;
	struct tout o;
	char *line2;

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true, .pretty = true };
	ctx.nl.family_id = 0x1d;
	nlh = backend_reply(b1, KMAGLEV_CMD_BACKEND_NEW_NTF, "10.0.0.11", 1,
			    KMAGLEV_BACKEND_STATE_UP, 0);
	nlh->nlmsg_type = 0x1d;
	assert_int_equal(kmg_monitor_event(&ctx, nlh), 1);
	nlh = table_reply(b3, KMAGLEV_CMD_TABLE_NTF);
	nlh->nlmsg_type = 0x1d;
	assert_int_equal(kmg_monitor_event(&ctx, nlh), 1);
	/* another family's message is not an event */
	nlh = service_reply(b2, KMAGLEV_CMD_SERVICE_DEL_NTF);
	nlh->nlmsg_type = 0x1e;
	assert_int_equal(kmg_monitor_event(&ctx, nlh), 0);

	/* one object per line, even with -p */
	line2 = strchr(tout_text(&o), '\n');
	assert_non_null(line2);
	*line2++ = '\0';
	assert_non_null(strchr(line2, '\n'));
	assert_null(strchr(strchr(line2, '\n') + 1, '\n'));
	ev = json_tokener_parse(o.buf);
	assert_string_equal(jstr(ev, "event"), "backend-new");
	assert_string_equal(jstr(jget(ev, "service"), "service"), "192.0.2.10:80/tcp");
	assert_string_equal(jstr(jget(ev, "backend"), "address"), "10.0.0.11");
	json_object_put(ev);
	ev = json_tokener_parse(line2);
	assert_string_equal(jstr(ev, "event"), "table");
	assert_string_equal(jstr(jget(ev, "table"), "digest"), "0x0123456789abcdef");
	json_object_put(ev);
	tout_close(&o);

	tout_open(&o);
	ctx.out = o.f;
	ctx.json = false;
	nlh = service_reply(b2, KMAGLEV_CMD_SERVICE_DEL_NTF);
	nlh->nlmsg_type = 0x1d;
	kmg_monitor_event(&ctx, nlh);
	nlh = backend_reply(b1, KMAGLEV_CMD_BACKEND_CHANGE_NTF, "10.0.0.11", 2,
			    KMAGLEV_BACKEND_STATE_DRAIN, 0);
	nlh->nlmsg_type = 0x1d;
	kmg_monitor_event(&ctx, nlh);
	nlh = table_reply(b3, KMAGLEV_CMD_TABLE_NTF);
	nlh->nlmsg_type = 0x1d;
	kmg_monitor_event(&ctx, nlh);
	assert_string_equal(tout_text(&o),
			    "service-del service 192.0.2.10:80/tcp id 1 table-size 65537 hash 5tuple flags echo,resched ramp 100 window 30s gen 3 prev-gen 2 ramp-now 40% window-left 12s backends 3 table 131074B\n"
			    "backend-change service 192.0.2.10:80/tcp backend 10.0.0.11 weight 2 state drain encap gre gre-key 9 slots 0\n"
			    "table table 192.0.2.10:80/tcp size 251 gen 4 bytes 502 bytes/slot 2.00 min-slots 84 max-slots 167 digest 0x0123456789abcdef\n");
	tout_close(&o);
}

static void test_config_output(void **state)
{
	char buf[512];
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	struct kmg_msg m;
	json_object *o;
	struct tout t;

	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_MAX_SERVICES, 65536);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_MAX_BACKENDS, 1048576);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SERVICES, 2);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_BACKENDS, 6);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), 0);
	tout_open(&t);
	kmg_print_config(t.f, &m.config);
	assert_string_equal(tout_text(&t),
			    "config max-services 65536 max-backends 1048576 services 2 backends 6\n");
	tout_close(&t);
	o = kmg_json_config(&m.config);
	assert_int_equal(jint(o, "max-backends"), 1048576);
	assert_int_equal(jint(o, "services"), 2);
	json_object_put(o);
	kmg_msg_free(&m);
}

/* backend show with the kernel's backend ids: "id N" after the address; JSON "id". */
static void test_backend_id(void **state)
{
	char buf[1024];
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_BACKEND_GET, 0);
	struct kmg_msgs bl = { 0 };
	struct nlattr *n;
	struct kmg_ctx ctx;
	json_object *arr, *b;
	struct tout o;

	n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
	put_svc_key(nlh, 3, "192.0.2.10", 80);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND);
	put_v6(nlh, KMAGLEV_A_BACKEND_ADDR6, "2001:db8:b:1::2");
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, 2);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, KMAGLEV_BACKEND_STATE_UP);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ENCAP, KMAGLEV_ENCAP_IPIP);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_SLOTS, 65537);
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ID, 17);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_collect_cb(nlh, &bl), MNL_CB_OK);
	assert_true(KMG_HAS(&bl.m[0].be[0], KMAGLEV_A_BACKEND_ID));
	assert_int_equal(bl.m[0].be[0].id, 17);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_backends(&ctx, &bl);
	assert_string_equal(tout_text(&o),
			    "service 192.0.2.10:80/tcp id 3\n"
			    "  backend 2001:db8:b:1::2 id 17 weight 2 state up encap ipip slots 65537\n");
	tout_close(&o);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_backends(&ctx, &bl);
	arr = json_tokener_parse(tout_text(&o));
	assert_non_null(arr);
	assert_int_equal(json_object_array_length(arr), 1);
	b = json_object_array_get_idx(arr, 0);
	/* the backend's own id, next to its service's */
	assert_int_equal(jint(b, "id"), 17);
	assert_int_equal(jint(b, "service-id"), 3);
	assert_string_equal(jstr(b, "address"), "2001:db8:b:1::2");
	json_object_put(arr);
	tout_close(&o);

	/* without the attribute (an older kernel) there is no id */
	b = kmg_json_backend(&(struct kmg_backend){ .present = KMG_BIT(KMAGLEV_A_BACKEND_WEIGHT) });
	assert_false(json_object_object_get_ex(b, "id", NULL));
	json_object_put(b);
	kmg_msgs_free(&bl);
}

/* stats without a service: the GLOBAL nest after the summed counters, text and JSON. */
static void test_stats_global(void **state)
{
	char b1[1024], b2[1024];
	struct kmg_msgs l = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *n;
	struct kmg_ctx ctx;
	json_object *top, *g;
	struct tout o;
	unsigned int t;

	nlh = kmg_req_start(b1, KMAGLEV_CMD_STATS_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 1000);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_BYTES, 64000);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_NEW_FLOWS, 40);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_CONNS, 12);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_GLOBAL);
	/* every counter, value = 100 + type */
	for (t = KMAGLEV_A_GLOBAL_STATS_RX_PACKETS; t <= KMAGLEV_A_GLOBAL_STATS_PROBE; t++)
		mnl_attr_put_u64(nlh, t, 100 + t);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_collect_cb(nlh, &l), MNL_CB_OK);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_stats_msgs(&ctx, &l);
	assert_string_equal(tout_text(&o),
			    "global packets 1000 bytes 64000 new-flows 40 conns 12\n"
			    "  rx-packets 101 tx-packets 102 tx-bytes 103 vip-miss 104\n"
			    "  drop-malformed 105 drop-frag 106 drop-no-backend 107 drop-client-limit 108 drop-no-route 109 drop-nomem 110 drop-too-big 111\n"
			    "  icmp-ptb-sent 112 icmp-forwarded 113 icmp-echo 114 icmp-drop 115 frag-reassembled 116\n"
			    "  conn-new 117 conn-hit 118 conn-expired 119 conn-table-full 120 conn-evict-syn 121 conn-stateless 122 conn-flood 123 conn-svc-limit 124 conn-resched 125\n"
			    "  backend-limit 126 ramp-new 127 ramp-prev 128 prev-hit 129 probe 130\n");
	tout_close(&o);

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_stats_msgs(&ctx, &l);
	top = json_tokener_parse(tout_text(&o));
	assert_non_null(top);
	g = jget(top, "global");
	assert_int_equal(json_object_object_length(g), 4 + KMAGLEV_A_GLOBAL_STATS_PROBE);
	assert_int_equal(jint(g, "packets"), 1000);
	assert_int_equal(jint(g, "conns"), 12);
	assert_int_equal(jint(g, "rx-packets"), 101);
	assert_int_equal(jint(g, "drop-malformed"), 105);
	assert_int_equal(jint(g, "drop-frag"), 106);
	assert_int_equal(jint(g, "icmp-ptb-sent"), 112);
	assert_int_equal(jint(g, "icmp-forwarded"), 113);
	assert_int_equal(jint(g, "icmp-drop"), 115);
	assert_int_equal(jint(g, "conn-table-full"), 120);
	assert_int_equal(jint(g, "conn-evict-syn"), 121);
	assert_int_equal(jint(g, "conn-stateless"), 122);
	assert_int_equal(jint(g, "conn-flood"), 123);
	assert_int_equal(jint(g, "probe"), 130);
	assert_int_equal(json_object_array_length(jget(top, "services")), 0);
	json_object_put(top);
	tout_close(&o);
	kmg_msgs_free(&l);

	/* GLOBAL alone, a counter above 2^53 kept exact; zero counters are printed */
	nlh = kmg_req_start(b2, KMAGLEV_CMD_STATS_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_GLOBAL);
	mnl_attr_put_u64(nlh, KMAGLEV_A_GLOBAL_STATS_TX_BYTES, (1ULL << 60) + 1);
	mnl_attr_put_u64(nlh, KMAGLEV_A_GLOBAL_STATS_CONN_FLOOD, 0);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_collect_cb(nlh, &l), MNL_CB_OK);
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_stats_msgs(&ctx, &l);
	assert_string_equal(tout_text(&o),
			    "global\n"
			    "  tx-bytes 1152921504606846977\n"
			    "  conn-flood 0\n");
	tout_close(&o);
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_stats_msgs(&ctx, &l);
	assert_non_null(strstr(tout_text(&o), "\"tx-bytes\":1152921504606846977"));
	top = json_tokener_parse(tout_text(&o));
	g = jget(top, "global");
	assert_int_equal(json_object_object_length(g), 2);
	assert_false(json_object_object_get_ex(g, "packets", NULL));
	assert_int_equal(jint(g, "conn-flood"), 0);
	json_object_put(top);
	tout_close(&o);
	kmg_msgs_free(&l);
}

/* config show with the connection-table settings: timeouts in seconds. */
static void test_config_conn_output(void **state)
{
	char buf[512];
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	struct kmg_msg m;
	json_object *o;
	struct tout t;

	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_MAX_SERVICES, 65536);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_CONN_MAX, 64);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_CONNS, 63);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, 5);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, 900);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, 10);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_UDP, 30);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_FLOOD_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_PROBE_MARK_MIN, 4096);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_PROBE_MARK_MAX, 8191);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_msg_parse(nlh, &m), 0);
	tout_open(&t);
	kmg_print_config(t.f, &m.config);
	assert_string_equal(tout_text(&t),
			    "config max-services 65536 conn-max 64 conns 63 timeout-tcp-syn 5s timeout-tcp-est 900s timeout-tcp-fin 10s timeout-udp 30s flood-rate 0 probe-mark-min 4096 probe-mark-max 8191\n");
	tout_close(&t);
	o = kmg_json_config(&m.config);
	assert_int_equal(json_object_object_length(o), 10);
	assert_int_equal(jint(o, "conn-max"), 64);
	assert_int_equal(jint(o, "conns"), 63);
	assert_int_equal(jint(o, "timeout-tcp-syn"), 5);
	assert_int_equal(jint(o, "timeout-tcp-est"), 900);
	assert_int_equal(jint(o, "timeout-tcp-fin"), 10);
	assert_int_equal(jint(o, "timeout-udp"), 30);
	assert_int_equal(jint(o, "flood-rate"), 0);
	assert_int_equal(jint(o, "probe-mark-min"), 4096);
	assert_int_equal(jint(o, "probe-mark-max"), 8191);
	json_object_put(o);
	kmg_msg_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_service_json),
		cmocka_unit_test(test_service_show),
		cmocka_unit_test(test_backend_show),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_config_output),
		cmocka_unit_test(test_backend_id),
		cmocka_unit_test(test_stats_global),
		cmocka_unit_test(test_config_conn_output),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
