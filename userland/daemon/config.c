// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: loading and validating the configuration file (see config.h).
 *
 * Three passes over one text. libyaml's event parser builds a tree of positions
 * (config_tree.c) and the tree's shape is checked against the libcyaml schema: unknown keys,
 * a list where a value belongs, missing required keys, a key given twice; every one is
 * reported. Then libcyaml loads the text into "raw" structs whose values are all strings
 * (a libcyaml failure is still reported, from its log). Last, each value is parsed and
 * checked with the position of its key, defaults are filled in, and cross-field rules run.
 * The kernel attributes' keys, ranges and enum names come from the CLI's field tables and
 * the generated schema, so the file takes exactly what `kmaglev service set` takes.
 *
 * Here: the passes in their order, the shape check, libcyaml's errors in the same form as
 * the others, and loading and freeing a config. The schema is config_schema.c, the values'
 * parsers config_value.c, the sections config_check.c, config_service.c, config_bgp.c and
 * config_global.c, the error reports config_err.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cyaml/cyaml.h>

#include "lib/args.h"
#include "daemon/config_int.h"

/* --- the shape of the file, against the schema ----------------------------------------- */

static const char *what(const struct kmd_ynode *n)
{
	switch (n->type) {
	case KMD_YMAP:
		return "a mapping";
	case KMD_YSEQ:
		return "a list";
	default:
		return "a single value";
	}
}

static void shape(struct ctx *c, const cyaml_schema_value_t *v, const struct kmd_ynode *n,
		  struct kmd_loc at)
{
	const cyaml_schema_field_t *f;
	unsigned int i, j;
	size_t mark;

	switch (v->type) {
	case CYAML_MAPPING:
		if (n->type != KMD_YMAP) {
			err_at(c, at, NULL, "expected a mapping (KEY: VALUE), not %s", what(n));
			return;
		}
		for (i = 0; i < n->n; i++) {
			const char *key = n->keys[i]->str;

			for (j = 0; j < i && strcmp(n->keys[j]->str, key); j++)
				;
			if (j < i) {
				err_at(c, n->keys[i]->loc, key, "given twice (first on line %u)",
				       n->keys[j]->loc.line);
				continue;
			}
			for (f = v->mapping.fields; f->key && strcmp(f->key, key); f++)
				;
			if (!f->key) {
				err_at(c, n->keys[i]->loc, key, "unknown key");
				continue;
			}
			mark = path_push(c, key, 0);
			shape(c, &f->value, n->kids[i], n->keys[i]->loc);
			path_pop(c, mark);
		}
		for (f = v->mapping.fields; f->key; f++)
			if (!(f->value.flags & CYAML_FLAG_OPTIONAL) &&
			    !kmd_ynode_get(n, f->key, NULL))
				err_at(c, n->loc, NULL, "missing required key \"%s\"", f->key);
		return;
	case CYAML_SEQUENCE:
		if (n->type != KMD_YSEQ) {
			err_at(c, at, NULL, "expected a list, not %s", what(n));
			return;
		}
		for (i = 0; i < n->n; i++) {
			mark = path_push(c, NULL, i);
			shape(c, v->sequence.entry, n->kids[i], n->kids[i]->loc);
			path_pop(c, mark);
		}
		return;
	case CYAML_IGNORE:
		return;		/* any shape: its parser checks it (a dscp-map) */
	default:
		if (n->type != KMD_YSCALAR)
			err_at(c, at, NULL, "expected a single value, not %s", what(n));
		return;
	}
}

/* --- libcyaml's own errors, in the same form ------------------------------------------- */

static void cyaml_log_cb(cyaml_log_t level, void *vctx, const char *fmt, va_list args)
{
	struct ctx *c = vctx;
	int n;

	if (level < CYAML_LOG_ERROR || c->loglen >= sizeof(c->log) - 1)
		return;
	n = vsnprintf(c->log + c->loglen, sizeof(c->log) - c->loglen, fmt, args);
	if (n > 0)
		c->loglen += (size_t)n < sizeof(c->log) - c->loglen ? (size_t)n :
			     sizeof(c->log) - c->loglen - 1;
}

/*
 * libcyaml logs "Load: MESSAGE" and a backtrace, innermost first:
 *   "  in mapping field 'weight' (line: 12, column: 9)", "  in sequence entry '2' (...)".
 */
