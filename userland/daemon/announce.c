// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: announcing the VIPs, in either BGP mode. See bgp.h.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session.h"
#include "lib/err.h"
#include "bgp/speaker.h"
#include "daemon/announce.h"
#include "daemon/daemon.h"
#include "lib/log.h"
#include "bgp/routes.h"
#include "daemon/state.h"

struct kmd_bgpd {
	enum kmd_bgp_mode mode;
	struct bgp_speaker *sp;
	struct kmd_routes *routes;
	uint32_t table;			/* mode routes: what routes was opened with */
	uint8_t proto;
	/* the host's self-check */
	ev_timer self_w;
	bool kernel_ok;
	char host_why[160];
	bool host_ok;
	/* the policy's last answer, and what was applied */
	struct bgp_route *r;
	unsigned int nr;
	bool lame_duck;			/* withdrawn for good */
	ev_timer shut_w;		/* lame duck: graceful shutdown, then withdraw */
	char routes_err[256];		/* mode routes: the last sync's error */
	struct bgp_prefix *synced;	/* mode routes: the set of the last sync */
	unsigned int nsynced;
	ev_tstamp synced_at;
	uint64_t changes;		/* announce/withdraw decisions that changed a prefix */
};

static struct kmd_bgpd *B(struct kmd *d)
{
	return d->bgp;
}

/* --- the host's self-check ------------------------------------------------------------ */

static bool kernel_answers(struct kmd *d, char *why, size_t len)
{
	struct nlmsghdr *nlh;
	void *buf = kmg_req_buf(NULL);
	int ret;

	if (!buf) {
		snprintf(why, len, "out of memory");
		return false;
	}
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
	ret = kmg_ctx_talk(&d->ctx, nlh, NULL, NULL, NULL);
	free(buf);
	if (ret) {
		snprintf(why, len, "the kernel module does not answer (%s)", kmg_errmsg());
		kmg_err_clear();
		return false;
	}
	return true;
}

/* If backends are checked through the tunnel, one such check must pass: the path works. */
struct tunnel_tally {
	unsigned int tunnel, up;
};

static void tally_probe(struct kmd_probe *p, void *arg)
{
	struct tunnel_tally *t = arg;

	if (kmd_probe_check(p)->via != KMD_VIA_TUNNEL)
		return;
	t->tunnel++;
	if (kmd_probe_state(p) == KMD_HEALTH_UP)
		t->up++;
}

static void self_check(struct kmd *d)
{
	struct kmd_bgpd *b = B(d);
	struct tunnel_tally t = { 0 };
	char why[160];

	b->kernel_ok = kernel_answers(d, why, sizeof(why));
	if (!b->kernel_ok) {
		snprintf(b->host_why, sizeof(b->host_why), "%s", why);
		b->host_ok = false;
		return;
	}
	kmd_hc_for_each(d->hc, tally_probe, &t);
	if (t.tunnel && !t.up) {
		snprintf(b->host_why, sizeof(b->host_why),
			 "self-check: none of %u tunnel checks passes", t.tunnel);
		b->host_ok = false;
		return;
	}
	b->host_ok = true;
	b->host_why[0] = 0;
}

static void self_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kmd *d = w->data;

	self_check(d);
	kmd_bgp_update(d);
}

/* --- policy -------------------------------------------------------------------------- */

/*
 * For BGP a service is healthy if its quorum holds (or it fails open) and it has a backend
 * to send to: a VIP whose services have no healthy backend is withdrawn, whatever the
 * quorum's action says about the kernel's table.
 */
static bool svc_serving(const struct kmd_svc *s, char *why, size_t len)
{
	/* the counts of the last quorum evaluation (every reconcile pass) */
	snprintf(why, len, "%u of %u backends up%s", s->nup, s->nconfigured,
		 s->below_quorum ? ", below quorum" : "");
	if (s->below_quorum && s->conf->quorum.action == KMD_QUORUM_FAIL_OPEN)
		return s->nconfigured > 0;
	return s->healthy && s->nup > 0;
}

