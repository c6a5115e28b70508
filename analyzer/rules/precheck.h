/* Pre-checks: what must hold at a node for a rule pattern to match there,
 * tested before tree-sitter runs the query at that node.
 *
 * Most matches of the rules' patterns fail their predicates: a call shape
 * matches nearly every call, and `#eq? @_m "backward"` or
 * `#module-forward? @finding` then rejects it. tree-sitter cannot evaluate
 * predicates while it matches, so each of those matches is built and
 * thrown away. A pre-check reads, from a pattern's shape, where each node
 * of a match must be: the root, and the chain of child steps below it
 * (`field: (type)`, or `(type)` among any children) that no quantifier or
 * group makes optional (a *path*); a node written in an alternation may be
 * at its members' paths, one of them. For such a node it checks, directly
 * on the tree, that some node is there and that the pattern's predicates
 * on its capture can hold: at least one of the nodes at its paths
 * satisfies them (a path may reach several: a child without a field, a
 * field with several children; anchors are not checked, so more nodes are
 * candidates than can match); #eq? of two captures, one pair of them.
 * Failing a pre-check means no match of the pattern at that node can pass
 * its predicates; passing means nothing. So running the query only at
 * nodes where some pattern passes, and evaluating only those patterns'
 * matches, finds the same findings.
 *
 * Semantic predicates cost: one is pre-checked only when every predicate
 * before it in the pattern is, so that no node is asked a question the
 * match would not have asked (string tests are cheap and always checked).
 *
 * A predicate checked on the root capture is decided exactly (the root
 * capture is the node itself): TlPrecheckPattern.exact says which, and the
 * engine does not evaluate those again on the match.
 *
 * Not pre-checked: `#set!`, and a capture some match may leave without a
 * node (a predicate on it then holds): written under a quantifier or a
 * group, or not in every member of an alternation around it. Wildcards
 * and supertypes check only that a node is there.
 *
 * Native shapes (tl_prechecks_add_shape) are matched here without
 * tree-sitter: the engine runs tree-sitter at a node only for shapes that
 * are not native there. */
#ifndef TL_PRECHECK_H
#define TL_PRECHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "rules/rules.h"
#include "syntax/treewalk.h"

/* One step of a path: the children of the previous node in `field` that
 * are of `symbol` (or any named node, or any node). */
typedef struct TlPrecheckStep {
	TSFieldId field;
	TSSymbol symbol;
	uint8_t match; /* TL_PRECHECK_SYMBOL, _NAMED or _ANY */
} TlPrecheckStep;

enum { TL_PRECHECK_SYMBOL, TL_PRECHECK_NAMED, TL_PRECHECK_ANY };

/* A path: `parent` path (0 is the root itself) plus one step. */
typedef struct TlPrecheckPath {
	uint32_t parent;
	TlPrecheckStep step;
} TlPrecheckPath;

/* One check: a node exists at one of its paths, and, when `pred` is not
 * NULL, that predicate holds of at least one node there (#eq? of two
 * captures: of one pair of nodes, one at each capture's paths). */
typedef struct TlPrecheck {
	const TlPred *pred; /* borrowed from the rule */
	uint32_t path_from, path_count;     /* in TlPrechecks.check_paths */
	uint32_t path2_from, path2_count;   /* #eq? @a @b: the second capture's */
	uint32_t length_from, length_count; /* #eq? / #any-of?: its strings' lengths */
	uint32_t question; /* a semantic predicate: its (predicate, choice) in
			    * TlPrechecks.questions; else UINT32_MAX */
} TlPrecheck;

/* A semantic question: a predicate with its choice. */
typedef struct TlPrecheckQuestion {
	const TlPredicateDef *def;
	int choice;
} TlPrecheckQuestion;

/* The checks of one rule pattern, in the order they are tried (structure,
 * then string tests, then semantic predicates). */
typedef struct TlPrecheckPattern {
	uint32_t from, count; /* in TlPrechecks.checks */
	uint64_t exact;       /* bit i: predicate i of the pattern is decided by its check */
} TlPrecheckPattern;

/* A shape matched without tree-sitter (tl_precheck_run_native). */
typedef struct TlPrecheckNode {
	uint32_t path;    /* 0: the root */
	int32_t parent;   /* index among its shape's nodes; -1 for the root */
	uint8_t match;    /* the root's test (TL_PRECHECK_*) */
	TSSymbol symbol;
} TlPrecheckNode;

typedef struct TlPrecheckCapture {
	uint32_t capture; /* canonical index */
	uint32_t node;    /* among its shape's nodes */
} TlPrecheckCapture;

typedef struct TlPrecheckShape {
	bool native;      /* every node of it has a path: matched without tree-sitter */
	uint32_t from, count;         /* its nodes in TlPrechecks.shape_nodes, root first */
	uint32_t cap_from, cap_count; /* its captures in TlPrechecks.shape_captures */
} TlPrecheckShape;

