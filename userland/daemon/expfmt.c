// SPDX-License-Identifier: GPL-2.0
/* kmaglev daemon: the Prometheus text exposition writer (see prom.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/expfmt.h"

void kmd_prom_init(struct kmd_prom *p)
{
	memset(p, 0, sizeof(*p));
}

static void reset_family(struct kmd_prom *p)
{
	free(p->seen);
	p->seen = NULL;
	p->nseen = 0;
	p->seen_cap = 0;
	p->name = NULL;
}

void kmd_prom_free(struct kmd_prom *p)
{
	unsigned int i;

	reset_family(p);
	for (i = 0; i < p->nfams; i++)
		free(p->fams[i]);
	free(p->fams);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

char *kmd_prom_take(struct kmd_prom *p, size_t *len)
{
	char *buf = p->err ? NULL : p->buf;

	if (len)
		*len = buf ? p->len : 0;
	if (buf)
		p->buf = NULL;
	kmd_prom_free(p);
	return buf;
}

static int fail(struct kmd_prom *p, int err)
{
	if (!p->err)
		p->err = err;
	return err;
}

static int reserve(struct kmd_prom *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 4096;
	char *b;

	if (p->len + more + 1 <= p->cap)
		return 0;
	while (cap < p->len + more + 1) {
		if (cap > SIZE_MAX / 2)
			return fail(p, -ENOMEM);
		cap *= 2;
	}
	b = realloc(p->buf, cap);
	if (!b)
		return fail(p, -ENOMEM);
	p->buf = b;
	p->cap = cap;
	return 0;
}

static int put(struct kmd_prom *p, const char *s, size_t n)
{
	int ret = reserve(p, n);

	if (ret)
		return ret;
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
	return 0;
}

static int put_str(struct kmd_prom *p, const char *s)
{
	return put(p, s, strlen(s));
}

static int putf(struct kmd_prom *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(struct kmd_prom *p, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return fail(p, -EINVAL);
	if ((size_t)n < sizeof(small))
		return put(p, small, n);
	if (reserve(p, n))
		return p->err;
	va_start(ap, fmt);
	vsnprintf(p->buf + p->len, n + 1, fmt, ap);
	va_end(ap);
	p->len += n;
	return 0;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* for metrics; labels: no ':' and no leading "__". */
static bool valid_name(const char *s, bool label)
{
	const char *c;

	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	if (label && s[0] == '_' && s[1] == '_')
		return false;
	for (c = s; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '_')
			continue;
		if (*c == ':' && !label)
			continue;
		return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* HELP text escapes only \ and newline. */
static int put_escaped(struct kmd_prom *p, const char *s, bool quote)
{
	const char *run = s;
	int ret = 0;

	for (; *s && !ret; s++) {
		const char *esc = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" :
				  quote && *s == '"' ? "\\\"" : NULL;

		if (!esc)
			continue;
		ret = put(p, run, s - run);
		if (!ret)
			ret = put_str(p, esc);
		run = s + 1;
	}
	return ret ? ret : put_str(p, run);
}

int kmd_prom_family(struct kmd_prom *p, const char *name, enum kmd_prom_type type,
		    const char *help)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };
	unsigned int i;
	char **fams;
	int ret;

	if (p->err)
		return p->err;
	if (!valid_name(name, false) || (unsigned int)type > KMD_PROM_HISTOGRAM ||
	    (type == KMD_PROM_COUNTER && !ends_with(name, "_total")))
		return fail(p, -EINVAL);
	for (i = 0; i < p->nfams; i++)
		if (!strcmp(p->fams[i], name))
			return fail(p, -EEXIST);
	if (p->nfams == p->fams_cap) {
		unsigned int cap = p->fams_cap ? p->fams_cap * 2 : 32;

		fams = realloc(p->fams, cap * sizeof(*fams));
		if (!fams)
			return fail(p, -ENOMEM);
		p->fams = fams;
		p->fams_cap = cap;
	}
	p->fams[p->nfams] = strdup(name);
	if (!p->fams[p->nfams])
		return fail(p, -ENOMEM);
	reset_family(p);
	p->name = p->fams[p->nfams++];
	p->type = type;
	ret = putf(p, "# HELP %s ", name);
	if (!ret)
		ret = put_escaped(p, help ? help : "", false);
	if (!ret)
		ret = putf(p, "\n# TYPE %s %s\n", name, types[type]);
	return ret;
}

static uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h ? h : 1;
}

static struct kmd_prom_seen *seen_slot(struct kmd_prom *p, size_t off, uint32_t len,
				       uint32_t h)
{
	unsigned int mask = p->seen_cap - 1, i;

	for (i = h & mask;; i = (i + 1) & mask) {
		struct kmd_prom_seen *s = &p->seen[i];

		if (!s->hash || (s->hash == h && s->len == len &&
				 !memcmp(p->buf + s->off, p->buf + off, len)))
			return s;
	}
}

/* Remember the label set written at @off..len; -EEXIST if the family has it already. */
static int seen_add(struct kmd_prom *p, size_t off)
{
	uint32_t len = p->len - off, h = hash_bytes(p->buf + off, len);
	struct kmd_prom_seen *s;

	if ((p->nseen + 1) * 2 > p->seen_cap) {
		unsigned int cap = p->seen_cap ? p->seen_cap * 2 : 64, old = p->seen_cap, i;
		struct kmd_prom_seen *prev = p->seen;

		p->seen = calloc(cap, sizeof(*p->seen));
		if (!p->seen) {
			p->seen = prev;
			return fail(p, -ENOMEM);
		}
		p->seen_cap = cap;
		for (i = 0; i < old; i++)
			if (prev[i].hash)
				*seen_slot(p, prev[i].off, prev[i].len, prev[i].hash) = prev[i];
		free(prev);
	}
	s = seen_slot(p, off, len, h);
	if (s->hash)
		return -EEXIST;
	s->off = off;
	s->len = len;
	s->hash = h;
	p->nseen++;
	return 0;
}

/*
 * Write the label pairs of @l (without braces), after checking them. Also refused: a label
 * twice, and "le" in a histogram.
 */
static int put_labels(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n)
{
	unsigned int i, k;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (!valid_name(l[i].name, true) || !l[i].value ||
		    (p->type == KMD_PROM_HISTOGRAM && !strcmp(l[i].name, "le")))
			return fail(p, -EINVAL);
		for (k = 0; k < i; k++)
			if (!strcmp(l[k].name, l[i].name))
				return fail(p, -EINVAL);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = putf(p, "%s%s=\"", i ? "," : "", l[i].name);
		if (!ret)
			ret = put_escaped(p, l[i].value, true);
		if (!ret)
			ret = put_str(p, "\"");
	}
	return ret;
}

