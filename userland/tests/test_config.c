// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's configuration file: a full valid file with its values and defaults, every field
 * wrong once with the exact message, the shape errors libcyaml would refuse, several errors
 * in one file, `save --yaml` loading back to the same kernel state, and every YAML file and
 * ".. code-block:: yaml" under Documentation/ (but netlink/) loading without an error.
 */
#include <arpa/inet.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cyaml/cyaml.h>

#include "helpers.h"
#include "lib/schema.h"
#include "daemon/config.h"
#include "daemon/config_int.h"

#define DOC_DIR		"../Documentation"

/* Load @yaml as "t.yaml"; the error text (or "") into *@errs, to be freed. */
static int load(const char *yaml, struct kmd_config **cfg, char **errs)
{
	size_t len = 0;
	FILE *f;
	int ret;

	*errs = NULL;
	f = open_memstream(errs, &len);
	assert_non_null(f);
	ret = kmd_config_load_str("t.yaml", yaml, strlen(yaml), cfg, f);
	fclose(f);
	return ret;
}

static void load_ok(const char *yaml, struct kmd_config **cfg)
{
	char *errs;

	if (load(yaml, cfg, &errs))
		fail_msg("unexpected errors:\n%s", errs);
	assert_string_equal(errs, "");
	free(errs);
	assert_non_null(*cfg);
}

/* --- a full file ---------------------------------------------------------------------- */

static const char full[] =
	"config:\n"
	"  max-services: 64\n"
	"  max-backends: 4096\n"
	"  conn-max: 0x100000\n"
	"  timeout-tcp-syn: 30s\n"
	"  timeout-tcp-est: 15m\n"
	"  timeout-tcp-fin: 1m\n"
	"  timeout-udp: 1h\n"
	"  flood-rate: 1000\n"
	"  probe-mark-min: 0x4b4d0000\n"
	"  probe-mark-max: 0x4b4d0fff\n"
	"seed: \"000102030405060708090a0b0c0d0e0f\"\n"
	"daemon:\n"
	"  owner: lb-a\n"
	"  enforce: warn\n"
	"  drain-time: 1500ms\n"
	"  metrics: \"[::1]:9100\"\n"
	"  socket: /run/k.sock\n"
	"services:\n"
	"  - vip: 10.0.0.1\n"
	"    port: 80\n"
	"    table-size: 251\n"
	"    hash: src-addr\n"
	"    flags: [echo, resched]\n"
	"    ramp: 50\n"
	"    ramp-time: 5s\n"
	"    window: 1m\n"
	"    max-conns: 1000\n"
	"    client-rate: 20\n"
	"    encap-src4: 192.0.2.1\n"
	"    encap-src6: \"2001:db8::1\"\n"
	"    quorum: { min: 1, fraction: 0.5, action: fail-open }\n"
	"    utilization: { target: 80, min-weight: 10 }\n"
	"    checks:\n"
	"      - kind: http\n"
	"        port: 8080\n"
	"        interval: 1s\n"
	"        host: www.example.com\n"
	"        path: /healthz\n"
	"        status: [200, \"300-302\"]\n"
	"        body: OK\n"
	"      - kind: tcp\n"
	"        name: plain\n"
	"        via: direct\n"
	"        timeout: 300ms\n"
	"        fast-interval: 200ms\n"
	"        down-interval: 10s\n"
	"        jitter: 0ms\n"
	"        rise: 5\n"
	"        fall: 1\n"
	"    backends:\n"
	"      - address: 10.1.0.1\n"
	"        weight: 100\n"
	"        state: drain\n"
	"        encap: gre\n"
	"        gre-key: 0x7\n"
	"        max-conns: 50\n"
	"      - address: \"2001:db8:1::1\"\n"
	"        checks:\n"
	"          - kind: agent\n"
	"            port: 5555\n"
	"          - kind: https\n"
	"            verify-tls: true\n"
	"            reuse: 0s\n"
	"      - address: 10.1.0.3\n"
	"        checks: []\n"
	"  - vip: \"2001:db8::53\"\n"
	"    port: 0\n"
	"    proto: any\n"
	"    seed: \"ffffffffffffffffffffffffffffffff\"\n"
	"    checks:\n"
	"      - kind: dns\n"
	"        port: 53\n"
	"        query: example.com\n"
	"        qtype: AAAA\n"
	"        rcode: NXDOMAIN\n"
	"      - kind: udp\n"
	"        port: 7\n"
	"        send: ping\n"
	"        expect: pong\n"
	"      - kind: exec\n"
	"        command: [/bin/check, -v, \"a b\"]\n"
	"bgp:\n"
	"  asn: 65001\n"
	"  router-id: 192.0.2.1\n"
	"  communities: [\"65001:100\", \"0:0\"]\n"
	"  large-communities: [\"65001:1:4294967295\"]\n"
	"  graceful-restart-time: 300s\n"
	"  shutdown-time: 1s\n"
	"  listen: \"::\"\n"
	"  neighbors:\n"
	"    - { address: 192.0.2.254, asn: 65000, hold-time: 0s, password: s3cret,\n"
	"        next-hop: 192.0.2.1, multihop: 2, ttl-security: true,\n"
	"        bfd: { min-tx: 50ms, min-rx: 1s, multiplier: 5 } }\n"
	"    - { address: \"2001:db8::fe\", asn: 65002, port: 1179, passive: true,\n"
	"        extended-next-hop: true, bfd: {} }\n";

