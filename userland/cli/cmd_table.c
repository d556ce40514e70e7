// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: "kmaglev table show": balance, size and digest of services' Maglev tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"

void kmg_usage_table(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev table show [SERVICE]\n"
		"SERVICE := ADDR[:PORT][/tcp|udp|any] | [IPV6ADDR][:PORT][/PROTO] | id N\n"
		"Per backend: slots, share of the table, share its weight asks for, deviation.\n"
		"Summary: size, generation, bytes, bytes/slot, min/max slots of eligible backends,\n"
		"digest (equal digests mean identical tables). Without SERVICE: every service\n"
		"(with -j an array; with SERVICE one object).\n");
}

/* JSON: one object for one service (@single), else an array of them. */
void kmg_print_tables(struct kmg_ctx *ctx, const struct kmg_msgs *l, bool single)
{
	struct kmg_out o;
	unsigned int i;

	kmg_ctx_out(ctx, &o);
	if (!single)
		kmg_out_open_array(&o, NULL);
	for (i = 0; i < l->n; i++)
		if (KMG_HAS(&l->m[i], KMAGLEV_A_TABLE))
			kmg_out_table(&o, &l->m[i].svc, &l->m[i].table);
	if (!single)
		kmg_out_close_array(&o);
	kmg_out_end(&o);
}

/* TABLE_GET for one service, appended to @l. */
static int table_get(struct kmg_ctx *ctx, void *buf, const struct kmg_service *s,
		     struct kmg_msgs *l, int *err)
{
	struct nlmsghdr *nlh;

	kmg_service_req(buf, KMAGLEV_CMD_TABLE_GET, 0, s, &nlh);
	return kmg_ctx_talk(ctx, nlh, kmg_collect_cb, l, err);
}

int kmg_cmd_table(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list" };
	struct kmg_msgs sl = { 0 }, l = { 0 };
	struct kmg_service s;
	struct nlmsghdr *nlh;
	unsigned int i, k;
	bool given;
	int ret, err;
	void *buf;

	if (argc > 1 && kmg_pick(argv[1], cmds, KMG_ARRAY_SIZE(cmds), "command", "table") < 0)
		return KMG_EUSAGE;
	ret = kmg_service_parse_key(argc > 1 ? argc - 2 : 0, argv + 2, false, "table show", &s,
				    &given);
	if (ret)
		return ret;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	if (given) {
		ret = table_get(ctx, buf, &s, &l, NULL);
	} else {
		kmg_service_req(buf, KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP, NULL, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &sl, NULL);
		for (i = 0; !ret && i < sl.n; i++) {
			struct kmg_service key = sl.m[i].svc;

			/* ask by key: the id is enough, but the key is what every kernel knows */
			key.present &= KMG_SVC_KEY_MASK;
			if (key.present & ~KMG_BIT(KMAGLEV_A_SERVICE_ID))
				KMG_CLR(&key, KMAGLEV_A_SERVICE_ID);
			key.be = NULL;
			key.nbe = 0;
			ret = table_get(ctx, buf, &key, &l, &err);
			/* a service deleted since the dump is no error */
			if (ret && err == -ENOENT)
				ret = 0;
		}
	}
	/* a long backend list is cut in the reply: take the rows from the backend dump */
	for (i = 0; !ret && i < l.n; i++) {
		struct kmg_table *t = &l.m[i].table;

		if (t->nbe < KMG_REPLY_BACKENDS_MAX)
			continue;
		kmg_table_free(t);
		ret = kmg_backends_of(ctx, &l.m[i].svc, &t->be, &t->nbe);
		for (k = 0; k < t->nbe; k++)
			KMG_CLR(&t->be[k], KMAGLEV_A_BACKEND_STATS);
	}
	if (!ret)
		kmg_print_tables(ctx, &l, given);
	kmg_msgs_free(&sl);
	kmg_msgs_free(&l);
	free(buf);
	return ret;
}
