// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: `kmaglev daemon`. Options, start-up (config, adopting the kernel's state,
 * first reconcile, metrics, control socket, sd_notify READY), signals (SIGHUP reloads,
 * SIGTERM is lame duck), reload, and `--check` / `--flush`.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/entry.h"
#include "lib/err.h"
#include "daemon/announce.h"
#include "daemon/ctl.h"
#include "lib/log.h"
#include "daemon/metrics.h"
#include "daemon/reconcile.h"
#include "daemon/state.h"
#include "daemon/sync.h"
#include "daemon/health/checks/checks.h"

/* Load @path, logging every error. NULL when it does not load. */
static struct kmd_config *load(const char *path, char **errs)
{
	struct kmd_config *cfg = NULL;
	size_t len = 0;
	FILE *f;

	*errs = NULL;
	f = open_memstream(errs, &len);
	if (!f)
		return NULL;
	if (kmd_config_load(path, &cfg, f))
		cfg = NULL;
	fclose(f);
	return cfg;
}

static void log_lines(int prio, const char *text)
{
	const char *p = text, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		kmd_log(prio, "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	}
}

/* Tunnel checks need the probe marks: the config must set them, or the kernel have them. */
static int check_marks(const struct kmd *d, const struct kmd_config *cfg, char **why)
{
	bool cfg_marks = KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_PROBE_MARK_MAX) &&
			 cfg->kcfg.probe_mark_max;
	int i;

	if (cfg_marks || d->probe_mark_max)
		return 0;
	i = kmd_config_first_tunnel(cfg);
	if (i < 0)
		return 0;
	if (asprintf(why, "%s: services[%u]: tunnel checks need config.probe-mark-min and "
		     "probe-mark-max (or use via: direct)", cfg->path, (unsigned int)i) < 0)
		*why = NULL;
	return -EINVAL;
}

/*
 * Put @cfg in force: build its state (carrying over what the running one knows), bind probes,
 * reconcile. On failure the running config stays.
 */
static int apply_config(struct kmd *d, struct kmd_config *cfg, char **why)
{
	struct kmg_msgs kernel = { 0 };
	struct kmg_config kcfg;
	struct kmd_svc *sv;
	unsigned int n;
	int ret;

	*why = NULL;
	ret = kmd_kernel_read(d, &kernel, &kcfg);
	if (ret) {
		kmg_msgs_free(&kernel);
		if (asprintf(why, "reading the kernel: %s", kmg_errmsg()) < 0)
			*why = NULL;
		return ret;
	}
	ret = check_marks(d, cfg, why);
	if (!ret)
		ret = kmd_state_build(d, cfg, &kernel, d->svc, d->nsvc, &sv, &n);
	kmg_msgs_free(&kernel);
	if (ret) {
		if (!*why && asprintf(why, "%s", strerror(-ret)) < 0)
			*why = NULL;
		return ret;
	}
	/* new probes first, then drop the old: probes both use keep running */
	ret = kmd_state_bind(d, sv, n);
	if (ret) {
		kmd_state_free(sv, n);
		if (asprintf(why, "starting health checks: %s", strerror(-ret)) < 0)
			*why = NULL;
		return ret;
	}
	kmd_state_free(d->svc, d->nsvc);
	kmd_config_free(d->cfg);
	d->svc = sv;
	d->nsvc = n;
	d->cfg = cfg;
	kmd_reconcile(d);
	return 0;
}

/*
 * SIGHUP and "kmaglev reload": load the file again and put it in force, or keep the running
 * config and say why (*@why, malloc'ed). systemd hears RELOADING=1, then READY=1 either way.
 */
