// SPDX-License-Identifier: GPL-2.0
/*
 * The man page against the parser. kmaglev.8 is read (from the directory "make check" runs
 * in), every usage line of its SYNOPSIS and every ".TP" tag that starts with "kmaglev" is
 * instantiated, with the SYNOPSIS's "NAME := ..." definitions expanded and the placeholders of
 * ARGUMENTS given sample values, and each instance is run through kmg_run(). Grammar: [x] is
 * optional, { a | b } a choice, x... a repetition; a word written against its neighbour
 * ("N" "ms") is one argument. Instances: every optional part given with the first choice of
 * everything, then each other choice of each choice point in turn, and every optional part
 * left out. With no kmaglev.ko loaded, a command that parses fails only with NOT_LOADED
 * (status and reload, which talk to the daemon: only with NO_DAEMON).
 *
 * Also: the field tables' keywords, the enumerations' names, the events and the options of
 * kmaglev.c are all in the page; every unique prefix of every object, command and keyword
 * resolves, and every other prefix is reported as ambiguous; the page's examples parse.
 */
#include <ctype.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"
#include "lib/args.h"
#include "lib/schema.h"
#include "daemon/ctl.h"
#include "daemon/daemon.h"

#define MAN_PATH	"man/kmaglev.8"
#define MAIN_PATH	"cli/kmaglev.c"
#define NOT_LOADED	"netlink family \"kmaglev\" not found (is kmaglev.ko loaded?)"
#define NO_DAEMON	KMD_CTL_UNREACHABLE
#define NO_CONFIG	KMD_NO_CONFIG

#define MAX_LINES	4096
#define MAX_TOKS	512
#define MAX_WORDS	128
#define MAX_SPEC	64

/* --- the man page, rendered line by line --------------------------------------------- */

struct mline {
	char macro[8];			/* "" for a text line */
	char *text;			/* rendered: escapes resolved, fonts dropped */
	char section[32];
	int lineno;
};

static struct mline lines[MAX_LINES];
static int nlines;
static char *fulltext;			/* every rendered line, joined by newlines */

/* Append @s to a growing string. */
static void cat(char **dst, const char *s)
{
	size_t n = *dst ? strlen(*dst) : 0;
	char *p = realloc(*dst, n + strlen(s) + 1);

	assert_non_null(p);
	strcpy(p + n, s);
	*dst = p;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		fail_msg("cannot open %s (run from userland/)", path);
	assert_int_equal(getdelim(&buf, &len, '\0', f) > 0, 1);
	fclose(f);
	return buf;
}

/* groff escapes as plain text; fonts are dropped. */
static void render(const char *s, char *out, size_t len)
{
	static const struct {
		const char *name, *text;
	} glyphs[] = {
		{ "aq", "'" }, { "dq", "\"" }, { "mu", "x" }, { "em", "--" }, { "en", "-" },
		{ "hy", "-" }, { "bu", "*" },
	};
	size_t n = 0, i;

#define PUT(str) do {							\
		const char *_p = (str);					\
		while (*_p && n + 1 < len)				\
			out[n++] = *_p++;				\
	} while (0)
	while (*s) {
		char one[2] = { *s, 0 };

		if (*s != '\\') {
			PUT(one);
			s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'f':
			s++;
			if (*s == '[')
				s += strcspn(s, "]") + (strchr(s, ']') ? 1 : 0);
			else if (*s == '(')
				s += strnlen(s, 3);
			else if (*s)
				s++;
			break;
		case '(':
			for (i = 0; i < KMG_ARRAY_SIZE(glyphs); i++)
				if (!strncmp(s + 1, glyphs[i].name, 2))
					break;
			PUT(i < KMG_ARRAY_SIZE(glyphs) ? glyphs[i].text : "?");
			s += strnlen(s, 3);
			break;
		case 'e':
			PUT("\\");
			s++;
			break;
		case '&':
		case '|':
		case '^':
		case 'c':
			s++;
			break;
		case '"':
		case '\0':
			goto out;
		default:
			one[0] = *s++;
			PUT(one);
			break;
		}
	}
out:
	out[n] = '\0';
#undef PUT
}

/* The arguments of a macro line, quotes removed, rendered; joined by @sep. */
static void macro_args(const char *s, const char *sep, char *out, size_t len)
{
	char arg[1024], r[1024];
	bool first = true;

	out[0] = '\0';
	while (*s) {
		size_t n = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (*s == '"') {
			for (s++; *s && n + 1 < sizeof(arg); s++) {
				if (*s == '"' && s[1] == '"')
					arg[n++] = *++s;
				else if (*s == '"')
					break;
				else
					arg[n++] = *s;
			}
			if (*s == '"')
				s++;
		} else {
			while (*s && *s != ' ' && *s != '\t' && n + 1 < sizeof(arg))
				arg[n++] = *s++;
		}
		arg[n] = '\0';
		render(arg, r, sizeof(r));
		if (!first)
			strncat(out, sep, len - strlen(out) - 1);
		strncat(out, r, len - strlen(out) - 1);
		first = false;
	}
}

static bool font_macro(const char *m, const char **sep)
{
	static const char *const joined[] = { "B", "I", "SM", "SB" };
	static const char *const alternating[] = { "BR", "BI", "IB", "IR", "RB", "RI" };
	size_t i;

	for (i = 0; i < KMG_ARRAY_SIZE(joined); i++)
		if (!strcmp(m, joined[i])) {
			*sep = " ";
			return true;
		}
	for (i = 0; i < KMG_ARRAY_SIZE(alternating); i++)
		if (!strcmp(m, alternating[i])) {
			*sep = "";
			return true;
		}
	return false;
}

/* Lines that print text: text lines and font macros. */
static bool is_text(const struct mline *l)
{
	const char *sep;

	return !l->macro[0] || font_macro(l->macro, &sep);
}

static void load_man(void)
{
	char *src = read_all(MAN_PATH), *next = src, *line, buf[4096];
	char section[32] = "";
	int lineno = 0;

	while ((line = strsep(&next, "\n"))) {
		struct mline *l;
		const char *sep;

		lineno++;
		if (!*line)
			continue;
		if (!strncmp(line, ".\\\"", 3) || !strcmp(line, "."))
			continue;
		assert_true(nlines < MAX_LINES);
		l = &lines[nlines++];
		l->lineno = lineno;
		if (line[0] == '.') {
			size_t m = strcspn(line + 1, " \t");

			snprintf(l->macro, sizeof(l->macro), "%.*s", (int)m, line + 1);
			if (font_macro(l->macro, &sep))
				macro_args(line + 1 + m, sep, buf, sizeof(buf));
			else
				macro_args(line + 1 + m, " ", buf, sizeof(buf));
			if (!strcmp(l->macro, "SH"))
				snprintf(section, sizeof(section), "%.31s", buf);
		} else {
			render(line, buf, sizeof(buf));
		}
		l->text = strdup(buf);
		snprintf(l->section, sizeof(l->section), "%s", section);
		cat(&fulltext, buf);
		cat(&fulltext, "\n");
	}
	free(src);
}

