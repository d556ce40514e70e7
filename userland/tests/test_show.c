// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for output: kernel-style replies and notifications are built in memory, decoded,
 * and printed as text and as JSON. Every object's text keys and JSON keys are the same words;
 * the JSON is parsed back and checked field by field.
 */
#include <arpa/inet.h>

#include "helpers.h"
#include "lib/args.h"
#include "daemon/config.h"

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
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, 16, "0123456789abcdef");
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_PCT, 100);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_RAMP_MS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 30000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_MAX_CONNS, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CLIENT_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CRITICALITY, KMAGLEV_CRITICALITY_CRITICAL);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_OVERLOAD, KMAGLEV_OVERLOAD_OFF);
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
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE), *n2;

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
	mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ID, 4);
	n2 = mnl_attr_nest_start(nlh, KMAGLEV_A_BACKEND_STATS);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 10);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_BYTES, 1000);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_NEW_FLOWS, 2);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_CONNS, 1);
	mnl_attr_nest_end(nlh, n2);
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

/* CONFIG_GET reply with every attribute: 100 + its type, a dscp-map of ef and cs1. */
static struct nlmsghdr *config_reply(void *buf)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	uint8_t map[KMAGLEV_DSCP_MAP_LEN] = { [46] = 1, [8] = 4 };
	uint16_t t;

	for (t = 1; t <= KMAGLEV_A_CONFIG_MAX; t++)
		if (t == KMAGLEV_A_CONFIG_DSCP_MAP)
			mnl_attr_put(nlh, t, sizeof(map), map);
		else
			mnl_attr_put_u32(nlh, t, 100 + t);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* STATS_GET reply without a service: summed counters and every global counter. */
static struct nlmsghdr *global_reply(void *buf)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_STATS_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_STATS);
	uint16_t t;

	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_PACKETS, 5);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_BYTES, 500);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_NEW_FLOWS, 1);
	mnl_attr_put_u64(nlh, KMAGLEV_A_STATS_CONNS, 1);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_GLOBAL);
	for (t = 1; t <= KMAGLEV_A_GLOBAL_STATS_MAX; t++)
		if (t != KMAGLEV_A_GLOBAL_STATS_PAD)
			mnl_attr_put_u64(nlh, t, t);
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

/* --- the same keys in text and JSON -------------------------------------------------- */

struct keys {
	char k[256][40];
	unsigned int n;
};

static void keys_add(struct keys *ks, const char *k)
{
	unsigned int i;

	for (i = 0; i < ks->n; i++)
		if (!strcmp(ks->k[i], k))
			return;
	assert_true(ks->n < 256);
	snprintf(ks->k[ks->n++], sizeof(ks->k[0]), "%s", k);
}

/* Text: "key value" pairs; the labels of config and global lines stand alone. */
static void text_keys(const char *text, struct keys *ks)
{
	char *copy = strdup(text), *tok, *save;
	bool want_key = true;

	for (tok = strtok_r(copy, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		/* labels name a line, as the JSON object's place names it */
		if (want_key && (!strcmp(tok, "config") || !strcmp(tok, "global")))
			continue;
		if (want_key)
			keys_add(ks, tok);
		want_key = !want_key;
	}
	free(copy);
}

/* Is JSON member @k a field whose value is an array or an object (flags, dscp-map)? */
static bool value_container(const char *k)
{
	static const struct kmg_object *const objs[] = { &kmg_obj_service, &kmg_obj_config };
	unsigned int i, f;

	for (i = 0; i < KMG_ARRAY_SIZE(objs); i++)
		for (f = 0; f < objs[i]->n; f++)
			if (!strcmp(k, kmg_field_key(objs[i], &objs[i]->fields[f])))
				return objs[i]->fields[f].fmt == KMG_FMT_FLAGS ||
				       objs[i]->fields[f].fmt == KMG_FMT_DSCP_MAP;
	return false;
}

/* JSON: the names of members holding values; containers of objects count by their name. */
static void json_keys(json_object *o, struct keys *ks)
{
	size_t i;

	if (json_object_is_type(o, json_type_array)) {
		for (i = 0; i < json_object_array_length(o); i++)
			json_keys(json_object_array_get_idx(o, i), ks);
		return;
	}
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, k, v) {
		bool container = json_object_is_type(v, json_type_object) ||
				 (json_object_is_type(v, json_type_array) &&
				  (!json_object_array_length(v) ||
				   json_object_is_type(json_object_array_get_idx(v, 0),
						       json_type_object)));

		/* JSON's only extras: the parts of a service's name */
		if (!strcmp(k, "address") || !strcmp(k, "port") || !strcmp(k, "protocol"))
			continue;
		/* a flags array and a dscp-map's object are one field's value, empty or not */
		if (value_container(k))
			container = false;
		if (container) {
			json_keys(v, ks);
		} else {
			keys_add(ks, k);
		}
	}
}

static void keys_equal(const struct keys *t, const struct keys *j)
{
	unsigned int i, k;

	for (i = 0; i < t->n; i++) {
		for (k = 0; k < j->n && strcmp(t->k[i], j->k[k]); k++)
			;
		if (k == j->n)
			fail_msg("text key \"%s\" is not in the JSON", t->k[i]);
	}
	for (i = 0; i < j->n; i++) {
		for (k = 0; k < t->n && strcmp(j->k[i], t->k[k]); k++)
			;
		if (k == t->n)
			fail_msg("JSON key \"%s\" is not in the text", j->k[i]);
	}
}

/* Print @l with @print in text and in JSON; the keys must agree. Returns the parsed JSON. */
static json_object *both(void (*print)(struct kmg_ctx *ctx, const struct kmg_msgs *l),
			 const struct kmg_msgs *l, char **text)
{
	struct keys tk = { .n = 0 }, jk = { .n = 0 };
	struct kmg_ctx ctx;
	json_object *j;
	struct tout o;

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .secrets = true };
	print(&ctx, l);
	*text = strdup(tout_text(&o));
	tout_close(&o);
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true, .secrets = true };
	print(&ctx, l);
	j = json_tokener_parse(tout_text(&o));
	assert_non_null(j);
	tout_close(&o);
	text_keys(*text, &tk);
	json_keys(j, &jk);
	keys_equal(&tk, &jk);
	return j;
}

