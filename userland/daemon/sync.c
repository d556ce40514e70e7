// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: keeping the kernel in the desired state. Reads the kernel's services and
 * settings, plans with reconcile.c, sends the plan's requests, and watches the family's
 * events group for changes someone else made to the services we own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session.h"
#include "lib/err.h"
#include "daemon/announce.h"
#include "lib/log.h"
#include "daemon/reconcile.h"
#include "daemon/state.h"
#include "daemon/sync.h"

int kmd_kernel_read(struct kmd *d, struct kmg_msgs *svcs, struct kmg_config *kcfg)
{
	struct kmg_msgs l = { 0 };
	struct nlmsghdr *nlh;
	unsigned int i;
	void *buf;
	int ret;

	ret = kmg_services_get(&d->ctx, NULL, svcs);
	if (ret)
		return -EIO;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return -ENOMEM;
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
	ret = kmg_ctx_talk(&d->ctx, nlh, kmg_collect_cb, &l, NULL);
	free(buf);
	memset(kcfg, 0, sizeof(*kcfg));
	for (i = 0; !ret && i < l.n; i++)
		if (KMG_HAS(&l.m[i], KMAGLEV_A_CONFIG))
			*kcfg = l.m[i].config;
	kmg_msgs_free(&l);
	if (ret)
		return -EIO;
	d->probe_mark_min = kcfg->probe_mark_min;
	d->probe_mark_max = kcfg->probe_mark_max;
	return 0;
}

int kmd_send_op(struct kmd *d, const struct kmd_op *op)
{
	struct nlmsghdr *nlh;
	void *buf;
	int ret;

	buf = kmg_req_buf(op->cmd == KMAGLEV_CMD_CONFIG_SET ? NULL : &op->svc);
	if (!buf)
		return -ENOMEM;
	if (op->cmd == KMAGLEV_CMD_CONFIG_SET)
		ret = kmg_config_req(buf, op->cmd, &op->cfg, &nlh);
	else
		ret = kmg_service_req(buf, op->cmd, 0, &op->svc, &nlh);
	if (!ret)
		ret = kmg_ctx_talk(&d->ctx, nlh, NULL, NULL, NULL);
	free(buf);
	return ret ? -EIO : 0;
}

static const char *op_name(uint8_t cmd)
{
	switch (cmd) {
	case KMAGLEV_CMD_SERVICE_NEW:
		return "add";
	case KMAGLEV_CMD_SERVICE_SET:
		return "set";
	case KMAGLEV_CMD_SERVICE_DEL:
		return "delete";
	default:
		return "config set";
	}
}

