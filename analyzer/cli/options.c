/* The command line's options and --help (cli/options.h). */
#include "cli/options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/escape.h"
#include "base/suggest.h"
#include "config/config.h"
#include "rules/ruleset.h"

/* The built-in rules with an unsafe fix, from their metadata (rules/CODE-name.toml,
 * embedded), wrapped under --help's option descriptions: the list cannot
 * fall behind the rules. */
static void tl_cli__unsafe_fix_codes(FILE *out)
{
	TlRuleSet rules;
	tl_rules_init(&rules);
	int col = 27 + (int)strlen("what the program does (");
	fputs("                           what the program does (", out);
	if (tl_rules_load(&rules, NULL, stderr)) {
		const char *sep = "";
		for (uint32_t i = 0; i < rules.rules.size; i++) {
			const TlRule *r = rules.rules.items[i];
			bool unsafe = false;
			for (uint32_t k = 0; k < r->fixes.size; k++)
				unsafe |= r->fixes.items[k].applicability == TL_FIX_UNSAFE;
			if (!unsafe)
				continue;
			int len = (int)(strlen(sep) + strlen(r->code));
			if (*sep && col + len + 1 > 79) {
				fputs(",\n                           ", out);
				col = 27;
				sep = "";
				len = (int)strlen(r->code);
			}
			fprintf(out, "%s%s", sep, r->code);
			col += len;
			sep = ", ";
		}
	}
	fputs(")\n", out);
	tl_rules_release(&rules);
}

