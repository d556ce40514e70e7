// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: desired state (config + health) and the plan of requests that brings the
 * kernel to it. Pure functions: no I/O (see reconcile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "daemon/reconcile.h"

/* --- desired state ------------------------------------------------------------------------ */

void kmd_want_backend(const struct kmd_be *b, bool fail_open, struct kmg_backend *out)
{
	uint32_t admin = b->conf->be.state;
	uint64_t w;

	*out = b->conf->be;
	out->present &= ~(KMG_BIT(KMAGLEV_A_BACKEND_ID) | KMG_BIT(KMAGLEV_A_BACKEND_SLOTS) |
			  KMG_BIT(KMAGLEV_A_BACKEND_STATS));
	memset(&out->stats, 0, sizeof(out->stats));
	out->id = 0;
	out->slots = 0;
	/*
	 * A gre-key only with GRE, and 0 is no key: unkeyed GRE (absent and zero compare
	 * equal, and a service-set without it leaves a GRE backend unkeyed).
	 */
	if (out->encap != KMAGLEV_ENCAP_GRE || !out->gre_key)
		KMG_CLR(out, KMAGLEV_A_BACKEND_GRE_KEY);

	/* the configured admin state wins over anything a check says */
	if (admin != KMAGLEV_BACKEND_STATE_UP)
		goto done;

	/* exec "weight N" or agent "weight:N" replace the weight; agent "N%" scales it */
	w = b->conf->be.weight;
	if (b->weight >= 0)
		w = b->weight;
	if (b->weight_pct >= 0)
		w = w * (uint64_t)b->weight_pct / 100;
	/*
	 * Utilization scales what the rest gave (by the share be_fold() settled on), never to
	 * 0: that is the agent's to say.
	 */
	if (b->svc->conf->util.on && b->util_factor < 100 && w) {
		w = w * b->util_factor / 100;
		if (!w)
			w = 1;
	}
	out->weight = w > 65535 ? 65535 : (uint32_t)w;

	if (fail_open) {
		out->state = KMAGLEV_BACKEND_STATE_UP;
		goto done;
	}
	if (b->health != KMD_HEALTH_UP)
		out->state = KMAGLEV_BACKEND_STATE_DOWN;
	else if (b->admin == KMAGLEV_BACKEND_STATE_DRAIN || b->admin == KMAGLEV_BACKEND_STATE_DOWN)
		out->state = b->admin;	/* agent drain/maint, or down */
	else
		out->state = KMAGLEV_BACKEND_STATE_UP;
done:
	KMG_SET(out, KMAGLEV_A_BACKEND_WEIGHT);
	KMG_SET(out, KMAGLEV_A_BACKEND_STATE);
}

bool kmd_quorum_eval(struct kmd_svc *s)
{
	const struct kmd_quorum *q = &s->conf->quorum;
	unsigned int i, healthy = 0, need = q->min, configured = 0;

	for (i = 0; i < s->nbe; i++) {
		const struct kmd_be *b = &s->be[i];

		if (b->conf->be.state != KMAGLEV_BACKEND_STATE_UP)
			continue;	/* taken out by hand: not part of the quorum */
		configured++;
		if (b->health == KMD_HEALTH_UP && b->admin != KMAGLEV_BACKEND_STATE_DOWN)
			healthy++;
	}
	if (q->fraction > 0) {
		unsigned int f = (unsigned int)(q->fraction * configured + 0.999999);

		if (f > need)
			need = f;
	}
	/* no quorum set: a service with no healthy backend at all is below it */
	if (!q->min && q->fraction <= 0)
		need = configured ? 1 : 0;
	s->nup = healthy;
	s->nconfigured = configured;
	s->below_quorum = healthy < need;
	s->healthy = !(s->below_quorum && q->action == KMD_QUORUM_WITHDRAW);
	return s->below_quorum && q->action == KMD_QUORUM_FAIL_OPEN;
}

int kmd_want_service(struct kmd_svc *s, const struct kmd_config *cfg, struct kmg_service *out)
{
	bool fail_open = kmd_quorum_eval(s);
	unsigned int i;

	*out = s->conf->svc;
	out->be = NULL;
	out->nbe = 0;
	KMG_CLR(out, KMAGLEV_A_SERVICE_ID);
	snprintf(out->owner, sizeof(out->owner), "%s", cfg->daemon.owner);
	KMG_SET(out, KMAGLEV_A_SERVICE_OWNER);
	/* ours to set: on only while utilization shed-above finds it overloaded */
	out->overload = s->overloaded ? KMAGLEV_OVERLOAD_ON : KMAGLEV_OVERLOAD_OFF;
	KMG_SET(out, KMAGLEV_A_SERVICE_OVERLOAD);
	KMG_SET(out, KMAGLEV_A_SERVICE_REPLACE_BACKENDS);
	if (s->nbe) {
		out->be = calloc(s->nbe, sizeof(*out->be));
		if (!out->be)
			return -ENOMEM;
	}
	for (i = 0; i < s->nbe; i++)
		kmd_want_backend(&s->be[i], fail_open, &out->be[i]);
	out->nbe = s->nbe;
	KMG_SET(out, KMAGLEV_A_SERVICE_BACKEND);
	return 0;
}

/* --- comparison --------------------------------------------------------------------------- */

bool kmd_owned(const struct kmg_service *k, const char *owner)
{
	return KMG_HAS(k, KMAGLEV_A_SERVICE_OWNER) && owner && *owner &&
	       !strcmp(k->owner, owner);
}

static bool same_key(const struct kmg_service *a, const struct kmg_service *b)
{
	return a->key.proto == b->key.proto && a->key.port == b->key.port &&
	       !kmg_addr_cmp(&a->key.addr, &b->key.addr);
}

static bool same_addr(const struct kmg_backend *a, const struct kmg_backend *b)
{
	return !kmg_addr_cmp(&a->addr, &b->addr);
}

/* Is settable field @f equal in @a and @b? An absent attribute counts as zero. */
static bool field_equal(const struct kmg_object *obj, const struct kmg_field *f, const void *a,
			uint64_t pa, const void *b, uint64_t pb)
{
	const struct kmg_attr_desc *d = kmg_field_desc(obj, f);
	bool za = !((pa >> f->attr) & 1) || kmg_field_zero(obj, f, a);
	bool zb = !((pb >> f->attr) & 1) || kmg_field_zero(obj, f, b);
	size_t len;

	if (za || zb)
		return za == zb;
	switch (d->type) {
	case KMG_AT_BINARY:
		len = d->len;
		break;
	case KMG_AT_STRING:
		return !strcmp((const char *)a + f->off, (const char *)b + f->off);
	default:
		if (d->hint == KMG_HINT_IPV4)
			len = sizeof(struct in_addr);
		else
			return kmg_field_uint(obj, f, a) == kmg_field_uint(obj, f, b);
	}
	return !memcmp((const char *)a + f->off, (const char *)b + f->off, len);
}

/* The first settable field of @obj that differs, or NULL. */
static const struct kmg_field *fields_diff(const struct kmg_object *obj, const void *a,
					   uint64_t pa, const void *b, uint64_t pb)
{
	unsigned int i;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];

		if (f->flags & (KMG_FF_RO | KMG_FF_KEY))
			continue;
		if (!field_equal(obj, f, a, pa, b, pb))
			return f;
	}
	return NULL;
}

