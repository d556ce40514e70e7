// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the "status" reply of the control socket (format in daemon.h): for each
 * backend of each owned service, its configured, health and kernel state side by side, and
 * each check's last result.
 */
#include <json-c/json.h>

#include "lib/args.h"
#include "lib/schema.h"
#include "daemon/state.h"

static const char *state_name(uint32_t state, char *buf, size_t len)
{
	const struct kmg_attr_desc *d = &kmg_schema_backend.attrs[KMAGLEV_A_BACKEND_STATE];

	return kmg_fmt_enum(d->enm, state, buf, len);
}

static struct json_object *be_json(const struct kmd_be *b)
{
	struct json_object *o = json_object_new_object(), *c, *k, *checks;
	char buf[64];
	unsigned int i;

	json_object_object_add(o, "address", json_object_new_string(kmd_be_name(b, buf,
									       sizeof(buf))));
	c = json_object_new_object();
	json_object_object_add(c, "weight", json_object_new_int64(b->conf->be.weight));
	json_object_object_add(c, "state", json_object_new_string(state_name(b->conf->be.state,
									     buf, sizeof(buf))));
	json_object_object_add(o, "configured", c);
	json_object_object_add(o, "health", json_object_new_string(kmd_health_name(b->health)));
	if (KMG_HAS(&b->kernel, KMAGLEV_A_BACKEND_ID)) {
		k = json_object_new_object();
		json_object_object_add(k, "id", json_object_new_int64(b->kernel.id));
		json_object_object_add(k, "weight", json_object_new_int64(b->kernel.weight));
		json_object_object_add(k, "state",
				       json_object_new_string(state_name(b->kernel.state, buf,
									 sizeof(buf))));
		json_object_object_add(o, "kernel", k);
	} else {
		json_object_object_add(o, "kernel", NULL);
	}
	if (b->admin >= 0)
		json_object_object_add(o, "agent-state",
				       json_object_new_string(state_name(b->admin, buf,
									 sizeof(buf))));
	if (b->weight_pct >= 0)
		json_object_object_add(o, "weight-pct", json_object_new_int(b->weight_pct));
	if (b->weight >= 0)
		json_object_object_add(o, "weight-override", json_object_new_int(b->weight));
	if (b->util >= 0)
		json_object_object_add(o, "utilization", json_object_new_int(b->util));
	json_object_object_add(o, "transitions", json_object_new_int64(b->transitions));
	checks = json_object_new_array();
	for (i = 0; i < b->nprobes; i++) {
		const struct kmd_probe *p = b->probes[i];
		const struct kmd_result *r = kmd_probe_last(p);
		struct json_object *po = json_object_new_object();

		json_object_object_add(po, "name", json_object_new_string(kmd_probe_check(p)->name));
		json_object_object_add(po, "state",
				       json_object_new_string(kmd_health_name(kmd_probe_state(p))));
		json_object_object_add(po, "result", json_object_new_string(r ? r->why : "none"));
		if (r)
			json_object_object_add(po, "latency-ms",
					       json_object_new_double(r->latency_us / 1000.));
		json_object_object_add(po, "transitions",
				       json_object_new_int64(kmd_probe_transitions(p)));
		json_object_array_add(checks, po);
	}
	if (b->unbound) {
		struct json_object *po = json_object_new_object();

		json_object_object_add(po, "name", json_object_new_string("tunnel"));
		json_object_object_add(po, "state", json_object_new_string("unknown"));
		json_object_object_add(po, "result",
				       json_object_new_string("waiting for the kernel's backend id"));
		json_object_array_add(checks, po);
	}
	json_object_object_add(o, "checks", checks);
	return o;
}

struct json_object *kmd_status_json(struct kmd *d)
{
	struct json_object *o = json_object_new_object(), *svcs = json_object_new_array();
	unsigned int i, k;
	char buf[128];

	json_object_object_add(o, "ok", json_object_new_boolean(1));
	json_object_object_add(o, "config", json_object_new_string(d->cfg_path));
	json_object_object_add(o, "draining", json_object_new_boolean(d->draining));
	json_object_object_add(o, "uptime-s",
			       json_object_new_int64((int64_t)(ev_now(d->loop) - d->started)));
	for (i = 0; i < d->nsvc; i++) {
		const struct kmd_svc *s = &d->svc[i];
		struct json_object *so = json_object_new_object(), *bes = json_object_new_array();

		json_object_object_add(so, "service",
				       json_object_new_string(kmd_svc_name(s, buf, sizeof(buf))));
		json_object_object_add(so, "id", json_object_new_int64(s->kernel_id));
		json_object_object_add(so, "healthy", json_object_new_boolean(s->healthy));
		json_object_object_add(so, "below-quorum", json_object_new_boolean(s->below_quorum));
		json_object_object_add(so, "overload",
				       json_object_new_string(kmg_fmt_enum(&kmg_enum_overload,
									   s->overloaded ?
									   KMAGLEV_OVERLOAD_ON :
									   KMAGLEV_OVERLOAD_OFF,
									   buf, sizeof(buf))));
		for (k = 0; k < s->nbe; k++)
			json_object_array_add(bes, be_json(&s->be[k]));
		json_object_object_add(so, "backends", bes);
		json_object_array_add(svcs, so);
	}
	json_object_object_add(o, "services", svcs);
	return o;
}
