// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of BFD (bgp/bfd.c, bgp/bfd_io.c): the control packet's codec against bytes
 * written by hand from RFC 5880 4.1, every field the decoder must refuse, the state machine
 * (two sessions talking, detection, the peer's Down and AdminDown, Poll/Final, the slow rate
 * while not Up, jitter, a detection time past 32 bits), and the thread on real sockets with a
 * peer on 127.0.0.2: the session comes up, stays up while the owner's loop does not run for
 * 2 s, drops packets with a TTL below 255, and goes down a detection time after the peer falls
 * silent; changes while the owner's loop does not run come as one event; the same over IPv6
 * in a namespace of its own (hop limit 254 dropped); a session added and removed 1000 times
 * while the peer sends (memory flat, no crash).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bgp/bfd.h"
#include "bgp/bfd_io.h"

#define MS 1000ull

static const struct bfd_params P300 = { 300000, 300000, 3 };

/* --- codec ------------------------------------------------------------------------------ */

static void test_codec(void **state)
{
	/* version 1, diag 3; state Up, P and C bits; mult 5; length 24; then the five words */
	static const uint8_t want[24] = {
		0x23, 0xe8, 0x05, 0x18, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0x00, 0x04, 0x93, 0xe0, 0x00, 0x0f, 0x42, 0x40, 0x00, 0x00, 0x00, 0x00,
	};
	struct bfd_pkt p = {
		.version = 1, .diag = 3, .state = BFD_UP, .poll = true, .cpi = true,
		.detect_mult = 5, .length = 24, .my_disc = 0x11223344, .your_disc = 0x55667788,
		.des_min_tx_us = 300000, .req_min_rx_us = 1000000,
	}, q;
	const char *why = NULL;
	uint8_t buf[24];

	assert_int_equal(bfd_pkt_encode(&p, buf), 24);
	assert_memory_equal(buf, want, 24);
	assert_int_equal(bfd_pkt_decode(want, 24, &q, &why), 0);
	assert_int_equal(q.version, 1);
	assert_int_equal(q.diag, 3);
	assert_int_equal(q.state, BFD_UP);
	assert_true(q.poll && q.cpi);
	assert_false(q.final || q.auth || q.demand || q.multipoint);
	assert_int_equal(q.detect_mult, 5);
	assert_int_equal(q.my_disc, 0x11223344);
	assert_int_equal(q.your_disc, 0x55667788);
	assert_int_equal(q.des_min_tx_us, 300000);
	assert_int_equal(q.req_min_rx_us, 1000000);
	/* F alone */
	p.poll = false;
	p.final = true;
	bfd_pkt_encode(&p, buf);
	assert_int_equal(buf[1], 0xd8);
	/* trailing bytes beyond the length field are allowed (the UDP payload is longer) */
	uint8_t longer[30] = { 0 };

	memcpy(longer, want, 24);
	assert_int_equal(bfd_pkt_decode(longer, 30, &q, &why), 0);
}

/* @b with byte @i set to @v must fail to decode, naming @field */
static void refuse(const uint8_t *good, size_t len, int i, uint8_t v, const char *field)
{
	uint8_t b[32];
	struct bfd_pkt q;
	const char *why = NULL;

	memcpy(b, good, len);
	if (i >= 0)
		b[i] = v;
	assert_int_equal(bfd_pkt_decode(b, len, &q, &why), -1);
	assert_non_null(why);
	if (!strstr(why, field))
		fail_msg("want \"%s\" in \"%s\"", field, why);
}

static void test_decode_refuses(void **state)
{
	struct bfd_pkt p = {
		.version = 1, .state = BFD_DOWN, .detect_mult = 3, .length = 24, .my_disc = 7,
		.des_min_tx_us = 1000000, .req_min_rx_us = 300000,
	}, q;
	const char *why;
	uint8_t g[32] = { 0 };

	bfd_pkt_encode(&p, g);
	assert_int_equal(bfd_pkt_decode(g, 24, &q, &why), 0);
	refuse(g, 23, -1, 0, "length");
	refuse(g, 24, 0, 0x40, "version");		/* version 2 */
	refuse(g, 24, 0, 0x00, "version");		/* version 0 */
	refuse(g, 24, 3, 23, "length");			/* length field 23 */
	refuse(g, 24, 3, 25, "length");			/* longer than what came */
	refuse(g, 24, 2, 0, "detect multiplier");
	refuse(g, 24, 1, 0x41, "multipoint");		/* Down, M */
	refuse(g, 24, 7, 0, "my discriminator");	/* my disc 0 */
	refuse(g, 24, 1, 0xc0, "your discriminator");	/* Up with your disc 0 */
	refuse(g, 24, 1, 0x80, "your discriminator");	/* Init with your disc 0 */
	/* the A bit: 24 bytes are too short for it, 26 need authentication we do not have */
	refuse(g, 24, 1, 0x44, "length");
	g[1] = 0x44;
	g[3] = 26;
	refuse(g, 26, -1, 0, "authentication");
	/* AdminDown with your disc 0 is fine */
	g[1] = 0x00;
	g[3] = 24;
	assert_int_equal(bfd_pkt_decode(g, 24, &q, &why), 0);
	assert_int_equal(q.state, BFD_ADMIN_DOWN);
}

