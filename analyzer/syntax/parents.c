/* The parent table: open addressing on the node id, kept under 3/4 full. */
#include "syntax/parents.h"

#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "syntax/syms.h"
#include "syntax/treewalk.h"


void tl_parents_init(TlParents *p)
{
	memset(p, 0, sizeof *p);
	tl_array_init(&p->nodes);
	tl_array_init(&p->anchors);
	tl_tree_walk_init(&p->fill_walk);
	tl_array_init(&p->fill_open);
}

void tl_parents_release(TlParents *p)
{
	tl_free(p->slots);
	tl_array_release(&p->nodes);
	tl_array_release(&p->anchors);
	tl_tree_walk_release(&p->fill_walk);
	tl_array_release(&p->fill_open);
	memset(p, 0, sizeof *p);
}

uint32_t tl_parents_add_parent(TlParents *p, TSNode parent)
{
	tl_array_push(&p->nodes, parent);
	return p->nodes.size - 1;
}

static void tl_parents__insert(TlParentSlot *slots, uint32_t mask, const TlParentSlot *from)
{
	uint32_t h = tl_hash_ptr(from->id) & mask;
	while (slots[h].id && slots[h].id != from->id)
		h = (h + 1) & mask;
	slots[h] = *from;
}

/* Grows the table to `size` slots (a power of two), keeping its entries. */
static void tl_parents__resize(TlParents *p, uint32_t size)
{
	uint32_t old = p->mask ? p->mask + 1 : 0;
	TlParentSlot *slots = tl_calloc(size, sizeof *slots);
	for (uint32_t i = 0; i < old; i++)
		if (p->slots[i].id)
			tl_parents__insert(slots, size - 1, &p->slots[i]);
	tl_free(p->slots);
	p->slots = slots;
	p->mask = size - 1;
}

void tl_parents_reserve(TlParents *p, uint32_t count)
{
	uint32_t size = p->mask ? p->mask + 1 : 0, want = 256;
	while (want < (1u << 30) && 3 * (uint64_t)want < 4 * (uint64_t)count)
		want *= 2;
	if (want > size)
		tl_parents__resize(p, want);
}

void tl_parents_put(TlParents *p, TSNode child, uint32_t parent)
{
	uint32_t size = p->mask ? p->mask + 1 : 0;
	if (4 * (uint64_t)(p->count + 1) > 3 * (uint64_t)size)
		tl_parents__resize(p, size ? 2 * size : 256);
	TlParentSlot slot = { child.id, parent };
	uint32_t h = tl_hash_ptr(child.id) & p->mask;
	while (p->slots[h].id && p->slots[h].id != child.id)
		h = (h + 1) & p->mask;
	if (!p->slots[h].id)
		p->count++;
	p->slots[h] = slot;
}

uint32_t tl_parents_add_anchor(TlParents *p, TSNode anchor, uint32_t parent, uint32_t up)
{
	tl_parents_put(p, anchor, parent);
	TlParentAnchor a = { anchor, ts_node_start_byte(anchor), ts_node_end_byte(anchor), up, false };
	tl_array_push(&p->anchors, a);
	return p->anchors.size - 1;
}

static bool tl_parents__find(const TlParents *p, TSNode n, TSNode *out)
{
	if (!p->mask)
		return false;
	uint32_t h = tl_hash_ptr(n.id) & p->mask;
	while (p->slots[h].id) {
		if (p->slots[h].id == n.id) {
			*out = p->nodes.items[p->slots[h].parent];
			return true;
		}
		h = (h + 1) & p->mask;
	}
	return false;
}

/* Records the parent of each named node of anchor `a`'s statement, down
 * to the statements nested in it (anchors: known already). */
static void tl_parents__fill(TlParents *p, uint32_t a)
{
	typedef struct TlParentOpen TlFillOpen;
	/* (the walk and the stack are the table's, reused fill after fill) */
	TlTreeWalk *w = &p->fill_walk;
	tl_array_clear(&p->fill_open);
	const TlSyms *sy = tl_syms();
	tl_tree_walk_start(w, p->anchors.items[a].node, 0);
	TlTreeNode t;
	bool descend = true;
	while (tl_tree_walk_next(w, descend, &t)) {
		while (p->fill_open.size > t.depth)
			p->fill_open.size--;
		bool block = false;
		if (p->fill_open.size) {
			TlFillOpen *up = tl_array_last(&p->fill_open);
			block = up->block;
			if (t.named && !block) {
				if (up->parent == UINT32_MAX)
					up->parent = tl_parents_add_parent(p, up->node);
				tl_parents_put(p, t.node, up->parent);
			}
		}
		/* A named child of a block is a statement: an anchor of its own. */
		descend = t.children > 0 && !(block && t.named);
		if (descend) {
			TlFillOpen o = { t.node, UINT32_MAX, t.symbol == sy->block || t.symbol == sy->module };
			tl_array_push(&p->fill_open, o);
		}
	}
	p->anchors.items[a].filled = true;
}

TSNode tl_parents_get(TlParents *p, TSNode n)
{
	TSNode parent;
	if (!n.id)
		return ts_node_parent(n);
	if (tl_parents__find(p, n, &parent))
		return parent;
	/* The last statement starting at or before n, then the statements
	 * around it, innermost first: fill each that spans n until n is
	 * known. */
	uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
	uint32_t lo = 0, hi = p->anchors.size;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->anchors.items[mid].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t a = lo ? lo - 1 : UINT32_MAX; a != UINT32_MAX; a = p->anchors.items[a].up) {
		const TlParentAnchor *an = &p->anchors.items[a];
		if (an->start > start || an->end < end || an->filled)
			continue;
		tl_parents__fill(p, a);
		if (tl_parents__find(p, n, &parent))
			return parent;
	}
	return ts_node_parent(n);
}
