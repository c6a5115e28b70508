/* Unit tests for analyzer/base/toml.h: the four string forms and their escapes,
 * booleans, integers, string arrays, tables, dotted keys, error positions. */
#include "helpers.h"

#include <regex.h>

#include "base/toml.h"

/* Parses `text`, failing the test (with the reason) if it does not parse. */
static void parse_ok(TlToml *doc, const char *text)
{
	char why[256] = "";
	if (!tl_toml_parse(doc, text, strlen(text), why, sizeof why))
		fail_msg("parse failed: %s", why);
}

/* Parses `text`, expecting failure; `why` must match the regex `pattern`. */
static void parse_fails(const char *text, const char *pattern)
{
	TlToml doc;
	char why[256] = "";
	assert_false(tl_toml_parse(&doc, text, strlen(text), why, sizeof why));
	/* The document is empty but valid to release. */
	assert_int_equal(doc.entries.size, 0);
	tl_toml_release(&doc);
	regex_t re;
	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	int rc = regexec(&re, why, 0, NULL, 0);
	regfree(&re);
	if (rc != 0)
		fail_msg("reason '%s' does not match /%s/", why, pattern);
}

static const TlTomlEntry *get(const TlToml *doc, const char *table, const char *key,
			      TlTomlKind kind)
{
	const TlTomlEntry *e = tl_toml_get(doc, table, key);
	if (!e)
		fail_msg("no entry [%s] %s", table, key);
	assert_int_equal(e->kind, kind);
	return e;
}

static void test_basic_string_escapes(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "s = \"a\\nb\\\"c\\u00e9d\\t\\\\\"\n"
		       "big = \"\\U0001F600\"\n"
		       "cjk = \"\\u4E2D\"\n");
	assert_string_equal(get(&doc, "", "s", TL_TOML_STRING)->str, "a\nb\"c\xC3\xA9" "d\t\\");
	assert_string_equal(get(&doc, "", "big", TL_TOML_STRING)->str, "\xF0\x9F\x98\x80");
	assert_string_equal(get(&doc, "", "cjk", TL_TOML_STRING)->str, "\xE4\xB8\xAD");
	tl_toml_release(&doc);
}

static void test_literal_string_is_raw(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "path = 'C:\\new\\table'\nq = 'say \"hi\"'\n");
	assert_string_equal(get(&doc, "", "path", TL_TOML_STRING)->str, "C:\\new\\table");
	assert_string_equal(get(&doc, "", "q", TL_TOML_STRING)->str, "say \"hi\"");
	tl_toml_release(&doc);
}

static void test_multiline_strings(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc,
		 "ml = \"\"\"\nfirst\\tline\nsecond \\\"q\\\"\"\"\"\n"
		 "folded = \"\"\"one \\\n      two\"\"\"\n"
		 "raw = '''\nkeep \\n as is\n'''\n"
		 "empty = \"\"\n");
	/* The newline right after the opening delimiter is dropped. */
	assert_string_equal(get(&doc, "", "ml", TL_TOML_STRING)->str, "first\tline\nsecond \"q\"");
	/* A line-ending backslash eats the newline and the indentation. */
	assert_string_equal(get(&doc, "", "folded", TL_TOML_STRING)->str, "one two");
	assert_string_equal(get(&doc, "", "raw", TL_TOML_STRING)->str, "keep \\n as is\n");
	assert_string_equal(get(&doc, "", "empty", TL_TOML_STRING)->str, "");
	tl_toml_release(&doc);
}

static void test_booleans_and_integers(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "yes = true\nno = false\n"
		       "n = 1_000_000\nneg = -42\npos = +7\nzero = 0\nhex = 0xff\n");
	assert_true(get(&doc, "", "yes", TL_TOML_BOOL)->boolean);
	assert_false(get(&doc, "", "no", TL_TOML_BOOL)->boolean);
	assert_int_equal(get(&doc, "", "n", TL_TOML_INT)->integer, 1000000);
	assert_int_equal(get(&doc, "", "neg", TL_TOML_INT)->integer, -42);
	assert_int_equal(get(&doc, "", "pos", TL_TOML_INT)->integer, 7);
	assert_int_equal(get(&doc, "", "zero", TL_TOML_INT)->integer, 0);
	assert_int_equal(get(&doc, "", "hex", TL_TOML_INT)->integer, 255);
	tl_toml_release(&doc);
}

static void test_octal_and_binary_integers(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "mode = 0o755\nbits = 0b101\n");
	assert_int_equal(get(&doc, "", "mode", TL_TOML_INT)->integer, 0755);
	assert_int_equal(get(&doc, "", "bits", TL_TOML_INT)->integer, 5);
	tl_toml_release(&doc);
}

static void test_string_arrays(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "select = [\"TL101\", 'TL2', \"\"\"memory\"\"\",]\n"
		       "multi = [\n  \"a\",  # first\n  \"b\\u00e9\",\n]\n"
		       "none = []\n"
		       "mixed = [\"a\", 1]\n"
		       "nums = [1, 2]\n");
	const TlTomlEntry *e = get(&doc, "", "select", TL_TOML_STRING_ARRAY);
	assert_int_equal(e->array.size, 3);
	assert_string_equal(e->array.items[0], "TL101");
	assert_string_equal(e->array.items[1], "TL2");
	assert_string_equal(e->array.items[2], "memory");
	e = get(&doc, "", "multi", TL_TOML_STRING_ARRAY);
	assert_int_equal(e->array.size, 2);
	assert_string_equal(e->array.items[0], "a");
	assert_string_equal(e->array.items[1], "b\xC3\xA9");
	assert_int_equal(get(&doc, "", "none", TL_TOML_STRING_ARRAY)->array.size, 0);
	/* Not arrays of strings: reported as other kinds, not as strings. */
	get(&doc, "", "mixed", TL_TOML_OTHER);
	get(&doc, "", "nums", TL_TOML_OTHER);
	tl_toml_release(&doc);
}

