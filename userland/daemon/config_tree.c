// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: where each node of a YAML file is. libcyaml loads the values but gives no
 * positions, so libyaml's event parser is run over the same text to build a tree of nodes with
 * their line and column (and, in mappings, their keys' positions). The loader checks the
 * file's shape against the libcyaml schema on this tree, and finds every field's position here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "daemon/config_int.h"

struct builder {
	yaml_parser_t parser;
	struct kmd_ytree *t;
	struct {
		char *name;
		struct kmd_ynode *node;
	} *anchors;
	unsigned int nanchors;
	char problem[256];
	struct kmd_loc problem_loc;
};

static struct kmd_ynode *node_new(struct builder *b, enum kmd_ynode_type type,
				  const yaml_mark_t *m)
{
	struct kmd_ytree *t = b->t;
	struct kmd_ynode *n;

	if (kmg_grow(&t->all, t->nall, sizeof(*t->all)))
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	t->all[t->nall++] = n;
	n->type = type;
	n->loc.line = m->line + 1;
	n->loc.col = m->column + 1;
	return n;
}

static int add_anchor(struct builder *b, const yaml_char_t *anchor, struct kmd_ynode *n)
{
	char *name;

	if (!anchor)
		return 0;
	if (kmg_grow(&b->anchors, b->nanchors, sizeof(*b->anchors)))
		return -ENOMEM;
	name = strdup((const char *)anchor);
	if (!name)
		return -ENOMEM;
	b->anchors[b->nanchors].name = name;
	b->anchors[b->nanchors++].node = n;
	return 0;
}

static int child_add(struct kmd_ynode *parent, struct kmd_ynode *key, struct kmd_ynode *val)
{
	if (kmg_grow(&parent->kids, parent->n, sizeof(*parent->kids)))
		return -ENOMEM;
	if (parent->type == KMD_YMAP && kmg_grow(&parent->keys, parent->n, sizeof(*parent->keys)))
		return -ENOMEM;
	parent->kids[parent->n] = val;
	if (parent->type == KMD_YMAP)
		parent->keys[parent->n] = key;
	parent->n++;
	return 0;
}

static void syntax(struct builder *b, const char *what, const yaml_mark_t *m)
{
	snprintf(b->problem, sizeof(b->problem), "%s", what);
	b->problem_loc.line = m->line + 1;
	b->problem_loc.col = m->column + 1;
}

static int next_event(struct builder *b, yaml_event_t *e)
{
	if (yaml_parser_parse(&b->parser, e))
		return 0;
	syntax(b, b->parser.problem ? b->parser.problem : "bad YAML", &b->parser.problem_mark);
	return -EINVAL;
}

/* One node from the next event(s); -EINVAL with b->problem set on bad YAML. */
static int parse_node(struct builder *b, yaml_event_t *ev, struct kmd_ynode **out)
{
	struct kmd_ynode *n = NULL;
	const yaml_char_t *anchor = NULL;
	yaml_event_type_t end;
	unsigned int i;
	int ret = 0;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = node_new(b, KMD_YSCALAR, &ev->start_mark);
		if (!n)
			return -ENOMEM;
		n->str = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (!n->str)
			return -ENOMEM;
		if (strlen(n->str) != ev->data.scalar.length) {
			syntax(b, "a NUL character in a value", &ev->start_mark);
			return -EINVAL;
		}
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_ALIAS_EVENT:
		for (i = 0; i < b->nanchors; i++)
			if (!strcmp(b->anchors[i].name, (const char *)ev->data.alias.anchor))
				n = b->anchors[i].node;
		if (!n) {
			syntax(b, "unknown alias", &ev->start_mark);
			return -EINVAL;
		}
		*out = n;
		return 0;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (ev->type == YAML_MAPPING_START_EVENT) {
			n = node_new(b, KMD_YMAP, &ev->start_mark);
			anchor = ev->data.mapping_start.anchor;
			end = YAML_MAPPING_END_EVENT;
		} else {
			n = node_new(b, KMD_YSEQ, &ev->start_mark);
			anchor = ev->data.sequence_start.anchor;
			end = YAML_SEQUENCE_END_EVENT;
		}
		if (!n)
			return -ENOMEM;
		/* the anchor is known once the node is complete: no alias can make a loop */
		for (;;) {
			struct kmd_ynode *key = NULL, *val = NULL;
			yaml_event_t e;

			if (next_event(b, &e))
				return -EINVAL;
			if (e.type == end) {
				yaml_event_delete(&e);
				break;
			}
			if (n->type == KMD_YMAP) {
				ret = parse_node(b, &e, &key);
				yaml_event_delete(&e);
				if (ret)
					return ret;
				if (key->type != KMD_YSCALAR) {
					syntax(b, "a mapping key must be a plain value",
					       &(yaml_mark_t){ .line = key->loc.line - 1,
							       .column = key->loc.col - 1 });
					return -EINVAL;
				}
				if (next_event(b, &e))
					return -EINVAL;
			}
			ret = parse_node(b, &e, &val);
			yaml_event_delete(&e);
			if (ret)
				return ret;
			ret = child_add(n, key, val);
			if (ret)
				return ret;
		}
		break;
	default:
		syntax(b, "unexpected YAML event", &ev->start_mark);
		return -EINVAL;
	}
	if (add_anchor(b, anchor, n))
		return -ENOMEM;
	*out = n;
	return 0;
}

