/* Unit tests for analyzer/rules/qtext.h (scanning a query's text: patterns,
 * shapes, captures, predicates, literal needs) and analyzer/rules/queryset.h (the
 * per-file pre-filter, groups compiled on demand, helper threads). */
#include "helpers.h"

#include <jansson.h>
#include <pthread.h>

#include "base/buf.h"
#include "engine/engine.h"
#include "rules/qtext.h"
#include "rules/queryset.h"
#include "rules/rules.h"
#include "rules/ruleset.h"

#ifndef TL_TEST_NODE_TYPES
#define TL_TEST_NODE_TYPES "build/deps/tree-sitter-python/package/src/node-types.json"
#endif

static TlQPatterns scan(const char *q)
{
	TlQPatterns ps;
	uint32_t at;
	const char *what;
	if (!tl_qtext_scan(q, strlen(q), &ps, &at, &what))
		fail_msg("scan failed at %u: %s", at, what);
	return ps;
}

/* The needs of pattern `p` as "a|b;c" (caller frees). */
static char *needs(const TlQPattern *p)
{
	TlBuf b;
	tl_buf_init(&b);
	for (uint32_t i = 0; i < p->needs.size; i++)
		for (uint32_t k = 0; k < p->needs.items[i].any.size; k++)
			tl_buf_addf(&b, "%s%s", k ? "|" : i ? ";" : "", p->needs.items[i].any.items[k]);
	char *out = tl_strdup(b.len ? b.data : "");
	tl_buf_release(&b);
	return out;
}

static void expect_needs(const TlQPattern *p, const char *want)
{
	char *got = needs(p);
	assert_string_equal(got, want);
	tl_free(got);
}

static void test_shapes_and_captures(void **state)
{
	(void)state;
	TlQPatterns ps = scan("; comment\n"
			      "((call\n  function: (attribute\n    object: (_) @_opt   ; the receiver\n"
			      "    attribute: (identifier) @_method)) @finding @_step\n"
			      "  (#eq? @_method \"step\")\n  (#call-does? @finding optimizer-step))\n"
			      "((call function: (attribute object: (_) @x attribute: (identifier) @y)) @finding @z\n"
			      "  (#eq? @y \"step\"))\n"
			      "(call) @finding\n");
	assert_int_equal(ps.size, 3);
	/* Same structure, other capture names and comments: the same shape. */
	assert_string_equal(ps.items[0].shape, ps.items[1].shape);
	/* @finding @_step on one node, each used nowhere else: one capture. */
	assert_string_equal(ps.items[0].shape,
			    "((call function: (attribute object: (_) @c0 attribute: (identifier) @c1)) @c2)");
	assert_string_equal(ps.items[2].shape, "(call) @c0");
	assert_int_equal(ps.items[0].captures.size, 4);
	assert_int_equal(ps.items[0].capture_count, 3);
	assert_string_equal(ps.items[0].captures.items[1], "_method");
	assert_int_equal(tl_qtext_capture(&ps.items[0], "finding", 7), 2);
	assert_int_equal(tl_qtext_capture(&ps.items[0], "_step", 5), 2);
	/* Predicates as tree-sitter hands them over, captures canonical. */
	const TlQPredicate *pr = &ps.items[0].predicates.items[1];
	assert_string_equal(pr->name, "call-does?");
	assert_true(pr->args.items[0].is_capture);
	assert_int_equal(pr->args.items[0].capture, 2);
	assert_string_equal(pr->args.items[1].string, "optimizer-step");
	/* The pattern's range starts where tree-sitter's does. */
	assert_int_equal(ps.items[0].start, strlen("; comment\n"));
	tl_qtext_release(&ps);
}

static void test_capture_aliases(void **state)
{
	(void)state;
	/* @b also names another node: not the same capture as @a. */
	TlQPatterns ps = scan("((call function: (identifier) @a @b arguments: (argument_list (identifier) @b)) @finding)\n"
			      /* repeated name on one node */
			      "((identifier) @x @x)\n");
	assert_string_equal(ps.items[0].shape,
			    "((call function: (identifier) @c0 @c1 arguments: (argument_list (identifier) @c1)) @c2)");
	assert_int_equal(ps.items[0].capture_count, 3);
	assert_string_equal(ps.items[1].shape, "((identifier) @c0 @c0)");
	tl_qtext_release(&ps);
}

