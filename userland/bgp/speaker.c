// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev's built-in BGP speaker: sockets, timers, connection collisions, and the
 * Adj-RIB-Out of each session. See speaker.h; the protocol itself is in fsm.c and wire.c.
 *
 * Here: the speaker and its peers, made from the configuration and remade when it
 * changes, stopped, freed and shown. A peer's connections are speaker_conn.c, what it
 * announces speaker_rib.c.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "bgp/speaker_int.h"

/* --- life cycle ---------------------------------------------------------------------- */

static struct bgp_peer *peer_new(struct bgp_speaker *sp, const struct bgp_peer_cfg *cfg)
{
	struct bgp_peer *p = calloc(1, sizeof(*p));
	char a[INET6_ADDRSTRLEN];

	if (!p)
		return NULL;
	p->sp = sp;
	p->cfg = *cfg;
	if (cfg->password) {
		p->password = strdup(cfg->password);
		if (!p->password) {
			free(p);
			return NULL;
		}
	}
	p->cfg.password = p->password;
	addr_str(&cfg->addr, a, sizeof(a));
	snprintf(p->name, sizeof(p->name), "%s", a);
	pconn_init(&p->out, p, false);
	pconn_init(&p->in, p, true);
	ev_init(&p->retry_w, retry_cb);
	p->retry_w.data = p;
	return p;
}

static void peer_start(struct bgp_peer *p)
{
	if (!p->cfg.passive)
		peer_connect(p);
}

/* End both connections: with a Cease (@cease) or without a word (graceful restart). */
static void peer_end(struct bgp_peer *p, bool cease, uint8_t subcode, const char *msg)
{
	struct pconn *pcs[2] = { &p->out, &p->in };
	int i;

	ev_timer_stop(p->sp->loop, &p->retry_w);
	for (i = 0; i < 2; i++) {
		struct pconn *pc = pcs[i];

		if (pc->fd < 0)
			continue;
		if (pc->connecting || pc->c.state == BGP_IDLE)
			pconn_close_fd(pc);
		else if (cease)
			bgp_conn_cease(&pc->c, subcode, msg);
		else
			bgp_conn_drop(&pc->c, "closed for a graceful restart");
	}
	ev_timer_stop(p->sp->loop, &p->retry_w);
}

/* --- BFD ---------------------------------------------------------------------------- */

static struct bgp_peer *peer_by_addr(struct bgp_speaker *sp, const struct kmg_addr *a)
{
	unsigned int i;

	for (i = 0; i < sp->npeers; i++)
		if (kmg_addr_equal(&sp->peers[i]->cfg.addr, a))
			return sp->peers[i];
	return NULL;
}

/*
 * A flapping peer logs at most BFD_LOG_BURST lines a neighbour in BFD_LOG_WINDOW seconds; the
 * next line after says how many were not. The state and the resets are never limited.
 */
bool bfd_log_ok(struct bgp_speaker *sp, struct bgp_peer *p)
{
	ev_tstamp now = ev_now(sp->loop);

	if (!p->bfd_log_n || now - p->bfd_log_t0 >= BFD_LOG_WINDOW) {
		p->bfd_log_t0 = now;
		p->bfd_log_n = 0;
	}
	if (p->bfd_log_n >= BFD_LOG_BURST) {
		if (p->bfd_log_dropped < UINT_MAX)
			p->bfd_log_dropped++;
		return false;
	}
	p->bfd_log_n++;
	return true;
}

static void bfd_log(struct bgp_speaker *sp, struct bgp_peer *p, int prio, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void bfd_log(struct bgp_speaker *sp, struct bgp_peer *p, int prio, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!bfd_log_ok(sp, p))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->bfd_log_dropped)
		kmd_log(prio, "bgp: %s: %s (%u BFD messages not logged before: flapping)", p->name,
			msg, p->bfd_log_dropped);
	else
		kmd_log(prio, "bgp: %s: %s", p->name, msg);
	p->bfd_log_dropped = 0;
}

/*
 * On the loop: a BFD session changed state (bfd_io.c's thread told us): what it was when we
 * last heard, what it is, and how often it went from Up to Down in between.
 */
