/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: the family's objects as C structs, and their netlink encoding and decoding.
 *
 * Every object has a @present bit mask with bit N set when attribute type N of its attribute
 * set is present (KMG_HAS/KMG_SET). Requests are encoded from exactly the present attributes;
 * replies and notifications decode into the same structs. Nothing here does I/O, so requests
 * and replies can be checked in memory.
 */
#ifndef KMAGLEV_MSG_H
#define KMAGLEV_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/kmaglev.h>

#include "lib/nl.h"
#include "lib/util.h"

#define KMG_HAS(obj, attr)	(((obj)->present >> (attr)) & 1)
#define KMG_SET(obj, attr)	((obj)->present |= 1ULL << (attr))
#define KMG_CLR(obj, attr)	((obj)->present &= ~(1ULL << (attr)))
#define KMG_BIT(attr)		(1ULL << (attr))

#define KMG_SEED_BYTES		16

/* Service attributes that identify a service. */
#define KMG_SVC_KEY_MASK (KMG_BIT(KMAGLEV_A_SERVICE_ID) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | \
			  KMG_BIT(KMAGLEV_A_SERVICE_ADDR6) | KMG_BIT(KMAGLEV_A_SERVICE_PROTO) | \
			  KMG_BIT(KMAGLEV_A_SERVICE_PORT))
#define KMG_BE_ADDR_MASK (KMG_BIT(KMAGLEV_A_BACKEND_ADDR4) | KMG_BIT(KMAGLEV_A_BACKEND_ADDR6))

struct kmg_stats {
	uint64_t present;		/* KMAGLEV_A_STATS_* */
	uint64_t packets;
	uint64_t bytes;
	uint64_t new_flows;
	uint64_t conns;
};

struct kmg_backend {
	uint64_t present;		/* KMAGLEV_A_BACKEND_* */
	struct kmg_addr addr;		/* ADDR4 or ADDR6 */
	uint32_t weight;
	uint32_t state;
	uint32_t encap;
	uint32_t gre_key;
	uint32_t max_conns;
	uint32_t slots;
	uint32_t id;			/* read-only: assigned by the kernel */
	struct kmg_stats stats;
};

struct kmg_service {
	uint64_t present;		/* KMAGLEV_A_SERVICE_* */
	struct kmg_svc_key key;		/* ADDR4 or ADDR6, PROTO, PORT */
	uint32_t id;
	uint32_t table_size;
	uint32_t hash;
	uint32_t flags;
	uint8_t seed[KMG_SEED_BYTES];
	uint32_t ramp_pct;
	uint32_t ramp_ms;
	uint32_t window_ms;
	uint32_t max_conns;
	uint32_t client_rate;
	struct in_addr encap_src4;
	struct in6_addr encap_src6;
	char owner[KMAGLEV_OWNER_LEN_MAX + 1];	/* "" (or absent): none */
	uint32_t criticality;		/* enum kmaglev_criticality of its new flows */
	uint32_t overload;		/* enum kmaglev_overload: shed as under netns overload */
	uint32_t generation;
	uint32_t backends;
	uint64_t table_bytes;
	uint32_t prev_generation;
	uint32_t ramp_now;
	uint32_t window_left_ms;
	struct kmg_backend *be;		/* BACKEND nests: in a request, the new backend set */
	unsigned int nbe;
};

struct kmg_table {
	uint64_t present;		/* KMAGLEV_A_TABLE_* */
	uint32_t size;
	uint32_t generation;
	uint64_t bytes;
	uint64_t digest;
	uint32_t min_slots;
	uint32_t max_slots;
	struct kmg_backend *be;		/* BACKEND nests */
	unsigned int nbe;
};

