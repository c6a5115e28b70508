/* Unit tests for analyzer/engine/engine.h and analyzer/report/report.h: small sources
 * analysed end to end with the embedded rules, positions in code points,
 * ordering, syntax errors, deep nesting, and both text renderings. */
#include "helpers.h"

#include <regex.h>
#include <stdio.h>

#include "base/buf.h"
#include "engine/engine.h"
#include "report/report.h"
#include "rules/rules.h"
#include "rules/ruleset.h"

typedef struct {
	TlRuleSet rules;
	TlSelection sel;
	TlEngine engine;
} EngineState;

static int group_setup(void **state)
{
	EngineState *s = tl_calloc(1, sizeof *s);
	if (!tl_rules_load(&s->rules, NULL, stderr)) {
		tl_rules_release(&s->rules);
		tl_free(s);
		return -1;
	}
	/* The defaults (TL101, the memory rule these tests use beside TL201,
	 * among them); naming it again is harmless. */
	tl_selection_init(&s->sel);
	char bad[64];
	if (!tl_selection_add(&s->rules, &s->sel.extend_select, "TL101", bad, sizeof bad)) {
		tl_selection_release(&s->sel);
		tl_rules_release(&s->rules);
		tl_free(s);
		return -1;
	}
	tl_engine_init(&s->engine, &s->rules, &s->sel);
	*state = s;
	return 0;
}

static int group_teardown(void **state)
{
	EngineState *s = *state;
	tl_engine_release(&s->engine);
	tl_selection_release(&s->sel);
	tl_rules_release(&s->rules);
	tl_free(s);
	return 0;
}

/* Analyses `code` as "t.py"; the caller releases *src and *out. */
static void analyze(void **state, const char *code, size_t len, TlSource *src, TlFindings *out)
{
	EngineState *s = *state;
	char why[256] = "";
	if (!tl_source_init_text(src, "t.py", code, len, why, sizeof why))
		fail_msg("source refused: %s", why);
	tl_array_init(out);
	tl_engine_analyze(&s->engine, src, out);
}

static void release(TlSource *src, TlFindings *f)
{
	tl_findings_release(f);
	tl_source_release(src);
}

/* Index of the first finding with `code` on `line`, or -1. */
static int find(const TlFindings *f, const char *code, uint32_t line)
{
	for (uint32_t i = 0; i < f->size; i++)
		if (strcmp(f->items[i].rule->code, code) == 0 && f->items[i].start.line == line)
			return (int)i;
	return -1;
}

static void dump(const TlFindings *f)
{
	for (uint32_t i = 0; i < f->size; i++)
		print_message("  %u:%u %s %s\n", f->items[i].start.line, f->items[i].start.column,
			      f->items[i].rule->code, f->items[i].message);
}

static void expect_finding(const TlFindings *f, const char *code, uint32_t line, uint32_t col)
{
	int i = find(f, code, line);
	if (i < 0) {
		dump(f);
		fail_msg("no %s on line %u", code, line);
	}
	assert_int_equal(f->items[i].start.column, col);
}

static bool sorted(const TlFindings *f)
{
	for (uint32_t i = 1; i < f->size; i++) {
		const TlFinding *a = &f->items[i - 1], *b = &f->items[i];
		if (a->start.line != b->start.line) {
			if (a->start.line > b->start.line)
				return false;
		} else if (a->start.column != b->start.column) {
			if (a->start.column > b->start.column)
				return false;
		} else if (strcmp(a->rule->code, b->rule->code) > 0) {
			return false;
		}
	}
	return true;
}

/* ---- findings ---------------------------------------------------------------- */

static const char train_code[] =
	"import torch\n"                                                   /* 1 */
	"import torch.nn as nn\n"                                          /* 2 */
	"def train(model, data):\n"                                        /* 3 */
	"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"          /* 4 */
	"    crit = nn.CrossEntropyLoss()\n"                               /* 5 */
	"    losses = []\n"                                                /* 6 */
	"    for x, y in data:\n"                                          /* 7 */
	"        loss = crit(model(x), y)\n"                               /* 8 */
	"        loss.backward()\n"                                        /* 9 */
	"        opt.step()\n"                                             /* 10 */
	"        losses.append(loss)\n"                                    /* 11 */
	"    return losses\n";                                             /* 12 */

