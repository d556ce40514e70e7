// SPDX-License-Identifier: GPL-2.0
/*
 * kmaglev daemon: the global sections of the config file: config: (the kernel's global
 * settings) and daemon: (owner, enforce, drain time, metrics, control socket) with its
 * defaults.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "daemon/config_int.h"

/* --- global settings, daemon, bgp ------------------------------------------------------ */

void p_kconfig(struct ctx *c, const struct raw_kconfig *r, const struct kmd_ynode *map,
		      struct kmd_config *cfg)
{
	struct kmg_config *k = &cfg->kcfg;
	size_t mark = path_push(c, "config", 0);
	struct val v;

	p_fields(c, &kmg_obj_config, r->attr, map, k);
	if (KMG_HAS(k, KMAGLEV_A_CONFIG_PROBE_MARK_MIN) &&
	    KMG_HAS(k, KMAGLEV_A_CONFIG_PROBE_MARK_MAX) && k->probe_mark_min > k->probe_mark_max &&
	    cfg_val(map, "probe-mark-min", r->attr[KMAGLEV_A_CONFIG_PROBE_MARK_MIN], &v))
		err_at(c, v.at, v.key, "%s is above probe-mark-max (0x%x)", v.s, k->probe_mark_max);
	/* both on: shedding stops below where it starts (the kernel checks it too) */
	if (KMG_HAS(k, KMAGLEV_A_CONFIG_SHED_LOAD_HIGH) &&
	    KMG_HAS(k, KMAGLEV_A_CONFIG_SHED_LOAD_LOW) && k->shed_load_high && k->shed_load_low &&
	    k->shed_load_low >= k->shed_load_high &&
	    cfg_val(map, "shed-load-low", r->attr[KMAGLEV_A_CONFIG_SHED_LOAD_LOW], &v))
		err_at(c, v.at, v.key, "%s is not below shed-load-high (%u)", v.s,
		       k->shed_load_high);
	path_pop(c, mark);
}

/* "ADDR:PORT", "[V6]:PORT" or "off" */
static void p_metrics(struct ctx *c, const struct val *v, struct kmd_daemon *d)
{
	char buf[INET6_ADDRSTRLEN + 16], *port, *addr = buf;
	struct val sub = *v;
	uint32_t x;

	if (!strcmp(v->s, "off")) {
		memset(&d->metrics_addr, 0, sizeof(d->metrics_addr));
		d->metrics_port = 0;
		return;
	}
	snprintf(buf, sizeof(buf), "%s", v->s);
	if (buf[0] == '[') {
		port = strchr(buf, ']');
		if (port && port[1] == ':') {
			*port = '\0';
			port += 2;
			addr = buf + 1;
		} else {
			port = NULL;
		}
	} else {
		port = strrchr(buf, ':');
		if (port && strchr(buf, ':') == port)
			*port++ = '\0';
		else
			port = NULL;
	}
	if (!port || strlen(v->s) >= sizeof(buf)) {
		err_at(c, v->at, v->key, "\"%s\" is not ADDR:PORT, [IPV6]:PORT or off", v->s);
		return;
	}
	sub.s = addr;
	if (!p_addr(c, &sub, ADDR_UNSPEC, &d->metrics_addr))
		return;
	sub.s = port;
	if (p_u32(c, &sub, 1, 65535, &x))
		d->metrics_port = x;
}

static const char *const enforce_names[] = { "enforce", "warn" };

void p_daemon(struct ctx *c, const struct raw_daemon *r, const struct kmd_ynode *map,
		     struct kmd_daemon *d)
{
	size_t mark = path_push(c, "daemon", 0);
	struct val v;
	uint32_t x;

	if (cfg_val(map, "owner", r ? r->owner : NULL, &v)) {
		free(d->owner);
		d->owner = NULL;
		p_text(c, &v, 1, KMD_OWNER_MAX, true, &d->owner);
	}
	if (cfg_val(map, "enforce", r ? r->enforce : NULL, &v) &&
	    p_enum(c, &v, enforce_names, KMG_ARRAY_SIZE(enforce_names), &x))
		d->enforce = x;
	if (cfg_val(map, "drain-time", r ? r->drain_time : NULL, &v))
		p_ms(c, &v, 0, KMAGLEV_MS_MAX, &d->drain_time_ms);
	if (cfg_val(map, "metrics", r ? r->metrics : NULL, &v))
		p_metrics(c, &v, d);
	if (cfg_val(map, "socket", r ? r->socket : NULL, &v)) {
		if (v.s[0] != '/')
			err_at(c, v.at, v.key, "\"%s\" is not an absolute path", v.s);
		else if (strlen(v.s) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			err_at(c, v.at, v.key, "is longer than a socket path can be (%zu bytes)",
			       sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		else {
			free(d->socket);
			d->socket = NULL;
			p_text(c, &v, 1, 4096, false, &d->socket);
		}
	}
	path_pop(c, mark);
}

void daemon_defaults(struct ctx *c, struct kmd_daemon *d)
{
	d->owner = xstrdup(c, KMD_OWNER_DEFAULT);
	d->enforce = KMD_ENFORCE;
	d->drain_time_ms = KMD_DRAIN_DEFAULT_MS;
	kmg_parse_addr(KMD_METRICS_ADDR_DEFAULT, &d->metrics_addr);
	d->metrics_port = KMD_METRICS_PORT_DEFAULT;
	d->socket = xstrdup(c, KMD_SOCKET_DEFAULT);
}