/* --- state machine ------------------------------------------------------------------------ */

/* What @from sends at @now (it must send), delivered to @to. Whether @to changed state. */
static bool deliver(struct bfd_sess *from, struct bfd_sess *to, uint64_t now, struct bfd_pkt *out)
{
	struct bfd_pkt p, q;
	uint8_t buf[24];
	const char *why;

	from->tx_now = true;
	assert_true(bfd_sess_tx(from, &p, now, 0));
	bfd_pkt_encode(&p, buf);
	assert_int_equal(bfd_pkt_decode(buf, 24, &q, &why), 0);
	if (out)
		*out = q;
	return bfd_sess_rx(to, &q, now);
}

/* A and B up, their Poll sequences done; at time 1 s. */
static void bring_up(struct bfd_sess *a, struct bfd_sess *b)
{
	uint64_t t = 1000 * MS;
	struct bfd_pkt p;

	bfd_sess_init(a, 1, &P300, 0);
	bfd_sess_init(b, 2, &P300, 0);
	assert_true(deliver(a, b, t, &p));		/* Down -> B Init */
	assert_int_equal(p.state, BFD_DOWN);
	assert_int_equal(p.your_disc, 0);
	assert_int_equal(p.des_min_tx_us, 1000000);	/* slow while not Up */
	assert_int_equal(b->state, BFD_INIT);
	assert_true(deliver(b, a, t, &p));		/* Init -> A Up */
	assert_int_equal(p.your_disc, 1);
	assert_int_equal(a->state, BFD_UP);
	assert_true(a->polling);			/* 1 s -> 300 ms: a Poll */
	assert_true(deliver(a, b, t, &p));		/* Up, P -> B Up */
	assert_true(p.poll);
	assert_int_equal(p.des_min_tx_us, 300000);
	assert_int_equal(b->state, BFD_UP);
	assert_false(deliver(b, a, t, &p));		/* B: F for A's P (its own P waits) */
	assert_true(p.final);
	assert_false(p.poll);
	assert_false(a->polling);
	assert_false(deliver(b, a, t, &p));		/* B's own P */
	assert_true(p.poll);
	assert_false(deliver(a, b, t, &p));		/* A's F */
	assert_true(p.final);
	assert_false(b->polling);
	assert_int_equal(bfd_sess_tx_interval(a), 300000);
	assert_int_equal(bfd_sess_detect_time(a), 900000);
}

static void test_handshake_and_detection(void **state)
{
	struct bfd_sess a, b;
	uint64_t t = 1000 * MS;

	bring_up(&a, &b);
	assert_int_equal(a.remote_disc, 2);
	assert_int_equal(a.ups, 1);
	assert_int_equal(a.detect_at, t + 900 * MS);
	/* silence: not before the detection time, at it Down with diag 1 */
	assert_false(bfd_sess_expire(&a, t + 899 * MS));
	assert_int_equal(a.state, BFD_UP);
	/* the same parameters again (a reload) do not postpone it */
	bfd_sess_set_params(&a, &P300, t + 800 * MS);
	assert_int_equal(a.detect_at, t + 900 * MS);
	assert_false(a.polling);
	assert_true(bfd_sess_expire(&a, t + 900 * MS));
	assert_int_equal(a.state, BFD_DOWN);
	assert_int_equal(a.diag, BFD_DIAG_TIME_EXPIRED);
	assert_int_equal(a.remote_disc, 0);
	assert_int_equal(a.downs, 1);
	assert_int_equal(a.detect_at, 0);
	/* back to the slow rate, and the next packet tells the peer why */
	assert_int_equal(a.des_min_tx_us, 1000000);
	{
		struct bfd_pkt p;

		assert_true(bfd_sess_tx(&a, &p, t + 900 * MS, 0));
		assert_int_equal(p.state, BFD_DOWN);
		assert_int_equal(p.diag, BFD_DIAG_TIME_EXPIRED);
		assert_int_equal(p.your_disc, 0);
	}
	/* B hears A's Down: B goes Down too (neighbour signaled) */
	assert_true(deliver(&a, &b, t + 901 * MS, NULL));
	assert_int_equal(b.state, BFD_DOWN);
	assert_int_equal(b.diag, BFD_DIAG_NEIGHBOR_DOWN);
}

