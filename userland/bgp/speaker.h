/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev's built-in BGP speaker: announce-only, on the daemon's libev loop.
 *
 * One struct bgp_peer per configured neighbour, with up to two TCP connections (ours and
 * the peer's, until collision resolution keeps one), each run by a struct bgp_conn (fsm.c).
 * Ours are opened with ConnectRetry and exponential back-off unless the neighbour is
 * passive; theirs come through the optional listening socket. TCP-MD5 keys are set on both.
 *
 * The daemon hands the speaker the whole route set (bgp_speaker_set_routes(), policy.c's
 * output); each established session keeps what it last sent (its Adj-RIB-Out) and sends
 * only the difference, IPv4 in classic UPDATEs and IPv6 in MP_(UN)REACH_NLRI, every host
 * the same attributes so routers can build ECMP sets. End-of-RIB follows the first full
 * announcement; a ROUTE-REFRESH re-sends everything.
 *
 * Shutting down (lame duck): bgp_speaker_graceful_shutdown() re-announces everything with
 * the GRACEFUL_SHUTDOWN community (RFC 8326; LOCAL_PREF 0 on iBGP), the daemon withdraws by
 * setting an empty route set, and bgp_speaker_stop() sends Cease/Administrative Shutdown
 * with a message (RFC 9003). bgp_speaker_drop() instead closes without a word, so peers
 * that agreed to graceful restart (RFC 4724) keep our routes while the daemon restarts.
 *
 * Everything runs on the loop's thread but BFD (bfd_io.h), which has a thread of its own and
 * tells the loop when a session goes down; nothing here blocks except the final flush of a
 * closing connection (at most 1 s).
 */
#ifndef KMAGLEV_BGP_SPEAKER_H
#define KMAGLEV_BGP_SPEAKER_H

#include <ev.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "bgp/bfd_io.h"
#include "bgp/fsm.h"
#include "bgp/policy.h"
#include "lib/util.h"

#define BGP_RETRY_MIN_S		1.	/* ConnectRetry back-off: 1 s doubling ... */
#define BGP_RETRY_MAX_S		60.	/* ... to 60 s, reset when a session establishes */
#define BGP_CONNECT_TIMEOUT_S	5.	/* a connect() not done by then is retried */

struct bgp_peer_cfg {
	struct kmg_addr addr;
	uint16_t port;
	uint32_t asn;
	uint16_t hold_time;		/* 0 or 3..65535 */
	const char *password;		/* TCP-MD5; NULL: none (copied) */
	bool passive;			/* never connect; wait for the peer */
	uint8_t ttl;			/* multihop TTL; 0: 1 for eBGP, 64 for iBGP */
	/*
	 * GTSM (RFC 5082): send with TTL 255 and drop the peer's packets that arrive with
	 * less than 256 - hops (ttl, or 1), so that only a peer that many hops away can talk.
	 */
	bool ttl_security;
	/* an IPv6 session also carries the IPv4 VIPs, with IPv6 next hops (RFC 8950) */
	bool ext_next_hop;
	struct kmg_addr next_hop;	/* family 0: the session's local address */
	/*
	 * BFD (RFC 5880/5881) to the neighbour, in the speaker's BFD thread: when it goes from
	 * Up to Down (not for the peer's AdminDown) the session is reset (RFC 5882), with
	 * Cease/BFD Down (RFC 9384). A change of these keeps the BGP session.
	 */
	bool bfd;
	struct bfd_params bfd_params;
};

struct bgp_speaker_cfg {
	uint32_t asn;
	struct in_addr router_id;
	struct kmg_addr listen;		/* family 0: no listening socket */
	uint16_t listen_port;
	uint16_t gr_time;		/* graceful restart time; 0: no GR capability */
	uint32_t local_pref;		/* iBGP */
	const struct bgp_peer_cfg *peers;
	unsigned int npeers;
	uint16_t bfd_port;		/* 0: 3784 (another for the unit tests) */
};

struct bgp_speaker;

/*
 * Start: listen (if configured), connect to every active neighbour. @restarting sets the
 * GR restart bit (the daemon found its own state in the kernel). NULL with @err set.
 */
struct bgp_speaker *bgp_speaker_new(struct ev_loop *loop, const struct bgp_speaker_cfg *cfg,
				    bool restarting, char *err, size_t errlen);
/*
 * Apply a new configuration: neighbours that went away get Cease/Peer De-configured, those
 * whose settings changed Cease/Other Configuration Change and start over, the others keep
 * their sessions. A change of AS, router ID or listening address restarts every session.
 */
int bgp_speaker_reconfigure(struct bgp_speaker *sp, const struct bgp_speaker_cfg *cfg,
			    char *err, size_t errlen);
/* The route set (copied): announce what is marked so, withdraw the rest. */
int bgp_speaker_set_routes(struct bgp_speaker *sp, const struct bgp_route *r, unsigned int n);
/* RFC 8326: tag (or untag) every announcement with GRACEFUL_SHUTDOWN. */
void bgp_speaker_graceful_shutdown(struct bgp_speaker *sp, bool on);
/* Cease/Administrative Shutdown with @msg to every session; no new ones after. */
void bgp_speaker_stop(struct bgp_speaker *sp, const char *msg);
/* Close every session without a NOTIFICATION (graceful restart); no new ones after. */
void bgp_speaker_drop(struct bgp_speaker *sp);
void bgp_speaker_free(struct bgp_speaker *sp);

/* For `kmaglev bgp show` and the metrics. */
struct bgp_peer_info {
	const struct bgp_peer_cfg *cfg;
	enum bgp_state state;
	double uptime_s;		/* in Established; 0 otherwise */
	uint64_t established;		/* times it reached Established */
	uint32_t announced;		/* prefixes in its Adj-RIB-Out */
	uint16_t hold_time;		/* negotiated */
	bool v4, v6;
	const char *last_error;		/* "" if none */
	uint64_t msgs_in, msgs_out;
	uint64_t updates_in, updates_out;	/* of which UPDATEs */
	bool has_bfd;			/* bfd: its session's state (a copy) */
	struct bfd_info bfd;
	const char *bfd_error;		/* why the BFD session could not be made; "" */
};
unsigned int bgp_speaker_npeers(const struct bgp_speaker *sp);
void bgp_speaker_peer_info(const struct bgp_speaker *sp, unsigned int i,
			   struct bgp_peer_info *info);
bool bgp_speaker_gshut(const struct bgp_speaker *sp);

#endif
