/* Machine-readable reporters, written once all files are analysed: JSON (a
 * documented, stable schema), SARIF 2.1.0 for code scanning, GitHub
 * Actions workflow commands, and the rule catalog as JSON. */
#ifndef TL_OUTPUT_H
#define TL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/buf.h"
#include "engine/engine.h"
#include "report/fixrun.h"
#include "rules/rules.h"

#ifndef TL_HOMEPAGE
#define TL_HOMEPAGE "https://github.com/torchlint/torchlint"
#endif

/* What was found in one analysed (or unreadable) file. */
typedef struct TlFileReport {
	char *path;       /* as reported to the user */
	char *error;      /* why the file could not be analysed, or NULL */
	TlFindings findings;
	TlNotices notices; /* warnings about the file (invalid noqa directives) */
	char *rendered;   /* the text formats' rendering, or NULL */
	/* --fix, --diff, --add-noqa: the file's text before (BOM stripped) and
	 * after its fixes (NULL: unchanged), how many were applied, and why a
	 * round was not (or ""); all owned. */
	char *original, *fixed, *fix_note;
	/* --fix, --add-noqa: why the fixed text could not be written back
	 * (then `fixed` is NULL and the original is what was analysed). */
	char *write_error;
	size_t original_len;
	bool bom;
	uint32_t fixes_applied;
	TlFixCounts fixes_by_rule; /* --show-fixes: what the fixes applied were */
} TlFileReport;

typedef struct TlReportSet {
	const TlRuleSet *rules;
	const TlFileReport *files;
	uint32_t count;
} TlReportSet;

/* The writers return false, having written nothing, when the document
 * cannot be built (jansson failed); the caller reports it (exit 2). Strings
 * that are not valid UTF-8 (a file name with byte 0xFF, rule metadata) are
 * written with U+FFFD in place of each bad byte, never dropped; SARIF URIs
 * percent-encode the raw bytes. Write errors stay on `out` for the caller's
 * ferror/fclose check. */
bool tl_output_json(FILE *out, const TlReportSet *set);
/* `srcroot`: absolute directory that relative paths are relative to. */
bool tl_output_sarif(FILE *out, const TlReportSet *set, const char *srcroot, bool success);
/* GitHub workflow commands; file= is relative to `srcroot`. */
bool tl_output_github(FILE *out, const TlReportSet *set, const char *srcroot);
/* GitLab Code Quality (Code Climate issues, as GitLab reads them): a JSON
 * array of {type, check_name, description, categories, severity,
 * fingerprint, location: {path, lines: {begin, end}}}; paths relative to
 * `srcroot`, severity critical/major/info for error/warning/info, a
 * fingerprint (32 hex digits) that stays when unrelated lines move (it
 * needs TlFinding.fingerprint, the line hash). */
bool tl_output_gitlab(FILE *out, const TlReportSet *set, const char *srcroot);
/* JUnit XML (report/junit.c): one testsuite per file, a failing testcase per
 * finding, a passing one for a file without findings, an error for a file
 * that could not be analysed. */
bool tl_output_junit(FILE *out, const TlReportSet *set);
bool tl_output_rules_json(FILE *out, const TlRuleSet *rules);

/* Escapes for GitHub workflow commands, as the Actions toolkit does: '%',
 * CR and LF in the message; also ':' and ',' in a property. Caller frees. */
char *tl_output_github_escape(const char *s, bool property);

/* `path` with symbolic links and ".." resolved, relative to `srcroot` (an
 * absolute directory ending in '/') when below it, else absolute. Caller frees. */
char *tl_output_repo_path(const char *path, const char *srcroot);

/* Appends the rule's help link, as SARIF's helpUri, the language server's
 * codeDescription and --explain carry it: for a built-in rule its page
 * HOMEPAGE/blob/main/docs/rules/CODE.md, for a --rules-dir rule its section
 * of skills/ or the README. */
void tl_output_help_uri(const TlRule *rule, TlBuf *out);

#endif
