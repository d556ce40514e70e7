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
