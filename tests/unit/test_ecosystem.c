/* Unit tests of the modules that fit torchlint into projects and tools:
 * globs and ignore patterns, configuration files, the SARIF line hash,
 * notebooks, paths and the GitHub escapes. */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/glob.h"
#include "base/paths.h"
#include "config/config.h"
#include "engine/fingerprint.h"
#include "engine/notebook.h"
#include "report/output.h"
#include "rules/rules.h"
#include "rules/ruleset.h"

/* ---- globs ---------------------------------------------------------------- */

static void test_glob(void **state)
{
	(void)state;
	assert_true(tl_glob_match("*.py", "a.py"));
	assert_false(tl_glob_match("*.py", "d/a.py"));
	assert_true(tl_glob_match("**/*.py", "d/e/a.py"));
	assert_true(tl_glob_match("**/*.py", "a.py"));
	assert_true(tl_glob_match("a/**/b", "a/b"));
	assert_true(tl_glob_match("a/**/b", "a/x/y/b"));
	assert_false(tl_glob_match("a/**/b", "a/xb"));
	assert_true(tl_glob_match("a/**", "a/x/y"));
	assert_true(tl_glob_match("[a-c]x", "bx"));
	assert_false(tl_glob_match("[!a-c]x", "bx"));
	assert_false(tl_glob_match("?.py", "ab.py"));
	assert_true(tl_glob_match("fo\\*", "fo*"));
	assert_false(tl_glob_match("fo\\*", "foo"));
	assert_false(tl_glob_match("", "x"));
	assert_true(tl_glob_match("", ""));
}

static void test_patterns_gitignore_semantics(void **state)
{
	(void)state;
	TlPatterns p;
	tl_patterns_init(&p, "/repo");
	tl_patterns_add_text(&p, "# comment\n\nbuild/\n*.log\n/top.py\ndocs/*.py\n!keep.log\n\\#hash\n");
	assert_int_equal(tl_patterns_match(&p, "/repo/x/build", true), TL_MATCH_EXCLUDE);
	assert_int_equal(tl_patterns_match(&p, "/repo/x/build", false), TL_MATCH_NONE); /* dir only */
	assert_int_equal(tl_patterns_match(&p, "/repo/a/b/c.log", false), TL_MATCH_EXCLUDE);
	assert_int_equal(tl_patterns_match(&p, "/repo/keep.log", false), TL_MATCH_INCLUDE);
	assert_int_equal(tl_patterns_match(&p, "/repo/top.py", false), TL_MATCH_EXCLUDE);
	assert_int_equal(tl_patterns_match(&p, "/repo/sub/top.py", false), TL_MATCH_NONE); /* anchored */
	assert_int_equal(tl_patterns_match(&p, "/repo/docs/a.py", false), TL_MATCH_EXCLUDE);
	assert_int_equal(tl_patterns_match(&p, "/repo/docs/x/a.py", false), TL_MATCH_NONE);
	assert_int_equal(tl_patterns_match(&p, "/repo/#hash", false), TL_MATCH_EXCLUDE);
	assert_int_equal(tl_patterns_match(&p, "/elsewhere/c.log", false), TL_MATCH_NONE);
	tl_patterns_release(&p);
}

/* ---- the SARIF line hash ------------------------------------------------------------ */

/* Expected values computed with an independent re-implementation of the
 * upload action's algorithm (64-bit BigInt arithmetic in JavaScript). */
static void test_line_hashes(void **state)
{
	(void)state;
	const char *text = "import torch\n\nfor x in loader:\n    loss = crit(x)\n    loss = crit(x)\n";
	TlLineHashes h;
	tl_line_hashes(&h, text, strlen(text), 0);
	assert_string_equal(tl_line_hash(&h, 1), "f96ce0dc0c6c29e5:1");
	assert_string_equal(tl_line_hash(&h, 2), "44aa4874ae5328b4:1");
	assert_string_equal(tl_line_hash(&h, 4), "4341fa49030b62e5:1");
	assert_string_equal(tl_line_hash(&h, 5), "dc34095da580dc72:1");
	assert_string_equal(tl_line_hash(&h, 99), "");
	tl_line_hashes_release(&h);
	/* CRLF and lone CR end lines; tabs are skipped; astral characters
	 * count as two UTF-16 units. */
	const char *mixed = "a\r\nb\rc\t\xc3\xa9 \xf0\x9f\x98\x80\n";
	tl_line_hashes(&h, mixed, strlen(mixed), 0);
	assert_string_equal(tl_line_hash(&h, 1), "806e2d3659173a2d:1");
	assert_string_equal(tl_line_hash(&h, 2), "c5971fcdda851106:1");
	assert_string_equal(tl_line_hash(&h, 3), "6de645b79bbb4822:1");
	tl_line_hashes_release(&h);
}