static void print_services(struct kmg_ctx *ctx, const struct kmg_msgs *l)
{
	kmg_print_services(ctx, l);
}

static void print_config(struct kmg_ctx *ctx, const struct kmg_msgs *l)
{
	struct kmg_out o;

	kmg_ctx_out(ctx, &o);
	kmg_out_config(&o, &l->m[0].config);
	kmg_out_end(&o);
}

static void print_tables(struct kmg_ctx *ctx, const struct kmg_msgs *l)
{
	kmg_print_tables(ctx, l, false);
}

static void print_events(struct kmg_ctx *ctx, const struct kmg_msgs *l)
{
	struct kmg_out o;
	unsigned int i;

	kmg_ctx_out(ctx, &o);
	kmg_out_open_array(&o, NULL);
	for (i = 0; i < l->n; i++) {
		kmg_out_open(&o, NULL);
		kmg_out_str(&o, "event", kmg_cmd_name(l->m[i].cmd));
		kmg_out_event(&o, &l->m[i]);
		kmg_out_close(&o);
	}
	kmg_out_close_array(&o);
	kmg_out_end(&o);
}

static void test_same_keys(void **state)
{
	char b1[2048], b2[1024], b3[1024], b4[1024], b5[2048], b6[2048];
	struct kmg_msgs sl = { 0 }, bl = { 0 }, cl = { 0 }, tl = { 0 }, gl = { 0 }, el = { 0 };
	json_object *j;
	char *text;

	/* service show: a service with every attribute, and its backends with their counters */
	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_GET), &sl);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_GET, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_UP, 100), &bl);
	kmg_attach_backends(&sl, &bl);
	j = both(print_services, &sl, &text);
	free(text);
	json_object_put(j);
	j = both(kmg_print_backends, &bl, &text);
	free(text);
	json_object_put(j);
	kmg_collect_cb(config_reply(b3), &cl);
	j = both(print_config, &cl, &text);
	free(text);
	json_object_put(j);
	kmg_collect_cb(table_reply(b4, KMAGLEV_CMD_TABLE_GET), &tl);
	j = both(print_tables, &tl, &text);
	free(text);
	json_object_put(j);
	kmg_collect_cb(global_reply(b5), &gl);
	kmg_collect_cb(service_reply(b6, KMAGLEV_CMD_STATS_GET), &gl);
	j = both(kmg_print_stats_msgs, &gl, &text);
	free(text);
	json_object_put(j);
	/* events: a service, a backend and a table notification */
	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_NEW_NTF), &el);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_NEW_NTF, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_UP, 100), &el);
	kmg_collect_cb(table_reply(b4, KMAGLEV_CMD_TABLE_NTF), &el);
	j = both(print_events, &el, &text);
	free(text);
	json_object_put(j);
	kmg_msgs_free(&sl);
	kmg_msgs_free(&bl);
	kmg_msgs_free(&cl);
	kmg_msgs_free(&tl);
	kmg_msgs_free(&gl);
	kmg_msgs_free(&el);
}

static void test_service_show(void **state)
{
	struct kmg_msgs sl = { 0 }, bl = { 0 };
	char b1[2048], b2[1024], b3[1024];
	json_object *arr, *s, *b;
	char *text;

	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_GET), &sl);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_GET, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_UP, 100), &bl);
	kmg_collect_cb(backend_reply(b3, KMAGLEV_CMD_BACKEND_GET, "2001:db8::12", 1,
				     KMAGLEV_BACKEND_STATE_DOWN, 0), &bl);
	kmg_attach_backends(&sl, &bl);
	arr = both(print_services, &sl, &text);
	/* zeros whose meaning is "not set" are left out (max-conns, client-rate, ramp-time) */
	assert_string_equal(text,
			    "service 192.0.2.10:80/tcp id 1 table-size 65537 hash five-tuple flags echo,resched seed 30313233343536373839616263646566 ramp 100 window 30s criticality critical overload off generation 3 backend-count 3 table-bytes 131074 prev-generation 2 ramp-now 40 window-left 12s\n"
			    "  backend 10.0.0.11 id 4 weight 3 state up encap gre gre-key 9 slots 100 packets 10 bytes 1000 new-flows 2 conns 1\n"
			    "  backend 2001:db8::12 id 4 weight 1 state down encap gre gre-key 9 slots 0 packets 10 bytes 1000 new-flows 2 conns 1\n");
	free(text);
	s = json_object_array_get_idx(arr, 0);
	assert_string_equal(jstr(s, "service"), "192.0.2.10:80/tcp");
	assert_string_equal(jstr(s, "address"), "192.0.2.10");
	assert_int_equal(jint(s, "port"), 80);
	assert_string_equal(jstr(s, "protocol"), "tcp");
	assert_int_equal(jint(s, "window"), 30000);
	assert_int_equal(jint(s, "window-left"), 12000);
	assert_int_equal(jint(s, "backend-count"), 3);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(jget(s, "flags"), 1)),
			    "resched");
	assert_false(json_object_object_get_ex(s, "max-conns", NULL));
	assert_string_equal(jstr(s, "criticality"), "critical");
	assert_string_equal(jstr(s, "overload"), "off");
	b = json_object_array_get_idx(jget(s, "backends"), 1);
	assert_string_equal(jstr(b, "backend"), "2001:db8::12");
	assert_string_equal(jstr(b, "state"), "down");
	assert_int_equal(jint(jget(b, "stats"), "packets"), 10);
	json_object_put(arr);
	kmg_msgs_free(&bl);
	kmg_msgs_free(&sl);
}

/* The seed prints as "(hidden)" unless --show-secrets, in text and JSON. */
static void test_seed_hidden(void **state)
{
	struct kmg_msgs sl = { 0 };
	struct kmg_ctx ctx;
	char b1[2048];
	struct tout o;

	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_GET), &sl);
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f };
	kmg_print_services(&ctx, &sl);
	assert_non_null(strstr(tout_text(&o), " seed (hidden) "));
	assert_null(strstr(tout_text(&o), "3031"));
	tout_close(&o);
	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = true };
	kmg_print_services(&ctx, &sl);
	assert_non_null(strstr(tout_text(&o), "\"seed\":\"(hidden)\""));
	tout_close(&o);
	kmg_msgs_free(&sl);
}

