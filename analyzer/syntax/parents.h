/* The parent of each named node of a tree, found in O(1) once known.
 *
 * ts_node_parent walks down from the root to the node each time, over the
 * children of each node on the way: O(depth x siblings). Code that climbs
 * from a node to its enclosing statement or function with it spends
 * O(depth^2), and a file of 2,000 nested calls made one file cost seconds
 * (found by fuzz_python); at module level it scans every statement before
 * the one holding the node (about 3,000 instructions a call in a 1,000-line
 * file).
 *
 * Few nodes are ever climbed from (over Debian's torch sources, one
 * lookup for every 16 named nodes), so the table is filled lazily, a
 * statement at a time. The index's walk records each *statement* (a named
 * child of a module or block, or of the root whatever it is: an ERROR
 * root when nothing parses) as an anchor, with its parent; the first
 * lookup of a node inside a statement that is not known yet walks that
 * statement once, without entering the statements nested in it (anchors
 * themselves), and records the parent of every named node it meets. A
 * lookup finds the innermost statement around a node by halving over the
 * anchors (in walk order) and climbing their enclosing anchors; a node
 * no statement holds (the module, an anonymous node) is asked of
 * ts_node_parent.
 *
 * Ownership: the table owns its slots, anchors and copies of the parents;
 * the nodes are borrowed from the tree, which must outlive it. Lookups
 * write (they fill): one thread at a time. */
#ifndef TL_PARENTS_H
#define TL_PARENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#include "base/array.h"
#include "syntax/treewalk.h"

typedef struct TlParentSlot {
	const void *id;  /* the child's ts node id; NULL: empty */
	uint32_t parent; /* index into TlParents.nodes */
} TlParentSlot;

/* A node the fill of a statement is inside (parents.c). */
struct TlParentOpen {
	TSNode node;
	uint32_t parent; /* its number once added, else UINT32_MAX */
	bool block;      /* its named children are anchors */
};

/* A statement: its node and span, its enclosing statement, and whether
 * the parents inside it are recorded. */
typedef struct TlParentAnchor {
	TSNode node;
	uint32_t start, end;
	uint32_t up; /* the innermost anchor around it, or UINT32_MAX */
	bool filled;
} TlParentAnchor;

/* Each parent is kept once, in the order it is added (a sequential
 * write); the hash slots, which land at random places of a large table,
 * stay 16 bytes. */
typedef struct TlParents {
	TlParentSlot *slots;
	uint32_t mask;  /* slots - 1 (a power of two), or 0 when empty */
	uint32_t count;
	TlArray(TSNode) nodes;            /* the parents */
	TlArray(TlParentAnchor) anchors;  /* in walk order: starts ascending */
	/* Scratch of the fills (parents.c), kept from one to the next. */
	TlTreeWalk fill_walk;
	TlArray(struct TlParentOpen) fill_open;
} TlParents;

void tl_parents_init(TlParents *p);
void tl_parents_release(TlParents *p);
/* Makes room for `count` entries at once (growing one doubling at a time
 * re-inserts every entry each time); a hint, the table still grows. */
void tl_parents_reserve(TlParents *p, uint32_t count);
/* Keeps `parent` and returns its index, for tl_parents_put: once per
 * parent, however many children it has. */
uint32_t tl_parents_add_parent(TlParents *p, TSNode parent);
/* Records that parent number `parent` (tl_parents_add_parent) is the
 * parent of the named node `child`. */
void tl_parents_put(TlParents *p, TSNode child, uint32_t parent);
/* Records statement `anchor`, a named child of parent number `parent` (a
 * module or block), inside anchor number `up` (UINT32_MAX: none); anchors
 * are added in walk order. Returns its number. */
uint32_t tl_parents_add_anchor(TlParents *p, TSNode anchor, uint32_t parent, uint32_t up);
/* The parent of `n` (a null node for the root), as ts_node_parent gives it. */
TSNode tl_parents_get(TlParents *p, TSNode n);

#endif
