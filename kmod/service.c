// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev services: the per-netns service table, service lifetime, backend set changes and
 * table publication. VIP address entries are vip.c's.
 *
 * Every change goes through kmg_service_commit(): it takes a complete proposed backend set,
 * allocates everything it may need and builds the new table first, and only then, when nothing
 * can fail any more, applies the settings and publishes the table with one RCU pointer swap.
 * So a request is all or nothing and costs at most one table build, however many backends it
 * changes. Callers hold kn->lock.
 */
#include <linux/jiffies.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/kmaglev.h>
#include <net/netlink.h>

#include <kunit/visibility.h>

#include "backend.h"
#include "kmaglev.h"
#include "limit.h"
#include "maglev.h"
#include "migrate.h"
#include "netns.h"
#include "service.h"
#include "stats.h"
#include "table.h"
#include "vip.h"

static const struct rhashtable_params kmg_svc_params = {
	.key_len	= sizeof(struct kmg_svc_key),
	.key_offset	= offsetof(struct kmg_service, key),
	.head_offset	= offsetof(struct kmg_service, node),
	.automatic_shrinking = true,
};

/* One entry of a proposed backend set. */
struct kmg_be_change {
	struct kmg_backend *be;
	const struct kmg_backend_cfg *cfg;	/* applied at commit, or NULL */
	bool is_new;				/* allocated for this change */
	bool fresh_id;				/* its id was reserved for it (not taken over) */
};

/*
 * What the layers above do when services come and go (the packet path starts with the first
 * service of a netns and stops after the last; netlink announces table changes): set once at
 * module init, so that this file does not call up into them.
 */
static const struct kmg_service_events *kmg_events;

void kmg_service_events_set(const struct kmg_service_events *ev)
{
	kmg_events = ev;
}

static int kmg_services_start(struct kmg_net *kn)
{
	return kmg_events && kmg_events->start ? kmg_events->start(kn) : 0;
}

static void kmg_services_stop(struct kmg_net *kn)
{
	if (kmg_events && kmg_events->stop)
		kmg_events->stop(kn);
}

int kmg_net_services_init(struct kmg_net *kn)
{
	int err;

	mutex_init(&kn->lock);
	xa_init_flags(&kn->services, XA_FLAGS_ALLOC1);
	xa_init_flags(&kn->backend_ids, XA_FLAGS_ALLOC);
	err = rhashtable_init(&kn->svc_ht, &kmg_svc_params);
	if (err)
		return err;
	err = kmg_vips_init(kn);
	if (err)
		rhashtable_destroy(&kn->svc_ht);
	return err;
}

void kmg_service_cfg_default(struct kmg_service_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->table_size = KMAGLEV_TABLE_SIZE_DEFAULT;
	cfg->hash = KMAGLEV_HASH_FIVE_TUPLE;
	cfg->ramp_pct = 100;
	cfg->window_ms = KMG_DEFAULT_WINDOW_MS;
	cfg->criticality = KMAGLEV_CRITICALITY_CRITICAL;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_cfg_default);

struct kmg_service *kmg_service_find(struct kmg_net *kn, const struct kmg_svc_key *key)
{
	return rhashtable_lookup_fast(&kn->svc_ht, key, kmg_svc_params);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_find);

/*
 * Packet path: the service of a VIP for a protocol and port, or NULL. Tries the exact service
 * and then the wildcards that exist for this VIP, most specific first. Under RCU.
 */
struct kmg_service *kmg_vip_service_rcu(struct kmg_vip *vip, u8 proto, __be16 dport)
{
	struct kmg_vip_direct *d = rcu_dereference(vip->direct);
	struct kmg_net *kn = vip->kn;
	struct kmg_svc_key key;
	unsigned int kind, i;

