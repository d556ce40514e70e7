/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BGP-4 wire format (RFC 4271) for kmaglev's announce-only speaker: encoders for every
 * message the speaker sends and a validating decoder for every message it can receive.
 *
 * Pure functions over byte buffers: no sockets, no allocation, no global state, so each is
 * unit-tested alone against golden bytes and fuzzed. A decoder never reads past the length
 * it is given; on any error it fills struct bgp_err with the NOTIFICATION (code, subcode,
 * data) that RFC 4271 section 6 (and RFC 4760, 6793, 5492, 8654) prescribe for it.
 *
 * Multi-byte fields are big-endian on the wire; in these structs they are host order, and
 * addresses are struct in_addr / in6_addr (network order, as everywhere).
 */
#ifndef KMAGLEV_BGP_WIRE_H
#define KMAGLEV_BGP_WIRE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BGP_PORT		179
#define BGP_VERSION		4
#define BGP_HDR_LEN		19	/* marker 16, length 2, type 1 */
#define BGP_MAX_LEN		4096	/* RFC 4271; no extended messages (RFC 8654) */
#define BGP_AS_TRANS		23456	/* RFC 6793: My AS when the real AS needs 4 octets */

enum bgp_type {
	BGP_OPEN = 1,
	BGP_UPDATE = 2,
	BGP_NOTIFICATION = 3,
	BGP_KEEPALIVE = 4,
	BGP_ROUTE_REFRESH = 5,		/* RFC 2918 */
};

enum bgp_afi { BGP_AFI_IPV4 = 1, BGP_AFI_IPV6 = 2 };
#define BGP_SAFI_UNICAST	1

/* NOTIFICATION error codes and subcodes (RFC 4271 4.5, RFC 4486, RFC 8203/9003). */
enum bgp_err_code {
	BGP_ERR_HEADER = 1,
	BGP_ERR_OPEN = 2,
	BGP_ERR_UPDATE = 3,
	BGP_ERR_HOLD_TIMER = 4,
	BGP_ERR_FSM = 5,
	BGP_ERR_CEASE = 6,
	BGP_ERR_ROUTE_REFRESH = 7,	/* RFC 7313: invalid message length (subcode 1) */
};
/* code 1 */
#define BGP_HDR_NOT_SYNC		1	/* bad marker */
#define BGP_HDR_BAD_LENGTH		2	/* data: the 2-octet length field */
#define BGP_HDR_BAD_TYPE		3	/* data: the type octet */
/* code 2 */
#define BGP_OPEN_UNSPECIFIC		0	/* a malformed optional parameter or capability */
#define BGP_OPEN_BAD_VERSION		1	/* data: 2 octets, the highest we support (4) */
#define BGP_OPEN_BAD_PEER_AS		2
#define BGP_OPEN_BAD_BGP_ID		3
#define BGP_OPEN_UNSUPPORTED_PARAM	4
#define BGP_OPEN_BAD_HOLD_TIME		6
#define BGP_OPEN_UNSUPPORTED_CAP	7	/* RFC 5492 */
/* code 3 */
#define BGP_UPD_MALFORMED_ATTR_LIST	1
#define BGP_UPD_UNRECOGNIZED_WELL_KNOWN	2	/* data: the attribute (type, length, value) */
#define BGP_UPD_MISSING_WELL_KNOWN	3	/* data: the missing attribute's type code */
#define BGP_UPD_ATTR_FLAGS		4	/* data: the attribute */
#define BGP_UPD_ATTR_LENGTH		5	/* data: the attribute */
#define BGP_UPD_INVALID_ORIGIN		6	/* data: the attribute */
#define BGP_UPD_INVALID_NEXT_HOP	8	/* data: the attribute */
#define BGP_UPD_OPTIONAL_ATTR		9	/* data: the attribute */
#define BGP_UPD_INVALID_NETWORK		10
#define BGP_UPD_MALFORMED_AS_PATH	11
/* code 5 (RFC 6608) */
#define BGP_FSM_IN_OPENSENT		1
#define BGP_FSM_IN_OPENCONFIRM		2
#define BGP_FSM_IN_ESTABLISHED		3
/* code 6 (RFC 4486) */
#define BGP_CEASE_MAX_PREFIXES		1
#define BGP_CEASE_ADMIN_SHUTDOWN	2	/* data: RFC 9003 shutdown communication */
#define BGP_CEASE_PEER_DECONFIGURED	3
#define BGP_CEASE_ADMIN_RESET		4	/* data: RFC 9003 shutdown communication */
#define BGP_CEASE_CONNECTION_REJECTED	5
#define BGP_CEASE_OTHER_CONFIG_CHANGE	6
#define BGP_CEASE_COLLISION		7
#define BGP_CEASE_OUT_OF_RESOURCES	8
#define BGP_CEASE_BFD_DOWN		10	/* RFC 9384 */
/* code 7 (RFC 7313) */
#define BGP_RR_INVALID_LENGTH		1	/* data: the whole ROUTE-REFRESH message */

