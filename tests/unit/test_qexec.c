/* Unit tests for qexec: which patterns run node by node, that the node by
 * node run finds exactly the matches of a whole-tree run, that its work is
 * linear on the shapes that made the whole-tree run quadratic (and crash),
 * and that its bounds stop it. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/alloc.h"
#include "rules/qexec.h"
#include "rules/queryset.h"
#include "rules/rules.h"
#include "rules/ruleset.h"
#include "syntax/index.h"

static void test_local_patterns(void **state)
{
	(void)state;
	/* text: what tl_qexec_text_local says without compiling (never true
	 * where the compiled query is not local; false where it cannot tell) */
	static const struct {
		const char *query;
		bool local, text;
	} cases[] = {
		{ "(call) @finding", true, true },
		{ "((call) @c0)", true, true },
		{ "((call function: (identifier) @f) @finding (#eq? @f \"x\"))", true, false },
		{ "(call function: (attribute object: (_) attribute: (identifier))) @finding", true, true },
		{ "((call arguments: (argument_list . (comment)* . (_) @c0)) @c1)", true, true },
		{ "(_) @finding", true, true },
		{ "\"return\" @finding", true, true },
		{ "; (_ (identifier)) in a comment\n(call) @finding", true, true },
		{ "[(call) (attribute)] @finding", true, true },
		{ "[(call) (attribute) @a] @finding", true, true },
		/* tree-sitter starts a wildcard root with a child at the child */
		{ "(_ (identifier) @x) @finding", false, false },
		{ "((_ (identifier)) @finding)", false, false },
		{ "[(call) (_ (identifier))] @finding", false, false },
		/* not one root */
		{ "((identifier) @a . (identifier) @finding)", false, false },
		{ "((comment) @a (comment) @finding)", false, false },
		/* two patterns: the first is local, its text is not one pattern */
		{ "((comment) @a) ((comment) @b)", true, false },
		/* a quantified root */
		{ "(comment)+ @finding", false, false },
		{ "((comment) @finding)*", false, false },
		{ "([(call) (attribute)])? @finding", false, false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		TSQuery *q = tl_test_compile(cases[i].query);
		uint32_t len = (uint32_t)strlen(cases[i].query);
		bool got = tl_qexec_pattern_local(q, 0, cases[i].query, len);
		if (got != cases[i].local)
			fail_msg("%s: local %d, expected %d", cases[i].query, got, cases[i].local);
		got = tl_qexec_text_local(cases[i].query, len);
		if (got != cases[i].text)
			fail_msg("%s: text local %d, expected %d", cases[i].query, got, cases[i].text);
		ts_query_delete(q);
	}
}

/* Every shape of the built-in rules as the query set compiles it: local
 * from its text alone (tl_qexec_text_local, which the query set trusts to
 * compile a shape only when a node needs it) only when its compiled query
 * is local. */
static void test_text_local_builtin(void **state)
{
	(void)state;
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	uint32_t shapes = 0, text_local = 0;
	for (uint32_t r = 0; r < set.rules.size; r++) {
		const TlRule *rule = set.rules.items[r];
		for (uint32_t p = 0; p < rule->text.size; p++) {
			char *shape = tl_queryset_cheap_shape(rule->text.items[p].shape);
			uint32_t len = (uint32_t)strlen(shape);
			shapes++;
			if (tl_qexec_text_local(shape, len)) {
				text_local++;
				TSQuery *q = tl_test_compile(shape);
				if (!tl_qexec_pattern_local(q, 0, shape, len))
					fail_msg("%s: local by its text, not compiled", shape);
				ts_query_delete(q);
			}
			tl_free(shape);
		}
	}
	tl_rules_release(&set);
	print_message("%u shapes, %u local by their text\n", shapes, text_local);
	assert_true(shapes > 50);
	assert_true(text_local > shapes / 2);
}