static struct bgp_policy_attrs policy_attrs(const struct kmd_bgp_attrs *a)
{
	return (struct bgp_policy_attrs){
		.communities = a->communities, .ncommunities = a->ncommunities,
		.large = a->large, .nlarge = a->nlarge, .has_med = a->has_med, .med = a->med,
	};
}

static int evaluate(struct kmd *d, struct bgp_route **out, unsigned int *nout)
{
	const struct kmd_bgp *cb = &d->cfg->bgp;
	struct kmd_bgpd *b = B(d);
	struct bgp_policy_svc *in;
	struct bgp_policy_attrs g = policy_attrs(&cb->attrs);
	struct bgp_policy_host h = {
		.ok = b->host_ok, .why = b->host_why, .lame_duck = b->lame_duck,
	};
	char (*names)[64], (*whys)[64];
	unsigned int i;
	int ret;

	in = calloc(d->nsvc ? d->nsvc : 1, sizeof(*in));
	names = calloc(d->nsvc ? d->nsvc : 1, sizeof(*names));
	whys = calloc(d->nsvc ? d->nsvc : 1, sizeof(*whys));
	if (!in || !names || !whys) {
		ret = -1;
		goto out;
	}
	for (i = 0; i < d->nsvc; i++) {
		const struct kmd_svc *s = &d->svc[i];
		const struct kmd_service *c = s->conf;

		in[i].family = c->svc.key.addr.family;
		if (in[i].family == AF_INET)
			in[i].v4 = c->svc.key.addr.v4;
		else
			in[i].v6 = c->svc.key.addr.v6;
		in[i].name = kmd_svc_name(s, names[i], sizeof(names[i]));
		in[i].healthy = svc_serving(s, whys[i], sizeof(whys[i]));
		in[i].why = whys[i];
		in[i].announce = c->bgp.announce;
		in[i].attrs = policy_attrs(&c->bgp.attrs);
	}
	ret = bgp_policy_eval(in, d->nsvc, &g, &h, out, nout);
out:
	free(in);
	free(names);
	free(whys);
	return ret;
}

/* Log what changed between the last answer and @r. */
static void log_changes(struct kmd_bgpd *b, const struct bgp_route *r, unsigned int n)
{
	unsigned int i, j;
	char p[64];

	for (i = 0; i < n; i++) {
		bool was = false;

		for (j = 0; j < b->nr; j++)
			if (!bgp_prefix_cmp(&b->r[j].pfx, &r[i].pfx)) {
				was = b->r[j].announce;
				break;
			}
		if (was == r[i].announce)
			continue;
		b->changes++;
		/* a withdrawn route's reason starts with "withdrawn: " */
		kmd_log(r[i].announce ? LOG_NOTICE : LOG_WARNING, "bgp: %s %s%s",
			bgp_prefix_str(&r[i].pfx, p, sizeof(p)),
			r[i].announce ? "announced: " : "", r[i].why);
	}
	for (j = 0; j < b->nr; j++) {
		for (i = 0; i < n && bgp_prefix_cmp(&b->r[j].pfx, &r[i].pfx); i++)
			;
		if (i == n && b->r[j].announce) {
			b->changes++;
			kmd_log(LOG_NOTICE, "bgp: %s withdrawn: no longer configured",
				bgp_prefix_str(&b->r[j].pfx, p, sizeof(p)));
		}
	}
}

static void apply_routes(struct kmd *d)
{
	struct kmd_bgpd *b = B(d);
	struct bgp_prefix *pfx;
	unsigned int i, n = 0;
	char err[256];

	if (!b->routes)
		return;
	pfx = calloc(b->nr ? b->nr : 1, sizeof(*pfx));
	if (!pfx)
		return;
	for (i = 0; i < b->nr; i++)
		if (b->r[i].announce)
			pfx[n++] = b->r[i].pfx;
	/*
	 * A sync dumps the table: only when the set changed, the last one failed, or every
	 * KMD_RESYNC_S to put back what someone removed by hand.
	 */
	for (i = 0; n == b->nsynced && i < n && !bgp_prefix_cmp(&pfx[i], &b->synced[i]); i++)
		;
	/* a failing sync (another protocol's route in the way) is retried every 5 s */
	if (n == b->nsynced && i == n &&
	    ev_now(d->loop) - b->synced_at < (b->routes_err[0] ? 5. : KMD_RESYNC_S)) {
		free(pfx);
		return;
	}
	err[0] = 0;
	if (kmd_routes_sync(b->routes, pfx, n, err, sizeof(err))) {
		if (strcmp(err, b->routes_err))
			kmd_err("bgp: routes: %s", err);
	}
	snprintf(b->routes_err, sizeof(b->routes_err), "%s", err);
	free(b->synced);
	b->synced = pfx;
	b->nsynced = n;
	b->synced_at = ev_now(d->loop);
}

