// SPDX-License-Identifier: GPL-2.0
/*
 * `kmaglev daemon -h`. Its own object: the command-line program (kmaglev) prints it too, and
 * must not pull the daemon in with it (see run_daemon.c).
 */
#include <stdio.h>
#include "daemon/entry.h"
#include "daemon/daemon.h"

void kmg_usage_daemon(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev daemon [ -c FILE ]        run: health checks, reconcile, metrics\n"
		"       kmaglev daemon --check [ FILE ]   validate a config; touch nothing\n"
		"       kmaglev daemon --flush [ -c FILE ] delete every service the daemon owns\n"
		"FILE defaults to $KMAGLEV_CONFIG, else " KMD_CONFIG_DEFAULT ".\n");
}
