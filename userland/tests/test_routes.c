// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the daemon's routes mode (bgp/routes.c) against the kernel, in a network
 * namespace of their own (root only, skipped otherwise): what a sync adds and deletes as
 * `ip route` sees it, what it sends as a route monitor sees it, and that another protocol's
 * route to a VIP is never touched.
 */
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "helpers.h"
#include "bgp/routes.h"

#define PROTO	252

static bool usable;		/* root, in a network namespace of our own, with ip(8) */
static char err[512];

static struct bgp_prefix pfx(const char *s)
{
	struct bgp_prefix p;

	memset(&p, 0, sizeof(p));
	if (inet_pton(AF_INET, s, &p.v4) == 1) {
		p.family = AF_INET;
		p.len = 32;
	} else {
		assert_int_equal(inet_pton(AF_INET6, s, &p.v6), 1);
		p.family = AF_INET6;
		p.len = 128;
	}
	return p;
}

/* `ip -o route show table T` of both families, with @extra ("proto 252", say). */
static char *ip_routes(uint32_t table, const char *extra)
{
	static char out[8192];
	char cmd[256];
	size_t len = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "(ip -o -4 route show table %u %s; "
		 "ip -o -6 route show table %u %s) 2>/dev/null", table, extra, table, extra);
	f = popen(cmd, "r");
	assert_non_null(f);
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = 0;
	pclose(f);
	return out;
}

static unsigned int count_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void sh(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* A socket on the route notification groups: what every sync sent, change by change. */
static struct mnl_socket *monitor_open(void)
{
	struct mnl_socket *m = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK);

	assert_non_null(m);
	assert_int_equal(mnl_socket_bind(m, RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE,
					 MNL_SOCKET_AUTOPID), 0);
	return m;
}

/* Route notifications queued since the last call (the kernel sends them before its ack). */
static void monitor_read(struct mnl_socket *m, unsigned int *added, unsigned int *deleted)
{
	char buf[16384];
	ssize_t len;

	*added = *deleted = 0;
	while ((len = mnl_socket_recvfrom(m, buf, sizeof(buf))) > 0) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		int left = len;

		for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			*added += nlh->nlmsg_type == RTM_NEWROUTE;
			*deleted += nlh->nlmsg_type == RTM_DELROUTE;
		}
	}
}

#define assert_sent(m, a, d) do {				\
	unsigned int __a, __d;					\
	monitor_read(m, &__a, &__d);				\
	assert_int_equal(__a, a);				\
	assert_int_equal(__d, d);				\
} while (0)

#define NEED_NETNS() do { if (!usable) skip(); } while (0)

static struct kmd_routes *open_ok(uint32_t table)
{
	struct kmd_routes *r = kmd_routes_open(table, PROTO, err, sizeof(err));

	if (!r)
		fail_msg("%s", err);
	return r;
}

static void test_bad_args(void **state)
{
	static const uint32_t tables[] = { 0, 255 };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		err[0] = 0;
		errno = 0;
		assert_null(kmd_routes_open(tables[i], PROTO, err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, "table"));
	}
	for (i = 0; i <= 4; i++) {
		err[0] = 0;
		assert_null(kmd_routes_open(254, i, err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, "protocol"));
	}
}

static void test_bad_prefix(void **state)
{
	struct bgp_prefix p[2];
	struct kmd_routes *r;

	NEED_NETNS();
	r = open_ok(254);
	/* Only host routes: nothing is sent for a list with another prefix in it. */
	p[0] = pfx("192.0.2.1");
	p[1] = pfx("192.0.2.0");
	p[1].len = 24;
	assert_int_equal(kmd_routes_sync(r, p, 2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "host route"));
	p[1] = pfx("2001:db8::1");
	p[1].family = AF_UNIX;
	assert_int_equal(kmd_routes_sync(r, p, 2, err, sizeof(err)), -EINVAL);
	assert_string_equal(ip_routes(254, "proto 252"), "");
	kmd_routes_close(r);
}