static void test_detect_uses_remote_mult(void **state)
{
	struct bfd_sess a, b;
	struct bfd_params p5 = { 300000, 300000, 5 }, slow = { 500000, 300000, 5 };

	bring_up(&a, &b);
	bfd_sess_set_params(&b, &p5, 1000 * MS);
	deliver(&b, &a, 1000 * MS, NULL);
	/* A's detection: B's multiplier (5) x max(A's min rx, B's min tx) */
	assert_int_equal(bfd_sess_detect_time(&a), 1500000);
	bfd_sess_set_params(&b, &slow, 1000 * MS);
	deliver(&b, &a, 1000 * MS, NULL);
	assert_int_equal(bfd_sess_detect_time(&a), 2500000);
}

/*
 * The peer chooses its multiplier and interval (255 x 16.84 s): the detection time is 71.6
 * minutes, not the 32-bit wrap of it (a few seconds, a session that flaps for nothing).
 */
static void test_detect_time_large(void **state)
{
	struct bfd_params p = { 300000, 300000, 3 };
	struct bfd_pkt pk = { .version = BFD_VERSION, .state = BFD_DOWN, .detect_mult = 255,
			      .length = BFD_PKT_LEN, .my_disc = 7, .des_min_tx_us = 16843010,
			      .req_min_rx_us = 300000 };
	struct bfd_sess s;
	uint64_t now = 1000 * MS;

	bfd_sess_init(&s, 1, &p, now);
	assert_true(bfd_sess_rx(&s, &pk, now));
	assert_int_equal(s.state, BFD_INIT);
	assert_true(bfd_sess_detect_time(&s) == 255ull * 16843010);
	assert_true(s.detect_at - now == 255ull * 16843010);
	/* nothing expires an hour on */
	assert_false(bfd_sess_expire(&s, now + 3600ull * 1000 * MS));
	assert_int_equal(s.state, BFD_INIT);
	assert_true(bfd_sess_expire(&s, now + 255ull * 16843010));
}

static void test_admin_down_and_down(void **state)
{
	struct bfd_sess a, b;

	bring_up(&a, &b);
	/* the peer's AdminDown: Down, diag 3, and we know it was AdminDown */
	assert_true(bfd_sess_admin(&b, true, 2000 * MS));
	assert_true(deliver(&b, &a, 2000 * MS, NULL));
	assert_int_equal(a.state, BFD_DOWN);
	assert_int_equal(a.diag, BFD_DIAG_NEIGHBOR_DOWN);
	assert_int_equal(a.remote_state, BFD_ADMIN_DOWN);
	/* an AdminDown session ignores what comes, and says AdminDown */
	assert_false(deliver(&a, &b, 2000 * MS, NULL));
	assert_int_equal(b.state, BFD_ADMIN_DOWN);
	assert_true(bfd_sess_admin(&b, false, 2000 * MS));
	assert_int_equal(b.state, BFD_DOWN);

	/* the peer's Down while Up */
	bring_up(&a, &b);
	assert_true(bfd_sess_expire(&b, 1900 * MS));
	assert_true(deliver(&b, &a, 1900 * MS, NULL));
	assert_int_equal(a.state, BFD_DOWN);
	assert_int_equal(a.diag, BFD_DIAG_NEIGHBOR_DOWN);
	assert_int_equal(a.remote_state, BFD_DOWN);
	/* Init ignores Down from the peer; Down ignores Up */
	bfd_sess_init(&a, 1, &P300, 0);
	bfd_sess_init(&b, 2, &P300, 0);
	b.remote_disc = 1;
	b.state = BFD_UP;
	assert_false(deliver(&b, &a, 0, NULL));
	assert_int_equal(a.state, BFD_DOWN);
}

