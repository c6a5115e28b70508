/* rules/predicates.h's per-file answer: where tl_predicate_nowhere says a
 * predicate holds nowhere in a file, it holds of no node of that file (the
 * engine leaves the patterns that require it out of the file's plan). Over
 * the corpus's rule fixtures and scripts, every predicate and choice; and
 * each predicate with such an answer is said to hold nowhere in some file
 * and not in another. */
#include "helpers.h"

#include <stdlib.h>

#include "rules/predicates.h"

typedef struct Tally {
	uint32_t nowhere[128][20], somewhere[128][20];
	uint32_t nodes;
} Tally;

static int choices_of(const TlPredicateDef *def)
{
	int n = 0;
	while (def->choices && def->choices[n])
		n++;
	return n;
}

static void check_file(const char *text, void *ctx)
{
	Tally *t = ctx;
	TlFixture *fx = tl_fixture_new(text);
	TSNode root = ts_tree_root_node(fx->tree);
	for (unsigned d = 0; d < tl_predicate_count && d < 128; d++) {
		const TlPredicateDef *def = &tl_predicates[d];
		int n = choices_of(def);
		for (int c = n ? 0 : -1; c < (n ? n : 0) && c < 20; c++) {
			bool none = tl_predicate_nowhere(def, c, &fx->idx);
			(none ? t->nowhere : t->somewhere)[d][c < 0 ? 0 : c]++;
			if (!none)
				continue;
			TSTreeCursor cur = ts_tree_cursor_new(root);
			bool more = true;
			while (more) {
				TSNode x = ts_tree_cursor_current_node(&cur);
				if (ts_node_is_named(x)) {
					t->nodes++;
					if (tl_predicate_holds(def, &fx->idx, x, c))
						fail_msg("'%s' (choice %d) said to hold nowhere holds at byte %u of:\n%.200s",
							 def->name, c, ts_node_start_byte(x), text);
				}
				if (ts_tree_cursor_goto_first_child(&cur))
					continue;
				while (!ts_tree_cursor_goto_next_sibling(&cur))
					if (!ts_tree_cursor_goto_parent(&cur)) {
						more = false;
						break;
					}
			}
			ts_tree_cursor_delete(&cur);
		}
	}
	tl_fixture_free(fx);
}

static uint32_t each_in(const char *dir, Tally *t)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	uint32_t files = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".py") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t size;
		char *text = tl_test_read_file(path, &size);
		assert_non_null(text);
		check_file(text, t);
		tl_free(text);
		files++;
	}
	closedir(d);
	return files;
}

static void test_nowhere_holds_nowhere(void **state)
{
	(void)state;
	Tally *t = tl_calloc(1, sizeof *t);
	uint32_t files = each_in("corpus/rules", t) + each_in("corpus/scripts", t);
	print_message("%u files, %u nodes asked where a predicate holds nowhere\n", files, t->nodes);
	assert_true(files > 50);
	/* The predicates with an answer: each is nowhere somewhere, and not
	 * everywhere. */
	const char *answered[] = { "call-does", "module-forward", "loss-call", "in-loop", "leaves-eval-mode",
				   "updates-weights", "optimizer-before-shard", "clip-before-unscale", "mode-is",
				   "evaluates-with-grad", "kept-across-training-step", "kept-by-callee" };
	for (size_t i = 0; i < sizeof answered / sizeof *answered; i++) {
		const TlPredicateDef *def = tl_predicate_find(answered[i], strlen(answered[i]));
		assert_non_null(def);
		unsigned d = (unsigned)(def - tl_predicates);
		uint32_t none = 0, some = 0;
		for (int c = 0; c < 20; c++) {
			none += t->nowhere[d][c];
			some += t->somewhere[d][c];
		}
		if (!none || !some)
			fail_msg("'%s': nowhere in %u files, maybe somewhere in %u", answered[i], none, some);
	}
	tl_free(t);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nowhere_holds_nowhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
