// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Prometheus text writer (daemon/expfmt.c): exact text of each kind of
 * family, label escaping, and everything it must refuse; then a larger exposition is checked
 * by "promtool check metrics" when promtool is installed (skipped otherwise).
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"
#include "daemon/expfmt.h"

static void test_counter_gauge(void **state)
{
	const struct kmd_prom_label l[] = { { "vip", "192.0.2.1" }, { "port", "80" } };
	struct kmd_prom p;
	char *text;
	size_t len;

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "kmaglev_x_total", KMD_PROM_COUNTER, "Xs seen."), 0);
	assert_int_equal(kmd_prom_counter(&p, l, 2, 18446744073709551615ULL), 0);
	assert_int_equal(kmd_prom_counter(&p, l, 1, 3), 0);
	assert_int_equal(kmd_prom_family(&p, "kmaglev_up", KMD_PROM_GAUGE, "Up."), 0);
	assert_int_equal(kmd_prom_gauge(&p, NULL, 0, 1), 0);
	assert_int_equal(kmd_prom_family(&p, "kmaglev_ratio", KMD_PROM_GAUGE, "A\\b\nc \"q\""), 0);
	assert_int_equal(kmd_prom_gauge(&p, l, 1, 0.1), 0);
	assert_int_equal(kmd_prom_gauge(&p, l, 2, INFINITY), 0);
	text = kmd_prom_take(&p, &len);
	assert_non_null(text);
	assert_string_equal(text,
		"# HELP kmaglev_x_total Xs seen.\n"
		"# TYPE kmaglev_x_total counter\n"
		"kmaglev_x_total{vip=\"192.0.2.1\",port=\"80\"} 18446744073709551615\n"
		"kmaglev_x_total{vip=\"192.0.2.1\"} 3\n"
		"# HELP kmaglev_up Up.\n"
		"# TYPE kmaglev_up gauge\n"
		"kmaglev_up 1\n"
		"# HELP kmaglev_ratio A\\\\b\\nc \"q\"\n"
		"# TYPE kmaglev_ratio gauge\n"
		"kmaglev_ratio{vip=\"192.0.2.1\"} 0.1\n"
		"kmaglev_ratio{vip=\"192.0.2.1\",port=\"80\"} +Inf\n");
	assert_int_equal(len, strlen(text));
	free(text);
}

static void test_escaping(void **state)
{
	const struct kmd_prom_label l[] = { { "check", "a\\b\"c\nd" } };
	struct kmd_prom p;

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "m", KMD_PROM_GAUGE, ""), 0);
	assert_int_equal(kmd_prom_gauge(&p, l, 1, -2.5), 0);
	assert_string_equal(p.buf, "# HELP m \n# TYPE m gauge\n"
			    "m{check=\"a\\\\b\\\"c\\nd\"} -2.5\n");
	kmd_prom_free(&p);
}

static void test_histogram(void **state)
{
	const struct kmd_prom_label l[] = { { "backend", "10.0.0.1" }, { "check", "http" } };
	const double bounds[] = { 0.001, 0.005, 0.25 };
	const uint64_t bucket[] = { 1, 4, 4, 6 };
	struct kmd_prom p;

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "lat_seconds", KMD_PROM_HISTOGRAM, "Latency."), 0);
	assert_int_equal(kmd_prom_histogram(&p, l, 2, bounds, 3, bucket, 1.75), 0);
	assert_int_equal(kmd_prom_histogram(&p, NULL, 0, bounds, 1, bucket, 0), 0);
	assert_string_equal(p.buf,
		"# HELP lat_seconds Latency.\n"
		"# TYPE lat_seconds histogram\n"
		"lat_seconds_bucket{backend=\"10.0.0.1\",check=\"http\",le=\"0.001\"} 1\n"
		"lat_seconds_bucket{backend=\"10.0.0.1\",check=\"http\",le=\"0.005\"} 4\n"
		"lat_seconds_bucket{backend=\"10.0.0.1\",check=\"http\",le=\"0.25\"} 4\n"
		"lat_seconds_bucket{backend=\"10.0.0.1\",check=\"http\",le=\"+Inf\"} 6\n"
		"lat_seconds_sum{backend=\"10.0.0.1\",check=\"http\"} 1.75\n"
		"lat_seconds_count{backend=\"10.0.0.1\",check=\"http\"} 6\n"
		"lat_seconds_bucket{le=\"0.001\"} 1\n"
		"lat_seconds_bucket{le=\"+Inf\"} 4\n"
		"lat_seconds_sum 0\n"
		"lat_seconds_count 4\n");
	assert_int_equal(p.err, 0);
	kmd_prom_free(&p);
}