	if (d) {
		for (i = 0; i < d->n; i++) {
			struct kmg_service *svc = d->svc[i];

			if ((!svc->key.proto || svc->key.proto == proto) &&
			    (!svc->key.port || svc->key.port == dport))
				return svc;
		}
		return NULL;
	}
	memset(&key, 0, sizeof(key));
	memcpy(key.addr, vip->key.addr, sizeof(key.addr));
	key.family = vip->key.family;
	/* kind 0: exact, 1: every port, 2: any protocol, 3: both */
	for (kind = 0; kind < ARRAY_SIZE(vip->kinds); kind++) {
		struct kmg_service *svc;

		if (!READ_ONCE(vip->kinds[kind]))
			continue;
		key.proto = kind & 2 ? 0 : proto;
		key.port = kind & 1 ? 0 : dport;
		svc = rhashtable_lookup(&kn->svc_ht, &key, kmg_svc_params);
		if (svc)
			return svc;
	}
	return NULL;
}

/* The service for a destination, or NULL: non-VIP traffic costs one lookup. Under RCU. */
struct kmg_service *kmg_service_lookup_rcu(struct kmg_net *kn, u8 family, const void *daddr,
					   u8 proto, __be16 dport)
{
	struct kmg_vip *vip = kmg_vip_lookup_rcu(kn, family, daddr);

	return vip ? kmg_vip_service_rcu(vip, proto, dport) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_lookup_rcu);

/* Effective settings of a proposed backend. */
static u32 kmg_chg_weight(const struct kmg_be_change *c)
{
	return c->cfg && (c->cfg->set & KMG_BE_SET_WEIGHT) ? c->cfg->weight : c->be->weight;
}

static u32 kmg_chg_state(const struct kmg_be_change *c)
{
	return c->cfg && (c->cfg->set & KMG_BE_SET_STATE) ? c->cfg->state : c->be->state;
}

/*
 * encap dr: the backend must be of the VIP's family, on a directly attached network (its
 * route, as the packet path will look it up, is refused otherwise). A route that changes
 * later is the packet path's to notice (drop-dr-route).
 */
static int kmg_chg_validate_dr(struct kmg_net *kn, const struct kmg_service *svc,
			       const struct kmg_addr *a, struct netlink_ext_ack *extack)
{
	struct dst_entry *dst;
	enum kmg_dr_why why;

	if (a->family != svc->key.family) {
		NL_SET_ERR_MSG(extack, "encap dr: the backend must be of the VIP's address family");
		return -EINVAL;
	}
	dst = kmg_route_dr(kn->net, a, false, &why);
	if (IS_ERR(dst)) {
		kmg_route_dr_explain(why, extack);
		return -EHOSTUNREACH;
	}
	dst_release(dst);
	return 0;
}

static int kmg_chg_validate(struct kmg_net *kn, const struct kmg_service *svc,
			    const struct kmg_be_change *c, struct netlink_ext_ack *extack)
{
	const struct kmg_backend_cfg *cfg = c->cfg;
	u32 encap;
	bool keyed;

	if (!cfg)
		return 0;
	/* A backend that is a VIP of this netns would loop. */
	if (kmg_vip_exists(kn, cfg->addr.family, cfg->addr.b)) {
		NL_SET_ERR_MSG(extack, "backend address is a VIP of this netns");
		return -EINVAL;
	}
	encap = cfg->set & KMG_BE_SET_ENCAP ? cfg->encap : c->be->encap;
	keyed = cfg->set & KMG_BE_SET_KEY ? cfg->keyed : c->be->keyed;
	if (keyed && encap != KMAGLEV_ENCAP_GRE) {
		NL_SET_ERR_MSG(extack, "backend gre-key requires encap gre");
		return -EINVAL;
	}
	/* only when it becomes dr: a dr backend whose route changed may still be drained */
	if (encap == KMAGLEV_ENCAP_DR && (c->is_new || c->be->encap != KMAGLEV_ENCAP_DR))
		return kmg_chg_validate_dr(kn, svc, &cfg->addr, extack);
	return 0;
}

