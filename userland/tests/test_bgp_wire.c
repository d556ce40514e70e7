// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the BGP-4 wire format (bgp/wire.c): each encoder against golden bytes
 * written by hand from the RFCs' layouts, encode -> frame -> decode round trips, and the
 * exact NOTIFICATION (code, subcode, data) for each kind of malformed input.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bgp/wire.h"

/* 16 octets of marker */
#define MARKER	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, \
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
/* 2001:db8::1, 2001:db8:: + last, fe80::1 */
#define V6_DB8(last)	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last
#define V6_LL1		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01

static struct in_addr ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static struct in6_addr ip6(const char *s)
{
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static struct bgp_prefix pfx4(const char *s, uint8_t len)
{
	struct bgp_prefix p = { .family = AF_INET, .len = len };

	p.v4 = ip4(s);
	return p;
}

static struct bgp_prefix pfx6(const char *s, uint8_t len)
{
	struct bgp_prefix p = { .family = AF_INET6, .len = len };

	p.v6 = ip6(s);
	return p;
}

/* @msg frames as one whole message of @type. */
static void assert_frames(const uint8_t *msg, size_t len, uint8_t type)
{
	struct bgp_err e;
	uint8_t t = 0;

	assert_int_equal(bgp_frame(msg, len, &t, &e), len);
	assert_int_equal(t, type);
	/* and not before all of it is there */
	assert_int_equal(bgp_frame(msg, len - 1, &t, &e), 0);
	assert_int_equal(bgp_frame(msg, BGP_HDR_LEN - 1, &t, &e), 0);
}

/*
 * @e is (@code, @subcode, @data): and it goes out as a NOTIFICATION with those bytes, which
 * frames and decodes back to the same.
 */
static void assert_err(const struct bgp_err *e, uint8_t code, uint8_t subcode,
		       const uint8_t *data, size_t len)
{
	uint8_t buf[BGP_MAX_LEN];
	struct bgp_notification n;
	size_t l;

	assert_int_equal(e->code, code);
	assert_int_equal(e->subcode, subcode);
	assert_int_equal(e->len, len);
	if (len)
		assert_memory_equal(e->data, data, len);

	l = bgp_notification_encode(buf, sizeof(buf), e);
	assert_int_equal(l, BGP_HDR_LEN + 2 + len);
	assert_int_equal(buf[16] << 8 | buf[17], l);		/* length */
	assert_int_equal(buf[18], BGP_NOTIFICATION);		/* type */
	assert_int_equal(buf[19], code);			/* error code */
	assert_int_equal(buf[20], subcode);			/* error subcode */
	if (len)
		assert_memory_equal(buf + 21, data, len);	/* data */
	assert_frames(buf, l, BGP_NOTIFICATION);
	bgp_notification_decode(buf, l, &n);
	assert_int_equal(n.code, code);
	assert_int_equal(n.subcode, subcode);
	assert_int_equal(n.len, len);
	if (len)
		assert_memory_equal(n.data, data, len);
	assert_non_null(bgp_err_name(code, subcode));
}

/* ---- KEEPALIVE ---- */

static void test_keepalive(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x13,	/* length 19 */
		0x04,			/* type KEEPALIVE */
	};
	uint8_t buf[64];

	assert_int_equal(bgp_keepalive_encode(buf, sizeof(buf)), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_frames(buf, sizeof(want), BGP_KEEPALIVE);
	assert_int_equal(bgp_keepalive_encode(buf, 18), 0);
}

/* ---- OPEN ---- */

static void test_open_all_caps(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x3f,	/* length 63 */
		0x01,			/* type OPEN */
		0x04,			/* version 4 */
		0xfd, 0xe9,		/* My AS 65001 */
		0x00, 0x5a,		/* hold time 90 */
		0xc0, 0x00, 0x02, 0x01,	/* BGP identifier 192.0.2.1 */
		0x22,			/* optional parameters length 34 */
		0x02, 0x20,		/* parameter: capabilities, 32 octets */
		0x01, 0x04, 0x00, 0x01, 0x00, 0x01,	/* MP: AFI 1, reserved, SAFI 1 */
		0x01, 0x04, 0x00, 0x02, 0x00, 0x01,	/* MP: AFI 2, reserved, SAFI 1 */
		0x02, 0x00,				/* route refresh */
		0x40, 0x0a,				/* graceful restart, 10 octets */
		0x80, 0x78,				/* R bit, restart time 120 */
		0x00, 0x01, 0x01, 0x80,			/* AFI 1 SAFI 1, forwarding */
		0x00, 0x02, 0x01, 0x00,			/* AFI 2 SAFI 1, not */
		0x41, 0x04, 0x00, 0x00, 0xfd, 0xe9,	/* 4-octet AS 65001 */
	};
	struct bgp_open o = {
		.asn = 65001, .hold_time = 90, .cap_mp_v4 = true, .cap_mp_v6 = true,
		.cap_as4 = true, .cap_route_refresh = true, .cap_gr = true,
		.gr_restarting = true, .gr_time = 120, .gr_v4 = true, .gr_v6 = true,
		.gr_v4_fwd = true,
	}, d;
	struct bgp_err e;
	uint8_t buf[BGP_MAX_LEN];
	size_t l;

	o.bgp_id = ip4("192.0.2.1");
	l = bgp_open_encode(buf, sizeof(buf), &o);
	assert_int_equal(l, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_frames(buf, l, BGP_OPEN);
	assert_int_equal(bgp_open_decode(buf, l, &d, &e), 0);
	assert_int_equal(d.asn, 65001);
	assert_int_equal(d.my_as, 65001);
	assert_int_equal(d.hold_time, 90);
	assert_int_equal(d.bgp_id.s_addr, o.bgp_id.s_addr);
	assert_true(d.cap_mp_v4 && d.cap_mp_v6 && d.cap_as4 && d.cap_route_refresh);
	assert_false(d.cap_ext_nh_v4);
	assert_true(d.cap_gr && d.gr_restarting);
	assert_int_equal(d.gr_time, 120);
	assert_true(d.gr_v4 && d.gr_v6 && d.gr_v4_fwd);
	assert_false(d.gr_v6_fwd);
	assert_int_equal(bgp_open_encode(buf, l - 1, &o), 0);
}

static void test_open_as_trans(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x2b,	/* length 43 */
		0x01,			/* OPEN */
		0x04,			/* version */
		0x5b, 0xa0,		/* My AS: AS_TRANS 23456 */
		0x00, 0xb4,		/* hold time 180 */
		0x0a, 0x00, 0x00, 0x01,	/* BGP identifier 10.0.0.1 */
		0x0e,			/* optional parameters length 14 */
		0x02, 0x0c,		/* capabilities, 12 octets */
		0x01, 0x04, 0x00, 0x01, 0x00, 0x01,	/* MP IPv4 unicast */
		0x41, 0x04, 0xfa, 0x56, 0xea, 0x01,	/* 4-octet AS 4200000001 */
	};
	struct bgp_open o = { .asn = 4200000001u, .hold_time = 180, .cap_mp_v4 = true }, d;
	struct bgp_err e;
	uint8_t buf[BGP_MAX_LEN];
	size_t l;

	o.bgp_id = ip4("10.0.0.1");
	/* the AS4 capability goes out even if not asked for: the AS needs it */
	l = bgp_open_encode(buf, sizeof(buf), &o);
	assert_int_equal(l, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_frames(buf, l, BGP_OPEN);
	assert_int_equal(bgp_open_decode(buf, l, &d, &e), 0);
	assert_int_equal(d.asn, 4200000001u);
	assert_int_equal(d.my_as, BGP_AS_TRANS);
	assert_int_equal(d.hold_time, 180);
	assert_true(d.cap_as4);
	assert_true(d.cap_mp_v4);
	assert_false(d.cap_mp_v6);
	assert_false(d.cap_gr);
	assert_false(d.cap_route_refresh);
}

static void test_open_no_caps(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x1d,	/* length 29 */
		0x01, 0x04,		/* OPEN, version 4 */
		0xfd, 0xe8,		/* My AS 65000 */
		0x00, 0x00,		/* hold time 0 */
		0xc0, 0x00, 0x02, 0x02,	/* 192.0.2.2 */
		0x00,			/* no optional parameters */
	};
	struct bgp_open o = { .asn = 65000 }, d;
	struct bgp_err e;
	uint8_t buf[64];

