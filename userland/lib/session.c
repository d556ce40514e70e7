// SPDX-License-Identifier: GPL-2.0
/* kmaglev: a session with the family, for the command and the daemon (see session.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "lib/err.h"
#include "lib/schema.h"
#include "lib/session.h"

int kmg_ctx_nl(struct kmg_ctx *ctx)
{
	int ret;

	if (ctx->nl_open)
		return 0;
	ret = kmg_nl_open(&ctx->nl, KMAGLEV_FAMILY_NAME);
	if (ret == -ENOENT)
		return kmg_err(KMG_EFAIL, "netlink family \"%s\" not found (is kmaglev.ko loaded?)",
			       KMAGLEV_FAMILY_NAME);
	if (ret)
		return kmg_err(KMG_EFAIL, "netlink family \"%s\": %s", KMAGLEV_FAMILY_NAME,
			       strerror(-ret));
	ctx->nl_open = true;
	return 0;
}

void kmg_ctx_close(struct kmg_ctx *ctx)
{
	if (ctx->nl_open)
		kmg_nl_close(&ctx->nl);
	ctx->nl_open = false;
}

struct nlmsghdr *kmg_req_start(void *buf, uint8_t cmd, uint16_t flags)
{
	/* the family id and sequence number are filled in when it is sent */
	return kmg_genl_put(buf, 0, cmd, KMAGLEV_FAMILY_VERSION, flags);
}

int kmg_ctx_talk(struct kmg_ctx *ctx, struct nlmsghdr *nlh, mnl_cb_t cb, void *data, int *errp)
{
	struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct kmg_msgs *l = cb == kmg_collect_cb ? data : NULL;
	unsigned int n0 = l ? l->n : 0, tries;
	char buf[1024];
	int ret;

	if (errp)
		*errp = 0;
	ret = kmg_ctx_nl(ctx);
	if (ret)
		return ret;
	nlh->nlmsg_type = ctx->nl.family_id;
	nlh->nlmsg_seq = ++ctx->nl.seq;
	if (ctx->nl.family_version)
		g->version = ctx->nl.family_version;
	for (tries = 1;; tries++) {
		kmg_err_clear();
		ret = kmg_nl_talk(&ctx->nl, nlh, cb, data);
		/* a dump that spanned a configuration change: collect it again */
		if (ret != -EINTR || !l || tries == 5)
			break;
		while (l->n > n0)
			kmg_msg_free(&l->m[--l->n]);
		nlh->nlmsg_seq = ++ctx->nl.seq;
	}
	if (errp)
		*errp = ret;
	if (!ret)
		return 0;
	if (ret == -EINTR)
		return kmg_err(KMG_EFAIL, "the configuration kept changing during the dump; retry");
	/* a reply we could not decode has its own message already */
	if (ret == -EBADMSG && kmg_errmsg()[0])
		return KMG_EFAIL;
	kmg_nl_errstr(&ctx->nl, nlh, ret, &kmg_schema_kmaglev, buf, sizeof(buf));
	return kmg_err(KMG_EFAIL, "%s", buf);
}

void kmg_ctx_out(struct kmg_ctx *ctx, struct kmg_out *o)
{
	kmg_out_init(o, ctx->out, ctx->json, ctx->pretty);
	o->secrets = ctx->secrets;
}

int kmg_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	struct kmg_msgs *l = data;

	if (kmg_grow(&l->m, l->n, sizeof(*l->m))) {
		kmg_err(KMG_EFAIL, "out of memory");
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (kmg_msg_parse(nlh, &l->m[l->n])) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	l->n++;
	return MNL_CB_OK;
}

void kmg_msgs_free(struct kmg_msgs *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		kmg_msg_free(&l->m[i]);
	free(l->m);
	l->m = NULL;
	l->n = 0;
}

void kmg_msgs_keep(struct kmg_msgs *l, uint8_t a, uint8_t b)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (l->m[i].cmd == a || l->m[i].cmd == b)
			l->m[n++] = l->m[i];
		else
			kmg_msg_free(&l->m[i]);
	}
	l->n = n;
}

