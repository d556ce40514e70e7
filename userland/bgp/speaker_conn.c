// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev's built-in BGP speaker: a peer's TCP connections on the loop. Sockets
 * (TCP-MD5, TTL, the link-local next hop), each connection's buffered sends, reads
 * and timers as the FSM's ops (fsm.c), collision resolution, connecting with
 * ConnectRetry and back-off, and the listening socket.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "bgp/speaker_int.h"

#define WBUF_MAX	(4u << 20)	/* a peer that takes nothing for this long is dropped */

static void peer_schedule(struct bgp_peer *p);
static void write_cb(struct ev_loop *loop, ev_io *w, int revents);
static void read_cb(struct ev_loop *loop, ev_io *w, int revents);

const char *addr_str(const struct kmg_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, &a->v6, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

/* --- sockets ------------------------------------------------------------------------- */

static socklen_t sockaddr_of(const struct kmg_addr *a, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr = a->v4;
		return sizeof(*s);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	s6->sin6_addr = a->v6;
	return sizeof(*s6);
}

/* The TCP-MD5 key for peer @a on socket @fd of @family (NULL @password: remove it). */
int set_md5(int fd, int family, const struct kmg_addr *a, const char *password)
{
	struct tcp_md5sig md5;
	struct kmg_addr m = *a;

	memset(&md5, 0, sizeof(md5));
	/* an IPv4 peer of a dual-stack (IPv6) socket is known by its v4-mapped address */
	if (family == AF_INET6 && a->family == AF_INET) {
		m.family = AF_INET6;
		memset(&m.v6, 0, sizeof(m.v6));
		m.v6.s6_addr[10] = m.v6.s6_addr[11] = 0xff;
		memcpy(&m.v6.s6_addr[12], &a->v4, 4);
	}
	sockaddr_of(&m, 0, (struct sockaddr_storage *)&md5.tcpm_addr);
	if (password) {
		if (strlen(password) > TCP_MD5SIG_MAXKEYLEN) {
			errno = EINVAL;
			return -1;
		}
		md5.tcpm_keylen = strlen(password);
		memcpy(md5.tcpm_key, password, md5.tcpm_keylen);
	}
	return setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG, &md5, sizeof(md5));
}

/* Whether a listening socket of @lfam takes connections from peers of @pfam. */
bool listens_for(int lfam, int pfam)
{
	return lfam == pfam || lfam == AF_INET6;
}

/* GTSM (RFC 5082): the least TTL taken from a neighbour @c->ttl hops away (else 1). */
static int gtsm_min_ttl(const struct bgp_peer_cfg *c)
{
	return 256 - (c->ttl ? c->ttl : 1);
}

static int peer_ttl(const struct bgp_peer *p)
{
	if (p->cfg.ttl_security)
		return 255;
	if (p->cfg.ttl)
		return p->cfg.ttl;
	return p->cfg.asn == p->sp->cfg.asn ? 64 : 1;
}

/*
 * The TTL (hop limit) of what we send to @p; with GTSM (RFC 5082), also the least the
 * kernel takes from it (IP_MINTTL, IPV6_MINHOPCOUNT): 256 - hops, 255 for a neighbour on the
 * link. A socket accepted from the listener gets it after the handshake: nothing of the
 * session (OPEN onwards) is taken from farther away. 0 or -errno.
 */
static int set_ttl(int fd, int family, const struct bgp_peer *p)
{
	int ttl = peer_ttl(p), min = gtsm_min_ttl(&p->cfg);
	int err;

	if (family == AF_INET)
		err = setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	else
		err = setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &ttl, sizeof(ttl));
	if (err || !p->cfg.ttl_security)
		return err ? -errno : 0;
	if (family == AF_INET)
		err = setsockopt(fd, IPPROTO_IP, IP_MINTTL, &min, sizeof(min));
	else
		err = setsockopt(fd, IPPROTO_IPV6, IPV6_MINHOPCOUNT, &min, sizeof(min));
	return err ? -errno : 0;
}

/* Whether @a and @b share the first @bits bits. */
static bool same_prefix(const struct in6_addr *a, const struct in6_addr *b, unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < 16 && bits; i++, bits = bits > 8 ? bits - 8 : 0) {
		uint8_t m = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if ((a->s6_addr[i] ^ b->s6_addr[i]) & m)
			return false;
	}
	return true;
}

static unsigned int mask_bits(const struct in6_addr *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < 16; i++)
		n += __builtin_popcount(m->s6_addr[i]);
	return n;
}

