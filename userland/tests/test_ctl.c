// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the control socket (daemon/ctl.c) and its client (cli/cmd_status.c): the
 * dispatch of request lines, a round trip over a socket in a temporary directory (the server
 * on the libev loop, clients in a thread), the directory and stale-socket rules, bounded
 * requests, many clients at once, and the status table printed from a reply.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include "helpers.h"
#include "daemon/ctl.h"
#include "daemon/daemon.h"

static struct json_object *h_status(struct kmd *d, struct json_object *req, char **err)
{
	struct json_object *r = json_object_new_object();

	json_object_object_add(r, "config", json_object_new_string("/etc/kmaglev/kmaglev.yaml"));
	json_object_object_add(r, "draining", json_object_new_boolean(d->draining));
	return r;
}

static struct json_object *h_fail(struct kmd *d, struct json_object *req, char **err)
{
	*err = strdup("kmaglev.yaml:3:5: services[0].port: 70000 is out of range 0..65535");
	return NULL;
}

static const struct kmd_ctl_cmd cmds[] = {
	{ "status", h_status },
	{ "reload", h_fail },
};

static void dispatch_is(const char *line, const char *want)
{
	struct kmd d = { 0 };
	char *got = kmd_ctl_dispatch(&d, cmds, 2, line);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_dispatch(void **state)
{
	dispatch_is("{\"cmd\": \"status\"}",
		    "{\"config\":\"/etc/kmaglev/kmaglev.yaml\",\"draining\":false,\"ok\":true}");
	dispatch_is("{\"cmd\":\"reload\"}",
		    "{\"ok\":false,\"error\":\"kmaglev.yaml:3:5: services[0].port: 70000 is out "
		    "of range 0..65535\"}");
	dispatch_is("{\"cmd\":\"dance\"}", "{\"ok\":false,\"error\":\"unknown command \\\"dance\\\"\"}");
	dispatch_is("[1]", "{\"ok\":false,\"error\":\"request has no \\\"cmd\\\" string\"}");
	dispatch_is("{\"cmd\":1}", "{\"ok\":false,\"error\":\"request has no \\\"cmd\\\" string\"}");
	dispatch_is("{\"cmd\":", "{\"ok\":false,\"error\":\"request is not JSON: "
		    "unexpected end of data\"}");
}

/* --- a server on a loop, clients in a thread ------------------------------------------- */

struct run {
	char dir[32], path[64];
	void *(*client)(void *);
	atomic_bool done;
	ev_tstamp deadline;		/* the loop gives up then */
	int ret[8];
	char *text[8];
};

static void poll_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct run *r = w->data;

	if (atomic_load(&r->done) || ev_now(loop) > r->deadline)
		ev_break(loop, EVBREAK_ALL);
}

/* Serve @r->path while @r->client runs in a thread. */
static void serve(struct kmd *d, struct run *r)
{
	ev_timer poll;
	pthread_t t;

	ev_timer_init(&poll, poll_cb, 0.01, 0.01);
	poll.data = r;
	r->deadline = ev_now(d->loop) + 30;
	ev_timer_start(d->loop, &poll);
	assert_int_equal(pthread_create(&t, NULL, r->client, r), 0);
	ev_run(d->loop, 0);
	pthread_join(t, NULL);
	ev_timer_stop(d->loop, &poll);
	assert_true(atomic_load(&r->done));
}

static void *client_calls(void *arg)
{
	struct run *r = arg;
	struct json_object *reply = NULL;

	r->ret[0] = kmg_daemon_call(r->path, "status", 5000, &reply);
	if (!r->ret[0])
		r->text[0] = strdup(json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN));
	json_object_put(reply);
	r->ret[1] = kmg_daemon_call(r->path, "reload", 5000, &reply);
	r->text[1] = strdup(kmg_errmsg());
	atomic_store(&r->done, true);
	return NULL;
}

/* A client socket that gives up on reads after 10 seconds. */
static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
			connect(fd, (struct sockaddr *)&sa, sizeof(sa)))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One reply line from @fd, newline included. */
static char *read_line(int fd)
{
	char *buf = calloc(1, 65536);
	size_t len = 0;
	ssize_t r;

	while (buf && len < 65535 && (r = read(fd, buf + len, 1)) == 1)
		if (buf[len++] == '\n')
			break;
	return buf;
}