static void kmg_service_sched_retire(struct kmg_service *svc)
{
	unsigned long len, deadline;

	if (!rcu_access_pointer(svc->prev)) {
		cancel_delayed_work(&svc->retire);
		return;
	}
	len = kmg_mig_length_ms(svc->cfg.ramp_pct, svc->cfg.ramp_ms, svc->cfg.window_ms);
	if (len == ULONG_MAX) {
		cancel_delayed_work(&svc->retire);
		return;
	}
	deadline = svc->mig_start + msecs_to_jiffies(len);
	mod_delayed_work(kmg_wq, &svc->retire,
			 time_after(deadline, jiffies) ? deadline - jiffies : 0);
}

/* End of a migration: free the previous table. */
static void kmg_service_retire_work(struct work_struct *work)
{
	struct kmg_service *svc = container_of(to_delayed_work(work), struct kmg_service,
					       retire);
	struct kmg_net *kn = svc->kn;
	struct kmg_table *prev;

	mutex_lock(&kn->lock);
	if (!svc->dead) {
		prev = rcu_replace_pointer(svc->prev, NULL, lockdep_is_held(&kn->lock));
		if (prev) {
			kmg_table_free_rcu(prev);
			if (kmg_events && kmg_events->table_changed)
				kmg_events->table_changed(svc);
		}
	}
	mutex_unlock(&kn->lock);
}

/* Publish @t as the current table; the current one becomes the previous one. */
static void kmg_service_publish(struct kmg_service *svc, struct kmg_table *t)
{
	struct kmg_net *kn = svc->kn;
	struct kmg_table *old, *oldprev = NULL;

	t->gen = ++svc->gen;
	old = rcu_replace_pointer(svc->cur, t, lockdep_is_held(&kn->lock));
	if (old)
		oldprev = rcu_replace_pointer(svc->prev, old, lockdep_is_held(&kn->lock));
	WRITE_ONCE(svc->mig_start, jiffies);
	kmg_table_free_rcu(oldprev);
	kmg_service_sched_retire(svc);
}

static void kmg_service_cfg_apply(struct kmg_service *svc, const struct kmg_service_cfg *cfg)
{
	struct kmg_service_cfg *c = &svc->cfg;

	if (cfg == c)
		return;
	if (svc->vip) {
		kmg_vip_flags(svc->vip, c->flags, -1);
		kmg_vip_flags(svc->vip, cfg->flags, 1);
	}
	c->table_size = cfg->table_size;
	memcpy(c->seed, cfg->seed, sizeof(c->seed));
	WRITE_ONCE(c->hash, cfg->hash);
	WRITE_ONCE(c->flags, cfg->flags);
	WRITE_ONCE(c->ramp_pct, cfg->ramp_pct);
	WRITE_ONCE(c->ramp_ms, cfg->ramp_ms);
	WRITE_ONCE(c->window_ms, cfg->window_ms);
	WRITE_ONCE(c->max_conns, cfg->max_conns);
	WRITE_ONCE(c->client_rate, cfg->client_rate);
	WRITE_ONCE(c->criticality, cfg->criticality);
	WRITE_ONCE(c->overload, cfg->overload);
	memcpy(c->owner, cfg->owner, sizeof(c->owner));
	if (c->encap_src4 != cfg->encap_src4 ||
	    memcmp(&c->encap_src6, &cfg->encap_src6, sizeof(c->encap_src6))) {
		/* see struct kmg_service: esrc_seq; no reader may interrupt the writer */
		write_seqlock_bh(&svc->esrc_seq);
		c->encap_src4 = cfg->encap_src4;
		c->encap_src6 = cfg->encap_src6;
		write_sequnlock_bh(&svc->esrc_seq);
	}
}

/* Does @be, of the current set, leave it for @arr (the proposed set, sorted by address)? */
static bool kmg_chg_leaves(const struct kmg_backend *be, struct kmg_backend *const *arr, u32 n)
{
	int pos = kmg_backend_find(arr, n, be->addr.b);

	return pos < 0 || arr[pos] != be;
}

static void kmg_chg_release_ids(struct kmg_net *kn, struct kmg_be_change *set, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (set[i].fresh_id) {
			kmg_backend_id_free(kn, set[i].be);
			set[i].fresh_id = false;
		}
	}
}

