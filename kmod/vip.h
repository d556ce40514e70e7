/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmaglev VIP addresses (vip.c): one entry per address that some service of the netns uses
 * (kn->vip_ht), the services of each VIP published for the packet path, and the per-netns
 * counting filter that lets packets to other addresses pass after one load.
 *
 * Changed under kn->lock (service.c attaches and detaches services); read under RCU by the
 * packet path. A VIP entry is freed after a grace period; the filter goes with the netns.
 */
#ifndef _KMAGLEV_VIP_H
#define _KMAGLEV_VIP_H

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable-types.h>
#include <linux/types.h>

#include "netns.h"
#include "service.h"

struct kmg_vip_key {
	u8 addr[16];
	u8 family;
	u8 pad[3];
} __aligned(4);		/* read as five words (vip.c) */

/* A VIP's services, most specific first, for VIPs with few (published by RCU). */
#define KMG_VIP_DIRECT	4

struct kmg_vip_direct {
	struct rcu_head rcu;
	u32 n;
	struct kmg_service *svc[KMG_VIP_DIRECT];
};

/* One VIP address; exists while any service uses it (kn->vip_ht, under kn->lock). */
struct kmg_vip {
	struct rhash_head node;
	struct kmg_vip_key key;
	struct kmg_net *kn;
	u32 nservices;
	/* services by kind: [proto any << 1 | every port], so lookups skip absent wildcards */
	u32 kinds[4];
	/* services with the echo and defrag flags; ICMP echo and fragments carry no port */
	u32 echo;
	u32 defrag;
	struct list_head services;	/* under kn->lock */
	struct kmg_vip_direct __rcu *direct;
	struct rcu_head rcu;
};

/*
 * Which addresses may be VIPs: a counting filter over VIP addresses, checked before anything
 * else, so packets to other addresses pass after one load. A set bucket may also be another
 * VIP's; the VIP hash table decides.
 */
#define KMG_VIPF_BITS	16

struct kmg_vip_filter {
	struct rcu_head rcu;
	u16 count[1 << KMG_VIPF_BITS];
};

static inline u32 kmg_vipf_hash4(__be32 addr)
{
	return hash_32((__force u32)addr, KMG_VIPF_BITS);
}

/*
 * jhash2 over the four words: a bit flipped in two words, or two words swapped, moves the
 * address to another bucket (with the words' XOR, or any mix that XORs one half into the
 * other, the same flip in both cancels out).
 */
static inline u32 kmg_vipf_hash6(const struct in6_addr *a)
{
	return jhash2((__force const u32 *)a->s6_addr32, 4, 0) >> (32 - KMG_VIPF_BITS);
}

/* Could the address be a VIP? One load answers no for almost every other address. */
static inline bool kmg_vip_maybe(struct kmg_net *kn, u32 bucket)
{
	struct kmg_vip_filter *f = rcu_dereference(kn->vipf);

	return f && READ_ONCE(f->count[bucket]);
}

/* vip.c */
/* Which wildcard lookups a service's VIP needs: bit 1 = proto any, bit 0 = every port. */
static inline unsigned int kmg_svc_kind(const struct kmg_svc_key *key)
{
	return (key->proto ? 0 : 2) + (key->port ? 0 : 1);
}

int kmg_vips_init(struct kmg_net *kn);
void kmg_vips_exit(struct kmg_net *kn);
int kmg_vip_attach(struct kmg_net *kn, struct kmg_service *svc);
void kmg_vip_detach(struct kmg_service *svc);
void kmg_vip_flags(struct kmg_vip *vip, u32 flags, int sign);
bool kmg_vip_exists(struct kmg_net *kn, u8 family, const u8 addr[16]);
struct kmg_vip *kmg_vip_lookup_rcu(struct kmg_net *kn, u8 family, const void *daddr);

#endif /* _KMAGLEV_VIP_H */
