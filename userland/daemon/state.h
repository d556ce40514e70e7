/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: per-service and per-backend state of the config in force (state.c), and the
 * functions of the loop that act on it (sync.c: reading the kernel, reconciling, events).
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

const char *kmd_svc_name(const struct kmd_svc *s, char *buf, size_t len);
const char *kmd_be_name(const struct kmd_be *b, char *buf, size_t len);
const char *kmd_health_name(enum kmd_health h);

/* sync.c */
/* Read the kernel, plan and apply; 0 or -errno (the kernel refused a request, or I/O). */
int kmd_reconcile(struct kmd *d);
struct kmd_op;
/* Send one request of a plan; 0, or -errno with the kernel's message recorded (kmg_errmsg). */
int kmd_send_op(struct kmd *d, const struct kmd_op *op);
/* Reconcile on the next loop iteration (coalesces bursts of health changes). */
void kmd_reconcile_soon(struct kmd *d);
/* Read the kernel again on the next loop iteration and take its ids; change nothing. */
void kmd_refresh_soon(struct kmd *d);
/* Read the kernel's services (with backends) and global config. */
int kmd_kernel_read(struct kmd *d, struct kmg_msgs *svcs, struct kmg_config *kcfg);
/* Join the events group and watch it on the loop. */
int kmd_events_start(struct kmd *d);
void kmd_events_stop(struct kmd *d);

#endif
