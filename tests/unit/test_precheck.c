/* Unit tests for precheck: native shapes match exactly what tree-sitter
 * matches at each node, and a rule pattern whose match passes its
 * predicates at a node always passes its pre-checks there (the pre-checks
 * never lose a finding). Run over the corpus scripts and snippets with
 * the awkward cases (a field holding two nodes, ERROR and MISSING nodes,
 * comments between arguments, fields written out of order). */
#include "helpers.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "rules/precheck.h"
#include "rules/queryset.h"
#include "rules/rules.h"
#include "rules/ruleset.h"
#include "syntax/walk.h"

static const char *const snippets[] = {
	"a[1, 2] = x\nb[i] = y\nc[i][j] = z\nd[1:2, ::3] += w\n",
	"model.eval()\nopt.step(closure)\nx = f(a)(b)\ny = (g)(1, k=2)\nt.to(device, non_blocking=True)\n",
	"def f(:\n    pass\nloss.backward(\nprint(x y)\nz = [1, 2\n",
	"foo(  # a comment\n    a,  # another\n    b=1,\n)\nbar(*args, **kw)\nx += 1\ny = y + 2\n",
	"@torch.no_grad()\ndef evaluate(m):\n    return m(x).softmax(-1)\nclass M(nn.Module):\n    def forward(self, x):\n        return self.net(x)\n",
	"total = total + loss\nh, c = rnn(x, (h, c))\nself.a.b.c = d\nx = -1e9\nw = torch.zeros(3).cuda()\n",
};

typedef struct Text {
	char *data;
	size_t len;
} Text;

typedef TlArray(Text) Texts;

/* The corpus scripts and the snippets. */
static void inputs(Texts *out)
{
	tl_array_init(out);
	for (size_t i = 0; i < sizeof snippets / sizeof *snippets; i++) {
		Text t = { tl_strdup(snippets[i]), strlen(snippets[i]) };
		tl_array_push(out, t);
	}
	DIR *d = opendir("corpus/scripts");
	assert_non_null(d);
	struct dirent *e;
	TlStrArray names;
	tl_array_init(&names);
	while ((e = readdir(d)))
		if (strlen(e->d_name) > 3 && strcmp(e->d_name + strlen(e->d_name) - 3, ".py") == 0)
			tl_array_push(&names, tl_strdup(e->d_name));
	closedir(d);
	assert_true(names.size > 5);
	for (uint32_t i = 0; i < names.size; i++) {
		char path[512];
		snprintf(path, sizeof path, "corpus/scripts/%s", names.items[i]);
		size_t len;
		Text t = { tl_test_read_file(path, &len), 0 };
		assert_non_null(t.data);
		t.len = strlen(t.data);
		tl_array_push(out, t);
	}
	tl_str_array_release(&names);
}

static void inputs_release(Texts *t)
{
	for (uint32_t i = 0; i < t->size; i++)
		tl_free(t->items[i].data);
	tl_array_release(t);
}

/* The canonical index of capture `id` of `q` ("c<k>"). */
static uint32_t canonical(const TSQuery *q, uint32_t id)
{
	uint32_t len;
	const char *name = ts_query_capture_name_for_id(q, id, &len);
	assert_true(len > 1 && name[0] == 'c');
	return (uint32_t)strtoul(name + 1, NULL, 10);
}

/* ---- native shapes ---------------------------------------------------------------- */

/* Shapes whose native matching is compared with tree-sitter's: every
 * built-in one, and some that the built-in rules do not write. */
static const char *const extra_shapes[] = {
	"((call function: (attribute object: (_) @c0 attribute: (identifier) @c1) arguments: (argument_list) @c2) @c3)",
	"((binary_operator left: (_) @c0 operator: \"+\" right: (_) @c1) @c2)",
	"((subscript value: (_) @c0 subscript: (_) @c1) @c2)", /* two subscripts: ambiguous */
	"((assignment left: _ @c0 right: (call) @c1) @c2)",
	"((_) @c0)",
	"((ERROR) @c0)",
	"((keyword_argument name: (identifier) @c0 value: (true) @c1) @c2)",
	"((attribute object: (attribute object: (identifier) @c0) @c1) @c2)",
};

