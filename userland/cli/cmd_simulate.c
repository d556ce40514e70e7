// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev simulate": predict a change's balance and flow movement before making
 * it, with the kernel's table builder (simulate.c, kmod/maglev.c).
 *
 * Live:    kmaglev simulate SERVICE [seed HEX32] [then] CHANGE...
 *          fetches the service, its backends and its table digest, rebuilds the current table
 *          and checks that it is the kernel's, then applies the changes.
 * Offline: kmaglev simulate [table-size M] [seed HEX32] [backend ADDR [weight W] [state S]]...
 *          [then CHANGE...]
 * CHANGE:  backend add ADDR [weight W] [state S] | backend del ADDR |
 *          backend set ADDR [weight W] [state S] | backend drain ADDR | table-size M
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"
#include "lib/schema.h"
#include "cli/simulate.h"

void kmg_usage_simulate(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev simulate SERVICE [seed HEX32] [then] [CHANGE]...\n"
		"       kmaglev simulate [table-size M] [seed HEX32] [BACKEND]... [then CHANGE...]\n"
		"BACKEND := backend ADDR [weight 0..65535] [state up|drain|down]\n"
		"CHANGE  := backend add ADDR [weight W] [state S] | backend del ADDR |\n"
		"           backend set ADDR [weight W] [state S] | backend drain ADDR |\n"
		"           table-size M\n"
		"The first form reads SERVICE from the kernel, checks that the table rebuilt here has\n"
		"the kernel's digest, and predicts the changes. The second needs no kernel: the\n"
		"table size defaults to %u and the seed to all zero.\n",
		KMAGLEV_TABLE_SIZE_DEFAULT);
}

void kmg_sim_args_free(struct kmg_sim_args *sa)
{
	kmg_sim_set_free(&sa->initial);
	free(sa->ch);
	sa->ch = NULL;
	sa->nch = 0;
}

/* weight/state options of a backend: stop at anything else */
static int parse_ws(struct kmg_args *a, bool *has_w, uint32_t *w, bool *has_s, uint32_t *s)
{
	static const char *const words[] = { "weight", "state" };

	for (;;) {
		const char *kw = kmg_args_peek(a), *v = NULL;
		const struct kmg_field *f;
		int ret, k;

		if (!kw)
			return 0;
		ret = kmg_keyword(NULL, words, KMG_ARRAY_SIZE(words), kw, "simulate", &f, &k);
		if (ret == -ENOENT)
			return 0;
		if (ret)
			return ret;
		kmg_args_next(a);
		kw = words[k];
		if (*kw == 'w' ? *has_w : *has_s)
			return kmg_err_dup(kw);
		if (kmg_args_value(a, kw, &v))
			return KMG_EUSAGE;
		if (*kw == 'w') {
			if (kmg_arg_weight(v, w))
				return KMG_EUSAGE;
			*has_w = true;
		} else {
			if (kmg_arg_enum("state", &kmg_enum_backend_state, v, s))
				return KMG_EUSAGE;
			*has_s = true;
		}
	}
}

