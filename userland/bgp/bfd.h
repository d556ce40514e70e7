/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFD (RFC 5880), single hop (RFC 5881), asynchronous mode, no authentication: the control
 * packet's codec and one session's state machine, with no socket and no clock (times are
 * microseconds the caller passes in), so that both run in unit tests. bfd_io.c runs them on
 * sockets in a thread of their own.
 *
 * A session is Down (sending a packet a second, RFC 5880 6.8.3), Init once the peer says Down,
 * Up once the peer says Init or Up. In Init and Up it goes Down when no valid packet came for
 * a detection time: the peer's multiplier times the larger of our Required Min RX and the
 * peer's Desired Min TX. A change of our intervals while Up runs a Poll sequence; a slower tx or
 * a faster rx takes effect when the peer's Final comes (6.8.3), the others at once.
 */
#ifndef KMAGLEV_BGP_BFD_H
#define KMAGLEV_BGP_BFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BFD_PORT		3784	/* RFC 5881: single-hop control packets */
#define BFD_SRC_PORT_MIN	49152	/* RFC 5881 4: the source port range */
#define BFD_SRC_PORT_MAX	65535
#define BFD_TTL			255	/* sent, and the only TTL taken (RFC 5881 5) */
#define BFD_VERSION		1
#define BFD_PKT_LEN		24	/* the mandatory section; no authentication */
#define BFD_SLOW_TX_US		1000000	/* Desired Min TX not Up (RFC 5880 6.8.3) */

/* Configuration defaults and bounds */
#define BFD_DEF_INTERVAL_US	300000
#define BFD_DEF_MULT		3
#define BFD_MIN_INTERVAL_US	10000
#define BFD_MAX_INTERVAL_US	60000000

enum bfd_state {
	BFD_ADMIN_DOWN = 0,
	BFD_DOWN = 1,
	BFD_INIT = 2,
	BFD_UP = 3,
};

enum bfd_diag {
	BFD_DIAG_NONE = 0,
	BFD_DIAG_TIME_EXPIRED = 1,	/* Control Detection Time Expired */
	BFD_DIAG_ECHO_FAILED = 2,
	BFD_DIAG_NEIGHBOR_DOWN = 3,	/* Neighbor Signaled Session Down */
	BFD_DIAG_FWD_RESET = 4,
	BFD_DIAG_PATH_DOWN = 5,
	BFD_DIAG_CONCAT_DOWN = 6,
	BFD_DIAG_ADMIN_DOWN = 7,	/* Administratively Down */
	BFD_DIAG_RCONCAT_DOWN = 8,
};

/* A control packet (RFC 5880 4.1), decoded. */
struct bfd_pkt {
	uint8_t version;
	uint8_t diag;
	enum bfd_state state;
	bool poll, final, cpi, auth, demand, multipoint;
	uint8_t detect_mult;
	uint8_t length;
	uint32_t my_disc, your_disc;
	uint32_t des_min_tx_us, req_min_rx_us, req_min_echo_rx_us;
};

/* @p into @buf (BFD_PKT_LEN bytes); returns BFD_PKT_LEN. */
size_t bfd_pkt_encode(const struct bfd_pkt *p, uint8_t *buf);
/*
 * @len bytes received (the UDP payload) into @p, with every check of RFC 5880 6.8.6 that
 * needs no session: version 1, a length field of at least 24 (26 with the A bit) and no more
 * than what came, a detect multiplier and My Discriminator not 0, no Multipoint bit, Your
 * Discriminator 0 only in Down or AdminDown, and no A bit (no authentication is configured:
 * such packets are discarded). 0, or -1 with *@why the first field that failed.
 */
int bfd_pkt_decode(const uint8_t *buf, size_t len, struct bfd_pkt *p, const char **why);

struct bfd_params {
	uint32_t min_tx_us;		/* Desired Min TX Interval */
	uint32_t min_rx_us;		/* Required Min RX Interval */
	uint8_t mult;			/* Detect Mult */
};

struct bfd_sess {
	enum bfd_state state;
	uint8_t diag;			/* bfd.LocalDiag */
	uint32_t local_disc, remote_disc;
	struct bfd_params cfg;		/* configured */
	/* the peer's, from its last packet */
	enum bfd_state remote_state;
	uint8_t remote_diag;
	uint32_t remote_min_tx_us, remote_min_rx_us;
	uint8_t remote_mult;
	/* what we advertise, and what the timers use (they differ during a Poll sequence) */
	uint32_t des_min_tx_us, req_min_rx_us;
	uint32_t tx_eff_us, rx_eff_us;
	bool polling;			/* sending P until a packet with F comes */
	bool repoll;			/* the intervals changed again during the poll */
	bool send_final;		/* the next packet carries F (the peer's P) */
	bool tx_now;			/* send a packet at once (F, or our state changed) */
	/* times, microseconds; 0: not armed */
	uint64_t next_tx, detect_at;
	uint64_t last_rx;		/* the time of the last packet taken */
	uint64_t since;			/* the time of the last state change */
	/* counters */
	uint64_t rx, tx, ups, downs;
};

void bfd_sess_init(struct bfd_sess *s, uint32_t local_disc, const struct bfd_params *p,
		   uint64_t now);
/*
 * New configured intervals and multiplier: in effect at once unless Up, where a Poll sequence
 * starts (or another follows the one running).
 */
void bfd_sess_set_params(struct bfd_sess *s, const struct bfd_params *p, uint64_t now);
/*
 * A packet bfd_pkt_decode() took, for this session (the caller matched its Your
 * Discriminator, or its source address when that is 0). Runs the reception rules of RFC 5880
 * 6.8.6 and the state machine. Returns whether the state changed.
 */
bool bfd_sess_rx(struct bfd_sess *s, const struct bfd_pkt *p, uint64_t now);
/* The detection time passed (now >= detect_at): Down, diag 1. Whether the state changed. */
bool bfd_sess_expire(struct bfd_sess *s, uint64_t now);
/* Administratively down (diag 7), or back to Down from there. Whether the state changed. */
bool bfd_sess_admin(struct bfd_sess *s, bool down, uint64_t now);
/*
 * Whether a packet is due at @now (a periodic one, or tx_now); if so fill @p and schedule
 * the next one, the interval reduced by a jitter of 0..25% (10..25% with a multiplier of 1)
 * taken from @rnd.
 */
bool bfd_sess_tx(struct bfd_sess *s, struct bfd_pkt *p, uint64_t now, uint32_t rnd);
/* The earliest time the session needs attention (a packet to send, the detection time). */
uint64_t bfd_sess_next(const struct bfd_sess *s);
/* The negotiated intervals: what we send at (0: the peer wants none), and the detection time. */
uint32_t bfd_sess_tx_interval(const struct bfd_sess *s);
uint64_t bfd_sess_detect_time(const struct bfd_sess *s);

const char *bfd_state_name(enum bfd_state s);
const char *bfd_diag_name(uint8_t diag);

#endif
