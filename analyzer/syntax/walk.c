#include "syntax/walk.h"

#include "base/budget.h"

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

/* Up to this many children, ts_node_child(n, i) (which starts from the
 * first child each time: O(i)) costs less than stepping a cursor; a wider
 * node gets a cursor of its own for its level (the index's walk measured
 * the same bound). */
#define TL_WALK_WIDE 12

void tl_walk_start(TlWalk *w, TSNode root)
{
	w->node = root;
	tl_array_init(&w->open);
	tl_array_init(&w->cursors);
	w->cursors_used = 0;
}

void tl_walk_end(TlWalk *w)
{
	for (uint32_t i = 0; i < w->cursors.size; i++)
		ts_tree_cursor_delete(&w->cursors.items[i]);
	tl_array_release(&w->cursors);
	tl_array_release(&w->open);
}

bool tl_walk_step(TlWalk *w, bool descend)
{
	uint32_t count = descend ? ts_node_child_count(w->node) : 0;
	if (count) {
		TlWalkLevel l = { w->node, 1, count, -1 };
		if (count > TL_WALK_WIDE) {
			/* Wide: a cursor of its own steps through its children. */
			if (w->cursors_used == w->cursors.size) {
				TSTreeCursor c = ts_tree_cursor_new(w->node);
				tl_array_push(&w->cursors, c);
			} else {
				ts_tree_cursor_reset(&w->cursors.items[w->cursors_used], w->node);
			}
			l.cursor = (int32_t)w->cursors_used++;
			TSTreeCursor *c = &w->cursors.items[l.cursor];
			ts_tree_cursor_goto_first_child(c);
			w->node = ts_tree_cursor_current_node(c);
		} else {
			w->node = ts_node_child(w->node, 0);
		}
		tl_array_push(&w->open, l);
		return true;
	}
	/* The next child of the innermost open ancestor that has one; the
	 * counts say which: no cursor is asked for a move that fails. */
	while (w->open.size) {
		TlWalkLevel *l = tl_array_last(&w->open);
		if (l->next < l->count) {
			if (l->cursor >= 0) {
				TSTreeCursor *c = &w->cursors.items[l->cursor];
				ts_tree_cursor_goto_next_sibling(c);
				w->node = ts_tree_cursor_current_node(c);
			} else {
				w->node = ts_node_child(l->node, l->next);
			}
			l->next++;
			return true;
		}
		if (l->cursor >= 0)
			w->cursors_used--;
		w->open.size--;
	}
	return false;
}

static const char *tl_walk__read(void *payload, uint32_t byte, TSPoint at, uint32_t *read)
{
	(void)at;
	const TlSource *src = payload;
	const char *t = src->parse_text ? src->parse_text : src->text;
	if (byte >= src->length) {
		*read = 0;
		return "";
	}
	*read = src->length - byte;
	return t + byte;
}

TSInput tl_walk_input(const TlSource *src)
{
	TSInput in = { (void *)src, tl_walk__read, TSInputEncodingUTF8, NULL };
	return in;
}

bool tl_walk_parse_progress(TSParseState *state)
{
	TlBound *b = state->payload;
	return tl_bound_tick(b, 64);
}