/* Every shape of the built-in rules, as compiled (cheap shapes). */
static void builtin_shapes(TlStrArray *out)
{
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	tl_array_init(out);
	for (uint32_t r = 0; r < set.rules.size; r++)
		for (uint32_t p = 0; p < set.rules.items[r]->text.size; p++) {
			char *s = tl_queryset_cheap_shape(set.rules.items[r]->text.items[p].shape);
			bool dup = false;
			for (uint32_t i = 0; i < out->size && !dup; i++)
				dup = strcmp(out->items[i], s) == 0;
			if (dup)
				tl_free(s);
			else
				tl_array_push(out, s);
		}
	tl_rules_release(&set);
	for (size_t i = 0; i < sizeof extra_shapes / sizeof *extra_shapes; i++)
		tl_array_push(out, tl_strdup(extra_shapes[i]));
}

static void test_native_matches_tree_sitter(void **state)
{
	(void)state;
	const TSLanguage *lang = tl_python_language();
	TlStrArray shapes;
	builtin_shapes(&shapes);
	TlPrechecks pc;
	tl_prechecks_init(&pc);
	uint32_t natives = 0, ambiguous = 0, compared = 0, matched = 0;
	for (uint32_t i = 0; i < shapes.size; i++) {
		uint32_t id = tl_prechecks_add_shape(&pc, lang, shapes.items[i]);
		natives += pc.shapes.items[id].native;
	}
	/* Most built-in shapes are native; the extra ones all are. */
	assert_true(natives >= sizeof extra_shapes / sizeof *extra_shapes + 5);
	TlPrecheckRun run;
	tl_precheck_run_init(&run, &pc, NULL, NULL);
	Texts texts;
	inputs(&texts);
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, lang);
	TSQueryCursor *cur = ts_query_cursor_new();
	ts_query_cursor_set_max_start_depth(cur, 0);
	TSNode got[64];
	for (uint32_t si = 0; si < shapes.size; si++) {
		const TlPrecheckShape *sh = &pc.shapes.items[si];
		if (!sh->native)
			continue;
		assert_true(sh->count <= 64);
		TSQuery *q = tl_test_compile(shapes.items[si]);
		for (uint32_t ti = 0; ti < texts.size; ti++) {
			TSTree *tree = ts_parser_parse_string(parser, NULL, texts.items[ti].data,
							      (uint32_t)texts.items[ti].len);
			TSNode root = ts_tree_root_node(tree);
			TSTreeCursor walk = ts_tree_cursor_new(root);
			do {
				TSNode node = ts_tree_cursor_current_node(&walk);
				tl_precheck_run_at(&run, node);
				int r = tl_precheck_run_native(&run, si, got);
				ts_query_cursor_exec(cur, q, node);
				TSQueryMatch m;
				uint32_t n = 0;
				bool same = true;
				while (ts_query_cursor_next_match(cur, &m)) {
					n++;
					if (r != 1)
						continue;
					same = same && m.capture_count == sh->cap_count;
					for (uint16_t c = 0; c < m.capture_count && same; c++) {
						uint32_t k = canonical(q, m.captures[c].index);
						bool found = false;
						for (uint32_t j = 0; j < sh->cap_count; j++) {
							const TlPrecheckCapture *pcap = &pc.shape_captures.items[sh->cap_from + j];
							if (pcap->capture == k)
								found = ts_node_eq(got[pcap->node], m.captures[c].node);
						}
						same = same && found;
					}
				}
				if (r < 0) {
					ambiguous++;
					continue;
				}
				compared++;
				matched += r == 1;
				if ((uint32_t)r != n || !same)
					fail_msg("%s at %s %u:%u of input %u: native %d, tree-sitter %u match(es)%s",
						 shapes.items[si], ts_node_type(node), ts_node_start_point(node).row + 1,
						 ts_node_start_point(node).column + 1, ti, r, n,
						 same ? "" : ", other captures");
			} while (tl_walk_next(&walk, root, true));
			ts_tree_cursor_delete(&walk);
			ts_tree_delete(tree);
		}
		ts_query_delete(q);
	}
	/* The comparison saw real matches, and the ambiguous case. */
	assert_true(matched > 1000);
	assert_true(ambiguous > 0);
	assert_true(compared > 10 * matched);
	ts_query_cursor_delete(cur);
	ts_parser_delete(parser);
	inputs_release(&texts);
	tl_precheck_run_release(&run);
	tl_prechecks_release(&pc);
	tl_str_array_release(&shapes);
}

/* ---- pre-checks lose nothing -------------------------------------------------------- */

typedef struct Ctx {
	const TlIndex *idx;
	const char *text;
} Ctx;

