// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the BGP session FSM (bgp/fsm.c), with no socket and no clock: a fake owner
 * records what the FSM sends and which timers it arms, and the tests play the peer's part
 * with the wire encoders.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <arpa/inet.h>

#include "bgp/fsm.h"

/* What the fake owner saw. */
struct rec {
	uint8_t out[16][BGP_MAX_LEN];
	size_t outlen[16];
	unsigned int nout;
	double timer[BGP_T_COUNT];
	bool established, closed, refuse;
	int refresh_family;
	char why[512];
};

static struct rec R;

static bool fail_sends;

static void r_send(struct bgp_conn *c, const uint8_t *buf, size_t len)
{
	if (fail_sends) {
		bgp_conn_tcp_error(c, "send: Broken pipe");
		return;
	}
	assert_true(R.nout < 16);
	memcpy(R.out[R.nout], buf, len);
	R.outlen[R.nout++] = len;
}

static void r_timer(struct bgp_conn *c, enum bgp_timer t, double s)
{
	R.timer[t] = s;
}

static bool r_open(struct bgp_conn *c)
{
	return !R.refuse;
}

static void r_est(struct bgp_conn *c)
{
	R.established = true;
}

static void r_refresh(struct bgp_conn *c, int family)
{
	R.refresh_family = family;
}

static void r_closed(struct bgp_conn *c, const char *why)
{
	R.closed = true;
	snprintf(R.why, sizeof(R.why), "%s", why);
}

static const struct bgp_conn_ops ops = {
	.send = r_send, .timer = r_timer, .open_received = r_open,
	.established = r_est, .refresh = r_refresh, .closed = r_closed,
};

static struct bgp_conn C;

/* Our side: AS 65001, router ID 10.0.0.1, hold 90, IPv4. The peer: AS 65000. */
static void start(uint32_t peer_as, uint16_t hold, bool v6)
{
	struct bgp_conn_cfg cfg = {
		.local_as = 65001, .peer_as = peer_as, .hold_time = hold,
		.v4 = !v6, .v6 = v6, .gr_time = 120,
	};

	memset(&R, 0, sizeof(R));
	inet_pton(AF_INET, "10.0.0.1", &cfg.router_id);
	bgp_conn_init(&C, &cfg, &ops, NULL);
	bgp_conn_start(&C);
}

static uint8_t type_of(unsigned int i)
{
	return R.out[i][18];
}

/* The peer's OPEN: @as, @hold, router ID @id, IPv4 and IPv6 unicast, AS4, route refresh. */
static void peer_open(uint32_t as, uint16_t hold, const char *id, bool mp)
{
	struct bgp_open o = { .asn = as, .hold_time = hold, .cap_mp_v4 = mp, .cap_mp_v6 = mp,
			      .cap_as4 = true, .cap_route_refresh = true };
	uint8_t buf[BGP_MAX_LEN];
	size_t n;

	inet_pton(AF_INET, id, &o.bgp_id);
	n = bgp_open_encode(buf, sizeof(buf), &o);
	assert_true(n > 0);
	bgp_conn_input(&C, buf, n);
}

static void peer_keepalive(void)
{
	uint8_t buf[BGP_HDR_LEN];

	bgp_conn_input(&C, buf, bgp_keepalive_encode(buf, sizeof(buf)));
}

static void establish(uint16_t our_hold, uint16_t peer_hold)
{
	start(65000, our_hold, false);
	peer_open(65000, peer_hold, "10.0.0.2", true);
	peer_keepalive();
	assert_int_equal(C.state, BGP_ESTABLISHED);
}

/* The NOTIFICATION the FSM sent last: code, subcode. */
static void assert_notified(uint8_t code, uint8_t subcode)
{
	unsigned int i = R.nout - 1;

	assert_true(R.nout > 0);
	assert_int_equal(type_of(i), BGP_NOTIFICATION);
	assert_int_equal(R.out[i][19], code);
	assert_int_equal(R.out[i][20], subcode);
	assert_true(R.closed);
	assert_int_equal(C.state, BGP_IDLE);
}

/* A peer without the 4-octet AS capability: refused, naming the capability (RFC 5492). */
static void test_no_as4(void **state)
{
	struct bgp_open o = { .asn = 65000, .hold_time = 90, .cap_mp_v4 = true };
	uint8_t buf[BGP_MAX_LEN];
	unsigned int i;

	start(65000, 90, false);
	inet_pton(AF_INET, "10.0.0.2", &o.bgp_id);
	bgp_conn_input(&C, buf, bgp_open_encode(buf, sizeof(buf), &o));
	assert_notified(BGP_ERR_OPEN, BGP_OPEN_UNSUPPORTED_CAP);
	i = R.nout - 1;
	assert_int_equal(R.out[i][21], BGP_CAP_AS4);
	assert_int_equal(R.out[i][22], 4);
}