static void test_findings_and_positions(void **state)
{
	TlSource src;
	TlFindings f;
	analyze(state, train_code, sizeof train_code - 1, &src, &f);
	assert_int_equal(f.size, 2);
	expect_finding(&f, "TL201", 10, 9);
	expect_finding(&f, "TL101", 11, 9);
	const TlFinding *step = &f.items[0];
	assert_string_equal(step->rule->code, "TL201");
	assert_int_equal(step->end.line, 10);
	assert_int_equal(step->end.column, 19); /* exclusive: after "opt.step()" */
	assert_int_equal(step->end_byte - step->start_byte, 10);
	/* {_step} is rendered with the call's text. */
	assert_int_equal(strncmp(step->message, "`opt.step()` runs in a loop", 27), 0);
	assert_true(sorted(&f));
	release(&src, &f);
}

static void test_clean_code_has_no_findings(void **state)
{
	static const char code[] =
		"import torch\n"
		"def train(model, data):\n"
		"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
		"    total = 0.0\n"
		"    for x, y in data:\n"
		"        opt.zero_grad()\n"
		"        loss = model(x).sum()\n"
		"        loss.backward()\n"
		"        opt.step()\n"
		"        total += loss.item()\n"
		"    return total\n";
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	if (f.size) {
		dump(&f);
		fail_msg("expected no findings");
	}
	release(&src, &f);
}

static void test_each_embedded_rule_fires(void **state)
{
	static const char code[] =
		"import torch\n"                                       /* 1 */
		"import torch.nn.functional as F\n"                    /* 2 */
		"def evaluate(model, loader):\n"                       /* 3 */
		"    model.eval()\n"                                   /* 4 */
		"    for x in loader:\n"                               /* 5 */
		"        out = model(x)\n"                             /* 6 */
		"def step(model, x, y, opt):\n"                        /* 7 */
		"    opt.zero_grad()\n"                                /* 8 */
		"    with torch.autocast('cuda'):\n"                   /* 9 */
		"        out = model(x)\n"                             /* 10 */
		"    loss = F.cross_entropy(out, y)\n"                 /* 11 */
		"    loss.backward()\n"                                /* 12 */
		"    opt.step()\n";                                    /* 13 */
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	expect_finding(&f, "TL102", 6, 15);
	expect_finding(&f, "TL401", 11, 12);
	assert_int_equal(f.size, 2);
	release(&src, &f);
}

static void test_columns_in_code_points(void **state)
{
	/* Line 10 starts with a string of three 3-byte characters and a 2-byte
	 * identifier; the flagged calls come after them. */
	static const char code[] =
		"import torch\n"
		"import torch.nn as nn\n"
		"def train(model, data):\n"
		"    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
		"    crit = nn.CrossEntropyLoss()\n"
		"    losses = []\n"
		"    for x, y in data:\n"
		"        loss = crit(model(x), y)\n"
		"        loss.backward()\n"
		"        tag = \"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\"; \xC3\xA9 = 1; opt.step(); losses.append(loss)\n"
		"    return losses\n";
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	/* 8 spaces, `tag = "日本語"; ` (13 code points, 19 bytes), `é = 1; `
	 * (7 code points, 8 bytes). */
	expect_finding(&f, "TL201", 10, 29);
	/* ... then `opt.step(); ` (12). */
	expect_finding(&f, "TL101", 10, 41);
	assert_int_equal(f.size, 2);
	/* Same line: ordered by column. */
	assert_string_equal(f.items[0].rule->code, "TL201");
	assert_string_equal(f.items[1].rule->code, "TL101");
	release(&src, &f);
}

static void test_findings_sorted_across_functions(void **state)
{
	/* The engine runs TL101 before TL201, but the TL201 case comes first
	 * in the file: the findings still come out by line. */
	static const char code[] =
		"import torch\n"                          /* 1 */
		"def b(model, data, opt):\n"              /* 2 */
		"    for x in data:\n"                    /* 3 */
		"        model(x).sum().backward()\n"     /* 4 */
		"        opt.step()\n"                    /* 5 */
		"def a(model, data, opt):\n"              /* 6 */
		"    hist = []\n"                         /* 7 */
		"    for x in data:\n"                    /* 8 */
		"        loss = model(x).sum()\n"         /* 9 */
		"        hist.append(loss)\n"             /* 10 */
		"        opt.zero_grad()\n"               /* 11 */
		"        loss.backward()\n"               /* 12 */
		"        opt.step()\n";                   /* 13 */
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	assert_int_equal(f.size, 2);
	assert_string_equal(f.items[0].rule->code, "TL201");
	assert_int_equal(f.items[0].start.line, 5);
	assert_string_equal(f.items[1].rule->code, "TL101");
	assert_int_equal(f.items[1].start.line, 10);
	assert_int_equal(f.items[1].start.column, 9);
	release(&src, &f);
}

