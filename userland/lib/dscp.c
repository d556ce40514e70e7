// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: the dscp-map's text form, DSCP names and classes (see dscp.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/dscp.h"
#include "lib/schema.h"
#include "lib/util.h"

_Static_assert(KMAGLEV_DSCP_MAP_LEN == 64, "a DSCP is 6 bits; the seen mask is 64 bits");

/* The standard names (RFC 2474 class selectors, RFC 2597 AF, RFC 3246 EF, RFC 8622 LE). */
static const struct {
	const char *name;
	uint8_t dscp;
} names[] = {
	{ "cs0", 0 }, { "le", 1 }, { "cs1", 8 }, { "af11", 10 }, { "af12", 12 }, { "af13", 14 },
	{ "cs2", 16 }, { "af21", 18 }, { "af22", 20 }, { "af23", 22 }, { "cs3", 24 },
	{ "af31", 26 }, { "af32", 28 }, { "af33", 30 }, { "cs4", 32 }, { "af41", 34 },
	{ "af42", 36 }, { "af43", 38 }, { "cs5", 40 }, { "ef", 46 }, { "cs6", 48 }, { "cs7", 56 },
};

#define DSCP_CHOICES	"0..63, cs0..cs7, af11..af43, ef or le"

int kmg_dscp_value(const char *s)
{
	uint32_t v;
	size_t i;

	for (i = 0; i < KMG_ARRAY_SIZE(names); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].dscp;
	if (!kmg_parse_u32(s, 0, KMAGLEV_DSCP_MAP_LEN - 1, &v))
		return v;
	return -1;
}

const char *kmg_dscp_name(unsigned int dscp)
{
	size_t i;

	for (i = 0; i < KMG_ARRAY_SIZE(names); i++)
		if (names[i].dscp == dscp)
			return names[i].name;
	return NULL;
}

const char *kmg_fmt_dscp(unsigned int dscp, char *buf, size_t len)
{
	const char *n = kmg_dscp_name(dscp);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "%u", dscp);
	return buf;
}

const char *kmg_dscp_class(uint8_t v)
{
	return v && v <= kmg_enum_criticality.n ? kmg_enum_criticality.names[v - 1] : NULL;
}

const char *kmg_fmt_dscp_class(uint8_t v, char *buf, size_t len)
{
	const char *cls = kmg_dscp_class(v);

	if (cls)
		return cls;
	snprintf(buf, len, "%u", v - 1);
	return buf;
}


int kmg_dscp_map_set(uint8_t map[KMAGLEV_DSCP_MAP_LEN], uint64_t *seen, const char *dscp,
		     const char *cls, char *why, size_t len)
{
	const struct kmg_enum *e = &kmg_enum_criticality;
	int d = kmg_dscp_value(dscp);
	char choices[96];
	unsigned int i;

	if (d < 0) {
		snprintf(why, len, "unknown DSCP \"%s\" (" DSCP_CHOICES ")", dscp);
		return -EINVAL;
	}
	if (*seen >> d & 1) {
		if (kmg_dscp_name(d))
			snprintf(why, len, "DSCP %d (%s) listed twice", d, kmg_dscp_name(d));
		else
			snprintf(why, len, "DSCP %d listed twice", d);
		return -EINVAL;
	}
	for (i = 0; i < e->n && strcmp(cls, e->names[i]); i++)
		;
	if (i == e->n) {
		snprintf(why, len, "unknown class \"%s\" for DSCP %s (%s)", cls, dscp,
			 kmg_choices(e->names, e->n, choices, sizeof(choices)));
		return -EINVAL;
	}
	*seen |= 1ULL << d;
	map[d] = i + 1;
	return 0;
}

/* @s without the blanks around it (in place). */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

int kmg_parse_dscp_map(const char *s, uint8_t map[KMAGLEV_DSCP_MAP_LEN], char *why,
		       size_t len)
{
	uint8_t out[KMAGLEV_DSCP_MAP_LEN] = { 0 };
	char *copy, *item, *next, *eq;
	uint64_t seen = 0;
	int ret = 0;

	if (!strcmp(s, "none")) {
		memset(map, 0, KMAGLEV_DSCP_MAP_LEN);
		return 0;
	}
	if (!*s) {
		snprintf(why, len, "expected DSCP=CLASS[,DSCP=CLASS...] or none");
		return -EINVAL;
	}
	copy = strdup(s);
	if (!copy) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (item = copy; item && !ret; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		item = trim(item);	/* "ef=critical, cs1=sheddable", as people write lists */
		eq = strchr(item, '=');
		if (!*item) {
			snprintf(why, len, "an empty entry (expected DSCP=CLASS[,DSCP=CLASS...])");
			ret = -EINVAL;
		} else if (!eq) {
			snprintf(why, len, "\"%s\" is not DSCP=CLASS", item);
			ret = -EINVAL;
		} else {
			*eq = '\0';
			ret = kmg_dscp_map_set(out, &seen, trim(item), trim(eq + 1), why, len);
		}
	}
	free(copy);
	if (!ret)
		memcpy(map, out, sizeof(out));
	return ret;
}

const char *kmg_fmt_dscp_map(const uint8_t map[KMAGLEV_DSCP_MAP_LEN], char *buf, size_t len)
{
	char d[8], c[16];
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN && n < len; i++) {
		if (!map[i])
			continue;
		n += snprintf(buf + n, len - n, "%s%s=%s", n ? "," : "",
			      kmg_fmt_dscp(i, d, sizeof(d)),
			      kmg_fmt_dscp_class(map[i], c, sizeof(c)));
	}
	if (!n)
		snprintf(buf, len, "none");
	return buf;
}
