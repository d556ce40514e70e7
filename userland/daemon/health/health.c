// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the health-check engine. Probes are shared: a hash table keyed by the
 * check's content and the target finds the running probe for kmd_probe_get(). Each probe has
 * a run timer (interval, fast interval while rising or falling, down interval, random jitter)
 * and a timeout timer; the kinds live in check_*.c. Results feed the rise/fall state machine,
 * the stats, and the listeners when something they care about changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "daemon/health/health_int.h"

const double kmd_latency_bounds_s[9] = { 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0 };

struct kmd_hc {
	struct ev_loop *loop;
	struct kmd_probe **tab;		/* hash buckets */
	unsigned int nbuckets;		/* a power of two */
	unsigned int nprobes;
	struct kmd_probe *head;		/* every probe */
	const struct kmd_kind_ops *const *kinds; /* by enum kmd_check_kind */
	void *priv[KMD_CHECK_KINDS];	/* what a kind keeps in the engine (http: curl multi) */
	uint64_t rng;			/* xorshift64* state for jitter */
};

struct ev_loop *kmd_hc_loop(struct kmd_hc *hc)
{
	return hc->loop;
}

void *kmd_hc_priv(struct kmd_hc *hc, enum kmd_check_kind k)
{
	return hc->priv[k];
}

void kmd_hc_set_priv(struct kmd_hc *hc, enum kmd_check_kind k, void *priv)
{
	hc->priv[k] = priv;
}

