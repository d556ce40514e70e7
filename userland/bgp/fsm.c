// SPDX-License-Identifier: GPL-2.0
/*
 * BGP session FSM of one connection (RFC 4271 section 8, RFC 6608 subcodes): OpenSent,
 * OpenConfirm, Established. Message-level only; see fsm.h for who owns what.
 */
#include <stdio.h>
#include <string.h>

#include "bgp/fsm.h"

static const char *const state_names[] = {
	[BGP_IDLE]		= "Idle",
	[BGP_CONNECT]		= "Connect",
	[BGP_ACTIVE]		= "Active",
	[BGP_OPENSENT]		= "OpenSent",
	[BGP_OPENCONFIRM]	= "OpenConfirm",
	[BGP_ESTABLISHED]	= "Established",
};

const char *bgp_state_name(enum bgp_state s)
{
	return (unsigned int)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] :
										  "?";
}

void bgp_conn_init(struct bgp_conn *c, const struct bgp_conn_cfg *cfg,
		   const struct bgp_conn_ops *ops, void *owner)
{
	memset(c, 0, sizeof(*c));
	c->state = BGP_IDLE;
	c->cfg = *cfg;
	c->ops = ops;
	c->owner = owner;
}

/*
 * Send one message. The owner may close the connection from inside send (a socket error):
 * false then, and the caller must not go on as if it were open.
 */
static bool out(struct bgp_conn *c, const uint8_t *buf, size_t len)
{
	if (!len)
		return c->state != BGP_IDLE;
	if (buf[18] >= 1 && buf[18] <= 5)
		c->st.msgs_out[buf[18]]++;
	c->ops->send(c, buf, len);
	return c->state != BGP_IDLE;
}

static void close_conn(struct bgp_conn *c, const char *why)
{
	if (c->state == BGP_IDLE)
		return;
	c->state = BGP_IDLE;
	c->ops->timer(c, BGP_T_HOLD, 0);
	c->ops->timer(c, BGP_T_KEEPALIVE, 0);
	snprintf(c->why, sizeof(c->why), "%s", why);
	c->ops->closed(c, c->why);
}

void bgp_conn_notify(struct bgp_conn *c, const struct bgp_err *e, const char *why)
{
	uint8_t buf[BGP_MAX_LEN];
	char w[sizeof(c->why)];

	if (c->state == BGP_IDLE)
		return;
	c->sent_err = *e;
	out(c, buf, bgp_notification_encode(buf, sizeof(buf), e));
	snprintf(w, sizeof(w), "sent %s%s%s", bgp_err_name(e->code, e->subcode),
		 why ? ": " : "", why ? why : "");
	close_conn(c, w);
}

static void notify_code(struct bgp_conn *c, uint8_t code, uint8_t subcode, const char *why)
{
	struct bgp_err e = { .code = code, .subcode = subcode };

	bgp_conn_notify(c, &e, why);
}

void bgp_conn_cease(struct bgp_conn *c, uint8_t subcode, const char *msg)
{
	uint8_t buf[BGP_MAX_LEN];
	char w[sizeof(c->why)];

	if (c->state == BGP_IDLE)
		return;
	memset(&c->sent_err, 0, sizeof(c->sent_err));
	c->sent_err.code = BGP_ERR_CEASE;
	c->sent_err.subcode = subcode;
	out(c, buf, bgp_cease_encode(buf, sizeof(buf), subcode, msg));
	snprintf(w, sizeof(w), "sent %s%s%s", bgp_err_name(BGP_ERR_CEASE, subcode),
		 msg && *msg ? ": " : "", msg ? msg : "");
	close_conn(c, w);
}

void bgp_conn_drop(struct bgp_conn *c, const char *why)
{
	close_conn(c, why);
}

void bgp_conn_tcp_error(struct bgp_conn *c, const char *why)
{
	close_conn(c, why);
}

static bool keepalive(struct bgp_conn *c)
{
	uint8_t buf[BGP_HDR_LEN];

	return out(c, buf, bgp_keepalive_encode(buf, sizeof(buf)));
}

