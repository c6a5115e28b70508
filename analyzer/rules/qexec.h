/* Query execution with a bounded cost.
 *
 * tree-sitter's query cursor, run once over a whole tree, keeps a state
 * alive for every pattern started at a node until the cursor leaves that
 * node's subtree. On left-nested trees (a method chain `f(x).f(x)...` is a
 * call whose function's object is the next call) the live states grow with
 * the depth: the time is quadratic, and past 65,535 states holding
 * captures tree-sitter 0.25's 16-bit capture-list ids wrap and the cursor
 * writes through a list another state owns (SIGSEGV in
 * ts_query_cursor__capture). So patterns are run node by node: at each
 * node a cursor starts only the patterns rooted at that node (max start
 * depth 0) and descends no deeper than those patterns reach. Each node is
 * visited by a bounded number of its ancestors (the patterns' depth), so
 * the cost is linear in the tree, and the set of matches is the one the
 * whole-tree run finds.
 *
 * That holds for "local" patterns only: one root node that is not a
 * wildcard with children (tree-sitter starts `(_ (x))` at the child), no
 * quantifier or alternation of the root. Other patterns ("global": sibling
 * sequences, `(_ (identifier))`, `(call)+`) run over the whole tree as
 * before, with a match limit (at most TL_QEXEC_MATCH_LIMIT states hold
 * captures, far below the 16-bit wrap). Every cursor is also bounded by a
 * per-file work budget and CPU time (its progress callback); a run that
 * loses matches to a bound says so (TlQexecStatus), for the engine to
 * report. */
#ifndef TL_QEXEC_H
#define TL_QEXEC_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/budget.h"

/* In-progress matches that may hold captures at once, per cursor. */
#define TL_QEXEC_MATCH_LIMIT 4096

/* True when pattern `p` of `q` (compiled from `source`, `len` bytes) is
 * local: run node by node it finds the matches a whole-tree run finds. */
bool tl_qexec_pattern_local(const TSQuery *q, uint32_t p, const char *source, uint32_t len);

/* True when `text` (one pattern, `len` bytes), compiled alone, is surely
 * local (tl_qexec_pattern_local of its compiled query), read from the text
 * without compiling it: a plain node expression at its root, or an
 * alternation of plain nodes, not quantified, inside grouping parentheses
 * that hold nothing else but captures (the canonical shapes of qtext.h,
 * `((call ...) @c0)`). False says nothing: compile it to know. */
bool tl_qexec_text_local(const char *text, uint32_t len);

/* Splits `q` (compiled from `source` for `lang`) for tl_qexec_run: disables its
 * global patterns in `q` and returns a second compilation of `source` with
 * only those patterns enabled (caller deletes it), or NULL when every
 * pattern is local. Pattern indices are the same in both. Call before
 * `q` is shared between threads. */
TSQuery *tl_qexec_split(TSQuery *q, const TSLanguage *lang, const char *source, uint32_t len);

/* Bytes of a root-symbol bitmap (one bit per TSSymbol, ERROR included). */
#define TL_QEXEC_ROOTS_BYTES (65536 / 8)

/* The node symbols at which the patterns of `q` run node by node can
 * start (after tl_qexec_split; `split`: it returned a global query, so
 * only q's local patterns are enabled): a bitmap of TL_QEXEC_ROOTS_BYTES
 * (caller frees), or NULL when some pattern may start at any node (a
 * wildcard or supertype root). */
uint8_t *tl_qexec_roots(const TSQuery *q, bool split, const TSLanguage *lang, const char *source,
			uint32_t len);

/* Adds to `roots` the symbols of the root of the pattern `text` (one
 * top-level pattern, `len` bytes, local: tl_qexec_pattern_local) for
 * `lang`; false when it may start at any node. */
bool tl_qexec_text_roots(const TSLanguage *lang, const char *text, uint32_t len, uint8_t *roots);

/* Refuses, before tree-sitter compiles `text`, the queries on which
 * tree-sitter 0.25.1's ts_query_new misbehaves (found by fuzz_rules):
 * an unknown field name after a capture in that field (a leak); a
 * predicate where a pattern belongs, e.g. `((#eq? "a" "b")) @x` or
 * `(call function: (#eq? "a" "b"))` (an assertion, or a read past its
 * steps without assertions); an empty string `""` (a copy from a null
 * pointer: undefined behaviour); a `+` on a pattern that may match nothing,
 * outside any node (never finishes compiling); a NUL byte (a read past a
 * node name). Returns NULL when ts_query_new may judge
 * the query, else what is wrong (a static string, worded as rules.c words
 * tree-sitter's errors) with its byte offset in *offset. */
