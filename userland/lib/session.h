/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev: a session with the kmaglev family, shared by the command and the daemon. The context
 * (output mode, the netlink socket, opened only when a command has parsed its arguments and is
 * about to talk to the kernel), and the helpers that send a request and collect its replies.
 */
#ifndef KMAGLEV_SESSION_H
#define KMAGLEV_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/msg.h"
#include "lib/nl.h"
#include "lib/writer.h"

struct kmg_ctx {
	bool json;
	bool pretty;
	bool secrets;			/* --show-secrets */
	FILE *out;
	struct kmg_nl nl;
	bool nl_open;
	bool batch;			/* running lines of a batch file */
	bool timestamp;			/* -t: monitor prints when each event arrived */
	unsigned int monitor;		/* monitor: KMG_MON_* objects to print (0: all) */
};

/* Open the kmaglev netlink family on first use. 0, or KMG_EFAIL with an error recorded. */
int kmg_ctx_nl(struct kmg_ctx *ctx);
void kmg_ctx_close(struct kmg_ctx *ctx);

/* Start a request of the family in @buf; kmg_ctx_talk() fills in family id and sequence. */
struct nlmsghdr *kmg_req_start(void *buf, uint8_t cmd, uint16_t flags);

/*
 * Open the family if needed, send @nlh and run @cb on each reply. On failure record the
 * kernel's message with the attribute path and return KMG_EFAIL; *errp (if not NULL) gets the
 * negative errno so that callers can tolerate some errors.
 */
int kmg_ctx_talk(struct kmg_ctx *ctx, struct nlmsghdr *nlh, mnl_cb_t cb, void *data, int *errp);

/* A writer for the command's output, text or JSON as the options say. */
void kmg_ctx_out(struct kmg_ctx *ctx, struct kmg_out *o);

/* Replies collected by kmg_collect_cb(). */
struct kmg_msgs {
	struct kmg_msg *m;
	unsigned int n;
};

int kmg_collect_cb(const struct nlmsghdr *nlh, void *data);
void kmg_msgs_free(struct kmg_msgs *l);
/* Keep the messages of genetlink command @a or @b, in order; free the others. */
void kmg_msgs_keep(struct kmg_msgs *l, uint8_t a, uint8_t b);

/*
 * kmaglev.ko lists at most this many backends in table and stats replies (its
 * KMG_NL_REPLY_BACKENDS); the backend dump has every one. A reply with this many may be cut.
 */
#define KMG_REPLY_BACKENDS_MAX	KMAGLEV_REPLY_BACKENDS_MAX

/* Every backend of service @s (by its key), from the backend dump, into a new array. */
int kmg_backends_of(struct kmg_ctx *ctx, const struct kmg_service *s, struct kmg_backend **be,
		    unsigned int *n);

/* A request buffer big enough for @s (may be NULL); NULL with an error recorded if no memory. */
void *kmg_req_buf(const struct kmg_service *s);

/* A config-get (@c NULL) or config-set request of @c in @buf, into *@nlhp. */
int kmg_config_req(void *buf, uint8_t cmd, const struct kmg_config *c, struct nlmsghdr **nlhp);
/* The netns' settings and counts (CONFIG_GET) into @c. 0 or KMG_EFAIL; *@errp as kmg_ctx_talk's. */
int kmg_config_get(struct kmg_ctx *ctx, struct kmg_config *c, int *errp);

/* A service request (@s NULL: a dump or a netns-wide get) of @cmd in @buf, into *@nlhp. */
int kmg_service_req(void *buf, uint8_t cmd, uint16_t flags, const struct kmg_service *s,
		    struct nlmsghdr **nlhp);
/* Put each backend of @bl under its service in @sl. */
void kmg_attach_backends(struct kmg_msgs *sl, const struct kmg_msgs *bl);
/* Service @key (NULL: every service) with its backends, appended to @sl. */
int kmg_services_get(struct kmg_ctx *ctx, const struct kmg_service *key, struct kmg_msgs *sl);
/*
 * "kmaglev stats" without a service: the netns-wide counters (a message without a service,
 * where the kernel has them), then every service with its backends' counters (a service cut
 * over several messages folded into one), into @l (empty). 0 or KMG_EFAIL.
 */
int kmg_stats_dump(struct kmg_ctx *ctx, struct kmg_msgs *l);

/*
 * The quota table, as "kmaglev quota show" and the daemon's metrics read it: buckets in the
 * order of kmg_quota_cmp(). With a @limit only the first @limit are kept as the dump goes by
 * (a heap of them), so memory stays bounded by @limit however big the table is; @total counts
 * every bucket the dump had.
 */
struct kmg_quotas {
	struct kmg_quota *q;
	unsigned int n;
	unsigned int limit;		/* 0: keep every bucket */
	uint64_t total;
};

/*
 * The order of "quota show": most rejected first, then most accepted, then by prefix (IPv4
 * before IPv6, by address, shorter first) and service id. <0, 0 or >0, as for qsort().
 */
int kmg_quota_cmp(const struct kmg_quota *a, const struct kmg_quota *b);
/* Take bucket @q into @qs (kept if it is among the first @limit so far). 0 or -ENOMEM. */
int kmg_quotas_add(struct kmg_quotas *qs, const struct kmg_quota *q);
/* Put the buckets of @qs in order, once all are added. */
void kmg_quotas_sort(struct kmg_quotas *qs);
void kmg_quotas_free(struct kmg_quotas *qs);
/* A mnl_cb_t for the QUOTA_GET dump: each message's bucket into @data, a struct kmg_quotas. */
int kmg_quota_cb(const struct nlmsghdr *nlh, void *data);
/*
 * The QUOTA_GET dump into @qs (empty; its @limit set by the caller), sorted. 0 or KMG_EFAIL;
 * *@errp (if not NULL) the negative errno, as kmg_ctx_talk() gives it.
 */
int kmg_quota_dump(struct kmg_ctx *ctx, struct kmg_quotas *qs, int *errp);

#endif
