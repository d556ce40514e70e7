/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: the check kinds (this folder), each an ops table of the health engine
 * (health_int.h), and the table by kind that whoever makes an engine hands to kmd_hc_new().
 */
#ifndef KMAGLEV_DAEMON_CHECKS_H
#define KMAGLEV_DAEMON_CHECKS_H

#include "daemon/health/health_int.h"

extern const struct kmd_kind_ops kmd_tcp_ops, kmd_agent_ops, kmd_udp_ops, kmd_dns_ops,
	kmd_http_ops, kmd_exec_ops;

/* Every kind, by enum kmd_check_kind (http and https share kmd_http_ops). */
extern const struct kmd_kind_ops *const kmd_check_kinds[KMD_CHECK_KINDS];

#endif
