// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: the model "kmaglev import" fills (see import.h), its notes and losses, and the
 * model written as a daemon configuration file, read back by the daemon's own loader.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "lib/args.h"
#include "lib/err.h"
#include "cli/import.h"

/* --- notes and losses ----------------------------------------------------------------- */

static void say(FILE *f, const struct kmg_imp_src *at, const char *kind, const char *fmt,
		va_list ap)
{
	if (!f)
		return;
	if (at && at->line)
		fprintf(f, "%s:%u: %s: ", at->file, at->line, kind);
	else if (at && at->file)
		fprintf(f, "%s: %s: ", at->file, kind);
	else
		fprintf(f, "%s: ", kind);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

void kmg_imp_note(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(imp->diag, at, "note", fmt, ap);
	va_end(ap);
	imp->nnotes++;
}

void kmg_imp_loss(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *fmt, ...)
{
	char *msg = NULL, *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	say(imp->diag, at, "not mapped", fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* kept for the file's header; a loss is counted even when memory runs out */
	if (msg && at && at->line) {
		if (asprintf(&line, "%s:%u: %s", at->file, at->line, msg) < 0)
			line = NULL;
	} else if (msg && at && at->file) {
		if (asprintf(&line, "%s: %s", at->file, msg) < 0)
			line = NULL;
	} else if (msg) {
		line = strdup(msg);
	}
	free(msg);
	if (line && !kmg_grow(&imp->losses, imp->nlost, sizeof(*imp->losses)))
		imp->losses[imp->nlost++] = line;
	else
		free(line);
	imp->nlosses++;
}

const char *kmg_imp_schedule(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *what,
			     const char *sched, bool port_flag, const char *persist)
{
	bool src = sched && (!strcmp(sched, "sh") || !strcmp(sched, "mh")) && !port_flag;
	char s1[128] = "", s2[256] = "";

	if (!sched && !persist)
		return NULL;
	if (sched)
		snprintf(s1, sizeof(s1),
			 "Maglev consistent hashing replaces the scheduler %s (the weights are kept)",
			 sched);
	if (persist)
		snprintf(s2, sizeof(s2),
			 "%s%s: hash: src-addr: all flows of a client address go to one backend as long as the backends stay the same, with no timeout",
			 sched ? "; " : "", persist);
	else if (src)
		snprintf(s2, sizeof(s2),
			 "; hash: src-addr keeps a client address on one backend, as %s did", sched);
	kmg_imp_note(imp, at, "%s: %s%s", what, s1, s2);
	return persist || src ? "src-addr" : NULL;
}

bool kmg_imp_addr_ok(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *what,
		     const struct kmg_addr *a)
{
	char buf[INET6_ADDRSTRLEN], *why;
	struct kmg_addr back;

	kmg_fmt_addr(a, buf, sizeof(buf));
	if (!kmg_arg_addr("address", buf, &back, 0))
		return true;
	why = strdup(kmg_errmsg());
	kmg_err_clear();
	kmg_imp_loss(imp, at, "%s: kmaglev takes no such address (%s): left out", what,
		     why ? why : "?");
	free(why);
	return false;
}

/* --- the model ------------------------------------------------------------------------ */

struct kmg_imp_service *kmg_imp_service_add(struct kmg_imp *imp, const struct kmg_imp_src *at,
					    const struct kmg_addr *vip, uint16_t port,
					    uint8_t proto, const char *what)
{
	struct kmg_imp_service *s;
	char buf[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < imp->nsvc; i++) {
		s = &imp->svc[i];
		if (s->port == port && s->proto == proto && kmg_addr_equal(&s->vip, vip)) {
			kmg_imp_loss(imp, at,
				     "%s: the service %s port %u/%s is %s:%u's already: left out",
				     what, kmg_fmt_addr(vip, buf, sizeof(buf)), port,
				     kmg_fmt_proto(proto), s->src.file, s->src.line);
			return NULL;
		}
	}
	if (kmg_grow(&imp->svc, imp->nsvc, sizeof(*imp->svc)))
		return NULL;
	s = &imp->svc[imp->nsvc];
	memset(s, 0, sizeof(*s));
	s->what = strdup(what);
	if (!s->what)
		return NULL;
	imp->nsvc++;
	s->src = *at;
	s->vip = *vip;
	s->port = port;
	s->proto = proto;
	return s;
}

struct kmg_imp_backend *kmg_imp_backend_add(struct kmg_imp *imp, struct kmg_imp_service *s,
					    const struct kmg_imp_src *at,
					    const struct kmg_addr *addr)
{
	struct kmg_imp_backend *b;
	char buf[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < s->nbe; i++)
		if (kmg_addr_equal(&s->be[i].addr, addr)) {
			kmg_imp_loss(imp, at,
				     "backend %s of %s is there already (%s:%u): a backend is an address, once per service; left out",
				     kmg_fmt_addr(addr, buf, sizeof(buf)), s->what,
				     s->be[i].src.file, s->be[i].src.line);
			return NULL;
		}
	if (kmg_grow(&s->be, s->nbe, sizeof(*s->be)))
		return NULL;
	b = &s->be[s->nbe++];
	memset(b, 0, sizeof(*b));
	b->src = *at;
	b->addr = *addr;
	b->weight = 1;
	return b;
}

struct kmg_imp_check *kmg_imp_check_add(struct kmg_imp_backend *b)
{
	struct kmg_imp_check *k;

	if (kmg_grow(&b->checks, b->nchecks, sizeof(*b->checks)))
		return NULL;
	k = &b->checks[b->nchecks++];
	memset(k, 0, sizeof(*k));
	return k;
}

static int dup_str(char **dst, const char *s)
{
	*dst = NULL;
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

int kmg_imp_check_copy(struct kmg_imp_check *dst, const struct kmg_imp_check *k)
{
	unsigned int n = 0, i;
	int ret = 0;

	*dst = *k;
	dst->argv = NULL;
	ret |= dup_str(&dst->host, k->host);
	ret |= dup_str(&dst->path, k->path);
	ret |= dup_str(&dst->body, k->body);
	ret |= dup_str(&dst->send, k->send);
	ret |= dup_str(&dst->expect, k->expect);
	ret |= dup_str(&dst->query, k->query);
	ret |= dup_str(&dst->qtype, k->qtype);
	if (k->argv) {
		while (k->argv[n])
			n++;
		dst->argv = calloc(n + 1, sizeof(*dst->argv));
		for (i = 0; dst->argv && i < n; i++)
			ret |= dup_str(&dst->argv[i], k->argv[i]);
		if (!dst->argv)
			ret = -ENOMEM;
	}
	return ret ? -ENOMEM : 0;
}

static void check_free(struct kmg_imp_check *k)
{
	char **a;

	free(k->host);
	free(k->path);
	free(k->body);
	free(k->send);
	free(k->expect);
	free(k->query);
	free(k->qtype);
	for (a = k->argv; a && *a; a++)
		free(*a);
	free(k->argv);
}

void kmg_imp_checks_free(struct kmg_imp_check *k, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		check_free(&k[i]);
	free(k);
}

void kmg_imp_free(struct kmg_imp *imp)
{
	unsigned int i, j;

	for (i = 0; i < imp->nsvc; i++) {
		struct kmg_imp_service *s = &imp->svc[i];

		for (j = 0; j < s->nbe; j++)
			kmg_imp_checks_free(s->be[j].checks, s->be[j].nchecks);
		free(s->be);
		free(s->what);
	}
	free(imp->svc);
	for (i = 0; i < imp->nlost; i++)
		free(imp->losses[i]);
	free(imp->losses);
	for (i = 0; i < imp->nfiles; i++)
		free(imp->files[i]);
	free(imp->files);
	imp->files = NULL;
	imp->nfiles = 0;
	imp->svc = NULL;
	imp->losses = NULL;
	imp->nsvc = imp->nlosses = imp->nlost = 0;
}

ssize_t kmg_imp_getline(char **buf, size_t *cap, FILE *f, size_t max)
{
	size_t n = 0;
	int c;

	for (;;) {
		if (n + 2 > *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			char *b = realloc(*buf, ncap);

			if (!b)
				return -3;
			*buf = b;
			*cap = ncap;
		}
		c = getc(f);
		if (c == EOF)
			break;
		if (n == max)
			return -2;
		(*buf)[n++] = c;
		if (c == '\n')
			break;
	}
	(*buf)[n] = '\0';
	if (ferror(f))
		return -3;
	return n || c != EOF ? (ssize_t)n : -1;
}

/*
 * The code point of the UTF-8 sequence at @p (NUL-terminated), its length in *@n; -1 with
 * *@why for a sequence that is no strict UTF-8 (RFC 3629).
 */
static long utf8_next(const unsigned char *p, unsigned int *n, const char **why)
{
	static const long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned int len, i;
	long c;

	if (p[0] < 0x80) {
		*n = 1;
		return p[0];
	}
	*n = 1;
	if (p[0] < 0xc0) {
		*why = "a continuation byte with no lead byte";
		return -1;
	}
	if (p[0] >= 0xf8) {
		*why = "a byte that never appears in UTF-8";
		return -1;
	}
	len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	c = p[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			*why = "a sequence cut short";
			return -1;
		}
		c = c << 6 | (p[i] & 0x3f);
	}
	*n = len;
	if (c < min[len])
		*why = "an overlong form";
	else if (c >= 0xd800 && c <= 0xdfff)
		*why = "a UTF-16 surrogate, which UTF-8 must not encode";
	else if (c > 0x10ffff)
		*why = "past U+10FFFF";
	else
		return c;
	return -1;
}

const char *kmg_imp_text_why(const char *s, size_t max, bool nospace, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	const char *why = NULL;
	unsigned int k;
	long c;

	if (!n) {
		snprintf(buf, len, "empty");
		return buf;
	}
	if (n > max) {
		snprintf(buf, len, "longer than %zu bytes", max);
		return buf;
	}
	for (; *p; p += k) {
		c = utf8_next(p, &k, &why);
		if (c < 0) {
			snprintf(buf, len, "not UTF-8 at byte %zu (0x%02x: %s)",
				 (size_t)(p - (const unsigned char *)s) + 1, *p, why);
			return buf;
		}
		if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
			why = "a control character";
		else if (c == 0x2028 || c == 0x2029)
			why = "a line or paragraph separator";
		else if (c == 0xfffe || c == 0xffff)
			why = "a noncharacter";
		else if (nospace && c == ' ')
			why = "a space";
		if (why) {
			snprintf(buf, len, "%s (U+%04lX) at byte %zu", why, c,
				 (size_t)(p - (const unsigned char *)s) + 1);
			return buf;
		}
	}
	return NULL;
}

bool kmg_imp_text_ok(const char *s, size_t max, bool nospace)
{
	char buf[96];

	return !kmg_imp_text_why(s, max, nospace, buf, sizeof(buf));
}

char *kmg_imp_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *why;
	size_t o = 0;
	unsigned int k;
	long c;

	if (!len)
		return buf;
	for (; *p && o + 1 < len; p += k) {
		c = utf8_next(p, &k, &why);
		if (c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f) && c != 0x2028 &&
		    c != 0x2029 && c != 0xfffe && c != 0xffff && c != '\\') {
			if (o + k >= len)
				break;
			memcpy(buf + o, p, k);
			o += k;
		} else {
			k = 1;
			if (o + 4 >= len)
				break;
			o += snprintf(buf + o, len - o, "\\x%02x", *p);
		}
	}
	buf[o] = '\0';
	return buf;
}