static void test_cheap_shapes(void **state)
{
	(void)state;
	char *s = tl_queryset_cheap_shape("((assignment right: (call function: (attribute object: (_) @c0 attribute: "
					  "(identifier) @c1) arguments: (argument_list)) @c2) @c3)");
	assert_string_equal(s, "((assignment right: (_ function: (_ object: (_) @c0 attribute: "
			       "(identifier) @c1) arguments: (argument_list)) @c2) @c3)");
	tl_free(s);
	/* The root keeps its type; a node without such a field too. */
	s = tl_queryset_cheap_shape("((call function: (attribute) @c0 arguments: (argument_list (call) @c1)) @c2)");
	assert_string_equal(s, "((call function: (attribute) @c0 arguments: (argument_list (call) @c1)) @c2)");
	tl_free(s);
	/* The grammar: these fields belong to these node types alone. */
	json_error_t err;
	json_t *types = json_load_file(TL_TEST_NODE_TYPES, 0, &err);
	if (!types)
		skip();
	static const struct {
		const char *field, *type;
	} own[] = { { "object", "attribute" }, { "attribute", "attribute" },
		    { "function", "call" }, { "arguments", "call" } };
	for (size_t k = 0; k < sizeof own / sizeof *own; k++) {
		size_t i, owners = 0;
		json_t *t;
		json_array_foreach(types, i, t) {
			json_t *fields = json_object_get(t, "fields");
			if (fields && json_object_get(fields, own[k].field)) {
				owners++;
				assert_string_equal(json_string_value(json_object_get(t, "type")), own[k].type);
			}
		}
		assert_int_equal(owners, 1);
	}
	json_decref(types);
}

static void test_needs(void **state)
{
	(void)state;
	TlQPatterns ps = scan(
		/* 0: #eq? and #any-of? of single-node captures, an anonymous node */
		"((augmented_assignment left: (identifier) @a operator: \"+=\" right: (call function: (identifier) @f)) @finding\n"
		"  (#eq? @a \"total\") (#any-of? @f \"sum\" \"mean\"))\n"
		/* 1: negated tests and capture-to-capture tests need nothing */
		"((assignment left: (identifier) @a right: (identifier) @b) @finding\n"
		"  (#not-eq? @a \"x\") (#eq? @a @b) (#not-any-of? @b \"y\"))\n"
		/* 2: a capture inside an alternation may hold no node */
		"((call function: [(identifier) @f (attribute)]) @finding (#eq? @f \"load\"))\n"
		/* 3: a capture on the alternation itself always holds one */
		"((call function: [(identifier) (attribute)] @f) @finding (#eq? @f \"load\"))\n"
		/* 4: a quantifier: no needs at all */
		"((call arguments: (argument_list (identifier)? @x)) @finding (#eq? @x \"x\"))\n"
		/* 5: escapes in strings are read as tree-sitter reads them */
		"((string) @finding (#eq? @finding \"\\\"a\\\\b\\\"\"))\n");
	assert_int_equal(ps.size, 6);
	expect_needs(&ps.items[0], "+=;total;sum|mean");
	expect_needs(&ps.items[1], "");
	expect_needs(&ps.items[2], "");
	expect_needs(&ps.items[3], "load");
	expect_needs(&ps.items[4], "");
	expect_needs(&ps.items[5], "\"a\\b\"");
	tl_qtext_release(&ps);
}

static void test_scan_errors(void **state)
{
	(void)state;
	TlQPatterns ps;
	uint32_t at;
	const char *what;
	assert_false(tl_qtext_scan("(call) @finding)\n", 17, &ps, &at, &what));
	assert_int_equal(at, 15);
	assert_false(tl_qtext_scan("((call) @f (#eq? @f \"x))\n", 25, &ps, &at, &what));
	assert_false(tl_qtext_scan("((call) @f\n", 11, &ps, &at, &what));
	assert_string_equal(what, "invalid query syntax");
}

/* ---- the pre-filter and groups ------------------------------------------------------ */

typedef struct {
	TlRuleSet set;
	bool on[2];
} SetState;

static TlRule *rule(const char *code, const char *query)
{
	TlBuf meta;
	tl_buf_init(&meta);
	tl_buf_addf(&meta, "code = \"%s\"\nname = \"r\"\nfamily = \"safety\"\nseverity = \"info\"\n"
			   "default = true\nmessage = \"m\"\n", code);
	TlRule *r = tl_rule_compile("rules/x.toml", meta.data, meta.len, "queries/x.scm", query,
				    strlen(query), stderr);
	tl_buf_release(&meta);
	assert_non_null(r);
	return r;
}

