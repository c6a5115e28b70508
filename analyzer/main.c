/* torchlint: the command-line driver. Parses options, discovers files,
 * analyses them on a fixed pool of worker threads and prints the results in
 * a deterministic order (path, line, column, code). */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "discover.h"
#include "engine.h"
#include "predicates.h"
#include "report.h"
#include "rules.h"

#ifndef TL_VERSION
#define TL_VERSION "0.0.0-dev"
#endif

/* Worker threads at most: past the core count they only add contention. */
#define TL_MAX_JOBS 64

enum { TL_EXIT_CLEAN = 0, TL_EXIT_FINDINGS = 1, TL_EXIT_ERROR = 2 };

typedef struct TlFileResult {
	char *error;     /* why the file could not be analysed, or NULL */
	char *rendered;  /* output for this file */
	uint32_t findings;
	uint32_t errors, warnings, infos;
} TlFileResult;

typedef struct TlRun {
	const TlRuleSet *rules;
	const TlSelection *selection;
	TlReportOptions report;
	TlStrArray files;
	TlFileResult *results;
	atomic_uint next;
} TlRun;

static void tl_main__usage(FILE *out)
{
	fputs("usage: torchlint [OPTIONS] PATH...\n"
	      "\n"
	      "Finds PyTorch training-loop pitfalls that cost GPU memory, time or\n"
	      "correct results. PATH is a Python file or a directory (searched for\n"
	      "*.py files, skipping .git, __pycache__, virtual environments, build).\n"
	      "\n"
	      "Options:\n"
	      "  --format FORMAT        output format: full (default) or concise\n"
	      "  --select LIST          rules to run instead of the defaults: codes (TL101),\n"
	      "                         prefixes (TL1), families (memory, correctness, speed,\n"
	      "                         precision, safety) or ALL; comma-separated\n"
	      "  --extend-select LIST   rules to run in addition to the selection\n"
	      "  --ignore LIST          rules not to run\n"
	      "  --rules-dir DIR        load more rules (CODE-name.toml + CODE-name.scm pairs)\n"
	      "  --list-rules           print the rule catalog and exit\n"
	      "  --list-predicates      print the semantic predicates queries can use and exit\n"
	      "  --color WHEN           auto (default), always or never; NO_COLOR is honoured\n"
	      "  -j, --jobs N           analyse with N threads (default: one per core)\n"
	      "  -q, --quiet            print findings only, no summary\n"
	      "  --exit-zero            exit 0 even when there are findings\n"
	      "  -V, --version          print the version and exit\n"
	      "  -h, --help             print this help and exit\n"
	      "\n"
	      "Exit status: 0 no findings, 1 findings, 2 usage error or unreadable input\n"
	      "(the other files are still analysed).\n",
	      out);
}

static void tl_main__discover_error(void *data, const char *path, const char *why)
{
	(void)data;
	fprintf(stderr, "torchlint: cannot read '%s': %s\n", path, why);
}

static void tl_main__analyze_one(TlRun *run, TlEngine *engine, uint32_t i)
{
	TlFileResult *res = &run->results[i];
	TlSource src;
	char why[256];
	if (!tl_source_load(&src, run->files.items[i], why, sizeof why)) {
		TlBuf b;
		tl_buf_init(&b);
		tl_buf_addf(&b, "cannot analyse '%s': %s", run->files.items[i], why);
		res->error = tl_buf_detach(&b);
		tl_buf_release(&b);
		return;
	}
	TlFindings findings;
	tl_array_init(&findings);
	tl_engine_analyze(engine, &src, &findings);
	res->findings = findings.size;
	for (uint32_t k = 0; k < findings.size; k++) {
		TlSeverity s = findings.items[k].rule->severity;
		res->errors += s == TL_SEV_ERROR;
		res->warnings += s == TL_SEV_WARNING;
		res->infos += s == TL_SEV_INFO;
	}
	if (findings.size) {
		TlBuf out;
		tl_buf_init(&out);
		tl_report_file(&run->report, &src, &findings, &out);
		res->rendered = tl_buf_detach(&out);
		tl_buf_release(&out);
	}
	tl_findings_release(&findings);
	tl_source_release(&src);
}

static void *tl_main__worker(void *arg)
{
	TlRun *run = arg;
	TlEngine engine;
	tl_engine_init(&engine, run->rules, run->selection);
	for (;;) {
		unsigned i = atomic_fetch_add(&run->next, 1);
		if (i >= run->files.size)
			break;
		tl_main__analyze_one(run, &engine, i);
	}
	tl_engine_release(&engine);
	return NULL;
}

