// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink stats-get (do and dump) and table-get: the counters of the netns,
 * of its services and of their backends, and a service's current table.
 */
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "backend.h"
#include "compat.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "netns.h"
#include "service.h"
#include "stats.h"

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
	return kmg_nl_reply(info, msg, err);
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
	int err;

	mutex_lock(&kn->lock);
	err = kmg_nl_dump_services(skb, cb, kn, kmg_nl_dump_stats);
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
	return kmg_nl_reply(info, msg, err);
}