int kmd_reload(struct kmd *d, char **why)
{
	struct kmd_config *cfg;
	char *errs;
	int ret;

	kmd_info("reloading %s", d->cfg_path);
	sd_notify(0, "RELOADING=1");
	cfg = load(d->cfg_path, &errs);
	if (!cfg) {
		d->n.reload_failures++;
		log_lines(LOG_ERR, errs);
		kmd_err("reload failed: %s is invalid; the running config stays", d->cfg_path);
		*why = errs;
		sd_notify(0, "READY=1");
		return -EINVAL;
	}
	free(errs);
	if (strcmp(cfg->daemon.socket, d->cfg->daemon.socket) ||
	    cfg->daemon.metrics_port != d->cfg->daemon.metrics_port ||
	    kmg_addr_cmp(&cfg->daemon.metrics_addr, &d->cfg->daemon.metrics_addr))
		kmd_warn("daemon.socket and daemon.metrics take effect at the next start");
	if (strcmp(cfg->daemon.owner, d->cfg->daemon.owner))
		kmd_warn("daemon.owner changed: services stamped \"%s\" are no longer ours",
			 d->cfg->daemon.owner);
	ret = apply_config(d, cfg, why);
	if (ret) {
		d->n.reload_failures++;
		kmd_config_free(cfg);
		kmd_err("reload failed: %s; the running config stays", *why ? *why : "error");
		sd_notify(0, "READY=1");
		return ret;
	}
	if (kmd_bgp_reconfigure(d, why)) {
		kmd_err("reload: %s", *why ? *why : "bgp failed");
		d->n.reload_failures++;
		sd_notify(0, "READY=1");
		return -EIO;
	}
	d->n.reloads++;
	kmd_info("reloaded %s: %u services", d->cfg_path, d->nsvc);
	sd_notify(0, "READY=1");
	return 0;
}

/* Control socket commands. */

static struct json_object *ctl_status(struct kmd *d, struct json_object *req, char **err)
{
	struct json_object *o = kmd_status_json(d);

	json_object_object_del(o, "ok");
	return o;
}

static struct json_object *ctl_reload(struct kmd *d, struct json_object *req, char **err)
{
	char *why = NULL;

	if (kmd_reload(d, &why)) {
		*err = why ? why : strdup("reload failed");
		return NULL;
	}
	free(why);
	return json_object_new_object();
}

static struct json_object *ctl_bgp(struct kmd *d, struct json_object *req, char **err)
{
	return kmd_bgp_json(d);
}

/* Exit now, leaving the kernel's state and the announcements to the next daemon. */
static struct json_object *ctl_graceful_restart(struct kmd *d, struct json_object *req,
						char **err)
{
	kmd_info("graceful restart: exiting; the kernel forwards and BGP peers keep our routes");
	d->graceful_restart = true;
	d->exit_code = KMD_EXIT_RESTART;
	ev_break(d->loop, EVBREAK_ALL);
	return json_object_new_object();
}

static const struct kmd_ctl_cmd ctl_cmds[] = {
	{ "status", ctl_status },
	{ "reload", ctl_reload },
	{ "bgp", ctl_bgp },
	{ "graceful-restart", ctl_graceful_restart },
};

static void sighup_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct kmd *d = w->data;
	char *why = NULL;

	kmd_reload(d, &why);
	free(why);
}

static void drain_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	kmd_info("lame duck over: exiting; the kernel keeps forwarding with the last state");
	ev_break(loop, EVBREAK_ALL);
}

/*
 * SIGTERM: lame duck. Say so (the BGP speaker withdraws its routes here), keep checking and
 * reconciling for drain-time, then exit. The kernel forwards throughout and after.
 */
static void sigterm_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	struct kmd *d = w->data;
	double t = d->cfg->daemon.drain_time_ms / 1000.;

	if (d->draining || w->signum == SIGINT) {
		kmd_info("%s: exiting now", strsignal(w->signum));
		ev_break(loop, EVBREAK_ALL);
		return;
	}
	d->draining = true;
	d->drain_until = ev_now(loop) + t;
	/* first: routers move new flows away while this host still forwards */
	kmd_bgp_lame_duck(d);
	sd_notifyf(0, "STOPPING=1\nSTATUS=lame duck for %.1fs", t);
	kmd_info("SIGTERM: lame duck for %.1fs (health checks go on), then exit", t);
	ev_timer_init(&d->drain_w, drain_cb, t, 0.);
	d->drain_w.data = d;
	ev_timer_start(loop, &d->drain_w);
}

static void resync_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kmd *d = w->data;

	ev_timer_stop(loop, w);
	ev_timer_set(w, KMD_RESYNC_S, KMD_RESYNC_S);
	ev_timer_start(loop, w);
	kmd_reconcile(d);
}

static void watchdog_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	sd_notify(0, "WATCHDOG=1");
}