static void test_poll_final(void **state)
{
	struct bfd_sess a, b;
	struct bfd_params slower = { 1000000, 100000, 3 };
	uint64_t t = 2000 * MS;
	struct bfd_pkt p;

	bring_up(&a, &b);
	/* A sends slower and wants B faster: neither until B's Final */
	bfd_sess_set_params(&a, &slower, t);
	assert_true(a.polling);
	assert_int_equal(a.tx_eff_us, 300000);
	assert_int_equal(a.rx_eff_us, 300000);
	assert_false(deliver(&a, &b, t, &p));
	assert_true(p.poll);
	assert_int_equal(p.des_min_tx_us, 1000000);
	assert_int_equal(p.req_min_rx_us, 100000);
	/* B answers F at once, and sends to A's new min rx (max(its tx 300, A's 100) = 300) */
	assert_true(b.tx_now);
	assert_false(deliver(&b, &a, t, &p));
	assert_true(p.final);
	assert_false(a.polling);
	assert_int_equal(a.tx_eff_us, 1000000);
	assert_int_equal(a.rx_eff_us, 100000);
	assert_int_equal(bfd_sess_tx_interval(&a), 1000000);
	/* B's detection of A: A's mult x A's tx 1 s */
	assert_int_equal(bfd_sess_detect_time(&b), 3000000);
	/* sending faster and taking slower are at once */
	bfd_sess_set_params(&a, &P300, t);
	assert_int_equal(a.tx_eff_us, 300000);
	assert_int_equal(a.rx_eff_us, 300000);
	assert_true(a.polling);
	/* a change during a poll: another poll after it */
	bfd_sess_set_params(&a, &slower, t);
	assert_true(a.repoll);
	deliver(&a, &b, t, &p);				/* A's P ... */
	assert_true(p.poll);
	deliver(&b, &a, t, &p);				/* ... B's F ends the first */
	assert_true(p.final);
	assert_true(a.polling);
	assert_false(a.repoll);
	assert_int_equal(a.tx_eff_us, 1000000);
}

static void test_rates_and_jitter(void **state)
{
	struct bfd_sess a, b;
	struct bfd_params m1 = { 300000, 300000, 1 };
	struct bfd_pkt p;
	uint32_t r;
	uint64_t lo = ~0ull, hi = 0;

	/* not Up: a packet a second at most, 75..100% of it */
	bfd_sess_init(&a, 1, &P300, 0);
	for (r = 0; r < 100; r++) {
		a.next_tx = 10;
		assert_true(bfd_sess_tx(&a, &p, 10, r));
		assert_int_equal(p.des_min_tx_us, 1000000);
		lo = a.next_tx - 10 < lo ? a.next_tx - 10 : lo;
		hi = a.next_tx - 10 > hi ? a.next_tx - 10 : hi;
	}
	assert_int_equal(lo, 750000);
	assert_int_equal(hi, 1000000);
	/* nothing before it is due */
	assert_false(bfd_sess_tx(&a, &p, a.next_tx - 1, 0));
	/* Up, multiplier 1: 75..90% */
	bring_up(&a, &b);
	bfd_sess_set_params(&a, &m1, 0);
	lo = ~0ull;
	hi = 0;
	for (r = 0; r < 100; r++) {
		a.next_tx = 10;
		assert_true(bfd_sess_tx(&a, &p, 10, r));
		lo = a.next_tx - 10 < lo ? a.next_tx - 10 : lo;
		hi = a.next_tx - 10 > hi ? a.next_tx - 10 : hi;
	}
	assert_int_equal(lo, 225000);
	assert_int_equal(hi, 270000);
	/* a peer that wants no packets (Required Min RX 0) gets none but answers */
	bring_up(&a, &b);
	b.cfg.min_rx_us = 0;
	b.req_min_rx_us = 0;
	deliver(&b, &a, 3000 * MS, NULL);
	assert_int_equal(bfd_sess_tx_interval(&a), 0);
	assert_false(bfd_sess_tx(&a, &p, 9000 * MS, 0));
}

/* --- the thread, on sockets ------------------------------------------------------------------ */

#define TPORT 13784

