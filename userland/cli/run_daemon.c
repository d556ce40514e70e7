// SPDX-License-Identifier: GPL-2.0
/*
 * `kmaglev daemon` in the command-line program: it becomes kmaglevd, the same program with the
 * daemon linked in. The daemon needs libcurl, libev, libmicrohttpd and libsystemd, some forty
 * shared libraries with their TLS, Kerberos and LDAP stacks; the command-line program links
 * none of them, so that `kmaglev service show` starts as quickly as ip(8) does.
 *
 * kmaglevd is looked for beside the running program (/proc/self/exe): the build tree and
 * `make install` both put the two side by side. It gets the same global options and the same
 * command line; -n NETNS was entered already, and exec keeps the network namespace, the
 * process ID and the environment (systemd's NOTIFY_SOCKET among it). Not from a batch file:
 * exec would drop the lines after it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "lib/err.h"

#define KMG_DAEMON_PROG "kmaglevd"

int kmg_cmd_daemon(struct kmg_ctx *ctx, int argc, char **argv)
{
	char path[PATH_MAX], *args[argc + 5], *slash;
	ssize_t n;
	int i = 0, j;

	if (ctx->batch)
		return kmg_err(KMG_EUSAGE, "daemon: not in a batch file: run \"kmaglev daemon\"");
	n = readlink("/proc/self/exe", path, sizeof(path));
	if (n < 0)
		return kmg_err(KMG_EFAIL, "daemon: cannot find this program (/proc/self/exe): %s",
			       strerror(errno));
	if (n == sizeof(path))
		return kmg_err(KMG_EFAIL, "daemon: the path of this program is too long");
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash + 1 - path) + sizeof(KMG_DAEMON_PROG) > sizeof(path))
		return kmg_err(KMG_EFAIL, "daemon: cannot find the directory of %s", path);
	strcpy(slash + 1, KMG_DAEMON_PROG);

	args[i++] = KMG_DAEMON_PROG;
	if (ctx->pretty)
		args[i++] = "-p";
	else if (ctx->json)
		args[i++] = "-j";
	if (ctx->timestamp)
		args[i++] = "-t";
	if (ctx->secrets)
		args[i++] = "--show-secrets";
	for (j = 0; j < argc; j++)
		args[i++] = argv[j];
	args[i] = NULL;

	kmg_ctx_close(ctx);
	fflush(stdout);
	fflush(stderr);
	execv(path, args);
	return kmg_err(KMG_EFAIL, "daemon: cannot run %s: %s (make and make install put it beside kmaglev)",
		       path, strerror(errno));
}
