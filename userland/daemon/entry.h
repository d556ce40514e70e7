/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: its entry points for the kmaglev command. `kmaglev daemon` runs
 * kmg_cmd_daemon(): in kmaglevd the daemon's (main.c), in the command-line program a stand-in
 * that execs kmaglevd (cli/run_daemon.c). Its usage text (usage.c) is printed by both.
 */
#ifndef KMAGLEV_DAEMON_ENTRY_H
#define KMAGLEV_DAEMON_ENTRY_H

#include <stdio.h>

#include "lib/session.h"

int kmg_cmd_daemon(struct kmg_ctx *ctx, int argc, char **argv);
void kmg_usage_daemon(FILE *f);

#endif
