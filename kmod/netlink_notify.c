// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev generic netlink notifications: the events group's messages about services,
 * backends and tables, sent under the netns' kn->lock as changes are made.
 */
#include <net/genetlink.h>

#include "kmaglev.h"
#include "netlink.h"
#include "service.h"

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

void kmg_notify_service(struct kmg_service *svc, u8 cmd, const struct genl_info *info)
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

void kmg_notify_backend(struct kmg_service *svc, const struct kmg_backend *be, u8 cmd,
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
void kmg_notify_table_req(struct kmg_service *svc, const struct genl_info *info)
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
