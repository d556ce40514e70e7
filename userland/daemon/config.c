// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: loading and validating the configuration file (see config.h).
 *
 * Three passes over one text. libyaml's event parser builds a tree of positions
 * (config_tree.c) and the tree's shape is checked against the libcyaml schema: unknown keys,
 * a list where a value belongs, missing required keys, a key given twice; every one is
 * reported. Then libcyaml loads the text into "raw" structs whose values are all strings
 * (a libcyaml failure is still reported, from its log). Last, each value is parsed and
 * checked with the position of its key, defaults are filled in, and cross-field rules run.
 * The kernel attributes' keys, ranges and enum names come from the CLI's field tables and
 * the generated schema, so the file takes exactly what `kmaglev service set` takes.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <cyaml/cyaml.h>

#include "lib/args.h"
#include "bgp/routes.h"
#include "maglev.h"
#include "lib/schema.h"
#include "daemon/config_int.h"

/* --- what libcyaml loads: every value as its text ------------------------------------ */

enum {
	CK_KIND, CK_NAME, CK_VIA, CK_PORT, CK_INTERVAL, CK_TIMEOUT, CK_FAST_INTERVAL,
	CK_DOWN_INTERVAL, CK_JITTER, CK_RISE, CK_FALL, CK_HOST, CK_PATH, CK_BODY, CK_VERIFY_TLS,
	CK_SEND, CK_EXPECT, CK_QUERY, CK_QTYPE, CK_RCODE, CK_N
};

#define KB(k)		(1U << KMD_CHECK_##k)
#define ALL_KINDS	((1U << KMD_CHECK_KINDS) - 1)
#define HTTP_KINDS	(KB(HTTP) | KB(HTTPS))

/* The scalar keys of a check and the kinds that take them. */
static const struct {
	const char *key;
	unsigned int kinds;
} check_keys[CK_N] = {
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
	[CK_SEND] = { "send", KB(UDP) },
	[CK_EXPECT] = { "expect", KB(UDP) },
	[CK_QUERY] = { "query", KB(DNS) },
	[CK_QTYPE] = { "qtype", KB(DNS) },
	[CK_RCODE] = { "rcode", KB(DNS) },
};

struct raw_check {
	char *v[CK_N];
	char **status;
	unsigned int status_count;
	char **command;
	unsigned int command_count;
};

struct raw_backend {
	char *address;
	char *attr[KMAGLEV_A_BACKEND_MAX + 1];	/* by attribute type */
	struct raw_check *checks;
	unsigned int checks_count;
};

struct raw_quorum {
	char *min, *fraction, *action;
};

struct raw_svc_bgp {
	char *announce, *med;
	char **communities;
	unsigned int communities_count;
	char **large_communities;
	unsigned int large_communities_count;
};

struct raw_service {
	char *vip, *port, *proto;
	struct raw_svc_bgp *bgp;
	char *attr[KMAGLEV_A_SERVICE_MAX + 1];	/* by attribute type; not flags */
	char **flags;
	unsigned int flags_count;
	struct raw_quorum *quorum;
	struct raw_check *checks;
	unsigned int checks_count;
	struct raw_backend *backends;
	unsigned int backends_count;
};

struct raw_kconfig {
	char *attr[KMAGLEV_A_CONFIG_MAX + 1];
};

struct raw_daemon {
	char *owner, *enforce, *drain_time, *metrics, *socket;
};

struct raw_neighbor {
	char *address, *asn, *port, *hold_time, *password, *next_hop, *passive, *multihop;
};

struct raw_routes {
	char *table, *protocol;
};

struct raw_bgp {
	char *mode, *asn, *router_id, *listen, *listen_port, *med, *local_pref;
	char *graceful_restart_time, *shutdown_time;
	struct raw_neighbor *neighbors;
	unsigned int neighbors_count;
	char **communities;
	unsigned int communities_count;
	char **large_communities;
	unsigned int large_communities_count;
	struct raw_routes *routes;
};

struct raw_root {
	struct raw_kconfig *config;
	char *seed;
	struct raw_daemon *daemon;
	struct raw_service *services;
	unsigned int services_count;
	struct raw_bgp *bgp;
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
static cyaml_schema_field_t service_fields[KMAGLEV_A_SERVICE_MAX + 10];
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

static const cyaml_schema_field_t neighbor_fields[] = {
	STR("address", 0, struct raw_neighbor, address),
	STR("asn", 0, struct raw_neighbor, asn),
	STR("port", OPT, struct raw_neighbor, port),
	STR("hold-time", OPT, struct raw_neighbor, hold_time),
	STR("password", OPT, struct raw_neighbor, password),
	STR("next-hop", OPT, struct raw_neighbor, next_hop),
	STR("passive", OPT, struct raw_neighbor, passive),
	STR("multihop", OPT, struct raw_neighbor, multihop),
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

static const cyaml_schema_value_t root_schema = {
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

/* Optional string fields for the settable attributes of @obj, at @off + type * pointer. */
static unsigned int attr_fields(cyaml_schema_field_t *f, const struct kmg_object *obj,
				size_t off)
{
	unsigned int i, n = 0;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *fd = &obj->fields[i];

		if (fd->flags & (KMG_FF_RO | KMG_FF_KEY) || fd->fmt == KMG_FMT_FLAGS)
			continue;
		str_field(&f[n++], kmg_field_key(obj, fd), OPT, off + fd->attr * sizeof(char *));
	}
	return n;
}

static void build_schema(void)
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
		"bgp", OPT, struct raw_service, bgp, svc_bgp_fields);
	service_fields[n++] = (cyaml_schema_field_t)SEQ("checks", struct raw_service, checks,
							 &check_entry);
	service_fields[n++] = (cyaml_schema_field_t)SEQ("backends", struct raw_service, backends,
							 &backend_entry);

	attr_fields(kconfig_fields, &kmg_obj_config, offsetof(struct raw_kconfig, attr));
	built = true;
}

/* --- errors -------------------------------------------------------------------------- */

struct ctx {
	const char *name;		/* the file, in messages */
	FILE *err;
	unsigned int nerr;
	bool nomem;
	char path[1024];		/* "services[0].backends[2]" */
	size_t plen;
	char log[1024];			/* libcyaml's error, for messages */
	size_t loglen;
};

static size_t path_push(struct ctx *c, const char *key, int idx)
{
	size_t mark = c->plen;
	int n;

	if (key)
		n = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "%s%s",
			     c->plen ? "." : "", key);
	else
		n = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "[%d]", idx);
	if (n > 0 && (size_t)n < sizeof(c->path) - c->plen)
		c->plen += n;
	c->path[c->plen] = '\0';
	return mark;
}

static void path_pop(struct ctx *c, size_t mark)
{
	c->plen = mark;
	c->path[mark] = '\0';
}

/* "FILE:LINE:COL: PATH[.KEY]: MESSAGE" */
static void __attribute__((format(printf, 4, 5)))
err_at(struct ctx *c, struct kmd_loc at, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "%s:%u:%u: ", c->name, at.line, at.col);
	if (c->plen || key)
		fprintf(c->err, "%s%s%s: ", c->path, c->plen && key ? "." : "", key ? key : "");
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	c->nerr++;
}

static void *nomem(struct ctx *c, void *p)
{
	if (!p)
		c->nomem = true;
	return p;
}

static char *xstrdup(struct ctx *c, const char *s)
{
	return nomem(c, strdup(s));
}

/* --- the shape of the file, against the schema ----------------------------------------- */

static const char *what(const struct kmd_ynode *n)
{
	switch (n->type) {
	case KMD_YMAP:
		return "a mapping";
	case KMD_YSEQ:
		return "a list";
	default:
		return "a single value";
	}
}

static void shape(struct ctx *c, const cyaml_schema_value_t *v, const struct kmd_ynode *n,
		  struct kmd_loc at)
{
	const cyaml_schema_field_t *f;
	unsigned int i, j;
	size_t mark;