/* Is @w in @text as a word of its own (not part of "a-w" or "w2")? */
static bool has_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = strstr(text, w); p; p = strstr(p + 1, w)) {
		char before = p == text ? ' ' : p[-1], after = p[n];

		if (!isalnum((unsigned char)before) && before != '-' &&
		    !isalnum((unsigned char)after) && after != '-')
			return true;
	}
	return false;
}

/* --- the grammar ---------------------------------------------------------------------- */

enum tk { T_WORD, T_PH, T_LB, T_RB, T_LC, T_RC, T_BAR, T_ELL, T_END };

struct tok {
	enum tk t;
	char s[64];
	bool glued;			/* no space since the previous word */
};

enum nk { N_SEQ, N_ALT, N_OPT, N_REP, N_WORD, N_PH };

struct node {
	enum nk k;
	char s[64];
	bool glued;
	struct node **c;
	int n;
};

static struct node **all_nodes;
static int nall_nodes;

static struct node *node_new(enum nk k)
{
	struct node *x = calloc(1, sizeof(*x)), **p;

	assert_non_null(x);
	x->k = k;
	p = realloc(all_nodes, (nall_nodes + 1) * sizeof(*p));
	assert_non_null(p);
	all_nodes = p;
	all_nodes[nall_nodes++] = x;
	return x;
}

static void node_add(struct node *x, struct node *c)
{
	struct node **p = realloc(x->c, (x->n + 1) * sizeof(*p));

	assert_non_null(p);
	x->c = p;
	x->c[x->n++] = c;
}

static bool ph_char(const char *p)
{
	return isupper((unsigned char)*p) || isdigit((unsigned char)*p) ||
	       (*p == '-' && isupper((unsigned char)p[1]));
}

static int tokenize(const char *s, struct tok *t, int max)
{
	bool sep = true;
	int n = 0;

	while (*s) {
		const char *start = s;
		struct tok *k;

		if (isspace((unsigned char)*s)) {
			sep = true;
			s++;
			continue;
		}
		assert_true(n + 1 < max);
		k = &t[n++];
		memset(k, 0, sizeof(*k));
		if (strchr("[]{}|", *s)) {
			k->t = *s == '[' ? T_LB : *s == ']' ? T_RB : *s == '{' ? T_LC :
			       *s == '}' ? T_RC : T_BAR;
			s++;
			continue;
		}
		if (!strncmp(s, "...", 3)) {
			k->t = T_ELL;
			s += 3;
			continue;
		}
		if (isupper((unsigned char)*s)) {
			k->t = T_PH;
			while (*s && ph_char(s))
				s++;
		} else {
			k->t = T_WORD;
			while (*s && !isspace((unsigned char)*s) && !strchr("[]{}|", *s) &&
			       strncmp(s, "...", 3) &&
			       (*start == '-' || !isupper((unsigned char)*s)))
				s++;
		}
		snprintf(k->s, sizeof(k->s), "%.*s", (int)(s - start), start);
		k->glued = !sep;
		sep = false;
	}
	t[n].t = T_END;
	return n;
}

static struct node *parse_alt(const struct tok *t, int *i, enum tk close, const char *src);

static struct node *parse_seq(const struct tok *t, int *i, const char *src)
{
	struct node *seq = node_new(N_SEQ);

	for (;;) {
		struct node *item;

		switch (t[*i].t) {
		case T_LB:
			(*i)++;
			item = node_new(N_OPT);
			node_add(item, parse_alt(t, i, T_RB, src));
			break;
		case T_LC:
			(*i)++;
			item = parse_alt(t, i, T_RC, src);
			break;
		case T_WORD:
		case T_PH:
			item = node_new(t[*i].t == T_WORD ? N_WORD : N_PH);
			snprintf(item->s, sizeof(item->s), "%s", t[*i].s);
			item->glued = t[*i].glued;
			(*i)++;
			break;
		case T_ELL:
			fail_msg("\"...\" without anything before it in \"%s\"", src);
			return seq;
		default:
			return seq;
		}
		while (t[*i].t == T_ELL) {
			struct node *rep = node_new(N_REP);

			node_add(rep, item);
			item = rep;
			(*i)++;
		}
		node_add(seq, item);
	}
}

static struct node *parse_alt(const struct tok *t, int *i, enum tk close, const char *src)
{
	struct node *alt = node_new(N_ALT);

	for (;;) {
		node_add(alt, parse_seq(t, i, src));
		if (t[*i].t == T_BAR) {
			(*i)++;
			continue;
		}
		if (t[*i].t != close)
			fail_msg("unbalanced brackets in \"%s\"", src);
		if (close != T_END)
			(*i)++;
		return alt;
	}
}

static struct node *parse_grammar(const char *src)
{
	static struct tok t[MAX_TOKS];
	int i = 0;

	tokenize(src, t, MAX_TOKS);
	return parse_alt(t, &i, T_END, src);
}

/* --- what the page says ----------------------------------------------------------------- */

struct def {
	char name[64];
	struct node *g;
};

struct usage {
	char *text;			/* after "kmaglev" */
	int lineno;
	struct node *g;
	bool generic;			/* "OBJECT [COMMAND [ARGUMENTS]]": not a command */
};

static struct def defs[64];
static int ndefs;
static struct usage usages[128];
static int nusages;
static char *examples[64];
static int nexamples;

static const struct node *find_def(const char *name)
{
	int i;

	for (i = 0; i < ndefs; i++)
		if (!strcmp(defs[i].name, name))
			return defs[i].g;
	return NULL;
}

static bool uses_ph(const struct node *x, const char *name)
{
	int i;

	if (x->k == N_PH && !strcmp(x->s, name))
		return true;
	for (i = 0; i < x->n; i++)
		if (uses_ph(x->c[i], name))
			return true;
	return false;
}