/* --- the file ------------------------------------------------------------------------- */

/* YAML's plain scalars that would read as something else than text. */
static bool yaml_special(const char *s)
{
	static const char *const words[] = { "true", "false", "yes", "no", "on", "off", "null",
					     "y", "n" };
	unsigned int i;

	for (i = 0; i < KMG_ARRAY_SIZE(words); i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return false;
}

/* @s as a YAML scalar: plain when it reads back as itself, else double-quoted. */
static void put_str(FILE *f, const char *s)
{
	const unsigned char *p;

	if (s[0] && s[0] != '-' && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-")] &&
	    !yaml_special(s)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* Text in a comment: printable ASCII as it is, anything else as "?" (YAML wants UTF-8). */
static void put_comment(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', f);
}

static void put_ms(FILE *f, const char *key, uint32_t ms, const char *ind)
{
	char buf[32];

	if (ms)
		fprintf(f, "%s%s: %s\n", ind, key, kmg_fmt_duration(ms, buf, sizeof(buf)));
}

/* "INDENTkey: text" when @s is given. */
static void put_text(FILE *f, const char *ind, const char *key, const char *s)
{
	if (!s)
		return;
	fprintf(f, "%s%s: ", ind, key);
	put_str(f, s);
	fputc('\n', f);
}

/* The name the loader gives @k: its kind, or KIND-PORT with a port. */
static void default_name(const struct kmg_imp_check *k, char *buf, size_t len)
{
	if (k->port)
		snprintf(buf, len, "%s-%u", kmd_check_kind_name(k->kind), k->port);
	else
		snprintf(buf, len, "%s", kmd_check_kind_name(k->kind));
}

/* A check list item at indent @ind ("      "); @name NULL: the loader's default. */
static void put_check(FILE *f, const struct kmg_imp_check *k, const char *name, const char *ind)
{
	unsigned int i;
	char in[40];

	snprintf(in, sizeof(in), "%s  ", ind);
	fprintf(f, "%s- kind: %s\n", ind, kmd_check_kind_name(k->kind));
	if (name)
		fprintf(f, "%sname: %s\n", in, name);
	if (k->direct && k->kind != KMD_CHECK_EXEC)
		fprintf(f, "%svia: direct\n", in);
	if (k->port)
		fprintf(f, "%sport: %u\n", in, k->port);
	put_ms(f, "interval", k->interval_ms, in);
	put_ms(f, "timeout", k->timeout_ms, in);
	put_ms(f, "fast-interval", k->fast_ms, in);
	if (k->rise)
		fprintf(f, "%srise: %u\n", in, k->rise);
	if (k->fall)
		fprintf(f, "%sfall: %u\n", in, k->fall);
	put_text(f, in, "host", k->host);
	put_text(f, in, "path", k->path);
	if (k->nstatus) {
		fprintf(f, "%sstatus: [", in);
		for (i = 0; i < k->nstatus; i++) {
			if (k->status[i].lo == k->status[i].hi)
				fprintf(f, "%s%u", i ? ", " : "", k->status[i].lo);
			else
				fprintf(f, "%s\"%u-%u\"", i ? ", " : "", k->status[i].lo,
					k->status[i].hi);
		}
		fputs("]\n", f);
	}
	put_text(f, in, "body", k->body);
	if (k->argv) {
		fprintf(f, "%scommand: [", in);
		for (i = 0; k->argv[i]; i++) {
			fputs(i ? ", " : "", f);
			put_str(f, k->argv[i]);
		}
		fputs("]\n", f);
	}
	put_text(f, in, "send", k->send);
	put_text(f, in, "expect", k->expect);
	put_text(f, in, "query", k->query);
	if (k->qtype)
		fprintf(f, "%sqtype: %s\n", in, k->qtype);
}

/*
 * "checks:" and the list at indent @ind. Checks whose default names would clash (two URLs
 * of one server, say) are named KIND[-PORT]-N, N counting among those that share the name.
 */
static void put_checks(FILE *f, const struct kmg_imp_check *k, unsigned int n, const char *ind)
{
	char name[40], other[80];
	unsigned int i, j, same, nth;
	char sub[32];

	fprintf(f, "%schecks:%s\n", ind, n ? "" : " []");
	snprintf(sub, sizeof(sub), "%s  ", ind);
	for (i = 0; i < n; i++) {
		default_name(&k[i], name, sizeof(name));
		for (same = 0, nth = 0, j = 0; j < n; j++) {
			default_name(&k[j], other, sizeof(other));
			if (!strcmp(name, other)) {
				same++;
				if (j < i)
					nth++;
			}
		}
		if (same > 1) {
			snprintf(other, sizeof(other), "%s-%u", name, nth + 1);
			put_check(f, &k[i], other, sub);
		} else {
			put_check(f, &k[i], NULL, sub);
		}
	}
}

/* @b's checks as text, to compare the lists of backends (NULL: out of memory). */
static char *checks_text(const struct kmg_imp_backend *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	put_checks(f, b->checks, b->nchecks, "");
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Do all backends of @s have the same checks, and some? */
static bool shared_checks(const struct kmg_imp_service *s)
{
	char *first, *t;
	bool same = true;
	unsigned int i;

	if (!s->nbe || !s->be[0].nchecks)
		return false;
	first = checks_text(&s->be[0]);
	for (i = 1; first && same && i < s->nbe; i++) {
		t = checks_text(&s->be[i]);
		same = t && !strcmp(first, t);
		free(t);
	}
	if (!first)
		same = false;
	free(first);
	return same;
}

static void put_service(FILE *f, const struct kmg_imp_service *s)
{
	char buf[INET6_ADDRSTRLEN];
	bool shared = shared_checks(s);
	unsigned int i;

	fputs("  # ", f);
	put_comment(f, s->src.file);
	fprintf(f, ":%u: ", s->src.line);
	put_comment(f, s->what);
	fputc('\n', f);
	fputs("  - vip: ", f);
	put_str(f, kmg_fmt_addr(&s->vip, buf, sizeof(buf)));
	fprintf(f, "\n    port: %u\n", s->port);
	if (s->proto != IPPROTO_TCP)
		fprintf(f, "    proto: %s\n", kmg_fmt_proto(s->proto));
	if (s->hash)
		fprintf(f, "    hash: %s\n", s->hash);
	if (s->quorum_min)
		fprintf(f, "    quorum: { min: %u }\n", s->quorum_min);
	if (shared)
		put_checks(f, s->be[0].checks, s->be[0].nchecks, "    ");
	if (s->nbe)
		fputs("    backends:\n", f);
	for (i = 0; i < s->nbe; i++) {
		const struct kmg_imp_backend *b = &s->be[i];

		fputs("      # ", f);
		put_comment(f, b->src.file);
		fprintf(f, ":%u\n", b->src.line);
		fputs("      - address: ", f);
		put_str(f, kmg_fmt_addr(&b->addr, buf, sizeof(buf)));
		fputc('\n', f);
		if (b->weight != 1)
			fprintf(f, "        weight: %u\n", b->weight);
		if (b->gre)
			fputs("        encap: gre\n", f);
		else if (b->dr)
			fputs("        encap: dr\n", f);
		if (b->max_conns)
			fprintf(f, "        max-conns: %u\n", b->max_conns);
		if (!shared && b->nchecks)
			put_checks(f, b->checks, b->nchecks, "        ");
	}
}

static void put_file(FILE *f, const struct kmg_imp *imp)
{
	unsigned int i;

	fprintf(f, "# kmaglev daemon configuration, written by \"kmaglev import %s\" from\n",
		imp->format);
	fputs("# ", f);
	put_comment(f, imp->source);
	fputs("\n# Check it with \"kmaglev daemon --check FILE\".\n", f);
	if (imp->advice)
		fprintf(f, "%s", imp->advice);
	if (imp->nlosses) {
		fprintf(f, "#\n# Not mapped (%u, accepted with --accept-losses):\n", imp->nlosses);
		for (i = 0; i < imp->nlost; i++) {
			fputs("#   ", f);
			put_comment(f, imp->losses[i]);
			fputc('\n', f);
		}
	}
	if (imp->timeout_tcp_est || imp->timeout_tcp_fin || imp->timeout_udp) {
		fputs("config:\n", f);
		put_ms(f, "timeout-tcp-est", imp->timeout_tcp_est * 1000, "  ");
		put_ms(f, "timeout-tcp-fin", imp->timeout_tcp_fin * 1000, "  ");
		put_ms(f, "timeout-udp", imp->timeout_udp * 1000, "  ");
	}
	if (imp->nsvc)
		fputs("services:\n", f);
	for (i = 0; i < imp->nsvc; i++)
		put_service(f, &imp->svc[i]);
}

char *kmg_imp_write(const struct kmg_imp *imp, FILE *err)
{
	struct kmd_config *cfg = NULL;
	char *buf = NULL, *errs = NULL;
	size_t len = 0, elen = 0;
	FILE *f, *ef;
	int ret;

	f = open_memstream(&buf, &len);
	if (!f) {
		kmg_err(KMG_EFAIL, "out of memory");
		return NULL;
	}
	put_file(f, imp);
	if (fclose(f)) {
		free(buf);
		kmg_err(KMG_EFAIL, "out of memory");
		return NULL;
	}
	/* what `kmaglev daemon --check` runs */
	ef = open_memstream(&errs, &elen);
	if (!ef) {
		free(buf);
		kmg_err(KMG_EFAIL, "out of memory");
		return NULL;
	}
	ret = kmd_config_load_str("(import)", buf, len, &cfg, ef);
	fclose(ef);
	kmd_config_free(cfg);
	if (ret) {
		if (err) {
			fputs(buf, err);
			fputs(errs ? errs : "", err);
		}
		free(errs);
		free(buf);
		kmg_err(KMG_EFAIL,
			"the configuration written (above) does not load: a bug of \"kmaglev import %s\"",
			imp->format);
		return NULL;
	}
	free(errs);
	return buf;
}
