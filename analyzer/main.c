/* torchlint: the command-line driver. Parses options, finds the files and
 * their configuration, analyses them on a fixed pool of worker threads and
 * prints the results in a deterministic order (path, line, column, code). */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/options.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/outfile.h"
#include "base/paths.h"
#include "base/suggest.h"
#include "base/thread.h"
#include "base/timings.h"
#include "config/config.h"
#include "config/discover.h"
#include "config/settings.h"
#include "engine/engine.h"
#include "engine/debugmodel.h"
#include "engine/explain.h"
#include "engine/fingerprint.h"
#include "engine/notebook.h"
#include "project/project.h"
#include "report/diff.h"
#include "report/fixrun.h"
#include "report/output.h"
#include "report/report.h"
#include "report/showsettings.h"
#include "rules/predicates.h"
#include "rules/queryset.h"
#include "rules/rules.h"
#include "rules/ruleset.h"
#include "server/server.h"



/* One file to analyse. */
typedef struct TlJob {
	const char *path;      /* borrowed from the file list */
	TlSelection selection; /* its rules, from its configuration and the CLI */
	const char *stdin_text;
	size_t stdin_len;
	const char *stdin_why;  /* standard input could not be read: why */
	int torch_version;     /* --torch-version, else the configuration's, else 0 */
	const TlStrArray *external; /* the configuration's `external` codes */
} TlJob;

typedef struct TlRun {
	const TlRuleSet *rules;
	bool exact; /* compile only what each file needs (a run of one file) */
	TlReportOptions report;
	TlOutFormat format;
	TlJob *jobs;
	TlFileReport *results; /* count analysed files, then the paths that could not be read */
	uint32_t count, reports;
	atomic_uint next;
	bool fixing;        /* --fix, --diff or --add-noqa */
	TlProject *project; /* the modules the analysed files import */
	bool write_fixes;   /* --fix or --add-noqa: fixed files are written back */
	TlFixRun fixrun;
} TlRun;

/* A path on the command line that cannot be read: reported with the
 * results (on standard error, and as a SARIF notification). */
static void tl_main__discover_skip(void *data, const char *path, const char *why)
{
	(void)data;
	tl_diagf(stderr, "torchlint: skipped '%s': %s\n", path, why);
}

static void tl_main__discover_error(void *data, const char *path, const char *why)
{
	TlStrArray *missing = data;
	TlBuf b;
	tl_buf_init(&b);
	tl_buf_addf(&b, "cannot read '%s': %s", path, why);
	tl_array_push(missing, tl_strdup(path));
	tl_array_push(missing, tl_buf_detach(&b));
}

/* ---- analysis ------------------------------------------------------------------- */

/* The bytes of `path`; caller frees. NULL with the reason in `why`. */
static char *tl_main__slurp(const char *path, size_t *len, char *why, size_t why_size)
{
	int fd = tl_source_open_regular(path, NULL, why, why_size);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (!f) {
		if (fd >= 0) {
			snprintf(why, why_size, "%s", strerror(errno));
			close(fd);
		}
		return NULL;
	}
	TlBuf b;
	tl_buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= TL_SOURCE_MAX_BYTES)
		tl_buf_addn(&b, chunk, n);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(why, why_size, "read error");
		tl_buf_release(&b);
		return NULL;
	}
	*len = b.len;
	return tl_buf_detach(&b);
}

/* --fix, --diff, --add-noqa: fixes the file's text; the fixed text (or the
 * original) is what gets analysed and reported afterwards. Returns false
 * when the file cannot be read. */
static bool tl_main__fix_one(TlRun *run, TlEngine *engine, const TlJob *job, const TlFileOptions *fo,
			     TlFileReport *res, char *why, size_t why_size)
{
	size_t len = job->stdin_len;
	char *text = job->stdin_text ? tl_strndup(job->stdin_text, job->stdin_len)
				     : tl_main__slurp(job->path, &len, why, why_size);
	if (!text)
		return false;
	res->bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0;
	if (res->bom) {
		memmove(text, text + 3, len - 3);
		len -= 3;
		text[len] = '\0';
	}
	res->original = text;
	res->original_len = len;
	TlFileOptions quiet = *fo;
	quiet.fingerprints = false;
	quiet.notices = NULL;
	char note[256];
	res->fixed = tl_fixrun_text_counted(engine, &quiet, job->path, text, len, &run->fixrun, &res->fixes_applied,
					    &res->fixes_by_rule,
				    note, sizeof note);
	if (note[0])
		res->fix_note = tl_strdup(note);
	/* Written back here, before the analysis of what is left: when the file
	 * cannot be written, nothing was fixed, and its findings are those of
	 * the text as it is. */
	if (res->fixed && run->write_fixes && !job->stdin_text &&
	    !tl_fixrun_write(job->path, res->bom, res->fixed, strlen(res->fixed), note, sizeof note)) {
		res->write_error = tl_strdup(note);
		tl_free(res->fixed);
		res->fixed = NULL;
		res->fixes_applied = 0;
	}
	return true;
}