/*
 * Probe ids for the new backends of @set, before the commit point. Ids stay small, so that a
 * probe-mark range as large as max-backends covers them all:
 *
 *  - a new backend first takes over the id of a backend that leaves the set in this change
 *    (the first new one in address order the first leaving one's, and so on: the commit
 *    repeats this pairing, see kmg_service_commit()). The leaving backends' ids are still
 *    taken until the commit, and a set replaced whole at max-backends would otherwise find no
 *    free id below the limit;
 *  - the others get the lowest free id below max-backends. The count check before guarantees
 *    there is one: at most nbackends ids are taken, all listed backends of the netns, and
 *    nbackends - (leaving) + (new) <= max-backends.
 *
 * So an id is reused as soon as its backend is deleted, by the next backend added to any
 * service. That is safe for the data path: connection entries and tables hold backends by
 * pointer, never by id. A probe mark is resolved when its packet passes the hook, and goes
 * only to a backend of the service the packet matched (kmg_rcv()); a prober must take ids
 * from the latest dump or notification. Under kn->lock; on error no id is taken.
 */
static int kmg_chg_assign_ids(struct kmg_service *svc, struct kmg_be_change *set,
			      struct kmg_backend *const *arr, u32 n,
			      struct netlink_ext_ack *extack)
{
	struct kmg_net *kn = svc->kn;
	u32 i, o = 0;
	int err;

	for (i = 0; i < n; i++) {
		if (!set[i].is_new)
			continue;
		while (o < svc->nbe && !kmg_chg_leaves(svc->be[o], arr, n))
			o++;
		if (o < svc->nbe) {
			set[i].be->id = svc->be[o++]->id;
			continue;
		}
		err = kmg_backend_id_alloc(kn, set[i].be);
		if (err) {
			kmg_chg_release_ids(kn, set, i);
			if (err == -EBUSY) {
				NL_SET_ERR_MSG(extack, "no backend id free below max-backends");
				err = -ENOSPC;
			}
			return err;
		}
		set[i].fresh_id = true;
	}
	return 0;
}

/*
 * Make @set (sorted by address) the service's backend set and @cfg its settings: build a new
 * table if what it depends on changed, then commit. On success the service owns the backends
 * marked is_new; on error nothing changed and the caller frees them.
 */
static int kmg_service_commit(struct kmg_service *svc, const struct kmg_service_cfg *cfg,
			      struct kmg_be_change *set, u32 n, bool *rebuilt,
			      struct netlink_ext_ack *extack)
{
	struct kmg_net *kn = svc->kn;
	struct kmg_table *cur = rcu_dereference_protected(svc->cur, lockdep_is_held(&kn->lock));
	struct kmg_backend **arr = NULL, **old = svc->be;
	struct kmg_client_limit *cl = NULL, *oldcl;
	struct kmg_table_be *in = NULL;
	struct kmg_table *t = NULL;
	u32 i, ne = 0, nnew = 0, nleft = 0, nold = svc->nbe;
	int err;

	*rebuilt = false;
	if (n > KMAGLEV_BACKENDS_PER_SERVICE_MAX) {
		NL_SET_ERR_MSG(extack, "more than 65535 backends in one service");
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		err = kmg_chg_validate(kn, svc, &set[i], extack);
		if (err)
			return err;
	}
	if (kn->nbackends - nold + n > kn->max_backends) {
		NL_SET_ERR_MSG(extack, "netns backend limit (max-backends) reached");
		return -ENOSPC;
	}
	if (!cur || cfg->table_size != svc->cfg.table_size) {
		err = kmg_limit_check(kn, KMG_LIMIT_TABLE_SIZE, cfg->table_size, NULL, extack);
		if (err)
			return err;
	}

