// SPDX-License-Identifier: GPL-2.0
/*
 * BFD on the wire, in its own thread. See bfd_io.h; the protocol is bfd.c's.
 *
 * The thread owns its loop and every watcher on it; the owner's thread only touches the
 * session list (under io->mu) and wakes the thread (io->wake), which (re)arms the timers of
 * new or changed sessions and frees the ended ones. A session's timer is initialised before
 * the session is on the list (the thread may find it by a packet before its wake-up), and
 * stopped before it is freed. The thread logs nothing: the owner's callback does, on its own
 * loop.
 *
 * Events to the owner: at most one pending per session (the state it was in when the owner
 * last heard, and how often it went from Up to Down since), so a flapping peer costs no
 * memory and an Up -> Down is never lost, whatever the owner's loop is doing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bgp/bfd_io.h"

#define BFD_TOS		0xc0	/* DSCP CS6, network control */

struct bsess {
	struct bfd_io *io;
	struct kmg_addr peer, local;
	int fd;				/* sending socket */
	uint16_t sport;
	struct bfd_sess s;
	ev_timer w;			/* on the thread's loop; initialised before it is listed */
	bool changed;			/* the owner changed it: reschedule */
	bool dead;			/* the owner ended it: the thread frees it */
	bool ev_pending;		/* the owner has an event to hear of */
	enum bfd_state ev_old;		/* the state when the owner last heard */
	unsigned int ev_downs;		/* Up -> Down since (not by the peer's AdminDown) */
	char err[128];
	struct bsess *next;
};

struct bfd_io {
	struct ev_loop *owner, *loop;
	pthread_t thr;
	pthread_mutex_t mu;
	int fd4, fd6;
	ev_io r4, r6;
	ev_async wake;			/* the thread's */
	ev_async notify;		/* the owner's */
	bool quit;
	struct bsess *sessions;
	bfd_notify_fn fn;
	void *arg;
	uint32_t next_disc;
	uint16_t port;
	struct bfd_io_stats st;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static socklen_t sockaddr_of(const struct kmg_addr *a, int family, uint16_t port,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		if (a && a->family == AF_INET)
			s->sin_addr = a->v4;
		return sizeof(*s);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	if (a && a->family == AF_INET6)
		s6->sin6_addr = a->v6;
	return sizeof(*s6);
}

/* --- the thread's side ---------------------------------------------------------------- */

/* Under io->mu: the session went from @old to its state; tell the owner (no allocation). */
static void queue_event(struct bfd_io *io, struct bsess *b, enum bfd_state old)
{
	if (!b->ev_pending) {
		b->ev_pending = true;
		b->ev_old = old;
		b->ev_downs = 0;
	}
	if (old == BFD_UP && b->s.state == BFD_DOWN && b->s.remote_state != BFD_ADMIN_DOWN &&
	    b->ev_downs < UINT_MAX)
		b->ev_downs++;
	ev_async_send(io->owner, &io->notify);
}

static void sess_send(struct bsess *b, uint64_t now)
{
	uint8_t buf[BFD_PKT_LEN];
	struct bfd_pkt p;

	if (!bfd_sess_tx(&b->s, &p, now, (uint32_t)random()))
		return;
	bfd_pkt_encode(&p, buf);
	if (b->fd < 0)
		return;
	/*
	 * The socket is connected to the peer's port: the peer's ICMP port unreachable comes back
	 * as the error of the next send, which sent nothing then; say so, and send again.
	 */
	if (send(b->fd, buf, sizeof(buf), MSG_DONTWAIT) < 0) {
		snprintf(b->err, sizeof(b->err), "send: %m");
		if (errno == ECONNREFUSED)
			send(b->fd, buf, sizeof(buf), MSG_DONTWAIT);
	} else {
		b->err[0] = 0;
	}
}

static void sess_sched(struct bsess *b, uint64_t now)
{
	uint64_t t = bfd_sess_next(&b->s);

	ev_timer_stop(b->io->loop, &b->w);
	if (!t)
		return;
	/* the delay counts from the loop's time: bring it to @now's */
	ev_now_update(b->io->loop);
	ev_timer_set(&b->w, t <= now ? 0. : (t - now) / 1e6, 0.);
	ev_timer_start(b->io->loop, &b->w);
}

static void sess_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bsess *b = w->data;
	struct bfd_io *io = b->io;
	enum bfd_state old;
	uint64_t now;

