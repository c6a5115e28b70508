/* The walk over subtrees (treewalk.h). tree-sitter's internal headers come
 * from the pinned runtime's lib/src, on the include path of this file
 * only (the Makefile). */
#include "syntax/treewalk.h"

#include <string.h>

#include <src/language.h>
#include <src/length.h>
#include <src/subtree.h>
#include <src/tree.h>

void tl_tree_walk_init(TlTreeWalk *w)
{
	memset(w, 0, sizeof *w);
	tl_array_init(&w->frames);
}

void tl_tree_walk_release(TlTreeWalk *w)
{
	tl_array_release(&w->frames);
}

/* What the public API says of a visible node: its symbol, named flag and
 * visible child count. */
static void tl_tree__describe(const TlTreeWalk *w, const Subtree *s, TSSymbol alias, TlTreeNode *out)
{
	const TSLanguage *lang = w->language;
	TSSymbol sym = alias ? alias : ts_subtree_symbol(*s);
	/* ts_language_public_symbol and ts_language_symbol_metadata, inline */
	out->symbol = sym == ts_builtin_sym_error ? sym : lang->public_symbol_map[sym];
	out->named = !alias ? ts_subtree_named(*s)
		     : alias == ts_builtin_sym_error ? true
		     : alias == ts_builtin_sym_error_repeat ? false
		     : lang->symbol_metadata[alias].named;
	out->children = ts_subtree_child_count(*s) ? s->ptr->visible_child_count : 0;
}

/* How many siblings ahead of the child in hand the walk asks for. */
#define TL_TREE_AHEAD 2

static inline void tl_tree__prefetch(const Subtree *s)
{
	if (!s->data.is_inline)
		__builtin_prefetch(s->ptr);
}

/* Opens subtree `s` (one with children) starting at `at`. */
static void tl_tree__open(TlTreeWalk *w, const Subtree *s, Length at, bool visible, TSFieldId inherited)
{
	const SubtreeHeapData *data = s->ptr;
	TlTreeFrame f;
	f.kids = ts_subtree_children(*s);
	f.aliases = ts_language_alias_sequence(w->language, data->production_id);
	f.fields_from = f.fields_to = NULL;
	if (w->flags & TL_TREE_WALK_FIELDS) {
		const TSFieldMapEntry *from, *to;
		ts_language_field_map(w->language, data->production_id, &from, &to);
		f.fields_from = from;
		f.fields_to = to;
	}
	f.index = f.structural = 0;
	f.count = data->child_count;
	for (uint32_t i = 0; i < TL_TREE_AHEAD && i < f.count; i++)
		tl_tree__prefetch((const Subtree *)f.kids + i);
	f.byte = at.bytes;
	f.row = at.extent.row;
	f.column = at.extent.column;
	f.inherited = inherited;
	f.visible = visible;
	tl_array_push(&w->frames, f);
	if (visible)
		w->depth++;
}

static void tl_tree__reset(TlTreeWalk *w, TSNode n, unsigned flags)
{
	w->tree = n.tree;
	w->language = n.tree ? n.tree->language : NULL;
	w->flags = flags;
	w->depth = 0;
	w->started = false;
	w->kids_only = false;
	w->skipped = 0;
	tl_array_clear(&w->frames);
	memset(&w->last, 0, sizeof w->last);
	w->last.node = n;
}

void tl_tree_walk_start(TlTreeWalk *w, TSNode root, unsigned flags)
{
	tl_tree__reset(w, root, flags);
}

void tl_tree_walk_kids(TlTreeWalk *w, TSNode parent, unsigned flags)
{
	tl_tree__reset(w, parent, flags);
	w->started = true;
	w->kids_only = true;
	if (!ts_node_is_null(parent) && ts_subtree_child_count(*(const Subtree *)parent.id)) {
		Length at = { ts_node_start_byte(parent), ts_node_start_point(parent) };
		tl_tree__open(w, (const Subtree *)parent.id, at, true, 0);
	}
}

/* The field of the child at structural index `si` of frame `f`. */
static TSFieldId tl_tree__field(const TlTreeFrame *f, uint32_t si)
{
	for (const TSFieldMapEntry *e = f->fields_from; e < (const TSFieldMapEntry *)f->fields_to; e++)
		if (!e->inherited && e->child_index == si)
			return e->field_id;
	return f->visible ? 0 : f->inherited;
}

