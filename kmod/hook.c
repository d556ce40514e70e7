// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev netfilter hooks: the packet path.
 *
 * PRE_ROUTING (packets from clients) and LOCAL_OUT (locally generated packets, such as health
 * probes) for IPv4 and IPv6, registered in a netns only while it has services, at priority
 * KMG_PRI (-290): after the raw table (-300), so an operator's raw rules (a DDoS source's
 * drop, say) win, and before conntrack (-200), so balanced flows are never tracked. (With
 * conntrack in use, its defragmentation (-400) reassembles fragments before kmaglev sees
 * them.) In mode ingress (ingress.c) the same function, kmg_rcv(), runs earlier, from the
 * devices' ingress hooks; what that path leaves to the stack is handled here.
 *
 * A packet whose destination is not a VIP address costs one lockless lookup and passes. A
 * packet to a VIP is parsed, matched to a service, given a backend (select.c) and sent
 * encapsulated (encap.c); the hook then returns NF_STOLEN. Packets that are malformed, or
 * cannot be balanced, are dropped with a kernel drop reason and counted.
 *
 * The whole path runs under RCU (as every netfilter hook does) with bottom halves disabled,
 * so per-CPU counters and the fragment queues are safe from process context too.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kmaglev.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6_frag.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "backend.h"
#include "conn.h"
#include "encap.h"
#include "hook.h"
#include "icmp.h"
#include "netns.h"
#include "parse.h"
#include "select.h"
#include "service.h"
#include "stats.h"
#include "vip.h"

/*
 * Reassemble a fragment in place. 0: @skb is now the whole packet, or (IPv6) still the fragment
 * it was (the caller checks); else it was consumed: queued, or dropped and counted.
 */
static int kmg_defrag(struct kmg_net *kn, struct sk_buff *skb, u8 family)
{
	int err;

	if (family == AF_INET) {
		/* IPVS uses the same queue user; kmaglev and IPVS never balance the same VIP. */
		err = ip_defrag(kn->net, skb, IP_DEFRAG_VS_IN);
		/* an overlap, a bad length, no memory: ip_defrag() freed the fragment */
		if (err && err != -EINPROGRESS)
			kmg_count(kn, err == -ENOMEM ? KMG_C_DROP_NOMEM : KMG_C_DROP_MALFORMED);
	} else {
		err = nf_ct_frag6_gather(kn->net, skb, IP6_DEFRAG_LOCAL_DELIVER);
		if (err && err != -EINPROGRESS)
			kmg_drop(kn, skb, err == -ENOMEM ? KMG_C_DROP_NOMEM : KMG_C_DROP_MALFORMED,
				 SKB_DROP_REASON_IP_INHDR);
	}
	/* held in its queue (or a duplicate, dropped there) */
	if (err == -EINPROGRESS)
		kmg_count(kn, KMG_C_FRAG_QUEUED);
	return err;
}

/* A packet to a service: rx-packets, and rx-ingress when the early path took it. */
static void kmg_count_rx(struct kmg_net *kn, bool early)
{
	kmg_count(kn, KMG_C_RX_PACKETS);
	if (early)
		kmg_count(kn, KMG_C_RX_INGRESS);
}

static void kmg_account(struct kmg_pcpu_stats __percpu *pcpu, unsigned int len, bool is_new)
{
	struct kmg_pcpu_stats *s = this_cpu_ptr(pcpu);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->packets);
	u64_stats_add(&s->bytes, len);
	if (is_new)
		u64_stats_inc(&s->new_flows);
	u64_stats_update_end(&s->syncp);
}

/* Does the packet carry a probe mark? Then @id is the backend id it names. */
static bool kmg_probe_marked(struct kmg_net *kn, const struct sk_buff *skb, u32 *id)
{
	u64 marks = READ_ONCE(kn->ccfg.probe_marks);
	u32 min = marks >> 32, max = (u32)marks;

	if (!max || skb->mark < min || skb->mark > max)
		return false;
	*id = skb->mark - min;
	return true;
}

/*
 * The backend a probe-marked packet that matched @svc goes to, or NULL when the mark names no
 * backend of @svc: no backend at all, one of another service, or one deleted meanwhile. Such
 * a probe is dropped rather than balanced: it must test the backend it names or none (a
 * prober holding a stale id learns of it from drop-probe-mismatch, not from a good answer
 * by another backend).
 *
 * Under RCU: kn->backend_ids holds listed backends, which are freed only after a grace
 * period once unlisted (kmg_backend_unlist() comes before the set's reference goes). be->svc
 * was set before xa_store() published the backend and never changes; the backend holds no
 * reference on its service, so here it is only compared.
 * Ids are reused (kmg_chg_assign_ids()), so a mark may name a newer backend than the prober
 * meant; the service check keeps it within the service the prober addressed.
 */
