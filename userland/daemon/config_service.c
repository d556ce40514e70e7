// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the services: section of the config file. A service's key and kernel
 * attributes, its flags, backends, checks, quorum and bgp: (announce and the BGP
 * attributes, parsed as bgp:'s are, config_bgp.c), and the duplicates across them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "lib/schema.h"
#include "daemon/config_int.h"

/* --- services ------------------------------------------------------------------------ */

static void p_backend(struct ctx *c, const struct raw_backend *r, const struct kmd_ynode *map,
		      const struct kmd_service *svc, struct kmd_backend *b)
{
	struct kmg_addr a;
	struct val v;

	b->loc = map->loc;
	kmd_backend_defaults(&b->be);
	if (cfg_val(map, "address", r->address, &v) && p_addr(c, &v, 0, &a))
		kmg_backend_set_addr(&b->be, &a);
	p_fields(c, &kmg_obj_backend, r->attr, map, &b->be);
	if (r->attr[KMAGLEV_A_BACKEND_GRE_KEY] && b->be.encap != KMAGLEV_ENCAP_GRE &&
	    cfg_val(map, "gre-key", r->attr[KMAGLEV_A_BACKEND_GRE_KEY], &v))
		err_at(c, v.at, v.key, "a GRE key needs \"encap: gre\" (encap is %s)",
		       kmg_enum_encap.names[b->be.encap]);
	if (kmd_ynode_get(map, "checks", NULL)) {
		b->own_checks = true;
		p_checks(c, r->checks, r->checks_count, map, svc, &b->checks, &b->nchecks);
	}
}

static void p_svc_bgp(struct ctx *c, const struct raw_svc_bgp *r, const struct kmd_ynode *map,
		      struct kmd_svc_bgp *b)
{
	size_t mark = path_push(c, "bgp", 0);
	struct val v;

	if (cfg_val(map, "announce", r->announce, &v))
		p_bool(c, &v, &b->announce);
	p_bgp_attrs(c, map, r->communities, r->communities_count, r->large_communities,
		    r->large_communities_count, r->med, &b->attrs);
	path_pop(c, mark);
}

static const char *const action_names[] = { "serve", "fail-open", "withdraw" };

static void p_quorum(struct ctx *c, const struct raw_quorum *r, const struct kmd_ynode *map,
		     struct kmd_service *s)
{
	uint32_t x;
	struct val v;
	char *end;
	size_t mark = path_push(c, "quorum", 0);

	if (cfg_val(map, "min", r->min, &v) && p_u32(c, &v, 0, KMAGLEV_BACKENDS_PER_SERVICE_MAX, &x)) {
		s->quorum.min = x;
		if (x > s->nbackends)
			err_at(c, v.at, v.key, "%u is more than the %u backends of the service", x,
			       s->nbackends);
	}
	if (cfg_val(map, "fraction", r->fraction, &v)) {
		double f;

		errno = 0;
		f = strtod(v.s, &end);
		if (!v.s[0] || *end || errno || isnan(f))
			err_at(c, v.at, v.key, "\"%s\" is not a number", v.s);
		else if (f < 0 || f > 1)
			err_at(c, v.at, v.key, "%s is outside 0..1", v.s);
		else
			s->quorum.fraction = f;
	}
	if (cfg_val(map, "action", r->action, &v) &&
	    p_enum(c, &v, action_names, KMG_ARRAY_SIZE(action_names), &x))
		s->quorum.action = x;
	path_pop(c, mark);
}

/* An agent check: the one kind that reports a utilization (util:N). */
static bool is_agent(const struct kmd_check *c)
{
	return c->kind == KMD_CHECK_AGENT;
}

/*
 * Does an agent check run against some backend (or, with no backends yet, the service)? A
 * backend's own checks replace the service's.
 */
static bool util_reported(const struct kmd_service *s)
{
	bool svc = false;
	unsigned int i, k;

	for (k = 0; k < s->nchecks; k++)
		svc |= is_agent(&s->checks[k]);
	if (!s->nbackends)
		return svc;
	for (i = 0; i < s->nbackends; i++) {
		const struct kmd_backend *b = &s->backends[i];

		if (!b->own_checks && svc)
			return true;
		for (k = 0; b->own_checks && k < b->nchecks; k++)
			if (is_agent(&b->checks[k]))
				return true;
	}
	return false;
}

/* After the checks and backends: "utilization" needs an agent check to report it. */
static void p_util(struct ctx *c, const struct raw_util *r, const struct kmd_ynode *svc,
		   struct kmd_service *s)
{
	const struct kmd_ynode *map = kmd_ynode_get(svc, "utilization", NULL);
	size_t mark;
	struct val v;
	uint32_t x;

	s->util.on = true;
	s->util.target = KMD_UTIL_TARGET_DEFAULT;
	s->util.min_weight = KMD_UTIL_MIN_WEIGHT_DEFAULT;
	s->util.shed_above = 0;
	s->util.shed_hold_ms = KMD_SHED_HOLD_DEFAULT_MS;
	if (!util_reported(s)) {
		cfg_val(svc, "utilization", NULL, &v);
		err_at(c, v.at, v.key, "no agent check of the service or its backends reports "
		       "a utilization (util:N)");
	}
	mark = path_push(c, "utilization", 0);
	if (cfg_val(map, "target", r->target, &v) && p_u32(c, &v, 1, 95, &x))
		s->util.target = x;
	if (cfg_val(map, "min-weight", r->min_weight, &v) && p_u32(c, &v, 1, 100, &x))
		s->util.min_weight = x;
	/* overload: every backend that serves at or above it; off below it - KMD_SHED_HYST */
	if (cfg_val(map, "shed-above", r->shed_above, &v) &&
	    p_u32(c, &v, KMD_SHED_HYST + 1, 100, &x))
		s->util.shed_above = x;
	if (cfg_val(map, "shed-hold", r->shed_hold, &v) &&
	    p_ms(c, &v, 0, KMD_SHED_HOLD_MAX_MS, &x))
		s->util.shed_hold_ms = x;
	path_pop(c, mark);
}

static void p_flags(struct ctx *c, const struct raw_service *r, const struct kmd_ynode *map,
		    struct kmd_service *s)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "flags", NULL);
	const struct kmg_enum *e = &kmg_enum_service_flags;
	unsigned int i;
	uint32_t bit;
	size_t mark;

	for (i = 0; i < r->flags_count; i++) {
		const struct kmd_ynode *n = kmd_ynode_at(seq, i);
		struct val v = { r->flags[i], NULL, n ? n->loc : map->loc };

		mark = path_push(c, "flags", 0);
		path_push(c, NULL, i);
		if (p_enum(c, &v, e->names, e->n, &bit)) {
			if (s->svc.flags & (1U << bit))
				err_at(c, v.at, NULL, "%s is listed twice", v.s);
			s->svc.flags |= 1U << bit;
		}
		path_pop(c, mark);
	}
}

