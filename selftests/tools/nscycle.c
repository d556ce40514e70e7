// SPDX-License-Identifier: GPL-2.0
/*
 * nscycle: kmaglev's per-netns lifetime and permissions, driven from one process, for the
 * soak and permission kselftests (selftests/net/soak_netns.sh, userns.sh). Generic netlink
 * through libmnl, with the family's uapi header; no fork or exec per namespace.
 *
 *   nscycle cycles [-n CYCLES] [-j WORKERS] [-f FLOWS] [-t TABLE_SIZE]
 *	CYCLES times, shared among WORKERS processes (1 by default): unshare(CLONE_NEWNET) (which
 *	leaves the previous netns, held by nothing else, to the kernel's cleanup_net), lo up with
 *	fd00::1/64, then over netlink: config set,
 *	three services (UDP 127.0.0.5:53 with an IPIP backend to 127.0.0.2 and a 4in6 one to ::1;
 *	TCP 127.0.0.6:80 with a keyed GRE backend; UDP [fd00::5]:53 with a 6in6 and a 6in4
 *	backend), a backend added, drained and weighted, a service's seed changed (table rebuilt),
 *	then FLOWS UDP datagrams from FLOWS ports to each UDP VIP and FLOWS/2 TCP SYNs to the TCP
 *	VIP (balanced by kmaglev's LOCAL_OUT hook: one connection entry each), then the entry count
 *	(config get), the service dump and the stats checked. Prints the time per cycle. The
 *	last netns goes when the process exits.
 *
 *   nscycle flood [-r PPS] [-f FLOWS] ADDR PORT
 *	UDP datagrams to ADDR:PORT from FLOWS source ports, about PPS a second, until killed.
 *
 *   nscycle probe [-F FD] [-w SECONDS] [-s ADDR:PORT]
 *	What the caller may do with kmaglev in the netns of its netlink socket (FD, inherited, or
 *	a new socket in the caller's netns): each mutating op is tried on a service ADDR:PORT/udp
 *	that does not exist yet (service new first, so that in a netns the caller administers the
 *	others find it) and its result printed ("op service-new EPERM", "op config-set 0");
 *	then the service dump ("dump services N seeds S": how many services, how many came with
 *	their seed), and with -w the events of the group received in SECONDS, or until SIGTERM
 *	("listening" once joined, "event NAME" for each, then "events N").
 *
 *   nscycle pass CMD...
 *	Open a generic netlink socket in the current netns as fd 3 and exec CMD, which inherits it
 *	(a socket handed to another user or namespace: "nscycle pass setpriv ... nscycle probe -F 3").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/kmaglev.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

static const char *prog = "nscycle";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- generic netlink ---------------------------------------------------------------------- */

struct genl {
	struct mnl_socket *sk;
	unsigned int portid, seq;
	uint16_t id;			/* kmaglev's family id */
	uint32_t grp;			/* its events group */
	char err[256];			/* extack message of the last error */
};

static char buf[1 << 16];