int kmd_ytree_build(struct kmd_ytree *t, const char *text, size_t len, char *problem,
		    size_t plen, struct kmd_loc *ploc)
{
	struct builder b = { .t = t };
	yaml_event_t e;
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!yaml_parser_initialize(&b.parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
	/* STREAM-START, then DOCUMENT-START or STREAM-END (an empty file) */
	ret = next_event(&b, &e);
	if (!ret) {
		yaml_event_delete(&e);
		ret = next_event(&b, &e);
	}
	if (!ret && e.type == YAML_DOCUMENT_START_EVENT) {
		yaml_event_delete(&e);
		ret = next_event(&b, &e);
		if (!ret) {
			ret = parse_node(&b, &e, &t->root);
			yaml_event_delete(&e);
		}
		if (!ret)
			ret = next_event(&b, &e);	/* DOCUMENT-END */
		if (!ret) {
			yaml_event_delete(&e);
			ret = next_event(&b, &e);
		}
		if (!ret && e.type != YAML_STREAM_END_EVENT) {
			syntax(&b, "more than one YAML document", &e.start_mark);
			yaml_event_delete(&e);
			ret = -EINVAL;
		}
	}
	if (!ret)
		yaml_event_delete(&e);
	for (i = 0; i < b.nanchors; i++)
		free(b.anchors[i].name);
	free(b.anchors);
	yaml_parser_delete(&b.parser);
	if (ret == -EINVAL) {
		snprintf(problem, plen, "%s", b.problem);
		*ploc = b.problem_loc;
	}
	if (ret)
		kmd_ytree_free(t);
	return ret;
}

void kmd_ytree_free(struct kmd_ytree *t)
{
	unsigned int i;

	for (i = 0; i < t->nall; i++) {
		free(t->all[i]->str);
		free(t->all[i]->kids);
		free(t->all[i]->keys);
		free(t->all[i]);
	}
	free(t->all);
	memset(t, 0, sizeof(*t));
}

struct kmd_ynode *kmd_ynode_get(const struct kmd_ynode *map, const char *key,
				struct kmd_loc *keyloc)
{
	unsigned int i;

	if (!map || map->type != KMD_YMAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (!strcmp(map->keys[i]->str, key)) {
			if (keyloc)
				*keyloc = map->keys[i]->loc;
			return map->kids[i];
		}
	return NULL;
}

struct kmd_ynode *kmd_ynode_at(const struct kmd_ynode *seq, unsigned int i)
{
	if (!seq || seq->type != KMD_YSEQ || i >= seq->n)
		return NULL;
	return seq->kids[i];
}