	o.bgp_id = ip4("192.0.2.2");
	assert_int_equal(bgp_open_encode(buf, sizeof(buf), &o), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(bgp_open_decode(buf, sizeof(want), &d, &e), 0);
	/* no AS4 capability: the AS is My AS */
	assert_int_equal(d.asn, 65000);
	assert_false(d.cap_as4);
}

/* An OPEN from the peer: version, My AS 65002, hold time, ID 192.0.2.9, then @opt. */
static size_t mk_open(uint8_t *b, uint8_t version, uint16_t hold, uint32_t id,
		      int optlen, const uint8_t *opt, size_t ol)
{
	size_t len = 29 + ol;

	memset(b, 0xff, 16);
	b[16] = len >> 8;
	b[17] = len;
	b[18] = BGP_OPEN;
	b[19] = version;
	b[20] = 0xfd;
	b[21] = 0xea;
	b[22] = hold >> 8;
	b[23] = hold;
	b[24] = id >> 24;
	b[25] = id >> 16;
	b[26] = id >> 8;
	b[27] = id;
	b[28] = optlen < 0 ? ol : (size_t)optlen;
	if (ol)
		memcpy(b + 29, opt, ol);
	return len;
}

#define ID 0xc0000209u

static void test_open_bad_header_fields(void **state)
{
	static const uint8_t v4[] = { 0x00, 0x04 };
	uint8_t buf[128];
	struct bgp_open o;
	struct bgp_err e;
	size_t l;

	l = mk_open(buf, 3, 90, ID, -1, NULL, 0);
	assert_frames(buf, l, BGP_OPEN);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_BAD_VERSION, v4, 2);
	l = mk_open(buf, 5, 90, ID, -1, NULL, 0);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_BAD_VERSION, v4, 2);

	l = mk_open(buf, 4, 1, ID, -1, NULL, 0);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_BAD_HOLD_TIME, NULL, 0);
	l = mk_open(buf, 4, 2, ID, -1, NULL, 0);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_BAD_HOLD_TIME, NULL, 0);
	l = mk_open(buf, 4, 3, ID, -1, NULL, 0);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), 0);
	assert_int_equal(o.hold_time, 3);

	l = mk_open(buf, 4, 90, 0, -1, NULL, 0);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_BAD_BGP_ID, NULL, 0);
}

static void test_open_bad_params(void **state)
{
	/* parameter length 5, only 2 octets left */
	static const uint8_t param_overrun[] = { 0x02, 0x05, 0x02, 0x00 };
	/* capability: 4-octet AS of 4 octets, only 2 there */
	static const uint8_t cap_overrun[] = { 0x02, 0x04, 0x41, 0x04, 0xfd, 0xea };
	/* capability header cut: code, no length */
	static const uint8_t cap_cut[] = { 0x02, 0x01, 0x41 };
	/* parameter header cut */
	static const uint8_t param_cut[] = { 0x02 };
	/* parameter type 1 (authentication, deprecated) */
	static const uint8_t unknown_param[] = { 0x01, 0x02, 0x00, 0x00 };
	/* 4-octet AS capability of 2 octets */
	static const uint8_t as4_short[] = { 0x02, 0x04, 0x41, 0x02, 0xfd, 0xea };
	/* MP capability of 3 octets */
	static const uint8_t mp_short[] = { 0x02, 0x05, 0x01, 0x03, 0x00, 0x01, 0x00 };
	/* GR capability of 3 octets */
	static const uint8_t gr_bad[] = { 0x02, 0x05, 0x40, 0x03, 0x00, 0x78, 0x00 };
	uint8_t buf[128];
	struct bgp_open o;
	struct bgp_err e;
	size_t l;

	l = mk_open(buf, 4, 90, ID, -1, param_overrun, sizeof(param_overrun));
	assert_frames(buf, l, BGP_OPEN);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, param_cut, sizeof(param_cut));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, cap_overrun, sizeof(cap_overrun));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, cap_cut, sizeof(cap_cut));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	/* Optional Parameters Length past the end of the message, or short of it */
	l = mk_open(buf, 4, 90, ID, 10, cap_overrun, sizeof(cap_overrun));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);
	l = mk_open(buf, 4, 90, ID, 2, unknown_param, sizeof(unknown_param));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, unknown_param, sizeof(unknown_param));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSUPPORTED_PARAM, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, as4_short, sizeof(as4_short));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, mp_short, sizeof(mp_short));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);

	l = mk_open(buf, 4, 90, ID, -1, gr_bad, sizeof(gr_bad));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);
}

static void test_open_unknown_cap(void **state)
{
	static const uint8_t opt[] = {
		0x02, 0x0c,				/* capabilities, 12 octets */
		0x46, 0x00,				/* 70, enhanced route refresh */
		0xf0, 0x02, 0xaa, 0xbb,			/* 240, private use */
		0x41, 0x04, 0x00, 0x01, 0x00, 0x00,	/* 4-octet AS 65536 */
		0x02, 0x06,				/* a second parameter: */
		0x01, 0x04, 0x00, 0x02, 0x00, 0x01,	/* MP IPv6 unicast */
		0x02, 0x06,
		0x01, 0x04, 0x00, 0x01, 0x00, 0x80,	/* MP IPv4 SAFI 128: ignored */
	};
	uint8_t buf[128];
	struct bgp_open o;
	struct bgp_err e;
	size_t l;

	l = mk_open(buf, 4, 90, ID, -1, opt, sizeof(opt));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), 0);
	assert_int_equal(o.asn, 65536);
	assert_int_equal(o.my_as, 65002);
	assert_true(o.cap_as4);
	assert_true(o.cap_mp_v6);
	assert_false(o.cap_mp_v4);
	assert_false(o.cap_route_refresh);
	assert_int_equal(o.bgp_id.s_addr, htonl(ID));
}

static void test_open_extended_params(void **state)
{
	/* RFC 9072 */
	static const uint8_t opt[] = {
		0xff,			/* Non-Ext OP Type 255 (after Non-Ext OP Len 255) */
		0x00, 0x0d,		/* Extended Opt. Parm. Length 13 */
		0x02, 0x00, 0x0a,	/* capabilities, 2-octet length 10 */
		0x41, 0x04, 0x00, 0x00, 0xfd, 0xea,	/* 4-octet AS 65002 */
		0x40, 0x02, 0x00, 0x3c,			/* GR, no R, 60 s, no AFI */
	};
	static const uint8_t overrun[] = {
		0xff, 0x00, 0x09,
		0x02, 0x00, 0x07,	/* 7 octets: 6 there */
		0x41, 0x04, 0x00, 0x00, 0xfd, 0xea,
	};
	uint8_t buf[128];
	struct bgp_open o;
	struct bgp_err e;
	size_t l;

	l = mk_open(buf, 4, 90, ID, 255, opt, sizeof(opt));
	assert_frames(buf, l, BGP_OPEN);
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), 0);
	assert_int_equal(o.asn, 65002);
	assert_true(o.cap_gr);
	assert_false(o.gr_restarting);
	assert_int_equal(o.gr_time, 60);

	l = mk_open(buf, 4, 90, ID, 255, overrun, sizeof(overrun));
	assert_int_equal(bgp_open_decode(buf, l, &o, &e), -1);
	assert_err(&e, BGP_ERR_OPEN, BGP_OPEN_UNSPECIFIC, NULL, 0);
}

/* ---- UPDATE: encoding ---- */

static void decode_ok(const uint8_t *msg, size_t len, bool four_octet, bool ibgp,
		      struct bgp_update_info *u)
{
	struct bgp_err e;

	assert_frames(msg, len, BGP_UPDATE);
	if (bgp_update_decode(msg, len, four_octet, ibgp, u, &e))
		fail_msg("UPDATE rejected: %s", bgp_err_name(e.code, e.subcode));
}

static void test_update_v4_ibgp(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x35,	/* length 53 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* withdrawn routes length 0 */
		0x00, 0x15,		/* total path attribute length 21 */
		0x40, 0x01, 0x01, 0x00,			/* ORIGIN IGP */
		0x40, 0x02, 0x00,			/* AS_PATH, empty */
		0x40, 0x03, 0x04, 0x0a, 0x00, 0x00, 0x01,	/* NEXT_HOP 10.0.0.1 */
		0x40, 0x05, 0x04, 0x00, 0x00, 0x00, 0x64,	/* LOCAL_PREF 100 */
		0x20, 0xc0, 0x00, 0x02, 0x0a,		/* 192.0.2.10/32 */
		0x18, 0xc6, 0x33, 0x64,			/* 198.51.100.0/24 */
	};
	struct bgp_attrs a = { .local_as = 65001, .local_pref = 100 };
	struct bgp_prefix p[2];
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	a.nh4 = ip4("10.0.0.1");
	p[0] = pfx4("192.0.2.10", 32);
	p[1] = pfx4("198.51.100.0", 24);
	l = bgp_update_encode(buf, sizeof(buf), &a, p, 2, false, &used);
	assert_int_equal(l, sizeof(want));
	assert_int_equal(used, 2);
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, true, true, &u);
	assert_int_equal(u.announced, 2);
	assert_int_equal(u.withdrawn, 0);
	assert_int_equal(u.mp_announced, 0);
	assert_false(u.eor);

	/* room for the first prefix only */
	l = bgp_update_encode(buf, sizeof(want) - 4, &a, p, 2, false, &used);
	assert_int_equal(l, sizeof(want) - 4);
	assert_int_equal(used, 1);
	/* nor that */
	assert_int_equal(bgp_update_encode(buf, 48, &a, p, 2, false, &used), 0);
	assert_int_equal(used, 0);
}

