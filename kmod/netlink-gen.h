/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/kmaglev.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_KMAGLEV_GEN_H
#define _LINUX_KMAGLEV_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/kmaglev.h>

/* Common nested types */
extern const struct nla_policy kmaglev_backend_nl_policy[KMAGLEV_A_BACKEND_STATS + 1];
extern const struct nla_policy kmaglev_config_nl_policy[KMAGLEV_A_CONFIG_SHED_TRANSITIONS + 1];
extern const struct nla_policy kmaglev_service_nl_policy[KMAGLEV_A_SERVICE_OVERLOAD + 1];
extern const struct nla_policy kmaglev_stats_nl_policy[KMAGLEV_A_STATS_PAD + 1];

/* Ops table for kmaglev */
extern const struct genl_split_ops kmaglev_nl_ops[17];
extern const struct genl_multicast_group kmaglev_nl_mcgrps[1];

int kmg_nl_quota_dump_start(struct netlink_callback *cb);
int kmg_nl_quota_dump_done(struct netlink_callback *cb);

int kmaglev_nl_service_new_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_service_del_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_service_set_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_service_get_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_service_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int kmaglev_nl_service_flush_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_backend_new_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_backend_del_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_backend_set_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_backend_get_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_backend_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int kmaglev_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_stats_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int kmaglev_nl_table_get_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info);
int kmaglev_nl_quota_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);

enum {
	KMAGLEV_NLGRP_EVENTS,
};

#endif /* _LINUX_KMAGLEV_GEN_H */
