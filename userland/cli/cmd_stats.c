// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev stats": counters of services and their backends, and of the netns.
 *
 * Without a SERVICE argument the CLI first asks for the netns-wide counters (STATS_GET do
 * without a service): a reply without a service, with the summed service counters (STATS)
 * and the data path's own counters (the GLOBAL nest, global-stats attribute set), printed
 * first as "global" (JSON: {"global": {...}, "services": [...]}). Kernels without it are
 * tolerated: the section is left out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"

void kmg_usage_stats(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev stats [{ show | list }] [SERVICE]\n"
		"SERVICE := ADDR[:PORT][/tcp|udp|any] | [IPV6ADDR][:PORT][/PROTO] | id N\n"
		"Counters: packets, bytes, new-flows, conns (active connection entries).\n"
		"Without SERVICE, the network namespace's counters come first as \"global\":\n"
		"the sums over its services, and the data path's counters (rx-packets,\n"
		"tx-packets, drop-*, icmp-*, conn-*, ...).\n");
}

void kmg_print_stats_msgs(struct kmg_ctx *ctx, const struct kmg_msgs *l)
{
	char addr[INET6_ADDRSTRLEN];
	struct kmg_out o;
	unsigned int i, k;

	kmg_ctx_out(ctx, &o);
	kmg_out_open(&o, NULL);
	for (i = 0; i < l->n; i++) {
		const struct kmg_msg *m = &l->m[i];

		if (KMG_HAS(m, KMAGLEV_A_SERVICE))
			continue;
		if (KMG_HAS(m, KMAGLEV_A_STATS) || KMG_HAS(m, KMAGLEV_A_GLOBAL))
			kmg_out_global(&o, KMG_HAS(m, KMAGLEV_A_STATS) ? &m->stats : NULL,
				       KMG_HAS(m, KMAGLEV_A_GLOBAL) ? &m->global : NULL);
	}
	kmg_out_open_array(&o, "services");
	for (i = 0; i < l->n; i++) {
		const struct kmg_msg *m = &l->m[i];

		if (!KMG_HAS(m, KMAGLEV_A_SERVICE))
			continue;
		kmg_out_open(&o, NULL);
		kmg_out_service_name(&o, "service", &m->svc);
		kmg_out_open(&o, "stats");
		kmg_out_fields(&o, &kmg_obj_stats, &m->stats);
		kmg_out_close(&o);
		kmg_out_open_array(&o, "backends");
		for (k = 0; k < m->nbe; k++) {
			const struct kmg_backend *b = &m->be[k];

			kmg_out_open(&o, NULL);
			kmg_out_str(&o, "backend", kmg_fmt_addr(&b->addr, addr, sizeof(addr)));
			if (KMG_HAS(b, KMAGLEV_A_BACKEND_ID))
				kmg_out_uint(&o, "id", b->id);
			kmg_out_open(&o, "stats");
			kmg_out_fields(&o, &kmg_obj_stats, &b->stats);
			kmg_out_close(&o);
			kmg_out_close(&o);
		}
		kmg_out_close_array(&o);
		kmg_out_close(&o);
	}
	kmg_out_close_array(&o);
	kmg_out_close(&o);
	kmg_out_end(&o);
}

int kmg_cmd_stats(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const verbs[] = { "show", "list" };
	struct kmg_msgs l = { 0 };
	struct kmg_service s;
	struct nlmsghdr *nlh;
	unsigned int i;
	bool given;
	int ret;
	void *buf;

	argc--;
	argv++;
	/* "show" or "list" (or a prefix of either) is optional: a SERVICE is never one */
	if (argc && kmg_lookup(argv[0], verbs, KMG_ARRAY_SIZE(verbs)) >= 0) {
		argc--;
		argv++;
	}
	ret = kmg_service_parse_key(argc, argv, false, "stats", &s, &given);
	if (ret)
		return ret;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	if (given) {
		kmg_service_req(buf, KMAGLEV_CMD_STATS_GET, 0, &s, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &l, NULL);
	} else {
		ret = kmg_stats_dump(ctx, &l);
	}
	/* a long backend list is cut in the reply (not in the dump): take it from the backend dump */
	for (i = 0; !ret && given && i < l.n; i++) {
		struct kmg_msg *m = &l.m[i];

		if (!KMG_HAS(m, KMAGLEV_A_SERVICE) || m->nbe < KMG_REPLY_BACKENDS_MAX)
			continue;
		free(m->be);
		m->be = NULL;
		m->nbe = 0;
		ret = kmg_backends_of(ctx, &m->svc, &m->be, &m->nbe);
	}
	if (!ret)
		kmg_print_stats_msgs(ctx, &l);
	kmg_msgs_free(&l);
	free(buf);
	return ret;
}