void *kmg_req_buf(const struct kmg_service *s)
{
	void *buf = calloc(1, kmg_msg_size_hint(s));

	if (!buf)
		kmg_err(KMG_EFAIL, "out of memory");
	return buf;
}

int kmg_backends_of(struct kmg_ctx *ctx, const struct kmg_service *s, struct kmg_backend **be,
		    unsigned int *n)
{
	struct kmg_msgs bl = { 0 };
	struct kmg_service key = *s;
	struct nlmsghdr *nlh;
	unsigned int i, k;
	void *buf;
	int ret;

	*be = NULL;
	*n = 0;
	key.present &= KMG_SVC_KEY_MASK;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	nlh = kmg_req_start(buf, KMAGLEV_CMD_BACKEND_GET, NLM_F_DUMP);
	kmg_put_service_key(nlh, &key);
	ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &bl, NULL);
	for (i = 0; !ret && i < bl.n; i++) {
		for (k = 0; k < bl.m[i].nbe; k++) {
			struct kmg_backend *b = kmg_backend_append(be, n);

			if (!b) {
				ret = kmg_err(KMG_EFAIL, "out of memory");
				break;
			}
			*b = bl.m[i].be[k];
		}
	}
	kmg_msgs_free(&bl);
	free(buf);
	return ret;
}

int kmg_config_req(void *buf, uint8_t cmd, const struct kmg_config *c, struct nlmsghdr **nlhp)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, 0);

	if (c)
		kmg_put_config(nlh, c);
	*nlhp = nlh;
	return 0;
}

int kmg_config_get(struct kmg_ctx *ctx, struct kmg_config *c, int *errp)
{
	struct kmg_msgs l = { 0 };
	struct nlmsghdr *nlh;
	unsigned int i;
	void *buf;
	int ret;

	memset(c, 0, sizeof(*c));
	if (errp)
		*errp = 0;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	kmg_config_req(buf, KMAGLEV_CMD_CONFIG_GET, NULL, &nlh);
	ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &l, errp);
	for (i = 0; !ret && i < l.n; i++)
		if (KMG_HAS(&l.m[i], KMAGLEV_A_CONFIG))
			*c = l.m[i].config;
	kmg_msgs_free(&l);
	free(buf);
	return ret;
}

/* --- services, backends and counters, as the command and the daemon read them ----------- */

int kmg_service_req(void *buf, uint8_t cmd, uint16_t flags, const struct kmg_service *s,
		    struct nlmsghdr **nlhp)
{
	struct nlmsghdr *nlh = kmg_req_start(buf, cmd, flags);
	int ret = 0;

	if (s && (cmd == KMAGLEV_CMD_SERVICE_NEW || cmd == KMAGLEV_CMD_SERVICE_SET)) {
		ret = kmg_put_service(nlh, s);
		if (ret == -EMSGSIZE) {
			/* more backends than one attribute holds: top-level backend nests */
			nlh = kmg_req_start(buf, cmd, flags);
			ret = kmg_put_service_big(nlh, s);
		}
	} else if (s) {
		ret = kmg_put_service_key(nlh, s);
	}
	if (ret)
		return kmg_err(KMG_EUSAGE, "cannot encode the request: %s", strerror(-ret));
	*nlhp = nlh;
	return 0;
}

static bool same_service(const struct kmg_service *a, const struct kmg_service *b)
{
	if (KMG_HAS(a, KMAGLEV_A_SERVICE_ID) && KMG_HAS(b, KMAGLEV_A_SERVICE_ID))
		return a->id == b->id;
	return a->key.addr.family && kmg_addr_equal(&a->key.addr, &b->key.addr) &&
	       a->key.proto == b->key.proto && a->key.port == b->key.port;
}

