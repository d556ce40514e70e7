// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink family: the family, its events group and its registration, and
 * what the handlers share (request parsing, the service lookup, extack helpers, dump
 * consistency).
 *
 * Policies and the op table are generated from Documentation/netlink/specs/kmaglev.yaml
 * (netlink-gen.c). The handlers are in netlink_service.c, netlink_backend.c,
 * netlink_stats.c and netlink_config.c, the notifications they send in netlink_notify.c, the
 * replies both build in netlink_reply.c; netlink.h is what these files share. Calls go one
 * way, each file calling only files after it: the service, stats and config handlers,
 * netlink_backend.c (whose request and dump helpers they use too), netlink_notify.c,
 * netlink_reply.c, this file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "addr.h"
#include "compat.h"
#include "kmaglev.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "netns.h"
#include "service.h"

#ifdef KMG_COMPAT_GENL_OPS
static struct genl_ops kmg_compat_ops[ARRAY_SIZE(kmaglev_nl_ops)] __ro_after_init;
#endif

static struct genl_family kmg_family __ro_after_init = {
	.name		= KMAGLEV_FAMILY_NAME,
	.version	= KMAGLEV_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.resv_start_op	= KMAGLEV_CMD_SERVICE_NEW,	/* strict validation for every op */
#ifdef KMG_COMPAT_GENL_OPS
	.ops		= kmg_compat_ops,
#else
	.split_ops	= kmaglev_nl_ops,
	.n_split_ops	= ARRAY_SIZE(kmaglev_nl_ops),
#endif
	.mcgrps		= kmaglev_nl_mcgrps,	/* generated, as are the ops */
	.n_mcgrps	= ARRAY_SIZE(kmaglev_nl_mcgrps),
};

struct kmg_dump_ctx *kmg_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct kmg_dump_ctx) > sizeof(cb->ctx));
	return (struct kmg_dump_ctx *)cb->ctx;
}

/* A configuration change: dumps that span it are flagged (kmg_nl_dump_check()). */
void kmg_nl_changed(struct kmg_net *kn)
{
	lockdep_assert_held(&kn->lock);
	kn->cfg_gen++;
}

/*
 * At the end of a dump part, under kn->lock: the dump's sequence is the netns' change count,
 * so netlink flags NLM_F_DUMP_INTR on the first part (and the NLMSG_DONE) after a change.
 */
void kmg_nl_dump_check(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct kmg_net *kn)
{
	cb->seq = kn->cfg_gen + 1 ?: 1;		/* 0 is "not tracked" */
	if (skb->len)
		nl_dump_check_consistent(cb, nlmsg_hdr(skb));
}

/* ---- request parsing --------------------------------------------------------------------- */

/*
 * The first attribute of a parsed nest that a request may not carry, such as a read-only one
 * (the generated policies describe whole nests, replies included); NULL if there is none.
 */
struct nlattr *kmg_nl_extra(struct nlattr **tb, int max, u64 allowed)
{
	int i;

	for (i = 1; i <= max; i++)
		if (tb[i] && !(allowed & BIT_ULL(i)))
			return tb[i];
	return NULL;
}

bool kmg_v4_unicast(__be32 a)
{
	return !ipv4_is_zeronet(a) && !ipv4_is_multicast(a) && !ipv4_is_lbcast(a);
}

bool kmg_v6_unicast(const struct in6_addr *a)
{
	int t = ipv6_addr_type(a);

	return !(t & (IPV6_ADDR_ANY | IPV6_ADDR_MULTICAST | IPV6_ADDR_MAPPED));
}

/*
 * An address from a pair of addr4/addr6 attributes: exactly one must be present. -ENOENT,
 * for the caller to explain, when both are absent.
 */