/* The same label set twice is refused and leaves nothing behind; the writer goes on. */
static void test_duplicates(void **state)
{
	const struct kmd_prom_label a[] = { { "k", "1" } }, b[] = { { "k", "2" } };
	struct kmd_prom p;
	char name[32];
	int i;

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "d_total", KMD_PROM_COUNTER, "D."), 0);
	assert_int_equal(kmd_prom_counter(&p, a, 1, 1), 0);
	assert_int_equal(kmd_prom_counter(&p, a, 1, 2), -EEXIST);
	assert_int_equal(kmd_prom_counter(&p, NULL, 0, 1), 0);
	assert_int_equal(kmd_prom_counter(&p, NULL, 0, 1), -EEXIST);
	assert_int_equal(kmd_prom_counter(&p, b, 1, 3), 0);
	assert_int_equal(p.err, 0);
	assert_string_equal(p.buf, "# HELP d_total D.\n# TYPE d_total counter\n"
			    "d_total{k=\"1\"} 1\nd_total 1\nd_total{k=\"2\"} 3\n");
	/* a new family may use the same label sets */
	assert_int_equal(kmd_prom_family(&p, "e", KMD_PROM_GAUGE, "E."), 0);
	assert_int_equal(kmd_prom_gauge(&p, a, 1, 1), 0);
	/* many series: the set grows and still finds each one */
	assert_int_equal(kmd_prom_family(&p, "f", KMD_PROM_GAUGE, "F."), 0);
	for (i = 0; i < 5000; i++) {
		const struct kmd_prom_label l[] = { { "n", name } };

		snprintf(name, sizeof(name), "%d", i);
		assert_int_equal(kmd_prom_gauge(&p, l, 1, i), 0);
	}
	for (i = 0; i < 5000; i += 7) {
		const struct kmd_prom_label l[] = { { "n", name } };

		snprintf(name, sizeof(name), "%d", i);
		assert_int_equal(kmd_prom_gauge(&p, l, 1, i), -EEXIST);
	}
	assert_int_equal(p.err, 0);
	assert_non_null(strstr(p.buf, "\nf{n=\"4999\"} 4999\n"));
	kmd_prom_free(&p);
}

