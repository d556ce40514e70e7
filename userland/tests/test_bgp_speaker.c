// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the BGP speaker (bgp/speaker.c) on loopback: two of our own speakers, each
 * listening on its own address and connecting to the other at once, so that every session
 * starts with a connection collision (RFC 4271 6.8) that must leave exactly one session;
 * a passive side; route changes counted on the receiving side; Cease at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <arpa/inet.h>

#include "bgp/speaker.h"

static struct bgp_peer_cfg pcfg[2];
static uint32_t as_override;		/* speaker 0 claims this AS instead of 65001 */

static struct bgp_speaker *mk(struct ev_loop *loop, int i, uint16_t port, uint16_t peer_port,
			      bool passive)
{
	static const char *const addr[2] = { "127.0.0.1", "127.0.0.2" };
	struct bgp_speaker_cfg c = { .asn = i == 0 && as_override ? as_override : 65001u + i,
				     .listen_port = port, .local_pref = 100,
				     .gr_time = 30, .peers = &pcfg[i], .npeers = 1 };
	struct bgp_peer_cfg *p = &pcfg[i];
	struct bgp_speaker *s;
	char err[256];

	memset(p, 0, sizeof(*p));
	p->port = peer_port;
	p->asn = 65001 + !i;
	p->hold_time = 9;
	p->passive = passive;
	p->addr.family = AF_INET;
	inet_pton(AF_INET, addr[!i], &p->addr.v4);
	c.listen.family = AF_INET;
	inet_pton(AF_INET, addr[i], &c.listen.v4);
	inet_pton(AF_INET, addr[i], &c.router_id);
	s = bgp_speaker_new(loop, &c, false, err, sizeof(err));
	if (!s)
		print_message("# %s\n", err);
	return s;
}

static struct bgp_speaker *S[2];

/* Run the loop until @cond holds (checked every 20 ms), at most @secs. */
static bool run_until(struct ev_loop *loop, bool (*cond)(void), double secs)
{
	ev_tstamp end = ev_time() + secs;

	while (!cond() && ev_time() < end)
		ev_run(loop, EVRUN_ONCE | EVRUN_NOWAIT), usleep(20000);
	return cond();
}

static struct bgp_peer_info info(int i)
{
	struct bgp_peer_info pi;

	bgp_speaker_peer_info(S[i], 0, &pi);
	return pi;
}

static bool both_up(void)
{
	return info(0).state == BGP_ESTABLISHED && info(1).state == BGP_ESTABLISHED;
}

static struct bgp_route R[3];

static void routes(void)
{
	static const char *const a[3] = { "192.0.2.1", "192.0.2.2", "192.0.2.3" };
	int i;

	for (i = 0; i < 3; i++) {
		memset(&R[i], 0, sizeof(R[i]));
		R[i].pfx.family = AF_INET;
		R[i].pfx.len = 32;
		inet_pton(AF_INET, a[i], &R[i].pfx.v4);
		R[i].announce = true;
	}
}

static uint64_t updates_to_1;

static bool more_updates(void)
{
	return info(1).updates_in > updates_to_1;
}

static void test_pair(bool passive)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	uint16_t base = 20000 + (getpid() % 10000) * 2 + (passive ? 20000 : 0);
	struct bgp_peer_info a, b;

	assert_non_null(loop);
	S[0] = mk(loop, 0, base, base + 1, false);
	S[1] = mk(loop, 1, base + 1, base, passive);
	if (!S[0] || !S[1])
		skip();		/* loopback addresses or ports not available here */
	routes();
	bgp_speaker_set_routes(S[0], R, 3);
	assert_true(run_until(loop, both_up, 10));
	a = info(0);
	b = info(1);
	/* one session each, up once: the collision left one connection, no flap */
	assert_int_equal(a.established, 1);
	assert_int_equal(b.established, 1);
	assert_true(a.v4 && !a.v6);
	assert_int_equal(a.hold_time, 9);
	assert_int_equal(a.announced, 3);
	assert_int_equal(b.announced, 0);
	/* the three prefixes in one UPDATE, then End-of-RIB */
	updates_to_1 = 1;
	assert_true(run_until(loop, more_updates, 5));
	assert_int_equal(info(1).updates_in, 2);
	/* a withdrawal is one more message on the other side */
	updates_to_1 = info(1).updates_in;
	R[1].announce = false;
	bgp_speaker_set_routes(S[0], R, 3);
	assert_true(run_until(loop, more_updates, 5));
	assert_int_equal(info(0).announced, 2);
	/* the same set again sends nothing */
	updates_to_1 = info(1).updates_in;
	bgp_speaker_set_routes(S[0], R, 3);
	assert_false(run_until(loop, more_updates, 0.3));
	/* graceful shutdown re-announces what is announced, with the community */
	bgp_speaker_graceful_shutdown(S[0], true);
	assert_true(run_until(loop, more_updates, 5));
	assert_true(bgp_speaker_gshut(S[0]));
	/* Cease: the other side sees it and goes back to trying */
	bgp_speaker_stop(S[0], "test over");
	assert_true(run_until(loop, both_up, 0.2) == false);
	assert_int_not_equal(info(1).state, BGP_ESTABLISHED);
	assert_non_null(strstr(info(1).last_error, "Administrative Shutdown: test over"));
	bgp_speaker_free(S[0]);
	bgp_speaker_free(S[1]);
	ev_loop_destroy(loop);
}

static void test_collision(void **state)
{
	test_pair(false);
}

static void test_passive(void **state)
{
	test_pair(true);
}

/* A wrong AS is refused with its NOTIFICATION, and the other side hears why. */
static void test_bad_as(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	uint16_t base = 10000 + (getpid() % 5000) * 2;

	as_override = 65009;
	S[0] = mk(loop, 0, base, base + 1, false);
	S[1] = mk(loop, 1, base + 1, base, true);
	as_override = 0;
	if (!S[0] || !S[1])
		skip();
	assert_false(run_until(loop, both_up, 2));
	assert_non_null(strstr(info(1).last_error, "sent OPEN Message Error/Bad Peer AS"));
	assert_non_null(strstr(info(0).last_error, "received OPEN Message Error/Bad Peer AS"));
	bgp_speaker_free(S[0]);
	bgp_speaker_free(S[1]);
	ev_loop_destroy(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collision),
		cmocka_unit_test(test_passive),
		cmocka_unit_test(test_bad_as),
	};

	return cmocka_run_group_tests_name("bgp_speaker", tests, NULL, NULL);
}