int kmg_nl_addr(struct nlattr *a4, struct nlattr *a6, struct kmg_addr *addr,
		struct netlink_ext_ack *extack)
{
	if (a4 && a6) {
		NL_SET_ERR_MSG_ATTR(extack, a6, "addr4 and addr6 are mutually exclusive");
		return -EINVAL;
	}
	if (a4) {
		kmg_addr_from_v4(addr, nla_get_in_addr(a4));
		if (!kmg_v4_unicast(kmg_addr_v4(addr))) {
			NL_SET_ERR_MSG_ATTR(extack, a4, "addr4 must be a unicast address");
			return -EINVAL;
		}
		return 0;
	}
	if (a6) {
		struct in6_addr in6 = nla_get_in6_addr(a6);

		kmg_addr_from_v6(addr, &in6);
		if (!kmg_v6_unicast(&in6)) {
			NL_SET_ERR_MSG_ATTR(extack, a6,
					    "addr6 must be a unicast address, not IPv4-mapped");
			return -EINVAL;
		}
		return 0;
	}
	return -ENOENT;
}

int kmg_nl_parse_nest(struct nlattr **tb, int max, struct nlattr *nest,
		      const struct nla_policy *policy, struct netlink_ext_ack *extack)
{
	return nla_parse_nested(tb, max, nest, policy, extack);
}

/* Service key, or service id; fills @key and/or @id (0 if not given). */
int kmg_nl_svc_key(struct nlattr **tb, struct nlattr *nest, struct kmg_svc_key *key,
		   u32 *id, struct netlink_ext_ack *extack)
{
	struct kmg_addr addr;
	u8 proto = 0;
	int err;

	memset(key, 0, sizeof(*key));
	*id = tb[KMAGLEV_A_SERVICE_ID] ? nla_get_u32(tb[KMAGLEV_A_SERVICE_ID]) : 0;
	if (*id && !tb[KMAGLEV_A_SERVICE_ADDR4] && !tb[KMAGLEV_A_SERVICE_ADDR6])
		return 0;
	err = kmg_nl_addr(tb[KMAGLEV_A_SERVICE_ADDR4], tb[KMAGLEV_A_SERVICE_ADDR6], &addr, extack);
	if (err == -ENOENT) {
		NL_SET_ERR_ATTR_MISS(extack, nest, KMAGLEV_A_SERVICE_ADDR4);
		NL_SET_ERR_MSG(extack, "missing service address (addr4 or addr6)");
		return -EINVAL;
	}
	if (err)
		return err;
	if (tb[KMAGLEV_A_SERVICE_PROTO])
		proto = nla_get_u8(tb[KMAGLEV_A_SERVICE_PROTO]);
	if (proto != 0 && proto != IPPROTO_TCP && proto != IPPROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KMAGLEV_A_SERVICE_PROTO],
				    "service proto must be tcp (6), udp (17) or 0 for any");
		return -EINVAL;
	}
	memcpy(key->addr, addr.b, sizeof(key->addr));
	key->family = addr.family;
	key->proto = proto;
	if (tb[KMAGLEV_A_SERVICE_PORT])
		key->port = htons(nla_get_u16(tb[KMAGLEV_A_SERVICE_PORT]));
	return 0;
}

/* Find the service a request names; with @key filled for the caller. */
struct kmg_service *kmg_nl_find(struct kmg_net *kn, struct nlattr **tb, struct nlattr *nest,
				struct netlink_ext_ack *extack)
{
	struct kmg_service *svc;
	struct kmg_svc_key key;
	u32 id;
	int err;

	err = kmg_nl_svc_key(tb, nest, &key, &id, extack);
	if (err)
		return ERR_PTR(err);
	if (key.family)
		svc = kmg_service_find(kn, &key);
	else
		svc = xa_load(&kn->services, id);
	if (svc && id && svc->id != id)
		svc = NULL;
	if (!svc) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no such service");
		return ERR_PTR(-ENOENT);
	}
	return svc;
}

void *kmg_nl_hdr(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &kmg_family, flags, cmd);
}

/* ---- notifications ----------------------------------------------------------------------- */

bool kmg_nl_listeners(struct kmg_net *kn)
{
	return genl_has_listeners(&kmg_family, kn->net, KMAGLEV_NLGRP_EVENTS);
}

