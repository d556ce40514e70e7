// SPDX-License-Identifier: GPL-2.0
/* kmaglev daemon: the control socket server (see ctl.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "daemon/ctl.h"
#include "daemon/daemon.h"

struct ctl_client {
	struct ctl *ctl;
	struct ctl_client *next, **pprev;
	int fd;
	ev_io io;
	ev_timer idle;
	char in[KMD_CTL_REQUEST_MAX + 1];
	size_t inlen;
	char *out;			/* replies not yet written */
	size_t outlen, outoff;
	bool eof;			/* no more input: close once written */
	bool discard;			/* request too long: drop input, reply, then shut down */
	bool shut;			/* ... done: wait for the client to close */
};

struct ctl {
	struct kmd *d;
	int fd;
	ev_io io;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct kmd_ctl_cmd *cmds;
	unsigned int ncmds;
	struct ctl_client *clients;
	unsigned int nclients;
};

static void client_free(struct ctl_client *c)
{
	struct ev_loop *loop = c->ctl->d->loop;

	ev_io_stop(loop, &c->io);
	ev_timer_stop(loop, &c->idle);
	close(c->fd);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	c->ctl->nclients--;
	free(c->out);
	free(c);
}

static char *reply_error(const char *msg)
{
	struct json_object *r = json_object_new_object();
	char *s = NULL;

	if (!r)
		return NULL;
	if (!json_object_object_add(r, "ok", json_object_new_boolean(0)) &&
	    !json_object_object_add(r, "error", json_object_new_string(msg)))
		s = strdup(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(r);
	return s;
}

char *kmd_ctl_dispatch(struct kmd *d, const struct kmd_ctl_cmd *cmds, unsigned int n,
		       const char *line)
{
	enum json_tokener_error jerr;
	struct json_object *req, *cmd, *reply;
	char msg[160], *err = NULL, *s;
	const char *name;
	unsigned int i;

	req = json_tokener_parse_verbose(line, &jerr);
	if (!req) {
		snprintf(msg, sizeof(msg), "request is not JSON: %s",
			 json_tokener_error_desc(jerr));
		return reply_error(msg);
	}
	if (!json_object_is_type(req, json_type_object) ||
	    !json_object_object_get_ex(req, "cmd", &cmd) ||
	    !json_object_is_type(cmd, json_type_string)) {
		json_object_put(req);
		return reply_error("request has no \"cmd\" string");
	}
	name = json_object_get_string(cmd);
	for (i = 0; i < n && strcmp(cmds[i].name, name); i++)
		;
	if (i == n) {
		snprintf(msg, sizeof(msg), "unknown command \"%.64s\"", name);
		json_object_put(req);
		return reply_error(msg);
	}
	reply = cmds[i].fn(d, req, &err);
	json_object_put(req);
	if (!reply) {
		s = reply_error(err ? err : "out of memory");
		free(err);
		return s;
	}
	free(err);
	if (!json_object_is_type(reply, json_type_object)) {
		json_object_put(reply);
		return reply_error("internal error: the handler's reply is not an object");
	}
	if (!json_object_object_get_ex(reply, "ok", NULL) &&
	    json_object_object_add(reply, "ok", json_object_new_boolean(1))) {
		json_object_put(reply);
		return NULL;
	}
	s = strdup(json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(reply);
	return s;
}

/* Queue @s and a newline for the client (@s is freed). Out of memory: drop the client. */
static int queue(struct ctl_client *c, char *s)
{
	size_t n;
	char *p;

	if (!s)
		return -ENOMEM;
	n = strlen(s);
	p = realloc(c->out, c->outlen + n + 1);
	if (!p) {
		free(s);
		return -ENOMEM;
	}
	memcpy(p + c->outlen, s, n);
	p[c->outlen + n] = '\n';
	c->out = p;
	c->outlen += n + 1;
	free(s);
	return 0;
}

/* Write what can be written; 1 when the client is finished with, 0 to go on, <0 on error. */
static int flush_out(struct ctl_client *c)
{
	while (c->outoff < c->outlen) {
		ssize_t w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w < 0)
			return -errno;
		c->outoff += w;
	}
	free(c->out);
	c->out = NULL;
	c->outlen = c->outoff = 0;
	return c->eof ? 1 : 0;
}

/* Handle each complete line of the input; an overlong one ends the connection. */
static int take_lines(struct ctl_client *c)
{
	char *nl;
	int ret;

	while ((nl = memchr(c->in, '\n', c->inlen))) {
		size_t used = nl - c->in + 1;

		*nl = '\0';
		if (nl > c->in && nl[-1] == '\r')
			nl[-1] = '\0';
		if (c->in[0]) {
			ret = queue(c, kmd_ctl_dispatch(c->ctl->d, c->ctl->cmds, c->ctl->ncmds,
							 c->in));
			if (ret)
				return ret;
		}
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
	}
	if (c->inlen >= KMD_CTL_REQUEST_MAX) {
		char msg[64];

		snprintf(msg, sizeof(msg), "request longer than %d bytes", KMD_CTL_REQUEST_MAX);
		c->inlen = 0;
		c->discard = true;
		return queue(c, reply_error(msg));
	}
	return 0;
}

static void client_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl_client *c = w->data;
	int ret = 0;

	ev_timer_again(loop, &c->idle);
	if ((revents & EV_READ) && !c->eof) {
		ssize_t r = recv(c->fd, c->in + c->inlen, KMD_CTL_REQUEST_MAX - c->inlen, 0);

		if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			client_free(c);
			return;
		}
		/* after an overlong request, what it sends is dropped (not kept in @in) */
		if (r > 0 && !c->discard) {
			c->inlen += r;
			ret = take_lines(c);
		}
		/* the end of the input ends a last request without its newline */
		if (r == 0 && c->inlen) {
			c->in[c->inlen++] = '\n';
			ret = take_lines(c);
		}
		if (r == 0)
			c->eof = true;
	}
	if (!ret)
		ret = flush_out(c);
	/*
	 * After the error about an overlong request, shut down the writing side rather than
	 * close: a close with unread input resets the connection, and the reply might be lost.
	 */
	if (!ret && c->discard && !c->outlen && !c->shut) {
		shutdown(c->fd, SHUT_WR);
		c->shut = true;
	}
	if (ret) {
		if (ret < 0 && ret != -EPIPE && ret != -ECONNRESET)
			fprintf(stderr, "kmaglev: control socket: a client: %s\n", strerror(-ret));
		client_free(c);
		return;
	}
	/* wait for the client to read what is queued before reading more from it */
	ev_io_stop(loop, &c->io);
	ev_io_set(&c->io, c->fd, c->outlen ? EV_WRITE : EV_READ);
	ev_io_start(loop, &c->io);
}

