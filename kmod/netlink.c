// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink family: request parsing, replies, dumps and event notifications.
 *
 * Policies and the op table are generated from Documentation/netlink/specs/kmaglev.yaml
 * (netlink-gen.c); this file holds the handlers. Each handler works under the netns' kn->lock.
 * Every rejection carries an extack message naming the attribute, and leaves state unchanged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "addr.h"
#include "backend.h"
#include "compat.h"
#include "conn.h"
#include "ingress.h"
#include "kmaglev.h"
#include "limit.h"
#include "maglev.h"
#include "migrate.h"
#include "netlink-gen.h"
#include "netns.h"
#include "service.h"
#include "stats.h"
#include "table.h"

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

/* Dump position, kept in cb->ctx between the messages of a dump. */
struct kmg_dump_ctx {
	unsigned long svc_id;		/* service being dumped, or the next one */
	u8 be_addr[16];			/* last backend dumped in that service */
	bool be_started;
	bool svc_started;		/* stats dump: the service's own counters are sent */
	u32 filter_id;			/* backend dump of one service */
};

static struct kmg_dump_ctx *kmg_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct kmg_dump_ctx) > sizeof(cb->ctx));
	return (struct kmg_dump_ctx *)cb->ctx;
}

/*
 * Table and stats replies list the service's backends up to this many, so that every reply
 * fits in GENLMSG_DEFAULT_SIZE (with the headers, a page); beyond, per-backend slots and
 * counters come from the
 * backend and stats dumps, which resume across messages.
 */
static u32 kmg_nl_reply_backends(const struct kmg_service *svc)
{
	BUILD_BUG_ON(KMAGLEV_REPLY_BACKENDS_MAX * 160 > GENLMSG_DEFAULT_SIZE - 512);
	return min_t(u32, svc->nbe, KMAGLEV_REPLY_BACKENDS_MAX);
}

/* A configuration change: dumps that span it are flagged (kmg_nl_dump_check()). */
static void kmg_nl_changed(struct kmg_net *kn)
{
	lockdep_assert_held(&kn->lock);
	kn->cfg_gen++;
}

/*
 * At the end of a dump part, under kn->lock: the dump's sequence is the netns' change count,
 * so netlink flags NLM_F_DUMP_INTR on the first part (and the NLMSG_DONE) after a change.
 */
static void kmg_nl_dump_check(struct sk_buff *skb, struct netlink_callback *cb,
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
static struct nlattr *kmg_nl_extra(struct nlattr **tb, int max, u64 allowed)
{
	int i;

	for (i = 1; i <= max; i++)
		if (tb[i] && !(allowed & BIT_ULL(i)))
			return tb[i];
	return NULL;
}

static bool kmg_v4_unicast(__be32 a)
{
	return !ipv4_is_zeronet(a) && !ipv4_is_multicast(a) && !ipv4_is_lbcast(a);
}

static bool kmg_v6_unicast(const struct in6_addr *a)
{
	int t = ipv6_addr_type(a);

	return !(t & (IPV6_ADDR_ANY | IPV6_ADDR_MULTICAST | IPV6_ADDR_MAPPED));
}

/*
 * An address from a pair of addr4/addr6 attributes: exactly one must be present. -ENOENT,
 * for the caller to explain, when both are absent.
 */
static int kmg_nl_addr(struct nlattr *a4, struct nlattr *a6, struct kmg_addr *addr,
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

static int kmg_nl_parse_nest(struct nlattr **tb, int max, struct nlattr *nest,
			     const struct nla_policy *policy, struct netlink_ext_ack *extack)
{
	return nla_parse_nested(tb, max, nest, policy, extack);
}

/* Service key, or service id; fills @key and/or @id (0 if not given). */
static int kmg_nl_svc_key(struct nlattr **tb, struct nlattr *nest, struct kmg_svc_key *key,
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
static struct kmg_service *kmg_nl_find(struct kmg_net *kn, struct nlattr **tb, struct nlattr *nest,
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

/* Service settings given in @tb, on top of @cfg. */
static int kmg_nl_svc_cfg(struct nlattr **tb, struct kmg_service_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *a;

	a = tb[KMAGLEV_A_SERVICE_TABLE_SIZE];
	if (a) {
		cfg->table_size = nla_get_u32(a);
		if (!kmg_is_prime(cfg->table_size)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "service table-size must be a prime");
			return -EINVAL;
		}
	}
	if (tb[KMAGLEV_A_SERVICE_HASH])
		cfg->hash = nla_get_u32(tb[KMAGLEV_A_SERVICE_HASH]);
	if (tb[KMAGLEV_A_SERVICE_FLAGS])
		cfg->flags = nla_get_u32(tb[KMAGLEV_A_SERVICE_FLAGS]);
	if (tb[KMAGLEV_A_SERVICE_SEED])
		nla_memcpy(cfg->seed, tb[KMAGLEV_A_SERVICE_SEED], sizeof(cfg->seed));
	if (tb[KMAGLEV_A_SERVICE_RAMP_PCT])
		cfg->ramp_pct = nla_get_u32(tb[KMAGLEV_A_SERVICE_RAMP_PCT]);
	if (tb[KMAGLEV_A_SERVICE_RAMP_MS])
		cfg->ramp_ms = nla_get_u32(tb[KMAGLEV_A_SERVICE_RAMP_MS]);
	if (tb[KMAGLEV_A_SERVICE_WINDOW_MS])
		cfg->window_ms = nla_get_u32(tb[KMAGLEV_A_SERVICE_WINDOW_MS]);
	if (tb[KMAGLEV_A_SERVICE_MAX_CONNS])
		cfg->max_conns = nla_get_u32(tb[KMAGLEV_A_SERVICE_MAX_CONNS]);
	if (tb[KMAGLEV_A_SERVICE_CLIENT_RATE])
		cfg->client_rate = nla_get_u32(tb[KMAGLEV_A_SERVICE_CLIENT_RATE]);
	/* the policy bounds its length and wants it NUL-terminated; "" clears it */
	if (tb[KMAGLEV_A_SERVICE_OWNER])
		nla_strscpy(cfg->owner, tb[KMAGLEV_A_SERVICE_OWNER], sizeof(cfg->owner));
	a = tb[KMAGLEV_A_SERVICE_ENCAP_SRC4];
	if (a) {
		cfg->encap_src4 = nla_get_in_addr(a);
		if (cfg->encap_src4 && !kmg_v4_unicast(cfg->encap_src4)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "service encap-src4 must be unicast");
			return -EINVAL;
		}
	}
	a = tb[KMAGLEV_A_SERVICE_ENCAP_SRC6];
	if (a) {
		cfg->encap_src6 = nla_get_in6_addr(a);
		if (!ipv6_addr_any(&cfg->encap_src6) && !kmg_v6_unicast(&cfg->encap_src6)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "service encap-src6 must be unicast");
			return -EINVAL;
		}
	}
	return 0;
}

#define KMG_SVC_KEY_ATTRS (BIT_ULL(KMAGLEV_A_SERVICE_ID) | BIT_ULL(KMAGLEV_A_SERVICE_ADDR4) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_ADDR6) | BIT_ULL(KMAGLEV_A_SERVICE_PROTO) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_PORT))
#define KMG_SVC_CFG_ATTRS (BIT_ULL(KMAGLEV_A_SERVICE_TABLE_SIZE) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_HASH) | BIT_ULL(KMAGLEV_A_SERVICE_FLAGS) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_SEED) | BIT_ULL(KMAGLEV_A_SERVICE_RAMP_PCT) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_RAMP_MS) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_WINDOW_MS) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_MAX_CONNS) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_CLIENT_RATE) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_ENCAP_SRC4) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_ENCAP_SRC6) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_OWNER) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_BACKEND) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_REPLACE_BACKENDS))
#define KMG_BE_CFG_ATTRS  (BIT_ULL(KMAGLEV_A_BACKEND_ADDR4) | BIT_ULL(KMAGLEV_A_BACKEND_ADDR6) | \
			   BIT_ULL(KMAGLEV_A_BACKEND_WEIGHT) | BIT_ULL(KMAGLEV_A_BACKEND_STATE) | \
			   BIT_ULL(KMAGLEV_A_BACKEND_ENCAP) | BIT_ULL(KMAGLEV_A_BACKEND_GRE_KEY) | \
			   BIT_ULL(KMAGLEV_A_BACKEND_MAX_CONNS))
