// SPDX-License-Identifier: GPL-2.0
/* kmaglev: command-line control of the kmaglev load balancer. Global options and main(). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/err.h"

/* -n NETNS: a name under /run/netns (as "ip netns" keeps them), or a path. */
static int enter_netns(const char *ns)
{
	char path[4096];
	int fd;

	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kmaglev: cannot open network namespace \"%s\": %s\n", ns,
			strerror(errno));
		return KMG_EFAIL;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "kmaglev: cannot enter network namespace \"%s\": %s\n", ns,
			strerror(errno));
		close(fd);
		return KMG_EFAIL;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "netns", required_argument, NULL, 'n' },
		{ "timestamp", no_argument, NULL, 't' },
		{ "show-secrets", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct kmg_ctx ctx = { .out = stdout };
	const char *batch = NULL, *netns = NULL;
	int c, ret;

	opterr = 0;
	/* "+": options end at the object, so that command arguments are never reordered */
	while ((c = getopt_long(argc, argv, "+jpb:n:thV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctx.json = true;
			break;
		case 'p':
			ctx.json = true;
			ctx.pretty = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'n':
			netns = optarg;
			break;
		case 't':
			ctx.timestamp = true;
			break;
		case 'S':
			ctx.secrets = true;
			break;
		case 'h':
			kmg_usage(stdout);
			return 0;
		case 'V':
			printf("kmaglev %s (netlink family %s version %u)\n", KMAGLEV_VERSION,
			       KMAGLEV_FAMILY_NAME, KMAGLEV_FAMILY_VERSION);
			return 0;
		default:
			if (optopt == 'b')
				fprintf(stderr, "kmaglev: option -b needs a FILE (\"-\" for stdin)\n");
			else if (optopt == 'n')
				fprintf(stderr, "kmaglev: option -n needs a NETNS\n");
			else if (optopt)
				fprintf(stderr, "kmaglev: unknown option \"-%c\"; try \"kmaglev -h\"\n",
					optopt);
			else
				fprintf(stderr, "kmaglev: unknown option \"%s\"; try \"kmaglev -h\"\n",
					argv[optind - 1]);
			return KMG_EUSAGE;
		}
	}
	if (batch && optind < argc) {
		fprintf(stderr, "kmaglev: -b FILE takes no command; put \"%s ...\" in the file\n",
			argv[optind]);
		return KMG_EUSAGE;
	}
	if (!batch && optind >= argc) {
		kmg_usage(stderr);
		return KMG_EUSAGE;
	}
	/* before the netlink socket opens: it belongs to the netns it was created in */
	if (netns && enter_netns(netns))
		return KMG_EFAIL;
	if (batch)
		ret = kmg_batch(&ctx, batch);
	else
		ret = kmg_run(&ctx, argc - optind, argv + optind);
	fflush(stdout);
	if (ret)
		kmg_err_print();
	kmg_ctx_close(&ctx);
	return ret;
}