int kmd_reconcile(struct kmd *d)
{
	struct kmg_msgs kernel = { 0 };
	struct kmd_plan plan = { 0 };
	struct kmg_service *want = NULL;
	struct kmg_config kcfg;
	bool *keep = NULL;
	unsigned int i, nwant = 0;
	char name[128];
	int ret, err = 0;

	d->n.reconcile_runs++;
	ret = kmd_kernel_read(d, &kernel, &kcfg);
	if (ret) {
		kmd_err("reading the kernel's services: %s", kmg_errmsg());
		goto out;
	}
	ret = kmd_state_update(d, &kernel);
	if (ret)
		goto out;
	want = d->nsvc ? calloc(d->nsvc, sizeof(*want)) : NULL;
	if (d->nsvc && !want) {
		ret = -ENOMEM;
		goto out;
	}
	for (nwant = 0; nwant < d->nsvc; nwant++) {
		ret = kmd_want_service(&d->svc[nwant], d->cfg, &want[nwant]);
		if (ret)
			goto out;
	}
	/*
	 * enforce: warn. A service whose desired state did not change since it was last
	 * applied is left as the kernel has it, whoever changed it there.
	 */
	if (d->cfg->daemon.enforce == KMD_WARN) {
		keep = calloc(nwant ? nwant : 1, sizeof(*keep));
		if (!keep) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < nwant; i++)
			keep[i] = d->svc[i].has_last &&
				  !kmd_service_diff(&want[i], &d->svc[i].last, name, sizeof(name));
	}
	ret = kmd_plan(want, nwant, keep, &d->cfg->kcfg, &kernel, &kcfg, d->cfg->daemon.owner,
		       &plan);
	free(keep);
	keep = NULL;
	if (ret)
		goto out;
	for (i = 0; i < plan.n; i++) {
		const struct kmd_op *op = &plan.ops[i];

		d->n.reconcile_msgs++;
		if (op->cmd == KMAGLEV_CMD_CONFIG_SET)
			snprintf(name, sizeof(name), "settings");
		else
			kmg_fmt_svc_key(&op->svc.key, name, sizeof(name));
		if (kmd_send_op(d, op)) {
			d->n.reconcile_errors++;
			kmd_err("%s %s (%s): %s", op_name(op->cmd), name, op->why, kmg_errmsg());
			err = -EIO;
			continue;
		}
		kmd_info("%s %s: %s", op_name(op->cmd), name, op->why);
	}
	/* learn the ids of new backends (of those that applied): their tunnel probes start */
	if (plan.n) {
		kmg_msgs_free(&kernel);
		if (!kmd_kernel_read(d, &kernel, &kcfg))
			ret = kmd_state_update(d, &kernel);
	}
	if (!ret)
		ret = err;
	/* what was asked last, per service (warn mode leaves hand changes to the rest alone) */
	for (i = 0; !err && i < nwant; i++) {
		free(d->svc[i].last.be);
		d->svc[i].last = want[i];
		d->svc[i].has_last = true;
		want[i].be = NULL;
	}
out:
	for (i = 0; i < nwant; i++)
		free(want[i].be);
	free(want);
	kmd_plan_free(&plan);
	kmg_msgs_free(&kernel);
	/*
	 * A failure is retried sooner than the periodic pass, backing off from 2 s to the
	 * pass's 30 s while it keeps failing (a request the kernel refuses for good, say).
	 */
	if (ret) {
		d->retry_s = d->retry_s ? d->retry_s * 2 : 2.;
		if (d->retry_s > KMD_RESYNC_S)
			d->retry_s = KMD_RESYNC_S;
		ev_timer_stop(d->loop, &d->resync_w);
		ev_timer_set(&d->resync_w, d->retry_s, KMD_RESYNC_S);
		ev_timer_start(d->loop, &d->resync_w);
	} else {
		d->retry_s = 0;
	}
	/* health may have moved a service over or under its quorum */
	kmd_bgp_update(d);
	return ret;
}

/*
 * A pass 50 ms from now: health changes that come in a burst share it. A timer, not an idle
 * watcher: with thousands of probes the loop is seldom idle.
 */
#define KMD_SOON_S	0.05

static void reconcile_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	kmd_reconcile(w->data);
}

void kmd_reconcile_soon(struct kmd *d)
{
	if (!ev_is_active(&d->reconcile_w)) {
		ev_timer_init(&d->reconcile_w, reconcile_cb, KMD_SOON_S, 0.);
		d->reconcile_w.data = d;
		ev_timer_start(d->loop, &d->reconcile_w);
	}
}

/*
 * Read the kernel and take its ids and states, without changing anything (enforce: warn). A
 * backend id can be reused by the next backend added, so tunnel probes must learn ids anew
 * after any change they did not make.
 */
static void refresh_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct kmd *d = w->data;
	struct kmg_msgs kernel = { 0 };
	struct kmg_config kcfg;

	if (!kmd_kernel_read(d, &kernel, &kcfg))
		kmd_state_update(d, &kernel);
	kmg_msgs_free(&kernel);
}

void kmd_refresh_soon(struct kmd *d)
{
	if (!ev_is_active(&d->refresh_w)) {
		ev_timer_init(&d->refresh_w, refresh_cb, KMD_SOON_S, 0.);
		d->refresh_w.data = d;
		ev_timer_start(d->loop, &d->refresh_w);
	}
}