/* The engine's test of one predicate on one node (not negated). */
static bool one(const Ctx *cx, const TlPred *p, TSNode n, const TSQuery *q, const TSQueryMatch *m)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	switch (p->kind) {
	case TL_PRED_EQ: {
		if (p->capture2 >= 0) {
			for (uint16_t i = 0; i < m->capture_count; i++)
				if (canonical(q, m->captures[i].index) == (uint32_t)p->capture2) {
					uint32_t c = ts_node_start_byte(m->captures[i].node);
					uint32_t d = ts_node_end_byte(m->captures[i].node);
					return b - a == d - c && memcmp(cx->text + a, cx->text + c, b - a) == 0;
				}
			return true;
		}
		return b - a == strlen(p->string) && memcmp(cx->text + a, p->string, b - a) == 0;
	}
	case TL_PRED_MATCH: {
		char *t = tl_strndup(cx->text + a, b - a);
		bool r = regexec(&p->regex, t, 0, NULL, 0) == 0;
		tl_free(t);
		return r;
	}
	case TL_PRED_ANY_OF:
		for (uint32_t i = 0; i < p->strings.size; i++)
			if (b - a == strlen(p->strings.items[i]) &&
			    memcmp(cx->text + a, p->strings.items[i], b - a) == 0)
				return true;
		return false;
	case TL_PRED_SEMANTIC:
		return tl_predicate_holds(p->def, cx->idx, n, p->choice);
	case TL_PRED_SET:
		return true;
	}
	return false;
}

static bool precheck_fn(void *ctx, const TlPred *p, TSNode n)
{
	return one(ctx, p, n, NULL, NULL);
}

/* Every predicate of `pl` holds of match `m` (the engine's semantics). */
static bool holds(const Ctx *cx, const TlPredList *pl, const TSQuery *q, const TSQueryMatch *m)
{
	for (uint32_t i = 0; i < pl->size; i++) {
		const TlPred *p = &pl->items[i];
		if (p->kind == TL_PRED_SET)
			continue;
		bool seen = false, ok = !p->any;
		for (uint16_t c = 0; c < m->capture_count; c++) {
			if (canonical(q, m->captures[c].index) != p->capture)
				continue;
			seen = true;
			bool r = one(cx, p, m->captures[c].node, q, m) != p->negated;
			if (p->any && r)
				ok = true;
			if (!p->any && !r)
				ok = false;
		}
		if (seen && !ok)
			return false;
	}
	return true;
}

/* Patterns the built-in rules do not write: captures in some members of an
 * alternation only (optional: a predicate on one holds without a node),
 * in every member, on an alternation, under a quantifier; two captures
 * compared; children without a field. */
static const char *const extra_queries[] = {
	"((call function: [(identifier) @f (attribute attribute: (identifier) @f)]) @finding (#eq? @f \"step\"))",
	"((call function: [(identifier) @f (attribute)]) @finding (#eq? @f \"step\"))",
	"((call function: [(identifier) (attribute)] @f) @finding (#match? @f \"^model\"))",
	"((assignment left: (identifier) @a right: (identifier) @b) @finding (#eq? @a @b))",
	"((assignment left: (identifier) @a right: (_) @b) @finding (#not-eq? @a @b))",
	"((assignment left: (identifier) @a right: [(binary_operator left: (identifier) @b) (call arguments: (argument_list (identifier) @b))]) @finding (#eq? @a @b))",
	"((call arguments: (argument_list (identifier)? @x)) @finding (#eq? @x \"loss\"))",
	"((call arguments: (argument_list (keyword_argument name: (identifier) @k))) @finding (#any-of? @k \"dim\" \"device\"))",
	"((binary_operator left: (_) @l right: [(integer) @v (float) @v]) @finding (#match? @v \"^1\"))",
	"((call function: (attribute object: (_) @o attribute: (identifier) @m) arguments: (argument_list . (_) @x)) @finding (#eq? @m \"append\") (#graph-tensor? @x))",
	/* A string test's node at the end, at the start of the match. */
	"((attribute attribute: (identifier) @m) @finding (#any-of? @m \"step\" \"zero_grad\"))",
	"((call function: (identifier) @f) @finding (#eq? @f \"print\"))",
};

