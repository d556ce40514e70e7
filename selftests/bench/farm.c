// SPDX-License-Identifier: GPL-2.0
/*
 * A fake backend farm for `make bench-health`: one single-threaded epoll loop answering
 * on one port of every address it is reached at (bound to 0.0.0.0, so the whole of
 * 127.0.0.0/8 on lo: 10,000 backends are 10,000 loopback addresses).
 *   tcp    accepts and closes
 *   http   answers each request with a fixed 200 "ok"; keeps the connection open for more
 *          (HTTP/1.1 keep-alive, as nginx does) unless the request says "Connection: close"
 *   https  the same over TLS (OpenSSL, the certificate and key given; session tickets as
 *          OpenSSL sends them by default, as a real server would)
 *   udp    echoes each datagram
 *   dns    answers each query NOERROR with no records (the query, its QR and RA bits set)
 * Datagrams are answered from the address they were sent to (IP_PKTINFO): the checks'
 * sockets are connected, and take replies from that address only.
 *
 *   farm PORT tcp|http|udp|dns
 *   farm PORT https CERT KEY
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

#include <openssl/err.h>
#include <openssl/ssl.h>

enum mode { TCP, HTTP, HTTPS, UDP, DNS };

static const char reply[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n";
static const char reply_close[] =
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
	"Connection: close\r\n\r\nok\n";

/* the request (one segment on loopback) asks to close after the reply */
static bool wants_close(const char *req, size_t len)
{
	return memmem(req, len, "Connection: close", 17) ||
	       memmem(req, len, "connection: close", 17);
}

static int ep;
static SSL **tls;		/* https: by file descriptor */
static size_t ntls;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void watch(int fd, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	if (epoll_ctl(ep, op, fd, &ev))
		die("epoll_ctl");
}

static void conn_close(int fd)
{
	if (tls && (size_t)fd < ntls && tls[fd]) {
		SSL_free(tls[fd]);
		tls[fd] = NULL;
	}
	close(fd);	/* leaves the epoll set with it */
}

/* http: each request (one segment on loopback) gets the reply; the client's close ends it */
static void http_io(int fd)
{
	char buf[4096];
	ssize_t r = recv(fd, buf, sizeof(buf), 0);
	bool close_it;

	if (r < 0 && errno == EAGAIN)
		return;
	if (r <= 0) {
		conn_close(fd);
		return;
	}
	close_it = wants_close(buf, r);
	if (send(fd, close_it ? reply_close : reply,
		 (close_it ? sizeof(reply_close) : sizeof(reply)) - 1, MSG_NOSIGNAL) < 0) {
		if (errno != ECONNRESET && errno != EPIPE)
			perror("send");
		close_it = true;
	}
	if (close_it)
		conn_close(fd);
}

/* https: handshake, then as http; waiting on whatever TLS wants */
static void https_io(int fd)
{
	SSL *s = tls[fd];
	char buf[4096];
	bool close_it;
	int r, err;

	r = SSL_read(s, buf, sizeof(buf));
	if (r <= 0) {
		err = SSL_get_error(s, r);
		if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
			watch(fd, err == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT, EPOLL_CTL_MOD);
			return;
		}
		ERR_clear_error();
		conn_close(fd);
		return;
	}
	close_it = wants_close(buf, r);
	if (SSL_write(s, close_it ? reply_close : reply,
		      (close_it ? sizeof(reply_close) : sizeof(reply)) - 1) <= 0) {
		close_it = true;
	} else if (!close_it) {
		/* still watched for EPOLLOUT after a handshake? SSL_read() asks for EPOLLIN */
		ERR_clear_error();
		return;
	} else {
		SSL_shutdown(s);
	}
	ERR_clear_error();
	conn_close(fd);
}