static void genl_attach(struct genl *g, struct mnl_socket *sk)
{
	int one = 1;

	memset(g, 0, sizeof(*g));
	g->sk = sk;
	g->seq = time(NULL);
	setsockopt(mnl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	g->portid = mnl_socket_get_portid(sk);
}

static struct mnl_socket *genl_socket(void)
{
	struct mnl_socket *sk = mnl_socket_open(NETLINK_GENERIC);

	if (!sk)
		die("netlink socket: %s", strerror(errno));
	if (mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink bind: %s", strerror(errno));
	return sk;
}

static struct nlmsghdr *genl_msg(struct genl *g, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *gh;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++g->seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = 1;
	return nlh;
}

/* The socket of the request in progress, for its error's extack. */
static struct genl *cur;

static int err_cb(const struct nlmsghdr *nlh, void *data __attribute__((unused)))
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct genl *g = cur;
	const struct nlattr *a;
	size_t off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return MNL_CB_ERROR;
	g->err[0] = 0;
	/* extack: after the error (and the request, unless NETLINK_CAP_ACK) */
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (e->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		mnl_attr_for_each(a, nlh, off)
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
				snprintf(g->err, sizeof(g->err), "%s", mnl_attr_get_str(a));
	errno = -e->error;
	return e->error ? MNL_CB_ERROR : MNL_CB_STOP;
}

/* The end of a dump, with the error that ended it if any. */
static int done_cb(const struct nlmsghdr *nlh, void *data __attribute__((unused)))
{
	const int *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(*err)) && *err) {
		errno = -*err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

/* Send @nlh, run @cb on each reply until the ack or the dump's end. 0 or -errno. */
static int genl_talk(struct genl *g, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = err_cb, [NLMSG_DONE] = done_cb };
	unsigned int seq = nlh->nlmsg_seq;
	int ret;

	g->err[0] = 0;
	cur = g;
	if (mnl_socket_sendto(g->sk, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ret = mnl_socket_recvfrom(g->sk, buf, sizeof(buf));
		if (ret < 0)
			return -errno;
		errno = 0;
		ret = mnl_cb_run2(buf, ret, seq, g->portid, cb, data, ctl, NLMSG_MIN_TYPE);
		if (ret < 0)
			return errno ? -errno : -EIO;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static int grp_cb(const struct nlattr *grp, struct genl *g)
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
	if (name && !strcmp(name, KMAGLEV_MCGRP_EVENTS))
		g->grp = id;
	return 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct genl *g = data;
	const struct nlattr *a, *grp;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			g->id = mnl_attr_get_u16(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GROUPS)
			mnl_attr_for_each_nested(grp, a)
				grp_cb(grp, g);
	}
	return MNL_CB_OK;
}

/* kmaglev's family id and events group on @g's socket. 0 or -errno. */
static int genl_resolve(struct genl *g)
{
	struct nlmsghdr *nlh = genl_msg(g, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, KMAGLEV_FAMILY_NAME);
	return genl_talk(g, nlh, family_cb, g);
}

static struct nlmsghdr *kmg_msg(struct genl *g, uint8_t cmd, uint16_t flags)
{
	return genl_msg(g, g->id, cmd, flags);
}

/* The key of service @addr (v4 or v6 text):@port/@proto in the SERVICE nest being built. */
static void put_svc_key(struct nlmsghdr *nlh, const char *addr, uint16_t port, uint8_t proto)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_ADDR4, a4.s_addr);
	else if (inet_pton(AF_INET6, addr, &a6) == 1)
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_ADDR6, sizeof(a6), &a6);
	else
		die("bad address %s", addr);
	mnl_attr_put_u8(nlh, KMAGLEV_A_SERVICE_PROTO, proto);
	mnl_attr_put_u16(nlh, KMAGLEV_A_SERVICE_PORT, port);
}

/* A backend nest of type @type: address, and weight/state/encap/GRE key when >= 0. */
static void put_backend(struct nlmsghdr *nlh, uint16_t type, const char *addr, long weight,
			long state, long encap, long key)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ADDR4, a4.s_addr);
	else if (inet_pton(AF_INET6, addr, &a6) == 1)
		mnl_attr_put(nlh, KMAGLEV_A_BACKEND_ADDR6, sizeof(a6), &a6);
	else
		die("bad address %s", addr);
	if (weight >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_WEIGHT, weight);
	if (state >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_STATE, state);
	if (encap >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_ENCAP, encap);
	if (key >= 0)
		mnl_attr_put_u32(nlh, KMAGLEV_A_BACKEND_GRE_KEY, key);
	mnl_attr_nest_end(nlh, n);
}

/* ---- cycles ----------------------------------------------------------------------------- */

static int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = -1;

	if (s < 0)
		return -1;
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return ret;
}

