// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the bgp: section of the config file. The mode (builtin speaker or
 * routes), the AS and router ID, the neighbours, routes mode's table, and the BGP
 * attributes (communities, large communities, MED) that bgp: and a service's bgp: share.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bgp/routes.h"
#include "daemon/config_int.h"

/* --- bgp ---------------------------------------------------------------------------- */

/*
 * A list of communities at @key of @map into @a: "ASN:VALUE" (each 0..65535), or with
 * @large RFC 8092 large communities "GLOBAL:LOCAL1:LOCAL2" (each 0..4294967295).
 */
static void p_communities(struct ctx *c, const struct kmd_ynode *map, bool large,
			  char **list, unsigned int count, struct kmd_bgp_attrs *a)
{
	const char *key = large ? "large-communities" : "communities";
	const struct kmd_ynode *seq = kmd_ynode_get(map, key, NULL);
	unsigned int i, j, max = large ? KMG_ARRAY_SIZE(a->large) :
					 KMG_ARRAY_SIZE(a->communities);
	unsigned int *n = large ? &a->nlarge : &a->ncommunities;
	struct val v;
	size_t m;

	*n = 0;
	if (count > max) {
		cfg_val(map, key, NULL, &v);
		err_at(c, v.at, v.key, "%u %scommunities; at most %u", count,
		       large ? "large " : "", max);
	}
	for (i = 0; i < count && i < max; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);
		struct kmd_loc at = e ? e->loc : map->loc;
		unsigned long long x[3] = { 0 };
		struct bgp_large_community lc;
		const char *w = list[i];
		int end = 0, got;

		m = path_push(c, key, 0);
		path_push(c, NULL, i);
		got = large ? sscanf(w, "%10llu:%10llu:%10llu%n", &x[0], &x[1], &x[2], &end) :
			      sscanf(w, "%5llu:%5llu%n", &x[0], &x[1], &end);
		if (got != (large ? 3 : 2) || w[end] || !isdigit((unsigned char)w[0]) ||
		    strpbrk(w, "+- \t") || x[0] > (large ? UINT32_MAX : 65535) ||
		    x[1] > (large ? UINT32_MAX : 65535) || x[2] > UINT32_MAX) {
			err_at(c, at, NULL, large ? "\"%s\" is not a large community "
			       "GLOBAL:LOCAL1:LOCAL2 (each 0..4294967295)" :
			       "\"%s\" is not a community ASN:VALUE (each 0..65535)", w);
			path_pop(c, m);
			continue;
		}
		lc = (struct bgp_large_community){ x[0], x[1], x[2] };
		for (j = 0; j < *n; j++)
			if (large ? !memcmp(&a->large[j], &lc, sizeof(lc)) :
				    a->communities[j] == (x[0] << 16 | x[1]))
				break;
		if (j < *n)
			err_at(c, at, NULL, "%s is listed twice", w);
		else if (large)
			a->large[(*n)++] = lc;
		else
			a->communities[(*n)++] = x[0] << 16 | x[1];
		path_pop(c, m);
	}
}

/* communities, large-communities and med of @map (bgp: or a service's bgp:) */
void p_bgp_attrs(struct ctx *c, const struct kmd_ynode *map, char **comm,
			unsigned int ncomm, char **large, unsigned int nlarge, const char *med,
			struct kmd_bgp_attrs *a)
{
	struct val v;

	if (cfg_val(map, "med", med, &v) && p_u32(c, &v, 0, UINT32_MAX, &a->med))
		a->has_med = true;
	p_communities(c, map, false, comm, ncomm, a);
	p_communities(c, map, true, large, nlarge, a);
}

/*
 * A neighbour's bfd: mapping: BFD (RFC 5880/5881) tied to its session. min-tx and min-rx
 * (the Desired Min TX and Required Min RX intervals), 10ms..60s, default 300ms; multiplier,
 * 1..255, default 3.
 */
static void p_neighbor_bfd(struct ctx *c, const struct raw_bfd *r, const struct kmd_ynode *map,
			   struct kmd_bgp_neighbor *nb)
{
	const struct kmd_ynode *bm = kmd_ynode_get(map, "bfd", NULL);
	size_t m = path_push(c, "bfd", 0);
	struct val v;

