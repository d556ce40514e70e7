/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BFD on the wire (RFC 5881, single hop), in a thread of its own: its own libev loop, the
 * receiving sockets (UDP 3784, IPv4 and IPv6, the TTL or hop limit of each packet read and
 * anything but 255 dropped), one sending socket per session (source port 49152..65535, TTL
 * 255, DSCP CS6) and the sessions' timers. A daemon whose loop is busy (a reload, a slow
 * netlink dump, a burst of health checks) still answers and sends in time: nothing here waits
 * for it.
 *
 * The daemon's thread (the owner's loop) adds, changes and removes sessions, each known by
 * its peer's address, and reads their state; the BFD thread tells it of state changes through
 * an ev_async on the owner's loop, where the callback runs. Everything is under one mutex,
 * held for microseconds.
 */
#ifndef KMAGLEV_BGP_BFD_IO_H
#define KMAGLEV_BGP_BFD_IO_H

#include <ev.h>

#include "bgp/bfd.h"
#include "lib/util.h"

/*
 * What changed since the owner last heard (one event per session at most, however often it
 * changed in between): the state it was in then, and now.
 */
struct bfd_event {
	struct kmg_addr peer;
	enum bfd_state old, state;
	enum bfd_state remote_state;	/* the peer's, as last heard */
	uint8_t diag;			/* ours, why it last changed */
	unsigned int downs;		/* Up -> Down since (the peer's AdminDown not counted) */
};

typedef void (*bfd_notify_fn)(void *arg, const struct bfd_event *ev);

struct bfd_io;

/*
 * Open the receiving sockets (IPv6 only where the host has it) and start the thread. @fn
 * runs on @owner's loop. NULL with @err set.
 */
struct bfd_io *bfd_io_new(struct ev_loop *owner, bfd_notify_fn fn, void *arg, char *err,
			  size_t errlen);
/* The same on another port than 3784, listened on and sent to (for the unit tests). */
struct bfd_io *bfd_io_new_port(struct ev_loop *owner, bfd_notify_fn fn, void *arg,
			       uint16_t port, char *err, size_t errlen);
/*
 * Add the session to @peer, sending from @local (family 0: the kernel's choice), or change
 * its parameters (a Poll sequence while Up: the session stays up) or its source address. -1
 * with @err set when its socket cannot be made; nothing changed then.
 */
int bfd_io_set(struct bfd_io *io, const struct kmg_addr *peer, const struct kmg_addr *local,
	       const struct bfd_params *p, char *err, size_t errlen);
/* End the session to @peer: it says AdminDown once (the peer keeps its BGP session). */
void bfd_io_del(struct bfd_io *io, const struct kmg_addr *peer);

struct bfd_info {
	struct bfd_sess s;		/* a copy */
	uint16_t src_port;
	double state_s;			/* seconds in its state */
	char err[128];			/* the last send error, "" if none */
};
/* The session to @peer; false if there is none. */
bool bfd_io_info(struct bfd_io *io, const struct kmg_addr *peer, struct bfd_info *info);

struct bfd_io_stats {
	uint64_t rx_bad;		/* failed bfd_pkt_decode() */
	uint64_t rx_ttl;		/* TTL or hop limit not 255 */
	uint64_t rx_unknown;		/* no session for its discriminator or source */
};
void bfd_io_stats(struct bfd_io *io, struct bfd_io_stats *st);

/* Every session says AdminDown; the thread stops. */
void bfd_io_free(struct bfd_io *io);

#endif