const char *kmd_service_diff(const struct kmg_service *want, const struct kmg_service *have,
			     char *buf, size_t len)
{
	const struct kmg_field *f;
	char addr[INET6_ADDRSTRLEN];
	unsigned int i, k;

	f = fields_diff(&kmg_obj_service, want, want->present, have, have->present);
	if (f) {
		snprintf(buf, len, "%s changed", kmg_field_key(&kmg_obj_service, f));
		return buf;
	}
	for (i = 0; i < want->nbe; i++) {
		const struct kmg_backend *w = &want->be[i];

		for (k = 0; k < have->nbe && !same_addr(w, &have->be[k]); k++)
			;
		kmg_fmt_addr(&w->addr, addr, sizeof(addr));
		if (k == have->nbe) {
			snprintf(buf, len, "backend %s added", addr);
			return buf;
		}
		f = fields_diff(&kmg_obj_backend, w, w->present, &have->be[k],
				have->be[k].present);
		if (f) {
			const struct kmg_enum *e = kmg_field_desc(&kmg_obj_backend, f)->enm;
			uint64_t from = kmg_field_uint(&kmg_obj_backend, f, &have->be[k]);
			uint64_t to = kmg_field_uint(&kmg_obj_backend, f, w);
			char a[32], b[32];
			const char *sa = a, *sb = b;

			if (e) {
				sa = kmg_fmt_enum(e, from, a, sizeof(a));
				sb = kmg_fmt_enum(e, to, b, sizeof(b));
			} else {
				snprintf(a, sizeof(a), "%llu", (unsigned long long)from);
				snprintf(b, sizeof(b), "%llu", (unsigned long long)to);
			}
			snprintf(buf, len, "backend %s: %s %s -> %s", addr,
				 kmg_field_key(&kmg_obj_backend, f), sa, sb);
			return buf;
		}
	}
	for (k = 0; k < have->nbe; k++) {
		for (i = 0; i < want->nbe && !same_addr(&want->be[i], &have->be[k]); i++)
			;
		if (i == want->nbe) {
			kmg_fmt_addr(&have->be[k].addr, addr, sizeof(addr));
			snprintf(buf, len, "backend %s removed", addr);
			return buf;
		}
	}
	return NULL;
}