static void test_full(void **state)
{
	const struct kmd_service *s, *s2;
	const struct kmg_backend *b;
	const struct kmd_check *k;
	struct kmd_config *cfg;
	char buf[64];

	load_ok(full, &cfg);
	assert_string_equal(cfg->path, "t.yaml");

	/* global settings: exactly those given */
	assert_int_equal(cfg->kcfg.max_services, 64);
	assert_int_equal(cfg->kcfg.conn_max, 0x100000);
	assert_int_equal(cfg->kcfg.timeout_tcp_syn, 30);
	assert_int_equal(cfg->kcfg.timeout_tcp_est, 900);
	assert_int_equal(cfg->kcfg.timeout_tcp_fin, 60);
	assert_int_equal(cfg->kcfg.timeout_udp, 3600);
	assert_int_equal(cfg->kcfg.flood_rate, 1000);
	assert_int_equal(cfg->kcfg.probe_mark_min, 0x4b4d0000);
	assert_int_equal(cfg->kcfg.probe_mark_max, 0x4b4d0fff);
	assert_true(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_MAX_BACKENDS));
	assert_false(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_CONNS));
	assert_true(cfg->has_seed);
	assert_int_equal(cfg->seed[15], 0x0f);

	assert_string_equal(cfg->daemon.owner, "lb-a");
	assert_int_equal(cfg->daemon.enforce, KMD_WARN);
	assert_int_equal(cfg->daemon.drain_time_ms, 1500);
	assert_int_equal(cfg->daemon.metrics_addr.family, AF_INET6);
	assert_int_equal(cfg->daemon.metrics_port, 9100);
	assert_string_equal(cfg->daemon.socket, "/run/k.sock");

	assert_int_equal(cfg->nservices, 2);
	s = &cfg->services[0];
	assert_string_equal(kmg_fmt_svc_key(&s->svc.key, buf, sizeof(buf)), "10.0.0.1:80/tcp");
	assert_true(KMG_HAS(&s->svc, KMAGLEV_A_SERVICE_ADDR4));
	assert_int_equal(s->svc.table_size, 251);
	assert_int_equal(s->svc.hash, KMAGLEV_HASH_SRC_ADDR);
	assert_int_equal(s->svc.flags, 1U << 0 | 1U << 2);
	assert_memory_equal(s->svc.seed, cfg->seed, KMG_SEED_BYTES);
	assert_int_equal(s->svc.ramp_pct, 50);
	assert_int_equal(s->svc.ramp_ms, 5000);
	assert_int_equal(s->svc.window_ms, 60000);
	assert_int_equal(s->svc.max_conns, 1000);
	assert_int_equal(s->svc.client_rate, 20);
	assert_int_equal(ntohl(s->svc.encap_src4.s_addr), 0xc0000201);
	assert_int_equal(s->svc.encap_src6.s6_addr[15], 1);
	assert_int_equal(s->quorum.min, 1);
	assert_true(s->quorum.fraction == 0.5);
	assert_int_equal(s->quorum.action, KMD_QUORUM_FAIL_OPEN);
	assert_true(s->util.on);
	assert_int_equal(s->util.target, 80);
	assert_int_equal(s->util.min_weight, 10);
	assert_false(KMG_HAS(&s->svc, KMAGLEV_A_SERVICE_GENERATION));

	assert_int_equal(s->nchecks, 2);
	k = &s->checks[0];
	assert_int_equal(k->kind, KMD_CHECK_HTTP);
	assert_string_equal(k->name, "http-8080");
	assert_int_equal(k->via, KMD_VIA_TUNNEL);
	assert_int_equal(k->port, 8080);
	assert_int_equal(k->interval_ms, 1000);
	assert_int_equal(k->timeout_ms, 1000);
	assert_int_equal(k->fast_interval_ms, 250);
	assert_int_equal(k->down_interval_ms, 1000);
	assert_int_equal(k->jitter_ms, 100);
	assert_int_equal(k->rise, 2);
	assert_int_equal(k->fall, 3);
	assert_string_equal(k->host, "www.example.com");
	assert_string_equal(k->path, "/healthz");
	assert_int_equal(k->reuse_s, KMD_REUSE_DEFAULT_S);
	assert_int_equal(k->nstatus, 2);
	assert_int_equal(k->status[0].lo, 200);
	assert_int_equal(k->status[0].hi, 200);
	assert_int_equal(k->status[1].lo, 300);
	assert_int_equal(k->status[1].hi, 302);
	assert_string_equal(k->body, "OK");
	assert_int_equal(k->loc.line, 35);
	assert_int_equal(k->loc.col, 9);
	k = &s->checks[1];
	assert_string_equal(k->name, "plain");
	assert_int_equal(k->via, KMD_VIA_DIRECT);
	assert_int_equal(k->port, 0);
	assert_int_equal(k->interval_ms, 2000);
	assert_int_equal(k->timeout_ms, 300);
	assert_int_equal(k->fast_interval_ms, 200);
	assert_int_equal(k->down_interval_ms, 10000);
	assert_int_equal(k->jitter_ms, 0);
	assert_int_equal(k->rise, 5);
	assert_int_equal(k->fall, 1);
	assert_null(k->path);

	assert_int_equal(s->nbackends, 3);
	b = &s->backends[0].be;
	assert_int_equal(b->weight, 100);
	assert_int_equal(b->state, KMAGLEV_BACKEND_STATE_DRAIN);
	assert_int_equal(b->encap, KMAGLEV_ENCAP_GRE);
	assert_int_equal(b->gre_key, 7);
	assert_int_equal(b->max_conns, 50);
	assert_false(s->backends[0].own_checks);
	assert_null(s->backends[0].checks);
	assert_int_equal(s->backends[0].loc.line, 52);
	assert_int_equal(s->backends[0].loc.col, 9);
	/* defaults, present */
	b = &s->backends[1].be;
	assert_int_equal(b->addr.family, AF_INET6);
	assert_true(KMG_HAS(b, KMAGLEV_A_BACKEND_ADDR6));
	assert_int_equal(b->weight, 1);
	assert_int_equal(b->state, KMAGLEV_BACKEND_STATE_UP);
	assert_int_equal(b->encap, KMAGLEV_ENCAP_IPIP);
	assert_int_equal(b->gre_key, 0);
	assert_int_equal(b->max_conns, 0);
	assert_true(KMG_HAS(b, KMAGLEV_A_BACKEND_WEIGHT) && KMG_HAS(b, KMAGLEV_A_BACKEND_STATE) &&
		    KMG_HAS(b, KMAGLEV_A_BACKEND_ENCAP) && KMG_HAS(b, KMAGLEV_A_BACKEND_GRE_KEY) &&
		    KMG_HAS(b, KMAGLEV_A_BACKEND_MAX_CONNS));
	assert_false(KMG_HAS(b, KMAGLEV_A_BACKEND_ID) || KMG_HAS(b, KMAGLEV_A_BACKEND_SLOTS));
	assert_true(s->backends[1].own_checks);
	assert_int_equal(s->backends[1].nchecks, 2);
	assert_int_equal(s->backends[1].checks[0].kind, KMD_CHECK_AGENT);
	assert_string_equal(s->backends[1].checks[0].name, "agent-5555");
	assert_int_equal(s->backends[1].checks[1].kind, KMD_CHECK_HTTPS);
	assert_true(s->backends[1].checks[1].verify_tls);
	assert_int_equal(s->backends[1].checks[1].reuse_s, 0);
	assert_string_equal(s->backends[1].checks[1].path, "/");
	assert_int_equal(s->backends[1].checks[1].nstatus, 1);
	assert_int_equal(s->backends[1].checks[1].status[0].lo, 200);
	assert_int_equal(s->backends[1].checks[1].status[0].hi, 399);
	assert_true(s->backends[2].own_checks);
	assert_int_equal(s->backends[2].nchecks, 0);

	/* a service with every default */
	s2 = &cfg->services[1];
	assert_string_equal(kmg_fmt_svc_key(&s2->svc.key, buf, sizeof(buf)),
			    "[2001:db8::53]:0/any");
	assert_int_equal(s2->svc.table_size, KMAGLEV_TABLE_SIZE_DEFAULT);
	assert_int_equal(s2->svc.hash, KMAGLEV_HASH_FIVE_TUPLE);
	assert_int_equal(s2->svc.flags, 0);
	assert_int_equal(s2->svc.seed[0], 0xff);
	assert_int_equal(s2->svc.ramp_pct, 100);
	assert_int_equal(s2->svc.ramp_ms, 0);
	assert_int_equal(s2->svc.window_ms, 30000);
	assert_true(KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_TABLE_SIZE) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_HASH) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_FLAGS) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_SEED) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_RAMP_PCT) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_RAMP_MS) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_WINDOW_MS) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_MAX_CONNS) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_CLIENT_RATE) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_ENCAP_SRC4) &&
		    KMG_HAS(&s2->svc, KMAGLEV_A_SERVICE_ENCAP_SRC6));
	assert_int_equal(s2->quorum.min, 0);
	assert_int_equal(s2->quorum.action, KMD_QUORUM_SERVE);
	assert_false(s2->util.on);
	assert_int_equal(s2->nbackends, 0);
	assert_int_equal(s2->checks[0].qtype, 28);
	assert_int_equal(s2->checks[0].rcode, 3);
	assert_string_equal(s2->checks[0].query, "example.com");
	assert_string_equal(s2->checks[1].send, "ping");
	assert_string_equal(s2->checks[1].expect, "pong");
	assert_string_equal(s2->checks[2].name, "exec");
	assert_string_equal(s2->checks[2].argv[0], "/bin/check");
	assert_string_equal(s2->checks[2].argv[2], "a b");
	assert_null(s2->checks[2].argv[3]);

	assert_true(cfg->bgp.present);
	assert_int_equal(cfg->bgp.asn, 65001);
	assert_int_equal(ntohl(cfg->bgp.router_id.s_addr), 0xc0000201);
	assert_int_equal(cfg->bgp.listen.family, AF_INET6);
	assert_int_equal(cfg->bgp.listen_port, 179);
	assert_int_equal(cfg->bgp.local_pref, 100);
	assert_int_equal(cfg->bgp.attrs.ncommunities, 2);
	assert_int_equal(cfg->bgp.attrs.communities[0], 65001U << 16 | 100);
	assert_int_equal(cfg->bgp.nneighbors, 2);
	assert_int_equal(cfg->bgp.neighbors[0].hold_time_s, 0);
	assert_int_equal(cfg->bgp.neighbors[0].port, 179);
	assert_string_equal(cfg->bgp.neighbors[0].password, "s3cret");
	assert_int_equal(cfg->bgp.neighbors[0].next_hop.family, AF_INET);
	assert_int_equal(cfg->bgp.neighbors[1].hold_time_s, 90);
	assert_int_equal(cfg->bgp.neighbors[1].port, 1179);
	assert_true(cfg->bgp.neighbors[1].ext_next_hop);
	assert_false(cfg->bgp.neighbors[0].ext_next_hop);
	assert_null(cfg->bgp.neighbors[1].password);
	assert_int_equal(cfg->bgp.mode, KMD_BGP_BUILTIN);
	assert_int_equal(cfg->bgp.attrs.nlarge, 1);
	assert_int_equal(cfg->bgp.attrs.large[0].global, 65001);
	assert_int_equal(cfg->bgp.attrs.large[0].local2, 4294967295u);
	assert_int_equal(cfg->bgp.gr_time_s, 300);
	assert_int_equal(cfg->bgp.shutdown_time_ms, 1000);
	assert_false(cfg->bgp.attrs.has_med);
	assert_int_equal(cfg->bgp.neighbors[0].multihop, 2);
	assert_true(cfg->bgp.neighbors[0].ttl_security);
	assert_false(cfg->bgp.neighbors[0].passive);
	assert_true(cfg->bgp.neighbors[1].passive);
	assert_true(cfg->bgp.neighbors[0].bfd);
	assert_int_equal(cfg->bgp.neighbors[0].bfd_min_tx_ms, 50);
	assert_int_equal(cfg->bgp.neighbors[0].bfd_min_rx_ms, 1000);
	assert_int_equal(cfg->bgp.neighbors[0].bfd_mult, 5);
	/* bfd: {} is BFD with the defaults, 300 ms x 3 */
	assert_true(cfg->bgp.neighbors[1].bfd);
	assert_int_equal(cfg->bgp.neighbors[1].bfd_min_tx_ms, 300);
	assert_int_equal(cfg->bgp.neighbors[1].bfd_min_rx_ms, 300);
	assert_int_equal(cfg->bgp.neighbors[1].bfd_mult, 3);
	assert_int_equal(cfg->bgp.routes_table, 254);
	assert_int_equal(cfg->bgp.routes_proto, 252);
	assert_true(cfg->services[0].bgp.announce);
	kmd_config_free(cfg);
}

/* An empty file (and one with only a comment): every default, nothing configured. */
static void test_empty(void **state)
{
	struct kmd_config *cfg;
	char ip[INET6_ADDRSTRLEN];

	load_ok("", &cfg);
	assert_int_equal(cfg->nservices, 0);
	assert_int_equal(cfg->kcfg.present, 0);
	assert_false(cfg->has_seed);
	assert_false(cfg->bgp.present);
	assert_string_equal(cfg->daemon.owner, "kmaglev-daemon");
	assert_int_equal(cfg->daemon.enforce, KMD_ENFORCE);
	assert_int_equal(cfg->daemon.drain_time_ms, 10000);
	assert_string_equal(kmg_fmt_addr(&cfg->daemon.metrics_addr, ip, sizeof(ip)), "127.0.0.1");
	assert_int_equal(cfg->daemon.metrics_port, 9742);
	assert_string_equal(cfg->daemon.socket, "/run/kmaglev/daemon.sock");
	kmd_config_free(cfg);

	load_ok("# nothing\ndaemon: { metrics: \"off\" }\n", &cfg);
	assert_int_equal(cfg->daemon.metrics_port, 0);
	assert_int_equal(cfg->daemon.metrics_addr.family, 0);
	kmd_config_free(cfg);
}

/* The per-source quota settings in config:, exactly those given, enums by name. */
static void test_quota_settings(void **state)
{
	struct kmd_config *cfg;

	load_ok("config:\n"
		"  quota-rate: 200\n"
		"  quota-burst: 0\n"
		"  quota-prefix4: 24\n"
		"  quota-prefix6: 56\n"
		"  quota-scope: service\n"
		"  quota-action: rst\n"
		"  quota-max: 0x10000\n", &cfg);
	assert_int_equal(cfg->kcfg.quota_rate, 200);
	assert_int_equal(cfg->kcfg.quota_burst, 0);
	assert_int_equal(cfg->kcfg.quota_prefix4, 24);
	assert_int_equal(cfg->kcfg.quota_prefix6, 56);
	assert_int_equal(cfg->kcfg.quota_scope, KMAGLEV_QUOTA_SCOPE_SERVICE);
	assert_int_equal(cfg->kcfg.quota_action, KMAGLEV_QUOTA_ACTION_RST);
	assert_int_equal(cfg->kcfg.quota_max, 65536);
	assert_int_equal(cfg->kcfg.present, KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_RATE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_BURST) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX4) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX6) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_SCOPE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_ACTION) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_MAX));
	kmd_config_free(cfg);

	/* one of them alone; the others stay the kernel's */
	load_ok("config: { quota-rate: 1000000, quota-scope: netns }\n", &cfg);
	assert_int_equal(cfg->kcfg.quota_rate, KMAGLEV_QUOTA_RATE_MAX);
	assert_int_equal(cfg->kcfg.present, KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_RATE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_SCOPE));
	kmd_config_free(cfg);
}

/* Anchors and aliases: a backend list shared by two services. */
/* Mode routes needs no AS nor neighbours; services carry their own BGP attributes. */
static void test_bgp_routes_mode(void **state)
{
	struct kmd_config *cfg;

	load_ok("services:\n"
		"  - vip: 10.0.0.1\n"
		"    port: 80\n"
		"    bgp: { communities: [\"65000:7\"], large-communities: [\"1:2:3\"], med: 5 }\n"
		"  - vip: 10.0.0.2\n"
		"    port: 80\n"
		"    bgp: { announce: false }\n"
		"bgp:\n"
		"  mode: routes\n"
		"  routes: { table: 1000, protocol: 200 }\n", &cfg);
	assert_int_equal(cfg->bgp.mode, KMD_BGP_ROUTES);
	assert_int_equal(cfg->bgp.routes_table, 1000);
	assert_int_equal(cfg->bgp.routes_proto, 200);
	assert_int_equal(cfg->bgp.nneighbors, 0);
	assert_true(cfg->services[0].bgp.announce);
	assert_int_equal(cfg->services[0].bgp.attrs.ncommunities, 1);
	assert_int_equal(cfg->services[0].bgp.attrs.communities[0], 65000u << 16 | 7);
	assert_int_equal(cfg->services[0].bgp.attrs.nlarge, 1);
	assert_int_equal(cfg->services[0].bgp.attrs.large[0].local2, 3);
	assert_true(cfg->services[0].bgp.attrs.has_med);
	assert_int_equal(cfg->services[0].bgp.attrs.med, 5);
	assert_false(cfg->services[1].bgp.announce);
	kmd_config_free(cfg);
}

static void test_alias(void **state)
{
	struct kmd_config *cfg;

	load_ok("services:\n"
		"  - vip: 10.0.0.1\n"
		"    port: 80\n"
		"    backends: &be\n"
		"      - address: 10.1.0.1\n"
		"        weight: 7\n"
		"  - vip: 10.0.0.1\n"
		"    port: 443\n"
		"    backends: *be\n", &cfg);
	assert_int_equal(cfg->nservices, 2);
	assert_int_equal(cfg->services[1].nbackends, 1);
	assert_int_equal(cfg->services[1].backends[0].be.weight, 7);
	kmd_config_free(cfg);
}

