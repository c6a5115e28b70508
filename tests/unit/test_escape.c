/* Unit tests for analyzer/base/escape.h (what reaches a terminal, stderr and
 * JSON), analyzer/base/outfile.h (-o never overwrites an input; lost writes are
 * errors) and the non-file refusals of tl_source_load / tl_source_read_fd. */
#include "helpers.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/escape.h"
#include "base/outfile.h"

typedef struct {
	char dir[64];
} EscState;

static int group_setup(void **state)
{
	EscState *s = tl_calloc(1, sizeof *s);
	snprintf(s->dir, sizeof s->dir, "/tmp/tl-escape-XXXXXX");
	if (!mkdtemp(s->dir)) {
		tl_free(s);
		return -1;
	}
	*state = s;
	return 0;
}

static int group_teardown(void **state)
{
	EscState *s = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
	int rc = system(cmd);
	tl_free(s);
	return rc == 0 ? 0 : -1;
}

static char *in_dir(void **state, const char *name)
{
	EscState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/%s", s->dir, name);
	return tl_buf_detach(&p);
}

static void expect_escape(const char *in, const char *want)
{
	char *got = tl_escape(in);
	assert_string_equal(got, want);
	tl_free(got);
}

static void test_plain_text_unchanged(void **state)
{
	(void)state;
	expect_escape("train.py", "train.py");
	expect_escape("dir\\name.py", "dir\\name.py"); /* nothing else to escape */
	expect_escape("données/é.py", "données/é.py");
	assert_false(tl_escape_needed("ok", 2));
}

static void test_controls_escaped(void **state)
{
	(void)state;
	expect_escape("a\nb", "a\\nb");
	expect_escape("a\rb\tc", "a\\rb\\tc");
	expect_escape("x\033[31my", "x\\x1B[31my");
	expect_escape("del\x7f", "del\\x7F");
	expect_escape("c1\xc2\x9b", "c1\\u009B"); /* U+009B, an 8-bit CSI */
	/* Once anything is escaped, backslashes are doubled: unambiguous. */
	expect_escape("a\\n\nb", "a\\\\n\\nb");
}

static void test_invalid_utf8_escaped(void **state)
{
	(void)state;
	expect_escape("d\xff.py", "d\\xFF.py");
	expect_escape("\xc0\xaf", "\\xC0\\xAF");     /* overlong '/' */
	expect_escape("\xed\xa0\x80", "\\xED\\xA0\\x80"); /* a surrogate */
	expect_escape("\xe2\x82", "\\xE2\\x82");      /* truncated */
}

static void test_snippet_keeps_columns(void **state)
{
	(void)state;
	TlBuf b;
	tl_buf_init(&b);
	tl_escape_add_snippet(&b, "\tx = (\f\033\x7f", 9);
	assert_string_equal(b.data, "\tx = (\xe2\x90\x8c\xe2\x90\x9b\xe2\x90\xa1"); /* tab kept, ␌ ␛ ␡ */
	assert_int_equal(tl_utf8_count(b.data, b.len), 9);
	tl_buf_release(&b);
}

static void test_command_like(void **state)
{
	(void)state;
	assert_true(tl_escape_command_like("::error file=x::y"));
	assert_true(tl_escape_command_like("  \t::warning::y"));
	assert_true(tl_escape_command_like("\xe3\x80\x80::error::y")); /* U+3000 first */
	assert_true(tl_escape_command_like("##[error]y"));
	assert_false(tl_escape_command_like("a::b"));
	assert_false(tl_escape_command_like("./::error::y"));
	TlBuf b;
	tl_buf_init(&b);
	tl_escape_add_line_start(&b, "::error::x.py");
	assert_string_equal(b.data, "./::error::x.py");
	tl_buf_release(&b);
}

static void test_json_replacement(void **state)
{
	(void)state;
	TlBuf b;
	tl_buf_init(&b);
	tl_escape_add_json(&b, "d\xff.py \xe2\x82 ok \xc3\xa9");
	assert_string_equal(b.data, "d\xef\xbf\xbd.py \xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9");
	tl_buf_release(&b);
}

