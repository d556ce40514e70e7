/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the unit tests: argv from a string, attribute lookup in built messages. */
#ifndef KMAGLEV_TEST_HELPERS_H
#define KMAGLEV_TEST_HELPERS_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "cli/cli.h"
#include "lib/err.h"

/* Words of a command line, split like a batch line. */
struct targv {
	char *buf;
	char **argv;
	int argc;
};

static inline struct targv targv(const char *line)
{
	struct targv t;

	t.buf = strdup(line);
	assert_non_null(t.buf);
	t.argc = kmg_split_line(t.buf, &t.argv);
	assert_true(t.argc >= 0);
	return t;
}

static inline void targv_free(struct targv *t)
{
	free(t->argv);
	free(t->buf);
}

/* The first attribute of @type at the top level of a generic netlink message. */
static inline const struct nlattr *top_attr(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

/* The @idx-th attribute of @type in @nest. */
static inline const struct nlattr *nest_attr_n(const struct nlattr *nest, uint16_t type,
					       unsigned int idx)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest)
		if (mnl_attr_get_type(a) == type && !idx--)
			return a;
	return NULL;
}

static inline const struct nlattr *nest_attr(const struct nlattr *nest, uint16_t type)
{
	return nest_attr_n(nest, type, 0);
}

static inline unsigned int nest_count(const struct nlattr *nest, uint16_t type)
{
	const struct nlattr *a;
	unsigned int n = 0;

	mnl_attr_for_each_nested(a, nest)
		n += mnl_attr_get_type(a) == type;
	return n;
}

/* The command of a generic netlink message. */
static inline uint8_t genl_cmd(const struct nlmsghdr *nlh)
{
	return ((const struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd;
}

/* Output captured in memory. */
struct tout {
	char *buf;
	size_t len;
	FILE *f;
};

static inline void tout_open(struct tout *o)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
}

static inline const char *tout_text(struct tout *o)
{
	fflush(o->f);
	return o->buf;
}

static inline void tout_close(struct tout *o)
{
	fclose(o->f);
	free(o->buf);
}

#endif