static struct kmg_backend *kmg_probe_backend(struct kmg_net *kn, const struct kmg_service *svc,
					     u32 id)
{
	struct kmg_backend *be = xa_load(&kn->backend_ids, id);

	if (!be || be->svc != svc || READ_ONCE(be->removed))
		return NULL;
	return be;
}

/*
 * A packet sent to an address of this host: the loopback device, or the VRF device for an
 * address in a VRF, brings it back to PRE_ROUTING. (In a VRF, LOCAL_OUT also runs once with
 * the VRF device as @out before the real device's pass.)
 */
static bool kmg_loops_back(const struct nf_hook_state *state)
{
	return state->hook == NF_INET_LOCAL_OUT && state->out &&
	       ((state->out->flags & IFF_LOOPBACK) || netif_is_l3_master(state->out));
}

/* Probe marks are configured: locally generated packets take the full path. */
static bool kmg_probing(struct kmg_net *kn, const struct nf_hook_state *state)
{
	return state->hook == NF_INET_LOCAL_OUT && (u32)READ_ONCE(kn->ccfg.probe_marks);
}

/*
 * A packet that may be to a VIP (its address passed the VIP filter). Returns the netfilter
 * verdict; NF_STOLEN when it consumed the packet. @early: from an ingress hook, whose caller
 * checked the IP header as ip_rcv() would; fragments are then left to PRE_ROUTING, where
 * the stack has set the packet up for reassembly.
 */
