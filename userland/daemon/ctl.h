/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev daemon: the control socket, a unix stream socket (default KMD_SOCKET_DEFAULT)
 * behind "kmaglev status" and "kmaglev reload".
 *
 * Protocol (daemon.h): one JSON object per line each way. A request names its command in
 * "cmd"; the server looks it up in the table it was started with and calls the handler. A
 * handler returns the reply's members as an object (the server adds "ok": true), or NULL with
 * *err set to a malloc'ed message (NULL: out of memory); the reply is then {"ok": false,
 * "error": MESSAGE}. Requests longer than KMD_CTL_REQUEST_MAX bytes are refused the same way
 * and the connection is closed. Everything runs on the daemon's libev loop, non-blocking.
 */
#ifndef KMAGLEV_DAEMON_CTL_H
#define KMAGLEV_DAEMON_CTL_H

#include <json-c/json.h>

struct kmd;

#define KMD_CTL_REQUEST_MAX	16384	/* bytes of one request line */
#define KMD_CTL_CLIENTS_MAX	64	/* connections at once; more are closed at once */
#define KMD_CTL_IDLE_S		30.0	/* a connection with nothing to do is closed */
#define KMD_CTL_TIMEOUT_MS	60000	/* client: how long a request may take (reload) */

/* How the client's message starts when nothing listens: the daemon does not run. */
#define KMD_CTL_UNREACHABLE	"cannot reach the kmaglev daemon at "

typedef struct json_object *(*kmd_ctl_fn)(struct kmd *d, struct json_object *req, char **err);

struct kmd_ctl_cmd {
	const char *name;		/* the request's "cmd" */
	kmd_ctl_fn fn;
};

/*
 * Listen on @path (NULL: d->cfg->daemon.socket, else KMD_SOCKET_DEFAULT): its directory is
 * created with mode 0750 if missing, a socket file left by a dead daemon is replaced, one a
 * live daemon listens on is not (-EADDRINUSE). @cmds (kept, not copied) are the commands.
 * 0, or a negative errno with the reason logged to stderr.
 */
int kmd_ctl_start(struct kmd *d, const char *path, const struct kmd_ctl_cmd *cmds,
		  unsigned int n);
/* Close every connection, stop listening and remove the socket file. */
void kmd_ctl_stop(struct kmd *d);

/* The reply line (without its newline) to request line @line: the server's dispatch. */
char *kmd_ctl_dispatch(struct kmd *d, const struct kmd_ctl_cmd *cmds, unsigned int n,
		       const char *line);

#endif