static int tl_main__cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void tl_main__list_rules(const TlRuleSet *set)
{
	printf("%-6s %-32s %-12s %-8s %s\n", "CODE", "NAME", "FAMILY", "DEFAULT", "SEVERITY");
	for (uint32_t i = 0; i < set->rules.size; i++) {
		const TlRule *r = set->rules.items[i];
		printf("%-6s %-32s %-12s %-8s %s\n", r->code, r->name, r->family,
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

static bool tl_main__color(const char *when)
{
	if (strcmp(when, "always") == 0)
		return true;
	if (strcmp(when, "never") == 0)
		return false;
	const char *no = getenv("NO_COLOR");
	if (no && *no)
		return false;
	const char *term = getenv("TERM");
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(STDOUT_FILENO);
}

int main(int argc, char **argv)
{
	enum {
		OPT_FORMAT = 256, OPT_SELECT, OPT_EXTEND_SELECT, OPT_IGNORE, OPT_RULES_DIR,
		OPT_LIST_RULES, OPT_LIST_PREDICATES, OPT_COLOR, OPT_EXIT_ZERO,
	};
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "select", required_argument, NULL, OPT_SELECT },
		{ "extend-select", required_argument, NULL, OPT_EXTEND_SELECT },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "rules-dir", required_argument, NULL, OPT_RULES_DIR },
		{ "list-rules", no_argument, NULL, OPT_LIST_RULES },
		{ "list-predicates", no_argument, NULL, OPT_LIST_PREDICATES },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "exit-zero", no_argument, NULL, OPT_EXIT_ZERO },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	tl_alloc_install();
	const char *format = "full", *rules_dir = NULL, *color = "auto";
	TlStrArray selects, extends, ignores;
	tl_array_init(&selects);
	tl_array_init(&extends);
	tl_array_init(&ignores);
	bool list_rules = false, list_predicates = false, quiet = false, exit_zero = false;
	bool has_select = false;
	long jobs = 0;
	int exit_code = TL_EXIT_CLEAN;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:qVh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT: format = optarg; break;
		case OPT_SELECT: has_select = true; tl_array_push(&selects, optarg); break;
		case OPT_EXTEND_SELECT: tl_array_push(&extends, optarg); break;
		case OPT_IGNORE: tl_array_push(&ignores, optarg); break;
		case OPT_RULES_DIR: rules_dir = optarg; break;
		case OPT_LIST_RULES: list_rules = true; break;
		case OPT_LIST_PREDICATES: list_predicates = true; break;
		case OPT_COLOR: color = optarg; break;
		case OPT_EXIT_ZERO: exit_zero = true; break;
		case 'q': quiet = true; break;
		case 'j': {
			char *end;
			jobs = strtol(optarg, &end, 10);
			if (*end || jobs < 1) {
				fprintf(stderr, "torchlint: invalid value '%s' for --jobs: expected a positive number\n", optarg);
				goto usage_error;
			}
			break;
		}
		case 'V': printf("torchlint %s\n", TL_VERSION); goto done_args;
		case 'h': tl_main__usage(stdout); goto done_args;
		case ':':
			fprintf(stderr, "torchlint: option '%s' needs a value\n", argv[optind - 1]);
			goto usage_error;
		default:
			fprintf(stderr, "torchlint: unknown option '%s'\n", argv[optind - 1]);
			goto usage_error;
		}
	}
	if (strcmp(format, "full") != 0 && strcmp(format, "concise") != 0) {
		fprintf(stderr, "torchlint: invalid value '%s' for --format: expected full or concise\n", format);
		goto usage_error;
	}
	if (strcmp(color, "auto") != 0 && strcmp(color, "always") != 0 && strcmp(color, "never") != 0) {
		fprintf(stderr, "torchlint: invalid value '%s' for --color: expected auto, always or never\n", color);
		goto usage_error;
	}
	if (list_predicates) {
		tl_main__list_predicates();
		goto done_args;
	}

	TlRuleSet rules;
	if (!tl_rules_load(&rules, rules_dir, stderr)) {
		tl_rules_release(&rules);
		exit_code = TL_EXIT_ERROR;
		goto done_args;
	}
	if (list_rules) {
		tl_main__list_rules(&rules);
		tl_rules_release(&rules);
		goto done_args;
	}
	TlSelection sel;
	tl_selection_init(&sel);
	sel.has_select = has_select;
	char bad[128];
	struct {
		TlStrArray *from, *to;
		const char *opt;
	} lists[] = {
		{ &selects, &sel.select, "--select" },
		{ &extends, &sel.extend_select, "--extend-select" },
		{ &ignores, &sel.ignore, "--ignore" },
	};
	for (size_t k = 0; k < 3; k++)
		for (uint32_t i = 0; i < lists[k].from->size; i++)
			if (!tl_selection_add(&rules, lists[k].to, lists[k].from->items[i], bad, sizeof bad)) {
				fprintf(stderr, "torchlint: %s: '%s' matches no rule (see --list-rules)\n",
					lists[k].opt, bad);
				tl_selection_release(&sel);
				tl_rules_release(&rules);
				goto usage_error;
			}
	if (optind >= argc) {
		fprintf(stderr, "torchlint: no path given (try 'torchlint .')\n");
		tl_selection_release(&sel);
		tl_rules_release(&rules);
		goto usage_error;
	}

	TlRun run;
	memset(&run, 0, sizeof run);
	run.rules = &rules;
	run.selection = &sel;
	run.report.format = strcmp(format, "concise") == 0 ? TL_FORMAT_CONCISE : TL_FORMAT_FULL;
	run.report.color = tl_main__color(color);
	tl_array_init(&run.files);
	if (!tl_discover((const char *const *)argv + optind, argc - optind, &run.files,
			 tl_main__discover_error, NULL))
		exit_code = TL_EXIT_ERROR;
	tl_array_sort(&run.files, tl_main__cmp_str);
	/* A file named twice (or reached twice) is analysed once. */
	uint32_t w = 0;
	for (uint32_t i = 0; i < run.files.size; i++) {
		if (w && strcmp(run.files.items[w - 1], run.files.items[i]) == 0)
			tl_free(run.files.items[i]);
		else
			run.files.items[w++] = run.files.items[i];
	}
	run.files.size = w;
	run.results = tl_calloc(run.files.size ? run.files.size : 1, sizeof *run.results);
	atomic_init(&run.next, 0);
	if (!jobs) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		jobs = cores > 0 ? cores : 1;
	}
	if (jobs > TL_MAX_JOBS)
		jobs = TL_MAX_JOBS;
	if ((uint32_t)jobs > run.files.size)
		jobs = run.files.size ? (long)run.files.size : 1;
	if (jobs == 1) {
		tl_main__worker(&run);
	} else {
		pthread_t threads[TL_MAX_JOBS];
		for (long t = 0; t < jobs; t++)
			if (pthread_create(&threads[t], NULL, tl_main__worker, &run) != 0) {
				fprintf(stderr, "torchlint: cannot start a worker thread\n");
				exit(TL_EXIT_ERROR);
			}
		for (long t = 0; t < jobs; t++)
			pthread_join(threads[t], NULL);
	}

	uint32_t total = 0, files_with = 0, errors = 0, warnings = 0, infos = 0, unreadable = 0;
	for (uint32_t i = 0; i < run.files.size; i++) {
		TlFileResult *res = &run.results[i];
		if (res->error) {
			fprintf(stderr, "torchlint: %s\n", res->error);
			unreadable++;
			exit_code = TL_EXIT_ERROR;
		}
		if (res->rendered)
			fputs(res->rendered, stdout);
		total += res->findings;
		files_with += res->findings > 0;
		errors += res->errors;
		warnings += res->warnings;
		infos += res->infos;
		tl_free(res->error);
		tl_free(res->rendered);
	}
	fflush(stdout);
	if (!quiet) {
		FILE *sum = run.report.format == TL_FORMAT_CONCISE ? stderr : stdout;
		uint32_t checked = run.files.size - unreadable;
		if (total)
			fprintf(sum, "Found %u finding%s (%u error%s, %u warning%s, %u info) in %u of %u file%s checked.\n",
				total, total == 1 ? "" : "s", errors, errors == 1 ? "" : "s", warnings,
				warnings == 1 ? "" : "s", infos, files_with, checked, checked == 1 ? "" : "s");
		else
			fprintf(sum, "All checks passed (%u file%s checked).\n", checked,
				checked == 1 ? "" : "s");
		if (unreadable)
			fprintf(sum, "%u file%s could not be analysed.\n", unreadable,
				unreadable == 1 ? "" : "s");
	}
	if (total && exit_code == TL_EXIT_CLEAN && !exit_zero)
		exit_code = TL_EXIT_FINDINGS;
	tl_free(run.results);
	tl_str_array_release(&run.files);
	tl_selection_release(&sel);
	tl_rules_release(&rules);
	goto done_args;

usage_error:
	fprintf(stderr, "Try 'torchlint --help' for more information.\n");
	exit_code = TL_EXIT_ERROR;
done_args:
	tl_array_release(&selects);
	tl_array_release(&extends);
	tl_array_release(&ignores);
	return exit_code;
}