/*
 * The link-local address of the interface that holds @a, for the IPv6 next hop: only when
 * @peer is on that interface's subnet (a peer a hop or more away cannot use it, and FRR
 * treats such an UPDATE as a withdrawal).
 */
static bool link_local_of(const struct in6_addr *a, const struct in6_addr *peer,
			  struct in6_addr *ll)
{
	struct ifaddrs *ifa, *i, *j;
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET6 || !i->ifa_netmask ||
		    memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a, 16) ||
		    !same_prefix(a, peer,
				 mask_bits(&((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr)))
			continue;
		for (j = ifa; j; j = j->ifa_next) {
			const struct in6_addr *x;

			if (!j->ifa_addr || j->ifa_addr->sa_family != AF_INET6 ||
			    strcmp(j->ifa_name, i->ifa_name))
				continue;
			x = &((struct sockaddr_in6 *)j->ifa_addr)->sin6_addr;
			if (IN6_IS_ADDR_LINKLOCAL(x)) {
				*ll = *x;
				found = true;
				break;
			}
		}
	}
	freeifaddrs(ifa);
	return found;
}

/* --- one connection ------------------------------------------------------------------ */

static struct pconn *pconn_of(struct bgp_conn *c)
{
	return (struct pconn *)((char *)c - offsetof(struct pconn, c));
}

static int pconn_flush(struct pconn *pc)
{
	while (pc->wlen) {
		ssize_t n = send(pc->fd, pc->wbuf, pc->wlen, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -errno;
		}
		memmove(pc->wbuf, pc->wbuf + n, pc->wlen - n);
		pc->wlen -= n;
	}
	if (pc->wlen)
		ev_io_start(pc->peer->sp->loop, &pc->ww);
	else
		ev_io_stop(pc->peer->sp->loop, &pc->ww);
	return 0;
}

static void c_send(struct bgp_conn *c, const uint8_t *buf, size_t len)
{
	struct pconn *pc = pconn_of(c);
	int err;

	if (pc->fd < 0)
		return;
	if (pc->wlen + len > WBUF_MAX) {
		bgp_conn_tcp_error(c, "the peer takes nothing (send buffer full)");
		return;
	}
	if (pc->wlen + len > pc->wcap) {
		size_t cap = pc->wcap ? pc->wcap : 8192;
		uint8_t *b;

		while (cap < pc->wlen + len)
			cap *= 2;
		b = realloc(pc->wbuf, cap);
		if (!b) {
			bgp_conn_tcp_error(c, "out of memory");
			return;
		}
		pc->wbuf = b;
		pc->wcap = cap;
	}
	memcpy(pc->wbuf + pc->wlen, buf, len);
	pc->wlen += len;
	err = pconn_flush(pc);
	if (err) {
		char why[96];

		snprintf(why, sizeof(why), "send: %s", strerror(-err));
		bgp_conn_tcp_error(c, why);
	}
}

static void timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct pconn *pc = w->data;
	enum bgp_timer t = (enum bgp_timer)(w - pc->t);

	/*
	 * After the process did not run for a while (a loaded host, a stopped VM), the hold
	 * timer and the read of a message that arrived in time wake up together, and libev
	 * calls the timer first (the last queued runs first). Read what is waiting: a message
	 * restarts the timer, and the session was not idle at all.
	 */
	if (t == BGP_T_HOLD && pc->fd >= 0 && !pc->connecting) {
		read_cb(loop, &pc->rw, EV_READ);
		if (pc->fd < 0 || ev_is_active(w))
			return;
	}
	bgp_conn_timer(&pc->c, t);
}

static void c_timer(struct bgp_conn *c, enum bgp_timer t, double seconds)
{
	struct pconn *pc = pconn_of(c);
	struct ev_loop *loop = pc->peer->sp->loop;

	ev_timer_stop(loop, &pc->t[t]);
	if (seconds > 0) {
		ev_timer_set(&pc->t[t], seconds, 0);
		ev_timer_start(loop, &pc->t[t]);
	}
}