	pthread_mutex_lock(&io->mu);
	/* ended: wake_cb frees it (and stops the timer, which stays stopped now) */
	if (b->dead) {
		pthread_mutex_unlock(&io->mu);
		return;
	}
	now = now_us();
	old = b->s.state;
	if (bfd_sess_expire(&b->s, now))
		queue_event(io, b, old);
	sess_send(b, now);
	sess_sched(b, now);
	pthread_mutex_unlock(&io->mu);
}

static struct bsess *find_disc(struct bfd_io *io, uint32_t disc)
{
	struct bsess *b;

	for (b = io->sessions; b; b = b->next)
		if (!b->dead && b->s.local_disc == disc)
			return b;
	return NULL;
}

static struct bsess *find_peer(struct bfd_io *io, const struct kmg_addr *a)
{
	struct bsess *b;

	for (b = io->sessions; b; b = b->next)
		if (!b->dead && kmg_addr_equal(&b->peer, a))
			return b;
	return NULL;
}

static void read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bfd_io *io = w->data;
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(int)) * 4];
	} cbuf;
	struct sockaddr_storage ss;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *cm;
	uint8_t buf[128];
	struct kmg_addr src = { 0 };
	struct bfd_pkt p;
	struct bsess *b;
	const char *why;
	int ttl = -1;
	ssize_t n;

	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &ss;
	mh.msg_namelen = sizeof(ss);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.b;
	mh.msg_controllen = sizeof(cbuf.b);
	n = recvmsg(w->fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if ((cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TTL) ||
		    (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_HOPLIMIT))
			memcpy(&ttl, CMSG_DATA(cm), sizeof(ttl));
	}
	if (ss.ss_family == AF_INET) {
		src.family = AF_INET;
		src.v4 = ((struct sockaddr_in *)&ss)->sin_addr;
	} else {
		src.family = AF_INET6;
		src.v6 = ((struct sockaddr_in6 *)&ss)->sin6_addr;
	}
	pthread_mutex_lock(&io->mu);
	/* RFC 5881 5 (GTSM): only from a neighbour on the link */
	if (ttl != BFD_TTL) {
		io->st.rx_ttl++;
		goto out;
	}
	if (bfd_pkt_decode(buf, n, &p, &why)) {
		io->st.rx_bad++;
		goto out;
	}
	/* by Your Discriminator, and from the session's peer; by the source while it is 0 */
	b = p.your_disc ? find_disc(io, p.your_disc) : find_peer(io, &src);
	if (!b || !kmg_addr_equal(&b->peer, &src)) {
		io->st.rx_unknown++;
		goto out;
	}
	{
		enum bfd_state old = b->s.state;
		uint64_t now = now_us();

		if (bfd_sess_rx(&b->s, &p, now))
			queue_event(io, b, old);
		sess_send(b, now);
		sess_sched(b, now);
	}
out:
	pthread_mutex_unlock(&io->mu);
}

static void sess_close(struct bsess *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

/* Say AdminDown once (RFC 5882 3.2: the peer keeps its BGP session). */
static void sess_goodbye(struct bsess *b)
{
	uint64_t now = now_us();

	if (b->s.state == BFD_ADMIN_DOWN)
		return;
	bfd_sess_admin(&b->s, true, now);
	sess_send(b, now);
}

static void wake_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct bfd_io *io = w->data;
	struct bsess **pb = &io->sessions, *b;
	uint64_t now;

	pthread_mutex_lock(&io->mu);
	now = now_us();
	while ((b = *pb)) {
		if (b->dead || io->quit) {
			ev_timer_stop(loop, &b->w);
			sess_goodbye(b);
			sess_close(b);
			*pb = b->next;
			free(b);
			continue;
		}
		if (b->changed) {
			b->changed = false;
			sess_send(b, now);
			sess_sched(b, now);
		}
		pb = &b->next;
	}
	if (io->quit)
		ev_break(loop, EVBREAK_ALL);
	pthread_mutex_unlock(&io->mu);
}

static void *thread_main(void *arg)
{
	struct bfd_io *io = arg;

	ev_run(io->loop, 0);
	return NULL;
}

/* --- the owner's side ------------------------------------------------------------------ */

/*
 * The pending events, a batch at a time (the callback runs without io->mu: it may change
 * sessions). An ended session's are dropped: the owner ended it.
 */
static void notify_cb(struct ev_loop *loop, ev_async *w, int revents)
{
	struct bfd_io *io = w->data;
	struct bfd_event q[16];
	unsigned int n, i;
	struct bsess *b;

	do {
		n = 0;
		pthread_mutex_lock(&io->mu);
		for (b = io->sessions; b && n < KMG_ARRAY_SIZE(q); b = b->next) {
			if (!b->ev_pending)
				continue;
			b->ev_pending = false;
			if (b->dead)
				continue;
			q[n++] = (struct bfd_event){
				.peer = b->peer, .old = b->ev_old, .state = b->s.state,
				.remote_state = b->s.remote_state, .diag = b->s.diag,
				.downs = b->ev_downs,
			};
		}
		pthread_mutex_unlock(&io->mu);
		for (i = 0; i < n; i++)
			io->fn(io->arg, &q[i]);
	} while (n == KMG_ARRAY_SIZE(q));
}

