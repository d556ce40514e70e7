// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: batch mode (-b FILE). One command per line, as it would follow "kmaglev" on a
 * command line; blank lines and "#" comments are skipped; words may be quoted with '...' or
 * "..." and a backslash escapes the next character. The first failing line stops the batch.
 * All lines share one netlink socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/err.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

int kmg_split_line(char *line, char ***argvp)
{
	char **argv = NULL, *src = line, *dst;
	int argc = 0;

	*argvp = NULL;
	for (;;) {
		char **p;
		char *word;

		while (is_space(*src))
			src++;
		if (!*src || *src == '#')
			break;
		word = dst = src;
		while (*src && !is_space(*src)) {
			if (*src == '\'' || *src == '"') {
				char q = *src++;

				while (*src && *src != q) {
					if (q == '"' && *src == '\\' && (src[1] == '"' || src[1] == '\\'))
						src++;
					*dst++ = *src++;
				}
				if (!*src) {
					free(argv);
					return kmg_err(-1, "unterminated %s quote",
						       q == '"' ? "double" : "single");
				}
				src++;
			} else if (*src == '\\' && src[1]) {
				src++;
				*dst++ = *src++;
			} else {
				*dst++ = *src++;
			}
		}
		/* the end of the word may be the separator: look at it before overwriting */
		if (*src)
			src++;
		*dst = '\0';
		p = realloc(argv, (argc + 2) * sizeof(*argv));
		if (!p) {
			free(argv);
			return kmg_err(-1, "out of memory");
		}
		argv = p;
		argv[argc++] = word;
		argv[argc] = NULL;
	}
	*argvp = argv;
	return argc;
}

int kmg_batch(struct kmg_ctx *ctx, const char *path)
{
	bool use_stdin = !strcmp(path, "-");
	FILE *f = use_stdin ? stdin : fopen(path, "r");
	size_t cap = 0;
	char *line = NULL;
	int lineno = 0, ret = 0;

	if (!f)
		return kmg_err(KMG_EFAIL, "cannot open batch file \"%s\": %s", path, strerror(errno));
	ctx->batch = true;
	while (getline(&line, &cap, f) >= 0) {
		char **argv;
		int argc;

		lineno++;
		kmg_err_set_line(lineno);
		argc = kmg_split_line(line, &argv);
		if (argc < 0) {
			ret = KMG_EUSAGE;
			break;
		}
		if (!argc)
			continue;
		if (argv[0][0] == '-')
			ret = kmg_err(KMG_EUSAGE,
				      "options such as \"%s\" go on the command line, not in batch lines",
				      argv[0]);
		else
			ret = kmg_run(ctx, argc, argv);
		free(argv);
		fflush(ctx->out);
		if (ret)
			break;
	}
	if (!ret && ferror(f))
		ret = kmg_err(KMG_EFAIL, "reading batch file \"%s\": %s", path, strerror(errno));
	if (!ret)
		kmg_err_set_line(0);
	free(line);
	if (!use_stdin)
		fclose(f);
	ctx->batch = false;
	return ret;
}
