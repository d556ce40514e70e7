// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: "kmaglev service": add, set, del, show and flush virtual services. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"
#include "lib/schema.h"

void kmg_usage_service(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev service add SERVICE [OPTION]... [BACKEND]...\n"
		"       kmaglev service set SERVICE [OPTION]... [BACKEND... | no-backends]\n"
		"       kmaglev service del SERVICE\n"
		"       kmaglev service show [SERVICE]\n"
		"       kmaglev service flush\n"
		"SERVICE := ADDR[:PORT][/tcp|udp|any] | [IPV6ADDR][:PORT][/PROTO] | id N (not for add)\n"
		"OPTION  := table-size PRIME | hash 5tuple|3tuple|src | flags FLAG[,FLAG]...|none |\n"
		"           seed HEX32 | ramp PCT | ramp-time DURATION | window DURATION |\n"
		"           max-conns N | client-rate N | encap-src ADDR (once per family) |\n"
		"           owner NAME (\"\" clears it) | criticality CLASS | overload on|off\n"
		"FLAG    := echo | defrag | resched\n"
		"CLASS   := critical-plus | critical | sheddable-plus | sheddable\n"
		"BACKEND := backend ADDR [weight 0..65535] [state up|drain|down] [encap ipip|gre|dr]\n"
		"           [gre-key N] [max-conns N]\n"
		"DURATION := Nms | Ns | Nm | Nh (the unit is required)\n"
		"Options come before the backends. With backends (or no-backends), \"set\" replaces\n"
		"the whole backend set in one table build; each BACKEND is complete: options not\n"
		"given take their defaults (weight 1, state up, encap ipip, no gre-key).\n"
		"criticality: the class of the service's new flows that the netns' dscp-map\n"
		"does not class by DSCP (default critical); under overload, new flows of\n"
		"shed-class and below are shed (\"kmaglev config help\"). overload on sheds the\n"
		"service's own: the daemon sets it from its backends' utilization (shed-above).\n");
}

/* --- parsing --------------------------------------------------------------------------- */

/* "encap-src ADDR": encap-src4 or encap-src6, by the address's family. */
static int parse_encap_src(const char *v, struct kmg_service *s)
{
	struct kmg_addr a;
	int attr;

	if (kmg_arg_addr("encap-src", v, &a, KMG_ADDR_ALLOW_UNSPEC))
		return KMG_EUSAGE;
	attr = a.family == AF_INET ? KMAGLEV_A_SERVICE_ENCAP_SRC4 : KMAGLEV_A_SERVICE_ENCAP_SRC6;
	if (KMG_HAS(s, attr))
		return kmg_err(KMG_EUSAGE, "duplicate keyword \"encap-src\" for %s (one per family)",
			       a.family == AF_INET ? "IPv4" : "IPv6");
	if (a.family == AF_INET)
		s->encap_src4 = a.v4;
	else
		s->encap_src6 = a.v6;
	KMG_SET(s, attr);
	return 0;
}

/* "backend ADDR [OPTIONS]", the keyword already taken. */
static int parse_backend_clause(struct kmg_args *a, struct kmg_service *s)
{
	struct kmg_backend *b;
	struct kmg_addr addr;
	const char *v = NULL;

	if (kmg_args_value(a, "backend", &v) || kmg_arg_addr("backend", v, &addr, 0))
		return KMG_EUSAGE;
	if (s->nbe >= KMAGLEV_BACKENDS_PER_SERVICE_MAX)
		return kmg_err(KMG_EUSAGE, "too many backends (at most %u per service)",
			       KMAGLEV_BACKENDS_PER_SERVICE_MAX);
	b = kmg_backend_append(&s->be, &s->nbe);
	if (!b)
		return kmg_err(KMG_EFAIL, "out of memory");
	kmg_backend_set_addr(b, &addr);
	if (kmg_arg_backend_opts(a, b))
		return KMG_EUSAGE;
	/* a backend of a set is complete: what is not given is the default, also encap ipip */
	return kmg_check_backend(b, true);
}

/* Each address at most once in a backend list. */
static int check_duplicate_backends(const struct kmg_service *s)
{
	const struct kmg_addr *dup;
	char buf[INET6_ADDRSTRLEN];

	if (kmg_dup_addr(s->be, s->nbe, sizeof(*s->be), offsetof(struct kmg_backend, addr), &dup))
		return kmg_err(KMG_EFAIL, "out of memory");
	if (dup)
		return kmg_err(KMG_EUSAGE, "duplicate backend %s",
			       kmg_fmt_addr(dup, buf, sizeof(buf)));
	return 0;
}

