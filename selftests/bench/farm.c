// SPDX-License-Identifier: GPL-2.0
/*
 * A fake backend farm for `make bench-health`: one single-threaded epoll loop answering
 * on one port of every address it is reached at (bound to 0.0.0.0, so the whole of
 * 127.0.0.0/8 on lo: 10,000 backends are 10,000 loopback addresses). Mode "tcp" accepts and
 * closes; mode "http" reads a request and answers a fixed 200 with "ok", then closes.
 *
 *   farm PORT tcp|http
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

static const char reply[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
	"Connection: close\r\n\r\nok\n";

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct epoll_event ev, evs[256];
	struct rlimit rl;
	bool http;
	int lfd, ep, one = 1;

	if (argc != 3 || (strcmp(argv[2], "tcp") && strcmp(argv[2], "http"))) {
		fprintf(stderr, "usage: farm PORT tcp|http\n");
		return 2;
	}
	http = !strcmp(argv[2], "http");
	sin.sin_port = htons(atoi(argv[1]));
	signal(SIGPIPE, SIG_IGN);
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die("setrlimit");
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("SO_REUSEADDR");
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)))
		die("bind");
	if (listen(lfd, 65535))
		die("listen");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	ev.events = EPOLLIN;
	ev.data.fd = lfd;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev))
		die("epoll_ctl");
	printf("farm: listening on *:%s (%s)\n", argv[1], argv[2]);
	fflush(stdout);

	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			char buf[4096];
			ssize_t r;

			if (fd != lfd) {
				/* http: the request (one segment on loopback), the reply, close */
				r = recv(fd, buf, sizeof(buf), 0);
				if (r < 0 && errno == EAGAIN)
					continue;
				if (r > 0 && send(fd, reply, sizeof(reply) - 1, MSG_NOSIGNAL) < 0 &&
				    errno != ECONNRESET && errno != EPIPE)
					perror("send");
				close(fd);
				continue;
			}
			for (;;) {
				int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

				if (c < 0) {
					if (errno != EAGAIN && errno != ECONNABORTED)
						perror("accept4");
					break;
				}
				if (!http) {
					close(c);
					continue;
				}
				ev.events = EPOLLIN;
				ev.data.fd = c;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev)) {
					perror("epoll_ctl");
					close(c);
				}
			}
		}
	}
}
