// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev quota show [top N]": the per-source quota table (config set
 * quota-rate), one row per source prefix (and service, with quota-scope service), the heaviest
 * sources first. Text is a table with a header; JSON an array of objects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"

void kmg_usage_quota(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev quota [{ show | list } [top N]]\n"
		"The per-source quota table (\"kmaglev config set quota-rate N\" turns it on):\n"
		"a row per source prefix (and service, with quota-scope service), those with\n"
		"the most rejected new flows first, then the most accepted. Columns: PREFIX,\n"
		"SERVICE (quota-scope service only), ACCEPTED and REJECTED new flows since the\n"
		"bucket was created, TOKENS (new flows it may open now), IDLE (since its last\n"
		"new flow). top N: the first N rows only.\n");
}

int kmg_quota_parse(int argc, char **argv, unsigned int *top)
{
	struct kmg_args a;
	bool given = false;

	*top = 0;
	kmg_args_init(&a, argc, argv);
	while (kmg_args_more(&a)) {
		static const char *const words[] = { "top" };
		const char *kw = kmg_args_next(&a), *v = NULL;
		const struct kmg_field *f;
		uint32_t n;
		int w;

		if (kmg_keyword(NULL, words, KMG_ARRAY_SIZE(words), kw, "quota show", &f, &w))
			return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"quota show\"", kw);
		if (given)
			return kmg_err_dup("top");
		if (kmg_args_value(&a, "top", &v) || kmg_arg_u32("top", v, 1, UINT32_MAX, &n))
			return KMG_EUSAGE;
		*top = n;
		given = true;
	}
	return 0;
}

/* --- output ------------------------------------------------------------------------------ */

enum { C_PREFIX, C_SERVICE, C_ACCEPTED, C_REJECTED, C_TOKENS, C_IDLE, NCOL };

static const char *const heads[NCOL] = {
	"PREFIX", "SERVICE", "ACCEPTED", "REJECTED", "TOKENS", "IDLE",
};

/* "198.51.100.0/24", "2001:db8::/64"; "?" without an address. */
static const char *fmt_prefix(const struct kmg_quota *q, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	if (!(q->present & (KMG_BIT(KMAGLEV_A_QUOTA_ADDR4) | KMG_BIT(KMAGLEV_A_QUOTA_ADDR6))))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s/%u", kmg_fmt_addr(&q->addr, addr, sizeof(addr)),
			 q->prefix_len);
	return buf;
}

/* An idle time at a glance: "850ms", "12.3s", "4m05s", "2h10m". */
static const char *fmt_idle(uint32_t ms, char *buf, size_t len)
{
	if (ms < 1000)
		snprintf(buf, len, "%ums", ms);
	else if (ms < 60000)
		snprintf(buf, len, "%u.%us", ms / 1000, ms % 1000 / 100);
	else if (ms < 3600000)
		snprintf(buf, len, "%um%02us", ms / 60000, ms / 1000 % 60);
	else
		snprintf(buf, len, "%uh%02um", ms / 3600000, ms / 60000 % 60);
	return buf;
}

/* The service of id @id in the service dump @sl, or NULL (deleted since). */
static const struct kmg_service *service_by_id(const struct kmg_msgs *sl, uint32_t id)
{
	unsigned int i;

	for (i = 0; sl && i < sl->n; i++)
		if (KMG_HAS(&sl->m[i], KMAGLEV_A_SERVICE) &&
		    KMG_HAS(&sl->m[i].svc, KMAGLEV_A_SERVICE_ID) && sl->m[i].svc.id == id)
			return &sl->m[i].svc;
	return NULL;
}

static bool has_service(const struct kmg_quota *q)
{
	return KMG_HAS(q, KMAGLEV_A_QUOTA_SERVICE_ID);
}

/* The cells of bucket @q's row. */
static void row_cells(const struct kmg_quota *q, const struct kmg_msgs *sl,
		      char cells[NCOL][64])
{
	const struct kmg_service *s;
	struct kmg_service tmp;

	fmt_prefix(q, cells[C_PREFIX], sizeof(cells[0]));
	cells[C_SERVICE][0] = '\0';
	if (has_service(q)) {
		s = service_by_id(sl, q->service_id);
		if (!s) {
			memset(&tmp, 0, sizeof(tmp));
			tmp.id = q->service_id;
			KMG_SET(&tmp, KMAGLEV_A_SERVICE_ID);
			s = &tmp;
		}
		kmg_fmt_service_name(s, cells[C_SERVICE], sizeof(cells[0]));
	}
	snprintf(cells[C_ACCEPTED], sizeof(cells[0]), "%llu", (unsigned long long)q->accepted);
	snprintf(cells[C_REJECTED], sizeof(cells[0]), "%llu", (unsigned long long)q->rejected);
	snprintf(cells[C_TOKENS], sizeof(cells[0]), "%u", q->tokens);
	fmt_idle(q->idle_ms, cells[C_IDLE], sizeof(cells[0]));
}

