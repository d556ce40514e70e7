// SPDX-License-Identifier: GPL-2.0
/*
 * BFD (RFC 5880/5881): the control packet's codec and one session's state machine, with no
 * socket and no clock. See bfd.h.
 */
#include <arpa/inet.h>
#include <string.h>

#include "bgp/bfd.h"

/* --- codec ----------------------------------------------------------------------------- */

static void put32(uint8_t *b, uint32_t v)
{
	v = htonl(v);
	memcpy(b, &v, 4);
}

static uint32_t get32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return ntohl(v);
}

size_t bfd_pkt_encode(const struct bfd_pkt *p, uint8_t *buf)
{
	buf[0] = (uint8_t)((p->version & 0x7) << 5 | (p->diag & 0x1f));
	buf[1] = (uint8_t)((p->state & 0x3) << 6 | p->poll << 5 | p->final << 4 | p->cpi << 3 |
			   p->auth << 2 | p->demand << 1 | p->multipoint);
	buf[2] = p->detect_mult;
	buf[3] = p->length;
	put32(buf + 4, p->my_disc);
	put32(buf + 8, p->your_disc);
	put32(buf + 12, p->des_min_tx_us);
	put32(buf + 16, p->req_min_rx_us);
	put32(buf + 20, p->req_min_echo_rx_us);
	return BFD_PKT_LEN;
}

int bfd_pkt_decode(const uint8_t *buf, size_t len, struct bfd_pkt *p, const char **why)
{
	memset(p, 0, sizeof(*p));
	if (len < BFD_PKT_LEN) {
		*why = "length: shorter than 24 bytes";
		return -1;
	}
	p->version = buf[0] >> 5;
	p->diag = buf[0] & 0x1f;
	p->state = (enum bfd_state)(buf[1] >> 6);
	p->poll = buf[1] & 0x20;
	p->final = buf[1] & 0x10;
	p->cpi = buf[1] & 0x08;
	p->auth = buf[1] & 0x04;
	p->demand = buf[1] & 0x02;
	p->multipoint = buf[1] & 0x01;
	p->detect_mult = buf[2];
	p->length = buf[3];
	p->my_disc = get32(buf + 4);
	p->your_disc = get32(buf + 8);
	p->des_min_tx_us = get32(buf + 12);
	p->req_min_rx_us = get32(buf + 16);
	p->req_min_echo_rx_us = get32(buf + 20);
	if (p->version != BFD_VERSION)
		*why = "version: not 1";
	else if (p->length < (p->auth ? BFD_PKT_LEN + 2 : BFD_PKT_LEN))
		*why = "length: less than the minimum";
	else if (p->length > len)
		*why = "length: more than the packet";
	else if (!p->detect_mult)
		*why = "detect multiplier: 0";
	else if (p->multipoint)
		*why = "multipoint: set";
	else if (!p->my_disc)
		*why = "my discriminator: 0";
	else if (!p->your_disc && p->state != BFD_DOWN && p->state != BFD_ADMIN_DOWN)
		*why = "your discriminator: 0 in state Init or Up";
	else if (p->auth)
		*why = "authentication: present, none configured";
	else
		return 0;
	return -1;
}

/* --- state machine ----------------------------------------------------------------------- */

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

uint32_t bfd_sess_tx_interval(const struct bfd_sess *s)
{
	/* RFC 5880 6.8.7: never faster than the peer takes; a peer that asks for 0 gets none */
	if (!s->remote_min_rx_us)
		return 0;
	return max32(s->tx_eff_us, s->remote_min_rx_us);
}

uint64_t bfd_sess_detect_time(const struct bfd_sess *s)
{
	/*
	 * RFC 5880 6.8.4: the peer's multiplier times the agreed rate of its packets. Both are
	 * the peer's to choose (255 x 4294 s): 64 bits, no wrap to a short detection time.
	 */
	return (uint64_t)s->remote_mult * max32(s->rx_eff_us, s->remote_min_tx_us);
}

static void start_poll(struct bfd_sess *s)
{
	if (s->polling) {
		s->repoll = true;
		return;
	}
	s->polling = true;
	s->tx_now = true;
}