#define KMG_BE_KEY_ATTRS  (BIT_ULL(KMAGLEV_A_BACKEND_ADDR4) | BIT_ULL(KMAGLEV_A_BACKEND_ADDR6))

/* A backend from a nest: its address and the settings given. */
static int kmg_nl_backend(struct nlattr *nest, u64 allowed, struct kmg_backend_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KMAGLEV_A_BACKEND_MAX + 1];
	struct nlattr *a;
	int err;

	err = kmg_nl_parse_nest(tb, KMAGLEV_A_BACKEND_MAX, nest, kmaglev_backend_nl_policy,
				extack);
	if (err)
		return err;
	a = kmg_nl_extra(tb, KMAGLEV_A_BACKEND_MAX, allowed);
	if (a) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "backend attribute not allowed in this request (read-only?)");
		return -EINVAL;
	}
	memset(cfg, 0, sizeof(*cfg));
	err = kmg_nl_addr(tb[KMAGLEV_A_BACKEND_ADDR4], tb[KMAGLEV_A_BACKEND_ADDR6], &cfg->addr,
			  extack);
	if (err == -ENOENT) {
		NL_SET_ERR_ATTR_MISS(extack, nest, KMAGLEV_A_BACKEND_ADDR4);
		NL_SET_ERR_MSG(extack, "missing backend address (addr4 or addr6)");
		return -EINVAL;
	}
	if (err)
		return err;
	if (tb[KMAGLEV_A_BACKEND_WEIGHT]) {
		cfg->weight = nla_get_u32(tb[KMAGLEV_A_BACKEND_WEIGHT]);
		cfg->set |= KMG_BE_SET_WEIGHT;
	}
	if (tb[KMAGLEV_A_BACKEND_STATE]) {
		cfg->state = nla_get_u32(tb[KMAGLEV_A_BACKEND_STATE]);
		cfg->set |= KMG_BE_SET_STATE;
	}
	if (tb[KMAGLEV_A_BACKEND_ENCAP]) {
		cfg->encap = nla_get_u32(tb[KMAGLEV_A_BACKEND_ENCAP]);
		/* With encap given, the key is exactly as given: gre without gre-key is unkeyed. */
		cfg->set |= KMG_BE_SET_ENCAP | KMG_BE_SET_KEY;
	}
	if (tb[KMAGLEV_A_BACKEND_GRE_KEY]) {
		cfg->gre_key = nla_get_u32(tb[KMAGLEV_A_BACKEND_GRE_KEY]);
		cfg->keyed = true;
		cfg->set |= KMG_BE_SET_KEY;
		if (tb[KMAGLEV_A_BACKEND_ENCAP] && cfg->encap != KMAGLEV_ENCAP_GRE) {
			NL_SET_ERR_MSG_ATTR(extack, tb[KMAGLEV_A_BACKEND_GRE_KEY],
					    "backend gre-key requires encap gre");
			return -EINVAL;
		}
	}
	if (tb[KMAGLEV_A_BACKEND_MAX_CONNS]) {
		cfg->max_conns = nla_get_u32(tb[KMAGLEV_A_BACKEND_MAX_CONNS]);
		cfg->set |= KMG_BE_SET_MAX_CONNS;
	}
	return 0;
}

/*
 * A backend being created (or fully replaced), as kmg_nl_backend() parsed it: settings not
 * given take their defaults (those not set are zero).
 */
static void kmg_nl_backend_defaults(struct kmg_backend_cfg *cfg)
{
	if (!(cfg->set & KMG_BE_SET_WEIGHT))
		cfg->weight = 1;
	cfg->set |= KMG_BE_SET_WEIGHT | KMG_BE_SET_STATE | KMG_BE_SET_ENCAP | KMG_BE_SET_KEY |
		    KMG_BE_SET_MAX_CONNS;
}

static int kmg_nl_backend_new_cfg(struct nlattr *nest, struct kmg_backend_cfg *cfg,
				  struct netlink_ext_ack *extack)
{
	int err = kmg_nl_backend(nest, KMG_BE_CFG_ATTRS, cfg, extack);

	if (!err)
		kmg_nl_backend_defaults(cfg);
	return err;
}

/*
 * The backend list of a service request, parsed into a new array (kvfree it): backend nests
 * inside the service nest and, for lists too large for one nest (an attribute holds at most
 * 64 KiB), top-level backend attributes. Either way it is the complete new set.
 */
static int kmg_nl_backend_list(struct genl_info *info, struct kmg_backend_cfg **out, u32 *n)
{
	struct nlattr *svc_nest = info->attrs[KMAGLEV_A_SERVICE];
	struct netlink_ext_ack *extack = info->extack;
	struct kmg_backend_cfg *cfg;
	struct nlattr *a;
	int rem, err;
	u32 cnt = 0;

	nla_for_each_nested(a, svc_nest, rem)
		cnt += nla_type(a) == KMAGLEV_A_SERVICE_BACKEND;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem)
		cnt += nla_type(a) == KMAGLEV_A_BACKEND;
	*out = NULL;
	*n = 0;
	if (!cnt)
		return 0;
	if (cnt > KMAGLEV_BACKENDS_PER_SERVICE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, svc_nest, "more than 65535 backends in one service");
		return -E2BIG;
	}
	cfg = kvcalloc(cnt, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	nla_for_each_nested(a, svc_nest, rem) {
		if (nla_type(a) != KMAGLEV_A_SERVICE_BACKEND)
			continue;
		err = kmg_nl_backend_new_cfg(a, &cfg[(*n)++], extack);
		if (err)
			goto err;
	}
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(a) != KMAGLEV_A_BACKEND)
			continue;
		err = kmg_nl_backend_new_cfg(a, &cfg[(*n)++], extack);
		if (err)
			goto err;
	}
	*out = cfg;
	return 0;