static void test_backend_show(void **state)
{
	char b1[1024], b2[1024];
	struct kmg_msgs bl = { 0 };
	json_object *arr, *b;
	char *text;

	kmg_collect_cb(backend_reply(b1, KMAGLEV_CMD_BACKEND_GET, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_UP, 100), &bl);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_GET, "10.0.0.12", 1,
				     KMAGLEV_BACKEND_STATE_DOWN, 0), &bl);
	arr = both(kmg_print_backends, &bl, &text);
	assert_string_equal(text,
			    "service 192.0.2.10:80/tcp id 1\n"
			    "  backend 10.0.0.11 id 4 weight 3 state up encap gre gre-key 9 slots 100 packets 10 bytes 1000 new-flows 2 conns 1\n"
			    "  backend 10.0.0.12 id 4 weight 1 state down encap gre gre-key 9 slots 0 packets 10 bytes 1000 new-flows 2 conns 1\n");
	free(text);
	/* the same shape as service show: services, each with its backends */
	assert_int_equal(json_object_array_length(arr), 1);
	b = json_object_array_get_idx(jget(json_object_array_get_idx(arr, 0), "backends"), 1);
	assert_string_equal(jstr(b, "backend"), "10.0.0.12");
	assert_string_equal(jstr(b, "state"), "down");
	json_object_put(arr);
	kmg_msgs_free(&bl);
}

static void test_table(void **state)
{
	struct kmg_msgs l = { 0 };
	json_object *arr, *t, *rows;
	char buf[2048];
	char *text;

	kmg_collect_cb(table_reply(buf, KMAGLEV_CMD_TABLE_GET), &l);
	arr = both(print_tables, &l, &text);
	assert_string_equal(text,
			    "table 192.0.2.10:80/tcp id 1 size 251 generation 4 bytes 502 min-slots 84 max-slots 167 digest 0x0123456789abcdef bytes-per-slot 2.00\n"
			    "  backend 10.0.0.1 weight 1 state up slots 84 share 33.466% expected 33.333% deviation 0.398%\n"
			    "  backend 10.0.0.2 weight 2 state up slots 167 share 66.534% expected 66.667% deviation -0.199%\n"
			    "  backend 10.0.0.3 weight 5 state drain slots 0 share 0.000% expected 0.000% deviation -\n");
	free(text);
	t = json_object_array_get_idx(arr, 0);
	assert_string_equal(jstr(t, "digest"), "0x0123456789abcdef");
	rows = jget(t, "backends");
	assert_int_equal(json_object_array_length(rows), 3);
	assert_string_equal(json_object_to_json_string(jget(json_object_array_get_idx(rows, 1),
							    "share")), "66.534");
	assert_true(json_object_is_type(jget(json_object_array_get_idx(rows, 2), "deviation"),
					json_type_null));
	json_object_put(arr);
	kmg_msgs_free(&l);
}

static void test_stats(void **state)
{
	char b1[2048], b2[2048], b3[1024];
	struct kmg_msgs l = { 0 };
	json_object *top, *s;
	char *text;

	kmg_collect_cb(global_reply(b1), &l);
	kmg_collect_cb(service_reply(b2, KMAGLEV_CMD_STATS_GET), &l);
	kmg_collect_cb(backend_reply(b3, KMAGLEV_CMD_STATS_GET, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_UP, 100), &l);
	top = both(kmg_print_stats_msgs, &l, &text);
	/* related global counters share a line */
	assert_non_null(strstr(text, "global packets 5 bytes 500 new-flows 1 conns 1\n"
				      "  rx-packets 1 tx-packets 2 tx-bytes 3 vip-miss 4\n"
				      "  drop-malformed 5 "));
	assert_non_null(strstr(text, "\nservice 192.0.2.10:80/tcp id 1\n"));
	free(text);
	assert_int_equal(jint(jget(top, "global"), "rx-packets"), 1);
	assert_int_equal(jint(jget(top, "global"), "packets"), 5);
	s = json_object_array_get_idx(jget(top, "services"), 0);
	assert_string_equal(jstr(s, "service"), "192.0.2.10:80/tcp");
	json_object_put(top);
	kmg_msgs_free(&l);
}

static void test_config(void **state)
{
	struct kmg_msgs l = { 0 };
	json_object *o;
	char buf[1024];
	char *text;

	kmg_collect_cb(config_reply(buf), &l);
	o = both(print_config, &l, &text);
	/* timeouts: text with their unit, JSON in seconds, as the attribute is */
	assert_non_null(strstr(text, "config max-services 101 "));
	assert_non_null(strstr(text, " timeout-tcp-syn 107s "));
	free(text);
	assert_int_equal(jint(o, "timeout-tcp-syn"), 107);
	json_object_put(o);
	kmg_msgs_free(&l);
}

/*
 * ingress-dev at its longest (32 names, 255 bytes): shown, saved and saved as YAML whole,
 * not cut at a buffer for addresses (it once was at 109 bytes: a saved list named other
 * devices, or failed to load).
 */
static void test_ingress_dev_long(void **state)
{
	struct kmg_msgs l = { 0 };
	char buf[1024], devs[256], want[300];
	struct nlmsghdr *nlh;
	struct nlattr *n;
	json_object *o;
	struct tout t;
	char *text;
	size_t len = 0;
	int i;

	for (i = 0; i < 32; i++)
		len += snprintf(devs + len, sizeof(devs) - len, "%sdevice-%02d", i ? "," : "", i);
	/* pad the last name up to the 255 bytes the attribute may have */
	while (len < KMAGLEV_INGRESS_DEV_LEN_MAX)
		devs[len++] = 'x';
	devs[len] = '\0';
	assert_int_equal(strlen(devs), KMAGLEV_INGRESS_DEV_LEN_MAX);
	nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_HOOK, KMAGLEV_HOOK_INGRESS);
	mnl_attr_put_strz(nlh, KMAGLEV_A_CONFIG_INGRESS_DEV, devs);
	mnl_attr_nest_end(nlh, n);
	kmg_collect_cb(nlh, &l);

	o = both(print_config, &l, &text);
	snprintf(want, sizeof(want), " hook ingress ingress-dev %s\n", devs);
	assert_non_null(strstr(text, want));
	free(text);
	assert_string_equal(jstr(o, "ingress-dev"), devs);
	json_object_put(o);

	tout_open(&t);
	kmg_save(t.f, &l.m[0].config, &(struct kmg_msgs){ 0 });
	snprintf(want, sizeof(want), "hook ingress ingress-dev %s", devs);
	assert_non_null(strstr(tout_text(&t), want));
	tout_close(&t);

	tout_open(&t);
	assert_int_equal(kmd_config_save_yaml(t.f, &l.m[0].config, NULL, 0), 0);
	snprintf(want, sizeof(want), "ingress-dev: \"%s\"\n", devs);	/* commas: quoted */
	assert_non_null(strstr(tout_text(&t), want));
	tout_close(&t);
	kmg_msgs_free(&l);
}