static uint64_t hc_random(struct kmd_hc *hc)
{
	uint64_t x = hc->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	hc->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A random delay of 0..@ms milliseconds, in seconds. */
static ev_tstamp hc_jitter(struct kmd_hc *hc, uint32_t ms)
{
	if (!ms)
		return 0;
	return (double)(hc_random(hc) % ((uint64_t)ms * 1000 + 1)) / 1e6;
}

struct kmd_hc *kmd_hc_new(struct ev_loop *loop, const struct kmd_kind_ops *const *kinds)
{
	struct kmd_hc *hc = calloc(1, sizeof(*hc));

	if (!hc)
		return NULL;
	hc->loop = loop;
	hc->kinds = kinds;
	hc->nbuckets = 256;
	hc->tab = calloc(hc->nbuckets, sizeof(*hc->tab));
	if (!hc->tab) {
		free(hc);
		return NULL;
	}
	if (getrandom(&hc->rng, sizeof(hc->rng), GRND_NONBLOCK) != sizeof(hc->rng))
		hc->rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (!hc->rng)
		hc->rng = 0x9e3779b97f4a7c15ULL;
	return hc;
}

/* ---- the check's content: copy, compare, hash ---- */

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool argv_eq(char **a, char **b)
{
	if (!a || !b)
		return a == b;
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return false;
	return !*a && !*b;
}

static bool check_eq(const struct kmd_check *a, const struct kmd_check *b)
{
	if (a->kind != b->kind || a->via != b->via || a->port != b->port ||
	    a->interval_ms != b->interval_ms || a->timeout_ms != b->timeout_ms ||
	    a->fast_interval_ms != b->fast_interval_ms ||
	    a->down_interval_ms != b->down_interval_ms || a->jitter_ms != b->jitter_ms ||
	    a->rise != b->rise || a->fall != b->fall || a->verify_tls != b->verify_tls ||
	    a->reuse_s != b->reuse_s ||
	    a->qtype != b->qtype || a->rcode != b->rcode || a->nstatus != b->nstatus)
		return false;
	if (a->nstatus && memcmp(a->status, b->status, a->nstatus * sizeof(*a->status)))
		return false;
	return str_eq(a->host, b->host) && str_eq(a->path, b->path) &&
	       str_eq(a->ca, b->ca) && str_eq(a->body, b->body) && str_eq(a->send, b->send) &&
	       str_eq(a->expect, b->expect) && str_eq(a->query, b->query) &&
	       argv_eq(a->argv, b->argv);
}

static bool addr_eq(const struct kmg_addr *a, const struct kmg_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4.s_addr == b->v4.s_addr;
	if (a->family == AF_INET6)
		return !memcmp(&a->v6, &b->v6, sizeof(a->v6));
	return true;
}

static bool target_eq(const struct kmd_target *a, const struct kmd_target *b)
{
	return addr_eq(&a->addr, &b->addr) && a->port == b->port && a->mark == b->mark &&
	       addr_eq(&a->backend, &b->backend) && addr_eq(&a->vip, &b->vip) &&
	       a->vport == b->vport && a->proto == b->proto;
}

static uint32_t fnv(uint32_t h, const void *data, size_t len)
{
	const uint8_t *d = data;

	while (len--)
		h = (h ^ *d++) * 16777619u;
	return h;
}

static uint32_t addr_hash(uint32_t h, const struct kmg_addr *a)
{
	h = fnv(h, &a->family, sizeof(a->family));
	if (a->family == AF_INET)
		return fnv(h, &a->v4, sizeof(a->v4));
	if (a->family == AF_INET6)
		return fnv(h, &a->v6, sizeof(a->v6));
	return h;
}

static uint32_t probe_hash(const struct kmd_check *c, const struct kmd_target *t)
{
	uint32_t h = 2166136261u;

	h = fnv(h, &c->kind, sizeof(c->kind));
	h = fnv(h, &c->interval_ms, sizeof(c->interval_ms));
	if (c->path)
		h = fnv(h, c->path, strlen(c->path));
	h = addr_hash(h, &t->addr);
	h = addr_hash(h, &t->backend);
	h = fnv(h, &t->port, sizeof(t->port));
	return fnv(h, &t->mark, sizeof(t->mark));
}

static void check_release(struct kmd_check *c)
{
	free(c->name);
	free(c->host);
	free(c->path);
	free(c->status);
	free(c->body);
	free(c->ca);
	free(c->send);
	free(c->expect);
	free(c->query);
	if (c->argv) {
		for (char **a = c->argv; *a; a++)
			free(*a);
		free(c->argv);
	}
	memset(c, 0, sizeof(*c));
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static int check_copy(struct kmd_check *d, const struct kmd_check *s)
{
	unsigned int n = 0;

	*d = *s;
	d->name = d->host = d->path = d->body = d->ca = d->send = d->expect = d->query = NULL;
	d->status = NULL;
	d->argv = NULL;
	if (dup_str(&d->name, s->name) || dup_str(&d->host, s->host) ||
	    dup_str(&d->path, s->path) || dup_str(&d->body, s->body) ||
	    dup_str(&d->ca, s->ca) ||
	    dup_str(&d->send, s->send) || dup_str(&d->expect, s->expect) ||
	    dup_str(&d->query, s->query))
		goto fail;
	if (s->nstatus) {
		d->status = calloc(s->nstatus, sizeof(*d->status));
		if (!d->status)
			goto fail;
		memcpy(d->status, s->status, s->nstatus * sizeof(*d->status));
	}
	if (s->argv) {
		while (s->argv[n])
			n++;
		d->argv = calloc(n + 1, sizeof(*d->argv));
		if (!d->argv)
			goto fail;
		for (unsigned int i = 0; i < n; i++)
			if (dup_str(&d->argv[i], s->argv[i]))
				goto fail;
	}
	return 0;
fail:
	check_release(d);
	return -ENOMEM;
}

/* ---- probes ---- */

static const struct kmd_kind_ops *kind_ops(struct kmd_hc *hc, enum kmd_check_kind k)
{
	return (unsigned int)k < KMD_CHECK_KINDS ? hc->kinds[k] : NULL;
}

static void probe_run(struct kmd_probe *p);

static void probe_free(struct kmd_probe *p)
{
	if (p->ops->release)
		p->ops->release(p);
	check_release(&p->check);
	free(p->ls);
	free(p);
}

static void probe_unbusy(struct kmd_probe *p)
{
	if (--p->busy == 0 && p->dead)
		probe_free(p);
}

static void sched_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kmd_probe *p = w->data;

	p->busy++;
	probe_run(p);
	probe_unbusy(p);
}

static void tmo_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kmd_probe *p = w->data;

	if (!p->running)
		return;
	p->busy++;
	p->ops->stop(p);
	kmd_probe_done(p, false, "timeout");
	probe_unbusy(p);
}

static void probe_run(struct kmd_probe *p)
{
	struct ev_loop *loop = p->hc->loop;
	uint32_t tmo = p->check.timeout_ms ? p->check.timeout_ms : 1000;

	if (p->running)
		return;
	p->running = true;
	p->started = ev_now(loop);
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	ev_timer_set(&p->tmo, tmo / 1000.0, 0);
	ev_timer_start(loop, &p->tmo);
	p->ops->start(p);
}

