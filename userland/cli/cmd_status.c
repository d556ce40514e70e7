// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev status" and "kmaglev reload", the client side of the daemon's control
 * socket (ctl.h): one JSON request line, one JSON reply line. status prints each backend's
 * configured, health and kernel state side by side with its checks' last results, a table in
 * the manner of "ipvsadm -L"; -j prints the reply itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "cli/cli.h"
#include "lib/err.h"
#include "daemon/ctl.h"
#include "daemon/daemon.h"

#define REPLY_MAX	(64u << 20)	/* bytes: a status of very many backends fits */

const char *kmg_daemon_socket(const char *opt)
{
	const char *env = getenv("KMAGLEV_SOCKET");

	if (opt)
		return opt;
	return env && *env ? env : KMD_SOCKET_DEFAULT;
}

/* Connect to @path: 0 with *@fdp, or an exit status with the error recorded. */
static int call_fd(const char *path, int timeout_ms, int *fdp)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = timeout_ms % 1000 * 1000 };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path) || !path[0])
		return kmg_err(KMG_EUSAGE, "socket path \"%s\" is empty or too long", path);
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return kmg_err(KMG_EFAIL, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv))) {
		kmg_err(KMG_EFAIL, "setsockopt: %s", strerror(errno));
		close(fd);
		return KMG_EFAIL;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		kmg_err(KMG_EFAIL, KMD_CTL_UNREACHABLE "%s: %s (is \"kmaglev daemon\" running?)",
			path, strerror(errno));
		close(fd);
		return KMG_EFAIL;
	}
	*fdp = fd;
	return 0;
}

/* Send @line, read one line back into *@out (NUL-terminated, newline removed). */
static int exchange(int fd, const char *path, const char *line, char **out)
{
	size_t len = 0, cap = 0, n = strlen(line), off = 0;
	char *buf = NULL, *p;

	while (off < n) {
		ssize_t w = send(fd, line + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return kmg_err(KMG_EFAIL, "sending to the daemon at %s: %s", path,
				       errno == EAGAIN ? "timed out" : strerror(errno));
		off += w;
	}
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			if (cap > REPLY_MAX) {
				free(buf);
				return kmg_err(KMG_EFAIL, "the daemon's reply is over %u bytes",
					       REPLY_MAX);
			}
			p = realloc(buf, cap);
			if (!p) {
				free(buf);
				return kmg_err(KMG_EFAIL, "out of memory");
			}
			buf = p;
		}
		r = recv(fd, buf + len, cap - len - 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return kmg_err(KMG_EFAIL, "no reply from the daemon at %s: %s", path,
				       errno == EAGAIN ? "timed out" : strerror(errno));
		}
		if (r == 0) {
			free(buf);
			return kmg_err(KMG_EFAIL, "the daemon at %s closed the connection without "
				       "a reply", path);
		}
		p = memchr(buf + len, '\n', r);
		len += r;
		if (p) {
			*p = '\0';
			*out = buf;
			return 0;
		}
	}
}

int kmg_daemon_call(const char *path, const char *cmd, int timeout_ms,
		    struct json_object **reply)
{
	struct json_object *req, *r = NULL, *ok, *err;
	enum json_tokener_error jerr;
	char *line = NULL, *text = NULL;
	int fd = -1, ret;

