// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev counters: per-CPU packet, byte and new-flow counts of services and backends, and
 * the per-netns counters of the packet path (enum kmg_counter), summed over CPUs for netlink.
 */
#include <linux/percpu.h>

#include "netns.h"
#include "stats.h"

struct kmg_pcpu_stats __percpu *kmg_stats_alloc(void)
{
	struct kmg_pcpu_stats __percpu *pcpu;
	int cpu;

	pcpu = alloc_percpu_gfp(struct kmg_pcpu_stats, GFP_KERNEL_ACCOUNT);
	if (!pcpu)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(pcpu, cpu)->syncp);
	return pcpu;
}

void kmg_stats_fold(struct kmg_pcpu_stats __percpu *pcpu, struct kmg_stats_sum *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kmg_pcpu_stats *s = per_cpu_ptr(pcpu, cpu);
		u64 packets, bytes, new_flows;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			packets = u64_stats_read(&s->packets);
			bytes = u64_stats_read(&s->bytes);
			new_flows = u64_stats_read(&s->new_flows);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum->packets += packets;
		sum->bytes += bytes;
		sum->new_flows += new_flows;
	}
}

/* The netns counters, summed over CPUs, into sum[KMG_C_MAX]. */
void kmg_net_stats_fold(struct kmg_net *kn, u64 *sum)
{
	int cpu, i;

	memset(sum, 0, KMG_C_MAX * sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kmg_net_stats *s = per_cpu_ptr(kn->stats, cpu);

		for (i = 0; i < KMG_C_MAX; i++)
			sum[i] += READ_ONCE(s->c[i]);
	}
}
