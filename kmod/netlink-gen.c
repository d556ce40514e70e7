// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/kmaglev.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/kmaglev.h>

/* Integer value ranges */
static const struct netlink_range_validation kmaglev_a_service_table_size_range = {
	.min	= KMAGLEV_TABLE_SIZE_MIN,
	.max	= KMAGLEV_TABLE_SIZE_MAX,
};

static const struct netlink_range_validation kmaglev_a_service_ramp_ms_range = {
	.max	= KMAGLEV_MS_MAX,
};

static const struct netlink_range_validation kmaglev_a_service_window_ms_range = {
	.max	= KMAGLEV_MS_MAX,
};

static const struct netlink_range_validation kmaglev_a_backend_weight_range = {
	.max	= KMAGLEV_WEIGHT_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_timeout_tcp_syn_range = {
	.min	= 1ULL,
	.max	= KMAGLEV_TIMEOUT_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_timeout_tcp_est_range = {
	.min	= 1ULL,
	.max	= KMAGLEV_TIMEOUT_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_timeout_tcp_fin_range = {
	.min	= 1ULL,
	.max	= KMAGLEV_TIMEOUT_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_timeout_udp_range = {
	.min	= 1ULL,
	.max	= KMAGLEV_TIMEOUT_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_quota_rate_range = {
	.max	= KMAGLEV_QUOTA_RATE_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_quota_burst_range = {
	.max	= KMAGLEV_QUOTA_BURST_MAX,
};

static const struct netlink_range_validation kmaglev_a_config_quota_max_range = {
	.min	= 1ULL,
	.max	= KMAGLEV_QUOTA_MAX_MAX,
};

/* Common nested types */
const struct nla_policy kmaglev_backend_nl_policy[KMAGLEV_A_BACKEND_STATS + 1] = {
	[KMAGLEV_A_BACKEND_ADDR4] = { .type = NLA_U32, },
	[KMAGLEV_A_BACKEND_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[KMAGLEV_A_BACKEND_WEIGHT] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_backend_weight_range),
	[KMAGLEV_A_BACKEND_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[KMAGLEV_A_BACKEND_ENCAP] = NLA_POLICY_MAX(NLA_U32, 2),
	[KMAGLEV_A_BACKEND_GRE_KEY] = { .type = NLA_U32, },
	[KMAGLEV_A_BACKEND_MAX_CONNS] = { .type = NLA_U32, },
	[KMAGLEV_A_BACKEND_SLOTS] = { .type = NLA_U32, },
	[KMAGLEV_A_BACKEND_ID] = { .type = NLA_U32, },
	[KMAGLEV_A_BACKEND_STATS] = NLA_POLICY_NESTED(kmaglev_stats_nl_policy),
};

const struct nla_policy kmaglev_config_nl_policy[KMAGLEV_A_CONFIG_SHED_TRANSITIONS + 1] = {
	[KMAGLEV_A_CONFIG_MAX_SERVICES] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_MAX_BACKENDS] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_SERVICES] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_BACKENDS] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_CONN_MAX] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_CONNS] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_timeout_tcp_syn_range),
	[KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_timeout_tcp_est_range),
	[KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_timeout_tcp_fin_range),
	[KMAGLEV_A_CONFIG_TIMEOUT_UDP] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_timeout_udp_range),
	[KMAGLEV_A_CONFIG_FLOOD_RATE] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_PROBE_MARK_MIN] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_PROBE_MARK_MAX] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_HOOK] = NLA_POLICY_MAX(NLA_U32, 1),
	[KMAGLEV_A_CONFIG_INGRESS_DEV] = { .type = NLA_NUL_STRING, .len = KMAGLEV_INGRESS_DEV_LEN_MAX, },
	[KMAGLEV_A_CONFIG_QUOTA_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_quota_rate_range),
	[KMAGLEV_A_CONFIG_QUOTA_BURST] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_quota_burst_range),
	[KMAGLEV_A_CONFIG_QUOTA_PREFIX4] = NLA_POLICY_RANGE(NLA_U32, 1, 32),
	[KMAGLEV_A_CONFIG_QUOTA_PREFIX6] = NLA_POLICY_RANGE(NLA_U32, 1, 128),
	[KMAGLEV_A_CONFIG_QUOTA_SCOPE] = NLA_POLICY_MAX(NLA_U32, 1),
	[KMAGLEV_A_CONFIG_QUOTA_ACTION] = NLA_POLICY_MAX(NLA_U32, 1),
	[KMAGLEV_A_CONFIG_QUOTA_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_config_quota_max_range),
	[KMAGLEV_A_CONFIG_QUOTAS] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_DSCP_MAP] = NLA_POLICY_EXACT_LEN(KMAGLEV_DSCP_MAP_LEN),
	[KMAGLEV_A_CONFIG_SHED_CLASS] = NLA_POLICY_MAX(NLA_U32, 3),
	[KMAGLEV_A_CONFIG_SHED_CONN_FILL] = NLA_POLICY_MAX(NLA_U32, 100),
	[KMAGLEV_A_CONFIG_SHED_NEW_RATE] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_SHED_LOAD_HIGH] = NLA_POLICY_MAX(NLA_U32, 1000),
	[KMAGLEV_A_CONFIG_SHED_LOAD_LOW] = NLA_POLICY_MAX(NLA_U32, 1000),
	[KMAGLEV_A_CONFIG_LOAD] = { .type = NLA_U32, },
	[KMAGLEV_A_CONFIG_SHEDDING] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[KMAGLEV_A_CONFIG_SHED_TRANSITIONS] = { .type = NLA_U32, },
};