/* fd00::1/64 on lo (rtnetlink): a route to the IPv6 VIP. */
static int lo_addr6(void)
{
	struct mnl_socket *sk = mnl_socket_open(NETLINK_ROUTE);
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	struct in6_addr a;
	struct genl g;
	int ret;

	if (!sk || mnl_socket_bind(sk, 0, MNL_SOCKET_AUTOPID) < 0)
		die("rtnetlink: %s", strerror(errno));
	genl_attach(&g, sk);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	nlh->nlmsg_seq = ++g.seq;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = 64;
	ifa->ifa_flags = IFA_F_NODAD;
	ifa->ifa_index = if_nametoindex("lo");
	inet_pton(AF_INET6, "fd00::1", &a);
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(a), &a);
	mnl_attr_put(nlh, IFA_ADDRESS, sizeof(a), &a);
	ret = genl_talk(&g, nlh, NULL, NULL);
	mnl_socket_close(sk);
	return ret;
}

/* Fail the cycle with the request's error. */
#define CHECK(what, expr) do {							\
	int __r = (expr);							\
	if (__r)								\
		die("cycle %u: %s: %s%s%s", cycle, what, strerror(-__r),	\
		    g.err[0] ? ": " : "", g.err);				\
} while (0)

static int conns_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *c;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == KMAGLEV_A_CONFIG)
			mnl_attr_for_each_nested(c, a)
				if (mnl_attr_get_type(c) == KMAGLEV_A_CONFIG_CONNS)
					*(uint32_t *)data = mnl_attr_get_u32(c);
	return MNL_CB_OK;
}

static int count_cb(const struct nlmsghdr *nlh __attribute__((unused)), void *data)
{
	(*(unsigned int *)data)++;
	return MNL_CB_OK;
}

/* @n sockets, each bound to its own port, send one datagram (or a SYN) to @dst: @n flows. */
static int send_flows(int family, int type, const char *dst, uint16_t port, unsigned int n,
		      uint16_t first_port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_storage src = { 0 };
	socklen_t len;
	unsigned int i;
	int s;

	if (family == AF_INET) {
		struct sockaddr_in *d = (void *)&ss, *sa = (void *)&src;

		d->sin_family = sa->sin_family = AF_INET;
		d->sin_port = htons(port);
		inet_pton(AF_INET, dst, &d->sin_addr);
		len = sizeof(*d);
	} else {
		struct sockaddr_in6 *d = (void *)&ss, *sa = (void *)&src;

		d->sin6_family = sa->sin6_family = AF_INET6;
		d->sin6_port = htons(port);
		inet_pton(AF_INET6, dst, &d->sin6_addr);
		len = sizeof(*d);
	}
	for (i = 0; i < n; i++) {
		s = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (s < 0)
			return -errno;
		if (family == AF_INET)
			((struct sockaddr_in *)&src)->sin_port = htons(first_port + i);
		else
			((struct sockaddr_in6 *)&src)->sin6_port = htons(first_port + i);
		if (bind(s, (struct sockaddr *)&src, len) ||
		    (type == SOCK_DGRAM ? sendto(s, "kmaglev", 7, 0, (struct sockaddr *)&ss, len) < 0 :
		     connect(s, (struct sockaddr *)&ss, len) && errno != EINPROGRESS)) {
			int e = errno;

			close(s);
			return -e;
		}
		close(s);
	}
	return 0;
}

