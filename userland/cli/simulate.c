// SPDX-License-Identifier: GPL-2.0
/* kmaglev CLI: Maglev table simulation with kmod/maglev.c (see simulate.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kmaglev.h>

#include "lib/err.h"
#include "cli/simulate.h"

static int find(const struct kmg_sim_set *s, const struct kmg_addr *a)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (kmg_addr_equal(&s->be[i].addr, a))
			return i;
	return -1;
}

int kmg_sim_set_add(struct kmg_sim_set *s, const struct kmg_sim_backend *b)
{
	if (s->n >= KMAGLEV_BACKENDS_PER_SERVICE_MAX)
		return kmg_err(KMG_EUSAGE, "too many backends (at most %u)",
			       KMAGLEV_BACKENDS_PER_SERVICE_MAX);
	if (kmg_grow(&s->be, s->n, sizeof(*s->be)))
		return kmg_err(KMG_EFAIL, "out of memory");
	s->be[s->n++] = *b;
	return 0;
}

int kmg_sim_set_check(const struct kmg_sim_set *s)
{
	const struct kmg_addr *dup;
	char addr[INET6_ADDRSTRLEN];

	if (kmg_dup_addr(s->be, s->n, sizeof(*s->be), offsetof(struct kmg_sim_backend, addr),
			 &dup))
		return kmg_err(KMG_EFAIL, "out of memory");
	if (dup)
		return kmg_err(KMG_EUSAGE, "duplicate backend %s",
			       kmg_fmt_addr(dup, addr, sizeof(addr)));
	return 0;
}

void kmg_sim_set_free(struct kmg_sim_set *s)
{
	free(s->be);
	s->be = NULL;
	s->n = 0;
}

static int set_copy(struct kmg_sim_set *dst, const struct kmg_sim_set *src)
{
	size_t cap = 1;

	*dst = *src;
	dst->be = NULL;
	if (!src->n)
		return 0;
	/* the capacity kmg_sim_set_add() expects: a power of two */
	while (cap < src->n)
		cap *= 2;
	dst->be = malloc(cap * sizeof(*dst->be));
	if (!dst->be)
		return kmg_err(KMG_EFAIL, "out of memory");
	memcpy(dst->be, src->be, src->n * sizeof(*dst->be));
	return 0;
}

static int in_cmp(const void *a, const void *b)
{
	return kmg_mg_addr_cmp(((const struct kmg_mg_in *)a)->addr,
			       ((const struct kmg_mg_in *)b)->addr);
}

void kmg_sim_table_free(struct kmg_sim_table *t)
{
	free(t->slots);
	free(t->in);
	free(t->count);
	memset(t, 0, sizeof(*t));
}

int kmg_sim_build(const struct kmg_sim_set *s, struct kmg_sim_table *t)
{
	void *scratch = NULL;
	unsigned int i;
	uint32_t n = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	t->size = s->size;
	if (!kmg_is_prime(s->size) || s->size < KMAGLEV_TABLE_SIZE_MIN ||
	    s->size > KMAGLEV_TABLE_SIZE_MAX)
		return kmg_err(KMG_EUSAGE, "invalid table-size \"%u\": must be a prime between %u and %u",
			       s->size, KMAGLEV_TABLE_SIZE_MIN, KMAGLEV_TABLE_SIZE_MAX);
	t->slots = malloc((size_t)s->size * sizeof(*t->slots));
	t->in = calloc(s->n ? s->n : 1, sizeof(*t->in));
	t->count = calloc(s->n ? s->n : 1, sizeof(*t->count));
	if (!t->slots || !t->in || !t->count)
		goto nomem;
	for (i = 0; i < s->n; i++) {
		const struct kmg_sim_backend *b = &s->be[i];

		if (b->state != KMAGLEV_BACKEND_STATE_UP || !b->weight)
			continue;
		kmg_addr_to16(&b->addr, t->in[n].addr);
		t->in[n].weight = b->weight;
		t->wsum += b->weight;
		n++;
	}
	/* the kernel's order, whatever order the backends were given in */
	qsort(t->in, n, sizeof(*t->in), in_cmp);
	t->n = n;
	if (n > s->size) {
		ret = kmg_err(KMG_EUSAGE, "%u eligible backends do not fit a table of %u slots",
			      n, s->size);
		goto err;
	}
	scratch = malloc(kmg_maglev_scratch_size(s->size, n) + 1);
	if (!scratch)
		goto nomem;
	ret = kmg_maglev_build(t->slots, s->size, t->in, n, s->seed, scratch);
	free(scratch);
	if (ret) {
		ret = kmg_err(KMG_EFAIL, "table build failed: %s", strerror(-ret));
		goto err;
	}
	for (i = 0; i < s->size; i++)
		if (t->slots[i] != KMG_SLOT_EMPTY)
			t->count[t->slots[i]]++;
	for (i = 0; i < n; i++) {
		if (!i || t->count[i] < t->min_slots)
			t->min_slots = t->count[i];
		if (!i || t->count[i] > t->max_slots)
			t->max_slots = t->count[i];
	}
	t->digest = kmg_maglev_digest(t->slots, s->size, t->in, n);
	return 0;
nomem:
	ret = kmg_err(KMG_EFAIL, "out of memory");
err:
	kmg_sim_table_free(t);
	return ret;
}

