/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: what the config loader's files share. The YAML node tree gives positions
 * (libcyaml loads the values but gives none); the raw structs libcyaml loads, the loader's
 * context and error reports, the values' parsers and the sections' entry points (config.c
 * calls them in order); the units and limits are the file format's.
 */
#ifndef KMAGLEV_DAEMON_CONFIG_INT_H
#define KMAGLEV_DAEMON_CONFIG_INT_H

#include <stddef.h>

#include "daemon/config.h"

enum kmd_ynode_type {
	KMD_YSCALAR,
	KMD_YMAP,
	KMD_YSEQ,
};

struct kmd_ynode {
	enum kmd_ynode_type type;
	struct kmd_loc loc;
	char *str;			/* scalar */
	struct kmd_ynode **kids;	/* mapping values or sequence entries */
	struct kmd_ynode **keys;	/* mapping keys (scalars) */
	unsigned int n;
};

struct kmd_ytree {
	struct kmd_ynode *root;		/* NULL: an empty file */
	struct kmd_ynode **all;
	unsigned int nall;
};

/*
 * The tree of @text (one document). 0; -EINVAL with @problem and @ploc set when the text is
 * not YAML; -ENOMEM.
 */
int kmd_ytree_build(struct kmd_ytree *t, const char *text, size_t len, char *problem,
		    size_t plen, struct kmd_loc *ploc);
void kmd_ytree_free(struct kmd_ytree *t);
/* The value of @key in mapping @map (and where the key is), or NULL. */
struct kmd_ynode *kmd_ynode_get(const struct kmd_ynode *map, const char *key,
				struct kmd_loc *keyloc);
/* Entry @i of sequence @seq, or NULL. */
struct kmd_ynode *kmd_ynode_at(const struct kmd_ynode *seq, unsigned int i);

/*
 * libcyaml's error log (its message and backtrace) as "FILE:LINE:COL: PATH: MESSAGE" on @err.
 * The loader does this when libcyaml refuses what the shape check let through.
 */
void kmd_config_cyaml_error(const char *name, const char *log, FILE *err);

/* --- what libcyaml loads (config_schema.c): every value as its text ------------------- */

enum {
	CK_KIND, CK_NAME, CK_VIA, CK_PORT, CK_INTERVAL, CK_TIMEOUT, CK_FAST_INTERVAL,
	CK_DOWN_INTERVAL, CK_JITTER, CK_RISE, CK_FALL, CK_HOST, CK_PATH, CK_BODY, CK_VERIFY_TLS,
	CK_REUSE, CK_CA, CK_SEND, CK_EXPECT, CK_QUERY, CK_QTYPE, CK_RCODE, CK_N
};

#define KB(k)		(1U << KMD_CHECK_##k)
#define ALL_KINDS	((1U << KMD_CHECK_KINDS) - 1)
#define HTTP_KINDS	(KB(HTTP) | KB(HTTPS))

/* The scalar keys of a check and the kinds that take them. */
struct check_key {
	const char *key;
	unsigned int kinds;
};

extern const struct check_key check_keys[CK_N];

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