void tl_cli_usage(FILE *out)
{
	fputs("usage: torchlint [check] [OPTIONS] PATH...\n"
	      "       torchlint server     (the language server for editors; see --help there)\n"
	      "       torchlint rule CODE  (a rule's guidance, as --explain CODE)\n"
	      "       torchlint version    (the version, as --version)\n"
	      "\n"
	      "Finds PyTorch training-loop pitfalls that cost GPU memory, time or\n"
	      "correct results. PATH is a Python file, a notebook (.ipynb), a directory\n"
	      "(searched for *.py and *.ipynb, skipping .git, __pycache__, virtual\n"
	      "environments, build and what .gitignore ignores), or - for standard input.\n"
	      "\n"
	      "Output:\n"
	      "  --format FORMAT          full (default), concise, json, sarif, github, gitlab\n"
	      "                           (Code Quality JSON) or junit (JUnit XML)\n"
	      "                           (also spelled --output-format, as in ruff)\n"
	      "  -o, --output-file FILE   write the report to FILE instead of standard output\n"
	      "  --statistics             print the number of findings per rule instead\n"
	      "                           (a table, or JSON with --format json)\n"
	      "  --color WHEN             auto (default), always or never; with auto,\n"
	      "                           FORCE_COLOR turns colour on and NO_COLOR off\n"
	      "  -q, --quiet              print findings only, no summary\n"
	      "  -s, --silent             print nothing but errors (the exit status tells)\n"
	      "  --exit-zero              exit 0 even when there are findings\n"
	      "  --fail-on SEVERITY       the least severe finding that makes the exit\n"
	      "                           status 1: info (default: any), warning or error\n"
	      "\n"
	      "Rules:\n"
	      "  --select LIST            rules to run instead of the defaults: codes (TL101),\n"
	      "                           prefixes (TL1), families (memory, correctness, speed,\n"
	      "                           precision, safety, engine) or ALL; comma-separated\n"
	      "  --extend-select LIST     rules to run in addition to the selection\n"
	      "  --ignore LIST            rules not to run\n"
	      "  --per-file-ignores GLOB:LIST\n"
	      "                           also ignore LIST in the files GLOB matches (relative\n"
	      "                           to the working directory; a bare name: any depth)\n"
	      "  --torch-version X.Y      the oldest PyTorch the code must run on (default 2.6)\n"
	      "  --rules-dir DIR          load more rules (CODE-name.toml + CODE-name.scm pairs)\n"
	      "  --list-rules             print the rule catalog (as JSON with --format json)\n"
	      "  --explain CODE           print a rule's guidance and exit\n"
	      "  --list-predicates        print the semantic predicates queries can use\n"
	      "\n"
	      "Fixes:\n"
	      "  --fix                    apply the safe fixes in place, then report what is left\n"
	      "  --unsafe-fixes           with --fix or --diff, also the fixes that may change\n",
	      out);
	tl_cli__unsafe_fix_codes(out);
	fputs("  --no-unsafe-fixes        undo an earlier --unsafe-fixes\n"
	      "  --show-fixes             with --fix or --diff, list the fixes per file, rule\n"
	      "  --fix-only               apply the fixes, report nothing else; exit 0 unless\n"
	      "                           --exit-non-zero-on-fix\n"
	      "  --exit-non-zero-on-fix   with --fix, exit 1 when something was fixed, even if\n"
	      "                           nothing is left\n"
	      "  --fixable LIST           only these rules' fixes are applied (default: ALL)\n"
	      "  --unfixable LIST         these rules' fixes are never applied\n"
	      "  --diff                   print the fixes as a unified diff instead; exit 1 if any\n"
	      "  --add-noqa               add `# noqa: CODE` to every line with a finding\n"
	      "  --show-files             list the files that would be analysed, and exit\n"
	      "  --show-files=context     the same, then the modules of the project their\n"
	      "                           analysis reads for context (imported, or importing\n"
	      "                           them; not named)\n"
	      "  --show-settings PATH     print the configuration that applies to PATH (a file,\n"
	      "                           or the files in a directory) and where each value\n"
	      "                           comes from, and exit\n"
	      "\n"
	      "Files and configuration:\n"
	      "  --config FILE            use this configuration file for every file\n"
	      "  --config 'KEY = VALUE'   override one setting everywhere (TOML, keys as in\n"
	      "                           torchlint.toml: --config 'select = [\"TL1\"]')\n"
	      "  --isolated               ignore all configuration files\n"
	      "  --no-respect-gitignore   also analyse files that .gitignore ignores\n"
	      "  --exclude LIST           skip these globs instead of the configuration's\n"
	      "                           excludes and the defaults (comma-separated, relative\n"
	      "                           to the working directory)\n"
	      "  --extend-exclude LIST    also skip these globs (comma-separated, relative to\n"
	      "                           the working directory), whatever the configuration\n"
	      "  --force-exclude          apply excludes to paths named on the command line too\n"
	      "  --stdin-filename NAME    the name to report standard input (PATH -) under\n"
	      "  -j, --jobs N             analyse with N threads (default: one per core)\n"
	      "\n"
	      "  -V, --version            print the version and exit\n"
	      "  -h, --help               print this help and exit\n"
	      "\n"
	      "Configuration is read from [tool.torchlint] in pyproject.toml or from\n"
	      ".torchlint.toml or torchlint.toml, the closest one above each file.\n"
	      "Findings are suppressed with `# noqa: TL101` on their line and\n"
	      "`# torchlint: noqa` for a file. Each rule's page: --explain CODE.\n"
	      "\n"
	      "Exit status: 0 no findings, 1 findings (at least --fail-on), 2 usage error,\n"
	      "bad configuration or unreadable input (the other files are still analysed).\n",
	      out);
}


/* ---- options ------------------------------------------------------------------------- */

/* An option getopt did not know (`arg` as typed; `opt` the character of
 * an unknown short option, else 0): says so, with the closest option when
 * one is close, as ruff does. */
