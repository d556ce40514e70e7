// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the http and https check kinds, on libcurl's multi-socket interface driven
 * by the engine's libev loop: curl tells us which sockets to watch (CURLMOPT_SOCKETFUNCTION,
 * one ev_io each) and when to call it back (CURLMOPT_TIMERFUNCTION, one ev_timer per multi
 * handle). Each probe keeps its easy handle across runs, and a slot in one multi handle for
 * its life (HTTP_MULTI_MAX slots each); a run adds the handle to that multi handle, the
 * result comes back through curl_multi_info_read() and the handle leaves it again.
 *
 * Connections. With the check's "reuse" (seconds, default 10), a probe keeps its connection
 * between runs (HTTP/1.1 keep-alive; HTTP/2 is not offered) and opens a new one when it is
 * older than that (curl counts whole seconds: up to reuse + 1), when the server closed it, or
 * after a failed run (which shuts the connection down and asks for a fresh one): the accept
 * path is still tested every "reuse" seconds, and a run costs a request and a reply instead
 * of a handshake and a reset. libcurl caches connections per multi handle and matches them
 * by the URL's host and port, and tunnel probes all connect to their VIP and port (the mark
 * picks the backend): so each slot connects through a name of its own (CURLOPT_CONNECT_TO
 * "s<slot>.kmaglev.invalid", which CURLOPT_RESOLVE maps to the target), and no two probes can
 * share a connection. A multi handle holds probes of one "reuse" only (curl prunes its cache
 * with the limits of whichever transfer starts). A slot's connection is shut down when its
 * probe goes, so the next probe in the slot cannot find it alive, and a multi handle whose
 * probes are all gone is made anew, closing what its cache held. With reuse 0, or an
 * interval not shorter than reuse, every run is a fresh connection. Connections are closed
 * with a reset (SO_LINGER 0), and marked with the probe's mark. The engine's timeout removes
 * a run that takes too long.
 *
 * libcurl 7.88 retries a request on a fresh connection when a reused one fails before any
 * reply, and counts those retries on the easy handle for its life, failing the fifth (fixed
 * in curl 8.17): a probe's easy handle is made anew after each run that connected.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <curl/curl.h>

#include "daemon/health/checks/checks.h"

#define HTTP_BODY_MAX	(64 * 1024)	/* body kept for matching */
/*
 * Probes per multi handle. libcurl 7.88 walks its connection cache when a connection to a
 * host closes (conncache_remove_bundle(): every host with a connection in the multi), prunes
 * it once a second (a poll() of each idle connection) and looks hosts up in a 97-slot hash:
 * the cost of a check grows with the connections of its multi handle. 10,000 probes are
 * spread over as many multi handles as it takes, this many in each.
 */
#define HTTP_MULTI_MAX	64

/* https: curl's error buffer is the probe's socket buffer, which http does not use */
_Static_assert(sizeof(((struct kmd_probe *)0)->buf) >= CURL_ERROR_SIZE,
	       "kmd_probe.buf holds a curl error buffer");

struct http_multi;

/* A probe's place in its multi handle, and the socket of the slot's connection. */
struct http_slot {
	struct http_multi *hm;
	struct kmd_probe *p;		/* NULL: free */
	curl_socket_t fd;		/* the slot's open connection, or CURL_SOCKET_BAD */
	bool added;			/* the probe's run is in the multi handle */
};

/* One curl multi handle, its timer, and its probes (all of one reuse). */
struct http_multi {
	struct kmd_http *h;
	CURLM *multi;
	ev_timer timer;
	uint32_t reuse_s;
	unsigned int nprobes;
	/* curl's socket callbacks point here until curl_multi_cleanup() */
	struct http_slot slot[HTTP_MULTI_MAX];
};

struct kmd_http {
	struct ev_loop *loop;
	struct http_multi **m;		/* made as probes need them, kept */
	unsigned int nm;
};

/* One socket curl asked us to watch. */
struct http_sock {
	ev_io io;
	struct http_multi *hm;
};