	nb->bfd = true;
	nb->bfd_min_tx_ms = KMD_BFD_INTERVAL_DEFAULT_MS;
	nb->bfd_min_rx_ms = KMD_BFD_INTERVAL_DEFAULT_MS;
	nb->bfd_mult = KMD_BFD_MULT_DEFAULT;
	if (!bm)
		bm = map;
	if (cfg_val(bm, "min-tx", r->min_tx, &v))
		p_ms(c, &v, KMD_BFD_INTERVAL_MIN_MS, KMD_BFD_INTERVAL_MAX_MS, &nb->bfd_min_tx_ms);
	if (cfg_val(bm, "min-rx", r->min_rx, &v))
		p_ms(c, &v, KMD_BFD_INTERVAL_MIN_MS, KMD_BFD_INTERVAL_MAX_MS, &nb->bfd_min_rx_ms);
	if (cfg_val(bm, "multiplier", r->multiplier, &v))
		p_u32(c, &v, 1, 255, &nb->bfd_mult);
	path_pop(c, m);
}

static void p_neighbor(struct ctx *c, const struct raw_neighbor *r,
		       const struct kmd_ynode *map, struct kmd_bgp_neighbor *nb)
{
	struct val v;
	uint32_t x;

	nb->loc = map->loc;
	nb->port = KMD_BGP_PORT_DEFAULT;
	nb->hold_time_s = KMD_BGP_HOLD_DEFAULT_S;
	if (cfg_val(map, "address", r->address, &v) && p_addr(c, &v, 0, &nb->addr) &&
	    nb->addr.family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&nb->addr.v6))
		err_at(c, v.at, v.key, "%s is link-local: give the neighbour a global address",
		       v.s);
	if (cfg_val(map, "asn", r->asn, &v) && p_u32(c, &v, 1, UINT32_MAX, &nb->asn) &&
	    nb->asn == BGP_AS_TRANS)
		err_at(c, v.at, v.key, "23456 is AS_TRANS, no AS of its own (RFC 6793)");
	if (cfg_val(map, "port", r->port, &v) && p_u32(c, &v, 1, 65535, &x))
		nb->port = x;
	if (cfg_val(map, "hold-time", r->hold_time, &v) && p_time(c, &v, true, 0, 65535, &x)) {
		if (x == 1 || x == 2)
			err_at(c, v.at, v.key, "%s is neither 0s (no keepalives) nor 3s..65535s",
			       v.s);
		else
			nb->hold_time_s = x;
	}
	if (cfg_val(map, "password", r->password, &v))
		p_text(c, &v, 1, KMD_BGP_PASSWORD_MAX, false, &nb->password);
	if (cfg_val(map, "next-hop", r->next_hop, &v) && p_addr(c, &v, 0, &nb->next_hop) &&
	    nb->addr.family && nb->next_hop.family != nb->addr.family)
		err_at(c, v.at, v.key, "%s is not of the neighbour's address family (the "
		       "session carries its own family only)", v.s);
	if (cfg_val(map, "passive", r->passive, &v))
		p_bool(c, &v, &nb->passive);
	if (cfg_val(map, "multihop", r->multihop, &v) && p_u32(c, &v, 1, 255, &x))
		nb->multihop = x;
	if (cfg_val(map, "ttl-security", r->ttl_security, &v))
		p_bool(c, &v, &nb->ttl_security);
	if (cfg_val(map, "extended-next-hop", r->ext_next_hop, &v) &&
	    p_bool(c, &v, &nb->ext_next_hop) && nb->ext_next_hop &&
	    nb->addr.family == AF_INET)
		err_at(c, v.at, v.key, "only for an IPv6 neighbour (its session then carries "
		       "the IPv4 VIPs with IPv6 next hops)");
	if (r->bfd)
		p_neighbor_bfd(c, r->bfd, map, nb);
}

static const char *const bgp_mode_names[] = { "builtin", "routes" };

void p_bgp(struct ctx *c, const struct raw_bgp *r, const struct kmd_ynode *map,
		  struct kmd_bgp *b)
{
	const struct kmd_ynode *seq;
	size_t mark = path_push(c, "bgp", 0), m2;
	struct kmg_addr a;
	unsigned int i, j;
	struct val v;
	uint32_t x;