static void tl_main__analyze_one(TlRun *run, TlEngine *engine, uint32_t i)
{
	TlJob *job = &run->jobs[i];
	TlFileReport *res = &run->results[i];
	res->path = tl_strdup(job->path);
	tl_array_init(&res->findings);
	char why[256];
	tl_array_init(&res->notices);
	/* SARIF and GitLab identify a finding by its line's content hash. */
	bool hashes = run->format == TL_OUT_SARIF || run->format == TL_OUT_GITLAB;
	TlFileOptions fo = { &job->selection, hashes, job->torch_version,
			     job->external, &res->notices, tl_project_imports(run->project) };
	TlBuf out;
	tl_buf_init(&out);
	/* What to analyse: the file, or the given text (standard input, or the
	 * file after its fixes). */
	const char *given = job->stdin_text;
	size_t given_len = job->stdin_len;
	if (run->fixing) {
		if (!tl_main__fix_one(run, engine, job, &fo, res, why, sizeof why))
			goto failed;
		given = res->fixed ? res->fixed : res->original;
		given_len = res->fixed ? strlen(res->fixed) : res->original_len;
	}
	bool text = run->format == TL_OUT_FULL || run->format == TL_OUT_CONCISE;
	if (job->stdin_why) {
		snprintf(why, sizeof why, "%s", job->stdin_why);
		goto failed;
	}
	uint64_t t = tl_timings_start();
	if (tl_notebook_path(job->path)) {
		TlNotebook nb;
		if (!tl_notebook_load(&nb, job->path, given, given_len, why, sizeof why)) {
			/* Read, but no notebook (an empty file, invalid JSON): a
			 * TL000 finding about the file, as for a Python file that
			 * does not parse; a file that cannot be read fails. */
			TlSource raw;
			char again[256];
			if (!nb.malformed ||
			    !(given ? tl_source_init_text(&raw, job->path, given, given_len, again, sizeof again)
				    : tl_source_load(&raw, job->path, again, sizeof again)))
				goto failed;
			tl_engine_malformed_notebook(engine, &raw, nb.error_byte, why, &fo, &res->findings);
			if (text)
				tl_report_file(&run->report, &raw, &res->findings, &out);
			tl_source_release(&raw);
			goto done;
		}
		fo.fingerprints = false; /* computed on the raw file below */
		tl_timings_add(TL_PHASE_READ, t);
		tl_engine_analyze_notebook(engine, &nb, &fo, &res->findings);
		t = tl_timings_start();
		if (text)
			tl_report_notebook(&run->report, &nb, &res->findings, &out);
		TlLineHashes h = { NULL, 0 };
		if (hashes)
			tl_line_hashes(&h, nb.raw.text, nb.raw.length, nb.raw.bom);
		for (uint32_t k = 0; k < res->notices.size; k++) {
			TlNotice *n = &res->notices.items[k];
			const TlNbCell *cell = tl_notebook_cell_of_line(&nb, n->start.line);
			if (cell) {
				n->cell = cell->number;
				n->cell_start.line = n->start.line - cell->first_line + 1;
			}
		}
		for (uint32_t k = 0; k < res->findings.size; k++) {
			TlFinding *f = &res->findings.items[k];
			/* A fix's positions, like the finding's, within the cell. */
			for (uint32_t e = 0; e < f->edits.size; e++) {
				TlEdit *x = &f->edits.items[e];
				const TlNbCell *cell = tl_notebook_cell_of_line(&nb, x->start_pos.line);
				if (cell) {
					x->start_pos.line -= cell->first_line - 1;
					x->end_pos.line -= x->end_pos.line >= cell->first_line ? cell->first_line - 1 : 0;
				}
			}
			tl_notebook_map(&nb, f);
			if (h.lines)
				f->fingerprint = tl_strdup(tl_line_hash(&h, f->start.line));
		}
		tl_line_hashes_release(&h);
		tl_notebook_release(&nb);
		tl_timings_add(TL_PHASE_OUTPUT, t);
	} else {
		TlSource src;
		bool ok = given ? tl_source_init_text(&src, job->path, given, given_len, why, sizeof why)
				: tl_source_load(&src, job->path, why, sizeof why);
		if (!ok)
			goto failed;
		tl_timings_add(TL_PHASE_READ, t);
		/* One parse per file and run: a module an import read already
		 * was parsed. (Parses are not kept for later imports: holding
		 * them cost more time in memory traffic than the parses saved.) */
		t = tl_timings_start();
		TSTree *tree = tl_project_tree_for(run->project, job->path, src.text, src.length);
		tl_timings_add(TL_PHASE_PARSE, t);
		if (tree) {
			tl_engine_analyze_tree(engine, &src, tree, &fo, &res->findings);
			ts_tree_delete(tree);
		} else {
			/* The engine parses it, within the per-file budgets (memory,
			 * CPU time). */
			tl_engine_analyze_with(engine, &src, &fo, &res->findings);
		}
		t = tl_timings_start();
		if (text)
			tl_report_file(&run->report, &src, &res->findings, &out);
		tl_source_release(&src);
		tl_timings_add(TL_PHASE_OUTPUT, t);
	}
done:
	if (out.len)
		res->rendered = tl_buf_detach(&out);
	tl_buf_release(&out);
	return;
failed:
	tl_buf_release(&out);
	tl_buf_init(&out);
	tl_buf_addf(&out, "cannot analyse '%s': %s", job->path, why);
	res->error = tl_buf_detach(&out);
}

/* A thread with no file of its own: it compiles queries a worker waits for. */
static void *tl_main__helper(void *arg)
{
	tl_queryset_help(arg);
	return NULL;
}

static void *tl_main__worker(void *arg)
{
	TlRun *run = arg;
	TlEngine engine;
	tl_engine_init(&engine, run->rules, NULL);
	engine.exact = run->exact;
	for (;;) {
		unsigned i = atomic_fetch_add(&run->next, 1);
		if (i >= run->count)
			break;
		tl_main__analyze_one(run, &engine, i);
	}
	tl_engine_release(&engine);
	return NULL;
}

/* ---- selection --------------------------------------------------------------------- */

/* ---- listing ----------------------------------------------------------------------- */

static void tl_main__list_rules(FILE *out, const TlRuleSet *set)
{
	fprintf(out, "%-6s %-34s %-12s %-8s %s\n", "CODE", "NAME", "FAMILY", "DEFAULT", "SEVERITY");
	for (uint32_t i = 0; i < set->rules.size; i++) {
		const TlRule *r = set->rules.items[i];
		fprintf(out, "%-6s %-34s %-12s %-8s %s\n", r->code, r->name, r->family,
			r->default_on ? "on" : "opt-in", tl_severity_name(r->severity));
	}
}

static void tl_main__list_predicates(void)
{
	for (unsigned i = 0; i < tl_predicate_count; i++) {
		const TlPredicateDef *d = &tl_predicates[i];
		printf("#%s? @capture", d->name);
		if (d->arg_name) {
			printf(" %s", d->arg_name);
			for (int k = 0; d->choices[k]; k++)
				printf("%s%s", k ? "|" : " (", d->choices[k]);
			printf(")");
		}
		printf("\n    %s\n", d->doc);
	}
	printf("\nEvery predicate has a negated form, #not-NAME?. The standard predicates\n"
	       "#eq?, #not-eq?, #any-eq?, #any-not-eq?, #match?, #not-match?, #any-match?,\n"
	       "#any-not-match?, #any-of? and #not-any-of? are supported too.\n");
}