static int table_find(const struct kmg_sim_table *t, const uint8_t addr[KMG_ADDR_LEN])
{
	struct kmg_mg_in key;
	const struct kmg_mg_in *p;

	if (!t->n)
		return -1;
	memcpy(key.addr, addr, KMG_ADDR_LEN);
	p = bsearch(&key, t->in, t->n, sizeof(*t->in), in_cmp);
	return p ? p - t->in : -1;
}

uint32_t kmg_sim_slots(const struct kmg_sim_table *t, const struct kmg_addr *a)
{
	uint8_t addr[KMG_ADDR_LEN];
	int i;

	kmg_addr_to16(a, addr);
	i = table_find(t, addr);
	return i < 0 ? 0 : t->count[i];
}

int kmg_sim_apply(struct kmg_sim_set *s, const struct kmg_sim_change *c)
{
	char addr[INET6_ADDRSTRLEN];
	struct kmg_sim_backend b;
	int i;

	if (c->op == KMG_SIM_TABLE_SIZE) {
		s->size = c->size;
		return 0;
	}
	kmg_fmt_addr(&c->addr, addr, sizeof(addr));
	i = find(s, &c->addr);
	switch (c->op) {
	case KMG_SIM_ADD:
		if (i >= 0)
			return kmg_err(KMG_EUSAGE, "backend add %s: the service already has it", addr);
		b.addr = c->addr;
		b.weight = c->has_weight ? c->weight : 1;
		b.state = c->has_state ? c->state : KMAGLEV_BACKEND_STATE_UP;
		return kmg_sim_set_add(s, &b);
	case KMG_SIM_DEL:
		if (i < 0)
			return kmg_err(KMG_EUSAGE, "backend del %s: no such backend", addr);
		memmove(&s->be[i], &s->be[i + 1], (s->n - i - 1) * sizeof(*s->be));
		s->n--;
		return 0;
	case KMG_SIM_SET:
		if (i < 0)
			return kmg_err(KMG_EUSAGE, "backend set %s: no such backend", addr);
		if (c->has_weight)
			s->be[i].weight = c->weight;
		if (c->has_state)
			s->be[i].state = c->state;
		return 0;
	default:
		return kmg_err(KMG_EUSAGE, "unknown change");
	}
}

void kmg_sim_moved(const struct kmg_sim_table *a, const struct kmg_sim_table *b,
		   struct kmg_sim_moved *m)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	if (!a->n && !b->n)
		return;
	if (a->size != b->size) {
		/*
		 * Slot indices of two sizes are unrelated (hash mod M for different primes M), so
		 * a flow keeps its backend with probability sum over backends of p_a * p_b.
		 */
		double same = 0;

		for (i = 0; i < a->n; i++) {
			int j = table_find(b, a->in[i].addr);

			if (j >= 0)
				same += (double)a->count[i] / a->size * b->count[j] / b->size;
		}
		m->fraction = 1 - same;
		m->estimated = true;
		return;
	}
	{
		int32_t *map = malloc((a->n ? a->n : 1) * sizeof(*map));

		if (!map) {
			m->fraction = -1;
			return;
		}
		/* a's backend index -> b's index of the same address, or -1 */
		for (i = 0; i < a->n; i++)
			map[i] = table_find(b, a->in[i].addr);
		for (i = 0; i < a->size; i++) {
			uint16_t x = a->slots[i], y = b->slots[i];

			if (x == KMG_SLOT_EMPTY ? y != KMG_SLOT_EMPTY :
			    y == KMG_SLOT_EMPTY || map[x] != y)
				m->slots++;
		}
		free(map);
	}
	m->fraction = (double)m->slots / a->size;
}

