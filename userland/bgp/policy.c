// SPDX-License-Identifier: GPL-2.0
/*
 * The announcement policy: configured services and host health in, one route per VIP out,
 * each with its attributes and the reason it is (not) announced. See policy.h.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgp/policy.h"

int bgp_prefix_cmp(const struct bgp_prefix *a, const struct bgp_prefix *b)
{
	int r;

	if (a->family != b->family)
		return a->family == AF_INET ? -1 : 1;
	r = a->family == AF_INET ? memcmp(&a->v4, &b->v4, 4) : memcmp(&a->v6, &b->v6, 16);
	if (r)
		return r;
	return (int)a->len - (int)b->len;
}

const char *bgp_prefix_str(const struct bgp_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(p->family, p->family == AF_INET ? (const void *)&p->v4 :
							 (const void *)&p->v6, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int large_cmp(const void *a, const void *b)
{
	const struct bgp_large_community *x = a, *y = b;

	if (x->global != y->global)
		return x->global < y->global ? -1 : 1;
	if (x->local1 != y->local1)
		return x->local1 < y->local1 ? -1 : 1;
	return x->local2 < y->local2 ? -1 : x->local2 > y->local2;
}

bool bgp_route_attrs_equal(const struct bgp_route *a, const struct bgp_route *b)
{
	/* both sides keep their lists sorted and unique (add_attrs) */
	return a->ncommunities == b->ncommunities && a->nlarge == b->nlarge &&
	       a->has_med == b->has_med && (!a->has_med || a->med == b->med) &&
	       !memcmp(a->communities, b->communities, a->ncommunities * sizeof(uint32_t)) &&
	       !memcmp(a->large, b->large, a->nlarge * sizeof(a->large[0]));
}

/* Merge @x into @r: communities as sorted sets (extra ones past the cap are dropped). */
static void add_attrs(struct bgp_route *r, const struct bgp_policy_attrs *x)
{
	unsigned int i, j;

	for (i = 0; i < x->ncommunities; i++) {
		for (j = 0; j < r->ncommunities && r->communities[j] != x->communities[i]; j++)
			;
		/* one slot stays free for GRACEFUL_SHUTDOWN (the speaker adds it) */
		if (j == r->ncommunities && r->ncommunities < BGP_MAX_COMMUNITIES - 1)
			r->communities[r->ncommunities++] = x->communities[i];
	}
	for (i = 0; i < x->nlarge; i++) {
		for (j = 0; j < r->nlarge && large_cmp(&r->large[j], &x->large[i]); j++)
			;
		if (j == r->nlarge && r->nlarge < BGP_MAX_LARGE)
			r->large[r->nlarge++] = x->large[i];
	}
	qsort(r->communities, r->ncommunities, sizeof(uint32_t), u32_cmp);
	qsort(r->large, r->nlarge, sizeof(r->large[0]), large_cmp);
	if (x->has_med && !r->has_med) {
		r->has_med = true;
		r->med = x->med;
	}
}

static int route_cmp(const void *a, const void *b)
{
	return bgp_prefix_cmp(&((const struct bgp_route *)a)->pfx,
			      &((const struct bgp_route *)b)->pfx);
}

/* Append to r->why, keeping it a valid string if it fills. */
static void why_add(struct bgp_route *r, const char *fmt, const char *a, const char *b)
{
	size_t l = strlen(r->why);

	if (l < sizeof(r->why) - 1)
		snprintf(r->why + l, sizeof(r->why) - l, fmt, a, b);
}

int bgp_policy_eval(const struct bgp_policy_svc *svc, unsigned int n,
		    const struct bgp_policy_attrs *global, const struct bgp_policy_host *host,
		    struct bgp_route **out, unsigned int *nout)
{
	struct bgp_route *r = calloc(n ? n : 1, sizeof(*r));
	unsigned int *healthy = calloc(n ? n : 1, sizeof(*healthy));
	unsigned int *total = calloc(n ? n : 1, sizeof(*total));
	unsigned int i, j, nr = 0;

	if (!r || !healthy || !total) {
		free(r);
		free(healthy);
		free(total);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct bgp_prefix p = { .family = svc[i].family };
		const char *why = svc[i].why ? svc[i].why : "";

		if (!svc[i].announce)
			continue;
		if (p.family == AF_INET) {
			p.v4 = svc[i].v4;
			p.len = 32;
		} else {
			p.v6 = svc[i].v6;
			p.len = 128;
		}
		for (j = 0; j < nr && bgp_prefix_cmp(&r[j].pfx, &p); j++)
			;
		if (j == nr) {
			r[nr].pfx = p;
			if (global) {
				struct bgp_policy_attrs g = *global;

				g.has_med = false;	/* last: a service's own MED wins */
				add_attrs(&r[nr], &g);
			}
			nr++;
		}
		add_attrs(&r[j], &svc[i].attrs);
		total[j]++;
		if (svc[i].healthy) {
			healthy[j]++;
			continue;
		}
		/* remember why the unhealthy ones are not: "tcp 192.0.2.1:80: 0 of 3 up" */
		why_add(&r[j], "%s%s", r[j].why[0] ? "; " : "", svc[i].name ? svc[i].name : "?");
		why_add(&r[j], "%s%s", *why ? ": " : "", why);
	}
	for (j = 0; j < nr; j++) {
		char detail[sizeof(r[j].why)];

		if (global && global->has_med && !r[j].has_med) {
			r[j].has_med = true;
			r[j].med = global->med;
		}

		snprintf(detail, sizeof(detail), "%s", r[j].why);
		if (host && !host->ok) {
			snprintf(r[j].why, sizeof(r[j].why), "withdrawn: host unhealthy: %s",
				 host->why ? host->why : "?");
		} else if (host && host->lame_duck) {
			snprintf(r[j].why, sizeof(r[j].why), "withdrawn: lame duck");
		} else if (!healthy[j]) {
			snprintf(r[j].why, sizeof(r[j].why), "withdrawn: no healthy service (%.120s)",
				 detail);
		} else {
			r[j].announce = true;
			snprintf(r[j].why, sizeof(r[j].why), "%u of %u services healthy",
				 healthy[j], total[j]);
		}
	}
	qsort(r, nr, sizeof(*r), route_cmp);
	free(healthy);
	free(total);
	*out = r;
	*nout = nr;
	return 0;
}
