/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel, as far as kmod/parse.c sees it, for its userspace build under libFuzzer
 * (fuzz/fuzz_parse.c). The structures are the kernel's own (the uapi headers in
 * /usr/include); the socket buffer is a model with the kernel's bounds:
 *
 * - skb->data holds the linear part, exactly skb_headlen() bytes of heap, so ASan sees any
 *   read past it; the rest (the "paged" part, skb->data_len bytes) is elsewhere.
 * - pskb_may_pull() moves bytes from the paged part into a new linear buffer of exactly the
 *   size asked for and frees the old one, as __pskb_pull_tail() may reallocate the head:
 *   a pointer into the header kept across a pull is a use after free.
 * - skb_header_pointer() returns the linear bytes or copies them, as the kernel's does, and
 *   NULL past skb->len.
 * - ipv6_find_hdr() and ipv6_skip_exthdr() walk extension headers with the bounds of
 *   net/ipv6/exthdrs_core.c (reimplemented in kshim.c).
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

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

struct sk_buff {
	unsigned char *head;	/* the linear part: data == head, no headroom */
	unsigned char *data;
	unsigned int len;	/* all bytes */
	unsigned int data_len;	/* bytes in the paged part, frag */
	u16 network_header;	/* from head */
	unsigned char *frag;	/* the paged part */
	unsigned int pulls;	/* pskb_may_pull() calls that moved bytes */
};

static inline unsigned int skb_headlen(const struct sk_buff *skb)
{
	return skb->len - skb->data_len;
}

static inline unsigned char *skb_network_header(const struct sk_buff *skb)
{
	return skb->head + skb->network_header;
}

static inline int skb_network_offset(const struct sk_buff *skb)
{
	return skb_network_header(skb) - skb->data;
}

/* Moves bytes from the paged part so that @len are linear, in a new head. */
bool kshim_pull_tail(struct sk_buff *skb, unsigned int len);

static inline bool pskb_may_pull(struct sk_buff *skb, unsigned int len)
{
	if (likely(len <= skb_headlen(skb)))
		return true;
	if (unlikely(len > skb->len))
		return false;
	return kshim_pull_tail(skb, len);
}

/* 0, or -EFAULT when [offset, offset + len) is not within the packet. */
int skb_copy_bits(const struct sk_buff *skb, int offset, void *to, int len);

static inline void *skb_header_pointer(const struct sk_buff *skb, int offset, int len,
				       void *buffer)
{
	if (likely((int)skb_headlen(skb) - offset >= len)) {
		/* the kernel would read its headroom: parse.c never asks that */
		if (offset < 0)
			__builtin_trap();
		return skb->data + offset;
	}
	if (skb_copy_bits(skb, offset, buffer, len) < 0)
		return NULL;
	return buffer;
}

/* An skb of @len bytes of @bytes, the first @headlen linear. */
struct sk_buff *kshim_skb_new(const u8 *bytes, unsigned int len, unsigned int headlen);
void kshim_skb_free(struct sk_buff *skb);

#endif /* KSHIM_H */