static void test_line_hashes_repeat_count(void **state)
{
	(void)state;
	/* Identical windows are numbered in order: "hex:1", "hex:2". */
	TlBuf b;
	tl_buf_init(&b);
	for (int i = 0; i < 300; i++)
		tl_buf_add(&b, "x\n");
	TlLineHashes h;
	tl_line_hashes(&h, b.data, b.len, 0);
	const char *first = tl_line_hash(&h, 1), *second = tl_line_hash(&h, 2);
	size_t hex = strcspn(first, ":");
	assert_int_equal(strncmp(first, second, hex), 0);
	assert_string_equal(first + hex, ":1");
	assert_string_equal(second + hex, ":2");
	tl_line_hashes_release(&h);
	tl_buf_release(&b);
}

/* ---- configuration ----------------------------------------------------------------------- */

typedef struct {
	TlRuleSet rules;
	char dir[64];
} Env;

static int env_setup(void **state)
{
	Env *e = tl_calloc(1, sizeof *e);
	if (!tl_rules_load(&e->rules, NULL, stderr))
		return -1;
	strcpy(e->dir, "/tmp/tl-eco-XXXXXX");
	if (!mkdtemp(e->dir))
		return -1;
	*state = e;
	return 0;
}

static int env_teardown(void **state)
{
	Env *e = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", e->dir);
	if (system(cmd) != 0)
		return -1;
	tl_rules_release(&e->rules);
	tl_free(e);
	return 0;
}

static char *write_file(const Env *e, const char *name, const char *text)
{
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/%s", e->dir, name);
	char *slash = strrchr(p.data, '/');
	*slash = '\0';
	mkdir(p.data, 0755);
	*slash = '/';
	FILE *f = fopen(p.data, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return tl_buf_detach(&p);
}

static char *load_error(Env *e, const char *name, const char *text, bool *ok)
{
	char *path = write_file(e, name, text);
	char *out = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&out, &len);
	TlConfig cfg;
	bool found;
	*ok = tl_config_load(&cfg, path, &e->rules, &found, err);
	fclose(err);
	tl_config_release(&cfg);
	tl_free(path);
	return out;
}

static void test_config_keys(void **state)
{
	Env *e = *state;
	char *path = write_file(e, "pyproject.toml",
				"[tool.black]\nline-length = 88\n\n[tool.torchlint]\n"
				"select = [\"memory\", \"TL201\"]\nextend-select = [\"TL001\"]\nignore = [\"TL102\"]\n"
				"extend-exclude = [\"gen/\"]\ntorch-version = \"2.4.1\"\n\n"
				"[tool.torchlint.per-file-ignores]\n\"tests/*.py\" = [\"TL101\"]\n");
	TlConfig cfg;
	bool found;
	assert_true(tl_config_load(&cfg, path, &e->rules, &found, stderr));
	assert_true(found);
	assert_true(cfg.has_select);
	assert_int_equal(cfg.select.size, 2);
	assert_string_equal(cfg.select.items[1], "TL201");
	assert_string_equal(cfg.extend_select.items[0], "TL001");
	assert_string_equal(cfg.ignore.items[0], "TL102");
	assert_int_equal(cfg.torch_version, 204);
	assert_int_equal(cfg.per_file_ignores.size, 1);
	assert_string_equal(cfg.per_file_ignores.items[0].glob, "tests/*.py");
	/* extend-exclude keeps the defaults and adds its own. */
	TlBuf p;
	tl_buf_init(&p);
	tl_buf_addf(&p, "%s/x/gen", e->dir);
	assert_int_equal(tl_patterns_match(&cfg.exclude, p.data, true), TL_MATCH_EXCLUDE);
	tl_buf_clear(&p);
	tl_buf_addf(&p, "%s/x/__pycache__", e->dir);
	assert_int_equal(tl_patterns_match(&cfg.exclude, p.data, true), TL_MATCH_EXCLUDE);
	tl_buf_release(&p);
	tl_config_release(&cfg);
	tl_free(path);
}

