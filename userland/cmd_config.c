// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: "kmaglev config": per network namespace limits and object counts. */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "err.h"

void kmg_usage_config(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev config show\n"
		"       kmaglev config set [max-services N] [max-backends N]\n"
		"max-services caps the services of this network namespace, max-backends the\n"
		"backends over all its services.\n");
}

int kmg_config_parse(int argc, char **argv, struct kmg_config *c)
{
	static const char *const kws[] = { "max-services", "max-backends" };
	static const int attrs[] = { KMAGLEV_A_CONFIG_MAX_SERVICES, KMAGLEV_A_CONFIG_MAX_BACKENDS };
	struct kmg_args a;

	memset(c, 0, sizeof(*c));
	kmg_args_init(&a, argc, argv);
	while (kmg_args_more(&a)) {
		const char *kw = kmg_args_next(&a), *v = NULL;
		uint32_t *out;
		size_t k;

		for (k = 0; k < KMG_ARRAY_SIZE(kws); k++)
			if (!strcmp(kw, kws[k]))
				break;
		if (k == KMG_ARRAY_SIZE(kws))
			return kmg_err_unknown(kw, "config set");
		if (KMG_HAS(c, attrs[k]))
			return kmg_err_dup(kw);
		out = k ? &c->max_backends : &c->max_services;
		if (kmg_args_value(&a, kw, &v) || kmg_arg_u32(kw, v, 0, UINT32_MAX, out))
			return KMG_EUSAGE;
		KMG_SET(c, attrs[k]);
	}
	if (!c->present)
		return kmg_err(KMG_EUSAGE, "config set: nothing to change (max-services N, max-backends N)");
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