/* Many clients at once, each sending its request in two parts. */
static void *client_many(void *arg)
{
	const char *req = "{\"cmd\":\"status\"}\n";
	struct run *r = arg;
	int fd[8], i;

	for (i = 0; i < 8; i++) {
		fd[i] = connect_to(r->path);
		r->ret[i] = fd[i] < 0 ? -1 : write(fd[i], req, 5) == 5 ? 0 : -1;
	}
	for (i = 7; i >= 0; i--) {
		if (r->ret[i] || write(fd[i], req + 5, strlen(req) - 5) != (ssize_t)strlen(req) - 5)
			r->ret[i] = -1;
	}
	for (i = 0; i < 8; i++) {
		if (!r->ret[i])
			r->text[i] = read_line(fd[i]);
		if (fd[i] >= 0)
			close(fd[i]);
	}
	atomic_store(&r->done, true);
	return NULL;
}

/* A request over the limit: an error reply, then the server closes. */
static void *client_long(void *arg)
{
	struct run *r = arg;
	char *big = malloc(KMD_CTL_REQUEST_MAX + 100), c;
	int fd = connect_to(r->path);

	if (big && fd >= 0) {
		memset(big, ' ', KMD_CTL_REQUEST_MAX + 100);
		r->ret[0] = write(fd, big, KMD_CTL_REQUEST_MAX + 100) > 0 ? 0 : -1;
		r->text[0] = read_line(fd);
		/* then nothing more: closed */
		r->ret[1] = read(fd, &c, 1);
	} else {
		r->ret[0] = -1;
	}
	if (fd >= 0)
		close(fd);
	free(big);
	atomic_store(&r->done, true);
	return NULL;
}

static void setup_run(struct run *r, void *(*client)(void *))
{
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/kmaglev-ctl-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	/* the socket's directory does not exist yet: the server makes it */
	snprintf(r->path, sizeof(r->path), "%s/run/daemon.sock", r->dir);
	r->client = client;
}

static void cleanup_run(struct run *r)
{
	char sub[48];
	int i;

	for (i = 0; i < 8; i++)
		free(r->text[i]);
	snprintf(sub, sizeof(sub), "%s/run", r->dir);
	rmdir(sub);
	rmdir(r->dir);
}

