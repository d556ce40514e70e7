// SPDX-License-Identifier: GPL-2.0
/*
 * "kmaglev import": keepalived.conf's syntax (kaconf.c: comments, quotes, braces, includes,
 * definitions, and what it refuses, with FILE:LINE), the keepalived mapping (a full file to
 * the exact YAML, each loss with its line and why, groups, shared checks), Debian's
 * keepalived samples (each converts or is refused with the reason: run when
 * /usr/share/doc/keepalived/samples is there, skipped when not), the ipvsadm fixtures
 * (real "ipvsadm-save -n" output, tests/import/ipvsadm/gen.sh) and the command itself.
 * Every file written is read back by the daemon's loader (kmg_imp_write() does it; a
 * failure there fails the test).
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "cli/import.h"
#include "cli/kaconf.h"

#define SAMPLES		"/usr/share/doc/keepalived/samples"
#define IPVSADM_DIR	"tests/import/ipvsadm"

static char dir[64];

/* --- helpers ---------------------------------------------------------------------------- */

static char *path_of(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* Write @text to @name under the test's directory (making its directories). */
static void put(const char *name, const char *text)
{
	char p[512], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	for (s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

struct run {
	int ret;
	char *diag;		/* notes and losses */
	char *yaml;		/* NULL when the reader failed */
	char *body;		/* yaml past its header comment */
	unsigned int nlosses, nnotes, nsvc;
};

static void finish(struct kmg_imp *imp, FILE *diag, struct run *r)
{
	char *errs = NULL;
	size_t len = 0;
	FILE *ef;

	fclose(diag);
	r->nlosses = imp->nlosses;
	r->nnotes = imp->nnotes;
	r->nsvc = imp->nsvc;
	r->yaml = NULL;
	r->body = NULL;
	if (!r->ret) {
		ef = open_memstream(&errs, &len);
		assert_non_null(ef);
		r->yaml = kmg_imp_write(imp, ef);
		fclose(ef);
		if (!r->yaml)
			fail_msg("the file written does not load: %s\n%s", kmg_errmsg(), errs);
		free(errs);
		/* past the header: the first line that is no comment */
		r->body = r->yaml;
		while (r->body[0] == '#')
			r->body = strchr(r->body, '\n') + 1;
	}
	kmg_imp_free(imp);
}

static void run_path(const char *path, struct run *r)
{
	struct kmg_imp imp = { 0 };
	size_t len = 0;
	FILE *diag;

	r->diag = NULL;
	diag = open_memstream(&r->diag, &len);
	assert_non_null(diag);
	imp.diag = diag;
	kmg_err_clear();
	r->ret = kmg_import_keepalived(&imp, path);
	finish(&imp, diag, r);
}

/* Write @text as @name and import it. */
static void run_ka(const char *name, const char *text, struct run *r)
{
	char *p = path_of(name);

	put(name, text);
	run_path(p, r);
	free(p);
}

static void run_ipvs(FILE *in, const char *name, struct run *r)
{
	struct kmg_imp imp = { 0 };
	size_t len = 0;
	FILE *diag;

	r->diag = NULL;
	diag = open_memstream(&r->diag, &len);
	assert_non_null(diag);
	imp.diag = diag;
	kmg_err_clear();
	r->ret = kmg_import_ipvsadm(&imp, in, name);
	finish(&imp, diag, r);
}

static void run_ipvs_text(const char *text, struct run *r)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(in);
	run_ipvs(in, "t.save", r);
	fclose(in);
}

static void run_free(struct run *r)
{
	free(r->diag);
	free(r->yaml);
}

static unsigned int count(const char *text, const char *needle)
{
	unsigned int n = 0;
	const char *p = text;

	while (p && (p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

#define assert_has(text, needle) do {						\
	if (!strstr((text), (needle)))						\
		fail_msg("no \"%s\" in:\n%s", (needle), (text));		\
} while (0)

#define assert_lacks(text, needle) do {					\
	if (strstr((text), (needle)))						\
		fail_msg("\"%s\" unexpected in:\n%s", (needle), (text));	\
} while (0)

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/kmaglev-import-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* --- keepalived.conf's syntax --------------------------------------------------------- */

static const struct kac_node *kid(const struct kac_node *x, unsigned int i)
{
	assert_true(i < x->nkid);
	return &x->kid[i];
}

static void test_syntax(void **state)
{
	struct kac_tree t;
	const struct kac_node *vs, *rs, *c, *u;
	char *p;

	put("syntax.conf",
	    "! a comment\n"
	    "# another\n"
	    "virtual_server 192.0.2.1 80{   ! braces against words\n"
	    "  virtualhost \"www example#1\"   # quotes keep blanks and #\n"
	    "  notify \\#x\\!y\n"
	    "  real_server 10.0.0.1 80\n"
	    "  {\n"
	    "    HTTP_GET { url { path / } }\n"
	    "    TCP_CHECK {\n"
	    "    } }\n"
	    "}\r\n"
	    "\n"
	    "global_defs { router_id a }\n");
	p = path_of("syntax.conf");
	assert_int_equal(kac_parse(p, &t), 0);
	assert_int_equal(t.root.nkid, 2);
	vs = kid(&t.root, 0);
	assert_string_equal(vs->w[0], "virtual_server");
	assert_int_equal(vs->nw, 3);
	assert_string_equal(vs->w[2], "80");
	assert_true(vs->block);
	assert_int_equal(vs->line, 3);
	assert_int_equal(vs->nkid, 3);
	assert_string_equal(kid(vs, 0)->w[1], "www example#1");
	assert_int_equal(kid(vs, 0)->nw, 2);
	/* keepalived 2.2.7 reads "\#" outside quotes as a comment start too (keepalived -t
	 * says "lb_kind \#y TUN" is missing its parameter): the words after it go, with a note */
	assert_int_equal(kid(vs, 1)->nw, 1);
	assert_int_equal(t.nnotes, 1);
	assert_int_equal(t.notes[0].line, 5);
	assert_has(t.notes[0].text, "ends the line for keepalived 2.2");
	rs = kid(vs, 2);
	assert_true(rs->block);
	assert_int_equal(rs->line, 6);
	assert_int_equal(rs->nkid, 2);
	c = kid(rs, 0);
	assert_string_equal(c->w[0], "HTTP_GET");
	u = kid(c, 0);
	assert_string_equal(u->w[0], "url");
	assert_true(u->block);
	assert_string_equal(kid(u, 0)->w[0], "path");
	assert_string_equal(kid(u, 0)->w[1], "/");
	assert_true(kid(rs, 1)->block);
	assert_int_equal(kid(rs, 1)->nkid, 0);
	assert_string_equal(kid(&t.root, 1)->w[0], "global_defs");
	assert_string_equal(kid(kid(&t.root, 1), 0)->w[1], "a");
	assert_int_equal(kid(&t.root, 1)->line, 13);
	kac_free(&t);
	free(p);
}

/* What kac_parse() refuses, each with its FILE:LINE. */
static void test_syntax_errors(void **state)
{
	static const struct {
		const char *text, *err;
	} cases[] = {
		{ "a {\n b\n", "bad.conf:1: the block of \"a\" is not closed" },
		{ "a {\n}\n}\n", "bad.conf:3: \"}\" closes no block" },
		{ "\n{\n", "bad.conf:2: \"{\" without a keyword before it" },
		{ "a \"b\n", "bad.conf:1: a quote (\") is not closed" },
		{ "@main router_id x\n", "bad.conf:1: conditional line \"@main\"" },
		{ "@^backup router_id x\n", "bad.conf:1: conditional line \"@^backup\"" },
		{ "x\n~SEQ(N, 1, 3) a $N\n", "bad.conf:2: sequence \"~SEQ\"" },
		{ "$RS= \\\n a \\\n", "bad.conf:1: multiline definition \"RS\"" },
		{ "a ${_RANDOM 1 5}\n", "bad.conf:1: ${_RANDOM} depends on how keepalived runs" },
		{ "a $_INSTANCE\n", "bad.conf:1: ${_INSTANCE} depends on how keepalived runs" },
		{ "$A=x$A\nb $A\n", "bad.conf:2: the parameters expand without end" },
		{ "include a b\n", "bad.conf:1: include takes one file name or pattern" },
		{ "include loop.conf\n", "includes nested more than 16 deep" },
		{ "a\0b\n", "bad.conf:1: a NUL byte" },
	};
	struct kac_tree t;
	unsigned int i;
	char *p = path_of("bad.conf");
	FILE *f;

	put("loop.conf", "include loop.conf\n");
	for (i = 0; i < KMG_ARRAY_SIZE(cases); i++) {
		f = fopen(p, "w");
		assert_non_null(f);
		/* the NUL case: its bytes as written */
		fwrite(cases[i].text, 1, i == KMG_ARRAY_SIZE(cases) - 1 ? 4 : strlen(cases[i].text),
		       f);
		fclose(f);
		kmg_err_clear();
		if (i == 12) {
			char *lp = path_of("loop.conf");

			assert_int_equal(kac_parse(lp, &t), KMG_EFAIL);
			free(lp);
		} else {
			assert_int_equal(kac_parse(p, &t), KMG_EFAIL);
		}
		if (!strstr(kmg_errmsg(), cases[i].err))
			fail_msg("case %u: \"%s\" has no \"%s\"", i, kmg_errmsg(), cases[i].err);
		kac_free(&t);
	}
	kmg_err_clear();
	assert_int_equal(kac_parse("/nonexistent/keepalived.conf", &t), KMG_EFAIL);
	assert_has(kmg_errmsg(), "cannot read /nonexistent/keepalived.conf");
	kac_free(&t);
	free(p);
}

/* Input that would take the reader's time or memory without end is refused. */
static void test_bounds(void **state)
{
	char *p = path_of("big.conf"), name[32], text[128];
	struct kac_tree t;
	unsigned int i;
	FILE *f;

	/* a line longer than 64 KiB (and /dev/zero, a line without end) */
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("virtual_server 192.0.2.1 80 {\n# ", f);
	for (i = 0; i < 70000; i++)
		fputc('x', f);
	fputs("\n}\n", f);
	fclose(f);
	kmg_err_clear();
	assert_int_equal(kac_parse(p, &t), KMG_EFAIL);
	assert_has(kmg_errmsg(), "big.conf:2: a line of more than 65536 bytes");
	kac_free(&t);
	kmg_err_clear();
	assert_int_equal(kac_parse("/dev/zero", &t), KMG_EFAIL);
	assert_has(kmg_errmsg(), "/dev/zero:1: a line of more than 65536 bytes");
	kac_free(&t);
	/* parameters that double at each step: bounded in bytes, not only in steps */
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("$A=", f);
	for (i = 0; i < 4000; i++)
		fputc('a', f);
	fputc('\n', f);
	for (i = 0; i < 5; i++)
		fprintf(f, "$%c=${%c} ${%c}\n", 'B' + i, 'A' + i, 'A' + i);
	fputs("x ${F}\n", f);
	fclose(f);
	kmg_err_clear();
	assert_int_equal(kac_parse(p, &t), KMG_EFAIL);
	assert_has(kmg_errmsg(), "the parameters expand to more than 65536 bytes");
	kac_free(&t);
	/* each file includes the next three times: 3^8 reads; bounded in files */
	for (i = 0; i < 9; i++) {
		snprintf(name, sizeof(name), "fan%u.conf", i);
		snprintf(text, sizeof(text), i < 8 ? "include fan%u.conf\ninclude fan%u.conf\n"
			 "include fan%u.conf\n" : "a b\n", i + 1, i + 1, i + 1);
		put(name, text);
	}
	free(p);
	p = path_of("fan0.conf");
	kmg_err_clear();
	assert_int_equal(kac_parse(p, &t), KMG_EFAIL);
	assert_has(kmg_errmsg(), "more than 1000 files read in all");
	kac_free(&t);
	free(p);
}

/* A virtualhost with a port loses it, with a note; one that is no host name is a loss. */
static void test_virtualhost(void **state)
{
	static const char head[] =
		"virtual_server 192.0.2.1 80 {\n lb_kind TUN\n real_server 10.0.0.1 80 {\n"
		"  HTTP_GET {\n   url { path /h\n    virtualhost ";
	char text[512];
	struct run r;

	snprintf(text, sizeof(text), "%swww.example.com:8080 }\n  }\n }\n}\n", head);
	run_ka("vh.conf", text, &r);
	assert_int_equal(r.ret, 0);
	assert_has(r.yaml, "host: www.example.com\n");
	assert_has(r.diag, "the virtualhost's port is dropped");
	assert_int_equal(r.nlosses, 0);
	run_free(&r);
	snprintf(text, sizeof(text), "%sexample.com/x }\n  }\n }\n}\n", head);
	run_ka("vh.conf", text, &r);
	assert_int_equal(r.ret, 0);
	assert_has(r.diag, "the virtualhost is no host name");
	assert_int_equal(r.nlosses, 1);
	assert_null(strstr(r.yaml, "host:"));
	run_free(&r);
}

static void test_include(void **state)
{
	struct kac_tree t;
	char *p;

	put("inc/keepalived.conf",
	    "a 1\n"
	    "include conf.d/*.conf\n"
	    "b {\n"
	    "  include part.inc\n"
	    "}\n"
	    "include none/*.conf\n"
	    "include {x,y}.conf\n");
	put("inc/conf.d/10-first.conf", "c 2\ninclude ../deep/d.conf\n");
	put("inc/conf.d/20-second.conf", "e 3\n");
	put("inc/deep/d.conf", "d 4\n");
	put("inc/part.inc", "inner 5\n");
	put("inc/x.conf", "x 6\n");
	put("inc/y.conf", "y 7\n");
	p = path_of("inc/keepalived.conf");
	assert_int_equal(kac_parse(p, &t), 0);
	/* in keepalived's order; included files' lines name their own file */
	assert_int_equal(t.root.nkid, 7);
	assert_string_equal(kid(&t.root, 0)->w[0], "a");
	assert_string_equal(kid(&t.root, 1)->w[0], "c");
	assert_has(kid(&t.root, 1)->file, "inc/conf.d/10-first.conf");
	assert_string_equal(kid(&t.root, 2)->w[0], "d");
	assert_has(kid(&t.root, 2)->file, "deep/d.conf");
	assert_string_equal(kid(&t.root, 3)->w[0], "e");
	assert_string_equal(kid(&t.root, 4)->w[0], "b");
	assert_string_equal(kid(kid(&t.root, 4), 0)->w[0], "inner");
	assert_int_equal(kid(kid(&t.root, 4), 0)->line, 1);
	assert_string_equal(kid(&t.root, 5)->w[0], "x");
	assert_string_equal(kid(&t.root, 6)->w[0], "y");
	/* an include that matches nothing: said, as keepalived logs it */
	assert_int_equal(t.nnotes, 1);
	assert_int_equal(t.notes[0].line, 6);
	assert_has(t.notes[0].text, "include \"none/*.conf\": no file matches");
	kac_free(&t);
	free(p);
}

static void test_definitions(void **state)
{
	struct kac_tree t;
	const struct kac_node *x;
	char *p, *pwd;

	put("defs/k.conf",
	    "$PORT=8080\n"
	    "$BASE=10.0.${SUB}\n"
	    "$SUB=3\n"
	    "a $PORT ${PORT}0 $PORTS $UNDEF ${BASE}.1\n"
	    "$SUB=4\n"
	    "b ${BASE}.1 ${_PWD} \"x${_HASH}y${_BANG}\" x${_HASH}y z\n"
	    "$EMPTY=\n"
	    "c $EMPTY d\n");
	p = path_of("defs/k.conf");
	assert_int_equal(kac_parse(p, &t), 0);
	assert_int_equal(t.root.nkid, 3);
	x = kid(&t.root, 0);
	assert_int_equal(x->nw, 6);
	assert_string_equal(x->w[1], "8080");
	assert_string_equal(x->w[2], "80800");
	assert_string_equal(x->w[3], "$PORTS");
	assert_string_equal(x->w[4], "$UNDEF");
	assert_string_equal(x->w[5], "10.0.3.1");
	x = kid(&t.root, 1);
	assert_string_equal(x->w[1], "10.0.4.1");
	pwd = realpath(dir, NULL);
	assert_non_null(pwd);
	assert_has(x->w[2], pwd);
	assert_has(x->w[2], "/defs");
	free(pwd);
	/* a # or ! a parameter brings is the character in quotes, and ends the line outside
	 * them, as in keepalived 2.2.7 ("X${_HASH}y" is "X" to keepalived -t) */
	assert_string_equal(x->w[3], "x#y!");
	assert_string_equal(x->w[4], "x");
	assert_int_equal(x->nw, 5);
	x = kid(&t.root, 2);
	assert_int_equal(x->nw, 2);
	assert_string_equal(x->w[1], "d");
	kac_free(&t);
	free(p);
}

static void test_split_argv(void **state)
{
	char **argv;

	assert_int_equal(kac_split_argv("/bin/check  'a b' \"c d\" e\\ f \\x41\\t 'g\"h'", &argv),
			 0);
	assert_string_equal(argv[0], "/bin/check");
	assert_string_equal(argv[1], "a b");
	assert_string_equal(argv[2], "c d");
	assert_string_equal(argv[3], "e f");
	assert_string_equal(argv[4], "A\t");
	assert_string_equal(argv[5], "g\"h");
	assert_null(argv[6]);
	kac_argv_free(argv);
	assert_int_equal(kac_split_argv("   ", &argv), 0);
	assert_null(argv[0]);
	kac_argv_free(argv);
	assert_int_equal(kac_split_argv("/bin/x 'open", &argv), -EINVAL);
	assert_int_equal(kac_split_argv("/bin/x \\", &argv), -EINVAL);
}

/* --- keepalived: the mapping ---------------------------------------------------------- */

static const char full_conf[] =
	"! maps without a loss\n"
	"global_defs {\n"
	"    lvs_timeouts tcp 7200 tcpfin 120 udp 300\n"
	"}\n"
	"$CHECK_PORT=8080\n"
	"virtual_server 192.0.2.10 80 {\n"
	"    delay_loop 10\n"
	"    lb_algo wrr\n"
	"    lb_kind TUN\n"
	"    protocol TCP\n"
	"    quorum 4\n"
	"    real_server 10.0.0.11 80 {\n"
	"        weight 2\n"
	"        uthreshold 1000\n"
	"        HTTP_GET {\n"
	"            url {\n"
	"                path /healthz\n"
	"                status_code 200 301-302\n"
	"                regex \"ready\"\n"
	"            }\n"
	"            connect_port $CHECK_PORT\n"
	"            connect_timeout 2\n"
	"            retry 2\n"
	"            delay_before_retry 1.5\n"
	"        }\n"
	"    }\n"
	"    real_server 10.0.0.12 80 {\n"
	"        weight 2\n"
	"        HTTP_GET {\n"
	"            url { path /healthz\n"
	"                  status_code 200 301-302\n"
	"                  regex \"ready\" }\n"
	"            connect_port ${CHECK_PORT}\n"
	"            connect_timeout 2\n"
	"            nb_get_retry 2\n"
	"            delay_before_retry 1.5\n"
	"        }\n"
	"    }\n"
	"}\n"
	"virtual_server 2001:db8::10 443\n"
	"{\n"
	"    lvs_method TUN type gre nocsum\n"
	"    persistence_timeout 600\n"
	"    virtualhost www.example.com\n"
	"    real_server 2001:db8:1::1 443 {\n"
	"        SSL_GET {\n"
	"            url { path / }\n"
	"            url { path /ready }\n"
	"        }\n"
	"        MISC_CHECK {\n"
	"            misc_path \"/usr/local/bin/check 'a b' --port=443\"\n"
	"            misc_timeout 4\n"
	"        }\n"
	"    }\n"
	"    real_server 2001:db8:1::2 {\n"
	"        TCP_CHECK { connect_timeout 3 }\n"
	"    }\n"
	"}\n"
	"virtual_server 192.0.2.53 53 {\n"
	"    protocol UDP\n"
	"    lb_kind TUN\n"
	"    lb_algo sh\n"
	"    delay_loop 5\n"
	"    real_server 10.0.0.21 53 {\n"
	"        DNS_CHECK {\n"
	"            type A\n"
	"            name example.com\n"
	"        }\n"
	"        UDP_CHECK {\n"
	"            payload 70696e67\n"
	"            require_reply 706f6e67\n"
	"            connect_port 5353\n"
	"        }\n"
	"    }\n"
	"}\n";

static const char full_yaml[] =
	"config:\n"
	"  timeout-tcp-est: 2h\n"
	"  timeout-tcp-fin: 2m\n"
	"  timeout-udp: 5m\n"
	"services:\n"
	"  # %1$s:6: virtual_server 192.0.2.10 80\n"
	"  - vip: 192.0.2.10\n"
	"    port: 80\n"
	"    quorum: { min: 2 }\n"
	"    checks:\n"
	"      - kind: http\n"
	"        via: direct\n"
	"        port: 8080\n"
	"        interval: 10s\n"
	"        timeout: 2s\n"
	"        fast-interval: 1500ms\n"
	"        rise: 1\n"
	"        fall: 3\n"
	"        path: /healthz\n"
	"        status: [200, \"301-302\"]\n"
	"        body: ready\n"
	"    backends:\n"
	"      # %1$s:12\n"
	"      - address: 10.0.0.11\n"
	"        weight: 2\n"
	"        max-conns: 1000\n"
	"      # %1$s:27\n"
	"      - address: 10.0.0.12\n"
	"        weight: 2\n"
	"  # %1$s:40: virtual_server 2001:db8::10 443\n"
	"  - vip: \"2001:db8::10\"\n"
	"    port: 443\n"
	"    hash: src-addr\n"
	"    backends:\n"
	"      # %1$s:45\n"
	"      - address: \"2001:db8:1::1\"\n"
	"        encap: gre\n"
	"        checks:\n"
	"          - kind: https\n"
	"            name: https-1\n"
	"            via: direct\n"
	"            interval: 1m\n"
	"            timeout: 5s\n"
	"            fast-interval: 3s\n"
	"            rise: 1\n"
	"            fall: 2\n"
	"            host: www.example.com\n"
	"            path: /\n"
	"            status: [\"200-299\"]\n"
	"          - kind: https\n"
	"            name: https-2\n"
	"            via: direct\n"
	"            interval: 1m\n"
	"            timeout: 5s\n"
	"            fast-interval: 3s\n"
	"            rise: 1\n"
	"            fall: 2\n"
	"            host: www.example.com\n"
	"            path: /ready\n"
	"            status: [\"200-299\"]\n"
	"          - kind: exec\n"
	"            interval: 1m\n"
	"            timeout: 4s\n"
	"            fast-interval: 1s\n"
	"            rise: 1\n"
	"            fall: 1\n"
	"            command: [/usr/local/bin/check, \"a b\", \"--port=443\"]\n"
	"      # %1$s:55\n"
	"      - address: \"2001:db8:1::2\"\n"
	"        encap: gre\n"
	"        checks:\n"
	"          - kind: tcp\n"
	"            via: direct\n"
	"            interval: 1m\n"
	"            timeout: 3s\n"
	"            fast-interval: 1s\n"
	"            rise: 1\n"
	"            fall: 2\n"
	"  # %1$s:59: virtual_server 192.0.2.53 53\n"
	"  - vip: 192.0.2.53\n"
	"    port: 53\n"
	"    proto: udp\n"
	"    hash: src-addr\n"
	"    checks:\n"
	"      - kind: dns\n"
	"        via: direct\n"
	"        interval: 5s\n"
	"        timeout: 5s\n"
	"        fast-interval: 5s\n"
	"        rise: 1\n"
	"        fall: 4\n"
	"        query: example.com\n"
	"        qtype: A\n"
	"      - kind: udp\n"
	"        via: direct\n"
	"        port: 5353\n"
	"        interval: 5s\n"
	"        timeout: 5s\n"
	"        fast-interval: 1s\n"
	"        rise: 1\n"
	"        fall: 2\n"
	"        send: ping\n"
	"        expect: pong\n"
	"    backends:\n"
	"      # %1$s:64\n"
	"      - address: 10.0.0.21\n";

static void test_full(void **state)
{
	char *want, *p = path_of("full.conf");
	struct run r;

	run_ka("full.conf", full_conf, &r);
	assert_int_equal(r.ret, 0);
	if (r.nlosses)
		fail_msg("losses:\n%s", r.diag);
	assert_int_equal(r.nsvc, 3);
	assert_true(asprintf(&want, full_yaml, p) > 0);
	if (strcmp(r.body, want))
		fail_msg("got:\n%s\nwant:\n%s", r.body, want);
	/*
	 * the notes: the schedulers and persistence once a service, the quorum, no alpha, no
	 * inhibit_on_failure once a service (at its first real server)
	 */
	assert_int_equal(r.nnotes, 10);
	assert_int_equal(count(r.diag, "no inhibit_on_failure"), 3);
	assert_has(r.diag, "full.conf:12: note: real_server 10.0.0.11 80: no inhibit_on_failure: keepalived takes a failed real server out of IPVS, which then drops the packets of its established connections");
	assert_has(r.diag, "full.conf:45: note: real_server 2001:db8:1::1 443: no inhibit_on_failure");
	assert_has(r.diag, "full.conf:64: note: real_server 10.0.0.21 53: no inhibit_on_failure");
	assert_has(r.diag, "no alpha: keepalived takes each real server in before its first check");
	assert_has(r.diag, "full.conf:8: note: virtual_server 192.0.2.10 80: Maglev consistent hashing replaces the scheduler wrr (the weights are kept)\n");
	assert_has(r.diag, "full.conf:11: note: quorum 4: quorum: { min: 2 }");
	assert_has(r.diag, "full.conf:43: note: virtual_server 2001:db8::10 443: persistence_timeout: hash: src-addr");
	assert_has(r.diag, "full.conf:62: note: virtual_server 192.0.2.53 53: Maglev consistent hashing replaces the scheduler sh (the weights are kept); hash: src-addr keeps a client address on one backend, as sh did\n");
	/* the header names the source */
	assert_has(r.yaml, p);
	free(want);
	free(p);
	run_free(&r);
}

/*
 * Each loss: a virtual server with its real server (%s: what goes in the real server's block,
 * or in the virtual server's with @in_vs), and what the message says, at which line.
 */
static void test_losses(void **state)
{
	static const struct {
		const char *vs, *rs;	/* lines in the virtual server, in its real server */
		const char *want;	/* "LINE: text" */
		unsigned int n;		/* losses in all */
	} cases[] = {
		{ "lb_kind NAT\n", "", "2: not mapped: lb_kind NAT: kmaglev does not translate addresses", 1 },
		{ "", "", "1: not mapped: virtual_server 192.0.2.1 80: no lb_kind: keepalived's default is NAT", 1 },
		{ "lb_kind DR\n", "", "", 0 },
		{ "lb_kind DR\n", "lb_kind TUN\n", "", 0 },
		{ "lb_kind TUN type gue port 6080\n", "", "2: not mapped: lb_kind TUN type gue port 6080: kmaglev tunnels are IPIP or GRE", 1 },
		{ "lb_kind TUN type gre csum\n", "", "2: not mapped: lb_kind TUN type gre csum: kmaglev tunnels are IPIP or GRE without checksum (encap ipip, encap gre): written as ipip", 1 },
		{ "lb_kind TUN\nprotocol SCTP\n", "", "1: not mapped: virtual_server 192.0.2.1 80: kmaglev balances TCP and UDP", 1 },
		{ "lb_kind TUN\npersistence_granularity 255.255.255.0\n", "", "3: not mapped: persistence_granularity 255.255.255.0", 1 },
		{ "lb_kind TUN\npersistence_granularity 255.255.255.255\n", "", "", 0 },
		{ "lb_kind TUN\npersistence_timeout 0\n", "", "", 0 },
		{ "lb_kind TUN\npersistence_engine sip\n", "", "3: not mapped: persistence_engine sip: kmaglev has no persistence engines", 1 },
		{ "lb_kind TUN\nsorry_server 10.9.9.9 80\n", "", "3: not mapped: sorry_server 10.9.9.9 80: kmaglev has no fallback server", 1 },
		{ "lb_kind TUN\nquorum_up /bin/up\n", "", "3: not mapped: quorum_up /bin/up: kmaglev runs no script", 1 },
		{ "lb_kind TUN\nhysteresis 1\n", "", "3: not mapped: hysteresis 1", 1 },
		{ "lb_kind TUN\nsmtp_alert\n", "", "3: not mapped: smtp_alert: kmaglev sends no mail", 1 },
		{ "lb_kind TUN\nsmtp_alert false\n", "", "", 0 },
		{ "lb_kind TUN\nsome_new_keyword 1\n", "", "3: not mapped: some_new_keyword 1: a keyword of virtual_server this import does not know", 1 },
		{ "lb_kind TUN\n", "notify_up /bin/x\n", "4: not mapped: notify_up /bin/x: kmaglev runs no script", 1 },
		{ "lb_kind TUN\n", "lthreshold 10\n", "4: not mapped: lthreshold 10", 1 },
		{ "lb_kind TUN\n", "weight 70000\n", "4: not mapped: weight 70000: kmaglev's weights are 0..65535", 1 },
		{ "lb_kind TUN\n", "weight x\n", "4: not mapped: weight x: not a number", 1 },
		{ "lb_kind TUN\n", "snmp_name a\n", "4: not mapped: snmp_name a: kmaglev has no SNMP", 1 },
		{ "lb_kind TUN\n", "PING_CHECK {\n}\n", "4: not mapped: PING_CHECK: kmaglev has no ICMP echo check", 1 },
		{ "lb_kind TUN\n", "FILE_CHECK {\ntrack_file f\n}\n", "4: not mapped: FILE_CHECK", 1 },
		{ "lb_kind TUN\n", "BFD_CHECK {\nname b\n}\n", "4: not mapped: BFD_CHECK: kmaglev has no BFD", 1 },
		{ "lb_kind TUN\n", "SMTP_CHECK {\nhelo_name x\nhost {\nconnect_ip 10.1.1.1\n}\n}\n", "6: not mapped: host: kmaglev checks the backend itself", 2 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\ndigest 0123\n}\n}\n", "7: not mapped: digest 0123: kmaglev matches a substring of the body (body:), not an MD5 digest", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\nregex \"a.*b\"\n}\n}\n", "7: not mapped: regex a.*b: kmaglev matches a substring", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath \"/a b\"\n}\n}\n", "6: not mapped: path /a b: path: a space (U+0020) at byte 3: kmaglev's path is UTF-8 text without spaces or control characters: no check written", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath a\n}\n}\n", "6: not mapped: path a: kmaglev's path starts with \"/\": no check written", 1 },
		/* text that is no strict UTF-8, or that YAML or the loader would refuse: a loss
		 * naming the field and the byte, never a file the loader refuses */
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /a\xc2\x85" "b\n}\n}\n", "6: not mapped: path /a\\xc2\\x85b: path: a control character (U+0085) at byte 3: ", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xc2\x9b\n}\n}\n", "6: not mapped: path /\\xc2\\x9b: path: a control character (U+009B) at byte 2", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\x7f\n}\n}\n", "6: not mapped: path /\\x7f: path: a control character (U+007F) at byte 2", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xed\xa0\x80\n}\n}\n", "6: not mapped: path /\\xed\\xa0\\x80: path: not UTF-8 at byte 2 (0xed: a UTF-16 surrogate, which UTF-8 must not encode)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xed\xbf\xbf\n}\n}\n", "6: not mapped: path /\\xed\\xbf\\xbf: path: not UTF-8 at byte 2 (0xed: a UTF-16 surrogate", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xc0\xaf\n}\n}\n", "6: not mapped: path /\\xc0\\xaf: path: not UTF-8 at byte 2 (0xc0: an overlong form)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /x\xe0\x80\xaf\n}\n}\n", "6: not mapped: path /x\\xe0\\x80\\xaf: path: not UTF-8 at byte 3 (0xe0: an overlong form)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xf0\x80\x80\xaf\n}\n}\n", "6: not mapped: path /\\xf0\\x80\\x80\\xaf: path: not UTF-8 at byte 2 (0xf0: an overlong form)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xff\n}\n}\n", "6: not mapped: path /\\xff: path: not UTF-8 at byte 2 (0xff: a byte that never appears in UTF-8)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\x80\n}\n}\n", "6: not mapped: path /\\x80: path: not UTF-8 at byte 2 (0x80: a continuation byte with no lead byte)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xe2\x82\n}\n}\n", "6: not mapped: path /\\xe2\\x82: path: not UTF-8 at byte 2 (0xe2: a sequence cut short)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xf4\x90\x80\x80\n}\n}\n", "6: not mapped: path /\\xf4\\x90\\x80\\x80: path: not UTF-8 at byte 2 (0xf4: past U+10FFFF)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xef\xbf\xbe\n}\n}\n", "6: not mapped: path /\\xef\\xbf\\xbe: path: a noncharacter (U+FFFE) at byte 2", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\xe2\x80\xa8\n}\n}\n", "6: not mapped: path /\\xe2\\x80\\xa8: path: a line or paragraph separator (U+2028) at byte 2", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\nregex ok\xe0\x80\xaf\n}\n}\n", "7: not mapped: regex ok\\xe0\\x80\\xaf: regex: not UTF-8 at byte 3 (0xe0: an overlong form): no text the check can look for", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\nregex \"\xc2\x80\"\n}\n}\n", "7: not mapped: regex \\xc2\\x80: regex: a control character (U+0080) at byte 1", 1 },
		{ "lb_kind TUN\n", "MISC_CHECK {\nmisc_path \"/bin/c a\x80\"\n}\n", "5: not mapped: misc_path /bin/c a\\x80: misc_path: word 2 of the command: not UTF-8 at byte 2 (0x80: a continuation byte with no lead byte): kmaglev's command words are UTF-8 text", 1 },
		{ "lb_kind TUN\n", "MISC_CHECK {\nmisc_path \"/bin/c x \\xc2\\x9b\"\n}\n", "5: not mapped: misc_path /bin/c x \\x5cxc2\\x5cx9b: misc_path: word 3 of the command: a control character (U+009B) at byte 1", 1 },
		{ "lb_kind TUN\n", "MISC_CHECK {\nmisc_path \"/bin/c \\xed\\xa0\\x80\"\n}\n", "5: not mapped: misc_path /bin/c \\x5cxed\\x5cxa0\\x5cx80: misc_path: word 2 of the command: not UTF-8 at byte 1 (0xed: a UTF-16 surrogate", 1 },
		{ "lb_kind TUN\n", "DNS_CHECK {\nname a\xed\xbf\xbf\n}\n", "5: not mapped: name a\\xed\\xbf\\xbf: name: not UTF-8 at byte 2 (0xed: a UTF-16 surrogate", 1 },
		{ "lb_kind TUN\n", "DNS_CHECK {\nname \"a b\"\n}\n", "5: not mapped: name a b: name: a space (U+0020) at byte 2", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply\npayload c285\n}\n", "6: not mapped: payload c285: payload: a control character (U+0085) at byte 1: kmaglev sends text", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply\npayload f4908080\n}\n", "6: not mapped: payload f4908080: payload: not UTF-8 at byte 1 (0xf4: past U+10FFFF)", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply\npayload 61 00 62\n}\n", "6: not mapped: payload 61 00 62: payload: a NUL byte (00) at byte 2", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply eda080\n}\n", "5: not mapped: require_reply eda080: require_reply: not UTF-8 at byte 1 (0xed: a UTF-16 surrogate", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply c0af\n}\n", "5: not mapped: require_reply c0af: require_reply: not UTF-8 at byte 1 (0xc0: an overlong form)", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\nstatus_code 700\n}\n}\n", "7: not mapped: status_code 700: a code or range outside 100..599", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\n}\nconnect_ip 10.1.1.1\n}\n", "8: not mapped: connect_ip 10.1.1.1: kmaglev's checks go to the backend's own address", 1 },
		{ "lb_kind TUN\n", "HTTP_GET {\nurl {\npath /\n}\nconnect_ip 10.0.0.1\n}\n", "", 0 },
		{ "lb_kind TUN\n", "TCP_CHECK {\nbindto 10.1.1.1\n}\n", "5: not mapped: bindto 10.1.1.1", 1 },
		{ "lb_kind TUN\n", "TCP_CHECK {\nfwmark 3\n}\n", "5: not mapped: fwmark 3: kmaglev marks only its tunnel checks", 1 },
		{ "lb_kind TUN\n", "MISC_CHECK {\nmisc_path \"check.sh arg\"\n}\n", "5: not mapped: misc_path check.sh arg: kmaglev runs a program by its absolute path", 1 },
		{ "lb_kind TUN\n", "MISC_CHECK {\nmisc_path /bin/c\nmisc_dynamic\n}\n", "6: not mapped: misc_dynamic: keepalived takes the weight from the exit status", 1 },
		{ "lb_kind TUN\n", "MISC_CHECK {\nmisc_path /bin/c\nuser nobody\n}\n", "6: not mapped: user nobody: kmaglev runs the command as the daemon's own user", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\n}\n", "4: not mapped: UDP_CHECK: without require_reply keepalived passes a server unless an ICMP error comes back", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply\npayload 00ff\n}\n", "6: not mapped: payload 00ff: payload: a NUL byte (00) at byte 1: kmaglev sends text", 1 },
		{ "lb_kind TUN\n", "UDP_CHECK {\nrequire_reply 6fXX\n}\n", "5: not mapped: require_reply 6fXX: require_reply: not hex digits: kmaglev looks for a text in the reply", 1 },
		{ "lb_kind TUN\n", "DNS_CHECK {\ntype HINFO\n}\n", "5: not mapped: type HINFO: not a type keepalived knows", 1 },
		{ "lb_kind TUN\n", "DNS_CHECK {\ntype aaaa\n}\n", "", 0 },
		{ "lb_kind TUN\n", "TCP_CHECK {\ndelay_loop 7200\n}\n", "5: not mapped: delay_loop 7200: delay_loop 2h is outside kmaglev's interval range (100ms..1h): written as interval: 1h", 1 },
		/* the virtual server's, for two checks of two servers: once */
		{ "lb_kind TUN\ndelay_loop 7200\n", "TCP_CHECK {\n}\n}\nreal_server 10.0.0.2 80 {\nTCP_CHECK {\n}\nHTTP_GET {\nurl {\npath /\n}\n}\n", "3: not mapped: delay_loop 7200: delay_loop 2h is outside kmaglev's interval range (100ms..1h): written as interval: 1h", 1 },
		{ "lb_kind TUN\n", "TCP_CHECK {\ndelay_loop 0.05\n}\n", "5: not mapped: delay_loop 0.05: delay_loop 50ms is outside kmaglev's interval range (100ms..1h): written as interval: 100ms", 1 },
	};
	char text[1024], want[256];
	unsigned int i;
	struct run r;

	for (i = 0; i < KMG_ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text),
			 "virtual_server 192.0.2.1 80 {\n%sreal_server 10.0.0.1 80 {\n%s}\n}\n",
			 cases[i].vs, cases[i].rs);
		run_ka("loss.conf", text, &r);
		assert_int_equal(r.ret, 0);
		snprintf(want, sizeof(want), "loss.conf:%s", cases[i].want);
		if (r.nlosses != cases[i].n || (cases[i].n && !strstr(r.diag, want)))
			fail_msg("case %u: %u losses (want %u, with \"%s\"):\n%s\n%s", i, r.nlosses,
				 cases[i].n, want, text, r.diag);
		/* the losses are in the file's header too */
		if (cases[i].n)
			assert_has(r.yaml, "# Not mapped (");
		run_free(&r);
	}
}