static void cyaml_report(struct ctx *c, cyaml_err_t e)
{
	char msg[256] = "", *line, *save, *logc;
	struct kmd_loc at = { 1, 1 };
	char parts[16][72];
	unsigned int np = 0, i;
	bool have_at = false;

	logc = strdup(c->log);
	for (line = logc ? strtok_r(logc, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		size_t l, col;

		if (sscanf(line, " in mapping field '%63[^']' (line: %zu, column: %zu)", name, &l,
			   &col) == 3 ||
		    sscanf(line, " in sequence entry '%63[^']' (line: %zu, column: %zu)", name, &l,
			   &col) == 3) {
			if (!have_at) {
				at.line = l;
				at.col = col;
				have_at = true;
			}
			/* libcyaml counts sequence entries from 1 */
			if (np < KMG_ARRAY_SIZE(parts) && strstr(line, "in sequence"))
				snprintf(parts[np++], sizeof(parts[0]), "[%ld]",
					 strtol(name, NULL, 10) - 1);
			else if (np < KMG_ARRAY_SIZE(parts))
				snprintf(parts[np++], sizeof(parts[0]), "%s", name);
		} else if (!strncmp(line, "Load: ", 6) && strcmp(line, "Load: Backtrace:") &&
			   !msg[0]) {
			snprintf(msg, sizeof(msg), "%s", line + 6);
		}
	}
	free(logc);
	for (i = np; i-- > 0;) {
		if (parts[i][0] != '[' && c->plen)
			snprintf(c->path + c->plen, sizeof(c->path) - c->plen, ".");
		c->plen = strlen(c->path);
		snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "%s", parts[i]);
		c->plen = strlen(c->path);
	}
	err_at(c, at, NULL, "%s", msg[0] ? msg : cyaml_strerror(e));
	path_pop(c, 0);
}

void kmd_config_cyaml_error(const char *name, const char *log, FILE *err)
{
	struct ctx c = { .name = name, .err = err };

	snprintf(c.log, sizeof(c.log), "%s", log);
	c.loglen = strlen(c.log);
	cyaml_report(&c, CYAML_ERR_INVALID_VALUE);
}

/* --- loading ------------------------------------------------------------------------- */

void kmd_config_free(struct kmd_config *cfg)
{
	unsigned int i, j;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nservices; i++) {
		struct kmd_service *s = &cfg->services[i];

		for (j = 0; j < s->nbackends; j++)
			checks_free(s->backends[j].checks, s->backends[j].nchecks);
		free(s->backends);
		checks_free(s->checks, s->nchecks);
	}
	free(cfg->services);
	for (i = 0; i < cfg->bgp.nneighbors; i++)
		free(cfg->bgp.neighbors[i].password);
	free(cfg->bgp.neighbors);
	free(cfg->daemon.owner);
	free(cfg->daemon.socket);
	free(cfg->path);
	free(cfg);
}

/* Does any check of @s, the service's or a backend's own, satisfy @pred? */
static bool service_any_check(const struct kmd_service *s,
			      bool (*pred)(const struct kmd_check *))
{
	unsigned int k, n;

	for (n = 0; n < s->nchecks; n++)
		if (pred(&s->checks[n]))
			return true;
	for (k = 0; k < s->nbackends; k++)
		for (n = 0; n < s->backends[k].nchecks; n++)
			if (pred(&s->backends[k].checks[n]))
				return true;
	return false;
}

unsigned int kmd_util_factor(const struct kmd_util *u, int util)
{
	unsigned int f;

	if (util <= (int)u->target)
		return 100;
	if (util > 100)
		util = 100;
	f = 100 - (unsigned int)(util - u->target) * (100 - u->min_weight) / (100 - u->target);
	f -= f % 5;
	return f < u->min_weight ? u->min_weight : f;
}

unsigned int kmd_util_share(const struct kmd_util *u, unsigned int applied, int util)
{
	unsigned int f;

	if (!u->on || util < 0)
		return 100;
	f = kmd_util_factor(u, util);
	if (f < applied && kmd_util_factor(u, util - KMD_UTIL_HYST) >= applied)
		return applied;
	if (f > applied && kmd_util_factor(u, util + KMD_UTIL_HYST) <= applied)
		return applied;
	return f;
}

bool kmd_util_overloaded(const struct kmd_util *u, bool was, int min_util, double on_s)
{
	if (!u->on || !u->shed_above || min_util < 0)
		return false;
	if (was)
		return min_util >= (int)u->shed_above - KMD_SHED_HYST ||
		       on_s * 1000 < u->shed_hold_ms;
	return min_util >= (int)u->shed_above;
}

static bool via_tunnel(const struct kmd_check *c)
{
	return c->via == KMD_VIA_TUNNEL;
}

int kmd_config_first_tunnel(const struct kmd_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nservices; i++)
		if (service_any_check(&cfg->services[i], via_tunnel))
			return i;
	return -1;
}

/* Values, defaults and cross-field rules, from libcyaml's @r and the tree's @root. */
static void convert(struct ctx *c, const struct raw_root *r, const struct kmd_ynode *root,
		    struct kmd_config *cfg)
{
	struct val v;

