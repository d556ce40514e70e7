// SPDX-License-Identifier: GPL-2.0
/*
 * BGP-4 wire format (RFC 4271, 4760, 5492, 6793, 4724, 2918, 1997, 8092, 9003, 9072): the
 * encoders of what the announce-only speaker sends and the validating decoders of what it
 * receives. No allocation, no global state; a decoder never reads past the length given.
 *
 * Error choices where the RFCs leave room (see also wire.h):
 *  - an optional parameter or capability TLV overrunning its field, an Optional Parameters
 *    Length that disagrees with the message length, and a recognized capability of the
 *    wrong length (MP 4, AS4 4, GR 2 + 4n) are OPEN Message Error / Unspecific (2/0):
 *    RFC 4271 6.2, "recognized, but malformed" optional parameter; RFC 5492 defines none;
 *  - an attribute header or value overrunning the path attributes field is Malformed
 *    Attribute List (3/1): its length conflicts with the list, not with the type's expected
 *    length (which is 3/5);
 *  - a malformed withdrawn or NLRI prefix is Invalid Network Field (3/10); a malformed
 *    MP_REACH_NLRI / MP_UNREACH_NLRI (next hop length, prefixes) is Optional Attribute
 *    Error (3/9). RFC 7606 would treat-as-withdraw or reset only the AFI/SAFI; we only
 *    count received routes, so we keep RFC 4271's session reset with a NOTIFICATION.
 */
#include <string.h>

#include "bgp/wire.h"

/* ---- byte helpers ---- */

static inline void put16(uint8_t *b, uint16_t v)
{
	b[0] = v >> 8;
	b[1] = v;
}

