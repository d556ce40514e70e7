// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: keepalived.conf's syntax read into a tree of lines and blocks (see kaconf.h).
 * One pass over the lines of the file and of what it includes, in keepalived's order: the
 * comment goes, then a definition is kept, an include is read, or the parameters are
 * replaced and the words added to the innermost open block.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/err.h"
#include "lib/util.h"
#include "cli/import.h"
#include "cli/kaconf.h"

#define MAX_DEPTH	64	/* blocks in blocks */
#define MAX_INCLUDE	16	/* includes in includes */
#define MAX_EXPAND	1000	/* parameter replacements in one line */
#define MAX_EXPANDED	65536	/* a line with its parameters replaced: bytes */
#define MAX_LINE	65536	/* a line as read: bytes */
#define MAX_FILES	1000	/* files read in all, includes included */

struct def {
	char *name, *value;
};

struct tok {
	char *s;
	bool quoted;
};

struct pstate {
	struct kac_tree *t;
	struct kac_node *open[MAX_DEPTH + 1];	/* open[0]: the root */
	unsigned int depth;
	struct kac_node *last;		/* the line before, if "{" on the next line may open it */
	struct def *defs;
	unsigned int ndefs;
	unsigned int includes;
	unsigned int files;		/* read so far: an include fan-out is bounded */
	const char *file;		/* being read */
	char *dir;			/* its directory, absolute if it can be */
};

static int oom(void)
{
	return kmg_err(KMG_EFAIL, "out of memory");
}

static const char *intern(struct kac_tree *t, const char *name)
{
	char *s = strdup(name);

	if (!s || kmg_grow(&t->files, t->nfiles, sizeof(*t->files))) {
		free(s);
		return NULL;
	}
	t->files[t->nfiles++] = s;
	return s;
}

/* --- a line's text -------------------------------------------------------------------- */

/*
 * The comment and surrounding blanks removed, "\!" and "\#" made plain (outside quotes), in
 * place, as keepalived's decomment() does; tokenize() then ends the line there all the same.
 * -1 for a quote left open before the comment.
 */
static int decomment(char *s)
{
	bool quote = false;
	char *r = s, *w = s, *end;

	while (*r) {
		if (*r == '"') {
			quote = !quote;
		} else if (*r == '\\' && r[1]) {
			if (!quote && (r[1] == '#' || r[1] == '!'))
				r++;
			else
				*w++ = *r++;
		} else if (!quote && (*r == '!' || *r == '#')) {
			break;
		}
		*w++ = *r++;
	}
	*w = '\0';
	if (quote)
		return -1;
	end = w;
	while (end > s && isblank((unsigned char)end[-1]))
		*--end = '\0';
	r = s + strspn(s, " \t");
	memmove(s, r, strlen(r) + 1);
	return 0;
}

static bool name_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool name_char(int c)
{
	return isalnum(c) || c == '_';
}

/* "$NAME=VALUE": keep it (*@is set). 0, or an error recorded. */
static int definition(struct pstate *ps, const char *s, unsigned int line, bool *is)
{
	const char *p = s + 1, *v;
	struct def *d = NULL;
	size_t len;
	unsigned int i;

	*is = false;
	if (s[0] != '$' || !name_start((unsigned char)s[1]))
		return 0;
	while (name_char((unsigned char)*p))
		p++;
	if (*p != '=')
		return 0;
	*is = true;
	len = p - s - 1;
	v = p + 1 + strspn(p + 1, " \t");
	if (*v && v[strlen(v) - 1] == '\\')
		return kmg_err(KMG_EFAIL,
			       "%s:%u: multiline definition \"%.*s\": not supported (write its lines out)",
			       ps->file, line, (int)len, s + 1);
	for (i = 0; i < ps->ndefs; i++)
		if (strlen(ps->defs[i].name) == len && !strncmp(ps->defs[i].name, s + 1, len))
			d = &ps->defs[i];
	if (!d) {
		if (kmg_grow(&ps->defs, ps->ndefs, sizeof(*ps->defs)))
			return oom();
		d = &ps->defs[ps->ndefs];
		d->name = strndup(s + 1, len);
		d->value = NULL;
		if (!d->name)
			return oom();
		ps->ndefs++;
	}
	free(d->value);
	d->value = strdup(v);
	return d->value ? 0 : oom();
}

