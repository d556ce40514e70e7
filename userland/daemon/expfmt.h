/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: a writer of the Prometheus text exposition format (version 0.0.4).
 *
 * A family is started once with its name, type and help text (# HELP and # TYPE lines), then
 * its samples follow, each with a label set. The writer refuses what would make an invalid
 * exposition: a family started twice, a bad metric or label name, a counter whose name does
 * not end in "_total", a sample of another type than its family's, and the same label set
 * twice in one family (label sets are compared as written: callers keep one label order).
 * Label values are escaped (\\, \", \n). Everything goes into one growing buffer.
 *
 * Every function returns 0 or a negative errno; the first error also sticks in @err, so a
 * renderer may check once at the end. Except -EEXIST for a sample whose label set the family
 * has already: that sample is left out, nothing sticks, and the renderer may go on.
 */
#ifndef KMAGLEV_DAEMON_PROM_H
#define KMAGLEV_DAEMON_PROM_H

#include <stddef.h>
#include <stdint.h>

enum kmd_prom_type {
	KMD_PROM_COUNTER,
	KMD_PROM_GAUGE,
	KMD_PROM_HISTOGRAM,
};

struct kmd_prom_label {
	const char *name;
	const char *value;
};

/* One label set already written in the current family: where its text is in @buf. */
struct kmd_prom_seen {
	size_t off;
	uint32_t len;
	uint32_t hash;			/* 0: empty slot */
};

struct kmd_prom {
	char *buf;			/* NUL-terminated text written so far */
	size_t len, cap;
	int err;			/* first error, sticky */
	/* families written so far, to refuse a second start (hash set of names) */
	char **fams;
	unsigned int nfams, fams_cap;
	/* the current family */
	const char *name;		/* in fams */
	enum kmd_prom_type type;
	struct kmd_prom_seen *seen;	/* open addressing, power of two */
	unsigned int nseen, seen_cap;
};

void kmd_prom_init(struct kmd_prom *p);
void kmd_prom_free(struct kmd_prom *p);
/* Take the text (caller frees it); @p is left empty but usable. NULL if nothing or error. */
char *kmd_prom_take(struct kmd_prom *p, size_t *len);

/* Start family @name: -EEXIST if it was already started, -EINVAL for a bad name. */
int kmd_prom_family(struct kmd_prom *p, const char *name, enum kmd_prom_type type,
		    const char *help);

/* A sample of the current family (counter: integer; gauge: any number). */
int kmd_prom_counter(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n,
		     uint64_t v);
int kmd_prom_gauge(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n, double v);

/*
 * A histogram of the current family: @bucket[i] is the cumulative count of observations
 * <= @bounds[i] for i < @nb, and @bucket[@nb] the count of all (le="+Inf"), also _count.
 * Bounds must increase; no label may be called "le".
 */
int kmd_prom_histogram(struct kmd_prom *p, const struct kmd_prom_label *l, unsigned int n,
		       const double *bounds, unsigned int nb, const uint64_t *bucket, double sum);

/* A number as the format writes it: "+Inf", "-Inf", "NaN", or the shortest exact decimal. */
const char *kmd_prom_fmt_double(double v, char *buf, size_t len);

#endif
