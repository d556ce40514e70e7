/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maglev lookup table construction, shared verbatim by kmaglev.ko and the kmaglev CLI
 * (`kmaglev simulate`), so the kernel and the simulator cannot drift apart.
 *
 * The table depends only on the table size, the 128-bit seed and the set of (address, weight)
 * pairs: callers pass the eligible backends sorted by address, and slots hold indices into that
 * sorted array (2 bytes per slot).
 */
#ifndef _KMAGLEV_MAGLEV_H
#define _KMAGLEV_MAGLEV_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "maglev_user.h"	/* kernel types for userspace, from userland/ */
#endif

#define KMG_SLOT_EMPTY		0xffff
#define KMG_MAGLEV_MAX_BACKENDS	0xffff	/* slot values 0..0xfffe, 0xffff is empty */
#define KMG_SEED_LEN		16
#define KMG_ADDR_LEN		16

/* One backend that gets slots: weight > 0. IPv4 addresses are IPv4-mapped IPv6. */
struct kmg_mg_in {
	u8 addr[KMG_ADDR_LEN];
	u32 weight;
};

bool kmg_is_prime(u32 n);

/* SipHash-2-4 keyed by the 16 seed bytes (the reference algorithm's key layout). */
u64 kmg_mg_siphash(const void *data, size_t len, const u8 seed[KMG_SEED_LEN]);

/* The backend's permutation of the table: slot offset and skip (1..size-1). */
void kmg_maglev_perm(const u8 addr[KMG_ADDR_LEN], const u8 seed[KMG_SEED_LEN], u32 size,
		     u32 *offset, u32 *skip);

/* Bytes of scratch memory kmg_maglev_build() needs for a table of size with n backends. */
size_t kmg_maglev_scratch_size(u32 size, u32 n);

/*
 * Fill slots[0..size-1] with indices into in[0..n-1]. Backend i gets floor or ceil of
 * size * w_i / sum(w) slots. @in must be sorted by address with no duplicates and positive
 * weights; with n == 0 every slot is KMG_SLOT_EMPTY. No allocation, no locking.
 * Returns 0 or -EINVAL.
 */
int kmg_maglev_build(u16 *slots, u32 size, const struct kmg_mg_in *in, u32 n,
		     const u8 seed[KMG_SEED_LEN], void *scratch);

/* Table fingerprint: equal digests mean the same backend address in every slot. */
u64 kmg_maglev_digest(const u16 *slots, u32 size, const struct kmg_mg_in *in, u32 n);

/* Order of struct kmg_mg_in by address, for sorting and for binary search. */
int kmg_mg_addr_cmp(const u8 a[KMG_ADDR_LEN], const u8 b[KMG_ADDR_LEN]);

#endif /* _KMAGLEV_MAGLEV_H */
