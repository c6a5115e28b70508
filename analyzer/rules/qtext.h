/* Query text: what torchlint needs to know about a rule's query without
 * compiling it with tree-sitter (ts_query_new costs about a millisecond per
 * node with children, so compilation is left until a file needs the rule).
 *
 * tl_qtext_scan splits a query into its top-level patterns and, for each:
 *   - its *shape*: the pattern's text without predicates, comments and extra
 *     white space, with captures renamed in order of first appearance
 *     (@c0, @c1, ...); two captures written side by side on one node, each
 *     used nowhere else in the pattern (`@finding @_step`), are one canonical
 *     capture. Two patterns with the same shape match the same nodes, so a
 *     combined query compiles and runs each shape once;
 *   - its capture names, each with its canonical index;
 *   - its predicates, as tree-sitter would hand them over (name, then
 *     capture and string arguments), with the byte offset of each '#';
 *   - its literal needs: strings the file's text must hold for the pattern
 *     to match at all, derived from the pattern (no rule declares them):
 *     anonymous nodes ("+="), and #eq? / #any-eq? / #any-of? tests of a
 *     capture against strings. Only captures that always hold exactly one
 *     node count (not inside an alternation [...]); a pattern with a
 *     quantifier (? or *) gets no needs at all. A pattern with no needs
 *     can match any file.
 * The scanner reads tree-sitter's query syntax at the token level (strings,
 * comments, brackets, captures, predicates); tree-sitter still judges the
 * structure (node types, fields) when the query is compiled. */
#ifndef TL_QTEXT_H
#define TL_QTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/array.h"

typedef struct TlQArg {
	bool is_capture;
	uint32_t capture; /* canonical index into the pattern's captures */
	char *string;     /* unescaped; owned */
	uint32_t length;
} TlQArg;

typedef struct TlQPredicate {
	uint32_t offset; /* of the '#' in the query text */
	char *name;      /* "eq?", "not-graph-tensor?"; owned */
	TlArray(TlQArg) args;
} TlQPredicate;

/* One literal need: the file's text holds at least one of `any`. */
typedef struct TlQNeed {
	TlStrArray any;
} TlQNeed;

typedef struct TlQPattern {
	uint32_t start, end; /* byte range of the pattern in the query text */
	char *shape;         /* owned */
	TlStrArray captures; /* names without '@', in order of appearance; owned */
	TlArray(uint32_t) capture_index; /* per name: its canonical index */
	uint32_t capture_count;          /* canonical captures */
	TlArray(TlQPredicate) predicates;
	TlArray(TlQNeed) needs; /* all must hold */
} TlQPattern;

typedef TlArray(TlQPattern) TlQPatterns;

/* Scans `text` into `out` (initialized here). Returns false on a syntax
 * error, with its byte offset in *error_offset and what is wrong in *what
 * (a static string), and `out` released. */
bool tl_qtext_scan(const char *text, size_t len, TlQPatterns *out, uint32_t *error_offset,
		   const char **what);
void tl_qtext_release(TlQPatterns *patterns);

/* The canonical capture index of `name` in `p`, or -1. */
int32_t tl_qtext_capture(const TlQPattern *p, const char *name, size_t len);

#endif
