// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev two-table migration rules: which table a flow that missed the connection table uses
 * while a service's previous table still exists.
 *
 * - A new flow (TCP SYN, or any first packet for connectionless protocols) uses the current
 *   table if its ramp hash falls below the ramp threshold, else the previous one. The threshold
 *   is ramp-pct of the hash space, or, with ramp-ms set, grows linearly from 0 to all of it
 *   over ramp-ms after the current table was published. The decision depends only on the flow
 *   hash and the time since publication, so every LB host decides alike.
 * - A flow that is not new (say TCP without SYN) but has no connection entry predates the
 *   change, so during the migration window it uses the previous table.
 * - The previous table is retired max(ramp-ms, window-ms) after publication; a static ramp-pct
 *   below 100 holds it until the operator raises the ramp to 100.
 */
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "migrate.h"
#include "service.h"

#define KMG_HASH_SPACE	BIT_ULL(32)

/* Flows with ramp_hash below the threshold use the current table. */
u64 kmg_mig_ramp_threshold(const struct kmg_mig *m)
{
	if (!m->has_prev)
		return KMG_HASH_SPACE;
	if (m->ramp_ms) {
		if (m->elapsed_ms >= m->ramp_ms)
			return KMG_HASH_SPACE;
		return div_u64(KMG_HASH_SPACE * m->elapsed_ms, m->ramp_ms);
	}
	return div_u64(KMG_HASH_SPACE * min(m->ramp_pct, 100U), 100);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_mig_ramp_threshold);

bool kmg_mig_use_prev(const struct kmg_mig *m, u32 ramp_hash, bool new_flow)
{
	if (!m->has_prev)
		return false;
	if (new_flow)
		return ramp_hash >= kmg_mig_ramp_threshold(m);
	return m->elapsed_ms < m->window_ms;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_mig_use_prev);

/* Share of new flows on the current table now, in percent (rounded). */
u32 kmg_mig_ramp_pct(const struct kmg_mig *m)
{
	return (kmg_mig_ramp_threshold(m) * 100 + (KMG_HASH_SPACE >> 1)) >> 32;
}
EXPORT_SYMBOL_IF_KUNIT(kmg_mig_ramp_pct);

/*
 * How long after publication the previous table is retired, in ms, or ULONG_MAX while a static
 * ramp below 100% holds it.
 */
unsigned long kmg_mig_length_ms(u32 ramp_pct, u32 ramp_ms, u32 window_ms)
{
	if (!ramp_ms && ramp_pct < 100)
		return ULONG_MAX;
	return max(ramp_ms, window_ms);
}
EXPORT_SYMBOL_IF_KUNIT(kmg_mig_length_ms);

/* Snapshot of a service's migration state, for the packet path (under RCU) or netlink. */
void kmg_service_mig(const struct kmg_service *svc, struct kmg_mig *m)
{
	m->has_prev = rcu_access_pointer(svc->prev);
	m->elapsed_ms = jiffies_to_msecs(jiffies - READ_ONCE(svc->mig_start));
	m->ramp_pct = READ_ONCE(svc->cfg.ramp_pct);
	m->ramp_ms = READ_ONCE(svc->cfg.ramp_ms);
	m->window_ms = READ_ONCE(svc->cfg.window_ms);
}