void kmd_bgp_update(struct kmd *d)
{
	struct kmd_bgpd *b = B(d);
	struct bgp_route *r;
	unsigned int n;

	if (!b)
		return;
	if (evaluate(d, &r, &n)) {
		kmd_err("bgp: out of memory evaluating the announcements");
		return;
	}
	log_changes(b, r, n);
	free(b->r);
	b->r = r;
	b->nr = n;
	if (b->sp)
		bgp_speaker_set_routes(b->sp, r, n);
	/* mode routes: a sync with nothing to change only reads the table */
	apply_routes(d);
}

/* --- life cycle ---------------------------------------------------------------------- */

static struct bgp_peer_cfg *speaker_cfg(const struct kmd_bgp *c, struct bgp_speaker_cfg *sc)
{
	struct bgp_peer_cfg *pc = calloc(c->nneighbors ? c->nneighbors : 1, sizeof(*pc));
	unsigned int i;

	if (!pc)
		return NULL;
	memset(sc, 0, sizeof(*sc));
	sc->asn = c->asn;
	sc->router_id = c->router_id;
	sc->listen = c->listen;
	sc->listen_port = c->listen_port;
	sc->gr_time = c->gr_time_s;
	sc->local_pref = c->local_pref;
	for (i = 0; i < c->nneighbors; i++) {
		const struct kmd_bgp_neighbor *nb = &c->neighbors[i];

		pc[i].addr = nb->addr;
		pc[i].port = nb->port;
		pc[i].asn = nb->asn;
		pc[i].hold_time = nb->hold_time_s;
		pc[i].password = nb->password;
		pc[i].passive = nb->passive;
		pc[i].ttl = nb->multihop;
		pc[i].ttl_security = nb->ttl_security;
		pc[i].ext_next_hop = nb->ext_next_hop;
		pc[i].next_hop = nb->next_hop;
		pc[i].bfd = nb->bfd;
		pc[i].bfd_params = (struct bfd_params){
			.min_tx_us = nb->bfd_min_tx_ms * 1000,
			.min_rx_us = nb->bfd_min_rx_ms * 1000,
			.mult = (uint8_t)nb->bfd_mult,
		};
	}
	sc->peers = pc;
	sc->npeers = c->nneighbors;
	return pc;
}

static int open_mode(struct kmd *d, struct kmd_bgpd *b, bool restarting, char **why)
{
	const struct kmd_bgp *c = &d->cfg->bgp;
	char err[256] = "";

	b->mode = c->mode;
	if (c->mode == KMD_BGP_ROUTES) {
		b->table = c->routes_table;
		b->proto = c->routes_proto;
		b->routes = kmd_routes_open(c->routes_table, c->routes_proto, err, sizeof(err));
	} else {
		struct bgp_speaker_cfg sc;
		struct bgp_peer_cfg *pc = speaker_cfg(c, &sc);

		if (pc)
			b->sp = bgp_speaker_new(d->loop, &sc, restarting, err, sizeof(err));
		else
			snprintf(err, sizeof(err), "out of memory");
		free(pc);
	}
	if (b->routes || b->sp)
		return 0;
	if (asprintf(why, "bgp: %s", err) < 0)
		*why = NULL;
	return -1;
}

static void close_mode(struct kmd_bgpd *b, bool graceful_restart)
{
	char err[256];

	if (b->sp) {
		if (graceful_restart)
			bgp_speaker_drop(b->sp);
		else
			bgp_speaker_stop(b->sp, "kmaglev daemon shutting down");
		bgp_speaker_free(b->sp);
		b->sp = NULL;
	}
	if (b->routes) {
		if (!graceful_restart && kmd_routes_flush(b->routes, err, sizeof(err)))
			kmd_err("bgp: routes: %s", err);
		kmd_routes_close(b->routes);
		b->routes = NULL;
	}
}