bool tl_tree_walk_next(TlTreeWalk *w, bool descend, TlTreeNode *out)
{
	if (!w->started) {
		w->started = true;
		TSNode root = w->last.node;
		if (ts_node_is_null(root))
			return false;
		tl_tree__describe(w, (const Subtree *)root.id, (TSSymbol)root.context[3], &w->last);
		w->last.field = 0;
		w->last.depth = 0;
		*out = w->last;
		return true;
	}
	if (descend && !w->kids_only && w->last.node.id) {
		const Subtree *s = (const Subtree *)w->last.node.id;
		if (ts_subtree_child_count(*s)) {
			Length at = { w->last.node.context[0],
				      { w->last.node.context[1], w->last.node.context[2] } };
			tl_tree__open(w, s, at, true, 0);
		}
	}
	while (w->frames.size) {
		TlTreeFrame *f = tl_array_last(&w->frames);
		if (f->index == f->count) {
			if (f->visible)
				w->depth--;
			w->frames.size--;
			continue;
		}
		const Subtree *child = &((const Subtree *)f->kids)[f->index];
		/* The walk waits on each child's heap data, freshly allocated
		 * by the parse and not yet in cache: ask for a later sibling's
		 * now. */
		if (f->index + TL_TREE_AHEAD < f->count)
			tl_tree__prefetch(child + TL_TREE_AHEAD);
		TSSymbol alias = 0;
		TSFieldId field = 0;
		bool extra = ts_subtree_extra(*child);
		if (!extra) {
			if (f->aliases)
				alias = ((const TSSymbol *)f->aliases)[f->structural];
			if (w->flags & TL_TREE_WALK_FIELDS)
				field = tl_tree__field(f, f->structural);
			f->structural++;
		}
		Length at = { f->byte, { f->row, f->column } };
		if (f->index > 0)
			at = length_add(at, ts_subtree_padding(*child));
		Length end = length_add(at, ts_subtree_size(*child));
		f->byte = end.bytes;
		f->row = end.extent.row;
		f->column = end.extent.column;
		f->index++;
		if (ts_subtree_visible(*child) || alias) {
			/* An anonymous leaf, passed over when asked (the test of
			 * tl_tree__describe, for a child without children). */
			if ((w->flags & TL_TREE_WALK_NO_TOKENS) && !ts_subtree_child_count(*child) &&
			    !(!alias ? ts_subtree_named(*child)
			      : alias == ts_builtin_sym_error ? true
			      : alias == ts_builtin_sym_error_repeat ? false
			      : w->language->symbol_metadata[alias].named)) {
				w->skipped++;
				continue;
			}
			/* ts_node_new, inline */
			w->last.node = (TSNode){ { at.bytes, at.extent.row, at.extent.column, alias },
						 child, w->tree };
			tl_tree__describe(w, child, alias, &w->last);
			w->last.field = field;
			w->last.depth = w->depth;
			*out = w->last;
			return true;
		}
		if (ts_subtree_child_count(*child))
			tl_tree__open(w, child, at, false, field);
	}
	w->last.node = (TSNode){ { 0, 0, 0, 0 }, NULL, NULL };
	return false;
}

/* The first visible node among the children of hidden subtree `s` (at
 * `at`), hidden ones without visible descendants skipped and those with
 * some entered, as ts_node_child(s, 0) flattens them. */
static TSNode tl_tree__first_visible(const TSLanguage *lang, const TSTree *tree, const Subtree *s, Length at)
{
	for (;;) {
		const Subtree *kids = ts_subtree_children(*s);
		const TSSymbol *aliases = ts_language_alias_sequence(lang, s->ptr->production_id);
		uint32_t structural = 0;
		const Subtree *into = NULL;
		for (uint32_t i = 0; i < s->ptr->child_count && !into; i++) {
			const Subtree *child = &kids[i];
			if (i > 0)
				at = length_add(at, ts_subtree_padding(*child));
			TSSymbol alias = 0;
			if (!ts_subtree_extra(*child))
				alias = aliases ? aliases[structural++] : 0;
			if (ts_subtree_visible(*child) || alias)
				return (TSNode){ { at.bytes, at.extent.row, at.extent.column, alias }, child, tree };
			if (ts_subtree_visible_child_count(*child))
				into = child;
			else
				at = length_add(at, ts_subtree_size(*child));
		}
		if (!into)
			return (TSNode){ { 0, 0, 0, 0 }, NULL, NULL };
		s = into;
	}
}

TSNode tl_tree_field(TSNode n, TSFieldId field)
{
	const Subtree *s = (const Subtree *)n.id;
	if (!s || !field || !ts_subtree_child_count(*s))
		return (TSNode){ { 0, 0, 0, 0 }, NULL, NULL };
	const TSLanguage *lang = n.tree->language; /* ts_tree_language, inline */
	const TSFieldMapEntry *e, *end;
	ts_language_field_map(lang, s->ptr->production_id, &e, &end);
	while (e < end && e->field_id != field)
		e++;
	if (e == end) /* no such field here */
		return (TSNode){ { 0, 0, 0, 0 }, NULL, NULL };
	/* A field a hidden child passes up: the public call's own way. */
	if (e->inherited)
		return ts_node_child_by_field_id(n, field);
	const Subtree *kids = ts_subtree_children(*s);
	const TSSymbol *aliases = ts_language_alias_sequence(lang, s->ptr->production_id);
	Length at = { n.context[0], { n.context[1], n.context[2] } };
	uint32_t structural = 0;
	for (uint32_t i = 0; i < s->ptr->child_count; i++) {
		const Subtree *child = &kids[i];
		if (i > 0)
			at = length_add(at, ts_subtree_padding(*child));
		if (!ts_subtree_extra(*child)) {
			if (structural == e->child_index) {
				TSSymbol alias = aliases ? aliases[structural] : 0;
				if (ts_subtree_visible(*child) || alias)
					return (TSNode){ { at.bytes, at.extent.row, at.extent.column, alias },
							 child, n.tree };
				/* A hidden child (a supertype such as expression):
				 * its first visible descendant, as ts_node_child(child, 0). */
				if (ts_subtree_visible_child_count(*child))
					return tl_tree__first_visible(lang, n.tree, child, at);
				break;
			}
			structural++;
		}
		at = length_add(at, ts_subtree_size(*child));
	}
	return ts_node_child_by_field_id(n, field);
}

void tl_tree_prefetch(TSNode n, bool deep)
{
	const Subtree *s = (const Subtree *)n.id;
	if (!s)
		return;
	if (!deep)
		__builtin_prefetch(s);
	else
		tl_tree__prefetch(s);
}