	switch (v->type) {
	case CYAML_MAPPING:
		if (n->type != KMD_YMAP) {
			err_at(c, at, NULL, "expected a mapping (KEY: VALUE), not %s", what(n));
			return;
		}
		for (i = 0; i < n->n; i++) {
			const char *key = n->keys[i]->str;

			for (j = 0; j < i && strcmp(n->keys[j]->str, key); j++)
				;
			if (j < i) {
				err_at(c, n->keys[i]->loc, key, "given twice (first on line %u)",
				       n->keys[j]->loc.line);
				continue;
			}
			for (f = v->mapping.fields; f->key && strcmp(f->key, key); f++)
				;
			if (!f->key) {
				err_at(c, n->keys[i]->loc, key, "unknown key");
				continue;
			}
			mark = path_push(c, key, 0);
			shape(c, &f->value, n->kids[i], n->keys[i]->loc);
			path_pop(c, mark);
		}
		for (f = v->mapping.fields; f->key; f++)
			if (!(f->value.flags & CYAML_FLAG_OPTIONAL) &&
			    !kmd_ynode_get(n, f->key, NULL))
				err_at(c, n->loc, NULL, "missing required key \"%s\"", f->key);
		return;
	case CYAML_SEQUENCE:
		if (n->type != KMD_YSEQ) {
			err_at(c, at, NULL, "expected a list, not %s", what(n));
			return;
		}
		for (i = 0; i < n->n; i++) {
			mark = path_push(c, NULL, i);
			shape(c, v->sequence.entry, n->kids[i], n->kids[i]->loc);
			path_pop(c, mark);
		}
		return;
	default:
		if (n->type != KMD_YSCALAR)
			err_at(c, at, NULL, "expected a single value, not %s", what(n));
		return;
	}
}

/* --- libcyaml's own errors, in the same form ------------------------------------------- */

static void cyaml_log_cb(cyaml_log_t level, void *vctx, const char *fmt, va_list args)
{
	struct ctx *c = vctx;
	int n;

	if (level < CYAML_LOG_ERROR || c->loglen >= sizeof(c->log) - 1)
		return;
	n = vsnprintf(c->log + c->loglen, sizeof(c->log) - c->loglen, fmt, args);
	if (n > 0)
		c->loglen += (size_t)n < sizeof(c->log) - c->loglen ? (size_t)n :
			     sizeof(c->log) - c->loglen - 1;
}

/*
 * libcyaml logs "Load: MESSAGE" and a backtrace, innermost first:
 *   "  in mapping field 'weight' (line: 12, column: 9)", "  in sequence entry '2' (...)".
 */
static void cyaml_report(struct ctx *c, cyaml_err_t e)
{
	char msg[256] = "", *line, *save, *logc;
	struct kmd_loc at = { 1, 1 };
	char parts[16][72];
	unsigned int np = 0, i;
	bool have_at = false;

	logc = strdup(c->log);
	for (line = logc ? strtok_r(logc, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		size_t l, col;

		if (sscanf(line, " in mapping field '%63[^']' (line: %zu, column: %zu)", name, &l,
			   &col) == 3 ||
		    sscanf(line, " in sequence entry '%63[^']' (line: %zu, column: %zu)", name, &l,
			   &col) == 3) {
			if (!have_at) {
				at.line = l;
				at.col = col;
				have_at = true;
			}
			/* libcyaml counts sequence entries from 1 */
			if (np < KMG_ARRAY_SIZE(parts) && strstr(line, "in sequence"))
				snprintf(parts[np++], sizeof(parts[0]), "[%ld]",
					 strtol(name, NULL, 10) - 1);
			else if (np < KMG_ARRAY_SIZE(parts))
				snprintf(parts[np++], sizeof(parts[0]), "%s", name);
		} else if (!strncmp(line, "Load: ", 6) && strcmp(line, "Load: Backtrace:") &&
			   !msg[0]) {
			snprintf(msg, sizeof(msg), "%s", line + 6);
		}
	}
	free(logc);
	for (i = np; i-- > 0;) {
		if (parts[i][0] != '[' && c->plen)
			snprintf(c->path + c->plen, sizeof(c->path) - c->plen, ".");
		c->plen = strlen(c->path);
		snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "%s", parts[i]);
		c->plen = strlen(c->path);
	}
	err_at(c, at, NULL, "%s", msg[0] ? msg : cyaml_strerror(e));
	path_pop(c, 0);
}

void kmd_config_cyaml_error(const char *name, const char *log, FILE *err)
{
	struct ctx c = { .name = name, .err = err };

	snprintf(c.log, sizeof(c.log), "%s", log);
	c.loglen = strlen(c.log);
	cyaml_report(&c, CYAML_ERR_INVALID_VALUE);
}

/* --- values -------------------------------------------------------------------------- */

/* A scalar of a mapping: its text (as libcyaml loaded it), its key, and where the key is. */
struct val {
	const char *s;
	const char *key;
	struct kmd_loc at;
};

static bool val(const struct kmd_ynode *map, const char *key, const char *s, struct val *v)
{
	v->s = s;
	v->key = key;
	if (!kmd_ynode_get(map, key, &v->at))
		v->at = map ? map->loc : (struct kmd_loc){ 1, 1 };
	return s != NULL;
}

static bool p_uint(struct ctx *c, const struct val *v, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	uint64_t x;
	int ret = kmg_parse_u64(v->s, &x);

	if (!v->s[0]) {
		err_at(c, v->at, v->key, "needs a value");
		return false;
	}
	if (ret == -EINVAL) {
		err_at(c, v->at, v->key, "\"%s\" is not a number", v->s);
		return false;
	}
	if (ret || x < min || x > max) {
		err_at(c, v->at, v->key, "%s is out of range %llu..%llu", v->s,
		       (unsigned long long)min, (unsigned long long)max);
		return false;
	}
	*out = x;
	return true;
}

static bool p_u32(struct ctx *c, const struct val *v, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t x;

	if (!p_uint(c, v, min, max, &x))
		return false;
	*out = x;
	return true;
}

static const struct kmg_unit ms_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
};

static const struct kmg_unit sec_units[] = {
	{ "s", 1 }, { "m", 60 }, { "h", 3600 },
};

/* A duration in milliseconds (@sec false) or in seconds, within @min..@max of that unit. */
static bool p_time(struct ctx *c, const struct val *v, bool sec, uint64_t min, uint64_t max,
		   uint32_t *out)
{
	char lo[24], hi[24];
	int ret;

	ret = sec ? kmg_parse_scaled(v->s, sec_units, KMG_ARRAY_SIZE(sec_units), min, max, out) :
		    kmg_parse_scaled(v->s, ms_units, KMG_ARRAY_SIZE(ms_units), min, max, out);
	if (!ret)
		return true;
	kmg_fmt_duration(sec ? min * 1000 : min, lo, sizeof(lo));
	kmg_fmt_duration(sec ? max * 1000 : max, hi, sizeof(hi));
	if (ret == -ERANGE)
		err_at(c, v->at, v->key, "%s is out of range %s..%s", v->s, lo, hi);
	else if (ret == -EDOM && sec)
		err_at(c, v->at, v->key, "%s needs a unit: %ss, %sm or %sh", v->s, v->s, v->s,
		       v->s);
	else if (ret == -EDOM)
		err_at(c, v->at, v->key, "%s needs a unit: %sms, %ss, %sm or %sh", v->s, v->s,
		       v->s, v->s, v->s);
	else
		err_at(c, v->at, v->key, "\"%s\" is not a duration (like %s30s, 5m or 1h)", v->s,
		       sec ? "" : "1500ms, ");
	return false;
}

static bool p_ms(struct ctx *c, const struct val *v, uint32_t min, uint32_t max, uint32_t *out)
{
	return p_time(c, v, false, min, max, out);
}

/* "a, b or c" */
static const char *choices(const char *const *names, unsigned int n, char *buf, size_t len)
{
	size_t k = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && k < len; i++)
		k += snprintf(buf + k, len - k, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "",
			      names[i]);
	return buf;
}

static bool p_enum(struct ctx *c, const struct val *v, const char *const *names, unsigned int n,
		   uint32_t *out)
{
	char buf[256];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v->s, names[i])) {
			*out = i;
			return true;
		}
	err_at(c, v->at, v->key, "\"%s\" is not one of %s", v->s, choices(names, n, buf,
									   sizeof(buf)));
	return false;
}

static bool p_bool(struct ctx *c, const struct val *v, bool *out)
{
	if (!strcmp(v->s, "true") || !strcmp(v->s, "false")) {
		*out = v->s[0] == 't';
		return true;
	}
	err_at(c, v->at, v->key, "\"%s\" is not true or false", v->s);
	return false;
}

#define ADDR_UNSPEC	1	/* 0.0.0.0 and :: are fine */
#define ADDR_V4		2	/* IPv4 only */
#define ADDR_V6		4	/* IPv6 only */

