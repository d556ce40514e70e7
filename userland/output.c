// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: text and JSON output of services, backends, stats, tables and events. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "output.h"
#include "schema.h"

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

static bool seed_is_zero(const uint8_t *seed)
{
	static const uint8_t zero[KMG_SEED_BYTES];

	return !memcmp(seed, zero, sizeof(zero));
}

/* --- table rows ------------------------------------------------------------------------ */

struct kmg_table_row *kmg_table_rows(const struct kmg_table *t, unsigned int *n)
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

/* --- text ------------------------------------------------------------------------------ */

void kmg_print_service(FILE *f, const struct kmg_service *s)
{
	char buf[INET6_ADDRSTRLEN + 64];

	fprintf(f, "service %s", kmg_fmt_service_name(s, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ID) &&
	    (s->present & (KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR6))))
		fprintf(f, " id %u", s->id);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_TABLE_SIZE))
		fprintf(f, " table-size %u", s->table_size);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_HASH))
		fprintf(f, " hash %s", kmg_fmt_hash(s->hash));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_FLAGS) && s->flags)
		fprintf(f, " flags %s", kmg_fmt_flags(s->flags, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_SEED) && !seed_is_zero(s->seed))
		fprintf(f, " seed %s", kmg_fmt_seed(s->seed, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_RAMP_PCT))
		fprintf(f, " ramp %u", s->ramp_pct);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_RAMP_MS) && s->ramp_ms)
		fprintf(f, " ramp-time %s", kmg_fmt_duration(s->ramp_ms, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_WINDOW_MS))
		fprintf(f, " window %s", kmg_fmt_duration(s->window_ms, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_MAX_CONNS) && s->max_conns)
		fprintf(f, " max-conns %u", s->max_conns);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_CLIENT_RATE) && s->client_rate)
		fprintf(f, " client-rate %u", s->client_rate);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ENCAP_SRC4) && s->encap_src4.s_addr)
		fprintf(f, " encap-src %s", inet_ntop(AF_INET, &s->encap_src4, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ENCAP_SRC6) && !IN6_IS_ADDR_UNSPECIFIED(&s->encap_src6))
		fprintf(f, " encap-src %s", inet_ntop(AF_INET6, &s->encap_src6, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_GENERATION))
		fprintf(f, " gen %u", s->generation);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_PREV_GENERATION)) {
		fprintf(f, " prev-gen %u", s->prev_generation);
		if (KMG_HAS(s, KMAGLEV_A_SERVICE_RAMP_NOW))
			fprintf(f, " ramp-now %u%%", s->ramp_now);
		if (KMG_HAS(s, KMAGLEV_A_SERVICE_WINDOW_LEFT_MS))
			fprintf(f, " window-left %s",
				kmg_fmt_duration(s->window_left_ms, buf, sizeof(buf)));
	}
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_BACKENDS))
		fprintf(f, " backends %u", s->backends);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_TABLE_BYTES))
		fprintf(f, " table %" PRIu64 "B", s->table_bytes);
	fputc('\n', f);
}

void kmg_print_backend(FILE *f, const char *indent, const struct kmg_backend *b)
{
	char addr[INET6_ADDRSTRLEN];

	fprintf(f, "%sbackend %s", indent, kmg_fmt_addr(&b->addr, addr, sizeof(addr)));
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_ID))
		fprintf(f, " id %u", b->id);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_WEIGHT))
		fprintf(f, " weight %u", b->weight);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_STATE))
		fprintf(f, " state %s", kmg_fmt_state(b->state));
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_ENCAP))
		fprintf(f, " encap %s", kmg_fmt_encap(b->encap));
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_GRE_KEY))
		fprintf(f, " gre-key %u", b->gre_key);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_MAX_CONNS) && b->max_conns)
		fprintf(f, " max-conns %u", b->max_conns);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_SLOTS))
		fprintf(f, " slots %u", b->slots);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_STATS) &&
	    KMG_HAS(&b->stats, KMAGLEV_A_STATS_CONNS))
		fprintf(f, " conns %" PRIu64, b->stats.conns);
	fputc('\n', f);
}