/* Rearm the keepalive timer: a third of the hold time after the last message we sent. */
static void arm_keepalive(struct bgp_conn *c)
{
	if (c->hold_time)
		c->ops->timer(c, BGP_T_KEEPALIVE, c->hold_time / 3.0);
}

static void arm_hold(struct bgp_conn *c)
{
	c->ops->timer(c, BGP_T_HOLD, c->hold_time);
}

void bgp_conn_start(struct bgp_conn *c)
{
	struct bgp_open o = {
		.asn = c->cfg.local_as,
		.hold_time = c->cfg.hold_time,
		.bgp_id = c->cfg.router_id,
		.cap_mp_v4 = c->cfg.v4,
		.cap_mp_v6 = c->cfg.v6,
		.cap_ext_nh_v4 = c->cfg.v4_nh6,
		.cap_as4 = true,
		.cap_route_refresh = true,
		.cap_gr = c->cfg.gr_time > 0,
		.gr_restarting = c->cfg.gr_restarting,
		.gr_time = c->cfg.gr_time,
		/* the kernel kept forwarding while the daemon restarted (RFC 4724: F only then) */
		.gr_v4 = c->cfg.v4,
		.gr_v6 = c->cfg.v6,
		.gr_v4_fwd = c->cfg.v4 && c->cfg.gr_restarting,
		.gr_v6_fwd = c->cfg.v6 && c->cfg.gr_restarting,
	};
	uint8_t buf[BGP_MAX_LEN];

	c->state = BGP_OPENSENT;
	c->rlen = 0;
	c->why[0] = 0;
	memset(&c->sent_err, 0, sizeof(c->sent_err));
	memset(&c->rcvd_err, 0, sizeof(c->rcvd_err));
	if (out(c, buf, bgp_open_encode(buf, sizeof(buf), &o)))
		c->ops->timer(c, BGP_T_HOLD, BGP_OPEN_HOLD_S);
}

void bgp_conn_send(struct bgp_conn *c, const uint8_t *msg, size_t len)
{
	if (c->state != BGP_ESTABLISHED)
		return;
	if (out(c, msg, len))
		arm_keepalive(c);
}

static void got_open(struct bgp_conn *c, const uint8_t *msg, size_t len)
{
	bool any_mp;
	struct bgp_err e;
	char why[96];

	if (bgp_open_decode(msg, len, &c->peer, &e)) {
		bgp_conn_notify(c, &e, "the peer's OPEN");
		return;
	}
	if (c->peer.asn != c->cfg.peer_as) {
		snprintf(why, sizeof(why), "peer AS %u, configured %u", c->peer.asn,
			 c->cfg.peer_as);
		notify_code(c, BGP_ERR_OPEN, BGP_OPEN_BAD_PEER_AS, why);
		return;
	}
	c->ibgp = c->peer.asn == c->cfg.local_as;
	/* RFC 6286: only within one AS must the identifiers differ */
	if (c->ibgp && c->peer.bgp_id.s_addr == c->cfg.router_id.s_addr) {
		notify_code(c, BGP_ERR_OPEN, BGP_OPEN_BAD_BGP_ID, "the peer has our router ID");
		return;
	}
	if (!c->peer.cap_as4) {
		/* we write 4-octet AS_PATHs only (RFC 6793 peers are universal): say so */
		struct bgp_err u = { .code = BGP_ERR_OPEN, .subcode = BGP_OPEN_UNSUPPORTED_CAP,
				     .len = 6 };

		u.data[0] = BGP_CAP_AS4;
		u.data[1] = 4;
		u.data[2] = c->cfg.local_as >> 24;
		u.data[3] = c->cfg.local_as >> 16;
		u.data[4] = c->cfg.local_as >> 8;
		u.data[5] = c->cfg.local_as;
		bgp_conn_notify(c, &u, "the peer lacks the 4-octet AS capability");
		return;
	}
	c->hold_time = c->peer.hold_time < c->cfg.hold_time ? c->peer.hold_time :
							       c->cfg.hold_time;
	c->four_octet = c->peer.cap_as4;
	/* RFC 4760: a peer that names no family speaks IPv4 unicast */
	any_mp = c->peer.cap_mp_v4 || c->peer.cap_mp_v6;
	c->v4 = c->cfg.v4 && (c->peer.cap_mp_v4 || !any_mp);
	/* IPv4 over a v6 session: only with IPv6 next hops, which the peer must take */
	if (c->cfg.v4_nh6)
		c->v4 = c->v4 && c->peer.cap_mp_v4 && c->peer.cap_ext_nh_v4;
	c->v4_nh6 = c->v4 && c->cfg.v4_nh6;
	c->v6 = c->cfg.v6 && c->peer.cap_mp_v6;
	c->route_refresh = c->peer.cap_route_refresh;
	if (!c->v4 && !c->v6) {
		/* RFC 5492: the capability we need is missing; say which */
		struct bgp_err u = { .code = BGP_ERR_OPEN, .subcode = BGP_OPEN_UNSUPPORTED_CAP,
				     .len = 6 };

		u.data[0] = BGP_CAP_MP;
		u.data[1] = 4;
		u.data[3] = c->cfg.v6 ? BGP_AFI_IPV6 : BGP_AFI_IPV4;
		u.data[5] = BGP_SAFI_UNICAST;
		bgp_conn_notify(c, &u, "no address family in common");
		return;
	}
	if (c->ops->open_received && !c->ops->open_received(c)) {
		bgp_conn_cease(c, BGP_CEASE_COLLISION, NULL);
		return;
	}
	if (!keepalive(c))
		return;
	c->state = BGP_OPENCONFIRM;
	if (c->hold_time)
		arm_hold(c);
	else
		c->ops->timer(c, BGP_T_HOLD, 0);
	arm_keepalive(c);
}