/* Path attribute type codes this code writes or checks. */
enum bgp_attr_type {
	BGP_ATTR_ORIGIN = 1,
	BGP_ATTR_AS_PATH = 2,
	BGP_ATTR_NEXT_HOP = 3,
	BGP_ATTR_MED = 4,
	BGP_ATTR_LOCAL_PREF = 5,
	BGP_ATTR_ATOMIC_AGGREGATE = 6,
	BGP_ATTR_AGGREGATOR = 7,
	BGP_ATTR_COMMUNITIES = 8,	/* RFC 1997 */
	BGP_ATTR_MP_REACH_NLRI = 14,	/* RFC 4760 */
	BGP_ATTR_MP_UNREACH_NLRI = 15,
	BGP_ATTR_AS4_PATH = 17,		/* RFC 6793 */
	BGP_ATTR_AS4_AGGREGATOR = 18,
	BGP_ATTR_LARGE_COMMUNITIES = 32, /* RFC 8092 */
};
#define BGP_ATTR_F_OPTIONAL	0x80
#define BGP_ATTR_F_TRANSITIVE	0x40
#define BGP_ATTR_F_PARTIAL	0x20
#define BGP_ATTR_F_EXTLEN	0x10

#define BGP_ORIGIN_IGP		0
#define BGP_COMMUNITY_GRACEFUL_SHUTDOWN	0xffff0000u	/* RFC 8326, 65535:0 */

/* Capability codes (RFC 5492 registry). */
enum bgp_cap_code {
	BGP_CAP_MP = 1,			/* RFC 4760: AFI(2) reserved(1) SAFI(1) */
	BGP_CAP_ROUTE_REFRESH = 2,	/* RFC 2918, empty */
	BGP_CAP_EXT_NEXT_HOP = 5,	/* RFC 8950: (NLRI AFI(2), SAFI(2), next hop AFI(2))... */
	BGP_CAP_GRACEFUL_RESTART = 64,	/* RFC 4724 */
	BGP_CAP_AS4 = 65,		/* RFC 6793: the 4-octet AS */
};
#define BGP_GR_F_RESTART	0x8	/* restart state bit, top bit of the 4-bit flags */
#define BGP_GR_AF_F_FORWARDING	0x80	/* per AFI/SAFI: forwarding state preserved */
#define BGP_GR_TIME_MAX		4095	/* 12 bits */

/* A NOTIFICATION to send (or one received). data/len as the RFCs define per subcode. */
struct bgp_err {
	uint8_t code, subcode;
	uint16_t len;
	uint8_t data[BGP_MAX_LEN - BGP_HDR_LEN - 2];
};

/* OPEN: what we offer, or what the peer offered. */
struct bgp_open {
	uint32_t asn;			/* the 4-octet AS if the AS4 capability came, else My AS */
	uint16_t my_as;			/* as on the wire (decode only; encode derives it) */
	uint16_t hold_time;		/* seconds: 0 or >= 3 */
	struct in_addr bgp_id;
	bool cap_mp_v4, cap_mp_v6;	/* multiprotocol: IPv4 / IPv6 unicast */
	bool cap_ext_nh_v4;		/* RFC 8950: IPv4 unicast with IPv6 next hops */
	bool cap_as4;
	bool cap_route_refresh;
	bool cap_gr;			/* graceful restart capability present */
	bool gr_restarting;		/* its R bit */
	uint16_t gr_time;		/* restart time, seconds (<= 4095) */
	bool gr_v4, gr_v6;		/* AFI/SAFI listed in the GR capability */
	bool gr_v4_fwd, gr_v6_fwd;	/* their forwarding-state bit */
};

