/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: error reporting. Code that fails records one message and returns an exit
 * status; the top level prints "kmaglev: MESSAGE" (or "kmaglev: line N: MESSAGE" in batch
 * mode). Recording instead of printing keeps every check testable.
 */
#ifndef KMAGLEV_ERR_H
#define KMAGLEV_ERR_H

/* Exit statuses. */
enum {
	KMG_OK = 0,
	KMG_EFAIL = 1,		/* the kernel or the system refused */
	KMG_EUSAGE = 2,		/* bad command line; nothing was sent */
};

/* Record a message (printf format) and return @code. */
int kmg_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *kmg_errmsg(void);
void kmg_err_clear(void);

/* Print "kmaglev: [line N: ]warning: ..." to stderr at once. */
void kmg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print the recorded message, if any, to stderr. */
void kmg_err_print(void);

/* Batch mode: the line number messages are prefixed with, 0 for none. */
void kmg_err_set_line(int line);
int kmg_err_line(void);

#endif
