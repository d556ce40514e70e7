// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: the family's objects through the text/JSON writer (see show.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "lib/show.h"
#include "lib/schema.h"

const char *kmg_fmt_service_name(const struct kmg_service *s, char *buf, size_t len)
{
	if (s->present & (KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR6)))
		return kmg_fmt_svc_key(&s->key, buf, len);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ID))
		snprintf(buf, len, "id %u", s->id);
	else
		snprintf(buf, len, "?");
	return buf;
}

/* --- table rows ------------------------------------------------------------------------ */

/* Rows for every backend of @t; NULL (and *n = 0) if it has none. Caller frees. */
static struct kmg_table_row *kmg_table_rows(const struct kmg_table *t, unsigned int *n)
{
	struct kmg_table_row *rows;
	uint64_t wsum = 0;
	unsigned int i;

	*n = 0;
	if (!t->nbe)
		return NULL;
	rows = calloc(t->nbe, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = 0; i < t->nbe; i++) {
		const struct kmg_backend *b = &t->be[i];
		struct kmg_table_row *r = &rows[i];

		r->be = b;
		r->weight = KMG_HAS(b, KMAGLEV_A_BACKEND_WEIGHT) ? b->weight : 1;
		r->state = KMG_HAS(b, KMAGLEV_A_BACKEND_STATE) ? b->state : KMAGLEV_BACKEND_STATE_UP;
		r->eligible = r->state == KMAGLEV_BACKEND_STATE_UP && r->weight > 0;
		if (r->eligible)
			wsum += r->weight;
		r->share = t->size ? (double)b->slots / t->size : 0;
	}
	for (i = 0; i < t->nbe; i++) {
		struct kmg_table_row *r = &rows[i];

		if (!r->eligible || !wsum)
			continue;
		r->expected = (double)r->weight / wsum;
		r->deviation = r->share / r->expected - 1;
	}
	*n = t->nbe;
	return rows;
}

/* --- fields ---------------------------------------------------------------------------- */

