/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BGP session FSM (RFC 4271 section 8) of one transport connection, for kmaglev's
 * announce-only speaker.
 *
 * A struct bgp_conn is one TCP connection from the moment it is up: OpenSent, OpenConfirm,
 * Established, and back to Idle when it ends. It owns no socket and no timer: it asks its
 * owner, through struct bgp_conn_ops, to send bytes, to (re)arm or stop its hold and
 * keepalive timers, and tells it what happened (an OPEN arrived, the session is established,
 * a ROUTE-REFRESH came, the connection is over and why). The owner (speaker_conn.c) keeps
 * the peer-level states (Idle, Connect, Active), the ConnectRetry back-off and collision
 * resolution between two connections to one peer. So the protocol logic runs in unit tests
 * with no network and no clock.
 *
 * Rules: a bgp_conn is driven from one thread; no callback may free it (the owner frees it
 * after bgp_conn_input()/bgp_conn_timer() return, once ops->closed has been called).
 */
#ifndef KMAGLEV_BGP_FSM_H
#define KMAGLEV_BGP_FSM_H

#include <stdbool.h>
#include <stdint.h>

#include "bgp/wire.h"

enum bgp_state {
	BGP_IDLE,
	BGP_CONNECT,			/* peer level: connect() in progress */
	BGP_ACTIVE,			/* peer level: waiting to retry, or for the peer */
	BGP_OPENSENT,
	BGP_OPENCONFIRM,
	BGP_ESTABLISHED,
};

enum bgp_timer {
	BGP_T_HOLD,
	BGP_T_KEEPALIVE,
	BGP_T_COUNT,
};

/* The large hold time until the peer's OPEN arrives (RFC 4271 8.2.2: 4 minutes). */
#define BGP_OPEN_HOLD_S		240

struct bgp_conn_cfg {
	uint32_t local_as, peer_as;
	struct in_addr router_id;
	uint16_t hold_time;		/* what we offer: 0 or 3..65535 */
	bool v4, v6;			/* address families to offer */
	bool v4_nh6;			/* v4 with IPv6 next hops only (RFC 8950; a v6 session) */
	uint16_t gr_time;		/* graceful restart time we advertise; 0: no GR */
	bool gr_restarting;		/* the R bit: our state survived a restart */
};

struct bgp_conn;

struct bgp_conn_ops {
	/* Queue bytes on the connection (the owner buffers what the socket does not take). */
	void (*send)(struct bgp_conn *c, const uint8_t *buf, size_t len);
	/* Arm timer @t to fire in @seconds (replacing any earlier arming); 0 stops it. */
	void (*timer)(struct bgp_conn *c, enum bgp_timer t, double seconds);
	/*
	 * The peer's OPEN is valid (c->peer is set). Return false to refuse the connection
	 * (collision): the FSM then sends Cease/Connection Collision Resolution and closes.
	 */
	bool (*open_received)(struct bgp_conn *c);
	void (*established)(struct bgp_conn *c);
	/* ROUTE-REFRESH for a negotiated family (AF_INET or AF_INET6). */
	void (*refresh)(struct bgp_conn *c, int family);
	/* The connection is over (state back to Idle): close the socket; @why for logs. */
	void (*closed)(struct bgp_conn *c, const char *why);
};

struct bgp_conn_stats {
	uint64_t msgs_in[6], msgs_out[6];	/* by message type 1..5 */
	uint64_t updates_in_prefixes;		/* prefixes seen in received UPDATEs (dropped) */
	uint64_t updates_in_errors;		/* UPDATEs with a bad attribute: treat-as-withdraw */
};

struct bgp_conn {
	enum bgp_state state;
	struct bgp_conn_cfg cfg;
	const struct bgp_conn_ops *ops;
	void *owner;
	/* negotiated, once the peer's OPEN is in */
	struct bgp_open peer;
	uint16_t hold_time;		/* min of both; 0: no hold timer, no keepalives */
	bool four_octet;		/* both sent AS4 */
	bool v4, v6;			/* families both sides offered */
	bool v4_nh6;			/* v4 is carried with IPv6 next hops (RFC 8950) */
	bool route_refresh;		/* the peer can send/take ROUTE-REFRESH */
	bool ibgp;
	/* the stream being read */
	uint8_t rbuf[BGP_MAX_LEN];
	size_t rlen;
	struct bgp_conn_stats st;
	/* how it ended: the NOTIFICATION sent or received (code 0: none) */
	struct bgp_err sent_err;
	struct bgp_notification rcvd_err;
	uint8_t rcvd_err_data[64];	/* a copy of the first bytes of rcvd_err's data */
	char why[384];			/* last reason it closed, for logs and `bgp show` */
};

void bgp_conn_init(struct bgp_conn *c, const struct bgp_conn_cfg *cfg,
		   const struct bgp_conn_ops *ops, void *owner);
/* The TCP connection is up: send OPEN and go to OpenSent. */
void bgp_conn_start(struct bgp_conn *c);
/* Bytes read from the socket; 0 bytes means the peer closed it. */
void bgp_conn_input(struct bgp_conn *c, const uint8_t *buf, size_t len);
/* The socket failed (read/write error): close without a NOTIFICATION. */
void bgp_conn_tcp_error(struct bgp_conn *c, const char *why);
void bgp_conn_timer(struct bgp_conn *c, enum bgp_timer t);
/* Send a NOTIFICATION and close (the owner's own errors, e.g. an unexpected peer state). */
void bgp_conn_notify(struct bgp_conn *c, const struct bgp_err *e, const char *why);
/* Cease with an RFC 9003 message (subcode BGP_CEASE_*), then close. */
void bgp_conn_cease(struct bgp_conn *c, uint8_t subcode, const char *msg);
/* Close at once, sending nothing (graceful restart: the peer keeps our routes). */
void bgp_conn_drop(struct bgp_conn *c, const char *why);
/* Send a whole message in Established (an UPDATE the owner encoded); rearms keepalive. */
void bgp_conn_send(struct bgp_conn *c, const uint8_t *msg, size_t len);

const char *bgp_state_name(enum bgp_state s);

#endif
