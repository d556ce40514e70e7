// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink backend ops: backend new, set, del and get (do and dump), the
 * parsing of a backend nest, which service requests use too, and the resumable walk over a
 * netns' services that the backend and stats dumps share.
 */
#include <net/genetlink.h>
#include <net/sock.h>

#include "backend.h"
#include "compat.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "netns.h"
#include "service.h"

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

int kmg_nl_backend_new_cfg(struct nlattr *nest, struct kmg_backend_cfg *cfg,
			   struct netlink_ext_ack *extack)
{
	int err = kmg_nl_backend(nest, KMG_BE_CFG_ATTRS, cfg, extack);

	if (!err)
		kmg_nl_backend_defaults(cfg);
	return err;
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

/*
 * The service a backend request names (@tb and @cfg from kmg_nl_backend_req()), or an ERR_PTR
 * with the extack set; and in *@be the service's backend at @cfg's address, NULL if it has
 * none there (or on an error). Called with kn->lock held.
 */
static struct kmg_service *kmg_nl_backend_lookup(struct kmg_net *kn, struct genl_info *info,
						 struct nlattr **tb,
						 const struct kmg_backend_cfg *cfg,
						 struct kmg_backend **be)
{
	struct kmg_service *svc;
	int pos;

	*be = NULL;
	svc = kmg_nl_find(kn, tb, info->attrs[KMAGLEV_A_SERVICE], info->extack);
	if (IS_ERR(svc))
		return svc;
	pos = kmg_backend_find(svc->be, svc->nbe, cfg->addr.b);
	*be = pos >= 0 ? svc->be[pos] : NULL;
	return svc;
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
	int err;

	err = kmg_nl_backend_req(info, KMG_BE_KEY_ATTRS, &cfg, tb);
	if (err)
		return err;
	mutex_lock(&kn->lock);
	svc = kmg_nl_backend_lookup(kn, info, tb, &cfg, &be);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
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
	struct kmg_backend *be;
	struct sk_buff *msg;
	int err;

	err = kmg_nl_backend_req(info, KMG_BE_KEY_ATTRS, &cfg, tb);
	if (err)
		return err;
	msg = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&kn->lock);
	svc = kmg_nl_backend_lookup(kn, info, tb, &cfg, &be);
	if (IS_ERR(svc)) {
		err = PTR_ERR(svc);
		goto out;
	}
	if (!be) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KMAGLEV_A_BACKEND],
				    "no such backend in this service");
		err = -ENOENT;
		goto out;
	}
	err = kmg_slot_walk_start(&w, svc);
	if (err)
		goto out;
	err = kmg_nl_fill_backend(msg, svc, be, kmg_slot_walk_next(&w, be), info->snd_portid,
				  info->snd_seq, 0, KMAGLEV_CMD_BACKEND_GET);
	kmg_slot_walk_end(&w);
out:
	mutex_unlock(&kn->lock);
	return kmg_nl_reply(info, msg, err);
}

/* Index in svc->be where a dump of the service resumes: after the last backend sent. */
u32 kmg_nl_dump_pos(const struct kmg_service *svc, const struct kmg_dump_ctx *ctx)
{
	int pos;

	if (!ctx->be_started)
		return 0;
	pos = kmg_backend_find(svc->be, svc->nbe, ctx->be_addr);
	return pos >= 0 ? pos + 1 : -pos - 1;
}

/* The dump's position: at the start of service @id, nothing of it sent yet. */
static void kmg_nl_dump_at(struct kmg_dump_ctx *ctx, unsigned long id)
{
	ctx->svc_id = id;
	ctx->be_started = false;
	ctx->svc_started = false;
}

/*
 * A dump of the netns' services, in id order from the one in @ctx, that resumes where its last
 * part stopped: @dump_one sends one service's messages from its position in @ctx and returns
 * -EMSGSIZE when the skb is full (or another error), which ends the walk and is returned.
 * Called with kn->lock held.
 */
int kmg_nl_dump_services(struct sk_buff *skb, struct netlink_callback *cb, struct kmg_net *kn,
			 int (*dump_one)(struct sk_buff *skb, struct netlink_callback *cb,
					 struct kmg_service *svc, struct kmg_dump_ctx *ctx))
{
	struct kmg_dump_ctx *ctx = kmg_dump_ctx(cb);
	struct kmg_service *svc;
	unsigned long id;
	int err = 0;

	xa_for_each_start(&kn->services, id, svc, ctx->svc_id) {
		if (id != ctx->svc_id)	/* a new service (or the one in progress is gone) */
			kmg_nl_dump_at(ctx, id);
		err = dump_one(skb, cb, svc, ctx);
		if (err)
			break;
		kmg_nl_dump_at(ctx, id + 1);
	}
	return err;
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
	int err;

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
	err = kmg_nl_dump_services(skb, cb, kn, kmg_nl_dump_backends);
out:
	kmg_nl_dump_check(skb, cb, kn);
	mutex_unlock(&kn->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err;
}