static void test_config_without_table(void **state)
{
	Env *e = *state;
	char *path = write_file(e, "plain/pyproject.toml", "[project]\nname = \"x\"\n");
	TlConfig cfg;
	bool found = true;
	assert_true(tl_config_load(&cfg, path, &e->rules, &found, stderr));
	assert_false(found);
	tl_config_release(&cfg);
	tl_free(path);
}

static void test_config_errors(void **state)
{
	Env *e = *state;
	bool ok;
	char *out = load_error(e, "e1/torchlint.toml", "select = [\"TL1\"]\nfrobnicate = true\n", &ok);
	assert_false(ok);
	assert_non_null(strstr(out, "torchlint.toml:2:14: error: unknown key 'frobnicate'"));
	free(out);
	out = load_error(e, "e2/torchlint.toml", "ignore = [\"TL777\"]\n", &ok);
	assert_false(ok);
	assert_non_null(strstr(out, "'TL777' in 'ignore' matches no rule"));
	free(out);
	out = load_error(e, "e3/torchlint.toml", "torch-version = 2.4\n", &ok);
	assert_false(ok);
	assert_non_null(strstr(out, "torch-version"));
	free(out);
	out = load_error(e, "e4/torchlint.toml", "select = [\"TL1\"\n", &ok);
	assert_false(ok);
	assert_non_null(strstr(out, ": error: "));
	free(out);
	out = load_error(e, "e5/pyproject.toml", "[tool.torchlint.extras]\nx = 1\n", &ok);
	assert_false(ok);
	assert_non_null(strstr(out, "unknown table '[tool.torchlint.extras]'"));
	free(out);
}

static void test_torch_version_parse(void **state)
{
	(void)state;
	assert_int_equal(tl_torch_version_parse("2.6"), 206);
	assert_int_equal(tl_torch_version_parse("1.13.1"), 113);
	assert_int_equal(tl_torch_version_parse("2"), 200);
	assert_int_equal(tl_torch_version_parse("2."), -1);
	assert_int_equal(tl_torch_version_parse("two"), -1);
	assert_int_equal(tl_torch_version_parse("2.4x"), -1);
}

static void test_configs_closest_wins(void **state)
{
	Env *e = *state;
	char *a = write_file(e, "proj/pyproject.toml", "[tool.torchlint]\nignore = [\"TL101\"]\n");
	char *b = write_file(e, "proj/sub/torchlint.toml", "ignore = [\"TL201\"]\n");
	char *c = write_file(e, "proj/sub/pyproject.toml", "[tool.torchlint]\nignore = [\"TL401\"]\n");
	char *f1 = write_file(e, "proj/x.py", "");
	char *f2 = write_file(e, "proj/sub/deep/y.py", "");
	TlConfigs cs;
	tl_configs_init(&cs, &e->rules);
	const TlConfig *c1 = tl_configs_for(&cs, f1, false, stderr);
	const TlConfig *c2 = tl_configs_for(&cs, f2, false, stderr);
	assert_string_equal(c1->ignore.items[0], "TL101");
	assert_string_equal(c2->ignore.items[0], "TL201"); /* torchlint.toml wins */
	assert_ptr_equal(tl_configs_for(&cs, f2, false, stderr), c2); /* cached */
	assert_false(cs.failed);
	tl_configs_release(&cs);
	tl_configs_init(&cs, &e->rules);
	cs.isolated = true;
	assert_int_equal(tl_configs_for(&cs, f1, false, stderr)->ignore.size, 0);
	tl_configs_release(&cs);
	tl_free(a);
	tl_free(b);
	tl_free(c);
	tl_free(f1);
	tl_free(f2);
}

/* ---- paths --------------------------------------------------------------------------- */