static void test_start_sends_open(void **state)
{
	struct bgp_open o;
	struct bgp_err e;

	start(65000, 90, false);
	assert_int_equal(C.state, BGP_OPENSENT);
	assert_int_equal(R.nout, 1);
	assert_int_equal(type_of(0), BGP_OPEN);
	/* RFC 4271 8.2.2: a large hold timer until the peer's OPEN */
	assert_true(R.timer[BGP_T_HOLD] == BGP_OPEN_HOLD_S);
	assert_int_equal(bgp_open_decode(R.out[0], R.outlen[0], &o, &e), 0);
	assert_int_equal(o.asn, 65001);
	assert_int_equal(o.hold_time, 90);
	assert_true(o.cap_as4 && o.cap_route_refresh && o.cap_mp_v4 && !o.cap_mp_v6);
	/* a cold start: graceful restart offered, but no forwarding state kept (F = 0) */
	assert_true(o.cap_gr && o.gr_time == 120 && o.gr_v4 && !o.gr_v4_fwd);
	assert_false(o.gr_restarting);
}

static void test_handshake(void **state)
{
	start(65000, 90, false);
	peer_open(65000, 30, "10.0.0.2", true);
	assert_int_equal(C.state, BGP_OPENCONFIRM);
	assert_int_equal(type_of(R.nout - 1), BGP_KEEPALIVE);
	/* the smaller hold time; keepalives at a third of it */
	assert_int_equal(C.hold_time, 30);
	assert_true(R.timer[BGP_T_HOLD] == 30);
	assert_true(R.timer[BGP_T_KEEPALIVE] == 10);
	assert_false(C.ibgp);
	assert_true(C.v4 && !C.v6 && C.four_octet && C.route_refresh);
	peer_keepalive();
	assert_int_equal(C.state, BGP_ESTABLISHED);
	assert_true(R.established);
	/* a keepalive timer in Established sends one and rearms */
	R.nout = 0;
	R.timer[BGP_T_KEEPALIVE] = 0;
	bgp_conn_timer(&C, BGP_T_KEEPALIVE);
	assert_int_equal(R.nout, 1);
	assert_int_equal(type_of(0), BGP_KEEPALIVE);
	assert_true(R.timer[BGP_T_KEEPALIVE] == 10);
}

static void test_hold_zero(void **state)
{
	establish(90, 0);
	assert_int_equal(C.hold_time, 0);
	assert_true(R.timer[BGP_T_HOLD] == 0);
}

static void test_hold_expiry(void **state)
{
	establish(9, 90);
	bgp_conn_timer(&C, BGP_T_HOLD);
	assert_notified(BGP_ERR_HOLD_TIMER, 0);
	assert_non_null(strstr(R.why, "Hold Timer"));
}

static void test_bad_peer_as(void **state)
{
	start(65000, 90, false);
	peer_open(65002, 90, "10.0.0.2", true);
	assert_notified(BGP_ERR_OPEN, BGP_OPEN_BAD_PEER_AS);
}

static void test_ibgp_same_id(void **state)
{
	start(65001, 90, false);
	peer_open(65001, 90, "10.0.0.1", true);
	assert_notified(BGP_ERR_OPEN, BGP_OPEN_BAD_BGP_ID);
}

static void test_ebgp_same_id_ok(void **state)
{
	/* RFC 6286: between ASes the identifiers may be equal */
	start(65000, 90, false);
	peer_open(65000, 90, "10.0.0.1", true);
	assert_int_equal(C.state, BGP_OPENCONFIRM);
}

static void test_no_mp_means_ipv4(void **state)
{
	start(65000, 90, false);
	peer_open(65000, 90, "10.0.0.2", false);
	assert_int_equal(C.state, BGP_OPENCONFIRM);
	assert_true(C.v4);
}

/*
 * RFC 8950: a v6 session offering IPv4 with IPv6 next hops carries IPv4 only when the peer
 * sends the Extended Next Hop capability for it.
 */