	if (n) {
		arr = kvcalloc(n, sizeof(*arr), GFP_KERNEL_ACCOUNT);
		in = kvcalloc(n, sizeof(*in), GFP_KERNEL);
		if (!arr || !in) {
			err = -ENOMEM;
			goto out;
		}
	}
	oldcl = rcu_dereference_protected(svc->climit, lockdep_is_held(&kn->lock));
	if (cfg->client_rate && !oldcl) {
		cl = kzalloc(sizeof(*cl), GFP_KERNEL_ACCOUNT);
		if (!cl) {
			err = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		arr[i] = set[i].be;
		nnew += set[i].is_new;
		if (kmg_chg_state(&set[i]) == KMAGLEV_BACKEND_STATE_UP && kmg_chg_weight(&set[i])) {
			in[ne].be = set[i].be;
			in[ne].weight = kmg_chg_weight(&set[i]);
			ne++;
		}
	}
	if (ne > cfg->table_size) {
		NL_SET_ERR_MSG(extack, "more backends with weight than table-size slots");
		err = -EINVAL;
		goto out;
	}
	err = kmg_chg_assign_ids(svc, set, arr, n, extack);
	if (err)
		goto out;
	*rebuilt = !cur || memcmp(cfg->seed, svc->cfg.seed, sizeof(cfg->seed)) ||
		   !kmg_table_same_input(cur, in, ne, cfg->table_size);
	if (*rebuilt) {
		t = kmg_table_build(in, ne, cfg->table_size, cfg->seed);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			NL_SET_ERR_MSG(extack, "out of memory building the Maglev table");
			kmg_chg_release_ids(kn, set, n);
			goto out;
		}
	}

	/* Nothing can fail from here on. */
	kmg_service_cfg_apply(svc, cfg);
	if (cl) {
		rcu_assign_pointer(svc->climit, cl);
		cl = NULL;
	} else if (!cfg->client_rate && oldcl) {
		RCU_INIT_POINTER(svc->climit, NULL);
		kfree_rcu(oldcl, rcu);
	}
	/* New backends first: they overwrite the ids they take over from leaving ones. */
	for (i = 0; i < n; i++) {
		if (set[i].is_new)
			kmg_backend_list(kn, svc, set[i].be);
		else if (set[i].cfg)
			kmg_backend_apply(set[i].be, set[i].cfg);
	}
	/*
	 * Drop the set's reference on backends that left it. The first @nnew of them, in
	 * address order, gave their ids to the new ones (kmg_chg_assign_ids()).
	 */
	for (i = 0; i < nold; i++) {
		if (kmg_chg_leaves(old[i], arr, n)) {
			kmg_backend_unlist(kn, old[i], nleft++ < nnew);
			kmg_backend_put(old[i]);
		}
	}
	svc->be = arr;
	svc->nbe = n;
	kn->nbackends += n - nold;
	arr = old;
	if (t)
		kmg_service_publish(svc, t);
	else
		kmg_service_sched_retire(svc);	/* ramp settings may have changed */
	err = 0;
out:
	kfree(cl);
	kvfree(in);
	kvfree(arr);
	return err;
}

/* The new backends of a change that failed: never listed, and without ids. */
static void kmg_chg_free_new(struct kmg_be_change *set, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (set[i].is_new)
			kmg_backend_put(set[i].be);
}

static int kmg_backend_cfg_cmp(const void *a, const void *b)
{
	return kmg_mg_addr_cmp(((const struct kmg_backend_cfg *)a)->addr.b,
			       ((const struct kmg_backend_cfg *)b)->addr.b);
}

/*
 * The proposed set for a full backend list @bcfg: existing backends with the same address are
 * kept (with their connections and counters) and get the new settings. Sorts @bcfg.
 */
static struct kmg_be_change *kmg_chg_from_list(struct kmg_service *svc,
					       struct kmg_backend_cfg *bcfg, u32 nb,
					       struct netlink_ext_ack *extack)
{
	struct kmg_be_change *set;
	u32 i;

