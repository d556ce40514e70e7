/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: printing objects as compact text (one object per line, like ip and ipvsadm) or
 * as JSON (json-c). Text printers write to a FILE; JSON builders return a new json_object the
 * caller owns, so both can be checked in memory.
 */
#ifndef KMAGLEV_OUTPUT_H
#define KMAGLEV_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

#include "msg.h"

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

/* Rows for every backend of @t; NULL (and *n = 0) if it has none. Caller frees. */
struct kmg_table_row *kmg_table_rows(const struct kmg_table *t, unsigned int *n);

/* Text. Each prints complete lines; @indent prefixes backend lines. */
void kmg_print_service(FILE *f, const struct kmg_service *s);
void kmg_print_backend(FILE *f, const char *indent, const struct kmg_backend *b);
void kmg_print_stats(FILE *f, const char *what, const struct kmg_stats *st);
void kmg_print_table(FILE *f, const struct kmg_service *s, const struct kmg_table *t);
void kmg_print_config(FILE *f, const struct kmg_config *c);
/*
 * Netns-wide counters: "global" with the summed service counters @st (may be NULL), then the
 * counters of @g (may be NULL) on indented lines of related counters, "  NAME VALUE ...".
 */
void kmg_print_global(FILE *f, const struct kmg_stats *st, const struct kmg_global_stats *g);
/* A notification, as one line prefixed with the event name. */
void kmg_print_event(FILE *f, const struct kmg_msg *m);

/* JSON. */
json_object *kmg_json_service(const struct kmg_service *s);
json_object *kmg_json_service_key(const struct kmg_service *s);
json_object *kmg_json_backend(const struct kmg_backend *b);
json_object *kmg_json_stats(const struct kmg_stats *st);
json_object *kmg_json_table(const struct kmg_service *s, const struct kmg_table *t);
json_object *kmg_json_config(const struct kmg_config *c);
/* One object with the members of both (all named as in the spec); either may be NULL. */
json_object *kmg_json_global(const struct kmg_stats *st, const struct kmg_global_stats *g);
/* A notification: {"event": "backend-new", "service": {...}, "backend": {...}}. */
json_object *kmg_json_event(const struct kmg_msg *m);
/* A number printed with @decimals digits after the point. */
json_object *kmg_json_double(double v, int decimals);
/* "0x0123456789abcdef": 64-bit values that JSON readers must not round. */
json_object *kmg_json_hex64(uint64_t v);

/* Print @obj (and drop the reference): pretty, or on one line. */
void kmg_json_print(FILE *f, json_object *obj, bool pretty);

#endif