struct kmg_config {
	uint64_t present;		/* KMAGLEV_A_CONFIG_* */
	uint32_t max_services;
	uint32_t max_backends;
	uint32_t services;
	uint32_t backends;
	uint32_t conn_max;
	uint32_t conns;			/* read-only */
	uint32_t timeout_tcp_syn;	/* seconds */
	uint32_t timeout_tcp_est;
	uint32_t timeout_tcp_fin;
	uint32_t timeout_udp;
	uint32_t flood_rate;
	uint32_t probe_mark_min;
	uint32_t probe_mark_max;
	uint32_t hook;			/* enum kmaglev_hook */
	char ingress_dev[KMAGLEV_INGRESS_DEV_LEN_MAX + 1];
	uint32_t quota_rate;		/* new flows/s per source prefix; 0: off */
	uint32_t quota_burst;		/* 0: one second's worth */
	uint32_t quota_prefix4;
	uint32_t quota_prefix6;
	uint32_t quota_scope;		/* enum kmaglev_quota_scope */
	uint32_t quota_action;		/* enum kmaglev_quota_action */
	uint32_t quota_max;
	uint32_t quotas;		/* read-only: buckets in the quota table */
	uint8_t dscp_map[KMAGLEV_DSCP_MAP_LEN];	/* 0: the service's class, or 1 + one */
	uint32_t shed_class;		/* enum kmaglev_criticality: shed it and below */
	uint32_t shed_conn_fill;	/* percent of conn-max; 0: off */
	uint32_t shed_new_rate;		/* new flows/s; 0: off */
	uint32_t shed_load_high;	/* per mille of softirq time; 0: off */
	uint32_t shed_load_low;
	uint32_t load;			/* read-only: per mille */
	uint32_t shedding;		/* read-only: enum kmaglev_shed_reason flags */
	uint32_t shed_transitions;	/* read-only */
};

/* One bucket of the quota table (a QUOTA_GET dump message). */
struct kmg_quota {
	uint64_t present;		/* KMAGLEV_A_QUOTA_* */
	struct kmg_addr addr;		/* ADDR4 or ADDR6: the prefix, host bits zero */
	uint8_t prefix_len;
	uint32_t service_id;		/* quota-scope service only */
	uint64_t accepted;
	uint64_t rejected;
	uint32_t tokens;
	uint32_t idle_ms;
};

/*
 * Netns-wide counters (the top-level GLOBAL nest of a STATS_GET reply without a service),
 * indexed by their attribute type: v[KMAGLEV_A_GLOBAL_STATS_RX_PACKETS] and so on. Their
 * names are those of kmg_schema_global_stats.
 */
struct kmg_global_stats {
	uint64_t present;		/* KMAGLEV_A_GLOBAL_STATS_* */
	uint64_t v[KMAGLEV_A_GLOBAL_STATS_MAX + 1];
};

/* One message of the family: a request, a reply or a notification. */
struct kmg_msg {
	uint8_t cmd;
	uint64_t present;		/* KMAGLEV_A_* */
	struct kmg_service svc;
	struct kmg_stats stats;
	struct kmg_table table;
	struct kmg_config config;
	struct kmg_global_stats global;
	struct kmg_quota quota;
	struct kmg_backend *be;		/* top-level BACKEND nests */
	unsigned int nbe;
};

/*
 * The one description of each attribute the CLI handles: the spec gives its name, type, range
 * and enum names (schema.c); a field adds where the value lives in the struct above, how it
 * reads and prints, and its keyword. Encoding, decoding, text and JSON output, keyword parsing
 * and `kmaglev save` all walk these tables. Attributes that identify an object (addresses,
 * protocol, port) and nests are handled by hand around them.
 */
enum kmg_fmt {
	KMG_FMT_UINT,			/* decimal */
	KMG_FMT_PRIME,			/* decimal; input must be prime */
	KMG_FMT_ADDR,			/* struct in_addr or in6_addr, by the attribute's hint */
	KMG_FMT_ENUM,			/* one of the spec's names */
	KMG_FMT_FLAGS,			/* names joined by ",", "none" for 0; JSON an array */
	KMG_FMT_MS,			/* milliseconds: text "1500ms", "30s"; JSON a number of ms */
	KMG_FMT_SEC,			/* seconds: text "30s", "2h"; JSON a number of seconds */
	KMG_FMT_HEX64,			/* "0x0123456789abcdef" (JSON too: no rounding) */
	KMG_FMT_SEED,			/* 32 hex digits */
	KMG_FMT_STRING,			/* a NUL-terminated char array of the attribute's max + 1 */
	KMG_FMT_DSCP_MAP,		/* "ef=critical-plus,cs1=sheddable", "none" (lib/dscp.h);
					 * JSON an object {"ef": "critical-plus", ...} */
};