static int rx_socket(int family, uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	int fd, one = 1;
	socklen_t sl;

	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		if (family == AF_INET6 && errno == EAFNOSUPPORT)
			return -2;	/* no IPv6 here: IPv4 only */
		goto fail;
	}
	/* a more specific socket of the port (a test's peer on 127.0.0.2) may share it */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET) {
		if (setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one)))
			goto fail;
	} else if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
		   setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof(one))) {
		goto fail;
	}
	sl = sockaddr_of(NULL, family, port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, sl))
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "bfd: %s UDP port %u: %s", family == AF_INET ? "IPv4" : "IPv6",
		 port, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The session's sending socket: TTL 255, CS6, a source port of 49152..65535. */
static int tx_socket(const struct kmg_addr *peer, const struct kmg_addr *local,
		     uint16_t dport, uint16_t *port, char *err, size_t errlen)
{
	int fam = peer->family, ttl = BFD_TTL, tos = BFD_TOS, fd, i;
	unsigned int span = BFD_SRC_PORT_MAX - BFD_SRC_PORT_MIN + 1, start;
	const char *what = "socket";
	struct sockaddr_storage ss;
	socklen_t sl;

	fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	what = "TTL 255";
	if (fam == AF_INET ? setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl)) :
			     setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl)))
		goto fail;
	if (fam == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	else
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
	/* RFC 5881 4: a source port of the range, each session its own */
	what = "bind";
	if (getrandom(&start, sizeof(start), GRND_NONBLOCK) != sizeof(start))
		start = (unsigned int)random();
	start %= span;
	for (i = 0; i < (int)span; i++) {
		*port = BFD_SRC_PORT_MIN + (start + i) % span;
		sl = sockaddr_of(local && local->family == fam ? local : NULL, fam, *port, &ss);
		if (!bind(fd, (struct sockaddr *)&ss, sl))
			break;
		if (errno != EADDRINUSE)
			goto fail;
	}
	if (i == (int)span)
		goto fail;
	/*
	 * Never read: connected to the peer's port, the kernel takes nothing else into it (no
	 * datagrams sent to our source port pile up there).
	 */
	what = "connect";
	sl = sockaddr_of(peer, fam, dport, &ss);
	if (connect(fd, (struct sockaddr *)&ss, sl))
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "bfd: sending socket: %s: %s", what, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

struct bfd_io *bfd_io_new(struct ev_loop *owner, bfd_notify_fn fn, void *arg, char *err,
			  size_t errlen)
{
	return bfd_io_new_port(owner, fn, arg, BFD_PORT, err, errlen);
}

struct bfd_io *bfd_io_new_port(struct ev_loop *owner, bfd_notify_fn fn, void *arg,
			       uint16_t port, char *err, size_t errlen)
{
	struct bfd_io *io = calloc(1, sizeof(*io));
	sigset_t all, old;

	if (!io) {
		snprintf(err, errlen, "bfd: out of memory");
		return NULL;
	}
	io->owner = owner;
	io->fn = fn;
	io->arg = arg;
	io->fd6 = -1;
	io->port = port;
	pthread_mutex_init(&io->mu, NULL);
	/* discriminators from a random start (RFC 5880 6.8.1: unique, and hard to guess) */
	if (getrandom(&io->next_disc, sizeof(io->next_disc), GRND_NONBLOCK) !=
	    sizeof(io->next_disc))
		io->next_disc = (uint32_t)random() ^ (uint32_t)now_us();
	io->fd4 = rx_socket(AF_INET, port, err, errlen);
	if (io->fd4 < 0)
		goto fail;
	io->fd6 = rx_socket(AF_INET6, port, err, errlen);
	if (io->fd6 == -1)
		goto fail;
	io->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!io->loop) {
		snprintf(err, errlen, "bfd: no event loop");
		goto fail;
	}
	ev_io_init(&io->r4, read_cb, io->fd4, EV_READ);
	io->r4.data = io;
	ev_io_start(io->loop, &io->r4);
	if (io->fd6 >= 0) {
		ev_io_init(&io->r6, read_cb, io->fd6, EV_READ);
		io->r6.data = io;
		ev_io_start(io->loop, &io->r6);
	}
	ev_async_init(&io->wake, wake_cb);
	io->wake.data = io;
	ev_async_start(io->loop, &io->wake);
	ev_async_init(&io->notify, notify_cb);
	io->notify.data = io;
	ev_async_start(owner, &io->notify);
	/* the daemon's signals are its own thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = pthread_create(&io->thr, NULL, thread_main, io);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno) {
		snprintf(err, errlen, "bfd: thread: %s", strerror(errno));
		ev_async_stop(owner, &io->notify);
		goto fail;
	}
	return io;
fail:
	if (io->loop)
		ev_loop_destroy(io->loop);
	if (io->fd4 >= 0)
		close(io->fd4);
	if (io->fd6 >= 0)
		close(io->fd6);
	pthread_mutex_destroy(&io->mu);
	free(io);
	return NULL;
}

int bfd_io_set(struct bfd_io *io, const struct kmg_addr *peer, const struct kmg_addr *local,
	       const struct bfd_params *p, char *err, size_t errlen)
{
	struct kmg_addr none = { 0 };
	struct bsess *b;
	uint16_t port = 0;
	bool need;
	int fd = -1;

	if (!local)
		local = &none;
	if (peer->family == AF_INET6 && io->fd6 < 0) {
		snprintf(err, errlen, "bfd: no IPv6 on this host");
		return -1;
	}
	/* a new sending socket, made without io->mu (up to 16384 binds): the thread goes on */
	for (;;) {
		pthread_mutex_lock(&io->mu);
		b = find_peer(io, peer);
		need = !b || b->local.family != local->family ||
		       (local->family && !kmg_addr_equal(&b->local, local));
		if (!need || fd >= 0)
			break;
		pthread_mutex_unlock(&io->mu);
		fd = tx_socket(peer, local, io->port, &port, err, errlen);
		if (fd < 0)
			return -1;
	}
	if (!need && fd >= 0) {
		close(fd);
		fd = -1;
	}
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			snprintf(err, errlen, "bfd: out of memory");
			goto fail;
		}
		b->io = io;
		b->peer = *peer;
		/* before it is listed: read_cb may schedule it before wake_cb has seen it */
		ev_init(&b->w, sess_cb);
		b->w.data = b;
		do {
			io->next_disc++;
		} while (!io->next_disc || find_disc(io, io->next_disc));
		bfd_sess_init(&b->s, io->next_disc, p, now_us());
		b->fd = -1;
		b->next = io->sessions;
		io->sessions = b;
	} else {
		bfd_sess_set_params(&b->s, p, now_us());
	}
	if (fd >= 0) {
		sess_close(b);
		b->fd = fd;
		b->sport = port;
		b->local = *local;
	}
	b->changed = true;
	pthread_mutex_unlock(&io->mu);
	ev_async_send(io->loop, &io->wake);
	return 0;
