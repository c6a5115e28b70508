/* A pre-order walk over the visible nodes of a tree, read from
 * tree-sitter's subtrees directly.
 *
 * The public API reaches child i of a node with ts_node_child, which starts
 * from the first child each time, and tells its field with
 * ts_node_field_name_for_child, which does the same again: reading every
 * child of a node with its field costs O(children^2). This walk keeps one
 * frame per open subtree, visible or hidden, and reads each child once:
 * symbol, named flag, field and visible child count come from the subtree
 * it already holds. The index's walk (index.c), the parent table's
 * fills (parents.c) and the pre-checks' reading of children with their
 * fields (precheck.c) go through it. Measured over Debian's torch and
 * torchvision sources (1,292 files), the index phase with ts_node_child
 * for narrow nodes and cursors for wide ones took 318-332 ms, with this
 * walk 301-309 ms (TORCHLINT_TIMINGS=1, three runs each, interleaved); on
 * 161 of those files the pre-checks' node finding went from 97M to 82M
 * instructions (callgrind).
 *
 * It is the one file of torchlint that includes tree-sitter's internal
 * headers (lib/src: subtree.h, language.h, tree.h), which the build takes
 * from the pinned runtime in deps.lock; a version bump must rerun
 * tests/unit/test_treewalk.c, which compares every node, symbol, field and
 * count it yields with ts_node_child, ts_node_field_name_for_child and
 * ts_node_child_count over real files.
 *
 *   TlTreeWalk w;
 *   TlTreeNode t;
 *   tl_tree_walk_init(&w);
 *   tl_tree_walk_start(&w, root, TL_TREE_WALK_FIELDS);   // or 0
 *   bool descend = true;
 *   while (tl_tree_walk_next(&w, descend, &t)) {
 *           // t.node, t.depth: its open ancestors (the root's: 0)
 *           descend = ...;   // false: skip t.node's children
 *   }
 *   tl_tree_walk_release(&w);
 *
 * The first node is the root. A node's children come right after it when
 * `descend` was true on the call after it; t.depth says where each node
 * hangs, so a caller keeping its own stack of open nodes pops those deeper
 * than t.depth before pushing t. tl_tree_walk_kids walks the children of
 * one node only. A TlTreeWalk may be started again (its frames' memory is
 * kept) until it is released. No recursion: frames live in a growable
 * array. */
#ifndef TL_TREEWALK_H
#define TL_TREEWALK_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"

enum {
	TL_TREE_WALK_FIELDS = 1, /* fill TlTreeNode.field */
	/* Pass over anonymous leaves (punctuation, keywords, operators: nodes
	 * neither named nor with children) without yielding them; each one
	 * passed adds one to TlTreeWalk.skipped, so a caller numbering the
	 * nodes in preorder adds that count before each node it is given. */
	TL_TREE_WALK_NO_TOKENS = 2,
};

/* A node the walk yields. */
typedef struct TlTreeNode {
	TSNode node;
	TSSymbol symbol;   /* ts_node_symbol */
	TSFieldId field;   /* the field it is in under its visible parent, 0: none (with TL_TREE_WALK_FIELDS) */
	bool named;        /* ts_node_is_named */
	uint32_t children; /* ts_node_child_count */
	uint32_t depth;    /* its visible ancestors under the walk's root */
} TlTreeNode;

/* One open subtree (opaque: the fields are tree-sitter's). */
typedef struct TlTreeFrame {
	const void *kids;    /* the open node's children (tree-sitter's Subtree array) */
	const void *aliases; /* its production's alias sequence, or NULL */
	const void *fields_from, *fields_to; /* its production's field map */
	uint32_t index, structural, count;
	uint32_t byte, row, column; /* where its next child starts */
	TSFieldId inherited; /* a hidden node: the field it is in (its children inherit it) */
	bool visible;
} TlTreeFrame;

typedef struct TlTreeWalk {
	const TSTree *tree;
	const TSLanguage *language;
	unsigned flags;
	uint32_t depth;   /* visible frames open */
	bool started;     /* the first node is yielded */
	bool kids_only;   /* tl_tree_walk_kids: never descend */
	uint32_t skipped; /* anonymous leaves passed (TL_TREE_WALK_NO_TOKENS) since the start */
	TlTreeNode last;  /* the node yielded last */
	TlArray(TlTreeFrame) frames;
} TlTreeWalk;

void tl_tree_walk_init(TlTreeWalk *w);
/* Starts a walk whose first node is `root`. */
void tl_tree_walk_start(TlTreeWalk *w, TSNode root, unsigned flags);
/* Starts a walk over the children of `parent` only (each call's `descend`
 * is ignored; their depth is 1). */
void tl_tree_walk_kids(TlTreeWalk *w, TSNode parent, unsigned flags);
/* The next node in pre-order: into the last one's children when
 * `descend`. False when the walk is over. */
bool tl_tree_walk_next(TlTreeWalk *w, bool descend, TlTreeNode *out);
void tl_tree_walk_release(TlTreeWalk *w);

/* ts_node_child_by_field_id, answered from the subtree when the field is
 * a child of the node itself (most are): the field map gives its place,
 * the children before it are skipped by their sizes (the public call
 * builds a node for each), and a hidden child there (a supertype such as
 * `expression`) gives its first visible descendant. A field that a hidden
 * child passes up (an inherited one) goes to the public call. On 161 of
 * Debian's torch files the field lookups went from 73M to 49M instructions
 * (callgrind); test_treewalk compares every field of every node. */
TSNode tl_tree_field(TSNode n, TSFieldId field);

/* Asks the memory for what reading node `n` will load (a hint, no
 * effect on any answer): its slot in its parent's children, or, `deep`,
 * the subtree data that slot points to (read from the slot, which should
 * be asked for first). For a caller that will visit a list of nodes the
 * parse allocated far apart: asked a few nodes ahead, the loads overlap. */
void tl_tree_prefetch(TSNode n, bool deep);

#endif
