// SPDX-License-Identifier: GPL-2.0
/*
 * The IPv6 extension header walkers of net/ipv6.h. They follow net/ipv6/exthdrs_core.c's
 * semantics and bounds (what each one reads, with which length, and what it returns for each
 * malformed chain), so parse.c sees what it would see in the kernel.
 */
#include <errno.h>

#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>

bool ipv6_ext_hdr(u8 nexthdr)
{
	switch (nexthdr) {
	case NEXTHDR_HOP:
	case NEXTHDR_ROUTING:
	case NEXTHDR_FRAGMENT:
	case NEXTHDR_AUTH:
	case NEXTHDR_NONE:
	case NEXTHDR_DEST:
		return true;
	}
	return false;
}

/*
 * The offset of the header after the extension headers from @start on, its type in
 * *@nexthdrp. Stops at a fragment header with a non-zero offset. The last fragment header's
 * frag_off field, as is, in *@frag_offp. -1 at "no next header" or a header not in the packet;
 * an extension header's length is not checked against the packet.
 */
int ipv6_skip_exthdr(const struct sk_buff *skb, int start, u8 *nexthdrp, __be16 *frag_offp)
{
	u8 type = *nexthdrp;

	*frag_offp = 0;
	for (; ipv6_ext_hdr(type); ) {
		struct ipv6_opt_hdr hbuf, *h;
		__be16 fbuf, *f;
		int skip;

		if (type == NEXTHDR_NONE)
			return -1;
		h = skb_header_pointer(skb, start, sizeof(hbuf), &hbuf);
		if (!h)
			return -1;
		switch (type) {
		case NEXTHDR_FRAGMENT:
			f = skb_header_pointer(skb, start + offsetof(struct frag_hdr, frag_off),
					       sizeof(fbuf), &fbuf);
			if (!f)
				return -1;
			*frag_offp = *f;
			if (ntohs(*f) & ~0x7) {
				*nexthdrp = type;
				return start;
			}
			skip = 8;
			break;
		case NEXTHDR_AUTH:
			skip = ipv6_authlen(h);
			break;
		default:
			skip = ipv6_optlen(h);
		}
		type = h->nexthdr;
		start += skip;
	}
	*nexthdrp = type;
	return start;
}

/*
 * Only what parse.c uses is modelled: the outer header (*@offset 0), @fragoff NULL, no
 * IP6_FH_F_AUTH or _SKIP_RH in *@flags; anything else traps. @target < 0: the last header
 * (transport, ESP or "no next header"); @target >= 0: the first header of that type,
 * -ENOENT if the chain ends (or a later fragment stops it) first. Returns the type, its
 * offset in *@offset; -EBADMSG for a header not in the packet or an extension header longer
 * than the packet, -ENOENT for a later fragment whose next header is another extension
 * header. A fragment header sets IP6_FH_F_FRAG as soon as it is reached; a later fragment
 * (non-zero offset) returns its next header with @target < 0, *@offset unchanged.
 */
int ipv6_find_hdr(const struct sk_buff *skb, unsigned int *offset, int target,
		  unsigned short *fragoff, int *flags)
{
	unsigned int at = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	u8 type = ipv6_hdr(skb)->nexthdr;
	bool found;

	if (*offset || fragoff || (target < 0 && !flags) ||
	    (flags && (*flags & (IP6_FH_F_AUTH | IP6_FH_F_SKIP_RH))))
		__builtin_trap();
	do {
		struct ipv6_opt_hdr hbuf, *h;
		struct ipv6_rt_hdr rbuf;
		unsigned int skip;
		__be16 fbuf, *f;

		found = type == target;
		if (!ipv6_ext_hdr(type) || type == NEXTHDR_NONE) {
			if (target < 0 || found)
				break;
			return -ENOENT;
		}
		h = skb_header_pointer(skb, at, sizeof(hbuf), &hbuf);
		if (!h)
			return -EBADMSG;
		if (type == NEXTHDR_ROUTING &&
		    !skb_header_pointer(skb, at, sizeof(rbuf), &rbuf))
			return -EBADMSG;
		if (type == NEXTHDR_FRAGMENT) {
			if (flags)
				*flags |= IP6_FH_F_FRAG;
			f = skb_header_pointer(skb, at + offsetof(struct frag_hdr, frag_off),
					       sizeof(fbuf), &fbuf);
			if (!f)
				return -EBADMSG;
			if (ntohs(*f) & ~0x7) {
				/* a later fragment: the protocol is all there is */
				if (target < 0 &&
				    (!ipv6_ext_hdr(h->nexthdr) || h->nexthdr == NEXTHDR_NONE))
					return h->nexthdr;
				if (!found)
					return -ENOENT;
				break;
			}
			skip = 8;
		} else if (type == NEXTHDR_AUTH) {
			skip = ipv6_authlen(h);
		} else {
			skip = ipv6_optlen(h);
		}
		if (!found) {
			if (skb->len - at < skip)
				return -EBADMSG;
			type = h->nexthdr;
			at += skip;
		}
	} while (!found);
	*offset = at;
	return type;
}