static void p_service(struct ctx *c, const struct kmd_config *cfg, const struct raw_service *r,
		      const struct kmd_ynode *map, struct kmd_service *s)
{
	const struct kmd_ynode *seq = kmd_ynode_get(map, "backends", NULL);
	const struct kmg_addr *dup;
	struct kmg_svc_key key = { .proto = IPPROTO_TCP };
	unsigned int i, j;
	struct val v;
	uint32_t x;
	size_t mark;

	s->loc = map->loc;
	if (cfg_val(map, "vip", r->vip, &v))
		p_addr(c, &v, 0, &key.addr);
	if (cfg_val(map, "port", r->port, &v) && p_u32(c, &v, 0, 65535, &x))
		key.port = x;
	if (cfg_val(map, "proto", r->proto, &v) && kmg_parse_proto(v.s, &key.proto))
		err_at(c, v.at, v.key, "\"%s\" is not tcp, udp or any", v.s);
	if (key.addr.family)
		kmg_service_set_key(&s->svc, &key);
	kmd_service_defaults(&s->svc, cfg->seed);
	p_fields(c, &kmg_obj_service, r->attr, map, &s->svc);
	p_flags(c, r, map, s);

	if (r->backends_count > KMAGLEV_BACKENDS_PER_SERVICE_MAX) {
		cfg_val(map, "backends", NULL, &v);
		err_at(c, v.at, v.key, "%u backends; a service takes at most %u",
		       r->backends_count, KMAGLEV_BACKENDS_PER_SERVICE_MAX);
	} else if (r->backends_count) {
		s->backends = nomem(c, calloc(r->backends_count, sizeof(*s->backends)));
		if (s->backends)
			s->nbackends = r->backends_count;
	}
	p_checks(c, r->checks, r->checks_count, map, s, &s->checks, &s->nchecks);
	for (i = 0; i < s->nbackends; i++) {
		mark = path_push(c, "backends", 0);
		path_push(c, NULL, i);
		p_backend(c, &r->backends[i], kmd_ynode_at(seq, i), s, &s->backends[i]);
		path_pop(c, mark);
	}
	/* one duplicate per service is enough to act on */
	if (kmg_dup_addr(s->backends, s->nbackends, sizeof(*s->backends),
			 offsetof(struct kmd_backend, be.addr), &dup)) {
		c->nomem = true;
	} else if (dup) {
		i = ((const char *)dup - (const char *)s->backends) / sizeof(*s->backends);
		for (j = 0; j < i && !kmg_addr_equal(&s->backends[j].be.addr, dup); j++)
			;
		if (j < i) {
			mark = path_push(c, "backends", 0);
			path_push(c, NULL, i);
			cfg_val(kmd_ynode_at(seq, i), "address", r->backends[i].address, &v);
			err_at(c, v.at, v.key, "%s is backends[%u] too", v.s, j);
			path_pop(c, mark);
		} else {
			/* kmg_dup_addr() gave the first of the two: report the other */
			for (j = i + 1; !kmg_addr_equal(&s->backends[j].be.addr, dup); j++)
				;
			mark = path_push(c, "backends", 0);
			path_push(c, NULL, j);
			cfg_val(kmd_ynode_at(seq, j), "address", r->backends[j].address, &v);
			err_at(c, v.at, v.key, "%s is backends[%u] too", v.s, i);
			path_pop(c, mark);
		}
	}
	s->quorum.action = KMD_QUORUM_SERVE;
	if (r->quorum)
		p_quorum(c, r->quorum, kmd_ynode_get(map, "quorum", NULL), s);
	if (r->utilization)
		p_util(c, r->utilization, map, s);
	s->bgp.announce = true;
	if (r->bgp)
		p_svc_bgp(c, r->bgp, kmd_ynode_get(map, "bgp", NULL), &s->bgp);
}