static int parse_change(struct kmg_args *a, const char *kw, struct kmg_sim_args *sa)
{
	static const char *const ops[] = { "add", "del", "set", "drain" };
	struct kmg_sim_change c = { 0 };
	const char *v = NULL;
	int op;

	if (!strcmp(kw, "table-size")) {
		c.op = KMG_SIM_TABLE_SIZE;
		if (kmg_args_value(a, kw, &v) || kmg_arg_table_size(v, &c.size))
			return KMG_EUSAGE;
	} else if (!strcmp(kw, "backend")) {
		if (kmg_args_value(a, kw, &v))
			return KMG_EUSAGE;
		op = kmg_lookup(v, ops, KMG_ARRAY_SIZE(ops));
		if (op < 0)
			return kmg_err(KMG_EUSAGE,
				       "invalid change \"backend %s\": expected backend add|del|set|drain ADDR",
				       v);
		if (kmg_args_value(a, ops[op], &v) ||
		    kmg_arg_addr("backend", v, &c.addr, 0))
			return KMG_EUSAGE;
		c.op = op == 0 ? KMG_SIM_ADD : op == 1 ? KMG_SIM_DEL : KMG_SIM_SET;
		if (op == 3) {
			c.has_state = true;
			c.state = KMAGLEV_BACKEND_STATE_DRAIN;
		} else if (op != 1) {
			if (parse_ws(a, &c.has_weight, &c.weight, &c.has_state, &c.state))
				return KMG_EUSAGE;
			if (op == 2 && !c.has_weight && !c.has_state)
				return kmg_err(KMG_EUSAGE,
					       "change \"backend set %s\": nothing to change (weight W, state S)",
					       v);
		}
	} else {
		return kmg_err(KMG_EUSAGE,
			       "unknown change \"%s\" in simulate; expected \"backend add|del|set|drain ADDR ...\" or \"table-size M\"",
			       kw);
	}
	if (kmg_grow(&sa->ch, sa->nch, sizeof(*sa->ch)))
		return kmg_err(KMG_EFAIL, "out of memory");
	sa->ch[sa->nch++] = c;
	return 0;
}

/* Offline: "backend ADDR [weight W] [state S]", the keyword already taken. */
static int parse_initial_backend(struct kmg_args *a, struct kmg_sim_args *sa)
{
	struct kmg_sim_backend b = { .weight = 1, .state = KMAGLEV_BACKEND_STATE_UP };
	bool has_w = false, has_s = false;
	const char *v = NULL;

	if (kmg_args_value(a, "backend", &v))
		return KMG_EUSAGE;
	if (!strcmp(v, "add") || !strcmp(v, "del") || !strcmp(v, "set") || !strcmp(v, "drain"))
		return kmg_err(KMG_EUSAGE,
			       "\"backend %s\" is a change: put \"then\" between the backends and the changes",
			       v);
	if (kmg_arg_addr("backend", v, &b.addr, 0))
		return KMG_EUSAGE;
	if (parse_ws(a, &has_w, &b.weight, &has_s, &b.state))
		return KMG_EUSAGE;
	return kmg_sim_set_add(&sa->initial, &b);
}

/* simulate's keywords, abbreviated as every command's are */
static const char *const sim_words[] = { "seed", "then", "table-size", "backend" };

int kmg_simulate_parse(int argc, char **argv, struct kmg_sim_args *sa)
{
	bool changes = false, has_size = false;
	struct kmg_args a;
	const char *first;
	int ret;

	memset(sa, 0, sizeof(*sa));
	sa->initial.size = KMAGLEV_TABLE_SIZE_DEFAULT;
	kmg_args_init(&a, argc, argv);
	first = kmg_args_peek(&a);
	if (!first)
		return kmg_err(KMG_EUSAGE,
			       "simulate needs a SERVICE, or backends for an offline simulation; try \"kmaglev simulate help\"");
	/* a SERVICE starts with an address, "[" or "id": never a keyword's prefix */
	sa->live = kmg_lookup(first, sim_words, KMG_ARRAY_SIZE(sim_words)) == -1;
	if (sa->live) {
		ret = kmg_arg_service(&a, &sa->svc, true);
		if (ret)
			return ret;
		changes = true;
	}
	while (kmg_args_more(&a)) {
		const char *kw = kmg_args_next(&a), *v = NULL;
		const struct kmg_field *f;
		int w;

		ret = kmg_keyword(NULL, sim_words, KMG_ARRAY_SIZE(sim_words), kw, "simulate", &f, &w);
		if (ret > 0)
			return ret;
		if (!ret)
			kw = sim_words[w];	/* the keyword in full, from here on */
		if (!strcmp(kw, "seed")) {
			if (sa->has_seed)
				return kmg_err_dup(kw);
			if (kmg_args_value(&a, kw, &v) || kmg_arg_seed(v, sa->seed))
				return KMG_EUSAGE;
			memcpy(sa->initial.seed, sa->seed, sizeof(sa->seed));
			sa->has_seed = true;
		} else if (!strcmp(kw, "then")) {
			if (changes && (!sa->live || sa->nch || sa->then))
				return kmg_err_dup(kw);
			changes = true;
			sa->then = true;
		} else if (changes) {
			ret = parse_change(&a, kw, sa);
			if (ret)
				return ret;
		} else if (!strcmp(kw, "table-size")) {
			if (has_size)
				return kmg_err_dup(kw);
			if (kmg_args_value(&a, kw, &v) || kmg_arg_table_size(v, &sa->initial.size))
				return KMG_EUSAGE;
			has_size = true;
		} else if (!strcmp(kw, "backend")) {
			ret = parse_initial_backend(&a, sa);
			if (ret)
				return ret;
		} else {
			return kmg_err_unknown(kw, "simulate");
		}
	}
	return kmg_sim_set_check(&sa->initial);
}