/* The value of parameter @name (@len bytes), NULL if undefined; *@bad for one we cannot know. */
static const char *lookup(struct pstate *ps, const char *name, size_t len, bool *bad)
{
	unsigned int i;

	*bad = false;
	for (i = 0; i < ps->ndefs; i++)
		if (strlen(ps->defs[i].name) == len && !strncmp(ps->defs[i].name, name, len))
			return ps->defs[i].value;
	if (len == 4 && !strncmp(name, "_PWD", 4))
		return ps->dir;
	if (len == 5 && !strncmp(name, "_HASH", 5))
		return "#";
	if (len == 5 && !strncmp(name, "_BANG", 5))
		return "!";
	if ((len == 9 && !strncmp(name, "_INSTANCE", 9)) ||
	    (len == 7 && !strncmp(name, "_RANDOM", 7)))
		*bad = true;
	return NULL;
}

/* @s with its parameters replaced, in *@out (to be freed). */
static int substitute(struct pstate *ps, const char *s, unsigned int line, char **out)
{
	char *str = strdup(s), *n;
	size_t pos = 0, nlen, skip;
	unsigned int count = 0;
	const char *name, *v;
	bool bad;

	if (!str)
		return oom();
	while (str[pos]) {
		char *p = strchr(str + pos, '$');

		if (!p)
			break;
		pos = p - str;
		if (p[1] == '{') {
			const char *q;

			name = p + 2;
			for (nlen = 0; name_char((unsigned char)name[nlen]); nlen++)
				;
			/* parameters, as in ${_RANDOM 1 10} */
			for (q = name + nlen; *q == ' ' || isdigit((unsigned char)*q); q++)
				;
			if (*q != '}' || !nlen || !name_start((unsigned char)name[0])) {
				pos++;
				continue;
			}
			skip = q - p + 1;
			if (q != name + nlen) {
				lookup(ps, name, nlen, &bad);
				if (bad)
					goto unknowable;
				pos++;
				continue;
			}
		} else {
			name = p + 1;
			for (nlen = 0; name_char((unsigned char)name[nlen]); nlen++)
				;
			skip = nlen + 1;
			if (!nlen || !name_start((unsigned char)name[0]) ||
			    !strchr(" \t,)", name[nlen])) {
				pos++;
				continue;
			}
		}
		v = lookup(ps, name, nlen, &bad);
		if (bad)
			goto unknowable;
		if (!v) {
			pos++;
			continue;
		}
		if (++count > MAX_EXPAND) {
			free(str);
			return kmg_err(KMG_EFAIL, "%s:%u: the parameters expand without end",
				       ps->file, line);
		}
		if (strlen(str) - skip + strlen(v) > MAX_EXPANDED) {
			free(str);
			return kmg_err(KMG_EFAIL, "%s:%u: the parameters expand to more than %u bytes",
				       ps->file, line, MAX_EXPANDED);
		}
		/* the value in place of the reference, read again from its start */
		if (asprintf(&n, "%.*s%s%s", (int)pos, str, v, str + pos + skip) < 0) {
			free(str);
			return oom();
		}
		free(str);
		str = n;
	}
	*out = str;
	return 0;

unknowable:
	kmg_err(KMG_EFAIL, "%s:%u: ${%.*s} depends on how keepalived runs: not supported",
		ps->file, line, (int)nlen, name);
	free(str);
	return KMG_EFAIL;
}

/*
 * The words of @s: blanks separate them, "..." is one, "{" and "}" are words of their own
 * (with @braces: not in an include's pattern, "{a,b}.conf"). A "#" or "!" outside quotes ends
 * the line, in a word or not, as in keepalived 2.2's word splitter (checked against its
 * binary: "X\#y", "X${_HASH}y" and "X#y" are all the word "X"): decomment() has removed the
 * comments written as such, so one left here came from "\#" or "\!" or from a parameter,
 * and *@cut says so.
 */
static int tokenize(const char *s, bool braces, const char *file, unsigned int line,
		    struct tok **tp, unsigned int *np, bool *cut)
{
	struct tok *t = NULL;
	unsigned int n = 0;
	const char *e;
	size_t len;
	bool quoted;

	*cut = false;
	for (;;) {
		s += strspn(s, " \t\f\v\r");
		if (*s == '#' || *s == '!')
			*cut = true;
		if (!*s || *cut)
			break;
		quoted = *s == '"';
		if (quoted) {
			e = strchr(s + 1, '"');
			if (!e)
				goto unclosed;
			s++;
			len = e - s;
		} else if (braces && (*s == '{' || *s == '}')) {
			len = 1;
		} else {
			len = strcspn(s, braces ? " \t\f\v\r\"{}#!" : " \t\f\v\r\"#!");
		}
		if (kmg_grow(&t, n, sizeof(*t)))
			goto nomem;
		t[n].s = strndup(s, len);
		t[n].quoted = quoted;
		if (!t[n].s)
			goto nomem;
		n++;
		s += len + quoted;
	}
	*tp = t;
	*np = n;
	return 0;
unclosed:
	while (n)
		free(t[--n].s);
	free(t);
	return kmg_err(KMG_EFAIL, "%s:%u: a quote (\") is not closed", file, line);
nomem:
	while (n)
		free(t[--n].s);
	free(t);
	return oom();
}

