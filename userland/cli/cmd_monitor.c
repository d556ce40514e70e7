// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev CLI: "kmaglev monitor": print the family's notifications (multicast group "events")
 * until SIGINT or SIGTERM, one line per event, as text or as one JSON object per line.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "lib/args.h"
#include "cli/cli.h"
#include "lib/err.h"

static volatile sig_atomic_t stop;

void kmg_usage_monitor(FILE *f)
{
	fprintf(f,
		"Usage: kmaglev [-t] [-j] monitor [all | OBJECT...]\n"
		"OBJECT := service | backend | table\n"
		"Prints service-new, service-del, service-change, service-flush, backend-new,\n"
		"backend-del, backend-change and table-change events of the chosen objects (default\n"
		"all) until interrupted, one per line. Each names who made the change: the netlink\n"
		"portid and sequence number of the request (0 for the kernel's own, a migration\n"
		"ending). After \"events lost\", dump the configuration again.\n"
		"-t adds the time each event arrived. With -j, one JSON object per line.\n");
}

int kmg_monitor_parse(struct kmg_ctx *ctx, int argc, char **argv)
{
	static const char *const objs[] = { "all", "service", "backend", "table" };
	int i;

	ctx->monitor = 0;
	for (i = 1; i < argc; i++) {
		int k = kmg_pick(argv[i], objs, KMG_ARRAY_SIZE(objs), "object", "monitor");

		if (k < 0)
			return KMG_EUSAGE;
		ctx->monitor |= k ? 1U << (k - 1) : KMG_MON_SERVICE | KMG_MON_BACKEND |
						    KMG_MON_TABLE;
	}
	return 0;
}

static unsigned int event_object(uint8_t cmd)
{
	switch (cmd) {
	case KMAGLEV_CMD_SERVICE_NEW_NTF:
	case KMAGLEV_CMD_SERVICE_DEL_NTF:
	case KMAGLEV_CMD_SERVICE_CHANGE_NTF:
	case KMAGLEV_CMD_SERVICE_FLUSH_NTF:
		return KMG_MON_SERVICE;
	case KMAGLEV_CMD_BACKEND_NEW_NTF:
	case KMAGLEV_CMD_BACKEND_DEL_NTF:
	case KMAGLEV_CMD_BACKEND_CHANGE_NTF:
		return KMG_MON_BACKEND;
	default:
		return KMG_MON_TABLE;
	}
}

/* Print one notification; anything else on the socket is ignored. */
int kmg_monitor_event(struct kmg_ctx *ctx, const struct nlmsghdr *nlh)
{
	const char *name;
	struct kmg_out o;
	struct kmg_msg m;
	char buf[64];

	if (nlh->nlmsg_type != ctx->nl.family_id)
		return 0;
	if (kmg_msg_parse(nlh, &m)) {
		kmg_warn("%s", kmg_errmsg());
		return 0;
	}
	if (ctx->monitor && !(ctx->monitor & event_object(m.cmd))) {
		kmg_msg_free(&m);
		return 0;
	}
	name = kmg_cmd_name(m.cmd);
	kmg_ctx_out(ctx, &o);
	o.pretty = false;
	kmg_out_open(&o, NULL);
	if (ctx->timestamp) {
		struct timespec ts;
		struct tm tm;
		size_t n;

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf + n, sizeof(buf) - n, ".%06ldZ", ts.tv_nsec / 1000);
		kmg_out_str(&o, "time", buf);
	}
	kmg_out_str(&o, "event", name ? name : "unknown");
	kmg_out_uint(&o, "portid", nlh->nlmsg_pid);
	kmg_out_uint(&o, "seq", nlh->nlmsg_seq);
	kmg_out_event(&o, &m);
	kmg_out_close(&o);
	kmg_out_end(&o);
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

	ret = kmg_monitor_parse(ctx, argc, argv);
	if (ret)
		return ret;
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