int kmg_simulate_offline(const struct kmg_sim_args *sa, struct kmg_sim_result *r)
{
	return kmg_sim_run(&sa->initial, sa->ch, sa->nch, r);
}

/* --- output ---------------------------------------------------------------------------- */

static const char *state_name(uint32_t v)
{
	return v < kmg_enum_backend_state.n ? kmg_enum_backend_state.names[v] : "unknown";
}

static void out_summary(struct kmg_out *o, const char *what, const struct kmg_sim_set *s,
			const struct kmg_sim_table *t)
{
	char buf[24];

	kmg_out_line(o, "");
	kmg_out_open(o, what);
	kmg_out_label(o, what);
	kmg_out_uint(o, "table-size", t->size);
	kmg_out_uint(o, "backends", s->n);
	kmg_out_uint(o, "eligible", t->n);
	kmg_out_uint(o, "min-slots", t->min_slots);
	kmg_out_uint(o, "max-slots", t->max_slots);
	snprintf(buf, sizeof(buf), "0x%016" PRIx64, t->digest);
	kmg_out_str(o, "digest", buf);
	kmg_out_close(o);
}

/* One side of a backend's row: "before" or "after", or "-" (JSON null) if it has none. */
static void out_side(struct kmg_out *o, const char *what, bool exists,
		     const struct kmg_sim_backend *b, uint32_t slots, double share,
		     const double *expected)
{
	if (!exists) {
		kmg_out_none(o, what);
		return;
	}
	kmg_out_open(o, what);
	kmg_out_label(o, what);
	kmg_out_uint(o, "weight", b->weight);
	kmg_out_str(o, "state", state_name(b->state));
	kmg_out_uint(o, "slots", slots);
	kmg_out_double(o, "share", 100 * share, 3, "%");
	if (expected)
		kmg_out_double(o, "expected", 100 * *expected, 3, "%");
	kmg_out_close(o);
}