	b->present = true;
	b->loc = map->loc;
	b->listen_port = KMD_BGP_PORT_DEFAULT;
	b->local_pref = KMD_BGP_LOCAL_PREF_DEFAULT;
	b->gr_time_s = KMD_BGP_GR_TIME_DEFAULT_S;
	b->shutdown_time_ms = KMD_BGP_SHUTDOWN_DEFAULT_MS;
	b->routes_table = KMD_ROUTES_TABLE_DEFAULT;
	b->routes_proto = KMD_ROUTES_PROTO_DEFAULT;
	if (cfg_val(map, "mode", r->mode, &v) &&
	    p_enum(c, &v, bgp_mode_names, KMG_ARRAY_SIZE(bgp_mode_names), &x))
		b->mode = x;
	if (b->mode == KMD_BGP_BUILTIN) {
		/* the speaker needs these; routes mode leaves them to BIRD or FRR */
		if (!r->asn)
			err_at(c, map->loc, NULL, "missing required key \"asn\"");
		if (!r->router_id)
			err_at(c, map->loc, NULL, "missing required key \"router-id\"");
	} else if (r->neighbors_count || r->listen) {
		cfg_val(map, r->listen ? "listen" : "neighbors", NULL, &v);
		err_at(c, v.at, v.key, "is for mode builtin; mode routes speaks no BGP");
	}
	if (cfg_val(map, "asn", r->asn, &v) && p_u32(c, &v, 1, UINT32_MAX, &b->asn) &&
	    b->asn == BGP_AS_TRANS)
		err_at(c, v.at, v.key, "23456 is AS_TRANS, no AS of its own (RFC 6793)");
	if (cfg_val(map, "router-id", r->router_id, &v) && p_addr(c, &v, ADDR_V4, &a))
		b->router_id = a.v4;
	if (cfg_val(map, "listen", r->listen, &v))
		p_addr(c, &v, ADDR_UNSPEC, &b->listen);
	if (cfg_val(map, "listen-port", r->listen_port, &v) && p_u32(c, &v, 1, 65535, &x))
		b->listen_port = x;

	if (cfg_val(map, "local-pref", r->local_pref, &v))
		p_u32(c, &v, 0, UINT32_MAX, &b->local_pref);

	p_bgp_attrs(c, map, r->communities, r->communities_count, r->large_communities,
		    r->large_communities_count, r->med, &b->attrs);
	if (cfg_val(map, "graceful-restart-time", r->graceful_restart_time, &v) &&
	    p_time(c, &v, true, 0, BGP_GR_TIME_MAX, &x))
		b->gr_time_s = x;
	if (cfg_val(map, "shutdown-time", r->shutdown_time, &v) &&
	    p_time(c, &v, false, 0, 600000, &x))
		b->shutdown_time_ms = x;
	if (r->routes) {
		const struct kmd_ynode *rm = kmd_ynode_get(map, "routes", NULL);

		m2 = path_push(c, "routes", 0);
		if (cfg_val(rm, "table", r->routes->table, &v) && p_u32(c, &v, 1, UINT32_MAX, &x)) {
			if (x == 255)
				err_at(c, v.at, v.key, "255 is the kernel's local table");
			else
				b->routes_table = x;
		}
		if (cfg_val(rm, "protocol", r->routes->protocol, &v) && p_u32(c, &v, 5, 255, &x))
			b->routes_proto = x;
		if (b->mode != KMD_BGP_ROUTES)
			err_at(c, rm->loc, NULL, "only for mode routes (this is mode builtin)");
		path_pop(c, m2);
	}

	seq = kmd_ynode_get(map, "neighbors", NULL);
	if (r->neighbors_count) {
		b->neighbors = nomem(c, calloc(r->neighbors_count, sizeof(*b->neighbors)));
		if (b->neighbors)
			b->nneighbors = r->neighbors_count;
	}
	for (i = 0; i < b->nneighbors; i++) {
		const struct kmd_ynode *e = kmd_ynode_at(seq, i);

		m2 = path_push(c, "neighbors", 0);
		path_push(c, NULL, i);
		p_neighbor(c, &r->neighbors[i], e, &b->neighbors[i]);
		for (j = 0; b->neighbors[i].addr.family && j < i; j++)
			if (kmg_addr_equal(&b->neighbors[j].addr, &b->neighbors[i].addr)) {
				cfg_val(e, "address", r->neighbors[i].address, &v);
				err_at(c, v.at, v.key, "%s is neighbors[%u] too", v.s, j);
				break;
			}
		/* a passive neighbour must be able to reach us */
		if (b->neighbors[i].passive && b->neighbors[i].addr.family &&
		    (!b->listen.family || (b->listen.family == AF_INET &&
					    b->neighbors[i].addr.family == AF_INET6))) {
			cfg_val(e, "passive", r->neighbors[i].passive, &v);
			err_at(c, v.at, v.key, "needs bgp.listen (of the neighbour's family or ::) "
			       "to accept its connection");
		}
		path_pop(c, m2);
	}
	path_pop(c, mark);
}
