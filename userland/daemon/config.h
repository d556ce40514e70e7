/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: the configuration file, as C structs.
 *
 * kmd_config_load() reads a YAML file with libcyaml against a schema, then validates it
 * (ranges, primes, duplicates, cross-field rules). A loaded config is complete: every default
 * is filled in, durations are in milliseconds, and the kernel-facing parts are the CLI's own
 * structs (struct kmg_service / kmg_backend / kmg_config with their @present masks), so the
 * reconciler compares and encodes them with the same field tables as `kmaglev service set`.
 *
 * Every error names file:line:column and the field's path, e.g.
 *   kmaglev.yaml:12:9: services[0].backends[2].weight: 70000 is out of range 0..65535
 * and a config with any error is not returned at all (nothing is half-applied).
 */
#ifndef KMAGLEV_DAEMON_CONFIG_H
#define KMAGLEV_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bgp/wire.h"
#include "lib/msg.h"
#include "lib/util.h"

/* Where a node of the file starts (1-based), for messages about it. */
struct kmd_loc {
	unsigned int line, col;
};

enum kmd_check_kind {
	KMD_CHECK_TCP,			/* connect() succeeds */
	KMD_CHECK_HTTP,			/* GET, status and optional body substring */
	KMD_CHECK_HTTPS,		/* as http, over TLS; verify-tls optional */
	KMD_CHECK_UDP,			/* send a payload, expect a reply (containing expect) */
	KMD_CHECK_DNS,			/* a query, expect an rcode */
	KMD_CHECK_EXEC,			/* a command: exit 0 up, else down; stdout "weight N" */
	KMD_CHECK_AGENT,		/* HAProxy agent-check protocol over TCP */
	KMD_CHECK_KINDS
};

enum kmd_check_via {
	KMD_VIA_TUNNEL,			/* to VIP:port with SO_MARK = probe-mark-min + backend id */
	KMD_VIA_DIRECT,			/* to the backend's own address */
};

/* An HTTP status range lo..hi (a single code has lo == hi). */
struct kmd_status_range {
	uint16_t lo, hi;
};

#define KMD_REUSE_DEFAULT_S	10	/* http, https: seconds a connection serves runs */
#define KMD_REUSE_MAX_S		3600

/* One health check, as configured (all defaults filled in). */
struct kmd_check {
	struct kmd_loc loc;
	char *name;			/* for logs and metrics; default "<kind>" or "<kind>-<port>" */
	enum kmd_check_kind kind;
	enum kmd_check_via via;
	uint16_t port;			/* 0: the service's port (agent: required) */
	uint32_t interval_ms;		/* default 2000 */
	uint32_t timeout_ms;		/* default 1000; must be <= interval */
	uint32_t fast_interval_ms;	/* while rising or falling; default interval / 4 (>= 100) */
	uint32_t down_interval_ms;	/* while down; default = interval */
	uint32_t jitter_ms;		/* random extra delay, 0..jitter; default interval / 10 */
	uint32_t rise;			/* successes to come up; default 2 */
	uint32_t fall;			/* failures to go down; default 3 */
	/* http, https */
	char *host;			/* Host header; default the VIP (tunnel) or backend address */
	char *path;			/* default "/" */
	struct kmd_status_range *status; /* default 200..399 */
	unsigned int nstatus;
	char *body;			/* substring the body must contain; NULL: any */
	bool verify_tls;		/* https: verify the certificate (default false) */
	char *ca;			/* https: the CAs to verify with (a PEM file); NULL: the system's */
	uint32_t reuse_s;		/* a connection serves runs this long; 0: one per run */
	/* udp */
	char *send;			/* payload sent */
	char *expect;			/* substring the reply must contain; NULL: any reply */
	/* dns */
	char *query;			/* name asked; default "." */
	uint16_t qtype;			/* default 1 (A); "A", "AAAA", "SOA", "NS", ... in YAML */
	uint8_t rcode;			/* expected rcode; default 0 (NOERROR) */
	/* exec: run with KMAGLEV_BACKEND, KMAGLEV_VIP, KMAGLEV_PORT, KMAGLEV_PROTO set */
	char **argv;			/* NULL-terminated, no shell */
	/* agent: uses port (required) */
};