	*reply = NULL;
	req = json_object_new_object();
	if (!req || json_object_object_add(req, "cmd", json_object_new_string(cmd))) {
		json_object_put(req);
		return kmg_err(KMG_EFAIL, "out of memory");
	}
	ret = asprintf(&line, "%s\n", json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	if (ret < 0)
		return kmg_err(KMG_EFAIL, "out of memory");
	ret = call_fd(path, timeout_ms, &fd);
	if (ret) {
		free(line);
		return ret;
	}
	ret = exchange(fd, path, line, &text);
	close(fd);
	free(line);
	if (ret)
		return ret;
	r = json_tokener_parse_verbose(text, &jerr);
	free(text);
	if (!r || !json_object_is_type(r, json_type_object)) {
		json_object_put(r);
		return kmg_err(KMG_EFAIL, "the daemon's reply is not a JSON object%s%s",
			       r ? "" : ": ", r ? "" : json_tokener_error_desc(jerr));
	}
	if (!json_object_object_get_ex(r, "ok", &ok) || !json_object_get_boolean(ok)) {
		ret = json_object_object_get_ex(r, "error", &err) ?
		      kmg_err(KMG_EFAIL, "daemon: %s", json_object_get_string(err)) :
		      kmg_err(KMG_EFAIL, "daemon: the request failed, with no reason given");
		json_object_put(r);
		return ret;
	}
	*reply = r;
	return 0;
}

/* --- the status table ------------------------------------------------------------------- */

enum { C_BACKEND, C_CONF, C_HEALTH, C_KERNEL, C_CHECK, C_RESULT, C_LATENCY, NCOL };

static const char *const heads[NCOL] = {
	"BACKEND", "CONFIGURED", "HEALTH", "KERNEL", "CHECK", "RESULT", "LATENCY",
};

static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *jstr(struct json_object *o, const char *key, const char *def)
{
	struct json_object *v = jget(o, key);

	return v && !json_object_is_type(v, json_type_null) ? json_object_get_string(v) : def;
}

static size_t jlen(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

static struct json_object *jidx(struct json_object *o, const char *key, size_t i)
{
	return json_object_array_get_idx(jget(o, key), i);
}

/* "WEIGHT STATE" of a configured or kernel object; "-" when absent (null). */
static void weight_state(struct json_object *o, char *buf, size_t len)
{
	if (!o || json_object_is_type(o, json_type_null)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%s %s", jstr(o, "weight", "?"), jstr(o, "state", "?"));
}

/* The cells of row @k of backend @be: the backend's own on its first row, then check @k's. */
static void be_cells(struct json_object *be, size_t k, char cells[NCOL][128])
{
	struct json_object *chk = jidx(be, "checks", k), *lat, *util = jget(be, "utilization");

	memset(cells, 0, NCOL * sizeof(cells[0]));
	if (!k) {
		snprintf(cells[C_BACKEND], sizeof(cells[0]), "%s", jstr(be, "address", "?"));
		weight_state(jget(be, "configured"), cells[C_CONF], sizeof(cells[0]));
		/* an agent's util:N, smoothed, with the health */
		if (util && json_object_is_type(util, json_type_int))
			snprintf(cells[C_HEALTH], sizeof(cells[0]), "%s, util %d%%",
				 jstr(be, "health", "?"), json_object_get_int(util));
		else
			snprintf(cells[C_HEALTH], sizeof(cells[0]), "%s", jstr(be, "health", "?"));
		weight_state(jget(be, "kernel"), cells[C_KERNEL], sizeof(cells[0]));
	}
	if (!chk) {
		if (!k)
			snprintf(cells[C_CHECK], sizeof(cells[0]), "-");
		return;
	}
	snprintf(cells[C_CHECK], sizeof(cells[0]), "%s %s", jstr(chk, "name", "?"),
		 jstr(chk, "state", "?"));
	snprintf(cells[C_RESULT], sizeof(cells[0]), "%s", jstr(chk, "result", "-"));
	lat = jget(chk, "latency-ms");
	if (lat && !json_object_is_type(lat, json_type_null))
		snprintf(cells[C_LATENCY], sizeof(cells[0]), "%.2fms", json_object_get_double(lat));
	else
		snprintf(cells[C_LATENCY], sizeof(cells[0]), "-");
}

static void print_row(FILE *f, char cells[NCOL][128], const size_t *w)
{
	int c, last = NCOL - 1;

	while (last > 0 && !cells[last][0])
		last--;
	fputs("  ", f);
	for (c = 0; c <= last; c++)
		fprintf(f, "%-*s%s", c < last ? (int)w[c] : 0, cells[c], c < last ? "  " : "\n");
}

static void fmt_uptime(uint64_t s, char *buf, size_t len)
{
	size_t n = 0;

	if (s >= 86400)
		n += snprintf(buf + n, len - n, "%llud", (unsigned long long)(s / 86400));
	if (s >= 3600)
		n += snprintf(buf + n, len - n, "%lluh", (unsigned long long)(s / 3600 % 24));
	if (s >= 60)
		n += snprintf(buf + n, len - n, "%llum", (unsigned long long)(s / 60 % 60));
	snprintf(buf + n, len - n, "%llus", (unsigned long long)(s % 60));
}

void kmg_print_status(struct kmg_ctx *ctx, struct json_object *reply)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (ctx->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
		     JSON_C_TO_STRING_PLAIN);
	char cells[NCOL][128], up[48];
	size_t w[NCOL], i, b, k, nsvc = jlen(reply, "services");
	struct json_object *v;
	FILE *f = ctx->out;
	int pass, c;

	if (ctx->json) {
		fprintf(f, "%s\n", json_object_to_json_string_ext(reply, flags));
		return;
	}
	v = jget(reply, "uptime-s");
	fmt_uptime(v ? json_object_get_int64(v) : 0, up, sizeof(up));
	fprintf(f, "daemon config %s uptime %s%s\n", jstr(reply, "config", "-"), up,
		json_object_get_boolean(jget(reply, "draining")) ? " draining" : "");
	for (c = 0; c < NCOL; c++)
		w[c] = strlen(heads[c]);
	/* pass 0 measures the columns, pass 1 prints: each service, then its backends' table */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nsvc; i++) {
			struct json_object *s = jidx(reply, "services", i);
			size_t nbe = jlen(s, "backends");

			if (pass) {
				v = jget(s, "id");
				fprintf(f, "service %s", jstr(s, "service", "?"));
				if (v && json_object_get_int64(v))
					fprintf(f, " id %lld", (long long)json_object_get_int64(v));
				fprintf(f, " %s%s\n", json_object_get_boolean(jget(s, "healthy")) ?
					"healthy" : "unhealthy",
					strcmp(jstr(s, "overload", "off"), "on") ? "" :
					" overloaded");
				if (nbe) {
					for (c = 0; c < NCOL; c++)
						snprintf(cells[c], sizeof(cells[c]), "%s", heads[c]);
					print_row(f, cells, w);
				}
			}
			for (b = 0; b < nbe; b++) {
				struct json_object *be = jidx(s, "backends", b);
				size_t nchk = jlen(be, "checks");

				for (k = 0; k < (nchk ? nchk : 1); k++) {
					be_cells(be, k, cells);
					if (pass) {
						print_row(f, cells, w);
						continue;
					}
					for (c = 0; c < NCOL; c++)
						if (strlen(cells[c]) > w[c])
							w[c] = strlen(cells[c]);
				}
			}
		}
	}
}