static void test_update_v4_ebgp(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x51,	/* length 81 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x35,		/* total path attribute length 53 */
		0x40, 0x01, 0x01, 0x00,			/* ORIGIN IGP */
		0x40, 0x02, 0x06,			/* AS_PATH, 6 octets: */
		0x02, 0x01, 0xfa, 0x56, 0xea, 0x01,	/* AS_SEQUENCE of 1: 4200000001 */
		0x40, 0x03, 0x04, 0xc0, 0x00, 0x02, 0x01,	/* NEXT_HOP 192.0.2.1 */
		0x80, 0x04, 0x04, 0x00, 0x00, 0x00, 0x0a,	/* MED 10 (optional) */
		0xc0, 0x08, 0x08,			/* COMMUNITIES (optional transitive) */
		0xff, 0xff, 0x00, 0x00,			/* 65535:0 GRACEFUL_SHUTDOWN */
		0xfd, 0xe9, 0x00, 0x64,			/* 65001:100 */
		0xc0, 0x20, 0x0c,			/* LARGE_COMMUNITIES */
		0xfa, 0x56, 0xea, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
		0x19, 0xcb, 0x00, 0x71, 0x80,		/* 203.0.113.128/25 */
	};
	struct bgp_attrs a = {
		.local_as = 4200000001u, .ebgp = true, .local_pref = 100, .has_med = true,
		.med = 10, .communities = { BGP_COMMUNITY_GRACEFUL_SHUTDOWN, 65001u << 16 | 100 },
		.ncommunities = 2, .large = { { 4200000001u, 1, 2 } }, .nlarge = 1,
	};
	struct bgp_prefix p;
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	a.nh4 = ip4("192.0.2.1");
	p = pfx4("203.0.113.200", 25);		/* host bits cleared on the wire */
	l = bgp_update_encode(buf, sizeof(buf), &a, &p, 1, false, &used);
	assert_int_equal(l, sizeof(want));
	assert_int_equal(used, 1);
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, true, false, &u);
	assert_int_equal(u.announced, 1);
}

static void test_update_v4_withdraw(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x1e,	/* length 30 */
		0x02,			/* UPDATE */
		0x00, 0x07,		/* withdrawn routes length 7 */
		0x20, 0xc0, 0x00, 0x02, 0x0a,	/* 192.0.2.10/32 */
		0x08, 0x0a,			/* 10.0.0.0/8 */
		0x00, 0x00,		/* no path attributes */
	};
	struct bgp_prefix p[2];
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	p[0] = pfx4("192.0.2.10", 32);
	p[1] = pfx4("10.0.0.0", 8);
	l = bgp_update_encode(buf, sizeof(buf), NULL, p, 2, true, &used);
	assert_int_equal(l, sizeof(want));
	assert_int_equal(used, 2);
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, false, false, &u);
	assert_int_equal(u.withdrawn, 2);
	assert_int_equal(u.announced, 0);
	assert_false(u.eor);
}

static void test_update_v6_nh16(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x55,	/* length 85 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x3e,		/* total path attribute length 62 */
		0x40, 0x01, 0x01, 0x00,			/* ORIGIN IGP */
		0x40, 0x02, 0x00,			/* AS_PATH, empty (iBGP) */
		0x40, 0x05, 0x04, 0x00, 0x00, 0x00, 0xc8,	/* LOCAL_PREF 200 */
		0x80, 0x0e, 0x2d,			/* MP_REACH_NLRI, 45 octets */
		0x00, 0x02, 0x01,			/* AFI 2, SAFI 1 */
		0x10, V6_DB8(0x01),			/* next hop: 16, 2001:db8::1 */
		0x00,					/* reserved */
		0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,	/* 2001:db8:1::/48 */
		0x80, V6_DB8(0x10),			/* 2001:db8::10/128 */
	};
	struct bgp_attrs a = { .local_as = 65001, .local_pref = 200 };
	struct bgp_prefix p[2];
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	a.nh4 = ip4("10.0.0.1");		/* not sent: no IPv4 NLRI */
	a.nh6 = ip6("2001:db8::1");
	p[0] = pfx6("2001:db8:1::", 48);
	p[1] = pfx6("2001:db8::10", 128);
	l = bgp_update_encode(buf, sizeof(buf), &a, p, 2, false, &used);
	assert_int_equal(l, sizeof(want));
	assert_int_equal(used, 2);
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, true, true, &u);
	assert_int_equal(u.mp_announced, 2);
	assert_int_equal(u.announced, 0);
}

/* RFC 8950: IPv4 prefixes with an IPv6 next hop, in MP_REACH_NLRI AFI 1; no NEXT_HOP. */
static void test_update_v4_nh6(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x51,	/* length 81 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x3a,		/* total path attribute length 58 */
		0x40, 0x01, 0x01, 0x00,			/* ORIGIN IGP */
		0x40, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe9,	/* AS_PATH 65001 */
		0x80, 0x0e, 0x2a,			/* MP_REACH_NLRI, 42 octets */
		0x00, 0x01, 0x01,			/* AFI 1, SAFI 1 */
		0x20, V6_DB8(0x01), 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
							/* next hop: 32, global + link-local */
		0x00,					/* reserved */
		0x20, 0xc0, 0x00, 0x02, 0x01,		/* 192.0.2.1/32 */
	};
	struct bgp_attrs a = { .local_as = 65001, .ebgp = true, .v4_nh6 = true,
			       .has_nh6_ll = true };
	struct bgp_prefix p = pfx4("192.0.2.1", 32);
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	a.nh4 = ip4("10.0.0.1");		/* not sent */
	a.nh6 = ip6("2001:db8::1");
	a.nh6_ll = ip6("fe80::1");
	l = bgp_update_encode(buf, sizeof(buf), &a, &p, 1, false, &used);
	assert_int_equal(l, sizeof(want));
	assert_int_equal(used, 1);
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, true, false, &u);
	assert_int_equal(u.mp_announced, 1);
	assert_int_equal(u.announced, 0);
	/* withdrawn the usual way: the Withdrawn Routes field (the same AFI/SAFI) */
	l = bgp_update_encode(buf, sizeof(buf), NULL, &p, 1, true, &used);
	assert_int_equal(used, 1);
	decode_ok(buf, l, true, false, &u);
	assert_int_equal(u.withdrawn, 1);
}

/* RFC 8950's capability: (AFI 1, SAFI 1, next hop AFI 2), and only that one counts. */
static void test_open_ext_next_hop(void **state)
{
	static const uint8_t cap[] = { 0x05, 0x06, 0x00, 0x01, 0x00, 0x01, 0x00, 0x02 };
	struct bgp_open o = { .asn = 65001, .hold_time = 90, .cap_mp_v4 = true,
			      .cap_mp_v6 = true, .cap_ext_nh_v4 = true, .cap_as4 = true }, d;
	struct bgp_err e;
	uint8_t buf[BGP_MAX_LEN];
	size_t l;

	o.bgp_id = ip4("192.0.2.1");
	l = bgp_open_encode(buf, sizeof(buf), &o);
	assert_non_null(memmem(buf, l, cap, sizeof(cap)));
	assert_int_equal(bgp_open_decode(buf, l, &d, &e), 0);
	assert_true(d.cap_ext_nh_v4);
	/* IPv6 NLRI over an IPv4 next hop (not ours to take), a bad length */
	buf[(uint8_t *)memmem(buf, l, cap, sizeof(cap)) - buf + 3] = 2;
	assert_int_equal(bgp_open_decode(buf, l, &d, &e), 0);
	assert_false(d.cap_ext_nh_v4);
	o.cap_ext_nh_v4 = false;
	l = bgp_open_encode(buf, sizeof(buf), &o);
	assert_null(memmem(buf, l, cap, 2));
}