err:
	kvfree(cfg);
	*n = 0;
	return err;
}

/* ---- replies ----------------------------------------------------------------------------- */

static int kmg_nl_put_addr(struct sk_buff *skb, int a4, int a6, const struct kmg_addr *addr)
{
	if (addr->family == AF_INET)
		return nla_put_in_addr(skb, a4, kmg_addr_v4(addr));
	return nla_put_in6_addr(skb, a6, &addr->in6);
}

static int kmg_nl_put_svc_key(struct sk_buff *skb, const struct kmg_service *svc)
{
	struct kmg_addr addr;

	memcpy(addr.b, svc->key.addr, sizeof(addr.b));
	addr.family = svc->key.family;
	if (nla_put_u32(skb, KMAGLEV_A_SERVICE_ID, svc->id) ||
	    kmg_nl_put_addr(skb, KMAGLEV_A_SERVICE_ADDR4, KMAGLEV_A_SERVICE_ADDR6, &addr) ||
	    nla_put_u8(skb, KMAGLEV_A_SERVICE_PROTO, svc->key.proto) ||
	    nla_put_u16(skb, KMAGLEV_A_SERVICE_PORT, ntohs(svc->key.port)))
		return -EMSGSIZE;
	return 0;
}

/* The service nest: key only, or key and settings and table state. */
static int kmg_nl_put_service(struct sk_buff *skb, const struct kmg_service *svc, bool full,
			      bool seed)
{
	const struct kmg_service_cfg *c = &svc->cfg;
	struct nlattr *nest;
	struct kmg_mig m;

	nest = nla_nest_start(skb, KMAGLEV_A_SERVICE);
	if (!nest)
		return -EMSGSIZE;
	if (kmg_nl_put_svc_key(skb, svc))
		goto err;
	if (!full)
		goto out;
	kmg_service_mig(svc, &m);
	if (nla_put_u32(skb, KMAGLEV_A_SERVICE_TABLE_SIZE, c->table_size) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_HASH, c->hash) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_FLAGS, c->flags) ||
	    (seed && nla_put(skb, KMAGLEV_A_SERVICE_SEED, sizeof(c->seed), c->seed)) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_RAMP_PCT, c->ramp_pct) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_RAMP_MS, c->ramp_ms) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_WINDOW_MS, c->window_ms) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_MAX_CONNS, c->max_conns) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_CLIENT_RATE, c->client_rate) ||
	    (c->encap_src4 && nla_put_in_addr(skb, KMAGLEV_A_SERVICE_ENCAP_SRC4, c->encap_src4)) ||
	    (!ipv6_addr_any(&c->encap_src6) &&
	     nla_put_in6_addr(skb, KMAGLEV_A_SERVICE_ENCAP_SRC6, &c->encap_src6)) ||
	    (c->owner[0] && nla_put_string(skb, KMAGLEV_A_SERVICE_OWNER, c->owner)) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_GENERATION, svc->gen) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_BACKENDS, svc->nbe) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_SERVICE_TABLE_BYTES, kmg_service_table_bytes(svc),
			      KMAGLEV_A_SERVICE_PAD) ||
	    nla_put_u32(skb, KMAGLEV_A_SERVICE_RAMP_NOW, kmg_mig_ramp_pct(&m)))
		goto err;
	if (m.has_prev) {
		const struct kmg_table *prev = rcu_dereference_protected(svc->prev, true);
		unsigned long len = kmg_mig_length_ms(m.ramp_pct, m.ramp_ms, m.window_ms);

		if (nla_put_u32(skb, KMAGLEV_A_SERVICE_PREV_GENERATION, prev->gen))
			goto err;
		if (len != ULONG_MAX &&
		    nla_put_u32(skb, KMAGLEV_A_SERVICE_WINDOW_LEFT_MS,
				len > m.elapsed_ms ? len - m.elapsed_ms : 0))
			goto err;
	}
out:
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int kmg_nl_put_stats(struct sk_buff *skb, int type, const struct kmg_stats_sum *sum,
			    u64 conns)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_PACKETS, sum->packets, KMAGLEV_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_BYTES, sum->bytes, KMAGLEV_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_NEW_FLOWS, sum->new_flows,
			      KMAGLEV_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_STATS_CONNS, conns, KMAGLEV_A_STATS_PAD)) {
		if (nest)
			nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* A backend nest of type @type; @slots < 0 leaves slots out, @stats adds counters. */
static int kmg_nl_put_backend(struct sk_buff *skb, int type, const struct kmg_backend *be,
			      s64 slots, bool stats)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	struct kmg_stats_sum sum;

	if (!nest)
		return -EMSGSIZE;
	if (kmg_nl_put_addr(skb, KMAGLEV_A_BACKEND_ADDR4, KMAGLEV_A_BACKEND_ADDR6, &be->addr) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_WEIGHT, be->weight) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_STATE, be->state) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_ENCAP, be->encap) ||
	    (be->keyed && nla_put_u32(skb, KMAGLEV_A_BACKEND_GRE_KEY, be->gre_key)) ||
	    nla_put_u32(skb, KMAGLEV_A_BACKEND_MAX_CONNS, be->max_conns) ||
	    (!be->removed && nla_put_u32(skb, KMAGLEV_A_BACKEND_ID, be->id)) ||
	    (slots >= 0 && nla_put_u32(skb, KMAGLEV_A_BACKEND_SLOTS, slots)))
		goto err;
	if (stats) {
		kmg_backend_stats(be, &sum);
		if (kmg_nl_put_stats(skb, KMAGLEV_A_BACKEND_STATS, &sum, atomic_read(&be->conns)))
			goto err;
	}
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Per-backend slot counts of the current table (kvfree), or NULL if there is no table. */
static u32 *kmg_nl_slot_counts(const struct kmg_service *svc, const struct kmg_table **tp)
{
	const struct kmg_table *t = rcu_dereference_protected(svc->cur, true);
	u32 *counts;

	*tp = t;
	if (!t || !t->nbe)
		return NULL;
	counts = kvcalloc(t->nbe, sizeof(*counts), GFP_KERNEL);
	if (counts)
		kmg_table_slot_counts(t, counts);
	return counts;
}

/*
 * Slots of a service's backends in its current table. svc->be and t->be are both sorted by
 * address, so a pass over svc->be in order walks t->be once: O(n) for all, not per backend.
 */
struct kmg_slot_walk {
	const struct kmg_table *t;
	u32 *counts;			/* slots of t->be[i]; NULL without a table */
	u32 pos;			/* t->be index: every entry before it sorts before */
};

static int kmg_slot_walk_start(struct kmg_slot_walk *w, const struct kmg_service *svc)
{
	w->counts = kmg_nl_slot_counts(svc, &w->t);
	w->pos = 0;
	return w->t && w->t->nbe && !w->counts ? -ENOMEM : 0;
}

