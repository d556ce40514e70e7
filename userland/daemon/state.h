/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: per-service and per-backend state of the config in force. A change the
 * kernel must follow is told through d->state_changed (daemon.h).
 */
#ifndef KMAGLEV_DAEMON_STATE_H
#define KMAGLEV_DAEMON_STATE_H

#include "daemon/daemon.h"

/*
 * Build the state of @cfg's services. A backend's starting health comes from its entry in
 * @prev (a reload) or else from the kernel's @kernel (a start: serving counts as healthy).
 * Probes are not bound yet (kmd_state_bind).
 */
int kmd_state_build(struct kmd *d, const struct kmd_config *cfg, const struct kmg_msgs *kernel,
		    const struct kmd_svc *prev, unsigned int nprev, struct kmd_svc **out,
		    unsigned int *nout);
int kmd_state_bind(struct kmd *d, struct kmd_svc *sv, unsigned int n);
/* Drops the probes (the engine stops those nobody else uses) and frees. */
void kmd_state_free(struct kmd_svc *sv, unsigned int n);
/* Take ids and states from a fresh kernel read; rebind tunnel probes whose mark moved. */
int kmd_state_update(struct kmd *d, const struct kmg_msgs *kernel);
int kmd_be_bind(struct kmd *d, struct kmd_be *b);
bool kmd_be_stale(const struct kmd *d, const struct kmd_be *b);

/*
 * The service's overload (utilization shed-above) from its backends' smoothed utilization:
 * kmd_util_overloaded() of the lowest among the backends that serve (healthy, neither drained
 * nor down) and report one. While an agent of such a backend has not answered yet (a start or
 * a reload), the state adopted from the kernel or the previous config stands. Logs a change;
 * true if s->overloaded changed.
 */
bool kmd_svc_overload_update(struct kmd_svc *s);

const char *kmd_svc_name(const struct kmd_svc *s, char *buf, size_t len);
const char *kmd_be_name(const struct kmd_be *b, char *buf, size_t len);
const char *kmd_health_name(enum kmd_health h);

#endif