unsigned int kmg_rcv(struct kmg_net *kn, struct sk_buff *skb, const struct nf_hook_state *state,
		     u8 family, const void *daddr, bool early)
{
	struct kmg_flow f = { };
	struct kmg_backend *be;
	struct kmg_service *svc;
	enum kmg_parse res;
	struct kmg_vip *vip;
	struct kmg_pkt p;
	u32 probe_id;

	/* mode ingress checked the IPv4 header already (kmg_ingress4()) */
	if (family == AF_INET)
		res = early ? kmg_parse4_checked(skb, &p) : kmg_parse4(skb, &p);
	else
		res = kmg_parse6(skb, &p);
	p.local = state->hook == NF_INET_LOCAL_OUT;
	p.early = early;

	/* A packet of a tracked flow: its entry names service and backend. */
	if (res == KMG_PARSE_OK && !p.frag && !p.echo && !p.icmp_err &&
	    !kmg_probing(kn, state)) {
		be = kmg_flow_fast(kn, &f, &p, &svc);
		if (be) {
			kmg_count_rx(kn, early);
			goto xmit;
		}
	}

	vip = kmg_vip_lookup_rcu(kn, family, daddr);
	if (!vip)
		return NF_ACCEPT;	/* not a VIP after all (another address in its bucket) */
	if (res == KMG_PARSE_OK && p.frag) {
		if (early)
			return NF_ACCEPT;
		if (!READ_ONCE(vip->defrag)) {
			kmg_drop(kn, skb, KMG_C_DROP_FRAG, SKB_DROP_REASON_IP_INHDR);
			return NF_STOLEN;
		}
		if (kmg_defrag(kn, skb, family))
			return NF_STOLEN;
		res = family == AF_INET ? kmg_parse4(skb, &p) : kmg_parse6(skb, &p);
		p.local = state->hook == NF_INET_LOCAL_OUT;
		p.early = early;
		/*
		 * nf_ct_frag6_gather() returns some fragments as they came, which the stack would
		 * drop: a first fragment without the whole header chain (RFC 8200 4.5), a
		 * non-final one whose length is not a multiple of 8. Never balanced as they are.
		 */
		if (res == KMG_PARSE_OK && p.frag) {
			kmg_drop(kn, skb, KMG_C_DROP_MALFORMED, SKB_DROP_REASON_IP_INHDR);
			return NF_STOLEN;
		}
		kmg_count(kn, KMG_C_FRAG_REASSEMBLED);
	}
	if (res == KMG_PARSE_PASS)
		goto miss;
	if (res == KMG_PARSE_DROP) {
		kmg_drop(kn, skb, KMG_C_DROP_MALFORMED, SKB_DROP_REASON_PKT_TOO_SMALL);
		return NF_STOLEN;
	}
	if (p.echo) {
		if (!READ_ONCE(vip->echo))
			goto miss;
		kmg_icmp_echo_reply(kn, skb, &p);
		return NF_STOLEN;
	}

	svc = kmg_vip_service_rcu(vip, p.proto, p.dport);
	if (!svc) {
		if (p.icmp_err) {
			kmg_drop(kn, skb, KMG_C_ICMP_DROP, SKB_DROP_REASON_UNHANDLED_PROTO);
			return NF_STOLEN;
		}
		goto miss;
	}
	kmg_count_rx(kn, early);

	if (kmg_probing(kn, state) && kmg_probe_marked(kn, skb, &probe_id)) {
		be = kmg_probe_backend(kn, svc, probe_id);
		if (!be) {
			kmg_drop(kn, skb, KMG_C_DROP_PROBE_MISMATCH,
				 SKB_DROP_REASON_NETFILTER_DROP);
			return NF_STOLEN;
		}
		kmg_count(kn, KMG_C_PROBE);
	} else {
		/* read here, not by the parser: established flows never need it */
		f.dscp = (family == AF_INET ? ipv4_get_dsfield(ip_hdr(skb)) :
					      ipv6_get_dsfield(ipv6_hdr(skb))) >> 2;
		be = kmg_flow_decide(kn, &f, svc, &p);
	}
	if (!be) {
		/* ingress packets are unrouted as at PRE_ROUTING (NF_NETDEV_INGRESS is 0 too) */
		if (f.why == KMG_C_QUOTA_RST)
			kmg_quota_send_rst(kn->net, skb, family,
					   early ? NF_INET_PRE_ROUTING : state->hook);
		kmg_drop(kn, skb, p.icmp_err ? KMG_C_ICMP_DROP : f.why,
			 SKB_DROP_REASON_NETFILTER_DROP);
		return NF_STOLEN;
	}
	if (p.icmp_err)
		kmg_count(kn, KMG_C_ICMP_FORWARDED);
xmit:
	kmg_account(svc->stats, skb->len, f.is_new);
	kmg_account(be->stats, skb->len, f.is_new);
	kmg_xmit(kn, svc, be, skb, &p);
	return NF_STOLEN;

miss:
	/*
	 * No service takes it (informational ICMP, an echo request without the echo flag, no
	 * matching service): the stack has it. Counted once: at PRE_ROUTING, not when the
	 * early path passes it on, and not at LOCAL_OUT when loopback (or a VRF) brings it
	 * back to PRE_ROUTING (a VIP that is an address of this host).
	 */
	if (!early && !kmg_loops_back(state))
		kmg_count(kn, KMG_C_VIP_MISS);
	return NF_ACCEPT;
}

/*
 * A packet kmaglev itself is sending (kmg_local_out() sets the flag around ip_local_out(),
 * with bottom halves off). Call with bottom halves off: then nothing else runs on this CPU.
 */
static bool kmg_own_output(const struct nf_hook_state *state)
{
	return state->hook == NF_INET_LOCAL_OUT && __this_cpu_read(kmg_in_xmit);
}

/*
 * With br_netfilter, a frame that a bridge forwards to another host passes the IP hooks as
 * PACKET_HOST, its real type kept aside: it is that host's (say, another LB's encap dr packet
 * on its way to a backend), not this one's to balance again.
 */
static __always_inline bool kmg_bridged_otherhost(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	const struct nf_bridge_info *nf_bridge = nf_bridge_info_get(skb);

	return unlikely(nf_bridge && nf_bridge->pkt_otherhost);
#else
	return false;
#endif
}

/*
 * At PRE_ROUTING, only unicast to this host, as ip_forward() wants and the ingress hook checks:
 * a packet for the VIP in a link-layer broadcast or multicast frame would otherwise be
 * balanced by every LB on the segment. (ip_rcv() has dropped PACKET_OTHERHOST already.)
 */
static __always_inline bool kmg_not_ours(const struct sk_buff *skb,
					 const struct nf_hook_state *state)
{
	return state->hook == NF_INET_PRE_ROUTING &&
	       (unlikely(skb->pkt_type != PACKET_HOST) || kmg_bridged_otherhost(skb));
}