static void ext_nh(bool peer_ext)
{
	struct bgp_conn_cfg cfg = {
		.local_as = 65001, .peer_as = 65000, .hold_time = 90,
		.v4 = true, .v6 = true, .v4_nh6 = true,
	};
	struct bgp_open o = { .asn = 65000, .hold_time = 90, .cap_mp_v4 = true,
			      .cap_mp_v6 = true, .cap_ext_nh_v4 = peer_ext, .cap_as4 = true };
	struct bgp_open sent;
	struct bgp_err e;
	uint8_t buf[BGP_MAX_LEN];
	size_t n;

	memset(&R, 0, sizeof(R));
	inet_pton(AF_INET, "10.0.0.1", &cfg.router_id);
	bgp_conn_init(&C, &cfg, &ops, NULL);
	bgp_conn_start(&C);
	assert_int_equal(bgp_open_decode(R.out[0], R.outlen[0], &sent, &e), 0);
	assert_true(sent.cap_ext_nh_v4 && sent.cap_mp_v4 && sent.cap_mp_v6);
	inet_pton(AF_INET, "10.0.0.2", &o.bgp_id);
	n = bgp_open_encode(buf, sizeof(buf), &o);
	bgp_conn_input(&C, buf, n);
	assert_int_equal(C.state, BGP_OPENCONFIRM);
	assert_true(C.v6);
	assert_int_equal(C.v4, peer_ext);
	assert_int_equal(C.v4_nh6, peer_ext);
}

static void test_ext_next_hop(void **state)
{
	ext_nh(true);
	ext_nh(false);
}

static void test_no_common_family(void **state)
{
	start(65000, 90, true);
	peer_open(65000, 90, "10.0.0.2", false);
	assert_notified(BGP_ERR_OPEN, BGP_OPEN_UNSUPPORTED_CAP);
}

static void test_update_in_opensent(void **state)
{
	uint8_t buf[64];

	start(65000, 90, false);
	bgp_conn_input(&C, buf, bgp_eor_encode(buf, sizeof(buf), BGP_AFI_IPV4));
	assert_notified(BGP_ERR_FSM, BGP_FSM_IN_OPENSENT);
}

static void test_open_in_established(void **state)
{
	establish(90, 90);
	peer_open(65000, 90, "10.0.0.2", true);
	assert_notified(BGP_ERR_FSM, BGP_FSM_IN_ESTABLISHED);
}

static void test_bad_marker(void **state)
{
	uint8_t buf[BGP_HDR_LEN];

	establish(90, 90);
	bgp_keepalive_encode(buf, sizeof(buf));
	buf[3] = 0;
	bgp_conn_input(&C, buf, sizeof(buf));
	assert_notified(BGP_ERR_HEADER, BGP_HDR_NOT_SYNC);
}

static void test_collision_refused(void **state)
{
	start(65000, 90, false);
	R.refuse = true;
	peer_open(65000, 90, "10.0.0.2", true);
	assert_notified(BGP_ERR_CEASE, BGP_CEASE_COLLISION);
}

static void test_notification_received(void **state)
{
	uint8_t buf[BGP_MAX_LEN];

	establish(90, 90);
	bgp_conn_input(&C, buf, bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_SHUTDOWN,
						  "maintenance"));
	assert_true(R.closed);
	assert_int_equal(C.state, BGP_IDLE);
	assert_int_equal(C.rcvd_err.code, BGP_ERR_CEASE);
	assert_non_null(strstr(R.why, "maintenance"));
}

/*
 * RFC 7606: an UPDATE with a bad attribute (here ORIGIN 3) is treat-as-withdraw, not a
 * session reset; one whose lengths overrun still resets it.
 */
static void test_update_errors(void **state)
{
	/* header, withdrawn 0, attributes 4: ORIGIN (flags 0x40, type 1, len 1) = 3 */
	uint8_t bad_attr[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			       0, 27, BGP_UPDATE, 0, 0, 0, 4, 0x40, 1, 1, 3 };
	/* withdrawn routes length 200 in a message that has 4 bytes after it */
	uint8_t overrun[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			      0, 27, BGP_UPDATE, 0, 200, 0, 0, 0, 0, 0, 0 };

	establish(90, 90);
	R.nout = 0;
	bgp_conn_input(&C, bad_attr, sizeof(bad_attr));
	assert_int_equal(C.state, BGP_ESTABLISHED);
	assert_int_equal(R.nout, 0);
	assert_int_equal(C.st.updates_in_errors, 1);
	bgp_conn_input(&C, overrun, sizeof(overrun));
	assert_notified(BGP_ERR_UPDATE, BGP_UPD_MALFORMED_ATTR_LIST);
}

/* A send that fails closes the connection inside the FSM's call: it must stop there. */
static void test_send_fails(void **state)
{
	establish(90, 90);
	fail_sends = true;
	R.timer[BGP_T_KEEPALIVE] = 0;
	bgp_conn_timer(&C, BGP_T_KEEPALIVE);
	fail_sends = false;
	assert_true(R.closed);
	assert_int_equal(C.state, BGP_IDLE);
	/* no timer armed on the dead connection */
	assert_true(R.timer[BGP_T_KEEPALIVE] == 0 && R.timer[BGP_T_HOLD] == 0);
}