int kmd_bgp_start(struct kmd *d, bool restarting, char **why)
{
	struct kmd_bgpd *b;

	*why = NULL;
	if (!d->cfg->bgp.present)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b) {
		*why = strdup("bgp: out of memory");
		return -1;
	}
	if (open_mode(d, b, restarting, why)) {
		free(b);
		return -1;
	}
	/* started by a reload in lame duck: withdrawn from the start */
	b->lame_duck = d->draining;
	d->bgp = b;
	ev_timer_init(&b->self_w, self_cb, 0., KMD_BGP_SELF_CHECK_S);
	b->self_w.data = d;
	self_check(d);
	kmd_bgp_update(d);
	ev_timer_start(d->loop, &b->self_w);
	kmd_info("bgp: mode %s%s", d->cfg->bgp.mode == KMD_BGP_ROUTES ? "routes" : "builtin",
		 restarting ? " (graceful restart)" : "");
	return 0;
}

/* Stop @old after a new kmd_bgpd took over d->bgp (or none did). */
static void swap_stop(struct kmd *d, struct kmd_bgpd *old)
{
	struct kmd_bgpd *cur = d->bgp;

	d->bgp = old;
	kmd_bgp_stop(d, false);
	d->bgp = cur;
}

int kmd_bgp_reconfigure(struct kmd *d, char **why)
{
	const struct kmd_bgp *c = &d->cfg->bgp;
	struct kmd_bgpd *b = B(d);
	char err[256] = "";

	*why = NULL;
	if (!b) {
		return kmd_bgp_start(d, false, why);
	}
	if (!c->present || c->mode != b->mode ||
	    (b->routes && (c->routes_table != b->table || c->routes_proto != b->proto))) {
		/* the new mode first: if it cannot start, the old one stays */
		d->bgp = NULL;
		if (c->present && kmd_bgp_start(d, false, why)) {
			d->bgp = b;
			return -1;
		}
		swap_stop(d, b);
		return 0;
	}
	if (b->sp) {
		struct bgp_speaker_cfg sc;
		struct bgp_peer_cfg *pc = speaker_cfg(c, &sc);

		if (!pc || bgp_speaker_reconfigure(b->sp, &sc, err, sizeof(err))) {
			free(pc);
			if (asprintf(why, "bgp: %s", pc ? err : "out of memory") < 0)
				*why = NULL;
			return -1;
		}
		free(pc);
	}
	kmd_bgp_update(d);
	return 0;
}

static void shut_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kmd *d = w->data;
	struct kmd_bgpd *b = B(d);

	b->lame_duck = true;
	kmd_info("bgp: lame duck: withdrawing every VIP");
	kmd_bgp_update(d);
}

void kmd_bgp_lame_duck(struct kmd *d)
{
	struct kmd_bgpd *b = B(d);
	double t;

	if (!b || b->lame_duck || ev_is_active(&b->shut_w))
		return;
	t = d->cfg->bgp.shutdown_time_ms / 1000.;
	b->shut_w.data = d;	/* shut_cb's, called now or by the timer (ev_timer_init keeps it) */
	if (!b->sp || t <= 0) {
		shut_cb(d->loop, &b->shut_w, 0);
		return;
	}
	kmd_info("bgp: lame duck: GRACEFUL_SHUTDOWN for %.1fs, then withdraw", t);
	bgp_speaker_graceful_shutdown(b->sp, true);
	ev_timer_init(&b->shut_w, shut_cb, t, 0.);
	ev_timer_start(d->loop, &b->shut_w);
}

void kmd_bgp_stop(struct kmd *d, bool graceful_restart)
{
	struct kmd_bgpd *b = B(d);

	if (!b)
		return;
	ev_timer_stop(d->loop, &b->self_w);
	ev_timer_stop(d->loop, &b->shut_w);
	close_mode(b, graceful_restart);
	free(b->r);
	free(b->synced);
	free(b);
	d->bgp = NULL;
}