/* --- the commands ------------------------------------------------------------------------ */

void kmg_usage_status(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev status [-j] [-p] [-s SOCKET]\n"
		"The daemon's view of each service: every backend's configured weight and state,\n"
		"its health, what the kernel has, and the last result and latency of each check.\n"
		"A service is healthy or unhealthy (its quorum), and overloaded while its\n"
		"backends' utilization has the daemon shed its new flows (shed-above).\n"
		"  -j, -p     the daemon's JSON reply (plain or pretty)\n"
		"  -s SOCKET  the control socket (default $KMAGLEV_SOCKET, else "
		KMD_SOCKET_DEFAULT ")\n");
}

void kmg_usage_reload(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev reload [-j] [-p] [-s SOCKET]\n"
		"Make the daemon read its configuration file again and apply it (as SIGHUP does).\n"
		"An invalid file changes nothing; the daemon's reason is printed.\n"
		"  -j, -p     the daemon's JSON reply (plain or pretty)\n"
		"  -s SOCKET  the control socket (default $KMAGLEV_SOCKET, else "
		KMD_SOCKET_DEFAULT ")\n");
}

/* [-j] [-p] [-s SOCKET] after the command word, into a copy of @ctx. */
static int parse_opts(const char *what, int argc, char **argv, struct kmg_ctx *ctx,
		      const char **path)
{
	int i;

	*path = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			ctx->json = true;
		} else if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty")) {
			ctx->json = true;
			ctx->pretty = true;
		} else if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--socket")) {
			if (++i == argc)
				return kmg_err(KMG_EUSAGE, "%s: \"-s\" needs a SOCKET", what);
			*path = argv[i];
		} else {
			return kmg_err(KMG_EUSAGE, "%s: unexpected \"%s\"; try \"kmaglev %s help\"",
				       what, argv[i], what);
		}
	}
	return 0;
}

/*
 * A control-socket command: [-j] [-p] [-s SOCKET] after it, one request @cmd, the reply
 * to @print (NULL: quiet).
 */
static int ctl_command(struct kmg_ctx *ctx, int argc, char **argv, const char *cmd,
		       void (*print)(struct kmg_ctx *ctx, struct json_object *reply))
{
	struct kmg_ctx c = *ctx;
	struct json_object *reply;
	const char *path;
	int ret;

	ret = parse_opts(cmd, argc, argv, &c, &path);
	if (ret)
		return ret;
	ret = kmg_daemon_call(kmg_daemon_socket(path), cmd, KMD_CTL_TIMEOUT_MS, &reply);
	if (ret)
		return ret;
	if (print)
		print(&c, reply);
	json_object_put(reply);
	return 0;
}

