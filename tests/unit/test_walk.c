/* walk.h: a TlWalk visits the nodes a cursor walk (tl_walk_next) visits,
 * in the same order, skipping the same subtrees, from any root: on the
 * corpus scripts, on trees with syntax errors, and on wide and deeply
 * nested code. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "syntax/walk.h"

/* Whether a walk descends into `n`: every few nodes it does not, decided
 * by the node itself so that both walks decide alike. */
static bool descend_into(TSNode n, TSNode root, uint32_t skip)
{
	if (ts_node_eq(n, root) || !skip)
		return true;
	return (ts_node_start_byte(n) * 7u + ts_node_end_byte(n) + ts_node_symbol(n)) % skip != 0;
}

/* Walks under `root` both ways and compares; returns the nodes visited. */
static uint32_t compare_walks(TSNode root, uint32_t skip)
{
	TlArray(TSNode) seen;
	tl_array_init(&seen);
	TSTreeCursor cur = ts_tree_cursor_new(root);
	bool descend;
	do {
		TSNode n = ts_tree_cursor_current_node(&cur);
		tl_array_push(&seen, n);
		descend = descend_into(n, root, skip);
	} while (tl_walk_next(&cur, root, descend));
	ts_tree_cursor_delete(&cur);
	TlWalk w;
	tl_walk_start(&w, root);
	uint32_t i = 0;
	do {
		assert_true(i < seen.size);
		if (!ts_node_eq(w.node, seen.items[i]))
			fail_msg("node %u: %s at %u, the cursor walk has %s at %u", i, ts_node_type(w.node),
				 ts_node_start_byte(w.node), ts_node_type(seen.items[i]),
				 ts_node_start_byte(seen.items[i]));
		descend = descend_into(w.node, root, skip);
		i++;
	} while (tl_walk_step(&w, descend));
	tl_walk_end(&w);
	assert_int_equal(i, seen.size);
	tl_array_release(&seen);
	return i;
}

/* Every walk of `code`: from the root and from each node, descending
 * everywhere and skipping some subtrees. */
static uint32_t compare_all(const char *code)
{
	TlFixture *fx = tl_fixture_new(code);
	TSNode root = ts_tree_root_node(fx->tree);
	uint32_t total = compare_walks(root, 0) + compare_walks(root, 5);
	/* From inner roots too (bounded: the first nodes of the file). */
	TSTreeCursor cur = ts_tree_cursor_new(root);
	uint32_t n = 0;
	do {
		total += compare_walks(ts_tree_cursor_current_node(&cur), 3);
	} while (++n < 400 && tl_walk_next(&cur, root, true));
	ts_tree_cursor_delete(&cur);
	tl_fixture_free(fx);
	return total;
}

static void test_walks_agree_on_snippets(void **state)
{
	(void)state;
	TlBuf wide, deep;
	tl_test_wide_and_deep(&wide, &deep);
	for (int i = 0; i < 40; i++)
		tl_buf_addf(&wide, "y%d = %d\n", i, i);
	const char *snippets[] = {
		"",
		"x",
		"def f(:\n    pass\nloss.backward(\nprint(x y)\nz = [1, 2\n",
		"class A:\n    def f(self, x):\n        return [i for i in x if i]  # c\n",
		"s = f\"{a!r:>{w}} and {b}\"\nmatch p:\n    case [1, *r]:\n        pass\n",
		wide.data,
		deep.data,
	};
	uint32_t total = 0;
	for (size_t i = 0; i < sizeof snippets / sizeof *snippets; i++)
		total += compare_all(snippets[i]);
	assert_true(total > 1000);
	tl_buf_release(&wide);
	tl_buf_release(&deep);
}

static void compare_script(const char *text, void *ctx)
{
	*(uint32_t *)ctx += compare_all(text);
}

static void test_walks_agree_on_corpus(void **state)
{
	(void)state;
	uint32_t total = 0;
	uint32_t files = tl_test_each_script(compare_script, &total);
	assert_true(files > 5);
	assert_true(total > 10000);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walks_agree_on_snippets),
		cmocka_unit_test(test_walks_agree_on_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
