// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: generic netlink transport over libmnl, with extended-ack error reporting. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct family_info {
	struct kmg_nl *nl;
	const char *group;
};

static int parse_mcgrp(const struct nlattr *grp, struct family_info *fi)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint32_t id = 0;

	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME)
			name = mnl_attr_get_str(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID)
			id = mnl_attr_get_u32(a);
	}
	if (name && id && !strcmp(name, fi->group))
		fi->nl->events_group = id;
	return 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family_info *fi = data;
	const struct nlattr *a, *g;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			fi->nl->family_id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_VERSION:
			fi->nl->family_version = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(g, a)
				parse_mcgrp(g, fi);
			break;
		}
	}
	return MNL_CB_OK;
}

struct talk_ctx {
	struct kmg_nl *nl;
	mnl_cb_t cb;
	void *data;
};

static int data_cb(const struct nlmsghdr *nlh, void *p)
{
	struct talk_ctx *c = p;

	return c->cb ? c->cb(nlh, c->data) : MNL_CB_OK;
}

static void parse_ext_ack(struct kmg_nl *nl, const struct nlmsghdr *nlh, unsigned int off)
{
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
			snprintf(nl->errmsg, sizeof(nl->errmsg), "%s", mnl_attr_get_str(a));
		else if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS)
			nl->erroff = mnl_attr_get_u32(a);
	}
}

/* NLMSG_ERROR: an ack (error 0) ends a request; a negative error fails it. */
static int error_cb(const struct nlmsghdr *nlh, void *p)
{
	struct talk_ctx *c = p;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*err);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_ext_ack(c->nl, nlh, off);
	if (err->error) {
		errno = -err->error;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

/* NLMSG_DONE ends a dump; it carries the dump's error code, if any. */
static int done_cb(const struct nlmsghdr *nlh, void *p)
{
	struct talk_ctx *c = p;
	int err = 0;

	if (nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(int)))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	parse_ext_ack(c->nl, nlh, sizeof(int));
	if (err < 0) {
		errno = -err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int noop_cb(const struct nlmsghdr *nlh, void *p)
{
	return MNL_CB_OK;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_NOOP] = noop_cb,
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
	[NLMSG_OVERRUN] = noop_cb,
};

int kmg_nl_talk(struct kmg_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct talk_ctx c = { .nl = nl, .cb = cb, .data = data };
	unsigned int portid = mnl_socket_get_portid(nl->sk);
	size_t bufsz = 1 << 17;
	char *buf;
	int ret;

	nl->errmsg[0] = '\0';
	nl->erroff = -1;
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	buf = malloc(bufsz);
	if (!buf)
		return -ENOMEM;
	do {
		ret = mnl_socket_recvfrom(nl->sk, buf, bufsz);
		if (ret < 0)
			break;
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq, portid, data_cb, &c,
				  ctl_cbs, NLMSG_MIN_TYPE);
	} while (ret == MNL_CB_OK);
	ret = ret < 0 ? -errno : 0;
	free(buf);
	return ret;
}

struct nlmsghdr *kmg_nl_msg(struct kmg_nl *nl, void *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = nl->family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = nl->family_version ? nl->family_version : 1;
	return nlh;
}

int kmg_nl_open(struct kmg_nl *nl, const char *family)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct family_info fi = { .nl = nl, .group = "events" };
	struct nlmsghdr *nlh;
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	nl->seq = time(NULL);
	nl->sk = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sk)
		return -errno;
	setsockopt(mnl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto err;
	}
	nl->family_id = GENL_ID_CTRL;
	nlh = kmg_nl_msg(nl, buf, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	nl->family_id = 0;
	ret = kmg_nl_talk(nl, nlh, family_cb, &fi);
	if (ret)
		goto err;
	if (!nl->family_id) {
		ret = -ENOENT;
		goto err;
	}
	return 0;
err:
	mnl_socket_close(nl->sk);
	nl->sk = NULL;
	return ret;
}

void kmg_nl_close(struct kmg_nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	nl->sk = NULL;
}