static int flush_owned(struct kmd *d, const char *owner)
{
	struct kmg_msgs kernel = { 0 };
	struct kmg_config kcfg;
	struct kmd_plan plan = { 0 };
	unsigned int i, n = 0;
	int ret;

	ret = kmd_kernel_read(d, &kernel, &kcfg);
	if (ret) {
		kmg_msgs_free(&kernel);
		return KMG_EFAIL;
	}
	/* the plan for an empty config deletes exactly what carries our stamp */
	ret = kmd_plan(NULL, 0, NULL, NULL, &kernel, NULL, owner, &plan);
	kmg_msgs_free(&kernel);
	if (ret)
		return kmg_err(KMG_EFAIL, "out of memory");
	for (i = 0; i < plan.n; i++) {
		if (kmd_send_op(d, &plan.ops[i])) {
			ret = KMG_EFAIL;
			break;
		}
		n++;
	}
	kmd_plan_free(&plan);
	if (ret)
		return ret;
	fprintf(stderr, "kmaglev: deleted %u services owned by \"%s\"\n", n, owner);
	return 0;
}

static bool owned_in_kernel(struct kmd *d, const char *owner)
{
	struct kmg_msgs kernel = { 0 };
	struct kmg_config kcfg;
	bool found = false;
	unsigned int i;

	if (!kmd_kernel_read(d, &kernel, &kcfg))
		for (i = 0; i < kernel.n && !found; i++)
			found = KMG_HAS(&kernel.m[i], KMAGLEV_A_SERVICE) &&
				kmd_owned(&kernel.m[i].svc, owner);
	kmg_msgs_free(&kernel);
	return found;
}

static int run(struct kmd *d)
{
	static const int sigs[] = { SIGHUP, SIGTERM, SIGINT };
	struct kmd_config *cfg;
	bool restarting = false;
	uint64_t wd_usec;
	char *why = NULL;
	unsigned int i;
	int ret;

	cfg = load(d->cfg_path, &why);
	if (!cfg) {
		log_lines(LOG_ERR, why);
		free(why);
		return kmg_err(KMG_EFAIL, "%s is invalid; not starting", d->cfg_path);
	}
	free(why);
	signal(SIGPIPE, SIG_IGN);
	d->loop = ev_default_loop(EVFLAG_AUTO);
	d->started = ev_time();
	d->hc = kmd_hc_new(d->loop, kmd_check_kinds);
	if (!d->hc) {
		kmd_config_free(cfg);
		return kmg_err(KMG_EFAIL, "cannot start the health checker");
	}
	ret = kmg_ctx_nl(&d->ctx);
	if (ret) {
		kmd_config_free(cfg);
		return ret;
	}
	d->portid = mnl_socket_get_portid(d->ctx.nl.sk);
	ret = kmd_events_start(d);
	if (ret)
		kmd_warn("cannot watch the events group (%s): hand changes are seen every %.0fs",
			 strerror(-ret), KMD_RESYNC_S);
	ev_init(&d->resync_w, resync_cb);
	d->resync_w.data = d;
	ev_timer_set(&d->resync_w, KMD_RESYNC_S, KMD_RESYNC_S);
	ev_timer_start(d->loop, &d->resync_w);

	/*
	 * The control socket first: it is also the lock that keeps a second daemon (another
	 * config, say) from touching the kernel at all.
	 */
	ret = kmd_ctl_start(d, cfg->daemon.socket, ctl_cmds, KMG_ARRAY_SIZE(ctl_cmds));
	if (ret) {
		ret = kmg_err(KMG_EFAIL, "control socket %s: %s%s", cfg->daemon.socket,
			      strerror(-ret), ret == -EADDRINUSE ? " (is a daemon running?)" : "");
		kmd_config_free(cfg);
		return ret;
	}
	/*
	 * Services of ours already in the kernel: the daemon restarted (BGP graceful restart;
	 * the kernel kept forwarding).
	 */
	restarting = owned_in_kernel(d, cfg->daemon.owner);
	/* the kernel's current states become the starting health: nothing flaps */
	ret = apply_config(d, cfg, &why);
	if (ret) {
		kmd_ctl_stop(d);
		kmd_config_free(cfg);
		ret = kmg_err(KMG_EFAIL, "%s", why ? why : "cannot apply the config");
		free(why);
		return ret;
	}
	if (kmd_bgp_start(d, restarting, &why)) {
		ret = kmg_err(KMG_EFAIL, "%s", why ? why : "bgp failed to start");
		free(why);
		kmd_ctl_stop(d);
		return ret;
	}
	if (d->cfg->daemon.metrics_port) {
		ret = kmd_metrics_start(d);
		if (ret)
			return kmg_err(KMG_EFAIL, "metrics on port %u: %s",
				       d->cfg->daemon.metrics_port, strerror(-ret));
	}
	for (i = 0; i < KMG_ARRAY_SIZE(sigs); i++) {
		ev_signal_init(&d->sig_w[i], sigs[i] == SIGHUP ? sighup_cb : sigterm_cb, sigs[i]);
		d->sig_w[i].data = d;
		ev_signal_start(d->loop, &d->sig_w[i]);
	}
	if (sd_watchdog_enabled(0, &wd_usec) > 0) {
		ev_timer_init(&d->watchdog_w, watchdog_cb, 0., wd_usec / 2e6);
		ev_timer_start(d->loop, &d->watchdog_w);
	}
	kmd_info("running %s: %u services; control socket %s", d->cfg_path, d->nsvc,
		 d->cfg->daemon.socket);
	sd_notifyf(0, "READY=1\nSTATUS=%u services", d->nsvc);

	ev_run(d->loop, 0);

	kmd_bgp_stop(d, d->graceful_restart);
	kmd_metrics_stop(d);
	kmd_ctl_stop(d);
	kmd_events_stop(d);
	kmd_state_free(d->svc, d->nsvc);
	kmd_hc_free(d->hc);
	kmd_config_free(d->cfg);
	return d->exit_code;
}

