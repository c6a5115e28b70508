/* base/alloc.h's arena: tree-sitter's allocations made while a thread has
 * entered it are cut from its blocks and freed with it; a tree parsed in
 * one is the tree parsed without (the same s-expression, over the corpus
 * scripts and a long module); pieces made before it was entered are
 * reallocated and freed as before (the asan unit build finds a leak or a
 * bad free). */
#include "helpers.h"

#include <stdlib.h>

/* tree-sitter's allocator hooks (its lib/src/alloc.h), as
 * tl_alloc_install sets them. */
extern void *(*ts_current_malloc)(size_t size);
extern void *(*ts_current_calloc)(size_t count, size_t size);
extern void *(*ts_current_realloc)(void *ptr, size_t size);
extern void (*ts_current_free)(void *ptr);

static void test_pieces(void **state)
{
	(void)state;
	void *before = ts_current_malloc(32);
	memset(before, 7, 32);
	TlArena *a = tl_arena_new();
	tl_arena_enter(a);
	/* made before: reallocated and freed outside the arena */
	before = ts_current_realloc(before, 4096);
	assert_int_equal(((unsigned char *)before)[31], 7);
	ts_current_free(before);
	char *p = ts_current_malloc(10);
	memcpy(p, "abcdefghi", 10);
	char *q = ts_current_realloc(p, 100); /* the last piece: grows in place */
	assert_ptr_equal(p, q);
	char *r = ts_current_calloc(4, 4);
	for (int i = 0; i < 16; i++)
		assert_int_equal(r[i], 0);
	char *s = ts_current_realloc(q, 1 << 20); /* not the last: copied */
	assert_ptr_not_equal(s, q);
	assert_string_equal(s, "abcdefghi");
	assert_int_equal(((uintptr_t)s) % 8, 0);
	ts_current_free(r);
	ts_current_free(s);
	/* many pieces over several blocks */
	for (int i = 0; i < 100000; i++) {
		uint32_t *x = ts_current_malloc(sizeof *x * (1 + i % 17));
		x[i % 17] = (uint32_t)i;
		if (i % 3 == 0)
			ts_current_free(x);
	}
	tl_arena_leave();
	tl_arena_free(a);
	tl_arena_free(NULL);
}

/* What tree-sitter frees in an arena is given out again: a parser's
 * garbage (its stack nodes, subtrees of branches given up) no longer stays
 * until the arena is freed (random tokens, 1.2 MB: 331 MB at the peak
 * before, 93 MB now, 98 MB without the arena). */
static void test_reuse(void **state)
{
	(void)state;
	TlArena *a = tl_arena_new();
	tl_arena_enter(a);
	char *keep = ts_current_malloc(8);
	void *piece[64];
	for (int round = 0; round < 2000; round++) {
		for (int i = 0; i < 64; i++) {
			/* a few sizes as tree-sitter's, and a large one that grows */
			piece[i] = ts_current_malloc(i % 4 == 3 ? 3000 + (size_t)(i * 8) : 24 + (size_t)(i % 3) * 56);
			memset(piece[i], round & 0xff, 24);
		}
		piece[0] = ts_current_realloc(piece[0], 5000);
		keep = ts_current_realloc(keep, 8); /* the same size: in place */
		for (int i = 0; i < 64; i++)
			ts_current_free(piece[i]);
	}
	/* 2,000 rounds of about 60 KB: one round's worth of blocks */
	assert_true(tl_arena_bytes(a) <= (size_t)1 << 20);
	ts_current_free(keep);
	/* a size freed is given again, the piece the same */
	char *p = ts_current_malloc(40), *q = ts_current_malloc(40);
	ts_current_free(p);
	char *r = ts_current_malloc(36);
	assert_ptr_equal(p, r);
	ts_current_free(q);
	ts_current_free(r);
	tl_arena_leave();
	tl_arena_free(a);
	assert_int_equal(tl_arena_bytes(NULL), 0);
}

/* Random Python tokens, `bytes` long (an error on about every line), from
 * a fixed seed. */
static char *random_tokens(size_t bytes)
{
	static const char *const tok[] = { "x", "y", "(", ")", "[", "]", "{", "}", ":", ",", "=", "+", "def", "class",
					   "if", "else", "for", "in", "return", "lambda", "1", "'s'", ".", "*", "\n",
					   "    ", "import", "not", "and", "->" };
	TlBuf b;
	tl_buf_init(&b);
	uint32_t seed = 12345;
	while (b.len < bytes) {
		seed = seed * 1103515245u + 12345u;
		const char *t = tok[(seed >> 16) % (sizeof tok / sizeof *tok)];
		tl_buf_add(&b, t);
		tl_buf_addc(&b, ' ');
	}
	return tl_buf_detach(&b);
}

static TSTree *parse(const char *text, bool in_arena, TlArena **arena);

/* Error-heavy input parsed in an arena holds about what valid code does
 * per byte of text (up to 70 bytes over Debian's torch), not the
 * parser's garbage too (these 300,000 bytes: 260 MB before, 25 MB now). */
static void test_error_garbage(void **state)
{
	(void)state;
	char *text = random_tokens(300000);
	TlArena *arena;
	TSTree *tree = parse(text, true, &arena);
	assert_non_null(tree);
	size_t bytes = tl_arena_bytes(arena);
	print_message("random tokens: %zu bytes of text, %zu in the arena\n", strlen(text), bytes);
	assert_true(bytes < 150 * strlen(text));
	tl_arena_free(arena);
	tl_free(text);
}

static TSTree *parse(const char *text, bool in_arena, TlArena **arena)
{
	*arena = NULL;
	if (in_arena) {
		*arena = tl_arena_new();
		tl_arena_enter(*arena);
	}
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
	ts_parser_delete(parser);
	if (in_arena)
		tl_arena_leave();
	return tree;
}

static uint32_t compare_parses(const char *text)
{
	TlArena *none, *arena;
	TSTree *plain = parse(text, false, &none);
	TSTree *cut = parse(text, true, &arena);
	char *a = ts_node_string(ts_tree_root_node(plain));
	char *b = ts_node_string(ts_tree_root_node(cut));
	assert_string_equal(a, b);
	uint32_t nodes = ts_node_descendant_count(ts_tree_root_node(cut));
	tl_free(a);
	tl_free(b);
	ts_tree_delete(plain);
	tl_arena_free(arena); /* the tree with it */
	return nodes;
}

static void compare_script(const char *text, void *ctx)
{
	*(uint32_t *)ctx += compare_parses(text);
}

static void test_same_trees(void **state)
{
	(void)state;
	uint32_t total = 0;
	uint32_t files = tl_test_each_script(compare_script, &total);
	TlBuf flat;
	tl_buf_init(&flat);
	for (int i = 0; i < 20000; i++)
		tl_buf_addf(&flat, "y%d = f(%d, [a, b]  # n\n", i, i); /* errors too */
	total += compare_parses(flat.data);
	tl_buf_release(&flat);
	print_message("%u files and a long module: %u nodes compared\n", files, total);
	assert_true(files > 5);
	assert_true(total > 100000);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_error_garbage),
		cmocka_unit_test(test_same_trees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
