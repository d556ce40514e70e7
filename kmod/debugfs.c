// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev debugfs: /sys/kernel/debug/kmaglev/objects counts live services, backends and
 * tables across all network namespaces, so tests can see that a deleted netns freed
 * everything once RCU and the table workqueue have run.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "kmaglev.h"

static struct dentry *kmg_debugfs_dir;

static int kmg_objects_show(struct seq_file *m, void *v)
{
	seq_printf(m, "services %ld\nbackends %ld\ntables %ld\n",
		   atomic_long_read(&kmg_objects.services),
		   atomic_long_read(&kmg_objects.backends),
		   atomic_long_read(&kmg_objects.tables));
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
