/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: generic netlink transport over libmnl, with extended-ack error reporting.
 *
 * Errors: the kernel's extack (message, offset of the bad attribute, missing attribute, policy)
 * is kept in struct kmg_nl; kmg_nl_errstr() turns it into a message that names the attribute by
 * its path in the request that was sent ("service.backend.weight"), using an attribute schema.
 */
#ifndef KMAGLEV_NL_H
#define KMAGLEV_NL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Attribute schema: names and types of an attribute set, for validation and error paths. */
enum kmg_attr_type {
	KMG_AT_NONE,
	KMG_AT_U8,
	KMG_AT_U16,
	KMG_AT_U32,
	KMG_AT_U64,
	KMG_AT_BINARY,			/* @len bytes exactly */
	KMG_AT_FLAG,
	KMG_AT_NEST,
	KMG_AT_STRING,			/* NUL-terminated, at most @max bytes before the NUL */
};

enum kmg_attr_hint {
	KMG_HINT_NONE,
	KMG_HINT_IPV4,			/* u32 in network byte order */
	KMG_HINT_IPV6,
};

struct kmg_attr_set;

/* The names of an enum's values (value i is names[i]), or of a flags set's bits (bit i). */
struct kmg_enum {
	const char *const *names;
	unsigned int n;
	bool flags;
};

/* One attribute, as the YNL spec describes it (schema.c is generated from the spec). */
struct kmg_attr_desc {
	const char *name;		/* NULL: no such attribute */
	uint8_t type;			/* enum kmg_attr_type */
	uint8_t hint;			/* enum kmg_attr_hint */
	bool multi;			/* may repeat */
	uint16_t len;			/* binary: exact length */
	uint64_t min, max;		/* integers: the range the kernel accepts; strings: max length */
	const struct kmg_enum *enm;	/* enum or flags attributes */
	const struct kmg_attr_set *nested;
};

struct kmg_attr_set {
	const char *name;
	uint16_t max;			/* highest attribute type */
	const struct kmg_attr_desc *attrs;	/* indexed by type, [0..max] */
};

/* The description of @type in @set, or NULL if the set has no such attribute. */
const struct kmg_attr_desc *kmg_attr_desc(const struct kmg_attr_set *set, uint16_t type);
/* Does @a have the length its description requires? */
bool kmg_attr_ok(const struct nlattr *a, const struct kmg_attr_desc *d);

/* The policy the kernel reported for a rejected attribute (NLMSGERR_ATTR_POLICY). */
struct kmg_nl_policy {
	uint32_t type;			/* enum netlink_attribute_type, 0 if not given */
	bool has_umin, has_umax, has_smin, has_smax, has_minlen, has_maxlen, has_mask;
	uint64_t umin, umax, mask;
	int64_t smin, smax;
	uint32_t minlen, maxlen;
};

struct kmg_nl {
	struct mnl_socket *sk;
	uint16_t family_id;
	uint8_t family_version;
	uint32_t events_group;		/* multicast group id, 0 if absent */
	unsigned int seq;
	/* extack of the last failed request */
	char errmsg[256];		/* message, "" if none */
	int erroff;			/* offset of the offending attribute in the request, or -1 */
	int miss_type;			/* type of a missing attribute, or -1 */
	int miss_nest;			/* offset of the nest it is missing from, or -1 (top level) */
	bool has_policy;
	struct kmg_nl_policy policy;
};

int kmg_nl_open(struct kmg_nl *nl, const char *family);
void kmg_nl_close(struct kmg_nl *nl);

/* A generic netlink request header for @cmd of family @type in @buf. */
struct nlmsghdr *kmg_genl_put(void *buf, uint16_t type, uint8_t cmd, uint8_t version,
			      uint16_t flags);
/* Start a request for @cmd of the opened family in @buf (MNL_SOCKET_BUFFER_SIZE or larger). */
struct nlmsghdr *kmg_nl_msg(struct kmg_nl *nl, void *buf, uint8_t cmd, uint16_t flags);

/*
 * Send @nlh and process replies until the ack (or dump end). @cb runs for each data message.
 * Returns 0 or a negative errno; on error nl's extack fields describe it.
 */
int kmg_nl_talk(struct kmg_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * Clear NLM_F_DUMP_INTR on the messages of a received buffer (libmnl would stop at the first
 * one, leaving the rest of the dump unread); true if any had it. kmg_nl_talk() reads such a
 * dump to its end and then returns -EINTR: the kernel's configuration changed during the dump.
 */
bool kmg_nl_dump_intr(void *buf, size_t len);

/*
 * Process one received buffer of replies to the request with @seq (what kmg_nl_talk() does
 * with each datagram). Returns 1 to wait for more, 0 at the ack or dump end, or a negative
 * errno (extack in nl).
 */
int kmg_nl_process(struct kmg_nl *nl, const void *buf, size_t len, unsigned int seq,
		   unsigned int portid, mnl_cb_t cb, void *data);

/* Forget the last error. */
void kmg_nl_reset_err(struct kmg_nl *nl);

/* Path of the attribute at @off of @req, from the attributes after @hdrlen bytes of header. */
struct kmg_attr_walk {
	unsigned int depth;
	const struct nlattr *attr[8];
	const struct kmg_attr_desc *desc[8];	/* NULL for attributes the schema does not know */
};

int kmg_nl_attr_at(const struct nlmsghdr *req, size_t hdrlen, const struct kmg_attr_set *root,
		   uint32_t off, struct kmg_attr_walk *w);

/* Format @w as "service.backend.weight", plus ", backend 10.0.0.1" for keyed nests. */
const char *kmg_nl_fmt_walk(const struct kmg_attr_walk *w, char *buf, size_t len);

/*
 * The error of a failed request @req (negative errno @err) as one line:
 * "Error: MESSAGE (attribute: PATH, valid range MIN..MAX)".
 */
const char *kmg_nl_errstr(const struct kmg_nl *nl, const struct nlmsghdr *req, int err,
			  const struct kmg_attr_set *root, char *buf, size_t len);

/* Join the family's "events" group. Returns 0 or a negative errno. */
int kmg_nl_join_events(struct kmg_nl *nl);

/*
 * Receive notifications and call @cb for each until @stop becomes non-zero (set it from a
 * signal handler; the signals in @sigmask are unblocked only while waiting). Returns 0 or a
 * negative errno. Lost notifications (ENOBUFS) are reported through @lost and do not stop.
 */
int kmg_nl_listen(struct kmg_nl *nl, mnl_cb_t cb, void *data, volatile sig_atomic_t *stop,
		  const sigset_t *sigmask, void (*lost)(void));

#endif