static void http_finish(struct kmd_probe *p, CURLcode rc);

static void http_drain(struct http_multi *hm)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(hm->multi, &left))) {
		CURL *easy = msg->easy_handle;
		CURLcode rc = msg->data.result;
		struct kmd_probe *p = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&p);
		curl_multi_remove_handle(hm->multi, easy);
		if (p) {
			((struct http_slot *)p->http_slot)->added = false;
			http_finish(p, rc);
		}
	}
}

static void http_io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct http_sock *s = (struct http_sock *)w;
	struct http_multi *hm = s->hm;
	int flags = 0, running;

	if (revents & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (revents & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	/* @s may be freed inside: curl removes the socket */
	curl_multi_socket_action(hm->multi, w->fd, flags, &running);
	http_drain(hm);
}

static void http_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct http_multi *hm = w->data;
	int running;

	curl_multi_socket_action(hm->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	http_drain(hm);
}

static int http_socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *sockp)
{
	struct http_multi *hm = userp;
	struct ev_loop *loop = hm->h->loop;
	struct http_sock *s = sockp;
	int events = 0;

	if (what == CURL_POLL_REMOVE) {
		if (s) {
			ev_io_stop(loop, &s->io);
			free(s);
			curl_multi_assign(hm->multi, fd, NULL);
		}
		return 0;
	}
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -1;	/* curl fails the transfer */
		s->hm = hm;
		ev_init(&s->io, http_io_cb);
		if (curl_multi_assign(hm->multi, fd, s) != CURLM_OK) {
			free(s);
			return -1;
		}
	}
	if (what & CURL_POLL_IN)
		events |= EV_READ;
	if (what & CURL_POLL_OUT)
		events |= EV_WRITE;
	/* unchanged: ev_io_set() would cost an epoll_ctl() for nothing */
	if (ev_is_active(&s->io) && s->io.fd == fd &&
	    (s->io.events & (EV_READ | EV_WRITE)) == events)
		return 0;
	ev_io_stop(loop, &s->io);
	ev_io_set(&s->io, fd, events);
	ev_io_start(loop, &s->io);
	return 0;
}

static int http_timer_fn(CURLM *multi, long ms, void *userp)
{
	struct http_multi *hm = userp;
	struct ev_loop *loop = hm->h->loop;

	ev_timer_stop(loop, &hm->timer);
	if (ms >= 0) {
		ev_timer_set(&hm->timer, ms / 1000.0, 0);
		ev_timer_start(loop, &hm->timer);
	}
	return 0;
}

static void http_multi_free(struct http_multi *hm)
{
	ev_timer_stop(hm->h->loop, &hm->timer);
	curl_multi_cleanup(hm->multi);
	free(hm);
}

/* The curl multi handle of @hm, made and set up; 0 or -1. */
static int http_multi_curl(struct http_multi *hm)
{
	hm->multi = curl_multi_init();
	if (!hm->multi)
		return -1;
	if (curl_multi_setopt(hm->multi, CURLMOPT_SOCKETFUNCTION, http_socket_cb) ||
	    curl_multi_setopt(hm->multi, CURLMOPT_SOCKETDATA, hm) ||
	    curl_multi_setopt(hm->multi, CURLMOPT_TIMERFUNCTION, http_timer_fn) ||
	    curl_multi_setopt(hm->multi, CURLMOPT_TIMERDATA, hm) ||
	    /* every slot's connection kept (the default: 4 per transfer in flight) */
	    curl_multi_setopt(hm->multi, CURLMOPT_MAXCONNECTS, (long)HTTP_MULTI_MAX)) {
		curl_multi_cleanup(hm->multi);
		hm->multi = NULL;
		return -1;
	}
	return 0;
}

static struct http_multi *http_multi_new(struct kmd_http *h, uint32_t reuse_s)
{
	struct http_multi *hm = calloc(1, sizeof(*hm));