static void make_set(TlRuleSet *set)
{
	tl_rules_init(set);
	tl_array_push(&set->rules, rule("TL501", "((call function: (attribute attribute: (identifier) @m)) @finding\n"
						 "  (#eq? @m \"step\"))\n"
						 "((call function: (identifier) @f) @finding (#any-of? @f \"load\" \"save\"))\n"));
	tl_array_push(&set->rules, rule("TL502", "((call function: (attribute attribute: (identifier) @n)) @finding\n"
						 "  (#eq? @n \"zero_grad\"))\n"
						 "(call) @finding\n"));
}

static void release_set(TlRuleSet *set)
{
	tl_rules_release(set);
}

static uint32_t filter(TlQuerySet *qs, const bool *on, const char *text, uint64_t *pass)
{
	return tl_queryset_filter(qs, on, text, strlen(text), pass, NULL, NULL, NULL);
}

static void test_filter(void **state)
{
	(void)state;
	TlRuleSet set;
	make_set(&set);
	TlQuerySet *qs = tl_queryset_new(&set);
	assert_int_equal(tl_queryset_count(qs), 4);
	/* Patterns 0 (TL501) and 2 (TL502) share a shape. */
	assert_int_equal(tl_queryset_pattern(qs, 0)->shape, tl_queryset_pattern(qs, 2)->shape);
	uint32_t n;
	const uint32_t *same = tl_queryset_shape_patterns(qs, tl_queryset_pattern(qs, 0)->shape, &n);
	assert_int_equal(n, 2);
	assert_int_equal(same[1], 2);
	bool on[2] = { true, true };
	uint64_t pass[1];
	/* Rules from tl_rule_compile are not gated: (call) @finding always passes. */
	assert_int_equal(filter(qs, on, "x = 1\n", pass), 1);
	assert_true(tl_bit(pass, 3));
	/* A word is a whole word: "steps" and "my_step" are not "step". */
	assert_int_equal(filter(qs, on, "opt.steps()\nmy_step()\n", pass), 1);
	assert_int_equal(filter(qs, on, "opt.step()\n", pass), 2);
	assert_true(tl_bit(pass, 0));
	assert_int_equal(filter(qs, on, "save(x)\n", pass), 2);
	assert_true(tl_bit(pass, 1));
	/* After an escape sequence, a tail of the run counts (string_content). */
	assert_int_equal(filter(qs, on, "s = '\\nstep'\n", pass), 2);
	/* Unselected rules pass nothing. */
	on[1] = false;
	assert_int_equal(filter(qs, on, "opt.step(); opt.zero_grad()\n", pass), 1);
	tl_queryset_free(qs);
	release_set(&set);
}

typedef struct GateAnswer {
	bool answer;
	int asked;
	const char *const *names;
} GateAnswer;

static bool gate_answer(void *ctx, const char *const *names)
{
	GateAnswer *a = ctx;
	a->asked++;
	a->names = names;
	return a->answer;
}

static void test_embedded_gate(void **state)
{
	(void)state;
	TlRuleSet set;
	assert_true(tl_rules_load(&set, NULL, stderr));
	uint32_t n = set.rules.size;
	bool *on = tl_calloc(n, sizeof *on);
	for (uint32_t i = 0; i < n; i++)
		on[i] = true;
	uint64_t *pass = tl_calloc(tl_queryset_words(set.queries), sizeof *pass);
	/* No literal, no ecosystem import: nothing to analyse. */
	assert_int_equal(filter(set.queries, on, "", pass), 0);
	assert_int_equal(filter(set.queries, on, "import os\nx = os.getcwd()\n", pass), 0);
	/* An ecosystem import opens the patterns without needs. */
	uint32_t torch = filter(set.queries, on, "import torch\n", pass);
	assert_true(torch > 0);
	assert_int_equal(filter(set.queries, on, "from lightning import Trainer\n", pass), torch);
	/* A rule literal does too, and its own patterns. */
	assert_true(filter(set.queries, on, "opt.step()\n", pass) > torch);
	/* A text that names none asks about its imports (TlGateAsk): the
	 * project's answer opens the gate or keeps it closed. */
	GateAnswer yes = { true, 0, NULL }, no = { false, 0, NULL };
	TlGateAsk ask_yes = { gate_answer, &yes }, ask_no = { gate_answer, &no };
	const char *script = "from models import create_model\nm = create_model(1)\n";
	assert_int_equal(tl_queryset_filter(set.queries, on, script, strlen(script), pass, NULL, NULL,
					    &ask_yes), torch);
	assert_int_equal(yes.asked, 1);
	assert_non_null(yes.names);
	bool named_torch = false;
	for (int i = 0; yes.names[i]; i++)
		named_torch = named_torch || strcmp(yes.names[i], "torch") == 0;
	assert_true(named_torch);
	assert_int_equal(tl_queryset_filter(set.queries, on, script, strlen(script), pass, NULL, NULL,
					    &ask_no), 0);
	assert_int_equal(no.asked, 1);
	/* Not asked when the text opens the gate itself. */
	yes.asked = 0;
	assert_int_equal(tl_queryset_filter(set.queries, on, "import torch\n", 13, pass, NULL, NULL,
					    &ask_yes), torch);
	assert_int_equal(yes.asked, 0);
	tl_free(pass);
	tl_free(on);
	tl_rules_release(&set);
}

