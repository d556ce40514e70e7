// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev's built-in BGP speaker: the Adj-RIB-Out. The route set the daemon gives,
 * and what each established session was sent of it: the difference goes out as
 * UPDATEs, prefixes of equal attributes together, End-of-RIB after the first.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bgp/speaker_int.h"

/* --- announcing ---------------------------------------------------------------------- */

static void route_attrs(const struct bgp_peer *p, const struct bgp_route *r, bool gshut,
			struct bgp_attrs *a)
{
	const struct bgp_conn *c = &p->est->c;
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->local_as = p->sp->cfg.asn;
	a->ebgp = !c->ibgp;
	a->local_pref = gshut ? 0 : p->sp->cfg.local_pref;
	a->has_med = r->has_med;
	a->med = r->med;
	if (p->cfg.next_hop.family == AF_INET)
		a->nh4 = p->cfg.next_hop.v4;
	else
		a->nh4 = p->local4;
	a->v4_nh6 = c->v4_nh6;
	if (p->cfg.next_hop.family == AF_INET6) {
		a->nh6 = p->cfg.next_hop.v6;
	} else {
		a->nh6 = p->local6;
		a->has_nh6_ll = p->has_ll;
		a->nh6_ll = p->local6_ll;
	}
	for (i = 0; i < r->ncommunities && a->ncommunities < BGP_MAX_COMMUNITIES; i++)
		a->communities[a->ncommunities++] = r->communities[i];
	if (gshut && a->ncommunities < BGP_MAX_COMMUNITIES)
		a->communities[a->ncommunities++] = BGP_COMMUNITY_GRACEFUL_SHUTDOWN;
	for (i = 0; i < r->nlarge; i++)
		a->large[i] = r->large[i];
	a->nlarge = r->nlarge;
}

/* Send @n prefixes (all with @r[0]'s attributes, or withdrawn) in as few UPDATEs as fit. */
static void send_prefixes(struct bgp_peer *p, const struct bgp_route *r,
			  const struct bgp_prefix *pfx, unsigned int n, bool withdraw)
{
	uint8_t buf[BGP_MAX_LEN];
	struct bgp_attrs a;
	unsigned int used;
	size_t len;

	if (!p->est)
		return;		/* a failed send closed the session */
	if (!withdraw)
		route_attrs(p, r, p->sp->gshut, &a);
	while (n && p->est) {
		len = bgp_update_encode(buf, sizeof(buf), withdraw ? NULL : &a, pfx, n, withdraw,
					&used);
		if (!len || !used)
			return;
		bgp_conn_send(&p->est->c, buf, len);
		pfx += used;
		n -= used;
	}
}

static bool family_on(const struct bgp_peer *p, int family)
{
	return family == AF_INET ? p->est->c.v4 : p->est->c.v6;
}

static const struct bgp_route *find_route(const struct bgp_route *r, unsigned int n,
					  const struct bgp_prefix *pfx)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		int c = bgp_prefix_cmp(&r[mid].pfx, pfx);

		if (!c)
			return &r[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Bring the session's Adj-RIB-Out to the speaker's route set: withdraw what went, announce
 * what is new or changed, grouping prefixes of equal attributes. @full: the session just
 * came up; End-of-RIB follows.
 */
void peer_sync(struct bgp_peer *p, bool full)
{
	struct bgp_speaker *sp = p->sp;
	struct bgp_prefix *pfx = NULL;
	struct bgp_route *want = NULL;
	bool *done = NULL;
	unsigned int i, j, n = 0, nw = 0;
	int fam;

	if (!p->est)
		return;
	if (sp->nroutes) {
		want = calloc(sp->nroutes, sizeof(*want));
		done = calloc(sp->nroutes, sizeof(*done));
	}
	pfx = calloc(sp->nroutes + p->nsent + 1, sizeof(*pfx));
	if ((sp->nroutes && (!want || !done)) || !pfx) {
		bgp_conn_cease(&p->est->c, BGP_CEASE_OUT_OF_RESOURCES, NULL);
		goto out;
	}
	for (i = 0; i < sp->nroutes; i++)
		if (sp->routes[i].announce && family_on(p, sp->routes[i].pfx.family))
			want[nw++] = sp->routes[i];
	for (fam = AF_INET; fam && p->est; fam = fam == AF_INET ? AF_INET6 : 0) {
		/* withdrawals: sent, and no longer wanted */
		for (i = n = 0; i < p->nsent; i++)
			if (p->sent[i].pfx.family == fam && !find_route(want, nw, &p->sent[i].pfx))
				pfx[n++] = p->sent[i].pfx;
		send_prefixes(p, NULL, pfx, n, true);
		/* announcements: new or changed, grouped by attributes */
		for (i = 0; i < nw; i++) {
			const struct bgp_route *old;

			if (want[i].pfx.family != fam || done[i])
				continue;
			old = find_route(p->sent, p->nsent, &want[i].pfx);
			if (old && sp->gshut == p->sent_gshut && bgp_route_attrs_equal(old, &want[i]))
				continue;
			for (j = i, n = 0; j < nw; j++) {
				if (done[j] || want[j].pfx.family != fam ||
				    !bgp_route_attrs_equal(&want[i], &want[j]))
					continue;
				old = find_route(p->sent, p->nsent, &want[j].pfx);
				if (old && sp->gshut == p->sent_gshut &&
				    bgp_route_attrs_equal(old, &want[j]))
					continue;
				done[j] = true;
				pfx[n++] = want[j].pfx;
			}
			send_prefixes(p, &want[i], pfx, n, false);
		}
		if (full && p->est && family_on(p, fam)) {
			uint8_t buf[64];

			bgp_conn_send(&p->est->c, buf, bgp_eor_encode(buf, sizeof(buf),
				      fam == AF_INET ? BGP_AFI_IPV4 : BGP_AFI_IPV6));
		}
	}
	if (p->est) {
		free(p->sent);
		p->sent = want;
		p->nsent = nw;
		p->sent_gshut = sp->gshut;
		want = NULL;
	}
out:
	free(want);
	free(done);
	free(pfx);
}

int bgp_speaker_set_routes(struct bgp_speaker *sp, const struct bgp_route *r, unsigned int n)
{
	struct bgp_route *copy = NULL;
	unsigned int i;

	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -1;
		memcpy(copy, r, n * sizeof(*copy));
	}
	free(sp->routes);
	sp->routes = copy;
	sp->nroutes = n;
	for (i = 0; i < sp->npeers; i++)
		peer_sync(sp->peers[i], false);
	return 0;
}

void bgp_speaker_graceful_shutdown(struct bgp_speaker *sp, bool on)
{
	unsigned int i;

	if (sp->gshut == on)
		return;
	sp->gshut = on;
	for (i = 0; i < sp->npeers; i++)
		peer_sync(sp->peers[i], false);
}

bool bgp_speaker_gshut(const struct bgp_speaker *sp)
{
	return sp->gshut;
}