static void add_usage(const char *text, int lineno)
{
	struct usage *u;

	if (strncmp(text, "kmaglev", 7) || (text[7] != ' ' && text[7]))
		return;
	assert_true(nusages < (int)KMG_ARRAY_SIZE(usages));
	u = &usages[nusages++];
	u->text = strdup(text + 7);
	u->lineno = lineno;
	u->g = parse_grammar(u->text);
	u->generic = uses_ph(u->g, "COMMAND");
}

/* SYNOPSIS entries end at a break; "NAME := ..." is a definition, "kmaglev ..." a usage. */
static void flush_entry(char **buf, int lineno)
{
	char *s = *buf, *eq;

	if (!s)
		return;
	while (*s == ' ')
		s++;
	eq = strstr(s, " := ");
	if (eq && isupper((unsigned char)*s)) {
		struct def *d;

		assert_true(ndefs < (int)KMG_ARRAY_SIZE(defs));
		d = &defs[ndefs++];
		snprintf(d->name, sizeof(d->name), "%.*s", (int)(eq - s), s);
		d->g = parse_grammar(eq + 4);
	} else {
		add_usage(s, lineno);
	}
	free(*buf);
	*buf = NULL;
}

static void collect(void)
{
	char *entry = NULL, *ex = NULL;
	int entry_line = 0, i;
	bool nofill = false;

	for (i = 0; i < nlines; i++) {
		const struct mline *l = &lines[i];

		if (!strcmp(l->section, "SYNOPSIS") && strcmp(l->macro, "SH")) {
			if (is_text(l)) {
				if (!entry)
					entry_line = l->lineno;
				else
					cat(&entry, " ");
				cat(&entry, l->text);
			} else {
				flush_entry(&entry, entry_line);
			}
			continue;
		}
		flush_entry(&entry, entry_line);
		/* the tag of .TP and .TQ: a command's heading */
		if ((!strcmp(l->macro, "TP") || !strcmp(l->macro, "TQ")) && i + 1 < nlines &&
		    is_text(&lines[i + 1]))
			add_usage(lines[i + 1].text, lines[i + 1].lineno);
		if (!strcmp(l->macro, "nf") || !strcmp(l->macro, "fi")) {
			nofill = !strcmp(l->macro, "nf");
			continue;
		}
		/* examples: "kmaglev ..." lines of displays, "\" continuing them */
		if (nofill && !l->macro[0]) {
			size_t n;

			if (!ex && strncmp(l->text, "kmaglev ", 8))
				continue;
			cat(&ex, ex ? " " : "");
			cat(&ex, l->text + strspn(l->text, " "));
			n = strlen(ex);
			if (n && ex[n - 1] == '\\') {
				ex[n - 1] = '\0';
				continue;
			}
			assert_true(nexamples < (int)KMG_ARRAY_SIZE(examples));
			examples[nexamples++] = ex;
			ex = NULL;
		}
	}
	flush_entry(&entry, entry_line);
	free(ex);
}

/* --- options of kmaglev.c ----------------------------------------------------------------- */

struct option_desc {
	char name[32];			/* long name, "" if none */
	char c;				/* short letter, 0 if none */
	bool arg;
};

static struct option_desc options[32];
static int noptions;

static void load_options(void)
{
	char *src = read_all(MAIN_PATH), *p;
	char name[32], has[32], c;

	/* the short options: getopt_long(argc, argv, "+jpb:n:thV", ...) */
	p = strstr(src, "getopt_long(argc, argv, \"");
	assert_non_null(p);
	p += strlen("getopt_long(argc, argv, \"");
	for (; *p && *p != '"'; p++) {
		if (!isalnum((unsigned char)*p))
			continue;
		options[noptions].c = *p;
		options[noptions].arg = p[1] == ':';
		noptions++;
	}
	/* the long ones: { "json", no_argument, NULL, 'j' }, */
	for (p = strstr(src, "{ \""); p; p = strstr(p + 1, "{ \"")) {
		int i;

		if (sscanf(p, "{ \"%31[^\"]\", %31[a-z_], NULL, '%c' }", name, has, &c) != 3)
			continue;
		for (i = 0; i < noptions && options[i].c != c; i++)
			;
		if (i == noptions) {
			/* long only: its letter is not in the short options */
			assert_true(noptions + 1 < (int)KMG_ARRAY_SIZE(options));
			noptions++;
			options[i].c = 0;
		}
		snprintf(options[i].name, sizeof(options[i].name), "%s", name);
		options[i].arg = !strcmp(has, "required_argument");
	}
	free(src);
	assert_true(noptions >= 8);
}

static const struct option_desc *find_option(const char *w)
{
	int i;

	for (i = 0; i < noptions; i++)
		if ((w[0] == '-' && w[1] == '-' && options[i].name[0] &&
		     !strcmp(w + 2, options[i].name)) ||
		    (w[0] == '-' && w[1] && !w[2] && w[1] == options[i].c))
			return &options[i];
	return NULL;
}

/* --- instances ----------------------------------------------------------------------------- */

static char batch_path[64];

struct gen {
	bool minimal;
	const int *spec;
	int nspec;
	int nalt;			/* choice points met so far */
	int nch[MAX_SPEC];		/* their number of choices */
	int parent[MAX_SPEC];		/* the choice point whose choice holds them, or -1 */
	int stack[MAX_SPEC];
	int nstack;
	char *w[MAX_WORDS];
	bool lit[MAX_WORDS];		/* written in the page, not a sample */
	int nw;
	int pending;			/* glue of the next word: -1 its own */
	int naddr;
	int ndscp;
	int depth;
	const char *err;
};

static const char *sample(const char *name, struct gen *g, char *buf, size_t len)
{
	static const struct {
		const char *name, *value;
	} samples[] = {
		{ "SERVICE", "192.0.2.1:80/tcp" },
		{ "IPV4-ADDR", "192.0.2.100" },
		{ "IPV6-ADDR", "2001:db8::100" },
		{ "N", "1" },
		{ "WEIGHT", "2" },
		{ "KEY", "7" },
		{ "MARK", "1" },
		{ "DEV", "eth0" },
		{ "PRIME", "251" },
		{ "PERCENT", "50" },
		{ "PERMILLE", "500" },
		{ "HEX32", "00112233445566778899aabbccddeeff" },
		{ "NETNS", "kmaglev-test" },
		{ "NAME", "kmaglevd" },
		{ "SOCKET", "/nonexistent/kmaglev/daemon.sock" },
		{ "CONFIG", "/nonexistent/kmaglev/kmaglev.yaml" },
		/* empty: an import that maps everything and says nothing */
		{ "KEEPALIVED-CONF", "/dev/null" },
		{ "IPVSADM-SAVE", "/dev/null" },
	};
	size_t i;

	/* backend addresses: a new one each time, so that no backend is given twice */
	if (!strcmp(name, "ADDR")) {
		snprintf(buf, len, "10.0.0.%d", ++g->naddr);
		return buf;
	}
	/* DSCPs: another each time, so that no map lists one twice; by name and by number */
	if (!strcmp(name, "DSCP")) {
		static const char *const dscps[] = { "ef", "cs1", "AF41", "10", "le", "63" };

		return dscps[g->ndscp++ % KMG_ARRAY_SIZE(dscps)];
	}
	if (!strcmp(name, "FILE"))
		return batch_path;
	for (i = 0; i < KMG_ARRAY_SIZE(samples); i++)
		if (!strcmp(samples[i].name, name))
			return samples[i].value;
	return NULL;
}