enum kmd_quorum_action {
	KMD_QUORUM_SERVE,		/* keep serving what is healthy (default) */
	KMD_QUORUM_FAIL_OPEN,		/* below quorum: send to every configured backend */
	KMD_QUORUM_WITHDRAW,		/* below quorum: the service is unhealthy (BGP withdraws) */
};

struct kmd_quorum {
	uint32_t min;			/* healthy backends needed; 0 = none required */
	double fraction;		/* or this share of configured backends (0 = unused) */
	enum kmd_quorum_action action;
};

/* A backend: its kernel attributes plus daemon-only settings. */
struct kmd_backend {
	struct kmd_loc loc;
	struct kmg_backend be;		/* addr, weight, encap, gre-key, max-conns, state (admin) */
	struct kmd_check *checks;	/* NULL: the service's checks; else these instead */
	unsigned int nchecks;
	bool own_checks;		/* the backend listed "checks:" (even an empty list) */
};

/* BGP attributes given to VIPs: bgp:'s for all, a service's for its own. */
struct kmd_bgp_attrs {
	uint32_t communities[16];	/* asn:value as (asn << 16) | value */
	unsigned int ncommunities;
	struct bgp_large_community large[8];
	unsigned int nlarge;
	bool has_med;
	uint32_t med;
};

/* A service's BGP settings, and whether it takes part at all. */
struct kmd_svc_bgp {
	bool announce;			/* default true */
	struct kmd_bgp_attrs attrs;
};

/*
 * Weights from the backends' utilization, as their agents report it ("util:N"): a backend at
 * or below @target percent keeps its whole weight; above, its weight falls linearly to
 * @min_weight percent of it at 100% (kmd_util_factor()). With @shed_above, the service is
 * overloaded while every backend that serves is at or above it (kmd_util_overloaded()).
 */
struct kmd_util {
	bool on;			/* the service has a "utilization:" block */
	uint32_t target;		/* 1..95, default 70 */
	uint32_t min_weight;		/* 1..100, default 50: no report drains a backend */
	uint32_t shed_above;		/* 1..100; 0 (the default): never overloaded */
	uint32_t shed_hold_ms;		/* overload lasts at least this long; default 10 s */
};

struct kmd_service {
	struct kmd_loc loc;
	struct kmg_service svc;		/* key and settings; svc.be/nbe unused (see below) */
	struct kmd_backend *backends;
	unsigned int nbackends;
	struct kmd_check *checks;	/* run against every backend */
	unsigned int nchecks;
	struct kmd_quorum quorum;
	struct kmd_util util;
	struct kmd_svc_bgp bgp;
};

struct kmd_bgp_neighbor {
	struct kmd_loc loc;
	struct kmg_addr addr;
	uint32_t asn;
	uint16_t port;			/* default 179 */
	uint32_t hold_time_s;		/* default 90; 0 or 3..65535 */
	char *password;			/* TCP-MD5; NULL: none */
	struct kmg_addr next_hop;	/* family AF_UNSPEC: the session's local address */
	bool passive;			/* wait for the neighbour to connect */
	uint8_t multihop;		/* TTL; 0: 1 for eBGP, 64 for iBGP */
	bool ttl_security;		/* GTSM: TTL 255 out, >= 256 - (multihop or 1) in */
	bool ext_next_hop;		/* IPv6 neighbour: IPv4 VIPs too, IPv6 next hops */
	bool bfd;			/* a bfd: mapping: BFD tied to the session */
	uint32_t bfd_min_tx_ms;		/* default 300ms; 10ms..60s */
	uint32_t bfd_min_rx_ms;		/* default 300ms; 10ms..60s */
	uint32_t bfd_mult;		/* default 3; 1..255 */
};

enum kmd_bgp_mode {
	KMD_BGP_BUILTIN,		/* the daemon's own speaker (default) */
	KMD_BGP_ROUTES,			/* routes for the host's BIRD or FRR to export */
};

struct kmd_bgp {
	bool present;
	struct kmd_loc loc;
	enum kmd_bgp_mode mode;
	uint32_t asn;
	struct in_addr router_id;
	struct kmg_addr listen;		/* AF_UNSPEC: do not listen */
	uint16_t listen_port;
	struct kmd_bgp_neighbor *neighbors;
	unsigned int nneighbors;
	struct kmd_bgp_attrs attrs;	/* on every VIP */
	uint32_t local_pref;		/* iBGP only */
	uint32_t gr_time_s;		/* graceful restart time; 0: no GR; default 120 */
	uint32_t shutdown_time_ms;	/* lame duck: GRACEFUL_SHUTDOWN this long, then
					 * withdraw; default 2s */
	uint32_t routes_table;		/* mode routes: default 254 (main) */
	uint8_t routes_proto;		/* mode routes: default 252 */
};

