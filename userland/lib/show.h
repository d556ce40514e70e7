/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: printing the family's objects through one writer (writer.h), so that text and
 * JSON carry the same keys. The settings and counters of an object come from its field table
 * (msg.h); what is printed by hand is an object's name and what the CLI derives.
 *
 * Rules, the same in text and JSON:
 * - a field is printed when the kernel reports it;
 * - a field whose zero means "not set" (KMG_FF_OMIT0: flags, seed, ramp-time, max-conns,
 *   client-rate, encap-src4/6) is left out when zero;
 * - secrets (the seed) print as "(hidden)" unless --show-secrets;
 * - a dscp-map prints as its entries, "ef=critical-plus,cs1=sheddable" ("none": empty), in
 *   JSON as an object of the same entries, {"ef": "critical-plus", "cs1": "sheddable"};
 * - the first key of an object is its kind, with its name as the value ("service
 *   192.0.2.1:80/tcp", "backend 10.0.0.1"); JSON adds only the parts of a service's name:
 *   "address", "port" and "protocol".
 */
#ifndef KMAGLEV_OUTPUT_H
#define KMAGLEV_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "lib/dscp.h"
#include "lib/msg.h"
#include "lib/writer.h"

/* "192.0.2.10:80/tcp", or "id 7" for a service known only by its id. */
const char *kmg_fmt_service_name(const struct kmg_service *s, char *buf, size_t len);

/* A table's backends with the shares the table gives them and the shares their weights ask. */
struct kmg_table_row {
	const struct kmg_backend *be;
	bool eligible;			/* state up and weight > 0: gets slots */
	uint32_t weight;		/* WEIGHT, default 1 */
	uint32_t state;			/* STATE, default up */
	double share;			/* slots / size */
	double expected;		/* weight / sum of eligible weights; 0 if not eligible */
	double deviation;		/* share / expected - 1; 0 if not eligible */
};

/* Every field of @s that the rules above print. */
void kmg_out_fields(struct kmg_out *o, const struct kmg_object *obj, const void *s);
/*
 * One field's value as text ("30s", "echo,defrag", "(hidden)"), as the CLI reads it back.
 * KMG_FIELD_TEXT_LEN holds any field: the longest are dscp-map's entries (1281 bytes) and
 * ingress-dev's list of names (255 bytes).
 */
#define KMG_FIELD_TEXT_LEN	(KMG_DSCP_MAP_TEXT_LEN > KMAGLEV_INGRESS_DEV_LEN_MAX + 1 ? \
				 KMG_DSCP_MAP_TEXT_LEN : KMAGLEV_INGRESS_DEV_LEN_MAX + 1)
const char *kmg_fmt_field(const struct kmg_out *o, const struct kmg_object *obj,
			  const struct kmg_field *f, const void *s, char *buf, size_t len);

/* "service NAME" (plus JSON's address, port, protocol) and the id. */
void kmg_out_service_name(struct kmg_out *o, const char *kind, const struct kmg_service *s);
/*
 * A service, as an element of the current array (@key NULL) or a member: its name, settings
 * and state, then (if @backends) its backends as an array (lines below it in text).
 */
void kmg_out_service(struct kmg_out *o, const char *key, const struct kmg_service *s,
		     bool backends);
/*
 * A backend, with its counters if the kernel sent them: an element of the current array
 * (@key NULL) or a member.
 */
void kmg_out_backend(struct kmg_out *o, const char *key, const struct kmg_backend *b);
/* A table: summary, then a row per backend with its share. */
void kmg_out_table(struct kmg_out *o, const struct kmg_service *s, const struct kmg_table *t);
void kmg_out_config(struct kmg_out *o, const struct kmg_config *c);
/* Netns-wide counters: the sums over services @st and the data path's @g (either NULL). */
void kmg_out_global(struct kmg_out *o, const struct kmg_stats *st,
		    const struct kmg_global_stats *g);
/* A notification's payload (after the event's own fields). */
void kmg_out_event(struct kmg_out *o, const struct kmg_msg *m);

#endif