/* Slots of @be; backends must come in address order. */
static u32 kmg_slot_walk_next(struct kmg_slot_walk *w, const struct kmg_backend *be)
{
	const struct kmg_table *t = w->t;
	u32 lo, hi;

	if (!w->counts)
		return 0;
	/* Binary search for the first step (a dump resuming mid-service), then a walk. */
	if (!w->pos) {
		lo = 0;
		hi = t->nbe;
		while (lo < hi) {
			u32 mid = lo + (hi - lo) / 2;

			if (kmg_mg_addr_cmp(t->be[mid].be->addr.b, be->addr.b) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		w->pos = lo;
	}
	while (w->pos < t->nbe && kmg_mg_addr_cmp(t->be[w->pos].be->addr.b, be->addr.b) < 0)
		w->pos++;
	return w->pos < t->nbe && t->be[w->pos].be == be ? w->counts[w->pos] : 0;
}

static void kmg_slot_walk_end(struct kmg_slot_walk *w)
{
	kvfree(w->counts);
}

static void *kmg_nl_hdr(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &kmg_family, flags, cmd);
}

static int kmg_nl_fill_service(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
			       u32 seq, int flags, u8 cmd, bool seed)
{
	void *hdr = kmg_nl_hdr(skb, portid, seq, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (kmg_nl_put_service(skb, svc, true, seed)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int kmg_nl_fill_backend(struct sk_buff *skb, const struct kmg_service *svc,
			       const struct kmg_backend *be, s64 slots, u32 portid, u32 seq,
			       int flags, u8 cmd)
{
	void *hdr = kmg_nl_hdr(skb, portid, seq, flags, cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (kmg_nl_put_service(skb, svc, false, false) ||
	    kmg_nl_put_backend(skb, KMAGLEV_A_BACKEND, be, slots, true)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* The table summary and, with @backends, the first kmg_nl_reply_backends() backends' slots. */
static int kmg_nl_fill_table(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
			     u32 seq, u8 cmd, bool backends)
{
	const struct kmg_table *t;
	struct kmg_slot_walk w;
	u32 i, mn = U32_MAX, mx = 0;
	struct nlattr *nest;
	void *hdr;
	int err;

	err = kmg_slot_walk_start(&w, svc);
	if (err)
		return err;
	t = w.t;
	err = -EMSGSIZE;
	hdr = kmg_nl_hdr(skb, portid, seq, 0, cmd);
	if (!hdr)
		goto out;
	if (kmg_nl_put_service(skb, svc, false, false))
		goto cancel;
	nest = nla_nest_start(skb, KMAGLEV_A_TABLE);
	if (!nest)
		goto cancel;
	for (i = 0; t && i < t->nbe; i++) {
		mn = min(mn, w.counts[i]);
		mx = max(mx, w.counts[i]);
	}
	if (t && (nla_put_u32(skb, KMAGLEV_A_TABLE_SIZE, t->size) ||
		  nla_put_u32(skb, KMAGLEV_A_TABLE_GENERATION, t->gen) ||
		  nla_put_u64_64bit(skb, KMAGLEV_A_TABLE_BYTES, kmg_table_bytes(t),
				    KMAGLEV_A_TABLE_PAD) ||
		  nla_put_u64_64bit(skb, KMAGLEV_A_TABLE_DIGEST, kmg_table_digest(t),
				    KMAGLEV_A_TABLE_PAD) ||
		  nla_put_u32(skb, KMAGLEV_A_TABLE_MIN_SLOTS, t->nbe ? mn : 0) ||
		  nla_put_u32(skb, KMAGLEV_A_TABLE_MAX_SLOTS, mx)))
		goto cancel;
	/* The service's backends, with 0 slots for those not in the table. */
	for (i = 0; backends && i < kmg_nl_reply_backends(svc); i++)
		if (kmg_nl_put_backend(skb, KMAGLEV_A_TABLE_BACKEND, svc->be[i],
				       kmg_slot_walk_next(&w, svc->be[i]), false))
			goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	err = 0;
	goto out;
cancel:
	genlmsg_cancel(skb, hdr);
out:
	kmg_slot_walk_end(&w);
	return err;
}

static int kmg_nl_fill_stats(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
			     u32 seq, int flags)
{
	struct kmg_stats_sum sum;
	void *hdr;
	u32 i;

	hdr = kmg_nl_hdr(skb, portid, seq, flags, KMAGLEV_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	kmg_service_stats(svc, &sum);
	if (kmg_nl_put_service(skb, svc, false, false) ||
	    kmg_nl_put_stats(skb, KMAGLEV_A_STATS, &sum, atomic_read(&svc->conns)))
		goto err;
	for (i = 0; i < kmg_nl_reply_backends(svc); i++)
		if (kmg_nl_put_backend(skb, KMAGLEV_A_BACKEND, svc->be[i], -1, true))
			goto err;
	genlmsg_end(skb, hdr);
	return 0;
err:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static bool kmg_nl_may_see_seed(struct sk_buff *skb, struct net *net)
{
	return netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN);
}

/* ---- notifications ----------------------------------------------------------------------- */

static bool kmg_nl_listeners(struct kmg_net *kn)
{
	return genl_has_listeners(&kmg_family, kn->net, KMAGLEV_NLGRP_EVENTS);
}

static void kmg_nl_multicast(struct kmg_net *kn, struct sk_buff *skb)
{
	genlmsg_multicast_netns(&kmg_family, kn->net, skb, 0, KMAGLEV_NLGRP_EVENTS, GFP_KERNEL);
}

/* A notification was lost: tell the listeners (and free what was built of it). */
static void kmg_nl_lost(struct kmg_net *kn, struct sk_buff *skb)
{
	nlmsg_free(skb);
	genl_set_err(&kmg_family, kn->net, 0, KMAGLEV_NLGRP_EVENTS, -ENOBUFS);
}

/*
 * Notifications carry the portid and sequence number of the request that caused them in their
 * header (as rtnetlink stamps its notifications), so that a listener can tell its own changes
 * from others'. Changes with no request behind them (a migration ending) carry 0 and 0. The
 * requester is not excluded from the group: a monitor also sees what it did itself. A
 * notification that cannot be built sets ENOBUFS on the listeners' sockets, so that they know
 * to dump again.
 */
static u32 kmg_ntf_portid(const struct genl_info *info)
{
	return info ? info->snd_portid : 0;
}

static u32 kmg_ntf_seq(const struct genl_info *info)
{
	return info ? info->snd_seq : 0;
}

static void kmg_notify_service(struct kmg_service *svc, u8 cmd, const struct genl_info *info)
{
	struct sk_buff *skb;

	kmg_nl_changed(svc->kn);
	if (!kmg_nl_listeners(svc->kn))
		return;
	skb = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		kmg_nl_lost(svc->kn, NULL);
		return;
	}
	if (kmg_nl_fill_service(skb, svc, kmg_ntf_portid(info), kmg_ntf_seq(info), 0, cmd,
				false)) {
		kmg_nl_lost(svc->kn, skb);
		return;
	}
	kmg_nl_multicast(svc->kn, skb);
}

static void kmg_notify_backend(struct kmg_service *svc, const struct kmg_backend *be, u8 cmd,
			       const struct genl_info *info)
{
	struct sk_buff *skb;

	kmg_nl_changed(svc->kn);
	if (!kmg_nl_listeners(svc->kn))
		return;
	skb = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		kmg_nl_lost(svc->kn, NULL);
		return;
	}
	if (kmg_nl_fill_backend(skb, svc, be, -1, kmg_ntf_portid(info), kmg_ntf_seq(info), 0,
				cmd)) {
		kmg_nl_lost(svc->kn, skb);
		return;
	}
	kmg_nl_multicast(svc->kn, skb);
}

/* The table summary only: per-backend slots are for table-get and the backend dump. */
static void kmg_notify_table_req(struct kmg_service *svc, const struct genl_info *info)
{
	struct sk_buff *skb;

	kmg_nl_changed(svc->kn);
	if (!kmg_nl_listeners(svc->kn))
		return;
	skb = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		kmg_nl_lost(svc->kn, NULL);
		return;
	}
	if (kmg_nl_fill_table(skb, svc, kmg_ntf_portid(info), kmg_ntf_seq(info),
			      KMAGLEV_CMD_TABLE_NTF, false)) {
		kmg_nl_lost(svc->kn, skb);
		return;
	}
	kmg_nl_multicast(svc->kn, skb);
}

/* A table change without a request: the end of a migration. */
void kmg_notify_table(struct kmg_service *svc)
{
	kmg_notify_table_req(svc, NULL);
}

/* ---- handlers ---------------------------------------------------------------------------- */

static struct kmg_net *kmg_info_kn(struct genl_info *info)
{
	return kmg_pernet(genl_info_net(info));
}

/*
 * Every rejection carries a message: an allocation that fails deep in a change (a backend, a
 * probe id, the service's hooks) returns -ENOMEM without one, and so do the netfilter core
 * (-E2BIG, -EBUSY from nf_register_net_hooks()) and a busy hash table or id allocator.
 */
static int kmg_nl_nomem(struct genl_info *info, int err)
{
	if (err >= 0 || info->extack->_msg)
		return err;
	if (err == -ENOMEM)
		NL_SET_ERR_MSG(info->extack, "out of memory");
	else
		NL_SET_ERR_MSG(info->extack, "the kernel refused the change (see the error code)");
	return err;
}

/* Parse the SERVICE nest of a request into @tb (required). */
static int kmg_nl_svc_tb(struct genl_info *info, struct nlattr **tb, u64 allowed)
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

int kmaglev_nl_service_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_backend_cfg *bcfg;
	struct kmg_service_cfg cfg;
	struct kmg_service *svc;
	struct kmg_svc_key key;
	u32 id, nb;
	int err;

	err = kmg_nl_svc_tb(info, tb, (KMG_SVC_KEY_ATTRS & ~BIT_ULL(KMAGLEV_A_SERVICE_ID)) |
			    KMG_SVC_CFG_ATTRS);
	if (err)
		return err;
	err = kmg_nl_svc_key(tb, info->attrs[KMAGLEV_A_SERVICE], &key, &id, info->extack);
	if (err)
		return err;
	kmg_service_cfg_default(&cfg);
	err = kmg_nl_svc_cfg(tb, &cfg, info->extack);
	if (err)
		return err;
	err = kmg_nl_backend_list(info, &bcfg, &nb);
	if (err)
		return kmg_nl_nomem(info, err);

	mutex_lock(&kn->lock);
	err = kmg_service_create(kn, &key, &cfg, bcfg, nb, &svc, info->extack);
	if (!err) {
		kmg_notify_service(svc, KMAGLEV_CMD_SERVICE_NEW_NTF, info);
		kmg_notify_table_req(svc, info);
	}
	mutex_unlock(&kn->lock);
	kvfree(bcfg);
	return kmg_nl_nomem(info, err);
}

int kmaglev_nl_service_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_backend_cfg *bcfg;
	struct kmg_service_cfg cfg;
	struct kmg_service *svc;
	bool replace, rebuilt;
	u32 nb;
	int err;

	err = kmg_nl_svc_tb(info, tb, KMG_SVC_KEY_ATTRS | KMG_SVC_CFG_ATTRS);
	if (err)
		return err;
	err = kmg_nl_backend_list(info, &bcfg, &nb);
	if (err)
		return kmg_nl_nomem(info, err);
	replace = nb || tb[KMAGLEV_A_SERVICE_REPLACE_BACKENDS];

	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	cfg = svc->cfg;
	err = kmg_nl_svc_cfg(tb, &cfg, info->extack);
	if (err)
		goto out;
	err = kmg_service_update(svc, &cfg, bcfg, nb, replace, &rebuilt, info->extack);
	if (err)
		goto out;
	kmg_notify_service(svc, KMAGLEV_CMD_SERVICE_CHANGE_NTF, info);
	if (rebuilt)
		kmg_notify_table_req(svc, info);
out:
	mutex_unlock(&kn->lock);
	kvfree(bcfg);
	return kmg_nl_nomem(info, err);
}

int kmaglev_nl_service_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_service *svc;
	int err;

	err = kmg_nl_svc_tb(info, tb, KMG_SVC_KEY_ATTRS);
	if (err)
		return err;
	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
	} else {
		kmg_notify_service(svc, KMAGLEV_CMD_SERVICE_DEL_NTF, info);
		kmg_service_destroy(svc);
		err = 0;
	}
	mutex_unlock(&kn->lock);
	return err;
}

int kmaglev_nl_service_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kmg_net *kn = kmg_info_kn(info);
	struct sk_buff *ntf;
	void *hdr;

	mutex_lock(&kn->lock);
	kmg_service_flush(kn);
	kmg_nl_changed(kn);
	/* one notification for all: a service-del each could overrun the listeners */
	if (kmg_nl_listeners(kn)) {
		ntf = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
		hdr = ntf ? kmg_nl_hdr(ntf, info->snd_portid, info->snd_seq, 0,
				       KMAGLEV_CMD_SERVICE_FLUSH_NTF) : NULL;
		if (hdr) {
			genlmsg_end(ntf, hdr);
			kmg_nl_multicast(kn, ntf);
		} else {
			kmg_nl_lost(kn, ntf);
		}
	}
	mutex_unlock(&kn->lock);
	return 0;
}