static void bfd_notify(void *arg, const struct bfd_event *ev)
{
	struct bgp_speaker *sp = arg;
	struct bgp_peer *p = peer_by_addr(sp, &ev->peer);

	if (!p || !p->bfd_set)
		return;
	p->bfd_state = ev->state;
	if (ev->state == BFD_UP && !ev->downs)
		bfd_log(sp, p, LOG_NOTICE, "BFD up");
	else if (ev->state == BFD_UP)
		bfd_log(sp, p, LOG_WARNING, "BFD up again, after going down %u time%s",
			ev->downs, ev->downs == 1 ? "" : "s");
	else
		bfd_log(sp, p, ev->old == BFD_UP || ev->downs ? LOG_WARNING : LOG_INFO,
			"BFD %s%s%s%s%s", bfd_state_name(ev->state), ev->diag ? " (" : "",
			ev->diag ? bfd_diag_name(ev->diag) : "", ev->diag ? ")" : "",
			ev->remote_state == BFD_ADMIN_DOWN ? ", the neighbour's AdminDown" : "");
	/*
	 * RFC 5882 4.3: a path that failed takes the session down at once, instead of the hold
	 * time later, even if BFD is up again by now; the peer's AdminDown (it stopped BFD, not
	 * forwarding) does not (bfd_io.c does not count it in downs).
	 */
	if (!ev->downs || !p->est)
		return;
	bfd_log(sp, p, LOG_WARNING, "BFD Down: resetting the session");
	bgp_conn_cease(&p->est->c, BGP_CEASE_BFD_DOWN, NULL);
	if (ev->state == BFD_UP)
		snprintf(p->last_error, sizeof(p->last_error),
			 "BFD Down, and up again since (sent Cease/BFD Down)");
	else
		snprintf(p->last_error, sizeof(p->last_error), "BFD Down: %s (sent Cease/BFD Down)",
			 bfd_diag_name(ev->diag));
}

/* The address BFD sends from: the listening address when it is a specific one. */
static const struct kmg_addr *bfd_local(const struct bgp_speaker *sp, const struct bgp_peer *p)
{
	if (sp->cfg.listen.family == p->cfg.addr.family && !kmg_addr_is_unspec(&sp->cfg.listen))
		return &sp->cfg.listen;
	return NULL;
}

void bfd_sync(struct bgp_speaker *sp)
{
	unsigned int i;
	bool want = false;

	for (i = 0; i < sp->npeers; i++)
		want |= sp->peers[i]->cfg.bfd;
	if (want && !sp->bfd && !sp->stopped) {
		sp->bfd = bfd_io_new_port(sp->loop, bfd_notify, sp,
					   sp->cfg.bfd_port ? sp->cfg.bfd_port : BFD_PORT,
					   sp->bfd_err, sizeof(sp->bfd_err));
		if (!sp->bfd)
			kmd_log(LOG_ERR, "bgp: %s: the sessions run without BFD", sp->bfd_err);
		else
			sp->bfd_err[0] = 0;
	}
	if (!sp->bfd)
		return;
	for (i = 0; i < sp->npeers; i++) {
		struct bgp_peer *p = sp->peers[i];

		if (!p->cfg.bfd) {
			if (p->bfd_set)
				bfd_io_del(sp->bfd, &p->cfg.addr);
			p->bfd_set = false;
			p->bfd_err[0] = 0;
			continue;
		}
		if (bfd_io_set(sp->bfd, &p->cfg.addr, bfd_local(sp, p), &p->cfg.bfd_params,
			       p->bfd_err, sizeof(p->bfd_err))) {
			kmd_log(LOG_ERR, "bgp: %s: %s", p->name, p->bfd_err);
			continue;
		}
		if (!p->bfd_set)
			p->bfd_state = BFD_DOWN;
		p->bfd_set = true;
		p->bfd_err[0] = 0;
	}
}

static void peer_free(struct bgp_peer *p)
{
	if (!p)
		return;
	/* nothing of it may stay in the loop */
	if (p->out.fd >= 0)
		pconn_close_fd(&p->out);
	if (p->in.fd >= 0)
		pconn_close_fd(&p->in);
	pconn_stop_watchers(&p->out);
	pconn_stop_watchers(&p->in);
	ev_timer_stop(p->sp->loop, &p->retry_w);
	free(p->out.wbuf);
	free(p->in.wbuf);
	free(p->sent);
	free(p->password);
	free(p);
}

struct bgp_speaker *bgp_speaker_new(struct ev_loop *loop, const struct bgp_speaker_cfg *cfg,
				    bool restarting, char *err, size_t errlen)
{
	struct bgp_speaker *sp = calloc(1, sizeof(*sp));
	unsigned int i;

	if (!sp)
		goto nomem;
	sp->loop = loop;
	sp->cfg = *cfg;
	sp->cfg.peers = NULL;
	sp->restarting = restarting;
	sp->lfd = -1;
	sp->peers = calloc(cfg->npeers ? cfg->npeers : 1, sizeof(*sp->peers));
	if (!sp->peers)
		goto nomem;
	for (sp->npeers = 0; sp->npeers < cfg->npeers; sp->npeers++) {
		sp->peers[sp->npeers] = peer_new(sp, &cfg->peers[sp->npeers]);
		if (!sp->peers[sp->npeers])
			goto nomem;
	}
	if (listen_start(sp, err, errlen))
		goto fail;
	for (i = 0; i < sp->npeers; i++)
		peer_start(sp->peers[i]);
	bfd_sync(sp);
	return sp;
nomem:
	snprintf(err, errlen, "bgp: out of memory");
fail:
	if (sp) {
		for (i = 0; i < sp->npeers; i++)
			peer_free(sp->peers[i]);
		free(sp->peers);
		free(sp);
	}
	return NULL;
}