	sort(bcfg, nb, sizeof(*bcfg), kmg_backend_cfg_cmp, NULL);
	for (i = 1; i < nb; i++) {
		if (!kmg_backend_cfg_cmp(&bcfg[i - 1], &bcfg[i])) {
			NL_SET_ERR_MSG(extack, "duplicate backend address in the backend list");
			return ERR_PTR(-EEXIST);
		}
	}
	set = kvcalloc(max(nb, 1U), sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nb; i++) {
		int pos = svc ? kmg_backend_find(svc->be, svc->nbe, bcfg[i].addr.b) : -1;

		set[i].cfg = &bcfg[i];
		if (pos >= 0) {
			set[i].be = svc->be[pos];
			continue;
		}
		set[i].be = kmg_backend_alloc(&bcfg[i]);
		if (!set[i].be) {
			kmg_chg_free_new(set, i);
			kvfree(set);
			return ERR_PTR(-ENOMEM);
		}
		set[i].is_new = true;
	}
	return set;
}

/* The current set as a proposal, with room for one more entry. */
static struct kmg_be_change *kmg_chg_current(struct kmg_service *svc)
{
	struct kmg_be_change *set;
	u32 i;

	set = kvcalloc(svc->nbe + 1, sizeof(*set), GFP_KERNEL);
	if (!set)
		return NULL;
	for (i = 0; i < svc->nbe; i++)
		set[i].be = svc->be[i];
	return set;
}

static void kmg_service_free_rcu(struct rcu_head *head)
{
	struct kmg_service *svc = container_of(head, struct kmg_service, rcu);

	kfree(rcu_dereference_protected(svc->climit, true));
	free_percpu(svc->stats);
	kfree(svc);
	atomic_long_dec(&kmg_objects.services);
}

/* Connection entries keep a deleted service's memory (not its tables) until they go. */
void kmg_service_put(struct kmg_service *svc)
{
	if (refcount_dec_and_test(&svc->ref))
		call_rcu(&svc->rcu, kmg_service_free_rcu);
}

/*
 * Tear down an unlinked service: process context, without kn->lock (the retire work takes
 * it). Its tables and backend set go now; the structure itself when the last connection
 * entry lets go of it.
 */
static void kmg_service_free(struct kmg_service *svc)
{
	u32 i;

	cancel_delayed_work_sync(&svc->retire);
	kmg_table_free_rcu(rcu_dereference_protected(svc->cur, true));
	kmg_table_free_rcu(rcu_dereference_protected(svc->prev, true));
	for (i = 0; i < svc->nbe; i++)
		kmg_backend_put(svc->be[i]);
	kvfree(svc->be);
	kmg_service_put(svc);
}

/* A service goes away: its backends leave the netns' backend count and probe ids. */
static void kmg_service_unlist_backends(struct kmg_service *svc)
{
	u32 i;

	for (i = 0; i < svc->nbe; i++)
		kmg_backend_unlist(svc->kn, svc->be[i], false);
	svc->kn->nbackends -= svc->nbe;
}

