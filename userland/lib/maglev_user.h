/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmod/maglev.c and kmod/maglev_ref.c need from the kernel, for their userspace build in
 * the kmaglev CLI (`kmaglev simulate` and the table benchmark).
 */
#ifndef KMAGLEV_MAGLEV_USER_H
#define KMAGLEV_MAGLEV_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define U64_MAX UINT64_MAX
#define EXPORT_SYMBOL_GPL(sym)

#endif