/* Our advertised intervals for the state (and cfg): slow while not Up. */
static void set_intervals(struct bfd_sess *s, bool poll)
{
	uint32_t tx = s->state == BFD_UP ? s->cfg.min_tx_us :
		      max32(s->cfg.min_tx_us, BFD_SLOW_TX_US);
	uint32_t rx = s->cfg.min_rx_us;
	bool changed = tx != s->des_min_tx_us || rx != s->req_min_rx_us;

	s->des_min_tx_us = tx;
	s->req_min_rx_us = rx;
	if (!poll) {
		s->tx_eff_us = tx;
		s->rx_eff_us = rx;
		return;
	}
	/*
	 * RFC 5880 6.8.3: sending faster and taking slower are safe at once; sending slower, or
	 * expecting the peer to send faster, only once it acknowledged (Final).
	 */
	if (tx < s->tx_eff_us)
		s->tx_eff_us = tx;
	if (rx > s->rx_eff_us)
		s->rx_eff_us = rx;
	if (changed)
		start_poll(s);
}

static void set_state(struct bfd_sess *s, enum bfd_state st, uint8_t diag, uint64_t now)
{
	enum bfd_state old = s->state;

	s->state = st;
	s->diag = diag;
	s->since = now;
	s->tx_now = true;
	if (st == BFD_UP) {
		s->ups++;
		set_intervals(s, true);
		return;
	}
	if (old == BFD_UP)
		s->downs++;
	/* a poll does not outlive Up */
	s->polling = s->repoll = false;
	set_intervals(s, false);
	if (st != BFD_INIT)
		s->detect_at = 0;
}

void bfd_sess_init(struct bfd_sess *s, uint32_t local_disc, const struct bfd_params *p,
		   uint64_t now)
{
	memset(s, 0, sizeof(*s));
	s->state = BFD_DOWN;
	s->local_disc = local_disc;
	s->cfg = *p;
	s->remote_state = BFD_DOWN;
	s->remote_min_rx_us = 1;	/* RFC 5880 6.8.1: the initial value */
	s->since = now;
	set_intervals(s, false);
	s->next_tx = now;
}

void bfd_sess_set_params(struct bfd_sess *s, const struct bfd_params *p, uint64_t now)
{
	s->cfg = *p;
	set_intervals(s, s->state == BFD_UP);
	/* counted from the last packet still: a change does not postpone a detection */
	if (s->detect_at)
		s->detect_at = s->last_rx + bfd_sess_detect_time(s);
}

bool bfd_sess_rx(struct bfd_sess *s, const struct bfd_pkt *p, uint64_t now)
{
	enum bfd_state old = s->state;
	uint32_t old_interval = bfd_sess_tx_interval(s);

	s->rx++;
	s->last_rx = now;
	s->remote_disc = p->my_disc;
	s->remote_state = p->state;
	s->remote_diag = p->diag;
	s->remote_min_tx_us = p->des_min_tx_us;
	s->remote_min_rx_us = p->req_min_rx_us;
	s->remote_mult = p->detect_mult;
	if (p->final && s->polling) {
		/* the Poll sequence is over: what we advertised is in effect */
		s->polling = false;
		s->tx_eff_us = s->des_min_tx_us;
		s->rx_eff_us = s->req_min_rx_us;
		if (s->repoll) {
			s->repoll = false;
			start_poll(s);
		}
	}
	if (p->poll) {
		s->send_final = true;
		s->tx_now = true;
	}
	if (s->state == BFD_ADMIN_DOWN)
		return false;
	if (p->state == BFD_ADMIN_DOWN) {
		if (s->state != BFD_DOWN)
			set_state(s, BFD_DOWN, BFD_DIAG_NEIGHBOR_DOWN, now);
	} else if (s->state == BFD_DOWN) {
		if (p->state == BFD_DOWN)
			set_state(s, BFD_INIT, BFD_DIAG_NONE, now);
		else if (p->state == BFD_INIT)
			set_state(s, BFD_UP, BFD_DIAG_NONE, now);
	} else if (s->state == BFD_INIT) {
		if (p->state == BFD_INIT || p->state == BFD_UP)
			set_state(s, BFD_UP, BFD_DIAG_NONE, now);
	} else if (p->state == BFD_DOWN) {
		set_state(s, BFD_DOWN, BFD_DIAG_NEIGHBOR_DOWN, now);
	}
	if (s->state == BFD_INIT || s->state == BFD_UP)
		s->detect_at = now + bfd_sess_detect_time(s);
	/* the peer wants packets again, or faster than the next one is due */
	if (bfd_sess_tx_interval(s) && (!old_interval || !s->next_tx ||
					s->next_tx > now + bfd_sess_tx_interval(s)))
		s->next_tx = now;
	return s->state != old;
}