/* A query set of one rule (tl_rule_compile: not gated), in `set`. */
static TlQuerySet *one_rule(TlRuleSet *set, const char *code, const char *query)
{
	tl_rules_init(set);
	tl_array_push(&set->rules, rule(code, query));
	return tl_queryset_new(set);
}

/* A pattern that requires #api? of a node every match has needs one of
 * the API's identifiers in the file (tl_predicate_words); a negated one,
 * or one on an optional capture, needs nothing; the words open no gate. */
static void test_word_needs(void **state)
{
	(void)state;
	TlRuleSet set;
	TlQuerySet *qs = one_rule(&set, "TL501", "((call) @finding (#api? @finding empty-cache))\n"
						 "((call) @finding (#not-api? @finding torch-load))\n"
						 "((call function: (_) @f arguments: (argument_list (_)? @a)) @finding\n"
						 "  (#api? @a torch-load))\n");
	assert_int_equal(tl_queryset_count(qs), 3);
	assert_int_equal(tl_queryset_pattern(qs, 0)->word_need_count, 1);
	assert_int_equal(tl_queryset_pattern(qs, 1)->word_need_count, 0);
	assert_int_equal(tl_queryset_pattern(qs, 2)->word_need_count, 0);
	bool on[1] = { true };
	uint64_t pass[1];
	/* torch.cuda.empty_cache, through an alias: the import names it. */
	assert_int_equal(filter(qs, on, "from torch.cuda import empty_cache as ec\nec()\n", pass), 3);
	assert_true(tl_bit(pass, 0));
	assert_int_equal(filter(qs, on, "import torch.cuda as tc\ntc.empty_cache()\n", pass), 3);
	/* No empty_cache anywhere (a longer word is not it): pattern 0 cannot match. */
	assert_int_equal(filter(qs, on, "import torch\ntorch.cuda.empty_cache_all()\n", pass), 2);
	assert_false(tl_bit(pass, 0));
	assert_true(tl_bit(pass, 1));
	tl_queryset_free(qs);
	tl_rules_release(&set);
	/* An anonymous node is a literal need found anywhere in the text,
	 * the last bytes included. */
	qs = one_rule(&set, "TL503", "((augmented_assignment operator: \"+=\") @finding)\n");
	assert_int_equal(filter(qs, on, "x = 1 + 2\ny = +3\n", pass), 0);
	assert_int_equal(filter(qs, on, "x += 1\n", pass), 1);
	assert_int_equal(filter(qs, on, "x = 1\ny +=", pass), 1);
	assert_int_equal(filter(qs, on, "+", pass), 0);
	tl_queryset_free(qs);
	tl_rules_release(&set);
	/* #loss-is?: the loss's torch.nn names (function or criterion class). */
	qs = one_rule(&set, "TL502", "((call) @finding (#loss-is? @finding nll))\n");
	assert_int_equal(tl_queryset_pattern(qs, 0)->word_need_count, 1);
	assert_int_equal(filter(qs, on, "import torch.nn as nn\ncrit = nn.CrossEntropyLoss()\n", pass), 0);
	assert_int_equal(filter(qs, on, "import torch.nn as nn\ncrit = nn.NLLLoss()\n", pass), 1);
	assert_int_equal(filter(qs, on, "from torch.nn.functional import nll_loss as f\n", pass), 1);
	tl_queryset_free(qs);
	tl_rules_release(&set);
}

typedef struct {
	TlQuerySet *qs;
	const uint64_t *key;
	const TlQueryGroup *group;
} Waiter;

