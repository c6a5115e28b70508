/* Unit tests for analyzer/model/apitable.h: the parser of an API table
 * (every malformed row is refused with its file and line, unknown column
 * values too), its lookup, the build's check (tools/apicheck.c) and the
 * embedded table itself (it parses, and no name is in it twice). */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/embedded.h"
#include "model/apitable.h"

#define HEADER "name graph kind device dtype roles sets params\n"

/* Parses `text`; returns whether it parsed, the table in *t (rows in
 * `rows`, room for 64) and the error in `err`. */
static bool parse(const char *text, TlApiRow *rows, TlApiTable *t, char *err, size_t errcap)
{
	return tl_api_parse(text, strlen(text), "api/x.tsv", rows, 64, t, err, errcap);
}

/* Asserts that `text` is refused with a message that starts with
 * `where` and contains `what`. */
static void refused(const char *text, const char *where, const char *what)
{
	TlApiRow rows[64];
	TlApiTable t;
	char err[512];
	bool ok = parse(text, rows, &t, err, sizeof err);
	if (ok)
		fail_msg("accepted: %s", text);
	if (strncmp(err, where, strlen(where)) != 0 || !strstr(err, what))
		fail_msg("for %s: got '%s', wanted '%s...%s'", text, err, where, what);
}

static void test_parse_and_find(void **state)
{
	(void)state;
	const char *text = "# a comment\n"
			   "\n" HEADER
			   "torch.argmax  breaks  tensor  keeps  integer  -  -\n"
			   "  # an indented comment\n"
			   ".item\tbreaks\tnumber\thost\t-\t-\t-\r\n"
			   ".float keeps tensor keeps float32 - -\n"
			   "builtins.float breaks number - - - -\n"
			   "torch.nn.CrossEntropyLoss - criterion - - loss,forward -\n"
			   "*.Adam - optimizer - - - adaptive-optimizer\n"
			   "torch.rand - tensor - - factory tensor-factory,random-factory\n"
			   "torch.zeros_like breaks tensor keeps keeps factory -";
	TlApiRow rows[64];
	TlApiTable t;
	char err[512];
	assert_true(parse(text, rows, &t, err, sizeof err));
	assert_int_equal(t.count, 8);
	const TlApiRow *r = tl_api_find(&t, TL_API_QUALIFIED, "torch.argmax");
	assert_non_null(r);
	assert_int_equal(r->graph, TL_APIG_BREAKS);
	assert_int_equal(r->kind, TL_APIK_TENSOR);
	assert_int_equal(r->device, TL_APID_KEEPS);
	assert_int_equal(r->dtype, TL_APIT_INTEGER);
	assert_int_equal(r->roles, 0);
	assert_int_equal(r->line, 4);
	r = tl_api_find(&t, TL_API_METHOD, "item");
	assert_non_null(r);
	assert_int_equal(r->device, TL_APID_HOST);
	assert_int_equal(r->line, 6);
	/* The same word as a method and as a builtin: two rows. */
	r = tl_api_find(&t, TL_API_METHOD, "float");
	assert_non_null(r);
	assert_int_equal(r->graph, TL_APIG_KEEPS);
	r = tl_api_find(&t, TL_API_BUILTIN, "float");
	assert_non_null(r);
	assert_int_equal(r->graph, TL_APIG_BREAKS);
	r = tl_api_find(&t, TL_API_QUALIFIED, "torch.nn.CrossEntropyLoss");
	assert_non_null(r);
	assert_int_equal(r->roles, TL_APIR_LOSS | TL_APIR_FORWARD);
	char roles[64];
	tl_api_roles_format(r->roles, roles, sizeof roles);
	assert_string_equal(roles, "loss,forward");
	tl_api_roles_format(0, roles, sizeof roles);
	assert_string_equal(roles, "-");
	r = tl_api_find(&t, TL_API_QUALIFIED, "torch.zeros_like");
	assert_non_null(r);
	assert_int_equal(r->roles, TL_APIR_FACTORY);
	/* A row by the last part of a name, and sets. */
	r = tl_api_find(&t, TL_API_ANY, "Adam");
	assert_non_null(r);
	assert_int_equal(r->kind, TL_APIK_OPTIMIZER);
	assert_int_equal(r->sets, TL_APIS_ADAPTIVE_OPTIMIZER);
	assert_null(tl_api_find(&t, TL_API_QUALIFIED, "Adam"));
	assert_null(tl_api_find(&t, TL_API_ANY, "AdamW"));
	r = tl_api_find(&t, TL_API_QUALIFIED, "torch.rand");
	assert_non_null(r);
	assert_int_equal(r->sets, TL_APIS_TENSOR_FACTORY | TL_APIS_RANDOM_FACTORY);
	char sets[128];
	tl_api_sets_format(r->sets, sets, sizeof sets);
	assert_string_equal(sets, "tensor-factory,random-factory");
	tl_api_sets_format(0, sets, sizeof sets);
	assert_string_equal(sets, "-");
	assert_string_equal(tl_api_set_name(18), "adaptive-optimizer");
	assert_string_equal(tl_api_set_name(19), "mode-dependent");
	assert_string_equal(tl_api_set_name(20), "eval-mode");
	assert_string_equal(tl_api_set_name(TL_API_SET_COUNT), "?");
	/* Names are matched whole, in their own form only. */
	assert_null(tl_api_find(&t, TL_API_QUALIFIED, "torch.argma"));
	assert_null(tl_api_find(&t, TL_API_QUALIFIED, "torch.argmaxx"));
	assert_null(tl_api_find(&t, TL_API_QUALIFIED, "item"));
	assert_null(tl_api_find(&t, TL_API_METHOD, "argmax"));
	assert_null(tl_api_find(&t, TL_API_BUILTIN, "item"));
	assert_null(tl_api_find(&t, TL_API_METHOD, NULL));
	assert_string_equal(tl_api_graph_name(TL_APIG_ELEMENT), "element");
	assert_string_equal(tl_api_kind_name(TL_APIK_UNSAID), "-");
	/* A `module.*` row of a module of one part (`random.*`), and the
	 * roles of what a loop reads again. */
	const char *under = HEADER "random.* - - - - varies -\n"
				   "numpy.random.* - - - - varies -\n"
				   ".append - - - - mutates,stores -\n"
				   ".to_empty - - - - moves -\n";
	assert_true(parse(under, rows, &t, err, sizeof err));
	assert_int_equal(t.count, 4);
	r = tl_api_find(&t, TL_API_UNDER, "random");
	assert_non_null(r);
	assert_int_equal(r->roles, TL_APIR_VARIES);
	assert_non_null(tl_api_find(&t, TL_API_UNDER, "numpy.random"));
	assert_int_equal(tl_api_find(&t, TL_API_METHOD, "append")->roles, TL_APIR_MUTATES | TL_APIR_STORES);
	assert_int_equal(tl_api_find(&t, TL_API_METHOD, "to_empty")->roles, TL_APIR_MOVES);
	/* Attributes: `@grad` is its own form, apart from a method `.grad`. */
	const char *attrs = HEADER "@grad breaks - - - - -\n"
				   ".grad keeps tensor - - - -\n"
				   "@weight - parameter - - - -\n";
	assert_true(parse(attrs, rows, &t, err, sizeof err));
	assert_int_equal(t.count, 3);
	r = tl_api_find(&t, TL_API_ATTRIBUTE, "grad");
	assert_non_null(r);
	assert_int_equal(r->graph, TL_APIG_BREAKS);
	assert_int_equal(tl_api_find(&t, TL_API_METHOD, "grad")->graph, TL_APIG_KEEPS);
	assert_int_equal(tl_api_find(&t, TL_API_ATTRIBUTE, "weight")->kind, TL_APIK_PARAMETER);
	assert_string_equal(tl_api_kind_name(TL_APIK_PARAMETER), "parameter");
	assert_null(tl_api_find(&t, TL_API_ATTRIBUTE, "bias"));
	assert_null(tl_api_find(&t, TL_API_METHOD, "weight"));
}