/* --- the tree ------------------------------------------------------------------------- */

/* A line of @w into the innermost open block; the words are the node's then. */
static struct kac_node *append(struct pstate *ps, char ***w, unsigned int *nw, unsigned int line)
{
	struct kac_node *b = ps->open[ps->depth], *x;

	if (kmg_grow(&b->kid, b->nkid, sizeof(*b->kid)))
		return NULL;
	x = &b->kid[b->nkid++];
	memset(x, 0, sizeof(*x));
	x->w = *w;
	x->nw = *nw;
	x->file = ps->file;
	x->line = line;
	*w = NULL;
	*nw = 0;
	return x;
}

static int open_block(struct pstate *ps, struct kac_node *x, unsigned int line)
{
	if (ps->depth == MAX_DEPTH)
		return kmg_err(KMG_EFAIL, "%s:%u: blocks nested more than %d deep", ps->file,
			       line, MAX_DEPTH);
	x->block = true;
	ps->open[++ps->depth] = x;
	return 0;
}

/* The words of one line into the tree. */
static int feed(struct pstate *ps, struct tok *t, unsigned int n, unsigned int line)
{
	struct kac_node *last = ps->last, *x;
	char **w = NULL;
	unsigned int nw = 0, i;
	int ret = 0;

	ps->last = NULL;
	for (i = 0; i < n && !ret; i++) {
		if (!t[i].quoted && !strcmp(t[i].s, "{")) {
			if (nw) {
				x = append(ps, &w, &nw, line);
				ret = x ? open_block(ps, x, line) : oom();
			} else if (!i && last) {
				ret = open_block(ps, last, line);
			} else {
				ret = kmg_err(KMG_EFAIL, "%s:%u: \"{\" without a keyword before it",
					      ps->file, line);
			}
		} else if (!t[i].quoted && !strcmp(t[i].s, "}")) {
			if (nw && !append(ps, &w, &nw, line))
				ret = oom();
			else if (!ps->depth)
				ret = kmg_err(KMG_EFAIL, "%s:%u: \"}\" closes no block", ps->file,
					      line);
			else
				ps->depth--;
		} else {
			if (kmg_grow(&w, nw, sizeof(*w))) {
				ret = oom();
				break;
			}
			w[nw++] = t[i].s;
			t[i].s = NULL;
		}
	}
	if (!ret && nw) {
		ps->last = append(ps, &w, &nw, line);
		if (!ps->last)
			ret = oom();
	}
	while (nw)
		free(w[--nw]);
	free(w);
	return ret;
}

static void node_free(struct kac_node *x)
{
	unsigned int i;

	for (i = 0; i < x->nw; i++)
		free(x->w[i]);
	free(x->w);
	for (i = 0; i < x->nkid; i++)
		node_free(&x->kid[i]);
	free(x->kid);
}

void kac_free(struct kac_tree *t)
{
	unsigned int i;

	node_free(&t->root);
	for (i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i].text);
	free(t->notes);
	memset(t, 0, sizeof(*t));
}

/* --- files ---------------------------------------------------------------------------- */

static int read_file(struct pstate *ps, const char *path, const char *from, unsigned int at);

static int note(struct pstate *ps, unsigned int line, char *text)
{
	struct kac_tree *t = ps->t;

	if (!text || kmg_grow(&t->notes, t->nnotes, sizeof(*t->notes))) {
		free(text);
		return oom();
	}
	t->notes[t->nnotes].file = ps->file;
	t->notes[t->nnotes].line = line;
	t->notes[t->nnotes++].text = text;
	return 0;
}

static const char *const include_words[] = {
	"include", "includer", "includem", "includew", "includeb", "includea",
};

