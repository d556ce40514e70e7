// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev criticality-aware load shedding, after Google's SRE book ("Handling Overload"):
 * under overload the least important new flows are refused first, and established flows
 * never.
 *
 * A new flow's class is its DSCP's in the netns' dscp-map, or else its service's criticality
 * (critical-plus, critical, sheddable-plus, sheddable). Flows of shed-class and below are
 * shed while an overload signal is on:
 *   - the service's own overload (set by the daemon when every backend reports utilization
 *     above its limit, or by hand): shed-util;
 *   - the connection table above shed-conn-fill percent of conn-max: shed-conn-fill;
 *   - more new flows than shed-new-rate in the current or the last second: shed-new-rate;
 *   - the host's load at shed-load-high, until it is back at shed-load-low: shed-load.
 * A shed flow is counted once, under the first of these that is on.
 *
 * The load is the share of CPU time the host spends in softirq (where the packet path runs),
 * over every online CPU, from the kernel's own CPU time accounting (kcpustat), sampled every
 * 100 ms and averaged exponentially (an eighth of each sample: a time constant of about
 * 0.75 s, so that a scheduling stall of a few hundred ms does not cross a hysteresis band).
 * The kernel accounts softirq time per tick unless it has IRQ_TIME_ACCOUNTING: a sample is
 * then a count of ticks, and the average smooths that out. What it cannot see: softirq work
 * on nohz_full CPUs (accounted as system time there) and threaded NAPI (a kthread with bottom
 * halves off, also system time); it does count every softirq, not only the network's.
 * An unprivileged netns may start the work (10 samples a second, a walk of the CPUs and of
 * the netns that use it); the signal is the host's, which every netns' traffic moves.
 */
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <net/netlink.h>

#include <kunit/visibility.h>

#include "conn.h"
#include "kmaglev.h"
#include "netns.h"
#include "service.h"
#include "shed.h"

#define KMG_SHED_LOAD_PERIOD	(HZ / 10)

/* The load work's lifetime: its users (netns with load_high set), under this mutex. */
static DEFINE_MUTEX(kmg_shed_load_lock);
static unsigned int kmg_shed_load_users;
/* The netns whose state the work moves: under this spinlock. */
static DEFINE_SPINLOCK(kmg_shed_list_lock);
static LIST_HEAD(kmg_shed_load_list);
/* The work's own state; kmg_shed_load_avg is read locklessly (per mille << 8). */
static u32 kmg_shed_load_avg;
static u64 kmg_shed_prev_busy, kmg_shed_prev_time;

u32 kmg_shed_smooth(u32 avg, u32 sample)
{
	return avg - avg / 8 + (min(sample, 1000U) << 8) / 8;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_shed_smooth);

u32 kmg_shed_load(void)
{
	return READ_ONCE(kmg_shed_load_avg) >> 8;
}

/* Softirq time of every CPU so far (offline ones' stay as they were), in ns. */
static u64 kmg_shed_softirq_ns(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(kcpustat_cpu(cpu).cpustat[CPUTIME_SOFTIRQ]);
	return sum;
}