/* --- every field wrong once ------------------------------------------------------------- */

#define SVC	"services:\n  - vip: 10.0.0.1\n    port: 80\n"		/* + line 4 */
#define BE	SVC "    backends:\n      - address: 10.1.0.1\n"		/* + line 6 */
#define CHK	SVC "    checks:\n      - kind: http\n"			/* + line 6 */
#define CHKOF(kind) SVC "    checks:\n      - kind: " kind "\n"
#define AGENT	SVC "    checks: [{ kind: agent, port: 5555 }]\n"		/* + line 5 */
#define BGP	"bgp:\n  asn: 1\n  router-id: 192.0.2.1\n"			/* + line 4 */
#define NB	BGP "  neighbors:\n    - address: 192.0.2.9\n      asn: 2\n"	/* + line 7 */

static const struct {
	const char *yaml;
	const char *msg;
} bad[] = {
	/* config */
	{ "config:\n  max-services: abc\n",
	  "t.yaml:2:3: config.max-services: \"abc\" is not a number" },
	{ "config:\n  max-backends: -1\n",
	  "t.yaml:2:3: config.max-backends: \"-1\" is not a number" },
	{ "config:\n  conn-max: 0x100000000\n",
	  "t.yaml:2:3: config.conn-max: 0x100000000 is out of range 0..4294967295" },
	{ "config:\n  timeout-tcp-syn: 30\n",
	  "t.yaml:2:3: config.timeout-tcp-syn: 30 needs a unit: 30s, 30m or 30h" },
	{ "config:\n  timeout-tcp-est: 8d\n",
	  "t.yaml:2:3: config.timeout-tcp-est: \"8d\" is not a duration (like 30s, 5m or 1h)" },
	{ "config:\n  timeout-tcp-fin: 0s\n",
	  "t.yaml:2:3: config.timeout-tcp-fin: 0s is out of range 1s..168h" },
	{ "config:\n  timeout-udp: 1500ms\n",
	  "t.yaml:2:3: config.timeout-udp: \"1500ms\" is not a duration (like 30s, 5m or 1h)" },
	{ "config:\n  flood-rate: ten\n",
	  "t.yaml:2:3: config.flood-rate: \"ten\" is not a number" },
	{ "config:\n  probe-mark-min: 0x10\n  probe-mark-max: 0x5\n",
	  "t.yaml:2:3: config.probe-mark-min: 0x10 is above probe-mark-max (0x5)" },
	{ "config:\n  probe-mark-max: 0xg\n",
	  "t.yaml:2:3: config.probe-mark-max: \"0xg\" is not a number" },
	{ "config:\n  conns: 5\n", "t.yaml:2:3: config.conns: unknown key" },
	{ "config:\n  quota-rate: 1000001\n",
	  "t.yaml:2:3: config.quota-rate: 1000001 is out of range 0..1000000" },
	{ "config:\n  quota-rate: fast\n",
	  "t.yaml:2:3: config.quota-rate: \"fast\" is not a number" },
	{ "config:\n  quota-burst: 10000001\n",
	  "t.yaml:2:3: config.quota-burst: 10000001 is out of range 0..10000000" },
	{ "config:\n  quota-prefix4: 0\n",
	  "t.yaml:2:3: config.quota-prefix4: 0 is out of range 1..32" },
	{ "config:\n  quota-prefix4: 33\n",
	  "t.yaml:2:3: config.quota-prefix4: 33 is out of range 1..32" },
	{ "config:\n  quota-prefix6: 129\n",
	  "t.yaml:2:3: config.quota-prefix6: 129 is out of range 1..128" },
	{ "config:\n  quota-scope: global\n",
	  "t.yaml:2:3: config.quota-scope: \"global\" is not one of netns or service" },
	{ "config:\n  quota-scope: 1\n",
	  "t.yaml:2:3: config.quota-scope: \"1\" is not one of netns or service" },
	{ "config:\n  quota-action: reject\n",
	  "t.yaml:2:3: config.quota-action: \"reject\" is not one of drop or rst" },
	{ "config:\n  quota-max: 0\n",
	  "t.yaml:2:3: config.quota-max: 0 is out of range 1..16777216" },
	{ "config:\n  quota-max: 16777217\n",
	  "t.yaml:2:3: config.quota-max: 16777217 is out of range 1..16777216" },
	{ "config:\n  quotas: 5\n", "t.yaml:2:3: config.quotas: unknown key" },
	{ "config:\n  quota-prefix: 24\n", "t.yaml:2:3: config.quota-prefix: unknown key" },
	/* load shedding: a mapping's errors at the entry, a text's at the key */
	{ "config:\n  dscp-map: { ef: critical, xx: sheddable }\n",
	  "t.yaml:2:29: config.dscp-map: unknown DSCP \"xx\" (0..63, cs0..cs7, af11..af43, ef or "
	  "le)" },
	{ "config:\n  dscp-map: { ef: critical, 46: sheddable }\n",
	  "t.yaml:2:29: config.dscp-map: DSCP 46 (ef) listed twice" },
	{ "config:\n  dscp-map: { 64: critical }\n",
	  "t.yaml:2:15: config.dscp-map: unknown DSCP \"64\" (0..63, cs0..cs7, af11..af43, ef or "
	  "le)" },
	{ "config:\n  dscp-map:\n    cs1: bulk\n",
	  "t.yaml:3:10: config.dscp-map: unknown class \"bulk\" for DSCP cs1 (critical-plus, "
	  "critical, sheddable-plus or sheddable)" },
	{ "config:\n  dscp-map: { ef: [critical] }\n",
	  "t.yaml:2:19: config.dscp-map: DSCP ef: expected a class, not a list" },
	{ "config:\n  dscp-map: { ef: { class: critical } }\n",
	  "t.yaml:2:19: config.dscp-map: DSCP ef: expected a class, not a mapping" },
	{ "config:\n  dscp-map: [ef, critical]\n",
	  "t.yaml:2:3: config.dscp-map: expected a mapping (DSCP: CLASS) or DSCP=CLASS[,...], not "
	  "a list" },
	{ "config:\n  dscp-map: \"ef=critical,cs1=critical,8=sheddable\"\n",
	  "t.yaml:2:3: config.dscp-map: DSCP 8 (cs1) listed twice" },
	{ "config:\n  dscp-map: ef\n", "t.yaml:2:3: config.dscp-map: \"ef\" is not DSCP=CLASS" },
	{ "config:\n  dscp-map:\n",
	  "t.yaml:2:3: config.dscp-map: expected DSCP=CLASS[,DSCP=CLASS...] or none" },
	{ "config:\n  shed-class: best-effort\n",
	  "t.yaml:2:3: config.shed-class: \"best-effort\" is not one of critical-plus, critical, "
	  "sheddable-plus or sheddable" },
	{ "config:\n  shed-conn-fill: 101\n",
	  "t.yaml:2:3: config.shed-conn-fill: 101 is out of range 0..100" },
	{ "config:\n  shed-new-rate: -1\n",
	  "t.yaml:2:3: config.shed-new-rate: \"-1\" is not a number" },
	{ "config:\n  shed-load-high: 1001\n",
	  "t.yaml:2:3: config.shed-load-high: 1001 is out of range 0..1000" },
	{ "config:\n  shed-load-low: 85%\n",
	  "t.yaml:2:3: config.shed-load-low: \"85%\" is not a number" },
	{ "config:\n  shed-load-high: 700\n  shed-load-low: 700\n",
	  "t.yaml:3:3: config.shed-load-low: 700 is not below shed-load-high (700)" },
	{ "config:\n  shed-load-low: 900\n  shed-load-high: 850\n",
	  "t.yaml:2:3: config.shed-load-low: 900 is not below shed-load-high (850)" },
	{ "config:\n  load: 5\n", "t.yaml:2:3: config.load: unknown key" },
	{ "config:\n  shedding: [load]\n", "t.yaml:2:3: config.shedding: unknown key" },
	{ "config:\n  shed-transitions: 0\n", "t.yaml:2:3: config.shed-transitions: unknown key" },
	/* seed */
	{ "seed: 0102\n", "t.yaml:1:1: seed: \"0102\" is not 32 hexadecimal digits" },
	/* daemon */
	{ "daemon:\n  owner: abcdefghijklmnopqrstuvwxyz0123456\n",
	  "t.yaml:2:3: daemon.owner: too long: 33 bytes, at most 31" },
	{ "daemon:\n  owner: \"\"\n", "t.yaml:2:3: daemon.owner: must not be empty" },
	{ "daemon:\n  owner: \"a b\"\n", "t.yaml:2:3: daemon.owner: \"a b\" contains a space" },
	{ "daemon:\n  enforce: maybe\n",
	  "t.yaml:2:3: daemon.enforce: \"maybe\" is not one of enforce or warn" },
	{ "daemon:\n  drain-time: 10\n",
	  "t.yaml:2:3: daemon.drain-time: 10 needs a unit: 10ms, 10s, 10m or 10h" },
	{ "daemon:\n  metrics: localhost\n",
	  "t.yaml:2:3: daemon.metrics: \"localhost\" is not ADDR:PORT, [IPV6]:PORT or off" },
	{ "daemon:\n  metrics: 127.0.0.1:0\n",
	  "t.yaml:2:3: daemon.metrics: 0 is out of range 1..65535" },
	{ "daemon:\n  metrics: \"[::1:9742\"\n",
	  "t.yaml:2:3: daemon.metrics: \"[::1:9742\" is not ADDR:PORT, [IPV6]:PORT or off" },
	{ "daemon:\n  socket: run/k.sock\n",
	  "t.yaml:2:3: daemon.socket: \"run/k.sock\" is not an absolute path" },
	/* service */
	{ "services:\n  - vip: 224.0.0.1\n    port: 80\n",
	  "t.yaml:2:5: services[0].vip: 224.0.0.1 is a multicast address" },
	{ "services:\n  - vip: www\n    port: 80\n",
	  "t.yaml:2:5: services[0].vip: \"www\" is not an IPv4 or IPv6 address" },
	{ "services:\n  - vip: \"::ffff:10.0.0.1\"\n    port: 80\n",
	  "t.yaml:2:5: services[0].vip: ::ffff:10.0.0.1 is an IPv4-mapped IPv6 address; write the IPv4 form" },
	{ "services:\n  - vip: 10.0.0.1\n    port: 65536\n",
	  "t.yaml:3:5: services[0].port: 65536 is out of range 0..65535" },
	{ "services:\n  - vip: 10.0.0.1\n    port:\n",
	  "t.yaml:3:5: services[0].port: needs a value" },
	{ SVC "    proto: sctp\n",
	  "t.yaml:4:5: services[0].proto: \"sctp\" is not tcp, udp or any" },
	{ SVC "    table-size: 65536\n",
	  "t.yaml:4:5: services[0].table-size: 65536 is not a prime (nearest primes: 65521 and 65537)" },
	{ SVC "    table-size: 100\n",
	  "t.yaml:4:5: services[0].table-size: 100 is out of range 251..16777213" },
	{ SVC "    hash: round-robin\n",
	  "t.yaml:4:5: services[0].hash: \"round-robin\" is not one of five-tuple, three-tuple or src-addr" },
	{ SVC "    flags: [echo, fast]\n",
	  "t.yaml:4:19: services[0].flags[1]: \"fast\" is not one of echo, defrag or resched" },
	{ SVC "    flags: [echo, echo]\n",
	  "t.yaml:4:19: services[0].flags[1]: echo is listed twice" },
	{ SVC "    flags: echo\n",
	  "t.yaml:4:5: services[0].flags: expected a list, not a single value" },
	{ SVC "    seed: 00\n",
	  "t.yaml:4:5: services[0].seed: \"00\" is not 32 hexadecimal digits" },
	{ SVC "    ramp: 101\n", "t.yaml:4:5: services[0].ramp: 101 is out of range 0..100" },
	{ SVC "    ramp-time: 25h\n",
	  "t.yaml:4:5: services[0].ramp-time: 25h is out of range 0ms..24h" },
	{ SVC "    window: 5\n",
	  "t.yaml:4:5: services[0].window: 5 needs a unit: 5ms, 5s, 5m or 5h" },
	{ SVC "    max-conns: many\n",
	  "t.yaml:4:5: services[0].max-conns: \"many\" is not a number" },
	{ SVC "    client-rate: 1.5\n",
	  "t.yaml:4:5: services[0].client-rate: \"1.5\" is not a number" },
	{ SVC "    encap-src4: \"2001:db8::1\"\n",
	  "t.yaml:4:5: services[0].encap-src4: 2001:db8::1 is not an IPv4 address" },
	{ SVC "    encap-src6: 192.0.2.1\n",
	  "t.yaml:4:5: services[0].encap-src6: 192.0.2.1 is not an IPv6 address" },
	{ SVC "    quorum: { min: 3 }\n",
	  "t.yaml:4:15: services[0].quorum.min: 3 is more than the 0 backends of the service" },
	{ SVC "    quorum: { fraction: 1.5 }\n",
	  "t.yaml:4:15: services[0].quorum.fraction: 1.5 is outside 0..1" },
	{ SVC "    quorum: { fraction: half }\n",
	  "t.yaml:4:15: services[0].quorum.fraction: \"half\" is not a number" },
	{ SVC "    utilization: { target: 60 }\n",
	  "t.yaml:4:5: services[0].utilization: no agent check of the service or its backends "
	  "reports a utilization (util:N)" },
	{ AGENT "    utilization: { target: 100 }\n",
	  "t.yaml:5:20: services[0].utilization.target: 100 is out of range 1..95" },
	{ AGENT "    backends:\n      - { address: 10.1.0.1, checks: [] }\n"
	  "    utilization: {}\n",
	  "t.yaml:7:5: services[0].utilization: no agent check of the service or its backends "
	  "reports a utilization (util:N)" },
	{ AGENT "    utilization: { min-weight: 0 }\n",
	  "t.yaml:5:20: services[0].utilization.min-weight: 0 is out of range 1..100" },
	{ AGENT "    utilization: { target: high }\n",
	  "t.yaml:5:20: services[0].utilization.target: \"high\" is not a number" },
	{ AGENT "    utilization: { shed-above: 0 }\n",
	  "t.yaml:5:20: services[0].utilization.shed-above: 0 is out of range 6..100" },
	/* off is shed-above - 5: from 5 down, a service could never come back */
	{ AGENT "    utilization: { shed-above: 5 }\n",
	  "t.yaml:5:20: services[0].utilization.shed-above: 5 is out of range 6..100" },
	{ AGENT "    utilization: { shed-above: 90, shed-hold: 11m }\n",
	  "t.yaml:5:36: services[0].utilization.shed-hold: 11m is out of range 0ms..10m" },
	{ AGENT "    utilization: { shed-above: 101 }\n",
	  "t.yaml:5:20: services[0].utilization.shed-above: 101 is out of range 6..100" },
	{ AGENT "    utilization: { shed-above: 90% }\n",
	  "t.yaml:5:20: services[0].utilization.shed-above: \"90%\" is not a number" },
	{ SVC "    utilization: { shed-above: 90 }\n",
	  "t.yaml:4:5: services[0].utilization: no agent check of the service or its backends "
	  "reports a utilization (util:N)" },
	{ SVC "    criticality: high\n",
	  "t.yaml:4:5: services[0].criticality: \"high\" is not one of critical-plus, critical, "
	  "sheddable-plus or sheddable" },
	/* the daemon sets a service's overload itself */
	{ SVC "    overload: on\n", "t.yaml:4:5: services[0].overload: unknown key" },
	{ SVC "    quorum: { action: panic }\n",
	  "t.yaml:4:15: services[0].quorum.action: \"panic\" is not one of serve, fail-open or withdraw" },
	{ SVC "  - vip: 10.0.0.1\n    port: 80\n    proto: tcp\n",
	  "t.yaml:4:5: services[1]: 10.0.0.1:80/tcp is services[0] too" },
	/* backend */
	{ SVC "    backends:\n      - address: 10.1.0.256\n",
	  "t.yaml:5:9: services[0].backends[0].address: \"10.1.0.256\" is not an IPv4 or IPv6 address" },
	{ SVC "    backends:\n      - address: 0.0.0.0\n",
	  "t.yaml:5:9: services[0].backends[0].address: 0.0.0.0 is the unspecified address" },
	{ BE "        weight: 70000\n",
	  "t.yaml:6:9: services[0].backends[0].weight: 70000 is out of range 0..65535" },
	{ BE "        state: dead\n",
	  "t.yaml:6:9: services[0].backends[0].state: \"dead\" is not one of up, drain or down" },
	{ BE "        encap: vxlan\n",
	  "t.yaml:6:9: services[0].backends[0].encap: \"vxlan\" is not one of ipip, gre or dr" },
	{ BE "        gre-key: 7\n",
	  "t.yaml:6:9: services[0].backends[0].gre-key: a GRE key needs \"encap: gre\" (encap is ipip)" },
	{ BE "        encap: ipip\n        gre-key: 7\n",
	  "t.yaml:7:9: services[0].backends[0].gre-key: a GRE key needs \"encap: gre\" (encap is ipip)" },
	{ BE "        encap: gre\n        gre-key: 0x1ffffffff\n",
	  "t.yaml:7:9: services[0].backends[0].gre-key: 0x1ffffffff is out of range 0..4294967295" },
	{ BE "        max-conns: x\n",
	  "t.yaml:6:9: services[0].backends[0].max-conns: \"x\" is not a number" },
	{ BE "      - address: 10.1.0.2\n      - address: 10.1.0.1\n",
	  "t.yaml:7:9: services[0].backends[2].address: 10.1.0.1 is backends[0] too" },
	{ BE "        checks: { kind: tcp }\n",
	  "t.yaml:6:9: services[0].backends[0].checks: expected a list, not a mapping" },
	{ BE "        checks: [ { kind: tcp, port: 0 } ]\n",
	  "t.yaml:6:32: services[0].backends[0].checks[0].port: 0 is out of range 1..65535" },
	/* checks */
	{ CHKOF("icmp"),
	  "t.yaml:5:9: services[0].checks[0].kind: \"icmp\" is not one of tcp, http, https, udp, dns, exec or agent" },
	{ CHK "        name: \"a b\"\n",
	  "t.yaml:6:9: services[0].checks[0].name: \"a b\" is not 1..63 letters, digits, \"-\", \"_\" or \".\"" },
	{ CHK "      - kind: http\n",
	  "t.yaml:6:9: services[0].checks[1].name: \"http\" is the name of checks[0] too; give each a name" },
	{ CHK "        via: tun\n",
	  "t.yaml:6:9: services[0].checks[0].via: \"tun\" is not one of tunnel or direct" },
	{ CHKOF("exec") "        command: [/bin/true]\n        via: direct\n",
	  "t.yaml:7:9: services[0].checks[0].via: exec checks do not take it (tcp, http, https, udp, dns or agent checks do)" },
	{ CHK "        port: 0\n",
	  "t.yaml:6:9: services[0].checks[0].port: 0 is out of range 1..65535" },
	{ CHK "        interval: 50ms\n",
	  "t.yaml:6:9: services[0].checks[0].interval: 50ms is out of range 100ms..1h" },
	{ CHK "        timeout: 3s\n",
	  "t.yaml:6:9: services[0].checks[0].timeout: 3s is longer than the interval (2s)" },
	{ CHK "        interval: 500ms\n        timeout: 501ms\n",
	  "t.yaml:7:9: services[0].checks[0].timeout: 501ms is longer than the interval (500ms)" },
	{ CHK "        fast-interval: 3s\n",
	  "t.yaml:6:9: services[0].checks[0].fast-interval: 3s is out of range 100ms..2s" },
	{ CHK "        down-interval: 2\n",
	  "t.yaml:6:9: services[0].checks[0].down-interval: 2 needs a unit: 2ms, 2s, 2m or 2h" },
	{ CHK "        jitter: 3s\n",
	  "t.yaml:6:9: services[0].checks[0].jitter: 3s is out of range 0ms..2s" },
	{ CHK "        rise: 0\n",
	  "t.yaml:6:9: services[0].checks[0].rise: 0 is out of range 1..1000" },
	{ CHK "        fall: 1001\n",
	  "t.yaml:6:9: services[0].checks[0].fall: 1001 is out of range 1..1000" },
	{ CHK "        host: \"a b\"\n",
	  "t.yaml:6:9: services[0].checks[0].host: \"a b\" is not a host name (letters, digits, "
	  "\"-\", \".\", \"_\"; no port: the check's port is the URL's) nor an [IPv6] address" },
	{ CHK "        path: healthz\n",
	  "t.yaml:6:9: services[0].checks[0].path: \"healthz\" does not start with \"/\"" },
	{ CHK "        status: [200, \"600\"]\n",
	  "t.yaml:6:23: services[0].checks[0].status[1]: 600 is not within 100..599 (low..high)" },
	{ CHK "        status: [\"399-300\"]\n",
	  "t.yaml:6:18: services[0].checks[0].status[0]: 399-300 is not within 100..599 (low..high)" },
	{ CHK "        status: [ok]\n",
	  "t.yaml:6:18: services[0].checks[0].status[0]: \"ok\" is not a status code or a range like 200-399" },
	{ CHK "        status: []\n",
	  "t.yaml:6:9: services[0].checks[0].status: must list at least one status or range" },
	{ CHK "        host: www.example.com:8080\n",
	  "t.yaml:6:9: services[0].checks[0].host: \"www.example.com:8080\" is not a host name "
	  "(letters, digits, \"-\", \".\", \"_\"; no port: the check's port is the URL's) nor "
	  "an [IPv6] address" },
	{ CHK "        host: x/y\n",
	  "t.yaml:6:9: services[0].checks[0].host: \"x/y\" is not a host name (letters, digits, "
	  "\"-\", \".\", \"_\"; no port: the check's port is the URL's) nor an [IPv6] address" },
	{ CHK "        body: \"\"\n",
	  "t.yaml:6:9: services[0].checks[0].body: must not be empty" },
	{ CHK "        verify-tls: false\n",
	  "t.yaml:6:9: services[0].checks[0].verify-tls: http checks do not take it (https checks do)" },
	{ CHK "        reuse: 2h\n",
	  "t.yaml:6:9: services[0].checks[0].reuse: 2h is out of range 0ms..1h" },
	{ CHK "        reuse: 10\n",
	  "t.yaml:6:9: services[0].checks[0].reuse: 10 needs a unit: 10s, 10m or 10h" },
	{ CHKOF("tcp") "        reuse: 10s\n",
	  "t.yaml:6:9: services[0].checks[0].reuse: tcp checks do not take it (http or https checks do)" },
	{ CHKOF("https") "        verify-tls: maybe\n",
	  "t.yaml:6:9: services[0].checks[0].verify-tls: \"maybe\" is not true or false" },
	/* ca: https with verify-tls, an absolute path to a readable file with a certificate */
	{ CHK "        ca: /etc/ca.pem\n",
	  "t.yaml:6:9: services[0].checks[0].ca: http checks do not take it (https checks do)" },
	{ CHKOF("https") "        ca: /etc/ca.pem\n",
	  "t.yaml:6:9: services[0].checks[0].ca: needs verify-tls: true (without it no certificate is verified)" },
	{ CHKOF("https") "        verify-tls: false\n        ca: /etc/ca.pem\n",
	  "t.yaml:7:9: services[0].checks[0].ca: needs verify-tls: true (without it no certificate is verified)" },
	{ CHKOF("https") "        verify-tls: maybe\n        ca: /etc/ca.pem\n",
	  "t.yaml:6:9: services[0].checks[0].verify-tls: \"maybe\" is not true or false" },
	{ CHKOF("https") "        verify-tls: true\n        ca: ca.pem\n",
	  "t.yaml:7:9: services[0].checks[0].ca: \"ca.pem\" is not an absolute path" },
	{ CHKOF("https") "        verify-tls: true\n        ca: \"\"\n",
	  "t.yaml:7:9: services[0].checks[0].ca: \"\" is not an absolute path" },
	{ CHKOF("https") "        verify-tls: true\n        ca: /nonexistent/ca.pem\n",
	  "t.yaml:7:9: services[0].checks[0].ca: /nonexistent/ca.pem: No such file or directory" },
	{ CHKOF("https") "        verify-tls: true\n        ca: /\n",
	  "t.yaml:7:9: services[0].checks[0].ca: /: not a regular file" },
	{ CHKOF("https") "        verify-tls: true\n        ca: /dev/null\n",
	  "t.yaml:7:9: services[0].checks[0].ca: /dev/null: not a regular file" },
	{ CHKOF("tcp") "        path: /\n",
	  "t.yaml:6:9: services[0].checks[0].path: tcp checks do not take it (http or https checks do)" },
	{ CHKOF("tcp") "        status: [200]\n",
	  "t.yaml:6:9: services[0].checks[0].status: tcp checks do not take it (http and https checks do)" },
	{ CHKOF("dns") "        body: x\n",
	  "t.yaml:6:9: services[0].checks[0].body: dns checks do not take it (http or https checks do)" },
	{ CHK "        send: ping\n",
	  "t.yaml:6:9: services[0].checks[0].send: http checks do not take it (udp checks do)" },
	{ CHKOF("udp"), "t.yaml:5:9: services[0].checks[0]: a udp check needs \"send\" (the payload)" },
	{ CHKOF("udp") "        send: ping\n        expect: \"\"\n",
	  "t.yaml:7:9: services[0].checks[0].expect: must not be empty" },
	{ CHKOF("udp") "        send: x\n        query: a\n",
	  "t.yaml:7:9: services[0].checks[0].query: udp checks do not take it (dns checks do)" },
	{ CHKOF("dns") "        query: \"a b\"\n",
	  "t.yaml:6:9: services[0].checks[0].query: \"a b\" contains a space" },
	{ CHKOF("dns") "        qtype: XX\n",
	  "t.yaml:6:9: services[0].checks[0].qtype: \"XX\" is not a query type (A, AAAA, NS, SOA, ... or a number)" },
	{ CHKOF("dns") "        qtype: 0\n",
	  "t.yaml:6:9: services[0].checks[0].qtype: 0 is out of range 1..65535" },
	{ CHKOF("dns") "        rcode: BAD\n",
	  "t.yaml:6:9: services[0].checks[0].rcode: \"BAD\" is not one of NOERROR, FORMERR, SERVFAIL, NXDOMAIN, NOTIMP or REFUSED" },
	{ CHKOF("dns") "        rcode: 16\n",
	  "t.yaml:6:9: services[0].checks[0].rcode: 16 is out of range 0..15" },
	{ CHKOF("exec"),
	  "t.yaml:5:9: services[0].checks[0].command: must list the program and its arguments" },
	{ CHKOF("exec") "        command: [check.sh]\n",
	  "t.yaml:6:9: services[0].checks[0].command: \"check.sh\" is not an absolute path (no shell, no PATH)" },
	{ CHKOF("tcp") "        command: [/bin/true]\n",
	  "t.yaml:6:9: services[0].checks[0].command: tcp checks do not take it (exec checks do)" },
	{ CHKOF("agent"), "t.yaml:5:9: services[0].checks[0]: an agent check needs a port (the agent's)" },
	{ "services:\n  - vip: 10.0.0.1\n    port: 0\n    checks:\n      - kind: tcp\n",
	  "t.yaml:5:9: services[0].checks[0]: the service has port 0 (every port): give the check a port" },
	/* bgp */
	{ "bgp:\n  asn: 0\n  router-id: 192.0.2.1\n",
	  "t.yaml:2:3: bgp.asn: 0 is out of range 1..4294967295" },
	{ "bgp:\n  asn: 1\n  router-id: \"::1\"\n",
	  "t.yaml:3:3: bgp.router-id: ::1 is not an IPv4 address" },
	{ "bgp:\n  asn: 1\n", "t.yaml:2:3: bgp: missing required key \"router-id\"" },
	{ BGP "  listen: any\n",
	  "t.yaml:4:3: bgp.listen: \"any\" is not an IPv4 or IPv6 address" },
	{ BGP "  listen-port: 0\n", "t.yaml:4:3: bgp.listen-port: 0 is out of range 1..65535" },
	{ BGP "  med: -1\n", "t.yaml:4:3: bgp.med: \"-1\" is not a number" },
	{ BGP "  local-pref: 0x100000000\n",
	  "t.yaml:4:3: bgp.local-pref: 0x100000000 is out of range 0..4294967295" },
	{ BGP "  communities: [\"65001:100000\"]\n",
	  "t.yaml:4:17: bgp.communities[0]: \"65001:100000\" is not a community ASN:VALUE (each 0..65535)" },
	{ BGP "  communities: [no-export]\n",
	  "t.yaml:4:17: bgp.communities[0]: \"no-export\" is not a community ASN:VALUE (each 0..65535)" },
	{ BGP "  communities: [1:1, 1:2, 1:3, 1:4, 1:5, 1:6, 1:7, 1:8, 1:9, 1:10, 1:11, 1:12,\n"
	  "    1:13, 1:14, 1:15, 1:16, 1:17]\n",
	  "t.yaml:4:3: bgp.communities: 17 communities; at most 16" },
	{ NB "      port: 0\n",
	  "t.yaml:7:7: bgp.neighbors[0].port: 0 is out of range 1..65535" },
	{ NB "      hold-time: 2s\n",
	  "t.yaml:7:7: bgp.neighbors[0].hold-time: 2s is neither 0s (no keepalives) nor 3s..65535s" },
	{ NB "      hold-time: 90\n",
	  "t.yaml:7:7: bgp.neighbors[0].hold-time: 90 needs a unit: 90s, 90m or 90h" },
	{ NB "      password: \"\"\n",
	  "t.yaml:7:7: bgp.neighbors[0].password: must not be empty" },
	{ NB "      next-hop: gateway\n",
	  "t.yaml:7:7: bgp.neighbors[0].next-hop: \"gateway\" is not an IPv4 or IPv6 address" },
	{ NB "    - { address: 192.0.2.9, asn: 3 }\n",
	  "t.yaml:7:9: bgp.neighbors[1].address: 192.0.2.9 is neighbors[0] too" },
	{ BGP "  neighbors:\n    - address: 192.0.2.9\n",
	  "t.yaml:5:7: bgp.neighbors[0]: missing required key \"asn\"" },
	{ NB "      asn: 0\n", "t.yaml:7:7: bgp.neighbors[0].asn: given twice (first on line 6)" },
	{ NB "      multihop: 0\n", "t.yaml:7:7: bgp.neighbors[0].multihop: 0 is out of range 1..255" },
	{ NB "      extended-next-hop: true\n",
	  "t.yaml:7:7: bgp.neighbors[0].extended-next-hop: only for an IPv6 neighbour (its session "
	  "then carries the IPv4 VIPs with IPv6 next hops)" },
	{ NB "      bfd: { min-tx: 5ms }\n",
	  "t.yaml:7:14: bgp.neighbors[0].bfd.min-tx: 5ms is out of range 10ms..1m" },
	{ NB "      bfd: { min-rx: 300 }\n",
	  "t.yaml:7:14: bgp.neighbors[0].bfd.min-rx: 300 needs a unit: 300ms, 300s, 300m or 300h" },
	{ NB "      bfd:\n        multiplier: 0\n",
	  "t.yaml:8:9: bgp.neighbors[0].bfd.multiplier: 0 is out of range 1..255" },
	{ NB "      bfd: { multiplier: 256 }\n",
	  "t.yaml:7:14: bgp.neighbors[0].bfd.multiplier: 256 is out of range 1..255" },
	{ NB "      bfd: { interval: 1s }\n",
	  "t.yaml:7:14: bgp.neighbors[0].bfd.interval: unknown key" },
	{ NB "      ttl-security: on\n",
	  "t.yaml:7:7: bgp.neighbors[0].ttl-security: \"on\" is not true or false" },
	{ NB "      passive: true\n",
	  "t.yaml:7:7: bgp.neighbors[0].passive: needs bgp.listen (of the neighbour's family or ::) to accept its connection" },
	{ BGP "  neighbors:\n    - { address: \"fe80::1\", asn: 2 }\n",
	  "t.yaml:5:9: bgp.neighbors[0].address: fe80::1 is link-local: give the neighbour a global address" },
	{ NB "    - { address: 192.0.2.8, asn: 23456 }\n",
	  "t.yaml:7:29: bgp.neighbors[1].asn: 23456 is AS_TRANS, no AS of its own (RFC 6793)" },
	{ BGP "  shutdown-time: 10s\n",
	  "t.yaml:4:3: bgp.shutdown-time: 10s is not shorter than daemon.drain-time (the lame duck would end first)" },
	{ NB "      passive: maybe\n",
	  "t.yaml:7:7: bgp.neighbors[0].passive: \"maybe\" is not true or false" },
	{ NB "      next-hop: 2001:db8::1\n",
	  "t.yaml:7:7: bgp.neighbors[0].next-hop: 2001:db8::1 is not of the neighbour's address family (the session carries its own family only)" },
	{ BGP "  mode: frr\n",
	  "t.yaml:4:3: bgp.mode: \"frr\" is not one of builtin or routes" },
	{ "bgp:\n  mode: routes\n  neighbors:\n    - { address: 192.0.2.9, asn: 2 }\n",
	  "t.yaml:3:3: bgp.neighbors: is for mode builtin; mode routes speaks no BGP" },
	{ BGP "  routes: { table: 7 }\n",
	  "t.yaml:4:11: bgp.routes: only for mode routes (this is mode builtin)" },
	{ SVC "    checks: [ { kind: tcp } ]\nbgp:\n  mode: routes\n",
	  "t.yaml:6:3: bgp.routes.table: 254 (main), where the VIPs' blackhole routes would fail the tunnel checks' own connections to them: give the routes a table of their own (BIRD: kernel table N) or use via: direct checks" },
	{ "bgp:\n  mode: routes\n  routes: { table: 255 }\n",
	  "t.yaml:3:13: bgp.routes.table: 255 is the kernel's local table" },
	{ "bgp:\n  mode: routes\n  routes: { protocol: 4 }\n",
	  "t.yaml:3:13: bgp.routes.protocol: 4 is out of range 5..255" },
	{ BGP "  large-communities: [\"1:2\"]\n",
	  "t.yaml:4:23: bgp.large-communities[0]: \"1:2\" is not a large community GLOBAL:LOCAL1:LOCAL2 (each 0..4294967295)" },
	{ BGP "  large-communities: [\"1:2:4294967296\"]\n",
	  "t.yaml:4:23: bgp.large-communities[0]: \"1:2:4294967296\" is not a large community GLOBAL:LOCAL1:LOCAL2 (each 0..4294967295)" },
	{ BGP "  communities: [\"1:2\", \"1:2\"]\n",
	  "t.yaml:4:24: bgp.communities[1]: 1:2 is listed twice" },
	{ BGP "  graceful-restart-time: 4096s\n",
	  "t.yaml:4:3: bgp.graceful-restart-time: 4096s is out of range 0ms..4095s" },
	{ SVC "    bgp: { med: x }\n", "t.yaml:4:12: services[0].bgp.med: \"x\" is not a number" },
	{ SVC "    bgp: { announce: 1 }\n",
	  "t.yaml:4:12: services[0].bgp.announce: \"1\" is not true or false" },
	/* the file's shape: what libcyaml refuses, with positions */
	{ SVC "    wieght: 3\n", "t.yaml:4:5: services[0].wieght: unknown key" },
	{ "services: 3\n", "t.yaml:1:1: services: expected a list, not a single value" },
	{ "services:\n", "t.yaml:1:1: services: expected a list, not a single value" },
	{ "services:\n  - 10.0.0.1\n",
	  "t.yaml:2:5: services[0]: expected a mapping (KEY: VALUE), not a single value" },
	{ SVC "    backends: { address: 10.1.0.1 }\n",
	  "t.yaml:4:5: services[0].backends: expected a list, not a mapping" },
	{ BE "        weight: [1]\n",
	  "t.yaml:6:9: services[0].backends[0].weight: expected a single value, not a list" },
	{ "services:\n  - port: 80\n", "t.yaml:2:5: services[0]: missing required key \"vip\"" },
	{ SVC "    backends:\n      - weight: 1\n",
	  "t.yaml:5:9: services[0].backends[0]: missing required key \"address\"" },
	{ SVC "    checks:\n      - port: 1\n",
	  "t.yaml:5:9: services[0].checks[0]: missing required key \"kind\"" },
	{ SVC "    port: 81\n", "t.yaml:4:5: services[0].port: given twice (first on line 3)" },
	{ "- a\n- b\n", "t.yaml:1:1: expected a mapping (KEY: VALUE), not a list" },
	{ "daemon: [x]\n", "t.yaml:1:1: daemon: expected a mapping (KEY: VALUE), not a list" },
	{ "services: [\n", "t.yaml:2:1: not valid YAML: did not find expected node content" },
	{ "seed: 1\n---\nseed: 2\n", "t.yaml:2:1: not valid YAML: more than one YAML document" },
	{ "seed: *x\n", "t.yaml:1:7: not valid YAML: unknown alias" },
};