static bool p_addr(struct ctx *c, const struct val *v, unsigned int flags, struct kmg_addr *a)
{
	const char *why = NULL;

	if (kmg_parse_addr(v->s, a)) {
		err_at(c, v->at, v->key, "\"%s\" is not an IPv4 or IPv6 address", v->s);
		return false;
	}
	if (flags & ADDR_V4 && a->family != AF_INET)
		why = "not an IPv4 address";
	else if (flags & ADDR_V6 && a->family != AF_INET6)
		why = "not an IPv6 address";
	else if (kmg_addr_is_v4mapped(a))
		why = "an IPv4-mapped IPv6 address; write the IPv4 form";
	else if (kmg_addr_is_unspec(a))
		why = flags & ADDR_UNSPEC ? NULL : "the unspecified address";
	else if (kmg_addr_is_multicast(a))
		why = "a multicast address";
	else if (a->family == AF_INET && !(ntohl(a->v4.s_addr) >> 24))
		why = "in 0.0.0.0/8";
	else if (a->family == AF_INET && a->v4.s_addr == INADDR_BROADCAST)
		why = "the broadcast address";
	if (!why)
		return true;
	err_at(c, v->at, v->key, "%s is %s", v->s, why);
	return false;
}

/* Text of @min..@max bytes without control characters (or, with @nospace, spaces). */
static bool p_text(struct ctx *c, const struct val *v, size_t min, size_t max, bool nospace,
		   char **out)
{
	size_t len = strlen(v->s), i;

	if (len < min || len > max) {
		if (!len)
			err_at(c, v->at, v->key, "must not be empty");
		else
			err_at(c, v->at, v->key, "too long: %zu bytes, at most %zu", len, max);
		return false;
	}
	for (i = 0; i < len; i++)
		if (iscntrl((unsigned char)v->s[i]) || (nospace && v->s[i] == ' ')) {
			err_at(c, v->at, v->key, "\"%s\" contains a %s", v->s,
			       v->s[i] == ' ' ? "space" : "control character");
			return false;
		}
	*out = xstrdup(c, v->s);
	return *out != NULL;
}

static void store_uint(const struct kmg_attr_desc *d, void *p, uint64_t x)
{
	switch (d->type) {
	case KMG_AT_U8:
		*(uint8_t *)p = x;
		break;
	case KMG_AT_U16:
		*(uint16_t *)p = x;
		break;
	case KMG_AT_U64:
		*(uint64_t *)p = x;
		break;
	default:
		*(uint32_t *)p = x;
		break;
	}
}

/* The value of kernel attribute @f of @obj into @s, present bit set. */
static bool p_field(struct ctx *c, const struct kmg_object *obj, const struct kmg_field *f,
		    const struct val *v, void *s)
{
	const struct kmg_attr_desc *d = kmg_field_desc(obj, f);
	uint64_t max = d->max > UINT32_MAX ? UINT32_MAX : d->max, x;
	void *p = (char *)s + f->off;
	uint32_t u = 0, lo, hi;
	struct kmg_addr a;

	switch (f->fmt) {
	case KMG_FMT_PRIME:
		if (!p_uint(c, v, d->min, max, &x))
			return false;
		if (!kmg_is_prime(x)) {
			for (lo = x - 1; !kmg_is_prime(lo); lo--)
				;
			for (hi = x + 1; !kmg_is_prime(hi); hi++)
				;
			err_at(c, v->at, v->key, "%s is not a prime (nearest primes: %u and %u)",
			       v->s, lo < d->min ? hi : lo, hi > max ? lo : hi);
			return false;
		}
		store_uint(d, p, x);
		break;
	case KMG_FMT_ENUM:
		if (!p_enum(c, v, d->enm->names, d->enm->n, &u))
			return false;
		store_uint(d, p, u);
		break;
	case KMG_FMT_MS:
	case KMG_FMT_SEC:
		if (!p_time(c, v, f->fmt == KMG_FMT_SEC, d->min, max, &u))
			return false;
		store_uint(d, p, u);
		break;
	case KMG_FMT_SEED:
		if (kmg_parse_seed(v->s, p)) {
			err_at(c, v->at, v->key, "\"%s\" is not 32 hexadecimal digits", v->s);
			return false;
		}
		break;
	case KMG_FMT_STRING:
		if (strlen(v->s) > d->max) {
			err_at(c, v->at, v->key, "longer than %llu bytes",
			       (unsigned long long)d->max);
			return false;
		}
		strcpy(p, v->s);
		break;
	case KMG_FMT_ADDR:
		if (!p_addr(c, v, ADDR_UNSPEC | (d->hint == KMG_HINT_IPV4 ? ADDR_V4 : ADDR_V6),
			    &a))
			return false;
		memcpy(p, a.family == AF_INET ? (void *)&a.v4 : (void *)&a.v6,
		       a.family == AF_INET ? 4 : 16);
		break;
	default:
		if (!p_uint(c, v, d->min, max, &x))
			return false;
		store_uint(d, p, x);
		break;
	}
	*(uint64_t *)s |= KMG_BIT(f->attr);
	return true;
}

/* Every settable attribute of @obj given in @raw (indexed by type) into @s. */
static void p_fields(struct ctx *c, const struct kmg_object *obj, char *const *raw,
		     const struct kmd_ynode *map, void *s)
{
	unsigned int i;
	struct val v;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];

		if (f->flags & (KMG_FF_RO | KMG_FF_KEY) || f->fmt == KMG_FMT_FLAGS)
			continue;
		if (val(map, kmg_field_key(obj, f), raw[f->attr], &v))
			p_field(c, obj, f, &v, s);
	}
}

/* Every settable attribute of @obj marked present (their defaults are already in @s). */
static void set_all(const struct kmg_object *obj, void *s)
{
	unsigned int i;

	for (i = 0; i < obj->n; i++)
		if (!(obj->fields[i].flags & (KMG_FF_RO | KMG_FF_KEY)))
			*(uint64_t *)s |= KMG_BIT(obj->fields[i].attr);
}

void kmd_service_defaults(struct kmg_service *s, const uint8_t seed[KMG_SEED_BYTES])
{
	s->table_size = KMAGLEV_TABLE_SIZE_DEFAULT;
	s->hash = KMAGLEV_HASH_FIVE_TUPLE;
	s->flags = 0;
	memcpy(s->seed, seed, KMG_SEED_BYTES);
	s->ramp_pct = KMD_RAMP_DEFAULT;
	s->ramp_ms = 0;
	s->window_ms = KMD_WINDOW_DEFAULT_MS;
	s->max_conns = 0;
	s->client_rate = 0;
	memset(&s->encap_src4, 0, sizeof(s->encap_src4));
	memset(&s->encap_src6, 0, sizeof(s->encap_src6));
	set_all(&kmg_obj_service, s);
}

void kmd_backend_defaults(struct kmg_backend *b)
{
	b->weight = KMD_WEIGHT_DEFAULT;
	b->state = KMAGLEV_BACKEND_STATE_UP;
	b->encap = KMAGLEV_ENCAP_IPIP;
	b->gre_key = 0;
	b->max_conns = 0;
	set_all(&kmg_obj_backend, b);
}

/* --- checks -------------------------------------------------------------------------- */

static const char *const kind_names[KMD_CHECK_KINDS] = {
	[KMD_CHECK_TCP] = "tcp", [KMD_CHECK_HTTP] = "http", [KMD_CHECK_HTTPS] = "https",
	[KMD_CHECK_UDP] = "udp", [KMD_CHECK_DNS] = "dns", [KMD_CHECK_EXEC] = "exec",
	[KMD_CHECK_AGENT] = "agent",
};

const char *kmd_check_kind_name(enum kmd_check_kind k)
{
	return (unsigned int)k < KMD_CHECK_KINDS ? kind_names[k] : "?";
}

static const char *const via_names[] = { "tunnel", "direct" };

static const struct {
	const char *name;
	uint16_t v;
} qtypes[] = {
	{ "A", 1 }, { "NS", 2 }, { "CNAME", 5 }, { "SOA", 6 }, { "PTR", 12 }, { "MX", 15 },
	{ "TXT", 16 }, { "AAAA", 28 }, { "SRV", 33 }, { "ANY", 255 },
};

static const char *const rcode_names[] = {
	"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
};