/* The reply itself, as JSON. */
static void print_json(struct kmg_ctx *c, struct json_object *reply)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		    (c->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
		     JSON_C_TO_STRING_PLAIN);

	fprintf(c->out, "%s\n", json_object_to_json_string_ext(reply, flags));
}

int kmg_cmd_status(struct kmg_ctx *ctx, int argc, char **argv)
{
	return ctl_command(ctx, argc, argv, "status", kmg_print_status);
}

/* text: quiet on success, as "kill -HUP" is, but for what the daemon has to say */
static void print_reload(struct kmg_ctx *c, struct json_object *reply)
{
	if (c->json)
		print_json(c, reply);
	else if (jstr(reply, "message", NULL))
		fprintf(c->out, "%s\n", jstr(reply, "message", NULL));
}

int kmg_cmd_reload(struct kmg_ctx *ctx, int argc, char **argv)
{
	return ctl_command(ctx, argc, argv, "reload", print_reload);
}

/* --- kmaglev bgp show, kmaglev graceful-restart ----------------------------------------- */

void kmg_usage_bgp(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev bgp [show] [-j] [-p] [-s SOCKET]\n"
		"The daemon's announcements: mode, the host's self-check, each BGP neighbour's\n"
		"session (state, uptime, hold time, families, prefixes announced, last error) and\n"
		"each VIP, announced or withdrawn, and why.\n"
		"  -j, -p     the daemon's JSON reply (plain or pretty)\n"
		"  -s SOCKET  the control socket (default $KMAGLEV_SOCKET, else "
		KMD_SOCKET_DEFAULT ")\n");
}

void kmg_usage_graceful_restart(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev graceful-restart [-s SOCKET]\n"
		"Make the daemon exit at once, without lame duck: the kernel keeps forwarding, BGP\n"
		"neighbours that agreed to graceful restart keep its routes for\n"
		"bgp.graceful-restart-time, and mode routes leaves its routes in place, until the\n"
		"next daemon (started by systemd, say) takes over. SIGTERM is the planned stop.\n");
}

static double jdbl(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v ? json_object_get_double(v) : 0;
}

/* A neighbour's BFD line, under it: configured, then the session, then the peer's side. */
static void print_bfd(FILE *f, struct json_object *b)
{
	fprintf(f, "  bfd min-tx %gms min-rx %gms multiplier %s", jdbl(b, "min-tx-ms"),
		jdbl(b, "min-rx-ms"), jstr(b, "multiplier", "?"));
	if (jstr(b, "error", NULL))
		fprintf(f, " error \"%s\"", jstr(b, "error", ""));
	if (!jstr(b, "state", NULL)) {
		fputc('\n', f);
		return;
	}
	fprintf(f, " state %s", jstr(b, "state", "?"));
	if (strcmp(jstr(b, "diagnostic", "none"), "none"))
		fprintf(f, " (%s)", jstr(b, "diagnostic", ""));
	fprintf(f, " for %.0fs discriminators %s/%s tx %gms detect %gms%s\n", jdbl(b, "state-s"),
		jstr(b, "local-discriminator", "?"), jstr(b, "remote-discriminator", "?"),
		jdbl(b, "tx-interval-ms"), jdbl(b, "detect-time-ms"),
		json_object_get_boolean(jget(b, "polling")) ? " polling" : "");
	fprintf(f, "    remote state %s", jstr(b, "remote-state", "?"));
	if (strcmp(jstr(b, "remote-diagnostic", "none"), "none"))
		fprintf(f, " (%s)", jstr(b, "remote-diagnostic", ""));
	fprintf(f, " min-tx %gms min-rx %gms multiplier %s packets in %s out %s",
		jdbl(b, "remote-min-tx-ms"), jdbl(b, "remote-min-rx-ms"),
		jstr(b, "remote-multiplier", "?"), jstr(b, "packets-in", "0"),
		jstr(b, "packets-out", "0"));
	if (jstr(b, "send-error", NULL))
		fprintf(f, " send-error \"%s\"", jstr(b, "send-error", ""));
	fputc('\n', f);
}