static void *wait_group(void *arg)
{
	Waiter *w = arg;
	w->group = tl_queryset_group(w->qs, w->key, true);
	return NULL;
}

static void *help(void *arg)
{
	tl_queryset_help(arg);
	return NULL;
}

/* Local shapes tree-sitter must compile (an anchor, an alternation) are
 * not compiled with the group: each alone, when a node first needs it. */
static void test_lazy_shapes(void **state)
{
	(void)state;
	TlRuleSet set;
	make_set(&set);
	tl_array_push(&set.rules, rule("TL503", "((call arguments: (argument_list . (identifier) @a)) @finding\n"
						 "  (#eq? @a \"save\"))\n"
						 "((call function: [(identifier) (attribute)] @f) @finding\n"
						 "  (#match? @f \"save\"))\n"));
	TlQuerySet *qs = tl_queryset_new(&set);
	bool on[3] = { true, true, true };
	uint64_t pass[1];
	assert_int_equal(filter(qs, on, "opt.step(); save(x)\n", pass), 5);
	const TlQueryGroup *g = tl_queryset_group(qs, pass, true);
	assert_int_equal(g->part_count, 1);
	assert_null(g->parts[0].query);
	assert_int_equal(g->parts[0].shapes.size, 0);
	assert_int_equal(g->parts[0].natives->shapes.size, 3);
	assert_int_equal(g->parts[0].lazy.size, 2);
	/* The part's walk starts at their roots too. */
	assert_non_null(g->parts[0].roots);
	for (uint32_t i = 0; i < g->parts[0].lazy.size; i++) {
		uint32_t shape = g->parts[0].lazy.items[i];
		assert_true(tl_queryset_shape_lazy(qs, shape));
		const TlQueryPart *solo = tl_queryset_solo(qs, shape);
		assert_non_null(solo->query);
		assert_int_equal(ts_query_pattern_count(solo->query), 1);
		assert_int_equal(solo->shapes.size, 1);
		assert_int_equal(solo->shapes.items[0], shape);
		assert_ptr_equal(tl_queryset_solo(qs, shape), solo);
	}
	assert_false(tl_queryset_shape_lazy(qs, g->parts[0].natives->shapes.items[0]));
	tl_queryset_done(qs, g);
	tl_queryset_free(qs);
	release_set(&set);
}

static void test_groups_and_helpers(void **state)
{
	(void)state;
	TlRuleSet set;
	make_set(&set);
	/* Shapes tree-sitter compiles with the group (a wildcard root with
	 * children: not local, tl_qexec_text_local cannot say), beside the
	 * native ones (every node in a field: matched without tree-sitter). */
	tl_array_push(&set.rules, rule("TL503", "((_ arguments: (argument_list . (identifier) @a (list (integer)))) @finding\n"
						 "  (#eq? @a \"save\"))\n"
						 "((_ function: [(identifier) (attribute)] @f arguments: (argument_list (tuple (integer)))) @finding\n"
						 "  (#match? @f \"save\"))\n"));
	TlQuerySet *qs = tl_queryset_new(&set);
	bool on[3] = { true, true, true };
	uint64_t pass[1];
	assert_int_equal(filter(qs, on, "opt.step(); save(x)\n", pass), 5);
	/* One helper: the compiled shapes are split in two parts, compiled by
	 * two threads; two threads asking for it get the same group. */
	tl_queryset_add_helpers(qs, 1);
	pthread_t helper, t1, t2;
	assert_int_equal(pthread_create(&helper, NULL, help, qs), 0);
	Waiter a = { qs, pass, NULL }, b = { qs, pass, NULL };
	assert_int_equal(pthread_create(&t1, NULL, wait_group, &a), 0);
	assert_int_equal(pthread_create(&t2, NULL, wait_group, &b), 0);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	tl_queryset_stop(qs);
	pthread_join(helper, NULL);
	assert_ptr_equal(a.group, b.group);
	const TlQueryGroup *g = a.group;
	assert_int_equal(g->part_count, 2);
	uint32_t shapes = 0;
	for (uint32_t p = 0; p < g->part_count; p++) {
		assert_non_null(g->parts[p].query);
		assert_int_equal(ts_query_pattern_count(g->parts[p].query), g->parts[p].shapes.size);
		shapes += g->parts[p].shapes.size;
	}
	/* Two compiled shapes; the three native ones (five passing patterns,
	 * two of them one shape) run with the first part, compiled only when a
	 * match is ambiguous. */
	assert_int_equal(shapes, 2);
	assert_non_null(g->parts[0].natives);
	assert_null(g->parts[1].natives);
	assert_int_equal(g->parts[0].natives->shapes.size, 3);
	assert_null(g->parts[0].natives->query);
	assert_int_equal(g->parts[0].lazy.size, 0);
	const TlQueryPart *fb = tl_queryset_fallback(qs, &g->parts[0]);
	assert_non_null(fb->query);
	assert_int_equal(ts_query_pattern_count(fb->query), 3);
	assert_ptr_equal(tl_queryset_fallback(qs, &g->parts[0]), fb);
	/* Another key, another group; the same key, the same group. */
	assert_ptr_equal(tl_queryset_group(qs, pass, true), g);
	tl_queryset_done(qs, g);
	assert_int_equal(filter(qs, on, "opt.step()\n", pass), 3);
	const TlQueryGroup *h = tl_queryset_group(qs, pass, true);
	assert_ptr_not_equal(h, g);
	tl_queryset_done(qs, h);
	tl_queryset_done(qs, a.group);
	tl_queryset_done(qs, b.group);
	tl_queryset_free(qs);
	release_set(&set);
}