/* Cycles @first to @last - 1 (numbers for messages). */
static void cycles_run(unsigned int first, unsigned int last, unsigned int flows,
		       unsigned int table)
{
	static const uint8_t seed[16] = { 0x6b, 0x6d, 0x67, 1 };
	unsigned int cycle, conns, n;
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	struct genl g;

	for (cycle = first; cycle < last; cycle++) {
		if (unshare(CLONE_NEWNET))
			die("cycle %u: unshare(CLONE_NEWNET): %s", cycle, strerror(errno));
		if (lo_up() || lo_addr6())
			die("cycle %u: lo: %s", cycle, strerror(errno));
		genl_attach(&g, genl_socket());
		CHECK("family", genl_resolve(&g));
		if (!g.id)
			die("no kmaglev family");

		nlh = kmg_msg(&g, KMAGLEV_CMD_CONFIG_SET, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
		mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_CONN_MAX, 4 * flows + 64);
		mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_UDP, 600);
		mnl_attr_nest_end(nlh, nest);
		CHECK("config set", genl_talk(&g, nlh, NULL, NULL));

		/* UDP 127.0.0.5:53, backends in the service nest */
		nlh = kmg_msg(&g, KMAGLEV_CMD_SERVICE_NEW, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		put_svc_key(nlh, "127.0.0.5", 53, IPPROTO_UDP);
		mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, table);
		put_backend(nlh, KMAGLEV_A_SERVICE_BACKEND, "127.0.0.2", -1, -1, -1, -1);
		put_backend(nlh, KMAGLEV_A_SERVICE_BACKEND, "::1", 3, -1, -1, -1);
		mnl_attr_nest_end(nlh, nest);
		CHECK("service new udp4", genl_talk(&g, nlh, NULL, NULL));

		/* TCP 127.0.0.6:80, a keyed GRE backend at the top level */
		nlh = kmg_msg(&g, KMAGLEV_CMD_SERVICE_NEW, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		put_svc_key(nlh, "127.0.0.6", 80, IPPROTO_TCP);
		mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, table);
		mnl_attr_nest_end(nlh, nest);
		put_backend(nlh, KMAGLEV_A_BACKEND, "127.0.0.3", -1, -1, KMAGLEV_ENCAP_GRE, 7);
		CHECK("service new tcp4", genl_talk(&g, nlh, NULL, NULL));

		/* UDP [fd00::5]:53: 6in6 and 6in4 */
		nlh = kmg_msg(&g, KMAGLEV_CMD_SERVICE_NEW, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		put_svc_key(nlh, "fd00::5", 53, IPPROTO_UDP);
		mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_TABLE_SIZE, table);
		put_backend(nlh, KMAGLEV_A_SERVICE_BACKEND, "fd00::2", -1, -1, -1, -1);
		put_backend(nlh, KMAGLEV_A_SERVICE_BACKEND, "127.0.0.2", -1, -1, -1, -1);
		mnl_attr_nest_end(nlh, nest);
		CHECK("service new udp6", genl_talk(&g, nlh, NULL, NULL));

		/* a backend added, drained, weighted; a seed (the tables rebuilt) */
		nlh = kmg_msg(&g, KMAGLEV_CMD_BACKEND_NEW, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		put_svc_key(nlh, "127.0.0.5", 53, IPPROTO_UDP);
		mnl_attr_nest_end(nlh, nest);
		put_backend(nlh, KMAGLEV_A_BACKEND, "127.0.0.4", 2, -1, -1, -1);
		CHECK("backend new", genl_talk(&g, nlh, NULL, NULL));
		nlh = kmg_msg(&g, KMAGLEV_CMD_BACKEND_SET, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		put_svc_key(nlh, "127.0.0.5", 53, IPPROTO_UDP);
		mnl_attr_nest_end(nlh, nest);
		put_backend(nlh, KMAGLEV_A_BACKEND, "127.0.0.4", 5, KMAGLEV_BACKEND_STATE_DRAIN,
			    -1, -1);
		CHECK("backend set", genl_talk(&g, nlh, NULL, NULL));
		nlh = kmg_msg(&g, KMAGLEV_CMD_SERVICE_SET, 0);
		nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);
		put_svc_key(nlh, "fd00::5", 53, IPPROTO_UDP);
		mnl_attr_put(nlh, KMAGLEV_A_SERVICE_SEED, sizeof(seed), seed);
		mnl_attr_nest_end(nlh, nest);
		CHECK("service set", genl_talk(&g, nlh, NULL, NULL));

		/* traffic: one entry per flow */
		CHECK("udp4 flows", send_flows(AF_INET, SOCK_DGRAM, "127.0.0.5", 53, flows, 30000));
		CHECK("udp6 flows", send_flows(AF_INET6, SOCK_DGRAM, "fd00::5", 53, flows, 30000));
		CHECK("tcp flows", send_flows(AF_INET, SOCK_STREAM, "127.0.0.6", 80,
					      (flows + 1) / 2, 30000));
		conns = 0;
		CHECK("config get", genl_talk(&g, kmg_msg(&g, KMAGLEV_CMD_CONFIG_GET, 0), conns_cb,
					      &conns));
		if (conns != 2 * flows + (flows + 1) / 2)
			die("cycle %u: %u connection entries, expected %u", cycle, conns,
			    2 * flows + (flows + 1) / 2);
		n = 0;
		CHECK("service dump", genl_talk(&g, kmg_msg(&g, KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP),
						count_cb, &n));
		if (n != 3)
			die("cycle %u: %u services dumped, expected 3", cycle, n);
		n = 0;
		CHECK("stats dump", genl_talk(&g, kmg_msg(&g, KMAGLEV_CMD_STATS_GET, NLM_F_DUMP),
					      count_cb, &n));
		CHECK("stats get", genl_talk(&g, kmg_msg(&g, KMAGLEV_CMD_STATS_GET, 0), NULL, NULL));
		mnl_socket_close(g.sk);
		/* the next unshare() drops this netns, with its services and entries */
	}
}