struct fake_peer {
	int fd;				/* bound to 127.0.0.2:TPORT (or [::2]:TPORT) */
	int ttl;
	bool v6;			/* sends to [::1]:TPORT, else 127.0.0.1:TPORT */
	volatile bool run, answer;
	struct bfd_sess s;
	pthread_mutex_t mu;
	pthread_t thr;
	uint64_t got;
};

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The peer: a bfd_sess of its own on a plain socket, in a thread. */
static void *peer_main(void *arg)
{
	struct fake_peer *fp = arg;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(TPORT) };
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6, .sin6_port = htons(TPORT),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };

	to.sin_addr.s_addr = htonl(0x7f000001);
	while (fp->run) {
		struct pollfd pfd = { .fd = fp->fd, .events = POLLIN };
		uint8_t buf[64];
		struct bfd_pkt p;
		const char *why;
		ssize_t n;

		poll(&pfd, 1, 10);
		pthread_mutex_lock(&fp->mu);
		n = recv(fp->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && fp->answer && !bfd_pkt_decode(buf, n, &p, &why)) {
			fp->got++;
			bfd_sess_rx(&fp->s, &p, mono_us());
		}
		if (fp->answer && bfd_sess_tx(&fp->s, &p, mono_us(), (uint32_t)random())) {
			bfd_pkt_encode(&p, buf);
			if (fp->v6) {
				setsockopt(fp->fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &fp->ttl,
					   sizeof(fp->ttl));
				sendto(fp->fd, buf, 24, 0, (struct sockaddr *)&to6, sizeof(to6));
			} else {
				setsockopt(fp->fd, IPPROTO_IP, IP_TTL, &fp->ttl, sizeof(fp->ttl));
				sendto(fp->fd, buf, 24, 0, (struct sockaddr *)&to, sizeof(to));
			}
		}
		bfd_sess_expire(&fp->s, mono_us());
		pthread_mutex_unlock(&fp->mu);
	}
	return NULL;
}

struct seen {
	struct bfd_event ev[16];
	unsigned int n;
};

static void on_event(void *arg, const struct bfd_event *ev)
{
	struct seen *s = arg;

	if (s->n < 16)
		s->ev[s->n++] = *ev;
}

/* Run @loop (NULL: not) until the session to @a is in @want, at most @ms. */
static bool run_until(struct ev_loop *loop, struct bfd_io *io, const struct kmg_addr *a,
		      enum bfd_state want, unsigned int ms)
{
	uint64_t end = mono_us() + ms * MS;
	struct bfd_info bi;

	while (mono_us() < end) {
		if (loop)
			ev_run(loop, EVRUN_NOWAIT);
		if (bfd_io_info(io, a, &bi) && bi.s.state == want)
			return true;
		usleep(10000);
	}
	return false;
}

/* test_thread's, for its teardown: a failed assertion leaves the function, not its threads */
static struct {
	struct ev_loop *loop;
	struct bfd_io *io;
	struct fake_peer fp;
	bool peer_running;
	struct seen seen;
} T;

