/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev generic netlink: what the family's files share, and nothing outside them includes.
 * netlink.c has the family and the helpers of every handler; netlink_reply.c builds replies;
 * netlink_notify.c sends notifications; netlink_service.c, netlink_backend.c,
 * netlink_stats.c and netlink_config.c have the handlers of the generated op table
 * (netlink-gen.h).
 *
 * Each handler works under the netns' kn->lock. Every rejection carries an extack message
 * naming the attribute, and leaves state unchanged.
 */
#ifndef _KMAGLEV_NETLINK_H
#define _KMAGLEV_NETLINK_H

#include <linux/bits.h>
#include <linux/in6.h>
#include <linux/kmaglev.h>
#include <linux/types.h>
#include <net/genetlink.h>

struct kmg_addr;
struct kmg_backend;
struct kmg_backend_cfg;
struct kmg_net;
struct kmg_service;
struct kmg_stats_sum;
struct kmg_svc_key;
struct kmg_table;

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
			   BIT_ULL(KMAGLEV_A_SERVICE_CRITICALITY) | \
			   BIT_ULL(KMAGLEV_A_SERVICE_OVERLOAD) | \
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

/* Dump position, kept in cb->ctx between the messages of a dump. */
struct kmg_dump_ctx {
	unsigned long svc_id;		/* service being dumped, or the next one */
	u8 be_addr[16];			/* last backend dumped in that service */
	bool be_started;
	bool svc_started;		/* stats dump: the service's own counters are sent */
	u32 filter_id;			/* backend dump of one service */
};

/*
 * Slots of a service's backends in its current table. svc->be and t->be are both sorted by
 * address, so a pass over svc->be in order walks t->be once: O(n) for all, not per backend.
 */
struct kmg_slot_walk {
	const struct kmg_table *t;
	u32 *counts;			/* slots of t->be[i]; NULL without a table */
	u32 pos;			/* t->be index: every entry before it sorts before */
};

/* netlink.c */
struct kmg_dump_ctx *kmg_dump_ctx(struct netlink_callback *cb);
void kmg_nl_changed(struct kmg_net *kn);
void kmg_nl_dump_check(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct kmg_net *kn);
struct nlattr *kmg_nl_extra(struct nlattr **tb, int max, u64 allowed);
bool kmg_v4_unicast(__be32 a);
bool kmg_v6_unicast(const struct in6_addr *a);
int kmg_nl_addr(struct nlattr *a4, struct nlattr *a6, struct kmg_addr *addr,
		struct netlink_ext_ack *extack);
int kmg_nl_parse_nest(struct nlattr **tb, int max, struct nlattr *nest,
		      const struct nla_policy *policy, struct netlink_ext_ack *extack);
int kmg_nl_svc_key(struct nlattr **tb, struct nlattr *nest, struct kmg_svc_key *key,
		   u32 *id, struct netlink_ext_ack *extack);
struct kmg_service *kmg_nl_find(struct kmg_net *kn, struct nlattr **tb, struct nlattr *nest,
				struct netlink_ext_ack *extack);
void *kmg_nl_hdr(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd);
bool kmg_nl_listeners(struct kmg_net *kn);
void kmg_nl_multicast(struct kmg_net *kn, struct sk_buff *skb);
void kmg_nl_notify(struct sk_buff *skb, struct genl_info *info);
void kmg_nl_lost(struct kmg_net *kn, struct sk_buff *skb);
struct kmg_net *kmg_info_kn(struct genl_info *info);
int kmg_nl_nomem(struct genl_info *info, int err);
int kmg_nl_reply(struct genl_info *info, struct sk_buff *msg, int err);
int kmg_nl_svc_tb(struct genl_info *info, struct nlattr **tb, u64 allowed);

/* netlink_notify.c */
void kmg_notify_service(struct kmg_service *svc, u8 cmd, struct genl_info *info);
void kmg_notify_backend(struct kmg_service *svc, const struct kmg_backend *be, u8 cmd,
			struct genl_info *info);
void kmg_notify_table_req(struct kmg_service *svc, struct genl_info *info);
void kmg_notify_flush(struct kmg_net *kn, struct genl_info *info);

/* netlink_reply.c */
int kmg_nl_put_service(struct sk_buff *skb, const struct kmg_service *svc, bool full,
		       bool seed);
int kmg_nl_put_stats(struct sk_buff *skb, int type, const struct kmg_stats_sum *sum,
		     u64 conns);
int kmg_nl_put_backend(struct sk_buff *skb, int type, const struct kmg_backend *be,
		       s64 slots, bool stats);
int kmg_slot_walk_start(struct kmg_slot_walk *w, const struct kmg_service *svc);
u32 kmg_slot_walk_next(struct kmg_slot_walk *w, const struct kmg_backend *be);
void kmg_slot_walk_end(struct kmg_slot_walk *w);
int kmg_nl_fill_service(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
			u32 seq, int flags, u8 cmd, bool seed);
int kmg_nl_fill_backend(struct sk_buff *skb, const struct kmg_service *svc,
			const struct kmg_backend *be, s64 slots, u32 portid, u32 seq,
			int flags, u8 cmd);
int kmg_nl_fill_table(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
		      u32 seq, u8 cmd, bool backends);
int kmg_nl_fill_stats(struct sk_buff *skb, const struct kmg_service *svc, u32 portid,
		      u32 seq, int flags);
bool kmg_nl_may_see_seed(struct sk_buff *skb, struct net *net);

/* netlink_backend.c */
int kmg_nl_backend_new_cfg(struct nlattr *nest, struct kmg_backend_cfg *cfg,
			   struct netlink_ext_ack *extack);
u32 kmg_nl_dump_pos(const struct kmg_service *svc, const struct kmg_dump_ctx *ctx);
int kmg_nl_dump_services(struct sk_buff *skb, struct netlink_callback *cb, struct kmg_net *kn,
			 int (*dump_one)(struct sk_buff *skb, struct netlink_callback *cb,
					 struct kmg_service *svc, struct kmg_dump_ctx *ctx));

#endif /* _KMAGLEV_NETLINK_H */
