// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev_inject.ko: the packet source of `make bench`. It hands 64-byte UDP frames to a
 * device's receive path the way a NIC driver's copy-break path does: each packet a fresh skb
 * with the driver's headroom (netdev_alloc_skb_ip_align(), which gives a frame this small a
 * kmalloc'd head, not a page fragment), owned by the stack alone, passed to
 * netif_receive_skb() with BHs off. pktgen's netif_receive mode hands the stack one skb again
 * and again with an extra reference held, so every writer on the way copies the header first
 * (skb_share_check(), then pskb_expand_head()), a cost no NIC imposes.
 *
 * Writing a line to /sys/kernel/debug/kmaglev_inject/run sends, in the writer's context and
 * network namespace, and returns when done:
 *
 *   dev=NAME count=N dst=A.B.C.D dport=P src=A.B.C.D-A.B.C.D sport=P-Q [mac=XX:..] [rnd=1]
 *   [df=1] [mark=1]
 *
 * Without rnd the source address and the source port step by one each packet (A addresses
 * and P ports, coprime, cycle through A * P flows, as pktgen's do); with rnd=1 both are drawn
 * at random in their ranges (prandom, seeded at each run). mac is the destination MAC
 * (default: the device's own). With df=1 the frames carry DF, as Linux's TCP, UDP and QUIC
 * senders' do (path MTU discovery); the bench asks for it in all but its -nodf cases, and
 * leaves it out otherwise, so that it also drives an older kmaglev_inject.ko. Reading the
 * file gives "packets N ns T dropped D" for the last run: T is ktime_get_ns() around the
 * loop (the guest's instruction clock under QEMU -icount), D the packets the stack refused.
 * A run stops early, with its count recorded, when the device goes down (ENETDOWN) or the
 * writer is killed (EINTR).
 * With mark=1 the loop is framed by the marker that selftests/bench/insn-count.c (a QEMU
 * plugin) counts instructions between: `xchg %bx,%bx`, a no-op (x86 only).
 * Only for this tree's benchmark: root only, nothing else uses it.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/math.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/udp.h>
#include <linux/uaccess.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#define KMG_INJ_LEN	64		/* frame, without the FCS, as pktgen's pkt_size 64 */
#define KMG_INJ_MAX	(100U * 1000 * 1000)

struct kmg_inj_req {
	char dev[IFNAMSIZ];
	u32 count;
	__be32 dst;
	u16 dport;
	u32 src_min, src_max;		/* host order */
	u16 sport_min, sport_max;
	u8 mac[ETH_ALEN];
	bool has_mac;
	bool rnd;
	bool df;
	bool mark;
};

static DEFINE_MUTEX(kmg_inj_lock);	/* one run at a time; guards the result */
static u64 kmg_inj_ns, kmg_inj_pkts, kmg_inj_drops;
static struct dentry *kmg_inj_dir;

static int kmg_inj_parse_range(const char *v, u32 *lo, u32 *hi, bool addr)
{
	char buf[40], *dash;
	__be32 a, b;
	u32 x, y;

	if (strscpy(buf, v, sizeof(buf)) < 0)
		return -EINVAL;
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (addr) {
		if (!in4_pton(buf, -1, (u8 *)&a, -1, NULL))
			return -EINVAL;
		b = a;
		if (dash && !in4_pton(dash, -1, (u8 *)&b, -1, NULL))
			return -EINVAL;
		x = ntohl(a);
		y = ntohl(b);
	} else {
		if (kstrtou32(buf, 10, &x) || x > 65535)
			return -EINVAL;
		y = x;
		if (dash && (kstrtou32(dash, 10, &y) || y > 65535))
			return -EINVAL;
	}
	if (y < x)
		return -EINVAL;
	*lo = x;
	*hi = y;
	return 0;
}

static int kmg_inj_parse(char *line, struct kmg_inj_req *r)
{
	char *tok, *v;
	u32 lo, hi;
	int err;

	memset(r, 0, sizeof(*r));
	while ((tok = strsep(&line, " \t\n"))) {
		if (!*tok)
			continue;
		v = strchr(tok, '=');
		if (!v)
			return -EINVAL;
		*v++ = '\0';
		if (!strcmp(tok, "dev")) {
			if (strscpy(r->dev, v, sizeof(r->dev)) < 0)
				return -EINVAL;
		} else if (!strcmp(tok, "count")) {
			if (kstrtou32(v, 10, &r->count) || !r->count || r->count > KMG_INJ_MAX)
				return -EINVAL;
		} else if (!strcmp(tok, "dst")) {
			if (!in4_pton(v, -1, (u8 *)&r->dst, -1, NULL))
				return -EINVAL;
		} else if (!strcmp(tok, "dport")) {
			if (kstrtou16(v, 10, &r->dport))
				return -EINVAL;
		} else if (!strcmp(tok, "src")) {
			err = kmg_inj_parse_range(v, &r->src_min, &r->src_max, true);
			if (err)
				return err;
		} else if (!strcmp(tok, "sport")) {
			err = kmg_inj_parse_range(v, &lo, &hi, false);
			if (err)
				return err;
			r->sport_min = lo;
			r->sport_max = hi;
		} else if (!strcmp(tok, "mac")) {
			/* mac_pton() ignores what follows the sixth byte */
			if (strlen(v) != 3 * ETH_ALEN - 1 || !mac_pton(v, r->mac))
				return -EINVAL;
			r->has_mac = true;
		} else if (!strcmp(tok, "rnd")) {
			if (kstrtobool(v, &r->rnd))
				return -EINVAL;
		} else if (!strcmp(tok, "df")) {
			if (kstrtobool(v, &r->df))
				return -EINVAL;
		} else if (!strcmp(tok, "mark")) {
			if (kstrtobool(v, &r->mark))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (!r->dev[0] || !r->count || !r->dst || !r->src_min)
		return -EINVAL;
	return 0;
}

/* One frame as a NIC driver would build it: a fresh skb with the driver's headroom. */
static struct sk_buff *kmg_inj_skb(struct net_device *dev, const u8 *dmac, __be16 frag_off,
				   __be32 saddr, __be32 daddr, u16 sport, u16 dport)
{
	struct sk_buff *skb;
	struct ethhdr *eth;
	struct udphdr *uh;
	struct iphdr *iph;

	skb = netdev_alloc_skb_ip_align(dev, KMG_INJ_LEN);
	if (!skb)
		return NULL;
	eth = skb_put(skb, KMG_INJ_LEN);
	memcpy(eth->h_dest, dmac, ETH_ALEN);
	memcpy(eth->h_source, dev->dev_addr, ETH_ALEN);
	eth->h_source[5] ^= 1;
	eth->h_proto = htons(ETH_P_IP);
	iph = (struct iphdr *)(eth + 1);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = 0;
	iph->tot_len = htons(KMG_INJ_LEN - ETH_HLEN);
	iph->id = 0;
	iph->frag_off = frag_off;
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	iph->check = 0;
	iph->check = ip_fast_csum(iph, iph->ihl);
	uh = (struct udphdr *)(iph + 1);
	uh->source = htons(sport);
	uh->dest = htons(dport);
	uh->len = htons(KMG_INJ_LEN - ETH_HLEN - sizeof(*iph));
	uh->check = 0;
	memset(uh + 1, 0, KMG_INJ_LEN - ETH_HLEN - sizeof(*iph) - sizeof(*uh));
	skb->protocol = eth_type_trans(skb, dev);
	return skb;
}

/* The window of `bench.sh --insns` (selftests/bench/insn-count.c): a no-op, x86 only. */
static void kmg_inj_mark(bool on)
{
#ifdef CONFIG_X86
	if (on)
		asm volatile("xchg %%bx, %%bx" ::: "memory");
#endif
}

static int kmg_inj_run(const struct kmg_inj_req *r)
{
	u32 na = r->src_max - r->src_min + 1, np = r->sport_max - r->sport_min + 1;
	__be16 frag_off = r->df ? htons(IP_DF) : 0;
	struct rnd_state rs;
	u64 t0, drops = 0;
	struct net_device *dev;
	const u8 *dmac;
	struct sk_buff *skb;
	u32 i, a, p;
	int err = 0;

	dev = dev_get_by_name(current->nsproxy->net_ns, r->dev);
	if (!dev)
		return -ENODEV;
	if (!netif_running(dev)) {
		dev_put(dev);
		return -ENETDOWN;
	}
	dmac = r->has_mac ? r->mac : dev->dev_addr;
	/*
	 * A cheap generator seeded once a run: get_random_u32() (ChaCha) cost ~300 instructions
	 * a packet, which the generator-only case, whose flows step, does not pay.
	 */
	prandom_seed_state(&rs, get_random_u64());
	kmg_inj_mark(r->mark);
	t0 = ktime_get_ns();
	for (i = 0; i < r->count; i++) {
		if (r->rnd) {
			a = reciprocal_scale(prandom_u32_state(&rs), na);
			p = reciprocal_scale(prandom_u32_state(&rs), np);
		} else {
			a = i % na;
			p = i % np;
		}
		skb = kmg_inj_skb(dev, dmac, frag_off, htonl(r->src_min + a), r->dst,
				  r->sport_min + p, r->dport);
		if (!skb) {
			drops++;
		} else {
			local_bh_disable();
			if (netif_receive_skb(skb) == NET_RX_DROP)
				drops++;
			local_bh_enable();
		}
		if ((i & 63) == 63) {
			/*
			 * The reference held keeps dev, not its being up. Best effort: a
			 * device being unregistered is closed first; up to 63 more packets
			 * may reach it, which the stack drops.
			 */
			if (!netif_running(dev)) {
				err = -ENETDOWN;
				i++;
				break;
			}
			if (fatal_signal_pending(current)) {
				err = -EINTR;
				i++;
				break;
			}
			cond_resched();
		}
	}
	kmg_inj_ns = ktime_get_ns() - t0;
	kmg_inj_mark(r->mark);
	kmg_inj_pkts = i;
	kmg_inj_drops = drops;
	dev_put(dev);
	return err;
}

static ssize_t kmg_inj_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct kmg_inj_req req;
	char *line;
	int err;

	if (len > 256)
		return -EINVAL;
	line = memdup_user_nul(ubuf, len);
	if (IS_ERR(line))
		return PTR_ERR(line);
	err = kmg_inj_parse(line, &req);
	kfree(line);
	if (err)
		return err;
	/* a second writer waits for the run before it, but can be killed while it waits */
	err = mutex_lock_killable(&kmg_inj_lock);
	if (err)
		return err;
	err = kmg_inj_run(&req);
	mutex_unlock(&kmg_inj_lock);
	return err ? err : len;
}

static ssize_t kmg_inj_read(struct file *f, char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[96];
	int n, err;

	err = mutex_lock_killable(&kmg_inj_lock);
	if (err)
		return err;
	n = scnprintf(buf, sizeof(buf), "packets %llu ns %llu dropped %llu\n",
		      kmg_inj_pkts, kmg_inj_ns, kmg_inj_drops);
	mutex_unlock(&kmg_inj_lock);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static const struct file_operations kmg_inj_fops = {
	.owner = THIS_MODULE,
	.write = kmg_inj_write,
	.read = kmg_inj_read,
	.llseek = default_llseek,
};

static int __init kmg_inj_init(void)
{
	kmg_inj_dir = debugfs_create_dir("kmaglev_inject", NULL);
	debugfs_create_file("run", 0600, kmg_inj_dir, NULL, &kmg_inj_fops);
	return 0;
}

static void __exit kmg_inj_exit(void)
{
	debugfs_remove_recursive(kmg_inj_dir);
}

module_init(kmg_inj_init);
module_exit(kmg_inj_exit);
MODULE_DESCRIPTION("kmaglev benchmark: NIC-like packet source for make bench");
MODULE_LICENSE("GPL");