int kmaglev_nl_service_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_service *svc;
	struct sk_buff *msg;
	int err;

	err = kmg_nl_svc_tb(info, tb, KMG_SVC_KEY_ATTRS);
	if (err)
		return err;
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc))
		err = PTR_ERR(svc);
	else
		err = kmg_nl_fill_service(msg, svc, info->snd_portid, info->snd_seq, 0,
					  KMAGLEV_CMD_SERVICE_GET,
					  kmg_nl_may_see_seed(skb, kn->net));
	mutex_unlock(&kn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int kmaglev_nl_service_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kmg_net *kn = kmg_pernet(sock_net(skb->sk));
	struct kmg_dump_ctx *ctx = kmg_dump_ctx(cb);
	bool seed = kmg_nl_may_see_seed(cb->skb, kn->net);
	struct kmg_service *svc;
	unsigned long id;
	int err = 0;

	mutex_lock(&kn->lock);
	xa_for_each_start(&kn->services, id, svc, ctx->svc_id) {
		err = kmg_nl_fill_service(skb, svc, NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI,
					  KMAGLEV_CMD_SERVICE_GET, seed);
		if (err)
			break;
		ctx->svc_id = id + 1;
	}
	kmg_nl_dump_check(skb, cb, kn);
	mutex_unlock(&kn->lock);
	return err && skb->len ? skb->len : err;
}

