/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: logging. One line per event on stderr. When stderr is not a terminal (under
 * systemd it is the journal) each line starts with its syslog priority, "<4>", which journald
 * reads as the entry's level (sd-daemon(3)).
 */
#ifndef KMAGLEV_DAEMON_LOG_H
#define KMAGLEV_DAEMON_LOG_H

#include <syslog.h>

void kmd_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define kmd_err(...)	kmd_log(LOG_ERR, __VA_ARGS__)
#define kmd_warn(...)	kmd_log(LOG_WARNING, __VA_ARGS__)
#define kmd_info(...)	kmd_log(LOG_INFO, __VA_ARGS__)

#endif