void kmg_sim_out(struct kmg_out *o, const struct kmg_sim_info *info,
		 const struct kmg_sim_result *r)
{
	char buf[INET6_ADDRSTRLEN + 32];
	unsigned int i;

	kmg_out_open(o, NULL);
	kmg_out_label(o, "simulate");
	kmg_out_str(o, "mode", info->svc ? "live" : "offline");
	if (info->svc)
		kmg_out_str(o, "service", kmg_fmt_service_name(info->svc, buf, sizeof(buf)));
	kmg_out_str(o, "seed-source", info->seed_source);
	if (info->has_kernel_digest) {
		kmg_out_line(o, "");
		kmg_out_open(o, "kernel");
		kmg_out_label(o, "kernel");
		kmg_out_uint(o, "generation", info->kernel_gen);
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, info->kernel_digest);
		kmg_out_str(o, "digest", buf);
		kmg_out_bool(o, "match", info->digest_match);
		if (!info->digest_match && info->mismatch_hint)
			kmg_out_str(o, "hint", info->mismatch_hint);
		kmg_out_close(o);
	}
	out_summary(o, "current", &r->before, &r->tbefore);
	out_summary(o, "proposed", &r->after, &r->tafter);
	kmg_out_open_array(o, "backends");
	for (i = 0; i < r->nrows; i++) {
		const struct kmg_sim_row *w = &r->rows[i];

		kmg_out_open(o, NULL);
		kmg_out_str(o, "backend", kmg_fmt_addr(&w->addr, buf, sizeof(buf)));
		out_side(o, "before", w->before_exists, &w->before, w->slots_before,
			 w->share_before, NULL);
		out_side(o, "after", w->after_exists, &w->after, w->slots_after, w->share_after,
			 &w->expected_after);
		kmg_out_close(o);
	}
	kmg_out_close_array(o);
	kmg_out_line(o, "");
	kmg_out_open(o, "moved");
	kmg_out_label(o, "moved");
	/* a table size change moves slots that do not correspond: only an estimate */
	if (r->moved.estimated)
		kmg_out_none(o, "slots");
	else
		kmg_out_uint(o, "slots", r->moved.slots);
	kmg_out_double(o, "fraction", r->moved.fraction, 6, NULL);
	kmg_out_bool(o, "estimated", r->moved.estimated);
	kmg_out_close(o);
	kmg_out_close(o);
}

/* --- live mode ------------------------------------------------------------------------- */

/* The service, its backends and its table, from one generation of the service. */
static int fetch(struct kmg_ctx *ctx, const struct kmg_service *key, struct kmg_msgs *sl,
		 struct kmg_msgs *bl, struct kmg_msgs *tl)
{
	struct nlmsghdr *nlh;
	int tries, ret = 0;
	void *buf = kmg_req_buf(NULL);

	if (!buf)
		return KMG_EFAIL;
	for (tries = 0; tries < 5; tries++) {
		const struct kmg_service *s;
		const struct kmg_table *t;

		kmg_msgs_free(sl);
		kmg_msgs_free(bl);
		kmg_msgs_free(tl);
		kmg_service_req(buf, KMAGLEV_CMD_SERVICE_GET, 0, key, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, sl, NULL);
		if (!ret) {
			kmg_service_req(buf, KMAGLEV_CMD_BACKEND_GET, NLM_F_DUMP, key, &nlh);
			ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, bl, NULL);
		}
		if (!ret) {
			kmg_service_req(buf, KMAGLEV_CMD_TABLE_GET, 0, key, &nlh);
			ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, tl, NULL);
		}
		if (ret)
			break;
		if (sl->n != 1 || tl->n != 1 || !KMG_HAS(&tl->m[0], KMAGLEV_A_TABLE)) {
			ret = kmg_err(KMG_EFAIL, "unexpected reply from the kernel");
			break;
		}
		s = &sl->m[0].svc;
		t = &tl->m[0].table;
		/* a change between the requests: read again */
		if (!KMG_HAS(s, KMAGLEV_A_SERVICE_GENERATION) ||
		    !KMG_HAS(t, KMAGLEV_A_TABLE_GENERATION) || s->generation == t->generation)
			break;
	}
	free(buf);
	return ret;
}

int kmg_simulate_live(const struct kmg_sim_args *sa, const struct kmg_service *s,
		      const struct kmg_msgs *bl, const struct kmg_table *t,
		      struct kmg_sim_info *info, struct kmg_sim_result *r)
{
	struct kmg_sim_set cur = { 0 };
	unsigned int i, k;
	int ret = 0;

