// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink quota-get: a dump of the netns' quota table (quota.c), one bucket
 * per message. The dump walks the rhashtable with an iterator that lives from the dump's
 * start to its done callback; between dumpit calls it is stopped (no RCU held), and a resize
 * or removal in between may make the dump miss or repeat buckets, as the spec says.
 */
#include <linux/jiffies.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "compat.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "netns.h"
#include "quota.h"

int kmg_nl_quota_dump_start(struct netlink_callback *cb)
{
	struct kmg_net *kn = kmg_pernet(sock_net(cb->skb->sk));
	struct rhashtable_iter *iter;

	iter = kmalloc(sizeof(*iter), GFP_KERNEL_ACCOUNT);
	if (!iter)
		return -ENOMEM;
	rhashtable_walk_enter(&kn->quotas.ht, iter);
	cb->args[0] = (long)iter;
	return 0;
}

int kmg_nl_quota_dump_done(struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];

	if (iter) {
		rhashtable_walk_exit(iter);
		kfree(iter);
	}
	return 0;
}

/* New flows the bucket lets through now, under the settings in force (none: 0). */
static u32 kmg_quota_tokens(const struct kmg_quota *q, const struct kmg_quota_cfg *cfg,
			    u64 now)
{
	u64 ahead = max_t(u64, atomic64_read(&q->tat), now) - now;

	if (!cfg || ahead >= cfg->limit_ns)
		return 0;
	return div64_u64(cfg->limit_ns - ahead, cfg->interval_ns);
}

static int kmg_nl_fill_quota(struct sk_buff *skb, const struct kmg_quota *q,
			     const struct kmg_quota_cfg *cfg, u32 portid, u32 seq)
{
	unsigned long j = jiffies, last = READ_ONCE(q->last);
	struct nlattr *nest;
	void *hdr;

	hdr = kmg_nl_hdr(skb, portid, seq, NLM_F_MULTI, KMAGLEV_CMD_QUOTA_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, KMAGLEV_A_QUOTA);
	if (!nest)
		goto err;
	if ((q->key.family == AF_INET ?
	     nla_put_in_addr(skb, KMAGLEV_A_QUOTA_ADDR4, q->key.addr[0]) :
	     nla_put(skb, KMAGLEV_A_QUOTA_ADDR6, 16, q->key.addr)) ||
	    nla_put_u8(skb, KMAGLEV_A_QUOTA_PREFIX_LEN, q->key.plen) ||
	    (q->key.scoped && nla_put_u32(skb, KMAGLEV_A_QUOTA_SERVICE_ID, q->key.svc_id)) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_QUOTA_ACCEPTED, atomic64_read(&q->accepted),
			      KMAGLEV_A_QUOTA_PAD) ||
	    nla_put_u64_64bit(skb, KMAGLEV_A_QUOTA_REJECTED, atomic64_read(&q->rejected),
			      KMAGLEV_A_QUOTA_PAD) ||
	    nla_put_u32(skb, KMAGLEV_A_QUOTA_TOKENS,
			kmg_quota_tokens(q, cfg, kmg_quota_now())) ||
	    nla_put_u32(skb, KMAGLEV_A_QUOTA_IDLE_MS,
			time_after(j, last) ? jiffies_to_msecs(j - last) : 0))
		goto err;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
err:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int kmaglev_nl_quota_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];
	struct kmg_net *kn = kmg_pernet(sock_net(skb->sk));
	const struct kmg_quota_cfg *cfg;
	struct kmg_quota *q;
	int err = 0;

	rhashtable_walk_start(iter);
	cfg = rcu_dereference(kn->quotas.cfg);
	/* peek: the bucket a full message stopped at is sent first */
	for (q = rhashtable_walk_peek(iter); q; q = rhashtable_walk_next(iter)) {
		if (IS_ERR(q)) {
			if (PTR_ERR(q) == -EAGAIN)
				continue;	/* a resize: the walk goes on, maybe repeating */
			err = PTR_ERR(q);
			break;
		}
		err = kmg_nl_fill_quota(skb, q, cfg, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq);
		if (err)
			break;
	}
	rhashtable_walk_stop(iter);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}