/* --- events ------------------------------------------------------------------------------- */

static const struct kmd_svc *owned_svc(const struct kmd *d, const struct kmg_service *s)
{
	unsigned int i;

	for (i = 0; i < d->nsvc; i++) {
		const struct kmg_svc_key *k = &d->svc[i].conf->svc.key;

		if (KMG_HAS(s, KMAGLEV_A_SERVICE_ID) && d->svc[i].kernel_id &&
		    s->id == d->svc[i].kernel_id)
			return &d->svc[i];
		if (k->proto == s->key.proto && k->port == s->key.port &&
		    !kmg_addr_cmp(&k->addr, &s->key.addr))
			return &d->svc[i];
	}
	return NULL;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct kmd *d = data;
	struct kmg_msg m;
	const struct kmd_svc *s;
	char name[128];

	if (kmg_msg_parse(nlh, &m))
		return MNL_CB_OK;
	s = owned_svc(d, &m.svc);
	if (!s && m.cmd != KMAGLEV_CMD_SERVICE_FLUSH_NTF)
		goto out;
	if (m.cmd == KMAGLEV_CMD_TABLE_NTF) {
		d->n.table_builds++;
		goto out;
	}
	/* our own requests carry our port id; the workqueue's carry 0 */
	if (nlh->nlmsg_pid == d->portid || nlh->nlmsg_pid == 0)
		goto out;
	d->n.foreign_changes++;
	kmd_warn("%s by another program (port id %u)%s%s; %s",
		 kmg_cmd_name(m.cmd), nlh->nlmsg_pid, s ? " of owned service " : "",
		 s ? kmd_svc_name(s, name, sizeof(name)) : "",
		 d->cfg->daemon.enforce == KMD_ENFORCE ? "restoring the configured state" :
		 "leaving it (enforce: warn)");
	/*
	 * At most one pass a second for these: two programs that fight over a service must not
	 * rebuild its table as fast as netlink goes.
	 */
	if (d->cfg->daemon.enforce == KMD_ENFORCE) {
		if (!ev_is_active(&d->foreign_w)) {
			ev_timer_set(&d->foreign_w, 1., 0.);
			ev_timer_start(d->loop, &d->foreign_w);
		}
	} else {
		kmd_refresh_soon(d);	/* new backends, new ids: tunnel probes follow */
	}
out:
	kmg_msg_free(&m);
	return MNL_CB_OK;
}

static void events_cb(struct ev_loop *loop, ev_io *w, int revents)
{
	struct kmd *d = w->data;
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = recv(mnl_socket_get_fd(d->events.sk), buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			/* events were lost: only a full pass is sure to see every change */
			kmd_warn("events lost (receive buffer overflow): reconciling everything");
			kmd_reconcile_soon(d);
			continue;
		}
		if (n <= 0)
			return;
		mnl_cb_run(buf, n, 0, 0, event_cb, d);
	}
}

static void foreign_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	kmd_reconcile_soon(w->data);
}

int kmd_events_start(struct kmd *d)
{
	int ret;

	ev_init(&d->foreign_w, foreign_cb);
	d->foreign_w.data = d;

	ret = kmg_nl_open(&d->events, KMAGLEV_FAMILY_NAME);
	if (ret)
		return ret;
	d->events_open = true;
	ret = kmg_nl_join_events(&d->events);
	if (ret)
		return ret;
	ev_io_init(&d->events_w, events_cb, mnl_socket_get_fd(d->events.sk), EV_READ);
	d->events_w.data = d;
	ev_io_start(d->loop, &d->events_w);
	return 0;
}

void kmd_events_stop(struct kmd *d)
{
	ev_timer_stop(d->loop, &d->foreign_w);
	if (!d->events_open)
		return;
	ev_io_stop(d->loop, &d->events_w);
	kmg_nl_close(&d->events);
	d->events_open = false;
}
