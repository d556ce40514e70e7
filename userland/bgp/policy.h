/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which VIPs kmaglev announces, and why: the policy shared by both BGP modes (the built-in
 * speaker and "routes" for the host's BIRD or FRR).
 *
 * A VIP (a host prefix, /32 or /128) is announced while the host is healthy (the module
 * answers, the daemon runs, its self-check passes), the daemon is not in lame duck, and at
 * least one configured service on that VIP is healthy by its quorum. Its attributes are the
 * global communities, large communities and MED, plus those of its services: communities
 * are the union, the MED that of the first service (in config order) that sets one.
 *
 * Pure: no I/O, so it is unit-tested alone. The routes come out sorted by prefix.
 */
#ifndef KMAGLEV_BGP_POLICY_H
#define KMAGLEV_BGP_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "bgp/wire.h"

/* The BGP-relevant attributes of the config's global "bgp:" or a service's "bgp:". */
struct bgp_policy_attrs {
	const uint32_t *communities;
	unsigned int ncommunities;
	const struct bgp_large_community *large;
	unsigned int nlarge;
	bool has_med;
	uint32_t med;
};

/* One configured service, as the daemon sees it now. */
struct bgp_policy_svc {
	int family;			/* of the VIP */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
	const char *name;		/* "tcp 192.0.2.1:80" */
	bool healthy;
	const char *why;		/* why it is (not) healthy, e.g. "2 of 3 backends up" */
	struct bgp_policy_attrs attrs;
	bool announce;			/* false: the service opted out of BGP */
};

/* One VIP: announced or not, why, and with what. */
struct bgp_route {
	struct bgp_prefix pfx;
	bool announce;
	char why[160];
	uint32_t communities[BGP_MAX_COMMUNITIES];
	unsigned int ncommunities;
	struct bgp_large_community large[BGP_MAX_LARGE];
	unsigned int nlarge;
	bool has_med;
	uint32_t med;
};

struct bgp_policy_host {
	bool ok;			/* module answers, self-check passes */
	const char *why;		/* if not ok */
	bool lame_duck;			/* SIGTERM: withdraw everything */
};

/*
 * Evaluate. *@out is a new array (free() it) of one route per distinct VIP of @svc that
 * does not opt out, sorted by prefix; *@nout its length. -1 on allocation failure.
 */
int bgp_policy_eval(const struct bgp_policy_svc *svc, unsigned int n,
		    const struct bgp_policy_attrs *global, const struct bgp_policy_host *host,
		    struct bgp_route **out, unsigned int *nout);
/* Order of prefixes: IPv4 before IPv6, then by address, then length. */
int bgp_prefix_cmp(const struct bgp_prefix *a, const struct bgp_prefix *b);
/* "192.0.2.1/32" */
const char *bgp_prefix_str(const struct bgp_prefix *p, char *buf, size_t len);
/* Whether two routes carry the same attributes (communities compared as sets). */
bool bgp_route_attrs_equal(const struct bgp_route *a, const struct bgp_route *b);

#endif