static void test_route_refresh(void **state)
{
	uint8_t buf[64];

	establish(90, 90);
	bgp_conn_input(&C, buf, bgp_route_refresh_encode(buf, sizeof(buf), BGP_AFI_IPV4));
	assert_int_equal(R.refresh_family, AF_INET);
	/* a family not negotiated is ignored, and so is the message */
	R.refresh_family = 0;
	bgp_conn_input(&C, buf, bgp_route_refresh_encode(buf, sizeof(buf), BGP_AFI_IPV6));
	assert_int_equal(R.refresh_family, 0);
	assert_int_equal(C.state, BGP_ESTABLISHED);
}

/* A stream cut anywhere still frames: byte by byte, and two messages in one read. */
static void test_stream_framing(void **state)
{
	struct bgp_open o = { .asn = 65000, .hold_time = 90, .cap_mp_v4 = true, .cap_as4 = true };
	uint8_t buf[2 * BGP_MAX_LEN];
	size_t n, i;

	start(65000, 90, false);
	inet_pton(AF_INET, "10.0.0.2", &o.bgp_id);
	n = bgp_open_encode(buf, BGP_MAX_LEN, &o);
	n += bgp_keepalive_encode(buf + n, BGP_HDR_LEN);
	for (i = 0; i < n - 5; i++)
		bgp_conn_input(&C, buf + i, 1);
	assert_int_equal(C.state, BGP_OPENCONFIRM);
	bgp_conn_input(&C, buf + i, 5);
	assert_int_equal(C.state, BGP_ESTABLISHED);
}

static void test_cease_sent(void **state)
{
	unsigned int i;

	establish(90, 90);
	bgp_conn_cease(&C, BGP_CEASE_ADMIN_SHUTDOWN, "lame duck");
	assert_notified(BGP_ERR_CEASE, BGP_CEASE_ADMIN_SHUTDOWN);
	i = R.nout - 1;
	/* RFC 9003: a length octet, then the message */
	assert_int_equal(R.out[i][21], 9);
	assert_memory_equal(&R.out[i][22], "lame duck", 9);
}

static void test_peer_closes(void **state)
{
	establish(90, 90);
	bgp_conn_input(&C, NULL, 0);
	assert_true(R.closed);
	assert_int_equal(C.state, BGP_IDLE);
	assert_true(R.timer[BGP_T_HOLD] == 0 && R.timer[BGP_T_KEEPALIVE] == 0);
}

static void test_restart_bit(void **state)
{
	struct bgp_conn_cfg cfg = { .local_as = 65001, .peer_as = 65000, .hold_time = 90,
				    .v4 = true, .gr_time = 300, .gr_restarting = true };
	struct bgp_open o;
	struct bgp_err e;

	memset(&R, 0, sizeof(R));
	inet_pton(AF_INET, "10.0.0.1", &cfg.router_id);
	bgp_conn_init(&C, &cfg, &ops, NULL);
	bgp_conn_start(&C);
	assert_int_equal(bgp_open_decode(R.out[0], R.outlen[0], &o, &e), 0);
	assert_true(o.cap_gr && o.gr_restarting && o.gr_time == 300 && o.gr_v4_fwd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_sends_open),
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_hold_zero),
		cmocka_unit_test(test_hold_expiry),
		cmocka_unit_test(test_bad_peer_as),
		cmocka_unit_test(test_ibgp_same_id),
		cmocka_unit_test(test_ebgp_same_id_ok),
		cmocka_unit_test(test_no_mp_means_ipv4),
		cmocka_unit_test(test_ext_next_hop),
		cmocka_unit_test(test_no_common_family),
		cmocka_unit_test(test_update_in_opensent),
		cmocka_unit_test(test_open_in_established),
		cmocka_unit_test(test_bad_marker),
		cmocka_unit_test(test_collision_refused),
		cmocka_unit_test(test_notification_received),
		cmocka_unit_test(test_route_refresh),
		cmocka_unit_test(test_no_as4),
		cmocka_unit_test(test_update_errors),
		cmocka_unit_test(test_send_fails),
		cmocka_unit_test(test_stream_framing),
		cmocka_unit_test(test_cease_sent),
		cmocka_unit_test(test_peer_closes),
		cmocka_unit_test(test_restart_bit),
	};

	return cmocka_run_group_tests_name("bgp_fsm", tests, NULL, NULL);
}
