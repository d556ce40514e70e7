/* SPDX-License-Identifier: GPL-2.0 */
/* The socket buffer model (kshim.h says what it models; skbuff.c). */
#ifndef KSHIM_LINUX_SKBUFF_H
#define KSHIM_LINUX_SKBUFF_H

#include "../kshim.h"

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

#endif