static void test_bad(void **state)
{
	struct kmd_config *cfg = (void *)1;
	unsigned int i, failed = 0;
	char *errs, want[512];

	for (i = 0; i < KMG_ARRAY_SIZE(bad); i++) {
		int ret = load(bad[i].yaml, &cfg, &errs);

		snprintf(want, sizeof(want), "%s\n", bad[i].msg);
		if (ret != -1 || cfg || strcmp(errs, want)) {
			print_message("# case %u:\n%s# want: %s# got (%d):\n%s", i, bad[i].yaml,
				      want, ret, errs);
			failed++;
		}
		free(errs);
	}
	assert_int_equal(failed, 0);
}

/* Load shedding: dscp-map as a mapping or as text, the shed settings, a service's class. */
static void test_shed_settings(void **state)
{
	struct kmd_config *cfg;
	const struct kmd_service *s;
	unsigned int i;

	load_ok("config:\n"
		"  dscp-map: { EF: critical-plus, cs1: sheddable, 10: sheddable-plus, 0x3f: critical }\n"
		"  shed-class: sheddable-plus\n"
		"  shed-conn-fill: 90\n"
		"  shed-new-rate: 100000\n"
		"  shed-load-high: 850\n"
		"  shed-load-low: 700\n", &cfg);
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		assert_int_equal(cfg->kcfg.dscp_map[i],
				 i == 46 ? 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS :
				 i == 8 ? 1 + KMAGLEV_CRITICALITY_SHEDDABLE :
				 i == 10 ? 1 + KMAGLEV_CRITICALITY_SHEDDABLE_PLUS :
				 i == 63 ? 1 + KMAGLEV_CRITICALITY_CRITICAL : 0);
	assert_int_equal(cfg->kcfg.shed_class, KMAGLEV_CRITICALITY_SHEDDABLE_PLUS);
	assert_int_equal(cfg->kcfg.shed_conn_fill, 90);
	assert_int_equal(cfg->kcfg.shed_new_rate, 100000);
	assert_int_equal(cfg->kcfg.shed_load_high, 850);
	assert_int_equal(cfg->kcfg.shed_load_low, 700);
	assert_int_equal(cfg->kcfg.present, KMG_BIT(KMAGLEV_A_CONFIG_DSCP_MAP) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_CLASS) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_CONN_FILL) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_NEW_RATE) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_HIGH) |
			 KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_LOW));
	kmd_config_free(cfg);

	/* the CLI's text, the same map */
	load_ok("config:\n  dscp-map: \"cs1=sheddable,ef=critical-plus\"\n", &cfg);
	assert_int_equal(cfg->kcfg.dscp_map[46], 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS);
	assert_int_equal(cfg->kcfg.dscp_map[8], 1 + KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_int_equal(cfg->kcfg.present, KMG_BIT(KMAGLEV_A_CONFIG_DSCP_MAP));
	kmd_config_free(cfg);
	/* none and {} are the empty map, set (it clears the kernel's) */
	load_ok("config: { dscp-map: none }\n", &cfg);
	assert_true(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_DSCP_MAP));
	assert_int_equal(cfg->kcfg.dscp_map[46], 0);
	kmd_config_free(cfg);
	load_ok("config: { dscp-map: {}, shed-load-high: 0, shed-load-low: 500 }\n", &cfg);
	assert_true(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_DSCP_MAP));
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		assert_int_equal(cfg->kcfg.dscp_map[i], 0);
	kmd_config_free(cfg);
	/* not given: not set, the kernel's stays */
	load_ok("config: { conn-max: 10 }\n", &cfg);
	assert_false(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_DSCP_MAP));
	kmd_config_free(cfg);

	/* a service's class, and shed-above; the defaults: critical, overload off, no shed-above */
	load_ok(AGENT "    criticality: sheddable\n"
		"    utilization: { shed-above: 90 }\n"
		"  - vip: 10.0.0.2\n    port: 80\n", &cfg);
	s = &cfg->services[0];
	assert_int_equal(s->svc.criticality, KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_true(KMG_HAS(&s->svc, KMAGLEV_A_SERVICE_CRITICALITY));
	assert_true(s->util.on);
	assert_int_equal(s->util.shed_above, 90);
	assert_int_equal(s->util.shed_hold_ms, KMD_SHED_HOLD_DEFAULT_MS);
	assert_int_equal(s->util.target, 70);
	assert_int_equal(s->util.min_weight, 50);
	s = &cfg->services[1];
	assert_int_equal(s->svc.criticality, KMAGLEV_CRITICALITY_CRITICAL);
	assert_true(KMG_HAS(&s->svc, KMAGLEV_A_SERVICE_CRITICALITY));
	assert_int_equal(s->svc.overload, KMAGLEV_OVERLOAD_OFF);
	assert_true(KMG_HAS(&s->svc, KMAGLEV_A_SERVICE_OVERLOAD));
	assert_false(s->util.on);
	assert_int_equal(s->util.shed_above, 0);
	kmd_config_free(cfg);
	load_ok(AGENT "    utilization: { target: 60 }\n", &cfg);
	assert_int_equal(cfg->services[0].util.shed_above, 0);
	kmd_config_free(cfg);
	load_ok(AGENT "    utilization: { shed-above: 90, shed-hold: 0s }\n", &cfg);
	assert_int_equal(cfg->services[0].util.shed_hold_ms, 0);
	kmd_config_free(cfg);
}

