/* Analysis of one file: parse, index, run every selected rule, collect
 * findings in (line, column, code) order. Thread-safe: each worker owns a
 * TlEngine (a parser and scratch space); the rule set is shared read-only.
 * A TlEngine must not move after tl_engine_init (its cursor points into it).
 * Per-file limits (a findings cap, a query work budget, a CPU-time bound,
 * the query match limit; qexec.h) end in a TL002 finding naming the limit. */
#ifndef TL_ENGINE_H
#define TL_ENGINE_H

#include <stdbool.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/source.h"
#include "engine/finding.h"
#include "rules/fix.h"
#include "rules/precheck.h"
#include "rules/qexec.h"
#include "rules/rules.h"

/* One shape to try at nodes of a symbol, with its rule patterns that the
 * file's pre-filter passed (TlEngine.plan). */
typedef struct TlEnginePlanShape {
	uint32_t shape;
	uint32_t from, count; /* in TlEngine.plan_rps */
} TlEnginePlanShape;

/* A rule pattern of a planned shape, with what the walk asks of it first. */
typedef struct TlEnginePlanPattern {
	uint32_t rp;
	uint32_t precheck; /* TlRulePattern.precheck */
	bool ranged;       /* TlRulePattern.range_count > 0 */
} TlEnginePlanPattern;

typedef struct TlEngine {
	TSParser *parser;
	TlQexec qexec; /* the query cursor and the file's bounds */
	const TlRuleSet *rules;
	const TlSelection *selection;
	/* The queries of a rule set without its own (filled by hand). */
	struct TlQuerySet *own_queries;
	/* Compile only what each file needs (one file: the least start-up);
	 * else all the selected rules' queries at once, shared by every file. */
	bool exact;
	/* Pre-checking nodes before the queries run there (precheck.h), for
	 * the query set `precheck_of`; which rule patterns passed at the node
	 * being run (a bitmap, and the bits set). */
	TlPrecheckRun precheck;
	const struct TlQuerySet *precheck_of;
	uint64_t *passed;
	TlArray(uint32_t) passed_set;
	/* Where the rule patterns' string tests' literals occur in the file
	 * (queryset.h): a rule pattern is pre-checked at a node only when they
	 * occur inside it. */
	struct TlQueryHits *hits;
	TlArray(TSNode) native_nodes;             /* scratch for native matches */
	TlArray(TSQueryCapture) native_captures;
	TlArray(uint32_t) lazy_shapes;            /* scratch: shapes run alone at a node */
	/* Per node symbol (a slot of the part's table, tl_queryset_at), for
	 * the part and file being run: the shapes that start there and have a
	 * rule pattern the file's pre-filter passed, with those patterns
	 * (nodes of one symbol ask the same; most patterns of a shape are
	 * off in a file). Built at the first node of the symbol; a slot
	 * holds for the run whose number is in plan_stamp. */
	uint32_t plan_run;
	TlArray(uint32_t) plan_stamp;
	TlArray(uint32_t) plan_from; /* per slot: its shapes in plan_shapes */
	TlArray(uint32_t) plan_count;
	TlArray(TlEnginePlanShape) plan_shapes;
	TlArray(TlEnginePlanPattern) plan_rps;
	/* The node symbols the index keeps for the query runs, for the query
	 * set `collect_of` and rule-pattern bitmap `collect_key`. */
	uint8_t *collect;
	uint64_t *collect_key;
	const struct TlQuerySet *collect_of;
	bool collect_any;
	/* Which rules the last file's selection turned on, by rule number, and
	 * a copy of that selection: most files of a run share their selection,
	 * and deciding it rule by rule compares every selector. */
	bool *selected;
	uint32_t selected_count;
	TlSelection selected_for;
	/* The memory budget the last file was over (TL002): 't' tokens, 'n'
	 * nodes, 0 none; and its count. */
	char over_budget;
	uint32_t over_count;
} TlEngine;

/* The per-file memory budget (base/budget.h): a file whose text holds more
 * tokens than TL_ENGINE_MAX_TOKENS is not parsed, one whose tree has more
 * nodes than TL_ENGINE_MAX_NODES is not indexed: TL002 says so. */
#define TL_ENGINE_MAX_TOKENS TL_BUDGET_MAX_TOKENS
#define TL_ENGINE_MAX_NODES TL_BUDGET_MAX_NODES
/* About how many tokens `text` holds (tl_budget_tokens). */
uint32_t tl_engine_tokens(const char *text, uint32_t len, uint32_t stop);

/* Per-file choices, for tl_engine_analyze_with. */
typedef struct TlFileOptions {
	const TlSelection *selection; /* NULL: the engine's */
	bool fingerprints;            /* compute TlFinding.fingerprint (SARIF) */
	int torch_version;            /* major * 100 + minor the code targets; 0: the default */
	const TlStrArray *external;   /* other tools' noqa codes TL001 leaves alone; may be NULL */
	TlNotices *notices;           /* warnings about the file go here; NULL: dropped */
	const TlImports *imports;     /* the project's modules (project/); NULL: the file alone */
} TlFileOptions;

void tl_engine_init(TlEngine *e, const TlRuleSet *rules, const TlSelection *sel);
void tl_engine_release(TlEngine *e);
/* Appends the findings of `src` to `out` (sorted), after applying the
 * file's suppressions (noqa.h): `# noqa` / `# noqa: TL101, TL102` on the
 * reported line or on the first line of the statement holding it, and
 * `# torchlint: noqa` / `# torchlint: noqa: TL101` on a line of its own.
 * TL001 (when selected) reports suppressions that suppress nothing. */
void tl_engine_analyze(TlEngine *e, const TlSource *src, TlFindings *out);
void tl_engine_analyze_with(TlEngine *e, const TlSource *src, const TlFileOptions *opt,
			    TlFindings *out);
/* The same on `tree`, a parse of src->parse_text (src->text when that is
 * NULL) that the caller made and keeps (borrowed): the language server
 * reparses each edit incrementally. */
/* A notebook (engine/notebook.h): its program analysed as one file, except
 * that a code cell that does not parse on its own gets one TL000, at its
 * first error, and is otherwise left out (the parser's recovery would
 * spill into the cells after it), as IPython runs each cell alone. */
struct TlNotebook;
void tl_engine_analyze_notebook(TlEngine *e, const struct TlNotebook *nb, const TlFileOptions *opt,
				TlFindings *out);
/* A file named .ipynb that is no notebook (engine/notebook.h, `malformed`):
 * one TL000 at byte `at` of its text `raw`, saying `why`, when TL000 is
 * selected. */
void tl_engine_malformed_notebook(TlEngine *e, const TlSource *raw, uint32_t at, const char *why,
				  const TlFileOptions *opt, TlFindings *out);
void tl_engine_analyze_tree(TlEngine *e, const TlSource *src, const TSTree *tree,
			    const TlFileOptions *opt, TlFindings *out);

#endif
