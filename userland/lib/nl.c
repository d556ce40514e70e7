// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: generic netlink transport over libmnl, with extended-ack error reporting. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "lib/nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#ifndef KMG_NL_RCVBUF
#define KMG_NL_RCVBUF	(1 << 17)	/* first receive buffer; grows for bigger messages */
#endif

/* --- attribute schema ------------------------------------------------------------------ */

const struct kmg_attr_desc *kmg_attr_desc(const struct kmg_attr_set *set, uint16_t type)
{
	if (!set || type > set->max || !set->attrs[type].name)
		return NULL;
	return &set->attrs[type];
}

bool kmg_attr_ok(const struct nlattr *a, const struct kmg_attr_desc *d)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	switch (d->type) {
	case KMG_AT_U8:
		return len == 1;
	case KMG_AT_U16:
		return len == 2;
	case KMG_AT_U32:
		return len == 4;
	case KMG_AT_U64:
		return len == 8;
	case KMG_AT_BINARY:
		return !d->len || len == d->len;
	case KMG_AT_FLAG:
		return len == 0;
	case KMG_AT_NEST:
		return mnl_attr_validate(a, MNL_TYPE_NESTED) == 0;
	case KMG_AT_STRING:
		return mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 &&
		       strlen(mnl_attr_get_str(a)) <= d->max;
	}
	return true;
}

/* --- family resolution ----------------------------------------------------------------- */

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

/* --- request / reply ------------------------------------------------------------------- */

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

void kmg_nl_reset_err(struct kmg_nl *nl)
{
	nl->errmsg[0] = '\0';
	nl->erroff = -1;
	nl->miss_type = -1;
	nl->miss_nest = -1;
	nl->has_policy = false;
	memset(&nl->policy, 0, sizeof(nl->policy));
}