static void test_findings_appended(void **state)
{
	/* tl_engine_analyze appends: earlier findings stay in place. */
	TlSource a, b;
	TlFindings f;
	analyze(state, train_code, sizeof train_code - 1, &a, &f);
	uint32_t first = f.size;
	assert_int_equal(first, 2);
	EngineState *s = *state;
	char why[256];
	assert_true(tl_source_init_text(&b, "u.py", train_code, sizeof train_code - 1, why, sizeof why));
	tl_engine_analyze(&s->engine, &b, &f);
	assert_int_equal(f.size, 2 * first);
	assert_string_equal(f.items[0].rule->code, "TL201");
	assert_string_equal(f.items[2].rule->code, "TL201");
	tl_source_release(&b);
	release(&a, &f);
}

/* ---- syntax errors and hostile input ------------------------------------------------- */

static void test_syntax_error_then_analysis_continues(void **state)
{
	static const char code[] =
		"import torch\n"                              /* 1 */
		"def broken(:\n"                              /* 2 */
		"    pass\n"                                  /* 3 */
		"\n"                                          /* 4 */
		"def train(model, data, opt):\n"              /* 5 */
		"    for x in data:\n"                        /* 6 */
		"        model(x).sum().backward()\n"         /* 7 */
		"        opt.step()\n";                       /* 8 */
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	assert_true(f.size >= 2);
	const TlFinding *syn = &f.items[0];
	assert_string_equal(syn->rule->code, "TL000");
	assert_int_equal(syn->start.line, 2);
	assert_int_equal(strncmp(syn->message, "syntax error", 12), 0);
	/* The span is cut at the end of its first line. */
	assert_int_equal(syn->end.line, syn->start.line);
	expect_finding(&f, "TL201", 8, 9);
	assert_true(sorted(&f));
	release(&src, &f);
}

static void test_syntax_error_can_be_ignored(void **state)
{
	EngineState *s = *state;
	TlSelection sel;
	tl_selection_init(&sel);
	char bad[32];
	assert_true(tl_selection_add(&s->rules, &sel.ignore, "TL000", bad, sizeof bad));
	TlEngine e;
	tl_engine_init(&e, &s->rules, &sel);
	TlSource src;
	char why[256];
	const char *code = "def broken(:\n    pass\n";
	assert_true(tl_source_init_text(&src, "t.py", code, strlen(code), why, sizeof why));
	TlFindings f;
	tl_array_init(&f);
	tl_engine_analyze(&e, &src, &f);
	assert_int_equal(f.size, 0);
	release(&src, &f);
	tl_engine_release(&e);
	tl_selection_release(&sel);
}

/* A TL201 case appended after generated text, at line `line` + 3. */
/* Ends with an import so that the names `model` and `opt` may hint at what
 * they hold (a file that imports nothing from PyTorch gets no such finding)
 * without moving the lines the tests expect. */
static const char tail_code[] =
	"\ndef train(model, data, opt):\n"
	"    for x in data:\n"
	"        model(x).sum().backward()\n"
	"        opt.step()\n"
	"import torch\n";

static void analyze_with_tail(void **state, TlBuf *b, TlSource *src, TlFindings *f)
{
	tl_buf_add(b, tail_code);
	analyze(state, b->data, b->len, src, f);
}

static uint32_t count_lines(const TlBuf *b)
{
	uint32_t n = 1;
	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n;
}

