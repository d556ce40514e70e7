// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the per-service, per-backend state of a config in force. Building it from a
 * config (adopting what the kernel already does, or what the previous config's state knew),
 * binding each backend to its health probes, and folding probe results into backend health.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "daemon/state.h"

static const struct kmd_check *be_checks(const struct kmd_be *b, unsigned int *n)
{
	if (b->conf->own_checks) {
		*n = b->conf->nchecks;
		return b->conf->checks;
	}
	*n = b->svc->conf->nchecks;
	return b->svc->conf->checks;
}

static bool same_key(const struct kmg_svc_key *a, const struct kmg_svc_key *b)
{
	return a->proto == b->proto && a->port == b->port && !kmg_addr_cmp(&a->addr, &b->addr);
}

const char *kmd_svc_name(const struct kmd_svc *s, char *buf, size_t len)
{
	return kmg_fmt_svc_key(&s->conf->svc.key, buf, len);
}

const char *kmd_be_name(const struct kmd_be *b, char *buf, size_t len)
{
	return kmg_fmt_addr(&b->conf->be.addr, buf, len);
}

/*
 * Fold the probes' last results into the backend's health, agent state and weight. Computed
 * from the results alone, so a check that is gone (reload) leaves nothing behind. While an
 * agent or exec check has no result yet, what was adopted (the kernel's state at start, or
 * the previous config's at reload) stands in for it: the weight as the kernel has it, never
 * scaled again by an old percentage.
 */
static bool be_fold(struct kmd_be *b)
{
	enum kmd_health h = KMD_HEALTH_UP;
	int admin = -1, pct = -1, weight = -1, util = -1;
	bool pending = false, util_pending = false, changed;
	unsigned int factor;
	unsigned int i;

	for (i = 0; i < b->nprobes; i++) {
		const struct kmd_result *r = kmd_probe_last(b->probes[i]);
		enum kmd_check_kind kind = kmd_probe_check(b->probes[i])->kind;
		enum kmd_health ph = kmd_probe_state(b->probes[i]);

		if (ph == KMD_HEALTH_DOWN)
			h = KMD_HEALTH_DOWN;
		else if (ph == KMD_HEALTH_UNKNOWN && h == KMD_HEALTH_UP)
			h = KMD_HEALTH_UNKNOWN;
		if (kind != KMD_CHECK_AGENT && kind != KMD_CHECK_EXEC)
			continue;
		if (!r) {
			pending = true;
			util_pending |= kind == KMD_CHECK_AGENT;
			continue;
		}
		if (kind == KMD_CHECK_AGENT) {
			admin = r->admin;
			pct = r->weight_pct;
			util = kmd_probe_util(b->probes[i]);
		}
		if (r->weight >= 0)
			weight = r->weight;
	}
	if (pending && admin < 0 && pct < 0 && weight < 0) {
		admin = b->adopt_admin;
		weight = b->adopt_weight;
	}
	if (b->nprobes == 0 && !b->unbound)
		h = KMD_HEALTH_UP;	/* no checks: configured is healthy */
	/* an agent check with no answer yet: the utilization it had stands (reload) */
	if (util_pending && util < 0) {
		util = b->util;
		factor = b->util_factor;
	} else {
		factor = kmd_util_share(&b->svc->conf->util, b->util_factor, util);
	}
	/* the utilization alone changes nothing until the share it gives does */
	changed = h != b->health || admin != b->admin || pct != b->weight_pct ||
		  weight != b->weight || factor != b->util_factor;
	if (h != b->health)
		b->transitions++;
	b->health = h;
	b->admin = admin;
	b->weight_pct = pct;
	b->weight = weight;
	b->util = util;
	b->util_pending = util_pending;
	b->util_factor = factor;
	return changed;
}

/* Does @b take new flows: healthy, and neither drained nor down (configured, or by its agent)? */
/*
 * Takes new flows: healthy, up in the file and by its agent, and with a weight (a backend
 * at weight 0 takes no traffic, so its low utilization says nothing about the others').
 */
static bool be_serves(const struct kmd_be *b)
{
	return b->health == KMD_HEALTH_UP && b->conf->be.state == KMAGLEV_BACKEND_STATE_UP &&
	       b->admin != KMAGLEV_BACKEND_STATE_DRAIN && b->admin != KMAGLEV_BACKEND_STATE_DOWN &&
	       b->conf->be.weight && b->weight_pct && b->weight;
}

/* The monotonic clock, in seconds: the overload's hold is not moved by clock changes. */
static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool kmd_svc_overload_update(struct kmd_svc *s)
{
	const struct kmd_util *u = &s->conf->util;
	bool pending = false, now;
	unsigned int i;
	char name[128];
	int min = -1;

	for (i = 0; i < s->nbe; i++) {
		const struct kmd_be *b = &s->be[i];

		if (!be_serves(b))
			continue;
		pending |= b->util_pending;
		if (b->util >= 0 && (min < 0 || b->util < min))
			min = b->util;
	}
	/* an agent that has not answered yet (start, reload): the adopted state stands */
	if (pending)
		return false;
	now = kmd_util_overloaded(u, s->overloaded, min, mono_s() - s->overloaded_at);
	if (now == s->overloaded)
		return false;
	s->overloaded = now;
	s->overloaded_at = mono_s();
	kmd_svc_name(s, name, sizeof(name));
	if (now)
		kmd_warn("service %s: overloaded: every backend that serves is at %d%% "
			 "utilization or more (shed-above %u%%); shedding its new flows of "
			 "shed-class and below", name, min, u->shed_above);
	else if (!u->on || !u->shed_above)
		kmd_log(LOG_NOTICE, "service %s: no longer overloaded: no utilization shed-above",
			name);
	else if (min < 0)
		kmd_log(LOG_NOTICE, "service %s: no longer overloaded: no backend that serves "
			"reports a utilization", name);
	else
		kmd_log(LOG_NOTICE, "service %s: no longer overloaded: a backend is at %d%% "
			"utilization, below %d%%", name, min,
			(int)u->shed_above - KMD_SHED_HYST);
	return true;
}

static void state_changed(struct kmd *d)
{
	if (d->state_changed)
		d->state_changed(d);
}

static void probe_changed(struct kmd_probe *p, void *arg)
{
	struct kmd_be *b = arg;
	struct kmd *d = b->svc->d;
	enum kmd_health old = b->health;
	char sn[128], bn[INET6_ADDRSTRLEN];
	const struct kmd_result *r;
	bool folded, shed;

	/* the utilization alone may move the service's overload, and nothing else */
	folded = be_fold(b);
	shed = kmd_svc_overload_update(b->svc);
	if (!folded) {
		if (shed)
			state_changed(d);
		return;
	}
	r = kmd_probe_last(p);
	if (old != b->health)
		kmd_log(b->health == KMD_HEALTH_UP ? LOG_NOTICE : LOG_WARNING,
			"service %s backend %s: %s (%s: %s)", kmd_svc_name(b->svc, sn, sizeof(sn)),
			kmd_be_name(b, bn, sizeof(bn)), kmd_health_name(b->health),
			kmd_probe_check(p)->name, r ? r->why : "no result");
	else
		kmd_info("service %s backend %s: agent/exec says state %d, weight %d, %d%%, "
			 "utilization %d (%u%% of the weight)",
			 kmd_svc_name(b->svc, sn, sizeof(sn)), kmd_be_name(b, bn, sizeof(bn)),
			 b->admin, b->weight, b->weight_pct, b->util, b->util_factor);
	state_changed(d);
}

const char *kmd_health_name(enum kmd_health h)
{
	return h == KMD_HEALTH_UP ? "up" : h == KMD_HEALTH_DOWN ? "down" : "unknown";
}

/* Where check @c of backend @b goes; false when it cannot run yet (no kernel id). */
static bool be_target(const struct kmd *d, const struct kmd_be *b, const struct kmd_check *c,
		      struct kmd_target *t)
{
	const struct kmg_service *s = &b->svc->conf->svc;
	uint32_t min = d->probe_mark_min, max = d->probe_mark_max;

	memset(t, 0, sizeof(*t));
	t->backend = b->conf->be.addr;
	t->vip = s->key.addr;
	t->vport = s->key.port;
	t->proto = s->key.proto;
	t->port = c->port ? c->port : s->key.port;
	if (c->via == KMD_VIA_DIRECT) {
		t->addr = b->conf->be.addr;
		return true;
	}
	/*
	 * tunnel: to the VIP, marked for exactly this backend of this service. The mark range
	 * is the config's when it sets one (the first reconcile gives it to the kernel before
	 * any probe runs), else the kernel's.
	 */
	if (KMG_HAS(&b->svc->cfg->kcfg, KMAGLEV_A_CONFIG_PROBE_MARK_MAX)) {
		min = b->svc->cfg->kcfg.probe_mark_min;
		max = b->svc->cfg->kcfg.probe_mark_max;
	}
	if (!KMG_HAS(&b->kernel, KMAGLEV_A_BACKEND_ID) || !max ||
	    min + (uint64_t)b->kernel.id > max)
		return false;
	t->addr = s->key.addr;
	t->mark = min + b->kernel.id;
	return true;
}

static bool target_equal(const struct kmd_target *a, const struct kmd_target *b)
{
	return !kmg_addr_cmp(&a->addr, &b->addr) && a->port == b->port && a->mark == b->mark;
}

/*
 * (Re)bind @b to one probe per check in force. Probes whose target did not change are kept;
 * kmd_probe_get() returns the running one, so its state carries over.
 */
int kmd_be_bind(struct kmd *d, struct kmd_be *b)
{
	unsigned int n, i, k = 0;
	const struct kmd_check *c = be_checks(b, &n);
	struct kmd_probe **np;
	struct kmd_target t;
	enum kmd_health start;

	np = n ? calloc(n, sizeof(*np)) : NULL;
	if (n && !np)
		return -ENOMEM;
	start = b->health;
	for (i = 0; i < n; i++) {
		if (!be_target(d, b, &c[i], &t))
			continue;	/* tunnel probe of a backend the kernel has not got yet */
		np[k] = kmd_probe_get(d->hc, &c[i], &t, start, probe_changed, b);
		if (!np[k])
			goto nomem;
		k++;
	}
	for (i = 0; i < b->nprobes; i++)
		kmd_probe_put(b->probes[i], probe_changed, b);
	free(b->probes);
	b->probes = np;
	b->nprobes = k;
	b->unbound = k < n;
	be_fold(b);
	if (b->unbound && b->health == KMD_HEALTH_UP) {
		b->health = KMD_HEALTH_UNKNOWN;	/* a check that cannot run is no pass */
		b->transitions++;
	}
	return 0;
nomem:
	while (k--)
		kmd_probe_put(np[k], probe_changed, b);
	free(np);
	return -ENOMEM;
}

/* Does @b's target of any probe differ from what it would be now (a kernel id changed)? */
bool kmd_be_stale(const struct kmd *d, const struct kmd_be *b)
{
	unsigned int n, i, k = 0;
	const struct kmd_check *c = be_checks(b, &n);
	struct kmd_target t;

	for (i = 0; i < n; i++) {
		if (!be_target(d, b, &c[i], &t))
			continue;
		if (k >= b->nprobes || !target_equal(&t, kmd_probe_target(b->probes[k])))
			return true;
		k++;
	}
	return k != b->nprobes;
}

static bool be_dynamic(const struct kmd_be *b, enum kmd_check_kind kind)
{
	unsigned int n, i;
	const struct kmd_check *c = be_checks(b, &n);

	for (i = 0; i < n; i++)
		if (c[i].kind == kind)
			return true;
	return false;
}

/*
 * Initial state of a backend: from the previous config's state when there is one (reload),
 * else from what the kernel does now (start): serving (up or drain) counts as healthy, so a
 * restart black-holes nothing while the rise counters fill; a backend the kernel lacks starts
 * unknown and takes traffic only once its checks pass.
 */
static void be_init(struct kmd_be *b, const struct kmd_be *prev, const struct kmg_backend *k)
{
	bool agent = be_dynamic(b, KMD_CHECK_AGENT), exec = be_dynamic(b, KMD_CHECK_EXEC);

	b->admin = -1;
	b->weight_pct = -1;
	b->weight = -1;
	b->util = -1;
	b->util_factor = 100;
	b->adopt_admin = -1;
	b->adopt_weight = -1;
	b->health = KMD_HEALTH_UNKNOWN;
	if (k)
		b->kernel = *k;
	if (prev) {
		b->health = prev->health;
		b->transitions = prev->transitions;
		/* until its agent or command answers (a shared probe may have already) */
		if (agent)
			b->adopt_admin = prev->admin;
		if (agent || exec)
			b->adopt_weight = prev->weight_pct >= 0 && prev->weight < 0 ?
					  (int)(prev->conf->be.weight * prev->weight_pct / 100) :
					  prev->weight;
		b->admin = b->adopt_admin;
		b->weight = b->adopt_weight;
		/* the utilization and its share, until the agent answers (be_fold()) */
		if (agent) {
			b->util = prev->util;
			b->util_factor = prev->util_factor;
		}
		return;
	}
	if (!k)
		return;
	b->health = k->state == KMAGLEV_BACKEND_STATE_DOWN ? KMD_HEALTH_DOWN : KMD_HEALTH_UP;
	/*
	 * What an agent or a command decided survives the restart until they answer again: the
	 * drain, and the weight as the kernel has it (already scaled: it is not scaled again).
	 */
	if (agent && k->state == KMAGLEV_BACKEND_STATE_DRAIN &&
	    b->conf->be.state == KMAGLEV_BACKEND_STATE_UP)
		b->adopt_admin = KMAGLEV_BACKEND_STATE_DRAIN;
	if ((agent || exec) && k->weight != b->conf->be.weight)
		b->adopt_weight = k->weight;
	b->admin = b->adopt_admin;
	b->weight = b->adopt_weight;
}

static const struct kmg_service *kernel_find(const struct kmg_msgs *kernel,
					     const struct kmg_svc_key *key)
{
	unsigned int i;

	for (i = 0; kernel && i < kernel->n; i++)
		if (same_key(&kernel->m[i].svc.key, key))
			return &kernel->m[i].svc;
	return NULL;
}

static const struct kmg_backend *kernel_be(const struct kmg_service *ks, const struct kmg_addr *a)
{
	unsigned int i;

	for (i = 0; ks && i < ks->nbe; i++)
		if (!kmg_addr_cmp(&ks->be[i].addr, a))
			return &ks->be[i];
	return NULL;
}

static const struct kmd_be *prev_be(const struct kmd_svc *ps, unsigned int nps,
				    const struct kmg_svc_key *key, const struct kmg_addr *a)
{
	unsigned int i, k;

	for (i = 0; i < nps; i++) {
		if (!same_key(&ps[i].conf->svc.key, key))
			continue;
		for (k = 0; k < ps[i].nbe; k++)
			if (!kmg_addr_cmp(&ps[i].be[k].conf->be.addr, a))
				return &ps[i].be[k];
	}
	return NULL;
}

/*
 * The overload a service starts with, while its agents have not answered: the previous
 * config's (a reload), else the kernel's (a start). Only with utilization shed-above; without,
 * the service is never overloaded.
 */
/* The overload state a service starts with, and since when (*@at: its shed-hold goes on). */
static bool svc_adopt_overload(const struct kmd_svc *s, const struct kmg_service *ks,
			       const struct kmd_svc *prev, unsigned int nprev, double *at)
{
	unsigned int i;

	*at = mono_s();		/* a restart that finds it on: the hold starts again */
	if (!s->conf->util.on || !s->conf->util.shed_above)
		return false;
	for (i = 0; i < nprev; i++)
		if (same_key(&prev[i].conf->svc.key, &s->conf->svc.key)) {
			*at = prev[i].overloaded_at;
			return prev[i].overloaded;
		}
	return ks && KMG_HAS(ks, KMAGLEV_A_SERVICE_OVERLOAD) &&
	       ks->overload == KMAGLEV_OVERLOAD_ON;
}

int kmd_state_build(struct kmd *d, const struct kmd_config *cfg, const struct kmg_msgs *kernel,
		    const struct kmd_svc *prev, unsigned int nprev, struct kmd_svc **out,
		    unsigned int *nout)
{
	struct kmd_svc *sv;
	unsigned int i, k;

	sv = cfg->nservices ? calloc(cfg->nservices, sizeof(*sv)) : NULL;
	if (cfg->nservices && !sv)
		return -ENOMEM;
	for (i = 0; i < cfg->nservices; i++) {
		const struct kmd_service *cs = &cfg->services[i];
		const struct kmg_service *ks = kernel_find(kernel, &cs->svc.key);

		sv[i].d = d;
		sv[i].cfg = cfg;
		sv[i].conf = cs;
		sv[i].healthy = true;
		sv[i].kernel_id = ks ? ks->id : 0;
		sv[i].overloaded = svc_adopt_overload(&sv[i], ks, prev, nprev,
						      &sv[i].overloaded_at);
		sv[i].be = cs->nbackends ? calloc(cs->nbackends, sizeof(*sv[i].be)) : NULL;
		if (cs->nbackends && !sv[i].be)
			goto nomem;
		sv[i].nbe = cs->nbackends;
		for (k = 0; k < cs->nbackends; k++) {
			struct kmd_be *b = &sv[i].be[k];
			const struct kmg_addr *a = &cs->backends[k].be.addr;

			b->svc = &sv[i];
			b->conf = &cs->backends[k];
			be_init(b, prev_be(prev, nprev, &cs->svc.key, a), kernel_be(ks, a));
		}
	}
	*out = sv;
	*nout = cfg->nservices;
	return 0;
nomem:
	kmd_state_free(sv, cfg->nservices);
	return -ENOMEM;
}

int kmd_state_bind(struct kmd *d, struct kmd_svc *sv, unsigned int n)
{
	unsigned int i, k;
	int ret;

	for (i = 0; i < n; i++) {
		for (k = 0; k < sv[i].nbe; k++) {
			ret = kmd_be_bind(d, &sv[i].be[k]);
			if (ret)
				return ret;
		}
		kmd_svc_overload_update(&sv[i]);
	}
	return 0;
}

void kmd_state_free(struct kmd_svc *sv, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; sv && i < n; i++) {
		for (k = 0; k < sv[i].nbe; k++) {
			struct kmd_be *b = &sv[i].be[k];

			while (b->nprobes)
				kmd_probe_put(b->probes[--b->nprobes], probe_changed, b);
			free(b->probes);
		}
		free(sv[i].be);
		free(sv[i].last.be);
	}
	free(sv);
}

/* After a kernel read: note ids and states, and rebind backends whose tunnel target moved. */
int kmd_state_update(struct kmd *d, const struct kmg_msgs *kernel)
{
	unsigned int i, k;
	int ret;

	for (i = 0; i < d->nsvc; i++) {
		struct kmd_svc *s = &d->svc[i];
		const struct kmg_service *ks = kernel_find(kernel, &s->conf->svc.key);

		s->kernel_id = ks ? ks->id : 0;
		for (k = 0; k < s->nbe; k++) {
			struct kmd_be *b = &s->be[k];
			const struct kmg_backend *kb = kernel_be(ks, &b->conf->be.addr);

			if (kb)
				b->kernel = *kb;
			else
				memset(&b->kernel, 0, sizeof(b->kernel));
			if (kmd_be_stale(d, b)) {
				enum kmd_health h = b->health;

				ret = kmd_be_bind(d, b);
				if (ret)
					return ret;
				/* a check that can run now, or no longer: the kernel must follow */
				if (b->health != h)
					state_changed(d);
			}
		}
		if (kmd_svc_overload_update(s))
			state_changed(d);
	}
	return 0;
}