/* RFC 4271 6.8: of two connections to one peer, the higher BGP Identifier's survives. */
static bool c_open_received(struct bgp_conn *c)
{
	struct pconn *pc = pconn_of(c), *other;
	struct bgp_peer *p = pc->peer;
	bool keep_incoming;

	other = pc->incoming ? &p->out : &p->in;
	if (other->fd < 0 || other->c.state == BGP_IDLE)
		return true;
	if (other->c.state == BGP_ESTABLISHED) {
		/*
		 * RFC 4724 4.2: a peer that restarts with graceful restart opens a new session
		 * while we may still hold the old one: the new one replaces it.
		 */
		if (!other->c.peer.cap_gr)
			return false;
		bgp_conn_drop(&other->c, "the peer restarted (a new session replaces it)");
		return true;
	}
	/*
	 * The connection the side with the higher identifier opened survives; with equal
	 * identifiers (eBGP, RFC 6286 2.3), the one the side with the larger AS opened.
	 */
	if (p->sp->cfg.router_id.s_addr != c->peer.bgp_id.s_addr)
		keep_incoming = ntohl(p->sp->cfg.router_id.s_addr) <
				ntohl(c->peer.bgp_id.s_addr);
	else
		keep_incoming = p->sp->cfg.asn < c->peer.asn;
	if (pc->incoming != keep_incoming)
		return false;
	p->resolving = true;
	bgp_conn_cease(&other->c, BGP_CEASE_COLLISION, NULL);
	p->resolving = false;
	return true;
}

static void c_established(struct bgp_conn *c)
{
	struct pconn *pc = pconn_of(c);
	struct bgp_peer *p = pc->peer;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	p->est = pc;
	p->up_since = ev_now(p->sp->loop);
	p->established++;
	p->retry_s = 0;
	p->last_error[0] = 0;
	p->has_local4 = p->has_local6 = p->has_ll = false;
	if (!getsockname(pc->fd, (struct sockaddr *)&ss, &sl)) {
		if (ss.ss_family == AF_INET) {
			p->local4 = ((struct sockaddr_in *)&ss)->sin_addr;
			p->has_local4 = true;
		} else if (ss.ss_family == AF_INET6) {
			p->local6 = ((struct sockaddr_in6 *)&ss)->sin6_addr;
			if (IN6_IS_ADDR_V4MAPPED(&p->local6)) {
				memcpy(&p->local4, &p->local6.s6_addr[12], 4);
				p->has_local4 = true;
			} else {
				p->has_local6 = true;
				p->has_ll = link_local_of(&p->local6, &p->cfg.addr.v6,
							  &p->local6_ll);
			}
		}
	}
	kmd_log(LOG_NOTICE, "bgp: %s: established (hold time %us%s%s)", p->name,
		c->hold_time, c->v4 ? ", ipv4" : "", c->v6 ? ", ipv6" : "");
	peer_sync(p, true);
}

static void c_refresh(struct bgp_conn *c, int family)
{
	struct bgp_peer *p = pconn_of(c)->peer;
	unsigned int i, j;

	if (p->est != pconn_of(c))
		return;
	/* forget what was sent of that family: the sync sends it all again */
	for (i = j = 0; i < p->nsent; i++)
		if (p->sent[i].pfx.family != family)
			p->sent[j++] = p->sent[i];
	p->nsent = j;
	kmd_log(LOG_INFO, "bgp: %s: route refresh (%s)", p->name,
		family == AF_INET ? "ipv4" : "ipv6");
	peer_sync(p, false);
}

void pconn_stop_watchers(struct pconn *pc)
{
	struct ev_loop *loop = pc->peer->sp->loop;
	int i;

	ev_io_stop(loop, &pc->rw);
	ev_io_stop(loop, &pc->ww);
	for (i = 0; i < BGP_T_COUNT; i++)
		ev_timer_stop(loop, &pc->t[i]);
}

void pconn_close_fd(struct pconn *pc)
{
	pconn_stop_watchers(pc);
	if (pc->fd >= 0) {
		/*
		 * The last words (a NOTIFICATION) are queued already unless the socket was full;
		 * one more try, without blocking the loop: what the kernel took leaves before the
		 * FIN, the rest is lost (a peer that reads nothing hears nothing).
		 */
		if (pc->wlen && !pc->connecting)
			(void)send(pc->fd, pc->wbuf, pc->wlen, MSG_NOSIGNAL | MSG_DONTWAIT);
		shutdown(pc->fd, SHUT_WR);
		close(pc->fd);
	}
	pc->fd = -1;
	pc->connecting = false;
	pc->wlen = 0;
}