static void got_notification(struct bgp_conn *c, const uint8_t *msg, size_t len)
{
	char why[sizeof(c->why)];
	size_t n;

	bgp_notification_decode(msg, len, &c->rcvd_err);
	n = c->rcvd_err.len < sizeof(c->rcvd_err_data) ? c->rcvd_err.len :
							  sizeof(c->rcvd_err_data);
	if (n)
		memcpy(c->rcvd_err_data, c->rcvd_err.data, n);
	c->rcvd_err.data = c->rcvd_err_data;
	/* the peer's text goes to logs and terminals: no control characters */
	for (n = 0; c->rcvd_err.shutdown_msg[n]; n++)
		if ((unsigned char)c->rcvd_err.shutdown_msg[n] < 0x20 ||
		    c->rcvd_err.shutdown_msg[n] == 0x7f)
			c->rcvd_err.shutdown_msg[n] = '?';
	snprintf(why, sizeof(why), "received %s%s%s",
		 bgp_err_name(c->rcvd_err.code, c->rcvd_err.subcode),
		 c->rcvd_err.shutdown_msg[0] ? ": " : "", c->rcvd_err.shutdown_msg);
	close_conn(c, why);
}

static void got_update(struct bgp_conn *c, const uint8_t *msg, size_t len)
{
	struct bgp_update_info u;
	struct bgp_err e;

	if (bgp_update_decode(msg, len, c->four_octet, c->ibgp, &u, &e)) {
		/*
		 * RFC 7606: only an UPDATE whose fields cannot be delimited (lengths overrunning,
		 * NLRI that does not parse) resets the session. An error in an attribute is
		 * "treat-as-withdraw": we keep no received route, so it is counted and dropped.
		 */
		if (e.code == BGP_ERR_UPDATE && e.subcode != BGP_UPD_MALFORMED_ATTR_LIST &&
		    e.subcode != BGP_UPD_INVALID_NETWORK) {
			c->st.updates_in_errors++;
			return;
		}
		bgp_conn_notify(c, &e, "the peer's UPDATE");
		return;
	}
	c->st.updates_in_prefixes += u.withdrawn + u.announced + u.mp_withdrawn +
				     u.mp_announced;
}

