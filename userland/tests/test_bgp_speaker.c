// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the BGP speaker (bgp/speaker.c) on loopback: two of our own speakers, each
 * listening on its own address and connecting to the other at once, so that every session
 * starts with a connection collision (RFC 4271 6.8) that must leave exactly one session;
 * a passive side; route changes counted on the receiving side; Cease at the end. BFD tied to
 * a session, against a BFD peer of the test's own (bfd.c's state machine on a socket): its
 * AdminDown leaves the session up, its silence resets it with Cease/BFD Down.
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
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

#include "bgp/speaker.h"
#include "bgp/speaker_int.h"

static struct bgp_peer_cfg pcfg[2];
static uint32_t as_override;		/* speaker 0 claims this AS instead of 65001 */
static uint16_t bfd_port;		/* speaker 0 has BFD to 127.0.0.2 on this port */

static struct bgp_speaker *mk(struct ev_loop *loop, int i, uint16_t port, uint16_t peer_port,
			      bool passive)
{
	static const char *const addr[2] = { "127.0.0.1", "127.0.0.2" };
	struct bgp_speaker_cfg c = { .asn = i == 0 && as_override ? as_override : 65001u + i,
				     .listen_port = port, .local_pref = 100,
				     .gr_time = 30, .peers = &pcfg[i], .npeers = 1,
				     .bfd_port = bfd_port };
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
	if (bfd_port && i == 0) {
		p->bfd = true;
		p->bfd_params = (struct bfd_params){ 50000, 50000, 3 };
	}
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

/* --- BFD ---------------------------------------------------------------------------------- */

/*
 * The BFD side of the neighbour at 127.0.0.2 (speaker 1 has none): a bfd_sess of its own on a
 * socket bound to 127.0.0.2:bfd_port, in a thread; it answers while @answer.
 */
struct bfd_peer {
	int fd;
	uint16_t port;
	volatile bool run;
	bool answer;
	struct bfd_sess s;
	pthread_mutex_t mu;
	pthread_t thr;
};

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *bfd_peer_main(void *arg)
{
	struct bfd_peer *bp = arg;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(bp->port) };
	int ttl = 255;

	to.sin_addr.s_addr = htonl(0x7f000001);
	setsockopt(bp->fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	while (bp->run) {
		struct pollfd pfd = { .fd = bp->fd, .events = POLLIN };
		uint8_t buf[64];
		struct bfd_pkt p;
		const char *why;
		ssize_t n;

		poll(&pfd, 1, 5);
		pthread_mutex_lock(&bp->mu);
		n = recv(bp->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && bp->answer && !bfd_pkt_decode(buf, n, &p, &why))
			bfd_sess_rx(&bp->s, &p, mono_us());
		if (bp->answer && bfd_sess_tx(&bp->s, &p, mono_us(), (uint32_t)random())) {
			bfd_pkt_encode(&p, buf);
			sendto(bp->fd, buf, BFD_PKT_LEN, 0, (struct sockaddr *)&to, sizeof(to));
		}
		bfd_sess_expire(&bp->s, mono_us());
		pthread_mutex_unlock(&bp->mu);
	}
	return NULL;
}

static bool bfd_up(void)
{
	struct bgp_peer_info a = info(0);

	return a.has_bfd && a.bfd.s.state == BFD_UP && a.state == BGP_ESTABLISHED;
}

static bool bfd_down(void)
{
	struct bgp_peer_info a = info(0);

	return a.has_bfd && a.bfd.s.state == BFD_DOWN;
}

static bool reset_by_bfd(void)
{
	return strstr(info(1).last_error, "received Cease/BFD Down") != NULL;
}

static bool never(void)
{
	return false;
}

static bool reset_again(void)
{
	return strstr(info(0).last_error, "BFD Down, and up again since") != NULL;
}

/* Wait for speaker 0's BFD session to be in @want, its loop not running, at most @secs. */
static bool wait_bfd(enum bfd_state want, double secs)
{
	ev_tstamp end = ev_time() + secs;

	while (info(0).bfd.s.state != want && ev_time() < end)
		usleep(5000);
	return info(0).bfd.s.state == want;
}

/*
 * BFD tied to the session (RFC 5882): the peer's AdminDown takes BFD down but not the BGP
 * session; the peer falling silent takes both down, with Cease/BFD Down, within the detection
 * time (50 ms x 3) while the hold time is 9 s.
 */
static void test_bfd(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	uint16_t base = 30000 + (getpid() % 5000) * 3;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct bfd_peer bp = { .run = true, .answer = true };
	struct bgp_peer_info a;
	uint64_t downs;
	int one = 1;
	double t0;

	bp.fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(bp.fd >= 0);
	setsockopt(bp.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(base + 2);
	sa.sin_addr.s_addr = htonl(0x7f000002);
	if (bind(bp.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(bp.fd);
		skip();
	}
	bfd_port = bp.port = base + 2;
	S[0] = mk(loop, 0, base, base + 1, false);
	S[1] = mk(loop, 1, base + 1, base, true);
	bfd_port = 0;
	if (!S[0] || !S[1])
		skip();
	pthread_mutex_init(&bp.mu, NULL);
	bfd_sess_init(&bp.s, 0x5151, &(struct bfd_params){ 50000, 50000, 3 }, mono_us());
	assert_int_equal(pthread_create(&bp.thr, NULL, bfd_peer_main, &bp), 0);
	if (!run_until(loop, bfd_up, 10)) {
		a = info(0);
		fail_msg("BFD: has %d state %s rx %llu tx %llu error \"%s\" send \"%s\"", a.has_bfd,
			 bfd_state_name(a.bfd.s.state), (unsigned long long)a.bfd.s.rx,
			 (unsigned long long)a.bfd.s.tx, a.bfd_error, a.bfd.err);
	}
	a = info(0);
	assert_int_equal(a.bfd.s.remote_disc, 0x5151);
	assert_int_equal(bfd_sess_detect_time(&a.bfd.s), 150000);
	assert_string_equal(a.bfd_error, "");

	/* the peer's AdminDown: BFD Down, the session stays (and BFD comes back) */
	pthread_mutex_lock(&bp.mu);
	bfd_sess_admin(&bp.s, true, mono_us());
	pthread_mutex_unlock(&bp.mu);
	assert_true(run_until(loop, bfd_down, 2));
	assert_int_equal(info(0).bfd.s.remote_state, BFD_ADMIN_DOWN);
	run_until(loop, reset_by_bfd, 0.5);
	assert_int_equal(info(0).state, BGP_ESTABLISHED);
	assert_int_equal(info(0).established, 1);
	pthread_mutex_lock(&bp.mu);
	bfd_sess_admin(&bp.s, false, mono_us());
	pthread_mutex_unlock(&bp.mu);
	assert_true(run_until(loop, bfd_up, 5));
	assert_int_equal(info(0).established, 1);

	/* silence: BFD Down after 150 ms, the session reset with Cease/BFD Down */
	pthread_mutex_lock(&bp.mu);
	bp.answer = false;
	pthread_mutex_unlock(&bp.mu);
	t0 = ev_time();
	assert_true(run_until(loop, reset_by_bfd, 3));
	if (ev_time() - t0 > 1.5)
		fail_msg("reset %.2f s after the silence", ev_time() - t0);
	a = info(0);
	assert_int_equal(a.bfd.s.diag, BFD_DIAG_TIME_EXPIRED);
	assert_non_null(strstr(a.last_error, "BFD Down"));

	/*
	 * BFD goes Down and Up again while the daemon's loop is busy: the one event it then hears
	 * (Up -> Up, one Down in between) still resets the session.
	 */
	pthread_mutex_lock(&bp.mu);
	bp.answer = true;
	pthread_mutex_unlock(&bp.mu);
	assert_true(run_until(loop, bfd_up, 10));
	run_until(loop, never, 0.1);		/* the owner has heard of Up */
	downs = info(0).bfd.s.downs;
	pthread_mutex_lock(&bp.mu);
	bp.answer = false;
	pthread_mutex_unlock(&bp.mu);
	assert_true(wait_bfd(BFD_DOWN, 2));
	pthread_mutex_lock(&bp.mu);
	bp.answer = true;
	pthread_mutex_unlock(&bp.mu);
	assert_true(wait_bfd(BFD_UP, 5));
	assert_int_equal(info(0).state, BGP_ESTABLISHED);
	assert_true(run_until(loop, reset_again, 1));
	assert_int_equal(info(0).bfd.s.downs, downs + 1);

	bp.run = false;
	pthread_join(bp.thr, NULL);
	close(bp.fd);
	bgp_speaker_free(S[0]);
	bgp_speaker_free(S[1]);
	ev_loop_destroy(loop);
}

/*
 * The BFD log of a flapping neighbour: BFD_LOG_BURST lines in a window, the rest counted, and
 * lines again once the window is over.
 */
static void test_bfd_log_limit(void **state)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct bgp_speaker sp = { .loop = loop };
	struct bgp_peer p = { .sp = &sp };
	unsigned int i, ok = 0;

	for (i = 0; i < 3 * BFD_LOG_BURST; i++)
		ok += bfd_log_ok(&sp, &p);
	assert_int_equal(ok, BFD_LOG_BURST);
	assert_int_equal(p.bfd_log_dropped, 2 * BFD_LOG_BURST);
	/* the window is over (it started BFD_LOG_WINDOW ago): a line again */
	p.bfd_log_t0 = ev_now(loop) - BFD_LOG_WINDOW;
	assert_true(bfd_log_ok(&sp, &p));
	assert_int_equal(p.bfd_log_n, 1);
	ev_loop_destroy(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collision),
		cmocka_unit_test(test_passive),
		cmocka_unit_test(test_bad_as),
		cmocka_unit_test(test_bfd),
		cmocka_unit_test(test_bfd_log_limit),
	};

	return cmocka_run_group_tests_name("bgp_speaker", tests, NULL, NULL);
}