/* One netns' hysteresis: on at load_high, off at load_low; every flip counted. */
void kmg_shed_load_eval(struct kmg_shed *sh, u32 load)
{
	u32 high = READ_ONCE(sh->set.load_high), low = READ_ONCE(sh->set.load_low);
	unsigned int on = READ_ONCE(sh->load_on);

	if (!high)
		return;
	if (!on && load >= high) {
		WRITE_ONCE(sh->load_on, 1);
		atomic_inc(&sh->transitions);
	} else if (on && load <= low) {
		WRITE_ONCE(sh->load_on, 0);
		atomic_inc(&sh->transitions);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kmg_shed_load_eval);

static void kmg_shed_load_work(struct work_struct *work)
{
	u64 now = ktime_get_ns(), busy = kmg_shed_softirq_ns();
	struct kmg_shed *sh;
	u32 load;

	if (kmg_shed_prev_time && now > kmg_shed_prev_time) {
		u64 span = (now - kmg_shed_prev_time) * num_online_cpus();
		u64 sample = div64_u64((busy - kmg_shed_prev_busy) * 1000, span);

		WRITE_ONCE(kmg_shed_load_avg,
			   kmg_shed_smooth(READ_ONCE(kmg_shed_load_avg), min_t(u64, sample, 1000)));
	}
	kmg_shed_prev_time = now;
	kmg_shed_prev_busy = busy;
	load = kmg_shed_load();
	/* load_on is only written here, one sample at a time: no flip is lost or doubled */
	spin_lock(&kmg_shed_list_lock);
	list_for_each_entry(sh, &kmg_shed_load_list, load_node)
		kmg_shed_load_eval(sh, load);
	spin_unlock(&kmg_shed_list_lock);
	queue_delayed_work(kmg_wq, to_delayed_work(work), KMG_SHED_LOAD_PERIOD);
}

static DECLARE_DELAYED_WORK(kmg_shed_load_dwork, kmg_shed_load_work);

/* A netns sets shed-load-high: measure (the first user starts the work). Under kn->lock. */
static void kmg_shed_load_get(struct kmg_shed *sh)
{
	mutex_lock(&kmg_shed_load_lock);
	if (!kmg_shed_load_users++) {
		kmg_shed_prev_time = 0;
		WRITE_ONCE(kmg_shed_load_avg, 0);
		queue_delayed_work(kmg_wq, &kmg_shed_load_dwork, 0);
	}
	spin_lock(&kmg_shed_list_lock);
	list_add(&sh->load_node, &kmg_shed_load_list);
	spin_unlock(&kmg_shed_list_lock);
	mutex_unlock(&kmg_shed_load_lock);
}

/*
 * ... and clears it, or goes: off its list, its state off (not a transition: the signal is
 * gone, not crossed); the last user stops the work.
 */
static void kmg_shed_load_put(struct kmg_shed *sh)
{
	mutex_lock(&kmg_shed_load_lock);
	spin_lock(&kmg_shed_list_lock);
	list_del_init(&sh->load_node);
	spin_unlock(&kmg_shed_list_lock);
	WRITE_ONCE(sh->load_on, 0);
	if (!--kmg_shed_load_users) {
		/* the work takes no mutex: it cannot wait for this one */
		cancel_delayed_work_sync(&kmg_shed_load_dwork);
		WRITE_ONCE(kmg_shed_load_avg, 0);
	}
	mutex_unlock(&kmg_shed_load_lock);
}

/* Module exit, after every netns: nothing uses the work any more. */
void kmg_shed_module_exit(void)
{
	WARN_ON(kmg_shed_load_users);
	cancel_delayed_work_sync(&kmg_shed_load_dwork);
}

/* New flows in the current and the last one-second window (counted while new_rate is set). */
static void kmg_shed_count(struct kmg_shed *sh, unsigned long second)
{
	unsigned long was = READ_ONCE(sh->rate.second);

	/* one CPU moves the window; a few flows of others at the boundary land in either */
	if (was != second && cmpxchg(&sh->rate.second, was, second) == was) {
		u32 n = atomic_xchg(&sh->rate.count, 0);

		WRITE_ONCE(sh->rate.prev, was + 1 == second ? n : 0);
	}
	atomic_inc(&sh->rate.count);
}

static bool kmg_shed_rate_over(struct kmg_shed *sh, u32 rate, unsigned long second)
{
	unsigned long was = READ_ONCE(sh->rate.second);
	u32 cur = atomic_read(&sh->rate.count);

	if (was == second)
		return cur > rate || READ_ONCE(sh->rate.prev) > rate;
	return was + 1 == second && cur > rate;
}

static bool kmg_shed_fill_over(struct kmg_net *kn, u32 pct)
{
	return (u64)kmg_conn_count(kn) * 100 > (u64)pct * READ_ONCE(kn->ccfg.conn_max);
}

/* The netns signals that are on now (enum kmaglev_shed_reason flags). */
u32 kmg_shed_reasons(struct kmg_net *kn)
{
	struct kmg_shed *sh = &kn->shed;
	u32 pct = READ_ONCE(sh->set.conn_fill), rate = READ_ONCE(sh->set.new_rate), r = 0;

	if (pct && kmg_shed_fill_over(kn, pct))
		r |= KMAGLEV_SHED_REASON_CONN_FILL;
	if (rate && kmg_shed_rate_over(sh, rate, jiffies / HZ))
		r |= KMAGLEV_SHED_REASON_NEW_RATE;
	if (READ_ONCE(sh->load_on))
		r |= KMAGLEV_SHED_REASON_LOAD;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_shed_reasons);

u32 kmg_shed_transitions(struct kmg_net *kn)
{
	return atomic_read(&kn->shed.transitions);
}

bool kmg_shed_over(struct kmg_net *kn, const struct kmg_service *svc, u8 dscp,
		   enum kmg_counter *why)
{
	struct kmg_shed *sh = &kn->shed;
	u32 rate = READ_ONCE(sh->set.new_rate), pct, class;
	unsigned long second = jiffies / HZ;
	u8 m;

	/* every new flow counts toward the rate, whatever its class */
	if (rate)
		kmg_shed_count(sh, second);
	m = READ_ONCE(sh->set.map[dscp & (KMAGLEV_DSCP_MAP_LEN - 1)]);
	class = m ? m - 1 : READ_ONCE(svc->cfg.criticality);
	if (class < READ_ONCE(sh->set.shed_class))
		return false;
	if (READ_ONCE(svc->cfg.overload) == KMAGLEV_OVERLOAD_ON) {
		*why = KMG_C_SHED_UTIL;
		return true;
	}
	pct = READ_ONCE(sh->set.conn_fill);
	if (pct && kmg_shed_fill_over(kn, pct)) {
		*why = KMG_C_SHED_CONN_FILL;
		return true;
	}
	if (rate && kmg_shed_rate_over(sh, rate, second)) {
		*why = KMG_C_SHED_NEW_RATE;
		return true;
	}
	if (READ_ONCE(sh->load_on)) {
		*why = KMG_C_SHED_LOAD;
		return true;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_shed_over);

/* May these settings be applied? An extack error names the attribute if not. */
int kmg_shed_check_set(const struct kmg_shed_set *set, struct nlattr **tb,
		       struct netlink_ext_ack *extack)
{
	unsigned int i;

	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++) {
		if (set->map[i] > KMAGLEV_CRITICALITY_SHEDDABLE + 1) {
			NL_SET_ERR_MSG_ATTR(extack, tb[KMAGLEV_A_CONFIG_DSCP_MAP],
					    "config dscp-map: a byte is above 4 (1 + sheddable)");
			return -EINVAL;
		}
	}
	if (set->load_high && set->load_low >= set->load_high) {
		NL_SET_ERR_MSG_ATTR(extack, tb[KMAGLEV_A_CONFIG_SHED_LOAD_LOW] ?:
				    tb[KMAGLEV_A_CONFIG_SHED_LOAD_HIGH],
				    "config shed-load-low must be below shed-load-high");
		return -EINVAL;
	}
	return 0;
}

/* Apply checked settings (under kn->lock). */
void kmg_shed_apply(struct kmg_net *kn, const struct kmg_shed_set *set)
{
	struct kmg_shed *sh = &kn->shed;
	bool was = sh->set.load_high, now = set->load_high;
	unsigned int i;

	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		WRITE_ONCE(sh->set.map[i], set->map[i]);
	WRITE_ONCE(sh->set.shed_class, set->shed_class);
	WRITE_ONCE(sh->set.conn_fill, set->conn_fill);
	WRITE_ONCE(sh->set.new_rate, set->new_rate);
	/* the pair the work compares, changed between two of its samples, never half */
	spin_lock(&kmg_shed_list_lock);
	WRITE_ONCE(sh->set.load_low, set->load_low);
	WRITE_ONCE(sh->set.load_high, set->load_high);
	spin_unlock(&kmg_shed_list_lock);
	WRITE_ONCE(sh->armed, set->conn_fill || set->new_rate || set->load_high);
	if (!was && now)
		kmg_shed_load_get(sh);
	else if (was && !now)
		kmg_shed_load_put(sh);
}

void kmg_shed_init(struct kmg_net *kn)
{
	struct kmg_shed *sh = &kn->shed;

	sh->set.shed_class = KMG_SHED_DEFAULT_CLASS;
	INIT_LIST_HEAD(&sh->load_node);
}

/* The netns goes: off the load work's list before struct kmg_net is freed. */
void kmg_shed_exit(struct kmg_net *kn)
{
	if (kn->shed.set.load_high)
		kmg_shed_load_put(&kn->shed);
}
