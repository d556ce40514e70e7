// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev VIP addresses: one entry per address that some service of the netns uses
 * (kn->vip_ht), the services of each VIP published for the packet path, and the per-netns
 * counting filter that lets packets to other addresses pass after one load.
 *
 * Changed under kn->lock (service.c attaches and detaches services); read under RCU by the
 * packet path. A VIP entry is freed after a grace period; the filter goes with the netns.
 */
#include <linux/jhash.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/kmaglev.h>

#include "netns.h"
#include "service.h"
#include "vip.h"

/*
 * The key as five words. An IPv4 VIP's key is fixed but for its address (the fourth word; the
 * IPv4-mapped prefix fills the others) and the family (the fifth): one jhash round over those
 * two. IPv6 keys take jhash2() over all five words, as rhashtable's default would: a cheaper
 * mix that folds words together (w0 ^ w2, say) has collisions whatever the seed, which a user
 * adding VIPs could use to make a chain long enough for inserts to fail. Keys that share a
 * hash only share a bucket; the compare is over the five words, without memcmp().
 */
static u32 kmg_vip_hash(const void *data, u32 len, u32 seed)
{
	const struct kmg_vip_key *k = data;
	const u32 *w = data;

	BUILD_BUG_ON(sizeof(struct kmg_vip_key) != 5 * sizeof(u32));
	if (k->family == AF_INET)
		return jhash_2words(w[3], w[4], seed);
	return jhash2(w, 5, seed);
}

static int kmg_vip_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const u32 *k = arg->key, *e = (const u32 *)&((const struct kmg_vip *)obj)->key;

	return !!((k[0] ^ e[0]) | (k[1] ^ e[1]) | (k[2] ^ e[2]) | (k[3] ^ e[3]) | (k[4] ^ e[4]));
}

static const struct rhashtable_params kmg_vip_params = {
	.hashfn		= kmg_vip_hash,
	.obj_cmpfn	= kmg_vip_cmp,
	.key_len	= sizeof(struct kmg_vip_key),
	.key_offset	= offsetof(struct kmg_vip, key),
	.head_offset	= offsetof(struct kmg_vip, node),
	.automatic_shrinking = true,
};

static void kmg_vip_key(struct kmg_vip_key *vk, u8 family, const u8 addr[16])
{
	memset(vk, 0, sizeof(*vk));
	memcpy(vk->addr, addr, sizeof(vk->addr));
	vk->family = family;
}

/* The VIP counts services with the echo and defrag flags; ICMP echo and fragments have no port. */
void kmg_vip_flags(struct kmg_vip *vip, u32 flags, int sign)
{
	if (flags & KMAGLEV_SERVICE_FLAGS_ECHO)
		WRITE_ONCE(vip->echo, vip->echo + sign);
	if (flags & KMAGLEV_SERVICE_FLAGS_DEFRAG)
		WRITE_ONCE(vip->defrag, vip->defrag + sign);
}

/*
 * Publish the VIP's services for the packet path: up to KMG_VIP_DIRECT in an array sorted
 * from the most specific kind, so most VIPs need no second hash lookup; with more, or when the
 * allocation fails, the packet path looks them up in svc_ht instead.
 */
static void kmg_vip_publish(struct kmg_vip *vip)
{
	struct kmg_vip_direct *d = NULL, *old;
	struct kmg_service *svc;
	unsigned int kind;

	if (vip->nservices && vip->nservices <= KMG_VIP_DIRECT)
		d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (d) {
		for (kind = 0; kind < ARRAY_SIZE(vip->kinds); kind++)
			list_for_each_entry(svc, &vip->services, vip_node)
				if (kmg_svc_kind(&svc->key) == kind)
					d->svc[d->n++] = svc;
	}
	old = rcu_replace_pointer(vip->direct, d, lockdep_is_held(&vip->kn->lock));
	if (old)
		kfree_rcu(old, rcu);
}

/* The VIP filter bucket of an address (in the IPv4-mapped form of struct kmg_vip_key). */
static u32 kmg_vipf_bucket(u8 family, const u8 addr[16])
{
	const __be32 *a = (const __be32 *)addr;

	if (family == AF_INET)
		return kmg_vipf_hash4(a[3]);
	return kmg_vipf_hash6((const struct in6_addr *)addr);
}