/* Every error of a file, not just the first; the shape pass stops before values are read. */
static void test_many(void **state)
{
	struct kmd_config *cfg;
	char *errs;

	assert_int_equal(load(SVC "    table-size: 10\n"
			      "    backends:\n"
			      "      - address: 10.1.0.1\n"
			      "        weight: 70000\n"
			      "      - address: 10.1.0.1\n"
			      "bgp:\n  asn: 1\n  router-id: 1\n", &cfg, &errs), -1);
	assert_null(cfg);
	assert_string_equal(errs,
		"t.yaml:4:5: services[0].table-size: 10 is out of range 251..16777213\n"
		"t.yaml:7:9: services[0].backends[0].weight: 70000 is out of range 0..65535\n"
		"t.yaml:8:9: services[0].backends[1].address: 10.1.0.1 is backends[0] too\n"
		"t.yaml:11:3: bgp.router-id: \"1\" is not an IPv4 or IPv6 address\n");
	free(errs);

	assert_int_equal(load(SVC "    wieght: 3\n    table-size: 10\n"
			      "  - port: [80]\n"
			      "bgpp: {}\n", &cfg, &errs), -1);
	assert_string_equal(errs,
		"t.yaml:4:5: services[0].wieght: unknown key\n"
		"t.yaml:6:5: services[1].port: expected a single value, not a list\n"
		"t.yaml:6:5: services[1]: missing required key \"vip\"\n"
		"t.yaml:7:1: bgpp: unknown key\n");
	free(errs);
}

