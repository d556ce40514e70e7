// SPDX-License-Identifier: GPL-2.0
/* kmaglev daemon: the check kinds by enum kmd_check_kind, for kmd_hc_new() (see checks.h). */
#include "daemon/health/checks/checks.h"

const struct kmd_kind_ops *const kmd_check_kinds[KMD_CHECK_KINDS] = {
	[KMD_CHECK_TCP] = &kmd_tcp_ops,
	[KMD_CHECK_HTTP] = &kmd_http_ops,
	[KMD_CHECK_HTTPS] = &kmd_http_ops,
	[KMD_CHECK_UDP] = &kmd_udp_ops,
	[KMD_CHECK_DNS] = &kmd_dns_ops,
	[KMD_CHECK_EXEC] = &kmd_exec_ops,
	[KMD_CHECK_AGENT] = &kmd_agent_ops,
};