/* Which symbols a query's local patterns start at; NULL for any. */
static void test_roots(void **state)
{
	(void)state;
	static const struct {
		const char *query;
		const char *roots; /* space-separated node types; NULL: any node */
	} cases[] = {
		{ "(call) @finding", "call" },
		{ "((call function: (identifier) @f) @finding (#eq? @f \"x\"))", "call" },
		{ "[(call) (attribute) @a] @finding\n(assignment) @b", "call attribute assignment" },
		{ "\"return\" @r", "return" },
		{ "(ERROR) @e", "ERROR" },
		{ "(_) @finding", NULL },
		{ "_ @finding", NULL },
		{ "(expression) @finding", NULL },
		{ "(call) @a\n(_) @b", NULL },
	};
	const TSLanguage *lang = tl_python_language();
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t len = (uint32_t)strlen(cases[i].query);
		TSQuery *q = tl_test_compile(cases[i].query);
		TSQuery *g = tl_qexec_split(q, lang, cases[i].query, len);
		uint8_t *roots = tl_qexec_roots(q, g != NULL, lang, cases[i].query, len);
		if (!cases[i].roots) {
			if (roots)
				fail_msg("%s: roots given, expected any node", cases[i].query);
		} else {
			if (!roots)
				fail_msg("%s: any node, expected %s", cases[i].query, cases[i].roots);
			uint32_t want = 0, got = 0;
			const char *p = cases[i].roots;
			while (*p) {
				const char *e = strchr(p, ' ');
				size_t n = e ? (size_t)(e - p) : strlen(p);
				bool named = strncmp(p, "return", n) != 0;
				TSSymbol sym = ts_language_symbol_for_name(lang, p, (uint32_t)n, named);
				if (!((roots[sym >> 3] >> (sym & 7)) & 1))
					fail_msg("%s: %.*s missing", cases[i].query, (int)n, p);
				want++;
				p += n + (e != NULL);
			}
			for (uint32_t b = 0; b < TL_QEXEC_ROOTS_BYTES * 8; b++)
				got += (roots[b >> 3] >> (b & 7)) & 1;
			if (got != want)
				fail_msg("%s: %u root symbols, expected %u", cases[i].query, got, want);
		}
		tl_free(roots);
		if (g)
			ts_query_delete(g);
		ts_query_delete(q);
	}
}