static void emit(struct gen *g, const char *s, bool glued, bool literal)
{
	if (g->pending >= 0) {
		glued = g->pending;
		g->pending = -1;
	}
	if (glued && g->nw) {
		char *p = realloc(g->w[g->nw - 1], strlen(g->w[g->nw - 1]) + strlen(s) + 1);

		assert_non_null(p);
		strcat(p, s);
		g->w[g->nw - 1] = p;
		g->lit[g->nw - 1] &= literal;
		return;
	}
	assert_true(g->nw < MAX_WORDS);
	g->w[g->nw] = strdup(s);
	g->lit[g->nw++] = literal;
}

static void gen(struct gen *g, const struct node *x)
{
	const struct node *d;
	const char *v;
	char buf[64];
	int i, k;

	switch (x->k) {
	case N_WORD:
		emit(g, x->s, x->glued, true);
		break;
	case N_PH:
		v = sample(x->s, g, buf, sizeof(buf));
		if (v) {
			emit(g, v, x->glued, false);
			break;
		}
		d = find_def(x->s);
		if (!d || g->depth > 16) {
			g->err = x->s;
			break;
		}
		if (g->pending < 0)
			g->pending = x->glued;
		g->depth++;
		gen(g, d);
		g->depth--;
		g->pending = -1;
		break;
	case N_SEQ:
		for (i = 0; i < x->n; i++)
			gen(g, x->c[i]);
		break;
	case N_ALT:
		if (x->n == 1) {
			gen(g, x->c[0]);
			break;
		}
		assert_true(g->nalt < MAX_SPEC);
		k = g->nalt++;
		g->nch[k] = x->n;
		g->parent[k] = g->nstack ? g->stack[g->nstack - 1] : -1;
		g->stack[g->nstack++] = k;
		gen(g, x->c[k < g->nspec ? g->spec[k] : 0]);
		g->nstack--;
		break;
	case N_OPT:
		if (!g->minimal)
			gen(g, x->c[0]);
		break;
	case N_REP:
		gen(g, x->c[0]);
		break;
	}
}

/* One instance of a usage line, as argv. */
struct inst {
	char *w[MAX_WORDS];
	bool lit[MAX_WORDS];
	int n;
	int usage;			/* index in usages[] */
	bool first;			/* the one with every optional part, first choices */
	bool minimal;
};

static struct inst *insts;
static int ninsts;

static void inst_add(struct gen *g, int usage, bool first)
{
	struct inst *p = realloc(insts, (ninsts + 1) * sizeof(*p));

	assert_non_null(p);
	insts = p;
	p = &insts[ninsts++];
	memcpy(p->w, g->w, sizeof(g->w));
	memcpy(p->lit, g->lit, sizeof(g->lit));
	p->n = g->nw;
	p->usage = usage;
	p->first = first;
	p->minimal = g->minimal;
}

/* Is choice point @k inside a choice of choice point @f? */
static bool inside(const struct gen *g, int k, int f)
{
	for (k = g->parent[k]; k >= 0; k = g->parent[k])
		if (k == f)
			return true;
	return false;
}

/*
 * The instances of usage line @u: the first choice everywhere, then each other choice of each
 * choice point, the others at their first; a choice that holds choice points of its own gets
 * each of their other choices too.
 */
static void instantiate(int u)
{
	static int specs[512][MAX_SPEC], nspec[512];
	int nq = 1, qi, k, c;

	nspec[0] = 0;
	for (qi = 0; qi < nq; qi++) {
		struct gen g = { .spec = specs[qi], .nspec = nspec[qi], .pending = -1 };
		int focus = nspec[qi] - 1;

		gen(&g, usages[u].g);
		if (g.err)
			fail_msg("kmaglev.8:%d: placeholder %s has no sample and no definition",
				 usages[u].lineno, g.err);
		inst_add(&g, u, qi == 0);
		for (k = nspec[qi]; k < g.nalt; k++) {
			if (focus >= 0 && !inside(&g, k, focus))
				continue;
			for (c = 1; c < g.nch[k]; c++) {
				assert_true(nq < 512);
				memcpy(specs[nq], specs[qi], sizeof(specs[0]));
				memset(specs[nq] + nspec[qi], 0, (k - nspec[qi]) * sizeof(int));
				specs[nq][k] = c;
				nspec[nq++] = k + 1;
			}
		}
	}
	{
		struct gen g = { .minimal = true, .pending = -1 };

		gen(&g, usages[u].g);
		inst_add(&g, u, false);
	}
}

static void join(char *const *w, int n, char *buf, size_t len)
{
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i)
			strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, w[i], len - strlen(buf) - 1);
	}
}

/* --- running them ---------------------------------------------------------------------- */

static FILE *devnull;
static bool kernel_here;		/* kmaglev.ko is loaded: we run in a netns of our own */
static bool kernel_unsafe;		/* ... and could not get one: do not run commands */
static const char *objects[16];
static int nobjects;
static int runs;

static int object_index(const char *name)
{
	int i;

	for (i = 0; i < nobjects; i++)
		if (!strcmp(objects[i], name))
			return i;
	return -1;
}

/*
 * Run @argv as "kmaglev ARGV" would; NULL if it parsed, else why not. The global options are
 * those of kmaglev.c; -b runs the batch file.
 */