/* A VIP address appears or goes: update the filter the packet path checks first. */
static void kmg_vipf_count(struct kmg_net *kn, const struct kmg_vip *vip, int sign)
{
	struct kmg_vip_filter *f = rcu_dereference_protected(kn->vipf,
							     lockdep_is_held(&kn->lock));
	u16 *c = &f->count[kmg_vipf_bucket(vip->key.family, vip->key.addr)];

	/* A saturated bucket stays set: only a cost (a hash lookup), never a wrong answer. */
	if (*c != U16_MAX)
		WRITE_ONCE(*c, *c + sign);
}

/* Add a service to its VIP address entry, creating that on the first service. */
int kmg_vip_attach(struct kmg_net *kn, struct kmg_service *svc)
{
	struct kmg_vip_key vk;
	struct kmg_vip *vip;
	unsigned int kind = kmg_svc_kind(&svc->key);
	int err;

	if (!rcu_access_pointer(kn->vipf)) {
		struct kmg_vip_filter *f = kvzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);

		if (!f)
			return -ENOMEM;
		rcu_assign_pointer(kn->vipf, f);
	}
	kmg_vip_key(&vk, svc->key.family, svc->key.addr);
	vip = rhashtable_lookup_fast(&kn->vip_ht, &vk, kmg_vip_params);
	if (!vip) {
		vip = kzalloc(sizeof(*vip), GFP_KERNEL_ACCOUNT);
		if (!vip)
			return -ENOMEM;
		vip->key = vk;
		vip->kn = kn;
		INIT_LIST_HEAD(&vip->services);
		err = rhashtable_insert_fast(&kn->vip_ht, &vip->node, kmg_vip_params);
		if (err) {
			kfree(vip);
			return err;
		}
		kmg_vipf_count(kn, vip, 1);
	}
	list_add_tail(&svc->vip_node, &vip->services);
	vip->nservices++;
	WRITE_ONCE(vip->kinds[kind], vip->kinds[kind] + 1);
	kmg_vip_flags(vip, svc->cfg.flags, 1);
	svc->vip = vip;
	kmg_vip_publish(vip);
	return 0;
}

void kmg_vip_detach(struct kmg_service *svc)
{
	struct kmg_vip *vip = svc->vip;
	unsigned int kind = kmg_svc_kind(&svc->key);

	list_del(&svc->vip_node);
	vip->nservices--;
	WRITE_ONCE(vip->kinds[kind], vip->kinds[kind] - 1);
	kmg_vip_flags(vip, svc->cfg.flags, -1);
	svc->vip = NULL;
	kmg_vip_publish(vip);
	if (vip->nservices)
		return;
	kmg_vipf_count(vip->kn, vip, -1);
	rhashtable_remove_fast(&vip->kn->vip_ht, &vip->node, kmg_vip_params);
	kfree_rcu(vip, rcu);
}

/* Packet path: the VIP entry of a destination address, or NULL. Under RCU. */
struct kmg_vip *kmg_vip_lookup_rcu(struct kmg_net *kn, u8 family, const void *daddr)
{
	struct kmg_vip_key vk;

	memset(&vk, 0, sizeof(vk));
	if (family == AF_INET) {
		vk.addr[10] = 0xff;
		vk.addr[11] = 0xff;
		memcpy(&vk.addr[12], daddr, 4);
	} else {
		memcpy(vk.addr, daddr, 16);
	}
	vk.family = family;
	return rhashtable_lookup(&kn->vip_ht, &vk, kmg_vip_params);
}

/* Is @addr a VIP of the netns? Under kn->lock. */
bool kmg_vip_exists(struct kmg_net *kn, u8 family, const u8 addr[16])
{
	struct kmg_vip_key vk;

	kmg_vip_key(&vk, family, addr);
	return rhashtable_lookup_fast(&kn->vip_ht, &vk, kmg_vip_params);
}

int kmg_vips_init(struct kmg_net *kn)
{
	return rhashtable_init(&kn->vip_ht, &kmg_vip_params);
}

/* The netns goes, with no services left. Under kn->lock. */
void kmg_vips_exit(struct kmg_net *kn)
{
	struct kmg_vip_filter *f;

	f = rcu_replace_pointer(kn->vipf, NULL, lockdep_is_held(&kn->lock));
	if (f)
		kvfree_rcu(f, rcu);
	rhashtable_destroy(&kn->vip_ht);
}