/* --- show, metrics ------------------------------------------------------------------- */

static struct json_object *jaddr(const struct kmg_addr *a)
{
	char s[INET6_ADDRSTRLEN];

	return json_object_new_string(inet_ntop(a->family, &a->v6, s, sizeof(s)) ? s : "?");
}

static struct json_object *route_json(const struct bgp_route *r)
{
	struct json_object *o = json_object_new_object(), *a;
	unsigned int i;
	char s[64];

	json_object_object_add(o, "prefix",
				json_object_new_string(bgp_prefix_str(&r->pfx, s, sizeof(s))));
	json_object_object_add(o, "announced", json_object_new_boolean(r->announce));
	json_object_object_add(o, "why", json_object_new_string(r->why));
	a = json_object_new_array();
	for (i = 0; i < r->ncommunities; i++) {
		snprintf(s, sizeof(s), "%u:%u", r->communities[i] >> 16, r->communities[i] & 0xffff);
		json_object_array_add(a, json_object_new_string(s));
	}
	json_object_object_add(o, "communities", a);
	a = json_object_new_array();
	for (i = 0; i < r->nlarge; i++) {
		snprintf(s, sizeof(s), "%u:%u:%u", r->large[i].global, r->large[i].local1,
			 r->large[i].local2);
		json_object_array_add(a, json_object_new_string(s));
	}
	json_object_object_add(o, "large-communities", a);
	json_object_object_add(o, "med", r->has_med ? json_object_new_int64(r->med) : NULL);
	return o;
}

/*
 * A neighbour's BFD: what is configured, and the session: its state and diagnostic, the
 * peer's, the discriminators, the intervals in use (tx: what we send at; detect: the
 * detection time) and what the peer asked for, the counters.
 */
static struct json_object *bfd_json(const struct bgp_peer_info *pi)
{
	const struct bfd_params *c = &pi->cfg->bfd_params;
	const struct bfd_sess *s = &pi->bfd.s;
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "min-tx-ms", json_object_new_double(c->min_tx_us / 1000.));
	json_object_object_add(o, "min-rx-ms", json_object_new_double(c->min_rx_us / 1000.));
	json_object_object_add(o, "multiplier", json_object_new_int(c->mult));
	json_object_object_add(o, "error", pi->bfd_error[0] ?
			       json_object_new_string(pi->bfd_error) : NULL);
	if (!pi->has_bfd) {
		json_object_object_add(o, "state", NULL);
		return o;
	}
	json_object_object_add(o, "state", json_object_new_string(bfd_state_name(s->state)));
	json_object_object_add(o, "diagnostic", json_object_new_string(bfd_diag_name(s->diag)));
	json_object_object_add(o, "state-s", json_object_new_double(pi->bfd.state_s));
	json_object_object_add(o, "local-discriminator", json_object_new_int64(s->local_disc));
	json_object_object_add(o, "remote-discriminator", json_object_new_int64(s->remote_disc));
	json_object_object_add(o, "remote-state",
			       json_object_new_string(bfd_state_name(s->remote_state)));
	json_object_object_add(o, "remote-diagnostic",
			       json_object_new_string(bfd_diag_name(s->remote_diag)));
	json_object_object_add(o, "remote-min-tx-ms",
			       json_object_new_double(s->remote_min_tx_us / 1000.));
	json_object_object_add(o, "remote-min-rx-ms",
			       json_object_new_double(s->remote_min_rx_us / 1000.));
	json_object_object_add(o, "remote-multiplier", json_object_new_int(s->remote_mult));
	json_object_object_add(o, "tx-interval-ms",
			       json_object_new_double(bfd_sess_tx_interval(s) / 1000.));
	json_object_object_add(o, "detect-time-ms",
			       json_object_new_double(bfd_sess_detect_time(s) / 1000.));
	json_object_object_add(o, "polling", json_object_new_boolean(s->polling));
	json_object_object_add(o, "source-port", json_object_new_int(pi->bfd.src_port));
	json_object_object_add(o, "packets-in", json_object_new_int64(s->rx));
	json_object_object_add(o, "packets-out", json_object_new_int64(s->tx));
	json_object_object_add(o, "up", json_object_new_int64(s->ups));
	json_object_object_add(o, "down", json_object_new_int64(s->downs));
	json_object_object_add(o, "send-error", pi->bfd.err[0] ?
			       json_object_new_string(pi->bfd.err) : NULL);
	return o;
}