static void test_thread(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(TPORT) };
	struct kmg_addr peer = { .family = AF_INET }, local = { .family = AF_INET };
	struct bfd_params fast = { 50000, 50000, 3 };
	struct bfd_io_stats st;
	struct bfd_info bi;
	char err[256] = "";
	uint64_t tx0, rx0;
	int one = 1;

	T.loop = ev_loop_new(EVFLAG_AUTO);
	T.fp = (struct fake_peer){ .fd = -1, .ttl = 255, .run = true, .answer = true };
	T.seen.n = 0;
	peer.v4.s_addr = htonl(0x7f000002);
	local.v4.s_addr = htonl(0x7f000001);
	T.io = bfd_io_new_port(T.loop, on_event, &T.seen, TPORT, err, sizeof(err));
	if (!T.io)
		fail_msg("%s", err);
	T.fp.fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(T.fp.fd >= 0);
	setsockopt(T.fp.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr = peer.v4;
	if (bind(T.fp.fd, (struct sockaddr *)&sa, sizeof(sa)))
		fail_msg("bind 127.0.0.2:%d: %m", TPORT);
	pthread_mutex_init(&T.fp.mu, NULL);
	bfd_sess_init(&T.fp.s, 0xabc, &fast, mono_us());
	assert_int_equal(pthread_create(&T.fp.thr, NULL, peer_main, &T.fp), 0);
	T.peer_running = true;

	assert_int_equal(bfd_io_set(T.io, &peer, &local, &fast, err, sizeof(err)), 0);
	assert_true(run_until(T.loop, T.io, &peer, BFD_UP, 5000));
	assert_true(bfd_io_info(T.io, &peer, &bi));
	assert_int_equal(bi.s.remote_disc, 0xabc);
	assert_true(bi.src_port >= BFD_SRC_PORT_MIN);
	/*
	 * the owner hears of it on its loop: Down -> Up, one event. The thread told it (under the
	 * lock that bfd_io_info() took) but the loop may not have run since: run it once more.
	 */
	ev_run(T.loop, EVRUN_NOWAIT);
	assert_int_equal(T.seen.n, 1);
	assert_int_equal(T.seen.ev[0].old, BFD_DOWN);
	assert_int_equal(T.seen.ev[T.seen.n - 1].state, BFD_UP);

	/* the owner's T.loop stalls for 2 s: BFD goes on (50 ms x 3 would expire 13 times over) */
	tx0 = bi.s.tx;
	rx0 = bi.s.rx;
	sleep(2);
	assert_true(bfd_io_info(T.io, &peer, &bi));
	assert_int_equal(bi.s.state, BFD_UP);
	assert_int_equal(bi.s.downs, 0);
	if (bi.s.tx - tx0 < 20 || bi.s.rx - rx0 < 20)
		fail_msg("in 2 s: %llu sent, %llu received", (unsigned long long)(bi.s.tx - tx0),
			 (unsigned long long)(bi.s.rx - rx0));

	/* packets with TTL 254 are dropped: the session expires as if the peer were silent */
	pthread_mutex_lock(&T.fp.mu);
	T.fp.ttl = 254;
	pthread_mutex_unlock(&T.fp.mu);
	T.seen.n = 0;
	assert_true(run_until(T.loop, T.io, &peer, BFD_DOWN, 3000));
	bfd_io_stats(T.io, &st);
	assert_true(st.rx_ttl > 0);
	assert_true(bfd_io_info(T.io, &peer, &bi));
	assert_int_equal(bi.s.diag, BFD_DIAG_TIME_EXPIRED);
	ev_run(T.loop, EVRUN_NOWAIT);
	assert_true(T.seen.n >= 1);
	assert_int_equal(T.seen.ev[0].old, BFD_UP);
	assert_int_equal(T.seen.ev[0].state, BFD_DOWN);
	assert_int_equal(T.seen.ev[0].diag, BFD_DIAG_TIME_EXPIRED);

	/*
	 * TTL 255 again: up again; then silence: down within the detection time (150 ms); then
	 * up again. The owner's loop does not run meanwhile: it hears of it all in one event
	 * (Down -> Up, one Up -> Down in between), however many changes there were.
	 */
	T.seen.n = 0;
	pthread_mutex_lock(&T.fp.mu);
	T.fp.ttl = 255;
	pthread_mutex_unlock(&T.fp.mu);
	assert_true(run_until(NULL, T.io, &peer, BFD_UP, 5000));
	pthread_mutex_lock(&T.fp.mu);
	T.fp.answer = false;
	pthread_mutex_unlock(&T.fp.mu);
	{
		uint64_t t0 = mono_us();

		assert_true(run_until(NULL, T.io, &peer, BFD_DOWN, 2000));
		/* 150 ms, and the polling of run_until and a loaded host on top */
		if (mono_us() - t0 > 600 * MS)
			fail_msg("down after %llu ms", (unsigned long long)(mono_us() - t0) / 1000);
	}

	/* a change of parameters keeps the session (and its discriminator) */
	pthread_mutex_lock(&T.fp.mu);
	T.fp.answer = true;
	pthread_mutex_unlock(&T.fp.mu);
	assert_true(run_until(NULL, T.io, &peer, BFD_UP, 5000));
	assert_int_equal(T.seen.n, 0);
	ev_run(T.loop, EVRUN_NOWAIT);
	assert_int_equal(T.seen.n, 1);
	assert_int_equal(T.seen.ev[0].old, BFD_DOWN);
	assert_int_equal(T.seen.ev[0].state, BFD_UP);
	assert_int_equal(T.seen.ev[0].downs, 1);
	{
		struct bfd_params p2 = { 100000, 100000, 3 };
		uint32_t disc;

		assert_true(bfd_io_info(T.io, &peer, &bi));
		disc = bi.s.local_disc;
		assert_int_equal(bfd_io_set(T.io, &peer, &local, &p2, err, sizeof(err)), 0);
		usleep(500000);
		assert_true(bfd_io_info(T.io, &peer, &bi));
		assert_int_equal(bi.s.state, BFD_UP);
		assert_int_equal(bi.s.local_disc, disc);
		assert_false(bi.s.polling);		/* the peer's Final came */
		assert_int_equal(bi.s.tx_eff_us, 100000);
	}

	/* the end: the peer hears AdminDown */
	bfd_io_del(T.io, &peer);
	usleep(200000);
	assert_false(bfd_io_info(T.io, &peer, &bi));
	pthread_mutex_lock(&T.fp.mu);
	assert_int_equal(T.fp.s.remote_state, BFD_ADMIN_DOWN);
	assert_int_equal(T.fp.s.state, BFD_DOWN);
	pthread_mutex_unlock(&T.fp.mu);
}

