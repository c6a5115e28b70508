/* Unit tests for analyzer/report/output.h: JSON and SARIF keep every finding and
 * every rule when strings are not valid UTF-8 (U+FFFD in their place), and
 * each SARIF ruleIndex names the rule of its ruleId. */
#include "helpers.h"

#include <jansson.h>
#include <stdio.h>

#include "base/paths.h"
#include "report/output.h"
#include "rules/rules.h"
#include "rules/ruleset.h"

typedef struct {
	TlRuleSet rules;
	TlFileReport file;
} OutState;

static int setup(void **state)
{
	OutState *s = tl_calloc(1, sizeof *s);
	tl_rules_init(&s->rules);
	if (!tl_rules_load(&s->rules, NULL, stderr))
		return -1;
	/* The first rule's help and name get bytes jansson refuses. */
	TlRule *first = s->rules.rules.items[0];
	tl_free(first->help);
	first->help = tl_strdup("see \xff\xfe");
	s->file.path = tl_strdup("d\xff.py");
	tl_array_init(&s->file.findings);
	const uint32_t picks[] = { 0, s->rules.rules.size - 1 };
	for (int i = 0; i < 2; i++) {
		TlFinding f;
		memset(&f, 0, sizeof f);
		f.rule = s->rules.rules.items[picks[i]];
		f.start.line = f.end.line = (uint32_t)i + 1;
		f.start.column = 1;
		f.end.column = 2;
		f.message = tl_strdup(i ? "fine" : "bad \xed\xa0\x80 surrogate");
		tl_array_push(&s->file.findings, f);
	}
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	OutState *s = *state;
	tl_findings_release(&s->file.findings);
	tl_free(s->file.path);
	tl_rules_release(&s->rules);
	tl_free(s);
	return 0;
}

/* Writes with `fmt` ('j' JSON, 's' SARIF) and parses the result back. */
static json_t *write_and_parse(OutState *s, char fmt)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	TlReportSet set = { &s->rules, &s->file, 1 };
	/* SARIF resolves relative paths from the working directory (symbolic
	 * links too) and writes them relative to the root it is given. */
	char *cwd = tl_path_real(".");
	char *root = tl_path_with_slash(cwd);
	assert_true(fmt == 'j' ? tl_output_json(f, &set) : tl_output_sarif(f, &set, root, true));
	tl_free(root);
	tl_free(cwd);
	rewind(f);
	json_error_t err;
	json_t *doc = json_loadf(f, 0, &err);
	fclose(f);
	if (!doc)
		fail_msg("output does not parse: %s", err.text);
	return doc;
}

static void test_json_keeps_every_finding(void **state)
{
	OutState *s = *state;
	json_t *doc = write_and_parse(s, 'j');
	assert_int_equal(json_array_size(doc), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(doc, 0), "path")),
			    "d\xef\xbf\xbd.py");
	assert_string_equal(json_string_value(json_object_get(json_array_get(doc, 0), "message")),
			    "bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd surrogate");
	json_decref(doc);
}

static void test_sarif_keeps_rules_and_indexes(void **state)
{
	OutState *s = *state;
	json_t *doc = write_and_parse(s, 's');
	json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
	json_t *rules = json_object_get(json_object_get(json_object_get(run, "tool"), "driver"), "rules");
	json_t *results = json_object_get(run, "results");
	assert_int_equal(json_array_size(rules), s->rules.rules.size);
	assert_int_equal(json_array_size(results), 2);
	for (size_t i = 0; i < json_array_size(results); i++) {
		json_t *r = json_array_get(results, i);
		json_int_t index = json_integer_value(json_object_get(r, "ruleIndex"));
		const char *id = json_string_value(json_object_get(json_array_get(rules, (size_t)index), "id"));
		assert_non_null(id);
		assert_string_equal(id, json_string_value(json_object_get(r, "ruleId")));
	}
	/* The URI keeps the raw byte, percent-encoded. */
	json_t *loc = json_object_get(json_object_get(json_array_get(json_object_get(json_array_get(results, 0),
										      "locations"), 0),
						   "physicalLocation"), "artifactLocation");
	assert_string_equal(json_string_value(json_object_get(loc, "uri")), "d%FF.py");
	json_decref(doc);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_keeps_every_finding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sarif_keeps_rules_and_indexes, setup, teardown),
	};
	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