/* Put each backend of @bl under its service in @sl. */
void kmg_attach_backends(struct kmg_msgs *sl, const struct kmg_msgs *bl)
{
	unsigned int i, j, k, last = 0;

	for (i = 0; i < bl->n; i++) {
		const struct kmg_msg *bm = &bl->m[i];

		/* both dumps go by service id: look where the last backend went first */
		for (j = 0; j < sl->n; j++) {
			struct kmg_service *s = &sl->m[(last + j) % sl->n].svc;

			if (!same_service(s, &bm->svc))
				continue;
			last = (last + j) % sl->n;
			for (k = 0; k < bm->nbe; k++) {
				struct kmg_backend *b = kmg_backend_append(&s->be, &s->nbe);

				if (b)
					*b = bm->be[k];
			}
			KMG_SET(s, KMAGLEV_A_SERVICE_BACKEND);
			break;
		}
	}
}

int kmg_services_get(struct kmg_ctx *ctx, const struct kmg_service *key, struct kmg_msgs *sl)
{
	struct kmg_msgs bl = { 0 };
	struct nlmsghdr *nlh;
	void *buf;
	int ret;

	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	ret = kmg_service_req(buf, KMAGLEV_CMD_SERVICE_GET, key ? 0 : NLM_F_DUMP, key, &nlh);
	if (!ret)
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, sl, NULL);
	if (!ret)
		ret = kmg_service_req(buf, KMAGLEV_CMD_BACKEND_GET, NLM_F_DUMP, key, &nlh);
	if (!ret)
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, &bl, NULL);
	if (!ret)
		kmg_attach_backends(sl, &bl);
	kmg_msgs_free(&bl);
	free(buf);
	return ret;
}

/*
 * The stats dump continues a service with more backends than fit in one message in further
 * messages: the service key again, without its counters, and the next backends. Fold those
 * into the service's first message.
 */
static int merge_continued(struct kmg_msgs *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++) {
		struct kmg_msg *m = &l->m[i], *p = n ? &l->m[n - 1] : NULL;
		unsigned int k;

		if (p && KMG_HAS(m, KMAGLEV_A_SERVICE) && !KMG_HAS(m, KMAGLEV_A_STATS) &&
		    KMG_HAS(p, KMAGLEV_A_SERVICE) && KMG_HAS(&m->svc, KMAGLEV_A_SERVICE_ID) &&
		    KMG_HAS(&p->svc, KMAGLEV_A_SERVICE_ID) && m->svc.id == p->svc.id) {
			for (k = 0; k < m->nbe; k++) {
				struct kmg_backend *b = kmg_backend_append(&p->be, &p->nbe);

				if (!b) {
					while (i < l->n)
						l->m[n++] = l->m[i++];
					l->n = n;
					return kmg_err(KMG_EFAIL, "out of memory");
				}
				*b = m->be[k];
			}
			kmg_msg_free(m);
			continue;
		}
		if (i != n)
			l->m[n] = *m;
		n++;
	}
	l->n = n;
	return 0;
}

int kmg_stats_dump(struct kmg_ctx *ctx, struct kmg_msgs *l)
{
	struct nlmsghdr *nlh;
	void *buf;
	int ret, err;

	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	/* netns-wide counters, where the kernel has them */
	kmg_service_req(buf, KMAGLEV_CMD_STATS_GET, 0, NULL, &nlh);
	ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, l, &err);
	if (ret && (err == -EINVAL || err == -EOPNOTSUPP || err == -ENOENT)) {
		kmg_msgs_free(l);
		ret = 0;
	}
	if (!ret) {
		kmg_service_req(buf, KMAGLEV_CMD_STATS_GET, NLM_F_DUMP, NULL, &nlh);
		ret = kmg_ctx_talk(ctx, nlh, kmg_collect_cb, l, NULL);
	}
	if (!ret)
		ret = merge_continued(l);
	free(buf);
	return ret;
}

/* --- the quota table ------------------------------------------------------------------- */