static inline void put32(uint8_t *b, uint32_t v)
{
	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

static inline uint16_t get16(const uint8_t *b)
{
	return (uint16_t)b[0] << 8 | b[1];
}

static inline uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static size_t limit_of(size_t cap)
{
	return cap < BGP_MAX_LEN ? cap : BGP_MAX_LEN;
}

/* The header of a message of @len bytes. */
static void put_hdr(uint8_t *buf, size_t len, uint8_t type)
{
	memset(buf, 0xff, 16);
	put16(buf + 16, len);
	buf[18] = type;
}

static void set_err(struct bgp_err *e, uint8_t code, uint8_t subcode, const void *data,
		    size_t len)
{
	e->code = code;
	e->subcode = subcode;
	if (len > sizeof(e->data))
		len = sizeof(e->data);
	e->len = len;
	if (len)
		memcpy(e->data, data, len);
}

/* ---- encoders ---- */

size_t bgp_keepalive_encode(uint8_t *buf, size_t cap)
{
	if (cap < BGP_HDR_LEN)
		return 0;
	put_hdr(buf, BGP_HDR_LEN, BGP_KEEPALIVE);
	return BGP_HDR_LEN;
}

static uint8_t *put_cap_mp(uint8_t *b, uint16_t afi)
{
	*b++ = BGP_CAP_MP;
	*b++ = 4;
	put16(b, afi);
	b[2] = 0;
	b[3] = BGP_SAFI_UNICAST;
	return b + 4;
}

static uint8_t *put_gr_af(uint8_t *b, uint16_t afi, bool fwd)
{
	put16(b, afi);
	b[2] = BGP_SAFI_UNICAST;
	b[3] = fwd ? BGP_GR_AF_F_FORWARDING : 0;
	return b + 4;
}

size_t bgp_open_encode(uint8_t *buf, size_t cap, const struct bgp_open *o)
{
	uint8_t caps[64], *c = caps;
	size_t caplen, len;
	bool as4 = o->cap_as4 || o->asn > 0xffff;

	if (o->cap_mp_v4)
		c = put_cap_mp(c, BGP_AFI_IPV4);
	if (o->cap_mp_v6)
		c = put_cap_mp(c, BGP_AFI_IPV6);
	if (o->cap_route_refresh) {
		*c++ = BGP_CAP_ROUTE_REFRESH;
		*c++ = 0;
	}
	if (o->cap_ext_nh_v4) {
		*c++ = BGP_CAP_EXT_NEXT_HOP;
		*c++ = 6;
		put16(c, BGP_AFI_IPV4);
		put16(c + 2, BGP_SAFI_UNICAST);
		put16(c + 4, BGP_AFI_IPV6);
		c += 6;
	}
	if (o->cap_gr) {
		uint16_t t = o->gr_time > BGP_GR_TIME_MAX ? BGP_GR_TIME_MAX : o->gr_time;

		*c++ = BGP_CAP_GRACEFUL_RESTART;
		*c++ = 2 + 4 * (o->gr_v4 + o->gr_v6);
		put16(c, (o->gr_restarting ? BGP_GR_F_RESTART << 12 : 0) | t);
		c += 2;
		if (o->gr_v4)
			c = put_gr_af(c, BGP_AFI_IPV4, o->gr_v4_fwd);
		if (o->gr_v6)
			c = put_gr_af(c, BGP_AFI_IPV6, o->gr_v6_fwd);
	}
	if (as4) {
		*c++ = BGP_CAP_AS4;
		*c++ = 4;
		put32(c, o->asn);
		c += 4;
	}
	caplen = c - caps;

	/* all capabilities in one Capabilities optional parameter (RFC 5492) */
	len = 29 + (caplen ? 2 + caplen : 0);
	if (len > limit_of(cap))
		return 0;
	put_hdr(buf, len, BGP_OPEN);
	buf[19] = BGP_VERSION;
	put16(buf + 20, o->asn > 0xffff ? BGP_AS_TRANS : o->asn);
	put16(buf + 22, o->hold_time);
	memcpy(buf + 24, &o->bgp_id, 4);
	buf[28] = caplen ? 2 + caplen : 0;
	if (caplen) {
		buf[29] = 2;
		buf[30] = caplen;
		memcpy(buf + 31, caps, caplen);
	}
	return len;
}

size_t bgp_notification_encode(uint8_t *buf, size_t cap, const struct bgp_err *e)
{
	size_t len = BGP_HDR_LEN + 2 + e->len;

	if (e->len > sizeof(e->data) || len > limit_of(cap))
		return 0;
	put_hdr(buf, len, BGP_NOTIFICATION);
	buf[19] = e->code;
	buf[20] = e->subcode;
	memcpy(buf + 21, e->data, e->len);
	return len;
}

/* How many bytes of @s (at most 255) to send: cut before a UTF-8 continuation byte. */
static size_t utf8_cut(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	n = max;
	while (n && ((uint8_t)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

size_t bgp_cease_encode(uint8_t *buf, size_t cap, uint8_t subcode, const char *msg)
{
	struct bgp_err e = { .code = BGP_ERR_CEASE, .subcode = subcode };

	/* no message: no data at all, as before RFC 8203 */
	if (msg && *msg && (subcode == BGP_CEASE_ADMIN_SHUTDOWN ||
			    subcode == BGP_CEASE_ADMIN_RESET)) {
		size_t n = utf8_cut(msg, 255);

		e.data[0] = n;
		memcpy(e.data + 1, msg, n);
		e.len = 1 + n;
	}
	return bgp_notification_encode(buf, cap, &e);
}

size_t bgp_route_refresh_encode(uint8_t *buf, size_t cap, enum bgp_afi afi)
{
	if (cap < 23)
		return 0;
	put_hdr(buf, 23, BGP_ROUTE_REFRESH);
	put16(buf + 19, afi);
	buf[21] = 0;
	buf[22] = BGP_SAFI_UNICAST;
	return 23;
}

static size_t attr_hdr_len(size_t vlen)
{
	return vlen > 255 ? 4 : 3;
}

static uint8_t *put_attr_hdr(uint8_t *b, uint8_t flags, uint8_t type, size_t vlen)
{
	if (vlen > 255) {
		*b++ = flags | BGP_ATTR_F_EXTLEN;
		*b++ = type;
		put16(b, vlen);
		return b + 2;
	}
	*b++ = flags;
	*b++ = type;
	*b++ = vlen;
	return b;
}

static uint8_t *put_attr32(uint8_t *b, uint8_t flags, uint8_t type, uint32_t v)
{
	b = put_attr_hdr(b, flags, type, 4);
	put32(b, v);
	return b + 4;
}

static unsigned int max_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

static size_t prefix_size(const struct bgp_prefix *p)
{
	return 1 + (p->len + 7) / 8;
}

/* The prefix, its host bits cleared. */
static uint8_t *put_prefix(uint8_t *b, const struct bgp_prefix *p)
{
	const uint8_t *a = p->family == AF_INET ? (const uint8_t *)&p->v4 :
						   (const uint8_t *)&p->v6;
	size_t n = (p->len + 7) / 8;

	*b++ = p->len;
	memcpy(b, a, n);
	if (p->len % 8)
		b[n - 1] &= 0xff << (8 - p->len % 8);
	return b + n;
}

/* The length of the attributes before, and after, the NLRI-carrying one. */
static size_t announce_attrs_len(const struct bgp_attrs *a, bool mp)
{
	size_t l = 4;				/* ORIGIN */

	l += 3 + (a->ebgp ? 6 : 0);		/* AS_PATH */
	if (!mp)
		l += 7;				/* NEXT_HOP */
	if (a->has_med)
		l += 7;
	if (!a->ebgp)
		l += 7;				/* LOCAL_PREF */
	if (a->ncommunities)
		l += attr_hdr_len(4 * a->ncommunities) + 4 * a->ncommunities;
	if (a->nlarge)
		l += attr_hdr_len(12 * a->nlarge) + 12 * a->nlarge;
	return l;
}

size_t bgp_update_encode(uint8_t *buf, size_t cap, const struct bgp_attrs *a,
			 const struct bgp_prefix *p, unsigned int n, bool withdraw,
			 unsigned int *used)
{
	size_t limit = limit_of(cap), fixed = 0, mpfix = 0, pfx = 0, total = 0, len;
	unsigned int k, i;
	uint8_t *b;
	bool v6, mp;

	*used = 0;
	if (!n || (p[0].family != AF_INET && p[0].family != AF_INET6))
		return 0;
	v6 = p[0].family == AF_INET6;
	/* the prefixes go in MP_(UN)REACH_NLRI: IPv6, and IPv4 announced with an IPv6 next hop */
	mp = v6 || (!withdraw && a->v4_nh6);
	if (!withdraw) {
		if (a->ncommunities > BGP_MAX_COMMUNITIES || a->nlarge > BGP_MAX_LARGE)
			return 0;
		fixed = announce_attrs_len(a, mp);
		/* AFI, SAFI, next hop length, next hop, reserved */
		mpfix = mp ? 2 + 1 + 1 + (a->has_nh6_ll ? 32 : 16) + 1 : 0;
	} else if (v6) {
		mpfix = 3;				/* AFI, SAFI */
	}

	/* greedily, as many prefixes as fit */
	for (k = 0; k < n; k++) {
		size_t np, t;

		if (p[k].family != p[0].family || p[k].len > max_bits(p[k].family))
			break;
		np = pfx + prefix_size(&p[k]);
		t = 23 + fixed + (mp ? attr_hdr_len(mpfix + np) + mpfix + np : np);
		if (t > limit)
			break;
		pfx = np;
		total = t;
	}
	if (!k)
		return 0;
	len = total;

	put_hdr(buf, len, BGP_UPDATE);
	b = buf + 19;
	if (withdraw && !v6) {
		put16(b, pfx);
		b += 2;
		for (i = 0; i < k; i++)
			b = put_prefix(b, &p[i]);
		put16(b, 0);
		b += 2;
		goto out;
	}
	put16(b, 0);					/* no withdrawn routes */
	put16(b + 2, len - 23 - (mp ? 0 : pfx));	/* total path attribute length */
	b += 4;
	if (withdraw) {
		b = put_attr_hdr(b, BGP_ATTR_F_OPTIONAL, BGP_ATTR_MP_UNREACH_NLRI, mpfix + pfx);
		put16(b, BGP_AFI_IPV6);
		b[2] = BGP_SAFI_UNICAST;
		b += 3;
		for (i = 0; i < k; i++)
			b = put_prefix(b, &p[i]);
		goto out;
	}

	b = put_attr_hdr(b, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_ORIGIN, 1);
	*b++ = BGP_ORIGIN_IGP;
	if (a->ebgp) {
		b = put_attr_hdr(b, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_AS_PATH, 6);
		*b++ = 2;				/* AS_SEQUENCE */
		*b++ = 1;
		put32(b, a->local_as);
		b += 4;
	} else {
		b = put_attr_hdr(b, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_AS_PATH, 0);
	}
	if (!mp) {
		b = put_attr_hdr(b, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_NEXT_HOP, 4);
		memcpy(b, &a->nh4, 4);
		b += 4;
	}
	if (a->has_med)
		b = put_attr32(b, BGP_ATTR_F_OPTIONAL, BGP_ATTR_MED, a->med);
	if (!a->ebgp)
		b = put_attr32(b, BGP_ATTR_F_TRANSITIVE, BGP_ATTR_LOCAL_PREF, a->local_pref);
	if (a->ncommunities) {
		b = put_attr_hdr(b, BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_TRANSITIVE,
				 BGP_ATTR_COMMUNITIES, 4 * a->ncommunities);
		for (i = 0; i < a->ncommunities; i++, b += 4)
			put32(b, a->communities[i]);
	}
	if (mp) {
		b = put_attr_hdr(b, BGP_ATTR_F_OPTIONAL, BGP_ATTR_MP_REACH_NLRI, mpfix + pfx);
		put16(b, v6 ? BGP_AFI_IPV6 : BGP_AFI_IPV4);
		b[2] = BGP_SAFI_UNICAST;
		b[3] = a->has_nh6_ll ? 32 : 16;
		b += 4;
		memcpy(b, &a->nh6, 16);
		b += 16;
		if (a->has_nh6_ll) {
			memcpy(b, &a->nh6_ll, 16);
			b += 16;
		}
		*b++ = 0;				/* reserved */
		for (i = 0; i < k; i++)
			b = put_prefix(b, &p[i]);
	}
	if (a->nlarge) {
		b = put_attr_hdr(b, BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_TRANSITIVE,
				 BGP_ATTR_LARGE_COMMUNITIES, 12 * a->nlarge);
		for (i = 0; i < a->nlarge; i++, b += 12) {
			put32(b, a->large[i].global);
			put32(b + 4, a->large[i].local1);
			put32(b + 8, a->large[i].local2);
		}
	}
	if (!mp)
		for (i = 0; i < k; i++)
			b = put_prefix(b, &p[i]);
out:
	*used = k;
	return b - buf;
}

size_t bgp_eor_encode(uint8_t *buf, size_t cap, enum bgp_afi afi)
{
	size_t len = afi == BGP_AFI_IPV4 ? 23 : 29;

	if (len > limit_of(cap))
		return 0;
	put_hdr(buf, len, BGP_UPDATE);
	put16(buf + 19, 0);
	put16(buf + 21, len - 23);
	if (afi != BGP_AFI_IPV4) {
		put_attr_hdr(buf + 23, BGP_ATTR_F_OPTIONAL, BGP_ATTR_MP_UNREACH_NLRI, 3);
		put16(buf + 26, afi);
		buf[28] = BGP_SAFI_UNICAST;
	}
	return len;
}

/* ---- framing ---- */

int bgp_frame(const uint8_t *buf, size_t avail, uint8_t *type, struct bgp_err *e)
{
	static const uint16_t min_len[] = {
		[BGP_OPEN] = 29, [BGP_UPDATE] = 23, [BGP_NOTIFICATION] = 21,
		[BGP_KEEPALIVE] = 19, [BGP_ROUTE_REFRESH] = 23,
	};
	uint16_t len;
	uint8_t t;
	int i;

	if (avail < BGP_HDR_LEN)
		return 0;
	for (i = 0; i < 16; i++)
		if (buf[i] != 0xff) {
			set_err(e, BGP_ERR_HEADER, BGP_HDR_NOT_SYNC, NULL, 0);
			return -1;
		}
	len = get16(buf + 16);
	t = buf[18];
	if (len < BGP_HDR_LEN || len > BGP_MAX_LEN) {
		set_err(e, BGP_ERR_HEADER, BGP_HDR_BAD_LENGTH, buf + 16, 2);
		return -1;
	}
	if (t < BGP_OPEN || t > BGP_ROUTE_REFRESH) {
		set_err(e, BGP_ERR_HEADER, BGP_HDR_BAD_TYPE, buf + 18, 1);
		return -1;
	}
	/* KEEPALIVE and ROUTE-REFRESH have a fixed length */
	if (len < min_len[t] ||
	    ((t == BGP_KEEPALIVE || t == BGP_ROUTE_REFRESH) && len != min_len[t])) {
		set_err(e, BGP_ERR_HEADER, BGP_HDR_BAD_LENGTH, buf + 16, 2);
		return -1;
	}
	if (avail < len)
		return 0;
	*type = t;
	return len;
}

/* ---- OPEN ---- */

static int open_err(struct bgp_err *e, uint8_t subcode)
{
	set_err(e, BGP_ERR_OPEN, subcode, NULL, 0);
	return -1;
}

/* The capabilities in @c[0..@len) (one Capabilities optional parameter's value). */
static int parse_caps(const uint8_t *c, size_t len, struct bgp_open *o, struct bgp_err *e)
{
	size_t off = 0;

	while (off < len) {
		uint8_t code, cl;
		const uint8_t *v;

		if (len - off < 2)
			return open_err(e, BGP_OPEN_UNSPECIFIC);
		code = c[off];
		cl = c[off + 1];
		v = c + off + 2;
		if (cl > len - off - 2)
			return open_err(e, BGP_OPEN_UNSPECIFIC);
		off += 2 + cl;

		switch (code) {
		case BGP_CAP_MP:
			if (cl != 4)
				return open_err(e, BGP_OPEN_UNSPECIFIC);
			if (v[3] != BGP_SAFI_UNICAST)
				break;
			if (get16(v) == BGP_AFI_IPV4)
				o->cap_mp_v4 = true;
			else if (get16(v) == BGP_AFI_IPV6)
				o->cap_mp_v6 = true;
			break;
		case BGP_CAP_ROUTE_REFRESH:
			o->cap_route_refresh = true;
			break;
		case BGP_CAP_EXT_NEXT_HOP: {
			size_t i;

			if (cl % 6)
				return open_err(e, BGP_OPEN_UNSPECIFIC);
			for (i = 0; i < cl; i += 6)
				if (get16(v + i) == BGP_AFI_IPV4 &&
				    get16(v + i + 2) == BGP_SAFI_UNICAST &&
				    get16(v + i + 4) == BGP_AFI_IPV6)
					o->cap_ext_nh_v4 = true;
			break;
		}
		case BGP_CAP_GRACEFUL_RESTART: {
			size_t i;

			if (cl < 2 || (cl - 2) % 4)
				return open_err(e, BGP_OPEN_UNSPECIFIC);
			o->cap_gr = true;
			o->gr_restarting = (v[0] >> 4) & BGP_GR_F_RESTART;
			o->gr_time = get16(v) & 0x0fff;
			for (i = 2; i < cl; i += 4) {
				bool fwd = v[i + 3] & BGP_GR_AF_F_FORWARDING;

				if (v[i + 2] != BGP_SAFI_UNICAST)
					continue;
				if (get16(v + i) == BGP_AFI_IPV4) {
					o->gr_v4 = true;
					o->gr_v4_fwd = fwd;
				} else if (get16(v + i) == BGP_AFI_IPV6) {
					o->gr_v6 = true;
					o->gr_v6_fwd = fwd;
				}
			}
			break;
		}
		case BGP_CAP_AS4:
			if (cl != 4)
				return open_err(e, BGP_OPEN_UNSPECIFIC);
			o->cap_as4 = true;
			o->asn = get32(v);
			break;
		default:			/* RFC 5492: ignore what we do not know */
			break;
		}
	}
	return 0;
}

/* A message shorter than its type allows: Bad Message Length, with the length. -1. */
static int bad_length(struct bgp_err *e, size_t len)
{
	uint8_t l[2];

	put16(l, len);
	set_err(e, BGP_ERR_HEADER, BGP_HDR_BAD_LENGTH, l, 2);
	return -1;
}

int bgp_open_decode(const uint8_t *msg, size_t len, struct bgp_open *o, struct bgp_err *e)
{
	static const uint8_t version[2] = { 0, BGP_VERSION };
	size_t off, end, plen;
	bool ext = false;

	memset(o, 0, sizeof(*o));
	if (len < 29)
		return bad_length(e, len);
	if (msg[19] != BGP_VERSION) {
		set_err(e, BGP_ERR_OPEN, BGP_OPEN_BAD_VERSION, version, 2);
		return -1;
	}
	o->my_as = get16(msg + 20);
	o->asn = o->my_as;
	o->hold_time = get16(msg + 22);
	memcpy(&o->bgp_id, msg + 24, 4);
	if (o->hold_time == 1 || o->hold_time == 2)
		return open_err(e, BGP_OPEN_BAD_HOLD_TIME);
	if (!o->bgp_id.s_addr)
		return open_err(e, BGP_OPEN_BAD_BGP_ID);

	plen = msg[28];
	off = 29;
	/* RFC 9072: Non-Ext OP Len 255, Non-Ext OP Type 255, then a 2-octet length */
	if (plen == 255 && len >= 32 && msg[29] == 255) {
		ext = true;
		plen = get16(msg + 30);
		off = 32;
	}
	/* the optional parameters must fill the rest of the message exactly */
	if (plen != len - off)
		return open_err(e, BGP_OPEN_UNSPECIFIC);
	end = len;
	while (off < end) {
		size_t hl = ext ? 3 : 2, pl;
		uint8_t type;

		if (end - off < hl)
			return open_err(e, BGP_OPEN_UNSPECIFIC);
		type = msg[off];
		pl = ext ? get16(msg + off + 1) : msg[off + 1];
		off += hl;
		if (pl > end - off)
			return open_err(e, BGP_OPEN_UNSPECIFIC);
		if (type != 2)
			return open_err(e, BGP_OPEN_UNSUPPORTED_PARAM);
		if (parse_caps(msg + off, pl, o, e))
			return -1;
		off += pl;
	}
	return 0;
}

/* ---- UPDATE ---- */

static int upd_err(struct bgp_err *e, uint8_t subcode, const uint8_t *data, size_t len)
{
	set_err(e, BGP_ERR_UPDATE, subcode, data, len);
	return -1;
}

/* Check the prefixes in @p[0..@len) of at most @bits bits; their number, or -1. */
static int walk_prefixes(const uint8_t *p, size_t len, unsigned int bits, unsigned int *count)
{
	size_t off = 0;

	while (off < len) {
		uint8_t pl = p[off];
		size_t n = (pl + 7) / 8;

		if (pl > bits || n > len - off - 1)
			return -1;
		off += 1 + n;
		(*count)++;
	}
	return 0;
}

/* Flags a known attribute must have (mask 0xe0: optional, transitive, partial). */
static bool flags_ok(uint8_t type, uint8_t flags)
{
	switch (type) {
	case BGP_ATTR_ORIGIN:
	case BGP_ATTR_AS_PATH:
	case BGP_ATTR_NEXT_HOP:
	case BGP_ATTR_LOCAL_PREF:
	case BGP_ATTR_ATOMIC_AGGREGATE:
		/* well-known: transitive, and partial is 0 */
		return (flags & 0xe0) == BGP_ATTR_F_TRANSITIVE;
	case BGP_ATTR_MED:
	case BGP_ATTR_MP_REACH_NLRI:
	case BGP_ATTR_MP_UNREACH_NLRI:
		/* optional non-transitive: partial is 0 */
		return (flags & 0xe0) == BGP_ATTR_F_OPTIONAL;
	case BGP_ATTR_AGGREGATOR:
	case BGP_ATTR_COMMUNITIES:
	case BGP_ATTR_AS4_PATH:
	case BGP_ATTR_AS4_AGGREGATOR:
	case BGP_ATTR_LARGE_COMMUNITIES:
		/* optional transitive, partial either way */
		return (flags & 0xc0) == (BGP_ATTR_F_OPTIONAL | BGP_ATTR_F_TRANSITIVE);
	default:
		return true;
	}
}

/* Whether @vl is a valid length for a known attribute (fixed, or a multiple of a unit). */
static bool length_ok(uint8_t type, size_t vl, bool four_octet)
{
	switch (type) {
	case BGP_ATTR_ORIGIN:
		return vl == 1;
	case BGP_ATTR_NEXT_HOP:
	case BGP_ATTR_MED:
	case BGP_ATTR_LOCAL_PREF:
		return vl == 4;
	case BGP_ATTR_ATOMIC_AGGREGATE:
		return vl == 0;
	case BGP_ATTR_AGGREGATOR:
		return vl == (four_octet ? 8 : 6);
	case BGP_ATTR_AS4_AGGREGATOR:
		return vl == 8;
	case BGP_ATTR_COMMUNITIES:
		return vl % 4 == 0;
	case BGP_ATTR_LARGE_COMMUNITIES:
		return vl % 12 == 0;
	default:
		return true;
	}
}

static bool as_path_ok(const uint8_t *v, size_t vl, bool four_octet, bool ibgp)
{
	size_t asz = four_octet ? 4 : 2, off = 0;

	/* from an external peer, the path holds at least its AS */
	if (!ibgp && !vl)
		return false;
	while (off < vl) {
		uint8_t st, cnt;

		if (vl - off < 2)
			return false;
		st = v[off];
		cnt = v[off + 1];
		/* AS_SET 1, AS_SEQUENCE 2; the confederation ones (RFC 5065) only inside */
		if (st < 1 || st > 4 || (!ibgp && st > 2) || !cnt)
			return false;
		off += 2;
		if (cnt * asz > vl - off)
			return false;
		off += cnt * asz;
	}
	return true;
}

static bool next_hop_ok(const uint8_t *v)
{
	/* a host address: not 0.0.0.0, not multicast, not class E / broadcast */
	return get32(v) && v[0] < 224;
}

/* MP_REACH_NLRI / MP_UNREACH_NLRI: layout, next hop length and prefixes. */
static int mp_attr(bool reach, const uint8_t *v, size_t vl, struct bgp_update_info *u,
		   bool *mp_empty_unreach, uint16_t *mp_afi)
{
	uint16_t afi;
	uint8_t safi;
	size_t off = 3;
	unsigned int bits = 0;

	if (vl < 3)
		return -1;
	afi = get16(v);
	safi = v[2];
	*mp_afi = afi;
	if (safi == BGP_SAFI_UNICAST && afi == BGP_AFI_IPV4)
		bits = 32;
	else if (safi == BGP_SAFI_UNICAST && afi == BGP_AFI_IPV6)
		bits = 128;
	if (reach) {
		uint8_t nhl;

		if (vl < 5)
			return -1;
		nhl = v[3];
		if (nhl > vl - 5)		/* next hop, then the reserved octet */
			return -1;
		/* IPv4: an IPv4 next hop, or an IPv6 one (RFC 8950) */
		if (bits == 32 && nhl != 4 && nhl != 16 && nhl != 32)
			return -1;
		if (bits == 128 && nhl != 16 && nhl != 32)
			return -1;
		off = 4 + nhl + 1;
	}
	if (!reach && vl == 3)
		*mp_empty_unreach = true;
	if (!bits)			/* an AFI/SAFI we do not parse */
		return 0;
	return walk_prefixes(v + off, vl - off, bits, reach ? &u->mp_announced :
							    &u->mp_withdrawn);
}

int bgp_update_decode(const uint8_t *msg, size_t len, bool four_octet, bool ibgp,
		      struct bgp_update_info *u, struct bgp_err *e)
{
	uint8_t seen[256 / 8] = { 0 };
	size_t wlen, alen, off, aend, nattr = 0;
	bool mp_empty_unreach = false, mp_reach = false;
	uint16_t mp_afi = 0;
	const uint8_t *nlri;
	size_t nlen;

	memset(u, 0, sizeof(*u));
	if (len < 23)
		return bad_length(e, len);
	wlen = get16(msg + 19);
	if (wlen > len - 23)
		return upd_err(e, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
	alen = get16(msg + 21 + wlen);
	if (alen > len - 23 - wlen)
		return upd_err(e, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
	if (walk_prefixes(msg + 21, wlen, 32, &u->withdrawn))
		return upd_err(e, BGP_UPD_INVALID_NETWORK, NULL, 0);

	off = 23 + wlen;
	aend = off + alen;
	nlri = msg + aend;
	nlen = len - aend;
	while (off < aend) {
		uint8_t flags, type;
		size_t hl, vl;
		const uint8_t *a = msg + off, *v;

		if (aend - off < 3)
			return upd_err(e, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
		flags = a[0];
		type = a[1];
		hl = flags & BGP_ATTR_F_EXTLEN ? 4 : 3;
		if (aend - off < hl)
			return upd_err(e, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
		vl = hl == 4 ? get16(a + 2) : a[2];
		if (vl > aend - off - hl)
			return upd_err(e, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
		v = a + hl;
		off += hl + vl;
		nattr++;

		if (seen[type / 8] & (1u << (type % 8)))
			return upd_err(e, BGP_UPD_MALFORMED_ATTR_LIST, NULL, 0);
		seen[type / 8] |= 1u << (type % 8);

		if (!flags_ok(type, flags))
			return upd_err(e, BGP_UPD_ATTR_FLAGS, a, hl + vl);
		if (!length_ok(type, vl, four_octet))
			return upd_err(e, BGP_UPD_ATTR_LENGTH, a, hl + vl);

		switch (type) {
		case BGP_ATTR_ORIGIN:
			if (v[0] > 2)
				return upd_err(e, BGP_UPD_INVALID_ORIGIN, a, hl + vl);
			break;
		case BGP_ATTR_AS_PATH:
			if (!as_path_ok(v, vl, four_octet, ibgp))
				return upd_err(e, BGP_UPD_MALFORMED_AS_PATH, NULL, 0);
			break;
		case BGP_ATTR_NEXT_HOP:
			if (!next_hop_ok(v))
				return upd_err(e, BGP_UPD_INVALID_NEXT_HOP, a, hl + vl);
			break;
		case BGP_ATTR_MP_REACH_NLRI:
		case BGP_ATTR_MP_UNREACH_NLRI:
			mp_reach |= type == BGP_ATTR_MP_REACH_NLRI;
			if (mp_attr(type == BGP_ATTR_MP_REACH_NLRI, v, vl, u, &mp_empty_unreach,
				    &mp_afi))
				return upd_err(e, BGP_UPD_OPTIONAL_ATTR, a, hl + vl);
			break;
		case BGP_ATTR_MED:
		case BGP_ATTR_LOCAL_PREF:
		case BGP_ATTR_ATOMIC_AGGREGATE:
		case BGP_ATTR_AGGREGATOR:
		case BGP_ATTR_COMMUNITIES:
		case BGP_ATTR_AS4_PATH:
		case BGP_ATTR_AS4_AGGREGATOR:
		case BGP_ATTR_LARGE_COMMUNITIES:
			break;
		default:
			if (!(flags & BGP_ATTR_F_OPTIONAL))
				return upd_err(e, BGP_UPD_UNRECOGNIZED_WELL_KNOWN, a, hl + vl);
			break;		/* optional and unknown: ignored */
		}
	}

	/* the well-known mandatory attributes, when there are routes */
	if (nlen || mp_reach) {
		static const uint8_t need[] = {
			BGP_ATTR_ORIGIN, BGP_ATTR_AS_PATH, BGP_ATTR_NEXT_HOP,
		};
		unsigned int i;

		for (i = 0; i < sizeof(need); i++) {
			uint8_t t = need[i];

			if (t == BGP_ATTR_NEXT_HOP && !nlen)
				continue;
			if (!(seen[t / 8] & (1u << (t % 8))))
				return upd_err(e, BGP_UPD_MISSING_WELL_KNOWN, &t, 1);
		}
	}
	if (walk_prefixes(nlri, nlen, 32, &u->announced))
		return upd_err(e, BGP_UPD_INVALID_NETWORK, NULL, 0);

	/* End-of-RIB: an empty UPDATE, or one with only an empty MP_UNREACH_NLRI */
	if (!wlen && !alen && !nlen) {
		u->eor = true;
		u->eor_afi = BGP_AFI_IPV4;
	} else if (!wlen && !nlen && nattr == 1 && mp_empty_unreach) {
		u->eor = true;
		u->eor_afi = (enum bgp_afi)mp_afi;
	}
	return 0;
}

/* ---- NOTIFICATION, ROUTE-REFRESH ---- */

void bgp_notification_decode(const uint8_t *msg, size_t len, struct bgp_notification *n)
{
	memset(n, 0, sizeof(*n));
	if (len < BGP_HDR_LEN + 2)
		return;				/* malformed: code 0 */
	n->code = msg[19];
	n->subcode = msg[20];
	n->data = msg + 21;
	n->len = len - 21;
	/* RFC 9003: length octet, then that many octets of UTF-8 */
	if (n->code == BGP_ERR_CEASE && n->len &&
	    (n->subcode == BGP_CEASE_ADMIN_SHUTDOWN || n->subcode == BGP_CEASE_ADMIN_RESET) &&
	    n->data[0] <= n->len - 1) {
		memcpy(n->shutdown_msg, n->data + 1, n->data[0]);
		n->shutdown_msg[n->data[0]] = '\0';
	}
}

int bgp_route_refresh_decode(const uint8_t *msg, size_t len, uint16_t *afi, uint8_t *safi,
			     struct bgp_err *e)
{
	if (len != 23) {
		/* RFC 7313: the data is the whole message */
		set_err(e, BGP_ERR_ROUTE_REFRESH, BGP_RR_INVALID_LENGTH, msg, len);
		return -1;
	}
	*afi = get16(msg + 19);
	*safi = msg[22];
	return 0;
}

/* ---- names ---- */

const char *bgp_type_name(uint8_t type)
{
	static const char *const names[] = {
		[BGP_OPEN] = "OPEN", [BGP_UPDATE] = "UPDATE",
		[BGP_NOTIFICATION] = "NOTIFICATION", [BGP_KEEPALIVE] = "KEEPALIVE",
		[BGP_ROUTE_REFRESH] = "ROUTE-REFRESH",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

#define HDR	"Message Header Error"
#define OPN	"OPEN Message Error"
#define UPD	"UPDATE Message Error"
#define FSM	"Finite State Machine Error"
#define CEA	"Cease"
#define RRE	"ROUTE-REFRESH Message Error"

static const char *const err_names[8][12] = {
	[BGP_ERR_HEADER] = {
		HDR, HDR "/Connection Not Synchronized", HDR "/Bad Message Length",
		HDR "/Bad Message Type",
	},
	[BGP_ERR_OPEN] = {
		OPN, OPN "/Unsupported Version Number", OPN "/Bad Peer AS",
		OPN "/Bad BGP Identifier", OPN "/Unsupported Optional Parameter",
		OPN "/Authentication Failure", OPN "/Unacceptable Hold Time",
		OPN "/Unsupported Capability", NULL, NULL, NULL, OPN "/Role Mismatch",
	},
	[BGP_ERR_UPDATE] = {
		UPD, UPD "/Malformed Attribute List", UPD "/Unrecognized Well-known Attribute",
		UPD "/Missing Well-known Attribute", UPD "/Attribute Flags Error",
		UPD "/Attribute Length Error", UPD "/Invalid ORIGIN Attribute",
		UPD "/AS Routing Loop", UPD "/Invalid NEXT_HOP Attribute",
		UPD "/Optional Attribute Error", UPD "/Invalid Network Field",
		UPD "/Malformed AS_PATH",
	},
	[BGP_ERR_HOLD_TIMER] = { "Hold Timer Expired" },
	[BGP_ERR_FSM] = {
		FSM, FSM "/Receive Unexpected Message in OpenSent State",
		FSM "/Receive Unexpected Message in OpenConfirm State",
		FSM "/Receive Unexpected Message in Established State",
	},
	[BGP_ERR_CEASE] = {
		CEA, CEA "/Maximum Number of Prefixes Reached", CEA "/Administrative Shutdown",
		CEA "/Peer De-configured", CEA "/Administrative Reset",
		CEA "/Connection Rejected", CEA "/Other Configuration Change",
		CEA "/Connection Collision Resolution", CEA "/Out of Resources",
		CEA "/Hard Reset", CEA "/BFD Down",
	},
	[BGP_ERR_ROUTE_REFRESH] = { RRE, RRE "/Invalid Message Length" },
};

const char *bgp_err_name(uint8_t code, uint8_t subcode)
{
	if (code >= 8 || !err_names[code][0])
		return "unknown error";
	if (subcode < 12 && err_names[code][subcode])
		return err_names[code][subcode];
	return err_names[code][0];	/* an unknown subcode: the code's name */
}