struct raw_util {
	char *target, *min_weight, *shed_above, *shed_hold;
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
	struct raw_util *utilization;
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

struct raw_bfd {
	char *min_tx, *min_rx, *multiplier;
};

struct raw_neighbor {
	char *address, *asn, *port, *hold_time, *password, *next_hop, *passive, *multihop;
	char *ttl_security, *ext_next_hop;
	struct raw_bfd *bfd;
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

struct cyaml_schema_value;

/* The file's schema, complete once build_schema() has run (the loader runs it first). */
extern const struct cyaml_schema_value root_schema;
void build_schema(void);

/* --- errors (config_err.c) ----------------------------------------------------------- */

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

/* Appends ".KEY" (or "[IDX]" when @key is NULL) to the path; the mark to pop back to. */
size_t path_push(struct ctx *c, const char *key, int idx);
void path_pop(struct ctx *c, size_t mark);
/* "FILE:LINE:COL: PATH[.KEY]: MESSAGE" */
void __attribute__((format(printf, 4, 5)))
err_at(struct ctx *c, struct kmd_loc at, const char *key, const char *fmt, ...);
/* @p, noting in @c when it is NULL */
void *nomem(struct ctx *c, void *p);
char *xstrdup(struct ctx *c, const char *s);

/* --- values (config_value.c) --------------------------------------------------------- */

/* A scalar of a mapping: its text (as libcyaml loaded it), its key, and where the key is. */
struct val {
	const char *s;
	const char *key;
	struct kmd_loc at;
};

#define ADDR_UNSPEC	1	/* 0.0.0.0 and :: are fine */
#define ADDR_V4		2	/* IPv4 only */
#define ADDR_V6		4	/* IPv6 only */

/* The scalar @s of @key in @map into @v; whether it is given. */
bool cfg_val(const struct kmd_ynode *map, const char *key, const char *s, struct val *v);
bool p_u32(struct ctx *c, const struct val *v, uint32_t min, uint32_t max, uint32_t *out);
/* A duration in milliseconds (@sec false) or in seconds, within @min..@max of that unit. */
bool p_time(struct ctx *c, const struct val *v, bool sec, uint64_t min, uint64_t max,
	    uint32_t *out);
bool p_ms(struct ctx *c, const struct val *v, uint32_t min, uint32_t max, uint32_t *out);
/* "a, b or c" */
bool p_enum(struct ctx *c, const struct val *v, const char *const *names, unsigned int n,
	    uint32_t *out);
bool p_bool(struct ctx *c, const struct val *v, bool *out);
bool p_addr(struct ctx *c, const struct val *v, unsigned int flags, struct kmg_addr *a);
/* Text of @min..@max bytes without control characters (or, with @nospace, spaces). */
bool p_text(struct ctx *c, const struct val *v, size_t min, size_t max, bool nospace,
	    char **out);
/*
 * Every settable attribute of @obj given in @raw (indexed by type) into @s; a dscp-map from
 * the tree, @map's node of its key.
 */
void p_fields(struct ctx *c, const struct kmg_object *obj, char *const *raw,
	      const struct kmd_ynode *map, void *s);

/* --- the sections: config_check.c, config_service.c, config_bgp.c, config_global.c --- */

void checks_free(struct kmd_check *k, unsigned int n);
/* The checks listed under @key of @map (the service's or a backend's). */
void p_checks(struct ctx *c, const struct raw_check *r, unsigned int n,
	      const struct kmd_ynode *map, const struct kmd_service *svc,
	      struct kmd_check **out, unsigned int *nout);
void p_services(struct ctx *c, const struct raw_root *r, const struct kmd_ynode *root,
		struct kmd_config *cfg);
/* communities, large-communities and med of @map (bgp: or a service's bgp:) */
void p_bgp_attrs(struct ctx *c, const struct kmd_ynode *map, char **comm,
		 unsigned int ncomm, char **large, unsigned int nlarge, const char *med,
		 struct kmd_bgp_attrs *a);
void p_bgp(struct ctx *c, const struct raw_bgp *r, const struct kmd_ynode *map,
	   struct kmd_bgp *b);
void p_kconfig(struct ctx *c, const struct raw_kconfig *r, const struct kmd_ynode *map,
	       struct kmd_config *cfg);
void p_daemon(struct ctx *c, const struct raw_daemon *r, const struct kmd_ynode *map,
	      struct kmd_daemon *d);
void daemon_defaults(struct ctx *c, struct kmd_daemon *d);

/* Defaults and limits of the file format (config.h and Documentation/daemon.rst). */
#define KMD_OWNER_DEFAULT		"kmaglev-daemon"
#define KMD_OWNER_MAX			31
#define KMD_DRAIN_DEFAULT_MS		10000
#define KMD_METRICS_ADDR_DEFAULT	"127.0.0.1"
#define KMD_METRICS_PORT_DEFAULT	9742
#define KMD_SOCKET_DEFAULT		"/run/kmaglev/daemon.sock"
#define KMD_WEIGHT_DEFAULT		1
#define KMD_WINDOW_DEFAULT_MS		30000
#define KMD_RAMP_DEFAULT		100
#define KMD_UTIL_TARGET_DEFAULT		70
#define KMD_UTIL_MIN_WEIGHT_DEFAULT	50

#define KMD_INTERVAL_DEFAULT_MS		2000
#define KMD_INTERVAL_MIN_MS		100
#define KMD_INTERVAL_MAX_MS		3600000
#define KMD_TIMEOUT_DEFAULT_MS		1000
#define KMD_TIMEOUT_MIN_MS		10
#define KMD_FAST_MIN_MS			100
#define KMD_RISE_DEFAULT		2
#define KMD_FALL_DEFAULT		3
#define KMD_RISE_FALL_MAX		1000
#define KMD_CHECK_NAME_MAX		63

#define KMD_BGP_PORT_DEFAULT		179
#define KMD_BGP_HOLD_DEFAULT_S		90
#define KMD_BGP_LOCAL_PREF_DEFAULT	100
#define KMD_BGP_PASSWORD_MAX		80	/* TCP_MD5SIG_MAXKEYLEN */
#define KMD_BGP_GR_TIME_DEFAULT_S	120
#define KMD_BGP_SHUTDOWN_DEFAULT_MS	2000
#define KMD_BFD_INTERVAL_DEFAULT_MS	300
#define KMD_BFD_INTERVAL_MIN_MS		10
#define KMD_BFD_INTERVAL_MAX_MS		60000
#define KMD_BFD_MULT_DEFAULT		3

#endif
