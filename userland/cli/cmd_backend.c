// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: "kmaglev backend": add, set, drain, del and show a service's backends. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"

void kmg_usage_backend(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev backend add SERVICE ADDR [OPTION]...\n"
		"       kmaglev backend set SERVICE ADDR OPTION...\n"
		"       kmaglev backend drain SERVICE ADDR      (set state drain)\n"
		"       kmaglev backend del SERVICE ADDR\n"
		"       kmaglev backend show [SERVICE [ADDR]]\n"
		"SERVICE := ADDR[:PORT][/tcp|udp|any] | [IPV6ADDR][:PORT][/PROTO] | id N\n"
		"OPTION  := weight 0..65535 (default 1) | state up|drain|down (default up) |\n"
		"           encap ipip|gre|dr (default ipip) | gre-key N (needs encap gre) |\n"
		"           max-conns N (0 = no limit)\n");
}

static const char *const be_cmds[] = { "add", "set", "del", "show", "drain", "list" };

int kmg_backend_parse(int op, int argc, char **argv, struct kmg_service *s,
		      struct kmg_backend *b)
{
	char where[32];
	struct kmg_args a;
	struct kmg_addr addr;
	const char *v = NULL;
	int ret;

	memset(s, 0, sizeof(*s));
	memset(b, 0, sizeof(*b));
	snprintf(where, sizeof(where), "backend %s", be_cmds[op]);
	kmg_args_init(&a, argc, argv);
	if (op == KMG_BE_SHOW && !kmg_args_more(&a))
		return 0;
	ret = kmg_arg_service(&a, s, true);
	if (ret)
		return ret;
	if (!kmg_args_more(&a)) {
		if (op == KMG_BE_SHOW)
			return 0;
		return kmg_err_missing("backend ADDR", where);
	}
	v = kmg_args_next(&a);
	if (kmg_arg_addr("backend", v, &addr, 0))
		return KMG_EUSAGE;
	kmg_backend_set_addr(b, &addr);
	if (op == KMG_BE_ADD || op == KMG_BE_SET) {
		ret = kmg_arg_backend_opts(&a, b);
		if (ret)
			return ret;
	}
	if (kmg_args_more(&a))
		return kmg_err_unknown(kmg_args_peek(&a), where);
	if (op == KMG_BE_DRAIN) {
		b->state = KMAGLEV_BACKEND_STATE_DRAIN;
		KMG_SET(b, KMAGLEV_A_BACKEND_STATE);
	}
	if (op == KMG_BE_SET && !(b->present & ~KMG_BE_ADDR_MASK))
		return kmg_err(KMG_EUSAGE, "backend set: nothing to change");
	return kmg_check_backend(b, op == KMG_BE_ADD);
}

int kmg_backend_req(void *buf, uint8_t cmd, uint16_t flags, const struct kmg_service *s,
		    const struct kmg_backend *b, struct nlmsghdr **nlhp)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, flags);

	if (s && s->present)
		kmg_put_service_key(nlh, s);
	if (b && b->present)
		kmg_put_backend(nlh, KMAGLEV_A_BACKEND, b);
	*nlhp = nlh;
	return 0;
}

void kmg_print_backends(struct kmg_ctx *ctx, const struct kmg_msgs *bl)
{
	const struct kmg_service *prev = NULL;
	struct kmg_out o;
	unsigned int i, k;

	kmg_ctx_out(ctx, &o);
	kmg_out_open_array(&o, NULL);
	for (i = 0; i < bl->n; i++) {
		const struct kmg_msg *m = &bl->m[i];

		/* the dump goes service by service: one entry per service, then its backends */
		if (!prev || prev->id != m->svc.id ||
		    !kmg_addr_equal(&prev->key.addr, &m->svc.key.addr) ||
		    prev->key.port != m->svc.key.port || prev->key.proto != m->svc.key.proto) {
			if (prev) {
				kmg_out_close_array(&o);
				kmg_out_close(&o);
			}
			kmg_out_open(&o, NULL);
			kmg_out_service_name(&o, "service", &m->svc);
			kmg_out_open_array(&o, "backends");
			prev = &m->svc;
		}
		for (k = 0; k < m->nbe; k++)
			kmg_out_backend(&o, NULL, &m->be[k]);
	}
	if (prev) {
		kmg_out_close_array(&o);
		kmg_out_close(&o);
	}
	kmg_out_close_array(&o);
	kmg_out_end(&o);
}

int kmg_cmd_backend(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const uint8_t nlcmd[] = {
		[KMG_BE_ADD] = KMAGLEV_CMD_BACKEND_NEW,
		[KMG_BE_SET] = KMAGLEV_CMD_BACKEND_SET,
		[KMG_BE_DEL] = KMAGLEV_CMD_BACKEND_DEL,
		[KMG_BE_SHOW] = KMAGLEV_CMD_BACKEND_GET,
		[KMG_BE_DRAIN] = KMAGLEV_CMD_BACKEND_SET,
	};
	struct kmg_msgs bl = { 0 };
	struct kmg_service s;
	struct kmg_backend b;
	struct nlmsghdr *nlh;
	int op = KMG_BE_SHOW, ret;
	void *buf;

	if (argc > 1) {
		op = kmg_pick(argv[1], be_cmds, KMG_ARRAY_SIZE(be_cmds), "command", "backend");
		if (op < 0)
			return KMG_EUSAGE;
		if (op == KMG_BE_LIST)
			op = KMG_BE_SHOW;
	}
	ret = kmg_backend_parse(op, argc > 1 ? argc - 2 : 0, argv + 2, &s, &b);
	if (ret)
		return ret;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	if (op != KMG_BE_SHOW) {
		/* -j: what the kernel made of an add or a change (see service_send()) */
		bool echo = ctx->json && op != KMG_BE_DEL;

		kmg_backend_req(buf, nlcmd[op], echo ? NLM_F_ECHO : 0, &s, &b, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, echo ? kmg_collect_cb : NULL, echo ? &bl : NULL,
				   NULL);
		if (!ret && echo) {
			kmg_msgs_keep(&bl, KMAGLEV_CMD_BACKEND_NEW_NTF,
				      KMAGLEV_CMD_BACKEND_CHANGE_NTF);
			if (!bl.n) {
				struct kmg_backend k = { .addr = b.addr };

				k.present = b.present & (KMG_BIT(KMAGLEV_A_BACKEND_ADDR4) |
							 KMG_BIT(KMAGLEV_A_BACKEND_ADDR6));
				kmg_backend_req(buf, KMAGLEV_CMD_BACKEND_GET, 0, &s, &k, &nlh);
				ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &bl, NULL);
			}
			if (!ret)
				kmg_print_backends(ctx, &bl);
		}
		kmg_msgs_free(&bl);
	} else {
		/* one backend: do; a service's or all: dump */
		kmg_backend_req(buf, nlcmd[op], b.present ? 0 : NLM_F_DUMP, &s, &b, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &bl, NULL);
		if (!ret)
			kmg_print_backends(ctx, &bl);
		kmg_msgs_free(&bl);
	}
	free(buf);
	return ret;
}