static void test_precheck(void **state)
{
	(void)state;
	static const struct {
		const char *query;
		int32_t bad; /* offset of what is refused, or -1 */
	} cases[] = {
		{ "(call function: (identifier) @f) @finding", -1 },
		{ "(call nofield: (identifier) @x) @finding", 6 },
		{ "; nofield: in a comment\n(call) @finding", -1 },
		{ "((call) @finding (#eq? @finding \"a: b\"))", -1 },
		{ "((call (identifier) @i (#eq? @i \"print\")) @finding)", -1 },
		{ "(call !arguments) @finding", -1 },
		{ "[(call) (attribute)] @finding", -1 },
		{ "((_) @finding (#eq? @finding \"x\"))", -1 },
		{ "(call arguments: (argument_list (keyword_argument name: (identifier) bogus: (_))))", 69 },
		{ "(keyword_argument name: (identifier) @n 0value: (_) @v) @finding", 40 },
		{ "((call) @finding \"\")", 17 },
		{ "((call) @finding (#eq? @finding \"\"))", 32 },
		{ "(call function: (identifier) @f (#eq? @f \"x\") arguments: (_)) @finding", -1 },
		/* predicates where tree-sitter 0.25 expects a pattern */
		{ "((#eq? \"a\" \"b\")) @finding", 1 },
		{ "(call function: (#eq? \"a\" \"b\")) @finding", 16 },
		{ "(call function: ((#match? _))) @finding", 17 },
		{ "(call function: [(#eq? \"a\" \"b\")]) @finding", 17 },
		/* `(.` opens a predicate too (issue 26: `((.a)) @finding` asserts in
		 * ts_query__parse_pattern, the capture on a step never pushed) */
		{ "((.a)) @finding", 1 },
		{ "(((.a))) @finding", 2 },
		{ "[(.a)] @finding", 1 },
		{ "(call ((.a)) @x) @finding", 7 },
		{ "(call ((.a))?) @finding", 7 },
		{ "((call) @finding . (call))", -1 },
		{ "((call) @finding (.eq? @finding \"x\"))", -1 },
		/* `+` on what may match nothing, outside a node: tree-sitter 0.25.1
		 * never finishes compiling it */
		{ "(_)*@sion_+g", 10 },
		{ "(_)*+", 4 },
		{ "(_)?@a+", 6 },
		{ "((_)*)+", 6 },
		{ "[(_)]*+", 6 },
		{ "((_)* @a)+", 9 },
		{ "(_)@a*@b+", 8 },
		{ "((call) (_)*+)", 12 },
		{ "((_)? (_)*)+", 11 },
		{ "[(call) (_)*]+", 13 },
		{ "(call) (_)*+", 11 },
		/* ... and what compiles: inside a node, or not nullable */
		{ "(call (_)*@a+)", -1 },
		{ "(call ((_)*)+)", -1 },
		{ "((call) (_)*)+", -1 },
		{ "(_)++ @finding", -1 },
		/* a whole pattern that may match nothing: tree-sitter 0.25.1 runs
		 * it into an assertion */
		{ "(_)?*", 0 },
		{ "(_)?", 0 },
		{ "((call function: [(identifier) (attribute)]) @finding* (#eq? @finding \"f\"))", 0 },
		{ "(call) @a (_)* @b", 10 },
		{ "[(call) (_)?] @x", 0 },
		{ "((comment)+ @finding)", -1 },
		{ "((call) @finding (#match? @finding \"a+\"))", -1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t offset = UINT32_MAX;
		bool ok = !tl_qexec_precheck(tl_python_language(), cases[i].query,
					     (uint32_t)strlen(cases[i].query), &offset);
		if (ok != (cases[i].bad < 0) || (!ok && offset != (uint32_t)cases[i].bad))
			fail_msg("%s: ok %d at %u", cases[i].query, ok, offset);
		/* What passes, tree-sitter compiles without trouble. */
		if (ok) {
			uint32_t off;
			TSQueryError e;
			TSQuery *q = ts_query_new(tl_python_language(), cases[i].query,
						  (uint32_t)strlen(cases[i].query), &off, &e);
			assert_non_null(q);
			ts_query_delete(q);
		}
	}
	/* A NUL byte (tree-sitter reads a string holding one past the grammar's
	 * node name): refused where it is. */
	static const char nul_query[] = "(binary_operator operator: \"+\0\")";
	uint32_t off = UINT32_MAX;
	assert_non_null(tl_qexec_precheck(tl_python_language(), nul_query, sizeof nul_query - 1, &off));
	assert_int_equal(off, 29);
}

/* ---- matches, as an order-free summary -------------------------------------------- */

typedef struct Summary {
	uint64_t count, sum, xor;
} Summary;

static void summary_add(Summary *s, const TSQueryMatch *m)
{
	uint64_t h = 1469598103934665603ull * (m->pattern_index + 1u);
	for (uint16_t i = 0; i < m->capture_count; i++) {
		TSNode n = m->captures[i].node;
		h ^= (uint64_t)ts_node_start_byte(n) * 31u + (uint64_t)ts_node_end_byte(n) * 7u +
		     m->captures[i].index * 131u + ts_node_symbol(n);
		h *= 1099511628211ull;
	}
	s->count++;
	s->sum += h;
	s->xor ^= h * 0x9E3779B97F4A7C15ull;
}

static bool summary_fn(void *ctx, const TSQuery *q, const TSQueryMatch *m)
{
	(void)q;
	summary_add(ctx, m);
	return true;
}

static Summary whole_tree(const TSQuery *q, TSNode root)
{
	Summary s = { 0, 0, 0 };
	TSQueryCursor *c = ts_query_cursor_new();
	ts_query_cursor_exec(c, q, root);
	TSQueryMatch m;
	while (ts_query_cursor_next_match(c, &m))
		summary_add(&s, &m);
	assert_false(ts_query_cursor_did_exceed_match_limit(c));
	ts_query_cursor_delete(c);
	return s;
}

static Summary node_by_node(TlQexec *x, const TSQuery *local, const uint8_t *roots,
			    const TSQuery *global, TSNode root)
{
	Summary s = { 0, 0, 0 };
	tl_qexec_begin(x, tl_qexec_budget_for(1u << 20), 1e9);
	assert_int_equal(tl_qexec_run(x, local, roots, global, root, NULL, NULL, summary_fn, &s), TL_QEXEC_DONE);
	return s;
}

/* chain(n): `x = f(x).f(x)...` with n calls; nest(n): f(f(...(x))); list(n). */
static char *gen(const char *kind, unsigned n)
{
	TlBuf b;
	tl_buf_init(&b);
	if (strcmp(kind, "chain") == 0) {
		tl_buf_add(&b, "x = f(x)");
		for (unsigned i = 1; i < n; i++)
			tl_buf_add(&b, ".f(x)");
	} else if (strcmp(kind, "nest") == 0) {
		tl_buf_add(&b, "y = ");
		for (unsigned i = 0; i < n; i++)
			tl_buf_add(&b, "f(");
		tl_buf_add(&b, "x");
		for (unsigned i = 0; i < n; i++)
			tl_buf_addc(&b, ')');
	} else if (strcmp(kind, "list") == 0) {
		tl_buf_add(&b, "data = [");
		for (unsigned i = 0; i < n; i++)
			tl_buf_addf(&b, "torch.tensor(%u), ", i);
		tl_buf_add(&b, "]");
	} else { /* statements: a training loop repeated */
		for (unsigned i = 0; i < n; i++)
			tl_buf_addf(&b, "for x, y in loader:\n    out%u = model(x.cuda()).softmax(1)\n"
				    "    loss = F.cross_entropy(out%u, y)\n    loss.backward()\n"
				    "    opt.step()\n    losses.append(loss)\n",
				    i, i);
	}
	tl_buf_addc(&b, '\n');
	return tl_buf_detach(&b);
}

static const char *const sample =
	"import torch\nimport torch.nn.functional as F\n\n"
	"def train(model, loader, opt, scaler):\n"
	"    losses = []\n    model.train()\n"
	"    for step, (x, y) in enumerate(loader):\n"
	"        with torch.autocast('cuda'):\n"
	"            out = model(x.to('cuda'))\n"
	"        loss = F.cross_entropy(out.softmax(-1), y)  # comment\n"
	"        scaler.scale(loss).backward(retain_graph=True)\n"
	"        scaler.step(opt)\n"
	"        losses.append(loss)\n"
	"        print(loss.item())\n"
	"    model.eval()\n"
	"    return [a for a in losses if a], {'k': (1, 2)}, lambda q: q\n"
	"x = 1\nb = [2, 3]\nc = \"s\"\n";

/* Every built-in rule's query, one after the other. */
static void builtin_queries(TlBuf *all)
{
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	tl_buf_init(all);
	for (uint32_t i = 0; i < set.rules.size; i++)
		if (set.rules.items[i]->query_source)
			tl_buf_addf(all, "%s\n", set.rules.items[i]->query_source);
	tl_rules_release(&set);
}

static void test_same_matches_as_whole_tree(void **state)
{
	(void)state;
	TlBuf all;
	builtin_queries(&all);
	/* The built-in rules pass the pre-check, and are all local. */
	uint32_t bad_at;
	assert_null(tl_qexec_precheck(tl_python_language(), all.data, (uint32_t)all.len, &bad_at));
	TSQuery *builtin = tl_test_compile(all.data);
	TSQuery *none = tl_qexec_split(builtin, tl_python_language(), all.data, (uint32_t)all.len);
	assert_null(none);
	ts_query_delete(builtin);
	const char *queries[] = {
		all.data,
		"(_) @finding\n(_ (integer) @i) @finding\n((expression_statement) @a . (expression_statement) @b)\n"
		"(call arguments: (argument_list . (_) @first)) @finding\n(comment)+ @c\n"
		"[(call) (_ (identifier) @id)] @finding\n",
		/* named, anonymous, alternation and ERROR roots, and a global one */
		"\"return\" @r\n[(call) (attribute) @a] @x\n(ERROR) @e\n((identifier) @i (#eq? @i \"x\"))\n"
		"(comment) @c\n((integer) @a . (integer) @b)\n(keyword_argument value: (_) @v) @k\n",
	};
	const char *kinds[] = { "chain", "nest", "list", "loop" };
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	TlQexec x;
	tl_qexec_init(&x);
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds + 1; k++) {
		char *text = k < 4 ? gen(kinds[k], 200) : tl_strdup(sample);
		TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
		TSNode root = ts_tree_root_node(tree);
		for (size_t qi = 0; qi < sizeof queries / sizeof *queries; qi++) {
			TSQuery *ref = tl_test_compile(queries[qi]);
			TSQuery *local = tl_test_compile(queries[qi]);
			TSQuery *global = tl_qexec_split(local, tl_python_language(), queries[qi],
							 (uint32_t)strlen(queries[qi]));
			if (qi == 1)
				assert_non_null(global);
			uint8_t *roots = tl_qexec_roots(local, global != NULL, tl_python_language(), queries[qi],
							(uint32_t)strlen(queries[qi]));
			/* The rules' roots are named node types; the second query has
			 * wildcard roots (every node). */
			if (qi == 1)
				assert_null(roots);
			else
				assert_non_null(roots);
			Summary a = whole_tree(ref, root), b = node_by_node(&x, local, NULL, global, root),
				c = node_by_node(&x, local, roots, global, root);
			if (a.count != b.count || a.sum != b.sum || a.xor != b.xor)
				fail_msg("%s, query %zu: %llu matches whole-tree, %llu node by node",
					 k < 4 ? kinds[k] : "sample", qi, (unsigned long long)a.count,
					 (unsigned long long)b.count);
			if (a.count != c.count || a.sum != c.sum || a.xor != c.xor)
				fail_msg("%s, query %zu: %llu matches whole-tree, %llu at root symbols only",
					 k < 4 ? kinds[k] : "sample", qi, (unsigned long long)a.count,
					 (unsigned long long)c.count);
			tl_free(roots);
			assert_true(a.count > 0);
			ts_query_delete(ref);
			ts_query_delete(local);
			if (global)
				ts_query_delete(global);
		}
		ts_tree_delete(tree);
		tl_free(text);
	}
	tl_qexec_release(&x);
	ts_parser_delete(parser);
	tl_buf_release(&all);
}