/* "http and https" */
static const char *kinds_text(unsigned int kinds, char *buf, size_t len)
{
	const char *names[KMD_CHECK_KINDS];
	unsigned int i, n = 0;

	for (i = 0; i < KMD_CHECK_KINDS; i++)
		if (kinds & (1U << i))
			names[n++] = kind_names[i];
	choices(names, n, buf, len);
	return buf;
}

static void check_free(struct kmd_check *k)
{
	char **a;

	free(k->name);
	free(k->host);
	free(k->path);
	free(k->status);
	free(k->body);
	free(k->send);
	free(k->expect);
	free(k->query);
	for (a = k->argv; a && *a; a++)
		free(*a);
	free(k->argv);
}

static void checks_free(struct kmd_check *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		check_free(&k[i]);
	free(k);
}

static void p_status(struct ctx *c, const struct raw_check *r, const struct kmd_ynode *map,
		     struct kmd_check *k)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "status", NULL);
	unsigned int i;
	size_t mark;

	k->status = nomem(c, calloc(r->status_count ? r->status_count : 1, sizeof(*k->status)));
	if (!k->status)
		return;
	for (i = 0; i < r->status_count; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);
		struct val v = { r->status[i], NULL, e ? e->loc : map->loc };
		unsigned int lo, hi;
		int end = 0;

		mark = path_push(c, "status", 0);
		path_push(c, NULL, i);
		if (sscanf(v.s, "%3u%n", &lo, &end) == 1 && !v.s[end])
			hi = lo;
		else if (sscanf(v.s, "%3u-%3u%n", &lo, &hi, &end) != 2 || v.s[end])
			lo = hi = 0;
		if (!lo)
			err_at(c, v.at, NULL, "\"%s\" is not a status code or a range like 200-399",
			       v.s);
		else if (lo < 100 || hi > 599 || lo > hi)
			err_at(c, v.at, NULL, "%s is not within 100..599 (low..high)", v.s);
		path_pop(c, mark);
		k->status[i].lo = lo;
		k->status[i].hi = hi;
	}
	k->nstatus = r->status_count;
}

static void p_command(struct ctx *c, const struct raw_check *r, const struct kmd_ynode *map,
		      struct kmd_check *k)
{
	struct val v;
	unsigned int i;

	val(map, "command", NULL, &v);
	if (!r->command_count) {
		err_at(c, v.at, "command", "must list the program and its arguments");
		return;
	}
	if (r->command[0][0] != '/') {
		err_at(c, v.at, "command", "\"%s\" is not an absolute path (no shell, no PATH)",
		       r->command[0]);
		return;
	}
	k->argv = nomem(c, calloc(r->command_count + 1, sizeof(*k->argv)));
	for (i = 0; k->argv && i < r->command_count; i++)
		k->argv[i] = xstrdup(c, r->command[i]);
}

static bool name_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (!len || len > KMD_CHECK_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/* One check of @svc; @map is its node. */
static void p_check(struct ctx *c, const struct raw_check *r, const struct kmd_ynode *map,
		    const struct kmd_service *svc, struct kmd_check *k)
{
	char buf[128];
	uint32_t kind = 0, x;
	bool known;
	struct val v;
	unsigned int i;

	k->loc = map->loc;
	val(map, "kind", r->v[CK_KIND], &v);
	known = p_enum(c, &v, kind_names, KMD_CHECK_KINDS, &kind);
	k->kind = kind;
	for (i = 0; known && i < CK_N; i++)
		if (r->v[i] && !(check_keys[i].kinds & (1U << kind)) &&
		    val(map, check_keys[i].key, r->v[i], &v))
			err_at(c, v.at, v.key, "%s checks do not take it (%s checks do)",
			       kind_names[kind], kinds_text(check_keys[i].kinds, buf, sizeof(buf)));
	if (known && kmd_ynode_get(map, "status", NULL) && !(HTTP_KINDS & (1U << kind))) {
		val(map, "status", NULL, &v);
		err_at(c, v.at, v.key, "%s checks do not take it (http and https checks do)",
		       kind_names[kind]);
	}
	if (known && kmd_ynode_get(map, "command", NULL) && kind != KMD_CHECK_EXEC) {
		val(map, "command", NULL, &v);
		err_at(c, v.at, v.key, "%s checks do not take it (exec checks do)",
		       kind_names[kind]);
	}

	k->via = KMD_VIA_TUNNEL;
	if (val(map, "via", r->v[CK_VIA], &v) && p_enum(c, &v, via_names, 2, &x))
		k->via = x;
	if (val(map, "port", r->v[CK_PORT], &v)) {
		if (p_u32(c, &v, 1, 65535, &x))
			k->port = x;
	} else if (known && kind == KMD_CHECK_AGENT) {
		err_at(c, map->loc, NULL, "an agent check needs a port (the agent's)");
	} else if (known && kind != KMD_CHECK_EXEC && !svc->svc.key.port) {
		err_at(c, map->loc, NULL,
		       "the service has port 0 (every port): give the check a port");
	}

	k->interval_ms = KMD_INTERVAL_DEFAULT_MS;
	if (val(map, "interval", r->v[CK_INTERVAL], &v))
		p_ms(c, &v, KMD_INTERVAL_MIN_MS, KMD_INTERVAL_MAX_MS, &k->interval_ms);
	k->timeout_ms = k->interval_ms < KMD_TIMEOUT_DEFAULT_MS ? k->interval_ms :
			KMD_TIMEOUT_DEFAULT_MS;
	if (val(map, "timeout", r->v[CK_TIMEOUT], &v) &&
	    p_ms(c, &v, KMD_TIMEOUT_MIN_MS, KMAGLEV_MS_MAX, &k->timeout_ms) &&
	    k->timeout_ms > k->interval_ms) {
		kmg_fmt_duration(k->interval_ms, buf, sizeof(buf));
		err_at(c, v.at, v.key, "%s is longer than the interval (%s)", v.s, buf);
	}
	k->fast_interval_ms = k->interval_ms / 4 < KMD_FAST_MIN_MS ? KMD_FAST_MIN_MS :
			      k->interval_ms / 4;
	if (k->fast_interval_ms > k->interval_ms)
		k->fast_interval_ms = k->interval_ms;
	if (val(map, "fast-interval", r->v[CK_FAST_INTERVAL], &v))
		p_ms(c, &v, KMD_FAST_MIN_MS, k->interval_ms, &k->fast_interval_ms);
	k->down_interval_ms = k->interval_ms;
	if (val(map, "down-interval", r->v[CK_DOWN_INTERVAL], &v))
		p_ms(c, &v, KMD_INTERVAL_MIN_MS, KMD_INTERVAL_MAX_MS, &k->down_interval_ms);
	k->jitter_ms = k->interval_ms / 10;
	if (val(map, "jitter", r->v[CK_JITTER], &v))
		p_ms(c, &v, 0, k->interval_ms, &k->jitter_ms);
	k->rise = KMD_RISE_DEFAULT;
	if (val(map, "rise", r->v[CK_RISE], &v))
		p_u32(c, &v, 1, KMD_RISE_FALL_MAX, &k->rise);
	k->fall = KMD_FALL_DEFAULT;
	if (val(map, "fall", r->v[CK_FALL], &v))
		p_u32(c, &v, 1, KMD_RISE_FALL_MAX, &k->fall);

	/* the kind's own fields, only when they belong to it (refused above otherwise) */
	if (!known)
		goto name;
	if (HTTP_KINDS & (1U << kind)) {
		if (val(map, "host", r->v[CK_HOST], &v))
			p_text(c, &v, 1, 253, true, &k->host);
		if (val(map, "path", r->v[CK_PATH], &v)) {
			if (v.s[0] != '/')
				err_at(c, v.at, v.key, "\"%s\" does not start with \"/\"", v.s);
			else
				p_text(c, &v, 1, 2048, true, &k->path);
		} else {
			k->path = xstrdup(c, "/");
		}
		if (r->status_count) {
			p_status(c, r, map, k);
		} else if (kmd_ynode_get(map, "status", NULL)) {
			val(map, "status", NULL, &v);
			err_at(c, v.at, v.key, "must list at least one status or range");
		} else {
			k->status = nomem(c, calloc(1, sizeof(*k->status)));
			if (k->status) {
				k->status[0] = (struct kmd_status_range){ 200, 399 };
				k->nstatus = 1;
			}
		}
		if (val(map, "body", r->v[CK_BODY], &v))
			p_text(c, &v, 1, 4096, false, &k->body);
		if (kind == KMD_CHECK_HTTPS && val(map, "verify-tls", r->v[CK_VERIFY_TLS], &v))
			p_bool(c, &v, &k->verify_tls);
	} else if (kind == KMD_CHECK_UDP) {
		if (val(map, "send", r->v[CK_SEND], &v))
			p_text(c, &v, 1, 1024, false, &k->send);
		else
			err_at(c, map->loc, NULL, "a udp check needs \"send\" (the payload)");
		if (val(map, "expect", r->v[CK_EXPECT], &v))
			p_text(c, &v, 1, 1024, false, &k->expect);
	} else if (kind == KMD_CHECK_DNS) {
		k->query = NULL;
		if (val(map, "query", r->v[CK_QUERY], &v))
			p_text(c, &v, 1, 253, true, &k->query);
		else
			k->query = xstrdup(c, ".");
		k->qtype = 1;
		if (val(map, "qtype", r->v[CK_QTYPE], &v)) {
			for (i = 0; i < KMG_ARRAY_SIZE(qtypes) && strcmp(v.s, qtypes[i].name); i++)
				;
			if (i < KMG_ARRAY_SIZE(qtypes))
				k->qtype = qtypes[i].v;
			else if (isdigit((unsigned char)v.s[0]) && p_u32(c, &v, 1, 65535, &x))
				k->qtype = x;
			else if (!isdigit((unsigned char)v.s[0]))
				err_at(c, v.at, v.key,
				       "\"%s\" is not a query type (A, AAAA, NS, SOA, ... or a number)",
				       v.s);
		}
		k->rcode = 0;
		if (val(map, "rcode", r->v[CK_RCODE], &v)) {
			if (isdigit((unsigned char)v.s[0])) {
				if (p_u32(c, &v, 0, 15, &x))
					k->rcode = x;
			} else if (p_enum(c, &v, rcode_names, KMG_ARRAY_SIZE(rcode_names), &x)) {
				k->rcode = x;
			}
		}
	} else if (kind == KMD_CHECK_EXEC) {
		p_command(c, r, map, k);
	}
name:
	if (val(map, "name", r->v[CK_NAME], &v)) {
		if (!name_ok(v.s))
			err_at(c, v.at, v.key,
			       "\"%s\" is not 1..%d letters, digits, \"-\", \"_\" or \".\"", v.s,
			       KMD_CHECK_NAME_MAX);
		else
			k->name = xstrdup(c, v.s);
	} else if (!known) {
		k->name = xstrdup(c, r->v[CK_KIND]);
	} else {
		if (k->port && r->v[CK_PORT])
			snprintf(buf, sizeof(buf), "%s-%u", kind_names[kind], k->port);
		else
			snprintf(buf, sizeof(buf), "%s", kind_names[kind]);
		k->name = xstrdup(c, buf);
	}
}

/* The checks listed under @key of @map (the service's or a backend's). */
static void p_checks(struct ctx *c, const struct raw_check *r, unsigned int n,
		     const struct kmd_ynode *map, const struct kmd_service *svc,
		     struct kmd_check **out, unsigned int *nout)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "checks", NULL);
	struct kmd_check *k;
	unsigned int i, j;
	size_t mark;

	if (!n)
		return;
	k = nomem(c, calloc(n, sizeof(*k)));
	if (!k)
		return;
	*out = k;
	*nout = n;
	for (i = 0; i < n; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);

		mark = path_push(c, "checks", 0);
		path_push(c, NULL, i);
		p_check(c, &r[i], e, svc, &k[i]);
		for (j = 0; k[i].name && j < i; j++)
			if (k[j].name && !strcmp(k[j].name, k[i].name)) {
				struct val v;

				val(e, "name", r[i].v[CK_NAME], &v);
				err_at(c, v.at, "name",
				       "\"%s\" is the name of checks[%u] too; give each a name",
				       k[i].name, j);
				break;
			}
		path_pop(c, mark);
	}
}