/* After test_thread, passed or failed: its threads stop before its state goes. */
static int thread_teardown(void **state)
{
	if (T.io)
		bfd_io_free(T.io);
	T.io = NULL;
	if (T.peer_running) {
		T.fp.run = false;
		pthread_join(T.fp.thr, NULL);
		pthread_mutex_destroy(&T.fp.mu);
		T.peer_running = false;
	}
	if (T.fp.fd >= 0)
		close(T.fp.fd);
	T.fp.fd = -1;
	if (T.loop)
		ev_loop_destroy(T.loop);
	T.loop = NULL;
	return 0;
}

/*
 * The neighbour's session added and removed (reloads, 1000 times) while the peer sends its
 * Down packets (Your Discriminator 0, found by the source address): a packet may reach a
 * session the thread has not been woken for yet. Its timer was started uninitialised, then
 * initialised again while in libev's heap: the heap broke and the thread's loop grew without
 * bound (a 1.8 GB daemon). In a child with its address space limited to 1 GB (libev aborts,
 * or the alarm ends a hang); memory stays flat, every session goes.
 */
struct down_sender {
	int fd;
	volatile bool run;
	pthread_t thr;
};

static void *down_sender_main(void *arg)
{
	struct down_sender *d = arg;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(TPORT) };
	struct bfd_pkt p = { .version = BFD_VERSION, .state = BFD_DOWN, .detect_mult = 3,
			     .length = BFD_PKT_LEN, .my_disc = 0x1234, .des_min_tx_us = 300000,
			     .req_min_rx_us = 300000 };
	uint8_t buf[BFD_PKT_LEN];

	to.sin_addr.s_addr = htonl(0x7f000001);
	bfd_pkt_encode(&p, buf);
	while (d->run) {
		sendto(d->fd, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to));
		usleep(50);
	}
	return NULL;
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

static void nop_event(void *arg, const struct bfd_event *ev)
{
	(*(unsigned int *)arg)++;
}