static void test_deep_parentheses(void **state)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, "x = ");
	for (int i = 0; i < 5000; i++)
		tl_buf_addc(&b, '(');
	tl_buf_add(&b, "loss");
	for (int i = 0; i < 5000; i++)
		tl_buf_addc(&b, ')');
	tl_buf_add(&b, "\ny = ");
	for (int i = 0; i < 5000; i++)
		tl_buf_addc(&b, '[');
	for (int i = 0; i < 5000; i++)
		tl_buf_addc(&b, ']');
	tl_buf_addc(&b, '\n');
	uint32_t before = count_lines(&b);
	TlSource src;
	TlFindings f;
	analyze_with_tail(state, &b, &src, &f);
	/* Valid Python: no syntax error, and the code after is analysed. */
	assert_int_equal(find(&f, "TL000", 1), -1);
	expect_finding(&f, "TL201", before + 4, 9);
	release(&src, &f);
	tl_buf_release(&b);
}

static void test_deep_unbalanced_brackets(void **state)
{
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_add(&b, "z = ");
	for (int i = 0; i < 5000; i++)
		tl_buf_add(&b, "f([");
	tl_buf_addc(&b, '\n');
	TlSource src;
	TlFindings f;
	analyze_with_tail(state, &b, &src, &f);
	/* Never closed: a syntax error, reported without a crash. */
	assert_true(f.size >= 1);
	assert_string_equal(f.items[0].rule->code, "TL000");
	assert_true(sorted(&f));
	release(&src, &f);
	tl_buf_release(&b);
}

static void test_deep_if_nesting(void **state)
{
	TlBuf b;
	tl_buf_init(&b);
	/* 2000 nested if blocks, one more space of indentation each. */
	for (int i = 0; i < 2000; i++) {
		for (int k = 0; k < i; k++)
			tl_buf_addc(&b, ' ');
		tl_buf_add(&b, "if cond:\n");
	}
	for (int k = 0; k < 2000; k++)
		tl_buf_addc(&b, ' ');
	tl_buf_add(&b, "value = 1\n");
	uint32_t before = count_lines(&b);
	TlSource src;
	TlFindings f;
	analyze_with_tail(state, &b, &src, &f);
	/* Whatever the parser makes of the depth, the code after it (back at
	 * column 1) is still analysed. */
	expect_finding(&f, "TL201", before + 4, 9);
	assert_true(sorted(&f));
	release(&src, &f);
	tl_buf_release(&b);
}

static void test_deep_if_nesting_parses_cleanly(void **state)
{
	/* 500 nested if blocks parse without a syntax error. (The grammar's
	 * scanner keeps at most 511 indentation levels in its serialized state,
	 * so deeper nesting is a parse error of tree-sitter-python, which
	 * test_deep_if_nesting covers.) */
	TlBuf b;
	tl_buf_init(&b);
	for (int i = 0; i < 500; i++) {
		for (int k = 0; k < i; k++)
			tl_buf_addc(&b, ' ');
		tl_buf_add(&b, "if cond:\n");
	}
	for (int k = 0; k < 500; k++)
		tl_buf_addc(&b, ' ');
	tl_buf_add(&b, "value = 1\n");
	uint32_t before = count_lines(&b);
	TlSource src;
	TlFindings f;
	analyze_with_tail(state, &b, &src, &f);
	/* Only the tail's finding. */
	if (f.size != 1) {
		dump(&f);
		fail_msg("expected one finding");
	}
	expect_finding(&f, "TL201", before + 4, 9);
	release(&src, &f);
	tl_buf_release(&b);
}

static void test_empty_and_comment_only(void **state)
{
	TlSource src;
	TlFindings f;
	analyze(state, "", 0, &src, &f);
	assert_int_equal(f.size, 0);
	release(&src, &f);
	analyze(state, "# just a comment", 16, &src, &f);
	assert_int_equal(f.size, 0);
	release(&src, &f);
}

static void test_syntax_error_message_is_valid_utf8(void **state)
{
	/* The unexpected text is quoted, cut at 24 bytes, never inside a
	 * character: é (2 bytes) then 3-byte characters put byte 24 inside one. */
	static const char code[] =
		"x = 1 \xC3\xA9\xE6\x97\xA5\xE6\x97\xA5\xE6\x97\xA5\xE6\x97\xA5\xE6\x97\xA5"
		"\xE6\x97\xA5\xE6\x97\xA5\xE6\x97\xA5 ?\n";
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	assert_true(f.size >= 1);
	for (uint32_t i = 0; i < f.size; i++) {
		const char *m = f.items[i].message;
		assert_string_equal(f.items[i].rule->code, "TL000");
		assert_int_equal(tl_utf8_invalid_offset((const unsigned char *)m, strlen(m)), strlen(m));
	}
	release(&src, &f);
}

