// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: the kmaglev family's attribute sets (see schema.h). */
#include <linux/kmaglev.h>

#include "schema.h"

#define U8(n)		{ .name = n, .type = KMG_AT_U8 }
#define U16(n)		{ .name = n, .type = KMG_AT_U16 }
#define U32(n)		{ .name = n, .type = KMG_AT_U32 }
#define U64(n)		{ .name = n, .type = KMG_AT_U64 }
#define FLAG(n)		{ .name = n, .type = KMG_AT_FLAG }
#define BIN(n, l)	{ .name = n, .type = KMG_AT_BINARY, .len = l }
#define IP4(n, k)	{ .name = n, .type = KMG_AT_U32, .hint = KMG_HINT_IPV4, .key = k }
#define IP6(n, k)	{ .name = n, .type = KMG_AT_BINARY, .len = 16, .hint = KMG_HINT_IPV6, \
			  .key = k }
#define NEST(n, s, m)	{ .name = n, .type = KMG_AT_NEST, .nested = &s, .multi = m }

static const struct kmg_attr_desc stats_attrs[KMAGLEV_A_STATS_MAX + 1] = {
	[KMAGLEV_A_STATS_PACKETS] = U64("packets"),
	[KMAGLEV_A_STATS_BYTES] = U64("bytes"),
	[KMAGLEV_A_STATS_NEW_FLOWS] = U64("new-flows"),
	[KMAGLEV_A_STATS_CONNS] = U64("conns"),
};

const struct kmg_attr_set kmg_schema_stats = {
	.name = "stats", .max = KMAGLEV_A_STATS_MAX, .attrs = stats_attrs,
};

static const struct kmg_attr_desc backend_attrs[KMAGLEV_A_BACKEND_MAX + 1] = {
	[KMAGLEV_A_BACKEND_ADDR4] = IP4("addr4", true),
	[KMAGLEV_A_BACKEND_ADDR6] = IP6("addr6", true),
	[KMAGLEV_A_BACKEND_WEIGHT] = U32("weight"),
	[KMAGLEV_A_BACKEND_STATE] = U32("state"),
	[KMAGLEV_A_BACKEND_ENCAP] = U32("encap"),
	[KMAGLEV_A_BACKEND_GRE_KEY] = U32("gre-key"),
	[KMAGLEV_A_BACKEND_MAX_CONNS] = U32("max-conns"),
	[KMAGLEV_A_BACKEND_SLOTS] = U32("slots"),
	[KMAGLEV_A_BACKEND_ID] = U32("id"),
	[KMAGLEV_A_BACKEND_STATS] = NEST("stats", kmg_schema_stats, false),
};

const struct kmg_attr_set kmg_schema_backend = {
	.name = "backend", .max = KMAGLEV_A_BACKEND_MAX, .attrs = backend_attrs,
};

static const struct kmg_attr_desc service_attrs[KMAGLEV_A_SERVICE_MAX + 1] = {
	[KMAGLEV_A_SERVICE_ID] = U32("id"),
	[KMAGLEV_A_SERVICE_ADDR4] = IP4("addr4", false),
	[KMAGLEV_A_SERVICE_ADDR6] = IP6("addr6", false),
	[KMAGLEV_A_SERVICE_PROTO] = U8("proto"),
	[KMAGLEV_A_SERVICE_PORT] = U16("port"),
	[KMAGLEV_A_SERVICE_TABLE_SIZE] = U32("table-size"),
	[KMAGLEV_A_SERVICE_HASH] = U32("hash"),
	[KMAGLEV_A_SERVICE_FLAGS] = U32("flags"),
	[KMAGLEV_A_SERVICE_SEED] = BIN("seed", 16),
	[KMAGLEV_A_SERVICE_RAMP_PCT] = U32("ramp-pct"),
	[KMAGLEV_A_SERVICE_RAMP_MS] = U32("ramp-ms"),
	[KMAGLEV_A_SERVICE_WINDOW_MS] = U32("window-ms"),
	[KMAGLEV_A_SERVICE_MAX_CONNS] = U32("max-conns"),
	[KMAGLEV_A_SERVICE_CLIENT_RATE] = U32("client-rate"),
	[KMAGLEV_A_SERVICE_ENCAP_SRC4] = IP4("encap-src4", false),
	[KMAGLEV_A_SERVICE_ENCAP_SRC6] = IP6("encap-src6", false),
	[KMAGLEV_A_SERVICE_GENERATION] = U32("generation"),
	[KMAGLEV_A_SERVICE_BACKENDS] = U32("backends"),
	[KMAGLEV_A_SERVICE_TABLE_BYTES] = U64("table-bytes"),
	[KMAGLEV_A_SERVICE_PREV_GENERATION] = U32("prev-generation"),
	[KMAGLEV_A_SERVICE_RAMP_NOW] = U32("ramp-now"),
	[KMAGLEV_A_SERVICE_WINDOW_LEFT_MS] = U32("window-left-ms"),
	[KMAGLEV_A_SERVICE_BACKEND] = NEST("backend", kmg_schema_backend, true),
	[KMAGLEV_A_SERVICE_REPLACE_BACKENDS] = FLAG("replace-backends"),
};

const struct kmg_attr_set kmg_schema_service = {
	.name = "service", .max = KMAGLEV_A_SERVICE_MAX, .attrs = service_attrs,
};