/* service add/set's own keywords, beside the service's fields */
static const char *const svc_words[] = { "backend", "no-backends", "encap-src" };
enum { SW_BACKEND, SW_NO_BACKENDS, SW_ENCAP_SRC };

int kmg_service_parse(int argc, char **argv, bool is_set, struct kmg_service *s)
{
	const char *where = is_set ? "service set" : "service add";
	struct kmg_args a;
	int ret;

	memset(s, 0, sizeof(*s));
	kmg_args_init(&a, argc, argv);
	ret = kmg_arg_service(&a, s, is_set);
	if (ret)
		return ret;
	while (kmg_args_more(&a)) {
		const char *kw = kmg_args_peek(&a), *v = NULL;
		const struct kmg_field *f;
		int word;

		ret = kmg_keyword(&kmg_obj_service, svc_words, KMG_ARRAY_SIZE(svc_words), kw, where,
				  &f, &word);
		if (ret == -ENOENT)
			return kmg_err_unknown(kw, where);
		if (ret)
			return ret;
		kmg_args_next(&a);
		if (word == SW_BACKEND) {
			if (KMG_HAS(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS))
				return kmg_err(KMG_EUSAGE,
					       "\"backend\" and \"no-backends\" exclude each other");
			ret = parse_backend_clause(&a, s);
			if (ret)
				return ret;
			continue;
		}
		if (word == SW_NO_BACKENDS) {
			if (!is_set)
				return kmg_err(KMG_EUSAGE,
					       "\"no-backends\" is only for \"service set\" (a new service has none unless given)");
			if (s->nbe)
				return kmg_err(KMG_EUSAGE,
					       "\"backend\" and \"no-backends\" exclude each other");
			if (KMG_HAS(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS))
				return kmg_err_dup(svc_words[word]);
			KMG_SET(s, KMAGLEV_A_SERVICE_REPLACE_BACKENDS);
			continue;
		}
		if (s->nbe)
			return kmg_err(KMG_EUSAGE,
				       "service option \"%s\" after a backend: give service options before the backends",
				       f ? kmg_field_key(&kmg_obj_service, f) : svc_words[word]);
		if (word == SW_ENCAP_SRC) {
			if (kmg_args_value(&a, svc_words[word], &v))
				return KMG_EUSAGE;
			ret = parse_encap_src(v, s);
			if (ret)
				return ret;
			continue;
		}
		if (kmg_args_value(&a, kmg_field_key(&kmg_obj_service, f), &v))
			return KMG_EUSAGE;
		ret = kmg_arg_field(&kmg_obj_service, f, v, s);
		if (ret)
			return ret;
	}
	ret = check_duplicate_backends(s);
	if (ret)
		return ret;
	if (s->nbe)
		KMG_SET(s, KMAGLEV_A_SERVICE_BACKEND);
	if (is_set && !(s->present & ~KMG_SVC_KEY_MASK))
		return kmg_err(KMG_EUSAGE, "service set: nothing to change");
	return 0;
}

/* SERVICE for del (@need) or show (optional). *given says whether there was one. */
int kmg_service_parse_key(int argc, char **argv, bool need, const char *where,
			  struct kmg_service *s, bool *given)
{
	struct kmg_args a;
	int ret;

	memset(s, 0, sizeof(*s));
	*given = false;
	kmg_args_init(&a, argc, argv);
	if (!kmg_args_more(&a)) {
		if (need)
			return kmg_err_missing("SERVICE", where);
		return 0;
	}
	ret = kmg_arg_service(&a, s, true);
	if (ret)
		return ret;
	if (kmg_args_more(&a))
		return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after the service in %s",
			       kmg_args_peek(&a), where);
	*given = true;
	return 0;
}

/* --- requests -------------------------------------------------------------------------- */

void kmg_service_big_hint(const struct kmg_nl *nl, const struct nlmsghdr *nlh,
			  const struct kmg_service *s)
{
	struct kmg_attr_walk w;
	char msg[1024];

	if (!s || s->nbe <= kmg_backends_fitting(s) || nl->erroff < 0 ||
	    kmg_nl_attr_at(nlh, sizeof(struct genlmsghdr), &kmg_schema_kmaglev, nl->erroff, &w) ||
	    w.desc[0] != &kmg_schema_kmaglev.attrs[KMAGLEV_A_BACKEND])
		return;
	snprintf(msg, sizeof(msg), "%s; %u backends do not fit in the service attribute (64 KiB) and this kernel takes no others: give at most %u here and add the rest with \"kmaglev backend add\"",
		 kmg_errmsg(), s->nbe, kmg_backends_fitting(s));
	kmg_err(KMG_EFAIL, "%s", msg);
}