static void got_refresh(struct bgp_conn *c, const uint8_t *msg, size_t len)
{
	struct bgp_err e;
	uint16_t afi;
	uint8_t safi;

	if (bgp_route_refresh_decode(msg, len, &afi, &safi, &e)) {
		bgp_conn_notify(c, &e, "the peer's ROUTE-REFRESH");
		return;
	}
	/* RFC 2918: a family not negotiated is ignored */
	if (safi != BGP_SAFI_UNICAST || !c->ops->refresh)
		return;
	if (afi == BGP_AFI_IPV4 && c->v4)
		c->ops->refresh(c, AF_INET);
	else if (afi == BGP_AFI_IPV6 && c->v6)
		c->ops->refresh(c, AF_INET6);
}

static void unexpected(struct bgp_conn *c, uint8_t type)
{
	uint8_t sub = c->state == BGP_OPENSENT ? BGP_FSM_IN_OPENSENT :
		      c->state == BGP_OPENCONFIRM ? BGP_FSM_IN_OPENCONFIRM :
						    BGP_FSM_IN_ESTABLISHED;
	char why[64];

	snprintf(why, sizeof(why), "%s in %s", bgp_type_name(type), bgp_state_name(c->state));
	notify_code(c, BGP_ERR_FSM, sub, why);
}

static void dispatch(struct bgp_conn *c, uint8_t type, const uint8_t *msg, size_t len)
{
	if (type >= 1 && type <= 5)
		c->st.msgs_in[type]++;
	if (type == BGP_NOTIFICATION) {
		got_notification(c, msg, len);
		return;
	}
	switch (c->state) {
	case BGP_OPENSENT:
		if (type == BGP_OPEN)
			got_open(c, msg, len);
		else
			unexpected(c, type);
		return;
	case BGP_OPENCONFIRM:
		if (type != BGP_KEEPALIVE) {
			unexpected(c, type);
			return;
		}
		c->state = BGP_ESTABLISHED;
		if (c->hold_time)
			arm_hold(c);
		c->ops->established(c);
		return;
	case BGP_ESTABLISHED:
		if (type == BGP_UPDATE)
			got_update(c, msg, len);
		else if (type == BGP_ROUTE_REFRESH)
			got_refresh(c, msg, len);
		else if (type != BGP_KEEPALIVE)
			unexpected(c, type);
		if (c->state == BGP_ESTABLISHED && c->hold_time)
			arm_hold(c);
		return;
	default:
		return;
	}
}

void bgp_conn_input(struct bgp_conn *c, const uint8_t *buf, size_t len)
{
	struct bgp_err e;
	size_t off = 0;

	if (c->state == BGP_IDLE)
		return;
	if (!len) {
		close_conn(c, "the peer closed the connection");
		return;
	}
	while (c->state != BGP_IDLE) {
		size_t room = sizeof(c->rbuf) - c->rlen, n = len - off;
		uint8_t type;
		int m;

		if (n > room)
			n = room;
		memcpy(c->rbuf + c->rlen, buf + off, n);
		c->rlen += n;
		off += n;
		m = bgp_frame(c->rbuf, c->rlen, &type, &e);
		if (m < 0) {
			bgp_conn_notify(c, &e, "a bad message header");
			return;
		}
		if (!m) {
			/* a whole header's length always fits: a full buffer frames */
			if (off == len || c->rlen == sizeof(c->rbuf))
				return;
			continue;
		}
		dispatch(c, type, c->rbuf, m);
		memmove(c->rbuf, c->rbuf + m, c->rlen - m);
		c->rlen -= m;
		if (off == len && !c->rlen)
			return;
	}
}

void bgp_conn_timer(struct bgp_conn *c, enum bgp_timer t)
{
	switch (t) {
	case BGP_T_HOLD:
		if (c->state != BGP_IDLE)
			notify_code(c, BGP_ERR_HOLD_TIMER, 0, NULL);
		break;
	case BGP_T_KEEPALIVE:
		if (c->state == BGP_OPENCONFIRM || c->state == BGP_ESTABLISHED) {
			if (keepalive(c))
				arm_keepalive(c);
		}
		break;
	default:
		break;
	}
}