struct json_object *kmd_bgp_json(struct kmd *d)
{
	const struct kmd_bgp *c = &d->cfg->bgp;
	struct kmd_bgpd *b = B(d);
	struct json_object *o = json_object_new_object(), *a;
	char s[INET6_ADDRSTRLEN];
	unsigned int i;

	if (!b) {
		json_object_object_add(o, "mode", NULL);
		return o;
	}
	json_object_object_add(o, "mode", json_object_new_string(b->mode == KMD_BGP_ROUTES ?
								 "routes" : "builtin"));
	if (b->mode == KMD_BGP_BUILTIN) {
		json_object_object_add(o, "asn", json_object_new_int64(c->asn));
		json_object_object_add(o, "router-id", json_object_new_string(
			inet_ntop(AF_INET, &c->router_id, s, sizeof(s))));
		json_object_object_add(o, "graceful-shutdown",
				       json_object_new_boolean(b->sp && bgp_speaker_gshut(b->sp)));
	} else {
		json_object_object_add(o, "table", json_object_new_int64(c->routes_table));
		json_object_object_add(o, "protocol", json_object_new_int(c->routes_proto));
		json_object_object_add(o, "error", b->routes_err[0] ?
				       json_object_new_string(b->routes_err) : NULL);
	}
	json_object_object_add(o, "host-healthy", json_object_new_boolean(b->host_ok));
	json_object_object_add(o, "host-why", b->host_ok ? NULL :
			       json_object_new_string(b->host_why));
	json_object_object_add(o, "lame-duck", json_object_new_boolean(b->lame_duck));
	a = json_object_new_array();
	for (i = 0; b->sp && i < bgp_speaker_npeers(b->sp); i++) {
		struct json_object *p = json_object_new_object(), *f;
		struct bgp_peer_info pi;

		bgp_speaker_peer_info(b->sp, i, &pi);
		json_object_object_add(p, "address", jaddr(&pi.cfg->addr));
		json_object_object_add(p, "port", json_object_new_int(pi.cfg->port));
		json_object_object_add(p, "asn", json_object_new_int64(pi.cfg->asn));
		json_object_object_add(p, "state", json_object_new_string(
			bgp_state_name(pi.state)));
		json_object_object_add(p, "uptime-s", json_object_new_double(pi.uptime_s));
		json_object_object_add(p, "established", json_object_new_int64(pi.established));
		json_object_object_add(p, "hold-time", json_object_new_int(pi.hold_time));
		f = json_object_new_array();
		if (pi.v4)
			json_object_array_add(f, json_object_new_string("ipv4"));
		if (pi.v6)
			json_object_array_add(f, json_object_new_string("ipv6"));
		json_object_object_add(p, "families", f);
		json_object_object_add(p, "prefixes-announced",
				       json_object_new_int64(pi.announced));
		json_object_object_add(p, "messages-in", json_object_new_int64(pi.msgs_in));
		json_object_object_add(p, "messages-out", json_object_new_int64(pi.msgs_out));
		json_object_object_add(p, "updates-in", json_object_new_int64(pi.updates_in));
		json_object_object_add(p, "updates-out", json_object_new_int64(pi.updates_out));
		json_object_object_add(p, "passive", json_object_new_boolean(pi.cfg->passive));
		json_object_object_add(p, "md5", json_object_new_boolean(pi.cfg->password != NULL));
		json_object_object_add(p, "ttl-security",
				       json_object_new_boolean(pi.cfg->ttl_security));
		json_object_object_add(p, "last-error", pi.last_error[0] ?
				       json_object_new_string(pi.last_error) : NULL);
		json_object_object_add(p, "bfd", pi.cfg->bfd ? bfd_json(&pi) : NULL);
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "peers", a);
	a = json_object_new_array();
	for (i = 0; i < b->nr; i++)
		json_object_array_add(a, route_json(&b->r[i]));
	json_object_object_add(o, "prefixes", a);
	return o;
}

