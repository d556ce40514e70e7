// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev config": per network namespace limits, connection-table settings and
 * object counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "err.h"

void kmg_usage_config(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev config show\n"
		"       kmaglev config set [max-services N] [max-backends N] [conn-max N]\n"
		"                          [timeout-tcp-syn SECONDS] [timeout-tcp-est SECONDS]\n"
		"                          [timeout-tcp-fin SECONDS] [timeout-udp SECONDS]\n"
		"                          [flood-rate N] [probe-mark-min MARK] [probe-mark-max MARK]\n"
		"max-services caps the services of this network namespace, max-backends the\n"
		"backends over all its services, conn-max its connection-table entries.\n"
		"SECONDS := N[s|m|h] (a bare number is seconds), 1s to 7 days.\n"
		"flood-rate: new entries per second above which new flows are not tracked (0: off).\n"
		"Locally generated packets to a VIP with a mark in probe-mark-min..probe-mark-max\n"
		"go to the backend whose id is mark - probe-mark-min (both 0: off).\n");
}

enum cfg_kind { CFG_U32, CFG_SECONDS };

static const struct {
	const char *kw;
	int attr;
	size_t off;
	enum cfg_kind kind;
} cfg_kws[] = {
#define CFG(kw, A, field, kind) { kw, KMAGLEV_A_CONFIG_##A, offsetof(struct kmg_config, field), kind }
	CFG("max-services", MAX_SERVICES, max_services, CFG_U32),
	CFG("max-backends", MAX_BACKENDS, max_backends, CFG_U32),
	CFG("conn-max", CONN_MAX, conn_max, CFG_U32),
	CFG("timeout-tcp-syn", TIMEOUT_TCP_SYN, timeout_tcp_syn, CFG_SECONDS),
	CFG("timeout-tcp-est", TIMEOUT_TCP_EST, timeout_tcp_est, CFG_SECONDS),
	CFG("timeout-tcp-fin", TIMEOUT_TCP_FIN, timeout_tcp_fin, CFG_SECONDS),
	CFG("timeout-udp", TIMEOUT_UDP, timeout_udp, CFG_SECONDS),
	CFG("flood-rate", FLOOD_RATE, flood_rate, CFG_U32),
	CFG("probe-mark-min", PROBE_MARK_MIN, probe_mark_min, CFG_U32),
	CFG("probe-mark-max", PROBE_MARK_MAX, probe_mark_max, CFG_U32),
#undef CFG
};

/* Read-only attributes that are shown but cannot be set. */
static const char *const cfg_ro[] = { "services", "backends", "conns" };

int kmg_parse_seconds(const char *s, uint32_t *sec)
{
	static const struct kmg_unit units[] = { { "", 1 }, { "s", 1 }, { "m", 60 }, { "h", 3600 } };

	return kmg_parse_scaled(s, units, KMG_ARRAY_SIZE(units), 1, KMAGLEV_TIMEOUT_MAX, sec);
}

static int arg_seconds(const char *field, const char *s, uint32_t *sec)
{
	int ret = kmg_parse_seconds(s, sec);

	if (ret == -ERANGE)
		return kmg_err(KMG_EUSAGE, "invalid %s \"%s\": must be 1s..%us (7 days)", field, s,
			       KMAGLEV_TIMEOUT_MAX);
	if (ret)
		return kmg_err(KMG_EUSAGE,
			       "invalid %s \"%s\": expected seconds like 30, 30s, 15m or 2h",
			       field, s);
	return 0;
}

int kmg_config_parse(int argc, char **argv, struct kmg_config *c)
{
	struct kmg_args a;
	size_t k;

	memset(c, 0, sizeof(*c));
	kmg_args_init(&a, argc, argv);
	while (kmg_args_more(&a)) {
		const char *kw = kmg_args_next(&a), *v = NULL;
		uint32_t *out;
		int ret;

		for (k = 0; k < KMG_ARRAY_SIZE(cfg_kws); k++)
			if (!strcmp(kw, cfg_kws[k].kw))
				break;
		if (k == KMG_ARRAY_SIZE(cfg_kws)) {
			size_t r;

			for (r = 0; r < KMG_ARRAY_SIZE(cfg_ro); r++)
				if (!strcmp(kw, cfg_ro[r]))
					return kmg_err(KMG_EUSAGE,
						       "%s is read-only (shown by \"config show\")",
						       kw);
			return kmg_err_unknown(kw, "config set");
		}
		if (KMG_HAS(c, cfg_kws[k].attr))
			return kmg_err_dup(kw);
		out = (uint32_t *)((char *)c + cfg_kws[k].off);
		if (kmg_args_value(&a, kw, &v))
			return KMG_EUSAGE;
		if (cfg_kws[k].kind == CFG_SECONDS)
			ret = arg_seconds(kw, v, out);
		else
			ret = kmg_arg_u32(kw, v, 0, UINT32_MAX, out);
		if (ret)
			return KMG_EUSAGE;
		KMG_SET(c, cfg_kws[k].attr);
	}
	if (!c->present)
		return kmg_err(KMG_EUSAGE,
			       "config set: nothing to change; see \"kmaglev config help\"");
	if (KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MIN) &&
	    KMG_HAS(c, KMAGLEV_A_CONFIG_PROBE_MARK_MAX) && c->probe_mark_min > c->probe_mark_max)
		return kmg_err(KMG_EUSAGE,
			       "invalid probe-mark-max \"%u\": must not be below probe-mark-min (%u)",
			       c->probe_mark_max, c->probe_mark_min);
	return 0;
}

int kmg_config_req(void *buf, uint8_t cmd, const struct kmg_config *c, struct nlmsghdr **nlhp)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, 0);

	if (c)
		kmg_put_config(nlh, c);
	*nlhp = nlh;
	return 0;
}

int kmg_cmd_config(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const cmds[] = { "show", "set", "list" };
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
	if (op == 1) {
		ret = kmg_config_parse(argc - 2, argv + 2, &c);
		if (ret)
			return ret;
	} else if (argc > 2) {
		return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"config show\"", argv[2]);
	}
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	if (op == 1) {
		kmg_config_req(buf, KMAGLEV_CMD_CONFIG_SET, &c, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, NULL, NULL, NULL);
	} else {
		kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &l, NULL);
		for (i = 0; !ret && i < l.n; i++) {
			if (!KMG_HAS(&l.m[i], KMAGLEV_A_CONFIG))
				continue;
			if (ctx->json)
				kmg_ctx_json(ctx, kmg_json_config(&l.m[i].config));
			else
				kmg_print_config(ctx->out, &l.m[i].config);
		}
		kmg_msgs_free(&l);
	}
	free(buf);
	return ret;
}