static void test_other_values(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "f = 1.5\nd = 1979-05-27\nt = { a = 1 }\nm = [1, \"x\"]\n");
	get(&doc, "", "f", TL_TOML_OTHER);
	get(&doc, "", "d", TL_TOML_OTHER);
	get(&doc, "", "m", TL_TOML_OTHER);
	/* An inline table is a table: its keys are entries of their own. */
	assert_int_equal(get(&doc, "t", "a", TL_TOML_INT)->integer, 1);
	assert_null(tl_toml_get(&doc, "", "t"));
	tl_toml_release(&doc);
}

static void test_tables_and_dotted_keys(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "# header comment\n"
		       "top = 1\n"
		       "a.b = \"dotted\"\n"
		       "\"quoted key\" = 2\n"
		       "\n"
		       "[tool.torchlint]  # the config\n"
		       "select = [\"TL1\"]\n"
		       "per-file.ignore = true\n"
		       "\n"
		       "[tool.\"my tool\"]\n"
		       "top = 3\n");
	assert_int_equal(get(&doc, "", "top", TL_TOML_INT)->integer, 1);
	/* Dotted keys make tables: the entry lives in table "a". */
	assert_string_equal(get(&doc, "a", "b", TL_TOML_STRING)->str, "dotted");
	assert_int_equal(get(&doc, "", "quoted key", TL_TOML_INT)->integer, 2);
	const TlTomlEntry *e = get(&doc, "tool.torchlint", "select", TL_TOML_STRING_ARRAY);
	assert_string_equal(e->array.items[0], "TL1");
	assert_true(get(&doc, "tool.torchlint.per-file", "ignore", TL_TOML_BOOL)->boolean);
	/* The same key in another table is another entry; a key that is not
	 * bare is quoted in the path. */
	assert_int_equal(get(&doc, "tool.\"my tool\"", "top", TL_TOML_INT)->integer, 3);
	assert_int_equal(doc.entries.size, 6);
	tl_toml_release(&doc);
}

static void test_value_positions(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "a = 1\n\n[t]\n  key   = \"v\"\n");
	const TlTomlEntry *e = get(&doc, "", "a", TL_TOML_INT);
	assert_int_equal(e->line, 1);
	assert_int_equal(e->column, 5);
	e = get(&doc, "t", "key", TL_TOML_STRING);
	assert_int_equal(e->line, 4);
	assert_int_equal(e->column, 11);
	tl_toml_release(&doc);
}

static void test_duplicate_key(void **state)
{
	(void)state;
	parse_fails("a = 1\nb = 2\na = 3\n", "^3:1: duplicate key");
	parse_fails("[t]\nx = 1\n  x = \"again\"\n", "^3:3: duplicate key");
	parse_fails("a.b = 1\na.b = 2\n", "^2:1: duplicate key");
	/* Same key, different tables: fine. */
	TlToml doc;
	parse_ok(&doc, "x = 1\n[t]\nx = 2\n");
	assert_int_equal(doc.entries.size, 2);
	tl_toml_release(&doc);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	parse_fails("a = 1\nb = \n", "^[0-9]+:[0-9]+: ");
	parse_fails("a = \"unterminated\nb = 2\n", "^[0-9]+:[0-9]+: ");
	parse_fails("[table\nx = 1\n", "^[0-9]+:[0-9]+: ");
	parse_fails("= 1\n", "^1:[0-9]+: ");
	/* An error on line 3 is reported on line 3. */
	parse_fails("a = 1\nb = 2\nc = = 3\n", "^3:[0-9]+: ");
}

static void test_bad_escapes(void **state)
{
	(void)state;
	/* The grammar itself refuses an unknown escape. */
	parse_fails("s = \"bad \\q escape\"\n", "^1:[0-9]+: ");
	parse_fails("s = \"\\u12\"\n", "^1:[0-9]+: ");
}

static void test_get(void **state)
{
	(void)state;
	TlToml doc;
	parse_ok(&doc, "k = \"root\"\n[t]\nk = \"table\"\n");
	assert_string_equal(tl_toml_get(&doc, "", "k")->str, "root");
	assert_string_equal(tl_toml_get(&doc, "t", "k")->str, "table");
	assert_null(tl_toml_get(&doc, "", "missing"));
	assert_null(tl_toml_get(&doc, "other", "k"));
	assert_null(tl_toml_get(&doc, "t", "K"));
	tl_toml_release(&doc);

	/* An empty document has no entries. */
	parse_ok(&doc, "");
	assert_int_equal(doc.entries.size, 0);
	assert_null(tl_toml_get(&doc, "", "k"));
	tl_toml_release(&doc);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_string_escapes),
		cmocka_unit_test(test_literal_string_is_raw),
		cmocka_unit_test(test_multiline_strings),
		cmocka_unit_test(test_booleans_and_integers),
		cmocka_unit_test(test_octal_and_binary_integers),
		cmocka_unit_test(test_string_arrays),
		cmocka_unit_test(test_other_values),
		cmocka_unit_test(test_tables_and_dotted_keys),
		cmocka_unit_test(test_value_positions),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_bad_escapes),
		cmocka_unit_test(test_get),
	};
	return cmocka_run_group_tests_name("toml", tests, NULL, NULL);
}