/* A rule by code or name, in any case (TL101, tl101, loss-accumulated-with-graph). */
static const TlRule *tl_main__rule_named(const TlRuleSet *rules, const char *what)
{
	for (uint32_t i = 0; i < rules->rules.size; i++) {
		const TlRule *r = rules->rules.items[i];
		if (strcasecmp(r->code, what) == 0 || strcasecmp(r->name, what) == 0)
			return r;
	}
	return NULL;
}

static int tl_main__explain(const TlRuleSet *rules, const char *code)
{
	const TlRule *r = tl_main__rule_named(rules, code);
	if (!r) {
		fprintf(stderr, "torchlint: --explain: unknown rule '%s' (see --list-rules)\n", code);
		return TL_EXIT_ERROR;
	}
	TlBuf text;
	tl_buf_init(&text);
	tl_explain_render(r, &text);
	fputs(text.data, stdout);
	tl_buf_release(&text);
	return TL_EXIT_CLEAN;
}

static bool tl_main__color(const char *when, FILE *out)
{
	if (strcmp(when, "always") == 0)
		return true;
	if (strcmp(when, "never") == 0)
		return false;
	/* FORCE_COLOR (any value but empty) wins over NO_COLOR and a pipe, as
	 * in ruff: CI logs that render colour set it. */
	const char *force = getenv("FORCE_COLOR");
	if (force && *force)
		return true;
	const char *no = getenv("NO_COLOR");
	if (no && *no)
		return false;
	const char *term = getenv("TERM");
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(out));
}

static int tl_main__cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- reporting ------------------------------------------------------------------------ */

/* After --fix, --diff or --add-noqa: writes the fixed files (or prints
 * their diffs), and says what was done. Returns the number of fixes
 * applied (or that would be); *changed counts the files. */
static uint32_t tl_main__fixes_out(const TlCli *cli, const TlRun *run, bool from_stdin, FILE *out,
				   uint32_t *changed, uint32_t *failed, int *exit_code)
{
	uint32_t applied = 0;
	*changed = 0;
	*failed = 0;
	for (uint32_t i = 0; i < run->count; i++) {
		const TlFileReport *res = &run->results[i];
		if (res->fix_note && !cli->quiet)
			tl_diagf(stderr, "%s: warning: %s\n", res->path, res->fix_note);
		if (res->write_error) {
			tl_diagf(stderr, "torchlint: cannot write '%s': %s; the file was left as it was: nothing was fixed in it\n", res->path,
				 res->write_error);
			(*failed)++;
			*exit_code = TL_EXIT_ERROR;
		}
		bool stdin_file = from_stdin && i == run->count - 1;
		if (stdin_file && !cli->diff) {
			/* Standard input: the fixed text goes to the output, as ruff does. */
			const char *t = res->fixed ? res->fixed : res->original;
			if (t)
				fwrite(t, 1, res->fixed ? strlen(res->fixed) : res->original_len, out);
		}
		if (!res->fixed)
			continue;
		applied += res->fixes_applied;
		(*changed)++;
		if (cli->diff) {
			TlBuf d;
			tl_buf_init(&d);
			tl_diff_unified(res->path, res->original, res->original_len, res->fixed, strlen(res->fixed), &d);
			fputs(d.data, out);
			tl_buf_release(&d);
		}
	}
	return applied;
}

/* --show-fixes: each changed file, then how many fixes of each rule, as
 * ruff lists them ("    2 × TL206 (to-result-discarded)"). */
static void tl_main__show_fixes(FILE *sum, const TlRun *run)
{
	for (uint32_t i = 0; i < run->count; i++) {
		const TlFileReport *res = &run->results[i];
		if (!res->fixed || !res->fixes_by_rule.size)
			continue;
		tl_diagf(sum, "- %s:\n", res->path);
		for (uint32_t k = 0; k < res->fixes_by_rule.size; k++) {
			const TlFixCount *c = &res->fixes_by_rule.items[k];
			fprintf(sum, "    %u \u00d7 %s (%s)\n", c->count, c->rule->code, c->rule->name);
		}
	}
}