static void test_update_v6_nh32(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x55,	/* length 85 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x3e,		/* total path attribute length 62 */
		0x40, 0x01, 0x01, 0x00,			/* ORIGIN IGP */
		0x40, 0x02, 0x06,			/* AS_PATH */
		0x02, 0x01, 0x00, 0x00, 0xfd, 0xe9,	/* AS_SEQUENCE 65001 */
		0x80, 0x0e, 0x2e,			/* MP_REACH_NLRI, 46 octets */
		0x00, 0x02, 0x01,			/* AFI 2, SAFI 1 */
		0x20, V6_DB8(0x01), V6_LL1,		/* next hop: 32, global, link-local */
		0x00,					/* reserved */
		0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02, 0x00, 0x00,	/* 2001:db8:2::/64 */
	};
	struct bgp_attrs a = { .local_as = 65001, .ebgp = true, .has_nh6_ll = true };
	struct bgp_prefix p;
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	a.nh6 = ip6("2001:db8::1");
	a.nh6_ll = ip6("fe80::1");
	p = pfx6("2001:db8:2::", 64);
	l = bgp_update_encode(buf, sizeof(buf), &a, &p, 1, false, &used);
	assert_int_equal(l, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, true, false, &u);
	assert_int_equal(u.mp_announced, 1);
}

static void test_update_v6_withdraw(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x24,	/* length 36 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x0d,		/* total path attribute length 13 */
		0x80, 0x0f, 0x0a,	/* MP_UNREACH_NLRI, 10 octets */
		0x00, 0x02, 0x01,	/* AFI 2, SAFI 1 */
		0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,	/* 2001:db8:1::/48 */
	};
	struct bgp_prefix p = pfx6("2001:db8:1::", 48);
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used;
	size_t l;

	l = bgp_update_encode(buf, sizeof(buf), NULL, &p, 1, true, &used);
	assert_int_equal(l, sizeof(want));
	assert_int_equal(used, 1);
	assert_memory_equal(buf, want, sizeof(want));
	decode_ok(buf, l, true, false, &u);
	assert_int_equal(u.mp_withdrawn, 1);
	assert_false(u.eor);
}

static void test_eor(void **state)
{
	static const uint8_t want4[] = {
		MARKER, 0x00, 0x17,	/* length 23 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x00,		/* no path attributes, no NLRI */
	};
	static const uint8_t want6[] = {
		MARKER, 0x00, 0x1d,	/* length 29 */
		0x02,			/* UPDATE */
		0x00, 0x00,		/* no withdrawn routes */
		0x00, 0x06,		/* total path attribute length 6 */
		0x80, 0x0f, 0x03,	/* MP_UNREACH_NLRI, 3 octets */
		0x00, 0x02, 0x01,	/* AFI 2, SAFI 1, no prefixes */
	};
	struct bgp_update_info u;
	uint8_t buf[64];

	assert_int_equal(bgp_eor_encode(buf, sizeof(buf), BGP_AFI_IPV4), sizeof(want4));
	assert_memory_equal(buf, want4, sizeof(want4));
	decode_ok(buf, sizeof(want4), true, true, &u);
	assert_true(u.eor);
	assert_int_equal(u.eor_afi, BGP_AFI_IPV4);

	assert_int_equal(bgp_eor_encode(buf, sizeof(buf), BGP_AFI_IPV6), sizeof(want6));
	assert_memory_equal(buf, want6, sizeof(want6));
	decode_ok(buf, sizeof(want6), true, false, &u);
	assert_true(u.eor);
	assert_int_equal(u.eor_afi, BGP_AFI_IPV6);
	assert_int_equal(u.mp_withdrawn, 0);

	assert_int_equal(bgp_eor_encode(buf, 28, BGP_AFI_IPV6), 0);
}

/* 2000 /32s: as many per UPDATE as fit in 4096 octets, and all of them in the end. */
static void test_update_packing(void **state)
{
	static struct bgp_prefix p[2000];
	struct bgp_attrs a = {
		.local_as = 65001, .ebgp = true, .has_med = true, .med = 5,
		.communities = { 65001u << 16 | 1 }, .ncommunities = 1,
	};
	uint8_t buf[BGP_MAX_LEN + 100];
	unsigned int i, done, msgs, used, fam;

	for (fam = 0; fam < 2; fam++) {
		for (i = 0; i < 2000; i++) {
			char s[64];

			if (fam)
				snprintf(s, sizeof(s), "2001:db8::%x", i);
			else
				snprintf(s, sizeof(s), "10.%u.%u.%u", i >> 16, (i >> 8) & 255,
					 i & 255);
			p[i] = fam ? pfx6(s, 128) : pfx4(s, 32);
		}
		a.nh4 = ip4("192.0.2.1");
		a.nh6 = ip6("2001:db8::1");
		for (int wd = 0; wd < 2; wd++) {
			unsigned int seen = 0;

			for (done = 0, msgs = 0; done < 2000; done += used, msgs++) {
				struct bgp_update_info u;
				size_t l;

				l = bgp_update_encode(buf, sizeof(buf), &a, p + done, 2000 - done,
						      wd, &used);
				assert_true(l > 0 && l <= BGP_MAX_LEN);
				assert_true(used > 0);
				/* full: the next prefix would not have fitted */
				if (done + used < 2000)
					assert_true(l + 1 + (fam ? 16 : 4) > BGP_MAX_LEN);
				decode_ok(buf, l, true, false, &u);
				seen += fam ? (wd ? u.mp_withdrawn : u.mp_announced) :
					      (wd ? u.withdrawn : u.announced);
				assert_int_equal(seen, done + used);
			}
			assert_int_equal(done, 2000);
			assert_int_equal(seen, 2000);
			/* 5 octets a /32: 3 messages; 17 a /128: 9 */
			assert_int_equal(msgs, fam ? 9 : 3);
		}
	}
}

/* A value over 255 octets gets the extended-length flag and a 2-octet length. */
static void test_update_extended_length(void **state)
{
	struct bgp_prefix p[20];
	struct bgp_attrs a = { .local_as = 65001 };
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	unsigned int i, used;
	size_t l;

	for (i = 0; i < 20; i++) {
		p[i] = pfx6("2001:db8::", 128);
		p[i].v6.s6_addr[15] = i;
	}
	a.nh6 = ip6("2001:db8::1");
	l = bgp_update_encode(buf, sizeof(buf), &a, p, 20, false, &used);
	assert_int_equal(used, 20);
	/* ORIGIN 4, AS_PATH 3, LOCAL_PREF 7; then MP_REACH_NLRI */
	assert_int_equal(buf[23 + 14], BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_EXTLEN);
	assert_int_equal(buf[23 + 15], BGP_ATTR_MP_REACH_NLRI);
	/* AFI, SAFI, length, next hop, reserved: 21; 20 x 17 */
	assert_int_equal(buf[23 + 16] << 8 | buf[23 + 17], 21 + 20 * 17);
	assert_int_equal(l, 23 + 14 + 4 + 21 + 20 * 17);
	decode_ok(buf, l, true, true, &u);
	assert_int_equal(u.mp_announced, 20);
}

static void test_update_encode_edges(void **state)
{
	struct bgp_attrs a = { .local_as = 65001 };
	struct bgp_prefix p[2] = { 0 };
	uint8_t buf[BGP_MAX_LEN];
	unsigned int used = 7;

	assert_int_equal(bgp_update_encode(buf, sizeof(buf), &a, p, 0, false, &used), 0);
	assert_int_equal(used, 0);
	p[0] = pfx4("10.0.0.0", 33);
	assert_int_equal(bgp_update_encode(buf, sizeof(buf), &a, p, 1, false, &used), 0);
	/* one family per UPDATE */
	p[0] = pfx4("10.0.0.0", 8);
	p[1] = pfx6("2001:db8::", 32);
	assert_true(bgp_update_encode(buf, sizeof(buf), &a, p, 2, false, &used) > 0);
	assert_int_equal(used, 1);
	a.ncommunities = BGP_MAX_COMMUNITIES + 1;
	assert_int_equal(bgp_update_encode(buf, sizeof(buf), &a, p, 1, false, &used), 0);
}

/* ---- UPDATE: malformed ---- */

/* An UPDATE of withdrawn routes @w, path attributes @a and NLRI @n. */
static size_t mk_update(uint8_t *b, const uint8_t *w, size_t wl, const uint8_t *a, size_t al,
			const uint8_t *n, size_t nl)
{
	size_t len = 23 + wl + al + nl;

	memset(b, 0xff, 16);
	b[16] = len >> 8;
	b[17] = len;
	b[18] = BGP_UPDATE;
	b[19] = wl >> 8;
	b[20] = wl;
	if (wl)
		memcpy(b + 21, w, wl);
	b[21 + wl] = al >> 8;
	b[22 + wl] = al;
	if (al)
		memcpy(b + 23 + wl, a, al);
	if (nl)
		memcpy(b + 23 + wl + al, n, nl);
	return len;
}

#define ORIGIN_IGP	0x40, 0x01, 0x01, 0x00
#define AS_PATH_EMPTY	0x40, 0x02, 0x00
#define NEXT_HOP_1	0x40, 0x03, 0x04, 0x0a, 0x00, 0x00, 0x01
static const uint8_t nlri_10_24[] = { 0x18, 0x0a, 0x00, 0x00 };	/* 10.0.0.0/24 */