static const char *run(char *const *argv, int argc, int *retp)
{
	static char why[1024];
	struct kmg_ctx ctx = { .out = devnull };
	const char *batch = NULL;
	bool info = false;
	int i = 0, ret, k;

	*retp = 0;
	while (i < argc && argv[i][0] == '-' && argv[i][1]) {
		const struct option_desc *o = find_option(argv[i]);

		if (!o) {
			snprintf(why, sizeof(why), "unknown option \"%s\"", argv[i]);
			return why;
		}
		if (o->arg && i + 1 == argc) {
			snprintf(why, sizeof(why), "option \"%s\" needs a value", argv[i]);
			return why;
		}
		if (o->c == 'b')
			batch = argv[i + 1];
		if (o->c == 'V' || o->c == 'h')
			info = true;
		i += o->arg ? 2 : 1;
	}
	if (batch && i < argc)
		return "-b FILE takes no command";
	if (i == argc && !batch)
		return info ? NULL : "no OBJECT";
	runs++;
	kmg_err_clear();
	ret = batch ? kmg_batch(&ctx, batch) : kmg_run(&ctx, argc - i, (char **)argv + i);
	kmg_err_set_line(0);
	kmg_ctx_close(&ctx);
	*retp = ret;
	if (!ret || !strcmp(kmg_errmsg(), NOT_LOADED) || (kernel_here && ret != KMG_EUSAGE))
		return NULL;
	/* status and reload parsed when they fail only because no daemon listens */
	if (ret == KMG_EFAIL && !strncmp(kmg_errmsg(), NO_DAEMON, strlen(NO_DAEMON)))
		return NULL;
	/* the daemon parsed when it fails only because its (sample) config file is missing */
	if (ret == KMG_EFAIL && !strncmp(kmg_errmsg(), NO_CONFIG, strlen(NO_CONFIG)))
		return NULL;
	/* an offline simulation runs: "backend del" of a sample address is no parse error */
	k = batch ? -1 : kmg_lookup(argv[i], objects, nobjects);
	if (k >= 0 && !strcmp(objects[k], "simulate")) {
		struct kmg_sim_args sa;
		int r = kmg_simulate_parse(argc - i - 1, (char **)argv + i + 1, &sa);

		kmg_sim_args_free(&sa);
		if (!r)
			return NULL;
	}
	snprintf(why, sizeof(why), "%s", kmg_errmsg());
	return why;
}

/* The line must parse; report it with the usage line it came from. */
static void must_parse(char *const *argv, int argc, const char *from)
{
	char line[1024];
	const char *why;
	int ret;

	why = run(argv, argc, &ret);
	join(argv, argc, line, sizeof(line));
	/* KMG_DOCS_VERBOSE=1: every command line run */
	if (getenv("KMG_DOCS_VERBOSE"))
		print_message("# %s: kmaglev %s\n", why ? "FAIL" : "ok", line);
	if (!why)
		return;
	fail_msg("\"kmaglev %s\" (from %s) does not parse: %s (status %d)", line, from, why, ret);
}

/* The usage line an instance came from, for messages. */
static const char *from(const struct inst *x)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "kmaglev.8:%d \"kmaglev%s\"", usages[x->usage].lineno,
		 usages[x->usage].text);
	return buf;
}

/* Index of the object word in an instance (after the global options), or -1. */
static int object_pos(const struct inst *x)
{
	int i = 0;

	while (i < x->n && x->w[i][0] == '-') {
		const struct option_desc *o = find_option(x->w[i]);

		i += o && o->arg ? 2 : 1;
	}
	return i < x->n && x->lit[i] && object_index(x->w[i]) >= 0 ? i : -1;
}

/* --- setup --------------------------------------------------------------------------------- */

/* Through choices and sequences of one. */
static const struct node *single(const struct node *x)
{
	while ((x->k == N_ALT || x->k == N_SEQ) && x->n == 1)
		x = x->c[0];
	return x;
}

static int setup(void **state)
{
	struct kmg_ctx ctx = { .out = stdout };
	const struct node *o;
	int fd, i;

	devnull = fopen("/dev/null", "w");
	assert_non_null(devnull);
	/* status and reload: never ask a daemon that runs here */
	assert_int_equal(setenv("KMAGLEV_SOCKET", "/nonexistent/kmaglev-docs/daemon.sock", 1), 0);
	/* the daemon: never with a real config file (it would start) */
	assert_int_equal(setenv("KMAGLEV_CONFIG", "/nonexistent/kmaglev-docs/kmaglev.yaml", 1), 0);
	/* "import ipvsadm" without a file reads standard input: an empty one */
	assert_non_null(freopen("/dev/null", "r", stdin));
	load_man();
	collect();
	load_options();
	o = find_def("OBJECT");
	if (!o)
		fail_msg("kmaglev.8: SYNOPSIS has no \"OBJECT := { ... }\"");
	o = single(o);
	assert_int_equal(o->k, N_ALT);
	for (i = 0; i < o->n && nobjects < 16; i++) {
		const struct node *w = single(o->c[i]);

		assert_int_equal(w->k, N_WORD);
		objects[nobjects++] = w->s;
	}
	snprintf(batch_path, sizeof(batch_path), "/tmp/kmaglev-docs-XXXXXX");
	fd = mkstemp(batch_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "family show\n", 12), 12);
	close(fd);
	/* with kmaglev.ko loaded, commands would change this netns: use a new one */
	if (!kmg_ctx_nl(&ctx)) {
		kmg_ctx_close(&ctx);
		if (unshare(CLONE_NEWNET))
			kernel_unsafe = true;
		else
			kernel_here = true;
	}
	for (i = 0; i < nusages; i++)
		if (!usages[i].generic)
			instantiate(i);
	return 0;
}

static int teardown(void **state)
{
	int i, k;

	for (i = 0; i < ninsts; i++)
		for (k = 0; k < insts[i].n; k++)
			free(insts[i].w[k]);
	free(insts);
	for (i = 0; i < nall_nodes; i++) {
		free(all_nodes[i]->c);
		free(all_nodes[i]);
	}
	free(all_nodes);
	for (i = 0; i < nusages; i++)
		free(usages[i].text);
	for (i = 0; i < nexamples; i++)
		free(examples[i]);
	for (i = 0; i < nlines; i++)
		free(lines[i].text);
	free(fulltext);
	unlink(batch_path);
	fclose(devnull);
	return 0;
}

#define NEED_KERNEL_SAFE() do { if (kernel_unsafe) skip(); } while (0)

/* --- the tests ----------------------------------------------------------------------------- */

