/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon, BGP mode "routes": the host's own routing daemon (BIRD, FRR) announces the
 * VIPs; the daemon only keeps one route per announced VIP in a routing table over rtnetlink,
 * stamped with its own protocol number, which the routing daemon exports.
 *
 * The daemon owns every route of its protocol number in its table and nothing else: a sync
 * adds what is missing and deletes what is not wanted, and never touches another protocol's
 * route, whatever its prefix.
 */
#ifndef KMAGLEV_DAEMON_ROUTES_H
#define KMAGLEV_DAEMON_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#include "bgp/wire.h"

#define KMD_ROUTES_TABLE_DEFAULT	254	/* main */
#define KMD_ROUTES_PROTO_DEFAULT	252	/* not in iproute2's rt_protos; "kmaglev" */

struct kmd_routes;

/*
 * Open an rtnetlink socket in the current network namespace for @table (1..2^32-1, not 0
 * nor 255 "local") and @proto (5..255: 0..4 are the kernel's own). NULL with @err set.
 */
struct kmd_routes *kmd_routes_open(uint32_t table, uint8_t proto, char *err, size_t errlen);
/*
 * Make the table hold, of our protocol, exactly the host routes (/32, /128) in @p[0..n):
 * add the missing ones, delete the others of our protocol (both families). Idempotent.
 * 0, or -errno of the first request the kernel refused (the rest are still tried), with a
 * message in @err.
 */
int kmd_routes_sync(struct kmd_routes *r, const struct bgp_prefix *p, unsigned int n,
		    char *err, size_t errlen);
/* Delete every route of our protocol in our table. */
int kmd_routes_flush(struct kmd_routes *r, char *err, size_t errlen);
void kmd_routes_close(struct kmd_routes *r);

#endif