	memset(info, 0, sizeof(*info));
	/* the table's size: a set table-size applies from the next build on */
	cur.size = KMG_HAS(t, KMAGLEV_A_TABLE_SIZE) ? t->size :
		   KMG_HAS(s, KMAGLEV_A_SERVICE_TABLE_SIZE) ? s->table_size :
		   KMAGLEV_TABLE_SIZE_DEFAULT;
	if (sa->has_seed) {
		memcpy(cur.seed, sa->seed, sizeof(cur.seed));
		info->seed_source = "given";
		info->mismatch_hint = "is the given seed the service's? predictions are unreliable";
	} else if (KMG_HAS(s, KMAGLEV_A_SERVICE_SEED)) {
		memcpy(cur.seed, s->seed, sizeof(cur.seed));
		info->seed_source = "kernel";
		info->mismatch_hint = "the kernel and this tool build tables differently (version mismatch?); predictions are unreliable";
	} else {
		info->seed_source = "zero";
		info->mismatch_hint = "the kernel did not disclose the service's seed (it does only to CAP_NET_ADMIN); if it is not all zero, give it with \"seed HEX32\"; predictions are unreliable";
	}
	for (i = 0; !ret && i < bl->n; i++) {
		for (k = 0; !ret && k < bl->m[i].nbe; k++) {
			const struct kmg_backend *b = &bl->m[i].be[k];
			struct kmg_sim_backend sb = {
				.addr = b->addr,
				.weight = KMG_HAS(b, KMAGLEV_A_BACKEND_WEIGHT) ? b->weight : 1,
				.state = KMG_HAS(b, KMAGLEV_A_BACKEND_STATE) ? b->state :
					 KMAGLEV_BACKEND_STATE_UP,
			};

			ret = kmg_sim_set_add(&cur, &sb);
		}
	}
	if (!ret)
		ret = kmg_sim_run(&cur, sa->ch, sa->nch, r);
	kmg_sim_set_free(&cur);
	if (ret)
		return ret;
	info->svc = s;
	info->has_kernel_digest = KMG_HAS(t, KMAGLEV_A_TABLE_DIGEST);
	info->kernel_digest = t->digest;
	info->kernel_gen = t->generation;
	info->digest_match = info->has_kernel_digest && t->digest == r->tbefore.digest;
	return 0;
}

static void sim_print(struct kmg_ctx *ctx, const struct kmg_sim_info *info,
		      const struct kmg_sim_result *r)
{
	struct kmg_out o;

	kmg_ctx_out(ctx, &o);
	kmg_sim_out(&o, info, r);
	kmg_out_end(&o);
}

static int simulate_live(struct kmg_ctx *ctx, struct kmg_sim_args *sa)
{
	struct kmg_msgs sl = { 0 }, bl = { 0 }, tl = { 0 };
	struct kmg_sim_info info;
	struct kmg_sim_result r;
	int ret;

	ret = fetch(ctx, &sa->svc, &sl, &bl, &tl);
	if (!ret)
		ret = kmg_simulate_live(sa, &sl.m[0].svc, &bl, &tl.m[0].table, &info, &r);
	if (ret)
		goto out;
	sim_print(ctx, &info, &r);
	if (info.has_kernel_digest && !info.digest_match)
		ret = kmg_err(KMG_EFAIL, "userspace table does not match the kernel's: %s",
			      info.mismatch_hint);
	else if (!info.has_kernel_digest)
		kmg_warn("the kernel reported no table digest; cannot check the rebuilt table");
	kmg_sim_result_free(&r);
out:
	kmg_msgs_free(&sl);
	kmg_msgs_free(&bl);
	kmg_msgs_free(&tl);
	return ret;
}

int kmg_cmd_simulate(struct kmg_ctx *ctx, int argc, char **argv)
{
	struct kmg_sim_info info = { 0 };
	struct kmg_sim_args sa;
	struct kmg_sim_result r;
	int ret;

	ret = kmg_simulate_parse(argc - 1, argv + 1, &sa);
	if (ret)
		goto out;
	if (sa.live) {
		ret = simulate_live(ctx, &sa);
		goto out;
	}
	ret = kmg_simulate_offline(&sa, &r);
	if (ret)
		goto out;
	info.seed_source = sa.has_seed ? "given" : "zero";
	sim_print(ctx, &info, &r);
	kmg_sim_result_free(&r);
out:
	kmg_sim_args_free(&sa);
	return ret;
}
