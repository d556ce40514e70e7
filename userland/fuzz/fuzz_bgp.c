// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the BGP-4 wire format (bgp/wire.c alone): the input is a TCP stream;
 * each message bgp_frame() finds goes, in a buffer of exactly its size, to the decoder of
 * its type; every NOTIFICATION a decoder asks for is encoded and read back. Then an UPDATE
 * built from the input's bytes is encoded, framed and decoded, and a KEEPALIVE goes around.
 *
 *   make fuzz [FUZZ_SECONDS=60]
 */
#include <stdlib.h>
#include <string.h>

#include "bgp/wire.h"

#define check(x) do { if (!(x)) __builtin_trap(); } while (0)

static uint8_t out[BGP_MAX_LEN];
static struct bgp_err err, err2;

/* The NOTIFICATION @e asks for goes out and comes back the same. */
static void notify(const struct bgp_err *e)
{
	struct bgp_notification n;
	size_t l = bgp_notification_encode(out, sizeof(out), e);
	uint8_t t;

	check(l == 21u + e->len);
	check(bgp_frame(out, l, &t, &err2) == (int)l && t == BGP_NOTIFICATION);
	bgp_notification_decode(out, l, &n);
	check(n.code == e->code && n.subcode == e->subcode && n.len == e->len);
	check(!memcmp(n.data, e->data, e->len));
	check(bgp_err_name(n.code, n.subcode));
}

static void decode(const uint8_t *msg, size_t len, uint8_t type)
{
	struct bgp_update_info u;
	struct bgp_notification n;
	struct bgp_open o;
	uint16_t afi;
	uint8_t safi;

	check(bgp_type_name(type));
	switch (type) {
	case BGP_OPEN:
		if (bgp_open_decode(msg, len, &o, &err))
			notify(&err);
		else
			check(o.hold_time == 0 || o.hold_time >= 3);
		break;
	case BGP_UPDATE:
		if (bgp_update_decode(msg, len, false, false, &u, &err))
			notify(&err);
		if (bgp_update_decode(msg, len, true, true, &u, &err))
			notify(&err);
		break;
	case BGP_NOTIFICATION:
		bgp_notification_decode(msg, len, &n);
		check(strlen(n.shutdown_msg) < sizeof(n.shutdown_msg));
		check(bgp_err_name(n.code, n.subcode));
		break;
	case BGP_ROUTE_REFRESH:
		if (bgp_route_refresh_decode(msg, len, &afi, &safi, &err))
			notify(&err);
		break;
	}
}

/* Attributes and prefixes from the input's bytes; encode, frame, decode: all counted. */
static void update_round_trip(const uint8_t *d, size_t size)
{
	static struct bgp_prefix p[512];
	struct bgp_attrs a = { 0 };
	struct bgp_update_info u;
	unsigned int i, n, used, got;
	bool wd, v6;
	size_t l;
	uint8_t t;

	if (size < 8)
		return;
	wd = d[0] & 1;
	v6 = d[0] & 2;
	a.ebgp = d[0] & 4;
	a.has_med = d[0] & 8;
	a.has_nh6_ll = d[0] & 16;
	a.local_as = (uint32_t)d[1] << 24 | d[2] << 16 | d[3];
	a.med = d[4];
	a.local_pref = d[5];
	a.ncommunities = d[6] % (BGP_MAX_COMMUNITIES + 1);
	a.nlarge = d[7] % (BGP_MAX_LARGE + 1);
	for (i = 0; i < a.ncommunities; i++)
		a.communities[i] = i * 0x01010101u;
	for (i = 0; i < a.nlarge; i++)
		a.large[i] = (struct bgp_large_community){ a.local_as, i, ~i };
	a.nh4.s_addr = htonl(0xc0000201);
	a.nh6.s6_addr[0] = 0x20;
	a.nh6_ll.s6_addr[0] = 0xfe;
	d += 8;
	size -= 8;
	/* a prefix from each 2 octets: length, then that for every address octet */
	for (n = 0; n < sizeof(p) / sizeof(p[0]) && size >= 2; n++, d += 2, size -= 2) {
		p[n].family = v6 ? AF_INET6 : AF_INET;
		p[n].len = d[0] % ((v6 ? 128 : 32) + 1);
		memset(&p[n].v6, d[1], sizeof(p[n].v6));
	}
	for (got = 0; got < n; got += used) {
		l = bgp_update_encode(out, sizeof(out), &a, p + got, n - got, wd, &used);
		check(l >= 23 && l <= BGP_MAX_LEN && used > 0 && used <= n - got);
		check(bgp_frame(out, l, &t, &err) == (int)l && t == BGP_UPDATE);
		check(!bgp_update_decode(out, l, true, !a.ebgp, &u, &err));
		check((v6 ? (wd ? u.mp_withdrawn : u.mp_announced) :
			    (wd ? u.withdrawn : u.announced)) == used);
		check(!u.eor);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	uint8_t t;
	int r;

	/* the stream, message after message */
	while ((r = bgp_frame(data + off, size - off, &t, &err)) > 0) {
		uint8_t *msg = malloc(r);	/* exactly its size: ASan sees any overread */

		check(msg);
		memcpy(msg, data + off, r);
		decode(msg, r, t);
		free(msg);
		off += r;
	}
	if (r < 0) {
		check(err.code == BGP_ERR_HEADER);
		notify(&err);
	}

	/* the decoders take whatever length they are given */
	if (size >= 19) {
		decode(data, size, BGP_OPEN);
		decode(data, size, BGP_UPDATE);
		decode(data, size, BGP_NOTIFICATION);
		decode(data, size, BGP_ROUTE_REFRESH);
	}

	update_round_trip(data, size);

	/* and a KEEPALIVE goes around */
	check(bgp_keepalive_encode(out, sizeof(out)) == BGP_HDR_LEN);
	check(bgp_frame(out, BGP_HDR_LEN, &t, &err) == BGP_HDR_LEN && t == BGP_KEEPALIVE);
	return 0;
}