/* Every rule pattern's checks, every shape's plan, and the paths they share. */
typedef struct TlPrechecks {
	TlArray(TlPrecheckPath) paths; /* [0] is the root */
	TlArray(TlPrecheck) checks;
	TlArray(TlPrecheckPattern) patterns;
	TlArray(TlPrecheckNode) shape_nodes;
	TlArray(TlPrecheckCapture) shape_captures;
	TlArray(TlPrecheckShape) shapes;
	TlArray(uint32_t) lengths;
	TlArray(uint32_t) check_paths;
	TlArray(TlPrecheckQuestion) questions;
} TlPrechecks;

void tl_prechecks_init(TlPrechecks *pc);
void tl_prechecks_release(TlPrechecks *pc);
/* Adds the checks of a pattern whose shape (qtext.h) is `shape` and whose
 * predicates are `preds` (borrowed: they must outlive `pc`), for `lang`;
 * returns its index in pc->patterns. */
uint32_t tl_prechecks_add(TlPrechecks *pc, const TSLanguage *lang, const char *shape,
			  const TlPredList *preds);

/* Adds the plan of a compiled shape (`shape`: the text tree-sitter
 * compiles) and returns its index in pc->shapes. A shape is *native* when
 * it is one plain node with only plain children in fields, recursively, no
 * quantifier, alternation, anchor, negated field or supertype: each of its
 * nodes is then found by its path, and a match is exactly one node per
 * path, the children of a node in the order of its steps (tree-sitter's
 * query.c: one child per step, in order; a wildcard never an ERROR node;
 * MISSING nodes match). */
uint32_t tl_prechecks_add_shape(TlPrechecks *pc, const TSLanguage *lang, const char *shape);

/* Evaluates a predicate of kind MATCH or SEMANTIC on one node, not
 * negated; the engine's (#eq? and #any-of? are compared here, on
 * TlPrecheckRun.text). */
typedef bool (*TlPrecheckPredFn)(void *ctx, const TlPred *p, TSNode node);

/* What is known of a path at the node being checked; each stamp is the
 * generation it holds for (TlPrecheckRun.generation). */
typedef struct TlPrecheckPathState {
	uint32_t gen;        /* its nodes were found: `count` of them from `from` in `nodes` */
	uint32_t exists_gen; /* a node was seen there */
	uint32_t first_gen;  /* `first` holds a node there (tl_precheck__exists) */
	uint32_t from, count;
} TlPrecheckPathState;

/* A node found at a path, and where its children were read to. */
typedef struct TlPrecheckFound {
	TSNode node;
	uint32_t start, end;
	uint32_t kid_from, kid_count;
	bool kids_read;
} TlPrecheckFound;

/* A child of a found node, as the steps test it. */
typedef struct TlPrecheckKid {
	TSNode node;
	TSFieldId field;
	TSSymbol symbol;
	bool named;
} TlPrecheckKid;

/* Scratch space for evaluating checks at one node at a time: the nodes at
 * each path, found once per node, and the semantic predicates' answers. */
typedef struct TlPrecheckRun {
	const TlPrechecks *pc;
	TlPrecheckPredFn fn;
	void *ctx;
	const char *text;             /* the source the nodes are of (string tests) */
	TSNode node;                  /* the node being checked */
	uint32_t generation;          /* bumped per node */
	TlArray(TlPrecheckPathState) state; /* per path, together: one cache line holds three */
	TlArray(TSNode) first;        /* per path: a node there (tl_precheck__exists) */
	TlArray(TlPrecheckFound) nodes;
	TlArray(TlPrecheckKid) kids;
	TlArray(uint32_t) stack;      /* paths still to find, innermost last */
	struct {
		const void *id;
		uint32_t start;
		const TlPredicateDef *def;
		int choice;
		bool result;
	} memo[32];                   /* semantic answers below this node */
	uint32_t memo_count;
	/* Per question: the answer about the node itself, known when its
	 * stamp is `generation`. */
	TlArray(uint32_t) asked_gen;
	TlArray(uint8_t) answer;
	TlTreeWalk kids_walk;         /* reads a node's children with their fields */
} TlPrecheckRun;

void tl_precheck_run_init(TlPrecheckRun *r, const TlPrechecks *pc, TlPrecheckPredFn fn, void *ctx);
void tl_precheck_run_release(TlPrecheckRun *r);
/* Starts checking at `node` (forgets what was found at the previous one). */
void tl_precheck_run_at(TlPrecheckRun *r, TSNode node);
/* True when pattern `pattern` (an index tl_prechecks_add returned) passes
 * its checks at the current node. */
bool tl_precheck_run_holds(TlPrecheckRun *r, uint32_t pattern);
/* Matches native shape `shape` (tl_prechecks_add_shape) at the current
 * node: 1 when it matches, with the node of each of its shape nodes in
 * `nodes` (room for its count); 0 when it does not; -1 when it is not
 * native or a path holds more than one node there (or empty nodes whose
 * order only tree-sitter knows): then tree-sitter must match it. */
int tl_precheck_run_native(TlPrecheckRun *r, uint32_t shape, TSNode *nodes);

#endif
