// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev limits for network namespaces owned by a user namespace other than the initial one.
 *
 * Every mutating netlink op needs only CAP_NET_ADMIN in the user namespace that owns the netns
 * (GENL_UNS_ADMIN_PERM), so any unprivileged user can reach all of them through
 * `unshare -Urn`. Memory that a request or traffic makes kmaglev allocate is charged to the
 * caller's memory cgroup where the kernel allows it (services, backends and tables are
 * GFP_KERNEL_ACCOUNT; connection entries and quota buckets are charged to the cgroup of the
 * task that started balancing, see conn.c). What a cgroup cannot bound (CPU time under
 * kn->lock, the sizes requests ask for) is capped here: in such a netns max-services,
 * max-backends, conn-max, quota-max and a service's table-size may not exceed the module
 * parameters below, and their defaults are clamped to them. The host's root sets the
 * parameters (also at run time, through /sys/module/kmaglev/parameters); a change applies to
 * later requests and new netns. The initial user namespace is not capped. One thing no cap
 * covers: any netns may start the module's load sampling (ten cheap samples a second while
 * some netns sets shed-load-high, see shed.c).
 */
#include <linux/kmaglev.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/user_namespace.h>
#include <net/netlink.h>

#include "limit.h"
#include "netns.h"

static unsigned int userns_max_services = 1024;
module_param(userns_max_services, uint, 0644);
MODULE_PARM_DESC(userns_max_services,
		 "max-services cap in netns of non-initial user namespaces (default 1024)");

static unsigned int userns_max_backends = 16384;
module_param(userns_max_backends, uint, 0644);
MODULE_PARM_DESC(userns_max_backends,
		 "max-backends cap in netns of non-initial user namespaces (default 16384)");

static unsigned int userns_conn_max = 262144;
module_param(userns_conn_max, uint, 0644);
MODULE_PARM_DESC(userns_conn_max,
		 "conn-max cap in netns of non-initial user namespaces (default 262144)");

static unsigned int userns_table_size_max = KMAGLEV_TABLE_SIZE_DEFAULT;
module_param(userns_table_size_max, uint, 0644);
MODULE_PARM_DESC(userns_table_size_max,
		 "table-size cap in netns of non-initial user namespaces (default 65537)");

static unsigned int userns_quota_max = 65536;
module_param(userns_quota_max, uint, 0644);
MODULE_PARM_DESC(userns_quota_max,
		 "quota-max cap in netns of non-initial user namespaces (default 65536)");

/* Is the netns owned by a user namespace other than the initial one? */
static bool kmg_net_capped(const struct kmg_net *kn)
{
	return kn->net->user_ns != &init_user_ns;
}

static u32 kmg_cap_of(enum kmg_limit l)
{
	switch (l) {
	case KMG_LIMIT_SERVICES:
		return READ_ONCE(userns_max_services);
	case KMG_LIMIT_BACKENDS:
		return READ_ONCE(userns_max_backends);
	case KMG_LIMIT_CONNS:
		return READ_ONCE(userns_conn_max);
	case KMG_LIMIT_TABLE_SIZE:
		return max_t(u32, READ_ONCE(userns_table_size_max), KMAGLEV_TABLE_SIZE_MIN);
	case KMG_LIMIT_QUOTAS:
		return max_t(u32, READ_ONCE(userns_quota_max), 1);
	}
	return 0;
}

/* The highest value @l may take in this netns. */
u32 kmg_limit(const struct kmg_net *kn, enum kmg_limit l)
{
	return kmg_net_capped(kn) ? kmg_cap_of(l) : U32_MAX;
}

/* A new netns: defaults above the caps come down to them. */
void kmg_limits_init(struct kmg_net *kn)
{
	kn->max_services = min(kn->max_services, kmg_limit(kn, KMG_LIMIT_SERVICES));
	kn->max_backends = min(kn->max_backends, kmg_limit(kn, KMG_LIMIT_BACKENDS));
	kn->ccfg.conn_max = min(kn->ccfg.conn_max, kmg_limit(kn, KMG_LIMIT_CONNS));
	kn->quotas.set.max = min(kn->quotas.set.max, kmg_limit(kn, KMG_LIMIT_QUOTAS));
}

/* May @l be set to @val in this netns? If not, say why on @attr (which may be NULL). */
int kmg_limit_check(const struct kmg_net *kn, enum kmg_limit l, u32 val,
		    const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (val <= kmg_limit(kn, l))
		return 0;
	switch (l) {
	case KMG_LIMIT_SERVICES:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "max-services is above the cap for user namespaces (kmaglev module parameter userns_max_services)");
		break;
	case KMG_LIMIT_BACKENDS:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "max-backends is above the cap for user namespaces (kmaglev module parameter userns_max_backends)");
		break;
	case KMG_LIMIT_CONNS:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "conn-max is above the cap for user namespaces (kmaglev module parameter userns_conn_max)");
		break;
	case KMG_LIMIT_TABLE_SIZE:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "table-size is above the cap for user namespaces (kmaglev module parameter userns_table_size_max)");
		break;
	case KMG_LIMIT_QUOTAS:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "quota-max is above the cap for user namespaces (kmaglev module parameter userns_quota_max)");
		break;
	}
	return -EPERM;
}
