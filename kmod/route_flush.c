// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev route flush: when a device of a netns goes away, the routes the netns' backends
 * cached (route.c) are released at once, on every CPU, rather than at each CPU's next packet
 * to each backend.
 *
 * Why: a cached route may pin the device. The kernel moves most routes off a device that goes
 * (dst_dev_put(), the flush of the uncached lists), but an uncached IPv6 route, such as the
 * encap dr route of an IPv6 backend (kmg_route_dr(): FLOWI_FLAG_KNOWN_NH), keeps its FIB entry
 * (rt->from), whose next hop holds the device: unregister_netdevice() would wait until that
 * backend's next packet on every CPU that cached it, forever for an idle one. IPVS releases
 * its destinations' routes on device events for the same reason.
 *
 * How: the netdevice notifier runs under RTNL and may not take kn->lock (the order is
 * kn->lock, then RTNL: ingress.c), so it queues kn->route_flush on kmg_wq. The work takes
 * kn->lock and runs kmg_route_flush_cpu() on each online CPU (work_on_cpu()), with bottom
 * halves off, so that each CPU drops its own slots as route.c's rules require; an offline
 * CPU's slots are dropped from the work itself (no packet runs there, and cpus_read_lock()
 * keeps it offline). Every backend in a service's set is flushed, whatever its routes' device:
 * devices go rarely, and a flushed route is looked up again at the next packet. A backend
 * that left its set (its flows still draining) releases its routes when it is freed. A route
 * looked up while the device was going is caught by the next NETDEV_UNREGISTER:
 * unregister_netdevice() repeats it every second while the device is still referenced.
 *
 * Teardown: the notifier queues nothing for a netns without backends or once it is exiting
 * (kn->dead, set by pre_exit); kmg_net_exit() cancels the work before the services go. The
 * work item is initialized before the netns' state is published (kmg_route_flush_net_init()).
 */
#include <linux/cpu.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>

#include "backend.h"
#include "kmaglev.h"
#include "netns.h"
#include "route.h"
#include "route_flush.h"
#include "service.h"

struct kmg_route_flush_set {
	struct kmg_backend **be;
	u32 n;
};

/* On its own CPU (work_on_cpu()): drop this CPU's cached routes of every backend of @arg. */
static long kmg_route_flush_cpu(void *arg)
{
	struct kmg_route_flush_set *set = arg;
	u32 i;

	local_bh_disable();
	for (i = 0; i < set->n; i++)
		kmg_route_cache_drop_cpu(&set->be[i]->routes, smp_processor_id());
	local_bh_enable();
	return 0;
}

static void kmg_route_flush_work(struct work_struct *work)
{
	struct kmg_net *kn = container_of(work, struct kmg_net, route_flush);
	struct kmg_route_flush_set set = { };
	struct kmg_service *svc;
	unsigned long id;
	u32 i, max;
	int cpu;

	mutex_lock(&kn->lock);
	max = kn->nbackends;
	if (!max)
		goto out;
	/* on failure the device's next NETDEV_UNREGISTER, a second later, tries again */
	set.be = kvmalloc_array(max, sizeof(*set.be), GFP_KERNEL);
	if (!set.be)
		goto out;
	xa_for_each(&kn->services, id, svc)
		for (i = 0; i < svc->nbe && set.n < max; i++)
			set.be[set.n++] = svc->be[i];
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu)) {
			work_on_cpu(cpu, kmg_route_flush_cpu, &set);
			continue;
		}
		for (i = 0; i < set.n; i++)
			kmg_route_cache_drop_cpu(&set.be[i]->routes, cpu);
	}
	cpus_read_unlock();
	kvfree(set.be);
out:
	mutex_unlock(&kn->lock);
}

static int kmg_route_dev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct kmg_net *kn;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	kn = kmg_pernet(dev_net(dev));
	/* nbackends: a hint read without kn->lock; a stale 0 means a netns just populated */
	if (kn && kn->net && READ_ONCE(kn->nbackends) && !READ_ONCE(kn->dead))
		queue_work(kmg_wq, &kn->route_flush);
	return NOTIFY_DONE;
}

static struct notifier_block kmg_route_nb = {
	.notifier_call = kmg_route_dev_event,
};

void kmg_route_flush_net_init(struct kmg_net *kn)
{
	INIT_WORK(&kn->route_flush, kmg_route_flush_work);
}

/* After the netns' hooks are gone (pre_exit), before its services are freed. */
void kmg_route_flush_net_exit(struct kmg_net *kn)
{
	cancel_work_sync(&kn->route_flush);
}

int kmg_route_flush_init(void)
{
	return register_netdevice_notifier(&kmg_route_nb);
}

void kmg_route_flush_exit(void)
{
	unregister_netdevice_notifier(&kmg_route_nb);
}