/* Abandon the run in flight and the next one. */
static void probe_stop(struct kmd_probe *p)
{
	struct ev_loop *loop = p->hc->loop;

	ev_timer_stop(loop, &p->sched);
	ev_timer_stop(loop, &p->tmo);
	if (p->running) {
		p->ops->stop(p);
		p->running = false;
	}
}

static void hc_rehash(struct kmd_hc *hc)
{
	unsigned int n = hc->nbuckets * 2;
	struct kmd_probe **tab = calloc(n, sizeof(*tab));

	if (!tab)
		return;		/* longer chains, still correct */
	for (unsigned int i = 0; i < hc->nbuckets; i++) {
		struct kmd_probe *p = hc->tab[i], *next;

		for (; p; p = next) {
			next = p->hnext;
			p->hnext = tab[p->hash & (n - 1)];
			tab[p->hash & (n - 1)] = p;
		}
	}
	free(hc->tab);
	hc->tab = tab;
	hc->nbuckets = n;
}

static void hc_unlink(struct kmd_hc *hc, struct kmd_probe *p)
{
	struct kmd_probe **pp = &hc->tab[p->hash & (hc->nbuckets - 1)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == p) {
			*pp = p->hnext;
			break;
		}
	}
	if (p->prev)
		p->prev->next = p->next;
	else
		hc->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	hc->nprobes--;
}

static int probe_listen(struct kmd_probe *p, kmd_probe_cb cb, void *arg)
{
	if (kmg_grow(&p->ls, p->nls, sizeof(*p->ls)))
		return -ENOMEM;
	p->ls[p->nls].cb = cb;
	p->ls[p->nls].arg = arg;
	p->nls++;
	return 0;
}

struct kmd_probe *kmd_probe_get(struct kmd_hc *hc, const struct kmd_check *check,
				const struct kmd_target *t, enum kmd_health start,
				kmd_probe_cb cb, void *arg)
{
	uint32_t h = probe_hash(check, t);
	const struct kmd_kind_ops *ops = kind_ops(hc, check->kind);
	struct kmd_probe *p;
	ev_tstamp first;

	if (!ops)
		return NULL;
	for (p = hc->tab[h & (hc->nbuckets - 1)]; p; p = p->hnext) {
		if (p->hash == h && target_eq(&p->t, t) && check_eq(&p->check, check))
			return probe_listen(p, cb, arg) ? NULL : p;
	}

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (check_copy(&p->check, check)) {
		free(p);
		return NULL;
	}
	if (probe_listen(p, cb, arg)) {
		check_release(&p->check);
		free(p);
		return NULL;
	}
	p->hc = hc;
	p->hash = h;
	p->t = *t;
	p->ops = ops;
	p->fd = -1;
	p->out_fd = -1;
	kmd_hcsm_init(&p->sm, check->rise, check->fall, start);
	p->told_state = start;
	p->told_admin = p->told_weight_pct = p->told_weight = p->told_util = -1;
	p->last.admin = p->last.weight_pct = p->last.weight = p->last.util = -1;
	p->util_avg = -1;
	/*
	 * When the loop falls behind (a burst of runs, a busy host), the sockets that became
	 * ready are served first, then the runs that are due, then the timeouts: a run whose
	 * answer is waiting in the same loop iteration as its timeout is not a timeout.
	 */
	ev_init(&p->sched, sched_cb);
	ev_set_priority(&p->sched, EV_MINPRI + 1);
	p->sched.data = p;
	ev_init(&p->tmo, tmo_cb);
	ev_set_priority(&p->tmo, EV_MINPRI);
	p->tmo.data = p;

	if (hc->nprobes >= hc->nbuckets * 2)
		hc_rehash(hc);
	p->hnext = hc->tab[h & (hc->nbuckets - 1)];
	hc->tab[h & (hc->nbuckets - 1)] = p;
	p->next = hc->head;
	if (hc->head)
		hc->head->prev = p;
	hc->head = p;
	hc->nprobes++;

	/* the first run: random in 0..jitter, so that a restart does not probe in bursts */
	first = hc_jitter(hc, check->jitter_ms);
	p->due = ev_now(hc->loop) + first;
	ev_timer_set(&p->sched, first, 0);
	ev_timer_start(hc->loop, &p->sched);
	return p;
}