/* --- services ------------------------------------------------------------------------ */

static void p_backend(struct ctx *c, const struct raw_backend *r, const struct kmd_ynode *map,
		      const struct kmd_service *svc, struct kmd_backend *b)
{
	struct kmg_addr a;
	struct val v;

	b->loc = map->loc;
	kmd_backend_defaults(&b->be);
	if (val(map, "address", r->address, &v) && p_addr(c, &v, 0, &a))
		kmg_backend_set_addr(&b->be, &a);
	p_fields(c, &kmg_obj_backend, r->attr, map, &b->be);
	if (r->attr[KMAGLEV_A_BACKEND_GRE_KEY] && b->be.encap != KMAGLEV_ENCAP_GRE &&
	    val(map, "gre-key", r->attr[KMAGLEV_A_BACKEND_GRE_KEY], &v))
		err_at(c, v.at, v.key, "a GRE key needs \"encap: gre\" (encap is %s)",
		       kmg_enum_encap.names[b->be.encap]);
	if (kmd_ynode_get(map, "checks", NULL)) {
		b->own_checks = true;
		p_checks(c, r->checks, r->checks_count, map, svc, &b->checks, &b->nchecks);
	}
}

/*
 * A list of communities at @key of @map into @a: "ASN:VALUE" (each 0..65535), or with
 * @large RFC 8092 large communities "GLOBAL:LOCAL1:LOCAL2" (each 0..4294967295).
 */
static void p_communities(struct ctx *c, const struct kmd_ynode *map, bool large,
			  char **list, unsigned int count, struct kmd_bgp_attrs *a)
{
	const char *key = large ? "large-communities" : "communities";
	const struct kmd_ynode *seq = kmd_ynode_get(map, key, NULL);
	unsigned int i, j, max = large ? KMG_ARRAY_SIZE(a->large) :
					 KMG_ARRAY_SIZE(a->communities);
	unsigned int *n = large ? &a->nlarge : &a->ncommunities;
	struct val v;
	size_t m;

	*n = 0;
	if (count > max) {
		val(map, key, NULL, &v);
		err_at(c, v.at, v.key, "%u %scommunities; at most %u", count,
		       large ? "large " : "", max);
	}
	for (i = 0; i < count && i < max; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);
		struct kmd_loc at = e ? e->loc : map->loc;
		unsigned long long x[3] = { 0 };
		struct bgp_large_community lc;
		const char *w = list[i];
		int end = 0, got;

		m = path_push(c, key, 0);
		path_push(c, NULL, i);
		got = large ? sscanf(w, "%10llu:%10llu:%10llu%n", &x[0], &x[1], &x[2], &end) :
			      sscanf(w, "%5llu:%5llu%n", &x[0], &x[1], &end);
		if (got != (large ? 3 : 2) || w[end] || !isdigit((unsigned char)w[0]) ||
		    strpbrk(w, "+- \t") || x[0] > (large ? UINT32_MAX : 65535) ||
		    x[1] > (large ? UINT32_MAX : 65535) || x[2] > UINT32_MAX) {
			err_at(c, at, NULL, large ? "\"%s\" is not a large community "
			       "GLOBAL:LOCAL1:LOCAL2 (each 0..4294967295)" :
			       "\"%s\" is not a community ASN:VALUE (each 0..65535)", w);
			path_pop(c, m);
			continue;
		}
		lc = (struct bgp_large_community){ x[0], x[1], x[2] };
		for (j = 0; j < *n; j++)
			if (large ? !memcmp(&a->large[j], &lc, sizeof(lc)) :
				    a->communities[j] == (x[0] << 16 | x[1]))
				break;
		if (j < *n)
			err_at(c, at, NULL, "%s is listed twice", w);
		else if (large)
			a->large[(*n)++] = lc;
		else
			a->communities[(*n)++] = x[0] << 16 | x[1];
		path_pop(c, m);
	}
}

/* communities, large-communities and med of @map (bgp: or a service's bgp:) */
static void p_bgp_attrs(struct ctx *c, const struct kmd_ynode *map, char **comm,
			unsigned int ncomm, char **large, unsigned int nlarge, const char *med,
			struct kmd_bgp_attrs *a)
{
	struct val v;

	if (val(map, "med", med, &v) && p_u32(c, &v, 0, UINT32_MAX, &a->med))
		a->has_med = true;
	p_communities(c, map, false, comm, ncomm, a);
	p_communities(c, map, true, large, nlarge, a);
}

static void p_svc_bgp(struct ctx *c, const struct raw_svc_bgp *r, const struct kmd_ynode *map,
		      struct kmd_svc_bgp *b)
{
	size_t mark = path_push(c, "bgp", 0);
	struct val v;