/* Every usage line, in every instance, parses. */
static void test_synopsis_parses(void **state)
{
	int i, objs[16] = { 0 };

	NEED_KERNEL_SAFE();
	/* a page whose lines were not found must not pass */
	assert_true(nusages >= 30);
	assert_true(ndefs >= 10);
	assert_true(nobjects >= 10);
	for (i = 0; i < ninsts; i++) {
		int p = object_pos(&insts[i]);

		must_parse(insts[i].w, insts[i].n, from(&insts[i]));
		if (p >= 0)
			objs[object_index(insts[i].w[p])]++;
	}
	/* every object has a usage line */
	for (i = 0; i < nobjects; i++)
		if (!objs[i])
			fail_msg("kmaglev.8: no usage line for object \"%s\"", objects[i]);
	print_message("# docs: %d usage lines, %d definitions, %d instances\n", nusages, ndefs,
		      ninsts);
}

/* The examples parse (those that need a file of their own are left out). */
static void test_examples_parse(void **state)
{
	int i, n = 0;

	NEED_KERNEL_SAFE();
	assert_true(nexamples >= 5);
	for (i = 0; i < nexamples; i++) {
		struct targv t;
		char *cmd = strdup(examples[i] + strlen("kmaglev "));
		int k;

		/* a shell pipe or redirection ends the command */
		cmd[strcspn(cmd, "|>")] = '\0';
		t = targv(cmd);
		for (k = 0; k < t.argc; k++)
			if (!strcmp(t.argv[k], "-b") || !strcmp(t.argv[k], "--batch"))
				break;
		if (k == t.argc) {
			must_parse(t.argv, t.argc, "an example");
			n++;
		}
		targv_free(&t);
		free(cmd);
	}
	assert_true(n >= 5);
}

static const struct kmg_object *const tables[] = {
	&kmg_obj_service, &kmg_obj_backend, &kmg_obj_config,
};

static bool settable(const struct kmg_field *f)
{
	return !(f->flags & (KMG_FF_RO | KMG_FF_KEY));
}

/* Are there literal words @w in instances of @object? */
static bool literal_in(const char *object, const char *w)
{
	int i, k;

	for (i = 0; i < ninsts; i++) {
		int p = object_pos(&insts[i]);

		if (p < 0 || strcmp(insts[i].w[p], object))
			continue;
		for (k = p + 1; k < insts[i].n; k++) {
			const char *s = insts[i].w[k];
			size_t n = strlen(w);

			if (!insts[i].lit[k])
				continue;
			/* a word or one of a comma list ("echo,defrag") */
			for (; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
				if (!strncmp(s, w, n) && (s[n] == ',' || !s[n]))
					return true;
		}
	}
	return false;
}

/*
 * Every keyword of the field tables is in the page; the settable ones are in the usage lines
 * of their object (so they parsed), the read-only ones are not.
 */
static void test_fields_documented(void **state)
{
	size_t t;
	unsigned int i;

	for (t = 0; t < KMG_ARRAY_SIZE(tables); t++) {
		const struct kmg_object *obj = tables[t];

		for (i = 0; i < obj->n; i++) {
			const struct kmg_field *f = &obj->fields[i];
			const char *key = kmg_field_key(obj, f);

			if (!has_word(fulltext, key))
				fail_msg("%s keyword \"%s\" is not in kmaglev.8", obj->name, key);
			if (settable(f) && !literal_in(obj->name, key))
				fail_msg("%s keyword \"%s\" is in no usage line of \"%s\"", obj->name,
					 key, obj->name);
			if (!settable(f) && literal_in(obj->name, key))
				fail_msg("read-only %s field \"%s\" is in a usage line", obj->name,
					 key);
		}
	}
}

/* The names of the enumerations are values in the usage lines; the events are in the page. */
static void test_values_documented(void **state)
{
	static const struct {
		const struct kmg_enum *e;
		const char *object;
	} enums[] = {
		{ &kmg_enum_hash, "service" },
		{ &kmg_enum_service_flags, "service" },
		{ &kmg_enum_backend_state, "backend" },
		{ &kmg_enum_encap, "backend" },
		{ &kmg_enum_hook, "config" },
		{ &kmg_enum_quota_scope, "config" },
		{ &kmg_enum_quota_action, "config" },
		{ &kmg_enum_criticality, "service" },
		{ &kmg_enum_criticality, "config" },
		{ &kmg_enum_overload, "service" },
	};
	static const uint8_t events[] = {
		KMAGLEV_CMD_SERVICE_NEW_NTF, KMAGLEV_CMD_SERVICE_DEL_NTF,
		KMAGLEV_CMD_SERVICE_CHANGE_NTF, KMAGLEV_CMD_SERVICE_FLUSH_NTF,
		KMAGLEV_CMD_BACKEND_NEW_NTF, KMAGLEV_CMD_BACKEND_DEL_NTF,
		KMAGLEV_CMD_BACKEND_CHANGE_NTF, KMAGLEV_CMD_TABLE_NTF,
	};
	static const char *const event_keys[] = { "portid", "seq", "time", "event" };
	size_t i;
	unsigned int k;

	for (i = 0; i < KMG_ARRAY_SIZE(enums); i++)
		for (k = 0; k < enums[i].e->n; k++)
			if (!literal_in(enums[i].object, enums[i].e->names[k]))
				fail_msg("value \"%s\" is in no usage line of \"%s\"",
					 enums[i].e->names[k], enums[i].object);
	/* read-only flags: their names in the page */
	for (k = 0; k < kmg_enum_shed_reason.n; k++)
		if (!has_word(fulltext, kmg_enum_shed_reason.names[k]))
			fail_msg("shedding reason \"%s\" is not in kmaglev.8",
				 kmg_enum_shed_reason.names[k]);
	for (i = 0; i < KMG_ARRAY_SIZE(events); i++)
		if (!has_word(fulltext, kmg_cmd_name(events[i])))
			fail_msg("event \"%s\" is not in kmaglev.8", kmg_cmd_name(events[i]));
	for (i = 0; i < KMG_ARRAY_SIZE(event_keys); i++)
		if (!has_word(fulltext, event_keys[i]))
			fail_msg("monitor key \"%s\" is not in kmaglev.8", event_keys[i]);
}

/*
 * The objects of "kmaglev help" and the page's: each object the command has has a usage line,
 * and each one of OBJECT := { ... } is one the command has.
 */
static void test_objects_documented(void **state)
{
	char *text, *line, *save, word[32];
	bool in = false;
	struct tout o;
	int i, n = 0;

	tout_open(&o);
	kmg_usage(o.f);
	text = strdup(tout_text(&o));
	tout_close(&o);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool found = false;

		if (!strcmp(line, "Objects:")) {
			in = true;
			continue;
		}
		if (!in || strncmp(line, "  ", 2) || line[2] == ' ')
			continue;
		if (sscanf(line, " %31s", word) != 1)
			continue;
		for (i = 0; i < nusages && !found; i++) {
			size_t len = strlen(word);

			found = !usages[i].generic && usages[i].text[0] == ' ' &&
				!strncmp(usages[i].text + 1, word, len) &&
				(usages[i].text[len + 1] == ' ' || !usages[i].text[len + 1]);
		}
		if (!found)
			fail_msg("object \"%s\" of \"kmaglev help\" has no usage line in kmaglev.8",
				 word);
		n++;
	}
	assert_true(n >= 15);
	for (i = 0; i < nobjects; i++) {
		char want[40];

		snprintf(want, sizeof(want), "\n  %s ", objects[i]);
		tout_open(&o);
		kmg_usage(o.f);
		if (!strstr(tout_text(&o), want))
			fail_msg("object \"%s\" of kmaglev.8 is not in \"kmaglev help\"", objects[i]);
		tout_close(&o);
	}
	free(text);
}