/* A prefix (NLRI): family AF_INET or AF_INET6, length in bits. */
struct bgp_prefix {
	int family;
	uint8_t len;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

struct bgp_large_community {
	uint32_t global, local1, local2;
};

#define BGP_MAX_COMMUNITIES	32
#define BGP_MAX_LARGE		16

/* The path attributes of an announcement (the same for every prefix of one UPDATE). */
struct bgp_attrs {
	uint32_t local_as;
	bool ebgp;			/* AS_PATH = our AS; else empty, and LOCAL_PREF sent */
	uint32_t local_pref;		/* iBGP only */
	bool has_med;
	uint32_t med;
	struct in_addr nh4;		/* IPv4 NEXT_HOP */
	struct in6_addr nh6;		/* IPv6 global next hop (MP_REACH_NLRI) */
	bool has_nh6_ll;
	struct in6_addr nh6_ll;		/* and link-local: next hop length 32 */
	bool v4_nh6;			/* IPv4 prefixes with nh6 in MP_REACH_NLRI (RFC 8950) */
	uint32_t communities[BGP_MAX_COMMUNITIES];	/* (asn << 16) | value */
	unsigned int ncommunities;
	struct bgp_large_community large[BGP_MAX_LARGE];
	unsigned int nlarge;
};

/*
 * Encoders. Each writes one whole message (header included) into @buf of @cap bytes and
 * returns its length, or 0 if it does not fit in @cap (nor in BGP_MAX_LEN).
 * bgp_update_encode() also returns 0 (*@used 0) for @n 0, or when the first prefix does
 * not fit or is invalid (family neither AF_INET nor AF_INET6, length over 32/128); it
 * stops before the first prefix of another family or an invalid one.
 */
size_t bgp_keepalive_encode(uint8_t *buf, size_t cap);
/* My AS is AS_TRANS when o->asn > 65535; the AS4 capability always carries o->asn. */
size_t bgp_open_encode(uint8_t *buf, size_t cap, const struct bgp_open *o);
/* A NOTIFICATION with @len bytes of @data. */
size_t bgp_notification_encode(uint8_t *buf, size_t cap, const struct bgp_err *e);
/*
 * Cease with an RFC 9003 shutdown communication: subcode 2 or 4, data = length octet and
 * @msg (UTF-8, cut to 255 bytes at a character boundary; NULL or "" for none).
 */
size_t bgp_cease_encode(uint8_t *buf, size_t cap, uint8_t subcode, const char *msg);
/* ROUTE-REFRESH for one AFI, SAFI unicast. */
size_t bgp_route_refresh_encode(uint8_t *buf, size_t cap, enum bgp_afi afi);
/*
 * UPDATE announcing (@withdraw false) or withdrawing up to @n prefixes of one family:
 * IPv4 through NLRI (with ORIGIN, AS_PATH, NEXT_HOP, ...) or the Withdrawn Routes field,
 * IPv6 through MP_REACH_NLRI / MP_UNREACH_NLRI; IPv4 with @a->v4_nh6 through MP_REACH_NLRI
 * with the IPv6 next hop (RFC 8950), withdrawn through the Withdrawn Routes field. As many prefixes as fit in one message are
 * written; *@used says how many (the caller sends the rest in another). @a is unused for a
 * withdrawal. Attributes in type order; AS_PATH with 4-octet ASes (both sides have AS4).
 */
size_t bgp_update_encode(uint8_t *buf, size_t cap, const struct bgp_attrs *a,
			 const struct bgp_prefix *p, unsigned int n, bool withdraw,
			 unsigned int *used);
/* End-of-RIB (RFC 4724): IPv4 an empty UPDATE, IPv6 an empty MP_UNREACH_NLRI. */
size_t bgp_eor_encode(uint8_t *buf, size_t cap, enum bgp_afi afi);

/*
 * Framing. Look at the @avail bytes at @buf, the start of a message in a TCP stream:
 *  0   fewer than a header, or less than the header's length: read more;
 *  >0  a whole message of that many bytes is there (its type in *@type);
 *  -1  the header is bad (marker, length < 19 or > 4096, or too short/long for the type,
 *      unknown type): @e holds the NOTIFICATION (code 1).
 */
int bgp_frame(const uint8_t *buf, size_t avail, uint8_t *type, struct bgp_err *e);

/* A received UPDATE, validated; routes are counted, not kept. */
struct bgp_update_info {
	unsigned int withdrawn, announced;	/* IPv4 prefixes */
	unsigned int mp_withdrawn, mp_announced; /* via MP_(UN)REACH_NLRI, any family */
	bool eor;				/* an End-of-RIB marker */
	enum bgp_afi eor_afi;
};

/* A received NOTIFICATION: @data points into the message. */
struct bgp_notification {
	uint8_t code, subcode;
	const uint8_t *data;
	uint16_t len;
	/* RFC 9003, Cease subcodes 2 and 4: the shutdown communication, NUL-terminated */
	char shutdown_msg[256];
};

/*
 * Decoders of one whole framed message (header included, as bgp_frame() found it).
 * 0, or -1 with @e the NOTIFICATION to send (a received NOTIFICATION never fails: a
 * malformed one is reported as code 0).
 */
int bgp_open_decode(const uint8_t *msg, size_t len, struct bgp_open *o, struct bgp_err *e);
/*
 * @four_octet: both sides sent the AS4 capability (AS_PATH has 4-octet ASes).
 * Checks RFC 4271 6.3: lengths of the withdrawn routes, attributes and NLRI fields; each
 * attribute's flags and length; duplicate attributes; ORIGIN value; AS_PATH segments;
 * NEXT_HOP; MP_(UN)REACH_NLRI layout and prefixes; well-known mandatory attributes present
 * when NLRI is. @ibgp: the UPDATE comes from an internal peer (its AS_PATH may be empty
 * and hold confederation segments; an external peer's may not).
 */
int bgp_update_decode(const uint8_t *msg, size_t len, bool four_octet, bool ibgp,
		      struct bgp_update_info *u, struct bgp_err *e);
void bgp_notification_decode(const uint8_t *msg, size_t len, struct bgp_notification *n);
/* ROUTE-REFRESH: the AFI and SAFI asked for. -1 with @e (code 7 subcode 1) if malformed. */
int bgp_route_refresh_decode(const uint8_t *msg, size_t len, uint16_t *afi, uint8_t *safi,
			     struct bgp_err *e);

/* Names for logs: "OPEN", ...; "Cease/Administrative Shutdown", ... */
const char *bgp_type_name(uint8_t type);
const char *bgp_err_name(uint8_t code, uint8_t subcode);

#endif
