// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev_bench.ko: times kmaglev's Maglev table build against the paper's pseudocode
 * (maglev_ref.c) in the kernel, for `make bench-table`. Reading
 * /sys/kernel/debug/kmaglev_bench/table runs the benchmark and returns one line per case.
 * Not a test: nothing here is asserted, the numbers are for the operator.
 */
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/vmalloc.h>

#include "../maglev.h"
#include "../maglev_ref.h"

static struct dentry *kmg_bench_dir;

struct kmg_bench_case {
	u32 size;
	u32 n;
	u32 reps;
};

static const struct kmg_bench_case kmg_bench_cases[] = {
	{ 65537, 1000, 30 },
	{ 655373, 1000, 8 },
};

/* Best of @reps runs of each build, alternating so both see the same machine. */
static int kmg_bench_one(struct seq_file *m, const struct kmg_bench_case *c)
{
	static const u8 seed[KMG_SEED_LEN];
	u64 best_fast = U64_MAX, best_ref = U64_MAX, t;
	struct kmg_mg_in *in;
	void *scratch, *ref_scratch;
	u16 *slots;
	s32 *entry;
	u32 r, same = 0, i;
	int err = -ENOMEM;

	in = vmalloc(c->n * sizeof(*in));
	slots = vmalloc(c->size * sizeof(*slots));
	entry = vmalloc(c->size * sizeof(*entry));
	scratch = vmalloc(kmg_maglev_scratch_size(c->size, c->n));
	ref_scratch = vmalloc(kmg_maglev_ref_scratch_size(c->n));
	if (!in || !slots || !entry || !scratch || !ref_scratch)
		goto out;
	kmg_maglev_ref_backends(in, c->n, NULL);
	for (r = 0; r < c->reps; r++) {
		t = ktime_get_ns();
		err = kmg_maglev_build(slots, c->size, in, c->n, seed, scratch);
		best_fast = min(best_fast, ktime_get_ns() - t);
		if (err)
			goto out;
		cond_resched();
		t = ktime_get_ns();
		err = kmg_maglev_ref_build(entry, c->size, in, c->n, seed, ref_scratch);
		best_ref = min(best_ref, ktime_get_ns() - t);
		if (err)
			goto out;
		cond_resched();
	}
	for (i = 0; i < c->size; i++)
		same += slots[i] == entry[i];
	seq_printf(m, "kernel M=%u N=%u kmaglev_us=%llu textbook_us=%llu ratio=%llu.%03llu bytes_per_slot=%zu identical_slots=%u/%u\n",
		   c->size, c->n, best_fast / 1000, best_ref / 1000,
		   best_fast / best_ref, (best_fast * 1000 / best_ref) % 1000,
		   sizeof(*slots), same, c->size);
out:
	vfree(ref_scratch);
	vfree(scratch);
	vfree(entry);
	vfree(slots);
	vfree(in);
	return err;
}

static int kmg_bench_show(struct seq_file *m, void *v)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(kmg_bench_cases); i++) {
		err = kmg_bench_one(m, &kmg_bench_cases[i]);
		if (err)
			return err;
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kmg_bench);

static int __init kmg_bench_init(void)
{
	kmg_bench_dir = debugfs_create_dir("kmaglev_bench", NULL);
	debugfs_create_file("table", 0400, kmg_bench_dir, NULL, &kmg_bench_fops);
	return 0;
}

static void __exit kmg_bench_exit(void)
{
	debugfs_remove_recursive(kmg_bench_dir);
}

module_init(kmg_bench_init);
module_exit(kmg_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmaglev Maglev table build benchmark");