/* ---- custom rules: predicates, messages, de-duplication ------------------------------- */

/* Analyses `code` with one rule compiled from `query` and `message`;
 * returns the rule, which the findings borrow (release_custom frees it). */
static TlRule *analyze_custom(const char *query, const char *message, const char *code,
			   TlSource *src, TlFindings *out)
{
	TlBuf meta;
	tl_buf_init(&meta);
	tl_buf_addf(&meta, "code = \"TL501\"\nname = \"custom\"\nfamily = \"safety\"\n"
			   "severity = \"info\"\ndefault = true\nmessage = \"%s\"\n", message);
	TlRule *r = tl_rule_compile("rules/TL501-custom.toml", meta.data, meta.len,
				    "queries/TL501-custom.scm", query, strlen(query), stderr);
	tl_buf_release(&meta);
	assert_non_null(r);
	TlRuleSet set;
	tl_rules_init(&set);
	tl_array_push(&set.rules, r);
	TlSelection sel;
	tl_selection_init(&sel);
	TlEngine e;
	tl_engine_init(&e, &set, &sel);
	char why[256];
	assert_true(tl_source_init_text(src, "t.py", code, strlen(code), why, sizeof why));
	tl_array_init(out);
	tl_engine_analyze(&e, src, out);
	tl_engine_release(&e);
	tl_selection_release(&sel);
	tl_array_release(&set.rules);
	return r;
}

static void release_custom(TlSource *src, TlFindings *f, TlRule *r)
{
	release(src, f);
	tl_rule_free(r);
}

static void test_custom_rule_deduplicates_patterns(void **state)
{
	(void)state;
	TlSource src;
	TlFindings f;
	TlRule *r;
	/* Two patterns match the same node: one finding. */
	r = analyze_custom("((identifier) @finding (#eq? @finding \"x\"))\n"
		       "((identifier) @finding (#match? @finding \"^x$\"))\n",
		       "name {finding}", "x = 1\ny = x\n", &src, &f);
	assert_int_equal(f.size, 2);
	assert_int_equal(f.items[0].start.line, 1);
	assert_int_equal(f.items[1].start.line, 2);
	assert_int_equal(f.items[1].start.column, 5);
	assert_string_equal(f.items[1].message, "name x");
	release_custom(&src, &f, r);
}

static void test_custom_rule_standard_predicates(void **state)
{
	(void)state;
	TlSource src;
	TlFindings f;
	TlRule *r;
	r = analyze_custom("((call function: (identifier) @_fn) @finding\n"
		       "  (#any-of? @_fn \"print\" \"log\")\n"
		       "  (#not-eq? @_fn \"log\"))\n",
		       "{_fn} call", "print(1)\nlog(2)\nother(3)\n", &src, &f);
	assert_int_equal(f.size, 1);
	assert_string_equal(f.items[0].message, "print call");
	release_custom(&src, &f, r);

	r = analyze_custom("((call function: (identifier) @_fn) @finding\n"
		       "  (#not-any-of? @_fn \"print\" \"log\"))\n",
		       "{_fn}", "print(1)\nlog(2)\nother(3)\n", &src, &f);
	assert_int_equal(f.size, 1);
	assert_string_equal(f.items[0].message, "other");
	release_custom(&src, &f, r);

	/* A capture compared with another capture. */
	r = analyze_custom("((assignment left: (identifier) @_a right: (identifier) @_b) @finding\n"
		       "  (#eq? @_a @_b))\n",
		       "self-assignment of {_a}", "x = x\ny = x\n", &src, &f);
	assert_int_equal(f.size, 1);
	assert_int_equal(f.items[0].start.line, 1);
	assert_string_equal(f.items[0].message, "self-assignment of x");
	release_custom(&src, &f, r);
}