int kmg_service_create(struct kmg_net *kn, const struct kmg_svc_key *key,
		       const struct kmg_service_cfg *cfg, struct kmg_backend_cfg *bcfg,
		       u32 nbcfg, struct kmg_service **svcp, struct netlink_ext_ack *extack)
{
	struct kmg_be_change *set;
	struct kmg_service *svc;
	bool rebuilt;
	int err;

	lockdep_assert_held(&kn->lock);
	if (kmg_service_find(kn, key)) {
		NL_SET_ERR_MSG(extack, "service already exists");
		return -EEXIST;
	}
	if (kn->nservices >= kn->max_services) {
		NL_SET_ERR_MSG(extack, "netns service limit (max-services) reached");
		return -ENOSPC;
	}
	svc = kzalloc(sizeof(*svc), GFP_KERNEL_ACCOUNT);
	if (!svc)
		return -ENOMEM;
	svc->stats = kmg_stats_alloc();
	if (!svc->stats) {
		kfree(svc);
		return -ENOMEM;
	}
	atomic_long_inc(&kmg_objects.services);
	svc->key = *key;
	svc->kn = kn;
	kmg_service_cfg_default(&svc->cfg);
	INIT_DELAYED_WORK(&svc->retire, kmg_service_retire_work);
	seqlock_init(&svc->esrc_seq);
	refcount_set(&svc->ref, 1);

	set = kmg_chg_from_list(NULL, bcfg, nbcfg, extack);
	if (IS_ERR(set)) {
		err = PTR_ERR(set);
		goto err_svc;
	}
	err = kmg_service_commit(svc, cfg, set, nbcfg, &rebuilt, extack);
	if (err) {
		kmg_chg_free_new(set, nbcfg);
		kvfree(set);
		goto err_svc;
	}
	kvfree(set);

	err = xa_alloc_cyclic(&kn->services, &svc->id, svc, xa_limit_32b, &kn->next_id,
			      GFP_KERNEL_ACCOUNT);
	if (err < 0)
		goto err_unwind;
	err = rhashtable_insert_fast(&kn->svc_ht, &svc->node, kmg_svc_params);
	if (err)
		goto err_xa;
	err = kmg_vip_attach(kn, svc);
	if (err)
		goto err_ht;
	err = kmg_services_start(kn);
	if (err)
		goto err_vip;
	kn->nservices++;
	*svcp = svc;
	return 0;

err_vip:
	kmg_vip_detach(svc);
err_ht:
	rhashtable_remove_fast(&kn->svc_ht, &svc->node, kmg_svc_params);
err_xa:
	xa_erase(&kn->services, svc->id);
err_unwind:
	/* packets may have found it in svc_ht meanwhile: their entries must go with it */
	WRITE_ONCE(svc->dead, true);
	kmg_service_unlist_backends(svc);
	kmg_service_free(svc);
	return err;
err_svc:
	free_percpu(svc->stats);
	kfree(svc);
	atomic_long_dec(&kmg_objects.services);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_create);

int kmg_service_update(struct kmg_service *svc, const struct kmg_service_cfg *cfg,
		       struct kmg_backend_cfg *bcfg, u32 nbcfg, bool replace,
		       bool *rebuilt, struct netlink_ext_ack *extack)
{
	struct kmg_be_change *set;
	u32 n;
	int err;

	lockdep_assert_held(&svc->kn->lock);
	if (replace) {
		set = kmg_chg_from_list(svc, bcfg, nbcfg, extack);
		n = nbcfg;
	} else {
		set = kmg_chg_current(svc);
		n = svc->nbe;
		if (!set)
			set = ERR_PTR(-ENOMEM);
	}
	if (IS_ERR(set))
		return PTR_ERR(set);
	err = kmg_service_commit(svc, cfg, set, n, rebuilt, extack);
	if (err)
		kmg_chg_free_new(set, n);
	kvfree(set);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_update);

/* Unlink a service from lookups; the caller frees it with kmg_service_free() after unlock. */
static void kmg_service_unlink(struct kmg_service *svc)
{
	struct kmg_net *kn = svc->kn;

	lockdep_assert_held(&kn->lock);
	WRITE_ONCE(svc->dead, true);
	rhashtable_remove_fast(&kn->svc_ht, &svc->node, kmg_svc_params);
	kmg_vip_detach(svc);
	xa_erase(&kn->services, svc->id);
	kn->nservices--;
	kmg_service_unlist_backends(svc);
}