int kmg_quota_cmp(const struct kmg_quota *a, const struct kmg_quota *b)
{
	int r;

	if (a->rejected != b->rejected)
		return a->rejected > b->rejected ? -1 : 1;
	if (a->accepted != b->accepted)
		return a->accepted > b->accepted ? -1 : 1;
	if (a->addr.family != b->addr.family)
		return a->addr.family < b->addr.family ? -1 : 1;	/* AF_INET first */
	r = a->addr.family ? kmg_addr_cmp(&a->addr, &b->addr) : 0;
	if (r)
		return r;
	if (a->prefix_len != b->prefix_len)
		return a->prefix_len < b->prefix_len ? -1 : 1;
	if (a->service_id != b->service_id)
		return a->service_id < b->service_id ? -1 : 1;
	return 0;
}

static int quota_qsort_cmp(const void *a, const void *b)
{
	return kmg_quota_cmp(a, b);
}

static void quota_swap(struct kmg_quota *q, unsigned int i, unsigned int j)
{
	struct kmg_quota t = q[i];

	q[i] = q[j];
	q[j] = t;
}

/*
 * With a limit, qs->q is a heap whose root is the bucket that sorts last: a bucket that sorts
 * before it takes its place and sinks to where it belongs.
 */
static void quota_sift_down(struct kmg_quota *q, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, last = i;

		if (l < n && kmg_quota_cmp(&q[l], &q[last]) > 0)
			last = l;
		if (r < n && kmg_quota_cmp(&q[r], &q[last]) > 0)
			last = r;
		if (last == i)
			return;
		quota_swap(q, i, last);
		i = last;
	}
}

int kmg_quotas_add(struct kmg_quotas *qs, const struct kmg_quota *q)
{
	unsigned int i;

	qs->total++;
	if (!qs->limit || qs->n < qs->limit) {
		if (kmg_grow(&qs->q, qs->n, sizeof(*qs->q)))
			return -ENOMEM;
		i = qs->n++;
		qs->q[i] = *q;
		/* with a limit, rise to its place in the heap */
		while (qs->limit && i && kmg_quota_cmp(&qs->q[i], &qs->q[(i - 1) / 2]) > 0) {
			quota_swap(qs->q, i, (i - 1) / 2);
			i = (i - 1) / 2;
		}
		return 0;
	}
	if (kmg_quota_cmp(q, &qs->q[0]) >= 0)
		return 0;
	qs->q[0] = *q;
	quota_sift_down(qs->q, qs->n, 0);
	return 0;
}

void kmg_quotas_sort(struct kmg_quotas *qs)
{
	if (qs->n > 1)
		qsort(qs->q, qs->n, sizeof(*qs->q), quota_qsort_cmp);
}

void kmg_quotas_free(struct kmg_quotas *qs)
{
	free(qs->q);
	qs->q = NULL;
	qs->n = 0;
	qs->total = 0;
}

int kmg_quota_cb(const struct nlmsghdr *nlh, void *data)
{
	struct kmg_quotas *qs = data;
	struct kmg_msg m;
	int ret;

	if (kmg_msg_parse(nlh, &m)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	ret = KMG_HAS(&m, KMAGLEV_A_QUOTA) ? kmg_quotas_add(qs, &m.quota) : 0;
	kmg_msg_free(&m);
	if (ret) {
		kmg_err(KMG_EFAIL, "out of memory");
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int kmg_quota_dump(struct kmg_ctx *ctx, struct kmg_quotas *qs, int *errp)
{
	struct nlmsghdr *nlh;
	unsigned int tries;
	int ret, err;
	void *buf;

	if (errp)
		*errp = 0;
	buf = kmg_req_buf(NULL);
	if (!buf)
		return KMG_EFAIL;
	/* a dump that spanned a settings change (which empties the table): again */
	for (tries = 1;; tries++) {
		qs->n = 0;
		qs->total = 0;
		nlh = kmg_req_start(buf, KMAGLEV_CMD_QUOTA_GET, NLM_F_DUMP);
		ret = kmg_ctx_talk(ctx, nlh, kmg_quota_cb, qs, &err);
		if (!ret || err != -EINTR || tries == 5)
			break;
	}
	if (errp)
		*errp = err;
	if (!ret)
		kmg_quotas_sort(qs);
	free(buf);
	return ret;
}
