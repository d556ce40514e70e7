// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the reply parsers. kmd_agent_parse() reads an HAProxy agent-check line:
 * words delimited by spaces, tabs or commas, in any order, case-insensitive, ended by CR
 * and/or LF, with an optional "#" and a free-text reason after it:
 *   up | down | fail | stopped	operational state (down/fail/stopped: the check fails)
 *   ready | drain | maint		administrative state (maint is drain here: flows continue)
 *   N%				weight as a percentage of the configured one (0..100)
 *   maxconn:N			HAProxy's connection limit; accepted, not used
 *   weight:N			kmaglev's: an absolute weight (0..65535)
 *   util:N			kmaglev's: the backend's utilization in percent (0..100), which
 *				a service with "utilization:" turns into weight (reconcile.c)
 * Anything else makes the whole line invalid. kmd_status_match() matches HTTP statuses.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/kmaglev.h>

#include "daemon/health/health.h"

/* A decimal number in @s..@end within 0..@max; 0 or -EINVAL. */
static int agent_num(const char *s, const char *end, long max, int *out)
{
	long v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static bool word_is(const char *w, size_t n, const char *what)
{
	return strlen(what) == n && !strncasecmp(w, what, n);
}

int kmd_agent_parse(const char *line, struct kmd_result *r)
{
	int oper = -1;		/* 1 up, 0 down */
	int admin = -1, pct = -1, weight = -1, util = -1, maxconn;
	const char *s = line, *w;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->admin = r->weight_pct = r->weight = r->util = -1;
	for (;;) {
		s += strspn(s, " \t,");
		if (!*s || *s == '\r' || *s == '\n' || *s == '#')
			break;
		w = s;
		n = strcspn(s, " \t,\r\n#");
		s += n;
		if (word_is(w, n, "up") || word_is(w, n, "down") || word_is(w, n, "fail") ||
		    word_is(w, n, "stopped")) {
			int v = word_is(w, n, "up");

			if (oper >= 0 && oper != v)
				return -EINVAL;
			oper = v;
		} else if (word_is(w, n, "ready") || word_is(w, n, "drain") ||
			   word_is(w, n, "maint")) {
			int v = word_is(w, n, "ready") ? KMAGLEV_BACKEND_STATE_UP :
				KMAGLEV_BACKEND_STATE_DRAIN;

			if (admin >= 0 && admin != v)
				return -EINVAL;
			admin = v;
		} else if (n > 5 && !strncasecmp(w, "util:", 5)) {
			size_t m = n - 5 - (w[n - 1] == '%');	/* "util:85" or "util:85%" */

			if (util >= 0 || agent_num(w + 5, w + 5 + m, 100, &util))
				return -EINVAL;
		} else if (n > 1 && w[n - 1] == '%') {
			if (pct >= 0 || agent_num(w, w + n - 1, 100, &pct))
				return -EINVAL;
		} else if (n > 8 && !strncasecmp(w, "maxconn:", 8)) {
			if (agent_num(w + 8, w + n, 0x7fffffff, &maxconn))
				return -EINVAL;
		} else if (n > 7 && !strncasecmp(w, "weight:", 7)) {
			if (weight >= 0 || agent_num(w + 7, w + n, 65535, &weight))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (oper < 0 && admin < 0 && pct < 0 && weight < 0 && util < 0)
		return -EINVAL;		/* an empty line, or only maxconn: says nothing */
	r->ok = oper != 0;
	r->admin = admin;
	r->weight_pct = pct;
	r->weight = weight;
	r->util = util;
	strcpy(r->why, r->ok ? "ok" : "agent: down");
	if (!r->ok && *s == '#') {
		const char *reason = s + 1 + strspn(s + 1, " \t");
		size_t len = strcspn(reason, "\r\n");

		if (len)
			snprintf(r->why, sizeof(r->why), "agent: down: %.*s", (int)len, reason);
	}
	return 0;
}

bool kmd_status_match(const struct kmd_status_range *r, unsigned int n, unsigned int status)
{
	for (unsigned int i = 0; i < n; i++)
		if (status >= r[i].lo && status <= r[i].hi)
			return true;
	return false;
}