static int tl_main__cmp_count(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? 1 : -1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static const char *tl_main__fixability(const TlRule *rule)
{
	if (!rule->fixes.size)
		return "";
	for (uint32_t i = 0; i < rule->fixes.size; i++)
		if (rule->fixes.items[i].applicability == TL_FIX_SAFE)
			return "fixable";
	return "unsafe-fixable";
}

static void tl_main__statistics(FILE *out, const TlRun *run, bool json)
{
	uint32_t n = run->rules->rules.size;
	uint32_t (*counts)[2] = tl_calloc(n ? n : 1, sizeof *counts);
	for (uint32_t r = 0; r < n; r++)
		counts[r][1] = r;
	for (uint32_t i = 0; i < run->count; i++)
		for (uint32_t k = 0; k < run->results[i].findings.size; k++)
			for (uint32_t r = 0; r < n; r++)
				if (run->rules->rules.items[r] == run->results[i].findings.items[k].rule)
					counts[r][0]++;
	qsort(counts, n, sizeof *counts, tl_main__cmp_count);
	/* How --fix treats a rule: "fixable" when one of its fixes is safe,
	 * "unsafe-fixable" when all need --unsafe-fixes, "" without a fix. */
	const char *(*how)(const TlRule *) = tl_main__fixability;
	if (json) {
		/* As ruff's: [{"code", "name", "count", "fixable"}], plus the family. */
		TlBuf b;
		tl_buf_init(&b);
		tl_buf_add(&b, "[");
		for (uint32_t r = 0; r < n && counts[r][0]; r++) {
			const TlRule *rule = run->rules->rules.items[counts[r][1]];
			const char *fix = how(rule);
			tl_buf_addf(&b, "%s\n  {\"code\": \"%s\", \"name\": \"%s\", \"family\": \"%s\", \"count\": %u, \"fixable\": %s, \"fix_applicability\": %s%s%s}",
				    r ? "," : "", rule->code, rule->name, rule->family, counts[r][0],
				    rule->fixes.size ? "true" : "false", *fix ? "\"" : "",
				    *fix ? (strcmp(fix, "fixable") == 0 ? "safe" : "unsafe") : "null", *fix ? "\"" : "");
		}
		tl_buf_add(&b, b.len > 1 ? "\n]\n" : "]\n");
		fputs(b.data, out);
		tl_buf_release(&b);
	} else {
		for (uint32_t r = 0; r < n && counts[r][0]; r++) {
			const TlRule *rule = run->rules->rules.items[counts[r][1]];
			const char *fix = how(rule);
			if (*fix)
				fprintf(out, "%5u  %s  %-34s %-11s  %s\n", counts[r][0], rule->code, rule->name, rule->family, fix);
			else
				fprintf(out, "%5u  %s  %-34s %s\n", counts[r][0], rule->code, rule->name, rule->family);
		}
	}
	tl_free(counts);
}

int main(int argc, char **argv)
{
	tl_alloc_install();
	if (argc >= 2 && strcmp(argv[1], "server") == 0)
		return tl_server_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "debug") == 0)
		return tl_debug_main(argc - 1, argv + 1, stdout, stderr);
	/* `torchlint check PATH...`, as ruff spells it, is `torchlint PATH...`
	 * (a file named check is ./check). */
	if (argc >= 2 && strcmp(argv[1], "check") == 0) {
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	/* ruff's `version` and `rule CODE` are --version and --explain CODE
	 * (files named so are ./version and ./rule). */
	static char version_opt[] = "--version", explain_opt[] = "--explain";
	if (argc >= 2 && strcmp(argv[1], "version") == 0) {
		if (argc > 2) {
			tl_diagf(stderr, "torchlint version: unexpected argument '%s'\n", argv[2]);
			fprintf(stderr, "Try 'torchlint --help' for more information.\n");
			return TL_EXIT_ERROR;
		}
		argv[1] = version_opt;
	} else if (argc >= 2 && strcmp(argv[1], "rule") == 0) {
		if (argc < 3 || argv[2][0] == '-') {
			fprintf(stderr, "torchlint rule: which rule? usage: torchlint rule CODE (e.g. torchlint rule TL201; --list-rules lists them)\n");
			return TL_EXIT_ERROR;
		}
		argv[1] = explain_opt;
	}
	uint64_t setup_t = tl_timings_start();
	TlCli cli;
	memset(&cli, 0, sizeof cli);
	cli.format_name = "full";
	cli.color = "auto";
	cli.fail_on = TL_SEV_INFO;
	int exit_code = tl_cli_options(argc, argv, &cli);
	TlRuleSet rules;
	tl_rules_init(&rules);
	TlConfigs configs;
	bool have_configs = false;
	TlSelection cli_sel, fixable;
	tl_selection_init(&cli_sel);
	tl_selection_init(&fixable);
	TlStrArray files, missing;
	tl_array_init(&files);
	tl_array_init(&missing);
	TlRun run;
	memset(&run, 0, sizeof run);
	char *stdin_text = NULL;
	size_t stdin_len = 0;
	char stdin_why[256] = "";
	TlOutFile outfile;
	tl_outfile_init_stdout(&outfile);
	FILE *out = stdout;
	char why[256];
	if (exit_code >= 0)
		goto done;
	exit_code = TL_EXIT_CLEAN;
	if (cli.list_predicates) {
		tl_main__list_predicates();
		goto done;
	}
	if (!tl_rules_load(&rules, cli.rules_dir, stderr)) {
		exit_code = TL_EXIT_ERROR;
		goto done;
	}
	if (cli.explain) {
		exit_code = tl_main__explain(&rules, cli.explain);
		goto done;
	}
	if (cli.output && !tl_outfile_open(&outfile, cli.output, why, sizeof why)) {
		tl_diagf(stderr, "torchlint: cannot write '%s': %s\n", cli.output, why);
		exit_code = TL_EXIT_ERROR;
		goto done;
	}
	if (cli.list_rules) {
		if (!tl_outfile_start(&outfile, why, sizeof why)) {
			tl_diagf(stderr, "torchlint: cannot write '%s': %s\n", cli.output, why);
			exit_code = TL_EXIT_ERROR;
			goto done;
		}
		out = outfile.stream;
		if (cli.format == TL_OUT_JSON) {
			if (!tl_output_rules_json(out, &rules)) {
				fprintf(stderr, "torchlint: internal error: cannot encode the rule catalog as JSON\n");
				exit_code = TL_EXIT_ERROR;
			}
		} else {
			tl_main__list_rules(out, &rules);
		}
		goto done;
	}
	char bad[128];
	/* --fixable (default ALL) and --unfixable: which rules' fixes apply. */
	fixable.has_select = true;
	if (!cli.fixable.size)
		tl_array_push(&fixable.select, tl_strdup("ALL"));
	struct {
		TlStrArray *from, *to;
		const char *opt;
	} lists[] = {
		{ &cli.select, &cli_sel.select, "--select" },
		{ &cli.extend_select, &cli_sel.extend_select, "--extend-select" },
		{ &cli.ignore, &cli_sel.ignore, "--ignore" },
		{ &cli.fixable, &fixable.select, "--fixable" },
		{ &cli.unfixable, &fixable.ignore, "--unfixable" },
	};
	cli_sel.has_select = cli.has_select;
	for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
		for (uint32_t i = 0; i < lists[k].from->size; i++) {
			char *canon = tl_config_canonical_selectors(&rules, lists[k].from->items[i]);
			bool added = tl_selection_add(&rules, lists[k].to, canon, bad, sizeof bad);
			tl_free(canon);
			if (!added) {
				tl_diagf(stderr, "torchlint: %s: '%s' matches no rule (see --list-rules)\n",
					lists[k].opt, bad);
				exit_code = TL_EXIT_ERROR;
				goto usage;
			}
		}
	/* No path: standard input when --stdin-filename names it (as ruff),
	 * else the working directory. */
	static char *const dot_argv[] = { ".", NULL }, *const dash_argv[] = { "-", NULL };
	char *const *paths = argv + optind;
	int npaths = argc - optind;
	if (!npaths) {
		paths = cli.stdin_filename ? dash_argv : dot_argv;
		npaths = 1;
	}

	tl_configs_init(&configs, &rules);
	have_configs = true;
	configs.isolated = cli.isolated;
	for (uint32_t i = 0; i < cli.extend_exclude.size; i++)
		tl_configs_extend_exclude(&configs, cli.extend_exclude.items[i]);
	for (uint32_t i = 0; i < cli.exclude.size; i++)
		tl_configs_exclude(&configs, cli.exclude.items[i]);
	for (uint32_t i = 0; i < cli.overrides.size; i++)
		if (!tl_configs_override(&configs, cli.overrides.items[i], stderr)) {
			exit_code = TL_EXIT_ERROR;
			goto usage;
		}
	for (uint32_t i = 0; i < cli.per_file_ignores.size; i++)
		if (!tl_configs_per_file_ignores(&configs, cli.per_file_ignores.items[i], stderr)) {
			exit_code = TL_EXIT_ERROR;
			goto usage;
		}
	if (cli.config && !tl_configs_force(&configs, cli.config, stderr)) {
		exit_code = TL_EXIT_ERROR;
		goto done;
	}
	if (cli.show_settings) {
		/* A directory: the configuration of the files in it (its own
		 * pyproject.toml counts), not of the directory as a file of its parent. */
		struct stat st;
		bool is_dir = stat(cli.show_settings, &st) == 0 && S_ISDIR(st.st_mode);
		const TlConfig *cfg = tl_configs_for(&configs, cli.show_settings, is_dir, stderr);
		if (configs.failed) {
			exit_code = TL_EXIT_ERROR;
			goto done;
		}
		TlSelection sel;
		tl_settings_selection(&sel, &rules, cfg, &cli_sel, cli.show_settings);
		TlShowSettings ss = { cli.show_settings, cfg, &rules, &cli_sel, &sel, cli.torch_version,
				      cli.isolated, cli.config != NULL, is_dir, &configs.extend_exclude,
				      &cli.overrides };
		tl_show_settings(out, &ss);
		tl_selection_release(&sel);
		goto done;
	}
	/* Paths: "-" is standard input; the rest are discovered. */
	TlStrArray named;
	tl_array_init(&named);
	bool use_stdin = false;
	for (int i = 0; i < npaths; i++) {
		if (strcmp(paths[i], "-") == 0)
			use_stdin = true;
		else
			tl_array_push(&named, paths[i]);
	}
	/* --show-files says what a walk passed over and which names were one
	 * file (the analysis itself does not: neither is an error). */
	TlDiscoverOptions dopt = { &configs, !cli.no_gitignore, cli.force_exclude,
				   tl_main__discover_error, &missing, stderr,
				   cli.show_files ? tl_main__discover_skip : NULL, 0, 0, false, NULL };
	if (!tl_discover_ex((const char *const *)named.items, (int)named.size, &dopt, &files))
		exit_code = TL_EXIT_ERROR;
	tl_array_release(&named);
	tl_array_sort(&files, tl_main__cmp_str);
	/* A file named twice (or reached twice) is analysed once. */
	uint32_t w = 0;
	for (uint32_t i = 0; i < files.size; i++) {
		if (w && strcmp(files.items[w - 1], files.items[i]) == 0)
			tl_free(files.items[i]);
		else
			files.items[w++] = files.items[i];
	}
	files.size = w;
	/* A file reached through a symbolic link and by its own name too (or
	 * through two links) is analysed once, under the first name. Two such
	 * names share the file's device and inode, so only names whose inode
	 * was met before have their real paths compared (realpath reads every
	 * component of a path as a link: 10,700 system calls for Debian's
	 * 1,292 torch files). A name stat cannot read is compared always. */
	TlStrMap real, inodes;
	tl_strmap_init(&real);
	tl_strmap_init(&inodes);
	w = 0;
	for (uint32_t i = 0; i < files.size; i++) {
		struct stat st;
		char key[64];
		int keylen = 0;
		int32_t first = -1;
		if (stat(files.items[i], &st) == 0) {
			keylen = snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st.st_dev,
					  (unsigned long long)st.st_ino);
			if (!tl_strmap_get(&inodes, key, (size_t)keylen, &first)) {
				tl_strmap_put(&inodes, key, (size_t)keylen, (int32_t)w);
				files.items[w++] = files.items[i];
				continue;
			}
		}
		/* The first name of this inode joins the compared ones once. */
		if (first >= 0) {
			char *fr = tl_path_real(files.items[first]);
			int32_t seen;
			if (!tl_strmap_get(&real, fr, strlen(fr), &seen))
				tl_strmap_put(&real, fr, strlen(fr), first);
			tl_free(fr);
		}
		char *r = tl_path_real(files.items[i]);
		int32_t seen;
		if (tl_strmap_get(&real, r, strlen(r), &seen)) {
			if (cli.show_files)
				tl_diagf(stderr, "torchlint: '%s' names the same file as '%s' (through a symbolic link): analysed once, as '%s'\n",
					 files.items[i], files.items[seen], files.items[seen]);
			tl_free(files.items[i]);
		} else {
			tl_strmap_put(&real, r, strlen(r), (int32_t)w);
			files.items[w++] = files.items[i];
		}
		tl_free(r);
	}
	files.size = w;
	tl_strmap_release(&inodes);
	tl_strmap_release(&real);
	if (use_stdin) {
		const char *name = cli.stdin_filename ? cli.stdin_filename : "-";
		/* Editors pass the real name: honour excludes when forced. */
		bool excluded = cli.force_exclude && cli.stdin_filename &&
				tl_discover_excluded(&dopt, name, false);
		/* Bounded like a file: `torchlint - < /dev/zero` stops at the limit. */
		if (!cli.show_files &&
		    !tl_source_read_fd(STDIN_FILENO, &stdin_text, &stdin_len, stdin_why, sizeof stdin_why))
			stdin_text = NULL;
		if (!excluded)
			tl_array_push(&files, tl_strdup(name));
	}
	/* Nothing to analyse (a folder without Python, or all of it excluded):
	 * said, as ruff says it, not passed as clean. */
	if (!files.size && !missing.size && !cli.quiet)
		fprintf(stderr, "torchlint: warning: no Python files (*.py, *.ipynb) found under the given paths; nothing was checked\n");
	if (cli.show_files) {
		/* Escaped as every name on a terminal is (base/escape.h): a
		 * folder's name may hold a newline or an escape sequence. */
		for (uint32_t i = 0; i < files.size; i++)
			tl_diagf(out, "%s\n", files.items[i]);
		for (uint32_t i = 0; i + 1 < missing.size; i += 2) {
			tl_diagf(stderr, "torchlint: %s\n", missing.items[i + 1]);
			exit_code = TL_EXIT_ERROR;
		}
		/* --show-files=context: the files are analysed (nothing reported)
		 * to list the modules their analysis read for context. */
		if (!cli.show_context)
			goto done;
	}

	run.rules = &rules;
	run.project = tl_project_new(NULL);
	/* The reverse question walks the project as discovery does (its
	 * excludes); the configurations are not read elsewhere meanwhile. */
	tl_project_set_discover(run.project, &dopt);
	run.format = cli.format;
	run.report.format = cli.format == TL_OUT_CONCISE ? TL_FORMAT_CONCISE : TL_FORMAT_FULL;
	/* Fixing standard input, the report goes to standard error. */
	run.report.color = !cli.output && tl_main__color(cli.color, use_stdin && cli.fix && !cli.diff ? stderr : out);
	run.report.unsafe_fixes = cli.unsafe_fixes;
	run.report.fixable = &fixable;
	run.count = files.size;
	run.reports = files.size + missing.size / 2;
	run.jobs = tl_calloc(files.size ? files.size : 1, sizeof *run.jobs);
	run.results = tl_calloc(run.reports ? run.reports : 1, sizeof *run.results);
	for (uint32_t i = 0; i < missing.size / 2; i++) {
		TlFileReport *res = &run.results[files.size + i];
		res->path = missing.items[2 * i];
		res->error = missing.items[2 * i + 1];
		missing.items[2 * i] = missing.items[2 * i + 1] = NULL;
	}
	for (uint32_t i = 0; i < files.size; i++) {
		TlJob *job = &run.jobs[i];
		job->path = files.items[i];
		bool from_stdin = use_stdin && i == files.size - 1;
		const TlConfig *cfg = tl_configs_for(&configs, job->path, false, stderr);
		tl_settings_selection(&job->selection, &rules, cfg, &cli_sel, job->path);
		job->torch_version = cli.torch_version ? tl_torch_version_parse(cli.torch_version)
						       : cfg->torch_version;
		job->external = &cfg->external;
		for (uint32_t k = 0; k < cfg->src.size; k++)
			tl_project_add_root(run.project, cfg->src.items[k]);
		if (from_stdin) {
			job->stdin_text = stdin_text ? stdin_text : "";
			job->stdin_len = stdin_len;
			job->stdin_why = stdin_text ? NULL : stdin_why;
		}
	}
	if (configs.failed) {
		exit_code = TL_EXIT_ERROR;
		goto done;
	}
	/* -o: never overwrite what is being read (the same file by any name). */
	const char *clash = NULL;
	for (uint32_t i = 0; i < files.size && !clash; i++)
		if (!(use_stdin && i == files.size - 1) && tl_outfile_is(&outfile, files.items[i]))
			clash = files.items[i];
	for (uint32_t i = 0; i < configs.loaded.size && !clash; i++)
		if (tl_outfile_is(&outfile, configs.loaded.items[i]->path))
			clash = configs.loaded.items[i]->path;
	/* --rules-dir files are inputs too (read already, but not to be lost). */
	for (uint32_t i = 0; i < rules.rules.size && !clash; i++) {
		const TlRule *r = rules.rules.items[i];
		if (r->embedded)
			continue;
		if (r->meta_path && tl_outfile_is(&outfile, r->meta_path))
			clash = r->meta_path;
		else if (r->query_path && tl_outfile_is(&outfile, r->query_path))
			clash = r->query_path;
	}
	if (!clash && use_stdin && tl_outfile_is_fd(&outfile, STDIN_FILENO))
		clash = "-";
	if (clash) {
		tl_diagf(stderr, "torchlint: cannot write the report to '%s': it is the input '%s'\n",
			 cli.output, clash);
		exit_code = TL_EXIT_ERROR;
		goto done;
	}
	if (!tl_outfile_start(&outfile, why, sizeof why)) {
		tl_diagf(stderr, "torchlint: cannot write '%s': %s\n", cli.output, why);
		exit_code = TL_EXIT_ERROR;
		goto done;
	}
	out = outfile.stream;
	run.fixing = cli.fix || cli.diff || cli.add_noqa;
	run.write_fixes = (cli.fix || cli.add_noqa) && !cli.diff;
	run.fixrun.allowed = cli.unsafe_fixes ? TL_FIX_UNSAFE : TL_FIX_SAFE;
	run.fixrun.add_noqa = cli.add_noqa;
	run.fixrun.fixable = &fixable;
	atomic_init(&run.next, 0);
	tl_timings_add(TL_PHASE_SETUP, setup_t);
	long jobs = cli.jobs;
	if (!jobs) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cores > 0 ? cores : 1;
	}
	if (jobs > TL_MAX_JOBS)
		jobs = TL_MAX_JOBS;
	/* Threads beyond the files help compile the one file's queries. */
	long helpers = 0;
	if ((uint32_t)jobs > run.count) {
		helpers = run.count == 1 ? jobs - 1 : 0;
		jobs = run.count ? (long)run.count : 1;
	}
	run.exact = run.count == 1;
	pthread_t helper_threads[TL_MAX_JOBS];
	/* Each thread gets glibc's default stack, 8 MiB, on every C library: musl
	 * (the static build) would give 128 KiB (base/thread.h). */
	pthread_attr_t attr;
	tl_thread_attr_init(&attr);
	if (helpers)
		tl_queryset_add_helpers(rules.queries, (unsigned)helpers);
	for (long t = 0; t < helpers; t++)
		if (pthread_create(&helper_threads[t], &attr, tl_main__helper, rules.queries) != 0) {
			fprintf(stderr, "torchlint: cannot start a worker thread\n");
			exit(TL_EXIT_ERROR);
		}
	if (jobs == 1) {
		tl_main__worker(&run);
	} else {
		pthread_t threads[TL_MAX_JOBS];
		for (long t = 0; t < jobs; t++)
			if (pthread_create(&threads[t], &attr, tl_main__worker, &run) != 0) {
				fprintf(stderr, "torchlint: cannot start a worker thread\n");
				exit(TL_EXIT_ERROR);
			}
		for (long t = 0; t < jobs; t++)
			pthread_join(threads[t], NULL);
	}
	pthread_attr_destroy(&attr);
	if (helpers) {
		tl_queryset_stop(rules.queries);
		for (long t = 0; t < helpers; t++)
			pthread_join(helper_threads[t], NULL);
	}

	if (cli.show_context) {
		/* The modules read for context that were not analysed. */
		TlStrMap analysed;
		tl_strmap_init(&analysed);
		for (uint32_t i = 0; i < files.size; i++) {
			char *r = tl_path_real(files.items[i]);
			tl_strmap_put(&analysed, r, strlen(r), 0);
			tl_free(r);
		}
		TlStrArray ctx;
		tl_array_init(&ctx);
		for (size_t i = 0; i < tl_project_module_count(run.project); i++) {
			const char *m = tl_project_module_path(run.project, i);
			int32_t dummy;
			if (m && !tl_strmap_get(&analysed, m, strlen(m), &dummy))
				tl_array_push(&ctx, tl_strdup(m));
		}
		tl_array_sort(&ctx, tl_main__cmp_str);
		/* Relative to the working directory when below it, as files are. */
		char *cwd_abs = tl_path_cwd();
		char *cwd = tl_path_real(cwd_abs);
		char *cwd_slash = tl_path_with_slash(cwd);
		size_t cl = strlen(cwd_slash);
		for (uint32_t i = 0; i < ctx.size; i++) {
			const char *m = ctx.items[i];
			tl_diagf(out, "%s (context)\n", strncmp(m, cwd_slash, cl) == 0 ? m + cl : m);
		}
		tl_free(cwd_slash);
		tl_free(cwd);
		tl_free(cwd_abs);
		tl_str_array_release(&ctx);
		tl_strmap_release(&analysed);
		goto done;
	}
	/* Modules read for context but left out over a per-file limit: the
	 * files importing them are analysed without their facts. */
	char *here = NULL;
	for (size_t i = 0; i < tl_project_module_count(run.project) && !cli.quiet; i++) {
		const char *reason;
		const char *m = tl_project_module_skipped(run.project, i, &reason);
		if (!m)
			continue;
		if (!here) {
			/* Relative to the working directory when below it. */
			char *cwd_abs = tl_path_cwd();
			char *cwd = tl_path_real(cwd_abs);
			here = tl_path_with_slash(cwd);
			tl_free(cwd);
			tl_free(cwd_abs);
		}
		size_t hl = strlen(here);
		tl_diagf(stderr, "%s:1:1: warning: imported for context but not used (TL002): %s; the files importing it are analysed without what it defines\n",
			 strncmp(m, here, hl) == 0 ? m + hl : m, reason);
	}
	tl_free(here);
	uint64_t output_t = tl_timings_start();
	uint32_t total = 0, files_with = 0, errors = 0, warnings = 0, infos = 0, unreadable = 0;
	for (uint32_t i = 0; i < run.reports; i++) {
		const TlFileReport *res = &run.results[i];
		for (uint32_t k = 0; k < res->notices.size && !cli.quiet; k++) {
			const TlNotice *n = &res->notices.items[k];
			if (n->cell)
				tl_diagf(stderr, "%s:cell %u:%u:%u: warning: %s\n", res->path, n->cell,
					n->cell_start.line, n->cell_start.column, n->message);
			else
				tl_diagf(stderr, "%s:%u:%u: warning: %s\n", res->path, n->start.line,
					n->start.column, n->message);
		}
		if (res->error) {
			tl_diagf(stderr, "torchlint: %s\n", res->error);
			unreadable++;
			exit_code = TL_EXIT_ERROR;
		}
		total += res->findings.size;
		files_with += res->findings.size > 0;
		for (uint32_t k = 0; k < res->findings.size; k++) {
			TlSeverity s = res->findings.items[k].rule->severity;
			/* TL002: a per-file limit cut the analysis short. */
			if (strcmp(res->findings.items[k].rule->code, "TL002") == 0)
				exit_code = TL_EXIT_ERROR;
			errors += s == TL_SEV_ERROR;
			warnings += s == TL_SEV_WARNING;
			infos += s == TL_SEV_INFO;
		}
	}
	TlReportSet set = { &rules, run.results, run.reports };
	bool encoded = true;
	bool fixed_some = false;
	if (run.fixing) {
		uint32_t changed, failed;
		uint32_t applied = tl_main__fixes_out(&cli, &run, use_stdin, out, &changed, &failed, &exit_code);
		fixed_some = applied > 0;
		FILE *sum = stderr;
		if (failed && !cli.quiet)
			fprintf(sum, "%u file%s could not be written (see above): nothing was %s in %s.\n", failed,
				failed == 1 ? "" : "s", cli.add_noqa ? "added" : "fixed", failed == 1 ? "it" : "them");
		if (cli.add_noqa) {
			/* The findings are now suppressed: nothing else to report. */
			if (!cli.quiet)
				fprintf(sum, "Added %u noqa directive%s in %u file%s.\n", applied, applied == 1 ? "" : "s",
					changed, changed == 1 ? "" : "s");
			goto done;
		}
		if (cli.diff) {
			if (!cli.quiet)
				fprintf(sum, "Would fix %u finding%s in %u file%s%s\n", applied, applied == 1 ? "" : "s",
					changed, changed == 1 ? "" : "s", cli.show_fixes && applied ? ":" : ".");
			if (!cli.quiet && cli.show_fixes)
				tl_main__show_fixes(sum, &run);
			if (changed && exit_code == TL_EXIT_CLEAN)
				exit_code = TL_EXIT_FINDINGS;
			goto done;
		}
		if (!cli.quiet)
			fprintf(sum, "Fixed %u finding%s in %u file%s%s\n", applied, applied == 1 ? "" : "s", changed,
				changed == 1 ? "" : "s", cli.show_fixes && applied ? ":" : ".");
		if (!cli.quiet && cli.show_fixes)
			tl_main__show_fixes(sum, &run);
		if (cli.fix_only) {
			/* Only the fixes: what is left is not reported and does not count. */
			if (fixed_some && cli.exit_non_zero_on_fix && exit_code == TL_EXIT_CLEAN)
				exit_code = TL_EXIT_FINDINGS;
			goto done;
		}
		if (use_stdin) {
			/* The output holds the fixed source: what is left is reported
			 * on standard error, as ruff does. */
			out = stderr;
		}
	}
	if (cli.silent) {
		/* Nothing on the output; the exit status still tells. */
	} else if (cli.statistics) {
		tl_main__statistics(out, &run, cli.format == TL_OUT_JSON);
	} else if (cli.format == TL_OUT_JSON) {
		encoded = tl_output_json(out, &set);
	} else if (cli.format == TL_OUT_SARIF) {
		/* Code scanning reads relative URIs from the repository's root. */
		char *root = tl_path_repo_root();
		encoded = tl_output_sarif(out, &set, root, exit_code != TL_EXIT_ERROR);
		tl_free(root);
	} else if (cli.format == TL_OUT_GITHUB || cli.format == TL_OUT_GITLAB) {
		/* Both name files relative to the repository's root, whatever the
		 * working directory: that is what annotations and MR widgets resolve. */
		char *root = tl_path_repo_root();
		encoded = cli.format == TL_OUT_GITHUB ? tl_output_github(out, &set, root)
						      : tl_output_gitlab(out, &set, root);
		tl_free(root);
	} else if (cli.format == TL_OUT_JUNIT) {
		encoded = tl_output_junit(out, &set);
	} else {
		for (uint32_t i = 0; i < run.count; i++)
			if (run.results[i].rendered)
				fputs(run.results[i].rendered, out);
	}
	if (!encoded) {
		fprintf(stderr, "torchlint: internal error: cannot encode the report as %s\n",
			cli.format_name);
		exit_code = TL_EXIT_ERROR;
	}
	tl_outfile_flush(&outfile);
	if (!cli.quiet && !cli.statistics) {
		/* The summary follows the findings of the human formats (full,
		 * concise) on standard output, as ruff's does; machine formats, a
		 * report written with -o and a fixed text on standard output keep
		 * their stream clean: it goes to standard error. */
		FILE *sum = (cli.format == TL_OUT_FULL || cli.format == TL_OUT_CONCISE) && out == stdout &&
				    !cli.output ? stdout : stderr;
		uint32_t checked = run.reports - unreadable;
		if (!checked && !unreadable)
			; /* No file found: the warning above says so. */
		else if (total)
			fprintf(sum, "Found %u finding%s (%u error%s, %u warning%s, %u info) in %u of %u file%s checked.\n",
				total, total == 1 ? "" : "s", errors, errors == 1 ? "" : "s", warnings,
				warnings == 1 ? "" : "s", infos, files_with, checked, checked == 1 ? "" : "s");
		else if (unreadable && !checked)
			fprintf(sum, "Nothing was checked: %u path%s could not be read or analysed (see above).\n",
				unreadable, unreadable == 1 ? "" : "s");
		else if (unreadable)
			fprintf(sum, "No findings in the %u file%s checked; %u path%s could not be read or analysed (see above).\n",
				checked, checked == 1 ? "" : "s", unreadable, unreadable == 1 ? "" : "s");
		else
			fprintf(sum, "All checks passed (%u file%s checked).\n", checked,
				checked == 1 ? "" : "s");
		if (unreadable && total)
			fprintf(sum, "%u path%s could not be read or analysed (see above).\n", unreadable,
				unreadable == 1 ? "" : "s");
		/* What --fix could do about the findings left. */
		uint32_t safe = 0, unsafe = 0;
		for (uint32_t i = 0; i < run.count; i++)
			for (uint32_t k = 0; k < run.results[i].findings.size; k++) {
				const TlFinding *f = &run.results[i].findings.items[k];
				if (!tl_fixrun_fixable(&run.fixrun, f->rule))
					continue; /* --unfixable, or not --fixable */
				safe += f->applicability == TL_FIX_SAFE;
				unsafe += f->applicability == TL_FIX_UNSAFE;
			}
		if (safe && !cli.fix)
			fprintf(sum, "%u fixable with --fix (see the changes first with --diff).\n", safe);
		if (unsafe && !cli.unsafe_fixes)
			fprintf(sum, "%u more fixable with --fix --unsafe-fixes (fixes that may change what the code does).\n",
				unsafe);
	}
	/* --fail-on: only findings at least that severe make the status 1. */
	uint32_t failing = errors + (cli.fail_on >= TL_SEV_WARNING ? warnings : 0) +
			   (cli.fail_on >= TL_SEV_INFO ? infos : 0);
	if (failing && exit_code == TL_EXIT_CLEAN && !cli.exit_zero)
		exit_code = TL_EXIT_FINDINGS;
	if (fixed_some && cli.fix && cli.exit_non_zero_on_fix && exit_code == TL_EXIT_CLEAN)
		exit_code = TL_EXIT_FINDINGS;
	tl_timings_add(TL_PHASE_OUTPUT, output_t);
	tl_timings_print(stderr, run.count);
	goto done;

