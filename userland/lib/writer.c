// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: the text and JSON output writer (see writer.h). */
#include <inttypes.h>
#include <string.h>

#include "lib/writer.h"

void kmg_out_init(struct kmg_out *o, FILE *f, bool json, bool pretty)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->json = json;
	o->pretty = pretty;
}

void kmg_out_nl(struct kmg_out *o)
{
	if (!o->json && o->midline) {
		fputc('\n', o->f);
		o->midline = false;
	}
}

void kmg_out_line(struct kmg_out *o, const char *indent)
{
	if (o->json)
		return;
	kmg_out_nl(o);
	fputs(indent, o->f);
}

void kmg_out_label(struct kmg_out *o, const char *word)
{
	if (o->json)
		return;
	fprintf(o->f, "%s%s", o->midline ? " " : "", word);
	o->midline = true;
}

void kmg_out_end(struct kmg_out *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (o->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
		     JSON_C_TO_STRING_PLAIN);

	kmg_out_nl(o);
	if (o->root) {
		fprintf(o->f, "%s\n", json_object_to_json_string_ext(o->root, flags));
		json_object_put(o->root);
	}
	o->root = NULL;
	o->depth = 0;
	o->indent = 0;
}

/* JSON: add @v as member @key of the current object, or to the current array. */
static void add(struct kmg_out *o, const char *key, json_object *v)
{
	json_object *cur;

	if (!o->depth) {
		/* a bare value at the top: the document itself */
		json_object_put(o->root);
		o->root = v;
		return;
	}
	cur = o->stack[o->depth - 1];
	if (o->is_arr[o->depth - 1])
		json_object_array_add(cur, v);
	else
		json_object_object_add(cur, key, v);
}

static void push(struct kmg_out *o, const char *key, bool arr)
{
	if (o->depth == KMG_OUT_DEPTH)
		return;
	o->indents[o->depth] = false;
	if (!o->json) {
		/* an element of an array is a line of its own */
		if (!arr && o->depth && o->is_arr[o->depth - 1]) {
			unsigned int i;

			kmg_out_nl(o);
			for (i = 0; i < o->indent; i++)
				fputs("  ", o->f);
		}
		/* the lines of an array below a line of fields are indented */
		if (arr && o->midline) {
			o->indents[o->depth] = true;
			o->indent++;
		}
		o->is_arr[o->depth++] = arr;
		return;
	}
	o->stack[o->depth] = arr ? json_object_new_array() : json_object_new_object();
	add(o, key, json_object_get(o->stack[o->depth]));
	o->is_arr[o->depth++] = arr;
}

static void pop(struct kmg_out *o)
{
	if (!o->depth)
		return;
	o->depth--;
	if (o->indents[o->depth])
		o->indent--;
	if (o->json)
		json_object_put(o->stack[o->depth]);
	else if (o->is_arr[o->depth] || !o->depth)
		kmg_out_nl(o);
}

void kmg_out_open(struct kmg_out *o, const char *key)
{
	push(o, key, false);
}

void kmg_out_close(struct kmg_out *o)
{
	pop(o);
}

void kmg_out_open_array(struct kmg_out *o, const char *key)
{
	push(o, key, true);
}

void kmg_out_close_array(struct kmg_out *o)
{
	pop(o);
}

static void text(struct kmg_out *o, const char *key, const char *v)
{
	fprintf(o->f, "%s%s %s", o->midline ? " " : "", key, v);
	o->midline = true;
}

void kmg_out_str(struct kmg_out *o, const char *key, const char *v)
{
	if (o->json)
		add(o, key, json_object_new_string(v));
	else
		text(o, key, v);
}

void kmg_out_uint(struct kmg_out *o, const char *key, uint64_t v)
{
	char buf[24];

	if (o->json) {
		add(o, key, json_object_new_uint64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	text(o, key, buf);
}

json_object *kmg_json_double(double v, int dec)
{
	char buf[48];

	/* serialized as printed here, not with 17 significant digits */
	snprintf(buf, sizeof(buf), "%.*f", dec, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));	/* no "-0.000" */
	return json_object_new_double_s(v, buf);
}

void kmg_out_double(struct kmg_out *o, const char *key, double v, int dec, const char *unit)
{
	json_object *j = kmg_json_double(v, dec);

	if (o->json) {
		add(o, key, j);
		return;
	}
	fprintf(o->f, "%s%s %s%s", o->midline ? " " : "", key, json_object_to_json_string(j),
		unit ? unit : "");
	o->midline = true;
	json_object_put(j);
}

void kmg_out_num_text(struct kmg_out *o, const char *key, uint64_t v, const char *t)
{
	if (o->json)
		add(o, key, json_object_new_uint64(v));
	else
		text(o, key, t);
}

void kmg_out_bool(struct kmg_out *o, const char *key, bool v)
{
	if (o->json)
		add(o, key, json_object_new_boolean(v));
	else
		text(o, key, v ? "yes" : "no");
}

void kmg_out_none(struct kmg_out *o, const char *key)
{
	if (o->json)
		add(o, key, NULL);
	else
		text(o, key, "-");
}

void kmg_out_json_str(struct kmg_out *o, const char *key, const char *v)
{
	if (o->json)
		add(o, key, json_object_new_string(v));
}

void kmg_out_json_uint(struct kmg_out *o, const char *key, uint64_t v)
{
	if (o->json)
		add(o, key, json_object_new_uint64(v));
}