static void test_custom_rule_quantified_captures(void **state)
{
	(void)state;
	TlSource src;
	TlFindings f;
	TlRule *r;
	/* A predicate on a quantified capture holds when every node passes... */
	r = analyze_custom("((call arguments: (argument_list \"(\" ((identifier) @_args \",\"?)+ \")\")) @finding\n"
			   "  (#eq? @_args \"x\"))\n",
			   "all x", "f(x, x)\ng(x, y)\nh(y, x)\n", &src, &f);
	assert_int_equal(f.size, 1);
	assert_int_equal(f.items[0].start.line, 1);
	release_custom(&src, &f, r);
	/* ... and with any-, when one node does. */
	r = analyze_custom("((call arguments: (argument_list \"(\" ((identifier) @_args \",\"?)+ \")\")) @finding\n"
			   "  (#any-eq? @_args \"x\"))\n",
			   "some x", "f(x, x)\ng(x, y)\nh(y, y)\n", &src, &f);
	assert_int_equal(f.size, 2);
	assert_int_equal(f.items[1].start.line, 2);
	release_custom(&src, &f, r);
	/* An optional capture that did not match does not block the match. */
	r = analyze_custom("((call function: (identifier) @_fn\n"
			   "   arguments: (argument_list (keyword_argument)? @_kw)) @finding\n"
			   "  (#eq? @_fn \"f\")\n"
			   "  (#match? @_kw \"^lr=\"))\n",
			   "f {_kw}", "f(1)\nf(lr=2)\nf(wd=3)\n", &src, &f);
	assert_int_equal(f.size, 2);
	assert_string_equal(f.items[0].message, "f ");
	assert_string_equal(f.items[1].message, "f lr=2");
	release_custom(&src, &f, r);
}

static void test_custom_rule_many_quantified_nodes(void **state)
{
	(void)state;
	TlSource src;
	TlFindings f;
	TlRule *r = analyze_custom("((call arguments: (argument_list \"(\" ((identifier) @_args \",\"?)+ \")\")) @finding\n"
				   "  (#eq? @_args \"x\"))\n",
				   "all x", "f(x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, y)\n",
				   &src, &f);
	assert_int_equal(f.size, 0);
	release_custom(&src, &f, r);
}

static void test_custom_rule_semantic_predicate(void **state)
{
	(void)state;
	TlSource src;
	TlFindings f;
	TlRule *r;
	r = analyze_custom("((call) @finding (#call-does? @finding backward))\n",
		       "backward here",
		       "loss.backward()\nloss.item()\ntorch.autograd.backward(loss)\n", &src, &f);
	assert_int_equal(f.size, 2);
	assert_int_equal(f.items[0].start.line, 1);
	assert_int_equal(f.items[1].start.line, 3);
	release_custom(&src, &f, r);
	r = analyze_custom("((call) @finding (#not-call-does? @finding backward))\n",
		       "no backward", "loss.backward()\nloss.item()\n", &src, &f);
	assert_int_equal(f.size, 1);
	assert_int_equal(f.items[0].start.line, 2);
	release_custom(&src, &f, r);
}

static void test_custom_rule_message_shortened(void **state)
{
	(void)state;
	TlSource src;
	TlFindings f;
	TlRule *r;
	/* Whitespace runs become one space; past 40 code points, "...". */
	r = analyze_custom("((call) @finding)\n", "[{finding}]",
		       "compute(alpha,\n        beta, gamma, delta, epsilon, zeta, eta, theta)\n",
		       &src, &f);
	assert_int_equal(f.size, 1);
	assert_string_equal(f.items[0].message, "[compute(alpha, beta, gamma, delta, epsil...]");
	release_custom(&src, &f, r);
}

/* ---- reports ----------------------------------------------------------------------------- */

static char *render(const TlSource *src, const TlFindings *f, TlFormat format, bool color)
{
	TlReportOptions opt = { format, color, false, NULL };
	TlBuf out;
	tl_buf_init(&out);
	tl_report_file(&opt, src, f, &out);
	return tl_buf_detach(&out);
}

static void test_report_concise(void **state)
{
	TlSource src;
	TlFindings f;
	analyze(state, train_code, sizeof train_code - 1, &src, &f);
	char *text = render(&src, &f, TL_FORMAT_CONCISE, false);
	/* Exactly one line per finding. */
	uint32_t lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, f.size);
	assert_int_equal(text[strlen(text) - 1], '\n');
	regex_t re;
	assert_int_equal(regcomp(&re, "^t\\.py:[0-9]+:[0-9]+: TL[0-9]{3} [^\n]+$",
				 REG_EXTENDED | REG_NOSUB | REG_NEWLINE), 0);
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		*nl = '\0';
		if (regexec(&re, line, 0, NULL, 0) != 0)
			fail_msg("bad concise line: %s", line);
		line = nl + 1;
	}
	regfree(&re);
	tl_free(text);
	text = render(&src, &f, TL_FORMAT_CONCISE, false);
	TlBuf want;
	tl_buf_init(&want);
	tl_buf_addf(&want, "t.py:10:9: TL201 %s\nt.py:11:9: TL101 %s\n", f.items[0].message,
		    f.items[1].message);
	assert_string_equal(text, want.data);
	tl_buf_release(&want);
	tl_free(text);
	release(&src, &f);
}