	if (val(map, "announce", r->announce, &v))
		p_bool(c, &v, &b->announce);
	p_bgp_attrs(c, map, r->communities, r->communities_count, r->large_communities,
		    r->large_communities_count, r->med, &b->attrs);
	path_pop(c, mark);
}

static const char *const action_names[] = { "serve", "fail-open", "withdraw" };

static void p_quorum(struct ctx *c, const struct raw_quorum *r, const struct kmd_ynode *map,
		     struct kmd_service *s)
{
	uint32_t x;
	struct val v;
	char *end;
	size_t mark = path_push(c, "quorum", 0);

	if (val(map, "min", r->min, &v) && p_u32(c, &v, 0, KMAGLEV_BACKENDS_PER_SERVICE_MAX, &x)) {
		s->quorum.min = x;
		if (x > s->nbackends)
			err_at(c, v.at, v.key, "%u is more than the %u backends of the service", x,
			       s->nbackends);
	}
	if (val(map, "fraction", r->fraction, &v)) {
		double f;

		errno = 0;
		f = strtod(v.s, &end);
		if (!v.s[0] || *end || errno || isnan(f))
			err_at(c, v.at, v.key, "\"%s\" is not a number", v.s);
		else if (f < 0 || f > 1)
			err_at(c, v.at, v.key, "%s is outside 0..1", v.s);
		else
			s->quorum.fraction = f;
	}
	if (val(map, "action", r->action, &v) &&
	    p_enum(c, &v, action_names, KMG_ARRAY_SIZE(action_names), &x))
		s->quorum.action = x;
	path_pop(c, mark);
}

static void p_flags(struct ctx *c, const struct raw_service *r, const struct kmd_ynode *map,
		    struct kmd_service *s)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "flags", NULL);
	const struct kmg_enum *e = &kmg_enum_service_flags;
	unsigned int i;
	uint32_t bit;
	size_t mark;

	for (i = 0; i < r->flags_count; i++) {
		const struct kmd_ynode *n = kmd_ynode_at(seq, i);
		struct val v = { r->flags[i], NULL, n ? n->loc : map->loc };

		mark = path_push(c, "flags", 0);
		path_push(c, NULL, i);
		if (p_enum(c, &v, e->names, e->n, &bit)) {
			if (s->svc.flags & (1U << bit))
				err_at(c, v.at, NULL, "%s is listed twice", v.s);
			s->svc.flags |= 1U << bit;
		}
		path_pop(c, mark);
	}
}

static void p_service(struct ctx *c, const struct kmd_config *cfg, const struct raw_service *r,
		      const struct kmd_ynode *map, struct kmd_service *s)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "backends", NULL);
	const struct kmg_addr *dup;
	struct kmg_svc_key key = { .proto = IPPROTO_TCP };
	unsigned int i, j;
	struct val v;
	uint32_t x;
	size_t mark;

	s->loc = map->loc;
	if (val(map, "vip", r->vip, &v))
		p_addr(c, &v, 0, &key.addr);
	if (val(map, "port", r->port, &v) && p_u32(c, &v, 0, 65535, &x))
		key.port = x;
	if (val(map, "proto", r->proto, &v) && kmg_parse_proto(v.s, &key.proto))
		err_at(c, v.at, v.key, "\"%s\" is not tcp, udp or any", v.s);
	if (key.addr.family)
		kmg_service_set_key(&s->svc, &key);
	kmd_service_defaults(&s->svc, cfg->seed);
	p_fields(c, &kmg_obj_service, r->attr, map, &s->svc);
	p_flags(c, r, map, s);

	if (r->backends_count > KMAGLEV_BACKENDS_PER_SERVICE_MAX) {
		val(map, "backends", NULL, &v);
		err_at(c, v.at, v.key, "%u backends; a service takes at most %u",
		       r->backends_count, KMAGLEV_BACKENDS_PER_SERVICE_MAX);
	} else if (r->backends_count) {
		s->backends = nomem(c, calloc(r->backends_count, sizeof(*s->backends)));
		if (s->backends)
			s->nbackends = r->backends_count;
	}
	p_checks(c, r->checks, r->checks_count, map, s, &s->checks, &s->nchecks);
	for (i = 0; i < s->nbackends; i++) {
		mark = path_push(c, "backends", 0);
		path_push(c, NULL, i);
		p_backend(c, &r->backends[i], kmd_ynode_at(seq, i), s, &s->backends[i]);
		path_pop(c, mark);
	}
	/* one duplicate per service is enough to act on */
	if (kmg_dup_addr(s->backends, s->nbackends, sizeof(*s->backends),
			 offsetof(struct kmd_backend, be.addr), &dup)) {
		c->nomem = true;
	} else if (dup) {
		i = ((const char *)dup - (const char *)s->backends) / sizeof(*s->backends);
		for (j = 0; j < i && !kmg_addr_equal(&s->backends[j].be.addr, dup); j++)
			;
		if (j < i) {
			mark = path_push(c, "backends", 0);
			path_push(c, NULL, i);
			val(kmd_ynode_at(seq, i), "address", r->backends[i].address, &v);
			err_at(c, v.at, v.key, "%s is backends[%u] too", v.s, j);
			path_pop(c, mark);
		} else {
			/* kmg_dup_addr() gave the first of the two: report the other */
			for (j = i + 1; !kmg_addr_equal(&s->backends[j].be.addr, dup); j++)
				;
			mark = path_push(c, "backends", 0);
			path_push(c, NULL, j);
			val(kmd_ynode_at(seq, j), "address", r->backends[j].address, &v);
			err_at(c, v.at, v.key, "%s is backends[%u] too", v.s, i);
			path_pop(c, mark);
		}
	}
	s->quorum.action = KMD_QUORUM_SERVE;
	if (r->quorum)
		p_quorum(c, r->quorum, kmd_ynode_get(map, "quorum", NULL), s);
	s->bgp.announce = true;
	if (r->bgp)
		p_svc_bgp(c, r->bgp, kmd_ynode_get(map, "bgp", NULL), &s->bgp);
}

static void p_services(struct ctx *c, const struct raw_root *r, const struct kmd_ynode *root,
		       struct kmd_config *cfg)
{
	const struct kmd_ynode *seq = kmd_ynode_get(root, "services", NULL);
	char buf[INET6_ADDRSTRLEN + 16];
	unsigned int i, j;
	size_t mark;

	if (!r->services_count)
		return;
	cfg->services = nomem(c, calloc(r->services_count, sizeof(*cfg->services)));
	if (!cfg->services)
		return;
	cfg->nservices = r->services_count;
	for (i = 0; i < cfg->nservices; i++) {
		const struct kmd_ynode *map = kmd_ynode_at(seq, i);
		struct kmd_service *s = &cfg->services[i];

		mark = path_push(c, "services", 0);
		path_push(c, NULL, i);
		p_service(c, cfg, &r->services[i], map, s);
		for (j = 0; s->svc.key.addr.family && j < i; j++) {
			const struct kmg_svc_key *o = &cfg->services[j].svc.key;

			if (kmg_addr_equal(&o->addr, &s->svc.key.addr) &&
			    o->port == s->svc.key.port && o->proto == s->svc.key.proto) {
				err_at(c, map->loc, NULL, "%s is services[%u] too",
				       kmg_fmt_svc_key(&s->svc.key, buf, sizeof(buf)), j);
				break;
			}
		}
		path_pop(c, mark);
	}
}

/* --- global settings, daemon, bgp ------------------------------------------------------ */

static void p_kconfig(struct ctx *c, const struct raw_kconfig *r, const struct kmd_ynode *map,
		      struct kmd_config *cfg)
{
	struct kmg_config *k = &cfg->kcfg;
	size_t mark = path_push(c, "config", 0);
	struct val v;

	p_fields(c, &kmg_obj_config, r->attr, map, k);
	if (KMG_HAS(k, KMAGLEV_A_CONFIG_PROBE_MARK_MIN) &&
	    KMG_HAS(k, KMAGLEV_A_CONFIG_PROBE_MARK_MAX) && k->probe_mark_min > k->probe_mark_max &&
	    val(map, "probe-mark-min", r->attr[KMAGLEV_A_CONFIG_PROBE_MARK_MIN], &v))
		err_at(c, v.at, v.key, "%s is above probe-mark-max (0x%x)", v.s, k->probe_mark_max);
	path_pop(c, mark);
}