int kmg_cmd_daemon(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'k' },
		{ "flush", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char default_path[] = KMD_CONFIG_DEFAULT;
	struct kmd d = { .cfg_path = default_path, .state_changed = kmd_reconcile_soon };
	bool check = false, flush = false;
	struct kmd_config *cfg;
	char *errs;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.cfg_path = optarg;
			break;
		case 'k':
			check = true;
			break;
		case 'F':
			flush = true;
			break;
		case 'h':
			kmg_usage_daemon(stdout);
			return 0;
		default:
			return kmg_err(KMG_EUSAGE, "daemon: unknown option \"%s\"",
				       argv[optind - 1]);
		}
	}
	if (check && optind < argc)
		d.cfg_path = argv[optind++];
	if (optind < argc)
		return kmg_err(KMG_EUSAGE, "daemon: unexpected \"%s\"", argv[optind]);
	if (check && flush)
		return kmg_err(KMG_EUSAGE, "daemon: --check and --flush do not go together");
	if (d.cfg_path == default_path && getenv("KMAGLEV_CONFIG") && *getenv("KMAGLEV_CONFIG"))
		d.cfg_path = getenv("KMAGLEV_CONFIG");
	/* a file that cannot be read is no config (--flush without one uses the default owner) */
	if (!flush && access(d.cfg_path, R_OK))
		return kmg_err(KMG_EFAIL, KMD_NO_CONFIG "%s: %s", d.cfg_path, strerror(errno));
	d.ctx = *ctx;
	d.ctx.json = false;

	if (check) {
		cfg = load(d.cfg_path, &errs);
		if (!cfg) {
			if (errs)
				fputs(errs, stderr);
			free(errs);
			return KMG_EFAIL;
		}
		free(errs);
		printf("%s: ok (%u services)\n", d.cfg_path, cfg->nservices);
		kmd_config_free(cfg);
		return 0;
	}
	if (flush) {
		const char *owner = "kmaglev-daemon";

		/* without a config file, the default owner; with a bad one, nothing */
		cfg = NULL;
		if (access(d.cfg_path, F_OK) == 0) {
			cfg = load(d.cfg_path, &errs);
			if (!cfg) {
				if (errs)
					fputs(errs, stderr);
				free(errs);
				return kmg_err(KMG_EFAIL, "%s is invalid: not flushing", d.cfg_path);
			}
			free(errs);
			owner = cfg->daemon.owner;
		}
		ret = flush_owned(&d, owner);
		kmd_config_free(cfg);
		kmg_ctx_close(&d.ctx);
		return ret;
	}
	ret = run(&d);
	if (ret == KMD_EXIT_RESTART)
		kmg_err_clear();	/* no error: systemd restarts us */
	kmg_ctx_close(&d.ctx);
	return ret;
}