/* The UPDATE @a / @n is rejected with (3, @subcode, @data). */
static void upd_rejects(const uint8_t *a, size_t al, const uint8_t *n, size_t nl, bool ibgp,
			uint8_t subcode, const uint8_t *data, size_t dl)
{
	struct bgp_update_info u;
	uint8_t buf[BGP_MAX_LEN];
	struct bgp_err e;
	size_t l;

	l = mk_update(buf, NULL, 0, a, al, n, nl);
	assert_frames(buf, l, BGP_UPDATE);
	assert_int_equal(bgp_update_decode(buf, l, true, ibgp, &u, &e), -1);
	assert_err(&e, BGP_ERR_UPDATE, subcode, data, dl);
}

static void test_update_bad_lengths(void **state)
{
	static const uint8_t wd_overrun[] = {
		MARKER, 0x00, 0x17, 0x02,
		0x00, 0x05,		/* withdrawn routes length 5: 2 octets left */
		0x00, 0x00,
	};
	static const uint8_t attr_overrun[] = {
		MARKER, 0x00, 0x1a, 0x02,
		0x00, 0x00,
		0x00, 0x04,		/* total path attribute length 4: 3 there */
		0x40, 0x02, 0x00,
	};
	static const uint8_t bad_withdrawn[] = { 0x21, 0x0a, 0x00, 0x00, 0x01, 0x00 };
	struct bgp_update_info u;
	uint8_t buf[256];
	struct bgp_err e;
	size_t l;

	assert_frames(wd_overrun, sizeof(wd_overrun), BGP_UPDATE);
	assert_int_equal(bgp_update_decode(wd_overrun, sizeof(wd_overrun), true, true, &u, &e),
			 -1);
	assert_err(&e, BGP_ERR_UPDATE, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
	assert_int_equal(bgp_update_decode(attr_overrun, sizeof(attr_overrun), true, true, &u,
					   &e), -1);
	assert_err(&e, BGP_ERR_UPDATE, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);

	/* a withdrawn /33 */
	l = mk_update(buf, bad_withdrawn, sizeof(bad_withdrawn), NULL, 0, NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), -1);
	assert_err(&e, BGP_ERR_UPDATE, BGP_UPD_INVALID_NETWORK, NULL, 0);
	/* a withdrawn prefix cut short */
	l = mk_update(buf, (const uint8_t[]){ 0x18, 0x0a, 0x00 }, 3, NULL, 0, NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), -1);
	assert_err(&e, BGP_ERR_UPDATE, BGP_UPD_INVALID_NETWORK, NULL, 0);
}

static void test_update_attr_tlv(void **state)
{
	/* ORIGIN says 5 octets of value: the field has 1 */
	static const uint8_t overrun[] = { 0x40, 0x01, 0x05, 0x00 };
	/* a header cut: flags and type only */
	static const uint8_t cut[] = { ORIGIN_IGP, 0x40, 0x02 };
	/* extended length: 4-octet header, 3 there */
	static const uint8_t cut_ext[] = { 0x50, 0x02, 0x00 };
	static const uint8_t ext_overrun[] = { 0x50, 0x02, 0x01, 0x00, 0x02, 0x01 };

	upd_rejects(overrun, sizeof(overrun), NULL, 0, true, BGP_UPD_MALFORMED_ATTR_LIST,
		    NULL, 0);
	upd_rejects(cut, sizeof(cut), NULL, 0, true, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
	upd_rejects(cut_ext, sizeof(cut_ext), NULL, 0, true, BGP_UPD_MALFORMED_ATTR_LIST,
		    NULL, 0);
	upd_rejects(ext_overrun, sizeof(ext_overrun), NULL, 0, true,
		    BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
}

static void test_update_attr_checks(void **state)
{
	static const uint8_t origin_len2[] = { 0x40, 0x01, 0x02, 0x00, 0x00 };
	static const uint8_t origin_3[] = { 0x40, 0x01, 0x01, 0x03 };
	static const uint8_t origin_optional[] = { 0xc0, 0x01, 0x01, 0x00 };
	static const uint8_t origin_partial[] = { 0x60, 0x01, 0x01, 0x00 };
	static const uint8_t med_transitive[] = { 0xc0, 0x04, 0x04, 0x00, 0x00, 0x00, 0x01 };
	static const uint8_t comm_not_opt[] = { 0x40, 0x08, 0x04, 0xfd, 0xe9, 0x00, 0x01 };
	static const uint8_t comm_len[] = { 0xc0, 0x08, 0x03, 0xfd, 0xe9, 0x00 };
	static const uint8_t large_len[] = { 0xc0, 0x20, 0x04, 0x00, 0x00, 0xfd, 0xe9 };
	static const uint8_t nh_len[] = { 0x40, 0x03, 0x05, 0x0a, 0x00, 0x00, 0x01, 0x00 };
	static const uint8_t nh_zero[] = { 0x40, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00 };
	static const uint8_t lp_len[] = { 0x40, 0x05, 0x02, 0x00, 0x64 };
	static const uint8_t aa_len[] = { 0x40, 0x06, 0x01, 0x00 };
	/* AGGREGATOR of 6 octets (2-octet AS) where ASes have 4 octets */
	static const uint8_t aggr6[] = { 0xc0, 0x07, 0x06, 0xfd, 0xe9, 0x0a, 0x00, 0x00, 0x01 };
	static const uint8_t dup[] = { ORIGIN_IGP, AS_PATH_EMPTY, ORIGIN_IGP };
	/* type 99, well-known (not optional): unknown to us */
	static const uint8_t unknown_wk[] = { ORIGIN_IGP, 0x40, 0x63, 0x01, 0x00 };
	static const uint8_t unknown_wk_data[] = { 0x40, 0x63, 0x01, 0x00 };
	/* type 99 optional: ignored */
	static const uint8_t unknown_opt[] = {
		ORIGIN_IGP, AS_PATH_EMPTY, NEXT_HOP_1, 0xc0, 0x63, 0x01, 0x00,
		0x40, 0x06, 0x00,	/* ATOMIC_AGGREGATE */
		0xc0, 0x07, 0x08, 0x00, 0x00, 0xfd, 0xe9, 0x0a, 0x00, 0x00, 0x01, /* AGGREGATOR */
	};
	struct bgp_update_info u;
	uint8_t buf[256];
	struct bgp_err e;
	size_t l;

	upd_rejects(origin_len2, sizeof(origin_len2), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    origin_len2, sizeof(origin_len2));
	upd_rejects(origin_3, sizeof(origin_3), NULL, 0, true, BGP_UPD_INVALID_ORIGIN,
		    origin_3, sizeof(origin_3));
	upd_rejects(origin_optional, sizeof(origin_optional), NULL, 0, true,
		    BGP_UPD_ATTR_FLAGS, origin_optional, sizeof(origin_optional));
	upd_rejects(origin_partial, sizeof(origin_partial), NULL, 0, true,
		    BGP_UPD_ATTR_FLAGS, origin_partial, sizeof(origin_partial));
	upd_rejects(med_transitive, sizeof(med_transitive), NULL, 0, true,
		    BGP_UPD_ATTR_FLAGS, med_transitive, sizeof(med_transitive));
	upd_rejects(comm_not_opt, sizeof(comm_not_opt), NULL, 0, true,
		    BGP_UPD_ATTR_FLAGS, comm_not_opt, sizeof(comm_not_opt));
	upd_rejects(comm_len, sizeof(comm_len), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    comm_len, sizeof(comm_len));
	upd_rejects(large_len, sizeof(large_len), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    large_len, sizeof(large_len));
	upd_rejects(nh_len, sizeof(nh_len), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    nh_len, sizeof(nh_len));
	upd_rejects(nh_zero, sizeof(nh_zero), NULL, 0, true, BGP_UPD_INVALID_NEXT_HOP,
		    nh_zero, sizeof(nh_zero));
	upd_rejects(lp_len, sizeof(lp_len), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    lp_len, sizeof(lp_len));
	upd_rejects(aa_len, sizeof(aa_len), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    aa_len, sizeof(aa_len));
	upd_rejects(aggr6, sizeof(aggr6), NULL, 0, true, BGP_UPD_ATTR_LENGTH,
		    aggr6, sizeof(aggr6));
	upd_rejects(dup, sizeof(dup), NULL, 0, true, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
	upd_rejects(unknown_wk, sizeof(unknown_wk), NULL, 0, true,
		    BGP_UPD_UNRECOGNIZED_WELL_KNOWN, unknown_wk_data, sizeof(unknown_wk_data));

	/* 6 octets is right between 2-octet AS speakers */
	l = mk_update(buf, NULL, 0, aggr6, sizeof(aggr6), NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, false, true, &u, &e), 0);

	l = mk_update(buf, NULL, 0, unknown_opt, sizeof(unknown_opt), nlri_10_24,
		      sizeof(nlri_10_24));
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);
	assert_int_equal(u.announced, 1);
}

static void test_update_missing(void **state)
{
	static const uint8_t no_nh[] = { ORIGIN_IGP, AS_PATH_EMPTY };
	static const uint8_t no_origin[] = { AS_PATH_EMPTY, NEXT_HOP_1 };
	static const uint8_t no_as_path[] = { ORIGIN_IGP, NEXT_HOP_1 };
	static const uint8_t t1 = 1, t2 = 2, t3 = 3;
	/* MP_REACH_NLRI: IPv6, no ORIGIN */
	static const uint8_t mp_no_origin[] = {
		AS_PATH_EMPTY,
		0x80, 0x0e, 0x15, 0x00, 0x02, 0x01, 0x10, V6_DB8(0x01), 0x00,
	};
	struct bgp_update_info u;
	uint8_t buf[256];
	struct bgp_err e;
	size_t l;

	upd_rejects(no_nh, sizeof(no_nh), nlri_10_24, sizeof(nlri_10_24), true,
		    BGP_UPD_MISSING_WELL_KNOWN, &t3, 1);
	upd_rejects(no_origin, sizeof(no_origin), nlri_10_24, sizeof(nlri_10_24), true,
		    BGP_UPD_MISSING_WELL_KNOWN, &t1, 1);
	upd_rejects(no_as_path, sizeof(no_as_path), nlri_10_24, sizeof(nlri_10_24), true,
		    BGP_UPD_MISSING_WELL_KNOWN, &t2, 1);
	upd_rejects(mp_no_origin, sizeof(mp_no_origin), NULL, 0, true,
		    BGP_UPD_MISSING_WELL_KNOWN, &t1, 1);
	/* no NLRI: nothing is mandatory */
	l = mk_update(buf, NULL, 0, no_nh, sizeof(no_nh), NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);
	assert_false(u.eor);
}

static void test_update_as_path(void **state)
{
	/* segment type 5 */
	static const uint8_t bad_type[] = {
		ORIGIN_IGP, 0x40, 0x02, 0x06, 0x05, 0x01, 0x00, 0x00, 0xfd, 0xe9,
	};
	/* AS_SEQUENCE of 2 with one 4-octet AS */
	static const uint8_t overrun[] = {
		ORIGIN_IGP, 0x40, 0x02, 0x06, 0x02, 0x02, 0x00, 0x00, 0xfd, 0xe9,
	};
	/* a segment header cut */
	static const uint8_t cut[] = {
		ORIGIN_IGP, 0x40, 0x02, 0x07, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe9, 0x02,
	};
	/* an empty segment */
	static const uint8_t empty_seg[] = { ORIGIN_IGP, 0x40, 0x02, 0x02, 0x02, 0x00 };
	/* 2-octet ASes: AS_SEQUENCE 65003 65004 65005, then AS_SET {65001} */
	static const uint8_t two_octet[] = {
		ORIGIN_IGP, 0x40, 0x02, 0x0c,
		0x02, 0x03, 0xfd, 0xeb, 0xfd, 0xec, 0xfd, 0xed,
		0x01, 0x01, 0xfd, 0xe9, NEXT_HOP_1,
	};
	/* AS_CONFED_SEQUENCE 65001 */
	static const uint8_t confed[] = {
		ORIGIN_IGP, 0x40, 0x02, 0x06, 0x03, 0x01, 0x00, 0x00, 0xfd, 0xe9, NEXT_HOP_1,
	};
	static const uint8_t empty[] = { ORIGIN_IGP, AS_PATH_EMPTY, NEXT_HOP_1 };
	struct bgp_update_info u;
	uint8_t buf[256];
	struct bgp_err e;
	size_t l;

	upd_rejects(bad_type, sizeof(bad_type), NULL, 0, false, BGP_UPD_MALFORMED_AS_PATH,
		    NULL, 0);
	upd_rejects(overrun, sizeof(overrun), NULL, 0, false, BGP_UPD_MALFORMED_AS_PATH,
		    NULL, 0);
	upd_rejects(cut, sizeof(cut), NULL, 0, false, BGP_UPD_MALFORMED_AS_PATH, NULL, 0);
	upd_rejects(empty_seg, sizeof(empty_seg), NULL, 0, true, BGP_UPD_MALFORMED_AS_PATH,
		    NULL, 0);
	/* from an external peer: its AS is there, and no confederation segment */
	upd_rejects(empty, sizeof(empty), nlri_10_24, sizeof(nlri_10_24), false,
		    BGP_UPD_MALFORMED_AS_PATH, NULL, 0);
	upd_rejects(confed, sizeof(confed), nlri_10_24, sizeof(nlri_10_24), false,
		    BGP_UPD_MALFORMED_AS_PATH, NULL, 0);
	l = mk_update(buf, NULL, 0, confed, sizeof(confed), nlri_10_24, sizeof(nlri_10_24));
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);

	l = mk_update(buf, NULL, 0, two_octet, sizeof(two_octet), nlri_10_24,
		      sizeof(nlri_10_24));
	assert_int_equal(bgp_update_decode(buf, l, false, false, &u, &e), 0);
	assert_int_equal(u.announced, 1);
	/* the same read as 4-octet ASes overruns */
	assert_int_equal(bgp_update_decode(buf, l, true, false, &u, &e), -1);
	assert_err(&e, BGP_ERR_UPDATE, BGP_UPD_MALFORMED_AS_PATH, NULL, 0);
}