/* "ADDR:PORT", "[V6]:PORT" or "off" */
static void p_metrics(struct ctx *c, const struct val *v, struct kmd_daemon *d)
{
	char buf[INET6_ADDRSTRLEN + 16], *port, *addr = buf;
	struct val sub = *v;
	uint32_t x;

	if (!strcmp(v->s, "off")) {
		memset(&d->metrics_addr, 0, sizeof(d->metrics_addr));
		d->metrics_port = 0;
		return;
	}
	snprintf(buf, sizeof(buf), "%s", v->s);
	if (buf[0] == '[') {
		port = strchr(buf, ']');
		if (port && port[1] == ':') {
			*port = '\0';
			port += 2;
			addr = buf + 1;
		} else {
			port = NULL;
		}
	} else {
		port = strrchr(buf, ':');
		if (port && strchr(buf, ':') == port)
			*port++ = '\0';
		else
			port = NULL;
	}
	if (!port || strlen(v->s) >= sizeof(buf)) {
		err_at(c, v->at, v->key, "\"%s\" is not ADDR:PORT, [IPV6]:PORT or off", v->s);
		return;
	}
	sub.s = addr;
	if (!p_addr(c, &sub, ADDR_UNSPEC, &d->metrics_addr))
		return;
	sub.s = port;
	if (p_u32(c, &sub, 1, 65535, &x))
		d->metrics_port = x;
}

static const char *const enforce_names[] = { "enforce", "warn" };

static void p_daemon(struct ctx *c, const struct raw_daemon *r, const struct kmd_ynode *map,
		     struct kmd_daemon *d)
{
	size_t mark = path_push(c, "daemon", 0);
	struct val v;
	uint32_t x;

	if (val(map, "owner", r ? r->owner : NULL, &v)) {
		free(d->owner);
		d->owner = NULL;
		p_text(c, &v, 1, KMD_OWNER_MAX, true, &d->owner);
	}
	if (val(map, "enforce", r ? r->enforce : NULL, &v) &&
	    p_enum(c, &v, enforce_names, KMG_ARRAY_SIZE(enforce_names), &x))
		d->enforce = x;
	if (val(map, "drain-time", r ? r->drain_time : NULL, &v))
		p_ms(c, &v, 0, KMAGLEV_MS_MAX, &d->drain_time_ms);
	if (val(map, "metrics", r ? r->metrics : NULL, &v))
		p_metrics(c, &v, d);
	if (val(map, "socket", r ? r->socket : NULL, &v)) {
		if (v.s[0] != '/')
			err_at(c, v.at, v.key, "\"%s\" is not an absolute path", v.s);
		else if (strlen(v.s) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			err_at(c, v.at, v.key, "is longer than a socket path can be (%zu bytes)",
			       sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		else {
			free(d->socket);
			d->socket = NULL;
			p_text(c, &v, 1, 4096, false, &d->socket);
		}
	}
	path_pop(c, mark);
}

static void p_neighbor(struct ctx *c, const struct raw_neighbor *r,
		       const struct kmd_ynode *map, struct kmd_bgp_neighbor *nb)
{
	struct val v;
	uint32_t x;

	nb->loc = map->loc;
	nb->port = KMD_BGP_PORT_DEFAULT;
	nb->hold_time_s = KMD_BGP_HOLD_DEFAULT_S;
	if (val(map, "address", r->address, &v) && p_addr(c, &v, 0, &nb->addr) &&
	    nb->addr.family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&nb->addr.v6))
		err_at(c, v.at, v.key, "%s is link-local: give the neighbour a global address",
		       v.s);
	if (val(map, "asn", r->asn, &v) && p_u32(c, &v, 1, UINT32_MAX, &nb->asn) &&
	    nb->asn == BGP_AS_TRANS)
		err_at(c, v.at, v.key, "23456 is AS_TRANS, no AS of its own (RFC 6793)");
	if (val(map, "port", r->port, &v) && p_u32(c, &v, 1, 65535, &x))
		nb->port = x;
	if (val(map, "hold-time", r->hold_time, &v) && p_time(c, &v, true, 0, 65535, &x)) {
		if (x == 1 || x == 2)
			err_at(c, v.at, v.key, "%s is neither 0s (no keepalives) nor 3s..65535s",
			       v.s);
		else
			nb->hold_time_s = x;
	}
	if (val(map, "password", r->password, &v))
		p_text(c, &v, 1, KMD_BGP_PASSWORD_MAX, false, &nb->password);
	if (val(map, "next-hop", r->next_hop, &v) && p_addr(c, &v, 0, &nb->next_hop) &&
	    nb->addr.family && nb->next_hop.family != nb->addr.family)
		err_at(c, v.at, v.key, "%s is not of the neighbour's address family (the "
		       "session carries its own family only)", v.s);
	if (val(map, "passive", r->passive, &v))
		p_bool(c, &v, &nb->passive);
	if (val(map, "multihop", r->multihop, &v) && p_u32(c, &v, 1, 255, &x))
		nb->multihop = x;
}

static const char *const bgp_mode_names[] = { "builtin", "routes" };

static void p_bgp(struct ctx *c, const struct raw_bgp *r, const struct kmd_ynode *map,
		  struct kmd_bgp *b)
{
	const struct kmd_ynode *seq;
	size_t mark = path_push(c, "bgp", 0), m2;
	struct kmg_addr a;
	unsigned int i, j;
	struct val v;
	uint32_t x;

	b->present = true;
	b->loc = map->loc;
	b->listen_port = KMD_BGP_PORT_DEFAULT;
	b->local_pref = KMD_BGP_LOCAL_PREF_DEFAULT;
	b->gr_time_s = KMD_BGP_GR_TIME_DEFAULT_S;
	b->shutdown_time_ms = KMD_BGP_SHUTDOWN_DEFAULT_MS;
	b->routes_table = KMD_ROUTES_TABLE_DEFAULT;
	b->routes_proto = KMD_ROUTES_PROTO_DEFAULT;
	if (val(map, "mode", r->mode, &v) &&
	    p_enum(c, &v, bgp_mode_names, KMG_ARRAY_SIZE(bgp_mode_names), &x))
		b->mode = x;
	if (b->mode == KMD_BGP_BUILTIN) {
		/* the speaker needs these; routes mode leaves them to BIRD or FRR */
		if (!r->asn)
			err_at(c, map->loc, NULL, "missing required key \"asn\"");
		if (!r->router_id)
			err_at(c, map->loc, NULL, "missing required key \"router-id\"");
	} else if (r->neighbors_count || r->listen) {
		val(map, r->listen ? "listen" : "neighbors", NULL, &v);
		err_at(c, v.at, v.key, "is for mode builtin; mode routes speaks no BGP");
	}
	if (val(map, "asn", r->asn, &v) && p_u32(c, &v, 1, UINT32_MAX, &b->asn) &&
	    b->asn == BGP_AS_TRANS)
		err_at(c, v.at, v.key, "23456 is AS_TRANS, no AS of its own (RFC 6793)");
	if (val(map, "router-id", r->router_id, &v) && p_addr(c, &v, ADDR_V4, &a))
		b->router_id = a.v4;
	if (val(map, "listen", r->listen, &v))
		p_addr(c, &v, ADDR_UNSPEC, &b->listen);
	if (val(map, "listen-port", r->listen_port, &v) && p_u32(c, &v, 1, 65535, &x))
		b->listen_port = x;

	if (val(map, "local-pref", r->local_pref, &v))
		p_u32(c, &v, 0, UINT32_MAX, &b->local_pref);

	p_bgp_attrs(c, map, r->communities, r->communities_count, r->large_communities,
		    r->large_communities_count, r->med, &b->attrs);
	if (val(map, "graceful-restart-time", r->graceful_restart_time, &v) &&
	    p_time(c, &v, true, 0, BGP_GR_TIME_MAX, &x))
		b->gr_time_s = x;
	if (val(map, "shutdown-time", r->shutdown_time, &v) &&
	    p_time(c, &v, false, 0, 600000, &x))
		b->shutdown_time_ms = x;
	if (r->routes) {
		const struct kmd_ynode *rm = kmd_ynode_get(map, "routes", NULL);

		m2 = path_push(c, "routes", 0);
		if (val(rm, "table", r->routes->table, &v) && p_u32(c, &v, 1, UINT32_MAX, &x)) {
			if (x == 255)
				err_at(c, v.at, v.key, "255 is the kernel's local table");
			else
				b->routes_table = x;
		}
		if (val(rm, "protocol", r->routes->protocol, &v) && p_u32(c, &v, 5, 255, &x))
			b->routes_proto = x;
		if (b->mode != KMD_BGP_ROUTES)
			err_at(c, rm->loc, NULL, "only for mode routes (this is mode builtin)");
		path_pop(c, m2);
	}