/* Delete one service. Called with kn->lock held; drops and retakes it to free the service. */
void kmg_service_destroy(struct kmg_service *svc)
{
	struct kmg_net *kn = svc->kn;

	kmg_service_unlink(svc);
	if (!kn->nservices)
		kmg_services_stop(kn);
	mutex_unlock(&kn->lock);
	kmg_service_free(svc);
	mutex_lock(&kn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_destroy);

/* Delete every service of the netns. Called with kn->lock held, like kmg_service_destroy(). */
void kmg_service_flush(struct kmg_net *kn)
{
	struct kmg_service *svc;
	unsigned long id;
	LIST_HEAD(dead);

	xa_for_each(&kn->services, id, svc) {
		kmg_service_unlink(svc);
		list_add(&svc->dead_list, &dead);
		cond_resched();
	}
	kmg_services_stop(kn);
	if (list_empty(&dead))
		return;
	mutex_unlock(&kn->lock);
	while (!list_empty(&dead)) {
		svc = list_first_entry(&dead, struct kmg_service, dead_list);
		list_del(&svc->dead_list);
		kmg_service_free(svc);
		cond_resched();
	}
	mutex_lock(&kn->lock);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_service_flush);

void kmg_net_services_exit(struct kmg_net *kn)
{
	mutex_lock(&kn->lock);
	kmg_service_flush(kn);
	kmg_vips_exit(kn);
	mutex_unlock(&kn->lock);
	rhashtable_destroy(&kn->svc_ht);
	xa_destroy(&kn->services);
	xa_destroy(&kn->backend_ids);
}

int kmg_backend_add(struct kmg_service *svc, struct kmg_backend_cfg *cfg, bool *rebuilt,
		    struct netlink_ext_ack *extack)
{
	int pos = kmg_backend_find(svc->be, svc->nbe, cfg->addr.b);
	struct kmg_be_change *set;
	u32 at;
	int err;

	if (pos >= 0) {
		NL_SET_ERR_MSG(extack, "backend already exists in this service");
		return -EEXIST;
	}
	set = kmg_chg_current(svc);
	if (!set)
		return -ENOMEM;
	at = -pos - 1;
	memmove(&set[at + 1], &set[at], (svc->nbe - at) * sizeof(*set));
	set[at].be = kmg_backend_alloc(cfg);
	set[at].cfg = cfg;
	set[at].is_new = true;
	if (!set[at].be) {
		kvfree(set);
		return -ENOMEM;
	}
	err = kmg_service_commit(svc, &svc->cfg, set, svc->nbe + 1, rebuilt, extack);
	if (err)
		kmg_chg_free_new(&set[at], 1);
	kvfree(set);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_backend_add);

/* Change one backend to @cfg, or delete it (@cfg NULL): one commit of the whole set. */
static int kmg_backend_edit(struct kmg_service *svc, const u8 addr[16],
			    const struct kmg_backend_cfg *cfg, bool *rebuilt,
			    struct netlink_ext_ack *extack)
{
	int pos = kmg_backend_find(svc->be, svc->nbe, addr);
	struct kmg_be_change *set;
	u32 n = svc->nbe;
	int err;

	if (pos < 0) {
		NL_SET_ERR_MSG(extack, "no such backend in this service");
		return -ENOENT;
	}
	set = kmg_chg_current(svc);
	if (!set)
		return -ENOMEM;
	if (cfg) {
		set[pos].cfg = cfg;
	} else {
		memmove(&set[pos], &set[pos + 1], (n - pos - 1) * sizeof(*set));
		n--;
	}
	err = kmg_service_commit(svc, &svc->cfg, set, n, rebuilt, extack);
	kvfree(set);
	return err;
}

int kmg_backend_del(struct kmg_service *svc, const u8 addr[16], bool *rebuilt,
		    struct netlink_ext_ack *extack)
{
	return kmg_backend_edit(svc, addr, NULL, rebuilt, extack);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_backend_del);

int kmg_backend_change(struct kmg_service *svc, const struct kmg_backend_cfg *cfg,
		       bool *rebuilt, struct netlink_ext_ack *extack)
{
	return kmg_backend_edit(svc, cfg->addr.b, cfg, rebuilt, extack);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_backend_change);

void kmg_service_stats(const struct kmg_service *svc, struct kmg_stats_sum *sum)
{
	kmg_stats_fold(svc->stats, sum);
}

size_t kmg_service_table_bytes(const struct kmg_service *svc)
{
	return kmg_table_bytes(rcu_dereference_protected(svc->cur, true)) +
	       kmg_table_bytes(rcu_dereference_protected(svc->prev, true));
}