static void test_paths(void **state)
{
	(void)state;
	char *p = tl_path_absolute("/a/./b//c/../d");
	assert_string_equal(p, "/a/b/d");
	tl_free(p);
	p = tl_path_absolute("/..");
	assert_string_equal(p, "/");
	tl_free(p);
	p = tl_path_parent("/a/b/");
	assert_string_equal(p, "/a/");
	tl_free(p);
	p = tl_path_parent("/");
	assert_string_equal(p, "/");
	tl_free(p);
	p = tl_path_dirname_abs("/x/y.py");
	assert_string_equal(p, "/x/");
	tl_free(p);
	char *cwd = tl_path_cwd(), *rel = tl_path_absolute("q.py");
	assert_int_equal(strncmp(rel, cwd, strlen(cwd)), 0);
	assert_string_equal(rel + strlen(cwd), "q.py");
	tl_free(cwd);
	tl_free(rel);
}

/* ---- notebooks -------------------------------------------------------------------------- */

static const char *const notebook_json =
	"{\"cells\": [\n"
	" {\"cell_type\": \"markdown\", \"source\": [\"# title\\n\"]},\n"
	" {\"cell_type\": \"code\", \"source\": [\"%matplotlib inline\\n\", \"!ls\\n\", \"x = 1\\n\"]},\n"
	" {\"cell_type\": \"code\", \"source\": \"files = !ls\\nhelp?\\ny = \\\"\\u00e9\\\"; z = 2\"},\n"
	" {\"cell_type\": \"code\", \"source\": [\"%%bash\\n\", \"echo (((\\n\"]}\n"
	"], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}\n";

static void test_notebook_program(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_json, strlen(notebook_json), why, sizeof why));
	assert_int_equal(nb.cells.size, 3);
	assert_int_equal(nb.cells.items[0].number, 2);
	assert_int_equal(nb.cells.items[1].number, 3);
	assert_int_equal(nb.cells.items[1].first_line, 4);
	/* Magics become comments of the same length. */
	assert_string_equal(nb.program.text,
			    "#matplotlib inline\n#ls\nx = 1\n"
			    "#iles = !ls\n#elp?\ny = \"\xc3\xa9\"; z = 2\n"
			    "#%bash\n#cho (((\n");
	tl_notebook_release(&nb);
}

/* IPython joins a shell escape's backslash continuations into one command:
 * each continued line is IPython syntax, up to the first line that does
 * not end in a backslash. A backslash at the end of Python code continues
 * Python, which stays as it is; so do `,` and `;` after indentation (not
 * IPython's auto-quote escapes, which start a line). */
static const char *const notebook_continued_json =
	"{\"cells\": [\n"
	" {\"cell_type\": \"code\", \"source\": [\"!pip install -q \\\\\\n\", \"    torch \\\\\\n\", \"    numpy\\n\", \"x = 1 + \\\\\\n\", \"  2\\n\"]},\n"
	" {\"cell_type\": \"code\", \"source\": [\",print a b\\n\", \";print c\\n\", \"y = [1,\\n\", \"  2]\\n\"]}\n"
	"], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}\n";

static void test_notebook_continuations(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_continued_json,
				     strlen(notebook_continued_json), why, sizeof why));
	assert_string_equal(nb.program.text,
			    "#pip install -q \\\n    #orch \\\n    #umpy\nx = 1 + \\\n  2\n"
			    "#print a b\n#print c\ny = [1,\n  2]\n");
	tl_notebook_release(&nb);
}

/* IPython's help syntax: `obj?`, `obj??`, `?obj`, `??obj`, with dotted
 * names, `*` wildcards (`torch.*Tensor?`: a search), integer subscripts and
 * magics (`%timeit?`); each line is a comment of the same length. What is
 * not a help line stays Python (a `?` elsewhere is a syntax error). */
static const char *const notebook_help_json =
	"{\"cells\": [\n"
	" {\"cell_type\": \"code\", \"source\": [\"torch.*Tensor?\\n\", \"*int*?\\n\", \"?torch.nn\\n\", \"?? nn.Linear\\n\","
	" \"x[0]?\\n\", \"%timeit??\\n\", \"np.random.rand?  \\n\", \"a = b?\\n\", \"f(x)?\\n\", \"1x?\\n\"]}\n"
	"], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}\n";

