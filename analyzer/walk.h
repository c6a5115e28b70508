/* Iterative pre-order walks over a subtree with a tree-sitter cursor: no
 * recursion, whatever the nesting depth of the input.
 *
 *   TSTreeCursor cur = ts_tree_cursor_new(root);
 *   bool descend = true;
 *   do {
 *           TSNode n = ts_tree_cursor_current_node(&cur);
 *           ...; descend = ...;   // false: skip n's children
 *   } while (tl_walk_next(&cur, root, descend));
 *   ts_tree_cursor_delete(&cur);
 */
#ifndef TL_WALK_H
#define TL_WALK_H

#include <stdbool.h>

#include <tree_sitter/api.h>

/* Moves `cur` (created on `root`) to the next node in pre-order, into the
 * current node's children when `descend`; false when the walk is over. */
bool tl_walk_next(TSTreeCursor *cur, TSNode root, bool descend);

#endif