static void test_malformed_rows(void **state)
{
	(void)state;
	refused(HEADER "torch.argmax breaks tensor keeps integer -\n", "api/x.tsv:2: ", "6 columns, expected 8");
	refused(HEADER "\n# c\ntorch.argmax breaks tensor keeps integer - - - extra\n", "api/x.tsv:4: ",
		"9 columns");
	/* The params column: parameter names, none twice. */
	refused(HEADER "torch.load - - - - - - f,map-location\n", "api/x.tsv:2: ", "bad parameter 'map-location'");
	refused(HEADER "torch.load - - - - - - f,,mmap\n", "api/x.tsv:2: ", "bad parameter ''");
	refused(HEADER "torch.load - - - - - - f,mmap,f\n", "api/x.tsv:2: ", "parameter 'f' given twice");
	refused("name graph kind device dtype roles sets\ntorch.argmax breaks tensor keeps integer - -\n",
		"api/x.tsv:1: ", "the header has 7 columns, expected 8");
	refused(HEADER "torch.argmax broken tensor keeps integer - -\n", "api/x.tsv:2: ",
		"unknown graph effect 'broken'");
	refused(HEADER "torch.argmax breaks tensr keeps integer - -\n", "api/x.tsv:2: ", "unknown kind 'tensr'");
	refused(HEADER "torch.argmax breaks tensor gpu integer - -\n", "api/x.tsv:2: ", "unknown device 'gpu'");
	refused(HEADER "torch.argmax breaks tensor keeps int64 - -\n", "api/x.tsv:2: ", "unknown dtype 'int64'");
	refused(HEADER "torch.argmax breaks tensor keeps integer lossy -\n", "api/x.tsv:2: ", "unknown role 'lossy'");
	refused(HEADER "torch.argmax breaks tensor keeps integer loss, -\n", "api/x.tsv:2: ", "unknown role ''");
	refused(HEADER "torch.argmax breaks tensor keeps integer loss,loss -\n", "api/x.tsv:2: ",
		"role 'loss' given twice");
	refused(HEADER "torch.rand - tensor - - - tensor-factory,randomfactory\n", "api/x.tsv:2: ",
		"unknown set 'randomfactory'");
	refused(HEADER "torch.rand - tensor - - - log,log\n", "api/x.tsv:2: ", "set 'log' given twice");
	refused(HEADER "*.a.b - optimizer - - - -\n", "api/x.tsv:2: ", "bad name '*.a.b'");
	refused(HEADER "*. - optimizer - - - -\n", "api/x.tsv:2: ", "bad name");
	refused(HEADER "*.Adam - - - - - -\n", "api/x.tsv:2: ", "says nothing");
	refused(HEADER "*.Adam - optimizer - - - -\n*.Adam - optimizer - - - -\n", "api/x.tsv:3: ",
		"'*.Adam' repeats the row of line 2");
	refused(HEADER "argmax breaks tensor keeps integer - -\n", "api/x.tsv:2: ", "bad name 'argmax'");
	refused(HEADER "random..* - - - - varies -\n", "api/x.tsv:2: ", "bad name 'random..*'");
	refused(HEADER "2x.* - - - - varies -\n", "api/x.tsv:2: ", "bad name '2x.*'");
	refused(HEADER "torch..argmax breaks tensor keeps integer - -\n", "api/x.tsv:2: ", "bad name");
	refused(HEADER "torch.2x breaks tensor keeps integer - -\n", "api/x.tsv:2: ", "bad name");
	refused(HEADER ".it-em breaks tensor keeps integer - -\n", "api/x.tsv:2: ", "bad method name");
	refused(HEADER "builtins.a.b breaks number - - - -\n", "api/x.tsv:2: ", "bad builtin name");
	refused(HEADER "@a.b breaks - - - - -\n", "api/x.tsv:2: ", "bad attribute name '@a.b'");
	refused(HEADER "@ breaks - - - - -\n", "api/x.tsv:2: ", "bad name '@'");
	refused(HEADER "@grad breaks - - - - -\n@grad breaks - - - - -\n", "api/x.tsv:3: ",
		"'@grad' repeats the row of line 2");
	refused(HEADER "torch.argmax - - - - - -\n", "api/x.tsv:2: ", "says nothing");
	refused("name graph kind device dtype roles set params\n", "api/x.tsv:1: ", "the header must be");
	refused("torch.argmax breaks tensor keeps integer - - -\n", "api/x.tsv:1: ", "the header must be");
	refused("# only a comment\n", "api/x.tsv:", "no header line");
	/* A repeated name: the later row is named, with the earlier's line. */
	refused(HEADER ".item breaks number host - - -\n.float keeps tensor keeps float32 - -\n"
		       ".item keeps tensor - - - -\n",
		"api/x.tsv:4: ", "'.item' repeats the row of line 2");
	refused(HEADER "torch.eq breaks tensor keeps bool - -\ntorch.eq breaks tensor keeps bool - -\n",
		"api/x.tsv:3: ", "'torch.eq' repeats the row of line 2");
	/* More rows than room. */
	TlApiRow rows[1];
	TlApiTable t;
	char err[256];
	const char *two = HEADER ".a breaks - - - - -\n.b breaks - - - - -\n";
	assert_false(tl_api_parse(two, strlen(two), "f", rows, 1, &t, err, sizeof err));
	assert_non_null(strstr(err, "f:3: "));
	/* A small error buffer is cut, not overrun. */
	char small[8];
	const char *bad = HEADER "torch.argmax broken tensor keeps integer - -\n";
	TlApiRow rows2[4];
	assert_false(tl_api_parse(bad, strlen(bad), "api/x.tsv", rows2, 4, &t, small, sizeof small));
	assert_int_equal(strlen(small), sizeof small - 1);
}