const char *kmg_fmt_field(const struct kmg_out *o, const struct kmg_object *obj,
			  const struct kmg_field *f, const void *s, char *buf, size_t len)
{
	const struct kmg_attr_desc *d = kmg_field_desc(obj, f);
	const void *p = (const char *)s + f->off;
	uint64_t v = kmg_field_uint(obj, f, s);

	if (f->flags & KMG_FF_SECRET && !o->secrets) {
		snprintf(buf, len, "(hidden)");
		return buf;
	}
	switch (f->fmt) {
	case KMG_FMT_ADDR:
		return inet_ntop(d->hint == KMG_HINT_IPV4 ? AF_INET : AF_INET6, p, buf, len);
	case KMG_FMT_ENUM:
		return kmg_fmt_enum(d->enm, v, buf, len);
	case KMG_FMT_FLAGS:
		return kmg_fmt_flags(d->enm, v, buf, len);
	case KMG_FMT_MS:
		return kmg_fmt_duration(v, buf, len);
	case KMG_FMT_SEC:
		return kmg_fmt_duration(v * 1000, buf, len);
	case KMG_FMT_HEX64:
		snprintf(buf, len, "0x%016" PRIx64, v);
		return buf;
	case KMG_FMT_SEED:
		return kmg_fmt_seed(p, buf, len);
	case KMG_FMT_STRING:
		snprintf(buf, len, "%s", (const char *)p);
		return buf;
	case KMG_FMT_DSCP_MAP:
		return kmg_fmt_dscp_map(p, buf, len);
	default:
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
}

/* A dscp-map as a JSON object of its entries, DSCP (by name where it has one) to class. */
static void out_dscp_map(struct kmg_out *o, const char *key, const uint8_t *map)
{
	char d[8], c[16];
	unsigned int i;

	kmg_out_open(o, key);
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		if (map[i])
			kmg_out_str(o, kmg_fmt_dscp(i, d, sizeof(d)),
				    kmg_fmt_dscp_class(map[i], c, sizeof(c)));
	kmg_out_close(o);
}

static void out_field(struct kmg_out *o, const struct kmg_object *obj, const struct kmg_field *f,
		      const void *s)
{
	const char *key = kmg_field_key(obj, f);
	uint64_t v = kmg_field_uint(obj, f, s);
	char buf[KMG_FIELD_TEXT_LEN];
	const struct kmg_enum *e;
	unsigned int i;

	const char *txt = kmg_fmt_field(o, obj, f, s, buf, sizeof(buf));

	switch (f->flags & KMG_FF_SECRET && !o->secrets ? KMG_FMT_SEED : f->fmt) {
	case KMG_FMT_UINT:
	case KMG_FMT_PRIME:
		kmg_out_uint(o, key, v);
		break;
	case KMG_FMT_MS:
	case KMG_FMT_SEC:
		kmg_out_num_text(o, key, v, txt);
		break;
	case KMG_FMT_FLAGS:
		if (!o->json) {
			kmg_out_str(o, key, txt);
			break;
		}
		/* JSON: an array of names (bits without a name as numbers) */
		e = kmg_field_desc(obj, f)->enm;
		kmg_out_open_array(o, key);
		for (i = 0; i < 32; i++) {
			if (!(v & (1ULL << i)))
				continue;
			if (i < e->n)
				kmg_out_str(o, NULL, e->names[i]);
			else
				kmg_out_uint(o, NULL, 1ULL << i);
		}
		kmg_out_close_array(o);
		break;
	case KMG_FMT_DSCP_MAP:
		if (!o->json) {
			kmg_out_str(o, key, txt);
			break;
		}
		/* JSON: {"ef": "critical-plus", ...}, the DSCPs in ascending order */
		out_dscp_map(o, key, (const uint8_t *)s + f->off);
		break;
	default:
		kmg_out_str(o, key, txt);
		break;
	}
}

void kmg_out_fields(struct kmg_out *o, const struct kmg_object *obj, const void *s)
{
	uint64_t present = *(const uint64_t *)s;
	unsigned int i;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];

		if (!((present >> f->attr) & 1))
			continue;
		if (f->flags & KMG_FF_OMIT0 && kmg_field_zero(obj, f, s))
			continue;
		out_field(o, obj, f, s);
	}
}

/* --- objects --------------------------------------------------------------------------- */

void kmg_out_service_name(struct kmg_out *o, const char *kind, const struct kmg_service *s)
{
	char buf[INET6_ADDRSTRLEN + 32];

	if (s->present & (KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR6))) {
		kmg_out_str(o, kind, kmg_fmt_svc_key(&s->key, buf, sizeof(buf)));
		kmg_out_json_str(o, "address", kmg_fmt_addr(&s->key.addr, buf, sizeof(buf)));
		kmg_out_json_uint(o, "port", s->key.port);
		kmg_out_json_str(o, "protocol", kmg_fmt_proto(s->key.proto));
	} else {
		kmg_out_str(o, kind, "?");
	}
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ID))
		kmg_out_uint(o, "id", s->id);
}

void kmg_out_backend(struct kmg_out *o, const char *key, const struct kmg_backend *b)
{
	char addr[INET6_ADDRSTRLEN];

	kmg_out_open(o, key);
	kmg_out_str(o, "backend", kmg_fmt_addr(&b->addr, addr, sizeof(addr)));
	kmg_out_fields(o, &kmg_obj_backend, b);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_STATS)) {
		kmg_out_open(o, "stats");
		kmg_out_fields(o, &kmg_obj_stats, &b->stats);
		kmg_out_close(o);
	}
	kmg_out_close(o);
}

void kmg_out_service(struct kmg_out *o, const char *key, const struct kmg_service *s,
		     bool backends)
{
	struct kmg_service tmp = *s;
	unsigned int i;

	kmg_out_open(o, key);
	kmg_out_service_name(o, "service", s);
	KMG_CLR(&tmp, KMAGLEV_A_SERVICE_ID);	/* printed with the name */
	kmg_out_fields(o, &kmg_obj_service, &tmp);
	if (backends) {
		kmg_out_open_array(o, "backends");
		for (i = 0; i < s->nbe; i++)
			kmg_out_backend(o, NULL, &s->be[i]);
		kmg_out_close_array(o);
	}
	kmg_out_close(o);
}

