// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev config": per network namespace limits, connection-table settings and
 * object counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"

void kmg_usage_config(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev config show\n"
		"       kmaglev config set [max-services N] [max-backends N] [conn-max N]\n"
		"                          [timeout-tcp-syn SECONDS] [timeout-tcp-est SECONDS]\n"
		"                          [timeout-tcp-fin SECONDS] [timeout-udp SECONDS]\n"
		"                          [flood-rate N] [probe-mark-min MARK] [probe-mark-max MARK]\n"
		"                          [hook prerouting|ingress] [ingress-dev all|DEV[,DEV...]]\n"
		"                          [quota-rate N] [quota-burst N] [quota-prefix4 1..32]\n"
		"                          [quota-prefix6 1..128] [quota-scope netns|service]\n"
		"                          [quota-action drop|rst] [quota-max N]\n"
		"                          [dscp-map DSCP=CLASS[,DSCP=CLASS...]|none]\n"
		"                          [shed-class CLASS] [shed-conn-fill 0..100]\n"
		"                          [shed-new-rate N] [shed-load-high 0..1000]\n"
		"                          [shed-load-low 0..1000]\n"
		"CLASS := critical-plus | critical | sheddable-plus | sheddable\n"
		"DSCP := 0..63 | cs0..cs7 | af11..af43 | ef | le\n"
		"max-services caps the services of this network namespace, max-backends the\n"
		"backends over all its services, conn-max its connection-table entries.\n"
		"SECONDS := Ns | Nm | Nh (the unit is required), 1s to 7 days.\n"
		"flood-rate: new entries per second above which new flows are not tracked (0: off).\n"
		"Locally generated packets to a VIP with a mark in probe-mark-min..probe-mark-max\n"
		"go to the backend whose id is mark - probe-mark-min (both 0: off).\n"
		"hook: where packets from clients are taken: prerouting (the default, after the\n"
		"raw table) or ingress (before the IP stack, on the devices of ingress-dev: \"all\"\n"
		"but loopback, or up to 32 names; the host's IP firewall does not see them).\n"
		"quota-rate: new flows per second one source prefix may open (0: off, the\n"
		"default; at most 1000000), quota-burst at once (0: quota-rate). Sources share\n"
		"a bucket per /quota-prefix4 (32) or /quota-prefix6 (64), for the netns or per\n"
		"service (quota-scope); a new flow over quota is dropped, or a SYN answered\n"
		"with a RST (quota-action). quota-max: buckets at most (65536); sources beyond\n"
		"are not checked. A new prefix length or scope, or quota-rate 0, empties the\n"
		"table (\"kmaglev quota\"); other changes keep each source's bucket.\n"
		"Load shedding: while the netns is overloaded (the connection table above\n"
		"shed-conn-fill percent of conn-max, more new flows in a second than\n"
		"shed-new-rate, or the host's softirq load at shed-load-high per mille until it\n"
		"falls to shed-load-low; 0 turns a signal off, the default), new flows of\n"
		"shed-class (sheddable) and below are dropped; established flows never are. A new\n"
		"flow's class is dscp-map's for its DSCP, else its service's criticality.\n"
		"services, backends, conns and quotas are read-only counts; load (per mille),\n"
		"shedding (the signals on now) and shed-transitions are read-only too.\n");
}

int kmg_config_parse(int argc, char **argv, struct kmg_config *c)
{
	struct kmg_args a;

	memset(c, 0, sizeof(*c));
	kmg_args_init(&a, argc, argv);
	while (kmg_args_more(&a)) {
		const char *kw = kmg_args_peek(&a);
		bool taken;
		int ret = kmg_arg_keyword(&kmg_obj_config, &a, "config set", c, &taken);

		if (ret)
			return ret;
		if (!taken)
			return kmg_err_unknown(kw, "config set");
	}
	if (!c->present)
		return kmg_err(KMG_EUSAGE,
			       "config set: nothing to change; see \"kmaglev config help\"");
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN) &&
	    KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX) && c->probe_mark_min > c->probe_mark_max)
		return kmg_err(KMG_EUSAGE,
			       "invalid probe-mark-max \"%u\": must not be below probe-mark-min (%u)",
			       c->probe_mark_max, c->probe_mark_min);
	/* the kernel checks it against its own values too; here, against the command's */
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH) &&
	    KMG_HAS(c, KMAGLEV_A_CONFIG_SHED_LOAD_LOW) && c->shed_load_high && c->shed_load_low &&
	    c->shed_load_low >= c->shed_load_high)
		return kmg_err(KMG_EUSAGE,
			       "invalid shed-load-low \"%u\": must be below shed-load-high (%u)",
			       c->shed_load_low, c->shed_load_high);
	return 0;
}

int kmg_cmd_config(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const cmds[] = { "show", "set", "list" };
	enum { SHOW, SET };
	struct kmg_msgs l = { 0 };
	struct kmg_config c;
	struct nlmsghdr *nlh;
	unsigned int i;
	int op = 0, ret;
	void *buf;

	if (argc > 1) {
		op = kmg_pick(argv[1], cmds, KMG_ARRAY_SIZE(cmds), "command", "config");
		if (op < 0)
			return KMG_EUSAGE;
	}
	if (op == SET) {
		ret = kmg_config_parse(argc - 2, argv + 2, &c);
		if (ret)
			return ret;
	} else if (argc > 2) {
		return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"config show\"", argv[2]);
	}
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	if (op == SET) {
		kmg_config_req(buf, KMAGLEV_CMD_CONFIG_SET, &c, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, NULL, NULL, NULL);
	} else {
		kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &l, NULL);
		for (i = 0; !ret && i < l.n; i++) {
			struct kmg_out o;

			if (!KMG_HAS(&l.m[i], KMAGLEV_A_CONFIG))
				continue;
			kmg_ctx_out(ctx, &o);
			kmg_out_config(&o, &l.m[i].config);
			kmg_out_end(&o);
		}
		kmg_msgs_free(&l);
	}
	free(buf);
	return ret;
}