/* The work of running the built-in rules' query over gen(kind, n). */
static uint64_t work(TSParser *parser, TlQexec *x, const TSQuery *q, const char *kind,
		     unsigned n, unsigned *status)
{
	char *text = gen(kind, n);
	TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
	Summary s = { 0, 0, 0 };
	tl_qexec_begin(x, tl_qexec_budget_for(strlen(text)), 1e9);
	*status = tl_qexec_run(x, q, NULL, NULL, ts_tree_root_node(tree), NULL, NULL, summary_fn, &s);
	ts_tree_delete(tree);
	tl_free(text);
	return x->spent;
}

/* Doubling the input at most doubles the work (plus a little): no
 * quadratic phase in query matching, on the shapes that had one. */
static void test_work_grows_linearly(void **state)
{
	(void)state;
	TlBuf all;
	builtin_queries(&all);
	TSQuery *q = tl_test_compile(all.data);
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	TlQexec x;
	tl_qexec_init(&x);
	const char *kinds[] = { "chain", "nest", "list", "loop" };
	const unsigned base[] = { 4000, 2000, 4000, 500 };
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		uint64_t w[4];
		for (unsigned i = 0; i < 4; i++) {
			unsigned status;
			w[i] = work(parser, &x, q, kinds[k], base[k] << i, &status);
			assert_int_equal(status, TL_QEXEC_DONE);
		}
		for (unsigned i = 1; i < 4; i++) {
			double ratio = (double)w[i] / (double)w[i - 1];
			if (ratio > 2.2)
				fail_msg("%s: work %llu at %ux, %llu at %ux: ratio %.2f", kinds[k],
					 (unsigned long long)w[i - 1], 1u << (i - 1), (unsigned long long)w[i],
					 1u << i, ratio);
		}
	}
	tl_qexec_release(&x);
	ts_parser_delete(parser);
	ts_query_delete(q);
	tl_buf_release(&all);
}

