// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev: module entry points and per network namespace lifetime.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/kmaglev.h>
#include <net/genetlink.h>
#include <kunit/visibility.h>

#include "conn.h"
#include "hook.h"
#include "ingress.h"
#include "kmaglev.h"
#include "limit.h"
#include "netns.h"
#include "quota.h"
#include "shed.h"
#include "service.h"
#include "stats.h"

unsigned int kmg_net_id __read_mostly;
EXPORT_SYMBOL_IF_KUNIT(kmg_net_id);
struct kmg_objects kmg_objects;
struct workqueue_struct *kmg_wq __read_mostly;

static __net_init int kmg_net_init(struct net *net)
{
	struct kmg_net *kn = kmg_pernet(net);
	struct kmg_conn_cfg *cc = &kn->ccfg;
	int err;

	kn->net = net;
	cc->conn_max = KMG_DEFAULT_CONN_MAX;
	cc->timeout_tcp_syn = KMG_DEFAULT_TIMEOUT_TCP_SYN;
	cc->timeout_tcp_est = KMG_DEFAULT_TIMEOUT_TCP_EST;
	cc->timeout_tcp_fin = KMG_DEFAULT_TIMEOUT_TCP_FIN;
	cc->timeout_udp = KMG_DEFAULT_TIMEOUT_UDP;
	kn->max_services = KMG_DEFAULT_MAX_SERVICES;
	kn->max_backends = KMG_DEFAULT_MAX_BACKENDS;
	kmg_ingress_net_init(kn);
	kmg_shed_init(kn);
	kn->stats = alloc_percpu_gfp(struct kmg_net_stats, GFP_KERNEL_ACCOUNT);
	if (!kn->stats)
		return -ENOMEM;
	err = kmg_conns_init(kn);
	if (err)
		goto err_stats;
	err = kmg_quotas_init(kn);
	if (err)
		goto err_conns;
	kmg_limits_init(kn);
	err = kmg_net_services_init(kn);
	if (err)
		goto err_quotas;
	return 0;

err_quotas:
	kmg_quotas_exit(kn);
err_conns:
	kmg_conns_exit(kn);
err_stats:
	free_percpu(kn->stats);
	return err;
}

/* Before any netns exit: no new packets in kmaglev's hooks (see kmg_hooks_unregister()). */
static __net_exit void kmg_net_pre_exit(struct net *net)
{
	struct kmg_net *kn = kmg_pernet(net);

	kmg_hooks_pre_exit(kn);
	kmg_ingress_net_pre_exit(kn);
}

static __net_exit void kmg_net_exit(struct net *net)
{
	struct kmg_net *kn = kmg_pernet(net);

	/*
	 * Deleting the last service unregisters the hooks and empties the connection and quota
	 * tables.
	 */
	kmg_net_services_exit(kn);
	kmg_shed_exit(kn);
	kmg_quotas_exit(kn);
	kmg_conns_exit(kn);
	free_percpu(kn->stats);
}

/* The packet path and netlink, told about services coming and going (service.c). */
static const struct kmg_service_events kmg_events = {
	.start		= kmg_hooks_register,
	.stop		= kmg_hooks_unregister,
	.table_changed	= kmg_notify_table,
};

/*
 * After the netns' services are gone, finish freeing what they held before the next pernet
 * subsystems exit: a backend's cached routes (route.c) must be released while the netns'
 * IPv6 routing (its dst_ops, inside struct net) still exists. Backends are freed by RCU
 * callbacks, some queued from connection-entry callbacks, others by the table workqueue.
 */
static __net_exit void kmg_net_exit_batch(struct list_head *net_exit_list)
{
	rcu_barrier();
	flush_workqueue(kmg_wq);
	rcu_barrier();
}

static struct pernet_operations kmg_net_ops = {
	.init = kmg_net_init,
	.pre_exit = kmg_net_pre_exit,
	.exit = kmg_net_exit,
	.exit_batch = kmg_net_exit_batch,
	.id   = &kmg_net_id,
	.size = sizeof(struct kmg_net),
};

static int __init kmg_init(void)
{
	int err;

	kmg_wq = alloc_workqueue("kmaglev", WQ_UNBOUND, 0);
	if (!kmg_wq)
		return -ENOMEM;
	kmg_service_events_set(&kmg_events);
	err = kmg_conn_caches_init();
	if (err)
		goto err_wq;
	err = kmg_quota_caches_init();
	if (err)
		goto err_conn_caches;
	err = register_pernet_subsys(&kmg_net_ops);
	if (err)
		goto err_caches;
	err = kmg_ingress_init();
	if (err)
		goto err_pernet;
	err = kmg_genl_init();
	if (err)
		goto err_ingress;
	kmg_debugfs_init();
	return 0;

err_ingress:
	kmg_ingress_exit();
err_pernet:
	unregister_pernet_subsys(&kmg_net_ops);
err_caches:
	kmg_quota_caches_exit();
err_conn_caches:
	kmg_conn_caches_exit();
err_wq:
	destroy_workqueue(kmg_wq);
	return err;
}

static void __exit kmg_exit(void)
{
	kmg_debugfs_exit();
	kmg_genl_exit();
	/* every ingress hook goes; pernet teardown's grace period then covers packets in them */
	kmg_ingress_exit();
	unregister_pernet_subsys(&kmg_net_ops);
	kmg_shed_module_exit();
	/* Tables are freed by RCU-delayed work, which drops backends via call_rcu(). */
	rcu_barrier();
	destroy_workqueue(kmg_wq);
	rcu_barrier();
	kmg_quota_caches_exit();
	kmg_conn_caches_exit();
	WARN(atomic_long_read(&kmg_objects.services) || atomic_long_read(&kmg_objects.backends) ||
	     atomic_long_read(&kmg_objects.tables) || kmg_conn_objects(),
	     "kmaglev: leaked %ld services, %ld backends, %ld tables, %ld connections\n",
	     atomic_long_read(&kmg_objects.services), atomic_long_read(&kmg_objects.backends),
	     atomic_long_read(&kmg_objects.tables), kmg_conn_objects());
}

module_init(kmg_init);
module_exit(kmg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmaglev: Maglev L4 load balancer with encapsulated direct server return");
MODULE_ALIAS_GENL_FAMILY(KMAGLEV_FAMILY_NAME);
#ifdef KMAGLEV_VERSION
MODULE_VERSION(KMAGLEV_VERSION);
#endif