void kmg_print_services(struct kmg_ctx *ctx, const struct kmg_msgs *sl)
{
	struct kmg_out o;
	unsigned int i;

	kmg_ctx_out(ctx, &o);
	kmg_out_open_array(&o, NULL);
	for (i = 0; i < sl->n; i++)
		if (KMG_HAS(&sl->m[i], KMAGLEV_A_SERVICE))
			kmg_out_service(&o, NULL, &sl->m[i].svc, true);
	kmg_out_close_array(&o);
	kmg_out_end(&o);
}

static int service_show(struct kmg_ctx *ctx, const struct kmg_service *key)
{
	struct kmg_msgs sl = { 0 };
	int ret = kmg_services_get(ctx, key, &sl);

	if (!ret)
		kmg_print_services(ctx, &sl);
	kmg_msgs_free(&sl);
	return ret;
}

/*
 * Add, change or delete a service. With -j, an add or a change asks for an echo (NLM_F_ECHO)
 * and prints what the kernel made of it as "service show -j" would: its id and settings from
 * the kernel's own notification of the change, which carries no backends, so the service is
 * read back (with its backends and their ids) and printed when it is still the one the echo
 * named; a module without echoes gets that read-back alone.
 */
static int service_send(struct kmg_ctx *ctx, uint8_t cmd, const struct kmg_service *s)
{
	bool echo = ctx->json && (cmd == KMAGLEV_CMD_SERVICE_NEW || cmd == KMAGLEV_CMD_SERVICE_SET);
	struct kmg_msgs l = { 0 };
	struct nlmsghdr *nlh;
	void *buf = kmg_req_buf(s);
	int ret;

	if (!buf)
		return KMG_EFAIL;
	ret = kmg_service_req(buf, cmd, echo ? NLM_F_ECHO : 0, s, &nlh);
	if (!ret)
		ret = kmg_ctx_talk(ctx, nlh, echo ? kmg_collect_cb : NULL, echo ? &l : NULL, NULL);
	if (ret == KMG_EFAIL)
		kmg_service_big_hint(&ctx->nl, nlh, s);
	free(buf);
	if (!ret && echo) {
		struct kmg_msgs back = { 0 };

		kmg_msgs_keep(&l, KMAGLEV_CMD_SERVICE_NEW_NTF, KMAGLEV_CMD_SERVICE_CHANGE_NTF);
		ret = kmg_services_get(ctx, s, &back);
		if (!ret && (!l.n || (back.n == 1 && back.m[0].svc.id == l.m[l.n - 1].svc.id))) {
			kmg_print_services(ctx, &back);
		} else if (l.n) {
			/* changed or gone since: what the echo said; the change was made */
			kmg_print_services(ctx, &l);
			ret = 0;
		}
		kmg_msgs_free(&back);
	}
	kmg_msgs_free(&l);
	return ret;
}

int kmg_cmd_service(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const cmds[] = { "add", "set", "del", "show", "flush", "list" };
	enum { ADD, SET, DEL, SHOW, FLUSH, LIST };
	struct kmg_service s;
	bool given;
	int op = SHOW, ret;

	if (argc > 1) {
		op = kmg_pick(argv[1], cmds, KMG_ARRAY_SIZE(cmds), "command", "service");
		if (op < 0)
			return KMG_EUSAGE;
	}
	argc = argc > 1 ? argc - 2 : 0;
	argv += 2;
	switch (op) {
	case ADD:
	case SET:
		ret = kmg_service_parse(argc, argv, op == SET, &s);
		if (!ret)
			ret = service_send(ctx, op == ADD ? KMAGLEV_CMD_SERVICE_NEW :
					   KMAGLEV_CMD_SERVICE_SET, &s);
		kmg_service_free(&s);
		return ret;
	case DEL:
		ret = kmg_service_parse_key(argc, argv, true, "service del", &s, &given);
		return ret ? ret : service_send(ctx, KMAGLEV_CMD_SERVICE_DEL, &s);
	case FLUSH:
		if (argc)
			return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"service flush\"",
				       argv[0]);
		return service_send(ctx, KMAGLEV_CMD_SERVICE_FLUSH, NULL);
	default:
		ret = kmg_service_parse_key(argc, argv, false, "service show", &s, &given);
		return ret ? ret : service_show(ctx, given ? &s : NULL);
	}
}