static bool peer_cfg_equal(const struct bgp_peer_cfg *a, const struct bgp_peer_cfg *b)
{
	return kmg_addr_equal(&a->addr, &b->addr) && a->port == b->port && a->asn == b->asn &&
	       a->hold_time == b->hold_time && a->passive == b->passive && a->ttl == b->ttl &&
	       a->ttl_security == b->ttl_security && a->ext_next_hop == b->ext_next_hop &&
	       !strcmp(a->password ? a->password : "", b->password ? b->password : "") &&
	       a->next_hop.family == b->next_hop.family &&
	       (!a->next_hop.family || kmg_addr_equal(&a->next_hop, &b->next_hop));
}

int bgp_speaker_reconfigure(struct bgp_speaker *sp, const struct bgp_speaker_cfg *cfg,
			    char *err, size_t errlen)
{
	bool global = sp->cfg.asn != cfg->asn ||
		      sp->cfg.router_id.s_addr != cfg->router_id.s_addr ||
		      sp->cfg.listen.family != cfg->listen.family ||
		      (cfg->listen.family && !kmg_addr_equal(&sp->cfg.listen, &cfg->listen)) ||
		      sp->cfg.listen_port != cfg->listen_port || sp->cfg.gr_time != cfg->gr_time;
	bool resync = sp->cfg.local_pref != cfg->local_pref;
	unsigned int nold = sp->npeers, i, j;
	struct bgp_peer **peers;
	int *from;

	peers = calloc(cfg->npeers ? cfg->npeers : 1, sizeof(*peers));
	from = malloc((cfg->npeers ? cfg->npeers : 1) * sizeof(*from));
	if (!peers || !from)
		goto nomem;
	/* a neighbour whose settings did not change keeps its session (the same object) */
	for (j = 0; j < cfg->npeers; j++) {
		from[j] = -1;
		for (i = 0; i < nold && !global; i++) {
			bool taken = false;
			unsigned int k;

			for (k = 0; k < j; k++)
				taken |= from[k] == (int)i;
			if (!taken && peer_cfg_equal(&sp->peers[i]->cfg, &cfg->peers[j])) {
				from[j] = i;
				break;
			}
		}
		if (from[j] < 0 && !(peers[j] = peer_new(sp, &cfg->peers[j])))
			goto nomem;
	}
	/* a neighbour remade at an address that had BFD keeps its session and state */
	for (j = 0; j < cfg->npeers; j++) {
		if (from[j] >= 0)
			continue;
		for (i = 0; i < nold; i++) {
			bool kept = false;
			unsigned int k;

			for (k = 0; k < cfg->npeers; k++)
				kept |= from[k] == (int)i;
			if (!kept && sp->peers[i]->bfd_set &&
			    kmg_addr_equal(&sp->peers[i]->cfg.addr, &cfg->peers[j].addr)) {
				peers[j]->bfd_set = true;
				peers[j]->bfd_state = sp->peers[i]->bfd_state;
			}
		}
	}
	/* committed: end the sessions of what went or changed */
	for (i = 0; i < nold; i++) {
		bool kept = false, readdressed = false;

		for (j = 0; j < cfg->npeers; j++) {
			kept |= from[j] == (int)i;
			readdressed |= kmg_addr_equal(&sp->peers[i]->cfg.addr, &cfg->peers[j].addr);
		}
		if (kept)
			continue;
		/* a neighbour of the same address takes its BFD session over (bfd_sync) */
		if (sp->bfd && sp->peers[i]->bfd_set && !readdressed)
			bfd_io_del(sp->bfd, &sp->peers[i]->cfg.addr);
		peer_end(sp->peers[i], true, global || readdressed ?
			 BGP_CEASE_OTHER_CONFIG_CHANGE : BGP_CEASE_PEER_DECONFIGURED, NULL);
		if (sp->lfd >= 0 && sp->peers[i]->password && !global &&
		    listens_for(sp->cfg.listen.family, sp->peers[i]->cfg.addr.family))
			set_md5(sp->lfd, sp->cfg.listen.family, &sp->peers[i]->cfg.addr, NULL);
		peer_free(sp->peers[i]);
	}
	for (j = 0; j < cfg->npeers; j++) {
		if (from[j] < 0)
			continue;
		peers[j] = sp->peers[from[j]];
		/* BFD settings change without a new BGP session */
		peers[j]->cfg.bfd = cfg->peers[j].bfd;
		peers[j]->cfg.bfd_params = cfg->peers[j].bfd_params;
	}
	free(sp->peers);
	sp->peers = peers;
	sp->npeers = cfg->npeers;
	sp->cfg = *cfg;
	sp->cfg.peers = NULL;
	if (global) {
		listen_stop(sp);
		if (listen_start(sp, err, errlen))
			kmd_log(LOG_ERR, "%s", err);
	} else {
		listen_gtsm(sp);
	}
	for (j = 0; j < sp->npeers; j++) {
		if (from[j] < 0) {
			if (sp->lfd >= 0 && !global && sp->peers[j]->password &&
			    listens_for(sp->cfg.listen.family, sp->peers[j]->cfg.addr.family))
				set_md5(sp->lfd, sp->cfg.listen.family, &sp->peers[j]->cfg.addr,
					sp->peers[j]->password);
			peer_start(sp->peers[j]);
		} else if (resync) {
			peer_sync(sp->peers[j], false);
		}
	}
	bfd_sync(sp);
	free(from);
	return 0;
nomem:
	for (j = 0; peers && from && j < cfg->npeers; j++)
		peer_free(peers[j]);
	free(peers);
	free(from);
	snprintf(err, errlen, "bgp: out of memory");
	return -1;
}