static void test_diag_one_line(void **state)
{
	char *path = in_dir(state, "diag.txt");
	FILE *f = fopen(path, "w+");
	assert_non_null(f);
	tl_diagf(f, "torchlint: cannot read '%s': %s\n", "x\n::error::y", "why");
	tl_diagf(f, "%s:1:1: error: bad\n", "::warning::z");
	rewind(f);
	char line[256];
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "torchlint: cannot read 'x\\n::error::y': why\n");
	assert_non_null(fgets(line, sizeof line, f));
	assert_string_equal(line, "./::warning::z:1:1: error: bad\n");
	assert_null(fgets(line, sizeof line, f));
	fclose(f);
	tl_free(path);
}

static void test_load_refuses_non_files(void **state)
{
	char *fifo = in_dir(state, "f.py");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	TlSource src;
	char why[256];
	/* Returns at once: no writer is waited for. */
	assert_false(tl_source_load(&src, fifo, why, sizeof why));
	assert_string_equal(why, "not a regular file");
	assert_false(tl_source_load(&src, "/dev/null", why, sizeof why));
	assert_string_equal(why, "not a regular file");
	char *sock = in_dir(state, "s.py");
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	struct sockaddr_un addr;
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	assert_false(tl_source_load(&src, sock, why, sizeof why));
	assert_string_equal(why, "not a regular file");
	close(fd);
	tl_free(sock);
	tl_free(fifo);
}

static void test_read_fd_is_bounded(void **state)
{
	(void)state;
	int fd = open("/dev/zero", O_RDONLY);
	assert_true(fd >= 0);
	char *text;
	size_t len;
	char why[256];
	assert_false(tl_source_read_fd(fd, &text, &len, why, sizeof why));
	assert_non_null(strstr(why, "file too large"));
	close(fd);
	fd = open("/dev/null", O_RDONLY);
	assert_true(tl_source_read_fd(fd, &text, &len, why, sizeof why));
	assert_int_equal(len, 0);
	tl_free(text);
	close(fd);
}

static void test_outfile_is_input(void **state)
{
	char *in = in_dir(state, "in.py");
	char *soft = in_dir(state, "link.py");
	char *hard = in_dir(state, "hard.py");
	char *other = in_dir(state, "other.txt");
	FILE *f = fopen(in, "w");
	fputs("x = 1\n", f);
	fclose(f);
	assert_int_equal(symlink(in, soft), 0);
	assert_int_equal(link(in, hard), 0);
	char why[256];
	const char *names[] = { in, soft, hard };
	for (int i = 0; i < 3; i++) {
		TlOutFile o;
		assert_true(tl_outfile_open(&o, names[i], why, sizeof why));
		assert_true(tl_outfile_is(&o, in));
		assert_true(tl_outfile_finish(&o, why, sizeof why));
	}
	/* Opening did not truncate the input. */
	struct stat st;
	assert_int_equal(stat(in, &st), 0);
	assert_int_equal(st.st_size, 6);
	TlOutFile o;
	assert_true(tl_outfile_open(&o, other, why, sizeof why));
	assert_false(tl_outfile_is(&o, in));
	assert_true(tl_outfile_start(&o, why, sizeof why));
	fputs("report\n", o.stream);
	assert_true(tl_outfile_finish(&o, why, sizeof why));
	tl_free(in);
	tl_free(soft);
	tl_free(hard);
	tl_free(other);
}

static void test_outfile_full_disk(void **state)
{
	(void)state;
	TlOutFile o;
	char why[256];
	assert_true(tl_outfile_open(&o, "/dev/full", why, sizeof why));
	assert_false(tl_outfile_is(&o, "/dev/full")); /* not a regular file */
	assert_true(tl_outfile_start(&o, why, sizeof why));
	fputs("a report\n", o.stream);
	assert_false(tl_outfile_finish(&o, why, sizeof why));
	assert_non_null(strstr(why, "No space left"));
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_invalid_utf8_escaped),
		cmocka_unit_test(test_snippet_keeps_columns),
		cmocka_unit_test(test_command_like),
		cmocka_unit_test(test_json_replacement),
		cmocka_unit_test(test_diag_one_line),
		cmocka_unit_test(test_load_refuses_non_files),
		cmocka_unit_test(test_read_fd_is_bounded),
		cmocka_unit_test(test_outfile_is_input),
		cmocka_unit_test(test_outfile_full_disk),
	};
	return cmocka_run_group_tests_name("escape", tests, group_setup, group_teardown);
}
