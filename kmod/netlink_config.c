// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink config-get and config-set: the netns' settings, their caps in a
 * user namespace (limits.c), and the hook mode (ingress.c).
 */
#include <net/genetlink.h>

#include "compat.h"
#include "conn.h"
#include "ingress.h"
#include "limit.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "netns.h"
#include "quota.h"
#include "shed.h"

static int kmg_nl_put_quota(struct sk_buff *msg, struct kmg_net *kn)
{
	const struct kmg_quota_set *q = &kn->quotas.set;

	return nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_RATE, q->rate) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_BURST, q->burst) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_PREFIX4, q->prefix4) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_PREFIX6, q->prefix6) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_SCOPE, q->scope) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_ACTION, q->action) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTA_MAX, q->max) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_QUOTAS, kmg_quota_count(kn));
}

static int kmg_nl_put_shed(struct sk_buff *msg, struct kmg_net *kn)
{
	const struct kmg_shed_set *s = &kn->shed.set;

	return nla_put(msg, KMAGLEV_A_CONFIG_DSCP_MAP, sizeof(s->map), s->map) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHED_CLASS, s->shed_class) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHED_CONN_FILL, s->conn_fill) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHED_NEW_RATE, s->new_rate) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH, s->load_high) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHED_LOAD_LOW, s->load_low) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_LOAD, s->load_high ? kmg_shed_load() : 0) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHEDDING, kmg_shed_reasons(kn)) ||
	       nla_put_u32(msg, KMAGLEV_A_CONFIG_SHED_TRANSITIONS, kmg_shed_transitions(kn));
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
	    nla_put_string(msg, KMAGLEV_A_CONFIG_INGRESS_DEV, kn->ingress.devs) ||
	    kmg_nl_put_quota(msg, kn) || kmg_nl_put_shed(msg, kn)) {
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
	a = tb[KMAGLEV_A_CONFIG_QUOTA_MAX];
	if (a) {
		err = kmg_limit_check(kn, KMG_LIMIT_QUOTAS, nla_get_u32(a), a, extack);
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
	struct kmg_quota_cfg *qcfg;
	struct kmg_quota_set qset;
	struct kmg_shed_set sset;
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
						     BIT_ULL(KMAGLEV_A_CONFIG_CONNS) |
						     BIT_ULL(KMAGLEV_A_CONFIG_QUOTAS) |
						     BIT_ULL(KMAGLEV_A_CONFIG_LOAD) |
						     BIT_ULL(KMAGLEV_A_CONFIG_SHEDDING) |
						     BIT_ULL(KMAGLEV_A_CONFIG_SHED_TRANSITIONS)));
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
	qset = kn->quotas.set;
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_RATE, &qset.rate);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_BURST, &qset.burst);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_PREFIX4, &qset.prefix4);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_PREFIX6, &qset.prefix6);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_SCOPE, &qset.scope);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_ACTION, &qset.action);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_QUOTA_MAX, &qset.max);
	sset = kn->shed.set;
	if (tb[KMAGLEV_A_CONFIG_DSCP_MAP])
		nla_memcpy(sset.map, tb[KMAGLEV_A_CONFIG_DSCP_MAP], sizeof(sset.map));
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_SHED_CLASS, &sset.shed_class);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_SHED_CONN_FILL, &sset.conn_fill);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_SHED_NEW_RATE, &sset.new_rate);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH, &sset.load_high);
	kmg_nl_cfg_u32(tb, KMAGLEV_A_CONFIG_SHED_LOAD_LOW, &sset.load_low);
	err = kmg_shed_check_set(&sset, tb, info->extack);
	if (err) {
		mutex_unlock(&kn->lock);
		return err;
	}
	err = kmg_quota_prepare(kn, &qset, &qcfg, tb[KMAGLEV_A_CONFIG_QUOTA_ACTION],
				info->extack);
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
			kfree(qcfg);
			return err;
		}
	}
	kmg_quota_commit(kn, &qset, qcfg);
	kmg_shed_apply(kn, &sset);
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