static void test_prechecks_lose_nothing(void **state)
{
	(void)state;
	const TSLanguage *lang = tl_python_language();
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	for (size_t i = 0; i < sizeof extra_queries / sizeof *extra_queries; i++) {
		const char *meta = "code = \"TL599\"\nname = \"x\"\nfamily = \"safety\"\nseverity = \"info\"\n"
				   "default = true\nmessage = \"m\"\n";
		TlRule *r = tl_rule_compile("rules/x.toml", meta, strlen(meta), "queries/x.scm", extra_queries[i],
					    strlen(extra_queries[i]), stderr);
		assert_non_null(r);
		tl_array_push(&set.rules, r);
	}
	TlPrechecks pc;
	tl_prechecks_init(&pc);
	TlArray(uint32_t) ids;
	tl_array_init(&ids);
	for (uint32_t r = 0; r < set.rules.size; r++)
		for (uint32_t p = 0; p < set.rules.items[r]->text.size; p++)
			tl_array_push(&ids, tl_prechecks_add(&pc, lang, set.rules.items[r]->text.items[p].shape,
							     &set.rules.items[r]->patterns.items[p]));
	/* The string tests' literals, found per text (queryset.h): a match
	 * that passes is inside a span where they occur. */
	TlQuerySet *qs = tl_queryset_new(&set);
	assert_int_equal(tl_queryset_count(qs), ids.size);
	TlQueryHits *hits = tl_queryset_hits_new();
	bool *on = tl_calloc(set.rules.size, sizeof *on);
	for (uint32_t r = 0; r < set.rules.size; r++)
		on[r] = true;
	uint64_t *pass_bits = tl_calloc(tl_queryset_words(qs), sizeof *pass_bits);
	Texts texts;
	inputs(&texts);
	TSQueryCursor *cur = ts_query_cursor_new();
	ts_query_cursor_set_max_start_depth(cur, 0);
	uint32_t passing = 0, rejected = 0, out_of_range = 0;
	for (uint32_t ti = 0; ti < texts.size; ti++) {
		TlFixture *fx = tl_fixture_new(texts.items[ti].data);
		fx->idx.torch_version = TL_TORCH_VERSION_DEFAULT;
		Ctx cx = { &fx->idx, fx->src.text };
		TlPrecheckRun run;
		tl_precheck_run_init(&run, &pc, precheck_fn, &cx);
		run.text = fx->src.text;
		tl_queryset_filter(qs, on, fx->src.text, fx->src.length, pass_bits, NULL, hits, NULL);
		uint32_t k = 0;
		for (uint32_t r = 0; r < set.rules.size; r++) {
			const TlRule *rule = set.rules.items[r];
			for (uint32_t p = 0; p < rule->text.size; p++, k++) {
				char *shape = tl_queryset_cheap_shape(rule->text.items[p].shape);
				TSQuery *q = tl_test_compile(shape);
				TSNode root = ts_tree_root_node(fx->tree);
				TSTreeCursor walk = ts_tree_cursor_new(root);
				do {
					TSNode node = ts_tree_cursor_current_node(&walk);
					ts_query_cursor_exec(cur, q, node);
					TSQueryMatch m;
					bool pass = false;
					while (!pass && ts_query_cursor_next_match(cur, &m))
						pass = holds(&cx, &rule->patterns.items[p], q, &m);
					tl_precheck_run_at(&run, node);
					bool pre = tl_precheck_run_holds(&run, ids.items[k]);
					if (pass && !pre)
						fail_msg("%s pattern %u: a match at %u:%u of input %u passes its predicates, "
							 "its pre-check does not", rule->code, p,
							 ts_node_start_point(node).row + 1, ts_node_start_point(node).column + 1, ti);
					bool in_range = tl_queryset_in_range(qs, hits, k, ts_node_start_byte(node),
									     ts_node_end_byte(node));
					if (pass && !in_range)
						fail_msg("%s pattern %u: a match at %u:%u of input %u passes its predicates, "
							 "its string tests' literals are not inside it", rule->code, p,
							 ts_node_start_point(node).row + 1, ts_node_start_point(node).column + 1, ti);
					/* No literal at all in the span: no pattern's in range. */
					if (in_range &&
					    !tl_queryset_any_in_range(hits, ts_node_start_byte(node), ts_node_end_byte(node)) &&
					    tl_queryset_pattern(qs, k)->range_count)
						fail_msg("%s pattern %u: its string tests' literals are inside the node at %u:%u of "
							 "input %u, tl_queryset_any_in_range says none is", rule->code, p,
							 ts_node_start_point(node).row + 1, ts_node_start_point(node).column + 1, ti);
					passing += pass;
					rejected += !pre;
					out_of_range += !in_range;
				} while (tl_walk_next(&walk, root, true));
				ts_tree_cursor_delete(&walk);
				ts_query_delete(q);
				tl_free(shape);
			}
		}
		tl_precheck_run_release(&run);
		tl_fixture_free(fx);
	}
	/* Findings were there to lose, and most nodes were rejected. */
	assert_true(passing > 50);
	assert_true(rejected > 100 * passing);
	assert_true(out_of_range > 10 * passing);
	tl_free(on);
	tl_free(pass_bits);
	tl_queryset_hits_free(hits);
	tl_queryset_free(qs);
	ts_query_cursor_delete(cur);
	inputs_release(&texts);
	tl_array_release(&ids);
	tl_prechecks_release(&pc);
	tl_rules_release(&set);
}