void kmg_print_stats(FILE *f, const char *what, const struct kmg_stats *st)
{
	fputs(what, f);
	if (KMG_HAS(st, KMAGLEV_A_STATS_PACKETS))
		fprintf(f, " packets %" PRIu64, st->packets);
	if (KMG_HAS(st, KMAGLEV_A_STATS_BYTES))
		fprintf(f, " bytes %" PRIu64, st->bytes);
	if (KMG_HAS(st, KMAGLEV_A_STATS_NEW_FLOWS))
		fprintf(f, " new-flows %" PRIu64, st->new_flows);
	if (KMG_HAS(st, KMAGLEV_A_STATS_CONNS))
		fprintf(f, " conns %" PRIu64, st->conns);
	fputc('\n', f);
}

static void print_table_summary(FILE *f, const struct kmg_service *s, const struct kmg_table *t)
{
	char buf[INET6_ADDRSTRLEN + 64];

	fprintf(f, "table %s", kmg_fmt_service_name(s, buf, sizeof(buf)));
	if (KMG_HAS(t, KMAGLEV_A_TABLE_SIZE))
		fprintf(f, " size %u", t->size);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_GENERATION))
		fprintf(f, " gen %u", t->generation);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_BYTES)) {
		fprintf(f, " bytes %" PRIu64, t->bytes);
		if (t->size)
			fprintf(f, " bytes/slot %.2f", (double)t->bytes / t->size);
	}
	if (KMG_HAS(t, KMAGLEV_A_TABLE_MIN_SLOTS))
		fprintf(f, " min-slots %u", t->min_slots);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_MAX_SLOTS))
		fprintf(f, " max-slots %u", t->max_slots);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_DIGEST))
		fprintf(f, " digest 0x%016" PRIx64, t->digest);
	fputc('\n', f);
}

void kmg_print_table(FILE *f, const struct kmg_service *s, const struct kmg_table *t)
{
	char addr[INET6_ADDRSTRLEN];
	struct kmg_table_row *rows;
	unsigned int n, i;

	print_table_summary(f, s, t);
	rows = kmg_table_rows(t, &n);
	for (i = 0; i < n; i++) {
		const struct kmg_table_row *r = &rows[i];

		fprintf(f, "  backend %s weight %u state %s slots %u share %.3f%%",
			kmg_fmt_addr(&r->be->addr, addr, sizeof(addr)), r->weight,
			kmg_fmt_state(r->state), r->be->slots, 100 * r->share);
		if (r->eligible)
			fprintf(f, " expected %.3f%% deviation %+.3f%%\n", 100 * r->expected,
				100 * r->deviation);
		else
			fprintf(f, " expected 0.000%% deviation -\n");
	}
	free(rows);
}

void kmg_print_config(FILE *f, const struct kmg_config *c)
{
	fputs("config", f);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_MAX_SERVICES))
		fprintf(f, " max-services %u", c->max_services);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_MAX_BACKENDS))
		fprintf(f, " max-backends %u", c->max_backends);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_SERVICES))
		fprintf(f, " services %u", c->services);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_BACKENDS))
		fprintf(f, " backends %u", c->backends);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_CONN_MAX))
		fprintf(f, " conn-max %u", c->conn_max);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_CONNS))
		fprintf(f, " conns %u", c->conns);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN))
		fprintf(f, " timeout-tcp-syn %us", c->timeout_tcp_syn);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST))
		fprintf(f, " timeout-tcp-est %us", c->timeout_tcp_est);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN))
		fprintf(f, " timeout-tcp-fin %us", c->timeout_tcp_fin);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_UDP))
		fprintf(f, " timeout-udp %us", c->timeout_udp);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_FLOOD_RATE))
		fprintf(f, " flood-rate %u", c->flood_rate);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN))
		fprintf(f, " probe-mark-min %u", c->probe_mark_min);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX))
		fprintf(f, " probe-mark-max %u", c->probe_mark_max);
	fputc('\n', f);
}

/* Related counters share a line: the group of a counter is the number of these it follows. */
static int global_group(unsigned int t)
{
	return (t >= KMAGLEV_A_GLOBAL_STATS_DROP_MALFORMED) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_ICMP_PTB_SENT) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_CONN_NEW) +
	       (t >= KMAGLEV_A_GLOBAL_STATS_BACKEND_LIMIT);
}