static void test_sync_main(void **state)
{
	struct bgp_prefix p[4];
	unsigned int a, d;
	struct mnl_socket *m;
	struct kmd_routes *r;
	const char *out;

	NEED_NETNS();
	r = open_ok(254);
	m = monitor_open();
	p[0] = pfx("192.0.2.1");
	p[1] = pfx("192.0.2.2");
	p[2] = pfx("2001:db8::1");
	p[3] = pfx("2001:db8::2");
	assert_int_equal(kmd_routes_sync(r, p, 4, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	out = ip_routes(254, "proto 252");
	assert_int_equal(count_lines(out), 4);
	assert_non_null(strstr(out, "blackhole 192.0.2.1 "));
	assert_non_null(strstr(out, "blackhole 192.0.2.2 "));
	assert_non_null(strstr(out, "blackhole 2001:db8::1 "));
	assert_non_null(strstr(out, "blackhole 2001:db8::2 "));
	assert_sent(m, 4, 0);

	/* Again, in another order: nothing is sent. */
	p[0] = pfx("2001:db8::2");
	p[3] = pfx("192.0.2.1");
	assert_int_equal(kmd_routes_sync(r, p, 4, err, sizeof(err)), 0);
	assert_sent(m, 0, 0);
	assert_int_equal(count_lines(ip_routes(254, "proto 252")), 4);
	/* 2001:db8::2 twice, 2001:db8::1, 192.0.2.1: just 192.0.2.2 goes. */
	p[1] = p[0];
	assert_int_equal(kmd_routes_sync(r, p, 4, err, sizeof(err)), 0);
	assert_sent(m, 0, 1);
	out = ip_routes(254, "proto 252");
	assert_int_equal(count_lines(out), 3);
	assert_null(strstr(out, "192.0.2.2 "));

	/* Without 192.0.2.1: just it goes. */
	assert_int_equal(kmd_routes_sync(r, p, 3, err, sizeof(err)), 0);
	assert_sent(m, 0, 1);
	out = ip_routes(254, "proto 252");
	assert_int_equal(count_lines(out), 2);
	assert_non_null(strstr(out, "blackhole 2001:db8::1 "));
	assert_non_null(strstr(out, "blackhole 2001:db8::2 "));

	/* Routes of our protocol that are not what we add: replaced by the blackhole. */
	sh("ip -6 route replace unreachable 2001:db8::1/128 proto 252");
	sh("ip route add 192.0.2.1/32 dev lo proto 252");	/* scope link */
	assert_int_equal(kmd_routes_sync(r, p, 4, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	out = ip_routes(254, "proto 252");
	assert_int_equal(count_lines(out), 3);
	assert_non_null(strstr(out, "blackhole 2001:db8::1 "));
	assert_non_null(strstr(out, "blackhole 192.0.2.1 "));

	assert_int_equal(kmd_routes_flush(r, err, sizeof(err)), 0);
	assert_string_equal(ip_routes(254, "proto 252"), "");
	monitor_read(m, &a, &d);
	/* Flushing an empty table is no error, and sends nothing. */
	assert_int_equal(kmd_routes_flush(r, err, sizeof(err)), 0);
	assert_sent(m, 0, 0);
	mnl_socket_close(m);
	kmd_routes_close(r);
}

static void test_other_protocol(void **state)
{
	struct bgp_prefix p[4];
	struct kmd_routes *r;
	const char *out;
	int ret;

	NEED_NETNS();
	r = open_ok(254);
	sh("ip route add blackhole 198.51.100.7/32 proto static");
	sh("ip -6 route add unreachable 2001:db8::7/128 proto bird");
	sh("ip route add blackhole 198.51.100.8/32 proto 251");
	p[0] = pfx("198.51.100.1");
	p[1] = pfx("198.51.100.7");
	p[2] = pfx("2001:db8::7");
	p[3] = pfx("2001:db8::1");
	ret = kmd_routes_sync(r, p, 4, err, sizeof(err));
	assert_int_equal(ret, -EEXIST);
	/* The first conflict is named, with its protocol. */
	assert_non_null(strstr(err, "198.51.100.7/32"));
	assert_non_null(strstr(err, "protocol 4 (static)"));
	/* The others were still added, and the conflicts not. */
	out = ip_routes(254, "proto 252");
	assert_int_equal(count_lines(out), 2);
	assert_non_null(strstr(out, "198.51.100.1 "));
	assert_non_null(strstr(out, "2001:db8::1 "));
	/* Without the IPv4 one, the IPv6 one is reported. */
	p[1] = p[3];
	ret = kmd_routes_sync(r, p, 3, err, sizeof(err));
	assert_int_equal(ret, -EEXIST);
	assert_non_null(strstr(err, "2001:db8::7/128"));
	assert_non_null(strstr(err, "(bird)"));
	/* Another's route beside ours (another metric), added later: reported, ours stays. */
	sh("ip route add blackhole 198.51.100.1/32 proto static metric 10");
	assert_int_equal(kmd_routes_sync(r, p, 3, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "198.51.100.1/32"));
	assert_non_null(strstr(err, "ours kept beside it"));
	assert_non_null(strstr(ip_routes(254, "proto 252"), "198.51.100.1 "));
	/* Flushing leaves them alone too. */
	assert_int_equal(kmd_routes_flush(r, err, sizeof(err)), 0);
	assert_string_equal(ip_routes(254, "proto 252"), "");
	out = ip_routes(254, "");
	assert_non_null(strstr(out, "blackhole 198.51.100.7 proto static"));
	assert_non_null(strstr(out, "unreachable 2001:db8::7 dev lo proto bird"));
	assert_non_null(strstr(out, "blackhole 198.51.100.8 proto 251"));
	sh("ip route del 198.51.100.7/32 proto static");
	sh("ip -6 route del 2001:db8::7/128 proto bird");
	sh("ip route del 198.51.100.8/32 proto 251");
	sh("ip route del 198.51.100.1/32 proto static metric 10");
	kmd_routes_close(r);
}

/* Tables above 255 (RTA_TABLE only), one that does not exist yet, and two tables apart. */
static void test_big_table(void **state)
{
	static const uint32_t tables[] = { 1000, 4000000000u };
	struct kmd_routes *r[2], *main_r;
	struct bgp_prefix p[2];
	const char *out;
	unsigned int i;

	NEED_NETNS();
	main_r = open_ok(254);
	for (i = 0; i < 2; i++)
		r[i] = open_ok(tables[i]);
	/* Nothing in a table that was never made */
	assert_int_equal(kmd_routes_flush(r[0], err, sizeof(err)), 0);
	p[0] = pfx("203.0.113.5");
	p[1] = pfx("2001:db8:5::5");
	assert_int_equal(kmd_routes_sync(r[0], p, 2, err, sizeof(err)), 0);
	assert_int_equal(kmd_routes_sync(r[1], p, 1, err, sizeof(err)), 0);
	assert_int_equal(kmd_routes_sync(main_r, p + 1, 1, err, sizeof(err)), 0);
	out = ip_routes(1000, "proto 252");
	assert_int_equal(count_lines(out), 2);
	assert_non_null(strstr(out, "blackhole 203.0.113.5 "));
	assert_non_null(strstr(out, "blackhole 2001:db8:5::5 "));
	out = ip_routes(4000000000u, "proto 252");
	assert_int_equal(count_lines(out), 1);
	assert_non_null(strstr(out, "blackhole 203.0.113.5 "));
	/* Each owns its own table only. */
	assert_int_equal(kmd_routes_sync(r[1], NULL, 0, err, sizeof(err)), 0);
	assert_string_equal(ip_routes(4000000000u, "proto 252"), "");
	assert_int_equal(count_lines(ip_routes(1000, "proto 252")), 2);
	assert_int_equal(count_lines(ip_routes(254, "proto 252")), 1);
	assert_int_equal(kmd_routes_flush(r[0], err, sizeof(err)), 0);
	assert_string_equal(ip_routes(1000, "proto 252"), "");
	assert_int_equal(count_lines(ip_routes(254, "proto 252")), 1);
	assert_int_equal(kmd_routes_flush(main_r, err, sizeof(err)), 0);
	for (i = 0; i < 2; i++)
		kmd_routes_close(r[i]);
	kmd_routes_close(main_r);
}

/* Another protocol number is another owner: ours are not its, and its are not ours. */
static void test_two_protocols(void **state)
{
	struct kmd_routes *a, *b;
	struct bgp_prefix p[2];

	NEED_NETNS();
	a = open_ok(254);
	b = kmd_routes_open(254, 200, err, sizeof(err));
	assert_non_null(b);
	p[0] = pfx("192.0.2.100");
	p[1] = pfx("192.0.2.101");
	assert_int_equal(kmd_routes_sync(a, p, 1, err, sizeof(err)), 0);
	assert_int_equal(kmd_routes_sync(b, p + 1, 1, err, sizeof(err)), 0);
	assert_int_equal(kmd_routes_flush(b, err, sizeof(err)), 0);
	assert_int_equal(count_lines(ip_routes(254, "proto 252")), 1);
	assert_int_equal(kmd_routes_sync(b, p, 1, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "192.0.2.100/32 in table 254 is a route of protocol 252"));
	assert_string_equal(ip_routes(254, "proto 200"), "");
	assert_int_equal(kmd_routes_flush(a, err, sizeof(err)), 0);
	kmd_routes_close(a);
	kmd_routes_close(b);
}

static int setup(void **state)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNET))
		return 0;	/* the cases that need it skip */
	/* IPv6 routes go through lo; ip(8) must be there to look. */
	usable = system("ip link set lo up 2>/dev/null") == 0;
	return 0;
}

/*
 * "test_routes sync TABLE PROTO ADDR...", "test_routes flush TABLE PROTO": do just that in the
 * current network namespace, for scripts (selftests/net/bgp_snippets.sh) that want routes
 * from routes.c itself.
 */
static int driver(int argc, char **argv)
{
	struct bgp_prefix *p = calloc(argc, sizeof(*p));
	struct kmd_routes *r;
	unsigned int n = 0;
	int i, ret;

	if (argc < 4 || !p || (strcmp(argv[1], "sync") && strcmp(argv[1], "flush"))) {
		fprintf(stderr, "usage: %s sync|flush TABLE PROTO [ADDR...]\n", argv[0]);
		return 2;
	}
	for (i = 4; i < argc; i++, n++) {
		if (inet_pton(AF_INET, argv[i], &p[n].v4) == 1) {
			p[n].family = AF_INET;
			p[n].len = 32;
		} else if (inet_pton(AF_INET6, argv[i], &p[n].v6) == 1) {
			p[n].family = AF_INET6;
			p[n].len = 128;
		} else {
			fprintf(stderr, "%s: not an address\n", argv[i]);
			return 2;
		}
	}
	r = kmd_routes_open(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0), err,
			    sizeof(err));
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (!strcmp(argv[1], "sync"))
		ret = kmd_routes_sync(r, p, n, err, sizeof(err));
	else
		ret = kmd_routes_flush(r, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	kmd_routes_close(r);
	free(p);
	return !!ret;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_bad_prefix),
		cmocka_unit_test(test_sync_main),
		cmocka_unit_test(test_other_protocol),
		cmocka_unit_test(test_big_table),
		cmocka_unit_test(test_two_protocols),
	};

	if (argc > 1)
		return driver(argc, argv);
	return cmocka_run_group_tests_name("routes", tests, setup, NULL);
}
