// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev debugfs: /sys/kernel/debug/kmaglev/objects counts live services, backends, tables
 * and connection entries across all network namespaces, so tests can see that a deleted netns
 * freed everything once RCU and the table workqueue have run, and reports the bytes the
 * connection tables use: conn_bytes is the entries in the tables times their slab object
 * size (kmg_conn_entry_bytes()) plus the rhashtables' bucket arrays (kmg_conn_bucket_bytes()),
 * so conn_bytes / conns is the cost of one entry including its share of the buckets.
 * netns counts the network namespaces not yet dismantled (kmaglev's per-netns state is in
 * each): after a netns is deleted it must come down, or a reference to it leaked.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "conn.h"
#include "kmaglev.h"
#include "netns.h"

static struct dentry *kmg_debugfs_dir;

static int kmg_objects_show(struct seq_file *m, void *v)
{
	size_t bytes = 0;
	struct net *net;
	long nets = 0;

	rcu_read_lock();
	for_each_net_rcu(net) {
		struct kmg_net *kn = kmg_pernet(net);

		bytes += atomic_read(&kn->conns.ht4.nelems) * kmg_conn_entry_bytes(AF_INET) +
			 atomic_read(&kn->conns.ht6.nelems) * kmg_conn_entry_bytes(AF_INET6) +
			 kmg_conn_bucket_bytes(kn);
		nets++;
	}
	rcu_read_unlock();
	seq_printf(m, "services %ld\nbackends %ld\ntables %ld\nconns %ld\nconn_bytes %zu\nnetns %ld\n",
		   atomic_long_read(&kmg_objects.services),
		   atomic_long_read(&kmg_objects.backends),
		   atomic_long_read(&kmg_objects.tables),
		   kmg_conn_objects(), bytes, nets);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kmg_objects);

void kmg_debugfs_init(void)
{
	kmg_debugfs_dir = debugfs_create_dir("kmaglev", NULL);
	debugfs_create_file("objects", 0444, kmg_debugfs_dir, NULL, &kmg_objects_fops);
}

void kmg_debugfs_exit(void)
{
	debugfs_remove_recursive(kmg_debugfs_dir);
}