/* @priv is the netns' struct kmg_net (kmg_hooks_register()): no net_generic() per packet. */
static unsigned int kmg_hook4(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	struct kmg_net *kn = priv;
	__be32 daddr = ip_hdr(skb)->daddr;
	unsigned int verdict = NF_ACCEPT;
	bool bh;

	if (!kmg_vip_maybe(kn, kmg_vipf_hash4(daddr)) || kmg_not_ours(skb, state))
		return NF_ACCEPT;
	bh = kmg_bh_off();
	/* LOCAL_OUT may be preemptible: the per-CPU flag is read with bottom halves off. */
	if (!kmg_own_output(state))
		verdict = kmg_rcv(kn, skb, state, AF_INET, &daddr, false);
	kmg_bh_restore(bh);
	return verdict;
}

static unsigned int kmg_hook6(void *priv, struct sk_buff *skb, const struct nf_hook_state *state)
{
	struct kmg_net *kn = priv;
	struct in6_addr daddr = ipv6_hdr(skb)->daddr;
	unsigned int verdict = NF_ACCEPT;
	bool bh;

	if (!kmg_vip_maybe(kn, kmg_vipf_hash6(&daddr)) || kmg_not_ours(skb, state))
		return NF_ACCEPT;
	bh = kmg_bh_off();
	if (!kmg_own_output(state))
		verdict = kmg_rcv(kn, skb, state, AF_INET6, &daddr, false);
	kmg_bh_restore(bh);
	return verdict;
}

/* After the raw table (-300), before conntrack (-200): see the top of this file. */
#define KMG_PRI4	(NF_IP_PRI_RAW + 10)
#define KMG_PRI6	(NF_IP6_PRI_RAW + 10)

static const struct nf_hook_ops kmg_nf_ops[KMG_NF_OPS] = {
	{
		.hook		= kmg_hook4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= KMG_PRI4,
	},
	{
		.hook		= kmg_hook4,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= KMG_PRI4,
	},
	{
		.hook		= kmg_hook6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= KMG_PRI6,
	},
	{
		.hook		= kmg_hook6,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= KMG_PRI6,
	},
};

/* The netns got its first service: start balancing. Under kn->lock. */
int kmg_hooks_register(struct kmg_net *kn)
{
	int err, i;

	lockdep_assert_held(&kn->lock);
	if (kn->hooks)
		return 0;
	memcpy(kn->nf_ops, kmg_nf_ops, sizeof(kn->nf_ops));
	for (i = 0; i < KMG_NF_OPS; i++)
		kn->nf_ops[i].priv = kn;
	err = nf_register_net_hooks(kn->net, kn->nf_ops, KMG_NF_OPS);
	if (err)
		return err;
	kmg_conn_gc_start(kn);
	kmg_quota_start(kn);
	WRITE_ONCE(kn->hooks, true);	/* the ingress hooks start balancing */
	return 0;
}

/*
 * The netns has no services left: stop, and drop every connection entry. Under kn->lock.
 *
 * nf_unregister_net_hooks() does not wait for packets already inside the hooks: one could
 * still insert a connection entry (after the flush, leaking it and its references) or, on
 * module unload, touch freed memory. synchronize_net() waits for them. A dying netns had its
 * hooks unregistered in pre_exit (kmg_hooks_pre_exit(), kmg_ingress_net_pre_exit()), and the
 * netns core waits for a grace period after every pre_exit, once for all the netns it
 * dismantles: no wait here then.
 */
void kmg_hooks_unregister(struct kmg_net *kn)
{
	lockdep_assert_held(&kn->lock);
	if (!kn->hooks)
		return;
	/* the ingress hooks take no packet from now on; the grace period covers them too */
	WRITE_ONCE(kn->hooks, false);
	if (!kn->dead) {
		nf_unregister_net_hooks(kn->net, kn->nf_ops, KMG_NF_OPS);
		synchronize_net();
	}
	kmg_conn_gc_stop(kn);
	kmg_quota_stop(kn);
}

/* The netns is exiting: stop the packet path; kmg_net_exit() flushes after a grace period. */
void kmg_hooks_pre_exit(struct kmg_net *kn)
{
	mutex_lock(&kn->lock);
	WRITE_ONCE(kn->dead, true);	/* read by the netdevice notifier (ingress.c) */
	if (kn->hooks)
		nf_unregister_net_hooks(kn->net, kn->nf_ops, KMG_NF_OPS);
	mutex_unlock(&kn->lock);
}