static void idle_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	client_free(w->data);
}

static void accept_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct ctl *ctl = w->data;
	struct ctl_client *c;
	int fd;

	for (;;) {
		fd = accept4(ctl->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				fprintf(stderr, "kmaglev: control socket: accept: %s\n",
					strerror(errno));
			return;
		}
		if (ctl->nclients >= KMD_CTL_CLIENTS_MAX) {
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			fprintf(stderr, "kmaglev: control socket: out of memory\n");
			close(fd);
			continue;
		}
		c->ctl = ctl;
		c->fd = fd;
		c->next = ctl->clients;
		if (c->next)
			c->next->pprev = &c->next;
		c->pprev = &ctl->clients;
		ctl->clients = c;
		ctl->nclients++;
		ev_io_init(&c->io, client_cb, fd, EV_READ);
		c->io.data = c;
		ev_io_start(loop, &c->io);
		ev_init(&c->idle, idle_cb);
		c->idle.repeat = KMD_CTL_IDLE_S;
		c->idle.data = c;
		ev_timer_again(loop, &c->idle);
	}
}

/* Is a server listening on @sa? */
static bool someone_listens(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	bool yes;

	if (fd < 0)
		return true;	/* cannot tell: do not remove it */
	yes = !connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) || errno != ECONNREFUSED;
	close(fd);
	return yes;
}

/* The directory of @path, created with mode 0750 if missing (one level). */
static int make_dir(const char *path)
{
	char buf[sizeof(((struct sockaddr_un *)0)->sun_path)], *dir;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	dir = dirname(buf);
	if (!stat(dir, &st))
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (errno != ENOENT)
		return -errno;
	if (mkdir(dir, 0750) && errno != EEXIST)
		return -errno;
	return 0;
}

static int ctl_listen(struct ctl *ctl)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, ret;

	memcpy(sa.sun_path, ctl->path, sizeof(sa.sun_path));
	ret = make_dir(ctl->path);
	if (ret) {
		fprintf(stderr, "kmaglev: control socket %s: its directory: %s\n", ctl->path,
			strerror(-ret));
		return ret;
	}
	if (!lstat(ctl->path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, "kmaglev: control socket %s: exists and is no socket\n",
				ctl->path);
			return -EEXIST;
		}
		if (someone_listens(&sa)) {
			fprintf(stderr, "kmaglev: control socket %s: another daemon listens "
				"on it\n", ctl->path);
			return -EADDRINUSE;
		}
		if (unlink(ctl->path) && errno != ENOENT) {
			ret = -errno;
			fprintf(stderr, "kmaglev: control socket %s: cannot remove the stale "
				"one: %s\n", ctl->path, strerror(errno));
			return ret;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(ctl->path, 0660) || listen(fd, 16)) {
		ret = -errno;
		fprintf(stderr, "kmaglev: control socket %s: %s\n", ctl->path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(ctl->path);
		}
		return ret;
	}
	ctl->fd = fd;
	return 0;
}

int kmd_ctl_start(struct kmd *d, const char *path, const struct kmd_ctl_cmd *cmds,
		  unsigned int n)
{
	struct ctl *ctl;
	int ret;

	if (!path)
		path = d->cfg && d->cfg->daemon.socket ? d->cfg->daemon.socket :
		       KMD_SOCKET_DEFAULT;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl) {
		fprintf(stderr, "kmaglev: control socket: out of memory\n");
		return -ENOMEM;
	}
	if (strlen(path) >= sizeof(ctl->path) || !path[0]) {
		fprintf(stderr, "kmaglev: control socket \"%s\": path too long or empty\n", path);
		free(ctl);
		return -ENAMETOOLONG;
	}
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	ctl->d = d;
	ctl->cmds = cmds;
	ctl->ncmds = n;
	ret = ctl_listen(ctl);
	if (ret) {
		free(ctl);
		return ret;
	}
	ev_io_init(&ctl->io, accept_cb, ctl->fd, EV_READ);
	ctl->io.data = ctl;
	ev_io_start(d->loop, &ctl->io);
	d->ctl = ctl;
	return 0;
}

void kmd_ctl_stop(struct kmd *d)
{
	struct ctl *ctl = d->ctl;

	if (!ctl)
		return;
	while (ctl->clients)
		client_free(ctl->clients);
	ev_io_stop(d->loop, &ctl->io);
	close(ctl->fd);
	unlink(ctl->path);
	free(ctl);
	d->ctl = NULL;
}
