/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: "kmaglev import", another load balancer's configuration as a `kmaglev daemon`
 * configuration file. A reader (import_keepalived.c, import_ipvsadm.c) fills one model:
 * services with their backends and health checks, and the global connection timeouts. It
 * says, at the source's FILE:LINE, what it maps by a rule of its own (a note) and what it
 * cannot map (a loss). import.c keeps the model, writes it as YAML and has the daemon's own
 * loader read that back (kmg_imp_write()).
 */
#ifndef KMAGLEV_CLI_IMPORT_H
#define KMAGLEV_CLI_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/config.h"
#include "lib/util.h"

/* Where a setting was read: a file name the reader keeps, and a line (0: the whole file). */
struct kmg_imp_src {
	const char *file;
	unsigned int line;
};

#define KMG_IMP_STATUS_MAX	16

/* A health check; 0 and NULL fields are the daemon's defaults (left out of the file). */
struct kmg_imp_check {
	enum kmd_check_kind kind;
	bool direct;			/* via: direct (not for exec) */
	uint16_t port;			/* 0: the service's */
	uint32_t interval_ms, timeout_ms, fast_ms;
	uint32_t rise, fall;
	char *host, *path, *body;	/* http, https */
	struct kmd_status_range status[KMG_IMP_STATUS_MAX];
	unsigned int nstatus;
	char **argv;			/* exec: NULL-terminated */
	char *send, *expect;		/* udp */
	char *query, *qtype;		/* dns */
};

/* What IPVS's direct routing (lb_kind DR, ipvsadm -g) becomes: a note, not a loss. */
#define KMG_IMP_DR_NOTE \
	"written as encap: dr (direct routing, as IPVS's): kmaglev sends the client's packet unchanged to the backend's MAC address; the backend must be of the VIP's family on a network this LB host is attached to (kmaglev refuses one behind a gateway), and own the VIP on lo without answering ARP for it, as with IPVS"

struct kmg_imp_backend {
	struct kmg_imp_src src;
	struct kmg_addr addr;
	uint32_t weight;
	bool gre;			/* encap: gre (else ipip, the default) */
	bool dr;			/* encap: dr (L2 direct routing) */
	uint32_t max_conns;		/* 0: no limit */
	struct kmg_imp_check *checks;
	unsigned int nchecks;
};

struct kmg_imp_service {
	struct kmg_imp_src src;
	char *what;			/* the source's words for it, for a comment */
	struct kmg_addr vip;
	uint16_t port;			/* 0: every port */
	uint8_t proto;			/* IPPROTO_TCP or IPPROTO_UDP */
	const char *hash;		/* NULL: five-tuple, the default */
	uint32_t quorum_min;		/* 0: none */
	struct kmg_imp_backend *be;
	unsigned int nbe;
};

struct kmg_imp {
	FILE *diag;			/* notes and losses, as they are found (stderr) */
	const char *format;		/* "keepalived", "ipvsadm": for the file's header */
	const char *source;		/* what was read, for the header */
	const char *advice;		/* the header's word on health checks */
	char **files;			/* file names the model's sources point at (freed with it) */
	unsigned int nfiles;
	unsigned int nnotes;
	char **losses;			/* "FILE:LINE: WHAT: WHY", for the header too */
	unsigned int nlost;		/* of them kept in losses[] (memory may run out) */
	unsigned int nlosses;		/* counted */
	struct kmg_imp_service *svc;
	unsigned int nsvc;
	/* config: connection timeouts in seconds, 0: not given */
	uint32_t timeout_tcp_est, timeout_tcp_fin, timeout_udp;
};

/*
 * Report to imp->diag, "FILE:LINE: note: ..." (mapped by a rule the operator should know) or
 * "FILE:LINE: not mapped: ..." (counted: the command refuses to write unless told to accept
 * the losses).
 */