	if (!hm)
		return NULL;
	hm->h = h;
	hm->reuse_s = reuse_s;
	for (unsigned int i = 0; i < HTTP_MULTI_MAX; i++) {
		hm->slot[i].hm = hm;
		hm->slot[i].fd = CURL_SOCKET_BAD;
	}
	ev_init(&hm->timer, http_timer_cb);
	hm->timer.data = hm;
	if (http_multi_curl(hm)) {
		free(hm);
		return NULL;
	}
	return hm;
}

/*
 * The last probe of @hm went: close every connection its cache still holds (a released
 * probe's, shut down but only closed when curl next looks) by making the multi handle anew.
 * The slots stay valid through curl_multi_cleanup()'s close callbacks. When a new one cannot
 * be made, the old one stays.
 */
static void http_multi_renew(struct http_multi *hm)
{
	CURLM *old = hm->multi;

	ev_timer_stop(hm->h->loop, &hm->timer);
	if (http_multi_curl(hm)) {
		hm->multi = old;
		return;
	}
	curl_multi_cleanup(old);
}

/* The reuse a probe's connections get: none when every run would find them too old. */
static uint32_t http_reuse_s(const struct kmd_check *c)
{
	return (uint64_t)c->reuse_s * 1000 > c->interval_ms ? c->reuse_s : 0;
}

/* A free slot for @p, in the first multi handle of its reuse with one; NULL: no memory. */
static struct http_slot *http_slot_get(struct kmd_http *h, struct kmd_probe *p)
{
	uint32_t reuse_s = http_reuse_s(&p->check);
	struct http_multi *hm = NULL;
	unsigned int i;

	for (i = 0; i < h->nm && !hm; i++)
		if (h->m[i]->nprobes < HTTP_MULTI_MAX && h->m[i]->reuse_s == reuse_s)
			hm = h->m[i];
	if (!hm) {
		if (kmg_grow(&h->m, h->nm, sizeof(*h->m)))
			return NULL;
		hm = http_multi_new(h, reuse_s);
		if (!hm)
			return NULL;
		h->m[h->nm++] = hm;
	}
	for (i = 0; hm->slot[i].p; i++)
		;
	hm->slot[i].p = p;
	hm->nprobes++;
	return &hm->slot[i];
}

static struct kmd_http *kmd_http_new(struct ev_loop *loop)
{
	struct kmd_http *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(h);
		return NULL;
	}
	h->loop = loop;
	return h;
}

static void kmd_http_free(struct kmd_http *h)
{
	if (!h)
		return;
	for (unsigned int i = 0; i < h->nm; i++)
		http_multi_free(h->m[i]);
	free(h->m);
	curl_global_cleanup();
	free(h);
}

/* ---- one probe ---- */

static size_t http_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct kmd_probe *p = arg;
	size_t n = size * nmemb, room;
	char *b;

	if (!p->check.body)
		return n;
	room = HTTP_BODY_MAX - p->body_len;
	if (n < room)
		room = n;
	if (!room)
		return n;
	b = realloc(p->body, p->body_len + room + 1);
	if (!b)
		return 0;	/* curl fails the transfer: CURLE_WRITE_ERROR */
	memcpy(b + p->body_len, data, room);
	p->body = b;
	p->body_len += room;
	b[p->body_len] = '\0';
	return n;
}