/* SERVICE and BACKEND of a backend request. */
static int kmg_nl_backend_req(struct genl_info *info, u64 allowed, struct kmg_backend_cfg *cfg,
			      struct nlattr **tb)
{
	struct nlattr *a;
	int rem, n = 0, err;

	err = kmg_nl_svc_tb(info, tb, KMG_SVC_KEY_ATTRS);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, KMAGLEV_A_BACKEND))
		return -EINVAL;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem)
		n += nla_type(a) == KMAGLEV_A_BACKEND;
	if (n > 1) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KMAGLEV_A_BACKEND],
				    "one backend per request; use service set for many");
		return -EINVAL;
	}
	return kmg_nl_backend(info->attrs[KMAGLEV_A_BACKEND], allowed, cfg, info->extack);
}

/* backend new (@add) and set: apply one backend's configuration and tell the listeners. */
static int kmg_nl_backend_apply(struct genl_info *info, bool add)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_backend_cfg cfg;
	struct kmg_service *svc;
	bool rebuilt;
	int err, pos;

	err = kmg_nl_backend_req(info, KMG_BE_CFG_ATTRS, &cfg, tb);
	if (err)
		return err;
	if (add)
		kmg_nl_backend_defaults(&cfg);
	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	if (add)
		err = kmg_backend_add(svc, &cfg, &rebuilt, info->extack);
	else
		err = kmg_backend_change(svc, &cfg, &rebuilt, info->extack);
	if (err)
		goto out;
	pos = kmg_backend_find(svc->be, svc->nbe, cfg.addr.b);
	kmg_notify_backend(svc, svc->be[pos], add ? KMAGLEV_CMD_BACKEND_NEW_NTF :
			   KMAGLEV_CMD_BACKEND_CHANGE_NTF, info);
	if (rebuilt)
		kmg_notify_table_req(svc, info);
out:
	mutex_unlock(&kn->lock);
	return kmg_nl_nomem(info, err);
}

int kmaglev_nl_backend_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kmg_nl_backend_apply(info, true);
}

int kmaglev_nl_backend_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_backend_cfg cfg;
	struct kmg_service *svc;
	struct kmg_backend *be;
	bool rebuilt;
	int err, pos;

	err = kmg_nl_backend_req(info, KMG_BE_KEY_ATTRS, &cfg, tb);
	if (err)
		return err;
	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	pos = kmg_backend_find(svc->be, svc->nbe, cfg.addr.b);
	be = pos >= 0 ? svc->be[pos] : NULL;
	if (be)
		kmg_backend_get(be);	/* for the notification */
	err = kmg_backend_del(svc, cfg.addr.b, &rebuilt, info->extack);
	if (!err) {
		kmg_notify_backend(svc, be, KMAGLEV_CMD_BACKEND_DEL_NTF, info);
		if (rebuilt)
			kmg_notify_table_req(svc, info);
	}
	kmg_backend_put(be);
out:
	mutex_unlock(&kn->lock);
	return kmg_nl_nomem(info, err);
}

int kmaglev_nl_backend_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	return kmg_nl_backend_apply(info, false);
}

int kmaglev_nl_backend_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_backend_cfg cfg;
	struct kmg_slot_walk w;
	struct kmg_service *svc;
	struct sk_buff *msg;
	int err, pos;

	err = kmg_nl_backend_req(info, KMG_BE_KEY_ATTRS, &cfg, tb);
	if (err)
		return err;
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	pos = kmg_backend_find(svc->be, svc->nbe, cfg.addr.b);
	if (pos < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KMAGLEV_A_BACKEND],
				    "no such backend in this service");
		err = -ENOENT;
		goto out;
	}
	err = kmg_slot_walk_start(&w, svc);
	if (err)
		goto out;
	err = kmg_nl_fill_backend(msg, svc, svc->be[pos], kmg_slot_walk_next(&w, svc->be[pos]),
				  info->snd_portid, info->snd_seq, 0, KMAGLEV_CMD_BACKEND_GET);
	kmg_slot_walk_end(&w);
out:
	mutex_unlock(&kn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Index in svc->be where a dump of the service resumes: after the last backend sent. */
static u32 kmg_nl_dump_pos(const struct kmg_service *svc, const struct kmg_dump_ctx *ctx)
{
	int pos;

	if (!ctx->be_started)
		return 0;
	pos = kmg_backend_find(svc->be, svc->nbe, ctx->be_addr);
	return pos >= 0 ? pos + 1 : -pos - 1;
}

/* Dump one service's backends from the position in @ctx; -EMSGSIZE when the skb is full. */
static int kmg_nl_dump_backends(struct sk_buff *skb, struct netlink_callback *cb,
				struct kmg_service *svc, struct kmg_dump_ctx *ctx)
{
	struct kmg_slot_walk w;
	u32 i;
	int err;

	err = kmg_slot_walk_start(&w, svc);
	if (err)
		return err;
	for (i = kmg_nl_dump_pos(svc, ctx); i < svc->nbe; i++) {
		struct kmg_backend *be = svc->be[i];

		err = kmg_nl_fill_backend(skb, svc, be, kmg_slot_walk_next(&w, be),
					  NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
					  NLM_F_MULTI, KMAGLEV_CMD_BACKEND_GET);
		if (err)
			break;
		memcpy(ctx->be_addr, be->addr.b, sizeof(ctx->be_addr));
		ctx->be_started = true;
	}
	kmg_slot_walk_end(&w);
	return err;
}

int kmaglev_nl_backend_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kmg_net *kn = kmg_pernet(sock_net(skb->sk));
	struct kmg_dump_ctx *ctx = kmg_dump_ctx(cb);
	struct nlattr **attrs = kmg_dump_attrs(cb);
	struct kmg_service *svc;
	unsigned long id;
	int err = 0;

	mutex_lock(&kn->lock);
	if (attrs && attrs[KMAGLEV_A_SERVICE]) {
		struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];

		err = kmg_nl_parse_nest(tb, KMAGLEV_A_SERVICE_MAX, attrs[KMAGLEV_A_SERVICE],
					kmaglev_service_nl_policy, cb->extack);
		if (!err) {
			svc = kmg_nl_find(kn, tb, attrs[KMAGLEV_A_SERVICE], cb->extack);
			err = IS_ERR(svc) ? PTR_ERR(svc) : kmg_nl_dump_backends(skb, cb, svc, ctx);
		}
		goto out;
	}
	xa_for_each_start(&kn->services, id, svc, ctx->svc_id) {
		if (id != ctx->svc_id) {	/* a new service (or the one in progress is gone) */
			ctx->svc_id = id;
			ctx->be_started = false;
		}
		err = kmg_nl_dump_backends(skb, cb, svc, ctx);
		if (err)
			break;
		ctx->svc_id = id + 1;
		ctx->be_started = false;
	}