static void accept_all(int lfd, enum mode mode, SSL_CTX *ctx)
{
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (c < 0) {
			if (errno != EAGAIN && errno != ECONNABORTED)
				perror("accept4");
			return;
		}
		if (mode == TCP) {
			close(c);
			continue;
		}
		if (mode == HTTPS) {
			if ((size_t)c >= ntls || !(tls[c] = SSL_new(ctx)) || !SSL_set_fd(tls[c], c)) {
				fprintf(stderr, "farm: no TLS state for fd %d\n", c);
				conn_close(c);
				continue;
			}
			SSL_set_accept_state(tls[c]);
		}
		watch(c, EPOLLIN, EPOLL_CTL_ADD);
	}
}

/* udp and dns: every datagram waiting, answered from the address it came to */
static void dgram_io(int fd, enum mode mode)
{
	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(struct in_pktinfo))];
			struct cmsghdr align;
		} cb, ob;
		unsigned char buf[2048];
		struct sockaddr_in from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr m = {
			.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			.msg_iovlen = 1, .msg_control = cb.buf, .msg_controllen = sizeof(cb.buf),
		};
		struct in_pktinfo *to = NULL;
		struct cmsghdr *cm;
		ssize_t n = recvmsg(fd, &m, 0);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				perror("recvmsg");
			return;
		}
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO)
				to = (struct in_pktinfo *)CMSG_DATA(cm);
		if (!to)
			continue;
		if (mode == DNS) {
			if (n < 12 || (buf[2] & 0x80))
				continue;	/* not a query */
			buf[2] |= 0x80;		/* QR: a response */
			buf[3] = 0x80;		/* RA, rcode NOERROR */
		}
		iov.iov_len = n;
		m.msg_control = ob.buf;
		m.msg_controllen = sizeof(ob.buf);
		memset(ob.buf, 0, sizeof(ob.buf));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
		((struct in_pktinfo *)CMSG_DATA(cm))->ipi_spec_dst = to->ipi_addr;
		if (sendmsg(fd, &m, 0) < 0 && errno != ECONNREFUSED)
			perror("sendmsg");
	}
}

static SSL_CTX *tls_ctx(const char *cert, const char *key)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!ctx || SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
		ERR_print_errors_fp(stderr);
		exit(1);
	}
	return ctx;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "tcp", "http", "https", "udp", "dns" };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct epoll_event evs[256];
	SSL_CTX *ctx = NULL;
	struct rlimit rl;
	enum mode mode;
	int lfd, one = 1;

	for (mode = TCP; mode <= DNS; mode++)
		if (argc >= 3 && !strcmp(argv[2], names[mode]))
			break;
	if (mode > DNS || argc != (mode == HTTPS ? 5 : 3)) {
		fprintf(stderr, "usage: farm PORT tcp|http|udp|dns\n       farm PORT https CERT KEY\n");
		return 2;
	}
	sin.sin_port = htons(atoi(argv[1]));
	signal(SIGPIPE, SIG_IGN);
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			die("setrlimit");
	}
	if (mode == HTTPS) {
		ctx = tls_ctx(argv[3], argv[4]);
		ntls = rl.rlim_cur < (1u << 20) ? rl.rlim_cur : 1u << 20;
		tls = calloc(ntls, sizeof(*tls));
		if (!tls)
			die("calloc");
	}
	lfd = socket(AF_INET, (mode >= UDP ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK |
		     SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("SO_REUSEADDR");
	if (mode >= UDP && setsockopt(lfd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)))
		die("IP_PKTINFO");
	/*
	 * One socket answers every probe: 10,000 a second come in bursts (the checker's timers
	 * fire together), which the default buffers (about 270 datagrams) drop, and the checker
	 * counts as failures of its own. 16 MB each way, past rmem_max as root (FORCE).
	 */
	if (mode >= UDP) {
		int sz = 16 << 20;

		if (setsockopt(lfd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
			setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		if (setsockopt(lfd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
			setsockopt(lfd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)))
		die("bind");
	if (mode < UDP && listen(lfd, 65535))
		die("listen");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	watch(lfd, EPOLLIN, EPOLL_CTL_ADD);
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

			if (fd == lfd && mode >= UDP)
				dgram_io(fd, mode);
			else if (fd == lfd)
				accept_all(lfd, mode, ctx);
			else if (mode == HTTPS)
				https_io(fd);
			else
				http_io(fd);
		}
	}
}