static int include(struct pstate *ps, const char *pattern, unsigned int line)
{
	char *full = NULL, *text;
	glob_t g;
	size_t i;
	int ret = 0, gr;

	if (ps->includes == MAX_INCLUDE)
		return kmg_err(KMG_EFAIL, "%s:%u: includes nested more than %d deep (a loop?)",
			       ps->file, line, MAX_INCLUDE);
	if (pattern[0] != '/') {
		char *slash = strrchr(ps->file, '/');

		if (slash && asprintf(&full, "%.*s/%s", (int)(slash - ps->file), ps->file,
				      pattern) < 0)
			return oom();
	}
	gr = glob(full ? full : pattern, GLOB_MARK | GLOB_BRACE, NULL, &g);
	free(full);
	if (gr == GLOB_NOMATCH) {
		if (asprintf(&text, "include \"%s\": no file matches (keepalived reads none either)",
			     pattern) < 0)
			text = NULL;
		return note(ps, line, text);
	}
	if (gr)
		return kmg_err(KMG_EFAIL, "%s:%u: include \"%s\": %s", ps->file, line, pattern,
			       gr == GLOB_NOSPACE ? "out of memory" : "cannot read a directory");
	for (i = 0; !ret && i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i];
		struct stat st;

		if (p[strlen(p) - 1] == '/')
			continue;
		/* keepalived skips what is not a plain file, or is executable */
		if (!stat(p, &st) && (!S_ISREG(st.st_mode) || st.st_mode & 0111)) {
			if (asprintf(&text, "include \"%s\": %s is not a plain, non-executable file: keepalived skips it, and so does this",
				     pattern, p) < 0)
				text = NULL;
			ret = note(ps, line, text);
			continue;
		}
		ps->includes++;
		ret = read_file(ps, p, ps->file, line);
		ps->includes--;
	}
	globfree(&g);
	return ret;
}

static int line_in(struct pstate *ps, char *buf, unsigned int line)
{
	bool is_def, cut;
	struct tok *t = NULL;
	unsigned int n = 0, i;
	char *s = NULL;
	int ret;

	if (decomment(buf))
		return kmg_err(KMG_EFAIL, "%s:%u: a quote (\") is not closed", ps->file, line);
	if (!buf[0])
		return 0;
	if (buf[0] == '@')
		return kmg_err(KMG_EFAIL,
			       "%s:%u: conditional line \"%.*s\": which lines apply depends on keepalived's -i; not supported (keep the lines of this host only)",
			       ps->file, line, (int)strcspn(buf, " \t"), buf);
	if (buf[0] == '~')
		return kmg_err(KMG_EFAIL, "%s:%u: sequence \"%.*s\": not supported (write its lines out)",
			       ps->file, line, (int)strcspn(buf, "("), buf);
	ret = definition(ps, buf, line, &is_def);
	if (ret || is_def)
		return ret;
	/* includes are found before parameters are replaced, as keepalived does */
	ret = tokenize(buf, false, ps->file, line, &t, &n, &cut);
	if (ret)
		return ret;
	for (i = 0; n && i < KMG_ARRAY_SIZE(include_words); i++)
		if (!t[0].quoted && !strcmp(t[0].s, include_words[i]))
			break;
	if (n && i < KMG_ARRAY_SIZE(include_words)) {
		ret = n == 2 ? include(ps, t[1].s, line) :
			       kmg_err(KMG_EFAIL, "%s:%u: %s takes one file name or pattern",
				       ps->file, line, t[0].s);
		goto out;
	}
	while (n)
		free(t[--n].s);
	free(t);
	t = NULL;
	ret = substitute(ps, buf, line, &s);
	if (!ret && s[0] == '@')
		ret = kmg_err(KMG_EFAIL,
			      "%s:%u: conditional line \"%.*s\" (from a parameter): not supported",
			      ps->file, line, (int)strcspn(s, " \t"), s);
	if (!ret)
		ret = tokenize(s, true, ps->file, line, &t, &n, &cut);
	if (!ret && cut)
		ret = note(ps, line, strdup("a \"#\" or \"!\" outside quotes, escaped (\"\\#\") or from a parameter, ends the line for keepalived 2.2 as a comment does, and here too: the words after it are left out (quote a word for a literal #)"));
	if (!ret)
		ret = feed(ps, t, n, line);
out:
	while (n)
		free(t[--n].s);
	free(t);
	free(s);
	return ret;
}

