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

#include "kmaglev.h"

/*
 * A new backend of a service in @kn, with an id for probe marks. The id is only reserved:
 * probes find the backend once kmg_backend_list() publishes it, when the change that adds it
 * commits, so a failed request never exposes it.
 */
struct kmg_backend *kmg_backend_alloc(struct kmg_net *kn, const struct kmg_backend_cfg *cfg)
{
	struct kmg_backend *be;

	be = kzalloc(sizeof(*be), GFP_KERNEL_ACCOUNT);
	if (!be)
		return NULL;
	be->stats = kmg_stats_alloc();
	if (!be->stats)
		goto err_be;
	if (dst_cache_init(&be->dst_cache, GFP_KERNEL_ACCOUNT))
		goto err_stats;
	if (xa_alloc_cyclic(&kn->backend_ids, &be->id, NULL, xa_limit_31b, &kn->next_backend_id,
			    GFP_KERNEL_ACCOUNT) < 0)
		goto err_dst;
	be->addr = cfg->addr;
	be->weight = 1;
	be->state = KMAGLEV_BACKEND_STATE_UP;
	be->encap = KMAGLEV_ENCAP_IPIP;
	refcount_set(&be->ref, 1);
	atomic_long_inc(&kmg_objects.backends);
	atomic_set(&be->conns, 0);
	kmg_backend_apply(be, cfg);
	return be;

err_dst:
	dst_cache_destroy(&be->dst_cache);
err_stats:
	free_percpu(be->stats);
err_be:
	kfree(be);
	return NULL;
}

/* The backend joined its service's set: probes find it by its id. Under kn->lock. */
void kmg_backend_list(struct kmg_net *kn, struct kmg_backend *be)
{
	/* The id is reserved: storing to it allocates nothing and cannot fail. */
	WARN_ON_ONCE(xa_is_err(xa_store(&kn->backend_ids, be->id, be, GFP_KERNEL)));
}

/*
 * The backend left its service's set, or never made it in: no more probes find it (and its
 * id is free again). It lives on for its flows. Under kn->lock.
 */
void kmg_backend_unlist(struct kmg_net *kn, struct kmg_backend *be)
{
	xa_erase(&kn->backend_ids, be->id);
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

	dst_cache_destroy(&be->dst_cache);
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