static void test_notebook_help(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_help_json, strlen(notebook_help_json), why, sizeof why));
	assert_string_equal(nb.program.text,
			    "#orch.*Tensor?\n#int*?\n#torch.nn\n#? nn.Linear\n#[0]?\n#timeit??\n#p.random.rand?  \n"
			    "a = b?\nf(x)?\n1x?\n");
	tl_notebook_release(&nb);
}

/* A line that continues a Python statement (inside brackets, a
 * triple-quoted string, after a backslash) is never IPython syntax: `% (a,
 * b)` there is the string-format operator. */
static const char *const notebook_python_json =
	"{\"cells\": [\n"
	" {\"cell_type\": \"code\", \"source\": [\"print('%d' \\n\", \"      % (1))\\n\", \"s = '''\\n\", \"!x\\n\", \"'''\\n\", \"y = 1 + \\\\\\n\", \"!z\\n\", \"!ls\\n\"]}\n"
	"], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}\n";

static void test_notebook_python_lines(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_python_json, strlen(notebook_python_json), why, sizeof why));
	assert_string_equal(nb.program.text, "print('%d' \n      % (1))\ns = '''\n!x\n'''\ny = 1 + \\\n!z\n#ls\n");
	tl_notebook_release(&nb);
}

/* A code cell an editor marks as another language (VS Code's
 * `vscode.languageId`, Polyglot Notebooks' kernel name) is left out, as is
 * every cell of a notebook whose kernel is not Python's unless the cell
 * itself says Python; cell numbers stay those of the file. */
static const char *const notebook_languages_json =
	"{\"cells\": [\n"
	" {\"cell_type\": \"code\", \"metadata\": {\"vscode\": {\"languageId\": \"shellscript\"}}, \"source\": \"pip install x\"},\n"
	" {\"cell_type\": \"code\", \"metadata\": {\"vscode\": {\"languageId\": \"plaintext\"}}, \"source\": \"epoch: 1 | loss: 0.5\"},\n"
	" {\"cell_type\": \"code\", \"metadata\": {\"vscode\": {\"languageId\": \"python\"}}, \"source\": \"x = 1\"},\n"
	" {\"cell_type\": \"code\", \"metadata\": {\"polyglot_notebook\": {\"kernelName\": \"csharp\"}}, \"source\": \"var y = 2;\"},\n"
	" {\"cell_type\": \"code\", \"metadata\": {}, \"source\": \"z = 3\"}\n"
	"], \"metadata\": {\"kernelspec\": {\"language\": \"python\", \"name\": \"python3\"}}, \"nbformat\": 4, \"nbformat_minor\": 5}\n";

static const char *const notebook_r_json =
	"{\"cells\": [\n"
	" {\"cell_type\": \"code\", \"source\": \"x <- c(1, 2)\"},\n"
	" {\"cell_type\": \"code\", \"metadata\": {\"vscode\": {\"languageId\": \"python\"}}, \"source\": \"y = 2\"}\n"
	"], \"metadata\": {\"kernelspec\": {\"language\": \"R\", \"name\": \"ir\"}, \"language_info\": {\"name\": \"R\"}}, \"nbformat\": 4, \"nbformat_minor\": 5}\n";

static void test_notebook_languages(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_languages_json, strlen(notebook_languages_json), why,
				     sizeof why));
	assert_int_equal(nb.cells.size, 2);
	assert_int_equal(nb.cells.items[0].number, 3);
	assert_int_equal(nb.cells.items[1].number, 5);
	assert_string_equal(nb.program.text, "x = 1\nz = 3\n");
	tl_notebook_release(&nb);
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_r_json, strlen(notebook_r_json), why, sizeof why));
	assert_int_equal(nb.cells.size, 1);
	assert_int_equal(nb.cells.items[0].number, 2);
	assert_string_equal(nb.program.text, "y = 2\n");
	tl_notebook_release(&nb);
}

