/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel, as far as kmod/parse.c sees it, for its userspace build under libFuzzer
 * (fuzz/fuzz_parse.c): here the types and macros every header of the model takes. The
 * structures are the kernel's own (the uapi headers in /usr/include); the socket buffer
 * (linux/skbuff.h, skbuff.c) is a model with the kernel's bounds:
 *
 * - skb->data holds the linear part, exactly skb_headlen() bytes of heap, so ASan sees any
 *   read past it; the rest (the "paged" part, skb->data_len bytes) is elsewhere.
 * - pskb_may_pull() moves bytes from the paged part into a new linear buffer of exactly the
 *   size asked for and frees the old one, as __pskb_pull_tail() may reallocate the head:
 *   a pointer into the header kept across a pull is a use after free.
 * - skb_header_pointer() returns the linear bytes or copies them, as the kernel's does, and
 *   NULL past skb->len.
 * - ipv6_find_hdr() and ipv6_skip_exthdr() walk extension headers with the bounds of
 *   net/ipv6/exthdrs_core.c (reimplemented in exthdrs.c).
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <errno.h>
#include <sys/socket.h>		/* AF_INET, AF_INET6 */

#include <linux/in.h>		/* IPPROTO_* */

#include <linux/types.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kshim: little-endian hosts only"
#endif
#define htons(x)	((__be16)__builtin_bswap16((u16)(x)))
#define ntohs(x)	__builtin_bswap16((u16)(x))
#define htonl(x)	((__be32)__builtin_bswap32((u32)(x)))
#define ntohl(x)	__builtin_bswap32((u32)(x))

#undef __always_inline		/* glibc's <sys/cdefs.h> has one: the kernel's meaning */
#define __always_inline	inline __attribute__((__always_inline__))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
/* a CONFIG_DEBUG_NET kernel's assertion, always on here: a broken one stops the fuzzer */
#define DEBUG_NET_WARN_ON_ONCE(cond)	do { if (cond) __builtin_trap(); } while (0)

#endif /* KSHIM_H */
