// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev save": the network namespace's whole configuration as the commands
 * that make it, one per line, for "kmaglev -b FILE" (like ipvsadm -S and -R). Each service is
 * one "service add" with all its backends, so a restore builds each table once. Settings are
 * written from the field tables, skipping what only the kernel reports and what is at its
 * "not set" zero; the seed is written in clear, since a restore must reproduce the tables.
 * "save --yaml" writes the same state as a `kmaglev daemon` configuration file instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"
#include "daemon/config.h"

void kmg_usage_save(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev save [--yaml]\n"
		"Writes \"config set\" and one \"service add\" per service, with its backends and\n"
		"every setting, including the seed. \"kmaglev -b FILE\" restores it into a network\n"
		"namespace without services (\"kmaglev service flush\" first).\n"
		"--yaml: write it as a \"kmaglev daemon\" configuration file instead.\n");
}

/* @s as one word for the batch parser (batch.c): double-quoted when it has to be. */
static void save_word(FILE *f, const char *s)
{
	if (*s && !s[strcspn(s, " \t\r\n\v\f\"'\\#")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* " key value" for every settable field of @s that is set. */
static void save_fields(FILE *f, const struct kmg_object *obj, const void *s)
{
	uint64_t present = *(const uint64_t *)s;
	struct kmg_out o = { .secrets = true };
	char buf[KMG_FIELD_TEXT_LEN];
	unsigned int i;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *fd = &obj->fields[i];

		if (!((present >> fd->attr) & 1) || fd->flags & (KMG_FF_RO | KMG_FF_KEY))
			continue;
		if (fd->flags & KMG_FF_OMIT0 && kmg_field_zero(obj, fd, s))
			continue;
		fprintf(f, " %s ", kmg_field_key(obj, fd));
		save_word(f, kmg_fmt_field(&o, obj, fd, s, buf, sizeof(buf)));
	}
}

void kmg_save(FILE *f, const struct kmg_config *c, const struct kmg_msgs *sl)
{
	char buf[INET6_ADDRSTRLEN + 32];
	unsigned int i, k;

	fprintf(f, "# kmaglev save: restore with \"kmaglev -b FILE\" (into a netns without services)\n");
	if (c && c->present) {
		fputs("config set", f);
		save_fields(f, &kmg_obj_config, c);
		fputc('\n', f);
	}
	for (i = 0; i < sl->n; i++) {
		const struct kmg_service *s = &sl->m[i].svc;

		if (!KMG_HAS(&sl->m[i], KMAGLEV_A_SERVICE))
			continue;
		fprintf(f, "service add %s", kmg_fmt_svc_key(&s->key, buf, sizeof(buf)));
		if (!KMG_HAS(s, KMAGLEV_A_SERVICE_SEED))
			kmg_warn("the kernel did not give the seed of service %s (it needs CAP_NET_ADMIN over the netns): it restores with a zero seed",
				 buf);
		save_fields(f, &kmg_obj_service, s);
		for (k = 0; k < s->nbe; k++) {
			fprintf(f, " backend %s", kmg_fmt_addr(&s->be[k].addr, buf, sizeof(buf)));
			save_fields(f, &kmg_obj_backend, &s->be[k]);
		}
		fputc('\n', f);
	}
}

/* The services of @sl as an array for kmd_config_save_yaml() (their backends shared). */
static int save_yaml(FILE *f, const struct kmg_config *c, const struct kmg_msgs *sl)
{
	struct kmg_service *svcs = calloc(sl->n ? sl->n : 1, sizeof(*svcs));
	char buf[INET6_ADDRSTRLEN + 32];
	unsigned int i, n = 0;
	int ret;

	if (!svcs)
		return kmg_err(KMG_EFAIL, "out of memory");
	for (i = 0; i < sl->n; i++) {
		if (!KMG_HAS(&sl->m[i], KMAGLEV_A_SERVICE))
			continue;
		svcs[n] = sl->m[i].svc;
		if (!KMG_HAS(&svcs[n], KMAGLEV_A_SERVICE_SEED))
			kmg_warn("the kernel did not give the seed of service %s (it needs CAP_NET_ADMIN over the netns): it restores with a zero seed",
				 kmg_fmt_svc_key(&svcs[n].key, buf, sizeof(buf)));
		n++;
	}
	ret = kmd_config_save_yaml(f, c, svcs, n);
	free(svcs);
	return ret ? kmg_err(KMG_EFAIL, "writing the configuration: %s", strerror(-ret)) : 0;
}

int kmg_cmd_save(struct kmg_ctx *ctx, int argc, char **argv)
{
	struct kmg_msgs cl = { 0 }, sl = { 0 };
	const struct kmg_config *c = NULL;
	struct nlmsghdr *nlh;
	unsigned int i;
	void *buf;
	int ret;

	bool yaml = false;

	if (argc > 1 && !strcmp(argv[1], "--yaml"))
		yaml = true;
	if (argc > 1 + yaml)
		return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"save%s\"", argv[1 + yaml],
			       yaml ? " --yaml" : "");
	if (ctx->json)
		return kmg_err(KMG_EUSAGE, "save writes %s, not JSON; drop -j",
			       yaml ? "YAML" : "commands");
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
	ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &cl, NULL);
	if (!ret)
		ret = kmg_services_get(ctx, NULL, &sl);
	if (!ret) {
		for (i = 0; i < cl.n; i++)
			if (KMG_HAS(&cl.m[i], KMAGLEV_A_CONFIG))
				c = &cl.m[i].config;
		if (yaml)
			ret = save_yaml(ctx->out, c, &sl);
		else
			kmg_save(ctx->out, c, &sl);
	}
	kmg_msgs_free(&sl);
	kmg_msgs_free(&cl);
	free(buf);
	return ret;
}
