// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the config file's libcyaml schema. Every value loads as its text
 * (the raw_* structs of config_int.h); the values are parsed afterwards, where their
 * positions are known. The keys of the kernel attributes come from the CLI's field
 * tables (build_schema()), so the file takes exactly what `kmaglev service set` takes.
 */
#include <string.h>
#include <cyaml/cyaml.h>

#include "daemon/config_int.h"

/* The scalar keys of a check and the kinds that take them. */
const struct check_key check_keys[CK_N] = {
	[CK_KIND] = { "kind", ALL_KINDS },
	[CK_NAME] = { "name", ALL_KINDS },
	[CK_VIA] = { "via", ALL_KINDS & ~KB(EXEC) },
	[CK_PORT] = { "port", ALL_KINDS },
	[CK_INTERVAL] = { "interval", ALL_KINDS },
	[CK_TIMEOUT] = { "timeout", ALL_KINDS },
	[CK_FAST_INTERVAL] = { "fast-interval", ALL_KINDS },
	[CK_DOWN_INTERVAL] = { "down-interval", ALL_KINDS },
	[CK_JITTER] = { "jitter", ALL_KINDS },
	[CK_RISE] = { "rise", ALL_KINDS },
	[CK_FALL] = { "fall", ALL_KINDS },
	[CK_HOST] = { "host", HTTP_KINDS },
	[CK_PATH] = { "path", HTTP_KINDS },
	[CK_BODY] = { "body", HTTP_KINDS },
	[CK_VERIFY_TLS] = { "verify-tls", KB(HTTPS) },
	[CK_REUSE] = { "reuse", HTTP_KINDS },
	[CK_CA] = { "ca", KB(HTTPS) },
	[CK_SEND] = { "send", KB(UDP) },
	[CK_EXPECT] = { "expect", KB(UDP) },
	[CK_QUERY] = { "query", KB(DNS) },
	[CK_QTYPE] = { "qtype", KB(DNS) },
	[CK_RCODE] = { "rcode", KB(DNS) },
};

/* --- the libcyaml schema ------------------------------------------------------------- */

#define OPT		CYAML_FLAG_OPTIONAL
#define STR(k, f, S, m)	CYAML_FIELD_STRING_PTR(k, f, S, m, 0, CYAML_UNLIMITED)
#define SEQ(k, S, m, e)	CYAML_FIELD_SEQUENCE(k, CYAML_FLAG_POINTER | OPT, S, m, e, 0, \
					     CYAML_UNLIMITED)

static const cyaml_schema_value_t str_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};

/* Filled by build_schema(): the kernel attributes' keys come from the field tables. */
static cyaml_schema_field_t check_fields[CK_N + 3];
static cyaml_schema_field_t backend_fields[KMAGLEV_A_BACKEND_MAX + 4];
static cyaml_schema_field_t service_fields[KMAGLEV_A_SERVICE_MAX + 12];
static cyaml_schema_field_t kconfig_fields[KMAGLEV_A_CONFIG_MAX + 2];

static const cyaml_schema_value_t check_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_check, check_fields),
};

static const cyaml_schema_value_t backend_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_backend, backend_fields),
};

static const cyaml_schema_value_t service_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_service, service_fields),
};