/* Every option of kmaglev.c is in OPTIONS, and every option in OPTIONS is one. */
static void test_options_documented(void **state)
{
	char opt[40];
	int i;

	for (i = 0; i < noptions; i++) {
		bool found = false;
		int l;

		for (l = 0; l < nlines; l++) {
			if (strcmp(lines[l].section, "OPTIONS") || !is_text(&lines[l]))
				continue;
			if (options[i].name[0]) {
				snprintf(opt, sizeof(opt), "--%.31s", options[i].name);
				if (!has_word(lines[l].text, opt))
					continue;
			}
			if (options[i].c) {
				snprintf(opt, sizeof(opt), "-%c", options[i].c);
				if (!has_word(lines[l].text, opt))
					continue;
			}
			found = true;
		}
		if (!found)
			fail_msg("option -%c/--%s is not in OPTIONS of kmaglev.8",
				 options[i].c ? options[i].c : '?', options[i].name);
	}
	/* the tags of OPTIONS are options that exist */
	for (i = 0; i + 1 < nlines; i++) {
		struct targv t;
		int k;

		if (strcmp(lines[i].section, "OPTIONS") || strcmp(lines[i].macro, "TP"))
			continue;
		t = targv(lines[i + 1].text);
		for (k = 0; k < t.argc; k++) {
			char *w = t.argv[k];

			w[strcspn(w, ",")] = '\0';
			if (w[0] == '-' && !find_option(w))
				fail_msg("kmaglev.8 documents option \"%s\", which kmaglev.c lacks", w);
		}
		targv_free(&t);
	}
}

/* Every placeholder is defined in SYNOPSIS or described in ARGUMENTS. */
static void check_placeholders(const struct node *x)
{
	int i;

	if (x->k == N_PH && !find_def(x->s)) {
		bool found = false;
		int l;

		for (l = 0; l < nlines && !found; l++)
			found = !strcmp(lines[l].section, "ARGUMENTS") &&
				has_word(lines[l].text, x->s);
		if (!found)
			fail_msg("placeholder %s is neither defined in SYNOPSIS nor in ARGUMENTS",
				 x->s);
	}
	for (i = 0; i < x->n; i++)
		check_placeholders(x->c[i]);
}

static void test_placeholders_documented(void **state)
{
	int i;

	for (i = 0; i < nusages; i++)
		if (!usages[i].generic)
			check_placeholders(usages[i].g);
	for (i = 0; i < ndefs; i++)
		check_placeholders(defs[i].g);
}

/* What the CLI no longer does or says is not in the page. */
static void test_nothing_stale(void **state)
{
	static const char *const stale[] = {
		"ramp-pct", "ramp-ms", "window-ms", "window-left-ms", "share-pct", "expected-pct",
		"service-id", "prev-gen ", "bare number is milliseconds", "bare number is seconds",
		"== \"table\"", "hash 5tuple window",
	};
	size_t i;

	for (i = 0; i < KMG_ARRAY_SIZE(stale); i++)
		if (strstr(fulltext, stale[i]))
			fail_msg("kmaglev.8 still says \"%s\"", stale[i]);
}

/* Words @w resolves to among @names as kmg_lookup() does: index, -1 none, -2 ambiguous. */
static int resolve(const char *w, const char *const *names, int n)
{
	const char *v[16];
	int i;

	if (names != objects || n > 16)
		return kmg_lookup(w, names, n);
	/* as cli.c's pick_object(): "bgp" by its full name only */
	for (i = 0; i < n; i++)
		v[i] = strcmp(names[i], "bgp") || !strcmp(w, "bgp") ? names[i] : "";
	return kmg_lookup(w, v, n);
}

/*
 * How @w resolves among @names by the rule the page states: exact, else the only prefix;
 * the object "bgp" only in full.
 */
static int rule(const char *w, const char *const *names, int n)
{
	int i, found = -1;

	for (i = 0; i < n; i++)
		if (!strcmp(w, names[i]))
			return i;
	for (i = 0; i < n; i++) {
		if (strncmp(w, names[i], strlen(w)) || (names == objects && !strcmp(names[i], "bgp")))
			continue;
		if (found >= 0)
			return -2;
		found = i;
	}
	return found;
}

/* Run @x with word @pos replaced by @w. */
static const char *run_with(const struct inst *x, int pos, const char *w, int *ret)
{
	char *argv[MAX_WORDS];

	memcpy(argv, x->w, x->n * sizeof(*argv));
	argv[pos] = (char *)w;
	return run(argv, x->n, ret);
}

static void expect_with(const struct inst *x, int pos, const char *w)
{
	char *argv[MAX_WORDS];

	memcpy(argv, x->w, x->n * sizeof(*argv));
	argv[pos] = (char *)w;
	must_parse(argv, x->n, from(x));
}

/* An ambiguous prefix must be refused as such, naming it. */
static void expect_ambiguous(const struct inst *x, int pos, const char *w)
{
	char want[96], line[1024];
	const char *why;
	int ret;

	why = run_with(x, pos, w, &ret);
	snprintf(want, sizeof(want), "\"%s\"", w);
	if (ret == KMG_EUSAGE && why && !strncmp(why, "ambiguous ", 10) && strstr(why, want))
		return;
	join(x->w, x->n, line, sizeof(line));
	fail_msg("\"%s\" in place of \"%s\" in \"kmaglev %s\": want an ambiguity error, got %d %s",
		 w, x->w[pos], line, ret, why ? why : "(parsed)");
}