static int add_del_child(void)
{
	struct rlimit as = { 1ul << 30, 1ul << 30 };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct kmg_addr peer = { .family = AF_INET };
	struct down_sender d = { .run = true };
	struct ev_loop *loop;
	struct bfd_info bi;
	struct bfd_io *io;
	unsigned int events = 0;
	long rss0 = 0, rss;
	char err[256];
	int i, ttl = 255, rc = 0;

	alarm(30);
	setrlimit(RLIMIT_AS, &as);
	loop = ev_loop_new(EVFLAG_AUTO);
	io = bfd_io_new_port(loop, nop_event, &events, TPORT, err, sizeof(err));
	if (!io) {
		fprintf(stderr, "# %s\n", err);
		return 1;
	}
	peer.v4.s_addr = htonl(0x7f000002);
	d.fd = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(d.fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	sa.sin_addr = peer.v4;
	if (d.fd < 0 || bind(d.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("# bind 127.0.0.2");
		return 1;
	}
	if (pthread_create(&d.thr, NULL, down_sender_main, &d))
		return 1;
	for (i = 0; i < 1000 && !rc; i++) {
		if (bfd_io_set(io, &peer, NULL, &P300, err, sizeof(err))) {
			fprintf(stderr, "# %s\n", err);
			rc = 1;
		}
		usleep(1000);
		ev_run(loop, EVRUN_NOWAIT);
		bfd_io_del(io, &peer);
		usleep(300);
		rss = rss_kb();
		if (i == 100)
			rss0 = rss;
		if (rss0 && rss > rss0 + 32768) {
			fprintf(stderr, "# iteration %d: %ld kB, %ld kB at 100\n", i, rss, rss0);
			rc = 1;
		}
	}
	d.run = false;
	pthread_join(d.thr, NULL);
	usleep(20000);
	if (!rc && bfd_io_info(io, &peer, &bi)) {
		fprintf(stderr, "# a session left after its removal\n");
		rc = 1;
	}
	/* the sessions did see the peer (Down -> Init), and the owner heard of it */
	ev_run(loop, EVRUN_NOWAIT);
	if (!rc && !events) {
		fprintf(stderr, "# no event in 1000 sessions\n");
		rc = 1;
	}
	bfd_io_free(io);
	close(d.fd);
	ev_loop_destroy(loop);
	return rc;
}

/*
 * @child in a process of its own (its threads, its network namespace, its memory measured
 * alone): passes when it returns 0, is skipped when it returns 77, fails otherwise.
 */
static void in_child(int (*child)(void))
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (!pid)
		_exit(child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		fail_msg("killed by signal %d", WTERMSIG(st));
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_add_del_race(void **state)
{
	in_child(add_del_child);
}

/*
 * IPv6, in a network namespace of its own (a child process: unshare(CLONE_NEWNET)) where lo
 * has ::2 too: the session to [::2] from [::1] comes up, the peer's hop limit 254 is dropped
 * (IPV6_RECVHOPLIMIT) and the session expires. Skipped where namespaces cannot be made.
 */
static int thread6_child(void)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(TPORT) };
	struct kmg_addr peer = { .family = AF_INET6 }, local = { .family = AF_INET6 };
	struct bfd_params fast = { 50000, 50000, 3 };
	struct fake_peer fp = { .ttl = 255, .run = true, .answer = true, .v6 = true };
	struct bfd_io_stats st;
	struct seen seen = { .n = 0 };
	struct bfd_info bi;
	char err[256] = "";
	struct bfd_io *io;
	int one = 1, rc = 0;

	memset(&bi, 0, sizeof(bi));
	if (unshare(CLONE_NEWNET))
		return 77;
	if (system("ip link set lo up && ip -6 addr add ::2/128 dev lo nodad 2>&1"))
		return 77;
	inet_pton(AF_INET6, "::2", &peer.v6);
	inet_pton(AF_INET6, "::1", &local.v6);
	io = bfd_io_new_port(loop, on_event, &seen, TPORT, err, sizeof(err));
	if (!io) {
		fprintf(stderr, "# %s\n", err);
		return 1;
	}
	fp.fd = socket(AF_INET6, SOCK_DGRAM, 0);
	setsockopt(fp.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin6_addr = peer.v6;
	if (bind(fp.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("# bind [::2]");
		return 1;
	}
	pthread_mutex_init(&fp.mu, NULL);
	bfd_sess_init(&fp.s, 0x66, &fast, mono_us());
	pthread_create(&fp.thr, NULL, peer_main, &fp);
	if (bfd_io_set(io, &peer, &local, &fast, err, sizeof(err))) {
		fprintf(stderr, "# %s\n", err);
		return 1;
	}
	if (!run_until(loop, io, &peer, BFD_UP, 10000) || !bfd_io_info(io, &peer, &bi) ||
	    bi.s.remote_disc != 0x66) {
		bfd_io_stats(io, &st);
		pthread_mutex_lock(&fp.mu);
		fprintf(stderr, "# IPv6: not Up with the peer's discriminator: state %d, "
			"remote disc %#x, %llu sent, %llu received; the peer got %llu; "
			"dropped: %llu bad, %llu ttl, %llu unknown\n",
			bfd_io_info(io, &peer, &bi) ? (int)bi.s.state : -1, bi.s.remote_disc,
			(unsigned long long)bi.s.tx, (unsigned long long)bi.s.rx, (unsigned long long)fp.got,
			(unsigned long long)st.rx_bad, (unsigned long long)st.rx_ttl,
			(unsigned long long)st.rx_unknown);
		pthread_mutex_unlock(&fp.mu);
		rc = 1;
	}
	pthread_mutex_lock(&fp.mu);
	fp.ttl = 254;
	pthread_mutex_unlock(&fp.mu);
	if (!rc && !run_until(loop, io, &peer, BFD_DOWN, 3000)) {
		fprintf(stderr, "# IPv6: hop limit 254 taken\n");
		rc = 1;
	}
	bfd_io_stats(io, &st);
	if (!rc && !st.rx_ttl) {
		fprintf(stderr, "# IPv6: no hop limit drop counted\n");
		rc = 1;
	}
	fp.run = false;
	pthread_join(fp.thr, NULL);
	bfd_io_free(io);
	return rc;
}

static void test_thread6(void **state)
{
	in_child(thread6_child);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_handshake_and_detection),
		cmocka_unit_test(test_detect_uses_remote_mult),
		cmocka_unit_test(test_detect_time_large),
		cmocka_unit_test(test_admin_down_and_down),
		cmocka_unit_test(test_poll_final),
		cmocka_unit_test(test_rates_and_jitter),
		cmocka_unit_test_teardown(test_thread, thread_teardown),
		cmocka_unit_test(test_thread6),
		cmocka_unit_test(test_add_del_race),
	};

	return cmocka_run_group_tests_name("bfd", tests, NULL, NULL);
}