static const cyaml_schema_field_t util_fields[] = {
	STR("target", OPT, struct raw_util, target),
	STR("min-weight", OPT, struct raw_util, min_weight),
	STR("shed-above", OPT, struct raw_util, shed_above),
	STR("shed-hold", OPT, struct raw_util, shed_hold),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t quorum_fields[] = {
	STR("min", OPT, struct raw_quorum, min),
	STR("fraction", OPT, struct raw_quorum, fraction),
	STR("action", OPT, struct raw_quorum, action),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t svc_bgp_fields[] = {
	STR("announce", OPT, struct raw_svc_bgp, announce),
	SEQ("communities", struct raw_svc_bgp, communities, &str_entry),
	SEQ("large-communities", struct raw_svc_bgp, large_communities, &str_entry),
	STR("med", OPT, struct raw_svc_bgp, med),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t daemon_fields[] = {
	STR("owner", OPT, struct raw_daemon, owner),
	STR("enforce", OPT, struct raw_daemon, enforce),
	STR("drain-time", OPT, struct raw_daemon, drain_time),
	STR("metrics", OPT, struct raw_daemon, metrics),
	STR("socket", OPT, struct raw_daemon, socket),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t bfd_fields[] = {
	STR("min-tx", OPT, struct raw_bfd, min_tx),
	STR("min-rx", OPT, struct raw_bfd, min_rx),
	STR("multiplier", OPT, struct raw_bfd, multiplier),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t neighbor_fields[] = {
	STR("address", 0, struct raw_neighbor, address),
	STR("asn", 0, struct raw_neighbor, asn),
	STR("port", OPT, struct raw_neighbor, port),
	STR("hold-time", OPT, struct raw_neighbor, hold_time),
	STR("password", OPT, struct raw_neighbor, password),
	STR("next-hop", OPT, struct raw_neighbor, next_hop),
	STR("passive", OPT, struct raw_neighbor, passive),
	STR("multihop", OPT, struct raw_neighbor, multihop),
	STR("ttl-security", OPT, struct raw_neighbor, ttl_security),
	STR("extended-next-hop", OPT, struct raw_neighbor, ext_next_hop),
	CYAML_FIELD_MAPPING_PTR("bfd", OPT, struct raw_neighbor, bfd, bfd_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t neighbor_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct raw_neighbor, neighbor_fields),
};

static const cyaml_schema_field_t routes_fields[] = {
	STR("table", OPT, struct raw_routes, table),
	STR("protocol", OPT, struct raw_routes, protocol),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t bgp_fields[] = {
	STR("mode", OPT, struct raw_bgp, mode),
	STR("asn", OPT, struct raw_bgp, asn),
	STR("router-id", OPT, struct raw_bgp, router_id),
	STR("listen", OPT, struct raw_bgp, listen),
	STR("listen-port", OPT, struct raw_bgp, listen_port),
	SEQ("neighbors", struct raw_bgp, neighbors, &neighbor_entry),
	SEQ("communities", struct raw_bgp, communities, &str_entry),
	SEQ("large-communities", struct raw_bgp, large_communities, &str_entry),
	STR("med", OPT, struct raw_bgp, med),
	STR("local-pref", OPT, struct raw_bgp, local_pref),
	STR("graceful-restart-time", OPT, struct raw_bgp, graceful_restart_time),
	STR("shutdown-time", OPT, struct raw_bgp, shutdown_time),
	CYAML_FIELD_MAPPING_PTR("routes", OPT, struct raw_bgp, routes, routes_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t root_fields[] = {
	CYAML_FIELD_MAPPING_PTR("config", OPT, struct raw_root, config, kconfig_fields),
	STR("seed", OPT, struct raw_root, seed),
	CYAML_FIELD_MAPPING_PTR("daemon", OPT, struct raw_root, daemon, daemon_fields),
	SEQ("services", struct raw_root, services, &service_entry),
	CYAML_FIELD_MAPPING_PTR("bgp", OPT, struct raw_root, bgp, bgp_fields),
	CYAML_FIELD_END
};

const cyaml_schema_value_t root_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct raw_root, root_fields),
};

static void str_field(cyaml_schema_field_t *f, const char *key, unsigned int flags, size_t off)
{
	memset(f, 0, sizeof(*f));
	f->key = key;
	f->data_offset = off;
	f->value.type = CYAML_STRING;
	f->value.flags = (enum cyaml_flag)(CYAML_FLAG_POINTER | flags);
	f->value.data_size = sizeof(char *);
	f->value.string.min = 0;
	f->value.string.max = CYAML_UNLIMITED;
}

/*
 * Optional string fields for the settable attributes of @obj, at @off + type * pointer. Not
 * flags (a list, by hand) nor what the daemon sets itself (KMG_FF_STATE); a dscp-map, a
 * mapping or a text, is read from the tree (p_fields()): libcyaml skips it, whatever its shape.
 */
static unsigned int attr_fields(cyaml_schema_field_t *f, const struct kmg_object *obj,
				size_t off)
{
	unsigned int i, n = 0;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *fd = &obj->fields[i];

		if (fd->flags & (KMG_FF_RO | KMG_FF_KEY | KMG_FF_STATE) ||
		    fd->fmt == KMG_FMT_FLAGS)
			continue;
		if (fd->fmt == KMG_FMT_DSCP_MAP) {
			f[n++] = (cyaml_schema_field_t)CYAML_FIELD_IGNORE(kmg_field_key(obj, fd),
									  OPT);
			continue;
		}
		str_field(&f[n++], kmg_field_key(obj, fd), OPT, off + fd->attr * sizeof(char *));
	}
	return n;
}

void build_schema(void)
{
	static bool built;
	unsigned int i, n;

	if (built)
		return;
	for (i = 0; i < CK_N; i++)
		str_field(&check_fields[i], check_keys[i].key, i == CK_KIND ? 0 : OPT,
			  offsetof(struct raw_check, v) + i * sizeof(char *));
	check_fields[CK_N] = (cyaml_schema_field_t)SEQ("status", struct raw_check, status,
						       &str_entry);
	check_fields[CK_N + 1] = (cyaml_schema_field_t)SEQ("command", struct raw_check, command,
							   &str_entry);

	n = 0;
	backend_fields[n++] = (cyaml_schema_field_t)STR("address", 0, struct raw_backend,
							 address);
	n += attr_fields(&backend_fields[n], &kmg_obj_backend, offsetof(struct raw_backend, attr));
	backend_fields[n++] = (cyaml_schema_field_t)SEQ("checks", struct raw_backend, checks,
							 &check_entry);

	n = 0;
	service_fields[n++] = (cyaml_schema_field_t)STR("vip", 0, struct raw_service, vip);
	service_fields[n++] = (cyaml_schema_field_t)STR("port", 0, struct raw_service, port);
	service_fields[n++] = (cyaml_schema_field_t)STR("proto", OPT, struct raw_service, proto);
	n += attr_fields(&service_fields[n], &kmg_obj_service, offsetof(struct raw_service, attr));
	service_fields[n++] = (cyaml_schema_field_t)SEQ("flags", struct raw_service, flags,
							 &str_entry);
	service_fields[n++] = (cyaml_schema_field_t)CYAML_FIELD_MAPPING_PTR(
		"quorum", OPT, struct raw_service, quorum, quorum_fields);
	service_fields[n++] = (cyaml_schema_field_t)CYAML_FIELD_MAPPING_PTR(
		"utilization", OPT, struct raw_service, utilization, util_fields);
	service_fields[n++] = (cyaml_schema_field_t)CYAML_FIELD_MAPPING_PTR(
		"bgp", OPT, struct raw_service, bgp, svc_bgp_fields);
	service_fields[n++] = (cyaml_schema_field_t)SEQ("checks", struct raw_service, checks,
							 &check_entry);
	service_fields[n++] = (cyaml_schema_field_t)SEQ("backends", struct raw_service, backends,
							 &backend_entry);

	attr_fields(kconfig_fields, &kmg_obj_config, offsetof(struct raw_kconfig, attr));
	built = true;
}