void kmg_print_global(FILE *f, const struct kmg_stats *st, const struct kmg_global_stats *g)
{
	bool open = false;
	unsigned int t;
	int group = -1;

	if (st)
		kmg_print_stats(f, "global", st);
	else
		fputs("global\n", f);
	if (!g)
		return;
	for (t = 1; t <= KMAGLEV_A_GLOBAL_STATS_MAX; t++) {
		const struct kmg_attr_desc *d = kmg_attr_desc(&kmg_schema_global_stats, t);

		if (!d || !KMG_HAS(g, t))
			continue;
		if (open && global_group(t) != group) {
			fputc('\n', f);
			open = false;
		}
		group = global_group(t);
		fprintf(f, "%s%s %" PRIu64, open ? " " : "  ", d->name, g->v[t]);
		open = true;
	}
	if (open)
		fputc('\n', f);
}

void kmg_print_event(FILE *f, const struct kmg_msg *m)
{
	const char *name = kmg_cmd_name(m->cmd);
	char buf[INET6_ADDRSTRLEN + 64];
	unsigned int i;

	fprintf(f, "%s ", name ? name : "unknown");
	if (KMG_HAS(m, KMAGLEV_A_TABLE)) {
		print_table_summary(f, &m->svc, &m->table);
		return;
	}
	if (m->nbe) {
		fprintf(f, "service %s ", kmg_fmt_service_name(&m->svc, buf, sizeof(buf)));
		for (i = 0; i < m->nbe; i++)
			kmg_print_backend(f, i ? "  " : "", &m->be[i]);
		return;
	}
	if (KMG_HAS(m, KMAGLEV_A_SERVICE)) {
		kmg_print_service(f, &m->svc);
		return;
	}
	if (KMG_HAS(m, KMAGLEV_A_CONFIG)) {
		kmg_print_config(f, &m->config);
		return;
	}
	fputc('\n', f);
}

/* --- JSON ------------------------------------------------------------------------------ */

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_u32(json_object *o, const char *k, uint32_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_u64(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

json_object *kmg_json_double(double v, int decimals)
{
	char buf[48];

	/* serialized as printed here, not with 17 significant digits */
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));	/* no "-0.000" */
	return json_object_new_double_s(v, buf);
}

json_object *kmg_json_hex64(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
	return json_object_new_string(buf);
}

json_object *kmg_json_service_key(const struct kmg_service *s)
{
	json_object *o = json_object_new_object();
	char buf[INET6_ADDRSTRLEN + 32];

	if (s->present & (KMG_BIT(KMAGLEV_A_SERVICE_ADDR4) | KMG_BIT(KMAGLEV_A_SERVICE_ADDR6))) {
		add_str(o, "service", kmg_fmt_svc_key(&s->key, buf, sizeof(buf)));
		add_str(o, "address", kmg_fmt_addr(&s->key.addr, buf, sizeof(buf)));
		add_u32(o, "port", s->key.port);
		add_str(o, "protocol", kmg_fmt_proto(s->key.proto));
	}
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ID))
		add_u32(o, "id", s->id);
	return o;
}

