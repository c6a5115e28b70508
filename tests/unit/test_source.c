/* Unit tests for analyzer/base/source.h: UTF-8 validation, BOM, binary and size
 * checks, line splitting, code-point columns, loading from disk. */
#include "helpers.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "project/scan.h"

typedef struct {
	char dir[64]; /* a private temporary directory for the load tests */
} SourceState;

static int group_setup(void **state)
{
	SourceState *s = tl_calloc(1, sizeof *s);
	snprintf(s->dir, sizeof s->dir, "/tmp/tl-source-XXXXXX");
	if (!mkdtemp(s->dir)) {
		tl_free(s);
		return -1;
	}
	*state = s;
	return 0;
}

static int group_teardown(void **state)
{
	SourceState *s = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
	int rc = system(cmd);
	tl_free(s);
	return rc == 0 ? 0 : -1;
}

/* Writes `len` bytes to DIR/name; returns the path (caller frees). */
static char *write_file(void **state, const char *name, const char *data, size_t len)
{
	SourceState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/%s", s->dir, name);
	FILE *f = fopen(p.data, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return tl_buf_detach(&p);
}

/* Expects `text` to be refused with a reason containing `want`. */
static void expect_refused(const char *text, size_t len, const char *want)
{
	TlSource src;
	char why[256] = "";
	assert_false(tl_source_init_text(&src, "t.py", text, len, why, sizeof why));
	if (!strstr(why, want))
		fail_msg("reason '%s' does not contain '%s'", why, want);
	/* Left released: nothing to free, nothing dangling. */
	assert_null(src.path);
	assert_null(src.text);
	assert_null(src.line_starts.items);
	tl_source_release(&src);
}

/* ---- UTF-8 ------------------------------------------------------------------ */

static void test_valid_multibyte(void **state)
{
	(void)state;
	/* 2-, 3- and 4-byte sequences, the largest code point, U+FFFD. */
	const char *text = "s = \"\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\xEF\xBF\xBD\"\n";
	TlSource src;
	char why[256] = "";
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	assert_string_equal(src.text, text);
	assert_int_equal(src.length, strlen(text));
	assert_string_equal(src.path, "t.py");
	assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)text, strlen(text)),
			 strlen(text));
	/* s, space, =, space, quote, 5 code points, quote, newline */
	assert_int_equal(tl_utf8_count(text, strlen(text)), 12);
	tl_source_release(&src);
}

static void test_overlong_rejected(void **state)
{
	(void)state;
	/* '/' encoded in two, three and four bytes. */
	expect_refused("x = '\xC0\xAF'\n", 8, "not valid UTF-8");
	expect_refused("x = '\xC1\xBF'\n", 8, "byte 0xC1");
	expect_refused("x = '\xE0\x80\xAF'\n", 9, "line 1, column 6");
	expect_refused("x = '\xF0\x80\x80\xAF'\n", 10, "byte 0xF0 at line 1, column 6");
	assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)"ab\xE0\x9F\xBF", 5), 2);
}

static void test_surrogate_and_out_of_range_rejected(void **state)
{
	(void)state;
	expect_refused("a\xED\xA0\x80", 4, "byte 0xED at line 1, column 2");
	expect_refused("a\xED\xBF\xBF", 4, "column 2");
	/* U+110000 is past the last code point. */
	expect_refused("a\xF4\x90\x80\x80", 5, "byte 0xF4 at line 1, column 2");
	expect_refused("a\xF5\x80\x80\x80", 5, "byte 0xF5");
	/* The code points just below the surrogates and above them are fine. */
	assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)"\xED\x9F\xBF\xEE\x80\x80", 6), 6);
}

static void test_truncated_sequence_rejected(void **state)
{
	(void)state;
	/* Truncated by the end of the text, and by an ASCII byte. */
	expect_refused("ab\xE2\x82", 4, "byte 0xE2 at line 1, column 3");
	expect_refused("ab\xE2\x82x\n", 6, "byte 0xE2 at line 1, column 3");
	expect_refused("\xF0\x9F\x98", 3, "line 1, column 1");
	/* A continuation byte with no lead. */
	expect_refused("ok\n\x80", 4, "byte 0x80 at line 2, column 1");
	assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)"\xC3", 1), 0);
}