const char *tl_qexec_precheck(const TSLanguage *lang, const char *text, uint32_t len,
			      uint32_t *offset);

typedef enum TlQexecStatus {
	TL_QEXEC_DONE = 0,
	TL_QEXEC_MATCH_LIMIT_HIT = 1, /* some matches were dropped at the match limit */
	TL_QEXEC_BUDGET_SPENT = 2,    /* the work budget ran out: the rest was skipped */
	TL_QEXEC_STOPPED = 4,         /* the match callback asked to stop */
	TL_QEXEC_TIME_SPENT = 8,      /* the CPU-time bound ran out: the rest was skipped */
	TL_QEXEC_CANCELLED = 16,      /* the caller's cancel hook asked to stop (its result is not used) */
} TlQexecStatus;

/* Called once per match; returns false to stop the run. */
typedef bool (*TlQexecMatchFn)(void *ctx, const TSQuery *q, const TSQueryMatch *m);
/* Called before the local query runs at `node`; false skips that node
 * (the caller knows no match there would pass). It may stop the run by
 * spending the time (tl_qexec_out_of_time). */
typedef bool (*TlQexecNodeFn)(void *ctx, TSNode node);

/* One cursor and the budget of the file being analysed. */
typedef struct TlQexec {
	TSQueryCursor *cursor;
	uint64_t budget;   /* work units left (one per node visited, one per 100 cursor steps) */
	uint64_t spent;    /* work units used since tl_qexec_begin */
	unsigned status;   /* TlQexecStatus bits since tl_qexec_begin */
	/* The file's CPU-time bound (base/budget.h): its `cancel` hook, set by
	 * the caller and kept across files, stops the file with
	 * TL_QEXEC_CANCELLED (the language server, when a newer version of
	 * the document arrived). */
	TlBound bound;
	TSQueryCursorOptions options; /* the cursor keeps a pointer to it */
} TlQexec;

/* `x` must not move while in use (the cursor points into it). */
void tl_qexec_init(TlQexec *x);
void tl_qexec_release(TlQexec *x);
/* Starts a file: `budget` work units and `seconds` of this thread's CPU
 * time for all runs until the next call. The work units are counted
 * deterministically; the CPU time is the backstop for what they cannot
 * see (a cursor step costs as much as the matches in progress, and
 * patterns with unanchored sibling children can keep many), so only a
 * file that reaches it may be reported differently from run to run. */
void tl_qexec_begin(TlQexec *x, uint64_t budget, double seconds);
/* The bounds for a file of `bytes` bytes: linear in the size and far
 * above what real code needs (qexec.c says how far). */
uint64_t tl_qexec_budget_for(uint64_t bytes);
double tl_qexec_seconds_for(uint64_t bytes);
/* True (and TL_QEXEC_TIME_SPENT set) once this thread's CPU time passed
 * the bound given to tl_qexec_begin: for callers whose own work (a match
 * callback's) the runs cannot see. */
bool tl_qexec_out_of_time(TlQexec *x);
struct TlIndexNode;

/* The nodes of a tree the index kept (index.h: tl_index_build_collecting),
 * to run at instead of walking the tree. */
typedef struct TlQexecList {
	const struct TlIndexNode *nodes; /* in preorder, with their preorder numbers */
	uint32_t count;
	uint32_t total;                  /* nodes in the tree */
} TlQexecList;

/* Runs `local` (node by node; may be NULL) then `global` (whole tree; may
 * be NULL) over the tree under `root`, calling `fn` for each match; stops
 * when the budget is spent or `fn` returns false. `roots` (tl_qexec_roots;
 * NULL: every node) says at which nodes `local` can start: the others are
 * walked, counted in the budget, and not run; at those it can, `at` (may
 * be NULL; with `local` NULL, the walk is for it alone) is asked first.
 * With `list` (it must hold every node `roots` names), its nodes are run
 * at instead of walking the tree; the budget is charged the same.  Returns the TlQexecStatus bits of this run
 * (also or-ed into x->status). */
unsigned tl_qexec_run(TlQexec *x, const TSQuery *local, const uint8_t *roots,
		      const TSQuery *global, TSNode root, const TlQexecList *list,
		      TlQexecNodeFn at, TlQexecMatchFn fn, void *ctx);

/* Runs the patterns of `q` rooted at `node` (as tl_qexec_run's local walk
 * does at one node), calling `fn` for each match; for a TlQexecNodeFn that
 * runs another query at the node in hand. Returns the TlQexecStatus bits
 * (also or-ed into x->status). */
unsigned tl_qexec_exec_at(TlQexec *x, const TSQuery *q, TSNode node, TlQexecMatchFn fn, void *ctx);

#endif
