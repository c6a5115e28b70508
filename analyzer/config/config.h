/* Configuration: `[tool.torchlint]` in pyproject.toml, or a .torchlint.toml
 * or torchlint.toml (top-level keys). For each analysed file the closest
 * configuration file in its directory or above applies (ruff's rule); a
 * pyproject.toml without a [tool.torchlint] table does not count, and in one
 * directory .torchlint.toml wins over torchlint.toml, which wins over
 * pyproject.toml (ruff's order for .ruff.toml, ruff.toml, pyproject.toml).
 * Every error of a file is reported (file:line:col), not only the first.
 *
 * Keys: extend (the path of a configuration this one starts from, relative
 * to its directory), select, extend-select, ignore (lists of selectors), per-file-ignores
 * (a table: glob -> list of selectors), exclude, extend-exclude (lists of
 * globs, relative to the configuration's directory), torch-version ("2.4",
 * the oldest PyTorch the code must run on; RULES.md principle 8), external
 * (codes or prefixes of other tools' rules, such as "E501" or "B", that
 * `# noqa` comments may name: TL001 leaves them alone), src (folders,
 * relative to the configuration's directory, searched for the project's
 * absolute imports after the ones a file's place gives: project/). */
#ifndef TL_CONFIG_H
#define TL_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "base/array.h"
#include "base/glob.h"
#include "base/strmap.h"
#include "rules/rules.h"

#include "syntax/index.h" /* TL_TORCH_VERSION_DEFAULT */

typedef struct TlPerFileIgnore {
	char *glob;          /* relative to the config's directory; bare names match anywhere */
	TlStrArray selectors;
	/* `glob` is anchored at an absolute directory instead: --per-file-ignores
	 * (the working directory) or a configuration this one extends (its
	 * directory); `origin` (owned) names which. */
	bool absolute;
	char *origin;
} TlPerFileIgnore;

typedef struct TlConfig {
	char *path;          /* the file, or NULL for the built-in defaults */
	char *dir;           /* its directory, ending in '/' ("" for defaults) */
	bool has_select;
	TlStrArray select, extend_select, ignore;
	TlArray(TlPerFileIgnore) per_file_ignores;
	bool has_exclude;
	TlPatterns exclude;  /* exclude (or the defaults) and extend-exclude */
	int torch_version;   /* major * 100 + minor, or 0 when not set */
	TlStrArray external; /* other tools' noqa codes or prefixes (ruff's lint.external) */
	TlStrArray src;      /* roots of the project's imports, absolute (ruff's src) */
	/* extend = "PATH": the configurations this one extends, nearest first
	 * (owned paths), and their excludes, each relative to its own file's
	 * directory; a file is excluded when `exclude` or any of these says so. */
	TlStrArray extends;
	TlArray(TlPatterns) inherited_exclude;
} TlConfig;

/* Reads the configuration file `path` (pyproject.toml or any other name,
 * read as torchlint.toml). Validates keys, types and selectors against
 * `rules`; on error prints "path:line:col: error: ..." to `err` and returns
 * false. *found is false for a pyproject.toml without [tool.torchlint]. */
bool tl_config_load(TlConfig *cfg, const char *path, const TlRuleSet *rules, bool *found,
		    FILE *err);
/* The built-in defaults (no file). */
void tl_config_defaults(TlConfig *cfg);
void tl_config_release(TlConfig *cfg);

/* A comma-separated selector list as --explain reads rules: a code in any
 * case (tl101) or a rule's name (missing-zero-grad) becomes the code, a
 * code prefix in any case (tl1) and `all` are upper-cased, the rest (family
 * names, unknown words) stays as given for tl_selection_add to judge.
 * Caller frees. */
char *tl_config_canonical_selectors(const TlRuleSet *rules, const char *list);

/* Parses "2", "2.4" or "2.4.1" into major * 100 + minor; -1 if invalid. */
int tl_torch_version_parse(const char *s);

/* Finds and caches the configuration of each directory. */
typedef struct TlConfigs {
	const TlRuleSet *rules;
	TlArray(TlConfig *) loaded;
	TlStrMap by_dir;     /* directory -> index into loaded, or -1 for defaults */
	TlConfig defaults;
	const TlConfig *forced; /* --config: used for every file */
	bool isolated;          /* --isolated: no configuration files at all */
	/* --extend-exclude: patterns relative to the working directory that
	 * apply on top of every file's configuration (base "" when none). */
	TlPatterns extend_exclude;
	/* --exclude: patterns relative to the working directory that replace
	 * every file's `exclude` (the defaults included) when has_exclude. */
	TlPatterns exclude;
	bool has_exclude;
	bool failed;            /* a configuration file was invalid */
	/* --config KEY=VALUE: TOML lines applied over every configuration
	 * (the built-in defaults too), each key replacing the file's value;
	 * NULL when none. */
	char *overrides;
	/* --per-file-ignores GLOB:LIST, added to every configuration. */
	TlConfig cli_extra;
} TlConfigs;

void tl_configs_init(TlConfigs *cs, const TlRuleSet *rules);
void tl_configs_release(TlConfigs *cs);
/* Adds --extend-exclude patterns (a comma-separated list of globs,
 * relative to the working directory) for every file. */
void tl_configs_extend_exclude(TlConfigs *cs, const char *list);
/* Adds --exclude patterns (the same), which replace every configuration's
 * `exclude` and the default excludes. */
void tl_configs_exclude(TlConfigs *cs, const char *list);
/* Adds a --config KEY=VALUE override (a TOML `key = value` line, keys as
 * in torchlint.toml: select, extend-select, ignore, per-file-ignores,
 * torch-version, external). Checks it at once: on error prints why to
 * `err` and returns false. Call before tl_configs_for and tl_configs_force. */
bool tl_configs_override(TlConfigs *cs, const char *kv, FILE *err);
/* Adds a --per-file-ignores entry, "GLOB:SELECTORS" (a glob relative to
 * the working directory, a bare name matching at any depth; selectors as
 * in --ignore), to every configuration. On error prints why and returns false. */
bool tl_configs_per_file_ignores(TlConfigs *cs, const char *spec, FILE *err);
/* Loads `path` as the configuration for every file (--config). */
bool tl_configs_force(TlConfigs *cs, const char *path, FILE *err);
/* The configuration that applies to `file` (a path to a file or directory
 * that need not exist, e.g. --stdin-filename). Errors in a configuration
 * file are printed once to `err`, set cs->failed, and the defaults apply. */
const TlConfig *tl_configs_for(TlConfigs *cs, const char *file, bool is_dir, FILE *err);

#endif