static void test_invalid_byte_position_in_code_points(void **state)
{
	(void)state;
	/* Line 3; before the bad byte: e-acute, a CJK char, an emoji, a space. */
	const char text[] = "a = 1\nb = 2\n\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80 \xFF\n";
	expect_refused(text, sizeof text - 1, "byte 0xFF at line 3, column 5");
	expect_refused("\xFE", 1, "byte 0xFE at line 1, column 1");
}

static void test_invalid_byte_after_crlf(void **state)
{
	(void)state;
	expect_refused("a = 1\r\nb = \xFF\r\n", 14, "line 2, column 5");
}

static void test_invalid_byte_after_lone_cr(void **state)
{
	(void)state;
	expect_refused("a = 1\rb = \xFF\r", 12, "line 2, column 5");
}

/* ---- BOM, NUL, size ------------------------------------------------------------ */

static void test_bom_stripped(void **state)
{
	(void)state;
	const char text[] = "\xEF\xBB\xBFx = 1\ny = 2\n";
	TlSource src;
	char why[256] = "";
	assert_true(tl_source_init_text(&src, "t.py", text, sizeof text - 1, why, sizeof why));
	assert_string_equal(src.text, "x = 1\ny = 2\n");
	assert_int_equal(src.length, 12);
	TlPosition p = tl_source_position(&src, 0);
	assert_int_equal(p.line, 1);
	assert_int_equal(p.column, 1);
	tl_source_release(&src);

	/* Only a leading BOM is stripped; one further in is an ordinary
	 * (valid) U+FEFF. */
	const char mid[] = "x\xEF\xBB\xBF";
	assert_true(tl_source_init_text(&src, "t.py", mid, sizeof mid - 1, why, sizeof why));
	assert_int_equal(src.length, 4);
	tl_source_release(&src);

	/* A file that is only a BOM is empty. */
	assert_true(tl_source_init_text(&src, "t.py", "\xEF\xBB\xBF", 3, why, sizeof why));
	assert_int_equal(src.length, 0);
	assert_string_equal(src.text, "");
	assert_int_equal(tl_source_line_count(&src), 1);
	tl_source_release(&src);
}

static void test_nul_is_binary(void **state)
{
	(void)state;
	expect_refused("x = 1\n\0y", 8, "binary");
	expect_refused("\0", 1, "binary");
	expect_refused("\xEF\xBB\xBF\0", 4, "binary");
}

static void test_size_limit(void **state)
{
	(void)state;
	size_t n = (size_t)TL_SOURCE_MAX_BYTES + 1;
	char *big = tl_malloc(n);
	memset(big, 'a', n);
	expect_refused(big, n, "too large");

	/* Exactly the limit is accepted. */
	TlSource src;
	char why[256] = "";
	assert_true(tl_source_init_text(&src, "t.py", big, n - 1, why, sizeof why));
	assert_int_equal(src.length, TL_SOURCE_MAX_BYTES);
	tl_source_release(&src);
	tl_free(big);
}

/* ---- lines and positions --------------------------------------------------------- */

static void test_crlf_lines(void **state)
{
	(void)state;
	TlSource src;
	char why[256] = "";
	const char *text = "ab\r\ncd\r\n\r\nef";
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	assert_int_equal(tl_source_line_count(&src), 4);
	uint32_t len;
	const char *l = tl_source_line(&src, 2, &len);
	assert_int_equal(len, 2);
	assert_memory_equal(l, "cd", 2);
	tl_source_line(&src, 3, &len);
	assert_int_equal(len, 0);
	l = tl_source_line(&src, 4, &len);
	assert_int_equal(len, 2);
	assert_memory_equal(l, "ef", 2);
	/* 'e' is byte 10: line 4, column 1; the '\n' of a CRLF is still on
	 * line 1. */
	TlPosition p = tl_source_position(&src, 10);
	assert_int_equal(p.line, 4);
	assert_int_equal(p.column, 1);
	p = tl_source_position(&src, 3);
	assert_int_equal(p.line, 1);
	assert_int_equal(p.column, 4);
	tl_source_release(&src);
}