/* A new connection's socket: the probe's mark, a reset on close; the slot's from now on. */
static int http_sockopt(void *arg, curl_socket_t fd, curlsocktype purpose)
{
	struct http_slot *slot = arg;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (purpose != CURLSOCKTYPE_IPCXN)
		return CURL_SOCKOPT_OK;
	if (!slot->p || kmd_sock_mark(fd, slot->p->t.mark) ||
	    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		return CURL_SOCKOPT_ERROR;
	slot->fd = fd;
	return CURL_SOCKOPT_OK;
}

/*
 * curl closes a connection's socket: from a transfer, or from its cache long after the
 * probe that opened it went (the slot outlives every connection of its multi handle).
 */
static int http_closesocket(void *arg, curl_socket_t fd)
{
	struct http_slot *slot = arg;

	if (slot->fd == fd)
		slot->fd = CURL_SOCKET_BAD;
	return close(fd);
}

/* The easy handle, set up once: URL, where to connect, TLS, connections, callbacks. */
static CURL *http_easy(struct kmd_probe *p, struct http_slot *slot)
{
	const struct kmd_check *c = &p->check;
	bool tls = c->kind == KMD_CHECK_HTTPS;
	char addr[INET6_ADDRSTRLEN], url[1024], to[INET6_ADDRSTRLEN + 64];
	char name[48], res[INET6_ADDRSTRLEN + 64];
	const char *path = c->path && *c->path ? c->path : "/";
	struct curl_slist *to_list = NULL, *res_list = NULL;
	bool v6 = p->t.addr.family == AF_INET6;
	uint32_t reuse_s = slot->hm->reuse_s;
	bool reuse = reuse_s > 0;
	CURL *e;
	int n;

	if (!inet_ntop(p->t.addr.family, &p->t.addr.v6, addr, sizeof(addr)))
		return NULL;
	if (c->host && *c->host)	/* the name in the URL: Host, SNI, certificate */
		n = snprintf(url, sizeof(url), "%s://%s:%u%s%s", tls ? "https" : "http", c->host,
			     p->t.port, *path == '/' ? "" : "/", path);
	else
		n = snprintf(url, sizeof(url), "%s://%s%s%s:%u%s%s", tls ? "https" : "http",
			     v6 ? "[" : "", addr, v6 ? "]" : "", p->t.port,
			     *path == '/' ? "" : "/", path);
	if (n < 0 || (size_t)n >= sizeof(url))
		return NULL;
	if (reuse) {
		/* the slot's own name, resolved to the target, makes its connections its own */
		snprintf(name, sizeof(name), "s%u.kmaglev.invalid",
			 (unsigned int)(slot - slot->hm->slot));
		snprintf(to, sizeof(to), "::%s:%u", name, p->t.port);
		snprintf(res, sizeof(res), "%s:%u:%s%s%s", name, p->t.port, v6 ? "[" : "", addr,
			 v6 ? "]" : "");
		res_list = curl_slist_append(NULL, res);
		if (!res_list)
			return NULL;
	} else if (c->host && *c->host) {
		/* connected to the target all the same */
		snprintf(to, sizeof(to), "::%s%s%s:%u", v6 ? "[" : "", addr, v6 ? "]" : "",
			 p->t.port);
	} else {
		to[0] = '\0';
	}
	if (to[0]) {
		to_list = curl_slist_append(NULL, to);
		if (!to_list)
			goto fail_list;
	}
	e = curl_easy_init();
	if (!e)
		goto fail_list;
	if (curl_easy_setopt(e, CURLOPT_URL, url) ||
	    curl_easy_setopt(e, CURLOPT_PRIVATE, p) ||
	    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) ||
	    /* never through a proxy from the environment */
	    curl_easy_setopt(e, CURLOPT_NOPROXY, "*") ||
	    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") ||
	    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, reuse ? 0L : 1L) ||
	    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, reuse ? 0L : 1L) ||
	    /* a connection this old (since its connect) is not used again */
	    curl_easy_setopt(e, CURLOPT_MAXLIFETIME_CONN, (long)reuse_s) ||
	    /* one request at a time on a connection of the probe's own: no HTTP/2 */
	    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1) ||
	    /*
	     * No DNS cache: we only ever connect to address literals, or to a slot's name that
	     * CURLOPT_RESOLVE gives once per easy handle (entries that never expire, replaced by
	     * the next probe of the slot), but curl caches
	     * literals too, one entry per backend, and every finished transfer walks the whole
	     * cache to prune it (multi_done(), libcurl 7.88). With a timeout of 0 each prune
	     * empties the cache of all but the slots' names.
	     */
	    curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, 0L) ||
	    curl_easy_setopt(e, CURLOPT_USERAGENT, "kmaglev-health") ||
	    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_write) ||
	    curl_easy_setopt(e, CURLOPT_WRITEDATA, p) ||
	    curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, http_sockopt) ||
	    curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, slot) ||
	    curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, http_closesocket) ||
	    curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, slot) ||
	    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, c->verify_tls ? 1L : 0L) ||
	    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, c->verify_tls ? 2L : 0L) ||
	    /*
	     * The check's own CAs, and only those: not the system's directory beside them.
	     * Read at each handshake: libcurl 7.87+ would otherwise keep the CA store of a
	     * path in the multi handle for a day, and a CA file rotated in place (then a
	     * reload) would still verify with the old CAs.
	     */
	    (c->ca && (curl_easy_setopt(e, CURLOPT_CAINFO, c->ca) ||
		       curl_easy_setopt(e, CURLOPT_CAPATH, NULL) ||
		       curl_easy_setopt(e, CURLOPT_CA_CACHE_TIMEOUT, 0L))) ||
	    /*
	     * A verifying probe's new connection is a full handshake: a resumed TLS session
	     * shows no certificate, and the one verified when it began would pass for a
	     * certificate the server has since replaced (the easy handle, and its session
	     * cache, last across runs with reuse 0).
	     */
	    (c->verify_tls && curl_easy_setopt(e, CURLOPT_SSL_SESSIONID_CACHE, 0L)) ||
	    /* TLS failures in the TLS library's words (http_verdict()) */
	    (tls && curl_easy_setopt(e, CURLOPT_ERRORBUFFER, p->buf)) ||
	    (to_list && curl_easy_setopt(e, CURLOPT_CONNECT_TO, to_list)) ||
	    (res_list && curl_easy_setopt(e, CURLOPT_RESOLVE, res_list))) {
		curl_easy_cleanup(e);
		goto fail_list;
	}
	p->hdrs = to_list;
	p->resolve = res_list;
	return e;
