/* treewalk.h: the walk over subtrees yields what the public API says,
 * node for node: the same nodes in pre-order (ts_node_child), symbols,
 * named flags, child counts, fields (ts_node_field_name_for_child) and
 * depths, skipping the same subtrees; tl_tree_walk_kids the children of
 * any node; and tl_tree_field each field's node
 * (ts_node_child_by_field_id); with TL_TREE_WALK_NO_TOKENS, the same walk
 * less the anonymous leaves, counted. On snippets with aliases, extras, errors and deep or wide
 * nesting, and on the corpus scripts. This test guards the dependency on
 * tree-sitter's internal headers: rerun it on a runtime version bump. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "syntax/treewalk.h"

typedef struct Seen {
	TSNode node;
	TSSymbol symbol;
	TSFieldId field;
	bool named;
	uint32_t children, depth;
} Seen;

typedef TlArray(Seen) SeenArray;

static bool descend_into(TSNode n, uint32_t skip)
{
	if (!skip)
		return true;
	return (ts_node_start_byte(n) * 7u + ts_node_end_byte(n) + ts_node_symbol(n)) % skip != 0;
}

static TSFieldId field_of(TSNode parent, uint32_t i)
{
	const char *name = ts_node_field_name_for_child(parent, i);
	if (!name)
		return 0;
	const TSLanguage *lang = ts_node_language(parent);
	return ts_language_field_id_for_name(lang, name, (uint32_t)strlen(name));
}

static void describe(Seen *s, TSNode n, TSFieldId field, uint32_t depth)
{
	s->node = n;
	s->symbol = ts_node_symbol(n);
	s->named = ts_node_is_named(n);
	s->children = ts_node_child_count(n);
	s->field = field;
	s->depth = depth;
}

static void expect_same(const Seen *want, const TlTreeNode *got, uint32_t i)
{
	if (!ts_node_eq(want->node, got->node))
		fail_msg("node %u: %s at %u, ts_node_child gives %s at %u", i, ts_node_type(got->node),
			 ts_node_start_byte(got->node), ts_node_type(want->node),
			 ts_node_start_byte(want->node));
	assert_int_equal(ts_node_start_byte(got->node), ts_node_start_byte(want->node));
	assert_int_equal(ts_node_start_point(got->node).row, ts_node_start_point(want->node).row);
	assert_int_equal(ts_node_start_point(got->node).column, ts_node_start_point(want->node).column);
	assert_int_equal(ts_node_end_byte(got->node), ts_node_end_byte(want->node));
	assert_int_equal(got->symbol, want->symbol);
	assert_int_equal(got->named, want->named);
	assert_int_equal(got->children, want->children);
	if (got->field != want->field)
		fail_msg("node %u (%s at %u): field %u, ts_node_field_name_for_child gives %u", i,
			 ts_node_type(got->node), ts_node_start_byte(got->node), got->field, want->field);
	assert_int_equal(got->depth, want->depth);
}

/* The public API's pre-order under `root`, with the same skips. */
static void reference_walk(TSNode root, uint32_t skip, SeenArray *out)
{
	typedef struct Open {
		TSNode node;
		uint32_t next, count;
	} Open;
	TlArray(Open) open;
	tl_array_init(&open);
	Seen s;
	describe(&s, root, 0, 0);
	tl_array_push(out, s);
	if (descend_into(root, skip) && ts_node_child_count(root)) {
		Open o = { root, 0, ts_node_child_count(root) };
		tl_array_push(&open, o);
	}
	while (open.size) {
		Open *o = tl_array_last(&open);
		if (o->next == o->count) {
			open.size--;
			continue;
		}
		uint32_t i = o->next++;
		TSNode c = ts_node_child(o->node, i);
		describe(&s, c, field_of(o->node, i), open.size);
		tl_array_push(out, s);
		if (descend_into(c, skip) && ts_node_child_count(c)) {
			Open d = { c, 0, ts_node_child_count(c) };
			tl_array_push(&open, d);
		}
	}
	tl_array_release(&open);
}

