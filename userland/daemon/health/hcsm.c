// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: a probe's rise/fall state machine. @rise consecutive successes bring a
 * probe that is not up to UP, @fall consecutive failures bring one that is not down to DOWN.
 * From UNKNOWN both counts run. Pure: no clock, no I/O.
 */
#include "daemon/health/health.h"

void kmd_hcsm_init(struct kmd_hcsm *m, uint32_t rise, uint32_t fall, enum kmd_health start)
{
	m->state = start;
	m->rise = rise ? rise : 1;
	m->fall = fall ? fall : 1;
	m->ok_run = 0;
	m->fail_run = 0;
	m->transitions = 0;
}

static bool hcsm_move(struct kmd_hcsm *m, enum kmd_health to)
{
	m->state = to;
	m->ok_run = 0;
	m->fail_run = 0;
	m->transitions++;
	return true;
}

bool kmd_hcsm_step(struct kmd_hcsm *m, bool ok)
{
	if (ok) {
		m->fail_run = 0;
		if (m->state == KMD_HEALTH_UP)
			return false;
		if (++m->ok_run >= m->rise)
			return hcsm_move(m, KMD_HEALTH_UP);
		return false;
	}
	m->ok_run = 0;
	if (m->state == KMD_HEALTH_DOWN)
		return false;
	if (++m->fail_run >= m->fall)
		return hcsm_move(m, KMD_HEALTH_DOWN);
	return false;
}

bool kmd_hcsm_moving(const struct kmd_hcsm *m)
{
	switch (m->state) {
	case KMD_HEALTH_UP:
		return m->fail_run > 0;
	case KMD_HEALTH_DOWN:
		return m->ok_run > 0;
	default:
		return true;
	}
}
