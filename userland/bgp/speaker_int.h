/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev's built-in BGP speaker: what its files share (speaker.c, the speaker and its
 * peers; speaker_conn.c, their connections; speaker_rib.c, what they announce). Not for
 * the speaker's users: speaker.h is.
 */
#ifndef KMAGLEV_BGP_SPEAKER_INT_H
#define KMAGLEV_BGP_SPEAKER_INT_H

#include <netinet/in.h>
#include <sys/socket.h>

#include "bgp/speaker.h"

struct bgp_peer;

/* One TCP connection to a peer: ours (outgoing) or theirs (incoming). */
struct pconn {
	struct bgp_peer *peer;
	bool incoming;
	int fd;				/* -1: none */
	bool connecting;		/* connect() in progress */
	ev_io rw, ww;
	ev_timer t[BGP_T_COUNT];
	struct bgp_conn c;
	uint8_t *wbuf;
	size_t wlen, wcap;
};

struct bgp_peer {
	struct bgp_speaker *sp;
	struct bgp_peer_cfg cfg;
	char *password;
	char name[INET6_ADDRSTRLEN + 8];
	struct pconn out, in;
	ev_timer retry_w;		/* ConnectRetry, and the connect timeout */
	bool resolving;			/* closing the loser of a connection collision */
	double retry_s;
	ev_tstamp up_since;
	uint64_t established;
	char last_error[384];
	/* the established session's view */
	struct pconn *est;		/* NULL: none */
	struct bgp_route *sent;		/* Adj-RIB-Out, sorted by prefix */
	unsigned int nsent;
	bool sent_gshut;		/* what the Adj-RIB-Out was sent with */
	struct in_addr local4;
	struct in6_addr local6, local6_ll;
	bool has_local4, has_local6, has_ll;
	/* BFD */
	bool bfd_set;			/* its session is in sp->bfd */
	enum bfd_state bfd_state;	/* as last told */
	ev_tstamp bfd_log_t0;		/* its BFD log lines: this window's start */
	unsigned int bfd_log_n;		/* lines in it */
	unsigned int bfd_log_dropped;	/* lines not logged since the last one */
	char bfd_err[160];
};

struct bgp_speaker {
	struct ev_loop *loop;
	struct bgp_speaker_cfg cfg;
	struct bgp_peer **peers;	/* each its own allocation: watchers point into it */
	unsigned int npeers;
	bool restarting;
	int lfd;
	ev_io lw;
	ev_timer lpause_w;		/* accept() failed for want of resources */
	struct bgp_route *routes;
	unsigned int nroutes;
	bool gshut;
	bool stopped;
	struct bfd_io *bfd;		/* made when a neighbour first has bfd */
	char bfd_err[160];		/* why it could not be */
};

/* --- speaker_conn.c ---------------------------------------------------------------- */

const char *addr_str(const struct kmg_addr *a, char *buf, size_t len);
/* The TCP-MD5 key for peer @a on socket @fd of @family (NULL @password: remove it). */
int set_md5(int fd, int family, const struct kmg_addr *a, const char *password);
/* Whether a listening socket of @lfam takes connections from peers of @pfam. */
bool listens_for(int lfam, int pfam);
void pconn_init(struct pconn *pc, struct bgp_peer *p, bool incoming);
void pconn_stop_watchers(struct pconn *pc);
void pconn_close_fd(struct pconn *pc);
void peer_connect(struct bgp_peer *p);
void retry_cb(struct ev_loop *loop, ev_timer *w, int revents);
int listen_start(struct bgp_speaker *sp, char *err, size_t errlen);
void listen_gtsm(struct bgp_speaker *sp);
void listen_stop(struct bgp_speaker *sp);

/* --- speaker.c --------------------------------------------------------------------- */

/* Each neighbour's BFD session as its configuration says (added, changed or ended). */
void bfd_sync(struct bgp_speaker *sp);
/*
 * Whether a BFD log line of @p may go out now (BFD_LOG_BURST a neighbour in BFD_LOG_WINDOW
 * seconds of the loop's time); a refused one is counted in p->bfd_log_dropped.
 */
#define BFD_LOG_BURST	10
#define BFD_LOG_WINDOW	60.
bool bfd_log_ok(struct bgp_speaker *sp, struct bgp_peer *p);

/* --- speaker_rib.c ----------------------------------------------------------------- */

/*
 * Bring the session's Adj-RIB-Out to the speaker's route set: withdraw what went, announce
 * what is new or changed, grouping prefixes of equal attributes. @full: the session just
 * came up; End-of-RIB follows.
 */
void peer_sync(struct bgp_peer *p, bool full);

#endif