static void test_events(void **state)
{
	char b1[2048], b2[1024], b3[1024];
	struct kmg_msgs l = { 0 };
	json_object *arr, *e;
	char *text;

	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_DEL_NTF), &l);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_CHANGE_NTF, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_DRAIN, 100), &l);
	kmg_collect_cb(table_reply(b3, KMAGLEV_CMD_TABLE_NTF), &l);
	arr = both(print_events, &l, &text);
	/* one line each; the table event is not "table table" */
	assert_non_null(strstr(text, "event backend-change service 192.0.2.10:80/tcp id 1 backend 10.0.0.11 id 4 weight 3 state drain"));
	assert_non_null(strstr(text, "\nevent table-change table 192.0.2.10:80/tcp id 1 size 251 "));
	free(text);
	e = json_object_array_get_idx(arr, 1);
	assert_string_equal(jstr(jget(e, "backend"), "state"), "drain");
	assert_string_equal(jstr(jget(e, "service"), "service"), "192.0.2.10:80/tcp");
	e = json_object_array_get_idx(arr, 2);
	assert_int_equal(jint(jget(e, "table"), "generation"), 4);
	json_object_put(arr);
	kmg_msgs_free(&l);
}

/* save writes what the CLI reads back: the service parses into the same settings. */
static void test_save(void **state)
{
	struct kmg_msgs sl = { 0 }, bl = { 0 }, cl = { 0 };
	char b1[2048], b2[1024], b3[1024], *line;
	struct kmg_service s;
	struct targv t;
	struct tout o;

	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_GET), &sl);
	kmg_collect_cb(backend_reply(b2, KMAGLEV_CMD_BACKEND_GET, "10.0.0.11", 3,
				     KMAGLEV_BACKEND_STATE_DRAIN, 100), &bl);
	kmg_collect_cb(config_reply(b3), &cl);
	kmg_attach_backends(&sl, &bl);
	tout_open(&o);
	kmg_save(o.f, &cl.m[0].config, &sl);
	line = strstr(tout_text(&o), "\nservice add ");
	assert_non_null(line);
	/* read-only fields are not saved; the seed is, in clear */
	assert_null(strstr(line, "generation"));
	assert_non_null(strstr(line, " seed 30313233343536373839616263646566 "));
	assert_non_null(strstr(tout_text(&o), "\nconfig set max-services 101 max-backends 102 conn-max 105 timeout-tcp-syn 107s "));
	{
		char *copy = strdup(line + strlen("\nservice add "));

		copy[strcspn(copy, "\n")] = '\0';
		t = targv(copy);
		free(copy);
	}
	assert_int_equal(kmg_service_parse(t.argc, t.argv, false, &s), 0);
	assert_int_equal(s.table_size, 65537);
	assert_int_equal(s.window_ms, 30000);
	assert_int_equal(s.flags, KMAGLEV_SERVICE_FLAGS_ECHO | KMAGLEV_SERVICE_FLAGS_RESCHED);
	assert_memory_equal(s.seed, "0123456789abcdef", 16);
	assert_int_equal(s.nbe, 1);
	assert_int_equal(s.be[0].state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(s.be[0].gre_key, 9);
	kmg_service_free(&s);
	targv_free(&t);
	tout_close(&o);
	kmg_msgs_free(&sl);
	kmg_msgs_free(&bl);
	kmg_msgs_free(&cl);
}

/* A service reply with @owner and nothing else but its key. */
static struct nlmsghdr *owner_reply(void *buf, const char *owner)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_svc_key(nlh, 1, "192.0.2.10", 80);
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, 16, "0123456789abcdef");
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 30000);
	if (owner)
		mnl_attr_put_strz(nlh, KMAGLEV_A_SERVICE_OWNER, owner);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* The owner: shown and saved when set, left out when empty; save quotes it as it must. */
static void test_owner(void **state)
{
	struct kmg_msgs sl = { 0 };
	struct kmg_service s;
	char b1[512], *copy, *line, **argv;
	json_object *arr;
	struct tout o;
	char *text;
	int argc;

	kmg_collect_cb(owner_reply(b1, "kmaglevd"), &sl);
	arr = both(print_services, &sl, &text);
	assert_string_equal(text, "service 192.0.2.10:80/tcp id 1 seed 30313233343536373839616263646566 window 30s owner kmaglevd\n");
	assert_string_equal(jstr(json_object_array_get_idx(arr, 0), "owner"), "kmaglevd");
	free(text);
	json_object_put(arr);
	kmg_msgs_free(&sl);

	kmg_collect_cb(owner_reply(b1, ""), &sl);
	arr = both(print_services, &sl, &text);
	assert_string_equal(text, "service 192.0.2.10:80/tcp id 1 seed 30313233343536373839616263646566 window 30s\n");
	assert_false(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "owner", NULL));
	free(text);
	json_object_put(arr);
	kmg_msgs_free(&sl);

	kmg_collect_cb(owner_reply(b1, "ops \"blue\" #2 \\o/"), &sl);
	tout_open(&o);
	kmg_save(o.f, NULL, &sl);
	line = strstr(tout_text(&o), "\nservice add ");
	assert_non_null(line);
	copy = strdup(line + 1);
	copy[strcspn(copy, "\n")] = '\0';
	assert_non_null(strstr(copy, " owner \"ops \\\"blue\\\" #2 \\\\o/\""));
	/* the batch parser reads it back as it was */
	argc = kmg_split_line(copy, &argv);
	assert_int_equal(argc, 9);	/* service add SERVICE seed HEX window 30s owner NAME */
	assert_int_equal(kmg_service_parse(argc - 2, argv + 2, false, &s), 0);
	assert_string_equal(s.owner, "ops \"blue\" #2 \\o/");
	kmg_service_free(&s);
	free(argv);
	free(copy);
	tout_close(&o);
	kmg_msgs_free(&sl);
}

