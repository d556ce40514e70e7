/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev CLI: what every command shares. Dispatch of "OBJECT COMMAND ARGS" to the object's
 * handler, and the handlers; the context and the request helpers are lib/session.h's.
 */
#ifndef KMAGLEV_CLI_H
#define KMAGLEV_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/session.h"
#include "lib/show.h"
#include "cli/simulate.h"
#include "daemon/entry.h"

#ifndef KMAGLEV_VERSION
#define KMAGLEV_VERSION "0.1"
#endif


/* Run one command: argv[0] is the object ("service", "backend", ...). Returns an exit status. */
int kmg_run(struct kmg_ctx *ctx, int argc, char **argv);
void kmg_usage(FILE *f);

/* Objects: argv[0] is the command word (may be absent). */
int kmg_cmd_service(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_backend(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_stats(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_table(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_monitor(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_config(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_quota(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_simulate(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_save(struct kmg_ctx *ctx, int argc, char **argv);
/* "kmaglev import keepalived|ipvsadm ..." (cmd_import.c; the readers: import.h) */
int kmg_cmd_import(struct kmg_ctx *ctx, int argc, char **argv);
/* The daemon's control socket, the client side: "kmaglev status", "reload"... (cmd_status.c) */
/*
 * The socket to talk to: @opt (-s PATH) if given, else $KMAGLEV_SOCKET if set and not empty,
 * else KMD_SOCKET_DEFAULT.
 */
const char *kmg_daemon_socket(const char *opt);
/*
 * Send {"cmd": @cmd} to the daemon at @path and wait up to @timeout_ms for the reply line.
 * 0 with *@reply set (its "ok" true), or KMG_EFAIL with the error recorded: the daemon's own
 * message for an "ok": false reply, KMD_CTL_UNREACHABLE... when nothing listens.
 */
int kmg_daemon_call(const char *path, const char *cmd, int timeout_ms,
		    struct json_object **reply);
/*
 * A status reply (daemon.h) as text: the daemon, then each service with its backends, one row
 * per check, configured and kernel state side by side. With ctx->json the reply itself.
 */
void kmg_print_status(struct kmg_ctx *ctx, struct json_object *reply);

int kmg_cmd_status(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_bgp(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_graceful_restart(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_cmd_reload(struct kmg_ctx *ctx, int argc, char **argv);

void kmg_usage_service(FILE *f);
void kmg_usage_backend(FILE *f);
void kmg_usage_stats(FILE *f);
void kmg_usage_table(FILE *f);
void kmg_usage_monitor(FILE *f);
void kmg_usage_config(FILE *f);
void kmg_usage_quota(FILE *f);
void kmg_usage_simulate(FILE *f);
void kmg_usage_save(FILE *f);
void kmg_usage_import(FILE *f);
void kmg_usage_status(FILE *f);
void kmg_usage_bgp(FILE *f);
void kmg_usage_graceful_restart(FILE *f);
void kmg_usage_reload(FILE *f);

/*
 * Parsers, request builders and printers of the commands, for the unit tests. Parsers fill
 * their output from argv (after the command word) and return 0 or KMG_EUSAGE with an error
 * recorded; builders write a request into a buffer from kmg_req_buf().
 */
int kmg_service_parse(int argc, char **argv, bool is_set, struct kmg_service *s);
int kmg_service_parse_key(int argc, char **argv, bool need, const char *where,
			  struct kmg_service *s, bool *given);
/* After a failed request: did the kernel refuse the top-level backends of a big one? */
void kmg_service_big_hint(const struct kmg_nl *nl, const struct nlmsghdr *nlh,
			  const struct kmg_service *s);
void kmg_print_services(struct kmg_ctx *ctx, const struct kmg_msgs *sl);

enum { KMG_BE_ADD, KMG_BE_SET, KMG_BE_DEL, KMG_BE_SHOW, KMG_BE_DRAIN, KMG_BE_LIST };
int kmg_backend_parse(int op, int argc, char **argv, struct kmg_service *s,
		      struct kmg_backend *b);
int kmg_backend_req(void *buf, uint8_t cmd, uint16_t flags, const struct kmg_service *s,
		    const struct kmg_backend *b, struct nlmsghdr **nlhp);
void kmg_print_backends(struct kmg_ctx *ctx, const struct kmg_msgs *bl);

void kmg_print_stats_msgs(struct kmg_ctx *ctx, const struct kmg_msgs *l);
void kmg_print_tables(struct kmg_ctx *ctx, const struct kmg_msgs *l, bool single);
enum { KMG_MON_SERVICE = 1, KMG_MON_BACKEND = 2, KMG_MON_TABLE = 4 };
/* Parse "monitor [all|service|backend|table]..." into ctx->monitor. */
int kmg_monitor_parse(struct kmg_ctx *ctx, int argc, char **argv);
int kmg_monitor_event(struct kmg_ctx *ctx, const struct nlmsghdr *nlh);

int kmg_config_parse(int argc, char **argv, struct kmg_config *c);

/* "quota show [top N]": argv after the command word; *@top 0 when not given. */
int kmg_quota_parse(int argc, char **argv, unsigned int *top);
/* The buckets of @qs (sorted), services named from the service dump @sl (may be NULL). */
void kmg_print_quotas(struct kmg_ctx *ctx, const struct kmg_quotas *qs, const struct kmg_msgs *sl);

/* The commands that make configuration @c (may be NULL) and services @sl (with backends). */
void kmg_save(FILE *f, const struct kmg_config *c, const struct kmg_msgs *sl);

struct kmg_sim_args {
	bool live;
	struct kmg_service svc;		/* live: the service */
	bool has_seed;
	uint8_t seed[KMG_SEED_BYTES];
	bool then;
	struct kmg_sim_set initial;	/* offline: table size, seed and backends */
	struct kmg_sim_change *ch;
	unsigned int nch;
};

struct kmg_sim_info {
	const struct kmg_service *svc;	/* live mode */
	const char *seed_source;	/* "given", "kernel" or "zero" */
	bool has_kernel_digest, digest_match;
	uint64_t kernel_digest;
	uint32_t kernel_gen;
	const char *mismatch_hint;
};

int kmg_simulate_parse(int argc, char **argv, struct kmg_sim_args *sa);
void kmg_sim_args_free(struct kmg_sim_args *sa);
int kmg_simulate_offline(const struct kmg_sim_args *sa, struct kmg_sim_result *r);
/* Live mode from the kernel's replies: SERVICE_GET, BACKEND_GET dump, TABLE_GET. */
int kmg_simulate_live(const struct kmg_sim_args *sa, const struct kmg_service *s,
		      const struct kmg_msgs *bl, const struct kmg_table *t,
		      struct kmg_sim_info *info, struct kmg_sim_result *r);
/* The report: the service, the kernel's digest, both tables, each backend before and after. */
void kmg_sim_out(struct kmg_out *o, const struct kmg_sim_info *info,
		 const struct kmg_sim_result *r);

/* Split a batch line into words in place; *argv is allocated. Returns the count or -1. */
int kmg_split_line(char *line, char ***argv);

/* Batch mode: run every command of @path ("-" for stdin). Returns an exit status. */
int kmg_batch(struct kmg_ctx *ctx, const char *path);

#endif
