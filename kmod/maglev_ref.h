/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Maglev paper's pseudocode, the table build benchmark's baseline, and the backend sets
 * the table tests and benchmarks build from.
 */
#ifndef _KMAGLEV_MAGLEV_REF_H
#define _KMAGLEV_MAGLEV_REF_H

#include "maglev.h"

size_t kmg_maglev_ref_scratch_size(u32 n);
int kmg_maglev_ref_build(s32 *entry, u32 size, const struct kmg_mg_in *in, u32 n,
			 const u8 seed[KMG_SEED_LEN], void *scratch);
void kmg_maglev_ref_backends(struct kmg_mg_in *in, u32 n, const u32 *weights);

#endif