static void test_refused(void **state)
{
	const struct kmd_prom_label le[] = { { "le", "1" } };
	const struct kmd_prom_label twice[] = { { "a", "1" }, { "a", "2" } };
	const struct kmd_prom_label bad[] = { { "__x", "1" } }, colon[] = { { "a:b", "1" } };
	const double down[] = { 1, 0.5 }, one[] = { 1 };
	const uint64_t bk[] = { 1, 2, 3 }, shrink[] = { 5, 4 };
	struct kmd_prom p;

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "c", KMD_PROM_COUNTER, "no _total"), -EINVAL);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "1abc", KMD_PROM_GAUGE, "digit"), -EINVAL);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "a-b", KMD_PROM_GAUGE, "dash"), -EINVAL);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_gauge(&p, NULL, 0, 1), -EINVAL);	/* no family */
	kmd_prom_free(&p);

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "g", KMD_PROM_GAUGE, "G."), 0);
	assert_int_equal(kmd_prom_family(&p, "g", KMD_PROM_GAUGE, "G."), -EEXIST);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "g", KMD_PROM_GAUGE, "G."), 0);
	assert_int_equal(kmd_prom_counter(&p, NULL, 0, 1), -EINVAL);	/* type */
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "g", KMD_PROM_GAUGE, "G."), 0);
	assert_int_equal(kmd_prom_gauge(&p, twice, 2, 1), -EINVAL);
	/* sticky: nothing more is written, and there is no text to take */
	assert_int_equal(kmd_prom_family(&p, "h", KMD_PROM_GAUGE, "H."), -EINVAL);
	assert_null(kmd_prom_take(&p, NULL));
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "g", KMD_PROM_GAUGE, "G."), 0);
	assert_int_equal(kmd_prom_gauge(&p, bad, 1, 1), -EINVAL);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "g:sub", KMD_PROM_GAUGE, "G."), 0);
	assert_int_equal(kmd_prom_gauge(&p, colon, 1, 1), -EINVAL);
	kmd_prom_free(&p);

	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "h", KMD_PROM_HISTOGRAM, "H."), 0);
	assert_int_equal(kmd_prom_histogram(&p, le, 1, one, 1, bk, 1), -EINVAL);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "h", KMD_PROM_HISTOGRAM, "H."), 0);
	assert_int_equal(kmd_prom_histogram(&p, NULL, 0, down, 2, bk, 1), -EINVAL);
	kmd_prom_free(&p);
	kmd_prom_init(&p);
	assert_int_equal(kmd_prom_family(&p, "h", KMD_PROM_HISTOGRAM, "H."), 0);
	assert_int_equal(kmd_prom_histogram(&p, NULL, 0, one, 1, shrink, 1), -EINVAL);
	kmd_prom_free(&p);
}

static void test_fmt_double(void **state)
{
	char buf[32];

	assert_string_equal(kmd_prom_fmt_double(0.001, buf, sizeof(buf)), "0.001");
	assert_string_equal(kmd_prom_fmt_double(1e-7, buf, sizeof(buf)), "1e-07");
	assert_string_equal(kmd_prom_fmt_double(12345678.0, buf, sizeof(buf)), "12345678");
	assert_string_equal(kmd_prom_fmt_double(1.0 / 3, buf, sizeof(buf)), "0.3333333333333333");
	assert_string_equal(kmd_prom_fmt_double(-INFINITY, buf, sizeof(buf)), "-Inf");
	assert_string_equal(kmd_prom_fmt_double(NAN, buf, sizeof(buf)), "NaN");
}

/* promtool's linter over an exposition with every kind of family. */
static void test_promtool(void **state)
{
	const struct kmd_prom_label l[] = { { "vip", "192.0.2.1" }, { "note", "x\"\\\ny" } };
	const double bounds[] = { 0.001, 0.01, 0.1, 1 };
	const uint64_t bucket[] = { 0, 2, 3, 3, 5 };
	char path[] = "/tmp/kmaglev-prom-XXXXXX", cmd[128];
	struct kmd_prom p;
	FILE *f;
	int fd;

	if (system("command -v promtool >/dev/null 2>&1")) {
		skip();
		return;
	}
	kmd_prom_init(&p);
	kmd_prom_family(&p, "kmaglev_things_total", KMD_PROM_COUNTER, "Things \\ done.\nTwice.");
	kmd_prom_counter(&p, l, 2, 7);
	kmd_prom_counter(&p, l, 1, 1);
	kmd_prom_family(&p, "kmaglev_up", KMD_PROM_GAUGE, "Whether it is up.");
	kmd_prom_gauge(&p, NULL, 0, 1);
	kmd_prom_family(&p, "kmaglev_latency_seconds", KMD_PROM_HISTOGRAM, "Latency.");
	kmd_prom_histogram(&p, l, 2, bounds, 4, bucket, 3.5);
	kmd_prom_histogram(&p, l, 1, bounds, 4, bucket, 3.5);
	assert_int_equal(p.err, 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(p.buf, 1, p.len, f), p.len);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	kmd_prom_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_gauge),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_fmt_double),
		cmocka_unit_test(test_promtool),
	};

	return cmocka_run_group_tests_name("prom", tests, NULL, NULL);
}