static void parse_policy(struct kmg_nl *nl, const struct nlattr *nest)
{
	struct kmg_nl_policy *p = &nl->policy;
	const struct nlattr *a;

	nl->has_policy = true;
	mnl_attr_for_each_nested(a, nest) {
		uint16_t len = mnl_attr_get_payload_len(a);

		switch (mnl_attr_get_type(a)) {
		case NL_POLICY_TYPE_ATTR_TYPE:
			p->type = len == 4 ? mnl_attr_get_u32(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
			p->has_umin = len == 8;
			p->umin = len == 8 ? mnl_attr_get_u64(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
			p->has_umax = len == 8;
			p->umax = len == 8 ? mnl_attr_get_u64(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
			p->has_smin = len == 8;
			p->smin = len == 8 ? (int64_t)mnl_attr_get_u64(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
			p->has_smax = len == 8;
			p->smax = len == 8 ? (int64_t)mnl_attr_get_u64(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MIN_LENGTH:
			p->has_minlen = len == 4;
			p->minlen = len == 4 ? mnl_attr_get_u32(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
			p->has_maxlen = len == 4;
			p->maxlen = len == 4 ? mnl_attr_get_u32(a) : 0;
			break;
		case NL_POLICY_TYPE_ATTR_MASK:
			p->has_mask = len == 8;
			p->mask = len == 8 ? mnl_attr_get_u64(a) : 0;
			break;
		}
	}
}

static void parse_ext_ack(struct kmg_nl *nl, const struct nlmsghdr *nlh, unsigned int off)
{
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (mnl_nlmsg_size(off) > nlh->nlmsg_len)
		return;
	mnl_attr_for_each(a, nlh, off) {
		uint16_t len = mnl_attr_get_payload_len(a);

		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(nl->errmsg, sizeof(nl->errmsg), "%s",
					 mnl_attr_get_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (len == 4)
				nl->erroff = mnl_attr_get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (len == 4)
				nl->miss_type = mnl_attr_get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			if (len == 4)
				nl->miss_nest = mnl_attr_get_u32(a);
			break;
		case NLMSGERR_ATTR_POLICY:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				parse_policy(nl, a);
			break;
		}
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
		errno = err->error < 0 ? -err->error : err->error;
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

int kmg_nl_process(struct kmg_nl *nl, const void *buf, size_t len, unsigned int seq,
		   unsigned int portid, mnl_cb_t cb, void *data)
{
	struct talk_ctx c = { .nl = nl, .cb = cb, .data = data };
	int ret;

	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, portid, data_cb, &c, ctl_cbs, NLMSG_MIN_TYPE);
	if (ret < 0)
		return errno ? -errno : -EPROTO;
	return ret == MNL_CB_OK ? 1 : 0;
}

/*
 * Receive one datagram from the kernel into *buf, growing it to fit: a table reply of a big
 * service is larger than any fixed buffer. Returns its length, or -1 with errno set.
 */
static ssize_t recv_whole(int fd, char **buf, size_t *cap, int flags)
{
	struct sockaddr_nl sa;
	struct iovec iov;
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n;

	for (;;) {
		/* the length of the next datagram, without taking it */
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | flags);
		if (n < 0)
			return -1;
		if ((size_t)n > *cap) {
			char *p = realloc(*buf, n);

			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			*buf = p;
			*cap = n;
		}
		iov.iov_base = *buf;
		iov.iov_len = *cap;
		n = recvmsg(fd, &msg, flags);
		if (n < 0)
			return -1;
		if (msg.msg_flags & MSG_TRUNC) {
			errno = ENOSPC;
			return -1;
		}
		if (!sa.nl_pid)
			return n;
		/* not from the kernel: ignore */
	}
}

/*
 * The kernel refuses a message larger than the socket's send buffer: make room for big ones
 * (thousands of backends), beyond the system limit where we may (SO_SNDBUFFORCE).
 */
static void ensure_sndbuf(int fd, size_t len)
{
	socklen_t sl = sizeof(int);
	int cur = 0, want;

	if (!getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cur, &sl) && (size_t)cur >= len + 4096)
		return;
	want = len > INT_MAX / 4 ? INT_MAX / 2 : (int)len * 2;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &want, sizeof(want)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &want, sizeof(want));
}

bool kmg_nl_dump_intr(void *buf, size_t len)
{
	struct nlmsghdr *nlh = buf;
	int rem = (int)len;
	bool intr = false;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			nlh->nlmsg_flags &= ~NLM_F_DUMP_INTR;
			intr = true;
		}
	}
	return intr;
}

int kmg_nl_talk(struct kmg_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	unsigned int portid = mnl_socket_get_portid(nl->sk);
	size_t cap = KMG_NL_RCVBUF;
	bool intr = false;
	int ret = 1;
	char *buf;

	kmg_nl_reset_err(nl);
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (nlh->nlmsg_len > 1 << 15)
		ensure_sndbuf(mnl_socket_get_fd(nl->sk), nlh->nlmsg_len);
	if (mnl_socket_sendto(nl->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	do {
		ssize_t n = recv_whole(mnl_socket_get_fd(nl->sk), &buf, &cap, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (kmg_nl_dump_intr(buf, n))
			intr = true;
		ret = kmg_nl_process(nl, buf, n, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > 0);
	free(buf);
	return !ret && intr ? -EINTR : ret;
}

struct nlmsghdr *kmg_genl_put(void *buf, uint16_t type, uint8_t cmd, uint8_t version,
			      uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

struct nlmsghdr *kmg_nl_msg(struct kmg_nl *nl, void *buf, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = kmg_genl_put(buf, nl->family_id, cmd,
					    nl->family_version ? nl->family_version : 1, flags);

	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

int kmg_nl_open(struct kmg_nl *nl, const char *family)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct family_info fi = { .nl = nl, .group = "events" };
	struct nlmsghdr *nlh;
	int one = 1, ret;

	memset(nl, 0, sizeof(*nl));
	kmg_nl_reset_err(nl);
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

/* --- error paths ----------------------------------------------------------------------- */

int kmg_nl_attr_at(const struct nlmsghdr *req, size_t hdrlen, const struct kmg_attr_set *root,
		   uint32_t off, struct kmg_attr_walk *w)
{
	const char *base = (const char *)req;
	const char *p = base + MNL_NLMSG_HDRLEN + MNL_ALIGN(hdrlen);
	const char *end = base + req->nlmsg_len;
	const char *at = base + off;
	const struct kmg_attr_set *set = root;

	w->depth = 0;
	if (at < p || at >= end)
		return -ENOENT;
	while (p + MNL_ATTR_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		const struct kmg_attr_desc *d;
		const char *aend = p + a->nla_len;

		if (a->nla_len < MNL_ATTR_HDRLEN || aend > end)
			return -ENOENT;
		if (at < p || at >= aend) {
			p += MNL_ALIGN(a->nla_len);
			continue;
		}
		if (w->depth == sizeof(w->attr) / sizeof(w->attr[0]))
			return -ENOENT;
		d = kmg_attr_desc(set, mnl_attr_get_type(a));
		w->attr[w->depth] = a;
		w->desc[w->depth] = d;
		w->depth++;
		if (at == p || !d || d->type != KMG_AT_NEST || at < p + MNL_ATTR_HDRLEN)
			return 0;
		set = d->nested;
		end = aend;
		p += MNL_ATTR_HDRLEN;
	}
	return w->depth ? 0 : -ENOENT;
}

/*
 * "NAME ADDRESS" of a nest's key attribute, if it has one: the address that tells apart the
 * elements of a repeated nest (a backend of a service).
 */
static int fmt_key(const struct nlattr *nest, const struct kmg_attr_desc *nd, char *buf,
		   size_t len)
{
	const struct nlattr *a;

	if (!nd->nested || !nd->multi)
		return -ENOENT;
	mnl_attr_for_each_nested(a, nest) {
		const struct kmg_attr_desc *d = kmg_attr_desc(nd->nested, mnl_attr_get_type(a));
		char s[INET6_ADDRSTRLEN];

		if (!d || d->hint == KMG_HINT_NONE || !kmg_attr_ok(a, d))
			continue;
		inet_ntop(d->hint == KMG_HINT_IPV4 ? AF_INET : AF_INET6, mnl_attr_get_payload(a),
			  s, sizeof(s));
		snprintf(buf, len, "%s %s", nd->name, s);
		return 0;
	}
	return -ENOENT;
}

const char *kmg_nl_fmt_walk(const struct kmg_attr_walk *w, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < w->depth && n < len; i++) {
		const struct kmg_attr_desc *d = w->desc[i];

		if (d)
			n += snprintf(buf + n, len - n, "%s%s", i ? "." : "", d->name);
		else
			n += snprintf(buf + n, len - n, "%sattr%u", i ? "." : "",
				      mnl_attr_get_type(w->attr[i]));
	}
	/* Say which element of a repeated nest it is. */
	for (i = 0; i < w->depth && n < len; i++) {
		char key[96];

		if (w->desc[i] && w->desc[i]->multi && w->desc[i]->type == KMG_AT_NEST &&
		    !fmt_key(w->attr[i], w->desc[i], key, sizeof(key)))
			n += snprintf(buf + n, len - n, ", %s", key);
	}
	return buf;
}

/* The kernel reports a plain integer's policy as its type's full range: nothing to tell. */
static bool full_range(const struct kmg_nl_policy *p)
{
	switch (p->type) {
	case NL_ATTR_TYPE_U8:
		return !p->umin && p->umax == UINT8_MAX;
	case NL_ATTR_TYPE_U16:
		return !p->umin && p->umax == UINT16_MAX;
	case NL_ATTR_TYPE_U32:
		return !p->umin && p->umax == UINT32_MAX;
	case NL_ATTR_TYPE_U64:
		return !p->umin && p->umax == UINT64_MAX;
	case NL_ATTR_TYPE_S8:
		return p->smin == INT8_MIN && p->smax == INT8_MAX;
	case NL_ATTR_TYPE_S16:
		return p->smin == INT16_MIN && p->smax == INT16_MAX;
	case NL_ATTR_TYPE_S32:
		return p->smin == INT32_MIN && p->smax == INT32_MAX;
	case NL_ATTR_TYPE_S64:
		return p->smin == INT64_MIN && p->smax == INT64_MAX;
	}
	return false;
}

static size_t fmt_policy(const struct kmg_nl_policy *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (full_range(p))
		return 0;
	if (p->has_umin || p->has_umax)
		return snprintf(buf, len, "valid range %" PRIu64 "..%" PRIu64,
				p->has_umin ? p->umin : 0, p->has_umax ? p->umax : UINT64_MAX);
	if (p->has_smin || p->has_smax)
		return snprintf(buf, len, "valid range %" PRId64 "..%" PRId64,
				p->has_smin ? p->smin : INT64_MIN,
				p->has_smax ? p->smax : INT64_MAX);
	if (p->has_minlen && p->has_maxlen && p->minlen == p->maxlen)
		return snprintf(buf, len, "length must be %u bytes", p->minlen);
	if (p->has_minlen || p->has_maxlen)
		return snprintf(buf, len, "length must be %u..%u bytes", p->minlen,
				p->has_maxlen ? p->maxlen : UINT16_MAX);
	if (p->has_mask)
		return snprintf(buf, len, "valid bits 0x%" PRIx64, p->mask);
	return 0;
}

const char *kmg_nl_errstr(const struct kmg_nl *nl, const struct nlmsghdr *req, int err,
			  const struct kmg_attr_set *root, char *buf, size_t len)
{
	char details[512], path[256];
	struct kmg_attr_walk w;
	size_t n = 0;

	details[0] = '\0';
	if (nl->erroff >= 0 && req &&
	    !kmg_nl_attr_at(req, sizeof(struct genlmsghdr), root, nl->erroff, &w))
		n += snprintf(details + n, sizeof(details) - n, "attribute: %s",
			      kmg_nl_fmt_walk(&w, path, sizeof(path)));
	if (nl->miss_type >= 0 && n < sizeof(details)) {
		const struct kmg_attr_set *set = root;
		const struct kmg_attr_desc *d;

		path[0] = '\0';
		if (nl->miss_nest >= 0) {
			set = NULL;
			if (req && !kmg_nl_attr_at(req, sizeof(struct genlmsghdr), root,
						   nl->miss_nest, &w)) {
				kmg_nl_fmt_walk(&w, path, sizeof(path));
				if (w.desc[w.depth - 1])
					set = w.desc[w.depth - 1]->nested;
			}
		}
		d = kmg_attr_desc(set, nl->miss_type);
		n += snprintf(details + n, sizeof(details) - n, "%smissing attribute: ",
			      n ? ", " : "");
		if (n < sizeof(details)) {
			/* the path may carry ", backend ADDR": put the name before it */
			char *comma = strchr(path, ',');
			char name[32];

			if (d)
				snprintf(name, sizeof(name), "%s", d->name);
			else
				snprintf(name, sizeof(name), "attr%d", nl->miss_type);
			if (comma) {
				*comma = '\0';
				n += snprintf(details + n, sizeof(details) - n, "%s.%s, %s", path,
					      name, comma + 2);
			} else {
				n += snprintf(details + n, sizeof(details) - n, "%s%s%s", path,
					      path[0] ? "." : "", name);
			}
		}
	}
	if (nl->has_policy && n < sizeof(details)) {
		char pol[128];

		if (fmt_policy(&nl->policy, pol, sizeof(pol)))
			n += snprintf(details + n, sizeof(details) - n, "%s%s", n ? ", " : "",
				      pol);
	}
	if (err == -EPERM && !nl->errmsg[0] && n < sizeof(details))
		n += snprintf(details + n, sizeof(details) - n, "%schanges need CAP_NET_ADMIN",
			      n ? ", " : "");
	snprintf(buf, len, "Error: %s%s%s%s", nl->errmsg[0] ? nl->errmsg : strerror(-err),
		 n ? " (" : "", details, n ? ")" : "");
	return buf;
}

/* --- notifications --------------------------------------------------------------------- */

int kmg_nl_join_events(struct kmg_nl *nl)
{
	int size = 1 << 20;

	if (!nl->events_group)
		return -ENOENT;
	setsockopt(mnl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (mnl_socket_setsockopt(nl->sk, NETLINK_ADD_MEMBERSHIP, &nl->events_group,
				  sizeof(nl->events_group)) < 0)
		return -errno;
	return 0;
}

int kmg_nl_listen(struct kmg_nl *nl, mnl_cb_t cb, void *data, volatile sig_atomic_t *stop,
		  const sigset_t *sigmask, void (*lost)(void))
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(nl->sk), .events = POLLIN };
	size_t cap = KMG_NL_RCVBUF;
	char *buf = malloc(cap);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	while (!*stop) {
		ssize_t n;

		if (ppoll(&pfd, 1, NULL, sigmask) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		n = recv_whole(pfd.fd, &buf, &cap, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == ENOBUFS) {
				if (lost)
					lost();
				continue;
			}
			if (errno == EINTR || errno == EAGAIN)
				continue;
			ret = -errno;
			break;
		}
		if (mnl_cb_run(buf, n, 0, 0, cb, data) < 0) {
			ret = -errno;
			break;
		}
	}
	free(buf);
	return ret;
}