void bgp_speaker_stop(struct bgp_speaker *sp, const char *msg)
{
	unsigned int i;

	sp->stopped = true;
	listen_stop(sp);
	for (i = 0; i < sp->npeers; i++)
		peer_end(sp->peers[i], true, BGP_CEASE_ADMIN_SHUTDOWN, msg);
}

void bgp_speaker_drop(struct bgp_speaker *sp)
{
	unsigned int i;

	sp->stopped = true;
	listen_stop(sp);
	for (i = 0; i < sp->npeers; i++)
		peer_end(sp->peers[i], false, 0, NULL);
}

void bgp_speaker_free(struct bgp_speaker *sp)
{
	unsigned int i;

	if (!sp)
		return;
	if (!sp->stopped)
		bgp_speaker_drop(sp);
	/* every BFD session says AdminDown: the peers keep their sessions (graceful restart) */
	bfd_io_free(sp->bfd);
	for (i = 0; i < sp->npeers; i++)
		peer_free(sp->peers[i]);
	free(sp->peers);
	free(sp->routes);
	free(sp);
}

unsigned int bgp_speaker_npeers(const struct bgp_speaker *sp)
{
	return sp ? sp->npeers : 0;
}

void bgp_speaker_peer_info(const struct bgp_speaker *sp, unsigned int i,
			   struct bgp_peer_info *info)
{
	const struct bgp_peer *p = sp->peers[i];
	const struct pconn *best = p->est;
	int k;

	memset(info, 0, sizeof(*info));
	info->cfg = &p->cfg;
	if (!best)
		best = p->out.fd >= 0 && (p->in.fd < 0 || p->out.c.state >= p->in.c.state) ?
		       &p->out : p->in.fd >= 0 ? &p->in : NULL;
	if (!best)
		info->state = sp->stopped ? BGP_IDLE : p->cfg.passive ? BGP_ACTIVE :
			      ev_is_active(&p->retry_w) ? BGP_ACTIVE : BGP_IDLE;
	else if (best->connecting)
		info->state = BGP_CONNECT;
	else
		info->state = best->c.state;
	if (p->est) {
		info->uptime_s = ev_now(sp->loop) - p->up_since;
		info->hold_time = p->est->c.hold_time;
		info->v4 = p->est->c.v4;
		info->v6 = p->est->c.v6;
		info->announced = p->nsent;
		for (k = 1; k <= 5; k++) {
			info->msgs_in += p->est->c.st.msgs_in[k];
			info->msgs_out += p->est->c.st.msgs_out[k];
		}
		info->updates_in = p->est->c.st.msgs_in[BGP_UPDATE];
		info->updates_out = p->est->c.st.msgs_out[BGP_UPDATE];
	}
	info->established = p->established;
	info->last_error = p->last_error;
	info->bfd_error = p->bfd_err[0] ? p->bfd_err : p->cfg.bfd && !sp->bfd ? sp->bfd_err : "";
	if (p->cfg.bfd && p->bfd_set && sp->bfd)
		info->has_bfd = bfd_io_info(sp->bfd, &p->cfg.addr, &info->bfd);
}