void p_services(struct ctx *c, const struct raw_root *r, const struct kmd_ynode *root,
		       struct kmd_config *cfg)
{
	const struct kmd_ynode *seq = kmd_ynode_get(root, "services", NULL);
	char buf[INET6_ADDRSTRLEN + 16];
	unsigned int i, j;
	size_t mark;

	if (!r->services_count)
		return;
	cfg->services = nomem(c, calloc(r->services_count, sizeof(*cfg->services)));
	if (!cfg->services)
		return;
	cfg->nservices = r->services_count;
	for (i = 0; i < cfg->nservices; i++) {
		const struct kmd_ynode *map = kmd_ynode_at(seq, i);
		struct kmd_service *s = &cfg->services[i];

		mark = path_push(c, "services", 0);
		path_push(c, NULL, i);
		p_service(c, cfg, &r->services[i], map, s);
		for (j = 0; s->svc.key.addr.family && j < i; j++) {
			const struct kmg_svc_key *o = &cfg->services[j].svc.key;

			if (kmg_addr_equal(&o->addr, &s->svc.key.addr) &&
			    o->port == s->svc.key.port && o->proto == s->svc.key.proto) {
				err_at(c, map->loc, NULL, "%s is services[%u] too",
				       kmg_fmt_svc_key(&s->svc.key, buf, sizeof(buf)), j);
				break;
			}
		}
		path_pop(c, mark);
	}
}