/* kmg_save() of @cfg and @sl: its first "@cmd ..." line, without @cmd; to be freed. */
static char *save_line(const struct kmg_config *cfg, const struct kmg_msgs *sl, const char *cmd)
{
	const char *p;
	struct tout out;
	char key[64];
	char *line;

	snprintf(key, sizeof(key), "\n%s ", cmd);
	tout_open(&out);
	kmg_save(out.f, cfg, sl);
	p = strstr(tout_text(&out), key);
	assert_non_null(p);
	line = strdup(p + strlen(key));
	assert_non_null(line);
	line[strcspn(line, "\n")] = '\0';
	tout_close(&out);
	return line;
}

/* kmg_save() of @cfg: its config set line reads @want, and parses back into @c. */
static void save_config(const struct kmg_config *cfg, const char *want, struct kmg_config *c)
{
	char *line = save_line(cfg, &(struct kmg_msgs){ 0 }, "config set");
	struct targv t;

	assert_string_equal(line, want);
	t = targv(line);
	free(line);
	assert_int_equal(kmg_config_parse(t.argc, t.argv, c), 0);
	targv_free(&t);
}

/* What kmd_config_save_yaml() writes of @cfg and the @n services @svcs; to be freed. */
static char *save_yaml(const struct kmg_config *cfg, const struct kmg_service *svcs,
		       unsigned int n)
{
	struct tout out;
	char *text;

	tout_open(&out);
	assert_int_equal(kmd_config_save_yaml(out.f, cfg, svcs, n), 0);
	text = strdup(tout_text(&out));
	assert_non_null(text);
	tout_close(&out);
	return text;
}

/* What kmg_save() writes of @cfg and @sl; to be freed. */
static char *save_text(const struct kmg_config *cfg, const struct kmg_msgs *sl)
{
	struct tout out;
	char *text;

	tout_open(&out);
	kmg_save(out.f, cfg, sl);
	text = strdup(tout_text(&out));
	assert_non_null(text);
	tout_close(&out);
	return text;
}

/* stats of global_reply(): the text holds @want, the JSON's global @key is @val. */
static void assert_global_stats(const char *want, const char *key, int64_t val)
{
	struct kmg_msgs gl = { 0 };
	char buf[2048], *text;
	json_object *o;

	kmg_collect_cb(global_reply(buf), &gl);
	o = both(kmg_print_stats_msgs, &gl, &text);
	assert_non_null(strstr(text, want));
	free(text);
	assert_int_equal(jint(jget(o, "global"), key), val);
	json_object_put(o);
	kmg_msgs_free(&gl);
}

/* The quota settings and counters in config show, stats, save and save --yaml. */
static void test_quota_config_stats(void **state)
{
	struct kmg_msgs l = { 0 };
	char buf[1024], *text;
	struct nlmsghdr *nlh;
	struct kmg_config c;
	struct nlattr *n;
	json_object *o;

	nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_FLOOD_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_RATE, 50);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_BURST, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_PREFIX4, 24);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_PREFIX6, 64);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_SCOPE, KMAGLEV_QUOTA_SCOPE_SERVICE);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_ACTION, KMAGLEV_QUOTA_ACTION_RST);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTA_MAX, 65536);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_QUOTAS, 12);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(kmg_collect_cb(nlh, &l), MNL_CB_OK);
	o = both(print_config, &l, &text);
	assert_string_equal(text, "config flood-rate 0 quota-rate 50 quota-burst 0 quota-prefix4 24 "
			    "quota-prefix6 64 quota-scope service quota-action rst quota-max 65536 "
			    "quotas 12\n");
	free(text);
	assert_string_equal(jstr(o, "quota-scope"), "service");
	assert_string_equal(jstr(o, "quota-action"), "rst");
	assert_int_equal(jint(o, "quota-burst"), 0);
	assert_int_equal(jint(o, "quotas"), 12);
	json_object_put(o);

	/* save: every setting, not the count, and it parses back to the same values */
	save_config(&l.m[0].config, "flood-rate 0 quota-rate 50 quota-burst 0 quota-prefix4 24 "
		    "quota-prefix6 64 quota-scope service quota-action rst quota-max 65536", &c);
	assert_int_equal(c.present, l.m[0].config.present & ~KMG_BIT(KMAGLEV_A_CONFIG_QUOTAS));
	assert_int_equal(c.quota_scope, KMAGLEV_QUOTA_SCOPE_SERVICE);
	assert_int_equal(c.quota_action, KMAGLEV_QUOTA_ACTION_RST);
	assert_int_equal(c.quota_prefix4, 24);

	/* save --yaml: the same keys */
	text = save_yaml(&l.m[0].config, NULL, 0);
	assert_non_null(strstr(text, "config:\n  flood-rate: 0\n  quota-rate: 50\n"
			       "  quota-burst: 0\n  quota-prefix4: 24\n  quota-prefix6: 64\n"
			       "  quota-scope: service\n  quota-action: rst\n  quota-max: 65536\n"));
	assert_null(strstr(text, "quotas"));
	free(text);
	kmg_msgs_free(&l);

	/* stats: the quota counters on a line of their own */
	assert_global_stats(" frag-queued 34\n  quota-drop 35 quota-rst 36 quota-untracked 37\n",
			    "quota-untracked", 37);
}

/* A CONFIG_GET reply with the load-shedding settings and state only. */
static struct nlmsghdr *shed_reply(void *buf, const uint8_t *map, uint32_t shedding)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_CONFIG_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);

	mnl_attr_put(nlh, KMAGLEV_A_CONFIG_DSCP_MAP, KMAGLEV_DSCP_MAP_LEN, map);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_CLASS, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_CONN_FILL, 90);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_NEW_RATE, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH, 850);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_LOAD_LOW, 700);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_LOAD, 417);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHEDDING, shedding);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_SHED_TRANSITIONS, 6);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* config show, save and save --yaml of the load-shedding settings; stats' shed- counters. */