static void c_closed(struct bgp_conn *c, const char *why)
{
	struct pconn *pc = pconn_of(c);
	struct bgp_peer *p = pc->peer;
	bool was_est = p->est == pc;

	pconn_close_fd(pc);
	if (was_est) {
		p->est = NULL;
		p->nsent = 0;
		p->up_since = 0;
		kmd_log(LOG_WARNING, "bgp: %s: session down: %s", p->name, why);
	} else {
		kmd_log(LOG_INFO, "bgp: %s: %s connection closed: %s", p->name,
			pc->incoming ? "incoming" : "outgoing", why);
	}
	/* a collision resolved is no failure: no back-off, no error to show */
	if (p->resolving)
		return;
	snprintf(p->last_error, sizeof(p->last_error), "%s", why);
	peer_schedule(p);
}

static const struct bgp_conn_ops conn_ops = {
	.send = c_send,
	.timer = c_timer,
	.open_received = c_open_received,
	.established = c_established,
	.refresh = c_refresh,
	.closed = c_closed,
};

static void read_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pconn *pc = w->data;
	uint8_t buf[16384];
	ssize_t n;

	n = recv(pc->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0) {
		char why[96];

		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		snprintf(why, sizeof(why), "recv: %s", strerror(errno));
		bgp_conn_tcp_error(&pc->c, why);
		return;
	}
	bgp_conn_input(&pc->c, buf, n);
}

static void conn_cfg(const struct bgp_peer *p, struct bgp_conn_cfg *cc)
{
	const struct bgp_speaker *sp = p->sp;

	memset(cc, 0, sizeof(*cc));
	cc->local_as = sp->cfg.asn;
	cc->peer_as = p->cfg.asn;
	cc->router_id = sp->cfg.router_id;
	cc->hold_time = p->cfg.hold_time;
	/*
	 * The session's own family; IPv4 over an IPv6 session too with extended-next-hop, its
	 * next hops IPv6 (RFC 8950). IPv6 over an IPv4 session is not spoken.
	 */
	cc->v4 = p->cfg.addr.family == AF_INET || p->cfg.ext_next_hop;
	cc->v4_nh6 = p->cfg.addr.family == AF_INET6 && p->cfg.ext_next_hop;
	cc->v6 = p->cfg.addr.family == AF_INET6;
	cc->gr_time = sp->cfg.gr_time;
	/* RFC 4724: the restart bit until the first session after the restart is up */
	cc->gr_restarting = sp->restarting && !p->established;
}

/* The TCP connection is up (connected, or accepted): start the FSM on it. */
static void pconn_up(struct pconn *pc)
{
	struct bgp_conn_cfg cc;

	conn_cfg(pc->peer, &cc);
	bgp_conn_init(&pc->c, &cc, &conn_ops, pc->peer);
	pc->connecting = false;
	ev_io_set(&pc->rw, pc->fd, EV_READ);
	ev_io_set(&pc->ww, pc->fd, EV_WRITE);
	ev_io_start(pc->peer->sp->loop, &pc->rw);
	bgp_conn_start(&pc->c);
}

void pconn_init(struct pconn *pc, struct bgp_peer *p, bool incoming)
{
	int i;

	memset(pc, 0, sizeof(*pc));
	pc->peer = p;
	pc->incoming = incoming;
	pc->fd = -1;
	ev_init(&pc->rw, read_cb);
	pc->rw.data = pc;
	ev_init(&pc->ww, write_cb);
	pc->ww.data = pc;
	for (i = 0; i < BGP_T_COUNT; i++) {
		ev_init(&pc->t[i], timer_cb);
		pc->t[i].data = pc;
	}
}

/* --- peer: connect, retry ------------------------------------------------------------ */

static void write_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct pconn *pc = w->data;
	int err = 0;

	if (pc->connecting) {
		socklen_t l = sizeof(err);
		struct bgp_peer *p = pc->peer;

		ev_io_stop(loop, w);
		ev_timer_stop(loop, &p->retry_w);
		if (getsockopt(pc->fd, SOL_SOCKET, SO_ERROR, &err, &l) || err) {
			snprintf(p->last_error, sizeof(p->last_error), "connect: %s",
				 strerror(err ? err : errno));
			pconn_close_fd(pc);
			peer_schedule(p);
			return;
		}
		pconn_up(pc);
		return;
	}
	err = pconn_flush(pc);
	if (err) {
		char why[96];

		snprintf(why, sizeof(why), "send: %s", strerror(-err));
		bgp_conn_tcp_error(&pc->c, why);
	}
}