bool bfd_sess_expire(struct bfd_sess *s, uint64_t now)
{
	if (!s->detect_at || now < s->detect_at)
		return false;
	s->detect_at = 0;
	if (s->state != BFD_INIT && s->state != BFD_UP)
		return false;
	/* RFC 5880 6.8.1: what the peer told us is forgotten */
	s->remote_disc = 0;
	s->remote_state = BFD_DOWN;
	s->remote_min_rx_us = 1;
	set_state(s, BFD_DOWN, BFD_DIAG_TIME_EXPIRED, now);
	if (!s->next_tx)
		s->next_tx = now;
	return true;
}

bool bfd_sess_admin(struct bfd_sess *s, bool down, uint64_t now)
{
	if (down == (s->state == BFD_ADMIN_DOWN))
		return false;
	set_state(s, down ? BFD_ADMIN_DOWN : BFD_DOWN, down ? BFD_DIAG_ADMIN_DOWN : BFD_DIAG_NONE,
		  now);
	return true;
}

bool bfd_sess_tx(struct bfd_sess *s, struct bfd_pkt *p, uint64_t now, uint32_t rnd)
{
	uint32_t iv = bfd_sess_tx_interval(s);
	unsigned int pct;

	if (!s->tx_now && !(iv && s->next_tx && now >= s->next_tx))
		return false;
	memset(p, 0, sizeof(*p));
	p->version = BFD_VERSION;
	p->diag = s->diag;
	p->state = s->state;
	/* RFC 5880 6.5: never P and F together; the answer first, the poll goes on after */
	p->final = s->send_final;
	p->poll = s->polling && !p->final;
	p->detect_mult = s->cfg.mult;
	p->length = BFD_PKT_LEN;
	p->my_disc = s->local_disc;
	p->your_disc = s->remote_disc;
	p->des_min_tx_us = s->des_min_tx_us;
	p->req_min_rx_us = s->req_min_rx_us;
	s->send_final = false;
	s->tx_now = false;
	s->tx++;
	if (!iv) {
		s->next_tx = 0;
		return true;
	}
	/* RFC 5880 6.8.7: 75..100% of the interval, 75..90% with a multiplier of 1 */
	pct = s->cfg.mult == 1 ? 75 + rnd % 16 : 75 + rnd % 26;
	s->next_tx = now + (uint64_t)iv * pct / 100;
	return true;
}

uint64_t bfd_sess_next(const struct bfd_sess *s)
{
	uint64_t t = 0;

	if (s->tx_now)
		return 1;
	if (bfd_sess_tx_interval(s) && s->next_tx)
		t = s->next_tx;
	if (s->detect_at && (!t || s->detect_at < t))
		t = s->detect_at;
	return t;
}

const char *bfd_state_name(enum bfd_state s)
{
	static const char *const n[] = { "AdminDown", "Down", "Init", "Up" };

	return (unsigned int)s < 4 ? n[s] : "?";
}

const char *bfd_diag_name(uint8_t diag)
{
	static const char *const n[] = {
		"none", "control detection time expired", "echo function failed",
		"neighbor signaled session down", "forwarding plane reset", "path down",
		"concatenated path down", "administratively down",
		"reverse concatenated path down",
	};

	return diag < sizeof(n) / sizeof(n[0]) ? n[diag] : "unknown";
}
