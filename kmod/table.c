// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev tables: a service's Maglev table built from its backend set, in process context,
 * and freed after an RCU grace period.
 *
 * A table is immutable once published. It holds a reference on each backend it gives slots to;
 * slots are u16 indices into its be[] array, which is sorted by address, so the table depends
 * only on the set of (address, weight) pairs, the size and the seed.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <kunit/visibility.h>

#include "backend.h"
#include "kmaglev.h"
#include "maglev.h"
#include "table.h"

static struct kmg_table *kmg_table_alloc(u32 size, u32 nbe)
{
	struct kmg_table *t;

	t = kvzalloc(struct_size(t, slots, size), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	t->size = size;
	atomic_long_inc(&kmg_objects.tables);
	if (nbe) {
		t->be = kvcalloc(nbe, sizeof(*t->be), GFP_KERNEL_ACCOUNT);
		if (!t->be) {
			kvfree(t);
			atomic_long_dec(&kmg_objects.tables);
			return NULL;
		}
	}
	return t;
}

void kmg_table_free(struct kmg_table *t)
{
	u32 i;

	if (!t)
		return;
	for (i = 0; i < t->nbe; i++)
		kmg_backend_put(t->be[i].be);
	kvfree(t->be);
	kvfree(t);
	atomic_long_dec(&kmg_objects.tables);
}

static void kmg_table_free_work(struct work_struct *work)
{
	kmg_table_free(container_of(to_rcu_work(work), struct kmg_table, free_work));
}

/* Free after every packet-path reader is done with it. */
void kmg_table_free_rcu(struct kmg_table *t)
{
	if (!t)
		return;
	INIT_RCU_WORK(&t->free_work, kmg_table_free_work);
	queue_rcu_work(kmg_wq, &t->free_work);
}

/* The flow-hash key of tables built with @seed: its bytes, as the table permutations use. */
static void kmg_flow_key(siphash_key_t *key, const u8 seed[KMG_SEED_LEN])
{
	__le64 k[2];

	memcpy(k, seed, sizeof(k));
	key->key[0] = le64_to_cpu(k[0]);
	key->key[1] = le64_to_cpu(k[1]);
}

/*
 * Build a table of @size slots for the eligible backends @in[0..n-1] (sorted by address, with
 * the weights to use). GFP_KERNEL: process context only. The table takes a reference on each
 * backend.
 */
struct kmg_table *kmg_table_build(const struct kmg_table_be *in, u32 n, u32 size,
				  const u8 seed[KMG_SEED_LEN])
{
	struct kmg_mg_in *mg = NULL;
	struct kmg_table *t;
	void *scratch = NULL;
	u32 i;
	int err;

	t = kmg_table_alloc(size, n);
	if (!t)
		return ERR_PTR(-ENOMEM);
	kmg_flow_key(&t->flow_key, seed);
	if (n) {
		mg = kvcalloc(n, sizeof(*mg), GFP_KERNEL);
		scratch = kvmalloc(kmg_maglev_scratch_size(size, n), GFP_KERNEL);
		if (!mg || !scratch) {
			err = -ENOMEM;
			goto err;
		}
	}
	for (i = 0; i < n; i++) {
		memcpy(mg[i].addr, in[i].be->addr.b, KMG_ADDR_LEN);
		mg[i].weight = in[i].weight;
	}
	err = kmg_maglev_build(t->slots, size, mg, n, seed, scratch);
	if (err)
		goto err;
	for (i = 0; i < n; i++) {
		t->be[i] = in[i];
		kmg_backend_get(in[i].be);
	}
	t->nbe = n;
	kvfree(scratch);
	kvfree(mg);
	return t;

err:
	kvfree(scratch);
	kvfree(mg);
	kmg_table_free(t);
	return ERR_PTR(err);
}

/* Would kmg_table_build(in, n, size, ...) give exactly @t (same seed)? Then skip the rebuild. */
bool kmg_table_same_input(const struct kmg_table *t, const struct kmg_table_be *in, u32 n,
			  u32 size)
{
	u32 i;

	if (t->size != size || t->nbe != n)
		return false;
	for (i = 0; i < n; i++)
		if (t->be[i].be != in[i].be || t->be[i].weight != in[i].weight)
			return false;
	return true;
}

size_t kmg_table_bytes(const struct kmg_table *t)
{
	return t ? t->size * sizeof(t->slots[0]) + t->nbe * sizeof(t->be[0]) : 0;
}

u64 kmg_table_digest(const struct kmg_table *t)
{
	struct kmg_mg_in *mg;
	u64 d;
	u32 i;

	mg = kvcalloc(max(t->nbe, 1U), sizeof(*mg), GFP_KERNEL);
	if (!mg)
		return 0;
	for (i = 0; i < t->nbe; i++) {
		memcpy(mg[i].addr, t->be[i].be->addr.b, KMG_ADDR_LEN);
		mg[i].weight = t->be[i].weight;
	}
	d = kmg_maglev_digest(t->slots, t->size, mg, t->nbe);
	kvfree(mg);
	return d;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_table_digest);

/* counts[i] = slots of t->be[i] */
void kmg_table_slot_counts(const struct kmg_table *t, u32 *counts)
{
	u32 i;

	memset(counts, 0, t->nbe * sizeof(*counts));
	for (i = 0; i < t->size; i++)
		if (t->slots[i] != KMG_SLOT_EMPTY)
			counts[t->slots[i]]++;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_table_slot_counts);