out:
	kmg_nl_dump_check(skb, cb, kn);
	mutex_unlock(&kn->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err;
}

/* The global-stats attribute of counter @i: in order, skipping the pad attribute. */
static __always_inline int kmg_counter_attr(int i)
{
	return KMAGLEV_A_GLOBAL_STATS_RX_PACKETS + i + (i < KMG_C_RX_INGRESS ? 0 : 1);
}

/* The netns counters, one attribute per enum kmg_counter, in the spec's order. */
static int kmg_nl_put_global(struct sk_buff *skb, struct kmg_net *kn)
{
	struct nlattr *nest;
	u64 *sum;
	int i, err = -EMSGSIZE;

	/* counters map to attributes in order; the ones after the pad attribute skip it */
	BUILD_BUG_ON(kmg_counter_attr(KMG_C_RX_INGRESS - 1) + 1 != KMAGLEV_A_GLOBAL_STATS_PAD);
	BUILD_BUG_ON(kmg_counter_attr(KMG_C_MAX - 1) != KMAGLEV_A_GLOBAL_STATS_MAX);
	sum = kcalloc(KMG_C_MAX, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	kmg_net_stats_fold(kn, sum);
	nest = nla_nest_start(skb, KMAGLEV_A_GLOBAL);
	if (!nest)
		goto out;
	for (i = 0; i < KMG_C_MAX; i++) {
		if (nla_put_u64_64bit(skb, kmg_counter_attr(i), sum[i],
				      KMAGLEV_A_GLOBAL_STATS_PAD)) {
			nla_nest_cancel(skb, nest);
			goto out;
		}
	}
	nla_nest_end(skb, nest);
	err = 0;
out:
	kfree(sum);
	return err;
}

int kmaglev_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_stats_sum sum, s;
	struct kmg_service *svc;
	struct sk_buff *msg;
	unsigned long id;
	u64 conns = 0;
	void *hdr;
	int err;

	if (info->attrs[KMAGLEV_A_SERVICE]) {
		err = kmg_nl_svc_tb(info, tb, KMG_SVC_KEY_ATTRS);
		if (err)
			return err;
	}
	mutex_lock(&kn->lock);
	if (info->attrs[KMAGLEV_A_SERVICE]) {
		svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
		if (IS_ERR(svc)) {
			err = PTR_ERR(svc);
			goto err_unlock;
		}
		msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
		if (!msg) {
			err = -ENOMEM;
			goto err_unlock;
		}
		err = kmg_nl_fill_stats(msg, svc, info->snd_portid, info->snd_seq, 0);
		goto done;
	}
	/* The whole netns: the sum over its services, and the packet path's counters. */
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_unlock;
	}
	memset(&sum, 0, sizeof(sum));
	xa_for_each(&kn->services, id, svc) {
		kmg_service_stats(svc, &s);
		sum.packets += s.packets;
		sum.bytes += s.bytes;
		sum.new_flows += s.new_flows;
		conns += atomic_read(&svc->conns);
	}
	err = -EMSGSIZE;
	hdr = kmg_nl_hdr(msg, info->snd_portid, info->snd_seq, 0, KMAGLEV_CMD_STATS_GET);
	if (hdr && !kmg_nl_put_stats(msg, KMAGLEV_A_STATS, &sum, conns) &&
	    !kmg_nl_put_global(msg, kn)) {
		genlmsg_end(msg, hdr);
		err = 0;
	}
done:
	mutex_unlock(&kn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
err_unlock:
	mutex_unlock(&kn->lock);
	return err;
}

/*
 * One service's counters in the stats dump, from the position in @ctx: as many messages as it
 * takes, each with the service key and the next backends; the first also carries the service's
 * own counters. -EMSGSIZE when the skb is full.
 */
static int kmg_nl_dump_stats(struct sk_buff *skb, struct netlink_callback *cb,
			     struct kmg_service *svc, struct kmg_dump_ctx *ctx)
{
	struct kmg_stats_sum sum;
	u32 i = kmg_nl_dump_pos(svc, ctx);
	bool more = true;
	int n = 0;
	void *hdr;

	while (more) {
		hdr = kmg_nl_hdr(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, NLM_F_MULTI,
				 KMAGLEV_CMD_STATS_GET);
		if (!hdr || kmg_nl_put_service(skb, svc, false, false))
			goto cancel;
		if (!ctx->svc_started) {
			kmg_service_stats(svc, &sum);
			if (kmg_nl_put_stats(skb, KMAGLEV_A_STATS, &sum, atomic_read(&svc->conns)))
				goto cancel;
		}
		for (n = 0; i < svc->nbe; i++, n++) {
			struct kmg_backend *be = svc->be[i];

			if (kmg_nl_put_backend(skb, KMAGLEV_A_BACKEND, be, -1, true))
				break;
			memcpy(ctx->be_addr, be->addr.b, sizeof(ctx->be_addr));
			ctx->be_started = true;
		}
		more = i < svc->nbe;
		/*
		 * A continuation without a single backend is no message: the skb is full, or
		 * (the backends after the last one sent were deleted meanwhile) the service is
		 * done.
		 */
		if (ctx->svc_started && !n) {
			if (more)
				goto cancel;
			genlmsg_cancel(skb, hdr);
			return 0;
		}
		genlmsg_end(skb, hdr);
		ctx->svc_started = true;
	}
	return 0;
cancel:
	if (hdr)
		genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int kmaglev_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kmg_net *kn = kmg_pernet(sock_net(skb->sk));
	struct kmg_dump_ctx *ctx = kmg_dump_ctx(cb);
	struct kmg_service *svc;
	unsigned long id;
	int err = 0;

	mutex_lock(&kn->lock);
	xa_for_each_start(&kn->services, id, svc, ctx->svc_id) {
		if (id != ctx->svc_id) {	/* a new service (or the one in progress is gone) */
			ctx->svc_id = id;
			ctx->be_started = false;
			ctx->svc_started = false;
		}
		err = kmg_nl_dump_stats(skb, cb, svc, ctx);
		if (err)
			break;
		ctx->svc_id = id + 1;
		ctx->be_started = false;
		ctx->svc_started = false;
	}
	kmg_nl_dump_check(skb, cb, kn);
	mutex_unlock(&kn->lock);
	return err && skb->len ? skb->len : err;
}

int kmaglev_nl_table_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_SERVICE_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct kmg_service *svc;
	struct sk_buff *msg = NULL;
	int err;

	err = kmg_nl_svc_tb(info, tb, KMG_SVC_KEY_ATTRS);
	if (err)
		return err;
	mutex_lock(&kn->lock);
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = kmg_nl_fill_table(msg, svc, info->snd_portid, info->snd_seq,
				KMAGLEV_CMD_TABLE_GET, true);
