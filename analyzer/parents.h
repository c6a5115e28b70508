/* The parent of each named node of a tree, found in O(1).
 *
 * ts_node_parent walks down from the root to the node each time, over the
 * children of each node on the way: O(depth x siblings). Code that climbs
 * from a node to its enclosing statement or function with it spends
 * O(depth^2), and a file of 2,000 nested calls made one file cost seconds
 * (found by fuzz_python); at module level it scans every statement before
 * the one holding the node (about 3,000 instructions a call in a 1,000-line
 * file, the facts' largest cost there). The index fills this table during
 * its one walk of the tree, for every named node at depth
 * TL_PARENTS_MIN_DEPTH or more, and for the others while the table holds
 * fewer than TL_PARENTS_SHALLOW_MAX (real files: all of them, at 16 bytes a
 * slot plus 32 per parent; a huge flat file keeps its memory bounded and
 * climbs its shallow nodes with ts_node_parent); tl_parents_get answers
 * from it, and falls back to ts_node_parent for a node it does not hold.
 *
 * Ownership: the table owns its slots and its copies of the parents; the
 * nodes are borrowed from the tree, which must outlive it. Not thread-safe for writing; reads of a
 * filled table may be concurrent. */
#ifndef TL_PARENTS_H
#define TL_PARENTS_H

#include <stdint.h>

#include <tree_sitter/api.h>

#include "array.h"

typedef struct TlParentSlot {
	const void *id;  /* the child's ts node id; NULL: empty */
	uint32_t parent; /* index into TlParents.nodes */
} TlParentSlot;

#define TL_PARENTS_MIN_DEPTH 32
/* Shallow nodes recorded at most: about 1.5 MB of slots at 3/4 load, the
 * named nodes of some 8,000 lines of code. */
#define TL_PARENTS_SHALLOW_MAX (1u << 16)

/* Each parent is kept once, in walk order (a sequential write); the hash
 * slots, which land at random places of a large table, stay 16 bytes. */
typedef struct TlParents {
	TlParentSlot *slots;
	uint32_t mask;  /* slots - 1 (a power of two), or 0 when empty */
	uint32_t count;
	TlArray(TSNode) nodes; /* the parents */
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
/* The parent of `n` (a null node for the root), as ts_node_parent gives it. */
TSNode tl_parents_get(const TlParents *p, TSNode n);

#endif