/* What is not a virtual server: each a loss, one line each. */
static void test_top_level(void **state)
{
	struct run r;

	run_ka("top.conf",
	       "global_defs {\n"
	       "  router_id lb1\n"
	       "  lvs_sync_daemon eth0 VI_1\n"
	       "  lvs_timeouts tcp 60 bogus 3\n"
	       "}\n"
	       "vrrp_instance VI_1 {\n"
	       "  state MASTER\n"
	       "  virtual_ipaddress {\n"
	       "    192.0.2.1\n"
	       "  }\n"
	       "}\n"
	       "vrrp_sync_group G { group { VI_1 } }\n"
	       "vrrp_script chk { script /bin/true }\n"
	       "static_routes {\n"
	       "  10.0.0.0/8 via 192.0.2.254\n"
	       "}\n"
	       "SSL {\n"
	       "  ca /etc/ca.pem\n"
	       "}\n"
	       "virtual_server fwmark 5 {\n"
	       "  real_server 10.0.0.1 { weight 1 }\n"
	       "}\n"
	       "mystery\n",
	       &r);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.nsvc, 0);
	assert_has(r.diag, "top.conf:2: not mapped: router_id lb1: keepalived's own setting (global_defs)");
	assert_has(r.diag, "top.conf:3: not mapped: lvs_sync_daemon eth0 VI_1: kmaglev has no connection sync");
	assert_has(r.diag, "top.conf:4: not mapped: lvs_timeouts tcp 60 bogus 3: only \"tcp N\"");
	assert_has(r.diag, "top.conf:6: not mapped: vrrp_instance VI_1: VRRP moves VIPs between hosts; kmaglev announces them");
	assert_has(r.diag, "top.conf:12: not mapped: vrrp_sync_group G: VRRP");
	assert_has(r.diag, "top.conf:13: not mapped: vrrp_script chk: VRRP");
	assert_has(r.diag, "top.conf:14: not mapped: static_routes: the host's own network configuration");
	assert_has(r.diag, "top.conf:17: not mapped: SSL: SSL_GET's client certificate");
	assert_has(r.diag, "top.conf:20: not mapped: virtual_server fwmark 5: kmaglev has no firewall-mark services");
	assert_has(r.diag, "top.conf:23: not mapped: mystery: a keyword of the file this import does not know");
	assert_int_equal(r.nlosses, 10);
	/* lvs_timeouts' tcp still maps */
	assert_has(r.body, "config:\n  timeout-tcp-est: 1m\n");
	run_free(&r);
}