static void test_lone_cr_lines(void **state)
{
	(void)state;
	TlSource src;
	char why[256] = "";
	const char *text = "a\rbb\r\rc\n";
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	/* "a", "bb", "", "c", and the empty line after the final newline. */
	assert_int_equal(tl_source_line_count(&src), 5);
	uint32_t len;
	const char *l = tl_source_line(&src, 2, &len);
	assert_int_equal(len, 2);
	assert_memory_equal(l, "bb", 2);
	tl_source_line(&src, 3, &len);
	assert_int_equal(len, 0);
	l = tl_source_line(&src, 4, &len);
	assert_int_equal(len, 1);
	assert_memory_equal(l, "c", 1);
	TlPosition p = tl_source_position(&src, 6); /* 'c' */
	assert_int_equal(p.line, 4);
	assert_int_equal(p.column, 1);
	tl_source_release(&src);
}

/* The word-at-a-time ASCII scan and the memchr line and CR scans give what
 * a byte-by-byte reading gives, wherever the interesting byte falls (every
 * offset against the 8-byte words), for LF, CRLF and lone-CR text. */
static void test_fast_scans_match_bytewise(void **state)
{
	(void)state;
	char text[64];
	for (size_t at = 0; at < 24; at++) {
		/* A bad byte at `at`, ASCII before it. */
		memset(text, 'x', sizeof text);
		text[at] = (char)0xFF;
		assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)text, 40), at);
		/* A valid 2-byte sequence at `at`, then a bad byte 9 further on. */
		memset(text, 'x', sizeof text);
		text[at] = (char)0xC3;
		text[at + 1] = (char)0xA9;
		text[at + 10] = (char)0x80;
		assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)text, 40), at + 10);
		for (int form = 0; form < 3; form++) {
			/* Line breaks at `at` and `at` + 9: LF, CRLF or a lone CR. */
			const char *brk = form == 0 ? "\n" : form == 1 ? "\r\n" : "\r";
			size_t blen = strlen(brk), n = 0;
			memset(text, 'y', sizeof text);
			n = at;
			memcpy(text + n, brk, blen);
			n += blen + 8;
			memcpy(text + n, brk, blen);
			n += blen + 3;
			TlSource src;
			char why[256] = "";
			assert_true(tl_source_init_text(&src, "t.py", text, n, why, sizeof why));
			assert_int_equal(tl_source_line_count(&src), 3);
			uint32_t len;
			tl_source_line(&src, 1, &len);
			assert_int_equal(len, at);
			tl_source_line(&src, 2, &len);
			assert_int_equal(len, 8);
			tl_source_line(&src, 3, &len);
			assert_int_equal(len, 3);
			/* The parser reads lone CRs as LFs, and only those. */
			if (form == 2) {
				assert_non_null(src.parse_text);
				assert_int_equal(src.parse_text[at], '\n');
				assert_int_equal(src.parse_text[at + 9], '\n');
				assert_int_equal(src.text[at], '\r');
			} else {
				assert_null(src.parse_text);
			}
			tl_source_release(&src);
		}
	}
}