#define KMG_FF_RO	0x01		/* reported by the kernel: never sent, no keyword */
#define KMG_FF_OMIT0	0x02		/* zero means "not set": left out of text and JSON */
#define KMG_FF_SECRET	0x04		/* printed as "(hidden)" unless --show-secrets */
#define KMG_FF_KEY	0x08		/* identifies the object: sent with its key, by hand */
/*
 * A state the daemon sets from what it sees (a service's overload): settable by hand, but
 * no key of the daemon's config file and not written by "save --yaml".
 */
#define KMG_FF_STATE	0x10

struct kmg_field {
	uint16_t attr;			/* attribute type in the object's set */
	uint8_t fmt;			/* enum kmg_fmt */
	uint8_t flags;			/* KMG_FF_* */
	uint16_t off;			/* offset of the value in the object's struct */
	const char *key;		/* keyword and output key; NULL: the spec's name */
};

struct kmg_object {
	const char *name;
	const struct kmg_attr_set *set;
	const struct kmg_field *fields;
	unsigned int n;
};

extern const struct kmg_object kmg_obj_service;
extern const struct kmg_object kmg_obj_backend;
extern const struct kmg_object kmg_obj_stats;
extern const struct kmg_object kmg_obj_table;
extern const struct kmg_object kmg_obj_config;
extern const struct kmg_object kmg_obj_quota;

const char *kmg_field_key(const struct kmg_object *obj, const struct kmg_field *f);
const struct kmg_attr_desc *kmg_field_desc(const struct kmg_object *obj,
					   const struct kmg_field *f);
/* The value of an integer field (u8..u64) of @s. */
uint64_t kmg_field_uint(const struct kmg_object *obj, const struct kmg_field *f,
			const void *s);
/* Is the value of @f in @s zero (all bytes)? */
bool kmg_field_zero(const struct kmg_object *obj, const struct kmg_field *f, const void *s);

/* Set the key attributes from a parsed service spec. */
void kmg_service_set_key(struct kmg_service *s, const struct kmg_svc_key *k);
/* Set ADDR4 or ADDR6 of a backend, or of a quota bucket. */
void kmg_backend_set_addr(struct kmg_backend *b, const struct kmg_addr *a);
void kmg_quota_set_addr(struct kmg_quota *q, const struct kmg_addr *a);
/* Append a zeroed backend to an array; NULL when out of memory. */
struct kmg_backend *kmg_backend_append(struct kmg_backend **be, unsigned int *n);

void kmg_service_free(struct kmg_service *s);
void kmg_table_free(struct kmg_table *t);
void kmg_msg_free(struct kmg_msg *m);

/*
 * Encoding. Each returns 0, or -EMSGSIZE when a nest would exceed the 64 KiB an attribute can
 * hold (nla_len is 16 bits): a service with thousands of backends in one request.
 */
int kmg_put_service(struct nlmsghdr *nlh, const struct kmg_service *s);
int kmg_put_service_key(struct nlmsghdr *nlh, const struct kmg_service *s);
int kmg_put_backend(struct nlmsghdr *nlh, uint16_t type, const struct kmg_backend *b);
/*
 * A service whose backend set does not fit in the service nest: the service nest without
 * backends, then one top-level backend nest per backend (a message, unlike an attribute, is
 * not limited to 64 KiB). Needs a kernel that takes top-level backends in service requests.
 */
int kmg_put_service_big(struct nlmsghdr *nlh, const struct kmg_service *s);
/* How many of @s's backends fit in the service nest. */
unsigned int kmg_backends_fitting(const struct kmg_service *s);
int kmg_put_config(struct nlmsghdr *nlh, const struct kmg_config *c);

/* Buffer size that surely holds a request with @s (and one more backend). */
size_t kmg_msg_size_hint(const struct kmg_service *s);

/* Decode a message of the family (after the generic netlink header). Returns 0 or -EBADMSG. */
int kmg_msg_parse(const struct nlmsghdr *nlh, struct kmg_msg *m);

/* Names of the family's commands, for notifications ("service-new", ...). */
const char *kmg_cmd_name(uint8_t cmd);

#endif