static void test_shed_config(void **state)
{
	uint8_t map[KMAGLEV_DSCP_MAP_LEN] = { [46] = 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS,
					      [8] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE,
					      [10] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE_PLUS,
					      [5] = 1 + KMAGLEV_CRITICALITY_CRITICAL };
	struct kmg_msgs l = { 0 };
	char buf[1024], *text;
	json_object *o, *dm, *sh;
	struct kmg_config c;

	kmg_collect_cb(shed_reply(buf, map, KMAGLEV_SHED_REASON_CONN_FILL |
				  KMAGLEV_SHED_REASON_LOAD), &l);
	o = both(print_config, &l, &text);
	assert_string_equal(text, "config dscp-map 5=critical,cs1=sheddable,af11=sheddable-plus,"
			    "ef=critical-plus shed-class sheddable-plus shed-conn-fill 90 "
			    "shed-new-rate 0 shed-load-high 850 shed-load-low 700 load 417 "
			    "shedding conn-fill,load shed-transitions 6\n");
	free(text);
	/* JSON: the map an object in DSCP order, shedding an array, load per mille */
	dm = jget(o, "dscp-map");
	assert_true(json_object_is_type(dm, json_type_object));
	assert_string_equal(json_object_to_json_string_ext(dm, JSON_C_TO_STRING_PLAIN),
			    "{\"5\":\"critical\",\"cs1\":\"sheddable\",\"af11\":"
			    "\"sheddable-plus\",\"ef\":\"critical-plus\"}");
	sh = jget(o, "shedding");
	assert_int_equal(json_object_array_length(sh), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(sh, 0)), "conn-fill");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(sh, 1)), "load");
	assert_int_equal(jint(o, "load"), 417);
	assert_string_equal(jstr(o, "shed-class"), "sheddable-plus");
	assert_int_equal(jint(o, "shed-transitions"), 6);
	json_object_put(o);

	/* save: the settings, not the state, and they parse back to the same values */
	save_config(&l.m[0].config, "dscp-map 5=critical,cs1=sheddable,af11=sheddable-plus,"
		    "ef=critical-plus shed-class sheddable-plus shed-conn-fill 90 "
		    "shed-new-rate 0 shed-load-high 850 shed-load-low 700", &c);
	assert_int_equal(c.present, l.m[0].config.present & ~(KMG_BIT(KMAGLEV_A_CONFIG_LOAD) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHEDDING) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_TRANSITIONS)));
	assert_memory_equal(c.dscp_map, map, sizeof(map));
	assert_int_equal(c.shed_class, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	assert_int_equal(c.shed_load_low, 700);

	/* save --yaml: the map as a flow mapping */
	text = save_yaml(&l.m[0].config, NULL, 0);
	assert_non_null(strstr(text, "config:\n  dscp-map: {5: critical, "
			       "cs1: sheddable, af11: sheddable-plus, ef: critical-plus}\n"
			       "  shed-class: sheddable-plus\n  shed-conn-fill: 90\n"
			       "  shed-new-rate: 0\n  shed-load-high: 850\n  shed-load-low: 700\n"));
	assert_null(strstr(text, "load:"));
	assert_null(strstr(text, "shedding"));
	assert_null(strstr(text, "transitions"));
	free(text);
	kmg_msgs_free(&l);

	/* an empty map: none, {} in JSON and YAML; no signal on: shedding none, [] */
	memset(map, 0, sizeof(map));
	kmg_collect_cb(shed_reply(buf, map, 0), &l);
	o = both(print_config, &l, &text);
	assert_non_null(strstr(text, "config dscp-map none shed-class "));
	assert_non_null(strstr(text, " shedding none "));
	free(text);
	assert_int_equal(json_object_object_length(jget(o, "dscp-map")), 0);
	assert_int_equal(json_object_array_length(jget(o, "shedding")), 0);
	json_object_put(o);
	text = save_text(&l.m[0].config, &(struct kmg_msgs){ 0 });
	assert_non_null(strstr(text, "\nconfig set dscp-map none shed-class "));
	free(text);
	text = save_yaml(&l.m[0].config, NULL, 0);
	assert_non_null(strstr(text, "config:\n  dscp-map: {}\n"));
	free(text);
	kmg_msgs_free(&l);

	/* stats: the shed- counters on a line of their own, after the quota ones */
	assert_global_stats(" quota-untracked 37\n  shed-conn-fill 38 shed-new-rate 39 "
			    "shed-load 40 shed-util 41\n", "shed-util", 41);
	/* and the encap dr ones on the next */
	assert_global_stats(" shed-util 41\n  dr-neigh-failed 42 drop-dr-route 43\n",
			    "drop-dr-route", 43);
}