void kmg_out_table(struct kmg_out *o, const struct kmg_service *s, const struct kmg_table *t)
{
	char addr[INET6_ADDRSTRLEN];
	struct kmg_table_row *rows;
	unsigned int n, i;

	kmg_out_open(o, NULL);
	kmg_out_service_name(o, "table", s);
	kmg_out_fields(o, &kmg_obj_table, t);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_BYTES) && t->size)
		kmg_out_double(o, "bytes-per-slot", (double)t->bytes / t->size, 2, NULL);
	kmg_out_open_array(o, "backends");
	rows = kmg_table_rows(t, &n);
	for (i = 0; i < n; i++) {
		const struct kmg_table_row *r = &rows[i];

		kmg_out_open(o, NULL);
		kmg_out_str(o, "backend", kmg_fmt_addr(&r->be->addr, addr, sizeof(addr)));
		kmg_out_uint(o, "weight", r->weight);
		kmg_out_str(o, "state", kmg_fmt_enum(&kmg_enum_backend_state, r->state, addr,
						     sizeof(addr)));
		kmg_out_uint(o, "slots", r->be->slots);
		kmg_out_double(o, "share", 100 * r->share, 3, "%");
		kmg_out_double(o, "expected", 100 * r->expected, 3, "%");
		if (r->eligible)
			kmg_out_double(o, "deviation", 100 * r->deviation, 3, "%");
		else
			kmg_out_none(o, "deviation");
		kmg_out_close(o);
	}
	free(rows);
	kmg_out_close_array(o);
	kmg_out_close(o);
}

void kmg_out_config(struct kmg_out *o, const struct kmg_config *c)
{
	kmg_out_open(o, NULL);
	kmg_out_label(o, "config");
	kmg_out_fields(o, &kmg_obj_config, c);
	kmg_out_close(o);
}

/* Related counters share a text line: the group of a counter is the number of these it follows. */
static int global_group(unsigned int t)
{
	return (t >= KMAGLEV_A_GLOBAL_STATS_DROP_MALFORMED) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_ICMP_PTB_SENT) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_CONN_NEW) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_BACKEND_LIMIT) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_QUOTA_DROP) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_SHED_CONN_FILL) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_DR_NEIGH_FAILED);
}

void kmg_out_global(struct kmg_out *o, const struct kmg_stats *st,
		    const struct kmg_global_stats *g)
{
	unsigned int t;
	int group = -1;

	kmg_out_open(o, "global");
	kmg_out_label(o, "global");
	if (st)
		kmg_out_fields(o, &kmg_obj_stats, st);
	for (t = 1; g && t <= KMAGLEV_A_GLOBAL_STATS_MAX; t++) {
		const struct kmg_attr_desc *d = kmg_attr_desc(&kmg_schema_global_stats, t);

		if (!d || !KMG_HAS(g, t))
			continue;
		if (global_group(t) != group)
			kmg_out_line(o, "  ");
		group = global_group(t);
		kmg_out_uint(o, d->name, g->v[t]);
	}
	kmg_out_close(o);
	kmg_out_nl(o);
}

void kmg_out_event(struct kmg_out *o, const struct kmg_msg *m)
{
	unsigned int i;

	if (KMG_HAS(m, KMAGLEV_A_TABLE)) {
		kmg_out_open(o, "table");
		kmg_out_service_name(o, "table", &m->svc);
		kmg_out_fields(o, &kmg_obj_table, &m->table);
		kmg_out_close(o);
		return;
	}
	if (m->nbe) {
		kmg_out_service(o, "service", &m->svc, false);
		if (m->nbe == 1) {
			kmg_out_backend(o, "backend", &m->be[0]);
			return;
		}
		kmg_out_open_array(o, "backends");
		for (i = 0; i < m->nbe; i++)
			kmg_out_backend(o, NULL, &m->be[i]);
		kmg_out_close_array(o);
		return;
	}
	if (KMG_HAS(m, KMAGLEV_A_SERVICE))
		kmg_out_service(o, "service", &m->svc, false);
}
