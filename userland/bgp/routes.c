// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon, BGP mode "routes": one blackhole route per announced VIP, of our protocol
 * number, in our routing table, kept over rtnetlink with synchronous, acknowledged requests.
 *
 * Why a blackhole route (RTN_BLACKHOLE, no device, no next hop):
 *  - kmaglev's netfilter hook takes the VIP's traffic at PRE_ROUTING, before the routing
 *    decision, so the route never carries the traffic kmaglev balances. It only decides what
 *    happens to the rest (ports kmaglev has no service for, and packets sent by the host
 *    itself): dropped. Without it such packets follow the default route back to the router
 *    that sent them here, a loop until the TTL runs out; a unicast route "dev lo" drops them
 *    less plainly (martians on lo), and needs a device to be up.
 *  - RTN_LOCAL would make the host accept every other port of the VIP on its own sockets
 *    (sshd on 0.0.0.0, say), and BIRD does not learn local routes at all.
 *  - A VIP the operator put on lo has its local route in table 255 "local", looked up
 *    before main, so the blackhole hides nothing there.
 *  - BIRD's kernel protocol learns blackhole routes ("learn"), FRR's zebra keeps them as
 *    "kernel" routes (or "table" routes with ip import-table); both export them over BGP
 *    with their own address as next hop. See Documentation/examples/{bird2,frr}-kmaglev.conf.
 *
 * A sync dumps both families' routes, keeps those of our table that are host routes, and
 * compares: a wanted prefix that has a route of another protocol is left alone and reported;
 * ours that are not wanted (or not blackholes at the kernel's default metric) are deleted;
 * missing ones are added with NLM_F_CREATE|NLM_F_EXCL, never NLM_F_REPLACE, which could
 * replace a route someone added since the dump. An EEXIST is looked at again: identical and
 * ours is success.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "bgp/routes.h"

#define RBUF_SIZE	65536

struct kmd_routes {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
	uint32_t table;
	uint8_t proto;
	char *buf;		/* RBUF_SIZE, requests and replies */
};

/* A host route in our table, as dumped. */
struct rt_entry {
	struct bgp_prefix p;
	uint8_t proto;
	uint8_t type;
	uint32_t metric;
	bool keep;		/* ours and wanted as it is */
};

struct rt_list {
	struct rt_entry *e;
	unsigned int n, cap;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *pfx_str(const struct bgp_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->family, p->family == AF_INET ? (const void *)&p->v4 : (const void *)&p->v6,
		  a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

static bool pfx_eq(const struct bgp_prefix *a, const struct bgp_prefix *b)
{
	if (a->family != b->family || a->len != b->len)
		return false;
	if (a->family == AF_INET)
		return a->v4.s_addr == b->v4.s_addr;
	return !memcmp(&a->v6, &b->v6, sizeof(a->v6));
}

static bool pfx_valid(const struct bgp_prefix *p)
{
	return (p->family == AF_INET && p->len == 32) || (p->family == AF_INET6 && p->len == 128);
}

/* Protocol numbers as iproute2 names them, for messages about other protocols' routes. */
static const char *proto_name(uint8_t proto)
{
	switch (proto) {
	case RTPROT_REDIRECT: return "redirect";
	case RTPROT_KERNEL: return "kernel";
	case RTPROT_BOOT: return "boot";
	case RTPROT_STATIC: return "static";
	case RTPROT_RA: return "ra";
	case RTPROT_DHCP: return "dhcp";
	case RTPROT_ZEBRA: return "zebra";
	case RTPROT_BIRD: return "bird";
	case RTPROT_BGP: return "bgp";
	case RTPROT_ISIS: return "isis";
	case RTPROT_OSPF: return "ospf";
	case RTPROT_RIP: return "rip";
	case RTPROT_EIGRP: return "eigrp";
	case RTPROT_BABEL: return "babel";
	}
	return "?";
}

struct kmd_routes *kmd_routes_open(uint32_t table, uint8_t proto, char *err, size_t errlen)
{
	struct kmd_routes *r;
	int one = 1;

	if (table == RT_TABLE_UNSPEC || table == RT_TABLE_LOCAL) {
		seterr(err, errlen, "routes: table %u is not allowed (1..%u but not 255 \"local\")",
		       table, UINT32_MAX);
		errno = EINVAL;
		return NULL;
	}
	if (proto <= RTPROT_STATIC) {
		seterr(err, errlen, "routes: protocol %u is the kernel's (use 5..255)", proto);
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->buf = malloc(RBUF_SIZE))) {
		free(r);
		seterr(err, errlen, "routes: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->table = table;
	r->proto = proto;
	r->seq = time(NULL);
	r->nl = mnl_socket_open(NETLINK_ROUTE);
	if (!r->nl || mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		seterr(err, errlen, "routes: rtnetlink socket: %s", strerror(e));
		kmd_routes_close(r);
		errno = e;
		return NULL;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	/* Error messages from the kernel, acks without the request echoed, filtered dumps. */
	mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(r->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(r->nl, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	return r;
}

void kmd_routes_close(struct kmd_routes *r)
{
	if (!r)
		return;
	if (r->nl)
		mnl_socket_close(r->nl);
	free(r->buf);
	free(r);
}

/* The kernel's message in an NLMSG_ERROR or NLMSG_DONE carrying NLM_F_ACK_TLVS, or "". */
static const char *extack_msg(const struct nlmsghdr *nlh, size_t off)
{
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	mnl_attr_for_each(a, nlh, off)
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			return mnl_attr_get_str(a);
	return "";
}

typedef void (*rt_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * Send @nlh (a request or a dump) and read its replies up to the ack, the error or the dump's
 * end, handing each other message of the request to @cb. 0 or -errno, with the kernel's
 * message (if any) in @kmsg.
 */
static int rt_talk(struct kmd_routes *r, struct nlmsghdr *nlh, rt_cb cb, void *data,
		   char *kmsg, size_t kmsglen)
{
	uint32_t seq = ++r->seq;
	ssize_t len;

	kmsg[0] = 0;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = 0;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *m;
		int left;

		len = mnl_socket_recvfrom(r->nl, r->buf, RBUF_SIZE);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		m = (const struct nlmsghdr *)r->buf;
		left = len;
		for (; mnl_nlmsg_ok(m, left); m = mnl_nlmsg_next(m, &left)) {
			/* Another request's late reply (one we gave up on): not ours to read. */
			if (!mnl_nlmsg_seq_ok(m, seq) || !mnl_nlmsg_portid_ok(m, r->portid))
				continue;
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(m);
				size_t off;

				if (m->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
					return -EBADMSG;
				if (!e->error)
					return 0;
				off = sizeof(*e);
				if (!(m->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
				if (mnl_nlmsg_size(off) <= m->nlmsg_len)
					snprintf(kmsg, kmsglen, "%s", extack_msg(m, MNL_ALIGN(off)));
				return e->error;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				int e = 0;

				if (m->nlmsg_len >= mnl_nlmsg_size(sizeof(int)))
					e = *(const int *)mnl_nlmsg_get_payload(m);
				if (e < 0)
					snprintf(kmsg, kmsglen, "%s", extack_msg(m, sizeof(int)));
				return e < 0 ? e : 0;
			}
			if (m->nlmsg_type < NLMSG_MIN_TYPE)
				continue;
			if (cb)
				cb(m, data);
		}
	}
}

struct dump_ctx {
	struct kmd_routes *r;
	struct rt_list *l;
	int err;
	bool intr;		/* the table changed during the dump: do it again */
};

static void dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *c = data;
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	struct rt_entry e = { 0 };
	uint32_t table;
	bool dst = false;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		c->intr = true;
	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return;
	if (rtm->rtm_flags & RTM_F_CLONED)	/* IPv6's cached routes, not the table's */
		return;
	if (rtm->rtm_dst_len != (rtm->rtm_family == AF_INET ? 32 : 128))
		return;
	table = rtm->rtm_table;
	e.p.family = rtm->rtm_family;
	e.p.len = rtm->rtm_dst_len;
	e.proto = rtm->rtm_protocol;
	e.type = rtm->rtm_type;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_TABLE:
			if (mnl_attr_get_payload_len(a) >= 4)
				table = mnl_attr_get_u32(a);
			break;
		case RTA_PRIORITY:
			if (mnl_attr_get_payload_len(a) >= 4)
				e.metric = mnl_attr_get_u32(a);
			break;
		case RTA_DST:
			if (mnl_attr_get_payload_len(a) == (e.p.family == AF_INET ? 4 : 16)) {
				memcpy(&e.p.v6, mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
				dst = true;
			}
			break;
		}
	}
	if (table != c->r->table || !dst)
		return;
	if (c->l->n == c->l->cap) {
		unsigned int cap = c->l->cap ? 2 * c->l->cap : 64;
		struct rt_entry *ne = realloc(c->l->e, cap * sizeof(*ne));

		if (!ne) {
			c->err = -ENOMEM;
			return;
		}
		c->l->e = ne;
		c->l->cap = cap;
	}
	c->l->e[c->l->n++] = e;
}

/* Every host route in our table, of any protocol, both families. */
static int rt_dump(struct kmd_routes *r, struct rt_list *l, char *err, size_t errlen)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct dump_ctx c = { .r = r, .l = l };
	unsigned int i, tries = 0;
	char kmsg[256];

again:
	l->n = 0;
	c.intr = false;
	for (i = 0; i < 2; i++) {
		char req[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
		struct rtmsg *rtm;
		int ret;

		nlh->nlmsg_type = RTM_GETROUTE;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
		rtm->rtm_family = families[i];
		/* Kernels with strict checking (4.20+) dump only our table; we filter anyway. */
		rtm->rtm_table = r->table < 256 ? r->table : RT_TABLE_UNSPEC;
		mnl_attr_put_u32(nlh, RTA_TABLE, r->table);
		ret = rt_talk(r, nlh, dump_cb, &c, kmsg, sizeof(kmsg));
		/* A table that does not exist yet holds nothing (strict dumps say ENOENT). */
		if (ret == -ENOENT)
			ret = 0;
		if (!ret)
			ret = c.err;
		if (!ret && c.intr && ++tries < 10)
			goto again;
		if (!ret && c.intr)
			ret = -EAGAIN;
		if (ret) {
			seterr(err, errlen, "routes: dump of table %u (%s): %s%s%s", r->table,
			       families[i] == AF_INET ? "IPv4" : "IPv6", strerror(-ret),
			       kmsg[0] && ret != -EAGAIN ? ": " : "",
			       ret != -EAGAIN ? kmsg : "");
			return ret;
		}
	}
	return 0;
}

/* The metric of the routes we add: the kernel's default, IPv6's is 1024 (as with ip route). */
static uint32_t our_metric(int family)
{
	return family == AF_INET ? 0 : 1024;
}

static bool entry_is_ours_wanted(const struct kmd_routes *r, const struct rt_entry *e)
{
	return e->proto == r->proto && e->type == RTN_BLACKHOLE &&
	       e->metric == our_metric(e->p.family);
}

/* RTM_NEWROUTE (create, exclusive) or RTM_DELROUTE of one of our routes. */
static int rt_change(struct kmd_routes *r, bool add, const struct bgp_prefix *p, uint8_t type,
		     uint32_t metric, char *err, size_t errlen)
{
	char req[MNL_SOCKET_BUFFER_SIZE], kmsg[256], ps[INET6_ADDRSTRLEN + 8];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
	struct rtmsg *rtm;
	int ret;

	nlh->nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = p->family;
	rtm->rtm_dst_len = p->len;
	rtm->rtm_table = r->table < 256 ? r->table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = r->proto;	/* a delete matches only our protocol's route */
	rtm->rtm_scope = add ? RT_SCOPE_UNIVERSE : RT_SCOPE_NOWHERE;	/* NOWHERE: any */
	rtm->rtm_type = type;
	mnl_attr_put_u32(nlh, RTA_TABLE, r->table);
	mnl_attr_put(nlh, RTA_DST, p->family == AF_INET ? 4 : 16, &p->v6);
	if (metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, metric);
	ret = rt_talk(r, nlh, NULL, NULL, kmsg, sizeof(kmsg));
	if (ret && !(add && ret == -EEXIST))
		seterr(err, errlen, "routes: %s %s table %u proto %u: %s%s%s",
		       add ? "adding" : "deleting", pfx_str(p, ps, sizeof(ps)), r->table, r->proto,
		       strerror(-ret), kmsg[0] ? ": " : "", kmsg);
	return ret;
}

/* @have: ours is there too (the other came later, at another metric), and stays. */
static void conflict_err(const struct kmd_routes *r, const struct rt_entry *o, bool have,
			 char *err, size_t errlen)
{
	char ps[INET6_ADDRSTRLEN + 8];

	seterr(err, errlen, "routes: %s in table %u is a route of protocol %u (%s), not ours "
	       "(%u): left alone, %s", pfx_str(&o->p, ps, sizeof(ps)), r->table, o->proto,
	       proto_name(o->proto), r->proto, have ? "ours kept beside it" : "ours not added");
}

/* First error wins: its code is returned and its message kept. */
static void first_err(int *ret, int e, char *err, size_t errlen, const char *msg)
{
	if (!e || *ret)
		return;
	*ret = e;
	seterr(err, errlen, "%s", msg);
}

/* @want NULL: flush. */
static int rt_sync(struct kmd_routes *r, const struct bgp_prefix *want, unsigned int n,
		   char *err, size_t errlen)
{
	char msg[512], ps[INET6_ADDRSTRLEN + 8];
	struct rt_list l = { 0 };
	unsigned int i, j;
	int ret = 0, e;

	if (err && errlen)
		err[0] = 0;
	for (i = 0; i < n; i++) {
		if (!pfx_valid(&want[i])) {
			seterr(err, errlen, "routes: prefix %u is not a host route (/32, /128)", i);
			return -EINVAL;
		}
	}
	e = rt_dump(r, &l, err, errlen);
	if (e) {
		free(l.e);
		return e;
	}
	/* What stays: ours, wanted, right type. */
	for (j = 0; j < l.n; j++) {
		for (i = 0; i < n && !l.e[j].keep; i++)
			l.e[j].keep = entry_is_ours_wanted(r, &l.e[j]) && pfx_eq(&want[i], &l.e[j].p);
	}
	/* Deletes first, so that a route of ours of the wrong type makes way for the right one. */
	for (j = 0; j < l.n; j++) {
		if (l.e[j].proto != r->proto || l.e[j].keep)
			continue;
		e = rt_change(r, false, &l.e[j].p, l.e[j].type, l.e[j].metric, msg, sizeof(msg));
		if (e == -ESRCH || e == -ENOENT)	/* gone already */
			e = 0;
		first_err(&ret, e, err, errlen, msg);
	}
	for (i = 0; i < n; i++) {
		const struct rt_entry *other = NULL;
		bool have = false;

		for (j = 0; j < i; j++)		/* listed twice */
			if (pfx_eq(&want[i], &want[j]))
				break;
		if (j < i)
			continue;
		for (j = 0; j < l.n; j++) {
			if (!pfx_eq(&want[i], &l.e[j].p))
				continue;
			if (l.e[j].keep)
				have = true;
			else if (l.e[j].proto != r->proto && !other)
				other = &l.e[j];
		}
		if (other) {
			conflict_err(r, other, have, msg, sizeof(msg));
			first_err(&ret, -EEXIST, err, errlen, msg);
			continue;
		}
		if (have)
			continue;
		e = rt_change(r, true, &want[i], RTN_BLACKHOLE, our_metric(want[i].family), msg,
			      sizeof(msg));
		if (e == -EEXIST) {
			/* Someone added a route since the dump: ours and identical is fine. */
			struct rt_list l2 = { 0 };

			e = rt_dump(r, &l2, msg, sizeof(msg));
			for (j = 0; !e && j < l2.n; j++) {
				if (!pfx_eq(&want[i], &l2.e[j].p))
					continue;
				if (!entry_is_ours_wanted(r, &l2.e[j])) {
					if (l2.e[j].proto != r->proto)
						conflict_err(r, &l2.e[j], false, msg,
							     sizeof(msg));
					else
						snprintf(msg, sizeof(msg), "routes: adding %s: a "
							 "different route of ours appeared",
							 pfx_str(&want[i], ps, sizeof(ps)));
					e = -EEXIST;
					break;
				}
			}
			free(l2.e);
		}
		first_err(&ret, e, err, errlen, msg);
	}
	free(l.e);
	return ret;
}

int kmd_routes_sync(struct kmd_routes *r, const struct bgp_prefix *p, unsigned int n,
		    char *err, size_t errlen)
{
	return rt_sync(r, p, n, err, errlen);
}

int kmd_routes_flush(struct kmd_routes *r, char *err, size_t errlen)
{
	return rt_sync(r, NULL, 0, err, errlen);
}