static void test_ports(void **state)
{
	struct run r;

	/* a real server on another port: a loss; the checks keep its port */
	run_ka("ports.conf",
	       "virtual_server 192.0.2.1 80 {\n"
	       "  lb_kind TUN\n"
	       "  real_server 10.0.0.1 8080 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.2 {\n"
	       "    TCP_CHECK {\n"
	       "      connect_port 81\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.2 80 {\n"
	       "  }\n"
	       "}\n"
	       "virtual_server 192.0.2.1 80 {\n"
	       "  lb_kind TUN\n"
	       "}\n"
	       "virtual_server 192.0.2.2 {\n"
	       "  lb_kind TUN\n"
	       "  persistence_timeout\n"
	       "  real_server 10.0.0.3 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "    MISC_CHECK {\n"
	       "      misc_path /bin/true\n"
	       "    }\n"
	       "  }\n"
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	assert_has(r.diag, "ports.conf:3: not mapped: real_server 10.0.0.1 8080: the port is not the service's (80): kmaglev sends clients' packets to the backend unchanged, to port 80 (no port translation); its checks keep the server's port\n");
	assert_has(r.diag, "ports.conf:12: not mapped: backend 10.0.0.2 of virtual_server 192.0.2.1 80 is there already (");
	assert_has(r.diag, "ports.conf:15: not mapped: virtual_server 192.0.2.1 80: the service 192.0.2.1 port 80/tcp is ");
	assert_has(r.diag, "ports.conf:21: not mapped: a tcp check of a service of every port (0) needs a port (connect_port): left out");
	assert_int_equal(r.nlosses, 4);
	assert_has(r.body, "      - address: 10.0.0.1\n"
			   "        checks:\n"
			   "          - kind: tcp\n"
			   "            via: direct\n"
			   "            port: 8080\n");
	assert_has(r.body, "      - address: 10.0.0.2\n"
			   "        checks:\n"
			   "          - kind: tcp\n"
			   "            via: direct\n"
			   "            port: 81\n");
	run_free(&r);

	/* addresses the daemon refuses, as a backend and as a group's VIPs */
	run_ka("addr.conf",
	       "virtual_server_group G {\n"
	       "  0.255.255.255-1.0.0.0 80\n"
	       "}\n"
	       "virtual_server group G {\n"
	       "  lb_kind TUN\n"
	       "  real_server 255.255.255.255 80 {\n"
	       "  }\n"
	       "  real_server ::ffff:10.0.0.1 80 {\n"
	       "  }\n"
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	assert_has(r.diag, "addr.conf:6: not mapped: real_server 255.255.255.255 80: kmaglev takes no such address (invalid address \"255.255.255.255\": broadcast address): left out");
	assert_has(r.diag, "addr.conf:8: not mapped: real_server ::ffff:10.0.0.1 80: kmaglev takes no such address (invalid address \"::ffff:10.0.0.1\": IPv4-mapped IPv6 address; use the IPv4 form 10.0.0.1): left out");
	assert_has(r.diag, "addr.conf:4: not mapped: virtual_server group G: 0.255.255.255 80 (");
	assert_int_equal(r.nlosses, 3);
	assert_int_equal(r.nsvc, 1);
	assert_has(r.body, "  - vip: 1.0.0.0\n");
	run_free(&r);
	run_ka("ports2.conf", "virtual_server 192.0.2.2 {\n  lb_kind TUN\n  persistence_timeout\n"
	       "  real_server 10.0.0.3 {\n    TCP_CHECK {\n    }\n    MISC_CHECK {\n"
	       "      misc_path /bin/true\n    }\n  }\n}\n", &r);
	/* the service of every port: the exec check goes, its port does not matter */
	assert_has(r.body, "  - vip: 192.0.2.2\n"
			   "    port: 0\n"
			   "    hash: src-addr\n"
			   "    checks:\n"
			   "      - kind: exec\n");
	run_free(&r);
}

static void test_groups(void **state)
{
	struct run r;

	run_ka("group.conf",
	       "virtual_server_group G {\n"
	       "  192.0.2.1-3 80\n"
	       "  192.0.2.8/30 443\n"
	       "  2001:db8::a-c 80\n"
	       "  198.51.100.1-198.51.100.2\n"
	       "  fwmark 7\n"
	       "  10.0.0.0/16 80\n"
	       "  bad-address 80\n"
	       "}\n"
	       "virtual_server_group unused {\n"
	       "  192.0.2.99 80\n"
	       "}\n"
	       "virtual_server group G {\n"
	       "  lb_kind TUN\n"
	       "  real_server 10.0.0.1 {\n"
	       "    weight 3\n"
	       "  }\n"
	       "}\n"
	       "virtual_server group missing {\n"
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	/* 3 + 4 + 3 + 2 */
	assert_int_equal(r.nsvc, 12);
	assert_has(r.body, "group.conf:13: virtual_server group G: 192.0.2.1 80 (");
	assert_has(r.body, "  - vip: 192.0.2.3\n    port: 80\n");
	assert_has(r.body, "  - vip: 192.0.2.8\n    port: 443\n");
	assert_has(r.body, "  - vip: 192.0.2.11\n    port: 443\n");
	assert_has(r.body, "  - vip: \"2001:db8::c\"\n    port: 80\n");
	assert_has(r.body, "  - vip: 198.51.100.2\n    port: 0\n");
	assert_int_equal(count(r.body, "weight: 3"), 12);
	assert_has(r.diag, "group.conf:6: not mapped: fwmark 7: kmaglev has no firewall-mark services");
	assert_has(r.diag, "group.conf:7: not mapped: 10.0.0.0/16 80: more than 256 addresses");
	assert_has(r.diag, "group.conf:8: not mapped: bad-address 80: not an address or range");
	assert_has(r.diag, "group.conf:19: not mapped: virtual_server group missing: no virtual_server_group of that name");
	assert_has(r.diag, "group.conf:10: note: virtual_server_group unused: no virtual_server uses it");
	assert_int_equal(r.nlosses, 4);
	run_free(&r);
}

/* Checks every backend shares go under the service; otherwise each backend keeps its own. */
static void test_shared_checks(void **state)
{
	struct run r;

	run_ka("shared.conf",
	       "virtual_server 192.0.2.1 80 {\n"
	       "  lb_kind TUN\n"
	       "  real_server 10.0.0.1 80 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.2 80 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "}\n"
	       "virtual_server 192.0.2.2 80 {\n"
	       "  lb_kind TUN\n"
	       "  real_server 10.0.0.1 80 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.2 80 {\n"
	       "  }\n"
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.nlosses, 0);
	assert_has(r.body, "    port: 80\n"
			   "    checks:\n"
			   "      - kind: tcp\n");
	/* the second: one with, one without (always up) */
	assert_has(r.body, "  - vip: 192.0.2.2\n"
			   "    port: 80\n"
			   "    backends:\n"
			   "      # ");
	assert_int_equal(count(r.body, "checks:"), 2);
	run_free(&r);
}

/*
 * Debian's samples: each converts (with --accept-losses) to a file the daemon loads, or is
 * refused with the FILE:LINE of what cannot be read. Without --accept-losses, every one of
 * them has something not mapped (they all use NAT, VRRP or global_defs).
 */
static void test_samples(void **state)
{
	struct dirent **ents;
	unsigned int conv = 0, refused = 0;
	int n, i;

	n = scandir(SAMPLES, &ents, NULL, alphasort);
	if (n < 0) {
		print_message("# %s: not here (apt-get install keepalived): skipped\n", SAMPLES);
		skip();
	}
	for (i = 0; i < n; i++) {
		char *p = NULL;
		struct run r;

		if (strncmp(ents[i]->d_name, "keepalived.conf", 15)) {
			free(ents[i]);
			continue;
		}
		assert_true(asprintf(&p, "%s/%s", SAMPLES, ents[i]->d_name) > 0);
		run_path(p, &r);
		if (r.ret) {
			/* refused: where and why */
			if (!strstr(kmg_errmsg(), p))
				fail_msg("%s refused without its name: %s", p, kmg_errmsg());
			print_message("# %s: refused: %s\n", ents[i]->d_name, kmg_errmsg());
			refused++;
		} else {
			assert_non_null(r.yaml);
			if (!r.nlosses)
				fail_msg("%s: no loss?\n%s", p, r.diag);
			print_message("# %s: %u services, %u not mapped, %u notes\n",
				      ents[i]->d_name, r.nsvc, r.nlosses, r.nnotes);
			conv++;
		}
		run_free(&r);
		free(p);
		free(ents[i]);
	}
	free(ents);
	assert_true(conv >= 20);
	print_message("# keepalived samples: %u converted, %u refused\n", conv, refused);
}

/* --- ipvsadm -------------------------------------------------------------------------- */

static const char clean_yaml[] =
	"services:\n"
	"  # %1$s:1: -A -t 192.0.2.10:80 -s rr\n"
	"  - vip: 192.0.2.10\n"
	"    port: 80\n"
	"    backends:\n"
	"      # %1$s:2\n"
	"      - address: 10.0.0.11\n"
	"      # %1$s:3\n"
	"      - address: 10.0.0.12\n"
	"        weight: 2\n"
	"      # %1$s:4\n"
	"      - address: 10.0.0.13\n"
	"        weight: 3\n"
	"  # %1$s:5: -A -t 192.0.2.11:443 -s wlc -p 300\n"
	"  - vip: 192.0.2.11\n"
	"    port: 443\n"
	"    hash: src-addr\n"
	"    backends:\n"
	"      # %1$s:6\n"
	"      - address: 10.0.0.21\n"
	"        weight: 100\n"
	"      # %1$s:7\n"
	"      - address: 10.0.0.22\n"
	"        weight: 100\n"
	"        encap: gre\n"
	"  # %1$s:8: -A -t 192.0.2.12:0 -s rr -p 600\n"
	"  - vip: 192.0.2.12\n"
	"    port: 0\n"
	"    hash: src-addr\n"
	"    backends:\n"
	"      # %1$s:9\n"
	"      - address: 10.0.0.41\n"
	"  # %1$s:10: -A -u 192.0.2.10:53 -s mh -b mh-port\n"
	"  - vip: 192.0.2.10\n"
	"    port: 53\n"
	"    proto: udp\n"
	"    backends:\n"
	"      # %1$s:11\n"
	"      - address: 10.0.0.11\n"
	"      # %1$s:12\n"
	"      - address: 10.0.0.12\n"
	"        weight: 0\n"
	"  # %1$s:13: -A -t [2001:db8::10]:443 -s sh\n"
	"  - vip: \"2001:db8::10\"\n"
	"    port: 443\n"
	"    hash: src-addr\n"
	"    backends:\n"
	"      # %1$s:14\n"
	"      - address: 10.0.0.31\n"
	"        weight: 5\n"
	"      # %1$s:15\n"
	"      - address: \"2001:db8:1::1\"\n"
	"        weight: 5\n";

static void test_ipvsadm_clean(void **state)
{
	const char *p = IPVSADM_DIR "/clean.save";
	FILE *in = fopen(p, "r");
	char *want;
	struct run r;

	assert_non_null(in);
	run_ipvs(in, p, &r);
	fclose(in);
	assert_int_equal(r.ret, 0);
	if (r.nlosses)
		fail_msg("losses:\n%s", r.diag);
	assert_true(asprintf(&want, clean_yaml, p) > 0);
	if (strcmp(r.body, want))
		fail_msg("got:\n%s\nwant:\n%s", r.body, want);
	/* one note a service (its scheduler), and one for the missing checks */
	assert_int_equal(r.nnotes, 6);
	assert_has(r.diag, "clean.save:13: note: -A -t [2001:db8::10]:443 -s sh: Maglev consistent hashing replaces the scheduler sh (the weights are kept); hash: src-addr keeps a client address on one backend, as sh did\n");
	assert_has(r.diag, "clean.save: note: ipvsadm has no health checks");
	assert_has(r.yaml, "# ipvsadm has no health checks");
	free(want);
	run_free(&r);
}

/* lb_kind DR maps to encap: dr, with a note; a real server's own TUN overrides it */
static void test_dr(void **state)
{
	static const char conf[] =
		"virtual_server 192.0.2.1 80 {\n"
		"  lb_kind DR\n"
		"  real_server 10.0.0.1 80 {\n"
		"  }\n"
		"  real_server 10.0.0.2 80 {\n"
		"    lb_kind TUN type gre\n"
		"  }\n"
		"}\n";
	struct run r;

	(void)state;
	run_ka("dr.conf", conf, &r);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.nlosses, 0);
	assert_has(r.diag, "dr.conf:2: note: lb_kind DR: written as encap: dr");
	assert_has(r.yaml, "      - address: 10.0.0.1\n        encap: dr\n");
	assert_has(r.yaml, "      - address: 10.0.0.2\n        encap: gre\n");
	run_free(&r);
}

static void test_ipvsadm_all(void **state)
{
	FILE *in = fopen(IPVSADM_DIR "/all.save", "r");
	struct run r;

	assert_non_null(in);
	run_ipvs(in, "all.save", &r);
	fclose(in);
	assert_int_equal(r.ret, 0);
	assert_has(r.diag, "all.save:11: note: -a -t 192.0.2.20:80 -r 10.0.1.1:80 -g -w 1: written as encap: dr (direct routing, as IPVS's)");
	/* -g maps: the backend is written with encap: dr */
	assert_has(r.yaml, "      - address: 10.0.1.1\n        encap: dr\n");
	assert_has(r.diag, "all.save:12: not mapped: -a -t 192.0.2.20:80 -r 10.0.1.2:8080 -m -w 1: -m: kmaglev does not translate addresses");
	assert_has(r.diag, "all.save:12: not mapped: -a -t 192.0.2.20:80 -r 10.0.1.2:8080 -m -w 1: port 8080 is not the service's (80)");
	assert_has(r.diag, "all.save:14: not mapped: -a -t 192.0.2.20:80 -r 10.0.1.4:80 -i -w 1 --tun-type gue --tun-port 6080 --tun-nocsum: kmaglev tunnels are IPIP or GRE");
	assert_has(r.diag, "all.save:15: not mapped: -A -t 192.0.2.21:80 -s dh -p 120 -M 255.255.255.0: -M:");
	assert_has(r.diag, "all.save:20: not mapped: -A -u 192.0.2.22:5060 -s sed -p 30 --pe sip -o: --pe:");
	assert_has(r.diag, "all.save:20: note: -A -u 192.0.2.22:5060 -s sed -p 30 --pe sip -o: -o:");
	assert_has(r.diag, "all.save:22: not mapped: -A --sctp-service 192.0.2.23:36412 -s rr: kmaglev balances TCP and UDP");
	assert_has(r.diag, "all.save:27: not mapped: -A -t [2001:db8::20]:80 -s sh -p 300 -M 64 -b sh-fallback,sh-port: -M:");
	assert_has(r.diag, "all.save:28: note: -a -t [2001:db8::20]:80 -r [2001:db8:1::7]:80 -g -w 1: written as encap: dr");
	assert_has(r.diag, "all.save:29: not mapped: -A -f 1 -s rr: kmaglev has no firewall-mark services");
	assert_has(r.diag, "all.save:31: not mapped: -A -f 2 -6 -s lc -p 60: kmaglev has no firewall-mark services");
	/* the -a lines of services left out say nothing more */
	assert_lacks(r.diag, "all.save:23:");
	assert_lacks(r.diag, "all.save:30:");
	assert_lacks(r.diag, "all.save:32:");
	assert_int_equal(r.nlosses, 9);
	/* what maps still does: 9 services, the NAT server as ipip, the DR ones as dr */
	assert_int_equal(r.nsvc, 9);
	assert_has(r.body, "      - address: 10.0.1.2\n");
	run_free(&r);
}

static void test_ipvsadm_lines(void **state)
{
	static const struct {
		const char *text, *err;		/* err: the refusal, or NULL */
		const char *loss;		/* else a loss, or NULL */
	} cases[] = {
		{ "-A -t www.example.com:http -s rr\n", "t.save:1: -t needs ADDR:PORT ([ADDR]:PORT for IPv6), in numbers", NULL },
		{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r backend1:http -i\n", "t.save:2: -r \"backend1:http\": not ADDR[:PORT] in numbers", NULL },
		{ "-A -t 192.0.2.1:80 -s rr --frobnicate\n", "t.save:1: \"--frobnicate\": not an option of -A", NULL },
		{ "-E -t 192.0.2.1:80 -s rr\n", "t.save:1: \"-E\": not a command of ipvsadm-save's output", NULL },
		{ "-A -s rr\n", "t.save:1: -A without a service", NULL },
		{ "-a -t 192.0.2.1:80 -r 10.0.0.1:80 -i -w 1\n", NULL, "t.save:1: not mapped: -a -t 192.0.2.1:80 -r 10.0.0.1:80 -i -w 1: no -A line before it" },
		{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1 -i -w 70000\n", NULL, "t.save:2: not mapped: -a -t 192.0.2.1:80 -r 10.0.0.1 -i -w 70000: -w:" },
		{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 10.0.0.1 -i -x 10 -y 5\n", NULL, "t.save:2: not mapped: -a -t 192.0.2.1:80 -r 10.0.0.1 -i -x 10 -y 5: -y:" },
		{ "-A -t 192.0.2.1:80 -s rr\n-A -t 192.0.2.1:80 -s wrr\n-a -t 192.0.2.1:80 -r 10.0.0.9 -i\n", NULL, "t.save:2: not mapped: -A -t 192.0.2.1:80 -s wrr: the service 192.0.2.1 port 80/tcp is t.save:1's already" },
		{ "--set 7200 120 700000\n", NULL, "t.save:1: not mapped: --set 7200 120 700000: kmaglev's connection timeouts are at most 168h" },
		{ "-A -t 192.0.2.1:80 -s rr\n-a -t 192.0.2.1:80 -r 0.0.0.12:80 -i\n", NULL, "t.save:2: not mapped: -a -t 192.0.2.1:80 -r 0.0.0.12:80 -i: kmaglev takes no such address (invalid address \"0.0.0.12\": address in 0.0.0.0/8): left out" },
		{ "-A -u 239.1.1.1:53 -s rr\n-a -u 239.1.1.1:53 -r 10.0.0.1:53 -i\n", NULL, "t.save:1: not mapped: -A -u 239.1.1.1:53 -s rr: kmaglev takes no such address (invalid address \"239.1.1.1\": multicast address): left out" },
		{ "# a comment\n\n-C\n--add-service --tcp-service [2001:db8::1]:80 --scheduler rr --persistent 60\n"
		  "--add-server --tcp-service [2001:db8::1]:80 --real-server [2001:db8::2]:80 --ipip --weight 4 --u-threshold 9\n",
		  NULL, NULL },
	};
	unsigned int i;
	struct run r;

	for (i = 0; i < KMG_ARRAY_SIZE(cases); i++) {
		run_ipvs_text(cases[i].text, &r);
		if (cases[i].err) {
			assert_int_equal(r.ret, KMG_EFAIL);
			if (!strstr(kmg_errmsg(), cases[i].err))
				fail_msg("case %u: \"%s\" has no \"%s\"", i, kmg_errmsg(), cases[i].err);
		} else {
			assert_int_equal(r.ret, 0);
			if (cases[i].loss && !strstr(r.diag, cases[i].loss))
				fail_msg("case %u: no \"%s\" in:\n%s", i, cases[i].loss, r.diag);
			if (!cases[i].loss && r.nlosses)
				fail_msg("case %u: losses:\n%s", i, r.diag);
		}
		if (i == KMG_ARRAY_SIZE(cases) - 1) {
			assert_has(r.body, "  - vip: \"2001:db8::1\"\n"
					   "    port: 80\n"
					   "    hash: src-addr\n"
					   "    backends:\n");
			assert_has(r.body, "      - address: \"2001:db8::2\"\n"
					   "        weight: 4\n"
					   "        max-conns: 9\n");
		}
		if (i == 8)	/* the -a after a second -A goes to the service made */
			assert_has(r.body, "      - address: 10.0.0.9\n");
		if (i == 9)
			assert_has(r.body, "config:\n  timeout-tcp-est: 2h\n  timeout-tcp-fin: 2m\n  timeout-udp: 168h\n");
		run_free(&r);
	}
}

/* --- the command ---------------------------------------------------------------------- */

/* kmaglev import ... with stdout in a buffer and stderr in another. */
static int cmd(const char *line, char **out, char **err)
{
	struct kmg_ctx ctx = { 0 };
	size_t olen = 0;
	struct targv t = targv(line);
	char *errp = path_of("stderr.txt");
	int saved, fd, ret;
	FILE *f;

	ctx.out = open_memstream(out, &olen);
	assert_non_null(ctx.out);
	fflush(stderr);
	saved = dup(2);
	fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	kmg_err_clear();
	ret = kmg_run(&ctx, t.argc, t.argv);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(ctx.out);
	f = fopen(errp, "r");
	assert_non_null(f);
	*err = NULL;
	olen = 0;
	if (getdelim(err, &olen, '\0', f) < 0) {
		free(*err);
		*err = strdup("");
	}
	fclose(f);
	free(errp);
	targv_free(&t);
	return ret;
}

static void test_command(void **state)
{
	char *p = path_of("cmd.conf"), line[256], *out, *err;

	put("cmd.conf",
	    "virtual_server 192.0.2.1 80 {\n"
	    "  lb_kind NAT\n"
	    "  real_server 10.0.0.1 80 {\n"
	    "  }\n"
	    "}\n");
	/* a loss: listed, nothing written, status 1 */
	snprintf(line, sizeof(line), "import keepalived %s", p);
	assert_int_equal(cmd(line, &out, &err), KMG_EFAIL);
	assert_string_equal(out, "");
	assert_has(err, "cmd.conf:2: not mapped: lb_kind NAT");
	assert_has(kmg_errmsg(), "1 setting of ");
	assert_has(kmg_errmsg(), "is not mapped (above): nothing written; --accept-losses writes the configuration without it");
	free(out);
	free(err);
	/* accepted: written, with the loss in its header, status 0 */
	snprintf(line, sizeof(line), "import k --accept-losses %s", p);
	assert_int_equal(cmd(line, &out, &err), 0);
	assert_has(out, "# Not mapped (1, accepted with --accept-losses):\n#   ");
	assert_has(out, "  - vip: 192.0.2.1\n");
	assert_has(err, "cmd.conf:2: not mapped: lb_kind NAT");
	free(out);
	free(err);
	/* ipvsadm from a file, and from standard input ("-") */
	assert_int_equal(cmd("import ipvsadm " IPVSADM_DIR "/clean.save", &out, &err), 0);
	assert_has(out, "  - vip: \"2001:db8::10\"\n");
	free(out);
	free(err);
	assert_non_null(freopen(IPVSADM_DIR "/clean.save", "r", stdin));
	assert_int_equal(cmd("import ipvsadm -", &out, &err), 0);
	assert_has(out, "  # <stdin>:13: -A -t [2001:db8::10]:443 -s sh\n");
	free(out);
	free(err);
	assert_non_null(freopen("/dev/null", "r", stdin));
	/* usage */
	assert_int_equal(cmd("import", &out, &err), KMG_EUSAGE);
	assert_has(kmg_errmsg(), "which format? keepalived or ipvsadm");
	free(out);
	free(err);
	assert_int_equal(cmd("import haproxy x", &out, &err), KMG_EUSAGE);
	free(out);
	free(err);
	assert_int_equal(cmd("import keepalived", &out, &err), KMG_EUSAGE);
	assert_has(kmg_errmsg(), "give the FILE");
	free(out);
	free(err);
	assert_int_equal(cmd("import keepalived --accept-loss x", &out, &err), KMG_EUSAGE);
	assert_has(kmg_errmsg(), "unknown option \"--accept-loss\"");
	free(out);
	free(err);
	assert_int_equal(cmd("import ipvsadm a b", &out, &err), KMG_EUSAGE);
	free(out);
	free(err);
	assert_int_equal(cmd("import ipvsadm /nonexistent/rules", &out, &err), KMG_EFAIL);
	assert_has(kmg_errmsg(), "cannot read /nonexistent/rules");
	free(out);
	free(err);
	assert_int_equal(cmd("import help", &out, &err), 0);
	assert_has(out, "Usage: kmaglev import keepalived [--accept-losses] FILE\n");
	free(out);
	free(err);
	free(p);
}

/*
 * Where kmaglev's ranges change a keepalived timing value: a note at the line that gave it,
 * with the value before and after, once per virtual server for the same line; the file has
 * the new values.
 */
static void test_timing_notes(void **state)
{
	struct run r;

	run_ka("timing.conf",
	       "virtual_server 192.0.2.1 80 {\n"		/* 1 */
	       "  lb_kind TUN\n"
	       "  delay_loop 2\n"
	       "  connect_timeout 3\n"
	       "  real_server 10.0.0.1 80 {\n"		/* 5 */
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.2 80 {\n"
	       "    TCP_CHECK {\n"				/* 10 */
	       "      connect_timeout 0.005\n"
	       "      delay_before_retry 0.05\n"
	       "      retry 1000\n"
	       "    }\n"
	       "    HTTP_GET {\n"				/* 15 */
	       "      url {\n"
	       "        path /\n"
	       "      }\n"
	       "    }\n"
	       "  }\n"					/* 20 */
	       "  real_server 10.0.0.3 80 {\n"
	       "    MISC_CHECK {\n"
	       "      misc_path /bin/true\n"
	       "      misc_timeout 9\n"
	       "    }\n"					/* 25 */
	       "    TCP_CHECK {\n"
	       "      delay_before_retry 0.0015\n"
	       "      connect_timeout 1.0000\n"
	       "    }\n"
	       "  }\n"					/* 30 */
	       "}\n"
	       "virtual_server 192.0.2.2 80 {\n"
	       "  lb_kind TUN\n"
	       "  delay_loop 1\n"
	       "  real_server 10.0.0.1 80 {\n"		/* 35 */
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.2 80 {\n"
	       "    TCP_CHECK {\n"				/* 40 */
	       "    }\n"
	       "  }\n"
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	if (r.nlosses)
		fail_msg("losses:\n%s", r.diag);
	/* the virtual server's connect_timeout, inherited by two checks of two servers: once */
	assert_int_equal(count(r.diag, "timing.conf:4: note: connect_timeout 3: connect_timeout 3s is longer than delay_loop (2s), and kmaglev's timeout is at most the interval: written as timeout: 2s\n"), 1);
	assert_has(r.diag, "timing.conf:11: note: connect_timeout 0.005: connect_timeout 0.005s is below kmaglev's least timeout: written as timeout: 10ms\n");
	assert_has(r.diag, "timing.conf:12: note: delay_before_retry 0.05: delay_before_retry 0.05s is below kmaglev's least fast-interval: written as fast-interval: 100ms\n");
	assert_has(r.diag, "timing.conf:13: note: retry 1000: retry 1000 would be fall: 1001, above kmaglev's most (1000): written as fall: 1000\n");
	/* keepalived's own default, at the checker */
	assert_has(r.diag, "timing.conf:15: note: HTTP_GET: keepalived's default delay_before_retry (3s) is longer than delay_loop (2s), and kmaglev's fast-interval is at most the interval: written as fast-interval: 2s\n");
	assert_has(r.diag, "timing.conf:24: note: misc_timeout 9: misc_timeout 9s is longer than delay_loop (2s), and kmaglev's timeout is at most the interval: written as timeout: 2s\n");
	/* rounded to the millisecond, then raised to the least */
	assert_has(r.diag, "timing.conf:27: note: delay_before_retry 0.0015: kmaglev's durations are whole milliseconds: 0.0015s is written as 2ms\n");
	assert_has(r.diag, "timing.conf:27: note: delay_before_retry 0.0015: delay_before_retry 0.0015s is below kmaglev's least fast-interval: written as fast-interval: 100ms\n");
	/* trailing zeros lose nothing */
	assert_lacks(r.diag, "timing.conf:28:");
	assert_has(r.diag, "timing.conf:36: note: TCP_CHECK: keepalived's default connect_timeout (5s) is longer than delay_loop (1s), and kmaglev's timeout is at most the interval: written as timeout: 1s\n");
	/* a default's note once a virtual server, not once a checker */
	assert_int_equal(count(r.diag, "keepalived's default connect_timeout (5s)"), 1);
	/* what the file has: 10.0.0.2's tcp check */
	assert_has(r.body, "      - address: 10.0.0.2\n"
		   "        checks:\n"
		   "          - kind: tcp\n"
		   "            via: direct\n"
		   "            interval: 2s\n"
		   "            timeout: 10ms\n"
		   "            fast-interval: 100ms\n"
		   "            rise: 1\n"
		   "            fall: 1000\n");
	assert_has(r.body, "          - kind: exec\n"
		   "            interval: 2s\n"
		   "            timeout: 2s\n");
	run_free(&r);
}

/*
 * inhibit_on_failure: its absence is said once per virtual server, at the first real server
 * that has checks and lacks it; with it, what kmaglev does (the same) is said once.
 */
static void test_inhibit(void **state)
{
	struct run r;

	run_ka("inhibit.conf",
	       "virtual_server 192.0.2.1 80 {\n"		/* 1: on the VS: no "no" note */
	       "  lb_kind TUN\n"
	       "  inhibit_on_failure\n"
	       "  real_server 10.0.0.1 80 {\n"
	       "    TCP_CHECK {\n"				/* 5 */
	       "    }\n"
	       "  }\n"
	       "}\n"
	       "virtual_server 192.0.2.2 80 {\n"		/* 9: one server has it, one not */
	       "  lb_kind TUN\n"				/* 10 */
	       "  real_server 10.0.0.1 80 {\n"
	       "    inhibit_on_failure true\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"					/* 15 */
	       "  real_server 10.0.0.2 80 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "  real_server 10.0.0.3 80 {\n"		/* 20 */
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"
	       "}\n"
	       "virtual_server 192.0.2.3 80 {\n"		/* 25: no on the VS, a server's own */
	       "  lb_kind TUN\n"
	       "  inhibit_on_failure false\n"
	       "  real_server 10.0.0.1 80 {\n"
	       "    TCP_CHECK {\n"
	       "    }\n"					/* 30 */
	       "  }\n"
	       "}\n"
	       "virtual_server 192.0.2.4 80 {\n"		/* 33: no checks: nothing fails */
	       "  lb_kind TUN\n"
	       "  real_server 10.0.0.1 80 {\n"		/* 35 */
	       "  }\n"
	       "}\n"
	       "virtual_server 192.0.2.5 80 {\n"		/* 38: on the server, false */
	       "  lb_kind TUN\n"
	       "  inhibit_on_failure\n"			/* 40 */
	       "  real_server 10.0.0.1 80 {\n"
	       "    inhibit_on_failure off\n"
	       "    TCP_CHECK {\n"
	       "    }\n"
	       "  }\n"					/* 45 */
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.nlosses, 0);
	assert_int_equal(count(r.diag, "no inhibit_on_failure"), 3);
	assert_has(r.diag, "inhibit.conf:16: note: real_server 10.0.0.2 80: no inhibit_on_failure: keepalived takes a failed real server out of IPVS, which then drops the packets of its established connections (or ends them, with net.ipv4.vs.expire_nodest_conn = 1); kmaglev marks a failed backend down: no new flows, and its established flows keep going to it until they end, as keepalived's inhibit_on_failure (weight 0) would have it (the service's flags: [resched] would move them to the other backends instead)\n");
	assert_has(r.diag, "inhibit.conf:28: note: real_server 10.0.0.1 80: no inhibit_on_failure");
	assert_has(r.diag, "inhibit.conf:41: note: real_server 10.0.0.1 80: no inhibit_on_failure");
	assert_lacks(r.diag, "inhibit.conf:4: note: real_server 10.0.0.1 80: no inhibit");
	assert_lacks(r.diag, "inhibit.conf:20:");
	assert_lacks(r.diag, "inhibit.conf:35:");
	/* with it: once per virtual server */
	assert_has(r.diag, "inhibit.conf:3: note: inhibit_on_failure: a failed backend is down in kmaglev: no new flows, its established flows stay");
	assert_has(r.diag, "inhibit.conf:12: note: inhibit_on_failure true: a failed backend is down in kmaglev");
	assert_has(r.diag, "inhibit.conf:40: note: inhibit_on_failure: a failed backend is down in kmaglev");
	assert_int_equal(count(r.diag, "a failed backend is down in kmaglev"), 3);
	run_free(&r);
}

/* A quorum's loss or note is said once for a virtual_server_group, not once per member. */
static void test_quorum_group(void **state)
{
	struct run r;

	run_ka("quorum.conf",
	       "virtual_server_group G {\n"
	       "  192.0.2.1-3 80\n"
	       "}\n"
	       "virtual_server_group H {\n"
	       "  192.0.2.11-14 80\n"				/* 5 */
	       "}\n"
	       "virtual_server group G {\n"
	       "  lb_kind TUN\n"
	       "  quorum 3\n"
	       "  real_server 10.0.0.1 {\n"			/* 10 */
	       "    weight 2\n"
	       "  }\n"
	       "  real_server 10.0.0.2 {\n"
	       "    weight 1\n"
	       "  }\n"					/* 15 */
	       "}\n"
	       "virtual_server group H {\n"
	       "  lb_kind TUN\n"
	       "  quorum 3\n"
	       "  real_server 10.0.0.1 {\n"			/* 20 */
	       "    weight 2\n"
	       "  }\n"
	       "  real_server 10.0.0.2 {\n"
	       "    weight 2\n"
	       "  }\n"					/* 25 */
	       "}\n",
	       &r);
	assert_int_equal(r.ret, 0);
	assert_int_equal(r.nsvc, 7);
	assert_int_equal(r.nlosses, 1);
	assert_int_equal(count(r.diag, "quorum.conf:9: not mapped: quorum 3: keepalived counts the weights of live servers, kmaglev the live backends (quorum: min), and these weights differ\n"), 1);
	assert_int_equal(count(r.diag, "quorum.conf:19: note: quorum 3: quorum: { min: 2 } (live backends of weight 2)"), 1);
	/* each member of H has the quorum */
	assert_int_equal(count(r.body, "    quorum: { min: 2 }\n"), 4);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_virtualhost),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_definitions),
		cmocka_unit_test(test_split_argv),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_losses),
		cmocka_unit_test(test_top_level),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_timing_notes),
		cmocka_unit_test(test_inhibit),
		cmocka_unit_test(test_quorum_group),
		cmocka_unit_test(test_shared_checks),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_ipvsadm_clean),
		cmocka_unit_test(test_dr),
		cmocka_unit_test(test_ipvsadm_all),
		cmocka_unit_test(test_ipvsadm_lines),
		cmocka_unit_test(test_command),
	};

	return cmocka_run_group_tests_name("import", tests, setup, teardown);
}