int kmd_bgp_metrics(struct kmd *d, struct kmd_prom *p)
{
	static const char *const states[] = { "idle", "connect", "active", "opensent",
					      "openconfirm", "established" };
	static const struct {
		const char *name, *help;
		enum kmd_prom_type type;
	} fams[] = {
		{ "kmaglev_bgp_session_state",
		  "BGP session state per neighbour: 1 for the state it is in.", KMD_PROM_GAUGE },
		{ "kmaglev_bgp_session_up",
		  "Whether the BGP session is Established (1) or not (0).", KMD_PROM_GAUGE },
		{ "kmaglev_bgp_prefixes_announced",
		  "Prefixes announced on the BGP session.", KMD_PROM_GAUGE },
		{ "kmaglev_bgp_session_established_total",
		  "Times the BGP session reached Established.", KMD_PROM_COUNTER },
		{ "kmaglev_bgp_bfd_up",
		  "Whether the neighbour's BFD session is Up (1) or not (0); with bfd only.",
		  KMD_PROM_GAUGE },
		{ "kmaglev_bgp_bfd_down_total",
		  "Times the neighbour's BFD session went from Up to Down.", KMD_PROM_COUNTER },
	};
	struct kmd_bgpd *b = B(d);
	unsigned int i, n = 0, k, f;
	int ret;

	if (!b)
		return 0;
	for (i = 0; i < b->nr; i++)
		n += b->r[i].announce;
	ret = kmd_prom_family(p, "kmaglev_bgp_vips_announced", KMD_PROM_GAUGE,
			      "VIPs the daemon announces now (either BGP mode).");
	ret = ret ?: kmd_prom_gauge(p, NULL, 0, n);
	ret = ret ?: kmd_prom_family(p, "kmaglev_bgp_host_healthy", KMD_PROM_GAUGE,
				     "Whether the host's self-check passes (1) or not (0).");
	ret = ret ?: kmd_prom_gauge(p, NULL, 0, b->host_ok);
	ret = ret ?: kmd_prom_family(p, "kmaglev_bgp_announcement_changes_total",
				     KMD_PROM_COUNTER, "VIPs announced or withdrawn.");
	ret = ret ?: kmd_prom_counter(p, NULL, 0, b->changes);
	if (ret || !b->sp)
		return ret;
	for (f = 0; !ret && f < KMG_ARRAY_SIZE(fams); f++) {
		ret = kmd_prom_family(p, fams[f].name, fams[f].type, fams[f].help);
		for (i = 0; !ret && i < bgp_speaker_npeers(b->sp); i++) {
			struct bgp_peer_info pi;
			char a[INET6_ADDRSTRLEN];
			struct kmd_prom_label l[2] = { { "peer", a }, { "state", NULL } };

			bgp_speaker_peer_info(b->sp, i, &pi);
			inet_ntop(pi.cfg->addr.family, &pi.cfg->addr.v6, a, sizeof(a));
			switch (f) {
			case 0:		/* one sample per state, 1 for the current one */
				for (k = 0; !ret && k < KMG_ARRAY_SIZE(states); k++) {
					l[1].value = states[k];
					ret = kmd_prom_gauge(p, l, 2, pi.state == k);
				}
				break;
			case 1:
				ret = kmd_prom_gauge(p, l, 1, pi.state == BGP_ESTABLISHED);
				break;
			case 2:
				ret = kmd_prom_gauge(p, l, 1, pi.announced);
				break;
			case 3:
				ret = kmd_prom_counter(p, l, 1, pi.established);
				break;
			case 4:
				if (pi.cfg->bfd)
					ret = kmd_prom_gauge(p, l, 1, pi.has_bfd &&
							     pi.bfd.s.state == BFD_UP);
				break;
			default:
				if (pi.cfg->bfd)
					ret = kmd_prom_counter(p, l, 1,
							       pi.has_bfd ? pi.bfd.s.downs : 0);
				break;
			}
		}
	}
	return ret;
}
