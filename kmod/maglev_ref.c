// SPDX-License-Identifier: GPL-2.0
/*
 * The Maglev paper's table population pseudocode, written plainly, as the baseline of the table
 * build benchmark: one modulo per probe, permutation computed on the fly, int32 entries.
 * Unweighted. Used by `make bench-table` (kernel and userspace), never by the data path.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#endif

#include "maglev.h"
#include "maglev_ref.h"

size_t kmg_maglev_ref_scratch_size(u32 n)
{
	return (size_t)n * 3 * sizeof(u32);
}

int kmg_maglev_ref_build(s32 *entry, u32 size, const struct kmg_mg_in *in, u32 n,
			 const u8 seed[KMG_SEED_LEN], void *scratch)
{
	u32 *offset = scratch, *skip = offset + n, *next = skip + n;
	u32 i, c, filled = 0;

	if (!n || n > size)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		kmg_maglev_perm(in[i].addr, seed, size, &offset[i], &skip[i]);
		next[i] = 0;
	}
	for (c = 0; c < size; c++)
		entry[c] = -1;
	for (;;) {
		for (i = 0; i < n; i++) {
			c = (offset[i] + (u64)next[i] * skip[i]) % size;
			while (entry[c] >= 0) {
				next[i]++;
				c = (offset[i] + (u64)next[i] * skip[i]) % size;
			}
			entry[c] = i;
			next[i]++;
			if (++filled == size)
				return 0;
		}
	}
}

/*
 * @n backends 10.0.0.1, 10.0.0.2, ... (IPv4-mapped), with @weights, or weight 1 if it is
 * NULL: the input of the table tests and benchmarks.
 */
void kmg_maglev_ref_backends(struct kmg_mg_in *in, u32 n, const u32 *weights)
{
	u32 i;

	memset(in, 0, n * sizeof(*in));
	for (i = 0; i < n; i++) {
		in[i].addr[10] = 0xff;
		in[i].addr[11] = 0xff;
		in[i].addr[12] = 10;
		in[i].addr[13] = (i + 1) >> 16;
		in[i].addr[14] = (i + 1) >> 8;
		in[i].addr[15] = i + 1;
		in[i].weight = weights ? weights[i] : 1;
	}
}