/* Every prefix of every object: unique ones resolve, the others are ambiguous. */
static void test_object_prefixes(void **state)
{
	int i, n = 0;

	NEED_KERNEL_SAFE();
	for (i = 0; i < ninsts; i++) {
		const struct inst *x = &insts[i];
		int p = object_pos(x);
		size_t len;

		if (p < 0 || !(x->first || x->minimal))
			continue;
		for (len = 1; len < strlen(x->w[p]); len++) {
			char pre[32];
			int r;

			snprintf(pre, sizeof(pre), "%.*s", (int)len, x->w[p]);
			r = rule(pre, objects, nobjects);
			assert_int_equal(resolve(pre, objects, nobjects), r);
			/* "b" of "bgp" is backend, "bg" nothing: bgp is taken in full only */
			if (r == -1 || (r >= 0 && strcmp(objects[r], x->w[p])))
				continue;
			if (r >= 0)
				expect_with(x, p, pre);
			else
				expect_ambiguous(x, p, pre);
			n++;
		}
	}
	assert_true(n > 50);
	/* the examples of the page */
	{
		static const char *const abbrev[] = { "stats sh", "family sh", "serv sh", "ba sh",
						      "serv a 192.0.2.1:80", "conf sh", "t l" };
		size_t k;

		for (k = 0; k < KMG_ARRAY_SIZE(abbrev); k++) {
			struct targv t = targv(abbrev[k]);

			must_parse(t.argv, t.argc, "abbreviations");
			targv_free(&t);
		}
	}
}

/* The command words of @object: the page's words after it (help: the objects). */
static int command_words(const char *object, const char **words, int max)
{
	int i, n = 0, k;

	if (!strcmp(object, "help")) {
		memcpy(words, objects, nobjects * sizeof(*words));
		return nobjects;
	}
	for (i = 0; i < ninsts; i++) {
		const struct inst *x = &insts[i];
		int p = object_pos(x);

		if (p < 0 || strcmp(x->w[p], object) || p + 1 >= x->n || !x->lit[p + 1])
			continue;
		/* "OBJECT help" is matched exactly, before the object's own words */
		if (!strcmp(x->w[p + 1], "help") || x->w[p + 1][0] == '-')
			continue;
		for (k = 0; k < n && strcmp(words[k], x->w[p + 1]); k++)
			;
		if (k == n && n < max)
			words[n++] = x->w[p + 1];
	}
	return n;
}

/* Every prefix of every command word (and monitor's objects): as for the objects. */
static void test_command_prefixes(void **state)
{
	int i, n = 0;

	NEED_KERNEL_SAFE();
	for (i = 0; i < ninsts; i++) {
		const struct inst *x = &insts[i];
		const char *words[32];
		int p = object_pos(x), nw, k;
		size_t len;

		if (p < 0 || p + 1 >= x->n || !(x->first || x->minimal) || !x->lit[p + 1])
			continue;
		/* simulate's words are exact (the page says so) */
		if (!strcmp(x->w[p], "simulate"))
			continue;
		nw = command_words(x->w[p], words, 32);
		for (k = 0; k < nw && strcmp(words[k], x->w[p + 1]); k++)
			;
		if (k == nw)
			continue;
		for (len = 1; len < strlen(x->w[p + 1]); len++) {
			char pre[32];
			int r;

			snprintf(pre, sizeof(pre), "%.*s", (int)len, x->w[p + 1]);
			r = rule(pre, words, nw);
			if (r >= 0)
				expect_with(x, p + 1, pre);
			else
				expect_ambiguous(x, p + 1, pre);
			n++;
		}
	}
	assert_true(n > 40);
}

/*
 * Keywords of service, backend and config set: every unique prefix of a settable one (among
 * the settable ones of its table) is taken for it, exact matches winning.
 */
static void test_keyword_prefixes(void **state)
{
	int i, n = 0;

	NEED_KERNEL_SAFE();
	for (i = 0; i < ninsts; i++) {
		const struct inst *x = &insts[i];
		int p = object_pos(x), k;
		bool in_backend;

		if (p < 0)
			continue;
		in_backend = !strcmp(x->w[p], "backend");
		for (k = p + 2; k < x->n; k++) {
			const struct kmg_object *obj;
			const char *keys[32];
			unsigned int f, nk = 0;
			size_t len;
			int want = -1;

			if (!x->lit[k])
				continue;
			if (!strcmp(x->w[p], "service") && !strcmp(x->w[k], "backend")) {
				in_backend = true;
				continue;
			}
			obj = !strcmp(x->w[p], "config") ? &kmg_obj_config :
			      in_backend ? &kmg_obj_backend :
			      !strcmp(x->w[p], "service") ? &kmg_obj_service : NULL;
			if (!obj)
				break;
			for (f = 0; f < obj->n; f++) {
				if (!settable(&obj->fields[f]))
					continue;
				if (!strcmp(kmg_field_key(obj, &obj->fields[f]), x->w[k]))
					want = nk;
				keys[nk++] = kmg_field_key(obj, &obj->fields[f]);
			}
			if (want < 0)
				continue;
			for (len = 1; len < strlen(x->w[k]); len++) {
				char pre[32];
				const struct kmg_field *got;
				int word;

				snprintf(pre, sizeof(pre), "%.*s", (int)len, x->w[k]);
				/* words the service parser takes before the table, exactly */
				if (!strcmp(pre, "encap-src") || !strcmp(pre, "backend"))
					continue;
				/* the parsers' own lookup (an ambiguous prefix: no field) */
				kmg_keyword(obj, NULL, 0, pre, "docs", &got, &word);
				if (rule(pre, keys, nk) != want) {
					assert_true(!got || strcmp(kmg_field_key(obj, got), x->w[k]));
					continue;
				}
				assert_non_null(got);
				expect_with(x, k, pre);
				n++;
			}
		}
	}
	assert_true(n > 100);
	print_message("# docs: %d command lines run\n", runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synopsis_parses),
		cmocka_unit_test(test_examples_parse),
		cmocka_unit_test(test_fields_documented),
		cmocka_unit_test(test_values_documented),
		cmocka_unit_test(test_objects_documented),
		cmocka_unit_test(test_options_documented),
		cmocka_unit_test(test_placeholders_documented),
		cmocka_unit_test(test_nothing_stale),
		cmocka_unit_test(test_object_prefixes),
		cmocka_unit_test(test_command_prefixes),
		cmocka_unit_test(test_keyword_prefixes),
	};

	return cmocka_run_group_tests_name("docs", tests, setup, teardown);
}