/* A service reply with a criticality and an overload state. */
static struct nlmsghdr *shed_service_reply(void *buf, uint32_t criticality, uint32_t overload)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_SERVICE_GET, 0);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);

	put_svc_key(nlh, 2, "192.0.2.30", 443);
	mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, 16, "0123456789abcdef");
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_WINDOW_MS, 30000);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_CRITICALITY, criticality);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_OVERLOAD, overload);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* service show, save and save --yaml of criticality and overload. */
static void test_shed_service(void **state)
{
	struct kmg_msgs sl = { 0 };
	struct kmg_service s;
	char b1[512], *line;
	json_object *arr, *o;
	struct targv t;
	char *text;

	kmg_collect_cb(shed_service_reply(b1, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS,
					  KMAGLEV_OVERLOAD_ON), &sl);
	arr = both(print_services, &sl, &text);
	assert_string_equal(text, "service 192.0.2.30:443/tcp id 2 seed 30313233343536373839616263"
			    "646566 window 30s criticality sheddable-plus overload on\n");
	free(text);
	o = json_object_array_get_idx(arr, 0);
	assert_string_equal(jstr(o, "criticality"), "sheddable-plus");
	assert_string_equal(jstr(o, "overload"), "on");
	json_object_put(arr);

	/* save: both, as service add reads them back */
	line = save_line(NULL, &sl, "service add");
	assert_non_null(strstr(line, " criticality sheddable-plus overload on"));
	t = targv(line);
	free(line);
	assert_int_equal(kmg_service_parse(t.argc, t.argv, false, &s), 0);
	targv_free(&t);
	assert_int_equal(s.criticality, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	assert_int_equal(s.overload, KMAGLEV_OVERLOAD_ON);
	kmg_service_free(&s);

	/* save --yaml: the criticality; not the overload, which the daemon sets */
	text = save_yaml(NULL, &sl.m[0].svc, 1);
	assert_non_null(strstr(text, "    criticality: sheddable-plus\n"));
	assert_null(strstr(text, "overload"));
	free(text);
	kmg_msgs_free(&sl);

	/* the default criticality is left out of save --yaml, not of save */
	kmg_collect_cb(shed_service_reply(b1, KMAGLEV_CRITICALITY_CRITICAL, KMAGLEV_OVERLOAD_OFF),
		       &sl);
	text = save_yaml(NULL, &sl.m[0].svc, 1);
	assert_null(strstr(text, "criticality"));
	free(text);
	text = save_text(NULL, &sl);
	assert_non_null(strstr(text, " criticality critical overload off\n"));
	free(text);
	kmg_msgs_free(&sl);
}

/* --- quota show ------------------------------------------------------------------------ */

/* A QUOTA_GET dump message of one bucket (@svc < 0: scope netns, no service id). */
static struct nlmsghdr *quota_reply(void *buf, const char *addr, uint8_t plen, int64_t svc,
				    uint64_t accepted, uint64_t rejected, uint32_t tokens,
				    uint32_t idle_ms)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, KMAGLEV_CMD_QUOTA_GET, NLM_F_MULTI);
	struct nlattr *n = mnl_attr_nest_start(nlh, KMAGLEV_A_QUOTA);

	if (strchr(addr, ':'))
		put_v6(nlh, KMAGLEV_A_QUOTA_ADDR6, addr);
	else
		put_v4(nlh, KMAGLEV_A_QUOTA_ADDR4, addr);
	mnl_attr_put_u8(nlh, KMAGLEV_A_QUOTA_PREFIX_LEN, plen);
	if (svc >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_QUOTA_SERVICE_ID, svc);
	mnl_attr_put_u64(nlh, KMAGLEV_A_QUOTA_ACCEPTED, accepted);
	mnl_attr_put_u64(nlh, KMAGLEV_A_QUOTA_REJECTED, rejected);
	mnl_attr_put_u32(nlh, KMAGLEV_A_QUOTA_TOKENS, tokens);
	mnl_attr_put_u32(nlh, KMAGLEV_A_QUOTA_IDLE_MS, idle_ms);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* Through kmg_quota_cb() as the dump's messages arrive, then sorted, as kmg_quota_dump(). */
static void quota_feed(struct kmg_quotas *qs, struct nlmsghdr *nlh)
{
	assert_int_equal(kmg_quota_cb(nlh, qs), MNL_CB_OK);
}

/* "kmaglev quota show" (@json) of @qs, services from @sl, into a new string. */
static char *quota_print(const struct kmg_quotas *qs, const struct kmg_msgs *sl, bool json)
{
	struct kmg_ctx ctx;
	struct tout o;
	char *text;

	tout_open(&o);
	ctx = (struct kmg_ctx){ .out = o.f, .json = json };
	kmg_print_quotas(&ctx, qs, sl);
	text = strdup(tout_text(&o));
	tout_close(&o);
	return text;
}

/* Scope service: sorted by rejected, accepted, then prefix; services by their key. */
static void test_quota_show(void **state)
{
	struct kmg_quotas qs = { 0 };
	struct kmg_msgs sl = { 0 };
	json_object *arr, *q, *svc;
	char b1[2048], buf[512];
	char *text;

	kmg_collect_cb(service_reply(b1, KMAGLEV_CMD_SERVICE_GET), &sl);	/* id 1 */
	/* in no order, as the kernel dumps them */
	quota_feed(&qs, quota_reply(buf, "203.0.113.7", 32, 1, 80, 0, 20, 12500));
	quota_feed(&qs, quota_reply(buf, "198.51.100.0", 24, 1, 1200, 5400, 0, 2));
	quota_feed(&qs, quota_reply(buf, "2001:db8:1::", 64, 1, 80, 0, 20, 61000));
	quota_feed(&qs, quota_reply(buf, "203.0.113.7", 32, 9, 80, 0, 3, 7200000));
	quota_feed(&qs, quota_reply(buf, "192.0.2.99", 32, 1, 90, 0, 1, 999));
	kmg_quotas_sort(&qs);
	assert_int_equal(qs.n, 5);
	assert_int_equal(qs.total, 5);

	text = quota_print(&qs, &sl, false);
	/* ties (80 accepted, none rejected): IPv4 before IPv6, then the service id */
	assert_string_equal(text,
		"PREFIX           SERVICE            ACCEPTED  REJECTED  TOKENS   IDLE\n"
		"198.51.100.0/24  192.0.2.10:80/tcp      1200      5400       0    2ms\n"
		"192.0.2.99/32    192.0.2.10:80/tcp        90         0       1  999ms\n"
		"203.0.113.7/32   192.0.2.10:80/tcp        80         0      20  12.5s\n"
		"203.0.113.7/32   id 9                     80         0       3  2h00m\n"
		"2001:db8:1::/64  192.0.2.10:80/tcp        80         0      20  1m01s\n");
	free(text);

	text = quota_print(&qs, &sl, true);
	arr = json_tokener_parse(text);
	assert_non_null(arr);
	free(text);
	assert_int_equal(json_object_array_length(arr), 5);
	q = json_object_array_get_idx(arr, 0);
	assert_string_equal(jstr(q, "prefix"), "198.51.100.0/24");
	assert_int_equal(jint(q, "accepted"), 1200);
	assert_int_equal(jint(q, "rejected"), 5400);
	assert_int_equal(jint(q, "tokens"), 0);
	assert_int_equal(jint(q, "idle-ms"), 2);
	svc = jget(q, "service");
	assert_string_equal(jstr(svc, "service"), "192.0.2.10:80/tcp");
	assert_string_equal(jstr(svc, "address"), "192.0.2.10");
	assert_int_equal(jint(svc, "port"), 80);
	assert_string_equal(jstr(svc, "protocol"), "tcp");
	assert_int_equal(jint(svc, "id"), 1);
	/* exactly these keys */
	assert_int_equal(json_object_object_length(q), 6);
	/* a service deleted since the dump: its id alone */
	q = json_object_array_get_idx(arr, 3);
	assert_string_equal(jstr(q, "prefix"), "203.0.113.7/32");
	svc = jget(q, "service");
	assert_int_equal(jint(svc, "id"), 9);
	assert_int_equal(json_object_object_length(svc), 1);
	assert_int_equal(jint(json_object_array_get_idx(arr, 4), "idle-ms"), 61000);
	json_object_put(arr);
	kmg_quotas_free(&qs);
	kmg_msgs_free(&sl);
}