/* The build's check runs the same parser: a bad table fails it with the
 * file and line, a good one passes. */
static void test_build_check(void **state)
{
	(void)state;
	char dir[] = "/tmp/tl-apitable-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char bad[128], good[128], cmd[512];
	snprintf(bad, sizeof bad, "%s/bad.tsv", dir);
	snprintf(good, sizeof good, "%s/good.tsv", dir);
	FILE *f = fopen(bad, "w");
	assert_non_null(f);
	fputs("# t\n" HEADER ".item breaks number host - - -\n.float keeps tensor keeps float33 - -\n", f);
	fclose(f);
	f = fopen(good, "w");
	assert_non_null(f);
	fputs(HEADER ".item breaks number host - - -\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s %s >%s/out 2>&1", TL_TEST_APICHECK, bad, dir);
	int rc = system(cmd);
	assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 1);
	char path[160], out[512] = { 0 };
	snprintf(path, sizeof path, "%s/out", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(out, 1, sizeof out - 1, f);
	fclose(f);
	out[n] = '\0';
	char want[256];
	snprintf(want, sizeof want, "%s:4: unknown dtype 'float33'", bad);
	if (!strstr(out, want))
		fail_msg("apicheck said '%s', wanted '%s'", out, want);
	snprintf(cmd, sizeof cmd, "%s %s", TL_TEST_APICHECK, good);
	rc = system(cmd);
	assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The embedded table: it parses, every data line is a row, and no key is
 * there twice (the rows are sorted: a repeat would sit next to its twin). */
static void test_embedded_table(void **state)
{
	(void)state;
	const TlEmbeddedFile *file = NULL;
	for (unsigned i = 0; i < tl_embedded_count; i++)
		if (strcmp(tl_embedded_files[i].path, "api/api.tsv") == 0)
			file = &tl_embedded_files[i];
	assert_non_null(file);
	/* The data lines, counted without the parser: not blank, not a
	 * comment, less the header. */
	size_t lines = 0;
	for (const char *p = file->data; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t k = 0;
		while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
			k++;
		if (k < len && p[k] != '#')
			lines++;
		p += len + (e != NULL);
	}
	const TlApiTable *t = tl_api_table();
	assert_non_null(t);
	assert_true(t->count > 100);
	assert_int_equal(t->count, lines - 1);
	assert_ptr_equal(tl_api_table(), t); /* parsed once */
	for (size_t i = 1; i < t->count; i++) {
		const TlApiRow *a = &t->rows[i - 1], *b = &t->rows[i];
		if (a->form == b->form && a->len == b->len && memcmp(a->name, b->name, a->len) == 0)
			fail_msg("api/api.tsv: '%.*s' on lines %u and %u", (int)a->len, a->name, a->line, b->line);
	}
	/* Every row is found by its own name, through the public lookups. */
	for (size_t i = 0; i < t->count; i++) {
		const TlApiRow *r = &t->rows[i];
		char name[256];
		assert_true(r->len < sizeof name);
		memcpy(name, r->name, r->len);
		name[r->len] = '\0';
		/* The embedded table's names are C strings. */
		assert_int_equal(r->name[r->len], '\0');
		char under[300];
		snprintf(under, sizeof under, "%s.some_builder", name);
		/* An `M.*` row of sets only gives its sets to the names directly
		 * in M, and nothing of their calls. */
		if (r->form == TL_API_UNDER && !r->graph && !r->kind && !r->device && !r->dtype && !r->roles) {
			assert_true(r->sets != 0);
			assert_int_equal(tl_api_module_sets(under), r->sets);
			assert_ptr_not_equal(tl_api_under(under), r);
			continue;
		}
		/* A qualified row of the roles runs-callable or defers-callable
		 * alone (`functools.reduce`: the facts read it,
		 * tl_api_runs_callable) is passed over by tl_api_qualified. */
		const uint64_t callable_roles = TL_APIR_RUNS_CALLABLE | TL_APIR_DEFERS_CALLABLE;
		if (r->form == TL_API_QUALIFIED && !r->graph && !r->kind && !r->device && !r->dtype && !r->sets &&
		    !r->params && r->roles && !(r->roles & ~callable_roles)) {
			assert_null(tl_api_qualified(name));
			assert_int_equal(tl_api_qualified_sets(name), 0);
			assert_int_equal(tl_api_runs_callable(name, NULL), r->roles);
			continue;
		}
		/* So does a method, builtin or `*.` row of sets only, a
		 * method row of the role returns-self alone (`.share_memory`:
		 * the facts read it, tl_api_returns_self), and a builtin row of
		 * runs-callable or defers-callable alone (`map`). */
		if ((r->form == TL_API_METHOD || r->form == TL_API_BUILTIN || r->form == TL_API_ANY) && !r->graph &&
		    !r->kind && !r->device && !r->dtype && !(r->roles & ~(TL_APIR_RETURNS_SELF | callable_roles))) {
			assert_true(r->sets != 0 || (r->form == TL_API_METHOD && r->roles == TL_APIR_RETURNS_SELF) ||
				    (r->form == TL_API_BUILTIN && r->roles && !(r->roles & ~callable_roles)));
			if (r->form == TL_API_ANY) {
				char dotted[300];
				snprintf(dotted, sizeof dotted, "some.module.%s", name);
				assert_int_equal(tl_api_any_sets(dotted), r->sets);
				assert_int_equal(tl_api_any_sets(name), r->sets);
				assert_null(tl_api_any(dotted));
				continue;
			}
			bool m = r->form == TL_API_METHOD;
			assert_int_equal(m ? tl_api_method_sets(name) : tl_api_builtin_sets(name), r->sets);
			assert_null(m ? tl_api_method(name) : tl_api_builtin(name));
			continue;
		}
		/* A `~` row says only sets, and is found in a text holding it. */
		if (r->form == TL_API_WORD) {
			assert_true(r->sets != 0 && !r->graph && !r->kind && !r->device && !r->dtype && !r->roles);
			char text[300];
			snprintf(text, sizeof text, "x%sy", name);
			assert_true(tl_api_word_in(text, strlen(text), r->sets));
			assert_false(tl_api_word_in(text, strlen(text) - 1 - r->len / 2, r->sets));
			continue;
		}
		const TlApiRow *got = r->form == TL_API_METHOD      ? tl_api_method(name)
				      : r->form == TL_API_ATTRIBUTE ? tl_api_attribute(name, strlen(name))
				      : r->form == TL_API_BUILTIN   ? tl_api_builtin(name)
				      : r->form == TL_API_ANY     ? tl_api_any(name)
				      : r->form == TL_API_UNDER   ? tl_api_under(under)
								  : tl_api_qualified(name);
		assert_ptr_equal(got, r);
	}
	/* What the graph-tensor questions read. */
	assert_int_equal(tl_api_method("item")->graph, TL_APIG_BREAKS);
	assert_int_equal(tl_api_method("view")->graph, TL_APIG_KEEPS);
	assert_int_equal(tl_api_method("get")->graph, TL_APIG_ELEMENT);
	assert_int_equal(tl_api_builtin("len")->graph, TL_APIG_BREAKS);
	assert_int_equal(tl_api_builtin("sum")->graph, TL_APIG_KEEPS);
	assert_int_equal(tl_api_qualified("torch.autograd.grad")->graph, TL_APIG_BREAKS);
	assert_null(tl_api_method(NULL));
	/* What the evaluation pass reads of a loop's iterable (facts/evalpass.c),
	 * by the last part of a name or a method: counts and iterates. */
	assert_true(tl_api_any_sets("itertools.count") & TL_APIS_COUNTS);
	assert_true(tl_api_any_sets("named_parameters") & TL_APIS_COUNTS);
	assert_true(tl_api_any_sets("tqdm.auto.tqdm") & TL_APIS_ITERATES);
	assert_true(tl_api_any_sets("rich.progress.track") & TL_APIS_ITERATES);
	assert_int_equal(tl_api_any_sets("DataLoader"), 0);
	assert_null(tl_api_any("builtins.range"));
	/* The words of names (facts/kinds.c, versions.c, devices.c). */
	assert_true(tl_api_word_in("modelema", 8, TL_APIS_NOT_OPTIMIZER));
	assert_false(tl_api_word_in("lamb", 4, TL_APIS_NOT_OPTIMIZER));
	assert_true(tl_api_word_in("torch_ge_2_0", 12, TL_APIS_NEWER_VERSION));
	assert_false(tl_api_word_in("torch_ge_2_0", 12, TL_APIS_OLDER_VERSION));
	assert_true(tl_api_word_in("Optional[Tensor]", 16, TL_APIS_TENSOR_CLASS));
	assert_false(tl_api_word_in("Dict[str, int]", 14, TL_APIS_TENSOR_CLASS));
	/* The attributes whose value carries no history, and a module's
	 * parameters (model/eval.c, facts/kinds.c). */
	assert_int_equal(tl_api_attribute("grad", 4)->graph, TL_APIG_BREAKS);
	assert_int_equal(tl_api_attribute("shape", 5)->graph, TL_APIG_BREAKS);
	assert_int_equal(tl_api_attribute("weight", 6)->kind, TL_APIK_PARAMETER);
	assert_null(tl_api_attribute("logits", 6));
	assert_null(tl_api_attribute("gradx", 4 + 1));
	assert_null(tl_api_attribute(NULL, 0));
	/* Builtins by what they do with what they are handed (TL214,
	 * facts/kinds.c, facts/versions.c); sets only, so no call row. */
	assert_true(tl_api_builtin_sets("getattr") & TL_APIS_READS_ONLY);
	assert_true(tl_api_builtin_sets("len") & TL_APIS_READS_ONLY);
	assert_false(tl_api_builtin_sets("setattr") & TL_APIS_READS_ONLY);
	assert_true(tl_api_builtin_sets("sorted") & TL_APIS_PASSES_ITEMS);
	assert_false(tl_api_builtin_sets("len") & TL_APIS_PASSES_ITEMS);
	assert_null(tl_api_builtin("filter"));
	assert_true(tl_api_builtin_sets_text("TypeError)", 9) & TL_APIS_OLD_API_ERROR);
	assert_false(tl_api_builtin_sets_text("KeyError", 8) & TL_APIS_OLD_API_ERROR);
	/* What the other facts read: the api predicate's sets, module
	 * classes, loss functions, wrappers, adaptive optimizers. */
	assert_true(tl_api_qualified("torch.randn")->sets & TL_APIS_RANDOM_FACTORY);
	assert_true(tl_api_qualified("torch.cpu.amp.autocast")->sets & TL_APIS_CPU_AMP);
	assert_int_equal(tl_api_qualified("torch.nn.Module")->kind, TL_APIK_MODULE);
	assert_int_equal(tl_api_qualified("torch.nn.Parameter")->kind, TL_APIK_TENSOR);
	assert_true(tl_api_qualified("torch.nn.functional.cross_entropy")->roles & TL_APIR_LOSS);
	assert_true(tl_api_qualified("torch.compile")->roles & TL_APIR_WRAPPER);
	/* Copies: a module of the copied one's class. */
	assert_int_equal(tl_api_qualified("copy.deepcopy")->roles, TL_APIR_COPY);
	assert_int_equal(tl_api_qualified("copy.copy")->roles, TL_APIR_COPY);
	char copy_roles[64];
	tl_api_roles_format(TL_APIR_COPY | TL_APIR_TUPLE, copy_roles, sizeof copy_roles);
	assert_string_equal(copy_roles, "tuple,copy");
	/* What a loop reads again (model/vary.c): in-place changes, moves,
	 * stores, calls whose result varies by itself; `random.*` is a module
	 * of one part. */
	assert_int_equal(tl_api_method("append")->roles, TL_APIR_MUTATES | TL_APIR_STORES);
	assert_int_equal(tl_api_method("update")->roles, TL_APIR_MUTATES | TL_APIR_STORES);
	assert_int_equal(tl_api_method("remove")->roles, TL_APIR_MUTATES);
	assert_int_equal(tl_api_method("put")->roles, TL_APIR_STORES);
	assert_true(tl_api_method("load_state_dict")->roles & TL_APIR_MUTATES);
	assert_true(tl_api_method("to")->roles & TL_APIR_MOVES);
	assert_false(tl_api_method("view")->roles & TL_APIR_MOVES);
	assert_true(tl_api_qualified("torch.randperm")->roles & TL_APIR_VARIES);
	assert_false(tl_api_qualified("torch.zeros")->roles & TL_APIR_VARIES);
	assert_true(tl_api_under("random.randint")->roles & TL_APIR_VARIES);
	assert_true(tl_api_under("numpy.random.normal")->roles & TL_APIR_VARIES);
	assert_true(tl_api_under("time.time")->roles & TL_APIR_VARIES);
	assert_null(tl_api_under("random"));
	assert_null(tl_api_under("timeit.default_timer"));
	char vary_roles[64];
	tl_api_roles_format(TL_APIR_MUTATES | TL_APIR_MOVES | TL_APIR_STORES | TL_APIR_VARIES, vary_roles,
			    sizeof vary_roles);
	assert_string_equal(vary_roles, "mutates,moves,stores,varies");
	/* The methods of a module that return the module itself (role
	 * returns-self, which facts/kinds.c, made.c and imports.c follow):
	 * exactly these twelve method rows, and no row of another form. */
	static const char *const self_methods[] = { "to", "cuda", "cpu", "half", "float", "double",
						    "bfloat16", "train", "eval", "requires_grad_",
						    "share_memory", "to_empty" };
	size_t nself = sizeof self_methods / sizeof *self_methods;
	for (size_t i = 0; i < nself; i++)
		assert_true(tl_api_returns_self(self_methods[i]));
	const TlApiTable *whole = tl_api_table();
	size_t with_role = 0;
	for (size_t i = 0; i < whole->count; i++) {
		const TlApiRow *row = &whole->rows[i];
		if (!(row->roles & TL_APIR_RETURNS_SELF))
			continue;
		with_role++;
		assert_int_equal(row->form, TL_API_METHOD);
		bool listed = false;
		for (size_t k = 0; k < nself && !listed; k++)
			listed = strcmp(row->name, self_methods[k]) == 0;
		assert_true(listed);
	}
	assert_int_equal(with_role, nself);
	assert_false(tl_api_returns_self("forward"));
	assert_false(tl_api_returns_self("append"));
	assert_false(tl_api_returns_self("view"));
	assert_false(tl_api_returns_self("type"));
	assert_false(tl_api_returns_self(NULL));
	/* A row of returns-self alone says nothing of what the call does:
	 * the lookups of the model pass over it. */
	assert_null(tl_api_method("share_memory"));
	assert_non_null(tl_api_method("to_empty"));
	assert_true(tl_api_method("eval")->roles & TL_APIR_MODE);
	char self_roles[64];
	tl_api_roles_format(TL_APIR_MODE | TL_APIR_RETURNS_SELF, self_roles, sizeof self_roles);
	assert_string_equal(self_roles, "mode,returns-self");
	/* The callees that run the callables they are handed in their
	 * caller's grad mode and module modes (facts/mode.c): before they
	 * return (runs-callable), or through the object they return
	 * (defers-callable); exactly these rows. */
	static const struct {
		const char *q, *builtin;
		uint64_t role;
	} callees[] = {
		{ NULL, "sorted", TL_APIR_RUNS_CALLABLE },
		{ NULL, "min", TL_APIR_RUNS_CALLABLE },
		{ NULL, "max", TL_APIR_RUNS_CALLABLE },
		{ "functools.reduce", NULL, TL_APIR_RUNS_CALLABLE },
		{ NULL, "map", TL_APIR_DEFERS_CALLABLE },
		{ NULL, "filter", TL_APIR_DEFERS_CALLABLE },
		{ "itertools.starmap", NULL, TL_APIR_DEFERS_CALLABLE },
		{ "monai.data.TestTimeAugmentation", NULL, TL_APIR_DEFERS_CALLABLE },
		{ "monai.data.test_time_augmentation.TestTimeAugmentation", NULL, TL_APIR_DEFERS_CALLABLE },
	};
	size_t ncallees = sizeof callees / sizeof *callees;
	for (size_t i = 0; i < ncallees; i++)
		assert_int_equal(tl_api_runs_callable(callees[i].q, callees[i].builtin), callees[i].role);
	size_t with_callable = 0;
	for (size_t i = 0; i < whole->count; i++)
		with_callable += (whole->rows[i].roles & (TL_APIR_RUNS_CALLABLE | TL_APIR_DEFERS_CALLABLE)) != 0;
	assert_int_equal(with_callable, ncallees);
	/* the qualified name is asked first; a builtin's only without one */
	assert_int_equal(tl_api_runs_callable("functools.partial", "map"), 0);
	assert_int_equal(tl_api_runs_callable(NULL, "len"), 0);
	assert_int_equal(tl_api_runs_callable(NULL, NULL), 0);
	/* The rows of these roles alone are passed over by the lookups of
	 * what a call does; the rows that said something still say it. */
	assert_null(tl_api_builtin("map"));
	assert_null(tl_api_builtin("sorted"));
	assert_int_equal(tl_api_builtin_sets("sorted"), TL_APIS_READS_ONLY | TL_APIS_PASSES_ITEMS);
	assert_int_equal(tl_api_builtin("max")->graph, TL_APIG_KEEPS);
	assert_null(tl_api_qualified("functools.reduce"));
	assert_null(tl_api_qualified("monai.data.TestTimeAugmentation"));
	char callable_names[64];
	tl_api_roles_format(TL_APIR_RUNS_CALLABLE | TL_APIR_DEFERS_CALLABLE, callable_names, sizeof callable_names);
	assert_string_equal(callable_names, "runs-callable,defers-callable");
	assert_true(tl_api_any("torch.optim.AdamW")->sets & TL_APIS_ADAPTIVE_OPTIMIZER);
	assert_true(tl_api_any("Lion")->sets & TL_APIS_ADAPTIVE_OPTIMIZER);
	assert_null(tl_api_any("torch.optim.SGD"));
	assert_null(tl_api_any(NULL));
	/* Other libraries': MONAI's criteria and networks, diffusers' models,
	 * the loaders of pretrained weights that return eval-mode modules. */
	const TlApiRow *dice = tl_api_qualified("monai.losses.DiceLoss");
	assert_non_null(dice);
	assert_int_equal(dice->kind, TL_APIK_CRITERION);
	assert_true(dice->roles & TL_APIR_LOSS);
	assert_true(tl_api_qualified("monai.networks.nets.DenseNet121")->sets & TL_APIS_MODE_DEPENDENT);
	assert_false(tl_api_qualified("monai.networks.nets.SegResNet")->sets & TL_APIS_MODE_DEPENDENT);
	assert_int_equal(tl_api_qualified("diffusers.UNet2DConditionModel")->kind, TL_APIK_MODULE);
	assert_true(tl_api_qualified("transformers.AutoModel.from_pretrained")->sets & TL_APIS_EVAL_MODE);
	assert_true(tl_api_qualified("diffusers.UNet2DConditionModel.from_pretrained")->sets & TL_APIS_EVAL_MODE);
	/* The sets the facts and the model ask by name. */
	assert_true(tl_api_method_sets("view") & TL_APIS_TENSOR_METHOD);
	assert_true(tl_api_method_sets("backward") & TL_APIS_TENSOR_METHOD);
	assert_false(tl_api_method_sets("append") & TL_APIS_TENSOR_METHOD);
	assert_int_equal(tl_api_method_sets("no_such_method"), 0);
	assert_int_equal(tl_api_method_sets(NULL), 0);
	/* Bits past 31: the sets column is 64 bits wide. */
	assert_true(TL_APIS_NAMED_ITERATOR > UINT32_MAX);
	assert_int_equal(tl_api_method_sets("named_buffers"), TL_APIS_PARAMETER_ITERATOR | TL_APIS_NAMED_ITERATOR);
	assert_int_equal(tl_api_method_sets("parameters"), TL_APIS_PARAMETERS | TL_APIS_PARAMETER_ITERATOR);
	assert_null(tl_api_method("parameters"));
	char sets[256];
	tl_api_sets_format(tl_api_method_sets("named_parameters"), sets, sizeof sets);
	assert_string_equal(sets, "parameters,parameter-iterator,named-iterator");
	assert_int_equal(tl_api_qualified_sets("torch.no_grad"), TL_APIS_GRAD_OFF);
	assert_int_equal(tl_api_qualified_sets("monai.networks.train_mode"), TL_APIS_GRAD_ON);
	assert_int_equal(tl_api_qualified_sets("torch.autograd.set_grad_enabled"), TL_APIS_GRAD_SET);
	assert_true(tl_api_qualified_sets("torch.nn.BatchNorm2d") & TL_APIS_BATCH_NORM);
	assert_true(tl_api_qualified_sets("torch.nn.ModuleList") & TL_APIS_LAYER_CONTAINER);
	assert_int_equal(tl_api_qualified("torch.nn.LSTM")->kind, TL_APIK_MODULE);
	assert_true(tl_api_builtin_sets("enumerate") & TL_APIS_ITERATES);
	assert_true(tl_api_builtin_sets("iter") & TL_APIS_ITERATES);
	assert_true(tl_api_builtin("iter")->roles & TL_APIR_VARIES);
	assert_true(tl_api_qualified_sets("tqdm.auto.tqdm") & TL_APIS_ITERATES);
	assert_true(tl_api_qualified_sets("torch.utils.data.DistributedSampler") & TL_APIS_DISTRIBUTED_SAMPLER);
	assert_true(tl_api_builtin_sets_text("int) ", 3) & TL_APIS_PLAIN_TYPE);
	assert_false(tl_api_builtin_sets_text("int) ", 4) & TL_APIS_PLAIN_TYPE);
	assert_int_equal(tl_api_builtin_sets_text(NULL, 0), 0);
	assert_true(tl_api_method_sets("register_parameter") & TL_APIS_REGISTERS);
	assert_true(tl_api_builtin_sets("setattr") & TL_APIS_REGISTERS);
	assert_null(tl_api_builtin("setattr"));
	assert_true(tl_api_module_sets("torch.sin") & TL_APIS_TENSOR_NAMESPACE);
	assert_true(tl_api_module_sets("torch.linalg.norm") & TL_APIS_TENSOR_NAMESPACE);
	assert_false(tl_api_module_sets("torch.utils.data.default_collate") & TL_APIS_TENSOR_NAMESPACE);
	assert_int_equal(tl_api_module_sets("torch"), 0);
	/* The signatures the facts read by parameter name (facts/api.c,
	 * facts/loaders.c). */
	assert_int_equal(tl_api_param_place(tl_api_qualified("torch.utils.data.DataLoader"), "shuffle"), 2);
	assert_int_equal(tl_api_param_place(tl_api_qualified("torch.utils.data.DataLoader"), "generator"), 12);
	assert_int_equal(tl_api_param_place(tl_api_qualified("torch.load"), "map_location"), 1);
	assert_int_equal(tl_api_param_place(tl_api_qualified("torch.nn.functional.dropout"), "training"), 2);
	assert_int_equal(tl_api_param_place(tl_api_qualified("torch.utils.data.BatchSampler"), "batch_size"), 1);
	assert_int_equal(tl_api_param_place(tl_api_qualified("torch.argmax"), "dim"), -1);
	/* Gradient clipping; the packages' sets (R.* rows). */
	assert_true(tl_api_qualified_sets("torch.nn.utils.clip_grad_norm_") & TL_APIS_CLIP_GRAD);
	assert_false(tl_api_qualified_sets("torch.nn.utils.parameters_to_vector") & TL_APIS_CLIP_GRAD);
	assert_true(TL_APIS_PRETRAINED_LIBRARY > UINT32_MAX);
	uint64_t torch_sets = tl_api_package_sets("torch.nn.Linear", strlen("torch.nn.Linear"));
	assert_true(torch_sets & TL_APIS_OWN_PACKAGE);
	assert_true(torch_sets & TL_APIS_API_PACKAGE);
	assert_true(torch_sets & TL_APIS_TENSOR_NAMESPACE);
	assert_int_equal(tl_api_package_sets("transformers.AutoModel", 22),
			 TL_APIS_TORCH_LIBRARY | TL_APIS_PRETRAINED_LIBRARY);
	assert_int_equal(tl_api_package_sets("transformers", 12), TL_APIS_TORCH_LIBRARY | TL_APIS_PRETRAINED_LIBRARY);
	assert_int_equal(tl_api_package_sets("transformers", 5), 0); /* `trans` */
	assert_int_equal(tl_api_package_sets("jax.numpy.zeros", 15), TL_APIS_FOREIGN_FRAMEWORK);
	assert_int_equal(tl_api_package_sets("numpy.zeros", 11), TL_APIS_API_PACKAGE);
	assert_int_equal(tl_api_package_sets("mymodels.net", 12), 0);
	assert_int_equal(tl_api_package_sets(".relative", 9), 0);
	assert_int_equal(tl_api_package_sets(NULL, 0), 0);
	assert_true(tl_api_own_package("torchvision"));
	assert_true(tl_api_own_package("pytorch_lightning"));
	assert_false(tl_api_own_package("torch.nn"));
	assert_false(tl_api_own_package("transformers"));
	assert_false(tl_api_own_package(NULL));
	/* Types that are no tensor, as an annotation's head names them. */
	assert_true(tl_api_builtin_sets("bytes") & TL_APIS_NOT_TENSOR);
	assert_null(tl_api_builtin("bytes"));
	assert_true(tl_api_builtin_sets("int") & TL_APIS_PLAIN_TYPE);
	assert_true(tl_api_builtin_sets("int") & TL_APIS_NOT_TENSOR);
	assert_true(tl_api_qualified_sets("typing.Counter") & TL_APIS_NOT_TENSOR);
	assert_false(tl_api_qualified_sets("typing.NamedTuple") & TL_APIS_NOT_TENSOR);
	assert_false(tl_api_builtin_sets("setattr") & TL_APIS_NOT_TENSOR);
	/* `torch.*` says a set only: no row of what the calls under torch do. */
	assert_null(tl_api_under("torch.utils.data.default_collate"));
	assert_non_null(tl_api_under("torch.cuda.memory.empty_cache"));
}

/* The params column: a row may leave it off; `-` says no signature; the
 * place of a parameter is its 0-based position in the list. A row of
 * params only says something. */
static void test_params(void **state)
{
	(void)state;
	const char *text = HEADER "torch.utils.data.DataLoader - loader - - - data-loader dataset,batch_size,shuffle\n"
				  "torch.argmax breaks tensor keeps integer - -\n"
				  "torch.rand - tensor - - factory - -\n"
				  "torch.utils.data.BatchSampler - - - - - - sampler,batch_size,drop_last\n"
				  "torch.nn.Softmax - module - - - - dim\n";
	TlApiRow rows[64];
	TlApiTable t;
	char err[512];
	if (!parse(text, rows, &t, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(t.count, 5);
	const TlApiRow *r = tl_api_find(&t, TL_API_QUALIFIED, "torch.utils.data.DataLoader");
	assert_int_equal(r->kind, TL_APIK_LOADER);
	assert_int_equal(r->sets, TL_APIS_DATA_LOADER);
	assert_int_equal(tl_api_param_place(r, "dataset"), 0);
	assert_int_equal(tl_api_param_place(r, "shuffle"), 2);
	assert_int_equal(tl_api_param_place(r, "batch"), -1);
	assert_int_equal(tl_api_param_place(r, "shuffle_"), -1);
	assert_int_equal(tl_api_param_place(r, NULL), -1);
	assert_null(tl_api_find(&t, TL_API_QUALIFIED, "torch.argmax")->params);
	assert_null(tl_api_find(&t, TL_API_QUALIFIED, "torch.rand")->params);
	assert_int_equal(tl_api_param_place(tl_api_find(&t, TL_API_QUALIFIED, "torch.rand"), "size"), -1);
	r = tl_api_find(&t, TL_API_QUALIFIED, "torch.utils.data.BatchSampler");
	assert_int_equal(tl_api_param_place(r, "drop_last"), 2);
	assert_int_equal(tl_api_param_place(tl_api_find(&t, TL_API_QUALIFIED, "torch.nn.Softmax"), "dim"), 0);
	assert_int_equal(tl_api_param_place(NULL, "dim"), -1);
}

/* A hashed table (tl_api_hash) finds what the sorted rows find: every
 * row by its form and name, and nothing for another form of the same
 * word, a prefix, a longer name or an empty one. */
static void test_hashed_find(void **state)
{
	(void)state;
	const char *text = HEADER "torch.argmax breaks tensor keeps integer - -\n"
				  ".item breaks number host - - -\n"
				  ".float keeps tensor keeps float32 - -\n"
				  "builtins.float breaks number - - - -\n"
				  "*.Adam - optimizer - - - adaptive-optimizer\n"
				  "torch.optim.* - optimizer - - - -\n"
				  "@grad breaks - - - - -\n";
	TlApiRow rows[64];
	TlApiTable sorted, hashed;
	char err[512];
	if (!parse(text, rows, &sorted, err, sizeof err))
		fail_msg("%s", err);
	assert_null(sorted.slots);
	hashed = sorted;
	uint32_t slots[64];
	assert_int_equal(tl_api_hash_size(&hashed), 64);
	tl_api_hash(&hashed, slots);
	const char *names[] = { "torch.argmax", "item", "float", "Adam", "torch.optim", "torch.arg",
				"torch.argmaxx", "items", "", "torch", "grad" };
	const TlApiForm forms[] = { TL_API_QUALIFIED, TL_API_METHOD, TL_API_BUILTIN, TL_API_ANY,
				    TL_API_UNDER, TL_API_ATTRIBUTE };
	unsigned found = 0;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
			const TlApiRow *a = tl_api_find(&sorted, forms[f], names[i]);
			assert_ptr_equal(tl_api_find(&hashed, forms[f], names[i]), a);
			found += a != NULL;
		}
	assert_int_equal(found, 7);
}

int main(void)
{
	tl_alloc_install();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_find),
		cmocka_unit_test(test_hashed_find),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_malformed_rows),
		cmocka_unit_test(test_build_check),
		cmocka_unit_test(test_embedded_table),
	};
	return cmocka_run_group_tests_name("apitable", tests, NULL, NULL);
}