static void test_update_nlri(void **state)
{
	static const uint8_t attrs[] = { ORIGIN_IGP, AS_PATH_EMPTY, NEXT_HOP_1 };
	static const uint8_t slash33[] = { 0x21, 0x0a, 0x00, 0x00, 0x01, 0x00 };
	static const uint8_t cut[] = { 0x18, 0x0a, 0x00 };
	static const uint8_t ok[] = { 0x00, 0x20, 0x0a, 0x00, 0x00, 0x01 };	/* 0/0, /32 */
	struct bgp_update_info u;
	uint8_t buf[256];
	struct bgp_err e;
	size_t l;

	upd_rejects(attrs, sizeof(attrs), slash33, sizeof(slash33), true,
		    BGP_UPD_INVALID_NETWORK, NULL, 0);
	upd_rejects(attrs, sizeof(attrs), cut, sizeof(cut), true, BGP_UPD_INVALID_NETWORK,
		    NULL, 0);
	l = mk_update(buf, NULL, 0, attrs, sizeof(attrs), ok, sizeof(ok));
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);
	assert_int_equal(u.announced, 2);
}

static void test_update_mp(void **state)
{
	/* IPv6 next hop of 4 octets */
	static const uint8_t nh4[] = {
		ORIGIN_IGP, AS_PATH_EMPTY,
		0x80, 0x0e, 0x0e, 0x00, 0x02, 0x01, 0x04, 0x0a, 0x00, 0x00, 0x01, 0x00,
		0x20, 0x20, 0x01, 0x0d, 0xb8,
	};
	static const uint8_t nh4_data[] = {
		0x80, 0x0e, 0x0e, 0x00, 0x02, 0x01, 0x04, 0x0a, 0x00, 0x00, 0x01, 0x00,
		0x20, 0x20, 0x01, 0x0d, 0xb8,
	};
	/* next hop length past the attribute */
	static const uint8_t nh_overrun[] = {
		0x80, 0x0e, 0x08, 0x00, 0x02, 0x01, 0x10, 0x20, 0x01, 0x0d, 0xb8,
	};
	/* a /129 */
	static const uint8_t p129[] = {
		0x80, 0x0e, 0x16, 0x00, 0x02, 0x01, 0x10, V6_DB8(0x01), 0x00, 0x81,
	};
	/* MP_REACH_NLRI of 4 octets: no room for the reserved octet */
	static const uint8_t reach_short[] = { 0x80, 0x0e, 0x04, 0x00, 0x02, 0x01, 0x00 };
	/* IPv4 unicast with a 16-octet next hop: RFC 8950, taken */
	static const uint8_t v4_nh16[] = {
		ORIGIN_IGP, AS_PATH_EMPTY,
		0x80, 0x0e, 0x19, 0x00, 0x01, 0x01, 0x10, V6_DB8(0x01), 0x00,
		0x18, 0x0a, 0x00, 0x00,
	};
	/* IPv4 unicast with an 8-octet next hop: neither IPv4 nor IPv6 */
	static const uint8_t v4_nh8[] = {
		0x80, 0x0e, 0x0d, 0x00, 0x01, 0x01, 0x08, 1, 2, 3, 4, 5, 6, 7, 8, 0x00,
	};
	/* MP_UNREACH_NLRI of 2 octets */
	static const uint8_t unreach_short[] = { 0x80, 0x0f, 0x02, 0x00, 0x02 };
	/* MP_UNREACH_NLRI prefix cut */
	static const uint8_t unreach_cut[] = {
		0x80, 0x0f, 0x05, 0x00, 0x02, 0x01, 0x30, 0x20,
	};
	/* an AFI/SAFI we do not parse (IPv4 multicast): accepted, not counted */
	static const uint8_t other_safi[] = {
		0x80, 0x0f, 0x05, 0x00, 0x01, 0x02, 0x08, 0x0a,
	};
	/* MP_REACH_NLRI for IPv4 unicast, next hop 4 */
	static const uint8_t v4_mp[] = {
		ORIGIN_IGP, AS_PATH_EMPTY,
		0x80, 0x0e, 0x0d, 0x00, 0x01, 0x01, 0x04, 0x0a, 0x00, 0x00, 0x01, 0x00,
		0x18, 0x0a, 0x00, 0x00,
	};
	struct bgp_update_info u;
	uint8_t buf[256];
	struct bgp_err e;
	size_t l;

	upd_rejects(nh4, sizeof(nh4), NULL, 0, true, BGP_UPD_OPTIONAL_ATTR, nh4_data,
		    sizeof(nh4_data));
	upd_rejects(nh_overrun, sizeof(nh_overrun), NULL, 0, true, BGP_UPD_OPTIONAL_ATTR,
		    nh_overrun, sizeof(nh_overrun));
	upd_rejects(p129, sizeof(p129), NULL, 0, true, BGP_UPD_OPTIONAL_ATTR, p129,
		    sizeof(p129));
	upd_rejects(reach_short, sizeof(reach_short), NULL, 0, true, BGP_UPD_OPTIONAL_ATTR,
		    reach_short, sizeof(reach_short));
	upd_rejects(v4_nh8, sizeof(v4_nh8), NULL, 0, true, BGP_UPD_OPTIONAL_ATTR, v4_nh8,
		    sizeof(v4_nh8));
	upd_rejects(unreach_short, sizeof(unreach_short), NULL, 0, true,
		    BGP_UPD_OPTIONAL_ATTR, unreach_short, sizeof(unreach_short));
	upd_rejects(unreach_cut, sizeof(unreach_cut), NULL, 0, true, BGP_UPD_OPTIONAL_ATTR,
		    unreach_cut, sizeof(unreach_cut));

	l = mk_update(buf, NULL, 0, other_safi, sizeof(other_safi), NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);
	assert_int_equal(u.mp_withdrawn, 0);
	assert_false(u.eor);
	l = mk_update(buf, NULL, 0, v4_nh16, sizeof(v4_nh16), NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);
	assert_int_equal(u.mp_announced, 1);
	l = mk_update(buf, NULL, 0, v4_mp, sizeof(v4_mp), NULL, 0);
	assert_int_equal(bgp_update_decode(buf, l, true, true, &u, &e), 0);
	assert_int_equal(u.mp_announced, 1);
	assert_int_equal(u.announced, 0);
}