static int row_cmp(const void *x, const void *y)
{
	const struct kmg_sim_row *a = x, *b = y;
	int c = kmg_addr_cmp(&a->addr, &b->addr);

	/* the "before" entry of an address first */
	return c ? c : (int)b->before_exists - (int)a->before_exists;
}

static int make_rows(struct kmg_sim_result *r)
{
	unsigned int i, n = 0;

	r->rows = calloc(r->before.n + r->after.n + 1, sizeof(*r->rows));
	if (!r->rows)
		return kmg_err(KMG_EFAIL, "out of memory");
	for (i = 0; i < r->before.n; i++) {
		struct kmg_sim_row *w = &r->rows[n++];

		w->addr = r->before.be[i].addr;
		w->before_exists = true;
		w->before = r->before.be[i];
		w->slots_before = kmg_sim_slots(&r->tbefore, &w->addr);
		w->share_before = (double)w->slots_before / r->tbefore.size;
	}
	for (i = 0; i < r->after.n; i++) {
		const struct kmg_sim_backend *b = &r->after.be[i];
		struct kmg_sim_row *w = &r->rows[n++];

		w->addr = b->addr;
		w->after_exists = true;
		w->after = *b;
		w->slots_after = kmg_sim_slots(&r->tafter, &w->addr);
		w->share_after = (double)w->slots_after / r->tafter.size;
		if (b->state == KMAGLEV_BACKEND_STATE_UP && b->weight && r->tafter.wsum)
			w->expected_after = (double)b->weight / r->tafter.wsum;
	}
	qsort(r->rows, n, sizeof(*r->rows), row_cmp);
	/* one row per address: fold each "after" into the "before" of the same address */
	r->nrows = 0;
	for (i = 0; i < n; i++) {
		struct kmg_sim_row *w = &r->rows[i], *prev = r->nrows ? &r->rows[r->nrows - 1] : NULL;

		if (prev && prev->before_exists && !prev->after_exists && w->after_exists &&
		    kmg_addr_equal(&prev->addr, &w->addr)) {
			prev->after_exists = true;
			prev->after = w->after;
			prev->slots_after = w->slots_after;
			prev->share_after = w->share_after;
			prev->expected_after = w->expected_after;
			continue;
		}
		r->rows[r->nrows++] = *w;
	}
	return 0;
}

int kmg_sim_run(const struct kmg_sim_set *cur, const struct kmg_sim_change *ch, unsigned int n,
		struct kmg_sim_result *r)
{
	unsigned int i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = kmg_sim_set_check(cur);
	if (ret)
		return ret;
	ret = set_copy(&r->before, cur);
	if (!ret)
		ret = set_copy(&r->after, cur);
	for (i = 0; !ret && i < n; i++)
		ret = kmg_sim_apply(&r->after, &ch[i]);
	if (!ret)
		ret = kmg_sim_build(&r->before, &r->tbefore);
	if (!ret)
		ret = kmg_sim_build(&r->after, &r->tafter);
	if (!ret)
		ret = make_rows(r);
	if (ret) {
		kmg_sim_result_free(r);
		return ret;
	}
	kmg_sim_moved(&r->tbefore, &r->tafter, &r->moved);
	return 0;
}

void kmg_sim_result_free(struct kmg_sim_result *r)
{
	kmg_sim_set_free(&r->before);
	kmg_sim_set_free(&r->after);
	kmg_sim_table_free(&r->tbefore);
	kmg_sim_table_free(&r->tafter);
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}