static bool stop_at_three(void *ctx, const TSQuery *q, const TSQueryMatch *m)
{
	(void)q;
	(void)m;
	return ++*(int *)ctx < 3;
}

static void test_bounds_stop_the_run(void **state)
{
	(void)state;
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	char *text = gen("chain", 5000);
	TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)strlen(text));
	TSNode root = ts_tree_root_node(tree);
	TlQexec x;
	tl_qexec_init(&x);
	const char *qt = "(call) @finding";
	TSQuery *q = tl_test_compile(qt);
	assert_null(tl_qexec_split(q, tl_python_language(), qt, (uint32_t)strlen(qt)));
	/* The match callback stops the run. */
	int seen = 0;
	tl_qexec_begin(&x, tl_qexec_budget_for(strlen(text)), 1e9);
	assert_int_equal(tl_qexec_run(&x, q, NULL, NULL, root, NULL, NULL, stop_at_three, &seen), TL_QEXEC_STOPPED);
	assert_int_equal(seen, 3);
	/* The work budget stops it. */
	Summary s = { 0, 0, 0 };
	tl_qexec_begin(&x, 100, 1e9);
	assert_true(tl_qexec_run(&x, q, NULL, NULL, root, NULL, NULL, summary_fn, &s) & TL_QEXEC_BUDGET_SPENT);
	assert_true(x.status & TL_QEXEC_BUDGET_SPENT);
	assert_true(s.count < 100);
	/* A whole-tree pattern whose states pile up on the chain: the match
	 * limit keeps tree-sitter's capture lists bounded, and says so. */
	const char *gt = "(_ (attribute object: (_) @o attribute: (identifier) @m)) @finding";
	TSQuery *g = tl_test_compile(gt);
	TSQuery *gg = tl_qexec_split(g, tl_python_language(), gt, (uint32_t)strlen(gt));
	assert_non_null(gg);
	memset(&s, 0, sizeof s);
	tl_qexec_begin(&x, tl_qexec_budget_for(strlen(text)), 1e9);
	unsigned st = tl_qexec_run(&x, g, NULL, gg, root, NULL, NULL, summary_fn, &s);
	assert_true(st & TL_QEXEC_MATCH_LIMIT_HIT);
	/* The CPU-time bound stops the whole-tree run. */
	tl_qexec_begin(&x, tl_qexec_budget_for(strlen(text)), 0.0);
	st = tl_qexec_run(&x, g, NULL, gg, root, NULL, NULL, summary_fn, &s);
	assert_int_equal(st & TL_QEXEC_TIME_SPENT, TL_QEXEC_TIME_SPENT);
	ts_query_delete(g);
	ts_query_delete(gg);
	ts_query_delete(q);
	tl_qexec_release(&x);
	ts_tree_delete(tree);
	tl_free(text);
	ts_parser_delete(parser);
}

