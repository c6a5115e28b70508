/* The command line: what it asks for (TlCli), how it is parsed
 * (tl_cli_options, getopt_long with ruff's habits: an unknown option names
 * the closest one), and what --help prints (tl_cli_usage, with the rules'
 * unsafe fixes read from their metadata). main.c runs what it asks.
 *
 * Owns: TlCli, TlOutFormat, the exit statuses, tl_cli_options, tl_cli_usage. */
#ifndef TL_CLI_OPTIONS_H
#define TL_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "base/array.h"
#include "rules/rules.h"

#ifndef TL_VERSION
#define TL_VERSION "0.0.0-dev"
#endif

/* Worker threads at most: past the core count they only add contention. */
#define TL_MAX_JOBS 64

enum { TL_EXIT_CLEAN = 0, TL_EXIT_FINDINGS = 1, TL_EXIT_ERROR = 2 };

typedef enum TlOutFormat {
	TL_OUT_FULL, TL_OUT_CONCISE, TL_OUT_JSON, TL_OUT_SARIF, TL_OUT_GITHUB, TL_OUT_GITLAB, TL_OUT_JUNIT,
} TlOutFormat;
#define TL_OUT_COUNT 7

/* What the command line asked for. */
typedef struct TlCli {
	TlOutFormat format;
	const char *format_name, *output, *rules_dir, *color, *config, *stdin_filename;
	const char *explain, *torch_version;
	TlStrArray select, extend_select, ignore; /* raw option values */
	bool has_select, list_rules, list_predicates, quiet, exit_zero, statistics;
	bool isolated, no_gitignore, force_exclude;
	bool fix, unsafe_fixes, diff, add_noqa, show_files, show_context;
	bool silent, fix_only, exit_non_zero_on_fix, show_fixes;
	TlSeverity fail_on; /* the least severe finding that makes the exit status 1 */
	TlStrArray exclude;        /* --exclude patterns (replace the configuration's), relative to the working directory */
	TlStrArray extend_exclude; /* --extend-exclude patterns, relative to the working directory */
	TlStrArray fixable, unfixable; /* --fixable, --unfixable: raw option values */
	TlStrArray overrides;      /* --config KEY=VALUE */
	TlStrArray per_file_ignores; /* --per-file-ignores GLOB:LIST */
	const char *show_settings;
	long jobs;
} TlCli;

/* Fills `cli` from the command line: -1 to go on with the run, else the
 * exit status to stop with (after --help, --version or a usage error,
 * said on standard error). */
int tl_cli_options(int argc, char **argv, TlCli *cli);
/* --help. */
void tl_cli_usage(FILE *out);

#endif
