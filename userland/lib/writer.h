/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: one writer for text and JSON output, after iproute2's print_uint(PRINT_ANY,
 * ...). A printer calls kmg_out_str(o, "weight", "3") once per field; in text mode that is
 * " weight 3" on the current line, in JSON mode the member "weight": 3 of the current object.
 * Text and JSON keys are therefore the same words.
 *
 * Shape: an array is a list of lines in text; each object opened in an array starts a new
 * line. An array opened after fields on the current line (a service's backends) is indented
 * two spaces below it. An object opened as a member ("stats") prints its fields inline. The first field of a line needs no leading
 * space: "service 192.0.2.1:80/tcp id 3 ...".
 */
#ifndef KMAGLEV_OUT_H
#define KMAGLEV_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#define KMG_OUT_DEPTH	8

struct kmg_out {
	FILE *f;
	bool json;
	bool pretty;
	bool secrets;			/* print secrets (--show-secrets) */
	json_object *root;		/* JSON: the document, printed by kmg_out_end() */
	json_object *stack[KMG_OUT_DEPTH];
	bool is_arr[KMG_OUT_DEPTH];
	bool indents[KMG_OUT_DEPTH];	/* text: an array whose lines are indented */
	unsigned int depth;
	unsigned int indent;		/* text: indented arrays open */
	bool midline;			/* text: the current line has fields */
};

void kmg_out_init(struct kmg_out *o, FILE *f, bool json, bool pretty);
/* JSON: print the document built since init (nothing if none); text: end the line. */
void kmg_out_end(struct kmg_out *o);

/* An object: member @key of the current object, or (@key NULL) the next array element. */
void kmg_out_open(struct kmg_out *o, const char *key);
void kmg_out_close(struct kmg_out *o);
void kmg_out_open_array(struct kmg_out *o, const char *key);
void kmg_out_close_array(struct kmg_out *o);

/* Fields. @text is how the value reads in text; JSON gets the typed value. */
void kmg_out_str(struct kmg_out *o, const char *key, const char *v);
void kmg_out_uint(struct kmg_out *o, const char *key, uint64_t v);
/* A number with @dec decimals; text adds @unit ("%"); JSON is the bare number. */
void kmg_out_double(struct kmg_out *o, const char *key, double v, int dec, const char *unit);
/* A number whose text form is @text ("30s"): durations. */
void kmg_out_num_text(struct kmg_out *o, const char *key, uint64_t v, const char *text);
/* JSON true/false, text "yes"/"no". */
void kmg_out_bool(struct kmg_out *o, const char *key, bool v);
/* JSON null, text "-". */
void kmg_out_none(struct kmg_out *o, const char *key);
/* A JSON-only member: the parts of a service's name (address, port, protocol). */
void kmg_out_json_str(struct kmg_out *o, const char *key, const char *v);
void kmg_out_json_uint(struct kmg_out *o, const char *key, uint64_t v);
/* Text: end the current line. JSON: nothing. */
void kmg_out_nl(struct kmg_out *o);
/* Text: end the current line and start one with @indent. JSON: nothing. */
void kmg_out_line(struct kmg_out *o, const char *indent);
/* Text: a word that names the line ("config"); JSON: nothing (the object's key names it). */
void kmg_out_label(struct kmg_out *o, const char *word);

/* A JSON number printed with @dec decimals (not 17 significant digits). */
json_object *kmg_json_double(double v, int dec);

#endif