static void test_position_counts_code_points(void **state)
{
	(void)state;
	TlSource src;
	char why[256] = "";
	/* "é = f(中)": é is 2 bytes, 中 is 3. */
	const char *text = "x = 1\n\xC3\xA9 = f(\xE4\xB8\xAD) + g\n";
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	const char *f = strchr(text, 'f');
	TlPosition p = tl_source_position(&src, (uint32_t)(f - text));
	assert_int_equal(p.line, 2);
	assert_int_equal(p.column, 5); /* é, space, =, space, f */
	const char *g = strchr(text, 'g');
	p = tl_source_position(&src, (uint32_t)(g - text));
	assert_int_equal(p.line, 2);
	assert_int_equal(p.column, 12); /* é␠=␠f(中)␠+␠g */
	/* Byte 6 is the start of line 2. */
	p = tl_source_position(&src, 6);
	assert_int_equal(p.line, 2);
	assert_int_equal(p.column, 1);
	/* The end of the text is a valid position: the empty last line. */
	p = tl_source_position(&src, src.length);
	assert_int_equal(p.line, 3);
	assert_int_equal(p.column, 1);
	/* Past the end clamps to the end. */
	p = tl_source_position(&src, src.length + 100);
	assert_int_equal(p.line, 3);
	assert_int_equal(p.column, 1);
	tl_source_release(&src);
}

