/* rules/predicates.h's per-file answer: where tl_predicate_nowhere says a
 * predicate holds nowhere in a file, it holds of no node of that file (the
 * engine leaves the patterns that require it out of the file's plan). Over
 * the corpus's rule fixtures and scripts, every predicate and choice; and
 * each predicate with such an answer is said to hold nowhere in some file
 * and not in another. */
#include "helpers.h"

#include <stdlib.h>

#include "rules/predicates.h"
#include "rules/queryset.h"
#include "rules/ruleset.h"

typedef struct Tally {
	uint32_t nowhere[128][20], somewhere[128][20];
	uint32_t nodes;
	/* The embedded rules' pre-filter: #api?'s answer read from its word
	 * offsets (as the engine gives them) must be the text scan's. */
	const TlQuerySet *qs;
	bool *on;
	TlQueryHits *hits;
	uint32_t compared;
} Tally;

static uint32_t prefilter_offsets(const void *ctx, const char *word, size_t len, uint32_t *out, uint32_t cap)
{
	const Tally *t = ctx;
	return tl_queryset_word_offsets(t->qs, t->hits, word, len, out, cap);
}

static void compare_prefilter(Tally *t, TlFixture *fx)
{
	uint64_t *pass = tl_calloc(tl_queryset_words(t->qs), sizeof *pass);
	tl_queryset_filter(t->qs, t->on, fx->src.text, fx->src.length, pass, NULL, t->hits, NULL);
	const TlPredicateDef *api = tl_predicate_find("api", 3);
	for (int c = 0; api->choices[c]; c++) {
		bool scan = tl_predicate_nowhere(api, c, &fx->idx);
		fx->idx.word_offsets = prefilter_offsets;
		fx->idx.word_ctx = t;
		bool read = tl_predicate_nowhere(api, c, &fx->idx);
		fx->idx.word_offsets = NULL;
		fx->idx.word_ctx = NULL;
		if (scan != read)
			fail_msg("api %s: nowhere %d by the text, %d by the pre-filter's words in:\n%.300s",
				 api->choices[c], scan, read, fx->src.text);
		t->compared++;
	}
	tl_free(pass);
}

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
	if (t->qs)
		compare_prefilter(t, fx);
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
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	t->qs = set.queries;
	t->on = tl_calloc(set.rules.size, sizeof *t->on);
	for (uint32_t i = 0; i < set.rules.size; i++)
		t->on[i] = true;
	t->hits = tl_queryset_hits_new();
	uint32_t files = each_in("corpus/rules", t) + each_in("corpus/scripts", t);
	print_message("%u #api? answers compared with the pre-filter's words\n", t->compared);
	print_message("%u files, %u nodes asked where a predicate holds nowhere\n", files, t->nodes);
	assert_true(files > 50);
	/* The predicates with an answer: each is nowhere somewhere, and not
	 * everywhere. */
	const char *answered[] = { "call-does", "module-forward", "loss-call", "in-loop", "leaves-eval-mode",
				   "updates-weights", "optimizer-before-shard", "clip-before-unscale", "mode-is",
				   "evaluates-with-grad", "kept-across-training-step", "kept-by-callee", "api" };
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
	tl_queryset_hits_free(t->hits);
	tl_free(t->on);
	tl_rules_release(&set);
	/* #api?'s answer, per kind of API the rules ask of every call. */
	const TlPredicateDef *api = tl_predicate_find("api", 3);
	assert_non_null(api);
	unsigned d = (unsigned)(api - tl_predicates);
	for (int c = 0; c < choices_of(api) && c < 20; c++) {
		print_message("api %s: nowhere in %u files, maybe somewhere in %u\n", api->choices[c],
			      t->nowhere[d][c], t->somewhere[d][c]);
	}
	tl_free(t);
}

/* #api?'s answer over names the corpus spells only as calls: a reference
 * that is no call, a parenthesized callee, an alias, a plain call. Each
 * holds somewhere, and check_file fails where the answer says otherwise;
 * a file without the API's words holds it nowhere. */
static void test_nowhere_api_names(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"import torch\nhooks = [torch.load]\n",
		"import torch\ny = (torch.log)(x)\n",
		"import torch.nn.functional as F\ndrop = F.dropout\ndef f(x):\n    return drop(x, 0.5)\n",
		"from torch import load as fetch\nstate = fetch(path)\n",
		"import torch\ny = torch.log(x)\nz = 0xlog\n",
		"import torch\ny = torch.log(x)\n",
		"import torch\nprint(f'{torch.load} {x!r}')  # torch.load\n",
		"import torch\ns = 'log' 'load'\nt = f'{torch.log}'\n",
	};
	Tally *t = tl_calloc(1, sizeof *t);
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	t->qs = set.queries;
	t->on = tl_calloc(set.rules.size, sizeof *t->on);
	for (uint32_t i = 0; i < set.rules.size; i++)
		t->on[i] = true;
	t->hits = tl_queryset_hits_new();
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		check_file(texts[i], t);
	tl_queryset_hits_free(t->hits);
	tl_free(t->on);
	tl_rules_release(&set);
	const TlPredicateDef *api = tl_predicate_find("api", 3);
	int log = tl_predicate_choice(api, "log"), load = tl_predicate_choice(api, "torch-load");
	assert_true(log >= 0 && load >= 0);
	TlFixture *fx = tl_fixture_new("import torch\nx = torch.zeros(3)\nprint(x)\n");
	assert_true(tl_predicate_nowhere(api, log, &fx->idx));
	assert_true(tl_predicate_nowhere(api, load, &fx->idx));
	tl_fixture_free(fx);
	/* A plain string or a comment holds no code; an f-string's
	 * interpolation does. */
	fx = tl_fixture_new("import torch\nprint('load', \"\"\"torch.load\"\"\")  # torch.load(path)\n");
	assert_true(tl_predicate_nowhere(api, load, &fx->idx));
	tl_fixture_free(fx);
	fx = tl_fixture_new("import torch\nprint(f'{torch.load}')\n");
	assert_false(tl_predicate_nowhere(api, load, &fx->idx));
	tl_fixture_free(fx);
	tl_free(t);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nowhere_holds_nowhere),
		cmocka_unit_test(test_nowhere_api_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