static json_object *flags_array(uint32_t flags)
{
	json_object *a = json_object_new_array();
	char buf[64], *tok, *save;

	if (!flags)
		return a;
	kmg_fmt_flags(flags, buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		json_object_array_add(a, json_object_new_string(tok));
	return a;
}

json_object *kmg_json_service(const struct kmg_service *s)
{
	json_object *o = kmg_json_service_key(s);
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned int i;

	if (KMG_HAS(s, KMAGLEV_A_SERVICE_TABLE_SIZE))
		add_u32(o, "table-size", s->table_size);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_HASH))
		add_str(o, "hash", kmg_fmt_hash(s->hash));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_FLAGS))
		json_object_object_add(o, "flags", flags_array(s->flags));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_SEED))
		add_str(o, "seed", kmg_fmt_seed(s->seed, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_RAMP_PCT))
		add_u32(o, "ramp-pct", s->ramp_pct);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_RAMP_MS))
		add_u32(o, "ramp-ms", s->ramp_ms);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_WINDOW_MS))
		add_u32(o, "window-ms", s->window_ms);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_MAX_CONNS))
		add_u32(o, "max-conns", s->max_conns);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_CLIENT_RATE))
		add_u32(o, "client-rate", s->client_rate);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ENCAP_SRC4))
		add_str(o, "encap-src4", inet_ntop(AF_INET, &s->encap_src4, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_ENCAP_SRC6))
		add_str(o, "encap-src6", inet_ntop(AF_INET6, &s->encap_src6, buf, sizeof(buf)));
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_GENERATION))
		add_u32(o, "generation", s->generation);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_PREV_GENERATION))
		add_u32(o, "prev-generation", s->prev_generation);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_RAMP_NOW))
		add_u32(o, "ramp-now", s->ramp_now);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_WINDOW_LEFT_MS))
		add_u32(o, "window-left-ms", s->window_left_ms);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_BACKENDS))
		add_u32(o, "backend-count", s->backends);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_TABLE_BYTES))
		add_u64(o, "table-bytes", s->table_bytes);
	if (KMG_HAS(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS) || s->nbe ||
	    KMG_HAS(s, KMAGLEV_A_SERVICE_BACKEND)) {
		json_object *a = json_object_new_array();

		for (i = 0; i < s->nbe; i++)
			json_object_array_add(a, kmg_json_backend(&s->be[i]));
		json_object_object_add(o, "backends", a);
	}
	return o;
}

json_object *kmg_json_stats(const struct kmg_stats *st)
{
	json_object *o = json_object_new_object();

	if (KMG_HAS(st, KMAGLEV_A_STATS_PACKETS))
		add_u64(o, "packets", st->packets);
	if (KMG_HAS(st, KMAGLEV_A_STATS_BYTES))
		add_u64(o, "bytes", st->bytes);
	if (KMG_HAS(st, KMAGLEV_A_STATS_NEW_FLOWS))
		add_u64(o, "new-flows", st->new_flows);
	if (KMG_HAS(st, KMAGLEV_A_STATS_CONNS))
		add_u64(o, "conns", st->conns);
	return o;
}

json_object *kmg_json_backend(const struct kmg_backend *b)
{
	json_object *o = json_object_new_object();
	char addr[INET6_ADDRSTRLEN];

	if (b->present & KMG_BE_ADDR_MASK)
		add_str(o, "address", kmg_fmt_addr(&b->addr, addr, sizeof(addr)));
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_ID))
		add_u32(o, "id", b->id);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_WEIGHT))
		add_u32(o, "weight", b->weight);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_STATE))
		add_str(o, "state", kmg_fmt_state(b->state));
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_ENCAP))
		add_str(o, "encap", kmg_fmt_encap(b->encap));
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_GRE_KEY))
		add_u32(o, "gre-key", b->gre_key);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_MAX_CONNS))
		add_u32(o, "max-conns", b->max_conns);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_SLOTS))
		add_u32(o, "slots", b->slots);
	if (KMG_HAS(b, KMAGLEV_A_BACKEND_STATS))
		json_object_object_add(o, "stats", kmg_json_stats(&b->stats));
	return o;
}

json_object *kmg_json_table(const struct kmg_service *s, const struct kmg_table *t)
{
	json_object *o = kmg_json_service_key(s), *a;
	struct kmg_table_row *rows;
	unsigned int n, i;

	if (KMG_HAS(t, KMAGLEV_A_TABLE_SIZE))
		add_u32(o, "size", t->size);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_GENERATION))
		add_u32(o, "generation", t->generation);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_BYTES)) {
		add_u64(o, "bytes", t->bytes);
		if (t->size)
			json_object_object_add(o, "bytes-per-slot",
					       kmg_json_double((double)t->bytes / t->size, 3));
	}
	if (KMG_HAS(t, KMAGLEV_A_TABLE_MIN_SLOTS))
		add_u32(o, "min-slots", t->min_slots);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_MAX_SLOTS))
		add_u32(o, "max-slots", t->max_slots);
	if (KMG_HAS(t, KMAGLEV_A_TABLE_DIGEST))
		json_object_object_add(o, "digest", kmg_json_hex64(t->digest));
	a = json_object_new_array();
	rows = kmg_table_rows(t, &n);
	for (i = 0; i < n; i++) {
		const struct kmg_table_row *r = &rows[i];
		json_object *b = kmg_json_backend(r->be);

		json_object_object_add(b, "eligible", json_object_new_boolean(r->eligible));
		json_object_object_add(b, "share-pct", kmg_json_double(100 * r->share, 3));
		json_object_object_add(b, "expected-pct",
				       kmg_json_double(100 * r->expected, 3));
		json_object_object_add(b, "deviation-pct", r->eligible ?
				       kmg_json_double(100 * r->deviation, 3) : NULL);
		json_object_array_add(a, b);
	}
	free(rows);
	json_object_object_add(o, "backends", a);
	return o;
}