	daemon_defaults(c, &cfg->daemon);
	if (r && r->config)
		p_kconfig(c, r->config, kmd_ynode_get(root, "config", NULL), cfg);
	if (r && cfg_val(root, "seed", r->seed, &v)) {
		if (kmg_parse_seed(v.s, cfg->seed))
			err_at(c, v.at, v.key, "\"%s\" is not 32 hexadecimal digits", v.s);
		else
			cfg->has_seed = true;
	}
	if (r && r->daemon)
		p_daemon(c, r->daemon, kmd_ynode_get(root, "daemon", NULL), &cfg->daemon);
	if (r)
		p_services(c, r, root, cfg);
	if (r && r->bgp) {
		const struct kmd_ynode *bm = kmd_ynode_get(root, "bgp", NULL);

		p_bgp(c, r->bgp, bm, &cfg->bgp);
		if (cfg->bgp.mode == KMD_BGP_ROUTES && cfg->bgp.routes_table == 254 &&
		    kmd_config_first_tunnel(cfg) >= 0) {
			const struct kmd_ynode *rm = kmd_ynode_get(bm, "routes", NULL);

			if (!rm || !cfg_val(rm, "table", r->bgp->routes->table, &v))
				v.at = rm ? rm->loc : bm->loc;
			err_at(c, v.at, "bgp.routes.table", "254 (main), where the VIPs' blackhole "
			       "routes would fail the tunnel checks' own connections to them: give "
			       "the routes a table of their own (BIRD: kernel table N) or use "
			       "via: direct checks");
		}
		/* the withdrawal must come before the exit that would Cease instead */
		if (cfg->bgp.mode == KMD_BGP_BUILTIN &&
		    cfg_val(bm, "shutdown-time", r->bgp->shutdown_time, &v) &&
		    cfg->bgp.shutdown_time_ms >= cfg->daemon.drain_time_ms)
			err_at(c, v.at, "bgp.shutdown-time", "%s is not shorter than "
			       "daemon.drain-time (the lame duck would end first)", v.s);
	}
}

int kmd_config_load_str(const char *name, const char *yaml, size_t len, struct kmd_config **out,
			FILE *err)
{
	struct ctx c = { .name = name, .err = err };
	cyaml_config_t cy = {
		.log_fn = cyaml_log_cb,
		.log_ctx = &c,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_DEFAULT,
	};
	struct raw_root *raw = NULL;
	struct kmd_config *cfg = NULL;
	struct kmd_ytree t;
	char problem[256];
	struct kmd_loc at;
	cyaml_err_t e;
	int ret;

	*out = NULL;
	build_schema();
	ret = kmd_ytree_build(&t, yaml, len, problem, sizeof(problem), &at);
	if (ret == -EINVAL) {
		err_at(&c, at, NULL, "not valid YAML: %s", problem);
		return -1;
	}
	if (ret) {
		fprintf(err, "%s: out of memory\n", name);
		return -1;
	}
	if (t.root)
		shape(&c, &root_schema, t.root, t.root->loc);
	if (!c.nerr && t.root) {
		e = cyaml_load_data((const uint8_t *)yaml, len, &cy, &root_schema,
				    (cyaml_data_t **)&raw, NULL);
		if (e == CYAML_ERR_OOM)
			c.nomem = true;
		else if (e != CYAML_OK)
			cyaml_report(&c, e);
	}
	if (!c.nerr && !c.nomem) {
		cfg = nomem(&c, calloc(1, sizeof(*cfg)));
		if (cfg) {
			cfg->path = xstrdup(&c, name);
			convert(&c, raw, t.root, cfg);
		}
	}
	if (raw)
		cyaml_free(&cy, &root_schema, raw, 0);
	kmd_ytree_free(&t);
	if (c.nomem)
		fprintf(err, "%s: out of memory\n", name);
	if (c.nerr || c.nomem) {
		kmd_config_free(cfg);
		return -1;
	}
	*out = cfg;
	return 0;
}

int kmd_config_load(const char *path, struct kmd_config **cfg, FILE *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f, *m;
	char buf[8192];
	size_t n;
	int ret;

	*cfg = NULL;
	f = fopen(path, "r");
	if (!f) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	m = open_memstream(&text, &len);
	if (!m) {
		fclose(f);
		fprintf(err, "%s: out of memory\n", path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, m) != n)
			break;
	ret = ferror(f) ? -(errno ? errno : EIO) : 0;
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	fclose(f);
	if (ret) {
		fprintf(err, "%s: %s\n", path, strerror(-ret));
		free(text);
		return -1;
	}
	ret = kmd_config_load_str(path, text, len, cfg, err);
	free(text);
	return ret;
}