static void tl_cli__unknown_option(const char *arg, int opt, const struct option *longopts)
{
	if (opt && strncmp(arg, "--", 2) != 0) {
		fprintf(stderr, "torchlint: unknown option '-%c'\nTry 'torchlint --help' for more information.\n", opt);
		return;
	}
	/* --name or --name=value: the name alone is compared. */
	const char *name = arg + (strncmp(arg, "--", 2) == 0 ? 2 : 1);
	char *word = tl_strndup(name, strcspn(name, "="));
	const char *names[64];
	size_t n = 0;
	for (; longopts[n].name && n < sizeof names / sizeof *names; n++)
		names[n] = longopts[n].name;
	/* A prefix of several (getopt takes a prefix of one): all of them. */
	TlBuf which;
	tl_buf_init(&which);
	uint32_t prefixed = 0;
	for (size_t i = 0; i < n && *word; i++)
		if (strncmp(names[i], word, strlen(word)) == 0 && (i == 0 || longopts[i].val != longopts[i - 1].val)) {
			tl_buf_addf(&which, "%s--%s", prefixed ? ", " : "", names[i]);
			prefixed++;
		}
	const char *near = tl_suggest(word, names, n);
	if (prefixed > 1)
		tl_diagf(stderr, "torchlint: ambiguous option '%s' (could be %s)\n", arg, which.data);
	else if (near)
		tl_diagf(stderr, "torchlint: unknown option '%s' (did you mean '--%s'?)\n", arg, near);
	else
		tl_diagf(stderr, "torchlint: unknown option '%s'\n", arg);
	fprintf(stderr, "Try 'torchlint --help' for more information.\n");
	tl_buf_release(&which);
	tl_free(word);
}