/* The line of `text` that contains `needle`, as [start, end). */
static const char *line_with(const char *text, const char *needle, const char **end)
{
	const char *p = strstr(text, needle);
	if (!p)
		fail_msg("'%s' not in:\n%s", needle, text);
	while (p > text && p[-1] != '\n')
		p--;
	*end = strchr(p, '\n');
	assert_non_null(*end);
	return p;
}

static void test_report_full(void **state)
{
	TlSource src;
	TlFindings f;
	analyze(state, train_code, sizeof train_code - 1, &src, &f);
	char *text = render(&src, &f, TL_FORMAT_FULL, false);
	assert_null(strstr(text, "\033"));
	/* The header, then the source line, then carets under the span. */
	assert_non_null(strstr(text, "t.py:10:9: TL201 "));
	const char *end;
	const char *src_line = line_with(text, "        opt.step()", &end);
	assert_non_null(strstr(src_line, "10 |"));
	const char *caret_line = end + 1;
	const char *caret = strchr(caret_line, '^');
	assert_non_null(caret);
	const char *opt_at = strstr(src_line, "opt.step()");
	/* Same gutter on both lines: the caret column is the span's column. */
	assert_int_equal(caret - caret_line, opt_at - src_line);
	assert_int_equal(strncmp(caret, "^^^^^^^^^^ TL201\n", 17), 0);
	/* The help line of the rule. */
	assert_non_null(strstr(text, "= help: "));
	tl_free(text);

	text = render(&src, &f, TL_FORMAT_FULL, true);
	assert_non_null(strstr(text, "\033["));
	tl_free(text);
	release(&src, &f);
}

static void test_report_full_non_ascii(void **state)
{
	static const char code[] =
		"import torch\n"
		"def train(model, data, opt):\n"
		"    for x in data:\n"
		"        model(x).sum().backward()\n"
		"        s = \"\xE6\x97\xA5\xE6\x9C\xAC\"; opt.step()\n";
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	expect_finding(&f, "TL201", 5, 19);
	char *text = render(&src, &f, TL_FORMAT_FULL, false);
	const char *end;
	const char *src_line = line_with(text, "; opt.step()", &end);
	const char *caret_line = end + 1;
	const char *caret = strchr(caret_line, '^');
	assert_non_null(caret);
	/* One space per terminal column before the span: the carets line up
	 * with the span on screen, not in bytes or code points (the two CJK
	 * characters take two columns each). */
	const char *opt_at = strstr(src_line, "opt.step()");
	uint32_t cps = tl_utf8_count(src_line, (size_t)(opt_at - src_line));
	assert_int_equal((uint32_t)(caret - caret_line), cps + 2);
	assert_int_equal(strncmp(caret, "^^^^^^^^^^ TL201", 16), 0);
	tl_free(text);
	release(&src, &f);
}

static void test_report_full_multiline_span(void **state)
{
	static const char code[] =
		"def train(model, data, opt):\n"   /* 1 */
		"    for x in data:\n"             /* 2 */
		"        model(x).sum().backward()\n" /* 3 */
		"        opt.step(\n"              /* 4 */
		"            closure,\n"           /* 5 */
		"            a,\n"                 /* 6 */
		"            b,\n"                 /* 7 */
		"        )\n"                      /* 8 */
		"import torch\n";                 /* 9: names may hint */
	TlSource src;
	TlFindings f;
	analyze(state, code, sizeof code - 1, &src, &f);
	expect_finding(&f, "TL201", 4, 9);
	assert_int_equal(f.items[0].end.line, 8);
	/* The message shows the span on one line. */
	assert_non_null(strstr(f.items[0].message, "`opt.step( closure, a, b, )`"));
	char *text = render(&src, &f, TL_FORMAT_FULL, false);
	/* Carets to the end of the first line, then two more lines of the span
	 * (three in all) and an ellipsis. */
	const char *end;
	line_with(text, "4 |         opt.step(", &end);
	assert_int_equal(strncmp(end + 1, "  |         ^^^^^^^^^ TL201\n", 28), 0);
	assert_non_null(strstr(text, "5 |             closure,\n6 |             a,\n  | ...\n"));
	assert_null(strstr(text, "7 |"));
	tl_free(text);
	release(&src, &f);
}

