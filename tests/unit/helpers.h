/* Shared fixtures for the cmocka unit tests: parse a Python snippet and
 * build its index, find nodes by their text. Header-only: each test binary
 * includes it once. */
#ifndef TL_TEST_HELPERS_H
#define TL_TEST_HELPERS_H

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <tree_sitter/api.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/source.h"
#include "facts/facts.h"
#include "syntax/index.h"
#include "syntax/syms.h"

typedef struct TlFixture {
	TlSource src;
	TSParser *parser;
	TSTree *tree;
	TlIndex idx;
} TlFixture;

/* Parses `code` as file "t.py" and indexes it; caller calls tl_fixture_free. */
static inline TlFixture *tl_fixture_new(const char *code)
{
	TlFixture *fx = tl_calloc(1, sizeof *fx);
	char why[256];
	assert_true(tl_source_init_text(&fx->src, "t.py", code, strlen(code), why, sizeof why));
	fx->parser = ts_parser_new();
	ts_parser_set_language(fx->parser, tl_python_language());
	fx->tree = ts_parser_parse_string(fx->parser, NULL, fx->src.text, fx->src.length);
	tl_facts_build(&fx->idx, &fx->src, ts_tree_root_node(fx->tree));
	return fx;
}

static inline void tl_fixture_free(TlFixture *fx)
{
	tl_index_release(&fx->idx);
	ts_tree_delete(fx->tree);
	ts_parser_delete(fx->parser);
	tl_source_release(&fx->src);
	tl_free(fx);
}

/* The smallest named node that spans exactly `len` bytes from byte `start`.
 * Fails the test if there is none. */
static inline TSNode tl_fixture_node_span(TlFixture *fx, uint32_t start, uint32_t len)
{
	uint32_t end = start + len;
	TSNode n = ts_node_named_descendant_for_byte_range(ts_tree_root_node(fx->tree), start, end);
	/* Climb to the node that covers exactly [start, end). */
	while (!ts_node_is_null(n) &&
	       (ts_node_start_byte(n) != start || ts_node_end_byte(n) != end)) {
		TSNode parent = ts_node_parent(n);
		if (ts_node_is_null(parent) || ts_node_end_byte(parent) - ts_node_start_byte(parent) >
						       ts_node_end_byte(n) - ts_node_start_byte(n) + end - start)
			break;
		n = parent;
	}
	assert_int_equal(ts_node_start_byte(n), start);
	assert_int_equal(ts_node_end_byte(n), end);
	return n;
}

/* The smallest named node whose text is exactly `text`, at its `nth`
 * occurrence (0-based) in the source. Fails the test if there is none. */
static inline TSNode tl_fixture_node(TlFixture *fx, const char *text, int nth)
{
	const char *p = fx->src.text;
	for (int i = 0; i <= nth; i++) {
		p = strstr(i ? p + 1 : p, text);
		assert_non_null(p);
	}
	return tl_fixture_node_span(fx, (uint32_t)(p - fx->src.text), (uint32_t)strlen(text));
}

/* The node whose text is exactly `text`, at its first occurrence from the
 * start of the first occurrence of `anchor` on: ("print(total", "total")
 * picks the `total` that print reads, ("x = ", "y") the first `y` after
 * "x = ". */
static inline TSNode tl_fixture_node_after(TlFixture *fx, const char *anchor, const char *text)
{
	const char *a = strstr(fx->src.text, anchor);
	assert_non_null(a);
	const char *p = strstr(a, text);
	assert_non_null(p);
	return tl_fixture_node_span(fx, (uint32_t)(p - fx->src.text), (uint32_t)strlen(text));
}

/* The first argument of the first call whose text is `call_text`. Fails
 * the test if the call has none. */
static inline TSNode tl_fixture_arg0(TlFixture *fx, const char *call_text)
{
	TSNode call = tl_fixture_node(fx, call_text, 0);
	TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
	assert_false(ts_node_is_null(args));
	assert_true(ts_node_named_child_count(args) >= 1);
	return ts_node_named_child(args, 0);
}

/* The receiver of the first method call whose text is `call_text`
 * (`x` of `x.cuda()`). */
static inline TSNode tl_fixture_receiver(TlFixture *fx, const char *call_text)
{
	TSNode call = tl_fixture_node(fx, call_text, 0);
	TSNode fn = ts_node_child_by_field_name(call, "function", 8);
	return ts_node_child_by_field_name(fn, "object", 6);
}

/* The whole file at `path`, NUL-terminated (the caller frees it); *len
 * receives its length. NULL when it cannot be opened. */
static inline char *tl_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	TlBuf b;
	tl_buf_init(&b);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		tl_buf_addn(&b, chunk, n);
	fclose(f);
	*len = b.len;
	return tl_buf_detach(&b);
}

/* Stress inputs for walks: `wide`, one call with 60 arguments; `deep`,
 * 300 nested calls (both initialised here, released by the caller). */
static inline void tl_test_wide_and_deep(TlBuf *wide, TlBuf *deep)
{
	tl_buf_init(wide);
	tl_buf_init(deep);
	tl_buf_add(wide, "x = f(");
	for (int i = 0; i < 60; i++)
		tl_buf_addf(wide, "a%d, ", i);
	tl_buf_add(wide, ")\n");
	tl_buf_add(deep, "z = ");
	for (int i = 0; i < 300; i++)
		tl_buf_add(deep, "g(");
	for (int i = 0; i < 300; i++)
		tl_buf_add(deep, ")");
	tl_buf_add(deep, "\n");
}

/* Calls `fn` with the text of each Python file of corpus/scripts (the
 * tests run from the repository's root); returns how many there were. */
static inline uint32_t tl_test_each_script(void (*fn)(const char *text, void *ctx), void *ctx)
{
	DIR *d = opendir("corpus/scripts");
	assert_non_null(d);
	struct dirent *e;
	uint32_t files = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".py") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "corpus/scripts/%s", e->d_name);
		size_t size;
		char *text = tl_test_read_file(path, &size);
		assert_non_null(text);
		fn(text, ctx);
		tl_free(text);
		files++;
	}
	closedir(d);
	return files;
}

/* `text` compiled as a query of the Python grammar; fails the test when it
 * does not compile. */
static inline TSQuery *tl_test_compile(const char *text)
{
	uint32_t offset;
	TSQueryError err;
	TSQuery *q = ts_query_new(tl_python_language(), text, (uint32_t)strlen(text), &offset, &err);
	if (!q)
		fail_msg("query does not compile (%d at %u): %s", (int)err, offset, text);
	return q;
}

#endif
