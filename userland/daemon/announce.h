/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: announcing the VIPs. The policy (bgp/policy.c) decides, from the services'
 * health and the host's, which VIPs are announced; this glue feeds it and applies its answer
 * to the built-in speaker (bgp/speaker.c) or, in mode "routes", to routes in a table for the
 * host's BIRD or FRR (bgp/routes.c).
 *
 * The host's self-check runs every KMD_BGP_SELF_CHECK_S: the module must answer a request,
 * and if any backend is checked through the tunnel, at least one such check must pass (the
 * whole path: probe mark, hook, encapsulation, backend). A failed self-check or a service
 * that loses its last healthy backend withdraws within a second.
 *
 * Lame duck (SIGTERM): GRACEFUL_SHUTDOWN on every announcement for bgp.shutdown-time, then
 * everything withdrawn (routes removed), before the drain continues; at exit the sessions
 * end with Cease/Administrative Shutdown. `kmaglev graceful-restart` instead exits at once
 * with the routes left announced (peers keep them for graceful-restart-time).
 */
#ifndef KMAGLEV_DAEMON_BGP_H
#define KMAGLEV_DAEMON_BGP_H

#include <json-c/json.h>
#include <stdbool.h>

#include "daemon/config.h"
#include "daemon/expfmt.h"

#define KMD_BGP_SELF_CHECK_S	0.5

struct kmd;

/* Start announcing per d->cfg->bgp (nothing if absent). @restarting: the daemon's own
 * services were already in the kernel (graceful restart). 0, or -1 with *@why. */
int kmd_bgp_start(struct kmd *d, bool restarting, char **why);
/* The config changed (d->cfg is the new one). 0, or -1 with *@why (the old state stays). */
int kmd_bgp_reconfigure(struct kmd *d, char **why);
/* Health may have changed: evaluate the policy and announce or withdraw accordingly. */
void kmd_bgp_update(struct kmd *d);
/* SIGTERM: graceful shutdown, then withdraw. */
void kmd_bgp_lame_duck(struct kmd *d);
/* Exit: Cease every session and remove the routes; or, @graceful_restart, leave them. */
void kmd_bgp_stop(struct kmd *d, bool graceful_restart);
/* `kmaglev bgp show`: sessions, prefixes and why. */
struct json_object *kmd_bgp_json(struct kmd *d);
int kmd_bgp_metrics(struct kmd *d, struct kmd_prom *p);

#endif