static uint32_t compare_walk(TlTreeWalk *w, TSNode root, uint32_t skip)
{
	SeenArray want;
	tl_array_init(&want);
	reference_walk(root, skip, &want);
	tl_tree_walk_start(w, root, TL_TREE_WALK_FIELDS);
	TlTreeNode t;
	bool descend = true;
	uint32_t i = 0;
	while (tl_tree_walk_next(w, descend, &t)) {
		assert_true(i < want.size);
		expect_same(&want.items[i], &t, i);
		descend = descend_into(t.node, skip);
		i++;
	}
	assert_int_equal(i, want.size);
	tl_array_release(&want);
	return i;
}

/* With TL_TREE_WALK_NO_TOKENS: the same walk without the anonymous leaves
 * (neither named nor with children), each one counted in w->skipped
 * before the node after it is yielded. */
static uint32_t compare_walk_tokens(TlTreeWalk *w, TSNode root, uint32_t skip)
{
	SeenArray want;
	tl_array_init(&want);
	reference_walk(root, skip, &want);
	tl_tree_walk_start(w, root, TL_TREE_WALK_FIELDS | TL_TREE_WALK_NO_TOKENS);
	TlTreeNode t;
	bool descend = true;
	uint32_t i = 0, yielded = 0;
	while (tl_tree_walk_next(w, descend, &t)) {
		uint32_t tokens = 0;
		/* The root is yielded whatever it is. */
		while (i > 0 && i < want.size && !want.items[i].named && !want.items[i].children) {
			tokens++;
			i++;
		}
		assert_true(i < want.size);
		assert_int_equal(w->skipped, tokens);
		w->skipped = 0;
		expect_same(&want.items[i], &t, i);
		descend = descend_into(t.node, skip);
		i++;
		yielded++;
	}
	assert_int_equal(i + w->skipped, want.size);
	for (; i < want.size; i++)
		assert_true(!want.items[i].named && !want.items[i].children);
	tl_array_release(&want);
	return yielded;
}

/* The children of `n` both ways. */
static uint32_t compare_kids(TlTreeWalk *w, TSNode n)
{
	tl_tree_walk_kids(w, n, TL_TREE_WALK_FIELDS);
	TlTreeNode t;
	uint32_t i = 0, count = ts_node_child_count(n);
	while (tl_tree_walk_next(w, true, &t)) {
		assert_true(i < count);
		Seen s;
		describe(&s, ts_node_child(n, i), field_of(n, i), 1);
		expect_same(&s, &t, i);
		i++;
	}
	assert_int_equal(i, count);
	return i;
}

/* tl_tree_field gives what ts_node_child_by_field_id gives, for every
 * field of the language at node `n`. */
static uint32_t compare_fields(TSNode n)
{
	const TSLanguage *lang = ts_node_language(n);
	uint32_t fields = ts_language_field_count(lang), found = 0;
	for (TSFieldId f = 1; f <= fields; f++) {
		TSNode want = ts_node_child_by_field_id(n, f), got = tl_tree_field(n, f);
		if (ts_node_is_null(want) != ts_node_is_null(got) ||
		    (!ts_node_is_null(want) &&
		     (!ts_node_eq(want, got) || ts_node_start_byte(want) != ts_node_start_byte(got) ||
		      ts_node_start_point(want).row != ts_node_start_point(got).row ||
		      ts_node_start_point(want).column != ts_node_start_point(got).column ||
		      ts_node_symbol(want) != ts_node_symbol(got))))
			fail_msg("field %s of a %s at %u: got %s, ts_node_child_by_field_id gives %s",
				 ts_language_field_name_for_id(lang, f), ts_node_type(n), ts_node_start_byte(n),
				 ts_node_is_null(got) ? "nothing" : ts_node_type(got),
				 ts_node_is_null(want) ? "nothing" : ts_node_type(want));
		found += !ts_node_is_null(want);
	}
	return found;
}

/* Every walk of `code`: from the root, descending everywhere and skipping
 * some subtrees; from inner nodes; and the children of each node (the
 * first ones of the file, bounded). */