/* Running at the nodes the index kept finds what walking the tree finds,
 * and charges the budget the same: the same status and units spent,
 * whatever the budget. */
static void test_list_same_as_walk(void **state)
{
	(void)state;
	TlBuf all;
	builtin_queries(&all);
	TSQuery *q = tl_test_compile(all.data);
	uint8_t *roots = tl_qexec_roots(q, false, tl_python_language(), all.data, (uint32_t)all.len);
	assert_non_null(roots);
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tl_python_language());
	TlQexec x;
	tl_qexec_init(&x);
	char *text = gen("loop", 40);
	TlSource src;
	char why[256];
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	TSTree *tree = ts_parser_parse_string(parser, NULL, src.text, src.length);
	TSNode root = ts_tree_root_node(tree);
	TlIndex idx;
	tl_index_build_collecting(&idx, &src, root, roots);
	assert_true(idx.collected.size > 10 && idx.collected.size < idx.node_count);
	TlQexecList list = { idx.collected.items, idx.collected.size, idx.node_count };
	uint64_t full = 0;
	for (uint64_t budget = 1; budget < 100000; budget = budget * 3 + 7) {
		Summary a = { 0, 0, 0 }, b = { 0, 0, 0 };
		tl_qexec_begin(&x, budget, 1e9);
		unsigned sa = tl_qexec_run(&x, q, roots, NULL, root, NULL, NULL, summary_fn, &a);
		uint64_t spent_a = x.spent;
		tl_qexec_begin(&x, budget, 1e9);
		unsigned sb = tl_qexec_run(&x, q, roots, NULL, root, &list, NULL, summary_fn, &b);
		if (sa != sb || spent_a != x.spent || a.count != b.count || a.sum != b.sum)
			fail_msg("budget %llu: walk status %u, %llu units, %llu matches; list status %u, "
				 "%llu units, %llu matches", (unsigned long long)budget, sa,
				 (unsigned long long)spent_a, (unsigned long long)a.count, sb,
				 (unsigned long long)x.spent, (unsigned long long)b.count);
		if (sa == TL_QEXEC_DONE && !full)
			full = spent_a;
	}
	/* Some budgets ran out, and the largest did not. */
	assert_true(full > 0);
	tl_index_release(&idx);
	ts_tree_delete(tree);
	tl_source_release(&src);
	tl_free(text);
	tl_qexec_release(&x);
	ts_parser_delete(parser);
	tl_free(roots);
	ts_query_delete(q);
	tl_buf_release(&all);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_patterns),
		cmocka_unit_test(test_text_local_builtin),
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_precheck),
		cmocka_unit_test(test_same_matches_as_whole_tree),
		cmocka_unit_test(test_work_grows_linearly),
		cmocka_unit_test(test_bounds_stop_the_run),
		cmocka_unit_test(test_list_same_as_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