void kmd_probe_put(struct kmd_probe *p, kmd_probe_cb cb, void *arg)
{
	unsigned int i, live = 0;
	bool found = false;

	for (i = 0; i < p->nls; i++) {
		if (!found && p->ls[i].cb == cb && p->ls[i].arg == arg) {
			found = true;
			if (p->busy) {
				p->ls[i].cb = NULL;	/* compacted after the calls */
			} else {
				memmove(&p->ls[i], &p->ls[i + 1], (p->nls - i - 1) * sizeof(*p->ls));
				p->nls--;
				i--;
			}
			continue;
		}
		if (p->ls[i].cb)
			live++;
	}
	if (live || p->dead)
		return;
	hc_unlink(p->hc, p);
	probe_stop(p);
	if (p->busy)
		p->dead = true;
	else
		probe_free(p);
}

void kmd_hc_free(struct kmd_hc *hc)
{
	struct kmd_probe *p, *next;
	unsigned int k;

	if (!hc)
		return;
	for (p = hc->head; p; p = next) {
		next = p->next;
		probe_stop(p);
		probe_free(p);
	}
	for (k = 0; k < KMD_CHECK_KINDS; k++)
		if (hc->kinds[k] && hc->kinds[k]->fini)
			hc->kinds[k]->fini(hc);
	free(hc->tab);
	free(hc);
}

/* ---- results ---- */

static void probe_notify(struct kmd_probe *p)
{
	unsigned int i, n = p->nls, j;

	for (i = 0; i < n && !p->dead; i++)
		if (p->ls[i].cb)
			p->ls[i].cb(p, p->ls[i].arg);
	for (i = j = 0; i < p->nls; i++)
		if (p->ls[i].cb)
			p->ls[j++] = p->ls[i];
	p->nls = j;
}

static void probe_account(struct kmd_probe *p, uint32_t us)
{
	double s = us / 1e6;
	unsigned int b;

	p->runs++;
	if (!p->last.ok)
		p->failures++;
	for (b = 0; b < 9 && s > kmd_latency_bounds_s[b]; b++)
		;
	p->bucket[b]++;
	p->sum_s += s;
}

static void probe_next(struct kmd_probe *p)
{
	struct ev_loop *loop = p->hc->loop;
	const struct kmd_check *c = &p->check;
	uint32_t ms = c->interval_ms;
	ev_tstamp now = ev_now(loop), at;

	if (kmd_hcsm_moving(&p->sm) && c->fast_interval_ms)
		ms = c->fast_interval_ms;
	else if (p->sm.state == KMD_HEALTH_DOWN && c->down_interval_ms)
		ms = c->down_interval_ms;
	if (!ms)
		ms = 1000;
	/*
	 * From when the run was due, not from when it started: a run that the loop started
	 * late does not push the ones after it back. Behind by more than that: at once, and
	 * from now on.
	 */
	at = p->due + ms / 1000.0 + hc_jitter(p->hc, c->jitter_ms);
	if (at < now)
		at = now;
	p->due = at;
	ev_timer_set(&p->sched, at - now, 0);
	ev_timer_start(loop, &p->sched);
}

void kmd_probe_done_result(struct kmd_probe *p, const struct kmd_result *r)
{
	struct ev_loop *loop = p->hc->loop;
	struct timespec t1;
	int64_t us;

	if (!p->running)
		return;
	p->running = false;
	ev_timer_stop(loop, &p->tmo);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	us = (t1.tv_sec - p->t0.tv_sec) * 1000000LL + (t1.tv_nsec - p->t0.tv_nsec) / 1000;
	p->last = *r;
	p->last.latency_us = us < 0 ? 0 : us > UINT32_MAX ? UINT32_MAX : us;
	p->has_last = true;
	probe_account(p, p->last.latency_us);
	kmd_hcsm_step(&p->sm, r->ok);
	probe_next(p);
	/*
	 * A failed run (a timeout: a hot backend's agent may be slow) keeps the average; an
	 * answer without a utilization, or the probe going down, ends it.
	 */
	if (r->util >= 0)
		p->util_avg = kmd_util_smooth(p->util_avg, r->util);
	else if (r->ok || p->sm.state == KMD_HEALTH_DOWN)
		p->util_avg = -1;

	if (p->sm.state == p->told_state && p->last.admin == p->told_admin &&
	    p->last.weight_pct == p->told_weight_pct && p->last.weight == p->told_weight &&
	    kmd_probe_util(p) == p->told_util)
		return;
	p->told_state = p->sm.state;
	p->told_admin = p->last.admin;
	p->told_weight_pct = p->last.weight_pct;
	p->told_weight = p->last.weight;
	p->told_util = kmd_probe_util(p);
	p->busy++;
	probe_notify(p);
	probe_unbusy(p);
}

