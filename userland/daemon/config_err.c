// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the config loader's error reports. The path of the value being read
 * ("services[0].backends[2]"), pushed and popped as the loader walks the file, and each
 * message as "FILE:LINE:COL: PATH: MESSAGE" on the loader's stream; running out of memory
 * is noted, not reported, until the end.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config_int.h"

/* --- errors -------------------------------------------------------------------------- */

size_t path_push(struct ctx *c, const char *key, int idx)
{
	size_t mark = c->plen;
	int n;

	if (key)
		n = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "%s%s",
			     c->plen ? "." : "", key);
	else
		n = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "[%d]", idx);
	if (n > 0 && (size_t)n < sizeof(c->path) - c->plen)
		c->plen += n;
	c->path[c->plen] = '\0';
	return mark;
}

void path_pop(struct ctx *c, size_t mark)
{
	c->plen = mark;
	c->path[mark] = '\0';
}

/* "FILE:LINE:COL: PATH[.KEY]: MESSAGE" */
void __attribute__((format(printf, 4, 5)))
err_at(struct ctx *c, struct kmd_loc at, const char *key, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "%s:%u:%u: ", c->name, at.line, at.col);
	if (c->plen || key)
		fprintf(c->err, "%s%s%s: ", c->path, c->plen && key ? "." : "", key ? key : "");
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fputc('\n', c->err);
	c->nerr++;
}

void *nomem(struct ctx *c, void *p)
{
	if (!p)
		c->nomem = true;
	return p;
}

char *xstrdup(struct ctx *c, const char *s)
{
	return nomem(c, strdup(s));
}