static void print_bgp(struct kmg_ctx *ctx, struct json_object *r)
{
	FILE *f = ctx->out;
	struct json_object *v;
	char up[48];
	size_t i, k;

	if (json_object_is_type(jget(r, "mode"), json_type_null) || !jget(r, "mode")) {
		fprintf(f, "bgp off (no bgp: in the configuration)\n");
		return;
	}
	fprintf(f, "bgp mode %s", jstr(r, "mode", "?"));
	if (!strcmp(jstr(r, "mode", ""), "builtin"))
		fprintf(f, " asn %s router-id %s%s", jstr(r, "asn", "?"), jstr(r, "router-id", "?"),
			json_object_get_boolean(jget(r, "graceful-shutdown")) ?
			" graceful-shutdown" : "");
	else
		fprintf(f, " table %s protocol %s", jstr(r, "table", "?"), jstr(r, "protocol", "?"));
	if (json_object_get_boolean(jget(r, "host-healthy")))
		fprintf(f, " host healthy");
	else
		fprintf(f, " host unhealthy (%s)", jstr(r, "host-why", "?"));
	fprintf(f, "%s\n", json_object_get_boolean(jget(r, "lame-duck")) ? " lame-duck" : "");
	if (jstr(r, "error", NULL))
		fprintf(f, "  error %s\n", jstr(r, "error", ""));
	for (i = 0; i < jlen(r, "peers"); i++) {
		struct json_object *p = jidx(r, "peers", i), *fam = jget(p, "families");

		fprintf(f, "neighbor %s asn %s state %s", jstr(p, "address", "?"),
			jstr(p, "asn", "?"), jstr(p, "state", "?"));
		if (!strcmp(jstr(p, "state", ""), "Established")) {
			v = jget(p, "uptime-s");
			fmt_uptime(v ? (uint64_t)json_object_get_double(v) : 0, up, sizeof(up));
			fprintf(f, " up %s hold %ss families", up, jstr(p, "hold-time", "?"));
			for (k = 0; fam && k < json_object_array_length(fam); k++)
				fprintf(f, "%s%s", k ? "," : " ",
					json_object_get_string(json_object_array_get_idx(fam, k)));
			fprintf(f, " prefixes %s", jstr(p, "prefixes-announced", "0"));
		}
		if (json_object_get_boolean(jget(p, "ttl-security")))
			fputs(" ttl-security", f);
		if (jstr(p, "last-error", NULL))
			fprintf(f, " last-error \"%s\"", jstr(p, "last-error", ""));
		fputc('\n', f);
		if (jget(p, "bfd") && json_object_is_type(jget(p, "bfd"), json_type_object))
			print_bfd(f, jget(p, "bfd"));
	}
	for (i = 0; i < jlen(r, "prefixes"); i++) {
		struct json_object *p = jidx(r, "prefixes", i), *c = jget(p, "communities");
		struct json_object *lc = jget(p, "large-communities");
		bool on = json_object_get_boolean(jget(p, "announced"));

		fprintf(f, "prefix %s %s", jstr(p, "prefix", "?"), on ? "announced" : "withdrawn");
		for (k = 0; c && k < json_object_array_length(c); k++)
			fprintf(f, "%s%s", k ? "," : " communities ",
				json_object_get_string(json_object_array_get_idx(c, k)));
		for (k = 0; lc && k < json_object_array_length(lc); k++)
			fprintf(f, "%s%s", k ? "," : " large-communities ",
				json_object_get_string(json_object_array_get_idx(lc, k)));
		if (jstr(p, "med", NULL))
			fprintf(f, " med %s", jstr(p, "med", ""));
		/* a withdrawn prefix's reason starts with "withdrawn: " already */
		fprintf(f, " (%s)\n", on ? jstr(p, "why", "") :
			jstr(p, "why", "") + (strncmp(jstr(p, "why", ""), "withdrawn: ", 11) ? 0 : 11));
	}
}

static void print_bgp_reply(struct kmg_ctx *c, struct json_object *reply)
{
	json_object_object_del(reply, "ok");
	if (c->json)
		print_json(c, reply);
	else
		print_bgp(c, reply);
}

int kmg_cmd_bgp(struct kmg_ctx *ctx, int argc, char **argv)
{
	/* "show" is the only verb, and the default */
	if (argc > 1 && argv[1][0] && !strncmp("show", argv[1], strlen(argv[1]))) {
		argc--;
		argv++;
	}
	return ctl_command(ctx, argc, argv, "bgp", print_bgp_reply);
}

int kmg_cmd_graceful_restart(struct kmg_ctx *ctx, int argc, char **argv)
{
	return ctl_command(ctx, argc, argv, "graceful-restart", NULL);
}