void kmd_probe_done(struct kmd_probe *p, bool ok, const char *fmt, ...)
{
	struct kmd_result r = { .ok = ok, .admin = -1, .weight_pct = -1, .weight = -1, .util = -1 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r.why, sizeof(r.why), fmt, ap);
	va_end(ap);
	kmd_probe_done_result(p, &r);
}

/* ---- sockets ---- */

int kmd_sock_mark(int fd, uint32_t mark)
{
	if (!mark)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
		return -errno;
	return 0;
}

int kmd_probe_connect(struct kmd_probe *p, int type, bool *now, char *why, size_t whylen)
{
	const struct kmd_target *t = &p->t;
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int fd, err;

	if (t->addr.family == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr = t->addr.v4;
		s4->sin_port = htons(t->port);
		sl = sizeof(*s4);
	} else if (t->addr.family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = t->addr.v6;
		s6->sin6_port = htons(t->port);
		sl = sizeof(*s6);
	} else {
		snprintf(why, whylen, "socket: no address");
		return -1;
	}
	fd = socket(ss.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
		return -1;
	}
	err = kmd_sock_mark(fd, t->mark);
	if (err) {
		snprintf(why, whylen, "SO_MARK: %s", strerror(-err));
		close(fd);
		return -1;
	}
	if (type == SOCK_STREAM) {
		/* close with a reset: a probe leaves no TIME_WAIT behind, as HAProxy's */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))) {
			snprintf(why, whylen, "SO_LINGER: %s", strerror(errno));
			close(fd);
			return -1;
		}
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) == 0) {
		*now = true;
		return fd;
	}
	if (errno == EINPROGRESS) {
		*now = false;
		return fd;
	}
	kmd_connect_why(p, errno, why, whylen);
	close(fd);
	return -1;
}

void kmd_connect_why(const struct kmd_probe *p, int err, char *why, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	/*
	 * A tunnel probe connects to the VIP and its mark steers it to the backend, but the
	 * route lookup of connect() comes first: with no route to the VIP (an LB without a
	 * default route, in a VRF), nothing leaves. Say so: the errno alone reads as if the
	 * backend were unreachable.
	 */
	if (err == ENETUNREACH && p->check.via == KMD_VIA_TUNNEL &&
	    p->check.kind != KMD_CHECK_EXEC &&
	    inet_ntop(p->t.addr.family, &p->t.addr.v6, a, sizeof(a)))
		snprintf(why, len, "connect: no route to VIP %s (tunnel checks use this host's "
			 "routes: add one, or via: direct)", a);
	else
		snprintf(why, len, "connect: %s", strerror(err));
}

/* ---- reading ---- */

enum kmd_health kmd_probe_state(const struct kmd_probe *p)
{
	return p->sm.state;
}

const struct kmd_result *kmd_probe_last(const struct kmd_probe *p)
{
	return p->has_last ? &p->last : NULL;
}

const struct kmd_check *kmd_probe_check(const struct kmd_probe *p)
{
	return &p->check;
}

const struct kmd_target *kmd_probe_target(const struct kmd_probe *p)
{
	return &p->t;
}

uint64_t kmd_probe_transitions(const struct kmd_probe *p)
{
	return p->sm.transitions;
}

double kmd_util_smooth(double avg, int util)
{
	return avg < 0 ? util : avg + KMD_UTIL_ALPHA * (util - avg);
}

int kmd_probe_util(const struct kmd_probe *p)
{
	return p->util_avg < 0 ? -1 : (int)lround(p->util_avg);
}

void kmd_probe_stats(const struct kmd_probe *p, struct kmd_probe_stats *st)
{
	uint64_t sum = 0;

	st->runs = p->runs;
	st->failures = p->failures;
	for (unsigned int i = 0; i < 10; i++) {
		sum += p->bucket[i];
		st->bucket[i] = sum;
	}
	st->sum_s = p->sum_s;
}

void kmd_hc_for_each(struct kmd_hc *hc, void (*fn)(struct kmd_probe *p, void *arg), void *arg)
{
	struct kmd_probe *p, *next;

	for (p = hc->head; p; p = next) {
		next = p->next;
		fn(p, arg);
	}
}
