// SPDX-License-Identifier: GPL-2.0
/* kmaglev: command-line control of the kmaglev load balancer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kmaglev.h>

#include "nl.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev [OPTIONS] OBJECT COMMAND [ARGS]\n"
		"  kmaglev family            show the kernel's kmaglev netlink family\n");
}

static int cmd_family(int argc, char **argv)
{
	struct kmg_nl nl;
	int ret = kmg_nl_open(&nl, KMAGLEV_FAMILY_NAME);

	if (ret) {
		fprintf(stderr, "kmaglev: netlink family %s: %s%s\n", KMAGLEV_FAMILY_NAME,
			strerror(-ret), ret == -ENOENT ? " (is kmaglev.ko loaded?)" : "");
		return 1;
	}
	printf("family %s id %u version %u events-group %u\n", KMAGLEV_FAMILY_NAME,
	       nl.family_id, nl.family_version, nl.events_group);
	kmg_nl_close(&nl);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "family"))
		return cmd_family(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "kmaglev: unknown object \"%s\"; try \"kmaglev help\"\n", argv[1]);
	return 2;
}