enum kmd_enforce {
	KMD_ENFORCE,			/* a hand change to an owned service is reverted (default) */
	KMD_WARN,			/* ... only logged */
};

struct kmd_daemon {
	char *owner;			/* owner cookie text; default "kmaglev-daemon" */
	enum kmd_enforce enforce;
	uint32_t drain_time_ms;		/* SIGTERM: lame duck this long; default 10s */
	struct kmg_addr metrics_addr;	/* default 127.0.0.1; family 0 with metrics off */
	uint16_t metrics_port;		/* default 9742; 0: no metrics */
	char *socket;			/* default /run/kmaglev/daemon.sock */
};

struct kmd_config {
	char *path;			/* the file it came from */
	struct kmg_config kcfg;		/* global `config set` values (present bits) */
	uint8_t seed[KMG_SEED_BYTES];	/* default seed of services without their own */
	bool has_seed;
	struct kmd_daemon daemon;
	struct kmd_service *services;
	unsigned int nservices;
	struct kmd_bgp bgp;
};

/*
 * Load and validate @path. 0 and *@cfg set, or -1 with every error found written to @err
 * (one line each, file:line:col: path: what) and nothing allocated.
 */
int kmd_config_load(const char *path, struct kmd_config **cfg, FILE *err);
/* The index of the first service with a check through the tunnel (to the VIP), or -1. */
int kmd_config_first_tunnel(const struct kmd_config *cfg);
/*
 * The share (percent) of its weight a backend at @util percent utilization keeps under @u:
 * 100 up to the target, then down linearly to min-weight at 100%, in steps of 5 points (and
 * min-weight itself).
 */
unsigned int kmd_util_factor(const struct kmd_util *u, int util);
/*
 * The share a backend keeps now that its smoothed utilization is @util (-1: none), given the
 * share @applied it has: a step is taken only once the utilization is KMD_UTIL_HYST points
 * past it, so that a utilization near a step's edge does not rebuild the table back and forth.
 */
unsigned int kmd_util_share(const struct kmd_util *u, unsigned int applied, int util);
#define KMD_UTIL_HYST	3
/*
 * Whether a service under @u is overloaded now, given whether it was (@was) and the lowest
 * smoothed utilization @min_util among its backends that serve and report one (-1: none):
 * overload starts once that is at shed-above or more (every such backend is), and ends once
 * it falls below shed-above - KMD_SHED_HYST (some backend has room again), but not before it
 * has lasted shed-hold (@on_s: seconds since it started), so that shedding, which lowers the
 * utilization it is based on, does not turn itself off and on every few reports. Never
 * without shed-above, nor without a backend that reports (which end it at once).
 */
bool kmd_util_overloaded(const struct kmd_util *u, bool was, int min_util, double on_s);
#define KMD_SHED_HYST	5
#define KMD_SHED_HOLD_DEFAULT_MS	10000
#define KMD_SHED_HOLD_MAX_MS		600000
/* As kmd_config_load(), from a string in memory; @name stands for the file in messages. */
int kmd_config_load_str(const char *name, const char *yaml, size_t len, struct kmd_config **cfg,
			FILE *err);
void kmd_config_free(struct kmd_config *cfg);

const char *kmd_check_kind_name(enum kmd_check_kind k);

/*
 * The kernel defaults a loaded config fills in, every settable attribute with its present bit
 * set: a service's (its seed @seed: the global seed, or zeros) and a backend's. Keys and
 * addresses are left as they are. kmd_config_save_yaml() leaves out what equals them.
 */
void kmd_service_defaults(struct kmg_service *s, const uint8_t seed[KMG_SEED_BYTES]);
void kmd_backend_defaults(struct kmg_backend *b);

/*
 * Write a config file for the kernel's current state: @cfg's global settings and services
 * (each with its backends in svc.be/nbe, as kmg_services_get() returns them). Comments say
 * where it came from. The output loads with kmd_config_load() to the same kernel state.
 */
int kmd_config_save_yaml(FILE *f, const struct kmg_config *cfg, const struct kmg_service *svcs,
			 unsigned int n);

#endif