/* Scope netns: no SERVICE column, no "service" key; large counters; top N. */
static void test_quota_netns_top(void **state)
{
	struct kmg_quotas qs = { 0 }, top = { .limit = 2 };
	json_object *arr, *q;
	char buf[512];
	char *text;

	quota_feed(&qs, quota_reply(buf, "2001:db8::", 48, -1, 18446744073709551615ULL, 7, 100,
				    0));
	quota_feed(&qs, quota_reply(buf, "10.0.0.0", 8, -1, 3, 7, 0, 59999));
	quota_feed(&qs, quota_reply(buf, "10.1.0.0", 16, -1, 3, 8, 0, 3600000));
	kmg_quotas_sort(&qs);
	text = quota_print(&qs, NULL, false);
	assert_string_equal(text,
		"PREFIX                     ACCEPTED  REJECTED  TOKENS   IDLE\n"
		"10.1.0.0/16                       3         8       0  1h00m\n"
		"2001:db8::/48  18446744073709551615         7     100    0ms\n"
		"10.0.0.0/8                        3         7       0  59.9s\n");
	free(text);
	text = quota_print(&qs, NULL, true);
	arr = json_tokener_parse(text);
	assert_non_null(arr);
	free(text);
	q = json_object_array_get_idx(arr, 1);
	assert_false(json_object_object_get_ex(q, "service", NULL));
	assert_int_equal(json_object_object_length(q), 5);
	/* no rounding of 64-bit counters */
	assert_true(json_object_get_uint64(jget(q, "accepted")) == UINT64_MAX);
	json_object_put(arr);

	/* top 2: the same first two rows, and only those */
	quota_feed(&top, quota_reply(buf, "2001:db8::", 48, -1, 18446744073709551615ULL, 7, 100,
				     0));
	quota_feed(&top, quota_reply(buf, "10.0.0.0", 8, -1, 3, 7, 0, 59999));
	quota_feed(&top, quota_reply(buf, "10.1.0.0", 16, -1, 3, 8, 0, 3600000));
	kmg_quotas_sort(&top);
	assert_int_equal(top.n, 2);
	assert_int_equal(top.total, 3);
	text = quota_print(&top, NULL, false);
	assert_string_equal(text,
		"PREFIX                     ACCEPTED  REJECTED  TOKENS   IDLE\n"
		"10.1.0.0/16                       3         8       0  1h00m\n"
		"2001:db8::/48  18446744073709551615         7     100    0ms\n");
	free(text);
	kmg_quotas_free(&top);
	kmg_quotas_free(&qs);
}

/* An empty table: the header alone, or []. */
static void test_quota_empty(void **state)
{
	struct kmg_quotas qs = { 0 };
	char *text;

	text = quota_print(&qs, NULL, false);
	assert_string_equal(text, "PREFIX  ACCEPTED  REJECTED  TOKENS  IDLE\n");
	free(text);
	text = quota_print(&qs, NULL, true);
	assert_string_equal(text, "[]\n");
	free(text);
}

/*
 * top N keeps what sorting all and cutting after N keeps, whatever the order the buckets come
 * in and however many tie: many buckets with few distinct counts, every limit around them.
 */
static void test_quota_top(void **state)
{
	static const unsigned int limits[] = { 1, 2, 3, 7, 10, 64, 299, 300, 301, 1000 };
	struct kmg_quota *all = calloc(300, sizeof(*all));
	struct kmg_quotas full = { 0 };
	unsigned int i, k, seed = 42;

	assert_non_null(all);
	for (i = 0; i < 300; i++) {
		struct kmg_quota *q = &all[i];
		struct kmg_addr a = { .family = AF_INET };

		seed = seed * 1103515245 + 12345;
		a.v4.s_addr = htonl(0x0a000000 | (seed >> 8 & 0xff) << 8);
		if (i % 7 == 0) {
			a.family = AF_INET6;
			memset(&a.v6, 0, sizeof(a.v6));
			a.v6.s6_addr[0] = 0x20;
			a.v6.s6_addr[15] = seed >> 4 & 0xf;
		}
		kmg_quota_set_addr(q, &a);
		q->prefix_len = a.family == AF_INET ? 24 : 64;
		q->rejected = seed >> 16 & 3;
		q->accepted = seed >> 20 & 3;
		q->service_id = seed >> 24 & 1;
		assert_int_equal(kmg_quotas_add(&full, q), 0);
	}
	kmg_quotas_sort(&full);
	for (i = 1; i < full.n; i++)
		assert_true(kmg_quota_cmp(&full.q[i - 1], &full.q[i]) <= 0);
	for (k = 0; k < KMG_ARRAY_SIZE(limits); k++) {
		struct kmg_quotas top = { .limit = limits[k] };
		unsigned int want = limits[k] < 300 ? limits[k] : 300;

		for (i = 0; i < 300; i++)
			assert_int_equal(kmg_quotas_add(&top, &all[(i * 7) % 300]), 0);
		kmg_quotas_sort(&top);
		assert_int_equal(top.n, want);
		assert_int_equal(top.total, 300);
		for (i = 0; i < want; i++)
			if (kmg_quota_cmp(&top.q[i], &full.q[i]))
				fail_msg("limit %u: row %u differs", limits[k], i);
		kmg_quotas_free(&top);
	}
	kmg_quotas_free(&full);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_keys),
		cmocka_unit_test(test_service_show),
		cmocka_unit_test(test_seed_hidden),
		cmocka_unit_test(test_backend_show),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_ingress_dev_long),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_save),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_quota_config_stats),
		cmocka_unit_test(test_shed_config),
		cmocka_unit_test(test_shed_service),
		cmocka_unit_test(test_quota_show),
		cmocka_unit_test(test_quota_netns_top),
		cmocka_unit_test(test_quota_empty),
		cmocka_unit_test(test_quota_top),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