static void test_round_trip(void **state)
{
	struct kmd d = { .loop = ev_loop_new(EVFLAG_AUTO), .draining = true };
	struct stat st;
	struct run r;
	char dir[48];

	assert_non_null(d.loop);
	setup_run(&r, client_calls);
	assert_int_equal(kmd_ctl_start(&d, r.path, cmds, 2), 0);
	snprintf(dir, sizeof(dir), "%s/run", r.dir);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(stat(r.path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	/* a second server on the same socket is refused while the first listens */
	{
		struct kmd d2 = { .loop = d.loop };

		assert_int_equal(kmd_ctl_start(&d2, r.path, cmds, 2), -EADDRINUSE);
		assert_null(d2.ctl);
	}
	serve(&d, &r);
	assert_int_equal(r.ret[0], 0);
	assert_string_equal(r.text[0], "{\"config\":\"\\/etc\\/kmaglev\\/kmaglev.yaml\","
			    "\"draining\":true,\"ok\":true}");
	assert_int_equal(r.ret[1], KMG_EFAIL);
	assert_string_equal(r.text[1], "daemon: kmaglev.yaml:3:5: services[0].port: 70000 is out "
			    "of range 0..65535");
	kmd_ctl_stop(&d);
	assert_null(d.ctl);
	/* stopped: the socket file is gone, and a client says nobody listens */
	assert_int_equal(stat(r.path, &st), -1);
	{
		struct json_object *reply;

		assert_int_equal(kmg_daemon_call(r.path, "status", 1000, &reply), KMG_EFAIL);
		assert_null(reply);
		assert_int_equal(strncmp(kmg_errmsg(), KMD_CTL_UNREACHABLE,
					 strlen(KMD_CTL_UNREACHABLE)), 0);
	}
	cleanup_run(&r);
	ev_loop_destroy(d.loop);
}

/* A socket file nobody listens on (a daemon that died) is replaced; a plain file is not. */
static void test_stale(void **state)
{
	struct kmd d = { .loop = ev_loop_new(EVFLAG_AUTO) };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[48];
	struct run r;
	int fd;

	setup_run(&r, client_many);
	snprintf(dir, sizeof(dir), "%s/run", r.dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	/* a plain file in the way */
	fd = open(r.path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(kmd_ctl_start(&d, r.path, cmds, 2), -EEXIST);
	unlink(r.path);
	/* a dead daemon's socket */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", r.path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(kmd_ctl_start(&d, r.path, cmds, 2), 0);
	/* and it serves many clients at once */
	serve(&d, &r);
	for (fd = 0; fd < 8; fd++) {
		assert_int_equal(r.ret[fd], 0);
		assert_string_equal(r.text[fd], "{\"config\":\"/etc/kmaglev/kmaglev.yaml\","
				    "\"draining\":false,\"ok\":true}\n");
	}
	kmd_ctl_stop(&d);
	cleanup_run(&r);
	ev_loop_destroy(d.loop);
}

static void test_too_long(void **state)
{
	struct kmd d = { .loop = ev_loop_new(EVFLAG_AUTO) };
	char want[96];
	struct run r;

	setup_run(&r, client_long);
	assert_int_equal(kmd_ctl_start(&d, r.path, cmds, 2), 0);
	serve(&d, &r);
	assert_int_equal(r.ret[0], 0);
	snprintf(want, sizeof(want), "{\"ok\":false,\"error\":\"request longer than %d bytes\"}\n",
		 KMD_CTL_REQUEST_MAX);
	assert_string_equal(r.text[0], want);
	assert_int_equal(r.ret[1], 0);
	kmd_ctl_stop(&d);
	cleanup_run(&r);
	ev_loop_destroy(d.loop);
}

/* --- the status table ------------------------------------------------------------------ */

static const char *status_reply =
	"{\"ok\": true, \"config\": \"/etc/kmaglev/kmaglev.yaml\", \"draining\": false,"
	" \"uptime-s\": 3725, \"services\": ["
	" {\"service\": \"192.0.2.1:80/tcp\", \"id\": 3, \"healthy\": true, \"overload\": \"on\","
	"  \"backends\": ["
	"  {\"address\": \"10.1.0.1\", \"configured\": {\"weight\": 100, \"state\": \"up\"},"
	"   \"health\": \"up\", \"utilization\": 85,"
	"   \"kernel\": {\"id\": 4, \"weight\": 100, \"state\": \"up\"},"
	"   \"checks\": [{\"name\": \"http\", \"state\": \"up\", \"result\": \"ok\","
	"                 \"latency-ms\": 1.25, \"transitions\": 0},"
	"                {\"name\": \"tcp-8080\", \"state\": \"up\", \"result\": \"ok\","
	"                 \"latency-ms\": 0.3, \"transitions\": 2}]},"
	"  {\"address\": \"2001:db8::1:2\", \"configured\": {\"weight\": 1, \"state\": \"up\"},"
	"   \"health\": \"down\", \"kernel\": {\"id\": 5, \"weight\": 1, \"state\": \"down\"},"
	"   \"checks\": [{\"name\": \"http\", \"state\": \"down\", \"result\": \"status 503\","
	"                 \"latency-ms\": 12.5, \"transitions\": 1}]}]},"
	" {\"service\": \"[2001:db8::80]:53/udp\", \"id\": 0, \"healthy\": false,"
	"  \"overload\": \"off\", \"backends\": ["
	"  {\"address\": \"10.2.0.1\", \"configured\": {\"weight\": 5, \"state\": \"drain\"},"
	"   \"health\": \"unknown\", \"kernel\": null, \"checks\": []}]}]}";

static void test_status_text(void **state)
{
	const char *want =
		"daemon config /etc/kmaglev/kmaglev.yaml uptime 1h2m5s\n"
		"service 192.0.2.1:80/tcp id 3 healthy overloaded\n"
		"  BACKEND        CONFIGURED  HEALTH        KERNEL  CHECK        RESULT      LATENCY\n"
		"  10.1.0.1       100 up      up, util 85%  100 up  http up      ok          1.25ms\n"
		"                                                   tcp-8080 up  ok          0.30ms\n"
		"  2001:db8::1:2  1 up        down          1 down  http down    status 503  12.50ms\n"
		"service [2001:db8::80]:53/udp unhealthy\n"
		"  BACKEND        CONFIGURED  HEALTH        KERNEL  CHECK        RESULT      LATENCY\n"
		"  10.2.0.1       5 drain     unknown       -       -\n";
	struct json_object *reply = json_tokener_parse(status_reply);
	struct kmg_ctx ctx = { 0 };
	struct tout o;

	assert_non_null(reply);
	tout_open(&o);
	ctx.out = o.f;
	kmg_print_status(&ctx, reply);
	assert_string_equal(tout_text(&o), want);
	tout_close(&o);
	/* -j: the reply itself, one line */
	tout_open(&o);
	ctx.out = o.f;
	ctx.json = true;
	kmg_print_status(&ctx, reply);
	assert_non_null(strstr(tout_text(&o), "\"uptime-s\":3725,"));
	assert_non_null(strstr(tout_text(&o), "\"latency-ms\":1.25,"));
	assert_int_equal(strchr(tout_text(&o), '\n') - tout_text(&o), strlen(tout_text(&o)) - 1);
	tout_close(&o);
	json_object_put(reply);
}

/* The daemon's status of an overloaded service: "overload": "on", and "overloaded" in text. */
static void test_status_overload(void **state)
{
	struct kmd_service conf[2] = { 0 };
	struct kmd_svc svc[2] = { 0 };
	struct json_object *reply, *s;
	struct kmd d = { 0 };
	struct kmg_ctx ctx = { 0 };
	struct tout o;
	int i;

	d.loop = ev_loop_new(EVFLAG_AUTO);
	assert_non_null(d.loop);
	d.started = ev_now(d.loop);
	d.cfg_path = "/etc/kmaglev/kmaglev.yaml";
	for (i = 0; i < 2; i++) {
		assert_int_equal(kmg_parse_addr("192.0.2.1", &conf[i].svc.key.addr), 0);
		conf[i].svc.key.port = 80 + i;
		conf[i].svc.key.proto = IPPROTO_TCP;
		svc[i].conf = &conf[i];
		svc[i].healthy = true;
	}
	svc[1].overloaded = true;
	d.svc = svc;
	d.nsvc = 2;
	reply = kmd_status_json(&d);
	s = json_object_array_get_idx(json_object_object_get(reply, "services"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(s, "overload")), "off");
	s = json_object_array_get_idx(json_object_object_get(reply, "services"), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(s, "overload")), "on");
	tout_open(&o);
	ctx.out = o.f;
	kmg_print_status(&ctx, reply);
	assert_non_null(strstr(tout_text(&o), "\nservice 192.0.2.1:80/tcp healthy\n"
			       "service 192.0.2.1:81/tcp healthy overloaded\n"));
	tout_close(&o);
	json_object_put(reply);
	ev_loop_destroy(d.loop);
}

/* Option words of status and reload, and where the socket comes from. */
static void test_status_args(void **state)
{
	struct kmg_ctx ctx = { .out = stdout };
	struct targv t;

	t = targv("status -x");
	assert_int_equal(kmg_cmd_status(&ctx, t.argc, t.argv), KMG_EUSAGE);
	targv_free(&t);
	t = targv("reload -s");
	assert_int_equal(kmg_cmd_reload(&ctx, t.argc, t.argv), KMG_EUSAGE);
	targv_free(&t);
	t = targv("status -j -s /nonexistent/kmaglev.sock");
	assert_int_equal(kmg_cmd_status(&ctx, t.argc, t.argv), KMG_EFAIL);
	assert_string_equal(kmg_errmsg(), KMD_CTL_UNREACHABLE "/nonexistent/kmaglev.sock: No such "
			    "file or directory (is \"kmaglev daemon\" running?)");
	targv_free(&t);
	assert_int_equal(setenv("KMAGLEV_SOCKET", "/x/y.sock", 1), 0);
	assert_string_equal(kmg_daemon_socket(NULL), "/x/y.sock");
	assert_string_equal(kmg_daemon_socket("/a.sock"), "/a.sock");
	assert_int_equal(setenv("KMAGLEV_SOCKET", "", 1), 0);
	assert_string_equal(kmg_daemon_socket(NULL), KMD_SOCKET_DEFAULT);
	unsetenv("KMAGLEV_SOCKET");
	assert_string_equal(kmg_daemon_socket(NULL), KMD_SOCKET_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_status_overload),
		cmocka_unit_test(test_status_args),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