/* --- the plan ----------------------------------------------------------------------------- */

static struct kmd_op *plan_add(struct kmd_plan *plan, uint8_t cmd)
{
	struct kmd_op *op;

	if (kmg_grow(&plan->ops, plan->n, sizeof(*plan->ops)))
		return NULL;
	op = &plan->ops[plan->n++];
	memset(op, 0, sizeof(*op));
	op->cmd = cmd;
	return op;
}

/* A copy of @s for a request, with its own backend array. */
static int svc_copy(struct kmg_service *dst, const struct kmg_service *s)
{
	*dst = *s;
	dst->be = NULL;
	if (s->nbe) {
		dst->be = malloc(s->nbe * sizeof(*s->be));
		if (!dst->be)
			return -ENOMEM;
		memcpy(dst->be, s->be, s->nbe * sizeof(*s->be));
	}
	return 0;
}

int kmd_plan(const struct kmg_service *want, unsigned int nwant, const bool *keep,
	     const struct kmg_config *wcfg, const struct kmg_msgs *kernel,
	     const struct kmg_config *kcfg, const char *owner, struct kmd_plan *plan)
{
	const struct kmg_field *f;
	char why[sizeof(plan->ops->why)];
	struct kmd_op *op;
	unsigned int i, k;

	if (wcfg && kcfg) {
		/* only the settings the config names are ours to set */
		for (i = 0, f = NULL; i < kmg_obj_config.n && !f; i++) {
			const struct kmg_field *c = &kmg_obj_config.fields[i];

			if (!(c->flags & KMG_FF_RO) && KMG_HAS(wcfg, c->attr) &&
			    !field_equal(&kmg_obj_config, c, wcfg, wcfg->present, kcfg,
					 kcfg->present))
				f = c;
		}
		if (f) {
			op = plan_add(plan, KMAGLEV_CMD_CONFIG_SET);
			if (!op)
				goto nomem;
			op->cfg = *wcfg;
			snprintf(op->why, sizeof(op->why), "%s changed",
				 kmg_field_key(&kmg_obj_config, f));
		}
	}

	/* deletions first: a swap of services at max-services must not fail */
	for (k = 0; k < kernel->n; k++) {
		const struct kmg_service *have = &kernel->m[k].svc;

		if (!kmd_owned(have, owner))
			continue;
		for (i = 0; i < nwant && !same_key(&want[i], have); i++)
			;
		if (i < nwant)
			continue;
		op = plan_add(plan, KMAGLEV_CMD_SERVICE_DEL);
		if (!op)
			goto nomem;
		op->svc = *have;
		op->svc.be = NULL;
		op->svc.nbe = 0;
		op->svc.present &= KMG_SVC_KEY_MASK;
		snprintf(op->why, sizeof(op->why), "no longer configured");
	}
	for (i = 0; i < nwant; i++) {
		const struct kmg_service *have = NULL;

		for (k = 0; k < kernel->n && !have; k++)
			if (same_key(&want[i], &kernel->m[k].svc))
				have = &kernel->m[k].svc;
		if (have && (keep && keep[i]))
			continue;	/* warn: as the kernel has it */
		if (have && !kmd_service_diff(&want[i], have, why, sizeof(why)))
			continue;
		op = plan_add(plan, have ? KMAGLEV_CMD_SERVICE_SET : KMAGLEV_CMD_SERVICE_NEW);
		if (!op || svc_copy(&op->svc, &want[i]))
			goto nomem;
		snprintf(op->why, sizeof(op->why), "%s", have ? why : "new");
	}

	return 0;
nomem:
	kmd_plan_free(plan);
	return -ENOMEM;
}

void kmd_plan_free(struct kmd_plan *plan)
{
	unsigned int i;

	for (i = 0; i < plan->n; i++)
		free(plan->ops[i].svc.be);
	free(plan->ops);
	plan->ops = NULL;
	plan->n = 0;
}