static int read_file(struct pstate *ps, const char *path, const char *from, unsigned int at)
{
	const char *saved_file = ps->file;
	char *saved_dir = ps->dir, *buf = NULL, *slash, real[PATH_MAX];
	size_t cap = 0;
	unsigned int line = 0;
	ssize_t len;
	int ret = 0;
	FILE *f;

	if (++ps->files > MAX_FILES)
		return kmg_err(KMG_EFAIL, "%s:%u: include %s: more than %u files read in all",
			       from ? from : path, at, path, MAX_FILES);
	f = fopen(path, "r");
	if (!f) {
		if (from)
			return kmg_err(KMG_EFAIL, "%s:%u: include %s: %s", from, at, path,
				       strerror(errno));
		return kmg_err(KMG_EFAIL, "cannot read %s: %s", path, strerror(errno));
	}
	ps->file = intern(ps->t, path);
	slash = strrchr(path, '/');
	if (slash) {
		char *d = strndup(path, slash - path ? (size_t)(slash - path) : 1);

		ps->dir = d && realpath(d, real) ? strdup(real) : d ? strdup(d) : NULL;
		free(d);
	} else {
		ps->dir = realpath(".", real) ? strdup(real) : strdup(".");
	}
	if (!ps->file || !ps->dir)
		ret = oom();
	while (!ret && (len = kmg_imp_getline(&buf, &cap, f, MAX_LINE)) >= 0) {
		line++;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (strlen(buf) != (size_t)len)
			ret = kmg_err(KMG_EFAIL, "%s:%u: a NUL byte: not a text file", ps->file,
				      line);
		else
			ret = line_in(ps, buf, line);
	}
	if (!ret && len == -2)
		ret = kmg_err(KMG_EFAIL, "%s:%u: a line of more than %u bytes", ps->file, line + 1,
			      MAX_LINE);
	else if (!ret && len == -3)
		ret = kmg_err(KMG_EFAIL, "reading %s: %s", path,
			      ferror(f) ? strerror(errno) : "out of memory");
	free(buf);
	fclose(f);
	free(ps->dir);
	ps->dir = saved_dir;
	ps->file = saved_file;
	return ret;
}

int kac_parse(const char *path, struct kac_tree *t)
{
	struct pstate ps = { .t = t };
	unsigned int i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->root.block = true;
	ps.open[0] = &t->root;
	ret = read_file(&ps, path, NULL, 0);
	if (!ret && ps.depth) {
		const struct kac_node *x = ps.open[ps.depth];

		ret = kmg_err(KMG_EFAIL, "%s:%u: the block of \"%s\" is not closed (no \"}\")",
			      x->file, x->line, x->w[0]);
	}
	for (i = 0; i < ps.ndefs; i++) {
		free(ps.defs[i].name);
		free(ps.defs[i].value);
	}
	free(ps.defs);
	return ret;
}

/* --- scripts -------------------------------------------------------------------------- */

void kac_argv_free(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/* The character a backslash escape stands for; *@s past it. */
static char unescape(const char **s)
{
	const char *p = *s;
	char c = 0;
	int i;

	if (*p == 'x' && isxdigit((unsigned char)p[1])) {
		for (p++; isxdigit((unsigned char)*p); p++)
			c = (c << 4) | (isdigit((unsigned char)*p) ? *p - '0' :
					10 + tolower((unsigned char)*p) - 'a');
	} else if (*p == 'c' && p[1]) {
		c = p[1] & 0x1f;
		p += 2;
	} else if (*p >= '0' && *p <= '7') {
		for (i = 0; i < 3 && *p >= '0' && *p <= '7'; i++, p++)
			c = (c << 3) | (*p - '0');
	} else {
		static const char from[] = "abEfnrtv", to[] = "\a\b\033\f\n\r\t\v";
		const char *k = strchr(from, *p);

		c = k && *p ? to[k - from] : *p;
		p++;
	}
	*s = p;
	return c;
}

int kac_split_argv(const char *s, char ***argvp)
{
	char **argv = NULL, *w = malloc(strlen(s) + 1), *o;
	unsigned int n = 0;
	char quote;

	if (!w)
		return -ENOMEM;
	for (;;) {
		s += strspn(s, " \t\f\v\r\n");
		if (!*s)
			break;
		o = w;
		quote = 0;
		while (*s && (quote || !strchr(" \t\f\v\r\n", *s))) {
			if (*s == '\\') {
				s++;
				if (!*s)
					goto bad;
				*o++ = unescape(&s);
			} else if (quote && *s == quote) {
				quote = 0;
				s++;
			} else if (!quote && (*s == '"' || *s == '\'')) {
				quote = *s++;
			} else {
				*o++ = *s++;
			}
		}
		if (quote)
			goto bad;
		if (kmg_grow(&argv, n, sizeof(*argv)) ||
		    !(argv[n] = strndup(w, o - w)))
			goto nomem;
		n++;
	}
	free(w);
	if (kmg_grow(&argv, n, sizeof(*argv))) {
		w = NULL;
		goto nomem;
	}
	argv[n] = NULL;
	*argvp = argv;
	return 0;
bad:
	free(w);
	while (n)
		free(argv[--n]);
	free(argv);
	return -EINVAL;
nomem:
	free(w);
	while (n)
		free(argv[--n]);
	free(argv);
	return -ENOMEM;
}