static int cmd_cycles(int argc, char **argv)
{
	unsigned int cycles = 100, flows = 8, table = 251, workers = 1, w, failed = 0;
	double t0, t;
	int c, st;

	while ((c = getopt(argc, argv, "n:j:f:t:")) != -1) {
		switch (c) {
		case 'n': cycles = strtoul(optarg, NULL, 0); break;
		case 'j': workers = strtoul(optarg, NULL, 0); break;
		case 'f': flows = strtoul(optarg, NULL, 0); break;
		case 't': table = strtoul(optarg, NULL, 0); break;
		default: die("usage: nscycle cycles [-n CYCLES] [-j WORKERS] [-f FLOWS] [-t TABLE_SIZE]");
		}
	}
	if (!flows || flows > 1000)
		die("-f: 1 to 1000 flows");
	if (!workers || workers > 64)
		die("-j: 1 to 64 workers");
	t0 = now();
	if (workers == 1) {
		cycles_run(0, cycles, flows, table);
	} else {
		for (w = 0; w < workers; w++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork: %s", strerror(errno));
			if (!pid) {
				cycles_run(cycles * w / workers, cycles * (w + 1) / workers, flows,
					   table);
				exit(0);
			}
		}
		while (wait(&st) > 0)
			failed += !WIFEXITED(st) || WEXITSTATUS(st);
		if (failed)
			die("%u of %u workers failed", failed, workers);
	}
	t = now() - t0;
	printf("cycles %u workers %u flows %u entries %u time %.2f s per-cycle %.2f ms\n", cycles,
	       workers, flows,
	       cycles * (2 * flows + (flows + 1) / 2), t, cycles ? t * 1000 / cycles : 0);
	return 0;
}

/* ---- flood ---------------------------------------------------------------------------- */