/* A row: text columns left-aligned, numbers right-aligned, no trailing blanks. */
static void print_row(FILE *f, char cells[NCOL][64], const size_t *w, bool svc)
{
	int c;

	for (c = 0; c < NCOL; c++) {
		if (c == C_SERVICE && !svc)
			continue;
		if (c > C_SERVICE)
			fprintf(f, "  %*s", (int)w[c], cells[c]);
		else if (c == C_PREFIX)
			fprintf(f, "%-*s", (int)w[c], cells[c]);
		else
			fprintf(f, "  %-*s", (int)w[c], cells[c]);
	}
	fputc('\n', f);
}

static void print_text(FILE *f, const struct kmg_quotas *qs, const struct kmg_msgs *sl, bool svc)
{
	char cells[NCOL][64];
	size_t w[NCOL];
	unsigned int i;
	int c;

	for (c = 0; c < NCOL; c++)
		w[c] = strlen(heads[c]);
	for (i = 0; i < qs->n; i++) {
		row_cells(&qs->q[i], sl, cells);
		for (c = 0; c < NCOL; c++)
			if (strlen(cells[c]) > w[c])
				w[c] = strlen(cells[c]);
	}
	for (c = 0; c < NCOL; c++)
		snprintf(cells[c], sizeof(cells[c]), "%s", heads[c]);
	print_row(f, cells, w, svc);
	for (i = 0; i < qs->n; i++) {
		row_cells(&qs->q[i], sl, cells);
		print_row(f, cells, w, svc);
	}
}

void kmg_print_quotas(struct kmg_ctx *ctx, const struct kmg_quotas *qs, const struct kmg_msgs *sl)
{
	const struct kmg_service *s;
	char buf[INET6_ADDRSTRLEN + 8];
	struct kmg_out o;
	bool svc = false;
	unsigned int i;

	for (i = 0; i < qs->n; i++)
		svc |= has_service(&qs->q[i]);
	if (!ctx->json) {
		print_text(ctx->out, qs, sl, svc);
		return;
	}
	kmg_ctx_out(ctx, &o);
	kmg_out_open_array(&o, NULL);
	for (i = 0; i < qs->n; i++) {
		const struct kmg_quota *q = &qs->q[i];

		kmg_out_open(&o, NULL);
		kmg_out_str(&o, "prefix", fmt_prefix(q, buf, sizeof(buf)));
		if (has_service(q)) {
			kmg_out_open(&o, "service");
			s = service_by_id(sl, q->service_id);
			if (s)
				kmg_out_service_name(&o, "service", s);
			else
				kmg_out_uint(&o, "id", q->service_id);	/* deleted since */
			kmg_out_close(&o);
		}
		kmg_out_uint(&o, "accepted", q->accepted);
		kmg_out_uint(&o, "rejected", q->rejected);
		kmg_out_uint(&o, "tokens", q->tokens);
		kmg_out_uint(&o, "idle-ms", q->idle_ms);
		kmg_out_close(&o);
	}
	kmg_out_close_array(&o);
	kmg_out_end(&o);
}

/* --- the command ------------------------------------------------------------------------- */

int kmg_cmd_quota(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list" };
	struct kmg_quotas qs = { 0 };
	struct kmg_msgs sl = { 0 };
	struct nlmsghdr *nlh;
	unsigned int i, top;
	bool svc = false;
	void *buf;
	int ret;

	if (argc > 1 && kmg_pick(argv[1], cmds, KMG_ARRAY_SIZE(cmds), "command", "quota") < 0)
		return KMG_EUSAGE;
	ret = kmg_quota_parse(argc > 1 ? argc - 2 : 0, argv + 2, &top);
	if (ret)
		return ret;
	qs.limit = top;
	ret = kmg_quota_dump(ctx, &qs, NULL);
	for (i = 0; !ret && i < qs.n; i++)
		svc |= has_service(&qs.q[i]);
	/* scope service: the services' names, by id */
	if (!ret && svc) {
		buf = kmg_req_buf(NULL);
		if (!buf) {
			ret = KMG_EFAIL;
		} else {
			kmg_service_req(buf, KMAGLEV_CMD_SERVICE_GET, NLM_F_DUMP, NULL, &nlh);
			ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &sl, NULL);
			free(buf);
		}
	}
	if (!ret)
		kmg_print_quotas(ctx, &qs, &sl);
	kmg_msgs_free(&sl);
	kmg_quotas_free(&qs);
	return ret;
}