out:
	mutex_unlock(&kn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int kmaglev_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kmg_net *kn = kmg_info_kn(info);
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = kmg_nl_hdr(msg, info->snd_portid, info->snd_seq, 0, KMAGLEV_CMD_CONFIG_GET);
	if (!hdr)
		goto err;
	nest = nla_nest_start(msg, KMAGLEV_A_CONFIG);
	if (!nest)
		goto err;
	mutex_lock(&kn->lock);
	if (nla_put_u32(msg, KMAGLEV_A_CONFIG_MAX_SERVICES, kn->max_services) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_MAX_BACKENDS, kn->max_backends) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_SERVICES, kn->nservices) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_BACKENDS, kn->nbackends) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_CONN_MAX, kn->ccfg.conn_max) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_CONNS, kmg_conn_count(kn)) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, kn->ccfg.timeout_tcp_syn) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, kn->ccfg.timeout_tcp_est) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, kn->ccfg.timeout_tcp_fin) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_TIMEOUT_UDP, kn->ccfg.timeout_udp) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_FLOOD_RATE, kn->ccfg.flood_rate) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_PROBE_MARK_MIN, kn->ccfg.probe_mark_min) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_PROBE_MARK_MAX, kn->ccfg.probe_mark_max) ||
	    nla_put_u32(msg, KMAGLEV_A_CONFIG_HOOK, kn->ingress.hook) ||
	    nla_put_string(msg, KMAGLEV_A_CONFIG_INGRESS_DEV, kn->ingress.devs)) {
		mutex_unlock(&kn->lock);
		goto err;
	}
	mutex_unlock(&kn->lock);
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static void kmg_nl_cfg_u32(struct nlattr **tb, int type, u32 *v)
{
	if (tb[type])
		*v = nla_get_u32(tb[type]);
}

/* Sizes a user namespace's root may ask for are capped (limits.c). */
static int kmg_nl_cfg_limits(struct kmg_net *kn, struct nlattr **tb,
			     const struct kmg_conn_cfg *cc, struct netlink_ext_ack *extack)
{
	struct nlattr *a;
	int err;

	a = tb[KMAGLEV_A_CONFIG_MAX_SERVICES];
	if (a) {
		err = kmg_limit_check(kn, KMG_LIMIT_SERVICES, nla_get_u32(a), a, extack);
		if (err)
			return err;
	}
	a = tb[KMAGLEV_A_CONFIG_MAX_BACKENDS];
	if (a) {
		err = kmg_limit_check(kn, KMG_LIMIT_BACKENDS, nla_get_u32(a), a, extack);
		if (err)
			return err;
	}
	a = tb[KMAGLEV_A_CONFIG_CONN_MAX];
	return a ? kmg_limit_check(kn, KMG_LIMIT_CONNS, cc->conn_max, a, extack) : 0;
}

int kmaglev_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[KMAGLEV_A_CONFIG_MAX + 1];
	struct kmg_net *kn = kmg_info_kn(info);
	struct nlattr *a, *ahook, *adev;
	struct kmg_conn_cfg cc;
	const char *devs;
	u32 hook;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, KMAGLEV_A_CONFIG))
		return -EINVAL;
	err = kmg_nl_parse_nest(tb, KMAGLEV_A_CONFIG_MAX, info->attrs[KMAGLEV_A_CONFIG],
				kmaglev_config_nl_policy, info->extack);
	if (err)
		return err;
	a = kmg_nl_extra(tb, KMAGLEV_A_CONFIG_MAX, ~(BIT_ULL(KMAGLEV_A_CONFIG_SERVICES) |
						     BIT_ULL(KMAGLEV_A_CONFIG_BACKENDS) |
						     BIT_ULL(KMAGLEV_A_CONFIG_CONNS)));
	if (a) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "config attribute is read-only");
		return -EINVAL;
	}
	mutex_lock(&kn->lock);
	cc = kn->ccfg;
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_CONN_MAX, &cc.conn_max);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN, &cc.timeout_tcp_syn);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST, &cc.timeout_tcp_est);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN, &cc.timeout_tcp_fin);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_TIMEOUT_UDP, &cc.timeout_udp);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_FLOOD_RATE, &cc.flood_rate);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_PROBE_MARK_MIN, &cc.probe_mark_min);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_PROBE_MARK_MAX, &cc.probe_mark_max);
	if (cc.probe_mark_min > cc.probe_mark_max) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KMAGLEV_A_CONFIG_PROBE_MARK_MIN] ?:
				    tb[KMAGLEV_A_CONFIG_PROBE_MARK_MAX],
				    "config probe-mark-min is above probe-mark-max");
		mutex_unlock(&kn->lock);
		return -EINVAL;
	}
	err = kmg_nl_cfg_limits(kn, tb, &cc, info->extack);
	if (err) {
		mutex_unlock(&kn->lock);
		return err;
	}
	/* the hook setting last: the only change that can fail, all or nothing itself */
	ahook = tb[KMAGLEV_A_CONFIG_HOOK];
	adev = tb[KMAGLEV_A_CONFIG_INGRESS_DEV];
	if (ahook || adev) {
		hook = ahook ? nla_get_u32(ahook) : kn->ingress.hook;
		devs = adev ? nla_data(adev) : kn->ingress.devs;
		err = kmg_ingress_check(hook, devs, ahook, adev ?: ahook, info->extack) ?:
		      kmg_ingress_set(kn, hook, devs, info->extack);
		if (err) {
			mutex_unlock(&kn->lock);
			return err;
		}
	}
	if (tb[KMAGLEV_A_CONFIG_MAX_SERVICES])
		kn->max_services = nla_get_u32(tb[KMAGLEV_A_CONFIG_MAX_SERVICES]);
	if (tb[KMAGLEV_A_CONFIG_MAX_BACKENDS])
		kn->max_backends = nla_get_u32(tb[KMAGLEV_A_CONFIG_MAX_BACKENDS]);
	WRITE_ONCE(kn->ccfg.conn_max, cc.conn_max);
	WRITE_ONCE(kn->ccfg.timeout_tcp_syn, cc.timeout_tcp_syn);
	WRITE_ONCE(kn->ccfg.timeout_tcp_est, cc.timeout_tcp_est);
	WRITE_ONCE(kn->ccfg.timeout_tcp_fin, cc.timeout_tcp_fin);
	WRITE_ONCE(kn->ccfg.timeout_udp, cc.timeout_udp);
	WRITE_ONCE(kn->ccfg.flood_rate, cc.flood_rate);
	kn->ccfg.probe_mark_min = cc.probe_mark_min;
	kn->ccfg.probe_mark_max = cc.probe_mark_max;
	/* the packet path reads the range in one word: never half of an old one */
	WRITE_ONCE(kn->ccfg.probe_marks, (u64)cc.probe_mark_min << 32 | cc.probe_mark_max);
	kmg_nl_changed(kn);
	mutex_unlock(&kn->lock);
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
