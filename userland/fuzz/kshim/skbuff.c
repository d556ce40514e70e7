// SPDX-License-Identifier: GPL-2.0
/* The socket buffer model of linux/skbuff.h: its allocation, pulls and copies. */
#include <stdlib.h>

#include <linux/skbuff.h>

static void *kshim_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		__builtin_trap();
	return p;
}

struct sk_buff *kshim_skb_new(const u8 *bytes, unsigned int len, unsigned int headlen)
{
	struct sk_buff *skb = kshim_alloc(sizeof(*skb));

	if (headlen > len)
		headlen = len;
	memset(skb, 0, sizeof(*skb));
	/* exactly headlen bytes (malloc(0) is still a distinct 0-byte block to ASan) */
	skb->head = malloc(headlen);
	if (!skb->head && headlen)
		__builtin_trap();
	memcpy(skb->head, bytes, headlen);
	skb->data = skb->head;
	skb->frag = kshim_alloc(len - headlen);
	memcpy(skb->frag, bytes + headlen, len - headlen);
	skb->len = len;
	skb->data_len = len - headlen;
	return skb;
}

void kshim_skb_free(struct sk_buff *skb)
{
	free(skb->head);
	free(skb->frag);
	free(skb);
}

bool kshim_pull_tail(struct sk_buff *skb, unsigned int len)
{
	unsigned int hl = skb_headlen(skb), delta = len - hl;
	unsigned char *head, *frag;

	/* a new head of exactly len bytes: the old one, and pointers into it, are gone */
	head = kshim_alloc(len);
	memcpy(head, skb->data, hl);
	memcpy(head + hl, skb->frag, delta);
	frag = kshim_alloc(skb->data_len - delta);
	memcpy(frag, skb->frag + delta, skb->data_len - delta);
	free(skb->head);
	free(skb->frag);
	skb->head = head;
	skb->data = head;
	skb->frag = frag;
	skb->data_len -= delta;
	skb->pulls++;
	return true;
}

int skb_copy_bits(const struct sk_buff *skb, int offset, void *to, int len)
{
	unsigned int hl = skb_headlen(skb), lin;

	if (offset > (int)skb->len - len)
		return -EFAULT;
	/* the kernel would copy from the headroom: parse.c never asks that */
	if (offset < 0 || len < 0)
		__builtin_trap();
	lin = (unsigned int)offset < hl ? hl - offset : 0;
	if (lin > (unsigned int)len)
		lin = len;
	memcpy(to, skb->data + offset, lin);
	memcpy((u8 *)to + lin, skb->frag + (offset + lin - hl), len - lin);
	return 0;
}