static const struct kmg_attr_desc table_attrs[KMAGLEV_A_TABLE_MAX + 1] = {
	[KMAGLEV_A_TABLE_SIZE] = U32("size"),
	[KMAGLEV_A_TABLE_GENERATION] = U32("generation"),
	[KMAGLEV_A_TABLE_BYTES] = U64("bytes"),
	[KMAGLEV_A_TABLE_DIGEST] = U64("digest"),
	[KMAGLEV_A_TABLE_MIN_SLOTS] = U32("min-slots"),
	[KMAGLEV_A_TABLE_MAX_SLOTS] = U32("max-slots"),
	[KMAGLEV_A_TABLE_BACKEND] = NEST("backend", kmg_schema_backend, true),
};

const struct kmg_attr_set kmg_schema_table = {
	.name = "table", .max = KMAGLEV_A_TABLE_MAX, .attrs = table_attrs,
};

static const struct kmg_attr_desc config_attrs[KMAGLEV_A_CONFIG_MAX + 1] = {
	[KMAGLEV_A_CONFIG_MAX_SERVICES] = U32("max-services"),
	[KMAGLEV_A_CONFIG_MAX_BACKENDS] = U32("max-backends"),
	[KMAGLEV_A_CONFIG_SERVICES] = U32("services"),
	[KMAGLEV_A_CONFIG_BACKENDS] = U32("backends"),
	[KMAGLEV_A_CONFIG_CONN_MAX] = U32("conn-max"),
	[KMAGLEV_A_CONFIG_CONNS] = U32("conns"),
	[KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN] = U32("timeout-tcp-syn"),
	[KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST] = U32("timeout-tcp-est"),
	[KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN] = U32("timeout-tcp-fin"),
	[KMAGLEV_A_CONFIG_TIMEOUT_UDP] = U32("timeout-udp"),
	[KMAGLEV_A_CONFIG_FLOOD_RATE] = U32("flood-rate"),
	[KMAGLEV_A_CONFIG_PROBE_MARK_MIN] = U32("probe-mark-min"),
	[KMAGLEV_A_CONFIG_PROBE_MARK_MAX] = U32("probe-mark-max"),
};

const struct kmg_attr_set kmg_schema_config = {
	.name = "config", .max = KMAGLEV_A_CONFIG_MAX, .attrs = config_attrs,
};

static const struct kmg_attr_desc global_stats_attrs[KMAGLEV_A_GLOBAL_STATS_MAX + 1] = {
	[KMAGLEV_A_GLOBAL_STATS_RX_PACKETS] = U64("rx-packets"),
	[KMAGLEV_A_GLOBAL_STATS_TX_PACKETS] = U64("tx-packets"),
	[KMAGLEV_A_GLOBAL_STATS_TX_BYTES] = U64("tx-bytes"),
	[KMAGLEV_A_GLOBAL_STATS_VIP_MISS] = U64("vip-miss"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_MALFORMED] = U64("drop-malformed"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_FRAG] = U64("drop-frag"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_NO_BACKEND] = U64("drop-no-backend"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_CLIENT_LIMIT] = U64("drop-client-limit"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_NO_ROUTE] = U64("drop-no-route"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_NOMEM] = U64("drop-nomem"),
	[KMAGLEV_A_GLOBAL_STATS_DROP_TOO_BIG] = U64("drop-too-big"),
	[KMAGLEV_A_GLOBAL_STATS_ICMP_PTB_SENT] = U64("icmp-ptb-sent"),
	[KMAGLEV_A_GLOBAL_STATS_ICMP_FORWARDED] = U64("icmp-forwarded"),
	[KMAGLEV_A_GLOBAL_STATS_ICMP_ECHO] = U64("icmp-echo"),
	[KMAGLEV_A_GLOBAL_STATS_ICMP_DROP] = U64("icmp-drop"),
	[KMAGLEV_A_GLOBAL_STATS_FRAG_REASSEMBLED] = U64("frag-reassembled"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_NEW] = U64("conn-new"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_HIT] = U64("conn-hit"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_EXPIRED] = U64("conn-expired"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_TABLE_FULL] = U64("conn-table-full"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_EVICT_SYN] = U64("conn-evict-syn"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_STATELESS] = U64("conn-stateless"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_FLOOD] = U64("conn-flood"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_SVC_LIMIT] = U64("conn-svc-limit"),
	[KMAGLEV_A_GLOBAL_STATS_CONN_RESCHED] = U64("conn-resched"),
	[KMAGLEV_A_GLOBAL_STATS_BACKEND_LIMIT] = U64("backend-limit"),
	[KMAGLEV_A_GLOBAL_STATS_RAMP_NEW] = U64("ramp-new"),
	[KMAGLEV_A_GLOBAL_STATS_RAMP_PREV] = U64("ramp-prev"),
	[KMAGLEV_A_GLOBAL_STATS_PREV_HIT] = U64("prev-hit"),
	[KMAGLEV_A_GLOBAL_STATS_PROBE] = U64("probe"),
};

const struct kmg_attr_set kmg_schema_global_stats = {
	.name = "global-stats", .max = KMAGLEV_A_GLOBAL_STATS_MAX, .attrs = global_stats_attrs,
};

static const struct kmg_attr_desc kmaglev_attrs[KMAGLEV_A_MAX + 1] = {
	[KMAGLEV_A_SERVICE] = NEST("service", kmg_schema_service, false),
	[KMAGLEV_A_BACKEND] = NEST("backend", kmg_schema_backend, true),
	[KMAGLEV_A_STATS] = NEST("stats", kmg_schema_stats, false),
	[KMAGLEV_A_TABLE] = NEST("table", kmg_schema_table, false),
	[KMAGLEV_A_CONFIG] = NEST("config", kmg_schema_config, false),
	[KMAGLEV_A_GLOBAL] = NEST("global", kmg_schema_global_stats, false),
};

const struct kmg_attr_set kmg_schema_kmaglev = {
	.name = "kmaglev", .max = KMAGLEV_A_MAX, .attrs = kmaglev_attrs,
};