fail_list:
	curl_slist_free_all(to_list);
	curl_slist_free_all(res_list);
	return NULL;
}

static void http_start(struct kmd_probe *p)
{
	struct kmd_http *h = kmd_hc_priv(p->hc, KMD_CHECK_HTTP);
	struct http_slot *slot = p->http_slot;

	if (!h) {
		h = kmd_http_new(kmd_hc_loop(p->hc));
		if (!h) {
			kmd_probe_done(p, false, "http: cannot start libcurl");
			return;
		}
		kmd_hc_set_priv(p->hc, KMD_CHECK_HTTP, h);
	}
	if (!slot) {
		slot = http_slot_get(h, p);
		if (!slot) {
			kmd_probe_done(p, false, "http: cannot start libcurl");
			return;
		}
		p->http_slot = slot;
	}
	if (!p->easy) {
		p->easy = http_easy(p, slot);
		if (!p->easy) {
			kmd_probe_done(p, false, "http: cannot set up the request");
			return;
		}
	}
	p->body_len = 0;
	p->buf[0] = '\0';	/* https: the run's TLS error, if any */
	if (curl_multi_add_handle(slot->hm->multi, p->easy) != CURLM_OK) {
		kmd_probe_done(p, false, "http: cannot start the request");
		return;
	}
	slot->added = true;
}

/* The probe's easy handle and what it points to, gone: the next run makes them anew. */
static void http_easy_drop(struct kmd_probe *p)
{
	if (p->easy)
		curl_easy_cleanup(p->easy);
	curl_slist_free_all(p->hdrs);
	curl_slist_free_all(p->resolve);
	p->easy = NULL;
	p->hdrs = NULL;
	p->resolve = NULL;
}

/*
 * Shut the slot's open connection down for reading: curl finds it dead when it next looks
 * (a readable socket that reads 0), closes it with a reset, and never sends on it again.
 * Nothing goes to the server before that: no FIN, so no TIME_WAIT.
 */
static void http_conn_kill(struct http_slot *slot)
{
	if (slot->fd != CURL_SOCKET_BAD)
		shutdown(slot->fd, SHUT_RD);
}