/* ---- framing ---- */

static void test_frame_errors(void **state)
{
	static const uint8_t bad_marker[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x00, 0x13, 0x04,
	};
	static const uint8_t len18[] = { MARKER, 0x00, 0x12, 0x04 };
	static const uint8_t len4097[] = { MARKER, 0x10, 0x01, 0x02 };
	static const uint8_t ka20[] = { MARKER, 0x00, 0x14, 0x04, 0x00 };
	static const uint8_t type6[] = { MARKER, 0x00, 0x13, 0x06 };
	static const uint8_t type0[] = { MARKER, 0x00, 0x13, 0x00 };
	static const uint8_t open28[] = { MARKER, 0x00, 0x1c, 0x01 };
	static const uint8_t update22[] = { MARKER, 0x00, 0x16, 0x02 };
	static const uint8_t notif20[] = { MARKER, 0x00, 0x14, 0x03 };
	static const uint8_t rr24[] = { MARKER, 0x00, 0x18, 0x05 };
	static const uint8_t rr22[] = { MARKER, 0x00, 0x16, 0x05 };
	struct {
		const uint8_t *msg;
		uint8_t subcode;
		uint8_t data[2];
		size_t dl;
	} cases[] = {
		{ bad_marker, BGP_HDR_NOT_SYNC, { 0 }, 0 },
		{ len18, BGP_HDR_BAD_LENGTH, { 0x00, 0x12 }, 2 },
		{ len4097, BGP_HDR_BAD_LENGTH, { 0x10, 0x01 }, 2 },
		{ ka20, BGP_HDR_BAD_LENGTH, { 0x00, 0x14 }, 2 },
		{ type6, BGP_HDR_BAD_TYPE, { 0x06 }, 1 },
		{ type0, BGP_HDR_BAD_TYPE, { 0x00 }, 1 },
		{ open28, BGP_HDR_BAD_LENGTH, { 0x00, 0x1c }, 2 },
		{ update22, BGP_HDR_BAD_LENGTH, { 0x00, 0x16 }, 2 },
		{ notif20, BGP_HDR_BAD_LENGTH, { 0x00, 0x14 }, 2 },
		{ rr24, BGP_HDR_BAD_LENGTH, { 0x00, 0x18 }, 2 },
		{ rr22, BGP_HDR_BAD_LENGTH, { 0x00, 0x16 }, 2 },
	};
	struct bgp_err e;
	unsigned int i;
	uint8_t t;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* the header alone is enough to tell */
		assert_int_equal(bgp_frame(cases[i].msg, BGP_HDR_LEN, &t, &e), -1);
		assert_err(&e, BGP_ERR_HEADER, cases[i].subcode, cases[i].data, cases[i].dl);
	}
	/* less than a header: wait */
	assert_int_equal(bgp_frame(bad_marker, 18, &t, &e), 0);
	assert_int_equal(bgp_frame(bad_marker, 0, &t, &e), 0);
}

/* ---- NOTIFICATION ---- */

static void test_notification(void **state)
{
	static const uint8_t hold[] = {
		MARKER, 0x00, 0x15,	/* length 21 */
		0x03,			/* NOTIFICATION */
		0x04, 0x00,		/* Hold Timer Expired */
	};
	static const uint8_t with_data[] = {
		MARKER, 0x00, 0x18,	/* length 24 */
		0x03,
		0x03, 0x03,		/* UPDATE / Missing Well-known Attribute */
		0x01,			/* ORIGIN */
		0xaa, 0xbb,
	};
	struct bgp_err e = { .code = BGP_ERR_HOLD_TIMER };
	struct bgp_notification n;
	uint8_t buf[64];

	assert_int_equal(bgp_notification_encode(buf, sizeof(buf), &e), sizeof(hold));
	assert_memory_equal(buf, hold, sizeof(hold));
	assert_frames(buf, sizeof(hold), BGP_NOTIFICATION);
	bgp_notification_decode(buf, sizeof(hold), &n);
	assert_int_equal(n.code, BGP_ERR_HOLD_TIMER);
	assert_int_equal(n.len, 0);
	assert_string_equal(n.shutdown_msg, "");

	e = (struct bgp_err){ .code = 3, .subcode = 3, .len = 3, .data = { 1, 0xaa, 0xbb } };
	assert_int_equal(bgp_notification_encode(buf, sizeof(buf), &e), sizeof(with_data));
	assert_memory_equal(buf, with_data, sizeof(with_data));
	assert_int_equal(bgp_notification_encode(buf, 23, &e), 0);

	/* the most data there is room for */
	e.len = sizeof(e.data);
	{
		static uint8_t big[BGP_MAX_LEN];

		assert_int_equal(bgp_notification_encode(big, sizeof(big), &e), BGP_MAX_LEN);
		assert_frames(big, BGP_MAX_LEN, BGP_NOTIFICATION);
	}

	/* malformed: code 0 */
	bgp_notification_decode(hold, 20, &n);
	assert_int_equal(n.code, 0);
}