static void test_report_no_findings(void **state)
{
	(void)state;
	TlSource src;
	char why[64];
	assert_true(tl_source_init_text(&src, "t.py", "x = 1\n", 6, why, sizeof why));
	TlFindings f;
	tl_array_init(&f);
	char *text = render(&src, &f, TL_FORMAT_FULL, true);
	assert_string_equal(text, "");
	tl_free(text);
	release(&src, &f);
}

/* The token estimate behind the memory budget (issue 26). */
static void test_token_estimate(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint32_t tokens;
	} cases[] = {
		{ "", 0 },
		{ "x = 1\n", 4 },                     /* x, =, 1, line end */
		{ "a.b(c)  # a (comment)\n", 5 },     /* a.b, (, c, ), line end */
		{ "s = 'it''s' \"\"\"x\n(y\"\"\"\n", 12 }, /* s, =, three per string (two, then one), line end */
		{ "---1", 4 },
		{ "caf\xc3\xa9 = 2", 3 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t n = tl_engine_tokens(cases[i].text, (uint32_t)strlen(cases[i].text), 1000);
		if (n != cases[i].tokens)
			fail_msg("%s: %u tokens, expected %u", cases[i].text, n, cases[i].tokens);
	}
	/* Counting stops just past `stop`. */
	assert_int_equal(tl_engine_tokens("------", 6, 2), 3);
	/* The budget check reads only a text that could be over: two tokens
	 * a byte at most ('"' then a line end, again and again). */
	static const char quotes[] = "\"\n\"\n\"\n\"\n\"\n";
	assert_int_equal(tl_engine_tokens(quotes, 10, 1000), 20);
	assert_int_equal(tl_budget_tokens_over(quotes, 10, 1000), 0);
	assert_int_equal(tl_budget_tokens_over(quotes, 10, 19), 20);
	assert_int_equal(tl_budget_tokens_over(quotes, 10, 23), 0);
	assert_int_equal(tl_budget_tokens_over(quotes, 10, 22), 20);
	assert_int_equal(tl_budget_tokens_over("------", 6, 2), 3);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_estimate),
		cmocka_unit_test(test_findings_and_positions),
		cmocka_unit_test(test_clean_code_has_no_findings),
		cmocka_unit_test(test_each_embedded_rule_fires),
		cmocka_unit_test(test_columns_in_code_points),
		cmocka_unit_test(test_findings_sorted_across_functions),
		cmocka_unit_test(test_findings_appended),
		cmocka_unit_test(test_syntax_error_then_analysis_continues),
		cmocka_unit_test(test_syntax_error_can_be_ignored),
		cmocka_unit_test(test_deep_parentheses),
		cmocka_unit_test(test_deep_unbalanced_brackets),
		cmocka_unit_test(test_deep_if_nesting),
		cmocka_unit_test(test_deep_if_nesting_parses_cleanly),
		cmocka_unit_test(test_empty_and_comment_only),
		cmocka_unit_test(test_syntax_error_message_is_valid_utf8),
		cmocka_unit_test(test_custom_rule_deduplicates_patterns),
		cmocka_unit_test(test_custom_rule_standard_predicates),
		cmocka_unit_test(test_custom_rule_quantified_captures),
		cmocka_unit_test(test_custom_rule_many_quantified_nodes),
		cmocka_unit_test(test_custom_rule_semantic_predicate),
		cmocka_unit_test(test_custom_rule_message_shortened),
		cmocka_unit_test(test_report_concise),
		cmocka_unit_test(test_report_full),
		cmocka_unit_test(test_report_full_non_ascii),
		cmocka_unit_test(test_report_full_multiline_span),
		cmocka_unit_test(test_report_no_findings),
	};
	return cmocka_run_group_tests_name("engine", tests, group_setup, group_teardown);
}
