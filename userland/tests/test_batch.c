// SPDX-License-Identifier: GPL-2.0
/* Unit tests for batch mode: line splitting, comments, quotes, and stopping at a bad line. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"

static int split(const char *line, char ***argv, char **copy)
{
	*copy = strdup(line);
	assert_non_null(*copy);
	return kmg_split_line(*copy, argv);
}

static void test_split_words(void **state)
{
	char **argv, *buf;

	assert_int_equal(split("  service add\t192.0.2.10:80/tcp   table-size 251\r\n", &argv, &buf),
			 5);
	assert_string_equal(argv[0], "service");
	assert_string_equal(argv[1], "add");
	assert_string_equal(argv[2], "192.0.2.10:80/tcp");
	assert_string_equal(argv[3], "table-size");
	assert_string_equal(argv[4], "251");
	assert_null(argv[5]);
	free(argv);
	free(buf);
}

static void test_split_blank_and_comments(void **state)
{
	char **argv, *buf;

	assert_int_equal(split("", &argv, &buf), 0);
	free(argv);
	free(buf);
	assert_int_equal(split("   \t \n", &argv, &buf), 0);
	free(argv);
	free(buf);
	assert_int_equal(split("# service flush", &argv, &buf), 0);
	free(argv);
	free(buf);
	assert_int_equal(split("   # indented comment", &argv, &buf), 0);
	free(argv);
	free(buf);
	assert_int_equal(split("service show # all of them", &argv, &buf), 2);
	assert_string_equal(argv[1], "show");
	free(argv);
	free(buf);
	/* "#" inside a word is not a comment */
	assert_int_equal(split("a#b c", &argv, &buf), 2);
	assert_string_equal(argv[0], "a#b");
	free(argv);
	free(buf);
}

static void test_split_quotes(void **state)
{
	char **argv, *buf;

	assert_int_equal(split("backend add \"192.0.2.10:80\" '10.0.0.1' weight 5", &argv, &buf), 6);
	assert_string_equal(argv[2], "192.0.2.10:80");
	assert_string_equal(argv[3], "10.0.0.1");
	free(argv);
	free(buf);
	assert_int_equal(split("\"two words\" 'single \"inner\"' x\\ y \"esc \\\"q\\\" \\\\\"", &argv,
			       &buf), 4);
	assert_string_equal(argv[0], "two words");
	assert_string_equal(argv[1], "single \"inner\"");
	assert_string_equal(argv[2], "x y");
	assert_string_equal(argv[3], "esc \"q\" \\");
	free(argv);
	free(buf);
	assert_int_equal(split("a \"\" b", &argv, &buf), 3);
	assert_string_equal(argv[1], "");
	free(argv);
	free(buf);
	assert_int_equal(split("pre\"fix mid\"post", &argv, &buf), 1);
	assert_string_equal(argv[0], "prefix midpost");
	free(argv);
	free(buf);
	assert_int_equal(split("'# not a comment'", &argv, &buf), 1);
	assert_string_equal(argv[0], "# not a comment");
	free(argv);
	free(buf);
}

static void test_split_unterminated(void **state)
{
	char **argv, *buf;

	assert_int_equal(split("service add \"192.0.2.10", &argv, &buf), -1);
	assert_null(argv);
	assert_string_equal(kmg_errmsg(), "unterminated double quote");
	free(buf);
	assert_int_equal(split("x 'y", &argv, &buf), -1);
	assert_string_equal(kmg_errmsg(), "unterminated single quote");
	free(buf);
}

static char *write_file(const char *text)
{
	char *path = strdup("/tmp/kmaglev-batch-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static int run_batch(const char *text, struct tout *o, struct kmg_ctx *ctx)
{
	char *path = write_file(text);
	int ret;

	tout_open(o);
	*ctx = (struct kmg_ctx){ .out = o->f };
	kmg_err_set_line(0);
	ret = kmg_batch(ctx, path);
	unlink(path);
	free(path);
	return ret;
}

/* What kmg_err_print() writes to stderr. */
static char *stderr_of_err_print(void)
{
	static char buf[1024];
	char path[] = "/tmp/kmaglev-stderr-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	assert_true(fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	kmg_err_print();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

static void test_batch_runs_lines(void **state)
{
	struct kmg_ctx ctx;
	struct tout o;

	assert_int_equal(run_batch("# offline simulations need no kernel\n"
				   "\n"
				   "simulate table-size 251 backend 10.0.0.1 backend 10.0.0.2\n"
				   "  simulate table-size 251 backend \"10.0.0.1\" then backend add 10.0.0.3 # grow\n",
				   &o, &ctx), 0);
	assert_int_equal(kmg_err_line(), 0);
	assert_non_null(strstr(tout_text(&o), "current table-size 251 backends 2 eligible 2"));
	assert_non_null(strstr(tout_text(&o), "current table-size 251 backends 1 eligible 1"));
	assert_non_null(strstr(tout_text(&o), "backend 10.0.0.3 before - after "));
	assert_false(ctx.nl_open);
	tout_close(&o);
}

static void test_batch_stops_at_bad_line(void **state)
{
	struct kmg_ctx ctx;
	struct tout o;

	assert_int_equal(run_batch("simulate table-size 251 backend 10.0.0.1\n"
				   "# next one is wrong\n"
				   "service add 192.0.2.300:80\n"
				   "service flush\n", &o, &ctx), KMG_EUSAGE);
	assert_int_equal(kmg_err_line(), 3);
	assert_string_equal(kmg_errmsg(), "invalid service \"192.0.2.300:80\": not an IPv4 or IPv6 address");
	assert_string_equal(stderr_of_err_print(),
			    "kmaglev: line 3: invalid service \"192.0.2.300:80\": not an IPv4 or IPv6 address\n");
	/* the first line ran, nothing was sent */
	assert_non_null(strstr(tout_text(&o), "simulate mode offline"));
	assert_false(ctx.nl_open);
	tout_close(&o);

	assert_int_equal(run_batch("\n\nservice add \"192.0.2.1\n", &o, &ctx), KMG_EUSAGE);
	assert_int_equal(kmg_err_line(), 3);
	assert_string_equal(kmg_errmsg(), "unterminated double quote");
	tout_close(&o);

	assert_int_equal(run_batch("-j service show\n", &o, &ctx), KMG_EUSAGE);
	assert_int_equal(kmg_err_line(), 1);
	assert_string_equal(kmg_errmsg(),
			    "options such as \"-j\" go on the command line, not in batch lines");
	tout_close(&o);
	kmg_err_set_line(0);
}

static void test_batch_no_file(void **state)
{
	struct kmg_ctx ctx = { .out = stdout };

	assert_int_equal(kmg_batch(&ctx, "/nonexistent/kmaglev.batch"), KMG_EFAIL);
	assert_string_equal(kmg_errmsg(),
			    "cannot open batch file \"/nonexistent/kmaglev.batch\": No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_words),
		cmocka_unit_test(test_split_blank_and_comments),
		cmocka_unit_test(test_split_quotes),
		cmocka_unit_test(test_split_unterminated),
		cmocka_unit_test(test_batch_runs_lines),
		cmocka_unit_test(test_batch_stops_at_bad_line),
		cmocka_unit_test(test_batch_no_file),
	};

	return cmocka_run_group_tests_name("batch", tests, NULL, NULL);
}