static void test_files(void **state)
{
	struct kmd_config *cfg = (void *)1;
	char path[] = "/tmp/kmaglev-config-XXXXXX";
	size_t len = 0;
	char *errs = NULL;
	FILE *f, *e;
	int fd;

	e = open_memstream(&errs, &len);
	assert_non_null(e);
	assert_int_equal(kmd_config_load("/nonexistent/k.yaml", &cfg, e), -1);
	assert_null(cfg);
	fflush(e);
	assert_string_equal(errs, "/nonexistent/k.yaml: No such file or directory\n");
	fclose(e);
	free(errs);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("services:\n  - vip: 10.0.0.1\n    port: 80\n    hash: none\n", f);
	fclose(f);
	errs = NULL;
	e = open_memstream(&errs, &len);
	assert_non_null(e);
	assert_int_equal(kmd_config_load(path, &cfg, e), -1);
	fflush(e);
	assert_true(!strncmp(errs, path, strlen(path)));
	assert_string_equal(errs + strlen(path),
			    ":4:5: services[0].hash: \"none\" is not one of five-tuple, three-tuple or src-addr\n");
	fclose(e);
	free(errs);
	unlink(path);
}

/* write_file PATH TEXT */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * An https check's ca: a PEM file is taken (its path kept); a file with no certificate in
 * it (a key), and one this process cannot read, are refused with the path and why.
 */