/* Which nodes the semantic predicates were asked about, by their text. */
typedef struct Asked {
	Ctx cx;
	TlBuf made_by; /* "[text]" per made-by question */
} Asked;

static bool asking_fn(void *ctx, const TlPred *p, TSNode n)
{
	Asked *a = ctx;
	if (p->kind == TL_PRED_SEMANTIC && strcmp(p->def->name, "made-by") == 0)
		tl_buf_addf(&a->made_by, "[%.*s]", (int)(ts_node_end_byte(n) - ts_node_start_byte(n)),
			    a->cx.text + ts_node_start_byte(n));
	return one(&a->cx, p, n, NULL, NULL);
}

/* TL403's method form (`probs.log()`) asks made-by of the object only
 * where log takes no argument, as Tensor.log: not of `math` in
 * math.log(2), of `np` in np.log(x), of `logger` in logger.log(1, m) (each
 * question interprets the file's model). */
static void test_log_method_asks_only_tensor_log(void **state)
{
	(void)state;
	const TSLanguage *lang = tl_python_language();
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	TlPrechecks pc;
	tl_prechecks_init(&pc);
	TlArray(uint32_t) ids;
	tl_array_init(&ids);
	for (uint32_t r = 0; r < set.rules.size; r++)
		if (strcmp(set.rules.items[r]->code, "TL403") == 0)
			for (uint32_t p = 0; p < set.rules.items[r]->text.size; p++)
				tl_array_push(&ids, tl_prechecks_add(&pc, lang, set.rules.items[r]->text.items[p].shape,
								     &set.rules.items[r]->patterns.items[p]));
	assert_true(ids.size >= 6);
	TlFixture *fx = tl_fixture_new("import math\nimport numpy as np\nimport torch\n"
				       "def f(x, logger):\n"
				       "    probs = torch.softmax(x, 1)\n"
				       "    a = math.log(2)\n"
				       "    b = np.log(x)\n"
				       "    logger.log(1, 'm')\n"
				       "    return probs.log()\n");
	fx->idx.torch_version = TL_TORCH_VERSION_DEFAULT;
	Asked a = { { &fx->idx, fx->src.text }, { 0 } };
	tl_buf_init(&a.made_by);
	TlPrecheckRun run;
	tl_precheck_run_init(&run, &pc, asking_fn, &a);
	run.text = fx->src.text;
	TSNode root = ts_tree_root_node(fx->tree);
	TSTreeCursor walk = ts_tree_cursor_new(root);
	uint32_t held = 0;
	do {
		tl_precheck_run_at(&run, ts_tree_cursor_current_node(&walk));
		for (uint32_t k = 0; k < ids.size; k++)
			held += tl_precheck_run_holds(&run, ids.items[k]);
	} while (tl_walk_next(&walk, root, true));
	ts_tree_cursor_delete(&walk);
	assert_non_null(a.made_by.data);
	assert_non_null(strstr(a.made_by.data, "[probs]"));
	assert_null(strstr(a.made_by.data, "[math]"));
	assert_null(strstr(a.made_by.data, "[np]"));
	assert_null(strstr(a.made_by.data, "[logger]"));
	assert_int_equal(held, 1); /* probs.log(): a softmax's log */
	tl_buf_release(&a.made_by);
	tl_precheck_run_release(&run);
	tl_fixture_free(fx);
	tl_array_release(&ids);
	tl_prechecks_release(&pc);
	tl_rules_release(&set);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_matches_tree_sitter),
		cmocka_unit_test(test_prechecks_lose_nothing),
		cmocka_unit_test(test_log_method_asks_only_tensor_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