const struct nla_policy kmaglev_service_nl_policy[KMAGLEV_A_SERVICE_OVERLOAD + 1] = {
	[KMAGLEV_A_SERVICE_ID] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_ADDR4] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[KMAGLEV_A_SERVICE_PROTO] = { .type = NLA_U8, },
	[KMAGLEV_A_SERVICE_PORT] = { .type = NLA_U16, },
	[KMAGLEV_A_SERVICE_TABLE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_service_table_size_range),
	[KMAGLEV_A_SERVICE_HASH] = NLA_POLICY_MAX(NLA_U32, 2),
	[KMAGLEV_A_SERVICE_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[KMAGLEV_A_SERVICE_SEED] = NLA_POLICY_EXACT_LEN(16),
	[KMAGLEV_A_SERVICE_RAMP_PCT] = NLA_POLICY_MAX(NLA_U32, 100),
	[KMAGLEV_A_SERVICE_RAMP_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_service_ramp_ms_range),
	[KMAGLEV_A_SERVICE_WINDOW_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &kmaglev_a_service_window_ms_range),
	[KMAGLEV_A_SERVICE_MAX_CONNS] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_CLIENT_RATE] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_ENCAP_SRC4] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_ENCAP_SRC6] = NLA_POLICY_EXACT_LEN(16),
	[KMAGLEV_A_SERVICE_GENERATION] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_BACKENDS] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_TABLE_BYTES] = { .type = NLA_U64, },
	[KMAGLEV_A_SERVICE_PREV_GENERATION] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_RAMP_NOW] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_WINDOW_LEFT_MS] = { .type = NLA_U32, },
	[KMAGLEV_A_SERVICE_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
	[KMAGLEV_A_SERVICE_REPLACE_BACKENDS] = { .type = NLA_FLAG, },
	[KMAGLEV_A_SERVICE_OWNER] = { .type = NLA_NUL_STRING, .len = KMAGLEV_OWNER_LEN_MAX, },
	[KMAGLEV_A_SERVICE_CRITICALITY] = NLA_POLICY_MAX(NLA_U32, 3),
	[KMAGLEV_A_SERVICE_OVERLOAD] = NLA_POLICY_MAX(NLA_U32, 1),
};

const struct nla_policy kmaglev_stats_nl_policy[KMAGLEV_A_STATS_PAD + 1] = {
	[KMAGLEV_A_STATS_PACKETS] = { .type = NLA_U64, },
	[KMAGLEV_A_STATS_BYTES] = { .type = NLA_U64, },
	[KMAGLEV_A_STATS_NEW_FLOWS] = { .type = NLA_U64, },
	[KMAGLEV_A_STATS_CONNS] = { .type = NLA_U64, },
};

