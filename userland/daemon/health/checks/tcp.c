// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the TCP check kinds. tcp: the connect succeeds. agent: connect, read one
 * line (HAProxy's agent-check protocol, parsed by kmd_agent_parse() in agent.c). Both on a
 * non-blocking socket with an ev_io; the engine times them out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "daemon/health/checks/checks.h"

static void sock_close(struct kmd_probe *p)
{
	ev_io_stop(kmd_hc_loop(p->hc), &p->io);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* SO_ERROR of a connect that was in progress: 0, or errno. */
static int connect_error(int fd)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return errno;
	return err;
}

static const char *sock_errstr(int err)
{
	return err == ECONNRESET ? "reset" : strerror(err);
}

/* ---- tcp ---- */

static void tcp_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kmd_probe *p = w->data;
	int err = connect_error(p->fd);
	char why[128];

	sock_close(p);
	if (err) {
		kmd_connect_why(p, err, why, sizeof(why));
		kmd_probe_done(p, false, "%s", why);
	} else {
		kmd_probe_done(p, true, "ok");
	}
}

static void tcp_start(struct kmd_probe *p)
{
	char why[128];
	bool now;

	p->fd = kmd_probe_connect(p, SOCK_STREAM, &now, why, sizeof(why));
	if (p->fd < 0) {
		kmd_probe_done(p, false, "%s", why);
		return;
	}
	if (now) {
		sock_close(p);
		kmd_probe_done(p, true, "ok");
		return;
	}
	ev_io_init(&p->io, tcp_io, p->fd, EV_WRITE);
	p->io.data = p;
	ev_io_start(kmd_hc_loop(p->hc), &p->io);
}

const struct kmd_kind_ops kmd_tcp_ops = {
	.start = tcp_start,
	.stop = sock_close,
};

/* ---- agent ---- */

static void agent_finish(struct kmd_probe *p)
{
	struct kmd_result r;
	char line[sizeof(p->buf) + 1];

	memcpy(line, p->buf, p->len);
	line[p->len] = '\0';
	sock_close(p);
	if (!p->len) {
		kmd_probe_done(p, false, "agent: empty reply");
		return;
	}
	if (kmd_agent_parse(line, &r)) {
		line[strcspn(line, "\r\n")] = '\0';
		kmd_probe_done(p, false, "agent: bad reply \"%.64s\"", line);
		return;
	}
	kmd_probe_done_result(p, &r);
}

static void agent_read(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kmd_probe *p = w->data;
	ssize_t n;

	n = recv(p->fd, p->buf + p->len, sizeof(p->buf) - p->len, 0);
	if (n < 0) {
		int err = errno;

		if (err == EAGAIN || err == EINTR)
			return;
		sock_close(p);
		kmd_probe_done(p, false, "recv: %s", sock_errstr(err));
		return;
	}
	p->len += n;
	/* one line: up to its end, the peer's close, or a full buffer */
	if (n == 0 || memchr(p->buf, '\n', p->len) || p->len == sizeof(p->buf))
		agent_finish(p);
}

static void agent_connected(struct kmd_probe *p)
{
	struct ev_loop *loop = kmd_hc_loop(p->hc);

	ev_io_stop(loop, &p->io);
	ev_io_init(&p->io, agent_read, p->fd, EV_READ);
	p->io.data = p;
	ev_io_start(loop, &p->io);
}

static void agent_connect_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kmd_probe *p = w->data;
	int err = connect_error(p->fd);
	char why[128];

	if (err) {
		sock_close(p);
		kmd_connect_why(p, err, why, sizeof(why));
		kmd_probe_done(p, false, "%s", why);
		return;
	}
	agent_connected(p);
}

static void agent_start(struct kmd_probe *p)
{
	char why[128];
	bool now;

	p->len = 0;
	p->fd = kmd_probe_connect(p, SOCK_STREAM, &now, why, sizeof(why));
	if (p->fd < 0) {
		kmd_probe_done(p, false, "%s", why);
		return;
	}
	if (now) {
		agent_connected(p);
		return;
	}
	ev_io_init(&p->io, agent_connect_io, p->fd, EV_WRITE);
	p->io.data = p;
	ev_io_start(kmd_hc_loop(p->hc), &p->io);
}

const struct kmd_kind_ops kmd_agent_ops = {
	.start = agent_start,
	.stop = sock_close,
};