static void test_https_ca(void **state)
{
	char dir[] = "/tmp/kmaglev-ca-XXXXXX", ca[64], key[64], locked[64], fifo[64], yaml[512];
	char *errs;
	struct kmd_config *cfg = NULL;
	const struct kmd_check *k;

	assert_non_null(mkdtemp(dir));
	snprintf(ca, sizeof(ca), "%s/ca.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	snprintf(locked, sizeof(locked), "%s/locked.pem", dir);
	write_file(ca, "# the test CA\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	write_file(key, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"
		   "not at a line's start: -----BEGIN CERTIFICATE-----\n");
	write_file(locked, "-----BEGIN CERTIFICATE-----\n");
	assert_int_equal(chmod(locked, 0), 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo.pem", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	snprintf(yaml, sizeof(yaml), CHKOF("https") "        host: www.example.com\n"
		 "        verify-tls: true\n        ca: %s\n", ca);
	load_ok(yaml, &cfg);
	k = &cfg->services[0].checks[0];
	assert_true(k->verify_tls);
	assert_string_equal(k->ca, ca);
	assert_string_equal(k->host, "www.example.com");
	kmd_config_free(cfg);
	/* without ca: NULL (the system's CAs) */
	load_ok(CHKOF("https") "        verify-tls: true\n", &cfg);
	assert_null(cfg->services[0].checks[0].ca);
	kmd_config_free(cfg);

	snprintf(yaml, sizeof(yaml), CHKOF("https") "        verify-tls: true\n        ca: %s\n", key);
	cfg = (void *)1;
	assert_int_equal(load(yaml, &cfg, &errs), -1);
	assert_null(cfg);
	snprintf(yaml, sizeof(yaml), "t.yaml:7:9: services[0].checks[0].ca: %s: no PEM certificate "
		 "in it (\"-----BEGIN CERTIFICATE-----\")\n", key);
	assert_string_equal(errs, yaml);
	free(errs);

	/* a FIFO: refused at once, not waited on for a writer */
	snprintf(yaml, sizeof(yaml), CHKOF("https") "        verify-tls: true\n        ca: %s\n", fifo);
	assert_int_equal(load(yaml, &cfg, &errs), -1);
	snprintf(yaml, sizeof(yaml), "t.yaml:7:9: services[0].checks[0].ca: %s: not a regular file\n",
		 fifo);
	assert_string_equal(errs, yaml);
	free(errs);

	/* (root reads a file of mode 0 all the same) */
	if (geteuid()) {
		snprintf(yaml, sizeof(yaml), CHKOF("https") "        verify-tls: true\n"
			 "        ca: %s\n", locked);
		assert_int_equal(load(yaml, &cfg, &errs), -1);
		snprintf(yaml, sizeof(yaml), "t.yaml:7:9: services[0].checks[0].ca: %s: "
			 "Permission denied\n", locked);
		assert_string_equal(errs, yaml);
		free(errs);
	}
	unlink(ca);
	unlink(key);
	unlink(locked);
	unlink(fifo);
	rmdir(dir);
}

static void test_kind_names(void **state)
{
	assert_string_equal(kmd_check_kind_name(KMD_CHECK_TCP), "tcp");
	assert_string_equal(kmd_check_kind_name(KMD_CHECK_HTTPS), "https");
	assert_string_equal(kmd_check_kind_name(KMD_CHECK_AGENT), "agent");
	assert_string_equal(kmd_check_kind_name(KMD_CHECK_KINDS), "?");
}

/*
 * libcyaml's own errors: the loader's shape check leaves libcyaml nothing to refuse, so its
 * log is mapped on what libcyaml really prints, from a schema of its own.
 */
struct cy_in {
	int *x;
	unsigned int x_count;
};

struct cy_top {
	struct cy_in *list;
	unsigned int list_count;
};

static const cyaml_schema_value_t cy_int = { CYAML_VALUE_INT(CYAML_FLAG_DEFAULT, int) };
static const cyaml_schema_field_t cy_in_fields[] = {
	CYAML_FIELD_SEQUENCE("x", CYAML_FLAG_POINTER, struct cy_in, x, &cy_int, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t cy_in_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct cy_in, cy_in_fields),
};
static const cyaml_schema_field_t cy_top_fields[] = {
	CYAML_FIELD_SEQUENCE("list", CYAML_FLAG_POINTER, struct cy_top, list, &cy_in_entry, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END
};
static const cyaml_schema_value_t cy_top = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct cy_top, cy_top_fields),
};

static void cy_log(cyaml_log_t level, void *ctx, const char *fmt, va_list ap)
{
	vfprintf(ctx, fmt, ap);
}

/* libcyaml's log of loading @yaml, mapped. */
static char *cy_error(const char *yaml)
{
	struct tout log, out;
	cyaml_config_t cy = { .log_level = CYAML_LOG_ERROR, .mem_fn = cyaml_mem,
			      .log_fn = cy_log };
	struct cy_top *t = NULL;
	char *ret;

	tout_open(&log);
	cy.log_ctx = log.f;
	assert_int_not_equal(cyaml_load_data((const uint8_t *)yaml, strlen(yaml), &cy, &cy_top,
					     (cyaml_data_t **)&t, NULL), CYAML_OK);
	assert_null(t);
	tout_open(&out);
	kmd_config_cyaml_error("t.yaml", tout_text(&log), out.f);
	ret = strdup(tout_text(&out));
	assert_non_null(ret);
	tout_close(&out);
	tout_close(&log);
	return ret;
}

static void test_cyaml_log(void **state)
{
	char *s;

	s = cy_error("list:\n  - x: [1, 2]\n  - x: [3, zz]\n");
	assert_string_equal(s, "t.yaml:3:12: list[1].x[1]: Invalid INT value: 'zz'\n");
	free(s);
	s = cy_error("list:\n  - x: [1]\n    y: 2\n");
	assert_string_equal(s, "t.yaml:2:5: list[0]: Unexpected key: y\n");
	free(s);
}

/* --- save --yaml ------------------------------------------------------------------------ */

static void addr(struct kmg_addr *a, const char *s)
{
	assert_int_equal(kmg_parse_addr(s, a), 0);
}

/* Settable fields of @obj in @want (the kernel's) against @got (loaded): equal values. */
static void same_fields(const struct kmg_object *obj, const void *want, const void *got)
{
	uint64_t present = *(const uint64_t *)want;
	unsigned int i;

	for (i = 0; i < obj->n; i++) {
		const struct kmg_field *f = &obj->fields[i];
		const struct kmg_attr_desc *d = kmg_field_desc(obj, f);

		if (f->flags & (KMG_FF_RO | KMG_FF_KEY | KMG_FF_STATE) ||
		    !((present >> f->attr) & 1))
			continue;
		if (!((*(const uint64_t *)got >> f->attr) & 1))
			fail_msg("%s.%s: not present after loading", obj->name,
				 kmg_field_key(obj, f));
		if (d->type == KMG_AT_BINARY)
			assert_memory_equal((const char *)want + f->off, (const char *)got + f->off,
					    d->len);
		else if (kmg_field_uint(obj, f, want) != kmg_field_uint(obj, f, got))
			fail_msg("%s.%s: %llu saved, %llu loaded", obj->name, kmg_field_key(obj, f),
				 (unsigned long long)kmg_field_uint(obj, f, want),
				 (unsigned long long)kmg_field_uint(obj, f, got));
	}
}

static void test_save_roundtrip(void **state)
{
	static const uint8_t seed[KMG_SEED_BYTES] = { 1, 2, 3, [15] = 0xee };
	static const uint8_t zero[KMG_SEED_BYTES];
	struct kmg_backend be[3], be6[1];
	struct kmg_service svcs[2];
	struct kmg_config kc = { 0 };
	struct kmd_config *cfg;
	struct kmg_svc_key key = { .proto = IPPROTO_TCP, .port = 443 };
	struct tout o;
	unsigned int i, j;
	char *errs;

	/* what kmg_services_get() gives: every attribute, read-only ones too */
	kc.max_services = 100;
	kc.conn_max = 2000000;
	kc.conns = 5;
	kc.timeout_tcp_syn = 20;
	kc.timeout_tcp_est = 7200;
	kc.timeout_udp = 45;
	kc.probe_mark_min = 0x100;
	kc.probe_mark_max = 0x1ff;
	kc.quota_rate = 30;
	kc.quota_burst = 0;
	kc.quota_prefix4 = 22;
	kc.quota_prefix6 = 64;
	kc.quota_scope = KMAGLEV_QUOTA_SCOPE_SERVICE;
	kc.quota_action = KMAGLEV_QUOTA_ACTION_DROP;
	kc.quota_max = 4096;
	kc.quotas = 77;
	kc.dscp_map[46] = 1 + KMAGLEV_CRITICALITY_CRITICAL_PLUS;
	kc.dscp_map[5] = 1 + KMAGLEV_CRITICALITY_SHEDDABLE;
	kc.shed_class = KMAGLEV_CRITICALITY_CRITICAL;
	kc.shed_conn_fill = 95;
	kc.shed_load_high = 900;
	kc.shed_load_low = 600;
	kc.load = 420;
	kc.shedding = KMAGLEV_SHED_REASON_LOAD;
	kc.present |= KMG_BIT(KMAGLEV_A_CONFIG_DSCP_MAP) | KMG_BIT(KMAGLEV_A_CONFIG_SHED_CLASS) |
		      KMG_BIT(KMAGLEV_A_CONFIG_SHED_CONN_FILL) |
		      KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_HIGH) |
		      KMG_BIT(KMAGLEV_A_CONFIG_SHED_LOAD_LOW) | KMG_BIT(KMAGLEV_A_CONFIG_LOAD) |
		      KMG_BIT(KMAGLEV_A_CONFIG_SHEDDING);
	kc.present |= KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_RATE) | KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_BURST) |
		     KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX4) |
		     KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_PREFIX6) |
		     KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_SCOPE) |
		     KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_ACTION) | KMG_BIT(KMAGLEV_A_CONFIG_QUOTA_MAX) |
		     KMG_BIT(KMAGLEV_A_CONFIG_QUOTAS);
	kc.present |= KMG_BIT(KMAGLEV_A_CONFIG_MAX_SERVICES) | KMG_BIT(KMAGLEV_A_CONFIG_CONN_MAX) |
		     KMG_BIT(KMAGLEV_A_CONFIG_CONNS) | KMG_BIT(KMAGLEV_A_CONFIG_TIMEOUT_TCP_SYN) |
		     KMG_BIT(KMAGLEV_A_CONFIG_TIMEOUT_TCP_EST) |
		     KMG_BIT(KMAGLEV_A_CONFIG_TIMEOUT_UDP) |
		     KMG_BIT(KMAGLEV_A_CONFIG_PROBE_MARK_MIN) |
		     KMG_BIT(KMAGLEV_A_CONFIG_PROBE_MARK_MAX);

	memset(svcs, 0, sizeof(svcs));
	memset(be, 0, sizeof(be));
	memset(be6, 0, sizeof(be6));
	addr(&key.addr, "10.0.0.1");
	kmg_service_set_key(&svcs[0], &key);
	kmd_service_defaults(&svcs[0], zero);
	svcs[0].table_size = 251;
	svcs[0].hash = KMAGLEV_HASH_THREE_TUPLE;
	svcs[0].flags = 1U << 1 | 1U << 2;
	memcpy(svcs[0].seed, seed, sizeof(seed));
	svcs[0].ramp_pct = 25;
	svcs[0].ramp_ms = 1500;
	svcs[0].window_ms = 120000;
	svcs[0].max_conns = 9;
	svcs[0].client_rate = 3;
	svcs[0].criticality = KMAGLEV_CRITICALITY_SHEDDABLE_PLUS;
	svcs[0].overload = KMAGLEV_OVERLOAD_ON;	/* the daemon's to set: not saved */
	inet_pton(AF_INET, "192.0.2.7", &svcs[0].encap_src4);
	inet_pton(AF_INET6, "2001:db8::7", &svcs[0].encap_src6);
	svcs[0].id = 4;
	svcs[0].generation = 12;
	KMG_SET(&svcs[0], KMAGLEV_A_SERVICE_ID);
	KMG_SET(&svcs[0], KMAGLEV_A_SERVICE_GENERATION);
	for (i = 0; i < 3; i++) {
		struct kmg_addr a;
		char ip[32];

		snprintf(ip, sizeof(ip), "10.1.0.%u", i + 1);
		addr(&a, ip);
		kmg_backend_set_addr(&be[i], &a);
		kmd_backend_defaults(&be[i]);
		be[i].id = i + 1;
		be[i].slots = 80;
		KMG_SET(&be[i], KMAGLEV_A_BACKEND_ID);
		KMG_SET(&be[i], KMAGLEV_A_BACKEND_SLOTS);
	}
	be[1].weight = 0;
	be[1].state = KMAGLEV_BACKEND_STATE_DRAIN;
	be[1].encap = KMAGLEV_ENCAP_GRE;
	be[1].gre_key = 77;
	be[1].max_conns = 10;
	be[2].state = KMAGLEV_BACKEND_STATE_DOWN;
	be[2].weight = 65535;
	svcs[0].be = be;
	svcs[0].nbe = 3;

	key.proto = 0;
	key.port = 0;
	addr(&key.addr, "2001:db8::80");
	kmg_service_set_key(&svcs[1], &key);
	kmd_service_defaults(&svcs[1], zero);
	addr(&be6[0].addr, "2001:db8:1::1");
	kmg_backend_set_addr(&be6[0], &be6[0].addr);
	kmd_backend_defaults(&be6[0]);
	svcs[1].be = be6;
	svcs[1].nbe = 1;

	tout_open(&o);
	assert_int_equal(kmd_config_save_yaml(o.f, &kc, svcs, 2), 0);
	tout_text(&o);
	/* defaults and read-only values are left out */
	assert_null(strstr(o.buf, "conns: 5"));
	assert_null(strstr(o.buf, "quotas"));
	assert_non_null(strstr(o.buf, "  quota-scope: service\n  quota-action: drop\n"));
	assert_non_null(strstr(o.buf, "  dscp-map: {5: sheddable, ef: critical-plus}\n"));
	assert_null(strstr(o.buf, "load:"));
	assert_null(strstr(o.buf, "shedding"));
	assert_non_null(strstr(o.buf, "    criticality: sheddable-plus\n"));
	assert_null(strstr(o.buf, "overload"));
	assert_null(strstr(o.buf, "generation"));
	assert_null(strstr(o.buf, "slots"));
	assert_non_null(strstr(o.buf, "flags: [defrag, resched]\n"));
	assert_non_null(strstr(o.buf, "  - vip: \"2001:db8::80\"\n    port: 0\n    proto: any\n"
				      "    backends:\n      - address: \"2001:db8:1::1\"\n"));
	assert_null(strstr(o.buf, "weight: 1\n"));
	assert_null(strstr(o.buf, "state: up"));

	if (load(o.buf, &cfg, &errs))
		fail_msg("the saved file does not load:\n%s\n%s", o.buf, errs);
	free(errs);
	assert_int_equal(cfg->kcfg.present, kc.present & ~(KMG_BIT(KMAGLEV_A_CONFIG_CONNS) |
							   KMG_BIT(KMAGLEV_A_CONFIG_QUOTAS) |
							   KMG_BIT(KMAGLEV_A_CONFIG_LOAD) |
							   KMG_BIT(KMAGLEV_A_CONFIG_SHEDDING)));
	same_fields(&kmg_obj_config, &kc, &cfg->kcfg);
	assert_int_equal(cfg->nservices, 2);
	for (i = 0; i < 2; i++) {
		const struct kmd_service *s = &cfg->services[i];

		assert_true(kmg_addr_equal(&s->svc.key.addr, &svcs[i].key.addr));
		assert_int_equal(s->svc.key.port, svcs[i].key.port);
		assert_int_equal(s->svc.key.proto, svcs[i].key.proto);
		same_fields(&kmg_obj_service, &svcs[i], &s->svc);
		assert_int_equal(s->nbackends, svcs[i].nbe);
		for (j = 0; j < s->nbackends; j++) {
			assert_true(kmg_addr_equal(&s->backends[j].be.addr, &svcs[i].be[j].addr));
			same_fields(&kmg_obj_backend, &svcs[i].be[j], &s->backends[j].be);
		}
		assert_int_equal(s->nchecks, 0);
	}
	kmd_config_free(cfg);
	tout_close(&o);
}