void kmg_imp_note(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kmg_imp_loss(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The one note a service gets for its scheduler @sched (NULL: none given; @port_flag: with
 * sh-port or mh-port) and its persistence (@persist: as the source wrote it, NULL: none),
 * at @at, about @what. Returns the hash to write: "src-addr" for persistence and for the
 * source-hashing schedulers sh and mh (by address), else NULL (five-tuple).
 */
const char *kmg_imp_schedule(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *what,
			     const char *sched, bool port_flag, const char *persist);

/*
 * Whether kmaglev takes @a as a VIP or backend address (the loader's rules: no unspecified,
 * multicast, IPv4-mapped, 0.0.0.0/8 or broadcast address). If not, a loss at @at: "@what:
 * WHY: left out".
 */
bool kmg_imp_addr_ok(struct kmg_imp *imp, const struct kmg_imp_src *at, const char *what,
		     const struct kmg_addr *a);

/*
 * A new service, or NULL when the model has one with the same VIP, port and protocol already
 * (reported as a loss: the later one is left out) or memory ran out.
 */
struct kmg_imp_service *kmg_imp_service_add(struct kmg_imp *imp, const struct kmg_imp_src *at,
					    const struct kmg_addr *vip, uint16_t port,
					    uint8_t proto, const char *what);
/* A new backend of @s (weight 1), or NULL when @s has @addr already (a loss) or no memory. */
struct kmg_imp_backend *kmg_imp_backend_add(struct kmg_imp *imp, struct kmg_imp_service *s,
					    const struct kmg_imp_src *at,
					    const struct kmg_addr *addr);
/* A new zeroed check of @b, or NULL when memory ran out. */
struct kmg_imp_check *kmg_imp_check_add(struct kmg_imp_backend *b);
/* Copies of @k's strings for another backend's check; 0 or -ENOMEM. */
int kmg_imp_check_copy(struct kmg_imp_check *dst, const struct kmg_imp_check *k);
void kmg_imp_checks_free(struct kmg_imp_check *k, unsigned int n);
void kmg_imp_free(struct kmg_imp *imp);

/*
 * A line of @f into *@buf (grown as needed, its newline kept), at most @max bytes: its length,
 * -1 at the end of the file, -2 for a longer line (the rest unread), -3 out of memory or a
 * read error. getline() alone would take a stream without newlines (/dev/zero) whole.
 */
#define KMG_IMP_LINE_MAX	65536
ssize_t kmg_imp_getline(char **buf, size_t *cap, FILE *f, size_t max);

/*
 * Why @s cannot be a text value of the file (in @buf: "not UTF-8 at byte 3 (0xc0: an overlong
 * form)", "a control character (U+0085) at byte 5"...), or NULL when it can: 1..@max bytes of
 * strict UTF-8 (no overlong form, no UTF-16 surrogate, nothing past U+10FFFF, no stray
 * byte), without control characters (C0, DEL, C1), line or paragraph separators (U+2028,
 * U+2029: line breaks to YAML) and U+FFFE, U+FFFF (which YAML refuses), and without spaces
 * when @nospace: what the daemon's loader and libyaml take back as it was written.
 */
const char *kmg_imp_text_why(const char *s, size_t max, bool nospace, char *buf, size_t len);
bool kmg_imp_text_ok(const char *s, size_t max, bool nospace);

/*
 * @s for a message, in @buf: what kmg_imp_text_why() would take as it is, every other byte
 * (and "\\") as \xNN. Cut to fit @len. Returns @buf.
 */
char *kmg_imp_escape(const char *s, char *buf, size_t len);

/*
 * The model as a daemon configuration file: a header saying where it came from (and the
 * losses, if any), then config and services. Checks every backend shares are written once,
 * under the service. Returns the text (to be freed) after the daemon's loader has read it
 * back without an error; NULL with the loader's errors written to @err and an error recorded
 * (a bug of the reader) otherwise.
 */
char *kmg_imp_write(const struct kmg_imp *imp, FILE *err);

/*
 * The readers. 0 with the model filled in and every note and loss reported, or KMG_EFAIL
 * with the error recorded (kmg_err(): "FILE:LINE: what"), for a file that cannot be read or
 * parsed.
 */
int kmg_import_keepalived(struct kmg_imp *imp, const char *path);
/* @name stands for @in in messages ("<stdin>" for standard input). */
int kmg_import_ipvsadm(struct kmg_imp *imp, FILE *in, const char *name);

#endif