static int cmd_flood(int argc, char **argv)
{
	unsigned int pps = 2000, flows = 64, i;
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int c, *socks;
	long sent = 0;

	while ((c = getopt(argc, argv, "r:f:")) != -1) {
		switch (c) {
		case 'r': pps = strtoul(optarg, NULL, 0); break;
		case 'f': flows = strtoul(optarg, NULL, 0); break;
		default: die("usage: nscycle flood [-r PPS] [-f FLOWS] ADDR PORT");
		}
	}
	if (argc - optind != 2 || !flows || !pps)
		die("usage: nscycle flood [-r PPS] [-f FLOWS] ADDR PORT");
	if (inet_pton(AF_INET, argv[optind], &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(atoi(argv[optind + 1]));
		len = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, argv[optind],
			     &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(atoi(argv[optind + 1]));
		len = sizeof(struct sockaddr_in6);
	} else {
		die("bad address %s", argv[optind]);
	}
	socks = calloc(flows, sizeof(*socks));
	if (!socks)
		die("out of memory");
	for (i = 0; i < flows; i++) {
		socks[i] = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (socks[i] < 0)
			die("socket: %s", strerror(errno));
	}
	/* bursts of one datagram per flow, spaced to give about @pps */
	for (;;) {
		struct timespec ts;
		long ns = 1000000000L / pps * flows;

		for (i = 0; i < flows; i++)
			/* errors (no route while a device is away, a full queue) do not stop it */
			sent += sendto(socks[i], "kmaglev flood", 13, 0, (struct sockaddr *)&ss,
				       len) > 0;
		ts.tv_sec = ns / 1000000000L;
		ts.tv_nsec = ns % 1000000000L;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* ---- probe, pass -------------------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static const char *ntf_name(uint8_t cmd)
{
	static char b[16];

	switch (cmd) {
	case KMAGLEV_CMD_SERVICE_NEW_NTF: return "service-new";
	case KMAGLEV_CMD_SERVICE_DEL_NTF: return "service-del";
	case KMAGLEV_CMD_SERVICE_CHANGE_NTF: return "service-change";
	case KMAGLEV_CMD_BACKEND_NEW_NTF: return "backend-new";
	case KMAGLEV_CMD_BACKEND_DEL_NTF: return "backend-del";
	case KMAGLEV_CMD_BACKEND_CHANGE_NTF: return "backend-change";
	case KMAGLEV_CMD_TABLE_NTF: return "table";
	case KMAGLEV_CMD_SERVICE_FLUSH_NTF: return "service-flush";
	}
	snprintf(b, sizeof(b), "cmd-%u", cmd);
	return b;
}

static void on_term(int sig __attribute__((unused)))
{
	stop = 1;
}

static const char *errname(int err)
{
	static char b[16];

	switch (-err) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(b, sizeof(b), "E%d", -err);
	return b;
}

struct dump_count {
	unsigned int services, seeds;
};

static int svc_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_count *d = data;
	const struct nlattr *a, *s;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != KMAGLEV_A_SERVICE)
			continue;
		d->services++;
		mnl_attr_for_each_nested(s, a)
			d->seeds += mnl_attr_get_type(s) == KMAGLEV_A_SERVICE_SEED;
	}
	return MNL_CB_OK;
}

