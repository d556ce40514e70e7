/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: the functions of the loop that act on the state (sync.c): reading the kernel,
 * reconciling it with the config in force, following the family's events.
 */
#ifndef KMAGLEV_DAEMON_SYNC_H
#define KMAGLEV_DAEMON_SYNC_H

#include "daemon/daemon.h"

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
