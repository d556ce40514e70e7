// SPDX-License-Identifier: GPL-2.0
/*
 * synflood: TCP SYNs to DST:DPORT from many spoofed sources, as fast as the stack takes them
 * (a raw IPv4 socket, batches of sendmmsg()). Flow i comes from address SRC + i % NSRC and
 * port SPORT + i / NSRC, so COUNT flows are COUNT distinct 5-tuples. For soak_flood.sh,
 * where python would be far too slow in a VM without KVM.
 *
 *   synflood -d DST -p DPORT -s SRC -n NSRC -c COUNT [-P SPORT] [-r PPS] [-t TOS]
 *
 * -t: the IPv4 TOS byte (DSCP << 2), for dp_shed.sh's classes.
 *
 * Prints "synflood: N SYNs sent ..." and exits 0 when every SYN was handed to the stack.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH	64
#define PKTLEN	44	/* IPv4 header, TCP header, MSS option */

static uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static uint32_t csum_add(uint32_t s, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	return s;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* An IPv4 SYN with an MSS option; the kernel fills the IP checksum (IP_HDRINCL). */
static uint8_t tos;

static void build(uint8_t *p, uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
		  uint32_t seq)
{
	uint8_t *t = p + 20;
	uint32_t s;

	memset(p, 0, PKTLEN);
	p[0] = 0x45;
	p[1] = tos;
	put16(p + 2, PKTLEN);
	put16(p + 6, 0x4000);	/* DF */
	p[8] = 64;
	p[9] = IPPROTO_TCP;
	put32(p + 12, src);
	put32(p + 16, dst);
	put16(t, sport);
	put16(t + 2, dport);
	put32(t + 4, seq);
	t[12] = 6 << 4;		/* 24 bytes: the header and the MSS option */
	t[13] = 0x02;		/* SYN */
	put16(t + 14, 64240);
	t[20] = 2;
	t[21] = 4;
	put16(t + 22, 1460);
	/* the pseudo-header: addresses, protocol, TCP length */
	s = csum_add(0, p + 12, 8);
	s += IPPROTO_TCP + (PKTLEN - 20);
	s = csum_add(s, t, PKTLEN - 20);
	put16(t + 16, csum_fold(s));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: synflood -d DST -p DPORT -s SRC -n NSRC -c COUNT [-P SPORT] [-r PPS] [-t TOS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static uint8_t pkts[BATCH][PKTLEN];
	struct sockaddr_in to = { .sin_family = AF_INET };
	unsigned long count = 0, nsrc = 0, pps = 0, sent = 0, retries = 0, i;
	unsigned int dport = 0, sport0 = 1024;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct in_addr src = { 0 }, dst = { 0 };
	double t0, t;
	int opt, fd;

	while ((opt = getopt(argc, argv, "d:p:s:n:c:P:r:t:")) != -1) {
		switch (opt) {
		case 'd':
			if (inet_pton(AF_INET, optarg, &dst) != 1)
				usage();
			break;
		case 's':
			if (inet_pton(AF_INET, optarg, &src) != 1)
				usage();
			break;
		case 'p':
			dport = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nsrc = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'P':
			sport0 = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			pps = strtoul(optarg, NULL, 0);
			break;
		case 't':
			if (strtoul(optarg, NULL, 0) > 255)
				usage();
			tos = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!dst.s_addr || !src.s_addr || !dport || dport > 65535 || !nsrc || !count ||
	    !sport0 || sport0 + (count - 1) / nsrc > 65535)
		usage();
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("synflood: socket");
		return 1;
	}
	to.sin_addr = dst;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = pkts[i];
		iov[i].iov_len = PKTLEN;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
	}
	srandom(getpid());
	t0 = now();
	while (sent < count) {
		unsigned long n = count - sent < BATCH ? count - sent : BATCH;
		int r;

		for (i = 0; i < n; i++) {
			unsigned long f = sent + i;

			build(pkts[i], ntohl(src.s_addr) + f % nsrc, ntohl(dst.s_addr),
			      sport0 + f / nsrc, dport, (uint32_t)random());
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
				perror("synflood: sendmmsg");
				break;
			}
			r = 0;
		}
		sent += r;
		if ((unsigned long)r < n) {
			retries++;
			usleep(1000);	/* a full queue: let softirq drain it */
		}
		if (pps) {
			double ahead = sent / (double)pps - (now() - t0);

			if (ahead > 0)
				usleep(ahead * 1e6);
		}
	}
	t = now() - t0;
	printf("synflood: %lu SYNs sent to %s:%u from %lu sources in %.2f s (%.0f/s, %lu retries)\n",
	       sent, inet_ntoa(dst), dport, nsrc < count ? nsrc : count, t, t > 0 ? sent / t : 0.0,
	       retries);
	close(fd);
	return sent == count ? 0 : 1;
}