	seq = kmd_ynode_get(map, "neighbors", NULL);
	if (r->neighbors_count) {
		b->neighbors = nomem(c, calloc(r->neighbors_count, sizeof(*b->neighbors)));
		if (b->neighbors)
			b->nneighbors = r->neighbors_count;
	}
	for (i = 0; i < b->nneighbors; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);

		m2 = path_push(c, "neighbors", 0);
		path_push(c, NULL, i);
		p_neighbor(c, &r->neighbors[i], e, &b->neighbors[i]);
		for (j = 0; b->neighbors[i].addr.family && j < i; j++)
			if (kmg_addr_equal(&b->neighbors[j].addr, &b->neighbors[i].addr)) {
				val(e, "address", r->neighbors[i].address, &v);
				err_at(c, v.at, v.key, "%s is neighbors[%u] too", v.s, j);
				break;
			}
		/* a passive neighbour must be able to reach us */
		if (b->neighbors[i].passive && b->neighbors[i].addr.family &&
		    (!b->listen.family || (b->listen.family == AF_INET &&
					    b->neighbors[i].addr.family == AF_INET6))) {
			val(e, "passive", r->neighbors[i].passive, &v);
			err_at(c, v.at, v.key, "needs bgp.listen (of the neighbour's family or ::) "
			       "to accept its connection");
		}
		path_pop(c, m2);
	}
	path_pop(c, mark);
}

/* --- loading ------------------------------------------------------------------------- */

void kmd_config_free(struct kmd_config *cfg)
{
	unsigned int i, j;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nservices; i++) {
		struct kmd_service *s = &cfg->services[i];

		for (j = 0; j < s->nbackends; j++)
			checks_free(s->backends[j].checks, s->backends[j].nchecks);
		free(s->backends);
		checks_free(s->checks, s->nchecks);
	}
	free(cfg->services);
	for (i = 0; i < cfg->bgp.nneighbors; i++)
		free(cfg->bgp.neighbors[i].password);
	free(cfg->bgp.neighbors);
	free(cfg->daemon.owner);
	free(cfg->daemon.socket);
	free(cfg->path);
	free(cfg);
}

static void daemon_defaults(struct ctx *c, struct kmd_daemon *d)
{
	d->owner = xstrdup(c, KMD_OWNER_DEFAULT);
	d->enforce = KMD_ENFORCE;
	d->drain_time_ms = KMD_DRAIN_DEFAULT_MS;
	kmg_parse_addr(KMD_METRICS_ADDR_DEFAULT, &d->metrics_addr);
	d->metrics_port = KMD_METRICS_PORT_DEFAULT;
	d->socket = xstrdup(c, KMD_SOCKET_DEFAULT);
}

int kmd_config_first_tunnel(const struct kmd_config *cfg)
{
	unsigned int i, k, n;

	for (i = 0; i < cfg->nservices; i++) {
		const struct kmd_service *s = &cfg->services[i];

		for (n = 0; n < s->nchecks; n++)
			if (s->checks[n].via == KMD_VIA_TUNNEL)
				return i;
		for (k = 0; k < s->nbackends; k++)
			for (n = 0; n < s->backends[k].nchecks; n++)
				if (s->backends[k].checks[n].via == KMD_VIA_TUNNEL)
					return i;
	}
	return -1;
}

/* Values, defaults and cross-field rules, from libcyaml's @r and the tree's @root. */
static void convert(struct ctx *c, const struct raw_root *r, const struct kmd_ynode *root,
		    struct kmd_config *cfg)
{
	struct val v;

	daemon_defaults(c, &cfg->daemon);
	if (r && r->config)
		p_kconfig(c, r->config, kmd_ynode_get(root, "config", NULL), cfg);
	if (r && val(root, "seed", r->seed, &v)) {
		if (kmg_parse_seed(v.s, cfg->seed))
			err_at(c, v.at, v.key, "\"%s\" is not 32 hexadecimal digits", v.s);
		else
			cfg->has_seed = true;
	}
	if (r && r->daemon)
		p_daemon(c, r->daemon, kmd_ynode_get(root, "daemon", NULL), &cfg->daemon);
	if (r)
		p_services(c, r, root, cfg);
	if (r && r->bgp) {
		const struct kmd_ynode *bm = kmd_ynode_get(root, "bgp", NULL);

		p_bgp(c, r->bgp, bm, &cfg->bgp);
		if (cfg->bgp.mode == KMD_BGP_ROUTES && cfg->bgp.routes_table == 254 &&
		    kmd_config_first_tunnel(cfg) >= 0) {
			const struct kmd_ynode *rm = kmd_ynode_get(bm, "routes", NULL);

			if (!rm || !val(rm, "table", r->bgp->routes->table, &v))
				v.at = rm ? rm->loc : bm->loc;
			err_at(c, v.at, "bgp.routes.table", "254 (main), where the VIPs' blackhole "
			       "routes would fail the tunnel checks' own connections to them: give "
			       "the routes a table of their own (BIRD: kernel table N) or use "
			       "via: direct checks");
		}
		/* the withdrawal must come before the exit that would Cease instead */
		if (cfg->bgp.mode == KMD_BGP_BUILTIN &&
		    val(bm, "shutdown-time", r->bgp->shutdown_time, &v) &&
		    cfg->bgp.shutdown_time_ms >= cfg->daemon.drain_time_ms)
			err_at(c, v.at, "bgp.shutdown-time", "%s is not shorter than "
			       "daemon.drain-time (the lame duck would end first)", v.s);
	}
}

int kmd_config_load_str(const char *name, const char *yaml, size_t len, struct kmd_config **out,
			FILE *err)
{
	struct ctx c = { .name = name, .err = err };
	cyaml_config_t cy = {
		.log_fn = cyaml_log_cb,
		.log_ctx = &c,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_DEFAULT,
	};
	struct raw_root *raw = NULL;
	struct kmd_config *cfg = NULL;
	struct kmd_ytree t;
	char problem[256];
	struct kmd_loc at;
	cyaml_err_t e;
	int ret;

	*out = NULL;
	build_schema();
	ret = kmd_ytree_build(&t, yaml, len, problem, sizeof(problem), &at);
	if (ret == -EINVAL) {
		err_at(&c, at, NULL, "not valid YAML: %s", problem);
		return -1;
	}
	if (ret) {
		fprintf(err, "%s: out of memory\n", name);
		return -1;
	}
	if (t.root)
		shape(&c, &root_schema, t.root, t.root->loc);
	if (!c.nerr && t.root) {
		e = cyaml_load_data((const uint8_t *)yaml, len, &cy, &root_schema,
				    (cyaml_data_t **)&raw, NULL);
		if (e == CYAML_ERR_OOM)
			c.nomem = true;
		else if (e != CYAML_OK)
			cyaml_report(&c, e);
	}
	if (!c.nerr && !c.nomem) {
		cfg = nomem(&c, calloc(1, sizeof(*cfg)));
		if (cfg) {
			cfg->path = xstrdup(&c, name);
			convert(&c, raw, t.root, cfg);
		}
	}
	if (raw)
		cyaml_free(&cy, &root_schema, raw, 0);
	kmd_ytree_free(&t);
	if (c.nomem)
		fprintf(err, "%s: out of memory\n", name);
	if (c.nerr || c.nomem) {
		kmd_config_free(cfg);
		return -1;
	}
	*out = cfg;
	return 0;
}

int kmd_config_load(const char *path, struct kmd_config **cfg, FILE *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f, *m;
	char buf[8192];
	size_t n;
	int ret;

	*cfg = NULL;
	f = fopen(path, "r");
	if (!f) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	m = open_memstream(&text, &len);
	if (!m) {
		fclose(f);
		fprintf(err, "%s: out of memory\n", path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, m) != n)
			break;
	ret = ferror(f) ? -(errno ? errno : EIO) : 0;
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	fclose(f);
	if (ret) {
		fprintf(err, "%s: %s\n", path, strerror(-ret));
		free(text);
		return -1;
	}
	ret = kmd_config_load_str(path, text, len, cfg, err);
	free(text);
	return ret;
}