json_object *kmg_json_config(const struct kmg_config *c)
{
	json_object *o = json_object_new_object();

	if (KMG_HAS(c, KMAGLEV_A_CONFIG_MAX_SERVICES))
		add_u32(o, "max-services", c->max_services);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_MAX_BACKENDS))
		add_u32(o, "max-backends", c->max_backends);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_SERVICES))
		add_u32(o, "services", c->services);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_BACKENDS))
		add_u32(o, "backends", c->backends);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_CONN_MAX))
		add_u32(o, "conn-max", c->conn_max);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_CONNS))
		add_u32(o, "conns", c->conns);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN))
		add_u32(o, "timeout-tcp-syn", c->timeout_tcp_syn);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST))
		add_u32(o, "timeout-tcp-est", c->timeout_tcp_est);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_TCP_FIN))
		add_u32(o, "timeout-tcp-fin", c->timeout_tcp_fin);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_TIMEOUT_UDP))
		add_u32(o, "timeout-udp", c->timeout_udp);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_FLOOD_RATE))
		add_u32(o, "flood-rate", c->flood_rate);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN))
		add_u32(o, "probe-mark-min", c->probe_mark_min);
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX))
		add_u32(o, "probe-mark-max", c->probe_mark_max);
	return o;
}

json_object *kmg_json_global(const struct kmg_stats *st, const struct kmg_global_stats *g)
{
	json_object *o = st ? kmg_json_stats(st) : json_object_new_object();
	unsigned int t;

	for (t = 1; g && t <= KMAGLEV_A_GLOBAL_STATS_MAX; t++) {
		const struct kmg_attr_desc *d = kmg_attr_desc(&kmg_schema_global_stats, t);

		if (d && KMG_HAS(g, t))
			add_u64(o, d->name, g->v[t]);
	}
	return o;
}

json_object *kmg_json_event(const struct kmg_msg *m)
{
	json_object *o = json_object_new_object();
	const char *name = kmg_cmd_name(m->cmd);
	unsigned int i;

	add_str(o, "event", name ? name : "unknown");
	if (KMG_HAS(m, KMAGLEV_A_TABLE)) {
		json_object_object_add(o, "service", kmg_json_service_key(&m->svc));
		json_object_object_add(o, "table", kmg_json_table(&m->svc, &m->table));
	} else if (KMG_HAS(m, KMAGLEV_A_SERVICE)) {
		json_object_object_add(o, "service", m->nbe ? kmg_json_service_key(&m->svc) :
				       kmg_json_service(&m->svc));
	}
	if (m->nbe == 1) {
		json_object_object_add(o, "backend", kmg_json_backend(&m->be[0]));
	} else if (m->nbe) {
		json_object *a = json_object_new_array();

		for (i = 0; i < m->nbe; i++)
			json_object_array_add(a, kmg_json_backend(&m->be[i]));
		json_object_object_add(o, "backends", a);
	}
	if (KMG_HAS(m, KMAGLEV_A_STATS))
		json_object_object_add(o, "stats", kmg_json_stats(&m->stats));
	if (KMG_HAS(m, KMAGLEV_A_CONFIG))
		json_object_object_add(o, "config", kmg_json_config(&m->config));
	return o;
}

void kmg_json_print(FILE *f, json_object *obj, bool pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
		     JSON_C_TO_STRING_PLAIN);

	fprintf(f, "%s\n", json_object_to_json_string_ext(obj, flags));
	json_object_put(obj);
}
