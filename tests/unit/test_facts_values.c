/* Unit tests for facts that travel with values (issue 9): multi-line forms
 * that must behave like their one-line forms, other frameworks and files
 * that import nothing from PyTorch, optimizers and models known by their
 * use, function summaries (what a local function returns), parameters whose
 * callers agree, containers and their elements, host values through helpers.
 * Facts are asked directly where a fact exists; the rules that combine them
 * are run through the engine with the embedded rules (--select ALL). */
#include "helpers.h"

#include <stdio.h>

#include "alloc.h"
#include "engine.h"
#include "facts.h"
#include "rules.h"

typedef struct {
	TlRuleSet rules;
	TlSelection sel;
	TlEngine engine;
} ValuesState;

static int group_setup(void **state)
{
	ValuesState *s = tl_calloc(1, sizeof *s);
	if (!tl_rules_load(&s->rules, NULL, stderr)) {
		tl_rules_release(&s->rules);
		tl_free(s);
		return -1;
	}
	char bad[64];
	tl_selection_init(&s->sel);
	s->sel.has_select = true;
	if (!tl_selection_add(&s->rules, &s->sel.select, "ALL", bad, sizeof bad))
		return -1;
	tl_engine_init(&s->engine, &s->rules, &s->sel);
	*state = s;
	return 0;
}

static int group_teardown(void **state)
{
	ValuesState *s = *state;
	tl_engine_release(&s->engine);
	tl_selection_release(&s->sel);
	tl_rules_release(&s->rules);
	tl_free(s);
	return 0;
}

/* The findings of every rule on `code`, as "CODE@line" words joined by
 * spaces, in the engine's order. Caller frees. */
static char *findings_of(void **state, const char *code)
{
	ValuesState *s = *state;
	TlSource src;
	TlFindings f;
	char why[256] = "";
	if (!tl_source_init_text(&src, "t.py", code, strlen(code), why, sizeof why))
		fail_msg("source refused: %s", why);
	tl_array_init(&f);
	tl_engine_analyze(&s->engine, &src, &f);
	TlBuf out;
	tl_buf_init(&out);
	for (uint32_t i = 0; i < f.size; i++)
		tl_buf_addf(&out, "%s%s@%u", i ? " " : "", f.items[i].rule->code, f.items[i].start.line);
	tl_findings_release(&f);
	tl_source_release(&src);
	return tl_buf_detach(&out);
}

static void expect_findings(void **state, const char *code, const char *expected)
{
	char *got = findings_of(state, code);
	if (strcmp(got, expected) != 0)
		fail_msg("findings: got \"%s\", expected \"%s\"", got, expected);
	tl_free(got);
}

/* ---- multi-line forms ---------------------------------------------------------- */

static const char multiline_code[] =
	"import torch\n"                                    /* 1 */
	"from torch import nn\n"                            /* 2 */
	"import torch.nn.functional as F\n"                 /* 3 */
	"def train(model, loader, opt):\n"                  /* 4 */
	"    crit = nn.CrossEntropyLoss()\n"                /* 5 */
	"    total, seen, kept = 0.0, 0.0, []\n"            /* 6 */
	"    for x, y in loader:\n"                         /* 7 */
	"        loss = crit(\n"                            /* 8 */
	"            model(x),\n"                           /* 9 */
	"            y)\n"                                  /* 10 */
	"        opt.zero_grad()\n"                         /* 11 */
	"        loss.backward()\n"                         /* 12 */
	"        opt.step()\n"                              /* 13 */
	"        total = (total +\n"                        /* 14 */
	"                 loss)\n"                          /* 15 */
	"        seen = (seen\n"                            /* 16 */
	"                + loss.item())\n"                  /* 17 */
	"        kept.append(  # for the plot\n"            /* 18 */
	"            loss\n"                                /* 19 */
	"        )\n"                                       /* 20 */
	"        bad = crit(  # probabilities\n"            /* 21 */
	"            F.softmax(model(x), dim=1), y)\n";     /* 22 */

static void test_multiline_forms(void **state)
{
	/* A parenthesized running total and an argument after a comment are
	 * found as on one line; the .item() total is not a graph. */
	expect_findings(state, multiline_code, "TL101@14 TL101@18 TL208@21");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiline_forms),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
