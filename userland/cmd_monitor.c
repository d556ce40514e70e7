// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev monitor": print the family's notifications (multicast group "events")
 * until SIGINT or SIGTERM, one line per event, as text or as one JSON object per line.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "err.h"

static volatile sig_atomic_t stop;

void kmg_usage_monitor(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev monitor\n"
		"Prints service-new, service-del, service-change, backend-new, backend-del,\n"
		"backend-change and table events until interrupted. With -j, one JSON object per\n"
		"line with an \"event\" field.\n");
}

/* Print one notification; anything else on the socket is ignored. */
int kmg_monitor_event(struct kmg_ctx *ctx, const struct nlmsghdr *nlh)
{
	struct kmg_msg m;

	if (nlh->nlmsg_type != ctx->nl.family_id)
		return 0;
	if (kmg_msg_parse(nlh, &m)) {
		kmg_warn("%s", kmg_errmsg());
		return 0;
	}
	if (ctx->json)
		kmg_json_print(ctx->out, kmg_json_event(&m), false);
	else
		kmg_print_event(ctx->out, &m);
	fflush(ctx->out);
	kmg_msg_free(&m);
	return 1;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	kmg_monitor_event(data, nlh);
	return MNL_CB_OK;
}

static void on_signal(int sig)
{
	stop = 1;
}

static void lost(void)
{
	kmg_warn("events lost: the receive buffer overflowed");
}

int kmg_cmd_monitor(struct kmg_ctx *ctx, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	int ret;

	if (argc > 1)
		return kmg_err(KMG_EUSAGE, "unexpected \"%s\" after \"monitor\"", argv[1]);
	ret = kmg_ctx_nl(ctx);
	if (ret)
		return ret;
	ret = kmg_nl_join_events(&ctx->nl);
	if (ret == -ENOENT)
		return kmg_err(KMG_EFAIL, "the kernel's kmaglev family has no \"events\" group");
	if (ret)
		return kmg_err(KMG_EFAIL, "cannot join the events group: %s", strerror(-ret));

	stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	/* the signals get through only while waiting in ppoll(): no lost wakeups */
	sigprocmask(SIG_BLOCK, &block, &old);
	{
		sigset_t wait = old;

		sigdelset(&wait, SIGINT);
		sigdelset(&wait, SIGTERM);
		ret = kmg_nl_listen(&ctx->nl, event_cb, ctx, &stop, &wait, lost);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (ret)
		return kmg_err(KMG_EFAIL, "receiving events: %s", strerror(-ret));
	return 0;
}