static uint32_t compare_all(TlTreeWalk *w, const char *code)
{
	TlFixture *fx = tl_fixture_new(code);
	TSNode root = ts_tree_root_node(fx->tree);
	uint32_t total = compare_walk(w, root, 0) + compare_walk(w, root, 5) +
			 compare_walk_tokens(w, root, 0) + compare_walk_tokens(w, root, 5);
	TlTreeWalk all;
	tl_tree_walk_init(&all);
	tl_tree_walk_start(&all, root, 0);
	TlTreeNode t;
	uint32_t n = 0;
	while (tl_tree_walk_next(&all, true, &t)) {
		total += compare_kids(w, t.node);
		total += compare_fields(t.node);
		if (n++ < 300)
			total += compare_walk(w, t.node, 3);
	}
	tl_tree_walk_release(&all);
	tl_fixture_free(fx);
	return total;
}

static void test_walk_agrees_on_snippets(void **state)
{
	(void)state;
	TlBuf wide, deep, flat;
	tl_test_wide_and_deep(&wide, &deep);
	tl_buf_init(&flat);
	/* a long module: its statements hang from a balanced hidden repeat */
	for (int i = 0; i < 3000; i++)
		tl_buf_addf(&flat, "y%d = %d  # n\n", i, i);
	const char *snippets[] = {
		"",
		"x",
		"def f(:\n    pass\nloss.backward(\nprint(x y)\nz = [1, 2\n",
		"class A:\n    def f(self, x):\n        return [i for i in x if i]  # c\n",
		"s = f\"{a!r:>{w}} and {b}\"\nmatch p:\n    case [1, *r]:\n        pass\n",
		"from a import (b as c, d)\nimport e.f as g\nprint(*a, **k)\nlambda x=1, *y, z: x\n",
		"@dec\nasync def f(a: int = 1, /, *, b) -> None:\n    async with x as (y, z):\n"
		"        await g()\n    yield from h\n",
		"try:\n    pass\nexcept* (A, B) as e:\n    raise\nelse:\n    x[1:2, ...] = -y ** 2\n"
		"finally:\n    del a, b\n",
		"if a:\n    b  # one\n# two\nelif c: d\nelse:\n    e\nwhile not x: continue\n",
		"x = (yield)\ny = [*a, *b]\nz = {**a, 'k': 1}\nw = a if b else c\nv = a @ b\n",
		wide.data,
		deep.data,
		flat.data,
	};
	TlTreeWalk w;
	tl_tree_walk_init(&w);
	uint32_t total = 0;
	for (size_t i = 0; i < sizeof snippets / sizeof *snippets; i++)
		total += compare_all(&w, snippets[i]);
	tl_tree_walk_release(&w);
	print_message("snippets: %u nodes compared\n", total);
	assert_true(total > 10000);
	tl_buf_release(&wide);
	tl_buf_release(&deep);
	tl_buf_release(&flat);
}

typedef struct CorpusRun {
	TlTreeWalk w;
	uint32_t total;
} CorpusRun;

static void compare_script(const char *text, void *ctx)
{
	CorpusRun *run = ctx;
	run->total += compare_all(&run->w, text);
}

static void test_walk_agrees_on_corpus(void **state)
{
	(void)state;
	CorpusRun run = { .total = 0 };
	tl_tree_walk_init(&run.w);
	uint32_t files = tl_test_each_script(compare_script, &run);
	tl_tree_walk_release(&run.w);
	print_message("corpus: %u files, %u nodes compared\n", files, run.total);
	assert_true(files > 5);
	assert_true(run.total > 10000);
}

/* A null node: nothing to walk. */
static void test_null_node(void **state)
{
	(void)state;
	TSNode null = { { 0, 0, 0, 0 }, NULL, NULL };
	TlTreeWalk w;
	TlTreeNode t;
	tl_tree_walk_init(&w);
	tl_tree_walk_start(&w, null, 0);
	assert_false(tl_tree_walk_next(&w, true, &t));
	tl_tree_walk_kids(&w, null, 0);
	assert_false(tl_tree_walk_next(&w, true, &t));
	tl_tree_walk_release(&w);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_agrees_on_snippets),
		cmocka_unit_test(test_walk_agrees_on_corpus),
		cmocka_unit_test(test_null_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