static void test_cease_shutdown(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x21,	/* length 33 */
		0x03,			/* NOTIFICATION */
		0x06, 0x02,		/* Cease / Administrative Shutdown */
		0x0b,			/* shutdown communication length 11 */
		'm', 'a', 'i', 'n', 't', 'e', 'n', 'a', 'n', 'c', 'e',
	};
	static const uint8_t none[] = { MARKER, 0x00, 0x15, 0x03, 0x06, 0x04 };
	struct bgp_notification n;
	uint8_t buf[512];
	char msg[300];
	size_t l;

	l = bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_SHUTDOWN, "maintenance");
	assert_int_equal(l, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_frames(buf, l, BGP_NOTIFICATION);
	bgp_notification_decode(buf, l, &n);
	assert_int_equal(n.code, BGP_ERR_CEASE);
	assert_int_equal(n.subcode, BGP_CEASE_ADMIN_SHUTDOWN);
	assert_string_equal(n.shutdown_msg, "maintenance");
	assert_string_equal(bgp_err_name(n.code, n.subcode), "Cease/Administrative Shutdown");

	/* no message: no data */
	assert_int_equal(bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_RESET, NULL),
			 sizeof(none));
	assert_memory_equal(buf, none, sizeof(none));
	assert_int_equal(bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_RESET, ""),
			 sizeof(none));
	/* other subcodes carry none */
	assert_int_equal(bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_COLLISION, "x"), 21);

	/* 254 'a' and a 2-octet é (c3 a9): octet 256 would be cut, so é goes */
	memset(msg, 'a', 254);
	strcpy(msg + 254, "\xc3\xa9");
	l = bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_SHUTDOWN, msg);
	assert_int_equal(l, 21 + 1 + 254);
	assert_int_equal(buf[21], 254);
	assert_memory_equal(buf + 22, msg, 254);
	bgp_notification_decode(buf, l, &n);
	assert_int_equal(strlen(n.shutdown_msg), 254);

	/* 253 'a', é and 'b': é ends at 255, kept */
	memset(msg, 'a', 253);
	strcpy(msg + 253, "\xc3\xa9" "b");
	l = bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_SHUTDOWN, msg);
	assert_int_equal(l, 21 + 1 + 255);
	assert_int_equal(buf[21], 255);
	assert_memory_equal(buf + 22, msg, 255);
	bgp_notification_decode(buf, l, &n);
	assert_int_equal(strlen(n.shutdown_msg), 255);
	assert_memory_equal(n.shutdown_msg, msg, 255);

	/* 253 'a' and a 3-octet € (e2 82 ac): cut in it at 255, so it goes */
	memset(msg, 'a', 253);
	strcpy(msg + 253, "\xe2\x82\xac");
	l = bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_SHUTDOWN, msg);
	assert_int_equal(buf[21], 253);
	assert_int_equal(l, 21 + 1 + 253);

	/* exactly 255 ASCII: all of it */
	memset(msg, 'z', 255);
	msg[255] = '\0';
	l = bgp_cease_encode(buf, sizeof(buf), BGP_CEASE_ADMIN_SHUTDOWN, msg);
	assert_int_equal(buf[21], 255);
}

static void test_cease_malformed(void **state)
{
	/* the length octet says 9, 3 octets follow */
	static const uint8_t overrun[] = {
		MARKER, 0x00, 0x19, 0x03, 0x06, 0x02, 0x09, 'a', 'b', 'c',
	};
	static const uint8_t other[] = {
		MARKER, 0x00, 0x19, 0x03, 0x06, 0x03, 0x03, 'a', 'b', 'c',
	};
	static const uint8_t ok[] = {
		MARKER, 0x00, 0x19, 0x03, 0x06, 0x04, 0x03, 'a', 'b', 'c',
	};
	struct bgp_notification n;

	bgp_notification_decode(overrun, sizeof(overrun), &n);
	assert_int_equal(n.code, BGP_ERR_CEASE);
	assert_int_equal(n.len, 4);
	assert_string_equal(n.shutdown_msg, "");
	/* only subcodes 2 and 4 carry one */
	bgp_notification_decode(other, sizeof(other), &n);
	assert_string_equal(n.shutdown_msg, "");
	bgp_notification_decode(ok, sizeof(ok), &n);
	assert_string_equal(n.shutdown_msg, "abc");
}

/* ---- ROUTE-REFRESH ---- */

static void test_route_refresh(void **state)
{
	static const uint8_t want[] = {
		MARKER, 0x00, 0x17,	/* length 23 */
		0x05,			/* ROUTE-REFRESH */
		0x00, 0x02,		/* AFI 2 */
		0x00,			/* reserved */
		0x01,			/* SAFI 1 */
	};
	uint8_t buf[64];
	struct bgp_err e;
	uint16_t afi;
	uint8_t safi;

	assert_int_equal(bgp_route_refresh_encode(buf, sizeof(buf), BGP_AFI_IPV6),
			 sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_frames(buf, sizeof(want), BGP_ROUTE_REFRESH);
	assert_int_equal(bgp_route_refresh_decode(buf, sizeof(want), &afi, &safi, &e), 0);
	assert_int_equal(afi, BGP_AFI_IPV6);
	assert_int_equal(safi, BGP_SAFI_UNICAST);
	assert_int_equal(bgp_route_refresh_encode(buf, 22, BGP_AFI_IPV4), 0);

	/* RFC 7313: the wrong length, and the whole message as data */
	buf[23] = 0x00;
	assert_int_equal(bgp_route_refresh_decode(buf, 24, &afi, &safi, &e), -1);
	assert_err(&e, BGP_ERR_ROUTE_REFRESH, BGP_RR_INVALID_LENGTH, buf, 24);
}

/* ---- names ---- */

static void test_names(void **state)
{
	assert_string_equal(bgp_type_name(BGP_OPEN), "OPEN");
	assert_string_equal(bgp_type_name(BGP_UPDATE), "UPDATE");
	assert_string_equal(bgp_type_name(BGP_NOTIFICATION), "NOTIFICATION");
	assert_string_equal(bgp_type_name(BGP_KEEPALIVE), "KEEPALIVE");
	assert_string_equal(bgp_type_name(BGP_ROUTE_REFRESH), "ROUTE-REFRESH");
	assert_string_equal(bgp_type_name(0), "unknown");
	assert_string_equal(bgp_type_name(200), "unknown");

	assert_string_equal(bgp_err_name(4, 0), "Hold Timer Expired");
	assert_string_equal(bgp_err_name(6, 2), "Cease/Administrative Shutdown");
	assert_string_equal(bgp_err_name(6, 4), "Cease/Administrative Reset");
	assert_string_equal(bgp_err_name(1, 1), "Message Header Error/Connection Not Synchronized");
	assert_string_equal(bgp_err_name(2, 0), "OPEN Message Error");
	assert_string_equal(bgp_err_name(2, 6), "OPEN Message Error/Unacceptable Hold Time");
	assert_string_equal(bgp_err_name(3, 11), "UPDATE Message Error/Malformed AS_PATH");
	assert_string_equal(bgp_err_name(3, 9), "UPDATE Message Error/Optional Attribute Error");
	assert_string_equal(bgp_err_name(7, 1),
			    "ROUTE-REFRESH Message Error/Invalid Message Length");
	/* an unknown subcode: the code's name; an unknown code */
	assert_string_equal(bgp_err_name(3, 99), "UPDATE Message Error");
	assert_string_equal(bgp_err_name(0, 0), "unknown error");
	assert_string_equal(bgp_err_name(99, 1), "unknown error");
	for (unsigned int c = 1; c <= 7; c++)
		for (unsigned int s = 0; s < 256; s++)
			assert_non_null(bgp_err_name(c, s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_open_all_caps),
		cmocka_unit_test(test_open_as_trans),
		cmocka_unit_test(test_open_no_caps),
		cmocka_unit_test(test_open_bad_header_fields),
		cmocka_unit_test(test_open_bad_params),
		cmocka_unit_test(test_open_unknown_cap),
		cmocka_unit_test(test_open_extended_params),
		cmocka_unit_test(test_update_v4_ibgp),
		cmocka_unit_test(test_update_v4_ebgp),
		cmocka_unit_test(test_update_v4_withdraw),
		cmocka_unit_test(test_update_v6_nh16),
		cmocka_unit_test(test_update_v4_nh6),
		cmocka_unit_test(test_open_ext_next_hop),
		cmocka_unit_test(test_update_v6_nh32),
		cmocka_unit_test(test_update_v6_withdraw),
		cmocka_unit_test(test_eor),
		cmocka_unit_test(test_update_packing),
		cmocka_unit_test(test_update_extended_length),
		cmocka_unit_test(test_update_encode_edges),
		cmocka_unit_test(test_update_bad_lengths),
		cmocka_unit_test(test_update_attr_tlv),
		cmocka_unit_test(test_update_attr_checks),
		cmocka_unit_test(test_update_missing),
		cmocka_unit_test(test_update_as_path),
		cmocka_unit_test(test_update_nlri),
		cmocka_unit_test(test_update_mp),
		cmocka_unit_test(test_frame_errors),
		cmocka_unit_test(test_notification),
		cmocka_unit_test(test_cease_shutdown),
		cmocka_unit_test(test_cease_malformed),
		cmocka_unit_test(test_route_refresh),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("bgp_wire", tests, NULL, NULL);
}