static void test_notebook_mapping(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	assert_true(tl_notebook_load(&nb, "n.ipynb", notebook_json, strlen(notebook_json), why, sizeof why));
	/* `z` on program line 6, after the escaped quotes and the é. */
	const char *z = strstr(nb.program.text, "z = 2");
	uint32_t at = (uint32_t)(z - nb.program.text);
	TlFinding f;
	memset(&f, 0, sizeof f);
	f.start_byte = at;
	f.end_byte = at + 1;
	f.start = tl_source_position(&nb.program, at);
	f.end = tl_source_position(&nb.program, at + 1);
	assert_int_equal(f.start.line, 6);
	tl_notebook_map(&nb, &f);
	assert_int_equal(f.cell, 3);
	assert_int_equal(f.cell_start.line, 3);
	assert_int_equal(f.cell_start.column, 10); /* after the 2-byte é: code points */
	/* In the raw file: line 4, where the source string holds `z`. */
	assert_int_equal(f.start.line, 4);
	uint32_t len;
	const char *raw_line = tl_source_line(&nb.raw, 4, &len);
	const char *raw_z = strstr(raw_line, "z = 2");
	assert_non_null(raw_z);
	assert_int_equal(f.start.column, tl_utf8_count(raw_line, (size_t)(raw_z - raw_line)) + 1);
	assert_int_equal(f.end.column, f.start.column + 1);
	tl_notebook_release(&nb);
}

static void test_notebook_errors(void **state)
{
	(void)state;
	TlNotebook nb;
	char why[256];
	/* Read but no notebook: malformed, with where the JSON breaks (the
	 * last byte of a truncated file: its '['). */
	assert_false(tl_notebook_load(&nb, "n.ipynb", "{\"cells\": [", 11, why, sizeof why));
	assert_non_null(strstr(why, "invalid notebook JSON: "));
	assert_true(nb.malformed);
	assert_int_equal(nb.error_byte, 10);
	assert_false(tl_notebook_load(&nb, "n.ipynb", "{\"cells\": ]}", 12, why, sizeof why));
	assert_true(nb.malformed);
	assert_int_equal(nb.error_byte, 10);
	assert_false(tl_notebook_load(&nb, "n.ipynb", "", 0, why, sizeof why));
	assert_true(nb.malformed);
	assert_int_equal(nb.error_byte, 0);
	assert_false(tl_notebook_load(&nb, "n.ipynb", "[1, 2]", 6, why, sizeof why));
	assert_non_null(strstr(why, "not a notebook"));
	assert_true(nb.malformed);
	const char *nosrc = "{\"cells\": [{\"cell_type\": \"code\"}]}";
	assert_false(tl_notebook_load(&nb, "n.ipynb", nosrc, strlen(nosrc), why, sizeof why));
	assert_non_null(strstr(why, "cell 1"));
	assert_true(nb.malformed);
	/* Not read at all: a failure, not a finding. */
	assert_false(tl_notebook_load(&nb, "n.ipynb", "{\"cells\": [\x00]}", 14, why, sizeof why));
	assert_false(nb.malformed);
	assert_true(tl_notebook_path("a/b.ipynb"));
	assert_false(tl_notebook_path("a/b.py"));
}

/* ---- GitHub escapes ------------------------------------------------------------------------- */

static void test_github_escape(void **state)
{
	(void)state;
	char *m = tl_output_github_escape("50% a:b,c\r\nd", false);
	assert_string_equal(m, "50%25 a:b,c%0D%0Ad");
	tl_free(m);
	m = tl_output_github_escape("50% a:b,c\r\nd", true);
	assert_string_equal(m, "50%25 a%3Ab%2Cc%0D%0Ad");
	tl_free(m);
	/* Other control bytes too (issue 26: ESC from a file name). */
	m = tl_output_github_escape("c\033[31m\t\177.py", true);
	assert_string_equal(m, "c%1B[31m%09%7F.py");
	tl_free(m);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_patterns_gitignore_semantics),
		cmocka_unit_test(test_line_hashes),
		cmocka_unit_test(test_line_hashes_repeat_count),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_config_without_table),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_torch_version_parse),
		cmocka_unit_test(test_configs_closest_wins),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_notebook_program),
		cmocka_unit_test(test_notebook_continuations),
		cmocka_unit_test(test_notebook_help),
		cmocka_unit_test(test_notebook_python_lines),
		cmocka_unit_test(test_notebook_languages),
		cmocka_unit_test(test_notebook_mapping),
		cmocka_unit_test(test_notebook_errors),
		cmocka_unit_test(test_github_escape),
	};
	return cmocka_run_group_tests_name("ecosystem", tests, env_setup, env_teardown);
}
