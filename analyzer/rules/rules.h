/* Rules: metadata (rules/CODE-name.toml) plus a query
 * (queries/CODE-name.scm), paired by code. The built-in set is embedded in
 * the binary at build time; --rules-dir adds more. Also: selection of rules by code, prefix, family.
 *
 * Loading a rule scans its query's text (qtext.h) and compiles its
 * predicates; tree-sitter compiles the query itself only when a file needs
 * it (queryset.h), so listing or explaining rules compiles nothing. */
#ifndef TL_RULES_H
#define TL_RULES_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "rules/fix.h"
#include "rules/predicates.h"
#include "rules/qtext.h"

struct TlQuerySet;

typedef enum TlSeverity { TL_SEV_ERROR, TL_SEV_WARNING, TL_SEV_INFO } TlSeverity;

typedef enum TlPredKind {
	TL_PRED_EQ,
	TL_PRED_MATCH,
	TL_PRED_ANY_OF,
	TL_PRED_SEMANTIC,
	TL_PRED_SET, /* #set! name "value": a property of the pattern, always holds */
} TlPredKind;

/* One compiled predicate of a pattern. Captures are the pattern's
 * canonical capture indices (TlQPattern.captures). */
typedef struct TlPred {
	TlPredKind kind;
	bool negated;
	bool any;            /* any-eq?/any-match?: one node suffices */
	uint32_t capture;    /* first argument */
	int32_t capture2;    /* #eq? @a @b: the second capture, else -1 */
	char *string;        /* #eq? @a "x"; #set!: the property's value */
	TlStrArray strings;  /* #any-of?; #set!: the property's name */
	regex_t regex;       /* #match? */
	bool has_regex;
	const TlPredicateDef *def; /* TL_PRED_SEMANTIC */
	int choice;
} TlPred;

typedef TlArray(TlPred) TlPredList;

typedef struct TlRule {
	char *code;     /* "TL101" */
	char *name;     /* "loss-accumulated-with-graph" */
	char *family;   /* "memory" */
	TlSeverity severity;
	bool default_on;
	char *message;  /* may hold {capture} placeholders, and {property}
			 * for a `#set! property "value"` that every pattern
			 * of the query sets */
	char *help;     /* optional longer hint for the full format */
	char *skill;    /* where --explain reads from */
	char *validate; /* validate/cases/<code> */
	TlStrArray tags;         /* extra SARIF tags (`tags = ["security"]`), beside the family */
	char *security_severity; /* SARIF security-severity ("8.1", 0.0 to 10.0), or NULL */
	TlFixSpecs fixes;        /* its [[fix]] tables (fix.h); empty: no fix */
	char *meta_path, *query_path;
	/* Compiled by tl_rule_compile, to check the query (--rules-dir, tests);
	 * NULL for embedded rules (checked by tests/unit/test_rules.c) and
	 * engine rules such as TL000. The engine never runs it. */
	TSQuery *query;
	char *query_source; /* its text; NULL for engine rules */
	TlQPatterns text;   /* its patterns, scanned */
	TlArray(TlPredList) patterns; /* per pattern, its compiled predicates */
	int32_t finding_capture; /* >= 0 when some pattern captures @finding */
	bool embedded;  /* built in (not from --rules-dir or tl_rule_compile) */
	uint32_t message_line, message_column; /* of `message` in the metadata */
} TlRule;

typedef struct TlRuleSet {
	TlArray(TlRule *) rules; /* sorted by code */
	/* The compiled queries, built as files need them; made by
	 * tl_rules_load (a set filled by hand gets one per engine). */
	struct TlQuerySet *queries;
} TlRuleSet;

/* Reads the embedded rules; then, if `dir` is not NULL, the CODE-name.toml
 * and CODE-name.scm pairs in `dir` (a code defined twice is an error). On failure prints
 * "path:row:col: error" messages (with the line and a caret for queries) to
 * `err` and returns false. Compiles no queries: tl_rules_load (ruleset.h)
 * reads the rules and builds the set's query groups. */
bool tl_rules_read(TlRuleSet *set, const char *dir, FILE *err);
/* An empty set, to fill by hand (tests). */
void tl_rules_init(TlRuleSet *set);
/* Frees the rules (not the query set: tl_rules_release does both). */
void tl_rules_clear(TlRuleSet *set);
const TlRule *tl_rules_find(const TlRuleSet *set, const char *code);

/* Loads one rule from its metadata and query text, and compiles the query
 * with tree-sitter to check it (tests and --rules-dir use this).
 * Returns NULL after printing the error to `err`. */
TlRule *tl_rule_compile(const char *meta_path, const char *meta, size_t meta_len,
			const char *query_path, const char *query, size_t query_len,
			FILE *err);
void tl_rule_free(TlRule *rule);

/* Rule selection, ruff-style: `select` replaces the default set (the
 * default-on rules), `extend_select` adds, `ignore` removes. Selectors are
 * codes (TL101), prefixes (TL1), family names (memory) or ALL. */
typedef struct TlSelection {
	TlStrArray select;
	bool has_select;
	TlStrArray extend_select;
	TlStrArray ignore;
} TlSelection;

void tl_selection_init(TlSelection *sel);
void tl_selection_release(TlSelection *sel);
/* Whether two selections hold the same lists (so select the same rules). */
bool tl_selection_equal(const TlSelection *a, const TlSelection *b);
/* A deep copy of `from` into `to` (uninitialized), released with
 * tl_selection_release. */
void tl_selection_copy(TlSelection *to, const TlSelection *from);
/* Splits a comma-separated list into `into`; returns false and names the
 * bad selector in `bad` if one matches no rule. */
bool tl_selection_add(const TlRuleSet *set, TlStrArray *into, const char *list,
		      char *bad, size_t bad_size);
bool tl_rule_selected(const TlRule *rule, const TlSelection *sel);
/* True when some selector in `list` names `rule`. */
bool tl_selectors_match(const TlStrArray *list, const TlRule *rule);

const char *tl_severity_name(TlSeverity s);

#endif
