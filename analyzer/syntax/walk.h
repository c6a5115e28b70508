/* Iterative pre-order walks over a subtree: no recursion, whatever the
 * nesting depth of the input.
 *
 * With a tree-sitter cursor:
 *
 *   TSTreeCursor cur = ts_tree_cursor_new(root);
 *   bool descend = true;
 *   do {
 *           TSNode n = ts_tree_cursor_current_node(&cur);
 *           ...; descend = ...;   // false: skip n's children
 *   } while (tl_walk_next(&cur, root, descend));
 *   ts_tree_cursor_delete(&cur);
 *
 * With a TlWalk, the same nodes in the same order, for about half the
 * instructions (a cursor step rebuilds its child iterator, several hundred
 * instructions, and its failing moves, past a leaf or a last child, cost
 * most; a TlWalk counts each open node's children and reaches those of a
 * narrow node with ts_node_child):
 *
 *   TlWalk w;
 *   tl_walk_start(&w, root);
 *   bool descend = true;
 *   do {
 *           TSNode n = w.node;
 *           ...; descend = ...;
 *   } while (tl_walk_step(&w, descend));
 *   tl_walk_end(&w);
 */
#ifndef TL_WALK_H
#define TL_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "base/source.h"

/* Moves `cur` (created on `root`) to the next node in pre-order, into the
 * current node's children when `descend`; false when the walk is over. */
bool tl_walk_next(TSTreeCursor *cur, TSNode root, bool descend);

/* An open ancestor of the walk's node: its children, the next one to
 * visit, and (a wide node) the cursor that steps through them. */
typedef struct TlWalkLevel {
	TSNode node;
	uint32_t next, count;
	int32_t cursor; /* in TlWalk.cursors, or -1 */
} TlWalkLevel;

typedef struct TlWalk {
	TSNode node;                     /* the node the walk is at */
	TlArray(TlWalkLevel) open;       /* its ancestors up to the root, innermost last */
	TlArray(TSTreeCursor) cursors;   /* one per wide open ancestor, reused */
	uint32_t cursors_used;
} TlWalk;

/* Starts a walk at `root` (w->node is root). */
void tl_walk_start(TlWalk *w, TSNode root);
/* Moves to the next node in pre-order under the root, into w->node's
 * children when `descend`; false when the walk is over. */
bool tl_walk_step(TlWalk *w, bool descend);
void tl_walk_end(TlWalk *w);

/* The parse input of `src` (its parser text where it has one): what
 * ts_parser_parse_with_options reads. */
TSInput tl_walk_input(const TlSource *src);
/* A parse progress callback whose payload is a TlBound (base/budget.h):
 * counts a step of it and cancels the parse past its step budget or its
 * CPU time (the clock read every 64 calls). */
bool tl_walk_parse_progress(TSParseState *state);

#endif