void kmg_nl_multicast(struct kmg_net *kn, struct sk_buff *skb)
{
	genlmsg_multicast_netns(&kmg_family, kn->net, skb, 0, KMAGLEV_NLGRP_EVENTS, GFP_KERNEL);
}

/* To the listeners but the requester of @info, and to it by unicast (its NLM_F_ECHO). */
void kmg_nl_notify(struct sk_buff *skb, struct genl_info *info)
{
	genl_notify(&kmg_family, skb, info, KMAGLEV_NLGRP_EVENTS, GFP_KERNEL);
}

/* A notification was lost: tell the listeners (and free what was built of it). */
void kmg_nl_lost(struct kmg_net *kn, struct sk_buff *skb)
{
	nlmsg_free(skb);
	genl_set_err(&kmg_family, kn->net, 0, KMAGLEV_NLGRP_EVENTS, -ENOBUFS);
}

/* ---- handler helpers --------------------------------------------------------------------- */

struct kmg_net *kmg_info_kn(struct genl_info *info)
{
	return kmg_pernet(genl_info_net(info));
}

/*
 * Every rejection carries a message: an allocation that fails deep in a change (a backend, a
 * probe id, the service's hooks) returns -ENOMEM without one, and so do the netfilter core
 * (-E2BIG, -EBUSY from nf_register_net_hooks()) and a busy hash table or id allocator.
 */
int kmg_nl_nomem(struct genl_info *info, int err)
{
	if (err >= 0 || info->extack->_msg)
		return err;
	if (err == -ENOMEM)
		NL_SET_ERR_MSG(info->extack, "out of memory");
	else
		NL_SET_ERR_MSG(info->extack, "the kernel refused the change (see the error code)");
	return err;
}

/*
 * The end of a get handler: send @msg, the reply it built, or free it and return @err when
 * building it failed. Called after kn->lock is released.
 */
int kmg_nl_reply(struct genl_info *info, struct sk_buff *msg, int err)
{
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Parse the SERVICE nest of a request into @tb (required). */
int kmg_nl_svc_tb(struct genl_info *info, struct nlattr **tb, u64 allowed)
{
	struct nlattr *a;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, KMAGLEV_A_SERVICE))
		return -EINVAL;
	err = kmg_nl_parse_nest(tb, KMAGLEV_A_SERVICE_MAX, info->attrs[KMAGLEV_A_SERVICE],
				kmaglev_service_nl_policy, info->extack);
	if (err)
		return err;
	a = kmg_nl_extra(tb, KMAGLEV_A_SERVICE_MAX, allowed);
	if (a) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "service attribute not allowed in this request (read-only?)");
		return -EINVAL;
	}
	return 0;
}

/* ---- registration ------------------------------------------------------------------------ */

#ifdef KMG_COMPAT_GENL_OPS
/* Before 6.2: fold each command's do and dump halves into one genl_ops. */
static void kmg_compat_fill_ops(void)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < ARRAY_SIZE(kmaglev_nl_ops); i++) {
		const struct genl_split_ops *s = &kmaglev_nl_ops[i];
		struct genl_ops *o = NULL;

		for (j = 0; j < n; j++)
			if (kmg_compat_ops[j].cmd == s->cmd)
				o = &kmg_compat_ops[j];
		if (!o) {
			o = &kmg_compat_ops[n++];
			o->cmd = s->cmd;
		}
		if (s->doit) {
			o->doit = s->doit;
			o->policy = s->policy;
			o->maxattr = s->maxattr;
		} else {
			o->dumpit = s->dumpit;
			o->start = s->start;
			o->done = s->done;
			if (!o->policy) {
				o->policy = s->policy;
				o->maxattr = s->maxattr;
			}
		}
		o->flags |= s->flags & (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM);
	}
	kmg_family.n_ops = n;
}
#endif

int kmg_genl_init(void)
{
#ifdef KMG_COMPAT_GENL_OPS
	kmg_compat_fill_ops();
#endif
	return genl_register_family(&kmg_family);
}

void kmg_genl_exit(void)
{
	genl_unregister_family(&kmg_family);
}
