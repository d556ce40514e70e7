// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev import keepalived FILE" and "kmaglev import ipvsadm [FILE | -]": a
 * keepalived.conf or the output of "ipvsadm-save -n" as a `kmaglev daemon` configuration
 * file, on standard output. What maps by a rule is noted on stderr; what does not map is
 * listed there with its FILE:LINE and why, and then nothing is written and the status is 1,
 * unless --accept-losses says to write the rest. The file written is one the daemon loads
 * (import.c reads it back with the daemon's loader first).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/import.h"
#include "lib/args.h"
#include "lib/err.h"

void kmg_usage_import(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev import keepalived [--accept-losses] FILE\n"
		"       kmaglev import ipvsadm [--accept-losses] [FILE | -]\n"
		"Writes a \"kmaglev daemon\" configuration file on standard output, from a\n"
		"keepalived.conf (with what it includes) or from the output of \"ipvsadm-save -n\"\n"
		"(standard input without FILE, or with \"-\"). Notes on stderr say what maps by a\n"
		"rule (the scheduler, persistence); every setting that does not map is listed\n"
		"there with its FILE:LINE and why, and nothing is written (status 1) unless\n"
		"--accept-losses is given. Then: kmaglev daemon --check FILE.\n");
}

int kmg_cmd_import(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const formats[] = { "keepalived", "ipvsadm" };
	struct kmg_imp imp = { .diag = stderr };
	const char *file = NULL;
	bool accept = false;
	char *yaml;
	int fmt, i, ret;

	if (argc < 2)
		return kmg_err(KMG_EUSAGE,
			       "import: which format? keepalived or ipvsadm; try \"kmaglev import help\"");
	fmt = kmg_pick(argv[1], formats, KMG_ARRAY_SIZE(formats), "format", "import");
	if (fmt < 0)
		return KMG_EUSAGE;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--accept-losses"))
			accept = true;
		else if (argv[i][0] == '-' && argv[i][1])
			return kmg_err(KMG_EUSAGE, "import: unknown option \"%s\"", argv[i]);
		else if (file)
			return kmg_err(KMG_EUSAGE, "import %s: unexpected \"%s\" after the file",
				       formats[fmt], argv[i]);
		else
			file = argv[i];
	}
	if (ctx->json)
		return kmg_err(KMG_EUSAGE, "import writes YAML, not JSON; drop -j");
	if (fmt == 0) {
		if (!file || !strcmp(file, "-"))
			return kmg_err(KMG_EUSAGE,
				       "import keepalived: give the FILE (includes are read relative to it)");
		ret = kmg_import_keepalived(&imp, file);
	} else if (!file || !strcmp(file, "-")) {
		ret = kmg_import_ipvsadm(&imp, stdin, "<stdin>");
	} else {
		FILE *in = fopen(file, "r");

		if (!in)
			return kmg_err(KMG_EFAIL, "cannot read %s: %s", file, strerror(errno));
		ret = kmg_import_ipvsadm(&imp, in, file);
		fclose(in);
	}
	if (ret)
		goto out;
	if (imp.nlosses && !accept) {
		ret = kmg_err(KMG_EFAIL,
			      "%u setting%s of %s %s not mapped (above): nothing written; --accept-losses writes the configuration without %s",
			      imp.nlosses, imp.nlosses == 1 ? "" : "s", imp.source,
			      imp.nlosses == 1 ? "is" : "are",
			      imp.nlosses == 1 ? "it" : "them");
		goto out;
	}
	yaml = kmg_imp_write(&imp, stderr);
	if (!yaml) {
		ret = KMG_EFAIL;
		goto out;
	}
	fputs(yaml, ctx->out);
	free(yaml);
	if (imp.nlosses)
		kmg_warn("%u setting%s of %s %s not mapped (above, and in the file's header)",
			 imp.nlosses, imp.nlosses == 1 ? "" : "s", imp.source,
			 imp.nlosses == 1 ? "is" : "are");
out:
	kmg_imp_free(&imp);
	return ret;
}
