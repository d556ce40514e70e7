// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: command context, dispatch and request helpers (see cli.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"
#include "lib/schema.h"

void kmg_usage(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev [OPTIONS] OBJECT [COMMAND [ARGUMENTS]]\n"
		"       kmaglev [OPTIONS] -b FILE\n"
		"\n"
		"Options:\n"
		"  -j, --json         JSON output; with -b one JSON document per command and\n"
		"                     line (JSON lines), monitor one per event\n"
		"  -p, --pretty       pretty-printed JSON output (implies -j)\n"
		"  -b, --batch FILE   run the commands of FILE, one per line (\"-\": stdin)\n"
		"  -n, --netns NETNS  run in network namespace NETNS (a name from \"ip netns\"\n"
		"                     or a path)\n"
		"  -t, --timestamp    monitor: print the time of each event\n"
		"      --show-secrets print service seeds (otherwise \"(hidden)\")\n"
		"  -V, --version      print the version\n"
		"  -h, --help         this help\n"
		"\n"
		"Objects:\n"
		"  service    virtual services (VIP, protocol, port) and their settings\n"
		"  backend    real servers of a service\n"
		"  stats      packet, byte, flow and connection counters\n"
		"  table      a service's Maglev table: balance and digest\n"
		"  simulate   predict balance and flow movement of a change, before making it\n"
		"  monitor    print configuration events as they happen\n"
		"  config     per network namespace limits and connection-table settings\n"
		"  quota      per-source new-flow quotas: the sources that use them most\n"
		"  save       the whole configuration, as commands that \"kmaglev -b -\" restores\n"
		"  daemon     run health checks and keep the kernel as a config file says\n"
		"  import     a keepalived.conf or ipvsadm-save output as a daemon config file\n"
		"  status     the daemon's view: configured, health and kernel state of backends\n"
		"  reload     make the daemon apply its configuration file again\n"
		"  bgp        the daemon's announcements: BGP sessions, VIPs and why\n"
		"  graceful-restart  the daemon exits now, leaving routes announced\n"
		"  family     the kernel's kmaglev netlink family\n"
		"  help       this help; \"kmaglev help OBJECT\" or \"kmaglev OBJECT help\" for more\n"
		"\n"
		"SERVICE is ADDR[:PORT][/PROTO] (PROTO tcp, udp or any; default tcp, port 0 = every\n"
		"port; IPv6 always in brackets: [ADDR][:PORT]), or \"id N\" for an existing service.\n"
		"See kmaglev(8).\n");
}

static int cmd_family(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const cmds[] = { "show" };
	struct kmg_out o;
	int ret;

	if (argc > 1 && kmg_pick(argv[1], cmds, 1, "command", "family") < 0)
		return KMG_EUSAGE;
	if (argc > 2)
		return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"family show\"", argv[2]);
	ret = kmg_ctx_nl(ctx);
	if (ret)
		return ret;
	kmg_ctx_out(ctx, &o);
	kmg_out_open(&o, NULL);
	kmg_out_str(&o, "family", KMAGLEV_FAMILY_NAME);
	kmg_out_uint(&o, "id", ctx->nl.family_id);
	kmg_out_uint(&o, "version", ctx->nl.family_version);
	kmg_out_uint(&o, "events-group", ctx->nl.events_group);
	kmg_out_close(&o);
	kmg_out_end(&o);
	return 0;
}

static void usage_family(FILE *f)
{
	fprintf(f, "Usage: kmaglev family [show]\n");
}

static const struct {
	const char *name;
	int (*run)(struct kmg_ctx *ctx, int argc, char **argv);
	void (*usage)(FILE *f);
} objects[] = {
	{ "service", kmg_cmd_service, kmg_usage_service },
	{ "backend", kmg_cmd_backend, kmg_usage_backend },
	{ "stats", kmg_cmd_stats, kmg_usage_stats },
	{ "table", kmg_cmd_table, kmg_usage_table },
	{ "simulate", kmg_cmd_simulate, kmg_usage_simulate },
	{ "monitor", kmg_cmd_monitor, kmg_usage_monitor },
	{ "config", kmg_cmd_config, kmg_usage_config },
	{ "quota", kmg_cmd_quota, kmg_usage_quota },
	{ "save", kmg_cmd_save, kmg_usage_save },
	{ "daemon", kmg_cmd_daemon, kmg_usage_daemon },
	{ "import", kmg_cmd_import, kmg_usage_import },
	{ "status", kmg_cmd_status, kmg_usage_status },
	{ "reload", kmg_cmd_reload, kmg_usage_reload },
	{ "bgp", kmg_cmd_bgp, kmg_usage_bgp },
	{ "graceful-restart", kmg_cmd_graceful_restart, kmg_usage_graceful_restart },
	{ "family", cmd_family, usage_family },
	{ "help", NULL, NULL },
};

static int pick_object(const char *word)
{
	const char *names[KMG_ARRAY_SIZE(objects)];
	size_t i;

	/*
	 * "bgp" came after "backend": only its full name picks it, so that "b" still means
	 * backend as it always did.
	 */
	for (i = 0; i < KMG_ARRAY_SIZE(objects); i++)
		names[i] = strcmp(objects[i].name, "bgp") || !strcmp(word, "bgp") ?
			   objects[i].name : "";
	return kmg_pick(word, names, KMG_ARRAY_SIZE(objects), "object", NULL);
}

int kmg_run(struct kmg_ctx *ctx, int argc, char **argv)
{
	int i;

	kmg_err_clear();
	if (argc < 1)
		return kmg_err(KMG_EUSAGE, "missing OBJECT; try \"kmaglev help\"");
	i = pick_object(argv[0]);
	if (i < 0)
		return KMG_EUSAGE;
	if (!objects[i].run) {
		int j;

		if (argc < 2) {
			kmg_usage(ctx->out);
			return 0;
		}
		j = pick_object(argv[1]);
		if (j < 0)
			return KMG_EUSAGE;
		if (objects[j].usage)
			objects[j].usage(ctx->out);
		else
			kmg_usage(ctx->out);
		return 0;
	}
	if (argc > 1 && (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") ||
			 !strcmp(argv[1], "--help"))) {
		objects[i].usage(ctx->out);
		return 0;
	}
	return objects[i].run(ctx, argc, argv);
}