const char *kmd_prom_fmt_double(double v, char *buf, size_t len)
{
	int prec;

	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
	else
		for (prec = 1; prec <= 17; prec++) {
			snprintf(buf, len, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	return buf;
}

/*
 * Check the label set of a new sample of type @type against the current family and remember
 * it. The text of the label set is written at the end of the buffer and then removed: the
 * buffer keeps it only as part of the first sample line, where seen_add() points.
 */
static int begin_sample(struct kmd_prom *p, enum kmd_prom_type type,
			const struct kmd_prom_label *l, unsigned int n, size_t *key_off)
{
	int ret;

	if (p->err)
		return p->err;
	if (!p->name || p->type != type)
		return fail(p, -EINVAL);
	/* the first line of the sample: NAME (+ suffix) then "{labels" */
	*key_off = p->len;
	ret = put_labels(p, l, n);
	if (ret)
		return ret;
	ret = seen_add(p, *key_off);
	if (ret) {
		p->len = *key_off;
		p->buf[p->len] = '\0';
	}
	return ret;
}

/*
 * The label set was written at @key_off for the duplicate check; move it behind the sample's
 * name: "NAME{LABELS" + @extra + "} VALUE\n". The stored offset of the set is moved with it.
 */
static int finish_line(struct kmd_prom *p, size_t key_off, const char *suffix, const char *extra,
		       const char *value)
{
	size_t klen = p->len - key_off, pre = strlen(p->name) + strlen(suffix) + 1;
	struct kmd_prom_seen *s;
	int ret;

	s = seen_slot(p, key_off, klen, hash_bytes(p->buf + key_off, klen));
	ret = reserve(p, pre);
	if (ret)
		return ret;
	memmove(p->buf + key_off + pre, p->buf + key_off, klen);
	memcpy(p->buf + key_off, p->name, strlen(p->name));
	memcpy(p->buf + key_off + strlen(p->name), suffix, strlen(suffix));
	p->buf[key_off + pre - 1] = '{';
	p->len += pre;
	p->buf[p->len] = '\0';
	s->off = key_off + pre;
	ret = putf(p, "%s%s} %s\n", klen && *extra ? "," : "", extra, value);
	return ret;
}

/* "NAME SUFFIX{LABELS, EXTRA} VALUE" for further lines of a histogram. */
static int put_line(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n,
		    const char *suffix, const char *extra, const char *value)
{
	int ret = putf(p, "%s%s{", p->name, suffix);

	if (!ret)
		ret = put_labels(p, l, n);
	if (!ret)
		ret = putf(p, "%s%s} %s\n", n && *extra ? "," : "", extra, value);
	return ret;
}

/* A line without labels is written "NAME VALUE", without braces. */
static int strip_empty_braces(struct kmd_prom *p, size_t start)
{
	char *b = strstr(p->buf + start, "{} ");

	if (b) {
		memmove(b, b + 2, p->len - (b + 2 - p->buf) + 1);
		p->len -= 2;
	}
	return 0;
}

static int sample(struct kmd_prom *p, enum kmd_prom_type type, const struct kmd_prom_label *l,
		  unsigned int n, const char *value)
{
	size_t off;
	int ret = begin_sample(p, type, l, n, &off);

	if (ret)
		return ret;
	ret = finish_line(p, off, "", "", value);
	if (!ret && !n)
		strip_empty_braces(p, off);
	return ret;
}

int kmd_prom_counter(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n,
		     uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return sample(p, KMD_PROM_COUNTER, l, n, buf);
}

int kmd_prom_gauge(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n, double v)
{
	char buf[32];

	return sample(p, KMD_PROM_GAUGE, l, n, kmd_prom_fmt_double(v, buf, sizeof(buf)));
}

int kmd_prom_histogram(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n,
		       const double *bounds, unsigned int nb, const uint64_t *bucket, double sum)
{
	char le[48], num[32], val[24];
	unsigned int i;
	size_t off;
	int ret;

	for (i = 0; i < nb; i++)
		if (isnan(bounds[i]) || isinf(bounds[i]) || (i && bounds[i] <= bounds[i - 1]) ||
		    (i && bucket[i] < bucket[i - 1]))
			return fail(p, -EINVAL);
	if (nb && bucket[nb] < bucket[nb - 1])
		return fail(p, -EINVAL);
	ret = begin_sample(p, KMD_PROM_HISTOGRAM, l, n, &off);
	if (ret)
		return ret;
	for (i = 0; i <= nb && !ret; i++) {
		snprintf(le, sizeof(le), "le=\"%s\"", i < nb ?
			 kmd_prom_fmt_double(bounds[i], num, sizeof(num)) : "+Inf");
		snprintf(val, sizeof(val), "%" PRIu64, bucket[i]);
		if (!i)
			ret = finish_line(p, off, "_bucket", le, val);
		else
			ret = put_line(p, l, n, "_bucket", le, val);
	}
	if (!ret) {
		size_t start = p->len;

		ret = put_line(p, l, n, "_sum", "", kmd_prom_fmt_double(sum, num, sizeof(num)));
		if (!ret && !n)
			strip_empty_braces(p, start);
	}
	if (!ret) {
		size_t start = p->len;

		snprintf(val, sizeof(val), "%" PRIu64, bucket[nb]);
		ret = put_line(p, l, n, "_count", "", val);
		if (!ret && !n)
			strip_empty_braces(p, start);
	}
	return ret;
}