static void test_line_without_terminators(void **state)
{
	(void)state;
	TlSource src;
	char why[256] = "";
	const char *text = "first\nsecond\r\nthird";
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	assert_int_equal(tl_source_line_count(&src), 3);
	uint32_t len;
	const char *l = tl_source_line(&src, 1, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(l, "first", 5);
	l = tl_source_line(&src, 2, &len);
	assert_int_equal(len, 6);
	assert_memory_equal(l, "second", 6);
	l = tl_source_line(&src, 3, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(l, "third", 5);
	/* Out of range: an empty line, not a crash. */
	l = tl_source_line(&src, 0, &len);
	assert_int_equal(len, 0);
	assert_non_null(l);
	l = tl_source_line(&src, 4, &len);
	assert_int_equal(len, 0);
	assert_non_null(l);
	tl_source_release(&src);
}

static void test_empty_text(void **state)
{
	(void)state;
	TlSource src;
	char why[256] = "";
	assert_true(tl_source_init_text(&src, "t.py", "", 0, why, sizeof why));
	assert_int_equal(src.length, 0);
	assert_string_equal(src.text, "");
	assert_int_equal(tl_source_line_count(&src), 1);
	TlPosition p = tl_source_position(&src, 0);
	assert_int_equal(p.line, 1);
	assert_int_equal(p.column, 1);
	tl_source_release(&src);
}

/* ---- loading -------------------------------------------------------------------- */

static void test_load_file(void **state)
{
	const char data[] = "\xEF\xBB\xBFimport torch\r\nx = '\xC3\xA9'\n";
	char *path = write_file(state, "ok.py", data, sizeof data - 1);
	TlSource src;
	char why[256] = "";
	assert_true(tl_source_load(&src, path, why, sizeof why));
	assert_string_equal(src.path, path);
	assert_string_equal(src.text, "import torch\r\nx = '\xC3\xA9'\n");
	assert_int_equal(tl_source_line_count(&src), 3);
	tl_source_release(&src);
	tl_free(path);
}

static void test_load_larger_than_read_buffer(void **state)
{
	/* Bigger than the first read (64 KiB), so the buffer has to grow. */
	size_t n = 200 * 1024;
	char *data = tl_malloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (i % 80 == 79) ? '\n' : 'a';
	char *path = write_file(state, "big.py", data, n);
	TlSource src;
	char why[256] = "";
	assert_true(tl_source_load(&src, path, why, sizeof why));
	assert_int_equal(src.length, n);
	assert_memory_equal(src.text, data, n);
	assert_int_equal(tl_source_line_count(&src), n / 80 + 1);
	tl_source_release(&src);
	tl_free(path);
	tl_free(data);
}

static void test_load_missing_file(void **state)
{
	SourceState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/no-such-file.py", s->dir);
	TlSource src;
	char why[256] = "";
	assert_false(tl_source_load(&src, p.data, why, sizeof why));
	assert_string_equal(why, "No such file or directory");
	assert_null(src.text);
	tl_source_release(&src);
	tl_buf_release(&p);
}

static void test_load_directory(void **state)
{
	SourceState *s = *state;
	TlSource src;
	char why[256] = "";
	assert_false(tl_source_load(&src, s->dir, why, sizeof why));
	assert_string_equal(why, "is a directory");
	assert_null(src.text);
	tl_source_release(&src);
}

static void test_load_too_large(void **state)
{
	SourceState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/huge.py", s->dir);
	int fd = open(p.data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	/* Sparse: no need to write 16 MiB. */
	assert_int_equal(ftruncate(fd, (off_t)TL_SOURCE_MAX_BYTES + 1), 0);
	close(fd);
	TlSource src;
	char why[256] = "";
	assert_false(tl_source_load(&src, p.data, why, sizeof why));
	assert_non_null(strstr(why, "too large"));
	assert_null(src.text);
	tl_source_release(&src);
	unlink(p.data);
	tl_buf_release(&p);
}

static void test_load_invalid_utf8_and_binary(void **state)
{
	char *path = write_file(state, "latin1.py", "# caf\xE9\n", 7);
	TlSource src;
	char why[256] = "";
	assert_false(tl_source_load(&src, path, why, sizeof why));
	assert_string_equal(why, "not valid UTF-8 (byte 0xE9 at line 1, column 6)");
	tl_free(path);

	path = write_file(state, "blob.py", "\x7f" "ELF\0\0", 6);
	assert_false(tl_source_load(&src, path, why, sizeof why));
	assert_non_null(strstr(why, "binary"));
	tl_free(path);
}

/* A FIFO where a file was (swapped in after a walk saw a regular file)
 * is refused at once by every reader of files by path: none waits for a
 * writer (before, the scan's fopen blocked forever). An alarm fails the
 * test instead of hanging it. */
static void test_fifo_never_waited_on(void **state)
{
	SourceState *s = *state;
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/swapped.py", s->dir);
	assert_int_equal(mkfifo(p.data, 0600), 0);
	alarm(10);
	char why[256] = "";
	long long size = -1;
	assert_int_equal(tl_source_open_regular(p.data, &size, why, sizeof why), -1);
	assert_string_equal(why, "not a regular file");
	TlBuf lines;
	tl_buf_init(&lines);
	assert_false(tl_scan_file_imports(p.data, &lines));
	assert_int_equal(lines.len, 0);
	/* The scan of the folder: the FIFO is not listed, and it returns. */
	TlBuf dir;
	tl_buf_init(&dir);
	tl_buf_addf(&dir, "%s/", s->dir);
	TlScan scan;
	tl_scan_build(&scan, dir.data, NULL);
	for (uint32_t i = 0; i < scan.files.size; i++)
		assert_null(strstr(scan.files.items[i].path, "swapped.py"));
	tl_scan_release(&scan);
	alarm(0);
	unlink(p.data);
	tl_buf_release(&dir);
	tl_buf_release(&lines);
	tl_buf_release(&p);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_multibyte),
		cmocka_unit_test(test_overlong_rejected),
		cmocka_unit_test(test_surrogate_and_out_of_range_rejected),
		cmocka_unit_test(test_truncated_sequence_rejected),
		cmocka_unit_test(test_invalid_byte_position_in_code_points),
		cmocka_unit_test(test_invalid_byte_after_crlf),
		cmocka_unit_test(test_invalid_byte_after_lone_cr),
		cmocka_unit_test(test_bom_stripped),
		cmocka_unit_test(test_nul_is_binary),
		cmocka_unit_test(test_size_limit),
		cmocka_unit_test(test_crlf_lines),
		cmocka_unit_test(test_lone_cr_lines),
		cmocka_unit_test(test_fast_scans_match_bytewise),
		cmocka_unit_test(test_position_counts_code_points),
		cmocka_unit_test(test_line_without_terminators),
		cmocka_unit_test(test_empty_text),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_fifo_never_waited_on),
		cmocka_unit_test(test_load_larger_than_read_buffer),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_load_directory),
		cmocka_unit_test(test_load_too_large),
		cmocka_unit_test(test_load_invalid_utf8_and_binary),
	};
	return cmocka_run_group_tests_name("source", tests, group_setup, group_teardown);
}