/* Texts, each passing a different set of patterns of make_set's rules. */
static const char *const lru_texts[] = {
	"opt.step()\n", "save(x)\n", "load(x)\n", "opt.zero_grad()\n", "opt.step(); save(x)\n",
	"opt.step(); load(x)\n", "save(x); opt.zero_grad()\n", "opt.step(); opt.zero_grad()\n",
	"load(x); save(y)\n", "opt.step(); save(x); opt.zero_grad()\n",
};

/* The findings of `text` with key `pass`, as "code:line:col;" items. */
static void lru_findings(TlEngine *e, const char *text, TlBuf *out)
{
	TlSource src;
	char why[256];
	assert_true(tl_source_init_text(&src, "t.py", text, strlen(text), why, sizeof why));
	TlFindings fs;
	tl_array_init(&fs);
	tl_engine_analyze(e, &src, &fs);
	for (uint32_t i = 0; i < fs.size; i++)
		tl_buf_addf(out, "%s:%u:%u;", fs.items[i].rule->code, fs.items[i].start.line,
			    fs.items[i].start.column);
	tl_buf_addc(out, '|');
	tl_findings_release(&fs);
	tl_source_release(&src);
}

/* A long session meets many combinations of passing patterns: at most the
 * cap of groups stays compiled, and the findings are those of a set that
 * keeps every group. */
static void test_groups_bounded(void **state)
{
	(void)state;
	TlRuleSet set;
	make_set(&set);
	TlSelection sel;
	tl_selection_init(&sel);
	TlEngine kept, capped;
	tl_engine_init(&kept, &set, &sel);
	kept.exact = true;
	tl_engine_init(&capped, &set, &sel);
	capped.exact = true;
	TlBuf a, b;
	tl_buf_init(&a);
	tl_buf_init(&b);
	uint32_t n = sizeof lru_texts / sizeof *lru_texts, most = 0;
	for (uint32_t round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < n; i++) {
			lru_findings(&kept, lru_texts[i], &a);
			if (!capped.own_queries) {
				lru_findings(&capped, lru_texts[i], &b);
				tl_queryset_set_max_groups(capped.own_queries, 3);
				continue;
			}
			lru_findings(&capped, lru_texts[i], &b);
			uint32_t c = tl_queryset_group_count(capped.own_queries);
			most = c > most ? c : most;
		}
	}
	assert_string_equal(a.data, b.data);
	assert_true(strstr(a.data, "TL501") != NULL);
	assert_true(tl_queryset_group_count(kept.own_queries) > 3 + 2);
	assert_true(most <= 3);
	tl_buf_release(&a);
	tl_buf_release(&b);
	tl_engine_release(&kept);
	tl_engine_release(&capped);
	tl_selection_release(&sel);
	release_set(&set);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes_and_captures),
		cmocka_unit_test(test_capture_aliases),
		cmocka_unit_test(test_cheap_shapes),
		cmocka_unit_test(test_needs),
		cmocka_unit_test(test_scan_errors),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_embedded_gate),
		cmocka_unit_test(test_word_needs),
		cmocka_unit_test(test_lazy_shapes),
		cmocka_unit_test(test_groups_and_helpers),
		cmocka_unit_test(test_groups_bounded),
	};
	return cmocka_run_group_tests_name("queryset", tests, NULL, NULL);
}