static void http_stop(struct kmd_probe *p)
{
	struct http_slot *slot = p->http_slot;

	if (!slot || !slot->added)
		return;
	/* a transfer cut short: curl closes its (HTTP/1.1) connection */
	curl_multi_remove_handle(slot->hm->multi, p->easy);
	slot->added = false;
	if (slot->hm->reuse_s)
		http_easy_drop(p);	/* no retry counted on it: see the top */
}

static void http_release(struct kmd_probe *p)
{
	struct http_slot *slot = p->http_slot;

	http_stop(p);
	if (slot) {
		/*
		 * The connection stays in curl's cache: kill it, so that whoever gets the slot
		 * finds it dead (curl checks before reuse) and never talks to our target, with
		 * our mark, through it. The last probe of a multi handle takes the handle's
		 * cache with it.
		 */
		http_conn_kill(slot);
		slot->p = NULL;
		if (!--slot->hm->nprobes)
			http_multi_renew(slot->hm);
		p->http_slot = NULL;
	}
	http_easy_drop(p);
	free(p->body);
	p->body = NULL;
}

/* The verdict of a finished run, into @why; true when it passed. */
static bool http_verdict(struct kmd_probe *p, CURLcode rc, char *why, size_t len)
{
	static const struct kmd_status_range dflt = { 200, 399 };
	const struct kmd_check *c = &p->check;
	long status = 0, oserr = 0;

	curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(p->easy, CURLINFO_OS_ERRNO, &oserr);
	switch (rc) {
	case CURLE_OK:
		break;
	case CURLE_COULDNT_CONNECT:
		if (oserr)
			kmd_connect_why(p, oserr, why, len);
		else
			snprintf(why, len, "connect: %s", curl_easy_strerror(rc));
		return false;
	case CURLE_OPERATION_TIMEDOUT:
		snprintf(why, len, "timeout");
		return false;
	case CURLE_GOT_NOTHING:
		snprintf(why, len, "empty reply");
		return false;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		/* which name did not match, which issuer is unknown: curl's error buffer */
		snprintf(why, len, "tls: %.120s", c->kind == KMD_CHECK_HTTPS && p->buf[0] ? p->buf :
			 curl_easy_strerror(rc));
		return false;
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		if (oserr == ECONNRESET) {
			snprintf(why, len, "reset");
			return false;
		}
		/* fall through */
	default:
		snprintf(why, len, "http: %s", curl_easy_strerror(rc));
		return false;
	}
	if (c->nstatus ? !kmd_status_match(c->status, c->nstatus, status) :
	    !kmd_status_match(&dflt, 1, status)) {
		snprintf(why, len, "status %ld", status);
		return false;
	}
	if (c->body && *c->body &&
	    (!p->body_len || !memmem(p->body, p->body_len, c->body, strlen(c->body)))) {
		snprintf(why, len, "body mismatch");
		return false;
	}
	snprintf(why, len, "ok");
	return true;
}

static void http_finish(struct kmd_probe *p, CURLcode rc)
{
	struct http_slot *slot = p->http_slot;
	long nconn = 0;
	char why[128];
	bool ok = http_verdict(p, rc, why, sizeof(why));

	if (slot->hm->reuse_s) {
		/* a failed run's connection is not trusted again: the next run connects */
		if (!ok)
			http_conn_kill(slot);
		/* a run that connected may have been a retry: see the top */
		if (curl_easy_getinfo(p->easy, CURLINFO_NUM_CONNECTS, &nconn) != CURLE_OK ||
		    nconn > 0)
			http_easy_drop(p);
	}
	kmd_probe_done(p, ok, "%s", why);
}

/* http and https share one curl multi, kept in the http slot */
static void http_fini(struct kmd_hc *hc)
{
	kmd_http_free(kmd_hc_priv(hc, KMD_CHECK_HTTP));
	kmd_hc_set_priv(hc, KMD_CHECK_HTTP, NULL);
}

const struct kmd_kind_ops kmd_http_ops = {
	.start = http_start,
	.stop = http_stop,
	.release = http_release,
	.fini = http_fini,
};
