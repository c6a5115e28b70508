#include "walk.h"

bool tl_walk_next(TSTreeCursor *cur, TSNode root, bool descend)
{
	if (descend && ts_tree_cursor_goto_first_child(cur))
		return true;
	for (;;) {
		if (ts_node_eq(ts_tree_cursor_current_node(cur), root))
			return false;
		if (ts_tree_cursor_goto_next_sibling(cur))
			return true;
		if (!ts_tree_cursor_goto_parent(cur))
			return false;
	}
}