static int cmd_probe(int argc, char **argv)
{
	const char *addr = "192.0.2.77";
	unsigned int wait = 0, events = 0;
	uint16_t port = 53;
	struct dump_count d = { 0 };
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	int c, fd = -1, ret;
	struct genl g;
	char *colon;

	while ((c = getopt(argc, argv, "F:w:s:")) != -1) {
		switch (c) {
		case 'F': fd = atoi(optarg); break;
		case 'w': wait = strtoul(optarg, NULL, 0); break;
		case 's':
			addr = optarg;
			colon = strrchr(optarg, ':');
			if (!colon)
				die("-s ADDR:PORT");
			*colon = 0;
			port = atoi(colon + 1);
			break;
		default: die("usage: nscycle probe [-F FD] [-w SECONDS] [-s ADDR:PORT]");
		}
	}
	if (fd >= 0) {
		struct mnl_socket *sk = mnl_socket_fdopen(fd);

		if (!sk)
			die("fd %d: %s", fd, strerror(errno));
		genl_attach(&g, sk);
	} else {
		genl_attach(&g, genl_socket());
	}
	ret = genl_resolve(&g);
	if (ret || !g.id)
		die("kmaglev family: %s", strerror(-ret));

#define SVC(cmd, flags) do {							\
	nlh = kmg_msg(&g, cmd, flags);						\
	nest = mnl_attr_nest_start(nlh, KMAGLEV_A_SERVICE);			\
	put_svc_key(nlh, addr, port, IPPROTO_UDP);				\
} while (0)
#define OP(name) printf("op %s %s\n", name, errname(genl_talk(&g, nlh, NULL, NULL)))

	SVC(KMAGLEV_CMD_SERVICE_NEW, 0);
	mnl_attr_nest_end(nlh, nest);
	OP("service-new");
	SVC(KMAGLEV_CMD_SERVICE_SET, 0);
	mnl_attr_put_u32(nlh, KMAGLEV_A_SERVICE_FLAGS, KMAGLEV_SERVICE_FLAGS_RESCHED);
	mnl_attr_nest_end(nlh, nest);
	OP("service-set");
	SVC(KMAGLEV_CMD_BACKEND_NEW, 0);
	mnl_attr_nest_end(nlh, nest);
	put_backend(nlh, KMAGLEV_A_BACKEND, "10.0.0.77", -1, -1, -1, -1);
	OP("backend-new");
	SVC(KMAGLEV_CMD_BACKEND_SET, 0);
	mnl_attr_nest_end(nlh, nest);
	put_backend(nlh, KMAGLEV_A_BACKEND, "10.0.0.77", -1, KMAGLEV_BACKEND_STATE_DRAIN, -1, -1);
	OP("backend-set");
	SVC(KMAGLEV_CMD_BACKEND_DEL, 0);
	mnl_attr_nest_end(nlh, nest);
	put_backend(nlh, KMAGLEV_A_BACKEND, "10.0.0.77", -1, -1, -1, -1);
	OP("backend-del");
	nlh = kmg_msg(&g, KMAGLEV_CMD_CONFIG_SET, 0);
	nest = mnl_attr_nest_start(nlh, KMAGLEV_A_CONFIG);
	mnl_attr_put_u32(nlh, KMAGLEV_A_CONFIG_TIMEOUT_UDP, 301);
	mnl_attr_nest_end(nlh, nest);
	OP("config-set");
	SVC(KMAGLEV_CMD_SERVICE_DEL, 0);
	mnl_attr_nest_end(nlh, nest);
	OP("service-del");
	nlh = kmg_msg(&g, KMAGLEV_CMD_SERVICE_FLUSH, 0);
	OP("service-flush");
	/* reads */
	nlh = kmg_msg(&g, KMAGLEV_CMD_CONFIG_GET, 0);
	OP("config-get");
	ret = genl_talk(&g, kmg_msg(&g, KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP), svc_dump_cb, &d);
	printf("op service-dump %s\n", errname(ret));
	printf("dump services %u seeds %u\n", d.services, d.seeds);
	fflush(stdout);

	if (wait) {
		int grp = g.grp, fdn = mnl_socket_get_fd(g.sk);
		double end = now() + wait;
		struct pollfd p = { .fd = fdn, .events = POLLIN };

		if (!grp)
			die("no events group");
		if (setsockopt(fdn, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
			die("join events: %s", strerror(errno));
		signal(SIGTERM, on_term);
		printf("listening\n");
		fflush(stdout);
		while (!stop && now() < end) {
			if (poll(&p, 1, (end - now()) * 1000 + 1) <= 0)
				continue;
			ret = recv(fdn, buf, sizeof(buf), 0);
			if (ret > 0) {
				struct nlmsghdr *h = (struct nlmsghdr *)buf;

				for (; mnl_nlmsg_ok(h, ret); h = mnl_nlmsg_next(h, &ret))
					if (h->nlmsg_type == g.id) {
						events++;
						printf("event %s\n", ntf_name(((struct genlmsghdr *)
							mnl_nlmsg_get_payload(h))->cmd));
				fflush(stdout);
					}
			}
		}
		printf("events %u\n", events);
	}
	return 0;
}

static int cmd_pass(int argc, char **argv)
{
	struct mnl_socket *sk;
	int fd;

	if (argc < 2)
		die("usage: nscycle pass CMD...");
	sk = genl_socket();
	fd = mnl_socket_get_fd(sk);
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			die("dup2: %s", strerror(errno));
		close(fd);
	}
	fcntl(3, F_SETFD, 0);
	execvp(argv[1], argv + 1);
	die("%s: %s", argv[1], strerror(errno));
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		die("usage: nscycle cycles|flood|probe|pass ...");
	argc--;
	argv++;
	if (!strcmp(argv[0], "cycles"))
		return cmd_cycles(argc, argv);
	if (!strcmp(argv[0], "flood"))
		return cmd_flood(argc, argv);
	if (!strcmp(argv[0], "probe"))
		return cmd_probe(argc, argv);
	if (!strcmp(argv[0], "pass"))
		return cmd_pass(argc, argv);
	die("unknown command %s", argv[0]);
}
