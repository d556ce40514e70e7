/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: desired state and the plan that brings the kernel to it.
 *
 * Desired state = config + health. kmd_want_service() turns one configured service and the
 * health of its backends into the exact kmg_service the kernel should hold (every settable
 * attribute present, the complete backend list, the owner cookie, the overload its
 * utilization gives: kmd_svc_overload_update()). kmd_plan() compares the
 * desired services with the kernel's and lists the requests that close the gap:
 *   - a service the kernel lacks: one service-new with its backends;
 *   - a service that differs in any setting or backend: one service-set with the complete
 *     backend list (the kernel rebuilds its table and ramps onto it: no established flow
 *     is reset);
 *   - a service stamped with our owner that the config no longer names: service-del;
 *   - global settings that differ: one config-set.
 * Services that are equal get no message; services without our owner stamp that the config
 * does not name are never touched. Both are pure functions, so planning is unit-tested.
 */
#ifndef KMAGLEV_DAEMON_RECONCILE_H
#define KMAGLEV_DAEMON_RECONCILE_H

#include "daemon/daemon.h"

struct kmd_op {
	uint8_t cmd;			/* KMAGLEV_CMD_SERVICE_NEW / _SET / _DEL, CONFIG_SET */
	struct kmg_service svc;		/* the request (for DEL: its key); owns svc.be */
	struct kmg_config cfg;		/* CONFIG_SET */
	char why[96];			/* "new", "weight of 10.1.0.1 3 -> 0", ... for the log */
};

struct kmd_plan {
	struct kmd_op *ops;
	unsigned int n;
};

/* The backend the kernel should hold for @b, given health, agent and quorum (@fail_open). */
void kmd_want_backend(const struct kmd_be *b, bool fail_open, struct kmg_backend *out);
/*
 * Quorum of @s: sets s->healthy and s->below_quorum from its backends' health, and returns
 * true when the service fails open (every configured backend takes traffic).
 */
bool kmd_quorum_eval(struct kmd_svc *s);
/* The complete service for @s (its backends in out->be, which the caller frees). 0/-ENOMEM. */
int kmd_want_service(struct kmd_svc *s, const struct kmd_config *cfg, struct kmg_service *out);

/*
 * The requests that bring @kernel (services with their backends, as kmg_services_get() returns
 * them, and the global config @kcfg, NULL: not read) to @want. @owner is our cookie. A
 * service with @keep[i] set (NULL: none) that the kernel has is left as it is (enforce:
 * warn). Deletions come first. 0 or -ENOMEM; @plan is empty on entry and owned by the caller
 * after (kmd_plan_free).
 */
int kmd_plan(const struct kmg_service *want, unsigned int nwant, const bool *keep,
	     const struct kmg_config *wcfg, const struct kmg_msgs *kernel,
	     const struct kmg_config *kcfg, const char *owner, struct kmd_plan *plan);
void kmd_plan_free(struct kmd_plan *plan);

/* Is the kernel service @k ours (stamped with @owner)? */
bool kmd_owned(const struct kmg_service *k, const char *owner);
/* The first difference between two services' settable attributes and backend sets, or NULL. */
const char *kmd_service_diff(const struct kmg_service *want, const struct kmg_service *have,
			     char *buf, size_t len);

#endif