/* An empty kernel: only the comment header, and it loads. */
static void test_save_empty(void **state)
{
	struct kmd_config *cfg;
	struct tout o;

	tout_open(&o);
	assert_int_equal(kmd_config_save_yaml(o.f, NULL, NULL, 0), 0);
	tout_text(&o);
	assert_true(o.buf[0] == '#');
	assert_null(strstr(o.buf, "services:"));
	load_ok(o.buf, &cfg);
	assert_int_equal(cfg->nservices, 0);
	kmd_config_free(cfg);
	tout_close(&o);
}

/* --- the documentation's examples ------------------------------------------------------ */

static unsigned int ndoc_yaml;
static unsigned int ndoc_errors;

static char *slurp(const char *path, size_t *len)
{
	char *text = NULL;
	FILE *f = fopen(path, "r"), *m;
	char buf[4096];
	size_t n;

	assert_non_null(f);
	m = open_memstream(&text, len);
	assert_non_null(m);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		assert_int_equal(fwrite(buf, 1, n, m), n);
	fclose(m);
	fclose(f);
	return text;
}

static void doc_load(const char *name, const char *text, size_t len)
{
	struct kmd_config *cfg;
	size_t elen = 0;
	char *errs = NULL;
	FILE *e = open_memstream(&errs, &elen);

	assert_non_null(e);
	if (kmd_config_load_str(name, text, len, &cfg, e)) {
		fflush(e);
		print_message("# %s", errs);
		ndoc_errors++;
	} else {
		kmd_config_free(cfg);
	}
	fclose(e);
	free(errs);
	ndoc_yaml++;
}

/* Load the block collected so far, if any. */
static void doc_block(const char *path, unsigned int start, FILE **b, char **block,
		      size_t *blen)
{
	char name[PATH_MAX + 32];

	if (!*b)
		return;
	fclose(*b);
	*b = NULL;
	snprintf(name, sizeof(name), "%s (block at line %u)", path, start);
	doc_load(name, *block, *blen);
	free(*block);
	*block = NULL;
}

/* The ".. code-block:: yaml" blocks of a reStructuredText file, dedented. */
static void doc_rst(const char *path)
{
	FILE *f = fopen(path, "r"), *b = NULL;
	size_t cap = 0, blen = 0, indent = 0;
	unsigned int lineno = 0, start = 0;
	char *line = NULL, *block = NULL;
	ssize_t n;

	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t ind = strspn(line, " ");
		bool blank = !line[ind] || line[ind] == '\n';

		lineno++;
		/* a block ends at the first line indented less than its first line */
		if (b && !blank && (indent ? ind < indent : !ind))
			doc_block(path, start, &b, &block, &blen);
		if (b && !blank && !indent)
			indent = ind;
		if (b)
			fputs(blank ? "\n" : line + indent, b);
		if (!b && strstr(line, ".. code-block:: yaml")) {
			b = open_memstream(&block, &blen);
			assert_non_null(b);
			start = lineno;
			indent = 0;
		}
	}
	doc_block(path, start, &b, &block, &blen);
	free(line);
	fclose(f);
}

static int doc_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	size_t n = strlen(path), len;
	char *text;

	if (type == FTW_D && !strcmp(path + ftw->base, "netlink"))
		return FTW_SKIP_SUBTREE;
	if (type != FTW_F)
		return FTW_CONTINUE;
	if ((n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"))) {
		text = slurp(path, &len);
		doc_load(path, text, len);
		free(text);
	} else if (n > 4 && !strcmp(path + n - 4, ".rst")) {
		doc_rst(path);
	}
	return FTW_CONTINUE;
}

/*
 * Documentation/examples/kmaglev.yaml shows every settable key of config:, the quota and load
 * shedding settings commented out at their defaults: uncommented they load, as exactly the
 * kernel's defaults.
 */
static void test_example_quota(void **state)
{
	size_t len, i;
	char *text = slurp(DOC_DIR "/examples/kmaglev.yaml", &len), *p, *q, *out;
	struct kmd_config *cfg;
	unsigned int f, n = 0;
	char key[64];

	assert_non_null(text);
	for (f = 0; f < kmg_obj_config.n; f++) {
		const struct kmg_field *fd = &kmg_obj_config.fields[f];

		if (fd->flags & (KMG_FF_RO | KMG_FF_KEY))
			continue;
		snprintf(key, sizeof(key), "  %s: ", kmg_field_key(&kmg_obj_config, fd));
		if (!strstr(text, key)) {
			snprintf(key, sizeof(key), "  # %s: ", kmg_field_key(&kmg_obj_config, fd));
			if (!strstr(text, key))
				fail_msg("config key \"%s\" is not in the example",
					 kmg_field_key(&kmg_obj_config, fd));
		}
	}
	/* "  # quota-...: V  # comment" -> "  quota-...: V  # comment"; shed-..., dscp-map too */
	out = calloc(1, len + 1);
	assert_non_null(out);
	for (p = text, q = out; *p; ) {
		if (!strncmp(p, "  # quota-", 10) || !strncmp(p, "  # shed-", 9) ||
		    !strncmp(p, "  # dscp-map: ", 14)) {
			memcpy(q, "  ", 2);
			q += 2;
			p += 4;
			n++;
		}
		i = strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0);
		memcpy(q, p, i);
		q += i;
		p += i;
	}
	assert_int_equal(n, 13);
	load_ok(out, &cfg);
	assert_int_equal(cfg->kcfg.quota_rate, 0);
	assert_int_equal(cfg->kcfg.quota_burst, 0);
	assert_int_equal(cfg->kcfg.quota_prefix4, 32);
	assert_int_equal(cfg->kcfg.quota_prefix6, 64);
	assert_int_equal(cfg->kcfg.quota_scope, KMAGLEV_QUOTA_SCOPE_NETNS);
	assert_int_equal(cfg->kcfg.quota_action, KMAGLEV_QUOTA_ACTION_DROP);
	assert_int_equal(cfg->kcfg.quota_max, 65536);
	assert_true(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_QUOTA_MAX));
	assert_true(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_DSCP_MAP));
	for (i = 0; i < KMAGLEV_DSCP_MAP_LEN; i++)
		assert_int_equal(cfg->kcfg.dscp_map[i], 0);
	assert_int_equal(cfg->kcfg.shed_class, KMAGLEV_CRITICALITY_SHEDDABLE);
	assert_int_equal(cfg->kcfg.shed_conn_fill, 0);
	assert_int_equal(cfg->kcfg.shed_new_rate, 0);
	assert_int_equal(cfg->kcfg.shed_load_high, 0);
	assert_int_equal(cfg->kcfg.shed_load_low, 0);
	assert_true(KMG_HAS(&cfg->kcfg, KMAGLEV_A_CONFIG_SHED_LOAD_LOW));
	kmd_config_free(cfg);
	free(out);
	free(text);
}

static void test_doc_examples(void **state)
{
	assert_int_equal(nftw(DOC_DIR, doc_file, 16, FTW_PHYS | FTW_ACTIONRETVAL), 0);
	print_message("# %u YAML files and code blocks under %s loaded\n", ndoc_yaml, DOC_DIR);
	/* the example file and daemon.rst's two blocks at least */
	assert_true(ndoc_yaml >= 3);
	assert_int_equal(ndoc_errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_quota_settings),
		cmocka_unit_test(test_shed_settings),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_bgp_routes_mode),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_https_ca),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_cyaml_log),
		cmocka_unit_test(test_save_roundtrip),
		cmocka_unit_test(test_save_empty),
		cmocka_unit_test(test_doc_examples),
		cmocka_unit_test(test_example_quota),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
