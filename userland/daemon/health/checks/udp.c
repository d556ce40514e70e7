// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the datagram check kinds. udp: send the payload, a reply (containing
 * `expect`, when set) is success. dns: send a query made by res_mkquery(), the reply with our
 * id must carry the expected rcode. The socket is connected, so an ICMP port unreachable
 * comes back as "Connection refused" at once instead of a timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/nameser.h>
#include <resolv.h>
#include <sys/socket.h>

#include "daemon/health/checks/checks.h"

static void dgram_close(struct kmd_probe *p)
{
	ev_io_stop(kmd_hc_loop(p->hc), &p->io);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Open, connect and send @len bytes of @msg; then wait for @cb. false: reported. */
static bool dgram_send(struct kmd_probe *p, const void *msg, size_t len,
		       void (*cb)(struct ev_loop *, ev_io *, int))
{
	char why[128];
	bool now;

	p->fd = kmd_probe_connect(p, SOCK_DGRAM, &now, why, sizeof(why));
	if (p->fd < 0) {
		kmd_probe_done(p, false, "%s", why);
		return false;
	}
	if (send(p->fd, msg, len, 0) < 0) {
		int err = errno;

		dgram_close(p);
		kmd_probe_done(p, false, "send: %s", strerror(err));
		return false;
	}
	ev_io_init(&p->io, cb, p->fd, EV_READ);
	p->io.data = p;
	ev_io_start(kmd_hc_loop(p->hc), &p->io);
	return true;
}

/* Receive one datagram into p->buf. >= 0: its length; -1: reported; -2: try again. */
static ssize_t dgram_recv(struct kmd_probe *p)
{
	ssize_t n = recv(p->fd, p->buf, sizeof(p->buf), 0);

	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EINTR)
		return -2;
	n = errno;
	dgram_close(p);
	kmd_probe_done(p, false, "recv: %s", strerror(n));
	return -1;
}

/* ---- udp ---- */

static void udp_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kmd_probe *p = w->data;
	const char *expect = p->check.expect;
	ssize_t n = dgram_recv(p);

	if (n < 0)
		return;
	dgram_close(p);
	if (expect && *expect && !memmem(p->buf, n, expect, strlen(expect)))
		kmd_probe_done(p, false, "reply mismatch");
	else
		kmd_probe_done(p, true, "ok");
}

static void udp_start(struct kmd_probe *p)
{
	const char *msg = p->check.send ? p->check.send : "";

	dgram_send(p, msg, strlen(msg), udp_io);
}

const struct kmd_kind_ops kmd_udp_ops = {
	.start = udp_start,
	.stop = dgram_close,
};

/* ---- dns ---- */

static const char *rcode_name(unsigned int rc, char *buf, size_t len)
{
	static const char *const names[] = {
		"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED",
		"YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE",
	};

	if (rc < sizeof(names) / sizeof(names[0]))
		return names[rc];
	snprintf(buf, len, "%u", rc);
	return buf;
}

static void dns_io(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kmd_probe *p = w->data;
	const uint8_t *m = (const uint8_t *)p->buf;
	ssize_t n = dgram_recv(p);
	unsigned int rc;
	char b[16];

	if (n < 0)
		return;
	/* the header: id(2) flags(2) ...; a stray or short datagram is not our answer */
	if (n < HFIXEDSZ || ((m[0] << 8) | m[1]) != p->dns_id || !(m[2] & 0x80))
		return;
	dgram_close(p);
	rc = m[3] & 0x0f;
	if (rc != p->check.rcode)
		kmd_probe_done(p, false, "rcode %s", rcode_name(rc, b, sizeof(b)));
	else
		kmd_probe_done(p, true, "ok");
}

static void dns_start(struct kmd_probe *p)
{
	const char *name = p->check.query && *p->check.query ? p->check.query : ".";
	uint8_t q[NS_PACKETSZ];
	int n;

	n = res_mkquery(ns_o_query, name, ns_c_in, p->check.qtype ? p->check.qtype : ns_t_a,
			NULL, 0, NULL, q, sizeof(q));
	if (n < HFIXEDSZ) {
		kmd_probe_done(p, false, "dns: cannot make a query for \"%.64s\"", name);
		return;
	}
	p->dns_id = (q[0] << 8) | q[1];
	dgram_send(p, q, n, dns_io);
}

const struct kmd_kind_ops kmd_dns_ops = {
	.start = dns_start,
	.stop = dgram_close,
};