usage:
	fprintf(stderr, "Try 'torchlint --help' for more information.\n");
done:
	tl_project_free(run.project);
	for (uint32_t i = 0; i < run.count; i++)
		tl_selection_release(&run.jobs[i].selection);
	for (uint32_t i = 0; i < run.reports; i++) {
		tl_free(run.results[i].path);
		tl_free(run.results[i].error);
		tl_free(run.results[i].rendered);
		tl_free(run.results[i].original);
		tl_free(run.results[i].fixed);
		tl_free(run.results[i].fix_note);
		tl_free(run.results[i].write_error);
		tl_findings_release(&run.results[i].findings);
		tl_notices_release(&run.results[i].notices);
		tl_array_release(&run.results[i].fixes_by_rule);
	}
	tl_free(run.jobs);
	tl_free(run.results);
	tl_free(stdin_text);
	tl_str_array_release(&files);
	tl_str_array_release(&missing);
	tl_selection_release(&cli_sel);
	tl_selection_release(&fixable);
	if (have_configs)
		tl_configs_release(&configs);
	tl_rules_release(&rules);
	tl_array_release(&cli.select);
	tl_array_release(&cli.extend_select);
	tl_array_release(&cli.ignore);
	tl_array_release(&cli.extend_exclude);
	tl_array_release(&cli.exclude);
	tl_array_release(&cli.fixable);
	tl_array_release(&cli.unfixable);
	tl_array_release(&cli.overrides);
	tl_array_release(&cli.per_file_ignores);
	/* A report that did not reach its file is a failure, not a success
	 * with nothing to show (a full disk, /dev/full, a closed stdout). */
	if (!tl_outfile_finish(&outfile, why, sizeof why)) {
		if (cli.output)
			tl_diagf(stderr, "torchlint: cannot write '%s': %s\n", cli.output, why);
		else
			fprintf(stderr, "torchlint: cannot write to standard output: %s\n", why);
		exit_code = TL_EXIT_ERROR;
	}
	return exit_code;
}