void peer_connect(struct bgp_peer *p)
{
	struct pconn *pc = &p->out;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, err;

	fd = socket(p->cfg.addr.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (p->password && set_md5(fd, p->cfg.addr.family, &p->cfg.addr, p->password)) {
		snprintf(p->last_error, sizeof(p->last_error), "TCP-MD5: %s", strerror(errno));
		close(fd);
		goto retry;
	}
	err = set_ttl(fd, p->cfg.addr.family, p);
	if (err) {
		snprintf(p->last_error, sizeof(p->last_error), "%s: %s",
			 p->cfg.ttl_security ? "TTL security" : "TTL", strerror(-err));
		close(fd);
		goto retry;
	}
	/* a specific listening address is ours on both ends: the peer knows us by it */
	if (p->sp->cfg.listen.family == p->cfg.addr.family &&
	    !kmg_addr_is_unspec(&p->sp->cfg.listen)) {
		sl = sockaddr_of(&p->sp->cfg.listen, 0, &ss);
		if (bind(fd, (struct sockaddr *)&ss, sl)) {
			snprintf(p->last_error, sizeof(p->last_error), "bind: %s",
				 strerror(errno));
			close(fd);
			goto retry;
		}
	}
	sl = sockaddr_of(&p->cfg.addr, p->cfg.port, &ss);
	pc->fd = fd;
	pc->connecting = true;
	ev_io_init(&pc->ww, write_cb, fd, EV_WRITE);
	pc->ww.data = pc;
	if (connect(fd, (struct sockaddr *)&ss, sl) && errno != EINPROGRESS) {
		snprintf(p->last_error, sizeof(p->last_error), "connect: %s", strerror(errno));
		pconn_close_fd(pc);
		goto retry;
	}
	ev_io_start(p->sp->loop, &pc->ww);
	/* the connect timeout */
	ev_timer_set(&p->retry_w, BGP_CONNECT_TIMEOUT_S, 0);
	ev_timer_start(p->sp->loop, &p->retry_w);
	return;
fail:
	snprintf(p->last_error, sizeof(p->last_error), "socket: %s", strerror(errno));
retry:
	peer_schedule(p);
}

void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_peer *p = w->data;

	if (p->out.connecting) {
		snprintf(p->last_error, sizeof(p->last_error), "connect: timed out after %gs",
			 BGP_CONNECT_TIMEOUT_S);
		pconn_close_fd(&p->out);
		peer_schedule(p);
		return;
	}
	if (!p->sp->stopped && !p->cfg.passive && p->out.fd < 0 && !p->est)
		peer_connect(p);
}

/* After a connection ended or failed: try again later, backing off. */
static void peer_schedule(struct bgp_peer *p)
{
	double s;

	if (p->sp->stopped || p->cfg.passive || p->out.fd >= 0 || p->in.fd >= 0 || p->est)
		return;
	p->retry_s = p->retry_s ? p->retry_s * 2 : BGP_RETRY_MIN_S;
	if (p->retry_s > BGP_RETRY_MAX_S)
		p->retry_s = BGP_RETRY_MAX_S;
	/* up to a quarter more, so that peers restarted together do not retry in step */
	s = p->retry_s * (1 + (random() % 256) / 1024.);
	ev_timer_stop(p->sp->loop, &p->retry_w);
	ev_timer_set(&p->retry_w, s, 0);
	ev_timer_start(p->sp->loop, &p->retry_w);
}

static void accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct bgp_speaker *sp = w->data;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct kmg_addr a = { 0 };
	struct bgp_peer *p = NULL;
	unsigned int i;
	int fd, err;

	fd = accept4(sp->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		/* out of descriptors: the listener stays readable; pause it a second */
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			ev_io_stop(loop, &sp->lw);
			ev_timer_start(loop, &sp->lpause_w);
		}
		return;
	}
	if (ss.ss_family == AF_INET) {
		a.family = AF_INET;
		a.v4 = ((struct sockaddr_in *)&ss)->sin_addr;
	} else if (ss.ss_family == AF_INET6) {
		struct in6_addr *v6 = &((struct sockaddr_in6 *)&ss)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(v6)) {
			a.family = AF_INET;
			memcpy(&a.v4, &v6->s6_addr[12], 4);
		} else {
			a.family = AF_INET6;
			a.v6 = *v6;
		}
	}
	for (i = 0; i < sp->npeers && !p; i++)
		if (kmg_addr_equal(&sp->peers[i]->cfg.addr, &a))
			p = sp->peers[i];
	if (!p || sp->stopped) {
		char s[INET6_ADDRSTRLEN];

		kmd_log(LOG_INFO, "bgp: connection from %s refused: %s",
			addr_str(&a, s, sizeof(s)), !p ? "not a neighbour" : "shutting down");
		close(fd);
		return;
	}
	/*
	 * An incoming connection already there: the peer gave up on it (a reboot that sent
	 * no FIN, say). The new one replaces it, unless that session is up and the peer did
	 * not offer graceful restart; then the OPEN decides (c_open_received).
	 */
	if (p->in.fd >= 0 && (p->in.c.state != BGP_ESTABLISHED || p->in.c.peer.cap_gr)) {
		p->resolving = true;
		if (p->in.c.state == BGP_IDLE || p->in.connecting)
			pconn_close_fd(&p->in);
		else
			bgp_conn_drop(&p->in.c, "the peer connected again");
		p->resolving = false;
	}
	if (p->in.fd >= 0) {
		close(fd);
		return;
	}
	err = set_ttl(fd, a.family, p);
	if (err) {
		char s[INET6_ADDRSTRLEN];

		kmd_log(LOG_WARNING, "bgp: connection from %s dropped: %s: %s",
			addr_str(&a, s, sizeof(s)), p->cfg.ttl_security ? "TTL security" : "TTL",
			strerror(-err));
		close(fd);
		return;
	}
	p->in.fd = fd;
	pconn_up(&p->in);
}

