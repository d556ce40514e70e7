/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev: the differences between the kernels it builds for (Debian's 6.1 and 6.12), in one
 * place. Also force-included into the generated netlink-gen.c (see Kbuild). Kbuild detects
 * each feature in the target kernel's headers (KMG_HAVE_*), so backports are honoured.
 *
 * Generic netlink split ops (genl_split_ops, which ynl-gen-c.py emits) arrived in 6.2. On older
 * kernels this header declares a stand-in with the fields the generated table uses, and
 * netlink.c folds the do/dump pairs into classic genl_ops at module init.
 */
#ifndef _KMAGLEV_COMPAT_H
#define _KMAGLEV_COMPAT_H

#include <net/genetlink.h>

#ifndef KMG_HAVE_GENL_SPLIT_OPS
#define KMG_COMPAT_GENL_OPS 1

struct genl_split_ops {
	int (*doit)(struct sk_buff *skb, struct genl_info *info);
	int (*dumpit)(struct sk_buff *skb, struct netlink_callback *cb);
	int (*start)(struct netlink_callback *cb);
	int (*done)(struct netlink_callback *cb);
	const struct nla_policy *policy;
	unsigned int maxattr;
	u8 cmd;
	u8 internal_flags;
	u8 flags;
	u8 validate;
};
#endif

#ifdef KMG_HAVE_GENL_INFO_DUMP
static inline struct nlattr **kmg_dump_attrs(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
#else
static inline struct nlattr **kmg_dump_attrs(struct netlink_callback *cb)
{
	return genl_dumpit_info(cb)->attrs;
}
#endif

#ifndef KMG_HAVE_CONST_NL_RANGE
/* Before 6.2 the policy's range pointer is not const; the generated ranges are. */
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

#endif /* _KMAGLEV_COMPAT_H */