/* Parses argv into `cli`; returns -1 to go on, else the exit status. */
int tl_cli_options(int argc, char **argv, TlCli *cli)
{
	enum {
		OPT_FORMAT = 256, OPT_SELECT, OPT_EXTEND_SELECT, OPT_IGNORE, OPT_RULES_DIR,
		OPT_LIST_RULES, OPT_LIST_PREDICATES, OPT_COLOR, OPT_EXIT_ZERO, OPT_STATISTICS,
		OPT_CONFIG, OPT_ISOLATED, OPT_NO_GITIGNORE, OPT_FORCE_EXCLUDE, OPT_STDIN_FILENAME,
		OPT_EXPLAIN, OPT_TORCH_VERSION, OPT_FIX, OPT_UNSAFE_FIXES, OPT_DIFF, OPT_ADD_NOQA,
		OPT_SHOW_FILES, OPT_SHOW_SETTINGS, OPT_NO_FIX, OPT_FIX_ONLY, OPT_EXIT_NON_ZERO_ON_FIX,
		OPT_FAIL_ON, OPT_EXTEND_EXCLUDE, OPT_SHOW_FIXES, OPT_NO_UNSAFE_FIXES, OPT_PER_FILE_IGNORES,
		OPT_EXCLUDE, OPT_FIXABLE, OPT_UNFIXABLE,
	};
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output-format", required_argument, NULL, OPT_FORMAT },
		{ "fix", no_argument, NULL, OPT_FIX },
		{ "no-fix", no_argument, NULL, OPT_NO_FIX },
		{ "fix-only", no_argument, NULL, OPT_FIX_ONLY },
		{ "show-fixes", no_argument, NULL, OPT_SHOW_FIXES },
		{ "no-unsafe-fixes", no_argument, NULL, OPT_NO_UNSAFE_FIXES },
		{ "exit-non-zero-on-fix", no_argument, NULL, OPT_EXIT_NON_ZERO_ON_FIX },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "extend-exclude", required_argument, NULL, OPT_EXTEND_EXCLUDE },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "fixable", required_argument, NULL, OPT_FIXABLE },
		{ "unfixable", required_argument, NULL, OPT_UNFIXABLE },
		{ "per-file-ignores", required_argument, NULL, OPT_PER_FILE_IGNORES },
		{ "silent", no_argument, NULL, 's' },
		{ "unsafe-fixes", no_argument, NULL, OPT_UNSAFE_FIXES },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "add-noqa", no_argument, NULL, OPT_ADD_NOQA },
		{ "show-files", optional_argument, NULL, OPT_SHOW_FILES },
		{ "show-settings", required_argument, NULL, OPT_SHOW_SETTINGS },
		{ "output-file", required_argument, NULL, 'o' },
		{ "select", required_argument, NULL, OPT_SELECT },
		{ "extend-select", required_argument, NULL, OPT_EXTEND_SELECT },
		{ "ignore", required_argument, NULL, OPT_IGNORE },
		{ "rules-dir", required_argument, NULL, OPT_RULES_DIR },
		{ "list-rules", no_argument, NULL, OPT_LIST_RULES },
		{ "list-predicates", no_argument, NULL, OPT_LIST_PREDICATES },
		{ "explain", required_argument, NULL, OPT_EXPLAIN },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "exit-zero", no_argument, NULL, OPT_EXIT_ZERO },
		{ "statistics", no_argument, NULL, OPT_STATISTICS },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "isolated", no_argument, NULL, OPT_ISOLATED },
		{ "no-respect-gitignore", no_argument, NULL, OPT_NO_GITIGNORE },
		{ "force-exclude", no_argument, NULL, OPT_FORCE_EXCLUDE },
		{ "stdin-filename", required_argument, NULL, OPT_STDIN_FILENAME },
		{ "torch-version", required_argument, NULL, OPT_TORCH_VERSION },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const formats[TL_OUT_COUNT] = { "full", "concise", "json", "sarif", "github", "gitlab", "junit" };
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:qsVh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT: cli->format_name = optarg; break;
		case 'o': cli->output = optarg; break;
		case OPT_SELECT: cli->has_select = true; tl_array_push(&cli->select, optarg); break;
		case OPT_EXTEND_SELECT: tl_array_push(&cli->extend_select, optarg); break;
		case OPT_IGNORE: tl_array_push(&cli->ignore, optarg); break;
		case OPT_RULES_DIR: cli->rules_dir = optarg; break;
		case OPT_LIST_RULES: cli->list_rules = true; break;
		case OPT_LIST_PREDICATES: cli->list_predicates = true; break;
		case OPT_EXPLAIN: cli->explain = optarg; break;
		case OPT_COLOR: cli->color = optarg; break;
		case OPT_EXIT_ZERO: cli->exit_zero = true; break;
		case OPT_STATISTICS: cli->statistics = true; break;
		case OPT_CONFIG:
			/* A TOML `key = value` unless it names a file (as ruff reads it). */
			if (strchr(optarg, '=') && access(optarg, F_OK) != 0)
				tl_array_push(&cli->overrides, optarg);
			else
				cli->config = optarg;
			break;
		case OPT_ISOLATED: cli->isolated = true; break;
		case OPT_NO_GITIGNORE: cli->no_gitignore = true; break;
		case OPT_FORCE_EXCLUDE: cli->force_exclude = true; break;
		case OPT_STDIN_FILENAME: cli->stdin_filename = optarg; break;
		case OPT_TORCH_VERSION: cli->torch_version = optarg; break;
		case OPT_FIX: cli->fix = true; break;
		case OPT_NO_FIX: cli->fix = false; cli->fix_only = false; break;
		case OPT_FIX_ONLY: cli->fix = true; cli->fix_only = true; break;
		case OPT_EXIT_NON_ZERO_ON_FIX: cli->exit_non_zero_on_fix = true; break;
		case OPT_SHOW_FIXES: cli->show_fixes = true; break;
		case OPT_NO_UNSAFE_FIXES: cli->unsafe_fixes = false; break;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "error") == 0)
				cli->fail_on = TL_SEV_ERROR;
			else if (strcmp(optarg, "warning") == 0)
				cli->fail_on = TL_SEV_WARNING;
			else if (strcmp(optarg, "info") == 0)
				cli->fail_on = TL_SEV_INFO;
			else {
				tl_diagf(stderr, "torchlint: invalid value '%s' for --fail-on: expected error, warning or info\n",
					 optarg);
				return TL_EXIT_ERROR;
			}
			break;
		case OPT_EXTEND_EXCLUDE: tl_array_push(&cli->extend_exclude, optarg); break;
		case OPT_EXCLUDE: tl_array_push(&cli->exclude, optarg); break;
		case OPT_FIXABLE: tl_array_push(&cli->fixable, optarg); break;
		case OPT_UNFIXABLE: tl_array_push(&cli->unfixable, optarg); break;
		case OPT_PER_FILE_IGNORES: tl_array_push(&cli->per_file_ignores, optarg); break;
		case OPT_UNSAFE_FIXES: cli->unsafe_fixes = true; break;
		case OPT_DIFF: cli->diff = true; break;
		case OPT_ADD_NOQA: cli->add_noqa = true; break;
		case OPT_SHOW_FILES:
			cli->show_files = true;
			if (optarg && strcmp(optarg, "context") == 0) {
				cli->show_context = true;
			} else if (optarg) {
				fprintf(stderr, "torchlint: --show-files takes no value or 'context', not '%s'\n",
					optarg);
				exit(TL_EXIT_ERROR);
			}
			break;
		case OPT_SHOW_SETTINGS: cli->show_settings = optarg; break;
		case 'q': cli->quiet = true; break;
		case 's': cli->silent = cli->quiet = true; break;
		case 'j': {
			char *end;
			cli->jobs = strtol(optarg, &end, 10);
			if (*end || cli->jobs < 1) {
				fprintf(stderr, "torchlint: invalid value '%s' for --jobs: expected a positive number\n", optarg);
				return TL_EXIT_ERROR;
			}
			break;
		}
		case 'V': printf("torchlint %s\n", TL_VERSION); return TL_EXIT_CLEAN;
		case 'h': tl_cli_usage(stdout); return TL_EXIT_CLEAN;
		case ':':
			fprintf(stderr, "torchlint: option '%s' needs a value\nTry 'torchlint --help' for more information.\n",
				argv[optind - 1]);
			return TL_EXIT_ERROR;
		default:
			tl_cli__unknown_option(argv[optind - 1], optopt, longopts);
			return TL_EXIT_ERROR;
		}
	}
	bool known = false;
	for (int i = 0; i < TL_OUT_COUNT; i++)
		if (strcmp(cli->format_name, formats[i]) == 0) {
			cli->format = (TlOutFormat)i;
			known = true;
		}
	if (!known) {
		fprintf(stderr, "torchlint: invalid value '%s' for --format: expected full, concise, json, sarif, github, gitlab or junit\n",
			cli->format_name);
		return TL_EXIT_ERROR;
	}
	/* --statistics is a table (full, concise) or JSON, as ruff's is; ruff
	 * refuses every other format for it, and so does this, before anything
	 * runs: SARIF, JUnit XML, GitLab's report and GitHub's workflow
	 * commands hold findings, not counts (the table written there made
	 * `-o report.xml` no XML). */
	if (cli->statistics && cli->format != TL_OUT_FULL && cli->format != TL_OUT_CONCISE &&
	    cli->format != TL_OUT_JSON) {
		fprintf(stderr, "torchlint: --statistics cannot be written as --format %s (it holds findings, not counts): use --format json for statistics a program reads, or full or concise for the table\n",
			cli->format_name);
		return TL_EXIT_ERROR;
	}
	if (strcmp(cli->color, "auto") != 0 && strcmp(cli->color, "always") != 0 &&
	    strcmp(cli->color, "never") != 0) {
		fprintf(stderr, "torchlint: invalid value '%s' for --color: expected auto, always or never\n", cli->color);
		return TL_EXIT_ERROR;
	}
	if (cli->torch_version && tl_torch_version_parse(cli->torch_version) < 0) {
		fprintf(stderr, "torchlint: invalid value '%s' for --torch-version: expected a version such as 2.4\n",
			cli->torch_version);
		return TL_EXIT_ERROR;
	}
	return -1;
}

