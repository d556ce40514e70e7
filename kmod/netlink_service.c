// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink service ops: service new, set, del, flush and get (do and dump),
 * and the parsing of a service's settings and of its backend list.
 */
#include <linux/mm.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "backend.h"
#include "compat.h"
#include "maglev.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "netns.h"
#include "service.h"

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
	if (tb[KMAGLEV_A_SERVICE_CRITICALITY])
		cfg->criticality = nla_get_u32(tb[KMAGLEV_A_SERVICE_CRITICALITY]);
	if (tb[KMAGLEV_A_SERVICE_OVERLOAD])
		cfg->overload = nla_get_u32(tb[KMAGLEV_A_SERVICE_OVERLOAD]);
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

	mutex_lock(&kn->lock);
	kmg_service_flush(kn);
	kmg_notify_flush(kn, info);
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
	return kmg_nl_reply(info, msg, err);
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
