// SPDX-License-Identifier: GPL-2.0
/* kmaglev daemon: log lines on stderr, with a syslog priority prefix for the journal. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/log.h"

void kmd_log(int prio, const char *fmt, ...)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
	};
	static int tty = -1;
	char line[1024];
	va_list ap;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (tty)
		fprintf(stderr, "kmaglev: %s: %s\n", names[prio & 7], line);
	else
		fprintf(stderr, "<%d>%s: %s\n", prio & 7, names[prio & 7], line);
}