fail:
	pthread_mutex_unlock(&io->mu);
	if (fd >= 0)
		close(fd);
	return -1;
}

void bfd_io_del(struct bfd_io *io, const struct kmg_addr *peer)
{
	struct bsess *b;

	pthread_mutex_lock(&io->mu);
	b = find_peer(io, peer);
	if (b)
		b->dead = true;
	pthread_mutex_unlock(&io->mu);
	if (b)
		ev_async_send(io->loop, &io->wake);
}

bool bfd_io_info(struct bfd_io *io, const struct kmg_addr *peer, struct bfd_info *info)
{
	struct bsess *b;

	pthread_mutex_lock(&io->mu);
	b = find_peer(io, peer);
	if (b) {
		info->s = b->s;
		info->src_port = b->sport;
		info->state_s = (now_us() - b->s.since) / 1e6;
		snprintf(info->err, sizeof(info->err), "%s", b->err);
	}
	pthread_mutex_unlock(&io->mu);
	return b != NULL;
}

void bfd_io_stats(struct bfd_io *io, struct bfd_io_stats *st)
{
	pthread_mutex_lock(&io->mu);
	*st = io->st;
	pthread_mutex_unlock(&io->mu);
}

void bfd_io_free(struct bfd_io *io)
{
	if (!io)
		return;
	pthread_mutex_lock(&io->mu);
	io->quit = true;
	pthread_mutex_unlock(&io->mu);
	ev_async_send(io->loop, &io->wake);
	pthread_join(io->thr, NULL);
	ev_async_stop(io->owner, &io->notify);
	ev_loop_destroy(io->loop);
	close(io->fd4);
	if (io->fd6 >= 0)
		close(io->fd6);
	pthread_mutex_destroy(&io->mu);
	free(io);
}
