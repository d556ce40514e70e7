// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the kernel's state as a configuration file, for `kmaglev save --yaml`.
 * Walks the same field tables as `kmaglev save`; service and backend attributes equal to the
 * defaults the loader fills in are left out, so the file loads back to the same state. A
 * service's overload is not written: the daemon sets it (utilization shed-above).
 */
#include <errno.h>
#include <string.h>

#include "lib/show.h"
#include "lib/schema.h"
#include "daemon/config_int.h"

/* A plain YAML scalar when @s reads back as itself, else a double-quoted one. */
static void put_scalar(FILE *f, const char *s)
{
	const char *p;

	if (s[0] && !strpbrk(s, ":#[]{},&*!|>'\"%@`\\ ") && s[0] != '-' && s[0] != '?')
		fputs(s, f);
	else {
		fputc('"', f);
		for (p = s; *p; p++) {
			if (*p == '"' || *p == '\\')
				fputc('\\', f);
			fputc(*p, f);
		}
		fputc('"', f);
	}
}

/* A dscp-map as a flow mapping, "{ef: critical-plus, cs1: sheddable}" ("{}": none). */
static void put_dscp_map(FILE *f, const uint8_t *map)
{
	char d[8], c[16];
	unsigned int i, n = 0;

	fputc('{', f);
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++) {
		if (!map[i])
			continue;
		/* a class this program does not know is written as it is, refused on load */
		fprintf(f, "%s%s: %s", n++ ? ", " : "", kmg_fmt_dscp(i, d, sizeof(d)),
			kmg_fmt_dscp_class(map[i], c, sizeof(c)));
	}
	fputs("}\n", f);
}

/* Does field @fd of @s differ from its value in @def? */
static bool differs(const struct kmg_object *obj, const struct kmg_field *fd, const void *s,
		    const void *def)
{
	const struct kmg_attr_desc *d = kmg_field_desc(obj, fd);

	if (d->type == KMG_AT_BINARY)
		return memcmp((const char *)s + fd->off, (const char *)def + fd->off, d->len);
	return kmg_field_uint(obj, fd, s) != kmg_field_uint(obj, fd, def);
}

/* "INDENTkey: value" for every settable field of @s reported by the kernel (and != @def). */
static void put_fields(FILE *f, const char *indent, const struct kmg_object *obj,
		       const void *s, const void *def)
{
	uint64_t present = *(const uint64_t *)s;
	struct kmg_out o = { .secrets = true };
	char buf[KMG_FIELD_TEXT_LEN];
	unsigned int i, k;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *fd = &obj->fields[i];
		const struct kmg_attr_desc *d = kmg_field_desc(obj, fd);

		if (!((present >> fd->attr) & 1) ||
		    fd->flags & (KMG_FF_RO | KMG_FF_KEY | KMG_FF_STATE))
			continue;
		if (def && !differs(obj, fd, s, def))
			continue;
		fprintf(f, "%s%s: ", indent, kmg_field_key(obj, fd));
		if (fd->fmt == KMG_FMT_DSCP_MAP) {
			put_dscp_map(f, (const uint8_t *)s + fd->off);
			continue;
		}
		if (fd->fmt == KMG_FMT_FLAGS) {
			uint64_t v = kmg_field_uint(obj, fd, s), n = 0;

			fputc('[', f);
			for (k = 0; k < 32; k++)
				if (v & (1ULL << k) && k < d->enm->n)
					fprintf(f, "%s%s", n++ ? ", " : "", d->enm->names[k]);
			fputs("]\n", f);
			continue;
		}
		put_scalar(f, kmg_fmt_field(&o, obj, fd, s, buf, sizeof(buf)));
		fputc('\n', f);
	}
}

int kmd_config_save_yaml(FILE *f, const struct kmg_config *cfg, const struct kmg_service *svcs,
			 unsigned int n)
{
	static const uint8_t zero[KMG_SEED_BYTES];
	char buf[INET6_ADDRSTRLEN];
	struct kmg_service sdef;
	struct kmg_backend bdef;
	unsigned int i, k;

	memset(&sdef, 0, sizeof(sdef));
	memset(&bdef, 0, sizeof(bdef));
	kmd_service_defaults(&sdef, zero);
	kmd_backend_defaults(&bdef);
	fputs("# kmaglev daemon configuration, written by \"kmaglev save --yaml\" from the\n"
	      "# kernel's state. Settings at their defaults are left out; seeds are in clear.\n"
	      "# There are no health checks yet: add \"checks:\" to services (see\n"
	      "# Documentation/daemon.rst), then \"kmaglev daemon --check FILE\".\n", f);
	if (cfg && cfg->present) {
		fputs("config:\n", f);
		put_fields(f, "  ", &kmg_obj_config, cfg, NULL);
	}
	if (n)
		fputs("services:\n", f);
	for (i = 0; i < n; i++) {
		const struct kmg_service *s = &svcs[i];

		fputs("  - vip: ", f);
		put_scalar(f, kmg_fmt_addr(&s->key.addr, buf, sizeof(buf)));
		fprintf(f, "\n    port: %u\n", s->key.port);
		if (s->key.proto != IPPROTO_TCP)
			fprintf(f, "    proto: %s\n", kmg_fmt_proto(s->key.proto));
		put_fields(f, "    ", &kmg_obj_service, s, &sdef);
		if (s->nbe)
			fputs("    backends:\n", f);
		for (k = 0; k < s->nbe; k++) {
			fputs("      - address: ", f);
			put_scalar(f, kmg_fmt_addr(&s->be[k].addr, buf, sizeof(buf)));
			fputc('\n', f);
			put_fields(f, "        ", &kmg_obj_backend, &s->be[k], &bdef);
		}
	}
	return ferror(f) ? -EIO : 0;
}
