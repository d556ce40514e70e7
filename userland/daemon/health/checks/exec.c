// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the exec check kind. The command (argv, no shell) runs in its own process
 * group with stdin from /dev/null, stdout on a pipe we read, and KMAGLEV_BACKEND, KMAGLEV_VIP,
 * KMAGLEV_PORT, KMAGLEV_PROTO in its environment. Exit 0 is up, anything else down; a stdout
 * line "weight N" sets the weight. The exit comes through an ev_child watcher, which libev
 * only has on its default loop. A timeout or a stopped probe kills the whole process group,
 * and so does the end of a run (nothing a check started outlives it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>

#include "daemon/health/checks/checks.h"

extern char **environ;

static void exec_close(struct kmd_probe *p)
{
	struct ev_loop *loop = kmd_hc_loop(p->hc);

	ev_io_stop(loop, &p->out_io);
	if (p->out_fd >= 0)
		close(p->out_fd);
	p->out_fd = -1;
	ev_child_stop(loop, &p->child);
	if (p->pid > 0)
		kill(-p->pid, SIGKILL);
	p->pid = 0;
}

/* Read what stdout has now; keep the first sizeof(p->buf) bytes. */
static void exec_read(struct kmd_probe *p)
{
	char sink[512];
	ssize_t n;

	for (;;) {
		if (p->len < sizeof(p->buf))
			n = read(p->out_fd, p->buf + p->len, sizeof(p->buf) - p->len);
		else
			n = read(p->out_fd, sink, sizeof(sink));
		if (n > 0) {
			if (p->len < sizeof(p->buf))
				p->len += n;
			continue;
		}
		if (n == 0 || (errno != EINTR))
			break;
	}
	if (n == 0)	/* EOF: nothing more until the exit */
		ev_io_stop(kmd_hc_loop(p->hc), &p->out_io);
}

static void exec_out_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	exec_read(w->data);
}

/* The last "weight N" line of stdout, or -1. */
static int exec_weight(const char *out, size_t len)
{
	const char *s = out, *end = out + len;
	int weight = -1;

	while (s < end) {
		const char *nl = memchr(s, '\n', end - s);
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		char line[64];
		unsigned int w;
		char extra;

		if (n < sizeof(line)) {
			memcpy(line, s, n);
			line[n] = '\0';
			if (sscanf(line, " weight %u %c", &w, &extra) == 1 && w <= 65535)
				weight = w;
		}
		s += n + 1;
	}
	return weight;
}

static void exec_child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	struct kmd_probe *p = w->data;
	int st = w->rstatus;
	struct kmd_result r = { .admin = -1, .weight_pct = -1, .weight = -1, .util = -1 };

	exec_read(p);
	r.weight = exec_weight(p->buf, p->len);
	exec_close(p);
	if (WIFEXITED(st)) {
		r.ok = WEXITSTATUS(st) == 0;
		if (r.ok)
			strcpy(r.why, "ok");
		else
			snprintf(r.why, sizeof(r.why), "exit %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		snprintf(r.why, sizeof(r.why), "killed by signal %d", WTERMSIG(st));
	} else {
		snprintf(r.why, sizeof(r.why), "exec: status %#x", st);
	}
	kmd_probe_done_result(p, &r);
}

/* environ plus the KMAGLEV_* variables, in @vars; NULL on allocation failure. */
static char **exec_env(struct kmd_probe *p, char vars[4][80])
{
	const struct kmd_target *t = &p->t;
	char a[INET6_ADDRSTRLEN];
	unsigned int n = 0, i, k;
	char **env;

	while (environ && environ[n])
		n++;
	env = calloc(n + 5, sizeof(*env));
	if (!env)
		return NULL;
	for (i = k = 0; i < n; i++)
		if (strncmp(environ[i], "KMAGLEV_", 8))
			env[k++] = environ[i];
	if (!inet_ntop(t->backend.family, &t->backend.v6, a, sizeof(a)) &&
	    !inet_ntop(t->addr.family, &t->addr.v6, a, sizeof(a)))
		a[0] = '\0';
	snprintf(vars[0], sizeof(vars[0]), "KMAGLEV_BACKEND=%s", a);
	if (!inet_ntop(t->vip.family, &t->vip.v6, a, sizeof(a)))
		a[0] = '\0';
	snprintf(vars[1], sizeof(vars[1]), "KMAGLEV_VIP=%s", a);
	snprintf(vars[2], sizeof(vars[2]), "KMAGLEV_PORT=%u", t->port);
	snprintf(vars[3], sizeof(vars[3]), "KMAGLEV_PROTO=%s",
		 t->proto == IPPROTO_UDP ? "udp" : t->proto == IPPROTO_TCP ? "tcp" :
		 t->proto == IPPROTO_SCTP ? "sctp" : "any");
	for (i = 0; i < 4; i++)
		env[k++] = vars[i];
	return env;
}

static void exec_start(struct kmd_probe *p)
{
	struct ev_loop *loop = kmd_hc_loop(p->hc);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char vars[4][80], **env;
	int pfd[2], err;
	sigset_t none, dfl;
	pid_t pid;

	if (!ev_is_default_loop(loop)) {
		kmd_probe_done(p, false, "exec: needs libev's default loop");
		return;
	}
	if (!p->check.argv || !p->check.argv[0]) {
		kmd_probe_done(p, false, "exec: no command");
		return;
	}
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK)) {
		kmd_probe_done(p, false, "exec: pipe: %s", strerror(errno));
		return;
	}
	env = exec_env(p, vars);
	if (!env) {
		err = ENOMEM;
		goto fail_pipe;
	}
	err = posix_spawn_file_actions_init(&fa);
	if (err)
		goto fail_env;
	err = posix_spawnattr_init(&attr);
	if (err)
		goto fail_fa;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGCHLD);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGUSR1);
	sigaddset(&dfl, SIGUSR2);
	err = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
					       POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (!err)
		err = posix_spawnattr_setpgroup(&attr, 0);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &none);
	if (!err)
		err = posix_spawnattr_setsigdefault(&attr, &dfl);
	if (!err)
		err = posix_spawnp(&pid, p->check.argv[0], &fa, &attr, p->check.argv, env);
	posix_spawnattr_destroy(&attr);
fail_fa:
	posix_spawn_file_actions_destroy(&fa);
fail_env:
	free(env);
fail_pipe:
	close(pfd[1]);
	if (err) {
		close(pfd[0]);
		kmd_probe_done(p, false, "exec: %s", strerror(err));
		return;
	}
	p->pid = pid;
	p->len = 0;
	p->out_fd = pfd[0];
	ev_io_init(&p->out_io, exec_out_cb, p->out_fd, EV_READ);
	p->out_io.data = p;
	ev_io_start(loop, &p->out_io);
	ev_child_init(&p->child, exec_child_cb, pid, 0);
	p->child.data = p;
	ev_child_start(loop, &p->child);
}

const struct kmd_kind_ops kmd_exec_ops = {
	.start = exec_start,
	.stop = exec_close,
};
