// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: error reporting (see err.h). */
#include <stdarg.h>
#include <stdio.h>

#include "lib/err.h"

static char errbuf[1024];
static int errline;

int kmg_err(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return code;
}

const char *kmg_errmsg(void)
{
	return errbuf;
}

void kmg_err_clear(void)
{
	errbuf[0] = '\0';
}

static void prefix(void)
{
	fflush(stdout);
	fputs("kmaglev: ", stderr);
	if (errline)
		fprintf(stderr, "line %d: ", errline);
}

void kmg_warn(const char *fmt, ...)
{
	va_list ap;

	prefix();
	fputs("warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void kmg_err_print(void)
{
	if (!errbuf[0])
		return;
	prefix();
	fprintf(stderr, "%s\n", errbuf);
}

void kmg_err_set_line(int line)
{
	errline = line;
}

int kmg_err_line(void)
{
	return errline;
}