/* KMAGLEV_CMD_SERVICE_NEW - do */
static const struct nla_policy kmaglev_service_new_nl_policy[KMAGLEV_A_BACKEND + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
	[KMAGLEV_A_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
};

/* KMAGLEV_CMD_SERVICE_DEL - do */
static const struct nla_policy kmaglev_service_del_nl_policy[KMAGLEV_A_SERVICE + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
};

/* KMAGLEV_CMD_SERVICE_SET - do */
static const struct nla_policy kmaglev_service_set_nl_policy[KMAGLEV_A_BACKEND + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
	[KMAGLEV_A_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
};

/* KMAGLEV_CMD_SERVICE_GET - do */
static const struct nla_policy kmaglev_service_get_nl_policy[KMAGLEV_A_SERVICE + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
};

/* KMAGLEV_CMD_BACKEND_NEW - do */
static const struct nla_policy kmaglev_backend_new_nl_policy[KMAGLEV_A_BACKEND + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
	[KMAGLEV_A_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
};

/* KMAGLEV_CMD_BACKEND_DEL - do */
static const struct nla_policy kmaglev_backend_del_nl_policy[KMAGLEV_A_BACKEND + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
	[KMAGLEV_A_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
};

/* KMAGLEV_CMD_BACKEND_SET - do */
static const struct nla_policy kmaglev_backend_set_nl_policy[KMAGLEV_A_BACKEND + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
	[KMAGLEV_A_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
};

/* KMAGLEV_CMD_BACKEND_GET - do */
static const struct nla_policy kmaglev_backend_get_do_nl_policy[KMAGLEV_A_BACKEND + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
	[KMAGLEV_A_BACKEND] = NLA_POLICY_NESTED(kmaglev_backend_nl_policy),
};

/* KMAGLEV_CMD_BACKEND_GET - dump */
static const struct nla_policy kmaglev_backend_get_dump_nl_policy[KMAGLEV_A_SERVICE + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
};

/* KMAGLEV_CMD_STATS_GET - do */
static const struct nla_policy kmaglev_stats_get_nl_policy[KMAGLEV_A_SERVICE + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
};

/* KMAGLEV_CMD_TABLE_GET - do */
static const struct nla_policy kmaglev_table_get_nl_policy[KMAGLEV_A_SERVICE + 1] = {
	[KMAGLEV_A_SERVICE] = NLA_POLICY_NESTED(kmaglev_service_nl_policy),
};

/* KMAGLEV_CMD_CONFIG_SET - do */
static const struct nla_policy kmaglev_config_set_nl_policy[KMAGLEV_A_CONFIG + 1] = {
	[KMAGLEV_A_CONFIG] = NLA_POLICY_NESTED(kmaglev_config_nl_policy),
};

/* Ops table for kmaglev */
const struct genl_split_ops kmaglev_nl_ops[17] = {
	{
		.cmd		= KMAGLEV_CMD_SERVICE_NEW,
		.doit		= kmaglev_nl_service_new_doit,
		.policy		= kmaglev_service_new_nl_policy,
		.maxattr	= KMAGLEV_A_BACKEND,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_SERVICE_DEL,
		.doit		= kmaglev_nl_service_del_doit,
		.policy		= kmaglev_service_del_nl_policy,
		.maxattr	= KMAGLEV_A_SERVICE,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_SERVICE_SET,
		.doit		= kmaglev_nl_service_set_doit,
		.policy		= kmaglev_service_set_nl_policy,
		.maxattr	= KMAGLEV_A_BACKEND,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_SERVICE_GET,
		.doit		= kmaglev_nl_service_get_doit,
		.policy		= kmaglev_service_get_nl_policy,
		.maxattr	= KMAGLEV_A_SERVICE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= KMAGLEV_CMD_SERVICE_GET,
		.dumpit	= kmaglev_nl_service_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= KMAGLEV_CMD_SERVICE_FLUSH,
		.doit	= kmaglev_nl_service_flush_doit,
		.flags	= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_BACKEND_NEW,
		.doit		= kmaglev_nl_backend_new_doit,
		.policy		= kmaglev_backend_new_nl_policy,
		.maxattr	= KMAGLEV_A_BACKEND,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_BACKEND_DEL,
		.doit		= kmaglev_nl_backend_del_doit,
		.policy		= kmaglev_backend_del_nl_policy,
		.maxattr	= KMAGLEV_A_BACKEND,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_BACKEND_SET,
		.doit		= kmaglev_nl_backend_set_doit,
		.policy		= kmaglev_backend_set_nl_policy,
		.maxattr	= KMAGLEV_A_BACKEND,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_BACKEND_GET,
		.doit		= kmaglev_nl_backend_get_doit,
		.policy		= kmaglev_backend_get_do_nl_policy,
		.maxattr	= KMAGLEV_A_BACKEND,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_BACKEND_GET,
		.dumpit		= kmaglev_nl_backend_get_dumpit,
		.policy		= kmaglev_backend_get_dump_nl_policy,
		.maxattr	= KMAGLEV_A_SERVICE,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= KMAGLEV_CMD_STATS_GET,
		.doit		= kmaglev_nl_stats_get_doit,
		.policy		= kmaglev_stats_get_nl_policy,
		.maxattr	= KMAGLEV_A_SERVICE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= KMAGLEV_CMD_STATS_GET,
		.dumpit	= kmaglev_nl_stats_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= KMAGLEV_CMD_TABLE_GET,
		.doit		= kmaglev_nl_table_get_doit,
		.policy		= kmaglev_table_get_nl_policy,
		.maxattr	= KMAGLEV_A_SERVICE,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= KMAGLEV_CMD_CONFIG_GET,
		.doit	= kmaglev_nl_config_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= KMAGLEV_CMD_CONFIG_SET,
		.doit		= kmaglev_nl_config_set_doit,
		.policy		= kmaglev_config_set_nl_policy,
		.maxattr	= KMAGLEV_A_CONFIG,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= KMAGLEV_CMD_QUOTA_GET,
		.start	= kmg_nl_quota_dump_start,
		.dumpit	= kmaglev_nl_quota_get_dumpit,
		.done	= kmg_nl_quota_dump_done,
		.flags	= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DUMP,
	},
};

const struct genl_multicast_group kmaglev_nl_mcgrps[1] = {
	[KMAGLEV_NLGRP_EVENTS] = { "events", },
};