static void lpause_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct bgp_speaker *sp = w->data;

	if (sp->lfd >= 0)
		ev_io_start(loop, &sp->lw);
}

/*
 * GTSM on the listening socket: when every neighbour the listener takes has ttl-security,
 * the least TTL of them all (256 - the most hops), so that the kernel drops a SYN from
 * farther away and an accepted socket takes nothing that was queued before the daemon could
 * set its own limit. With some neighbours without it the listener takes any TTL, and a
 * connection's first segments, queued before accept(), are taken whatever their TTL (the
 * rest of the session is not).
 */
void listen_gtsm(struct bgp_speaker *sp)
{
	int min = 255;
	unsigned int i, n = 0;

	if (sp->lfd < 0)
		return;
	for (i = 0; i < sp->npeers; i++) {
		const struct bgp_peer_cfg *c = &sp->peers[i]->cfg;
		int m = gtsm_min_ttl(c);

		if (!listens_for(sp->cfg.listen.family, c->addr.family))
			continue;
		n++;
		if (!c->ttl_security)
			min = 0;
		else if (m < min)
			min = m;
	}
	if (!n)
		min = 0;
	setsockopt(sp->lfd, IPPROTO_IP, IP_MINTTL, &min, sizeof(min));
	if (sp->cfg.listen.family == AF_INET6)
		setsockopt(sp->lfd, IPPROTO_IPV6, IPV6_MINHOPCOUNT, &min, sizeof(min));
}

int listen_start(struct bgp_speaker *sp, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	unsigned int i;
	int one = 1;
	socklen_t sl;

	sp->lfd = -1;
	if (!sp->cfg.listen.family)
		return 0;
	sp->lfd = socket(sp->cfg.listen.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (sp->lfd < 0)
		goto fail;
	setsockopt(sp->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (i = 0; i < sp->npeers; i++)
		if (sp->peers[i]->password &&
		    listens_for(sp->cfg.listen.family, sp->peers[i]->cfg.addr.family) &&
		    set_md5(sp->lfd, sp->cfg.listen.family, &sp->peers[i]->cfg.addr,
			    sp->peers[i]->password))
			goto fail;
	sl = sockaddr_of(&sp->cfg.listen, sp->cfg.listen_port, &ss);
	if (bind(sp->lfd, (struct sockaddr *)&ss, sl) || listen(sp->lfd, 16))
		goto fail;
	listen_gtsm(sp);
	ev_io_init(&sp->lw, accept_cb, sp->lfd, EV_READ);
	sp->lw.data = sp;
	ev_io_start(sp->loop, &sp->lw);
	ev_timer_init(&sp->lpause_w, lpause_cb, 1., 0.);
	sp->lpause_w.data = sp;
	return 0;
fail:
	snprintf(err, errlen, "bgp: listening on port %u: %s", sp->cfg.listen_port,
		 strerror(errno));
	if (sp->lfd >= 0)
		close(sp->lfd);
	sp->lfd = -1;
	return -1;
}

void listen_stop(struct bgp_speaker *sp)
{
	if (sp->lfd < 0)
		return;
	ev_io_stop(sp->loop, &sp->lw);
	ev_timer_stop(sp->loop, &sp->lpause_w);
	close(sp->lfd);
	sp->lfd = -1;
}
