// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev backends: allocation, settings, reference counting and lookup in a sorted set.
 *
 * A backend is referenced by its service's backend set, by every table that gives it slots,
 * and by connection entries pinned to it. The last reference frees it after an RCU grace
 * period, so packet-path readers that found it under RCU stay safe.
 */
#include <linux/slab.h>
#include <linux/kmaglev.h>

#include "backend.h"
#include "kmaglev.h"
#include "maglev.h"
#include "netns.h"
#include "route.h"
#include "stats.h"

/*
 * A new backend, not yet in any set and without a probe id: the change that adds it gives it
 * one when it commits (kmg_chg_assign_ids()), so a failed request never takes an id.
 */
struct kmg_backend *kmg_backend_alloc(const struct kmg_backend_cfg *cfg)
{
	struct kmg_backend *be;

	be = kzalloc(sizeof(*be), GFP_KERNEL_ACCOUNT);
	if (!be)
		return NULL;
	be->stats = kmg_stats_alloc();
	if (!be->stats)
		goto err_be;
	if (kmg_route_cache_init(&be->routes, GFP_KERNEL_ACCOUNT))
		goto err_stats;
	be->addr = cfg->addr;
	be->weight = 1;
	be->state = KMAGLEV_BACKEND_STATE_UP;
	be->encap = KMAGLEV_ENCAP_IPIP;
	refcount_set(&be->ref, 1);
	atomic_long_inc(&kmg_objects.backends);
	atomic_set(&be->conns, 0);
	kmg_backend_apply(be, cfg);
	return be;

err_stats:
	free_percpu(be->stats);
err_be:
	kfree(be);
	return NULL;
}

/*
 * Reserve the lowest free probe id below max-backends for @be; xa_load() sees NULL there
 * until kmg_backend_list(). -EBUSY when every id below max-backends is taken. Under kn->lock.
 */
int kmg_backend_id_alloc(struct kmg_net *kn, struct kmg_backend *be)
{
	lockdep_assert_held(&kn->lock);
	if (!kn->max_backends)
		return -EBUSY;
	return xa_alloc(&kn->backend_ids, &be->id, NULL, XA_LIMIT(0, kn->max_backends - 1),
			GFP_KERNEL_ACCOUNT);
}

/* Give back an id kmg_backend_id_alloc() reserved for a backend that was never listed. */
void kmg_backend_id_free(struct kmg_net *kn, struct kmg_backend *be)
{
	lockdep_assert_held(&kn->lock);
	xa_erase(&kn->backend_ids, be->id);
}

/*
 * The backend joined the set of @svc: probes find it by its id, which is reserved for it or
 * was a backend's that leaves the set in the same change (its entry is overwritten in
 * place). Either way the slot exists: storing allocates nothing and cannot fail. xa_store()
 * publishes with release semantics, so a probe that finds the backend sees be->svc.
 * Under kn->lock.
 */
void kmg_backend_list(struct kmg_net *kn, struct kmg_service *svc, struct kmg_backend *be)
{
	lockdep_assert_held(&kn->lock);
	be->svc = svc;
	WARN_ON_ONCE(xa_is_err(xa_store(&kn->backend_ids, be->id, be, GFP_KERNEL)));
}

/*
 * The backend left its service's set: it lives on for its flows, and reports no id any more.
 * Its id is freed unless a backend that joins in the same change took it over (@id_taken:
 * kmg_backend_list() already pointed the id at that one). The slot is cleared only while it
 * still holds @be, so a disagreement about who took which id can neither leave the id
 * pointing at a backend about to be freed nor erase a live backend's id. Call before the set
 * drops its reference: a probe that finds it under RCU then still has it until a grace
 * period ends. Under kn->lock.
 */
void kmg_backend_unlist(struct kmg_net *kn, struct kmg_backend *be, bool id_taken)
{
	void *old;

	lockdep_assert_held(&kn->lock);
	old = xa_cmpxchg(&kn->backend_ids, be->id, be, NULL, 0);
	/* taken over: the slot must hold the newcomer already */
	WARN_ON_ONCE(id_taken && old == be);
	WRITE_ONCE(be->removed, true);
}

/* Copy the fields @cfg sets. Under kn->lock; the packet path reads them with READ_ONCE(). */
void kmg_backend_apply(struct kmg_backend *be, const struct kmg_backend_cfg *cfg)
{
	if (cfg->set & KMG_BE_SET_WEIGHT)
		WRITE_ONCE(be->weight, cfg->weight);
	if (cfg->set & KMG_BE_SET_STATE)
		WRITE_ONCE(be->state, cfg->state);
	if (cfg->set & KMG_BE_SET_ENCAP)
		WRITE_ONCE(be->encap, cfg->encap);
	if (cfg->set & KMG_BE_SET_KEY) {
		WRITE_ONCE(be->gre_key, cfg->gre_key);
		WRITE_ONCE(be->keyed, cfg->keyed);
	}
	if (cfg->set & KMG_BE_SET_MAX_CONNS)
		WRITE_ONCE(be->max_conns, cfg->max_conns);
}

static void kmg_backend_free_rcu(struct rcu_head *head)
{
	struct kmg_backend *be = container_of(head, struct kmg_backend, rcu);

	kmg_route_cache_destroy(&be->routes);
	free_percpu(be->stats);
	kfree(be);
	atomic_long_dec(&kmg_objects.backends);
}

void kmg_backend_put(struct kmg_backend *be)
{
	if (be && refcount_dec_and_test(&be->ref))
		call_rcu(&be->rcu, kmg_backend_free_rcu);
}

void kmg_backend_stats(const struct kmg_backend *be, struct kmg_stats_sum *sum)
{
	kmg_stats_fold(be->stats, sum);
}

/*
 * Binary search of a set sorted by address: the index of @addr, or -(insertion point) - 1
 * when it is not there.
 */
int kmg_backend_find(struct kmg_backend *const *be, u32 n, const u8 addr[16])
{
	int lo = 0, hi = (int)n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = kmg_mg_addr_cmp(be[mid]->addr.b, addr);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -lo - 1;
}
