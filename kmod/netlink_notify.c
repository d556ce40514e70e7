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
 * from others'. Changes with no request behind them (a migration ending) carry 0 and 0.
 * Without NLM_F_ECHO the requester is not excluded from the group: a monitor also sees what
 * it did itself. With it (genl_notify()), the requesting socket gets each notification it
 * caused once, by unicast before its ACK, and is left out of the multicast: "kmaglev -j
 * service add" prints what the kernel made. The echo is what the group gets: no seed. A
 * notification that cannot be built sets ENOBUFS on the listeners' sockets, so that they know
 * to dump again, and a lost echo says so in the request's extack (a warning on its ACK).
 */
static u32 kmg_ntf_portid(const struct genl_info *info)
{
	return info ? info->snd_portid : 0;
}

static u32 kmg_ntf_seq(const struct genl_info *info)
{
	return info ? info->snd_seq : 0;
}

/* The request behind a notification asked for it (NLM_F_ECHO). */
static bool kmg_ntf_echo(const struct genl_info *info)
{
	return info && nlmsg_report(info->nlhdr);
}

/*
 * The skb of a notification, or NULL when there is none to build: the change is counted
 * (kmg_nl_changed()), and nothing is allocated when nobody listens and the request did not ask
 * for an echo; an allocation that fails is reported to the listeners as a loss. Called with
 * kn->lock held.
 */
static struct sk_buff *kmg_ntf_new(struct kmg_net *kn, const struct genl_info *info)
{
	struct sk_buff *skb;

	kmg_nl_changed(kn);
	if (!kmg_nl_listeners(kn) && !kmg_ntf_echo(info))
		return NULL;
	skb = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		kmg_nl_lost(kn, NULL);
		if (kmg_ntf_echo(info))
			NL_SET_ERR_MSG(info->extack, "echo lost: out of memory");
	}
	return skb;
}

/*
 * Send the notification in @skb to the listeners, and to the requester when it asked for an
 * echo; if filling it failed (@err), free it and report the loss instead. Called with
 * kn->lock held.
 */
static void kmg_ntf_send(struct kmg_net *kn, struct sk_buff *skb, int err,
			 struct genl_info *info)
{
	if (err) {
		kmg_nl_lost(kn, skb);
		if (kmg_ntf_echo(info))
			NL_SET_ERR_MSG(info->extack, "echo lost: notification too large");
	} else if (kmg_ntf_echo(info)) {
		kmg_nl_notify(skb, info);
	} else {
		kmg_nl_multicast(kn, skb);
	}
}

void kmg_notify_service(struct kmg_service *svc, u8 cmd, struct genl_info *info)
{
	struct sk_buff *skb = kmg_ntf_new(svc->kn, info);

	if (!skb)
		return;
	kmg_ntf_send(svc->kn, skb, kmg_nl_fill_service(skb, svc, kmg_ntf_portid(info),
						       kmg_ntf_seq(info), 0, cmd, false), info);
}

void kmg_notify_backend(struct kmg_service *svc, const struct kmg_backend *be, u8 cmd,
			struct genl_info *info)
{
	struct sk_buff *skb = kmg_ntf_new(svc->kn, info);

	if (!skb)
		return;
	kmg_ntf_send(svc->kn, skb, kmg_nl_fill_backend(skb, svc, be, -1, kmg_ntf_portid(info),
						       kmg_ntf_seq(info), 0, cmd), info);
}

/* The table summary only: per-backend slots are for table-get and the backend dump. */
void kmg_notify_table_req(struct kmg_service *svc, struct genl_info *info)
{
	struct sk_buff *skb = kmg_ntf_new(svc->kn, info);

	if (!skb)
		return;
	kmg_ntf_send(svc->kn, skb, kmg_nl_fill_table(skb, svc, kmg_ntf_portid(info),
						     kmg_ntf_seq(info), KMAGLEV_CMD_TABLE_NTF,
						     false), info);
}

/* A service flush: one notification for all, as a service-del each could overrun the listeners. */
void kmg_notify_flush(struct kmg_net *kn, struct genl_info *info)
{
	struct sk_buff *skb = kmg_ntf_new(kn, info);
	void *hdr;

	if (!skb)
		return;
	hdr = kmg_nl_hdr(skb, kmg_ntf_portid(info), kmg_ntf_seq(info), 0,
			 KMAGLEV_CMD_SERVICE_FLUSH_NTF);
	if (hdr)
		genlmsg_end(skb, hdr);
	kmg_ntf_send(kn, skb, hdr ? 0 : -EMSGSIZE, info);
}

/* A table change without a request: the end of a migration. */
void kmg_notify_table(struct kmg_service *svc)
{
	kmg_notify_table_req(svc, NULL);
}
